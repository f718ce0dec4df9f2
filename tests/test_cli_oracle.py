"""``oracle data``, ``oracle train`` and ``oracle eval``: files and runs from a simulated pool
or from decision rows, one JSON object with ``--json``, one-line errors with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poolshark.cli.oracle import app
from poolshark.histories.rows import decision_rows
from poolshark.oracle.data import load_data
from poolshark.pool.pools import load_pool
from poolshark.pool.simulate import simulate

runner = CliRunner()
SMALL = ("--batch-hands", "16", "--epochs", "1", "--threads", "1")


def run(*args: str) -> tuple[int, str, str]:
    """Run the oracle commands in-process; (exit code, stdout, stderr)."""
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("oracle")
    train, val = folder / "train.npz", folder / "val.npz"
    code, out, err = run("data", "--pool", "micro-zoom", "--hands", "160", "--out", str(train),
                         "--seed", "3", "--no-exact", "--json")  # fmt: skip
    assert code == 0, err
    figures = json.loads(out)
    assert figures["hands"] == 160
    assert figures["examples"] == figures["labelled"] > figures["shown"] > 0
    assert figures["exact"] is False
    code, out, err = run("data", "--pool", "micro-zoom", "--hands", "60", "--out", str(val),
                         "--seed", "4", "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["exact"] is True
    assert load_data(val).has_exact
    return train, val


def test_data_train_and_eval_round_trip(files: tuple[Path, Path], tmp_path: Path) -> None:
    train, val = files
    out = tmp_path / "run"
    code, text, err = run("train", "--data", str(train), "--val-data", str(val),
                          "--out", str(out), "--seed", "2", "--device", "cpu", *SMALL,
                          "--json")  # fmt: skip
    assert code == 0, err
    result = json.loads(text)
    assert result["train_hands"] == 160
    assert result["best_val"]["exact_nll"] < result["best_val"]["uniform_nll"]
    assert (out / "best.pt").is_file()
    code, text, err = run("eval", "--checkpoint", str(out / "best.pt"), "--data", str(val),
                          "--json")  # fmt: skip
    assert code == 0, err
    report = json.loads(text)
    assert report["gap"] == pytest.approx(report["nll"] - report["exact_nll"])
    assert set(report["by_kind"]) == {"decision", "end"}
    assert report["nll"] == pytest.approx(result["best_val"]["nll"], rel=1e-6)
    code, text, err = run("eval", "--checkpoint", str(out / "best.pt"), "--data", str(val))
    assert code == 0, err
    assert "gap" in text
    assert "river" in text


def test_shown_mode_on_decision_rows(tmp_path: Path) -> None:
    hands = simulate(load_pool("micro-zoom"), 200, seed=8)
    (tmp_path / "ingest" / "rows").mkdir(parents=True)
    decision_rows(list(hands.records())).write_parquet(
        tmp_path / "ingest" / "rows" / "part-0.parquet"
    )
    rows = str(tmp_path / "ingest")
    code, text, err = run("train", "--rows", rows, "--mode", "shown", "--out",
                          str(tmp_path / "run"), *SMALL, "--json")  # fmt: skip
    assert code == 0, err
    shown = json.loads(text)["best_val"]
    assert shown["exact_nll"] is None
    assert shown["examples"] == shown["shown"]["examples"] > 0
    code, text, err = run("eval", "--checkpoint", str(tmp_path / "run" / "last.pt"),
                          "--rows", rows, "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(text)["mode"] == "shown"
    code, _, err = run("train", "--rows", rows, "--out", str(tmp_path / "x"), "--json")
    assert code == 2
    assert "use mode 'shown'" in " ".join(err.split())


def test_bad_requests_exit_with_one_line(files: tuple[Path, Path], tmp_path: Path) -> None:
    train, val = files
    cases = [
        (("data", "--out", str(tmp_path / "x.npz")), "either --pool"),
        (("data", "--pool", "micro-zoom", "--hands", "5", "--out", str(tmp_path / "x.txt")),
         ".npz"),
        (("data", "--pool", "micro-zoom", "--out", str(tmp_path / "x.npz")), "--hands"),
        (("train", "--out", str(tmp_path / "r")), "exactly one data source"),
        (("train", "--data", str(train), "--out", str(tmp_path / "r"), "--device", "cuda:0"),
         "cuda"),
        (("eval", "--checkpoint", str(train), "--data", str(val)), "checkpoint"),
        (("eval", "--checkpoint", str(tmp_path / "none.pt"), "--data", str(val)),
         "no range-oracle checkpoint"),
    ]  # fmt: skip
    for args, message in cases:
        code, _, err = run(*args)
        assert code == 2, (args, err)
        assert err.startswith("error:"), err
        assert message in " ".join(err.split()), (args, err)  # rich wraps at 80 columns
