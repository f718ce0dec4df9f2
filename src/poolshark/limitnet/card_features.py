"""The staged card features of the network player (the lists are in
:mod:`poolshark.limitnet.card_schema`; their meaning is tabled in ``docs/limit.md``).

:func:`board_features` describes the public cards (every board feature up to the stage the
board's length gives: 19 on the flop, 19 + 22 on the turn, 19 + 22 + 38 on the river);
:func:`private_features` the hole cards and how they meet the board (6, 71, 95 or 82);
:func:`card_features` is what the action function reads (``card_schema.action_inputs``).
Cards are ints ``4 * rank + suit``. Straights and the "higher hands possible" counts work
on ranks alone (:mod:`poolshark.limitnet.card_ranks`). This module is the specification;
:mod:`poolshark.limitnet.card_features_compiled` computes the same values in numba, in
batches (the tests hold the two equal).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from poolshark.cards.evaluator import evaluate_indices
from poolshark.cards.hand_value import Category, category_of
from poolshark.limitnet.card_ranks import (
    WINDOWS,
    FeatureValues,
    best_straight,
    better_pair_hands,
    better_pair_hands_cache_clear,
    draw_hands,
    gaps,
    higher_in_suit,
    higher_straights,
    in_suit,
    one_gap_outs,
    rank_counts,
    rank_key,
    rank_value,
    sharing_hands,
    straight_outs,
    suit_counts,
    window_top,
)
from poolshark.limitnet.card_schema import (
    FLOP_BOARD,
    RIVER_BOARD,
    SHORT_RIVER_BOARD,
    STAGE_PRIVATE,
    TURN_BOARD,
    action_inputs,
)

Floats = npt.NDArray[np.float64]


def _my_straights(
    values: FeatureValues, board: frozenset[int], hole: frozenset[int]
) -> frozenset[int]:
    """The straight features every stage before the river shares; returns my outs."""
    top, _ = best_straight(board, hole)
    outs = straight_outs(board, hole)
    if top >= 0:
        values["st_straight"] = 1
        values["st_higher"] = sum(len(w - board) <= 2 and window_top(w) > top for w in WINDOWS)
    values["st_single"] = float(len(outs) == 1)
    values["st_double"] = float(len(outs) >= 2)
    higher_one = higher_straights(board, top, 1) if top >= 0 else 0
    higher_two = higher_straights(board, top, 2) if top >= 0 else 0
    shared_one = 0
    for r in outs:
        after = board | {r}
        new_top = best_straight(after, hole)[0]
        higher_one += higher_straights(after, new_top, 1)
        higher_two += higher_straights(after, new_top, 2)
        shared_one += sum(len(w - after) == 1 and window_top(w) <= new_top for w in WINDOWS)
    values["st_higher_one_gap"] = higher_one
    values["st_higher_two_gap"] = higher_two
    values["st_shared_one_gap"] = shared_one
    return outs


def _if_pair(values: FeatureValues, board: frozenset[int], hole_ranks: Sequence[int]) -> None:
    single, double = draw_hands(board)
    for name, hands in (("if_pair_single", single), ("if_pair_double", double)):
        values[name] = sum(
            r in straight_outs(board, frozenset(hand)) for r in hole_ranks for hand in hands
        )


# -- board features -------------------------------------------------------------------------


def board_features(board: Sequence[int]) -> Floats:
    """Every board feature up to the stage of ``board`` (3, 4 or 5 cards): the flop's 19,
    then the turn's 22, then the river's 38 (copied: callers may change it)."""
    return _board_features(tuple(int(c) for c in board)).copy()


@lru_cache(maxsize=65536)
def _board_features(board: tuple[int, ...]) -> Floats:
    if len(board) not in (3, 4, 5):
        raise ValueError(f"a board has 3, 4 or 5 cards, got {len(board)}")
    parts = [_flop_board(board[:3])]
    if len(board) >= 4:
        parts.append(_turn_board(board[:3], board[3]))
    if len(board) == 5:
        parts.append(_river_board(board))
    return np.concatenate(parts)


def _flop_board(flop: tuple[int, ...]) -> Floats:
    values = FeatureValues(FLOP_BOARD)
    ranks = sorted((c // 4 for c in flop), reverse=True)
    distinct = frozenset(ranks)
    if len(distinct) == 1:
        values["trips_flop"] = 1
        values["trips_rank"] = rank_value(ranks[0])
    elif len(distinct) == 2:
        pair = ranks[1]
        kicker = ranks[0] if ranks[0] != pair else ranks[2]
        values["pair_flop"] = 1
        values["pair_rank"] = rank_value(pair)
        values["pair_kicker"] = rank_value(kicker)
        values["pair_above_kicker"] = float(pair > kicker)
    else:
        values["unpaired_flop"] = 1
        values["flop_hi"], values["flop_mid"], values["flop_lo"] = map(rank_value, ranks)
    suits = suit_counts(flop)
    most = max(suits)
    values[("rainbow", "two_tone", "monotone")[most - 1]] = 1
    if most >= 2:
        suit = suits.index(most)
        values["suit_top"] = rank_value(max(c // 4 for c in flop if c % 4 == suit))
    single, double = draw_hands(distinct)
    values["two_gaps"] = gaps(distinct, 2)
    values["single_draw_hands"] = len(single)
    values["double_draw_hands"] = len(double)
    values["backdoor_windows"] = sum(len(w & distinct) == 2 for w in WINDOWS)
    values["one_gap_outs"] = len(one_gap_outs(distinct))
    return values.values


def _turn_board(flop: tuple[int, ...], turn: int) -> Floats:
    values = FeatureValues(TURN_BOARD)
    flop_ranks = sorted((c // 4 for c in flop), reverse=True)
    distinct = frozenset(flop_ranks)
    t = turn // 4
    if len(distinct) == 1:
        if t == flop_ranks[0]:
            values["t_quads_board"] = 1
        else:
            values["t_trips_kicker"] = rank_value(t)
            values["t_trips_kicker_above"] = float(t > flop_ranks[0])
    elif len(distinct) == 2:
        pair = flop_ranks[1]
        kicker = flop_ranks[0] if flop_ranks[0] != pair else flop_ranks[2]
        if t == pair:
            values["t_trips_from_pair"] = 1
        elif t == kicker:
            values["t_two_pair_board"] = 1
        else:
            values["t_pair_turn"] = rank_value(t)
            values["t_pair_turn_above_pair"] = float(t > pair)
            values["t_pair_turn_above_kicker"] = float(t > kicker)
    elif t in distinct:
        values["t_pairs_flop"] = 1
        values["t_pairs_which"] = flop_ranks.index(t) + 1
    else:
        values["t_unpaired_turn"] = rank_value(t)
        values["t_unpaired_under"] = sum(r < t for r in flop_ranks)
    suits = suit_counts(flop)
    most = max(suits)
    same = suits[turn % 4]
    if most == 3 and same == 3:
        values["t_four_flush"] = 1
    elif most == 2 and same == 2:
        values["t_three_flush"] = 1
    elif most == 2 and same == 1:
        values["t_two_draws"] = 1
    elif most == 1 and same == 1:
        values["t_new_draw"] = 1
    after = distinct | {t}
    values["t_one_gaps"] = gaps(after, 1)
    single, double = draw_hands(distinct)
    values["t_singles_done"] = sum(t in straight_outs(distinct, frozenset(h)) for h in single)
    values["t_doubles_done"] = sum(t in straight_outs(distinct, frozenset(h)) for h in double)
    single_now, double_now = draw_hands(after)
    drawing = single | double
    values["t_new_singles"] = len(single_now - drawing)
    values["t_new_doubles"] = len(double_now - drawing)
    values["t_single_to_double"] = len(double_now & single)
    return values.values


def _river_board(board: tuple[int, ...]) -> Floats:
    values = FeatureValues(RIVER_BOARD)
    values.values[: len(SHORT_RIVER_BOARD)] = _short_river(board)
    river = board[4] // 4
    earlier = [c // 4 for c in board[:4]]
    values["r_river_rank"] = rank_value(river)
    values["r_river_pairs"] = float(river in earlier)
    values["r_river_top"] = float(river > max(earlier))
    suits = suit_counts(board)
    most = max(suits)
    if most >= 3 and board[4] % 4 == suits.index(most):
        values["r_river_suits"] = 1
    flop = frozenset(c // 4 for c in board[:3])
    turn = flop | {board[3] // 4}
    single, double = draw_hands(turn)
    flop_single, flop_double = draw_hands(flop)
    flop_drawing = flop_single | flop_double

    def completed(hands: frozenset[tuple[int, int]]) -> int:
        return sum(river in straight_outs(turn, frozenset(h)) for h in hands)

    values["r_singles_done"] = completed(single)
    values["r_doubles_done"] = completed(double)
    values["r_new_singles_done"] = completed(single - flop_drawing)
    values["r_single_to_double_done"] = completed(double & flop_single)
    return values.values


def _short_river(board: tuple[int, ...]) -> Floats:
    """The 30 order-free river board features."""
    values = FeatureValues(SHORT_RIVER_BOARD)
    ranks = sorted((c // 4 for c in board), reverse=True)
    counts = rank_counts(ranks)
    groups = sorted(((counts[r], r) for r in set(ranks)), reverse=True)
    shape = tuple(n for n, _ in groups)
    if shape == (4, 1):
        values["r_quads_board"] = 1
        values["r_quads_rank"] = rank_value(groups[0][1])
        values["r_quads_kicker"] = rank_value(groups[1][1])
    elif shape == (3, 2):
        values["r_full_board"] = 1
        values["r_full_trips"] = rank_value(groups[0][1])
        values["r_full_pair"] = rank_value(groups[1][1])
    elif shape == (3, 1, 1):
        values["r_trips_board"] = 1
        values["r_trips_rank"] = rank_value(groups[0][1])
        values["r_trips_kickers_above"] = sum(r > groups[0][1] for _, r in groups[1:])
    elif shape == (2, 2, 1):
        values["r_two_pair_board"] = 1
        values["r_tp_hi"] = rank_value(groups[0][1])
        values["r_tp_lo"] = rank_value(groups[1][1])
        values["r_tp_kicker"] = rank_value(groups[2][1])
    elif shape == (2, 1, 1, 1):
        values["r_pair_board"] = 1
        values["r_pair_rank"] = rank_value(groups[0][1])
        values["r_pair_kickers_above"] = sum(r > groups[0][1] for _, r in groups[1:])
    else:
        values["r_unpaired_board"] = 1
    for i, r in enumerate(ranks, 1):
        values[f"r_rank_{i}"] = rank_value(r)
    suits = suit_counts(board)
    most = max(suits)
    if most >= 3:
        suit = suits.index(most)
        suited = [c // 4 for c in board if c % 4 == suit]
        values[{3: "r_three_flush", 4: "r_four_flush", 5: "r_flush_board"}[most]] = 1
        values["r_flush_top"] = rank_value(max(suited))
        if most == 5:
            values["r_flush_bottom"] = rank_value(min(suited))
    distinct = frozenset(ranks)
    values["r_straight_board"] = float(any(w <= distinct for w in WINDOWS))
    values["r_one_gaps"] = gaps(distinct, 1)
    values["r_two_gaps"] = gaps(distinct, 2)
    return values.values


# -- private features -----------------------------------------------------------------------


def private_features(hole: Sequence[int], board: Sequence[int]) -> Floats:
    """This stage's private features of ``hole`` (2 cards) on ``board`` (0, 3, 4 or 5)."""
    if len(hole) != 2:
        raise ValueError(f"need two hole cards, got {len(hole)}")
    stage = {0: 0, 3: 1, 4: 2, 5: 3}.get(len(board))
    if stage is None:
        raise ValueError(f"a board has 0, 3, 4 or 5 cards, got {len(board)}")
    hole_t = (int(hole[0]), int(hole[1]))
    board_t = tuple(int(c) for c in board)
    values = FeatureValues(STAGE_PRIVATE[stage])
    (_preflop, _flop, _turn, _river)[stage](values, hole_t, board_t)
    return values.values


def card_features(hole: Sequence[int], board: Sequence[int]) -> Floats:
    """The card features the action function reads at this stage (:func:`action_inputs`):
    preflop 6, flop 19 + 71, turn 41 + 95, river 30 + 82."""
    private = private_features(hole, board)
    if len(board) == 0:
        return private
    public = board_features(board)
    if len(board) == 5:
        public = public[len(FLOP_BOARD) + len(TURN_BOARD) :][: len(SHORT_RIVER_BOARD)]
    return np.concatenate([public, private])


def clear_caches() -> None:
    """Empty the per-board caches (benchmarks time the first pass with them)."""
    for cached in (_board_features, best_straight, straight_outs, draw_hands):
        cached.cache_clear()
    better_pair_hands_cache_clear()


def input_size(stage: int) -> int:
    """Length of :func:`card_features` at ``stage``."""
    return len(action_inputs(stage))


def _hole_ranks(hole: tuple[int, int]) -> tuple[int, int]:
    a, b = hole[0] // 4, hole[1] // 4
    return (a, b) if a >= b else (b, a)


def _preflop(values: FeatureValues, hole: tuple[int, int], board: tuple[int, ...]) -> None:
    hi, lo = _hole_ranks(hole)
    if hi == lo:
        values["pocket_pair"] = 1
        values["pair_rank"] = rank_value(hi)
        return
    values["hi_rank"] = rank_value(hi)
    values["lo_rank"] = rank_value(lo)
    values["suited"] = float(hole[0] % 4 == hole[1] % 4)
    values["straights"] = sum({hi, lo} <= w for w in WINDOWS)


def _flop(values: FeatureValues, hole: tuple[int, int], board: tuple[int, ...]) -> None:
    hi, lo = _hole_ranks(hole)
    ranks = sorted((c // 4 for c in board), reverse=True)
    distinct = frozenset(ranks)
    pocket = hi == lo
    if len(distinct) == 1:
        trips = ranks[0]
        values["tf_quads"] = float(trips in (hi, lo))
        if pocket and hi != trips:
            values["tf_pocket_pair"] = 1
            values["tf_pocket_rank"] = rank_value(hi)
        values["tf_hi"] = rank_value(hi)
        values["tf_lo"] = rank_value(lo)
    elif len(distinct) == 2:
        pair = ranks[1]
        kicker = ranks[0] if ranks[0] != pair else ranks[2]
        _pair_flop(values, hi, lo, pair, kicker)
    else:
        _unpaired(values, "np", hi, lo, ranks)
        if pocket and hi in distinct:
            values["np_set_which"] = ranks.index(hi) + 1
        elif hi in distinct and lo in distinct:
            values["np_tp_missing"] = next(i for i, r in enumerate(ranks, 1) if r not in (hi, lo))
    _flop_flush(values, hole, board)
    hole_ranks = frozenset((hi, lo))
    outs = _my_straights(values, distinct, hole_ranks)
    single, double = draw_hands(distinct)
    values["st_shared_single"] = sharing_hands(single, distinct, outs, (lo, hi))
    values["st_shared_double"] = sharing_hands(double, distinct, outs, (lo, hi))
    backdoor = [
        w for w in WINDOWS if len(w - distinct - hole_ranks) == 2 and (w & hole_ranks) - distinct
    ]
    if backdoor:
        best = max(window_top(w) for w in backdoor)
        needed = frozenset().union(*(w - distinct - hole_ranks for w in backdoor))
        values["bd_windows"] = len(backdoor)
        values["bd_higher"] = sum(window_top(w) > best and bool(w & distinct) for w in WINDOWS)
        values["bd_shared_one_gap"] = len(one_gap_outs(distinct) & needed)
        values["bd_shared_single"] = sharing_hands(single, distinct, needed, (lo, hi))
        values["bd_shared_double"] = sharing_hands(double, distinct, needed, (lo, hi))
    _if_pair(values, distinct, (hi, lo))


def _pair_flop(values: FeatureValues, hi: int, lo: int, pair: int, kicker: int) -> None:
    if hi == lo:
        if hi == pair:
            values["pf_quads"] = 1
        elif hi == kicker:
            values["pf_full_pocket"] = 1
        else:
            values["pf_pocket"] = 1
            values["pf_pocket_rank"] = rank_value(hi)
            values["pf_pocket_above_pair"] = float(hi > pair)
            values["pf_pocket_above_kicker"] = float(hi > kicker)
        return
    if {hi, lo} == {pair, kicker}:
        values["pf_full_unpaired"] = 1
    elif pair in (hi, lo):
        other = lo if hi == pair else hi
        values["pf_trips"] = 1
        values["pf_trips_above_pair"] = float(other > pair)
        values["pf_trips_above_kicker"] = float(other > kicker)
    elif kicker in (hi, lo):
        other = lo if hi == kicker else hi
        values["pf_kicker_paired"] = 1
        values["pf_kp_other"] = rank_value(other)
        values["pf_kp_other_above_pair"] = float(other > pair)
        values["pf_kp_other_above_kicker"] = float(other > kicker)
    else:
        values["pf_hi"] = rank_value(hi)
        values["pf_lo"] = rank_value(lo)
        values["pf_above_pair"] = (hi > pair) + (lo > pair)
        values["pf_above_kicker"] = (hi > kicker) + (lo > kicker)


def _unpaired(values: FeatureValues, p: str, hi: int, lo: int, ranks: Sequence[int]) -> None:
    """The made-hand block on a board of different ranks (the flop's ``np`` block lacks
    the counts below a set or two pair: it has which flop card they match instead)."""
    later = p != "np"
    if hi == lo:
        if hi in ranks:
            values[f"{p}_set"] = 1
            values[f"{p}_set_rank"] = rank_value(hi)
            if later:
                values[f"{p}_set_under"] = sum(r > hi for r in ranks)
        else:
            values[f"{p}_pocket"] = 1
            values[f"{p}_pocket_rank"] = rank_value(hi)
            values[f"{p}_pocket_under"] = sum(r > hi for r in ranks)
    elif hi in ranks and lo in ranks:
        values[f"{p}_two_pair"] = 1
        values[f"{p}_tp_hi"] = rank_value(hi)
        values[f"{p}_tp_lo"] = rank_value(lo)
        if later:
            values[f"{p}_tp_below_hi"] = sum(r < hi for r in ranks)
            values[f"{p}_tp_below_lo"] = sum(r < lo for r in ranks)
    elif hi in ranks or lo in ranks:
        pair, kicker = (hi, lo) if hi in ranks else (lo, hi)
        values[f"{p}_pair"] = 1
        values[f"{p}_pair_rank"] = rank_value(pair)
        values[f"{p}_pair_under"] = sum(r > pair for r in ranks)
        values[f"{p}_pair_kicker"] = rank_value(kicker)
        values[f"{p}_kicker_under"] = sum(r > kicker for r in ranks)
    else:
        values[f"{p}_nothing"] = 1
        values[f"{p}_hi"] = rank_value(hi)
        values[f"{p}_hi_under"] = sum(r > hi for r in ranks)
        values[f"{p}_lo"] = rank_value(lo)
        values[f"{p}_lo_under"] = sum(r > lo for r in ranks)


def _flush_feature(
    values: FeatureValues, name: str, suit: int, hole: Sequence[int], board: Sequence[int]
) -> None:
    """Flag ``name`` on, and ``name_higher``: the suit's ranks above my best card of it."""
    values[name] = 1
    values[f"{name}_higher"] = higher_in_suit(suit, hole, board)


def _flop_flush(values: FeatureValues, hole: tuple[int, int], board: tuple[int, ...]) -> None:
    suits = suit_counts(board)
    most = max(suits)
    if most == 3:
        suit = suits.index(3)
        mine = in_suit(hole, suit)
        if mine:
            name = "mono_flush" if mine == 2 else "mono_draw"
            _flush_feature(values, name, suit, hole, board)
        return
    if most == 2:
        suit = suits.index(2)
        mine = in_suit(hole, suit)
        if mine:
            name = "tt_draw" if mine == 2 else "tt_backdoor_one"
            _flush_feature(values, name, suit, hole, board)
        elif hole[0] % 4 == hole[1] % 4 and suits[hole[0] % 4] == 1:
            _flush_feature(values, "tt_backdoor_two", hole[0] % 4, hole, board)
        return
    if hole[0] % 4 == hole[1] % 4 and suits[hole[0] % 4] == 1:
        _flush_feature(values, "rb_backdoor", hole[0] % 4, hole, board)


def _turn(values: FeatureValues, hole: tuple[int, int], board: tuple[int, ...]) -> None:
    hi, lo = _hole_ranks(hole)
    ranks = sorted((c // 4 for c in board), reverse=True)
    counts = rank_counts(ranks)
    groups = sorted(((counts[r], r) for r in set(ranks)), reverse=True)
    shape = tuple(n for n, _ in groups)
    pocket = hi == lo
    if shape == (4,):
        values["q_hi"] = rank_value(hi)
        values["q_higher"] = sum(r != ranks[0] for r in range(hi + 1, 13))
    elif shape == (3, 1):
        trips, kicker = groups[0][1], groups[1][1]
        values["tb_quads"] = float(trips in (hi, lo))
        values["tb_full"] = float(kicker in (hi, lo) and trips not in (hi, lo))
        mine = lo if hi == trips else hi
        values["tb_kicker_above"] = float(mine > kicker)
        values["tb_kicker"] = rank_value(mine)
        if pocket and hi not in (trips, kicker):
            values["tb_pocket"] = 1
            values["tb_pocket_rank"] = rank_value(hi)
            values["tb_pocket_full_higher"] = float(hi > kicker)
        values["tb_hi"] = rank_value(hi)
        values["tb_lo"] = rank_value(lo)
        values["tb_above_kicker"] = (hi > kicker) + (lo > kicker)
    elif shape == (2, 2):
        _two_pair_board(values, hole, board, hi, lo, groups[0][1], groups[1][1])
    elif shape == (2, 1, 1):
        _paired(values, "pb", hole, board, groups[0][1], [r for _, r in groups[1:]])
        if values.values[values.index["pb_hi"]]:
            kickers = [r for _, r in groups[1:]]
            values["pb_above_kickers"] = sum(h > k for h in (hi, lo) for k in kickers)
    else:
        _unpaired(values, "ub", hi, lo, ranks)
    _turn_flush(values, hole, board)
    distinct = frozenset(ranks)
    hole_ranks = frozenset((hi, lo))
    outs = _my_straights(values, distinct, hole_ranks)
    top, needed = best_straight(distinct, hole_ranks)
    values["st_one_gap"] = float(top >= 0 and needed == 1)
    values["st_outs"] = len(outs)
    flop = frozenset(c // 4 for c in board[:3])
    flop_single, flop_double = draw_hands(flop)
    single, double = draw_hands(distinct)
    groups_shared = {
        "st_shared_flop_single": single & flop_single,
        "st_shared_new_single": single - flop_single - flop_double,
        "st_shared_flop_double": double & flop_double,
        "st_shared_single_to_double": double & flop_single,
        "st_shared_new_double": double - flop_single - flop_double,
    }
    for name, hands in groups_shared.items():
        values[name] = sharing_hands(frozenset(hands), distinct, outs, (lo, hi))
    _if_pair(values, distinct, (hi, lo))


def _two_pair_board(
    values: FeatureValues,
    hole: tuple[int, int],
    board: tuple[int, ...],
    hi: int,
    lo: int,
    top_pair: int,
    low_pair: int,
) -> None:
    made = _full_or_quads(values, "tp", [c // 4 for c in board], [hi, lo])
    if not made and hi == lo and hi > low_pair:
        values["tp_pocket_plays"] = 1
        values["tp_pocket_rank"] = rank_value(hi)
        values["tp_pocket_pairs_below"] = (top_pair < hi) + (low_pair < hi)
    elif not made and hi == lo:
        values["tp_pocket_idle"] = 1
    values["tp_hi"] = rank_value(hi)
    values["tp_pairs_below_hi"] = (top_pair < hi) + (low_pair < hi)
    values["tp_pairs_below_lo"] = (top_pair < lo) + (low_pair < lo)


def _full_or_quads(values: FeatureValues, p: str, ranks: list[int], holes: list[int]) -> bool:
    """On a two-pair board: quads or a full house, and how many such hands beat mine."""
    category = rank_key((*ranks, *holes))[0]
    for made, name in ((Category.QUADS, "quads"), (Category.FULL_HOUSE, "full")):
        if category == made:
            values[f"{p}_{name}"] = 1
            values[f"{p}_{name}_higher"] = sum(better_pair_hands(ranks, holes, made))
            return True
    return False


def _paired(
    values: FeatureValues,
    p: str,
    hole: tuple[int, int],
    board: tuple[int, ...],
    pair: int,
    kickers: list[int],
) -> None:
    """The made-hand block on a board with exactly one pair (turn ``pb``, river ``rp``)."""
    hi, lo = _hole_ranks(hole)
    if hi == lo and hi == pair:
        values[f"{p}_quads"] = 1
    elif hi == lo and hi in kickers:
        values[f"{p}_full_pocket"] = 1
    elif hi != lo and pair in (hi, lo) and ({hi, lo} - {pair}) <= set(kickers):
        values[f"{p}_full_unpaired"] = 1
    elif hi != lo and pair in (hi, lo):
        other = lo if hi == pair else hi
        values[f"{p}_trips"] = 1
        values[f"{p}_trips_above_pair"] = float(other > pair)
        values[f"{p}_trips_kickers_below"] = sum(k < other for k in kickers)
    elif hi == lo:
        values[f"{p}_pocket"] = 1
        values[f"{p}_pocket_rank"] = rank_value(hi)
        values[f"{p}_pocket_above_pair"] = float(hi > pair)
        values[f"{p}_pocket_kickers_below"] = sum(k < hi for k in kickers)
    elif hi in kickers or lo in kickers:
        paired, other = (hi, lo) if hi in kickers else (lo, hi)
        values[f"{p}_kicker_paired"] = 1
        values[f"{p}_kp_pair_below"] = float(pair < paired)
        values[f"{p}_kp_kickers_below"] = sum(k < paired for k in kickers)
        values[f"{p}_kp_other"] = rank_value(other)
        values[f"{p}_kp_other_above_pair"] = float(other > pair)
        values[f"{p}_kp_other_kickers_below"] = sum(k < other for k in kickers)
    else:
        values[f"{p}_hi"] = rank_value(hi)
        values[f"{p}_lo"] = rank_value(lo)
        values[f"{p}_above_pair"] = (hi > pair) + (lo > pair)
    if (
        values.values[values.index[f"{p}_full_pocket"]]
        or values.values[values.index[f"{p}_full_unpaired"]]
    ):
        ranks = [c // 4 for c in board]
        pockets, unpaired = better_pair_hands(ranks, [hi, lo], Category.FULL_HOUSE)
        values[f"{p}_full_pocket_higher"] = pockets
        values[f"{p}_full_unpaired_higher"] = unpaired


def _turn_flush(values: FeatureValues, hole: tuple[int, int], board: tuple[int, ...]) -> None:
    suits = suit_counts(board)
    most = max(suits)
    if most == 4:
        suit = suits.index(4)
        mine = in_suit(hole, suit)
        if mine:
            _flush_feature(values, "f4_flush", suit, hole, board)
            values["f4_both"] = float(mine == 2)
    elif most == 3:
        suit = suits.index(3)
        mine = in_suit(hole, suit)
        if mine:
            name = "f3_flush" if mine == 2 else "f3_draw"
            _flush_feature(values, name, suit, hole, board)
    elif suits.count(2) == 2:
        flop_suit = max(range(4), key=lambda s: suit_counts(board[:3])[s])
        turn_suit = board[3] % 4
        for name, suit in (("fd_front", flop_suit), ("fd_back", turn_suit)):
            if in_suit(hole, suit) == 2:
                _flush_feature(values, name, suit, hole, board)
    elif most == 2:
        suit = suits.index(2)
        if in_suit(hole, suit) == 2:
            _flush_feature(values, "f2_draw", suit, hole, board)


def _river(values: FeatureValues, hole: tuple[int, int], board: tuple[int, ...]) -> None:
    hi, lo = _hole_ranks(hole)
    ranks = sorted((c // 4 for c in board), reverse=True)
    holes = [hi, lo]
    counts = rank_counts(ranks)
    groups = sorted(((counts[r], r) for r in set(ranks)), reverse=True)
    shape = tuple(n for n, _ in groups)
    key = rank_key((*ranks, *holes))
    board_key = rank_key(ranks)
    if shape == (4, 1):
        kicker = groups[1][1]
        values["rq_kicker_plays"] = float(hi > kicker)
        values["rq_kicker"] = rank_value(max(hi, kicker))
    elif shape == (3, 2):
        values["rf_quads"] = float(key[0] == Category.QUADS)
        values["rf_higher_full"] = float(key[0] == Category.FULL_HOUSE and key > board_key)
        values["rf_fulls_above"] = (
            better_pair_hands(ranks, holes, Category.FULL_HOUSE)[1]
            + (better_pair_hands(ranks, holes, Category.FULL_HOUSE)[0])
        )
    elif shape == (3, 1, 1):
        values["rt_quads"] = float(key[0] == Category.QUADS)
        if key[0] == Category.FULL_HOUSE:
            values["rt_full"] = 1
            values["rt_fulls_above"] = sum(better_pair_hands(ranks, holes, Category.FULL_HOUSE))
        values["rt_hi"] = rank_value(hi)
        values["rt_lo"] = rank_value(lo)
    elif shape == (2, 2, 1):
        low_pair, kicker = groups[1][1], groups[2][1]
        made = _full_or_quads(values, "rtp", ranks, holes)
        if not made and hi == lo and hi > low_pair:
            values["rtp_pocket_plays"] = 1
            values["rtp_pocket_rank"] = rank_value(hi)
            values["rtp_pocket_above_kicker"] = float(hi > kicker)
        elif not made and kicker in holes and kicker > low_pair:
            values["rtp_kicker_paired"] = 1
        values["rtp_hi"] = rank_value(hi)
    elif shape == (2, 1, 1, 1):
        kickers = [r for _, r in groups[1:]]
        _paired(values, "rp", hole, board, groups[0][1], kickers)
        if values.values[values.index["rp_hi"]]:
            values["rp_below_hi"] = sum(r < hi for r in ranks)
            values["rp_below_lo"] = sum(r < lo for r in ranks)
    else:
        _unpaired(values, "ru", hi, lo, ranks)
    _river_flush(values, hole, board)
    distinct = frozenset(ranks)
    top, needed = best_straight(distinct, frozenset(holes))
    if top >= 0:
        values["rs_one_gap" if needed == 1 else "rs_two_gap"] = 1
        values["rs_higher_one_gap"] = higher_straights(distinct, top, 1)
        values["rs_higher_two_gap"] = higher_straights(distinct, top, 2)
    value = evaluate_indices([*hole, *board])
    category = min(category_of(value), Category.QUADS)  # a straight flush counts as quads
    names = (
        "hand_high_card",
        "hand_pair",
        "hand_two_pair",
        "hand_trips",
        "hand_straight",
        "hand_flush",
        "hand_full_house",
        "hand_quads",
    )
    values[names[category]] = 1
    values["plays_board"] = float(value == evaluate_indices(list(board)))


def _river_flush(values: FeatureValues, hole: tuple[int, int], board: tuple[int, ...]) -> None:
    suits = suit_counts(board)
    most = max(suits)
    if most < 3:
        return
    suit = suits.index(most)
    mine = in_suit(hole, suit)
    if most == 5:
        bottom = min(c // 4 for c in board if c % 4 == suit)
        if any(c % 4 == suit and c // 4 > bottom for c in hole):
            values["rfl_plays"] = 1
            values["rfl_higher"] = higher_in_suit(suit, hole, board)
    elif most == 4 and mine:
        values["rf4_flush"] = 1
        values["rf4_higher"] = higher_in_suit(suit, hole, board)
    elif most == 3 and mine == 2:
        values["rf3_flush"] = 1
        values["rf3_higher"] = higher_in_suit(suit, hole, board)
