"""``poolshark solve``: shove/fold equilibria, push/fold sweeps and exploits from the shell.

``--json`` prints one JSON object; charts are real PNG and SVG files; bad input exits with
code 2 and a one-line error naming the problem, never a traceback. Errors are read from a
wide console so that a long line is not wrapped at the 80 columns of the test terminal.
"""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from poolshark.cards.ranges import Range
from poolshark.cli import app, common
from poolshark.equity.matrix import PreflopMatrices
from poolshark.solve.shove_fold import ShoveFoldGame, payoffs, top_fraction
from poolshark.solve.solvers import solve_exact

runner = CliRunner()
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SOLVE_KEYS = {"stack_bb", "sb_shove_fraction", "bb_call_fraction", "sb_value_bb"}
SOLVE_KEYS |= {"exploitability_bb"}


@pytest.fixture(autouse=True)
def matrices_ready(preflop: PreflopMatrices) -> PreflopMatrices:
    """Every command needs the preflop matrices: make sure the cache holds them."""
    return preflop


@pytest.fixture
def wide_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Error messages printed on a console wide enough never to wrap them."""
    monkeypatch.setattr(common, "errors", Console(stderr=True, width=1000))


def invoke(*args: str) -> Result:
    """Run ``poolshark ARGS`` in-process."""
    return runner.invoke(app, list(args))


def one_json_object(result: Result) -> dict[str, Any]:
    """The single JSON object a ``--json`` command printed."""
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1
    payload = json.loads(lines[0])
    assert isinstance(payload, dict)
    return payload


def assert_chart(path: Path) -> None:
    """A non-empty PNG (by signature) or a parseable SVG document."""
    assert path.is_file()
    if path.suffix == ".png":
        assert path.read_bytes().startswith(PNG_SIGNATURE)
    else:
        assert path.suffix == ".svg"
        assert ET.parse(path).getroot().tag.endswith("svg")


# --- shove-fold ---------------------------------------------------------------------------


def test_shove_fold_json_and_charts(tmp_path: Path) -> None:
    """10 bb: one JSON object with the published figures, and four charts on disk."""
    payload = one_json_object(
        invoke("solve", "shove-fold", "--stack", "10", "--json", "--out", str(tmp_path))
    )
    assert set(payload) >= SOLVE_KEYS
    assert payload["stack_bb"] == 10.0
    assert payload["method"] == "exact"
    assert payload["sb_shove_fraction"] == pytest.approx(0.583, abs=0.005)
    assert payload["bb_call_fraction"] == pytest.approx(0.374, abs=0.005)
    assert payload["sb_value_bb"] == pytest.approx(-0.045, abs=0.002)
    assert payload["exploitability_bb"] < 1e-9
    charts = [Path(p) for p in payload["charts"]]
    assert len(charts) == 4
    assert sorted(charts) == sorted(tmp_path.iterdir())
    assert sorted(p.suffix for p in charts) == [".png", ".png", ".svg", ".svg"]
    for chart in charts:
        assert_chart(chart)


def test_shove_fold_rounds_stacks_to_a_tenth(tmp_path: Path) -> None:
    """Stacks are solved in 0.1 bb steps: 10.04 is solved as 10."""
    payload = one_json_object(
        invoke("solve", "shove-fold", "-s", "10.04", "--json", "--out", str(tmp_path))
    )
    assert payload["stack_bb"] == 10.0
    assert payload["sb_shove_fraction"] == pytest.approx(0.583, abs=0.005)


def test_shove_fold_with_ante_and_small_blind(tmp_path: Path, preflop: PreflopMatrices) -> None:
    """--ante and --small-blind reach the game: the figures are those of that game."""
    args = ["solve", "shove-fold", "--json", "--out", str(tmp_path)]
    plain = one_json_object(invoke(*args))
    ante = one_json_object(invoke(*args, "--ante", "0.1", "--small-blind", "0.4"))
    assert ante["ante_bb"] == 0.1
    assert ante["small_blind_bb"] == 0.4
    assert ante["exploitability_bb"] < 1e-9
    assert ante["sb_value_bb"] != plain["sb_value_bb"]
    game = ShoveFoldGame(stack=10, small_blind=0.4, ante=0.1)
    expected = solve_exact(payoffs(game, preflop))
    assert ante["sb_value_bb"] == pytest.approx(expected.exploitability.value, abs=1e-12)


def test_shove_fold_fictitious_method(tmp_path: Path) -> None:
    """--method fictitious solves by fictitious play and reports its convergence curve."""
    payload = one_json_object(
        invoke("solve", "shove-fold", "--method", "fictitious", "--json", "--out", str(tmp_path))
    )
    assert payload["method"] == "fictitious"
    assert payload["exploitability_bb"] < 0.001
    curve = payload["curve"]
    assert isinstance(curve, list)
    assert curve[-1][0] == 20_000


def test_shove_fold_table_for_people(tmp_path: Path) -> None:
    """Without --json: both charts as text, the summary table and the chart paths."""
    result = invoke("solve", "shove-fold", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "Shove/fold equilibrium" in result.stdout
    assert "58.3% of combos" in result.stdout
    assert "37.4% of combos" in result.stdout
    assert "charts:" in result.stdout


# --- sweeps -------------------------------------------------------------------------------


def test_sweep_writes_the_table_and_charts(tmp_path: Path) -> None:
    """--sweep 2:6:1 solves five stacks and writes push-fold.csv/.json and four charts."""
    payload = one_json_object(
        invoke("solve", "shove-fold", "--sweep", "2:6:1", "--out", str(tmp_path), "--json")
    )
    assert payload["stacks"] == 5
    assert payload["low_bb"] == 2
    assert payload["high_bb"] == 6
    assert payload["max_exploitability_bb"] < 1e-9
    files = [Path(p) for p in payload["files"]]
    assert sorted(files) == sorted(tmp_path.iterdir())
    names = {p.name for p in files}
    assert {"push-fold.csv", "push-fold.json"} <= names
    charts = [p for p in files if p.suffix in (".png", ".svg")]
    assert len(charts) == 4
    for chart in charts:
        assert_chart(chart)
    with (tmp_path / "push-fold.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 169
    by_class = {row["class"]: row for row in rows}
    assert float(by_class["AA"]["max_shove_bb"]) == 6
    assert float(by_class["72o"]["max_shove_bb"]) == 0
    table = json.loads((tmp_path / "push-fold.json").read_text())
    assert table["stacks"] == [2, 3, 4, 5, 6]
    assert table["classes"]["AA"] == {"max_shove_bb": 6.0, "max_call_bb": 6.0}
    assert len(table["rows"]) == 5


def test_sweep_for_people(tmp_path: Path) -> None:
    """Without --json a sweep prints the chart of largest stacks and a summary line."""
    result = invoke("solve", "shove-fold", "--sweep", "2:4", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "Solved 21 stacks from 2 to 4 bb" in result.stdout
    assert (tmp_path / "push-fold.csv").is_file()


# --- exploit ------------------------------------------------------------------------------


def test_exploit_json(preflop: PreflopMatrices) -> None:
    """Shoving the top 30% and calling QQ+: the exact figures of those two strategies."""
    payload = one_json_object(
        invoke("solve", "exploit", "--shove", "top30%", "--call", "QQ+", "--json")
    )
    the_payoffs = payoffs(ShoveFoldGame(stack=10), preflop)
    shove = top_fraction(0.3, preflop)
    call = Range.parse("QQ+").weights
    measured = the_payoffs.exploitability(shove, call)
    assert payload["stack_bb"] == 10.0
    assert payload["sb_shove_fraction"] == pytest.approx(0.3)
    assert payload["bb_call_fraction"] == pytest.approx(18 / 1326)
    assert payload["sb_value_bb"] == pytest.approx(measured.value, abs=1e-12)
    assert payload["exploitability_bb"] == pytest.approx(measured.total, abs=1e-12)
    assert payload["exploitability_bb"] > 0
    assert payload["sb_gives_up_bb"] > 0
    assert payload["bb_gives_up_bb"] > 0
    assert payload["best_shove_fraction"] == 1.0
    assert payload["best_call_fraction"] == pytest.approx(
        float(np.mean(the_payoffs.best_call(shove)))
    )


def test_exploit_for_people() -> None:
    """Without --json: both best responses as charts and the table of what each gives up."""
    result = invoke("solve", "exploit", "--shove", "top 30 %", "--call", "22+,A2s+", "-s", "8")
    assert result.exit_code == 0, result.output
    assert "best response" in result.stdout
    assert "exploitability (mean)" in result.stdout


# --- bad input ----------------------------------------------------------------------------

BAD_INPUTS = [
    (["solve", "shove-fold", "--stack", "-1"], "stack"),
    (["solve", "shove-fold", "--stack", "0.5"], "cannot cover the blind"),
    (["solve", "shove-fold", "--ante", "-1"], "ante"),
    (["solve", "shove-fold", "--method", "foo"], "unknown method 'foo'"),
    (["solve", "shove-fold", "--sweep", "5"], "bad --sweep '5'"),
    (["solve", "shove-fold", "--sweep", "a:b"], "stacks must be numbers"),
    (["solve", "shove-fold", "--sweep", "6:2"], "bad stack range"),
    (["solve", "shove-fold", "--sweep", "0.5:2"], "cannot cover the blind"),
    (["solve", "exploit", "--shove", "ZZ", "--call", "QQ+"], "ZZ"),
    (["solve", "exploit", "--shove", "AA", "--call", "QQ+,Kx"], "Kx"),
    (["solve", "exploit", "--shove", "top150%", "--call", "QQ+"], "1.5"),
]


def bad_input_id(args: list[str]) -> str:
    """The test id: the options after the sub-command."""
    return " ".join(args[2:])


@pytest.mark.parametrize(
    ("args", "token"), BAD_INPUTS, ids=[bad_input_id(args) for args, _ in BAD_INPUTS]
)
def test_bad_input_exits_2_naming_the_problem(args: list[str], token: str) -> None:
    """Bad games, methods, sweeps and ranges exit 2 with the problem named, no traceback."""
    result = invoke(*args)
    assert result.exit_code == 2
    assert token in result.stderr
    assert "error" in result.stderr
    assert "Traceback" not in result.output
    assert result.stdout == ""


@pytest.mark.usefixtures("wide_errors")
@pytest.mark.parametrize(
    ("args", "token"),
    [(args, token) for args, token in BAD_INPUTS],
    ids=[bad_input_id(args) for args, _ in BAD_INPUTS],
)
def test_bad_input_error_is_one_line(args: list[str], token: str) -> None:
    """The error is a single line on stderr (on a terminal wide enough for it)."""
    result = invoke(*args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert token in lines[0]


@pytest.mark.usefixtures("wide_errors")
def test_error_text_with_brackets_is_printed_verbatim() -> None:
    """A bad range token is echoed as typed, square brackets included."""
    result = invoke("solve", "exploit", "--shove", "AK[bold]", "--call", "QQ+")
    assert result.exit_code == 2
    assert "AK[bold]" in result.stderr


def test_error_text_with_a_closing_tag_is_not_a_crash() -> None:
    """A range token that looks like a closing markup tag is still a clean exit 2."""
    result = invoke("solve", "exploit", "--shove", "AA[/x]", "--call", "QQ+")
    assert result.exit_code == 2
    assert "AA[/x]" in result.stderr


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_infinite_stack_is_a_clear_error(tmp_path: Path) -> None:
    """--stack inf is refused as a bad game, before any solving."""
    result = invoke("solve", "shove-fold", "--stack", "inf", "--out", str(tmp_path))
    assert result.exit_code == 2
    assert "bad shove/fold game" in result.stderr
