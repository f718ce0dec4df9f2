"""Built-in agents: baselines, a rule-based tight-aggressive bot, and synthetic-pool styles.

* :class:`RandomAgent`: a uniform choice among the legal actions of an action set.
* :class:`CallingStation`: always checks or calls.
* :class:`Folder`: checks and completes the blinds, folds to any bet or raise (a station's
  twin until someone bets: the memory experiment's other style).
* :class:`TightAggressive`: preflop by hand rank and position, postflop by made-hand
  strength and draws against the pot odds; bets and raises strong hands, calls medium
  ones at a fair price, folds the rest, never bluffs. Thresholds live in :class:`TagRules`.
* :class:`StyleAgent`: plays one synthetic-pool style, or a weighted mix of styles (a whole
  pool), with the same compiled sampler that simulates pools, so its decisions are exactly
  the style's policy.
* :class:`MixtureAgent`: a weighted mix of any agents (a pool of styles and user bots).

Per-seat, per-hand draws (which style or which agent plays a seat this hand) are made at
the seat's first decision of the hand, from the match's random stream.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import Agent, Decisions, Moves, Probabilities, engine_moves
from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX
from poolshark.cards.evaluator import tables as evaluator_tables
from poolshark.engine.actions import ActionSet
from poolshark.engine.kernel import BET, CHECK_CALL, FOLD, RAISE
from poolshark.pool.context import Feature, Position
from poolshark.pool.policy import JAM_SNAP, sample_actions
from poolshark.pool.pools import Pool
from poolshark.pool.strength import (
    HAS_STRAIGHT,
    StrengthCache,
    draw_strength_one,
    made_strength_cached,
    preflop_percentile,
    strength_cache,
)
from poolshark.pool.style import Style, bank_of

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


class RandomAgent:
    """Uniform over the legal actions of ``actions`` (fold, call, raise 1/2 pot, pot, all-in)."""

    def __init__(self, actions: ActionSet | None = None) -> None:
        self.actions = actions or ActionSet()

    def act(self, decisions: Decisions) -> Probabilities:
        """Equal probability on every legal action."""
        mask = decisions.mask(self.actions).astype(np.float64)
        return Probabilities(self.actions, mask / mask.sum(axis=1, keepdims=True))


class CallingStation:
    """Checks or calls every decision, whatever the price."""

    def act(self, decisions: Decisions) -> Moves:
        """Check/call everywhere."""
        return Moves(np.full(decisions.size, CHECK_CALL, dtype=np.int64))


class Folder:
    """Checks, and calls only the forced bets (a limp, a completed small blind); folds as
    soon as anyone bets or raises. It plays exactly like a :class:`CallingStation` until
    an opponent bets, so only an opponent who bets (and sees the fold) can tell them apart."""

    def act(self, decisions: Decisions) -> Moves:
        """Fold where the price comes from a bet or raise above the big blind, else check or
        call."""
        facing = decisions.batch.seat[decisions.tables, BET].max(axis=1)
        raised = (decisions.street > 0) | (facing > decisions.big_blind)
        move = np.where((decisions.call > 0) & raised, FOLD, CHECK_CALL)
        return Moves(move.astype(np.int64))


# -- the tight-aggressive bot ------------------------------------------------------------------


@dataclass(frozen=True)
class TagRules:
    """Thresholds of :class:`TightAggressive` (hand shares are preflop percentiles: 0.15 is
    the best 15% of hands by the shipped ranking; strengths are ``made`` percentiles).

    Opening shares are per position in the order EP, MP, CO, BTN, SB, BB (the BB raises
    only over limpers). Postflop, ``strength`` is ``made ** (players alive - 1)``.
    """

    open_share: tuple[float, float, float, float, float, float] = (
        0.14,
        0.17,
        0.25,
        0.40,
        0.33,
        0.20,
    )
    open_size_bb: float = 2.5  # plus one big blind per limper
    threebet_share: float = 0.045
    threebet_size: float = 3.0  # times the open
    call_open_share: float = 0.12
    bb_defend_share: float = 0.25
    fourbet_share: float = 0.025  # goes all-in
    call_threebet_share: float = 0.06
    expensive_bb: float = 20.0  # a price above this many big blinds preflop ...
    call_expensive_share: float = 0.04  # ... is paid only with this share of hands
    value_bet: float = 0.72  # bet when nothing to call at this strength or more
    value_size: float = 0.66  # of the pot
    cbet_strength: float = 0.45  # continuation bet (flop, 3 players or fewer) from here
    cbet_draw: float = 0.30  # or with at least this chance to complete a draw
    cbet_size: float = 0.5
    raise_strength: float = 0.90  # raise a bet at this strength or more
    raise_size: float = 1.0  # of the pot after calling
    call_margin: float = 0.30  # call when strength >= pot odds + margin (or draw >= odds)


class TightAggressive:
    """A rule-based tight-aggressive bot; see :class:`TagRules` for every threshold."""

    def __init__(self, rules: TagRules | None = None) -> None:
        self.rules = rules or TagRules()

    def act(self, decisions: Decisions) -> Moves:
        """Exact moves from the decision contexts, hand ranks and postflop strengths."""
        if decisions.size == 0:
            return Moves(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        f = decisions.contexts
        hole = decisions.hole_cards
        preflop = f[:, Feature.STREET] == 0
        target = np.full(decisions.size, -1.0)  # raise to this total; -1: no raise
        keep = np.zeros(decisions.size, dtype=np.bool_)  # call (or check) when not raising
        percentile = preflop_percentile()[COMBO_INDEX[hole[:, 0], hole[:, 1]]]
        rows = np.flatnonzero(preflop)
        self._preflop(f[rows], percentile[rows], target, keep, rows)
        rows = np.flatnonzero(~preflop)
        if rows.size:
            made, draw = hand_strengths(hole[rows], decisions.board[rows], f[rows, Feature.STREET])
            self._postflop(f[rows], made, draw, target, keep, rows)
        return _to_moves(f, target, keep)

    def _preflop(self, f: Floats, p: Floats, target: Floats, keep: Bools, rows: Int64s) -> None:
        r = self.rules
        raises = f[:, Feature.PREFLOP_RAISES]
        position = f[:, Feature.POSITION].astype(np.int64)
        to_call = f[:, Feature.TO_CALL]
        big_blind = f[:, Feature.BIG_BLIND]
        current = f[:, Feature.CURRENT_BET]
        expensive = to_call > r.expensive_bb * big_blind
        cheap_enough = ~expensive | (p < r.call_expensive_share)
        unopened = raises == 0
        opens = unopened & (p < np.asarray(r.open_share)[position])
        open_to = big_blind * (r.open_size_bb + f[:, Feature.LIMPERS])
        facing_open = raises == 1
        threebets = facing_open & (p < r.threebet_share)
        defend = np.where(position == Position.BB, r.bb_defend_share, r.call_open_share)
        facing_more = raises >= 2
        fourbets = facing_more & (p < r.fourbet_share)
        raise_to = np.where(
            unopened, open_to, np.where(facing_open, r.threebet_size * current, np.inf)
        )
        raising = (opens | threebets | fourbets) & cheap_enough
        target[rows] = np.where(raising, raise_to, -1.0)
        calls = (facing_open & (p < defend)) | (facing_more & (p < r.call_threebet_share)) | raising
        keep[rows] = calls & cheap_enough

    def _postflop(
        self, f: Floats, made: Floats, draw: Floats, target: Floats, keep: Bools, rows: Int64s
    ) -> None:
        r = self.rules
        strength = made ** np.maximum(f[:, Feature.ALIVE] - 1.0, 1.0)
        to_call = f[:, Feature.TO_CALL]
        pot = f[:, Feature.POT]
        current = f[:, Feature.CURRENT_BET]
        free = to_call == 0
        value = free & (strength >= r.value_bet)
        cbet = (
            free
            & ~value
            & (f[:, Feature.STREET] == 1)
            & (f[:, Feature.PREVIOUS_AGGRESSOR] > 0)
            & (f[:, Feature.ALIVE] <= 3)
            & ((strength >= r.cbet_strength) | (draw >= r.cbet_draw))
        )
        odds = to_call / np.maximum(pot + to_call, 1.0)
        facing = ~free
        raising = facing & (strength >= r.raise_strength)
        calling = facing & ((strength >= odds + r.call_margin) | (draw >= odds))
        after_call = f[:, Feature.MY_BET] + to_call + r.raise_size * (pot + to_call)
        target[rows] = np.select(
            [value, cbet, raising],
            [current + r.value_size * pot, current + r.cbet_size * pot, after_call],
            -1.0,
        )
        keep[rows] = free | raising | calling


def _to_moves(f: Floats, target: Floats, keep: Bools) -> Moves:
    """Exact moves: a wanted raise clamped to the legal bounds (snapped all-in near the
    stack, as styles do), a call when raising is not allowed, else call or fold."""
    least = f[:, Feature.MIN_RAISE_TO]
    most = f[:, Feature.MAX_RAISE_TO]
    can_raise = most > 0
    raising = (target >= 0) & can_raise
    amount = np.floor(np.minimum(target, most) + 0.5)
    amount = np.where(amount >= JAM_SNAP * most, most, np.maximum(amount, least))
    move = np.where(raising, RAISE, np.where(keep | (target >= 0), CHECK_CALL, FOLD))
    move = np.where((move == FOLD) & (f[:, Feature.TO_CALL] == 0), CHECK_CALL, move)
    return Moves(move.astype(np.int64), np.where(raising, amount, 0).astype(np.int64))


def hand_strengths(hole: Int64s, board: Int64s, street: Floats) -> tuple[Floats, Floats]:
    """(made, draw) of D holdings on their boards (``street`` 1..3 says how many cards
    count), by the compiled kernels of ``poolshark.pool.strength``."""
    count = hole.shape[0]
    made = np.zeros(count)
    draw = np.zeros(count)
    cards = np.ascontiguousarray(np.maximum(board, 0), dtype=np.int64)
    shown = (np.asarray(street, dtype=np.int64) + 2).astype(np.int64)
    if count:
        _strengths_kernel(
            np.ascontiguousarray(hole, dtype=np.int64),
            cards,
            shown,
            strength_cache(),
            COMBO_INDEX,
            COMBO_CARDS,
            *evaluator_tables(),
            HAS_STRAIGHT,
            made,
            draw,
        )
    return made, draw


@nb.njit(cache=True, nogil=True)
def _strengths_kernel(
    hole: Int64s,
    board: Int64s,
    shown: Int64s,
    memo: StrengthCache,
    combo_index: npt.NDArray[np.int16],
    combo_cards: npt.NDArray[np.uint8],
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    has_straight: Bools,
    made: Floats,
    draw: Floats,
) -> None:
    for i in range(hole.shape[0]):
        first, second = hole[i, 0], hole[i, 1]
        made[i] = made_strength_cached(
            combo_index[first, second],
            board[i],
            shown[i],
            memo,
            combo_cards,
            card_key,
            card_mask,
            row_base,
            rank_table,
            flush_table,
        )
        draw[i] = draw_strength_one(first, second, board[i], shown[i], has_straight)


# -- per-seat draws, styles and mixtures ---------------------------------------------------------


class SeatDraws:
    """Which of K components plays each (table, seat) this hand, drawn by ``weights`` at the
    seat's first decision of a hand and kept until the hand changes; with ``per_match``,
    drawn at the seat's first decision in the batch and kept for all its hands (each table
    of a batch one match)."""

    def __init__(self, weights: Sequence[float], per_match: bool = False) -> None:
        values = np.asarray(weights, dtype=np.float64)
        if values.ndim != 1 or values.size == 0 or not np.isfinite(values).all():
            raise ValueError(f"need a list of finite weights, got {weights!r}")
        if (values < 0).any() or values.sum() <= 0:
            raise ValueError(f"weights must be non-negative with a positive sum, got {weights!r}")
        self.weights = values / values.sum()
        self.per_match = per_match
        self._owner: int | None = None
        self._hand = np.zeros((0, 0), dtype=np.int64)
        self._choice = np.zeros((0, 0), dtype=np.int64)

    @property
    def choices(self) -> Int64s:
        """(tables, seats) the component last drawn for each seat of the current batch, -1
        where none has been drawn."""
        choices: Int64s = np.where(self._hand >= 0, self._choice, -1)
        return choices

    def draw(self, decisions: Decisions) -> Int64s:
        """(D,) component index per decision."""
        batch = decisions.batch
        if self._owner != id(batch):
            shape = (batch.size, batch.config.seats)
            self._owner = id(batch)
            self._hand = np.full(shape, -1, dtype=np.int64)
            self._choice = np.zeros(shape, dtype=np.int64)
        tables, seats = decisions.tables, decisions.seats
        drawn = self._hand[tables, seats]
        stale = np.flatnonzero(drawn < 0 if self.per_match else drawn != decisions.hand_ids)
        if stale.size:
            picks = decisions.rng.choice(self.weights.size, size=stale.size, p=self.weights)
            self._choice[tables[stale], seats[stale]] = picks
            self._hand[tables[stale], seats[stale]] = decisions.hand_ids[stale]
        choice: Int64s = self._choice[tables, seats]
        return choice


class StyleAgent:
    """Plays a synthetic-pool style, or a mix of styles with given weights (a pool), exactly
    as the pool simulator does: contexts from the engine's arrays, the compiled sampler."""

    def __init__(self, styles: Sequence[Style], weights: Sequence[float] | None = None) -> None:
        if not styles:
            raise ValueError("a style agent needs at least one style")
        self.styles = tuple(styles)
        self.bank = bank_of(list(styles))
        self.draws = SeatDraws(weights if weights is not None else [1.0] * len(styles))
        if self.draws.weights.size != len(styles):
            raise ValueError(f"{len(styles)} styles but {self.draws.weights.size} weights")

    @classmethod
    def from_pool(cls, pool: Pool) -> StyleAgent:
        """Every seat a random player of the pool: styles by the pool's seat frequencies."""
        return cls(pool.styles, pool.style_frequencies().tolist())

    def act(self, decisions: Decisions) -> Moves:
        """Sample each decision from its seat's style."""
        count = decisions.size
        style = self.draws.draw(decisions)
        move, amount = sample_actions(
            self.bank,
            style,
            decisions.contexts,
            decisions.hole_cards,
            np.maximum(decisions.board, 0),
            decisions.rng.random(count),
        )
        return Moves(move, amount)


class MixtureAgent:
    """A weighted mix of agents: each seat is played by one component for a whole hand."""

    def __init__(
        self, components: Sequence[Agent], weights: Sequence[float], names: Sequence[str]
    ) -> None:
        if not len(components) == len(weights) == len(names) or not components:
            raise ValueError("give one weight and one name per component, at least one")
        self.components = tuple(components)
        self.names = tuple(names)
        self.draws = SeatDraws(weights)

    def act(self, decisions: Decisions) -> Moves:
        """Ask each component for the seats it plays; merge their exact moves."""
        choice = self.draws.draw(decisions)
        moves = np.zeros(decisions.size, dtype=np.int64)
        amounts = np.zeros(decisions.size, dtype=np.int64)
        for k in np.unique(choice).tolist():
            rows = np.flatnonzero(choice == k)
            part = decisions.subset(rows)
            answer = self.components[k].act(part)
            moves[rows], amounts[rows] = engine_moves(part, answer, self.names[k])
        return Moves(moves, amounts)
