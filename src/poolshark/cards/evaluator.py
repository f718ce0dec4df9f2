"""Fast 5-, 6- and 7-card hand evaluation over whole arrays, compiled with numba.

How it works (one pass, no sorting, tables small enough to stay in cache):

* Every card has a 64-bit *key*: a rank multiplier in the low 32 bits plus a 1 in its suit's
  4-bit counter at bit ``32 + 4 * suit``. The multipliers are chosen so that the sum over any
  hand of up to seven cards identifies its multiset of ranks uniquely (max sum 18.4 M), and
  the counters start at 3 so that bit 3 of a counter is set exactly when that suit has five
  or more cards. So a hand's key is a plain sum of its cards' keys.
* Without a flush, the rank sum is mapped by a two-level perfect hash (row base + column)
  into a 0.2 MB table of hand values. With a flush, the 13-bit rank mask of the flush suit
  (kept as a second per-card sum) indexes an 8,192-entry flush table. Seven cards cannot
  hold a flush and a full house at once, so the flush value is the answer.

Values are integers 1..7462, higher is better, equal is a tie (see ``hand_value``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from itertools import combinations_with_replacement
from typing import NamedTuple

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark import cache as disk_cache
from poolshark.cards.card import N_CARDS, CardError, parse_cards
from poolshark.cards.hand_value import best_counts_key, flush_key, value_of_key

RANK_MULTIPLIERS: tuple[int, ...] = (
    1,
    5,
    24,
    112,
    521,
    2247,
    9244,
    30823,
    103066,
    250154,
    667453,
    1526359,
    3453520,
)
"""Per-rank key multipliers (deuce first): each is the smallest value above the previous
one keeping every rank multiset of <= 7 cards (<= 4 per rank) uniquely summed; see
:func:`search_rank_multipliers`, which re-derives them."""

SUIT_SHIFT = 32
"""Bit where the four 4-bit suit counters start in a key."""
KEY_INIT = 0x3333 << SUIT_SHIFT
"""Every hand's key starts here: each suit counter at 3, so five cards of a suit set bit 3."""
RANK_BITS = (1 << SUIT_SHIFT) - 1
ROW_SHIFT = 12
"""Perfect hash: row = rank sum >> ROW_SHIFT, column = the low ROW_SHIFT bits."""
COLUMN_BITS = (1 << ROW_SHIFT) - 1
TABLES_VERSION = "v1"


class EvaluatorTables(NamedTuple):
    """Arrays the compiled kernels read; pass them through to any kernel that evaluates."""

    card_key: npt.NDArray[np.int64]  # (52,) rank multiplier + suit counter bit
    card_mask: npt.NDArray[np.int64]  # (52,) 1 << (16 * suit + rank)
    row_base: npt.NDArray[np.int32]  # perfect-hash row start in rank_table
    rank_table: npt.NDArray[np.uint16]  # value of each rank multiset without a flush
    flush_table: npt.NDArray[np.uint16]  # (8192,) value of a flush suit's 13-bit rank mask


def search_rank_multipliers() -> tuple[int, ...]:
    """Re-derive :data:`RANK_MULTIPLIERS` greedily (about 3 s; used by a test).

    Adding rank r with multiplier m collides two multisets exactly when some difference
    ``s2 - s1`` of existing sums equals ``d * m`` (d = 1..4 extra copies), where the multiset
    of ``s1`` has room for d more cards. Such m are struck out window by window.
    """
    sums = np.zeros(1, dtype=np.int64)
    sizes = np.zeros(1, dtype=np.int64)
    multipliers: list[int] = []
    window = 1 << 16
    for _ in range(13):
        low = multipliers[-1] + 1 if multipliers else 1
        ordered = np.sort(sums)
        chosen = -1
        while chosen < 0:
            struck = np.zeros(window, dtype=np.bool_)
            for d in range(1, 5):
                starts = np.sort(sums[sizes <= 7 - d])
                first = np.searchsorted(ordered, starts + d * low)
                last = np.searchsorted(ordered, starts + d * (low + window))
                counts = last - first
                total = int(counts.sum())
                offsets = np.repeat(first - np.cumsum(counts) + counts, counts) + np.arange(total)
                gaps = ordered[offsets] - np.repeat(starts, counts)
                struck[gaps[gaps % d == 0] // d - low] = True
            free = np.flatnonzero(~struck)
            if free.size:
                chosen = low + int(free[0])
            low += window
        extended = [(sums + k * chosen, sizes + k, sizes + k <= 7) for k in range(5)]
        sums = np.concatenate([s[ok] for s, _, ok in extended])
        sizes = np.concatenate([n[ok] for _, n, ok in extended])
        multipliers.append(chosen)
    return tuple(multipliers)


def _rank_multisets() -> npt.NDArray[np.int64]:
    """(M, 13) rank counts of every multiset of 5 to 7 cards with at most 4 of a rank."""
    rows = []
    for size in (5, 6, 7):
        for ranks in combinations_with_replacement(range(13), size):
            counts = np.bincount(ranks, minlength=13)
            if counts.max() <= 4:
                rows.append(counts)
    return np.array(rows, dtype=np.int64)


@nb.njit(cache=True)
def _displace_rows(
    rows: npt.NDArray[np.int64], columns: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int32], int]:
    """First-fit row displacement: give each row a base so no two keys share a slot.

    ``rows``/``columns`` are sorted by row. Rows are placed fullest first. Returns the
    bases and the table size needed.
    """
    n_rows = rows[-1] + 1
    starts = np.searchsorted(rows, np.arange(n_rows + 1))
    fill = starts[1:] - starts[:-1]
    order = np.argsort(-fill, kind="mergesort")
    used = np.zeros(rows.size * 4 + (1 << 16), dtype=np.bool_)
    bases = np.zeros(n_rows, dtype=np.int32)
    size = 0
    first_free = 0
    for row in order:
        if fill[row] == 0:
            continue
        cols = columns[starts[row] : starts[row + 1]]
        base = max(first_free - cols[0], 0)
        while True:
            clash = False
            for c in cols:
                if used[base + c]:
                    clash = True
                    break
            if not clash:
                break
            base += 1
        for c in cols:
            used[base + c] = True
            size = max(size, base + c + 1)
        bases[row] = base
        while used[first_free]:
            first_free += 1
    return bases, size


def _build_tables() -> disk_cache.Arrays:
    values = value_of_key()
    multisets = _rank_multisets()
    sums = multisets @ np.array(RANK_MULTIPLIERS, dtype=np.int64)
    if np.unique(sums).size != sums.size:
        raise AssertionError("rank multipliers do not sum uniquely")
    order = np.argsort(sums)
    sums, multisets = sums[order], multisets[order]
    rows, columns = sums >> ROW_SHIFT, sums & COLUMN_BITS
    row_base, size = _displace_rows(rows, columns)
    rank_table = np.zeros(size, dtype=np.uint16)
    rank_table[row_base[rows] + columns] = [
        values[best_counts_key(counts.tolist())] for counts in multisets
    ]
    flush_table = np.zeros(1 << 13, dtype=np.uint16)
    for mask in range(1 << 13):
        ranks = [r for r in range(13) if mask >> r & 1]
        if len(ranks) >= 5:
            flush_table[mask] = values[flush_key(ranks)]
    return {"row_base": row_base, "rank_table": rank_table, "flush_table": flush_table}


@cache
def tables() -> EvaluatorTables:
    """The evaluator's lookup tables, loaded from the cache or built once (about 1 s)."""
    built = disk_cache.load_or_build("evaluator-tables", TABLES_VERSION, _build_tables)
    cards = np.arange(N_CARDS)
    multipliers = np.array(RANK_MULTIPLIERS, dtype=np.int64)
    card_key = multipliers[cards >> 2] + (np.int64(1) << (SUIT_SHIFT + 4 * (cards & 3)))
    card_mask = np.int64(1) << (16 * (cards & 3) + (cards >> 2))
    return EvaluatorTables(
        card_key=card_key.astype(np.int64),
        card_mask=card_mask.astype(np.int64),
        row_base=built["row_base"].astype(np.int32),
        rank_table=built["rank_table"].astype(np.uint16),
        flush_table=built["flush_table"].astype(np.uint16),
    )


@nb.njit(inline="always")
def value_of(
    key: np.int64,
    mask: np.int64,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
) -> np.uint16:
    """Hand value from a summed key (starting at KEY_INIT) and OR-ed card mask.

    Branch-free on purpose: both lookups are always in range (a flush hand's rank sum is
    still a valid multiset; a non-flush hand reads some flush-table slot), and choosing with
    a select instead of a jump lets LLVM vectorize the loops that call this, about 10x faster
    than the branchy form on random hands.
    """
    ranks = key & RANK_BITS
    plain = rank_table[row_base[ranks >> ROW_SHIFT] + (ranks & COLUMN_BITS)]
    flush = (key >> (SUIT_SHIFT + 3)) & 0x1111  # bit 4 * suit is set for a flush suit
    shift = 16 * (((flush & 0x1110) != 0) + ((flush & 0x1100) != 0) + ((flush & 0x1000) != 0))
    suited = flush_table[(mask >> shift) & 0x1FFF]
    return np.uint16(suited if flush else plain)


@nb.njit(cache=True, nogil=True)
def _evaluate_rows(
    cards: npt.NDArray[np.uint8],
    card_key: npt.NDArray[np.int64],
    card_mask: npt.NDArray[np.int64],
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    out: npt.NDArray[np.uint16],
) -> None:
    n_hands, n_cards = cards.shape
    for i in range(n_hands):
        key = np.int64(KEY_INIT)
        mask = np.int64(0)
        for j in range(n_cards):
            card = cards[i, j]
            key += card_key[card]
            mask |= card_mask[card]
        out[i] = value_of(key, mask, row_base, rank_table, flush_table)


@nb.njit(cache=True, nogil=True, parallel=True)
def _evaluate_rows_parallel(
    cards: npt.NDArray[np.uint8],
    card_key: npt.NDArray[np.int64],
    card_mask: npt.NDArray[np.int64],
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    out: npt.NDArray[np.uint16],
) -> None:
    chunk = 1 << 16
    for c in nb.prange((cards.shape[0] + chunk - 1) // chunk):
        rows = slice(c * chunk, min((c + 1) * chunk, cards.shape[0]))
        _evaluate_rows(
            cards[rows], card_key, card_mask, row_base, rank_table, flush_table, out[rows]
        )


@contextmanager
def numba_threads(threads: int | None) -> Iterator[None]:
    """Run compiled parallel loops on ``threads`` cores inside the block (None: all)."""
    if threads is None:
        yield
        return
    previous = nb.get_num_threads()
    nb.set_num_threads(max(1, min(threads, nb.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    try:
        yield
    finally:
        nb.set_num_threads(previous)


def evaluate_batch(cards: npt.ArrayLike, *, threads: int | None = 1) -> npt.NDArray[np.uint16]:
    """Values of many hands at once: ``cards`` is (n, k) card indices with k in 5..7.

    Cards within a row must be distinct (not checked, for speed). ``threads`` is the
    number of cores to use (default one; None for all).
    """
    raw = np.asarray(cards)
    if raw.ndim != 2 or not 5 <= raw.shape[1] <= 7:
        raise CardError(f"evaluate_batch needs an (n, 5..7) array of cards, got {raw.shape}")
    if raw.size and raw.dtype.kind not in "iu":
        raise CardError(f"card indices must be integers, got dtype {raw.dtype}")
    if raw.size and (raw.min() < 0 or raw.max() >= N_CARDS):
        bad = raw.min() if raw.min() < 0 else raw.max()
        raise CardError(f"card index {int(bad)} is outside 0..51")
    array = np.ascontiguousarray(raw, dtype=np.uint8)
    out = np.empty(array.shape[0], dtype=np.uint16)
    if threads == 1:
        _evaluate_rows(array, *tables(), out)
    else:
        with numba_threads(threads):
            _evaluate_rows_parallel(array, *tables(), out)
    return out


@cache
def _scalar_tables() -> tuple[list[int], list[int], list[int], list[int], list[int]]:
    """The tables as Python lists: indexing a list is several times cheaper than an array."""
    t = tables()
    return (
        t.card_key.tolist(),
        t.card_mask.tolist(),
        t.row_base.tolist(),
        t.rank_table.tolist(),
        t.flush_table.tolist(),
    )


def evaluate(cards: str | Sequence[int]) -> int:
    """Value (1..7462, higher wins) of one hand of 5 to 7 distinct cards: ``"AhKhQhJhTh"``."""
    indices = parse_cards(cards)
    if not 5 <= len(indices) <= 7:
        raise CardError(f"a hand has 5 to 7 cards, got {len(indices)} in {cards!r}")
    return evaluate_indices(indices)


def evaluate_indices(cards: Sequence[int]) -> int:
    """:func:`evaluate` for 5 to 7 distinct, already-valid card indices (no checks)."""
    card_key, card_mask, row_base, rank_table, flush_table = _scalar_tables()
    key = KEY_INIT
    mask = 0
    for card in cards:
        key += card_key[card]
        mask |= card_mask[card]
    flush = (key >> (SUIT_SHIFT + 3)) & 0x1111
    if flush:
        suit = flush.bit_length() // 4
        return flush_table[(mask >> (16 * suit)) & 0x1FFF]
    ranks = key & RANK_BITS
    return rank_table[row_base[ranks >> ROW_SHIFT] + (ranks & COLUMN_BITS)]
