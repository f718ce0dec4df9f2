"""The observer model: belief updates and forward-backward against brute-force enumeration
over every type path, analytic gradients against finite differences, a fit that recovers
likelihood on data from a known model, board classes and the showdown map."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
import torch

from poolshark.cards.card import parse_cards
from poolshark.engine.config import Betting
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.agent import LimitNetAgent
from poolshark.limitnet.observer import (
    Observer,
    ObserverError,
    PlayerLine,
    board_class,
    sample_lines,
    showdown_bucket,
    showdown_strength,
)
from poolshark.limitnet.observer_lines import LineRecorder

torch.set_num_threads(1)


def strong_action_function(seed: int, types: int = 3) -> ActionFunction:
    """An action function whose values are large enough for the types to matter."""
    model = ActionFunction(outcome_states=4, card_types=types, seed=seed)
    generator = torch.Generator().manual_seed(seed + 100)
    with torch.no_grad():
        for values in model.values:
            values.copy_(2.0 * torch.randn(values.shape, generator=generator))
        for gates in model.gates:
            gates.copy_(0.3 * torch.randn(gates.shape, generator=generator))
    return model


def brute_force(observer: Observer, line: PlayerLine) -> tuple[np.ndarray, np.ndarray, float]:
    """Stage posteriors, pair posteriors and log-likelihood by summing over every path."""
    types = observer.types
    likelihoods = observer.action_likelihoods(line)
    count = line.last_stage + 1
    stages = np.zeros((count, types))
    pairs = np.zeros((max(count - 1, 0), types, types))
    total = 0.0
    for path in itertools.product(range(types), repeat=count):
        weight = observer.initial()[path[0]]
        for stage in range(1, count):
            matrix = observer.transition(stage, int(line.board_classes[stage]))
            weight *= matrix[path[stage - 1], path[stage]]
        for step, stage in enumerate(line.stages):
            weight *= likelihoods[step, path[stage]]
        if line.shown >= 0:
            weight *= observer.showdown()[path[-1], line.shown]
        total += weight
        for stage in range(count):
            stages[stage, path[stage]] += weight
        for stage in range(count - 1):
            pairs[stage, path[stage], path[stage + 1]] += weight
    return stages / total, pairs / total, float(np.log(total))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_forward_backward_matches_enumeration(seed: int) -> None:
    observer = Observer(strong_action_function(seed), seed=seed, init_scale=1.0)
    for line in sample_lines(observer, 6, seed, decisions_per_stage=3):
        post = observer.posteriors(line)
        stages, pairs, log_likelihood = brute_force(observer, line)
        np.testing.assert_allclose(post.stages, stages, atol=1e-10)
        np.testing.assert_allclose(post.pairs, pairs, atol=1e-10)
        assert post.log_likelihood == pytest.approx(log_likelihood, abs=1e-10)


def test_beliefs_are_brute_force_bayes_on_the_actions_so_far() -> None:
    observer = Observer(strong_action_function(3), seed=3, init_scale=1.0)
    for line in sample_lines(observer, 8, 3, decisions_per_stage=2):
        beliefs = observer.beliefs(line)
        steps = line.stages.shape[0]
        for step in range(steps + 1):
            stage = int(line.stages[step]) if step < steps else line.last_stage
            prefix = PlayerLine(
                line.stages[:step],
                line.bets[:step],
                line.costs[:step],
                line.opponents[:step],
                line.legal[:step],
                line.actions[:step],
                line.board_classes,
                stage,
                line.shown if step == steps else -1,
            )
            stages, _, _ = brute_force(observer, prefix)
            np.testing.assert_allclose(beliefs[step], stages[stage], atol=1e-10)


def finite_difference(
    observer: Observer, lines: list[PlayerLine], block: str, index: tuple[int, ...]
) -> float:
    """Central difference of the summed log-likelihood in one parameter."""
    eps = 1e-5
    values = []
    for sign in (1.0, -1.0):
        if block == "type_gates":
            original = observer.emission.type_gates.clone()
            observer.emission.type_gates[index] += sign * eps
            values.append(observer.log_likelihood(lines))
            observer.emission.type_gates = original
        else:
            array = getattr(observer, f"{block}_logits")
            array[index] += sign * eps
            values.append(observer.log_likelihood(lines))
            array[index] -= sign * eps
    return (values[0] - values[1]) / (2 * eps)


def test_gradients_match_finite_differences() -> None:
    observer = Observer(strong_action_function(4), seed=4, init_scale=1.0)
    lines = sample_lines(observer, 12, 4)
    grads = observer.gradients(lines, normalize=False)
    uses = Counter(
        (stage, int(line.board_classes[stage]))
        for line in lines
        for stage in range(1, line.last_stage + 1)
    )
    (stage, board), _ = uses.most_common(1)[0]
    checks: list[tuple[str, tuple[int, ...], float]] = [
        ("initial", (k,), grads.initial[k]) for k in range(3)
    ]
    checks += [
        ("transition", (stage - 1, board, i, j), grads.transitions[stage - 1, board, i, j])
        for i in range(3)
        for j in range(3)
    ]
    checks += [("showdown", (k, b), grads.showdown[k, b]) for k in range(3) for b in range(3)]
    checks += [
        ("type_gates", index, grads.type_gates[index])
        for index in [(0, 1, 2, 0), (2, 0, 3, 2), (1, 1, 0, 1), (3, 0, 1, 0)]
    ]
    for block, index, analytic in checks:
        assert analytic == pytest.approx(
            finite_difference(observer, lines, block, index), abs=1e-6
        ), (block, index)
    assert max(abs(value) for _, _, value in checks) > 0.1
    assert np.abs(grads.transitions[stage - 1, board]).max() > 1e-2


def test_fitting_raises_the_likelihood_of_data_from_a_known_model() -> None:
    action_function = strong_action_function(5)
    truth = Observer(action_function, seed=5, init_scale=2.0)
    lines = sample_lines(truth, 300, 5)
    fitted = Observer(action_function, seed=6, init_scale=0.1)
    start = fitted.log_likelihood(lines)
    for _ in range(25):
        fitted.step(lines, learning_rate=1.0)
    end = fitted.log_likelihood(lines)
    best = truth.log_likelihood(lines)
    actions = sum(line.stages.shape[0] for line in lines)
    assert end > start + 0.02 * actions
    assert (best - end) < 0.5 * (best - start)


def test_a_normalized_step_raises_the_likelihood() -> None:
    action_function = strong_action_function(7)
    lines = sample_lines(Observer(action_function, seed=7, init_scale=2.0), 100, 7)
    fitted = Observer(action_function, seed=8, init_scale=0.3)
    before = fitted.step(lines, learning_rate=0.5)
    assert fitted.log_likelihood(lines) > before


def test_board_classes() -> None:
    assert board_class(tuple(parse_cards("2c7d9h"))) == 0
    assert board_class(tuple(parse_cards("2c2d9h"))) == 1
    assert board_class(tuple(parse_cards("2h7h9h"))) == 2
    assert board_class(tuple(parse_cards("8c9dTh"))) == 4
    assert board_class(tuple(parse_cards("Ac2d3h"))) == 4
    assert board_class(tuple(parse_cards("8h9hThTc"))) == 7
    with pytest.raises(ObserverError, match="3 to 5"):
        board_class(tuple(parse_cards("AcKd")))


def test_showdown_map() -> None:
    royal = tuple(parse_cards("AhKhQhJhTh"))
    assert showdown_strength(tuple(parse_cards("2c3d")), royal) == pytest.approx(0.5)
    board = tuple(parse_cards("2c7d9hJsKd"))
    assert showdown_bucket(tuple(parse_cards("KhKs")), board) == 7
    assert showdown_bucket(tuple(parse_cards("3c4d")), board) == 0
    assert showdown_strength(tuple(parse_cards("AcAd")), board) < showdown_strength(
        tuple(parse_cards("KhKs")), board
    )
    with pytest.raises(ObserverError, match="5 distinct"):
        showdown_strength(tuple(parse_cards("2c7d")), board)


def test_bad_lines_are_refused() -> None:
    observer = Observer(strong_action_function(9), seed=9)
    line = sample_lines(observer, 1, 9)[0]
    legal = line.legal.copy()
    legal[0, line.actions[0]] = False
    with pytest.raises(ObserverError, match="not legal"):
        PlayerLine(
            line.stages,
            line.bets,
            line.costs,
            line.opponents,
            legal,
            line.actions,
            line.board_classes,
            line.last_stage,
        )
    with pytest.raises(ObserverError, match="river"):
        PlayerLine(
            line.stages[:0],
            line.bets[:0],
            line.costs[:0],
            line.opponents[:0],
            line.legal[:0],
            line.actions[:0],
            line.board_classes,
            1,
            shown=2,
        )


def test_recorded_self_play_gives_lines_the_observer_fits() -> None:
    recorder = LineRecorder()
    agent = LimitNetAgent(ActionFunction(seed=11), recorder=recorder)
    config = MatchConfig(hands=24, seats=4, seed=11, betting=Betting.FIXED_LIMIT)
    play_match([agent], [0] * 4, config)
    lines = recorder.lines()
    decisions = sum(len(rows) for rows in recorder.rows.values())
    assert sum(line.stages.shape[0] for line in lines) == decisions > 24 * 4
    assert len({(key[0], key[1]) for key in recorder.rows}) == 24
    reached = [line for line in lines if line.last_stage == 3]
    assert reached, "some player reached the river"
    for line in lines:
        assert np.all(line.board_classes[1 : line.last_stage + 1] >= 0)
        assert np.all(line.board_classes[line.last_stage + 1 :] == -1)
    observer = Observer(agent.model, seed=11)
    before = observer.step(lines, learning_rate=0.5)
    assert observer.log_likelihood(lines) > before
    beliefs = observer.beliefs(reached[0])
    np.testing.assert_allclose(beliefs.sum(axis=1), 1.0)
