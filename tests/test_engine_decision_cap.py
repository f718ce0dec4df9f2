"""The safety cap on decisions per hand (issue 19): the readable and the batched engine.

A decision is every voluntary action; once a hand has taken ``GameConfig.decision_cap`` of
them nobody may raise, so raise-forever play ends. Both engines must agree on every
option and result of capped hands, the batched log must hold any capped hand, and the
no-limit game keeps no cap.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import FIXED_LIMIT_MAX_DECISIONS, Betting, GameConfig
from poolshark.engine.kernel import LOG_LEN, RAKE, Rules
from poolshark.engine.table import Move, Table

MOVES = (Move.FOLD, Move.CHECK_CALL, Move.RAISE)


def limit_config(seats: int, **changes: object) -> GameConfig:
    """The issue's game: blinds 1/2, bets 2/2/4/4, four bets a round, heads-up uncapped."""
    return GameConfig(
        betting=Betting.FIXED_LIMIT,
        seats=seats,
        small_blind=1,
        big_blind=2,
        small_bet=2,
        big_bet=4,
        **changes,  # type: ignore[arg-type]
    )


def play_mirrored(
    config: GameConfig, stacks: list[int], seed: int, raise_share: float
) -> tuple[BatchedTables, Table]:
    """One hand in a batch of one and in a ``Table`` dealt the same cards: the player to
    act raises with probability ``raise_share`` whenever raising is legal, else calls (or
    sometimes folds facing a bet); every option must agree on the way."""
    rng = random.Random(seed)
    batch = BatchedTables(config, 1, seed=seed)
    batch.reset(stacks=[stacks], buttons=[0])
    table = Table(
        config,
        stacks,
        button=0,
        hole_cards=batch.hole_cards[0].tolist(),
        board=batch.boards[0].tolist(),
    )
    while not table.done:
        want = table.legal()
        legal = batch.legal()
        assert legal.to_act[0] == want.seat
        assert legal.call[0] == want.call
        assert legal.min_raise_to[0] == (-1 if want.min_raise_to is None else want.min_raise_to)
        assert legal.max_raise_to[0] == (-1 if want.max_raise_to is None else want.max_raise_to)
        if want.min_raise_to is not None and rng.random() < raise_share:
            move, amount = Move.RAISE, want.min_raise_to
        elif want.can_fold and rng.random() < 0.02:
            move, amount = Move.FOLD, 0
        else:
            move, amount = Move.CHECK_CALL, 0
        table.act(move, amount)
        batch.step([MOVES.index(move)], [amount])
        assert bool(batch.done[0]) == table.done
    return batch, table


def check_same_hand(batch: BatchedTables, table: Table) -> None:
    """Equal logs and results, chips conserved."""
    result = table.result
    assert result is not None
    assert batch.actions(0) == [
        (a.seat, MOVES.index(a.move), a.amount, int(a.street)) for a in table.log
    ]
    assert batch.net[0].tolist() == result.net
    assert batch.table[0, RAKE] == result.rake
    assert sum(result.net) == -result.rake


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    cap=st.none() | st.integers(1, 200),
    cap_heads_up=st.booleans(),
    depth=st.integers(20, 5_000),
)
def test_capped_heads_up_raise_wars_agree(
    seed: int, cap: int | None, cap_heads_up: bool, depth: int
) -> None:
    """Heads-up, both players always raise: both engines close raising at the same
    decision and end the hand identically."""
    config = limit_config(2, max_decisions=cap, cap_heads_up=cap_heads_up)
    batch, table = play_mirrored(config, [depth, depth], seed, raise_share=1.0)
    check_same_hand(batch, table)
    most = config.most_decisions
    assert most is not None
    assert len(table.log) <= most


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(2, 10),
    cap=st.integers(1, 40),
    betting=st.sampled_from(Betting),
)
def test_small_caps_agree_at_any_table(seed: int, seats: int, cap: int, betting: Betting) -> None:
    """Small explicit caps in either game at 2-10 seats: the engines agree throughout."""
    config = (
        limit_config(seats, max_decisions=cap)
        if betting is Betting.FIXED_LIMIT
        else GameConfig(seats=seats, max_decisions=cap)
    )
    batch, table = play_mirrored(config, [400] * seats, seed, raise_share=0.6)
    check_same_hand(batch, table)
    raises_after_cap = [a for a in table.log[cap:] if a.move is Move.RAISE]
    assert raises_after_cap == []
    assert len(table.log) <= cap + 4 * seats - 1


def test_raise_forever_heads_up_hand_ends_at_the_cap() -> None:
    """The default fixed-limit game: the 150th decision may still raise, the 151st may not,
    the hand then ends with the chips conserved."""
    config = limit_config(2)
    assert config.decision_cap == FIXED_LIMIT_MAX_DECISIONS == 150
    depth = 10_000
    table = Table(config, [depth, depth], button=0, seed=3)
    while not table.done:
        legal = table.legal()
        if len(table.log) < 150:
            assert legal.min_raise_to is not None
        else:
            assert legal.min_raise_to is None
        move = Move.RAISE if legal.min_raise_to is not None else Move.CHECK_CALL
        table.act(move, legal.min_raise_to or 0)
    assert 150 < len(table.log) <= 150 + 4 * 2 - 1
    assert all(a.move is not Move.RAISE for a in table.log[150:])
    result = table.result
    assert result is not None
    assert sum(result.net) == 0
    assert sum(table.stack) == 2 * depth


def test_batched_log_width_follows_the_config() -> None:
    """The log holds the longest capped hand, whatever ``max_actions`` asks for."""
    assert limit_config(10).most_decisions == 150 + 39
    assert BatchedTables(limit_config(10), 1, max_actions=2).log.shape[1] == 189
    assert BatchedTables(limit_config(2, max_decisions=500), 1).log.shape[1] == 507
    assert BatchedTables(GameConfig(seats=6), 1).log.shape[1] == 96


def test_raise_forever_batch_never_overflows() -> None:
    """Many heads-up tables raising whenever they may: every hand ends inside the log."""
    config = limit_config(2)
    batch = BatchedTables(config, 64, seed=4)
    batch.reset(stacks=100_000)
    steps = 0
    while not batch.done.all():
        legal = batch.legal()
        batch.step(np.where(legal.can_raise, 2, 1), legal.min_raise_to)
        steps += 1
    assert steps <= 150 + 7
    assert (batch.table[:, LOG_LEN] > 150).all()
    assert (batch.net.sum(axis=1) == 0).all()


def test_no_limit_is_uncapped_by_default() -> None:
    """No limit keeps no cap: a 200-decision min-raise war still offers raises."""
    config = GameConfig(seats=2)
    assert config.decision_cap is None
    assert config.most_decisions is None
    assert Rules.of(config).max_decisions == -1
    table = Table(config, [10**6, 10**6], button=0, seed=1)
    for _ in range(200):
        legal = table.legal()
        assert legal.min_raise_to is not None
        table.raise_to(legal.min_raise_to)
    assert not table.done


def test_bad_caps_are_refused() -> None:
    """A cap of no decisions is not a game."""
    with pytest.raises(ValidationError):
        GameConfig(max_decisions=0)
