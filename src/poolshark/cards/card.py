"""Cards as small integers: parsing, formatting and the errors bad input raises.

A card is an ``int`` in ``0..51`` equal to ``4 * rank + suit``, with ranks ``0..12`` for
``2..A`` and suits ``0..3`` for clubs, diamonds, hearts, spades. Every array of cards in the
project uses this index, so ``card // 4`` is the rank and ``card % 4`` the suit.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Sequence

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
N_RANKS = 13
N_SUITS = 4
N_CARDS = 52

RANK_NAMES = (
    "deuce",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)

_TOKEN = re.compile(r"\S{2}")


class CardError(ValueError):
    """Bad card input; the message names the offending token."""


def make_card(rank: int, suit: int) -> int:
    """The card index of a rank (0 = deuce .. 12 = ace) and a suit (0..3 = c, d, h, s)."""
    if not (0 <= rank < N_RANKS and 0 <= suit < N_SUITS):
        raise CardError(f"no card with rank {rank} and suit {suit}")
    return 4 * rank + suit


def rank_of(card: int) -> int:
    """Rank of a card: 0 for a deuce up to 12 for an ace."""
    return card >> 2


def suit_of(card: int) -> int:
    """Suit of a card: 0..3 for clubs, diamonds, hearts, spades."""
    return card & 3


def parse_card(token: str) -> int:
    """Parse one card such as ``"Ah"`` or ``"td"`` (rank and suit in either case)."""
    if len(token) != 2:
        raise CardError(f"bad card {token!r}: a card is a rank and a suit, like 'Ah'")
    rank = RANK_CHARS.find(token[0].upper())
    suit = SUIT_CHARS.find(token[1].lower())
    if rank < 0:
        raise CardError(f"bad card {token!r}: rank {token[0]!r} is not one of {RANK_CHARS}")
    if suit < 0:
        raise CardError(f"bad card {token!r}: suit {token[1]!r} is not one of {SUIT_CHARS}")
    return 4 * rank + suit


def format_card(card: int) -> str:
    """The two-character name of a card index, e.g. ``51 -> "As"``."""
    if not 0 <= card < N_CARDS:
        raise CardError(f"bad card index {card}: must be in 0..51")
    return RANK_CHARS[card >> 2] + SUIT_CHARS[card & 3]


def parse_cards(text: str | Iterable[object], *, count: int | None = None) -> list[int]:
    """Parse distinct cards from ``"AhKd"``, ``"Ah Kd"``, ``"Ah,Kd"`` or an iterable.

    Duplicates raise :class:`CardError` naming the repeated card; ``count`` (when given)
    is the exact number of cards required.
    """
    if isinstance(text, str):
        tokens: list[object] = []
        for chunk in re.split(r"[\s,]+", text.strip()):
            if len(chunk) % 2:
                raise CardError(f"bad cards {text!r}: {chunk!r} is not a run of 2-letter cards")
            tokens.extend(_TOKEN.findall(chunk))
    else:
        tokens = list(text)
    shown = text if isinstance(text, str) else " ".join(map(str, tokens))
    cards: list[int] = []
    for token in tokens:
        card = parse_card(token) if isinstance(token, str) else _checked_index(token)
        if card in cards:
            raise CardError(f"duplicate card {format_card(card)!r} in {shown!r}")
        cards.append(card)
    if count is not None and len(cards) != count:
        raise CardError(f"expected {count} cards, got {len(cards)} in {shown!r}")
    return cards


def format_cards(cards: Iterable[int], sep: str = "") -> str:
    """Names of cards joined by ``sep``, in the order given."""
    return sep.join(format_card(c) for c in cards)


def check_disjoint(*groups: Sequence[int]) -> None:
    """Raise :class:`CardError` if any card appears in more than one group (hand, board...)."""
    seen: set[int] = set()
    for group in groups:
        for card in group:
            format_card(card)  # range check
            if card in seen:
                raise CardError(f"card {format_card(card)!r} is dealt twice")
            seen.add(card)


def _checked_index(card: object) -> int:
    if isinstance(card, bool):
        raise CardError(f"bad card {card!r}: expected a name like 'Ah' or an index")
    try:
        index = operator.index(card)  # type: ignore[arg-type]
    except TypeError:
        raise CardError(f"bad card {card!r}: expected a name like 'Ah' or an index") from None
    if not 0 <= index < N_CARDS:
        raise CardError(f"bad card index {index}: must be in 0..51")
    return index
