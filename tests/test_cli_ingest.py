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


@pytest.fixture
def ohh_file(tmp_path: Path) -> Path:
    """The PokerStars fixtures written as one ``.ohh`` file, the first hand broken."""
    from poolshark.histories.ohh import write_ohh_hands
    from test_histories_replay import fixture_records

    path = tmp_path / "fixtures.ohh"
    text = write_ohh_hands(fixture_records()).replace('"action": "Fold"', '"action": "Fould"', 1)
    path.write_text(text)
    return path


def test_ingest_lists_each_file(ohh_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, stdout, _ = run("ingest", str(ohh_file), "--out", str(out), "--workers", "1")
    assert code == 0
    assert "Per file" in stdout
    assert "malformed 1" in stdout
    code, stdout, _ = run("ingest", str(ohh_file), "--out", str(out), "--json")
    (counts,) = json.loads(stdout)["per_file"]
    assert counts["path"] == str(ohh_file)
    assert (counts["hands"], counts["parsed"], counts["duplicates"]) == (9, 0, 8)
    assert counts["rejected"] == {"malformed": 1}
    assert "encoding" in counts


def test_explain_shows_the_reason_and_marks_the_line(ohh_file: Path) -> None:
    code, stdout, _ = run("ingest", "--explain", f"{ohh_file}:0")
    assert code == 0
    assert "rejected: malformed" in stdout
    marked = [line for line in stdout.splitlines() if line.startswith(">>")]
    assert len(marked) == 1
    assert "Fould" in marked[0]
    code, stdout, _ = run("ingest", "--explain", f"{ohh_file}:2", "--json")
    assert code == 0
    explained = json.loads(stdout)
    assert explained["accepted"] is True
    assert explained["index"] == 2
    assert len(explained["rows"]) > 0
    code, stdout, _ = run("ingest", "--explain", f"{ohh_file}:2")
    assert "accepted:" in stdout
    assert "decision rows" in stdout


def test_explain_and_missing_arguments_are_one_line_errors(
    ohh_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(common, "errors", Console(stderr=True, width=1000))
    for args, message in (
        (["--explain", f"{ohh_file}:42"], "none with hand id '42'"),
        (["--explain", "nope"], "FILE:HAND"),
        ([str(ohh_file)], "--out"),
    ):
        code, stdout, stderr = run("ingest", *args)
        assert code == 2
        assert stdout == ""
        assert message in stderr
        assert len(stderr.strip().splitlines()) == 1
