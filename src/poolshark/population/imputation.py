"""Imputation (:func:`impute_hole_cards`): players whose cards were never shown get a
combo drawn from a range source's posterior for them at the end of the hand (after all of
their actions), with every known card blocked; the hidden players of one hand are drawn
together and redrawn while two of them share a card (the two-stage rejection of seed 003,
section 6.1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from poolshark.cards.combos import COMBO_CARDS
from poolshark.pool.context import N_FEATURES, Feature
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
    hands that fell back to drawing one seat at a time."""

    holes: Int64s
    imputed: Bools
    redraws: int = 0
    sequential: int = 0


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
) -> Imputation:
    """Draw the hidden cards of every seat in ``needed`` (H, S) whose ``known`` (H, S, 2)
    cards are -1, from ``source``'s range for it at the end of the hand.

    Every combo holding a known card (the board, cards shown by anyone) is removed from each
    range first. A hand's hidden seats are drawn together, and the whole draw is repeated
    while two seats share a card (at most ``max_tries`` times; then the seats are drawn one
    after another, each without the cards already drawn), so the imputed cards are always
    a possible deal.
    """
    holes = np.array(known, dtype=np.int64, copy=True)
    hidden = needed & (holes[:, :, 0] < 0)
    hand, seat = np.nonzero(hidden)
    result = Imputation(holes, hidden.copy())
    if hand.size == 0:
        return result
    ranges = end_of_hand_ranges(hands, hand, seat, source).astype(np.float64)
    starts = np.flatnonzero(np.r_[True, hand[1:] != hand[:-1]])
    stops = np.r_[starts[1:], hand.size]
    first_card = COMBO_CARDS[:, 0].astype(np.int64)
    second_card = COMBO_CARDS[:, 1].astype(np.int64)
    for start, stop in zip(starts.tolist(), stops.tolist(), strict=True):
        h = int(hand[start])
        dead = np.zeros(52, dtype=np.bool_)
        board = hands.boards[h]
        dead[board[board >= 0]] = True
        shown = holes[h][holes[h, :, 0] >= 0]
        dead[shown.ravel()] = True
        weights = ranges[start:stop] * ~(dead[first_card] | dead[second_card])
        totals = weights.sum(axis=1)
        if np.any(~(totals > 0)):
            weights = np.where(
                totals[:, None] > 0, weights, ~(dead[first_card] | dead[second_card])
            )
        combos = _joint_draw(weights, rng, max_tries)
        if combos is None:
            result.sequential += 1
            combos = _sequential_draw(weights, rng)
        else:
            result.redraws += int(combos[-1])
            combos = combos[:-1]
        holes[h, seat[start:stop]] = COMBO_CARDS[combos].astype(np.int64)
    return result


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
