"""Player types learnt in play: a typed network player in every seat of six-seat matches,
each seat keeping one type for the match, and the players' own joint card-type x
player-type beliefs (``limitnet.type_beliefs``) with and without the showdown's update.

Run from the repository root::

    python benchmarks/limit_type_beliefs.py [--quick] [--seed N] [--json]

The known model has 8 card types, ``P`` player types (2 and 4) whose gating offsets are
drawn with spread 1 and values with spread 2 (so the types change the play); its observer's
card-type table is random (spread 1), not fitted, and the prior is uniform. After each
reported deal of a match, every seat's belief is scored by the weight it puts on the
seat's true type and by whether that is its most likely type (mean over seats and
matches); a third run updates every seat at every hand's end with its true cards, as if
all were shown (the most the hands can say about the types). Two more runs replace the
random card-type table by one fitted (``fit_observer``) to the known model's lines from
other matches of the same length (four times as many, a fifth of them held out to stop
on; the beliefs the decisions read replayed under the random observer, as in play): once
with each line's true player type revealed, once ignoring the types (stopped on the
held-out likelihood without types, as ``limit observe`` did before). Also: seconds per
table-hand of the matches with and without the showdowns, and of the same matches with
card-type beliefs only (no prior set).

The last line printed is one JSON object: for each ``P``, ``weight`` and ``accuracy``
with showdowns, without (``_no_showdowns``), with every hand's cards (``_all_cards``) and
with the fitted tables (``_fitted_types``, ``_fitted_no_types``), one entry per reported
deal; ``fit_held_out`` (log-likelihood per decision of the held-out lines, their types
revealed, under the random table, the one fitted with types and the one fitted without);
``hand_seconds`` (joint with showdowns, joint without, card types only) and
``showdowns`` (seats shown per match); and ``deals`` (the reported deals),
``matches``, ``quick``, ``seed``.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from common import emit, parse_args, print_table
from poolshark.agents.protocol import EndedHands
from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.agent import LimitNetAgent
from poolshark.limitnet.observer import Observer
from poolshark.limitnet.observer_lines import fit_observer, record_lines
from poolshark.limitnet.public_beliefs import BeliefTracker, with_record_beliefs
from poolshark.limitnet.records import record_matches

SEATS = 6


def known_model(players: int, seed: int) -> ActionFunction:
    """An action function whose values and player-type offsets change the play."""
    model = ActionFunction(seed=seed, player_types=players)
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for values in model.values:
            values.copy_(2.0 * torch.randn(values.shape, generator=generator))
        assert model.type_gates is not None
        model.type_gates.copy_(torch.randn(model.type_gates.shape, generator=generator))
    return model


class Scored(LimitNetAgent):
    """The typed player, scoring its beliefs on the true types after every hand."""

    def __init__(self, *args: object, reported: list[int], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.reported = reported
        self.played: dict[int, int] = {}
        self.weight: dict[int, list[float]] = {deal: [] for deal in reported}
        self.accuracy: dict[int, list[float]] = {deal: [] for deal in reported}
        self.shown = 0
        self.all_cards = False

    def hands_ended(self, ended: EndedHands) -> None:
        """Update the beliefs (with every seat's cards when ``all_cards``), then score the
        ended tables' seats at the reported deals."""
        super().hands_ended(ended)
        assert self.beliefs is not None
        assert self.type_draws is not None
        state = self.beliefs.state
        assert state is not None
        for row in range(ended.size):
            table = int(ended.tables[row])
            self.shown += len(ended.shown(row))
            if self.all_cards and self.beliefs.hands[table] == ended.hand_ids[row]:
                cards, board, shown = (
                    ended.batch.hole_cards[table],
                    ended.board(row),
                    ended.shown(row),
                )
                for seat in range(SEATS):
                    if seat not in shown:
                        hole = (int(cards[seat, 0]), int(cards[seat, 1]))
                        state.showdown(table, seat, hole, board)
            self.played[table] = self.played.get(table, 0) + 1
            if self.played[table] not in self.weight or not state.typed:
                continue
            truth = self.type_draws.choices[table]
            belief = state.player_types[table]
            on_truth = belief[np.arange(SEATS), truth]
            self.weight[self.played[table]].extend(on_truth.tolist())
            hits = belief.argmax(axis=1) == truth
            self.accuracy[self.played[table]].extend(hits.astype(float).tolist())


FIT_STEPS = 30
"""Gradient steps of the observer fits (the best held-out step kept)."""
FIT_RATE = 0.3
"""Their step size (at ``limit observe``'s 1.0 the typed fit's first step overshoots on
these few lines and the start is kept)."""


def fitted_observers(
    players: int, matches: int, deals: int, seed: int
) -> tuple[Observer, Observer, list[float]]:
    """The known model's observer fitted to its lines in ``4 * matches`` other matches,
    with the true player types revealed and ignoring them; and the held-out
    log-likelihood per decision (types revealed) under the random, typed and untyped
    tables."""
    model = known_model(players, seed)
    prior = np.full(players, 1.0 / players)
    random = Observer(model, seed=seed, init_scale=1.0)
    random.set_type_prior(prior)
    agent = LimitNetAgent(model, type_prior=prior, observer=random, match_types=True)
    records = record_matches(
        [agent], [1.0], matches=4 * matches, deals=deals, seats=SEATS, seed=seed + 100
    )
    assert agent.type_draws is not None
    records = with_record_beliefs(records, random)
    types = agent.type_draws.choices[records.match, records.seat].astype(np.int64)
    held = records.match % 5 == 0
    train_lines = record_lines(records, np.flatnonzero(~held), random.types)
    held_lines = record_lines(records, np.flatnonzero(held), random.types)
    decisions = sum(line.stages.size for line in held_lines)
    fits = []
    for revealed in (True, False):
        start = Observer(model, seed=seed + 1, init_scale=0.1)
        start.set_type_prior(prior)
        observer, _ = fit_observer(
            start,
            train_lines,
            held_lines,
            steps=FIT_STEPS,
            learning_rate=FIT_RATE,
            train_types=types[~held] if revealed else None,
            held_types=types[held] if revealed else None,
        )
        fits.append(observer)
    scores = [obs.log_likelihood(held_lines, types[held]) / decisions for obs in (random, *fits)]
    return fits[0], fits[1], scores


def run(
    players: int,
    matches: int,
    deals: int,
    reported: list[int],
    seed: int,
    mode: str,
    fitted: Observer | None = None,
) -> tuple[Scored, float]:
    """One set of matches: ``mode`` "joint", "no showdowns", "all cards" (every seat's
    cards used as at a showdown, at every hand's end) or "cards" (no prior); ``fitted``
    replaces the random observer (with showdowns)."""
    model = known_model(players, seed)
    observer = Observer(model, seed=seed, init_scale=1.0)
    prior = np.full(players, 1.0 / players)
    if mode != "cards":
        observer.set_type_prior(prior)
    if fitted is not None:
        observer = fitted
    agent = Scored(model, type_prior=prior, observer=observer, match_types=True, reported=reported)
    agent.beliefs = BeliefTracker(observer, showdowns=mode != "no showdowns")
    agent.all_cards = mode == "all cards"
    began = time.perf_counter()
    record_matches([agent], [1.0], matches=matches, deals=deals, seats=SEATS, seed=seed + 7)
    return agent, (time.perf_counter() - began) / (matches * deals)


def main() -> None:
    args = parse_args(__doc__ or "")
    torch.set_num_threads(1)
    matches, deals = (2, 12) if args.quick else (8, 60)
    reported = [d for d in (1, 5, 10, 20, 30, 40, 60) if d <= deals]
    figures: dict[str, object] = {"deals": reported, "matches": matches}
    for players in (2, 4):
        joint, joint_s = run(players, matches, deals, reported, args.seed, "joint")
        plain, plain_s = run(players, matches, deals, reported, args.seed, "no showdowns")
        every, _ = run(players, matches, deals, reported, args.seed, "all cards")
        _, cards_s = run(players, matches, deals, reported, args.seed, "cards")
        with_types, without_types, fit_scores = fitted_observers(players, matches, deals, args.seed)
        typed, _ = run(players, matches, deals, reported, args.seed, "joint", with_types)
        untyped, _ = run(players, matches, deals, reported, args.seed, "joint", without_types)
        runs = (
            ("", joint),
            ("_no_showdowns", plain),
            ("_all_cards", every),
            ("_fitted_types", typed),
            ("_fitted_no_types", untyped),
        )
        curves = {
            f"{score}{suffix}": [float(np.mean(getattr(agent, score)[d])) for d in reported]
            for score in ("weight", "accuracy")
            for suffix, agent in runs
        }
        figures[f"P{players}"] = {
            **curves,
            "hand_seconds": [joint_s, plain_s, cards_s],
            "showdowns": joint.shown / matches,
            "fit_held_out": fit_scores,
        }
        if not args.json:
            print_table(
                f"{players} player types, {matches} matches of {deals} deals at {SEATS} "
                f"seats: belief on the true type (prior {1 / players:.3f}); seats shown "
                f"per match {joint.shown / matches:.1f}; s per hand joint {joint_s:.4f}, "
                f"no showdowns {plain_s:.4f}, card types only {cards_s:.4f}; held-out "
                f"log-likelihood per decision, random / fitted with types / without "
                f"{' / '.join(f'{x:.3f}' for x in fit_scores)}",
                ["after deal", *curves],
                [[d, *(curves[k][i] for k in curves)] for i, d in enumerate(reported)],
            )
    emit({**figures, "quick": args.quick, "seed": args.seed})


if __name__ == "__main__":
    main()
