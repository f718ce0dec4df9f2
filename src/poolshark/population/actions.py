"""Action classes of the population action model: what a decision's action is, as one of
:data:`N_CLASSES` = 14 classes.

The classes are fold, check/call, a raise in one of eleven pot-fraction buckets around
:data:`SIZE_CENTERS`, and all-in. A raise's fraction is ``(raise_to - current bet) /
(pot + to_call)`` (the rows' ``raise_pot``, and what ``engine.actions.ActionSet`` means by a
pot fraction); a raise to the whole stack is all-in whatever its fraction.
:func:`legal_classes` marks the classes a decision allows.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.pool.context import MOVE_FOLD, MOVE_RAISE, Feature

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

SIZE_CENTERS = (0.25, 0.33, 0.5, 0.66, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 5.0)
"""Pot fractions the raise buckets are centred on (bucket edges: geometric midpoints)."""
N_SIZES = len(SIZE_CENTERS)
FOLD_CLASS, CALL_CLASS, FIRST_RAISE_CLASS = 0, 1, 2
ALL_IN_CLASS = FIRST_RAISE_CLASS + N_SIZES
N_CLASSES = ALL_IN_CLASS + 1
"""fold, check/call, eleven raise buckets, all-in."""
SIZE_EDGES: Floats = np.sqrt(np.array(SIZE_CENTERS[:-1]) * np.array(SIZE_CENTERS[1:]))
"""(N_SIZES - 1,) inner bucket edges: a fraction at or above edge i is in bucket i + 1."""
SIZE_EDGES.flags.writeable = False
CLASS_NAMES = (
    "fold",
    "check-call",
    *(f"raise {c:g}" for c in SIZE_CENTERS),
    "all-in",
)


def raise_fraction(raise_to: npt.ArrayLike, contexts: Floats) -> Floats:
    """``(raise_to - current bet) / (pot + to_call)`` of raises at the given contexts."""
    f = np.asarray(contexts, dtype=np.float64)
    pot = f[..., Feature.POT] + f[..., Feature.TO_CALL]
    result: Floats = (np.asarray(raise_to, dtype=np.float64) - f[..., Feature.CURRENT_BET]) / (
        np.maximum(pot, 1.0)
    )
    return result


def size_bucket(fractions: npt.ArrayLike) -> Int64s:
    """Raise bucket 0..N_SIZES-1 of pot fractions."""
    bucket: Int64s = np.searchsorted(SIZE_EDGES, np.asarray(fractions), side="right").astype(
        np.int64
    )
    return bucket


def action_classes(move: npt.ArrayLike, amount: npt.ArrayLike, contexts: Floats) -> Int64s:
    """Class of each action (move 0/1/2, a raise's total to) taken at its context. A fold
    with nothing to call (PokerStars allows it; ingested logs keep it, so that the player
    is out of the hand afterwards) is the check it amounts to, as the engine plays it."""
    moves = np.asarray(move, dtype=np.int64)
    amounts = np.asarray(amount, dtype=np.int64)
    f = np.asarray(contexts, dtype=np.float64)
    folding = (moves == MOVE_FOLD) & (f[:, Feature.TO_CALL] > 0)
    classes = np.where(folding, FOLD_CLASS, CALL_CLASS).astype(np.int64)
    raising = moves == MOVE_RAISE
    bucket = FIRST_RAISE_CLASS + size_bucket(raise_fraction(amounts, f))
    all_in = amounts >= f[:, Feature.MAX_RAISE_TO]
    classes[raising] = np.where(all_in, ALL_IN_CLASS, bucket)[raising]
    return classes


def legal_classes(contexts: Floats) -> Bools:
    """(N, N_CLASSES) the classes each decision allows: fold only when facing a bet, a raise
    bucket when some legal raise below all-in falls in it, all-in when raising is allowed."""
    f = np.asarray(contexts, dtype=np.float64)
    n = f.shape[0]
    legal = np.zeros((n, N_CLASSES), dtype=np.bool_)
    legal[:, FOLD_CLASS] = f[:, Feature.TO_CALL] > 0
    legal[:, CALL_CLASS] = True
    least, most = f[:, Feature.MIN_RAISE_TO], f[:, Feature.MAX_RAISE_TO]
    can_raise = most > 0
    legal[:, ALL_IN_CLASS] = can_raise
    sized = can_raise & (least < most)
    low = size_bucket(raise_fraction(least, f))
    high = size_bucket(raise_fraction(most - 1, f))
    buckets = np.arange(N_SIZES)[None, :]
    legal[:, FIRST_RAISE_CLASS:ALL_IN_CLASS] = (
        sized[:, None] & (buckets >= low[:, None]) & (buckets <= high[:, None])
    )
    return legal


@nb.njit(cache=True, nogil=True)
def class_of_action(move: int, amount: int, features: Floats, edges: Floats) -> int:
    """:func:`action_classes` of one action (compiled)."""
    if move == MOVE_FOLD and features[Feature.TO_CALL] > 0:
        return FOLD_CLASS
    if move != MOVE_RAISE:
        return CALL_CLASS
    if amount >= features[Feature.MAX_RAISE_TO]:
        return ALL_IN_CLASS
    pot = max(features[Feature.POT] + features[Feature.TO_CALL], 1.0)
    fraction = (amount - features[Feature.CURRENT_BET]) / pot
    bucket = 0
    while bucket < edges.size and fraction >= edges[bucket]:
        bucket += 1
    return FIRST_RAISE_CLASS + bucket
