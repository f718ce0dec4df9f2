"""The HTML report builder and its charts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from poolshark.report.html import HtmlReport
from poolshark.report.plots import (
    RangeBar,
    WinRate,
    edge_curves,
    interval_chart,
    learning_curves,
    training_curves,
    win_rates,
)
from poolshark.report.range_chart import draw_chart


def test_report_is_self_contained_and_escaped(tmp_path: Path) -> None:
    history = [{"iteration": i, "reward": float(i) ** 0.5, "loss": 1.0 / (i + 1)} for i in range(8)]
    report = HtmlReport("Run <1>", subtitle="pool & co")
    report.section("Curves").figures(
        [(training_curves(history, "iteration", [("reward", ["reward"]), ("loss", ["loss"])]), "c")]
    )
    report.section("Win rates").figures(
        [(win_rates([WinRate("exploiter", 12.5, 3.1, "a"), WinRate("<b>", -4.0, 2.0, "b")]), "w")]
    )
    report.table(["agent", "bb/100"], [["<script>", 1.23456], ["tag", 12_345]])
    report.metrics([("edge", "+12.5", "good")])
    report.figures([(draw_chart(np.full(1326, 0.5), title="half", size=4.0), "range")])
    path = report.write(tmp_path / "out" / "report.html")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert text.count("<svg") == 3
    assert "<script>" not in text
    assert "&lt;script&gt;" in text
    assert "Run &lt;1&gt;" in text
    assert "pool &amp; co" in text
    assert "12,345" in text
    assert "1.235" in text
    assert 'src="' not in text  # nothing loaded from beside the file
    assert not list((tmp_path / "out").glob(".*tmp"))


def test_table_rows_must_match_header() -> None:
    with pytest.raises(ValueError, match="3 cells, not 2"):
        HtmlReport("x").table(["a", "b"], [[1, 2, 3]])


def test_charts_refuse_empty_input() -> None:
    with pytest.raises(ValueError, match="at least one"):
        win_rates([])
    with pytest.raises(ValueError, match="at least one"):
        training_curves([], "x", [])


def test_edge_curves_draw_one_line_per_variant() -> None:
    figure = edge_curves(
        {"plain": [(0.1, 5.0, 1.0), (0.02, 9.0, 1.0)], "safe": [(0.1, 6.0, 1.0)]},
        x_label="model KL",
    )
    assert len(figure.axes[0].get_lines()) == 3  # two variants and the zero line


def test_interval_chart_draws_unbounded_ends_as_arrows() -> None:
    figure = interval_chart(
        [RangeBar("plain", 2.0, 1.5, 2.6), RangeBar("safe", 1.1, None, None)],
        x_label="promised / paid",
        reference=1.0,
        band=(1 / 1.5, 1.5),
    )
    axes = figure.axes[0]
    markers = [line.get_marker() for line in axes.get_lines()]
    assert markers.count("<") == 1
    assert markers.count(">") == 1
    low, high = axes.get_xlim()
    assert low <= 1 / 1.5
    assert high >= 2.6
    with pytest.raises(ValueError, match="at least one"):
        interval_chart([], x_label="x")


def test_learning_curves_draw_the_fitted_line() -> None:
    figure = learning_curves({"seed 0": [1.0, 2.0, 3.0]}, fit=(2, 3, 0.0, 1.0))
    fitted = figure.axes[0].get_lines()[-1]
    assert list(fitted.get_xdata()) == [2, 3]
    assert list(fitted.get_ydata()) == [2.0, 3.0]
    with pytest.raises(ValueError, match="at least one"):
        learning_curves({})
