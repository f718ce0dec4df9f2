"""The HTML report of an end-to-end run (:mod:`poolshark.experiments.pipeline`): the
headline figures with 95% intervals across training seeds and deals, the per-seed figures,
the issue's done-means checks, calibration, the ceiling's learning curve and plateau test;
then what was simulated and ingested, how well the population models fit, how the
exploiters trained, how they score three ways next to the baselines, and range charts.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from poolshark.agents.loading import load_agent
from poolshark.analysis.spots import spot_table, with_spots
from poolshark.histories.ingest import scan_rows
from poolshark.report.attribution import attribution_section
from poolshark.report.headline import (
    EXPLOITERS,
    FIELDS,
    bb,
    headline_sections,
    numeric_leaves,
    plateau_section,
    plateau_words,
    probe_section,
    ratio,
    tone,
)
from poolshark.report.html import HtmlReport
from poolshark.report.plots import WinRate, training_curves, win_rates
from poolshark.report.range_chart import draw_chart
from poolshark.report.spot_tables import add_spot_table
from poolshark.report.spots import Spot, action_shares, spot_decisions

CHART_SPOT = Spot("BTN", opener="CO")


def _threebet_change(history: list[dict[str, float]]) -> tuple[float, float]:
    """The exploiter's 3-bet rate (facing an open) over its first and last iterations."""
    rates = [row["threebet_rate"] for row in history if "threebet_rate" in row]
    if not rates:
        return float("nan"), float("nan")
    window = max(1, len(rates) // 5)
    return sum(rates[:window]) / window, sum(rates[-window:]) / window


def build_report(figures: Mapping[str, Any], out: Path, config: Mapping[str, Any]) -> Path:
    """Write ``out`` (an ``.html`` file) from the figures of every pipeline stage."""
    evaluation = figures["evaluate"]
    summary = evaluation["headline"]
    first = figures["exploiters"]["seeds"][0]
    before, after = _threebet_change(first["model"]["history"])
    population = figures["population"]
    decisions = spot_decisions(CHART_SPOT)
    agents = {
        "true pool": f"pool:{config['pool']}",
        "population model": population["main"]["checkpoint"],
        "exploiter": first["model"]["checkpoint"],
    }
    raised = {
        label: action_shares(load_agent(spec), decisions)[:, 2] for label, spec in agents.items()
    }
    plain = summary["exploiters"]["model"]
    ceiling = summary["exploiters"]["ceiling"]
    plateau = figures["exploiters"]["ceiling_plateau"]

    report = HtmlReport(
        "poolshark run report",
        subtitle=(
            f"pool {config['pool']}, {summary['seeds']} training seeds from seed {config['seed']}"
        ),
    )
    report.metrics(
        [
            (
                "exploiter vs the true pool, bb/100 (95% interval)",
                bb(plain["true pool"]),
                tone(plain["true pool"]),
            ),
            (
                "ceiling vs the true pool, bb/100",
                bb(ceiling["true pool"]),
                tone(ceiling["true pool"]),
            ),
            (
                "share of the ceiling",
                ratio(summary["share_of_ceiling"]["model"]),
                "",
            ),
            ("over-exploitation gap, bb/100", bb(plain["gap"]), ""),
            ("promised / paid edge", ratio(plain["calibration"]), ""),
            ("ceiling plateau", plateau_words(plateau), ""),
            (
                f"3-bet share of all combos, {CHART_SPOT.title}: pool → exploiter",
                f"{raised['true pool'].mean():.0%} → {raised['exploiter'].mean():.0%}",
                "",
            ),
            ("exploiter 3-bet rate in training, first → last", f"{before:.0%} → {after:.0%}", ""),
        ]
    )
    headline_sections(report, figures, config)
    plateau_section(report, figures["exploiters"], config)
    probe_section(report, figures.get("probe") or {})
    report.parts.append(attribution_section(figures.get("attribution") or {}))

    report.section("Hands in, rows out")
    simulate, ingest = figures["simulate"], figures["ingest"]
    report.paragraph(
        f"{simulate['hands']:,} hands of pool {simulate['pool']} were simulated and written as "
        f"PokerStars text ({simulate['hands_per_s']:,.0f} hands/s), plus "
        f"{simulate['heldout_hands']:,} other hands for the held-out model; both sets were "
        "ingested like any site's files."
    )
    report.table(
        ["hand set", "seen", "parsed", "rejected", "duplicates", "rows", "hands/s"],
        [
            [
                name,
                s["seen"],
                s["parsed"],
                sum(s["rejected"].values()),
                s["duplicates"],
                s["rows"],
                s["hands_per_s"],
            ]
            for name, s in ingest.items()
            if isinstance(s, Mapping)
        ],
    )

    rows = Path(ingest["main"]["out"])
    if rows.is_dir():
        by_spot = spot_table(with_spots(scan_rows(rows).collect()), ["street", "pot_type"])
        add_spot_table(
            report,
            by_spot,
            heading="The pool by spot (main rows; poolshark spots ROWS --by street,pot_type)",
        )

    report.section("Population models")
    source = _imputer_words(str(config.get("imputer", "exact")))
    report.paragraph(
        "Action models of the pool's average player, fitted on the ingested rows: hole "
        f"cards are known only from showdowns, the others are drawn from {source}. The "
        "held-out model is fitted on different hands."
    )
    names = ["main", "heldout"]
    leaves = [dict(numeric_leaves(population[n].get("validation") or {}, depth=2)) for n in names]
    keys = [k for k in leaves[0] if all(k in other for other in leaves)]
    report.table(
        ["validation figure", "model", "held-out model"],
        [[key, leaves[0][key], leaves[1][key]] for key in keys],
    )
    curves = population["main"].get("history") or []
    numeric = sorted({k for row in curves for k, v in row.items() if isinstance(v, int | float)})
    x = "epoch" if "epoch" in numeric else "step" if "step" in numeric else None
    losses = [k for k in numeric if "loss" in k or "nll" in k]
    if x is not None and losses:
        report.figures(
            [(training_curves(curves, x, [("population model", losses[:4])]), "training loss")]
        )

    report.section("Exploiter training (first seed)")
    panels = [
        ("win rate in training, bb/100", ["bb_per_100"]),
        ("3-bet rate facing an open (untrained: 3 raises of 5 actions)", ["threebet_rate"]),
        ("policy entropy", ["entropy"]),
    ]
    report.figures(
        [
            (training_curves(first[key]["history"], "iteration", panels), label)
            for key, label in EXPLOITERS.items()
        ]
    )

    support_section(report, figures["exploiters"].get("support"))

    report.section("Win rates, three ways")
    report.paragraph(
        "Every exploiter plays against the population model it trained on, against the "
        "true pool it was meant to beat, and against a population model fitted on other "
        "hands: the mean over training seeds with its 95% interval across seeds and deals. "
        "The baselines are one match each (the first seed's deals) with the match's 95% "
        "interval. bb/100, all-in EV adjusted. " + _rake_sentence(config)
    )
    rates = [
        WinRate(
            f"{EXPLOITERS[key]} vs {field}",
            r["estimate"],
            (r["high"] - r["low"]) / 2,
            field,
        )
        for key in EXPLOITERS
        for field in FIELDS
        for r in [summary["exploiters"][key][field]]
    ]
    rates += [
        WinRate(name, r["bb_per_100"], r["half_width"], "baseline")
        for name, r in evaluation["baselines"].items()
    ]
    report.figures([(win_rates(rates), "bb/100 with 95% intervals")])

    report.section(f"Ranges: {CHART_SPOT.title}")
    report.paragraph(
        "Share of each hand class raised (3-bet) on the button facing a cutoff open to "
        "2.5 bb: the true pool's average player, the population model, and the exploiter."
    )
    report.figures(
        [
            (draw_chart(shares, title=label, size=4.6), f"{label}: 3-bet share")
            for label, shares in raised.items()
        ]
    )

    report.section("How to reproduce")
    report.code("make demo   # or: poolshark demo --out DIR [--config FILE.toml] [--pool NAME]")
    return report.write(out)


def support_section(report: HtmlReport, support: Mapping[str, Any] | None) -> None:
    """The raise caps that held the model-trained exploiters to sizes the rows saw answered."""
    report.section("Bet sizes the data saw answered")
    if not support or support.get("caps") is None:
        report.paragraph(
            "The model-trained exploiters could raise any size, all in included: beyond the "
            "sizes the rows saw answered, the population model only extrapolates."
        )
        return
    report.paragraph(
        "A population model knows how the players answered the bets they faced; beyond "
        "those sizes it extrapolates, and an exploiter trained against it finds what the "
        "extrapolation gets wrong. So the exploiters trained against the model (plain and "
        f"safe) may raise, per street, at most the largest size that "
        f"{support['min_decisions']:,} decisions of the rows faced a raise at least as big "
        "as (in chips beyond the call over the pot after calling; a pot-sized raise is "
        "always allowed). The ceiling, trained against the true pool, may raise any size."
    )
    report.table(
        [
            "street",
            "decisions facing a raise",
            "largest raise faced",
            "cap",
            "faced the cap or more",
        ],
        [
            [row["street"], row["faced"], row["largest"], row["cap"], row["at_least_cap"]]
            for row in support["table"]
        ],
    )


def _rake_sentence(config: Mapping[str, Any]) -> str:
    """How the matches (and the exploiters' training) were raked."""
    percent = float(config.get("rake_percent") or 0.0)
    if percent <= 0:
        return "No rake."
    cap = config.get("rake_cap_bb")
    capped = f", at most {cap:g} bb a hand" if cap is not None else ""
    return f"Raked {percent:g}% of the pot{capped}, in training and in every match."


def _imputer_words(imputer: str) -> str:
    """Where the population models' hidden hole cards came from, in words."""
    if imputer == "exact":
        return "the pool's exact posterior (a perfect range oracle: it reads the true styles)"
    if imputer == "em" or imputer.startswith("em:"):
        return (
            "the models' own posterior by expectation-maximization (a model fitted on "
            "uniformly drawn cards first, then refitted on cards drawn from what it implies; "
            "the rows alone, no true styles)"
        )
    return f"range source {imputer!r}"
