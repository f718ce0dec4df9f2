"""The population action model's inputs (:func:`featurize`), one code path for training,
play and imputation.

Three parts: the encoded context plus a grid of the hand's betting so far by street and seat
(``public``); the hole cards against the board (preflop class and rank, the styles' own
``made`` and ``draw`` strengths, hand category; ``hand``); and for every opponent still in
the hand a row of public facts about it and a summary of its range from a
:class:`~poolshark.pool.ranges.RangeSource` (:mod:`poolshark.population.range_view`): the
share of that range our hand beats now, the range's mean ``made`` and ``draw``, its
normalized entropy (``opponents``). The kernels are compiled; :func:`encode_population_contexts`
and the tests' plain loops are their readable references.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import cache

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.combos import COMBO_CARDS, COMBO_CLASS, COMBO_INDEX
from poolshark.cards.evaluator import KEY_INIT, value_of
from poolshark.cards.evaluator import tables as evaluator_tables
from poolshark.cards.hand_value import category_bounds
from poolshark.pool.context import (
    MOVE_CALL,
    MOVE_FOLD,
    Feature,
    apply_action,
    position_class,
    post_forced_bets,
    return_uncalled,
)
from poolshark.pool.ranges import RangeSource
from poolshark.pool.strength import (
    HAS_STRAIGHT,
    StrengthCache,
    draw_strength_all,
    draw_strength_one,
    made_strength_all,
    made_strength_cached,
    preflop_percentile,
    reference_ranges,
    strength_cache,
)
from poolshark.population.actions import legal_classes, raise_fraction
from poolshark.population.range_view import source_ranges
from poolshark.population.states import ActionDataError, DecisionStates, game_numbers

Floats = npt.NDArray[np.float64]
Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

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


def encode_population_contexts(contexts: Floats, seats: int) -> Float32s:
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


_POSITION, _STREET, _PREFLOP_FACING = (
    int(Feature.POSITION),
    int(Feature.STREET),
    int(Feature.PREFLOP_FACING),
)
_PREFLOP_RAISES, _MY_RAISE_LEVEL = int(Feature.PREFLOP_RAISES), int(Feature.MY_RAISE_LEVEL)
_LIMPERS, _FACING_FRACTION = int(Feature.LIMPERS), int(Feature.FACING_FRACTION)
_STREET_RAISES, _ALIVE, _SPR = int(Feature.STREET_RAISES), int(Feature.ALIVE), int(Feature.SPR)
_TO_CALL, _POT, _CURRENT_BET = int(Feature.TO_CALL), int(Feature.POT), int(Feature.CURRENT_BET)
_MIN_RAISE_TO, _MAX_RAISE_TO = int(Feature.MIN_RAISE_TO), int(Feature.MAX_RAISE_TO)
_BIG_BLIND = int(Feature.BIG_BLIND)
_FLAGS = np.array(
    [
        Feature.PREFLOP_AGGRESSOR,
        Feature.PREVIOUS_AGGRESSOR,
        Feature.CBET,
        Feature.FACING_BET,
        Feature.CHECKED,
        Feature.IN_POSITION,
    ],
    dtype=np.int64,
)
_CHIPS = np.array(
    [Feature.TO_CALL, Feature.POT, Feature.MY_BET, Feature.MY_STACK, Feature.CURRENT_BET],
    dtype=np.int64,
)
_LOG_101 = float(np.log(101.0))


@nb.njit(cache=True, nogil=True)
def _cap(x: float, cap: float) -> float:  # pragma: no cover - compiled
    """``np.minimum(x, cap)`` (NaN passes through)."""
    return cap if x > cap else x


@nb.njit(cache=True, nogil=True)
def _floor0(x: float) -> float:  # pragma: no cover - compiled
    """``np.maximum(x, 0.0)`` (NaN passes through)."""
    return 0.0 if x < 0.0 else x


@nb.njit(cache=True, nogil=True)
def _contexts_kernel(
    f: Floats, seats: int, flags: Int64s, chips: Int64s, out: Float32s
) -> None:  # pragma: no cover - compiled
    for i in range(f.shape[0]):
        row = f[i]
        out[i, int(row[_POSITION])] = 1.0
        out[i, 6 + int(row[_STREET])] = 1.0
        out[i, 10 + int(row[_PREFLOP_FACING])] = 1.0
        out[i, 15] = _cap(row[_PREFLOP_RAISES], 4.0) / 4
        out[i, 16 + int(_cap(row[_MY_RAISE_LEVEL], 3.0))] = 1.0
        out[i, 20] = _cap(row[_LIMPERS], 3.0) / 3
        for offset in range(flags.size):
            out[i, 21 + offset] = row[flags[offset]]
        facing = row[_FACING_FRACTION]
        out[i, 27] = _cap(facing, 4.0) / 4
        out[i, 28] = np.log1p(facing)
        out[i, 29] = _cap(row[_STREET_RAISES], 4.0) / 4
        alive = row[_ALIVE]
        out[i, 30] = (alive - 2) / 8
        out[i, 31 + int(min(max(alive - 2, 0.0), 2.0))] = 1.0
        out[i, 34] = np.log1p(_cap(row[_SPR], 100.0)) / _LOG_101
        big_blind = row[_BIG_BLIND]
        for offset in range(chips.size):
            chip = row[chips[offset]]
            out[i, 35 + offset] = np.log1p(_floor0(chip) / max(big_blind, 1.0)) / _CHIP_SCALE
        to_call, pot = row[_TO_CALL], row[_POT]
        out[i, 40] = to_call / max(pot + to_call, 1.0)
        can_raise = row[_MAX_RAISE_TO] > 0
        out[i, 41] = 1.0 if can_raise else 0.0
        if can_raise:
            base = max(pot + to_call, 1.0)
            least = _floor0((row[_MIN_RAISE_TO] - row[_CURRENT_BET]) / base)
            most = _floor0((row[_MAX_RAISE_TO] - row[_CURRENT_BET]) / base)
            out[i, 42] = np.log1p(least)
            out[i, 43] = np.log1p(most)
        out[i, 44] = (seats - 2) / 8
        out[i, 45] = 1.0 if seats == 2 else 0.0


def encode_contexts_compiled(contexts: Floats, seats: int) -> Float32s:
    """:func:`encode_population_contexts` as one compiled pass over the rows (the same
    float32 values, tests/test_fast_opponents.py; 4-5x faster on a rollout's opponent
    batches, where the numpy chain was a third of a population agent's feature time)."""
    f = np.ascontiguousarray(contexts, dtype=np.float64)
    out = np.zeros((f.shape[0], CONTEXT_SIZE), dtype=np.float32)
    _contexts_kernel(f, seats, _FLAGS, _CHIPS, out)
    return out


@cache
def position_table(seats: int) -> Int64s:
    """(seats, seats) position class of seat ``s`` when the button is at ``b``: ``[b, s]``
    (built once per table size, read-only: every featurized batch looks it up)."""
    table = np.zeros((seats, seats), dtype=np.int64)
    for button in range(seats):
        for seat in range(seats):
            table[button, seat] = int(position_class(seat, button, seats))
    table.flags.writeable = False
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
    memo: StrengthCache,
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
    """Hole-card features (see :func:`holding_features`)."""
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


def holding_features(hole: Int64s, boards: Int64s, street: Int64s, alive: Floats) -> Float32s:
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
            strength_cache(),
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
            game_numbers(hands.config),
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
    context = encode_contexts_compiled(states.contexts, width)
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
    hand = holding_features(states.hole, boards, street, states.contexts[:, Feature.ALIVE])
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
