"""True-equity samples in shards (:mod:`poolshark.training.shards`), written while they are
generated and read back as a shuffled stream, so neither generating nor training on
millions of deals holds them all (issue 23: 4M deals held 12 GB).

A shard holds three columns per sample: ``hole`` (uint8, 2), ``board`` (uint8, 5, padded
with :data:`~poolshark.equity_net.data.NO_CARD`) and ``score`` (uint16, 1,326): twice the
wins plus the ties of the hole cards against each combo, summed over every runout
(:func:`~poolshark.equity_net.data.true_scores`). The equity target is ``score /
SCORE_DENOMINATORS[board cards]`` in float32, the very number the in-memory path's float32
equities hold, so the shards are exact: no quantisation at all, in 2 bytes a combo (the
``.npz`` file's float16 equities are 2 bytes too, off by up to 2^-12). The possible-combo
mask is recomputed from the cards per batch, as in memory. Deflate makes river and
impossible-combo scores (small integers, many zeros) cheap on disk.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import numpy as np
import numpy.typing as npt
import torch

from poolshark.equity_net.data import (
    DEFAULT_STREET_MIX,
    NO_CARD,
    SCORE_DENOMINATORS,
    EquityDataError,
    EquityDataset,
    Progress,
    random_sample_chunks,
    true_scores,
)
from poolshark.training import shards as generic
from poolshark.training.shards import MANIFEST, Arrays, ShardSet, read_manifest

EQUITY_SHARDS_FORMAT = "poolshark-equity-shards-v1"
SHARD_ROWS = 8192
"""Default samples per shard: 22 MB of scores in memory, a few MB on disk."""
SHUFFLE_BUFFER = 65_536
"""Default least samples per fill: about 180 MB of scores held while training."""
COLUMNS = ("hole", "board", "score")
GENERATE_CHUNK = 512
"""Samples per compiled call while generating (the progress bar moves between calls)."""

Int64s = npt.NDArray[np.int64]
EquityBatch = tuple[torch.Tensor, torch.Tensor, torch.Tensor]
"""``(holes, boards, scores)`` of a batch: int64 (B, 2), int64 (B, 5), int16 (B, 1326)."""


class EquityShardError(EquityDataError, generic.ShardError):
    """Equity shards that cannot be written or read as asked; the message says why."""


class EquityShardWriter(generic.ShardWriter):
    """Equity samples to shards, the errors :class:`EquityShardError`."""

    error: ClassVar[type[generic.ShardError]] = EquityShardError


def is_shard_folder(path: Path) -> bool:
    """Whether ``path`` is a folder (shards, complete or not), rather than a ``.npz`` file."""
    return Path(path).is_dir()


def open_equity_shards(folder: Path) -> ShardSet:
    """The equity shards in ``folder``; a folder without a manifest (a writer killed
    before it finished) is refused with a clear error: write the shards again."""
    try:
        return read_manifest(folder, EQUITY_SHARDS_FORMAT, EquityShardError)
    except EquityShardError as error:
        if not (Path(folder) / MANIFEST).exists():
            raise EquityShardError(
                f"{error}: the shards were never finished; write them again"
                " (poolshark equity-net data --shard-rows ...)"
            ) from None
        raise


def generate_shards(
    n: int,
    seed: int,
    folder: Path,
    *,
    street_mix: Sequence[float] = DEFAULT_STREET_MIX,
    shard_rows: int = SHARD_ROWS,
    threads: int | None = None,
    progress: Progress | None = None,
) -> ShardSet:
    """``n`` random samples with exact scores written to shards in ``folder`` as they are
    computed: the samples of :func:`~poolshark.equity_net.data.generate_dataset` for the
    same ``seed`` and ``street_mix``, in the same order, never all in memory."""
    if n < 1:
        raise EquityShardError(f"the number of samples must be at least 1, got {n}")
    writer = EquityShardWriter(folder, form=EQUITY_SHARDS_FORMAT, shard_rows=shard_rows)
    done = 0
    for holes, boards in random_sample_chunks(n, seed, street_mix, chunk=GENERATE_CHUNK):
        scores, _ = true_scores(holes, boards, threads=threads)
        writer.append_arrays({"hole": holes, "board": boards, "score": scores})
        done += holes.shape[0]
        if progress is not None:
            progress(done, n)
    mix = np.asarray(street_mix, dtype=np.float64)
    fields = {"samples": n, "seed": seed, "street_mix": (mix / mix.sum()).tolist()}
    return writer.close_set(fields)


def scores_of(dataset: EquityDataset) -> npt.NDArray[np.uint16]:
    """The exact scores behind a dataset's float16 equities. Every score ``k`` of ``d``
    (``d`` = 1,980, 88 or 2) is recovered: float16 rounds ``k / d`` by at most 2^-12 =
    0.000244 < 1 / (2 d) = 0.000253, so ``round(equity * d)`` is ``k`` (checked: off by
    less than 0.49)."""
    sizes = dataset.board_sizes
    scaled = dataset.equity.astype(np.float64) * SCORE_DENOMINATORS[sizes][:, None]
    scores = np.rint(scaled)
    if np.abs(scaled - scores).max(initial=0.0) > 0.49:
        raise EquityShardError("these equities are not exact scores over every runout")
    return scores.astype(np.uint16)


def write_dataset_shards(
    dataset: EquityDataset, folder: Path, *, shard_rows: int = SHARD_ROWS
) -> ShardSet:
    """A dataset file's samples (:func:`~poolshark.equity_net.data.load_dataset`) as
    shards, their exact scores recovered (:func:`scores_of`)."""
    writer = EquityShardWriter(folder, form=EQUITY_SHARDS_FORMAT, shard_rows=shard_rows)
    for start in range(0, len(dataset), shard_rows):
        rows = slice(start, start + shard_rows)
        part = EquityDataset(
            holes=dataset.holes[rows],
            boards=dataset.boards[rows],
            equity=dataset.equity[rows],
            mask_bits=dataset.mask_bits[rows],
            seed=dataset.seed,
            street_mix=dataset.street_mix,
            fingerprint="",
        )
        writer.append_arrays({"hole": part.holes, "board": part.boards, "score": scores_of(part)})
    fields = {"samples": len(dataset), "seed": dataset.seed, "street_mix": list(dataset.street_mix)}
    return writer.close_set(fields)


def score_equities(scores: torch.Tensor, boards: torch.Tensor) -> torch.Tensor:
    """Float32 equities of (B, 1326) scores on (B, 5) boards: bit for bit the float32
    equities of :func:`~poolshark.equity_net.data.true_equities`."""
    denominators = torch.from_numpy(SCORE_DENOMINATORS).to(boards.device)
    sizes = (boards != NO_CARD).sum(dim=1)
    return scores.float() / denominators[sizes][:, None]


def batch_tensors(arrays: Arrays, device: torch.device) -> EquityBatch:
    """``(holes, boards, scores)`` tensors on ``device`` from a batch's arrays."""
    return (
        torch.from_numpy(arrays["hole"].astype(np.int64)).to(device),
        torch.from_numpy(arrays["board"].astype(np.int64)).to(device),
        torch.from_numpy(arrays["score"].astype(np.int16)).to(device),
    )


class EquityStream(generic.ShardStream[EquityBatch]):
    """Shuffled batches of samples from shards (:class:`poolshark.training.shards.ShardStream`)
    as ``(holes, boards, scores)`` tensors on ``device``."""

    def __init__(
        self,
        shards: ShardSet,
        rows_by_shard: Sequence[Int64s],
        *,
        batch_size: int,
        shuffle_buffer: int = SHUFFLE_BUFFER,
        seed: int = 0,
        device: torch.device | str = "cpu",
    ) -> None:
        super().__init__(
            shards,
            rows_by_shard,
            columns=COLUMNS,
            batch_size=batch_size,
            shuffle_buffer=shuffle_buffer,
            seed=seed,
        )
        self.device = torch.device(device)

    def convert(self, arrays: Arrays) -> EquityBatch:
        """The batch as tensors."""
        return batch_tensors(arrays, self.device)
