"""The exploiter's actor-critic: masked policy, what the actor may see, the KL to a reference."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.agents.protocol import Decisions
from poolshark.engine.actions import ActionSet
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.observation import PrivilegedObservation, PublicObservation
from poolshark.exploit.actor_critic import (
    ActorCritic,
    actor_input_size,
    encode_policy_contexts,
    encode_policy_contexts_plain,
    policy_terms,
    privileged_one_hot,
    privileged_size,
    reference_kl,
    smooth_reference,
)
from poolshark.exploit.agent import decision_inputs
from poolshark.exploit.rollout import privileged_cards, showdown_features
from poolshark.pool.context import N_FEATURES, Feature

SIX = GameConfig(seats=6, small_blind=1, big_blind=2)


def decisions_at(batch: BatchedTables, tables: np.ndarray) -> Decisions:
    """The decisions of the players to act at ``tables``."""
    legal = batch.legal()
    return Decisions(
        batch, tables, legal.to_act[tables], np.arange(tables.size), legal, np.random.default_rng()
    )


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    rows=st.integers(1, 40),
)
def test_masked_softmax_puts_exactly_zero_on_illegal_actions(seed: int, rows: int) -> None:
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    model = ActorCritic(6, 5, hidden=16, layers=1)
    inputs = torch.from_numpy(rng.normal(size=(rows, actor_input_size(6))).astype(np.float32))
    mask = rng.random((rows, 5)) < 0.5
    mask[:, 1] = True  # check/call is always legal
    with torch.no_grad():
        p = model.probabilities(inputs, torch.from_numpy(mask)).numpy()
    assert (p[~mask] == 0.0).all()
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-6)
    assert (p[mask] > 0).all()


def test_entropy_and_log_probabilities_are_those_of_the_legal_softmax() -> None:
    logits = torch.tensor([[1.0, 2.0, 0.5, -1.0, 3.0]])
    mask = torch.tensor([[False, True, True, False, True]])
    masked = logits.masked_fill(~mask, -1e9)
    log_p, entropy = policy_terms(masked, mask, torch.tensor([2]))
    legal = torch.softmax(logits[0, [1, 2, 4]], dim=0)
    assert float(log_p[0]) == pytest.approx(float(torch.log(legal[1])), abs=1e-6)
    assert float(entropy[0]) == pytest.approx(float(-(legal * legal.log()).sum()), abs=1e-6)


def test_the_critic_reads_what_privileged_observation_encodes() -> None:
    """The critic's card one-hots are the extra part of ``PrivilegedObservation``."""
    batch = BatchedTables(SIX, 8, seed=3)
    batch.reset(stacks=200)
    tables = np.arange(8)
    viewers = batch.to_act.copy()
    cards = torch.from_numpy(privileged_cards(batch, tables, viewers).astype(np.int64))
    encoder = PrivilegedObservation(6)
    expected = encoder.encode(batch, tables, viewers)[:, encoder.public_size :]
    assert np.array_equal(privileged_one_hot(cards).numpy(), expected)
    assert privileged_size(6) == expected.shape[1] + 6


def _two_worlds() -> tuple[BatchedTables, np.ndarray]:
    """Two tables with the same seat-to-act cards, flop and actions, but other seats' cards
    and the turn and river dealt differently; played to a flop decision."""
    batch = BatchedTables(SIX, 2, seed=0)
    deck = np.random.default_rng(11).permutation(52)
    own, flop = deck[:2], deck[2:5]
    rest_a, rest_b = deck[5:15], deck[15:25]
    later_a, later_b = deck[25:27], deck[27:29]
    holes = np.zeros((2, 6, 2), dtype=np.int64)
    for t, rest in enumerate((rest_a, rest_b)):
        holes[t] = np.concatenate([own, rest]).reshape(6, 2)
    boards = np.stack([np.concatenate([flop, later_a]), np.concatenate([flop, later_b])])
    batch.reset(stacks=200, buttons=5, hole_cards=holes, boards=boards)
    while int(batch.street[0]) == 0:  # everyone calls, the big blind checks: a flop
        batch.step(np.ones(2, dtype=np.int64))
    return batch, np.arange(2)  # the button is seat 5: seat 0 acts first on the flop


def test_the_actor_cannot_see_hidden_cards() -> None:
    """Changing every other seat's hole cards and the unseen turn and river leaves the
    actor's input unchanged; the critic's input changes (so the test could fail)."""
    batch, tables = _two_worlds()
    assert batch.street.tolist() == [1, 1]
    assert batch.to_act.tolist() == [0, 0]
    inputs = decision_inputs(decisions_at(batch, tables))
    assert inputs.shape == (2, actor_input_size(6))
    assert np.array_equal(inputs[0], inputs[1])
    viewers = batch.to_act.copy()
    cards = privileged_cards(batch, tables, viewers)
    assert not np.array_equal(cards[0], cards[1])
    public = PublicObservation(6).encode(batch, tables, viewers)
    assert np.array_equal(public[0], public[1])
    showdown = showdown_features(batch, tables, viewers)
    assert showdown.shape == (2, 6)


def test_actor_input_changes_with_own_cards() -> None:
    """The control: the seat's own cards do reach the actor."""
    batch = BatchedTables(SIX, 2, seed=1)
    holes = np.arange(12).reshape(1, 6, 2).repeat(2, axis=0)
    holes[1, 3] = [40, 41]  # the player to act preflop (under the gun, button 0) is seat 3
    boards = np.array([[30, 31, 32, 33, 34]] * 2)
    batch.reset(stacks=200, buttons=0, hole_cards=holes, boards=boards)
    assert batch.to_act.tolist() == [3, 3]
    inputs = decision_inputs(decisions_at(batch, np.arange(2)))
    assert not np.array_equal(inputs[0], inputs[1])


def test_showdown_features_name_the_winner() -> None:
    """Seat 0 holds aces, seat 1 kings, the others junk on a dry board: seat 0 wins."""
    batch = BatchedTables(SIX, 1, seed=0)
    aces, kings = [48, 49], [44, 45]
    others = [[0, 5], [1, 6], [2, 11], [3, 15]]
    holes = np.array([[aces, kings, *others]])
    board = np.array([[8, 21, 26, 35, 39]])  # 4c 7d 8h Ts Js: no straight or flush
    batch.reset(stacks=200, buttons=0, hole_cards=holes, boards=board)
    features = showdown_features(batch, np.array([0]), np.array([0]))
    assert features[0, 0] == 1.0
    assert features[0, 1:].tolist() == [0.0] * 5
    from_kings = showdown_features(batch, np.array([0]), np.array([1]))
    assert from_kings[0, 0] == 0.0
    assert from_kings[0, 5] == 1.0  # seat 0 is five seats to the left of seat 1


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), epsilon=st.sampled_from([0.0, 0.01, 0.2]))
def test_kl_to_the_reference_is_zero_exactly_when_the_policy_is_the_reference(
    seed: int, epsilon: float
) -> None:
    rng = np.random.default_rng(seed)
    mask = rng.random((20, 5)) < 0.6
    mask[:, 1] = True
    raw = rng.random((20, 5)) + 0.01
    reference = smooth_reference(raw, mask, epsilon)
    assert np.allclose(reference.sum(axis=1), 1.0)
    assert (reference[~mask] == 0).all()
    same_logits = torch.from_numpy(np.where(mask, np.log(np.maximum(reference, 1e-300)), -1e9))
    mask_t = torch.from_numpy(mask)
    ref_t = torch.from_numpy(reference)
    zero = reference_kl(same_logits, mask_t, ref_t)
    assert torch.allclose(zero, torch.zeros(20, dtype=zero.dtype), atol=1e-9)
    other = torch.from_numpy(np.where(mask, rng.normal(size=(20, 5)) * 3, -1e9))
    positive = reference_kl(other, mask_t, ref_t)
    assert (positive >= -1e-9).all()
    several = mask.sum(axis=1) > 1
    assert (positive.numpy()[several] > 0).any()


def test_smoothing_keeps_every_legal_action_possible() -> None:
    mask = np.array([[True, True, True, False, False]])
    reference = smooth_reference(np.array([[0.0, 1.0, 0.0, 0.5, 0.0]]), mask, 0.03)
    assert reference[0].tolist() == pytest.approx([0.01, 0.98, 0.01, 0.0, 0.0])
    nothing = smooth_reference(np.zeros((1, 5)), mask, 0.0)
    assert nothing[0, :3].tolist() == pytest.approx([1 / 3] * 3)
    with pytest.raises(ValueError, match="smoothing"):
        smooth_reference(np.zeros((1, 5)), mask, 1.0)


def test_bad_shapes_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="contexts must be"):
        encode_policy_contexts(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="seats must be"):
        ActorCritic(1, 5)
    with pytest.raises(ValueError, match="positive"):
        ActorCritic(6, 0)


def test_the_critics_card_embedding_is_the_one_hot_product() -> None:
    """The embedding bag equals a dense layer on ``PrivilegedObservation``'s one-hots."""
    torch.manual_seed(1)
    model = ActorCritic(6, 5, hidden=12, layers=2)
    batch = BatchedTables(SIX, 5, seed=4)
    batch.reset(stacks=200)
    tables, viewers = np.arange(5), batch.to_act.copy()
    cards = torch.from_numpy(privileged_cards(batch, tables, viewers).astype(np.int64))
    inputs = torch.randn(5, actor_input_size(6))
    showdown = torch.rand(5, 6)
    critic = model.critic
    with torch.no_grad():
        fast = critic.first_layer(inputs, cards, showdown)
        dense = critic.dense(torch.cat([inputs, showdown], dim=1))
        slow = dense + privileged_one_hot(cards) @ critic.cards.weight
    assert torch.allclose(fast, slow, atol=1e-5)


def test_the_value_uses_the_privileged_inputs() -> None:
    torch.manual_seed(0)
    model = ActorCritic(6, ActionSet().size, hidden=8, layers=1)
    inputs = torch.zeros(2, actor_input_size(6))
    cards = torch.tensor([list(range(17)), list(range(17, 34))])
    showdown = torch.zeros(2, 6)
    with torch.no_grad():
        values = model.value(inputs, cards, showdown)
    assert values.shape == (2,)
    assert float(values[0]) != float(values[1])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(0, 40))
def test_compiled_context_encoding_equals_the_plain_one(seed: int, rows: int) -> None:
    """Contexts of whole numbers (some out of the one-hot ranges), fractions and chip
    amounts, big blinds of 0 to 50: the compiled encoding equals the numpy one."""
    rng = np.random.default_rng(seed)
    whole = rng.integers(-2, 12, (rows, N_FEATURES)).astype(np.float64)
    fractions = rng.random((rows, N_FEATURES)) * rng.choice([1.0, 10.0, 5000.0], (rows, 1))
    contexts = np.where(rng.random((rows, N_FEATURES)) < 0.5, whole, fractions)
    contexts[:, Feature.BIG_BLIND] = rng.integers(0, 51, rows)
    compiled = encode_policy_contexts(contexts)
    assert compiled.dtype == np.float32
    assert np.array_equal(compiled, encode_policy_contexts_plain(contexts))
