"""``poolshark population``: train, eval and sft through the Typer app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poolshark.cli.population import app

runner = CliRunner()
SMALL = ["--width", "32", "--depth", "1", "--batch-size", "128", "--threads", "1"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> tuple[Path, dict[str, object]]:  # type: ignore[no-untyped-def]
    out = tmp_path_factory.mktemp("cli") / "run"
    result = runner.invoke(
        app,
        ["train", "--pool", "micro-zoom", "--hands", "600", "--out", str(out), "--ranges",
         "uniform", "--epochs", "2", "--seed", "1", "--device", "cpu", *SMALL, "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


def test_train_prints_one_json_object(trained) -> None:  # type: ignore[no-untyped-def]
    out, report = trained
    assert report["epochs_run"] == 2
    assert report["data"]["range_source"] == "uniform"
    validation = report["validation"]
    assert validation["model"]["nll"] < validation["majority"]["nll"]
    assert "kl" in validation["model"]
    assert set(validation["model"]["by_street"]) == {
        "preflop",
        "flop",
        "turn",
        "river",
    }
    assert (out / "best.pt").is_file()
    assert (out / "tensorboard").is_dir()


def test_train_table_output_and_resume(trained, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out, _ = trained
    again = runner.invoke(
        app,
        ["train", "--pool", "micro-zoom", "--hands", "600", "--out", str(out), "--ranges",
         "uniform", "--epochs", "2", "--seed", "1", *SMALL, "--resume"],
    )  # fmt: skip
    assert again.exit_code == 0, again.output
    assert "held-out hands" in again.stdout
    assert "context" in again.stdout


def test_eval_on_fresh_hands(trained) -> None:  # type: ignore[no-untyped-def]
    out, _ = trained
    result = runner.invoke(
        app,
        ["eval", "--checkpoint", str(out / "best.pt"), "--pool", "micro-zoom", "--hands", "300",
         "--simulation-seed", "7", "--threads", "1", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["range_source"] == "uniform"
    assert report["rows"] > 500
    assert report["model"]["nll"] < report["majority"]["nll"]


def test_sft_on_the_busiest_player(trained, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out, _ = trained
    result = runner.invoke(
        app,
        ["sft", "--checkpoint", str(out / "best.pt"), "--out", str(tmp_path), "--pool",
         "micro-zoom", "--hands", "1500", "--simulation-seed", "8", "--epochs", "2",
         "--threads", "1", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["player_rows"] > 30
    assert (tmp_path / "player.pt").is_file()
    assert {"population", "finetuned", "baselines", "own_style"} <= set(report)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["train", "--out", "x"], "either pool and hands"),
        (["train", "--out", "x", "--pool", "micro-zoom"], "needs both pool and hands"),
        (["train", "--out", "x", "--rows", "y"], "exact:POOL"),
        (["train", "--out", "x", "--pool", "nowhere", "--hands", "10"], "nowhere"),
        (
            ["train", "--out", "x", "--pool", "micro-zoom", "--hands", "10", "--device", "tpu"],
            "device",
        ),
        (
            ["eval", "--checkpoint", "missing.pt", "--pool", "micro-zoom", "--hands", "10"],
            "no population-model checkpoint",
        ),
        (
            [
                "eval",
                "--checkpoint",
                "missing.pt",
                "--pool",
                "micro-zoom",
                "--hands",
                "10",
                "--threads",
                "0",
            ],
            "--threads must be at least 1",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(arguments: list[str], message: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = runner.invoke(app, [a.replace("x", str(tmp_path / "x")) if a == "x" else a
                                 for a in arguments])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert message in result.output


@pytest.fixture(scope="module")
def rows_folder(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    from poolshark.histories.rows import build_rows
    from poolshark.pool.pools import load_pool
    from poolshark.pool.simulate import simulate

    hands = simulate(load_pool("tough-regs"), 600, seed=4)
    folder = tmp_path_factory.mktemp("ingested")
    (folder / "rows").mkdir()
    build_rows(list(hands.records())).frame.write_parquet(folder / "rows" / "part-0.parquet")
    return folder


def test_train_and_sft_on_ingested_rows(rows_folder, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import polars as pl

    frame = pl.read_parquet(rows_folder / "rows" / "part-0.parquet")
    busiest = frame.group_by("player_id").len().sort("len", descending=True)["player_id"][0]
    result = runner.invoke(
        app,
        ["train", "--rows", str(rows_folder), "--ranges", "exact:tough-regs", "--out",
         str(tmp_path / "pop"), "--epochs", "2", "--holdout-player", busiest, *SMALL, "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    rows = report["data"]["rows"]
    assert rows["dropped_inconsistent_hands"] == 0
    assert rows["kept_hands"] == 600
    assert rows["imputed_seats"] == rows["hidden_seats"] > 0
    assert report["data"]["holdout_player_rows"] > 0
    assert "kl" not in report["validation"]["model"]  # no truth for ingested rows
    sft_run = runner.invoke(
        app,
        ["sft", "--checkpoint", str(tmp_path / "pop" / "best.pt"), "--rows", str(rows_folder),
         "--player", busiest, "--out", str(tmp_path / "sft"), "--epochs", "2", "--json"],
    )  # fmt: skip
    assert sft_run.exit_code == 0, sft_run.output
    sft_report = json.loads(sft_run.stdout)
    assert sft_report["player"] == busiest
    assert sft_report["player_rows"] == report["data"]["holdout_player_rows"]
