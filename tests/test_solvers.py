"""The three shove/fold solvers and the push/fold sweep.

The exact linear program must reproduce the published 10 bb no-ante equilibrium (the
small blind shoves 58.3% of combos, the big blind calls 37.4%, the small blind loses about
0.045 bb per hand) with zero exploitability; gradient descent and fictitious play must get
within 0.001 bb/hand of it at their default settings. Hands the solution plays are checked
class by class, allowing either action where a hand is within 0.1 bb of indifference.
"""

from __future__ import annotations

import csv
import io
import itertools
import json

import numpy as np
import pytest

from poolshark.cards.combos import (
    CLASS_NAMES,
    N_CLASSES,
    N_COMBOS,
    class_combos,
    class_index,
    conflict_matrix,
)
from poolshark.equity.matrix import PreflopMatrices
from poolshark.solve import solvers
from poolshark.solve.shove_fold import (
    Payoffs,
    ShoveFoldGame,
    fraction_of_combos,
    payoffs,
    per_combo,
)
from poolshark.solve.solvers import (
    SOLVERS,
    Solution,
    solve,
    solve_exact,
    solve_fictitious,
    solve_gradient,
)
from poolshark.solve.sweep import PushFoldTable, stack_grid, sweep

RANKS = "23456789TJQK"
PAIRS = [r + r for r in "23456789TJQKA"]
ACES = [f"A{r}{kind}" for r in RANKS for kind in "so"]
KINGS = [f"K{r}{kind}" for r in RANKS[:-1] for kind in "so"]
INDIFFERENT_BB = 0.1  # hands this close to indifference may go either way


@pytest.fixture(scope="module")
def ten(preflop: PreflopMatrices) -> Payoffs:
    """The payoff form of the 10 bb game without antes."""
    return payoffs(ShoveFoldGame(stack=10), preflop)


@pytest.fixture(scope="module")
def exact(ten: Payoffs) -> Solution:
    """The exact equilibrium at 10 bb."""
    return solve_exact(ten)


def representative(name: str) -> int:
    """The first combo of a class."""
    return class_combos(class_index(name))[0]


def shove_margin(the_payoffs: Payoffs, call: np.ndarray) -> np.ndarray:
    """(1326,) bb the small blind gains by shoving rather than folding, holding each combo."""
    margin: np.ndarray = N_COMBOS * (the_payoffs.gain + the_payoffs.call_matrix @ call)
    return margin


def call_margin(the_payoffs: Payoffs, shove: np.ndarray) -> np.ndarray:
    """(1326,) bb the big blind gains by calling rather than folding, facing a shove."""
    facing = (~conflict_matrix()).astype(np.float64) @ shove / 1225
    per_hand = -N_COMBOS * (shove @ the_payoffs.call_matrix)
    margin: np.ndarray = np.divide(per_hand, facing, out=np.zeros(N_COMBOS), where=facing > 0)
    return margin


# --- the exact solution at 10 bb ----------------------------------------------------------


def test_exact_matches_the_published_ten_bb_equilibrium(exact: Solution) -> None:
    """58.3% shoved, 37.4% called, the small blind loses 0.045 bb/hand, nothing to exploit."""
    assert exact.method == "exact"
    assert fraction_of_combos(exact.shove) == pytest.approx(0.583, abs=0.005)
    assert fraction_of_combos(exact.call) == pytest.approx(0.374, abs=0.005)
    assert exact.exploitability.value == pytest.approx(-0.045, abs=0.002)
    assert exact.exploitability.total < 1e-9
    assert exact.exploitability.sb_gives_up < 1e-9
    assert exact.exploitability.bb_gives_up < 1e-9
    assert exact.seconds >= 0


def test_exact_strategies_are_class_symmetric_probabilities(exact: Solution) -> None:
    """Every combo of a class plays alike, and frequencies are in [0, 1]."""
    for strategy in (exact.shove, exact.call):
        assert strategy.shape == (N_COMBOS,)
        assert strategy.min() >= 0
        assert strategy.max() <= 1
        per_class = np.array([strategy[class_combos(c)[0]] for c in range(N_CLASSES)])
        assert np.array_equal(strategy, per_combo(per_class))


@pytest.mark.parametrize(
    ("names", "shoved"),
    [
        (PAIRS, True),
        (ACES, True),
        (KINGS, True),
        (["J2s", "T3s", "94s", "Q6o", "72o", "32o"], False),
    ],
    ids=["pairs", "aces", "kings", "folds"],
)
def test_exact_shoving_range(ten: Payoffs, exact: Solution, names: list[str], shoved: bool) -> None:
    """Pairs, aces and kings are shoved; J2s, T3s, 94s and Q6o are folded at 10 bb."""
    margins = shove_margin(ten, exact.call)
    for name in names:
        combo = representative(name)
        if abs(margins[combo]) < INDIFFERENT_BB:
            continue  # close to indifferent: either action is fine
        assert exact.shove[combo] == (1.0 if shoved else 0.0), name
        assert (margins[combo] > 0) == shoved, name


CALLED = [*PAIRS, *ACES, *[f"K{r}s" for r in RANKS[:-1]], *[f"K{r}o" for r in "56789TJQ"]]


@pytest.mark.parametrize(
    ("names", "called"),
    [(CALLED, True), (["K2o", "K3o", "Q2o", "72o", "J2s"], False)],
    ids=["calls", "folds"],
)
def test_exact_calling_range(ten: Payoffs, exact: Solution, names: list[str], called: bool) -> None:
    """The big blind calls all pairs, every ace, K2s+ and K5o+ at 10 bb."""
    margins = call_margin(ten, exact.shove)
    for name in names:
        combo = representative(name)
        if abs(margins[combo]) < INDIFFERENT_BB:
            continue
        assert exact.call[combo] == (1.0 if called else 0.0), name
        assert (margins[combo] > 0) == called, name


def test_exact_mixes_only_indifferent_classes(ten: Payoffs, exact: Solution) -> None:
    """A class played with a mixed frequency is exactly indifferent (the equilibrium condition);
    a class played always (never) gains (loses) by playing."""
    shove_gain = shove_margin(ten, exact.call)
    call_gain = call_margin(ten, exact.shove)
    for strategy, gain in ((exact.shove, shove_gain), (exact.call, call_gain)):
        mixed = (strategy > 1e-9) & (strategy < 1 - 1e-9)
        assert np.all(np.abs(gain[mixed]) < 1e-9)
        assert np.all(gain[strategy == 1.0] >= -1e-9)
        assert np.all(gain[strategy == 0.0] <= 1e-9)


def test_exact_solves_games_with_antes_and_small_blinds(preflop: PreflopMatrices) -> None:
    """Other games solve with zero exploitability too."""
    for game in (
        ShoveFoldGame(stack=1),
        ShoveFoldGame(stack=4.7, ante=0.3),
        ShoveFoldGame(stack=25, small_blind=0.4, ante=0.1),
    ):
        solution = solve_exact(payoffs(game, preflop))
        assert solution.exploitability.total < 1e-9, game


# --- game options -------------------------------------------------------------------------


def test_an_ante_means_more_shoving_and_calling(preflop: PreflopMatrices) -> None:
    """Antes put more money in the pot: both seats play wider at 10 bb."""
    plain = solve_exact(payoffs(ShoveFoldGame(stack=10), preflop))
    ante = solve_exact(payoffs(ShoveFoldGame(stack=10, ante=0.1), preflop))
    assert fraction_of_combos(ante.shove) > fraction_of_combos(plain.shove) + 0.01
    assert fraction_of_combos(ante.call) > fraction_of_combos(plain.call) + 0.01
    assert np.all(ante.shove >= plain.shove - 1e-9)


def test_a_smaller_small_blind_means_less_shoving(preflop: PreflopMatrices) -> None:
    """Folding a 0.4 bb small blind costs less, so the small blind shoves tighter and its
    value rises; the big blind calls tighter against the tighter range."""
    plain = solve_exact(payoffs(ShoveFoldGame(stack=10), preflop))
    small = solve_exact(payoffs(ShoveFoldGame(stack=10, small_blind=0.4), preflop))
    assert fraction_of_combos(small.shove) < fraction_of_combos(plain.shove) - 0.01
    assert fraction_of_combos(small.call) < fraction_of_combos(plain.call)
    assert small.exploitability.value > plain.exploitability.value


# --- the iterative solvers ----------------------------------------------------------------


def assert_curve_steps(
    curve: list[tuple[int, float]], *, iterations: int, every: int, start: int
) -> None:
    """The curve is measured in increasing steps, at least every ``every`` steps and last."""
    steps = [step for step, _ in curve]
    assert steps[0] == start
    assert steps[-1] == iterations
    assert steps == sorted(set(steps))
    assert set(range(every, iterations + 1, every)) <= set(steps)
    assert all(value >= 0 for _, value in curve)


def test_gradient_at_default_settings_is_near_the_equilibrium(
    ten: Payoffs, exact: Solution
) -> None:
    """3,000 Adam steps: under 0.001 bb/hand exploitable, fractions within 0.01 of exact."""
    solution = solve_gradient(ten)
    assert solution.method == "gradient"
    assert solution.exploitability.total < 0.001
    assert fraction_of_combos(solution.shove) == pytest.approx(
        fraction_of_combos(exact.shove), abs=0.01
    )
    assert fraction_of_combos(solution.call) == pytest.approx(
        fraction_of_combos(exact.call), abs=0.01
    )
    assert solution.exploitability.value == pytest.approx(exact.exploitability.value, abs=0.002)


def test_fictitious_play_at_default_settings_is_near_the_equilibrium(
    ten: Payoffs, exact: Solution
) -> None:
    """20,000 rounds of fictitious play: under 0.001 bb/hand, fractions within 0.01."""
    solution = solve_fictitious(ten)
    assert solution.method == "fictitious"
    assert solution.exploitability.total < 0.001
    assert fraction_of_combos(solution.shove) == pytest.approx(
        fraction_of_combos(exact.shove), abs=0.01
    )
    assert fraction_of_combos(solution.call) == pytest.approx(
        fraction_of_combos(exact.call), abs=0.01
    )
    assert solution.curve[-1][0] == 20_000
    assert solution.curve[-1][1] == pytest.approx(solution.exploitability.total)


def test_gradient_mechanics(ten: Payoffs) -> None:
    """A short run: the curve is recorded every N steps and improves; seeds are reproducible."""
    first = solve_gradient(ten, iterations=60, record_every=20, seed=3)
    assert_curve_steps(first.curve, iterations=60, every=20, start=0)
    assert first.curve[-1][1] < first.curve[0][1]
    assert first.curve[-1][1] == pytest.approx(first.exploitability.total)
    for strategy in (first.shove, first.call):
        assert strategy.shape == (N_COMBOS,)
        assert strategy.dtype == np.float64
        assert 0 <= strategy.min() <= strategy.max() <= 1
    again = solve_gradient(ten, iterations=60, record_every=20, seed=3)
    assert np.array_equal(first.shove, again.shove)
    assert np.array_equal(first.call, again.call)
    other = solve_gradient(ten, iterations=60, record_every=20, seed=4)
    assert not np.array_equal(first.shove, other.shove)


def test_gradient_with_no_steps_is_the_uniform_start(ten: Payoffs) -> None:
    """Zero iterations: logits near 0, so every combo plays about half the time."""
    solution = solve_gradient(ten, iterations=0)
    assert len(solution.curve) == 1
    assert solution.curve[0][0] == 0
    assert solution.curve[0][1] == pytest.approx(solution.exploitability.total)
    assert np.allclose(solution.shove, 0.5, atol=0.01)
    assert np.allclose(solution.call, 0.5, atol=0.01)


def test_fictitious_mechanics(ten: Payoffs) -> None:
    """A short run of fictitious play: averaged pure strategies on classes, recorded curve."""
    solution = solve_fictitious(ten, iterations=100, record_every=25)
    assert_curve_steps(solution.curve, iterations=100, every=25, start=1)
    assert solution.curve[-1][1] < solution.curve[0][1]
    for strategy in (solution.shove, solution.call):
        assert 0 <= strategy.min() <= strategy.max() <= 1
        # An average of 100 pure strategies: multiples of 1/100.
        assert np.allclose(strategy * 100, np.round(strategy * 100), atol=1e-9)
        per_class = np.array([strategy[class_combos(c)[0]] for c in range(N_CLASSES)])
        assert np.array_equal(strategy, per_combo(per_class))


def test_solve_dispatches_by_name(
    ten: Payoffs, exact: Solution, monkeypatch: pytest.MonkeyPatch
) -> None:
    """solve() runs the named method, passes the seed to gradient descent, refuses others."""
    assert SOLVERS == ("exact", "gradient", "fictitious")
    assert solve(ten).method == "exact"
    seen: dict[str, object] = {}

    marker = Solution("fake", np.zeros(N_COMBOS), np.zeros(N_COMBOS), exact.exploitability, 0.0)

    def fake_gradient(the_payoffs: Payoffs, *, seed: int = 0) -> Solution:
        seen["seed"] = seed
        return marker

    monkeypatch.setattr(solvers, "solve_gradient", fake_gradient)
    assert solve(ten, "gradient", seed=9) is marker
    assert seen == {"seed": 9}
    with pytest.raises(ValueError, match="unknown method 'foo'"):
        solve(ten, "foo")


# --- sweeps -------------------------------------------------------------------------------


def test_stack_grid() -> None:
    """1 to 25 bb in 0.1 bb steps is 241 stacks; custom steps; bad ranges are refused."""
    grid = stack_grid(1, 25)
    assert len(grid) == 241
    assert grid[0] == 1.0
    assert grid[-1] == 25.0
    assert np.allclose(np.diff(grid), 0.1)
    assert all(round(stack, 1) == stack for stack in grid)
    assert stack_grid(2, 20, 2) == [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
    assert stack_grid(5, 5) == [5]
    for low, high, step in ((0, 5, 1), (-1, 5, 1), (6, 2, 1), (2, 6, 0), (2, 6, -1)):
        with pytest.raises(ValueError, match="bad stack range"):
            stack_grid(low, high, step)


def test_stack_grid_never_goes_past_high() -> None:
    """A step that does not divide the range stops at the last stack within it."""
    assert stack_grid(1, 2, 0.6) == [1.0, 1.6]


def test_stack_grid_has_no_repeated_stacks() -> None:
    """Steps finer than the 0.1 bb rounding must not solve the same stack twice."""
    grid = stack_grid(1, 1.2, 0.05)
    assert len(set(grid)) == len(grid)


@pytest.fixture(scope="module")
def coarse(preflop: PreflopMatrices) -> PushFoldTable:
    """The push/fold table over 2, 4, ..., 20 bb."""
    calls: list[tuple[int, int]] = []
    table = sweep(preflop, stack_grid(2, 20, 2), progress=lambda i, n: calls.append((i, n)))
    assert calls == [(i, 10) for i in range(1, 11)]
    return table


def test_sweep_rows_are_equilibria_with_the_expected_shape(coarse: PushFoldTable) -> None:
    """Every row is exact; both seats play tighter as stacks grow."""
    assert coarse.stacks == stack_grid(2, 20, 2)
    assert [row.stack for row in coarse.rows] == coarse.stacks
    assert all(row.exploitability < 1e-9 for row in coarse.rows)
    shoves = [row.shove_fraction for row in coarse.rows]
    calls = [row.call_fraction for row in coarse.rows]
    assert all(b <= a + 0.005 for a, b in itertools.pairwise(shoves))
    assert all(b <= a + 0.005 for a, b in itertools.pairwise(calls))
    assert shoves[0] > 0.85
    assert shoves[-1] < 0.45
    ten = coarse.rows[coarse.stacks.index(10)]
    assert ten.shove_fraction == pytest.approx(0.583, abs=0.005)
    assert ten.call_fraction == pytest.approx(0.374, abs=0.005)
    assert ten.sb_value == pytest.approx(-0.045, abs=0.002)


def test_sweep_table_of_largest_stacks(coarse: PushFoldTable) -> None:
    """AA is shoved and called at every depth; 72o is never shoved from 2 bb up."""
    top = coarse.stacks[-1]
    by_name = dict(
        zip(CLASS_NAMES, zip(coarse.max_shove, coarse.max_call, strict=True), strict=True)
    )
    assert by_name["AA"] == (top, top)
    assert by_name["KK"] == (top, top)
    assert by_name["72o"][0] == 0
    assert by_name["32o"][0] == 0
    assert by_name["K2o"][0] == 10  # shoved at 10 bb, not at 12
    assert set(np.unique(coarse.max_shove)) <= {0, *coarse.stacks}
    assert set(np.unique(coarse.max_call)) <= {0, *coarse.stacks}


def test_sweep_at_very_short_stacks_shoves_everything(preflop: PreflopMatrices) -> None:
    """At 1 bb (and 1.5 bb) even 72o is shoved; at 1 bb the big blind calls everything."""
    table = sweep(preflop, [1.0, 1.5])
    assert table.rows[0].shove_fraction == 1.0
    assert table.rows[0].call_fraction == 1.0
    assert table.max_shove[class_index("72o")] == 1.5


def test_sweep_csv_and_json_round_trip(coarse: PushFoldTable) -> None:
    """The CSV and JSON forms read back to the same table."""
    rows = list(csv.DictReader(io.StringIO(coarse.to_csv())))
    assert [row["class"] for row in rows] == list(CLASS_NAMES)
    assert np.array_equal([float(row["max_shove_bb"]) for row in rows], coarse.max_shove)
    assert np.array_equal([float(row["max_call_bb"]) for row in rows], coarse.max_call)
    data = json.loads(json.dumps(coarse.to_json()))
    assert data["stacks"] == coarse.stacks
    assert len(data["rows"]) == len(coarse.rows)
    for read, row in zip(data["rows"], coarse.rows, strict=True):
        assert read == row.__dict__
    classes = data["classes"]
    assert list(classes) == list(CLASS_NAMES)
    assert [c["max_shove_bb"] for c in classes.values()] == list(coarse.max_shove)
    assert [c["max_call_bb"] for c in classes.values()] == list(coarse.max_call)


def test_sweep_with_antes(preflop: PreflopMatrices) -> None:
    """Sweeps take the game's small blind and ante; antes widen the shoving range."""
    plain = sweep(preflop, [8.0, 12.0])
    ante = sweep(preflop, [8.0, 12.0], ante=0.125)
    for a, b in zip(plain.rows, ante.rows, strict=True):
        assert b.shove_fraction > a.shove_fraction
        assert b.exploitability < 1e-9
    assert np.all(ante.max_shove >= plain.max_shove)
