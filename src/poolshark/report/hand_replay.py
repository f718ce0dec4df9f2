"""One hand, decision by decision, as the range sources and the action model see it.

Seed 000's most telling figure replays a hand: at each decision, how the actor's current
range supports fold, call and raise (three heatmaps), the aggregate action probabilities,
and the posterior range after the observed action. :func:`replay_hand` computes that view
for every decision of a finished :class:`~poolshark.engine.table.Table` (an ingested hand
replayed by ``histories.replay``, or a simulated one), as plain JSON-able data:

* every live player's range as 169 class frequencies from each source the operator gave:
  the uniform deal (always), the range oracle, the population model's own posterior
  (``PolicyPosterior``) and, on a synthetic pool's hands, the exact pool posterior;
* the actor's fold / call / raise probability per class from the population model, the
  aggregate under each source's range of the actor, and that range after the action
  (prior times the probability of the action taken, normalised);
* the actor's equity (when its cards are known) against each live opponent's range.

Nothing here is a second posterior or evaluator: the ranges are the sources' own answers
(:class:`~poolshark.pool.ranges.RangeQuery`), the action probabilities the model's
``log_policies`` on the decision with each hole combo, the equity
:func:`~poolshark.equity.montecarlo.monte_carlo_equity`, the charts
:func:`~poolshark.report.range_chart.class_frequencies`.

A class frequency in a range chart is relative: each combo's weight divided by the
range's largest, averaged over the class (so the range's likeliest class reads 1). The
three support charts of a decision share the prior's scale, so fold + call + raise add
up to the prior's chart cell by cell.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from poolshark.cards.card import format_cards
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS, combo_index, combos_sharing_cards
from poolshark.cards.ranges import Range
from poolshark.engine.table import Action, Legal, Move, Table
from poolshark.equity.montecarlo import monte_carlo_equity
from poolshark.equity.result import EquityError
from poolshark.histories.record import HandRecord
from poolshark.histories.replay import judge
from poolshark.pool.context import ActionLogs
from poolshark.pool.pools import Pool
from poolshark.pool.posterior import PosteriorError, PublicHand
from poolshark.pool.ranges import ExactPoolRanges, RangeQuery, RangeSource, UniformRanges
from poolshark.population.actions import CALL_CLASS, FIRST_RAISE_CLASS, FOLD_CLASS
from poolshark.population.posterior import PolicyPosterior, seat_decisions, with_holes
from poolshark.report.range_chart import class_frequencies

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

GROUPS = ("fold", "call", "raise")
"""The action groups of the figure: fold, check or call, any raise (all-in included)."""
STREETS = ("preflop", "flop", "turn", "river")
SOURCE_ORDER = ("uniform", "oracle", "model", "exact")
"""Range sources in the order the page lists them."""
DIGITS = 4


class ReplayError(ValueError):
    """A hand or a setup the replay cannot use; the message says why."""


@dataclass(frozen=True)
class ReplaySetup:
    """What the operator gave: a range oracle, a population model (its action
    probabilities, and its posterior as a range source), Monte Carlo samples per equity and
    the seed of those samples. Absent pieces are simply left out of every view."""

    oracle: RangeSource | None = None
    model: PolicyPosterior | None = None
    equity_samples: int = 8192
    seed: int = 0

    def sources(self, pool: Pool | None) -> dict[str, RangeSource]:
        """The range sources for a hand: the uniform deal, then what was given; the exact
        pool posterior only for a hand of a known synthetic ``pool``."""
        found: dict[str, RangeSource] = {"uniform": UniformRanges()}
        if self.oracle is not None:
            found["oracle"] = self.oracle
        if self.model is not None:
            found["model"] = self.model
        if pool is not None:
            found["exact"] = ExactPoolRanges(pool)
        return found


@dataclass(frozen=True)
class ActionBreakdown:
    """Seed 000's figure for one prior range of the actor: ``support[g]`` the chart of
    prior x P(g | combo) for g in fold, call, raise (on the prior's scale), ``aggregate[g]``
    the probability of each group under the prior, ``posterior`` the chart of the range
    after the action taken."""

    support: dict[str, list[float]]
    aggregate: dict[str, float]
    posterior: list[float]


@dataclass(frozen=True)
class PlayerView:
    """One live player at a decision: its seat, name, cards when known, its range chart
    from each source, and (for the actor's opponents when the actor's cards are known) the
    actor's equity against that range, per source."""

    seat: int
    name: str
    cards: str | None
    stack: int
    bet: int
    ranges: dict[str, list[float]]
    actor_equity: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class DecisionView:
    """The state just before action ``index`` and what each source makes of it."""

    index: int
    street: str
    board: str
    pot: int
    actor: int
    actor_name: str
    action: str
    group: str
    legal: dict[str, int | bool | None]
    players: list[PlayerView]
    policy: dict[str, list[float | None]] | None
    breakdown: dict[str, ActionBreakdown]
    notes: list[str]


@dataclass(frozen=True)
class HandReplay:
    """A whole hand's decisions, the sources used and the seats as dealt."""

    title: str
    seats: list[dict[str, Any]]
    board: str
    big_blind: int
    sources: list[str]
    has_model: bool
    decisions: list[DecisionView]

    def to_json(self) -> dict[str, Any]:
        """Plain data for the web API (dataclasses to dicts)."""
        return asdict(self)


def chart(weights: npt.ArrayLike, scale: float | None = None) -> list[float]:
    """(169,) class frequencies of a (1326,) weighting relative to ``scale`` (default its
    largest weight), rounded for the page."""
    array = np.asarray(weights, dtype=np.float64)
    top = float(array.max()) if scale is None else scale
    if not top > 0:
        return [0.0] * 169
    return [round(float(x), DIGITS) for x in class_frequencies(np.clip(array / top, 0.0, 1.0))]


def breakdown(prior: npt.ArrayLike, group_probabilities: Floats, taken: str) -> ActionBreakdown:
    """The figure for prior (1326,) and P(group | combo) (3, 1326): support charts,
    aggregate probabilities and the chart of the posterior after group ``taken``."""
    weights = np.asarray(prior, dtype=np.float64)
    support = weights[None, :] * group_probabilities
    aggregate = support.sum(axis=1)
    top = float(weights.max())
    after = support[GROUPS.index(taken)]
    return ActionBreakdown(
        support={g: chart(support[k], top) for k, g in enumerate(GROUPS)},
        aggregate={g: round(float(aggregate[k]), DIGITS) for k, g in enumerate(GROUPS)},
        posterior=chart(after) if after.sum() > 0 else [0.0] * 169,
    )


def public_query(hand: PublicHand, seats: Sequence[int]) -> RangeQuery:
    """The range question "what does ``seat`` hold?" for each of ``seats`` after the
    public ``hand``, asked by a spectator (no dead cards)."""
    n = len(seats)
    board = np.full((n, 5), -1, dtype=np.int64)
    board[:, : len(hand.board)] = hand.board
    logs = ActionLogs(*(np.repeat(a, n, axis=0) for a in hand.logs))
    return RangeQuery(
        hand.config,
        np.repeat(np.array([hand.starting_stacks], dtype=np.int64), n, axis=0),
        np.full(n, hand.button, dtype=np.int64),
        board,
        logs,
        np.asarray(seats, dtype=np.int64),
        np.full((n, 2), -1, dtype=np.int64),
    )


def group_probabilities(model: PolicyPosterior, table: Table, index: int) -> Floats:
    """(3, 1326) the population model's P(fold), P(check or call), P(raise) at decision
    ``index`` of ``table`` for each hole combo of the actor (zero on combos the board
    blocks): its ``log_policies`` on the decision holding each combo, classes grouped."""
    actor = table.log[index].seat
    decisions = seat_decisions(public_query(PublicHand.from_table(table, index + 1), [actor]))
    row = int(np.flatnonzero(decisions.states.index == index)[0])
    live = ~combos_sharing_cards(PublicHand.from_table(table, index).board)
    combos = np.flatnonzero(live)
    states = with_holes(decisions.states, np.full(combos.size, row), COMBO_CARDS[combos])
    classes = np.exp(model.log_policies(states))
    out = np.zeros((3, N_COMBOS))
    out[0, combos] = classes[:, FOLD_CLASS]
    out[1, combos] = classes[:, CALL_CLASS]
    out[2, combos] = classes[:, FIRST_RAISE_CLASS:].sum(axis=1)
    return out


def class_policy(probabilities: Floats, board: Sequence[int]) -> dict[str, list[float | None]]:
    """Per class, the mean of each group's probability over the class's combos the board
    leaves (None for a class the board blocks entirely)."""
    live = ~combos_sharing_cards(list(board))
    counts = class_frequencies(live.astype(np.float64))
    out: dict[str, list[float | None]] = {}
    for k, g in enumerate(GROUPS):
        mean = class_frequencies(np.where(live, probabilities[k], 0.0))
        out[g] = [
            round(float(m / c), DIGITS) if c > 0 else None
            for m, c in zip(mean, counts, strict=True)
        ]
    return out


def action_text(action: Action, call: int) -> tuple[str, str]:
    """How an action reads (``raises to 12``, ``bets 6`` when nothing was to call after
    the flop) and its group."""
    if action.move is Move.FOLD:
        return "folds", "fold"
    if action.move is Move.RAISE:
        opening = call == 0 and action.street > 0
        return (f"bets {action.amount}" if opening else f"raises to {action.amount}"), "raise"
    return (f"calls {call}" if call else "checks"), "call"


def equity_against(
    cards: Sequence[int], board: Sequence[int], weights: Floats, samples: int, seed: int
) -> float | None:
    """Equity of hole ``cards`` against an opponent range (1326,) on ``board``, sampled
    (None when no deal is possible, e.g. the range lies under our cards)."""
    mine = Range.of_combos([combo_index(cards[0], cards[1])])
    theirs = np.clip(weights / max(float(weights.max()), 1e-300), 0.0, 1.0)
    try:
        result = monte_carlo_equity(
            [mine, Range(theirs)], list(board), samples=samples, seed=seed, threads=1
        )
    except EquityError:
        return None
    return round(result.equities[0], DIGITS)


@dataclass(frozen=True)
class Moment:
    """The table just before one logged action: pot, stacks, bets, who folded, what the
    actor may do."""

    pot: int
    stack: tuple[int, ...]
    bet: tuple[int, ...]
    folded: tuple[bool, ...]
    legal: Legal


def moments(table: Table) -> list[Moment]:
    """The :class:`Moment` before each logged action of ``table``, by replaying its log
    on a fresh table (a logged fold counts even where checking was free, as in
    ``Table.from_dict``)."""
    fresh = Table.from_dict({**table.to_dict(), "actions": []})
    found = []
    for action in table.log:
        found.append(
            Moment(
                fresh.pot(),
                tuple(fresh.stack),
                tuple(fresh.bet),
                tuple(fresh.folded),
                fresh.legal(),
            )
        )
        if action.move is Move.FOLD:
            fresh.fold(when_free=True)
        else:
            fresh.act(action.move, action.amount)
    return found


def replay_hand(
    table: Table,
    setup: ReplaySetup,
    *,
    names: Sequence[str] | None = None,
    pool: Pool | None = None,
    title: str = "hand",
) -> HandReplay:
    """Every decision of the finished ``table`` as :class:`DecisionView` s (see the module
    docstring); ``names`` per seat (default ``Seat N``), ``pool`` the synthetic pool that
    played it (turns on the exact posterior)."""
    if not table.log:
        raise ReplayError("the hand has no voluntary action to replay")
    seats = table.seats
    names = list(names) if names is not None else [f"Seat {s + 1}" for s in range(seats)]
    if len(names) != seats:
        raise ReplayError(f"need a name for each of {seats} seats, got {len(names)}")
    sources = setup.sources(pool)
    before = moments(table)
    decisions = []
    for index, state in enumerate(before):
        decisions.append(decision_view(table, index, state, sources, setup, names))
    return HandReplay(
        title=title,
        seats=[
            {
                "seat": s,
                "name": names[s],
                "stack": table.starting_stacks[s],
                "cards": format_cards(table.hole_cards[s], " ") or None,
                "button": s == table.button,
            }
            for s in range(seats)
        ],
        board=format_cards(table.board_cards, " "),
        big_blind=table.config.big_blind,
        sources=[name for name in SOURCE_ORDER if name in sources],
        has_model=setup.model is not None,
        decisions=decisions,
    )


def replay_record(record: HandRecord, setup: ReplaySetup) -> HandReplay:
    """:func:`replay_hand` of one ingested hand record, judged as ingestion judges it
    (``histories.replay.judge``: raises its :class:`~poolshark.histories.record.HistoryError`
    for a hand the rules refuse), the players named as the record names them."""
    judged = judge(record)
    names = [seat.player for seat in judged.record.seats]
    title = f"{record.site} #{record.hand_id}"
    return replay_hand(judged.table, setup, names=names, title=title)


def source_ranges(
    sources: Mapping[str, RangeSource], query: RangeQuery, notes: list[str]
) -> dict[str, Floats]:
    """Each source's (N, 1326) answer to ``query``; a source that cannot answer this hand
    (e.g. the pool cannot produce someone's actions) is left out with a note."""
    found: dict[str, Floats] = {}
    for name, source in sources.items():
        try:
            answer = np.asarray(source.ranges(query), dtype=np.float64)
        except (PosteriorError, ValueError) as error:
            notes.append(f"{name}: {error}")
            continue
        if np.isfinite(answer).all():
            found[name] = answer
        else:
            notes.append(f"{name}: no finite range for this decision")
    return found


def decision_view(
    table: Table,
    index: int,
    state: Moment,
    sources: Mapping[str, RangeSource],
    setup: ReplaySetup,
    names: Sequence[str],
) -> DecisionView:
    """The view of decision ``index``; ``state`` is the table just before it."""
    action = table.log[index]
    actor = action.seat
    legal = state.legal
    hand = PublicHand.from_table(table, index)
    live = [s for s in range(table.seats) if not state.folded[s]]
    notes: list[str] = []
    ranges = source_ranges(sources, public_query(hand, live), notes)
    text, group = action_text(action, legal.call)
    probabilities = None
    if setup.model is not None:
        try:
            probabilities = group_probabilities(setup.model, table, index)
        except ValueError as error:
            notes.append(f"model: {error}")
    mine = table.hole_cards[actor]
    players = []
    for row, seat in enumerate(live):
        equity: dict[str, float] = {}
        if len(mine) == 2 and seat != actor:
            for name, answer in ranges.items():
                value = equity_against(
                    mine, hand.board, answer[row], setup.equity_samples, setup.seed + index
                )
                if value is not None:
                    equity[name] = value
        players.append(
            PlayerView(
                seat=seat,
                name=names[seat],
                cards=format_cards(table.hole_cards[seat], " ") or None,
                stack=state.stack[seat],
                bet=state.bet[seat],
                ranges={name: chart(answer[row]) for name, answer in ranges.items()},
                actor_equity=equity,
            )
        )
    figure: dict[str, ActionBreakdown] = {}
    if probabilities is not None:
        row = live.index(actor)
        for name, answer in ranges.items():
            figure[name] = breakdown(answer[row], probabilities, group)
    return DecisionView(
        index=index,
        street=STREETS[int(action.street)],
        board=format_cards(hand.board, " "),
        pot=state.pot,
        actor=actor,
        actor_name=names[actor],
        action=f"{names[actor]} {text}",
        group=group,
        legal={
            "can_fold": legal.can_fold,
            "can_check": legal.can_check,
            "call": legal.call,
            "min_raise_to": legal.min_raise_to,
            "max_raise_to": legal.max_raise_to,
        },
        players=players,
        policy=None if probabilities is None else class_policy(probabilities, hand.board),
        breakdown=figure,
        notes=notes,
    )
