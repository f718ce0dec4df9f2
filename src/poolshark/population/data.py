"""Training rows of the population action model: decisions, their features, labels and the
true pool policy, from simulated pools or ingested decision rows, with imputed hole cards.

A *decision* is the state just before one voluntary action: a hand's public record up to
that point (:class:`HandLogs`: game, stacks before the forced bets, button, board, action
log), the acting seat, its two hole cards and the synthetic-pool decision context
(:mod:`poolshark.pool.context`). The same :class:`DecisionStates` come from three places,
and everything after is one code path, so features cannot drift between them:

* simulated hands (:func:`simulated_states`: every hole card known; contexts by
  ``replay_contexts``);
* ingested decision rows (:func:`rows_states`: hands rebuilt from the Parquet rows, hole
  cards only where shown, the rest imputed);
* live engine decisions (``poolshark.population.agent``: contexts by ``context_batch``).

**Action classes** (:data:`N_CLASSES` = 14): fold, check/call, a raise in one of eleven
pot-fraction buckets around :data:`SIZE_CENTERS`, and all-in. A raise's fraction is
``(raise_to - current bet) / (pot + to_call)`` (the rows' ``raise_pot``, and what
``engine.actions.ActionSet`` means by a pot fraction); a raise to the whole stack is all-in
whatever its fraction. :func:`legal_classes` marks the classes a decision allows.

**Features** (:func:`featurize`): the encoded context plus a grid of the hand's betting so
far by street and seat (``public``); the hole cards against the board (preflop class and
rank, the styles' own ``made`` and ``draw`` strengths, hand category; ``hand``); and for
every opponent still in the hand a row of public facts about it and a summary of its range
from a :class:`~poolshark.pool.ranges.RangeSource`: the share of that range our hand
beats now, the range's mean ``made`` and ``draw``, its normalized entropy (``opponents``).

**True policy** (:func:`true_policies`): on a synthetic pool the average player's exact
action distribution at a decision is the mixture of the styles' distributions for its
known hole cards, each weighted by the pool's style frequency times the probability that
style gives the player's own earlier actions in the hand (Bayes over styles).

**Imputation** (:func:`impute_hole_cards`): players whose cards were never shown get a
combo drawn from a range source's posterior for them at the end of the hand (after all of
their actions), with every known card blocked; the hidden players of one hand are drawn
together and redrawn while two of them share a card (the two-stage rejection of seed 003,
section 6.1).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, cast

import numba as nb
import numpy as np
import numpy.typing as npt
import polars as pl

from poolshark.cards.combos import COMBO_CARDS, COMBO_CLASS, COMBO_INDEX, N_COMBOS
from poolshark.cards.evaluator import KEY_INIT, value_of
from poolshark.cards.evaluator import tables as evaluator_tables
from poolshark.cards.hand_value import category_bounds
from poolshark.engine.config import GameConfig
from poolshark.pool.context import (
    MOVE_CALL,
    MOVE_FOLD,
    MOVE_RAISE,
    N_FEATURES,
    ActionLogs,
    Feature,
    apply_action,
    fill_features,
    position_class,
    post_forced_bets,
    replay_contexts,
    return_uncalled,
)
from poolshark.pool.policy import MAX_SIZES, N_COLUMNS, StyleBank, fill_probabilities
from poolshark.pool.pools import Pool
from poolshark.pool.ranges import ExactPoolRanges, RangeQuery, RangeSource, UniformRanges
from poolshark.pool.simulate import FORCED, SimulatedHands
from poolshark.pool.strength import (
    HAS_STRAIGHT,
    draw_strength_all,
    draw_strength_one,
    made_strength_all,
    made_strength_one,
    preflop_percentile,
    reference_ranges,
)

Floats = npt.NDArray[np.float64]
Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

DATA_FORMAT = "poolshark-action-data-v1"


class ActionDataError(ValueError):
    """Decisions or rows that cannot be turned into training rows; the message says why."""


# -- action classes ------------------------------------------------------------------------

SIZE_CENTERS = (0.25, 0.33, 0.5, 0.66, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 5.0)
"""Pot fractions the raise buckets are centred on (bucket edges: geometric midpoints)."""
N_SIZES = len(SIZE_CENTERS)
FOLD_CLASS, CALL_CLASS, FIRST_RAISE_CLASS = 0, 1, 2
ALL_IN_CLASS = FIRST_RAISE_CLASS + N_SIZES
N_CLASSES = ALL_IN_CLASS + 1
"""fold, check/call, eleven raise buckets, all-in."""
SIZE_EDGES: Floats = np.sqrt(np.array(SIZE_CENTERS[:-1]) * np.array(SIZE_CENTERS[1:]))
"""(N_SIZES - 1,) inner bucket edges: a fraction at or above edge i is in bucket i + 1."""
SIZE_EDGES.flags.writeable = False
CLASS_NAMES = (
    "fold",
    "check-call",
    *(f"raise {c:g}" for c in SIZE_CENTERS),
    "all-in",
)
STREET_NAMES = ("preflop", "flop", "turn", "river")
VISIBLE = (0, 3, 4, 5)
"""Board cards shown on each street."""
VISIBLE_NB = np.array(VISIBLE, dtype=np.int64)
VISIBLE_NB.flags.writeable = False


def raise_fraction(raise_to: npt.ArrayLike, contexts: Floats) -> Floats:
    """``(raise_to - current bet) / (pot + to_call)`` of raises at the given contexts."""
    f = np.asarray(contexts, dtype=np.float64)
    pot = f[..., Feature.POT] + f[..., Feature.TO_CALL]
    result: Floats = (np.asarray(raise_to, dtype=np.float64) - f[..., Feature.CURRENT_BET]) / (
        np.maximum(pot, 1.0)
    )
    return result


def size_bucket(fractions: npt.ArrayLike) -> Int64s:
    """Raise bucket 0..N_SIZES-1 of pot fractions."""
    bucket: Int64s = np.searchsorted(SIZE_EDGES, np.asarray(fractions), side="right").astype(
        np.int64
    )
    return bucket


def action_classes(move: npt.ArrayLike, amount: npt.ArrayLike, contexts: Floats) -> Int64s:
    """Class of each action (move 0/1/2, a raise's total to) taken at its context."""
    moves = np.asarray(move, dtype=np.int64)
    amounts = np.asarray(amount, dtype=np.int64)
    f = np.asarray(contexts, dtype=np.float64)
    classes = np.where(moves == MOVE_FOLD, FOLD_CLASS, CALL_CLASS).astype(np.int64)
    raising = moves == MOVE_RAISE
    bucket = FIRST_RAISE_CLASS + size_bucket(raise_fraction(amounts, f))
    all_in = amounts >= f[:, Feature.MAX_RAISE_TO]
    classes[raising] = np.where(all_in, ALL_IN_CLASS, bucket)[raising]
    return classes


def legal_classes(contexts: Floats) -> Bools:
    """(N, N_CLASSES) the classes each decision allows: fold only when facing a bet, a raise
    bucket when some legal raise below all-in falls in it, all-in when raising is allowed."""
    f = np.asarray(contexts, dtype=np.float64)
    n = f.shape[0]
    legal = np.zeros((n, N_CLASSES), dtype=np.bool_)
    legal[:, FOLD_CLASS] = f[:, Feature.TO_CALL] > 0
    legal[:, CALL_CLASS] = True
    least, most = f[:, Feature.MIN_RAISE_TO], f[:, Feature.MAX_RAISE_TO]
    can_raise = most > 0
    legal[:, ALL_IN_CLASS] = can_raise
    sized = can_raise & (least < most)
    low = size_bucket(raise_fraction(least, f))
    high = size_bucket(raise_fraction(most - 1, f))
    buckets = np.arange(N_SIZES)[None, :]
    legal[:, FIRST_RAISE_CLASS:ALL_IN_CLASS] = (
        sized[:, None] & (buckets >= low[:, None]) & (buckets <= high[:, None])
    )
    return legal


@nb.njit(cache=True, nogil=True)
def _class_of(move: int, amount: int, features: Floats, edges: Floats) -> int:
    """:func:`action_classes` of one action (compiled)."""
    if move == MOVE_FOLD:
        return FOLD_CLASS
    if move != MOVE_RAISE:
        return CALL_CLASS
    if amount >= features[Feature.MAX_RAISE_TO]:
        return ALL_IN_CLASS
    pot = max(features[Feature.POT] + features[Feature.TO_CALL], 1.0)
    fraction = (amount - features[Feature.CURRENT_BET]) / pot
    bucket = 0
    while bucket < edges.size and fraction >= edges[bucket]:
        bucket += 1
    return FIRST_RAISE_CLASS + bucket


# -- decisions ------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class HandLogs:
    """H hands' public records: the game, each seat's chips before the forced bets
    (H, S), the button (H,), the board (H, 5; -1 for a card nobody saw) and the padded
    action logs (move codes of :mod:`poolshark.pool.context`)."""

    config: GameConfig
    starting_stacks: Int64s
    button: Int64s
    boards: Int64s
    logs: ActionLogs

    def __post_init__(self) -> None:
        h, s = len(self.button), self.config.seats
        if self.starting_stacks.shape != (h, s) or self.boards.shape != (h, 5):
            raise ActionDataError(
                f"hand logs: need ({h}, {s}) stacks and ({h}, 5) boards, got "
                f"{self.starting_stacks.shape} and {self.boards.shape}"
            )
        if self.logs.length.shape != (h,):
            raise ActionDataError(f"hand logs: the action logs must hold {h} hands")
        if self.boards.size and (self.boards.min() < -1 or self.boards.max() > 51):
            raise ActionDataError("hand logs: board cards are 0..51, or -1 for an unseen card")


@dataclass(frozen=True, eq=False)
class DecisionStates:
    """N decisions: decision ``i`` is seat ``seat[i]`` to act in hand ``hand[i]`` of
    ``hands`` after its first ``index[i]`` logged actions, holding ``hole[i]``, with the
    decision context ``contexts[i]`` (:class:`~poolshark.pool.context.Feature`)."""

    hands: HandLogs
    hand: Int64s
    index: Int64s
    seat: Int64s
    hole: Int64s
    contexts: Floats

    def __post_init__(self) -> None:
        n = len(self.hand)
        for name, shape in (
            ("index", (n,)),
            ("seat", (n,)),
            ("hole", (n, 2)),
            ("contexts", (n, N_FEATURES)),
        ):
            if getattr(self, name).shape != shape:
                raise ActionDataError(f"decision states: {name} must have shape {shape}")

    @property
    def size(self) -> int:
        """Number of decisions N."""
        return int(self.hand.size)

    @property
    def street(self) -> Int64s:
        """(N,) 0 preflop .. 3 river."""
        return self.contexts[:, Feature.STREET].astype(np.int64)

    def visible_boards(self) -> Int64s:
        """(N, 5) the board shown at each decision, -1 for cards not shown yet."""
        boards = self.hands.boards[self.hand].copy()
        shown = np.array(VISIBLE)[self.street]
        boards[np.arange(5)[None, :] >= shown[:, None]] = -1
        return boards

    def subset(self, rows: Int64s) -> DecisionStates:
        """The decisions at ``rows`` (same hands)."""
        return DecisionStates(
            self.hands,
            self.hand[rows],
            self.index[rows],
            self.seat[rows],
            self.hole[rows],
            self.contexts[rows],
        )


def hand_slice(hands: SimulatedHands, logs: ActionLogs, start: int, stop: int) -> HandLogs:
    """Hands ``start:stop`` of a simulation as :class:`HandLogs` (every board card known)."""
    rows = slice(start, stop)
    return HandLogs(
        hands.config,
        hands.stacks[rows].astype(np.int64),
        hands.button[rows].astype(np.int64),
        hands.boards[rows].astype(np.int64),
        ActionLogs(*(a[rows] for a in logs)),
    )


def seen_boards(hands: HandLogs, shown: Int64s) -> HandLogs:
    """The same hands with only their ``shown`` (H,) board cards: what their histories
    show. A simulation deals five board cards to every hand but settles all-in pots by
    expectation, so a hand shows the board only up to the street it ended on."""
    boards = np.where(np.arange(5)[None, :] < shown[:, None], hands.boards, -1)
    return replace(hands, boards=boards.astype(np.int64))


def select_hands(hands: SimulatedHands, rows: Int64s) -> SimulatedHands:
    """The hands at ``rows`` (ascending) of a simulation, as a simulation of their own."""
    rows = np.asarray(rows, dtype=np.int64)
    starts, stops = hands.action_start[rows], hands.action_start[rows + 1]
    length = stops - starts
    actions = np.concatenate([np.arange(a, b) for a, b in zip(starts, stops, strict=True)] or
                             [np.zeros(0, dtype=np.int64)])  # fmt: skip
    per_hand = {
        name: getattr(hands, name)[rows]
        for name in ("hand_id", "time", "table", "button", "players", "styles", "stacks",
                     "cards", "shown", "showdown", "total", "net")
    }  # fmt: skip
    per_action = {
        name: getattr(hands, name)[actions]
        for name in ("action_seat", "action_move", "action_amount", "action_street",
                     "action_flags")
    }  # fmt: skip
    return replace(
        hands,
        **per_hand,
        **per_action,
        action_start=np.concatenate([[0], np.cumsum(length)]).astype(np.int64),
        coerced=0,
    )


def simulated_states(
    hands: SimulatedHands, start: int = 0, stop: int | None = None
) -> tuple[DecisionStates, Int64s, Int64s]:
    """Every decision of hands ``start:stop`` (the engine's forced checks are not decisions),
    with the move and amount taken at each: (states, moves, amounts)."""
    stop = len(hands) if stop is None else stop
    logs = hands.action_logs()
    table = hand_slice(hands, logs, start, stop)
    first, last = int(hands.action_start[start]), int(hands.action_start[stop])
    length = table.logs.length
    hand = np.repeat(np.arange(stop - start), length)
    index = np.arange(last - first) - np.repeat(np.cumsum(length) - length, length)
    keep = (hands.action_flags[first:last] & FORCED) == 0
    hand, index = hand[keep], index[keep]
    seat = hands.action_seat[first:last][keep]
    hole = hands.hole_cards[start:stop][hand, seat].astype(np.int64)
    contexts = replay_contexts(table.config, table.starting_stacks, table.button, table.logs)
    states = DecisionStates(table, hand, index, seat, hole, contexts[hand, index])
    moves = hands.action_move[first:last][keep].astype(np.int64)
    amounts = hands.action_amount[first:last][keep].astype(np.int64)
    return states, moves, amounts


# -- features: public state --------------------------------------------------------------------

MAX_SEATS = 10
MAX_OPPONENTS = MAX_SEATS - 1
CONTEXT_SIZE = 46
GRID_SIZE = 4 * MAX_SEATS * 3
SEAT_SIZE = MAX_SEATS * 3
PUBLIC_SIZE = CONTEXT_SIZE + GRID_SIZE + SEAT_SIZE
"""Width of ``DecisionFeatures.public``: encoded context, betting grid, seats."""
OPPONENT_PUBLIC = 13
OPPONENT_RANGE = 4
OPPONENT_SIZE = OPPONENT_PUBLIC + OPPONENT_RANGE
"""Width of one opponent row: public facts (first entry 1: a row is present), range view."""
HAND_SIZE = 22
"""Width of ``DecisionFeatures.hand`` (the preflop class index is separate)."""
_CHIP_SCALE = float(np.log1p(400.0))
ENCODED_POSITION, ENCODED_STREET, ENCODED_PREFLOP_FACING = 0, 6, 10
ENCODED_FACING_BET, ENCODED_IN_POSITION, ENCODED_STREET_RAISES = 24, 26, 29
"""Where some context entries sit in the encoded context (start of a one-hot, or a flag)."""


def _log_bb(chips: Floats, big_blind: Floats) -> Floats:
    """Chips in big blinds on a log scale, about 0..1 up to 400 bb."""
    result: Floats = np.log1p(np.maximum(chips, 0.0) / np.maximum(big_blind, 1.0)) / _CHIP_SCALE
    return result


def encode_contexts(contexts: Floats, seats: int) -> Float32s:
    """(N, CONTEXT_SIZE) the decision contexts as network inputs: one-hots for categories,
    capped counts, log-scaled chips in big blinds, the legal raise range as pot fractions."""
    f = np.asarray(contexts, dtype=np.float64)
    n = f.shape[0]
    out = np.zeros((n, CONTEXT_SIZE), dtype=np.float64)
    rows = np.arange(n)
    out[rows, f[:, Feature.POSITION].astype(np.int64)] = 1.0  # 0..5
    out[rows, 6 + f[:, Feature.STREET].astype(np.int64)] = 1.0  # 6..9
    out[rows, 10 + f[:, Feature.PREFLOP_FACING].astype(np.int64)] = 1.0  # 10..14
    out[:, 15] = np.minimum(f[:, Feature.PREFLOP_RAISES], 4) / 4
    out[rows, 16 + np.minimum(f[:, Feature.MY_RAISE_LEVEL], 3).astype(np.int64)] = 1.0  # 16..19
    out[:, 20] = np.minimum(f[:, Feature.LIMPERS], 3) / 3
    flags = (
        Feature.PREFLOP_AGGRESSOR,
        Feature.PREVIOUS_AGGRESSOR,
        Feature.CBET,
        Feature.FACING_BET,
        Feature.CHECKED,
        Feature.IN_POSITION,
    )
    for offset, flag in enumerate(flags):
        out[:, 21 + offset] = f[:, flag]  # 21..26
    facing = f[:, Feature.FACING_FRACTION]
    out[:, 27] = np.minimum(facing, 4) / 4
    out[:, 28] = np.log1p(facing)
    out[:, 29] = np.minimum(f[:, Feature.STREET_RAISES], 4) / 4
    alive = f[:, Feature.ALIVE]
    out[:, 30] = (alive - 2) / 8
    out[rows, 31 + np.clip(alive - 2, 0, 2).astype(np.int64)] = 1.0  # 31..33
    out[:, 34] = np.log1p(np.minimum(f[:, Feature.SPR], 100.0)) / np.log(101.0)
    big_blind = f[:, Feature.BIG_BLIND]
    chips = (Feature.TO_CALL, Feature.POT, Feature.MY_BET, Feature.MY_STACK, Feature.CURRENT_BET)
    for offset, feature in enumerate(chips):
        out[:, 35 + offset] = _log_bb(f[:, feature], big_blind)  # 35..39
    to_call, pot = f[:, Feature.TO_CALL], f[:, Feature.POT]
    out[:, 40] = to_call / np.maximum(pot + to_call, 1.0)
    can_raise = f[:, Feature.MAX_RAISE_TO] > 0
    out[:, 41] = can_raise
    least = np.maximum(raise_fraction(f[:, Feature.MIN_RAISE_TO], f), 0.0)
    most = np.maximum(raise_fraction(f[:, Feature.MAX_RAISE_TO], f), 0.0)
    out[:, 42] = np.where(can_raise, np.log1p(least), 0.0)
    out[:, 43] = np.where(can_raise, np.log1p(most), 0.0)
    out[:, 44] = (seats - 2) / 8
    out[:, 45] = seats == 2
    return out.astype(np.float32)


def position_table(seats: int) -> Int64s:
    """(seats, seats) position class of seat ``s`` when the button is at ``b``: ``[b, s]``."""
    table = np.zeros((seats, seats), dtype=np.int64)
    for button in range(seats):
        for seat in range(seats):
            table[button, seat] = int(position_class(seat, button, seats))
    return table


@nb.njit(cache=True, nogil=True)
def _public_kernel(
    game: tuple[int, int, int, int, int],
    starting_stacks: Int64s,
    button: Int64s,
    log_seat: Int64s,
    log_move: Int64s,
    log_amount: Int64s,
    log_street: Int64s,
    positions: Int64s,
    dec_hand: Int64s,
    dec_index: Int64s,
    dec_seat: Int64s,
    dec_street: Int64s,
    grid: Float32s,
    seat_rows: Float32s,
    opponents: Float32s,
    opponent_seat: Int64s,
) -> None:
    """Replay each decision's log prefix: the betting grid (street x seat counted from the
    actor x [checks and calls, bets and raises, largest raise as log(1 + pot fraction)]),
    per seat (present, folded, log(1 + stack / pot)) and the public opponent rows."""
    seats, small_blind, big_blind, straddle, ante = game
    stacks = np.zeros(seats, dtype=np.int64)
    bets = np.zeros(seats, dtype=np.int64)
    total = np.zeros(seats, dtype=np.int64)
    folded = np.zeros(seats, dtype=np.bool_)
    last_raiser = np.zeros(4, dtype=np.int64)
    for i in range(dec_hand.size):
        h, me, now = dec_hand[i], dec_seat[i], dec_street[i]
        stacks[:] = starting_stacks[h]
        bets[:] = 0
        total[:] = 0
        folded[:] = False
        last_raiser[:] = -1
        post_forced_bets(
            seats, small_blind, big_blind, straddle, ante, button[h], stacks, bets, total
        )
        street = 0
        for j in range(dec_index[i]):
            if log_street[h, j] != street:
                return_uncalled(bets, stacks, total)
                bets[:] = 0
                street = log_street[h, j]
            s, move, amount = log_seat[h, j], log_move[h, j], log_amount[h, j]
            rel = (s - me) % seats
            level = 0
            for t in range(seats):
                level = max(level, bets[t])
            if move == MOVE_FOLD:
                folded[s] = True
            elif move == MOVE_CALL:
                grid[i, street, rel, 0] += 1.0
            else:
                owed = min(level - bets[s], stacks[s])
                pot = max(total.sum() + owed, 1)
                fraction = np.log1p(max(amount - level, 0) / pot)
                grid[i, street, rel, 1] += 1.0
                grid[i, street, rel, 2] = max(grid[i, street, rel, 2], fraction)
                last_raiser[street] = s
            apply_action(s, move, amount, stacks, bets, total)
        if now != street:
            return_uncalled(bets, stacks, total)
            bets[:] = 0
        pot = max(total.sum(), 1)
        for rel in range(seats):
            s = (me + rel) % seats
            seat_rows[i, rel, 0] = 1.0
            seat_rows[i, rel, 1] = folded[s]
            seat_rows[i, rel, 2] = np.log1p(stacks[s] / pot)
        mine = (me - button[h] - 1) % seats
        slot = 0
        for rel in range(1, seats):
            s = (me + rel) % seats
            if folded[s]:
                continue
            row = opponents[i, slot]
            row[0] = 1.0
            row[1] = (s - button[h] - 1) % seats > mine
            row[2] = last_raiser[now] == s
            row[3] = last_raiser[0] == s
            row[4] = np.log1p(stacks[s] / pot)
            row[5] = bets[s] / pot
            row[6] = stacks[s] == 0
            row[7 + positions[h, s]] = 1.0
            opponent_seat[i, slot] = s
            slot += 1


# -- features: hole cards ---------------------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def _hand_kernel(
    hole: Int64s,
    board: Int64s,
    street: Int64s,
    alive: Floats,
    percentile: Floats,
    bounds: Int64s,
    references: npt.NDArray[np.bool_],
    combo_index: npt.NDArray[np.int16],
    combo_cards: npt.NDArray[np.uint8],
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    has_straight: npt.NDArray[np.bool_],
    out: Float32s,
) -> None:
    """Hole-card features (see :func:`hand_features`)."""
    for i in range(hole.shape[0]):
        a, b = hole[i, 0], hole[i, 1]
        high, low = max(a >> 2, b >> 2), min(a >> 2, b >> 2)
        combo = combo_index[a, b]
        row = out[i]
        row[0] = percentile[combo]
        row[1] = high == low
        row[2] = (a & 3) == (b & 3)
        row[3] = high / 12.0
        row[4] = low / 12.0
        row[5] = (high - low) / 12.0
        n_board = street[i] + 2 if street[i] > 0 else 0
        if n_board == 0:
            continue
        row[6] = 1.0
        made = made_strength_one(
            combo,
            board[i],
            n_board,
            references,
            combo_cards,
            card_key,
            card_mask,
            row_base,
            rank_table,
            flush_table,
        )
        row[7] = made
        row[8] = draw_strength_one(a, b, board[i], n_board, has_straight)
        row[9] = made ** max(alive[i] - 1.0, 1.0)
        key = np.int64(KEY_INIT) + card_key[a] + card_key[b]
        mask = card_mask[a] | card_mask[b]
        suits = np.zeros(4, dtype=np.int64)
        ranks = np.zeros(13, dtype=np.int64)
        for c in range(n_board):
            key += card_key[board[i, c]]
            mask |= card_mask[board[i, c]]
            suits[board[i, c] & 3] += 1
            ranks[board[i, c] >> 2] += 1
        value = value_of(key, mask, row_base, rank_table, flush_table)
        category = 0
        while category < 8 and value >= bounds[category + 1]:
            category += 1
        row[10 + category] = 1.0  # 10..18
        row[19] = suits.max() >= 3
        row[20] = suits.max() >= 4
        row[21] = ranks.max() >= 2


def hand_features(hole: Int64s, boards: Int64s, street: Int64s, alive: Floats) -> Float32s:
    """(N, HAND_SIZE) per holding: preflop percentile (0 best), pair, suited, high and low
    rank, gap; postflop flag, the styles' ``made`` and ``draw``, ``made ** (alive - 1)``,
    hand category one-hot (9), flush-possible and four-flush boards, paired board."""
    n = hole.shape[0]
    out = np.zeros((n, HAND_SIZE), dtype=np.float32)
    if n:
        _hand_kernel(
            np.ascontiguousarray(hole, dtype=np.int64),
            np.ascontiguousarray(np.maximum(boards, 0), dtype=np.int64),
            np.ascontiguousarray(street, dtype=np.int64),
            np.ascontiguousarray(alive, dtype=np.float64),
            preflop_percentile(),
            np.array(category_bounds(), dtype=np.int64),
            reference_ranges(),
            COMBO_INDEX,
            COMBO_CARDS,
            *evaluator_tables(),
            HAS_STRAIGHT,
            out,
        )
    return out


# -- features: opponents' ranges -------------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def _same_row(ranges: Float32s, a: int, b: int) -> bool:
    """Whether rows ``a`` and ``b`` are equal (a plain loop: numba has no all(generator))."""
    for combo in range(ranges.shape[1]):  # noqa: SIM110
        if ranges[a, combo] != ranges[b, combo]:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def _range_summary_kernel(
    ranges: Float32s,
    query_decision: Int64s,
    hole: Int64s,
    board: Int64s,
    street: Int64s,
    percentile: Floats,
    references: npt.NDArray[np.bool_],
    combo_index: npt.NDArray[np.int16],
    combo_cards: npt.NDArray[np.uint8],
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    has_straight: npt.NDArray[np.bool_],
    out: Float32s,
) -> None:
    """Per query row (sorted by decision): share of the range our hand beats now, mean
    ``made`` and ``draw`` of the range, normalized entropy (see :func:`range_summaries`)."""
    n_combos = combo_cards.shape[0]
    score = np.zeros(n_combos)
    made = np.zeros(n_combos)
    draw = np.zeros(n_combos)
    possible = np.zeros(n_combos, dtype=np.bool_)
    current = -1
    mine = 0.0
    live = 0
    for q in range(query_decision.size):
        i = query_decision[q]
        if i == current and _same_row(ranges, q, q - 1):
            out[q, :] = out[q - 1, :]  # the same range (say, uniform) gives the same summary
            continue
        if i != current:
            current = i
            a, b = hole[i, 0], hole[i, 1]
            n_board = street[i] + 2 if street[i] > 0 else 0
            used = np.int64(1) << a | np.int64(1) << b
            key = np.int64(KEY_INIT)
            mask = np.int64(0)
            for c in range(n_board):
                used |= np.int64(1) << board[i, c]
                key += card_key[board[i, c]]
                mask |= card_mask[board[i, c]]
            live = 0
            for combo in range(n_combos):
                c, d = combo_cards[combo, 0], combo_cards[combo, 1]
                possible[combo] = not ((used >> c) & 1 or (used >> d) & 1)
                live += possible[combo]
            if n_board == 0:
                mine = -percentile[combo_index[a, b]]
                for combo in range(n_combos):
                    score[combo] = -percentile[combo]
                    made[combo] = 1.0 - percentile[combo]
                    draw[combo] = 0.0
            else:
                mine = float(
                    value_of(
                        key + card_key[a] + card_key[b],
                        mask | card_mask[a] | card_mask[b],
                        row_base,
                        rank_table,
                        flush_table,
                    )
                )
                for combo in range(n_combos):
                    if not possible[combo]:
                        continue  # a card used twice would read outside the tables
                    c, d = combo_cards[combo, 0], combo_cards[combo, 1]
                    score[combo] = value_of(
                        key + card_key[c] + card_key[d],
                        mask | card_mask[c] | card_mask[d],
                        row_base,
                        rank_table,
                        flush_table,
                    )
                made_strength_all(
                    board[i],
                    n_board,
                    references,
                    combo_cards,
                    card_key,
                    card_mask,
                    row_base,
                    rank_table,
                    flush_table,
                    made,
                )
                draw_strength_all(board[i], n_board, combo_cards, has_straight, draw)
        mass = 0.0
        for combo in range(n_combos):
            if possible[combo]:
                mass += ranges[q, combo]
        if mass <= 0.0:
            continue
        beaten = 0.0
        mean_made = 0.0
        mean_draw = 0.0
        entropy = 0.0
        for combo in range(n_combos):
            if not possible[combo]:
                continue
            p = ranges[q, combo] / mass
            if p <= 0.0:
                continue
            if score[combo] < mine:
                beaten += p
            elif score[combo] == mine:
                beaten += 0.5 * p
            mean_made += p * made[combo]
            mean_draw += p * draw[combo]
            entropy -= p * np.log(p)
        out[q, 0] = beaten
        out[q, 1] = mean_made
        out[q, 2] = mean_draw
        out[q, 3] = entropy / np.log(max(live, 2))


def range_summaries(
    ranges: Float32s, query_decision: Int64s, hole: Int64s, boards: Int64s, street: Int64s
) -> Float32s:
    """(Q, OPPONENT_RANGE) summaries of Q opponent ranges, query ``q`` asked at decision
    ``query_decision[q]`` (ascending) holding ``hole``: the share of the range our hand
    beats now (preflop by the shipped ranking, postflop by hand value on the board; ties
    half), the range's mean ``made`` (preflop: 1 - percentile) and ``draw``, and its entropy
    over log(combos left). Combos blocked by our cards or the board are dropped and the row
    renormalized; an all-zero row gives zeros."""
    out = np.zeros((len(query_decision), OPPONENT_RANGE), dtype=np.float32)
    if len(query_decision):
        _range_summary_kernel(
            np.ascontiguousarray(ranges, dtype=np.float32),
            np.ascontiguousarray(query_decision, dtype=np.int64),
            np.ascontiguousarray(hole, dtype=np.int64),
            np.ascontiguousarray(np.maximum(boards, 0), dtype=np.int64),
            np.ascontiguousarray(street, dtype=np.int64),
            preflop_percentile(),
            reference_ranges(),
            COMBO_INDEX,
            COMBO_CARDS,
            *evaluator_tables(),
            HAS_STRAIGHT,
            out,
        )
    return out


def range_query(states: DecisionStates, decision: Int64s, seat: Int64s) -> RangeQuery:
    """The range questions "what does ``seat[q]`` hold at decision ``decision[q]``?", the
    asker's own cards dead."""
    hands = states.hands
    h = states.hand[decision]
    index = states.index[decision]
    width = max(int(index.max(initial=0)), 1)
    columns = np.arange(width)[None, :]
    keep = columns < index[:, None]
    source = hands.logs
    logs = ActionLogs(
        seat=np.where(keep, source.seat[h, :width], 0),
        move=np.where(keep, source.move[h, :width], 0),
        amount=np.where(keep, source.amount[h, :width], 0),
        street=np.where(keep, source.street[h, :width], 0),
        length=index.astype(np.int64),
    )
    return RangeQuery(
        hands.config,
        hands.starting_stacks[h],
        hands.button[h],
        states.visible_boards()[decision],
        logs,
        seat.astype(np.int64),
        states.hole[decision],
    )


def source_ranges(
    source: RangeSource, states: DecisionStates, decision: Int64s, seat: Int64s, chunk: int = 4096
) -> Float32s:
    """(Q, 1326) ranges of ``seat[q]`` at decision ``decision[q]`` from ``source``; an
    :class:`~poolshark.pool.ranges.ExactPoolRanges` source takes the compiled walk
    :func:`exact_pool_ranges` (the same numbers, one pass per hand)."""
    if isinstance(source, ExactPoolRanges):
        return exact_pool_ranges(source.pool, states, decision, seat)
    if type(source) is UniformRanges:
        return uniform_ranges(states, decision)
    out = np.zeros((len(decision), N_COMBOS), dtype=np.float32)
    for start in range(0, len(decision), chunk):
        rows = slice(start, start + chunk)
        query = range_query(states, decision[rows], seat[rows])
        answer = np.asarray(source.ranges(query), dtype=np.float32)
        if answer.shape != (query.size, N_COMBOS):
            raise ActionDataError(
                f"range source {type(source).__name__} answered shape {answer.shape} for"
                f" {query.size} queries; need ({query.size}, {N_COMBOS})"
            )
        out[rows] = answer
    return out


def uniform_ranges(states: DecisionStates, decision: Int64s) -> Float32s:
    """(Q, 1326) :class:`~poolshark.pool.ranges.UniformRanges`' answer for the questions
    asked at ``decision[q]`` (uniform over the combos the board and the asker's cards leave),
    vectorized."""
    dead = np.zeros((len(decision), 53), dtype=np.bool_)
    known = np.concatenate([states.visible_boards()[decision], states.hole[decision]], axis=1)
    rows = np.repeat(np.arange(len(decision)), known.shape[1])
    dead[rows, np.where(known.ravel() >= 0, known.ravel(), 52)] = True
    live = ~(dead[:, COMBO_CARDS[:, 0]] | dead[:, COMBO_CARDS[:, 1]])
    weights = live.astype(np.float32)
    out: Float32s = weights / weights.sum(axis=1, keepdims=True)
    return out


def _game(config: GameConfig) -> tuple[int, int, int, int, int]:
    return (config.seats, config.small_blind, config.big_blind, config.straddle, config.ante)


@nb.njit(cache=True, nogil=True)
def _street_arrays(
    board: Int64s,
    street: int,
    references: npt.NDArray[np.bool_],
    combo_cards: npt.NDArray[np.uint8],
    evaluator: tuple[
        Int64s,
        Int64s,
        npt.NDArray[np.int32],
        npt.NDArray[np.uint16],
        npt.NDArray[np.uint16],
    ],
    has_straight: npt.NDArray[np.bool_],
    made: Floats,
    draw: Floats,
    live: Bools,
) -> None:
    """``made``, ``draw`` and unblocked combos of one street's board."""
    card_key, card_mask, row_base, rank_table, flush_table = evaluator
    count = VISIBLE_NB[street]
    used = np.int64(0)
    for c in range(count):
        used |= np.int64(1) << board[c]
    for combo in range(combo_cards.shape[0]):
        a, b = combo_cards[combo, 0], combo_cards[combo, 1]
        live[combo] = not ((used >> a) & 1 or (used >> b) & 1)
    if count:
        made_strength_all(
            board, count, references, combo_cards, card_key, card_mask, row_base,
            rank_table, flush_table, made,
        )  # fmt: skip
        draw_strength_all(board, count, combo_cards, has_straight, draw)


@nb.njit(cache=True, nogil=True)
def _exact_ranges_kernel(
    bank: StyleBank,
    weights: Floats,
    game: tuple[int, int, int, int, int],
    starting_stacks: Int64s,
    button: Int64s,
    boards: Int64s,
    logs: ActionLogs,
    q_hand: Int64s,
    q_index: Int64s,
    q_street: Int64s,
    q_seat: Int64s,
    q_dead: Int64s,
    references: npt.NDArray[np.bool_],
    combo_cards: npt.NDArray[np.uint8],
    evaluator: tuple[
        Int64s,
        Int64s,
        npt.NDArray[np.int32],
        npt.NDArray[np.uint16],
        npt.NDArray[np.uint16],
    ],
    has_straight: npt.NDArray[np.bool_],
    out: Float32s,
) -> None:
    """Pool posteriors of the queries (sorted by hand, then index): one walk per hand that
    keeps every seat's per-style likelihood of every combo."""
    seats, small_blind, big_blind, straddle, ante = game
    raise_weight, continue_weight, params, sizes, size_weights = bank
    n_styles = params.shape[0]
    n_combos = combo_cards.shape[0]
    features = np.zeros(N_FEATURES)
    probabilities = np.zeros((n_combos, N_COLUMNS))
    amounts = np.zeros(MAX_SIZES, dtype=np.int64)
    made = np.zeros((4, n_combos))
    draw = np.zeros((4, n_combos))
    live = np.ones((4, n_combos), dtype=np.bool_)
    ready = np.zeros(4, dtype=np.bool_)
    product = np.ones((seats, n_styles, n_combos))
    stacks = np.zeros(seats, dtype=np.int64)
    bets = np.zeros(seats, dtype=np.int64)
    total = np.zeros(seats, dtype=np.int64)
    q = 0
    while q < q_hand.size:
        h = q_hand[q]
        product[:] = 1.0
        ready[:] = False
        stacks[:] = starting_stacks[h]
        bets[:] = 0
        total[:] = 0
        post_forced_bets(
            seats, small_blind, big_blind, straddle, ante, button[h], stacks, bets, total
        )
        street = 0
        j = 0
        while q < q_hand.size and q_hand[q] == h:
            while j < q_index[q]:
                if logs.street[h, j] != street:
                    return_uncalled(bets, stacks, total)
                    bets[:] = 0
                    street = logs.street[h, j]
                if not ready[street]:
                    _street_arrays(
                        boards[h], street, references, combo_cards, evaluator, has_straight,
                        made[street], draw[street], live[street],
                    )  # fmt: skip
                    ready[street] = True
                seat, move, amount = logs.seat[h, j], logs.move[h, j], logs.amount[h, j]
                fill_features(
                    seats, big_blind, straddle, button[h], seat, street, stacks, bets,
                    total.sum(), logs.seat[h], logs.move[h], logs.amount[h], logs.street[h],
                    j, features,
                )  # fmt: skip
                for k in range(n_styles):
                    if weights[k] == 0:
                        continue
                    fill_probabilities(
                        raise_weight, continue_weight, params, sizes, size_weights, k,
                        features, made[street], draw[street], live[street], probabilities,
                        amounts,
                    )  # fmt: skip
                    for combo in range(n_combos):
                        if move == MOVE_FOLD:
                            p = probabilities[combo, 0]
                        elif move == MOVE_RAISE:
                            p = 0.0
                            for slot in range(MAX_SIZES):
                                if amounts[slot] == amount:
                                    p += probabilities[combo, 2 + slot]
                        else:
                            p = probabilities[combo, 1]
                        product[seat, k, combo] *= p
                apply_action(seat, move, amount, stacks, bets, total)
                j += 1
            now = q_street[q]
            if not ready[now]:
                _street_arrays(
                    boards[h], now, references, combo_cards, evaluator, has_straight,
                    made[now], draw[now], live[now],
                )  # fmt: skip
                ready[now] = True
            seat = q_seat[q]
            mass = 0.0
            for combo in range(n_combos):
                value = 0.0
                c, d = combo_cards[combo, 0], combo_cards[combo, 1]
                blocked = False
                for x in range(2):
                    blocked = blocked or q_dead[q, x] == c or q_dead[q, x] == d
                if live[now, combo] and not blocked:
                    for k in range(n_styles):
                        value += weights[k] * product[seat, k, combo]
                out[q, combo] = value
                mass += value
            if mass > 0:
                for combo in range(n_combos):
                    out[q, combo] /= mass
            else:
                out[q, :] = np.nan
            q += 1


def exact_pool_ranges(
    pool: Pool, states: DecisionStates, decision: Int64s, seat: Int64s
) -> Float32s:
    """(Q, 1326) the pool posterior of ``seat[q]`` at decision ``decision[q]``, the asker's
    cards dead: exactly :class:`~poolshark.pool.ranges.ExactPoolRanges`, computed by one
    compiled walk per hand instead of one per question. A seat whose actions no style of the
    pool can produce (a player from outside the pool: an exploiter, the model itself) gets
    the uniform range of :func:`uniform_ranges` instead."""
    count = len(decision)
    out = np.zeros((count, N_COMBOS), dtype=np.float32)
    if count == 0:
        return out
    hands = states.hands
    q_hand = states.hand[decision]
    q_index = states.index[decision]
    order = np.lexsort((q_index, q_hand))
    sorted_out = np.zeros_like(out)
    _exact_ranges_kernel(
        pool.bank,
        pool.style_frequencies(),
        _game(hands.config),
        hands.starting_stacks,
        hands.button,
        np.maximum(hands.boards, 0),
        hands.logs,
        np.ascontiguousarray(q_hand[order]),
        np.ascontiguousarray(q_index[order]),
        np.ascontiguousarray(states.street[decision][order]),
        np.ascontiguousarray(np.asarray(seat, dtype=np.int64)[order]),
        np.ascontiguousarray(states.hole[decision][order]),
        reference_ranges(),
        COMBO_CARDS,
        evaluator_tables(),
        HAS_STRAIGHT,
        sorted_out,
    )
    impossible = np.isnan(sorted_out).any(axis=1)
    if impossible.any():  # someone outside the pool played: fall back to the deal itself
        sorted_out[impossible] = uniform_ranges(states, decision[order][impossible])
    out[order] = sorted_out
    return out


def range_source_from_spec(spec: str) -> RangeSource | None:
    """The range source a spec names: ``uniform``, ``none`` (no range view),
    ``exact:POOL`` (the exact posterior of a shipped pool or pool file, synthetic pools
    only), ``oracle:PATH`` (a trained range oracle, ``RangeOracle.load(PATH)`` of
    :mod:`poolshark.oracle.model`), ``model:PATH[?power=P&candidates=K]`` (the
    posterior a population-model checkpoint implies for a seat's own actions,
    ``PolicyPosterior.load(PATH, power=P, candidates=K)`` of
    :mod:`poolshark.population.posterior`: EM imputation), or ``package.module:factory`` /
    ``package.module:factory=ARG`` (a callable, dotted names allowed, returning a
    :class:`~poolshark.pool.ranges.RangeSource`, called with ARG if given)."""
    import importlib

    from poolshark.pool.pools import load_pool

    text = spec.strip()
    if text == "uniform":
        return UniformRanges()
    if text == "none":
        return None
    if text.startswith("exact:"):
        return ExactPoolRanges(load_pool(text.removeprefix("exact:")))
    if text.startswith("oracle:"):
        text = f"poolshark.oracle.model:RangeOracle.load={text.removeprefix('oracle:')}"
    if text.startswith("model:"):
        from poolshark.population.posterior import PolicyPosterior

        return PolicyPosterior.from_spec(text.removeprefix("model:"))
    module_name, _, target = text.partition(":")
    name, _, argument = target.partition("=")
    if not module_name or not name:
        raise ActionDataError(
            f"unknown range source {spec!r}: use uniform, none, exact:POOL, oracle:PATH,"
            " model:PATH or package.module:factory[=ARG]"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ActionDataError(
            f"range source {spec!r}: cannot import {module_name!r}: {error}"
        ) from None
    factory: Any = module
    for part in name.split("."):
        factory = getattr(factory, part, None)
    if not callable(factory):
        raise ActionDataError(f"range source {spec!r}: {module_name} has no callable {name!r}")
    source = factory(argument) if argument else factory()
    if not isinstance(source, RangeSource):
        raise ActionDataError(f"range source {spec!r} gave a {type(source).__name__}, no ranges()")
    return source


# -- all features ----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DecisionFeatures:
    """The model's inputs for N decisions (see the module docstring).

    ``public`` (N, PUBLIC_SIZE), ``hand`` (N, HAND_SIZE), ``hand_class`` (N,) int16 the
    preflop class 0..168, ``cards`` (N, 7) uint8 hole cards then the board shown (52: no
    card), for an
    equity-network embedding, ``opponents`` (N, MAX_OPPONENTS, OPPONENT_SIZE) one row per
    opponent still in the hand (first entry 1) in seat order after the actor, zeros after,
    ``legal`` (N, N_CLASSES), ``street`` (N,).
    """

    public: Float32s
    hand: Float32s
    hand_class: npt.NDArray[np.int16]
    cards: npt.NDArray[np.uint8]
    opponents: Float32s
    legal: Bools
    street: Int64s

    @property
    def size(self) -> int:
        """Number of decisions N."""
        return int(self.street.size)

    def subset(self, rows: Int64s | slice) -> DecisionFeatures:
        """The decisions at ``rows``."""
        return DecisionFeatures(**{f.name: getattr(self, f.name)[rows] for f in fields(self)})

    @staticmethod
    def concatenate(parts: Sequence[DecisionFeatures]) -> DecisionFeatures:
        """Several batches as one, in order."""
        return DecisionFeatures(
            **{
                f.name: np.concatenate([getattr(p, f.name) for p in parts])
                for f in fields(DecisionFeatures)
            }
        )


def _public_parts(states: DecisionStates) -> tuple[Float32s, Float32s, Int64s]:
    hands = states.hands
    n, width = states.size, hands.config.seats
    if width > MAX_SEATS:
        raise ActionDataError(f"at most {MAX_SEATS} seats, got {width}")
    grid = np.zeros((n, 4, MAX_SEATS, 3), dtype=np.float32)
    seat_rows = np.zeros((n, MAX_SEATS, 3), dtype=np.float32)
    opponents = np.zeros((n, MAX_OPPONENTS, OPPONENT_PUBLIC), dtype=np.float32)
    opponent_seat = np.full((n, MAX_OPPONENTS), -1, dtype=np.int64)
    if n:
        positions = position_table(width)[hands.button]
        _public_kernel(
            _game(hands.config),
            hands.starting_stacks,
            hands.button,
            *hands.logs[:4],
            positions,
            states.hand,
            states.index,
            states.seat,
            states.street,
            grid,
            seat_rows,
            opponents,
            opponent_seat,
        )
    context = encode_contexts(states.contexts, width)
    public = np.concatenate(
        [context, grid.reshape(n, GRID_SIZE), seat_rows.reshape(n, SEAT_SIZE)], axis=1
    )
    return public, opponents, opponent_seat


def featurize(states: DecisionStates, source: RangeSource | None) -> DecisionFeatures:
    """The model's inputs for some decisions; ``source`` answers each opponent's range
    (None: the range view is left at zero, for ablations)."""
    public, opponents, seats = _public_parts(states)
    decision, slot = np.nonzero(seats >= 0)
    boards = states.visible_boards()
    street = states.street
    if source is not None and decision.size:
        ranges = source_ranges(source, states, decision, seats[decision, slot])
        summary = range_summaries(ranges, decision, states.hole, boards, street)
        opponents = np.concatenate(
            [opponents, np.zeros((*opponents.shape[:2], OPPONENT_RANGE), dtype=np.float32)], 2
        )
        opponents[decision, slot, OPPONENT_PUBLIC:] = summary
    else:
        opponents = np.concatenate(
            [opponents, np.zeros((*opponents.shape[:2], OPPONENT_RANGE), dtype=np.float32)], 2
        )
    hand = hand_features(states.hole, boards, street, states.contexts[:, Feature.ALIVE])
    hole = states.hole
    cards = np.concatenate([hole, np.where(boards >= 0, boards, 52)], axis=1).astype(np.int64)
    return DecisionFeatures(
        public=public,
        hand=hand,
        hand_class=COMBO_CLASS[COMBO_INDEX[hole[:, 0], hole[:, 1]]].astype(np.int16),
        cards=cards.astype(np.uint8),
        opponents=opponents,
        legal=legal_classes(states.contexts),
        street=street,
    )


# -- the true pool policy ----------------------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def _true_policy_kernel(
    bank: StyleBank,
    weights: Floats,
    game: tuple[int, int, int, int, int],
    starting_stacks: Int64s,
    button: Int64s,
    boards: Int64s,
    logs: ActionLogs,
    holes: Int64s,
    seat_styles: Int64s,
    q_hand: Int64s,
    q_index: Int64s,
    edges: Floats,
    references: npt.NDArray[np.bool_],
    combo_index: npt.NDArray[np.int16],
    combo_cards: npt.NDArray[np.uint8],
    evaluator: tuple[
        Int64s,
        Int64s,
        npt.NDArray[np.int32],
        npt.NDArray[np.uint16],
        npt.NDArray[np.uint16],
    ],
    has_straight: npt.NDArray[np.bool_],
    out_mixture: Floats,
    out_style: Floats,
) -> None:
    """Walk each hand once with every seat's cards known; at each queried action (sorted by
    hand, then index) write the style mixture's class distribution and the seat's own
    style's."""
    seats, small_blind, big_blind, straddle, ante = game
    card_key, card_mask, row_base, rank_table, flush_table = evaluator
    raise_weight, continue_weight, params, sizes, size_weights = bank
    n_styles = params.shape[0]
    n_combos = combo_cards.shape[0]
    features = np.zeros(N_FEATURES)
    probabilities = np.zeros((n_combos, N_COLUMNS))
    amounts = np.zeros(MAX_SIZES, dtype=np.int64)
    made = np.zeros(n_combos)
    draw = np.zeros(n_combos)
    live = np.zeros(n_combos, dtype=np.bool_)
    likelihood = np.ones((seats, n_styles))
    distribution = np.zeros((n_styles, out_mixture.shape[1]))
    chance = np.zeros(n_styles)
    stacks = np.zeros(seats, dtype=np.int64)
    bets = np.zeros(seats, dtype=np.int64)
    total = np.zeros(seats, dtype=np.int64)
    q = 0
    while q < q_hand.size:
        h = q_hand[q]
        end = q
        while end < q_hand.size and q_hand[end] == h:
            end += 1
        likelihood[:] = 1.0
        stacks[:] = starting_stacks[h]
        bets[:] = 0
        total[:] = 0
        post_forced_bets(
            seats, small_blind, big_blind, straddle, ante, button[h], stacks, bets, total
        )
        street = 0
        for j in range(q_index[end - 1] + 1):
            if logs.street[h, j] != street:
                return_uncalled(bets, stacks, total)
                bets[:] = 0
                street = logs.street[h, j]
            seat, move, amount = logs.seat[h, j], logs.move[h, j], logs.amount[h, j]
            a, b = holes[h, seat, 0], holes[h, seat, 1]
            combo = combo_index[a, b]
            fill_features(
                seats, big_blind, straddle, button[h], seat, street, stacks, bets, total.sum(),
                logs.seat[h], logs.move[h], logs.amount[h], logs.street[h], j, features,
            )  # fmt: skip
            count = VISIBLE_NB[street]
            if count:
                made[combo] = made_strength_one(
                    combo, boards[h], count, references, combo_cards, card_key, card_mask,
                    row_base, rank_table, flush_table,
                )  # fmt: skip
                draw[combo] = draw_strength_one(a, b, boards[h], count, has_straight)
            live[combo] = True
            taken = _class_of(move, amount, features, edges)
            chance[:] = 0.0
            for k in range(n_styles):
                fill_probabilities(
                    raise_weight, continue_weight, params, sizes, size_weights, k, features,
                    made, draw, live, probabilities, amounts,
                )  # fmt: skip
                distribution[k, :] = 0.0
                distribution[k, FOLD_CLASS] = probabilities[combo, 0]
                distribution[k, CALL_CLASS] = probabilities[combo, 1]
                for slot in range(MAX_SIZES):
                    p = probabilities[combo, 2 + slot]
                    if p > 0:
                        target = _class_of(MOVE_RAISE, amounts[slot], features, edges)
                        distribution[k, target] += p
                        if move == MOVE_RAISE and amounts[slot] == amount:
                            chance[k] += p
                if move != MOVE_RAISE:
                    chance[k] = distribution[k, taken]
            live[combo] = False
            while q < end and q_index[q] == j:
                mass = 0.0
                for k in range(n_styles):
                    mass += weights[k] * likelihood[seat, k]
                for c in range(distribution.shape[1]):
                    value = 0.0
                    for k in range(n_styles):
                        value += weights[k] * likelihood[seat, k] * distribution[k, c]
                    out_mixture[q, c] = value / mass if mass > 0 else np.nan
                    out_style[q, c] = distribution[seat_styles[h, seat], c]
                q += 1
            for k in range(n_styles):
                likelihood[seat, k] *= chance[k]
            apply_action(seat, move, amount, stacks, bets, total)


def true_policies(
    pool: Pool, states: DecisionStates, holes: Int64s, seat_styles: Int64s
) -> tuple[Float32s, Float32s]:
    """(N, N_CLASSES) twice: the average player's exact class distribution at each decision
    (styles weighted by the pool's frequencies times the likelihood of the player's earlier
    actions with its known cards) and the distribution of the player's own style.

    ``holes`` (H, S, 2) every seat's cards, ``seat_styles`` (H, S) each seat's style index;
    the decisions must be logged actions (``index`` < the log's length). A decision no style
    could reach gives :class:`ActionDataError`.
    """
    hands = states.hands
    if np.any(states.index >= hands.logs.length[states.hand]):
        raise ActionDataError("true policies need logged actions (an index past a log's end)")
    order = np.lexsort((states.index, states.hand))
    mixture = np.zeros((states.size, N_CLASSES))
    style = np.zeros((states.size, N_CLASSES))
    if states.size:
        _true_policy_kernel(
            pool.bank,
            pool.style_frequencies(),
            _game(hands.config),
            hands.starting_stacks,
            hands.button,
            np.maximum(hands.boards, 0),
            hands.logs,
            np.ascontiguousarray(holes, dtype=np.int64),
            np.ascontiguousarray(seat_styles, dtype=np.int64),
            np.ascontiguousarray(states.hand[order]),
            np.ascontiguousarray(states.index[order]),
            np.ascontiguousarray(SIZE_EDGES),
            reference_ranges(),
            COMBO_INDEX,
            COMBO_CARDS,
            evaluator_tables(),
            HAS_STRAIGHT,
            mixture,
            style,
        )
    if np.isnan(mixture).any():
        raise ActionDataError(f"pool {pool.name}: no style can play some player's actions")
    out_mixture = np.zeros_like(mixture, dtype=np.float32)
    out_style = np.zeros_like(style, dtype=np.float32)
    out_mixture[order] = mixture
    out_style[order] = style
    return out_mixture, out_style


# -- decisions from ingested rows ---------------------------------------------------------------

_MOVE_OF_ACTION = {"fold": MOVE_FOLD, "check-call": MOVE_CALL, "bet-raise": MOVE_RAISE}


@dataclass(frozen=True, eq=False)
class RowHands:
    """Ingested decision rows of one game (seats and forced bets), rebuilt into hands.

    ``states`` are the rows as decisions (hole cards: -1 where never shown, until
    imputed), ``moves`` / ``amounts`` the action of each row, ``known`` (H, S, 2) the
    cards each seat showed (-1: hidden), ``players`` (H, S) an index into ``player_ids``
    (-1: a seat without rows), ``hand_ids`` (H,) the site's hand ids.
    """

    states: DecisionStates
    moves: Int64s
    amounts: Int64s
    known: Int64s
    players: Int64s
    player_ids: tuple[str, ...]
    hand_ids: tuple[str, ...]


@dataclass
class RowsReport:
    """What rebuilding ingested rows into hands kept and dropped, and (filled by
    :func:`rows_dataset`) how many seats' cards were imputed, joint draws rejected for a
    shared card, and hands drawn seat by seat after too many rejections."""

    rows: int = 0
    hands: int = 0
    kept_rows: int = 0
    kept_hands: int = 0
    dropped_limit_rows: int = 0
    dropped_inconsistent_hands: int = 0
    free_folds_as_checks: int = 0
    shown_seats: int = 0
    hidden_seats: int = 0
    imputed_seats: int = 0
    imputation_redraws: int = 0
    imputation_sequential: int = 0

    def as_dict(self) -> dict[str, int]:
        """Plain counts."""
        return dict(self.__dict__)


def _button_offsets(players: int) -> dict[str, int]:
    """Position name -> seats after the button, at a table of ``players``."""
    from poolshark.histories.rows import position_name

    return {position_name(seat, 0, players): seat for seat in range(players)}


def rows_states(frame: pl.DataFrame) -> tuple[list[RowHands], RowsReport]:
    """Rebuild ingested decision rows (``poolshark ingest``'s Parquet) into hands, one
    :class:`RowHands` per game.

    A hand's log is its rows in order (a call's chips, a raise's total); the button comes
    from any row's position; a seat's stack before the forced bets is its stack at its
    first decision plus the ante and blind its position posts (a seat that never acts gets
    the largest stack of the hand). Contexts are replayed from that and each row's ``pot``,
    ``to_call`` and ``stack`` must come out the same, or the whole hand is dropped (dead or
    posted blinds, which the synthetic-pool context does not describe). A fold when
    checking was free (PokerStars allows it) is read as a check. Fixed-limit rows are
    skipped.
    """
    report = RowsReport(rows=frame.height)
    limit = frame.filter(pl.col("betting") != "no-limit")
    report.dropped_limit_rows = limit.height
    frame = frame.filter(pl.col("betting") == "no-limit").sort(["site", "hand_id", "action_index"])
    report.hands = (
        frame.select(pl.struct("site", "hand_id").n_unique()).item() if frame.height else 0
    )
    groups: list[RowHands] = []
    for key, part in frame.group_by(["players", "small_blind", "big_blind", "ante"]):
        players, small, big, ante = (int(cast(int, v)) for v in key)
        group, dropped, free_folds = _rows_group(part, players, small, big, ante)
        report.dropped_inconsistent_hands += dropped
        report.free_folds_as_checks += free_folds
        if group is not None:
            groups.append(group)
            report.kept_rows += group.states.size
            report.kept_hands += int(np.unique(group.states.hand).size)
            acting = group.players >= 0
            shown = (group.known[:, :, 0] >= 0) & acting
            report.shown_seats += int(shown.sum())
            report.hidden_seats += int((acting & ~shown).sum())
    return groups, report


def _rows_group(
    part: pl.DataFrame, players: int, small: int, big: int, ante: int
) -> tuple[RowHands | None, int, int]:
    """One game's rows as hands; (hands or None, hands dropped, free folds relabelled)."""
    if not 2 <= players <= MAX_SEATS:
        return None, 0, 0
    config = GameConfig(seats=players, small_blind=small, big_blind=big, ante=ante)
    part = part.sort(["site", "hand_id", "action_index"])
    hand_key = part.select(pl.struct("site", "hand_id").rank("dense") - 1).to_series()
    hand = hand_key.to_numpy().astype(np.int64)
    n_hands = int(hand.max()) + 1
    seat = part["seat"].to_numpy().astype(np.int64)
    moves = part["action"].cast(pl.String).replace_strict(_MOVE_OF_ACTION).to_numpy()
    moves = moves.astype(np.int64)
    to_call = part["to_call"].to_numpy().astype(np.int64)
    free_fold = (moves == MOVE_FOLD) & (to_call == 0)
    moves[free_fold] = MOVE_CALL
    raise_to = part["raise_to"].fill_null(0).to_numpy().astype(np.int64)
    called = part["amount"].to_numpy().astype(np.int64)
    amounts = np.where(moves == MOVE_RAISE, raise_to, np.where(moves == MOVE_CALL, called, 0))
    street_index = {name: i for i, name in enumerate(STREET_NAMES)}
    street = part["street"].cast(pl.String).replace_strict(street_index).to_numpy()
    street = street.astype(np.int64)
    index = part["action_index"].to_numpy().astype(np.int64)
    length = np.bincount(hand, minlength=n_hands).astype(np.int64)
    in_order = index == np.arange(len(hand)) - np.repeat(np.cumsum(length) - length, length)
    index = np.where(in_order, index, 0)  # a hand with missing rows is dropped below
    offsets = _button_offsets(players)
    offset = part["position"].cast(pl.String).replace_strict(offsets).to_numpy().astype(np.int64)
    button = np.zeros(n_hands, dtype=np.int64)
    button[hand] = (seat - offset) % players
    width = max(int(length.max()), 1)
    log = [np.zeros((n_hands, width), dtype=np.int64) for _ in range(4)]
    for grid, values in zip(log, (seat, moves, amounts, street), strict=True):
        grid[hand, index] = values
    logs = ActionLogs(seat=log[0], move=log[1], amount=log[2], street=log[3], length=length)
    stack = part["stack"].to_numpy().astype(np.int64)
    first = np.zeros(len(hand), dtype=np.bool_)
    first[np.unique(hand * players + seat, return_index=True)[1]] = True  # rows are in order
    small_seat = np.where(players == 2, button, (button + 1) % players)
    big_seat = (small_seat + 1) % players
    posted = ante + np.where(seat == small_seat[hand], small, 0)
    posted = posted + np.where(seat == big_seat[hand], big, 0)
    stacks = np.full((n_hands, players), -1, dtype=np.int64)
    stacks[hand[first], seat[first]] = stack[first] + posted[first]
    deepest = np.where(stacks.max(axis=1) > 0, stacks.max(axis=1), 100 * big)
    stacks = np.where(stacks < 0, deepest[:, None], stacks)
    boards = np.full((n_hands, 5), -1, dtype=np.int64)
    board_lists = part["board"].to_list()
    for row in np.flatnonzero(np.r_[hand[1:] != hand[:-1], True]).tolist():
        cards = board_lists[row] or []
        boards[hand[row], : len(cards)] = cards
    known = np.full((n_hands, players, 2), -1, dtype=np.int64)
    hole = part["hole_cards"]
    has_cards = hole.is_not_null().to_numpy()
    if has_cards.any():
        shown = np.array(hole.filter(hole.is_not_null()).to_list(), dtype=np.int64)
        known[hand[has_cards], seat[has_cards]] = np.sort(shown, axis=1)
    names, player_index = np.unique(part["player_id"].to_numpy().astype(str), return_inverse=True)
    player_grid = np.full((n_hands, players), -1, dtype=np.int64)
    player_grid[hand, seat] = player_index
    hands = HandLogs(config, stacks, button, boards, logs)
    contexts = replay_contexts(config, stacks, button, logs)[hand, index]
    consistent = (
        in_order
        & (contexts[:, Feature.TO_CALL] == to_call)
        & (contexts[:, Feature.POT] == part["pot"].to_numpy())
        & (contexts[:, Feature.MY_STACK] == stack)
    )
    raising = moves == MOVE_RAISE
    consistent &= ~raising | (
        (amounts >= contexts[:, Feature.MIN_RAISE_TO])
        & (amounts <= contexts[:, Feature.MAX_RAISE_TO])
    )
    bad_hands = np.unique(hand[~consistent])
    keep_hand = np.ones(n_hands, dtype=np.bool_)
    keep_hand[bad_hands] = False
    keep = keep_hand[hand]
    hole_rows = known[hand, seat]
    states = DecisionStates(hands, hand[keep], index[keep], seat[keep], hole_rows[keep],
                            contexts[keep])  # fmt: skip
    hand_ids = part["hand_id"].to_numpy().astype(str)
    ids = np.empty(n_hands, dtype=object)
    ids[hand] = hand_ids
    group = RowHands(
        states=states,
        moves=moves[keep],
        amounts=amounts[keep],
        known=np.where(keep_hand[:, None, None], known, -1),
        players=np.where(keep_hand[:, None], player_grid, -1),
        player_ids=tuple(str(n) for n in names),
        hand_ids=tuple(str(i) for i in ids),
    )
    return group, int(bad_hands.size), int(free_fold[keep].sum())


# -- imputation ---------------------------------------------------------------------------------


@dataclass
class Imputation:
    """Every seat's hole cards after imputation: ``holes`` (H, S, 2), ``imputed`` (H, S)
    which were drawn, ``redraws`` joint draws rejected for a shared card, ``sequential``
    hands that fell back to drawing one seat at a time."""

    holes: Int64s
    imputed: Bools
    redraws: int = 0
    sequential: int = 0


def end_of_hand_ranges(
    hands: HandLogs, hand: Int64s, seat: Int64s, source: RangeSource
) -> Float32s:
    """(Q, 1326) the range of ``seat[q]`` after every action of hand ``hand[q]``, the whole
    known board shown (what one combo must explain: all of the player's decisions)."""
    known = (hands.boards[hand] >= 0).sum(axis=1)
    street = np.searchsorted(np.array(VISIBLE), known, side="right") - 1
    contexts = np.zeros((len(hand), N_FEATURES))
    contexts[:, Feature.STREET] = street
    states = DecisionStates(
        hands,
        hand.astype(np.int64),
        hands.logs.length[hand].astype(np.int64),
        seat.astype(np.int64),
        np.full((len(hand), 2), -1, dtype=np.int64),
        contexts,
    )
    return source_ranges(source, states, np.arange(len(hand)), seat.astype(np.int64))


def impute_hole_cards(
    hands: HandLogs,
    known: Int64s,
    needed: Bools,
    source: RangeSource,
    rng: np.random.Generator,
    *,
    max_tries: int = 100,
) -> Imputation:
    """Draw the hidden cards of every seat in ``needed`` (H, S) whose ``known`` (H, S, 2)
    cards are -1, from ``source``'s range for it at the end of the hand.

    Every combo holding a known card (the board, cards shown by anyone) is removed from each
    range first. A hand's hidden seats are drawn together, and the whole draw is repeated
    while two seats share a card (at most ``max_tries`` times; then the seats are drawn one
    after another, each without the cards already drawn), so the imputed cards are always
    a possible deal.
    """
    holes = np.array(known, dtype=np.int64, copy=True)
    hidden = needed & (holes[:, :, 0] < 0)
    hand, seat = np.nonzero(hidden)
    result = Imputation(holes, hidden.copy())
    if hand.size == 0:
        return result
    ranges = end_of_hand_ranges(hands, hand, seat, source).astype(np.float64)
    starts = np.flatnonzero(np.r_[True, hand[1:] != hand[:-1]])
    stops = np.r_[starts[1:], hand.size]
    first_card = COMBO_CARDS[:, 0].astype(np.int64)
    second_card = COMBO_CARDS[:, 1].astype(np.int64)
    for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
        h = int(hand[start])
        dead = np.zeros(52, dtype=np.bool_)
        board = hands.boards[h]
        dead[board[board >= 0]] = True
        shown = holes[h][holes[h, :, 0] >= 0]
        dead[shown.ravel()] = True
        weights = ranges[start:stop] * ~(dead[first_card] | dead[second_card])
        totals = weights.sum(axis=1)
        if np.any(~(totals > 0)):
            weights = np.where(
                totals[:, None] > 0, weights, ~(dead[first_card] | dead[second_card])
            )
        combos = _joint_draw(weights, rng, max_tries)
        if combos is None:
            result.sequential += 1
            combos = _sequential_draw(weights, rng)
        else:
            result.redraws += int(combos[-1])
            combos = combos[:-1]
        holes[h, seat[start:stop]] = COMBO_CARDS[combos].astype(np.int64)
    return result


def _draw(weights: Floats, rng: np.random.Generator) -> Int64s:
    """One combo per row of ``weights`` (non-negative, each row with some mass)."""
    cumulative = np.cumsum(weights, axis=1)
    target = rng.random(weights.shape[0]) * cumulative[:, -1]
    chosen = (cumulative <= target[:, None]).sum(axis=1)
    combos: Int64s = np.minimum(chosen, weights.shape[1] - 1).astype(np.int64)
    return combos


def _joint_draw(weights: Floats, rng: np.random.Generator, max_tries: int) -> Int64s | None:
    """Independent draws for all rows, repeated until no card is used twice; the combos
    followed by the number of rejected draws, or None after ``max_tries`` rejections."""
    for attempt in range(max_tries + 1):
        combos = _draw(weights, rng)
        cards = COMBO_CARDS[combos].ravel()
        if np.unique(cards).size == cards.size:
            return np.append(combos, attempt)
    return None


def _sequential_draw(weights: Floats, rng: np.random.Generator) -> Int64s:
    """Rows drawn one after another, each without the cards drawn before it."""
    dead = np.zeros(52, dtype=np.bool_)
    combos = np.zeros(weights.shape[0], dtype=np.int64)
    for row in range(weights.shape[0]):
        blocked = dead[COMBO_CARDS[:, 0]] | dead[COMBO_CARDS[:, 1]]
        row_weights = np.where(blocked, 0.0, weights[row])
        if not row_weights.sum() > 0:
            row_weights = (~blocked).astype(np.float64)
        combos[row] = _draw(row_weights[None, :], rng)[0]
        dead[COMBO_CARDS[combos[row]]] = True
    return combos


# -- datasets ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ActionDataset:
    """Training rows: features, the class taken, and what each row is about.

    ``hand_key`` (N,) a hand number unique in the dataset (splits keep hands whole),
    ``player`` (N,) an index into ``player_ids``, ``imputed`` (N,) whether the acting
    player's cards were imputed, ``fraction`` (N,) the pot fraction of a sized raise (NaN
    otherwise), ``true_policy`` / ``style_policy`` (N, N_CLASSES) the synthetic pool's
    exact average-player policy and the player's own style's (NaN rows where unknown).
    """

    features: DecisionFeatures
    target: Int64s
    hand_key: Int64s
    player: Int64s
    player_ids: tuple[str, ...]
    imputed: Bools
    fraction: Float32s
    true_policy: Float32s
    style_policy: Float32s

    @property
    def size(self) -> int:
        """Number of rows N."""
        return int(self.target.size)

    @property
    def has_truth(self) -> bool:
        """Whether every row carries the exact pool policy."""
        return bool(self.size) and not np.isnan(self.true_policy).any()

    def subset(self, rows: Int64s | slice) -> ActionDataset:
        """The rows at ``rows``."""
        return ActionDataset(
            features=self.features.subset(rows),
            target=self.target[rows],
            hand_key=self.hand_key[rows],
            player=self.player[rows],
            player_ids=self.player_ids,
            imputed=self.imputed[rows],
            fraction=self.fraction[rows],
            true_policy=self.true_policy[rows],
            style_policy=self.style_policy[rows],
        )

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """Every array by name (features prefixed ``features_``)."""
        out: dict[str, npt.NDArray[Any]] = {
            f"features_{f.name}": getattr(self.features, f.name) for f in fields(DecisionFeatures)
        }
        for name in ("target", "hand_key", "player", "imputed", "fraction"):
            out[name] = getattr(self, name)
        out["true_policy"] = self.true_policy
        out["style_policy"] = self.style_policy
        return out

    @property
    def fingerprint(self) -> str:
        """SHA-256 of every array and the player ids: the data identity checkpoints carry."""
        digest = hashlib.sha256()
        for name, array in sorted(self.arrays().items()):
            digest.update(name.encode())
            digest.update(np.ascontiguousarray(array).tobytes())
        digest.update("\0".join(self.player_ids).encode())
        return digest.hexdigest()

    @staticmethod
    def concatenate(parts: Sequence[ActionDataset]) -> ActionDataset:
        """Datasets one after another; hand keys and player indices are renumbered so
        they stay distinct (players with the same id are merged)."""
        ids: dict[str, int] = {}
        players, keys = [], []
        offset = 0
        for part in parts:
            mapping = np.array([ids.setdefault(p, len(ids)) for p in part.player_ids] or [0])
            players.append(mapping[part.player] if part.size else part.player)
            keys.append(part.hand_key + offset)
            offset += int(part.hand_key.max(initial=-1)) + 1
        return ActionDataset(
            features=DecisionFeatures.concatenate([p.features for p in parts]),
            target=np.concatenate([p.target for p in parts]),
            hand_key=np.concatenate(keys),
            player=np.concatenate(players),
            player_ids=tuple(ids),
            imputed=np.concatenate([p.imputed for p in parts]),
            fraction=np.concatenate([p.fraction for p in parts]),
            true_policy=np.concatenate([p.true_policy for p in parts]),
            style_policy=np.concatenate([p.style_policy for p in parts]),
        )


def save_dataset(dataset: ActionDataset, path: Path) -> Path:
    """Write a dataset as a deflate-compressed ``.npz`` (temp file, then rename).

    Compression is lossless, so the arrays load back bit for bit (same fingerprint, same
    training), and the features are mostly one-hot zeros: the demo's 40,000 ingested hands
    take 25 MB instead of 660 MB, for about 15 s more to write (2-core CPU).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp.npz")
    payload: dict[str, Any] = {
        "format": np.array(DATA_FORMAT),
        "player_ids": np.array(dataset.player_ids, dtype=str),
        **dataset.arrays(),
    }
    np.savez_compressed(temporary, **payload)
    temporary.replace(path)
    return path


def load_dataset(path: Path) -> ActionDataset:
    """Read a dataset written by :func:`save_dataset`."""
    try:
        data = np.load(Path(path), allow_pickle=False)
    except (OSError, ValueError) as error:
        raise ActionDataError(f"cannot read action dataset {str(path)!r}: {error}") from None
    with data:
        if "format" not in data or str(data["format"]) != DATA_FORMAT:
            raise ActionDataError(f"{str(path)!r} is not an action dataset ({DATA_FORMAT})")
        features = DecisionFeatures(
            **{f.name: data[f"features_{f.name}"] for f in fields(DecisionFeatures)}
        )
        return ActionDataset(
            features=features,
            target=data["target"],
            hand_key=data["hand_key"],
            player=data["player"],
            player_ids=tuple(str(p) for p in data["player_ids"]),
            imputed=data["imputed"],
            fraction=data["fraction"],
            true_policy=data["true_policy"],
            style_policy=data["style_policy"],
        )


def _sized_fractions(moves: Int64s, amounts: Int64s, contexts: Floats, target: Int64s) -> Float32s:
    sized = (target >= FIRST_RAISE_CLASS) & (target < ALL_IN_CLASS)
    fraction = np.full(len(target), np.nan, dtype=np.float32)
    fraction[sized] = raise_fraction(amounts[sized], contexts[sized])
    return fraction


Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)``."""


def simulated_dataset(
    hands: SimulatedHands,
    source: RangeSource | None,
    *,
    hidden: str = "none",
    imputer: RangeSource | None = None,
    seed: int = 0,
    chunk_hands: int = 2000,
    progress: Progress | None = None,
) -> ActionDataset:
    """Training rows from simulated hands, with the exact pool policy of every row.

    ``hidden="none"``: every hole card is known (the simulator's truth). ``"showdown"``: as
    in mined histories, only cards shown at showdown are known and every other acting
    player's cards are imputed from ``imputer`` (default: ``source``) before the features
    are computed. The true policy is of the real cards, so rows with imputed cards get
    NaN there (score such a model on hands built with every card known).
    """
    if hidden not in ("none", "showdown"):
        raise ActionDataError(f"hidden must be 'none' or 'showdown', got {hidden!r}")
    rng = np.random.default_rng([seed, 7])
    pool = hands.pool
    parts = []
    logs = hands.action_logs()
    for start in range(0, len(hands), chunk_hands):
        stop = min(start + chunk_hands, len(hands))
        states, moves, amounts = simulated_states(hands, start, stop)
        holes = hands.hole_cards[start:stop].astype(np.int64)
        styles = hands.styles[start:stop]
        mixture, own = true_policies(pool, states, holes, styles)
        imputed = np.zeros(states.size, dtype=np.bool_)
        if hidden == "showdown":
            table = seen_boards(hand_slice(hands, logs, start, stop), hands.shown[start:stop])
            known = np.full_like(holes, -1)
            folded = np.zeros(holes.shape[:2], dtype=np.bool_)
            folded[states.hand[moves == MOVE_FOLD], states.seat[moves == MOVE_FOLD]] = True
            shown = hands.showdown[start:stop, None] & ~folded
            known[shown] = holes[shown]
            needed = np.zeros(holes.shape[:2], dtype=np.bool_)
            needed[states.hand, states.seat] = True
            drawn = impute_hole_cards(table, known, needed, imputer or source or _uniform(), rng)
            imputed = drawn.imputed[states.hand, states.seat]
            states = replace(states, hole=drawn.holes[states.hand, states.seat])
            mixture[imputed] = np.nan  # the truth is about the real cards, not the drawn ones
            own[imputed] = np.nan
        features = featurize(states, source)
        target = action_classes(moves, amounts, states.contexts)
        parts.append(
            ActionDataset(
                features=features,
                target=target,
                hand_key=states.hand + start,
                player=hands.players[start:stop][states.hand, states.seat].astype(np.int64),
                player_ids=pool.player_names,
                imputed=imputed,
                fraction=_sized_fractions(moves, amounts, states.contexts, target),
                true_policy=mixture,
                style_policy=own,
            )
        )
        if progress is not None:
            progress(stop, len(hands))
    if not parts:
        raise ActionDataError("no hands to build rows from")
    return _join_same_players(parts)


def _join_same_players(parts: Sequence[ActionDataset]) -> ActionDataset:
    """Concatenate parts that share player ids and hand numbering."""
    first = parts[0]
    return ActionDataset(
        features=DecisionFeatures.concatenate([p.features for p in parts]),
        target=np.concatenate([p.target for p in parts]),
        hand_key=np.concatenate([p.hand_key for p in parts]),
        player=np.concatenate([p.player for p in parts]),
        player_ids=first.player_ids,
        imputed=np.concatenate([p.imputed for p in parts]),
        fraction=np.concatenate([p.fraction for p in parts]),
        true_policy=np.concatenate([p.true_policy for p in parts]),
        style_policy=np.concatenate([p.style_policy for p in parts]),
    )


def _uniform() -> RangeSource:
    return UniformRanges()


def rows_dataset(
    frame: pl.DataFrame,
    source: RangeSource | None,
    *,
    imputer: RangeSource | None = None,
    seed: int = 0,
) -> tuple[ActionDataset, RowsReport]:
    """Training rows from ingested decision rows: hands rebuilt (:func:`rows_states`),
    hidden hole cards imputed from ``imputer`` (default ``source``, else uniform), features
    from ``source``. There is no true policy (NaN rows). Returns the dataset and what was
    kept, dropped and imputed."""
    groups, report = rows_states(frame)
    if not groups:
        raise ActionDataError("no usable no-limit decision rows")
    rng = np.random.default_rng([seed, 11])
    parts = []
    for group in groups:
        states = group.states
        needed = np.zeros(group.known.shape[:2], dtype=np.bool_)
        needed[states.hand, states.seat] = True
        drawn = impute_hole_cards(
            states.hands, group.known, needed, imputer or source or _uniform(), rng
        )
        report.imputed_seats += int(drawn.imputed.sum())
        report.imputation_redraws += drawn.redraws
        report.imputation_sequential += drawn.sequential
        states = replace(states, hole=drawn.holes[states.hand, states.seat])
        target = action_classes(group.moves, group.amounts, states.contexts)
        nan = np.full((states.size, N_CLASSES), np.nan, dtype=np.float32)
        parts.append(
            ActionDataset(
                features=featurize(states, source),
                target=target,
                hand_key=states.hand,
                player=group.players[states.hand, states.seat],
                player_ids=group.player_ids,
                imputed=drawn.imputed[states.hand, states.seat],
                fraction=_sized_fractions(group.moves, group.amounts, states.contexts, target),
                true_policy=nan,
                style_policy=nan.copy(),
            )
        )
    return ActionDataset.concatenate(parts), report
