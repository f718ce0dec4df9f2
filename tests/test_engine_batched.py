"""The batched engine against the readable :class:`Table`, decision by decision.

Every batched table is mirrored by a ``Table`` dealt the same cards with the same stacks
and button. At each step the legal options must agree, the same (possibly illegal, then
coerced) request is applied to both, and at the end the results must be equal: net chips,
rake, showdown, expected value under EV settlement.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import Betting, GameConfig, Settlement
from poolshark.engine.kernel import COERCED, END_STREET, RAKE, SHOWDOWN, SHOWN
from poolshark.engine.table import Move, Table

MOVES = (Move.FOLD, Move.CHECK_CALL, Move.RAISE)


def random_config(rng: random.Random, *, ev: bool) -> GameConfig:
    """A random valid game (forced bets, fixed-limit sizes, rake, settlement)."""
    seats = rng.randint(2, 10)
    big = rng.randint(1, 10)
    fixed: dict[str, Any] = {}
    betting = rng.choice(list(Betting))
    if betting is Betting.FIXED_LIMIT:
        fixed = {
            "small_bet": rng.choice([None, rng.randint(1, 10)]),
            "big_bet": rng.choice([None, rng.randint(1, 20)]),
            "raise_cap": rng.randint(1, 5),
            "cap_heads_up": rng.random() < 0.5,
        }
    return GameConfig(
        betting=betting,
        seats=seats,
        small_blind=rng.randint(0, big),
        big_blind=big,
        ante=rng.choice([0, 0, 1, 2, 5]),
        straddle=rng.randint(2 * big, 4 * big) if seats >= 3 and rng.random() < 0.3 else 0,
        rake_percent=rng.choice([0.0, 0.0, 2.5, 4.6, 5.0, 10.0, 100.0]),
        rake_cap=rng.choice([None, rng.randint(0, 30)]),
        no_flop_no_drop=rng.random() < 0.5,
        settlement=Settlement.EXPECTED_VALUE if ev else Settlement.DEAL,
        **fixed,
    )


def random_stacks(rng: random.Random, seats: int) -> list[int]:
    """Stacks mixing all-in-on-the-blinds, medium and deep."""
    return [
        rng.choice([rng.randint(1, 12), rng.randint(13, 200), rng.randint(201, 3000)])
        for _ in range(seats)
    ]


def request(rng: random.Random, legal: Any) -> tuple[int, int]:
    """A request for one table: mostly legal, sometimes illegal (to exercise coercion)."""
    if rng.random() < 0.05:
        return rng.choice([0, 1, 2, 3, 7]), rng.randint(-5, 5000)
    if legal.can_fold and rng.random() < 0.25:
        return 0, 0
    if legal.min_raise_to is not None and rng.random() < 0.3:
        low, high = legal.min_raise_to, legal.max_raise_to
        return 2, high if rng.random() < 0.2 else rng.randint(low, min(high, low + 3 * low))
    return 1, 0


def coerced(legal: Any, move: int, amount: int) -> tuple[Move, int]:
    """What the batched engine promises to do with a request (the module's contract)."""
    if (move == 0 and not legal.can_fold) or move not in (0, 1, 2):
        return Move.CHECK_CALL, 0
    if move == 2 and legal.min_raise_to is None:
        return Move.CHECK_CALL, 0
    if move == 2:
        return Move.RAISE, min(max(amount, legal.min_raise_to), legal.max_raise_to)
    return MOVES[move], 0


def play_against_tables(config: GameConfig, tables: int, hands: int, seed: int) -> int:
    """Drive a batch and its mirror Tables until ``hands`` hands finished; return them."""
    rng = random.Random(seed)
    batch = BatchedTables(config, tables, seed=seed)
    mirrors: dict[int, Table] = {}

    def deal(index: np.ndarray) -> None:
        stacks = [random_stacks(rng, config.seats) for _ in index]
        buttons = [rng.randrange(config.seats) for _ in index]
        batch.reset(index, stacks=stacks, buttons=buttons)
        for k, i in enumerate(index.tolist()):
            mirrors[i] = Table(
                config,
                stacks[k],
                button=buttons[k],
                hole_cards=batch.hole_cards[i].tolist(),
                board=batch.boards[i].tolist(),
            )

    deal(np.arange(tables))
    finished = 0
    while finished < hands:
        legal = batch.legal()
        moves = np.zeros(tables, dtype=np.int64)
        amounts = np.zeros(tables, dtype=np.int64)
        for i, table in mirrors.items():
            if table.done:
                continue
            want = table.legal()
            assert legal.to_act[i] == want.seat
            assert legal.call[i] == want.call
            assert legal.min_raise_to[i] == (-1 if want.min_raise_to is None else want.min_raise_to)
            assert legal.max_raise_to[i] == (-1 if want.max_raise_to is None else want.max_raise_to)
            moves[i], amounts[i] = request(rng, want)
            move, amount = coerced(want, int(moves[i]), int(amounts[i]))
            table.act(move, amount)
        batch.step(moves, amounts)
        for i, table in mirrors.items():
            assert bool(batch.done[i]) == table.done, f"table {i}: {table.log}"
        done = [i for i, t in mirrors.items() if t.done]
        for i in done:
            check_finished(batch, i, mirrors[i])
        finished += len(done)
        if done:
            deal(np.array(done))
    return finished


def check_finished(batch: BatchedTables, i: int, table: Table) -> None:
    """The batched result equals the Table's, field by field."""
    result = table.result
    assert result is not None
    context = f"table {i}: {table.to_dict()}"
    assert batch.net[i].tolist() == result.net, context
    assert batch.table[i, RAKE] == result.rake, context
    assert bool(batch.table[i, SHOWDOWN]) == result.showdown, context
    assert batch.table[i, SHOWN] == len(table.board), context
    assert [a for a in batch.actions(i)] == [
        (a.seat, MOVES.index(a.move), a.amount, int(a.street)) for a in table.log
    ], context
    assert batch.expected_net[i].tolist() == pytest.approx(result.expected_net, abs=1e-9)
    if result.showdown:
        assert batch.table[i, END_STREET] == int(table.log[-1].street if table.log else 0)


def test_batched_engine_matches_table_on_10000_hands() -> None:
    """>= 10,000 random hands over 30 random games (2-10 seats, NL and FL, antes,
    straddles, rake, short stacks), every decision's options and every result equal."""
    rng = random.Random(2026)
    total = 0
    for game in range(30):
        config = random_config(rng, ev=False)
        total += play_against_tables(config, tables=48, hands=340, seed=game)
    assert total >= 10_000


def test_ev_settlement_matches_table() -> None:
    """Under EV settlement the batched expectation equals the Table's exact enumeration."""
    rng = random.Random(7)
    for game in range(3):
        config = random_config(rng, ev=True).model_copy(update={"seats": rng.randint(2, 4)})
        play_against_tables(config, tables=8, hands=30, seed=100 + game)


@st.composite
def games(draw: st.DrawFn) -> GameConfig:
    seats = draw(st.integers(2, 10))
    big = draw(st.integers(1, 10))
    return GameConfig(
        betting=draw(st.sampled_from(Betting)),
        seats=seats,
        small_blind=draw(st.integers(0, big)),
        big_blind=big,
        ante=draw(st.sampled_from([0, 1, 3])),
        rake_percent=draw(st.sampled_from([0.0, 5.0])),
        rake_cap=draw(st.none() | st.integers(0, 20)),
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config=games(),
    seed=st.integers(0, 2**32 - 1),
    junk=st.lists(st.tuples(st.integers(0, 5), st.integers(-(10**6), 10**6)), min_size=1),
)
def test_any_requests_keep_chips_and_finish(
    config: GameConfig, seed: int, junk: list[tuple[int, int]]
) -> None:
    """Arbitrary (even nonsense) moves and amounts: every hand ends, chips are conserved
    (net sums to minus the rake), stacks never go negative, bad requests are counted."""
    batch = BatchedTables(config, 8, seed=seed, max_actions=4096)  # min-raise wars
    stacks = np.random.default_rng(seed).integers(1, 500, size=(8, config.seats))
    batch.reset(stacks=stacks)
    steps = 0
    while not batch.done.all():
        move, amount = junk[steps % len(junk)]
        batch.step(np.full(8, move), np.full(8, amount))
        steps += 1
        assert steps < 2_000
        assert (batch.stacks >= 0).all()
    assert (batch.net.sum(axis=1) == -batch.table[:, RAKE]).all()
    assert ((batch.stacks.sum(axis=1) + batch.table[:, RAKE]) == stacks.sum(axis=1)).all()
    if move not in (0, 1, 2):
        assert batch.table[:, COERCED].sum() > 0 or steps == 0


def test_negative_moves_leave_tables_waiting() -> None:
    """A table given a negative move does not act; the others do."""
    batch = BatchedTables(GameConfig(seats=6), 3, seed=1)
    batch.reset(stacks=100)
    before = batch.to_act.copy()
    batch.step([-1, 1, -1])
    assert batch.to_act[0] == before[0]
    assert batch.to_act[2] == before[2]
    assert batch.to_act[1] != before[1]
    assert batch.actions(0) == []
    assert len(batch.actions(1)) == 1


def test_tables_reset_independently() -> None:
    """Resetting some tables leaves the others' hands untouched."""
    batch = BatchedTables(GameConfig(seats=6), 10, seed=3)
    batch.reset(stacks=100)
    batch.step(np.full(10, 1))
    seat, table, cards = batch.seat.copy(), batch.table.copy(), batch.cards.copy()
    batch.reset([2, 5], stacks=300)
    others = [i for i in range(10) if i not in (2, 5)]
    assert (batch.seat[others] == seat[others]).all()
    assert (batch.table[others] == table[others]).all()
    assert (batch.cards[others] == cards[others]).all()
    assert (batch.seat[[2, 5], 0] == 300).all()


def test_same_seed_same_hands() -> None:
    """Dealing and random play are reproducible from the seed, independent of batch size."""
    first = BatchedTables(GameConfig(seats=6), 4, seed=11)
    second = BatchedTables(GameConfig(seats=6), 4, seed=11)
    first.reset()
    second.reset()
    assert (first.cards == second.cards).all()
    assert (first.play_random(200, 100).won == second.play_random(200, 100).won).all()
    other = BatchedTables(GameConfig(seats=6), 4, seed=12)
    other.reset()
    assert not (other.cards == first.cards).all()


def test_random_play_conserves_chips_without_rake() -> None:
    play = BatchedTables(GameConfig(seats=6), 64, seed=5).play_random(5_000, 200)
    won = play.won
    assert play.actions > 5_000 * 3
    assert won.sum() == 0
    assert np.abs(won).sum() > 0


def test_dealt_cards_are_distinct() -> None:
    batch = BatchedTables(GameConfig(seats=10), 500, seed=9)
    batch.reset()
    assert all(len(set(row.tolist())) == 25 for row in batch.cards)


def test_given_cards_are_used_and_checked() -> None:
    batch = BatchedTables(GameConfig(seats=2), 1)
    batch.reset(hole_cards=[[[0, 1], [2, 3]]], boards=[[4, 5, 6, 7, 8]])
    assert batch.hole_cards[0].tolist() == [[0, 1], [2, 3]]
    with pytest.raises(ValueError, match="dealt twice"):
        batch.reset([0], hole_cards=[[[0, 1], [2, 3]]], boards=[[4, 5, 6, 7, 0]])
    with pytest.raises(ValueError, match=r"0\.\.51"):
        batch.reset([0], hole_cards=[[[0, 1], [2, 3]]], boards=[[4, 5, 6, 7, 52]])
    with pytest.raises(ValueError, match="boards together"):
        batch.reset([0], hole_cards=[[[0, 1], [2, 3]]])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"which": [3]}, "table index out of range"),
        ({"stacks": 0}, "positive"),
        ({"buttons": 2}, "button must be a seat"),
    ],
)
def test_bad_resets_are_refused(kwargs: dict[str, Any], message: str) -> None:
    batch = BatchedTables(GameConfig(seats=2), 2)
    with pytest.raises(ValueError, match=message):
        batch.reset(**kwargs)


def test_too_long_hands_overflow_loudly() -> None:
    batch = BatchedTables(GameConfig(seats=2), 1, max_actions=2)
    batch.reset(stacks=10_000)
    batch.step([2], batch.legal().min_raise_to)
    batch.step([2], batch.legal().min_raise_to)
    with pytest.raises(OverflowError, match="max_actions=2"):
        batch.step([2], batch.legal().min_raise_to)


def test_legal_mask() -> None:
    batch = BatchedTables(GameConfig(seats=3), 2)
    batch.reset(stacks=100)
    mask = batch.legal().mask()
    assert mask.tolist() == [[True, True, True], [True, True, True]]
    batch.step([0, 0])
    batch.step([0, 0])
    assert batch.done.all()
    assert batch.legal().mask().tolist() == [[False, False, False], [False, False, False]]
