"""PHH hands straight from bytes into :class:`~poolshark.histories.flat.HandArrays`.

The fast reader of ingestion: one compiled pass over many hands of a block reads the lines
PHH files are made of (``key = value`` with the usual spacing: literal strings, decimals,
one-line arrays) and writes seats, forced bets, actions, cards and winnings into flat
arrays, in record order, exactly as ``phh.parse_phh`` followed by ``HandArrays.of`` would.
It is deliberately narrow: any hand with something else (a basic string, a comment, a
multi-line array, an unknown or repeated field, amounts finer than cents, a second board,
odd spacing or a value the Python reader would reject) gets a nonzero
``status`` and is read by ``phh.parse_phh`` instead, so the result never depends on this
reader's coverage. ``tests/test_histories_fast.py`` checks it against the Python reader.

Two record fields are not computed here because the checks downstream derive them: a call's
chips and all-in marks (``UNSTATED``: the row pass charges what the rules make the call
cost, which is what the Python reader's own bookkeeping finds) and the total pot (the rake
is then "pot less winnings", :data:`RAKE_FROM_POT`). They agree with the Python reader's
whenever every live blind is posted in full. Where a stack is too short for its blind the
Python reader prices calls off the chips posted, the replay off the full blind: such a hand
gets the calls and all-in marks the Python reader writes (its ``_Tracker``, mirrored by
``_put_in``), and the row pass checks them as it checks PokerStars text. A hand with
``finishing_stacks`` and no ``winnings`` gets the winnings the Python reader derives from
them (final stack less starting stack plus the chips put in, counted its way).

Long module: one grammar in one compiled pass; the kernel reads PHH's fields top to bottom,
with the key table and value scanners it uses beside it.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.histories.bytescan import (
    BAD,
    card_at,
    is_digit,
    phh_amount,
    strings,
    valid_date,
    whole_number,
    word,
)
from poolshark.histories.fast_split import Block
from poolshark.histories.flat import UNSTATED, HandArrays

Int64s = npt.NDArray[np.int64]
Int8s = npt.NDArray[np.int8]
UInt8s = npt.NDArray[np.uint8]

RAKE_FROM_POT = -(2**62)
"""``HandArrays.rake`` of a hand whose rake is its pot less its winnings (PHH)."""

#: Why a hand was handed to the Python reader (``status``), for the counts.
FALLBACK_REASONS = {
    1: "a line or value outside the fast reader's subset",
    2: "a field the fast reader leaves to the Python reader",
    3: "a value the Python reader rejects or reads its own way",
}
_SYNTAX, _FIELD, _VALUE = 1, 2, 3

_KEYS = (
    "variant",
    "ante_trimming_status",
    "antes",
    "blinds_or_straddles",
    "min_bet",
    "small_bet",
    "big_bet",
    "starting_stacks",
    "actions",
    "venue",
    "time",
    "day",
    "month",
    "year",
    "hand",
    "seats",
    "seat_count",
    "table",
    "players",
    "winnings",
    "currency",
    "currency_symbol",
    "time_zone",
    "time_zone_abbreviation",
    "_fast_fold",
    "_hero",
    "finishing_stacks",
)
(
    _VARIANT,
    _TRIM,
    _ANTES,
    _BLINDS,
    _MIN_BET,
    _SMALL_BET,
    _BIG_BET,
    _STACKS,
    _ACTIONS,
    _VENUE,
    _TIME,
    _DAY,
    _MONTH,
    _YEAR,
    _HAND,
    _SEATS,
    _SEAT_COUNT,
    _TABLE,
    _PLAYERS,
    _WINNINGS,
    _CURRENCY,
    _CURRENCY_SYMBOL,
    _TIME_ZONE,
    _TIME_ZONE_ABBREVIATION,
    _FAST_FOLD,
    _HERO,
    _FINISHING,
) = range(len(_KEYS))


def _key_table() -> tuple[UInt8s, Int64s]:
    width = max(len(k) for k in _KEYS)
    table = np.zeros((len(_KEYS), width), dtype=np.uint8)
    for i, key in enumerate(_KEYS):
        table[i, : len(key)] = np.frombuffer(key.encode(), dtype=np.uint8)
    return table, np.array([len(k) for k in _KEYS], dtype=np.int64)


_KEY_BYTES, _KEY_SIZE = _key_table()
_TRUE = word("true")
_FALSE = word("false")
_D_DH = word("d dh p")
_D_DB = word("d db ")
MAX_ACTIONS = 400
_DEFAULT_NAMES = np.frombuffer(b"p1p2p3p4p5p6p7p8p9p10", dtype=np.uint8)
"""The names of players a hand without ``players`` gets (``p1`` to ``p10``), placed after
a block's bytes: such a hand's name ranges point past them."""
"""Entries of ``actions`` per hand the fast reader takes (longer hands are handed over)."""
_AMOUNT_LISTS = 5  # antes, blinds, stacks, winnings, finishing stacks


@nb.njit(cache=True, nogil=True)
def _key_id(data: UInt8s, start: int, end: int) -> int:
    """Index of the key ``data[start:end]`` in ``_KEYS``, or -1."""
    size = end - start
    for k in range(_KEY_SIZE.shape[0]):
        if _KEY_SIZE[k] != size:
            continue
        differ = False
        for i in range(size):
            differ |= data[start + i] != _KEY_BYTES[k, i]
        if not differ:
            return k
    return -1


@nb.njit(cache=True, nogil=True, inline="always")
def _literal_end(data: UInt8s, at: int, end: int) -> int:
    """Given a quote at ``data[at]``, the position of the closing quote of a string of
    printable characters (no control bytes): a literal ``'...'``, or a basic ``"..."``
    without escapes (its text is then as written), or -1."""
    quote = data[at]
    if quote != 39 and quote != 34:
        return -1
    for i in range(at + 1, end):
        byte = data[i]
        if byte == quote:
            return i
        if byte < 32 or byte == 127 or (quote == 34 and byte == 92):  # \ escapes
            return -1
    return -1


@nb.njit(cache=True, nogil=True, inline="always")
def _literal(data: UInt8s, start: int, end: int) -> bool:
    """Whether ``data[start:end]`` is one string (see ``_literal_end``)."""
    return end - start >= 2 and _literal_end(data, start, end) == end - 1


@nb.njit(cache=True, nogil=True, inline="always")
def _player(data: UInt8s, at: int, end: int) -> tuple[int, int]:
    """(PHH player index 0-9, position after it) of ``p1``..``p10`` at ``at`` (after the
    ``p``), or (-1, at)."""
    if at >= end or not is_digit(data[at]) or data[at] == 48:
        return -1, at
    value = data[at] - 48
    at += 1
    if at < end and is_digit(data[at]):
        value = value * 10 + data[at] - 48
        at += 1
        if value != 10:
            return -1, at
    return value - 1, at


@nb.njit(cache=True, nogil=True, inline="always")
def _hole(data: UInt8s, start: int, end: int, out: Int64s) -> int:
    """Hole cards written ``AhKd`` (or unknown, with ``?``) into ``out``: 2 cards, 0 when
    unknown, -1 when this reader does not take them."""
    size = end - start
    if size == 0 or size % 2:
        return -1
    unknown = False
    for i in range(start, end):
        if data[i] == 32:  # one word only (the Python reader splits on spaces)
            return -1
        unknown |= data[i] == 63  # ?
    if unknown:
        return 0
    if size != 4:
        return -1
    out[0] = card_at(data, start, end)
    out[1] = card_at(data, start + 2, end)
    if out[0] < 0 or out[1] < 0:
        return -1
    return 2


@nb.njit(cache=True, nogil=True, inline="always")
def _amount_slot(key: int) -> int:
    """The row of a per-player amount list in ``_read_hands``' ``lists``."""
    if key == _ANTES:
        return 0
    if key == _BLINDS:
        return 1
    if key == _STACKS:
        return 2
    return 3 if key == _WINNINGS else 4


@nb.njit(cache=True, nogil=True)
def _put_in(
    lists: Int64s,
    n: int,
    kind: Int64s,
    who: Int64s,
    chips: Int64s,
    actions: int,
    out: Int64s,
    call: Int64s,
    all_in: Int64s,
) -> None:
    """Chips each PHH player put in over the hand (``out``), counted as ``phh._Tracker``
    counts them: dead chips and blinds (as far as the stack goes), calls (capped by the
    stack), raises to their total, and the top bet nobody matched returned at each round's
    end; and per action the chips a check or call puts in (``call``) and whether it goes
    all-in, as that reader writes them in the record. ``lists`` holds antes, blinds and
    stacks in rows 0-2; ``kind`` the actions (1 fold, 2 check or call, 3 bet or raise, 4 a
    board dealt, 0 other cards)."""
    stack = np.zeros(10, np.int64)
    bet = np.zeros(10, np.int64)
    current = 0
    for i in range(n):
        paid = min(lists[0, i], lists[2, i])
        stack[i] = lists[2, i] - paid
        bet[i] = min(lists[1, i], stack[i])
        stack[i] -= bet[i]
        out[i] = paid + bet[i]
        current = max(current, bet[i])
    for a in range(actions + 1):
        k = kind[a] if a < actions else 4  # the hand's end closes the last round
        p = who[a] if a < actions else 0
        if a < actions:
            call[a] = 0
            all_in[a] = 0
        if k == 2:
            put = min(current - bet[p], stack[p])
            if put > 0:
                stack[p] -= put
                bet[p] += put
                out[p] += put
                call[a] = put
                all_in[a] = stack[p] == 0
        elif k == 3:
            put = chips[a] - bet[p]
            stack[p] -= put
            bet[p] = chips[a]
            out[p] += put
            current = max(current, chips[a])
            all_in[a] = stack[p] <= 0
        elif k == 4:
            top = 0
            for i in range(1, n):
                if bet[i] > bet[top]:
                    top = i
            ties = 0
            second = 0
            for i in range(n):
                ties += bet[i] == bet[top]
                if i != top:
                    second = max(second, bet[i])
            if bet[top] > 0 and ties == 1:
                stack[top] += bet[top] - second
                out[top] -= bet[top] - second
            for i in range(n):
                bet[i] = 0
            current = 0


@nb.njit(cache=True, nogil=True)
def _read_hands(
    data: UInt8s,
    newlines: Int64s,
    hand_start: Int64s,
    hand_end: Int64s,
    first_line: Int64s,
    action_capacity: int,
) -> tuple[Any, ...]:
    """Every hand ``data[hand_start[h]:hand_end[h]]`` (whose first line ends at
    ``newlines[first_line[h]]``) into flat arrays (see the module docstring); a hand with
    a nonzero status gets no seats and no actions."""
    hands = hand_start.shape[0]
    status = np.zeros(hands, np.int8)
    seat_start = np.zeros(hands + 1, np.int64)
    action_start = np.zeros(hands + 1, np.int64)
    button = np.zeros(hands, np.int64)
    small_blind = np.zeros(hands, np.int64)
    big_blind = np.zeros(hands, np.int64)
    fixed_limit = np.zeros(hands, np.int8)
    limit_bets = np.zeros((hands, 2), np.int64)
    ante = np.zeros(hands, np.int64)
    board = np.full((hands, 5), -1, np.int16)
    board_size = np.zeros(hands, np.int64)
    has_winnings = np.zeros(hands, np.int8)
    site = np.zeros((hands, 2), np.int64)
    hand_id = np.zeros((hands, 2), np.int64)
    seats = 10 * hands
    stack = np.zeros(seats, np.int64)
    blind = np.zeros(seats, np.int64)
    dead = np.zeros(seats, np.int64)
    hole = np.full((seats, 2), -1, np.int16)
    seat_number = np.zeros(seats, np.int64)
    name = np.zeros((seats, 2), np.int64)
    winnings = np.zeros(seats, np.int64)
    street = np.zeros(action_capacity, np.int8)
    player = np.zeros(action_capacity, np.int64)
    move = np.zeros(action_capacity, np.int8)
    amount = np.zeros(action_capacity, np.int64)
    all_in = np.zeros(action_capacity, np.int8)

    lists = np.zeros((_AMOUNT_LISTS, 10), np.int64)
    counts = np.zeros(_AMOUNT_LISTS, np.int64)
    numbers = np.zeros(10, np.int64)
    names = np.zeros((10, 2), np.int64)
    holes = np.full((10, 2), -1, np.int64)
    cards = np.zeros(2, np.int64)
    act_kind = np.zeros(MAX_ACTIONS, np.int64)
    act_player = np.zeros(MAX_ACTIONS, np.int64)
    act_amount = np.zeros(MAX_ACTIONS, np.int64)
    act_street = np.zeros(MAX_ACTIONS, np.int64)
    dealt = np.full(5, -1, np.int64)
    put_in = np.zeros(10, np.int64)
    act_call = np.zeros(MAX_ACTIONS, np.int64)
    act_all_in = np.zeros(MAX_ACTIONS, np.int64)
    short = False
    seat_cursor = 0
    action_cursor = 0

    for h in range(hands):
        end = hand_end[h]
        code = 0
        seen = 0
        counts[:] = -1
        n_numbers = -1
        n_names = -1
        n_actions = -1
        variant = -1
        min_bet = BAD
        small_bet = BAD
        big_bet = BAD
        year = -1
        month = -1
        day = -1
        clock = -1
        hero = -1
        n_board = 0
        holes[:] = -1
        at = hand_start[h]
        k = first_line[h]
        header = True
        while at < end and code == 0:
            stop = newlines[k] if k < newlines.shape[0] else data.shape[0]
            k += 1
            if stop == at:
                at = stop + 1
                continue
            if header:  # [n]
                header = False
                ok = stop - at >= 3 and data[at] == 91 and data[stop - 1] == 93
                for i in range(at + 1, stop - 1):
                    byte = data[i]
                    letter = 65 <= byte <= 90 or 97 <= byte <= 122
                    ok &= letter or is_digit(byte) or byte == 95 or byte == 45
                if not ok:
                    code = _SYNTAX
                at = stop + 1
                continue
            equals = -1
            for i in range(at, stop - 2):
                if data[i] == 32 and data[i + 1] == 61 and data[i + 2] == 32:
                    equals = i
                    break
            key = _key_id(data, at, equals) if equals > at else -1
            if key < 0:
                code = _FIELD
                break
            if seen & (1 << key):
                code = _SYNTAX
                break
            seen |= 1 << key
            v = equals + 3
            if v >= stop:
                code = _SYNTAX
                break
            if key in (_ANTES, _BLINDS, _STACKS, _WINNINGS, _FINISHING):
                slot = _amount_slot(key)
                if data[v] != 91 or data[stop - 1] != 93 or stop - v < 3:
                    code = _SYNTAX
                    break
                count = 0
                item = v + 1
                while code == 0:
                    close = item
                    while close < stop - 1 and data[close] != 44:  # ,
                        close += 1
                    chips = phh_amount(data, item, close)
                    if chips == BAD or count == 10:
                        code = _VALUE
                        break
                    lists[slot, count] = chips
                    count += 1
                    if close == stop - 1:
                        break
                    if close + 1 >= stop or data[close + 1] != 32:
                        code = _SYNTAX
                        break
                    item = close + 2
                counts[slot] = count
            elif key == _SEATS:
                if data[v] != 91 or data[stop - 1] != 93 or stop - v < 3:
                    code = _SYNTAX
                    break
                n_numbers = 0
                item = v + 1
                while code == 0:
                    close = item
                    while close < stop - 1 and data[close] != 44:
                        close += 1
                    value = whole_number(data, item, close)
                    if value <= 0 or n_numbers == 10:
                        code = _VALUE
                        break
                    numbers[n_numbers] = value
                    n_numbers += 1
                    if close == stop - 1:
                        break
                    if close + 1 >= stop or data[close + 1] != 32:
                        code = _SYNTAX
                        break
                    item = close + 2
            elif key in (_PLAYERS, _ACTIONS):
                if stop - v < 4 or data[v] != 91 or data[stop - 1] != 93:
                    code = _SYNTAX
                    break
                count = 0
                item = v + 1
                while code == 0:
                    close = _literal_end(data, item, stop)
                    if close < 0:
                        code = _SYNTAX
                        break
                    s0 = item + 1
                    if key == _PLAYERS:
                        if count == 10:
                            code = _VALUE
                            break
                        names[count, 0] = s0
                        names[count, 1] = close
                    elif count == MAX_ACTIONS:
                        code = _FIELD
                        break
                    else:  # one action
                        kind = -1
                        who = 0
                        chips = 0
                        if close - s0 >= 7 and data[s0] == 100:  # d dh pK [cards]
                            ok = True
                            for i in range(6):
                                ok &= data[s0 + i] == _D_DH[i]
                            if ok:
                                who, after = _player(data, s0 + 6, close)
                                if who >= 0 and after == close:
                                    kind = 0
                                elif who >= 0 and data[after] == 32:
                                    known = _hole(data, after + 1, close, cards)
                                    if known == 2:
                                        holes[who, 0] = cards[0]
                                        holes[who, 1] = cards[1]
                                    kind = 0 if known >= 0 else -1
                            else:  # d db cards
                                ok = close - s0 >= 7
                                for i in range(5):
                                    ok &= data[s0 + i] == _D_DB[i]
                                size = close - s0 - 5
                                want = 3 if n_board == 0 else 1
                                if ok and size == 2 * want and n_board + want <= 5:
                                    for c in range(want):
                                        card = card_at(data, s0 + 5 + 2 * c, close)
                                        if card < 0:
                                            ok = False
                                        dealt[n_board + c] = card
                                    if ok:
                                        n_board += want
                                        kind = 4
                        elif close - s0 >= 4 and data[s0] == 112:  # pK ...
                            who, after = _player(data, s0 + 1, close)
                            rest = close - after
                            if who >= 0 and rest >= 2 and data[after] == 32:
                                a = after + 1
                                if rest == 2 and data[a] == 102:  # f
                                    kind = 1
                                elif rest == 3 and data[a] == 99 and data[a + 1] == 99:  # cc
                                    kind = 2
                                elif (
                                    rest >= 6
                                    and data[a] == 99
                                    and data[a + 1] == 98
                                    and data[a + 2] == 114
                                    and data[a + 3] == 32
                                ):  # cbr amount
                                    chips = phh_amount(data, a + 4, close)
                                    kind = 3 if chips != BAD else -1
                                elif rest >= 3 and data[a] == 115 and data[a + 1] == 109:  # sm
                                    if rest == 3 or (
                                        rest == 5 and data[a + 2] == 32 and data[a + 3] == 45
                                    ):
                                        kind = 0  # nothing shown, or ``-``
                                    elif data[a + 2] == 32:
                                        known = _hole(data, a + 3, close, cards)
                                        if known == 2:
                                            holes[who, 0] = cards[0]
                                            holes[who, 1] = cards[1]
                                        kind = 0 if known >= 0 else -1
                        if kind < 0:
                            code = _SYNTAX
                            break
                        if kind >= 1 and kind <= 3:
                            act_kind[count] = kind
                            act_player[count] = who
                            act_amount[count] = chips
                            act_street[count] = 0 if n_board == 0 else n_board - 2
                        else:  # cards: 4 for the board (a round ends), else 0
                            act_kind[count] = kind
                            act_player[count] = who
                    count += 1
                    if close == stop - 2 and data[stop - 1] == 93:
                        break
                    if close + 3 >= stop or data[close + 1] != 44 or data[close + 2] != 32:
                        code = _SYNTAX
                        break
                    if data[close + 3] != 39 and data[close + 3] != 34:
                        code = _SYNTAX
                        break
                    item = close + 3
                if key == _PLAYERS:
                    n_names = count
                else:
                    n_actions = count
            elif key in (_MIN_BET, _SMALL_BET, _BIG_BET):
                chips = phh_amount(data, v, stop)
                if chips == BAD:
                    code = _VALUE
                    break
                if key == _MIN_BET:
                    min_bet = chips
                elif key == _SMALL_BET:
                    small_bet = chips
                else:
                    big_bet = chips
            elif key == _VARIANT:
                if stop - v == 4 and data[v] == 39 and data[v + 3] == 39:
                    if data[v + 1] == 78 and data[v + 2] == 84:  # NT
                        variant = 0
                    elif data[v + 1] == 70 and data[v + 2] == 84:  # FT
                        variant = 1
                if variant < 0:
                    code = _VALUE
                    break
            elif key in (_TRIM, _FAST_FOLD):
                size = stop - v
                ok = size == 4 or size == 5
                for i in range(size if ok else 0):
                    ok &= data[v + i] == (_TRUE[i] if size == 4 else _FALSE[i])
                if not ok:
                    code = _SYNTAX
                    break
            elif key == _HAND:
                if data[v] == 39 or data[v] == 34:
                    if not _literal(data, v, stop):
                        code = _SYNTAX
                        break
                    hand_id[h, 0] = v + 1
                    hand_id[h, 1] = stop - 1
                else:
                    if whole_number(data, v, stop) < 0:
                        code = _SYNTAX
                        break
                    hand_id[h, 0] = v
                    hand_id[h, 1] = stop
            elif key in (_YEAR, _MONTH, _DAY, _SEAT_COUNT):
                value = whole_number(data, v, stop)
                if value < 0:
                    code = _SYNTAX
                    break
                if key == _YEAR:
                    year = value
                elif key == _MONTH:
                    month = value
                elif key == _DAY:
                    day = value
            elif key == _TIME:  # HH:MM:SS
                if stop - v != 8 or data[v + 2] != 58 or data[v + 5] != 58:
                    code = _SYNTAX
                    break
                ok = True
                for i in (0, 1, 3, 4, 6, 7):
                    ok &= is_digit(data[v + i])
                if not ok:
                    code = _SYNTAX
                    break
                hours = (data[v] - 48) * 10 + data[v + 1] - 48
                minutes = (data[v + 3] - 48) * 10 + data[v + 4] - 48
                seconds = (data[v + 6] - 48) * 10 + data[v + 7] - 48
                if hours > 23 or minutes > 59 or seconds > 59:
                    code = _SYNTAX  # not a TOML time: the Python reader says why
                    break
                clock = hours * 3600 + minutes * 60 + seconds
            elif key == _HERO:
                ok = stop - v >= 4 and data[v] == 39 and data[stop - 1] == 39
                ok &= stop - v >= 4 and data[v + 1] == 112
                if ok:
                    hero, after = _player(data, v + 2, stop - 1)
                    ok = hero >= 0 and after == stop - 1
                if not ok:
                    code = _VALUE
                    break
            else:  # venue, table, currency, currency_symbol, time_zone(_abbreviation)
                if not _literal(data, v, stop):
                    code = _SYNTAX
                    break
                if key == _VENUE:
                    site[h, 0] = v + 1
                    site[h, 1] = stop - 1
            at = stop + 1

        # -- the whole hand read: check it and write it in record order --------------------
        n = counts[2]
        if code == 0:
            need = (1 << _VARIANT) | (1 << _STACKS) | (1 << _BLINDS) | (1 << _ACTIONS)
            need |= (1 << _MIN_BET) if variant == 0 else (1 << _SMALL_BET) | (1 << _BIG_BET)
            if seen & need != need or header:
                code = _FIELD
            else:
                if n_numbers < 0:  # no seats: numbered 1 to n in PHH order
                    for i in range(min(n, 10)):
                        numbers[i] = i + 1
                    n_numbers = n
                if n_names < 0:  # no players: named p1 to pn, from the names after data
                    for i in range(min(n, 10)):
                        names[i, 0] = data.shape[0] + 2 * i
                        names[i, 1] = data.shape[0] + 2 * i + (3 if i == 9 else 2)
                    n_names = n
                lengths = counts[1] == n and n_numbers == n and n_names == n
                lengths &= counts[0] in (-1, n) and counts[3] in (-1, n) and counts[4] in (-1, n)
                if not (2 <= n <= 10 and lengths):
                    code = _VALUE
        if code == 0:
            if counts[0] < 0:
                lists[0, :n] = 0
            won = 0
            for i in range(n):
                if lists[2, i] <= 0 or lists[0, i] < 0:
                    code = _VALUE
                if counts[3] >= 0:
                    if lists[3, i] < 0:
                        code = _VALUE
                    won += lists[3, i] != 0
            for a in range(n_actions):
                if act_player[a] >= n:
                    code = _VALUE
            if hero >= n:
                code = _VALUE
            if year >= 0 and month >= 0 and day >= 0:
                c = max(clock, 0)
                if not valid_date(year, month, day, c // 3600, c // 60 % 60, c % 60):
                    code = _VALUE
        if code == 0:
            if n == 2:  # heads-up: the button (p2) posts the first entry
                for slot in range(2):
                    first_entry = lists[slot, 0]
                    lists[slot, 0] = lists[slot, 1]
                    lists[slot, 1] = first_entry
            posted_any = 0
            for i in range(n):
                lists[1, i] = abs(lists[1, i])
                posted_any += lists[1, i] + lists[0, i]
            if variant == 0:
                bb = min_bet
            else:
                bb = max(lists[1, 0], lists[1, 1])
                if bb == 0:
                    bb = small_bet
                if small_bet < 0 or big_bet < 0:
                    code = _VALUE
            if bb <= 0 or posted_any == 0:
                code = _VALUE
        if code == 0:
            lowest = 0
            for i in range(1, n):
                if numbers[i] < numbers[lowest]:
                    lowest = i
            for k in range(n - 1):
                if numbers[(lowest + k) % n] >= numbers[(lowest + k + 1) % n]:
                    code = _VALUE
            first = (n - lowest) % n
            # A stack too short for its live blind: the Python reader prices calls off the
            # posted chips, the replay off the full blind; such a hand gets the calls and
            # all-in marks the Python reader writes, for the row pass to check.
            largest = 0
            posted = 0
            for i in range(n):
                behind = lists[2, i] - min(lists[0, i], lists[2, i])
                largest = max(largest, lists[1, i])
                posted = max(posted, min(lists[1, i], behind))
            short = posted < largest
        derive = counts[3] < 0 and counts[4] >= 0
        if code == 0 and (short or derive):
            _put_in(
                lists, n, act_kind, act_player, act_amount, n_actions, put_in, act_call, act_all_in
            )
        if code == 0 and derive:
            # winnings from finishing_stacks: what each ends with, less what they started
            # with, plus what they put in as the Python reader counts it (``_Tracker``)
            won = 0
            for i in range(n):
                lists[3, i] = lists[4, i] - lists[2, i] + put_in[i]
                if lists[3, i] < 0:
                    code = _VALUE
                won += lists[3, i] != 0
            if won == 0:  # the Python reader keeps all-zero winnings; hand it over
                code = _VALUE
            counts[3] = n
        if code == 0 and action_cursor + n_actions > action_capacity:
            code = _FIELD
        status[h] = code
        if code != 0:
            seat_start[h + 1] = seat_cursor
            action_start[h + 1] = action_cursor
            continue
        small = lists[1, 1] if n == 2 else lists[1, 0]
        small_blind[h] = min(small, bb)
        big_blind[h] = bb
        fixed_limit[h] = variant
        if variant == 1:
            unit = small_bet if small_bet else bb
            limit_bets[h, 0] = unit
            limit_bets[h, 1] = big_bet if big_bet else 2 * unit
        button[h] = (n - 1 + first) % n
        lowest_ante = lists[0, 0]
        for i in range(n):
            lowest_ante = min(lowest_ante, lists[0, i])
        ante[h] = lowest_ante
        for c in range(n_board):
            board[h, c] = dealt[c]
        board_size[h] = n_board
        has_winnings[h] = 1 if counts[3] >= 0 and won > 0 else 0
        for j in range(n):
            i = (j - first) % n
            s = seat_cursor + j
            stack[s] = lists[2, i]
            blind[s] = lists[1, i]
            dead[s] = lists[0, i]
            seat_number[s] = numbers[i]
            name[s, 0] = names[i, 0]
            name[s, 1] = names[i, 1]
            hole[s, 0] = holes[i, 0]
            hole[s, 1] = holes[i, 1]
            winnings[s] = lists[3, i] if has_winnings[h] else 0
        seat_cursor += n
        seat_start[h + 1] = seat_cursor
        for a in range(n_actions):
            kind = act_kind[a]
            if kind == 0 or kind == 4:
                continue
            street[action_cursor] = act_street[a]
            player[action_cursor] = (act_player[a] + first) % n
            move[action_cursor] = kind - 1
            if kind == 3:
                amount[action_cursor] = act_amount[a]
            elif kind == 2:
                amount[action_cursor] = act_call[a] if short else UNSTATED
            else:
                amount[action_cursor] = 0
            all_in[action_cursor] = act_all_in[a] if short else UNSTATED
            action_cursor += 1
        action_start[h + 1] = action_cursor
    return (
        status,
        seat_start,
        action_start,
        button,
        small_blind,
        big_blind,
        fixed_limit,
        limit_bets,
        ante,
        board,
        board_size,
        has_winnings,
        site,
        hand_id,
        stack[:seat_cursor],
        blind[:seat_cursor],
        dead[:seat_cursor],
        hole[:seat_cursor],
        seat_number[:seat_cursor],
        name[:seat_cursor],
        winnings[:seat_cursor],
        street[:action_cursor],
        player[:action_cursor],
        move[:action_cursor],
        amount[:action_cursor],
        all_in[:action_cursor],
    )


def read_phh(block: Block, lo: int, hi: int) -> tuple[HandArrays, Int8s]:
    """Hands ``lo:hi`` of the block as arrays, and each hand's status (0: read here; else a
    key of :data:`FALLBACK_REASONS`, and the hand has no seats or actions)."""
    data = block.data
    start = block.start[lo:hi]
    end = block.end[lo:hi]
    hands = hi - lo
    span = data[start[0] : end[-1]] if hands else data[:0]
    capacity = int(np.count_nonzero(span == 39) + np.count_nonzero(span == 34)) // 2 + 1
    (
        status,
        seat_start,
        action_start,
        button,
        small_blind,
        big_blind,
        fixed_limit,
        limit_bets,
        ante,
        board,
        board_size,
        has_winnings,
        site,
        hand_id,
        stack,
        blind,
        dead,
        hole,
        seat_number,
        name,
        winnings,
        street,
        player,
        move,
        amount,
        all_in,
    ) = _read_hands(data, block.newlines, start, end, block.first_line[lo:hi], capacity)
    arrays = HandArrays(
        seat_start=seat_start,
        action_start=action_start,
        button=button,
        small_blind=small_blind,
        big_blind=big_blind,
        fixed_limit=fixed_limit,
        limit_bets=limit_bets,
        ante=ante,
        board=board,
        board_size=board_size,
        total_pot=np.full(hands, -1, dtype=np.int64),
        rake=np.where(has_winnings == 1, RAKE_FROM_POT, 0).astype(np.int64),
        has_winnings=has_winnings,
        needs_reference=np.zeros(hands, dtype=np.int8),
        warning=np.full(hands, -1, dtype=np.int8),
        site=strings(data, site),
        hand_id=strings(data, hand_id),
        stack=stack,
        blind=blind,
        dead=dead,
        hole=hole,
        seat_number=seat_number,
        name=strings(np.concatenate([data, _DEFAULT_NAMES]), name)
        if name.shape[0] and name[:, 1].max() > data.shape[0]
        else strings(data, name),
        winnings=winnings,
        street=street,
        player=player,
        move=move,
        amount=amount,
        all_in=all_in,
    )
    return arrays, status
