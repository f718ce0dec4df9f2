"""Variance reduction in matches: interval widths with and without the AIVAT corrections.

Run from the repository root::

    python benchmarks/variance.py [--quick] [--seed N] [--json] [--exploiter PATH]

For each matchup one match is played with ``variance_reduction=True`` (the plain figures
come from the same hands: the corrections change nothing else) and, for the cost, the same
match again without it. For the first agent it reports the 95% half-widths of the actual
result, the all-in-EV-adjusted result, plain AIVAT (every value correction weighed one)
and AIVAT (corrections weighed by cross-fitted coefficients, the ``aivat`` figure), and
the ratio of hands needed for equal width, ``(w_actual / w_aivat) ** 2`` (also against the
EV-adjusted width). Matchups (6-max unless said, 100 bb, blinds 1/2, one core):

* ``tag`` (exact moves: no known policy) against ``pool:micro-zoom`` (styles: known rows);
* ``station`` (exact moves) against ``pool:micro-zoom``;
* ``random`` (known probabilities) against ``pool:micro-zoom``;
* ``zoom-reg`` against ``style:station``, heads-up (both known);
* with ``--exploiter PATH``: that checkpoint (known probabilities) against micro-zoom.

The last line printed is one JSON object: ``matchups`` (per matchup: ``hands``, the four
``*_half_width`` figures and ``bb_per_100`` of each, ``hands_ratio`` and
``hands_ratio_vs_ev``, ``slowdown``: seconds with the corrections over seconds without),
``quick`` and ``seed``.
"""

from __future__ import annotations

import argparse
import sys

from common import emit, print_table
from poolshark.agents import load_agent
from poolshark.evaluate import Estimate, MatchConfig, MatchResult, default_lineup, play_match


def options() -> argparse.Namespace:
    """The common benchmark options and ``--exploiter``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small matches (under a minute)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every match (default 0)")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    parser.add_argument("--exploiter", help="an exploiter checkpoint to add as a matchup")
    return parser.parse_args()


def match(specs: list[str], seats: int, hands: int, seed: int, *, reduced: bool) -> MatchResult:
    """The first spec against the rest: one seat against a field, or in turn heads-up."""
    agents = [load_agent(spec) for spec in specs]
    lineup = default_lineup(len(agents), seats, against=seats > 2)
    config = MatchConfig(hands=hands, seats=seats, seed=seed, variance_reduction=reduced)
    return play_match(agents, lineup, config, names=specs)


def width(estimate: Estimate | None) -> float:
    """The 95% half-width (bb/100)."""
    if estimate is None:
        raise ValueError("the match did not report this estimate")
    return estimate.half_width


def main() -> None:
    args = options()
    hands = 4_000 if args.quick else 40_000
    matchups: list[tuple[str, list[str], int]] = [
        ("tag vs micro-zoom", ["tag", "pool:micro-zoom"], 6),
        ("station vs micro-zoom", ["station", "pool:micro-zoom"], 6),
        ("random vs micro-zoom", ["random", "pool:micro-zoom"], 6),
        ("zoom-reg vs style:station, heads-up", ["zoom-reg", "style:station"], 2),
    ]
    if args.exploiter:
        matchups.append(("exploiter vs micro-zoom", [args.exploiter, "pool:micro-zoom"], 6))
    match(["tag", "pool:micro-zoom"], 6, 300, args.seed, reduced=True)  # compile, warm up
    figures: dict[str, dict[str, object]] = {}
    rows: list[list[object]] = []
    for name, specs, seats in matchups:
        reduced = match(specs, seats, hands, args.seed, reduced=True)
        plain = match(specs, seats, hands, args.seed, reduced=False)
        first = reduced.agents[0]
        estimates = {
            "actual": first.actual,
            "ev": first.ev_adjusted,
            "aivat_plain": first.aivat_plain,
            "aivat": first.aivat,
        }
        widths = {key: width(value) for key, value in estimates.items()}
        ratio = (widths["actual"] / widths["aivat"]) ** 2
        ratio_ev = (widths["ev"] / widths["aivat"]) ** 2
        slowdown = reduced.seconds / plain.seconds
        figures[name] = {
            "hands": reduced.table_hands,
            **{f"{key}_half_width": value for key, value in widths.items()},
            **{
                f"{key}_bb_per_100": value.bb_per_100
                for key, value in estimates.items()
                if value is not None
            },
            "hands_ratio": ratio,
            "hands_ratio_vs_ev": ratio_ev,
            "slowdown": slowdown,
            "hands_per_s": reduced.table_hands / reduced.seconds,
            "plain_hands_per_s": plain.table_hands / plain.seconds,
        }
        rows.append(
            [
                name,
                reduced.table_hands,
                *(f"{v.bb_per_100:+.1f} ±{v.half_width:.1f}" for v in estimates.values() if v),
                ratio,
                ratio_ev,
                slowdown,
            ]
        )
        if not args.json:
            print(f"done: {name}", file=sys.stderr)
    if not args.json:
        print_table(
            "First agent's bb/100 ± 95% half-width; hands ratio = (w_actual / w_aivat)^2",
            [
                "matchup",
                "hands",
                "actual",
                "EV-adjusted",
                "AIVAT plain",
                "AIVAT",
                "hands ratio",
                "vs EV",
                "slowdown",
            ],
            rows,
        )
    emit({"matchups": figures, "quick": args.quick, "seed": args.seed})


if __name__ == "__main__":
    main()
