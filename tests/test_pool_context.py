"""Decision contexts: the readable reference, the batch kernel and the replay kernel agree."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.kernel import (
    BET,
    BUTTON,
    LOG_AMOUNT,
    LOG_LEN,
    LOG_MOVE,
    LOG_SEAT,
    LOG_STREET,
    STACK,
    STREET,
    TOTAL,
)
from poolshark.engine.table import Table
from poolshark.pool.context import (
    N_FEATURES,
    ActionLogs,
    Facing,
    Feature,
    Position,
    TableStates,
    context_batch,
    context_from_table,
    engine_contexts,
    logs_from_tables,
    position_class,
    replay_contexts,
    states_from_tables,
)


def _random_action(table: Table, rng: np.random.Generator) -> None:
    """Fold, check/call, min-raise, any raise or all-in, so every rule path is exercised."""
    legal = table.legal()
    roll = rng.random()
    if legal.min_raise_to is not None and legal.max_raise_to is not None and roll < 0.3:
        choice = rng.integers(3)
        low, high = legal.min_raise_to, legal.max_raise_to
        total = (low, int(rng.integers(low, high + 1)), high)[choice]
        table.raise_to(total)
    elif legal.can_fold and roll < 0.5:
        table.fold()
    else:
        table.check_call()


def _random_table(rng: np.random.Generator, hand: int) -> Table:
    seats = int(rng.integers(2, 11))
    straddle = 4 if seats >= 3 and rng.random() < 0.2 else 0
    config = GameConfig(seats=seats, ante=int(rng.integers(0, 2)), straddle=straddle)
    stacks = [int(s) for s in rng.integers(1, 300, seats)]  # short stacks post all-in
    return Table(config, stacks, button=int(rng.integers(seats)), seed=hand)


def test_reference_batch_and_replay_agree_on_random_hands() -> None:
    rng = np.random.default_rng(2024)
    decisions = 0
    for hand in range(1500):
        table = _random_table(rng, hand)
        references = []
        while not table.done:
            reference = context_from_table(table)
            batch = context_batch(
                table.config, states_from_tables([table]), logs_from_tables([table])
            )
            np.testing.assert_array_equal(batch[0], reference)
            references.append(reference)
            _random_action(table, rng)
        decisions += len(references)
        if references:
            replayed = replay_contexts(
                table.config,
                np.array([table.starting_stacks]),
                np.array([table.button]),
                logs_from_tables([table]),
            )[0]
            np.testing.assert_array_equal(replayed[: len(references)], np.array(references))
    assert decisions > 10_000


def test_batch_kernel_handles_many_tables_at_once() -> None:
    rng = np.random.default_rng(7)
    config = GameConfig(seats=6)
    tables = []
    for hand in range(64):
        table = Table(config, [200] * 6, button=hand % 6, seed=hand)
        for _ in range(int(rng.integers(0, 6))):
            if not table.done:
                _random_action(table, rng)
        if not table.done:
            tables.append(table)
    batch = context_batch(config, states_from_tables(tables), logs_from_tables(tables, 12))
    assert batch.shape == (len(tables), N_FEATURES)
    for row, table in zip(batch, tables, strict=True):
        np.testing.assert_array_equal(row, context_from_table(table))


def test_position_classes() -> None:
    six = [position_class(seat, 0, 6) for seat in range(6)]
    assert six == [Position.BTN, Position.SB, Position.BB, Position.EP, Position.MP, Position.CO]
    assert [position_class(s, 1, 2) for s in range(2)] == [Position.BB, Position.BTN]
    nine = [position_class(s, 0, 9) for s in range(9)]
    assert nine[3:] == [Position.EP] * 4 + [Position.MP, Position.CO]
    assert [position_class(s, 0, 4) for s in range(4)][3] == Position.CO


def _features(table: Table) -> dict[Feature, float]:
    return dict(zip(Feature, context_from_table(table).tolist(), strict=True))


def test_three_bet_and_continuation_bet_scenario() -> None:
    table = Table(GameConfig(seats=6), [200] * 6, button=0, seed=1)
    assert table.to_act == 3  # UTG
    first = _features(table)
    assert first[Feature.POSITION] == Position.EP
    assert first[Feature.PREFLOP_FACING] == Facing.UNOPENED
    assert first[Feature.TO_CALL] == 2
    assert first[Feature.MIN_RAISE_TO] == 4
    table.raise_to(5)  # UTG opens
    table.fold()  # MP
    table.check_call()  # CO cold-calls
    table.raise_to(18)  # BTN three-bets
    table.fold()  # SB
    table.fold()  # BB
    utg = _features(table)
    assert utg[Feature.PREFLOP_FACING] == Facing.THREE_BET
    assert utg[Feature.MY_RAISE_LEVEL] == 1
    assert utg[Feature.PREFLOP_RAISES] == 2
    assert utg[Feature.TO_CALL] == 13
    assert utg[Feature.MIN_RAISE_TO] == 31
    table.check_call()  # UTG calls
    table.fold()  # CO
    flop = _features(table)  # UTG first to act postflop
    assert flop[Feature.STREET] == 1
    assert flop[Feature.ALIVE] == 2
    assert flop[Feature.IN_POSITION] == 0
    assert flop[Feature.PREFLOP_AGGRESSOR] == 0
    table.check_call()  # UTG checks
    button = _features(table)
    assert button[Feature.PREVIOUS_AGGRESSOR] == 1
    assert button[Feature.IN_POSITION] == 1
    table.raise_to(20)  # BTN c-bets 20 into 44 (blinds 3, CO 5, UTG and BTN 18 each)
    facing = _features(table)
    assert facing[Feature.CBET] == 1
    assert facing[Feature.CHECKED] == 1
    assert facing[Feature.FACING_FRACTION] == pytest.approx(20 / 44)
    assert facing[Feature.STREET_RAISES] == 1
    assert facing[Feature.POT] == 64


def test_limped_pot_features() -> None:
    table = Table(GameConfig(seats=6), [200] * 6, button=0, seed=2)
    table.check_call()  # UTG limps
    table.check_call()  # MP limps
    features = _features(table)
    assert features[Feature.PREFLOP_FACING] == Facing.LIMPED
    assert features[Feature.LIMPERS] == 2
    for _ in range(3):
        table.check_call()  # CO, BTN, SB complete
    big_blind = _features(table)
    assert big_blind[Feature.TO_CALL] == 0
    assert big_blind[Feature.POSITION] == Position.BB
    assert big_blind[Feature.LIMPERS] == 5
    assert big_blind[Feature.MIN_RAISE_TO] == 4


def test_rejects_what_it_cannot_describe() -> None:
    table = Table(GameConfig(seats=2, betting="fixed-limit"), [100, 100])
    with pytest.raises(ValueError, match="no-limit"):
        context_from_table(table)
    finished = Table(GameConfig(seats=2), [100, 100])
    finished.fold()
    with pytest.raises(ValueError, match="over"):
        context_from_table(finished)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_feature_invariants(seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = _random_table(rng, seed)
    while not table.done:
        f = _features(table)
        assert 0 <= f[Feature.TO_CALL] <= f[Feature.MY_STACK]
        assert (f[Feature.TO_CALL] > 0) == (f[Feature.FACING_BET] == 1)
        if f[Feature.MAX_RAISE_TO]:
            assert f[Feature.CURRENT_BET] < f[Feature.MIN_RAISE_TO] <= f[Feature.MAX_RAISE_TO]
            assert f[Feature.MAX_RAISE_TO] == f[Feature.MY_BET] + f[Feature.MY_STACK]
        assert 2 <= f[Feature.ALIVE] <= table.seats
        assert f[Feature.SPR] >= 0
        assert f[Feature.POT] == table.pot()
        _random_action(table, rng)


def _gathered_contexts(batch: BatchedTables, tables: np.ndarray, to_act: np.ndarray) -> np.ndarray:
    """The contexts by :func:`context_batch` on each table's state and log gathered into
    arrays (the reference :func:`engine_contexts` reads in place)."""
    width = max(1, int(batch.table[tables, LOG_LEN].max(initial=0)))
    log = batch.log[tables, :width]
    states = TableStates(
        button=batch.table[tables, BUTTON],
        to_act=to_act,
        street=batch.table[tables, STREET],
        stacks=batch.seat[tables, STACK],
        bets=batch.seat[tables, BET],
        pot=batch.seat[tables, TOTAL].sum(axis=1),
    )
    logs = ActionLogs(
        seat=np.ascontiguousarray(log[:, :, LOG_SEAT]),
        move=np.ascontiguousarray(log[:, :, LOG_MOVE]),
        amount=np.ascontiguousarray(log[:, :, LOG_AMOUNT]),
        street=np.ascontiguousarray(log[:, :, LOG_STREET]),
        length=batch.table[tables, LOG_LEN],
    )
    return context_batch(batch.config, states, logs)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 10), steps=st.integers(0, 30))
def test_engine_contexts_equal_the_gathered_batch(seed: int, seats: int, steps: int) -> None:
    """Random play on a batched engine, stopped after ``steps`` moves: the contexts read in
    place equal the gathered ones at every table still to act (tables in random order,
    some twice)."""
    rng = np.random.default_rng(seed)
    straddle = 4 if seats >= 3 and rng.random() < 0.3 else 0
    batch = BatchedTables(GameConfig(seats=seats, straddle=straddle), 16, seed=seed)
    batch.reset(stacks=rng.integers(1, 400, (16, seats)), buttons=rng.integers(0, seats, 16))
    for _ in range(steps):
        legal = batch.legal()
        low, high = np.maximum(legal.min_raise_to, 0), np.maximum(legal.max_raise_to, 0)
        amounts = low + (rng.random(16) * (high - low + 1)).astype(np.int64)
        batch.step(rng.integers(0, 3, 16), amounts)
    live = np.flatnonzero(batch.to_act >= 0)
    tables = rng.choice(live, size=2 * live.size) if live.size else live
    to_act = batch.to_act[tables]
    found = engine_contexts(batch.config, batch.seat, batch.table, batch.log, tables, to_act)
    assert found.shape == (tables.size, N_FEATURES)
    assert np.array_equal(found, _gathered_contexts(batch, tables, to_act))
