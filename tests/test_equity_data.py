"""True-equity datasets: the compiled kernel against plain enumeration, symmetries, files.

The kernel scores every opponent combo at once by sharing each opponent evaluation among
the splits of a card subset into (combo, runout); the checks here recount the same
equities independently: a plain Python loop over every runout with the eval7 evaluator,
and ``exact_equity`` one combo at a time. Suit renaming and swapping the two players are
invariants any correct table keeps.
"""

from __future__ import annotations

import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.cards.card import N_CARDS, format_card, parse_cards
from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX, N_COMBOS
from poolshark.cards.isomorphism import CARD_PERMUTATIONS, COMBO_PERMUTATIONS
from poolshark.equity_net.data import (
    NO_CARD,
    EquityDataError,
    combo_mask,
    generate_dataset,
    load_dataset,
    random_samples,
    reference_equities,
    runouts_per_combo,
    save_dataset,
    true_equities,
)

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # eval7 calls old pyparsing names
    import eval7

EVAL7_CARDS = [eval7.Card(format_card(card)) for card in range(N_CARDS)]


def padded(board: list[int]) -> list[int]:
    """A board as a 5-slot row padded with NO_CARD."""
    return board + [NO_CARD] * (5 - len(board))


def brute_force(hole: list[int], board: list[int], combo: int) -> float:
    """Equity of ``hole`` against ``combo`` by looping over every runout with eval7."""
    theirs = COMBO_CARDS[combo].tolist()
    deck = [c for c in range(N_CARDS) if c not in {*hole, *board, *theirs}]
    total = 0.0
    count = 0
    for runout in combinations(deck, 5 - len(board)):
        shared = [EVAL7_CARDS[c] for c in (*board, *runout)]
        ours = eval7.evaluate([EVAL7_CARDS[c] for c in hole] + shared)
        other = eval7.evaluate([EVAL7_CARDS[c] for c in theirs] + shared)
        total += 1.0 if ours > other else 0.5 if ours == other else 0.0
        count += 1
    return total / count


def one(hole: str, board: str) -> tuple[np.ndarray, np.ndarray]:
    """(equity, mask) rows of a single sample given as text."""
    equity, mask = true_equities([parse_cards(hole)], [padded(parse_cards(board))])
    return equity[0], mask[0]


@pytest.mark.parametrize(
    ("hole", "board"), [("AhKh", "Qh7d2c9sTh"), ("7c7d", "7h8h9hTs2c"), ("5s4s", "AdKcQh3s2s")]
)
def test_river_rows_equal_a_brute_force_loop_over_every_combo(hole: str, board: str) -> None:
    """On the river every one of the 990 possible combos matches eval7 exactly."""
    equity, mask = one(hole, board)
    cards = parse_cards(hole) + parse_cards(board)
    for combo in range(N_COMBOS):
        if mask[combo]:
            assert equity[combo] == brute_force(parse_cards(hole), parse_cards(board), combo)
        else:
            assert set(COMBO_CARDS[combo].tolist()) & set(cards)
            assert equity[combo] == 0.0
    assert mask.sum() == 990


def test_turn_row_equals_a_brute_force_loop_over_every_combo_and_river() -> None:
    """A turn (44 rivers per combo, flushes and straights possible) matches eval7 everywhere."""
    hole, board = parse_cards("JhTh"), parse_cards("9h8c2hKd")
    equity, mask = one("JhTh", "9h8c2hKd")
    possible = np.flatnonzero(mask)
    assert possible.size == 1035
    expected = np.array([brute_force(hole, board, int(c)) for c in possible])
    np.testing.assert_allclose(equity[possible], expected, atol=1e-7)


def test_flop_row_matches_exact_equity_combo_by_combo() -> None:
    """On a flop, combos spread over the whole order match one exact_equity call each."""
    hole, board = parse_cards("AsQs"), parse_cards("Ks7s2d")
    equity, mask = one("AsQs", "Ks7s2d")
    assert mask.sum() == 1081
    combos = [*range(0, N_COMBOS, 97), int(COMBO_INDEX[parse_cards("Kd")[0], parse_cards("Kh")[0]])]
    reference = reference_equities(hole, board, combos)
    for combo, expected in zip(combos, reference, strict=True):
        if expected is None:
            assert not mask[combo]
        else:
            assert equity[combo] == pytest.approx(expected, abs=1e-7)
    assert equity[combos[-1]] == pytest.approx(brute_force(hole, board, combos[-1]), abs=1e-7)


def test_impossible_combos_are_masked_and_counted_as_the_seed_says() -> None:
    """245 combos are impossible on a flop, 291 on a turn and 336 on a river."""
    holes, boards = random_samples(30, seed=5)
    equity, mask = true_equities(holes, boards)
    sizes = (boards != NO_CARD).sum(axis=1)
    expected = {3: 245, 4: 291, 5: 336}
    for row in range(30):
        assert N_COMBOS - mask[row].sum() == expected[int(sizes[row])]
        assert (equity[row][~mask[row]] == 0).all()
    np.testing.assert_array_equal(mask, combo_mask(holes, boards))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), renaming=st.integers(0, 23))
def test_renaming_suits_permutes_the_row(seed: int, renaming: int) -> None:
    """Equity against combo c equals the renamed deal's equity against renamed c."""
    holes, boards = random_samples(4, seed, street_mix=(0.2, 0.4, 0.4))
    perm = np.full(256, NO_CARD, dtype=np.uint8)
    perm[:N_CARDS] = CARD_PERMUTATIONS[renaming]
    renamed_boards = np.sort(perm[boards], axis=1)
    equity, mask = true_equities(holes, boards)
    renamed, renamed_mask = true_equities(perm[holes], renamed_boards)
    np.testing.assert_array_equal(renamed[:, COMBO_PERMUTATIONS[renaming]], equity)
    np.testing.assert_array_equal(renamed_mask[:, COMBO_PERMUTATIONS[renaming]], mask)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), street=st.sampled_from([3, 4, 5]))
def test_swapping_the_players_gives_one_minus_the_equity(seed: int, street: int) -> None:
    """E(ours vs theirs) + E(theirs vs ours) = 1 on the same board."""
    mix = tuple(1.0 if size == street else 0.0 for size in (3, 4, 5))
    holes, boards = random_samples(1, seed, street_mix=mix)
    equity, mask = true_equities(holes, boards)
    ours = int(COMBO_INDEX[holes[0, 0], holes[0, 1]])
    rng = np.random.default_rng(seed)
    for combo in rng.choice(np.flatnonzero(mask[0]), size=3, replace=False):
        theirs, _ = true_equities(COMBO_CARDS[combo][None, :], boards)
        assert equity[0, combo] + theirs[0, ours] == pytest.approx(1.0, abs=1e-6)


def test_results_do_not_depend_on_the_number_of_threads() -> None:
    """One core and all cores give identical rows."""
    holes, boards = random_samples(40, seed=9)
    single, _ = true_equities(holes, boards, threads=1)
    parallel, _ = true_equities(holes, boards, threads=None)
    np.testing.assert_array_equal(single, parallel)


def test_random_samples_are_reproducible_distinct_and_follow_the_mix() -> None:
    """Same seed, same deals; no card twice; sorted; board sizes follow street_mix."""
    holes, boards = random_samples(3000, seed=1, street_mix=(0.5, 0.25, 0.25))
    again_holes, again_boards = random_samples(3000, seed=1, street_mix=(0.5, 0.25, 0.25))
    np.testing.assert_array_equal(holes, again_holes)
    np.testing.assert_array_equal(boards, again_boards)
    assert not np.array_equal(holes, random_samples(3000, seed=2)[0])
    cards = np.concatenate([holes, boards], axis=1).astype(np.int64)
    for row in cards:
        dealt = row[row != NO_CARD]
        assert len(set(dealt.tolist())) == dealt.size
    assert (np.diff(holes.astype(int), axis=1) > 0).all()
    assert (np.diff(boards.astype(int), axis=1) >= 0).all()
    sizes = (boards != NO_CARD).sum(axis=1)
    assert np.mean(sizes == 3) == pytest.approx(0.5, abs=0.04)
    assert np.mean(sizes == 5) == pytest.approx(0.25, abs=0.04)


def test_runouts_per_combo() -> None:
    """Each possible combo is scored over C(45, 2), 44 or 1 runouts."""
    assert [runouts_per_combo(size) for size in (3, 4, 5)] == [990, 44, 1]


def test_dataset_file_round_trip_is_atomic_and_fingerprinted(tmp_path: Path) -> None:
    """A saved dataset loads back equal, leaves no temp file, and progress reaches the end."""
    seen: list[tuple[int, int]] = []
    dataset = generate_dataset(
        600, seed=3, threads=1, progress=lambda done, total: seen.append((done, total))
    )
    assert seen[-1] == (600, 600)
    path = save_dataset(dataset, tmp_path / "equity.npz")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["equity.npz"]
    loaded = load_dataset(path)
    np.testing.assert_array_equal(loaded.holes, dataset.holes)
    np.testing.assert_array_equal(loaded.boards, dataset.boards)
    np.testing.assert_array_equal(loaded.equity, dataset.equity)
    np.testing.assert_array_equal(loaded.mask, dataset.mask)
    assert loaded.fingerprint == dataset.fingerprint
    assert loaded.equity.dtype == np.float16
    assert loaded.street_mix == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    exact, _ = true_equities(dataset.holes[:20], dataset.boards[:20])
    np.testing.assert_allclose(loaded.equity[:20], exact, atol=5e-4)
    again = generate_dataset(600, seed=3, threads=None)
    assert again.fingerprint == dataset.fingerprint
    assert generate_dataset(600, seed=4).fingerprint != dataset.fingerprint


def test_bad_files_and_paths_raise_clear_errors(tmp_path: Path) -> None:
    """Missing, foreign and wrongly named files are refused with the path in the message."""
    with pytest.raises(EquityDataError, match="no dataset file"):
        load_dataset(tmp_path / "missing.npz")
    other = tmp_path / "other.npz"
    np.savez(other, x=np.zeros(3))
    with pytest.raises(EquityDataError, match="not a poolshark-equity-v1"):
        load_dataset(other)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip file")
    with pytest.raises(EquityDataError, match="cannot read dataset"):
        load_dataset(junk)
    with pytest.raises(EquityDataError, match=r"end in \.npz"):
        save_dataset(generate_dataset(2, seed=0), tmp_path / "data.csv")


@pytest.mark.parametrize(
    ("holes", "boards", "message"),
    [
        ([[0, 1]], [[2, 3, NO_CARD, NO_CARD, NO_CARD]], "3, 4 or 5 cards"),
        ([[0, 1]], [[1, 3, 4, NO_CARD, NO_CARD]], "dealt twice"),
        ([[0, 0]], [[2, 3, 4, NO_CARD, NO_CARD]], "dealt twice"),
        ([[0, 52]], [[2, 3, 4, NO_CARD, NO_CARD]], "0..51"),
        ([[0, 1]], [[2, NO_CARD, 3, 4, NO_CARD]], "dealt cards first"),
        ([[0, 1, 2]], [[3, 4, 5, 6, 7]], r"\(n, 2\)"),
        ([[0, 1]], [[3, 4, 5]], r"\(n, 5\)"),
        ([[0.0, 1.0]], [[3, 4, 5, 6, 7]], "integer"),
    ],
)
def test_bad_samples_raise_errors_naming_the_problem(
    holes: list[list[float]], boards: list[list[int]], message: str
) -> None:
    """Wrong shapes, sizes, repeated or out-of-range cards raise EquityDataError."""
    with pytest.raises(EquityDataError, match=message):
        true_equities(holes, boards)


def test_bad_street_mix_and_reference_input() -> None:
    """A street mix that is not 3 non-negative weights, and bad reference input, fail clearly."""
    with pytest.raises(EquityDataError, match="street_mix"):
        random_samples(5, 0, street_mix=(1.0, -1.0, 1.0))
    with pytest.raises(EquityDataError, match="street_mix"):
        random_samples(5, 0, street_mix=(1.0, 1.0))
    with pytest.raises(EquityDataError, match=">= 0"):
        random_samples(-1, 0)
    with pytest.raises(EquityDataError, match="3, 4 or 5"):
        reference_equities([0, 1], [2, 3], [0])
