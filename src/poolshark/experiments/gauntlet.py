"""A gauntlet: every pairing of heads-up fixed-limit agents, in duplicate, in small bets per hand.

Strength at poker is not transitive, so a bot is judged by a table of all its pairings, as
seed 004 judged HaRDBot against Sparbot, Vexbot and Poki. Each pairing is one duplicate
match (every deal played twice with the seats swapped, so card luck mostly cancels) on
fresh agents: adaptive bots start each pairing knowing nothing of their opponent.

The figure per pairing is the first agent's win rate in small bets per hand (the big blind
is the small bet) with its 95% interval over deals (``evaluate.match``'s estimator); the
second agent's is its negative, as the game is zero-sum without rake.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from poolshark.agents.protocol import Agent
from poolshark.engine.config import Betting
from poolshark.evaluate.match import MatchConfig, play_match

AgentFactory = Callable[[], Agent]


@dataclass(frozen=True)
class Pairing:
    """One pairing: ``first``'s small bets per hand against ``second`` and its interval."""

    first: str
    second: str
    small_bets_per_hand: float
    ci95: tuple[float, float]
    deals: int
    hands: int
    seconds: float

    def as_dict(self) -> dict[str, object]:
        """Plain values for JSON."""
        return {
            "first": self.first,
            "second": self.second,
            "sb_per_hand": self.small_bets_per_hand,
            "ci95": list(self.ci95),
            "deals": self.deals,
            "hands": self.hands,
            "seconds": self.seconds,
        }


def play_pairing(
    first: tuple[str, AgentFactory],
    second: tuple[str, AgentFactory],
    *,
    hands: int,
    seed: int,
    tables: int = 256,
) -> Pairing:
    """A duplicate heads-up fixed-limit match of fresh agents (at least ``hands`` table-hands)."""
    config = MatchConfig(
        hands=hands, seats=2, duplicate=True, seed=seed, tables=tables, betting=Betting.FIXED_LIMIT
    )
    start = time.perf_counter()
    result = play_match([first[1](), second[1]()], (0, 1), config, names=[first[0], second[0]])
    rate = result.agents[0].actual
    low, high = rate.interval
    return Pairing(
        first=first[0],
        second=second[0],
        small_bets_per_hand=rate.small_bets_per_hand,
        ci95=(low / 100, high / 100),
        deals=result.deals,
        hands=result.table_hands,
        seconds=time.perf_counter() - start,
    )


def round_robin(
    agents: Mapping[str, AgentFactory],
    *,
    hands: int,
    seed: int,
    tables: int = 256,
    pairs: Sequence[tuple[str, str]] | None = None,
    progress: Callable[[Pairing], None] | None = None,
) -> list[Pairing]:
    """Every pairing of ``agents`` (or just ``pairs``), each on its own deals (seeded by
    ``seed`` and the pairing's position), in the order given."""
    chosen = list(pairs) if pairs is not None else list(itertools.combinations(agents, 2))
    unknown = sorted({name for pair in chosen for name in pair} - set(agents))
    if unknown:
        raise ValueError(f"pairings name unknown agents: {', '.join(unknown)}")
    results = []
    for index, (a, b) in enumerate(chosen):
        pairing = play_pairing(
            (a, agents[a]), (b, agents[b]), hands=hands, seed=seed + index, tables=tables
        )
        results.append(pairing)
        if progress is not None:
            progress(pairing)
    return results


def cross_cells(pairings: Sequence[Pairing]) -> dict[tuple[str, str], str]:
    """``(row, column) -> "+0.123 ± 0.045"``: the row agent's small bets per hand against
    the column's, both ways round."""
    cells: dict[tuple[str, str], str] = {}
    for p in pairings:
        half = (p.ci95[1] - p.ci95[0]) / 2
        cells[p.first, p.second] = f"{p.small_bets_per_hand:+.3f} ± {half:.3f}"
        cells[p.second, p.first] = f"{-p.small_bets_per_hand:+.3f} ± {half:.3f}"
    return cells


def markdown_table(pairings: Sequence[Pairing]) -> str:
    """The pairings as a Markdown cross table: row's small bets per hand against column."""
    names = list(dict.fromkeys(name for p in pairings for name in (p.first, p.second)))
    cells = cross_cells(pairings)
    lines = [
        "| row vs column | " + " | ".join(names) + " |",
        "| --- | " + " | ".join("---:" for _ in names) + " |",
    ]
    for row in names:
        entries = [cells.get((row, column), "") for column in names]
        lines.append(f"| {row} | " + " | ".join(entries) + " |")
    return "\n".join(lines)
