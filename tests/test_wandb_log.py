"""The optional Weights & Biases logger, against a stand-in ``wandb`` module."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from poolshark.training.wandb_log import WandbLog


class FakeRun:
    """Records what a logger asks of a wandb run."""

    def __init__(self, **settings: Any) -> None:
        self.settings = settings
        self.metrics: list[tuple[str, str | None]] = []
        self.rows: list[dict[str, float]] = []
        self.finished = False

    def define_metric(self, name: str, step_metric: str | None = None) -> None:
        self.metrics.append((name, step_metric))

    def log(self, data: dict[str, float]) -> None:
        assert not self.finished
        self.rows.append(dict(data))

    def finish(self) -> None:
        self.finished = True


@pytest.fixture
def fake_wandb(monkeypatch: pytest.MonkeyPatch) -> list[FakeRun]:
    runs: list[FakeRun] = []

    def init(**settings: Any) -> FakeRun:
        runs.append(FakeRun(**settings))
        return runs[-1]

    module = types.ModuleType("wandb")
    module.init = init  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "wandb", module)
    return runs


def test_without_wandb_the_error_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "wandb", None)  # import wandb now raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'poolshark\[wandb\]'"):
        WandbLog("league", "run-1", {}, tmp_path)


def test_scalars_of_a_step_go_out_as_one_row(fake_wandb: list[FakeRun], tmp_path: Path) -> None:
    log = WandbLog("league", "run-1", {"seed": 1, "lr": 3e-4}, tmp_path / "wandb")
    (run,) = fake_wandb
    assert run.settings == {
        "project": "league",
        "name": "run-1",
        "config": {"seed": 1, "lr": 3e-4},
        "dir": str(tmp_path / "wandb"),
    }
    assert (tmp_path / "wandb").is_dir()
    assert run.metrics == [("step", None), ("*", "step")]
    log.scalar("loss", 1.5, 0)
    log.scalar("entropy", 1, 0)
    assert run.rows == []
    log.scalar("loss", 1.25, 1)
    assert run.rows == [{"loss": 1.5, "entropy": 1.0, "step": 0}]
    log.flush()
    log.flush()
    log.scalar("eval/elo", 12.0, 0)  # an earlier step is kept, as its own row
    log.close()
    assert run.rows[1:] == [{"loss": 1.25, "step": 1}, {"eval/elo": 12.0, "step": 0}]
    assert run.finished


def test_step_is_not_a_tag(fake_wandb: list[FakeRun], tmp_path: Path) -> None:
    log = WandbLog("league", "run-1", {}, tmp_path)
    with pytest.raises(ValueError, match="x axis"):
        log.scalar("step", 3.0, 3)
