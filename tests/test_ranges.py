"""Range notation: grammar, weights, card removal, errors and the text round trip."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.cards.card import CardError, parse_card, parse_cards
from poolshark.cards.combos import (
    CLASS_NAMES,
    COMBO_CARDS,
    N_COMBOS,
    class_combos,
    class_index,
    combo_name,
    parse_combo,
)
from poolshark.cards.ranges import Range, RangeError


def classes_of(r: Range) -> set[str]:
    """Names of the classes with at least one combo in the range."""
    return {CLASS_NAMES[cls] for cls in range(169) if r.weights[list(class_combos(cls))].any()}


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("QQ", 6),
        ("QQ+", 18),
        ("AA+", 6),
        ("22+", 78),
        ("22-55", 24),
        ("55-22", 24),
        ("AKs", 4),
        ("AKo", 12),
        ("AK", 16),
        ("KAs", 4),
        ("ATs+", 16),
        ("ATo+", 48),
        ("AT+", 64),
        ("AK+", 16),
        ("A2s+", 48),
        ("KTo+", 36),
        ("K9s-K6s", 16),
        ("K6s-K9s", 16),
        ("K9-K6", 64),
        ("AhKh", 1),
        ("AsKd", 1),
        ("any", 1326),
        ("random", 1326),
        ("*", 1326),
        ("ANY", 1326),
        ("", 0),
        ("   ", 0),
        ("QQ+, AKs, AhKh", 22),
        (" qq+ ,aks,  ATO+ ", 18 + 4 + 48),
        ("AK, AKs", 16),
        ("Ah Kh", 1),
    ],
)
def test_combo_counts(text: str, count: int) -> None:
    """Each token covers the right number of combos."""
    r = Range.parse(text)
    assert len(r) == count
    assert r.total() == count
    assert r.combos().size == count


def test_plus_and_dash_classes() -> None:
    """Plus climbs the kicker to one below the top card; dashes are inclusive."""
    assert classes_of(Range.parse("QQ+")) == {"QQ", "KK", "AA"}
    assert classes_of(Range.parse("ATs+")) == {"ATs", "AJs", "AQs", "AKs"}
    assert classes_of(Range.parse("KTo+")) == {"KTo", "KJo", "KQo"}
    assert classes_of(Range.parse("K9s-K6s")) == {"K9s", "K8s", "K7s", "K6s"}
    assert classes_of(Range.parse("22-44")) == {"22", "33", "44"}
    assert classes_of(Range.parse("98+")) == {"98s", "98o"}


def test_exact_combo() -> None:
    """An exact combo token is that one combo, in either card order."""
    r = Range.parse("AsKd")
    assert r.is_single_combo
    assert r.combos().tolist() == [parse_combo("AsKd")]
    assert Range.parse("kdas").combos().tolist() == r.combos().tolist()
    assert not Range.parse("AKs").is_single_combo


def test_weights_and_overrides() -> None:
    """Weights apply per token; later tokens override earlier ones."""
    r = Range.parse("QQ+:0.5, AKs")
    assert r.total() == pytest.approx(9 + 4)
    assert len(r) == 22
    aces = Range.parse("any, AA:0")
    assert len(aces) == 1326 - 6
    assert not aces.weights[list(class_combos(class_index("AA")))].any()
    mixed = Range.parse("AA:0.25, AhAs:1")
    assert mixed.weights[parse_combo("AhAs")] == 1.0
    assert mixed.total() == pytest.approx(1 + 5 * 0.25)
    assert len(Range.parse("AA:0")) == 0
    assert Range.parse("AA:1e-1").total() == pytest.approx(0.6)


def test_full_and_of_combos() -> None:
    """full() is every combo at 1; of_combos sets the given combos to a weight."""
    assert np.array_equal(Range.full().weights, Range.parse("any").weights)
    r = Range.of_combos([0, 5, 5, 1325], weight=0.5)
    assert r.combos().tolist() == [0, 5, 1325]
    assert r.total() == 1.5
    assert len(Range.of_combos([])) == 0
    assert len(Range.empty()) == 0
    with pytest.raises(RangeError):
        Range.of_combos([N_COMBOS])
    with pytest.raises(RangeError):
        Range.of_combos([0], weight=2.0)


def test_immutable() -> None:
    """The weights cannot be written, and the constructor copies its input."""
    source = np.ones(N_COMBOS)
    r = Range(source)
    source[0] = 0.0
    assert r.weights[0] == 1.0
    with pytest.raises(ValueError, match="read-only"):
        r.weights[0] = 0.5
    with pytest.raises(AttributeError):
        r.weights = np.zeros(N_COMBOS)  # type: ignore[misc]


@pytest.mark.parametrize("weights", [np.ones(10), np.full(N_COMBOS, 1.5), np.full(N_COMBOS, -1)])
def test_bad_weight_vectors(weights: np.ndarray) -> None:
    """Wrong shapes and weights outside [0, 1] are rejected."""
    with pytest.raises(RangeError):
        Range(weights)


def test_without_card_removal() -> None:
    """without() drops every combo using a dead card, keeping the rest's weights."""
    dead = parse_cards("AhKd")
    assert len(Range.full().without(dead)) == 1225  # C(50, 2)
    assert len(Range.full().without(parse_cards("AhKdQc2s7h"))) == 1081  # C(47, 2)
    aces = Range.parse("AA:0.5").without([parse_card("Ah")])
    assert len(aces) == 3
    assert aces.total() == 1.5
    assert len(Range.parse("AKs").without([parse_card("Ad")])) == 3
    assert len(Range.full().without([])) == 1326
    remaining = Range.full().without(dead).combos()
    assert not np.isin(COMBO_CARDS[remaining], dead).any()
    with pytest.raises(CardError):
        Range.full().without([52])


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("QQ,,KK", "''"),
        ("QQ,", "''"),
        ("AXs", "'AXs'"),
        ("QQ, 1h", "'1h'"),
        ("QQ, 55-AK", "'55-AK'"),
        ("AKs-AQo", "'AKs-AQo'"),
        ("K9s-Q6s", "'K9s-Q6s'"),
        ("AA:1.5", "'AA:1.5'"),
        ("AA:-0.1", "'AA:-0.1'"),
        ("AA:x", "'AA:x'"),
        ("AA:", "'AA:'"),
        ("AA:nan", "'AA:nan'"),
        ("AhAh", "'AhAh'"),
        ("QQs", "'QQs'"),
        ("QQ-KKo", "'QQ-KKo'"),
        ("AKs+-", "'AKs+-'"),
        ("A", "'A'"),
        ("AhKhQh", "'AhKhQh'"),
        ("QQ KK", "'QQ KK'"),
        ("AhKh+", "'AhKh+'"),
    ],
)
def test_errors_name_the_token(text: str, token: str) -> None:
    """Every bad token raises RangeError (a CardError) whose message quotes it."""
    with pytest.raises(RangeError, match=token.replace("+", r"\+").replace("*", r"\*")) as info:
        Range.parse(text)
    assert isinstance(info.value, CardError)


@given(st.text(alphabet="AKQJT98765432shdco+-:,.* 01", max_size=20))
def test_parse_raises_only_range_error(text: str) -> None:
    """Arbitrary text either parses or raises RangeError, never anything else."""
    with contextlib.suppress(RangeError):
        Range.parse(text)


def test_str_collapses() -> None:
    """Formatting collapses whole classes and plus/dash runs."""
    assert str(Range.parse("QQ+")) == "QQ+"
    assert str(Range.parse("AKs, AKo")) == "AK"
    assert str(Range.parse("ATs+")) == "ATs+"
    assert str(Range.parse("K6s, K7s, K8s, K9s")) == "K9s-K6s"
    assert str(Range.parse("22-55")) == "55-22"
    assert str(Range.parse("any")) == "any"
    assert str(Range.parse("any:0.5")) == "any:0.5"
    assert str(Range.parse("")) == ""
    assert str(Range.parse("AhKh:0.25")) == "AhKh:0.25"
    assert repr(Range.parse("AA")) == "Range('AA')"


def assert_round_trip(r: Range) -> None:
    """str() parses back to exactly the same weights."""
    text = str(r)
    assert np.array_equal(Range.parse(text).weights, r.weights), text


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(st.integers(0, 168), st.sampled_from([0.25, 0.5, 1.0]), max_size=169),
)
def test_str_round_trip_classes(chosen: dict[int, float]) -> None:
    """Random whole classes at random weights survive str() then parse()."""
    weights = np.zeros(N_COMBOS)
    for cls, weight in chosen.items():
        weights[list(class_combos(cls))] = weight
    r = Range(weights)
    assert_round_trip(r)
    assert ":" not in str(r) or any(w != 1.0 for w in chosen.values())


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(st.integers(0, N_COMBOS - 1), st.sampled_from([0.25, 0.5, 1.0, 1 / 3])),
    st.dictionaries(st.integers(0, 168), st.sampled_from([0.25, 0.5, 1.0])),
)
def test_str_round_trip_combos(combos: dict[int, float], classes: dict[int, float]) -> None:
    """Classes overlaid with single combos (partial classes) also round trip."""
    weights = np.zeros(N_COMBOS)
    for cls, weight in classes.items():
        weights[list(class_combos(cls))] = weight
    for combo, weight in combos.items():
        weights[combo] = weight
    assert_round_trip(Range(weights))


def test_str_round_trip_everything_but_one_combo() -> None:
    """A nearly full range keeps its hole exactly."""
    r = Range.parse("any, AhKh:0")
    assert_round_trip(r)
    assert combo_name(parse_combo("AhKh")) not in str(r)


@settings(max_examples=50, deadline=None)
@given(
    st.dictionaries(st.integers(0, N_COMBOS - 1), st.floats(0.0, 1.0), max_size=200),
    st.floats(0.0, 1.0),
)
def test_str_round_trip_arbitrary_weights(combos: dict[int, float], base: float) -> None:
    """Any float weights, over a uniform background or none, round trip exactly."""
    weights = np.full(N_COMBOS, base)
    for combo, weight in combos.items():
        weights[combo] = weight
    assert_round_trip(Range(weights))
    assert_round_trip(Range.of_combos(combos))


def test_str_round_trip_all_weights_different() -> None:
    """1326 distinct random weights come back exactly."""
    weights = np.random.default_rng(7).random(N_COMBOS)
    assert_round_trip(Range(weights))
