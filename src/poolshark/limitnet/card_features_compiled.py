"""The staged card features, compiled: :mod:`card_features` for many (hole, board) pairs at
once in numba.

:func:`card_feature_batch` fills one row per pair with what the action function reads
(:func:`card_features.card_features`: preflop 6, flop 19 + 71, turn 41 + 95, river
30 + 82), zero-padded to the widest stage; :func:`compiled_card_features` and
:func:`compiled_board_features` are one-pair conveniences. The readable module stays the
specification: every function here follows its namesake line for line, on rank bit sets
(:mod:`card_ranks_compiled`) instead of frozensets, and the tests compare the two on
random deals at every stage (``tests/test_limitnet_card_features_compiled.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.evaluator import KEY_INIT, tables, value_of
from poolshark.cards.hand_value import category_bounds
from poolshark.limitnet.card_board_compiled import (
    FLOP_BOARD_N,
    SHORT_RIVER_N,
    TURN_BOARD_N,
    flop_board,
    short_river,
    turn_board,
)
from poolshark.limitnet.card_features import input_size
from poolshark.limitnet.card_ranks_compiled import (
    FULL_HOUSE,
    PAIR_INDEX,
    POPCOUNT,
    QUADS,
    WINDOW_MASKS,
    WINDOW_TOPS,
    best_straight,
    better_pair_hands,
    bit,
    completing,
    draw_hands,
    first_index,
    flag,
    has,
    higher_in_suit,
    higher_straights,
    in_suit,
    key_category,
    one_gap_outs,
    put,
    rank_groups,
    rank_key,
    rank_set,
    rank_value,
    shape_is,
    sharing_hands,
    slots,
    sorted_ranks,
    straight_outs,
    suit_counts,
)
from poolshark.limitnet.card_schema import (
    FLOP_PRIVATE,
    PREFLOP_PRIVATE,
    RIVER_PRIVATE,
    TURN_PRIVATE,
)

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

WIDEST = max(input_size(stage) for stage in range(4))
"""Columns of :func:`card_feature_batch` (the turn's 41 + 95)."""

PP = slots("PreflopPrivate", PREFLOP_PRIVATE)
FP = slots("FlopPrivate", FLOP_PRIVATE)
TP = slots("TurnPrivate", TURN_PRIVATE)
RP = slots("RiverPrivate", RIVER_PRIVATE)

_UNPAIRED = (
    "set",
    "set_rank",
    "set_under",
    "two_pair",
    "tp_hi",
    "tp_lo",
    "tp_below_hi",
    "tp_below_lo",
    "pocket",
    "pocket_rank",
    "pocket_under",
    "pair",
    "pair_rank",
    "pair_under",
    "pair_kicker",
    "kicker_under",
    "nothing",
    "hi",
    "hi_under",
    "lo",
    "lo_under",
)
_PAIRED = (
    "quads",
    "full_pocket",
    "full_unpaired",
    "full_pocket_higher",
    "full_unpaired_higher",
    "trips",
    "trips_above_pair",
    "trips_kickers_below",
    "pocket",
    "pocket_rank",
    "pocket_above_pair",
    "pocket_kickers_below",
    "kicker_paired",
    "kp_pair_below",
    "kp_kickers_below",
    "kp_other",
    "kp_other_above_pair",
    "kp_other_kickers_below",
    "hi",
    "lo",
    "above_pair",
)
_MADE = ("quads", "quads_higher", "full", "full_higher")
_STRAIGHTS = (
    "st_straight",
    "st_higher",
    "st_single",
    "st_double",
    "st_higher_one_gap",
    "st_higher_two_gap",
    "st_shared_one_gap",
    "if_pair_single",
    "if_pair_double",
)
NP = slots("FlopUnpaired", FLOP_PRIVATE, "np_", _UNPAIRED)
UB = slots("TurnUnpaired", TURN_PRIVATE, "ub_", _UNPAIRED)
RU = slots("RiverUnpaired", RIVER_PRIVATE, "ru_", _UNPAIRED)
PB = slots("TurnPaired", TURN_PRIVATE, "pb_", _PAIRED)
RPB = slots("RiverPaired", RIVER_PRIVATE, "rp_", _PAIRED)
TPM = slots("TurnMade", TURN_PRIVATE, "tp_", _MADE)
RTPM = slots("RiverMade", RIVER_PRIVATE, "rtp_", _MADE)
FST = slots("FlopStraights", FLOP_PRIVATE, "", _STRAIGHTS)
TST = slots("TurnStraights", TURN_PRIVATE, "", _STRAIGHTS)


# -- private features -------------------------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def _preflop(hole: Int64s, out: Floats) -> None:
    """The 6 preflop private features (``card_features._preflop``)."""
    hi, lo = max(hole[0] // 4, hole[1] // 4), min(hole[0] // 4, hole[1] // 4)
    if hi == lo:
        out[PP.pocket_pair] = 1
        out[PP.pair_rank] = rank_value(hi)
        return
    out[PP.hi_rank] = rank_value(hi)
    out[PP.lo_rank] = rank_value(lo)
    out[PP.suited] = flag(hole[0] % 4 == hole[1] % 4)
    both = bit(hi) | bit(lo)
    straights = 0
    for w in range(10):
        straights += (WINDOW_MASKS[w] & both) == both
    out[PP.straights] = straights


@nb.njit(inline="always")
def _my_straights(s: Any, board: int, hole: int, out: Floats) -> int:
    """The straight features the flop and turn share; returns my outs."""
    top = best_straight(board, hole)[0]
    outs = straight_outs(board, hole)
    if top >= 0:
        out[s.st_straight] = 1
        higher = 0
        for w in range(10):
            higher += POPCOUNT[WINDOW_MASKS[w] & ~board] <= 2 and WINDOW_TOPS[w] > top
        out[s.st_higher] = higher
    out[s.st_single] = flag(POPCOUNT[outs] == 1)
    out[s.st_double] = flag(POPCOUNT[outs] >= 2)
    higher_one = higher_straights(board, top, 1) if top >= 0 else 0
    higher_two = higher_straights(board, top, 2) if top >= 0 else 0
    shared_one = 0
    for r in range(13):
        if not has(outs, r):
            continue
        after = board | bit(r)
        new_top = best_straight(after, hole)[0]
        higher_one += higher_straights(after, new_top, 1)
        higher_two += higher_straights(after, new_top, 2)
        for w in range(10):
            shared_one += POPCOUNT[WINDOW_MASKS[w] & ~after] == 1 and WINDOW_TOPS[w] <= new_top
    out[s.st_higher_one_gap] = higher_one
    out[s.st_higher_two_gap] = higher_two
    out[s.st_shared_one_gap] = shared_one
    return outs


@nb.njit(inline="always")
def _if_pair(
    s: Any, single: Bools, double: Bools, outs: Int64s, hi: int, lo: int, out: Floats
) -> None:
    """Draw hands that one of my hole ranks would complete, were it to come (``_if_pair``)."""
    out[s.if_pair_single] = completing(single, outs, hi) + completing(single, outs, lo)
    out[s.if_pair_double] = completing(double, outs, hi) + completing(double, outs, lo)


@nb.njit(inline="always")
def _unpaired(s: Any, hi: int, lo: int, ranks: Int64s, out: Floats) -> None:
    """The made-hand block on a board of different ranks (``np``, ``ub``, ``ru``)."""
    held = 0
    for r in ranks:
        held |= bit(r)
    if hi == lo:
        if has(held, hi):
            put(out, s.set, 1)
            put(out, s.set_rank, rank_value(hi))
            put(out, s.set_under, (ranks > hi).sum())
        else:
            put(out, s.pocket, 1)
            put(out, s.pocket_rank, rank_value(hi))
            put(out, s.pocket_under, (ranks > hi).sum())
    elif has(held, hi) and has(held, lo):
        put(out, s.two_pair, 1)
        put(out, s.tp_hi, rank_value(hi))
        put(out, s.tp_lo, rank_value(lo))
        put(out, s.tp_below_hi, (ranks < hi).sum())
        put(out, s.tp_below_lo, (ranks < lo).sum())
    elif has(held, hi) or has(held, lo):
        pair, kicker = (hi, lo) if has(held, hi) else (lo, hi)
        put(out, s.pair, 1)
        put(out, s.pair_rank, rank_value(pair))
        put(out, s.pair_under, (ranks > pair).sum())
        put(out, s.pair_kicker, rank_value(kicker))
        put(out, s.kicker_under, (ranks > kicker).sum())
    else:
        put(out, s.nothing, 1)
        put(out, s.hi, rank_value(hi))
        put(out, s.hi_under, (ranks > hi).sum())
        put(out, s.lo, rank_value(lo))
        put(out, s.lo_under, (ranks > lo).sum())


@nb.njit(inline="always")
def _flush(on: int, higher: int, suit: int, hole: Int64s, board: Int64s, out: Floats) -> None:
    """A flush feature on, and its ``_higher`` count: the suit's ranks above my best card of it."""
    out[on] = 1
    out[higher] = higher_in_suit(suit, hole, board)


@nb.njit(cache=True, nogil=True)
def _flop_flush(hole: Int64s, board: Int64s, out: Floats) -> None:
    """The flop's flush features (``card_features._flop_flush``)."""
    suits = suit_counts(board)
    most = suits.max()
    suited = hole[0] % 4 == hole[1] % 4
    if most == 3:
        suit = first_index(suits, 3)
        mine = in_suit(hole, suit)
        if mine == 2:
            _flush(FP.mono_flush, FP.mono_flush_higher, suit, hole, board, out)
        elif mine == 1:
            _flush(FP.mono_draw, FP.mono_draw_higher, suit, hole, board, out)
        return
    if most == 2:
        suit = first_index(suits, 2)
        mine = in_suit(hole, suit)
        if mine == 2:
            _flush(FP.tt_draw, FP.tt_draw_higher, suit, hole, board, out)
        elif mine == 1:
            _flush(FP.tt_backdoor_one, FP.tt_backdoor_one_higher, suit, hole, board, out)
        elif suited and suits[hole[0] % 4] == 1:
            _flush(FP.tt_backdoor_two, FP.tt_backdoor_two_higher, hole[0] % 4, hole, board, out)
        return
    if suited and suits[hole[0] % 4] == 1:
        _flush(FP.rb_backdoor, FP.rb_backdoor_higher, hole[0] % 4, hole, board, out)


@nb.njit(cache=True, nogil=True)
def _pair_flop(hi: int, lo: int, pair: int, kicker: int, out: Floats) -> None:
    """The made-hand block on a paired flop (``card_features._pair_flop``)."""
    if hi == lo:
        if hi == pair:
            out[FP.pf_quads] = 1
        elif hi == kicker:
            out[FP.pf_full_pocket] = 1
        else:
            out[FP.pf_pocket] = 1
            out[FP.pf_pocket_rank] = rank_value(hi)
            out[FP.pf_pocket_above_pair] = flag(hi > pair)
            out[FP.pf_pocket_above_kicker] = flag(hi > kicker)
        return
    if (hi == pair and lo == kicker) or (hi == kicker and lo == pair):
        out[FP.pf_full_unpaired] = 1
    elif pair in (hi, lo):
        other = lo if hi == pair else hi
        out[FP.pf_trips] = 1
        out[FP.pf_trips_above_pair] = flag(other > pair)
        out[FP.pf_trips_above_kicker] = flag(other > kicker)
    elif kicker in (hi, lo):
        other = lo if hi == kicker else hi
        out[FP.pf_kicker_paired] = 1
        out[FP.pf_kp_other] = rank_value(other)
        out[FP.pf_kp_other_above_pair] = flag(other > pair)
        out[FP.pf_kp_other_above_kicker] = flag(other > kicker)
    else:
        out[FP.pf_hi] = rank_value(hi)
        out[FP.pf_lo] = rank_value(lo)
        out[FP.pf_above_pair] = (hi > pair) + (lo > pair)
        out[FP.pf_above_kicker] = (hi > kicker) + (lo > kicker)


@nb.njit(cache=True, nogil=True)
def _flop(hole: Int64s, board: Int64s, out: Floats) -> None:
    """The flop's 71 private features (``card_features._flop``)."""
    hi, lo = max(hole[0] // 4, hole[1] // 4), min(hole[0] // 4, hole[1] // 4)
    ranks = sorted_ranks(board)
    distinct = rank_set(board)
    kinds = POPCOUNT[distinct]
    pocket = hi == lo
    if kinds == 1:
        trips = ranks[0]
        out[FP.tf_quads] = flag(trips in (hi, lo))
        if pocket and hi != trips:
            out[FP.tf_pocket_pair] = 1
            out[FP.tf_pocket_rank] = rank_value(hi)
        out[FP.tf_hi] = rank_value(hi)
        out[FP.tf_lo] = rank_value(lo)
    elif kinds == 2:
        pair = ranks[1]
        kicker = ranks[0] if ranks[0] != pair else ranks[2]
        _pair_flop(hi, lo, pair, kicker, out)
    else:
        _unpaired(NP, hi, lo, ranks, out)
        if pocket and has(distinct, hi):
            out[FP.np_set_which] = first_index(ranks, hi) + 1
        elif has(distinct, hi) and has(distinct, lo):
            for i in range(3):
                if ranks[i] != hi and ranks[i] != lo:
                    out[FP.np_tp_missing] = i + 1
                    break
    _flop_flush(hole, board, out)
    hole_ranks = bit(hi) | bit(lo)
    outs = _my_straights(FST, distinct, hole_ranks, out)
    single, double, pair_outs = draw_hands(distinct)
    mine = PAIR_INDEX[lo, hi]
    out[FP.st_shared_single] = sharing_hands(single, pair_outs, outs, mine)
    out[FP.st_shared_double] = sharing_hands(double, pair_outs, outs, mine)
    windows = 0
    best = -1
    needed = 0
    for w in range(10):
        window = WINDOW_MASKS[w]
        if POPCOUNT[window & ~distinct & ~hole_ranks] == 2 and window & hole_ranks & ~distinct:
            windows += 1
            best = max(best, WINDOW_TOPS[w])
            needed |= window & ~distinct & ~hole_ranks
    if windows:
        out[FP.bd_windows] = windows
        higher = 0
        for w in range(10):
            higher += WINDOW_TOPS[w] > best and (WINDOW_MASKS[w] & distinct) != 0
        out[FP.bd_higher] = higher
        out[FP.bd_shared_one_gap] = POPCOUNT[one_gap_outs(distinct) & needed]
        out[FP.bd_shared_single] = sharing_hands(single, pair_outs, needed, mine)
        out[FP.bd_shared_double] = sharing_hands(double, pair_outs, needed, mine)
    _if_pair(FST, single, double, pair_outs, hi, lo, out)


@nb.njit(inline="always")
def _full_or_quads(s: Any, ranks: Int64s, hi: int, lo: int, out: Floats) -> bool:
    """On a two-pair board: quads or a full house, and how many such hands beat mine."""
    counts = np.zeros(13, dtype=np.int64)
    for r in ranks:
        counts[r] += 1
    counts[hi] += 1
    counts[lo] += 1
    category = key_category(rank_key(counts))
    if category == QUADS:
        pocket, unpaired = better_pair_hands(ranks, hi, lo, QUADS)
        put(out, s.quads, 1)
        put(out, s.quads_higher, pocket + unpaired)
        return True
    if category == FULL_HOUSE:
        pocket, unpaired = better_pair_hands(ranks, hi, lo, FULL_HOUSE)
        put(out, s.full, 1)
        put(out, s.full_higher, pocket + unpaired)
        return True
    return False


@nb.njit(inline="always")
def _paired(
    s: Any, hi: int, lo: int, ranks: Int64s, pair: int, kickers: Int64s, out: Floats
) -> None:
    """The made-hand block on a board with exactly one pair (turn ``pb``, river ``rp``)."""
    kicker_set = 0
    for k in kickers:
        kicker_set |= bit(k)
    if hi == lo and hi == pair:
        put(out, s.quads, 1)
    elif hi == lo and has(kicker_set, hi):
        put(out, s.full_pocket, 1)
    elif hi != lo and (hi == pair or lo == pair) and has(kicker_set, lo if hi == pair else hi):
        put(out, s.full_unpaired, 1)
    elif hi != lo and (hi == pair or lo == pair):
        other = lo if hi == pair else hi
        put(out, s.trips, 1)
        put(out, s.trips_above_pair, flag(other > pair))
        put(out, s.trips_kickers_below, (kickers < other).sum())
    elif hi == lo:
        put(out, s.pocket, 1)
        put(out, s.pocket_rank, rank_value(hi))
        put(out, s.pocket_above_pair, flag(hi > pair))
        put(out, s.pocket_kickers_below, (kickers < hi).sum())
    elif has(kicker_set, hi) or has(kicker_set, lo):
        paired, other = (hi, lo) if has(kicker_set, hi) else (lo, hi)
        put(out, s.kicker_paired, 1)
        put(out, s.kp_pair_below, flag(pair < paired))
        put(out, s.kp_kickers_below, (kickers < paired).sum())
        put(out, s.kp_other, rank_value(other))
        put(out, s.kp_other_above_pair, flag(other > pair))
        put(out, s.kp_other_kickers_below, (kickers < other).sum())
    else:
        put(out, s.hi, rank_value(hi))
        put(out, s.lo, rank_value(lo))
        put(out, s.above_pair, (hi > pair) + (lo > pair))
    if out[s.full_pocket] or out[s.full_unpaired]:
        pockets, unpaired = better_pair_hands(ranks, hi, lo, FULL_HOUSE)
        put(out, s.full_pocket_higher, pockets)
        put(out, s.full_unpaired_higher, unpaired)


@nb.njit(cache=True, nogil=True)
def _turn_flush(hole: Int64s, board: Int64s, out: Floats) -> None:
    """The turn's flush features (``card_features._turn_flush``)."""
    suits = suit_counts(board)
    most = suits.max()
    twos = (suits == 2).sum()
    if most == 4:
        suit = first_index(suits, 4)
        mine = in_suit(hole, suit)
        if mine:
            _flush(TP.f4_flush, TP.f4_flush_higher, suit, hole, board, out)
            out[TP.f4_both] = flag(mine == 2)
    elif most == 3:
        suit = first_index(suits, 3)
        mine = in_suit(hole, suit)
        if mine == 2:
            _flush(TP.f3_flush, TP.f3_flush_higher, suit, hole, board, out)
        elif mine == 1:
            _flush(TP.f3_draw, TP.f3_draw_higher, suit, hole, board, out)
    elif twos == 2:
        flop_suits = suit_counts(board[:3])
        flop_suit = first_index(flop_suits, flop_suits.max())
        turn_suit = board[3] % 4
        if in_suit(hole, flop_suit) == 2:
            _flush(TP.fd_front, TP.fd_front_higher, flop_suit, hole, board, out)
        if in_suit(hole, turn_suit) == 2:
            _flush(TP.fd_back, TP.fd_back_higher, turn_suit, hole, board, out)
    elif most == 2:
        suit = first_index(suits, 2)
        if in_suit(hole, suit) == 2:
            _flush(TP.f2_draw, TP.f2_draw_higher, suit, hole, board, out)


@nb.njit(cache=True, nogil=True)
def _turn(hole: Int64s, board: Int64s, out: Floats) -> None:
    """The turn's 95 private features (``card_features._turn``)."""
    hi, lo = max(hole[0] // 4, hole[1] // 4), min(hole[0] // 4, hole[1] // 4)
    ranks = sorted_ranks(board)
    sizes, which, n = rank_groups(ranks)
    pocket = hi == lo
    if shape_is(sizes, n, 4, 0, 0, 0):
        out[TP.q_hi] = rank_value(hi)
        higher = 0
        for r in range(hi + 1, 13):
            higher += r != ranks[0]
        out[TP.q_higher] = higher
    elif shape_is(sizes, n, 3, 1, 0, 0):
        trips, kicker = which[0], which[1]
        mine_trips = trips in (hi, lo)
        out[TP.tb_quads] = flag(mine_trips)
        out[TP.tb_full] = flag((kicker in (hi, lo)) and not mine_trips)
        mine = lo if hi == trips else hi
        out[TP.tb_kicker_above] = flag(mine > kicker)
        out[TP.tb_kicker] = rank_value(mine)
        if pocket and hi != trips and hi != kicker:
            out[TP.tb_pocket] = 1
            out[TP.tb_pocket_rank] = rank_value(hi)
            out[TP.tb_pocket_full_higher] = flag(hi > kicker)
        out[TP.tb_hi] = rank_value(hi)
        out[TP.tb_lo] = rank_value(lo)
        out[TP.tb_above_kicker] = (hi > kicker) + (lo > kicker)
    elif shape_is(sizes, n, 2, 2, 0, 0):
        top_pair, low_pair = which[0], which[1]
        made = _full_or_quads(TPM, ranks, hi, lo, out)
        if not made and pocket and hi > low_pair:
            out[TP.tp_pocket_plays] = 1
            out[TP.tp_pocket_rank] = rank_value(hi)
            out[TP.tp_pocket_pairs_below] = (top_pair < hi) + (low_pair < hi)
        elif not made and pocket:
            out[TP.tp_pocket_idle] = 1
        out[TP.tp_hi] = rank_value(hi)
        out[TP.tp_pairs_below_hi] = (top_pair < hi) + (low_pair < hi)
        out[TP.tp_pairs_below_lo] = (top_pair < lo) + (low_pair < lo)
    elif shape_is(sizes, n, 2, 1, 1, 0):
        kickers = which[1:n].copy()
        _paired(PB, hi, lo, ranks, which[0], kickers, out)
        if out[TP.pb_hi]:
            above = 0
            for h in (hi, lo):
                above += (kickers < h).sum()
            out[TP.pb_above_kickers] = above
    else:
        _unpaired(UB, hi, lo, ranks, out)
    _turn_flush(hole, board, out)
    distinct = rank_set(board)
    hole_ranks = bit(hi) | bit(lo)
    outs = _my_straights(TST, distinct, hole_ranks, out)
    top, needed = best_straight(distinct, hole_ranks)
    out[TP.st_one_gap] = flag(top >= 0 and needed == 1)
    out[TP.st_outs] = POPCOUNT[outs]
    flop_single, flop_double, _ = draw_hands(rank_set(board[:3]))
    single, double, pair_outs = draw_hands(distinct)
    mine = PAIR_INDEX[lo, hi]
    flop_drawing = flop_single | flop_double
    shared = (
        (TP.st_shared_flop_single, single & flop_single),
        (TP.st_shared_new_single, single & ~flop_drawing),
        (TP.st_shared_flop_double, double & flop_double),
        (TP.st_shared_single_to_double, double & flop_single),
        (TP.st_shared_new_double, double & ~flop_drawing),
    )
    for slot, hands in shared:
        out[slot] = sharing_hands(hands, pair_outs, outs, mine)
    _if_pair(TST, single, double, pair_outs, hi, lo, out)


@nb.njit(cache=True, nogil=True)
def _river_flush(hole: Int64s, board: Int64s, out: Floats) -> None:
    """The river's flush features (``card_features._river_flush``)."""
    suits = suit_counts(board)
    most = suits.max()
    if most < 3:
        return
    suit = first_index(suits, most)
    mine = in_suit(hole, suit)
    if most == 5:
        bottom = 13
        for c in board:
            if c % 4 == suit:
                bottom = min(bottom, c // 4)
        plays = False
        for c in hole:
            plays |= c % 4 == suit and c // 4 > bottom
        if plays:
            out[RP.rfl_plays] = 1
            out[RP.rfl_higher] = higher_in_suit(suit, hole, board)
    elif most == 4 and mine:
        out[RP.rf4_flush] = 1
        out[RP.rf4_higher] = higher_in_suit(suit, hole, board)
    elif most == 3 and mine == 2:
        out[RP.rf3_flush] = 1
        out[RP.rf3_higher] = higher_in_suit(suit, hole, board)


@nb.njit(inline="always")
def _value(cards: Int64s, ev: Any) -> int:
    """The evaluator's value of 5 to 7 cards (``evaluator.evaluate_indices``)."""
    key = np.int64(KEY_INIT)
    mask = np.int64(0)
    for c in cards:
        key += ev[0][c]
        mask |= ev[1][c]
    return int(value_of(key, mask, ev[2], ev[3], ev[4]))


@nb.njit(cache=True, nogil=True)
def _river(hole: Int64s, board: Int64s, ev: Any, bounds: Int64s, out: Floats) -> None:
    """The river's 82 private features (``card_features._river``); ``ev`` and ``bounds``
    are the evaluator's tables and category bounds, for the made-hand category."""
    hi, lo = max(hole[0] // 4, hole[1] // 4), min(hole[0] // 4, hole[1] // 4)
    ranks = sorted_ranks(board)
    sizes, which, n = rank_groups(ranks)
    counts = np.zeros(13, dtype=np.int64)
    for r in ranks:
        counts[r] += 1
    board_key = rank_key(counts)
    counts[hi] += 1
    counts[lo] += 1
    key = rank_key(counts)
    category = key_category(key)
    if shape_is(sizes, n, 4, 1, 0, 0):
        kicker = which[1]
        out[RP.rq_kicker_plays] = flag(hi > kicker)
        out[RP.rq_kicker] = rank_value(max(hi, kicker))
    elif shape_is(sizes, n, 3, 2, 0, 0):
        out[RP.rf_quads] = flag(category == QUADS)
        out[RP.rf_higher_full] = flag(category == FULL_HOUSE and key > board_key)
        pocket, unpaired = better_pair_hands(ranks, hi, lo, FULL_HOUSE)
        out[RP.rf_fulls_above] = unpaired + pocket
    elif shape_is(sizes, n, 3, 1, 1, 0):
        out[RP.rt_quads] = flag(category == QUADS)
        if category == FULL_HOUSE:
            pocket, unpaired = better_pair_hands(ranks, hi, lo, FULL_HOUSE)
            out[RP.rt_full] = 1
            out[RP.rt_fulls_above] = pocket + unpaired
        out[RP.rt_hi] = rank_value(hi)
        out[RP.rt_lo] = rank_value(lo)
    elif shape_is(sizes, n, 2, 2, 1, 0):
        low_pair, kicker = which[1], which[2]
        made = _full_or_quads(RTPM, ranks, hi, lo, out)
        if not made and hi == lo and hi > low_pair:
            out[RP.rtp_pocket_plays] = 1
            out[RP.rtp_pocket_rank] = rank_value(hi)
            out[RP.rtp_pocket_above_kicker] = flag(hi > kicker)
        elif not made and (kicker in (hi, lo)) and kicker > low_pair:
            out[RP.rtp_kicker_paired] = 1
        out[RP.rtp_hi] = rank_value(hi)
    elif shape_is(sizes, n, 2, 1, 1, 1):
        _paired(RPB, hi, lo, ranks, which[0], which[1:n].copy(), out)
        if out[RP.rp_hi]:
            out[RP.rp_below_hi] = (ranks < hi).sum()
            out[RP.rp_below_lo] = (ranks < lo).sum()
    else:
        _unpaired(RU, hi, lo, ranks, out)
    _river_flush(hole, board, out)
    distinct = rank_set(board)
    top, needed = best_straight(distinct, bit(hi) | bit(lo))
    if top >= 0:
        out[RP.rs_one_gap if needed == 1 else RP.rs_two_gap] = 1
        out[RP.rs_higher_one_gap] = higher_straights(distinct, top, 1)
        out[RP.rs_higher_two_gap] = higher_straights(distinct, top, 2)
    seven = np.concatenate((hole, board))
    value = _value(seven, ev)
    made_category = 0
    for c in range(bounds.size - 1):
        if bounds[c] <= value:
            made_category = c
    made_category = min(made_category, QUADS)  # a straight flush counts as quads
    hands = (
        RP.hand_high_card,
        RP.hand_pair,
        RP.hand_two_pair,
        RP.hand_trips,
        RP.hand_straight,
        RP.hand_flush,
        RP.hand_full_house,
        RP.hand_quads,
    )
    out[hands[made_category]] = 1
    out[RP.plays_board] = flag(value == _value(board, ev))


# -- batch entry points -----------------------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def board_part(board: Int64s, out: Floats) -> None:
    """The board's columns of a row (:func:`_features_row`): the flop's 19, the turn's 19 + 22
    or the river's short 30 (none preflop); shared by every seat at the table."""
    shown = board.size
    if shown == 3:
        flop_board(board, out[:FLOP_BOARD_N])
    elif shown == 4:
        flop_board(board[:3], out[:FLOP_BOARD_N])
        turn_board(board[:3], board[3], out[FLOP_BOARD_N : FLOP_BOARD_N + TURN_BOARD_N])
    elif shown == 5:
        short_river(board, out[:SHORT_RIVER_N])


@nb.njit(cache=True, nogil=True)
def private_part(hole: Int64s, board: Int64s, ev: Any, bounds: Int64s, out: Floats) -> None:
    """The private columns of a row (:func:`_features_row`), after the board's; ``out`` is the
    whole zeroed row, its board columns untouched."""
    shown = board.size
    if shown == 0:
        _preflop(hole, out)
    elif shown == 3:
        _flop(hole, board, out[FLOP_BOARD_N:])
    elif shown == 4:
        _turn(hole, board, out[FLOP_BOARD_N + TURN_BOARD_N :])
    else:
        _river(hole, board, ev, bounds, out[SHORT_RIVER_N:])


@nb.njit(cache=True, nogil=True)
def _features_row(hole: Int64s, board: Int64s, ev: Any, bounds: Int64s, out: Floats) -> None:
    """One pair's features as :func:`card_features.card_features` lays them out: the
    board's (on the river the short 30), then the private ones."""
    board_part(board, out)
    private_part(hole, board, ev, bounds, out)


@nb.njit(cache=True, nogil=True)
def _features_rows(
    holes: Int64s, boards: Int64s, shown: Int64s, ev: Any, bounds: Int64s, out: Floats
) -> None:
    """Every row's features into ``out`` (the compiled loop of :func:`card_feature_batch`)."""
    for row in range(holes.shape[0]):
        _features_row(holes[row], boards[row, : shown[row]], ev, bounds, out[row])


@cache
def evaluator() -> tuple[Any, Int64s]:
    """The evaluator's tables and the lowest value of each category, for compiled code."""
    t = tables()
    ev = (t.card_key, t.card_mask, t.row_base, t.rank_table, t.flush_table)
    return ev, np.asarray(category_bounds(), dtype=np.int64)


def card_feature_batch(holes: npt.ArrayLike, boards: npt.ArrayLike, shown: npt.ArrayLike) -> Floats:
    """(N, :data:`WIDEST`) card features of N pairs: ``holes`` (N, 2) cards, ``boards``
    (N, 5 or more) of which the first ``shown`` (N,; 0, 3, 4 or 5) are dealt; each row is
    :func:`card_features.card_features` of its pair, zero-padded."""
    hole_rows = np.ascontiguousarray(holes, dtype=np.int64).reshape(-1, 2)
    board_rows = np.ascontiguousarray(boards, dtype=np.int64)
    if board_rows.ndim != 2 or board_rows.shape[0] != hole_rows.shape[0]:
        raise ValueError(f"need a board row per hole pair, got {board_rows.shape}")
    counts = np.ascontiguousarray(np.broadcast_to(shown, hole_rows.shape[:1]), dtype=np.int64)
    if counts.size and (~np.isin(counts, (0, 3, 4, 5))).any():
        raise ValueError("a board shows 0, 3, 4 or 5 cards")
    if counts.size and counts.max() > board_rows.shape[1]:
        raise ValueError(f"boards have {board_rows.shape[1]} cards, fewer than shown")
    out = np.zeros((hole_rows.shape[0], WIDEST))
    ev, bounds = evaluator()
    _features_rows(hole_rows, board_rows, counts, ev, bounds, out)
    return out


def compiled_card_features(hole: Sequence[int], board: Sequence[int]) -> Floats:
    """:func:`card_features.card_features` of one pair, by the compiled path."""
    row = card_feature_batch([list(hole)], [[*board, *([0] * (5 - len(board)))]], len(board))
    width: int = input_size({0: 0, 3: 1, 4: 2, 5: 3}[len(board)])
    features: Floats = row[0, :width]
    return features
