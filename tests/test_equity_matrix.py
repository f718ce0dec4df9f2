"""The preflop matrices: the suit classes of matchups, the cache glue and (slow) the full build.

Building the matrices enumerates 47,008 matchups (minutes), so the default run checks the
class bookkeeping that the build relies on: the class count (recounted with Burnside's
lemma), the symmetry of ``index`` and ``flipped``, and that every matchup plays exactly
like its class representative. The ``slow`` run loads or builds the real matrices (from
the user cache, ``~/.cache/poolshark`` unless ``POOLSHARK_CACHE_DIR`` says otherwise) and
checks them against exact enumeration and well-known numbers.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from poolshark import cache as disk_cache
from poolshark.cards.combos import (
    CLASS_NAMES,
    COMBO_CLASS,
    N_COMBOS,
    class_combos,
    class_index,
    conflict_matrix,
    parse_combo,
)
from poolshark.cards.isomorphism import COMBO_PERMUTATIONS, N_PERMUTATIONS
from poolshark.cards.ranges import Range
from poolshark.equity import exact, matrix
from poolshark.equity.exact import exact_equity
from poolshark.equity.matrix import (
    CACHE_NAME,
    MATRIX_VERSION,
    PreflopMatrices,
    cached_matrices,
    canonical_matchups,
    forget_cached_matrices,
    preflop_matrices,
)

Matchups = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]
N_MATCHUP_CLASSES = 47_008


@pytest.fixture(scope="module")
def matchups() -> Matchups:
    """canonical_matchups(), computed once (about a second, half a gigabyte at its peak)."""
    return canonical_matchups()


@pytest.fixture(scope="module")
def possible_pairs() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Every ordered pair of combos that share no card."""
    first, second = np.nonzero(~conflict_matrix())
    return first.astype(np.int64), second.astype(np.int64)


@pytest.fixture
def tmp_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty cache directory, with the process-wide cached_matrices() forgotten around it."""
    monkeypatch.setenv("POOLSHARK_CACHE_DIR", str(tmp_path))
    forget_cached_matrices()
    yield tmp_path
    forget_cached_matrices()


def symmetric_mask(
    first: npt.NDArray[np.int64], second: npt.NDArray[np.int64]
) -> npt.NDArray[np.bool_]:
    """True where some suit renaming maps (a, b) to (b, a): a matchup against its mirror."""
    mask = np.zeros(first.size, dtype=np.bool_)
    for p in range(N_PERMUTATIONS):
        mask |= (COMBO_PERMUTATIONS[p, first] == second) & (COMBO_PERMUTATIONS[p, second] == first)
    return mask


# --- the classes -------------------------------------------------------------------------


def test_class_count(matchups: Matchups) -> None:
    """47,008 unordered suit classes of preflop matchups."""
    representatives, index, _ = matchups
    assert representatives.shape == (N_MATCHUP_CLASSES, 2)
    assert index.max() == N_MATCHUP_CLASSES - 1
    assert np.unique(index[index >= 0]).size == N_MATCHUP_CLASSES


def test_class_count_by_burnside(possible_pairs: tuple[npt.NDArray[np.int64], ...]) -> None:
    """Burnside: orbits = mean over the 24 suit renamings of the unordered pairs each fixes.

    An unordered pair {a, b} is fixed by a renaming g when g maps a to a and b to b, or a
    to b and b to a. Counting ordered pairs counts each unordered one twice.
    """
    first, second = possible_pairs
    fixed = 0
    for p in range(N_PERMUTATIONS):
        pa, pb = COMBO_PERMUTATIONS[p, first], COMBO_PERMUTATIONS[p, second]
        fixed += int(
            np.count_nonzero(((pa == first) & (pb == second)) | ((pa == second) & (pb == first)))
        )
    assert fixed % (2 * N_PERMUTATIONS) == 0
    assert fixed // (2 * N_PERMUTATIONS) == N_MATCHUP_CLASSES


def test_index_is_minus_one_exactly_on_conflicts(matchups: Matchups) -> None:
    """Pairs sharing a card (the diagonal included) have no class; all others have one."""
    _, index, flipped = matchups
    assert index.shape == flipped.shape == (N_COMBOS, N_COMBOS)
    np.testing.assert_array_equal(index < 0, conflict_matrix())
    assert np.all(index >= -1)
    assert not flipped[conflict_matrix()].any()


def test_index_is_symmetric(matchups: Matchups) -> None:
    """(a, b) and (b, a) are the same unordered matchup."""
    _, index, _ = matchups
    np.testing.assert_array_equal(index, index.T)


def test_flipped_exactly_one_way_unless_mirror(
    matchups: Matchups, possible_pairs: tuple[npt.NDArray[np.int64], ...]
) -> None:
    """Exactly one of (a, b) and (b, a) is flipped, except for mirror matchups.

    A class key is the smaller of the canonical forms of (a, b) and of (b, a); the order
    whose form is the key is not flipped. When a suit renaming maps (a, b) to (b, a) (say
    AhKs vs AsKh) both forms are equal, so neither order is flipped.
    """
    _, _, flipped = matchups
    first, second = possible_pairs
    mirror = symmetric_mask(first, second)
    assert 0 < mirror.sum() < first.size
    forward, backward = flipped[first, second], flipped[second, first]
    assert not (forward & backward).any()
    np.testing.assert_array_equal(forward ^ backward, ~mirror)


def test_representatives_are_their_own_unflipped_class(matchups: Matchups) -> None:
    """Representative k is a dealable pair whose class is k, not flipped."""
    representatives, index, flipped = matchups
    first, second = representatives[:, 0], representatives[:, 1]
    assert not conflict_matrix()[first, second].any()
    np.testing.assert_array_equal(index[first, second], np.arange(N_MATCHUP_CLASSES))
    assert not flipped[first, second].any()


def test_classes_are_closed_under_suit_renaming(
    matchups: Matchups, possible_pairs: tuple[npt.NDArray[np.int64], ...]
) -> None:
    """Renaming suits keeps a matchup's class and its orientation."""
    _, index, flipped = matchups
    first, second = possible_pairs
    for p in range(N_PERMUTATIONS):
        pa, pb = COMBO_PERMUTATIONS[p, first], COMBO_PERMUTATIONS[p, second]
        np.testing.assert_array_equal(index[pa, pb], index[first, second])
        np.testing.assert_array_equal(flipped[pa, pb], flipped[first, second])


def test_random_matchups_play_like_their_representative(matchups: Matchups) -> None:
    """Exact equity of (a, b) = the representative's, or one minus it when flipped."""
    representatives, index, flipped = matchups
    rng = random.Random(2024)
    checked = 0
    while checked < 10:
        a, b = rng.randrange(N_COMBOS), rng.randrange(N_COMBOS)
        if index[a, b] < 0:
            continue
        rep_a, rep_b = representatives[index[a, b]].tolist()
        ours = exact_equity([Range.of_combos([a]), Range.of_combos([b])], threads=1)
        theirs = exact_equity([Range.of_combos([rep_a]), Range.of_combos([rep_b])], threads=1)
        if flipped[a, b]:
            assert ours.equities[0] == pytest.approx(theirs.equities[1], abs=1e-12)
            assert ours.wins == pytest.approx(theirs.wins[::-1], abs=1e-12)
        else:
            assert ours.equities[0] == pytest.approx(theirs.equities[0], abs=1e-12)
            assert ours.wins == pytest.approx(theirs.wins, abs=1e-12)
        assert ours.ties == pytest.approx(theirs.ties, abs=1e-12)
        checked += 1


@pytest.mark.parametrize(
    ("first", "second"), [("AhKs", "AsKh"), ("7c2d", "7d2c"), ("JhTc", "JcTh")]
)
def test_mirror_matchups_are_even(matchups: Matchups, first: str, second: str) -> None:
    """A matchup that is its own mirror is unflipped both ways and splits equity evenly."""
    _, index, flipped = matchups
    a, b = parse_combo(first), parse_combo(second)
    assert index[a, b] == index[b, a] >= 0
    assert not flipped[a, b]
    assert not flipped[b, a]
    result = exact_equity([Range.of_combos([a]), Range.of_combos([b])], threads=1)
    assert result.equities == pytest.approx((0.5, 0.5), abs=1e-15)


# --- cache glue ----------------------------------------------------------------------------


def fake_arrays() -> disk_cache.Arrays:
    """Small stand-in win and tie matrices (the loader does not check their shape)."""
    win = np.array([[0.0, 0.25], [0.5, 0.0]])
    tie = np.array([[0.0, 0.25], [0.25, 0.0]])
    return {"win": win, "tie": tie}


def test_preflop_matrices_load_a_valid_cache_without_building(
    tmp_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A valid cache entry is returned as read-only float64 matrices; nothing is built."""

    def no_build(*args: object, **kwargs: object) -> disk_cache.Arrays:
        raise AssertionError("the matrices should have come from the cache")

    monkeypatch.setattr(matrix, "build_matrices", no_build)
    path = disk_cache.save(CACHE_NAME, MATRIX_VERSION, fake_arrays())
    assert path == tmp_cache / f"{CACHE_NAME}-{MATRIX_VERSION}.npz"
    loaded = preflop_matrices()
    assert isinstance(loaded, PreflopMatrices)
    np.testing.assert_array_equal(loaded.win, fake_arrays()["win"])
    np.testing.assert_array_equal(loaded.tie, fake_arrays()["tie"])
    np.testing.assert_array_equal(loaded.equity, [[0.0, 0.375], [0.625, 0.0]])
    assert loaded.win.dtype == loaded.tie.dtype == np.float64
    assert not loaded.win.flags.writeable
    assert not loaded.tie.flags.writeable
    cached = cached_matrices()
    assert cached is not None
    np.testing.assert_array_equal(cached.win, loaded.win)


def test_cached_matrices_is_none_without_a_cache(tmp_cache: Path) -> None:
    """No file, no matrices (and no build)."""
    assert cached_matrices() is None
    assert not any(tmp_cache.iterdir())


def test_preflop_matrices_build_when_missing(
    tmp_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing entry is built once, saved, and then loaded from the cache."""
    calls: list[int] = []

    def fake_build(*args: object, **kwargs: object) -> disk_cache.Arrays:
        calls.append(1)
        return fake_arrays()

    monkeypatch.setattr(matrix, "build_matrices", fake_build)
    first = preflop_matrices()
    second = preflop_matrices()
    assert calls == [1]
    np.testing.assert_array_equal(first.win, second.win)
    assert (tmp_cache / f"{CACHE_NAME}-{MATRIX_VERSION}.npz").exists()


# --- slow: the real matrices ---------------------------------------------------------------


@pytest.fixture(scope="module")
def real_matrices() -> PreflopMatrices:
    """The full matrices from the user cache, built there first if missing (minutes)."""
    return preflop_matrices()


def class_vs_class(equity: npt.NDArray[np.float64], first: str, second: str) -> float:
    """Mean equity of one preflop class against another over the pairs that can be dealt."""
    rows = np.array(class_combos(class_index(first)))
    columns = np.array(class_combos(class_index(second)))
    block = equity[np.ix_(rows, columns)]
    possible = ~conflict_matrix()[np.ix_(rows, columns)]
    return float(block[possible].mean())


def equity_vs_random(equity: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """(169,) mean equity of each class against a random hand, with card removal."""
    possible = ~conflict_matrix()
    per_combo = (equity * possible).sum(axis=1) / possible.sum(axis=1)
    return np.bincount(COMBO_CLASS, weights=per_combo) / np.bincount(COMBO_CLASS)


@pytest.mark.slow
def test_real_matrices_are_consistent(real_matrices: PreflopMatrices) -> None:
    """Shapes, zeros on conflicts, win + tie + loss = 1 and equity + equity.T = 1."""
    win, tie, equity = real_matrices.win, real_matrices.tie, real_matrices.equity
    conflicts = conflict_matrix()
    assert win.shape == tie.shape == (N_COMBOS, N_COMBOS)
    assert not win[conflicts].any()
    assert not tie[conflicts].any()
    possible = ~conflicts
    np.testing.assert_allclose((equity + equity.T)[possible], 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose((win + tie + win.T)[possible], 1.0, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(tie, tie.T)
    assert (win >= 0).all()
    assert (tie >= 0).all()


@pytest.mark.slow
def test_real_matrices_reference_values(real_matrices: PreflopMatrices) -> None:
    """AhKh vs QdQc from its counts; AA vs KK about 82 %."""
    a, b = parse_combo("AhKh"), parse_combo("QdQc")
    assert real_matrices.win[a, b] == pytest.approx(787_966 / 1_712_304, abs=1e-15)
    assert real_matrices.tie[a, b] == pytest.approx(6_732 / 1_712_304, abs=1e-15)
    assert round(real_matrices.equity[a, b], 6) == 0.462145
    assert class_vs_class(real_matrices.equity, "AA", "KK") == pytest.approx(0.82, abs=0.005)


@pytest.mark.slow
def test_real_matrices_match_exact_single_matchups(real_matrices: PreflopMatrices) -> None:
    """Twenty random entries equal a fresh enumeration of that matchup."""
    rng = random.Random(99)
    checked = 0
    while checked < 20:
        a, b = rng.randrange(N_COMBOS), rng.randrange(N_COMBOS)
        if conflict_matrix()[a, b]:
            continue
        result = exact_equity([Range.of_combos([a]), Range.of_combos([b])], threads=1)
        assert real_matrices.win[a, b] == pytest.approx(result.wins[0], abs=1e-12)
        assert real_matrices.tie[a, b] == pytest.approx(result.ties[0], abs=1e-12)
        checked += 1


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "hand", "expected"), [("AA", "AhAs", 0.852), ("72o", "7h2c", 0.346)]
)
def test_real_matrices_equity_vs_random_hand(
    real_matrices: PreflopMatrices,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    hand: str,
    expected: float,
) -> None:
    """A class's equity against any hand, from the matrix, equals a direct enumeration.

    The enumeration is forced (no matrix shortcut) by hiding the cached matrices.
    """
    from_matrix = equity_vs_random(real_matrices.equity)[CLASS_NAMES.index(name)]
    assert from_matrix == pytest.approx(expected, abs=5e-4)
    monkeypatch.setattr(exact, "cached_matrices", lambda: None)
    direct = exact_equity([Range.parse(hand), Range.full()])
    assert from_matrix == pytest.approx(direct.equities[0], abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize(("first", "second"), [("QQ+,AKs", "AK,JJ"), ("AhKh", "22+:0.5,A2s+")])
def test_headsup_range_shortcut_matches_enumeration(
    real_matrices: PreflopMatrices, monkeypatch: pytest.MonkeyPatch, first: str, second: str
) -> None:
    """exact_equity reads heads-up preflop ranges off the matrices: same as enumerating."""
    forget_cached_matrices()
    assert cached_matrices() is not None
    ranges = [Range.parse(first), Range.parse(second)]
    shortcut = exact_equity(ranges)
    monkeypatch.setattr(exact, "cached_matrices", lambda: None)
    enumerated = exact_equity(ranges)
    assert shortcut.equities == pytest.approx(enumerated.equities, abs=1e-12)
    assert shortcut.wins == pytest.approx(enumerated.wins, abs=1e-12)
    assert shortcut.ties == pytest.approx(enumerated.ties, abs=1e-12)
    assert shortcut.boards == enumerated.boards
