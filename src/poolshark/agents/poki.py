"""A Poki-like bot for heads-up fixed-limit hold'em (the gauntlet's "Poki").

Reconstructed from the published descriptions of the University of Alberta's Poki (Billings,
Davidson, Schaeffer and Szafron, 2002), simplified for two players; formulas and
thresholds are in ``docs/hardbot.md`` ("Gauntlet: Poki and Vexbot").

* **Opponent weights.** A weight per opponent combo, 1 for every combo at the start of a
  hand (card removal applied at use). After each opponent bet, raise or call the weights
  are multiplied by a ramp of the combo's *implied strength* s (preflop: one minus its
  preflop percentile; postflop: its rank percentile on the board then,
  ``limit_strength.combo_ranks``): 0.01 below ``mu - sigma``, 1 above ``mu + sigma``,
  linear between, with ``sigma = 0.4 (1 - mu)``. The threshold ``mu`` is the share of
  hands the opponent does *not* play that way: ``1 - P(raise)`` for a bet or raise,
  ``1 - P(raise) - P(call)`` for a call (a check or a call with nothing to call is not
  reweighted), from this opponent's frequencies per (street, facing a bet), counted over
  the match with a prior of ten pseudo-actions.
* **Hand evaluation.** HS, PPOT and NPOT against those weights (``limit_strength``);
  effective hand strength ``EHS = HS + (1 - HS) PPOT``; preflop, HS is the all-in equity
  against the weights and the potentials are zero. Pot odds ``call / (pot + call)``.
* **Rules.** From the most aggressive to the least, each fires with its own probability
  when its condition holds: raise with EHS >= ``make2``; raise with EHS >= ``make1`` when
  at most one bet is to call; semi-bluff (flop and turn) with PPOT >= ``semi_bluff_ppot``
  when at most one bet is to call; bluff when checking is free with EHS below
  ``bluff_below``; call when the equity ``HS (1 - NPOT) + (1 - HS) PPOT`` covers the pot
  odds; otherwise fold, or check when free.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from poolshark.agents.limit_memory import (
    EndedHand,
    HeadsUpLimitAgent,
    facing_bet,
    positional,
    step_nodes,
)
from poolshark.agents.limit_strength import (
    combo_ranks,
    preflop_strength,
    strength_potential,
)
from poolshark.agents.protocol import SeatView
from poolshark.cards.combos import N_COMBOS
from poolshark.engine.kernel import CHECK_CALL, FOLD, RAISE
from poolshark.pool.strength import preflop_percentile

Floats = npt.NDArray[np.float64]

BOARD_SIZE = (0, 3, 4, 5)
"""Board cards shown on each street."""
FLOOR = 0.01
"""The least weight a reweighting leaves a combo (Poki's floor: nothing is ruled out)."""


@dataclass(frozen=True)
class PokiRules:
    """Thresholds and firing probabilities of :class:`Poki`'s rules (docs/hardbot.md)."""

    make2: float = 0.85
    make2_chance: float = 0.9
    make1: float = 0.64
    make1_chance: float = 0.8
    preflop_make1: float = 0.60
    semi_bluff_ppot: float = 0.30
    semi_bluff_chance: float = 0.5
    bluff_below: float = 0.35
    bluff_chance: float = 0.12
    call_chance: float = 1.0
    sigma_share: float = 0.4
    prior_actions: float = 10.0


PRIOR_FREQUENCIES = np.array([[0.0, 0.6, 0.4], [0.25, 0.5, 0.25]])
"""Prior (fold, call, raise) shares with nothing to call (row 0) and facing a bet (row 1)."""


@dataclass
class _HandWeights:
    """One table's hand in progress: the opponent weights and the log entries applied."""

    hand_id: int
    weights: Floats
    applied: int = 0


@dataclass
class PokiModel:
    """This opponent's action counts per (street, facing a bet, action) over the match."""

    counts: Floats = field(default_factory=lambda: np.zeros((4, 2, 3)))

    def frequencies(self, street: int, facing: int, prior_actions: float) -> Floats:
        """(fold, call, raise) shares, the counts shrunk toward the prior."""
        seen = self.counts[street, facing]
        shares: Floats = (seen + prior_actions * PRIOR_FREQUENCIES[facing]) / (
            seen.sum() + prior_actions
        )
        return shares


class Poki(HeadsUpLimitAgent):
    """The Poki-like rule bot (module docstring); ``rules`` sets its thresholds."""

    name = "poki"

    def __init__(self, rules: PokiRules | None = None) -> None:
        super().__init__()
        self.rules = rules or PokiRules()
        self.model = PokiModel()
        self.hands: dict[int, _HandWeights] = {}
        self.preflop_rank: Floats = 1.0 - preflop_percentile()

    def reset(self) -> None:
        """A new match: forget the opponent and the hands in progress."""
        self.model = PokiModel()
        self.hands = {}

    def learn(self, hand: EndedHand) -> None:
        """Count the opponent's actions of a finished hand per (street, facing a bet)."""
        for node, (position, move, street) in zip(step_nodes(hand.steps), hand.steps, strict=False):
            if position != hand.position:
                self.model.counts[street, facing_bet(node), move] += 1

    def weights(self, view: SeatView, table: int, hand_id: int) -> Floats:
        """The opponent's combo weights at this decision, reweighted by its new actions."""
        hand = self.hands.get(table)
        if hand is None or hand.hand_id != hand_id:
            hand = _HandWeights(hand_id, np.ones(N_COMBOS))
            self.hands[table] = hand
        steps = positional(view.actions, view.button)
        ours = 0 if view.seat == view.button else 1
        for index, (node, (position, move, street)) in enumerate(
            zip(step_nodes(steps), steps, strict=False)
        ):
            if index >= hand.applied and position != ours and move != FOLD:
                board = view.board[: BOARD_SIZE[street]]
                self._reweight(hand.weights, board, street, facing_bet(node), move)
        hand.applied = len(steps)
        return hand.weights

    def _reweight(
        self, weights: Floats, board: tuple[int, ...], street: int, facing: int, move: int
    ) -> None:
        """Multiply ``weights`` by the ramp of implied strength for one opponent action."""
        if move == CHECK_CALL and not facing:
            return  # a check says little (Poki leaves checks alone)
        shares = self.model.frequencies(street, facing, self.rules.prior_actions)
        mu = 1.0 - shares[RAISE] if move == RAISE else 1.0 - shares[RAISE] - shares[CHECK_CALL]
        mu = float(np.clip(mu, 0.0, 0.99))
        sigma = max(self.rules.sigma_share * (1.0 - mu), 1e-3)
        strength = self.preflop_rank if street == 0 else combo_ranks(board)
        ramp = np.clip((strength - (mu - sigma)) / (2 * sigma), FLOOR, 1.0)
        weights *= np.where(strength >= 0, ramp, 1.0)

    def evaluate(self, view: SeatView, weights: Floats) -> tuple[float, float, float]:
        """(HS, PPOT, NPOT) against ``weights``; preflop the equity and no potentials."""
        seed = int(view.rng.integers(2**31))
        if view.street == 0:
            return preflop_strength(view.hole_cards, weights, seed=seed), 0.0, 0.0
        return strength_potential(view.hole_cards, view.board, weights, seed=seed)

    def choose(self, view: SeatView, table: int, hand_id: int) -> tuple[int, int]:
        """Poki's rules, most aggressive first, each firing with its probability."""
        r = self.rules
        hs, ppot, npot = self.evaluate(view, self.weights(view, table, hand_id))
        ehs = hs + (1.0 - hs) * ppot
        unit = view.big_blind * (1 if view.street < 2 else 2)
        bets_to_call = view.call / unit
        raise_to = view.min_raise_to or 0
        draw = view.rng.random
        make1 = r.preflop_make1 if view.street == 0 else r.make1
        if ehs >= r.make2 and draw() < r.make2_chance:
            return RAISE, raise_to
        if ehs >= make1 and bets_to_call <= 1 and draw() < r.make1_chance:
            return RAISE, raise_to
        semi = view.street in (1, 2) and ppot >= r.semi_bluff_ppot and bets_to_call <= 1
        if semi and draw() < r.semi_bluff_chance:
            return RAISE, raise_to
        bluff = view.call == 0 and view.street > 0 and ehs < r.bluff_below
        if bluff and draw() < r.bluff_chance:
            return RAISE, raise_to
        if view.call == 0:
            return CHECK_CALL, 0
        pot_odds = view.call / (view.pot + view.call)
        equity = hs * (1.0 - npot) + (1.0 - hs) * ppot
        if equity >= pot_odds and draw() < r.call_chance:
            return CHECK_CALL, 0
        return FOLD, 0
