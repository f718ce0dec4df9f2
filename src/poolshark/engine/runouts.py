"""All-in EV by sampled runouts: the engine's own settlement, paid over many random boards.

When the betting ends with players all-in before the river, the dealt board decides a big
pot by luck. The engine's EV settlement (``GameConfig(settlement="ev")``) pays each player's
exact expectation over every unseen board, which costs up to 1.7 million boards per
preflop all-in (a few hundred hands per second for all-in-happy agents). This module pays
the mean over ``runouts`` random boards instead: an unbiased estimate of the same
expectation, whose leftover noise shrinks as 1/sqrt(runouts), at a fixed cost.

Each runout re-runs the engine's compiled ``settle`` on a copy of the finished table with
the unseen board cards redrawn (from the cards no seat holds, folded seats included, as the
exact settlement does; an empty seat holds none), so pots, side pots, rake and odd chips
follow the engine exactly. The tests compare the mean with the engine's exact
``expected_net``. :func:`hand_results` is what a play loop books at a hand's end under
each :class:`AllInEV` setting.
"""

from __future__ import annotations

from enum import StrEnum

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.evaluator import tables as evaluator_tables
from poolshark.engine.batched import BatchedTables, random_below
from poolshark.engine.kernel import (
    END_STREET,
    NET,
    PREFLOP,
    RIVER,
    SETTLING,
    SHOWDOWN,
    STACK,
    START,
    STREET,
    TOTAL,
    Evaluator,
    Rules,
    settle,
)

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
UInt64s = npt.NDArray[np.uint64]


class AllInEV(StrEnum):
    """How a pot decided all-in before the river is booked at the hand's end."""

    SAMPLED = "sampled"  # the mean over random runouts (engine settlement), unbiased
    EXACT = "exact"  # the engine's exact EV settlement over every runout (slow)
    OFF = "off"  # no adjustment: the dealt board's result


def hand_results(
    batch: BatchedTables,
    tables: Int64s,
    mode: AllInEV,
    runouts: int,
    rng: np.random.Generator,
) -> Floats:
    """(k, seats) each seat's all-in-EV-adjusted result at these finished tables: the mean
    over ``runouts`` boards drawn from ``rng`` (sampled), the engine's exact expectation
    (exact, which needs the game's EV settlement), or the dealt result (off)."""
    if mode is AllInEV.SAMPLED:
        return sampled_net(batch, tables, runouts, rng)
    if mode is AllInEV.EXACT:
        exact: Floats = batch.expected_net[tables]
        return exact
    return batch.net[tables].astype(np.float64)


def all_in_before_river(batch: BatchedTables, tables: Int64s) -> Bools:
    """Which of these finished tables went to showdown with board cards still to come."""
    state = batch.table[tables]
    decided: Bools = (state[:, SHOWDOWN] == 1) & (state[:, END_STREET] < RIVER)
    return decided


def sampled_net(
    batch: BatchedTables, tables: Int64s, runouts: int, rng: np.random.Generator
) -> Floats:
    """(k, seats) each seat's mean result over ``runouts`` random boards at these finished
    tables; the dealt result (``batch.net``) where no board card was still to come."""
    if runouts <= 0:
        raise ValueError(f"runouts must be positive, got {runouts}")
    result = batch.net[tables].astype(np.float64)
    decided = all_in_before_river(batch, tables)
    which = tables[decided]
    if which.size:
        stream = rng.integers(1, 2**63, size=1, dtype=np.uint64) | np.uint64(1)
        out = np.zeros((which.size, batch.config.seats))
        _runouts_kernel(
            batch.rules._replace(expected_value=0),
            batch.seat,
            batch.table,
            batch.cards,
            which,
            runouts,
            stream,
            Evaluator(*evaluator_tables()),
            out,
        )
        result[decided] = out
    return result


@nb.njit(cache=True, nogil=True)
def _runouts_kernel(
    rules: Rules,
    seat: Int64s,
    table: Int64s,
    cards: npt.NDArray[np.uint8],
    which: Int64s,
    runouts: int,
    stream: UInt64s,
    evaluator: Evaluator,
    out: Floats,
) -> None:
    n = rules.seats
    scratch = np.zeros(n)
    for k in range(which.size):
        i = which[k]
        end = table[i, END_STREET]
        known = 0 if end == PREFLOP else end + 2
        used = np.zeros(52, dtype=np.bool_)
        for c in range(2 * n + known):
            if c >= 2 * n or seat[i, START, c // 2] > 0:  # an empty seat's cards are not dealt
                used[cards[i, c]] = True
        deck = np.flatnonzero(~used)
        missing = 5 - known
        work_cards = cards[i].copy()
        work_seat = seat[i].copy()
        work_table = table[i].copy()
        for _ in range(runouts):
            for d in range(missing):  # partial Fisher-Yates over the unseen cards
                j = d + random_below(stream, 0, deck.size - d)
                deck[d], deck[j] = deck[j], deck[d]
                work_cards[2 * n + known + d] = deck[d]
            work_seat[:, :] = seat[i]
            for s in range(n):  # undo the payout: every chip put in left the stack
                work_seat[STACK, s] = seat[i, START, s] - seat[i, TOTAL, s]
                work_seat[NET, s] = 0
            work_table[:] = table[i]
            work_table[STREET] = SETTLING
            settle(rules, work_seat, work_table, work_cards, scratch, evaluator)
            for s in range(n):
                out[k, s] += work_seat[NET, s]
        for s in range(n):
            out[k, s] /= runouts
