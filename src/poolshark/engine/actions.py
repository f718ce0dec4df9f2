"""A discrete action set for learning agents, mapped onto the engine's exact moves.

Agents choose among a few abstract actions (fold, check/call, raise a fraction of the
pot, all-in); :class:`ActionSet` turns a batch of choices into engine moves and raise-to
amounts, and gives the legal mask of each choice. A pot-fraction raise is a raise *by*
that fraction of the pot after calling (so "pot" means the classic pot-sized raise),
rounded down to a chip and clamped to the legal bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from poolshark.engine.batched import BatchedTables, LegalBatch
from poolshark.engine.kernel import CHECK_CALL, CURRENT_BET, FOLD, RAISE, TOTAL

Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class ActionSet:
    """Fold, check/call, one raise per pot fraction, and (optionally) all-in, in that order."""

    pot_fractions: tuple[float, ...] = (0.5, 1.0)
    all_in: bool = True

    def __post_init__(self) -> None:
        if any(f <= 0 for f in self.pot_fractions):
            raise ValueError(f"pot fractions must be positive, got {self.pot_fractions}")

    @classmethod
    def of(cls, pot_fractions: Sequence[float], *, all_in: bool = True) -> ActionSet:
        return cls(tuple(float(f) for f in pot_fractions), all_in)

    @property
    def size(self) -> int:
        """Number of abstract actions."""
        return 2 + len(self.pot_fractions) + int(self.all_in)

    @property
    def names(self) -> list[str]:
        """Readable labels, e.g. ``fold, call, raise 0.5 pot, raise 1 pot, all-in``."""
        raises = [f"raise {f:g} pot" for f in self.pot_fractions]
        return ["fold", "call", *raises, *(["all-in"] if self.all_in else [])]

    def mask(self, legal: LegalBatch) -> Bools:
        """(tables, size) which abstract actions are legal at each table."""
        raises = np.repeat(legal.can_raise[:, None], self.size - 2, axis=1)
        return np.concatenate([legal.can_fold[:, None], (legal.to_act >= 0)[:, None], raises], 1)

    def to_moves(
        self, batch: BatchedTables, legal: LegalBatch, choices: npt.ArrayLike
    ) -> tuple[Int64s, Int64s]:
        """Engine (moves, raise-to amounts) for one abstract choice per table."""
        choice = np.asarray(choices, dtype=np.int64)
        if choice.shape != legal.call.shape:
            raise ValueError(f"need one choice per table, got shape {choice.shape}")
        if choice.size and (choice.min() < 0 or choice.max() >= self.size):
            raise ValueError(f"choices are 0..{self.size - 1} ({', '.join(self.names)})")
        moves = np.where(choice == 0, FOLD, np.where(choice == 1, CHECK_CALL, RAISE))
        pot = batch.seat[:, TOTAL].sum(axis=1)  # every chip put in this hand
        current = batch.table[:, CURRENT_BET]
        fractions = np.array([0.0, 0.0, *self.pot_fractions, 0.0])
        by = np.floor(fractions[choice] * (pot + np.maximum(legal.call, 0))).astype(np.int64)
        amounts = current + by
        if self.all_in:
            amounts = np.where(choice == self.size - 1, legal.max_raise_to, amounts)
        amounts = np.clip(amounts, legal.min_raise_to, np.maximum(legal.max_raise_to, 0))
        return moves.astype(np.int64), amounts.astype(np.int64)
