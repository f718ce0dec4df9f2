"""Rank and suit arithmetic under the card features: the ten straight windows, straight
outs and draw hands per board, suit counts, and the rank-only "higher hands possible"
counts over the 91 hole-rank pairs (cached per board)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from poolshark.cards.hand_value import Category, HandKey, best_counts_key
from poolshark.limitnet.card_schema import CardFeature

Floats = npt.NDArray[np.float64]

WINDOWS = tuple(
    frozenset((top - i) % 13 if top - i >= 0 else 12 for i in range(5)) for top in range(3, 13)
)
"""The ten straight windows by top rank 3 (five-high, the ace low) .. 12 (ace-high)."""

RANK_PAIRS = tuple((a, b) for a in range(13) for b in range(a, 13))
"""The 91 hole-rank pairs (a <= b; a == b is a pocket pair)."""


def rank_value(rank: int) -> float:
    """A rank as a feature: ``(rank + 1) / 13`` (a deuce 1/13, an ace 1; never 0)."""
    return (rank + 1) / 13


class FeatureValues:
    """Feature values by name for one list; unknown names are a programming error."""

    def __init__(self, features: tuple[CardFeature, ...]) -> None:
        self.index = feature_index(features)
        self.values = np.zeros(len(features))

    def __setitem__(self, name: str, value: float) -> None:
        self.values[self.index[name]] = value


_INDEXES: dict[int, dict[str, int]] = {}


def feature_index(features: tuple[CardFeature, ...]) -> dict[str, int]:
    """Name -> position in ``features`` (cached per list)."""
    key = id(features)
    if key not in _INDEXES:
        _INDEXES[key] = {f.name: i for i, f in enumerate(features)}
    return _INDEXES[key]


# -- straights on ranks ---------------------------------------------------------------------


def window_top(window: frozenset[int]) -> int:
    """Top rank of a straight window (the wheel tops at 3, the five)."""
    return 3 if 12 in window and 0 in window else max(window)


@lru_cache(maxsize=1 << 18)
def best_straight(board: frozenset[int], hole: frozenset[int]) -> tuple[int, int]:
    """(top rank, hole ranks needed) of the best straight using at least one hole rank;
    (-1, 0) when there is none."""
    best = (-1, 0)
    for window in WINDOWS:
        missing = window - board
        if missing and missing <= hole:
            best = max(best, (window_top(window), len(missing)))
    return best


@lru_cache(maxsize=1 << 18)
def straight_outs(board: frozenset[int], hole: frozenset[int]) -> frozenset[int]:
    """Ranks whose arrival gives a better straight using a hole rank than now."""
    now = best_straight(board, hole)[0]
    return frozenset(
        r for r in range(13) if r not in board and best_straight(board | {r}, hole)[0] > now
    )


def gaps(board: frozenset[int], missing: int) -> int:
    """Straight windows short of exactly ``missing`` ranks on ``board``."""
    return sum(len(w - board) == missing for w in WINDOWS)


@lru_cache(maxsize=4096)
def draw_hands(board: frozenset[int]) -> tuple[frozenset[tuple[int, int]], ...]:
    """(single, double) draw hands on ``board``: hole-rank pairs with no straight and one,
    or two or more, ranks to one."""
    single, double = set(), set()
    for a, b in RANK_PAIRS:
        hole = frozenset((a, b))
        if best_straight(board, hole)[0] >= 0:
            continue
        outs = len(straight_outs(board, hole))
        if outs == 1:
            single.add((a, b))
        elif outs >= 2:
            double.add((a, b))
    return frozenset(single), frozenset(double)


def sharing_hands(
    hands: frozenset[tuple[int, int]],
    board: frozenset[int],
    ranks: frozenset[int],
    mine: tuple[int, int],
) -> int:
    """Hands (other than mine) whose straight outs on ``board`` meet ``ranks``."""
    return sum(
        1 for hand in hands if hand != mine and straight_outs(board, frozenset(hand)) & ranks
    )


def higher_straights(board: frozenset[int], top: int, missing: int) -> int:
    """Windows above ``top`` short of exactly ``missing`` ranks on ``board``."""
    return sum(len(w - board) == missing and window_top(w) > top for w in WINDOWS)


# -- suits ----------------------------------------------------------------------------------


def suit_counts(cards: Sequence[int]) -> list[int]:
    """Cards of each suit."""
    counts = [0] * 4
    for c in cards:
        counts[c % 4] += 1
    return counts


def higher_in_suit(suit: int, hole: Sequence[int], board: Sequence[int]) -> int:
    """Ranks of ``suit`` above my best hole card of it, on neither the board nor my hand."""
    mine = [c // 4 for c in hole if c % 4 == suit]
    seen = {c // 4 for c in (*hole, *board) if c % 4 == suit}
    return sum(r not in seen for r in range(max(mine) + 1, 13))


def in_suit(hole: Sequence[int], suit: int) -> int:
    """Hole cards of ``suit``."""
    return sum(c % 4 == suit for c in hole)


# -- "higher hands possible" on ranks ----------------------------------------------------------


def rank_counts(ranks: Sequence[int]) -> list[int]:
    """Cards of each rank (13 counts, deuce first)."""
    counts = [0] * 13
    for r in ranks:
        counts[r] += 1
    return counts


def rank_key(ranks: Sequence[int]) -> HandKey:
    """The best hand key of 5 to 7 ranks, flushes ignored."""
    return best_counts_key(rank_counts(ranks))


def better_pair_hands(
    board: Sequence[int], hole: Sequence[int], category: Category
) -> tuple[int, int]:
    """(pocket pairs, unpaired rank pairs) an opponent could hold (the cards left allow it)
    that make a ``category`` hand on ``board`` beating my rank-only hand (no flushes)."""
    return _better_pair_hands(tuple(sorted(board)), tuple(sorted(hole)), int(category))


@lru_cache(maxsize=65536)
def _better_pair_hands(
    board: tuple[int, ...], hole: tuple[int, int], category: int
) -> tuple[int, int]:
    mine = rank_key((*board, *hole))
    left = [4 - c for c in rank_counts((*board, *hole))]
    pocket = unpaired = 0
    for a, b in RANK_PAIRS:
        if (a == b and left[a] < 2) or left[a] < 1 or left[b] < 1:
            continue
        theirs = rank_key((*board, a, b))
        if theirs[0] == category and theirs > mine:
            if a == b:
                pocket += 1
            else:
                unpaired += 1
    return pocket, unpaired


def one_gap_outs(board: frozenset[int]) -> frozenset[int]:
    """Ranks whose arrival leaves a straight window one rank short on the board."""
    return frozenset(r for r in range(13) if r not in board and gaps(board | {r}, 1) > 0)


def better_pair_hands_cache_clear() -> None:
    """Empty :func:`better_pair_hands`' cache."""
    _better_pair_hands.cache_clear()
