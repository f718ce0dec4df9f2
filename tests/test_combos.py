"""Combos and preflop classes: canonical order, closed-form index, class table, conflicts."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from poolshark.cards.card import N_CARDS, CardError, parse_card, rank_of, suit_of
from poolshark.cards.combos import (
    CLASS_NAMES,
    CLASS_SIZE,
    COMBO_CARDS,
    COMBO_CLASS,
    COMBO_INDEX,
    N_CLASSES,
    N_COMBOS,
    class_combos,
    class_index,
    combo_index,
    combo_name,
    combos_sharing_cards,
    conflict_matrix,
    parse_combo,
)


def test_canonical_order() -> None:
    """1326 combos, sorted by lower card then higher card, as combos.py documents."""
    pairs = list(combinations(range(N_CARDS), 2))
    assert len(pairs) == N_COMBOS == 1326
    assert [tuple(row) for row in COMBO_CARDS.tolist()] == pairs
    assert combo_name(0) == "2d2c"
    assert parse_combo("2c2d") == 0
    assert parse_combo("2c2h") == 1
    assert parse_combo("AhAs") == N_COMBOS - 1


def test_closed_form_index_matches_table() -> None:
    """combo_index agrees with COMBO_INDEX for every ordered pair of distinct cards."""
    for a in range(N_CARDS):
        for b in range(N_CARDS):
            if a == b:
                assert COMBO_INDEX[a, b] == -1
                with pytest.raises(CardError):
                    combo_index(a, b)
            else:
                assert combo_index(a, b) == COMBO_INDEX[a, b] == combo_index(b, a)
    assert np.array_equal(COMBO_INDEX[COMBO_CARDS[:, 0], COMBO_CARDS[:, 1]], np.arange(N_COMBOS))


def test_combo_names_round_trip() -> None:
    """Every combo's name parses back to it, higher card first."""
    for combo in range(N_COMBOS):
        name = combo_name(combo)
        assert parse_combo(name) == combo
        assert parse_card(name[:2]) > parse_card(name[2:])
    with pytest.raises(CardError, match="AhKhQh"):
        parse_combo("AhKhQh")
    with pytest.raises(CardError, match="'Ah'"):
        parse_combo("AhAh")


def test_class_table() -> None:
    """169 classes of 6 (pairs), 4 (suited) or 12 (offsuit) combos summing to 1326."""
    assert N_CLASSES == len(CLASS_NAMES) == len(set(CLASS_NAMES)) == 169
    assert CLASS_NAMES[0] == "AA"
    assert CLASS_NAMES[1] == "AKs"
    assert CLASS_NAMES[13] == "AKo"
    assert CLASS_NAMES[168] == "22"
    sizes = {6: 0, 4: 0, 12: 0}
    for cls, name in enumerate(CLASS_NAMES):
        size = int(CLASS_SIZE[cls])
        expected = 6 if len(name) == 2 else 4 if name.endswith("s") else 12
        assert size == expected == len(class_combos(cls))
        sizes[size] += 1
        assert class_index(name) == cls
    assert sizes == {6: 13, 4: 78, 12: 78}
    assert int(CLASS_SIZE.sum()) == N_COMBOS


def test_combo_class_matches_cards() -> None:
    """Each combo's class has its ranks and suitedness."""
    for combo, (a, b) in enumerate(COMBO_CARDS.tolist()):
        name = CLASS_NAMES[COMBO_CLASS[combo]]
        high, low = "23456789TJQKA"[rank_of(b)], "23456789TJQKA"[rank_of(a)]
        if rank_of(a) == rank_of(b):
            assert name == high + low
        else:
            assert name == high + low + ("s" if suit_of(a) == suit_of(b) else "o")
        assert combo in class_combos(int(COMBO_CLASS[combo]))


def test_class_index_either_order_and_case() -> None:
    """Rank order and case do not matter."""
    assert class_index("KAs") == class_index("AKs") == class_index("aks") == 1
    assert class_index("T9o") == class_index("9To")
    assert class_index(" 22 ") == 168


@pytest.mark.parametrize("name", ["AAs", "AK", "AKx", "XKs", "", "AKso", "A"])
def test_bad_class_names(name: str) -> None:
    """Malformed class names raise CardError quoting the name."""
    with pytest.raises(CardError, match=repr(name)):
        class_index(name)


def test_conflict_matrix() -> None:
    """Symmetric, True on the diagonal, and 101 conflicts per combo (itself + 2 * 50)."""
    matrix = conflict_matrix()
    assert matrix.shape == (N_COMBOS, N_COMBOS)
    assert np.array_equal(matrix, matrix.T)
    assert matrix.diagonal().all()
    # A combo {a, b} meets 51 combos holding a and 51 holding b; {a, b} itself is in both.
    assert np.all(matrix.sum(axis=1) == 51 + 51 - 1)
    for combo in (0, 700, N_COMBOS - 1):
        assert np.array_equal(matrix[combo], combos_sharing_cards(COMBO_CARDS[combo].tolist()))


def test_tables_are_read_only() -> None:
    """Shared tables cannot be modified by accident."""
    for table in (COMBO_CARDS, COMBO_INDEX, COMBO_CLASS, CLASS_SIZE, conflict_matrix()):
        assert not table.flags.writeable
