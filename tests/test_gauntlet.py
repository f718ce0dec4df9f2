"""The heads-up fixed-limit gauntlet: every pairing in duplicate, small bets per hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poolshark.agents.bots import CallingStation, RandomAgent
from poolshark.agents.hardbot import HaRDBot
from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import AgentError
from poolshark.cli import app
from poolshark.experiments.gauntlet import markdown_table, round_robin

runner = CliRunner()


def test_round_robin_plays_every_pairing_once() -> None:
    agents = {"station": CallingStation, "random": RandomAgent, "again": CallingStation}
    pairings = round_robin(agents, hands=200, seed=1, tables=32)
    assert [(p.first, p.second) for p in pairings] == [
        ("station", "random"),
        ("station", "again"),
        ("random", "again"),
    ]
    mirror = next(p for p in pairings if p.second == "again" and p.first == "station")
    assert mirror.small_bets_per_hand == pytest.approx(0.0)  # a station against itself
    for pairing in pairings:
        low, high = pairing.ci95
        assert low <= pairing.small_bets_per_hand <= high
        assert pairing.hands >= 200
    table = markdown_table(pairings)
    assert table.count("\n") == 2 + 3 - 1
    assert "| random | " in table


def test_unknown_pairings_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown agents: nobody"):
        round_robin({"station": CallingStation}, hands=10, seed=0, pairs=[("station", "nobody")])


def test_gauntlet_command_json_and_bad_spec() -> None:
    result = runner.invoke(
        app, ["limit", "gauntlet", "station", "random", "-n", "200", "--tables", "32", "--json"]
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    (pairing,) = figures["pairings"]
    assert pairing["first"] == "station"
    assert pairing["hands"] >= 200
    bad = runner.invoke(app, ["limit", "gauntlet", "station", "nobot"])
    assert bad.exit_code == 2
    assert "unknown agent 'nobot'" in bad.output
    alone = runner.invoke(app, ["limit", "gauntlet", "station", "station"])
    assert alone.exit_code == 2
    assert "at least two" in alone.output


def test_corpus_command_builds_a_corpus_hardbot_reads(tmp_path: Path) -> None:
    path = tmp_path / "corpus.parquet"
    result = runner.invoke(
        app,
        ["limit", "corpus", "--pair", "station,random", "-n", "60", "--out", str(path), "--json"],
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["hands"] >= 60
    assert figures["rows"] > figures["hands"]  # several decisions a hand
    assert isinstance(load_agent(f"hardbot:{path}"), HaRDBot)
    bad = runner.invoke(app, ["limit", "corpus", "--pair", "station"])
    assert bad.exit_code == 2
    assert "two agent specs" in bad.output
    with pytest.raises(AgentError, match="no corpus file"):
        load_agent(f"hardbot:{tmp_path / 'none.parquet'}")


def test_named_agents_and_ablations(tmp_path: Path) -> None:
    named = runner.invoke(
        app, ["limit", "gauntlet", "calls=station", "rnd=random", "-n", "100", "--json"]
    )
    assert named.exit_code == 0, named.output
    (pairing,) = json.loads(named.stdout)["pairings"]
    assert (pairing["first"], pairing["second"]) == ("calls", "rnd")
    path = tmp_path / "corpus.parquet"
    built = runner.invoke(
        app, ["limit", "corpus", "--pair", "station,random", "-n", "40", "--out", str(path)]
    )
    assert built.exit_code == 0, built.output
    result = runner.invoke(
        app,
        [
            "limit",
            "ablations",
            "--corpus",
            str(path),
            "--against",
            "station",
            "-n",
            "40",
            "--tables",
            "8",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    variants = [p["first"] for p in json.loads(result.stdout)["pairings"]]
    assert variants == [
        "hardbot",
        "hardbot-no-corpus",
        "hardbot-no-model",
        "hardbot-k3",
        "hardbot-k8",
    ]
