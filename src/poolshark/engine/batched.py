"""Thousands of hold'em tables in arrays, stepped together: the fast face of the engine.

:class:`BatchedTables` keeps N tables of one :class:`GameConfig` as arrays and applies one
action per table in a single compiled call. Tables finish at different times and are
dealt a new hand independently (:meth:`BatchedTables.reset`). The rules are those of
:class:`poolshark.engine.table.Table`, line for line (the tests replay batched hands
through a ``Table`` and compare), with one difference of interface: a batch never raises.
It exposes what is legal (:meth:`BatchedTables.legal`) and turns an illegal request into
the nearest legal action (a fold when checking is free becomes a check, a raise that is
not allowed becomes a call, a raise size is clamped to its bounds), counting each.

Layout. The state is a handful of arrays with named fields on one axis, so compiled
functions take few arguments (a named tuple of arrays would cost a reference count per
member on every call): ``seat[table, FIELD, seat]`` for per-seat integers,
``table[table, FIELD]`` for per-table integers, ``cards[table, 2 * seat + k]`` for hole
cards followed by the five board cards, ``log[table, k, FIELD]`` for the action log.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.evaluator import KEY_INIT, tables, value_of
from poolshark.engine.config import Betting, GameConfig, Settlement

Int64s = npt.NDArray[np.int64]
Int32s = npt.NDArray[np.int32]
UInt8s = npt.NDArray[np.uint8]
UInt16s = npt.NDArray[np.uint16]
UInt64s = npt.NDArray[np.uint64]
Bools = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]

# Moves and streets, as in ``engine.table`` (``Move`` order, ``Street`` values).
FOLD, CHECK_CALL, RAISE = 0, 1, 2
PREFLOP, FLOP, TURN, RIVER, DONE = 0, 1, 2, 3, 4
SETTLING = 5  # betting is over; the next compiled pass pays the pots
NO_RAISE = -1  # min/max raise-to when raising is not allowed

# Fields of ``seat[table, FIELD, seat]``.
START, STACK, BET, TOTAL, FOLDED, ACTED, FACED, NET = range(8)
SEAT_FIELDS = 8
# Fields of ``table[table, FIELD]``.
BUTTON, STREET, SHOWN, CURRENT_BET, INCREMENT, RAISES, TO_ACT, RAKE, SHOWDOWN = range(9)
COERCED, LOG_LEN, END_STREET = 9, 10, 11
TABLE_FIELDS = 12
# Fields of ``log[table, k, FIELD]``: one row per action.
LOG_SEAT, LOG_MOVE, LOG_AMOUNT, LOG_STREET = range(4)


class Rules(NamedTuple):
    """A :class:`GameConfig` as plain ints for compiled code (``rake_cap`` -1: no cap)."""

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

    @classmethod
    def of(cls, config: GameConfig) -> Rules:
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
        )


# -- random streams and dealing --------------------------------------------------------------


@nb.njit(inline="always")
def next_random(rng: UInt64s, i: int) -> np.uint64:
    """xorshift64* step of table ``i``'s stream: reproducible, independent of batch order."""
    x = rng[i]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[i] = x
    return np.uint64(x * np.uint64(0x2545F4914F6CDD1D))


@nb.njit(inline="always")
def random_below(rng: UInt64s, i: int, bound: int) -> int:
    """A uniform int in [0, bound) for bound < 2**32 (multiply-shift on 32 random bits)."""
    return int(((next_random(rng, i) >> np.uint64(32)) * np.uint64(bound)) >> np.uint64(32))


@nb.njit(inline="always")
def deal(cards: UInt8s, rng: UInt64s, i: int) -> None:
    """Shuffle a fresh deck into table ``i``'s hole cards and board (partial Fisher-Yates)."""
    row = cards[i]
    deck = np.arange(52, dtype=np.uint8)
    for k in range(row.size):
        j = k + random_below(rng, i, 52 - k)
        deck[k], deck[j] = deck[j], deck[k]
        row[k] = deck[k]


# -- betting rules ------------------------------------------------------------------------------


@nb.njit(inline="always")
def _put_in(seat: Int64s, who: int, chips: int) -> None:
    """Move up to ``chips`` of ``who``'s stack into the bet (all-in when short)."""
    paid = min(chips, seat[STACK, who])
    seat[STACK, who] -= paid
    seat[BET, who] += paid
    seat[TOTAL, who] += paid


@nb.njit(inline="always")
def _bet_unit(r: Rules, street: int) -> int:
    return r.small_bet if street < TURN else r.big_bet


@nb.njit(inline="always")
def _full_raise_size(r: Rules, table: Int64s) -> int:
    """The smallest raise that reopens the betting."""
    return _bet_unit(r, table[STREET]) if r.fixed_limit else table[INCREMENT]


@nb.njit(inline="always")
def legal_bounds(r: Rules, seat: Int64s, table: Int64s) -> tuple[int, int, int]:
    """(call, min raise-to, max raise-to) for the player to act; NO_RAISE when not allowed.

    ``seat`` and ``table`` are one table's rows (``seat_state[i]``, ``table_state[i]``).
    """
    who, current = table[TO_ACT], table[CURRENT_BET]
    call = min(current - seat[BET, who], seat[STACK, who])
    most = seat[BET, who] + seat[STACK, who]
    others_can_act = False
    live = 0
    for s in range(r.seats):
        live += seat[FOLDED, s] == 0
        if s != who and seat[FOLDED, s] == 0 and seat[STACK, s] > 0:
            others_can_act = True
    reopened = seat[ACTED, who] == 0 or current - seat[FACED, who] >= _full_raise_size(r, table)
    if seat[STACK, who] <= call or not others_can_act or not reopened:
        return call, NO_RAISE, NO_RAISE
    if r.fixed_limit:
        capped = live != 2 or r.cap_heads_up
        if capped and table[RAISES] >= r.raise_cap:
            return call, NO_RAISE, NO_RAISE
        target = min(current + _bet_unit(r, table[STREET]), most)
        return call, target, target
    step = table[INCREMENT] if current else r.big_blind
    return call, min(current + step, most), most


@nb.njit(inline="always")
def act(r: Rules, seat: Int64s, table: Int64s, log: Int64s, move: int, amount: int) -> None:
    """Apply ``move`` (a raise: to ``amount`` in total) at one table, coercing it if illegal."""
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
        _put_in(seat, who, call)
        amount = call
    else:
        if amount < low or amount > high:
            amount = min(max(amount, low), high)
            table[COERCED] += 1
        size = amount - table[CURRENT_BET]
        full = size >= _full_raise_size(r, table)
        _put_in(seat, who, amount - seat[BET, who])
        if full:
            if not r.fixed_limit:
                table[INCREMENT] = size
            table[RAISES] += 1
            seat[ACTED, :] = 0
        table[CURRENT_BET] = amount
    k = table[LOG_LEN]
    if k < log.shape[0]:
        log[k, LOG_SEAT] = who
        log[k, LOG_MOVE] = move
        log[k, LOG_AMOUNT] = amount
        log[k, LOG_STREET] = table[STREET]
    table[LOG_LEN] = k + 1
    seat[ACTED, who] = 1
    seat[FACED, who] = table[CURRENT_BET]
    _advance(r, seat, table)


@nb.njit(inline="always")
def start_hand(r: Rules, seat: Int64s, table: Int64s, button: int) -> None:
    """Start one table's hand from the stacks in ``seat[START]``: post the forced bets."""
    n = r.seats
    seat[STACK] = seat[START]
    seat[BET : NET + 1] = 0
    table[:] = 0
    table[BUTTON] = button
    table[STREET] = PREFLOP
    for s in range(n):
        paid = min(r.ante, seat[STACK, s])
        seat[STACK, s] -= paid
        seat[TOTAL, s] += paid
    if n == 2:
        small, big = button, (button + 1) % n
    else:
        small, big = (button + 1) % n, (button + 2) % n
    _put_in(seat, small, r.small_blind)
    _put_in(seat, big, r.big_blind)
    last = big
    if r.straddle:
        last = (big + 1) % n
        _put_in(seat, last, r.straddle)
    table[CURRENT_BET] = max(max(r.big_blind, r.straddle), seat[BET].max())
    table[INCREMENT] = max(r.big_blind, r.straddle)
    table[RAISES] = 1  # the blind counts as the round's first bet
    table[TO_ACT] = last
    _advance(r, seat, table)


@nb.njit(inline="always")
def _return_uncalled(seat: Int64s, table: Int64s) -> None:
    """Give back the part of the largest bet that nobody matched."""
    bet = seat[BET]
    top = 0
    for s in range(1, bet.size):
        if bet[s] > bet[top]:
            top = s
    second = 0
    for s in range(bet.size):
        if s != top:
            second = max(second, bet[s])
    excess = bet[top] - second
    if excess > 0:
        seat[BET, top] -= excess
        seat[TOTAL, top] -= excess
        seat[STACK, top] += excess
        table[CURRENT_BET] = second


@nb.njit(inline="always")
def _waiting(seat: Int64s, who: int, current: int) -> bool:
    """Whether ``who`` still has to act this round."""
    return (
        seat[FOLDED, who] == 0
        and seat[STACK, who] > 0
        and not (seat[ACTED, who] and seat[BET, who] == current)
    )


@nb.njit(inline="always")
def _stop_betting(table: Int64s, showdown: bool) -> None:
    """Betting is over: remember where, and leave the pots to :func:`settle`."""
    table[END_STREET] = table[STREET]
    table[SHOWDOWN] = showdown
    table[TO_ACT] = -1
    table[STREET] = SETTLING


@nb.njit(inline="always")
def _advance(r: Rules, seat: Int64s, table: Int64s) -> None:
    """Move to the next player or the next street; at the end, mark the table SETTLING."""
    n = r.seats
    while True:
        live = 0
        for s in range(n):
            live += seat[FOLDED, s] == 0
        if live == 1:
            _return_uncalled(seat, table)
            _stop_betting(table, showdown=False)
            return
        current = table[CURRENT_BET]
        any_waiting = False
        for s in range(n):
            any_waiting = any_waiting or _waiting(seat, s, current)
        if any_waiting:
            who = table[TO_ACT]
            for _ in range(n):
                who = (who + 1) % n
                if _waiting(seat, who, current):
                    table[TO_ACT] = who
                    return
        _return_uncalled(seat, table)
        able = 0
        for s in range(n):
            able += seat[FOLDED, s] == 0 and seat[STACK, s] > 0
        if table[STREET] == RIVER or able <= 1:
            _stop_betting(table, showdown=True)
            return
        street = table[STREET] + 1
        table[STREET] = street
        table[SHOWN] = 3 if street == FLOP else street + 2
        seat[BET] = 0
        seat[ACTED] = 0
        seat[FACED] = 0
        table[CURRENT_BET] = 0
        table[INCREMENT] = r.big_blind
        table[RAISES] = 0
        table[TO_ACT] = table[BUTTON]


# -- settlement ---------------------------------------------------------------------------------


class Evaluator(NamedTuple):
    """The evaluator's tables (``cards.evaluator.tables()``), bundled for settlement."""

    card_key: Int64s
    card_mask: Int64s
    row_base: Int32s
    rank_table: UInt16s
    flush_table: UInt16s


@nb.njit(inline="always")
def _hand_value(cards: UInt8s, who: int, board_start: int, board_cards: int, ev: Evaluator) -> int:
    """Value of ``who``'s hole cards with the first ``board_cards`` board cards."""
    key = np.int64(KEY_INIT) + ev.card_key[cards[2 * who]] + ev.card_key[cards[2 * who + 1]]
    mask = ev.card_mask[cards[2 * who]] | ev.card_mask[cards[2 * who + 1]]
    for b in range(board_cards):
        key += ev.card_key[cards[board_start + b]]
        mask |= ev.card_mask[cards[board_start + b]]
    return int(value_of(key, mask, ev.row_base, ev.rank_table, ev.flush_table))


@nb.njit(cache=True, nogil=True)
def settle(
    r: Rules, seat: Int64s, table: Int64s, cards: UInt8s, expected: Floats, ev: Evaluator
) -> None:
    """Pay a SETTLING table's pots in layers (rake from the main pot first), then mark DONE.

    Pots follow ``engine.pots``: one per contribution level of a live player, dead chips
    above every live level in the last, odd chips one by one clockwise from the button's
    left. Under EV settlement an all-in before the river also fills ``expected`` exactly.
    """
    n = r.seats
    street = table[END_STREET]
    showdown = table[SHOWDOWN] == 1
    total, folded = seat[TOTAL], seat[FOLDED]
    whole = total.sum()
    rake = 0
    if street >= FLOP or showdown or not r.no_flop_no_drop:
        rake = whole * r.rake_numerator // r.rake_denominator
        if r.rake_cap >= 0:
            rake = min(rake, r.rake_cap)
    values = np.zeros(n, dtype=np.int64)
    if showdown:
        for s in range(n):
            if not folded[s]:
                values[s] = _hand_value(cards, s, 2 * n, 5, ev)
    levels = np.zeros(n + 1, dtype=np.int64)
    amounts = np.zeros(n + 1, dtype=np.int64)
    pots = _layer_pots(total, folded, whole, rake, levels, amounts)
    payout = np.zeros(n, dtype=np.int64)
    button = table[BUTTON]
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
    by_expectation = r.expected_value and showdown and street < RIVER
    if by_expectation:
        _expected_winnings(seat, table[SHOWN], cards, levels, amounts, pots, ev, expected)
    for s in range(n):
        seat[STACK, s] += payout[s]
        seat[NET, s] = seat[STACK, s] - seat[START, s]
        expected[s] = expected[s] - total[s] if by_expectation else float(seat[NET, s])
    if showdown:
        table[SHOWN] = 5
    table[RAKE] = rake
    table[STREET] = DONE


@nb.njit(inline="always")
def _layer_pots(
    total: Int64s, folded: Int64s, whole: int, rake: int, levels: Int64s, amounts: Int64s
) -> int:
    """Fill (level, amount after rake) per pot, main pot first; returns how many pots."""
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
    if pots == 0:  # nobody live put anything in: one pot for the live players
        levels[0] = 0
        amounts[0] = whole - min(rake, whole)
        pots = 1
    return pots


@nb.njit(cache=True, nogil=True)
def _expected_winnings(
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


# -- batch entry points ----------------------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def step_tables(
    r: Rules,
    seat: Int64s,
    table: Int64s,
    cards: UInt8s,
    log: Int64s,
    expected: Floats,
    ev: Evaluator,
    moves: Int64s,
    amounts: Int64s,
) -> int:
    """Apply one action at every live table with a move >= 0; returns how many finished."""
    finished = 0
    for i in range(table.shape[0]):
        if table[i, STREET] < DONE and moves[i] >= 0:
            act(r, seat[i], table[i], log[i], moves[i], amounts[i])
            if table[i, STREET] == SETTLING:
                settle(r, seat[i], table[i], cards[i], expected[i], ev)
                finished += 1
    return finished


@nb.njit(cache=True, nogil=True)
def legal_tables(r: Rules, seat: Int64s, table: Int64s, bounds: Int64s) -> None:
    """Fill ``bounds[i]`` with table i's (call, min raise-to, max raise-to); -1s when done."""
    for i in range(table.shape[0]):
        if table[i, STREET] >= DONE:
            bounds[i, :] = NO_RAISE
        else:
            bounds[i, 0], bounds[i, 1], bounds[i, 2] = legal_bounds(r, seat[i], table[i])


@nb.njit(cache=True, nogil=True)
def reset_tables(
    r: Rules,
    seat: Int64s,
    table: Int64s,
    cards: UInt8s,
    expected: Floats,
    rng: UInt64s,
    ev: Evaluator,
    which: Int64s,
    stacks: Int64s,
    buttons: Int64s,
    shuffle: bool,
) -> None:
    """Start a new hand at tables ``which`` with rows of ``stacks`` and ``buttons``."""
    for k in range(which.size):
        i = which[k]
        seat[i, START] = stacks[k]
        if shuffle:
            deal(cards, rng, i)
        start_hand(r, seat[i], table[i], buttons[k])
        if table[i, STREET] == SETTLING:  # everyone all-in from the blinds
            settle(r, seat[i], table[i], cards[i], expected[i], ev)


@nb.njit(inline="always")
def random_action(r: Rules, seat: Int64s, table: Int64s, rng: UInt64s, i: int) -> tuple[int, int]:
    """A random legal action: the benchmark's and the tests' stand-in for a policy.

    Facing a bet: fold 25%, call 50%, raise 25%; otherwise check 65%, bet 35%. A raise is
    all-in one time in five, else uniform between the minimum and a pot-sized raise.
    """
    call, low, high = legal_bounds(r, seat, table)
    u = random_below(rng, i, 100)
    if call > 0 and u < 25:
        return FOLD, 0
    if low == NO_RAISE or (call > 0 and u < 75) or (call == 0 and u < 65):
        return CHECK_CALL, 0
    if random_below(rng, i, 5) == 0:
        return RAISE, high
    pot_raise = table[CURRENT_BET] + seat[TOTAL].sum() + call
    upper = max(low, min(high, pot_raise))
    return RAISE, low + random_below(rng, i, upper - low + 1)


@nb.njit(cache=True, nogil=True)
def play_random_hands(
    r: Rules,
    seat: Int64s,
    table: Int64s,
    cards: UInt8s,
    log: Int64s,
    expected: Floats,
    rng: UInt64s,
    ev: Evaluator,
    hands: int,
    depth: int,
) -> tuple[Int64s, int]:
    """Play ``hands`` complete hands across the batch with :func:`random_action`.

    Each finished table is dealt again at once, the button moving on and stacks reset to
    ``depth``. Returns the chips won per seat over all hands (they sum to minus the rake)
    and the number of actions taken.
    """
    n = table.shape[0]
    played = 0
    actions = 0
    won = np.zeros(r.seats, dtype=np.int64)
    for i in range(n):
        table[i, STREET] = DONE
        table[i, BUTTON] = i % r.seats
    while played < hands:
        for i in range(n):
            if table[i, STREET] == DONE:
                seat[i, START] = depth
                deal(cards, rng, i)
                start_hand(r, seat[i], table[i], (table[i, BUTTON] + 1) % r.seats)
            else:
                move, amount = random_action(r, seat[i], table[i], rng, i)
                act(r, seat[i], table[i], log[i], move, amount)
                actions += 1
            if table[i, STREET] == SETTLING:
                settle(r, seat[i], table[i], cards[i], expected[i], ev)
                played += 1
                won += seat[i, NET]
    return won, actions


# -- the Python face -----------------------------------------------------------------------


@dataclass(frozen=True)
class LegalBatch:
    """What the player to act at each table may do; -1 everywhere at finished tables.

    ``call``: chips to call (0: checking is free); ``min_raise_to``/``max_raise_to``: the
    bounds of a raise (the total bet this round), -1 when raising is not allowed.
    """

    to_act: Int64s
    call: Int64s
    min_raise_to: Int64s
    max_raise_to: Int64s

    @property
    def can_fold(self) -> Bools:
        """Folding is offered only when facing a bet."""
        return self.call > 0

    @property
    def can_raise(self) -> Bools:
        return self.min_raise_to >= 0

    def mask(self) -> Bools:
        """(tables, 3) legal-move mask in the order fold, check/call, raise."""
        return np.stack([self.can_fold, self.to_act >= 0, self.can_raise], axis=1)


class BatchedTables:
    """N tables of one game, stepped together; see the module docstring for the contract."""

    def __init__(
        self, config: GameConfig, tables_: int, *, seed: int = 0, max_actions: int = 96
    ) -> None:
        if tables_ <= 0:
            raise ValueError(f"need at least one table, got {tables_}")
        n, s = tables_, config.seats
        self.config = config
        self.rules = Rules.of(config)
        self.seat = np.zeros((n, SEAT_FIELDS, s), dtype=np.int64)
        self.table = np.zeros((n, TABLE_FIELDS), dtype=np.int64)
        self.table[:, STREET] = DONE
        self.table[:, TO_ACT] = -1
        self.table[:, BUTTON] = s - 1  # so the first reset puts every button on seat 0
        self.cards = np.zeros((n, 2 * s + 5), dtype=np.uint8)
        self.log = np.zeros((n, max_actions, 4), dtype=np.int64)
        self.expected = np.zeros((n, s), dtype=np.float64)
        streams = np.random.SeedSequence(seed).generate_state(n, dtype=np.uint64)
        self.rng = streams | np.uint64(1)  # xorshift needs a non-zero state
        self._evaluator = Evaluator(*tables())

    # -- views ------------------------------------------------------------------------------

    @property
    def size(self) -> int:
        """Number of tables."""
        return int(self.table.shape[0])

    @property
    def done(self) -> Bools:
        """Tables whose hand is finished (or never started)."""
        done: Bools = self.table[:, STREET] == DONE
        return done

    @property
    def to_act(self) -> Int64s:
        """The seat to act at each table (-1 when done)."""
        return self.table[:, TO_ACT]

    @property
    def street(self) -> Int64s:
        """Current street per table (4 when done)."""
        return self.table[:, STREET]

    @property
    def stacks(self) -> Int64s:
        """(tables, seats) chips behind."""
        return self.seat[:, STACK]

    @property
    def net(self) -> Int64s:
        """(tables, seats) chips won in the last finished hand (valid where ``done``)."""
        return self.seat[:, NET]

    @property
    def expected_net(self) -> Floats:
        """(tables, seats) EV-settled result (equals ``net`` unless settled by expectation)."""
        return self.expected

    @property
    def hole_cards(self) -> UInt8s:
        """(tables, seats, 2) hole cards."""
        return self.cards[:, : 2 * self.config.seats].reshape(self.size, -1, 2)

    @property
    def boards(self) -> UInt8s:
        """(tables, 5) the whole board of each hand (``table[:, SHOWN]`` cards are public)."""
        return self.cards[:, 2 * self.config.seats :]

    # -- driving ----------------------------------------------------------------------------

    def reset(
        self,
        which: npt.ArrayLike | None = None,
        *,
        stacks: npt.ArrayLike = 200,
        buttons: npt.ArrayLike | None = None,
        hole_cards: npt.ArrayLike | None = None,
        boards: npt.ArrayLike | None = None,
    ) -> Int64s:
        """Deal new hands at tables ``which`` (default: every finished table).

        ``stacks`` is one depth for every seat or a row per table; ``buttons`` defaults to
        moving each button one seat on. Cards come from each table's own random stream,
        unless ``hole_cards`` (k, seats, 2) and ``boards`` (k, 5) are given. Returns the
        indices of the tables reset.
        """
        seats = self.config.seats
        index = (
            np.flatnonzero(self.done)
            if which is None
            else np.atleast_1d(np.asarray(which, dtype=np.int64))
        )
        if index.size and (index.min() < 0 or index.max() >= self.size):
            raise ValueError(f"table index out of range 0..{self.size - 1}")
        rows = np.broadcast_to(np.asarray(stacks, dtype=np.int64), (index.size, seats))
        if rows.size and rows.min() <= 0:
            raise ValueError("stacks must be positive whole chips")
        if buttons is None:
            button_rows = (self.table[index, BUTTON] + 1) % seats
        else:
            button_rows = np.broadcast_to(np.asarray(buttons, dtype=np.int64), index.shape)
            if button_rows.size and (button_rows.min() < 0 or button_rows.max() >= seats):
                raise ValueError(f"a button must be a seat 0..{seats - 1}")
        shuffle = hole_cards is None
        if not shuffle:
            if boards is None:
                raise ValueError("give boards together with hole_cards")
            holes = np.asarray(hole_cards, dtype=np.int64).reshape(index.size, 2 * seats)
            board_rows = np.asarray(boards, dtype=np.int64).reshape(index.size, 5)
            dealt = np.concatenate([holes, board_rows], axis=1)
            if dealt.size and (dealt.min() < 0 or dealt.max() > 51):
                raise ValueError("cards are indices 0..51")
            if any(len(set(row.tolist())) != row.size for row in dealt):
                raise ValueError("a card is dealt twice at one table")
            self.cards[index] = dealt.astype(np.uint8)
        reset_tables(
            self.rules,
            self.seat,
            self.table,
            self.cards,
            self.expected,
            self.rng,
            self._evaluator,
            index,
            np.ascontiguousarray(rows),
            np.ascontiguousarray(button_rows),
            shuffle,
        )
        return index

    def legal(self) -> LegalBatch:
        """Legal-action bounds at every table (-1 at finished ones)."""
        bounds = np.empty((self.size, 3), dtype=np.int64)
        legal_tables(self.rules, self.seat, self.table, bounds)
        return LegalBatch(self.to_act.copy(), bounds[:, 0], bounds[:, 1], bounds[:, 2])

    def step(self, moves: npt.ArrayLike, amounts: npt.ArrayLike | None = None) -> int:
        """One action at every unfinished table (0 fold, 1 check/call, 2 raise to amount).

        A negative move leaves that table waiting (drive seats by different policies);
        finished tables ignore their entry. Returns how many tables finished this step.
        """
        n = self.size
        move_array = np.ascontiguousarray(np.broadcast_to(np.asarray(moves, np.int64), (n,)))
        amount_array = np.ascontiguousarray(
            np.broadcast_to(np.asarray(0 if amounts is None else amounts, np.int64), (n,))
        )
        finished = step_tables(
            self.rules,
            self.seat,
            self.table,
            self.cards,
            self.log,
            self.expected,
            self._evaluator,
            move_array,
            amount_array,
        )
        width = self.log.shape[1]
        if int(self.table[:, LOG_LEN].max()) > width:
            raise OverflowError(f"a hand took more than max_actions={width} actions")
        return int(finished)

    def actions(self, table: int) -> list[tuple[int, int, int, int]]:
        """Table ``table``'s actions this hand as (seat, move, amount, street)."""
        k = min(int(self.table[table, LOG_LEN]), self.log.shape[1])
        return [tuple(int(v) for v in row) for row in self.log[table, :k]]  # type: ignore[misc]

    def play_random(self, hands: int, depth: int) -> RandomPlay:
        """Play ``hands`` hands with random legal actions (benchmarks, smoke tests)."""
        won, actions = play_random_hands(
            self.rules,
            self.seat,
            self.table,
            self.cards,
            self.log,
            self.expected,
            self.rng,
            self._evaluator,
            hands,
            depth,
        )
        return RandomPlay(np.asarray(won), int(actions))


@dataclass(frozen=True)
class RandomPlay:
    """What :meth:`BatchedTables.play_random` did: chips won per seat, actions taken."""

    won: Int64s
    actions: int
