"""The network player learns: a best response to a calling station turns aggressive (the
thesis's maniac, section 5.3) and wins more against it, with 95% intervals; runs resume
to the same weights; the agent plays 2-10 seats and loads from its checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

import poolshark.evaluate  # noqa: F401  (registers every checkpoint kind)
from poolshark.agents.bots import CallingStation
from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import Agent, Decisions, Moves
from poolshark.cli import app
from poolshark.engine.config import Betting
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.agent import LimitNetAgent, load_model, save_model
from poolshark.limitnet.train import Mode, TrainConfig, Trainer, TrainError

torch.set_num_threads(1)
runner = CliRunner()


class CheckFolder:
    """A static bot that checks when it can and folds to any bet."""

    def act(self, decisions: Decisions) -> Moves:
        return Moves(np.where(decisions.call > 0, 0, 1))


def _win_rate(agent: LimitNetAgent, opponent: Agent, seed: int) -> tuple[float, float, float]:
    """Small bets per hand heads-up against ``opponent``, with its 95% interval."""
    config = MatchConfig(hands=400, seats=2, seed=seed, betting=Betting.FIXED_LIMIT, tables=200)
    result = play_match([agent, opponent], [0, 1], config)
    rate = result.agents[0].actual
    low, high = rate.interval
    return rate.small_bets_per_hand, low / 100, high / 100


def test_best_response_to_a_calling_station_bets_and_raises_more() -> None:
    config = TrainConfig(
        mode=Mode.BEST_RESPONSE, seats=2, updates=8, tables=64, learning_rate=0.05, seed=3
    )
    history = Trainer(config, CallingStation()).run()
    first, last = history[:2], history[-2:]
    assert np.mean([h.raise_share for h in last]) > np.mean([h.raise_share for h in first]) + 0.1


def test_best_response_wins_more_against_a_fixed_bot() -> None:
    config = TrainConfig(
        mode=Mode.BEST_RESPONSE, seats=2, updates=8, tables=64, learning_rate=0.05, seed=4
    )
    trainer = Trainer(config, CheckFolder())
    untrained = _win_rate(LimitNetAgent(ActionFunction(seed=4)), CheckFolder(), seed=11)
    trainer.run()
    trained = _win_rate(LimitNetAgent(trainer.model), CheckFolder(), seed=11)
    assert trained[1] > untrained[2], (untrained, trained)  # the 95% intervals do not overlap


def test_a_resumed_run_ends_with_the_weights_of_a_straight_run(tmp_path: Path) -> None:
    config = TrainConfig(seats=3, updates=3, tables=8, seed=5, checkpoint_every=1)
    straight = Trainer(config)
    straight.run()
    first = Trainer(config.model_copy(update={"updates": 2}))
    first.run(tmp_path)
    resumed = Trainer(config)
    resumed.resume(tmp_path)
    assert resumed.update == 2
    resumed.run(tmp_path)
    for a, b in zip(straight.model.parameters(), resumed.model.parameters(), strict=True):
        torch.testing.assert_close(a, b)
    with pytest.raises(TrainError, match="seed"):
        Trainer(config.model_copy(update={"seed": 6})).resume(tmp_path)


@pytest.mark.parametrize("seats", [2, 6, 10])
def test_the_agent_plays_any_table_and_loads_from_its_checkpoint(
    tmp_path: Path, seats: int
) -> None:
    path = tmp_path / "limitnet.pt"
    save_model(ActionFunction(seed=seats), path)
    torch.testing.assert_close(
        load_model(path).state_dict()["cost_weight"], ActionFunction().state_dict()["cost_weight"]
    )
    agent = load_agent(str(path))
    assert isinstance(agent, LimitNetAgent)
    config = MatchConfig(hands=60, seats=seats, seed=1, betting=Betting.FIXED_LIMIT)
    result = play_match([agent, CallingStation()], [0] + [1] * (seats - 1), config)
    assert result.agents[0].coerced == 0  # it only ever asks for legal actions
    assert result.agents[0].decisions > 0


def test_the_cli_trains_resumes_and_reports_json(tmp_path: Path) -> None:
    args = ["limit", "train", "--out", str(tmp_path), "--seats", "3", "--tables", "4"]
    args += ["--eval-hands", "30", "--json"]
    first = runner.invoke(app, [*args, "--updates", "2"])
    assert first.exit_code == 0, first.output
    figures = json.loads(first.stdout)
    assert figures["training"]["updates"] == 2
    assert set(figures["evaluation"]) == {"start", "trained"}
    assert (tmp_path / "limitnet.pt").is_file()
    resumed = runner.invoke(app, [*args, "--updates", "3", "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["training"]["updates"] == 3
    bad = runner.invoke(app, ["limit", "train", "--out", str(tmp_path), "--mode", "maniac"])
    assert bad.exit_code == 2
    assert "mode must be self-play or best-response" in bad.output
