"""Every trainer's ``--device cuda`` path: a tiny run on the GPU whose checkpoint loads on
the CPU with ``weights_only=True`` and agrees with the GPU's figures.

These run only where torch sees a CUDA GPU (one line says why they skip elsewhere).
``POOLSHARK_TEST_DEVICE=cpu`` runs them on the CPU instead, to check the tests themselves
on a machine without one. With two GPUs or more, data-parallel training runs on NCCL.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from poolshark.equity_net.data import generate_dataset, save_dataset
from poolshark.equity_net.train import EquityTrainConfig, load_equity_net, train_equity
from poolshark.exploit.ppo import ExploitConfig, train_exploiter
from poolshark.league.config import LeagueConfig
from poolshark.league.train import train_league
from poolshark.oracle import data as od
from poolshark.oracle.train import OracleTrainConfig, train_oracle
from poolshark.pool.pools import load_pool
from poolshark.pool.simulate import simulate
from poolshark.population.train import (
    PopulationTrainConfig,
    load_population_net,
    train_population,
)

DEVICE = os.environ.get("POOLSHARK_TEST_DEVICE", "cuda")
pytestmark = pytest.mark.skipif(
    DEVICE.startswith("cuda") and not torch.cuda.is_available(),
    reason="no CUDA GPU here (POOLSHARK_TEST_DEVICE=cpu runs these tests on the CPU)",
)


def loads_on_the_cpu(path: Path) -> dict[str, torch.Tensor]:
    """A checkpoint's weights, read on the CPU with ``weights_only=True``: all on the CPU."""
    payload = torch.load(path, map_location="cpu", weights_only=True)
    weights: dict[str, torch.Tensor] = payload["model"]
    assert all(tensor.device.type == "cpu" for tensor in weights.values())
    assert all(torch.isfinite(t).all() for t in weights.values() if t.is_floating_point())
    return weights


def test_the_equity_network_trains_on_the_device(tmp_path: Path) -> None:
    data = save_dataset(generate_dataset(200, seed=3, threads=1), tmp_path / "equity.npz")
    config = EquityTrainConfig.model_validate(
        {"data": data, "out": tmp_path / "run", "width": 32, "blocks": 1, "head": 32,
         "epochs": 2, "batch_size": 32, "device": DEVICE, "precision": "bf16"}
    )  # fmt: skip
    result = train_equity(config)
    assert result.best_val is not None
    loads_on_the_cpu(tmp_path / "run" / "best.pt")
    model, _ = load_equity_net(tmp_path / "run" / "best.pt", "cpu")
    assert sum(p.numel() for p in model.parameters()) == result.parameters


def test_the_population_model_trains_on_the_device(tmp_path: Path) -> None:
    config = PopulationTrainConfig(
        pool="micro-zoom", hands=300, out=tmp_path / "run", epochs=2, seed=1, width=32,
        depth=1, opponent_width=8, class_embedding=4, batch_size=128, device=DEVICE,
    )  # fmt: skip
    result = train_population(config)
    assert result.validation is not None
    loads_on_the_cpu(Path(result.best_checkpoint))
    load_population_net(Path(result.best_checkpoint), "cpu")


def test_the_range_oracle_trains_on_the_device(tmp_path: Path) -> None:
    pool = load_pool("micro-zoom")
    train = od.from_simulation(simulate(pool, 120, seed=31), exact=False, seed=31)
    val = od.from_simulation(simulate(pool, 40, seed=32, tables=4), exact=False, seed=32)
    config = OracleTrainConfig.model_validate(
        {"out": tmp_path / "run", "data": tmp_path / "unused.npz", "hidden": 32,
         "preflop_width": 32, "combo_width": 8, "components": 2, "epochs": 1,
         "batch_hands": 16, "device": DEVICE}
    )  # fmt: skip
    result = train_oracle(config, data=(train, val))
    assert result.best_val is not None
    loads_on_the_cpu(tmp_path / "run" / "best.pt")


def test_the_ppo_exploiter_trains_on_the_device(tmp_path: Path) -> None:
    config = ExploitConfig(
        against=["station"], tables=32, hands_per_table=2, hidden=16, minibatch_size=64,
        epochs=2, iterations=2, device=DEVICE,
    )  # fmt: skip
    result = train_exploiter(config, tmp_path / "run")
    assert result.iterations == 2
    loads_on_the_cpu(Path(result.checkpoint))


def test_the_league_trains_on_the_device(tmp_path: Path) -> None:
    config = LeagueConfig.load(
        None,
        **{"seed": 1, "device": DEVICE, "game.seats": 2, "game.games_per_epoch": 32,
           "game.hands_per_game": 2, "learning.epochs": 2, "net.architecture": "mlp",
           "net.hidden": 32, "net.hand_state_dim": 8, "net.game_state_dim": 8},
    )  # fmt: skip
    result = train_league(config, tmp_path / "run")
    assert result.epochs == 2
    snapshots = sorted((tmp_path / "run" / "pool").glob("epoch_*.pt"))
    assert snapshots
    loads_on_the_cpu(snapshots[-1])


@pytest.mark.skipif(
    not DEVICE.startswith("cuda") or torch.cuda.device_count() < 2,
    reason="data-parallel NCCL training needs two CUDA GPUs",
)
def test_two_gpus_train_the_equity_network_as_one(tmp_path: Path) -> None:
    data = save_dataset(generate_dataset(200, seed=3, threads=1), tmp_path / "equity.npz")
    fields = {"data": data, "width": 32, "blocks": 1, "head": 32, "epochs": 2,
              "batch_size": 32, "device": "cuda"}  # fmt: skip
    one = train_equity(EquityTrainConfig.model_validate({"out": tmp_path / "a", **fields}))
    two = train_equity(
        EquityTrainConfig.model_validate({"out": tmp_path / "b", "devices": 2, **fields})
    )
    for a, b in zip(one.history, two.history, strict=True):
        assert b["train_loss"] == pytest.approx(a["train_loss"], rel=1e-3)


@pytest.mark.skipif(
    not DEVICE.startswith("cuda") or torch.cuda.device_count() < 2,
    reason="data-parallel NCCL training needs two CUDA GPUs",
)
def test_two_gpus_train_the_exploiter_as_one(tmp_path: Path) -> None:
    fields = {"against": ["station"], "tables": 32, "hands_per_table": 2, "hidden": 16,
              "minibatch_size": 64, "epochs": 2, "iterations": 2, "device": "cuda"}  # fmt: skip
    one = train_exploiter(ExploitConfig.model_validate(fields), tmp_path / "a")
    two = train_exploiter(
        ExploitConfig.model_validate({**fields, "devices": 2, "ddp_rollout": "replicated"}),
        tmp_path / "b",
    )
    for a, b in zip(one.history, two.history, strict=True):
        assert b["value_loss"] == pytest.approx(a["value_loss"], rel=1e-3)
    loads_on_the_cpu(tmp_path / "b" / "last.pt")
