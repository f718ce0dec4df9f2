"""The report's charts: training curves, win rates with confidence intervals, and curves of
an exploiter's edge against the error of the model it trained on.

Each function returns a matplotlib :class:`~matplotlib.figure.Figure` (no pyplot state), so
the same chart can go into an HTML report or a file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from matplotlib.figure import Figure

INK = "#1d2327"
PALETTE = ("#1b7f3b", "#2f6db5", "#c05621", "#7b4fa5", "#b3261e", "#3f8f8f")


@dataclass(frozen=True)
class WinRate:
    """One agent's win rate in bb/100 with the half width of its 95% interval."""

    label: str
    bb_per_100: float
    half_width: float
    group: str = ""


def training_curves(
    history: Sequence[Mapping[str, float]],
    x: str,
    panels: Sequence[tuple[str, Sequence[str]]],
    *,
    width: float = 10.0,
) -> Figure:
    """One small panel per (title, metric keys) pair, each key a line against ``x``.

    Keys missing from some rows are skipped there (a metric logged every few iterations).
    """
    if not panels:
        raise ValueError("training curves need at least one panel")
    columns = min(3, len(panels))
    rows = -(-len(panels) // columns)
    figure = Figure(figsize=(width, 2.8 * rows), layout="constrained")
    for index, (title, keys) in enumerate(panels):
        axes = figure.add_subplot(rows, columns, index + 1)
        for color, key in zip(PALETTE * 4, keys, strict=False):
            points = [(row[x], row[key]) for row in history if key in row and x in row]
            if points:
                xs, ys = zip(*points, strict=True)
                axes.plot(xs, ys, color=color, label=key, linewidth=1.6)
        axes.set_title(title, fontsize=11, color=INK)
        axes.set_xlabel(x, fontsize=9)
        axes.tick_params(labelsize=8)
        axes.grid(alpha=0.3)
        if len(keys) > 1:
            axes.legend(fontsize=8, frameon=False)
    return figure


def win_rates(rates: Sequence[WinRate], *, title: str = "", width: float = 8.0) -> Figure:
    """Horizontal bars of bb/100 with 95% error bars, a zero line, one colour per group."""
    if not rates:
        raise ValueError("a win-rate chart needs at least one win rate")
    groups = list(dict.fromkeys(rate.group for rate in rates))
    figure = Figure(figsize=(width, 0.9 + 0.42 * len(rates)), layout="constrained")
    axes = figure.add_subplot()
    ys = list(range(len(rates)))[::-1]
    for y, rate in zip(ys, rates, strict=True):
        color = PALETTE[groups.index(rate.group) % len(PALETTE)]
        axes.barh(y, rate.bb_per_100, color=color, alpha=0.75, height=0.6)
        axes.errorbar(rate.bb_per_100, y, xerr=rate.half_width, color=INK, capsize=4, linewidth=1.2)
    axes.axvline(0.0, color=INK, linewidth=0.8)
    axes.set_yticks(ys, [rate.label for rate in rates], fontsize=9)
    axes.set_xlabel("bb/100 (95% interval)", fontsize=9)
    axes.grid(axis="x", alpha=0.3)
    if title:
        axes.set_title(title, fontsize=11, color=INK)
    return figure


def edge_curves(
    curves: Mapping[str, Sequence[tuple[float, float, float]]],
    *,
    x_label: str,
    title: str = "",
    width: float = 6.5,
) -> Figure:
    """Lines of (x, edge, half width) points per variant: edge vs model error, with bands."""
    figure = Figure(figsize=(width, 4.0), layout="constrained")
    axes = figure.add_subplot()
    for color, (name, points) in zip(PALETTE, curves.items(), strict=False):
        ordered = sorted(points)
        xs = [p[0] for p in ordered]
        ys = [p[1] for p in ordered]
        low = [p[1] - p[2] for p in ordered]
        high = [p[1] + p[2] for p in ordered]
        axes.plot(xs, ys, marker="o", color=color, label=name)
        axes.fill_between(xs, low, high, color=color, alpha=0.15)
    axes.axhline(0.0, color=INK, linewidth=0.8)
    axes.set_xlabel(x_label, fontsize=9)
    axes.set_ylabel("edge vs the true pool, bb/100", fontsize=9)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, frameon=False)
    if title:
        axes.set_title(title, fontsize=11, color=INK)
    return figure


@dataclass(frozen=True)
class RangeBar:
    """One figure's estimate with an interval that need not be symmetric (None: unbounded)."""

    label: str
    estimate: float
    low: float | None
    high: float | None


def interval_chart(
    bars: Sequence[RangeBar],
    *,
    x_label: str,
    reference: float | None = None,
    band: tuple[float, float] | None = None,
    width: float = 7.0,
) -> Figure:
    """Points with interval whiskers, a reference line and a shaded acceptance band; an
    unbounded end is drawn to the axis edge with an arrow."""
    if not bars:
        raise ValueError("an interval chart needs at least one bar")
    figure = Figure(figsize=(width, 0.9 + 0.5 * len(bars)), layout="constrained")
    axes = figure.add_subplot()
    ys = list(range(len(bars)))[::-1]
    finite = [v for bar in bars for v in (bar.estimate, bar.low, bar.high) if v is not None]
    span = (max(finite) - min(finite)) or 1.0
    left, right = min(finite) - 0.1 * span, max(finite) + 0.1 * span
    if band is not None:
        axes.axvspan(*band, color=PALETTE[0], alpha=0.12)
        left, right = min(left, band[0]), max(right, band[1])
    for y, bar, color in zip(ys, bars, PALETTE * len(bars), strict=False):
        low = left if bar.low is None else bar.low
        high = right if bar.high is None else bar.high
        axes.plot([low, high], [y, y], color=color, linewidth=2.0)
        axes.plot([bar.estimate], [y], marker="o", color=color)
        for end, unbounded, marker in ((low, bar.low is None, "<"), (high, bar.high is None, ">")):
            if unbounded:
                axes.plot([end], [y], marker=marker, color=color)
    if reference is not None:
        axes.axvline(reference, color=INK, linewidth=0.8)
    axes.set_xlim(left, right)
    axes.set_yticks(ys, [bar.label for bar in bars], fontsize=9)
    axes.set_xlabel(x_label, fontsize=9)
    axes.grid(axis="x", alpha=0.3)
    return figure


def learning_curves(
    curves: Mapping[str, Sequence[float]],
    *,
    fit: tuple[int, int, float, float] | None = None,
    y_label: str = "bb/100 in training",
    width: float = 8.0,
) -> Figure:
    """One line per curve (iterations 1..n); ``fit`` = (first, last iteration, intercept,
    slope) draws a fitted straight line over that span."""
    if not curves:
        raise ValueError("learning curves need at least one curve")
    figure = Figure(figsize=(width, 3.6), layout="constrained")
    axes = figure.add_subplot()
    for color, (name, curve) in zip(PALETTE, curves.items(), strict=False):
        axes.plot(range(1, len(curve) + 1), curve, color=color, label=name, linewidth=1.4)
    if fit is not None:
        first, last, intercept, slope = fit
        axes.plot(
            [first, last],
            [intercept + slope * first, intercept + slope * last],
            color=INK,
            linestyle="--",
            linewidth=1.6,
            label="last third, fitted line",
        )
    axes.set_xlabel("iteration", fontsize=9)
    axes.set_ylabel(y_label, fontsize=9)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, frameon=False)
    return figure
