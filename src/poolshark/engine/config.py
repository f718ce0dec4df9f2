"""The rules of one hold'em game: betting structure, forced bets, rake. Chips are integers."""

from __future__ import annotations

from enum import IntFlag, StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Betting(StrEnum):
    """Betting structure."""

    NO_LIMIT = "no-limit"
    FIXED_LIMIT = "fixed-limit"


class Settlement(StrEnum):
    """How an all-in pot is settled before the river: deal the cards, or pay expected value."""

    DEAL = "deal"
    EXPECTED_VALUE = "ev"


class HouseRule(IntFlag):
    """House rules a table may follow instead of the engine's own (real histories show
    them; ``histories.record.VARIANTS`` names them for records).

    ``POSTED_PRICE``: the price to call and the preflop raises count from the largest bet
    actually posted, and raise by the big blind. ``ANTES_IN_MAIN_POT``: dead money goes
    whole into the main pot, contested by every live player. ``SHORT_ALL_IN_REOPENS``: an
    all-in raise short of a full one reopens the betting when it is at least the round's
    largest raise so far.
    """

    POSTED_PRICE = 1
    ANTES_IN_MAIN_POT = 2
    SHORT_ALL_IN_REOPENS = 4


NO_HOUSE_RULES = HouseRule(0)
"""The engine's own rules, no house rule."""

FIXED_LIMIT_MAX_DECISIONS = 150
"""The fixed-limit game's default safety cap on decisions per hand (issue 19)."""


class GameConfig(BaseModel):
    """Everything about a game that is fixed before the cards are dealt (validated).

    Amounts are integer chips. ``raise_cap`` is the number of bets and raises allowed per
    fixed-limit round (a bet and three raises by default); heads-up play is uncapped
    unless ``cap_heads_up`` is set. Rake is ``rake_percent`` of the hand's whole pot, rounded down,
    at most ``rake_cap`` chips per hand, and none when the hand ends before the flop if
    ``no_flop_no_drop``.

    ``max_decisions`` is the safety cap on a hand's length: a decision is every voluntary
    action (fold, check, call, bet, raise; forced bets are not decisions), and once a hand
    has taken ``max_decisions`` of them no bet or raise is legal any more, so the hand ends
    within :attr:`most_decisions`. ``None`` (the default) means 150 under fixed limit
    (:data:`FIXED_LIMIT_MAX_DECISIONS`, where uncapped heads-up raising could go on for
    ever) and no cap under no limit (the stacks end every hand); :attr:`decision_cap` is
    the cap in force.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    betting: Betting = Betting.NO_LIMIT
    seats: int = Field(6, ge=2, le=10)
    small_blind: int = Field(1, ge=0)
    big_blind: int = Field(2, gt=0)
    ante: int = Field(0, ge=0)
    straddle: int = Field(0, ge=0, description="Posted by the player left of the big blind.")
    small_bet: int | None = Field(None, gt=0, description="Fixed-limit bet on preflop and flop.")
    big_bet: int | None = Field(None, gt=0, description="Fixed-limit bet on turn and river.")
    raise_cap: int = Field(4, ge=1)
    cap_heads_up: bool = False
    rake_percent: float = Field(0.0, ge=0, le=100)
    rake_cap: int | None = Field(None, ge=0)
    no_flop_no_drop: bool = True
    settlement: Settlement = Settlement.DEAL
    max_decisions: int | None = Field(
        None, ge=1, description="Decisions after which nobody may raise (None: the default)."
    )

    @model_validator(mode="after")
    def _consistent(self) -> GameConfig:
        if self.small_blind > self.big_blind:
            raise ValueError("the small blind cannot exceed the big blind")
        if self.straddle and self.straddle < 2 * self.big_blind:
            raise ValueError("a straddle is at least twice the big blind")
        if self.straddle and self.seats < 3:
            raise ValueError("a straddle needs at least three seats")
        return self

    def bet_unit(self, street: int) -> int:
        """Fixed-limit bet size on a street (0 preflop .. 3 river)."""
        small = self.small_bet if self.small_bet is not None else self.big_blind
        big = self.big_bet if self.big_bet is not None else 2 * small
        return small if street < 2 else big

    @property
    def decision_cap(self) -> int | None:
        """Decisions after which raising is closed (``max_decisions`` or the game's
        default: 150 under fixed limit, none under no limit)."""
        if self.max_decisions is not None:
            return self.max_decisions
        return FIXED_LIMIT_MAX_DECISIONS if self.betting is Betting.FIXED_LIMIT else None

    @property
    def most_decisions(self) -> int | None:
        """The most decisions a capped hand can take (None when uncapped): the cap, then at
        most ``seats - 1`` answers to the last raise and ``seats`` checks or folds on each of
        up to three later streets."""
        cap = self.decision_cap
        return None if cap is None else cap + 4 * self.seats - 1
