"""Hand features (strength, E, E2, PPOT, NPOT): hand-checked turns, brute force, bad input.

The reference here recomputes every feature from its definition by playing out each
runout against each opponent combo (eval7 ranks the hands, independently of the project's
evaluator). In the reference, the next card is weighted by its probability given the
opponent's range: a card that many of the range's combos hold is less likely to come. With
that weighting E is exactly the current equity (the expected equity after the next card is
the equity now), which is what ``docs/equity.md`` promises.
"""

from __future__ import annotations

import random
import warnings
from dataclasses import dataclass
from itertools import combinations

import pytest

from poolshark.cards.card import N_CARDS, CardError, format_card, parse_cards
from poolshark.cards.combos import COMBO_CARDS
from poolshark.cards.ranges import Range
from poolshark.equity.exact import exact_equity
from poolshark.equity.features import HandFeatures, hand_features
from poolshark.equity.result import EquityError

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # eval7 calls old pyparsing names
    import eval7

EVAL7_CARDS = [eval7.Card(format_card(card)) for card in range(N_CARDS)]


def value(cards: list[int]) -> int:
    """eval7's value of 5 to 7 cards, higher is better."""
    return int(eval7.evaluate([EVAL7_CARDS[card] for card in cards]))


def share(ours: int, theirs: int) -> float:
    """Pot share of a showdown: 1 ahead, 1/2 tied, 0 behind."""
    return 1.0 if ours > theirs else 0.5 if ours == theirs else 0.0


def outcome(ours: int, theirs: int) -> str:
    """'ahead', 'tied' or 'behind'."""
    return "ahead" if ours > theirs else "tied" if ours == theirs else "behind"


@dataclass(frozen=True)
class Reference:
    """Features recomputed from their definitions."""

    strength: float
    e: float
    e2: float
    ppot: float
    npot: float
    equity: float


def reference_features(hole: list[int], board: list[int], opponent: Range) -> Reference:
    """Brute force over every runout and live opponent combo (weights as given)."""
    known = {*hole, *board}
    unseen = [card for card in range(N_CARDS) if card not in known]
    live = [
        (tuple(COMBO_CARDS[combo].tolist()), float(opponent.weights[combo]))
        for combo in opponent.combos().tolist()
        if not known & set(COMBO_CARDS[combo].tolist())
    ]
    total = sum(weight for _, weight in live)
    strength = (
        sum(
            weight * share(value([*hole, *board]), value([*cards, *board]))
            for cards, weight in live
        )
        / total
    )
    if len(board) == 5:
        return Reference(strength, strength, strength**2, 0.0, 0.0, strength)

    # Hand potential: weighted counts of (outcome now, outcome at the river).
    table = {
        (now, end): 0.0
        for now in ("ahead", "tied", "behind")
        for end in ("ahead", "tied", "behind")
    }
    equity_numerator = 0.0
    equity_mass = 0.0
    for cards, weight in live:
        now = outcome(value([*hole, *board]), value([*cards, *board]))
        deck = [card for card in unseen if card not in cards]
        for runout in combinations(deck, 5 - len(board)):
            ours = value([*hole, *board, *runout])
            theirs = value([*cards, *board, *runout])
            table[now, outcome(ours, theirs)] += weight
            equity_numerator += weight * share(ours, theirs)
            equity_mass += weight
    rows = {
        now: sum(table[now, end] for end in ("ahead", "tied", "behind"))
        for now in ("ahead", "tied", "behind")
    }
    behind = rows["behind"] + rows["tied"] / 2
    ahead = rows["ahead"] + rows["tied"] / 2
    ppot_num = table["behind", "ahead"] + table["behind", "tied"] / 2 + table["tied", "ahead"] / 2
    npot_num = table["ahead", "behind"] + table["ahead", "tied"] / 2 + table["tied", "behind"] / 2

    # E, E2: the equity once the next card is seen, weighted by that card's probability.
    # Given an opponent combo, the next card is uniform over the cards that combo leaves;
    # every combo leaves the same number, so P(card) is proportional to the weight of the
    # combos that do not hold it.
    after: dict[int, tuple[float, float]] = {}
    for card in unseen:
        numerator = mass = 0.0
        for cards, weight in live:
            if card in cards:
                continue
            rest = [c for c in unseen if c != card and c not in cards]
            later = list(combinations(rest, 4 - len(board)))
            shares = [
                share(
                    value([*hole, *board, card, *more]),
                    value([*cards, *board, card, *more]),
                )
                for more in later
            ]
            numerator += weight * sum(shares) / len(shares)
            mass += weight
        if mass > 0:
            after[card] = (numerator / mass, mass)
    total_mass = sum(mass for _, mass in after.values())
    e = sum(eq * mass for eq, mass in after.values()) / total_mass
    e2 = sum(eq**2 * mass for eq, mass in after.values()) / total_mass
    return Reference(
        strength,
        e,
        e2,
        ppot_num / behind if behind > 0 else 0.0,
        npot_num / ahead if ahead > 0 else 0.0,
        equity_numerator / equity_mass,
    )


def features(hole: str, board: str, opponent: str) -> HandFeatures:
    """hand_features on card and range text."""
    return hand_features(parse_cards(hole), parse_cards(board), Range.parse(opponent))


# --- hand-checked turns ------------------------------------------------------------------


def test_flush_draw_behind_a_pair() -> None:
    """9h8h on 2h5hKcQd against exactly AcKd.

    44 rivers remain (52 - 2 - 4 - 2). We have nine high, they have a pair of kings:
    behind now, strength 0. Nine hearts are left (13 less 2h, 5h, 9h, 8h) and AcKd holds
    none, so any heart gives us a flush that beats their best (two pair or trips on a
    king). A nine or an eight pairs us below their kings, and no single card completes a
    straight for us (9-8 needs 7-6 or T-J), so there are no other outs and no ties. The
    equity after the river is 1 on 9 rivers and 0 on 35: E = E2 = 9/44 and, as we are
    always behind now, PPOT = 9/44. We are never ahead, so NPOT is 0 by convention.
    """
    result = features("9h8h", "2h5hKcQd", "AcKd")
    assert result.strength == 0.0
    assert result.e == pytest.approx(9 / 44, abs=1e-12)
    assert result.e2 == pytest.approx(9 / 44, abs=1e-12)
    assert result.ppot == pytest.approx(9 / 44, abs=1e-12)
    assert result.npot == 0.0


def test_pair_ahead_of_a_flush_draw() -> None:
    """The same hands swapped: AcKd is always ahead now and loses on the 9 hearts.

    Strength 1, E = E2 = 35/44, NPOT = 9/44 (ahead now, behind at the river on 9 of 44),
    and PPOT 0 since we are never behind.
    """
    result = features("AcKd", "2h5hKcQd", "9h8h")
    assert result.strength == 1.0
    assert result.e == pytest.approx(35 / 44, abs=1e-12)
    assert result.e2 == pytest.approx(35 / 44, abs=1e-12)
    assert result.npot == pytest.approx(9 / 44, abs=1e-12)
    assert result.ppot == 0.0


def test_tied_now_with_a_freeroll() -> None:
    """9h8h vs 9d8d on 2h5hKcQd: the same ranks, so tied now (strength 1/2).

    44 rivers (52 - 4 - 4). The 9 hearts left make our flush and win; their three diamonds
    (9d, 8d, Qd) cannot make a flush with one card, and every other river pairs or misses
    both hands alike: a tie. E = (9 * 1 + 35 * 1/2) / 44, E2 = (9 * 1 + 35 * 1/4) / 44.
    Potentials count ties as half: PPOT = (9/2) / (44/2) = 9/44 and NPOT = 0 / (44/2) = 0.
    """
    result = features("9h8h", "2h5hKcQd", "9d8d")
    assert result.strength == 0.5
    assert result.e == pytest.approx((9 + 35 / 2) / 44, abs=1e-12)
    assert result.e2 == pytest.approx((9 + 35 / 4) / 44, abs=1e-12)
    assert result.ppot == pytest.approx(9 / 44, abs=1e-12)
    assert result.npot == 0.0


# --- river ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hole", "board", "opponent"),
    [
        ("AhKh", "2h7dTcKs3c", "QQ+:0.5,AKs,KTs"),
        ("9h8h", "2h5hKcQd7s", "any"),
        ("7c7d", "7h7s2c2d3h", "22"),
    ],
)
def test_river_has_no_potential(hole: str, board: str, opponent: str) -> None:
    """On the river E is the strength, E2 its square and both potentials 0."""
    result = features(hole, board, opponent)
    assert result.e == result.strength
    assert result.e2 == result.strength**2
    assert result.ppot == 0.0
    assert result.npot == 0.0
    exact = exact_equity([Range.parse(hole), Range.parse(opponent)], parse_cards(board))
    assert result.strength == pytest.approx(exact.equities[0], abs=1e-12)


# --- brute force ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hole", "board", "opponent"),
    [
        ("9h8h", "2h5hKcQd", "AK,KQ:0.5,55,22:0.25"),
        ("AcKd", "2h5hKcQd", "9h8h,JhTh,AQ:0.3"),
        ("7s6s", "8s9dKh2s", "TT+,AsQs,5s4s:0.5"),
        ("AhKh", "2h7dTc", "QQ+:0.5,AKs"),
        ("Td9d", "8c7h2d", "JJ,AdQd:0.5,T8s"),
    ],
)
def test_strength_and_potentials_match_brute_force(hole: str, board: str, opponent: str) -> None:
    """Strength and the 3x3 hand-potential table (PPOT, NPOT) equal a brute-force count."""
    result = features(hole, board, opponent)
    expected = reference_features(parse_cards(hole), parse_cards(board), Range.parse(opponent))
    assert result.strength == pytest.approx(expected.strength, abs=1e-12)
    assert result.ppot == pytest.approx(expected.ppot, abs=1e-12)
    assert result.npot == pytest.approx(expected.npot, abs=1e-12)


@pytest.mark.parametrize(
    ("hole", "board", "opponent"),
    [
        ("AhKh", "2h7dTc", "QdQc"),
        ("9h8h", "2h5hKcQd", "AcKd"),
        ("Td9d", "8c7h2d", "JsJh"),
        ("7s6s", "8s9dKh2s", "any"),
    ],
)
def test_e_equals_exact_equity_when_every_next_card_is_equally_likely(
    hole: str, board: str, opponent: str
) -> None:
    """A single opponent combo, or a full range, leaves every next card equally likely.

    Then the mean over the next card of the equity once it is seen is the equity now, and
    E2 >= E^2 (Jensen).
    """
    result = features(hole, board, opponent)
    exact = exact_equity([Range.parse(hole), Range.parse(opponent)], parse_cards(board))
    assert result.e == pytest.approx(exact.equities[0], abs=1e-9)
    expected = reference_features(parse_cards(hole), parse_cards(board), Range.parse(opponent))
    assert result.e2 == pytest.approx(expected.e2, abs=1e-9)
    assert result.e2 >= result.e**2 - 1e-12


def test_e_equals_exact_equity_on_a_flop_against_any_hand() -> None:
    """The full range on a flop: every unseen card sits in the same number of combos."""
    result = features("AhKh", "2h7dTc", "any")
    exact = exact_equity([Range.parse("AhKh"), Range.full()], parse_cards("2h7dTc"))
    assert result.e == pytest.approx(exact.equities[0], abs=1e-9)


@pytest.mark.parametrize(
    ("hole", "board", "opponent"),
    [
        ("9h8h", "2h5hKcQd", "AK,KQ,55,22"),
        ("AhKh", "2h7dTc", "QQ+:0.5,AKs"),
    ],
)
def test_e_equals_exact_equity_against_a_narrow_range(hole: str, board: str, opponent: str) -> None:
    """E, the expected equity after the next card, must equal the equity now.

    Against a range, a card held by many of its combos is less likely to come (given the
    opponent's combo, the next card is uniform over the cards that combo leaves), so a
    plain mean over the unseen cards would be off (on the turn 9h8h / 2h5hKcQd vs
    AK,KQ,55,22 it gives 0.160266 against the equity 0.161616).
    """
    result = features(hole, board, opponent)
    expected = reference_features(parse_cards(hole), parse_cards(board), Range.parse(opponent))
    exact = exact_equity([Range.parse(hole), Range.parse(opponent)], parse_cards(board))
    assert expected.e == pytest.approx(exact.equities[0], abs=1e-12)
    assert expected.equity == pytest.approx(exact.equities[0], abs=1e-12)
    assert result.e == pytest.approx(expected.e, abs=1e-9)
    assert result.e2 == pytest.approx(expected.e2, abs=1e-9)


def test_e_is_close_to_the_equity_against_a_narrow_range() -> None:
    """Whatever the weighting of the next card, E stays near the equity (within 0.02)."""
    for hole, board, opponent in [
        ("9h8h", "2h5hKcQd", "AK,KQ,55,22"),
        ("AhKh", "2h7dTc", "QQ+:0.5,AKs"),
        ("Td9d", "8c7h2d", "JJ,AdQd:0.5,T8s"),
    ]:
        result = features(hole, board, opponent)
        exact = exact_equity([Range.parse(hole), Range.parse(opponent)], parse_cards(board))
        assert result.e == pytest.approx(exact.equities[0], abs=0.02)


@pytest.mark.parametrize("seed", range(8))
def test_feature_bounds(seed: int) -> None:
    """On random flops and turns: all features in [0, 1] and E2 >= E^2."""
    rng = random.Random(seed)
    cards = rng.sample(range(N_CARDS), 6)
    hole, board = cards[:2], cards[2 : 5 + seed % 2]
    classes = rng.sample(["AA", "KQs", "T9s", "77", "A5s", "KJo", "QQ:0.5", "65s", "J9o"], 4)
    result = hand_features(hole, board, Range.parse(",".join(classes)))
    for name in ("strength", "e", "e2", "ppot", "npot"):
        assert 0.0 <= getattr(result, name) <= 1.0, name
    assert result.e2 >= result.e**2 - 1e-12
    assert result.e2 <= result.e + 1e-12


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("board", ["", "2c3d", "2c3d4h5s6c7d"])
def test_board_must_be_flop_turn_or_river(board: str) -> None:
    """Preflop (and any other size) is refused."""
    with pytest.raises(EquityError, match="flop, turn or river"):
        features("AhKh", board, "any")


@pytest.mark.parametrize("hole", ["Ah", "AhKhQh"])
def test_hole_must_be_two_cards(hole: str) -> None:
    """One or three hole cards are refused."""
    with pytest.raises(EquityError, match="hole cards are 2 cards"):
        features(hole, "2c3d4h", "any")


def test_hole_card_on_board() -> None:
    """A card in both the hand and the board is refused, naming it."""
    with pytest.raises(CardError, match="'Ah' is dealt twice"):
        features("AhKh", "Ah7d2c", "any")


def test_repeated_hole_card() -> None:
    """The same card twice in the hand is refused."""
    with pytest.raises(CardError, match="'Ah' is dealt twice"):
        hand_features(parse_cards("Ah") * 2, parse_cards("2c3d4h"), Range.full())


def test_range_emptied_by_card_removal() -> None:
    """An opponent range with nothing left after removing our cards and the board."""
    with pytest.raises(EquityError, match="no combo left"):
        features("AhKh", "AdAs7c", "AA")
