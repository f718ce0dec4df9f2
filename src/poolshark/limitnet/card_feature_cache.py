"""Card features kept for the rest of a street: the network player's rows served again
instead of recomputed.

Within a hand, a seat that acts twice on a street reads the same card features, and every
seat at a table reads the same board columns; on the flop and turn those are most of the
cost of a decision. :class:`CardFeatureCache` keeps, per table and seat of a batch, the last
row computed and the cards it was computed from, and per table the last board columns; a
row is reused only when its hole cards and shown board are the very ones it was computed
from, so every row equals :func:`card_features_compiled.card_feature_batch`'s (the features
are a function of the cards alone, whatever the hand, match or batch).
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.limitnet.card_features_compiled import (
    WIDEST,
    board_part,
    evaluator,
    private_part,
)

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

KEY = 8
"""A row's cards as its cache key: the two hole cards, the board's size, five board cards."""


@nb.njit(cache=True, nogil=True, inline="always")
def _same(key: Int64s, hole: Int64s, board: Int64s) -> bool:
    """Whether ``key`` holds ``hole`` (none for a board's key), the board's size, ``board``."""
    k = 0
    for card in hole:
        if key[k] != card:
            return False
        k += 1
    if key[k] != board.size:
        return False
    for i in range(board.size):  # noqa: SIM110 (numba compiles no generator in all())
        if key[k + 1 + i] != board[i]:
            return False
    return True


@nb.njit(cache=True, nogil=True, inline="always")
def _store(key: Int64s, hole: Int64s, board: Int64s) -> None:
    """Write ``hole`` and ``board`` into ``key`` (the layout :func:`_same` reads)."""
    k = 0
    for card in hole:
        key[k] = card
        k += 1
    key[k] = board.size
    for i in range(board.size):
        key[k + 1 + i] = board[i]


@nb.njit(cache=True, nogil=True)
def _cached_rows(
    tables: Int64s,
    seats: Int64s,
    holes: Int64s,
    boards: Int64s,
    shown: Int64s,
    ev: Any,
    bounds: Int64s,
    board_keys: Int64s,
    board_rows: Floats,
    seat_keys: Int64s,
    seat_rows: Floats,
    out: Floats,
) -> None:
    """Every row into ``out``, from the seat's kept row when its cards match, else computed
    (the board columns from the table's kept ones when its board matches) and kept."""
    no_hole = np.empty(0, dtype=np.int64)
    for row in range(tables.shape[0]):
        t, s = tables[row], seats[row]
        hole, board = holes[row], boards[row, : shown[row]]
        kept = seat_rows[t, s]
        if not _same(seat_keys[t, s], hole, board):
            if not _same(board_keys[t], no_hole, board):
                board_rows[t, :] = 0.0
                board_part(board, board_rows[t])
                _store(board_keys[t], no_hole, board)
            kept[:] = board_rows[t]
            private_part(hole, board, ev, bounds, kept)
            _store(seat_keys[t, s], hole, board)
        out[row, :] = kept


class CardFeatureCache:
    """Per-table, per-seat card feature rows of one batch shape (see the module docstring);
    a batch of another shape starts it afresh. Holds tables x seats x 136 floats (about
    27 MB at 4,096 six-seat tables)."""

    def __init__(self) -> None:
        self._shape = (0, 0)
        self._board_keys = np.zeros((0, KEY), dtype=np.int64)
        self._board_rows = np.zeros((0, WIDEST))
        self._seat_keys = np.zeros((0, 0, KEY), dtype=np.int64)
        self._seat_rows = np.zeros((0, 0, WIDEST))

    def rows(
        self,
        tables: Int64s,
        seats: Int64s,
        holes: Int64s,
        boards: Int64s,
        shown: Int64s,
        shape: tuple[int, int],
    ) -> Floats:
        """(D, WIDEST) card features of the players at ``tables`` and ``seats`` (a batch of
        ``shape`` = (tables, seats)): ``holes`` (D, 2), ``boards`` (D, 5) of which the first
        ``shown`` (D,; 0, 3, 4 or 5) are dealt; the rows of ``card_feature_batch``."""
        if shape != self._shape:
            self._shape = shape
            self._board_keys = np.full((shape[0], KEY), -1, dtype=np.int64)
            self._board_rows = np.zeros((shape[0], WIDEST))
            self._seat_keys = np.full((*shape, KEY), -1, dtype=np.int64)
            self._seat_rows = np.zeros((*shape, WIDEST))
        out = np.empty((tables.size, WIDEST))
        ev, bounds = evaluator()
        _cached_rows(
            np.ascontiguousarray(tables, dtype=np.int64),
            np.ascontiguousarray(seats, dtype=np.int64),
            np.ascontiguousarray(holes, dtype=np.int64).reshape(-1, 2),
            np.ascontiguousarray(boards, dtype=np.int64),
            np.ascontiguousarray(shown, dtype=np.int64),
            ev,
            bounds,
            self._board_keys,
            self._board_rows,
            self._seat_keys,
            self._seat_rows,
            out,
        )
        return out
