"""The observer's showdown winner model (seed 003, eq. 4-7): exact win probabilities against
a plain loop over type tuples, the gradient against finite differences, a fit recovering a
known ``q``, the thesis's thinning of large showdowns keeping the expected gradient,
showdowns from recorded deals naming the evaluator's winners without the shown cards, and
``poolshark limit winner``."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from threadpoolctl import threadpool_limits
from typer.testing import CliRunner

from limitnet_fixtures import pool_records, spread_model
from poolshark.cards.evaluator import evaluate_indices
from poolshark.cli import app
from poolshark.limitnet.agent import observer_payload, save_model
from poolshark.limitnet.observer import Observer, showdown_bucket
from poolshark.limitnet.observer_lines import record_lines
from poolshark.limitnet.records import LimitRecords
from poolshark.limitnet.winner import (
    Showdown,
    WinnerError,
    WinnerModel,
    mean_log_loss,
    record_showdowns,
    thin_large_showdowns,
    uniform_log_loss,
)

torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def one_blas_thread() -> Iterator[None]:
    """Small matrix products on one BLAS thread: on a loaded two-core machine the threaded
    ones crawl (20 times slower here)."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def loop_probabilities(q: np.ndarray, beliefs: np.ndarray) -> np.ndarray:
    """Eq. 4-7 under beliefs by a plain loop over every type tuple."""
    players, types = beliefs.shape
    out = np.zeros(players)
    for combo in itertools.product(range(types), repeat=players):
        chance = np.prod([beliefs[j, c] for j, c in enumerate(combo)])
        total = sum(q[c] for c in combo)
        for i, c in enumerate(combo):
            out[i] += chance * q[c] / total
    return out


def random_beliefs(rng: np.random.Generator, players: int, types: int) -> np.ndarray:
    """Beliefs (players, types) drawn from a flat Dirichlet."""
    return rng.dirichlet(np.ones(types), size=players)


def synthetic_showdowns(
    rng: np.random.Generator, q: np.ndarray, count: int, concentration: float = 0.3
) -> list[Showdown]:
    """Showdowns of 2-4 players: sharp random beliefs, types drawn from them, the winner
    drawn from eq. 4-7 on the drawn types."""
    types = q.size
    out = []
    for _ in range(count):
        players = int(rng.integers(2, 5))
        beliefs = rng.dirichlet(np.full(types, concentration), size=players)
        drawn = (beliefs.cumsum(axis=1) < rng.random((players, 1))).sum(axis=1)
        strengths = q[np.minimum(drawn, types - 1)]
        winner = np.searchsorted(strengths.cumsum(), rng.random() * strengths.sum())
        winners = np.zeros(players)
        winners[min(int(winner), players - 1)] = 1.0
        out.append(Showdown(beliefs, winners))
    return out


@pytest.mark.parametrize("players", [2, 3])
def test_probabilities_equal_the_loop_over_type_tuples(players: int) -> None:
    rng = np.random.default_rng(players)
    for _ in range(3):
        model = WinnerModel(8, rng.normal(size=8))
        beliefs = random_beliefs(rng, players, 8)
        probabilities = model.win_probabilities(beliefs)
        np.testing.assert_allclose(probabilities, loop_probabilities(model.q, beliefs), atol=1e-12)
        assert probabilities.sum() == pytest.approx(1.0, abs=1e-12)


def test_known_types_give_q_over_the_sum() -> None:
    model = WinnerModel(8, np.random.default_rng(1).normal(size=8))
    types = np.array([2, 5, 5, 7])
    probabilities = model.win_probabilities(np.eye(8)[types])
    np.testing.assert_allclose(probabilities, model.q[types] / model.q[types].sum(), atol=1e-14)


def test_batched_probabilities_equal_one_at_a_time() -> None:
    rng = np.random.default_rng(2)
    model = WinnerModel(4, rng.normal(size=4))
    showdowns = [Showdown(random_beliefs(rng, n, 4), np.eye(n)[0]) for n in (2, 3, 2, 4, 3, 5, 2)]
    for showdown, row in zip(showdowns, model.probabilities(showdowns), strict=True):
        np.testing.assert_allclose(row, model.win_probabilities(showdown.beliefs), atol=1e-14)


def test_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(3)
    model = WinnerModel(5, rng.normal(size=5))
    showdowns = [
        Showdown(random_beliefs(rng, n, 5), rng.dirichlet(np.ones(n)), weight=rng.random() + 0.5)
        for n in (2, 3, 4, 2, 3)
    ]
    gradient = model.gradient(showdowns)
    step = 1e-6
    for k in range(5):
        shifted = [model.log_q.copy(), model.log_q.copy()]
        shifted[0][k] += step
        shifted[1][k] -= step
        up, down = (WinnerModel(5) for _ in range(2))
        up.log_q, down.log_q = shifted
        numeric = (up.log_likelihood(showdowns) - down.log_likelihood(showdowns)) / (2 * step)
        assert gradient[k] == pytest.approx(numeric, abs=1e-7)
    assert gradient.sum() == pytest.approx(0.0, abs=1e-10)


def test_fit_recovers_a_known_q() -> None:
    rng = np.random.default_rng(4)
    true_log_q = np.linspace(-1.5, 1.5, 4)
    train = synthetic_showdowns(rng, np.exp(true_log_q), 2000)
    model = WinnerModel(4)
    course = model.fit(train, steps=100, learning_rate=10.0)
    assert course[-1] > course[0] + 0.02
    assert np.all(np.diff(course) > -1e-9)
    np.testing.assert_allclose(model.log_q, true_log_q - true_log_q.mean(), atol=0.25)
    held = synthetic_showdowns(rng, np.exp(true_log_q), 500)
    assert mean_log_loss(model, held) < mean_log_loss(WinnerModel(4), held)
    assert mean_log_loss(WinnerModel(4), held) <= uniform_log_loss(held) + 1e-12


def test_thinning_keeps_the_expected_gradient() -> None:
    rng = np.random.default_rng(5)
    model = WinnerModel(2, np.array([-0.7, 0.7]))
    showdowns = [Showdown(random_beliefs(rng, n, 2), np.eye(n)[1]) for n in (2, 3, 4, 5, 5)]
    exact = model.gradient(showdowns)
    draws = [
        model.gradient(thin_large_showdowns(showdowns, rng, types=2, full_players=3))
        for _ in range(1500)
    ]
    mean = np.mean(draws, axis=0)
    error = np.std(draws, axis=0) / np.sqrt(len(draws))
    assert np.all(np.abs(mean - exact) < 4 * error + 1e-12)
    kept = thin_large_showdowns(showdowns, np.random.default_rng(0), types=2, full_players=3)
    for showdown in kept:
        assert showdown.weight == 2.0 ** max(0, showdown.players - 3)


def test_bad_showdowns_are_refused() -> None:
    with pytest.raises(WinnerError):
        Showdown(np.ones((1, 8)) / 8, np.ones(1))
    with pytest.raises(WinnerError):
        Showdown(np.ones((2, 8)) / 8, np.array([1.0, 1.0]))
    with pytest.raises(WinnerError):
        WinnerModel(8).win_probabilities(np.ones((2, 4)) / 4)


@pytest.fixture(scope="module")
def recorded() -> tuple[LimitRecords, Observer]:
    """Recorded pool matches and an observer over a model whose types change the play."""
    return pool_records(matches=4, deals=20, seed=7), Observer(spread_model(8, seed=3), seed=3)


def test_recorded_showdowns_name_the_evaluator_winners(
    recorded: tuple[LimitRecords, Observer],
) -> None:
    records, observer = recorded
    showdowns = record_showdowns(records, observer)
    assert len(showdowns) >= 10
    assert any(s.players > 2 for s in showdowns)
    for showdown in showdowns:
        lines = [
            int(np.flatnonzero((records.deal == showdown.deal) & (records.seat == seat))[0])
            for seat in showdown.seats
        ]
        assert records.shown[lines].all()
        assert int(((records.deal == showdown.deal) & records.shown).sum()) == showdown.players
        board = tuple(records.boards[lines[0]].tolist())
        ranks = [evaluate_indices(tuple(records.holes[line].tolist()) + board) for line in lines]
        best = [rank == max(ranks) for rank in ranks]
        np.testing.assert_allclose(showdown.winners, np.array(best) / sum(best))
        if showdown.deal > showdowns[11].deal:
            continue  # the beliefs of the first 12 showdowns are checked line by line
        player_lines = record_lines(records, np.array(lines), observer.types)
        for belief, line in zip(showdown.beliefs, player_lines, strict=True):
            assert line.shown >= 0
            unseen = observer.beliefs(replace(line, shown=-1))[-1]
            np.testing.assert_allclose(belief, unseen, atol=1e-12)
            assert not np.allclose(belief, observer.beliefs(line)[-1], atol=1e-6)


def test_prior_beliefs_predict_uniformly_and_shown_ones_are_the_buckets(
    recorded: tuple[LimitRecords, Observer],
) -> None:
    records, observer = recorded
    showdowns = record_showdowns(records, observer, source="prior")
    model = WinnerModel(8, np.random.default_rng(6).normal(size=8))
    assert mean_log_loss(model, showdowns) == pytest.approx(uniform_log_loss(showdowns), abs=1e-9)
    for showdown in record_showdowns(records, observer, source="shown")[:5]:
        lines = [
            int(np.flatnonzero((records.deal == showdown.deal) & (records.seat == seat))[0])
            for seat in showdown.seats
        ]
        board = tuple(records.boards[lines[0]].tolist())
        buckets = [showdown_bucket(tuple(records.holes[k].tolist()), board) for k in lines]
        np.testing.assert_array_equal(showdown.beliefs, np.eye(8)[buckets])


def test_winner_command_reports_the_held_out_log_loss(
    recorded: tuple[LimitRecords, Observer], tmp_path: Path
) -> None:
    records, observer = recorded
    records.save(tmp_path / "records.npz")
    model = observer.emission.action_function
    save_model(model, tmp_path / "observed.pt", extra=observer_payload(observer, model))
    args = ["limit", "winner", str(tmp_path / "records.npz"), "--model"]
    result = CliRunner().invoke(
        app,
        [
            *args,
            str(tmp_path / "observed.pt"),
            "--steps",
            "5",
            "--holdout",
            "0.5",
            "--ceiling",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    losses = report["held_out_log_loss"]
    assert set(losses) == {"actions", "prior", "shown", "uniform"}
    assert losses["prior"] == pytest.approx(losses["uniform"], abs=1e-9)
    assert report["train_log_likelihood"][1] >= report["train_log_likelihood"][0]
    assert sum(row["showdowns"] for row in report["held_out_by_players"].values()) > 0
