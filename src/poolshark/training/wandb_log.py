"""Optional Weights & Biases logging with the same small face as
:class:`~poolshark.training.tensorboard.ScalarLog` (scalar, flush, close).

wandb is an optional extra (``pip install 'poolshark[wandb]'``), imported only when a
:class:`WandbLog` is made. Scalars of one step are gathered and sent as one row when the
step changes (or on flush and close), and every row carries its step as the ``step``
metric that all charts use for their x axis, so a trainer may log steps in any order
(wandb's own step counter only goes forward and drops rows logged for an earlier step).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

INSTALL_HINT = "pip install 'poolshark[wandb]'"
STEP_METRIC = "step"
"""The metric every chart is drawn against: the trainer's own step (epoch)."""


class WandbLog:
    """Scalars to a new Weights & Biases run ``run_name`` in ``project``, with ``config``
    as the run's config and wandb's local files under ``directory``."""

    def __init__(
        self, project: str, run_name: str, config: Mapping[str, Any], directory: Path
    ) -> None:
        try:
            import wandb  # lazy: optional extra, loaded only when asked for
        except ImportError as error:
            raise ImportError(
                f"Weights & Biases logging needs the wandb package: {INSTALL_HINT}"
            ) from error
        directory.mkdir(parents=True, exist_ok=True)
        self._run = wandb.init(
            project=project, name=run_name, config=dict(config), dir=str(directory)
        )
        self._run.define_metric(STEP_METRIC)
        self._run.define_metric("*", step_metric=STEP_METRIC)
        self._step: int | None = None
        self._pending: dict[str, float] = {}

    def scalar(self, tag: str, value: float, step: int) -> None:
        """Record ``value`` for ``tag`` at ``step`` (sent when the step changes)."""
        if tag == STEP_METRIC:
            raise ValueError(f"{STEP_METRIC!r} is the x axis of every chart, not a tag to log")
        if step != self._step:
            self.flush()
            self._step = step
        self._pending[tag] = float(value)

    def flush(self) -> None:
        """Send the scalars gathered for the current step as one row."""
        if self._pending and self._step is not None:
            self._run.log({**self._pending, STEP_METRIC: self._step})
        self._pending = {}

    def close(self) -> None:
        """Send what is left and finish the run."""
        self.flush()
        self._run.finish()
