"""Range sources: shapes, blocked combos and agreement with the pool posterior."""

from __future__ import annotations

import numpy as np
import pytest

from poolshark.cards.combos import N_COMBOS
from poolshark.pool.pools import load_pool
from poolshark.pool.posterior import mixture_posterior
from poolshark.pool.ranges import (
    ExactPoolRanges,
    RangeQuery,
    RangeSourceError,
    UniformRanges,
    pool_range_sources,
)
from poolshark.pool.simulate import simulate


@pytest.fixture(scope="module")
def hands():  # type: ignore[no-untyped-def]
    return simulate(load_pool("micro-zoom"), 40, seed=3)


def _queries(hands, count: int) -> RangeQuery:  # type: ignore[no-untyped-def]
    """The range of each hand's first actor, before the hand's last action."""
    logs = hands.action_logs()
    rows = np.arange(count)
    length = np.maximum(logs.length[rows] - 1, 0)
    seat = logs.seat[rows, 0]
    board = np.full((count, 5), -1, dtype=np.int64)
    visible = (0, 3, 4, 5)
    for r in rows:
        shown = visible[int(logs.street[r, length[r]])]
        board[r, :shown] = hands.boards[r, :shown]
    cut = logs._replace(length=length)
    return RangeQuery(
        hands.config,
        hands.stacks[rows],
        hands.button[rows],
        board,
        type(logs)(*(a[rows] for a in cut[:4]), cut.length),
        seat,
        np.full((count, 2), -1, dtype=np.int64),
    )


def test_uniform_is_uniform_over_unblocked(hands) -> None:  # type: ignore[no-untyped-def]
    query = _queries(hands, 10)
    ranges = UniformRanges().ranges(query)
    assert ranges.shape == (10, N_COMBOS)
    np.testing.assert_allclose(ranges.sum(axis=1), 1.0, rtol=1e-5)
    assert np.all(ranges[query.blocked()] == 0)


def test_exact_pool_ranges_match_mixture_posterior(hands) -> None:  # type: ignore[no-untyped-def]
    pool = hands.pool
    query = _queries(hands, 12)
    ranges = ExactPoolRanges(pool).ranges(query)
    for row in range(12):
        want = mixture_posterior(pool, query.public_hand(row), int(query.seat[row]))
        np.testing.assert_allclose(ranges[row], want, atol=1e-6)
    assert np.all(ranges[query.blocked()] == 0)
    uniform = UniformRanges().ranges(query)
    assert np.abs(ranges - uniform).max() > 2e-4  # the actions moved some range


def test_query_shapes_are_checked(hands) -> None:  # type: ignore[no-untyped-def]
    query = _queries(hands, 4)
    with pytest.raises(ValueError, match="dead"):
        RangeQuery(
            query.config,
            query.starting_stacks,
            query.button,
            query.board,
            query.logs,
            query.seat,
            np.zeros((3, 2), dtype=np.int64),
        )


def test_range_source_kinds_are_registered_explicitly() -> None:
    """A kind is one ``register`` call; a spec names it with or without its argument as
    registered, and a kind cannot be registered twice."""
    sources = pool_range_sources()
    assert list(sources) == ["none", "uniform", "exact"]
    seen: list[str] = []

    def custom(argument: str) -> UniformRanges:
        seen.append(argument)
        return UniformRanges()

    sources.register("custom", custom, argument="NAME")
    assert isinstance(sources.load("custom:a:b"), UniformRanges)
    assert seen == ["a:b"]
    assert sources.usage("custom") == "custom:NAME"
    with pytest.raises(RangeSourceError, match="custom:NAME"):
        sources.load("custom")
    with pytest.raises(RangeSourceError, match="registered already"):
        sources.register("uniform", custom, argument=None)
