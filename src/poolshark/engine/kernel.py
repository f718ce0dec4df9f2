"""The compiled rules kernel: hold'em betting and settlement over plain integer arrays.

:class:`~poolshark.engine.table.Table` is the readable reference of the rules; this module
is their one compiled implementation. Everything that plays or follows hands in compiled
code calls it: :class:`~poolshark.engine.batched.BatchedTables` (and the play loops on its
arrays), the decision-row pass (``histories.rows``), the pool's decision contexts
(``pool.context``) and the history settlement check (``histories.settle``). The tests
compare these functions with ``Table`` (``tests/test_engine_kernel.py``) and, through
``BatchedTables``, with ``Table`` and PokerKit.

State of one table is two integer arrays with named fields: ``seat[FIELD, seat]`` per
seat and ``table[FIELD]`` per table; the game is a :class:`Rules` (a
:class:`~poolshark.engine.config.GameConfig` as plain ints, plus the house rules a
history shows, :class:`~poolshark.engine.config.HouseRule` bits).

* Betting: :func:`legal_bounds` (what the player to act may do; ``table[LOG_LEN]`` counts
  the hand's decisions for the config's safety cap), :func:`note_raise` (the
  raise increment, the raise count and who may act again), :func:`act` (apply a move,
  coercing an illegal one), :func:`advance` (the next player, the next street, or the end
  of the betting), :func:`start_hand` and :func:`post_given_bets` (the forced bets;
  :func:`start_hand` treats a seat with a starting stack of 0 as empty).
* Settlement: :func:`rake_for`, :func:`layer_pots` (side pots from contributions, dead
  chips and the rake), :func:`award_pots` (each pot to its best hands, odd chips clockwise
  from the button's left), :func:`settle` (a table's whole payout, EV settlement
  included).
"""

from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.evaluator import KEY_INIT, value_of
from poolshark.engine.config import NO_HOUSE_RULES, Betting, GameConfig, HouseRule, Settlement

Int64s = npt.NDArray[np.int64]
Int32s = npt.NDArray[np.int32]
UInt8s = npt.NDArray[np.uint8]
UInt16s = npt.NDArray[np.uint16]
Floats = npt.NDArray[np.float64]

# Moves and streets, as in ``engine.table`` (``Move`` order, ``Street`` values).
FOLD, CHECK_CALL, RAISE = 0, 1, 2
PREFLOP, FLOP, TURN, RIVER, DONE = 0, 1, 2, 3, 4
SETTLING = 5  # betting is over; the next compiled pass pays the pots
NO_RAISE = -1  # min/max raise-to when raising is not allowed

# Fields of ``seat[FIELD, seat]``.
START, STACK, BET, TOTAL, FOLDED, ACTED, FACED, NET = range(8)
SEAT_FIELDS = 8
# Fields of ``table[FIELD]``.
BUTTON, STREET, SHOWN, CURRENT_BET, INCREMENT, RAISES, TO_ACT, RAKE, SHOWDOWN = range(9)
COERCED, LOG_LEN, END_STREET, LARGEST_RAISE = 9, 10, 11, 12
TABLE_FIELDS = 13
# Fields of ``log[k, FIELD]``: one row per action.
LOG_SEAT, LOG_MOVE, LOG_AMOUNT, LOG_STREET = range(4)

# What :func:`advance` did.
NEXT_PLAYER, NEW_STREET, BETTING_OVER = 0, 1, 2

# House-rule bits of ``Rules.house_rules`` (``config.HouseRule`` as plain ints).
POSTED_PRICE = int(HouseRule.POSTED_PRICE)
ANTES_IN_MAIN_POT = int(HouseRule.ANTES_IN_MAIN_POT)
SHORT_ALL_IN_REOPENS = int(HouseRule.SHORT_ALL_IN_REOPENS)


class Rules(NamedTuple):
    """A :class:`GameConfig` as plain ints for compiled code (``rake_cap`` and
    ``max_decisions`` -1: no cap)."""

    fixed_limit: int
    seats: int
    small_blind: int
    big_blind: int
    ante: int
    straddle: int
    small_bet: int
    big_bet: int
    raise_cap: int
    cap_heads_up: int
    rake_numerator: int
    rake_denominator: int
    rake_cap: int
    no_flop_no_drop: int
    expected_value: int
    house_rules: int
    max_decisions: int

    @classmethod
    def of(cls, config: GameConfig, house_rules: HouseRule = NO_HOUSE_RULES) -> Rules:
        """Exact integer form; the rake percent becomes a fraction so rounding matches."""
        percent = Decimal(str(config.rake_percent))
        exponent = max(0, -int(percent.as_tuple().exponent))
        return cls(
            fixed_limit=int(config.betting is Betting.FIXED_LIMIT),
            seats=config.seats,
            small_blind=config.small_blind,
            big_blind=config.big_blind,
            ante=config.ante,
            straddle=config.straddle,
            small_bet=config.bet_unit(0),
            big_bet=config.bet_unit(2),
            raise_cap=config.raise_cap,
            cap_heads_up=int(config.cap_heads_up),
            rake_numerator=int(percent * 10**exponent),
            rake_denominator=100 * 10**exponent,
            rake_cap=-1 if config.rake_cap is None else config.rake_cap,
            no_flop_no_drop=int(config.no_flop_no_drop),
            expected_value=int(config.settlement is Settlement.EXPECTED_VALUE),
            house_rules=int(house_rules),
            max_decisions=-1 if config.decision_cap is None else config.decision_cap,
        )


@nb.njit(inline="always")
def betting_rules(
    seats: int, big_blind: int, small_bet: int, big_bet: int, raise_cap: int, house_rules: int
) -> Rules:
    """The rules of betting alone, for following recorded hands in compiled code:
    ``small_bet`` 0 means no-limit; fixed-limit heads-up play is uncapped; no rake; no cap
    on decisions (a recorded hand is followed as it was played)."""
    fixed_limit = int(small_bet > 0)
    return Rules(
        fixed_limit,
        seats,
        0,
        big_blind,
        0,
        0,
        small_bet,
        big_bet,
        raise_cap,
        0,
        0,
        100,
        -1,
        0,
        0,
        house_rules,
        -1,
    )


# -- betting ------------------------------------------------------------------------------------


@nb.njit(inline="always")
def put_in(seat: Int64s, who: int, chips: int) -> None:
    """Move up to ``chips`` of ``who``'s stack into the bet (all-in when short)."""
    paid = min(chips, seat[STACK, who])
    seat[STACK, who] -= paid
    seat[BET, who] += paid
    seat[TOTAL, who] += paid


@nb.njit(inline="always")
def bet_unit(r: Rules, street: int) -> int:
    """Fixed-limit bet size on a street: the small bet preflop and flop, else the big."""
    return r.small_bet if street < TURN else r.big_bet


@nb.njit(inline="always")
def full_raise_size(r: Rules, table: Int64s) -> int:
    """The smallest raise that reopens the betting (``Table._full_raise_size``)."""
    return bet_unit(r, table[STREET]) if r.fixed_limit else table[INCREMENT]


@nb.njit(inline="always")
def legal_bounds(r: Rules, seat: Int64s, table: Int64s) -> tuple[int, int, int]:
    """(call, min raise-to, max raise-to) for the player to act; NO_RAISE when not allowed
    (``Table.legal``)."""
    who, current = table[TO_ACT], table[CURRENT_BET]
    call = min(current - seat[BET, who], seat[STACK, who])
    most = seat[BET, who] + seat[STACK, who]
    others_can_act = False
    live = 0
    for s in range(r.seats):
        live += seat[FOLDED, s] == 0
        if s != who and seat[FOLDED, s] == 0 and seat[STACK, s] > 0:
            others_can_act = True
    reopened = seat[ACTED, who] == 0 or current - seat[FACED, who] >= full_raise_size(r, table)
    if seat[STACK, who] <= call or not others_can_act or not reopened:
        return call, NO_RAISE, NO_RAISE
    if 0 <= r.max_decisions <= table[LOG_LEN]:  # the safety cap: no raise after it
        return call, NO_RAISE, NO_RAISE
    if r.fixed_limit:
        capped = live != 2 or r.cap_heads_up
        if capped and table[RAISES] >= r.raise_cap:
            return call, NO_RAISE, NO_RAISE
        target = min(current + bet_unit(r, table[STREET]), most)
        return call, target, target
    step = table[INCREMENT] if current else r.big_blind
    return call, min(current + step, most), most


@nb.njit(inline="always")
def note_raise(r: Rules, seat: Int64s, table: Int64s, amount: int) -> None:
    """The betting after a raise to ``amount``: a full raise sets the no-limit increment,
    counts toward the cap and reopens the betting to everyone; a short all-in reopens it
    only under ``short-all-in-reopens`` when at least the round's largest raise."""
    size = amount - table[CURRENT_BET]
    if size >= full_raise_size(r, table):
        if not r.fixed_limit:
            table[INCREMENT] = size
        table[RAISES] += 1
        seat[ACTED, : r.seats] = 0
    elif r.house_rules & SHORT_ALL_IN_REOPENS and size >= table[LARGEST_RAISE]:
        seat[ACTED, : r.seats] = 0
    table[LARGEST_RAISE] = max(table[LARGEST_RAISE], size)
    table[CURRENT_BET] = amount


@nb.njit(inline="always")
def act(r: Rules, seat: Int64s, table: Int64s, log: Int64s, move: int, amount: int) -> None:
    """Apply ``move`` (a raise: to ``amount`` in total) at one table, coercing it if illegal
    (counted in ``table[COERCED]``): a free fold checks, a refused raise calls, a raise
    size is clamped to its bounds. The action is logged while ``log`` has room."""
    who = table[TO_ACT]
    call, low, high = legal_bounds(r, seat, table)
    unknown = move > RAISE
    if unknown or (move == FOLD and call == 0) or (move == RAISE and low == NO_RAISE):
        move = CHECK_CALL
        table[COERCED] += 1
    if move == FOLD:
        seat[FOLDED, who] = 1
        amount = 0
    elif move == CHECK_CALL:
        put_in(seat, who, call)
        amount = call
    else:
        if amount < low or amount > high:
            amount = min(max(amount, low), high)
            table[COERCED] += 1
        put_in(seat, who, amount - seat[BET, who])
        note_raise(r, seat, table, amount)
    k = table[LOG_LEN]
    if k < log.shape[0]:
        log[k, LOG_SEAT] = who
        log[k, LOG_MOVE] = move
        log[k, LOG_AMOUNT] = amount
        log[k, LOG_STREET] = table[STREET]
    table[LOG_LEN] = k + 1
    seat[ACTED, who] = 1
    seat[FACED, who] = table[CURRENT_BET]
    advance(r, seat, table)


@nb.njit(inline="always")
def next_occupied(seat: Int64s, after: int, seats: int) -> int:
    """The first occupied seat (a starting stack above 0) clockwise after ``after``."""
    for step in range(1, seats + 1):
        s = (after + step) % seats
        if seat[START, s] > 0:
            return s
    return after


@nb.njit(inline="always")
def start_hand(r: Rules, seat: Int64s, table: Int64s, button: int) -> None:
    """Start one table's hand from the stacks in ``seat[START]``: post the config's forced
    bets (antes dead, blinds, straddle) and find the first to act.

    A seat whose starting stack is 0 is empty: folded from the start, it posts nothing and
    never acts. The blinds go to the occupied seats after the button; with two occupied
    seats the button posts the small blind (heads-up) and nobody straddles. The button
    should be an occupied seat, and at least two seats occupied (``BatchedTables.reset``
    checks both)."""
    n = r.seats
    seat[STACK] = seat[START]
    seat[BET : NET + 1] = 0
    table[:] = 0
    table[BUTTON] = button
    table[STREET] = PREFLOP
    occupied = 0
    for s in range(n):
        if seat[START, s] > 0:
            occupied += 1
        else:
            seat[FOLDED, s] = 1
        paid = min(r.ante, seat[STACK, s])
        seat[STACK, s] -= paid
        seat[TOTAL, s] += paid
    if occupied == 2:
        small = button
        big = next_occupied(seat, button, n)
    else:
        small = next_occupied(seat, button, n)
        big = next_occupied(seat, small, n)
    put_in(seat, small, r.small_blind)
    put_in(seat, big, r.big_blind)
    last = big
    straddle = r.straddle if occupied > 2 else 0
    if straddle:
        last = next_occupied(seat, big, n)
        put_in(seat, last, straddle)
    table[CURRENT_BET] = max(max(r.big_blind, straddle), seat[BET].max())
    table[INCREMENT] = max(r.big_blind, straddle)
    table[RAISES] = 1  # the blind counts as the round's first bet
    table[TO_ACT] = last
    advance(r, seat, table)


@nb.njit(inline="always")
def post_given_bets(
    r: Rules,
    seat: Int64s,
    table: Int64s,
    button: int,
    stacks: Int64s,
    blinds: Int64s,
    dead: Int64s,
) -> int:
    """Start a hand whose forced bets are given per seat (``Table`` with ``ForcedBets``):
    dead money, then live blinds at their full price (or, under ``posted-price``, at the
    largest bet actually posted); the first to act sits left of the first largest blind.
    ``seat`` and ``table`` must be zeros; returns what :func:`advance` did."""
    largest = 0
    posted = 0
    for s in range(r.seats):
        dead_paid = min(dead[s], stacks[s])
        behind = stacks[s] - dead_paid
        paid = min(blinds[s], behind)
        seat[START, s] = stacks[s]
        seat[STACK, s] = behind - paid
        seat[BET, s] = paid
        seat[TOTAL, s] = dead_paid + paid
        largest = max(largest, blinds[s])
        posted = max(posted, paid)
    table[BUTTON] = button
    if r.house_rules & POSTED_PRICE:
        table[CURRENT_BET] = posted
        table[INCREMENT] = r.big_blind
    else:
        table[CURRENT_BET] = largest
        table[INCREMENT] = max(r.big_blind, largest)
    table[RAISES] = 1
    table[TO_ACT] = button
    for step in range(1, r.seats + 1):
        if blinds[(button + step) % r.seats] == largest:
            table[TO_ACT] = (button + step) % r.seats
            break
    return advance(r, seat, table)


@nb.njit(inline="always")
def return_uncalled(r: Rules, seat: Int64s, table: Int64s) -> None:
    """Give back the part of the largest bet that nobody matched."""
    top = 0
    for s in range(1, r.seats):
        if seat[BET, s] > seat[BET, top]:
            top = s
    second = 0
    for s in range(r.seats):
        if s != top:
            second = max(second, seat[BET, s])
    excess = seat[BET, top] - second
    if excess > 0:
        seat[BET, top] -= excess
        seat[TOTAL, top] -= excess
        seat[STACK, top] += excess
        table[CURRENT_BET] = second


@nb.njit(inline="always")
def waiting(seat: Int64s, who: int, current: int) -> bool:
    """Whether ``who`` still has to act this round (live, with chips, not settled at
    ``current``)."""
    return (
        seat[FOLDED, who] == 0
        and seat[STACK, who] > 0
        and not (seat[ACTED, who] and seat[BET, who] == current)
    )


@nb.njit(inline="always")
def next_to_act(r: Rules, seat: Int64s, after: int, current: int) -> int:
    """The first seat clockwise after ``after`` that still has to act, or -1."""
    for step in range(1, r.seats + 1):
        who = (after + step) % r.seats
        if waiting(seat, who, current):
            return who
    return -1


@nb.njit(inline="always")
def stop_betting(table: Int64s, showdown: bool) -> None:
    """Betting is over: remember where, and leave the pots to :func:`settle`."""
    table[END_STREET] = table[STREET]
    table[SHOWDOWN] = showdown
    table[TO_ACT] = -1
    table[STREET] = SETTLING


@nb.njit(inline="always")
def advance(r: Rules, seat: Int64s, table: Int64s) -> int:
    """After ``table[TO_ACT]`` acted: move to the next player (NEXT_PLAYER), or end the
    round (uncalled bet returned) and open the next street (NEW_STREET) or stop the betting
    (BETTING_OVER: one player left, the river done, or at most one player with chips)."""
    n = r.seats
    live = 0
    for s in range(n):
        live += seat[FOLDED, s] == 0
    if live == 1:
        return_uncalled(r, seat, table)
        stop_betting(table, showdown=False)
        return BETTING_OVER
    who = next_to_act(r, seat, table[TO_ACT], table[CURRENT_BET])
    if who >= 0:
        table[TO_ACT] = who
        return NEXT_PLAYER
    return_uncalled(r, seat, table)
    able = 0
    for s in range(n):
        able += seat[FOLDED, s] == 0 and seat[STACK, s] > 0
    if table[STREET] == RIVER or able <= 1:
        stop_betting(table, showdown=True)
        return BETTING_OVER
    street = table[STREET] + 1
    table[STREET] = street
    table[SHOWN] = 3 if street == FLOP else street + 2
    seat[BET, :n] = 0
    seat[ACTED, :n] = 0
    seat[FACED, :n] = 0
    table[CURRENT_BET] = 0
    table[INCREMENT] = r.big_blind
    table[RAISES] = 0
    table[LARGEST_RAISE] = 0
    table[TO_ACT] = next_to_act(r, seat, table[BUTTON], 0)
    return NEW_STREET


# -- settlement ---------------------------------------------------------------------------------


class Evaluator(NamedTuple):
    """The evaluator's tables (``cards.evaluator.tables()``), bundled for settlement."""

    card_key: Int64s
    card_mask: Int64s
    row_base: Int32s
    rank_table: UInt16s
    flush_table: UInt16s


@nb.njit(inline="always")
def hand_value(cards: UInt8s, who: int, board_start: int, board_cards: int, ev: Evaluator) -> int:
    """Value of ``who``'s hole cards with the first ``board_cards`` board cards."""
    key = np.int64(KEY_INIT) + ev.card_key[cards[2 * who]] + ev.card_key[cards[2 * who + 1]]
    mask = ev.card_mask[cards[2 * who]] | ev.card_mask[cards[2 * who + 1]]
    for b in range(board_cards):
        key += ev.card_key[cards[board_start + b]]
        mask |= ev.card_mask[cards[board_start + b]]
    return int(value_of(key, mask, ev.row_base, ev.rank_table, ev.flush_table))


@nb.njit(inline="always")
def rake_for(r: Rules, whole: int, street: int, showdown: bool) -> int:
    """Chips raked from a hand's ``whole`` pot that ended on ``street`` (``pots.rake_amount``;
    none before the flop under no-flop-no-drop unless there is a showdown)."""
    if street < FLOP and not showdown and r.no_flop_no_drop:
        return 0
    rake = whole * r.rake_numerator // r.rake_denominator
    return min(rake, r.rake_cap) if r.rake_cap >= 0 else rake


@nb.njit(inline="always")
def layer_pots(
    total: Int64s,
    folded: npt.NDArray[np.integer],
    whole: int,
    rake: int,
    levels: Int64s,
    amounts: Int64s,
) -> int:
    """Fill (level, amount after rake) per pot, main pot first; returns how many pots.

    ``pots.side_pots`` then ``pots.take_rake``: one pot per contribution level of a live
    player, open to the live players who reached it; dead chips above every live level join
    the last pot (or, when no live player put anything in, make one pot open to all live
    players); the rake comes from the main pot first. No chips, no pots.
    """
    top = 0
    for s in range(total.size):
        if not folded[s]:
            top = max(top, total[s])
    pots = 0
    previous = 0
    layered = 0
    rake_left = rake
    while previous < top:
        level = top
        for s in range(total.size):
            if not folded[s] and previous < total[s] < level:
                level = total[s]
        amount = 0
        for s in range(total.size):
            amount += min(total[s], level) - min(total[s], previous)
        layered += amount
        if level == top:
            amount += whole - layered  # dead chips above every live level
        taken = min(rake_left, amount)
        rake_left -= taken
        levels[pots] = level
        amounts[pots] = amount - taken
        pots += 1
        previous = level
    if pots == 0 and whole > 0:  # nobody live put anything in: one pot for the live players
        levels[0] = 0
        amounts[0] = whole - min(rake, whole)
        pots = 1
    return pots


@nb.njit(inline="always")
def award_pots(
    button: int,
    total: Int64s,
    folded: npt.NDArray[np.integer],
    values: Int64s,
    levels: Int64s,
    amounts: Int64s,
    pots: int,
    payout: Int64s,
) -> None:
    """Add to ``payout`` each pot split among its eligible players with the best value
    (all of them when values are equal), odd chips one by one clockwise from the button's
    left (``pots.split_pot``)."""
    n = total.size
    for p in range(pots):
        best = -1
        winners = 0
        for s in range(n):
            if not folded[s] and total[s] >= levels[p]:
                if values[s] > best:
                    best, winners = values[s], 1
                elif values[s] == best:
                    winners += 1
        share, odd = divmod(amounts[p], winners)
        for k in range(n):
            s = (button + 1 + k) % n
            if not folded[s] and total[s] >= levels[p] and values[s] == best:
                payout[s] += share + (1 if odd > 0 else 0)
                odd -= 1


@nb.njit(cache=True, nogil=True)
def settle(
    r: Rules, seat: Int64s, table: Int64s, cards: UInt8s, expected: Floats, ev: Evaluator
) -> None:
    """Pay a SETTLING table's pots in layers (rake from the main pot first), then mark DONE.

    Under EV settlement an all-in before the river also fills ``expected`` exactly.
    """
    n = r.seats
    street = table[END_STREET]
    showdown = table[SHOWDOWN] == 1
    total, folded = seat[TOTAL], seat[FOLDED]
    whole = total.sum()
    rake = rake_for(r, whole, street, showdown)
    values = np.zeros(n, dtype=np.int64)
    if showdown:
        for s in range(n):
            if not folded[s]:
                values[s] = hand_value(cards, s, 2 * n, 5, ev)
    levels = np.zeros(n + 1, dtype=np.int64)
    amounts = np.zeros(n + 1, dtype=np.int64)
    pots = layer_pots(total, folded, whole, rake, levels, amounts)
    payout = np.zeros(n, dtype=np.int64)
    award_pots(table[BUTTON], total, folded, values, levels, amounts, pots, payout)
    by_expectation = r.expected_value and showdown and street < RIVER
    if by_expectation:
        expected_winnings(seat, table[SHOWN], cards, levels, amounts, pots, ev, expected)
    for s in range(n):
        seat[STACK, s] += payout[s]
        seat[NET, s] = seat[STACK, s] - seat[START, s]
        expected[s] = expected[s] - total[s] if by_expectation else float(seat[NET, s])
    if showdown:
        table[SHOWN] = 5
    table[RAKE] = rake
    table[STREET] = DONE


@nb.njit(cache=True, nogil=True)
def expected_winnings(
    seat: Int64s,
    known: int,
    cards: UInt8s,
    levels: Int64s,
    amounts: Int64s,
    pots: int,
    ev: Evaluator,
    expected: Floats,
) -> None:
    """Each seat's exact expected winnings over every runout of the unseen board."""
    n = seat.shape[1]
    total, folded = seat[TOTAL], seat[FOLDED]
    used = np.zeros(52, dtype=np.bool_)
    for k in range(2 * n + known):
        if k >= 2 * n or seat[START, k // 2] > 0:  # an empty seat's cards are not dealt
            used[cards[k]] = True
    deck = np.flatnonzero(~used)
    missing = 5 - known
    base_key = np.int64(KEY_INIT)
    base_mask = np.int64(0)
    for b in range(known):
        base_key += ev.card_key[cards[2 * n + b]]
        base_mask |= ev.card_mask[cards[2 * n + b]]
    hole_key = np.zeros(n, dtype=np.int64)
    hole_mask = np.zeros(n, dtype=np.int64)
    for s in range(n):
        hole_key[s] = ev.card_key[cards[2 * s]] + ev.card_key[cards[2 * s + 1]]
        hole_mask[s] = ev.card_mask[cards[2 * s]] | ev.card_mask[cards[2 * s + 1]]
    won = np.zeros(n, dtype=np.float64)
    values = np.zeros(n, dtype=np.int64)
    idx = np.arange(missing)
    m = deck.size
    boards = 0
    while True:
        key, mask = base_key, base_mask
        for d in range(missing):
            key += ev.card_key[deck[idx[d]]]
            mask |= ev.card_mask[deck[idx[d]]]
        for s in range(n):
            if not folded[s]:
                values[s] = value_of(
                    key + hole_key[s],
                    mask | hole_mask[s],
                    ev.row_base,
                    ev.rank_table,
                    ev.flush_table,
                )
        for p in range(pots):
            best = -1
            winners = 0
            for s in range(n):
                if not folded[s] and total[s] >= levels[p]:
                    if values[s] > best:
                        best, winners = values[s], 1
                    elif values[s] == best:
                        winners += 1
            for s in range(n):
                if not folded[s] and total[s] >= levels[p] and values[s] == best:
                    won[s] += amounts[p] / winners
        boards += 1
        d = missing - 1
        while d >= 0 and idx[d] == m - missing + d:
            d -= 1
        if d < 0:
            break
        idx[d] += 1
        for e in range(d + 1, missing):
            idx[e] = idx[e - 1] + 1
    for s in range(n):
        expected[s] = won[s] / boards
