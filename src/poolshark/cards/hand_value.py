"""Plain-Python poker hand values: the readable reference the fast evaluator is tested against.

A hand's *key* is ``(category, ranks)``: the category (high card .. straight flush) and the
ranks that break ties inside it, most important first. Keys compare exactly as poker hands
do. The 7,462 distinct five-card keys, sorted, define the *value* the fast evaluator returns:
an integer from 1 (7-5-4-3-2 offsuit) to 7462 (royal flush); higher beats lower.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum
from functools import cache
from itertools import combinations, combinations_with_replacement

from poolshark.cards.card import RANK_NAMES, CardError, rank_of, suit_of

HandKey = tuple[int, tuple[int, ...]]

N_VALUES = 7462


class Category(IntEnum):
    """Hand categories, weakest first."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8


def straight_top(ranks: Iterable[int]) -> int:
    """Top rank of the best straight among distinct ranks, or -1; the wheel A-5 tops at 3."""
    present = set(ranks)
    for top in range(12, 3, -1):
        if all(top - i in present for i in range(5)):
            return top
    if {12, 0, 1, 2, 3} <= present:
        return 3
    return -1


def five_card_key(cards: Sequence[int]) -> HandKey:
    """Key of exactly five cards, straight from the rules."""
    if len(cards) != 5:
        raise CardError(f"five_card_key needs 5 cards, got {len(cards)}")
    ranks = [rank_of(c) for c in cards]
    flush = len({suit_of(c) for c in cards}) == 1
    top = straight_top(ranks) if len(set(ranks)) == 5 else -1
    if top >= 0:
        return (Category.STRAIGHT_FLUSH if flush else Category.STRAIGHT, (top,))
    if flush:
        return (Category.FLUSH, tuple(sorted(ranks, reverse=True)))
    return counts_key({r: ranks.count(r) for r in ranks})


def counts_key(counts: dict[int, int]) -> HandKey:
    """Key of five cards that form no flush, given as a map rank -> count."""
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    ranks = tuple(r for r, _ in groups)
    shape = tuple(n for _, n in groups)
    by_shape = {
        (4, 1): Category.QUADS,
        (3, 2): Category.FULL_HOUSE,
        (3, 1, 1): Category.TRIPS,
        (2, 2, 1): Category.TWO_PAIR,
        (2, 1, 1, 1): Category.PAIR,
    }
    if shape in by_shape:
        return (by_shape[shape], ranks)
    top = straight_top(ranks)
    if shape == (1, 1, 1, 1, 1) and top >= 0:
        return (Category.STRAIGHT, (top,))
    if shape == (1, 1, 1, 1, 1):
        return (Category.HIGH_CARD, ranks)
    raise CardError(f"no five-card hand has rank counts {shape}")


def best_counts_key(counts: Sequence[int]) -> HandKey:
    """Best non-flush key from 5 to 7 cards given as 13 rank counts (deuce first).

    Reads the hand off from the strongest category down, the way a dealer would.
    """
    present = [r for r in range(12, -1, -1) if counts[r]]  # ranks held, highest first
    quads = [r for r in present if counts[r] == 4]
    trips = [r for r in present if counts[r] == 3]
    pairs = [r for r in present if counts[r] == 2]

    def kickers(exclude: set[int], n: int) -> tuple[int, ...]:
        return tuple(r for r in present if r not in exclude)[:n]

    if quads:
        return (Category.QUADS, (quads[0], *kickers({quads[0]}, 1)))
    if trips and len(trips) + len(pairs) >= 2:
        return (Category.FULL_HOUSE, (trips[0], max([*trips[1:], *pairs])))
    top = straight_top(present)
    if top >= 0:
        return (Category.STRAIGHT, (top,))
    if trips:
        return (Category.TRIPS, (trips[0], *kickers({trips[0]}, 2)))
    if len(pairs) >= 2:
        return (Category.TWO_PAIR, (pairs[0], pairs[1], *kickers({pairs[0], pairs[1]}, 1)))
    if pairs:
        return (Category.PAIR, (pairs[0], *kickers({pairs[0]}, 3)))
    return (Category.HIGH_CARD, tuple(present[:5]))


def flush_key(suited_ranks: Iterable[int]) -> HandKey:
    """Best key from five or more cards of one suit, given by their ranks."""
    ranks = sorted(set(suited_ranks), reverse=True)
    top = straight_top(ranks)
    if top >= 0:
        return (Category.STRAIGHT_FLUSH, (top,))
    return (Category.FLUSH, tuple(ranks[:5]))


def best_key(cards: Sequence[int]) -> HandKey:
    """Key of the best five-card hand among 5 to 7 cards (brute force over all subsets)."""
    if not 5 <= len(cards) <= 7:
        raise CardError(f"a hand has 5 to 7 cards, got {len(cards)}")
    return max(five_card_key(subset) for subset in combinations(cards, 5))


@cache
def all_keys() -> tuple[HandKey, ...]:
    """The 7,462 distinct five-card keys, weakest first: index + 1 is the hand's value."""
    keys: set[HandKey] = set()
    for multiset in combinations_with_replacement(range(13), 5):
        counts = {r: multiset.count(r) for r in multiset}
        if max(counts.values()) <= 4:
            keys.add(counts_key(counts))
        if len(counts) == 5:
            top = straight_top(multiset)
            if top >= 0:
                keys.add((Category.STRAIGHT_FLUSH, (top,)))
            else:
                keys.add((Category.FLUSH, tuple(sorted(multiset, reverse=True))))
    ordered = tuple(sorted(keys))
    if len(ordered) != N_VALUES:
        raise AssertionError(f"expected {N_VALUES} distinct hands, built {len(ordered)}")
    return ordered


@cache
def value_of_key() -> dict[HandKey, int]:
    """Map each key to its value 1..7462."""
    return {key: i + 1 for i, key in enumerate(all_keys())}


def reference_value(cards: Sequence[int]) -> int:
    """Value 1..7462 of 5 to 7 cards, by brute force; slow but obviously right."""
    return value_of_key()[best_key(cards)]


@cache
def category_bounds() -> tuple[int, ...]:
    """Lowest value of each category, weakest category first (10 entries, last is 7463)."""
    keys = all_keys()
    firsts = [next(i + 1 for i, k in enumerate(keys) if k[0] == c) for c in Category]
    return (*firsts, N_VALUES + 1)


def category_of(value: int) -> Category:
    """Category of a hand value."""
    if not 1 <= value <= N_VALUES:
        raise ValueError(f"hand value {value} is outside 1..{N_VALUES}")
    bounds = category_bounds()
    return Category(max(c for c in Category if bounds[c] <= value))


def describe(value: int) -> str:
    """Words for a hand value, e.g. ``"full house, kings full of deuces"``."""
    category, ranks = all_keys()[value - 1]
    names = [RANK_NAMES[r] for r in ranks]
    plural = [n + ("es" if n.endswith("x") else "s") for n in names]
    match category:
        case Category.STRAIGHT_FLUSH:
            return "royal flush" if ranks[0] == 12 else f"straight flush, {names[0]} high"
        case Category.QUADS:
            return f"four of a kind, {plural[0]}"
        case Category.FULL_HOUSE:
            return f"full house, {plural[0]} full of {plural[1]}"
        case Category.FLUSH:
            return f"flush, {names[0]} high"
        case Category.STRAIGHT:
            return f"straight, {names[0]} high"
        case Category.TRIPS:
            return f"three of a kind, {plural[0]}"
        case Category.TWO_PAIR:
            return f"two pair, {plural[0]} and {plural[1]}"
        case Category.PAIR:
            return f"pair of {plural[0]}"
        case _:
            return f"high card, {names[0]}"
