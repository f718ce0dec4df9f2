"""The true pool policy (:func:`true_policies`): on a synthetic pool the average player's
exact action distribution at a decision is the mixture of the styles' distributions for its
known hole cards, each weighted by the pool's style frequency times the probability that
style gives the player's own earlier actions in the hand (Bayes over styles).
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX
from poolshark.cards.evaluator import tables as evaluator_tables
from poolshark.pool.context import (
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
from poolshark.pool.strength import (
    HAS_STRAIGHT,
    StrengthCache,
    draw_strength_one,
    made_strength_cached,
    strength_cache,
)
from poolshark.population.actions import (
    CALL_CLASS,
    FOLD_CLASS,
    N_CLASSES,
    SIZE_EDGES,
    class_of_action,
)
from poolshark.population.states import VISIBLE_NB, ActionDataError, DecisionStates, game_numbers

Floats = npt.NDArray[np.float64]
Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]


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
    memo: StrengthCache,
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
                made[combo] = made_strength_cached(
                    combo, boards[h], count, memo, combo_cards, card_key, card_mask,
                    row_base, rank_table, flush_table,
                )  # fmt: skip
                draw[combo] = draw_strength_one(a, b, boards[h], count, has_straight)
            live[combo] = True
            taken = class_of_action(move, amount, features, edges)
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
                        target = class_of_action(MOVE_RAISE, amounts[slot], features, edges)
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
            game_numbers(hands.config),
            hands.starting_stacks,
            hands.button,
            np.maximum(hands.boards, 0),
            hands.logs,
            np.ascontiguousarray(holes, dtype=np.int64),
            np.ascontiguousarray(seat_styles, dtype=np.int64),
            np.ascontiguousarray(states.hand[order]),
            np.ascontiguousarray(states.index[order]),
            np.ascontiguousarray(SIZE_EDGES),
            strength_cache(),
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
