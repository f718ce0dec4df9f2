"""The ranges the features see: a range source's answer for every opponent at a decision,
with compiled fast paths for the uniform deal (:func:`uniform_ranges`) and the exact pool
posterior (:func:`exact_pool_ranges`: one walk per hand, the same numbers as
:class:`~poolshark.pool.ranges.ExactPoolRanges`, its readable reference).
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.combos import COMBO_CARDS, N_COMBOS
from poolshark.cards.evaluator import tables as evaluator_tables
from poolshark.pool.context import (
    MOVE_FOLD,
    MOVE_RAISE,
    N_FEATURES,
    ActionLogs,
    apply_action,
    fill_features,
    post_forced_bets,
    return_uncalled,
)
from poolshark.pool.policy import MAX_SIZES, N_COLUMNS, StyleBank, fill_probabilities
from poolshark.pool.pools import Pool
from poolshark.pool.ranges import ExactPoolRanges, RangeQuery, RangeSource, UniformRanges
from poolshark.pool.strength import (
    HAS_STRAIGHT,
    draw_strength_all,
    made_strength_all,
    reference_ranges,
)
from poolshark.population.states import VISIBLE_NB, ActionDataError, DecisionStates, game_numbers

Floats = npt.NDArray[np.float64]
Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


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
        game_numbers(hands.config),
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
