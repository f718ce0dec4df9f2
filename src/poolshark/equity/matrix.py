"""The exact 1326x1326 preflop win and tie matrices, built once and cached with a checksum.

``win[a, b]`` and ``tie[a, b]`` are the probabilities that combo a beats / ties combo b
all-in preflop, over all 1,712,304 boards; 0 where the combos share a card (see
``conflict_matrix``). Matchups equal up to a renaming of suits have the same outcomes, and
swapping the players swaps wins and losses, so only one representative per unordered suit
class (47,008 of them) is enumerated.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from poolshark import cache as disk_cache
from poolshark.cards.combos import N_COMBOS, conflict_matrix
from poolshark.cards.isomorphism import COMBO_PERMUTATIONS
from poolshark.equity.enumeration import Progress, enumerate_chunks

MATRIX_VERSION = "v2"
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


def build_matrices(
    progress: Progress | None = None, threads: int | None = None
) -> disk_cache.Arrays:
    """Enumerate every representative matchup; full ``win`` and ``tie`` matrices (minutes)."""
    representatives, index, flipped = canonical_matchups()
    wins, splits, boards = enumerate_chunks(
        [tuple(int(c) for c in pair) for pair in representatives], (), (), threads, progress
    )
    win_first = wins[:, 0] / boards
    win_second = wins[:, 1] / boards
    tie = splits[:, 0, 2] / boards
    possible = index >= 0
    cls = np.where(possible, index, 0)
    win = np.where(flipped, win_second[cls], win_first[cls])
    return {
        "win": np.where(possible, win, 0.0),
        "tie": np.where(possible, tie[cls], 0.0),
    }


class PreflopMatrices(NamedTuple):
    """Exact preflop all-in outcomes of combo a (row) against combo b (column).

    Entries for conflicting combos are 0; ``equity = win + tie / 2`` and
    ``equity + equity.T = 1`` wherever the combos can be dealt together.
    """

    win: npt.NDArray[np.float64]
    tie: npt.NDArray[np.float64]

    @property
    def equity(self) -> npt.NDArray[np.float64]:
        """All-in equity, ties counted half."""
        return self.win + self.tie / 2

    def equity_vs_random(self) -> npt.NDArray[np.float64]:
        """(1326,) each combo's all-in equity against a uniformly random other hand."""
        possible = ~conflict_matrix()
        strength: npt.NDArray[np.float64] = (self.equity * possible).sum(axis=1) / possible.sum(
            axis=1
        )
        return strength


def _frozen(arrays: disk_cache.Arrays) -> PreflopMatrices:
    win, tie = arrays["win"].astype(np.float64), arrays["tie"].astype(np.float64)
    win.flags.writeable = False
    tie.flags.writeable = False
    return PreflopMatrices(win, tie)


def preflop_matrices(
    progress: Progress | None = None, threads: int | None = None
) -> PreflopMatrices:
    """The cached matrices, built (with an optional progress callback) if missing or invalid."""
    return _frozen(
        disk_cache.load_or_build(
            CACHE_NAME, MATRIX_VERSION, lambda: build_matrices(progress, threads)
        )
    )


_loaded: list[PreflopMatrices] = []


def cached_matrices() -> PreflopMatrices | None:
    """The matrices if a valid cache file exists, without building (kept once read)."""
    if not _loaded:
        arrays = disk_cache.load(CACHE_NAME, MATRIX_VERSION)
        if arrays is None:
            return None
        _loaded.append(_frozen(arrays))
    return _loaded[0]


def forget_cached_matrices() -> None:
    """Drop the matrices kept by :func:`cached_matrices` (after the cache file changed)."""
    _loaded.clear()
