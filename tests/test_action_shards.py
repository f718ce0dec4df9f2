"""Sharded training rows of the population model (issue 23): written once and read back
bit for bit, streamed in shuffled batches that are deterministic, cover every selected row
once per epoch and resume mid-epoch."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from poolshark.pool.pools import load_pool
from poolshark.pool.ranges import UniformRanges
from poolshark.pool.simulate import simulate
from poolshark.population.data import ActionDataset, simulated_dataset
from poolshark.population.shards import (
    MANIFEST,
    ShardError,
    ShardStream,
    ShardWriter,
    open_shards,
    pack,
    unpack,
    write_shards,
)
from poolshark.population.train import (
    DataConfig,
    PopulationTrainConfig,
    build_dataset,
    build_parts,
    read_checkpoint,
    remove_data_caches,
    train_population,
)


@pytest.fixture(scope="module")
def rows() -> ActionDataset:
    hands = simulate(load_pool("micro-zoom"), 150, seed=4)
    return simulated_dataset(hands, UniformRanges(), hidden="showdown", seed=2)


def _same(a: ActionDataset, b: ActionDataset) -> None:
    assert a.player_ids == b.player_ids
    for (name, x), (other, y) in zip(a.arrays().items(), b.arrays().items(), strict=True):
        assert name == other
        assert x.dtype == y.dtype, name
        assert x.shape == y.shape, name
        np.testing.assert_array_equal(x, y, err_msg=name)


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(
        st.sampled_from([np.float32, np.float64, np.int64, np.int16, np.uint8, np.bool_]),
        hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5),
    )
)
def test_pack_is_lossless(array: np.ndarray) -> None:
    files, info = pack(array)
    back = unpack(files, info)
    assert back.dtype == array.dtype
    assert back.shape == array.shape
    assert back.tobytes() == array.tobytes()  # NaN payloads and -0.0 included
    if array.shape[0] > 1:
        rows = np.array([array.shape[0] - 1, 0])
        np.testing.assert_array_equal(unpack(files, info, rows), array[rows])


def test_shards_read_back_bit_for_bit_with_the_same_fingerprint(
    rows: ActionDataset, tmp_path: Path
) -> None:
    writer = ShardWriter(tmp_path / "s", shard_rows=700)
    for start in range(0, rows.size, 333):  # parts of another size than the shards
        writer.append(rows.subset(slice(start, start + 333)))
    manifest = writer.close()
    assert manifest.shard_rows[:-1] == (700,) * (manifest.shards - 1)
    assert manifest.size == rows.size
    assert manifest.fingerprint == rows.fingerprint
    _same(manifest.select(np.arange(rows.size)), rows)
    picked = np.sort(np.random.default_rng(0).choice(rows.size, 50, replace=False))
    _same(open_shards(tmp_path / "s").select(picked), rows.subset(picked))
    np.testing.assert_array_equal(manifest.column("hand_key"), rows.hand_key)
    disk = sum(p.stat().st_size for p in (tmp_path / "s").glob("shard-*.npz"))
    assert disk < 0.1 * sum(a.nbytes for a in rows.arrays().values())


def test_incomplete_or_reused_folders_are_refused(rows: ActionDataset, tmp_path: Path) -> None:
    writer = ShardWriter(tmp_path / "s", shard_rows=500)
    writer.append(rows)  # shards written, no manifest yet: a killed writer
    with pytest.raises(ShardError, match="no complete shards"):
        open_shards(tmp_path / "s")
    again = ShardWriter(tmp_path / "s", shard_rows=400)  # starts over, stale shards removed
    again.append(rows)
    assert again.close().fingerprint == rows.fingerprint
    with pytest.raises(ShardError, match="already holds shards"):
        ShardWriter(tmp_path / "s")
    (tmp_path / "s" / MANIFEST).write_text('{"format": "other"}')
    with pytest.raises(ShardError, match="not a manifest"):
        open_shards(tmp_path / "s")


def _epoch(stream: ShardStream, epoch: int, start: int = 0) -> list[torch.Tensor]:
    stream.epoch, stream.start_batch = epoch, start
    return [target for _, target in stream]


def test_stream_covers_each_selected_row_once_and_is_seeded(
    rows: ActionDataset, tmp_path: Path
) -> None:
    public = rows.features.public.copy()
    public[:, 0] = np.arange(rows.size)  # each row's features name it
    rows = replace(rows, features=replace(rows.features, public=public))
    manifest = write_shards(rows, tmp_path / "s", shard_rows=300)
    keep = [np.arange(0, n, 2) for n in manifest.shard_rows]  # every other row
    stream = ShardStream(manifest, keep, batch_size=64, shuffle_buffer=700, seed=5)
    assert len(stream.fills(0)) < manifest.shards
    stream.epoch = 0
    seen = []
    for features, target in stream:
        assert features.public.shape == (64, rows.features.public.shape[1])
        index = features.public[:, 0].numpy().astype(np.int64)
        assert torch.equal(features.opponents, torch.from_numpy(rows.features.opponents[index]))
        assert np.array_equal(rows.target[index], target.numpy())  # targets stay with their rows
        seen.append(index)
    assert len(seen) == len(stream) == (rows.size + 1) // 2 // 64
    picked = np.concatenate(seen)
    assert np.unique(picked).size == picked.size
    assert (picked % 2 == 0).all()
    first = _epoch(stream, 0)
    assert all(torch.equal(a, b) for a, b in zip(first, _epoch(stream, 0), strict=True))
    other = _epoch(stream, 1)
    assert not all(torch.equal(a, b) for a, b in zip(first, other, strict=True))


@pytest.mark.parametrize("start", [1, 4, 7, 10])
def test_stream_resumes_mid_epoch(rows: ActionDataset, tmp_path: Path, start: int) -> None:
    manifest = write_shards(rows, tmp_path / "s", shard_rows=250)
    stream = ShardStream(
        manifest, [np.arange(n) for n in manifest.shard_rows], batch_size=100, shuffle_buffer=400
    )
    whole = _epoch(stream, 2)
    assert start < len(whole)
    resumed = _epoch(stream, 2, start)
    assert len(resumed) == len(whole) - start
    assert all(torch.equal(a, b) for a, b in zip(whole[start:], resumed, strict=True))


TINY = {"width": 64, "depth": 1, "opponent_width": 16, "class_embedding": 8, "batch_size": 256}


@pytest.fixture(scope="module")
def both_paths(tmp_path_factory):  # type: ignore[no-untyped-def]
    """The same small run in memory and streamed (several shards and fills)."""
    root = tmp_path_factory.mktemp("paths")
    base = PopulationTrainConfig(
        pool="micro-zoom", hands=1500, ranges="uniform", out=root / "memory", epochs=4,
        threads=1, seed=3, shard_rows=1500, shuffle_buffer=4000, **TINY,
    )  # fmt: skip
    streamed = base.model_copy(update={"out": root / "stream", "stream": True})
    return base, train_population(base), streamed, train_population(streamed)


def test_streamed_training_matches_the_in_memory_path(both_paths) -> None:  # type: ignore[no-untyped-def]
    _, memory, streamed_config, streamed = both_paths
    assert not (Path(streamed_config.out) / "data.npz").exists()
    manifest = open_shards(Path(streamed_config.out) / "shards")
    assert manifest.shards >= 8
    assert streamed.train_rows == memory.train_rows
    assert streamed.val_rows == memory.val_rows
    one = read_checkpoint(Path(memory.best_checkpoint))
    other = read_checkpoint(Path(streamed.best_checkpoint))
    assert one["data_fingerprint"] == other["data_fingerprint"] == manifest.fingerprint
    assert one["size_fractions"] == other["size_fractions"]
    a, b = memory.validation, streamed.validation
    for kind in ("uniform", "majority", "context", "truth"):
        assert a[kind] == b[kind], kind  # same validation rows, same baselines
    assert abs(a["model"]["nll"] - b["model"]["nll"]) < 0.03
    assert abs(a["model"]["accuracy"] - b["model"]["accuracy"]) < 0.02
    assert abs(a["model"]["kl"] - b["model"]["kl"]) < 0.2 * a["model"]["kl"]
    assert b["model"]["nll"] < b["context"]["nll"]  # it learned, as the in-memory run does


def test_streamed_run_resumes_mid_epoch_bit_for_bit(both_paths, tmp_path) -> None:  # type: ignore[no-untyped-def]
    _, _, config, result = both_paths
    per_epoch = result.train_rows // config.batch_size
    stop = per_epoch + 25  # in the second epoch, past its first fill
    runs = {}
    for name in ("whole", "broken"):
        out = tmp_path / name
        shutil.copytree(Path(config.out) / "shards", out / "shards")
        shutil.copy(Path(config.out) / "data.json", out / "data.json")
        runs[name] = config.model_copy(update={"out": out, "epochs": 2, "checkpoint_every": 7})
    train_population(runs["whole"])

    class StopError(Exception):
        pass

    def stop_at(step: int, _total: int) -> None:
        if step == stop:
            raise StopError

    with pytest.raises(StopError):
        train_population(runs["broken"], on_step=stop_at)
    saved = read_checkpoint(Path(runs["broken"].out) / "last.pt")
    assert saved["global_step"] == 7 * ((stop - 1) // 7)
    assert saved["epoch"] == 1
    assert saved["step_in_epoch"] * config.batch_size > config.shuffle_buffer
    train_population(runs["broken"], resume=True)
    whole = read_checkpoint(Path(runs["whole"].out) / "last.pt")
    broken = read_checkpoint(Path(runs["broken"].out) / "last.pt")
    for key, value in whole["model"].items():
        assert torch.equal(value, broken["model"][key]), key
    assert whole["history"] == broken["history"]
    assert remove_data_caches(Path(runs["whole"].out)) > 0
    assert not (Path(runs["whole"].out) / "shards").exists()


def test_chunked_build_writes_the_rows_the_in_memory_build_holds(tmp_path: Path) -> None:
    data = DataConfig(
        pool="micro-zoom", hands=300, ranges="uniform", hidden="showdown",
        holdout_player=load_pool("micro-zoom").player_names[1], max_rows=2500,
    )  # fmt: skip
    whole, info = build_dataset(data, seed=4)
    writer = ShardWriter(tmp_path / "s", shard_rows=600)
    streamed_info: dict[str, object] = {}
    for part in build_parts(data, streamed_info, seed=4):
        writer.append(part)
    manifest = writer.close()
    assert manifest.size == whole.size == 2500
    assert manifest.fingerprint == whole.fingerprint
    seconds = {"simulation_seconds", "build_seconds"}
    assert {k: v for k, v in streamed_info.items() if k not in seconds} == {
        k: v for k, v in info.items() if k not in seconds
    }
    assert info["holdout_player_rows"] > 0
