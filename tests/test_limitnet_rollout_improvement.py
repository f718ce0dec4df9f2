"""The rollout-improvement evaluator (seed 003 section 5.1): exact option values on a river
decision against enumeration, common cards across options, the held-out-fold arithmetic,
determinism, and no improvement for a policy that already takes the best option."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from typer.testing import CliRunner

from poolshark.agents.protocol import Decisions
from poolshark.cards.card import parse_cards
from poolshark.cards.evaluator import evaluate_indices
from poolshark.cli import app
from poolshark.engine.batched import BatchedTables
from poolshark.engine.kernel import LOG_MOVE, LOG_SEAT, LOG_STREET
from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.agent import save_model
from poolshark.limitnet.rollout_improvement import (
    Policy,
    Spot,
    draw_unseen,
    evaluate,
    fold_errors,
    network_policy,
    play_rollouts,
    policy_draws,
    record_spots,
    reference_rollouts,
    sample_errors,
)
from poolshark.limitnet.train import limit_game

Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

HEADS_UP = limit_game(2)
SHOWN = (0, 3, 4, 5)


def strong(holes: npt.NDArray[np.int64], board: npt.NDArray[np.int64]) -> Bools:
    """A pocket pair, or a hole card pairing a visible board card (-1: unseen)."""
    ranks = np.where(board >= 0, board // 4, -1)
    hole_ranks = holes // 4
    pocket = hole_ranks[:, 0] == hole_ranks[:, 1]
    paired = (hole_ranks[:, :, None] == ranks[:, None, :]).any(axis=(1, 2))
    result: Bools = pocket | paired
    return result


def bet_chance(is_strong: Bools) -> Floats:
    """How often the scripted policy bets when checked to: 0.8 strong, 0.2 otherwise."""
    chance: Floats = np.where(is_strong, 0.8, 0.2)
    return chance


def scripted_policy(raise_with: tuple[int, int] | None = None) -> Policy:
    """A card-reading policy with exact answers: bets by :func:`bet_chance` when checked to;
    facing a bet on the river it calls (raises holding ``raise_with``); facing one earlier
    it folds 0.2, calls 0.5, raises 0.3."""

    def probabilities(decisions: Decisions) -> Floats:
        holes = decisions.hole_cards
        rows = decisions.size
        bet = bet_chance(strong(holes, decisions.board))
        facing = decisions.call > 0
        river = decisions.street == 3
        chances = np.zeros((rows, 3))
        chances[:, 1] = np.where(facing, 0.5, 1 - bet)
        chances[:, 2] = np.where(facing, 0.3, bet)
        chances[:, 0] = np.where(facing, 0.2, 0.0)
        holding = np.zeros(rows, dtype=bool)
        if raise_with is not None:
            holding = np.array([sorted(h) == sorted(raise_with) for h in holes.tolist()])
        river_facing = facing & river
        chances[river_facing] = [0.0, 1.0, 0.0]
        chances[river_facing & holding] = [0.0, 0.0, 1.0]
        closed = decisions.min_raise_to < 0
        chances[closed, 1] += chances[closed, 2]
        chances[closed, 2] = 0.0
        return chances

    return probabilities


def river_spot(actor_cards: str, board: str, opponent_cards: str) -> Spot:
    """Heads-up, checked to the river, where the first to act bets: the other player (the
    actor) faces the bet."""
    holes = np.zeros((2, 2), dtype=np.int64)
    board_cards = np.array(parse_cards(board), dtype=np.int64)
    actor = 0  # the button: heads-up it acts first preflop and last after the flop
    holes[actor] = parse_cards(actor_cards)
    holes[1 - actor] = parse_cards(opponent_cards)
    table = BatchedTables(HEADS_UP, 1)
    table.reset([0], stacks=200, buttons=[0], hole_cards=holes[None], boards=board_cards[None])
    for move in (1, 1, 1, 1, 1, 1, 2):
        table.step([move], [table.legal().min_raise_to[0]])
    assert int(table.legal().to_act[0]) == actor
    prefix = np.array(table.actions(0), dtype=np.int64)
    return Spot(0, 200, holes, board_cards, prefix, actor, 3)


def opponent_hands(spot: Spot) -> npt.NDArray[np.int64]:
    """Every hole-card pair the opponent can hold at ``spot`` (heads-up, river)."""
    seen = set(spot.holes[spot.actor].tolist()) | set(spot.board.tolist())
    deck = [c for c in range(52) if c not in seen]
    return np.array(list(combinations(deck, 2)), dtype=np.int64)


def test_river_option_values_equal_enumeration() -> None:
    spot = river_spot("Kh Qd", "Ks 7c 7d 2h 9s", "Ah Jc")
    opponent = 1 - spot.actor
    hands = opponent_hands(spot)
    holes = np.empty((hands.shape[0], 2, 2), dtype=np.int64)
    holes[:, spot.actor] = spot.holes[spot.actor]
    holes[:, opponent] = hands
    boards = np.repeat(spot.board[None], hands.shape[0], axis=0)
    rng = np.random.default_rng(0)
    (sample,) = play_rollouts(HEADS_UP, scripted_policy(), [spot], [(holes, boards)], rng)

    likelihood = np.ones(hands.shape[0])
    for seat, move, street in spot.prefix[:, [LOG_SEAT, LOG_MOVE, LOG_STREET]].tolist():
        if seat != opponent:
            continue
        visible = np.where(np.arange(5) < SHOWN[street], spot.board, -1)
        chance = bet_chance(strong(hands, np.repeat(visible[None], hands.shape[0], axis=0)))
        likelihood *= chance if move == 2 else 1 - chance
    np.testing.assert_allclose(sample.weights, likelihood / likelihood.max(), rtol=1e-6)

    mine = evaluate_indices([*spot.holes[spot.actor].tolist(), *spot.board.tolist()])
    theirs = np.array([evaluate_indices([*h, *spot.board.tolist()]) for h in hands.tolist()])
    outcome = np.sign(mine - theirs)
    exact = np.stack([np.full(hands.shape[0], -2.0), 6.0 * outcome, 10.0 * outcome], axis=1)
    np.testing.assert_array_equal(sample.legal, [True, True, True])
    np.testing.assert_array_equal(sample.returns, exact)
    np.testing.assert_array_equal(sample.policy, [0.0, 1.0, 0.0])
    values = likelihood @ exact / likelihood.sum()
    errors = sample_errors(sample)
    assert errors.best == pytest.approx(values.max())
    assert errors.policy == pytest.approx(values[1])


def test_every_option_sees_the_same_cards() -> None:
    config = limit_game(6)
    policy = network_policy(ActionFunction(seed=3))
    rng = np.random.default_rng(5)
    spots = record_spots(config, policy, 4, rng)
    deals = [draw_unseen(spot, 12, rng) for spot in spots]
    samples = play_rollouts(config, policy, spots, deals, rng)
    for sample, (holes, boards) in zip(samples, deals, strict=True):
        spot = sample.spot
        expected = np.concatenate([holes.reshape(12, -1), boards], axis=1)
        for option in np.flatnonzero(sample.legal):
            np.testing.assert_array_equal(sample.cards[:, option], expected)
        np.testing.assert_array_equal(
            holes[:, spot.actor], np.repeat(spot.holes[None, spot.actor], 12, 0)
        )
        shown = SHOWN[spot.street]
        np.testing.assert_array_equal(boards[:, :shown], np.repeat(spot.board[None, :shown], 12, 0))
        assert all(len(set(row.tolist())) == row.size for row in expected)
        if sample.legal[0]:
            assert np.unique(sample.returns[:, 0]).size == 1  # a fold's loss is what is in


def test_the_batch_matches_the_readable_reference() -> None:
    config = limit_game(4)
    policy = network_policy(ActionFunction(seed=4))
    rng = np.random.default_rng(9)
    spots = record_spots(config, policy, 3, rng)
    deals = [draw_unseen(spot, 5, rng) for spot in spots]
    uniforms = rng.random((5 * len(spots), policy_draws(config)))
    samples = play_rollouts(config, policy, spots, deals, rng, uniforms)
    for k, (sample, (holes, boards)) in enumerate(zip(samples, deals, strict=True)):
        own = uniforms[5 * k : 5 * (k + 1)]
        weights, returns = reference_rollouts(config, policy, sample.spot, holes, boards, own)
        np.testing.assert_allclose(sample.weights, weights, rtol=1e-6)
        np.testing.assert_array_equal(sample.returns, returns)
    assert any((sample.weights < 1).any() for sample in samples)  # opponents' actions weigh


def test_leave_fold_out_uses_held_out_folds() -> None:
    weights = np.ones(10)
    returns = np.stack([np.array([10.0] + [0.0] * 9), np.full(10, 0.5)], axis=1)
    errors = fold_errors(weights, returns, np.array([0.5, 0.5]))
    # v = (1, 0.5): v* = 1, v^ = 0.75. Without fold 0 the second option looks best (it
    # earns 0.5 there); without any other fold the first does (it earns 0 there).
    assert errors.best == pytest.approx(1.0)
    assert errors.policy == pytest.approx(0.75)
    assert errors.rollout == pytest.approx(0.05)
    assert errors.sample == pytest.approx(0.25)
    assert errors.lfo == pytest.approx(0.95)
    assert errors.ri == pytest.approx(-0.7)


def test_leave_fold_out_weights_folds_by_likelihood() -> None:
    weights = np.array([3.0, 1.0])
    returns = np.array([[1.0, 0.0], [0.0, 2.0]])
    errors = fold_errors(weights, returns, np.array([1.0, 0.0]), folds=2)
    # Fold 0 (weight 3) is judged by fold 1's best (the second option, 0 there) and fold 1
    # by fold 0's best (the first, 0 there): v~ = 0; v = (0.75, 0.5).
    assert errors.rollout == pytest.approx(0.0)
    assert errors.best == pytest.approx(0.75)
    assert errors.policy == pytest.approx(0.75)


def test_a_seed_gives_identical_figures() -> None:
    config = limit_game(3)
    policy = network_policy(ActionFunction(seed=1))
    first = evaluate(config, policy, 6, 10, seed=11)
    again = evaluate(config, policy, 6, 10, seed=11)
    np.testing.assert_equal([r.as_dict() for r in first.rows], [r.as_dict() for r in again.rows])
    assert [e.ri for e in first.errors] == [e.ri for e in again.errors]


def test_no_improvement_when_the_policy_takes_the_best_option() -> None:
    spot = river_spot("As Ah", "Ac Ad Kh 7c 2d", "Qh Jc")
    policy = scripted_policy(raise_with=tuple(spot.holes[spot.actor].tolist()))
    rng = np.random.default_rng(2)
    deals = [draw_unseen(spot, 200, rng)]
    (sample,) = play_rollouts(HEADS_UP, policy, [spot], deals, rng)
    np.testing.assert_array_equal(sample.policy, [0.0, 0.0, 1.0])
    errors = sample_errors(sample)
    assert errors.ri == pytest.approx(0.0)
    assert errors.sample == pytest.approx(0.0)
    assert errors.best == pytest.approx(10.0)


def test_the_cli_prints_a_stage_table_and_json(tmp_path: Path) -> None:
    path = tmp_path / "limitnet.pt"
    save_model(ActionFunction(seed=2), path)
    runner = CliRunner()
    args = ["limit", "ri", str(path), "--decisions", "4", "--rollouts", "10", "--seats", "3"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    overall = figures["stages"][-1]
    assert overall["stage"] == "overall"
    assert overall["decisions"] + figures["skipped"] == 4
    assert overall["sample"] == pytest.approx(overall["lfo"] + overall["ri"])
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.output
    assert "RI error" in text.stdout
    bad = runner.invoke(app, ["limit", "ri", str(path), "--rollouts", "5"])
    assert bad.exit_code == 2
    assert "at least 10 rollouts" in bad.output
    missing = runner.invoke(app, ["limit", "ri", str(tmp_path / "none.pt")])
    assert missing.exit_code == 2
    assert "no checkpoint file" in missing.output
