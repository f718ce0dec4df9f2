"""Suit isomorphism: the permutation tables and canonical forms of deals."""

from __future__ import annotations

import random
from itertools import combinations, pairwise

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.cards.card import N_CARDS, CardError, parse_cards, rank_of
from poolshark.cards.combos import COMBO_CARDS, COMBO_CLASS, N_COMBOS
from poolshark.cards.isomorphism import (
    CARD_PERMUTATIONS,
    COMBO_PERMUTATIONS,
    SUIT_PERMUTATIONS,
    canonical_form,
    canonical_key,
)

Cards = npt.NDArray[np.int64]


def test_suit_permutations() -> None:
    """24 distinct permutations of the four suits, identity first."""
    assert SUIT_PERMUTATIONS.shape == (24, 4)
    assert SUIT_PERMUTATIONS.dtype == np.int8
    assert SUIT_PERMUTATIONS[0].tolist() == [0, 1, 2, 3]
    assert len({tuple(row) for row in SUIT_PERMUTATIONS.tolist()}) == 24
    assert all(sorted(row) == [0, 1, 2, 3] for row in SUIT_PERMUTATIONS.tolist())


def test_card_permutations() -> None:
    """Each row is a bijection of the deck that keeps ranks and applies its suit map."""
    assert CARD_PERMUTATIONS.shape == (24, N_CARDS)
    assert CARD_PERMUTATIONS.dtype == np.uint8
    cards = np.arange(N_CARDS)
    assert np.array_equal(CARD_PERMUTATIONS[0], cards)
    for p in range(24):
        row = CARD_PERMUTATIONS[p].astype(np.int64)
        assert sorted(row.tolist()) == cards.tolist()
        assert np.array_equal(row >> 2, cards >> 2)
        assert np.array_equal(row & 3, SUIT_PERMUTATIONS[p][cards & 3])
    rows = {tuple(row) for row in CARD_PERMUTATIONS.tolist()}
    for p in range(24):
        for q in range(24):
            composed = CARD_PERMUTATIONS[p][CARD_PERMUTATIONS[q]]
            assert tuple(composed.tolist()) in rows


def test_combo_permutations() -> None:
    """Each row maps a combo to the combo of its permuted cards, bijectively."""
    assert COMBO_PERMUTATIONS.shape == (24, N_COMBOS)
    assert COMBO_PERMUTATIONS.dtype == np.int16
    assert np.array_equal(COMBO_PERMUTATIONS[0], np.arange(N_COMBOS))
    for p in range(24):
        row = COMBO_PERMUTATIONS[p]
        assert np.array_equal(np.sort(row), np.arange(N_COMBOS))
        moved = np.sort(CARD_PERMUTATIONS[p][COMBO_CARDS], axis=1)
        assert np.array_equal(COMBO_CARDS[row], moved)
        assert np.array_equal(COMBO_CLASS[row], COMBO_CLASS)


def test_tables_are_read_only() -> None:
    """The shared tables cannot be modified."""
    for table in (SUIT_PERMUTATIONS, CARD_PERMUTATIONS, COMBO_PERMUTATIONS):
        assert not table.flags.writeable


deals = st.lists(st.integers(0, N_CARDS - 1), min_size=2, max_size=7, unique=True)


@settings(max_examples=200)
@given(deals, st.integers(0, 23), st.randoms(use_true_random=False))
def test_canonical_form_invariant(cards: list[int], p: int, rnd: random.Random) -> None:
    """Renaming suits (and reordering cards within a group) keeps the canonical form."""
    hole, board = cards[:2], cards[2:]
    form = canonical_form(hole, board)
    moved = [int(c) for c in CARD_PERMUTATIONS[p][cards]]
    moved_hole, moved_board = moved[:2][::-1], moved[2:]
    rnd.shuffle(moved_board)
    assert canonical_form(moved_hole, moved_board) == form
    assert canonical_form(*form) == form
    # The form is one of the deal's renamings, sorted within each group.
    renamings = {
        (
            tuple(sorted(CARD_PERMUTATIONS[q][hole].tolist())),
            tuple(sorted(CARD_PERMUTATIONS[q][board].tolist())),
        )
        for q in range(24)
    }
    assert form == min(renamings)


@settings(max_examples=100)
@given(deals, deals)
def test_different_rank_structures_differ(first: list[int], second: list[int]) -> None:
    """Canonical forms keep each group's ranks, so different rank multisets never collide."""
    a, b = canonical_form(first[:2], first[2:]), canonical_form(second[:2], second[2:])
    assert sorted(map(rank_of, a[0])) == sorted(map(rank_of, first[:2]))
    assert sorted(map(rank_of, a[1])) == sorted(map(rank_of, first[2:]))
    if sorted(map(rank_of, first[:2])) != sorted(map(rank_of, second[:2])):
        assert a != b


def test_suits_matter_beyond_ranks() -> None:
    """Same ranks with different suit structures give different forms."""
    hole = parse_cards("AhKh")
    assert canonical_form(hole, parse_cards("2h3h4c")) != canonical_form(
        hole, parse_cards("2c3c4h")
    )
    assert canonical_form(hole, parse_cards("2h3d4c")) == canonical_form(
        parse_cards("AsKs"), parse_cards("4d3c2s")
    )
    assert canonical_form(parse_cards("AhKh")) != canonical_form(parse_cards("AhKd"))


def test_groups_are_sets_and_order_matters() -> None:
    """Card order inside a group is ignored; which group a card is in is not."""
    hero, villain = parse_cards("AhKh"), parse_cards("QsQd")
    key = canonical_key([hero, villain, []])
    assert key == canonical_key([hero[::-1], villain[::-1], ()])
    assert canonical_key([villain, hero]) != key[:2]
    assert canonical_key([]) == ()
    assert canonical_key([[], []]) == ((), ())
    assert canonical_form([]) == ((), ())


def test_duplicates_raise() -> None:
    """A card in two groups, twice in one group, or off the deck raises CardError."""
    with pytest.raises(CardError, match="'Ah'"):
        canonical_form(parse_cards("AhKh"), parse_cards("Ah2c3c"))
    with pytest.raises(CardError, match="'Ah'"):
        canonical_key([parse_cards("Ah"), parse_cards("Kd"), parse_cards("Ah")])
    with pytest.raises(CardError):
        canonical_form([51, 51])
    with pytest.raises(CardError):
        canonical_form([52, 0])


def test_preflop_has_169_forms() -> None:
    """The 1326 hole card combos fall into exactly the 169 preflop classes."""
    forms: dict[tuple[tuple[int, ...], tuple[int, ...]], set[int]] = {}
    for combo, (a, b) in enumerate(COMBO_CARDS.tolist()):
        forms.setdefault(canonical_form([a, b]), set()).add(int(COMBO_CLASS[combo]))
    assert len(forms) == 169
    assert all(len(classes) == 1 for classes in forms.values())


def burnside_orbits(deals: Cards, sizes: list[int]) -> int:
    """Orbit count of a suit-closed set of deals: the mean number of deals each renaming fixes."""
    bounds = np.cumsum([0, *sizes])

    def sort_groups(rows: Cards) -> Cards:
        """Sort each group's block of columns."""
        blocks = [np.sort(rows[:, lo:hi], axis=1) for lo, hi in pairwise(bounds)]
        return np.concatenate(blocks, axis=1)

    base = sort_groups(deals)
    fixed = sum(
        int(np.all(sort_groups(CARD_PERMUTATIONS[p][deals].astype(np.int64)) == base, axis=1).sum())
        for p in range(24)
    )
    assert fixed % 24 == 0
    return fixed // 24


def test_distinct_flops() -> None:
    """There are 1,755 strategically distinct flops, by canonical form and by Burnside."""
    flops = np.array(list(combinations(range(N_CARDS), 3)), dtype=np.int64)
    forms = {canonical_key([flop]) for flop in flops.tolist()}
    assert len(forms) == burnside_orbits(flops, [3]) == 1755


def test_hole_and_flop_forms_on_four_ranks() -> None:
    """(hole, flop) deals from the A, K, Q and 2 cards: canonical forms match Burnside."""
    deck = [c for c in range(N_CARDS) if rank_of(c) in (0, 10, 11, 12)]
    dealt = [
        (*hole, *flop)
        for hole in combinations(deck, 2)
        for flop in combinations([c for c in deck if c not in hole], 3)
    ]
    deals = np.array(dealt, dtype=np.int64)
    assert len(deals) == 120 * 364
    forms = {canonical_form(deal[:2], deal[2:]) for deal in deals.tolist()}
    assert len(forms) == burnside_orbits(deals, [2, 3])


def test_heads_up_matchups_on_four_ranks() -> None:
    """Three groups (hero, villain, board card) agree with Burnside too."""
    deck = [c for c in range(N_CARDS) if rank_of(c) in (3, 7, 12)]
    dealt = [
        (*hero, *villain, board)
        for hero in combinations(deck, 2)
        for villain in combinations([c for c in deck if c not in hero], 2)
        for board in deck
        if board not in hero and board not in villain
    ]
    deals = np.array(dealt, dtype=np.int64)
    forms = {canonical_key([d[:2], d[2:4], d[4:]]) for d in deals.tolist()}
    assert len(forms) == burnside_orbits(deals, [2, 2, 1])


def test_burnside_gives_known_hole_flop_count() -> None:
    """Burnside over all hole cards and flops gives the known 1,286,792 classes."""
    flops = np.array(list(combinations(range(N_CARDS), 3)), dtype=np.int64)
    holes = COMBO_CARDS.astype(np.int64)
    fixed = 0
    for p in range(24):
        perm = CARD_PERMUTATIONS[p].astype(np.int64)
        kept_holes = holes[np.all(np.sort(perm[holes], axis=1) == holes, axis=1)]
        kept_flops = flops[np.all(np.sort(perm[flops], axis=1) == flops, axis=1)]
        hole_hot = np.zeros((len(kept_holes), N_CARDS), dtype=np.float32)
        flop_hot = np.zeros((len(kept_flops), N_CARDS), dtype=np.float32)
        np.put_along_axis(hole_hot, kept_holes, 1.0, axis=1)
        np.put_along_axis(flop_hot, kept_flops, 1.0, axis=1)
        fixed += int(np.count_nonzero(hole_hot @ flop_hot.T == 0))
    assert fixed == 24 * 1_286_792


@pytest.mark.slow
def test_hole_and_flop_forms_exhaustive() -> None:
    """Canonical forms of every (hole, flop) deal number 1,286,792 (about a minute).

    Deals whose holes differ in class are never equivalent, and every deal is a renaming of
    one with the class's representative hole, so counting per representative suffices.
    """
    representatives = {canonical_form([a, b])[0] for a, b in COMBO_CARDS.tolist()}
    total = 0
    for hole in representatives:
        rest = [c for c in range(N_CARDS) if c not in hole]
        total += len({canonical_form(hole, flop) for flop in combinations(rest, 3)})
    assert total == 1_286_792
