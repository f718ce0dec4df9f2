"""Push/fold tables: solve shove/fold exactly over a range of stack depths.

For each of the 169 classes the table gives the largest stack (on the swept grid) at which
the equilibrium shoves it, and the largest at which the big blind calls it (a class counts
as played when at least half its combos' frequency is). Some classes are played at small
and large stacks but not in between; the table reports the largest, as charts do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from poolshark.cards.combos import CLASS_NAMES, N_CLASSES, class_combos
from poolshark.equity.matrix import PreflopMatrices
from poolshark.solve.shove_fold import ShoveFoldGame, Vector, fraction_of_combos, payoffs
from poolshark.solve.solvers import solve_exact


@dataclass(frozen=True)
class SweepRow:
    """Equilibrium summary at one stack depth."""

    stack: float
    shove_fraction: float
    call_fraction: float
    sb_value: float
    exploitability: float


@dataclass(frozen=True)
class PushFoldTable:
    """Largest stack at which each class is shoved / called (0: never on the grid)."""

    stacks: list[float]
    max_shove: Vector  # (169,)
    max_call: Vector  # (169,)
    rows: list[SweepRow]

    def to_json(self) -> dict[str, object]:
        """Plain JSON-ready dict: the grid, per-stack summaries and the per-class table."""
        return {
            "stacks": self.stacks,
            "rows": [row.__dict__ for row in self.rows],
            "classes": {
                name: {"max_shove_bb": float(s), "max_call_bb": float(c)}
                for name, s, c in zip(CLASS_NAMES, self.max_shove, self.max_call, strict=True)
            },
        }

    def to_csv(self) -> str:
        """``class,max_shove_bb,max_call_bb`` lines in chart order."""
        lines = ["class,max_shove_bb,max_call_bb"]
        for name, shove, call in zip(CLASS_NAMES, self.max_shove, self.max_call, strict=True):
            lines.append(f"{name},{shove:g},{call:g}")
        return "\n".join(lines) + "\n"


def stack_grid(low: float, high: float, step: float = 0.1) -> list[float]:
    """Stacks from ``low`` up to ``high`` (inclusive when on the grid) in ``step`` increments."""
    if not 0 < low <= high or step <= 0:
        raise ValueError(f"bad stack range {low}:{high}:{step}")
    count = int((high - low) / step + 1e-9) + 1
    return [round(low + i * step, 6) for i in range(count)]


def sweep(
    matrices: PreflopMatrices,
    stacks: list[float],
    *,
    small_blind: float = 0.5,
    ante: float = 0.0,
    progress: Callable[[int, int], None] | None = None,
) -> PushFoldTable:
    """Solve every stack of the grid exactly and tabulate the push/fold chart."""
    representative = np.array([class_combos(c)[0] for c in range(N_CLASSES)])
    max_shove = np.zeros(N_CLASSES)
    max_call = np.zeros(N_CLASSES)
    rows = []
    for done, stack in enumerate(stacks, start=1):
        game = ShoveFoldGame(stack=stack, small_blind=small_blind, ante=ante)
        solution = solve_exact(payoffs(game, matrices))
        shoved = solution.shove[representative] >= 0.5
        called = solution.call[representative] >= 0.5
        max_shove[shoved] = np.maximum(max_shove[shoved], stack)
        max_call[called] = np.maximum(max_call[called], stack)
        rows.append(
            SweepRow(
                stack,
                fraction_of_combos(solution.shove),
                fraction_of_combos(solution.call),
                solution.exploitability.value,
                solution.exploitability.total,
            )
        )
        if progress is not None:
            progress(done, len(stacks))
    return PushFoldTable(stacks, max_shove, max_call, rows)
