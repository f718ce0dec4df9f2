"""The 13x13 preflop range chart: one picture of a range for the terminal, logs and files.

Every part of poolshark that shows a range draws it here, so charts look the same
everywhere. A chart takes one frequency in ``[0, 1]`` per preflop class (the share of the
class's combos that are in the range, see :func:`class_frequencies`), laid out as in
:mod:`poolshark.cards.combos`: AA top-left, suited hands above the diagonal, offsuit below,
22 bottom-right. Cells are shaded on one palette from near-white (0) to dark green (1).

matplotlib is imported only where a chart is drawn: the command line imports this module
for its text charts, and matplotlib would add about a second to its start.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from rich.table import Table
from rich.text import Text

from poolshark.cards.combos import CLASS_NAMES, CLASS_SIZE, COMBO_CLASS, N_CLASSES, N_COMBOS
from poolshark.cards.ranges import Range

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = (".png", ".svg", ".pdf")
"""File suffixes :func:`save_chart` can write."""

PALETTE = ((0.0, (236, 236, 236)), (0.5, (120, 198, 121)), (1.0, (0, 90, 50)))
"""(frequency, RGB) stops of the shading: light grey, mid green, dark green."""

_TOLERANCE = 1e-9


def class_frequencies(weights: Range | npt.ArrayLike) -> npt.NDArray[np.float64]:
    """(169,) mean weight of each class's combos, from a Range, (1326,) weights or (169,)."""
    if isinstance(weights, Range):
        weights = weights.weights
    array = np.asarray(weights, dtype=np.float64)
    if array.shape not in ((N_COMBOS,), (N_CLASSES,)):
        raise ValueError(
            f"a range chart needs {N_COMBOS} per-combo or {N_CLASSES} per-class frequencies, "
            f"got shape {array.shape}"
        )
    inside = (array >= -_TOLERANCE) & (array <= 1.0 + _TOLERANCE)
    if not inside.all():
        bad = float(array[~inside][0])
        raise ValueError(f"range chart frequencies must lie in [0, 1], got {bad!r}")
    array = np.clip(array, 0.0, 1.0)
    if array.shape == (N_CLASSES,):
        return array
    return np.bincount(COMBO_CLASS, weights=array, minlength=N_CLASSES) / CLASS_SIZE


def summary(freqs: Range | npt.ArrayLike) -> str:
    """One line on the range's size: ``"4.5% of hands (60 combos)"``."""
    combos = float(class_frequencies(freqs) @ CLASS_SIZE)
    return f"{combos / N_COMBOS:.1%} of hands ({combos:.4g} combos)"


def render_plain(freqs: Range | npt.ArrayLike, title: str | None = None) -> str:
    """The chart as plain text, one line per row (``"AKs  73%"`` cells), for logs and tests."""
    shares = class_frequencies(freqs)
    lines = [] if title is None else [title]
    for row in range(13):
        cells = range(13 * row, 13 * row + 13)
        lines.append(" ".join(f"{CLASS_NAMES[c]:<3}{_percent(shares[c]):>5}" for c in cells))
    lines.append(summary(shares))
    return "\n".join(lines)


def render_text(
    freqs: Range | npt.ArrayLike,
    title: str | None = None,
    *,
    color: bool = True,
    caption: str | None = None,
) -> Table:
    """The chart as a rich table for the terminal; ``color=False`` drops the shading.

    The caption defaults to the range's size; charts of other numbers in [0, 1] (equities)
    pass their own.
    """
    shares = class_frequencies(freqs)
    caption = summary(shares) if caption is None else caption
    table = Table(title=title, caption=caption, show_header=False, padding=(0, 0))
    for _ in range(13):
        table.add_column(justify="center", width=5)
    for row in range(13):
        cells = []
        for cls in range(13 * row, 13 * row + 13):
            red, green, blue = _shade(shares[cls])
            ink = "white" if _is_dark((red, green, blue)) else "black"
            style = f"{ink} on rgb({red},{green},{blue})" if color else ""
            text = f"{CLASS_NAMES[cls]:^5}\n{_percent(shares[cls]):^5}"
            cells.append(Text(text, style=style, no_wrap=True))
        table.add_row(*cells)
    return table


def save_chart(
    freqs: Range | npt.ArrayLike,
    path: str | Path,
    *,
    title: str | None = None,
    values: npt.ArrayLike | None = None,
    value_format: str = "{:.0%}",
    shade_label: str = "share of the class's combos in the range",
) -> Path:
    """Draw the chart to a PNG, SVG or PDF file (by suffix) and return its path.

    Cells are shaded by ``freqs`` and show their class name and a number written with
    ``value_format``: the frequency (none for classes out of the range), or, when ``values``
    (169 numbers, NaN for none) is given, that class's value instead, such as the largest
    stack in bb at which it is shoved; then the range-size footer is left out, and
    ``shade_label`` should say what the shade means. SVG output keeps its text as text, so
    it can be searched and styled, and is byte-identical from one save to the next.
    """
    from matplotlib import rc_context  # lazy: matplotlib; CLI starts fast

    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"cannot save a range chart as {path.name!r}: use one of {FORMATS}")
    figure = draw_chart(
        freqs, title=title, values=values, value_format=value_format, shade_label=shade_label
    )
    with rc_context({"svg.hashsalt": "poolshark", "svg.fonttype": "none"}):
        figure.savefig(path, dpi=150, metadata=_metadata(path.suffix.lower()))
    return path


def draw_chart(
    freqs: Range | npt.ArrayLike,
    *,
    title: str | None = None,
    values: npt.ArrayLike | None = None,
    value_format: str = "{:.0%}",
    shade_label: str = "share of the class's combos in the range",
    size: float = 8.4,
) -> Figure:
    """The chart as a matplotlib figure (``size`` inches wide); see :func:`save_chart`."""
    from matplotlib.colors import LinearSegmentedColormap  # lazy: matplotlib; CLI starts fast
    from matplotlib.figure import Figure  # lazy: matplotlib; CLI starts fast
    from matplotlib.ticker import PercentFormatter  # lazy: matplotlib; CLI starts fast

    shares = class_frequencies(freqs)
    shown = np.where(shares > 0, shares, np.nan) if values is None else _class_values(values)
    colors = [(at, (red / 255, green / 255, blue / 255)) for at, (red, green, blue) in PALETTE]
    colormap = LinearSegmentedColormap.from_list("poolshark_range", colors)

    scale = size / 8.4
    figure = Figure(figsize=(size, size * 8.0 / 8.4), layout="constrained")
    axes = figure.add_subplot()
    mesh = axes.pcolormesh(
        shares.reshape(13, 13), cmap=colormap, vmin=0.0, vmax=1.0, edgecolors="white", linewidth=1.5
    )
    axes.set_aspect("equal")
    axes.invert_yaxis()
    axes.set_axis_off()
    for cls, (name, share, number) in enumerate(zip(CLASS_NAMES, shares, shown, strict=True)):
        row, column = divmod(cls, 13)
        ink = "white" if _is_dark(_shade(share)) else "#222222" if share > 0 else "#8c8c8c"
        label = "" if np.isnan(number) else value_format.format(number)
        x = column + 0.5
        axes.text(
            x,
            row + 0.45,
            name,
            ha="center",
            va="bottom",
            color=ink,
            weight="bold",
            fontsize=10 * scale,
        )
        axes.text(x, row + 0.52, label, ha="center", va="top", color=ink, fontsize=8 * scale)
    if title is not None:
        axes.set_title(title, fontsize=14 * scale, fontweight="bold", pad=10 * scale)
    if values is None:
        footer = summary(shares)
        figure.text(0.5, 0.01, footer, ha="center", va="bottom", fontsize=10 * scale, color="#444")
    colorbar = figure.colorbar(mesh, ax=axes, fraction=0.035, pad=0.02, aspect=30)
    colorbar.set_label(shade_label, color="#444", fontsize=10 * scale)
    colorbar.ax.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    colorbar.ax.tick_params(labelsize=9 * scale)
    colorbar.outline.set_visible(False)
    return figure


def _class_values(values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Validated (169,) numbers to print in the cells; NaN means none."""
    array = np.asarray(values, dtype=np.float64)
    if array.shape != (N_CLASSES,):
        raise ValueError(f"chart values need one number per class (169), got shape {array.shape}")
    return array


def _metadata(suffix: str) -> dict[str, str | None]:
    """File metadata without dates, so the same chart always gives the same bytes."""
    if suffix == ".svg":
        return {"Date": None}
    if suffix == ".pdf":
        return {"CreationDate": None, "ModDate": None}
    return {}


def _percent(share: float) -> str:
    """``"73%"``; ``"-"`` for none; never rounds a partial share to 0% or 100%."""
    if share <= 0.0:
        return "-"
    return f"{min(max(100.0 * share, 1.0), 99.0) if share < 1.0 else 100.0:.0f}%"


def _shade(share: float) -> tuple[int, int, int]:
    """RGB of a frequency, interpolated between the palette's stops."""
    stops = np.array([at for at, _ in PALETTE])
    colors = np.array([rgb for _, rgb in PALETTE], dtype=np.float64)
    red, green, blue = (round(float(np.interp(share, stops, channel))) for channel in colors.T)
    return red, green, blue


def _is_dark(rgb: tuple[int, int, int]) -> bool:
    """Whether white text reads better than black on this background (relative luminance)."""
    red, green, blue = rgb
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue < 128.0
