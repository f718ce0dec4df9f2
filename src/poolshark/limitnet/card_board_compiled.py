"""The board card features, compiled: :func:`card_features.board_features` in numba (the
flop's 19, the turn's 22, the river's 38; the river's first 30 are the short list the
action function reads). Each function follows its readable namesake line for line on rank
bit sets (:mod:`card_ranks_compiled`)."""

from __future__ import annotations

from collections.abc import Sequence

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.limitnet.card_ranks_compiled import (
    POPCOUNT,
    WINDOW_MASKS,
    bit,
    completing,
    count_in,
    draw_hands,
    first_index,
    flag,
    gaps,
    has,
    one_gap_outs,
    rank_groups,
    rank_set,
    rank_value,
    shape_is,
    slots,
    sorted_ranks,
    suit_counts,
)
from poolshark.limitnet.card_schema import FLOP_BOARD, RIVER_BOARD, SHORT_RIVER_BOARD, TURN_BOARD

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

FLOP_BOARD_N = len(FLOP_BOARD)
TURN_BOARD_N = len(TURN_BOARD)
RIVER_BOARD_N = len(RIVER_BOARD)
SHORT_RIVER_N = len(SHORT_RIVER_BOARD)
FB = slots("FlopBoard", FLOP_BOARD)
TB = slots("TurnBoard", TURN_BOARD)
RB = slots("RiverBoard", RIVER_BOARD)


@nb.njit(cache=True, nogil=True)
def flop_board(flop: Int64s, out: Floats) -> None:
    """The flop's 19 board features into ``out`` (``card_features._flop_board``)."""
    ranks = sorted_ranks(flop)
    distinct = rank_set(flop)
    kinds = POPCOUNT[distinct]
    if kinds == 1:
        out[FB.trips_flop] = 1
        out[FB.trips_rank] = rank_value(ranks[0])
    elif kinds == 2:
        pair = ranks[1]
        kicker = ranks[0] if ranks[0] != pair else ranks[2]
        out[FB.pair_flop] = 1
        out[FB.pair_rank] = rank_value(pair)
        out[FB.pair_kicker] = rank_value(kicker)
        out[FB.pair_above_kicker] = flag(pair > kicker)
    else:
        out[FB.unpaired_flop] = 1
        out[FB.flop_hi] = rank_value(ranks[0])
        out[FB.flop_mid] = rank_value(ranks[1])
        out[FB.flop_lo] = rank_value(ranks[2])
    suits = suit_counts(flop)
    most = suits.max()
    out[(FB.rainbow, FB.two_tone, FB.monotone)[most - 1]] = 1
    if most >= 2:
        suit = first_index(suits, most)
        top = -1
        for c in flop:
            if c % 4 == suit:
                top = max(top, c // 4)
        out[FB.suit_top] = rank_value(top)
    single, double, _ = draw_hands(distinct)
    out[FB.two_gaps] = gaps(distinct, 2)
    out[FB.single_draw_hands] = count_in(single)
    out[FB.double_draw_hands] = count_in(double)
    backdoor = 0
    for w in range(10):
        backdoor += POPCOUNT[WINDOW_MASKS[w] & distinct] == 2
    out[FB.backdoor_windows] = backdoor
    out[FB.one_gap_outs] = POPCOUNT[one_gap_outs(distinct)]


@nb.njit(cache=True, nogil=True)
def turn_board(flop: Int64s, turn: int, out: Floats) -> None:
    """The turn's 22 board features into ``out`` (``card_features._turn_board``)."""
    flop_ranks = sorted_ranks(flop)
    distinct = rank_set(flop)
    kinds = POPCOUNT[distinct]
    t = turn // 4
    if kinds == 1:
        if t == flop_ranks[0]:
            out[TB.t_quads_board] = 1
        else:
            out[TB.t_trips_kicker] = rank_value(t)
            out[TB.t_trips_kicker_above] = flag(t > flop_ranks[0])
    elif kinds == 2:
        pair = flop_ranks[1]
        kicker = flop_ranks[0] if flop_ranks[0] != pair else flop_ranks[2]
        if t == pair:
            out[TB.t_trips_from_pair] = 1
        elif t == kicker:
            out[TB.t_two_pair_board] = 1
        else:
            out[TB.t_pair_turn] = rank_value(t)
            out[TB.t_pair_turn_above_pair] = flag(t > pair)
            out[TB.t_pair_turn_above_kicker] = flag(t > kicker)
    elif has(distinct, t):
        out[TB.t_pairs_flop] = 1
        out[TB.t_pairs_which] = first_index(flop_ranks, t) + 1
    else:
        out[TB.t_unpaired_turn] = rank_value(t)
        out[TB.t_unpaired_under] = (flop_ranks < t).sum()
    suits = suit_counts(flop)
    most = suits.max()
    same = suits[turn % 4]
    if most == 3 and same == 3:
        out[TB.t_four_flush] = 1
    elif most == 2 and same == 2:
        out[TB.t_three_flush] = 1
    elif most == 2 and same == 1:
        out[TB.t_two_draws] = 1
    elif most == 1 and same == 1:
        out[TB.t_new_draw] = 1
    after = distinct | bit(t)
    out[TB.t_one_gaps] = gaps(after, 1)
    single, double, outs = draw_hands(distinct)
    out[TB.t_singles_done] = completing(single, outs, t)
    out[TB.t_doubles_done] = completing(double, outs, t)
    single_now, double_now, _ = draw_hands(after)
    drawing = single | double
    out[TB.t_new_singles] = count_in(single_now & ~drawing)
    out[TB.t_new_doubles] = count_in(double_now & ~drawing)
    out[TB.t_single_to_double] = count_in(double_now & single)


@nb.njit(cache=True, nogil=True)
def short_river(board: Int64s, out: Floats) -> None:
    """The 30 order-free river board features (the first 30 of the river's 38)."""
    ranks = sorted_ranks(board)
    sizes, which, n = rank_groups(ranks)
    if shape_is(sizes, n, 4, 1, 0, 0):
        out[RB.r_quads_board] = 1
        out[RB.r_quads_rank] = rank_value(which[0])
        out[RB.r_quads_kicker] = rank_value(which[1])
    elif shape_is(sizes, n, 3, 2, 0, 0):
        out[RB.r_full_board] = 1
        out[RB.r_full_trips] = rank_value(which[0])
        out[RB.r_full_pair] = rank_value(which[1])
    elif shape_is(sizes, n, 3, 1, 1, 0):
        out[RB.r_trips_board] = 1
        out[RB.r_trips_rank] = rank_value(which[0])
        out[RB.r_trips_kickers_above] = (which[1:n] > which[0]).sum()
    elif shape_is(sizes, n, 2, 2, 1, 0):
        out[RB.r_two_pair_board] = 1
        out[RB.r_tp_hi] = rank_value(which[0])
        out[RB.r_tp_lo] = rank_value(which[1])
        out[RB.r_tp_kicker] = rank_value(which[2])
    elif shape_is(sizes, n, 2, 1, 1, 1):
        out[RB.r_pair_board] = 1
        out[RB.r_pair_rank] = rank_value(which[0])
        out[RB.r_pair_kickers_above] = (which[1:n] > which[0]).sum()
    else:
        out[RB.r_unpaired_board] = 1
    rank_slots = (RB.r_rank_1, RB.r_rank_2, RB.r_rank_3, RB.r_rank_4, RB.r_rank_5)
    for i in range(5):
        out[rank_slots[i]] = rank_value(ranks[i])
    suits = suit_counts(board)
    most = suits.max()
    if most >= 3:
        suit = first_index(suits, most)
        top, bottom = -1, 13
        for c in board:
            if c % 4 == suit:
                top, bottom = max(top, c // 4), min(bottom, c // 4)
        kind = RB.r_three_flush if most == 3 else RB.r_four_flush if most == 4 else RB.r_flush_board
        out[kind] = 1
        out[RB.r_flush_top] = rank_value(top)
        if most == 5:
            out[RB.r_flush_bottom] = rank_value(bottom)
    distinct = rank_set(board)
    straight = False
    for w in range(10):
        straight |= (WINDOW_MASKS[w] & distinct) == WINDOW_MASKS[w]
    out[RB.r_straight_board] = flag(straight)
    out[RB.r_one_gaps] = gaps(distinct, 1)
    out[RB.r_two_gaps] = gaps(distinct, 2)


@nb.njit(cache=True, nogil=True)
def river_board(board: Int64s, out: Floats) -> None:
    """The river's 38 board features into ``out`` (``card_features._river_board``)."""
    short_river(board, out)
    river = board[4] // 4
    top = -1
    earlier = rank_set(board[:4])
    for c in board[:4]:
        top = max(top, c // 4)
    out[RB.r_river_rank] = rank_value(river)
    out[RB.r_river_pairs] = flag(has(earlier, river))
    out[RB.r_river_top] = flag(river > top)
    suits = suit_counts(board)
    most = suits.max()
    if most >= 3 and board[4] % 4 == first_index(suits, most):
        out[RB.r_river_suits] = 1
    flop = rank_set(board[:3])
    turn = flop | bit(board[3] // 4)
    single, double, outs = draw_hands(turn)
    flop_single, flop_double, _ = draw_hands(flop)
    out[RB.r_singles_done] = completing(single, outs, river)
    out[RB.r_doubles_done] = completing(double, outs, river)
    out[RB.r_new_singles_done] = completing(single & ~(flop_single | flop_double), outs, river)
    out[RB.r_single_to_double_done] = completing(double & flop_single, outs, river)


def compiled_board_features(board: Sequence[int]) -> Floats:
    """:func:`card_features.board_features` (3, 4 or 5 cards), by the compiled path."""
    if len(board) not in (3, 4, 5):
        raise ValueError(f"a board has 3, 4 or 5 cards, got {len(board)}")
    cards = np.asarray(board, dtype=np.int64)
    width = FLOP_BOARD_N + (TURN_BOARD_N if len(board) >= 4 else 0)
    width += RIVER_BOARD_N if len(board) == 5 else 0
    out = np.zeros(width)
    flop_board(cards[:3], out[:FLOP_BOARD_N])
    if len(board) >= 4:
        turn_board(cards[:3], int(cards[3]), out[FLOP_BOARD_N : FLOP_BOARD_N + TURN_BOARD_N])
    if len(board) == 5:
        river_board(cards, out[FLOP_BOARD_N + TURN_BOARD_N :])
    return out
