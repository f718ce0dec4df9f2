"""Exact equity: reference counts, brute force over every runout, ranges, symmetry, bad input.

The compiled enumerator is checked three ways. Its counts for a well-known preflop matchup
are pinned; on turns and flops it is compared with a plain-Python loop over every runout
that ranks hands with an independent evaluator (the rules-based ``reference_value``, or the
eval7 library where thousands of hands are needed); and its heads-up preflop fast path is
tied to the general path by a counting identity. Range results are checked against the
weighted mean of per-deal results, and the ``slow`` run brute-forces two preflop matchups
over all 1,712,304 boards with eval7.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, permutations
from math import comb
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.cards.card import N_CARDS, CardError, format_card, parse_cards
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS, combo_index, parse_combo
from poolshark.cards.evaluator import tables
from poolshark.cards.hand_value import reference_value
from poolshark.cards.isomorphism import CARD_PERMUTATIONS, COMBO_PERMUTATIONS
from poolshark.cards.ranges import Range
from poolshark.equity import exact
from poolshark.equity.exact import exact_equity, joint_deals
from poolshark.equity.kernels import enumerate_deals
from poolshark.equity.result import EquityError, EquityResult, TooMuchWorkError

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # eval7 calls old pyparsing names
    import eval7

PREFLOP_BOARDS = comb(48, 5)
"""Boards of a heads-up preflop deal: 1,712,304."""

Evaluator = tuple[Sequence[object], Callable[[list[Any]], int]]
"""A card table (index -> the evaluator's card object) and a value function, higher wins."""

REFERENCE: Evaluator = (list(range(N_CARDS)), reference_value)
"""The rules-based reference: obviously right, about 0.4 ms a hand."""
EVAL7: Evaluator = ([eval7.Card(format_card(card)) for card in range(N_CARDS)], eval7.evaluate)
"""The eval7 library: independent of this project and fast (a preflop deal in seconds)."""


@dataclass(frozen=True)
class BruteForce:
    """Showdown counts of one deal over every board completion, and exact pot shares."""

    wins: tuple[int, ...]
    ties: tuple[int, ...]
    equities: tuple[Fraction, ...]
    boards: int


def brute_force(
    holes: Sequence[Sequence[int]], board: Sequence[int], evaluator: Evaluator
) -> BruteForce:
    """Play out every completion of ``board``; a k-way split gives each winner 1/k."""
    table, value = evaluator
    known = {*board, *(card for hole in holes for card in hole)}
    deck = [table[card] for card in range(N_CARDS) if card not in known]
    hole_cards = [[table[card] for card in hole] for hole in holes]
    board_cards = [table[card] for card in board]
    players = len(holes)
    wins = [0] * players
    splits = [[0] * (players + 1) for _ in range(players)]
    boards = 0
    for rest in combinations(deck, 5 - len(board)):
        full_board = board_cards + list(rest)
        values = [value(hole + full_board) for hole in hole_cards]
        best = max(values)
        winners = [seat for seat, v in enumerate(values) if v == best]
        for seat in winners:
            if len(winners) == 1:
                wins[seat] += 1
            else:
                splits[seat][len(winners)] += 1
        boards += 1
    equities = tuple(
        (wins[seat] + sum(Fraction(n, k) for k, n in enumerate(splits[seat]) if n)) / boards
        for seat in range(players)
    )
    return BruteForce(tuple(wins), tuple(sum(row) for row in splits), equities, boards)


def hands(*names: str) -> list[Range]:
    """One single-combo range per hole-card string."""
    return [Range.parse(name) for name in names]


def assert_matches(result: EquityResult, expected: BruteForce) -> None:
    """The exact result agrees with the brute force to float precision, count by count."""
    assert result.exact
    assert result.std_errors is None
    assert result.boards == expected.boards
    for seat in range(len(expected.wins)):
        assert result.equities[seat] == pytest.approx(float(expected.equities[seat]), abs=1e-12)
        assert result.wins[seat] == pytest.approx(expected.wins[seat] / expected.boards, abs=1e-12)
        assert result.ties[seat] == pytest.approx(expected.ties[seat] / expected.boards, abs=1e-12)
    assert sum(result.equities) == pytest.approx(1.0, abs=1e-12)


def random_deal(
    rng: random.Random, players: int, board_size: int
) -> tuple[list[list[int]], list[int]]:
    """Hole cards for ``players`` and a board of ``board_size``, all distinct."""
    cards = rng.sample(range(N_CARDS), 2 * players + board_size)
    holes = [cards[2 * seat : 2 * seat + 2] for seat in range(players)]
    return holes, cards[2 * players :]


def single_combos(holes: Sequence[Sequence[int]]) -> list[Range]:
    """Known hands as ranges."""
    return [Range.of_combos([combo_index(a, b)]) for a, b in holes]


# --- reference values --------------------------------------------------------------------


def test_ak_suited_vs_queens_counts() -> None:
    """AhKh vs QdQc preflop: 787,966 wins, 6,732 ties, 917,606 losses of 1,712,304 boards."""
    result = exact_equity(hands("AhKh", "QdQc"))
    assert result.boards == PREFLOP_BOARDS == 1_712_304
    assert round(result.wins[0] * result.boards) == 787_966
    assert round(result.ties[0] * result.boards) == 6_732
    assert round(result.wins[1] * result.boards) == 917_606
    assert result.ties[1] == result.ties[0]
    assert result.equities[0] == pytest.approx((787_966 + 6_732 / 2) / 1_712_304, abs=1e-15)
    assert round(result.equities[0], 6) == 0.462145
    assert result.equities[0] + result.equities[1] == pytest.approx(1.0, abs=1e-15)


def test_kernel_integer_counts() -> None:
    """The compiled enumerator's raw counts for the same deal."""
    holes = np.array([[parse_cards("AhKh"), parse_cards("QdQc")]], dtype=np.uint8)
    empty = np.zeros(0, dtype=np.uint8)
    wins, splits, boards = enumerate_deals(holes, empty, empty, *tables())
    assert boards.tolist() == [1_712_304]
    assert wins.tolist() == [[787_966, 917_606]]
    assert splits[0, :, 2].tolist() == [6_732, 6_732]
    assert splits.sum() == 2 * 6_732


def test_headsup_fast_path_matches_general_path() -> None:
    """Preflop heads-up counts (fast path) equal a sum of one-card-board counts (general path).

    Summing the counts over every possible first board card c, with the board fixed to
    ``[c]``, counts each five-card board once per card in it: five times. The kernel takes
    its vectorized heads-up path only for an empty board, so this ties the two paths.
    """
    holes = np.array([[parse_cards("7s6s"), parse_cards("AdJc")]], dtype=np.uint8)
    empty = np.zeros(0, dtype=np.uint8)
    wins, splits, boards = enumerate_deals(holes, empty, empty, *tables())
    used = set(holes.ravel().tolist())
    total_wins = np.zeros(2, dtype=np.int64)
    total_splits = np.zeros(2, dtype=np.int64)
    total_boards = 0
    for card in sorted(set(range(N_CARDS)) - used):
        board = np.array([card], dtype=np.uint8)
        w, s, b = enumerate_deals(holes, board, empty, *tables())
        total_wins += w[0]
        total_splits += s[0, :, 2]
        total_boards += int(b[0])
    assert total_boards == 5 * int(boards[0])
    assert total_wins.tolist() == (5 * wins[0]).tolist()
    assert total_splits.tolist() == (5 * splits[0, :, 2]).tolist()


@pytest.mark.parametrize("dead_card", ["2c", "Qs", "Ah"])
def test_headsup_fast_path_with_dead_card(dead_card: str) -> None:
    """Boards avoiding a dead card (fast path) plus boards holding it (general) = all boards."""
    holes = np.array([[parse_cards("KhKd"), parse_cards("9c8c")]], dtype=np.uint8)
    empty = np.zeros(0, dtype=np.uint8)
    card = np.array(parse_cards(dead_card), dtype=np.uint8)
    wins, splits, boards = enumerate_deals(holes, empty, empty, *tables())
    wins_dead, splits_dead, boards_dead = enumerate_deals(holes, empty, card, *tables())
    wins_on, splits_on, boards_on = enumerate_deals(holes, card, empty, *tables())
    assert int(boards_dead[0]) == comb(47, 5)
    assert int(boards_dead[0]) + int(boards_on[0]) == int(boards[0])
    assert (wins_dead + wins_on).tolist() == wins.tolist()
    assert (splits_dead + splits_on).tolist() == splits.tolist()


def test_aces_vs_kings_counts() -> None:
    """AsAh vs KdKc preflop: 1,388,072 wins, 6,538 ties (counts found by the eval7 brute
    force that ``test_preflop_matches_eval7_brute_force`` repeats); equity 0.812555."""
    result = exact_equity(hands("AsAh", "KdKc"))
    assert round(result.wins[0] * result.boards) == 1_388_072
    assert round(result.ties[0] * result.boards) == 6_538
    assert round(result.wins[1] * result.boards) == 317_694
    assert round(result.equities[0], 6) == 0.812555


def test_flop_equity_is_mean_of_turn_equities() -> None:
    """Known hands: the flop equity is exactly the mean of the turn equities over each turn."""
    players = hands("AsAh", "KdKc")
    flop = parse_cards("Kh 8s 3s")
    known = set(parse_cards("AsAhKdKc")) | set(flop)
    turns = [c for c in range(N_CARDS) if c not in known]
    equities = [exact_equity(players, [*flop, turn], threads=1).equities[0] for turn in turns]
    mean = sum(equities) / len(turns)
    assert exact_equity(players, flop).equities[0] == pytest.approx(mean, abs=1e-12)


# --- brute force on turns and flops ------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 4), st.randoms(use_true_random=False))
def test_turn_matches_reference_brute_force(players: int, rng: random.Random) -> None:
    """Random turn deals of 2 to 4 players: every river ranked by the rules-based reference."""
    holes, board = random_deal(rng, players, 4)
    assert_matches(exact_equity(single_combos(holes), board), brute_force(holes, board, REFERENCE))


def test_flop_matches_reference_brute_force() -> None:
    """One heads-up flop deal, all 990 turn-river pairs ranked by the reference."""
    holes = [parse_cards("Jh Th"), parse_cards("Ac 9d")]
    board = parse_cards("9h 8c 2h")
    assert_matches(exact_equity(single_combos(holes), board), brute_force(holes, board, REFERENCE))


@pytest.mark.parametrize("seed", range(12))
def test_flop_matches_eval7_brute_force(seed: int) -> None:
    """Random flop deals of 2 to 4 players, every runout ranked by eval7."""
    rng = random.Random(seed)
    holes, board = random_deal(rng, 2 + seed % 3, 3)
    assert_matches(exact_equity(single_combos(holes), board), brute_force(holes, board, EVAL7))


@pytest.mark.parametrize(
    ("players", "board_size"), [(3, 3), (4, 4), (5, 3), (6, 3), (6, 4), (9, 4)]
)
def test_multiway_matches_eval7_brute_force(players: int, board_size: int) -> None:
    """Three- to nine-way pots on flops and turns."""
    rng = random.Random(100 * players + board_size)
    holes, board = random_deal(rng, players, board_size)
    assert_matches(exact_equity(single_combos(holes), board), brute_force(holes, board, EVAL7))


def test_multiway_split_pots_match_brute_force() -> None:
    """A turn where three players hold the same straight: three-way splits on most rivers."""
    holes = [parse_cards("Jc 2d"), parse_cards("Jd 3c"), parse_cards("Js 4h"), parse_cards("Ac Kd")]
    board = parse_cards("Tc 9h 8s 7d")
    expected = brute_force(holes, board, REFERENCE)
    assert max(expected.ties) > 30
    assert_matches(exact_equity(single_combos(holes), board), expected)


@pytest.mark.parametrize("players", range(2, 11))
def test_board_that_plays_splits_evenly(players: int) -> None:
    """A royal flush on the board: each of k players gets exactly 1/k, all of it as ties."""
    board = parse_cards("As Ks Qs Js Ts")
    rest = [c for c in range(N_CARDS) if c not in board]
    holes = [rest[2 * seat : 2 * seat + 2] for seat in range(players)]
    result = exact_equity(single_combos(holes), board)
    assert result.boards == 1
    assert result.equities == pytest.approx([1 / players] * players, abs=1e-15)
    assert result.wins == (0.0,) * players
    assert result.ties == (1.0,) * players


def test_river_board_is_one_showdown() -> None:
    """A five-card board is decided: one board, a winner takes everything."""
    result = exact_equity(hands("AhAd", "KcKs", "7h2d"), parse_cards("Ac Kd 7s 4c 2h"))
    assert result.boards == 1
    assert result.equities == (1.0, 0.0, 0.0)
    assert result.wins == (1.0, 0.0, 0.0)


# --- ranges ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hero", "villain", "board"),
    [
        ("AhKh", "QQ+:0.5,AKs", "2h7dTc"),
        ("9h8h", "AK,KQ,55:0.25,22", "2h5hKcQd"),
        ("Tc9c", "JJ-88,AQs+:0.3", "8c7d2s"),
    ],
)
def test_hand_vs_range_is_weighted_mean_over_combos(hero: str, villain: str, board: str) -> None:
    """Equity against a range = weight-averaged equity against each combo that can be dealt."""
    board_cards = parse_cards(board)
    hero_range = Range.parse(hero)
    villain_range = Range.parse(villain)
    blocked = set(parse_cards(hero)) | set(board_cards)
    numerator = 0.0
    total = 0.0
    live = 0
    for combo in villain_range.combos().tolist():
        if blocked & set(COMBO_CARDS[combo].tolist()):
            continue
        weight = float(villain_range.weights[combo])
        deal = exact_equity([hero_range, Range.of_combos([combo])], board_cards, threads=1)
        numerator += weight * deal.equities[0]
        total += weight
        live += 1
    result = exact_equity([hero_range, villain_range], board_cards)
    assert result.equities[0] == pytest.approx(numerator / total, abs=1e-12)
    assert result.equities[1] == pytest.approx(1 - numerator / total, abs=1e-12)
    assert result.boards == live * comb(52 - 4 - len(board_cards), 5 - len(board_cards))


def test_range_vs_range_is_weighted_mean_over_joint_deals() -> None:
    """Three weighted ranges on a turn: product weights over every collision-free deal."""
    ranges = [Range.parse("AK,QQ:0.5"), Range.parse("KK,AQs:0.75"), Range.parse("98s,T9s:0.2")]
    board = parse_cards("Kd 7h 2c 9s")
    live = [r.without(board) for r in ranges]
    numerator = np.zeros(3)
    total = 0.0
    deals = 0
    for deal, weight in joint_deals(live):
        result = exact_equity([Range.of_combos([c]) for c in deal], board, threads=1)
        numerator += weight * np.array(result.equities)
        total += weight
        deals += 1
    assert deals > 50
    result = exact_equity(ranges, board)
    assert result.equities == pytest.approx((numerator / total).tolist(), abs=1e-12)
    assert result.boards == deals * 42


def test_joint_deals_skip_collisions_and_multiply_weights() -> None:
    """joint_deals lists exactly the non-colliding combo tuples, weight = product."""
    first = Range.parse("AhAd,AhAs:0.5")
    second = Range.parse("AsKs:0.25,KcKd")
    deals = dict(joint_deals([first, second]))
    ah_ad, ah_as = parse_combo("AhAd"), parse_combo("AhAs")
    as_ks, kc_kd = parse_combo("AsKs"), parse_combo("KcKd")
    assert deals == {
        (ah_ad, as_ks): 0.25,
        (ah_ad, kc_kd): 1.0,
        (ah_as, kc_kd): 0.5,
    }


# --- symmetry ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_suit_renaming_gives_identical_results(seed: int) -> None:
    """Renaming suits in every hand, range and board changes nothing."""
    rng = random.Random(seed)
    holes, board = random_deal(rng, 3, 3)
    permutation = rng.randrange(1, 24)
    renamed_holes = [CARD_PERMUTATIONS[permutation, hole].tolist() for hole in holes]
    renamed_board = CARD_PERMUTATIONS[permutation, board].tolist()
    assert exact_equity(single_combos(holes), board) == exact_equity(
        single_combos(renamed_holes), renamed_board
    )

    villain = Range.parse("TT+:0.4,AJs+,KQo:0.7")
    renamed_weights = np.zeros(N_COMBOS)
    renamed_weights[COMBO_PERMUTATIONS[permutation]] = villain.weights
    original = exact_equity([single_combos(holes)[0], villain], board)
    renamed = exact_equity([single_combos(renamed_holes)[0], Range(renamed_weights)], renamed_board)
    assert renamed.equities == pytest.approx(original.equities, abs=1e-12)
    assert renamed.boards == original.boards


def test_swapping_players_permutes_the_result() -> None:
    """Every order of three players on a flop permutes equities, wins and ties alike."""
    players = [Range.parse("AhKh"), Range.parse("QQ,JJ:0.5"), Range.parse("7c6c")]
    board = parse_cards("Qh 7d 2h")
    base = exact_equity(players, board)
    for order in permutations(range(3)):
        result = exact_equity([players[i] for i in order], board)
        assert result.equities == pytest.approx([base.equities[i] for i in order], abs=1e-12)
        assert result.wins == pytest.approx([base.wins[i] for i in order], abs=1e-12)
        assert result.ties == pytest.approx([base.ties[i] for i in order], abs=1e-12)
        assert result.boards == base.boards


def test_preflop_headsup_swap_is_exact_complement() -> None:
    """Heads-up preflop: swapping seats swaps wins and equities exactly."""
    forward = exact_equity(hands("Td9d", "AsQc"))
    backward = exact_equity(hands("AsQc", "Td9d"))
    assert backward.equities == pytest.approx(forward.equities[::-1], abs=1e-15)
    assert backward.wins == pytest.approx(forward.wins[::-1], abs=1e-15)
    assert forward.wins[0] + forward.wins[1] + forward.ties[0] == pytest.approx(1.0, abs=1e-15)


def test_threads_and_progress_do_not_change_the_result() -> None:
    """One thread or all, with or without a progress callback: the same answer."""
    players = [Range.parse("AhKh"), Range.parse("TT+")]
    board = parse_cards("Kd 7h 2c")
    calls: list[tuple[int, int]] = []
    single = exact_equity(players, board, threads=1)
    parallel = exact_equity(
        players, board, threads=None, progress=lambda d, n: calls.append((d, n))
    )
    assert single == parallel
    assert calls
    assert calls[-1][0] == calls[-1][1]
    assert all(done <= total for done, total in calls)


def test_dead_cards_are_removed_from_the_deck() -> None:
    """Dead cards never reach the board: brute force over the 42 cards left after them."""
    holes = [parse_cards("AhKh"), parse_cards("QdQc")]
    board = parse_cards("2h 7d Tc")
    dead = parse_cards("3h 4h 5h")
    # Every turn-river pair from the live deck, hands ranked by eval7.
    table, value = EVAL7
    known = {*board, *dead, *holes[0], *holes[1]}
    deck = [c for c in range(N_CARDS) if c not in known]
    shares = Fraction(0)
    runouts = 0
    for rest in combinations(deck, 2):
        mine = value([table[c] for c in [*holes[0], *board, *rest]])
        theirs = value([table[c] for c in [*holes[1], *board, *rest]])
        shares += 1 if mine > theirs else Fraction(1, 2) if mine == theirs else 0
        runouts += 1
    result = exact_equity(single_combos(holes), board, dead)
    assert result.boards == runouts == comb(42, 2)
    assert result.equities[0] == pytest.approx(float(shares / runouts), abs=1e-12)
    assert result.equities[0] != exact_equity(single_combos(holes), board).equities[0]


# --- errors ------------------------------------------------------------------------------


def test_same_card_in_two_hands() -> None:
    """Two known hands sharing a card are refused, naming the card."""
    with pytest.raises(CardError, match="'Ah' is dealt twice"):
        exact_equity(hands("AhKh", "AhQd"))


def test_hand_card_on_board() -> None:
    """A hand using a board card has no possible holding left."""
    with pytest.raises(EquityError, match="player 1 has no possible hand"):
        exact_equity(hands("AhKh", "QdQc"), parse_cards("Ah Tc 2d"))


def test_board_card_also_dead() -> None:
    """A card cannot be both on the board and dead."""
    with pytest.raises(CardError, match="'Tc' is dealt twice"):
        exact_equity(hands("KhKd", "QdQc"), parse_cards("Ah Tc 2d"), parse_cards("Tc"))


@pytest.mark.parametrize("size", [1, 2, 6])
def test_bad_board_size(size: int) -> None:
    """Boards have 0, 3, 4 or 5 cards."""
    board = parse_cards("2c 3c 4c 5d 6d 7d")[:size]
    with pytest.raises(EquityError, match=f"a board has 0, 3, 4 or 5 cards, got {size}"):
        exact_equity(hands("AhKh", "QdQc"), board)


@pytest.mark.parametrize("players", [0, 1, 11])
def test_bad_player_count(players: int) -> None:
    """Two to ten players."""
    with pytest.raises(EquityError, match=f"2 to 10 players, got {players}"):
        exact_equity([Range.full()] * players)


def test_range_emptied_by_card_removal() -> None:
    """Aces on a board holding three of them: the second player has nothing left."""
    with pytest.raises(EquityError, match="player 2 has no possible hand left"):
        exact_equity([Range.parse("KK"), Range.parse("AA")], parse_cards("Ah As Ad"))


def test_ranges_that_always_collide() -> None:
    """Every villain combo shares a card with the hero's hand."""
    with pytest.raises(EquityError, match="no deal is possible"):
        exact_equity([Range.parse("AhKh"), Range.parse("AhAs,KhKs")])


def test_empty_range() -> None:
    """An empty range is refused."""
    with pytest.raises(EquityError, match="player 2 has no possible hand"):
        exact_equity([Range.parse("AA"), Range.empty()])


def test_not_enough_cards() -> None:
    """Ten players plus many dead cards exhaust the deck."""
    dead = list(range(24, 52))
    with pytest.raises(EquityError, match="not enough cards"):
        exact_equity([Range.full()] * 10, (), dead)


def test_too_many_joint_deals() -> None:
    """Four random hands preflop: refused before any work, pointing at Monte Carlo."""
    with pytest.raises(TooMuchWorkError, match="Monte Carlo"):
        exact_equity([Range.full()] * 4)


def test_too_many_evaluations(monkeypatch: pytest.MonkeyPatch) -> None:
    """The evaluation bound is checked after merging suit classes (lowered here to hit it)."""
    monkeypatch.setattr(exact, "MAX_EXACT_EVALUATIONS", 10_000)
    with pytest.raises(TooMuchWorkError, match="hand evaluations"):
        exact_equity([Range.parse("AhKh"), Range.parse("QQ,JJ")], parse_cards("2c 7d 9s"))


def test_too_many_deals_bound_is_on_live_combos(monkeypatch: pytest.MonkeyPatch) -> None:
    """The joint-deal bound multiplies the live range sizes."""
    monkeypatch.setattr(exact, "MAX_EXACT_DEALS", 5)
    with pytest.raises(TooMuchWorkError, match="6 joint deals"):
        exact_equity([Range.parse("AhKh"), Range.parse("QQ")], parse_cards("2c 7d 9s"))
    assert exact_equity([Range.parse("AhKh"), Range.parse("QQ")], parse_cards("2c 7d Qs")).exact


# --- preflop brute force with eval7 ------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "wins", "ties"),
    [
        ("AhKh", "QdQc", 787_966, 6_732),
        pytest.param("AsAh", "KdKc", 1_388_072, 6_538, marks=pytest.mark.slow),
        pytest.param("7c2d", "7h2s", None, None, marks=pytest.mark.slow),
    ],
)
def test_preflop_matches_eval7_brute_force(
    first: str, second: str, wins: int | None, ties: int | None
) -> None:
    """All 1,712,304 boards of a heads-up preflop deal played out with eval7 (a few seconds)."""
    holes = [parse_cards(first), parse_cards(second)]
    expected = brute_force(holes, [], EVAL7)
    if wins is not None:
        assert (expected.wins[0], expected.ties[0]) == (wins, ties)
    assert_matches(exact_equity(single_combos(holes)), expected)
