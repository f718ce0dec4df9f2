"""``poolshark league``: train, eval, table and memory from the command line, with --json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poolshark.cli import app
from poolshark.league import agent as league_agent
from poolshark.league.agent import LeagueAgent, load_league_agent

runner = CliRunner()

TINY_TOML = """
tensorboard = false
[net]
architecture = "mlp"
hidden = 16
hand_state_dim = 4
game_state_dim = 4
[game]
seats = 2
games_per_epoch = 16
hands_per_game = 3
[learning]
epochs = 2
[pool]
snapshot_every = 1
"""


def invoke(*args: str) -> dict[str, object]:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    payload: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return payload


def test_train_eval_and_table_from_the_command_line(tmp_path: Path) -> None:
    config = tmp_path / "league.toml"
    config.write_text(TINY_TOML)
    run = tmp_path / "run"
    trained = invoke("league", "train", "--config", str(config), "--out", str(run), "--json")
    assert trained["pool"] == [0, 1, 2]
    again = invoke(
        "league",
        "train",
        "--config",
        str(config),
        "--out",
        str(run),
        "--epochs",
        "3",
        "--resume-latest",
        "--json",
    )
    assert again["epochs"] == 3
    evaluated = invoke(
        "league", "eval", str(run), "--against", "station", "--hands", "200", "--json"
    )
    matches = evaluated["matches"]
    assert isinstance(matches, list)
    assert matches[0]["opponent"] == "station"
    assert set(matches[0]["players"]) == {"league"}
    table = invoke(
        "league",
        "table",
        str(run),
        "--checkpoints",
        "2",
        "--bot",
        "random",
        "--hands",
        "200",
        "--json",
    )
    ratings = table["ratings"]
    assert isinstance(ratings, list)
    assert {r["name"] for r in ratings} == {"epoch 0", "epoch 3", "random"}


def test_the_memory_experiment_from_the_command_line(tmp_path: Path) -> None:
    """Two tiny arms with an opponent head against a switching opponent, then the memory
    learner trained vs wiped on two seeds and what its head predicts: every figure in the
    JSON, the runs on disk."""
    config = tmp_path / "tiny.toml"
    steps = "game_state_dim = 4\nhand_end_step = true\nopponent_head = true"
    head = TINY_TOML.replace("game_state_dim = 4", steps)
    config.write_text(head.replace("epochs = 2", "epochs = 2\nopponent_coef = 0.5"))
    out = tmp_path / "memory"
    result = invoke(
        "league", "memory", "--config", str(config), "--out", str(out), "--hands", "200",
        "--paired-seeds", "2", "--opponent", "switch:station,nit@0.2", "--json",
    )  # fmt: skip
    assert result["epochs"] == 2
    for arm in ("with_memory", "without_memory", "gain"):
        figures = result[arm]
        assert isinstance(figures, dict)
        assert figures["half_width"] > 0
    in_use = result["in_use"]
    assert isinstance(in_use, dict)
    assert in_use["seeds"] == 2
    assert in_use["low"] <= in_use["bb_per_100"] <= in_use["high"]
    known = result["prediction"]  # the opponent head as trained and wiped, same decisions
    assert isinstance(known, dict)
    assert known["answered"] > known["bets"] > 0
    assert known["trained"] > 0
    assert known["wiped"] > 0
    assert (out / "memory" / "last.pt").is_file()
    assert (out / "no-memory" / "last.pt").is_file()


def test_bad_configs_are_one_line_errors(tmp_path: Path) -> None:
    config = tmp_path / "league.toml"
    config.write_text("[learning]\nepoch = 3\n")
    result = runner.invoke(
        app, ["league", "train", "--config", str(config), "--out", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "learning.epoch: unknown key" in result.output


def test_eval_plays_the_network_with_its_memory_wiped_on_the_same_deals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``league eval --wiped`` seats the same weights loaded with ``wipe_memory`` beside the
    network as trained, both against the same opponent on the same deals."""
    config = tmp_path / "league.toml"
    config.write_text(TINY_TOML)
    run = tmp_path / "run"
    invoke("league", "train", "--config", str(config), "--out", str(run), "--json")
    loaded: list[bool] = []

    def recording(path: Path, *, wipe_memory: bool = False, device: str = "cpu") -> LeagueAgent:
        loaded.append(wipe_memory)
        return load_league_agent(path, wipe_memory=wipe_memory, device=device)

    monkeypatch.setattr(league_agent, "load_league_agent", recording)
    evaluated = invoke(
        "league", "eval", str(run), "--against", "station", "--hands", "200", "--wiped", "--json"
    )
    assert loaded == [False, True]
    matches = evaluated["matches"]
    assert isinstance(matches, list)
    played = matches[0]["players"]
    assert set(played) == {"league", "league, memory wiped"}
    assert played["league"]["hands"] == played["league, memory wiped"]["hands"] > 0
