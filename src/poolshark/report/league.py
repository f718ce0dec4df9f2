"""The self-play league's plots: ratings over training, action frequencies and training
curves, each saved as a PNG, and an HTML fragment that shows them with the Elo table.

The curves read the trainer's history CSV, one row per epoch; the columns each plot needs
are ``FREQUENCY_COLUMNS`` and ``CURVE_COLUMNS``, and a missing one is an error that names
it. matplotlib is imported inside the functions, so importing this module does not load it.
"""

from __future__ import annotations

import base64
import csv
import html
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from poolshark.evaluate.ratings import PairResult, Rating

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ACTIONS = ("fold", "call", "bet")
FREQUENCY_COLUMNS = (
    "epoch",
    *(f"freq_{action}" for action in ACTIONS),
    *(f"mean_p_{action}" for action in ACTIONS),
)
"""History columns of :func:`plot_action_frequencies`."""
CURVE_PANELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("loss", ("loss", "policy_loss", "size_loss", "diversity_penalty")),
    ("entropy", ("entropy",)),
    ("mean reward", ("reward_mean",)),
    ("gradient norm", ("grad_norm",)),
    ("learning rate", ("learning_rate",)),
    ("showdown reward multiplier", ("showdown_multiplier",)),
)
"""Panels of :func:`plot_training_curves`: a title and the history columns drawn in it."""
CURVE_COLUMNS = ("epoch", *(column for _, columns in CURVE_PANELS for column in columns))
"""History columns of :func:`plot_training_curves`."""


def read_history(path: Path, columns: Sequence[str]) -> list[dict[str, float]]:
    """The history CSV's ``columns`` as numbers, one dict per epoch; a missing column, an
    unreadable number or a file without rows is a ``ValueError`` that says which."""
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        missing = [column for column in columns if column not in header]
        if missing:
            raise ValueError(
                f"{path}: the training history has no column {missing[0]!r}"
                + (f" (also missing: {', '.join(missing[1:])})" if missing[1:] else "")
            )
        rows = []
        for line, raw in enumerate(reader, start=2):
            row = {}
            for column in columns:
                try:
                    row[column] = float(raw[column])
                except (TypeError, ValueError):
                    raise ValueError(
                        f"{path}, line {line}: column {column!r} holds {raw[column]!r}, "
                        "not a number"
                    ) from None
            rows.append(row)
    if not rows:
        raise ValueError(f"{path}: the training history has no epochs")
    return rows


def save_png(figure: Figure, path: Path) -> Path:
    """Write ``figure`` as a PNG through a temporary file and a rename; return ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    figure.savefig(temporary, format="png", dpi=120, metadata={"Software": None})
    os.replace(temporary, path)
    return path


def plot_ratings_over_training(
    ratings: Sequence[Rating],
    epochs: Mapping[str, int],
    path: Path,
    *,
    baselines: Sequence[Rating] = (),
) -> Path:
    """Each checkpoint's Elo at its epoch with its 95% interval as error bars, and the bots
    in ``baselines`` as horizontal lines with their intervals shaded."""
    from matplotlib.figure import Figure  # lazy: matplotlib

    from poolshark.report.plots import INK, PALETTE  # lazy: matplotlib

    if not ratings:
        raise ValueError("a ratings plot needs at least one checkpoint rating")
    unplaced = [rating.name for rating in ratings if rating.name not in epochs]
    if unplaced:
        raise ValueError(
            f"no epoch for checkpoint(s) {', '.join(map(repr, unplaced))}: give every rating "
            "an epoch, and pass bots as baselines"
        )
    points = sorted(ratings, key=lambda rating: (epochs[rating.name], rating.name))
    figure = Figure(figsize=(8.0, 4.2), layout="constrained")
    axes = figure.add_subplot()
    for color, bot in zip(PALETTE[1:] * len(baselines), baselines, strict=False):
        axes.axhspan(bot.low, bot.high, color=color, alpha=0.12, linewidth=0)
        axes.axhline(bot.elo, color=color, linestyle="--", linewidth=1.3, label=bot.name)
    axes.errorbar(
        [epochs[rating.name] for rating in points],
        [rating.elo for rating in points],
        yerr=[
            [rating.elo - rating.low for rating in points],
            [rating.high - rating.elo for rating in points],
        ],
        color=PALETTE[0],
        ecolor=INK,
        elinewidth=0.9,
        capsize=3,
        marker="o",
        markersize=4,
        linewidth=1.6,
        label="checkpoints",
    )
    axes.set_xlabel("epoch", fontsize=9)
    axes.set_ylabel("Elo (95% interval)", fontsize=9)
    axes.set_title("League rating over training", fontsize=11, color=INK)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, frameon=False)
    return save_png(figure, path)


def plot_action_frequencies(history_csv: Path, path: Path) -> Path:
    """Share of decisions that folded, called and bet per epoch (solid), and the policy's
    mean probability of each (dashed), from the history CSV."""
    from matplotlib.figure import Figure  # lazy: matplotlib
    from matplotlib.ticker import PercentFormatter  # lazy: matplotlib

    from poolshark.report.plots import INK, PALETTE  # lazy: matplotlib

    history = read_history(history_csv, FREQUENCY_COLUMNS)
    epochs = [row["epoch"] for row in history]
    figure = Figure(figsize=(8.0, 4.0), layout="constrained")
    axes = figure.add_subplot()
    for color, action in zip(PALETTE, ACTIONS, strict=False):
        axes.plot(epochs, [row[f"freq_{action}"] for row in history], color=color, label=action)
        axes.plot(
            epochs,
            [row[f"mean_p_{action}"] for row in history],
            color=color,
            linestyle="--",
            linewidth=1.2,
            label=f"mean p({action})",
        )
    axes.set_ylim(0.0, 1.0)
    axes.yaxis.set_major_formatter(PercentFormatter(1.0))
    axes.set_xlabel("epoch", fontsize=9)
    axes.set_ylabel("share of decisions", fontsize=9)
    axes.set_title("Actions over training (dashed: mean probability)", fontsize=11, color=INK)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, frameon=False, ncols=3)
    return save_png(figure, path)


def plot_training_curves(history_csv: Path, path: Path) -> Path:
    """Small multiples over epochs: the loss and its terms, entropy, mean reward, gradient
    norm, learning rate and showdown multiplier (``CURVE_PANELS``)."""
    from poolshark.report.plots import training_curves  # lazy: matplotlib

    history = read_history(history_csv, CURVE_COLUMNS)
    panels = [(title, list(columns)) for title, columns in CURVE_PANELS]
    return save_png(training_curves(history, "epoch", panels), path)


def png_figure(path: Path, caption: str) -> str:
    """An HTML ``<figure>`` with the PNG inline (a data URI) and its caption."""
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (
        f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(caption)}" '
        f'style="max-width:100%"><figcaption>{html.escape(caption)}</figcaption></figure>'
    )


def league_report_html(
    ratings: Sequence[Rating],
    pairs: Sequence[PairResult],
    images: Sequence[tuple[Path, str]],
    *,
    heading: str = "League",
) -> str:
    """An HTML fragment (for a report page): a heading, the PNGs given as (path, caption)
    inline, the Elo table and the pairings table; every name is escaped."""
    from poolshark.report.html import HtmlReport  # lazy: matplotlib

    fragment = HtmlReport(heading).section(heading)
    fragment.parts.append(
        '<div class="figures">' + "".join(png_figure(p, c) for p, c in images) + "</div>"
    )
    fragment.table(
        ["rank", "player", "Elo", "95% low", "95% high", "blocks"],
        [
            [rank, r.name, round(r.elo, 1), round(r.low, 1), round(r.high, 1), r.games]
            for rank, r in enumerate(ratings, start=1)
        ],
    )
    fragment.paragraph(
        "Bradley-Terry ratings on the Elo scale from blocks of hands won (ties half); "
        "intervals from the observed information, relative to the anchor."
    )
    fragment.table(
        ["first", "second", "blocks", "score", "bb/100", "± 95%"],
        [
            [
                p.first,
                p.second,
                p.games,
                f"{p.wins / p.games:.1%}",
                round(p.bb_per_100, 2),
                round(p.bb_per_100_interval, 2) if math.isfinite(p.bb_per_100_interval) else None,
            ]
            for p in pairs
        ],
    )
    return "\n".join(fragment.parts)
