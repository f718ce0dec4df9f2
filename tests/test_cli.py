"""The ``poolshark`` command line: tables for people, one JSON object with ``--json``, and
one-line errors with exit code 2 for bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from poolshark.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    """Run the CLI in-process; (exit code, stdout)."""
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout


def test_equity_prints_the_exact_equity_of_the_first_hand() -> None:
    """`poolshark equity AhKh QdQc` shows 46.21% for AhKh and says it is exact."""
    code, out = run("equity", "AhKh", "QdQc")
    assert code == 0
    assert "46.21%" in out
    assert "exact" in out
    assert "1,712,304" in out


def test_equity_json_is_one_object_with_the_documented_keys() -> None:
    """--json prints exactly one JSON object with equities, exact and boards."""
    code, out = run("equity", "AhKh", "QdQc", "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["exact"] is True
    assert payload["boards"] == 1_712_304
    assert payload["equities"][0] == pytest.approx(0.462145, abs=5e-7)
    assert sum(payload["equities"]) == pytest.approx(1.0)


def test_equity_with_board_and_range() -> None:
    """A range on a flop is exact; the board is echoed back."""
    code, out = run("equity", "--json", "AhKh", "QQ+,AKs", "--board", "2h7hQc")
    assert code == 0
    payload = json.loads(out)
    assert payload["board"] == "2h7hQc"
    assert payload["exact"] is True


def test_equity_monte_carlo_reports_standard_errors() -> None:
    """-n N samples instead of enumerating and reports a standard error per player."""
    code, out = run("equity", "--json", "AhKh", "QdQc", "JsTs", "-n", "40000", "--seed", "3")
    assert code == 0
    payload = json.loads(out)
    assert payload["exact"] is False
    assert len(payload["std_errors"]) == 3
    assert payload["equities"][0] == pytest.approx(0.4021, abs=5 * payload["std_errors"][0])


def test_equity_falls_back_to_sampling_when_enumeration_is_too_big() -> None:
    """Four random hands preflop are too many deals to enumerate: the CLI samples instead."""
    result = runner.invoke(app, ["equity", "--json", "AA", "any", "any", "any"])
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    assert payload["exact"] is False


@pytest.mark.parametrize(
    ("args", "token"),
    [
        (["equity", "AhKx", "QdQc"], "AhKx"),
        (["equity", "AhKh", "AhQc"], "Ah"),
        (["equity", "AhKh", "QdQc", "--board", "2h7h"], "got 2: '2h 7h'"),
        (["equity", "AhKh"], "2 to 10 players"),
        (["hand", "AhKhQhJhTx"], "Tx"),
        (["hand", "AhKh"], "5 to 7 cards"),
    ],
)
def test_bad_input_is_one_line_naming_the_problem(args: list[str], token: str) -> None:
    """Bad cards or deals exit with code 2 and an error that names the bad token."""
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert token in result.output
    assert "Traceback" not in result.output


def test_hand_names_the_hand() -> None:
    """`poolshark hand` evaluates and names a 5-7 card hand, also as JSON."""
    code, out = run("hand", "AhKhQhJhTh9h", "--json")
    assert code == 0
    assert json.loads(out) == {
        "cards": "Ah Kh Qh Jh Th 9h",
        "value": 7462,
        "category": "straight_flush",
        "description": "royal flush",
    }
    code, out = run("hand", "7c", "7d", "7h", "7s", "Kd")
    assert code == 0
    assert "four of a kind, sevens" in out


def test_help_lists_the_commands() -> None:
    """The top-level help shows every sub-command."""
    code, out = run("--help")
    assert code == 0
    for command in ("equity", "hand", "demo", "tour"):
        assert command in out


def test_python_dash_m_runs_the_command_line() -> None:
    """``python -m poolshark.cli`` is the ``poolshark`` script."""
    ran = subprocess.run(
        [sys.executable, "-m", "poolshark.cli", "hand", "AhKhQhJhTh", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(ran.stdout)["value"] == 7462


def test_the_command_line_starts_without_torch_or_matplotlib() -> None:
    """``poolshark --help`` stays quick: torch and matplotlib load only in the commands that
    train, load a model or draw a chart (their imports are marked ``# lazy:``)."""
    probe = "import sys, poolshark.cli; print(sorted({'torch', 'matplotlib'} & set(sys.modules)))"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"


def test_features_command() -> None:
    """`poolshark equity features` prints E, E2, PPOT and NPOT; the hand-checked case."""
    code, out = run(
        "equity", "features", "9h8h", "--board", "2h5hKcQd", "--range", "AcKd", "--json"
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["strength"] == 0.0
    assert payload["e"] == pytest.approx(9 / 44)
    assert payload["ppot"] == pytest.approx(9 / 44)
    assert payload["npot"] == 0.0
