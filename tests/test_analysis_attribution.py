"""Where the exploit earns: the split adds up, folds cost exactly the blinds, spots match the
agents' own contexts, runs replay from their seed, and the CLI prints one JSON object."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import Agent, Decisions, Moves, Probabilities
from poolshark.analysis.attribution import (
    ACTIONS,
    SITUATIONS,
    VS_OPEN,
    attribute_agents,
    attribute_edge,
    compare_attributions,
    split_estimates,
)
from poolshark.cli.exploit import app
from poolshark.evaluate.match import MatchConfig
from poolshark.pool.context import Facing, Feature, Position, position_class

HANDS = 600
SEATS = 6


class AlwaysFold:
    """Folds at every decision (the engine turns a free fold into a check)."""

    def act(self, decisions: Decisions) -> Moves:
        return Moves(np.zeros(decisions.size, dtype=np.int64))


class ButtonShover:
    """All-in from the button when nobody has entered the pot, fold everywhere else."""

    def act(self, decisions: Decisions) -> Moves:
        context = decisions.contexts
        shove = (
            (context[:, Feature.STREET] == 0)
            & (context[:, Feature.POSITION] == Position.BTN)
            & (context[:, Feature.PREFLOP_FACING] == Facing.UNOPENED)
            & (decisions.max_raise_to >= 0)
        )
        return Moves(np.where(shove, 2, 0), np.where(shove, decisions.max_raise_to, 0))


class Recording:
    """Wraps an agent and notes, per (hand, seat), the context of its first preflop
    decision and the move the engine will make (a reference for the log reader)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.first: dict[tuple[int, int], tuple[int, int, int, int]] = {}

    def act(self, decisions: Decisions) -> Probabilities | Moves:
        answer = self.agent.act(decisions)
        assert isinstance(answer, Moves)
        moves = np.asarray(answer.move)
        amounts = np.zeros(decisions.size) if answer.amount is None else answer.amount
        context = decisions.contexts
        for row in range(decisions.size):
            key = (int(decisions.hand_ids[row]), int(decisions.seats[row]))
            if context[row, Feature.STREET] != 0 or key in self.first:
                continue
            move = int(moves[row])
            if move == 0 and decisions.call[row] == 0:
                move = 1  # the engine checks a free fold
            if move == 2:
                all_in = int(np.asarray(amounts)[row]) >= decisions.max_raise_to[row]
                move = 3 if all_in else 2
            view = decisions.view(row)
            raisers = [seat for seat, kind, _, street in view.actions if street == 0 and kind == 2]
            opener = position_class(raisers[0], view.button, SEATS) if raisers else -1
            self.first[key] = (
                int(context[row, Feature.POSITION]),
                int(context[row, Feature.PREFLOP_FACING]),
                move,
                int(opener),
            )
        return answer


def config(seed: int = 3, hands: int = HANDS) -> MatchConfig:
    return MatchConfig(hands=hands, seats=SEATS, seed=seed, tables=100)


def spots(figures: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["spot"]: row for row in figures["spots"]}


@pytest.fixture(scope="module")
def folder() -> dict[str, Any]:
    return attribute_agents(AlwaysFold(), load_agent("tag"), config())


@pytest.fixture(scope="module")
def shover() -> dict[str, Any]:
    return attribute_agents(ButtonShover(), load_agent("pool:micro-zoom"), config())


def test_contributions_add_up_to_the_match_total(shover: dict[str, Any]) -> None:
    total = shover["total"]["bb_per_100"]
    assert shover["sum_of_contributions"] == pytest.approx(total, abs=1e-9)
    assert total == pytest.approx(shover["match_total"]["bb_per_100"], abs=1e-9)
    assert shover["total"]["stderr"] == pytest.approx(shover["match_total"]["stderr"])
    street_sum = sum(row["contribution"]["bb_per_100"] for row in shover["streets"])
    assert street_sum == pytest.approx(total, abs=1e-9)
    for row in shover["spots"]:
        by_action = sum(cell["contribution"]["bb_per_100"] for cell in row["by_action"])
        assert by_action == pytest.approx(row["contribution"]["bb_per_100"], abs=1e-9)
        assert sum(cell["hands"] for cell in row["by_action"]) == row["hands"]
    assert sum(row["hands"] for row in shover["spots"]) == shover["hands"]
    assert shover["hands"] % SEATS == 0


def test_always_fold_loses_exactly_its_blinds_in_its_fold_spots(folder: dict[str, Any]) -> None:
    """Every position comes in 1/6 of the hands; outside the blinds a fold costs nothing,
    the small blind folds 0.5 bb every time (-100/12 bb/100), the big blind folds 1 bb to
    a raise and wins 0.5 bb in a walk."""
    hands = folder["hands"]
    by_position: dict[str, float] = {}
    count: dict[str, int] = {}
    for row in folder["spots"]:
        by_position[row["position"]] = (
            by_position.get(row["position"], 0.0) + row["contribution"]["bb_per_100"]
        )
        count[row["position"]] = count.get(row["position"], 0) + row["hands"]
        exact = {"SB": -0.5, "BB": -1.0}.get(row["position"], 0.0)
        if row["facing"] == "walk":
            assert row["average_bb"]["mean"] == pytest.approx(0.5)
            assert row["contribution"]["stderr"] == pytest.approx(
                50 * math.sqrt(row["hands"] * (hands - row["hands"]) / (hands - 1)) / hands
            )
        elif row["position"] != "BB" or row["facing"] != "limped":
            assert row["exploiter_actions"]["fold"] == 1.0, row["spot"]
            assert row["average_bb"]["mean"] == pytest.approx(exact), row["spot"]
    assert count == dict.fromkeys(("EP", "MP", "CO", "BTN", "SB", "BB"), hands // SEATS)
    for position in ("EP", "MP", "CO", "BTN"):
        assert by_position[position] == 0.0
    assert by_position["SB"] == pytest.approx(-100 / 12)
    assert folder["total"]["bb_per_100"] < -100 / 12


def test_the_one_spot_that_plays_holds_every_non_blind_result(shover: dict[str, Any]) -> None:
    rows = spots(shover)
    shove = rows["BTN unopened"]
    assert shove["exploiter_actions"]["all-in"] == 1.0
    assert shove["field_continues_vs_raise"]["hands"] == shove["hands"]
    assert rows["EP unopened"]["field_continues_vs_raise"] is None
    assert shove["contribution"]["stderr"] > 0
    for row in shover["spots"]:
        if row["spot"] != "BTN unopened" and row["position"] not in ("SB", "BB"):
            assert row["exploiter_actions"]["fold"] == 1.0, row["spot"]
            assert row["contribution"]["bb_per_100"] == 0.0, row["spot"]
    non_blind = sum(
        row["contribution"]["bb_per_100"]
        for row in shover["spots"]
        if row["position"] not in ("SB", "BB")
    )
    assert non_blind == shove["contribution"]["bb_per_100"]


def test_spots_are_the_agents_own_contexts() -> None:
    """The log reader's spot and action for every first preflop decision equal the live
    context the acting agent saw and the move it made (hand by hand, seat by seat)."""
    from poolshark.analysis.attribution import SpotRecorder
    from poolshark.evaluate.match import default_lineup, play_match

    recording = Recording(load_agent("tag"))
    recorder = SpotRecorder()
    play_match(
        [recording, load_agent("pool:micro-zoom")],
        default_lineup(2, SEATS, against=True),
        config(seed=5),
        observer=recorder,
    )
    records = recorder.records()
    mine = np.flatnonzero(records["owner"] == 0)
    assert mine.size == len(recording.first) + int((records["situation"][mine] == 0).sum())
    facing_of = {name: code for code, name in enumerate(SITUATIONS)}
    checked = 0
    for i in mine.tolist():
        key = (int(records["hand"][i]), int(records["seat"][i]))
        if key not in recording.first:
            assert SITUATIONS[records["situation"][i]] == "walk"
            continue
        position, facing, move, opener = recording.first[key]
        situation = int(records["situation"][i])
        assert records["position"][i] == position
        expected = {
            Facing.UNOPENED: facing_of["unopened"],
            Facing.LIMPED: facing_of["limped"],
            Facing.THREE_BET: facing_of["vs 3-bet"],
            Facing.FOUR_BET_PLUS: facing_of["vs 4-bet+"],
            Facing.OPEN_RAISED: VS_OPEN + opener,
        }[Facing(facing)]
        assert situation == expected
        assert ACTIONS[records["action"][i]] == ("fold", "call", "raise", "all-in")[move]
        checked += 1
    assert checked > 0.9 * mine.size


def test_an_uncontested_shove_wins_exactly_the_blinds() -> None:
    """The button's shove that nobody calls wins 1.5 bb; one that is called does not."""
    from poolshark.analysis.attribution import UNOPENED, SpotRecorder
    from poolshark.evaluate.match import default_lineup, play_match

    recorder = SpotRecorder()
    play_match(
        [ButtonShover(), load_agent("pool:micro-zoom")],
        default_lineup(2, SEATS, against=True),
        config(seed=11),
        observer=recorder,
    )
    records = recorder.records()
    shoves = (
        (records["owner"] == 0)
        & (records["position"] == Position.BTN)
        & (records["situation"] == UNOPENED)
    )
    assert (records["action"][shoves] == ACTIONS.index("all-in")).all()
    contested = records["continued"][shoves]
    assert 0 < contested.sum() < contested.size
    assert (records["result"][shoves][~contested] == 1.5).all()
    assert (records["result"][shoves][contested] != 1.5).mean() > 0.9


def test_the_field_actions_are_its_own_decisions(shover: dict[str, Any]) -> None:
    for row in shover["spots"]:
        if row["field_decisions"]:
            assert sum(row["field_actions"].values()) == pytest.approx(1.0)
    assert spots(shover)["EP unopened"]["field_decisions"] == 5 * shover["hands"] // SEATS


def test_split_estimates_matches_the_plain_formula() -> None:
    rng = np.random.default_rng(0)
    groups = rng.integers(0, 3, 50)
    results = rng.normal(size=50)
    mean, stderr = split_estimates(groups, results, 4)
    for g in range(4):
        x = results * (groups == g)
        assert mean[g] == pytest.approx(100 * x.mean())
        assert stderr[g] == pytest.approx(100 * x.std(ddof=1) / math.sqrt(50))


def test_same_seed_same_figures_other_seed_other_figures() -> None:
    first = attribute_edge("tag", "pool:micro-zoom", hands=HANDS, seed=7)
    again = attribute_edge("tag", "pool:micro-zoom", hands=HANDS, seed=7)
    other = attribute_edge("tag", "pool:micro-zoom", hands=HANDS, seed=8)
    assert json.dumps(first) == json.dumps(again)
    assert first["total"] != other["total"]


def _attribution(rates: dict[str, tuple[float, float]]) -> dict[str, Any]:
    def row(spot: str, rate: float, stderr: float) -> dict[str, Any]:
        half = 1.959963984540054 * stderr
        return {
            "spot": spot,
            "frequency": 0.1,
            "field_actions": {"fold": 1.0},
            "contribution": {
                "bb_per_100": rate,
                "stderr": stderr,
                "ci95": [rate - half, rate + half],
            },
        }

    return {"spots": [row(spot, *values) for spot, values in rates.items()]}


def test_compare_joins_spots_and_flags_intervals_that_disagree() -> None:
    model = _attribution({"BTN vs open CO": (40.0, 3.0), "SB vs 3-bet": (2.0, 1.0)})
    pool = _attribution({"BTN vs open CO": (5.0, 4.0), "BB walk": (1.0, 0.5)})
    rows = {row["spot"]: row for row in compare_attributions(model, pool)}
    assert list(rows) == ["BTN vs open CO", "SB vs 3-bet", "BB walk"]
    button = rows["BTN vs open CO"]
    assert button["difference"] == pytest.approx(35.0)
    assert button["difference_ci95"][0] == pytest.approx(35.0 - 1.959963984540054 * 5.0)
    assert button["disagree"]
    assert rows["SB vs 3-bet"]["pool"] == 0.0
    assert rows["SB vs 3-bet"]["pool_ci95"] is None
    assert rows["SB vs 3-bet"]["disagree"]  # 2 +- 1.96: excludes 0
    assert rows["BB walk"]["difference"] == -1.0
    assert rows["BB walk"]["disagree"]


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_json_is_one_object_with_both_fields_and_the_comparison() -> None:
    code, stdout, _ = _invoke(
        "attribute", "tag", "--against", "tag", "--against", "pool:micro-zoom",
        "--hands", str(HANDS), "--seed", "1", "--json",
    )  # fmt: skip
    assert code == 0
    assert stdout.count("\n") == 1
    payload = json.loads(stdout)
    first, second = payload["attributions"]
    assert (first["field"], second["field"]) == ("tag", "pool:micro-zoom")
    for figures in (first, second):
        assert figures["sum_of_contributions"] == pytest.approx(figures["total"]["bb_per_100"])
    assert {row["spot"] for row in payload["comparison"]} == {
        row["spot"] for row in first["spots"]
    } | {row["spot"] for row in second["spots"]}


def test_cli_names_a_bad_field() -> None:
    code, _, stderr = _invoke("attribute", "tag", "--against", "pool:nope", "--hands", "60")
    assert code != 0
    assert "nope" in stderr


def test_report_section_shows_both_fields_and_where_they_disagree(
    folder: dict[str, Any], shover: dict[str, Any]
) -> None:
    from poolshark.report.attribution import attribution_section

    assert attribution_section({}) == ""
    model = {**folder, "exploiter": "fold<all>", "field": "tag"}
    html = attribution_section({"against_model": model, "against_pool": shover})
    assert html.startswith("<h2>Where the edge comes from</h2>")
    assert html.count("<table>") == 3
    assert "fold&lt;all&gt;" in html
    assert "BTN unopened" in html
    assert f"{shover['total']['bb_per_100']:+.1f} ±" in html
    only_pool = attribution_section({"against_pool": shover})
    assert only_pool.count("<table>") == 1


@given(
    st.lists(st.tuples(st.integers(0, 5), st.floats(-200, 200)), min_size=2, max_size=60),
)
def test_group_contributions_always_add_up_to_the_mean(pairs: list[tuple[int, float]]) -> None:
    groups = np.array([g for g, _ in pairs], dtype=np.int64)
    results = np.array([r for _, r in pairs])
    mean, stderr = split_estimates(groups, results, 6)
    assert mean.sum() == pytest.approx(100 * results.mean(), abs=1e-9)
    assert (stderr >= 0).all()
    assert (mean[np.bincount(groups, minlength=6) == 0] == 0).all()


def test_raked_match_still_adds_up() -> None:
    figures = attribute_edge(
        "tag", "pool:micro-zoom", hands=HANDS, seed=2, rake_percent=5.0, rake_cap_bb=1.0
    )
    assert figures["rake_percent"] == 5.0
    total = figures["total"]["bb_per_100"]
    assert figures["sum_of_contributions"] == pytest.approx(total, abs=1e-9)
    assert total == pytest.approx(figures["match_total"]["bb_per_100"], abs=1e-9)
