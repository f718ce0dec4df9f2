"""Property tests of the readable engine (:class:`Table`) over random games and play.

Hypothesis draws a game (no-limit or fixed-limit, 2-10 seats, blinds, antes, a straddle,
rake with or without a cap and no-flop-no-drop, dealt or expected-value settlement),
stacks from one chip to deep, and a legal action at every decision. Checked throughout:

* at each decision the options are consistent (the call fits the stack, a raise range
  lies between the current bet and the all-in total, check iff the call is free) and
  every illegal action (raise below the minimum or above the stack, raise when none is
  allowed, fold when checking is free) raises :class:`IllegalActionError` with a message
  and leaves the table untouched;
* the hand ends within a bounded number of actions, and at once when one player is left;
* chips are conserved (nets sum to minus the rake, no stack goes negative); a hand won
  without a showdown pays the winner everyone else's chips less the rake;
* the rake respects its percentage, its cap and no-flop-no-drop;
* EV settlement: expected nets sum to minus the rake and equal the nets once the river
  is dealt;
* after the hand every action raises, and ``replay`` and ``from_dict(to_dict())`` (also
  through JSON) rebuild exactly the same hand and result.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from poolshark.engine.config import Betting, GameConfig, Settlement
from poolshark.engine.table import IllegalActionError, Legal, Move, Street, Table


@st.composite
def configs(draw: st.DrawFn) -> GameConfig:
    """A valid game: betting, seats, forced bets, fixed-limit sizes, rake, settlement."""
    betting = draw(st.sampled_from(Betting))
    seats = draw(st.integers(2, 10))
    big = draw(st.integers(1, 10))
    small = draw(st.integers(0, big))
    straddle = 0
    if seats >= 3 and draw(st.booleans()):
        straddle = draw(st.integers(2 * big, 4 * big))
    fixed: dict[str, Any] = {}
    if betting is Betting.FIXED_LIMIT:
        fixed = {
            "small_bet": draw(st.none() | st.integers(1, 10)),
            "big_bet": draw(st.none() | st.integers(1, 20)),
            "raise_cap": draw(st.integers(1, 5)),
            "cap_heads_up": draw(st.booleans()),
        }
    return GameConfig(
        betting=betting,
        seats=seats,
        small_blind=small,
        big_blind=big,
        ante=draw(st.sampled_from([0, 0, 1, 2, 5])),
        straddle=straddle,
        rake_percent=draw(st.sampled_from([0.0, 0.0, 2.5, 5.0, 10.0, 100.0])),
        rake_cap=draw(st.none() | st.integers(0, 30)),
        no_flop_no_drop=draw(st.booleans()),
        settlement=draw(
            st.sampled_from([Settlement.DEAL, Settlement.DEAL, Settlement.EXPECTED_VALUE])
        ),
        **fixed,
    )


@st.composite
def tables(draw: st.DrawFn) -> Table:
    """A fresh table: a random game, stacks mixing all-in-on-the-blinds with deep ones."""
    config = draw(configs())
    stack = st.one_of(st.integers(1, 12), st.integers(13, 200), st.integers(201, 5000))
    stacks = draw(st.lists(stack, min_size=config.seats, max_size=config.seats))
    button = draw(st.integers(0, config.seats - 1))
    return Table(config, stacks, button=button, seed=draw(st.integers(0, 2**32 - 1)))


@dataclass(frozen=True)
class Snapshot:
    """Everything an illegal action must leave unchanged."""

    stack: tuple[int, ...]
    bet: tuple[int, ...]
    folded: tuple[bool, ...]
    actions: int
    to_act: int
    street: Street

    @classmethod
    def of(cls, table: Table) -> Snapshot:
        """The table's state now."""
        return cls(
            tuple(table.stack),
            tuple(table.bet),
            tuple(table.folded),
            len(table.log),
            table.to_act,
            table.street,
        )


def assert_illegal(table: Table, action: Any, *args: int) -> None:
    """``action`` raises IllegalActionError (a ValueError) with a message, changing nothing."""
    before = Snapshot.of(table)
    with pytest.raises(IllegalActionError) as caught:
        action(*args)
    assert isinstance(caught.value, ValueError)
    assert str(caught.value)
    assert Snapshot.of(table) == before


def check_options(table: Table, legal: Legal) -> None:
    """The options offered to the player to act are consistent, and the illegal ones fail."""
    seat = legal.seat
    config = table.config
    assert seat == table.to_act
    assert not table.folded[seat]
    assert table.stack[seat] > 0
    assert 0 <= legal.call <= table.stack[seat]
    assert legal.call == min(table.current_bet - table.bet[seat], table.stack[seat])
    assert legal.can_check == (legal.call == 0)
    assert legal.can_fold == (legal.call > 0)
    assert (legal.min_raise_to is None) == (legal.max_raise_to is None)
    most = table.bet[seat] + table.stack[seat]
    if legal.min_raise_to is not None:
        assert legal.max_raise_to is not None
        assert table.current_bet < legal.min_raise_to <= legal.max_raise_to <= most
        assert legal.call < table.stack[seat]
        if config.betting is Betting.FIXED_LIMIT:
            assert legal.min_raise_to == legal.max_raise_to
        else:
            assert legal.max_raise_to == most
        assert_illegal(table, table.raise_to, legal.min_raise_to - 1)
        assert_illegal(table, table.raise_to, legal.max_raise_to + 1)
    else:
        assert_illegal(table, table.raise_to, most)
        assert_illegal(table, table.raise_to, table.current_bet + 1)
    assert_illegal(table, table.raise_to, most + 1)  # more than the stack
    if legal.can_check:
        assert_illegal(table, table.fold)


#: How often each kind of action is picked, by playing style: calls, folds, raises.
STYLES = {"passive": (6, 1, 1), "tight": (1, 6, 1), "mixed": (3, 1, 3), "aggressive": (1, 1, 6)}


def choose(draw: st.DrawFn, legal: Legal, style: str) -> tuple[Move, int]:
    """A legal action: call, fold (facing a bet) or raise (minimum, all-in or between),
    weighted by ``style``."""
    calls, folds, raises = STYLES[style]
    options: list[tuple[Move, int]] = [(Move.CHECK_CALL, 0)] * calls
    if legal.can_fold:
        options += [(Move.FOLD, 0)] * folds
    if legal.min_raise_to is not None and legal.max_raise_to is not None:
        low, high = legal.min_raise_to, legal.max_raise_to
        sizes = [low, high, (low + high) // 2]
        options += [(Move.RAISE, sizes[i % 3]) for i in range(raises)]
    return draw(st.sampled_from(options))


def action_bound(table: Table) -> int:
    """Most actions a hand can take. Per round, between two raises each player acts once;
    a round has at most one raise per big blind of the deepest stack (full raises) plus
    one per player (short all-ins), or the fixed-limit cap."""
    config = table.config
    n = config.seats
    raises = max(table.starting_stacks) // config.big_blind + n + 1
    if config.betting is Betting.FIXED_LIMIT:
        unit = min(config.bet_unit(0), config.bet_unit(3))
        raises = max(table.starting_stacks) // unit + n + 1
    return 4 * n * (raises + 1)


def last_street(table: Table) -> Street:
    """The street of the last action (``PREFLOP`` when the forced bets ended the hand)."""
    return table.log[-1].street if table.log else Street.PREFLOP


def play(draw: st.DrawFn, table: Table) -> None:
    """Play the hand to the end with drawn legal actions, checking each decision."""
    style = draw(st.sampled_from(sorted(STYLES)))
    bound = action_bound(table)
    while not table.done:
        assert len(table.log) < bound, "the hand does not end"
        legal = table.legal()
        check_options(table, legal)
        if len(table.log) % 3 == 1:  # a hand replayed mid-way is in the same state
            again = table.replay()
            assert (again.legal(), again.to_dict()) == (legal, table.to_dict())
            assert Snapshot.of(again) == Snapshot.of(table)
        move, amount = choose(draw, legal, style)
        table.act(move, amount)
        if sum(not f for f in table.folded) == 1:
            assert table.done, "one player left, but the hand goes on"


def check_result(table: Table) -> None:
    """Chips conserved, fold wins paid in full, rake within its rules, EV consistent."""
    last = last_street(table)
    result = table.result
    config = table.config
    assert result is not None
    n = config.seats
    assert len(result.net) == n
    assert sum(result.net) == -result.rake
    assert all(s >= 0 for s in table.stack)
    assert [s0 + d for s0, d in zip(table.starting_stacks, result.net, strict=True)] == table.stack
    assert sum(p.amount for p in result.pots) == sum(table.total) - result.rake
    for pot in result.pots:
        assert pot.amount >= 0
        assert all(not table.folded[s] for s in pot.eligible)
    live = [s for s in range(n) if not table.folded[s]]
    assert result.showdown == (len(live) > 1)
    if not result.showdown:
        (winner,) = live
        for s in range(n):
            if s != winner:
                assert result.net[s] == -table.total[s]
        assert result.net[winner] == sum(table.total) - table.total[winner] - result.rake
    # rake
    assert 0 <= result.rake <= sum(table.total)
    if config.rake_cap is not None:
        assert result.rake <= config.rake_cap
    ended_preflop = last is Street.PREFLOP and not result.showdown
    if config.no_flop_no_drop and ended_preflop:
        assert result.rake == 0
    else:
        exact = Fraction(str(config.rake_percent)) * sum(table.total) / 100
        cap = math.inf if config.rake_cap is None else config.rake_cap
        assert result.rake == min(math.floor(exact), cap)
    # expected-value settlement
    assert len(result.expected_net) == n
    assert math.isclose(sum(result.expected_net), -result.rake, abs_tol=1e-6)
    if config.settlement is Settlement.DEAL or last is Street.RIVER or not result.showdown:
        assert result.expected_net == [float(x) for x in result.net]
    for s in range(n):
        assert result.expected_net[s] >= -table.total[s] - 1e-9


def check_after(table: Table) -> None:
    """Every action after the hand raises; replay and serialization rebuild it exactly."""
    for action, args in [
        (table.fold, ()),
        (table.check_call, ()),
        (table.raise_to, (10**6,)),
        (table.legal, ()),
        (table.act, ("call",)),
    ]:
        with pytest.raises(IllegalActionError, match="over"):
            action(*args)
    data = table.to_dict()
    for rebuilt in (table.replay(), Table.from_dict(json.loads(json.dumps(data)))):
        assert rebuilt.done
        assert rebuilt.result == table.result
        assert rebuilt.to_dict() == data
        assert rebuilt.stack == table.stack


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), data=st.data())
def test_random_hands_keep_the_invariants(table: Table, data: st.DataObject) -> None:
    """Random games, stacks and legal play: options, termination, chips, rake, EV, replay."""
    play(data.draw, table)
    check_result(table)
    result = table.result
    assert result is not None
    event(f"{table.config.betting.value}, {'showdown' if result.showdown else 'folded out'}")
    event(f"ended on {last_street(table).name}, {min(len(result.pots), 3)}+ pots")
    if result.expected_net != [float(x) for x in result.net]:
        event("settled by expected value")
    check_after(table)


@settings(max_examples=150, deadline=None)
@given(
    seats=st.integers(2, 10),
    stacks=st.lists(st.integers(1, 400), min_size=10, max_size=10),
    data=st.data(),
)
def test_everyone_folds_to_one_player(seats: int, stacks: list[int], data: st.DataObject) -> None:
    """Folding whenever possible ends the hand the moment one player is left; that player
    gets back everything put in, and nobody else's chips move beyond their bets."""
    table = Table(
        GameConfig(seats=seats), stacks[:seats], button=data.draw(st.integers(0, 9)) % seats
    )
    while not table.done:
        legal = table.legal()
        if legal.can_fold:
            table.fold()
        else:
            table.check_call()
    assert table.result is not None
    check_result(table)
    if not table.result.showdown:
        winner = table.folded.index(False)
        assert table.result.net[winner] == sum(table.total) - table.total[winner]


@settings(max_examples=60, deadline=None)
@given(
    seats=st.integers(2, 6),
    stacks=st.lists(st.integers(3, 300), min_size=6, max_size=6),
    seed=st.integers(0, 2**32 - 1),
    street=st.sampled_from([Street.PREFLOP, Street.FLOP, Street.TURN]),
)
def test_ev_settlement_of_an_all_in(
    seats: int, stacks: list[int], seed: int, street: Street
) -> None:
    """Everyone checks or calls to ``street``, then moves all-in: expected nets sum to
    minus the rake and stay between losing one's whole contribution and winning the rest."""
    config = GameConfig(seats=seats, settlement="ev", rake_percent=5.0, rake_cap=10)
    table = Table(config, stacks[:seats], seed=seed)
    while table.street < street and not table.done:
        table.check_call()
    while not table.done:
        legal = table.legal()
        if legal.max_raise_to is not None:
            table.raise_to(legal.max_raise_to)
        else:
            table.check_call()
    result = table.result
    assert result is not None
    assert math.isclose(sum(result.expected_net), -result.rake, abs_tol=1e-6)
    for s in range(seats):
        assert -table.total[s] - 1e-9 <= result.expected_net[s]
        assert result.expected_net[s] <= sum(table.total) - table.total[s] + 1e-9
    check_result(table)
