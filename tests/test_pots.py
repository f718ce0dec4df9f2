"""Unit tests of ``engine.pots``: side pots, rake, and splitting a pot with odd chips.

Amounts are worked out by hand in each docstring. Seats are numbered clockwise; odd chips
go one at a time to the tied winners in seat order starting left of the button.
"""

from __future__ import annotations

import itertools

import pytest

from poolshark.engine.pots import Pot, rake_amount, side_pots, split_pot, take_rake

# -- side_pots --------------------------------------------------------------------------------


def test_equal_contributions_make_one_pot() -> None:
    """Three players in for 50 each: one pot of 150 open to all."""
    assert side_pots([50, 50, 50], [True, True, True]) == [Pot(150, (0, 1, 2))]


def test_layers_by_live_contribution() -> None:
    """All-ins of 30, 80 and 150 and a cover of 150: main 4 x 30 = 120 (all), side
    3 x 50 = 150 (1, 2, 3), side 2 x 70 = 140 (2, 3)."""
    assert side_pots([30, 80, 150, 150], [True] * 4) == [
        Pot(120, (0, 1, 2, 3)),
        Pot(150, (1, 2, 3)),
        Pot(140, (2, 3)),
    ]


def test_folded_chips_stay_in_the_pots_they_reached() -> None:
    """Seat 0 folded after putting in 20; live seats in for 30, 80, 80. Levels come from
    live players only: main 20 + 3 x 30 = 110 (1, 2, 3), side 2 x 50 = 100 (2, 3)."""
    assert side_pots([20, 30, 80, 80], [False, True, True, True]) == [
        Pot(110, (1, 2, 3)),
        Pot(100, (2, 3)),
    ]


def test_folded_chips_above_a_short_all_in() -> None:
    """Seat 0 folded after 100; seat 1 all-in for 30, seat 2 in for 100. Main 3 x 30 = 90
    (1, 2); side 70 + 70 = 140 (2 alone): the folded chips above 30 go to the side pot."""
    assert side_pots([100, 30, 100], [False, True, True]) == [
        Pot(90, (1, 2)),
        Pot(140, (2,)),
    ]


def test_single_live_player_takes_everything() -> None:
    """Everyone folded to seat 3, whose 2 matched the folded big blind's 2; the small blind
    folded 1: one pot of 0 + 1 + 2 + 2 = 5 for seat 3."""
    assert side_pots([0, 1, 2, 2], [False, False, False, True]) == [Pot(5, (3,))]


def test_dead_chips_above_every_live_level() -> None:
    """Seat 1 folded after 50, the only live seat put in 10: levels stop at 10, so the dead
    40 above it joins the last pot: one pot of 60 for seat 0."""
    assert side_pots([10, 50], [True, False]) == [Pot(60, (0,))]


def test_no_live_contribution() -> None:
    """The live seat put nothing in (a walk with a dead blind): the 5 dead chips form one
    pot open to it."""
    assert side_pots([0, 5], [True, False]) == [Pot(5, (0,))]


def test_nothing_in_the_pot() -> None:
    """No chips: no pots."""
    assert side_pots([0, 0], [True, True]) == []


def test_pots_hold_every_chip() -> None:
    """For every mix of contributions from {0, 3, 10, 25} and every non-empty set of live
    seats among four, the pots sum to the chips put in, and each pot is open to at least
    one seat, all of them live, in ascending order."""
    live_sets = list(itertools.product([False, True], repeat=4))[1:]  # all but none live
    for contributions in itertools.product([0, 3, 10, 25], repeat=4):
        for live in live_sets:
            pots = side_pots(contributions, live)
            assert sum(p.amount for p in pots) == sum(contributions)
            for pot in pots:
                assert pot.eligible
                assert pot.eligible == tuple(sorted(pot.eligible))
                assert all(live[s] for s in pot.eligible)


# -- rake -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("total", "percent", "cap", "rake"),
    [
        (58, 5, None, 2),  # 2.9 rounds down
        (60, 5, None, 3),
        (200, 5, 3, 3),  # 10, capped
        (200, 5, 0, 0),
        (100, 2.5, None, 2),  # 2.5 rounds down
        (1000, 2.5, None, 25),
        (0, 5, None, 0),
        (100, 0, 5, 0),
        (7, 100, None, 7),
    ],
)
def test_rake_amount(total: int, percent: float, cap: int | None, rake: int) -> None:
    """Rake is ``percent`` of the pot rounded down, at most ``cap``."""
    assert rake_amount(total, percent, cap) == rake


@pytest.mark.parametrize(
    ("total", "percent", "rake"),
    [(1500, 4.6, 69), (3000, 2.3, 69), (3000, 4.1, 123), (2750, 2.8, 77)],
)
def test_rake_amount_exact_for_decimal_percent(total: int, percent: float, rake: int) -> None:
    """A decimal percent whose exact rake is a whole number: 4.6% of 1500 is exactly 69,
    but ``1500 * 4.6`` is 6899.999... in binary floating point, which floors to 68."""
    assert rake_amount(total, percent, None) == rake


def test_take_rake_main_pot_first() -> None:
    """Main 30, side 80, rake 11: the main pot pays it all (19, 80)."""
    pots = [Pot(30, (0, 1, 2)), Pot(80, (0, 2))]
    assert take_rake(pots, 11) == [Pot(19, (0, 1, 2)), Pot(80, (0, 2))]


def test_take_rake_spills_into_side_pots() -> None:
    """Main 30, side 80, rake 33: the main pot is emptied, the side pot pays 3 (0, 77)."""
    pots = [Pot(30, (0, 1, 2)), Pot(80, (0, 2))]
    assert take_rake(pots, 33) == [Pot(0, (0, 1, 2)), Pot(77, (0, 2))]


def test_take_no_rake() -> None:
    """Rake 0 leaves the pots as they were."""
    pots = [Pot(30, (0, 1)), Pot(10, (1,))]
    assert take_rake(pots, 0) == pots


# -- split_pot --------------------------------------------------------------------------------


def test_even_split() -> None:
    """10 chips between seats 1 and 2: 5 each."""
    assert split_pot(10, [1, 2], button=0, seats=3) == {1: 5, 2: 5}


def test_single_winner_takes_all() -> None:
    """One winner gets the whole odd pot."""
    assert split_pot(7, [1], button=0, seats=3) == {1: 7}


def test_odd_chip_to_first_left_of_button() -> None:
    """7 chips between seats 0 and 2, button 1: seat 2 sits first left of the button, so it
    gets 4 and seat 0 gets 3 (not the lowest seat number)."""
    assert split_pot(7, [0, 2], button=1, seats=3) == {0: 3, 2: 4}


def test_odd_chip_wraps_around_past_the_last_seat() -> None:
    """6 seats, button 5: clockwise order from its left is 0, 1, ..., 5. 7 chips between
    seats 0 and 5 give seat 0 the odd chip; between 3 and 4 with button 3, seat 4 first and
    the button itself last."""
    assert split_pot(7, [5, 0], button=5, seats=6) == {0: 4, 5: 3}
    assert split_pot(5, [3, 4], button=3, seats=6) == {4: 3, 3: 2}


def test_three_way_remainder_two() -> None:
    """14 chips among seats 0, 1 and 3 with the button at 2: clockwise 3, 0, 1, so 4 each
    and one more to seats 3 and 0."""
    assert split_pot(14, [0, 1, 3], button=2, seats=4) == {3: 5, 0: 5, 1: 4}


def test_winner_order_does_not_matter() -> None:
    """The payout depends on the seats, not on the order the winners are listed in."""
    for order in itertools.permutations([0, 1, 3]):
        assert split_pot(14, list(order), button=2, seats=4) == {3: 5, 0: 5, 1: 4}


@pytest.mark.parametrize("seats", [2, 3, 6, 10])
def test_split_pays_every_chip(seats: int) -> None:
    """For every button, winner set and amount 0..12, the shares sum to the pot and differ
    by at most one chip, the extra chips going to the first winners clockwise."""
    for button in range(seats):
        for k in range(1, min(seats, 4) + 1):
            for winners in itertools.combinations(range(seats), k):
                clockwise = sorted(winners, key=lambda s: (s - button - 1) % seats)
                for amount in range(13):
                    payout = split_pot(amount, list(winners), button, seats)
                    assert sum(payout.values()) == amount
                    shares = [payout[s] for s in clockwise]
                    assert shares == sorted(shares, reverse=True)
                    assert shares[0] - shares[-1] <= 1
