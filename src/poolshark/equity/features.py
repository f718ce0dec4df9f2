"""Hand features from the limit hold'em literature: strength, E, E2, PPOT and NPOT.

All are measured against an opponent *range* (weighted combos, card removal applied) on a
flop, turn or river, by exact enumeration:

* ``strength``: the chance of being ahead right now (ties count half), the classic HS.
* ``e``: the mean, over the next card to come, of the hand's equity once it is seen;
  ``e2`` the mean of that equity squared. Each next card is weighted by its chance of
  coming given the range (card removal), which makes ``e`` exactly the current equity.
  E2 >= E^2, and the gap measures how much the next street will reveal (a draw that
  either hits or misses has a high E2 for its E).
* ``ppot``: of the deals where we are behind now (ties half), the chance to end ahead
  (ties half) after the remaining cards; ``npot`` the chance of falling behind from ahead.

The next street is one card on the flop and the turn. Potentials look to the river (two
cards from the flop). On the river nothing is to come: e = strength, e2 = strength^2 and
both potentials are 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

from poolshark.cards.card import N_CARDS, check_disjoint
from poolshark.cards.combos import COMBO_CARDS
from poolshark.cards.evaluator import evaluate_batch
from poolshark.cards.ranges import Range
from poolshark.equity.result import EquityError

AHEAD, TIED, BEHIND = 0, 1, 2


@dataclass(frozen=True)
class HandFeatures:
    """The features of one hand against one range on one board."""

    strength: float
    e: float
    e2: float
    ppot: float
    npot: float


def _outcome(ours: npt.NDArray[np.uint16], theirs: npt.NDArray[np.uint16]) -> npt.NDArray[np.int8]:
    """AHEAD / TIED / BEHIND per element."""
    return np.where(ours > theirs, AHEAD, np.where(ours == theirs, TIED, BEHIND)).astype(np.int8)


def hand_features(hole: list[int], board: list[int], opponent: Range) -> HandFeatures:
    """E, E2, PPOT, NPOT and current strength of ``hole`` on a 3-5 card ``board``."""
    if len(hole) != 2:
        raise EquityError(f"hole cards are 2 cards, got {len(hole)}")
    if len(board) not in (3, 4, 5):
        raise EquityError(f"features need a flop, turn or river board, got {len(board)} cards")
    check_disjoint(hole, board)
    live = opponent.without([*hole, *board])
    combos = live.combos()
    if combos.size == 0:
        raise EquityError("the opponent's range has no combo left after card removal")
    weights = live.weights[combos]
    villain = COMBO_CARDS[combos].astype(np.int64)  # (C, 2)

    known = np.array([*hole, *board], dtype=np.int64)
    now_ours = evaluate_batch(np.array([known]))[0]
    now_theirs = evaluate_batch(np.concatenate([np.tile(board, (len(combos), 1)), villain], 1))
    now = _outcome(np.full(len(combos), now_ours), now_theirs)
    strength = float(weights @ _share(now) / weights.sum())
    if len(board) == 5:
        return HandFeatures(strength, strength, strength**2, 0.0, 0.0)

    unseen = np.setdiff1d(np.arange(N_CARDS), known)
    runouts = np.array(list(combinations(unseen.tolist(), 5 - len(board))), dtype=np.int64)
    # valid[c, r]: opponent combo c does not use a card of runout r.
    valid = ~(villain[:, :, None, None] == runouts[None, None, :, :]).any(axis=(1, 3))
    final_ours = evaluate_batch(np.concatenate([np.tile(known, (len(runouts), 1)), runouts], 1))
    c_idx, r_idx = np.nonzero(valid)
    theirs_cards = np.concatenate(
        [np.tile(board, (len(c_idx), 1)), villain[c_idx], runouts[r_idx]], axis=1
    )
    final = _outcome(final_ours[r_idx], evaluate_batch(theirs_cards))
    w = weights[c_idx]

    # Hand potential: a 3x3 table of weighted counts, now-outcome x final-outcome.
    table = np.zeros((3, 3))
    np.add.at(table, (now[c_idx], final), w)
    row = table.sum(axis=1)
    behind_mass = row[BEHIND] + row[TIED] / 2
    ahead_mass = row[AHEAD] + row[TIED] / 2
    ppot_num = table[BEHIND, AHEAD] + table[BEHIND, TIED] / 2 + table[TIED, AHEAD] / 2
    npot_num = table[AHEAD, BEHIND] + table[AHEAD, TIED] / 2 + table[TIED, BEHIND] / 2
    ppot = ppot_num / behind_mass if behind_mass > 0 else 0.0
    npot = npot_num / ahead_mass if ahead_mass > 0 else 0.0

    # E and E2 over the next card: the equity once it is seen, averaged (and squared).
    # A runout is an unordered set of cards, so each of its cards is in turn the next one.
    score = w * _share(final)
    seen = np.zeros(N_CARDS)
    mass = np.zeros(N_CARDS)
    for position in range(runouts.shape[1]):
        next_card = runouts[r_idx, position]
        seen += np.bincount(next_card, weights=score, minlength=N_CARDS)
        mass += np.bincount(next_card, weights=w, minlength=N_CARDS)
    seen, mass = seen[unseen], mass[unseen]
    equity_after = np.divide(seen, mass, out=np.zeros(seen.shape), where=mass > 0)
    chance = mass / mass.sum()  # a card the range often holds is less likely to come
    e = float(chance @ equity_after)
    e2 = float(chance @ equity_after**2)
    return HandFeatures(strength, e, e2, float(ppot), float(npot))


def _share(outcome: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
    """Pot share of an outcome: 1 ahead, 1/2 tied, 0 behind."""
    return np.array([1.0, 0.5, 0.0])[outcome]
