"""``poolshark solve cfr`` and ``poolshark solve limit``: CFR from the shell, and the solved
folder playing as an agent in fixed-limit matches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poolshark.agents.equilibrium import EquilibriumAgent
from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import AgentError
from poolshark.cli import app
from poolshark.solve.limit_game import KUHN_VALUE

runner = CliRunner()


def test_cfr_solves_kuhn_to_its_value() -> None:
    result = runner.invoke(app, ["solve", "cfr", "--game", "kuhn", "-i", "400", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["value"] == pytest.approx(KUHN_VALUE, abs=2e-3)
    gaps = [gap for _, gap in figures["curve"]]
    assert gaps[-1] < gaps[0] / 20


def test_cfr_refuses_unknown_games_and_algorithms() -> None:
    bad_game = runner.invoke(app, ["solve", "cfr", "--game", "chess"])
    assert bad_game.exit_code == 2
    assert "unknown game 'chess'" in bad_game.output
    bad_algorithm = runner.invoke(app, ["solve", "cfr", "--algorithm", "magic"])
    assert bad_algorithm.exit_code == 2
    assert "unknown algorithm 'magic'" in bad_algorithm.output


def test_limit_solve_writes_a_folder_that_plays(tmp_path: Path) -> None:
    """A tiny abstraction (2 buckets a street) solved for a few iterations: the folder
    loads as an agent and the exploitability it reports fell."""
    out = tmp_path / "solved"
    args = ["solve", "limit", "--buckets", "2,2,2,2", "--fit-hands", "300", "--deals", "3000"]
    result = runner.invoke(app, [*args, "-i", "20", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["buckets"] == [2, 2, 2, 2]
    curve = [gap for _, gap in figures["curve_mbb"]]
    assert curve[-1] < curve[0]
    assert json.loads((out / "solve.json").read_text())["iterations"] == 20
    assert isinstance(load_agent(str(out)), EquilibriumAgent)
    played = runner.invoke(
        app,
        [
            "eval",
            str(out),
            "station",
            "--seats",
            "2",
            "--betting",
            "fixed-limit",
            "-n",
            "200",
            "--tables",
            "32",
            "--json",
        ],
    )
    assert played.exit_code == 0, played.output
    assert json.loads(played.stdout)["agents"][0]["coerced"] == 0


def test_a_folder_without_its_abstraction_is_refused(tmp_path: Path) -> None:
    (tmp_path / "strategy.npz").write_bytes(b"")
    with pytest.raises(AgentError, match=r"has no abstraction\.npz"):
        load_agent(str(tmp_path))


def test_bad_bucket_lists_are_refused() -> None:
    result = runner.invoke(app, ["solve", "limit", "--buckets", "5,5"])
    assert result.exit_code == 2
    assert "four counts" in result.output
