"""The checkpoint pool: past versions of the learner, kept on disk and drawn as opponents.

Each snapshot is a league checkpoint file ``pool/epoch_NNNNNNN.pt`` (an agent:
``poolshark eval RUN/pool/epoch_0000100.pt station``). The pool keeps at most
``max_models``: the ``keep_latest`` newest always stay; beyond that the oldest snapshot
stays too (where the league started) and the others are thinned evenly, dropping each time
the snapshot whose neighbours are closest in epochs, so the pool spans the whole run.
Opponents are drawn by the configured law (:meth:`CheckpointPool.weights`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from poolshark.league.config import PoolSettings
from poolshark.training.common import save_atomic

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Snapshot:
    """One past learner in the pool: the epoch it was taken at and its file."""

    epoch: int
    path: Path


def snapshot_path(directory: Path, epoch: int) -> Path:
    """Where the snapshot of ``epoch`` lives."""
    return directory / f"epoch_{epoch:07d}.pt"


def thin(epochs: list[int], max_models: int, keep_latest: int) -> list[int]:
    """The epochs to drop so at most ``max_models`` remain (see the module docstring)."""
    kept = sorted(epochs)
    dropped: list[int] = []
    while len(kept) > max_models:
        older = len(kept) - keep_latest  # kept[:older] may be thinned; kept[0] stays if it can
        if older <= 1:
            dropped.append(kept.pop(0))
            continue
        gaps = [kept[i + 1] - kept[i - 1] for i in range(1, older)]
        dropped.append(kept.pop(1 + int(np.argmin(gaps))))
    return dropped


class CheckpointPool:
    """The snapshots of a run, in epoch order, with the pool's settings."""

    def __init__(self, settings: PoolSettings, directory: Path) -> None:
        self.settings = settings
        self.directory = directory
        self.snapshots: list[Snapshot] = []

    def __len__(self) -> int:
        return len(self.snapshots)

    def add(self, epoch: int, payload: dict[str, Any]) -> list[Snapshot]:
        """Save the learner of ``epoch`` and thin the pool; returns the snapshots dropped
        (their files deleted)."""
        path = snapshot_path(self.directory, epoch)
        save_atomic(payload, path)
        self.snapshots = [s for s in self.snapshots if s.epoch != epoch]
        self.snapshots.append(Snapshot(epoch, path))
        self.snapshots.sort(key=lambda s: s.epoch)
        settings = self.settings
        gone = set(
            thin([s.epoch for s in self.snapshots], settings.max_models, settings.keep_latest)
        )
        dropped = [s for s in self.snapshots if s.epoch in gone]
        self.snapshots = [s for s in self.snapshots if s.epoch not in gone]
        for snapshot in dropped:
            snapshot.path.unlink(missing_ok=True)
        return dropped

    def weights(self) -> Floats:
        """The probability of drawing each snapshot (see ``PoolSettings``)."""
        if not self.snapshots:
            raise ValueError("the checkpoint pool is empty")
        epochs = np.array([s.epoch for s in self.snapshots], dtype=np.float64)
        mode = self.settings.sampling
        if mode == "uniform":
            raw = np.ones_like(epochs)
        elif mode == "linear":
            raw = epochs + 1.0
        else:
            raw = np.exp2((epochs - epochs.max()) / self.settings.half_life)
        weights: Floats = raw / raw.sum()
        return weights

    def draw(self, rng: np.random.Generator, count: int) -> list[Snapshot]:
        """``count`` snapshots drawn with replacement by :meth:`weights`."""
        picks = rng.choice(len(self.snapshots), size=count, p=self.weights())
        return [self.snapshots[i] for i in picks.tolist()]

    def state(self) -> list[int]:
        """The epochs in the pool (what a training checkpoint stores)."""
        return [s.epoch for s in self.snapshots]

    def restore(self, epochs: list[int]) -> None:
        """Rebuild the pool from stored epochs; every file must still be there."""
        snapshots = [Snapshot(e, snapshot_path(self.directory, e)) for e in sorted(epochs)]
        missing = [str(s.path) for s in snapshots if not s.path.is_file()]
        if missing:
            raise FileNotFoundError(f"checkpoint pool files are missing: {', '.join(missing)}")
        self.snapshots = snapshots
