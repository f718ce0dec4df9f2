"""Tests of the compiled evaluator: exhaustive counts, the reference, a peer library, bad input.

Five-card hands are checked exhaustively in the default run (category counts, hands per
value, exact agreement with phevaluator); every seven- and six-card hand is checked in the
``slow`` run. Random hands tie the batch, scalar and string entry points to the brute-force
reference, and a million random seven-card hands are ranked the same way as by phevaluator.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import numpy.typing as npt
import pytest
from phevaluator import evaluate_cards
from phevaluator.card import Card as PhCard

from poolshark.cards.card import N_CARDS, CardError, format_card, format_cards
from poolshark.cards.evaluator import (
    RANK_MULTIPLIERS,
    evaluate,
    evaluate_batch,
    evaluate_indices,
    search_rank_multipliers,
    tables,
)
from poolshark.cards.hand_value import (
    N_VALUES,
    Category,
    all_keys,
    category_bounds,
    flush_key,
    reference_value,
    value_of_key,
)

FIVE_CARD_COUNTS = {
    Category.STRAIGHT_FLUSH: 40,
    Category.QUADS: 624,
    Category.FULL_HOUSE: 3_744,
    Category.FLUSH: 5_108,
    Category.STRAIGHT: 10_200,
    Category.TRIPS: 54_912,
    Category.TWO_PAIR: 123_552,
    Category.PAIR: 1_098_240,
    Category.HIGH_CARD: 1_302_540,
}
"""Five-card hands of each category among all C(52, 5); straight flushes include royals."""

FIVE_CARD_HANDS_PER_VALUE = {
    Category.STRAIGHT_FLUSH: 4,
    Category.QUADS: 4,
    Category.FULL_HOUSE: 4 * 6,
    Category.FLUSH: 4,
    Category.STRAIGHT: 4**5 - 4,
    Category.TRIPS: 4 * 4 * 4,
    Category.TWO_PAIR: 6 * 6 * 4,
    Category.PAIR: 6 * 4 * 4 * 4,
    Category.HIGH_CARD: 4**5 - 4,
}
"""Suit assignments giving each distinct five-card hand of a category (e.g. 6 * 4^3 pairs)."""

SEVEN_CARD_COUNTS = {
    Category.STRAIGHT_FLUSH: 41_584,
    Category.QUADS: 224_848,
    Category.FULL_HOUSE: 3_473_184,
    Category.FLUSH: 4_047_644,
    Category.STRAIGHT: 6_180_020,
    Category.TRIPS: 6_461_620,
    Category.TWO_PAIR: 31_433_400,
    Category.PAIR: 58_627_800,
    Category.HIGH_CARD: 23_294_460,
}
"""Seven-card hands by the category of their best five, among all C(52, 7)."""

SEVEN_CARD_DISTINCT_VALUES = 4_824
"""Distinct values of seven-card hands: the best five of seven never has the weakest
kickers (no seven cards are worth 7-5-4-3-2, for one)."""


def combinations_array(n: int, k: int) -> npt.NDArray[np.uint8]:
    """All k-subsets of ``range(n)`` as rows of increasing cards, in lexicographic order."""
    rows = np.arange(n, dtype=np.uint8)[:, None]
    for _ in range(k - 1):
        last = rows[:, -1].astype(np.int64)
        children = n - 1 - last  # cards above each row's last card
        firsts = np.repeat(np.cumsum(children) - children, children)
        following = np.repeat(last + 1, children) + np.arange(firsts.size) - firsts
        rows = np.column_stack([np.repeat(rows, children, axis=0), following.astype(np.uint8)])
    return rows


def random_hands(rng: np.random.Generator, n: int, k: int) -> npt.NDArray[np.uint8]:
    """``n`` uniformly random hands of ``k`` distinct cards (rows redrawn until distinct)."""
    hands = rng.integers(0, N_CARDS, size=(n, k), dtype=np.uint8)
    while True:
        clash = np.zeros(n, dtype=np.bool_)
        for i, j in combinations(range(k), 2):
            clash |= hands[:, i] == hands[:, j]
        redraw = np.flatnonzero(clash)
        if redraw.size == 0:
            return hands
        hands[redraw] = rng.integers(0, N_CARDS, size=(redraw.size, k), dtype=np.uint8)


def categories(values: npt.NDArray[np.integer]) -> npt.NDArray[np.intp]:
    """Category number of each hand value, vectorized ``category_of``."""
    return np.searchsorted(np.array(category_bounds()), values, side="right") - 1


def category_totals(histogram: npt.NDArray[np.int64]) -> dict[Category, int]:
    """Hands per category from a histogram of hand values (index = value)."""
    bounds = category_bounds()
    return {c: int(histogram[bounds[c] : bounds[c + 1]].sum()) for c in Category}


def phevaluator_ranks(hands: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    """phevaluator's rank of each hand (1 is a royal flush; lower is better).

    Our card index is phevaluator's card id (see ``test_phevaluator_uses_our_card_index``),
    so the rows are passed as they are.
    """
    return np.array([evaluate_cards(*row) for row in hands.tolist()], dtype=np.int64)


def assert_same_order(ours: npt.NDArray[np.integer], theirs: npt.NDArray[np.integer]) -> None:
    """Our values are a strictly increasing function of ``theirs`` (higher is better in
    both) and vice versa, so any two of the hands compare alike: win, lose or tie."""
    pairs = np.unique(np.column_stack([ours, theirs]).astype(np.int64), axis=0)
    assert np.unique(ours).size == pairs.shape[0] == np.unique(theirs).size
    assert np.all(np.diff(pairs[:, 1]) > 0)  # sorted by our value, theirs rises too


@pytest.fixture(scope="module")
def five_card_hands() -> npt.NDArray[np.uint8]:
    """Every five-card hand, (2,598,960, 5)."""
    return combinations_array(N_CARDS, 5)


@pytest.fixture(scope="module")
def five_card_values(five_card_hands: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint16]:
    """Our value of every five-card hand."""
    return evaluate_batch(five_card_hands)


def test_combinations_array_lists_every_subset_once() -> None:
    """The enumerator gives C(n, k) strictly increasing rows in strictly increasing order."""
    for n, k in [(7, 3), (52, 2), (10, 5)]:
        rows = combinations_array(n, k)
        assert rows.tolist() == [list(c) for c in combinations(range(n), k)]
    rows = combinations_array(N_CARDS, 5)
    assert rows.shape == (comb(52, 5), 5)
    assert np.all(np.diff(rows.astype(np.int8), axis=1) > 0)


def test_known_values() -> None:
    """Anchors of the value scale through the string entry point."""
    assert evaluate("AsKsQsJsTs") == N_VALUES
    assert evaluate("7c 5d 4h 3s 2c") == 1
    assert evaluate("Ad2d3d4d5d") == category_bounds()[Category.STRAIGHT_FLUSH]
    assert evaluate("Ac2d3h4s5c") == category_bounds()[Category.STRAIGHT]
    assert evaluate("AhKhQhJh9h2c2d") > evaluate("AcKdQhJsTc")  # flush beats straight
    assert evaluate("AcAdAhKsKcKd2c") > evaluate("AhKhQhJh9h2c2d")  # full house beats flush
    assert evaluate("2s3s4s5s6sAsKs") > evaluate("AcAdAhAsKc")  # a straight flush in a flush
    assert evaluate([51, 47, 43, 39, 35]) == N_VALUES


def test_all_five_card_hands(
    five_card_hands: npt.NDArray[np.uint8], five_card_values: npt.NDArray[np.uint16]
) -> None:
    """All 2,598,960 five-card hands: textbook category counts and 7,462 distinct values,
    each taken by exactly as many hands as its category's suit patterns allow."""
    assert five_card_hands.shape == (2_598_960, 5)
    histogram = np.bincount(five_card_values, minlength=N_VALUES + 1)
    assert histogram.size == N_VALUES + 1
    assert histogram[0] == 0
    assert np.count_nonzero(histogram) == N_VALUES
    assert category_totals(histogram) == FIVE_CARD_COUNTS
    per_value = np.array([FIVE_CARD_HANDS_PER_VALUE[Category(k[0])] for k in all_keys()])
    np.testing.assert_array_equal(histogram[1:], per_value)
    found = np.bincount(categories(five_card_values), minlength=len(Category))
    assert dict(zip(Category, found.tolist(), strict=True)) == FIVE_CARD_COUNTS


def test_every_five_card_value_matches_the_reference(
    five_card_hands: npt.NDArray[np.uint8], five_card_values: npt.NDArray[np.uint16]
) -> None:
    """The first hand found with each value, and a random sample, agree with the reference."""
    _, firsts = np.unique(five_card_values, return_index=True)
    sample = np.random.default_rng(5).choice(five_card_hands.shape[0], 5_000, replace=False)
    rows = np.concatenate([firsts, sample])
    for hand, value in zip(five_card_hands[rows].tolist(), five_card_values[rows], strict=True):
        assert reference_value(hand) == value, format_cards(hand)


def test_phevaluator_uses_our_card_index() -> None:
    """phevaluator numbers cards 4 * rank + suit with the same ranks and suits as we do."""
    for card in range(N_CARDS):
        assert PhCard(card).describe_card() == format_card(card)
        assert PhCard(format_card(card)).id_ == card


def test_all_five_card_hands_match_phevaluator(
    five_card_hands: npt.NDArray[np.uint8], five_card_values: npt.NDArray[np.uint16]
) -> None:
    """On every five-card hand our value is exactly 7463 minus phevaluator's rank."""
    theirs = phevaluator_ranks(five_card_hands)
    np.testing.assert_array_equal(five_card_values.astype(np.int64), N_VALUES + 1 - theirs)


def test_million_random_hands_rank_like_phevaluator() -> None:
    """1,000,000 random seven-card hands: no pair of them is ordered differently by
    phevaluator, checked both hand against next hand and as a monotone map of all values."""
    hands = random_hands(np.random.default_rng(2024), 1_000_000, 7)
    ours = evaluate_batch(hands).astype(np.int64)
    theirs = phevaluator_ranks(hands)
    ours_says = np.sign(ours[:-1] - ours[1:])
    theirs_say = np.sign(theirs[1:] - theirs[:-1])  # lower is better for phevaluator
    assert int(np.count_nonzero(ours_says != theirs_say)) == 0
    assert_same_order(ours, -theirs)
    assert np.unique(ours).size > 4_000


@pytest.mark.parametrize(("size", "n"), [(5, 3_000), (6, 2_000), (7, 2_000)])
def test_batch_scalar_string_and_reference_agree(size: int, n: int) -> None:
    """Random hands of 5, 6 and 7 cards get one value from every entry point."""
    hands = random_hands(np.random.default_rng(size), n, size)
    batch = evaluate_batch(hands).tolist()
    for hand, value in zip(hands.tolist(), batch, strict=True):
        assert evaluate_indices(hand) == value
        assert evaluate(format_cards(hand)) == value
        assert reference_value(hand) == value, format_cards(hand)


@pytest.mark.parametrize("size", [6, 7])
def test_batch_takes_the_best_five_cards(size: int) -> None:
    """A 6- or 7-card value is the best value among its five-card subsets, on 200,000 hands
    (five-card values are checked exhaustively above)."""
    hands = random_hands(np.random.default_rng(10 + size), 200_000, size)
    best = np.zeros(hands.shape[0], dtype=np.uint16)
    for subset in combinations(range(size), 5):
        np.maximum(best, evaluate_batch(hands[:, list(subset)]), out=best)
    np.testing.assert_array_equal(evaluate_batch(hands), best)


def test_card_order_does_not_matter() -> None:
    """Reversing or shuffling each row's cards gives the same values."""
    rng = np.random.default_rng(3)
    hands = random_hands(rng, 100_000, 7)
    values = evaluate_batch(hands)
    np.testing.assert_array_equal(evaluate_batch(hands[:, ::-1]), values)
    np.testing.assert_array_equal(evaluate_batch(rng.permuted(hands, axis=1)), values)


def test_batch_accepts_lists_wider_ints_and_any_layout() -> None:
    """Lists, int64 arrays, Fortran order and strided views evaluate like uint8 rows."""
    hands = random_hands(np.random.default_rng(4), 10_000, 7)
    values = evaluate_batch(hands)
    np.testing.assert_array_equal(evaluate_batch(hands.tolist()), values)
    np.testing.assert_array_equal(evaluate_batch(hands.astype(np.int64)), values)
    np.testing.assert_array_equal(evaluate_batch(np.asfortranarray(hands)), values)
    np.testing.assert_array_equal(evaluate_batch(hands[::2]), values[::2])
    empty = evaluate_batch(np.zeros((0, 7), dtype=np.uint8))
    assert empty.shape == (0,)
    assert empty.dtype == np.uint16


@pytest.mark.parametrize("threads", [None, 2])
def test_parallel_matches_single_thread(threads: int | None) -> None:
    """Several cores give exactly the single-core output, chunk edges included."""
    for size in (5, 6, 7):
        hands = random_hands(np.random.default_rng(20 + size), 3 * (1 << 16) + 123, size)
        np.testing.assert_array_equal(
            evaluate_batch(hands, threads=threads), evaluate_batch(hands, threads=1)
        )


def test_search_rank_multipliers_reproduces_the_constants() -> None:
    """The greedy search re-derives the published rank multipliers."""
    assert search_rank_multipliers() == RANK_MULTIPLIERS


def test_flush_table_matches_reference() -> None:
    """Every 13-bit rank mask with five or more ranks maps to its reference flush value."""
    flush_table = tables().flush_table
    values = value_of_key()
    for mask in range(1 << 13):
        ranks = [r for r in range(13) if mask >> r & 1]
        expected = values[flush_key(ranks)] if len(ranks) >= 5 else 0
        assert flush_table[mask] == expected, bin(mask)


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("AhAhKdQcJs", "duplicate card 'Ah'"),
        ("AhKdQcJsTc9d8hAh", "duplicate card 'Ah'"),
        ("AhKdQcJs", "5 to 7 cards, got 4"),
        ("AhKdQcJsTc9d8h7s", "5 to 7 cards, got 8"),
        ("AhKdQcJsXh", "rank 'X'"),
        ("AhKdQcJsTx", "suit 'x'"),
        ("AhKdQcJsT", "bad cards 'AhKdQcJsT'"),
        ([0, 1, 2, 3, 52], "bad card index 52"),
        ([0, 1, 2, 3, -1], "bad card index -1"),
    ],
)
def test_evaluate_rejects_bad_hands(cards: str | list[int], message: str) -> None:
    """evaluate() raises CardError saying what is wrong with the hand."""
    with pytest.raises(CardError, match=message):
        evaluate(cards)


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        (np.zeros((3, 4), dtype=np.uint8), r"\(n, 5..7\) array of cards, got \(3, 4\)"),
        (np.zeros((3, 8), dtype=np.uint8), r"\(n, 5..7\) array of cards, got \(3, 8\)"),
        (np.arange(7, dtype=np.uint8), r"\(n, 5..7\) array of cards, got \(7,\)"),
        (np.zeros((2, 3, 7), dtype=np.uint8), r"got \(2, 3, 7\)"),
        (np.array([[0, 1, 2, 3, 52]], dtype=np.uint8), "card index 52 is outside 0..51"),
        (np.array([[0, 1, 2, 3, 255]], dtype=np.uint8), "card index 255 is outside 0..51"),
        ([[0, 1, 2, 3, 4, 5, 52]], "card index 52 is outside 0..51"),
    ],
)
def test_evaluate_batch_rejects_bad_arrays(cards: object, message: str) -> None:
    """evaluate_batch raises CardError naming a wrong shape or an index outside 0..51."""
    with pytest.raises(CardError, match=message):
        evaluate_batch(cards)  # type: ignore[arg-type]


def test_evaluate_batch_rejects_indices_that_wrap_in_uint8() -> None:
    """An int64 index of 256 is no card; it must not be read as 2c after a uint8 cast."""
    with pytest.raises(CardError, match="card index 256"):
        evaluate_batch(np.array([[256, 5, 9, 13, 17]], dtype=np.int64))


def test_evaluate_batch_rejects_float_cards() -> None:
    """Fractional card indices are an error, not silently truncated."""
    with pytest.raises(CardError, match="must be integers"):
        evaluate_batch(np.array([[0.5, 5, 9, 13, 17]]))


@pytest.mark.parametrize(
    "cards", [np.array([[-1, 5, 9, 13, 17]], dtype=np.int64), [[-1, 5, 9, 13, 17]]]
)
def test_evaluate_batch_names_negative_indices(cards: object) -> None:
    """A negative index should be reported as itself, with a CardError."""
    with pytest.raises(CardError, match="card index -1"):
        evaluate_batch(cards)  # type: ignore[arg-type]


@pytest.mark.slow
def test_all_seven_card_hands() -> None:
    """All 133,784,560 seven-card hands, two fixed cards per chunk of at most 2.1 M rows:
    textbook category counts and 4,824 distinct values."""
    fives = combinations_array(N_CARDS, 5)
    starts = np.searchsorted(fives[:, 0], np.arange(N_CARDS + 1))  # rows starting at >= card
    histogram = np.zeros(N_VALUES + 1, dtype=np.int64)
    chunk = np.empty((comb(50, 5), 7), dtype=np.uint8)
    for first, second in combinations(range(N_CARDS), 2):
        rest = fives[starts[second + 1] :]  # five more cards, all above the second
        rows = chunk[: rest.shape[0]]
        rows[:, 0] = first
        rows[:, 1] = second
        rows[:, 2:] = rest
        histogram += np.bincount(evaluate_batch(rows), minlength=N_VALUES + 1)
    assert histogram.sum() == comb(52, 7) == 133_784_560
    assert category_totals(histogram) == SEVEN_CARD_COUNTS
    assert np.count_nonzero(histogram) == SEVEN_CARD_DISTINCT_VALUES


@pytest.mark.slow
def test_all_six_card_hands_take_the_best_five() -> None:
    """Each of the 20,358,520 six-card hands is worth the best of its six five-card subsets."""
    fives = combinations_array(N_CARDS, 5)
    starts = np.searchsorted(fives[:, 0], np.arange(N_CARDS + 1))
    total = 0
    for first in range(N_CARDS):
        rest = fives[starts[first + 1] :]
        rows = np.empty((rest.shape[0], 6), dtype=np.uint8)
        rows[:, 0] = first
        rows[:, 1:] = rest
        best = np.zeros(rows.shape[0], dtype=np.uint16)
        for subset in combinations(range(6), 5):
            np.maximum(best, evaluate_batch(rows[:, list(subset)]), out=best)
        np.testing.assert_array_equal(evaluate_batch(rows), best)
        total += rows.shape[0]
    assert total == comb(52, 6)
