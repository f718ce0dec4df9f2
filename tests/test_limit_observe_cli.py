"""Opponent beliefs through the CLI: fit an observer over a fitted model (`limit observe`),
refit the model reading the beliefs (`limit fit --init`), play the result, and train an
exploiter with the extra layer that reads them (`limit exploit --extra-layer`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from poolshark.cli import app
from poolshark.limitnet.agent import load_player

runner = CliRunner()


def invoke(*args: str) -> dict[str, object]:
    """Run a command with ``--json``; its one object."""
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    parsed: dict[str, object] = json.loads(result.stdout)
    return parsed


def test_observe_then_refit_reading_the_beliefs(tmp_path: Path) -> None:
    records = str(tmp_path / "records.npz")
    invoke("limit", "record", "--out", records, "--matches", "5", "--deals", "16")
    invoke("limit", "fit", records, "--out", str(tmp_path / "fit"), "--rounds", "1")
    observed = tmp_path / "observed.pt"
    args = ["--model", str(tmp_path / "fit" / "limitnet.pt"), "--out", str(observed)]
    report = invoke("limit", "observe", records, *args, "--lines", "300", "--steps", "3")
    held = report["held_out_log_likelihood"]
    assert isinstance(held, list)
    assert len(held) == 4
    assert report["best_step"] == int(np.argmax(held))
    saved = load_player(observed)
    assert saved.observer is not None
    refit = tmp_path / "refit"
    fitted = invoke(
        "limit", "fit", records, "--out", str(refit), "--init", str(observed), "--rounds", "1"
    )
    assert fitted["beliefs"] is True
    replayed = fitted["holdout_true_nll_replayed_beliefs"]
    assert isinstance(replayed, float)
    assert replayed > 0
    again = load_player(refit / "limitnet.pt")
    assert again.observer is not None
    np.testing.assert_array_equal(
        again.observer.state()["type_gates"].numpy(), saved.observer.state()["type_gates"].numpy()
    )
    played = invoke(
        "eval",
        str(refit / "limitnet.pt"),
        "limit:pool",
        "--seats",
        "6",
        "--betting",
        "fixed-limit",
        "--hands",
        "60",
    )
    assert played
    exploited = invoke(
        "limit",
        "exploit",
        str(refit / "limitnet.pt"),
        "--out",
        str(tmp_path / "ex"),
        "--objectives",
        "mean",
        "--updates",
        "2",
        "--tables",
        "8",
        "--eval-hands",
        "120",
        "--extra-layer",
        "2",
    )
    rows = exploited["rows"]
    assert isinstance(rows, list)
    assert [row["objective"] for row in rows] == ["model itself", "mean"]
    exploiter = load_player(tmp_path / "ex" / "mean" / "limitnet.pt")
    assert exploiter.model.extra_layer == 2
    assert exploiter.observer is not None


def test_a_typed_fit_hands_its_drawn_types_to_observe(tmp_path: Path) -> None:
    """`limit fit --player-types` keeps each training player-match's drawn type; `limit
    observe` fits with them revealed (the same split), refuses a split whose training
    lines it cannot type, and fits without them when told."""
    records = str(tmp_path / "records.npz")
    invoke("limit", "record", "--out", records, "--matches", "5", "--deals", "8")
    fit = ["limit", "fit", records, "--out", str(tmp_path / "fit"), "--rounds", "1"]
    invoke(*fit, "--player-types", "2")
    model = tmp_path / "fit" / "limitnet.pt"
    assert "match_types" in load_player(model).payload
    observed = tmp_path / "observed.pt"
    args = ["--model", str(model), "--out", str(observed), "--lines", "100", "--steps", "2"]
    report = invoke("limit", "observe", records, *args)
    assert report["revealed_types"] is True
    saved = load_player(observed)
    assert saved.observer is not None
    assert saved.observer.type_prior is not None
    other = runner.invoke(app, ["limit", "observe", records, *args, "--seed", "1", "--json"])
    assert other.exit_code == 2
    assert "no player type" in other.output
    plain = invoke("limit", "observe", records, *args, "--seed", "1", "--no-revealed-types")
    assert plain["revealed_types"] is False
