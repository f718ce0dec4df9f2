"""The card abstraction of heads-up limit hold'em: features, buckets and the abstract game.

Run from the repository root::

    python benchmarks/card_abstraction.py [--quick] [--seed N] [--json]

Measured in one run, on one core unless said:

* hand features (E, E2, PPOT, NPOT against a random hand) per second on the flop, turn and
  river: the compiled Monte Carlo estimate (``samples=200``, the abstraction's default) next
  to the exact reference (``equity.features.hand_features`` against the full range) on the
  same hands, with the ratio of their speeds, the Monte Carlo's mean absolute error and how
  often the Monte Carlo features fall in the bucket the exact ones fall in (5 buckets);
* fitting an abstraction (5 buckets a street);
* bucket lookups per second per street (preflop is a table lookup; postflop includes the
  features), and the nearest-centroid step alone;
* ``holdem_game``: random deals bucketed for both players on every street per second, on
  one core and on all (the same game either way), and how many river sequence pairs the
  sampled game reaches;
* :class:`EquilibriumAgent` in a heads-up fixed-limit match (a uniform stand-in strategy
  against a calling station): its decisions per second, and the match's hands per second.

The last line is one JSON object: ``features`` (per street: ``mc_per_s``, ``exact_per_s``,
``ratio``, ``mean_abs_error`` of E, E2, PPOT, NPOT, ``same_bucket``, ``exact_hands``),
``fit_s``, ``bucket_per_s`` (per street), ``nearest_per_s``, ``deals_per_s``,
``deals_per_s_all_cores``, ``cores``, ``deals``, ``river_pairs_seen``, ``river_pairs``,
``agent_decisions_per_s``, ``match_hands_per_s``, ``quick`` and ``seed``.
"""

from __future__ import annotations

import time
from functools import partial

import numba
import numpy as np

from common import best_of, emit, parse_args, print_table
from poolshark.agents.bots import CallingStation
from poolshark.agents.equilibrium import EquilibriumAgent, tree_node
from poolshark.engine.config import Betting
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.solve.bucket_features import (
    BOARD_CARDS,
    STREET_NAMES,
    exact_features,
    monte_carlo_features,
)
from poolshark.solve.card_abstraction import deal_cards, fit_abstraction, holdem_game

SAMPLES = 200


class UniformTreeStrategy:
    """A stand-in for a solved strategy: uniform over the abstract tree's actions."""

    def probabilities(self, history: str, sequence: int) -> np.ndarray:
        _, may_fold, may_raise = tree_node(history)
        return np.array([may_fold, 1.0, may_raise], dtype=np.float64)


def boards_at(cards: np.ndarray, street: int) -> np.ndarray:
    """The (N, 5) boards of deals at ``street`` (-1 for unseen cards)."""
    boards = cards[:, 4:9].copy()
    boards[:, BOARD_CARDS[street] :] = -1
    return boards


def main() -> None:
    """Time every piece and print the tables and the JSON line."""
    args = parse_args(__doc__ or "")

    def show(title: str, columns: list[str], rows: list[list[object]]) -> None:
        if not args.json:
            print_table(title, columns, rows)

    exact_hands = {1: 8, 2: 100, 3: 200} if args.quick else {1: 30, 2: 400, 3: 600}
    mc_hands = 5_000 if args.quick else 40_000
    cards = deal_cards(max(mc_hands, 1000), args.seed)
    start = time.perf_counter()
    hands = 2_000 if args.quick else 20_000
    abstraction = fit_abstraction(hands=hands, samples=SAMPLES, seed=args.seed)
    fit_s = time.perf_counter() - start
    rows: list[list[object]] = []
    features: dict[str, dict[str, object]] = {}
    for street in (1, 2, 3):
        boards = boards_at(cards, street)
        monte_carlo_features(street, cards[:10, :2], boards[:10], samples=SAMPLES)  # compile
        mc_s = best_of(
            partial(
                monte_carlo_features,
                street,
                cards[:mc_hands, :2],
                boards[:mc_hands],
                samples=SAMPLES,
                seed=args.seed,
            ),
            3,
        )
        n = exact_hands[street]
        start = time.perf_counter()
        exact = np.array(
            [
                exact_features(street, cards[i, :2].tolist(), cards[i, 4:9].tolist())
                for i in range(n)
            ]
        )
        exact_s = time.perf_counter() - start
        sampled = monte_carlo_features(
            street, cards[:n, :2], boards[:n], samples=SAMPLES, seed=args.seed
        )
        error = np.abs(sampled - exact).mean(axis=0)
        same = abstraction.nearest(street, sampled) == abstraction.nearest(street, exact)
        mc_rate, exact_rate = mc_hands / mc_s, n / exact_s
        features[STREET_NAMES[street]] = {
            "mc_per_s": mc_rate,
            "exact_per_s": exact_rate,
            "ratio": mc_rate / exact_rate,
            "mean_abs_error": error.round(4).tolist(),
            "same_bucket": float(same.mean()),
            "exact_hands": n,
        }
        rows.append(
            [
                STREET_NAMES[street],
                mc_rate,
                exact_rate,
                mc_rate / exact_rate,
                " ".join(f"{e:.4f}" for e in error),
                f"{same.mean():.0%} of {n}",
            ]
        )
    show(
        f"Hand features against a random hand (1 core; Monte Carlo {SAMPLES} samples)",
        [
            "street",
            "Monte Carlo / s",
            "exact / s",
            "ratio",
            "MC abs error E E2 PPOT NPOT",
            "same bucket as exact",
        ],
        rows,
    )

    lookups = 5_000 if args.quick else 40_000
    bucket_rates: dict[str, float] = {}
    bucket_rows: list[list[object]] = []
    for street in range(4):
        boards = boards_at(cards, street)[:lookups]
        seconds = best_of(
            partial(abstraction.bucket_batch, street, cards[:lookups, :2], boards),
            3,
        )
        bucket_rates[STREET_NAMES[street]] = lookups / seconds
        bucket_rows.append([STREET_NAMES[street], lookups, lookups / seconds])
    found = abstraction.features(1, cards[:lookups, :2], boards_at(cards, 1)[:lookups])
    nearest_s = best_of(lambda: abstraction.nearest(1, found), 5)
    bucket_rows.append(["nearest centroid only (flop)", lookups, lookups / nearest_s])
    show(
        f"Bucket lookups (1 core; fit on {hands:,} hands a street in {fit_s:.1f} s)",
        ["street", "hands", "per second"],
        bucket_rows,
    )

    deals = 5_000 if args.quick else 50_000
    holdem_game(abstraction, 100, seed=args.seed)  # compile the dealer
    holdem_game(abstraction, 100, seed=args.seed, threads=None)  # and the parallel kernel
    start = time.perf_counter()
    game = holdem_game(abstraction, deals, seed=args.seed)
    game_s = time.perf_counter() - start
    start = time.perf_counter()
    parallel = holdem_game(abstraction, deals, seed=args.seed, threads=None)
    parallel_s = time.perf_counter() - start
    river = game.chance.joint[3]
    if not np.array_equal(parallel.chance.joint[3], river):
        raise AssertionError("the parallel features changed the game")
    seen = int((river > 0).sum())
    cores = numba.get_num_threads()
    show(
        "Abstract game (holdem_game)",
        ["cores", "deals", "seconds", "deals / s", "speed-up", "river pairs seen", "river pairs"],
        [
            [1, deals, game_s, deals / game_s, 1.0, seen, river.size],
            [cores, deals, parallel_s, deals / parallel_s, game_s / parallel_s, seen, river.size],
        ],
    )
    match_hands = 1_000 if args.quick else 10_000
    agent = EquilibriumAgent(abstraction, UniformTreeStrategy())
    config = MatchConfig(
        seats=2, betting=Betting.FIXED_LIMIT, hands=match_hands, tables=256, seed=args.seed
    )
    play_match(
        [agent, CallingStation()],
        [0, 1],
        MatchConfig(seats=2, betting=Betting.FIXED_LIMIT, hands=20),
    )
    result = play_match([agent, CallingStation()], [0, 1], config)
    agent_s = result.agents[0].agent_seconds
    show(
        "EquilibriumAgent in a fixed-limit match (stand-in uniform strategy vs a station)",
        ["hands", "decisions", "agent seconds", "decisions / s", "hands / s (match)"],
        [
            [
                result.table_hands,
                result.agents[0].decisions,
                agent_s,
                result.agents[0].decisions / agent_s,
                result.table_hands / result.seconds,
            ]
        ],
    )
    emit(
        {
            "agent_decisions_per_s": result.agents[0].decisions / agent_s,
            "match_hands_per_s": result.table_hands / result.seconds,
            "features": features,
            "fit_s": fit_s,
            "bucket_per_s": bucket_rates,
            "nearest_per_s": lookups / nearest_s,
            "deals_per_s": deals / game_s,
            "deals_per_s_all_cores": deals / parallel_s,
            "cores": cores,
            "deals": deals,
            "river_pairs_seen": seen,
            "river_pairs": int(river.size),
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
