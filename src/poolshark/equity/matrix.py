"""The exact 1326x1326 preflop equity matrix, built once and cached with a checksum.

``matrix[a, b]`` is the all-in preflop equity of combo a against combo b over all 1,712,304
boards (ties count half); 0 where the combos share a card (see ``conflict_matrix``). Two
matchups equal up to a renaming of suits have the same equity, and ``matrix[b, a] = 1 -
matrix[a, b]``, so only one representative per unordered suit class is enumerated.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from poolshark import cache as disk_cache
from poolshark.cards.combos import N_COMBOS, conflict_matrix
from poolshark.cards.isomorphism import COMBO_PERMUTATIONS
from poolshark.equity.exact import Progress, _enumerate

MATRIX_VERSION = "v1"
CACHE_NAME = "preflop-equity"


def canonical_matchups() -> tuple[
    npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]
]:
    """One representative per unordered suit class of preflop matchups.

    Returns ``representatives`` (U, 2) combo pairs, and for every ordered pair (a, b) the
    ``index`` of its class (-1 where the combos conflict) and whether it is ``flipped``
    (the representative is (b, a) up to suits, so the equity is one minus its equity).
    """
    a, b = np.meshgrid(np.arange(N_COMBOS), np.arange(N_COMBOS), indexing="ij")
    possible = ~conflict_matrix()
    a, b = a[possible], b[possible]
    forward = (COMBO_PERMUTATIONS[:, a].astype(np.int64) * N_COMBOS + COMBO_PERMUTATIONS[:, b]).min(
        axis=0
    )
    backward = (
        COMBO_PERMUTATIONS[:, b].astype(np.int64) * N_COMBOS + COMBO_PERMUTATIONS[:, a]
    ).min(axis=0)
    unordered = np.minimum(forward, backward)
    keys, inverse = np.unique(unordered, return_inverse=True)
    representatives = np.stack([keys // N_COMBOS, keys % N_COMBOS], axis=1)
    index = np.full((N_COMBOS, N_COMBOS), -1, dtype=np.int64)
    flipped = np.zeros((N_COMBOS, N_COMBOS), dtype=np.bool_)
    index[a, b] = inverse
    flipped[a, b] = forward != unordered
    return representatives, index, flipped


def build_matrix(
    progress: Progress | None = None, threads: int | None = None
) -> npt.NDArray[np.float64]:
    """Enumerate every representative matchup and fill the full matrix (minutes)."""
    representatives, index, flipped = canonical_matchups()
    wins, splits, boards = _enumerate(
        [tuple(int(c) for c in pair) for pair in representatives], (), (), threads, progress
    )
    equity = (wins[:, 0] + splits[:, 0, 2] / 2) / boards
    matrix = np.where(flipped, 1.0 - equity[index], equity[index])
    matrix[index < 0] = 0.0
    return matrix


def preflop_equity_matrix(
    progress: Progress | None = None,
    threads: int | None = None,
    build: Callable[[], npt.NDArray[np.float64]] | None = None,
) -> npt.NDArray[np.float64]:
    """The cached matrix, built (with optional progress callback) if missing or invalid."""

    def builder() -> disk_cache.Arrays:
        matrix = build() if build is not None else build_matrix(progress, threads)
        return {"equity": matrix}

    arrays = disk_cache.load_or_build(CACHE_NAME, MATRIX_VERSION, builder)
    matrix = arrays["equity"].astype(np.float64)
    matrix.flags.writeable = False
    return matrix


def cached_matrix() -> npt.NDArray[np.float64] | None:
    """The matrix if a valid cache file exists, without building it."""
    arrays = disk_cache.load(CACHE_NAME, MATRIX_VERSION)
    return None if arrays is None else arrays["equity"].astype(np.float64)
