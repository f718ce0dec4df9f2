"""Training rows of the population model on disk in shards, and read back as a stream, so
a run's memory is bounded by its configuration (shard and shuffle-buffer sizes), not by the
number of rows (issue 23).

**Writing** (:class:`ShardWriter`, :func:`write_shards`): rows arrive in parts (any sizes)
and leave in shards of ``shard_rows`` rows, each one deflate-compressed ``shard-NNNNNN.npz``
(one ``.npy`` member per column, and a reader decompresses only the columns it asks for),
written under a temporary name and renamed; ``manifest.json`` is written
last (atomically), so a folder with a manifest is complete. Arrays are stored compactly
and losslessly: the columns of a float array whose values are all exactly 0 or 1 (not -0.0; the
one-hots and flags, most of the features) as ``uint8``, the rest as they are, and integer
arrays in the narrowest integer type that holds their values. They read back bit for bit:
the manifest's fingerprint is :attr:`ActionDataset.fingerprint` of the whole dataset, so
checkpoints of the streamed and the in-memory path carry the same data identity.

**Reading** (:class:`ShardStream`, a torch ``IterableDataset``): one epoch visits the
shards in an order fixed by ``(seed, epoch)``, loads them in *fills* of at least
``shuffle_buffer`` rows, permutes each fill (again fixed by seed, epoch and fill) and cuts
the concatenated stream into batches. A batch is addressed by its position in that
stream, so a run resumes mid-epoch from ``(epoch, batch)`` alone: the fills before it are
skipped without reading them.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from poolshark.population.data import ActionDataset, join_same_players
from poolshark.population.features import DecisionFeatures
from poolshark.population.model import FeatureTensors
from poolshark.population.states import ActionDataError
from poolshark.training.common import write_text_atomic

SHARD_FORMAT = "poolshark-action-shards-v1"
MANIFEST = "manifest.json"
SHARD_ROWS = 32_768
"""Default rows per shard (about 27 MB on disk for ingested rows)."""
SHUFFLE_BUFFER = 131_072
"""Default least rows per fill (the shuffle buffer): about 200 MB of float32 features."""
FEATURE_COLUMNS = tuple(f"features_{f.name}" for f in fields(DecisionFeatures))
TRAINING_COLUMNS = (*FEATURE_COLUMNS, "target")
"""The arrays a training step reads."""

Int64s = npt.NDArray[np.int64]
Arrays = dict[str, npt.NDArray[Any]]


class ShardError(ActionDataError):
    """Shards that cannot be written or read as asked; the message says why."""


# -- compact, lossless storage of one array ----------------------------------------------------


_INTEGERS = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)


def pack(array: npt.NDArray[Any]) -> tuple[Arrays, dict[str, Any]]:
    """The files that store ``array`` losslessly and how to read them back.

    Float arrays of two or more dimensions: the trailing columns whose every value is
    exactly 0 or 1 become ``bits`` (``uint8``), the others ``rest`` (their own dtype), with
    a ``binary`` mask saying which is which. Integer arrays: the narrowest integer dtype
    holding their values. Anything else as it is."""
    info: dict[str, Any] = {"dtype": array.dtype.str, "shape": list(array.shape[1:])}
    if array.dtype.kind == "f" and array.ndim >= 2:
        flat = array.reshape(array.shape[0], int(np.prod(array.shape[1:])))
        binary = ((flat == 1) | ((flat == 0) & ~np.signbit(flat))).all(axis=0)
        return {
            "binary": binary,
            "bits": flat[:, binary].astype(np.uint8),
            "rest": np.ascontiguousarray(flat[:, ~binary]),
        }, info
    if array.dtype.kind in "iu" and array.size:
        low, high = int(array.min()), int(array.max())
        narrow = next(t for t in _INTEGERS if np.iinfo(t).min <= low and high <= np.iinfo(t).max)
        return {"values": array.astype(narrow)}, info
    return {"values": array}, info


def unpack(files: Arrays, info: dict[str, Any], rows: Int64s | None = None) -> npt.NDArray[Any]:
    """The array :func:`pack` stored (only ``rows``, when given), bit for bit."""
    dtype = np.dtype(info["dtype"])
    if "bits" in files:
        bits, rest = files["bits"], files["rest"]
        if rows is not None:
            bits, rest = bits[rows], rest[rows]
        binary = files["binary"]
        flat = np.empty((bits.shape[0], binary.size), dtype=dtype)
        flat[:, binary] = bits
        flat[:, ~binary] = rest
        return flat.reshape(bits.shape[0], *info["shape"])
    values = files["values"] if rows is None else files["values"][rows]
    return values.astype(dtype, copy=False).reshape(values.shape[0], *info["shape"])


# -- writing -----------------------------------------------------------------------------------


def _shard_name(index: int) -> str:
    return f"shard-{index:06d}.npz"


class ShardWriter:
    """Writes rows that arrive in parts as shards of ``shard_rows`` rows (see the module
    docstring). Every part must name the same players (``player_ids``) and number its hands
    in the one numbering of the whole dataset. :meth:`close` writes the manifest."""

    def __init__(self, folder: Path, *, shard_rows: int = SHARD_ROWS) -> None:
        if shard_rows < 1:
            raise ShardError(f"shard_rows must be at least 1, got {shard_rows}")
        self.folder = Path(folder)
        if (self.folder / MANIFEST).exists():
            raise ShardError(f"{str(self.folder)!r} already holds shards: write to a new folder")
        self.folder.mkdir(parents=True, exist_ok=True)
        for stale in (*self.folder.glob("shard-*"), *self.folder.glob(".shard-*")):
            stale.unlink()  # left by a writer that was killed
        self.shard_rows = shard_rows
        self.player_ids: tuple[str, ...] | None = None
        self.pending: list[ActionDataset] = []
        self.pending_rows = 0
        self.sizes: list[int] = []
        self.columns: dict[str, dict[str, Any]] = {}

    def append(self, part: ActionDataset) -> None:
        """Add rows; full shards are written as soon as there are enough."""
        if self.player_ids is None:
            self.player_ids = part.player_ids
        elif part.player_ids != self.player_ids:
            raise ShardError("every part written to one set of shards must name the same players")
        self.pending.append(part)
        self.pending_rows += part.size
        while self.pending_rows >= self.shard_rows:
            joined = join_same_players(self.pending)
            self._write(joined.subset(slice(0, self.shard_rows)))
            rest = joined.subset(slice(self.shard_rows, None))
            self.pending, self.pending_rows = [rest], rest.size

    def close(self) -> ShardManifest:
        """Write the last, shorter shard and the manifest; the shards, opened."""
        if self.pending_rows:
            self._write(join_same_players(self.pending))
        self.pending, self.pending_rows = [], 0
        if not self.sizes:
            raise ShardError("no rows to write")
        document = {
            "format": SHARD_FORMAT,
            "player_ids": list(self.player_ids or ()),
            "shard_rows": self.sizes,
            "columns": self.columns,
        }
        document["fingerprint"] = _fingerprint(self.folder, document)
        write_text_atomic(json.dumps(document, indent=1) + "\n", self.folder / MANIFEST)
        return open_shards(self.folder)

    def _write(self, rows: ActionDataset) -> None:
        name = _shard_name(len(self.sizes))
        temporary = self.folder / f".{name}.tmp.npz"
        members: Arrays = {}
        for column, array in rows.arrays().items():
            files, info = pack(array)
            if self.columns.setdefault(column, info) != info:
                raise ShardError(f"column {column!r} changed type or shape between parts")
            members.update({f"{column}.{part}": values for part, values in files.items()})
        np.savez_compressed(temporary, allow_pickle=False, **members)
        os.replace(temporary, self.folder / name)
        self.sizes.append(rows.size)


def write_shards(
    dataset: ActionDataset, folder: Path, *, shard_rows: int = SHARD_ROWS
) -> ShardManifest:
    """A whole dataset as shards in ``folder``."""
    writer = ShardWriter(folder, shard_rows=shard_rows)
    writer.append(dataset)
    return writer.close()


def _fingerprint(folder: Path, document: dict[str, Any]) -> str:
    """:attr:`ActionDataset.fingerprint` of the rows in the shards, one column at a time."""
    manifest = ShardManifest(
        folder,
        tuple(document["player_ids"]),
        tuple(document["shard_rows"]),
        document["columns"],
        "",
    )
    digest = hashlib.sha256()
    for column in sorted(manifest.columns):
        digest.update(column.encode())
        for shard in range(manifest.shards):
            digest.update(np.ascontiguousarray(manifest.read(shard, (column,))[column]).tobytes())
    digest.update("\0".join(manifest.player_ids).encode())
    return digest.hexdigest()


# -- reading -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShardManifest:
    """A complete set of shards: its folder, players, rows per shard, columns (dtype and
    trailing shape of each array) and the rows' fingerprint."""

    folder: Path
    player_ids: tuple[str, ...]
    shard_rows: tuple[int, ...]
    columns: dict[str, dict[str, Any]]
    fingerprint: str

    @property
    def shards(self) -> int:
        """Number of shards."""
        return len(self.shard_rows)

    @property
    def size(self) -> int:
        """Number of rows in all shards."""
        return sum(self.shard_rows)

    def read(
        self, shard: int, columns: Sequence[str] | None = None, rows: Int64s | None = None
    ) -> Arrays:
        """The arrays ``columns`` (default all) of one shard, only ``rows`` when given."""
        out: Arrays = {}
        with np.load(self.folder / _shard_name(shard), allow_pickle=False) as members:
            for column in columns or tuple(self.columns):
                if column not in self.columns:
                    raise ShardError(f"no column {column!r} in the shards at {str(self.folder)!r}")
                files = {
                    name.split(".", 1)[1]: members[name]
                    for name in members.files
                    if name.split(".", 1)[0] == column
                }
                out[column] = unpack(files, self.columns[column], rows)
        return out

    def dataset(self, shard: int, rows: Int64s | None = None) -> ActionDataset:
        """One shard (only ``rows``, when given) as an :class:`ActionDataset`."""
        arrays = self.read(shard, rows=rows)
        return ActionDataset(
            features=DecisionFeatures(
                **{f.name: arrays[f"features_{f.name}"] for f in fields(DecisionFeatures)}
            ),
            player_ids=self.player_ids,
            **{k: v for k, v in arrays.items() if not k.startswith("features_")},
        )

    def column(self, name: str) -> npt.NDArray[Any]:
        """One array of every shard, concatenated (for the small per-row columns)."""
        return np.concatenate([self.read(s, (name,))[name] for s in range(self.shards)])

    def by_shard(self, rows: Int64s) -> list[Int64s]:
        """Global row indices (sorted) as each shard's local ones."""
        bounds = np.cumsum((0, *self.shard_rows))
        cuts = np.searchsorted(rows, bounds)
        return [rows[cuts[s] : cuts[s + 1]] - bounds[s] for s in range(self.shards)]

    def select(self, rows: Int64s) -> ActionDataset:
        """The rows at global indices ``rows`` (sorted), read shard by shard."""
        parts = [
            self.dataset(shard, local)
            for shard, local in enumerate(self.by_shard(rows))
            if local.size
        ]
        if not parts:
            raise ShardError("no rows selected")
        return join_same_players(parts)


def open_shards(folder: Path) -> ShardManifest:
    """The shards in ``folder``, from their manifest."""
    path = Path(folder) / MANIFEST
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        raise ShardError(f"no complete shards at {str(folder)!r} (no {MANIFEST})") from None
    except (OSError, ValueError) as error:
        raise ShardError(f"cannot read {str(path)!r}: {error}") from None
    if not isinstance(document, dict) or document.get("format") != SHARD_FORMAT:
        raise ShardError(f"{str(path)!r} is not a manifest of action shards ({SHARD_FORMAT})")
    return ShardManifest(
        folder=Path(folder),
        player_ids=tuple(document["player_ids"]),
        shard_rows=tuple(int(n) for n in document["shard_rows"]),
        columns=dict(document["columns"]),
        fingerprint=str(document["fingerprint"]),
    )


# -- streaming ---------------------------------------------------------------------------------


class ShardStream(torch.utils.data.IterableDataset[tuple[FeatureTensors, torch.Tensor]]):
    """Shuffled batches ``(features, target)`` of selected rows of shards, one epoch per
    iteration (see the module docstring). ``rows_by_shard[s]``: the local rows of shard
    ``s`` to train on (sorted). The last partial batch of an epoch is dropped, as the
    in-memory path does. Set :attr:`epoch` and :attr:`start_batch` before iterating."""

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
        if len(rows_by_shard) != manifest.shards:
            raise ShardError(f"rows given for {len(rows_by_shard)} shards, not {manifest.shards}")
        if batch_size < 1 or shuffle_buffer < 1:
            raise ShardError("batch_size and shuffle_buffer must be at least 1")
        self.manifest = manifest
        self.rows_by_shard = [np.asarray(r, dtype=np.int64) for r in rows_by_shard]
        self.batch_size, self.shuffle_buffer, self.seed = batch_size, shuffle_buffer, seed
        self.device = torch.device(device)
        self.epoch = 0
        self.start_batch = 0

    @property
    def rows(self) -> int:
        """Selected rows per epoch."""
        return sum(r.size for r in self.rows_by_shard)

    def __len__(self) -> int:
        """Batches per epoch."""
        return self.rows // self.batch_size

    def fills(self, epoch: int) -> list[list[int]]:
        """The shards of each fill of an epoch, in order."""
        order = np.random.default_rng([self.seed, epoch, 41]).permutation(self.manifest.shards)
        groups: list[list[int]] = [[]]
        held = 0
        for shard in order.tolist():
            if not self.rows_by_shard[shard].size:
                continue
            if held >= self.shuffle_buffer:
                groups.append([])
                held = 0
            groups[-1].append(shard)
            held += int(self.rows_by_shard[shard].size)
        return [g for g in groups if g]

    def _load(self, shards: list[int], epoch: int, index: int) -> tuple[DecisionFeatures, Int64s]:
        """One fill's rows, permuted (fixed by seed, epoch and fill), as arrays: each shard's
        rows are read and put straight into their permuted places, so the fill exists once
        (plus one shard being read)."""
        counts = [int(self.rows_by_shard[s].size) for s in shards]
        total = sum(counts)
        order = np.random.default_rng([self.seed, epoch, index, 43]).permutation(total)
        place = np.empty(total, dtype=np.int64)
        place[order] = np.arange(total)  # row i of the shards' concatenation goes to place[i]
        out: Arrays = {}
        start = 0
        for shard, count in zip(shards, counts, strict=True):
            arrays = self.manifest.read(shard, TRAINING_COLUMNS, self.rows_by_shard[shard])
            for column, values in arrays.items():
                if column not in out:
                    out[column] = np.empty((total, *values.shape[1:]), dtype=values.dtype)
                out[column][place[start : start + count]] = values
            start += count
        features = DecisionFeatures(
            **{f.name: out[f"features_{f.name}"] for f in fields(DecisionFeatures)}
        )
        return features, out["target"]

    def _batch(
        self, held: list[tuple[DecisionFeatures, Int64s]]
    ) -> tuple[FeatureTensors, torch.Tensor]:
        features = (
            held[0][0] if len(held) == 1 else DecisionFeatures.concatenate([h[0] for h in held])
        )
        target = held[0][1] if len(held) == 1 else np.concatenate([h[1] for h in held])
        return FeatureTensors.of(features, self.device), torch.as_tensor(
            target, dtype=torch.long, device=self.device
        )

    def __iter__(self) -> Iterator[tuple[FeatureTensors, torch.Tensor]]:
        epoch, size = self.epoch, self.batch_size
        cursor, stop = self.start_batch * size, len(self) * size
        position = 0  # stream position of the next fill's first row
        held: list[tuple[DecisionFeatures, Int64s]] = []  # the rows of a batch begun
        held_rows = 0
        for index, shards in enumerate(self.fills(epoch)):
            count = sum(int(self.rows_by_shard[s].size) for s in shards)
            begin, position = position, position + count
            if position <= cursor or cursor >= stop:
                continue  # wholly before the resume point (or past the last full batch)
            features, target = self._load(shards, epoch, index)
            offset = cursor - begin
            while offset < count and cursor < stop:
                take = min(size - held_rows, count - offset, stop - cursor)
                part = np.arange(offset, offset + take)  # a copy: no view keeps the fill alive
                held.append((features.subset(part), target[part]))
                held_rows += take
                offset += take
                cursor += take
                if held_rows == size:
                    yield self._batch(held)
                    held, held_rows = [], 0
            del features, target  # before the next fill is read
