"""Empty seats (a starting stack of 0): a busted player sits out, for tournament play.

The main property: a 6-seat table with empty seats plays exactly like a smaller table of
only its occupied seats (same cards, same actions: same options at every decision, same
stacks, nets, rake and log once seats are renumbered), in the compiled kernel
(``BatchedTables``) and in the readable ``Table``, which must also agree with each other.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolshark.agents.protocol import Decisions, EndedHands
from poolshark.engine.batched import BatchedTables, next_occupied_seats
from poolshark.engine.config import Betting, GameConfig, Settlement
from poolshark.engine.kernel import BET, BUTTON, FOLDED, RAKE, SHOWDOWN, START, TOTAL
from poolshark.engine.observation import PER_SEAT, PrivilegedObservation, PublicObservation
from poolshark.engine.runouts import sampled_net
from poolshark.engine.table import ForcedBets, Legal, Move, Table

MOVES = (Move.FOLD, Move.CHECK_CALL, Move.RAISE)
SEATS = 6


def legal_row(batch: BatchedTables, i: int = 0) -> tuple[int, int, int, int]:
    """(to act, call, min raise-to, max raise-to) of batch table ``i``."""
    legal = batch.legal()
    return (
        int(legal.to_act[i]),
        int(legal.call[i]),
        int(legal.min_raise_to[i]),
        int(legal.max_raise_to[i]),
    )


def legal_of(table: Table) -> tuple[int, int, int, int]:
    """The same four numbers from a ``Table`` (-1: raising not allowed)."""
    legal = table.legal()
    low = -1 if legal.min_raise_to is None else legal.min_raise_to
    high = -1 if legal.max_raise_to is None else legal.max_raise_to
    return legal.seat, legal.call, low, high


def choose(rng: random.Random, legal: Legal, *, calm: bool = False) -> tuple[Move, int]:
    """A random legal action, all-ins included (so stacks run out and players bust);
    ``calm`` raises less and rarely all-in, so a tournament lasts many hands."""
    if legal.can_fold and rng.random() < 0.25:
        return Move.FOLD, 0
    raising, all_in = (0.2, 0.03) if calm else (0.35, 0.3)
    if legal.min_raise_to is not None and legal.max_raise_to is not None:
        low, high = legal.min_raise_to, legal.max_raise_to
        if rng.random() < raising:
            if rng.random() < all_in:
                return Move.RAISE, high
            return Move.RAISE, rng.randint(low, min(high, 3 * low) if calm else high)
    return Move.CHECK_CALL, 0


def one_table(config: GameConfig, stacks: list[int], button: int, cards: list[int]) -> Any:
    """A 1-table batch dealt ``cards`` (hole cards of every seat, then the board)."""
    batch = BatchedTables(config, 1, max_actions=200)
    n = config.seats
    batch.reset(
        [0],
        stacks=[stacks],
        buttons=[button],
        hole_cards=[np.reshape(cards[: 2 * n], (n, 2))],
        boards=[cards[2 * n : 2 * n + 5]],
    )
    return batch


@st.composite
def sit_outs(draw: st.DrawFn) -> tuple[GameConfig, list[int], int, int]:
    """A 6-seat game, stacks with 2-6 occupied seats (0: empty), a button on an occupied
    seat, and a seed for the cards and actions."""
    fixed_limit = draw(st.booleans())
    big = draw(st.integers(1, 6))
    config = GameConfig(
        betting=Betting.FIXED_LIMIT if fixed_limit else Betting.NO_LIMIT,
        seats=SEATS,
        small_blind=draw(st.integers(0, big)),
        big_blind=big,
        ante=draw(st.sampled_from([0, 0, 1, 3])),
        straddle=draw(st.sampled_from([0, 0, 2 * big, 3 * big])),
        raise_cap=draw(st.integers(1, 5)),
        cap_heads_up=draw(st.booleans()),
        rake_percent=draw(st.sampled_from([0.0, 0.0, 5.0, 10.0])),
        rake_cap=draw(st.sampled_from([None, 3])),
        no_flop_no_drop=draw(st.booleans()),
        settlement=draw(st.sampled_from(list(Settlement))),
    )
    occupied = draw(
        st.lists(st.booleans(), min_size=SEATS, max_size=SEATS).filter(lambda o: sum(o) >= 2)
    )
    stacks = [draw(st.sampled_from([1, 3, 8, 40, 150, 1000])) if here else 0 for here in occupied]
    button = draw(st.sampled_from([s for s in range(SEATS) if occupied[s]]))
    return config, stacks, button, draw(st.integers(0, 2**31))


def smaller_game(config: GameConfig, seats: int) -> GameConfig:
    """The same game at a table of only ``seats`` seats (no straddle heads-up)."""
    straddle = config.straddle if seats > 2 else 0
    return config.model_copy(update={"seats": seats, "straddle": straddle})


def renumbered(log: list[tuple[int, int, int, int]], seats: list[int]) -> list[Any]:
    """A small table's log with its seats renamed to the big table's ``seats``."""
    return [(seats[s], move, amount, street) for s, move, amount, street in log]


def table_log(table: Table) -> list[tuple[int, int, int, int]]:
    return [(a.seat, MOVES.index(a.move), a.amount, int(a.street)) for a in table.log]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sit_outs())
def test_empty_seats_play_like_a_smaller_table(
    case: tuple[GameConfig, list[int], int, int],
) -> None:
    """Kernel and reference, big table with empty seats and small table of the occupied
    seats: the same options at every decision, then the same results and logs."""
    config, stacks, button, seed = case
    rng = random.Random(seed)
    occupied = [s for s in range(SEATS) if stacks[s] > 0]
    m = len(occupied)
    small_config = smaller_game(config, m)
    deck = rng.sample(range(52), 2 * SEATS + 5)
    board = deck[2 * SEATS :]
    big_holes = [deck[2 * s : 2 * s + 2] for s in range(SEATS)]
    small_holes = [big_holes[s] for s in occupied]
    small_stacks = [stacks[s] for s in occupied]
    small_button = occupied.index(button)

    big_batch = one_table(config, stacks, button, deck)
    small_batch = one_table(
        small_config, small_stacks, small_button, [c for h in small_holes for c in h] + board
    )
    no_cards: list[int] = []
    big_table = Table(
        config,
        stacks,
        button=button,
        hole_cards=[h if stacks[s] else no_cards for s, h in enumerate(big_holes)],
        board=board,
    )
    small_table = Table(
        small_config, small_stacks, button=small_button, hole_cards=small_holes, board=board
    )
    while not big_table.done:
        seat, call, low, high = legal_of(big_table)
        small_seat, *small_rest = legal_of(small_table)
        assert legal_row(big_batch) == (seat, call, low, high)
        assert legal_row(small_batch) == (small_seat, *small_rest)
        assert occupied[small_seat] == seat
        assert small_rest == [call, low, high]
        move, amount = choose(rng, big_table.legal())
        for table in (big_table, small_table):
            table.act(move, amount)
        for batch in (big_batch, small_batch):
            batch.step([MOVES.index(move)], [amount])
    assert small_table.done
    assert big_batch.done[0]
    assert small_batch.done[0]

    big, small = big_table.result, small_table.result
    assert big is not None
    assert small is not None
    expected_big = [0] * SEATS
    for j, s in enumerate(occupied):
        expected_big[s] = small.net[j]
    assert big.net == expected_big
    assert big_batch.net[0].tolist() == expected_big
    assert small_batch.net[0].tolist() == small.net
    assert (big.rake, big.showdown) == (small.rake, small.showdown)
    assert int(big_batch.table[0, RAKE]) == big.rake
    assert bool(big_batch.table[0, SHOWDOWN]) == big.showdown
    assert all(big_table.stack[s] == 0 for s in range(SEATS) if s not in occupied)
    assert [big_table.stack[s] for s in occupied] == small_table.stack
    assert big_batch.stacks[0].tolist() == big_table.stack
    assert table_log(big_table) == renumbered(table_log(small_table), occupied)
    assert big_batch.actions(0) == table_log(big_table)
    assert small_batch.actions(0) == table_log(small_table)
    assert sum(big.net) == -big.rake
    big_expected = [big.expected_net[s] for s in occupied]
    assert big_expected == pytest.approx(small.expected_net, abs=1e-9)
    assert big_batch.expected_net[0].tolist() == pytest.approx(big.expected_net, abs=1e-9)
    assert Table.from_dict(big_table.to_dict()).result == big


def test_sampled_runouts_leave_empty_seats_cards_in_the_deck() -> None:
    """An all-in before the flop with seats 1 and 3 empty: the sampled runouts (same
    stream) equal those of the 4-seat table of the occupied seats, to the last bit."""
    rng = random.Random(4)
    deck = rng.sample(range(52), 2 * SEATS + 5)
    occupied = [0, 2, 4, 5]
    stacks = [100, 0, 100, 0, 100, 100]
    small_cards = [c for s in occupied for c in deck[2 * s : 2 * s + 2]] + deck[2 * SEATS :]
    results = []
    for config, seat_stacks, cards in (
        (GameConfig(seats=SEATS), stacks, deck),
        (GameConfig(seats=4), [100] * 4, small_cards),
    ):
        batch = one_table(config, seat_stacks, 0, cards)
        batch.step([2], [100])  # the first to act shoves; everyone calls
        while not batch.done[0]:
            batch.step([1])
        results.append(sampled_net(batch, np.array([0]), 40, np.random.default_rng(9))[0])
    big, small = results
    assert big[occupied].tolist() == small.tolist()
    assert big[[1, 3]].tolist() == [0.0, 0.0]
    assert small.tolist() != [0.0] * 4


@pytest.mark.parametrize("face", ["kernel", "table"])
def test_two_occupied_seats_play_heads_up(face: str) -> None:
    """Seats 1 and 4 of six: the button (4) posts the small blind and acts first preflop;
    the big blind (1) acts first after the flop, whatever the seat count."""
    stacks = [0, 100, 0, 0, 100, 0]
    if face == "kernel":
        batch = BatchedTables(GameConfig(seats=6, small_blind=1, big_blind=2), 1, seed=3)
        batch.reset(stacks=[stacks], buttons=[4])
        assert batch.seat[0, BET].tolist() == [0, 2, 0, 0, 1, 0]
        first = legal_row(batch)
        batch.step([1])  # the button completes
        batch.step([1])  # the big blind checks: the flop
        after_flop = legal_row(batch)
        assert batch.actions(0) == [(4, 1, 1, 0), (1, 1, 0, 0)]
    else:
        table = Table(GameConfig(seats=6, small_blind=1, big_blind=2), stacks, button=4, seed=3)
        assert table.bet == [0, 2, 0, 0, 1, 0]
        first = legal_of(table)
        table.check_call()
        table.check_call()
        after_flop = legal_of(table)
        assert table.hole_cards[0] == []
        assert table.hole_cards[1] != []
    assert first == (4, 1, 4, 100)
    assert after_flop[0] == 1


def test_three_handed_blinds_skip_empty_seats_and_the_button_moves_on() -> None:
    """Blinds and straddle go to the next occupied seats; by default the button moves on to
    the next occupied seat."""
    config = GameConfig(seats=6, small_blind=1, big_blind=2, straddle=4, ante=1)
    stacks = [50, 0, 60, 0, 0, 70]
    batch = BatchedTables(config, 2, seed=1)
    batch.reset(stacks=[stacks, stacks], buttons=[0, 5])
    assert batch.seat[0, BET].tolist() == [4, 0, 1, 0, 0, 2]  # SB 2, BB 5, straddle 0
    assert batch.seat[1, BET].tolist() == [1, 0, 2, 0, 0, 4]  # SB 0, BB 2, straddle 5
    assert batch.seat[:, TOTAL].sum(axis=1).tolist() == [10, 10]  # 3 antes + 7
    assert batch.to_act.tolist() == [2, 0]  # left of the straddle
    table = Table(config, stacks, button=0, seed=1)
    assert table.bet == [4, 0, 1, 0, 0, 2]
    assert table.to_act == 2
    batch.step([0, 0])
    batch.step([0, 0])
    assert batch.done.all()
    batch.reset(stacks=[stacks, stacks])
    assert batch.table[:, BUTTON].tolist() == [2, 0]
    batch.step([0, 0])
    batch.step([0, 0])
    batch.reset(stacks=[[0, 9, 0, 9, 0, 9], [9, 9, 0, 0, 0, 0]])
    assert batch.table[:, BUTTON].tolist() == [3, 1]
    buttons = np.array([5, 0, 3])
    occupied = np.array([[1, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1], [0, 0, 0, 1, 0, 0]], dtype=bool)
    assert next_occupied_seats(buttons, occupied).tolist() == [0, 1, 3]


def random_empty_stacks(rng: np.random.Generator, tables: int) -> np.ndarray:
    """(tables, 6) stacks, 0 to 4 seats of each row empty, at least 2 occupied."""
    stacks = rng.choice([1, 5, 20, 100, 400], size=(tables, SEATS))
    for row in stacks:
        row[rng.choice(SEATS, size=rng.integers(0, SEATS - 1), replace=False)] = 0
    return stacks


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([0.0, 5.0]))
def test_random_play_conserves_chips_and_empty_seats_win_nothing(seed: int, rake: float) -> None:
    """Random requests (some illegal) at 64 tables with random empty seats, three hands
    each: every hand's nets sum to minus the rake, and an empty seat never acts, never
    puts a chip in, wins nothing, is never shown at showdown."""
    rng = np.random.default_rng(seed)
    config = GameConfig(seats=SEATS, small_blind=1, big_blind=2, ante=1, rake_percent=rake)
    batch = BatchedTables(config, 64, seed=seed, max_actions=200)
    for _ in range(3):
        stacks = random_empty_stacks(rng, 64)
        batch.reset(np.arange(64), stacks=stacks)  # buttons move on to occupied seats
        assert (stacks[np.arange(64), batch.table[:, BUTTON]] > 0).all()
        empty = stacks == 0
        assert (batch.seat[:, FOLDED][empty] == 1).all()
        while not batch.done.all():
            moves = rng.integers(0, 3, size=64)
            amounts = rng.integers(0, 500, size=64)
            batch.step(moves, amounts)
        assert (batch.net.sum(axis=1) == -batch.table[:, RAKE]).all()
        assert (batch.net[empty] == 0).all()
        assert (batch.stacks[empty] == 0).all()
        ended = EndedHands(
            batch, np.arange(64), np.arange(64), np.zeros((64, SEATS), dtype=np.int64), 0
        )
        for i in range(64):
            acted = {seat for seat, *_ in batch.actions(i)}
            assert not acted & set(np.flatnonzero(empty[i]).tolist())
            assert not set(ended.shown(i)) & set(np.flatnonzero(empty[i]).tolist())


def test_bad_empty_seats_are_refused() -> None:
    """Fewer than two occupied seats, a button on an empty seat, a negative stack, cards
    for an empty seat or forced bets on it: each refused, naming the problem."""
    config = GameConfig(seats=3)
    batch = BatchedTables(config, 3)
    with pytest.raises(ValueError, match="table 2 has 1 occupied seat"):
        batch.reset(stacks=[[5, 5, 5], [5, 0, 5], [0, 0, 5]])
    with pytest.raises(ValueError, match="table 1: the button is on seat 1, an empty seat"):
        batch.reset([0, 1], stacks=[[5, 5, 5], [5, 0, 5]], buttons=[1, 1])
    with pytest.raises(ValueError, match="at least 0"):
        batch.reset(stacks=[[5, -1, 5]] * 3)
    assert batch.done.all()  # nothing was dealt
    with pytest.raises(ValueError, match="at least 2 occupied seats"):
        Table(config, [0, 0, 7])
    with pytest.raises(ValueError, match="button is on seat 1, an empty seat"):
        Table(config, [7, 0, 7], button=1)
    with pytest.raises(ValueError, match="at least 0"):
        Table(config, [7, -3, 7])
    with pytest.raises(ValueError, match="dealt no cards"):
        Table(config, [7, 0, 7], hole_cards=[[0, 1], [2, 3], [4, 5]])
    with pytest.raises(ValueError, match="posts nothing"):
        Table(config, [7, 0, 7], forced=ForcedBets((1, 2, 0)))


def test_observations_and_decisions_show_empty_seats_folded_with_no_chips() -> None:
    """The public observation shows an empty seat folded with stack, bet and contribution
    0; the privileged one gives it no cards; ``Decisions`` work at such a table."""
    config = GameConfig(seats=SEATS)
    batch = BatchedTables(config, 2, seed=5)
    stacks = [[100, 0, 100, 0, 100, 100], [0, 0, 0, 80, 0, 120]]
    batch.reset(stacks=stacks, buttons=[0, 3])
    tables = np.arange(2)
    viewers = batch.to_act.copy()
    public = PublicObservation(SEATS)
    observed = public.encode(batch, tables, viewers)
    for k in range(2):
        per_seat = observed[k, 104 : 104 + PER_SEAT * SEATS].reshape(SEATS, PER_SEAT)
        for offset in range(SEATS):
            seat = (int(viewers[k]) + offset) % SEATS
            empty = stacks[k][seat] == 0
            assert per_seat[offset, 3] == float(empty)  # nobody has acted yet
            if empty:
                assert per_seat[offset, :3].tolist() == [0.0, 0.0, 0.0]
    privileged = PrivilegedObservation(SEATS).encode(batch, tables, viewers)
    hidden = privileged[:, public.public_size : public.public_size + 52 * SEATS]
    for k in range(2):
        blocks = hidden[k].reshape(SEATS, 52).sum(axis=1)
        for offset in range(SEATS):
            seat = (int(viewers[k]) + offset) % SEATS
            assert blocks[offset] == (0 if stacks[k][seat] == 0 else 2)
    decisions = Decisions(batch, tables, viewers, tables, batch.legal(), np.random.default_rng(0))
    view = decisions.view(1)
    assert view.seat == 3
    assert view.button == 3
    assert view.folded == (True, True, True, False, True, False)
    assert view.stacks[:3] == (0, 0, 0)
    assert decisions.contexts.shape[0] == 2
    assert decisions.observations.shape == (2, public.size)
    assert (batch.seat[:, START] == np.array(stacks)).all()


def play_out(batch: BatchedTables, rng: random.Random, mirror: Table | None) -> None:
    """Play table 0 to the end with calm random legal actions, mirrored in ``mirror``."""
    while not batch.done[0]:
        _, call, low, high = legal_row(batch)
        legal = Legal(
            int(batch.to_act[0]),
            call > 0,
            call == 0,
            call,
            None if low < 0 else low,
            None if high < 0 else high,
        )
        move, amount = choose(rng, legal, calm=True)
        if mirror is not None:
            assert legal_of(mirror) == legal_row(batch)
            mirror.act(move, amount)
        batch.step([MOVES.index(move)], [amount])


@pytest.mark.parametrize("seed", [12, 13, 14])
def test_a_three_seat_tournament_runs_until_one_player_has_every_chip(seed: int) -> None:
    """Stacks carried from hand to hand, busted seats 0, the button moving on over them,
    until one player holds all 300 chips; every hand also played by the reference Table."""
    config = GameConfig(seats=3, small_blind=1, big_blind=2, ante=1)
    batch = BatchedTables(config, 1, seed=seed, max_actions=200)
    rng = random.Random(seed)
    stacks = np.array([100, 100, 100])
    hands, heads_up = 0, 0
    while (stacks > 0).sum() > 1:
        batch.reset([0], stacks=stacks[None, :])
        button = int(batch.table[0, BUTTON])
        assert stacks[button] > 0
        holes = batch.hole_cards[0].tolist()
        mirror = Table(
            config,
            stacks.tolist(),
            button=button,
            hole_cards=[h if stacks[s] else [] for s, h in enumerate(holes)],
            board=batch.boards[0].tolist(),
        )
        heads_up += int((stacks > 0).sum() == 2)
        play_out(batch, rng, mirror)
        assert mirror.result is not None
        assert batch.net[0].tolist() == mirror.result.net
        assert (batch.net[0][stacks == 0] == 0).all()
        stacks = batch.stacks[0].copy()
        assert stacks.sum() == 300
        assert stacks.tolist() == mirror.stack
        hands += 1
        assert hands < 2_000
    assert sorted(stacks.tolist()) == [0, 0, 300]
    assert hands >= 10
    assert heads_up >= 2


def test_many_tournaments_at_once_conserve_chips() -> None:
    """64 six-seat tournaments stepped together with random requests: tables that still
    have two players deal again with their carried stacks until every one is won."""
    config = GameConfig(seats=SEATS, small_blind=5, big_blind=10)
    batch = BatchedTables(config, 64, seed=2, max_actions=300)
    rng = np.random.default_rng(2)
    stacks = np.full((64, SEATS), 200)
    batch.reset(stacks=stacks)
    for _ in range(20_000):
        live = ~batch.done
        if live.any():
            batch.step(np.where(live, rng.integers(0, 3, 64), -1), rng.integers(0, 400, 64))
            continue
        stacks = batch.stacks.copy()
        assert (stacks.sum(axis=1) == SEATS * 200).all()
        going = np.flatnonzero((stacks > 0).sum(axis=1) >= 2)
        if going.size == 0:
            break
        batch.reset(going, stacks=stacks[going])
    assert ((batch.stacks > 0).sum(axis=1) == 1).all()
    assert (batch.stacks.max(axis=1) == SEATS * 200).all()
