"""Compiled showdown counting: enumerate every board completion, or sample them.

Both kernels take one *deal* per row: ``holes[a]`` is the (players, 2) hole cards of deal a,
and all deals share the known board and dead cards. They count, per player, the boards won
outright and the boards split k ways (``splits[a, p, k]``), so equities are exact fractions.
Keys and masks are the evaluator's: a hand's value is ``value_of(sum of keys, OR of masks)``.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.evaluator import KEY_INIT, value_of

Int64s = npt.NDArray[np.int64]
UInt8s = npt.NDArray[np.uint8]
UInt16s = npt.NDArray[np.uint16]
Int32s = npt.NDArray[np.int32]


@nb.njit(cache=True, nogil=True)
def _headsup_five(
    key_a: np.int64,
    mask_a: np.int64,
    key_b: np.int64,
    mask_b: np.int64,
    deck: Int64s,
    card_key: Int64s,
    card_mask: Int64s,
    row_base: Int32s,
    rank_table: UInt16s,
    flush_table: UInt16s,
) -> tuple[int, int]:
    """(wins of a, ties) over all five-card boards from ``deck``: the preflop hot path.

    Board keys are built up one card per loop level, and the innermost body is branch-free
    so it vectorizes; about 9 ms for the 1,712,304 boards of a heads-up preflop deal.
    """
    m = deck.size
    wins = 0
    ties = 0
    for i in range(m - 4):
        k1 = np.int64(KEY_INIT) + card_key[deck[i]]
        m1 = card_mask[deck[i]]
        for j in range(i + 1, m - 3):
            k2 = k1 + card_key[deck[j]]
            m2 = m1 | card_mask[deck[j]]
            for k in range(j + 1, m - 2):
                k3 = k2 + card_key[deck[k]]
                m3 = m2 | card_mask[deck[k]]
                for s in range(k + 1, m - 1):
                    k4 = k3 + card_key[deck[s]]
                    m4 = m3 | card_mask[deck[s]]
                    for t in range(s + 1, m):
                        k5 = k4 + card_key[deck[t]]
                        m5 = m4 | card_mask[deck[t]]
                        va = value_of(k5 + key_a, m5 | mask_a, row_base, rank_table, flush_table)
                        vb = value_of(k5 + key_b, m5 | mask_b, row_base, rank_table, flush_table)
                        wins += int(va > vb)
                        ties += int(va == vb)
    return wins, ties


@nb.njit(inline="always")
def showdown(
    board_key: np.int64,
    board_mask: np.int64,
    hole_keys: Int64s,
    hole_masks: Int64s,
    row_base: Int32s,
    rank_table: UInt16s,
    flush_table: UInt16s,
    values: UInt16s,
) -> tuple[np.uint16, int]:
    """Fill ``values`` with each player's hand value; return the best and how many share it."""
    best = np.uint16(0)
    count = 0
    for p in range(hole_keys.size):
        v = value_of(
            board_key + hole_keys[p], board_mask | hole_masks[p], row_base, rank_table, flush_table
        )
        values[p] = v
        if v > best:
            best = v
            count = 1
        elif v == best:
            count += 1
    return best, count


@nb.njit(cache=True, nogil=True)
def _count_deal(
    hole_keys: Int64s,
    hole_masks: Int64s,
    base_key: np.int64,
    base_mask: np.int64,
    deck: Int64s,
    n_deal: int,
    card_key: Int64s,
    card_mask: Int64s,
    row_base: Int32s,
    rank_table: UInt16s,
    flush_table: UInt16s,
    wins: Int64s,
    splits: Int64s,
) -> int:
    """Add one deal's showdown counts over all ``n_deal``-card completions; returns boards."""
    players = hole_keys.size
    if players == 2 and n_deal == 5:  # empty board: base_key is KEY_INIT, as assumed there
        won, tied = _headsup_five(
            hole_keys[0],
            hole_masks[0],
            hole_keys[1],
            hole_masks[1],
            deck,
            card_key,
            card_mask,
            row_base,
            rank_table,
            flush_table,
        )
        m = deck.size
        boards = m * (m - 1) * (m - 2) * (m - 3) * (m - 4) // 120
        wins[0] += won
        wins[1] += boards - won - tied
        splits[0, 2] += tied
        splits[1, 2] += tied
        return boards
    # General case: walk every n_deal-subset of the deck in lexicographic order, keeping
    # partial key sums per depth so each step costs one or two additions.
    idx = np.arange(n_deal)
    part_key = np.empty(n_deal + 1, dtype=np.int64)
    part_mask = np.empty(n_deal + 1, dtype=np.int64)
    part_key[0] = base_key
    part_mask[0] = base_mask
    for d in range(n_deal):
        part_key[d + 1] = part_key[d] + card_key[deck[idx[d]]]
        part_mask[d + 1] = part_mask[d] | card_mask[deck[idx[d]]]
    values = np.empty(players, dtype=np.uint16)
    m = deck.size
    boards = 0
    while True:
        best, count = showdown(
            part_key[n_deal],
            part_mask[n_deal],
            hole_keys,
            hole_masks,
            row_base,
            rank_table,
            flush_table,
            values,
        )
        for p in range(players):
            if values[p] == best:
                if count == 1:
                    wins[p] += 1
                else:
                    splits[p, count] += 1
        boards += 1
        d = n_deal - 1
        while d >= 0 and idx[d] == m - n_deal + d:
            d -= 1
        if d < 0:
            return boards
        idx[d] += 1
        for e in range(d + 1, n_deal):
            idx[e] = idx[e - 1] + 1
        for e in range(d, n_deal):
            part_key[e + 1] = part_key[e] + card_key[deck[idx[e]]]
            part_mask[e + 1] = part_mask[e] | card_mask[deck[idx[e]]]


@nb.njit(cache=True, nogil=True, parallel=True)
def enumerate_deals(
    holes: UInt8s,
    board: UInt8s,
    dead: UInt8s,
    card_key: Int64s,
    card_mask: Int64s,
    row_base: Int32s,
    rank_table: UInt16s,
    flush_table: UInt16s,
) -> tuple[Int64s, Int64s, Int64s]:
    """Exact showdown counts for each deal in ``holes`` (deals, players, 2).

    Returns ``wins`` (deals, players), ``splits`` (deals, players, players + 1) and
    ``boards`` (deals,): the number of board completions of each deal.
    """
    n, players = holes.shape[0], holes.shape[1]
    wins = np.zeros((n, players), dtype=np.int64)
    splits = np.zeros((n, players, players + 1), dtype=np.int64)
    boards = np.zeros(n, dtype=np.int64)
    n_deal = 5 - board.size
    base_key = np.int64(KEY_INIT)
    base_mask = np.int64(0)
    for c in board:
        base_key += card_key[c]
        base_mask |= card_mask[c]
    for a in nb.prange(n):
        used = np.zeros(52, dtype=np.bool_)
        for c in board:
            used[c] = True
        for c in dead:
            used[c] = True
        hole_keys = np.zeros(players, dtype=np.int64)
        hole_masks = np.zeros(players, dtype=np.int64)
        for p in range(players):
            for c in holes[a, p]:
                used[c] = True
                hole_keys[p] += card_key[c]
                hole_masks[p] |= card_mask[c]
        deck = np.flatnonzero(~used).astype(np.int64)
        boards[a] = _count_deal(
            hole_keys,
            hole_masks,
            base_key,
            base_mask,
            deck,
            n_deal,
            card_key,
            card_mask,
            row_base,
            rank_table,
            flush_table,
            wins[a],
            splits[a],
        )
    return wins, splits, boards
