"""Training data on disk in shards, read back as a shuffled stream, so a run's memory is
bounded by its configuration (shard and shuffle-buffer sizes), not by the number of rows
(issue 23). One implementation for every trainer: the population model
(:mod:`poolshark.population.shards`), the equity network (:mod:`poolshark.equity_net.shards`)
and anything else whose rows are fixed-shape arrays.

**Writing** (:class:`ShardWriter`): rows arrive as parts (dicts of column arrays, any
number of rows) and leave in shards of ``shard_rows`` rows, each one deflate-compressed
``shard-NNNNNN.npz`` (one ``.npy`` member per stored part of a column, so a reader
decompresses only the columns it asks for), written under a temporary name and renamed;
``manifest.json`` is written last (atomically), so a folder with a manifest is complete.
Arrays are stored compactly and losslessly (:func:`pack`): the columns of a float array
whose values are all exactly 0 or 1 (not -0.0; one-hots and flags) as ``uint8``, the rest
as they are, and integer arrays in the narrowest integer type that holds their values.
They read back bit for bit. The manifest's fingerprint hashes every column read back from
the shards (sorted by name), then a caller's salt.

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
from abc import abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np
import numpy.typing as npt
import torch

from poolshark.training.common import write_text_atomic

MANIFEST = "manifest.json"
SHARD_ROWS = 32_768
"""Default rows per shard."""
SHUFFLE_BUFFER = 131_072
"""Default least rows per fill (the shuffle buffer)."""

Int64s = npt.NDArray[np.int64]
Arrays = dict[str, npt.NDArray[Any]]
Batch = TypeVar("Batch")


class ShardError(ValueError):
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


# -- a complete set of shards ------------------------------------------------------------------


def shard_name(index: int) -> str:
    """The file name of shard ``index``."""
    return f"shard-{index:06d}.npz"


@dataclass(frozen=True)
class ShardSet:
    """A complete set of shards: its folder, rows per shard, columns (dtype and trailing
    shape of each array), the rows' fingerprint, and the manifest's other keys
    (``fields``, what the writer's caller stored there)."""

    folder: Path
    shard_rows: tuple[int, ...]
    columns: dict[str, dict[str, Any]]
    fingerprint: str
    fields: dict[str, Any] = field(default_factory=dict)
    error: ClassVar[type[ShardError]] = ShardError

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
        with np.load(self.folder / shard_name(shard), allow_pickle=False) as members:
            for column in columns or tuple(self.columns):
                if column not in self.columns:
                    raise self.error(f"no column {column!r} in the shards at {str(self.folder)!r}")
                files = {
                    name.split(".", 1)[1]: members[name]
                    for name in members.files
                    if name.split(".", 1)[0] == column
                }
                out[column] = unpack(files, self.columns[column], rows)
        return out

    def column(self, name: str) -> npt.NDArray[Any]:
        """One array of every shard, concatenated (for the small per-row columns)."""
        return np.concatenate([self.read(s, (name,))[name] for s in range(self.shards)])

    def by_shard(self, rows: Int64s) -> list[Int64s]:
        """Global row indices (sorted) as each shard's local ones."""
        bounds = np.cumsum((0, *self.shard_rows))
        cuts = np.searchsorted(rows, bounds)
        return [rows[cuts[s] : cuts[s + 1]] - bounds[s] for s in range(self.shards)]

    def select_arrays(self, rows: Int64s, columns: Sequence[str] | None = None) -> Arrays:
        """The arrays ``columns`` (default all) at global indices ``rows`` (sorted)."""
        parts = [
            self.read(shard, columns, local)
            for shard, local in enumerate(self.by_shard(rows))
            if local.size
        ]
        if not parts:
            raise self.error("no rows selected")
        return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def read_manifest(folder: Path, form: str, error: type[ShardError] = ShardError) -> ShardSet:
    """The shards in ``folder`` from their manifest, which must be of format ``form``."""
    path = Path(folder) / MANIFEST
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        raise error(f"no complete shards at {str(folder)!r} (no {MANIFEST})") from None
    except (OSError, ValueError) as problem:
        raise error(f"cannot read {str(path)!r}: {problem}") from None
    if not isinstance(document, dict) or document.get("format") != form:
        raise error(f"{str(path)!r} is not a manifest of {form} shards")
    known = ("format", "shard_rows", "columns", "fingerprint")
    return ShardSet(
        folder=Path(folder),
        shard_rows=tuple(int(n) for n in document["shard_rows"]),
        columns=dict(document["columns"]),
        fingerprint=str(document["fingerprint"]),
        fields={k: v for k, v in document.items() if k not in known},
    )


def shards_fingerprint(shards: ShardSet, salt: bytes = b"") -> str:
    """SHA-256 of every column (sorted by name; each its name, then its bytes shard by
    shard), then ``salt``: read back from the files, one column of one shard at a time."""
    digest = hashlib.sha256()
    for column in sorted(shards.columns):
        digest.update(column.encode())
        for shard in range(shards.shards):
            digest.update(np.ascontiguousarray(shards.read(shard, (column,))[column]).tobytes())
    digest.update(salt)
    return digest.hexdigest()


# -- writing -----------------------------------------------------------------------------------


class ShardWriter:
    """Writes rows that arrive in parts (dicts of column arrays with the same columns,
    dtypes and trailing shapes) as shards of ``shard_rows`` rows of format ``form`` (see
    the module docstring). :meth:`close` writes the manifest. A folder that holds a
    manifest is refused; shards a killed writer left without one are removed."""

    error: ClassVar[type[ShardError]] = ShardError

    def __init__(self, folder: Path, *, form: str, shard_rows: int = SHARD_ROWS) -> None:
        if shard_rows < 1:
            raise self.error(f"shard_rows must be at least 1, got {shard_rows}")
        self.folder = Path(folder)
        if (self.folder / MANIFEST).exists():
            raise self.error(f"{str(self.folder)!r} already holds shards: write to a new folder")
        self.folder.mkdir(parents=True, exist_ok=True)
        for stale in (*self.folder.glob("shard-*"), *self.folder.glob(".shard-*")):
            stale.unlink()  # left by a writer that was killed
        self.form = form
        self.shard_rows = shard_rows
        self.pending: list[Arrays] = []
        self.pending_rows = 0
        self.sizes: list[int] = []
        self.columns: dict[str, dict[str, Any]] = {}

    def append_arrays(self, part: Mapping[str, npt.NDArray[Any]]) -> None:
        """Add rows; full shards are written as soon as there are enough."""
        lengths = {len(values) for values in part.values()}
        if len(lengths) != 1:
            raise self.error(f"the columns of a part differ in rows: {sorted(lengths)}")
        self.pending.append(dict(part))
        self.pending_rows += lengths.pop()
        while self.pending_rows >= self.shard_rows:
            joined = self._joined()
            self._write({k: v[: self.shard_rows] for k, v in joined.items()})
            rest = {k: v[self.shard_rows :] for k, v in joined.items()}
            self.pending, self.pending_rows = [rest], self.pending_rows - self.shard_rows

    def close_set(self, fields: Mapping[str, Any] | None = None, salt: bytes = b"") -> ShardSet:
        """Write the last, shorter shard and the manifest (``fields`` added to it, the
        fingerprint salted with ``salt``); the shards, opened."""
        if self.pending_rows:
            self._write(self._joined())
        self.pending, self.pending_rows = [], 0
        if not self.sizes:
            raise self.error("no rows to write")
        shards = ShardSet(self.folder, tuple(self.sizes), self.columns, "", dict(fields or {}))
        document = {
            "format": self.form,
            **shards.fields,
            "shard_rows": self.sizes,
            "columns": self.columns,
            "fingerprint": shards_fingerprint(shards, salt),
        }
        write_text_atomic(json.dumps(document, indent=1) + "\n", self.folder / MANIFEST)
        return read_manifest(self.folder, self.form, self.error)

    def _joined(self) -> Arrays:
        if len(self.pending) == 1:
            return self.pending[0]
        names = self.pending[0].keys()
        if any(part.keys() != names for part in self.pending):
            raise self.error("every part written to one set of shards must have the same columns")
        return {name: np.concatenate([part[name] for part in self.pending]) for name in names}

    def _write(self, rows: Arrays) -> None:
        name = shard_name(len(self.sizes))
        temporary = self.folder / f".{name}.tmp.npz"
        members: Arrays = {}
        for column, array in rows.items():
            files, info = pack(array)
            if self.columns.setdefault(column, info) != info:
                raise self.error(f"column {column!r} changed type or shape between parts")
            members.update({f"{column}.{part}": values for part, values in files.items()})
        np.savez_compressed(temporary, allow_pickle=False, **members)
        os.replace(temporary, self.folder / name)
        self.sizes.append(len(next(iter(rows.values()))))


# -- streaming ---------------------------------------------------------------------------------


class ShardStream(torch.utils.data.IterableDataset[Batch]):
    """Shuffled batches of ``columns`` of selected rows of shards, one epoch per iteration
    (see the module docstring), each made by :meth:`convert` from its arrays.
    ``rows_by_shard[s]``: the local rows of shard ``s`` to train on (sorted). The last
    partial batch of an epoch is dropped. Set :attr:`epoch` and :attr:`start_batch` before
    iterating."""

    def __init__(
        self,
        shards: ShardSet,
        rows_by_shard: Sequence[Int64s],
        *,
        columns: Sequence[str],
        batch_size: int,
        shuffle_buffer: int = SHUFFLE_BUFFER,
        seed: int = 0,
    ) -> None:
        if len(rows_by_shard) != shards.shards:
            raise shards.error(f"rows given for {len(rows_by_shard)} shards, not {shards.shards}")
        if batch_size < 1 or shuffle_buffer < 1:
            raise shards.error("batch_size and shuffle_buffer must be at least 1")
        self.shard_set = shards
        self.columns = tuple(columns)
        self.rows_by_shard = [np.asarray(r, dtype=np.int64) for r in rows_by_shard]
        self.batch_size, self.shuffle_buffer, self.seed = batch_size, shuffle_buffer, seed
        self.epoch = 0
        self.start_batch = 0

    @abstractmethod
    def convert(self, arrays: Arrays) -> Batch:
        """One batch from the arrays of its rows."""

    @property
    def rows(self) -> int:
        """Selected rows per epoch."""
        return sum(r.size for r in self.rows_by_shard)

    def __len__(self) -> int:
        """Batches per epoch."""
        return self.rows // self.batch_size

    def fills(self, epoch: int) -> list[list[int]]:
        """The shards of each fill of an epoch, in order."""
        order = np.random.default_rng([self.seed, epoch, 41]).permutation(self.shard_set.shards)
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

    def load_fill(self, shards: list[int], epoch: int, index: int) -> Arrays:
        """One fill's rows, permuted (fixed by seed, epoch and fill): each shard's rows are
        read and put straight into their permuted places, so the fill exists once (plus
        one shard being read)."""
        counts = [int(self.rows_by_shard[s].size) for s in shards]
        total = sum(counts)
        order = np.random.default_rng([self.seed, epoch, index, 43]).permutation(total)
        place = np.empty(total, dtype=np.int64)
        place[order] = np.arange(total)  # row i of the shards' concatenation goes to place[i]
        out: Arrays = {}
        start = 0
        for shard, count in zip(shards, counts, strict=True):
            arrays = self.shard_set.read(shard, self.columns, self.rows_by_shard[shard])
            for column, values in arrays.items():
                if column not in out:
                    out[column] = np.empty((total, *values.shape[1:]), dtype=values.dtype)
                out[column][place[start : start + count]] = values
            start += count
        return out

    def read_fill(self, shards: list[int], epoch: int, index: int) -> Any:
        """One fill, permuted, in the form :meth:`take` cuts: :meth:`load_fill`'s arrays
        (a stream of whole groups of rows, such as hands, reads its own)."""
        return self.load_fill(shards, epoch, index)

    def take(self, fill: Any, start: int, stop: int) -> Any:
        """Units ``start:stop`` of a fill, copied, so no view keeps the fill alive."""
        part = np.arange(start, stop)
        return {name: values[part] for name, values in fill.items()}

    def batch(self, pieces: list[Any]) -> Batch:
        """One batch from the pieces :meth:`take` cut for it, in order."""
        joined = pieces[0] if len(pieces) == 1 else {
            name: np.concatenate([p[name] for p in pieces]) for name in pieces[0]
        }  # fmt: skip
        return self.convert(joined)

    def __iter__(self) -> Iterator[Batch]:
        epoch, size = self.epoch, self.batch_size
        cursor, stop = self.start_batch * size, len(self) * size
        position = 0  # stream position of the next fill's first unit
        held: list[Any] = []  # the pieces of a batch begun
        held_units = 0
        for index, shards in enumerate(self.fills(epoch)):
            count = sum(int(self.rows_by_shard[s].size) for s in shards)
            begin, position = position, position + count
            if position <= cursor or cursor >= stop:
                continue  # wholly before the resume point (or past the last full batch)
            fill = self.read_fill(shards, epoch, index)
            offset = cursor - begin
            while offset < count and cursor < stop:
                take = min(size - held_units, count - offset, stop - cursor)
                held.append(self.take(fill, offset, offset + take))
                held_units += take
                offset += take
                cursor += take
                if held_units == size:
                    yield self.batch(held)
                    held, held_units = [], 0
            del fill  # before the next fill is read
