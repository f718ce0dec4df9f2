"""A self-contained HTML report: one file with its figures inline, readable offline.

:class:`HtmlReport` collects sections of headings, paragraphs, tables, key figures and
matplotlib figures (embedded as inline SVG, so text stays text and the file needs nothing
beside it) and writes them atomically. Every piece of text is HTML-escaped: names of
players, agents and files reach the page verbatim but can never inject markup.
"""

from __future__ import annotations

import html
import io
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from matplotlib import rc_context
from matplotlib.figure import Figure

Cell = str | int | float | None

_STYLE = """
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2327;
       max-width: 1100px; margin: 2em auto; padding: 0 1.2em; }
h1 { font-size: 1.8em; margin-bottom: 0.1em; }
h2 { border-bottom: 2px solid #d6e4d9; padding-bottom: 0.2em; margin-top: 2em; }
.subtitle { color: #5a6570; margin-top: 0; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { padding: 0.3em 0.8em; border-bottom: 1px solid #e3e7ea; text-align: right; }
th { background: #f3f6f4; }
td:first-child, th:first-child { text-align: left; }
.figures { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0.5em 0; }
figcaption { color: #5a6570; font-size: 0.9em; }
.metrics { display: flex; flex-wrap: wrap; gap: 0.8em; margin: 0.8em 0; }
.metric { background: #f3f6f4; border-radius: 6px; padding: 0.5em 1em; min-width: 9em; }
.metric .value { font-size: 1.4em; font-weight: 600; }
.metric .label { color: #5a6570; font-size: 0.85em; }
.good { color: #1b7f3b; } .bad { color: #b3261e; }
code { background: #f3f6f4; padding: 0 0.3em; border-radius: 3px; }
"""


def figure_svg(figure: Figure) -> str:
    """The figure as an inline ``<svg>`` element (fonts kept as text, stable ids)."""
    buffer = io.StringIO()
    with rc_context({"svg.hashsalt": "poolshark", "svg.fonttype": "none"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def _cell(value: Cell) -> str:
    """A table cell's text: thousands separators, floats under 1,000 to 4 significant digits."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e3 else f"{value:,.0f}"
    return str(value)


@dataclass
class HtmlReport:
    """An HTML document built piece by piece; :meth:`write` saves it atomically."""

    title: str
    subtitle: str = ""
    parts: list[str] = field(default_factory=list)

    def section(self, heading: str) -> HtmlReport:
        """Start a new section."""
        self.parts.append(f"<h2>{html.escape(heading)}</h2>")
        return self

    def paragraph(self, text: str) -> HtmlReport:
        """A paragraph of plain text."""
        self.parts.append(f"<p>{html.escape(text)}</p>")
        return self

    def code(self, command: str) -> HtmlReport:
        """A command line, shown as code."""
        self.parts.append(f"<p><code>{html.escape(command)}</code></p>")
        return self

    def metrics(self, values: Sequence[tuple[str, str, str]]) -> HtmlReport:
        """Key figures as tiles: (label, value text, tone ``""``/``"good"``/``"bad"``)."""
        tiles = "".join(
            f'<div class="metric"><div class="value {html.escape(tone)}">{html.escape(value)}'
            f'</div><div class="label">{html.escape(label)}</div></div>'
            for label, value, tone in values
        )
        self.parts.append(f'<div class="metrics">{tiles}</div>')
        return self

    def table(self, header: Sequence[str], rows: Sequence[Sequence[Cell]]) -> HtmlReport:
        """A table; every row must have one cell per header column."""
        for row in rows:
            if len(row) != len(header):
                raise ValueError(f"a report table row has {len(row)} cells, not {len(header)}")
        head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(_cell(c))}</td>" for c in row) + "</tr>"
            for row in rows
        )
        self.parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        return self

    def figures(self, figures: Sequence[tuple[Figure, str]]) -> HtmlReport:
        """Figures side by side, each with a caption."""
        items = "".join(
            f"<figure>{figure_svg(fig)}<figcaption>{html.escape(caption)}</figcaption></figure>"
            for fig, caption in figures
        )
        self.parts.append(f'<div class="figures">{items}</div>')
        return self

    def render(self, generated: datetime | None = None) -> str:
        """The whole document as text."""
        when = (generated or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
        subtitle = f"{self.subtitle} · " if self.subtitle else ""
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(self.title)}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{html.escape(self.title)}</h1>"
            f'<p class="subtitle">{html.escape(subtitle)}generated {when} by poolshark</p>'
            + "\n".join(self.parts)
            + "</body></html>\n"
        )

    def write(self, path: str | Path) -> Path:
        """Write the document (temporary file, then rename) and return its path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(self.render(), encoding="utf-8")
        os.replace(temporary, path)
        return path
