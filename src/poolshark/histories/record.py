"""The normalized hand record every reader produces and every writer consumes.

Amounts are integer chips of the smallest currency unit (``unit``, e.g. 0.01 dollars), so
replays through the engine are exact. Players are listed in table order (clockwise by site
seat number); every index in a record (button, actions, cards, winnings) points into
``seats``. Only players dealt into the hand are listed; sitting-out seats are dropped.

Readers reject a hand they cannot accept with :class:`HistoryError`, whose ``reason`` is one
of the codes in :data:`REJECTION_REASONS` (the counts and quarantine files use them). A hand
the replay accepts although part of it could not be verified carries a code of
:data:`WARNING_REASONS` in ``HandRecord.warnings``, so it is never accepted silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from poolshark.engine.config import NO_HOUSE_RULES, Betting, HouseRule
from poolshark.engine.table import Move, Street

#: Every ``HistoryError.reason`` the readers and the replay raise, with what it means.
REJECTION_REASONS: dict[str, str] = {
    "malformed": "the text breaks the format: a line, field or amount that cannot be read",
    "truncated": "the hand stops early: its summary, pot or board lines are missing",
    "unsupported-game": "not Texas hold'em no-limit or fixed-limit (Omaha, pot-limit, ...)",
    "tournament": "a tournament hand (chips, not money)",
    "play-money": "a play-money hand",
    "home-game": "a home game (a private club table: its stakes and rake are the club's)",
    "unsupported-site": "another room's hand in a layout the reader does not take (Bovada, ...)",
    "unsupported-format": "neither PokerStars text nor PHH",
    "replay-illegal": "an action the rules forbid, or out of turn, when replayed",
    "replay-mismatch": "the replay disagrees with the record: amounts, board, pot or winnings",
}

#: Every code in ``HandRecord.warnings``: a hand accepted with a part left unverified.
WARNING_REASONS: dict[str, str] = {
    "winnings-over-pot": (
        "the betting replays, but the recorded winnings exceed the pot by at most a small"
        " and a big blind (a dead post the conversion dropped): the winnings are unverified"
    ),
}


#: Every code in ``HandRecord.variants``: a house rule the record shows where sites and
#: engines differ. A record is evidence: a known variant is accepted and kept, never guessed.
VARIANTS: dict[str, str] = {
    "limit-cap-4": "fixed-limit betting capped at a bet and four raises instead of three",
    "odd-chip": "a split pot's odd chip went to a winner other than the first left of the button",
    "rake-split": (
        "a split pot's shares differ by the rake taken from it: its rounding, or the rake"
        " charged to the winners unequally"
    ),
    "capped-no-limit": "no-limit with a cap on what each player may put in the hand",
    "early-fold": (
        "a fold written before the player's turn (a fold in advance, a fast fold), played at"
        " that turn: only folds, checks and calls came between"
    ),
    "posted-price": (
        "the price to call and the preflop raises count from the largest bet actually posted"
        " (a big blind all-in for less lowers them) and raise by the big blind"
    ),
    "antes-in-main-pot": (
        "antes and other dead money go whole into the main pot, which every live player"
        " contests (PHH's ante_trimming_status = false)"
    ),
    "short-all-in-reopens": (
        "an all-in raise short of a full one reopens the betting when it is at least the"
        " round's largest raise so far"
    ),
}


#: The codes of ``VARIANTS`` that are engine house rules (they change the betting or the
#: pots), with the engine's flag for each: the one place history vocabulary meets the engine.
HOUSE_RULE_OF_VARIANT: dict[str, HouseRule] = {
    "posted-price": HouseRule.POSTED_PRICE,
    "antes-in-main-pot": HouseRule.ANTES_IN_MAIN_POT,
    "short-all-in-reopens": HouseRule.SHORT_ALL_IN_REOPENS,
}


def house_rules_of(variants: Iterable[str]) -> HouseRule:
    """The engine's house-rule flags for a record's variant codes (others are ignored)."""
    rules = NO_HOUSE_RULES
    for code in variants:
        rules |= HOUSE_RULE_OF_VARIANT.get(code, NO_HOUSE_RULES)
    return rules


class HistoryError(ValueError):
    """A hand that cannot be accepted; ``reason`` is a short stable code for the counts."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


@dataclass(frozen=True)
class Seat:
    """One dealt-in player: the site's seat number, the (possibly anonymized) name, chips."""

    number: int
    player: str
    stack: int


@dataclass(frozen=True)
class RecordedAction:
    """A voluntary action; ``amount``: chips put in by a call, the total bet to for a raise."""

    street: Street
    player: int
    move: Move
    amount: int = 0
    all_in: bool = False


@dataclass(frozen=True)
class HandRecord:
    """One hand as the site recorded it, in integer chips of ``unit`` currency."""

    site: str
    hand_id: str
    seats: tuple[Seat, ...]
    button: int
    small_blind: int
    big_blind: int
    blinds: tuple[int, ...]  # live blinds/straddles posted, per player
    dead: tuple[int, ...]  # dead money posted (antes, dead small blinds), per player
    actions: tuple[RecordedAction, ...]
    board: tuple[int, ...] = ()  # community cards dealt, up to 5
    second_board: tuple[int, ...] = ()  # run it twice: the second run's full board
    hole_cards: tuple[tuple[int, ...], ...] = ()  # per player, () when never shown
    winnings: tuple[int, ...] | None = None  # chips collected per player, when recorded
    rake: int | None = None
    ante: int = 0  # the ante every player posted: the smallest entry of ``dead``
    betting: Betting = Betting.NO_LIMIT
    unit: Decimal = Decimal("0.01")
    currency: str = "USD"
    time: datetime | None = None
    table: str | None = None
    max_seats: int | None = None
    hero: int | None = None  # the player whose hole cards the history's owner was dealt
    total_pot: int | None = None  # chips in the pots before rake, uncalled bets returned
    fast_fold: bool = False  # a fast-fold ("Zoom") table
    small_bet: int = 0  # fixed-limit bet sizes (0 in no-limit)
    big_bet: int = 0
    warnings: tuple[str, ...] = ()  # codes of WARNING_REASONS, set by the replay's judge
    variants: tuple[str, ...] = ()  # codes of VARIANTS: the house rules the record shows
    extra: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def players(self) -> int:
        """Players dealt in."""
        return len(self.seats)
