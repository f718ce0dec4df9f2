"""``poolshark eval``: a table per agent, one JSON object with ``--json``, one-line errors."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poolshark.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    """Run the CLI in-process; (exit code, stdout, stderr)."""
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_json_is_one_object_with_every_agents_figures() -> None:
    code, out, _ = run("eval", "tag", "station", "--hands", "600", "--seed", "2", "--json")
    assert code == 0
    payload = json.loads(out)
    assert out.count("\n") == 1
    assert [a["name"] for a in payload["agents"]] == ["tag", "station"]
    assert payload["lineup"] == ["tag", "station"] * 3
    assert payload["table_hands"] >= 600
    assert payload["seats"] == 6
    assert payload["duplicate"] is False
    assert payload["all_in_ev"] == "sampled"
    assert "sd / sqrt(deals)" in payload["estimator"]
    for agent in payload["agents"]:
        actual = agent["actual"]
        low, high = actual["ci95"]
        assert low < actual["bb_per_100"] < high
        assert high - low == pytest.approx(2 * 1.959964 * actual["stderr"], rel=1e-6)
        assert set(agent["ev_adjusted"]) == {"bb_per_100", "stderr", "ci95"}
        assert agent["hands"] == 3 * payload["table_hands"]
        assert 0 <= agent["pfr"] <= agent["vpip"] <= 1
    assert sum(a["won_chips"] for a in payload["agents"]) == 0
    assert payload["agents"][0]["actual"]["bb_per_100"] > 0


def test_against_a_pool_in_duplicate_mode() -> None:
    code, out, _ = run(
        "eval", "nit", "--against", "pool:micro-zoom", "-n", "300", "--duplicate", "--json"
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["lineup"] == ["nit", *["pool:micro-zoom"] * 5]
    assert payload["replays"] == 6
    assert payload["deals"] * 6 == payload["table_hands"]
    assert payload["agents"][1]["seats"] == 5


def test_rake_ev_mode_and_seats_reach_the_match() -> None:
    code, out, _ = run(
        "eval", "random", "station", "--seats", "2", "-n", "200", "--rake", "5",
        "--rake-cap", "1", "--ev", "off", "--depth", "40", "--json",
    )  # fmt: skip
    assert code == 0
    payload = json.loads(out)
    assert payload["agents"][0]["ev_adjusted"] is None
    assert payload["all_in_ev"] == "off"
    assert payload["rake_bb"] > 0
    assert sum(a["won_chips"] for a in payload["agents"]) == -payload["rake_bb"] * 2


def test_the_table_names_agents_and_the_interval() -> None:
    code, out, _ = run("eval", "tag", "random", "--seats", "2", "-n", "400")
    assert code == 0
    assert "tag" in out
    assert "random" in out
    assert "bb/100" in out
    assert "95% CI" in out
    assert "±" in out


def test_fixed_limit_shows_the_thesis_hud_and_json_carries_every_field() -> None:
    """With --betting fixed-limit the style table has the thesis's columns (Fold% and Ww/oSD
    of the voluntary deals, AF on every street); --json holds both HUD variants."""
    args = ("eval", "random", "station", "--seats", "2", "-n", "200", "--betting", "fixed-limit")
    code, out, _ = run(*args)
    assert code == 0
    header = next(
        line for line in out.splitlines() if line.startswith("┃ agent") and "W$SD" in line
    )
    assert [word for word in header.split() if word not in "┃│"] == [
        "agent", "VP$IP", "Fold%", "Ww/oSD", "W$SD", "AF",
    ]  # fmt: skip
    assert "WTSD" not in out
    code, out, _ = run(*args, "--json")
    assert code == 0
    hud = json.loads(out)["agents"][0]["hud"]
    assert {"folded", "aggression", "voluntary_folded", "aggression_all_streets"} <= set(hud)
    assert hud["voluntary_won_without_showdown"] is not None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["eval", "bogus"], "unknown agent 'bogus'"),
        (["eval", "pool:nowhere"], "no shipped pool 'nowhere'"),
        (["eval", "tag", "--hands", "0"], "hands must be at least 1"),
        (["eval", "tag", "--seats", "1"], "seats must be 2..10"),
        (["eval", "a", "b", "c", "--seats", "2"], "unknown agent 'a'"),
        (["eval", "tag", "random", "station", "--seats", "2"], "3 agents do not fit 2 seats"),
        (["eval", "tag", "tag", "--against", "nit", "--seats", "2"], "a field"),
        (["eval", "nowhere/file.toml"], "cannot read agent file"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(args: list[str], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2
    assert out == ""
    assert message in " ".join(err.split())
    assert err.strip().startswith("error:")


def test_user_agents_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``module:Class`` finds a bot file in the current folder, as ``python -m`` would."""
    (tmp_path / "my_cli_bot.py").write_text(
        textwrap.dedent(
            """
            from poolshark.agents import SimpleAgent

            class Limper(SimpleAgent):
                def decide(self, view):
                    return (1, 0) if view.street == 0 else ((1, 0) if view.call == 0 else (0, 0))
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "my_cli_bot", raising=False)
    code, out, _ = run("eval", "my_cli_bot:Limper", "tag", "--seats", "2", "-n", "100", "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["agents"][0]["name"] == "my_cli_bot:Limper"
    assert payload["agents"][0]["pfr"] == 0


def test_aivat_adds_the_variance_reduced_figures() -> None:
    code, out, _ = run(
        "eval", "zoom-reg", "--against", "pool:micro-zoom", "-n", "240", "--aivat", "--json"
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["variance_reduction"] is True
    for agent in payload["agents"]:
        for key in ("aivat", "aivat_plain", "luck"):
            assert set(agent[key]) == {"bb_per_100", "stderr", "ci95"}
        assert agent["corrected_decisions"] == agent["decisions"]  # styles: known policies
    code, out, _ = run("eval", "tag", "station", "--seats", "2", "-n", "100")
    assert code == 0
    assert "AIVAT" not in out
    code, out, _ = run("eval", "tag", "station", "--seats", "2", "-n", "100", "--aivat")
    assert code == 0
    assert out.count("AIVAT") >= 2  # the columns (cut at 80 characters) and the note
