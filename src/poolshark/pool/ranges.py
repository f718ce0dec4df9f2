"""Range sources: anything that answers "what does this seat hold, given the hand so far?".

The range oracle (a learned model), the exact pool posterior (the best possible answer on a
synthetic pool) and the uniform deal all answer the same batched question, a
:class:`RangeQuery`, with an (N, 1326) array of probabilities over the canonical combos.
The population action model and the evaluation code only depend on :class:`RangeSource`,
so one source can stand in for another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from poolshark.cards.combos import N_COMBOS, combos_sharing_cards
from poolshark.engine.config import GameConfig
from poolshark.pool.context import ActionLogs
from poolshark.pool.pools import Pool
from poolshark.pool.posterior import PublicHand, range_posterior

Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]


@dataclass(frozen=True)
class RangeQuery:
    """N questions, one per row: the range of ``seat`` after the first ``logs.length``
    public actions of a hand.

    ``starting_stacks`` (N, S) chips before the forced bets; ``button`` (N,); ``board``
    (N, 5) the cards shown so far, -1 for cards not shown; ``logs`` the public actions so far
    (padded (N, L) arrays, see :class:`~poolshark.pool.context.ActionLogs`); ``seat`` (N,)
    whose range is asked; ``dead`` (N, 2) cards the asker knows are elsewhere (its own hole
    cards), -1 for none.
    """

    config: GameConfig
    starting_stacks: Int64s
    button: Int64s
    board: Int64s
    logs: ActionLogs
    seat: Int64s
    dead: Int64s

    def __post_init__(self) -> None:
        n = len(self.button)
        seats = self.config.seats
        shapes = {
            "starting_stacks": (self.starting_stacks.shape, (n, seats)),
            "board": (self.board.shape, (n, 5)),
            "seat": (self.seat.shape, (n,)),
            "dead": (self.dead.shape, (n, 2)),
            "logs.length": (self.logs.length.shape, (n,)),
        }
        for name, (got, want) in shapes.items():
            if got != want:
                raise ValueError(f"range query: {name} must have shape {want}, got {got}")

    @property
    def size(self) -> int:
        """Number of questions N."""
        return int(self.button.size)

    def known_cards(self, row: int) -> list[int]:
        """The board and dead cards of question ``row`` (the cards no range may hold)."""
        cards = np.concatenate([self.board[row], self.dead[row]])
        return [int(c) for c in cards if c >= 0]

    def blocked(self) -> npt.NDArray[np.bool_]:
        """(N, 1326) combos that share a card with the row's board or dead cards."""
        out = np.zeros((self.size, N_COMBOS), dtype=np.bool_)
        for row in range(self.size):
            out[row] = combos_sharing_cards(self.known_cards(row))
        return out

    def public_hand(self, row: int) -> PublicHand:
        """Question ``row`` as the pool posterior's :class:`PublicHand`."""
        length = int(self.logs.length[row])
        width = max(length, 1)
        logs = ActionLogs(
            seat=self.logs.seat[row : row + 1, :width],
            move=self.logs.move[row : row + 1, :width],
            amount=self.logs.amount[row : row + 1, :width],
            street=self.logs.street[row : row + 1, :width],
            length=np.array([length], dtype=np.int64),
        )
        board = tuple(int(c) for c in self.board[row] if c >= 0)
        stacks = tuple(int(s) for s in self.starting_stacks[row])
        return PublicHand(self.config, stacks, int(self.button[row]), board, logs)


@runtime_checkable
class RangeSource(Protocol):
    """Answers range queries: (N, 1326) float32 rows, zero on blocked combos, each summing
    to 1."""

    def ranges(self, query: RangeQuery) -> Float32s: ...


class UniformRanges:
    """The deal itself: every combo not blocked by the known cards equally likely."""

    def ranges(self, query: RangeQuery) -> Float32s:
        """Uniform over the unblocked combos of each row."""
        weights = (~query.blocked()).astype(np.float32)
        out: Float32s = weights / weights.sum(axis=1, keepdims=True)
        return out


class ExactPoolRanges:
    """The exact posterior under a synthetic pool: every seat an anonymous player whose style
    is drawn by the pool's seat frequencies (the best any oracle can do on that pool's
    hands). One compiled posterior walk per row: a reference, not a fast path."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool

    def ranges(self, query: RangeQuery) -> Float32s:
        """The pool posterior of each row's seat, the row's dead cards removed."""
        out = np.zeros((query.size, N_COMBOS), dtype=np.float32)
        weights = self.pool.style_frequencies()
        for row in range(query.size):
            dead = [int(c) for c in query.dead[row] if c >= 0]
            out[row] = range_posterior(
                self.pool.bank, weights, query.public_hand(row), int(query.seat[row]), dead
            )
        return out
