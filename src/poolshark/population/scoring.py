"""Scores of the population action model (:func:`evaluate`): accuracy and NLL overall and
per street; on synthetic pools the KL divergence from the exact pool policy to the model per
decision (over the 14 classes and over fold / call / raise), the truth's own NLL (the floor
any model has); and the same figures for three baselines fitted on the training rows
(:class:`Baselines`): uniform over the legal classes, the majority class (global class
frequencies) and per-context frequencies (street, position, preflop action, facing a bet,
raises this street, in position).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from poolshark.population.actions import (
    ALL_IN_CLASS,
    CALL_CLASS,
    FIRST_RAISE_CLASS,
    FOLD_CLASS,
    N_CLASSES,
)
from poolshark.population.data import ActionDataset
from poolshark.population.features import (
    ENCODED_FACING_BET,
    ENCODED_IN_POSITION,
    ENCODED_POSITION,
    ENCODED_PREFLOP_FACING,
    ENCODED_STREET,
    ENCODED_STREET_RAISES,
)
from poolshark.population.model import FeatureTensors, PopulationNet
from poolshark.population.states import STREET_NAMES

EVAL_BATCH = 8192
"""Rows per forward pass when scoring."""

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]


def context_keys(features_public: npt.NDArray[np.float32]) -> Int64s:
    """Coarse context of each row for the frequency baseline, from the encoded context:
    street, position, preflop action, facing a bet, raises this street (capped at 3), in
    position."""
    f = features_public
    position = np.argmax(f[:, ENCODED_POSITION : ENCODED_POSITION + 6], axis=1)
    street = np.argmax(f[:, ENCODED_STREET : ENCODED_STREET + 4], axis=1)
    facing = np.argmax(f[:, ENCODED_PREFLOP_FACING : ENCODED_PREFLOP_FACING + 5], axis=1)
    facing_bet = f[:, ENCODED_FACING_BET] > 0.5
    raises = np.minimum(np.rint(f[:, ENCODED_STREET_RAISES] * 4), 3).astype(np.int64)
    in_position = f[:, ENCODED_IN_POSITION] > 0.5
    key = ((((street * 6 + position) * 5 + facing) * 2 + facing_bet) * 4 + raises) * 2
    keys: Int64s = (key + in_position).astype(np.int64)
    return keys


@dataclass(frozen=True)
class Baselines:
    """Action frequencies of the training rows: over all rows, and per coarse context."""

    overall: Floats
    by_context: dict[int, Floats]

    @classmethod
    def fit(cls, dataset: ActionDataset, smoothing: float = 0.5) -> Baselines:
        """Counts plus ``smoothing`` per class, normalized."""
        return cls.fit_keys(context_keys(dataset.features.public), dataset.target, smoothing)

    @classmethod
    def fit_keys(cls, keys: Int64s, target: Int64s, smoothing: float = 0.5) -> Baselines:
        """:meth:`fit` from the rows' context keys (:func:`context_keys`) and classes, which
        a streamed run gathers shard by shard without holding the features."""
        overall = np.bincount(target, minlength=N_CLASSES) + smoothing
        by_context: dict[int, Floats] = {}
        for key in np.unique(keys).tolist():
            counts = np.bincount(target[keys == key], minlength=N_CLASSES)
            by_context[int(key)] = (counts + smoothing) / (counts.sum() + smoothing * N_CLASSES)
        return cls(overall / overall.sum(), by_context)

    def predict(self, dataset: ActionDataset, kind: str) -> Floats:
        """(N, 14) a baseline's distribution per row, restricted to the legal classes."""
        legal = dataset.features.legal
        if kind == "uniform":
            weights = np.ones((dataset.size, N_CLASSES))
        elif kind == "majority":
            weights = np.broadcast_to(self.overall, (dataset.size, N_CLASSES)).copy()
        elif kind == "context":
            keys = context_keys(dataset.features.public)
            weights = np.array([self.by_context.get(int(k), self.overall) for k in keys])
            weights = weights.reshape(dataset.size, N_CLASSES)
        else:
            raise ValueError(f"unknown baseline {kind!r}")
        weights = weights * legal
        result: Floats = weights / weights.sum(axis=1, keepdims=True)
        return result


def move_probabilities(probabilities: Floats) -> Floats:
    """(N, 3) fold, check/call, raise (any size) from class probabilities."""
    return np.stack(
        [
            probabilities[:, FOLD_CLASS],
            probabilities[:, CALL_CLASS],
            probabilities[:, FIRST_RAISE_CLASS : ALL_IN_CLASS + 1].sum(axis=1),
        ],
        axis=1,
    )


def kl_divergence(truth: Floats, model: Floats) -> Floats:
    """Per row KL(truth || model) in nats (0 * log 0 = 0)."""
    safe = np.maximum(model, 1e-30)
    terms = np.where(truth > 0, truth * (np.log(np.maximum(truth, 1e-30)) - np.log(safe)), 0.0)
    result: Floats = terms.sum(axis=1)
    return result


def score(probabilities: Floats, dataset: ActionDataset) -> dict[str, Any]:
    """Accuracy, NLL and (with the truth) KL figures of class probabilities on a dataset,
    overall and per street."""
    rows = np.arange(dataset.size)
    chosen = np.maximum(probabilities[rows, dataset.target], 1e-30)
    nll = -np.log(chosen)
    hit = np.argmax(probabilities, axis=1) == dataset.target
    truth = dataset.true_policy.astype(np.float64) if dataset.has_truth else None
    kl = kl_moves = None
    if truth is not None:
        kl = kl_divergence(truth, probabilities)
        kl_moves = kl_divergence(move_probabilities(truth), move_probabilities(probabilities))

    def figures(mask: npt.NDArray[np.bool_]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rows": int(mask.sum()),
            "accuracy": float(hit[mask].mean()) if mask.any() else None,
            "nll": float(nll[mask].mean()) if mask.any() else None,
        }
        if kl is not None and kl_moves is not None:
            out["kl"] = float(kl[mask].mean()) if mask.any() else None
            out["kl_moves"] = float(kl_moves[mask].mean()) if mask.any() else None
        return out

    result = figures(np.ones(dataset.size, dtype=np.bool_))
    result["by_street"] = {
        name: figures(dataset.features.street == street) for street, name in enumerate(STREET_NAMES)
    }
    return result


class SelectionError(ValueError):
    """Validation rows that cannot pick a best epoch; the message says why."""


def selection_nll(probabilities: Floats, dataset: ActionDataset) -> float:
    """The validation NLL that picks a run's best epoch: over the rows whose acting
    player's cards were observed, never imputed.

    An imputed row carries cards drawn from a range source's posterior given the player's
    own actions (in EM, the previous round's model), so a model that agrees with that
    source explains those rows well whatever it does on real cards: scoring them is partly
    circular. Observed rows are a selected set (showdowns, where the cards were shown), the
    same for every epoch compared; ``docs/population.md`` says what that costs."""
    observed = ~dataset.imputed
    if not observed.any():
        raise SelectionError("no validation row with observed hole cards to select on")
    chosen = probabilities[np.flatnonzero(observed), dataset.target[observed]]
    return float(-np.log(np.maximum(chosen, 1e-30)).mean())


@torch.no_grad()
def predict(
    model: PopulationNet, dataset: ActionDataset, device: str = "cpu", batch: int = EVAL_BATCH
) -> Floats:
    """(N, 14) the model's class probabilities (eval mode)."""
    was_training = model.training
    model.eval()
    out = np.zeros((dataset.size, N_CLASSES))
    for start in range(0, dataset.size, batch):
        part = dataset.features.subset(slice(start, start + batch))
        logits = model(FeatureTensors.of(part, device))
        out[start : start + batch] = torch.softmax(logits.double(), dim=1).cpu().numpy()
    model.train(was_training)
    return out


def evaluate(
    model: PopulationNet,
    dataset: ActionDataset,
    baselines: Baselines | None,
    device: str = "cpu",
) -> dict[str, Any]:
    """The model's figures on ``dataset`` and, when given, the baselines' and the truth's."""
    report: dict[str, Any] = {"model": score(predict(model, dataset, device), dataset)}
    if baselines is not None:
        for kind in ("uniform", "majority", "context"):
            report[kind] = score(baselines.predict(dataset, kind), dataset)
    if dataset.has_truth:
        truth = dataset.true_policy.astype(np.float64)
        report["truth"] = score(truth, dataset)
    return report
