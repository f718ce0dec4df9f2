"""Imputation (:func:`impute_hole_cards`): players whose cards were never shown get a
combo drawn from a range source's posterior for them at the end of the hand (after all of
their actions), with every known card blocked; the hidden players of one hand are drawn
together and redrawn while two of them share a card (the two-stage rejection of seed 003,
section 6.1).

Cards are missing not at random: a player who reached the showdown and did not show
mucked, and a site lets only a hand that wins nothing muck. So the draw for such a seat is
conditioned on that evidence too (:func:`muck_bounds`): its hand loses to the best hand
shown at that showdown.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from poolshark.cards.combos import COMBO_CARDS
from poolshark.cards.evaluator import evaluate_batch
from poolshark.pool.context import MOVE_FOLD, N_FEATURES, Feature
from poolshark.pool.ranges import RangeSource
from poolshark.population.range_view import source_ranges
from poolshark.population.states import VISIBLE, DecisionStates, HandLogs

Floats = npt.NDArray[np.float64]
Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


@dataclass
class Imputation:
    """Every seat's hole cards after imputation: ``holes`` (H, S, 2), ``imputed`` (H, S)
    which were drawn, ``redraws`` joint draws rejected for a shared card, ``sequential``
    hands that fell back to drawing one seat at a time, ``mucked`` seats drawn from hands
    that lose to the showdown's best shown hand, and of those ``muck_fallbacks`` whose
    source range had no losing hand (drawn from the losing hands the deal allows)."""

    holes: Int64s
    imputed: Bools
    redraws: int = 0
    sequential: int = 0
    mucked: int = 0
    muck_fallbacks: int = 0


NO_BOUND = -1
"""A :func:`muck_bounds` entry for a seat whose cards need not lose to anything."""


def folded_seats(hands: HandLogs) -> Bools:
    """(H, S) the seats that folded somewhere in their hand's log."""
    logged = np.arange(hands.logs.move.shape[1])[None, :] < hands.logs.length[:, None]
    folds = logged & (hands.logs.move == MOVE_FOLD)
    out = np.zeros((len(hands.button), hands.config.seats), dtype=np.bool_)
    row, column = np.nonzero(folds)
    out[row, hands.logs.seat[row, column]] = True
    return out


def muck_bounds(hands: HandLogs, known: Int64s, hidden: Bools) -> Int64s:
    """(H, S) for each ``hidden`` seat that reached a showdown without showing: the value
    (:func:`~poolshark.cards.evaluator.evaluate_batch`) of the best hand shown there, which
    its cards must lose to; :data:`NO_BOUND` for every other seat.

    A showdown, here: the five board cards were dealt, and of the seats that never folded
    one showed its cards and another did not. The main pot's winner holds the best hand at the
    showdown and must show it to win; a seat that wins or ties any pot must show too, so a
    hidden one holds a strictly worse hand than the best one shown. (With side pots it also
    loses its own side pots, which is not used: the bound is the main pot's.)
    """
    bounds = np.full(hidden.shape, NO_BOUND, dtype=np.int64)
    live = ~folded_seats(hands)
    shown = live & (known[:, :, 0] >= 0)
    complete = (hands.boards >= 0).all(axis=1)
    hand = np.flatnonzero(complete & shown.any(axis=1) & (live & hidden).any(axis=1))
    if hand.size == 0:
        return bounds
    shown_hand, shown_seat = np.nonzero(shown[hand])
    cards = np.concatenate(
        [hands.boards[hand[shown_hand]], known[hand[shown_hand], shown_seat]], axis=1
    )
    best = np.zeros(hand.size, dtype=np.int64)
    np.maximum.at(best, shown_hand, evaluate_batch(cards).astype(np.int64))
    mucked = live[hand] & hidden[hand]
    bounds[hand] = np.where(mucked, best[:, None], NO_BOUND)
    return bounds


def losing_combos(board: Int64s, bound: int) -> Bools:
    """(1326,) the combos whose hand on the five-card ``board`` is worth less than
    ``bound`` (combos that share a board card come out arbitrary: block them)."""
    cards = np.concatenate(
        [np.broadcast_to(board, (len(COMBO_CARDS), 5)), COMBO_CARDS.astype(np.int64)], axis=1
    )
    losing: Bools = evaluate_batch(cards) < bound
    return losing


def end_of_hand_ranges(
    hands: HandLogs, hand: Int64s, seat: Int64s, source: RangeSource
) -> Float32s:
    """(Q, 1326) the range of ``seat[q]`` after every action of hand ``hand[q]``, the whole
    known board shown (what one combo must explain: all of the player's decisions)."""
    known = (hands.boards[hand] >= 0).sum(axis=1)
    street = np.searchsorted(np.array(VISIBLE), known, side="right") - 1
    contexts = np.zeros((len(hand), N_FEATURES))
    contexts[:, Feature.STREET] = street
    states = DecisionStates(
        hands,
        hand.astype(np.int64),
        hands.logs.length[hand].astype(np.int64),
        seat.astype(np.int64),
        np.full((len(hand), 2), -1, dtype=np.int64),
        contexts,
    )
    return source_ranges(source, states, np.arange(len(hand)), seat.astype(np.int64))


def impute_hole_cards(
    hands: HandLogs,
    known: Int64s,
    needed: Bools,
    source: RangeSource,
    rng: np.random.Generator,
    *,
    max_tries: int = 100,
    muck_retries: int = 3,
) -> Imputation:
    """Draw the hidden cards of every seat in ``needed`` (H, S) whose ``known`` (H, S, 2)
    cards are -1, from ``source``'s range for it at the end of the hand.

    Every combo holding a known card (the board, cards shown by anyone) is removed from each
    range first. A hand's hidden seats are drawn together, and the whole draw is repeated
    while two seats share a card (at most ``max_tries`` times; then the seats are drawn one
    after another, each without the cards already drawn), so the imputed cards are always
    a possible deal.

    A hidden seat that reached the showdown mucked, so it draws only hands that lose to the
    best one shown there (:func:`muck_bounds`). Where a sampled range (the model
    posterior's postflop candidates) holds no such hand, the source is asked again, up to
    ``muck_retries`` times, and then the seat draws from every losing hand the deal allows.
    """
    holes = np.array(known, dtype=np.int64, copy=True)
    hidden = needed & (holes[:, :, 0] < 0)
    hand, seat = np.nonzero(hidden)
    result = Imputation(holes, hidden.copy())
    if hand.size == 0:
        return result
    ranges = end_of_hand_ranges(hands, hand, seat, source).astype(np.float64)
    bounds = muck_bounds(hands, holes, hidden)[hand, seat]
    condition_on_mucks(hands, holes, hand, seat, bounds, ranges, source, muck_retries, result)
    starts = np.flatnonzero(np.r_[True, hand[1:] != hand[:-1]])
    stops = np.r_[starts[1:], hand.size]
    for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
        live = live_combos(hands, holes, int(hand[start]))
        weights = ranges[start:stop] * live
        totals = weights.sum(axis=1)
        if np.any(~(totals > 0)):
            weights = np.where(totals[:, None] > 0, weights, live)
        combos = _joint_draw(weights, rng, max_tries)
        if combos is None:
            result.sequential += 1
            combos = _sequential_draw(weights, rng)
        else:
            result.redraws += int(combos[-1])
            combos = combos[:-1]
        holes[int(hand[start]), seat[start:stop]] = COMBO_CARDS[combos].astype(np.int64)
    return result


def live_combos(hands: HandLogs, holes: Int64s, hand: int) -> Bools:
    """(1326,) the combos of hand ``hand`` that no known card blocks: the board shown and
    the hole cards known in ``holes`` (H, S, 2; -1 for hidden)."""
    dead = np.zeros(52, dtype=np.bool_)
    board = hands.boards[hand]
    dead[board[board >= 0]] = True
    dead[holes[hand][holes[hand, :, 0] >= 0].ravel()] = True
    live: Bools = ~(dead[COMBO_CARDS[:, 0]] | dead[COMBO_CARDS[:, 1]])
    return live


def condition_on_mucks(
    hands: HandLogs,
    holes: Int64s,
    hand: Int64s,
    seat: Int64s,
    bounds: Int64s,
    ranges: Floats,
    source: RangeSource,
    retries: int,
    result: Imputation,
) -> None:
    """Zero, in place, every combo of ``ranges`` (one row per hidden seat ``hand``,
    ``seat``) that would not lose to the row's muck bound, asking ``source`` again for rows
    left with nothing (a sampled range) and falling back to the deal's losing hands."""
    rows = np.flatnonzero(bounds != NO_BOUND)
    result.mucked = int(rows.size)
    if rows.size == 0:
        return
    allowed = np.zeros((rows.size, len(COMBO_CARDS)), dtype=np.bool_)
    for i, row in enumerate(rows.tolist()):
        h = int(hand[row])
        allowed[i] = live_combos(hands, holes, h) & losing_combos(hands.boards[h], int(bounds[row]))
    ranges[rows] *= allowed
    empty = ~(ranges[rows].sum(axis=1) > 0)
    for _ in range(retries):
        if not empty.any():
            break
        again = rows[empty]
        fresh = end_of_hand_ranges(hands, hand[again], seat[again], source).astype(np.float64)
        ranges[again] = fresh * allowed[empty]
        empty = ~(ranges[rows].sum(axis=1) > 0)
    result.muck_fallbacks = int(empty.sum())
    ranges[rows[empty]] = allowed[empty]


def _draw(weights: Floats, rng: np.random.Generator) -> Int64s:
    """One combo per row of ``weights`` (non-negative, each row with some mass)."""
    cumulative = np.cumsum(weights, axis=1)
    target = rng.random(weights.shape[0]) * cumulative[:, -1]
    chosen = (cumulative <= target[:, None]).sum(axis=1)
    combos: Int64s = np.minimum(chosen, weights.shape[1] - 1).astype(np.int64)
    return combos


def _joint_draw(weights: Floats, rng: np.random.Generator, max_tries: int) -> Int64s | None:
    """Independent draws for all rows, repeated until no card is used twice; the combos
    followed by the number of rejected draws, or None after ``max_tries`` rejections."""
    for attempt in range(max_tries + 1):
        combos = _draw(weights, rng)
        cards = COMBO_CARDS[combos].ravel()
        if np.unique(cards).size == cards.size:
            return np.append(combos, attempt)
    return None


def _sequential_draw(weights: Floats, rng: np.random.Generator) -> Int64s:
    """Rows drawn one after another, each without the cards drawn before it."""
    dead = np.zeros(52, dtype=np.bool_)
    combos = np.zeros(weights.shape[0], dtype=np.int64)
    for row in range(weights.shape[0]):
        blocked = dead[COMBO_CARDS[:, 0]] | dead[COMBO_CARDS[:, 1]]
        row_weights = np.where(blocked, 0.0, weights[row])
        if not row_weights.sum() > 0:
            row_weights = (~blocked).astype(np.float64)
        combos[row] = _draw(row_weights[None, :], rng)[0]
        dead[COMBO_CARDS[combos[row]]] = True
    return combos
