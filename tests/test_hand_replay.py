"""A hand replayed decision by decision (``report.hand_replay``), checked against plain
references: the exact pool posterior of ``pool.posterior``, the table replayed step by
step, the model's probabilities summing to 1 over the legal actions, the posterior after
an action as prior x P(action) renormalised, exact equity."""

from __future__ import annotations

import io
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
import torch

from poolshark.cards.combos import COMBO_CARDS, combos_sharing_cards
from poolshark.cards.evaluator import evaluate_indices
from poolshark.engine.table import Table
from poolshark.histories.split import parse_hand, split_hands
from poolshark.oracle.model import OracleNet, RangeOracle
from poolshark.pool.context import context_from_table
from poolshark.pool.play import play_hands
from poolshark.pool.pools import Pool, load_pool
from poolshark.pool.posterior import PublicHand, mixture_posterior
from poolshark.population.model import PopulationNet
from poolshark.population.posterior import PolicyPosterior, seat_decisions, with_holes
from poolshark.report.hand_replay import (
    GROUPS,
    HandReplay,
    ReplayError,
    ReplaySetup,
    breakdown,
    chart,
    group_probabilities,
    moments,
    public_query,
    replay_hand,
    replay_record,
)

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def pool() -> Pool:
    return load_pool("micro-zoom")


@pytest.fixture(scope="module")
def tables(pool: Pool) -> list[Table]:
    """Simulated hands, the longest first (more streets, more decisions)."""
    hands = [h.table for h in play_hands(pool.config, pool.stack, pool.bank,
                                          pool.player_styles, 12, seed=7)]  # fmt: skip
    return sorted(hands, key=lambda t: -len(t.log))[:3]


@pytest.fixture(scope="module")
def setup() -> ReplaySetup:
    """A random-init oracle and population model (their numbers are not the point; the
    wiring is)."""
    torch.manual_seed(0)
    oracle = OracleNet(hidden=32, preflop_width=32, combo_width=16, components=3)
    model = PopulationNet(width=32, depth=1, class_embedding=4, opponent_width=8)
    with torch.no_grad():
        for parameter in [*oracle.parameters(), *model.parameters()]:
            parameter.add_(0.3 * torch.randn_like(parameter))
    posterior = PolicyPosterior(model, None, candidates=None)
    return ReplaySetup(oracle=RangeOracle(oracle.eval()), model=posterior, equity_samples=4096)


@pytest.fixture(scope="module")
def replayed(tables: list[Table], setup: ReplaySetup, pool: Pool) -> HandReplay:
    return replay_hand(tables[0], setup, pool=pool)


def test_every_decision_is_the_table_just_before_its_action(tables: list[Table]) -> None:
    for table in tables:
        data = table.to_dict()
        for index, moment in enumerate(moments(table)):
            fresh = Table.from_dict({**data, "actions": data["actions"][:index]})
            assert moment.pot == fresh.pot()
            assert moment.legal == fresh.legal()
            assert list(moment.stack) == fresh.stack
            assert list(moment.folded) == fresh.folded
            assert moment.legal.seat == table.log[index].seat


def test_the_exact_view_is_the_pool_posterior_at_every_decision(
    tables: list[Table], replayed: HandReplay, pool: Pool
) -> None:
    table = tables[0]
    assert replayed.sources == ["uniform", "oracle", "model", "exact"]
    assert len(replayed.decisions) == len(table.log)
    for view in replayed.decisions:
        hand = PublicHand.from_table(table, view.index)
        for player in view.players:
            reference = mixture_posterior(pool, hand, player.seat)
            assert player.ranges["exact"] == pytest.approx(chart(reference), abs=1e-4)
            live = ~combos_sharing_cards(list(hand.board))
            assert player.ranges["uniform"] == pytest.approx(chart(live), abs=1e-4)
    moved = [p.ranges["exact"] != p.ranges["uniform"] for v in replayed.decisions[1:]
             for p in v.players]  # fmt: skip
    assert any(moved)  # the actions moved the pool posterior somewhere


def test_live_players_are_those_who_have_not_folded(
    tables: list[Table], replayed: HandReplay
) -> None:
    table = tables[0]
    folded: set[int] = set()
    for view, action in zip(replayed.decisions, table.log, strict=True):
        assert {p.seat for p in view.players} == set(range(table.seats)) - folded
        assert view.actor == action.seat
        if action.move == "fold":
            folded.add(action.seat)


def test_the_model_s_groups_sum_to_one_over_the_legal_actions(
    tables: list[Table], setup: ReplaySetup
) -> None:
    assert setup.model is not None
    for table in tables:
        for index, moment in enumerate(moments(table)):
            probabilities = group_probabilities(setup.model, table, index)
            board = PublicHand.from_table(table, index).board
            live = ~combos_sharing_cards(list(board))
            np.testing.assert_allclose(probabilities[:, live].sum(axis=0), 1.0, atol=1e-6)
            assert (probabilities[:, ~live] == 0).all()
            if not moment.legal.can_fold:
                assert (probabilities[0] == 0).all()
            if moment.legal.min_raise_to is None:
                assert (probabilities[2] == 0).all()


def test_the_model_reads_the_decision_itself(tables: list[Table], setup: ReplaySetup) -> None:
    """The model's answer for one combo equals its answer on the decision rebuilt as a live
    table (so no decision is off by one), through the population agent's own path."""
    assert setup.model is not None
    table = tables[0]
    data = table.to_dict()
    for index in range(len(table.log)):
        fresh = Table.from_dict({**data, "actions": data["actions"][:index]})
        probabilities = group_probabilities(setup.model, table, index)
        seat = table.log[index].seat
        combo = int(np.flatnonzero(probabilities.sum(axis=0) > 0)[index % 50])
        assert fresh.to_act == seat
        # the same decision, contexts from the live table: one row holding `combo`
        found = seat_decisions(public_query(PublicHand.from_table(table, index + 1), [seat]))
        row = int(np.flatnonzero(found.states.index == index)[0])
        np.testing.assert_allclose(found.states.contexts[row], context_from_table(fresh))
        one = np.exp(setup.model.log_policies(with_holes(found.states, np.array([row]),
                                                         COMBO_CARDS[[combo]])))  # fmt: skip
        assert probabilities[0, combo] == pytest.approx(one[0, 0])
        assert probabilities[1, combo] == pytest.approx(one[0, 1])


def test_the_posterior_after_an_action_is_prior_times_its_probability(
    tables: list[Table], replayed: HandReplay, setup: ReplaySetup, pool: Pool
) -> None:
    assert setup.model is not None
    table = tables[0]
    for view in replayed.decisions:
        probabilities = group_probabilities(setup.model, table, view.index)
        prior = mixture_posterior(pool, PublicHand.from_table(table, view.index), view.actor)
        taken = probabilities[GROUPS.index(view.group)]
        figure = view.breakdown["exact"]
        for k, group in enumerate(GROUPS):
            assert figure.aggregate[group] == pytest.approx(prior @ probabilities[k], abs=1e-4)
        assert sum(figure.aggregate.values()) == pytest.approx(1.0, abs=1e-3)
        assert figure.posterior == pytest.approx(chart(prior * taken), abs=1e-4)
        # the three support charts add up to the prior's chart, cell by cell
        total = np.sum([figure.support[g] for g in GROUPS], axis=0)
        np.testing.assert_allclose(total, chart(prior), atol=5e-4)
        assert set(view.breakdown) == {"uniform", "oracle", "model", "exact"}
        assert view.policy is not None
        assert len(view.policy["fold"]) == 169


def test_breakdown_of_a_one_combo_range() -> None:
    prior = np.zeros(1326)
    prior[0] = 1.0  # 2d2c: one combo of the six of class 22 (the chart's last cell)
    probabilities = np.zeros((3, 1326))
    probabilities[:, 0] = (0.2, 0.5, 0.3)
    figure = breakdown(prior, probabilities, "call")
    assert figure.aggregate == {"fold": 0.2, "call": 0.5, "raise": 0.3}
    assert figure.posterior[168] == pytest.approx(1 / 6, abs=1e-4)
    assert figure.support["call"][168] == pytest.approx(0.5 / 6, abs=1e-4)
    assert sum(figure.posterior) == figure.posterior[168]


def plain_equity(mine: list[int], board: list[int], weights: np.ndarray) -> float:
    """Equity of ``mine`` against a weighted range by enumerating every combo and runout
    (the reference for turn and river boards)."""
    used = {*mine, *board}
    value = total = 0.0
    for combo in np.flatnonzero(weights > 0):
        theirs = [int(c) for c in COMBO_CARDS[combo]]
        if used & set(theirs):
            continue
        rest = [c for c in range(52) if c not in used and c not in theirs]
        for runout in combinations(rest, 5 - len(board)):
            full = [*board, *runout]
            ours, their = evaluate_indices([*mine, *full]), evaluate_indices([*theirs, *full])
            value += weights[combo] * (1.0 if ours > their else 0.5 if ours == their else 0.0)
            total += weights[combo]
    return value / total


def test_the_actor_s_equity_is_against_each_opponent_s_range(
    tables: list[Table], replayed: HandReplay, pool: Pool
) -> None:
    table = tables[0]
    checked = 0
    for view in replayed.decisions:
        mine = table.hole_cards[view.actor]
        for player in view.players:
            if player.seat == view.actor:
                assert player.actor_equity == {}
                continue
            assert set(player.actor_equity) == {"uniform", "oracle", "model", "exact"}
            hand = PublicHand.from_table(table, view.index)
            if len(hand.board) < 4:
                continue
            theirs = mixture_posterior(pool, hand, player.seat)
            reference = plain_equity(mine, list(hand.board), theirs)
            # 4,096 samples: a standard error of at most 0.8 points
            assert player.actor_equity["exact"] == pytest.approx(reference, abs=0.03)
            checked += 1
    assert checked


def test_sources_not_given_are_absent(tables: list[Table]) -> None:
    bare = replay_hand(tables[1], ReplaySetup(equity_samples=1024))
    assert bare.sources == ["uniform"]
    assert not bare.has_model
    for view in bare.decisions:
        assert view.policy is None
        assert view.breakdown == {}
        assert all(set(p.ranges) == {"uniform"} for p in view.players)
    unknown = Table.from_dict({**tables[1].to_dict(), "hole_cards": [""] * tables[1].seats})
    dark = replay_hand(unknown, ReplaySetup(equity_samples=1024))
    assert all(p.actor_equity == {} and p.cards is None for v in dark.decisions
               for p in v.players)  # fmt: skip
    payload = dark.to_json()
    assert payload["seats"][0]["cards"] is None
    assert len(payload["decisions"]) == len(unknown.log)


def test_an_ingested_record_replays_with_its_names() -> None:
    text = (Path(__file__).parent / "data" / "web" / "handhq_ps25_3hands.phhs").read_bytes()
    raw = next(split_hands(io.BytesIO(text)))
    replayed = replay_record(parse_hand(raw), ReplaySetup(equity_samples=1024))
    assert replayed.title == "PokerStars #59937794410"
    assert replayed.seats[1]["name"] == "C79eKghuAVSmzDgIazSFCg"
    assert replayed.seats[1]["cards"] == "8s Ah"
    assert [v.street for v in replayed.decisions].count("river") == 2


def test_bad_input_is_refused_with_a_reason(tables: list[Table]) -> None:
    with pytest.raises(ReplayError, match="need a name for each of 6 seats"):
        replay_hand(tables[0], ReplaySetup(), names=["a", "b"])
    fresh = Table.from_dict({**tables[0].to_dict(), "actions": []})
    with pytest.raises(ReplayError, match="no voluntary action"):
        replay_hand(fresh, ReplaySetup())
