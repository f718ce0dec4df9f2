"""Fast-fold seating: every hand is dealt to a fresh random set of players from a pool.

In fast-fold ("zoom") games a player who folds is moved at once to a new table with new
opponents and a stack topped back up, so nobody can follow anyone. :class:`FastFoldSeating`
reproduces that for simulation: for each table about to deal, draw ``seats`` distinct
players from the pool (and, when the pool is large enough, distinct across the tables
seated together), reset stacks to the configured depth, and keep each player's running
results so per-player win rates can be read off afterwards.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from poolshark.engine.batched import BatchedTables

Int64s = npt.NDArray[np.int64]


class FastFoldSeating:
    """Seats players from a pool of ``players`` anonymous ids at a batch of tables."""

    def __init__(self, players: int, seats: int, *, depth: int, seed: int = 0) -> None:
        if players < seats:
            raise ValueError(f"a pool of {players} players cannot fill {seats} seats")
        if depth <= 0:
            raise ValueError(f"stack depth must be positive chips, got {depth}")
        self.players = players
        self.seats = seats
        self.depth = depth
        self.rng = np.random.default_rng(seed)
        self.hands = np.zeros(players, dtype=np.int64)
        self.won = np.zeros(players, dtype=np.int64)

    def draw(self, tables: int) -> Int64s:
        """(tables, seats) player ids: distinct at a table, and across tables if possible."""
        if tables * self.seats <= self.players:
            return self.rng.permutation(self.players)[: tables * self.seats].reshape(tables, -1)
        keys = self.rng.random((tables, self.players))
        return np.argpartition(keys, self.seats - 1, axis=1)[:, : self.seats].astype(np.int64)

    def deal(self, batch: BatchedTables, which: Int64s) -> Int64s:
        """Seat new players at tables ``which`` and deal them in (random button)."""
        players = self.draw(which.size)
        buttons = self.rng.integers(0, self.seats, size=which.size)
        batch.reset(which, stacks=self.depth, buttons=buttons)
        return players

    def book(self, players: Int64s, net: Int64s) -> None:
        """Add finished hands' results (rows of ``players`` and ``net``) to the totals."""
        np.add.at(self.hands, players.ravel(), 1)
        np.add.at(self.won, players.ravel(), net.ravel())
