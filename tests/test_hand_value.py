"""Tests of the plain-Python reference hand values that the fast evaluator is checked against.

The reference is tested against the rules themselves: hand-picked hands of every category,
the size and shape of the value scale, and brute force over five-card subsets for the
shortcut (``best_counts_key``, ``flush_key``) that builds the evaluator's tables.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement, permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.cards.card import CardError, parse_cards, suit_of
from poolshark.cards.hand_value import (
    N_VALUES,
    Category,
    HandKey,
    all_keys,
    best_counts_key,
    best_key,
    category_bounds,
    category_of,
    counts_key,
    describe,
    five_card_key,
    flush_key,
    reference_value,
    straight_top,
    value_of_key,
)

ACE, KING, QUEEN, JACK, TEN, NINE, EIGHT, SEVEN, SIX, FIVE, FOUR, THREE, DEUCE = range(12, -1, -1)

DISTINCT_VALUES_PER_CATEGORY = {
    Category.HIGH_CARD: 1277,
    Category.PAIR: 2860,
    Category.TWO_PAIR: 858,
    Category.TRIPS: 858,
    Category.STRAIGHT: 10,
    Category.FLUSH: 1277,
    Category.FULL_HOUSE: 156,
    Category.QUADS: 156,
    Category.STRAIGHT_FLUSH: 10,
}
"""How many distinct five-card hands (ties merged) each category has: the textbook counts."""


def key(text: str) -> HandKey:
    """Key of five cards written like ``"AhKdQcJsTh"``."""
    return five_card_key(parse_cards(text))


def value(text: str) -> int:
    """Reference value of five to seven cards written like ``"AhKdQcJsTh"``."""
    return reference_value(parse_cards(text))


def has_five_of_a_suit(cards: list[int]) -> bool:
    """Whether some suit holds five or more of the cards (so a flush can be made)."""
    return max(Counter(suit_of(c) for c in cards).values()) >= 5


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AhKhQhJhTh", (Category.STRAIGHT_FLUSH, (ACE,))),
        ("9s8s7s6s5s", (Category.STRAIGHT_FLUSH, (NINE,))),
        ("Ad2d3d4d5d", (Category.STRAIGHT_FLUSH, (FIVE,))),
        ("7c7d7h7sKd", (Category.QUADS, (SEVEN, KING))),
        ("2c2d2hAsAd", (Category.FULL_HOUSE, (DEUCE, ACE))),
        ("KcKdKh2s2d", (Category.FULL_HOUSE, (KING, DEUCE))),
        ("AcJc8c4c2c", (Category.FLUSH, (ACE, JACK, EIGHT, FOUR, DEUCE))),
        ("Tc9d8h7s6c", (Category.STRAIGHT, (TEN,))),
        ("Ac2d3h4s5c", (Category.STRAIGHT, (FIVE,))),
        ("AcKdQhJsTc", (Category.STRAIGHT, (ACE,))),
        ("QcQdQh9s3c", (Category.TRIPS, (QUEEN, NINE, THREE))),
        ("JcJd4h4sAc", (Category.TWO_PAIR, (JACK, FOUR, ACE))),
        ("5c5d9hKs2c", (Category.PAIR, (FIVE, KING, NINE, DEUCE))),
        ("Ac Kd 8h 5s 3c", (Category.HIGH_CARD, (ACE, KING, EIGHT, FIVE, THREE))),
        ("7c5d4h3s2c", (Category.HIGH_CARD, (SEVEN, FIVE, FOUR, THREE, DEUCE))),
        ("KcQdJhTs8c", (Category.HIGH_CARD, (KING, QUEEN, JACK, TEN, EIGHT))),
    ],
)
def test_five_card_key_by_category(text: str, expected: HandKey) -> None:
    """Hand-picked hands of every category get the key the rules give them."""
    assert key(text) == expected


def test_five_card_key_ignores_card_order() -> None:
    """The key depends on the cards only, not on the order they are listed in."""
    cards = parse_cards("JcJd4h4sAc")
    assert {five_card_key(order) for order in permutations(cards)} == {five_card_key(cards)}


def test_wheel_is_the_lowest_straight() -> None:
    """A-2-3-4-5 is a five-high straight: it beats trips but loses to 2-3-4-5-6."""
    wheel = key("Ah2c3d4s5h")
    assert wheel == (Category.STRAIGHT, (FIVE,))
    assert wheel < key("2c3d4h5s6c")
    assert wheel > key("AcAdAhKsQc")
    assert value("Ah2c3d4s5h") == category_bounds()[Category.STRAIGHT]


def test_steel_wheel_is_the_lowest_straight_flush() -> None:
    """A-2-3-4-5 suited is the weakest straight flush, still above four aces."""
    steel_wheel = key("Ad2d3d4d5d")
    assert steel_wheel == (Category.STRAIGHT_FLUSH, (FIVE,))
    assert steel_wheel < key("2d3d4d5d6d")
    assert steel_wheel > key("AcAdAhAsKc")
    assert value("Ad2d3d4d5d") == category_bounds()[Category.STRAIGHT_FLUSH]
    assert value("AdKdQdJdTd") == N_VALUES


def test_flushes_compare_card_by_card() -> None:
    """Flush against flush is decided by the highest card, then the next, down to the fifth."""
    assert key("AhKhQhJh9h") > key("AsKsQsJs8s")
    assert key("AhKhQhJh3h") > key("AsKsQsJs2s")
    assert key("AhKh6h4h3h") > key("AsQsJsTs8s")
    assert key("AhKhQhJh9h") == key("AsKsQsJs9s")
    assert key("7h5h4h3h2h") < key("2c3c4c5c6c")  # any straight flush beats any flush


def test_two_pair_compares_top_pair_then_bottom_then_kicker() -> None:
    """Two pair: higher top pair wins, then higher bottom pair, then the kicker."""
    assert key("KcKdQhQsAc") > key("KhKsQcQdJc")
    assert key("KcKd3h3s2c") > key("QcQdJhJsAc")
    assert key("KcKdQhQs2c") > key("KhKsJcJdAc")
    assert key("KcKdQhQsAc") == key("KhKsQcQdAd")


def test_full_house_is_ordered_by_trips_first() -> None:
    """Full houses rank by the three of a kind before the pair."""
    assert key("3c3d3h2s2c") > key("2c2d2hAsAc")
    assert key("AcAdAh2s2c") > key("KcKdKhAsAd")
    assert key("KcKdKhAsAd") > key("KcKdKhQsQd")


def test_kickers_break_ties_within_pairs_trips_and_quads() -> None:
    """Kickers decide between equal pairs, trips and quads; equal hands tie."""
    assert key("5c5dKh9s3c") > key("5h5sKc9d2c")
    assert key("QcQdQh9s3c") > key("QcQdQh8s7c")
    assert key("7c7d7h7sKd") > key("7c7d7h7sQd")
    assert key("AcKd8h5s3c") == key("AdKh8s5c3d")


def test_category_order_is_the_rules_order() -> None:
    """One hand of each category, weakest first, is strictly increasing."""
    hands = [
        "AcKd8h5s3c",
        "2c2d4h5s6c",
        "2c2d3h3s4c",
        "2c2d2h3s4c",
        "Ac2d3h4s5c",
        "2c3c4c5c7c",
        "2c2d2h3s3c",
        "2c2d2h2s3c",
        "Ac2c3c4c5c",
    ]
    keys = [key(h) for h in hands]
    assert [k[0] for k in keys] == list(Category)
    assert keys == sorted(keys)


def test_five_card_key_rejects_other_sizes() -> None:
    """A five-card key needs exactly five cards."""
    with pytest.raises(CardError, match="5 cards, got 4"):
        five_card_key(parse_cards("AcKdQhJs"))
    with pytest.raises(CardError, match="5 to 7 cards, got 8"):
        best_key(parse_cards("AcKdQhJsTc9d8h7s"))


def test_counts_key_rejects_impossible_shapes() -> None:
    """Five of a kind is no poker hand."""
    with pytest.raises(CardError, match="rank counts"):
        counts_key({ACE: 5})


def test_straight_top() -> None:
    """Best straight among distinct ranks, the wheel topping at five, -1 for none."""
    assert straight_top([ACE, KING, QUEEN, JACK, TEN, NINE]) == ACE
    assert straight_top([ACE, DEUCE, THREE, FOUR, FIVE, SIX]) == SIX
    assert straight_top([ACE, DEUCE, THREE, FOUR, FIVE]) == FIVE
    assert straight_top([KING, ACE, DEUCE, THREE, FOUR]) == -1
    assert straight_top([]) == -1


def test_exactly_7462_distinct_keys() -> None:
    """The value scale has 7,462 distinct, sorted keys and values 1..7462 index them."""
    keys = all_keys()
    assert len(keys) == N_VALUES == 7462
    assert len(set(keys)) == N_VALUES
    assert list(keys) == sorted(keys)
    assert value_of_key() == {k: i + 1 for i, k in enumerate(keys)}
    per_category = Counter(k[0] for k in keys)
    assert per_category == DISTINCT_VALUES_PER_CATEGORY


def test_value_extremes() -> None:
    """7-5-4-3-2 offsuit is value 1 and a royal flush is value 7462."""
    assert value("7c5d4h3s2c") == 1
    assert value("AsKsQsJsTs") == N_VALUES
    assert value("AsKsQsJsTs9s8s") == N_VALUES


def test_category_bounds() -> None:
    """Lowest value of each category follows from the per-category counts."""
    expected = [1]
    for category in Category:
        expected.append(expected[-1] + DISTINCT_VALUES_PER_CATEGORY[category])
    bounds = category_bounds()
    assert list(bounds) == expected
    assert bounds == (1, 1278, 4138, 4996, 5854, 5864, 7141, 7297, 7453, 7463)


def test_category_of() -> None:
    """category_of agrees with the keys on both sides of every bound and rejects 0 and 7463."""
    keys = all_keys()
    for category, low in zip(Category, category_bounds()[:-1], strict=True):
        assert category_of(low) == category == keys[low - 1][0]
        if low > 1:
            assert category_of(low - 1) == category - 1 == keys[low - 2][0]
    assert [category_of(v) for v in range(1, N_VALUES + 1)] == [k[0] for k in keys]
    for bad in (0, N_VALUES + 1):
        with pytest.raises(ValueError, match="outside"):
            category_of(bad)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("AsKsQsJsTs", "royal flush"),
        ("5h4h3h2hAh", "straight flush, five high"),
        ("6c6d6h6s2c", "four of a kind, sixes"),
        ("KcKdKh2s2c", "full house, kings full of deuces"),
        ("Jd9d6d4d2d", "flush, jack high"),
        ("Tc9d8h7s6c", "straight, ten high"),
        ("Ac2d3h4s5c", "straight, five high"),
        ("8c8d8hKs2c", "three of a kind, eights"),
        ("AcAdKhKs2c", "two pair, aces and kings"),
        ("6c6d9hKs2c", "pair of sixes"),
        ("QcTd8h5s3c", "high card, queen"),
    ],
)
def test_describe(text: str, words: str) -> None:
    """describe() names a hand the way a dealer would."""
    assert describe(value(text)) == words


def test_best_counts_key_exhaustive() -> None:
    """best_counts_key equals the best counts_key over five-card sub-multisets, for every
    multiset of 5 to 7 ranks (at most four of a rank): the tables cover exactly these."""
    checked = 0
    for size in (5, 6, 7):
        for ranks in combinations_with_replacement(range(13), size):
            held = Counter(ranks)
            if max(held.values()) > 4:
                continue
            brute = max(counts_key(Counter(sub)) for sub in set(combinations(ranks, 5)))
            assert best_counts_key([held[r] for r in range(13)]) == brute, ranks
            checked += 1
    assert checked == 6175 + 18395 + 49205


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=5, max_size=7, unique=True))
def test_best_counts_key_matches_brute_force_on_cards(cards: list[int]) -> None:
    """On real cards with no five of a suit (so no subset is a flush), best_counts_key of the
    rank counts equals brute force over every five-card subset with the full rules."""
    counts = [0] * 13
    for card in cards:
        counts[card >> 2] += 1
    if has_five_of_a_suit(cards):
        assert best_counts_key(counts) <= best_key(cards)
        assert best_key(cards)[0] in (Category.FLUSH, Category.STRAIGHT_FLUSH)
    else:
        assert best_counts_key(counts) == best_key(cards)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.integers(0, 12), min_size=5, max_size=7, unique=True),
    st.integers(0, 3),
)
def test_flush_key_matches_brute_force(ranks: list[int], suit: int) -> None:
    """flush_key of five to seven suited ranks equals the best five-card subset."""
    cards = [4 * r + suit for r in ranks]
    assert flush_key(ranks) == best_key(cards)


@pytest.mark.parametrize(
    ("ranks", "expected"),
    [
        ([ACE, NINE, EIGHT, SEVEN, SIX, FIVE], (Category.STRAIGHT_FLUSH, (NINE,))),
        ([ACE, KING, DEUCE, THREE, FOUR, FIVE], (Category.STRAIGHT_FLUSH, (FIVE,))),
        ([ACE, KING, QUEEN, JACK, TEN, NINE, EIGHT], (Category.STRAIGHT_FLUSH, (ACE,))),
        (
            [ACE, KING, QUEEN, JACK, NINE, SEVEN, DEUCE],
            (Category.FLUSH, (ACE, KING, QUEEN, JACK, NINE)),
        ),
        ([SEVEN, FIVE, FOUR, THREE, DEUCE], (Category.FLUSH, (SEVEN, FIVE, FOUR, THREE, DEUCE))),
    ],
)
def test_flush_key_examples(ranks: list[int], expected: HandKey) -> None:
    """A straight flush inside a flush wins over a higher plain flush card."""
    assert flush_key(ranks) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AhKhQhJh9h2c2d", "flush, ace high"),
        ("AcAdAhKsKcKd2c", "full house, aces full of kings"),
        ("2c2d2h3s3c3d4h", "full house, threes full of deuces"),
        ("9c8d7h6s5c4d2h", "straight, nine high"),
        ("AcAdKhKsQcQd2h", "two pair, aces and kings"),
        ("7c7d7h7sAcAdAh", "four of a kind, sevens"),
        ("2s3s4s5s6sAsKs", "straight flush, six high"),
    ],
)
def test_reference_value_of_seven_cards(text: str, expected: str) -> None:
    """Seven-card hands take their best five."""
    assert describe(value(text)) == expected
