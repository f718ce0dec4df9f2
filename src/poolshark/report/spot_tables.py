"""The HTML page of a spot table (``poolshark spots --html``), and the same table as a
section of a larger report."""

from __future__ import annotations

import polars as pl

from poolshark.analysis.spots import ACTION_COLUMNS
from poolshark.report.html import Cell, HtmlReport

EXPLANATION = (
    "Each row is a spot: the decisions whose situation matches the row's columns. The action "
    "columns give how often the pool folds, checks or calls, and bets or raises there, in "
    "percent with the 95% interval; n counts the decisions, hands and players behind it."
)


def spot_table_cells(table: pl.DataFrame) -> tuple[list[str], list[list[Cell]]]:
    """Header and rows of a spot table for a report: each action frequency as
    ``share% (low-high)``, other columns as they are (intervals folded into their action)."""
    actions = [name for name in ACTION_COLUMNS.values() if f"{name}_low" in table.columns]
    hidden = {f"{a}_{end}" for a in actions for end in ("low", "high")}
    header = [column for column in table.columns if column not in hidden]
    body: list[list[Cell]] = []
    for record in table.iter_rows(named=True):
        row: list[Cell] = []
        for column in header:
            value = record[column]
            if column in actions and isinstance(value, float):
                low, high = record[f"{column}_low"], record[f"{column}_high"]
                bounds = (
                    f" ({100 * low:.0f}-{100 * high:.0f})"
                    if isinstance(low, float) and isinstance(high, float)
                    else ""
                )
                row.append(f"{100 * value:.1f}%{bounds}")
            elif value is None or isinstance(value, (str, int, float)):
                row.append(value)
            else:
                row.append(str(value))
        body.append(row)
    return header, body


def add_spot_table(report: HtmlReport, table: pl.DataFrame, *, heading: str) -> HtmlReport:
    """Add a section with the spot table and what its columns mean."""
    header, body = spot_table_cells(table)
    return report.section(heading).paragraph(EXPLANATION).table(header, body)


def spot_table_page(table: pl.DataFrame, *, title: str, command: str = "") -> HtmlReport:
    """A page holding one spot table (write it with ``.write(path)``)."""
    report = HtmlReport(title="Spot table", subtitle=title)
    if command:
        report.code(command)
    return add_spot_table(report, table, heading=title)
