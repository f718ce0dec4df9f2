"""Compiled rank arithmetic under the compiled card features: :mod:`card_ranks` on bit sets.

A set of ranks is an int with bit ``r`` for rank ``r`` (deuce 0 .. ace 12). The straight
windows, straight outs, draw hands over the 91 hole-rank pairs, the rank-only hand key and
the "higher hands possible" counts are the readable module's, computed without caches in
numba (``tests/test_limitnet_card_features_compiled.py`` compares the features they make).
Feature slots are named tuples of positions (:func:`slots`), so compiled code writes a
feature by name.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.hand_value import Category
from poolshark.limitnet.card_ranks import RANK_PAIRS, WINDOWS, window_top
from poolshark.limitnet.card_schema import CardFeature

Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

WINDOW_MASKS = np.array([sum(1 << r for r in w) for w in WINDOWS], dtype=np.int64)
"""The ten straight windows as rank bit sets, in :data:`card_ranks.WINDOWS` order."""
WINDOW_TOPS = np.array([window_top(w) for w in WINDOWS], dtype=np.int64)
"""Each window's top rank (the wheel's is 3)."""
POPCOUNT = np.array([bin(m).count("1") for m in range(1 << 13)], dtype=np.int64)
"""Ranks in each 13-bit rank set."""
PAIR_LOW = np.array([a for a, _ in RANK_PAIRS], dtype=np.int64)
"""The lower rank of each of the 91 hole-rank pairs (:data:`card_ranks.RANK_PAIRS`)."""
PAIR_HIGH = np.array([b for _, b in RANK_PAIRS], dtype=np.int64)
"""The higher (or equal) rank of each pair."""
PAIR_INDEX = np.full((13, 13), -1, dtype=np.int64)
"""Position of the rank pair (low, high) in :data:`card_ranks.RANK_PAIRS`."""
for _k, (_a, _b) in enumerate(RANK_PAIRS):
    PAIR_INDEX[_a, _b] = _k
PAIRS = len(RANK_PAIRS)
QUADS = int(Category.QUADS)
FULL_HOUSE = int(Category.FULL_HOUSE)
STRAIGHT = int(Category.STRAIGHT)
TRIPS = int(Category.TRIPS)
TWO_PAIR = int(Category.TWO_PAIR)
PAIR = int(Category.PAIR)
HIGH_CARD = int(Category.HIGH_CARD)
KEY_BASE = 13**5
"""A rank key is ``category * KEY_BASE`` plus its tie-break ranks as base-13 digits."""


def slots(
    typename: str, features: tuple[CardFeature, ...], prefix: str = "", fields: tuple[str, ...] = ()
) -> Any:
    """A named tuple of feature positions for compiled code: every feature of ``features``
    by name, or (with ``fields``) ``prefix + field`` for each field, -1 where the list lacks
    it (:func:`put` skips those)."""
    index = {f.name: i for i, f in enumerate(features)}
    names = fields or tuple(index)
    positions = {name: index.get(prefix + name, -1) for name in names}
    return namedtuple(typename, names)(**positions)


@nb.njit(inline="always")
def put(out: npt.NDArray[np.float64], slot: int, value: float) -> None:
    """Write a feature at ``slot`` (nothing when the list lacks it, slot -1)."""
    if slot >= 0:
        out[slot] = value


@nb.njit(inline="always")
def flag(condition: bool) -> float:
    """A yes/no feature: 1.0 or 0.0."""
    return 1.0 if condition else 0.0


@nb.njit(inline="always")
def rank_value(rank: int) -> float:
    """A rank as a feature, ``(rank + 1) / 13`` (:func:`card_ranks.rank_value`)."""
    return (rank + 1) / 13


@nb.njit(inline="always")
def bit(rank: int) -> int:
    """The rank set holding ``rank`` alone."""
    return 1 << rank


@nb.njit(inline="always")
def has(ranks: int, rank: int) -> bool:
    """Whether the rank set holds ``rank``."""
    return (ranks >> rank) & 1 == 1


@nb.njit(cache=True, nogil=True)
def best_straight(board: int, hole: int) -> tuple[int, int]:
    """(top rank, hole ranks needed) of the best straight using a hole rank, (-1, 0) if
    none (:func:`card_ranks.best_straight`)."""
    top, needed = -1, 0
    for w in range(10):
        missing = WINDOW_MASKS[w] & ~board
        if missing and (missing & ~hole) == 0 and WINDOW_TOPS[w] > top:
            top, needed = WINDOW_TOPS[w], POPCOUNT[missing]
    return top, needed


@nb.njit(cache=True, nogil=True)
def straight_outs(board: int, hole: int) -> int:
    """Ranks whose arrival gives a better straight using a hole rank than now.

    One pass over the windows instead of the reference's window pass per rank: a rank
    ``r`` off the board makes a window above the current best usable exactly when the
    window's only missing rank outside the hole is ``r`` and it still needs a hole rank.
    """
    now = best_straight(board, hole)[0]
    outs = 0
    for w in range(10):
        missing = WINDOW_MASKS[w] & ~board
        outside = missing & ~hole
        if WINDOW_TOPS[w] > now and POPCOUNT[outside] == 1 and missing & hole:
            outs |= outside
    return outs


@nb.njit(cache=True, nogil=True)
def gaps(board: int, missing: int) -> int:
    """Straight windows short of exactly ``missing`` ranks on ``board``."""
    count = 0
    for w in range(10):
        count += POPCOUNT[WINDOW_MASKS[w] & ~board] == missing
    return count


@nb.njit(cache=True, nogil=True)
def higher_straights(board: int, top: int, missing: int) -> int:
    """Windows above ``top`` short of exactly ``missing`` ranks on ``board``."""
    count = 0
    for w in range(10):
        count += POPCOUNT[WINDOW_MASKS[w] & ~board] == missing and WINDOW_TOPS[w] > top
    return count


@nb.njit(cache=True, nogil=True)
def one_gap_outs(board: int) -> int:
    """Ranks whose arrival leaves a straight window one rank short on the board."""
    outs = 0
    for r in range(13):
        if not has(board, r) and gaps(board | bit(r), 1) > 0:
            outs |= bit(r)
    return outs


@nb.njit(cache=True, nogil=True)
def draw_hands(board: int) -> tuple[Bools, Bools, Int64s]:
    """(single, double, outs) over the 91 rank pairs on ``board``: no straight and one, or
    two or more, straight outs; and every pair's straight outs."""
    single = np.zeros(PAIRS, dtype=np.bool_)
    double = np.zeros(PAIRS, dtype=np.bool_)
    outs = np.zeros(PAIRS, dtype=np.int64)
    for k in range(PAIRS):
        hole = bit(PAIR_LOW[k]) | bit(PAIR_HIGH[k])
        outs[k] = straight_outs(board, hole)
        if best_straight(board, hole)[0] >= 0:
            continue
        n = POPCOUNT[outs[k]]
        single[k] = n == 1
        double[k] = n >= 2
    return single, double, outs


@nb.njit(cache=True, nogil=True)
def sharing_hands(hands: Bools, outs: Int64s, ranks: int, mine: int) -> int:
    """Hands (other than pair ``mine``) whose straight outs meet ``ranks``."""
    count = 0
    for k in range(PAIRS):
        if hands[k] and k != mine and outs[k] & ranks:
            count += 1
    return count


@nb.njit(cache=True, nogil=True)
def count_in(hands: Bools) -> int:
    """How many of the 91 pairs ``hands`` holds."""
    count = 0
    for k in range(PAIRS):
        count += hands[k]
    return count


@nb.njit(cache=True, nogil=True)
def completing(hands: Bools, outs: Int64s, rank: int) -> int:
    """Hands among ``hands`` that ``rank`` completes (one of their straight outs)."""
    count = 0
    for k in range(PAIRS):
        if hands[k] and has(outs[k], rank):
            count += 1
    return count


@nb.njit(cache=True, nogil=True)
def rank_key(counts: Int64s) -> int:
    """The best non-flush hand of 5 to 7 ranks given as 13 counts, as one comparable int
    (:func:`hand_value.best_counts_key`: category, then tie-break ranks)."""
    quad = trip = trip2 = pair1 = pair2 = -1
    for r in range(12, -1, -1):
        c = counts[r]
        if c == 4 and quad < 0:
            quad = r
        elif c == 3:
            if trip < 0:
                trip = r
            elif trip2 < 0:
                trip2 = r
        elif c == 2:
            if pair1 < 0:
                pair1 = r
            elif pair2 < 0:
                pair2 = r
    digits = np.full(5, 0, dtype=np.int64)
    if quad >= 0:
        category = QUADS
        digits[0] = quad
        digits[1] = _kickers(counts, bit(quad), digits, 1, 1)
    elif trip >= 0 and (trip2 >= 0 or pair1 >= 0):
        category = FULL_HOUSE
        digits[0] = trip
        digits[1] = max(trip2, pair1)
    else:
        present = 0
        for r in range(13):
            if counts[r]:
                present |= bit(r)
        top = -1
        for w in range(10):
            if (WINDOW_MASKS[w] & present) == WINDOW_MASKS[w] and WINDOW_TOPS[w] > top:
                top = WINDOW_TOPS[w]
        if top >= 0:
            category = STRAIGHT
            digits[0] = top
        elif trip >= 0:
            category = TRIPS
            digits[0] = trip
            _kickers(counts, bit(trip), digits, 1, 2)
        elif pair2 >= 0:
            category = TWO_PAIR
            digits[0], digits[1] = pair1, pair2
            _kickers(counts, bit(pair1) | bit(pair2), digits, 2, 1)
        elif pair1 >= 0:
            category = PAIR
            digits[0] = pair1
            _kickers(counts, bit(pair1), digits, 1, 3)
        else:
            category = HIGH_CARD
            _kickers(counts, 0, digits, 0, 5)
    key = category
    for d in range(5):
        key = key * 13 + digits[d]
    return key


@nb.njit(inline="always")
def _kickers(counts: Int64s, exclude: int, digits: Int64s, start: int, n: int) -> int:
    """Fill ``digits[start:start + n]`` with the highest ranks held outside ``exclude``;
    returns the first of them."""
    d = start
    for r in range(12, -1, -1):
        if d == start + n:
            break
        if counts[r] and not has(exclude, r):
            digits[d] = r
            d += 1
    return int(digits[start])


@nb.njit(inline="always")
def key_category(key: int) -> int:
    """The category of a :func:`rank_key`."""
    return key // KEY_BASE


@nb.njit(cache=True, nogil=True)
def better_pair_hands(board: Int64s, hi: int, lo: int, category: int) -> tuple[int, int]:
    """(pocket pairs, unpaired rank pairs) an opponent could hold that make a ``category``
    hand on the ``board`` ranks beating my rank-only hand (:func:`card_ranks.better_pair_hands`)."""
    counts = np.zeros(13, dtype=np.int64)
    for r in board:
        counts[r] += 1
    counts[hi] += 1
    counts[lo] += 1
    mine = rank_key(counts)
    left = 4 - counts
    counts[hi] -= 1
    counts[lo] -= 1
    pocket = unpaired = 0
    for k in range(PAIRS):
        a, b = PAIR_LOW[k], PAIR_HIGH[k]
        if (a == b and left[a] < 2) or left[a] < 1 or left[b] < 1:
            continue
        counts[a] += 1
        counts[b] += 1
        theirs = rank_key(counts)
        counts[a] -= 1
        counts[b] -= 1
        if key_category(theirs) == category and theirs > mine:
            if a == b:
                pocket += 1
            else:
                unpaired += 1
    return pocket, unpaired


@nb.njit(cache=True, nogil=True)
def suit_counts(cards: Int64s) -> Int64s:
    """Cards of each suit."""
    counts = np.zeros(4, dtype=np.int64)
    for c in cards:
        counts[c % 4] += 1
    return counts


@nb.njit(cache=True, nogil=True)
def higher_in_suit(suit: int, hole: Int64s, board: Int64s) -> int:
    """Ranks of ``suit`` above my best hole card of it, on neither the board nor my hand."""
    best = -1
    seen = 0
    for c in hole:
        if c % 4 == suit:
            best = max(best, c // 4)
            seen |= bit(c // 4)
    for c in board:
        if c % 4 == suit:
            seen |= bit(c // 4)
    count = 0
    for r in range(best + 1, 13):
        count += not has(seen, r)
    return count


@nb.njit(inline="always")
def in_suit(hole: Int64s, suit: int) -> int:
    """Hole cards of ``suit``."""
    return int(hole[0] % 4 == suit) + int(hole[1] % 4 == suit)


@nb.njit(inline="always")
def first_index(counts: Int64s, value: int) -> int:
    """The first position of ``value`` in ``counts`` (-1 if absent)."""
    for i in range(counts.size):
        if counts[i] == value:
            return i
    return -1


@nb.njit(inline="always")
def rank_set(cards: Int64s) -> int:
    """The set of the cards' ranks."""
    ranks = 0
    for c in cards:
        ranks |= bit(c // 4)
    return ranks


@nb.njit(inline="always")
def sorted_ranks(cards: Int64s) -> Int64s:
    """The cards' ranks, highest first."""
    ranks = np.sort(cards // 4)[::-1].copy()
    return ranks


@nb.njit(cache=True, nogil=True)
def rank_groups(ranks: Int64s) -> tuple[Int64s, Int64s, int]:
    """(counts, ranks, how many) of the rank groups, by count then rank, highest first."""
    counts = np.zeros(13, dtype=np.int64)
    for r in ranks:
        counts[r] += 1
    sizes = np.zeros(5, dtype=np.int64)
    which = np.zeros(5, dtype=np.int64)
    n = 0
    for c in range(4, 0, -1):
        for r in range(12, -1, -1):
            if counts[r] == c:
                sizes[n], which[n] = c, r
                n += 1
    return sizes, which, n


@nb.njit(inline="always")
def shape_is(sizes: Int64s, n: int, a: int, b: int, c: int, d: int) -> bool:
    """Whether the group sizes are (a, b, c, d), trailing zeros meaning absent."""
    want = (a, b, c, d)
    count = 0
    for i in range(4):
        if want[i]:
            count += 1
            if i >= n or sizes[i] != want[i]:
                return False
    return count == n
