"""The best response to a frozen exploiter: seated training runs, the probe's figures, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poolshark.agents.protocol import AgentError
from poolshark.cli.exploit import app
from poolshark.experiments.probe import FIGURES_FILE, PROBE_FOLDER, ProbeError, probe_exploiter
from poolshark.exploit.agent import read_exploiter_checkpoint
from poolshark.exploit.ppo import ExploitConfig, build_opponents, train_exploiter

TINY = {
    "against": ["station"],
    "tables": 16,
    "hands_per_table": 2,
    "hidden": 16,
    "minibatch_size": 64,
    "epochs": 1,
    "threads": 1,
}
PROBE = {"iterations": 2, "tables": 16, "seed": 3, "eval_hands": 150}


@pytest.fixture(scope="module")
def exploiter(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A one-iteration exploiter checkpoint to probe."""
    out = tmp_path_factory.mktemp("exploiter")
    return train_exploiter(ExploitConfig(**TINY, iterations=1), out).checkpoint


def test_seated_specs_become_seated_opponents_and_are_checked(exploiter: str) -> None:
    config = ExploitConfig(against=["pool:micro-zoom"], seated=[exploiter], equilibrium_mix=0.2)
    opponents = build_opponents(config)
    assert [o.seated for o in opponents] == [False, False, True]
    assert opponents[-1].name == f"{exploiter} (seated)"
    with pytest.raises(ValueError, match="do not fit 2 seats"):
        ExploitConfig(seats=2, seated=["station", "tag"])


def test_a_seated_run_records_its_seated_agent(tmp_path: Path, exploiter: str) -> None:
    result = train_exploiter(
        ExploitConfig(**{**TINY, "against": ["pool:micro-zoom"]}, seated=[exploiter], iterations=1),
        tmp_path,
    )
    payload = read_exploiter_checkpoint(Path(result.checkpoint))
    assert payload["config"]["seated"] == [exploiter]
    assert payload["opponents"] == ["pool:micro-zoom", f"{exploiter} (seated)"]
    assert result.history[0]["opponent_decisions"] > 0


def test_a_tiny_probe_returns_consistent_figures(tmp_path: Path, exploiter: str) -> None:
    lines: list[str] = []
    figures = probe_exploiter(exploiter, "micro-zoom", tmp_path, **PROBE, log=lines.append)
    assert lines
    assert "training the probe" in lines[0]
    assert figures["probe_checkpoint"] == str(tmp_path / PROBE_FOLDER / "last.pt")
    curve = figures["training"]["learning_curve"]
    assert [entry["iteration"] for entry in curve] == [1.0, 2.0]
    assert len(figures["training"]["history"]) == 2
    # chips only change hands (no rake): one probe seat, one exploiter seat, four pool seats
    for table, first in (
        ("with_probe", "probe"),
        ("control", "pool_player"),
        ("probe_without_exploiter", "probe"),
    ):
        rates = figures[table]
        second = "exploiter" if "exploiter" in rates else "pool_player"
        total = (
            rates[first]["bb_per_100"]
            + rates[second]["bb_per_100"]
            + 4 * rates["pool"]["bb_per_100"]
        )
        assert total == pytest.approx(0.0, abs=1e-6)
        assert rates["pool"]["hands"] == 4 * rates[first]["hands"]
        assert rates[first]["hands"] >= PROBE["eval_hands"]
        assert rates[first]["half_width"] > 0
    taken = figures["taken_from_exploiter"]
    control, beside = figures["control"]["exploiter"], figures["with_probe"]["exploiter"]
    assert taken["bb_per_100"] == pytest.approx(control["bb_per_100"] - beside["bb_per_100"])
    assert taken["half_width"] > max(control["half_width"], beside["half_width"])
    assert json.loads((tmp_path / FIGURES_FILE).read_text()) == json.loads(json.dumps(figures))
    # run again: training is resumed (nothing left to do), the matches replay exactly
    again = probe_exploiter(exploiter, "micro-zoom", tmp_path, **PROBE)
    assert again["with_probe"] == figures["with_probe"]
    assert again["training"]["learning_curve"] == curve


def test_bad_probes_are_clear_errors(tmp_path: Path, exploiter: str) -> None:
    with pytest.raises(AgentError, match="no checkpoint file"):
        probe_exploiter(str(tmp_path / "missing.pt"), "micro-zoom", tmp_path, **PROBE)
    with pytest.raises(ProbeError, match="eval_hands"):
        probe_exploiter(exploiter, "micro-zoom", tmp_path, **{**PROBE, "eval_hands": 0})


def test_the_cli_prints_one_json_object_or_a_table(tmp_path: Path, exploiter: str) -> None:
    runner = CliRunner()
    args = ["probe", exploiter, "--pool", "micro-zoom", "--out", str(tmp_path / "p")]
    sizes = ["--iterations", "1", "--tables", "16", "--eval-hands", "120"]
    result = runner.invoke(app, [*args, *sizes, "--json"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("\n") == 1
    payload = json.loads(result.stdout)
    assert set(payload["taken_from_exploiter"]) == {"bb_per_100", "half_width", "stderr"}
    result = runner.invoke(app, [*args, *sizes])
    assert result.exit_code == 0
    assert "taken from the exploiter" in result.stdout
    result = runner.invoke(app, ["probe", exploiter, "--pool", "nowhere", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "nowhere" in result.stderr


def test_train_takes_seated_agents_and_seats_them_in_its_evaluation(
    tmp_path: Path, exploiter: str
) -> None:
    config = tmp_path / "run.toml"
    config.write_text("hands_per_table = 2\nhidden = 16\nminibatch_size = 64\nepochs = 1\n")
    result = CliRunner().invoke(
        app,
        [
            "train", "--against", "station", "--seated", exploiter, "--config", str(config),
            "--out", str(tmp_path / "run"), "--tables", "16", "--iterations", "1",
            "--threads", "1", "--eval-hands", "120", "--json",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    names = [agent["name"] for agent in payload["evaluation"]["agents"]]
    assert names == ["exploiter", f"{exploiter} (seated)", "station"]
    assert payload["evaluation"]["lineup"] == names[:2] + ["station"] * 4
