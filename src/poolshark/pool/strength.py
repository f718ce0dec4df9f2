"""How strong a holding looks to a player style: a preflop ranking and a postflop strength.

* **Preflop**: the 169 classes ranked by the mean of two exact all-in equities, against a
  random hand and against a typical opening range (the top 25% of hands by equity against
  a random hand). The second term lifts pairs and big suited hands above weak offsuit
  broadways, which equity against a random hand alone overrates. The ranking is computed
  from the cached 1326x1326 matrices by :func:`build_preflop_ranking` and shipped as
  ``pool/data/preflop_ranking.json``, so styles never depend on whether the cache exists;
  a test rebuilds it from the matrices and compares.
* **Postflop** (flop, turn, river), per combo not blocked by the board:

  - ``made``: the percentile of the combo's hand value within a *reference range* of the
    street, the range a typical player still holds there: the best preflop classes holding
    40% of all hands on the flop, 30% on the turn and 25% on the river. It is the share of
    the reference combos live on the board with a lower value, those with an equal value
    counting half: the showdown equity now against one holding of that range (without card
    removal). For a combo dealt from the reference range it is uniform on [0, 1], so a
    style that folds below 0.45 folds 45% of such a range; the narrower reference on later
    streets stands for the ranges that shrink as the betting goes on.
  - ``draw``: the chance to complete a flush or a straight by the river, from the number of
    *outs*: unseen cards that give a flush with at least one hole card of the suit (when
    there is no flush yet), or a straight the board plus that card does not make alone
    (when there is no straight yet). ``0`` on the river.

Both postflop functions come twice: a plain numpy reference over all combos, and numba
kernels (all combos of one board, or one combo) that the samplers and posteriors call.
"""

from __future__ import annotations

import json
import threading
from functools import cache
from importlib import resources
from typing import NamedTuple

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.card import N_CARDS
from poolshark.cards.combos import (
    CLASS_NAMES,
    CLASS_SIZE,
    COMBO_CARDS,
    COMBO_CLASS,
    N_CLASSES,
    N_COMBOS,
    conflict_matrix,
)
from poolshark.cards.evaluator import KEY_INIT, evaluate_batch, tables, value_of
from poolshark.equity.matrix import PreflopMatrices

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

OPENING_SHARE = 0.25
"""The reference opening range of the preflop ranking: this share of hands by equity vs random."""
REFERENCE_SHARES = (0.0, 0.40, 0.30, 0.25)
"""Per street (flop, turn, river; preflop unused) the share of hands in the reference range."""
RANKING_FILE = "preflop_ranking.json"
MAX_VALUE = 7462
STRAIGHT_RUNS = (0x1F, 0x3E, 0x7C, 0xF8, 0x1F0, 0x3E0, 0x7C0, 0xF80, 0x1F00, 0x100F)
"""13-bit rank masks (deuce = bit 0) of the ten straights, the wheel A-2-3-4-5 last."""


def _has_straight_table() -> npt.NDArray[np.bool_]:
    masks = np.arange(1 << 13)
    found = np.zeros(1 << 13, dtype=np.bool_)
    for run in STRAIGHT_RUNS:
        found |= (masks & run) == run
    return found


HAS_STRAIGHT: npt.NDArray[np.bool_] = _has_straight_table()
"""(8192,) whether a 13-bit rank mask holds five ranks in a row (or the wheel)."""
HAS_STRAIGHT.flags.writeable = False


# -- preflop ------------------------------------------------------------------------------


def build_preflop_ranking(matrices: PreflopMatrices) -> tuple[list[str], list[float]]:
    """Class names from strongest to weakest and their scores, from the exact matrices."""
    possible = ~conflict_matrix()
    equity = matrices.equity
    versus_random = matrices.equity_vs_random()
    by_class = np.bincount(COMBO_CLASS, versus_random, N_CLASSES) / CLASS_SIZE
    opening = _top_classes(by_class, OPENING_SHARE)[COMBO_CLASS]
    reach = possible * opening[None, :]
    versus_opening = (equity * reach).sum(axis=1) / reach.sum(axis=1)
    score = np.bincount(COMBO_CLASS, (versus_random + versus_opening) / 2, N_CLASSES) / CLASS_SIZE
    order = np.argsort(-score, kind="stable")
    return [CLASS_NAMES[i] for i in order], [round(float(score[i]), 6) for i in order]


def _top_classes(score: Floats, share: float) -> Floats:
    """1 for the best classes holding ``share`` of all combos (class by class), else 0."""
    order = np.argsort(-score, kind="stable")
    before = np.cumsum(CLASS_SIZE[order]) - CLASS_SIZE[order]
    chosen = np.zeros(N_CLASSES)
    chosen[order[before < share * N_COMBOS]] = 1.0
    return chosen


@cache
def preflop_ranking() -> tuple[tuple[str, ...], Floats]:
    """The shipped ranking: class names strongest first, and each one's score."""
    text = resources.files("poolshark.pool").joinpath("data", RANKING_FILE).read_text()
    data = json.loads(text)
    names = tuple(str(name) for name in data["classes"])
    if sorted(names) != sorted(CLASS_NAMES):
        raise ValueError(f"{RANKING_FILE} must list each of the 169 preflop classes once")
    score = np.array(data["score"], dtype=np.float64)
    score.flags.writeable = False
    return names, score


@cache
def class_order() -> Int64s:
    """(169,) class indices from strongest to weakest."""
    names, _ = preflop_ranking()
    order = np.array([CLASS_NAMES.index(name) for name in names], dtype=np.int64)
    order.flags.writeable = False
    return order


@cache
def preflop_percentile() -> Floats:
    """(1326,) share of all combos in classes ranked above a combo's class, plus half its own.

    0 is the best hand (aces), near 1 the worst: "top x%" means percentile below x/100.
    """
    order = class_order()
    size = CLASS_SIZE[order].astype(np.float64)
    before = np.cumsum(size) - size
    centre = np.empty(N_CLASSES)
    centre[order] = (before + size / 2) / N_COMBOS
    percentile: Floats = centre[COMBO_CLASS]
    percentile.flags.writeable = False
    return percentile


def top_of_range(weights: Floats, share: float) -> Floats:
    """The best ``share`` (by weight) of a range, by the preflop ranking; a class cut in two
    keeps the same fraction of each of its combos, so the result holds exactly that share."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"a share of a range lies in [0, 1], got {share}")
    order = class_order()
    mass = np.bincount(COMBO_CLASS, weights, N_CLASSES)[order]
    before = np.cumsum(mass) - mass
    goal = share * float(weights.sum())
    kept = np.clip(np.divide(goal - before, mass, out=np.zeros(N_CLASSES), where=mass > 0), 0, 1)
    fraction = np.empty(N_CLASSES)
    fraction[order] = kept
    result: Floats = weights * fraction[COMBO_CLASS]
    return result


def scale_range(weights: Floats, share: float) -> Floats:
    """A range resized to ``share`` times its mass (readable form of :func:`range_order`).

    Below 1 it keeps the best ``share`` of the range (:func:`top_of_range`); above 1 it adds
    the best hands outside the range, by the preflop ranking, until the range holds
    ``share`` times its mass (or every hand). An empty range stays empty.
    """
    if not share >= 0.0:
        raise ValueError(f"a range scale is at least 0, got {share}")
    if share == 1.0:
        return weights
    if share < 1.0:
        return top_of_range(weights, share)
    outside = 1.0 - weights
    room = float(outside.sum())
    if room <= 0.0:
        return weights
    extra = min(1.0, (share - 1.0) * float(weights.sum()) / room)
    widened: Floats = weights + top_of_range(outside, extra)
    return widened


def range_order(weights: Floats) -> Floats:
    """(4, 1326) where each combo's class lies in the ranking order of a range, in units of
    the range's mass: the class's start and width inside the range (rows 0, 1), then the
    start and width of its remainder among the hands outside it, counted from 1 (rows 2,
    3). The compiled policy resizes a range with these (see :func:`scale_range`)."""
    order = class_order()
    total = float(weights.sum())
    rows = np.zeros((4, N_COMBOS))
    if total <= 0.0:
        rows[2] = np.inf  # an empty range never widens
        rows[3] = 1.0
        return rows
    for start_row, inside in ((0, weights), (2, 1.0 - weights)):
        mass = np.bincount(COMBO_CLASS, inside, N_CLASSES)[order]
        before = np.cumsum(mass) - mass
        start, width = np.empty(N_CLASSES), np.empty(N_CLASSES)
        start[order] = before / total + (1.0 if start_row == 2 else 0.0)
        width[order] = mass / total
        rows[start_row] = start[COMBO_CLASS]
        rows[start_row + 1] = width[COMBO_CLASS]
    return rows


def top_percent(percent: float) -> Floats:
    """(1326,) the best ``percent`` of all hands by the ranking, as range weights."""
    return top_of_range(np.ones(N_COMBOS), percent / 100.0)


@cache
def reference_ranges() -> npt.NDArray[np.bool_]:
    """(4, 1326) per street the postflop reference range: whole classes from the top while
    the combos before them hold less than the street's :data:`REFERENCE_SHARES` (row 0,
    preflop, is empty)."""
    order = class_order()
    before = np.cumsum(CLASS_SIZE[order]) - CLASS_SIZE[order]
    references = np.zeros((4, N_COMBOS), dtype=np.bool_)
    for street in (1, 2, 3):
        chosen = np.zeros(N_CLASSES, dtype=np.bool_)
        chosen[order[before < REFERENCE_SHARES[street] * N_COMBOS]] = True
        references[street] = chosen[COMBO_CLASS]
    references.flags.writeable = False
    return references


# -- postflop: readable reference -------------------------------------------------------


def live_combos(board: list[int]) -> npt.NDArray[np.bool_]:
    """(1326,) True for the combos that share no card with the board."""
    used = np.zeros(N_CARDS, dtype=np.bool_)
    used[list(board)] = True
    return ~(used[COMBO_CARDS[:, 0]] | used[COMBO_CARDS[:, 1]])


def made_strength_reference(board: list[int]) -> Floats:
    """(1326,) value percentile of each combo within the reference range on a 3-5 card board
    (0 where blocked)."""
    live = live_combos(board)
    cards = np.concatenate([COMBO_CARDS[live], np.tile(board, (int(live.sum()), 1))], axis=1)
    values = evaluate_batch(cards.astype(np.uint8)).astype(np.int64)
    reference = np.sort(values[reference_ranges()[len(board) - 2][live]])
    below = np.searchsorted(reference, values, side="left")
    equal = np.searchsorted(reference, values, side="right") - below
    made = np.zeros(N_COMBOS)
    made[live] = (below + equal / 2) / reference.size
    return made


def draw_strength_reference(board: list[int]) -> Floats:
    """(1326,) chance to complete a flush or straight by the river (0 on the river/blocked)."""
    draw = np.zeros(N_COMBOS)
    if len(board) == 5:
        return draw
    unseen_count = N_CARDS - 2 - len(board)
    board_ranks = {card >> 2 for card in board}
    for combo in np.flatnonzero(live_combos(board)):
        hole = [int(card) for card in COMBO_CARDS[combo]]
        outs = sum(
            _is_out(hole, board, board_ranks, card)
            for card in range(N_CARDS)
            if card not in hole and card not in board
        )
        draw[combo] = _hit_chance(outs, unseen_count, 5 - len(board))
    return draw


def _is_out(hole: list[int], board: list[int], board_ranks: set[int], card: int) -> bool:
    """Whether ``card`` completes a flush or straight drawn with at least one hole card."""
    cards = hole + board
    suit = card & 3
    suited = sum(1 for c in cards if c & 3 == suit)
    flush_now = any(sum(1 for c in cards if c & 3 == s) >= 5 for s in range(4))
    if not flush_now and suited == 4 and any(c & 3 == suit for c in hole):
        return True
    ranks = {c >> 2 for c in cards}
    if _straight(ranks):
        return False
    return _straight(ranks | {card >> 2}) and not _straight(board_ranks | {card >> 2})


def _straight(ranks: set[int]) -> bool:
    mask = sum(1 << rank for rank in ranks)
    return any(mask & run == run for run in STRAIGHT_RUNS)


def _hit_chance(outs: int, unseen: int, to_come: int) -> float:
    """Chance that at least one of ``outs`` comes among ``to_come`` (1 or 2) of ``unseen``."""
    if to_come == 1:
        return outs / unseen
    return 1.0 - (unseen - outs) * (unseen - 1 - outs) / (unseen * (unseen - 1))


# -- postflop: compiled kernels ---------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def _board_key(
    board: npt.NDArray[np.int64], n_board: int, card_key: Int64s, card_mask: Int64s
) -> tuple[np.int64, np.int64, np.int64]:
    """Evaluator key, card mask and a 52-bit used-card mask of the first ``n_board`` cards."""
    key = np.int64(KEY_INIT)
    mask = np.int64(0)
    used = np.int64(0)
    for i in range(n_board):
        key += card_key[board[i]]
        mask |= card_mask[board[i]]
        used |= np.int64(1) << board[i]
    return key, mask, used


@nb.njit(cache=True, nogil=True)
def made_strength_one(
    combo: int,
    board: npt.NDArray[np.int64],
    n_board: int,
    references: npt.NDArray[np.bool_],
    combo_cards: npt.NDArray[np.uint8],
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
) -> float:
    """``made`` of one combo: its value compared with every live reference combo's."""
    key, mask, used = _board_key(board, n_board, card_key, card_mask)
    a, b = combo_cards[combo, 0], combo_cards[combo, 1]
    mine = value_of(
        key + card_key[a] + card_key[b],
        mask | card_mask[a] | card_mask[b],
        row_base,
        rank_table,
        flush_table,
    )
    below = 0
    equal = 0
    live = 0
    for other in range(combo_cards.shape[0]):
        c, d = combo_cards[other, 0], combo_cards[other, 1]
        if not references[n_board - 2, other] or (used >> c) & 1 or (used >> d) & 1:
            continue
        live += 1
        value = value_of(
            key + card_key[c] + card_key[d],
            mask | card_mask[c] | card_mask[d],
            row_base,
            rank_table,
            flush_table,
        )
        below += int(value < mine)
        equal += int(value == mine)
    return (below + equal / 2) / live


class StrengthCache(NamedTuple):
    """A direct-mapped memo of the reference range's hand values per board, for
    :func:`made_strength_cached`. Every decision on a board asks the same 1,326 reference
    values (the player's own card only picks where it falls among them), and a table's
    board is asked again at each decision of the street, by every seat; the memo evaluates
    each board once while it stays in its slot. One per thread (:func:`strength_cache`): a
    slot is rewritten in place, so two threads must never share one."""

    references: npt.NDArray[np.bool_]
    """(4, 1326) :func:`reference_ranges`: the ranges the values are of."""
    boards: Int64s
    """(slots,) each slot's board as a 52-bit card mask; 0 for an empty slot."""
    lives: Int64s
    """(slots,) how many reference combos are live on the slot's board."""
    values: npt.NDArray[np.uint16]
    """(slots, 1326) the live reference combos' hand values, first ``lives`` entries."""


STRENGTH_CACHE_SLOTS = 8192
"""Slots of a thread's :func:`strength_cache` (22 MB of values, touched as used): enough
for the boards of a few thousand tables in play at once."""


def new_strength_cache(slots: int = STRENGTH_CACHE_SLOTS) -> StrengthCache:
    """An empty :class:`StrengthCache` of ``slots`` (a power of two) for the reference
    ranges."""
    if slots < 1 or slots & (slots - 1):
        raise ValueError(f"slots must be a power of two, got {slots}")
    return StrengthCache(
        reference_ranges(),
        np.zeros(slots, dtype=np.int64),
        np.zeros(slots, dtype=np.int64),
        np.zeros((slots, N_COMBOS), dtype=np.uint16),
    )


_PER_THREAD = threading.local()


def strength_cache() -> StrengthCache:
    """This thread's :class:`StrengthCache`, made on its first use (a web server's worker
    threads each get their own)."""
    memo: StrengthCache | None = getattr(_PER_THREAD, "memo", None)
    if memo is None:
        memo = _PER_THREAD.memo = new_strength_cache()
    return memo


@nb.njit(cache=True, nogil=True)
def made_strength_cached(
    combo: int,
    board: npt.NDArray[np.int64],
    n_board: int,
    memo: StrengthCache,
    combo_cards: npt.NDArray[np.uint8],
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
) -> float:
    """:func:`made_strength_one` (the same value, the tests compare) with the reference
    combos' values of the board read from ``memo``, evaluated and stored there when the
    board's slot holds another board."""
    key, mask, used = _board_key(board, n_board, card_key, card_mask)
    slot = ((used * np.int64(-7046029254386353131)) >> np.int64(40)) & (memo.boards.size - 1)
    stored = memo.values[slot]
    if memo.boards[slot] != used:
        live = 0
        for other in range(combo_cards.shape[0]):
            c, d = combo_cards[other, 0], combo_cards[other, 1]
            if not memo.references[n_board - 2, other] or (used >> c) & 1 or (used >> d) & 1:
                continue
            stored[live] = value_of(
                key + card_key[c] + card_key[d],
                mask | card_mask[c] | card_mask[d],
                row_base,
                rank_table,
                flush_table,
            )
            live += 1
        memo.lives[slot] = live
        memo.boards[slot] = used
    a, b = combo_cards[combo, 0], combo_cards[combo, 1]
    mine = value_of(
        key + card_key[a] + card_key[b],
        mask | card_mask[a] | card_mask[b],
        row_base,
        rank_table,
        flush_table,
    )
    below = 0
    equal = 0
    live = memo.lives[slot]
    for k in range(live):
        below += stored[k] < mine
        equal += stored[k] == mine
    return float((below + equal / 2) / live)


@nb.njit(cache=True, nogil=True)
def made_strength_all(
    board: npt.NDArray[np.int64],
    n_board: int,
    references: npt.NDArray[np.bool_],
    combo_cards: npt.NDArray[np.uint8],
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    out: Floats,
) -> None:
    """``made`` of every combo into ``out`` (0 where blocked), by a histogram of the
    reference combos' values."""
    key, mask, used = _board_key(board, n_board, card_key, card_mask)
    n = combo_cards.shape[0]
    values = np.zeros(n, dtype=np.int64)
    counts = np.zeros(MAX_VALUE + 2, dtype=np.int64)
    live = 0
    for combo in range(n):
        a, b = combo_cards[combo, 0], combo_cards[combo, 1]
        if (used >> a) & 1 or (used >> b) & 1:
            continue
        value = value_of(
            key + card_key[a] + card_key[b],
            mask | card_mask[a] | card_mask[b],
            row_base,
            rank_table,
            flush_table,
        )
        values[combo] = value
        if references[n_board - 2, combo]:
            counts[value] += 1
            live += 1
    below = np.zeros(MAX_VALUE + 2, dtype=np.int64)
    for level in range(1, MAX_VALUE + 2):
        below[level] = below[level - 1] + counts[level - 1]
    for combo in range(n):
        level = values[combo]
        out[combo] = 0.0 if level == 0 else (below[level] + counts[level] / 2) / live


@nb.njit(cache=True, nogil=True)
def draw_strength_one(
    first: int,
    second: int,
    board: npt.NDArray[np.int64],
    n_board: int,
    has_straight: npt.NDArray[np.bool_],
) -> float:
    """``draw`` of the hole cards ``first``, ``second``: outs counted rank by rank."""
    if n_board >= 5:
        return 0.0
    suits = np.zeros(4, dtype=np.int64)
    rank_seen = np.zeros(13, dtype=np.int64)
    board_ranks = 0
    for i in range(n_board):
        suits[board[i] & 3] += 1
        rank_seen[board[i] >> 2] += 1
        board_ranks |= 1 << (board[i] >> 2)
    suits[first & 3] += 1
    suits[second & 3] += 1
    rank_seen[first >> 2] += 1
    rank_seen[second >> 2] += 1
    ranks = board_ranks | (1 << (first >> 2)) | (1 << (second >> 2))
    flush_now = suits.max() >= 5
    flush_suit = -1
    for suit in range(4):
        if suits[suit] == 4 and not flush_now and ((first & 3) == suit or (second & 3) == suit):
            flush_suit = suit
    outs = 9 if flush_suit >= 0 else 0
    if not has_straight[ranks]:
        for rank in range(13):
            if has_straight[ranks | (1 << rank)] and not has_straight[board_ranks | (1 << rank)]:
                outs += 4 - rank_seen[rank]
                if flush_suit >= 0:
                    card = 4 * rank + flush_suit
                    seen = card in (first, second)
                    for i in range(n_board):
                        seen = seen or board[i] == card
                    outs -= not seen  # that card is already a flush out
    unseen = 50 - n_board
    if n_board == 4:
        return outs / unseen
    return 1.0 - (unseen - outs) * (unseen - 1 - outs) / (unseen * (unseen - 1))


@nb.njit(cache=True, nogil=True)
def draw_strength_all(
    board: npt.NDArray[np.int64],
    n_board: int,
    combo_cards: npt.NDArray[np.uint8],
    has_straight: npt.NDArray[np.bool_],
    out: Floats,
) -> None:
    """``draw`` of every combo into ``out`` (0 where blocked)."""
    used = np.int64(0)
    for i in range(n_board):
        used |= np.int64(1) << board[i]
    for combo in range(combo_cards.shape[0]):
        a, b = combo_cards[combo, 0], combo_cards[combo, 1]
        if (used >> a) & 1 or (used >> b) & 1:
            out[combo] = 0.0
        else:
            out[combo] = draw_strength_one(a, b, board, n_board, has_straight)


def postflop_strength(board: list[int]) -> tuple[Floats, Floats]:
    """(made, draw) of all 1,326 combos on a 3-5 card board, by the compiled kernels."""
    if len(board) not in (3, 4, 5):
        raise ValueError(f"postflop strength needs a 3-5 card board, got {len(board)} cards")
    cards = np.array(list(board) + [0] * (5 - len(board)), dtype=np.int64)
    made = np.zeros(N_COMBOS)
    draw = np.zeros(N_COMBOS)
    made_strength_all(cards, len(board), reference_ranges(), COMBO_CARDS, *tables(), made)
    draw_strength_all(cards, len(board), COMBO_CARDS, HAS_STRAIGHT, draw)
    return made, draw
