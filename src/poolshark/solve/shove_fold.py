"""The heads-up shove/fold game: payoffs, best responses and exploitability, exactly.

Both players start with ``stack`` big blinds (blinds and antes come out of it). The small
blind either folds, losing its blind and ante, or shoves all-in; facing a shove the big
blind folds, losing its blind and ante, or calls, and the board is dealt. All values are
the small blind's net result in big blinds per hand; the big blind gets the negative.

A strategy is a probability per combo (1,326, canonical order): shove for the small blind,
call for the big blind. Hole cards are dealt uniformly without collisions, so every pair
of non-conflicting combos has probability 1 / (1326 * 1225); the exact preflop equity
matrix gives the showdown values. With ``s`` and ``c`` the strategies,

    V(s, c) = -fold_loss + (fold_loss + steal) * mean(s) + s @ M @ c,

where ``M[h, v] = P[h, v] * ((2 * equity[h, v] - 1) * stack - steal)`` is what a call
changes relative to a fold. Everything below is exact arithmetic on that form.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, model_validator

from poolshark.cards.combos import COMBO_CLASS, N_CLASSES, N_COMBOS, conflict_matrix
from poolshark.equity.matrix import PreflopMatrices

Vector = npt.NDArray[np.float64]
Matrix = npt.NDArray[np.float64]

DEAL_PROBABILITY = 1.0 / (N_COMBOS * (N_COMBOS - 101))
"""Probability of one ordered pair of non-conflicting combos (1,225 partners per combo)."""


class ShoveFoldGame(BaseModel):
    """Rules of one shove/fold game, in big blinds (validated; finite amounts only)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", allow_inf_nan=False, title="shove/fold game"
    )

    stack: float = Field(gt=0, description="Starting stack of each player, blinds included.")
    small_blind: float = Field(0.5, gt=0, description="The small blind's forced bet.")
    ante: float = Field(0.0, ge=0, description="Ante posted by each player.")

    @model_validator(mode="after")
    def _stack_covers_forced_bets(self) -> ShoveFoldGame:
        if self.stack < max(1.0, self.small_blind) + self.ante:
            raise ValueError(
                f"a stack of {self.stack} bb cannot cover the blind and an ante of {self.ante}"
            )
        return self

    @property
    def fold_loss(self) -> float:
        """What the small blind loses by folding: its blind and ante."""
        return self.small_blind + self.ante

    @property
    def steal(self) -> float:
        """What the small blind wins when the big blind folds: the big blind and its ante."""
        return 1.0 + self.ante


@dataclass(frozen=True)
class Payoffs:
    """The game's payoff form for one preflop matrix: ``V = base + gain @ s + s @ M @ c``."""

    game: ShoveFoldGame
    call_matrix: Matrix  # (1326, 1326) M: effect of a call, probability-weighted

    @property
    def base(self) -> float:
        """The small blind's value if it always folds."""
        return -self.game.fold_loss

    @cached_property
    def gain(self) -> Vector:
        """(1326,) value of shoving a combo when the big blind always folds."""
        return np.full(N_COMBOS, (self.game.fold_loss + self.game.steal) / N_COMBOS)

    def value(self, shove: Vector, call: Vector) -> float:
        """The small blind's expected result per hand under the two strategies."""
        return float(self.base + self.gain @ shove + shove @ self.call_matrix @ call)

    def best_shove(self, call: Vector) -> Vector:
        """The small blind's pure best response to a calling strategy (ties: fold)."""
        return (self.gain + self.call_matrix @ call > 0).astype(np.float64)

    def best_call(self, shove: Vector) -> Vector:
        """The big blind's pure best response to a shoving strategy (ties: fold)."""
        return (shove @ self.call_matrix < 0).astype(np.float64)

    def exploitability(self, shove: Vector, call: Vector) -> Exploitability:
        """How much each player's strategy gives up against a best response."""
        value = self.value(shove, call)
        best_for_sb = self.value(self.best_shove(call), call)
        best_for_bb = self.value(shove, self.best_call(shove))
        # A best response never does worse; clip the float noise around exact equilibria.
        return Exploitability(value, max(0.0, value - best_for_bb), max(0.0, best_for_sb - value))


@dataclass(frozen=True)
class Exploitability:
    """Value of a strategy pair and what a best response gains against each side (bb/hand).

    ``total`` is the mean of the two gains: 0 exactly at an equilibrium.
    """

    value: float
    sb_gives_up: float  # the big blind's best response gains this against the shove strategy
    bb_gives_up: float  # the small blind's best response gains this against the call strategy

    @property
    def total(self) -> float:
        """Mean best-response gain over the two seats, in bb per hand."""
        return (self.sb_gives_up + self.bb_gives_up) / 2


def payoffs(game: ShoveFoldGame, matrices: PreflopMatrices) -> Payoffs:
    """The exact payoff form of ``game`` from the preflop win/tie matrices."""
    possible = ~conflict_matrix()
    showdown = (2 * matrices.equity - 1) * game.stack
    call_matrix = np.where(possible, DEAL_PROBABILITY * (showdown - game.steal), 0.0)
    return Payoffs(game, call_matrix)


def class_sums(matrix: Matrix) -> Matrix:
    """(169, 169) sums of a (1326, 1326) matrix over each pair of preflop classes."""
    rows = np.zeros((N_CLASSES, N_COMBOS))
    np.add.at(rows, COMBO_CLASS, matrix)
    out = np.zeros((N_CLASSES, N_CLASSES))
    np.add.at(out.T, COMBO_CLASS, rows.T)
    return out


def per_combo(class_strategy: Vector) -> Vector:
    """(1326,) strategy that plays every combo of a class like its class."""
    return np.asarray(class_strategy, dtype=np.float64)[COMBO_CLASS]


def fraction_of_combos(strategy: Vector) -> float:
    """Share of the 1,326 combos played, mixed combos counted by their frequency."""
    return float(np.mean(strategy))


def top_fraction(fraction: float, matrices: PreflopMatrices) -> Vector:
    """A strategy playing the best ``fraction`` of combos by equity vs a random hand.

    Whole classes are taken best first; the class at the boundary is mixed so exactly
    ``fraction`` of the 1,326 combos is played.
    """
    if not 0 <= fraction <= 1:
        raise ValueError(f"a fraction of hands is in [0, 1], got {fraction}")
    strength = matrices.equity_vs_random()
    per_class = np.zeros(N_CLASSES)
    np.maximum.at(per_class, COMBO_CLASS, strength)
    remaining = fraction * N_COMBOS
    chosen = np.zeros(N_CLASSES)
    for cls in np.argsort(-per_class, kind="stable"):
        size = float(np.count_nonzero(cls == COMBO_CLASS))
        chosen[cls] = min(1.0, max(0.0, remaining / size))
        remaining -= size
    return per_combo(chosen)
