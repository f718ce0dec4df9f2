"""The network player's inputs and play: bet features compiled against their readable
reference, card features per vector, and whole six-seat hands with the player at every
seat.

Run from the repository root::

    python benchmarks/limitnet.py [--quick] [--seed N] [--json]

* Bet features: random six-seat fixed-limit states (hands played to a random depth by
  random legal actions); ``table_bet_features`` on an engine ``Table`` per state against
  ``batch_bet_features`` over all of them in one compiled call (the first, compiling,
  call untimed). Same states, so the ratio is measured in this run.
* Card features: ``card_features`` on random deals at each stage, cold (caches cleared)
  and warm (the same deals again, served from the per-board caches).
* Play: table-hands per second of a fresh ``ActionFunction`` in every seat of a six-seat
  fixed-limit match (``evaluate.match``), card features computed as the agent needs them;
  then the same with an observer, every seat reading its opponents' public beliefs
  (``limitnet.public_beliefs``: one batched emission per step on top), and the ratio.

The last line printed is one JSON object: ``bet_reference_states_s``,
``bet_compiled_states_s``, ``bet_speedup``; ``card_vectors_s_cold`` and
``card_vectors_s_warm``; ``play_table_hands_s``, ``play_beliefs_table_hands_s`` and
``beliefs_cost`` (their ratio); ``load_average``; ``quick`` and ``seed``.
"""

from __future__ import annotations

import os
import time

import numpy as np
import torch

from common import emit, parse_args, print_table
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import Betting
from poolshark.engine.table import Table
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.limitnet import card_features as cards
from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.agent import LimitNetAgent
from poolshark.limitnet.bet_features import batch_bet_features, table_bet_features
from poolshark.limitnet.observer import Observer
from poolshark.limitnet.train import limit_game


def random_states(count: int, seed: int) -> tuple[list[Table], BatchedTables]:
    """``count`` six-seat hands in progress, as Tables and as one batch (same states)."""
    config = limit_game(6)
    rng = np.random.default_rng(seed)
    batch = BatchedTables(config, count)

    def deal(i: int) -> Table:
        table = Table(config, [200] * 6, button=i % 6, seed=seed + i)
        holes, board = [table.hole_cards], [table.board_cards]
        batch.reset([i], stacks=200, buttons=[i % 6], hole_cards=holes, boards=board)
        return table

    tables = []
    for i in range(count):
        table = deal(i)
        for _ in range(int(rng.integers(0, 12))):
            legal = table.legal()
            move = int(rng.choice([1, 2] if legal.min_raise_to is not None else [1]))
            amount = legal.min_raise_to or 0
            table.act(("fold", "call", "raise")[move], amount)
            moves = np.full(count, -1)
            moves[i] = move
            batch.step(moves, np.full(count, amount))
            if table.done:
                break
        tables.append(deal(i) if table.done else table)  # a finished hand has no one to act
    return tables, batch


def main() -> None:
    args = parse_args(__doc__ or "")
    torch.set_num_threads(1)
    states = 500 if args.quick else 5000
    tables, batch = random_states(states, args.seed)
    index = np.arange(states)
    batch_bet_features(batch, index[:1])  # compile
    start = time.perf_counter()
    for table in tables:
        table_bet_features(table)
    reference = states / (time.perf_counter() - start)
    start = time.perf_counter()
    batch_bet_features(batch, index)
    compiled = states / (time.perf_counter() - start)

    deals = 200 if args.quick else 2000
    rng = np.random.default_rng(args.seed)
    decks = [[int(c) for c in rng.permutation(52)[:7]] for _ in range(deals)]
    cards.clear_caches()
    rates = []
    for _ in range(2):  # the first pass fills the per-board caches, the second reads them
        start = time.perf_counter()
        for deck in decks:
            for shown in (0, 3, 4, 5):
                cards.card_features(deck[:2], deck[2 : 2 + shown])
        rates.append(4 * deals / (time.perf_counter() - start))
    cold, warm = rates

    hands = 120 if args.quick else 1200
    config = MatchConfig(hands=hands, seats=6, seed=args.seed, betting=Betting.FIXED_LIMIT)
    model = ActionFunction(seed=args.seed)
    result = play_match([LimitNetAgent(model)], [0] * 6, config)
    play = result.table_hands / result.seconds
    reader = LimitNetAgent(model, observer=Observer(model, seed=args.seed))
    result = play_match([reader], [0] * 6, config)
    play_beliefs = result.table_hands / result.seconds

    if not args.json:
        print_table(
            "network player inputs and play",
            ["what", "per second"],
            [
                ["bet features, reference (Table) states", reference],
                ["bet features, compiled (batch) states", compiled],
                ["card feature vectors, first pass", cold],
                ["card feature vectors, same deals again", warm],
                ["six-seat table-hands, player at every seat", play],
                ["the same, every seat reading opponent beliefs", play_beliefs],
            ],
        )
    emit(
        {
            "bet_reference_states_s": reference,
            "bet_compiled_states_s": compiled,
            "bet_speedup": compiled / reference,
            "card_vectors_s_cold": cold,
            "card_vectors_s_warm": warm,
            "play_table_hands_s": play,
            "play_beliefs_table_hands_s": play_beliefs,
            "beliefs_cost": play / play_beliefs,
            "load_average": os.getloadavg()[0],
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
