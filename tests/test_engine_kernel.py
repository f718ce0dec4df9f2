"""The compiled rules kernel against the readable :class:`Table`, function by function.

``BatchedTables`` exercises the kernel with a config's own forced bets
(``tests/test_engine_batched.py``); here the kernel follows hands whose forced bets are
given per seat under the house rules a history may show (what the decision-row pass
does), and its pot layering and awards are compared with ``engine.pots``.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.cards.evaluator import tables
from poolshark.engine.config import Betting, GameConfig, HouseRule
from poolshark.engine.kernel import (
    BET,
    CURRENT_BET,
    INCREMENT,
    NO_RAISE,
    SEAT_FIELDS,
    SETTLING,
    STACK,
    STREET,
    TABLE_FIELDS,
    TO_ACT,
    TOTAL,
    Evaluator,
    Rules,
    act,
    award_pots,
    layer_pots,
    legal_bounds,
    post_given_bets,
    settle,
)
from poolshark.engine.pots import rake_amount, side_pots, split_pot, take_rake
from poolshark.engine.table import ForcedBets, Move, Table

BETTING_RULES = (HouseRule.POSTED_PRICE, HouseRule.SHORT_ALL_IN_REOPENS)


def random_hand(rng: random.Random) -> tuple[GameConfig, list[int], ForcedBets, int]:
    """A game, stacks, per-seat forced bets under some house rules, and a button."""
    seats = rng.randint(2, 7)
    big = rng.randint(1, 6)
    fixed = rng.random() < 0.3
    config = GameConfig(
        betting=Betting.FIXED_LIMIT if fixed else Betting.NO_LIMIT,
        seats=seats,
        small_blind=0,
        big_blind=big,
        raise_cap=rng.randint(1, 5),
        rake_percent=rng.choice([0.0, 5.0]),
        rake_cap=rng.choice([None, 3]),
    )
    stacks = [rng.choice([rng.randint(1, 8), rng.randint(9, 120)]) for _ in range(seats)]
    blinds = [rng.choice([0, 0, big // 2, big, 2 * big, 3 * big]) for _ in range(seats)]
    dead = [rng.choice([0, 0, 1, big]) for _ in range(seats)]
    house = HouseRule(0)
    for rule in BETTING_RULES:
        if rng.random() < 0.4:
            house |= rule
    forced = ForcedBets(tuple(blinds), tuple(dead), house_rules=house)
    return config, stacks, forced, rng.randrange(seats)


def kernel_hand(
    config: GameConfig, stacks: list[int], forced: ForcedBets, button: int
) -> tuple[Rules, np.ndarray, np.ndarray]:
    """The kernel's state after posting the forced bets."""
    rules = Rules.of(config, forced.house_rules)
    seat = np.zeros((SEAT_FIELDS, config.seats), dtype=np.int64)
    table = np.zeros(TABLE_FIELDS, dtype=np.int64)
    as_array = np.asarray
    post_given_bets(
        rules,
        seat,
        table,
        button,
        as_array(stacks, dtype=np.int64),
        as_array(forced.blinds, dtype=np.int64),
        as_array(forced.dead or (0,) * config.seats, dtype=np.int64),
    )
    return rules, seat, table


def agree(reference: Table, seat: np.ndarray, table: np.ndarray) -> None:
    """The kernel's state is the table's: chips, street, price, player to act (a finished
    table has paid out; the kernel leaves that to ``settle``)."""
    assert seat[TOTAL].tolist() == reference.total
    if reference.done:
        assert table[STREET] == SETTLING
        return
    assert seat[STACK].tolist() == reference.stack
    assert seat[BET].tolist() == reference.bet
    assert table[STREET] == reference.street
    assert table[CURRENT_BET] == reference.current_bet
    assert table[TO_ACT] == reference.to_act


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_kernel_follows_forced_bets_and_house_rules_like_table(seed: int) -> None:
    rng = random.Random(seed)
    config, stacks, forced, button = random_hand(rng)
    reference = Table(config, stacks, button=button, forced=forced, seed=seed)
    rules, seat, table = kernel_hand(config, stacks, forced, button)
    log = np.zeros((64, 4), dtype=np.int64)
    agree(reference, seat, table)
    from_kernel = legal_of(rules, seat, table)
    while not reference.done:
        legal = reference.legal()
        assert from_kernel == (
            legal.call,
            NO_RAISE if legal.min_raise_to is None else legal.min_raise_to,
            NO_RAISE if legal.max_raise_to is None else legal.max_raise_to,
        )
        if legal.can_fold and rng.random() < 0.2:
            move, amount = Move.FOLD, 0
        elif legal.min_raise_to is not None and legal.max_raise_to and rng.random() < 0.4:
            move, amount = Move.RAISE, rng.randint(legal.min_raise_to, legal.max_raise_to)
        else:
            move, amount = Move.CHECK_CALL, 0
        reference.act(move, amount)
        act(rules, seat, table, log, list(Move).index(move), amount)
        agree(reference, seat, table)
        if not reference.done:
            from_kernel = legal_of(rules, seat, table)
    assert reference.result is not None
    holes = [card for hole in reference.hole_cards for card in hole]
    cards = np.array([*holes, *reference.board_cards], dtype=np.uint8)
    expected = np.zeros(config.seats)
    seat[0] = stacks  # START: the net is counted from the starting stacks
    settle(rules, seat, table, cards, expected, Evaluator(*tables()))
    assert (seat[STACK] - np.asarray(stacks)).tolist() == reference.result.net


def legal_of(rules: Rules, seat: np.ndarray, table: np.ndarray) -> tuple[int, int, int]:
    """``kernel.legal_bounds`` as plain ints."""
    call, low, high = legal_bounds(rules, seat, table)
    return int(call), int(low), int(high)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 60), st.booleans(), st.integers(0, 3)), min_size=2, max_size=9
    ),
    st.integers(0, 40),
    st.integers(0, 8),
)
def test_pots_and_awards_match_the_readable_pots(
    seats: list[tuple[int, bool, int]], rake: int, button: int
) -> None:
    """Layering, rake from the main pot first and odd chips left of the button, as
    ``engine.pots`` does them (values decide each pot among its eligible players)."""
    total = np.array([c for c, _, _ in seats], dtype=np.int64)
    live = [alive for _, alive, _ in seats]
    values = np.array([v for _, _, v in seats], dtype=np.int64)
    if not any(live):
        live[0] = True
    button %= len(seats)
    whole = int(total.sum())
    rake = min(rake, whole)
    folded = np.array([not alive for alive in live], dtype=np.int64)
    levels = np.zeros(len(seats) + 1, dtype=np.int64)
    amounts = np.zeros(len(seats) + 1, dtype=np.int64)
    pots = layer_pots(total, folded, whole, rake, levels, amounts)
    payout = np.zeros(len(seats), dtype=np.int64)
    award_pots(button, total, folded, values, levels, amounts, pots, payout)

    reference = take_rake(side_pots(total.tolist(), live), rake) if whole else []
    assert amounts[:pots].tolist() == [p.amount for p in reference]
    paid = [0] * len(seats)
    for pot in reference:
        best = max(values[s] for s in pot.eligible)
        winners = [s for s in pot.eligible if values[s] == best]
        for s, chips in split_pot(pot.amount, winners, button, len(seats)).items():
            paid[s] += chips
    assert payout.tolist() == paid


@given(st.integers(0, 10**6), st.sampled_from([0.0, 2.5, 4.6, 5.0, 10.0, 100.0]))
def test_rake_fraction_matches_the_decimal_rake(whole: int, percent: float) -> None:
    config = GameConfig(rake_percent=percent)
    rules = Rules.of(config)
    assert whole * rules.rake_numerator // rules.rake_denominator == rake_amount(
        whole, percent, None
    )


def test_posted_price_prices_the_call_from_the_bet_actually_posted() -> None:
    """``posted-price``: a short big blind sets the price; raises go by the big blind."""
    config = GameConfig(seats=3, small_blind=1, big_blind=2)
    forced = ForcedBets((0, 1, 2), house_rules=HouseRule.POSTED_PRICE)
    _, seat, table = kernel_hand(config, [100, 100, 1], forced, 0)
    reference = Table(config, [100, 100, 1], button=0, forced=forced)
    assert table[CURRENT_BET] == reference.current_bet == 1
    assert table[INCREMENT] == reference.increment == 2
    agree(reference, seat, table)
