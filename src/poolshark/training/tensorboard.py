"""TensorBoard scalar logs for training runs, written with torch's ``SummaryWriter``.

:class:`ScalarLog` is the one small face every trainer uses (scalar, flush, close), so
trainers do not depend on TensorBoard's API; :func:`read_scalars` reads an event file back
with TensorBoard's own reader (tests and reports use it).
"""

from __future__ import annotations

from pathlib import Path

from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from tensorboard.util import tensor_util
from torch.utils.tensorboard import SummaryWriter


class ScalarLog:
    """Appends scalars to a new event file in ``directory`` (one file per instance); with
    ``directory`` None it keeps nothing (a data-parallel run's other processes)."""

    def __init__(self, directory: Path | None) -> None:
        self._writer: SummaryWriter | None = None
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)
            self._writer = SummaryWriter(log_dir=str(directory), flush_secs=30)

    def scalar(self, tag: str, value: float, step: int) -> None:
        """Record ``value`` for ``tag`` at ``step``."""
        if self._writer is not None:
            self._writer.add_scalar(tag, float(value), step)

    def flush(self) -> None:
        """Push what was logged to disk, so a running TensorBoard sees it."""
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Flush and close the file."""
        if self._writer is not None:
            self._writer.close()


def read_scalars(path: Path) -> list[tuple[str, int, float]]:
    """Every (tag, step, value) in an event file, in the order written."""
    scalars: list[tuple[str, int, float]] = []
    for event in EventFileLoader(str(path)).Load():
        for value in event.summary.value:
            if value.HasField("tensor"):
                number = float(tensor_util.make_ndarray(value.tensor))
            elif value.HasField("simple_value"):
                number = float(value.simple_value)
            else:
                continue
            scalars.append((value.tag, int(event.step), number))
    return scalars
