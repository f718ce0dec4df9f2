"""The headline of a multi-seed run: each figure's mean over training seeds with its 95%
interval across seeds and deals (:mod:`poolshark.experiments.intervals`), and the
issue's "done means" checks.

Per training seed the evaluation stage records every exploiter's edge (bb/100 with its
match standard error) against the model it trained on, the true pool and the held-out
model, each seed on its own deals. From those, per seed:

* the **over-exploitation gap**: edge against the model minus edge against the true pool;
* the **calibration**: promised edge (against the model) over paid edge (against the true
  pool), a ratio of means across seeds;
* the **share of the ceiling**: an exploiter's edge against the true pool over the ceiling
  exploiter's (same seed, same deals), a ratio of means; None where the ceiling's mean
  edge is not positive, since a share of a loss means nothing;
* the **gap reduction**: the plain exploiter's gap minus the safe one's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from poolshark.experiments.intervals import (
    Interval,
    difference_stderr,
    mean_interval,
    ratio_interval,
)
from poolshark.report.headline import CALIBRATION_LIMIT, FIELDS


def _column(seeds: Sequence[Mapping[str, Any]], name: str, field: str, key: str) -> list[float]:
    """One exploiter's figure ``key`` against ``field`` over the seeds."""
    return [float(seed["exploiters"][name][field][key]) for seed in seeds]


def _edges(seeds: Sequence[Mapping[str, Any]], name: str, field: str) -> Interval:
    return mean_interval(
        _column(seeds, name, field, "bb_per_100"), _column(seeds, name, field, "stderr")
    )


def gaps(seeds: Sequence[Mapping[str, Any]], name: str) -> tuple[list[float], list[float]]:
    """Per seed: the over-exploitation gap of exploiter ``name`` and its standard error."""
    promised = _column(seeds, name, "model", "bb_per_100")
    paid = _column(seeds, name, "true pool", "bb_per_100")
    promised_se = _column(seeds, name, "model", "stderr")
    paid_se = _column(seeds, name, "true pool", "stderr")
    return (
        [a - b for a, b in zip(promised, paid, strict=True)],
        [difference_stderr(a, b) for a, b in zip(promised_se, paid_se, strict=True)],
    )


def _aivat(seeds: Sequence[Mapping[str, Any]], name: str) -> dict[str, Any]:
    """The AIVAT estimates' intervals by field, where every seed's match has them."""
    out: dict[str, Any] = {}
    for field in FIELDS:
        estimates = [seed["exploiters"][name][field].get("aivat") for seed in seeds]
        if all(estimates):
            out[field] = mean_interval(
                [float(e["bb_per_100"]) for e in estimates],
                [float(e["stderr"]) for e in estimates],
            ).as_dict()
    return out


def headline(seeds: Sequence[Mapping[str, Any]], *, tuned_on: str, pool: str) -> dict[str, Any]:
    """Every exploiter's figures across ``seeds`` (evaluation records, one per training
    seed) with intervals, the shares of the ceiling, the gap reduction and the done-means
    checks; ``tuned_on`` is the pool the imputer settings were chosen on."""
    if not seeds:
        raise ValueError("a headline needs at least one seed")
    names = list(seeds[0]["exploiters"])
    exploiters: dict[str, Any] = {}
    for name in names:
        figures = {field: _edges(seeds, name, field).as_dict() for field in FIELDS}
        figures["gap"] = mean_interval(*gaps(seeds, name)).as_dict()
        figures["calibration"] = ratio_interval(
            _column(seeds, name, "model", "bb_per_100"),
            _column(seeds, name, "model", "stderr"),
            _column(seeds, name, "true pool", "bb_per_100"),
            _column(seeds, name, "true pool", "stderr"),
        ).as_dict()
        aivat = _aivat(seeds, name)
        if aivat:
            figures["aivat"] = aivat
        exploiters[name] = figures
    ceiling = _column(seeds, "ceiling", "true pool", "bb_per_100")
    shares = {
        name: ratio_interval(
            _column(seeds, name, "true pool", "bb_per_100"),
            _column(seeds, name, "true pool", "stderr"),
            ceiling,
            _column(seeds, "ceiling", "true pool", "stderr"),
        ).as_dict()
        if sum(ceiling) > 0
        else None
        for name in names
        if name != "ceiling"
    }
    plain_gap, plain_se = gaps(seeds, "model")
    safe_gap, safe_se = gaps(seeds, "safe")
    reduction = mean_interval(
        [a - b for a, b in zip(plain_gap, safe_gap, strict=True)],
        [difference_stderr(a, b) for a, b in zip(plain_se, safe_se, strict=True)],
    ).as_dict()
    return {
        "seeds": len(seeds),
        "method": exploiters["model"]["true pool"]["method"],
        "exploiters": exploiters,
        "share_of_ceiling": shares,
        "gap_reduction": reduction,
        "done": done_means(exploiters, reduction, tuned_on=tuned_on, pool=pool),
    }


def done_means(
    exploiters: Mapping[str, Any], reduction: Mapping[str, Any], *, tuned_on: str, pool: str
) -> list[dict[str, Any]]:
    """The issue's checks, each with the interval it rests on and whether it is met
    (an unbounded end never meets a check)."""
    edge = exploiters["model"]["true pool"]
    calibration = exploiters["model"]["calibration"]
    low, high = calibration["low"], calibration["high"]
    within = (
        low is not None
        and high is not None
        and low >= 1 / CALIBRATION_LIMIT
        and high <= CALIBRATION_LIMIT
    )
    estimate = calibration["estimate"]
    point_within = 1 / CALIBRATION_LIMIT <= estimate <= CALIBRATION_LIMIT
    return [
        {
            "check": "model-trained exploiter's edge vs the true pool: interval above zero",
            "interval": edge,
            "met": edge["low"] is not None and edge["low"] > 0,
        },
        {
            "check": "safe exploiter's gap smaller than the plain one's (plain minus safe > 0)",
            "interval": dict(reduction),
            "met": reduction["low"] is not None and reduction["low"] > 0,
        },
        {
            "check": (
                f"calibration: promised / paid within {CALIBRATION_LIMIT:g}x "
                f"(interval inside [{1 / CALIBRATION_LIMIT:.2f}, {CALIBRATION_LIMIT:g}])"
            ),
            "interval": calibration,
            "met": within,
            "note": "" if within else ("estimate within, interval not" if point_within else ""),
        },
        {
            "check": f"reported pool differs from the tuning pool ({tuned_on})",
            "interval": None,
            "met": pool != tuned_on,
            "note": f"pool {pool}",
        },
    ]
