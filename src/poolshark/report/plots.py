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
