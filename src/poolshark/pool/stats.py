"""HUD statistics of a player pool, from hand records or straight from simulated arrays.

The statistics a player reads off a heads-up display, over every player of every hand,
each as successes / opportunities:

* ``vpip``: preflop calls or raises / players with a preflop decision;
* ``pfr``: preflop raises / the same;
* ``three_bet``: re-raises / first decisions facing exactly one preflop raise (not mine);
* ``fold_to_three_bet``: folds / the first raiser's first decisions facing a re-raise;
* ``cbet``: bets / the preflop aggressor's first flop decisions with no bet yet;
* ``fold_to_cbet``: folds / first decisions facing a flop c-bet not yet raised;
* ``wtsd``: showdowns reached / players who saw the flop (not folded preflop, flop dealt);
* ``wsd`` (W$SD): showdowns where the player collected chips / showdowns reached;
* ``af``: postflop bets and raises / postflop calls (the aggression factor, a ratio;
  its count is bets, raises and calls).

A "decision" is a voluntary action: blinds are not, and neither is the check the engine
asks of the last player with chips when everyone else is all-in (sites never write it).
A big blind whose walk ends the hand had no preflop decision, so no VPIP opportunity.

Intervals are 95%. Proportions use the Wilson score interval. The aggression factor
AF = aggressive / calls is a monotone function of the aggressive share a = aggressive /
(aggressive + calls), AF = a / (1 - a), so its interval is the Wilson interval of ``a``
mapped through that function (an upper end of ``a`` = 1 gives an unbounded AF: ``None``).
Observations are treated as independent (several players of one hand are not quite).

:func:`tally_records` is the readable reference over any :class:`HandRecord` stream (real
or simulated); :func:`tally_hands` computes the same counts from a simulation's ground
truth arrays in one compiled pass, and the tests check the two agree exactly on the text a
simulation writes.

Spot statistics (preflop by position, postflop by street and facing size; defined in
:mod:`poolshark.pool.spots`) come as a second :class:`Tally` of ``N_SPOTS`` counts:
:func:`spot_tally_records`, :func:`spot_tally_hands` and :func:`spot_statistics`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.engine.table import Move, Street
from poolshark.histories.record import HandRecord, HistoryError
from poolshark.histories.replay import replay
from poolshark.histories.split import parse_hand, read_hands
from poolshark.pool.simulate import FORCED, SimulatedHands
from poolshark.pool.spots import N_SPOTS, SPOT_NAMES, count_hands, count_record

Int64s = npt.NDArray[np.int64]

Z_95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


class Hud(IntEnum):
    """Index of each statistic in a :class:`Tally`."""

    VPIP = 0
    PFR = 1
    THREE_BET = 2
    FOLD_TO_THREE_BET = 3
    CBET = 4
    FOLD_TO_CBET = 5
    WTSD = 6
    WSD = 7
    AF = 8


LABELS = {
    Hud.VPIP: "VPIP",
    Hud.PFR: "PFR",
    Hud.THREE_BET: "3-bet",
    Hud.FOLD_TO_THREE_BET: "fold to 3-bet",
    Hud.CBET: "c-bet (flop)",
    Hud.FOLD_TO_CBET: "fold to c-bet",
    Hud.WTSD: "WTSD",
    Hud.WSD: "W$SD",
    Hud.AF: "aggression factor",
}
"""How a HUD names each statistic."""
N_STATS = len(Hud)


@dataclass
class Tally:
    """Successes and opportunities per statistic (:class:`Hud` order); tallies add up."""

    hits: Int64s = field(default_factory=lambda: np.zeros(N_STATS, dtype=np.int64))
    chances: Int64s = field(default_factory=lambda: np.zeros(N_STATS, dtype=np.int64))
    hands: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.hits + other.hits, self.chances + other.chances, self.hands + other.hands)

    def add(self, other: Tally) -> None:
        """Add ``other``'s counts to this tally."""
        self.hits += other.hits
        self.chances += other.chances
        self.hands += other.hands


@dataclass(frozen=True)
class HudStat:
    """One statistic: ``value`` (a proportion in [0, 1], or the AF ratio; None without
    data), ``count`` (opportunities), ``hits`` (successes), the 95% interval."""

    name: str
    value: float | None
    count: int
    hits: int
    low: float | None
    high: float | None

    def as_dict(self) -> dict[str, object]:
        """JSON form: value, count, hits and the interval as [low, high]."""
        return {
            "value": self.value,
            "count": self.count,
            "hits": self.hits,
            "interval": [self.low, self.high],
        }


def wilson_interval(hits: int, count: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``hits / count`` (count > 0)."""
    if count <= 0:
        raise ValueError(f"a proportion needs at least one observation, got {count}")
    if not 0 <= hits <= count:
        raise ValueError(f"{hits} successes out of {count}")
    p = hits / count
    z2 = z * z
    centre = (p + z2 / (2 * count)) / (1 + z2 / count)
    half = z * math.sqrt(p * (1 - p) / count + z2 / (4 * count * count)) / (1 + z2 / count)
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))  # rounding at 0, 1


def statistics(tally: Tally) -> dict[str, HudStat]:
    """Every statistic of a tally, keyed by its name (``vpip``, ..., ``af``)."""
    out = {}
    for stat in Hud:
        hits, count = int(tally.hits[stat]), int(tally.chances[stat])
        name = stat.name.lower()
        if count == 0:
            out[name] = HudStat(name, None, 0, 0, None, None)
            continue
        low, high = wilson_interval(hits, count)
        if stat is Hud.AF:
            calls = count - hits
            value = hits / calls if calls else None
            out[name] = HudStat(name, value, count, hits, _odds(low), _odds(high))
        else:
            out[name] = HudStat(name, hits / count, count, hits, low, high)
    return out


def _odds(share: float) -> float | None:
    """a / (1 - a), None when unbounded."""
    return share / (1 - share) if share < 1 else None


# -- the reference: hand records ------------------------------------------------------------


def tally_records(records: Iterable[HandRecord]) -> Tally:
    """Count every statistic over hand records (see the module docstring for the rules).

    Where a showdown hand does not record its winnings (some PHH files), the record is
    replayed to find who collected; a hand that cannot be replayed raises ``HistoryError``.
    """
    tally = Tally()
    for record in records:
        tally_record(tally, record)
    return tally


def tally_record(tally: Tally, record: HandRecord) -> None:
    """Add one hand's counts to ``tally`` (nothing is added if the hand raises)."""
    n = record.players
    hits = [0] * N_STATS
    chances = [0] * N_STATS
    acted_preflop = [False] * n
    voluntary = [False] * n
    raised = [False] * n
    folded = [False] * n
    folded_preflop = [False] * n
    three_bet_seen = [False] * n
    fold_three_seen = False
    raises = 0
    first_raiser = -1
    aggressor = -1
    flop_raises = 0
    cbet = False
    cbet_seen = False
    fold_cbet_seen = [False] * n
    for action in record.actions:
        p = action.player
        move = action.move
        if action.street is Street.PREFLOP:
            acted_preflop[p] = True
            if raises == 1 and p != first_raiser and not three_bet_seen[p]:
                three_bet_seen[p] = True
                chances[Hud.THREE_BET] += 1
                hits[Hud.THREE_BET] += move is Move.RAISE
            if raises == 2 and p == first_raiser and not fold_three_seen:
                fold_three_seen = True
                chances[Hud.FOLD_TO_THREE_BET] += 1
                hits[Hud.FOLD_TO_THREE_BET] += move is Move.FOLD
            if move is Move.RAISE or (move is Move.CHECK_CALL and action.amount > 0):
                voluntary[p] = True
            if move is Move.RAISE:
                raised[p] = True
                raises += 1
                if raises == 1:
                    first_raiser = p
                aggressor = p
        else:
            if move is Move.RAISE:
                hits[Hud.AF] += 1
                chances[Hud.AF] += 1
            elif move is Move.CHECK_CALL and action.amount > 0:
                chances[Hud.AF] += 1
            if action.street is Street.FLOP:
                if p == aggressor and flop_raises == 0 and not cbet_seen:
                    cbet_seen = True
                    chances[Hud.CBET] += 1
                    hits[Hud.CBET] += move is Move.RAISE
                if cbet and flop_raises == 1 and p != aggressor and not fold_cbet_seen[p]:
                    fold_cbet_seen[p] = True
                    chances[Hud.FOLD_TO_CBET] += 1
                    hits[Hud.FOLD_TO_CBET] += move is Move.FOLD
                if move is Move.RAISE:
                    flop_raises += 1
                    cbet = cbet or (flop_raises == 1 and p == aggressor)
        if move is Move.FOLD:
            folded[p] = True
            folded_preflop[p] = action.street is Street.PREFLOP
    live = [p for p in range(n) if not folded[p]]
    showdown = len(live) > 1
    won = _collected(record) if showdown else None
    for p in range(n):
        if acted_preflop[p]:
            chances[Hud.VPIP] += 1
            chances[Hud.PFR] += 1
            hits[Hud.VPIP] += voluntary[p]
            hits[Hud.PFR] += raised[p]
        if len(record.board) >= 3 and not folded_preflop[p]:
            chances[Hud.WTSD] += 1
            if showdown and not folded[p]:
                hits[Hud.WTSD] += 1
                chances[Hud.WSD] += 1
                assert won is not None
                hits[Hud.WSD] += won[p] > 0
    tally.hits += np.array(hits, dtype=np.int64)
    tally.chances += np.array(chances, dtype=np.int64)
    tally.hands += 1


def _collected(record: HandRecord) -> list[int]:
    """Chips each player collected: as recorded, else from a replay of the hand."""
    if record.winnings is not None:
        return list(record.winnings)
    table = replay(record, check=False)
    return [
        end - start + put
        for end, start, put in zip(table.stack, table.starting_stacks, table.total, strict=True)
    ]


# -- the ground truth: simulated arrays ------------------------------------------------------


def tally_hands(hands: SimulatedHands) -> Tally:
    """The same counts as :func:`tally_records` of ``hands.records()``, from the arrays."""
    hits = np.zeros(N_STATS, dtype=np.int64)
    chances = np.zeros(N_STATS, dtype=np.int64)
    _tally_kernel(
        hands.seats,
        hands.action_start,
        hands.action_seat,
        hands.action_move,
        hands.action_amount,
        hands.action_street,
        hands.action_flags,
        hands.shown,
        hands.collected,
        hits,
        chances,
    )
    return Tally(hits, chances, len(hands))


@nb.njit(cache=True, nogil=True)
def _tally_kernel(
    seats: int,
    start: Int64s,
    a_seat: Int64s,
    a_move: Int64s,
    a_amount: Int64s,
    a_street: Int64s,
    a_flags: npt.NDArray[np.uint8],
    shown: Int64s,
    collected: Int64s,
    hits: Int64s,
    chances: Int64s,
) -> None:
    acted = np.zeros(seats, dtype=np.bool_)
    voluntary = np.zeros(seats, dtype=np.bool_)
    raised = np.zeros(seats, dtype=np.bool_)
    folded = np.zeros(seats, dtype=np.bool_)
    folded_preflop = np.zeros(seats, dtype=np.bool_)
    three_seen = np.zeros(seats, dtype=np.bool_)
    fold_cbet_seen = np.zeros(seats, dtype=np.bool_)
    for h in range(start.size - 1):
        acted[:] = False
        voluntary[:] = False
        raised[:] = False
        folded[:] = False
        folded_preflop[:] = False
        three_seen[:] = False
        fold_cbet_seen[:] = False
        fold_three_seen = False
        raises = 0
        first_raiser = -1
        aggressor = -1
        flop_raises = 0
        cbet = False
        cbet_seen = False
        for a in range(start[h], start[h + 1]):
            if a_flags[a] & FORCED:
                continue
            p, move, street = a_seat[a], a_move[a], a_street[a]
            aggressive = move == 2
            if move == 0:
                folded[p] = True
                folded_preflop[p] = street == 0
            if street == 0:
                acted[p] = True
                if raises == 1 and p != first_raiser and not three_seen[p]:
                    three_seen[p] = True
                    chances[2] += 1
                    hits[2] += aggressive
                if raises == 2 and p == first_raiser and not fold_three_seen:
                    fold_three_seen = True
                    chances[3] += 1
                    hits[3] += move == 0
                if aggressive or (move == 1 and a_amount[a] > 0):
                    voluntary[p] = True
                if aggressive:
                    raised[p] = True
                    raises += 1
                    if raises == 1:
                        first_raiser = p
                    aggressor = p
                continue
            if aggressive:
                hits[8] += 1
                chances[8] += 1
            elif move == 1 and a_amount[a] > 0:
                chances[8] += 1
            if street == 1:
                if p == aggressor and flop_raises == 0 and not cbet_seen:
                    cbet_seen = True
                    chances[4] += 1
                    hits[4] += aggressive
                if cbet and flop_raises == 1 and p != aggressor and not fold_cbet_seen[p]:
                    fold_cbet_seen[p] = True
                    chances[5] += 1
                    hits[5] += move == 0
                if aggressive:
                    flop_raises += 1
                    cbet = cbet or (flop_raises == 1 and p == aggressor)
        live = 0
        for p in range(seats):
            live += not folded[p]
        for p in range(seats):
            if acted[p]:
                chances[0] += 1
                chances[1] += 1
                hits[0] += voluntary[p]
                hits[1] += raised[p]
            if shown[h] >= 3 and not folded_preflop[p]:
                chances[6] += 1
                if live > 1 and not folded[p]:
                    hits[6] += 1
                    chances[7] += 1
                    hits[7] += collected[h, p] > 0


# -- spot statistics ------------------------------------------------------------------------


def spot_tally_records(records: Iterable[HandRecord]) -> Tally:
    """Spot counts over hand records (the readable reference, :func:`spots.count_record`)."""
    tally = _spot_tally()
    for record in records:
        count_record(record, tally.hits, tally.chances)
        tally.hands += 1
    return tally


def spot_tally_hands(hands: SimulatedHands) -> Tally:
    """The same counts as :func:`spot_tally_records` of ``hands.records()``, compiled."""
    tally = _spot_tally()
    count_hands(hands, tally.hits, tally.chances)
    tally.hands = len(hands)
    return tally


def _spot_tally() -> Tally:
    return Tally(np.zeros(N_SPOTS, dtype=np.int64), np.zeros(N_SPOTS, dtype=np.int64))


def spot_statistics(tally: Tally) -> dict[str, HudStat]:
    """Every spot statistic of a spot tally (a proportion with its Wilson interval), keyed
    by its name (``open.BTN``, ..., ``fold_to_cbet.river.large``)."""
    out = {}
    for name, hits, count in zip(SPOT_NAMES, tally.hits, tally.chances, strict=True):
        if count == 0:
            out[name] = HudStat(name, None, 0, 0, None, None)
            continue
        low, high = wilson_interval(int(hits), int(count))
        out[name] = HudStat(name, int(hits) / int(count), int(count), int(hits), low, high)
    return out


# -- files ------------------------------------------------------------------------------------


class StatsError(ValueError):
    """Input the statistics cannot be computed from; the message says which."""


HISTORY_SUFFIXES = (".txt", ".phh", ".phhs")
"""Files a folder is searched for: PokerStars text and PHH."""


@dataclass
class FileTally:
    """Statistics over hand-history files, and what happened to every hand read."""

    tally: Tally = field(default_factory=Tally)
    spots: Tally = field(default_factory=_spot_tally)
    files: int = 0
    read: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    file_errors: dict[str, str] = field(default_factory=dict)


def history_files(paths: Iterable[str | Path]) -> list[Path]:
    """Each file given, and every PokerStars or PHH file under each folder given (sorted);
    a path that does not exist raises :class:`StatsError`."""
    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found += sorted(
                p for p in path.rglob("*") if p.is_file() and p.suffix in HISTORY_SUFFIXES
            )
        elif path.is_file():
            found.append(path)
        else:
            raise StatsError(f"no such file or folder: {path}")
    return found


def tally_files(
    files: Iterable[Path], progress: Callable[[Path, int], None] | None = None
) -> FileTally:
    """Read, parse and count every hand of ``files``; a hand that fails to parse (or, for
    W$SD without recorded winnings, to replay) is counted under its rejection reason.
    ``progress`` is told each file and the hands read so far once it is done."""
    out = FileTally()
    for path in files:
        out.files += 1
        try:
            for raw in read_hands(path):
                out.read += 1
                try:
                    record = parse_hand(raw)
                    tally_record(out.tally, record)
                    count_record(record, out.spots.hits, out.spots.chances)
                    out.spots.hands += 1
                except HistoryError as error:
                    out.rejected[error.reason] = out.rejected.get(error.reason, 0) + 1
        except HistoryError as error:
            out.file_errors[str(path)] = error.message
        except OSError as error:
            out.file_errors[str(path)] = error.strerror or str(error)
        if progress is not None:
            progress(path, out.read)
    return out
