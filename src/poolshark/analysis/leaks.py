"""Leak explorer: the spots where a pool (or one player) deviates most from a reference.

A *statistic* is a spot statistic of :mod:`poolshark.pool.spots` (``open.BTN``,
``fold_to_cbet.flop.large``, ...) or one of the two push/fold statistics below, counted as
hits / opportunities. Each statistic the subject has at least ``min_opportunities`` of
(and the reference can rate) is scored

    score = |subject rate - reference rate| x frequency x stake,

with ``frequency`` the subject's opportunities per 100 hands and ``stake`` the average pot
in big blinds facing the decision (every chip in the middle, this round's bets included:
the rows' ``pot_bb``), so a deviation counts by how often the spot comes up and how much
money is in it. The score ranks; it is not an expected value.

References:

* a sampled pool (:class:`SpotSample`): a shipped pool simulated with a seed
  (:func:`simulated_sample`), another ingested pool or histories, or the rest of the
  source's players; its rate comes with a Wilson interval;
* :class:`PushFoldReference`: the heads-up shove/fold equilibrium
  (:mod:`poolshark.solve`) for the short-stack statistics ``shove.SB`` (the small blind's
  first decision with everyone else folded, effective stack at most ``max_stack_bb``;
  hit: a raise to at least the effective stack) and ``call_shove.BB`` (the big blind
  facing that shove; hit: a call). Its rate is the mean, over the subject's
  opportunities, of the equilibrium's share of combos shoved (called) at each one's
  effective stack and blinds: exact, no interval.

Per-player counts come from the spot counter itself: :func:`count_record` reads a hand's
actions in order and every count it adds at an action belongs to the player acting, so
the difference between the counts of the hand cut after an action and cut before it is
that player's. Records rebuilt from decision rows (:func:`records_from_rows`) count the
same as the histories they came from (tests check it on the real sample).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl

from poolshark.engine.table import Move, Street
from poolshark.equity.matrix import PreflopMatrices
from poolshark.histories.ingest import scan_rows
from poolshark.histories.record import HandRecord, HistoryError, RecordedAction, Seat
from poolshark.histories.rows import DEFAULT_SALT, anonymize
from poolshark.histories.split import parse_hand, read_hands
from poolshark.pool.fit import FIT_TABLES
from poolshark.pool.pools import load_pool
from poolshark.pool.simulate import simulate
from poolshark.pool.spots import N_SPOTS, SPOT_NAMES, count_record
from poolshark.pool.stats import history_files, spot_tally_hands, wilson_interval
from poolshark.solve.shove_fold import ShoveFoldGame, fraction_of_combos, payoffs
from poolshark.solve.solvers import solve_exact

Int64s = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]

PUSH_FOLD_NAMES = ("shove.SB", "call_shove.BB")
"""The short-stack statistics the shove/fold equilibrium rates."""
SHOVE, CALL_SHOVE = N_SPOTS, N_SPOTS + 1
LEAK_NAMES = SPOT_NAMES + PUSH_FOLD_NAMES
"""Every statistic the explorer counts, in index order."""
N_LEAK_STATS = len(LEAK_NAMES)
PUSH_FOLD_MAX_BB = 15.0
"""Default deepest effective stack (big blinds) counted as a push/fold spot."""
MIN_OPPORTUNITIES = 30


class LeakError(ValueError):
    """Input the explorer cannot work from; the message names the problem."""


@dataclass(frozen=True)
class PushFoldSpot:
    """One push/fold opportunity: effective stack, small blind and ante, in big blinds."""

    stack_bb: float
    small_blind_bb: float
    ante_bb: float


@dataclass
class SpotSample:
    """Spot counts of one subject or reference: hits and opportunities per statistic
    (:data:`LEAK_NAMES` order), the summed pot (bb) facing each opportunity when known,
    the push/fold opportunities, and the hands the counts come from."""

    label: str
    hands: int = 0
    hits: Int64s = field(default_factory=lambda: np.zeros(N_LEAK_STATS, dtype=np.int64))
    chances: Int64s = field(default_factory=lambda: np.zeros(N_LEAK_STATS, dtype=np.int64))
    pot_bb: Floats | None = field(default_factory=lambda: np.zeros(N_LEAK_STATS))
    push_fold: dict[str, list[PushFoldSpot]] = field(
        default_factory=lambda: {name: [] for name in PUSH_FOLD_NAMES}
    )

    def summary(self) -> dict[str, object]:
        """JSON form: label, hands and opportunities in all."""
        return {"label": self.label, "hands": self.hands, "opportunities": int(self.chances.sum())}


@dataclass(frozen=True)
class Rate:
    """A reference's rate of one statistic, with its interval and count when sampled."""

    value: float
    low: float | None = None
    high: float | None = None
    opportunities: int | None = None


@dataclass(frozen=True)
class Leak:
    """One statistic of the subject against the reference (rates are proportions)."""

    name: str
    rate: float
    low: float
    high: float
    hits: int
    opportunities: int
    reference: Rate
    difference: float  # subject - reference
    frequency: float  # opportunities per 100 hands of the subject
    stake_bb: float  # average pot facing the decision, big blinds
    score: float  # |difference| x frequency x stake
    significant: bool  # the subject's 95% interval excludes the reference rate

    def as_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "statistic": self.name,
            "rate": self.rate,
            "interval": [self.low, self.high],
            "hits": self.hits,
            "opportunities": self.opportunities,
            "reference": self.reference.value,
            "reference_interval": (
                None if self.reference.low is None else [self.reference.low, self.reference.high]
            ),
            "reference_opportunities": self.reference.opportunities,
            "difference": self.difference,
            "frequency_per_100": self.frequency,
            "stake_bb": self.stake_bb,
            "score": self.score,
            "significant": self.significant,
        }


# -- counting --------------------------------------------------------------------------------

PlayerIds = Callable[[HandRecord], Sequence[str]]
"""The anonymized id of every player of a record, in seat order."""


def history_ids(salt: str = DEFAULT_SALT) -> PlayerIds:
    """Ids of records read from histories: the rows' ``player_id`` of each name."""
    return lambda record: [anonymize(record.site, seat.player, salt) for seat in record.seats]


def stored_ids(record: HandRecord) -> Sequence[str]:
    """Ids of records rebuilt from rows: the names already are the ids."""
    return [seat.player for seat in record.seats]


def count_sample(
    records: Iterable[HandRecord],
    *,
    label: str,
    push_fold_max_bb: float = PUSH_FOLD_MAX_BB,
    player: str | None = None,
    player_ids: PlayerIds = stored_ids,
) -> tuple[SpotSample, SpotSample]:
    """Spot counts, pots and push/fold spots of ``records``.

    Without ``player``: (everyone, an empty rest). With ``player`` (an anonymized id):
    (that player's decisions over the hands they were dealt, everyone else's over all
    hands).
    """
    subject = SpotSample(label if player is None else f"{label}, player {player}")
    rest = SpotSample(f"{label}, all but player {player}")
    for record in records:
        ids = player_ids(record) if player is not None else ()
        dealt = player is None or player in ids
        subject.hands += dealt
        rest.hands += player is not None
        for actor, index, pot_bb, spot in _decisions(record, push_fold_max_bb):
            mine = player is None or ids[actor] == player
            _add(subject if mine else rest, index, pot_bb, spot)
    return subject, rest


def _add(
    sample: SpotSample,
    chances: Iterable[tuple[int, bool]],
    pot_bb: float,
    spot: PushFoldSpot | None,
) -> None:
    assert sample.pot_bb is not None
    for index, hit in chances:
        sample.chances[index] += 1
        sample.hits[index] += hit
        sample.pot_bb[index] += pot_bb
        if index >= N_SPOTS:
            assert spot is not None
            sample.push_fold[LEAK_NAMES[index]].append(spot)


def _decisions(
    record: HandRecord, push_fold_max_bb: float
) -> Iterator[tuple[int, list[tuple[int, bool]], float, PushFoldSpot | None]]:
    """Per action: the actor, the statistics it is an opportunity of (index, hit), the
    pot facing it in big blinds, and its push/fold spot if it is one."""
    n = record.players
    actions = record.actions
    before_hits = np.zeros(N_SPOTS, dtype=np.int64)
    before_chances = np.zeros(N_SPOTS, dtype=np.int64)
    put = list(record.blinds)
    pot = sum(record.dead) + sum(record.blinds)
    street = Street.PREFLOP
    short = _push_fold_seats(record, push_fold_max_bb)
    folded = [False] * n
    entered = False  # a call or raise so far preflop
    shoved = False  # the small blind's push/fold shove
    acted = [False] * n
    for k, action in enumerate(actions):
        hits = np.zeros(N_SPOTS, dtype=np.int64)
        chances = np.zeros(N_SPOTS, dtype=np.int64)
        count_record(replace(record, actions=actions[: k + 1]), hits, chances)
        new = np.flatnonzero(chances - before_chances)
        found = [(int(i), bool(hits[i] - before_hits[i])) for i in new]
        before_hits, before_chances = hits, chances
        if action.street != street:
            street = action.street
            put = [0] * n
        p, move = action.player, action.move
        spot = None
        if short is not None and street is Street.PREFLOP and not acted[p]:
            small, big, effective, spot_game = short
            others_out = all(folded[q] for q in range(n) if q not in (small, big))
            if p == small and not entered and others_out:
                spot = spot_game
                found.append(
                    (SHOVE, move is Move.RAISE and action.amount >= effective - record.ante)
                )
                shoved = bool(found[-1][1])
            elif p == big and shoved and others_out:
                spot = spot_game
                found.append((CALL_SHOVE, move is Move.CHECK_CALL and action.amount > 0))
        yield p, found, pot / record.big_blind, spot
        acted[p] = acted[p] or street is Street.PREFLOP
        if move is Move.RAISE:
            pot += action.amount - put[p]
            put[p] = action.amount
            entered = True
        elif move is Move.CHECK_CALL and action.amount > 0:
            pot += action.amount
            put[p] += action.amount
            entered = True
        folded[p] = folded[p] or move is Move.FOLD


def _push_fold_seats(
    record: HandRecord, max_bb: float
) -> tuple[int, int, int, PushFoldSpot] | None:
    """(small blind, big blind, effective stack in chips, the spot) when the hand's blinds
    can be a shove/fold game at most ``max_bb`` deep, else None."""
    small = [p for p, b in enumerate(record.blinds) if b == record.small_blind]
    big = [p for p, b in enumerate(record.blinds) if b == record.big_blind]
    if len(small) != 1 or len(big) != 1 or record.small_blind >= record.big_blind:
        return None
    s, b = small[0], big[0]
    known = [stack for stack in (record.seats[s].stack, record.seats[b].stack) if stack > 0]
    if not known:
        return None
    effective = min(known)  # a seat rebuilt from rows that never acts has stack 0: unknown
    bb = record.big_blind
    if effective > max_bb * bb:
        return None
    spot = PushFoldSpot(effective / bb, record.small_blind / bb, record.ante / bb)
    return s, b, effective, spot


def simulated_sample(pool_name: str, hands: int, *, seed: int = 0) -> SpotSample:
    """Spot counts of ``hands`` simulated hands of a shipped pool (or pool file), on the
    fitter's table count (:data:`poolshark.pool.fit.FIT_TABLES`); no pots recorded."""
    if hands < 1:
        raise LeakError(f"a reference pool needs at least one hand, got {hands}")
    simulated = simulate(load_pool(pool_name), hands, seed=seed, tables=FIT_TABLES)
    tally = spot_tally_hands(simulated)
    sample = SpotSample(f"pool:{pool_name} ({hands:,} hands, seed {seed})", hands, pot_bb=None)
    sample.hits[:N_SPOTS] = tally.hits
    sample.chances[:N_SPOTS] = tally.chances
    return sample


# -- sources ---------------------------------------------------------------------------------


@dataclass
class Source:
    """Hand records from histories or ingested rows, and how to read their players' ids."""

    label: str
    records: list[HandRecord]
    player_ids: PlayerIds
    rejected: dict[str, int] = field(default_factory=dict)


def is_rows_folder(path: Path) -> bool:
    """Whether ``path`` is an ingestion output folder (it has ``rows/``)."""
    return (path / "rows").is_dir()


def load_source(path: Path, *, salt: str = DEFAULT_SALT) -> Source:
    """The records of an ingested rows folder, or of history files / folders."""
    if not path.exists():
        raise LeakError(f"no such file or folder: {path}")
    if is_rows_folder(path):
        frame = scan_rows(path).collect()
        if frame.height == 0:
            raise LeakError(f"{path}: no decision rows under {path / 'rows'}")
        return Source(f"rows {path}", records_from_rows(frame), stored_ids)
    files = history_files([path])
    if not files:
        raise LeakError(f"{path}: no hand histories (.txt, .phh, .phhs) and no rows/ folder")
    records: list[HandRecord] = []
    rejected: dict[str, int] = {}
    for file in files:
        try:
            for raw in read_hands(file):
                try:
                    records.append(parse_hand(raw))
                except HistoryError as error:
                    rejected[error.reason] = rejected.get(error.reason, 0) + 1
        except (HistoryError, OSError) as error:
            raise LeakError(f"cannot read {file}: {error}") from None
    if not records:
        raise LeakError(f"{path}: no hand could be read")
    return Source(f"histories {path}", records, history_ids(salt), rejected)


_MOVES = {"fold": Move.FOLD, "check-call": Move.CHECK_CALL, "bet-raise": Move.RAISE}


def records_from_rows(frame: pl.DataFrame) -> list[HandRecord]:
    """Hand records rebuilt from decision rows: seats, button, blinds and every voluntary
    action, enough for the spot counts.

    Names are the rows' player ids. A seat's blind is what it had in front at its first
    preflop decision (the bet to match less its ``to_call``; by position when its call is
    capped by its stack or it never acts); other chips in the pot before the first decision
    (antes, dead posts) are dead money. A seat's stack is its chips behind at its first
    decision plus its blind and ante; a seat that never acts has stack 0 (unknown).
    """
    ordered = frame.sort("site", "hand_id", "action_index")
    names = (
        "site", "hand_id", "seat", "seat_number", "position", "players", "player_id",
        "small_blind", "big_blind", "ante", "street", "stack", "pot", "to_call", "action",
        "amount", "raise_to", "all_in",
    )  # fmt: skip
    columns = {name: ordered[name].to_list() for name in names}
    records = []
    start = 0
    total = ordered.height
    while start < total:
        end = start
        key = (columns["site"][start], columns["hand_id"][start])
        while end < total and (columns["site"][end], columns["hand_id"][end]) == key:
            end += 1
        records.append(_record_of_rows(RowView(columns), start, end))
        start = end
    return records


@dataclass(frozen=True)
class RowView:
    """Typed access to the columns of sorted decision rows."""

    columns: dict[str, list[object]]

    def number(self, name: str, row: int) -> int:
        """An integer column's value (0 for null)."""
        value = self.columns[name][row]
        return value if isinstance(value, int) else 0

    def text(self, name: str, row: int) -> str:
        """A column's value as text."""
        return str(self.columns[name][row])


_STREETS = {street.name.lower(): street for street in Street}


def _record_of_rows(rows: RowView, start: int, end: int) -> HandRecord:
    """One hand's record from its rows ``start:end`` (sorted by action index)."""
    n = rows.number("players", start)
    small_blind, big_blind, ante = (
        rows.number(c, start) for c in ("small_blind", "big_blind", "ante")
    )
    numbers, names, behind = [0] * n, [""] * n, [-1] * n
    positions: dict[int, str] = {}
    # a seat's first preflop decision: its call if no raise came before, else the raise to
    owed_before_raise: dict[int, int] = {}
    blinds = [0] * n
    capped: set[int] = set()
    to_match = -1  # the bet to match, once a raise has set it
    actions = []
    for row in range(start, end):
        seat = rows.number("seat", row)
        street = _STREETS[rows.text("street", row)]
        move = _MOVES[rows.text("action", row)]
        amount = rows.number("raise_to" if move is Move.RAISE else "amount", row)
        if behind[seat] < 0:
            numbers[seat] = rows.number("seat_number", row)
            names[seat] = rows.text("player_id", row)
            positions[seat] = rows.text("position", row)
            behind[seat] = rows.number("stack", row)
            to_call = rows.number("to_call", row)
            if street is not Street.PREFLOP or to_call >= behind[seat]:
                capped.add(seat)
            elif to_match < 0:
                owed_before_raise[seat] = to_call
            else:
                blinds[seat] = to_match - to_call
        if move is Move.RAISE and street is Street.PREFLOP:
            to_match = amount
        all_in = bool(rows.columns["all_in"][row])
        actions.append(RecordedAction(street, seat, move, amount, all_in))
    pot = rows.number("pot", start)
    # the first bet to match is the largest post: no call before a raise owes more
    first_match = max([*owed_before_raise.values(), *blinds, big_blind if pot >= big_blind else 0])
    for seat, owed in owed_before_raise.items():
        blinds[seat] = first_match - owed
    for seat in capped:  # a call capped by the stack does not show the blind: by position
        position = positions[seat]
        if position == "SB" or (n == 2 and position == "BTN"):
            blinds[seat] = small_blind
        elif position == "BB":
            blinds[seat] = big_blind
    rest = max(0, pot - sum(blinds))
    silent_big = [p for p in range(n) if behind[p] < 0]
    dead = [0] * n
    if rest and silent_big:  # the big blind of a walk never acts
        blinds[silent_big[-1]] = min(rest, big_blind)
        rest -= blinds[silent_big[-1]]
    dead[0] = rest
    seats = tuple(
        Seat(numbers[p], names[p], behind[p] + blinds[p] + ante if behind[p] >= 0 else 0)
        for p in range(n)
    )
    button = next((p for p, name in positions.items() if name == "BTN"), 0)
    return HandRecord(
        site=rows.text("site", start),
        hand_id=rows.text("hand_id", start),
        seats=seats,
        button=button,
        small_blind=small_blind,
        big_blind=big_blind,
        blinds=tuple(blinds),
        dead=tuple(dead),
        actions=tuple(actions),
        ante=ante,
    )


# -- references ------------------------------------------------------------------------------


class PushFoldReference:
    """The heads-up shove/fold equilibrium as a reference for ``shove.SB`` and
    ``call_shove.BB``: at each opportunity, the share of combos the equilibrium shoves
    (calls) at its effective stack, linearly interpolated between stacks solved exactly
    every ``step_bb`` big blinds (each solve about 0.1 s, cached)."""

    label = "push/fold equilibrium (heads-up shove/fold, solve.solve_exact)"

    def __init__(self, matrices: PreflopMatrices, *, step_bb: float = 0.5) -> None:
        self.matrices = matrices
        self.step_bb = step_bb
        self.solved: dict[tuple[float, float, float], tuple[float, float]] = {}

    def shares(self, stack_bb: float, small_blind_bb: float, ante_bb: float) -> tuple[float, float]:
        """The equilibrium's (shove, call) share of combos at this stack, interpolated."""
        lowest = max(1.0, small_blind_bb) + ante_bb
        stack = max(stack_bb, lowest)
        below = max(lowest, math.floor(stack / self.step_bb) * self.step_bb)
        above = max(lowest, math.ceil(stack / self.step_bb) * self.step_bb)
        low, high = (self._solve(s, small_blind_bb, ante_bb) for s in (below, above))
        weight = 0.0 if above == below else (stack - below) / (above - below)
        return (
            low[0] + weight * (high[0] - low[0]),
            low[1] + weight * (high[1] - low[1]),
        )

    def _solve(self, stack: float, small_blind: float, ante: float) -> tuple[float, float]:
        key = (round(stack, 6), round(small_blind, 6), round(ante, 6))
        if key not in self.solved:
            game = ShoveFoldGame(stack=key[0], small_blind=key[1], ante=key[2])
            solution = solve_exact(payoffs(game, self.matrices))
            self.solved[key] = (
                fraction_of_combos(solution.shove),
                fraction_of_combos(solution.call),
            )
        return self.solved[key]

    def rates(self, subject: SpotSample) -> dict[str, Rate]:
        """The equilibrium rate of each push/fold statistic over ``subject``'s spots."""
        out = {}
        for column, name in enumerate(PUSH_FOLD_NAMES):
            spots = subject.push_fold[name]
            if spots:
                shares = [self.shares(s.stack_bb, s.small_blind_bb, s.ante_bb) for s in spots]
                out[name] = Rate(float(np.mean([share[column] for share in shares])))
        return out


Reference = SpotSample | PushFoldReference


def reference_rates(
    reference: Reference, subject: SpotSample, min_opportunities: int
) -> dict[str, Rate]:
    """The reference's rate of every statistic it can rate against ``subject`` (a sampled
    reference needs ``min_opportunities`` of it)."""
    if isinstance(reference, PushFoldReference):
        return reference.rates(subject)
    out = {}
    for index, name in enumerate(LEAK_NAMES):
        count = int(reference.chances[index])
        if count >= max(1, min_opportunities):
            hits = int(reference.hits[index])
            low, high = wilson_interval(hits, count)
            out[name] = Rate(hits / count, low, high, count)
    return out


# -- ranking ---------------------------------------------------------------------------------


def find_leaks(
    subject: SpotSample,
    reference: Reference,
    *,
    top: int | None = None,
    min_opportunities: int = MIN_OPPORTUNITIES,
) -> list[Leak]:
    """The subject's statistics against the reference, highest score first (ties by
    name); only statistics with at least ``min_opportunities`` subject opportunities that
    the reference rates; ``top`` keeps the first ones."""
    if subject.pot_bb is None:
        raise LeakError(f"{subject.label}: a subject needs the pots at its decisions")
    if subject.hands < 1:
        raise LeakError(f"{subject.label}: no hands")
    if min_opportunities < 1:
        raise LeakError(f"the minimum sample is at least 1 opportunity, got {min_opportunities}")
    if top is not None and top < 1:
        raise LeakError(f"--top must be at least 1, got {top}")
    rates = reference_rates(reference, subject, min_opportunities)
    leaks = []
    for index, name in enumerate(LEAK_NAMES):
        count = int(subject.chances[index])
        if count < min_opportunities or name not in rates:
            continue
        hits = int(subject.hits[index])
        rate = hits / count
        low, high = wilson_interval(hits, count)
        ref = rates[name]
        difference = rate - ref.value
        frequency = 100.0 * count / subject.hands
        stake = float(subject.pot_bb[index]) / count
        leaks.append(
            Leak(
                name=name,
                rate=rate,
                low=low,
                high=high,
                hits=hits,
                opportunities=count,
                reference=ref,
                difference=difference,
                frequency=frequency,
                stake_bb=stake,
                score=abs(difference) * frequency * stake,
                significant=not low <= ref.value <= high,
            )
        )
    leaks.sort(key=lambda leak: (-leak.score, leak.name))
    return leaks if top is None else leaks[:top]


def unranked(
    subject: SpotSample, reference: Reference, min_opportunities: int = MIN_OPPORTUNITIES
) -> dict[str, str]:
    """Why each statistic with subject opportunities is left out: ``few`` (under the
    minimum) or ``no reference`` (a sampled reference has too few of it); against the
    push/fold equilibrium only its two statistics are listed."""
    rates = reference_rates(reference, subject, min_opportunities)
    out = {}
    for index, name in enumerate(LEAK_NAMES):
        count = int(subject.chances[index])
        if count == 0:
            continue
        if isinstance(reference, PushFoldReference) and name not in PUSH_FOLD_NAMES:
            continue  # the equilibrium rates only the push/fold statistics
        if count < min_opportunities:
            out[name] = f"few ({count})"
        elif name not in rates:
            out[name] = "no reference"
    return out
