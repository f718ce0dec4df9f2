"""The compiled card features against the readable ones (the specification): random deals
at every stage, the hand-checked spots of ``test_limitnet_card_features``, and batches
mixing stages."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.cards.card import parse_cards
from poolshark.limitnet.card_board_compiled import compiled_board_features
from poolshark.limitnet.card_features import board_features, card_features, input_size
from poolshark.limitnet.card_features_compiled import (
    WIDEST,
    card_feature_batch,
    compiled_card_features,
)
from poolshark.limitnet.card_schema import action_inputs

STAGES = {0: 0, 3: 1, 4: 2, 5: 3}
"""Board cards shown -> stage."""

SPOTS = [
    ("AhAs", ""),
    ("5h4h", ""),
    ("AhKh", "Qh7h2c"),
    ("9h8h", "Qh7h2c"),
    ("7d7s", "Qh7h2c"),
    ("9s8d", "Qh7h2c"),
    ("9s8d", "Th7h2c"),
    ("9s8d", "Td6h2c"),
    ("Ah3c", "Kh8h4h2h"),
    ("KcQd", "KhKs4h4c"),
    ("9c9d", "9h9s4h4c2d"),
    ("KcKd", "KhQs4h4c2d"),
    ("3c2c", "AhKsQdJcTd"),
]
"""The hand-checked deals of ``tests/test_limitnet_card_features.py``."""


def _named(hole: str, board: str) -> dict[str, float]:
    """The compiled features of a spot by name, the ones that are on."""
    values = compiled_card_features(parse_cards(hole), parse_cards(board))
    names = [f.name for f in action_inputs(STAGES[len(board) // 2])]
    return {name: float(v) for name, v in zip(names, values, strict=True) if v}


@settings(max_examples=300, deadline=None)
@given(st.permutations(list(range(52))))
def test_compiled_features_equal_the_reference_at_every_stage(deck: list[int]) -> None:
    """Random hole cards and boards with 0, 3, 4 and 5 cards: equal to the last bit."""
    hole, board = deck[:2], deck[2:7]
    for shown in STAGES:
        want = card_features(hole, board[:shown])
        got = compiled_card_features(hole, board[:shown])
        assert got.shape == want.shape
        assert got.tolist() == want.tolist(), (hole, board[:shown])
    for shown in (3, 4, 5):
        assert compiled_board_features(board[:shown]).tolist() == (
            board_features(board[:shown]).tolist()
        )


@pytest.mark.parametrize(("hole", "board"), SPOTS)
def test_compiled_features_equal_the_reference_on_the_hand_checked_spots(
    hole: str, board: str
) -> None:
    """Each hand-checked deal gives the reference's vector."""
    want = card_features(parse_cards(hole), parse_cards(board))
    assert compiled_card_features(parse_cards(hole), parse_cards(board)).tolist() == (want.tolist())


def test_compiled_features_read_the_hand_checked_values() -> None:
    """A few of the hand-checked values, read off the compiled path directly."""
    assert _named("9h8h", "Qh7h2c")["tt_draw_higher"] == 4
    assert _named("9s8d", "Th7h2c")["st_double"] == 1
    assert _named("9s8d", "Td6h2c")["st_single"] == 1
    assert _named("KcQd", "KhKs4h4c")["tp_full"] == 1
    quads = _named("9c9d", "9h9s4h4c2d")
    assert quads["rtp_quads"] == 1
    assert quads["hand_quads"] == 1
    assert _named("3c2c", "AhKsQdJcTd")["plays_board"] == 1


@settings(max_examples=20, deadline=None)
@given(st.lists(st.permutations(list(range(52))), min_size=1, max_size=12), st.data())
def test_a_batch_mixes_stages_row_by_row(decks: list[list[int]], data: st.DataObject) -> None:
    """One call over rows at different stages: each row is its pair's features, padded."""
    shown = [data.draw(st.sampled_from(list(STAGES))) for _ in decks]
    holes = np.array([deck[:2] for deck in decks])
    boards = np.array([deck[2:7] for deck in decks])
    rows = card_feature_batch(holes, boards, shown)
    assert rows.shape == (len(decks), WIDEST)
    for row, deck, n in zip(rows, decks, shown, strict=True):
        width = input_size(STAGES[n])
        assert row[:width].tolist() == card_features(deck[:2], deck[2 : 2 + n]).tolist()
        assert not row[width:].any()


def test_bad_batches_are_refused() -> None:
    """Impossible stages, mismatched rows and short boards are refused."""
    with pytest.raises(ValueError, match="0, 3, 4 or 5"):
        card_feature_batch([[0, 1]], [[2, 3, 4, 5, 6]], 2)
    with pytest.raises(ValueError, match="board row per hole pair"):
        card_feature_batch([[0, 1], [2, 3]], [[4, 5, 6, 7, 8]], 5)
    with pytest.raises(ValueError, match="3, 4 or 5 cards"):
        compiled_board_features([1, 2])
