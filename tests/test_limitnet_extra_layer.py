"""The exploiter's extra layer (section 6.4): per-opponent features against a plain loop
over the engine's arrays, a model given the layer playing exactly as before, and a best
response whose training reaches the layer and whose checkpoint keeps it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from poolshark.agents.bots import CallingStation
from poolshark.agents.protocol import Decisions, Moves
from poolshark.engine.config import Betting
from poolshark.engine.kernel import ACTED, BET, BUTTON, CURRENT_BET, FOLDED
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.limitnet.action_function import ActionFunction, OpponentInputs
from poolshark.limitnet.agent import (
    Tensors6,
    load_limitnet_agent,
    load_player,
    observer_payload,
    save_model,
)
from poolshark.limitnet.observer import Observer
from poolshark.limitnet.opponent_features import opponent_features
from poolshark.limitnet.train import Mode, TrainConfig, Trainer, with_extra_layer

torch.set_num_threads(1)


def plain_features(
    decisions: Decisions, row: int, beliefs: np.ndarray
) -> tuple[list[list[float]], list[bool]]:
    """One decision's per-opponent features, by a loop over the seats after the decider."""
    batch, table, me = decisions.batch, int(decisions.tables[row]), int(decisions.seats[row])
    seats = batch.config.seats
    button = int(batch.table[table, BUTTON])
    current = int(batch.table[table, CURRENT_BET])
    features: list[list[float]] = []
    present: list[bool] = []
    for step in range(1, seats):
        other = (me + step) % seats
        if batch.seat[table, FOLDED, other]:
            features.append([0.0] * (beliefs.shape[2] + 3))
            present.append(False)
            continue
        bet = int(batch.seat[table, BET, other])
        acted = bool(batch.seat[table, ACTED, other])
        after = (other - button - 1) % seats > (me - button - 1) % seats
        position = [
            float(after),
            float(not (acted and bet == current)),
            bet / current if current else 0.0,
        ]
        features.append([*beliefs[row, other].tolist(), *position])
        present.append(True)
    return features, present


class CheckingAgent:
    """Calls or raises at random and checks the features at every decision it meets."""

    def __init__(self) -> None:
        self.checked = 0

    def act(self, decisions: Decisions) -> Moves:
        beliefs = decisions.rng.random((decisions.size, decisions.batch.config.seats, 3))
        features, present = opponent_features(
            decisions.batch, decisions.tables, decisions.seats, beliefs
        )
        for row in range(decisions.size):
            expected, alive = plain_features(decisions, row, beliefs)
            np.testing.assert_allclose(features[row], np.array(expected))
            assert present[row].tolist() == alive
            self.checked += 1
        moves = decisions.rng.choice([0, 1, 1, 2], size=decisions.size)
        return Moves(moves, np.where(moves == 2, decisions.min_raise_to, 0))


def test_opponent_features_match_a_plain_loop() -> None:
    checker = CheckingAgent()
    config = MatchConfig(hands=60, seats=5, seed=3, betting=Betting.FIXED_LIMIT)
    play_match([checker, CallingStation()], [0, 0, 1, 0, 1], config)
    assert checker.checked > 200


def random_inputs(seed: int, rows: int = 64) -> tuple[Tensors6, OpponentInputs]:
    """Random action-function inputs with per-opponent features (5 opponents)."""
    rng = np.random.default_rng(seed)
    stages = torch.from_numpy(rng.integers(0, 4, rows))
    bets = torch.from_numpy(rng.random((rows, 2, 9))).float()
    costs = torch.from_numpy(rng.random((rows, 2))).float()
    cards = torch.from_numpy(rng.random((rows, 136))).float()
    beliefs = torch.from_numpy(rng.random((rows, 8))).float()
    legal = torch.ones(rows, 3, dtype=torch.bool)
    opponents = torch.from_numpy(rng.random((rows, 5, 11))).float()
    present = torch.from_numpy(rng.random((rows, 5)) < 0.7)
    return (stages, bets, costs, cards, beliefs, legal), (opponents, present)


def test_a_model_given_the_layer_plays_as_before_until_it_learns() -> None:
    model = ActionFunction(outcome_states=4, seed=1)
    grown = with_extra_layer(model, 3, seed=2)
    tensors, opponents = random_inputs(0)
    with torch.no_grad():
        before = model.log_probabilities(*tensors)
        after = grown.log_probabilities(*tensors, opponents=opponents)
        torch.testing.assert_close(after, before)
        assert grown.tile_gates is not None
        grown.tile_gates.normal_()
        moved = grown.log_probabilities(*tensors, opponents=opponents)
    assert not torch.allclose(moved, before)


def test_a_best_response_trains_the_layer_and_keeps_it(tmp_path: Path) -> None:
    model = ActionFunction(outcome_states=4, seed=3)
    observer = Observer(model, seed=4, init_scale=1.0)
    fitted = tmp_path / "fitted.pt"
    save_model(model, fitted, extra=observer_payload(observer, model))
    config = TrainConfig(
        mode=Mode.BEST_RESPONSE,
        seats=4,
        updates=3,
        tables=16,
        outcome_states=4,
        init=fitted,
        extra_layer=2,
        learning_rate=0.05,
    )
    trainer = Trainer(config, load_limitnet_agent(fitted), load_player(fitted).observer)
    start = trainer.model.state_dict()["tile_weights"].clone()
    trainer.run(tmp_path / "run")
    assert trainer.model.tile_gates is not None
    assert trainer.model.tile_gates.abs().sum() > 0
    assert not torch.equal(trainer.model.state_dict()["tile_weights"], start)
    exploiter = load_limitnet_agent(tmp_path / "run" / "limitnet.pt")
    assert exploiter.model.extra_layer == 2
    assert exploiter.observer is not None
    config_ = MatchConfig(hands=40, seats=4, seed=5, betting=Betting.FIXED_LIMIT)
    result = play_match([exploiter, CallingStation()], [0, 1, 1, 1], config_)
    assert result.agents[0].hands == 40
