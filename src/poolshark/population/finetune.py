"""Per-player fine-tuning (SFT, :func:`finetune_player`): the rows of one player id, split
by hand into train, validation (early stopping) and test; the population model is
fine-tuned on the train part and both models are scored on the test part.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from pydantic import Field, field_validator

from poolshark.population.data import ActionDataset
from poolshark.population.model import (
    FeatureTensors,
    PopulationNet,
    build_population_net,
    masked_nll,
)
from poolshark.population.scoring import Baselines, kl_divergence, predict, score
from poolshark.population.train import (
    DataConfig,
    PopulationTrainingError,
    build_dataset,
    epoch_order,
    export_population_model,
    load_population_net,
    split_hands,
)
from poolshark.training.common import check_device_name, require_device

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]


class SftConfig(DataConfig):
    """Fine-tuning the population model in ``checkpoint`` on one player's rows (``player``:
    an id, or ``auto`` for the player with the most rows). The data keys are those of
    :class:`DataConfig`; ``ranges`` is ignored (the checkpoint's source is used)."""

    checkpoint: Path
    out: Path
    ranges: str = "uniform"
    player: str = "auto"
    val_fraction: float = Field(0.15, gt=0.0, lt=0.5)
    test_fraction: float = Field(0.25, gt=0.0, lt=0.5)
    epochs: int = Field(20, ge=1, le=10_000)
    batch_size: int = Field(256, ge=2, le=1 << 20)
    learning_rate: float = Field(3e-4, gt=0.0, le=1.0)
    weight_decay: float = Field(1e-4, ge=0.0, le=1.0)
    patience: int = Field(3, ge=1)
    seed: int = Field(0, ge=0)
    device: str = "cpu"
    threads: int | None = Field(None, ge=1, le=1024)

    @field_validator("device")
    @classmethod
    def _known_device(cls, value: str) -> str:
        return check_device_name(value)


def finetune_player(config: SftConfig) -> dict[str, Any]:
    """Fit the population model to one player's rows and compare both on held-out hands of
    that player (see the module docstring). Writes ``<out>/player.pt`` (a population-model
    checkpoint) and returns the figures."""
    require_device(config.device, PopulationTrainingError)
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    device = torch.device(config.device)
    population, payload = load_population_net(config.checkpoint, config.device)
    spec = str(payload["range_source"])
    data = DataConfig.model_validate(
        {**{k: getattr(config, k) for k in DataConfig.model_fields}, "ranges": spec}
    )
    dataset, info = build_dataset(data, seed=config.seed, only_player=config.player)
    counts = np.bincount(dataset.player, minlength=len(dataset.player_ids))
    if config.player == "auto":
        player = int(np.argmax(counts))
    elif config.player in dataset.player_ids:
        player = dataset.player_ids.index(config.player)
    else:
        raise PopulationTrainingError(f"no player {config.player!r} in the data")
    mine = dataset.subset(np.flatnonzero(dataset.player == player))
    hands = int(np.unique(mine.hand_key).size)
    if hands < 10:
        raise PopulationTrainingError(
            f"player {dataset.player_ids[player]} has only {hands} hands: too few to fine-tune"
        )
    train_rows, val_rows, test_rows = split_hands(
        mine.hand_key, (config.val_fraction, config.test_fraction), config.seed
    )
    train_data, val_data, test_data = (mine.subset(r) for r in (train_rows, val_rows, test_rows))
    model = build_population_net(dict(payload["hyperparameters"]))
    model.load_state_dict(population.state_dict())
    model.to(device)
    optimizer = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad],
        lr=config.learning_rate,
        weight_decay=config.weight_decay,
    )
    train = FeatureTensors.of(train_data.features, device)
    target = torch.as_tensor(train_data.target, dtype=torch.long, device=device)
    torch.manual_seed(config.seed)
    batch = min(config.batch_size, max(2, train_data.size))
    best = score(predict(model, val_data, config.device), val_data)["nll"]
    best_state = {k: v.clone() for k, v in model.state_dict().items()}
    best_epoch, stale = 0, 0
    history = []
    for epoch in range(config.epochs):
        model.train()
        order = epoch_order(config.seed, epoch, len(train)).to(device)
        for start in range(0, len(train) - batch + 1, batch):
            rows = order[start : start + batch]
            loss = masked_nll(model(train.rows(rows)), target[rows])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()  # type: ignore[no-untyped-call]
            optimizer.step()
        nll = score(predict(model, val_data, config.device), val_data)["nll"]
        history.append({"epoch": epoch + 1, "val_nll": nll})
        if nll < best:
            best, best_epoch, stale = nll, epoch + 1, 0
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
        else:
            stale += 1
            if stale >= config.patience:
                break
    model.load_state_dict(best_state)
    model.eval()
    own = _own_style_scores(test_data)
    result = {
        "player": dataset.player_ids[player],
        "player_rows": mine.size,
        "player_hands": hands,
        "player_rows_imputed": int(mine.imputed.sum()),
        "train_rows": train_data.size,
        "val_rows": val_data.size,
        "test_rows": test_data.size,
        "rows_built": int(dataset.size),
        "best_epoch": best_epoch,
        "history": history,
        "population": _figures(population, test_data, config.device),
        "finetuned": _figures(model, test_data, config.device),
        "baselines": {
            kind: score(Baselines.fit(train_data).predict(test_data, kind), test_data)
            for kind in ("majority", "context")
        },
        "own_style": own,
        "data": info,
    }
    out = Path(config.out)
    export_population_model(
        out / "player.pt",
        model,
        range_source=spec,
        size_fractions=[float(x) for x in payload["size_fractions"]],
        config=dict(payload["config"]),
        extra={
            "data_fingerprint": payload.get("data_fingerprint", ""),
            "sft": {
                "player": dataset.player_ids[player],
                "rows": mine.size,
                "best_epoch": best_epoch,
                "base_checkpoint": str(config.checkpoint),
            },
        },
    )
    result["checkpoint"] = str(out / "player.pt")
    return result


def _figures(model: PopulationNet, dataset: ActionDataset, device: str) -> dict[str, Any]:
    """:func:`score` of a model, plus the KL from the player's own style's policy where it
    is known (synthetic pools)."""
    probabilities = predict(model, dataset, device)
    figures = score(probabilities, dataset)
    style = dataset.style_policy.astype(np.float64)
    if dataset.size and not np.isnan(style).any():
        figures["kl_own_style"] = float(kl_divergence(style, probabilities).mean())
    return figures


def _own_style_scores(dataset: ActionDataset) -> dict[str, Any] | None:
    """NLL and accuracy of the player's own style (the floor of any imitation), if known."""
    style = dataset.style_policy.astype(np.float64)
    if not dataset.size or np.isnan(style).any():
        return None
    return score(style, dataset)
