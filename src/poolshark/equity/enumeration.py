"""Run the compiled enumerator over many deals in chunks, reporting progress between them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from poolshark.cards.combos import COMBO_CARDS
from poolshark.cards.evaluator import numba_threads, tables
from poolshark.equity.kernels import enumerate_deals

CHUNK_DEALS = 256
"""Deals per compiled call, so a progress callback can report between chunks."""

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` with counts of deals."""


def enumerate_chunks(
    deals: Sequence[tuple[int, ...]],
    board: Sequence[int],
    dead: Sequence[int],
    threads: int | None,
    progress: Progress | None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Run the compiled enumerator over the deals in chunks; (wins, splits, boards)."""
    holes = COMBO_CARDS[np.array(deals, dtype=np.int64)]
    board_array = np.array(board, dtype=np.uint8)
    dead_array = np.array(dead, dtype=np.uint8)
    parts = []
    with numba_threads(threads):
        for start in range(0, len(holes), CHUNK_DEALS):
            parts.append(
                enumerate_deals(
                    holes[start : start + CHUNK_DEALS], board_array, dead_array, *tables()
                )
            )
            if progress is not None:
                progress(min(start + CHUNK_DEALS, len(holes)), len(holes))
    return (
        np.concatenate([p[0] for p in parts]),
        np.concatenate([p[1] for p in parts]),
        np.concatenate([p[2] for p in parts]),
    )
