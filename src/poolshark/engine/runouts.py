"""All-in EV by sampled runouts: the engine's own settlement, paid over many random boards.

When the betting ends with players all-in before the river, the dealt board decides a big
pot by luck. The engine's EV settlement (``GameConfig(settlement="ev")``) pays each player's
exact expectation over every unseen board, which costs up to 1.7 million boards per
preflop all-in (a few hundred hands per second for all-in-happy agents). This module pays
the mean over ``runouts`` random boards instead: an unbiased estimate of the same
expectation, whose leftover noise shrinks as 1/sqrt(runouts), at a fixed cost.

Each runout redraws the unseen board cards (from the cards no seat holds, folded seats
included, as the exact settlement does; an empty seat holds none) and pays the pots through
the engine's own compiled pieces of ``settle`` (``rake_for``, ``layer_pots``,
``award_pots``), so pots, side pots, rake and odd chips follow the engine exactly; what
does not depend on the board (the pots, the rake, the hole cards' keys) is laid once per
table. The tests compare the mean with the engine's exact
``expected_net``. :func:`hand_results` is what a play loop books at a hand's end under
each :class:`AllInEV` setting.
"""

from __future__ import annotations

from enum import StrEnum

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.evaluator import KEY_INIT, value_of
from poolshark.cards.evaluator import tables as evaluator_tables
from poolshark.engine.batched import BatchedTables, random_below
from poolshark.engine.kernel import (
    BUTTON,
    END_STREET,
    FOLDED,
    PREFLOP,
    RIVER,
    SHOWDOWN,
    START,
    TOTAL,
    Evaluator,
    Rules,
    award_pots,
    layer_pots,
    rake_for,
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
    """Each ``which`` table's mean result over ``runouts`` boards. The pots, their levels
    and the rake do not depend on the board, so they are laid once per table (the engine's
    ``rake_for``, ``layer_pots``); each runout only values the live hands and awards the
    pots (``award_pots``): the engine's ``settle`` of the redrawn board, less its set-up."""
    n = rules.seats
    levels = np.zeros(n + 1, dtype=np.int64)
    amounts = np.zeros(n + 1, dtype=np.int64)
    values = np.zeros(n, dtype=np.int64)
    payout = np.zeros(n, dtype=np.int64)
    hole_key = np.zeros(n, dtype=np.int64)
    hole_mask = np.zeros(n, dtype=np.int64)
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
        total, folded = seat[i, TOTAL], seat[i, FOLDED]
        whole = total.sum()
        rake = rake_for(rules, whole, end, True)
        pots = layer_pots(total, folded, whole, rake, levels, amounts)
        base_key = np.int64(KEY_INIT)
        base_mask = np.int64(0)
        for b in range(known):
            base_key += evaluator.card_key[cards[i, 2 * n + b]]
            base_mask |= evaluator.card_mask[cards[i, 2 * n + b]]
        for s in range(n):
            first, second = cards[i, 2 * s], cards[i, 2 * s + 1]
            hole_key[s] = evaluator.card_key[first] + evaluator.card_key[second]
            hole_mask[s] = evaluator.card_mask[first] | evaluator.card_mask[second]
        for _ in range(runouts):
            key, mask = base_key, base_mask
            for d in range(missing):  # partial Fisher-Yates over the unseen cards
                j = d + random_below(stream, 0, deck.size - d)
                deck[d], deck[j] = deck[j], deck[d]
                key += evaluator.card_key[deck[d]]
                mask |= evaluator.card_mask[deck[d]]
            for s in range(n):
                values[s] = 0
                if not folded[s]:
                    values[s] = value_of(
                        key + hole_key[s],
                        mask | hole_mask[s],
                        evaluator.row_base,
                        evaluator.rank_table,
                        evaluator.flush_table,
                    )
                payout[s] = 0
            award_pots(table[i, BUTTON], total, folded, values, levels, amounts, pots, payout)
            for s in range(n):
                out[k, s] += payout[s] - total[s]
        for s in range(n):
            out[k, s] /= runouts
