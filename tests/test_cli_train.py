"""``poolshark train equity|oracle|population|exploit --config``: each model trains from a
TOML file, ``--json`` prints one object, a killed run resumed with ``--resume`` ends where an
unbroken one does, and a bad config is one line naming the problem with exit code 2."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from typer.testing import CliRunner

from poolshark.cli.train import app
from poolshark.equity_net.data import generate_dataset, save_dataset
from poolshark.equity_net.train import EquityTrainConfig, train_equity
from poolshark.exploit.ppo import TIMING_KEYS, ExploitConfig
from poolshark.oracle.train import OracleTrainConfig, train_oracle
from poolshark.population.train import PopulationTrainConfig, train_population

runner = CliRunner()
SHIPPED = Path(__file__).parents[1] / "configs" / "train"

TINY_ORACLE: dict[str, Any] = {
    "pool": "micro-zoom",
    "hands": 120,
    "val_hands": 40,
    "data_seed": 3,
    "hidden": 16,
    "preflop_width": 16,
    "combo_width": 8,
    "components": 2,
    "epochs": 2,
    "batch_hands": 16,
    "checkpoint_every": 3,
    "threads": 1,
}
TINY_POPULATION: dict[str, Any] = {
    "pool": "micro-zoom",
    "hands": 300,
    "ranges": "none",
    "width": 32,
    "depth": 1,
    "epochs": 2,
    "batch_size": 128,
    "checkpoint_every": 3,
    "threads": 1,
}
TINY_EXPLOIT: dict[str, Any] = {
    "against": ["station"],
    "tables": 24,
    "hands_per_table": 2,
    "hidden": 12,
    "minibatch_size": 48,
    "epochs": 2,
    "threads": 1,
}


class KilledError(Exception):
    """Stands in for a run killed between two checkpoints."""


def write_toml(path: Path, keys: dict[str, Any]) -> Path:
    """A flat TOML file of ``keys`` (strings, numbers, lists; JSON spells them as TOML does)."""
    path.write_text("".join(f"{key} = {json.dumps(value)}\n" for key, value in keys.items()))
    return path


def train(*args: str) -> dict[str, Any]:
    """Run ``poolshark train ... --json``; the one JSON object it printed."""
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout
    payload: dict[str, Any] = json.loads(lines[0])
    return payload


def same_weights(one: Path, two: Path) -> None:
    """The two checkpoints hold equal tensors."""
    first = torch.load(one, weights_only=True)["model"]
    second = torch.load(two, weights_only=True)["model"]
    assert first.keys() == second.keys()
    for name in first:
        assert torch.equal(first[name], second[name]), name


def kill_at(step: int) -> Callable[[int, int], None]:
    """An ``on_step`` callback that kills the run after global step ``step``."""

    def on_step(done: int, _total: int) -> None:
        if done == step:
            raise KilledError

    return on_step


def killed_then_resumed(model: str, config: Path, out: Path, start: Callable[[], Any]) -> Any:
    """Run ``start`` (a trainer that ``kill_at`` stops mid-run, writing into ``out``), then
    finish it with ``poolshark train MODEL --resume``; the JSON object of the resumed run."""
    with pytest.raises(KilledError):
        start()
    return train(model, "--config", str(config), "--out", str(out), "--resume")


@pytest.fixture(scope="module")
def equity_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """400 exact equity samples on disk."""
    folder = tmp_path_factory.mktemp("equity")
    return save_dataset(generate_dataset(400, seed=5, threads=1), folder / "equity.npz")


def test_equity_trains_and_a_killed_run_resumes_to_the_same_weights(
    equity_data: Path, tmp_path: Path
) -> None:
    config = write_toml(
        tmp_path / "equity.toml",
        {"data": str(equity_data), "out": str(tmp_path / "straight"), "width": 32,
         "blocks": 1, "head": 32, "epochs": 2, "batch_size": 32, "learning_rate": 0.01,
         "val_fraction": 0.2, "checkpoint_every": 7, "threads": 1},
    )  # fmt: skip
    straight = train("equity", "--config", str(config))
    assert straight["epochs_run"] == 2
    assert straight["best_val"]["mse"] > 0
    assert (tmp_path / "straight" / "tensorboard").is_dir()

    broken = tmp_path / "broken"
    run = EquityTrainConfig.from_toml(config, out=broken)
    resumed = killed_then_resumed(
        "equity", config, broken, lambda: train_equity(run, on_step=kill_at(10))
    )
    assert resumed["history"] == straight["history"]
    assert resumed["best_val"] == straight["best_val"]
    same_weights(tmp_path / "straight" / "last.pt", broken / "last.pt")

    table = runner.invoke(app, ["equity", "--config", str(config), "--out", str(broken),
                                "--resume"])  # fmt: skip
    assert table.exit_code == 0, table.output
    assert "checkpoints:" in table.stdout
    assert "river" in table.stdout


def test_oracle_trains_and_a_killed_run_resumes_to_the_same_weights(tmp_path: Path) -> None:
    config = write_toml(tmp_path / "oracle.toml", {**TINY_ORACLE, "out": str(tmp_path / "a")})
    straight = train("oracle", "--config", str(config), "--device", "cpu")
    assert straight["train_hands"] <= 120
    assert straight["epochs_run"] == 2
    assert straight["best_val"]["nll"] < straight["best_val"]["uniform_nll"] + 0.5

    broken = tmp_path / "b"
    run = OracleTrainConfig.from_toml(config, out=broken)
    resumed = killed_then_resumed(
        "oracle", config, broken, lambda: train_oracle(run, on_step=kill_at(5))
    )
    assert resumed["history"] == straight["history"]
    assert resumed["steps"] == straight["steps"]
    same_weights(tmp_path / "a" / "last.pt", broken / "last.pt")


def test_population_trains_and_a_killed_run_resumes_to_the_same_weights(tmp_path: Path) -> None:
    config = write_toml(
        tmp_path / "population.toml", {**TINY_POPULATION, "out": str(tmp_path / "a")}
    )
    straight = train("population", "--config", str(config), "--threads", "1")
    assert straight["epochs_run"] == 2
    validation = straight["validation"]
    assert validation["model"]["nll"] < validation["uniform"]["nll"]

    broken = tmp_path / "b"
    run = PopulationTrainConfig.from_toml(config, out=broken)
    second_epoch = straight["train_rows"] // TINY_POPULATION["batch_size"] + 4
    resumed = killed_then_resumed(
        "population", config, broken, lambda: train_population(run, on_step=kill_at(second_epoch))
    )
    assert resumed["history"] == straight["history"]
    assert resumed["validation"] == straight["validation"]
    same_weights(tmp_path / "a" / "last.pt", broken / "last.pt")


def test_exploit_stopped_at_its_iteration_limit_resumes_to_the_same_weights(
    tmp_path: Path,
) -> None:
    whole = write_toml(tmp_path / "whole.toml", {**TINY_EXPLOIT, "iterations": 2})
    part = write_toml(tmp_path / "part.toml", {**TINY_EXPLOIT, "iterations": 1})
    straight = train("exploit", "--config", str(whole), "--out", str(tmp_path / "a"))
    first = train("exploit", "--config", str(part), "--out", str(tmp_path / "b"))
    assert first["iterations"] == 1
    resumed = train("exploit", "--config", str(whole), "--out", str(tmp_path / "b"), "--resume")

    def replayed(history: list[dict[str, float]]) -> list[dict[str, float]]:
        return [{k: v for k, v in entry.items() if k not in TIMING_KEYS} for entry in history]

    assert resumed["iterations"] == straight["iterations"] == 2
    assert replayed(resumed["history"]) == replayed(straight["history"])
    same_weights(tmp_path / "a" / "last.pt", tmp_path / "b" / "last.pt")


@pytest.mark.parametrize(
    ("model", "keys", "options", "message"),
    [
        ("equity", None, [], "cannot read config"),
        ("oracle", "hands = \n", [], "not valid TOML"),
        ("equity", {"data": "d.npz", "out": "o", "surprise": 1}, [], "surprise"),
        ("equity", {"data": "d.npz", "out": "o", "epochs": 0}, [], "epochs"),
        ("oracle", {"out": "o", "pool": "micro-zoom"}, [], "needs hands"),
        ("population", {"out": "o", "pool": "micro-zoom", "hands": 10}, ["--device", "tpu"],
         "device"),
        ("population", {"out": "o", "rows": "r"}, [], "exact:POOL"),
        ("exploit", {"against": ["station"], "out": "o"}, [], "out"),
        ("exploit", {"against": ["station"]}, ["--resume"], "nothing to resume"),
        ("equity", {"data": "nowhere.npz", "out": "o"}, ["--resume"], "nowhere.npz"),
    ],
)  # fmt: skip
def test_a_bad_config_is_one_error_line_naming_the_problem(
    model: str,
    keys: dict[str, Any] | str | None,
    options: list[str],
    message: str,
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.toml"
    if isinstance(keys, str):
        path.write_text(keys)
    elif keys is not None:
        write_toml(path, keys)
    result = runner.invoke(
        app, [model, "--config", str(path), "--out", str(tmp_path / "run"), *options, "--json"]
    )
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith("error:"), result.stderr
    assert result.stderr.count("error:") == 1
    assert "Traceback" not in result.stderr
    assert message in " ".join(result.stderr.split())  # rich wraps at 80 columns


def test_the_config_option_is_required() -> None:
    result = runner.invoke(app, ["oracle"])
    assert result.exit_code == 2
    assert "--config" in result.output


@pytest.mark.parametrize(
    ("name", "config_type"),
    [
        ("equity", EquityTrainConfig),
        ("oracle", OracleTrainConfig),
        ("population", PopulationTrainConfig),
        ("exploit", ExploitConfig),
    ],
)
def test_the_shipped_configs_are_valid_headline_runs(name: str, config_type: Any) -> None:
    config = config_type.from_toml(SHIPPED / f"{name}.toml")
    assert config.device == "cpu"
    if name != "exploit":
        assert str(config.out).startswith(f"runs/{name}")
