"""Hand-written hands played through the readable engine (:class:`Table`), checked by hand.

Every test deals explicit cards, plays a short action sequence through the public API
(``fold``, ``check_call``, ``raise_to``), asserting at each step that the expected seat is
to act, and compares the resulting pots, stacks and nets with amounts worked out by hand
in its docstring. Seats are numbered clockwise from 0; "S/B/U" in the docstrings mean the
small blind, big blind and first player to act (under the gun). Unless a test says
otherwise the blinds are 1/2, there is no ante, rake or straddle, and the board
``2c 3d 7h 9s Tc`` gives no straight or flush, so pairs in the hand decide the showdown.

Every finished hand is also checked for conservation of chips (nets sum to minus the rake),
for refusing further actions, and for replaying to the same result from its log.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from poolshark.cards.card import CardError, parse_cards
from poolshark.cards.ranges import Range
from poolshark.engine.config import GameConfig
from poolshark.engine.pots import Pot
from poolshark.engine.table import ForcedBets, IllegalActionError, Street, Table
from poolshark.equity.exact import exact_equity

BOARD = "2c3d7h9sTc"
"""A dry board: no straight or flush is possible with a pocket pair."""

Step = tuple[int, str | int]
"""(seat expected to act, move): ``"f"`` fold, ``"c"`` check or call, an int raises to it."""


def table(
    hands: list[str], stacks: list[int], *, button: int = 0, board: str = BOARD, **rules: Any
) -> Table:
    """A table with the given hole cards (one string per seat), board and game rules."""
    config = GameConfig(seats=len(hands), **rules)
    holes = [parse_cards(h) for h in hands]
    return Table(config, stacks, button=button, hole_cards=holes, board=parse_cards(board))


def play(t: Table, *steps: Step) -> None:
    """Apply ``steps`` in order, checking before each that the expected seat is to act."""
    for seat, move in steps:
        assert t.to_act == seat, f"expected seat {seat} to act, but seat {t.to_act} is"
        if move == "f":
            t.fold()
        elif move == "c":
            t.check_call()
        else:
            assert isinstance(move, int)
            t.raise_to(move)


def check_down(t: Table, *order: int) -> None:
    """Everyone in ``order`` checks on every remaining street until the hand ends."""
    while not t.done:
        play(t, *[(seat, "c") for seat in order])


def assert_settled(t: Table, net: list[int], *, rake: int = 0) -> None:
    """The hand is over with these nets; chips are conserved; it replays identically."""
    assert t.done
    assert t.to_act == -1
    assert t.result is not None
    assert t.result.net == net
    assert t.result.rake == rake
    assert sum(net) == -rake
    assert sum(t.stack) + rake == sum(t.starting_stacks)
    assert [s - s0 for s, s0 in zip(t.stack, t.starting_stacks, strict=True)] == net
    assert sum(p.amount for p in t.result.pots) + rake == sum(t.total)
    with pytest.raises(IllegalActionError, match="the hand is over"):
        t.legal()
    again = t.replay()
    assert again.result == t.result
    assert again.stack == t.stack


def equity(*hands: str, board: str = "", dead: str = "") -> tuple[float, ...]:
    """Exact all-in equities of single hands."""
    ranges = [Range.parse(h) for h in hands]
    return exact_equity(ranges, parse_cards(board), parse_cards(dead)).equities


# -- 1. everyone else folds ------------------------------------------------------------------


def test_fold_out_preflop_ends_at_once() -> None:
    """6-max, button 0 (S1 B2), stacks 100. U3 raises to 6; 4, 5, 0, 1 and 2 fold.

    The hand ends the moment the big blind folds: seat 3 is never asked to act again, its
    uncalled 4 comes back, and it wins the blinds: pot 1 + 2 + 2 = 5, nets
    [0, -1, -2, +3, 0, 0].
    """
    t = table(["AhAs", "KhKs", "QhQs", "JhJs", "8h8s", "6h6s"], [100] * 6)
    play(t, (3, 6), (4, "f"), (5, "f"), (0, "f"), (1, "f"), (2, "f"))
    assert_settled(t, [0, -1, -2, 3, 0, 0])
    assert t.result is not None
    assert t.result.pots == [Pot(5, (3,))]
    assert not t.result.showdown
    assert [a.seat for a in t.log] == [3, 4, 5, 0, 1, 2]
    with pytest.raises(IllegalActionError, match="the hand is over"):
        t.fold()


def test_big_blind_walk() -> None:
    """3 players, button 0 (S1 B2). Button and small blind fold: the big blind wins 1
    without acting. Nets [0, -1, +1]; the big blind's uncalled 1 is returned."""
    t = table(["AhAs", "KhKs", "QhQs"], [100] * 3)
    play(t, (0, "f"), (1, "f"))
    assert_settled(t, [0, -1, 1])
    assert all(a.seat != 2 for a in t.log)


def test_fold_out_on_the_flop() -> None:
    """3 players, button 0. Preflop all limp (pot 6). Flop: S1 bets 4, B2 folds, button
    folds: seat 1 gets its 4 back and wins 6. Nets [-2, +4, -2]; no turn is played."""
    t = table(["AhAs", "KhKs", "QhQs"], [100] * 3)
    play(t, (0, "c"), (1, "c"), (2, "c"))
    assert t.street is Street.FLOP
    play(t, (1, 4), (2, "f"), (0, "f"))
    assert_settled(t, [-2, 4, -2])
    assert t.log[-1].street is Street.FLOP


# -- 2. heads-up order -------------------------------------------------------------------------


def test_heads_up_button_posts_small_blind_and_acts_first_preflop_last_after() -> None:
    """Heads-up, button 1: seat 1 posts the small blind (1), seat 0 the big blind (2).

    Preflop the button acts first (completes), the big blind checks. On the flop, turn
    and river the big blind acts first: checks on flop and turn, bets 10 on the river,
    called. Button's AhAs beats KhKs: pot 24, nets [-12, +12].
    """
    t = table(["KhKs", "AhAs"], [100, 100], button=1)
    assert t.stack == [98, 99]
    play(t, (1, "c"), (0, "c"))
    play(t, (0, "c"), (1, "c"))
    play(t, (0, "c"), (1, "c"))
    assert t.street is Street.RIVER
    play(t, (0, 10), (1, "c"))
    assert_settled(t, [-12, 12])
    order = [(a.seat, a.street) for a in t.log]
    assert order == [
        (1, Street.PREFLOP),
        (0, Street.PREFLOP),
        (0, Street.FLOP),
        (1, Street.FLOP),
        (0, Street.TURN),
        (1, Street.TURN),
        (0, Street.RIVER),
        (1, Street.RIVER),
    ]


# -- 3. 6-max positions and the straddle -----------------------------------------------------


def test_six_max_order_wraps_around_the_button() -> None:
    """6-max, button 3: S4, B5, and U0 acts first preflop. 0, 1, 2, 3 limp, 4 folds, 5
    checks. After the flop the first live seat left of the button acts: seat 4 folded, so
    seat 5, then 0, 1, 2, 3. Check down; seat 0's AhAs wins 5 x 2 + 1 = 11: nets
    [+9, -2, -2, -2, -1, -2]."""
    hands = ["AhAs", "KhKs", "QhQs", "JhJs", "8h8s", "6h6s"]
    t = table(hands, [100] * 6, button=3)
    assert t.stack == [100, 100, 100, 100, 99, 98]
    play(t, (0, "c"), (1, "c"), (2, "c"), (3, "c"), (4, "f"), (5, "c"))
    assert t.street is Street.FLOP
    check_down(t, 5, 0, 1, 2, 3)
    assert_settled(t, [9, -2, -2, -2, -1, -2])


def test_straddler_acts_last_preflop() -> None:
    """6-max, button 0, blinds 1/2 and a straddle of 4 by seat 3. Seat 4 acts first and
    may raise to at least 8 (twice the straddle). All call; the straddler acts last and may
    check or raise to 8. It checks; on the flop the small blind (1) acts first. Check down:
    seat 3's AhAs wins 6 x 4 = 24, nets [-4, -4, -4, +20, -4, -4]."""
    hands = ["KhKs", "QhQs", "JhJs", "AhAs", "8h8s", "6h6s"]
    t = table(hands, [100] * 6, straddle=4)
    assert t.stack == [100, 99, 98, 96, 100, 100]
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (4, 4, 8)
    play(t, (4, "c"), (5, "c"), (0, "c"), (1, "c"), (2, "c"))
    legal = t.legal()
    assert (legal.seat, legal.can_check, legal.min_raise_to) == (3, True, 8)
    play(t, (3, "c"))
    assert t.street is Street.FLOP
    check_down(t, 1, 2, 3, 4, 5, 0)
    assert_settled(t, [-4, -4, -4, 20, -4, -4])


def test_raise_over_straddle_sets_the_next_minimum() -> None:
    """6-max, straddle 4 by seat 3. Seat 4 raises to the minimum 8 (a raise of 4); seat 5
    must then raise to at least 12. Everyone folds to seat 4, which gets its uncalled 4
    back and wins 1 + 2 + 4 + 4 = 11: nets [0, -1, -2, -4, +7, 0]."""
    hands = ["KhKs", "QhQs", "JhJs", "AhAs", "8h8s", "6h6s"]
    t = table(hands, [100] * 6, straddle=4)
    play(t, (4, 8))
    assert t.legal().min_raise_to == 12
    play(t, (5, "f"), (0, "f"), (1, "f"), (2, "f"), (3, "f"))
    assert_settled(t, [0, -1, -2, -4, 7, 0])


# -- 4. no-limit sizes ----------------------------------------------------------------------


def test_min_raise_is_the_last_full_bet_or_raise() -> None:
    """3 players, button 0, stacks 200. Preflop U0 may raise to 4 at least; all limp.

    Flop (pot 6): S1 may bet 2 (the big blind) at least, bets 10. B2 must raise to 20 at
    least, raises to 30. Button must raise to 50 (30 + 20); 49 is refused; raises to 50.
    S1 must now raise to 70; folds. B2 calls 50. Check down; button's AhAs wins
    6 + 10 + 50 + 50 = 116: nets [+64, -12, -52].
    """
    t = table(["AhAs", "KhKs", "QhQs"], [200] * 3)
    assert t.legal().min_raise_to == 4
    play(t, (0, "c"), (1, "c"), (2, "c"))
    legal = t.legal()
    assert (legal.seat, legal.can_check, legal.min_raise_to, legal.max_raise_to) == (
        1,
        True,
        2,
        198,
    )
    play(t, (1, 10))
    assert t.legal().min_raise_to == 20
    play(t, (2, 30))
    assert t.legal().min_raise_to == 50
    with pytest.raises(IllegalActionError, match="between 50 and 198, not 49"):
        t.raise_to(49)
    play(t, (0, 50))
    assert t.legal().min_raise_to == 70
    play(t, (1, "f"), (2, "c"))
    check_down(t, 2, 0)
    assert_settled(t, [64, -12, -52])


def test_all_in_raise_is_capped_by_stack_plus_chips_in_front() -> None:
    """3 players, button 0, stacks [200, 200, 60]. Button raises to 10, S1 calls. B2 has 2
    in front and 58 behind: it may raise to 18..60 (not 58); 61 is refused; it shoves to
    60, a full raise, so the button may re-raise (to 110). Button calls, S1 folds.
    B2's AhAs wins 60 + 60 + 10 = 130: nets [-60, -10, +70]."""
    t = table(["KhKs", "QhQs", "AhAs"], [200, 200, 60])
    play(t, (0, 10), (1, "c"))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to, legal.max_raise_to) == (2, 8, 18, 60)
    with pytest.raises(IllegalActionError, match="between 18 and 60, not 61"):
        t.raise_to(61)
    play(t, (2, 60))
    assert t.stack[2] == 0
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (0, 50, 110)
    play(t, (0, "c"), (1, "f"))
    assert_settled(t, [-60, -10, 70])


# -- 5. short all-ins -------------------------------------------------------------------------


SHORT = ["KhKs", "QhQs", "JhJs", "AhAs"]
"""Hole cards for the short all-in hands: the short stack (seat 3) holds aces."""


def test_short_all_in_keeps_min_raise_and_does_not_reopen() -> None:
    """4 players, button 0 (S1 B2 U3), stacks [200, 200, 200, 42]; all limp (2 each).

    Flop: S1 bets 10, B2 raises to 30, U3 is all-in for 40 (min = max = 40: a short raise
    of 10). The minimum raise stays 40 + 20 = 60. The button, who has not acted, may
    raise; it calls. S1 faced the full raise to 30 since it acted, so it may raise; it calls.
    B2 faced only the short raise: it may call or fold, raising is refused; it calls.
    Turn: S1 bets 20, B2 folds, button calls; river checked.
    Main pot 4 x 42 = 168 (seats 0, 1, 3) to U3's aces; side pot 2 x 20 = 40 (0, 1) to the
    button's kings. Nets [-22, -62, -42, +126].
    """
    t = table(SHORT, [200, 200, 200, 42])
    play(t, (3, "c"), (0, "c"), (1, "c"), (2, "c"))
    play(t, (1, 10), (2, 30))
    legal = t.legal()
    assert (legal.seat, legal.min_raise_to, legal.max_raise_to) == (3, 40, 40)
    play(t, (3, 40))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (0, 40, 60)
    play(t, (0, "c"))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (1, 30, 60)
    play(t, (1, "c"))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to, legal.max_raise_to) == (2, 10, None, None)
    with pytest.raises(IllegalActionError, match="seat 2 may not raise now"):
        t.raise_to(60)
    play(t, (2, "c"))
    assert t.street is Street.TURN
    play(t, (1, 20), (2, "f"), (0, "c"))
    play(t, (1, "c"), (0, "c"))
    assert_settled(t, [-22, -62, -42, 126])
    assert t.result is not None
    assert t.result.pots == [Pot(168, (0, 1, 3)), Pot(40, (0, 1))]


def test_after_short_all_in_a_player_yet_to_act_may_raise() -> None:
    """Same flop as above up to U3's short all-in to 40. The button, yet to act, raises to
    the minimum 60 (a full raise of 20), which reopens the betting: S1 must raise to 80 and
    folds; B2 may raise again (to 80) but folds. The button's uncalled 20 is returned.
    Pot 42 + 12 + 32 + 42 = 128 (seats 0, 3) to U3's aces: nets [-42, -12, -32, +86]."""
    t = table(SHORT, [200, 200, 200, 42])
    play(t, (3, "c"), (0, "c"), (1, "c"), (2, "c"))
    play(t, (1, 10), (2, 30), (3, 40), (0, 60))
    assert t.legal().min_raise_to == 80
    play(t, (1, "f"))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (2, 30, 80)
    play(t, (2, "f"))
    assert_settled(t, [-42, -12, -32, 86])
    assert t.result is not None
    assert t.result.pots == [Pot(128, (0, 3))]


def test_two_short_all_ins_adding_to_a_full_raise_reopen() -> None:
    """The engine's documented cumulative rule. 4 players, button 0, stacks
    [200, 200, 17, 22]; all limp, leaving [198, 198, 15, 20].

    Flop: S1 bets 10. B2 is all-in for 15 (short by 5), U3 all-in for 20 (short by 5; it
    may not raise to 25, its stack caps it at 20). The minimum raise stays 20 + 10 = 30.
    The button calls 20. S1 bet 10 and now faces 20: the two short raises add up to a full
    raise of 10, so S1 may raise again (to 30); it calls. Check down.
    Main pot 4 x 17 = 68 to B2's aces; side pot 3 x 5 = 15 (seats 0, 1, 3) to U3's kings.
    Nets [-22, -22, +51, -7].
    """
    t = table(["QhQs", "JhJs", "AhAs", "KhKs"], [200, 200, 17, 22])
    play(t, (3, "c"), (0, "c"), (1, "c"), (2, "c"))
    play(t, (1, 10))
    legal = t.legal()
    assert (legal.seat, legal.min_raise_to, legal.max_raise_to) == (2, 15, 15)
    play(t, (2, 15))
    legal = t.legal()
    assert (legal.seat, legal.min_raise_to, legal.max_raise_to) == (3, 20, 20)
    play(t, (3, 20))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (0, 20, 30)
    play(t, (0, "c"))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (1, 10, 30)
    play(t, (1, "c"))
    check_down(t, 1, 0)
    assert_settled(t, [-22, -22, 51, -7])
    assert t.result is not None
    assert t.result.pots == [Pot(68, (0, 1, 2, 3)), Pot(15, (0, 1, 3))]


def test_one_short_all_in_alone_does_not_reopen() -> None:
    """As above, but U3 folds to B2's short all-in to 15. The button (yet to act) calls.
    S1 bet 10 and faces only a short raise of 5: it may not raise, and calls 5. Check down:
    the pot 3 x 17 + 2 = 53 (seats 0, 1, 2) goes to B2's aces: nets [-17, -17, +36, -2]."""
    t = table(["QhQs", "JhJs", "AhAs", "KhKs"], [200, 200, 17, 22])
    play(t, (3, "c"), (0, "c"), (1, "c"), (2, "c"))
    play(t, (1, 10), (2, 15), (3, "f"), (0, "c"))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (1, 5, None)
    play(t, (1, "c"))
    check_down(t, 1, 0)
    assert_settled(t, [-17, -17, 36, -2])


def test_tda_example_cumulative_short_all_ins() -> None:
    """TDA rule 47 example 1. Blinds 50/100, 5 players, button 0; everyone limps for 100.
    Stacks after: A1 900, B2 125, C3 900, D4 200, E0 900.

    Flop: A bets 100; B is all-in for 125 (short); C calls 125; D is all-in for 200
    (short); E calls 200. A faces 100 more, a full raise in total, so A may raise (to 300)
    and calls. C faces only 75 more since it acted: it may not raise, and calls.
    Check down. Contributions [300, 300, 225, 300, 300]: main 5 x 225 = 1125 to B's aces,
    side 4 x 75 = 300 (0, 1, 3, 4) to D's kings. Nets [-300, -300, +900, -300, 0].
    """
    hands = ["8h8s", "QhQs", "AhAs", "JhJs", "KhKs"]
    t = table(hands, [1000, 1000, 225, 1000, 300], small_blind=50, big_blind=100)
    play(t, (3, "c"), (4, "c"), (0, "c"), (1, "c"), (2, "c"))
    play(t, (1, 100), (2, 125), (3, "c"), (4, 200), (0, "c"))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (1, 100, 300)
    play(t, (1, "c"))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (3, 75, None)
    play(t, (3, "c"))
    check_down(t, 1, 3, 0)
    assert_settled(t, [-300, -300, 900, -300, 0])
    assert t.result is not None
    assert t.result.pots == [Pot(1125, (0, 1, 2, 3, 4)), Pot(300, (0, 1, 3, 4))]


def test_all_in_bet_below_the_big_blind_does_not_reopen_for_a_checker() -> None:
    """3 players, button 0, stacks [100, 100, 3]; all limp, B2 has 1 left. Flop: S1
    checks, B2 bets its last chip (min = max = 1, less than the big blind). The button, yet
    to act, may raise to 3 (1 + the big blind) and calls. S1 checked, and a bet of 1 is
    not a full bet, so it may only call or fold (TDA 47A); it calls. Check down: B2's aces
    win 3 x 3 = 9, nets [-3, -3, +6]."""
    t = table(["KhKs", "QhQs", "AhAs"], [100, 100, 3])
    play(t, (0, "c"), (1, "c"), (2, "c"), (1, "c"))
    legal = t.legal()
    assert (legal.seat, legal.min_raise_to, legal.max_raise_to) == (2, 1, 1)
    play(t, (2, 1))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (0, 1, 3)
    play(t, (0, "c"))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (1, 1, None)
    play(t, (1, "c"))
    check_down(t, 1, 0)
    assert_settled(t, [-3, -3, 6])


# -- 6. side pots ----------------------------------------------------------------------------


def test_three_all_ins_a_cover_and_a_fold() -> None:
    """5 players, button 0 (S1 B2 U3), stacks [1000, 30, 80, 150, 400].

    U3 raises to 20, seat 4 calls 20, the button raises to 400; S1 calls all-in (30), B2
    calls all-in (80), U3 calls all-in (150), seat 4 folds (its 20 stays in). The
    button's uncalled 250 is returned, so contributions are [150, 30, 80, 150, 20].
    Main pot 4 x 30 + 20 = 140 (0, 1, 2, 3); side pot 1: 3 x 50 = 150 (0, 2, 3); side pot
    2: 2 x 70 = 140 (0, 3). Aces (S1) win only the main pot, kings (B2) side pot 1, queens
    (U3) side pot 2; the button's 5-4 wins nothing.
    Nets [-150, +110, +70, -10, -20].
    """
    t = table(["5d4d", "AhAs", "KhKs", "QhQs", "6s6d"], [1000, 30, 80, 150, 400])
    play(t, (3, 20), (4, "c"), (0, 400), (1, "c"), (2, "c"), (3, "c"), (4, "f"))
    assert_settled(t, [-150, 110, 70, -10, -20])
    assert t.result is not None
    assert t.result.showdown
    assert t.result.pots == [Pot(140, (0, 1, 2, 3)), Pot(150, (0, 2, 3)), Pot(140, (0, 3))]
    assert t.total == [150, 30, 80, 150, 20]
    assert t.stack == [850, 140, 150, 140, 380]


# -- 7. split pots and odd chips ----------------------------------------------------------


ROYAL = "AhKhQhJhTh"
"""A board everyone plays: every showdown is a tie."""


def test_odd_chip_goes_to_first_winner_left_of_button() -> None:
    """3 players, ante 1, button 1 (S2 B0). The button folds, S2 completes, B0 checks;
    checked down on a royal-flush board. Pot 3 + 2 + 2 = 7 splits 3/3 and the odd chip goes
    to seat 2, the first winner left of the button (not seat 0, the lowest seat).
    Nets [0, -1, +1]."""
    t = table(["2c3d", "4c5d", "6c7d"], [100] * 3, button=1, ante=1, board=ROYAL)
    play(t, (1, "f"), (2, "c"), (0, "c"))
    check_down(t, 2, 0)
    assert_settled(t, [0, -1, 1])
    assert t.result is not None
    assert t.result.pots == [Pot(7, (0, 2))]


def test_three_way_split_remainder_two() -> None:
    """4 players, ante 2, button 2 (S3 B0 U1). U1 calls, the button folds, S3 completes,
    B0 checks; checked down on a royal-flush board. Pot 4 x 2 + 3 x 2 = 14 splits three
    ways, 4 each with 2 over: one chip each to seats 3 and 0, the first two winners
    clockwise from the button, none to seat 1. Nets [+1, 0, -2, +1]."""
    t = table(["2c3d", "4c5d", "6c7d", "8c9d"], [100] * 4, button=2, ante=2, board=ROYAL)
    play(t, (1, "c"), (2, "f"), (3, "c"), (0, "c"))
    check_down(t, 3, 0, 1)
    assert_settled(t, [1, 0, -2, 1])


# -- 8. rake ---------------------------------------------------------------------------------


def test_rake_is_rounded_down() -> None:
    """Heads-up, 5% rake without cap. The button raises to 29, called; checked down. Pot
    58, rake 5% of 58 = 2.9 -> 2. Button's aces win 56: nets [+27, -29]."""
    t = table(["AhAs", "KhKs"], [100, 100], rake_percent=5)
    play(t, (0, 29), (1, "c"))
    check_down(t, 1, 0)
    assert_settled(t, [27, -29], rake=2)
    assert t.result is not None
    assert t.result.pots == [Pot(56, (0, 1))]


def test_rake_is_capped() -> None:
    """Heads-up, 5% rake capped at 3. Raise to 100, called, checked down: 5% of 200 is
    10, capped to 3. Button's aces win 197: nets [+97, -100]."""
    t = table(["AhAs", "KhKs"], [200, 200], rake_percent=5, rake_cap=3)
    play(t, (0, 100), (1, "c"))
    check_down(t, 1, 0)
    assert_settled(t, [97, -100], rake=3)


@pytest.mark.parametrize(
    ("no_flop_no_drop", "see_flop", "net", "rake"),
    [
        pytest.param(True, False, [20, -20], 0, id="preflop-no-drop"),
        pytest.param(False, False, [16, -20], 4, id="preflop-raked-when-off"),
        pytest.param(True, True, [-20, 16], 4, id="flop-fold-raked"),
    ],
)
def test_no_flop_no_drop(no_flop_no_drop: bool, see_flop: bool, net: list[int], rake: int) -> None:
    """Heads-up, blinds 10/20, 10% rake. Preflop: button raises to 60, big blind folds;
    the uncalled 40 is returned, pot 40: no rake with no-flop-no-drop, else 4 (button nets
    +16). Or: button limps, big blind checks, big blind bets 20 on the flop and the
    button folds: pot 40 after the flop, raked 4 either way (big blind nets +16)."""
    t = table(
        ["AhAs", "KhKs"],
        [200, 200],
        small_blind=10,
        big_blind=20,
        rake_percent=10,
        no_flop_no_drop=no_flop_no_drop,
    )
    if see_flop:
        play(t, (0, "c"), (1, "c"), (1, 20), (0, "f"))
    else:
        play(t, (0, 60), (1, "f"))
    assert_settled(t, net, rake=rake)


def test_rake_comes_from_the_main_pot_first() -> None:
    """3 players, 10% rake, stacks [50, 10, 50]. The button shoves 50, S1 calls all-in
    for 10, B2 calls all-in for 50. Pot 110, rake 11, all taken from the main pot:
    main 30 - 11 = 19 (all three) to S1's aces, side 80 (0, 2) to B2's kings.
    Nets [-50, +9, +30]."""
    t = table(["QhQs", "AhAs", "KhKs"], [50, 10, 50], rake_percent=10)
    play(t, (0, 50), (1, "c"), (2, "c"))
    assert_settled(t, [-50, 9, 30], rake=11)
    assert t.result is not None
    assert t.result.pots == [Pot(19, (0, 1, 2)), Pot(80, (0, 2))]


def test_decimal_rake_percent_is_exact() -> None:
    """Heads-up, 4.6% rake, stacks 750: all-in preflop, pot 1500. 4.6% of 1500 is exactly
    69, so the aces should net 1500 - 69 - 750 = +681; the engine rakes 68 because
    ``1500 * 4.6`` is 6899.999... in floating point."""
    t = table(["AhAs", "KhKs"], [750, 750], rake_percent=4.6)
    play(t, (0, 750), (1, "c"))
    assert_settled(t, [681, -750], rake=69)


# -- 9. fixed limit -------------------------------------------------------------------------


FL: dict[str, Any] = {"betting": "fixed-limit"}


def test_fixed_limit_sizes_and_cap() -> None:
    """Fixed limit 2/4 (blinds 1/2), 3 players, button 0, stacks 100.

    Preflop the big blind is bet 1: button raises to 4, S1 to 6, B2 to 8 (bet 4, the cap);
    the button may only call (4), S1 calls 2. Pot 24. Flop (small bet 2): S1 bets 2, B2 4,
    button 6, S1 8 (cap); B2 calls 4, button calls 2. Pot 48. Turn (big bet 4): S1 bets
    4, both call: pot 60. River: S1 checks, B2 bets 4, button folds, S1 calls: pot 68.
    S1's aces win: contributions [20, 24, 24], nets [-20, +44, -24].
    """
    t = table(["QhQs", "AhAs", "KhKs"], [100] * 3, **FL)
    legal = t.legal()
    assert (legal.seat, legal.min_raise_to, legal.max_raise_to) == (0, 4, 4)
    with pytest.raises(IllegalActionError, match="between 4 and 4, not 5"):
        t.raise_to(5)
    play(t, (0, 4), (1, 6), (2, 8))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (0, 4, None)
    with pytest.raises(IllegalActionError, match="may not raise"):
        t.raise_to(10)
    play(t, (0, "c"), (1, "c"))
    assert t.street is Street.FLOP
    assert t.pot() == 24
    assert t.legal().min_raise_to == 2
    play(t, (1, 2), (2, 4), (0, 6), (1, 8))
    assert t.legal().min_raise_to is None
    play(t, (2, "c"), (0, "c"))
    assert t.pot() == 48
    assert (t.legal().min_raise_to, t.legal().max_raise_to) == (4, 4)
    play(t, (1, 4), (2, "c"), (0, "c"))
    assert t.street is Street.RIVER
    assert t.legal().min_raise_to == 4
    play(t, (1, "c"), (2, 4), (0, "f"), (1, "c"))
    assert_settled(t, [-20, 44, -24])


@pytest.mark.parametrize(
    ("cap_heads_up", "next_raise"), [(False, 10), (True, None)], ids=["uncapped", "capped"]
)
def test_fixed_limit_cap_heads_up(cap_heads_up: bool, next_raise: int | None) -> None:
    """Fixed limit 2/4 heads-up, button 0. Button raises to 4, big blind to 6, button to
    8: four bets. The big blind may raise to 10 unless ``cap_heads_up``. It calls; checked
    down, button's aces win 16: nets [+8, -8]."""
    t = table(["AhAs", "KhKs"], [100, 100], cap_heads_up=cap_heads_up, **FL)
    play(t, (0, 4), (1, 6), (0, 8))
    assert t.legal().min_raise_to == next_raise
    play(t, (1, "c"))
    check_down(t, 1, 0)
    assert_settled(t, [8, -8])


def test_fixed_limit_cap_lifts_when_two_players_are_left() -> None:
    """Fixed limit 2/4, 3 players, button 0. The button folds; the blinds raise to 4, 6, 8
    (the cap 3-handed), and with only two players left B2 may still raise, to 10 and 12.
    S1 calls; check down; S1's aces win 24: nets [0, +12, -12]."""
    t = table(["QhQs", "AhAs", "KhKs"], [100] * 3, **FL)
    play(t, (0, "f"), (1, 4), (2, 6), (1, 8))
    assert t.legal().min_raise_to == 10
    play(t, (2, 10), (1, 12))
    assert t.legal().min_raise_to == 14
    play(t, (2, "c"))
    check_down(t, 1, 2)
    assert_settled(t, [0, 12, -12])


def test_fixed_limit_short_all_in() -> None:
    """Fixed limit 4/8 (blinds 2/4), 3 players, button 0, stacks [100, 100, 9]. The button
    raises to 8, S1 calls; B2 has 5 behind its blind and raises all-in to 9 (short by 3).
    That does not reopen: the button and S1 may only call 1. Flop: S1 bets 4, button calls.
    Turn: S1 checks, button bets 8, S1 calls; river checked. Main pot 3 x 9 = 27 to B2's
    aces, side pot 2 x 12 = 24 (0, 1) to the button's kings. Nets [+3, -21, +18]."""
    t = table(
        ["KhKs", "QhQs", "AhAs"],
        [100, 100, 9],
        small_blind=2,
        big_blind=4,
        small_bet=4,
        big_bet=8,
        **FL,
    )
    play(t, (0, 8), (1, "c"))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to, legal.max_raise_to) == (2, 4, 9, 9)
    play(t, (2, 9))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (0, 1, None)
    play(t, (0, "c"))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (1, 1, None)
    play(t, (1, "c"))
    assert t.legal().min_raise_to == 4
    play(t, (1, 4), (0, "c"))
    play(t, (1, "c"))
    assert t.legal().min_raise_to == 8
    play(t, (0, 8), (1, "c"))
    play(t, (1, "c"), (0, "c"))
    assert_settled(t, [3, -21, 18])
    assert t.result is not None
    assert t.result.pots == [Pot(27, (0, 1, 2)), Pot(24, (0, 1))]


def test_fixed_limit_half_bet_all_in_does_not_reopen() -> None:
    """Fixed limit 4/8 (blinds 2/4), 3 players, button 0, stacks [100, 100, 10]. The
    button raises to 8, S1 calls; B2 raises all-in to 10, 2 more: half a bet. The engine
    applies the full-raise rule in fixed limit too (documented in docs/engine.md; some
    rooms, and TDA rule 47B, reopen on half a bet): the button may only call 2 or fold."""
    t = table(
        ["KhKs", "QhQs", "AhAs"],
        [100, 100, 10],
        small_blind=2,
        big_blind=4,
        small_bet=4,
        big_bet=8,
        **FL,
    )
    play(t, (0, 8), (1, "c"), (2, 10))
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (0, 2, None)


# -- 10. antes and forced all-ins -----------------------------------------------------------


def test_antes_are_dead_money() -> None:
    """3 players, ante 1, blinds 1/2, button 0. After the forced bets the pot is 6, but the
    button's call is 2 (the big blind), not 3, and its minimum raise is to 4. Button and S1
    fold: the big blind gets its uncalled 1 back and wins 1 + 1 + 1 (two antes, the small
    blind). Nets [-1, -2, +3]."""
    t = table(["AhAs", "KhKs", "QhQs"], [100] * 3, ante=1)
    assert t.stack == [99, 98, 97]
    assert t.pot() == 6
    legal = t.legal()
    assert (legal.seat, legal.call, legal.min_raise_to) == (0, 2, 4)
    play(t, (0, "f"), (1, "f"))
    assert_settled(t, [-1, -2, 3])
    assert t.result is not None
    assert t.result.pots == [Pot(5, (2,))]


def test_all_in_from_the_ante_alone() -> None:
    """3 players, ante 2, blinds 1/2, button 0 with only 2 chips: the ante puts it all-in,
    so it never acts and S1 acts first. S1 completes, B2 checks; checked down. Main pot
    3 x 2 = 6 to the button's aces; side pot 2 + 2 = 4 (1, 2) to S1's kings.
    Nets [+4, 0, -4]."""
    t = table(["AhAs", "KhKs", "QhQs"], [2, 100, 100], ante=2)
    assert t.stack == [0, 97, 96]
    play(t, (1, "c"), (2, "c"))
    check_down(t, 1, 2)
    assert_settled(t, [4, 0, -4])
    assert t.result is not None
    assert t.result.pots == [Pot(6, (0, 1, 2)), Pot(4, (1, 2))]
    assert all(a.seat != 0 for a in t.log)


def test_all_in_from_the_big_blind_alone() -> None:
    """3 players, button 0, stacks [100, 100, 2]: the big blind is all-in posting. The
    button raises to 6, S1 calls; B2 is skipped. Check down between 1 and 0. Main pot
    3 x 2 = 6 to B2's aces, side pot 4 + 4 = 8 (0, 1) to the button's kings.
    Nets [+2, -6, +4]."""
    t = table(["KhKs", "QhQs", "AhAs"], [100, 100, 2])
    play(t, (0, 6), (1, "c"))
    assert t.street is Street.FLOP
    check_down(t, 1, 0)
    assert_settled(t, [2, -6, 4])
    assert t.result is not None
    assert t.result.pots == [Pot(6, (0, 1, 2)), Pot(8, (0, 1))]


def test_short_small_blind_all_in_others_face_full_big_blind() -> None:
    """3 players, blinds 5/10, button 0, stacks [100, 3, 100]: S1 posts 3, all-in. The
    button still faces the full 10 and calls; B2 checks; on the flop B2 (first live seat
    with chips left of the button) acts first; checked down. Main pot 3 x 3 = 9 to S1's
    aces, side pot 7 + 7 = 14 (0, 2) to the button's kings. Nets [+4, +6, -10]."""
    t = table(["KhKs", "AhAs", "QhQs"], [100, 3, 100], small_blind=5, big_blind=10)
    assert t.legal().call == 10
    play(t, (0, "c"), (2, "c"))
    check_down(t, 2, 0)
    assert_settled(t, [4, 6, -10])


# -- 11. EV settlement -----------------------------------------------------------------------


EV: dict[str, Any] = {"settlement": "ev"}


def test_ev_heads_up_aces_against_kings() -> None:
    """Heads-up, stacks S = 100, AhAs (button) all-in preflop against KhKs. The board
    Kc 2d 7h 9s 3c makes the kings a set, so ``net`` is [-100, +100]; but
    ``expected_net`` is S * (2 e - 1) for the aces, e = exact equity of AhAs vs KhKs
    (about 0.8264), and its negative for the kings."""
    t = table(["AhAs", "KhKs"], [100, 100], board="Kc2d7h9s3c", **EV)
    play(t, (0, 100), (1, "c"))
    assert_settled(t, [-100, 100])
    e = equity("AhAs", "KhKs")[0]
    assert 0.82 < e < 0.83
    assert t.result is not None
    assert t.result.expected_net == pytest.approx([100 * (2 * e - 1), -100 * (2 * e - 1)])


def test_ev_three_way_with_side_pot() -> None:
    """3 players, stacks [100, 30, 100], button 0 shoves AhAs, S1 calls all-in with KhKs,
    B2 calls all-in with QhQs. Main pot 90 (all three) is shared by the 3-way equities;
    side pot 140 (0, 2) by the AA vs QQ equities with KhKs out of the deck. The board
    Qc 2d 7h 9s 3c gives queens everything: nets [-100, -30, +130]."""
    t = table(["AhAs", "KhKs", "QhQs"], [100, 30, 100], board="Qc2d7h9s3c", **EV)
    play(t, (0, 100), (1, "c"), (2, "c"))
    assert_settled(t, [-100, -30, 130])
    assert t.result is not None
    assert t.result.pots == [Pot(90, (0, 1, 2)), Pot(140, (0, 2))]
    three = equity("AhAs", "KhKs", "QhQs")
    two = equity("AhAs", "QhQs", dead="KhKs")
    expected = [
        90 * three[0] + 140 * two[0] - 100,
        90 * three[1] - 30,
        90 * three[2] + 140 * two[1] - 100,
    ]
    assert t.result.expected_net == pytest.approx(expected)
    assert sum(t.result.expected_net) == pytest.approx(0, abs=1e-9)


def test_ev_all_in_on_the_flop() -> None:
    """Heads-up, button 0 with AhKh, big blind QsQd; limped. Flop Qh 7h 2c: the big blind
    shoves 98, the flush draw calls. Turn 3d, river 4s: the set wins, nets [-100, +100];
    expected nets are 200 e - 100 with e the exact flop equities."""
    t = table(["AhKh", "QsQd"], [100, 100], board="Qh7h2c3d4s", **EV)
    play(t, (0, "c"), (1, "c"))
    play(t, (1, 98), (0, "c"))
    assert_settled(t, [-100, 100])
    e = equity("AhKh", "QsQd", board="Qh7h2c")
    assert t.result is not None
    assert t.result.expected_net == pytest.approx([200 * e[0] - 100, 200 * e[1] - 100])


def test_ev_on_the_river_equals_net() -> None:
    """Heads-up with EV settlement; checked to the river, where the button calls an all-in
    of 98. Nothing is left to deal, so ``expected_net == net`` = [+100, -100] (aces win)."""
    t = table(["AhAs", "KhKs"], [100, 100], **EV)
    play(t, (0, "c"), (1, "c"), (1, "c"), (0, "c"), (1, "c"), (0, "c"))
    play(t, (1, 98), (0, "c"))
    assert_settled(t, [100, -100])
    assert t.result is not None
    assert t.result.expected_net == [100.0, -100.0]


def test_ev_fold_out_equals_net() -> None:
    """EV settlement when nobody calls: the button shoves, the big blind folds;
    ``expected_net == net`` = [+2, -2]."""
    t = table(["2h7d", "AhAs"], [100, 100], **EV)
    play(t, (0, 100), (1, "f"))
    assert_settled(t, [2, -2])
    assert t.result is not None
    assert t.result.expected_net == [2.0, -2.0]


# -- 12. errors -----------------------------------------------------------------------------


def test_raise_below_min_and_above_max_are_refused() -> None:
    """Heads-up, stacks 100: the button may raise to 4..100; 3 and 101 are refused with the
    bounds in the message, and the table is unchanged."""
    t = table(["AhAs", "KhKs"], [100, 100])
    for bad in (3, 101):
        with pytest.raises(
            IllegalActionError, match=f"seat 0 must raise to between 4 and 100, not {bad}"
        ):
            t.raise_to(bad)
    assert (t.to_act, t.stack, t.log) == (0, [99, 98], [])


def test_raise_when_not_allowed() -> None:
    """Heads-up, stacks [100, 50]: the button shoves 100, so the big blind (all its 50
    would only call) may not raise; ``raise_to`` says so."""
    t = table(["AhAs", "KhKs"], [100, 50])
    play(t, (0, 100))
    with pytest.raises(IllegalActionError, match="seat 1 may not raise now"):
        t.raise_to(50)


def test_fold_when_check_is_free() -> None:
    """Heads-up: the button limps; the big blind may check, so folding is refused."""
    t = table(["AhAs", "KhKs"], [100, 100])
    play(t, (0, "c"))
    with pytest.raises(IllegalActionError, match="seat 1 may check; folding is not allowed"):
        t.fold()


def test_every_action_after_the_hand_is_refused() -> None:
    """After a fold-out, fold, check/call, raise, ``act`` and ``legal`` all say the hand
    is over."""
    t = table(["AhAs", "KhKs"], [100, 100])
    play(t, (0, "f"))
    for attempt in (t.fold, t.check_call, lambda: t.raise_to(10), lambda: t.act("call"), t.legal):
        with pytest.raises(IllegalActionError, match="the hand is over"):
            attempt()


def test_unknown_move_is_refused() -> None:
    """``act`` only knows fold, call and raise."""
    t = table(["AhAs", "KhKs"], [100, 100])
    with pytest.raises(ValueError, match="'shove' is not a valid Move"):
        t.act("shove", 100)


@pytest.mark.parametrize(
    ("stacks", "button", "message"),
    [
        ([100, 100], 0, r"need 3 whole-chip stacks of at least 0, got \[100, 100\]"),
        ([100, 0, 0], 0, "a hand needs at least 2 occupied seats"),
        ([100, -5, 100], 0, "need 3 whole-chip stacks of at least 0"),
        ([100, 0, 100], 1, "the button is on seat 1, an empty seat"),
        ([100] * 3, 3, "button 3 is not a seat of 3"),
        ([100] * 3, -1, "button -1 is not a seat of 3"),
    ],
)
def test_bad_stacks_or_button(stacks: list[int], button: int, message: str) -> None:
    """The constructor names a wrong number of stacks, a negative stack, fewer than two
    occupied seats (a stack of 0 is an empty seat), or a button that is not an occupied
    seat."""
    with pytest.raises(ValueError, match=message):
        Table(GameConfig(seats=3), stacks, button=button, seed=1)


def test_fractional_stack_is_refused() -> None:
    """Chips are integers: a stack of 100.5 should be refused by the constructor (today
    it is accepted and the hand is played with fractional chips)."""
    with pytest.raises(ValueError, match="stack"):
        Table(GameConfig(seats=2), [100.5, 100], seed=1)  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("holes", "board", "error", "message"),
    [
        ([[0, 1]], None, ValueError, "need two hole cards .*for each of 2 seats"),
        ([[0, 1], [2]], None, ValueError, "need two hole cards .*for each of 2 seats"),
        ([[0, 1], [2, 3]], list(range(10, 16)), ValueError, "a board has 5 cards, got 6"),
        ([[0, 0], [2, 3]], None, CardError, "card '2c' is dealt twice"),
        ([[0, 1], [2, 3]], [1, 4, 5, 6, 7], CardError, "card '2d' is dealt twice"),
        ([[0, 1], [2, 3]], [10, 11, 10], CardError, "card '4h' is dealt twice"),
        ([[0, 52], [2, 3]], None, CardError, "bad card index 52"),
    ],
    ids=["one-hand", "one-card", "six-board", "pair-dup", "hole-board-dup", "board-dup", "52"],
)
def test_bad_cards(
    holes: list[list[int]], board: list[int] | None, error: type[Exception], message: str
) -> None:
    """Wrong card counts, a card dealt twice and an out-of-range index are refused, and
    the message names the problem (card errors are ValueErrors too)."""
    assert issubclass(error, ValueError)
    with pytest.raises(error, match=message):
        Table(GameConfig(seats=2), [100, 100], hole_cards=holes, board=board)


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"small_blind": 3, "big_blind": 2}, "small blind cannot exceed the big blind"),
        ({"straddle": 3}, "a straddle is at least twice the big blind"),
        ({"seats": 2, "straddle": 4}, "a straddle needs at least three seats"),
    ],
)
def test_bad_config(rules: dict[str, int], message: str) -> None:
    """Inconsistent forced bets are refused by the config with a named reason."""
    with pytest.raises(ValidationError, match=message):
        GameConfig(**rules)


def test_tampered_log_is_refused_on_replay() -> None:
    """A serialized hand whose log names the wrong seat does not replay."""
    t = table(["AhAs", "KhKs"], [100, 100])
    play(t, (0, "c"), (1, "c"))
    data = t.to_dict()
    data["actions"][1]["seat"] = 0
    with pytest.raises(IllegalActionError, match="log says seat 0 acts, but seat 1 is to act"):
        Table.from_dict(data)


def test_board_after_preflop_fold_out_is_empty() -> None:
    """``board`` is "the community cards dealt so far": after everyone folds preflop no
    card was dealt, so it should be empty (today the whole stored board is shown)."""
    t = table(["AhAs", "KhKs"], [100, 100])
    play(t, (0, "f"))
    assert t.board == []


def test_forced_bets_price_a_short_blind_at_its_full_size() -> None:
    """A big blind all-in for less than the blind: the others still call the full blind."""
    config = GameConfig(seats=3, small_blind=1, big_blind=2)
    table = Table(config, [100, 100, 1], button=0, forced=ForcedBets((0, 1, 2)), seed=3)
    assert table.bet == [0, 1, 1]
    legal = table.legal()
    assert (legal.seat, legal.call) == (0, 2)


def test_forced_bets_first_to_act() -> None:
    """Small blind equal to the big blind: the caller says who opens."""
    config = GameConfig(seats=4, small_blind=2, big_blind=2)
    table = Table(
        config, [100] * 4, button=0, forced=ForcedBets((0, 2, 2, 0), first_to_act=3), seed=3
    )
    assert table.to_act == 3
    default = Table(config, [100] * 4, button=0, forced=ForcedBets((0, 2, 2, 0)), seed=3)
    assert default.to_act == 2  # left of the first largest blind, the small blind's seat 1
    with pytest.raises(ValueError, match="forced bets"):
        Table(config, [100] * 4, forced=ForcedBets((0, 2, 2, 0), first_to_act=4))


def test_free_fold_only_when_asked_and_it_replays() -> None:
    """Folding when checking is free is refused unless ``when_free``; the log replays."""
    table = Table(GameConfig(seats=2), [100, 100], button=0, seed=4)
    table.check_call()  # the button completes
    with pytest.raises(IllegalActionError, match="may check"):
        table.fold()
    table.fold(when_free=True)
    assert table.done
    assert table.replay().result == table.result
