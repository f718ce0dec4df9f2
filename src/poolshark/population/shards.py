"""Training rows of the population model on disk in shards, and read back as a stream, so
a run's memory is bounded by its configuration (shard and shuffle-buffer sizes), not by the
number of rows (issue 23).

The machinery is :mod:`poolshark.training.shards` (shared with the equity network's
shards): compact lossless columns, atomic shards with a manifest written last, and the
stream of shuffled fills addressed by ``(epoch, batch)``. This module holds what is the
population model's: rows are :class:`ActionDataset` parts that must name the same players
(``player_ids``, kept in the manifest), and the manifest's fingerprint is
:attr:`ActionDataset.fingerprint` of the whole dataset (the columns read back, then the
player ids), so checkpoints of the streamed and the in-memory path carry the same data
identity. The stream's batches are ``(FeatureTensors, target)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import ClassVar

import numpy as np
import numpy.typing as npt
import torch

from poolshark.population.data import ActionDataset
from poolshark.population.features import DecisionFeatures
from poolshark.population.model import FeatureTensors
from poolshark.population.states import ActionDataError
from poolshark.training import shards as generic
from poolshark.training.shards import (
    MANIFEST,
    Arrays,
    ShardSet,
    pack,
    read_manifest,
    unpack,
)

__all__ = [
    "FEATURE_COLUMNS",
    "MANIFEST",
    "SHARD_FORMAT",
    "SHARD_ROWS",
    "SHUFFLE_BUFFER",
    "TRAINING_COLUMNS",
    "ShardError",
    "ShardManifest",
    "ShardStream",
    "ShardWriter",
    "open_shards",
    "pack",
    "unpack",
    "write_shards",
]

SHARD_FORMAT = "poolshark-action-shards-v1"
SHARD_ROWS = generic.SHARD_ROWS
"""Default rows per shard (about 27 MB on disk for ingested rows)."""
SHUFFLE_BUFFER = generic.SHUFFLE_BUFFER
"""Default least rows per fill (the shuffle buffer): about 200 MB of float32 features."""
FEATURE_COLUMNS = tuple(f"features_{f.name}" for f in fields(DecisionFeatures))
TRAINING_COLUMNS = (*FEATURE_COLUMNS, "target")
"""The arrays a training step reads."""

Int64s = npt.NDArray[np.int64]


class ShardError(ActionDataError, generic.ShardError):
    """Shards that cannot be written or read as asked; the message says why."""


# -- writing -----------------------------------------------------------------------------------


class ShardWriter(generic.ShardWriter):
    """Writes rows that arrive in parts as shards of ``shard_rows`` rows (see
    :class:`poolshark.training.shards.ShardWriter`). Every part must name the same players
    (``player_ids``) and number its hands in the one numbering of the whole dataset.
    :meth:`close` writes the manifest."""

    error: ClassVar[type[generic.ShardError]] = ShardError

    def __init__(self, folder: Path, *, shard_rows: int = SHARD_ROWS) -> None:
        super().__init__(folder, form=SHARD_FORMAT, shard_rows=shard_rows)
        self.player_ids: tuple[str, ...] | None = None

    def append(self, part: ActionDataset) -> None:
        """Add rows; full shards are written as soon as there are enough."""
        if self.player_ids is None:
            self.player_ids = part.player_ids
        elif part.player_ids != self.player_ids:
            raise ShardError("every part written to one set of shards must name the same players")
        self.append_arrays(part.arrays())

    def close(self) -> ShardManifest:
        """Write the last, shorter shard and the manifest; the shards, opened."""
        players = list(self.player_ids or ())
        self.close_set({"player_ids": players}, salt="\0".join(players).encode())
        return open_shards(self.folder)


def write_shards(
    dataset: ActionDataset, folder: Path, *, shard_rows: int = SHARD_ROWS
) -> ShardManifest:
    """A whole dataset as shards in ``folder``."""
    writer = ShardWriter(folder, shard_rows=shard_rows)
    writer.append(dataset)
    return writer.close()


# -- reading -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShardManifest(ShardSet):
    """A complete set of shards of action rows: its folder, rows per shard, columns, the
    rows' fingerprint and (in ``fields``) its players."""

    error: ClassVar[type[generic.ShardError]] = ShardError

    @property
    def player_ids(self) -> tuple[str, ...]:
        """The players the rows' player indices name."""
        return tuple(self.fields["player_ids"])

    def dataset(self, shard: int, rows: Int64s | None = None) -> ActionDataset:
        """One shard (only ``rows``, when given) as an :class:`ActionDataset`."""
        return self._dataset(self.read(shard, rows=rows))

    def _dataset(self, arrays: Arrays) -> ActionDataset:
        return ActionDataset(
            features=DecisionFeatures(
                **{f.name: arrays[f"features_{f.name}"] for f in fields(DecisionFeatures)}
            ),
            player_ids=self.player_ids,
            **{k: v for k, v in arrays.items() if not k.startswith("features_")},
        )

    def select(self, rows: Int64s) -> ActionDataset:
        """The rows at global indices ``rows`` (sorted), read shard by shard."""
        return self._dataset(self.select_arrays(rows))


def open_shards(folder: Path) -> ShardManifest:
    """The shards in ``folder``, from their manifest."""
    found = read_manifest(folder, SHARD_FORMAT, ShardError)
    return ShardManifest(
        folder=found.folder,
        shard_rows=found.shard_rows,
        columns=found.columns,
        fingerprint=found.fingerprint,
        fields=found.fields,
    )


# -- streaming ---------------------------------------------------------------------------------


class ShardStream(generic.ShardStream[tuple[FeatureTensors, torch.Tensor]]):
    """Shuffled batches ``(features, target)`` of selected rows of shards, one epoch per
    iteration (:class:`poolshark.training.shards.ShardStream`). ``rows_by_shard[s]``: the
    local rows of shard ``s`` to train on (sorted). The last partial batch of an epoch is
    dropped, as the in-memory path does. Set :attr:`epoch` and :attr:`start_batch` before
    iterating."""

    def __init__(
        self,
        manifest: ShardManifest,
        rows_by_shard: Sequence[Int64s],
        *,
        batch_size: int,
        shuffle_buffer: int = SHUFFLE_BUFFER,
        seed: int = 0,
        device: torch.device | str = "cpu",
    ) -> None:
        super().__init__(
            manifest,
            rows_by_shard,
            columns=TRAINING_COLUMNS,
            batch_size=batch_size,
            shuffle_buffer=shuffle_buffer,
            seed=seed,
        )
        self.manifest = manifest
        self.device = torch.device(device)

    def convert(self, arrays: Arrays) -> tuple[FeatureTensors, torch.Tensor]:
        """Features and targets of a batch as tensors on the stream's device."""
        features = DecisionFeatures(
            **{f.name: arrays[f"features_{f.name}"] for f in fields(DecisionFeatures)}
        )
        return FeatureTensors.of(features, self.device), torch.as_tensor(
            arrays["target"], dtype=torch.long, device=self.device
        )
