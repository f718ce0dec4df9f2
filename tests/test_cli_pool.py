"""``poolshark pool list``, ``poolshark pool simulate`` and ``poolshark stats``: tables for
people, one JSON value with ``--json``, one-line errors with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poolshark.cli import app
from poolshark.pool.stats import Hud

runner = CliRunner()
REAL_SAMPLE = Path(__file__).parents[2] / "shared" / "data" / "handhq-ps25"
STAT_NAMES = {stat.name.lower() for stat in Hud}


def run(*args: str) -> tuple[int, str, str]:
    """Run the CLI in-process; (exit code, stdout, stderr)."""
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_pool_list_json_is_a_list_of_pools_with_their_mix() -> None:
    code, out, _ = run("pool", "list", "--json")
    assert code == 0
    pools = json.loads(out)
    assert isinstance(pools, list)
    assert {p["name"] for p in pools} >= {"micro-zoom", "tough-regs", "soft"}
    for pool in pools:
        assert pool["players"] >= pool["seats"]
        assert sum(m["players"] for m in pool["mix"]) == pool["players"]
        assert all({"style", "weight", "players"} <= set(m) for m in pool["mix"])
    micro = next(p for p in pools if p["name"] == "micro-zoom")
    assert micro["players"] == 600
    assert {m["style"] for m in micro["mix"]} >= {"zoom-reg", "station"}


def test_pool_list_table() -> None:
    code, out, _ = run("pool", "list")
    assert code == 0
    assert "micro-zoom" in out
    assert "zoom-reg" in out


def test_simulate_then_stats_agree(tmp_path: Path) -> None:
    """The ground-truth statistics ``simulate --json`` reports are the ones ``stats``
    recovers from the text it wrote."""
    out = tmp_path / "sim"
    code, text, _ = run(
        "pool", "simulate", "--pool", "micro-zoom", "--hands", "1500", "--out", str(out),
        "--seed", "3", "--format", "both", "--hands-per-file", "1000", "--json",
    )  # fmt: skip
    assert code == 0
    summary = json.loads(text)
    assert summary["hands"] == 1500
    assert summary["coerced"] == 0
    assert len(list((out / "pokerstars").glob("*.txt"))) == 2
    assert len(list((out / "phh").glob("*.phhs"))) == 2
    assert len(list((out / "truth").glob("*.parquet"))) == 2
    truth = summary["stats"]
    for path in (out / "pokerstars", out / "phh"):
        code, text, _ = run("stats", str(path), "--json")
        assert code == 0
        figures = json.loads(text)
        assert set(figures) == STAT_NAMES | {"hands"}
        assert figures["hands"]["parsed"] == 1500
        assert figures["hands"]["rejected"] == {}
        for name in STAT_NAMES:
            assert figures[name] == truth[name]


def test_simulate_table_and_errors(tmp_path: Path) -> None:
    code, out, _ = run("pool", "simulate", "--pool", "soft", "-n", "200", "-o", str(tmp_path))
    assert code == 0
    assert "HUD statistics of soft" in out
    assert "VPIP" in out
    code, _, err = run("pool", "simulate", "--pool", "soft", "-n", "200", "-o", str(tmp_path))
    assert code == 2
    assert "already holds a simulation" in " ".join(err.split())
    assert err.startswith("error:")
    code, _, err = run("pool", "simulate", "--pool", "nope", "-n", "5", "-o", str(tmp_path / "x"))
    assert code == 2
    assert "no shipped pool 'nope'" in err
    code, _, err = run("pool", "simulate", "--pool", "soft", "-n", "5", "-o", "y", "--format", "x")
    assert code == 2
    assert "unknown format" in err


def test_stats_errors_are_one_line() -> None:
    code, _, err = run("stats", "no-such-folder")
    assert code == 2
    assert err.strip() == "error: no such file or folder: no-such-folder"
    code, _, err = run("stats")
    assert code == 2


def test_stats_of_the_real_sample() -> None:
    """All 2,986 real hands parse; the figures of a 2009 25NL pool are in a plausible
    range and each comes with its count and interval."""
    if not REAL_SAMPLE.is_dir():
        pytest.skip(f"the real sample is not here: {REAL_SAMPLE}")
    code, out, _ = run("stats", str(REAL_SAMPLE), "--json")
    assert code == 0
    figures = json.loads(out)
    assert figures["hands"]["parsed"] == 2_986
    assert figures["hands"]["files"] == 3
    for name in STAT_NAMES:
        figure = figures[name]
        low, high = figure["interval"]
        assert low <= figure["value"] <= high
        assert figure["count"] > 100
    assert 0.2 < figures["vpip"]["value"] < 0.35
    assert figures["pfr"]["value"] < figures["vpip"]["value"]
    assert 1.0 < figures["af"]["value"] < 4.0
    code, out, _ = run("stats", str(REAL_SAMPLE / "ps25_1.phhs"))
    assert code == 0
    assert "W$SD" in out
    assert "991 hands" in out
