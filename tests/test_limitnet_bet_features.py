"""The network player's bet features: the compiled batch version equals the readable
reference on random fixed-limit hands, and hand-checked values on a known spot."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import Betting, GameConfig
from poolshark.engine.table import Table
from poolshark.limitnet.bet_features import (
    BET_FEATURES,
    batch_bet_features,
    table_bet_features,
)


def limit_game(seats: int, cap_heads_up: bool = False) -> GameConfig:
    """Blinds 1/2, bets 2/2/4/4, four bets a round (uncapped heads-up unless asked)."""
    return GameConfig(
        betting=Betting.FIXED_LIMIT,
        seats=seats,
        small_blind=1,
        big_blind=2,
        small_bet=2,
        big_bet=4,
        cap_heads_up=cap_heads_up,
    )


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 10),
    st.integers(0, 2**31 - 1),
    st.booleans(),
    st.lists(st.integers(6, 60), min_size=10, max_size=10),
)
def test_batch_features_equal_the_table_reference(
    seats: int, seed: int, cap_heads_up: bool, stacks: list[int]
) -> None:
    config = limit_game(seats, cap_heads_up)
    rng = np.random.default_rng(seed)
    button = int(rng.integers(seats))
    table = Table(config, stacks[:seats], button=button, seed=seed)
    batch = BatchedTables(config, 1)
    batch.reset(
        stacks=[stacks[:seats]],
        buttons=[button],
        hole_cards=[table.hole_cards],
        boards=[table.board_cards],
    )
    steps = 0
    while not table.done:
        assert int(batch.to_act[0]) == table.to_act
        reference, ref_costs = table_bet_features(table)
        features, costs = batch_bet_features(batch, np.array([0]))
        np.testing.assert_allclose(features[0], reference, err_msg=f"step {steps}")
        np.testing.assert_allclose(costs[0], ref_costs)
        legal = table.legal()
        moves = [1] + [0] * legal.can_fold + [2] * 2 * (legal.min_raise_to is not None)
        move = int(rng.choice(moves))
        amount = legal.min_raise_to or 0
        table.act(("fold", "call", "raise")[move], amount)
        batch.step([move], [amount])
        steps += 1
    assert batch.done[0]


def test_hand_checked_features_three_handed_preflop() -> None:
    # Button (seat 0) to act first three-handed; blinds 1 and 2 in; pot 3 chips.
    table = Table(limit_game(3), [100, 100, 100], button=0, seed=1)
    features, costs = table_bet_features(table)
    call = dict(zip(BET_FEATURES, features[0], strict=True))
    raised = dict(zip(BET_FEATURES, features[1], strict=True))
    assert call == {
        "opponents": 2,
        "ends_stage": 0,
        "pot": 2.5,  # 1 + 2 + 2 chips = 5 chips, 2.5 small bets
        "owed": 0.5,  # the small blind owes 1 chip
        "fair_share": 1.0,  # (5 + 1) chips / 3 players, in small bets
        "to_act_now": 2,  # both blinds still have a decision
        "to_act_next": 0,  # the button acts last after the flop
        "heads_up": 0,
        "bets_to_cap": 3,  # the blind was the first bet
    }
    assert raised["pot"] == 3.5
    assert raised["owed"] == 2.5
    assert raised["bets_to_cap"] == 2
    assert raised["to_act_now"] == 2
    assert costs.tolist() == [1.0, 2.0]
    table.check_call()
    table.check_call()  # small blind completes; the big blind's check would end the round
    features, _ = table_bet_features(table)
    assert features[0, 1] == 1
    assert features[1, 1] == 0
    assert features[0, 6] == 1  # after the flop only the button acts after the big blind
