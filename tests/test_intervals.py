"""Intervals across seeds and deals, and the plateau test: known answers and coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolshark.experiments.intervals import (
    critical_value,
    mean_interval,
    plateau,
    ratio_interval,
)

T2 = 4.302652729911275  # Student's t, 2 degrees of freedom, 97.5%
Z = 1.959963984540054


def test_t_interval_on_three_seeds() -> None:
    interval = mean_interval([1.0, 2.0, 3.0], [0.0, 0.0, 0.0])
    assert interval.estimate == pytest.approx(2.0)
    assert interval.high - 2.0 == pytest.approx(T2 / math.sqrt(3))
    assert interval.low == pytest.approx(2.0 - T2 / math.sqrt(3))
    assert "2 df" in interval.method


def test_the_seed_spread_holds_the_deal_noise() -> None:
    # Each seed's value already carries its deals' noise: the spread is the whole variance.
    interval = mean_interval([4.0, 5.0, 6.0], [30.0, 30.0, 30.0])
    assert interval.high - 5.0 == pytest.approx(T2 / math.sqrt(3))


def test_one_seed_is_the_match_interval() -> None:
    interval = mean_interval([10.0], [2.0])
    assert (interval.low, interval.high) == pytest.approx((10 - 2 * Z, 10 + 2 * Z))
    assert "deal noise only" in interval.method
    assert critical_value(1) == pytest.approx(Z)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="one standard error per value"):
        mean_interval([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="at least one value"):
        mean_interval([], [])
    with pytest.raises(ValueError, match="non-negative"):
        mean_interval([1.0], [-1.0])
    with pytest.raises(ValueError, match="same seeds"):
        ratio_interval([1.0, 2.0], [0.0, 0.0], [1.0], [0.0])


def test_fieller_with_a_fixed_denominator_is_the_scaled_t_interval() -> None:
    interval = ratio_interval([1.0, 2.0, 3.0], [0.0] * 3, [2.0, 2.0, 2.0], [0.0] * 3)
    assert interval.estimate == pytest.approx(1.0)
    half = T2 / math.sqrt(3) / 2
    assert (interval.low, interval.high) == pytest.approx((1.0 - half, 1.0 + half))


def test_fieller_is_unbounded_when_the_denominator_reaches_zero() -> None:
    interval = ratio_interval([10.0, 12.0, 11.0], [1.0] * 3, [1.0, -1.0, 2.0], [1.0] * 3)
    assert interval.low == -math.inf
    assert interval.as_dict()["low"] is None
    assert interval.as_dict()["high"] is None


@given(
    st.lists(st.floats(-500, 500), min_size=1, max_size=6),
    st.floats(0.0, 50.0),
)
def test_the_interval_holds_its_estimate(values: list[float], stderr: float) -> None:
    interval = mean_interval(values, [stderr] * len(values))
    assert interval.low <= interval.estimate <= interval.high
    assert interval.high - interval.estimate == pytest.approx(
        interval.estimate - interval.low, abs=1e-9
    )


def _simulated_seeds(
    rng: np.random.Generator, runs: int, seeds: int, mean: float, seed_sd: float, deal_se: float
) -> np.ndarray:
    """Per-seed estimates: the true mean, a seed effect, and each seed's own deal noise."""
    return mean + rng.normal(0, seed_sd, (runs, seeds)) + rng.normal(0, deal_se, (runs, seeds))


def test_coverage_of_the_mean_interval_with_seed_and_deal_noise() -> None:
    rng = np.random.default_rng(17)
    runs, truth, deal_se = 3_000, 100.0, 20.0
    draws = _simulated_seeds(rng, runs, 3, truth, seed_sd=30.0, deal_se=deal_se)
    covered = [(i := mean_interval(row, [deal_se] * 3)).low <= truth <= i.high for row in draws]
    coverage = float(np.mean(covered))
    assert 0.935 <= coverage <= 0.965, coverage
    # The match intervals alone (what a one-seed headline shows) miss the seed noise.
    half = Z * deal_se / math.sqrt(3)
    naive = np.mean(np.abs(draws.mean(axis=1) - truth) <= half)
    assert naive < 0.8, naive


def test_coverage_of_fieller_on_paired_seeds() -> None:
    rng = np.random.default_rng(18)
    runs, seeds = 2_000, 3
    shared = rng.normal(0, 25.0, (runs, seeds))  # a seed that trains well wins more of both
    numerators = 80.0 + shared + rng.normal(0, 15.0, (runs, seeds))
    denominators = 160.0 + shared + rng.normal(0, 15.0, (runs, seeds))
    covered = [
        (i := ratio_interval(a, [15.0] * seeds, b, [15.0] * seeds)).low <= 0.5 <= i.high
        for a, b in zip(numerators, denominators, strict=True)
    ]
    coverage = float(np.mean(covered))
    assert 0.94 <= coverage <= 0.99, coverage


def test_a_seed_bootstrap_undercovers_with_three_seeds() -> None:
    """Why the ratios use Fieller: resample seeds, draw each seed's figure from
    N(estimate, se^2), take the 2.5 and 97.5 percentiles; with three seeds that covers
    about 88%, not 95%."""
    rng = np.random.default_rng(19)
    runs, seeds, deal_se, truth = 1_000, 3, 20.0, 100.0
    draws = _simulated_seeds(rng, runs, seeds, truth, seed_sd=30.0, deal_se=deal_se)
    picks = rng.integers(0, seeds, (runs, 2_000, seeds))
    resampled = np.take_along_axis(draws[:, None, :], picks, axis=2)
    means = (resampled + rng.normal(0, deal_se, resampled.shape)).mean(axis=2)
    low, high = np.percentile(means, [2.5, 97.5], axis=1)
    coverage = float(np.mean((low <= truth) & (truth <= high)))
    assert 0.8 <= coverage <= 0.92, coverage


def test_plateau_of_a_line_and_of_a_flat_curve() -> None:
    rising = plateau([2.0 * i + 1.0 for i in range(1, 31)])
    assert rising.window == 10
    assert rising.slope == pytest.approx(2.0)
    assert rising.intercept == pytest.approx(1.0)
    assert not rising.plateaued
    assert rising.change == pytest.approx(20.0)

    rng = np.random.default_rng(5)
    flat = plateau(list(100.0 + rng.normal(0, 10.0, 60)))
    assert flat.plateaued
    assert flat.slope_low < 0 < flat.slope_high
    assert abs(flat.change) < flat.change_half_width


def test_plateau_detects_a_curve_still_climbing_through_noise() -> None:
    rng = np.random.default_rng(6)
    curve = 50.0 * (1 - np.exp(-np.arange(1, 121) / 120.0)) * 4 + rng.normal(0, 5.0, 120)
    assert not plateau(list(curve)).plateaued


def test_plateau_needs_the_last_third_to_stop_gaining() -> None:
    # A short window's slope is not significant, but the last third sits clearly higher
    # than the middle one (a ceiling's training curve measured here, 30 iterations).
    curve = [float(v) for v in (
        -811, -707, -535, -418, -279, -199, -101, -60, -24, 6, 54, 45, 87, 97, 101,
        125, 148, 117, 117, 131, 146, 131, 119, 156, 154, 138, 125, 139, 170, 178,
    )]  # fmt: skip
    test = plateau(curve)
    assert test.slope_low < 0
    assert test.change > test.change_half_width
    assert not test.plateaued


def test_plateau_needs_enough_points() -> None:
    with pytest.raises(ValueError, match="at least 9"):
        plateau([1.0] * 8)
