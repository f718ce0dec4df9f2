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
  CFR+ with exploitability measured exactly at checkpoints, in chips and in milli big
  blinds per hand (the big blind is 2 chips).

The last line printed is one JSON object with these keys:

* ``leduc_reference_it_s``, ``leduc_fast_it_s``, ``leduc_speedup``: iterations per second
  and their ratio; ``leduc_same_iterates_exploitability``: both solvers' exploitability
  after the reference's iterations (chips per hand), and their difference ``leduc_gap``.
* ``leduc_cfr_plus`` / ``leduc_dcfr``: ``{iterations, seconds, value, exploitability}``.
* ``holdem_buckets``, ``holdem_iterations``, ``holdem_it_s``, ``holdem_seconds`` (wall),
  ``holdem_cpu_s`` (process CPU time, BLAS threads included), ``holdem_value``,
  ``holdem_exploitability_mbb`` and ``holdem_curve_mbb`` (``[iteration, mbb/hand]`` pairs).
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
from poolshark.solve.limit_cfr import SolveResult, random_bucket_game, solve
from poolshark.solve.limit_game import HOLDEM_BETTING, leduc

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
                    reference_iterations / same.seconds,
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
    holdem_iterations = 4 if args.quick else 100
    checkpoints = (1, holdem_iterations) if args.quick else (1, 10, 20, 50, 100)
    cpu_started = time.process_time()
    result = solve(holdem, holdem_iterations, checkpoints=checkpoints)
    cpu_s = time.process_time() - cpu_started
    curve = [[t, mbb(gap)] for t, gap in result.curve]
    if not args.json:
        print_table(
            f"Synthetic hold'em, {buckets} buckets a round (seed {args.seed}), CFR+",
            ["iteration", "exploitability (mbb/hand)"],
            [[t, value] for t, value in curve],
        )
        print(
            f"{result.iterations} iterations in {result.seconds:.1f} s "
            f"({result.iterations / result.seconds:.2f} it/s, checkpoints included; "
            f"{cpu_s:.1f} s of CPU over all threads); "
            f"value {result.value:+.4f} chips per hand"
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
            "holdem_iterations": result.iterations,
            "holdem_it_s": result.iterations / result.seconds,
            "holdem_seconds": result.seconds,
            "holdem_cpu_s": cpu_s,
            "holdem_value": result.value,
            "holdem_exploitability_mbb": curve[-1][1],
            "holdem_curve_mbb": curve,
            "load_average": os.getloadavg()[0],
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
