"""Suit isomorphism: deals that differ only by renaming suits play exactly alike.

The 24 permutations of the four suits act on cards (same rank, renamed suit) and on combos.
:func:`canonical_key` picks one representative per class of deals that are equal up to such
a renaming, so equity tables and matchup lists can be computed once per class and shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

import numpy as np
import numpy.typing as npt

from poolshark.cards.card import N_CARDS, N_SUITS, check_disjoint, parse_cards
from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX

N_PERMUTATIONS = 24

SUIT_PERMUTATIONS: npt.NDArray[np.int8] = np.array(
    list(permutations(range(N_SUITS))), dtype=np.int8
)
"""(24, 4) row p maps suit s to ``SUIT_PERMUTATIONS[p, s]``; row 0 is the identity, rows are
in lexicographic order."""
SUIT_PERMUTATIONS.flags.writeable = False

_CARDS = np.arange(N_CARDS)
CARD_PERMUTATIONS: npt.NDArray[np.uint8] = (
    (_CARDS & ~3)[None, :] + SUIT_PERMUTATIONS[:, _CARDS & 3]
).astype(np.uint8)
"""(24, 52) card c under permutation p: the card of the same rank in the permuted suit."""
CARD_PERMUTATIONS.flags.writeable = False

COMBO_PERMUTATIONS: npt.NDArray[np.int16] = COMBO_INDEX[
    CARD_PERMUTATIONS[:, COMBO_CARDS[:, 0]], CARD_PERMUTATIONS[:, COMBO_CARDS[:, 1]]
].astype(np.int16)
"""(24, 1326) combo k under permutation p (via ``COMBO_INDEX``)."""
COMBO_PERMUTATIONS.flags.writeable = False

_GROUP_SHIFT = 64
"""Offset added per group so one sort of a whole row keeps each group in its own block."""


def canonical_key(groups: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    """Smallest (each group sorted) tuple over the 24 suit renamings of disjoint card groups.

    Each group is a set of cards (its order is ignored) and the order of the groups is kept,
    e.g. ``[hero hole, villain hole, board]``. Two deals get the same key exactly when one
    is the other with suits renamed. Raises :class:`CardError` on a card dealt twice.
    """
    parsed = [parse_cards(group) for group in groups]
    check_disjoint(*parsed)
    cards = [card for group in parsed for card in group]
    if not cards:
        return tuple(() for _ in parsed)
    sizes = [len(group) for group in parsed]
    offsets = np.repeat(np.arange(len(parsed)) * _GROUP_SHIFT, sizes)
    rows = np.sort(CARD_PERMUTATIONS[:, cards] + offsets, axis=1)
    best = rows[np.lexsort(rows.T[::-1])[0]] - offsets
    key: list[tuple[int, ...]] = []
    start = 0
    for size in sizes:
        key.append(tuple(best[start : start + size].tolist()))
        start += size
    return tuple(key)


def canonical_form(
    hole: Sequence[int], board: Sequence[int] = ()
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Canonical (sorted hole, sorted board) of a deal; hole and board are each a set.

    The lexicographically smallest pair over all 24 suit renamings, so deals equal up to
    renaming suits share it. Raises :class:`CardError` on a card dealt twice.
    """
    hole_key, board_key = canonical_key([hole, board])
    return hole_key, board_key
