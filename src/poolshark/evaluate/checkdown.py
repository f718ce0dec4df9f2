"""Check-down values: each seat's expected pot share if nobody bet again, minus its chips in.

The value function of the match's variance reduction (:mod:`poolshark.evaluate.aivat`). At
a state with contributions ``total`` and folded seats ``folded``, the pots are layered as the
engine layers them (``engine.kernel.layer_pots``: one pot per live contribution level, open
to the live seats that reached it, so an unmatched bet comes back to its owner); each pot
goes to its best eligible hand over the remaining board, split on ties. No rake: the value
is a baseline, and any baseline keeps the corrections unbiased.

The remaining board is the deck minus every seat's hole cards (folded ones included, as
the engine deals) and the cards shown. :class:`BoardRanks` stores, per table, the hand
value of every seat on each board completion of the street, so that many states of one
street cost only comparisons:

* preflop (five cards to come): ``samples`` random boards, drawn once per hand from the
  corrections' own stream (common to every preflop state of the hand);
* flop and turn: every completion, exactly (at most 990 and 46 boards); river: the board.

Because the value is an average over the completions of the board, the value before a
board card is dealt equals the mean of the values after it, exactly when the completions
are enumerated, and in expectation over the sampled boards preflop. That is what makes the
chance-node corrections cheap: ``v(after) - v(before)``.

:func:`checkdown_value` is the plain readable reference (one state, every completion
enumerated with the readable evaluator); the tests compare the compiled kernels with it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.evaluator import KEY_INIT, evaluate_indices, value_of
from poolshark.cards.evaluator import tables as evaluator_tables
from poolshark.engine.batched import BatchedTables, random_below
from poolshark.engine.kernel import FOLDED, SHOWN, TOTAL, Evaluator, layer_pots
from poolshark.engine.pots import side_pots

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Int32s = npt.NDArray[np.int32]
UInt8s = npt.NDArray[np.uint8]
UInt64s = npt.NDArray[np.uint64]

ENUMERATED_MOST = 990
"""The most board completions a street enumerates: C(45, 2), a heads-up flop."""
CACHED_SETS = 8
"""Eligible sets whose pot shares each table remembers until its board changes."""


class BoardRanks:
    """Per table, every seat's hand value on each stored completion of the current board."""

    def __init__(self, tables: int, seats: int, samples: int, seed: int) -> None:
        if samples < 1:
            raise ValueError(f"preflop boards must be at least 1, got {samples}")
        self.samples = samples
        self.ranks = np.zeros((tables, max(samples, ENUMERATED_MOST), seats), dtype=np.int32)
        self.counts = np.ones(tables, dtype=np.int64)
        self.shown = np.zeros(tables, dtype=np.int64)  # board cards the stored ranks build on
        # per table, the shares of recently scored eligible sets (seat bit masks) on its boards
        self.cache_sets = np.zeros((tables, CACHED_SETS), dtype=np.int64)
        self.cache_shares = np.zeros((tables, CACHED_SETS, seats))
        self.cache_fill = np.zeros(tables, dtype=np.int64)
        streams = np.random.SeedSequence(seed).generate_state(tables, dtype=np.uint64)
        self.stream = streams | np.uint64(1)
        self.evaluator = Evaluator(*evaluator_tables())

    def build(self, batch: BatchedTables, tables: Int64s, shown: Int64s | None = None) -> None:
        """Store the completions of the board at ``tables``: of its ``shown`` first cards
        (default: the cards the table shows now)."""
        known = batch.table[tables, SHOWN] if shown is None else shown
        _build_ranks(
            batch.cards,
            batch.seat[:, FOLDED],
            batch.config.seats,
            tables,
            np.ascontiguousarray(known, dtype=np.int64),
            self.samples,
            self.stream,
            self.evaluator,
            self.ranks,
            self.counts,
        )
        self.shown[tables] = known
        self.cache_fill[tables] = 0

    def values(self, tables: Int64s, total: Int64s, folded: Int64s) -> Floats:
        """(k, seats) check-down values at ``tables[i]`` with contributions ``total[i]`` and
        folded flags ``folded[i]`` (rows of one table should be consecutive: they share
        the work per board)."""
        out = np.zeros(total.shape, dtype=np.float64)
        _checkdown_kernel(
            self.ranks,
            self.counts,
            np.ascontiguousarray(tables, dtype=np.int64),
            np.ascontiguousarray(total, dtype=np.int64),
            np.ascontiguousarray(folded, dtype=np.int64),
            self.cache_sets,
            self.cache_shares,
            self.cache_fill,
            out,
        )
        return out

    def current(self, batch: BatchedTables, tables: Int64s) -> Floats:
        """(k, seats) check-down values of the tables' present contributions."""
        return self.values(tables, batch.seat[tables, TOTAL], batch.seat[tables, FOLDED])


def even_split_values(total: Int64s, folded: Int64s) -> Floats:
    """(k, seats) the check-down values' mean over a uniformly random deal: each pot split
    evenly among its eligible seats (they are exchangeable before the cards), minus chips in."""
    out = np.zeros(total.shape, dtype=np.float64)
    _even_split_kernel(
        np.ascontiguousarray(total, dtype=np.int64),
        np.ascontiguousarray(folded, dtype=np.int64),
        out,
    )
    return out


def checkdown_value(
    holes: Sequence[tuple[int, int]],
    board: Sequence[int],
    total: Sequence[int],
    folded: Sequence[bool],
) -> list[Fraction]:
    """Readable reference: each seat's exact check-down value (a fraction of chips), every
    completion of ``board`` enumerated from the cards no seat holds."""
    seats = len(holes)
    used = {card for hole in holes for card in hole} | set(board)
    deck = [card for card in range(52) if card not in used]
    live = [not f for f in folded]
    pots = side_pots(list(total), live)
    won = [Fraction(0)] * seats
    boards = 0
    for rest in itertools.combinations(deck, 5 - len(board)):
        full = [*board, *rest]
        values = [evaluate_indices([*holes[s], *full]) if live[s] else -1 for s in range(seats)]
        for pot in pots:
            best = max(values[s] for s in pot.eligible)
            winners = [s for s in pot.eligible if values[s] == best]
            for s in winners:
                won[s] += Fraction(pot.amount, len(winners))
        boards += 1
    return [won[s] / boards - total[s] for s in range(seats)]


@nb.njit(cache=True, nogil=True)
def _build_ranks(
    cards: UInt8s,
    folded: Int64s,
    seats: int,
    tables: Int64s,
    shown: Int64s,
    samples: int,
    stream: UInt64s,
    ev: Evaluator,
    ranks: Int32s,
    counts: Int64s,
) -> None:
    for k in range(tables.size):
        t = tables[k]
        known = shown[k]
        used = np.zeros(52, dtype=np.bool_)
        for c in range(2 * seats + known):
            used[cards[t, c]] = True
        deck = np.flatnonzero(~used)
        m = deck.size
        base_key = np.int64(KEY_INIT)
        base_mask = np.int64(0)
        for b in range(known):
            base_key += ev.card_key[cards[t, 2 * seats + b]]
            base_mask |= ev.card_mask[cards[t, 2 * seats + b]]
        hole_key = np.zeros(seats, dtype=np.int64)
        hole_mask = np.zeros(seats, dtype=np.int64)
        for s in range(seats):
            first, second = cards[t, 2 * s], cards[t, 2 * s + 1]
            hole_key[s] = ev.card_key[first] + ev.card_key[second]
            hole_mask[s] = ev.card_mask[first] | ev.card_mask[second]
        missing = 5 - known
        boards = 0
        if missing > 2:  # preflop: sampled completions (partial Fisher-Yates over the deck)
            for b in range(samples):
                key, mask = base_key, base_mask
                for d in range(missing):
                    j = d + random_below(stream, t, m - d)
                    deck[d], deck[j] = deck[j], deck[d]
                    key += ev.card_key[deck[d]]
                    mask |= ev.card_mask[deck[d]]
                _rank_seats(key, mask, hole_key, hole_mask, folded[t], ev, ranks[t, b])
            boards = samples
        elif missing == 2:
            for i in range(m - 1):
                for j in range(i + 1, m):
                    key = base_key + ev.card_key[deck[i]] + ev.card_key[deck[j]]
                    mask = base_mask | ev.card_mask[deck[i]] | ev.card_mask[deck[j]]
                    _rank_seats(key, mask, hole_key, hole_mask, folded[t], ev, ranks[t, boards])
                    boards += 1
        elif missing == 1:
            for i in range(m):
                key = base_key + ev.card_key[deck[i]]
                mask = base_mask | ev.card_mask[deck[i]]
                _rank_seats(key, mask, hole_key, hole_mask, folded[t], ev, ranks[t, boards])
                boards += 1
        else:
            _rank_seats(base_key, base_mask, hole_key, hole_mask, folded[t], ev, ranks[t, 0])
            boards = 1
        counts[t] = boards


@nb.njit(inline="always")
def _rank_seats(
    key: np.int64,
    mask: np.int64,
    hole_key: Int64s,
    hole_mask: Int64s,
    folded: Int64s,
    ev: Evaluator,
    out: Int32s,
) -> None:
    for s in range(hole_key.size):
        if folded[s]:
            out[s] = -1  # never eligible; a folded seat's value is not needed
        else:
            out[s] = value_of(
                key + hole_key[s], mask | hole_mask[s], ev.row_base, ev.rank_table, ev.flush_table
            )


@nb.njit(cache=True, nogil=True)
def _checkdown_kernel(
    ranks: Int32s,
    counts: Int64s,
    tables: Int64s,
    total: Int64s,
    folded: Int64s,
    cache_sets: Int64s,
    cache_shares: Floats,
    cache_fill: Int64s,
    out: Floats,
) -> None:
    """Values of many states; consecutive rows of one table share one pass over its boards:
    the distinct eligible sets of all their pots are scored together, and sets the table
    scored since its board last changed come from its cache."""
    rows, n = total.shape
    levels = np.zeros((rows, n + 1), dtype=np.int64)
    amounts = np.zeros((rows, n + 1), dtype=np.int64)
    pots = np.zeros(rows, dtype=np.int64)
    pot_set = np.zeros((rows, n + 1), dtype=np.int64)  # index into the group's distinct sets
    sets = np.zeros(rows * (n + 1), dtype=np.int64)  # bit masks of eligible seats
    shares = np.zeros((rows * (n + 1), n))
    start = 0
    while start < rows:
        t = tables[start]
        stop = start
        while stop < rows and tables[stop] == t:
            stop += 1
        distinct = 0
        for r in range(start, stop):
            whole = 0
            for s in range(n):
                whole += total[r, s]
            pots[r] = layer_pots(total[r], folded[r], whole, 0, levels[r], amounts[r])
            for p in range(pots[r]):
                eligible = 0
                for s in range(n):
                    if folded[r, s] == 0 and total[r, s] >= levels[r, p]:
                        eligible |= 1 << s
                found = -1
                for d in range(distinct):
                    if sets[d] == eligible:
                        found = d
                        break
                if found < 0:
                    found = distinct
                    sets[distinct] = eligible
                    distinct += 1
                pot_set[r, p] = found
        missing = np.zeros(distinct, dtype=np.bool_)
        cached = min(cache_fill[t], cache_sets.shape[1])
        for d in range(distinct):
            missing[d] = True
            for c in range(cached):
                if cache_sets[t, c] == sets[d]:
                    shares[d, :] = cache_shares[t, c, :]
                    missing[d] = False
                    break
            if missing[d]:
                shares[d, :] = 0.0
        boards = counts[t]
        for b in range(boards):
            rank = ranks[t, b]
            for d in range(distinct):
                if not missing[d]:
                    continue
                best = np.int32(-2)
                winners = 0
                for s in range(n):
                    if (sets[d] >> s) & 1:
                        if rank[s] > best:
                            best, winners = rank[s], 1
                        elif rank[s] == best:
                            winners += 1
                if winners == 0:
                    continue
                for s in range(n):
                    if (sets[d] >> s) & 1 and rank[s] == best:
                        shares[d, s] += 1.0 / winners
        for d in range(distinct):
            if missing[d]:
                for s in range(n):
                    shares[d, s] /= boards
                slot = cache_fill[t] % cache_sets.shape[1]
                cache_sets[t, slot] = sets[d]
                cache_shares[t, slot, :] = shares[d, :]
                cache_fill[t] += 1
        for r in range(start, stop):
            for s in range(n):
                won = 0.0
                for p in range(pots[r]):
                    won += amounts[r, p] * shares[pot_set[r, p], s]
                out[r, s] = won - total[r, s]
        start = stop


@nb.njit(cache=True, nogil=True)
def _even_split_kernel(total: Int64s, folded: Int64s, out: Floats) -> None:
    rows, n = total.shape
    levels = np.zeros(n + 1, dtype=np.int64)
    amounts = np.zeros(n + 1, dtype=np.int64)
    for r in range(rows):
        whole = 0
        for s in range(n):
            whole += total[r, s]
        pots = layer_pots(total[r], folded[r], whole, 0, levels, amounts)
        for s in range(n):
            out[r, s] = -float(total[r, s])
        for p in range(pots):
            eligible = 0
            for s in range(n):
                if folded[r, s] == 0 and total[r, s] >= levels[p]:
                    eligible += 1
            for s in range(n):
                if folded[r, s] == 0 and total[r, s] >= levels[p]:
                    out[r, s] += amounts[p] / eligible
