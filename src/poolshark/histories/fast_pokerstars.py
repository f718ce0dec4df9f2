"""PokerStars hands straight from bytes into :class:`~poolshark.histories.flat.HandArrays`.

The fast reader of ingestion for PokerStars text: one compiled pass over many hands reads
the lines a no-limit hold'em cash hand is made of (header, table, seats, posts, sitting-out
notices, hole cards, actions, streets, showdowns, returned bets, collected pots and the
summary) and writes them as ``pokerstars.parse_pokerstars`` followed by ``HandArrays.of``
would, call amounts and all-in marks included (the row pass checks them). Player names
are matched as the Python reader matches them (the longest seated name before ``: ``).

It is deliberately narrow: fixed-limit, run it twice, chat, cash-out offers, currencies
other than dollars, control characters, names with brackets, a line ending in a non-ASCII
character (which could be Unicode space) or any other line it does not know give the hand
a nonzero ``status``, and ``pokerstars.parse_pokerstars`` reads it instead, so the result
never depends on this reader's coverage. ``tests/test_histories_fast.py`` checks it
against the Python reader.

Long module: one grammar in one compiled pass; the kernel reads a hand's sections in the
order the site writes them, top to bottom, with the byte patterns it matches beside it.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt
import pyarrow as pa

from poolshark.histories.bytescan import (
    BAD,
    card_at,
    digits_value,
    ends_with,
    find,
    is_digit,
    money,
    same_as,
    same_bytes,
    starts_with,
    starts_with_folded,
    strings,
    valid_date,
    word,
)
from poolshark.histories.fast_split import Block
from poolshark.histories.flat import HandArrays
from poolshark.histories.pokerstars import SITE

Int64s = npt.NDArray[np.int64]
Int8s = npt.NDArray[np.int8]
UInt8s = npt.NDArray[np.uint8]

#: Why a hand was handed to the Python reader (``status``), for the counts.
FALLBACK_REASONS = {
    1: "a line outside the fast reader's subset",
    2: "a game, table or feature the fast reader leaves to the Python reader",
    3: "a value the Python reader rejects or reads its own way",
    4: "a hand longer than the fast reader takes",
}
_SYNTAX, _FEATURE, _VALUE, _LONG = 1, 2, 3, 4
MAX_LINES = 256
"""Lines per hand the fast reader takes (longer hands are handed over)."""
MAX_SEATED = 10

_POKERSTARS = word("pokerstars ")  # header words: matched in any case
_ZOOM = word("zoom ")
_HAND = word("hand #")
_GAME = word("game #")
_HOLDEM_NL = word("hold'em no limit (")
_DASH = word(") - ")
_TABLE = word("Table '")
_IS_BUTTON = word(" is the button")
_SEAT_HASH = word("-max Seat #")
_NO_SIZE = word("' Seat #")
_SEAT = word("Seat ")
_IN_CHIPS = word(" in chips)")
_HOLE_CARDS = word("*** HOLE CARDS ***")
_SUMMARY = word("*** SUMMARY ***")
_STARS = word("*** ")
_FLOP = word("*** FLOP *** [")
_TURN = word("*** TURN *** [")
_RIVER = word("*** RIVER *** [")
_SHOW_DOWN = word("*** SHOW DOWN ***")
_DEALT_TO = word("Dealt to ")
_POSTS = word("posts ")
_SMALL_BLIND = word("small blind ")
_BIG_BLIND = word("big blind ")
_BOTH_BLINDS = word("small & big blinds ")
_STRADDLE = word("straddle ")
_THE_ANTE = word("the ante ")
_ALL_IN = word(" and is all-in")
_FOLDS = word("folds")
_FOLDS_CARDS = word("folds [")
_CHECKS = word("checks")
_CALLS = word("calls ")
_BETS = word("bets ")
_RAISES = word("raises ")
_TO = word(" to ")
_SHOWS = word("shows [")
_MUCKS_HAND = word("mucks hand")
_MUCKS_CARDS = word("mucks [")
_NO_SHOW = word("doesn't show hand")
_UNCALLED = word("Uncalled bet (")
_RETURNED = word(") returned to ")
_COLLECTED = word(" collected ")
_TOTAL_POT = word("Total pot ")
_BAR = word(" | ")
_BOARD = word("Board [")
_SHOWED = word("showed [")
_MUCKED = word("mucked [")
_BOUNTY = word(" bounty)")
_MAIN_POT_CAP = word("Main pot ")
_SIDE_POT_CAP = word("Side pot")
_NOTICES = [
    word(" " + notice)
    for notice in (
        "is sitting out",
        "sits out",
        "is disconnected",
        "is connected",
        "has timed out",
        "has timed out while disconnected",
        "has timed out while being disconnected",
        "has returned",
        "leaves the table",
        "will be allowed to play after the button",
        "was removed from the table for failing to post",
        "is feeling normal again",
    )
]
_NOTICE_WORDS = np.zeros((len(_NOTICES), max(len(n) for n in _NOTICES)), dtype=np.uint8)
_NOTICE_SIZES = np.array([len(n) for n in _NOTICES], dtype=np.int64)
for _i, _ending in enumerate(_NOTICES):
    _NOTICE_WORDS[_i, : len(_ending)] = _ending
_JOINS = word(" joins the table at seat #")
_IS_SITTING_OUT = word(" is sitting out")
_SITS_OUT = word(" sits out")
_SAID = word(' said, "')

# Kinds of post (the order ``_Posts`` sees them in does not matter).
_P_SMALL, _P_BIG, _P_BOTH, _P_STRADDLE, _P_ANTE = range(5)


@nb.njit(cache=True, nogil=True, inline="always")
def _name_at(data: UInt8s, start: int, end: int, name_s: Int64s, name_e: Int64s, count: int) -> int:
    """The seated name equal to ``data[start:end]``, or -1."""
    for k in range(count):
        size = name_e[k] - name_s[k]
        if size == end - start and same_bytes(data, start, name_s[k], size):
            return k
    return -1


@nb.njit(cache=True, nogil=True, inline="always")
def _speaker(data: UInt8s, start: int, end: int, name_s: Int64s, name_e: Int64s, count: int) -> int:
    """The longest seated name that the line ``data[start:end]`` starts with, followed by
    ``: `` (as ``_Reader.speaker``), or -1."""
    best = -1
    longest = -1
    for k in range(count):
        size = name_e[k] - name_s[k]
        colon = start + size
        if colon + 2 > end or size <= longest or data[colon] != 58 or data[colon + 1] != 32:
            continue
        if same_bytes(data, start, name_s[k], size):
            best = k
            longest = size
    return best


@nb.njit(cache=True, nogil=True)
def _cards(data: UInt8s, start: int, end: int, out: Int64s) -> int:
    """Cards written ``Ah Kd 7c`` (single spaces, at most 5, none twice) into ``out``;
    their count, or -1."""
    count = 0
    at = start
    while True:
        if count == 5:
            return -1
        card = card_at(data, at, end)
        if card < 0:
            return -1
        for k in range(count):
            if out[k] == card:
                return -1
        out[count] = card
        count += 1
        at += 2
        if at == end:
            return count
        if data[at] != 32:
            return -1
        at += 1


@nb.njit(cache=True, nogil=True, inline="always")
def _amount_shape(data: UInt8s, at: int, end: int) -> int:
    """The end of ``[$]?[\\d,]+(\\.\\d+)?`` starting at ``at``, or -1."""
    if at < end and data[at] == 36:
        at += 1
    first = at
    while at < end and (is_digit(data[at]) or data[at] == 44):
        at += 1
    if at == first:
        return -1
    if at < end and data[at] == 46 and at + 1 < end and is_digit(data[at + 1]):
        at += 1
        while at < end and is_digit(data[at]):
            at += 1
    return at


@nb.njit(cache=True, nogil=True, inline="always")
def _foreign_money(data: UInt8s, at: int, end: int) -> bool:
    """Whether an amount at ``at`` starts with the euro or pound sign (left to Python)."""
    return at + 1 < end and (data[at] == 0xE2 or (data[at] == 0xC2 and data[at + 1] == 0xA3))


@nb.njit(cache=True, nogil=True)
def _notice(data: UInt8s, start: int, end: int) -> bool:
    """A line that moves no chips (``_NOTICES`` endings, joining a seat)."""
    for k in range(_NOTICE_SIZES.shape[0]):
        size = _NOTICE_SIZES[k]
        if end - start < size:
            continue
        differ = False
        for i in range(size):
            differ |= data[end - size + i] != _NOTICE_WORDS[k, i]
        if not differ:
            return True
    return find(data, start, end, _JOINS) >= 0


@nb.njit(cache=True, nogil=True)
def _read_hands(
    data: UInt8s,
    newlines: Int64s,
    hand_start: Int64s,
    hand_end: Int64s,
    first_line: Int64s,
    tainted: npt.NDArray[np.bool_],
    action_capacity: int,
) -> tuple[Any, ...]:
    """Every hand ``data[hand_start[h]:hand_end[h]]`` (whose first line ends at
    ``newlines[first_line[h]]``) into flat arrays (see the module docstring); a hand with a
    nonzero status gets no seats and no actions."""
    hands = hand_start.shape[0]
    status = np.zeros(hands, np.int8)
    seat_start = np.zeros(hands + 1, np.int64)
    action_start = np.zeros(hands + 1, np.int64)
    button = np.zeros(hands, np.int64)
    small_blind = np.zeros(hands, np.int64)
    big_blind = np.zeros(hands, np.int64)
    ante = np.zeros(hands, np.int64)
    board = np.full((hands, 5), -1, np.int16)
    board_size = np.zeros(hands, np.int64)
    total_pot = np.zeros(hands, np.int64)
    rake = np.zeros(hands, np.int64)
    hand_id = np.zeros((hands, 2), np.int64)
    seats = MAX_SEATED * hands
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

    line_s = np.zeros(MAX_LINES, np.int64)
    line_e = np.zeros(MAX_LINES, np.int64)
    name_s = np.zeros(MAX_SEATED, np.int64)
    name_e = np.zeros(MAX_SEATED, np.int64)
    numbers = np.zeros(MAX_SEATED, np.int64)
    chips = np.zeros(MAX_SEATED, np.int64)
    sitting = np.zeros(MAX_SEATED, np.int8)  # on the seat line, or sat out before the deal
    posted = np.zeros(MAX_SEATED, np.int8)
    record_of = np.zeros(MAX_SEATED, np.int64)  # seated position -> record index, or -1
    order = np.zeros(MAX_SEATED, np.int64)
    post_who = np.zeros(64, np.int64)
    post_kind = np.zeros(64, np.int64)
    post_chips = np.zeros(64, np.int64)
    post_all_in = np.zeros(64, np.int8)
    holes = np.full((MAX_SEATED, 2), -1, np.int64)
    collected = np.zeros(MAX_SEATED, np.int64)
    summarized = np.zeros(MAX_SEATED, np.int8)
    dealt = np.zeros(5, np.int64)
    cards = np.zeros(5, np.int64)
    summary_board = np.zeros(5, np.int64)
    clock = np.zeros(5, np.int64)
    seat_cursor = 0
    action_cursor = 0

    for h in range(hands):
        code = 0
        # Lines, right-stripped of ASCII spaces as ``line.rstrip()`` strips them.
        lines = 0
        at = hand_start[h]
        end = hand_end[h]
        k = first_line[h]
        if tainted[h]:  # control characters: the Python reader decides
            code = _SYNTAX
        while at < end and code == 0:
            stop = newlines[k] if k < newlines.shape[0] else data.shape[0]
            k += 1
            while at < stop and data[at] == 32:  # indented hands: ``line.lstrip(" \t")``
                at += 1
            last = stop
            while last > at and data[last - 1] == 32:
                last -= 1
            if last > at and data[last - 1] >= 128:
                code = _SYNTAX  # maybe Unicode space, which rstrip would remove
            if lines == MAX_LINES:
                code = _LONG
                break
            line_s[lines] = at
            line_e[lines] = last
            lines += 1
            at = stop + 1
        while lines > 0 and line_e[lines - 1] == line_s[lines - 1]:
            lines -= 1
        if code == 0 and lines < 3:
            code = _SYNTAX
        # -- header ----------------------------------------------------------------------
        low = BAD
        high = BAD
        if code == 0:
            low, high, id_start, id_end = _header(data, line_s[0], line_e[0], clock)
            hand_id[h, 0] = id_start
            hand_id[h, 1] = id_end
            if low == BAD or high == BAD:
                code = _FEATURE
        # -- table line ----------------------------------------------------------------------
        button_seat = _button_seat(data, line_s[1], line_e[1]) if code == 0 else -1
        if code == 0 and button_seat < 0:
            code = _FEATURE
        # -- seats ---------------------------------------------------------------------------
        seated = 0
        line = 2
        if code == 0:
            while line < lines and starts_with(data, line_s[line], line_e[line], _SEAT):
                s = line_s[line]
                e = line_e[line]
                at = s + 5
                first = at
                while at < e and is_digit(data[at]):
                    at += 1
                number = digits_value(data, first, at)
                if number < 0 or at + 2 >= e or data[at] != 58 or data[at + 1] != 32:
                    code = _SYNTAX
                    break
                # A line that ends " in chips)" has its amount there, bounty or not; any
                # other may hold a bounty, which is left to Python.
                plain_end = ends_with(data, s, e, _IN_CHIPS)
                if seated == MAX_SEATED or (not plain_end and find(data, s, e, _BOUNTY) >= 0):
                    code = _FEATURE
                    break
                rest = at + 2
                found = -1  # the last " (" followed by an amount " in chips)"
                amount_end = -1
                p = e - 2
                while p > rest:
                    if data[p] == 32 and data[p + 1] == 40:
                        if _foreign_money(data, p + 2, e):
                            code = _FEATURE
                            break
                        shape = _amount_shape(data, p + 2, e)
                        if shape > 0 and starts_with(data, shape, e, _IN_CHIPS):
                            found = p
                            amount_end = shape
                            break
                    p -= 1
                if code != 0:
                    break
                if found < 0:
                    code = _SYNTAX
                    break
                value = money(data, found + 2, amount_end)
                if value == BAD:
                    code = _VALUE
                    break
                for k in range(rest, found):
                    if data[k] == 91 or data[k] == 93:  # names with brackets: Python's
                        code = _FEATURE
                if code != 0:
                    break
                tail = amount_end + _IN_CHIPS.shape[0]
                visible = False
                for k in range(tail, e):
                    visible |= data[k] != 32
                if _name_at(data, rest, found, name_s, name_e, seated) >= 0:
                    code = _VALUE  # a name seated twice
                    break
                for k in range(seated):
                    if numbers[k] == number:
                        code = _VALUE
                if code != 0:
                    break
                name_s[seated] = rest
                name_e[seated] = found
                numbers[seated] = number
                chips[seated] = value
                sitting[seated] = 1 if visible else 0
                posted[seated] = 0
                seated += 1
                line += 1
        # -- forced bets, up to the hole cards ---------------------------------------------
        posts = 0
        largest_ante = 0
        hole_line = -1
        if code == 0:
            for k in range(line, lines):
                if same_line(data, line_s[k], line_e[k], _HOLE_CARDS):
                    hole_line = k
                    break
            if hole_line < 0:
                code = _VALUE  # truncated
        if code == 0:
            for k in range(line, hole_line):
                s = line_s[k]
                e = line_e[k]
                who = _speaker(data, s, e, name_s, name_e, seated)
                rest = s + (name_e[who] - name_s[who]) + 2 if who >= 0 else s
                if who >= 0 and starts_with(data, rest, e, _POSTS):
                    is_all_in = ends_with(data, rest, e, _ALL_IN)
                    body = rest + 6
                    body_end = e - _ALL_IN.shape[0] if is_all_in else e
                    kind, value = _post(data, body, body_end)
                    if kind < 0 or value == BAD or posts == 64:
                        code = _VALUE
                        break
                    post_who[posts] = who
                    post_kind[posts] = kind
                    post_chips[posts] = value
                    post_all_in[posts] = 1 if is_all_in else 0
                    posts += 1
                    posted[who] = 1
                    if kind == _P_ANTE and not is_all_in:
                        largest_ante = max(largest_ante, value)
                    continue
                if ends_with(data, s, e, _IS_SITTING_OUT) or ends_with(data, s, e, _SITS_OUT):
                    cut = e - (
                        _IS_SITTING_OUT.shape[0]
                        if ends_with(data, s, e, _IS_SITTING_OUT)
                        else _SITS_OUT.shape[0]
                    )
                    if cut > s and data[cut - 1] == 58:
                        cut -= 1
                    out = _name_at(data, s, cut, name_s, name_e, seated)
                    if out >= 0:
                        sitting[out] = 1
                if not _notice(data, s, e) or chat_or_cash_out(data, s, e):
                    code = _SYNTAX
                    break
        # -- who is dealt in, the button, the forced bets ------------------------------------
        n = 0
        if code == 0:
            for k in range(seated):
                order[k] = k
            for k in range(1, seated):  # by seat number
                j = k
                while j > 0 and numbers[order[j - 1]] > numbers[order[j]]:
                    order[j - 1], order[j] = order[j], order[j - 1]
                    j -= 1
            record_of[:] = -1
            btn = -1
            for k in range(seated):
                p = order[k]
                if posted[p] or not sitting[p]:
                    record_of[p] = n
                    if numbers[p] <= button_seat:
                        btn = n
                    n += 1
            if btn < 0:
                btn = n - 1
            if n < 2 or n > 10:
                code = _VALUE
        if code == 0:
            base = seat_cursor
            for k in range(seated):
                i = record_of[k]
                if i >= 0:
                    stack[base + i] = chips[k]
                    seat_number[base + i] = numbers[k]
                    name[base + i, 0] = name_s[k]
                    name[base + i, 1] = name_e[k]
                    blind[base + i] = 0
                    dead[base + i] = 0
                    hole[base + i, 0] = -1
                    hole[base + i, 1] = -1
                    winnings[base + i] = 0
            small_seat = btn if n == 2 else (btn + 1) % n
            sb = low
            bb = high
            for k in range(posts):
                i = base + record_of[post_who[k]]
                value = post_chips[k]
                kind = post_kind[k]
                if kind == _P_SMALL:
                    if record_of[post_who[k]] == small_seat:
                        blind[i] += max(value, sb) if post_all_in[k] else value
                    else:
                        dead[i] += value
                elif kind == _P_BIG:
                    blind[i] += max(value, bb) if post_all_in[k] else value
                elif kind == _P_BOTH:
                    live = min(value, bb)
                    blind[i] += live
                    dead[i] += value - live
                elif kind == _P_STRADDLE:
                    blind[i] += value
                else:
                    dead[i] += max(value, largest_ante) if post_all_in[k] else value
        # -- the betting, up to the summary ---------------------------------------------------
        summary_line = -1
        if code == 0:
            for k in range(hole_line + 1, lines):
                if same_line(data, line_s[k], line_e[k], _SUMMARY):
                    summary_line = k
                    break
            if summary_line < 0:
                code = _VALUE
        current_street = 0
        n_board = 0
        collected[:] = 0
        holes[:] = -1
        any_collected = False
        first_action = action_cursor
        if code == 0:
            for k in range(hole_line + 1, summary_line):
                s = line_s[k]
                e = line_e[k]
                if starts_with(data, s, e, _STARS):
                    if same_line(data, s, e, _SHOW_DOWN):
                        continue
                    want = -1
                    head = s
                    if starts_with(data, s, e, _FLOP):
                        want = 1
                        head = s + _FLOP.shape[0]
                    elif starts_with(data, s, e, _TURN):
                        want = 2
                        head = s + _TURN.shape[0]
                    elif starts_with(data, s, e, _RIVER):
                        want = 3
                        head = s + _RIVER.shape[0]
                    if want != current_street + 1:
                        code = _SYNTAX
                        break
                    # [a b c] for the flop; [a b c ...] [x] for the turn and river
                    close = head
                    while close < e and data[close] != 93:
                        close += 1
                    got = _cards(data, head, close, cards)
                    if want == 1:
                        ok = got == 3 and close == e - 1
                    else:
                        ok = got == n_board and close + 6 == e and data[close + 1] == 32
                        ok &= close + 6 == e and data[close + 2] == 91 and data[e - 1] == 93
                        for c in range(max(got, 0)):
                            ok &= cards[c] == dealt[c]
                        if ok:
                            extra = card_at(data, close + 3, e - 1)
                            for c in range(n_board):
                                ok &= dealt[c] != extra
                            cards[0] = extra
                            got = 1 if extra >= 0 else -1
                            ok &= extra >= 0
                    if not ok:
                        code = _SYNTAX
                        break
                    for c in range(got):
                        dealt[n_board + c] = cards[c]
                    n_board += got
                    current_street = want
                    continue
                if starts_with(data, s, e, _DEALT_TO):
                    rest = s + _DEALT_TO.shape[0]
                    who = _name_at(data, rest, e, name_s, name_e, seated)
                    if who >= 0:
                        if record_of[who] < 0:
                            code = _VALUE
                            break
                        continue
                    bracket = e - 8  # " [Ah Kd]"
                    ok = bracket > rest and data[bracket] == 32 and data[bracket + 1] == 91
                    ok &= data[e - 1] == 93
                    who = _name_at(data, rest, bracket, name_s, name_e, seated) if ok else -1
                    got = _cards(data, bracket + 2, e - 1, cards) if who >= 0 else -1
                    if got != 2 or record_of[who] < 0:
                        code = _SYNTAX
                        break
                    holes[record_of[who], 0] = cards[0]
                    holes[record_of[who], 1] = cards[1]
                    continue
                who = _speaker(data, s, e, name_s, name_e, seated)
                if who >= 0:
                    rest = s + (name_e[who] - name_s[who]) + 2
                    is_all_in = ends_with(data, rest, e, _ALL_IN)
                    verb_end = e - _ALL_IN.shape[0] if is_all_in else e
                    kind = -1
                    value = 0
                    if same_line(data, rest, verb_end, _FOLDS) or starts_with(
                        data, rest, verb_end, _FOLDS_CARDS
                    ):
                        kind = 0
                    elif same_line(data, rest, verb_end, _CHECKS):
                        kind = 1
                    elif starts_with(data, rest, verb_end, _CALLS):
                        kind = 1
                        value = money(data, rest + 6, verb_end)
                    elif starts_with(data, rest, verb_end, _BETS):
                        kind = 2
                        value = money(data, rest + 5, verb_end)
                    elif starts_with(data, rest, verb_end, _RAISES):
                        to = find(data, rest + 7, verb_end, _TO)
                        kind = 2
                        value = money(data, to + 4, verb_end) if to >= 0 else BAD
                    elif starts_with(data, rest, verb_end, _SHOWS):
                        if record_of[who] < 0:
                            code = _VALUE
                            break
                        close = rest + 7
                        while close < verb_end and data[close] != 93:
                            close += 1
                        got = _cards(data, rest + 7, close, cards) if close < verb_end else -1
                        if got < 0:
                            code = _VALUE
                            break
                        holes[record_of[who], 0] = cards[0] if got == 2 else -1
                        holes[record_of[who], 1] = cards[1] if got == 2 else -1
                        continue
                    elif (
                        same_line(data, rest, verb_end, _MUCKS_HAND)
                        or same_line(data, rest, verb_end, _NO_SHOW)
                        or starts_with(data, rest, verb_end, _MUCKS_CARDS)
                    ):
                        continue
                    if kind >= 0:
                        if value == BAD or record_of[who] < 0:
                            code = _VALUE
                            break
                        if action_cursor == action_capacity:
                            code = _LONG
                            break
                        street[action_cursor] = current_street
                        player[action_cursor] = record_of[who]
                        move[action_cursor] = kind
                        amount[action_cursor] = value
                        all_in[action_cursor] = 1 if is_all_in else 0
                        action_cursor += 1
                        continue
                if starts_with(data, s, e, _UNCALLED):
                    shape = _amount_shape(data, s + _UNCALLED.shape[0], e)
                    ok = shape > 0 and starts_with(data, shape, e, _RETURNED)
                    who = -1
                    if ok:
                        who = _name_at(data, shape + _RETURNED.shape[0], e, name_s, name_e, seated)
                    if who < 0 or record_of[who] < 0:
                        code = _VALUE
                        break
                    continue
                where, amount_start, amount_end = _collected(data, s, e)
                if where >= 0:
                    who = _name_at(data, s, where, name_s, name_e, seated)
                    value = money(data, amount_start, amount_end)
                    if who < 0 or record_of[who] < 0 or value == BAD:
                        code = _VALUE
                        break
                    collected[record_of[who]] += value
                    any_collected = True
                    continue
                if not _notice(data, s, e) or chat_or_cash_out(data, s, e):
                    code = _SYNTAX
                    break
        # -- the summary ----------------------------------------------------------------------
        total = -1
        fees = 0
        board_line = False
        summarized[:] = 0
        if code == 0:
            for k in range(summary_line + 1, lines):
                s = line_s[k]
                e = line_e[k]
                if starts_with(data, s, e, _TOTAL_POT):
                    at = s + _TOTAL_POT.shape[0]
                    stop = at
                    while stop < e and data[stop] != 32:
                        stop += 1
                    total = money(data, at, stop)
                    bar = find(data, stop, e, _BAR)
                    pots_end = bar if bar >= 0 else e
                    ok = total != BAD and _pot_list(data, stop, pots_end)
                    fees = 0
                    while ok and bar >= 0:
                        next_bar = find(data, bar + 3, e, _BAR)
                        part_end = next_bar if next_bar >= 0 else e
                        space = part_end
                        while space > bar + 3 and data[space - 1] != 32:
                            space -= 1
                        fee = money(data, space, part_end)
                        ok = fee != BAD
                        fees += fee
                        bar = next_bar
                    if not ok:
                        code = _VALUE
                        break
                elif starts_with(data, s, e, _BOARD):
                    got = _cards(data, s + 7, e - 1, summary_board) if data[e - 1] == 93 else -1
                    if got < 0:
                        code = _VALUE
                        break
                    ok = got == n_board
                    for c in range(max(got, 0)):
                        ok &= summary_board[c] == dealt[c]
                    if not ok:
                        code = _VALUE
                        break
                    board_line = True
                elif starts_with(data, s, e, _SEAT):
                    at = s + 5
                    colon = find(data, at, e, _COLON_SPACE)
                    number = digits_value(data, at, colon) if colon > at else -1
                    who = -1
                    for q in range(seated):
                        if numbers[q] == number:
                            who = q
                    if who < 0:
                        code = _VALUE
                        break
                    summarized[who] = 1
                    shown = _shown_at(data, colon + 2, e)
                    if shown >= 0 and record_of[who] >= 0:
                        close = shown
                        while close < e and data[close] != 93:
                            close += 1
                        got = _cards(data, shown, close, cards) if close < e else -1
                        if got < 0:
                            code = _VALUE
                            break
                        if got == 2:
                            holes[record_of[who], 0] = cards[0]
                            holes[record_of[who], 1] = cards[1]
                else:
                    code = _FEATURE  # run twice, cash-outs, or not a summary line
                    break
        if code == 0:
            if total < 0 or (n_board > 0 and not board_line) or not any_collected:
                code = _VALUE
            for k in range(seated):
                if record_of[k] >= 0 and not summarized[k]:
                    code = _VALUE
        status[h] = code
        if code != 0:
            action_cursor = first_action
            seat_start[h + 1] = seat_cursor
            action_start[h + 1] = action_cursor
            continue
        button[h] = btn
        small_blind[h] = sb
        big_blind[h] = bb
        lowest = dead[seat_cursor]
        for i in range(n):
            lowest = min(lowest, dead[seat_cursor + i])
            hole[seat_cursor + i, 0] = holes[i, 0]
            hole[seat_cursor + i, 1] = holes[i, 1]
            winnings[seat_cursor + i] = collected[i]
        ante[h] = lowest
        for c in range(n_board):
            board[h, c] = dealt[c]
        board_size[h] = n_board
        total_pot[h] = total
        rake[h] = fees
        seat_cursor += n
        seat_start[h + 1] = seat_cursor
        action_start[h + 1] = action_cursor
    return (
        status,
        seat_start,
        action_start,
        button,
        small_blind,
        big_blind,
        ante,
        board,
        board_size,
        total_pot,
        rake,
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


_COLON_SPACE = word(": ")


@nb.njit(cache=True, nogil=True, inline="always")
def same_line(data: UInt8s, start: int, end: int, text: UInt8s) -> bool:
    """Whether ``data[start:end]`` is exactly ``text``."""
    return end - start == text.shape[0] and same_as(data, start, text)


@nb.njit(cache=True, nogil=True)
def chat_or_cash_out(data: UInt8s, start: int, end: int) -> bool:
    """Chat and All-in Cash Out lines: the Python reader keeps those (or skips them)."""
    if end > start and data[end - 1] == 34 and find(data, start, end, _SAID) >= 0:
        return True
    return find(data, start, end, _CASHOUT) >= 0 or find(data, start, end, _CASHED) >= 0


_CASHOUT = word("Cashout")
_CASHED = word(" cashed out the hand for ")


@nb.njit(cache=True, nogil=True)
def _collected(data: UInt8s, start: int, end: int) -> tuple[int, int, int]:
    """(where `` collected `` starts, amount start, amount end) of a line
    ``NAME collected AMOUNT from POT`` (POT: ``pot``, ``main pot``, ``side pot`` or
    ``side pot-N``), or (-1, 0, 0)."""
    tail = end
    while tail > start and is_digit(data[tail - 1]):
        tail -= 1
    amount_end = -1
    if tail < end and tail > start and data[tail - 1] == 45:  # side pot-N
        if ends_with(data, start, tail - 1, _FROM_SIDE_POT):
            amount_end = tail - 1 - _FROM_SIDE_POT.shape[0]
    elif ends_with(data, start, end, _FROM_POT):
        amount_end = end - _FROM_POT.shape[0]
    elif ends_with(data, start, end, _FROM_MAIN_POT):
        amount_end = end - _FROM_MAIN_POT.shape[0]
    elif ends_with(data, start, end, _FROM_SIDE_POT):
        amount_end = end - _FROM_SIDE_POT.shape[0]
    if amount_end < 0:
        return -1, 0, 0
    first = amount_end
    while first > start and data[first - 1] != 32:
        first -= 1
    where = first - _COLLECTED.shape[0]
    if _amount_shape(data, first, amount_end) != amount_end or where <= start:
        return -1, 0, 0
    if not same_as(data, where, _COLLECTED):
        return -1, 0, 0
    return where, first, amount_end


_FROM_POT = word(" from pot")
_FROM_MAIN_POT = word(" from main pot")
_FROM_SIDE_POT = word(" from side pot")


@nb.njit(cache=True, nogil=True)
def _post(data: UInt8s, body: int, end: int) -> tuple[int, int]:
    """(kind, chips) of a post ``KIND AMOUNT`` (KIND all but the last word), or (-1, BAD)."""
    last = end
    while last > body and data[last - 1] != 32:
        last -= 1
    kind = -1
    size = last - body
    if size == _SMALL_BLIND.shape[0] and same_as(data, body, _SMALL_BLIND):
        kind = _P_SMALL
    elif size == _BIG_BLIND.shape[0] and same_as(data, body, _BIG_BLIND):
        kind = _P_BIG
    elif size == _BOTH_BLINDS.shape[0] and same_as(data, body, _BOTH_BLINDS):
        kind = _P_BOTH
    elif size == _STRADDLE.shape[0] and same_as(data, body, _STRADDLE):
        kind = _P_STRADDLE
    elif size == _THE_ANTE.shape[0] and same_as(data, body, _THE_ANTE):
        kind = _P_ANTE
    if kind < 0:
        return -1, BAD
    return kind, money(data, last, end)


@nb.njit(cache=True, nogil=True)
def _button_seat(data: UInt8s, start: int, end: int) -> int:
    """The button's seat in ``Table 'NAME' 9-max Seat #4 is the button`` or ``Table 'NAME'
    Seat #4 is the button`` (the name is the longest that fits, as the regex's ``(.*)``),
    or -1 (play money included)."""
    if not (starts_with(data, start, end, _TABLE) and ends_with(data, start, end, _IS_BUTTON)):
        return -1
    stop = end - _IS_BUTTON.shape[0]
    at = stop
    while at > start and is_digit(data[at - 1]):
        at -= 1
    seat = digits_value(data, at, stop)
    if seat < 0:
        return -1
    # ``' Seat #``: a table line without its size
    if at - _NO_SIZE.shape[0] > start + _TABLE.shape[0] - 1 and same_as(
        data, at - _NO_SIZE.shape[0], _NO_SIZE
    ):
        return seat
    at -= _SEAT_HASH.shape[0]
    if at <= start or not same_as(data, at, _SEAT_HASH):
        return -1
    digits_end = at
    while at > start and is_digit(data[at - 1]):
        at -= 1
    if at == digits_end or at - 2 < start + _TABLE.shape[0]:
        return -1
    if data[at - 1] != 32 or data[at - 2] != 39:
        return -1
    return seat


@nb.njit(cache=True, nogil=True)
def _header(data: UInt8s, start: int, end: int, fields: Int64s) -> tuple[int, int, int, int]:
    """(small blind, big blind, hand id start, hand id end) of a header line
    ``PokerStars [Zoom ]Hand #ID:  Hold'em No Limit ($0.10/$0.25 USD) - 2009/07/01 0:01:46
    ET [2009/06/30 20:01:46 ET]``, the blinds :data:`BAD` when the line is not in that
    shape, or its date not a real one."""
    fail = (BAD, BAD, 0, 0)
    if not starts_with_folded(data, start, end, _POKERSTARS):
        return fail
    at = start + _POKERSTARS.shape[0]
    if starts_with_folded(data, at, end, _ZOOM):
        at += _ZOOM.shape[0]
    if not (starts_with_folded(data, at, end, _HAND) or starts_with_folded(data, at, end, _GAME)):
        return fail
    at += _HAND.shape[0]
    id_start = at
    while at < end and is_digit(data[at]):
        at += 1
    id_end = at
    if id_end == id_start or at + 1 >= end or data[at] != 58 or data[at + 1] != 32:
        return fail
    at += 1
    while at < end and data[at] == 32:
        at += 1
    if not starts_with_folded(data, at, end, _HOLDEM_NL):
        return fail
    at += _HOLDEM_NL.shape[0]
    close = at  # the stakes: ``$LOW/$HIGH[ CODE]`` up to the closing parenthesis
    while close < end and data[close] != 41 and data[close] != 40:
        close += 1
    if close == end or data[close] != 41 or not starts_with(data, close, end, _DASH):
        return fail
    space = at
    while space < close and data[space] != 32:
        space += 1
    slash = at
    while slash < space and data[slash] != 47:
        slash += 1
    if slash == space or data[at] != 36:
        return fail
    if space < close:  # `` CODE``: letters only (a cap, ``- $120 Cap - USD``, is Python's)
        if space + 1 == close:
            return fail
        for k in range(space + 1, close):
            if not (65 <= data[k] <= 90 or 97 <= data[k] <= 122):
                return fail
    low = money(data, at, slash)
    high = money(data, slash + 1, space)
    at = close + _DASH.shape[0]
    # YYYY/M/D H:MM:SS
    year = digits_value(data, at, at + 4) if at + 4 <= end else -1
    at += 4
    if year < 0 or at >= end or data[at] != 47:
        return fail
    for f in range(5):
        at += 1
        first = at
        while at < end and is_digit(data[at]) and at - first < 2:
            at += 1
        width = at - first
        if not (width == 2 or (width == 1 and f < 3)):
            return fail
        fields[f] = digits_value(data, first, at)
        if f == 1 and at + 3 < end and data[at] == 32 and data[at + 1] == 45 and data[at + 2] == 32:
            at += 2  # the older ``2009/10/12 - 23:45:12``
        if f < 4 and (at >= end or data[at] != (47, 32, 58, 58)[f]):
            return fail
    if not valid_date(year, fields[0], fields[1], fields[2], fields[3], fields[4]):
        return fail
    if at < end:  # `` ZONE`` or `` (ZONE)``, then `` [...]``, each optional
        if data[at] != 32:
            return fail
        at += 1
        bracketed = at < end and data[at] == 40
        if bracketed:
            at += 1
        zone = at
        while at < end and (65 <= data[at] <= 90 or 97 <= data[at] <= 122):
            at += 1
        if bracketed:
            if at == zone or at >= end or data[at] != 41:
                return fail
            at += 1
            zone = at - 1  # the zone was there: a bracket may follow, or nothing
        if at > zone and at < end:
            if data[at] != 32:
                return fail
            at += 1
        if at < end and (data[at] != 91 or data[end - 1] != 93):
            return fail
        if at == end and at == zone:
            return fail
    return low, high, id_start, id_end


@nb.njit(cache=True, nogil=True)
def _pot_list(data: UInt8s, start: int, end: int) -> bool:
    """The optional `` Main pot $A. Side pot-1 $B.`` part of the total pot line."""
    if start == end:
        return True
    at = start
    count = 0
    while at < end:
        if data[at] != 32:
            return False
        at += 1
        if starts_with(data, at, end, _MAIN_POT_CAP):
            at += _MAIN_POT_CAP.shape[0]
        elif starts_with(data, at, end, _SIDE_POT_CAP):
            at += _SIDE_POT_CAP.shape[0]
            if at < end and data[at] == 45:  # -N
                at += 1
                first = at
                while at < end and is_digit(data[at]):
                    at += 1
                if at == first:
                    return False
            if at >= end or data[at] != 32:
                return False
            at += 1
        else:
            return False
        stop = at
        while stop < end and data[stop] != 32:
            stop += 1
        if stop - at < 2 or data[stop - 1] != 46:  # the amount ends with a full stop
            return False
        if money(data, at, stop - 1) == BAD:
            return False
        at = stop
        count += 1
    return count > 0


@nb.njit(cache=True, nogil=True)
def _shown_at(data: UInt8s, start: int, end: int) -> int:
    """Where the cards of the first ``showed [`` or ``mucked [`` start, or -1."""
    bracket = start
    while bracket < end and data[bracket] != 91:  # [: most summary lines have none
        bracket += 1
    if bracket == end:
        return -1
    showed = find(data, start, end, _SHOWED)
    mucked = find(data, start, end, _MUCKED)
    if showed < 0 and mucked < 0:
        return -1
    first = showed if mucked < 0 or (0 <= showed < mucked) else mucked
    return first + 8


def read_pokerstars(block: Block, lo: int, hi: int) -> tuple[HandArrays, Int8s]:
    """Hands ``lo:hi`` of the block as arrays, and each hand's status (0: read here; else a
    key of :data:`FALLBACK_REASONS`, and the hand has no seats or actions)."""
    data = block.data
    start = block.start[lo:hi]
    end = block.end[lo:hi]
    first_line = block.first_line[lo:hi]
    hands = hi - lo
    lines = int(first_line[-1] - first_line[0]) + 1 if hands else 0
    capacity = lines + MAX_LINES  # lines: an upper bound on actions
    (
        status,
        seat_start,
        action_start,
        button,
        small_blind,
        big_blind,
        ante,
        board,
        board_size,
        total_pot,
        rake,
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
    ) = _read_hands(data, block.newlines, start, end, first_line, block.tainted[lo:hi], capacity)
    return (
        HandArrays(
            seat_start=seat_start,
            action_start=action_start,
            button=button,
            small_blind=small_blind,
            big_blind=big_blind,
            fixed_limit=np.zeros(hands, dtype=np.int8),
            limit_bets=np.zeros((hands, 2), dtype=np.int64),
            ante=ante,
            board=board,
            board_size=board_size,
            total_pot=total_pot,
            rake=rake,
            has_winnings=(status == 0).astype(np.int8),
            needs_reference=np.zeros(hands, dtype=np.int8),
            warning=np.full(hands, -1, dtype=np.int8),
            site=_sites(hands),
            hand_id=strings(data, hand_id),
            stack=stack,
            blind=blind,
            dead=dead,
            hole=hole,
            seat_number=seat_number,
            name=strings(data, name),
            winnings=winnings,
            street=street,
            player=player,
            move=move,
            amount=amount,
            all_in=all_in,
        ),
        status,
    )


def _sites(hands: int) -> pa.Array:
    return pa.array([SITE] * hands, pa.string())
