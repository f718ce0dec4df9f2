"""The 1,326 two-card combos in one canonical order, and the 169 preflop classes.

Canonical combo order (used by every array of 1,326 entries in the project): the pairs of
card indices ``(a, b)`` with ``a < b``, sorted by ``a`` then ``b``. So combo 0 is the cards
(2c, 2d), combo 1 is (2c, 2h) and combo 1325 is (Ah, As); ``combo_index(a, b)`` is
closed-form. Names put the higher card first: combo 0 is written ``2d2c``.

Preflop classes are the cells of the usual 13x13 chart, row and column ranks from ace down
to deuce: pairs on the diagonal, suited hands above it (row < column) and offsuit hands
below. Class ``13 * row + column``: 0 is ``AA``, 1 is ``AKs``, 13 is ``AKo``, 168 is ``22``.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from poolshark.cards.card import (
    N_CARDS,
    RANK_CHARS,
    CardError,
    format_card,
    parse_cards,
)

N_COMBOS = 1326
N_CLASSES = 169


def combo_index(a: int, b: int) -> int:
    """Index of the combo of two distinct cards (in either order) in the canonical order."""
    if a == b:
        raise CardError(f"a combo needs two different cards, got {format_card(a)} twice")
    format_card(a), format_card(b)  # range checks
    lo, hi = (a, b) if a < b else (b, a)
    return lo * (2 * N_CARDS - 1 - lo) // 2 + (hi - lo - 1)


def _build_combo_cards() -> npt.NDArray[np.uint8]:
    lo, hi = np.triu_indices(N_CARDS, k=1)
    return np.stack([lo, hi], axis=1).astype(np.uint8)


COMBO_CARDS: npt.NDArray[np.uint8] = _build_combo_cards()
"""(1326, 2) card indices of each combo, lower card first."""
COMBO_CARDS.flags.writeable = False

COMBO_INDEX: npt.NDArray[np.int16] = np.full((N_CARDS, N_CARDS), -1, dtype=np.int16)
"""(52, 52) combo index of a card pair, either order; -1 on the diagonal."""
COMBO_INDEX[COMBO_CARDS[:, 0], COMBO_CARDS[:, 1]] = np.arange(N_COMBOS)
COMBO_INDEX[COMBO_CARDS[:, 1], COMBO_CARDS[:, 0]] = np.arange(N_COMBOS)
COMBO_INDEX.flags.writeable = False


def combo_name(combo: int) -> str:
    """Conventional name of a combo, higher card first: ``"AhKh"``."""
    _check_combo(combo)
    lo, hi = COMBO_CARDS[combo]
    return format_card(int(hi)) + format_card(int(lo))


def parse_combo(text: str) -> int:
    """Combo index of two hole cards such as ``"AhKd"``; errors name the bad token."""
    cards = parse_cards(text)
    if len(cards) != 2:
        raise CardError(f"bad hole cards {text!r}: need exactly 2 cards, got {len(cards)}")
    return combo_index(cards[0], cards[1])


def class_name(row: int, column: int) -> str:
    """Name of the chart cell at (row, column): ``"AA"``, ``"AKs"`` or ``"AKo"``."""
    high, low = RANK_CHARS[12 - min(row, column)], RANK_CHARS[12 - max(row, column)]
    if row == column:
        return high + low
    return high + low + ("s" if row < column else "o")


CLASS_NAMES: tuple[str, ...] = tuple(class_name(r, c) for r in range(13) for c in range(13))
"""The 169 class names in chart order (row-major, ace first)."""


def _class_of(a: int, b: int) -> int:
    ra, rb = 12 - (a >> 2), 12 - (b >> 2)  # chart rows count down from the ace
    hi, lo = min(ra, rb), max(ra, rb)
    if (a & 3) == (b & 3):
        return 13 * hi + lo  # suited: above the diagonal
    return 13 * lo + hi  # pair (hi == lo) or offsuit: on or below it


COMBO_CLASS: npt.NDArray[np.int16] = np.array(
    [_class_of(int(a), int(b)) for a, b in COMBO_CARDS], dtype=np.int16
)
"""(1326,) preflop class of each combo."""
COMBO_CLASS.flags.writeable = False

CLASS_SIZE: npt.NDArray[np.int16] = np.bincount(COMBO_CLASS, minlength=N_CLASSES).astype(np.int16)
"""(169,) number of combos in each class: 6 pairs, 4 suited, 12 offsuit."""
CLASS_SIZE.flags.writeable = False


def class_index(name: str) -> int:
    """Class index of ``"AKs"``, ``"T9o"`` or ``"22"`` (either rank order, any case)."""
    text = name.strip()
    if len(text) in (2, 3):
        a, b = RANK_CHARS.find(text[0].upper()), RANK_CHARS.find(text[1].upper())
        suffix = text[2:].lower()
        if a >= 0 and b >= 0:
            hi_row, lo_row = 12 - max(a, b), 12 - min(a, b)
            if a == b and not suffix:
                return 13 * hi_row + hi_row
            if a != b and suffix == "s":
                return 13 * hi_row + lo_row
            if a != b and suffix == "o":
                return 13 * lo_row + hi_row
    raise CardError(f"bad hand class {name!r}: expected e.g. 'AA', 'AKs' or 'T9o'")


def _check_combo(combo: int) -> None:
    if not 0 <= combo < N_COMBOS:
        raise CardError(f"bad combo index {combo}: must be in 0..{N_COMBOS - 1}")


@cache
def class_combos(cls: int) -> tuple[int, ...]:
    """Combo indices of one preflop class, in canonical order."""
    if not 0 <= cls < N_CLASSES:
        raise CardError(f"bad class index {cls}: must be in 0..{N_CLASSES - 1}")
    return tuple(int(i) for i in np.flatnonzero(cls == COMBO_CLASS))


def combos_sharing_cards(cards: list[int] | tuple[int, ...]) -> npt.NDArray[np.bool_]:
    """(1326,) mask of the combos that use any of the given cards (dead for a player)."""
    dead = np.zeros(N_CARDS, dtype=np.bool_)
    dead[parse_cards(cards)] = True
    return dead[COMBO_CARDS[:, 0]] | dead[COMBO_CARDS[:, 1]]


@cache
def conflict_matrix() -> npt.NDArray[np.bool_]:
    """(1326, 1326) True where two combos share a card (they cannot be dealt together)."""
    onehot = np.zeros((N_COMBOS, N_CARDS), dtype=np.uint8)
    onehot[np.arange(N_COMBOS), COMBO_CARDS[:, 0]] = 1
    onehot[np.arange(N_COMBOS), COMBO_CARDS[:, 1]] = 1
    matrix = (onehot.astype(np.int32) @ onehot.T.astype(np.int32)) > 0
    matrix.flags.writeable = False
    return matrix
