"""Build time of the exact 1326x1326 preflop matrices on all cores, next to a phevaluator loop.

Run from the repository root::

    python benchmarks/equity_matrix.py [--quick] [--seed N] [--json]

The matrices need one exact enumeration (1,712,304 boards) per unordered suit class of
preflop matchups: 47,008 of them. This script enumerates all of them on every core, as
``poolshark equity matrix`` does, without touching the cache (with ``--quick``: 1,000
classes drawn with ``--seed``, extrapolated). The peer is the plain approach: a Python loop
calling phevaluator for both hands of every board of one matchup, timed on 20,000 boards
and extrapolated to the whole build.

The last line printed is one JSON object with these keys (times in seconds):

* ``classes``: suit classes in the build (47,008); ``classes_timed``: how many were run.
* ``build_s``: time for all classes (extrapolated when ``extrapolated`` is true);
  ``per_class_ms``: wall time per class; ``cores``: cores used.
* ``phevaluator_loop_build_s``: the Python loop's estimate for the same build, one core.
* ``ratio_phevaluator_loop_vs_build``: that estimate over ``build_s``.
* ``under_10_minutes``: whether ``build_s`` is under 600.
* ``quick`` and ``seed``: the options given.
"""

from __future__ import annotations

import os
import time
from itertools import combinations

import numpy as np
from phevaluator import evaluate_cards

from common import emit, parse_args, print_table
from poolshark.cards.combos import COMBO_CARDS
from poolshark.equity.enumeration import enumerate_chunks
from poolshark.equity.matrix import canonical_matchups

LOOP_BOARDS = 20_000


def loop_seconds_per_class(first: list[int], second: list[int]) -> float:
    """Seconds a Python phevaluator loop needs for one matchup's 1,712,304 boards."""
    deck = [c for c in range(52) if c not in first and c not in second]
    started = time.perf_counter()
    for n, board in enumerate(combinations(deck, 5)):
        evaluate_cards(*first, *board) < evaluate_cards(*second, *board)  # noqa: B015
        if n + 1 >= LOOP_BOARDS:
            break
    return (time.perf_counter() - started) * 1_712_304 / LOOP_BOARDS


def main() -> None:
    """Enumerate the classes, time them, and print the table and the JSON line."""
    args = parse_args(__doc__ or "")
    representatives, _, _ = canonical_matchups()
    classes = len(representatives)
    chosen = representatives
    if args.quick:
        rng = np.random.default_rng(args.seed)
        chosen = representatives[rng.choice(classes, size=1000, replace=False)]
    deals = [tuple(int(c) for c in pair) for pair in chosen]

    enumerate_chunks(deals[:2], (), (), None, None)  # warm-up: numba cache load or compile
    started = time.perf_counter()
    enumerate_chunks(deals, (), (), None, None)
    seconds = time.perf_counter() - started
    build_s = seconds * classes / len(deals)

    first, second = (COMBO_CARDS[c].tolist() for c in deals[0])
    loop_build_s = loop_seconds_per_class(first, second) * classes
    cores = os.cpu_count() or 1
    label = "poolshark, all cores" + (" (extrapolated)" if args.quick else "")
    if not args.json:
        print_table(
            f"Exact preflop matrices: {classes:,} matchup classes x 1,712,304 boards",
            ["method", "classes timed", "build seconds", "minutes", "x poolshark"],
            [
                [label, len(deals), build_s, build_s / 60, 1.0],
                [
                    "phevaluator Python loop, 1 core (extrapolated)",
                    LOOP_BOARDS,
                    loop_build_s,
                    loop_build_s / 60,
                    loop_build_s / build_s,
                ],
            ],
        )
    emit(
        {
            "classes": classes,
            "classes_timed": len(deals),
            "build_s": build_s,
            "per_class_ms": 1000 * build_s / classes,
            "cores": cores,
            "extrapolated": args.quick,
            "phevaluator_loop_build_s": loop_build_s,
            "ratio_phevaluator_loop_vs_build": loop_build_s / build_s,
            "under_10_minutes": build_s < 600,
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
