"""The run report's headline sections: figures with 95% intervals across training seeds
and deals, how they were made, the per-seed figures, calibration, the issue's done-means
checks, the ceiling's learning curve with its plateau test, and the exploitability probe.

They read the figures the pipeline's ``exploiters``, ``evaluate`` and ``probe`` stages
record (``poolshark.experiments.headline`` computes the intervals).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from poolshark.report.html import Cell, HtmlReport
from poolshark.report.plots import RangeBar, interval_chart, learning_curves

EXPLOITERS = {
    "model": "exploiter (trained on the model)",
    "safe": "safe exploiter (KL to the model)",
    "ceiling": "ceiling (trained on the true styles)",
}
FIELDS = ("model", "true pool", "held-out model")
"""What every exploiter is evaluated against."""
CALIBRATION_LIMIT = 1.5
"""The issue's calibration check: the promised edge within this factor of the paid one."""


def bb(figure: Mapping[str, Any]) -> str:
    """An edge with its interval: ``+142.2 [+120.1, +164.3]``."""
    return f"{figure['estimate']:+.1f} [{_end(figure['low'])}, {_end(figure['high'])}]"


def ratio(figure: Mapping[str, Any] | None) -> str:
    """A ratio with its interval: ``0.87 [0.71, 1.05]``, or says it is unbounded; ``n/a``
    for a ratio not computed (a share of a ceiling that does not win)."""
    if figure is None:
        return "n/a"
    if figure["low"] is None or figure["high"] is None:
        return f"{figure['estimate']:.2f} [unbounded]"
    return f"{figure['estimate']:.2f} [{figure['low']:.2f}, {figure['high']:.2f}]"


def _end(value: float | None) -> str:
    return "unbounded" if value is None else f"{value:+.1f}"


def tone(figure: Mapping[str, Any]) -> str:
    """Green when the interval is above zero, red when below."""
    if figure["low"] is not None and figure["low"] > 0:
        return "good"
    if figure["high"] is not None and figure["high"] < 0:
        return "bad"
    return ""


def plateau_words(plateau: Mapping[str, Any]) -> str:
    """The ceiling's plateau verdict in a few words."""
    if not plateau.get("tested"):
        return "not tested"
    mean = plateau["mean"]
    return "reached" if mean["plateaued"] else "still rising"


def method_paragraph(summary: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    """How the intervals were made, in words."""
    seeds = summary["seeds"]
    return (
        f"Each of {seeds} training seeds trains its own three exploiters (the population "
        "models and the simulated hands are shared) and is evaluated on deals of its own "
        f"({config['eval_hands']:,} table-hands a match). A figure's value is the mean over "
        "seeds; its 95% interval is a t-interval on the per-seed values with one degree of "
        "freedom fewer than seeds, which holds both the seed-to-seed and the deal noise, "
        "since every seed's value carries its own deals' noise (with one seed: the match's "
        "normal interval, deal noise only). Ratios (share of the ceiling, promised / paid "
        "edge) are ratios of the means with Fieller's interval on the paired per-seed "
        "values; it is unbounded when the denominator is not clear of zero. The gap is the "
        "edge against the model minus the edge against the true pool, per seed. Method of "
        f"this run: {summary['method']}."
    )


def tuning_paragraph(tuning: Mapping[str, Any], pool: str) -> str:
    """Where the imputer's settings were tuned, against where this run reports."""
    base = (
        f"The imputer's settings (EM over-relaxation em_power = {tuning['em_power']:g}) were "
        f"chosen on the development pool {tuning['pool']}. "
    )
    if pool == tuning["pool"]:
        return base + (
            "This run reports that same pool: its figures are in sample and flatter the "
            "method. Honest figures come from the other pools."
        )
    return base + f"This run reports pool {pool}, which the tuning never touched."


def headline_sections(
    report: HtmlReport, figures: Mapping[str, Any], config: Mapping[str, Any]
) -> None:
    """The headline table, the method, the done-means checks, calibration and the
    per-seed figures."""
    evaluation = figures["evaluate"]
    summary = evaluation["headline"]
    exploiters = summary["exploiters"]
    report.section("Headline: means over seeds with 95% intervals across seeds and deals")
    report.paragraph(method_paragraph(summary, config))
    report.paragraph(tuning_paragraph(evaluation["tuning"], str(config["pool"])))
    shares = summary["share_of_ceiling"]
    report.table(
        ["exploiter", *(f"vs {f}" for f in FIELDS), "gap", "promised / paid", "share of ceiling"],
        [
            [
                EXPLOITERS[name],
                *(bb(exploiters[name][f]) for f in FIELDS),
                bb(exploiters[name]["gap"]),
                ratio(exploiters[name]["calibration"]),
                ratio(shares[name]) if name in shares else "",
            ]
            for name in EXPLOITERS
        ],
    )
    aivat_rows = [
        [EXPLOITERS[name], f"vs {field}", bb(exploiters[name][field]), bb(estimate)]
        for name in EXPLOITERS
        for field, estimate in (exploiters[name].get("aivat") or {}).items()
    ]
    if aivat_rows:
        report.paragraph(
            "AIVAT (control variates from the known policies, unbiased) beside the actual "
            "results: the same figure, the same seeds and deals, a narrower interval."
        )
        report.table(["exploiter", "field", "actual (EV adjusted)", "AIVAT"], aivat_rows)

    report.section("Done means")
    rows: list[list[Cell]] = [
        [
            check["check"],
            "" if check["interval"] is None else _any(check["interval"]),
            "yes" if check["met"] else "no",
            check.get("note", ""),
        ]
        for check in summary["done"]
    ]
    report.table(["check", "figure (95% interval)", "met", "note"], rows)

    report.section("Calibration: promised against paid")
    report.paragraph(
        "The edge the model promises (against the model the exploiter trained on) over the "
        "edge the true pool pays, per exploiter; inside the shaded band the promise is "
        f"within {CALIBRATION_LIMIT:g}x of what is paid. Beside it, the share of the "
        "ceiling exploiter's edge taken from the true pool."
    )
    calibration = [
        RangeBar(EXPLOITERS[name], f["estimate"], f["low"], f["high"])
        for name in EXPLOITERS
        for f in [exploiters[name]["calibration"]]
    ]
    share_bars = [
        RangeBar(EXPLOITERS[name], f["estimate"], f["low"], f["high"])
        for name, f in shares.items()
        if f is not None
    ]
    charts = [
        (
            interval_chart(
                calibration,
                x_label="promised / paid edge",
                reference=1.0,
                band=(1 / CALIBRATION_LIMIT, CALIBRATION_LIMIT),
            ),
            "promised / paid, 95% intervals (Fieller)",
        )
    ]
    if share_bars:
        charts.append(
            (
                interval_chart(share_bars, x_label="share of the ceiling's edge", reference=1.0),
                "share of the ceiling, 95% intervals (Fieller)",
            )
        )
    else:
        report.paragraph("No share of the ceiling: the ceiling's mean edge is not positive.")
    report.figures(charts)

    report.section("Per seed")
    report.paragraph(
        "Each training seed on its own deals: bb/100 with the match's 95% interval (deal "
        "noise only); the headline's intervals also hold the spread between these rows."
    )
    report.table(
        ["seed", "match seed", "exploiter", *(f"vs {f}" for f in FIELDS), "gap"],
        [
            [
                seed["seed"],
                seed["match_seed"],
                EXPLOITERS[name],
                *(f"{r[f]['bb_per_100']:+.1f} ± {r[f]['half_width']:.1f}" for f in FIELDS),
                f"{r['model']['bb_per_100'] - r['true pool']['bb_per_100']:+.1f}",
            ]
            for seed in evaluation["seeds"]
            for name in EXPLOITERS
            for r in [seed["exploiters"][name]]
        ],
    )


def _any(figure: Mapping[str, Any]) -> str:
    """An interval as bb/100, or as a ratio when its method says Fieller."""
    return ratio(figure) if "Fieller" in figure["method"] else bb(figure)


def plateau_section(
    report: HtmlReport, exploiters: Mapping[str, Any], config: Mapping[str, Any]
) -> None:
    """The ceiling's learning curve per seed and averaged, with the plateau test."""
    plateau = exploiters["ceiling_plateau"]
    report.section("Ceiling to convergence")
    curves = {
        f"seed {seed['seed']}": [row["bb_per_100"] for row in seed["ceiling"]["history"]]
        for seed in exploiters["seeds"]
    }
    if len(curves) > 1:
        curves["mean over seeds"] = list(plateau["curve"])
    text = (
        f"The ceiling exploiter trains {config['ceiling_iterations']} iterations against "
        f"the true styles (the others {config['exploiter_iterations']}). Its learning "
        "curve is the training win rate against the true pool per iteration. Plateau test "
        "on the mean curve: a straight line through its last third, and the last third's "
        "mean against the middle third's; the plateau is reached when neither the slope "
        "nor that rise is significantly above zero (one-sided 5% each). The slope's "
        "interval says how much more a longer run could still add."
    )
    if not plateau.get("tested"):
        report.paragraph(f"{text} Not tested: {plateau['reason']}.")
        report.figures([(learning_curves(curves), "ceiling's training win rate")])
        return
    report.paragraph(text)
    mean = plateau["mean"]
    first = mean["points"] - mean["window"] + 1
    fit = (first, mean["points"], mean["intercept"], mean["slope"])
    report.figures([(learning_curves(curves, fit=fit), "ceiling's training win rate")])
    rows = [("mean over seeds", mean)] + [
        (f"seed {seed['seed']}", test)
        for seed, test in zip(exploiters["seeds"], plateau["seeds"], strict=True)
    ]
    report.table(
        [
            "curve",
            "last third (iterations)",
            "slope, bb/100 per iteration [95%]",
            "last third minus middle third",
            "plateau",
        ],
        [
            [
                name,
                test["window"],
                f"{test['slope']:+.2f} [{test['slope_low']:+.2f}, {test['slope_high']:+.2f}]",
                _rise(test),
                "reached" if test["plateaued"] else "still rising",
            ]
            for name, test in rows
        ],
    )


def _rise(test: Mapping[str, Any]) -> str:
    """The last third's gain on the middle one, with its share of the level reached."""
    text = f"{test['change']:+.1f} ± {test['change_half_width']:.1f}"
    if test["last_mean"] > 0:
        text += f" ({test['change'] / test['last_mean']:+.0%} of the last third's mean)"
    return text


def probe_section(report: HtmlReport, probe: Mapping[str, Any]) -> None:
    """The exploitability probe's figures per seed and exploiter, when it ran."""
    if "seeds" not in probe:
        return
    report.section("How exploitable is the exploiter?")
    report.paragraph(
        "A fresh best response (PPO) trained against each frozen exploiter seated in the "
        "pool, as local best response is reported beside win rates in the literature. "
        "'Taken from the exploiter' is the exploiter's edge with a pool player in the "
        "probe's seat minus its edge beside the probe; 'probe's gain from the exploiter' is "
        "the probe's edge beside the exploiter minus its edge with a pool player in the "
        "exploiter's seat (the cleaner figure: it leaves out what the probe wins from the "
        "pool). bb/100 with 95% half widths."
    )
    rows: list[list[Cell]] = []
    for seed in probe["seeds"]:
        for name in ("model", "safe"):
            figures = seed.get(name)
            if not figures:
                continue
            rows.append(
                [
                    seed["seed"],
                    EXPLOITERS[name],
                    _plus_minus(figures["control"]["exploiter"]),
                    _plus_minus(figures["with_probe"]["exploiter"]),
                    _plus_minus(figures["with_probe"]["probe"]),
                    _plus_minus(figures["taken_from_exploiter"]),
                    _plus_minus(figures["probe_gain_from_exploiter"]),
                ]
            )
    report.table(
        [
            "seed",
            "exploiter",
            "exploiter's edge, no probe",
            "exploiter beside the probe",
            "probe's edge",
            "taken from the exploiter",
            "probe's gain from the exploiter",
        ],
        rows,
    )


def _plus_minus(figure: Mapping[str, Any]) -> str:
    """``+78.1 ± 20.2``: bb/100 with its 95% half width."""
    return f"{figure['bb_per_100']:+.1f} ± {figure['half_width']:.1f}"


def numeric_leaves(
    data: Mapping[str, Any], *, depth: int, prefix: str = ""
) -> list[tuple[str, float]]:
    """Numeric leaves of a nested mapping as ("a / b", value), ``depth`` levels deep."""
    out: list[tuple[str, float]] = []
    for key, value in data.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            out.append((f"{prefix}{key}", float(value)))
        elif isinstance(value, Mapping) and depth > 1:
            out.extend(numeric_leaves(value, depth=depth - 1, prefix=f"{prefix}{key} / "))
    return out
