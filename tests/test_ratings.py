"""League ratings: Bradley-Terry on the Elo scale, its intervals and the block score."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.evaluate.match import Z95
from poolshark.evaluate.ratings import (
    ELO_PER_NAT,
    PairResult,
    Rating,
    bradley_terry,
    elo_table,
    expected_score,
    gather,
    mm_strengths,
    pair_result,
)


def simulated(elos: list[float], games: int, rng: np.random.Generator) -> list[PairResult]:
    """Every pair of players ``p0, p1, ...`` plays ``games`` Bradley-Terry blocks."""
    pairs = []
    for i in range(len(elos)):
        for j in range(i + 1, len(elos)):
            wins = rng.binomial(games, expected_score(elos[i], elos[j]))
            pairs.append(PairResult(f"p{i}", f"p{j}", float(wins), games, 0.0, 0.0))
    return pairs


def by_name(ratings: list[Rating]) -> dict[str, Rating]:
    return {rating.name: rating for rating in ratings}


def reference_fit(pairs: list[PairResult], prior_games: float) -> dict[str, float]:
    """Plain gradient ascent on the penalised log-likelihood, written pair by pair."""
    names = sorted({name for pair in pairs for name in (pair.first, pair.second)})
    theta = dict.fromkeys(names, 0.0)
    for _ in range(20_000):
        gradient = {
            name: prior_games * (0.5 - 1.0 / (1.0 + math.exp(-theta[name]))) for name in names
        }
        for pair in pairs:
            p = 1.0 / (1.0 + math.exp(theta[pair.second] - theta[pair.first]))
            gradient[pair.first] += pair.wins - pair.games * p
            gradient[pair.second] -= pair.wins - pair.games * p
        for name in names:
            theta[name] += 0.01 * gradient[name]
        if max(abs(g) for g in gradient.values()) < 1e-10:
            break
    return theta


def test_recovers_known_strengths_inside_the_intervals() -> None:
    truth = [0.0, 50.0, 120.0, 200.0, 350.0]
    ratings = by_name(bradley_terry(simulated(truth, 4000, np.random.default_rng(7)), anchor="p0"))
    for index, elo in enumerate(truth):
        rating = ratings[f"p{index}"]
        assert rating.low <= elo <= rating.high, (rating, elo)
        assert abs(rating.elo - elo) < 15.0
        assert rating.games == 4000 * 4
    assert ratings["p0"].elo == ratings["p0"].low == ratings["p0"].high == 0.0
    assert [r.name for r in bradley_terry(simulated(truth, 4000, np.random.default_rng(7)))] == [
        "p4",
        "p3",
        "p2",
        "p1",
        "p0",
    ]


def test_intervals_cover_the_true_difference_95_percent_of_the_time() -> None:
    """Over 400 simulated leagues of four players (100 blocks a pair), the interval of each
    rating relative to the anchor covers the true Elo difference about 95% of the time."""
    truth = [0.0, 60.0, 150.0, 250.0]
    rng = np.random.default_rng(2026)
    covered = total = 0
    for _ in range(400):
        ratings = by_name(bradley_terry(simulated(truth, 100, rng), anchor="p0"))
        for index in (1, 2, 3):
            rating = ratings[f"p{index}"]
            covered += rating.low <= truth[index] <= rating.high
            total += 1
    coverage = covered / total
    assert 0.925 <= coverage <= 0.975, coverage


def test_mm_fit_matches_plain_gradient_ascent() -> None:
    pairs = simulated([0.0, 80.0, 300.0, -150.0], 60, np.random.default_rng(3))
    pairs.append(PairResult("p0", "p1", 7.5, 12, 0.0, 0.0))
    for prior in (1.0, 4.0):
        reference = reference_fit(pairs, prior)
        ratings = by_name(bradley_terry(pairs, prior_games=prior, anchor="p0"))
        for name, theta in reference.items():
            expected = ELO_PER_NAT * (theta - reference["p0"])
            assert ratings[name].elo == pytest.approx(expected, abs=1e-6)


def test_mm_alone_converges_to_the_fit() -> None:
    """Hunter's MM iteration, run to its own fixed point, lands where the fit (MM then
    Newton) does, also with an unbeaten player."""
    pairs = [*simulated([0.0, 100.0, 200.0], 40, np.random.default_rng(5))]
    pairs.append(PairResult("p2", "p3", 40.0, 40, 0.0, 0.0))
    league = gather(pairs)
    theta = mm_strengths(league, 1.0, 200_000, 1e-13)
    ratings = by_name(bradley_terry(pairs, anchor="p0"))
    for index, name in enumerate(league.names):
        expected = ELO_PER_NAT * (theta[index] - theta[league.names.index("p0")])
        assert ratings[name].elo == pytest.approx(expected, abs=1e-6)


def test_intervals_come_from_the_numerical_hessian() -> None:
    """The half widths equal 1.96 standard errors from a finite-difference Hessian of the
    penalised log-likelihood (written here pair by pair), anchored at p0."""
    pairs = simulated([0.0, 120.0, 40.0], 50, np.random.default_rng(11))
    reference = reference_fit(pairs, 1.0)
    names = sorted(reference)

    def log_likelihood(theta: np.ndarray) -> float:
        value = sum(
            0.5 * (math.log(1 / (1 + math.exp(-t))) + math.log(1 / (1 + math.exp(t))))
            for t in theta
        )
        for pair in pairs:
            gap = theta[names.index(pair.first)] - theta[names.index(pair.second)]
            value += pair.wins * math.log(1 / (1 + math.exp(-gap)))
            value += (pair.games - pair.wins) * math.log(1 / (1 + math.exp(gap)))
        return value

    centre = np.array([reference[name] for name in names])
    h = 1e-4
    hessian = np.zeros((3, 3))
    for a in range(3):
        for b in range(3):
            shifts = [
                np.eye(3)[a] * h * sa + np.eye(3)[b] * h * sb for sa in (1, -1) for sb in (1, -1)
            ]
            values = [log_likelihood(centre + s) for s in shifts]
            hessian[a, b] = (values[0] - values[1] - values[2] + values[3]) / (4 * h * h)
    covariance = np.linalg.inv(-hessian)
    ratings = by_name(bradley_terry(pairs, anchor="p0"))
    for index in (1, 2):
        variance = covariance[index, index] + covariance[0, 0] - 2 * covariance[0, index]
        half = Z95 * ELO_PER_NAT * math.sqrt(variance)
        rating = ratings[names[index]]
        assert (rating.high - rating.low) / 2 == pytest.approx(half, rel=1e-4)


def test_anchor_sets_the_scale_without_changing_differences() -> None:
    pairs = simulated([0.0, 100.0, 250.0], 80, np.random.default_rng(1))
    centred = by_name(bradley_terry(pairs))
    assert sum(r.elo for r in centred.values()) == pytest.approx(0.0, abs=1e-9)
    anchored = by_name(bradley_terry(pairs, anchor="p1", anchor_elo=1500.0))
    assert anchored["p1"].elo == anchored["p1"].low == anchored["p1"].high == 1500.0
    for name in ("p0", "p2"):
        gap = anchored[name].elo - anchored["p1"].elo
        assert gap == pytest.approx(centred[name].elo - centred["p1"].elo, abs=1e-9)
        assert anchored[name].low < anchored[name].elo < anchored[name].high


def test_symmetric_results_give_equal_ratings() -> None:
    pairs = [
        PairResult("a", "b", 6.0, 12, 1.0, 2.0),
        PairResult("b", "c", 6.0, 12, 0.0, 2.0),
        PairResult("c", "a", 6.0, 12, -1.0, 2.0),
    ]
    ratings = bradley_terry(pairs)
    for rating in ratings:
        assert rating.elo == pytest.approx(0.0, abs=1e-9)
        assert rating.high - rating.elo == pytest.approx(ratings[0].high - ratings[0].elo)
    assert [r.name for r in ratings] == ["a", "b", "c"]


def test_unbeaten_and_disconnected_players_stay_finite() -> None:
    pairs = [
        PairResult("champ", "chump", 30.0, 30, 250.0, 20.0),
        PairResult("x", "y", 0.0, 5, 0, 0),
    ]
    ratings = by_name(bradley_terry(pairs, anchor="chump"))
    for rating in ratings.values():
        assert all(math.isfinite(v) for v in (rating.elo, rating.low, rating.high))
    assert ratings["champ"].low > 0.0
    assert ratings["y"].elo > ratings["x"].elo
    more_prior = by_name(bradley_terry(pairs, anchor="chump", prior_games=10.0))
    assert more_prior["champ"].elo < ratings["champ"].elo


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(1, 3), st.integers(1, 20), st.floats(0, 1)),
        min_size=1,
        max_size=8,
    ),
    st.randoms(),
)
def test_order_and_direction_of_pairings_do_not_matter(
    raw: list[tuple[int, int, int, float]], shuffler: object
) -> None:
    pairs = [
        PairResult(f"p{a}", f"p{(a + d) % 4}", round(share * games * 2) / 2, games, 0.0, 0.0)
        for a, d, games, share in raw
    ]
    flipped = [
        PairResult(p.second, p.first, p.games - p.wins, p.games, 0.0, 0.0) for p in pairs[::-1]
    ]
    first = by_name(bradley_terry(pairs))
    second = by_name(bradley_terry(flipped))
    for name, rating in first.items():
        assert second[name].elo == pytest.approx(rating.elo, abs=1e-6)
        assert second[name].high == pytest.approx(rating.high, abs=1e-6)


def test_pair_result_scores_blocks_with_ties_half() -> None:
    results = np.zeros(250)
    results[0] = 3.0  # block 1: +3 bb, won
    results[150] = 0.25  # block 2: +0.25 - 0.25 = 0, a tie
    results[160] = -0.25
    results[240] = -50.0  # past the last full block: in the edge, not a block
    pair = pair_result("a", "b", results, block=100)
    assert (pair.games, pair.wins) == (2, 1.5)
    assert pair.bb_per_100 == pytest.approx(100 * results.mean())
    expected = 100 * Z95 * results.std(ddof=1) / math.sqrt(250)
    assert pair.bb_per_100_interval == pytest.approx(expected)
    losing = pair_result("a", "b", -np.ones(30), block=10)
    assert (losing.games, losing.wins) == (3, 0.0)


def test_pair_results_from_hands_rate_the_better_player_higher() -> None:
    rng = np.random.default_rng(4)
    pairs = [
        pair_result("strong", "weak", rng.normal(0.3, 10.0, 20_000)),
        pair_result("strong", "even", rng.normal(0.15, 10.0, 20_000)),
        pair_result("even", "weak", rng.normal(0.15, 10.0, 20_000)),
    ]
    ratings = bradley_terry(pairs, anchor="weak")
    assert [r.name for r in ratings] == ["strong", "even", "weak"]
    assert ratings[0].low > 0.0


def test_expected_score() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(400, 0) == pytest.approx(10 / 11)
    assert expected_score(123, 45) + expected_score(45, 123) == pytest.approx(1.0)


def test_elo_table_lists_players_best_first_and_the_pairings() -> None:
    pairs = [
        PairResult("ckpt-0040", "random", 45.0, 50, 80.5, 12.25),
        PairResult("tag", "random", 30, 50, 20, 9),
    ]
    text = elo_table(bradley_terry(pairs, anchor="random"), pairs)
    lines = text.splitlines()
    assert "Elo" in lines[0]
    assert "95% interval" in lines[0]
    assert lines[1].split()[:2] == ["1", "ckpt-0040"]
    assert lines[3].split()[:2] == ["3", "random"]
    assert "+0.0  [   +0.0,    +0.0]" in lines[3]
    assert "+80.5 +- 12.2" in text or "+80.5 +- 12.3" in text
    assert "90.0%" in text
    assert pairs[0].as_dict()["score"] == 0.9
    assert set(bradley_terry(pairs)[0].as_dict()) == {"name", "elo", "low", "high", "games"}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: bradley_terry([]), "at least one pairing"),
        (lambda: PairResult("a", "a", 1.0, 2, 0.0, 0.0), "paired with itself: 'a'"),
        (lambda: pair_result("a", "a", np.ones(100)), "paired with itself"),
        (lambda: PairResult("a", "b", 3.0, 2, 0.0, 0.0), "wins must be in"),
        (lambda: PairResult("a", "b", 0.0, 0, 0.0, 0.0), "games must be >= 1"),
        (lambda: pair_result("a", "b", np.ones(99)), "one block needs 100 hands, only 99"),
        (lambda: pair_result("a", "b", [1.0, math.nan]), "finite"),
        (lambda: pair_result("a", "b", np.ones(10), block=0), "block must be >= 1"),
        (
            lambda: bradley_terry([PairResult("a", "b", 1.0, 2, 0, 0)], anchor="c"),
            "anchor 'c' played no pairing; players: a, b",
        ),
        (
            lambda: bradley_terry([PairResult("a", "b", 1.0, 2, 0, 0)], prior_games=0.0),
            "prior_games must be > 0",
        ),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        call()  # type: ignore[operator]
