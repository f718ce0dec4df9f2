"""13x13 chart data for the pages: the heads-up shove/fold equilibrium at a stack depth.

Charts go to the browser as 169 class frequencies in chart order
(:data:`poolshark.cards.combos.CLASS_NAMES`: AA top-left, suited above the diagonal) with
the palette of :data:`poolshark.report.range_chart.PALETTE`, so the page's chart
(``static/chart13.js``) looks like every other range chart of the project. The
equilibrium is :func:`poolshark.solve.solvers.solve_exact` on the cached exact preflop
matrices, as ``poolshark solve shove-fold`` computes it; solved depths are kept.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from poolshark.cards.combos import CLASS_NAMES
from poolshark.equity.matrix import cached_matrices
from poolshark.report.range_chart import PALETTE, class_frequencies
from poolshark.solve.shove_fold import ShoveFoldGame, fraction_of_combos, payoffs
from poolshark.solve.solvers import solve_exact

MIN_DEPTH_BB = 1.0
MAX_DEPTH_BB = 25.0
"""The depths the page may ask for (the range of ``docs/push-fold-1-25bb.csv``)."""


class ChartUnavailableError(RuntimeError):
    """The chart cannot be computed on this server yet (the matrices are not built)."""


def chart(name: str, title: str, frequencies: Any) -> dict[str, Any]:
    """One chart as JSON: 169 frequencies in chart order, rounded to 1e-4."""
    return {
        "name": name,
        "title": title,
        "frequencies": [round(float(value), 4) for value in frequencies],
    }


def palette() -> list[list[Any]]:
    """:data:`PALETTE` as JSON: ``[[at, [r, g, b]], ...]``."""
    return [[at, list(rgb)] for at, rgb in PALETTE]


@lru_cache(maxsize=64)
def shove_fold_charts(depth_bb: float) -> dict[str, Any]:
    """Both seats' equilibrium charts of heads-up shove/fold at ``depth_bb`` (0.1 bb
    steps, no ante), with the game's value and the solution's exploitability."""
    if not MIN_DEPTH_BB <= depth_bb <= MAX_DEPTH_BB:
        raise ValueError(f"depth must be {MIN_DEPTH_BB:g} to {MAX_DEPTH_BB:g} bb, not {depth_bb:g}")
    matrices = cached_matrices()
    if matrices is None:
        raise ChartUnavailableError(
            "the exact preflop matrices are not built on this server yet: run "
            "`poolshark solve shove-fold` once (a few minutes), then ask again"
        )
    game = ShoveFoldGame(stack=round(depth_bb, 1))
    solution = solve_exact(payoffs(game, matrices))
    return {
        "depth_bb": game.stack,
        "classes": list(CLASS_NAMES),
        "palette": palette(),
        "charts": [
            chart(
                "sb-shove",
                f"Small blind shoves at {game.stack:g} bb",
                class_frequencies(solution.shove),
            ),
            chart(
                "bb-call", f"Big blind calls at {game.stack:g} bb", class_frequencies(solution.call)
            ),
        ],
        "sb_shove_fraction": fraction_of_combos(solution.shove),
        "bb_call_fraction": fraction_of_combos(solution.call),
        "sb_value_bb": solution.exploitability.value,
        "exploitability_bb": solution.exploitability.total,
    }
