"""What an equity calculation returns, and the error it raises on impossible input."""

from __future__ import annotations

from dataclasses import dataclass

from poolshark.cards.card import CardError


class EquityError(CardError):
    """The players, board and dead cards given do not describe a possible deal."""


class TooMuchWorkError(EquityError):
    """Exact enumeration would take too long; Monte Carlo sampling is the tool for it."""


@dataclass(frozen=True)
class EquityResult:
    """Each player's share of the pot, with how it was measured.

    ``equities[p]`` counts a k-way split as 1/k of a win. ``wins`` and ``ties`` are the
    probabilities of winning outright and of splitting. ``boards`` is the number of board
    runouts enumerated (exact) or sampled (Monte Carlo). ``std_errors`` is None when exact.
    """

    equities: tuple[float, ...]
    wins: tuple[float, ...]
    ties: tuple[float, ...]
    boards: int
    exact: bool
    std_errors: tuple[float, ...] | None = None

    def to_json(self) -> dict[str, object]:
        """Plain JSON-ready dict (the CLI's ``--json`` object)."""
        return {
            "equities": list(self.equities),
            "wins": list(self.wins),
            "ties": list(self.ties),
            "exact": self.exact,
            "boards": self.boards,
            "std_errors": None if self.std_errors is None else list(self.std_errors),
        }
