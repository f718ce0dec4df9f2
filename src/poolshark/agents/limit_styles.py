"""Scripted fixed-limit hold'em styles whose strategy is known exactly.

A :class:`LimitStyle` is a handful of readable numbers (how many hands it plays and raises
preflop, how strong a hand it bets, raises and calls with after the flop, how often it
bluffs). :func:`limit_style_probabilities` turns them into fold / call / raise
probabilities at every decision, smooth in the hand's strength (logistic curves, not hard
cut-offs), so a model fitted to the play has a true distribution to recover.
:class:`LimitStyleAgent` samples those probabilities with the match's random stream, and
:func:`limit_pool_agent` mixes the shipped styles (:data:`LIMIT_STYLES`) into a synthetic
population (:data:`LIMIT_POOL`) aimed at a Poker Academy-like pool: VP$IP about 35% and an
aggression factor near 1 (its W$SD comes out near 40%, below the 45% aimed at; the
measured figures are in ``docs/limit.md``).

How a decision is scored:

* **Preflop** by the hand's preflop percentile (0 the best hand, ``pool.strength``). With
  the pot unraised it enters with the top ``play`` share of hands and raises the top
  ``raise_share``; each raise already made shrinks the calling share by
  :data:`CALL_SHRINK` (one raise fewer for a player with chips in already: a blind or a
  limper, who gets a better price) and the raising share by :data:`RAISE_SHRINK`.
* **Postflop** by ``made ** (1 + MULTIWAY * (opponents - 1))`` (``made``: the showdown
  equity against one hand of a typical range, ``pool.strength``; the power makes a hand
  look weaker against more players, :data:`MULTIWAY`). Checked to, it bets from
  ``bet_at``; facing bets it raises from ``raise_at``, the gap to the nuts halving with
  each further bet. It calls when ``max(strength, draw)`` (``draw``: the chance to complete
  a flush or straight) beats the pot odds by ``call_margin``.
* **Bluffs**: a hand too weak to call bets or raises with probability ``bluff`` (else it
  folds, or checks when that is free).

Each curve is ``sigmoid((strength - threshold) / softness)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from poolshark.agents.bots import MixtureAgent, hand_strengths
from poolshark.agents.protocol import AgentError, Decisions, Moves
from poolshark.cards.combos import COMBO_INDEX
from poolshark.engine.config import Betting
from poolshark.engine.kernel import BET, CHECK_CALL, CURRENT_BET, FOLD, FOLDED, RAISE
from poolshark.pool.strength import preflop_percentile

Floats = npt.NDArray[np.float64]

CALL_SHRINK = 0.5
"""Preflop, each raise already made multiplies the share of hands that continue by this."""
RAISE_SHRINK = 0.35
"""Preflop, each raise already made multiplies the share of hands that re-raise by this."""
MULTIWAY = 0.7
"""Postflop strength is ``made ** (1 + MULTIWAY * (opponents - 1))``: below 1, a hand is
judged less harshly multi-way than against each opponent independently (``made`` is the
equity against one hand)."""

__all__ = [
    "LIMIT_POOL",
    "LIMIT_STYLES",
    "LimitStyle",
    "LimitStyleAgent",
    "limit_pool_agent",
    "limit_style_agent",
    "limit_style_probabilities",
]


@dataclass(frozen=True)
class LimitStyle:
    """A scripted fixed-limit style (shares and strengths lie in [0, 1])."""

    name: str
    play: float  # share of starting hands that enter an unraised pot (by preflop percentile)
    raise_share: float  # share of starting hands that raise an unraised pot
    bet_at: float  # postflop strength from which it bets when checked to
    raise_at: float  # postflop strength from which it raises one bet (stricter for more)
    call_margin: float  # equity over the pot odds it wants to call (below 0: calls light)
    bluff: float  # probability that a hand too weak to call bets or raises anyway
    softness: float  # logistic temperature of every threshold (0.05: a smooth cut-off)

    def __post_init__(self) -> None:
        shares = ("play", "raise_share", "bet_at", "raise_at", "bluff")
        for field in shares:
            value = getattr(self, field)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"limit style {self.name!r}: {field} must lie in [0, 1]")
        if not -1.0 <= self.call_margin <= 1.0:
            raise ValueError(f"limit style {self.name!r}: call_margin must lie in [-1, 1]")
        if not self.softness > 0.0:
            raise ValueError(f"limit style {self.name!r}: softness must be positive")


LIMIT_STYLES: dict[str, LimitStyle] = {
    style.name: style
    for style in (
        LimitStyle("rock", 0.15, 0.07, 0.75, 0.95, 0.00, 0.01, 0.04),
        LimitStyle("weak-tight", 0.25, 0.05, 0.78, 0.96, 0.08, 0.02, 0.05),
        LimitStyle("fish", 0.62, 0.04, 0.78, 0.96, -0.06, 0.02, 0.08),
        LimitStyle("tag", 0.22, 0.15, 0.58, 0.80, 0.00, 0.08, 0.05),
        LimitStyle("maniac", 0.55, 0.40, 0.50, 0.72, -0.05, 0.20, 0.08),
    )
}
"""The shipped styles: tight-passive ``rock``, timid ``weak-tight``, loose-passive ``fish``
(calls a lot), tight-aggressive ``tag`` and loose-aggressive ``maniac`` (bluffs)."""

LIMIT_POOL: dict[str, float] = {
    "rock": 0.20,
    "weak-tight": 0.20,
    "fish": 0.36,
    "tag": 0.18,
    "maniac": 0.06,
}
"""Seat weights of the shipped styles in the synthetic limit population."""


def _sigmoid(x: Floats) -> Floats:
    values: Floats = 0.5 * (1.0 + np.tanh(0.5 * x))
    return values


def limit_style_probabilities(style: LimitStyle, decisions: Decisions) -> Floats:
    """(D, 3) probabilities of fold, check/call and bet/raise at every decision: zero where
    illegal (fold when checking is free, raise when capped), each row summing to one."""
    count = decisions.size
    batch, tables = decisions.batch, decisions.tables
    if batch.config.betting is not Betting.FIXED_LIMIT:
        raise AgentError(f"limit style {style.name!r} plays fixed-limit hold'em only")
    street = decisions.street
    call = decisions.call.astype(np.float64)
    unit = np.where(street < 2, batch.config.bet_unit(0), batch.config.bet_unit(2))
    bets = np.ceil(batch.table[tables, CURRENT_BET] / unit)  # bets made this round
    aggressive = np.zeros(count)  # wants to bet or raise (value)
    continuing = np.zeros(count)  # would at least call a bet
    preflop = np.flatnonzero(street == 0)
    if preflop.size:
        hole = decisions.hole_cards[preflop]
        percentile = preflop_percentile()[COMBO_INDEX[hole[:, 0], hole[:, 1]]]
        raises = np.maximum(bets[preflop] - 1.0, 0.0)  # the big blind is the first bet
        invested = batch.seat[tables[preflop], BET, decisions.seats[preflop]] > 0
        play = style.play * CALL_SHRINK ** np.maximum(raises - invested, 0.0)
        raising = style.raise_share * RAISE_SHRINK**raises
        aggressive[preflop] = _sigmoid((raising - percentile) / style.softness)
        continuing[preflop] = _sigmoid((play - percentile) / style.softness)
    postflop = np.flatnonzero(street > 0)
    if postflop.size:
        made, draw = hand_strengths(
            decisions.hole_cards[postflop],
            decisions.board[postflop],
            street[postflop].astype(np.float64),
        )
        alive = (batch.seat[tables[postflop], FOLDED] == 0).sum(axis=1)
        strength = made ** (1.0 + MULTIWAY * np.maximum(alive - 2, 0))
        faced = bets[postflop]
        gap = (1.0 - style.raise_at) * 0.5 ** np.maximum(faced - 1.0, 0.0)
        threshold = np.where(faced == 0, style.bet_at, 1.0 - gap)
        aggressive[postflop] = _sigmoid((strength - threshold) / style.softness)
        price = call[postflop] / np.maximum(decisions.pot[postflop] + call[postflop], 1.0)
        needed = price + style.call_margin
        continuing[postflop] = _sigmoid((np.maximum(strength, draw) - needed) / style.softness)
    continuing = np.maximum(continuing, aggressive)
    weak = 1.0 - continuing
    probabilities = np.empty((count, 3))
    probabilities[:, RAISE] = aggressive + style.bluff * weak
    probabilities[:, CHECK_CALL] = continuing - aggressive
    probabilities[:, FOLD] = (1.0 - style.bluff) * weak
    free = call <= 0
    probabilities[free, CHECK_CALL] += probabilities[free, FOLD]
    probabilities[free, FOLD] = 0.0
    capped = decisions.min_raise_to < 0
    probabilities[capped, CHECK_CALL] += probabilities[capped, RAISE]
    probabilities[capped, RAISE] = 0.0
    return probabilities


class LimitStyleAgent:
    """Plays one :class:`LimitStyle` at fixed-limit hold'em: each decision drawn from
    :meth:`probabilities` with the match's random stream (a raise is one bet)."""

    def __init__(self, style: LimitStyle) -> None:
        self.style = style

    def probabilities(self, decisions: Decisions) -> Floats:
        """(D, 3) fold, call, raise probabilities: the style's exact strategy."""
        return limit_style_probabilities(self.style, decisions)

    def act(self, decisions: Decisions) -> Moves:
        """Sample fold, check/call or bet/raise at every decision."""
        probabilities = self.probabilities(decisions)
        cumulative = np.cumsum(probabilities, axis=1)
        target = decisions.rng.random(decisions.size) * cumulative[:, -1]
        moves = np.minimum((cumulative <= target[:, None]).sum(axis=1), RAISE)
        moves = np.where((moves == RAISE) & (probabilities[:, RAISE] <= 0), CHECK_CALL, moves)
        moves = np.where((moves == FOLD) & (probabilities[:, FOLD] <= 0), CHECK_CALL, moves)
        amounts = np.where(moves == RAISE, decisions.min_raise_to, 0)
        return Moves(moves.astype(np.int64), amounts.astype(np.int64))


def limit_style_agent(name: str) -> LimitStyleAgent:
    """The agent of a shipped style by name (:data:`LIMIT_STYLES`)."""
    if name not in LIMIT_STYLES:
        raise AgentError(f"no limit style {name!r}; shipped: {', '.join(LIMIT_STYLES)}")
    return LimitStyleAgent(LIMIT_STYLES[name])


def limit_pool_agent(weights: dict[str, float] | None = None) -> MixtureAgent:
    """The synthetic limit population: every seat a random style of ``weights`` (default
    :data:`LIMIT_POOL`) for each hand."""
    mix = LIMIT_POOL if weights is None else weights
    names = list(mix)
    agents = [limit_style_agent(name) for name in names]
    return MixtureAgent(agents, [mix[name] for name in names], names)
