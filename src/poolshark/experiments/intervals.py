"""Intervals for figures measured over several training seeds, each on its own deals, and a
plateau test for a learning curve.

A training seed ``k`` gives an estimate ``x_k`` (bb/100) with the match standard error
``se_k`` of its own deals. ``x_k`` = the true figure + the seed's effect + deal noise, so the
spread of the ``x_k`` holds both kinds of noise, and a t-interval on the per-seed values
with ``k - 1`` degrees of freedom covers the mean over seeds and deals
(:func:`mean_interval`), exactly so for normal per-seed values whatever the share of seed
and deal noise. (Flooring its variance at the deal noise alone, ``sum(se_k^2) / k^2``,
was tried: with three seeds it covered 99.5 to 100% where the seed noise is small, wider
than it says.) One seed has no spread: its interval is the match's normal interval (deal
noise only), and the method says so.

Ratios of means (share of the ceiling, promised / paid edge) use Fieller's interval on the
paired per-seed values (:func:`ratio_interval`): the set of ratios ``r`` for which
``mean(a) - r mean(b)`` is within the same t-interval of zero. It is exact for normal
per-seed values, keeps the pairing of numerator and denominator (measured on the same
seeds and deals), and is unbounded when the denominator's own interval reaches zero,
where no ratio is pinned down. A resampling bootstrap was not used: three seeds give ten
distinct resamples, and its percentile interval covers less than 95% (about 88% in
the coverage check of ``tests/test_intervals.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from scipy import stats

LEVEL = 0.95
"""Confidence level of every interval here."""
MIN_PLATEAU_POINTS = 9
"""A plateau test needs a last third of at least three points (one degree of freedom)."""


@dataclass(frozen=True)
class Interval:
    """An estimate with its interval; ``low`` / ``high`` are infinite when unbounded."""

    estimate: float
    low: float
    high: float
    seeds: int
    method: str

    def as_dict(self) -> dict[str, Any]:
        """Plain values for JSON (an unbounded end is ``None``)."""
        return {
            "estimate": self.estimate,
            "low": self.low if math.isfinite(self.low) else None,
            "high": self.high if math.isfinite(self.high) else None,
            "seeds": self.seeds,
            "method": self.method,
        }


def _checked(values: Sequence[float], stderrs: Sequence[float], what: str) -> tuple[Any, Any]:
    """The values and standard errors as arrays, refused when empty, ragged or negative."""
    x = np.asarray(values, dtype=np.float64)
    se = np.asarray(stderrs, dtype=np.float64)
    if x.ndim != 1 or x.size == 0 or se.shape != x.shape:
        raise ValueError(f"{what}: need one standard error per value and at least one value")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(se)) and np.all(se >= 0)):
        raise ValueError(f"{what}: values must be finite and standard errors non-negative")
    return x, se


@cache
def critical_value(seeds: int, level: float = LEVEL) -> float:
    """The two-sided critical value: Student's t with ``seeds - 1`` degrees of freedom, the
    normal one for a single seed (deal noise only, whose variance the match measures)."""
    upper = 0.5 + level / 2
    if seeds < 2:
        return float(stats.norm.ppf(upper))
    return float(stats.t.ppf(upper, seeds - 1))


def method_words(seeds: int) -> str:
    """How an interval over ``seeds`` seeds was made, in words (for reports)."""
    if seeds < 2:
        return "one seed: normal interval of the match (deal noise only)"
    return f"t-interval over {seeds} seeds ({seeds - 1} df), each seed on its own deals"


def mean_variance(values: Any, stderrs: Any) -> float:
    """Variance of the mean over seeds: the per-seed spread over ``k`` (seed and deal noise
    together); a single seed's is its match variance (deal noise only)."""
    if values.size < 2:
        return float(stderrs[0]) ** 2
    return float(np.var(values, ddof=1)) / int(values.size)


def mean_interval(
    values: Sequence[float], stderrs: Sequence[float], *, level: float = LEVEL
) -> Interval:
    """The mean of per-seed ``values`` (each with its match standard error) with its
    interval across seeds and deals (see the module docstring)."""
    x, se = _checked(values, stderrs, "mean interval")
    mean = float(x.mean())
    half = critical_value(x.size, level) * math.sqrt(mean_variance(x, se))
    return Interval(mean, mean - half, mean + half, int(x.size), method_words(x.size))


def ratio_interval(
    numerators: Sequence[float],
    numerator_stderrs: Sequence[float],
    denominators: Sequence[float],
    denominator_stderrs: Sequence[float],
    *,
    level: float = LEVEL,
) -> Interval:
    """``mean(numerators) / mean(denominators)`` with Fieller's interval on the paired
    per-seed values; unbounded when the denominator is not clear of zero."""
    a, se_a = _checked(numerators, numerator_stderrs, "ratio interval")
    b, se_b = _checked(denominators, denominator_stderrs, "ratio interval")
    if a.size != b.size:
        raise ValueError("ratio interval: numerators and denominators need the same seeds")
    k = int(a.size)
    mean_a, mean_b = float(a.mean()), float(b.mean())
    var_a, var_b = mean_variance(a, se_a), mean_variance(b, se_b)
    covariance = float(np.cov(a, b, ddof=1)[0, 1]) / k if k >= 2 else 0.0
    q = critical_value(k, level) ** 2
    estimate = mean_a / mean_b if mean_b != 0 else math.nan
    method = f"Fieller's interval; {method_words(k)}"
    quadratic = mean_b**2 - q * var_b
    if quadratic <= 0:
        return Interval(estimate, -math.inf, math.inf, k, method)
    linear = mean_a * mean_b - q * covariance
    constant = mean_a**2 - q * var_a
    root = math.sqrt(max(linear**2 - quadratic * constant, 0.0))
    return Interval(estimate, (linear - root) / quadratic, (linear + root) / quadratic, k, method)


def difference_stderr(*stderrs: float) -> float:
    """Standard error of a sum or difference of match figures, taken as independent (the
    matches of one seed share their deals; this ignores that covariance)."""
    return math.sqrt(sum(s * s for s in stderrs))


@dataclass(frozen=True)
class Plateau:
    """The last third of a learning curve: its least-squares slope (per iteration) with the
    interval, and its mean against the middle third's (with the half width of that
    change's interval). ``plateaued``: neither the slope nor the change is significantly
    above zero (one-sided tests at the same level). The slope alone has little power over
    a short window; the change catches a curve that rose into its last third."""

    points: int
    window: int
    intercept: float
    slope: float
    slope_low: float
    slope_high: float
    last_mean: float
    middle_mean: float
    change_half_width: float
    plateaued: bool

    @property
    def change(self) -> float:
        """The last third's mean minus the middle third's."""
        return self.last_mean - self.middle_mean

    def as_dict(self) -> dict[str, Any]:
        """Plain values for JSON."""
        return {
            "points": self.points,
            "window": self.window,
            "intercept": self.intercept,
            "slope": self.slope,
            "slope_low": self.slope_low,
            "slope_high": self.slope_high,
            "last_mean": self.last_mean,
            "middle_mean": self.middle_mean,
            "change": self.change,
            "change_half_width": self.change_half_width,
            "plateaued": self.plateaued,
        }


def plateau(curve: Sequence[float], *, level: float = LEVEL) -> Plateau:
    """Plateau test of a learning curve (one value per iteration, iterations 1..n): the
    slope of a straight line through the last third and the change from the middle third
    to the last, each tested one-sided for still rising (see :class:`Plateau`)."""
    y = np.asarray(curve, dtype=np.float64)
    if y.ndim != 1 or y.size < MIN_PLATEAU_POINTS or not np.all(np.isfinite(y)):
        raise ValueError(
            f"a plateau test needs at least {MIN_PLATEAU_POINTS} finite points, got {y.size}"
        )
    n = int(y.size)
    window = n // 3
    last, middle = y[n - window :], y[n - 2 * window : n - window]
    x = np.arange(n - window + 1, n + 1, dtype=np.float64)
    centred = x - x.mean()
    slope = float(np.sum(centred * (last - last.mean())) / np.sum(centred**2))
    intercept = float(last.mean() - slope * x.mean())
    residuals = last - (intercept + slope * x)
    slope_se = math.sqrt(float(np.sum(residuals**2)) / (window - 2) / float(np.sum(centred**2)))
    two_sided = float(stats.t.ppf(0.5 + level / 2, window - 2))
    one_sided = float(stats.t.ppf(level, window - 2))
    change = float(last.mean() - middle.mean())
    change_se = math.sqrt((float(np.var(last, ddof=1)) + float(np.var(middle, ddof=1))) / window)
    change_one_sided = float(stats.t.ppf(level, 2 * window - 2))
    return Plateau(
        points=n,
        window=window,
        intercept=intercept,
        slope=slope,
        slope_low=slope - two_sided * slope_se,
        slope_high=slope + two_sided * slope_se,
        last_mean=float(last.mean()),
        middle_mean=float(middle.mean()),
        change_half_width=float(stats.t.ppf(0.5 + level / 2, 2 * window - 2)) * change_se,
        plateaued=(
            slope - one_sided * slope_se <= 0 and change - change_one_sided * change_se <= 0
        ),
    )
