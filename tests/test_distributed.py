"""Data-parallel training (torch DDP, gloo on CPU, 2 processes) against one process.

The same seed and global batch must give the same loss curve and weights within float
summation order: each process trains on its share of every batch and divides by the
global count (:mod:`poolshark.training.distributed`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
import torch.distributed as dist
from typer.testing import CliRunner

import poolshark.cli.models
from poolshark.cli import app
from poolshark.equity_net.data import EquityDataset, generate_dataset, save_dataset
from poolshark.equity_net.train import EquityTrainConfig, TrainingError, train_equity
from poolshark.oracle import data as od
from poolshark.oracle.train import OracleTrainConfig, train_oracle
from poolshark.pool.pools import load_pool
from poolshark.pool.simulate import simulate
from poolshark.population.train import PopulationTrainConfig, train_population
from poolshark.training.distributed import SINGLE, Distributed, current, process_device

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="torch.distributed is missing")


@pytest.fixture(scope="module")
def data_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """400 exact equity samples on disk."""
    dataset: EquityDataset = generate_dataset(400, seed=5, threads=1)
    return save_dataset(dataset, tmp_path_factory.mktemp("data") / "equity.npz")


def config(data: Path, out: Path, **changes: object) -> EquityTrainConfig:
    """A short run: a narrow improved net, batches of 30 (15 per process when split)."""
    fields: dict[str, object] = {
        "data": data,
        "out": out,
        "width": 32,
        "blocks": 1,
        "head": 32,
        "epochs": 2,
        "batch_size": 30,
        "learning_rate": 1e-2,
        "threads": 1,
        "val_fraction": 0.2,
        "checkpoint_every": 5,
    }
    fields.update(changes)
    return EquityTrainConfig.model_validate(fields)


def test_without_a_process_group_the_world_is_one_process() -> None:
    assert current() == SINGLE
    rows = torch.arange(5)
    assert torch.equal(SINGLE.local_rows(rows), rows)
    count = torch.tensor(7.0)
    assert SINGLE.global_count(count) is count
    assert SINGLE.mean(1.5) == 1.5
    assert Distributed(rank=1, world_size=2).local_rows(rows).tolist() == [1, 3]


def test_two_processes_train_as_one_on_the_same_global_batch(
    data_file: Path, tmp_path: Path
) -> None:
    """Loss curve, validation MSE and final weights of a 2-process run equal one process's."""
    one = train_equity(config(data_file, tmp_path / "one"))
    two = train_equity(config(data_file, tmp_path / "two", devices=2))
    assert len(two.history) == len(one.history) == 2
    for a, b in zip(one.history, two.history, strict=True):
        assert b["train_loss"] == pytest.approx(a["train_loss"], rel=1e-4)
        assert b["val_mse"] == pytest.approx(a["val_mse"], rel=1e-4)
    assert two.train_samples == one.train_samples
    first = torch.load(tmp_path / "one" / "last.pt", weights_only=True)["model"]
    second = torch.load(tmp_path / "two" / "last.pt", weights_only=True)["model"]
    for name, weights in first.items():
        torch.testing.assert_close(second[name], weights, rtol=1e-4, atol=1e-5)
    assert len(list((tmp_path / "two" / "tensorboard").iterdir())) == 1


def test_a_data_parallel_run_refuses_to_start_over_or_resume_nothing(
    data_file: Path, tmp_path: Path
) -> None:
    with pytest.raises(TrainingError, match="nothing to resume"):
        train_equity(config(data_file, tmp_path / "none", devices=2), resume=True)
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "last.pt").write_bytes(b"")
    with pytest.raises(TrainingError, match="exists: pass resume"):
        train_equity(config(data_file, tmp_path / "old", devices=2))


def test_the_cli_passes_devices_to_the_run(
    data_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[EquityTrainConfig] = []
    monkeypatch.setattr(
        poolshark.cli.models, "run_equity_training", lambda run, **_: runs.append(run)
    )
    args = ["equity-net", "train", "--data", str(data_file), "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(app, [*args, "--devices", "2"])
    assert result.exit_code == 0, result.output
    assert runs[0].devices == 2
    refused = CliRunner().invoke(app, [*args, "--devices", "0"])
    assert refused.exit_code == 2
    assert "--devices" in refused.output


@pytest.mark.slow
def test_the_population_model_trains_on_two_processes_as_on_one(tmp_path: Path) -> None:
    """Two epochs of a tiny population model: the same NLL curve and weights either way,
    and the second process waits for the first's row cache instead of racing it."""
    fields: dict[str, object] = {
        "pool": "micro-zoom",
        "hands": 400,
        "epochs": 2,
        "threads": 1,
        "seed": 4,
        "width": 32,
        "depth": 1,
        "opponent_width": 8,
        "class_embedding": 4,
        "batch_size": 128,
        "checkpoint_every": 5,
    }
    one = train_population(PopulationTrainConfig(out=tmp_path / "one", **fields))
    two = train_population(PopulationTrainConfig(out=tmp_path / "two", devices=2, **fields))
    for a, b in zip(one.history, two.history, strict=True):
        assert b["train_nll"] == pytest.approx(a["train_nll"], rel=1e-4)
        assert b["val_nll"] == pytest.approx(a["val_nll"], rel=1e-4)
    first = torch.load(tmp_path / "one" / "last.pt", weights_only=True)["model"]
    second = torch.load(tmp_path / "two" / "last.pt", weights_only=True)["model"]
    for name, weights in first.items():
        torch.testing.assert_close(second[name], weights, rtol=1e-4, atol=1e-5)


@pytest.mark.slow
def test_the_range_oracle_with_its_batch_term_trains_on_two_processes_as_on_one(
    tmp_path: Path,
) -> None:
    """The oracle's batch KL averages over the whole batch: shared across the processes
    with gradients, two processes still give one process's curve and weights."""
    pool = load_pool("micro-zoom")
    train = od.from_simulation(simulate(pool, 240, seed=31), exact=False, seed=31)
    val = od.from_simulation(simulate(pool, 60, seed=32, tables=4), exact=False, seed=32)
    fields: dict[str, object] = {
        "data": tmp_path / "unused.npz",
        "mode": "shown",
        "hidden": 32,
        "preflop_width": 32,
        "combo_width": 8,
        "components": 2,
        "epochs": 2,
        "batch_hands": 16,
        "learning_rate": 8e-3,
        "checkpoint_every": 7,
        "threads": 1,
    }
    configs = [
        OracleTrainConfig.model_validate({"out": tmp_path / name, "devices": devices, **fields})
        for name, devices in (("one", 1), ("two", 2))
    ]
    assert configs[0].effective_batch_weight > 0
    one, two = (train_oracle(config, data=(train, val)) for config in configs)
    for a, b in zip(one.history, two.history, strict=True):
        assert b["val_nll"] == pytest.approx(a["val_nll"], rel=1e-4)
    first = torch.load(tmp_path / "one" / "last.pt", weights_only=True)["model"]
    second = torch.load(tmp_path / "two" / "last.pt", weights_only=True)["model"]
    for name, weights in first.items():
        torch.testing.assert_close(second[name], weights, rtol=1e-4, atol=1e-5)


def test_each_process_of_a_cuda_run_gets_its_own_gpu_and_one_process_keeps_its_device() -> None:
    assert process_device("cuda", Distributed(1, 2)) == "cuda:1"
    assert process_device("cuda:3", Distributed(0, 2)) == "cuda:0"
    assert process_device("cuda:1", SINGLE) == "cuda:1"
    assert process_device("cpu", Distributed(1, 2)) == "cpu"
