"""``poolshark train``: every model's training run from one TOML file, with the same options.

``poolshark train equity|oracle|population|exploit --config run.toml [--resume]`` loads the
model's own run config (the keys of ``EquityTrainConfig``, ``OracleTrainConfig``,
``PopulationTrainConfig`` or ``ExploitConfig``; ``configs/train/`` has documented ones) and
runs it through the same code as ``poolshark equity-net|oracle|population|exploit train``.
``--out``, ``--device`` and ``--threads`` override the file; everything else lives in it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from poolshark.cli import exploit, models, oracle, population
from poolshark.cli.common import (
    DeviceOption,
    JsonFlag,
    ResumeFlag,
    RunConfigT,
    ThreadsOption,
    load_run_config,
    user_errors,
)

app = typer.Typer(
    help="Train any model from a TOML run config (configs/train/): equity, oracle, "
    "population, exploit.",
    no_args_is_help=True,
)

ConfigFile = Annotated[
    Path, typer.Option("--config", help="TOML run config (the model's config keys).")
]
OutOption = Annotated[
    Path | None, typer.Option("--out", help="Run folder; overrides the config's out.")
]

Overrides = dict[str, Any]
"""The command-line keys that replace the file's: ``out``, ``device``, ``threads``."""
Trainer = Callable[[Path, Overrides, bool, bool], None]
"""Runs one model: ``(config file, overrides, resume, json_output)``."""


def _load(config_type: type[RunConfigT], path: Path, overrides: Overrides) -> RunConfigT:
    """The run config of ``path`` with the overrides; a bad file or value exits 2."""
    with user_errors():
        return load_run_config(config_type, path, overrides)


def _equity(path: Path, overrides: Overrides, resume: bool, json_output: bool) -> None:
    from poolshark.equity_net.train import EquityTrainConfig  # lazy: torch; CLI starts fast

    run = _load(EquityTrainConfig, path, overrides)
    models.run_equity_training(run, resume=resume, json_output=json_output)


def _oracle(path: Path, overrides: Overrides, resume: bool, json_output: bool) -> None:
    from poolshark.oracle.train import OracleTrainConfig  # lazy: torch; CLI starts fast

    run = _load(OracleTrainConfig, path, overrides)
    oracle.run_oracle_training(run, resume=resume, json_output=json_output)


def _population(path: Path, overrides: Overrides, resume: bool, json_output: bool) -> None:
    from poolshark.population.train import PopulationTrainConfig  # lazy: torch; CLI starts fast

    run = _load(PopulationTrainConfig, path, overrides)
    population.run_population_training(run, resume=resume, json_output=json_output)


def _exploit(path: Path, overrides: Overrides, resume: bool, json_output: bool) -> None:
    """``exploit train --config``: its config has no ``out`` key (the folder stays a
    command-line choice there, default ``runs/exploit``)."""
    given = {key: value for key, value in overrides.items() if value is not None}
    exploit.train(config=path, resume=resume, json_output=json_output, **given)


def _add(name: str, summary: str, trainer: Trainer) -> None:
    """Register ``poolshark train NAME`` with the options every model shares."""

    def command(
        config: ConfigFile,
        out: OutOption = None,
        resume: ResumeFlag = False,
        device: DeviceOption = None,
        threads: ThreadsOption = None,
        json_output: JsonFlag = False,
    ) -> None:
        overrides = {"out": out, "device": device, "threads": threads}
        trainer(config, overrides, resume, json_output)

    command.__doc__ = summary
    app.command(name)(command)


_add(
    "equity",
    "Train the equity network (configs/train/equity.toml); report its validation MSE.",
    _equity,
)
_add(
    "oracle",
    "Train the range oracle (configs/train/oracle.toml); report it on held-out hands.",
    _oracle,
)
_add(
    "population",
    "Train the population action model (configs/train/population.toml); report it next to "
    "the baselines.",
    _population,
)
_add(
    "exploit",
    "Train the PPO exploiter (configs/train/exploit.toml); the config has no out key: "
    "--out names the run folder (default runs/exploit).",
    _exploit,
)
