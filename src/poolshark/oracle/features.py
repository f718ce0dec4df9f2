"""Range-oracle features: each public action as :data:`TOKEN_FEATURES` numbers
(:func:`token_matrix`) and each combo on a board as :data:`COMBO_FEATURES` numbers
(:func:`combo_features`, compiled, with :func:`combo_features_reference` beside it).

An action: the actor's seat counted from the button, the table size, street, move (fold,
check, call, bet, raise), the chips it put in as a share of the pot, the raise beyond a call
as a share of the pot after calling, all-in, the price it faced, pot and stack in big blinds,
players alive, the board's texture and the betting line so far as the actor sees it. A
combo: the pool's own ``made`` and ``draw`` strengths, its value percentile among all live
combos, its hand category, its preflop rank, pair and suitedness, how its ranks pair the
board and how many overcards it holds. None of them depends on suit names, so neither does
the oracle.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.combos import COMBO_CARDS, N_COMBOS
from poolshark.cards.evaluator import KEY_INIT, evaluate_batch, tables, value_of
from poolshark.cards.hand_value import category_bounds
from poolshark.oracle.data import (
    COMBO_HOLDS_CARD,
    MAX_SEATS,
    MOVE_BET_CODE,
    MOVE_CALL_CODE,
    MOVE_CHECK_CODE,
    MOVES,
    VISIBLE,
    OracleData,
    OracleDataError,
    concatenated_ranges,
)
from poolshark.pool.strength import (
    HAS_STRAIGHT,
    draw_strength_all,
    draw_strength_reference,
    made_strength_all,
    made_strength_reference,
    preflop_percentile,
    reference_ranges,
)

Int8s = npt.NDArray[np.int8]
Int16s = npt.NDArray[np.int16]
Int32s = npt.NDArray[np.int32]
Int64s = npt.NDArray[np.int64]
Float32s = npt.NDArray[np.float32]
Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]


TEXTURE_FEATURES = 5
"""Per street of a board: highest suit count / 5, paired, trips or better, top rank / 12,
three ranks within a five-rank window (a straight is possible)."""
LINE_FEATURES = 20
"""Betting-line numbers derived from the actions before (see :func:`_line_kernel`)."""
TOKEN_FEATURES = (
    MAX_SEATS + (MAX_SEATS - 1) + 4 + len(MOVES) + 10 + TEXTURE_FEATURES + LINE_FEATURES
)
"""63 numbers per public action (see :func:`token_matrix`)."""
N_CATEGORIES = 9
COMBO_FEATURES = 3 + N_CATEGORIES + 6
"""18 numbers per combo on a board (see :func:`combo_features`)."""


_CATEGORY_BOUNDS = np.array(category_bounds(), dtype=np.int64)


# -- features -----------------------------------------------------------------------------------


def board_texture(boards: Int8s) -> Float32s:
    """(H, 4, TEXTURE_FEATURES) texture of each hand's board on each street (0 preflop)."""
    boards = np.asarray(boards, dtype=np.int64)
    out = np.zeros((boards.shape[0], 4, TEXTURE_FEATURES), dtype=np.float32)
    for street in (1, 2, 3):
        cards = boards[:, : VISIBLE[street]]
        known = (cards >= 0).all(axis=1)
        ranks = np.where(cards >= 0, cards >> 2, 0)
        suits = np.where(cards >= 0, cards & 3, 0)
        suit_counts = (suits[:, :, None] == np.arange(4)).sum(axis=1)
        rank_counts = (ranks[:, :, None] == np.arange(13)).sum(axis=1)
        present = rank_counts > 0
        windows = np.stack(
            [present[:, max(0, top - 4) : top + 1].sum(axis=1) for top in range(13)], axis=1
        )
        wheel = present[:, [12, 0, 1, 2, 3]].sum(axis=1)
        straight = (windows.max(axis=1) >= 3) | (wheel >= 3)
        texture = np.stack(
            [
                suit_counts.max(axis=1) / 5.0,
                rank_counts.max(axis=1) >= 2,
                rank_counts.max(axis=1) >= 3,
                ranks.max(axis=1) / 12.0,
                straight,
            ],
            axis=1,
        )
        out[known, street] = texture[known]
    return out


def token_matrix(data: OracleData, hands: Int64s) -> Float32s:
    """(n, TOKEN_FEATURES) the numbers of every action of some hands, hand after hand.

    Columns: the actor's seats from the button (10 one-hots), players dealt (9), street
    (4), move (5), log(1 + chips put in / pot), log(1 + raise beyond a call / (pot + to
    call)), all-in, log(1 + to call / pot), facing a bet, log(1 + pot) / 5 and
    log(1 + stack) / 5 in big blinds, log(1 + stack / pot), share of players alive, heads-up;
    the board texture on that street (:func:`board_texture`); and the betting line so far
    as the actor sees it (:func:`_line_kernel`).
    """
    hands = np.asarray(hands, dtype=np.int64)
    counts = np.diff(data.action_start)[hands]
    actions = concatenated_ranges(data.action_start[hands], counts)
    action_hand = np.repeat(hands, counts)
    n = actions.size
    out = np.zeros((n, TOKEN_FEATURES), dtype=np.float32)
    rows = np.arange(n)
    at = 0
    out[rows, at + data.offset[actions].astype(np.int64)] = 1.0
    at += MAX_SEATS
    players = data.players[action_hand].astype(np.int64)
    out[rows, at + players - 2] = 1.0
    at += MAX_SEATS - 1
    street = data.street[actions].astype(np.int64)
    out[rows, at + street] = 1.0
    at += 4
    out[rows, at + data.move[actions].astype(np.int64)] = 1.0
    at += len(MOVES)
    pot = np.maximum(data.pot_bb[actions], 1e-6)
    out[:, at] = np.log1p(data.put_pot[actions])
    out[:, at + 1] = np.log1p(data.raise_pot[actions])
    out[:, at + 2] = data.all_in[actions]
    out[:, at + 3] = np.log1p(data.to_call_pot[actions])
    out[:, at + 4] = data.to_call_pot[actions] > 0
    out[:, at + 5] = np.log1p(data.pot_bb[actions]) / 5.0
    out[:, at + 6] = np.log1p(data.stack_bb[actions]) / 5.0
    out[:, at + 7] = np.log1p(data.stack_bb[actions] / pot)
    out[:, at + 8] = data.alive[actions] / players
    out[:, at + 9] = data.alive[actions] == 2
    at += 10
    out[:, at : at + TEXTURE_FEATURES] = board_texture(data.boards[action_hand])[rows, street]
    at += TEXTURE_FEATURES
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    _line_kernel(
        starts,
        data.players[hands].astype(np.int64),
        data.offset[actions].astype(np.int64),
        street,
        data.move[actions].astype(np.int64),
        data.all_in[actions],
        data.to_call_pot[actions].astype(np.float64),
        out[:, at:],
    )
    return out


@nb.njit(cache=True, nogil=True)
def _line_kernel(
    starts: Int64s,
    players: Int64s,
    offset: Int64s,
    street: Int64s,
    move: Int64s,
    all_in: Bools,
    to_call_pot: Floats,
    out: Float32s,
) -> None:
    """Per action, the betting line before it as its actor sees it (``LINE_FEATURES``):
    preflop raises so far (5 one-hots, the last 4+), which preflop raise was the actor's
    last (4 one-hots: none, open, 3-bet, 4-bet+), limpers / 3 (at most 1), the actor made
    the last preflop raise, the actor made the last raise of the previous street, this
    street's first bet came from that previous aggressor, bets and raises on this street
    (4 one-hots, the last 3+), the actor checked earlier this street, nobody live with
    chips acts after the actor postflop, and log(1 + to call / (pot - to call))."""
    for h in range(starts.size - 1):
        n = players[h]
        raises = 0
        limpers = 0
        level = np.zeros(MAX_SEATS, dtype=np.int64)
        folded = np.zeros(MAX_SEATS, dtype=np.bool_)
        shoved = np.zeros(MAX_SEATS, dtype=np.bool_)
        checked = np.zeros(MAX_SEATS, dtype=np.bool_)
        first = np.full(4, -1, dtype=np.int64)
        last = np.full(4, -1, dtype=np.int64)
        street_raises = 0
        current = 0
        for a in range(starts[h], starts[h + 1]):
            me, st, mv = offset[a], street[a], move[a]
            if st != current:
                current = st
                street_raises = 0
                checked[:] = False
            out[a, min(raises, 4)] = 1.0
            out[a, 5 + min(level[me], 3)] = 1.0
            out[a, 9] = min(limpers, 3) / 3.0
            out[a, 10] = 1.0 if raises > 0 and last[0] == me else 0.0
            previous = last[st - 1] if st > 0 else -1
            out[a, 11] = 1.0 if previous == me and previous >= 0 else 0.0
            out[a, 12] = 1.0 if st > 0 and previous >= 0 and first[st] == previous else 0.0
            out[a, 13 + min(street_raises, 3)] = 1.0
            out[a, 17] = 1.0 if checked[me] else 0.0
            behind = False
            for other in range(n):
                live = other != me and not folded[other] and not shoved[other]
                if live and (other - 1) % n > (me - 1) % n:
                    behind = True
            out[a, 18] = 0.0 if behind else 1.0
            price = min(to_call_pot[a], 0.999)
            out[a, 19] = np.log1p(price / (1.0 - price))
            if mv == 0:
                folded[me] = True
            elif mv == MOVE_CHECK_CODE:
                checked[me] = True
            elif mv == MOVE_CALL_CODE and st == 0 and raises == 0:
                limpers += 1
            elif mv >= MOVE_BET_CODE:
                street_raises += 1
                last[st] = me
                if first[st] < 0:
                    first[st] = me
                if st == 0:
                    raises += 1
                    level[me] = raises
            if all_in[a]:
                shoved[me] = True


@nb.njit(cache=True, nogil=True)
def _combo_features_kernel(
    boards: Int64s,
    counts: Int64s,
    references: npt.NDArray[np.bool_],
    combo_cards: npt.NDArray[np.uint8],
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    has_straight: npt.NDArray[np.bool_],
    category_bounds: Int64s,
    preflop: Floats,
    out: Float32s,
) -> None:
    n_combos = combo_cards.shape[0]
    made = np.zeros(n_combos)
    draw = np.zeros(n_combos)
    values = np.zeros(n_combos, dtype=np.int64)
    histogram = np.zeros(7464, dtype=np.int64)
    for b in range(boards.shape[0]):
        board, n_board = boards[b], counts[b]
        made_strength_all(
            board, n_board, references, combo_cards, card_key, card_mask, row_base,
            rank_table, flush_table, made,
        )  # fmt: skip
        draw_strength_all(board, n_board, combo_cards, has_straight, draw)
        key = np.int64(KEY_INIT)
        mask = np.int64(0)
        used = np.zeros(52, dtype=np.bool_)
        rank_count = np.zeros(13, dtype=np.int64)
        top = 0
        for i in range(n_board):
            key += card_key[board[i]]
            mask |= card_mask[board[i]]
            used[board[i]] = True
            rank_count[board[i] >> 2] += 1
            top = max(top, board[i] >> 2)
        histogram[:] = 0
        live = 0
        for combo in range(n_combos):
            a, c = combo_cards[combo, 0], combo_cards[combo, 1]
            values[combo] = 0
            if used[a] or used[c]:
                continue
            value = value_of(
                key + card_key[a] + card_key[c],
                mask | card_mask[a] | card_mask[c],
                row_base,
                rank_table,
                flush_table,
            )
            values[combo] = value
            histogram[value] += 1
            live += 1
        below = np.zeros(7464, dtype=np.int64)
        for level in range(1, 7464):
            below[level] = below[level - 1] + histogram[level - 1]
        for combo in range(n_combos):
            value = values[combo]
            if value == 0:
                for f in range(out.shape[2]):
                    out[b, combo, f] = 0.0
                continue
            a, c = combo_cards[combo, 0], combo_cards[combo, 1]
            high, low = max(a >> 2, c >> 2), min(a >> 2, c >> 2)
            out[b, combo, 0] = made[combo]
            out[b, combo, 1] = draw[combo]
            out[b, combo, 2] = (below[value] + (histogram[value] - 1) / 2) / max(live - 1, 1)
            category = 0
            while value >= category_bounds[category + 1]:
                category += 1
            for k in range(9):
                out[b, combo, 3 + k] = 1.0 if k == category else 0.0
            out[b, combo, 12] = preflop[combo]
            out[b, combo, 13] = 1.0 if high == low else 0.0
            out[b, combo, 14] = 1.0 if (a & 3) == (c & 3) else 0.0
            out[b, combo, 15] = rank_count[high] / 3.0
            out[b, combo, 16] = rank_count[low] / 3.0 if high != low else 0.0
            out[b, combo, 17] = ((high > top) + (low > top)) / 2.0


def combo_features(boards: Int64s, counts: Int64s) -> Float32s:
    """(n, 1326, COMBO_FEATURES) features of every combo on each of n boards.

    ``boards`` (n, 5) card indices, of which the first ``counts`` (3, 4 or 5) are the
    board; blocked combos get all zeros. Columns: ``made``, ``draw`` (the pool's strengths,
    :mod:`poolshark.pool.strength`), the value percentile among all live combos (ties
    half), 9 hand-category one-hots, the preflop percentile (0 best), pocket pair,
    suited, board cards of the higher and of the lower hole rank (/ 3), overcards (/ 2).
    """
    boards = np.ascontiguousarray(boards, dtype=np.int64)
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    if boards.ndim != 2 or boards.shape[1] != 5 or counts.shape != (boards.shape[0],):
        raise OracleDataError(
            f"combo features need (n, 5) boards and (n,) counts, got {boards.shape}, {counts.shape}"
        )
    if counts.size and (counts.min() < 3 or counts.max() > 5):
        raise OracleDataError("combo features need boards of 3 to 5 cards")
    safe = np.where(np.arange(5)[None, :] < counts[:, None], boards, 0)
    out = np.zeros((boards.shape[0], N_COMBOS, COMBO_FEATURES), dtype=np.float32)
    _combo_features_kernel(
        safe,
        counts,
        reference_ranges(),
        COMBO_CARDS,
        *tables(),
        HAS_STRAIGHT,
        _CATEGORY_BOUNDS,
        np.asarray(preflop_percentile(), dtype=np.float64),
        out,
    )
    return out


def combo_features_reference(board: list[int]) -> Float32s:
    """(1326, COMBO_FEATURES) the same features for one board, the plain numpy way."""
    live = ~COMBO_HOLDS_CARD[board].any(axis=0)
    out = np.zeros((N_COMBOS, COMBO_FEATURES), dtype=np.float32)
    holes = COMBO_CARDS[live].astype(np.int64)
    cards = np.concatenate([holes, np.tile(board, (holes.shape[0], 1))], axis=1)
    values = evaluate_batch(cards.astype(np.uint8)).astype(np.int64)
    greater_or_equal = values[:, None] >= values[None, :]
    below = (values[:, None] > values[None, :]).sum(axis=1)
    ties = greater_or_equal.sum(axis=1) - below - 1
    out[live, 0] = made_strength_reference(board)[live]
    out[live, 1] = draw_strength_reference(board)[live]
    out[live, 2] = (below + ties / 2) / max(values.size - 1, 1)
    category = np.searchsorted(_CATEGORY_BOUNDS, values, side="right") - 1
    out[np.flatnonzero(live), 3 + category] = 1.0
    out[live, 12] = preflop_percentile()[live]
    high = np.maximum(holes[:, 0] >> 2, holes[:, 1] >> 2)
    low = np.minimum(holes[:, 0] >> 2, holes[:, 1] >> 2)
    board_ranks = np.array([card >> 2 for card in board])
    out[live, 13] = high == low
    out[live, 14] = (holes[:, 0] & 3) == (holes[:, 1] & 3)
    out[live, 15] = (board_ranks[None, :] == high[:, None]).sum(axis=1) / 3.0
    out[live, 16] = np.where(high != low, (board_ranks[None, :] == low[:, None]).sum(axis=1), 0) / 3
    out[live, 17] = ((high > board_ranks.max()).astype(int) + (low > board_ranks.max())) / 2.0
    return out
