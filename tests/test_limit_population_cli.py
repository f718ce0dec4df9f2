"""Chapter 6 end to end through the CLI: record a population's limit play, fit an opponent
model to the records by stochastic EM, and train exploiters of the model that are scored
against the model and against the true pool (Table 6-2's rows)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poolshark.cli import app
from poolshark.experiments.limit_exploiters import parse_objectives
from poolshark.limitnet.agent import load_model
from poolshark.limitnet.records import LimitRecords
from poolshark.limitnet.train import Objective

runner = CliRunner()


@pytest.fixture(scope="module")
def fitted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    """Records of 10 short matches of the shipped pool and a two-round fit to them."""
    folder = tmp_path_factory.mktemp("limit-population")
    records = folder / "records.npz"
    recorded = runner.invoke(
        app,
        ["limit", "record", "--out", str(records), "--matches", "10", "--deals", "30", "--json"],
    )
    assert recorded.exit_code == 0, recorded.output
    summary = json.loads(recorded.stdout)
    assert summary["hidden_lines"] + summary["shown_lines"] == summary["lines"]
    assert summary["truth_nll"] > 0
    loaded = LimitRecords.load(records)
    assert loaded.decisions == summary["decisions"]
    out = folder / "fit"
    fitted_ = runner.invoke(
        app, ["limit", "fit", str(records), "--out", str(out), "--rounds", "2", "--json"]
    )
    assert fitted_.exit_code == 0, fitted_.output
    return out / "limitnet.pt", json.loads(fitted_.stdout)


def test_a_fit_writes_a_playable_model_and_its_figures(
    fitted: tuple[Path, dict[str, object]],
) -> None:
    model_path, report = fitted
    load_model(model_path)
    rounds = report["rounds"]
    assert isinstance(rounds, list)
    assert len(rounds) == 2
    assert rounds[-1]["holdout_true_nll"] < report["start_holdout_imputed_nll"]
    assert json.loads((model_path.parent / "fit.json").read_text())["rounds"] == rounds
    args = ["eval", str(model_path), "limit:pool", "--seats", "6", "--betting", "fixed-limit"]
    played = runner.invoke(app, [*args, "--hands", "120", "--json"])
    assert played.exit_code == 0, played.output


def test_exploiters_are_scored_against_the_model_and_the_pool(
    fitted: tuple[Path, dict[str, object]], tmp_path: Path
) -> None:
    model_path, _ = fitted
    args = ["limit", "exploit", str(model_path), "--out", str(tmp_path / "ex")]
    args += ["--objectives", "mean,gamblers-ruin", "--updates", "2", "--tables", "8"]
    result = runner.invoke(app, [*args, "--eval-hands", "240", "--safe-kl", "0.5", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    names = [row["objective"] for row in rows]
    assert names == ["model itself", "mean", "gamblers-ruin", "safe (mean, KL 0.5)"]
    for row in rows:
        gap = row["model"]["mean"] - row["pool"]["mean"]
        assert row["optimism"] == pytest.approx(gap)
        low, high = row["optimism_ci"]
        assert low < row["optimism"] < high
        assert row["pool"]["hands"] >= 240
    assert (tmp_path / "ex" / "gamblers-ruin" / "limitnet.pt").is_file()
    assert (tmp_path / "ex" / "safe" / "limitnet.pt").is_file()


def test_bad_requests_are_refused_with_a_reason(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["limit", "exploit", str(tmp_path / "none.pt"), "--out", "x"])
    assert missing.exit_code == 2
    assert "no model file" in missing.output
    bad_player = runner.invoke(
        app, ["limit", "record", "--out", str(tmp_path / "r.npz"), "--player", "limit:rock"]
    )
    assert bad_player.exit_code == 2
    assert "NAME=SPEC:WEIGHT" in bad_player.output
    (tmp_path / "junk.npz").write_text("junk")
    junk = runner.invoke(app, ["limit", "fit", str(tmp_path / "junk.npz"), "--out", "x"])
    assert junk.exit_code == 2
    assert "cannot read limit records" in junk.output
    assert parse_objectives(["sharpe", " mean"]) == (Objective.SHARPE, Objective.MEAN)
    with pytest.raises(ValueError, match="unknown objective 'kelly'"):
        parse_objectives(["kelly"])
