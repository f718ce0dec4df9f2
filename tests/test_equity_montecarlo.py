"""Monte Carlo equity: agreement with exact enumeration, error bars, seeding and bad input.

Sampled results are compared with exact ones within four standard errors (the seeds are
fixed, so a passing comparison stays passing). The standard error itself is checked
against the one implied by the exact win and tie probabilities, and its 1/sqrt(n) decay.
"""

from __future__ import annotations

import math

import pytest

from poolshark.cards.card import parse_cards
from poolshark.cards.ranges import Range
from poolshark.equity.exact import exact_equity
from poolshark.equity.montecarlo import BLOCK, monte_carlo_equity
from poolshark.equity.result import EquityError, EquityResult

Z = 4.0
"""Allowed deviation in standard errors."""


def assert_agrees(sampled: EquityResult, exact: EquityResult) -> None:
    """Equities within Z of their own standard errors; win and tie rates within Z binomial SEs."""
    assert not sampled.exact
    assert sampled.std_errors is not None
    n = sampled.boards
    for seat, (got, want) in enumerate(zip(sampled.equities, exact.equities, strict=True)):
        assert abs(got - want) <= Z * sampled.std_errors[seat] + 1e-12, (seat, got, want)
        for rate, expected in (
            (sampled.wins[seat], exact.wins[seat]),
            (sampled.ties[seat], exact.ties[seat]),
        ):
            error = math.sqrt(max(expected * (1 - expected), 1e-12) / n)
            assert abs(rate - expected) <= Z * error + 1e-12, (seat, rate, expected)
    assert sum(sampled.equities) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize(
    ("players", "board", "dead"),
    [
        pytest.param(["AhKh", "QdQc"], "", "", id="preflop-headsup"),
        pytest.param(["AhKh", "QdQc", "JcTc"], "Qh7h2c", "", id="flop-3way"),
        pytest.param(["AhKh", "QQ+,AKs"], "", "", id="hand-vs-range-preflop"),
        pytest.param(["AhKh", "QQ+:0.5,AKs,T9s:0.25"], "Th9d2h", "", id="weighted-range-flop"),
        pytest.param(["AA,KK", "AA,KK", "AK"], "", "", id="card-removal-3way"),
        pytest.param(["AK,QQ:0.5", "KK,AQs:0.75", "98s,T9s:0.2"], "Kd7h2c9s", "", id="ranges-turn"),
        pytest.param(["AhKh", "QdQc"], "2h7dTc", "3h4h5h", id="dead-cards"),
    ],
)
def test_agrees_with_exact(players: list[str], board: str, dead: str) -> None:
    """Sampled equities, win and tie rates match exact enumeration."""
    ranges = [Range.parse(text) for text in players]
    board_cards, dead_cards = parse_cards(board), parse_cards(dead)
    exact = exact_equity(ranges, board_cards, dead_cards)
    sampled = monte_carlo_equity(ranges, board_cards, dead_cards, samples=1 << 17, seed=11)
    assert sampled.boards == 1 << 17
    assert_agrees(sampled, exact)


def test_standard_error_matches_exact_variance() -> None:
    """Heads-up the pot share is 1, 1/2 or 0: its variance follows from exact win/tie rates."""
    ranges = [Range.parse("AhKh"), Range.parse("QdQc")]
    exact = exact_equity(ranges)
    win, tie, equity = exact.wins[0], exact.ties[0], exact.equities[0]
    variance = win + tie / 4 - equity**2
    sampled = monte_carlo_equity(ranges, samples=1 << 16, seed=3)
    assert sampled.std_errors is not None
    expected = math.sqrt(variance / sampled.boards)
    assert sampled.std_errors[0] == pytest.approx(expected, rel=0.02)
    assert sampled.std_errors[1] == pytest.approx(expected, rel=0.02)


def test_standard_error_shrinks_as_one_over_root_n() -> None:
    """Four times the samples halve the standard error."""
    ranges = [Range.parse("JJ"), Range.parse("AKo")]
    small = monte_carlo_equity(ranges, samples=1 << 15, seed=5)
    large = monte_carlo_equity(ranges, samples=1 << 17, seed=5)
    assert small.std_errors is not None
    assert large.std_errors is not None
    for seat in range(2):
        assert small.std_errors[seat] / large.std_errors[seat] == pytest.approx(2.0, rel=0.05)


def test_same_seed_same_result() -> None:
    """A seed fixes the result exactly."""
    ranges = [Range.parse("AA,KK"), Range.parse("any"), Range.parse("T9s+")]
    first = monte_carlo_equity(ranges, samples=20_000, seed=42)
    second = monte_carlo_equity(ranges, samples=20_000, seed=42)
    assert first == second


def test_different_seed_different_result() -> None:
    """Another seed draws other samples."""
    ranges = [Range.parse("AA,KK"), Range.parse("any")]
    first = monte_carlo_equity(ranges, samples=20_000, seed=1)
    second = monte_carlo_equity(ranges, samples=20_000, seed=2)
    assert first.equities != second.equities


def test_result_does_not_depend_on_threads() -> None:
    """Blocks are seeded by number, so one thread or all give the same answer."""
    ranges = [Range.parse("AhKh"), Range.parse("22+,A2s+"), Range.parse("any")]
    board = parse_cards("Ad 7c 2d")
    single = monte_carlo_equity(ranges, board, samples=5 * BLOCK, seed=9, threads=1)
    parallel = monte_carlo_equity(ranges, board, samples=5 * BLOCK, seed=9, threads=None)
    assert single == parallel


@pytest.mark.parametrize(
    ("samples", "boards"), [(1, BLOCK), (BLOCK, BLOCK), (BLOCK + 1, 2 * BLOCK)]
)
def test_samples_round_up_to_whole_blocks(samples: int, boards: int) -> None:
    """The sample count is rounded up to a multiple of the block size."""
    result = monte_carlo_equity([Range.parse("AA"), Range.parse("KK")], samples=samples)
    assert result.boards == boards


def test_headsup_win_and_tie_rates_are_consistent() -> None:
    """Heads-up: both players see the same ties, and wins + ties cover every sample."""
    result = monte_carlo_equity([Range.parse("AKs"), Range.parse("AKo")], samples=1 << 15)
    assert result.ties[0] == result.ties[1]
    assert result.ties[0] > 0.3
    assert result.wins[0] + result.wins[1] + result.ties[0] == pytest.approx(1.0, abs=1e-12)
    for seat in range(2):
        assert result.equities[seat] == pytest.approx(
            result.wins[seat] + result.ties[seat] / 2, abs=1e-12
        )


@pytest.mark.parametrize("players", [2, 3, 6])
def test_board_that_plays_is_a_sure_split(players: int) -> None:
    """A royal flush on the board: every sample is a k-way split, with no error at all."""
    board = parse_cards("As Ks Qs Js Ts")
    ranges = [Range.full()] * players
    result = monte_carlo_equity(ranges, board, samples=BLOCK)
    assert result.equities == pytest.approx([1 / players] * players, abs=1e-12)
    assert result.ties == (1.0,) * players
    assert result.wins == (0.0,) * players
    assert result.std_errors == pytest.approx([0.0] * players, abs=1e-9)


def test_multiway_rates_are_probabilities() -> None:
    """Per player: 0 <= ties, wins + ties <= 1; the equities sum to one."""
    ranges = [Range.parse("any")] * 5
    result = monte_carlo_equity(ranges, parse_cards("7c 7d 2h"), samples=1 << 14)
    for seat in range(5):
        assert 0.0 <= result.ties[seat] <= 1.0
        assert 0.0 <= result.wins[seat] + result.ties[seat] <= 1.0
        assert result.equities[seat] == pytest.approx(0.2, abs=0.02)
    assert sum(result.equities) == pytest.approx(1.0, abs=1e-9)


def test_ranges_that_always_collide() -> None:
    """No deal is possible: an error, not a made-up number."""
    with pytest.raises(EquityError, match="collide"):
        monte_carlo_equity([Range.parse("AhKh"), Range.parse("AhAs,KhKs")], samples=1)


@pytest.mark.parametrize("samples", [0, -5])
def test_samples_must_be_positive(samples: int) -> None:
    """A non-positive sample count is refused."""
    with pytest.raises(EquityError, match="samples must be positive"):
        monte_carlo_equity([Range.parse("AA"), Range.parse("KK")], samples=samples)


def test_inputs_are_checked_like_exact() -> None:
    """Bad boards, seat counts and emptied ranges raise the same errors as exact equity."""
    with pytest.raises(EquityError, match="a board has 0, 3, 4 or 5 cards"):
        monte_carlo_equity([Range.parse("AA"), Range.parse("KK")], parse_cards("2c 3c"))
    with pytest.raises(EquityError, match="2 to 10 players"):
        monte_carlo_equity([Range.parse("AA")])
    with pytest.raises(EquityError, match="player 2 has no possible hand"):
        monte_carlo_equity([Range.parse("KK"), Range.parse("AA")], parse_cards("Ah As Ad"))
