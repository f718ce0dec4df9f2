"""Limit CFR: iterations per second and exploitability, fast solver against the reference.

Run from the repository root::

    python benchmarks/limit_cfr.py [--quick] [--seed N] [--json]

* Leduc hold'em: the plain tabular reference (``solve/cfr_reference.py``) and the
  vectorised solver (``solve/limit_cfr.py``) run CFR+ for the same iterations (their
  iterates are equal, so is their exploitability); the speed ratio is measured in this
  run (the reference timed over its iterations only, the fast solver over a longer run
  that includes one exact best response). The fast solver then runs longer with CFR+ and with DCFR.
* Synthetic hold'em: ``HOLDEM_BETTING`` (the full 6,378-decision tree) over a random
  chance model of 5 buckets a round (5, 25, 125, 625 sequences), seeded by ``--seed``;
  CFR+ and DCFR for 150 iterations (3 with ``--quick``), exploitability measured exactly
  at checkpoints, in milli big blinds per hand (the big blind is 2 chips).

The last line printed is one JSON object with these keys:

* ``leduc_reference_it_s``, ``leduc_fast_it_s``, ``leduc_speedup``: iterations per second
  and their ratio; ``leduc_same_iterates_exploitability``: both solvers' exploitability
  after the reference's iterations (chips per hand), and their difference ``leduc_gap``.
* ``leduc_cfr_plus`` / ``leduc_dcfr``: ``{iterations, seconds, value, exploitability}``.
* ``holdem_buckets`` and ``holdem``: per algorithm (``cfr+``, ``dcfr``) ``iterations``,
  ``it_s``, ``seconds`` (wall), ``cpu_s`` (process CPU time, BLAS threads included),
  ``value``, ``exploitability_mbb`` and ``curve_mbb`` (``[iteration, mbb/hand]`` pairs).
* ``load_average``: the machine's 1-minute load when the run ended (times are wall
  clock, and this machine is shared).
* ``quick`` and ``seed``: the options given.
"""

from __future__ import annotations

import os
import time

from common import emit, parse_args, print_table
from poolshark.solve.cfr_reference import (
    ReferenceCfr,
    reference_exploitability,
    reference_game_value,
)
from poolshark.solve.limit_cfr import Algorithm, SolveResult, random_bucket_game, solve
from poolshark.solve.limit_game import HOLDEM_BETTING, leduc

ALGORITHMS_COMPARED: tuple[Algorithm, ...] = ("cfr+", "dcfr")
BIG_BLIND_CHIPS = 2
"""``HOLDEM_BETTING`` counts chips of half a small bet: the big blind is 2."""


def mbb(chips: float) -> float:
    """Chips per hand of ``HOLDEM_BETTING`` in milli big blinds per hand."""
    return chips / BIG_BLIND_CHIPS * 1000


def summary(result: SolveResult) -> dict[str, float]:
    """The figures of one solve run."""
    return {
        "iterations": result.iterations,
        "seconds": result.seconds,
        "value": result.value,
        "exploitability": result.exploitability,
    }


def main() -> None:
    """Time both solvers on Leduc and the fast one on synthetic hold'em; print the figures."""
    args = parse_args(__doc__ or "")
    game = leduc()

    reference_iterations = 10 if args.quick else 40
    solver = ReferenceCfr(game, "cfr+")
    started = time.perf_counter()
    for _ in range(reference_iterations):
        solver.iterate()
    reference_s = time.perf_counter() - started  # iterations only
    reference_strategy = solver.average()
    reference_value = reference_game_value(game, reference_strategy)
    reference_gap = reference_exploitability(game, reference_strategy)
    same = solve(game, reference_iterations, checkpoints=())
    gap = abs(same.exploitability - reference_gap)

    long_iterations = 500 if args.quick else 2000
    plus = solve(game, long_iterations, checkpoints=())
    discounted = solve(game, long_iterations, algorithm="dcfr", checkpoints=())
    fast_it_s = plus.iterations / plus.seconds
    reference_it_s = reference_iterations / reference_s
    if not args.json:
        print_table(
            "Leduc hold'em (value -0.0856)",
            ["solver", "iterations", "seconds", "it/s", "value", "exploitability"],
            [
                [
                    "reference CFR+",
                    reference_iterations,
                    reference_s,
                    reference_it_s,
                    reference_value,
                    reference_gap,
                ],
                [
                    "fast CFR+ (same)",
                    reference_iterations,
                    same.seconds,
                    "(setup)",
                    same.value,
                    same.exploitability,
                ],
                [
                    "fast CFR+",
                    long_iterations,
                    plus.seconds,
                    fast_it_s,
                    plus.value,
                    plus.exploitability,
                ],
                [
                    "fast DCFR",
                    long_iterations,
                    discounted.seconds,
                    discounted.iterations / discounted.seconds,
                    discounted.value,
                    discounted.exploitability,
                ],
            ],
        )

    buckets = 5
    holdem = random_bucket_game(HOLDEM_BETTING, (buckets,) * 4, seed=args.seed, name="holdem-5")
    holdem_iterations = 3 if args.quick else 150
    checkpoints = (1, 3) if args.quick else (1, 10, 20, 50, 100, 150)
    holdem_runs: dict[str, dict[str, object]] = {}
    curves: dict[str, list[list[float]]] = {}
    for algorithm in ALGORITHMS_COMPARED:
        cpu_started = time.process_time()
        result = solve(holdem, holdem_iterations, algorithm=algorithm, checkpoints=checkpoints)
        curves[algorithm] = [[t, mbb(g)] for t, g in result.curve]
        holdem_runs[algorithm] = {
            "iterations": result.iterations,
            "it_s": result.iterations / result.seconds,
            "seconds": result.seconds,
            "cpu_s": time.process_time() - cpu_started,
            "value": result.value,
            "exploitability_mbb": mbb(result.exploitability),
            "curve_mbb": curves[algorithm],
        }
    if not args.json:
        plus_curve, dcfr_curve = (curves[a] for a in ALGORITHMS_COMPARED)
        print_table(
            f"Synthetic hold'em, {buckets} buckets a round (seed {args.seed}): exploitability",
            ["iteration", "CFR+ (mbb/hand)", "DCFR (mbb/hand)"],
            [[int(p[0]), p[1], d[1]] for p, d in zip(plus_curve, dcfr_curve, strict=True)],
        )
        for name, run in holdem_runs.items():
            print(
                f"{name}: {run['iterations']} iterations in {run['seconds']:.1f} s wall, "
                f"{run['cpu_s']:.1f} s CPU over all threads (checkpoints included)"
            )

    emit(
        {
            "leduc_reference_it_s": reference_it_s,
            "leduc_fast_it_s": fast_it_s,
            "leduc_speedup": fast_it_s / reference_it_s,
            "leduc_same_iterates_exploitability": reference_gap,
            "leduc_gap": gap,
            "leduc_cfr_plus": summary(plus),
            "leduc_dcfr": summary(discounted),
            "holdem_buckets": buckets,
            "holdem": holdem_runs,
            "load_average": os.getloadavg()[0],
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
