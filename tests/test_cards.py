"""Cards: parsing and formatting round trips, bad input, and the dealt-twice check."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolshark.cards.card import (
    N_CARDS,
    CardError,
    check_disjoint,
    format_card,
    format_cards,
    make_card,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)


def test_every_card_round_trips() -> None:
    """All 52 names parse back to their index and the index layout is 4 * rank + suit."""
    names = [format_card(card) for card in range(N_CARDS)]
    assert len(set(names)) == N_CARDS
    for card, name in enumerate(names):
        assert parse_card(name) == card
        assert make_card(rank_of(card), suit_of(card)) == card
    assert names[:4] == ["2c", "2d", "2h", "2s"]
    assert names[-1] == "As"


def test_rank_is_case_insensitive() -> None:
    """Ranks parse in either case."""
    assert parse_card("th") == parse_card("Th") == 4 * 8 + 2
    assert parse_card("aS") == 51


@pytest.mark.parametrize(
    ("text", "bad"),
    [("Ax", "Ax"), ("1h", "1h"), ("A", "A"), ("Ahh", "Ahh")],
)
def test_bad_card_names_the_token(text: str, bad: str) -> None:
    """A bad card raises CardError quoting the token."""
    with pytest.raises(CardError, match=repr(bad)):
        parse_card(text)


def test_parse_cards_separators() -> None:
    """Spaces, commas or nothing separate cards; order is kept."""
    expected = [parse_card("Ah"), parse_card("Kd"), parse_card("2c")]
    for text in ("AhKd2c", "Ah Kd 2c", "Ah,Kd, 2c"):
        assert parse_cards(text) == expected
    assert parse_cards(expected) == expected


def test_duplicate_card_is_named() -> None:
    """A repeated card raises CardError naming it."""
    with pytest.raises(CardError, match="'Ah'"):
        parse_cards("AhAh")


def test_count_is_enforced() -> None:
    """``count`` rejects the wrong number of cards and names the input."""
    with pytest.raises(CardError, match="Ah Kd Qc"):
        parse_cards("Ah Kd Qc", count=2)
    assert len(parse_cards("Ah Kd", count=2)) == 2


def test_odd_text_and_bad_indices() -> None:
    """Odd-length text, out-of-range indices and non-cards are rejected."""
    with pytest.raises(CardError, match="AhK"):
        parse_cards("AhK")
    with pytest.raises(CardError, match="52"):
        parse_cards([52])
    with pytest.raises(CardError, match=r"1\.5"):
        parse_cards([1.5])
    with pytest.raises(CardError):
        format_card(-1)
    with pytest.raises(CardError):
        make_card(13, 0)


def test_check_disjoint() -> None:
    """Disjoint groups pass; a card in two groups (or twice in one) raises, naming it."""
    check_disjoint([0, 1], [2, 3], [])
    check_disjoint()
    with pytest.raises(CardError, match="'As'"):
        check_disjoint([51, 0], [1, 51])
    with pytest.raises(CardError, match="'2c'"):
        check_disjoint([0, 0])


@given(st.lists(st.integers(0, N_CARDS - 1), unique=True, max_size=N_CARDS))
def test_format_parse_round_trip(cards: list[int]) -> None:
    """Any distinct cards survive format_cards then parse_cards, with any separator."""
    assert parse_cards(format_cards(cards)) == cards
    assert parse_cards(format_cards(cards, sep=" ")) == cards
