"""True-equity samples in shards (issue 23): generated chunk by chunk into shards that hold
the exact scores (read back bit for bit, float32 targets equal to the in-memory ones), a
folder without a manifest refused, and training streamed from them: the same validation
figures as in memory within a stated tolerance, and a killed run resumed mid-epoch ends
bit for bit where an unbroken one does."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from poolshark.cli import app
from poolshark.equity_net.data import (
    EquityDataset,
    generate_dataset,
    random_sample_chunks,
    random_samples,
    save_dataset,
    true_equities,
)
from poolshark.equity_net.model import build_model
from poolshark.equity_net.shards import (
    EQUITY_SHARDS_FORMAT,
    EquityShardError,
    EquityShardWriter,
    EquityStream,
    generate_shards,
    open_equity_shards,
    score_equities,
    write_dataset_shards,
)
from poolshark.equity_net.train import (
    EquityTrainConfig,
    TrainingError,
    evaluate,
    evaluate_checkpoint,
    shard_samples,
    train_equity,
)
from poolshark.training.shards import ShardSet

runner = CliRunner()


@pytest.fixture(scope="module")
def dataset() -> EquityDataset:
    """400 exact samples (all streets), generated once for the module."""
    return generate_dataset(400, seed=11, threads=1)


@pytest.fixture(scope="module")
def files(dataset: EquityDataset, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The module's samples as a dataset file and as shards of 70."""
    root = tmp_path_factory.mktemp("equity")
    write_dataset_shards(dataset, root / "shards", shard_rows=70)
    return save_dataset(dataset, root / "data.npz"), root / "shards"


def test_chunks_deal_the_samples_of_the_one_shot_call() -> None:
    for n, chunk, mix in ((1000, 128, (1, 1, 1)), (777, 100, (1, 2, 1)), (5, 4096, (0, 0, 1))):
        holes, boards = random_samples(n, 3, mix)
        parts = list(random_sample_chunks(n, 3, mix, chunk=chunk))
        assert len(parts) == -(-n // chunk)
        assert np.array_equal(np.concatenate([p[0] for p in parts]), holes)
        assert np.array_equal(np.concatenate([p[1] for p in parts]), boards)


def test_generated_shards_hold_exact_scores_and_equal_a_converted_file(tmp_path: Path) -> None:
    shards = generate_shards(150, 7, tmp_path / "s", shard_rows=40, threads=1)
    assert shards.shard_rows == (40, 40, 40, 30)
    arrays = shards.select_arrays(np.arange(shards.size))
    holes, boards = random_samples(150, 7)
    assert np.array_equal(arrays["hole"], holes)
    assert np.array_equal(arrays["board"], boards)
    equity, _ = true_equities(holes, boards)
    exact = score_equities(torch.from_numpy(arrays["score"].astype(np.int16)), torch.tensor(boards))
    assert torch.equal(exact, torch.from_numpy(equity))  # the float32 targets, bit for bit
    # the float16 file keeps every score recoverable: its shards are the same bytes
    converted = write_dataset_shards(generate_dataset(150, 7, threads=1), tmp_path / "c")
    assert converted.fingerprint == shards.fingerprint
    assert open_equity_shards(tmp_path / "s").fields["samples"] == 150


def test_float16_targets_are_off_by_at_most_2_to_the_minus_12(dataset: EquityDataset) -> None:
    """The bound the docs give for the dataset file's float16 equities (shards are exact)."""
    equity, _ = true_equities(dataset.holes, dataset.boards)
    error = np.abs(dataset.equity.astype(np.float32) - equity)
    assert 0 < error.max() <= 2.0**-12


def test_a_folder_without_manifest_is_refused(dataset: EquityDataset, tmp_path: Path) -> None:
    writer = EquityShardWriter(tmp_path / "s", form=EQUITY_SHARDS_FORMAT, shard_rows=50)
    writer.append_arrays({"hole": dataset.holes, "board": dataset.boards})
    assert list((tmp_path / "s").glob("shard-*.npz"))  # shards written, then killed
    with pytest.raises(EquityShardError, match="never finished; write them again"):
        open_equity_shards(tmp_path / "s")
    config = EquityTrainConfig(data=tmp_path / "s", out=tmp_path / "run", batch_size=32)
    with pytest.raises(TrainingError, match="no complete shards"):
        train_equity(config)


def test_stream_visits_each_sample_once_per_epoch(files: tuple[Path, Path]) -> None:
    shards: ShardSet = open_equity_shards(files[1])
    stream = EquityStream(
        shards, [np.arange(n) for n in shards.shard_rows], batch_size=50, shuffle_buffer=150
    )
    assert len(stream.fills(0)) < shards.shards
    arrays = shards.select_arrays(np.arange(shards.size))

    def names(holes: np.ndarray, boards: np.ndarray) -> list[bytes]:
        return [h.tobytes() + b.tobytes() for h, b in zip(holes, boards, strict=True)]

    key = {name: i for i, name in enumerate(names(arrays["hole"], arrays["board"]))}
    seen = []
    for holes, boards, scores in stream:
        rows = [
            key[n] for n in names(holes.numpy().astype(np.uint8), boards.numpy().astype(np.uint8))
        ]
        assert np.array_equal(scores.numpy(), arrays["score"][rows].astype(np.int16))
        seen.extend(rows)
    assert len(seen) == 400 // 50 * 50
    assert len(set(seen)) == len(seen)


def _config(data: Path, out: Path, **changes: object) -> EquityTrainConfig:
    fields: dict[str, object] = {
        "data": data, "out": out, "arch": "improved", "width": 32, "blocks": 1, "head": 32,
        "epochs": 4, "batch_size": 32, "learning_rate": 1e-2, "threads": 1,
        "val_fraction": 0.2, "log_every": 5, "checkpoint_every": 4, "shuffle_buffer": 140,
    }  # fmt: skip
    fields.update(changes)
    return EquityTrainConfig.model_validate(fields)


def test_streamed_training_matches_the_in_memory_path(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    """The same rows held out; validation MSE within 15% (another batch order, and exact
    rather than float16 targets), below the untrained network's."""
    memory = train_equity(_config(files[0], tmp_path / "memory"))
    streamed = train_equity(_config(files[1], tmp_path / "stream"))
    assert memory.train_samples == streamed.train_samples == 320
    assert memory.val_samples == streamed.val_samples == 80
    assert memory.best_val is not None
    assert streamed.best_val is not None
    a, b = memory.best_val.mse, streamed.best_val.mse
    assert abs(a - b) < 0.15 * a
    shards = open_equity_shards(files[1])
    val = shard_samples(shards, np.arange(320, 400), "cpu")
    torch.manual_seed(0)
    untrained = build_model("improved", {"width": 32, "blocks": 1, "head": 32, "dropout": 0.0})
    assert b < 0.9 * evaluate(untrained, val).mse  # it learned, as the in-memory run does
    report, info = evaluate_checkpoint(Path(streamed.best_checkpoint), files[1])
    assert info["same_data_as_training"]
    assert report.samples == 400


def test_streamed_run_resumes_mid_epoch_bit_for_bit(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    """Killed in the second epoch past its first fill (checkpoint 2 steps before), resumed."""
    straight = train_equity(_config(files[1], tmp_path / "straight", epochs=2))

    class KilledError(Exception):
        pass

    def kill(step: int, _total: int) -> None:
        if step == 10 + 7:  # 10 steps an epoch; step 7 of epoch 2 is in its second fill
            raise KilledError

    broken = _config(files[1], tmp_path / "broken", epochs=2)
    with pytest.raises(KilledError):
        train_equity(broken, on_step=kill)
    saved = torch.load(tmp_path / "broken" / "last.pt", weights_only=True)
    assert (saved["epoch"], saved["step_in_epoch"]) == (1, 6)
    assert saved["step_in_epoch"] * 32 > 140  # past the first fill
    resumed = train_equity(broken, resume=True)
    assert resumed.history == straight.history
    final = torch.load(tmp_path / "straight" / "last.pt", weights_only=True)["model"]
    again = torch.load(tmp_path / "broken" / "last.pt", weights_only=True)["model"]
    for name in final:
        assert torch.equal(final[name], again[name]), name


def test_cli_writes_shards_while_generating(tmp_path: Path) -> None:
    out = tmp_path / "shards"
    args = ["equity-net", "data", "--samples", "60", "--seed", "3", "--threads", "1"]
    done = runner.invoke(app, [*args, "--out", str(out), "--shard-rows", "25", "--json"])
    assert done.exit_code == 0, done.output
    figures = json.loads(done.output)
    assert (figures["samples"], figures["shards"]) == (60, 3)
    assert figures["fingerprint"] == open_equity_shards(out).fingerprint
    refused = runner.invoke(app, [*args, "--out", str(tmp_path / "x.npz"), "--shard-rows", "25"])
    assert refused.exit_code != 0
    assert "names a folder" in refused.output


def test_a_separate_validation_set_may_be_a_file_or_a_shard_folder(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    npz, shards = files
    for name, data, val in (("a", npz, shards), ("b", shards, npz)):
        result = train_equity(_config(data, tmp_path / name, val_data=val, epochs=1))
        assert (result.train_samples, result.val_samples) == (400, 400)
    first = torch.load(tmp_path / "a" / "best.pt", weights_only=True)
    assert first["data_fingerprint"] != open_equity_shards(shards).fingerprint  # the npz's
