"""The network player learns: a best response to a calling station turns aggressive (the
thesis's maniac, section 5.3) and wins more against it, with 95% intervals; runs resume
to the same weights; the agent plays 2-10 seats and loads from its checkpoint; a best
response can aim at the Sharpe or gambler's-ruin ratio (section 6.5.1) and start from a
fitted player's weights."""

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
from poolshark.limitnet.train import (
    Mode,
    Objective,
    TrainConfig,
    Trainer,
    TrainError,
    shaped_rewards,
)

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


def _ratio(m1: float, m2: float, objective: Objective) -> float:
    """The objective as a function of the first two moments about zero."""
    variance = m2 - m1 * m1
    if objective is Objective.SHARPE:
        return m1 / variance**0.5
    if objective is Objective.GAMBLERS_RUIN:
        return m1 / variance
    return m1


def test_shaped_rewards_are_the_reconstructed_formulas() -> None:
    x = np.array([-3.0, -1.0, 0.0, 0.5, 2.0, 6.0])
    m1, m2 = 0.4, 5.0
    np.testing.assert_allclose(shaped_rewards(x, m1, m2, Objective.MEAN), x)
    np.testing.assert_allclose(
        shaped_rewards(x, m1, m2, Objective.SHARPE), x - m1 / (2 * m2) * x**2
    )
    np.testing.assert_allclose(
        shaped_rewards(x, m1, m2, Objective.GAMBLERS_RUIN), x - m1 / (m2 + m1**2) * x**2
    )
    for objective in (Objective.SHARPE, Objective.GAMBLERS_RUIN):
        # winning: risk costs; losing: risk pays; break-even (or no results yet): no change
        assert shaped_rewards(np.array([4.0]), 1.0, 4.0, objective)[0] < 4
        assert shaped_rewards(np.array([4.0]), -1.0, 4.0, objective)[0] > 4
        np.testing.assert_allclose(shaped_rewards(x, 0.0, m2, objective), x)
        np.testing.assert_allclose(shaped_rewards(x, 0.0, 0.0, objective), x)


@pytest.mark.parametrize("objective", list(Objective))
def test_the_shaped_reward_is_the_ratios_derivative_towards_a_sample(
    objective: Objective,
) -> None:
    """Mixing a little of a sample q into the current results p moves the ratio by
    ``k (E_q[r] - E_p[r])`` per unit of mix, ``k`` the positive factor of the derivation."""
    rng = np.random.default_rng(0)
    p = rng.normal(0.3, 2.0, 500)
    m1, m2 = float(p.mean()), float((p**2).mean())
    sigma = (m2 - m1 * m1) ** 0.5
    factor = {
        Objective.MEAN: 1.0,
        Objective.SHARPE: m2 / sigma**3,
        Objective.GAMBLERS_RUIN: (m2 + m1 * m1) / sigma**4,
    }[objective]
    at_p = shaped_rewards(p, m1, m2, objective).mean()
    epsilon = 1e-6
    for q in (rng.normal(1.0, 0.5, 50), rng.normal(-0.5, 4.0, 50), rng.choice([-6.0, 6.0], 50)):
        q1, q2 = float(q.mean()), float((q**2).mean())
        ratios = [
            _ratio((1 - e) * m1 + e * q1, (1 - e) * m2 + e * q2, objective)
            for e in (-epsilon, epsilon)
        ]
        derivative = (ratios[1] - ratios[0]) / (2 * epsilon)
        expected = factor * (shaped_rewards(q, m1, m2, objective).mean() - at_p)
        assert derivative == pytest.approx(expected, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize(
    ("mode", "objective", "warm"),
    [
        (Mode.SELF_PLAY, Objective.MEAN, False),
        (Mode.BEST_RESPONSE, Objective.SHARPE, True),
        (Mode.BEST_RESPONSE, Objective.GAMBLERS_RUIN, False),
    ],
)
def test_a_resumed_run_ends_with_the_weights_of_a_straight_run(
    tmp_path: Path, mode: Mode, objective: Objective, warm: bool
) -> None:
    init = None
    if warm:
        init = tmp_path / "init" / "limitnet.pt"
        save_model(ActionFunction(seed=42), init)
    config = TrainConfig(
        mode=mode,
        seats=3,
        updates=3,
        tables=8,
        seed=5,
        checkpoint_every=1,
        objective=objective,
        init=init,
    )
    out = tmp_path / "run"
    straight = Trainer(config)
    straight.run()
    first = Trainer(config.model_copy(update={"updates": 2}))
    first.run(out)
    resumed = Trainer(config)
    resumed.resume(out)
    assert resumed.update == 2
    assert resumed.baseline == first.baseline
    assert resumed.moments == first.moments
    resumed.run(out)
    for a, b in zip(straight.model.parameters(), resumed.model.parameters(), strict=True):
        torch.testing.assert_close(a, b)
    assert resumed.moments == straight.moments
    with pytest.raises(TrainError, match="seed"):
        Trainer(config.model_copy(update={"seed": 6})).resume(out)
    if mode is Mode.BEST_RESPONSE:
        other = next(o for o in Objective if o is not objective)
        with pytest.raises(TrainError, match="objective"):
            Trainer(config.model_copy(update={"objective": other})).resume(out)
    if warm:
        with pytest.raises(TrainError, match="init"):
            Trainer(config.model_copy(update={"init": None})).resume(out)


def test_self_play_takes_only_the_mean_objective() -> None:
    with pytest.raises(TrainError, match="needs a best response"):
        Trainer(TrainConfig(seats=3, objective=Objective.SHARPE))


def test_init_starts_from_the_checkpoints_weights(tmp_path: Path) -> None:
    path = tmp_path / "limitnet.pt"
    fitted = ActionFunction(outcome_states=4, seed=9)
    save_model(fitted, path)
    config = TrainConfig(mode=Mode.BEST_RESPONSE, seats=2, outcome_states=4, init=path)
    trainer = Trainer(config)
    fresh = ActionFunction(outcome_states=4, seed=config.seed).state_dict()
    for name, weights in fitted.state_dict().items():
        torch.testing.assert_close(trainer.model.state_dict()[name], weights)
    assert any(not torch.equal(fresh[n], w) for n, w in fitted.state_dict().items())
    assert isinstance(trainer.opponent, LimitNetAgent)  # the frozen seats start there too
    for name, weights in fitted.state_dict().items():
        torch.testing.assert_close(trainer.opponent.model.state_dict()[name], weights)
    with pytest.raises(TrainError, match="outcome states"):
        Trainer(config.model_copy(update={"outcome_states": 8}))
    with pytest.raises(TrainError, match="cannot start from"):
        Trainer(config.model_copy(update={"init": tmp_path / "missing.pt"}))


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


def test_the_cli_warm_starts_an_exploiter_with_a_ratio_objective(tmp_path: Path) -> None:
    init = tmp_path / "fitted.pt"
    save_model(ActionFunction(outcome_states=4, seed=7), init)
    out = tmp_path / "run"
    args = ["limit", "train", "--out", str(out), "--mode", "best-response", "--seats", "2"]
    args += ["--tables", "4", "--updates", "1", "--eval-hands", "20", "--json"]
    result = runner.invoke(app, [*args, "--objective", "sharpe", "--init", str(init)])
    assert result.exit_code == 0, result.output
    config = json.loads(result.stdout)["config"]
    assert (config["objective"], config["init"], config["outcome_states"]) == (
        "sharpe",
        str(init),
        4,
    )
    bad = runner.invoke(app, [*args, "--objective", "kelly"])
    assert bad.exit_code == 2
    assert "objective must be mean, sharpe or gamblers-ruin" in bad.output
    selfplay = runner.invoke(
        app, ["limit", "train", "--out", str(tmp_path / "sp"), "--objective", "sharpe"]
    )
    assert selfplay.exit_code == 2
    assert "needs a best response" in selfplay.output


def test_the_kl_pull_holds_a_best_response_near_its_start(tmp_path: Path) -> None:
    path = tmp_path / "start.pt"
    save_model(ActionFunction(outcome_states=4, seed=3), path)
    base = TrainConfig(
        mode=Mode.BEST_RESPONSE,
        seats=2,
        outcome_states=4,
        init=path,
        updates=6,
        tables=32,
        learning_rate=0.05,
    )
    free, pulled = (
        Trainer(base.model_copy(update={"kl_weight": weight}), CallingStation())
        for weight in (0.0, 50.0)
    )
    free.run()
    pulled.run()
    assert free.history[0].kl == pytest.approx(0.0, abs=1e-6)  # the first step starts there
    start = load_model(path).state_dict()

    def distance(trainer: Trainer) -> float:
        return sum(
            float((trainer.model.state_dict()[name] - weights).norm())
            for name, weights in start.items()
        )

    assert pulled.history[-1].kl < free.history[-1].kl
    assert distance(pulled) < distance(free)
    with pytest.raises(TrainError, match="needs a best response"):
        Trainer(TrainConfig(kl_weight=1.0))
