"""Exact heads-up preflop equity: poolshark next to eval7's Monte Carlo and a phevaluator loop.

Run from the repository root::

    python benchmarks/equity.py [--quick] [--seed N] [--json]

The deal is AhKh vs QdQc preflop (exact equity 0.462145 over 1,712,304 boards). Measured
side by side in one run:

* poolshark exact enumeration on one core (best of 5 after a warm-up call);
* poolshark Monte Carlo on one core with as many samples as eval7 needs for the target error;
* eval7's C Monte Carlo (``py_hand_vs_range_monte_carlo``) with enough samples for a
  standard error of 0.05 equity points (about 1 M samples): "matched error" is the
  cheapest a sampler can come near an exact answer;
* a Python loop over every board calling phevaluator twice (the whole enumeration, or with
  ``--quick`` the first 200,000 boards, extrapolated).

Also timed (poolshark only): a three-way preflop deal and hand vs a range on a flop.

The last line printed is one JSON object with these keys (times in seconds):

* ``exact_equity``: poolshark's exact equity of AhKh; ``exact_s``: its time on one core.
* ``mc_samples``: samples given to both samplers; ``poolshark_mc_s``, ``eval7_mc_s``: their
  times; ``poolshark_mc_equity``, ``eval7_mc_equity`` and ``mc_std_error``: their answers.
* ``phevaluator_loop_s``: the Python loop's time for all boards (extrapolated when
  ``phevaluator_loop_extrapolated`` is true); ``phevaluator_loop_equity``: its answer.
* ``ratio_eval7_mc_vs_exact``, ``ratio_phevaluator_loop_vs_exact``: peer time over poolshark
  exact time.
* ``three_way_exact_s``: AhKh vs QdQc vs JsTs preflop; ``hand_vs_range_flop_s``: AhKh vs
  "QQ+,AKs,AQs,KQs" on 2h7hQc, both exact on one core.
* ``quick`` and ``seed``: the options given.
"""

from __future__ import annotations

from itertools import combinations

import eval7
from phevaluator import evaluate_cards

from common import best_of, emit, parse_args, print_table
from poolshark.cards.card import parse_cards
from poolshark.cards.ranges import Range
from poolshark.equity.exact import exact_equity
from poolshark.equity.montecarlo import monte_carlo_equity

TARGET_STD_ERROR = 0.0005
HERO, VILLAIN = "AhKh", "QdQc"


def phevaluator_loop(hero: list[int], villain: list[int], limit: int | None) -> tuple[float, int]:
    """Equity of ``hero`` by enumerating boards in Python (first ``limit`` boards); (equity, n)."""
    deck = [c for c in range(52) if c not in hero and c not in villain]
    won = tied = seen = 0
    h1, h2 = hero
    v1, v2 = villain
    for board in combinations(deck, 5):
        ours = evaluate_cards(h1, h2, *board)
        theirs = evaluate_cards(v1, v2, *board)
        won += ours < theirs  # phevaluator: lower is better
        tied += ours == theirs
        seen += 1
        if limit is not None and seen >= limit:
            break
    return (won + tied / 2) / seen, seen


def main() -> None:
    """Time every contender on the same deal and print the table and the JSON line."""
    args = parse_args(__doc__ or "")
    hero, villain = parse_cards(HERO), parse_cards(VILLAIN)
    players = [Range.parse(HERO), Range.parse(VILLAIN)]

    exact_equity(players, threads=1)  # warm-up: numba cache load or compile
    exact_s = best_of(lambda: exact_equity(players, threads=1), 5)
    exact = exact_equity(players, threads=1).equities[0]

    samples = int(exact * (1 - exact) / TARGET_STD_ERROR**2)
    if args.quick:
        samples //= 4
    eval7_hand = [eval7.Card(c) for c in (HERO[:2], HERO[2:])]
    eval7_range = eval7.HandRange(VILLAIN)
    eval7_s = best_of(
        lambda: eval7.py_hand_vs_range_monte_carlo(eval7_hand, eval7_range, [], samples), 3
    )
    eval7_equity = eval7.py_hand_vs_range_monte_carlo(eval7_hand, eval7_range, [], samples)
    monte_carlo_equity(players, samples=4096, seed=args.seed, threads=1)
    poolshark_mc_s = best_of(
        lambda: monte_carlo_equity(players, samples=samples, seed=args.seed, threads=1), 3
    )
    sampled = monte_carlo_equity(players, samples=samples, seed=args.seed, threads=1)
    std_error = (exact * (1 - exact) / samples) ** 0.5

    limit = 200_000 if args.quick else None
    loop_s = best_of(lambda: phevaluator_loop(hero, villain, limit), 1)
    loop_equity, loop_boards = phevaluator_loop(hero, villain, limit)
    loop_full_s = loop_s * 1_712_304 / loop_boards

    three = [Range.parse(HERO), Range.parse(VILLAIN), Range.parse("JsTs")]
    exact_equity(three, threads=1)
    three_s = best_of(lambda: exact_equity(three, threads=1), 3)
    flop = parse_cards("2h7hQc")
    vs_range = [Range.parse(HERO), Range.parse("QQ+,AKs,AQs,KQs")]
    exact_equity(vs_range, flop, threads=1)
    range_s = best_of(lambda: exact_equity(vs_range, flop, threads=1), 3)

    loop_label = "phevaluator Python loop" + (" (time extrapolated)" if limit else "")
    rows: list[list[object]] = [
        ["poolshark exact (1 core)", "1,712,304 boards", f"{exact:.6f}", "0", exact_s, 1.0],
        [
            "poolshark Monte Carlo (1 core)",
            f"{samples:,} samples",
            f"{sampled.equities[0]:.6f}",
            f"{std_error:.6f}",
            poolshark_mc_s,
            poolshark_mc_s / exact_s,
        ],
        [
            "eval7 Monte Carlo (C)",
            f"{samples:,} samples",
            f"{eval7_equity:.6f}",
            f"{std_error:.6f}",
            eval7_s,
            eval7_s / exact_s,
        ],
        [
            loop_label,
            f"{loop_boards:,} boards",
            f"{loop_equity:.6f}" if limit is None else "(partial)",
            "0",
            loop_full_s,
            loop_full_s / exact_s,
        ],
    ]
    if not args.json:
        print_table(
            f"{HERO} vs {VILLAIN} preflop: time to an answer",
            ["method", "work", "equity", "std error", "seconds", "x poolshark exact"],
            rows,
        )
        print_table(
            "More exact deals (poolshark, 1 core)",
            ["deal", "seconds"],
            [
                ["AhKh vs QdQc vs JsTs preflop", three_s],
                ["AhKh vs QQ+,AKs,AQs,KQs on 2h7hQc", range_s],
            ],
        )
    emit(
        {
            "exact_equity": exact,
            "exact_s": exact_s,
            "mc_samples": samples,
            "poolshark_mc_s": poolshark_mc_s,
            "poolshark_mc_equity": sampled.equities[0],
            "eval7_mc_s": eval7_s,
            "eval7_mc_equity": eval7_equity,
            "mc_std_error": std_error,
            "phevaluator_loop_s": loop_full_s,
            "phevaluator_loop_equity": loop_equity,
            "phevaluator_loop_extrapolated": limit is not None,
            "ratio_eval7_mc_vs_exact": eval7_s / exact_s,
            "ratio_phevaluator_loop_vs_exact": loop_full_s / exact_s,
            "three_way_exact_s": three_s,
            "hand_vs_range_flop_s": range_s,
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
