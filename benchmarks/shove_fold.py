"""Heads-up shove/fold: time to an equilibrium for each solver, and the push/fold sweep.

Run from the repository root::

    python benchmarks/shove_fold.py [--quick] [--seed N] [--json] [--plot PATH]

Needs the exact preflop matrices (built once and cached by ``poolshark equity matrix``).
At 10 bb with no ante, each solver runs from scratch and its exploitability is measured
by the exact best response. There is no peer library for this game that runs here, so the
ratios compare with the slower solvers of this project: the seed's approach (gradient
descent) and fictitious play, next to the exact linear program. The sweep solves 1 to 25
bb in 0.1 bb steps with the exact method (with ``--quick``: 1 to 25 in 1 bb steps).
``--plot PATH`` also draws exploitability against iterations for the two iterative solvers.

The last line printed is one JSON object with these keys (times in seconds):

* ``exact_s``, ``gradient_s``, ``fictitious_s``: solve time at 10 bb.
* ``exact_exploitability``, ``gradient_exploitability``, ``fictitious_exploitability``:
  in bb per hand (mean best-response gain over the two seats).
* ``shove_fraction``, ``call_fraction``, ``sb_value_bb``: the exact equilibrium.
* ``ratio_gradient_vs_exact``, ``ratio_fictitious_vs_exact``: time over exact time.
* ``sweep_stacks``, ``sweep_s``: stacks solved and the total time;
  ``sweep_max_exploitability``: the worst exploitability over the sweep.
* ``quick`` and ``seed``: the options given.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from common import emit, print_table
from poolshark.equity.matrix import preflop_matrices
from poolshark.solve.shove_fold import ShoveFoldGame, fraction_of_combos, payoffs
from poolshark.solve.solvers import Solution, solve_exact, solve_fictitious, solve_gradient
from poolshark.solve.sweep import stack_grid, sweep


def plot_convergence(solutions: list[Solution], path: Path) -> None:
    """Exploitability against iterations, log scale, for the iterative solvers."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4.2), layout="constrained")
    axes = figure.add_subplot()
    for solution in solutions:
        steps = [max(step, 1) for step, _ in solution.curve]
        values = [max(value, 1e-9) for _, value in solution.curve]
        axes.plot(steps, values, label=f"{solution.method} ({solution.seconds:.1f} s)")
    axes.axhline(1e-3, color="#999", linestyle="--", linewidth=1, label="0.001 bb/hand")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("iteration")
    axes.set_ylabel("exploitability (bb per hand)")
    axes.set_title("Shove/fold at 10 bb: convergence to equilibrium")
    axes.legend()
    axes.grid(True, which="major", alpha=0.3)
    figure.savefig(path, dpi=120)


def main() -> None:
    """Solve with each method, sweep the stacks, print the table and the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a run under a minute")
    parser.add_argument("--seed", type=int, default=0, help="seed of the gradient method")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    parser.add_argument("--plot", type=Path, help="write the convergence plot here")
    args = parser.parse_args(sys.argv[1:])

    matrices = preflop_matrices()
    game_payoffs = payoffs(ShoveFoldGame(stack=10), matrices)
    exact = solve_exact(game_payoffs)
    gradient = solve_gradient(game_payoffs, seed=args.seed, iterations=1500 if args.quick else 3000)
    fictitious = solve_fictitious(game_payoffs, iterations=5000 if args.quick else 20000)

    stacks = stack_grid(1, 25, 1.0 if args.quick else 0.1)
    started = time.perf_counter()
    table = sweep(matrices, stacks)
    sweep_s = time.perf_counter() - started
    worst = max(row.exploitability for row in table.rows)

    if args.plot is not None:
        plot_convergence([gradient, fictitious], args.plot)
    if not args.json:
        print_table(
            "Shove/fold at 10 bb, no ante: time to an equilibrium",
            ["solver", "seconds", "exploitability bb/hand", "shove %", "call %", "x exact"],
            [
                [
                    s.method,
                    s.seconds,
                    f"{s.exploitability.total:.1e}",
                    f"{100 * fraction_of_combos(s.shove):.2f}",
                    f"{100 * fraction_of_combos(s.call):.2f}",
                    s.seconds / exact.seconds,
                ]
                for s in (exact, gradient, fictitious)
            ],
        )
        print_table(
            "Push/fold sweep (exact)",
            ["stacks", "seconds", "per stack", "worst exploitability"],
            [[len(stacks), sweep_s, sweep_s / len(stacks), f"{worst:.1e}"]],
        )
    emit(
        {
            "exact_s": exact.seconds,
            "gradient_s": gradient.seconds,
            "fictitious_s": fictitious.seconds,
            "exact_exploitability": exact.exploitability.total,
            "gradient_exploitability": gradient.exploitability.total,
            "fictitious_exploitability": fictitious.exploitability.total,
            "shove_fraction": fraction_of_combos(exact.shove),
            "call_fraction": fraction_of_combos(exact.call),
            "sb_value_bb": exact.exploitability.value,
            "ratio_gradient_vs_exact": gradient.seconds / exact.seconds,
            "ratio_fictitious_vs_exact": fictitious.seconds / exact.seconds,
            "sweep_stacks": len(stacks),
            "sweep_s": sweep_s,
            "sweep_max_exploitability": worst,
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
