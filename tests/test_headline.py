"""The multi-seed headline: figures with intervals, the done-means checks, and the report
sections that show them (on made-up evaluation records, no training)."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from poolshark.experiments.headline import headline
from poolshark.experiments.pipeline import ceiling_plateau
from poolshark.report.headline import (
    headline_sections,
    plateau_section,
    probe_section,
    tuning_paragraph,
)
from poolshark.report.html import HtmlReport

SeedRecords = Callable[..., list[dict[str, Any]]]
"""The ``seed_records`` fixture (``conftest.py``): per-seed evaluation records."""

T2 = 4.302652729911275  # Student's t, 2 degrees of freedom, 97.5%


def test_headline_figures_and_intervals(seed_records: SeedRecords) -> None:
    summary = headline(seed_records(), tuned_on="micro-zoom", pool="tough-regs")
    plain = summary["exploiters"]["model"]
    assert summary["seeds"] == 3
    assert plain["true pool"]["estimate"] == pytest.approx(100.0)
    assert plain["true pool"]["high"] - 100.0 == pytest.approx(T2 * 10.0 / math.sqrt(3))
    assert plain["gap"]["estimate"] == pytest.approx(100.0)
    assert plain["gap"]["high"] == pytest.approx(100.0)  # the gap is the same on every seed
    assert plain["calibration"]["estimate"] == pytest.approx(2.0)
    assert summary["share_of_ceiling"]["model"]["estimate"] == pytest.approx(100 / 160)
    assert "ceiling" not in summary["share_of_ceiling"]
    reduction = summary["gap_reduction"]
    assert reduction["estimate"] == pytest.approx(100.0 - (20.0 + 0.0))  # safe gap: 20 - w/2
    assert "aivat" not in plain
    checks = {row["check"].split(":")[0]: row["met"] for row in summary["done"]}
    assert checks["model-trained exploiter's edge vs the true pool"]
    assert checks["safe exploiter's gap smaller than the plain one's (plain minus safe > 0)"]
    assert not checks["calibration"]  # promises twice what it pays
    assert checks["reported pool differs from the tuning pool (micro-zoom)"]


def test_the_tuning_pool_is_flagged(seed_records: SeedRecords) -> None:
    summary = headline(seed_records(), tuned_on="micro-zoom", pool="micro-zoom")
    assert not summary["done"][-1]["met"]
    assert "in sample" in tuning_paragraph({"pool": "micro-zoom", "em_power": 4.0}, "micro-zoom")
    assert "never touched" in tuning_paragraph({"pool": "micro-zoom", "em_power": 4.0}, "soft")


def test_aivat_intervals_appear_when_every_seed_has_them(
    seed_records: SeedRecords,
) -> None:
    summary = headline(seed_records(aivat=True), tuned_on="micro-zoom", pool="soft")
    aivat = summary["exploiters"]["model"]["aivat"]
    assert list(aivat) == ["true pool"]
    assert aivat["true pool"]["estimate"] == pytest.approx(101.0)


def test_one_seed_has_the_match_interval(seed_records: SeedRecords) -> None:
    summary = headline(seed_records()[:1], tuned_on="micro-zoom", pool="soft")
    edge = summary["exploiters"]["model"]["true pool"]
    assert edge["high"] - edge["estimate"] == pytest.approx(1.959964 * 10.0, rel=1e-5)
    assert "deal noise only" in summary["method"]


def _history(curve: list[float]) -> list[dict[str, float]]:
    return [{"iteration": float(i + 1), "bb_per_100": v} for i, v in enumerate(curve)]


def test_ceiling_plateau_of_the_mean_curve() -> None:
    rising = [float(i) for i in range(30)]
    seeds = [{"seed": s, "ceiling": {"history": _history(rising)}} for s in range(2)]
    result = ceiling_plateau(seeds)
    assert result["tested"]
    assert result["mean"]["slope"] == pytest.approx(1.0)
    assert not result["mean"]["plateaued"]
    assert len(result["seeds"]) == 2
    short = ceiling_plateau([{"seed": 0, "ceiling": {"history": _history([1.0] * 4)}}])
    assert not short["tested"]
    assert "needs 9" in short["reason"]


def test_report_sections_show_the_headline(tmp_path: Path, seed_records: SeedRecords) -> None:
    records = seed_records(aivat=True)
    curve = [100 * (1 - math.exp(-i / 10)) for i in range(30)]
    exploiters = {
        "seeds": [
            {"seed": s, "ceiling": {"history": _history([v + s for v in curve])}} for s in range(3)
        ]
    }
    exploiters["ceiling_plateau"] = ceiling_plateau(exploiters["seeds"])
    figures = {
        "evaluate": {
            "seeds": records,
            "headline": headline(records, tuned_on="micro-zoom", pool="micro-zoom"),
            "tuning": {"pool": "micro-zoom", "em_power": 4.0},
        },
        "exploiters": exploiters,
    }
    config = {"pool": "micro-zoom", "eval_hands": 30_000, "ceiling_iterations": 30,
              "exploiter_iterations": 10}  # fmt: skip
    report = HtmlReport("test")
    headline_sections(report, figures, config)
    plateau_section(report, exploiters, config)

    def figure(value: float) -> dict[str, float]:
        return {"bb_per_100": value, "half_width": 2.5, "stderr": 1.28}

    probed = {
        "control": {"exploiter": figure(168.2)},
        "with_probe": {"exploiter": figure(77.8), "probe": figure(148.6)},
        "taken_from_exploiter": figure(90.4),
        "probe_gain_from_exploiter": figure(40.1),
    }
    probe_section(report, {"seeds": [{"seed": 0, "model": probed}]})
    probe_section(report, {"skipped": "probe_iterations = 0"})
    text = report.write(tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Done means" in text
    assert "+100.0 [+75.2, +124.8]" in text  # the plain exploiter vs the true pool
    assert "2.00 [" in text  # promised / paid
    assert "AIVAT" in text
    assert "in sample" in text
    assert "t-interval over 3 seeds (2 df)" in text
    assert "reached" in text or "still rising" in text
    assert "% of the last third" in text
    assert text.count("How exploitable") == 1
    assert "+168.2 ± 2.5" in text
    assert "+40.1 ± 2.5" in text
    assert text.count("<svg") == 3  # calibration, share of the ceiling, learning curve


def test_unbounded_ratios_are_written_as_such(tmp_path: Path, seed_records: SeedRecords) -> None:
    records = seed_records()
    for index, record in enumerate(records):
        record["exploiters"]["model"]["true pool"]["bb_per_100"] = (-1.0) ** index * 5.0
        record["exploiters"]["ceiling"]["true pool"]["bb_per_100"] = -20.0
    summary = headline(records, tuned_on="micro-zoom", pool="soft")
    assert summary["exploiters"]["model"]["calibration"]["low"] is None
    assert summary["share_of_ceiling"] == {"model": None, "safe": None}
    figures = {
        "evaluate": {
            "seeds": records,
            "headline": summary,
            "tuning": {"pool": "micro-zoom", "em_power": 4.0},
        }
    }
    report = HtmlReport("test")
    headline_sections(report, figures, {"pool": "soft", "eval_hands": 600})
    text = report.render()
    assert "[unbounded]" in text
    assert "No share of the ceiling" in text
    assert text.count("<svg") == 1
