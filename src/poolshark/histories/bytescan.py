"""Compiled helpers for reading hand histories as bytes: amounts, cards, words, lines.

The fast readers (``fast_split``, ``fast_phh``, ``fast_pokerstars``) work on a uint8 view of
many hands at once. These small functions are inlined into them; each returns a failure
value instead of raising, because a fast reader that meets anything unusual hands the
hand back to the plain Python reader (never a guess). Every index is bounds-checked by
hand, since compiled code does not check them.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt
import pyarrow as pa

UInt8s = npt.NDArray[np.uint8]

BAD = -(2**62)
"""What the amount readers return for text that is not a plain amount."""


def _card_table() -> npt.NDArray[np.int16]:
    """``table[rank byte, suit byte]``: the card (4 * rank + suit), -1 when not a card."""
    table = np.full((128, 128), -1, dtype=np.int16)
    for rank, r in enumerate(b"23456789TJQKA"):
        for suit, s in enumerate(b"cdhs"):
            table[r, s] = 4 * rank + suit
    return table


CARD_OF = _card_table()


@nb.njit(cache=True, nogil=True, inline="always")
def is_digit(byte: int) -> bool:
    return 48 <= byte <= 57


@nb.njit(cache=True, nogil=True, inline="always")
def card_at(data: UInt8s, at: int, end: int) -> int:
    """The card written at ``data[at:at + 2]`` (``Ah``), or -1."""
    if at + 2 > end:
        return -1
    rank = data[at]
    suit = data[at + 1]
    if rank >= 128 or suit >= 128:
        return -1
    return int(CARD_OF[rank, suit])


@nb.njit(cache=True, nogil=True, inline="always")
def starts_with(data: UInt8s, at: int, end: int, word: UInt8s) -> bool:
    """Whether ``data[at:end]`` starts with ``word``."""
    size = word.shape[0]
    if at + size > end:
        return False
    return same_as(data, at, word)


@nb.njit(cache=True, nogil=True, inline="always")
def ends_with(data: UInt8s, start: int, end: int, word: UInt8s) -> bool:
    """Whether ``data[start:end]`` ends with ``word``."""
    size = word.shape[0]
    if end - size < start:
        return False
    return same_as(data, end - size, word)


@nb.njit(cache=True, nogil=True, inline="always")
def same_as(data: UInt8s, at: int, word: UInt8s) -> bool:
    """Whether ``data[at:at + len(word)] == word`` (the caller checked the length)."""
    differ = False
    for i in range(word.shape[0]):
        differ |= data[at + i] != word[i]
    return not differ


@nb.njit(cache=True, nogil=True, inline="always")
def starts_with_folded(data: UInt8s, at: int, end: int, word: UInt8s) -> bool:
    """Whether ``data[at:end]`` starts with ``word`` (lower case) in any case: its letters
    match a letter of either case, its other bytes themselves."""
    size = word.shape[0]
    if at + size > end:
        return False
    for i in range(size):
        byte = data[at + i]
        want = word[i]
        if 97 <= want <= 122:
            if not (byte == want or byte == want - 32):
                return False
        elif byte != want:
            return False
    return True


@nb.njit(cache=True, nogil=True, inline="always")
def same_bytes(data: UInt8s, a: int, b: int, size: int) -> bool:
    """Whether ``data[a:a + size] == data[b:b + size]``."""
    differ = False
    for i in range(size):
        differ |= data[a + i] != data[b + i]
    return not differ


@nb.njit(cache=True, nogil=True, inline="always")
def find(data: UInt8s, at: int, end: int, word: UInt8s) -> int:
    """The first position of ``word`` in ``data[at:end]``, or -1."""
    size = word.shape[0]
    first = word[0]
    for i in range(at, end - size + 1):
        if data[i] == first:
            match = True
            for k in range(1, size):
                if data[i + k] != word[k]:
                    match = False
                    break
            if match:
                return i
    return -1


@nb.njit(cache=True, nogil=True)
def phh_amount(data: UInt8s, start: int, end: int) -> int:
    """Chips of 0.01 in a TOML decimal ``-?(0|[1-9][0-9]*)(\\.[0-9]+)?`` with at most two
    decimals (``0.10`` -> 10, ``-1`` -> -100), or :data:`BAD` (anything else, finer units
    included: the Python reader handles those)."""
    at = start
    negative = at < end and data[at] == 45  # -
    if negative:
        at += 1
    if at >= end or not is_digit(data[at]):
        return BAD
    if data[at] == 48 and at + 1 < end and is_digit(data[at + 1]):
        return BAD  # a leading zero is not TOML
    whole = 0
    digits = 0
    while at < end and is_digit(data[at]):
        whole = whole * 10 + (data[at] - 48)
        digits += 1
        at += 1
    if digits > 15:
        return BAD
    cents = whole * 100
    if at < end:
        if data[at] != 46 or at + 1 >= end or end - at - 1 > 2:  # . and 1-2 decimals
            return BAD
        scale = 10
        for i in range(at + 1, end):
            if not is_digit(data[i]):
                return BAD
            cents += (data[i] - 48) * scale
            scale //= 10
    return -cents if negative else cents


@nb.njit(cache=True, nogil=True)
def money(data: UInt8s, start: int, end: int) -> int:
    """Cents in a PokerStars amount such as ``$1,234.50``, ``$0.10`` or ``25`` (a dollar
    sign or none, digits with commas, at most two decimals), or :data:`BAD`."""
    at = start
    if at < end and data[at] == 36:  # $
        at += 1
    whole = 0
    digits = 0
    while at < end and (is_digit(data[at]) or data[at] == 44):  # digits and commas
        if data[at] != 44:
            whole = whole * 10 + (data[at] - 48)
            digits += 1
        at += 1
    if digits == 0 or digits > 15:
        return BAD
    cents = whole * 100
    if at < end:
        if data[at] != 46 or at + 1 >= end or end - at - 1 > 2:
            return BAD
        scale = 10
        for i in range(at + 1, end):
            if not is_digit(data[i]):
                return BAD
            cents += (data[i] - 48) * scale
            scale //= 10
    return cents


@nb.njit(cache=True, nogil=True)
def whole_number(data: UInt8s, start: int, end: int) -> int:
    """A TOML integer without sign (``0`` or ``[1-9][0-9]*``, at most 15 digits), or -1."""
    if start >= end or end - start > 15:
        return -1
    if data[start] == 48 and end - start > 1:
        return -1
    value = 0
    for i in range(start, end):
        if not is_digit(data[i]):
            return -1
        value = value * 10 + (data[i] - 48)
    return value


@nb.njit(cache=True, nogil=True)
def digits_value(data: UInt8s, start: int, end: int) -> int:
    """ASCII digits (leading zeros allowed, at most 15) as a number, or -1."""
    if start >= end or end - start > 15:
        return -1
    value = 0
    for i in range(start, end):
        if not is_digit(data[i]):
            return -1
        value = value * 10 + (data[i] - 48)
    return value


@nb.njit(cache=True, nogil=True)
def valid_date(year: int, month: int, day: int, hour: int, minute: int, second: int) -> bool:
    """Whether Python's ``datetime`` accepts these (years 1-9999, real days, 24-hour clock)."""
    if not (1 <= year <= 9999 and 1 <= month <= 12 and day >= 1):
        return False
    if not (0 <= hour <= 23 and 0 <= minute <= 59 and 0 <= second <= 59):
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]
    return day <= days


def word(text: str) -> UInt8s:
    """A constant byte string for the compiled matchers."""
    return np.frombuffer(text.encode(), dtype=np.uint8).copy()


@nb.njit(cache=True, nogil=True)
def gather(data: UInt8s, ranges: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int32], UInt8s]:
    """The byte ranges ``data[ranges[i, 0]:ranges[i, 1]]`` laid end to end: (offsets,
    bytes), the buffers of an Arrow string array."""
    count = ranges.shape[0]
    offsets = np.zeros(count + 1, np.int32)
    total = 0
    for i in range(count):
        total += ranges[i, 1] - ranges[i, 0]
        offsets[i + 1] = total
    out = np.empty(total, np.uint8)
    at = 0
    for i in range(count):
        for k in range(ranges[i, 0], ranges[i, 1]):
            out[at] = data[k]
            at += 1
    return offsets, out


def strings(data: UInt8s, ranges: npt.NDArray[np.int64]) -> pa.Array:
    """The byte ranges of ``data`` (valid UTF-8) as an Arrow string array."""
    offsets, values = gather(data, ranges)
    return pa.StringArray.from_buffers(ranges.shape[0], pa.py_buffer(offsets), pa.py_buffer(values))
