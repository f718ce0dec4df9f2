"""Observation encoders: what a seat may see, as fixed-size float vectors (kept apart from
the rules, so models can change what they look at without touching the engine).

:class:`PublicObservation` encodes what the player to act knows: its own cards, the
board dealt so far, and every seat's chips, bets and status, rotated so that the viewer is
always seat 0 and amounts are in big blinds. :class:`PrivilegedObservation` adds every
hole card and the whole board, for a critic that trains with information no player has.
An empty seat (a starting stack of 0) shows as folded with no chips, and no hole cards.
"""

from __future__ import annotations

from typing import Protocol

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.engine.batched import BatchedTables
from poolshark.engine.kernel import (
    BET,
    BUTTON,
    CURRENT_BET,
    FOLDED,
    INCREMENT,
    SHOWN,
    STACK,
    START,
    STREET,
    TOTAL,
)

Floats = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
UInt8s = npt.NDArray[np.uint8]

PER_SEAT = 5  # stack, bet, put in, folded, button (relative seat order)
GAME = 8  # street one-hot (4), to call, last raise size, pot, pot odds


class ObservationEncoder(Protocol):
    """Turns (table, viewer seat) pairs of a batch into float vectors of ``size``."""

    @property
    def size(self) -> int: ...

    def encode(self, batch: BatchedTables, tables: Int64s, viewers: Int64s) -> Floats: ...


class PublicObservation:
    """Own hole cards (52) + public board (52) + seats x 5 + 8 game features."""

    def __init__(self, seats: int) -> None:
        self.seats = seats

    @property
    def public_size(self) -> int:
        """Length of the public part."""
        return 104 + PER_SEAT * self.seats + GAME

    @property
    def size(self) -> int:
        return self.public_size

    def encode(self, batch: BatchedTables, tables: Int64s, viewers: Int64s) -> Floats:
        """(k, public_size) the observations of ``viewers`` at ``tables`` (compiled; the
        same numbers as :meth:`encode_plain`, which the tests compare)."""
        out = np.zeros((tables.size, self.public_size), dtype=np.float32)
        _public_kernel(
            batch.seat,
            batch.table,
            batch.cards,
            np.asarray(tables, dtype=np.int64),
            np.asarray(viewers, dtype=np.int64),
            float(batch.config.big_blind),
            out,
        )
        return out

    def encode_plain(self, batch: BatchedTables, tables: Int64s, viewers: Int64s) -> Floats:
        """:meth:`encode` in readable numpy: the reference of the compiled form."""
        k, n = tables.size, self.seats
        out = np.zeros((k, self.public_size), dtype=np.float32)
        rows = np.arange(k)
        holes = batch.hole_cards[tables, viewers].astype(np.int64)  # (k, 2)
        out[rows, holes[:, 0]] = 1.0
        out[rows, holes[:, 1]] = 1.0
        shown = batch.table[tables, SHOWN]
        boards = batch.boards[tables].astype(np.int64)
        for b in range(5):
            visible = shown > b
            out[rows[visible], 52 + boards[visible, b]] = 1.0
        big = float(batch.config.big_blind)
        order = (viewers[:, None] + np.arange(n)[None, :]) % n  # viewer first, clockwise
        seat = batch.seat[tables[:, None], :, order]  # (k, n, fields)
        per_seat = np.stack(
            [
                seat[:, :, STACK] / big / 100.0,
                seat[:, :, BET] / big / 100.0,
                seat[:, :, TOTAL] / big / 100.0,
                seat[:, :, FOLDED].astype(np.float64),
                (order == batch.table[tables, BUTTON][:, None]).astype(np.float64),
            ],
            axis=2,
        )
        out[:, 104 : 104 + PER_SEAT * n] = per_seat.reshape(k, -1)
        game = out[:, 104 + PER_SEAT * n :]
        street = np.minimum(batch.table[tables, STREET], 3)
        game[rows, street] = 1.0
        own = batch.seat[tables, :, viewers]  # (k, fields)
        current = batch.table[tables, CURRENT_BET]
        call = np.minimum(current - own[:, BET], own[:, STACK])
        pot = batch.seat[tables, TOTAL].sum(axis=1)
        game[:, 4] = call / big / 100.0
        game[:, 5] = batch.table[tables, INCREMENT] / big / 100.0
        game[:, 6] = pot / big / 100.0
        game[:, 7] = call / np.maximum(pot + call, 1)
        return out


class PrivilegedObservation(PublicObservation):
    """The public observation plus every seat's hole cards (seats x 52) and the full board."""

    @property
    def size(self) -> int:
        return self.public_size + 52 * self.seats + 52

    def encode(self, batch: BatchedTables, tables: Int64s, viewers: Int64s) -> Floats:
        public = super().encode(batch, tables, viewers)
        k, n = tables.size, self.seats
        extra = np.zeros((k, 52 * n + 52), dtype=np.float32)
        rows = np.arange(k)
        for offset in range(n):
            seats = (viewers + offset) % n
            dealt = rows[batch.seat[tables, START, seats] > 0]  # an empty seat has no cards
            holes = batch.hole_cards[tables[dealt], seats[dealt]].astype(np.int64)
            extra[dealt, 52 * offset + holes[:, 0]] = 1.0
            extra[dealt, 52 * offset + holes[:, 1]] = 1.0
        boards = batch.boards[tables].astype(np.int64)
        for b in range(5):
            extra[rows, 52 * n + boards[:, b]] = 1.0
        return np.concatenate([public, extra], axis=1)


@nb.njit(cache=True, nogil=True)
def _public_kernel(
    seat: Int64s,
    table: Int64s,
    cards: UInt8s,
    tables: Int64s,
    viewers: Int64s,
    big: float,
    out: Floats,
) -> None:
    """:meth:`PublicObservation.encode` one row at a time, in the same float64 arithmetic
    rounded once to float32."""
    n = seat.shape[2]
    game = 104 + PER_SEAT * n
    for i in range(tables.size):
        t, viewer = tables[i], viewers[i]
        out[i, cards[t, 2 * viewer]] = 1.0
        out[i, cards[t, 2 * viewer + 1]] = 1.0
        for b in range(min(table[t, SHOWN], 5)):
            out[i, 52 + cards[t, 2 * n + b]] = 1.0
        pot = 0
        for j in range(n):
            s = (viewer + j) % n
            column = 104 + PER_SEAT * j
            out[i, column] = seat[t, STACK, s] / big / 100.0
            out[i, column + 1] = seat[t, BET, s] / big / 100.0
            out[i, column + 2] = seat[t, TOTAL, s] / big / 100.0
            out[i, column + 3] = float(seat[t, FOLDED, s])
            out[i, column + 4] = 1.0 if s == table[t, BUTTON] else 0.0
            pot += seat[t, TOTAL, s]
        out[i, game + min(table[t, STREET], 3)] = 1.0
        call = min(table[t, CURRENT_BET] - seat[t, BET, viewer], seat[t, STACK, viewer])
        out[i, game + 4] = call / big / 100.0
        out[i, game + 5] = table[t, INCREMENT] / big / 100.0
        out[i, game + 6] = pot / big / 100.0
        out[i, game + 7] = call / max(pot + call, 1)
