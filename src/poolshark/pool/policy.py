"""Compiled style policies: action probabilities per combo, and sampling a batch of decisions.

A style is compiled (``style.Style``) into plain arrays, and several styles are stacked into
a :class:`StyleBank` so one kernel call can serve every seat of a pool. The policy of one
decision, for one combo, is computed by one compiled function (``_distribution``) that both
entry points share, so sampled actions and the probabilities used for exact ranges can
never drift apart:

* :func:`sample_actions`: a batch of decisions (style index, context, hole cards, board,
  one uniform number each) to (move, amount); about 0.3 microseconds per decision
  preflop and 2-4 postflop. :func:`sample_kernel` is the same as a numba function, for
  compiled callers such as the batched engine (all inputs plain arrays).
* :func:`probabilities_all`: the probabilities of fold, check/call and each raise size for
  all 1,326 combos at one decision (the posterior's likelihoods).

``style.action_probabilities`` is the readable numpy version of the same policy; the tests
compare the three. The rules themselves are documented in ``docs/pool.md``.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX, N_COMBOS
from poolshark.cards.evaluator import tables
from poolshark.pool.context import (
    MOVE_CALL,
    MOVE_FOLD,
    MOVE_RAISE,
    N_FEATURES,
    Feature,
)
from poolshark.pool.strength import (
    HAS_STRAIGHT,
    StrengthCache,
    draw_strength_all,
    draw_strength_one,
    made_strength_all,
    made_strength_cached,
    reference_ranges,
    strength_cache,
)

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

MAX_SIZES = 4
"""Raise sizes a style may mix at one decision; columns 2.. of a probability row."""
N_COLUMNS = 2 + MAX_SIZES
"""Columns of a probability row: fold, check/call, raise with size slot 0..MAX_SIZES-1."""
JAM_SNAP = 0.85
"""A raise to at least this share of the whole stack goes all-in instead."""
DRAW_FULL = 0.30
"""A draw with this chance to complete (or more) semi-bluffs at the full rate."""
MAX_FACING_FRACTION = 3.0
"""Bets beyond three times the pot widen folding no further."""
REFERENCE_FRACTION = 0.5
"""The bet (a fraction of the pot) that ``fold_to_cbet``, ``fold_to_bet`` and ``call_down``
describe; other sizes move the continuing share with the minimum defence frequency."""
COMMITTED_SPR = 2.0
"""Below this stack-to-pot ratio of the betting round, made hands start to be committed."""


class Node(IntEnum):
    """First index of each family of preflop decision nodes (one per position or single).

    ``VS_3BET_OPENER`` answers a three-bet after opening first in, ``VS_3BET_ISO`` after
    raising over limpers; ``VS_4BET_OTHER`` is every four-bet-or-more spot but the
    three-bettor's own answer to a four-bet.
    """

    UNOPENED = 0
    LIMPED = 6
    VS_OPEN = 12
    VS_3BET_OPENER = 18
    VS_3BET_COLD = 24
    VS_4BET_3BETTOR = 25
    VS_4BET_OTHER = 26
    VS_3BET_ISO = 27


N_NODES = 28


class SizeKind(IntEnum):
    """Which size set a raise draws from: the first four preflop, the rest postflop."""

    OPEN = 0  # big blinds, plus per-limper big blinds
    THREEBET = 1  # times the bet faced
    FOURBET = 2
    FIVEBET = 3
    FLOP = 4  # fractions of the pot
    TURN = 5
    RIVER = 6
    RAISE = 7  # fraction of the pot after calling


N_KINDS = len(SizeKind)


class Param(IntEnum):
    """Index of each number in a style's parameter vector (postflop, sizes, responses)."""

    CBET_FLOP = 0
    CBET_TURN = 1
    CBET_RIVER = 2
    BET_FLOP = 3
    BET_TURN = 4
    BET_RIVER = 5
    FOLD_TO_CBET = 6
    FOLD_TO_BET = 7
    CALL_DOWN = 8
    RAISE = 9
    CHECK_RAISE = 10
    BLUFF = 11
    RIVER_BLUFF = 12
    SEMI_BLUFF = 13
    SEMI_BLUFF_RAISE = 14
    BLUFF_LINE = 15
    DRAW_DISCIPLINE = 16
    SIZE_SENSITIVITY = 17
    MIXING = 18
    PER_LIMPER = 19
    COMMITMENT = 20
    POSITION_BET = 21
    POSITION_DEFENCE = 22
    MULTIWAY = 23
    PREFLOP_SIZE_SENSITIVITY = 24
    OPEN_REFERENCE = 25
    THREEBET_REFERENCE = 26


N_PARAMS = len(Param)


class Continue(IntEnum):
    """Rows of a preflop continue table (``StyleBank.continue_weight[k, node]``): the range
    itself, then where each combo's class lies in its ranking order
    (``strength.range_order``), which resizes the range by the raise size faced."""

    WEIGHT = 0
    START = 1
    WIDTH = 2
    WIDEN_START = 3
    WIDEN_WIDTH = 4


N_CONTINUE_ROWS = len(Continue)


class StyleBank(NamedTuple):
    """K compiled styles stacked: the arrays every compiled policy kernel reads.

    ``raise_weight[k, node, combo]`` is the preflop raising range per decision node and
    ``continue_weight[k, node, Continue.WEIGHT, combo]`` the continuing range, the other
    :class:`Continue` rows its ranking order (to resize it by the raise faced);
    ``params[k]`` the style's numbers (:class:`Param`); ``sizes[k, kind, j]`` the raise sizes
    (``inf`` = all-in) and ``size_weights`` their probabilities (rows sum to 1, unused
    slots 0).
    """

    raise_weight: Floats  # (K, N_NODES, 1326)
    continue_weight: Floats  # (K, N_NODES, N_CONTINUE_ROWS, 1326)
    params: Floats  # (K, N_PARAMS)
    sizes: Floats  # (K, N_KINDS, MAX_SIZES)
    size_weights: Floats  # (K, N_KINDS, MAX_SIZES)

    @property
    def styles(self) -> int:
        """Number of styles in the bank."""
        return int(self.params.shape[0])


def preflop_node(position: int, raises: int, my_level: int, limpers: int) -> int:
    """The preflop decision node of a context (see :class:`Node`)."""
    return int(_preflop_node(position, raises, my_level, limpers))


@nb.njit(cache=True, nogil=True)
def _preflop_node(position: int, raises: int, my_level: int, limpers: int) -> int:
    if raises == 0:
        return (Node.LIMPED if limpers > 0 else Node.UNOPENED) + position
    if raises == 1:
        return Node.VS_OPEN + position
    if raises == 2 and my_level == 1:
        return Node.VS_3BET_ISO + 0 if limpers > 0 else Node.VS_3BET_OPENER + position
    if raises == 2:
        return Node.VS_3BET_COLD + 0
    return Node.VS_4BET_3BETTOR + 0 if raises == 3 and my_level == 2 else Node.VS_4BET_OTHER + 0


@nb.njit(cache=True, nogil=True)
def _node_of(features: Floats) -> int:
    return _preflop_node(
        int(features[Feature.POSITION]),
        int(features[Feature.PREFLOP_RAISES]),
        int(features[Feature.MY_RAISE_LEVEL]),
        int(features[Feature.LIMPERS]),
    )


@nb.njit(cache=True, nogil=True)
def _ramp(x: float, threshold: float, width: float) -> float:
    """0 well below ``threshold``, 1 well above, linear over ``width`` around it."""
    return min(1.0, max(0.0, (x - threshold) / width + 0.5))


@nb.njit(cache=True, nogil=True)
def preflop_range_scale(params: Floats, features: Floats) -> float:
    """How much wider (above 1) or narrower the continuing range is than written, by the
    size of the raise faced against the style's reference (see ``docs/pool.md``)."""
    raises = int(features[Feature.PREFLOP_RAISES])
    current = features[Feature.CURRENT_BET]
    if raises == 1:
        limpers = features[Feature.LIMPERS]
        reference = features[Feature.BIG_BLIND] * (params[Param.OPEN_REFERENCE] + limpers)
    elif raises == 2 and int(features[Feature.MY_RAISE_LEVEL]) == 1:
        reference = features[Feature.MY_BET] * params[Param.THREEBET_REFERENCE]
    else:
        return 1.0
    if reference <= 0.0 or current <= 0.0:
        return 1.0
    return float((current / reference) ** -params[Param.PREFLOP_SIZE_SENSITIVITY])


@nb.njit(cache=True, nogil=True)
def _scaled_continue(table: Floats, combo: int, scale: float) -> float:
    """The continue weight of ``combo`` in a range resized to ``scale`` times its mass (the
    compiled ``strength.scale_range``), from one node's :class:`Continue` rows."""
    weight = float(table[Continue.WEIGHT, combo])
    if scale == 1.0:
        return weight
    if scale < 1.0:
        width = float(table[Continue.WIDTH, combo])
        if width <= 0.0:
            return 0.0
        start = float(table[Continue.START, combo])
        return weight * min(1.0, max(0.0, (scale - start) / width))
    width = float(table[Continue.WIDEN_WIDTH, combo])
    if width <= 0.0:
        return weight
    start = float(table[Continue.WIDEN_START, combo])
    return weight + (1.0 - weight) * min(1.0, max(0.0, (scale - start) / width))


@nb.njit(cache=True, nogil=True)
def _preflop_raise_continue(
    raise_weight: Floats, continue_weight: Floats, params: Floats, features: Floats, combo: int
) -> tuple[float, float]:
    """(raise weight, continue weight) of ``combo`` preflop for one style's tables."""
    node = _node_of(features)
    scale = preflop_range_scale(params, features)
    return raise_weight[node, combo], _scaled_continue(continue_weight[node], combo, scale)


@nb.njit(cache=True, nogil=True)
def minimum_defence(fraction: float) -> float:
    """The minimum defence frequency against a bet of ``fraction`` of the pot: the share
    of a range that must continue so that a bluff of that size breaks even, 1 / (1 + f)."""
    return 1.0 / (1.0 + fraction)


@nb.njit(cache=True, nogil=True)
def street_spr(features: Floats) -> float:
    """My stack when this betting round began, over the pot before my bet and the bet I
    face this round (exact heads-up; multiway the other callers' chips count as pot)."""
    pot = features[Feature.POT] - features[Feature.MY_BET] - features[Feature.CURRENT_BET]
    depth = features[Feature.MY_STACK] + features[Feature.MY_BET]
    return float(depth / max(pot, 1.0))


@nb.njit(cache=True, nogil=True)
def _postflop_raise_continue(
    params: Floats, features: Floats, made: float, draw: float
) -> tuple[float, float]:
    """(raise weight, continue weight) of a holding of strength (made, draw) postflop."""
    street = int(features[Feature.STREET])
    width = params[Param.MIXING]
    bluff_line = params[Param.BLUFF_LINE]
    opponents = max(features[Feature.ALIVE] - 1.0, 1.0)
    strength = made**opponents
    crowd = opponents ** -params[Param.MULTIWAY]
    side = 1.0 if features[Feature.IN_POSITION] > 0 else -1.0
    air = 1.0 - _ramp(strength, bluff_line, width)
    semi = min(1.0, draw / DRAW_FULL)
    to_call = features[Feature.TO_CALL]
    river_bluff = params[Param.RIVER_BLUFF]
    if to_call == 0:
        if features[Feature.PREVIOUS_AGGRESSOR] > 0:
            base = params[Param.CBET_FLOP + street - 1]
        else:
            base = params[Param.BET_FLOP + street - 1]
        frequency = min(1.0, base * (1.0 + side * params[Param.POSITION_BET]))
        bluff_share = river_bluff if street == 3 else params[Param.BLUFF]
        value = _ramp(strength, 1.0 - frequency * (1.0 - bluff_share), width)
        air_bluff = min(1.0, frequency * bluff_share / bluff_line) * air
        bluff = crowd * max(air_bluff, params[Param.SEMI_BLUFF] * semi)
        return value + (1.0 - value) * bluff, 1.0
    checked = features[Feature.CHECKED] > 0
    frequency = params[Param.CHECK_RAISE] if checked else params[Param.RAISE]
    value = _ramp(strength, 1.0 - frequency, width)
    if street == 3:
        bluff = crowd * min(1.0, frequency * river_bluff / bluff_line) * air
    else:
        bluff = crowd * params[Param.SEMI_BLUFF_RAISE] * semi
    facing_cbet = features[Feature.CBET] > 0 and features[Feature.STREET_RAISES] == 1
    if street == 1 and facing_cbet:
        fold = params[Param.FOLD_TO_CBET]
    elif street == 3:
        fold = 1.0 - params[Param.CALL_DOWN]
    else:
        fold = params[Param.FOLD_TO_BET]
    size = min(features[Feature.FACING_FRACTION], MAX_FACING_FRACTION)
    defence = minimum_defence(size) / minimum_defence(REFERENCE_FRACTION)
    defend = (1.0 - fold) * defence ** params[Param.SIZE_SENSITIVITY]
    defend *= 1.0 + side * params[Param.POSITION_DEFENCE]
    shallow = min(1.0, max(0.0, 1.0 - street_spr(features) / COMMITTED_SPR))
    threshold = min(1.0, max(0.0, 1.0 - defend)) * (1.0 - params[Param.COMMITMENT] * shallow)
    keep = _ramp(strength, threshold, width)
    if draw > 0:
        odds = to_call / (features[Feature.POT] + to_call)
        keep = max(keep, _ramp(draw, odds * params[Param.DRAW_DISCIPLINE], width))
    return value + (1.0 - value) * bluff, keep


@nb.njit(cache=True, nogil=True)
def _raise_amounts(params: Floats, sizes: Floats, features: Floats, out_amounts: Int64s) -> int:
    """Raise-to amounts of the size slots at this decision (0 for unused slots); returns
    the size kind used."""
    street = int(features[Feature.STREET])
    raises = int(features[Feature.PREFLOP_RAISES])
    big_blind = features[Feature.BIG_BLIND]
    to_call = features[Feature.TO_CALL]
    pot = features[Feature.POT]
    least = features[Feature.MIN_RAISE_TO]
    most = features[Feature.MAX_RAISE_TO]
    if street == 0:
        kind = SizeKind.OPEN + min(raises, 3)
    elif to_call > 0:
        kind = SizeKind.RAISE + 0
    else:
        kind = SizeKind.FLOP + street - 1
    for j in range(MAX_SIZES):
        size = sizes[kind, j]
        if size == 0:  # an unused slot
            out_amounts[j] = 0
            continue
        if np.isinf(size):
            target = most
        elif street == 0 and raises == 0:
            limpers = features[Feature.LIMPERS]
            target = size * big_blind + params[Param.PER_LIMPER] * big_blind * limpers
        elif street == 0:
            target = size * features[Feature.CURRENT_BET]
        else:
            target = features[Feature.MY_BET] + to_call + size * (pot + to_call)
        amount = np.floor(target + 0.5)
        if amount >= JAM_SNAP * most:
            amount = most
        out_amounts[j] = int(min(most, max(least, amount)))
    return kind


@nb.njit(cache=True, nogil=True)
def _distribution(
    raise_weight: float,
    continue_weight: float,
    features: Floats,
    size_weights: Floats,
    kind: int,
    out: Floats,
) -> None:
    """Fold, check/call and per-size raise probabilities from the two range weights.

    A raise happens with ``raise_weight``; otherwise the player continues (calls) with
    ``continue_weight`` and folds with the rest. Checking replaces folding when there is
    nothing to call, and calling replaces raising when raising is not allowed.
    """
    can_raise = features[Feature.MAX_RAISE_TO] > 0
    raising = raise_weight if can_raise else 0.0
    if features[Feature.TO_CALL] == 0:
        out[0] = 0.0
        out[1] = 1.0 - raising
    else:
        out[0] = (1.0 - raise_weight) * (1.0 - continue_weight)
        out[1] = (1.0 - raise_weight) * continue_weight + (raise_weight - raising)
    for j in range(MAX_SIZES):
        out[2 + j] = raising * size_weights[kind, j]


@nb.njit(cache=True, nogil=True)
def style_distribution(
    raise_weight: Floats,
    continue_weight: Floats,
    params: Floats,
    sizes: Floats,
    size_weights: Floats,
    k: int,
    features: Floats,
    combo: int,
    made: float,
    draw: float,
    out: Floats,
    out_amounts: Int64s,
) -> None:
    """Style ``k``'s row (fold, check/call, each raise size) at one decision for one combo
    into ``out``, the sizes' raise-to amounts into ``out_amounts``; ``made`` and ``draw``
    are the combo's postflop strengths (unused preflop). For compiled callers outside
    this module (a mix of styles' probabilities); the first five are the bank's arrays."""
    if int(features[Feature.STREET]) == 0:
        up, keep = _preflop_raise_continue(
            raise_weight[k], continue_weight[k], params[k], features, combo
        )
    else:
        up, keep = _postflop_raise_continue(params[k], features, made, draw)
    kind = _raise_amounts(params[k], sizes[k], features, out_amounts)
    _distribution(up, keep, features, size_weights[k], kind, out)


@nb.njit(cache=True, nogil=True)
def sample_kernel(
    raise_weight: Floats,
    continue_weight: Floats,
    params: Floats,
    sizes: Floats,
    size_weights: Floats,
    style: Int64s,
    features: Floats,
    hole: Int64s,
    board: Int64s,
    uniform: Floats,
    memo: StrengthCache,
    combo_index: npt.NDArray[np.int16],
    combo_cards: npt.NDArray[np.uint8],
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    has_straight: npt.NDArray[np.bool_],
    out_move: Int64s,
    out_amount: Int64s,
) -> None:
    """Sample D decisions into ``out_move`` / ``out_amount`` (see :func:`sample_actions`).

    Arguments after ``uniform`` are ``strength.strength_cache()`` and constant tables:
    ``COMBO_INDEX``, ``COMBO_CARDS``, the evaluator's ``tables()`` (five arrays) and
    ``strength.HAS_STRAIGHT``; the first five are the :class:`StyleBank`'s arrays.
    """
    probabilities = np.zeros(N_COLUMNS)
    amounts = np.zeros(MAX_SIZES, dtype=np.int64)
    for i in range(style.size):
        k = style[i]
        f = features[i]
        first, second = hole[i, 0], hole[i, 1]
        combo = combo_index[first, second]
        street = int(f[Feature.STREET])
        if street == 0:
            up, keep = _preflop_raise_continue(
                raise_weight[k], continue_weight[k], params[k], f, combo
            )
        else:
            n_board = 2 + street
            made = made_strength_cached(
                combo,
                board[i],
                n_board,
                memo,
                combo_cards,
                card_key,
                card_mask,
                row_base,
                rank_table,
                flush_table,
            )
            draw = draw_strength_one(first, second, board[i], n_board, has_straight)
            up, keep = _postflop_raise_continue(params[k], f, made, draw)
        kind = _raise_amounts(params[k], sizes[k], f, amounts)
        _distribution(up, keep, f, size_weights[k], kind, probabilities)
        u = uniform[i]
        column = N_COLUMNS - 1
        total = 0.0
        for c in range(N_COLUMNS):
            total += probabilities[c]
            if u < total:
                column = c
                break
        while probabilities[column] == 0.0 and column > 0:  # rounding past the last live one
            column -= 1
        if column == 0:
            out_move[i] = MOVE_FOLD
            out_amount[i] = 0
        elif column == 1:
            out_move[i] = MOVE_CALL
            out_amount[i] = int(min(f[Feature.TO_CALL], f[Feature.MY_STACK]))
        else:
            out_move[i] = MOVE_RAISE
            out_amount[i] = amounts[column - 2]


@nb.njit(cache=True, nogil=True)
def fill_probabilities(
    raise_weight: Floats,
    continue_weight: Floats,
    params: Floats,
    sizes: Floats,
    size_weights: Floats,
    k: int,
    features: Floats,
    made: Floats,
    draw: Floats,
    live: npt.NDArray[np.bool_],
    out: Floats,
    out_amounts: Int64s,
) -> None:
    """Rows of ``out`` (1326, N_COLUMNS) for every live combo; blocked combos get zeros."""
    street = int(features[Feature.STREET])
    kind = _raise_amounts(params[k], sizes[k], features, out_amounts)
    node = _node_of(features)
    scale = preflop_range_scale(params[k], features)
    for combo in range(out.shape[0]):
        if not live[combo]:
            out[combo, :] = 0.0
            continue
        if street == 0:
            up = raise_weight[k, node, combo]
            keep = _scaled_continue(continue_weight[k, node], combo, scale)
        else:
            up, keep = _postflop_raise_continue(params[k], features, made[combo], draw[combo])
        _distribution(up, keep, features, size_weights[k], kind, out[combo])


class Strengths(NamedTuple):
    """Postflop strength of every combo on one board, and which combos the board leaves."""

    made: Floats
    draw: Floats
    live: npt.NDArray[np.bool_]


def strengths_on(board: Int64s, n_board: int) -> Strengths:
    """:class:`Strengths` of all combos on the first ``n_board`` cards of ``board``."""
    cards = np.zeros(5, dtype=np.int64)
    cards[:n_board] = board[:n_board]
    made = np.zeros(N_COMBOS)
    draw = np.zeros(N_COMBOS)
    if n_board:
        made_strength_all(cards, n_board, reference_ranges(), COMBO_CARDS, *tables(), made)
        draw_strength_all(cards, n_board, COMBO_CARDS, HAS_STRAIGHT, draw)
    used = np.zeros(52, dtype=np.bool_)
    used[cards[:n_board]] = True
    live = ~(used[COMBO_CARDS[:, 0]] | used[COMBO_CARDS[:, 1]])
    return Strengths(made, draw, live)


def probabilities_all(
    bank: StyleBank, style: int, features: Floats, strengths: Strengths
) -> tuple[Floats, Int64s]:
    """(1326, N_COLUMNS) probabilities and the (MAX_SIZES,) raise-to amounts (compiled)."""
    if not 0 <= style < bank.styles:
        raise ValueError(f"style index {style} is not in the bank of {bank.styles}")
    out = np.zeros((N_COMBOS, N_COLUMNS))
    amounts = np.zeros(MAX_SIZES, dtype=np.int64)
    fill_probabilities(
        *bank,
        style,
        np.asarray(features, dtype=np.float64),
        strengths.made,
        strengths.draw,
        strengths.live,
        out,
        amounts,
    )
    return out, amounts


def sample_actions(
    bank: StyleBank,
    style: Int64s,
    features: Floats,
    hole: Int64s,
    board: Int64s,
    uniform: Floats,
) -> tuple[Int64s, Int64s]:
    """Sample D decisions: (move codes, amounts): a call's chips, a raise's total to.

    ``style`` (D,) bank indices, ``features`` (D, N_FEATURES) contexts, ``hole`` (D, 2)
    cards, ``board`` (D, 5) cards (only the street's first 3-5 are read), ``uniform`` (D,)
    numbers in [0, 1) that choose the action by inverse CDF over the probability row.
    """
    count = len(style)
    features = np.ascontiguousarray(features, dtype=np.float64)
    if features.shape != (count, N_FEATURES):
        raise ValueError(f"features must be ({count}, {N_FEATURES}), got {features.shape}")
    styles = np.asarray(style, dtype=np.int64)
    if count and not (styles.min() >= 0 and styles.max() < bank.styles):
        raise ValueError(f"style indices must lie in 0..{bank.styles - 1}")
    move = np.zeros(count, dtype=np.int64)
    amount = np.zeros(count, dtype=np.int64)
    sample_kernel(
        *bank,
        styles,
        features,
        np.ascontiguousarray(hole, dtype=np.int64),
        np.ascontiguousarray(board, dtype=np.int64),
        np.ascontiguousarray(uniform, dtype=np.float64),
        strength_cache(),
        COMBO_INDEX,
        COMBO_CARDS,
        *tables(),
        HAS_STRAIGHT,
        move,
        amount,
    )
    return move, amount
