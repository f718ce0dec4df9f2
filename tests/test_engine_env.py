"""The RL faces of the batched engine: action set, observations, environments, seating."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.engine.actions import ActionSet
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.kernel import CHECK_CALL, FOLD, RAISE
from poolshark.engine.observation import PrivilegedObservation, PublicObservation
from poolshark.engine.seating import FastFoldSeating
from poolshark.play.env import HoldemEnv, MultiAgentView, VectorEnv, random_policy

SIX = GameConfig(seats=6, small_blind=1, big_blind=2)


def test_action_set_maps_pot_fractions_to_exact_raises() -> None:
    """Preflop 6-max, 1/2 blinds, UTG to act: a pot raise is 2 + (3 + 2) = 7."""
    batch = BatchedTables(SIX, 1)
    batch.reset(stacks=200, buttons=0)
    legal = batch.legal()
    actions = ActionSet.of([0.5, 1.0])
    assert actions.names == ["fold", "call", "raise 0.5 pot", "raise 1 pot", "all-in"]
    moves, amounts = actions.to_moves(batch, legal, np.array([3]))
    assert moves.tolist() == [RAISE]
    assert amounts.tolist() == [7]
    _, half = actions.to_moves(batch, legal, np.array([2]))
    assert half.tolist() == [4]  # 2 + floor(2.5) = 4, the minimum raise
    _, shove = actions.to_moves(batch, legal, np.array([4]))
    assert shove.tolist() == [200]
    moves, _ = actions.to_moves(batch, legal, np.array([0]))
    assert moves.tolist() == [FOLD]
    moves, _ = actions.to_moves(batch, legal, np.array([1]))
    assert moves.tolist() == [CHECK_CALL]
    assert actions.mask(batch, legal).tolist() == [[True, True, True, True, True]]


def test_raise_caps_mask_raises_bigger_than_the_street_allows() -> None:
    """UTG preflop: a pot raise is 5 chips beyond the call over a pot of 5 (size 1.0), the
    shove 198 over 5 (39.6); a preflop cap of 2 keeps the pot raise and drops the shove,
    and a flop cap does nothing preflop."""
    batch = BatchedTables(SIX, 1)
    batch.reset(stacks=200, buttons=0)
    legal = batch.legal()
    plain = ActionSet.of([0.5, 1.0])
    assert plain.raise_sizes(batch, legal).tolist() == [[0.4, 1.0, 39.6]]  # 0.5 pot: min-raise
    capped = ActionSet.of([0.5, 1.0], raise_caps=[2.0, 0.1, 0.1, 0.1])
    assert capped.mask(batch, legal).tolist() == [[True, True, True, True, False]]
    assert capped.to_moves(batch, legal, np.array([3]))[1].tolist() == [7]
    tight = ActionSet.of([0.5, 1.0], raise_caps=[0.5, 9.0, 9.0, 9.0])
    assert tight.mask(batch, legal).tolist() == [[True, True, True, False, False]]
    short = BatchedTables(SIX, 1)
    short.reset(stacks=8, buttons=0)  # the shove is 6 beyond the call over 5: size 1.2
    assert capped.mask(short, short.legal()).tolist() == [[True, True, True, True, True]]
    with pytest.raises(ValueError, match="raise caps"):
        ActionSet.of([1.0], raise_caps=[1.0, 1.0])
    with pytest.raises(ValueError, match="raise caps"):
        ActionSet.of([1.0], raise_caps=[1.0, 0.0, 1.0, 1.0])


def test_action_set_rejects_bad_choices() -> None:
    batch = BatchedTables(SIX, 2)
    batch.reset()
    with pytest.raises(ValueError, match=r"choices are 0\.\.4"):
        ActionSet().to_moves(batch, batch.legal(), np.array([0, 5]))
    with pytest.raises(ValueError, match="one choice per table"):
        ActionSet().to_moves(batch, batch.legal(), np.array([0]))
    with pytest.raises(ValueError, match="positive"):
        ActionSet.of([0.0])


def test_public_observation_hides_other_cards_and_future_board() -> None:
    batch = BatchedTables(SIX, 4, seed=2)
    batch.reset(stacks=200)
    encoder = PublicObservation(6)
    tables = np.arange(4)
    viewers = batch.to_act.copy()
    obs = encoder.encode(batch, tables, viewers)
    assert obs.shape == (4, encoder.size)
    for i in range(4):
        own = set(batch.hole_cards[i, viewers[i]].tolist())
        assert set(np.flatnonzero(obs[i, :52]).tolist()) == own
        assert obs[i, 52:104].sum() == 0  # preflop: no board yet
    privileged = PrivilegedObservation(6).encode(batch, tables, viewers)
    assert privileged.shape == (4, PrivilegedObservation(6).size)
    assert (privileged[:, : encoder.size] == obs).all()
    assert privileged[0, encoder.size :].sum() == 6 * 2 + 5


def test_observation_is_relative_to_the_viewer() -> None:
    """The same spot seen from two seats rotates the seat features."""
    batch = BatchedTables(SIX, 1, seed=3)
    batch.reset(stacks=[[100, 200, 300, 400, 500, 600]], buttons=0)
    encoder = PublicObservation(6)
    one = encoder.encode(batch, np.array([0]), np.array([1]))
    four = encoder.encode(batch, np.array([0]), np.array([4]))
    stacks_one = one[0, 104 : 104 + 30 : 5]
    stacks_four = four[0, 104 : 104 + 30 : 5]
    assert np.allclose(np.roll(stacks_one, -3), stacks_four)


def test_vector_env_rewards_sum_to_zero_in_self_play_mirror() -> None:
    """A learner that plays like its opponents: every step returns to a learner decision,
    rewards are booked only for finished hands, and chips are conserved in the batch."""
    env = VectorEnv(SIX, 32, random_policy(1), seed=4, expected_rewards=False)
    observations, masks = env.reset()
    assert observations.shape == (32, env.encoder.size)
    learner = random_policy(2)
    total = 0.0
    hands = 0
    for _ in range(300):
        assert (env.batch.to_act == 0).all()
        observations, masks, rewards, finished = env.step(learner(observations, masks))
        assert (rewards[~finished] == 0).all()
        total += rewards.sum()
        hands += int(finished.sum())
    assert hands > 100
    assert abs(total / hands) < 20  # random vs random: no big edge either way


def test_vector_env_learner_that_always_folds_loses_its_blinds() -> None:
    """Folding every hand costs exactly the blinds posted from seat 0 (and nothing else)."""
    env = VectorEnv(SIX, 16, random_policy(1), seed=5, expected_rewards=False)
    _, masks = env.reset()
    always_fold = np.where(masks[:, 0], 0, 1)
    losses = []
    for _ in range(100):
        _, masks, rewards, finished = env.step(always_fold)
        always_fold = np.where(masks[:, 0], 0, 1)
        losses.extend(rewards[finished].tolist())
    assert losses
    assert all(r in (0.0, -0.5, -1.0) or r > 0 for r in losses)


def test_per_seat_opponents_must_cover_every_seat() -> None:
    with pytest.raises(ValueError, match="one policy per seat"):
        VectorEnv(SIX, 2, [random_policy()] * 3)


def test_holdem_env_is_gymnasium_shaped() -> None:
    env = HoldemEnv(SIX, random_policy(3))
    observation, info = env.reset(seed=7)
    assert observation.shape == (env.observation_size,)
    assert info["mask"].shape == (len(env.action_names),)
    ended = 0
    for _ in range(200):
        legal = np.flatnonzero(info["mask"])
        observation, reward, terminated, truncated, info = env.step(int(legal[-1]))
        assert truncated is False
        ended += terminated
        if not terminated:
            assert reward == 0.0
    assert ended > 10


def test_holdem_env_is_reproducible_from_a_seed() -> None:
    def run() -> list[float]:
        env = HoldemEnv(SIX, random_policy(3))
        _, info = env.reset(seed=11)
        rewards = []
        for _ in range(50):
            _, reward, _, _, info = env.step(int(np.flatnonzero(info["mask"])[0]))
            rewards.append(reward)
        return rewards

    assert run() == run()


def test_multi_agent_view_plays_every_seat() -> None:
    view = MultiAgentView(SIX, 8, seed=6)
    policy = random_policy(4)
    seen = set()
    finished = 0
    for _ in range(400):
        seats, observations, masks = view.observe_all()
        seen.update(seats.tolist())
        done, results = view.act(policy(observations, masks))
        finished += done.size
        assert np.allclose(results.sum(axis=1), 0)
    assert seen == set(range(6))
    assert finished > 50


def test_fast_fold_seating_draws_fresh_distinct_players() -> None:
    seating = FastFoldSeating(500, 6, depth=200, seed=1)
    players = seating.draw(40)
    assert players.shape == (40, 6)
    assert len(set(players.ravel().tolist())) == 240  # distinct across tables too
    crowded = seating.draw(200)  # more seats than players: distinct per table only
    assert all(len(set(row.tolist())) == 6 for row in crowded)
    again = seating.draw(40)
    assert not (again == players).all()


def test_fast_fold_seating_resets_stacks_and_books_results() -> None:
    batch = BatchedTables(SIX, 10, seed=8)
    seating = FastFoldSeating(100, 6, depth=200, seed=2)
    index = np.arange(10)
    players = seating.deal(batch, index)
    assert (batch.seat[:, 0] == 200).all()
    while not batch.done.all():
        batch.step(np.ones(10, dtype=np.int64))
    seating.book(players, batch.net)
    assert seating.hands.sum() == 60
    assert seating.won.sum() == 0


def test_fast_fold_seating_rejects_small_pools() -> None:
    with pytest.raises(ValueError, match="cannot fill"):
        FastFoldSeating(5, 6, depth=100)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 10), steps=st.integers(0, 25))
def test_compiled_public_observations_equal_the_plain_ones(
    seed: int, seats: int, steps: int
) -> None:
    """Random play (some seats empty, odd blinds) stopped after ``steps`` moves: the compiled
    encoding equals the readable numpy one for any viewer at any table, finished or not."""
    rng = np.random.default_rng(seed)
    config = GameConfig(seats=seats, small_blind=int(rng.integers(1, 3)), big_blind=3)
    batch = BatchedTables(config, 12, seed=seed)
    stacks = rng.integers(1, 500, (12, seats)) * (rng.random((12, seats)) < 0.8)
    stacks[:, :2] = rng.integers(1, 500, (12, 2))
    buttons = [rng.choice(np.flatnonzero(row)) for row in stacks]  # not on an empty seat
    batch.reset(stacks=stacks, buttons=buttons)
    for _ in range(steps):
        legal = batch.legal()
        low, high = np.maximum(legal.min_raise_to, 0), np.maximum(legal.max_raise_to, 0)
        amounts = low + (rng.random(12) * (high - low + 1)).astype(np.int64)
        batch.step(rng.integers(0, 3, 12), amounts)
    tables = rng.integers(0, 12, 20)
    viewers = rng.integers(0, seats, 20)
    encoder = PublicObservation(seats)
    compiled = encoder.encode(batch, tables, viewers)
    assert compiled.dtype == np.float32
    assert np.array_equal(compiled, encoder.encode_plain(batch, tables, viewers))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    fractions=st.lists(st.sampled_from([0.33, 0.5, 0.75, 1.0, 2.0]), max_size=3),
    all_in=st.booleans(),
    capped=st.booleans(),
)
def test_actions_at_some_tables_equal_those_rows_of_every_table(
    seed: int, fractions: list[float], all_in: bool, capped: bool
) -> None:
    """Masks, raise amounts and moves computed at some tables only (in any order, repeated)
    equal those tables' rows computed at every table."""
    rng = np.random.default_rng(seed)
    caps = [float(c) for c in rng.choice([0.4, 1.0, 3.0], 4)] if capped else None
    actions = ActionSet.of(fractions, all_in=all_in, raise_caps=caps)
    batch = BatchedTables(SIX, 10, seed=seed)
    batch.reset(stacks=rng.integers(1, 400, (10, 6)), buttons=rng.integers(0, 6, 10))
    for _ in range(int(rng.integers(0, 12))):
        legal = batch.legal()
        low, high = np.maximum(legal.min_raise_to, 0), np.maximum(legal.max_raise_to, 0)
        amounts = low + (rng.random(10) * (high - low + 1)).astype(np.int64)
        batch.step(rng.integers(0, 3, 10), amounts)
    legal = batch.legal()
    rows = rng.integers(0, 10, 15)
    choices = rng.integers(0, actions.size, 10)
    assert np.array_equal(actions.mask(batch, legal, rows), actions.mask(batch, legal)[rows])
    assert np.array_equal(
        actions.raise_amounts(batch, legal, rows), actions.raise_amounts(batch, legal)[rows]
    )
    moves, amounts = actions.to_moves(batch, legal, choices)
    some_moves, some_amounts = actions.moves_at(batch, legal, rows, choices[rows])
    assert np.array_equal(some_moves, moves[rows])
    assert np.array_equal(some_amounts, amounts[rows])
