"""Monte Carlo equity: sample deals from the ranges and boards from the deck, with error bars.

Each sample draws one combo per player (by weight, redrawn on a card collision, which gives
exactly the range-with-card-removal distribution) and then the missing board cards. The
standard error of each player's equity is the sample standard deviation of its pot share
over the square root of the sample count. Samples run in fixed-size blocks, each seeded
from the run seed and its block number, so results do not depend on the thread count.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.combos import COMBO_CARDS
from poolshark.cards.evaluator import KEY_INIT, numba_threads, tables
from poolshark.cards.ranges import Range
from poolshark.equity.exact import check_deal
from poolshark.equity.kernels import showdown
from poolshark.equity.result import EquityError, EquityResult

BLOCK = 4096
"""Samples per independently seeded block."""
MAX_REDRAWS = 10_000
"""A deal that keeps colliding this often is treated as impossible."""


@nb.njit(cache=True, nogil=True, parallel=True)
def _sample_blocks(
    combo_cards: npt.NDArray[np.uint8],
    range_combos: npt.NDArray[np.int64],
    range_cumulative: npt.NDArray[np.float64],
    range_sizes: npt.NDArray[np.int64],
    board: npt.NDArray[np.uint8],
    dead: npt.NDArray[np.uint8],
    n_blocks: int,
    seed: int,
    card_key: npt.NDArray[np.int64],
    card_mask: npt.NDArray[np.int64],
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
) -> tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    int,
]:
    """Per block and player: sums of shares and squared shares, wins, ties; failed deals."""
    players = range_sizes.size
    share_sum = np.zeros((n_blocks, players))
    share_sq = np.zeros((n_blocks, players))
    wins = np.zeros((n_blocks, players), dtype=np.int64)
    ties = np.zeros((n_blocks, players), dtype=np.int64)
    failures = np.zeros(n_blocks, dtype=np.int64)
    for block in nb.prange(n_blocks):
        np.random.seed(seed * 1_000_003 + block)
        fixed = np.zeros(52, dtype=np.bool_)
        base_key = np.int64(KEY_INIT)
        base_mask = np.int64(0)
        for c in board:
            fixed[c] = True
            base_key += card_key[c]
            base_mask |= card_mask[c]
        for c in dead:
            fixed[c] = True
        hole_key = np.zeros(players, dtype=np.int64)
        hole_mask = np.zeros(players, dtype=np.int64)
        values = np.zeros(players, dtype=np.uint16)
        for _ in range(BLOCK):
            used = fixed.copy()
            redraws = 0
            p = 0
            while p < players:
                total = range_cumulative[p, range_sizes[p] - 1]
                cumulative = range_cumulative[p, : range_sizes[p]]
                draw = np.random.random() * total
                pick = min(np.searchsorted(cumulative, draw, side="right"), range_sizes[p] - 1)
                a = combo_cards[range_combos[p, pick], 0]
                b = combo_cards[range_combos[p, pick], 1]
                if used[a] or used[b]:
                    redraws += 1
                    if redraws > MAX_REDRAWS:
                        break
                    used[:] = fixed  # a collision redraws the whole deal

                    p = 0
                    continue
                used[a] = True
                used[b] = True
                hole_key[p] = card_key[a] + card_key[b]
                hole_mask[p] = card_mask[a] | card_mask[b]
                p += 1
            if redraws > MAX_REDRAWS:
                failures[block] += 1
                break  # the ranges (almost) never fit together: stop this block
            key = base_key
            mask = base_mask
            for _d in range(5 - board.size):
                c = np.random.randint(0, 52)
                while used[c]:
                    c = np.random.randint(0, 52)
                used[c] = True
                key += card_key[c]
                mask |= card_mask[c]
            best, count = showdown(
                key, mask, hole_key, hole_mask, row_base, rank_table, flush_table, values
            )
            for p in range(players):
                if values[p] == best:
                    share = 1.0 / count
                    share_sum[block, p] += share
                    share_sq[block, p] += share * share
                    if count == 1:
                        wins[block, p] += 1
                    else:
                        ties[block, p] += 1
    return share_sum, share_sq, wins, ties, int(failures.sum())


def monte_carlo_equity(
    players: Sequence[Range],
    board: Sequence[int] = (),
    dead: Sequence[int] = (),
    *,
    samples: int = 1_000_000,
    seed: int = 0,
    threads: int | None = None,
) -> EquityResult:
    """Sampled equity of each player's hand or range, with standard errors.

    ``samples`` is rounded up to a whole number of blocks of 4,096.
    """
    if samples <= 0:
        raise EquityError(f"samples must be positive, got {samples}")
    live = check_deal(players, board, dead)
    sizes = np.array([len(r) for r in live], dtype=np.int64)
    combos = np.zeros((len(live), int(sizes.max())), dtype=np.int64)
    cumulative = np.zeros((len(live), int(sizes.max())))
    for p, r in enumerate(live):
        chosen = r.combos()
        combos[p, : chosen.size] = chosen
        cumulative[p, : chosen.size] = np.cumsum(r.weights[chosen])
    n_blocks = -(-samples // BLOCK)
    with numba_threads(threads):
        share_sum, share_sq, wins, ties, failures = _sample_blocks(
            COMBO_CARDS,
            combos,
            cumulative,
            sizes,
            np.array(board, dtype=np.uint8),
            np.array(dead, dtype=np.uint8),
            n_blocks,
            seed,
            *tables(),
        )
    if failures:
        raise EquityError("the ranges collide on (almost) every deal: no possible deal found")
    n = n_blocks * BLOCK
    mean = share_sum.sum(axis=0) / n
    var = np.maximum(share_sq.sum(axis=0) / n - mean**2, 0.0)
    win_p = wins.sum(axis=0) / n
    return EquityResult(
        equities=tuple(float(x) for x in mean),
        wins=tuple(float(x) for x in win_p),
        ties=tuple(float(x) for x in ties.sum(axis=0) / n),
        boards=n,
        exact=False,
        std_errors=tuple(float(x) for x in np.sqrt(var / n)),
    )
