"""``poolshark ingest``: one JSON object with --json, a table otherwise, the counts add up,
running it twice adds nothing, bad input is one line and exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from rich.console import Console
from typer.testing import CliRunner

from poolshark.cli import app, common

SAMPLE = Path(__file__).parents[2] / "shared" / "data" / "handhq-ps25"
runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    """Run the CLI in-process; (exit code, stdout, stderr)."""
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def sample() -> Path:
    if not SAMPLE.is_dir():
        pytest.skip(f"the real PHH sample is not here: {SAMPLE}")
    return SAMPLE


def test_ingest_json_counts_add_up_and_a_second_run_adds_nothing(
    sample: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    code, stdout, _ = run("ingest", str(sample), "--out", str(out), "--json")
    assert code == 0
    first = json.loads(stdout)
    for key in ("files", "seen", "parsed", "rejected", "duplicates", "rows"):
        assert key in first
    assert first["files"] == 3
    assert first["seen"] == 2986
    assert first["warnings"] == {"winnings-over-pot": 6}
    assert first["seen"] == first["parsed"] + sum(first["rejected"].values()) + first["duplicates"]
    rows = pl.scan_parquet(out / "rows" / "*.parquet").select(pl.len()).collect().item()
    assert rows == first["rows"] > 25_000
    assert json.loads((out / "summary.json").read_text()) == first

    code, stdout, _ = run("ingest", str(sample), "--out", str(out), "--json", "--workers", "2")
    assert code == 0
    second = json.loads(stdout)
    assert second["rows"] == second["parsed"] == 0
    assert second["duplicates"] == first["parsed"]
    assert (
        second["seen"] == second["parsed"] + sum(second["rejected"].values()) + second["duplicates"]
    )
    again = pl.scan_parquet(out / "rows" / "*.parquet").select(pl.len()).collect().item()
    assert again == rows
    assert len((out / "runs.jsonl").read_text().splitlines()) == 2


def test_ingest_prints_a_summary_table(sample: Path, tmp_path: Path) -> None:
    one_file = sample / "ps25_1.phhs"
    code, stdout, _ = run("ingest", str(one_file), "--out", str(tmp_path), "--no-replay")
    assert code == 0
    assert "hands seen" in stdout
    assert "991" in stdout
    assert "decision rows" in stdout


def test_ingest_reports_bad_input_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The error is a single line on stderr (on a terminal wide enough for it)."""
    monkeypatch.setattr(common, "errors", Console(stderr=True, width=1000))
    code, stdout, stderr = run("ingest", str(tmp_path / "missing"), "--out", str(tmp_path))
    assert code == 2
    assert stdout == ""
    assert "no such file or folder" in stderr
    assert len(stderr.strip().splitlines()) == 1
