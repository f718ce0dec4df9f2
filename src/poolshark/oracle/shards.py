"""Range-oracle examples in shards of whole hands, written as chunks of hands are built and
read back as a stream of shuffled hands, so neither building nor training on a million
hands holds them all (issue 23).

The oracle's rows are ragged (a hand has its actions and its examples; a batch's action
scores and its batch term are per hand), so a shard is not a fixed number of rows but a
chunk of *whole hands*: its :class:`~poolshark.oracle.data.OracleData` with hand-local
``action_start`` and ``example_hand``, every array stored compactly and losslessly with
:func:`poolshark.training.shards.pack` (one ``.npy`` member per stored part, deflated).
The manifest is the generic one (:func:`poolshark.training.shards.read_manifest`: its
``shard_rows`` count *hands*; ``shard_actions`` and ``shard_examples`` are extra fields),
written last, so a folder with a manifest is complete; its fingerprint hashes every
column read back from the shards (:func:`poolshark.training.shards.shards_fingerprint`).

:class:`OracleStream` shuffles hands, never rows: the generic stream's shard order and
fills (of at least ``shuffle_buffer`` hands, fixed by ``(seed, epoch)``), each fill's
hands permuted, cut into batches of ``batch_size`` hands (a batch that spans two fills is
joined with :func:`~poolshark.oracle.data.concat_data`); resumable from ``(epoch, batch)``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from poolshark.histories.ingest import hand_chunk_frames
from poolshark.oracle.data import (
    ROW_COLUMNS,
    Asker,
    OracleData,
    OracleDataError,
    ProgressCallback,
    concat_data,
    from_rows,
    from_simulation,
)
from poolshark.pool.pools import Pool
from poolshark.pool.simulate import simulate
from poolshark.training import shards as generic
from poolshark.training.common import write_text_atomic
from poolshark.training.shards import MANIFEST, Arrays, ShardSet, read_manifest, shard_name

ORACLE_SHARDS_FORMAT = "poolshark-oracle-shards-v1"
SHARD_HANDS = 4096
"""Default hands per shard (about 60,000 examples, a few MB in memory)."""
SHUFFLE_HANDS = 16_384
"""Default least hands per fill (the shuffle buffer)."""
COLUMNS = tuple(name for name in OracleData.__dataclass_fields__ if name != "source")

Int64s = npt.NDArray[np.int64]


class OracleShardError(OracleDataError, generic.ShardError):
    """Oracle shards that cannot be written or read as asked; the message says why."""


class OracleShardWriter:
    """Writes oracle data that arrives in parts (any number of whole hands each) as shards
    of ``shard_hands`` hands; :meth:`close` writes the manifest. A folder that holds a
    manifest is refused; shards a killed writer left without one are removed."""

    def __init__(self, folder: Path, *, shard_hands: int = SHARD_HANDS) -> None:
        if shard_hands < 1:
            raise OracleShardError(f"shard_hands must be at least 1, got {shard_hands}")
        self.folder = Path(folder)
        if (self.folder / MANIFEST).exists():
            raise OracleShardError(
                f"{str(self.folder)!r} already holds shards: write to a new folder"
            )
        self.folder.mkdir(parents=True, exist_ok=True)
        for stale in (*self.folder.glob("shard-*"), *self.folder.glob(".shard-*")):
            stale.unlink()  # left by a writer that was killed
        self.shard_hands = shard_hands
        self.pending: list[OracleData] = []
        self.pending_hands = 0
        self.sizes: list[tuple[int, int, int]] = []  # (hands, actions, examples) per shard
        self.columns: dict[str, dict[str, Any]] = {}
        self.source = ""

    def append(self, part: OracleData) -> None:
        """Add whole hands; full shards are written as soon as there are enough."""
        if part.hands == 0:
            return
        self.source = self.source or part.source
        self.pending.append(part)
        self.pending_hands += part.hands
        while self.pending_hands >= self.shard_hands:
            joined = concat_data(self.pending)
            self._write(joined.select_hands(np.arange(self.shard_hands)))
            rest = joined.select_hands(np.arange(self.shard_hands, joined.hands))
            self.pending, self.pending_hands = [rest], rest.hands

    def close(self, fields: Mapping[str, Any] | None = None) -> ShardSet:
        """Write the last, shorter shard and the manifest (``fields`` added to it); the
        shards, opened."""
        if self.pending_hands:
            self._write(concat_data(self.pending))
        self.pending, self.pending_hands = [], 0
        if not self.sizes:
            raise OracleShardError("no hands to write")
        hands, actions, examples = (list(column) for column in zip(*self.sizes, strict=True))
        extra = {
            "hands": sum(hands),
            "examples": sum(examples),
            "source": self.source,
            **dict(fields or {}),
            "shard_actions": actions,
            "shard_examples": examples,
        }
        shards = ShardSet(self.folder, tuple(hands), self.columns, "", extra)
        document = {
            "format": ORACLE_SHARDS_FORMAT,
            **extra,
            "shard_rows": hands,
            "columns": self.columns,
            "fingerprint": generic.shards_fingerprint(shards),
        }
        write_text_atomic(json.dumps(document, indent=1) + "\n", self.folder / MANIFEST)
        return open_oracle_shards(self.folder)

    def _write(self, data: OracleData) -> None:
        name = shard_name(len(self.sizes))
        temporary = self.folder / f".{name}.tmp.npz"
        members: Arrays = {}
        for column, array in data.arrays().items():
            files, info = generic.pack(array)
            if self.columns.setdefault(column, info) != info:
                raise OracleShardError(f"column {column!r} changed type or shape between parts")
            members.update({f"{column}.{part}": values for part, values in files.items()})
        np.savez_compressed(temporary, allow_pickle=False, **members)
        os.replace(temporary, self.folder / name)
        self.sizes.append((data.hands, int(data.action_start[-1]), len(data)))


def write_data_shards(
    data: OracleData, folder: Path, *, shard_hands: int = SHARD_HANDS
) -> ShardSet:
    """A whole :class:`~poolshark.oracle.data.OracleData` as shards of ``shard_hands`` hands."""
    writer = OracleShardWriter(folder, shard_hands=shard_hands)
    for start in range(0, data.hands, shard_hands):
        writer.append(data.select_hands(np.arange(start, min(start + shard_hands, data.hands))))
    return writer.close()


def rows_shards(rows: Path, folder: Path, *, shard_hands: int = SHARD_HANDS) -> ShardSet:
    """The oracle examples of the decision rows ingested into ``rows`` as shards of
    ``shard_hands`` hands, built one chunk of ``shard_hands`` whole hands at a time
    (:func:`~poolshark.histories.ingest.hand_chunk_frames`), so memory holds one chunk, not
    the rows. A chunk's examples are :func:`~poolshark.oracle.data.from_rows`' of its hands;
    chunks follow the ingest's parts, hands sorted within each, so an ingest of one part
    gives exactly the shards of ``from_rows`` of the whole. Chunks without a no-limit hand
    add nothing."""
    writer = OracleShardWriter(folder, shard_hands=shard_hands)
    hands = 0
    for frame in hand_chunk_frames(rows, shard_hands, ROW_COLUMNS):
        if frame.filter(pl.col("betting").cast(pl.String) == "no-limit").height:
            part = from_rows(frame)
            writer.append(part)
            hands += part.hands
    if not hands:
        raise OracleDataError(f"{str(rows)!r} holds no no-limit decision rows")
    return writer.close({"source": f"decision rows, {hands} hands"})


def chunk_seed(seed: int, chunk: int) -> int:
    """The simulation (and asker) seed of chunk ``chunk`` of a sharded simulation."""
    return int(np.random.SeedSequence([seed, chunk, 23]).generate_state(1)[0])


def simulate_shards(
    pool: Pool,
    hands: int,
    folder: Path,
    *,
    seed: int = 0,
    shard_hands: int = SHARD_HANDS,
    tables: int = 16,
    exact: bool = False,
    asker: Asker = "opponent",
    threads: int | None = 1,
    progress: ProgressCallback | None = None,
) -> ShardSet:
    """``hands`` simulated hands of ``pool`` as oracle shards, one shard of ``shard_hands``
    hands simulated, turned into examples and written at a time (chunk ``c`` simulated and
    asked with :func:`chunk_seed` ``(seed, c)``), so memory holds one chunk, not the run.
    Not the hands of one ``simulate(pool, hands, seed)`` call: a simulation cannot be
    continued, and each chunk's tables start afresh."""
    if hands < 1:
        raise OracleShardError(f"the number of hands must be at least 1, got {hands}")
    writer = OracleShardWriter(folder, shard_hands=shard_hands)
    done = 0
    for chunk, start in enumerate(range(0, hands, shard_hands)):
        count = min(shard_hands, hands - start)
        played = simulate(pool, count, seed=chunk_seed(seed, chunk), tables=tables)
        part = from_simulation(
            played, exact=exact, asker=asker, seed=chunk_seed(seed, chunk), threads=threads
        )
        writer.append(part)
        done += count
        if progress is not None:
            progress(done, hands)
    fields = {"pool": pool.name, "seed": seed, "asker": asker, "exact": exact, "tables": tables}
    return writer.close({**fields, "source": f"simulated pool {pool.name}, {hands} hands"})


def open_oracle_shards(folder: Path) -> ShardSet:
    """The oracle shards in ``folder``; a folder without a manifest (a writer killed before
    it finished) is refused with a clear error: write the shards again."""
    try:
        return read_manifest(folder, ORACLE_SHARDS_FORMAT, OracleShardError)
    except OracleShardError as error:
        if Path(folder).is_dir() and not (Path(folder) / MANIFEST).exists():
            raise OracleShardError(
                f"{error}: the shards were never finished; write them again"
                " (poolshark oracle data --shard-hands ...)"
            ) from None
        raise


def is_shard_folder(path: Path) -> bool:
    """Whether ``path`` is a folder (shards, complete or not) rather than a ``.npz`` file."""
    return Path(path).is_dir()


def data_of(arrays: Arrays, source: str = "") -> OracleData:
    """The :class:`~poolshark.oracle.data.OracleData` of one shard's arrays."""
    return OracleData(source=source, **arrays)


def read_shard(shards: ShardSet, shard: int) -> OracleData:
    """One shard's hands, bit for bit as written."""
    return data_of(shards.read(shard, COLUMNS), str(shards.fields.get("source", "")))


def read_hands(shards: ShardSet, rows_by_shard: Sequence[Int64s]) -> OracleData:
    """The hands ``rows_by_shard[s]`` (local, sorted) of every shard, in shard order."""
    parts = [
        read_shard(shards, shard).select_hands(rows)
        for shard, rows in enumerate(rows_by_shard)
        if rows.size
    ]
    if not parts:
        raise OracleShardError("no hands selected")
    return concat_data(parts)


def read_all(shards: ShardSet) -> OracleData:
    """Every hand of the shards, in order (what was written, bit for bit)."""
    return concat_data([read_shard(shards, s) for s in range(shards.shards)])


def held_out(shards: ShardSet, fraction: float, seed: int) -> tuple[list[Int64s], list[Int64s]]:
    """(train, validation) hands per shard: ``fraction`` of all hands drawn from ``seed``
    exactly as :meth:`~poolshark.oracle.data.OracleData.split` draws them, so the
    validation hands are those of the in-memory split of the same data."""
    total = shards.size
    held = max(1, round(total * fraction))
    if held >= total:
        raise OracleShardError(f"cannot hold out {held} of {total} hands")
    chosen = np.zeros(total, dtype=np.bool_)
    chosen[np.random.default_rng([seed, 11]).choice(total, held, replace=False)] = True
    return shards.by_shard(np.flatnonzero(~chosen)), shards.by_shard(np.flatnonzero(chosen))


class OracleStream(generic.ShardStream[OracleData]):
    """Shuffled batches of whole hands (:class:`~poolshark.oracle.data.OracleData` of
    ``batch_size`` hands each) from oracle shards; ``rows_by_shard[s]``: the local hands
    of shard ``s`` to train on. The last partial batch of an epoch is dropped. Set
    :attr:`epoch` and :attr:`start_batch` before iterating."""

    def __init__(
        self,
        shards: ShardSet,
        rows_by_shard: Sequence[Int64s],
        *,
        batch_size: int,
        shuffle_buffer: int = SHUFFLE_HANDS,
        seed: int = 0,
    ) -> None:
        super().__init__(
            shards,
            rows_by_shard,
            columns=COLUMNS,
            batch_size=batch_size,
            shuffle_buffer=shuffle_buffer,
            seed=seed,
        )
        self.source = str(shards.fields.get("source", ""))

    def convert(self, arrays: Arrays) -> OracleData:
        """One shard's arrays as oracle data."""
        return data_of(arrays, self.source)

    def read_fill(self, shards: list[int], epoch: int, index: int) -> OracleData:
        """One fill's hands, permuted (fixed by seed, epoch and fill)."""
        fill = concat_data(
            [
                self.convert(self.shard_set.read(s, self.columns)).select_hands(
                    self.rows_by_shard[s]
                )
                for s in shards
            ]
        )
        order = np.random.default_rng([self.seed, epoch, index, 43]).permutation(fill.hands)
        return fill.select_hands(order)

    def take(self, fill: OracleData, start: int, stop: int) -> OracleData:
        """Hands ``start:stop`` of a fill."""
        return fill.select_hands(np.arange(start, stop))

    def batch(self, pieces: list[OracleData]) -> OracleData:
        """One batch from its pieces' hands, in order."""
        return concat_data(pieces)
