"""The compiled PokerStars writer: simulated hands' arrays to the site's text, fast.

:func:`write_kernel` builds the bytes of every hand from plain arrays and precomputed
string pieces (:func:`site_pieces`, packed by :func:`packed`); the site's words for each
hand shown come from ``histories.pokerstars.describe_hand``, once per hand value
(:func:`shown_values`, :func:`hand_descriptions`). Which hands are shown is the
simulation's ``showed`` mask: a mucked hand prints ``mucks hand`` and ``mucked``. It
prints exactly what ``write_pokerstars`` prints for the record of the same hand
(``pool.simulate.pokerstars_text`` drives it; the tests compare byte for byte); it exists
because building records and writing them one by one in Python is some 15 to 50 times
slower (``benchmarks/pool.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.evaluator import KEY_INIT, value_of
from poolshark.engine.config import GameConfig
from poolshark.engine.kernel import Evaluator
from poolshark.histories.chips import CURRENCY_SYMBOL, format_chips
from poolshark.histories.pokerstars import describe_hand

Int64s = npt.NDArray[np.int64]
UInt8s = npt.NDArray[np.uint8]
Bools = npt.NDArray[np.bool_]

# Indices of the constant text pieces (see ``_pieces``).
(
    P_HEADER, P_GAME, P_ZONE_TABLE, P_MAX_SEATS, P_IS_BUTTON, P_SEAT, P_COLON, P_OPEN,
    P_IN_CHIPS, P_POSTS_SB, P_POSTS_BB, P_ALL_IN, P_HOLE_CARDS, P_FOLDS, P_CHECKS, P_CALLS,
    P_RAISES, P_TO, P_BETS, P_UNCALLED, P_RETURNED, P_FLOP, P_TURN, P_RIVER, P_BETWEEN,
    P_CLOSE_LINE, P_SHOW_DOWN, P_SHOWS, P_CARDS_DESC, P_CLOSE_PAREN_LINE, P_COLLECTED,
    P_FROM_POT, P_FROM_MAIN, P_FROM_SIDE, P_FROM_SIDE_N, P_NO_SHOW, P_SUMMARY, P_TOTAL_POT,
    P_RAKE, P_MAIN_POT, P_SIDE_POT, P_SIDE_POT_N, P_DOT, P_BOARD, P_TAG_BUTTON, P_TAG_SMALL,
    P_TAG_BIG, P_FOLDED_PRE, P_DIDNT_BET, P_FOLDED_FLOP, P_FOLDED_TURN, P_FOLDED_RIVER,
    P_COLLECTED_SUMMARY, P_CLOSE_PAREN, P_SHOWED, P_AND_WON, P_WITH, P_AND_LOST, P_NEWLINE,
    P_SYMBOL, P_SPACE, P_MUCKS, P_MUCKED,
) = range(63)  # fmt: skip
N_VALUES = 7463
"""Hand values run 1..7462 (0: none); description indices from here on are the words of
two hole cards shown alone (an uncontested pot won before the flop)."""


def site_pieces(config: GameConfig, max_seats: int, currency: str, time_zone: str) -> list[str]:
    """The constant strings of a hand's text, in ``P_*`` order, as the site prints them."""
    symbol = CURRENCY_SYMBOL[currency]
    stakes = f"{symbol}{format_chips(config.small_blind)}/{symbol}{format_chips(config.big_blind)}"
    return [
        "PokerStars Zoom Hand #",
        f":  Hold'em No Limit ({stakes}) - ",
        f" {time_zone}\nTable '",
        f"' {max_seats}-max Seat #",
        " is the button\n",
        "Seat ",
        ": ",
        " (",
        " in chips)\n",
        ": posts small blind ",
        ": posts big blind ",
        " and is all-in",
        "*** HOLE CARDS ***\n",
        ": folds\n",
        ": checks\n",
        ": calls ",
        ": raises ",
        " to ",
        ": bets ",
        "Uncalled bet (",
        ") returned to ",
        "*** FLOP *** [",
        "*** TURN *** [",
        "*** RIVER *** [",
        "] [",
        "]\n",
        "*** SHOW DOWN ***\n",
        ": shows [",
        "] (",
        ")\n",
        " collected ",
        " from pot\n",
        " from main pot\n",
        " from side pot\n",
        " from side pot-",
        ": doesn't show hand\n",
        "*** SUMMARY ***\n",
        "Total pot ",
        " | Rake ",
        " Main pot ",
        " Side pot ",
        " Side pot-",
        ".",
        "Board [",
        " (button)",
        " (small blind)",
        " (big blind)",
        " folded before Flop",
        " (didn't bet)",
        " folded on the Flop",
        " folded on the Turn",
        " folded on the River",
        " collected (",
        ")",
        " showed [",
        "] and won (",
        ") with ",
        "] and lost with ",
        "\n",
        symbol,
        " ",
        ": mucks hand\n",
        " mucked",
    ]


def packed(texts: Sequence[str]) -> tuple[UInt8s, Int64s]:
    """Strings as one UTF-8 byte array and the (len + 1) offsets of each."""
    encoded = [t.encode() for t in texts]
    starts = np.zeros(len(encoded) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([len(b) for b in encoded])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), starts


_DESCRIPTIONS: dict[int, str] = {}  # hand value -> the site's words, filled as values occur
RANK_SUIT = np.frombuffer(b"23456789TJQKAcdhs", dtype=np.uint8).copy()


@nb.njit(cache=True, nogil=True)
def _put(buf: UInt8s, p: int, data: UInt8s, starts: Int64s, k: int) -> int:
    """Copy string ``k`` of a packed table to ``buf[p:]``; returns the new end."""
    for j in range(starts[k], starts[k + 1]):
        buf[p] = data[j]
        p += 1
    return p


@nb.njit(cache=True, nogil=True)
def _put_int(buf: UInt8s, p: int, value: int) -> int:
    """A non-negative integer in decimal."""
    digits = 1
    rest = value // 10
    while rest:
        digits += 1
        rest //= 10
    for j in range(digits - 1, -1, -1):
        buf[p + j] = 48 + value % 10
        value //= 10
    return p + digits


@nb.njit(cache=True, nogil=True)
def _put_two(buf: UInt8s, p: int, value: int) -> int:
    """Two digits, zero-padded."""
    buf[p] = 48 + value // 10
    buf[p + 1] = 48 + value % 10
    return p + 2


@nb.njit(cache=True, nogil=True)
def _put_money(buf: UInt8s, p: int, chips: int, pieces: UInt8s, starts: Int64s) -> int:
    """Cents as the site prints money: ``$0.25``, ``$2``, ``$1.50``."""
    p = _put(buf, p, pieces, starts, P_SYMBOL)
    p = _put_int(buf, p, chips // 100)
    if chips % 100:
        buf[p] = 46
        p = _put_two(buf, p + 1, chips % 100)
    return p


@nb.njit(cache=True, nogil=True)
def _put_card(buf: UInt8s, p: int, card: int, rank_suit: UInt8s) -> int:
    buf[p] = rank_suit[card >> 2]
    buf[p + 1] = rank_suit[13 + (card & 3)]
    return p + 2


@nb.njit(cache=True, nogil=True)
def _put_cards(buf: UInt8s, p: int, cards: UInt8s, first: int, stop: int, rank_suit: UInt8s) -> int:
    """Cards ``first:stop`` separated by spaces."""
    for c in range(first, stop):
        if c > first:
            buf[p] = 32
            p += 1
        p = _put_card(buf, p, cards[c], rank_suit)
    return p


@nb.njit(cache=True, nogil=True)
def _return_uncalled(
    buf: UInt8s,
    p: int,
    bet: Int64s,
    stack: Int64s,
    total: Int64s,
    names: UInt8s,
    name_starts: Int64s,
    players: Int64s,
    pieces: UInt8s,
    starts: Int64s,
) -> int:
    """The part of the largest bet nobody matched goes back (with its line); bets reset."""
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
        stack[top] += excess
        total[top] -= excess
        p = _put(buf, p, pieces, starts, P_UNCALLED)
        p = _put_money(buf, p, excess, pieces, starts)
        p = _put(buf, p, pieces, starts, P_RETURNED)
        p = _put(buf, p, names, name_starts, players[top])
        p = _put(buf, p, pieces, starts, P_NEWLINE)
    bet[:] = 0
    return p


@nb.njit(cache=True, nogil=True)
def _street_line(
    buf: UInt8s,
    p: int,
    street: int,
    board: UInt8s,
    rank_suit: UInt8s,
    pieces: UInt8s,
    starts: Int64s,
) -> int:
    """``*** FLOP *** [..]``, ``*** TURN *** [...] [.]``, ``*** RIVER *** [....] [.]``."""
    p = _put(buf, p, pieces, starts, P_FLOP + street - 1)
    if street == 1:
        p = _put_cards(buf, p, board, 0, 3, rank_suit)
    else:
        p = _put_cards(buf, p, board, 0, street + 1, rank_suit)
        p = _put(buf, p, pieces, starts, P_BETWEEN)
        p = _put_card(buf, p, board[street + 1], rank_suit)
    return _put(buf, p, pieces, starts, P_CLOSE_LINE)


@nb.njit(cache=True, nogil=True)
def showdown_values(
    seats: int,
    cards: UInt8s,
    showdown: Bools,
    ev: Evaluator,
) -> Int64s:
    """(N, seats) hand values of every seat in a showdown hand (0 elsewhere)."""
    values = np.zeros((cards.shape[0], seats), dtype=np.int64)
    for h in range(cards.shape[0]):
        if not showdown[h]:
            continue
        base_key = np.int64(KEY_INIT)
        base_mask = np.int64(0)
        for b in range(5):
            c = cards[h, 2 * seats + b]
            base_key += ev.card_key[c]
            base_mask |= ev.card_mask[c]
        for s in range(seats):
            a, b = cards[h, 2 * s], cards[h, 2 * s + 1]
            key = base_key + ev.card_key[a] + ev.card_key[b]
            mask = base_mask | ev.card_mask[a] | ev.card_mask[b]
            values[h, s] = value_of(key, mask, ev.row_base, ev.rank_table, ev.flush_table)
    return values


@nb.njit(cache=True, nogil=True)
def write_kernel(
    small_blind: int,
    big_blind: int,
    hand_id: Int64s,
    clock: Int64s,
    table_index: Int64s,
    button: Int64s,
    players: Int64s,
    stacks: Int64s,
    cards: UInt8s,
    shown: Int64s,
    engine_total: Int64s,
    collected: Int64s,
    values: Int64s,
    showed: Bools,
    action_start: Int64s,
    a_seat: Int64s,
    a_move: Int64s,
    a_amount: Int64s,
    a_street: Int64s,
    a_flags: UInt8s,
    names: UInt8s,
    name_starts: Int64s,
    table_names: UInt8s,
    table_starts: Int64s,
    descriptions: UInt8s,
    description_starts: Int64s,
    pieces: UInt8s,
    starts: Int64s,
    rank_suit: UInt8s,
    all_in_flag: int,
    forced_flag: int,
    buf: UInt8s,
) -> int:
    """Every hand's PokerStars text into ``buf``, hands separated by a blank line; returns
    the bytes written. ``clock`` is (N, 6): year, month, day, hour, minute, second;
    ``a_flags`` holds the bits ``all_in_flag`` and ``forced_flag`` (a check never written);
    ``showed`` (N, n) whose cards are shown, ``values`` their description indices (hand
    values at a showdown, 0 for a hand not shown: it loses every comparison)."""
    n = stacks.shape[1]
    stack = np.zeros(n, dtype=np.int64)
    bet = np.zeros(n, dtype=np.int64)
    total = np.zeros(n, dtype=np.int64)
    folded = np.zeros(n, dtype=np.bool_)
    fold_street = np.zeros(n, dtype=np.int64)
    paid = np.zeros(n, dtype=np.int64)
    pot_amount = np.zeros(n + 1, dtype=np.int64)
    pot_level = np.zeros(n + 1, dtype=np.int64)
    award_pot = np.zeros((n + 1) * n, dtype=np.int64)
    award_seat = np.zeros((n + 1) * n, dtype=np.int64)
    award_chips = np.zeros((n + 1) * n, dtype=np.int64)
    winners = np.zeros(n, dtype=np.int64)
    p = 0
    for h in range(stacks.shape[0]):
        if h:
            buf[p] = 10
            buf[p + 1] = 10
            p += 2
        b = button[h]
        small = b if n == 2 else (b + 1) % n
        big = (small + 1) % n
        who = players[h]
        board = cards[h, 2 * n :]
        # header, table and seats
        p = _put(buf, p, pieces, starts, P_HEADER)
        p = _put_int(buf, p, hand_id[h])
        p = _put(buf, p, pieces, starts, P_GAME)
        p = _put_int(buf, p, clock[h, 0])
        buf[p] = 47
        p = _put_two(buf, p + 1, clock[h, 1])
        buf[p] = 47
        p = _put_two(buf, p + 1, clock[h, 2])
        buf[p] = 32
        p = _put_int(buf, p + 1, clock[h, 3])
        buf[p] = 58
        p = _put_two(buf, p + 1, clock[h, 4])
        buf[p] = 58
        p = _put_two(buf, p + 1, clock[h, 5])
        p = _put(buf, p, pieces, starts, P_ZONE_TABLE)
        p = _put(buf, p, table_names, table_starts, table_index[h])
        p = _put(buf, p, pieces, starts, P_MAX_SEATS)
        p = _put_int(buf, p, b + 1)
        p = _put(buf, p, pieces, starts, P_IS_BUTTON)
        for s in range(n):
            p = _put(buf, p, pieces, starts, P_SEAT)
            p = _put_int(buf, p, s + 1)
            p = _put(buf, p, pieces, starts, P_COLON)
            p = _put(buf, p, names, name_starts, who[s])
            p = _put(buf, p, pieces, starts, P_OPEN)
            p = _put_money(buf, p, stacks[h, s], pieces, starts)
            p = _put(buf, p, pieces, starts, P_IN_CHIPS)
            stack[s] = stacks[h, s]
            bet[s] = 0
            total[s] = 0
            folded[s] = False
            fold_street[s] = -1
            paid[s] = 0
        # blinds
        for s, chips, piece in ((small, small_blind, P_POSTS_SB), (big, big_blind, P_POSTS_BB)):
            posted = min(chips, stack[s])
            stack[s] -= posted
            bet[s] += posted
            total[s] += posted
            p = _put(buf, p, names, name_starts, who[s])
            p = _put(buf, p, pieces, starts, piece)
            p = _put_money(buf, p, posted, pieces, starts)
            if stack[s] == 0:
                p = _put(buf, p, pieces, starts, P_ALL_IN)
            p = _put(buf, p, pieces, starts, P_NEWLINE)
        p = _put(buf, p, pieces, starts, P_HOLE_CARDS)
        # betting
        current = bet.max()
        street = 0
        last_action_street = 0
        for a in range(action_start[h], action_start[h + 1]):
            if a_flags[a] & forced_flag:
                continue
            st = a_street[a]
            while st > street:
                p = _return_uncalled(
                    buf, p, bet, stack, total, names, name_starts, who, pieces, starts
                )
                street += 1
                p = _street_line(buf, p, street, board, rank_suit, pieces, starts)
                current = 0
            last_action_street = st
            i = a_seat[a]
            amount = a_amount[a]
            p = _put(buf, p, names, name_starts, who[i])
            if a_move[a] == 0:
                folded[i] = True
                fold_street[i] = st
                p = _put(buf, p, pieces, starts, P_FOLDS)
                continue
            if a_move[a] == 1:
                if amount == 0:
                    p = _put(buf, p, pieces, starts, P_CHECKS)
                    continue
                stack[i] -= amount
                bet[i] += amount
                total[i] += amount
                p = _put(buf, p, pieces, starts, P_CALLS)
                p = _put_money(buf, p, amount, pieces, starts)
            else:
                chips = amount - bet[i]
                stack[i] -= chips
                bet[i] += chips
                total[i] += chips
                if current:
                    p = _put(buf, p, pieces, starts, P_RAISES)
                    p = _put_money(buf, p, amount - current, pieces, starts)
                    p = _put(buf, p, pieces, starts, P_TO)
                    p = _put_money(buf, p, amount, pieces, starts)
                else:
                    p = _put(buf, p, pieces, starts, P_BETS)
                    p = _put_money(buf, p, amount, pieces, starts)
                current = max(current, amount)
            if a_flags[a] & all_in_flag:
                p = _put(buf, p, pieces, starts, P_ALL_IN)
            p = _put(buf, p, pieces, starts, P_NEWLINE)
        p = _return_uncalled(buf, p, bet, stack, total, names, name_starts, who, pieces, starts)
        last = street
        # pots: one per contribution level of a live player, dead chips in the last
        live = 0
        for s in range(n):
            live += not folded[s]
        showdown = live > 1
        pots = 0
        previous = 0
        layered = 0
        while True:
            level = -1
            for s in range(n):
                if not folded[s] and total[s] > previous and (level < 0 or total[s] < level):
                    level = total[s]
            if level < 0:
                break
            amount = 0
            for s in range(n):
                amount += min(total[s], level) - min(total[s], previous)
            pot_amount[pots] = amount
            pot_level[pots] = level
            layered += amount
            pots += 1
            previous = level
        leftover = total.sum() - layered
        if leftover:
            if pots:
                pot_amount[pots - 1] += leftover
            else:
                pot_amount[0] = leftover
                pot_level[0] = 0
                pots = 1
        kept = 0
        for k in range(pots):
            if pot_amount[k] > 0:
                pot_amount[kept] = pot_amount[k]
                pot_level[kept] = pot_level[k]
                kept += 1
        pots = kept
        awards = 0
        for k in range(pots):
            count = 0
            best = -1
            for s in range(n):
                if not folded[s] and total[s] >= pot_level[k]:
                    winners[count] = s
                    count += 1
                    best = max(best, values[h, s])
            if showdown and count > 1:
                kept = 0
                for j in range(count):
                    if values[h, winners[j]] == best:
                        winners[kept] = winners[j]
                        kept += 1
                count = kept
            share = pot_amount[k] // count
            odd = pot_amount[k] % count
            for j in range(count):
                s = winners[j]
                ahead = 0
                for m in range(count):
                    if (winners[m] - b - 1) % n < (s - b - 1) % n:
                        ahead += 1
                chips = share + (1 if ahead < odd else 0)
                award_pot[awards] = k
                award_seat[awards] = s
                award_chips[awards] = chips
                awards += 1
                paid[s] += chips
        agree = True
        for s in range(n):
            agree = agree and paid[s] == collected[h, s]
        # the rest of the board, the showdown, the pots collected
        for st in range(1, 4):
            if st > last and shown[h] >= st + 2:
                p = _street_line(buf, p, st, board, rank_suit, pieces, starts)
        if showdown:
            p = _put(buf, p, pieces, starts, P_SHOW_DOWN)
            raiser = -1
            for a in range(action_start[h], action_start[h + 1]):
                recorded = not a_flags[a] & forced_flag
                if recorded and a_street[a] == last_action_street and a_move[a] == 2:
                    raiser = a_seat[a]
            first = raiser if raiser >= 0 and not folded[raiser] else (b + 1) % n
            for j in range(n):
                s = (first + j) % n
                if folded[s]:
                    continue
                p = _put(buf, p, names, name_starts, who[s])
                if not showed[h, s]:
                    p = _put(buf, p, pieces, starts, P_MUCKS)
                    continue
                p = _put(buf, p, pieces, starts, P_SHOWS)
                p = _put_cards(buf, p, cards[h], 2 * s, 2 * s + 2, rank_suit)
                p = _put(buf, p, pieces, starts, P_CARDS_DESC)
                p = _put(buf, p, descriptions, description_starts, values[h, s])
                p = _put(buf, p, pieces, starts, P_CLOSE_PAREN_LINE)
        if agree:
            for k in range(pots - 1, -1, -1):
                for j in range(awards):
                    if award_pot[j] != k:
                        continue
                    p = _put(buf, p, names, name_starts, who[award_seat[j]])
                    p = _put(buf, p, pieces, starts, P_COLLECTED)
                    p = _put_money(buf, p, award_chips[j], pieces, starts)
                    if pots == 1:
                        p = _put(buf, p, pieces, starts, P_FROM_POT)
                    elif k == 0:
                        p = _put(buf, p, pieces, starts, P_FROM_MAIN)
                    elif pots == 2:
                        p = _put(buf, p, pieces, starts, P_FROM_SIDE)
                    else:
                        p = _put(buf, p, pieces, starts, P_FROM_SIDE_N)
                        p = _put_int(buf, p, k)
                        p = _put(buf, p, pieces, starts, P_NEWLINE)
        else:
            for s in range(n):
                paid[s] = collected[h, s]
                if paid[s]:
                    p = _put(buf, p, names, name_starts, who[s])
                    p = _put(buf, p, pieces, starts, P_COLLECTED)
                    p = _put_money(buf, p, paid[s], pieces, starts)
                    p = _put(buf, p, pieces, starts, P_FROM_POT)
        if not showdown:
            for s in range(n):
                if not folded[s]:
                    p = _put(buf, p, names, name_starts, who[s])
                    if showed[h, s]:
                        p = _put(buf, p, pieces, starts, P_SHOWS)
                        p = _put_cards(buf, p, cards[h], 2 * s, 2 * s + 2, rank_suit)
                        p = _put(buf, p, pieces, starts, P_CARDS_DESC)
                        p = _put(buf, p, descriptions, description_starts, values[h, s])
                        p = _put(buf, p, pieces, starts, P_CLOSE_PAREN_LINE)
                    else:
                        p = _put(buf, p, pieces, starts, P_NO_SHOW)
        # summary
        p = _put(buf, p, pieces, starts, P_SUMMARY)
        p = _put(buf, p, pieces, starts, P_TOTAL_POT)
        p = _put_money(buf, p, engine_total[h].sum(), pieces, starts)
        if agree and pots > 1:
            p = _put(buf, p, pieces, starts, P_MAIN_POT)
            p = _put_money(buf, p, pot_amount[0], pieces, starts)
            p = _put(buf, p, pieces, starts, P_DOT)
            for k in range(1, pots):
                if pots == 2:
                    p = _put(buf, p, pieces, starts, P_SIDE_POT)
                else:
                    p = _put(buf, p, pieces, starts, P_SIDE_POT_N)
                    p = _put_int(buf, p, k)
                    p = _put(buf, p, pieces, starts, P_SPACE)
                p = _put_money(buf, p, pot_amount[k], pieces, starts)
                p = _put(buf, p, pieces, starts, P_DOT)
        p = _put(buf, p, pieces, starts, P_RAKE)
        p = _put_money(buf, p, 0, pieces, starts)
        p = _put(buf, p, pieces, starts, P_NEWLINE)
        if shown[h]:
            p = _put(buf, p, pieces, starts, P_BOARD)
            p = _put_cards(buf, p, board, 0, shown[h], rank_suit)
            p = _put(buf, p, pieces, starts, P_CLOSE_LINE)
        for s in range(n):
            p = _put(buf, p, pieces, starts, P_SEAT)
            p = _put_int(buf, p, s + 1)
            p = _put(buf, p, pieces, starts, P_COLON)
            p = _put(buf, p, names, name_starts, who[s])
            if s == b:
                p = _put(buf, p, pieces, starts, P_TAG_BUTTON)
            if s == small:
                p = _put(buf, p, pieces, starts, P_TAG_SMALL)
            elif s == big:
                p = _put(buf, p, pieces, starts, P_TAG_BIG)
            if fold_street[s] == 0:
                p = _put(buf, p, pieces, starts, P_FOLDED_PRE)
                if total[s] == 0:
                    p = _put(buf, p, pieces, starts, P_DIDNT_BET)
            elif fold_street[s] > 0:
                p = _put(buf, p, pieces, starts, P_FOLDED_FLOP + fold_street[s] - 1)
            elif not showdown or (not showed[h, s] and paid[s]):
                p = _put(buf, p, pieces, starts, P_COLLECTED_SUMMARY)
                p = _put_money(buf, p, paid[s] if showdown else collected[h, s], pieces, starts)
                p = _put(buf, p, pieces, starts, P_CLOSE_PAREN)
            elif not showed[h, s]:
                p = _put(buf, p, pieces, starts, P_MUCKED)
            else:
                p = _put(buf, p, pieces, starts, P_SHOWED)
                p = _put_cards(buf, p, cards[h], 2 * s, 2 * s + 2, rank_suit)
                if paid[s]:
                    p = _put(buf, p, pieces, starts, P_AND_WON)
                    p = _put_money(buf, p, paid[s], pieces, starts)
                    p = _put(buf, p, pieces, starts, P_WITH)
                else:
                    p = _put(buf, p, pieces, starts, P_AND_LOST)
                p = _put(buf, p, descriptions, description_starts, values[h, s])
            p = _put(buf, p, pieces, starts, P_NEWLINE)
    return p


def hand_descriptions(
    cards: UInt8s, seats: int, values: Int64s, board_used: Int64s
) -> tuple[UInt8s, Int64s]:
    """The site's words for every hand value (``describe_hand``, computed once per value
    seen, from the first seat whose hole cards and first ``board_used[h]`` board cards
    make it), then those of two cards alone (:data:`N_VALUES` on: the pairs, then high
    cards, by rank), packed; ``values`` are (N, seats) as :func:`shown_values` gives."""
    seen, first = np.unique(values.ravel(), return_index=True)
    n = seats
    for value, flat in zip(seen.tolist(), first.tolist(), strict=True):
        if 0 < value < N_VALUES and value not in _DESCRIPTIONS:
            h, s = divmod(flat, n)
            row = cards[h]
            hand = [int(row[2 * s]), int(row[2 * s + 1])]
            hand += [int(c) for c in row[2 * n : 2 * n + int(board_used[h])]]
            _DESCRIPTIONS[value] = describe_hand(hand)
    texts = [_DESCRIPTIONS.get(v, "") for v in range(N_VALUES)]
    return packed([*texts, *_TWO_CARD_WORDS])


_TWO_CARD_WORDS = (
    [describe_hand([4 * r, 4 * r + 1]) for r in range(13)]
    + [""]
    + [describe_hand([4 * r, 4 * (r - 1)]) for r in range(1, 13)]
)
"""Words for two hole cards alone (a pot won before the flop, shown): pairs by rank, then
high cards by the top rank (none for a deuce)."""


@nb.njit(cache=True, nogil=True)
def shown_values(
    seats: int,
    cards: UInt8s,
    showdown: Bools,
    showed: Bools,
    board_shown: Int64s,
    ev: Evaluator,
) -> Int64s:
    """(N, seats) description indices of the hands shown: at a showdown the hand value with
    the whole board; a winner showing an uncontested pot, the value with the board dealt
    so far (``board_shown[h]`` cards), or before the flop :data:`N_VALUES` plus the pair's
    rank, or plus 13 and the top rank; 0 for a hand not shown (it loses every comparison)."""
    values = np.zeros((cards.shape[0], seats), dtype=np.int64)
    for h in range(cards.shape[0]):
        used = 5 if showdown[h] else board_shown[h]
        base_key = np.int64(KEY_INIT)
        base_mask = np.int64(0)
        for b in range(used):
            c = cards[h, 2 * seats + b]
            base_key += ev.card_key[c]
            base_mask |= ev.card_mask[c]
        for s in range(seats):
            if not showed[h, s]:
                continue
            a, b = cards[h, 2 * s], cards[h, 2 * s + 1]
            if used == 0:
                high, low = max(a >> 2, b >> 2), min(a >> 2, b >> 2)
                values[h, s] = N_VALUES + high + (13 if high != low else 0)
                continue
            key = base_key + ev.card_key[a] + ev.card_key[b]
            mask = base_mask | ev.card_mask[a] | ev.card_mask[b]
            values[h, s] = value_of(key, mask, ev.row_base, ev.rank_table, ev.flush_table)
    return values
