"""The model against the truth on an agent's path: hand-built records give known means,
KL and continuing strength; the recorder plays exactly as the pool does; a trained model
is nearer the truth than an untrained one; a field without known styles is refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from poolshark.agents.bots import StyleAgent
from poolshark.agents.loading import load_agent
from poolshark.analysis.model_error import (
    ErrorRecorder,
    ModelErrorError,
    model_error,
    model_error_of,
    spot_keys,
    summarize,
)
from poolshark.evaluate.match import MatchConfig, default_lineup, play_match
from poolshark.pool.context import Facing, Position
from poolshark.population.agent import load_population_model


def record(
    fold: float, call: float, model_fold: float, model_call: float, *, street: int = 1,
    facing: int = 0, position: int = 0, fraction: float = 0.5, made: float = 0.0,
) -> list[float]:  # fmt: skip
    """One recorded decision, in the recorder's column order."""
    return [fold, call, model_fold, model_call, street, facing, position, fraction, made]


def test_spot_keys_name_the_preflop_action_and_the_postflop_size() -> None:
    records = np.array(
        [
            record(0, 1, 0, 1, street=0, facing=Facing.OPEN_RAISED, position=Position.BB),
            record(0, 1, 0, 1, street=1, fraction=0.2),
            record(0, 1, 0, 1, street=2, fraction=0.5),
            record(0, 1, 0, 1, street=3, fraction=0.9),
            record(0, 1, 0, 1, street=3, fraction=2.0),
        ]
    )
    assert spot_keys(records) == [
        "preflop open raised BB",
        "flop facing small",
        "turn facing medium",
        "river facing large",
        "river facing overbet",
    ]


def test_a_model_equal_to_the_truth_has_no_error() -> None:
    rows = [record(0.3, 0.5, 0.3, 0.5, made=m) for m in np.linspace(0.1, 0.9, 40)]
    summary = summarize(np.array(rows))
    overall = summary["overall"]
    assert overall["decisions"] == 40
    assert overall["fold_error"] == pytest.approx(0.0)
    assert overall["kl"] == pytest.approx(0.0, abs=1e-12)
    assert overall["continue_strength"]["truth"] == pytest.approx(0.5)
    assert overall["continue_strength"]["model"] == pytest.approx(0.5)


def test_errors_kl_and_continuing_strength_by_hand() -> None:
    """Half the decisions hold a strong hand (0.9) the truth always continues with and a
    weak one (0.1) it always folds; the model continues with both half the time."""
    strong = record(0.0, 1.0, 0.5, 0.5, made=0.9)
    weak = record(1.0, 0.0, 0.5, 0.5, made=0.1)
    summary = summarize(np.array([strong, weak] * 20))
    overall = summary["overall"]
    assert overall["truth"]["fold"] == pytest.approx(0.5)
    assert overall["model"]["fold"] == pytest.approx(0.5)
    assert overall["fold_error"] == pytest.approx(0.0)
    assert overall["kl"] == pytest.approx(np.log(2))  # -log 0.5 at every decision
    assert overall["continue_strength"]["truth"] == pytest.approx(0.9)
    assert overall["continue_strength"]["model"] == pytest.approx(0.5)
    assert summary["spots"][0]["spot"] == "flop facing medium"


def test_spots_below_the_minimum_are_left_out_and_the_largest_error_comes_first() -> None:
    rows = [record(0.5, 0.5, 0.6, 0.4)] * 40  # flop medium: fold error +0.1, 40 decisions
    rows += [record(0.5, 0.5, 0.9, 0.1, street=2, fraction=0.2)] * 40  # +0.4
    rows += [record(0.5, 0.5, 0.0, 1.0, street=3, fraction=0.2)] * 5  # too few
    spots = summarize(np.array(rows))["spots"]
    assert [spot["spot"] for spot in spots] == ["turn facing small", "flop facing medium"]
    assert spots[0]["fold_error"] == pytest.approx(0.4)


@pytest.fixture(scope="module")
def tiny_model(tiny_population_model: Path) -> Path:
    """The session's tiny population model (``conftest.py``)."""
    return tiny_population_model


def test_the_recorder_plays_exactly_as_the_pool(tiny_model: Path) -> None:
    config = MatchConfig(hands=300, seed=4)
    lineup = default_lineup(2, config.seats, against=True)
    plain = play_match([load_agent("bot:tag"), load_agent("pool:micro-zoom")], lineup, config)
    pool = load_agent("pool:micro-zoom")
    assert isinstance(pool, StyleAgent)
    recorder = ErrorRecorder(pool, load_population_model(tiny_model))
    spied = play_match([load_agent("bot:tag"), recorder], lineup, config)
    assert spied.agents[0].actual.bb_per_100 == plain.agents[0].actual.bb_per_100
    records = recorder.records()
    assert records.shape[0] > 100
    for column in range(4):
        assert np.all((records[:, column] >= 0) & (records[:, column] <= 1 + 1e-9))


def test_a_trained_model_is_nearer_the_truth_than_an_untrained_one(tiny_model: Path) -> None:
    untrained = load_population_model(tiny_model)
    torch.manual_seed(0)
    for layer in untrained.model.modules():
        if isinstance(layer, torch.nn.Linear | torch.nn.Embedding | torch.nn.LayerNorm):
            layer.reset_parameters()
    config = MatchConfig(hands=600, seed=9)
    pool = load_agent("pool:micro-zoom")
    assert isinstance(pool, StyleAgent)
    trained = model_error(None, load_population_model(tiny_model), pool, config)
    fresh = model_error(None, untrained, pool, config)
    assert trained["overall"]["kl"] < fresh["overall"]["kl"]
    assert trained["overall"]["decisions"] == fresh["overall"]["decisions"]


def test_a_field_whose_styles_are_unknown_is_refused(tiny_model: Path) -> None:
    with pytest.raises(ModelErrorError, match="not a pool of styles"):
        model_error_of(None, str(tiny_model), "bot:station", hands=10, seed=0)


def test_the_command_prints_json_and_refuses_a_field_without_styles(tiny_model: Path) -> None:
    from typer.testing import CliRunner  # lazy: only the command's test runs the CLI

    from poolshark.cli import app  # lazy: only the command's test runs the CLI

    runner = CliRunner()
    args = ["exploit", "model-error", "none", "--model", str(tiny_model), "--hands", "60"]
    result = runner.invoke(app, [*args, "--pool", "micro-zoom", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["agent"] is None
    assert figures["overall"]["decisions"] > 0
    refused = runner.invoke(app, [*args, "--pool", "bot:station"])
    assert refused.exit_code == 2
    assert "not a pool of styles" in refused.output
