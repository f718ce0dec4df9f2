"""The set of hand keys already ingested: nonzero 64-bit hashes of site and hand id
(:func:`~poolshark.histories.fast.hand_key`) in one flat open-addressing table, so
deduplicating tens of millions of hands stays cheap in memory.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

UInt64s = npt.NDArray[np.uint64]


@nb.njit(cache=True, nogil=True)
def _insert_keys(table: UInt64s, keys: UInt64s, fresh: npt.NDArray[np.bool_]) -> int:
    """Insert ``keys`` into the open-addressing ``table`` (0 = empty slot); mark in
    ``fresh`` the ones that were not there yet; return how many were added."""
    mask = np.uint64(table.shape[0] - 1)
    added = 0
    for i in range(keys.shape[0]):
        key = keys[i]
        slot = key & mask
        while True:
            held = table[slot]
            if held == 0:
                table[slot] = key
                fresh[i] = True
                added += 1
                break
            if held == key:
                fresh[i] = False
                break
            slot = (slot + np.uint64(1)) & mask
    return added


class KeySet:
    """A set of nonzero 64-bit keys in one flat array (16 bytes a key; a Python set of
    ints takes about five times that, which matters for tens of millions of hands)."""

    def __init__(self, capacity: int = 1 << 16) -> None:
        size = 1 << max(4, (2 * max(capacity, 1) - 1).bit_length())
        self._table = np.zeros(size, dtype=np.uint64)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, keys: UInt64s) -> npt.NDArray[np.bool_]:
        """Add keys; return which of them were new (a key repeated in ``keys`` is new once)."""
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        if keys.shape[0] and not keys.all():
            raise ValueError("0 is not a key (it marks empty slots)")
        if (self._count + keys.shape[0]) * 2 > self._table.shape[0]:
            self._grow(self._count + keys.shape[0])
        fresh = np.zeros(keys.shape[0], dtype=np.bool_)
        self._count += _insert_keys(self._table, keys, fresh)
        return fresh

    def _grow(self, needed: int) -> None:
        old = self._table[self._table != 0]
        size = 1 << (4 * needed - 1).bit_length()
        self._table = np.zeros(size, dtype=np.uint64)
        self._count = _insert_keys(self._table, old, np.zeros(old.shape[0], dtype=np.bool_))
