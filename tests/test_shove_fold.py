"""The shove/fold game itself: rules, the payoff form, best responses and user strategies.

The payoff form ``V = base + gain @ s + s @ M @ c`` is checked against a brute-force sum
over explicit deals (win/tie matrices and card overlaps only, no call matrix), and against
the values every poker player knows: folding everything loses the small blind, shoving
into a big blind that never calls wins the big blind, and two players who always get it
in break even. Best responses are checked to beat every other strategy, and exploitability
to be non-negative and zero at the exact equilibrium.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from pydantic import ValidationError

from poolshark.cards.combos import (
    CLASS_NAMES,
    CLASS_SIZE,
    COMBO_CARDS,
    COMBO_CLASS,
    N_CLASSES,
    N_COMBOS,
    class_combos,
    class_index,
    conflict_matrix,
)
from poolshark.equity.matrix import PreflopMatrices
from poolshark.solve.shove_fold import (
    DEAL_PROBABILITY,
    Payoffs,
    ShoveFoldGame,
    class_sums,
    fraction_of_combos,
    payoffs,
    per_combo,
    top_fraction,
)
from poolshark.solve.solvers import Solution, solve_exact

TEN = ShoveFoldGame(stack=10)


@pytest.fixture(scope="module")
def ten(preflop: PreflopMatrices) -> Payoffs:
    """The payoff form of the 10 bb game without antes."""
    return payoffs(TEN, preflop)


@pytest.fixture(scope="module")
def equilibrium(ten: Payoffs) -> Solution:
    """The exact equilibrium of the 10 bb game."""
    return solve_exact(ten)


def random_strategies(seed: int, count: int = 4) -> list[np.ndarray]:
    """Mixed strategies, pure ones and sparse ones, reproducibly."""
    rng = np.random.default_rng(seed)
    strategies = [rng.random(N_COMBOS) for _ in range(count)]
    strategies += [(rng.random(N_COMBOS) < 0.4).astype(np.float64) for _ in range(count)]
    strategies += [np.where(rng.random(N_COMBOS) < 0.1, rng.random(N_COMBOS), 0.0)]
    return strategies


# --- the rules ----------------------------------------------------------------------------


def test_defaults_and_derived_amounts() -> None:
    """Small blind 0.5, no ante; folding loses blind + ante, a steal wins the big blind + ante."""
    assert TEN.small_blind == 0.5
    assert TEN.ante == 0.0
    assert TEN.fold_loss == 0.5
    assert TEN.steal == 1.0
    game = ShoveFoldGame(stack=12.5, small_blind=0.4, ante=0.1)
    assert game.fold_loss == pytest.approx(0.5)
    assert game.steal == pytest.approx(1.1)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"stack": 0}, "greater than 0"),
        ({"stack": -1}, "greater than 0"),
        ({"stack": 10, "ante": -0.1}, "greater than or equal to 0"),
        ({"stack": 10, "small_blind": 0}, "greater than 0"),
        ({"stack": 0.9}, "cannot cover the blind"),
        ({"stack": 1.0, "ante": 0.1}, "cannot cover the blind"),
        ({"stack": 2, "small_blind": 1.5, "ante": 0.6}, "cannot cover the blind"),
        ({"stack": 10, "limit": 3}, "Extra inputs"),
    ],
)
def test_bad_games_are_rejected_with_a_clear_value_error(
    kwargs: dict[str, float], words: str
) -> None:
    """Non-positive stacks, negative antes and stacks short of the forced bets are refused."""
    with pytest.raises(ValueError, match=words) as caught:
        ShoveFoldGame(**kwargs)
    assert isinstance(caught.value, ValidationError)


def test_an_infinite_stack_is_rejected() -> None:
    """A stack must be a finite number of big blinds."""
    with pytest.raises(ValueError, match="stack"):
        ShoveFoldGame(stack=math.inf)


def test_smallest_legal_stack_and_frozen_model() -> None:
    """A stack just covering the big blind and ante is a legal (all-in) game; games are frozen."""
    game = ShoveFoldGame(stack=1.1, ante=0.1)
    assert game.stack == pytest.approx(1.1)
    with pytest.raises(ValidationError):
        game.stack = 5  # type: ignore[misc]


# --- the payoff form ---------------------------------------------------------------------


def brute_force_value(
    game: ShoveFoldGame, preflop: PreflopMatrices, shove: np.ndarray, call: np.ndarray
) -> float:
    """The small blind's value as an explicit sum over every deal of two hands.

    Only combos with a positive shove frequency are enumerated; the rest just fold.
    """
    cards = [frozenset(int(c) for c in pair) for pair in COMBO_CARDS]
    total = 0.0
    for hand in range(N_COMBOS):
        if shove[hand] == 0:
            total += -game.fold_loss / N_COMBOS
            continue
        partners = 0
        after_shove = 0.0
        for other in range(N_COMBOS):
            if cards[hand] & cards[other]:
                continue
            partners += 1
            win = preflop.win[hand, other]
            tie = preflop.tie[hand, other]
            lose = 1.0 - win - tie
            showdown = win * game.stack - lose * game.stack  # a tie gives both their stacks back
            after_shove += (1 - call[other]) * game.steal + call[other] * showdown
        assert partners == 1225
        expected = (1 - shove[hand]) * -game.fold_loss + shove[hand] * after_shove / partners
        total += expected / N_COMBOS
    return total


@pytest.mark.parametrize(
    "game",
    [TEN, ShoveFoldGame(stack=7.3, small_blind=0.4, ante=0.2), ShoveFoldGame(stack=1.5)],
    ids=["10bb", "7.3bb-sb0.4-ante0.2", "1.5bb"],
)
def test_value_matches_a_brute_force_sum_over_deals(
    game: ShoveFoldGame, preflop: PreflopMatrices
) -> None:
    """V(s, c) from the call matrix equals an explicit sum over deals (sparse shove, full call)."""
    rng = np.random.default_rng(7)
    shove = np.zeros(N_COMBOS)
    chosen = rng.choice(N_COMBOS, size=12, replace=False)
    shove[chosen] = rng.random(12)
    shove[chosen[:3]] = 1.0
    call = rng.random(N_COMBOS)
    the_payoffs = payoffs(game, preflop)
    assert the_payoffs.value(shove, call) == pytest.approx(
        brute_force_value(game, preflop, shove, call), abs=1e-12
    )


def test_call_matrix_is_zero_on_conflicts_and_deal_probability(ten: Payoffs) -> None:
    """Combos sharing a card are never dealt together; each possible pair has 1/(1326*1225)."""
    assert ten.call_matrix.shape == (N_COMBOS, N_COMBOS)
    assert np.all(ten.call_matrix[conflict_matrix()] == 0)
    assert abs(DEAL_PROBABILITY * N_COMBOS * 1225 - 1) < 1e-15
    assert np.count_nonzero(~conflict_matrix()) == N_COMBOS * 1225


@pytest.mark.parametrize(
    "game",
    [TEN, ShoveFoldGame(stack=25, ante=0.125), ShoveFoldGame(stack=3, small_blind=0.4)],
    ids=["10bb", "25bb-ante", "3bb-sb0.4"],
)
def test_zero_sum_sanity(game: ShoveFoldGame, preflop: PreflopMatrices) -> None:
    """All fold: -blind-ante; shove into no calls: +steal; always all-in: 0 by symmetry."""
    the_payoffs = payoffs(game, preflop)
    none, every = np.zeros(N_COMBOS), np.ones(N_COMBOS)
    rng = np.random.default_rng(1)
    assert the_payoffs.value(none, rng.random(N_COMBOS)) == pytest.approx(
        -game.fold_loss, abs=1e-12
    )
    assert the_payoffs.value(every, none) == pytest.approx(game.steal, abs=1e-12)
    assert abs(the_payoffs.value(every, every)) < 1e-9


def test_ten_bb_sanity_values(ten: Payoffs) -> None:
    """The numbers from the brief: -0.5, +1.0 and 0 at 10 bb without ante."""
    none, every = np.zeros(N_COMBOS), np.ones(N_COMBOS)
    assert ten.value(none, every) == pytest.approx(-0.5, abs=1e-12)
    assert ten.value(every, none) == pytest.approx(1.0, abs=1e-12)
    assert abs(ten.value(every, every)) < 1e-9


def test_value_is_bilinear(ten: Payoffs) -> None:
    """Mixing two strategies mixes the values (the form is linear in each seat)."""
    a, b, c = random_strategies(3, count=3)[:3]
    mixed = 0.3 * a + 0.7 * b
    assert ten.value(mixed, c) == pytest.approx(
        0.3 * ten.value(a, c) + 0.7 * ten.value(b, c), abs=1e-12
    )
    assert ten.value(c, mixed) == pytest.approx(
        0.3 * ten.value(c, a) + 0.7 * ten.value(c, b), abs=1e-12
    )


# --- best responses and exploitability ------------------------------------------------------


def test_best_shove_beats_every_other_strategy(ten: Payoffs, equilibrium: Solution) -> None:
    """Against any calling strategy no shoving strategy does better than best_shove."""
    calls = [*random_strategies(11), equilibrium.call, np.zeros(N_COMBOS), np.ones(N_COMBOS)]
    rivals = [*random_strategies(12), equilibrium.shove, np.zeros(N_COMBOS), np.ones(N_COMBOS)]
    for call in calls:
        best = ten.best_shove(call)
        assert set(np.unique(best)) <= {0.0, 1.0}
        best_value = ten.value(best, call)
        for rival in rivals:
            assert best_value >= ten.value(rival, call) - 1e-12


def test_best_call_beats_every_other_strategy(ten: Payoffs, equilibrium: Solution) -> None:
    """Against any shoving strategy no calling strategy leaves the small blind less."""
    shoves = [*random_strategies(21), equilibrium.shove, np.zeros(N_COMBOS), np.ones(N_COMBOS)]
    rivals = [*random_strategies(22), equilibrium.call, np.zeros(N_COMBOS), np.ones(N_COMBOS)]
    for shove in shoves:
        best = ten.best_call(shove)
        assert set(np.unique(best)) <= {0.0, 1.0}
        best_value = ten.value(shove, best)
        for rival in rivals:
            assert best_value <= ten.value(shove, rival) + 1e-12


def test_best_responses_are_per_combo_optimal(ten: Payoffs) -> None:
    """Flipping any single combo of a best response never helps (checked on a sample)."""
    rng = np.random.default_rng(5)
    call, shove = rng.random(N_COMBOS), rng.random(N_COMBOS)
    best_shove, best_call = ten.best_shove(call), ten.best_call(shove)
    top = ten.value(best_shove, call)
    bottom = ten.value(shove, best_call)
    for combo in rng.choice(N_COMBOS, size=40, replace=False):
        flipped = best_shove.copy()
        flipped[combo] = 1 - flipped[combo]
        assert ten.value(flipped, call) <= top + 1e-15
        flipped = best_call.copy()
        flipped[combo] = 1 - flipped[combo]
        assert ten.value(shove, flipped) >= bottom - 1e-15


def test_best_response_ties_fold(ten: Payoffs) -> None:
    """Facing no shoves, calling and folding are the same: the big blind folds."""
    assert not ten.best_call(np.zeros(N_COMBOS)).any()
    # Facing no calls, shoving always wins the blinds.
    assert ten.best_shove(np.zeros(N_COMBOS)).all()


def test_exploitability_is_never_negative(ten: Payoffs) -> None:
    """Both best-response gains, computed without clipping, are >= 0 for random pairs."""
    for shove, call in zip(random_strategies(31), random_strategies(32), strict=True):
        measured = ten.exploitability(shove, call)
        value = ten.value(shove, call)
        assert measured.value == pytest.approx(value, abs=1e-15)
        raw_sb = value - ten.value(shove, ten.best_call(shove))
        raw_bb = ten.value(ten.best_shove(call), call) - value
        assert raw_sb >= -1e-12
        assert raw_bb >= -1e-12
        assert measured.sb_gives_up == pytest.approx(max(0.0, raw_sb), abs=1e-15)
        assert measured.bb_gives_up == pytest.approx(max(0.0, raw_bb), abs=1e-15)
        assert measured.total == pytest.approx((raw_sb + raw_bb) / 2, abs=1e-12)
        assert measured.total > 0


def test_exploitability_is_zero_at_the_exact_equilibrium(
    ten: Payoffs, equilibrium: Solution
) -> None:
    """Neither seat gains by deviating from the exact solution."""
    measured = ten.exploitability(equilibrium.shove, equilibrium.call)
    assert 0 <= measured.sb_gives_up <= 1e-12
    assert 0 <= measured.bb_gives_up <= 1e-12
    assert measured.total <= 1e-12


# --- class sums and helpers ---------------------------------------------------------------


def test_class_sums_match_explicit_sums(ten: Payoffs) -> None:
    """class_sums adds every combo pair of two classes; ones give the size products."""
    sums = class_sums(ten.call_matrix)
    assert sums.shape == (N_CLASSES, N_CLASSES)
    for a, b in [("AA", "KK"), ("AKs", "AKo"), ("72o", "22"), ("T9s", "T9s"), ("AA", "AA")]:
        rows, columns = class_combos(class_index(a)), class_combos(class_index(b))
        explicit = sum(ten.call_matrix[r, c] for r in rows for c in columns)
        assert sums[class_index(a), class_index(b)] == pytest.approx(explicit, abs=1e-15)
    counts = class_sums(np.ones((N_COMBOS, N_COMBOS)))
    assert np.array_equal(counts, np.outer(CLASS_SIZE, CLASS_SIZE).astype(np.float64))
    assert sums.sum() == pytest.approx(ten.call_matrix.sum(), abs=1e-12)


def test_per_combo_and_fraction_of_combos() -> None:
    """A class strategy spreads to its combos; fractions count combos, weighted."""
    classes = np.zeros(N_CLASSES)
    classes[class_index("AA")] = 1.0
    classes[class_index("AKs")] = 0.5
    strategy = per_combo(classes)
    assert strategy.shape == (N_COMBOS,)
    assert np.array_equal(strategy, classes[COMBO_CLASS])
    assert fraction_of_combos(strategy) == pytest.approx((6 + 0.5 * 4) / N_COMBOS)


def test_equity_vs_random(preflop: PreflopMatrices) -> None:
    """Known equities against a random hand; the average over all combos is exactly 1/2."""
    strength = preflop.equity_vs_random()
    by_class = {name: strength[class_combos(i)[0]] for i, name in enumerate(CLASS_NAMES)}
    assert by_class["AA"] == pytest.approx(0.8520, abs=5e-4)
    assert by_class["72o"] == pytest.approx(0.3458, abs=5e-4)
    assert min(by_class, key=by_class.__getitem__) == "32o"
    assert max(by_class, key=by_class.__getitem__) == "AA"
    assert strength.mean() == pytest.approx(0.5, abs=1e-12)
    for cls in range(N_CLASSES):  # suits are symmetric
        members = strength[list(class_combos(cls))]
        assert np.ptp(members) < 1e-12


# --- user strategies ----------------------------------------------------------------------


def test_top_fraction_plays_exactly_the_fraction(preflop: PreflopMatrices) -> None:
    """top 30% plays 0.3 * 1326 combos: whole classes and one mixed boundary class."""
    strategy = top_fraction(0.3, preflop)
    assert fraction_of_combos(strategy) == pytest.approx(0.3, abs=1e-12)
    per_class = np.array([strategy[class_combos(c)[0]] for c in range(N_CLASSES)])
    assert np.array_equal(strategy, per_combo(per_class))
    mixed = np.flatnonzero((per_class > 0) & (per_class < 1))
    assert len(mixed) == 1
    for fraction in (0.0, 1.0, 0.5, 1 / N_COMBOS, 0.123):
        played = top_fraction(fraction, preflop)
        assert fraction_of_combos(played) == pytest.approx(fraction, abs=1e-12)
        assert played.min() >= 0
        assert played.max() <= 1


def test_top_fraction_is_monotone_in_strength_and_fraction(preflop: PreflopMatrices) -> None:
    """A stronger hand is played at least as often; a larger fraction plays a superset."""
    strength = preflop.equity_vs_random()
    order = np.argsort(-strength, kind="stable")
    previous = np.zeros(N_COMBOS)
    for fraction in (0.05, 0.1, 0.3, 0.3001, 0.6, 0.95):
        played = top_fraction(fraction, preflop)
        assert np.all(np.diff(played[order]) <= 1e-12)
        assert np.all(played >= previous - 1e-12)
        previous = played
    top = top_fraction(0.3, preflop)
    assert top[class_combos(class_index("AA"))[0]] == 1.0
    assert top[class_combos(class_index("72o"))[0]] == 0.0


@pytest.mark.parametrize("fraction", [-0.1, 1.5, math.nan])
def test_top_fraction_rejects_bad_fractions(fraction: float, preflop: PreflopMatrices) -> None:
    """Fractions outside [0, 1] are a ValueError naming the fraction."""
    with pytest.raises(ValueError, match="fraction"):
        top_fraction(fraction, preflop)


def test_given_strategies_are_exploitable(ten: Payoffs, preflop: PreflopMatrices) -> None:
    """Shoving the top 30% and calling QQ+ is far from an equilibrium, on both sides."""
    shove = top_fraction(0.3, preflop)
    call = np.zeros(N_COMBOS)
    for name in ("AA", "KK", "QQ"):
        call[list(class_combos(class_index(name)))] = 1.0
    measured = ten.exploitability(shove, call)
    assert measured.sb_gives_up > 0
    assert measured.bb_gives_up > 0
    assert measured.total > 0.01
    # The best response to such a tight caller is to shove every hand.
    assert ten.best_shove(call).all()


@pytest.mark.parametrize(
    "game",
    [TEN, ShoveFoldGame(stack=3), ShoveFoldGame(stack=20, ante=0.2)],
    ids=["10bb", "3bb", "20bb-ante"],
)
def test_best_call_against_any_two_is_a_pot_odds_threshold(
    game: ShoveFoldGame, preflop: PreflopMatrices
) -> None:
    """Against a shove of every hand the big blind calls exactly when its equity vs a random
    hand beats the pot odds: equity > 1/2 - steal / (2 * stack) (0.45 at 10 bb)."""
    the_payoffs = payoffs(game, preflop)
    strength = preflop.equity_vs_random()
    threshold = 0.5 - game.steal / (2 * game.stack)
    calls = the_payoffs.best_call(np.ones(N_COMBOS)).astype(bool)
    clear = np.abs(strength - threshold) > 1e-9
    assert np.array_equal(calls[clear], (strength > threshold)[clear])
    if game == TEN:
        assert threshold == pytest.approx(0.45)
        # So it calls more than the hands that are favourites against a random hand.
        assert calls.sum() > np.count_nonzero(strength > 0.5)
