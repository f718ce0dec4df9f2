"""Two-player limit poker games as a betting structure and a chance model over card types.

A :class:`LimitGame` is what the limit solvers work on: Kuhn poker, Leduc hold'em and
abstracted heads-up limit hold'em all fit it.

* :class:`LimitBetting`: rounds, the bet size of each round, the cap on bets per round,
  what each player has put in before the first decision (antes, blinds), who acts first
  in each round and how many bets the round opens with (the big blind counts as the first
  bet of hold'em's preflop). Each decision is fold, check/call or bet/raise.
* :class:`ChanceModel`: what each player privately knows, as a *type sequence*: a type
  per round (a card, or a card bucket), numbered at each round so that sequence ``k`` of
  round ``r`` extends sequence ``parent[r][k]`` of round ``r - 1``. ``joint[r][i, j]`` is
  the chance that player 0 holds sequence ``i`` and player 1 sequence ``j`` at round
  ``r``; public cards are folded into the types, so sequences whose boards disagree
  simply have joint probability 0. ``showdown[i, j]`` is player 0's result at a showdown
  of the last round's sequences (1 win, 0 tie, -1 loss; a mean when a pair of sequences
  covers several deals).

Player 0 is the first to act in round 0 (hold'em's button and small blind). Chips are
whole numbers; a solver reports values in chips per hand for player 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]


class LimitGameError(ValueError):
    """A limit game whose betting or chance model is inconsistent."""


@dataclass(frozen=True)
class LimitBetting:
    """The betting of a two-player limit game (validated on creation)."""

    bet_sizes: tuple[int, ...]
    cap: int
    contributions: tuple[int, int]
    first_to_act: tuple[int, ...]
    opening_bets: tuple[int, ...]

    def __post_init__(self) -> None:
        rounds = len(self.bet_sizes)
        checks = (
            (rounds >= 1, "a game needs at least one betting round"),
            (all(size > 0 for size in self.bet_sizes), "bet sizes must be positive"),
            (self.cap >= 1, "the cap must allow at least one bet"),
            (all(c >= 0 for c in self.contributions), "contributions cannot be negative"),
            (len(self.first_to_act) == rounds, "first_to_act needs one player per round"),
            (all(p in (0, 1) for p in self.first_to_act), "players are 0 and 1"),
            (len(self.opening_bets) == rounds, "opening_bets needs one count per round"),
            (all(0 <= b < self.cap for b in self.opening_bets), "opening bets must be < cap"),
        )
        for ok, message in checks:
            if not ok:
                raise LimitGameError(message)

    @property
    def rounds(self) -> int:
        """Number of betting rounds."""
        return len(self.bet_sizes)


@dataclass(frozen=True, eq=False)
class ChanceModel:
    """Private type sequences per round and their joint chances (see the module doc)."""

    parent: tuple[Int64s, ...]
    joint: tuple[Floats, ...]
    showdown: Floats

    def __post_init__(self) -> None:
        rounds = len(self.joint)
        if rounds < 1 or len(self.parent) != rounds:
            raise LimitGameError("need one joint matrix and one parent array per round")
        for r, (joint, parent) in enumerate(zip(self.joint, self.parent, strict=True)):
            size = self.sequences(r)
            if joint.shape != (size, size) or parent.shape != (size,):
                raise LimitGameError(f"round {r}: joint must be ({size}, {size})")
            if joint.min() < 0 or not np.isclose(joint.sum(), 1.0, atol=1e-9):
                raise LimitGameError(f"round {r}: joint chances must be >= 0 and sum to 1")
            if r == 0:
                continue
            above = self.sequences(r - 1)
            if parent.min() < 0 or parent.max() >= above:
                raise LimitGameError(f"round {r}: parents must number round {r - 1}'s")
            folded = np.zeros((above, above))
            np.add.at(folded, (parent[:, None], parent[None, :]), joint)
            if not np.allclose(folded, self.joint[r - 1], atol=1e-9):
                raise LimitGameError(f"round {r}: joint does not sum to round {r - 1}'s")
        last = self.sequences(rounds - 1)
        if self.showdown.shape != (last, last):
            raise LimitGameError(f"showdown must be ({last}, {last})")
        if np.abs(self.showdown).max(initial=0.0) > 1 + 1e-12:
            raise LimitGameError("showdown results are in [-1, 1]")

    @property
    def rounds(self) -> int:
        """Number of rounds with types."""
        return len(self.joint)

    def sequences(self, round_: int) -> int:
        """How many type sequences each player may hold at ``round_``."""
        return int(self.joint[round_].shape[0])


@dataclass(frozen=True, eq=False)
class LimitGame:
    """A two-player zero-sum limit game: betting and chance, with as many rounds each."""

    name: str
    betting: LimitBetting
    chance: ChanceModel

    def __post_init__(self) -> None:
        if self.betting.rounds != self.chance.rounds:
            raise LimitGameError(
                f"{self.name}: {self.betting.rounds} betting rounds but "
                f"{self.chance.rounds} rounds of types"
            )


KUHN_VALUE = -1 / 18
"""Player 0's value of Kuhn poker at equilibrium (Kuhn, 1950)."""

LEDUC_VALUE = -0.0856
"""Player 0's value of Leduc hold'em at equilibrium, to the four places published
(Southey et al., 2005, and later solvers)."""


def kuhn() -> LimitGame:
    """Kuhn poker: cards J, Q, K, one each, antes of 1, one round, bets of 1, one bet."""
    cards = 3
    joint = (1.0 - np.eye(cards)) / (cards * (cards - 1))
    ranks = np.arange(cards)
    showdown = np.sign(ranks[:, None] - ranks[None, :]).astype(np.float64)
    return LimitGame(
        name="kuhn",
        betting=LimitBetting(
            bet_sizes=(1,), cap=1, contributions=(1, 1), first_to_act=(0,), opening_bets=(0,)
        ),
        chance=ChanceModel(parent=(np.zeros(cards, np.int64),), joint=(joint,), showdown=showdown),
    )


def leduc() -> LimitGame:
    """Leduc hold'em: two each of J, Q, K; antes of 1; a private card, a round of bets of 2,
    a public card, a round of bets of 4; two bets a round; a pair with the board wins,
    else the higher card, else a tie. Round-1 types are (private rank, board rank)."""
    ranks = 3
    first = np.array([[(1 if i == j else 2) / 15 for j in range(ranks)] for i in range(ranks)])
    size = ranks * ranks
    joint = np.zeros((size, size))
    showdown = np.zeros((size, size))
    for i in range(ranks):
        for j in range(ranks):
            for board in range(ranks):
                left = 2 - (i == board) - (j == board)
                a, b = i * ranks + board, j * ranks + board
                joint[a, b] = first[i, j] * left / 4
                paired = (i == board, j == board)
                showdown[a, b] = paired[0] - paired[1] if any(paired) else np.sign(i - j)
    parent = np.repeat(np.arange(ranks, dtype=np.int64), ranks)
    return LimitGame(
        name="leduc",
        betting=LimitBetting(
            bet_sizes=(2, 4),
            cap=2,
            contributions=(1, 1),
            first_to_act=(0, 0),
            opening_bets=(0, 0),
        ),
        chance=ChanceModel(
            parent=(np.zeros(ranks, np.int64), parent), joint=(first, joint), showdown=showdown
        ),
    )


HOLDEM_BETTING = LimitBetting(
    bet_sizes=(2, 2, 4, 4),
    cap=4,
    contributions=(1, 2),
    first_to_act=(0, 1, 1, 1),
    opening_bets=(1, 0, 0, 0),
)
"""Heads-up limit hold'em in chips of half a small bet: blinds 1/2, bets 2/2/4/4, four bets
a round (the big blind is preflop's first), the button (player 0) first preflop, last after."""
