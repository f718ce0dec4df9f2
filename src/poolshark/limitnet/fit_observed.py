"""The observer inside the stochastic-EM fit (seed 003, section 6.1): fitting an observer
to records over a model (:func:`observe_records`, what ``poolshark limit observe`` runs),
and :class:`ObservedRecords`, the records a fit reads with the beliefs of its current
observer, refitted every ``ObserveConfig.every`` rounds over the action function as it
then stands so that the following rounds impute and fit with beliefs from the model they
are fitting, not from the one the observer was first fitted over."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from pydantic import BaseModel, ConfigDict, Field

from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.agent import checkpoint_payload, model_from_payload, observer_payload
from poolshark.limitnet.observer import Observer
from poolshark.limitnet.observer_lines import ObserverFit, fit_observer_to_records
from poolshark.limitnet.public_beliefs import with_record_beliefs
from poolshark.limitnet.records import LimitRecords

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

FRESH_INIT_SCALE = 0.1
"""Spread of a fresh observer's parameters: a near-flat start."""


class ObserveConfig(BaseModel):
    """When and how a fit refits its observer (``every`` 0: never, the records keep the
    beliefs they came with)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    every: int = Field(0, ge=0, description="Refit the observer after every this many rounds.")
    lines: int = Field(20_000, ge=1, description="Training lines of each observer fit.")
    steps: int = Field(10, ge=0, description="Gradient steps of each (warm-started) fit.")
    learning_rate: float = Field(1.0, gt=0)


def observe_records(
    model: ActionFunction,
    start: Observer | None,
    records: LimitRecords,
    held_out: LimitRecords,
    *,
    lines: int,
    steps: int,
    learning_rate: float,
    seed: int,
    types: Int64s | None = None,
    held_types: Int64s | None = None,
    type_prior: Floats | None = None,
    progress: Callable[[int, float, float], None] | None = None,
) -> tuple[Observer, ObserverFit]:
    """Fit an observer over ``model`` to ``records`` (``poolshark limit observe``): from
    ``start`` with the records reading its beliefs, or, without one, from a near-flat
    observer with the model's belief weights zeroed (it then plays as before, beliefs fed
    or not). ``types`` (``held_types``) reveal the lines' player types, the observer taking
    ``type_prior`` when it has none (:func:`fit_observer_to_records`)."""
    if start is None:
        model.clear_belief_gates()
        start = Observer(model, seed=seed, init_scale=FRESH_INIT_SCALE)
    else:
        records = with_record_beliefs(records, start)
        held_out = with_record_beliefs(held_out, start)
    if types is not None and type_prior is not None and start.type_prior is None:
        start.set_type_prior(type_prior)
    return fit_observer_to_records(
        start,
        records,
        held_out,
        lines=lines,
        steps=steps,
        learning_rate=learning_rate,
        seed=seed,
        progress=progress,
        types=types,
        held_types=held_types,
    )


def observer_seed(seed: int, round_: int) -> int:
    """The seed of the observer fit after round ``round_`` of a fit seeded ``seed``."""
    return int(np.random.SeedSequence([seed, 12, round_]).generate_state(1)[0])


class ObservedRecords:
    """A fit's training and held-out records with the beliefs of its current observer
    (``observer``: the one they came with, or None for no beliefs), and the weights of
    the model the last refit read, so a resumed fit recomputes the very same beliefs."""

    def __init__(
        self,
        config: ObserveConfig,
        records: LimitRecords,
        holdout: LimitRecords | None,
        observer: Observer | None,
    ) -> None:
        self.config = config
        self.records = records
        self.holdout = holdout
        self.observer = observer
        self.belief_model: dict[str, Any] | None = None

    def due(self, round_: int) -> bool:
        """Whether the observer is refitted after round ``round_`` (counted from 0)."""
        return self.config.every > 0 and (round_ + 1) % self.config.every == 0

    def refit(
        self,
        model: ActionFunction,
        seed: int,
        types: Int64s | None = None,
        type_prior: Floats | None = None,
    ) -> dict[str, float | int]:
        """Refit the observer over ``model`` as it stands, warm-started from the current
        one (which takes the fit's newest ``type_prior``, as ``load_player`` gives it),
        ``types`` the training lines' drawn player types as revealed; the records then
        carry its beliefs. Its course: held-out log-likelihood per decision at the start
        and kept, the training figure kept, the step kept, seconds."""
        if self.holdout is None:
            raise ValueError("refitting the observer needs held-out records")
        start = time.perf_counter()
        if self.observer is not None and type_prior is not None:
            self.observer.set_type_prior(type_prior)
        held_types = None if types is None else np.full(self.holdout.lines, -1, dtype=np.int64)
        observer, course = observe_records(
            model,
            self.observer,
            self.records,
            self.holdout,
            lines=self.config.lines,
            steps=self.config.steps,
            learning_rate=self.config.learning_rate,
            seed=seed,
            types=types,
            held_types=held_types,
            type_prior=type_prior,
        )
        self.observer = observer
        self._read(observer, weights_payload(model))
        return {
            "start_held_out": course.held_out[0],
            "held_out": course.held_out[course.best_step],
            "train": course.train[course.best_step],
            "best_step": course.best_step,
            "seconds": time.perf_counter() - start,
        }

    def _read(self, observer: Observer, belief_model: dict[str, Any]) -> None:
        """The records carry ``observer``'s beliefs, computed over its action function,
        whose weights ``belief_model`` keeps."""
        self.belief_model = belief_model
        self.records = with_record_beliefs(self.records, observer)
        self.holdout = None if self.holdout is None else with_record_beliefs(self.holdout, observer)

    def checkpoint_entries(self, model: ActionFunction) -> dict[str, Any]:
        """What a fit's checkpoint keeps of a refitted observer (nothing before the first
        refit): the observer as ``limit observe`` saves it, and the weights it was fitted
        over (they gave the records' beliefs)."""
        if self.observer is None or self.belief_model is None:
            return {}
        return {**observer_payload(self.observer, model), "belief_model": self.belief_model}

    def restore(self, payload: dict[str, Any], model: ActionFunction) -> None:
        """Take back a refitted observer from a checkpoint (:meth:`checkpoint_entries`):
        the records' beliefs recomputed over the weights of its refit, the observer
        reading ``model``, the fit's."""
        if "belief_model" not in payload:
            return
        state: dict[str, torch.Tensor] = payload["observer"]
        belief_model = payload["belief_model"]
        self._read(Observer.from_state(model_from_payload(belief_model), state), belief_model)
        self.observer = Observer.from_state(model, state)


def weights_payload(model: ActionFunction) -> dict[str, Any]:
    """A checkpoint dict of ``model``'s present weights (copies: the fit goes on moving
    the model's own)."""
    payload = checkpoint_payload(model)
    payload["model"] = {name: tensor.clone() for name, tensor in payload["model"].items()}
    return payload
