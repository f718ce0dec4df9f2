"""The network player's card features: counts per stage as in the thesis's Table 9-1,
values of each kind, nesting under their parents, and hand-checked spots."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.cards.card import parse_cards
from poolshark.limitnet.card_features import (
    board_features,
    card_features,
    input_size,
    private_features,
)
from poolshark.limitnet.card_schema import (
    FLOP_BOARD,
    FLOP_PRIVATE,
    PREFLOP_PRIVATE,
    RIVER_BOARD,
    RIVER_PRIVATE,
    SHORT_RIVER_BOARD,
    STAGE_BOARD,
    STAGE_PRIVATE,
    TURN_BOARD,
    TURN_PRIVATE,
    CardFeature,
    Kind,
    action_inputs,
    markdown_table,
)


def test_counts_per_stage_match_the_thesis() -> None:
    counts = [(len(b), len(p)) for b, p in zip(STAGE_BOARD, STAGE_PRIVATE, strict=True)]
    assert counts == [(0, 6), (19, 71), (22, 95), (38, 82)]
    assert len(SHORT_RIVER_BOARD) == 30
    assert RIVER_BOARD[:30] == SHORT_RIVER_BOARD  # the short list is the order-free part
    assert [input_size(s) for s in range(4)] == [6, 19 + 71, 19 + 22 + 95, 30 + 82]


def test_names_are_unique_and_parents_exist() -> None:
    for stage in range(4):
        features = action_inputs(stage)
        names = [f.name for f in features]
        assert len(set(names)) == len(names)
        for feature in features:
            assert set(feature.parents) <= set(names), feature.name


def _named(features: tuple[CardFeature, ...], values: np.ndarray) -> dict[str, float]:
    return {f.name: float(v) for f, v in zip(features, values, strict=True) if v}


def _check_kinds_and_nesting(features: tuple[CardFeature, ...], values: np.ndarray) -> None:
    on = _named(features, values)
    for feature, value in zip(features, values, strict=True):
        if feature.kind is Kind.FLAG:
            assert value in (0.0, 1.0), feature.name
        elif feature.kind is Kind.RANK:
            assert value == 0 or round(value * 13) in range(1, 14), feature.name
        else:
            assert value >= 0, feature.name
            assert value == int(value), feature.name
        if value and feature.parents:
            assert any(p in on for p in feature.parents), (feature.name, feature.parents, on)


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(52))))
def test_every_stage_has_kinds_nesting_and_few_features_on(deck: list[int]) -> None:
    hole, board = deck[:2], deck[2:7]
    for stage, shown in enumerate((0, 3, 4, 5)):
        values = card_features(hole, board[:shown])
        features = action_inputs(stage)
        assert values.shape == (len(features),)
        _check_kinds_and_nesting(features, values)
        private = private_features(hole, board[:shown])
        assert np.count_nonzero(private) <= 24  # nested: only a small share is ever on
    all_board = FLOP_BOARD + TURN_BOARD + RIVER_BOARD
    _check_kinds_and_nesting(all_board, board_features(board))
    assert board_features(board)[: len(FLOP_BOARD)].tolist() == (
        board_features(board[:3]).tolist()  # board features are kept across stages
    )


def _private(hole: str, board: str) -> dict[str, float]:
    features = STAGE_PRIVATE[{0: 0, 3: 1, 4: 2, 5: 3}[len(board) // 2]]
    return _named(features, private_features(parse_cards(hole), parse_cards(board)))


def _board(board: str) -> dict[str, float]:
    cards = parse_cards(board)
    features = (FLOP_BOARD + TURN_BOARD + RIVER_BOARD)[: len(board_features(cards))]
    return _named(features, board_features(cards))


def test_preflop_hands() -> None:
    assert _private("AhAs", "") == {"pocket_pair": 1.0, "pair_rank": 1.0}
    # 5-4 suited: in four straights (A-5, 2-6, 3-7, 4-8).
    assert _private("5h4h", "") == {
        "hi_rank": 4 / 13,
        "lo_rank": 3 / 13,
        "suited": 1.0,
        "straights": 4.0,
    }


def test_flop_flush_draw() -> None:
    # Ah Kh on Qh 7h 2c: the nut flush draw on a two-tone flop.
    on = _private("AhKh", "Qh7h2c")
    assert on["tt_draw"] == 1
    assert on.get("tt_draw_higher", 0) == 0  # nothing in hearts beats the ace
    assert on["np_nothing"] == 1
    assert on.get("np_hi_under", 0) == 0  # no flop card above the ace
    board = _board("Qh7h2c")
    assert board["two_tone"] == 1
    assert board["suit_top"] == 11 / 13  # the queen
    assert board["unpaired_flop"] == 1
    # 9h 8h on the same flop: four hearts above the nine are out (T, J, K, A; Q on board).
    assert _private("9h8h", "Qh7h2c")["tt_draw_higher"] == 4


def test_flop_set_and_straight_draw() -> None:
    on = _private("7d7s", "Qh7h2c")
    assert on["np_set"] == 1
    assert on["np_set_rank"] == 6 / 13
    assert on["np_set_which"] == 2  # it matches the middle card
    # 9 8 on Q 7 2: every straight window is two ranks short: backdoor draws only.
    draws = _private("9s8d", "Qh7h2c")
    assert "st_single" not in draws
    assert "st_double" not in draws
    assert draws["bd_windows"] >= 2
    open_ended = _private("9s8d", "Th7h2c")  # 6 or J: an open-ended (double) draw
    assert open_ended["st_double"] == 1
    gutshot = _private("9s8d", "Td6h2c")  # only a 7 fills 6-7-8-9-T
    assert gutshot["st_single"] == 1


def test_turn_four_flush_and_trips_board() -> None:
    on = _private("Ah3c", "Kh8h4h2h")
    assert on["f4_flush"] == 1
    assert on.get("f4_flush_higher", 0) == 0
    assert "f4_both" not in on
    board = _board("Kh8h4h2h")
    assert board["monotone"] == 1
    assert board["t_four_flush"] == 1
    trips = _private("KcQd", "KhKs4h4c")
    assert trips["tp_full"] == 1
    assert trips.get("tp_full_higher", 0) == 0  # kings full of fours is the best full house here


def test_river_full_house_and_hand_category() -> None:
    on = _private("9c9d", "9h9s4h4c2d")  # quads on a two-pair board
    assert on["rtp_quads"] == 1
    assert on["hand_quads"] == 1
    full = _private("KcKd", "KhQs4h4c2d")
    assert full["rp_full_pocket"] == 1
    assert full.get("rp_full_pocket_higher", 0) == 0
    assert full["hand_full_house"] == 1
    assert "plays_board" not in full
    board_plays = _private("3c2c", "AhKsQdJcTd")
    assert board_plays["plays_board"] == 1
    assert board_plays["hand_straight"] == 1


@pytest.mark.parametrize(
    ("features", "count"),
    [(PREFLOP_PRIVATE, 6), (FLOP_PRIVATE, 71), (TURN_PRIVATE, 95), (RIVER_PRIVATE, 82)],
)
def test_private_lists(features: tuple[CardFeature, ...], count: int) -> None:
    assert len(features) == count


def test_the_docs_tables_are_the_lists_in_the_code() -> None:
    text = (Path(__file__).parents[1] / "docs" / "limit.md").read_text()
    for features in (*STAGE_PRIVATE, *STAGE_BOARD[1:]):
        assert markdown_table(features) in text
