"""A discrete action set for learning agents, mapped onto the engine's exact moves.

Agents choose among a few abstract actions (fold, check/call, raise a fraction of the
pot, all-in); :class:`ActionSet` turns a batch of choices into engine moves and raise-to
amounts, and gives the legal mask of each choice. A pot-fraction raise is a raise *by*
that fraction of the pot after calling (so "pot" means the classic pot-sized raise),
rounded down to a chip and clamped to the legal bounds.

``raise_caps`` keeps a learner inside what its training data covers: per street, the
largest raise (by the same measure, chips beyond the call over the pot after calling)
any raise action may make. A raise action whose amount is bigger is masked; with no caps
every raise is allowed. An exploiter trained against a population model uses them so it
does not shove into bet sizes the model never saw answered
(:func:`poolshark.population.support.raise_caps`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from poolshark.engine.batched import BatchedTables, LegalBatch
from poolshark.engine.kernel import CHECK_CALL, CURRENT_BET, FOLD, RAISE, STREET, TOTAL

Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]
Rows = Int64s | slice
"""Which tables a method looks at: an index array, or :data:`EVERY_TABLE`."""
EVERY_TABLE = slice(None)
STREETS = 4
"""Betting streets a cap is given for: preflop, flop, turn, river."""


@dataclass(frozen=True)
class ActionSet:
    """Fold, check/call, one raise per pot fraction, and (optionally) all-in, in that order."""

    pot_fractions: tuple[float, ...] = (0.5, 1.0)
    all_in: bool = True
    raise_caps: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if any(f <= 0 for f in self.pot_fractions):
            raise ValueError(f"pot fractions must be positive, got {self.pot_fractions}")
        if self.raise_caps is not None and (
            len(self.raise_caps) != STREETS or any(not cap > 0 for cap in self.raise_caps)
        ):
            raise ValueError(
                f"raise caps are {STREETS} positive sizes (preflop to river), got {self.raise_caps}"
            )

    @classmethod
    def of(
        cls,
        pot_fractions: Sequence[float],
        *,
        all_in: bool = True,
        raise_caps: Sequence[float] | None = None,
    ) -> ActionSet:
        caps = None if raise_caps is None else tuple(float(c) for c in raise_caps)
        return cls(tuple(float(f) for f in pot_fractions), all_in, caps)

    @property
    def size(self) -> int:
        """Number of abstract actions."""
        return 2 + len(self.pot_fractions) + int(self.all_in)

    @property
    def names(self) -> list[str]:
        """Readable labels, e.g. ``fold, call, raise 0.5 pot, raise 1 pot, all-in``."""
        raises = [f"raise {f:g} pot" for f in self.pot_fractions]
        return ["fold", "call", *raises, *(["all-in"] if self.all_in else [])]

    def mask(self, batch: BatchedTables, legal: LegalBatch, rows: Rows = EVERY_TABLE) -> Bools:
        """(tables, size) which abstract actions are legal at each table (and, with
        ``raise_caps``, no bigger than the street's cap); only at tables ``rows`` when given
        (the same rows, computed for those tables alone)."""
        raises = np.repeat(legal.can_raise[rows, None], self.size - 2, axis=1)
        if self.raise_caps is not None:
            raises &= self.raise_sizes(batch, legal, rows) <= self.street_caps(batch, rows)[:, None]
        can_act = legal.to_act[rows] >= 0
        return np.concatenate([legal.can_fold[rows, None], can_act[:, None], raises], 1)

    def raise_amounts(
        self, batch: BatchedTables, legal: LegalBatch, rows: Rows = EVERY_TABLE
    ) -> Int64s:
        """(tables, size - 2) the raise-to amount of each raise action, clamped to the legal
        bounds (meaningless where raising is illegal); only at tables ``rows`` when given."""
        pot = batch.seat[rows, TOTAL].sum(axis=1)  # every chip put in this hand
        after_call = (pot + np.maximum(legal.call[rows], 0))[:, None]
        by = np.floor(np.asarray(self.pot_fractions)[None, :] * after_call).astype(np.int64)
        amounts = batch.table[rows, CURRENT_BET][:, None] + by
        if self.all_in:
            amounts = np.concatenate([amounts, legal.max_raise_to[rows, None]], axis=1)
        low = legal.min_raise_to[rows, None]
        high = np.maximum(legal.max_raise_to[rows], 0)[:, None]
        clamped: Int64s = np.clip(amounts, low, high).astype(np.int64)
        return clamped

    def raise_sizes(
        self, batch: BatchedTables, legal: LegalBatch, rows: Rows = EVERY_TABLE
    ) -> Floats:
        """(tables, size - 2) each raise action's size: chips beyond the call over the pot
        after calling, the decision rows' ``raise_pot``; only at tables ``rows`` when given."""
        pot = batch.seat[rows, TOTAL].sum(axis=1)
        after_call = np.maximum(pot + np.maximum(legal.call[rows], 0), 1)[:, None]
        beyond = self.raise_amounts(batch, legal, rows) - batch.table[rows, CURRENT_BET][:, None]
        sizes: Floats = beyond / after_call
        return sizes

    def street_caps(self, batch: BatchedTables, rows: Rows = EVERY_TABLE) -> Floats:
        """(tables,) the cap of each table's current street (infinite without caps); only
        at tables ``rows`` when given."""
        street = np.clip(batch.table[rows, STREET], 0, STREETS)
        if self.raise_caps is None:
            return np.full(street.shape, np.inf)
        caps = np.asarray([*self.raise_caps, np.inf], dtype=np.float64)
        capped: Floats = caps[street]
        return capped

    def to_moves(
        self, batch: BatchedTables, legal: LegalBatch, choices: npt.ArrayLike
    ) -> tuple[Int64s, Int64s]:
        """Engine (moves, raise-to amounts) for one abstract choice per table."""
        choice = np.asarray(choices, dtype=np.int64)
        if choice.shape != legal.call.shape:
            raise ValueError(f"need one choice per table, got shape {choice.shape}")
        return self.moves_at(batch, legal, EVERY_TABLE, choice)

    def moves_at(
        self, batch: BatchedTables, legal: LegalBatch, rows: Rows, choices: npt.ArrayLike
    ) -> tuple[Int64s, Int64s]:
        """Engine (moves, raise-to amounts) for one abstract choice at each table of
        ``rows``: :meth:`to_moves`'s answer at those tables, computed for them alone."""
        choice = np.asarray(choices, dtype=np.int64)
        if choice.size and (choice.min() < 0 or choice.max() >= self.size):
            raise ValueError(f"choices are 0..{self.size - 1} ({', '.join(self.names)})")
        moves = np.where(choice == 0, FOLD, np.where(choice == 1, CHECK_CALL, RAISE))
        if self.size == 2:  # nothing to raise: the engine ignores the amounts
            return moves.astype(np.int64), batch.table[rows, CURRENT_BET].copy()
        raising = np.clip(choice - 2, 0, self.size - 3)
        amounts = self.raise_amounts(batch, legal, rows)[np.arange(choice.size), raising]
        return moves.astype(np.int64), amounts.astype(np.int64)
