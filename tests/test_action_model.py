"""The population network and its training: learning on a simulated pool, exact resume,
evaluation against baselines and the true policy, fine-tuning on one player."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from poolshark.pool.pools import load_pool
from poolshark.pool.ranges import UniformRanges
from poolshark.pool.simulate import simulate
from poolshark.population.actions import N_CLASSES
from poolshark.population.data import simulated_dataset
from poolshark.population.finetune import SftConfig, finetune_player
from poolshark.population.model import FeatureTensors, PopulationNet, build_population_net
from poolshark.population.scoring import Baselines, score, selection_nll
from poolshark.population.train import (
    PopulationTrainConfig,
    PopulationTrainingError,
    load_population_net,
    read_checkpoint,
    split_hands,
    train_population,
)

TINY = {"width": 64, "depth": 1, "opponent_width": 16, "class_embedding": 8, "batch_size": 256}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):  # type: ignore[no-untyped-def]
    out = tmp_path_factory.mktemp("population") / "run"
    config = PopulationTrainConfig(
        pool="micro-zoom", hands=1500, out=out, epochs=4, threads=1, seed=3, **TINY
    )
    history: list[dict[str, float]] = []
    result = train_population(config, on_epoch=history.append)
    return config, result, history


def test_a_tiny_run_learns_the_pool(trained) -> None:  # type: ignore[no-untyped-def]
    _, result, history = trained
    report = result.validation
    model, uniform, majority = report["model"], report["uniform"], report["majority"]
    assert model["nll"] < majority["nll"] - 0.3
    assert model["nll"] < uniform["nll"] - 1.0
    assert model["accuracy"] > majority["accuracy"] + 0.05
    assert model["accuracy"] > report["context"]["accuracy"]
    assert history[-1]["val_kl"] < 0.75 * history[0]["val_kl"]
    assert model["kl"] < majority["kl"] / 2
    assert report["truth"]["kl"] == 0.0
    assert report["truth"]["nll"] < model["nll"]
    streets = model["by_street"]
    assert sum(streets[s]["rows"] for s in streets) == model["rows"]
    assert result.train_rows > 5 * result.val_rows


def test_tensorboard_scalars(trained) -> None:  # type: ignore[no-untyped-def]
    from poolshark.training.tensorboard import read_scalars

    config, _, _ = trained
    scalars = [
        entry
        for path in sorted((Path(config.out) / "tensorboard").iterdir())
        for entry in read_scalars(path)
    ]
    tags = {tag for tag, _, _ in scalars}
    assert {"train/nll", "epoch/val_nll", "epoch/val_kl", "epoch/val_accuracy"} <= tags
    assert len([1 for tag, _, _ in scalars if tag == "epoch/val_kl"]) == config.epochs


def test_checkpoint_is_self_describing(trained) -> None:  # type: ignore[no-untyped-def]
    config, result, _ = trained
    payload = torch.load(result.best_checkpoint, weights_only=True)
    assert payload["kind"] == "population-model"
    assert payload["range_source"] == "exact:micro-zoom"
    assert len(payload["size_fractions"]) == 11
    assert payload["config"]["hands"] == 1500
    model, _ = load_population_net(Path(result.best_checkpoint))
    assert model.hyperparameters()["width"] == config.width


def test_resume_is_bit_identical(trained, tmp_path) -> None:  # type: ignore[no-untyped-def]
    config, _, _ = trained
    runs = {}
    for name in ("whole", "broken"):
        out = tmp_path / name
        out.mkdir()
        for part in ("data.npz", "data.json"):
            shutil.copy(Path(config.out) / part, out / part)
        runs[name] = config.model_copy(update={"out": out, "epochs": 2, "checkpoint_every": 7})
    train_population(runs["whole"])

    class StopError(Exception):
        pass

    def stop_at(step: int, _total: int) -> None:
        if step == 25:
            raise StopError

    with pytest.raises(StopError):
        train_population(runs["broken"], on_step=stop_at)
    assert read_checkpoint(Path(runs["broken"].out) / "last.pt")["global_step"] == 21
    train_population(runs["broken"], resume=True)
    whole = read_checkpoint(Path(runs["whole"].out) / "last.pt")
    broken = read_checkpoint(Path(runs["broken"].out) / "last.pt")
    for key, value in whole["model"].items():
        assert torch.equal(value, broken["model"][key]), key
    assert whole["history"] == broken["history"]


def test_resume_refuses_a_changed_config(trained, tmp_path) -> None:  # type: ignore[no-untyped-def]
    config, _, _ = trained
    with pytest.raises(PopulationTrainingError, match="exists"):
        train_population(config)
    changed = config.model_copy(update={"learning_rate": 0.5})
    with pytest.raises(PopulationTrainingError, match="learning_rate"):
        train_population(changed, resume=True)
    with pytest.raises(PopulationTrainingError, match="nothing to resume"):
        train_population(config.model_copy(update={"out": tmp_path / "new"}), resume=True)


def test_masked_classes_get_no_probability() -> None:
    hands = simulate(load_pool("soft"), 80, seed=2)
    dataset = simulated_dataset(hands, UniformRanges())
    net = PopulationNet(**{k: v for k, v in TINY.items() if k != "batch_size"})
    logits = net(FeatureTensors.of(dataset.features))
    probabilities = torch.softmax(logits, dim=1).detach().numpy()
    assert probabilities.shape == (dataset.size, N_CLASSES)
    assert np.all(probabilities[~dataset.features.legal] == 0)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-5)
    again = build_population_net(net.hyperparameters())
    again.load_state_dict(net.state_dict())
    torch.testing.assert_close(again(FeatureTensors.of(dataset.features)), logits)
    with pytest.raises(ValueError, match="hyperparameters"):
        build_population_net({"width": 8, "colour": "red"})


def test_baselines_and_scores() -> None:
    hands = simulate(load_pool("micro-zoom"), 300, seed=4)
    dataset = simulated_dataset(hands, None)
    fit_rows, test_rows = split_hands(dataset.hand_key, (0.5,), seed=1)
    assert not set(dataset.hand_key[fit_rows]) & set(dataset.hand_key[test_rows])
    fit, test = dataset.subset(fit_rows), dataset.subset(test_rows)
    baselines = Baselines.fit(fit)
    figures = {
        k: score(baselines.predict(test, k), test) for k in ("uniform", "majority", "context")
    }
    assert figures["context"]["nll"] < figures["majority"]["nll"] < figures["uniform"]["nll"]
    truth = score(test.true_policy.astype(np.float64), test)
    assert truth["kl"] == 0
    assert truth["nll"] < figures["context"]["nll"]


def test_selection_does_not_prefer_a_model_that_echoes_its_imputation() -> None:
    """Rows whose cards were imputed carry cards drawn to explain the actions taken, so a
    model that agrees with its own imputation scores well on them whatever it does on real
    cards. The selection must prefer the true policy, which it does only by leaving the
    imputed rows out."""
    hands = simulate(load_pool("micro-zoom"), 300, seed=4)
    full = simulated_dataset(hands, None)
    seen = simulated_dataset(hands, None, hidden="showdown", imputer=UniformRanges(), seed=1)
    np.testing.assert_array_equal(seen.target, full.target)
    assert 0.5 < seen.imputed.mean() < 0.95
    truth = full.true_policy.astype(np.float64)  # the pool itself, on the real cards
    legal = seen.features.legal
    uniform = legal / legal.sum(axis=1, keepdims=True)
    taken = np.zeros_like(truth)
    taken[np.arange(seen.size), seen.target] = 1.0
    echo = 0.5 * truth + 0.5 * uniform  # worse than the truth on real cards ...
    confident = 0.95 * taken + 0.05 * uniform  # ... but sure of every action it imputed for
    echo[seen.imputed] = confident[seen.imputed]
    assert score(echo, seen)["nll"] < score(truth, seen)["nll"]  # all rows: circular
    honest, echoed = selection_nll(truth, seen), selection_nll(echo, seen)
    assert honest < echoed


def test_sft_on_one_player(trained, tmp_path) -> None:  # type: ignore[no-untyped-def]
    _, result, _ = trained
    config = SftConfig(
        checkpoint=result.best_checkpoint,
        out=tmp_path,
        pool="micro-zoom",
        hands=3000,
        simulation_seed=9,
        epochs=3,
        threads=1,
    )
    report = finetune_player(config)
    assert report["player_rows"] == report["train_rows"] + report["val_rows"] + report["test_rows"]
    assert report["player_rows"] > 50
    for name in ("population", "finetuned"):
        assert 0 <= report[name]["accuracy"] <= 1
        assert report[name]["nll"] > 0
        assert "kl_own_style" in report[name]
    assert report["own_style"]["nll"] <= report["population"]["nll"]
    assert read_checkpoint(Path(report["checkpoint"]))["sft"]["player"] == report["player"]


def test_equity_embedding_is_frozen_and_postflop_only(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from poolshark.equity_net.model import SeedEquityNet
    from poolshark.equity_net.train import CHECKPOINT_FORMAT
    from poolshark.training.common import save_atomic

    torch.manual_seed(1)
    equity = SeedEquityNet()
    path = tmp_path / "equity.pt"
    save_atomic(
        {"format": CHECKPOINT_FORMAT, "arch": "seed", "hyperparameters": {"dropout": 0.1},
         "model": equity.state_dict()},
        path,
    )  # fmt: skip
    hands = simulate(load_pool("micro-zoom"), 300, seed=6)
    config = PopulationTrainConfig(
        pool="micro-zoom", hands=300, out=tmp_path / "run", epochs=1, ranges="none",
        equity_net=path, threads=1, **TINY,
    )  # fmt: skip
    result = train_population(config)
    model, _ = load_population_net(Path(result.best_checkpoint))
    assert model.equity is not None
    assert not model.equity.training
    for name, value in equity.state_dict().items():
        assert torch.equal(model.equity.state_dict()[name], value), name  # never trained
    dataset = simulated_dataset(hands, None)
    cards = FeatureTensors.of(dataset.features).cards
    embedding = model.board_embedding(cards)
    postflop = torch.as_tensor(dataset.features.street > 0)
    assert torch.all(embedding[~postflop] == 0)
    assert embedding[postflop].abs().sum() > 0
