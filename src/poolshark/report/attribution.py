"""The report's "Where the edge comes from" section: an exploiter's edge split by preflop
spot against the population model and against the true pool, and the spots where the two
pay most differently (over-exploitation made visible).

It reads :func:`poolshark.analysis.attribution.attribute_edge` figures (``against_model``,
``against_pool``, either may be missing) and returns the section as HTML text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from poolshark.analysis.attribution import compare_attributions
from poolshark.report.html import Cell, HtmlReport

TOP_SPOTS = 12
"""Spots shown per table (largest contributions); the rest are summed into one row."""
TOP_DISAGREEMENTS = 8
SHARE_ORDER = ("fold", "call", "raise", "all-in")


def _rate(estimate: Mapping[str, Any]) -> str:
    """``+20.5 ± 5.2``: a contribution in bb/100 with its 95% half-width."""
    low, high = estimate["ci95"]
    return f"{estimate['bb_per_100']:+.1f} ± {(high - low) / 2:.1f}"


def _shares(shares: Mapping[str, float] | None) -> str:
    """Fold/call/raise/all-in percentages, ``75/15/10/0``."""
    if not shares or not any(shares.values()):
        return ""
    return "/".join(f"{100 * shares.get(name, 0.0):.0f}" for name in SHARE_ORDER)


def _contested(figure: Mapping[str, Any] | None) -> str:
    """How often the field called or raised after the exploiter's raises in a spot."""
    return "" if figure is None else f"{figure['share']:.0%} of {figure['hands']:,}"


def _spot_rows(figures: Mapping[str, Any]) -> list[list[Cell]]:
    """The largest contributions first; the others in one row, so the column adds up."""
    rows = sorted(figures["spots"], key=lambda row: -abs(row["contribution"]["bb_per_100"]))
    shown, rest = rows[:TOP_SPOTS], rows[TOP_SPOTS:]
    table: list[list[Cell]] = [
        [
            row["spot"],
            f"{row['frequency']:.1%}",
            _rate(row["contribution"]),
            f"{row['average_bb']['mean']:+.2f}",
            _shares(row["exploiter_actions"]),
            _shares(row["field_actions"]) if row["field_decisions"] else "",
            _contested(row.get("field_continues_vs_raise")),
        ]
        for row in shown
    ]
    if rest:
        table.append(
            [
                f"{len(rest)} other spots",
                f"{sum(row['frequency'] for row in rest):.1%}",
                f"{sum(row['contribution']['bb_per_100'] for row in rest):+.1f}",
                "",
                "",
                "",
                "",
            ]
        )
    total = figures["total"]
    table.append(["total", "100%", _rate(total), f"{total['bb_per_100'] / 100:+.2f}", "", "", ""])
    return table


def _field_table(report: HtmlReport, title: str, figures: Mapping[str, Any]) -> None:
    report.paragraph(
        f"Against {title} ({figures.get('field', 'unnamed')}): {figures['hands']:,} hands, "
        f"{_rate(figures['total'])} bb/100 in all."
    )
    report.table(
        (
            "spot (first preflop decision)",
            "share of hands",
            "bb/100 (95%)",
            "bb per hand there",
            "exploiter F/C/R/A %",
            "field F/C/R/A %",
            "field contests our raises",
        ),
        _spot_rows(figures),
    )


def attribution_section(figures: dict[str, Any]) -> str:
    """The "Where the edge comes from" section as HTML (empty when no attribution ran)."""
    model, pool = figures.get("against_model"), figures.get("against_pool")
    if model is None and pool is None:
        return ""
    report = HtmlReport(title="")
    report.section("Where the edge comes from")
    some = next(entry for entry in (model, pool) if entry is not None)
    report.paragraph(
        f"The exploiter ({some.get('exploiter', 'unnamed')}) played {some['hands']:,} hands "
        "in one seat against each field. Every hand is booked under the exploiter's first preflop "
        "decision: its position, what it faced there (unopened, limped, an open from a "
        "position, a 3-bet, a 4-bet or more, or a walk in the big blind) and what it did "
        "(fold, call or check, raise, all-in). A spot's bb/100 is the sum of the exploiter's "
        "all-in-EV-adjusted results in that spot's hands per 100 hands of the whole match, "
        "so the spots add up to the total exactly; intervals are 95% (normal, over hands). "
        "Beside each spot: the exploiter's action shares there and the field's own, from "
        "the field's first preflop decisions in the same spot, and how often the field "
        "called or raised after the exploiter raised there (its raises and all-ins)."
    )
    tiles = []
    for label, entry in (("against the model", model), ("against the true pool", pool)):
        if entry is not None:
            low, high = entry["total"]["ci95"]
            tone = "good" if low > 0 else "bad" if high < 0 else ""
            tiles.append((f"bb/100 {label}", _rate(entry["total"]), tone))
    report.metrics(tiles)
    if model is not None:
        _field_table(report, "the population model", model)
    if pool is not None:
        _field_table(report, "the true pool", pool)
    if model is not None and pool is not None:
        comparison = figures.get("comparison") or compare_attributions(model, pool)
        disagreeing = sum(row["disagree"] for row in comparison)
        report.paragraph(
            "Where the model and the true pool pay most differently: the difference is "
            "model minus pool in bb/100 with its 95% interval (independent matches). A spot "
            "that pays against the model and not against the pool is an exploit of a leak "
            f"the pool does not have: over-exploitation. {disagreeing} of "
            f"{len(comparison)} spots differ beyond their intervals."
        )
        report.table(
            (
                "spot",
                "vs model",
                "vs pool",
                "difference (95%)",
                "model contests our raises",
                "pool contests our raises",
            ),
            [
                [
                    row["spot"],
                    f"{row['model']:+.1f}",
                    f"{row['pool']:+.1f}",
                    f"{row['difference']:+.1f} [{row['difference_ci95'][0]:+.1f}, "
                    f"{row['difference_ci95'][1]:+.1f}]" + (" *" if row["disagree"] else ""),
                    _contested(row.get("model_continues_vs_raise")),
                    _contested(row.get("pool_continues_vs_raise")),
                ]
                for row in comparison[:TOP_DISAGREEMENTS]
            ],
        )
    _model_error_part(report, figures.get("model_error"))
    return "\n".join(report.parts)


TOP_MODEL_ERRORS = 12
"""Spots of the model-error table (largest error times decisions first)."""


def _model_error_part(report: HtmlReport, figures: Mapping[str, Any] | None) -> None:
    """Where the model is wrong on the exploiter's path, beside the pool's own path."""
    if not figures:
        return
    path, own = figures["exploiter_path"], figures.get("pool_path")
    report.paragraph(
        "Where the model is wrong where the exploiter goes "
        "(poolshark exploit model-error): at every decision of a true player "
        "facing a bet, in a match against the exploiter, the player's style's fold and call "
        "probabilities beside the model's at the same decision and real cards, per spot; "
        "and postflop the made-hand strength of the hands that continue (each weighted by "
        "its continue probability). A model that folds more than the players where the "
        "exploiter raises, or continues with weaker hands where it bets, promises an edge "
        "the players do not pay."
    )

    def overall(entry: Mapping[str, Any], label: str) -> list[Cell]:
        row = entry["overall"]
        strength = row.get("continue_strength") or {}
        return [
            label,
            f"{row['decisions']:,}",
            f"{row['truth']['fold']:.1%} / {row['model']['fold']:.1%}",
            f"{row['truth']['call']:.1%} / {row['model']['call']:.1%}",
            f"{row['kl']:.3f}",
            f"{strength.get('truth', 0):.3f} / {strength.get('model', 0):.3f}",
        ]

    headers = ("spot", "decisions", "fold true / model", "call true / model", "KL",
               "continuing strength true / model")  # fmt: skip
    rows = [overall(path, "all, the exploiter's path")]
    if own:
        rows.append(overall(own, "all, the pool's own path"))
    for spot in path["spots"][:TOP_MODEL_ERRORS]:
        strength = spot.get("continue_strength")
        rows.append(
            [
                spot["spot"],
                f"{spot['decisions']:,}",
                f"{spot['truth']['fold']:.1%} / {spot['model']['fold']:.1%}",
                f"{spot['truth']['call']:.1%} / {spot['model']['call']:.1%}",
                f"{spot['kl']:.3f}",
                "" if strength is None else f"{strength['truth']:.3f} / {strength['model']:.3f}",
            ]
        )
    report.table(headers, rows)
