"""bfloat16 mixed precision in the population and range-oracle trainers (issue 23): the same
short run in ``bf16`` and ``fp32`` reaches the same validation figures, and ``bf16`` really
changes the arithmetic (the runs are not bit-equal), so the option is not silently ignored.

This host's CPU may have no bfloat16 units (bf16 then runs slower, never wrong); the runs are
kept small for that reason."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from poolshark.oracle import data as od
from poolshark.oracle.train import OracleTrainConfig, train_oracle
from poolshark.pool.pools import load_pool
from poolshark.pool.simulate import simulate
from poolshark.population.train import PopulationTrainConfig, train_population


@pytest.fixture(autouse=True)
def one_thread() -> None:
    torch.set_num_threads(1)


def test_population_training_in_bf16_keeps_nll_and_kl(tmp_path: Path) -> None:
    history = {}
    for precision in ("fp32", "bf16"):
        config = PopulationTrainConfig(
            pool="micro-zoom", hands=800, out=tmp_path / precision, epochs=2, seed=1, width=64,
            depth=1, opponent_width=16, class_embedding=4, batch_size=256, precision=precision,
        )  # fmt: skip
        history[precision] = train_population(config).history[-1]
    fp32, bf16 = history["fp32"], history["bf16"]
    assert bf16["train_nll"] != fp32["train_nll"]
    assert bf16["val_nll"] == pytest.approx(fp32["val_nll"], abs=0.01)
    assert bf16["val_kl"] == pytest.approx(fp32["val_kl"], abs=0.01)
    assert bf16["val_accuracy"] == pytest.approx(fp32["val_accuracy"], abs=0.02)


def test_oracle_training_in_bf16_keeps_nll(tmp_path: Path) -> None:
    pool = load_pool("micro-zoom")
    train = od.from_simulation(simulate(pool, 200, seed=31), exact=False, seed=31)
    val = od.from_simulation(simulate(pool, 60, seed=32, tables=4), exact=False, seed=32)
    reports = {}
    for precision in ("fp32", "bf16"):
        config = OracleTrainConfig.model_validate(
            {"out": tmp_path / precision, "data": tmp_path / "unused.npz", "hidden": 32,
             "preflop_width": 32, "combo_width": 8, "components": 2, "epochs": 2,
             "batch_hands": 16, "seed": 3, "precision": precision}
        )  # fmt: skip
        result = train_oracle(config, data=(train, val))
        assert result.best_val is not None
        reports[precision] = result.best_val
    fp32, bf16 = reports["fp32"], reports["bf16"]
    assert bf16.nll != fp32.nll
    assert bf16.nll == pytest.approx(fp32.nll, abs=0.02)
