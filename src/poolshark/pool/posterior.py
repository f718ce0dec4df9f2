"""Exact ranges: the posterior over a player's 1,326 combos given the public history.

For a player whose style is known, the posterior at any point of a hand is

    P(combo | history) ∝ [combo not blocked by the board or dead cards]
                         * prod over the player's actions so far of P(action | context, combo)

where the action probabilities are the style's own (:mod:`poolshark.pool.policy`). When only
the pool is known (seats are anonymous), the style is a latent variable with prior weights
``w_k`` (the pool's seat-style frequencies) and the posterior is exactly

    P(combo | history) ∝ [not blocked] * sum_k w_k * prod_actions P_k(action | context, combo).

This is the single-player posterior: the prior over the player's cards is uniform over the
combos the public cards leave, without the card removal of the other players' (unknown)
holdings, which is also exactly how the simulated hands deal them as far as the player's own
decisions are concerned.

The work is one compiled pass per hand (:func:`label_decisions`): the state is rebuilt by
replaying the log, and every decision multiplies the acting player's per-style likelihood
vectors by the probability of the action taken, for all combos at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.card import check_disjoint
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS, combos_sharing_cards
from poolshark.cards.evaluator import EvaluatorTables, numba_threads, tables
from poolshark.engine.config import Betting, GameConfig
from poolshark.engine.table import Table
from poolshark.pool.context import (
    MOVE_FOLD,
    MOVE_RAISE,
    N_FEATURES,
    ActionLogs,
    apply_action,
    fill_features,
    logs_from_tables,
    post_forced_bets,
    return_uncalled,
)
from poolshark.pool.policy import MAX_SIZES, N_COLUMNS, StyleBank, fill_probabilities
from poolshark.pool.pools import Pool
from poolshark.pool.strength import (
    HAS_STRAIGHT,
    draw_strength_all,
    made_strength_all,
    reference_ranges,
)
from poolshark.pool.style import Style

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

VISIBLE = (0, 3, 4, 5)
"""Board cards shown on each street."""


class PosteriorError(ValueError):
    """A history the given style (or every style of the pool) cannot produce."""


@dataclass(frozen=True)
class PublicHand:
    """The public record of one hand up to some point: the game, the stacks before the
    forced bets, the button, the board shown so far and the actions so far."""

    config: GameConfig
    starting_stacks: tuple[int, ...]
    button: int
    board: tuple[int, ...]
    logs: ActionLogs

    @classmethod
    def from_table(cls, table: Table, actions: int | None = None) -> PublicHand:
        """The public part of ``table`` after its first ``actions`` actions (default all).

        The board is what was shown by then: when actions remain, the cards of the next
        action's street; otherwise the board the table shows now.
        """
        count = len(table.log) if actions is None else actions
        if not 0 <= count <= len(table.log):
            raise ValueError(f"the log has {len(table.log)} actions, not {count}")
        if count < len(table.log):
            board = table.board_cards[: VISIBLE[table.log[count].street]]
        else:
            board = table.board
        full = logs_from_tables([table])
        width = max(count, 1)
        logs = ActionLogs(
            seat=full.seat[:, :width],
            move=full.move[:, :width],
            amount=full.amount[:, :width],
            street=full.street[:, :width],
            length=np.array([count], dtype=np.int64),
        )
        return cls(table.config, tuple(table.starting_stacks), table.button, tuple(board), logs)


def posterior(style: Style, hand: PublicHand, seat: int, dead: Sequence[int] = ()) -> Floats:
    """(1326,) exact range of ``seat`` after the hand's actions, its style known."""
    return range_posterior(style.bank(), np.array([1.0]), hand, seat, dead)


def mixture_posterior(pool: Pool, hand: PublicHand, seat: int, dead: Sequence[int] = ()) -> Floats:
    """(1326,) exact range of ``seat`` when only the pool is known (style weighted by the
    pool's seat-style frequencies)."""
    return range_posterior(pool.bank, pool.style_frequencies(), hand, seat, dead)


def range_posterior(
    bank: StyleBank,
    style_weights: Floats,
    hand: PublicHand,
    seat: int,
    dead: Sequence[int] = (),
) -> Floats:
    """(1326,) range of ``seat`` with prior ``style_weights`` (K,) over the bank's styles."""
    weights = _check_weights(bank, style_weights)
    if not 0 <= seat < hand.config.seats:
        raise ValueError(f"seat {seat} is not a seat of {hand.config.seats}")
    check_disjoint(hand.board, list(dead))
    length = int(hand.logs.length[0])
    if length and len(hand.board) < VISIBLE[int(hand.logs.street[0, length - 1])]:
        raise ValueError("the board must show every card of the streets the actions reach")
    prior = np.broadcast_to(weights, (1, hand.config.seats, bank.styles))
    products = np.ones((1, hand.config.seats, bank.styles, N_COMBOS))
    board = np.zeros((1, 5), dtype=np.int64)
    board[0, : len(hand.board)] = hand.board
    _run(
        bank,
        hand.config,
        np.array([hand.starting_stacks], dtype=np.int64),
        np.array([hand.button], dtype=np.int64),
        board,
        hand.logs,
        np.ascontiguousarray(prior),
        np.zeros((0, N_COMBOS), dtype=np.float32),
        products,
    )
    blocked = combos_sharing_cards(list(hand.board) + list(dead))
    mass = np.einsum("k,kc->c", weights, products[0, seat])
    mass[blocked] = 0.0
    total = mass.sum()
    if not total > 0:
        raise PosteriorError(f"no style given weight can play seat {seat}'s actions")
    result: Floats = mass / total
    return result


def label_decisions(
    bank: StyleBank,
    config: GameConfig,
    starting_stacks: Int64s,
    button: Int64s,
    board: Int64s,
    logs: ActionLogs,
    style_weights: Floats,
    *,
    threads: int | None = 1,
) -> npt.NDArray[np.float32]:
    """The exact range of the acting player before every logged action of N hands.

    ``board`` (N, 5) the hands' boards (only the cards of each action's street are read);
    ``style_weights`` (N, S, K) each seat's prior over the bank's styles: one-hot for a
    known style (:func:`known_styles`), the pool frequencies for anonymous seats
    (:func:`pool_mixture`). Returns (R, 1326) float32 rows, R = total actions, hand by
    hand in log order. A row is NaN when no style with weight could have played the
    history (a hand that does not come from these styles). ``threads`` cores share the
    hands (None: all). The output takes 5.3 kB per action: label big sets in chunks.
    """
    weights = np.ascontiguousarray(style_weights, dtype=np.float64)
    n_hands = len(button)
    if weights.shape != (n_hands, config.seats, bank.styles):
        raise ValueError(
            f"style weights must be ({n_hands}, {config.seats}, {bank.styles}), got {weights.shape}"
        )
    stacks = np.asarray(starting_stacks, dtype=np.int64)
    cards = np.asarray(board, dtype=np.int64)
    if stacks.shape != (n_hands, config.seats) or cards.shape != (n_hands, 5):
        raise ValueError(
            f"need ({n_hands}, {config.seats}) starting stacks and ({n_hands}, 5) boards,"
            f" got {stacks.shape} and {cards.shape}"
        )
    if logs.seat.shape[0] != n_hands or logs.length.shape != (n_hands,):
        raise ValueError(f"the action logs must hold {n_hands} hands")
    rows = np.zeros((int(logs.length.sum()), N_COMBOS), dtype=np.float32)
    _run(
        bank,
        config,
        stacks,
        np.asarray(button, dtype=np.int64),
        cards,
        logs,
        weights,
        rows,
        np.zeros((0, 0, 0, 0)),
        threads,
    )
    return rows


def known_styles(seat_styles: Int64s, styles: int) -> Floats:
    """(N, S, K) one-hot style weights from each seat's known style index (N, S)."""
    seat_styles = np.asarray(seat_styles, dtype=np.int64)
    weights: Floats = np.eye(styles)[seat_styles]
    return weights


def pool_mixture(frequencies: Floats, hands: int, seats: int) -> Floats:
    """(N, S, K) every seat weighted by the pool's style frequencies (anonymous seats)."""
    weights: Floats = np.broadcast_to(frequencies, (hands, seats, len(frequencies))).copy()
    return weights


def _check_weights(bank: StyleBank, style_weights: Floats) -> Floats:
    weights = np.asarray(style_weights, dtype=np.float64)
    if weights.shape != (bank.styles,) or not np.all(weights >= 0) or not weights.sum() > 0:
        raise ValueError(f"style weights must be {bank.styles} non-negative numbers, not all 0")
    return weights


def _run(
    bank: StyleBank,
    config: GameConfig,
    starting_stacks: Int64s,
    button: Int64s,
    board: Int64s,
    logs: ActionLogs,
    style_weights: Floats,
    rows: npt.NDArray[np.float32],
    products: Floats,
    threads: int | None = 1,
) -> None:
    if config.betting is not Betting.NO_LIMIT:
        raise ValueError("exact ranges are defined for no-limit hold'em only")
    game = (config.seats, config.small_blind, config.big_blind, config.straddle, config.ante)
    first_rows = np.concatenate([[0], np.cumsum(logs.length)[:-1]]).astype(np.int64)
    arguments = (
        bank,
        game,
        starting_stacks,
        button,
        board,
        logs,
        style_weights,
        reference_ranges(),
        COMBO_CARDS,
        tables(),
        HAS_STRAIGHT,
        rows,
        first_rows,
        products,
    )
    if threads == 1:
        _posterior_serial(*arguments)
    else:
        with numba_threads(threads):
            _posterior_parallel(*arguments)


@nb.njit(cache=True, nogil=True)
def _likelihood(
    probabilities: Floats, amounts: Int64s, move: int, amount: int, out: Floats
) -> None:
    """Per-combo probability of the logged action from a probability table."""
    for combo in range(probabilities.shape[0]):
        if move == MOVE_FOLD:
            out[combo] = probabilities[combo, 0]
        elif move == MOVE_RAISE:
            total = 0.0
            for j in range(MAX_SIZES):
                if amounts[j] == amount:
                    total += probabilities[combo, 2 + j]
            out[combo] = total
        else:
            out[combo] = probabilities[combo, 1]


@nb.njit(cache=True, nogil=True)
def _walk_hand(
    h: int,
    bank: StyleBank,
    game: tuple[int, int, int, int, int],
    starting_stacks: Int64s,
    button: Int64s,
    board: Int64s,
    logs: ActionLogs,
    style_weights: Floats,
    references: npt.NDArray[np.bool_],
    combo_cards: npt.NDArray[np.uint8],
    evaluator: EvaluatorTables,
    has_straight: npt.NDArray[np.bool_],
    rows: npt.NDArray[np.float32],
    first_row: int,
    products: Floats,
) -> None:
    """Replay hand ``h``: write the acting player's range before each action into ``rows``
    from ``first_row`` on (when there are rows) and, when ``products`` has room, every
    seat's per-style likelihood products after the last action."""
    seats, small_blind, big_blind, straddle, ante = game
    card_key, card_mask, row_base, rank_table, flush_table = evaluator
    raise_weight, continue_weight, params, sizes, size_weights = bank
    n_styles = params.shape[0]
    n_combos = combo_cards.shape[0]
    length = logs.length[h]
    features = np.zeros(N_FEATURES)
    probabilities = np.zeros((n_combos, N_COLUMNS))
    amounts = np.zeros(MAX_SIZES, dtype=np.int64)
    likelihood = np.zeros(n_combos)
    made = np.zeros((4, n_combos))
    draw = np.zeros((4, n_combos))
    live = np.ones((4, n_combos), dtype=np.bool_)
    product = np.ones((seats, n_styles, n_combos))
    last_street = logs.street[h, length - 1] if length > 0 else 0
    for street in range(1, last_street + 1):
        count = street + 2
        made_strength_all(
            board[h],
            count,
            references,
            combo_cards,
            card_key,
            card_mask,
            row_base,
            rank_table,
            flush_table,
            made[street],
        )
        draw_strength_all(board[h], count, combo_cards, has_straight, draw[street])
        _unblocked(board[h], count, combo_cards, live[street])
    stacks = starting_stacks[h].copy()
    bets = np.zeros(seats, dtype=np.int64)
    total = np.zeros(seats, dtype=np.int64)
    post_forced_bets(seats, small_blind, big_blind, straddle, ante, button[h], stacks, bets, total)
    street = 0
    row = first_row
    for j in range(length):
        if logs.street[h, j] != street:
            return_uncalled(bets, stacks, total)
            bets[:] = 0
            street = logs.street[h, j]
        seat = logs.seat[h, j]
        move, amount = logs.move[h, j], logs.amount[h, j]
        fill_features(
            seats,
            big_blind,
            straddle,
            button[h],
            seat,
            street,
            stacks,
            bets,
            total.sum(),
            logs.seat[h],
            logs.move[h],
            logs.amount[h],
            logs.street[h],
            j,
            features,
        )
        if rows.shape[0] > 0:
            mass = 0.0
            for combo in range(n_combos):
                value = 0.0
                if live[street, combo]:
                    for k in range(n_styles):
                        value += style_weights[h, seat, k] * product[seat, k, combo]
                likelihood[combo] = value
                mass += value
            for combo in range(n_combos):
                rows[row, combo] = likelihood[combo] / mass if mass > 0 else np.nan
            row += 1
        for k in range(n_styles):
            if style_weights[h, seat, k] == 0:
                continue
            fill_probabilities(
                raise_weight,
                continue_weight,
                params,
                sizes,
                size_weights,
                k,
                features,
                made[street],
                draw[street],
                live[street],
                probabilities,
                amounts,
            )
            _likelihood(probabilities, amounts, move, amount, likelihood)
            for combo in range(n_combos):
                product[seat, k, combo] *= likelihood[combo]
        apply_action(seat, move, amount, stacks, bets, total)
    if products.shape[0] > 0:
        products[h] = product


@nb.njit(cache=True, nogil=True)
def _posterior_serial(
    bank: StyleBank,
    game: tuple[int, int, int, int, int],
    starting_stacks: Int64s,
    button: Int64s,
    board: Int64s,
    logs: ActionLogs,
    style_weights: Floats,
    references: npt.NDArray[np.bool_],
    combo_cards: npt.NDArray[np.uint8],
    evaluator: EvaluatorTables,
    has_straight: npt.NDArray[np.bool_],
    rows: npt.NDArray[np.float32],
    first_rows: Int64s,
    products: Floats,
) -> None:
    for h in range(button.size):
        _walk_hand(
            h,
            bank,
            game,
            starting_stacks,
            button,
            board,
            logs,
            style_weights,
            references,
            combo_cards,
            evaluator,
            has_straight,
            rows,
            first_rows[h],
            products,
        )


@nb.njit(cache=True, nogil=True, parallel=True)
def _posterior_parallel(
    bank: StyleBank,
    game: tuple[int, int, int, int, int],
    starting_stacks: Int64s,
    button: Int64s,
    board: Int64s,
    logs: ActionLogs,
    style_weights: Floats,
    references: npt.NDArray[np.bool_],
    combo_cards: npt.NDArray[np.uint8],
    evaluator: EvaluatorTables,
    has_straight: npt.NDArray[np.bool_],
    rows: npt.NDArray[np.float32],
    first_rows: Int64s,
    products: Floats,
) -> None:
    for h in nb.prange(button.size):
        _walk_hand(
            h,
            bank,
            game,
            starting_stacks,
            button,
            board,
            logs,
            style_weights,
            references,
            combo_cards,
            evaluator,
            has_straight,
            rows,
            first_rows[h],
            products,
        )


@nb.njit(cache=True, nogil=True)
def _unblocked(
    board: Int64s, count: int, combo_cards: npt.NDArray[np.uint8], out: npt.NDArray[np.bool_]
) -> None:
    """Mark the combos that share no card with the first ``count`` board cards."""
    used = np.zeros(52, dtype=np.bool_)
    for i in range(count):
        used[board[i]] = True
    for combo in range(combo_cards.shape[0]):
        out[combo] = not (used[combo_cards[combo, 0]] or used[combo_cards[combo, 1]])
