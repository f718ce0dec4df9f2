"""Training and evaluation of the equity network: one validated config, resumable runs.

A run reads an equity dataset (:mod:`poolshark.equity_net.data`), holds out a validation
part (the last ``val_fraction`` of the samples, or a separate file), and minimizes the
masked MSE with AdamW and a cosine learning-rate decay. Every ``checkpoint_every`` steps and
at the end of every epoch it writes ``last.pt`` atomically; the best epoch by validation
MSE goes to ``best.pt``. Batches are ordered by ``(seed, epoch)`` and the torch random state
is saved with the weights, so a killed run resumed with ``resume=True`` continues exactly
where the checkpoint left it. Checkpoints hold only tensors and plain values, so
``torch.load(path, weights_only=True)`` reads them; they carry the config and the data
fingerprint. Scalars go to TensorBoard event files under ``<out>/tensorboard``.

Data may also be a folder of shards (:mod:`poolshark.equity_net.shards`, written by
``poolshark equity-net data --shard-rows``): the run then streams its batches
(:class:`~poolshark.equity_net.shards.EquityStream`, fills of ``shuffle_buffer`` samples
permuted by ``(seed, epoch, fill)``), holds only the validation samples, and resumes
mid-epoch from ``(epoch, step)`` alone, bit for bit.
"""

from __future__ import annotations

import math
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import torch
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from poolshark.equity_net.data import NO_CARD, EquityDataset, load_dataset
from poolshark.equity_net.model import (
    Architecture,
    EquityNet,
    build_model,
    masked_mse,
    possible_combos,
)
from poolshark.equity_net.shards import (
    SHUFFLE_BUFFER,
    EquityStream,
    is_shard_folder,
    open_equity_shards,
    score_equities,
)
from poolshark.training.common import (
    Precision,
    autocast,
    check_device_name,
    check_run_folder,
    count_parameters,
    read_checkpoint_of,
    require_device,
    restore_run,
    save_atomic,
)
from poolshark.training.distributed import Distributed, current, launch, process_device
from poolshark.training.shards import ShardError, ShardSet
from poolshark.training.tensorboard import ScalarLog

CHECKPOINT_FORMAT = "poolshark-equity-net-v1"
STREETS = ("flop", "turn", "river")
EVAL_BATCH = 4096
_RESUMABLE_CHANGES = ("data", "val_data", "out", "device", "threads", "patience", "devices")
"""Config keys a resumed run may change (the data fingerprint guards the data itself)."""


class TrainingError(ValueError):
    """A run that cannot start or resume as asked; the message says why."""


class EquityTrainConfig(BaseModel):
    """Everything that defines an equity-network training run (TOML keys of the same names).

    ``arch`` picks the network; ``width``, ``blocks``, ``head`` and ``dropout`` shape the
    improved one (the seed network is fixed, dropout 0.1). ``val_fraction`` of the data is
    held out unless ``val_data`` names a separate file. ``patience``: stop after that many
    epochs without a better validation MSE (None: never stop early). ``precision``: ``bf16``
    trains in bfloat16 mixed precision (:func:`poolshark.training.common.autocast`).
    ``data`` (and ``val_data``) may be a shard folder: the run streams, reading fills of at
    least ``shuffle_buffer`` samples.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    data: Path
    out: Path
    val_data: Path | None = None
    val_fraction: float = Field(0.05, gt=0.0, lt=0.5)
    arch: Architecture = "improved"
    width: int = Field(768, ge=8, le=16384)
    blocks: int = Field(2, ge=0, le=32)
    head: int = Field(768, ge=8, le=16384)
    dropout: float | None = Field(None, ge=0.0, lt=1.0)
    epochs: int = Field(20, ge=1, le=10_000)
    batch_size: int = Field(512, ge=2, le=1 << 20)
    learning_rate: float = Field(1e-3, gt=0.0, le=1.0)
    weight_decay: float = Field(0.0, ge=0.0, le=1.0)
    schedule: Literal["cosine", "constant"] = "cosine"
    precision: Precision = "fp32"
    seed: int = Field(0, ge=0)
    device: str = "cpu"
    threads: int | None = Field(None, ge=1, le=1024)
    checkpoint_every: int = Field(2000, ge=1)
    log_every: int = Field(50, ge=1)
    patience: int | None = Field(None, ge=1)
    max_samples: int | None = Field(None, ge=1)
    devices: int = Field(1, ge=1, le=64)
    shuffle_buffer: int = Field(SHUFFLE_BUFFER, ge=1)

    @field_validator("device")
    @classmethod
    def _known_device(cls, value: str) -> str:
        return check_device_name(value)

    @model_validator(mode="after")
    def _seed_shape(self) -> EquityTrainConfig:
        if self.arch == "seed" and self.dropout not in (None, 0.1):
            raise ValueError("the seed architecture is fixed: dropout 0.1")
        return self

    @classmethod
    def from_toml(cls, path: Path, **overrides: Any) -> EquityTrainConfig:
        """Load a TOML file; ``overrides`` (not None) replace its keys. Errors name the file."""
        try:
            document = tomllib.loads(Path(path).read_text())
        except OSError as error:
            raise TrainingError(f"cannot read config {str(path)!r}: {error.strerror}") from None
        except tomllib.TOMLDecodeError as error:
            raise TrainingError(f"config {str(path)!r} is not valid TOML: {error}") from None
        document.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(document)

    def model_hyperparameters(self) -> dict[str, Any]:
        """Constructor arguments of the chosen network."""
        if self.arch == "seed":
            return {"dropout": 0.1}
        return {
            "width": self.width,
            "blocks": self.blocks,
            "head": self.head,
            "dropout": 0.0 if self.dropout is None else self.dropout,
        }


@dataclass(frozen=True)
class EvalReport:
    """Masked MSE of a model on some samples, overall and per street, and its RMSE and MAE."""

    samples: int
    mse: float
    rmse: float
    mae: float
    mse_by_street: dict[str, float]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return {
            "samples": self.samples,
            "mse": self.mse,
            "rmse": self.rmse,
            "mae": self.mae,
            "mse_by_street": dict(self.mse_by_street),
        }


@dataclass
class TrainResult:
    """What a finished (or early-stopped) run reports."""

    arch: str
    parameters: int
    train_samples: int
    val_samples: int
    epochs_run: int
    best_epoch: int
    best_val: EvalReport | None
    history: list[dict[str, float]] = field(default_factory=list)
    seconds: float = 0.0
    samples_per_s: float = 0.0
    stopped_early: bool = False
    best_checkpoint: str = ""
    last_checkpoint: str = ""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict (the CLI's ``--json`` object)."""
        return {
            "arch": self.arch,
            "parameters": self.parameters,
            "train_samples": self.train_samples,
            "val_samples": self.val_samples,
            "epochs_run": self.epochs_run,
            "best_epoch": self.best_epoch,
            "best_val": None if self.best_val is None else self.best_val.to_json(),
            "history": self.history,
            "seconds": self.seconds,
            "samples_per_s": self.samples_per_s,
            "stopped_early": self.stopped_early,
            "best_checkpoint": self.best_checkpoint,
            "last_checkpoint": self.last_checkpoint,
        }


@dataclass(frozen=True)
class Samples:
    """Samples as tensors on the training device.

    ``equity`` holds float16 equities (a dataset file) or int16 exact scores (shards,
    :func:`~poolshark.equity_net.shards.score_equities`), 2 bytes a combo either way; the
    possible-combo mask is recomputed from the cards per batch rather than stored.
    """

    holes: torch.Tensor
    boards: torch.Tensor
    equity: torch.Tensor

    def __len__(self) -> int:
        return int(self.holes.shape[0])

    def batch(self, rows: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """(holes, boards, equity float32, possible-combo mask) of the given rows."""
        holes, boards = self.holes[rows], self.boards[rows]
        return holes, boards, targets(self.equity[rows], boards), possible_combos(holes, boards)


def targets(equity: torch.Tensor, boards: torch.Tensor) -> torch.Tensor:
    """Float32 equities from stored float16 equities or int16 scores."""
    if equity.dtype == torch.int16:
        return score_equities(equity, boards)
    return equity.float()


def shard_samples(shards: ShardSet, rows: npt.NDArray[np.int64], device: str) -> Samples:
    """Some samples of shards (global rows, sorted) as :class:`Samples` with exact scores."""
    arrays = shards.select_arrays(rows, ("hole", "board", "score"))
    target = torch.device(device)
    return Samples(
        holes=torch.from_numpy(arrays["hole"].astype(np.int64)).to(target),
        boards=torch.from_numpy(arrays["board"].astype(np.int64)).to(target),
        equity=torch.from_numpy(arrays["score"].astype(np.int16)).to(target),
    )


def to_samples(dataset: EquityDataset, rows: slice, device: str) -> Samples:
    """A range of a dataset's rows as :class:`Samples` on ``device`` (a view on the CPU)."""
    target = torch.device(device)
    return Samples(
        holes=torch.from_numpy(dataset.holes[rows].astype(np.int64)).to(target),
        boards=torch.from_numpy(dataset.boards[rows].astype(np.int64)).to(target),
        equity=torch.from_numpy(dataset.equity[rows]).to(target),
    )


@torch.no_grad()
def evaluate(model: EquityNet, samples: Samples, batch_size: int = EVAL_BATCH) -> EvalReport:
    """Masked MSE, RMSE and mean absolute error of ``model`` on ``samples`` (eval mode)."""
    was_training = model.training
    model.eval()
    squared = torch.zeros(3, dtype=torch.float64)
    absolute = torch.zeros(3, dtype=torch.float64)
    counts = torch.zeros(3, dtype=torch.float64)
    for start in range(0, len(samples), batch_size):
        rows = torch.arange(
            start, min(start + batch_size, len(samples)), device=samples.holes.device
        )
        holes, boards, equity, mask = samples.batch(rows)
        error = (model(holes, boards) - equity) * mask
        street = ((boards != NO_CARD).sum(dim=1) - 3).clamp(0, 2)
        weight = mask.sum(dim=1).double()
        squared.index_add_(0, street.cpu(), (error**2).sum(dim=1).double().cpu())
        absolute.index_add_(0, street.cpu(), error.abs().sum(dim=1).double().cpu())
        counts.index_add_(0, street.cpu(), weight.cpu())
    model.train(was_training)
    total = float(counts.sum().clamp(min=1.0))
    mse = float(squared.sum()) / total
    by_street = {
        name: float(squared[i] / counts[i]) for i, name in enumerate(STREETS) if counts[i] > 0
    }
    return EvalReport(
        samples=len(samples),
        mse=mse,
        rmse=math.sqrt(mse),
        mae=float(absolute.sum()) / total,
        mse_by_street=by_street,
    )


def read_checkpoint(path: Path, device: str = "cpu") -> dict[str, Any]:
    """A checkpoint's dict, loaded with ``weights_only=True``; errors name the file."""
    return read_checkpoint_of(
        path, "equity-network", CHECKPOINT_FORMAT, device, TrainingError, kind_field=False
    )


def load_equity_net(path: Path, device: str = "cpu") -> tuple[EquityNet, dict[str, Any]]:
    """The network stored in a checkpoint, in eval mode on ``device``, and the checkpoint."""
    payload = read_checkpoint(path, device)
    model = build_model(str(payload["arch"]), dict(payload["hyperparameters"]))
    model.load_state_dict(payload["model"])
    model.to(torch.device(device))
    model.eval()
    return model, payload


def _check_device(device: str) -> None:
    require_device(device, TrainingError)


def _split(config: EquityTrainConfig) -> tuple[EquityDataset, slice, slice]:
    """(train dataset, train rows, held-out rows: none when ``val_data`` is separate)."""
    data = load_dataset(config.data)
    n = len(data) if config.max_samples is None else min(len(data), config.max_samples)
    if config.val_data is not None:
        train_rows, val_rows = slice(0, n), slice(0, 0)
    else:
        held = max(1, round(n * config.val_fraction))
        train_rows, val_rows = slice(0, n - held), slice(n - held, n)
    if train_rows.stop - train_rows.start < config.batch_size:
        raise TrainingError(
            f"only {train_rows.stop - train_rows.start} training samples for batches of"
            f" {config.batch_size}"
        )
    return data, train_rows, val_rows


Batches = Callable[[int, int], Iterator[tuple[torch.Tensor, ...]]]
"""``batches(epoch, first_step)``: the (holes, boards, equity, mask) of this process for
each step of an epoch from ``first_step`` on."""


@dataclass
class _TrainData:
    """What the loop needs of its data, in memory or streamed: the training samples'
    count and steps per epoch, the data fingerprint, the validation samples, the batches."""

    size: int
    steps_per_epoch: int
    fingerprint: str
    val: Samples
    batches: Batches


def _validation(path: Path, device: str) -> Samples:
    """A separate validation set, a dataset file or a shard folder, whole."""
    if is_shard_folder(path):
        shards = open_equity_shards(path)
        return shard_samples(shards, np.arange(shards.size), device)
    dataset = load_dataset(path)
    return to_samples(dataset, slice(0, len(dataset)), device)


def _memory_data(config: EquityTrainConfig, device: str, world: Distributed) -> _TrainData:
    """Every sample in memory; batches from a permutation fixed by (seed, epoch)."""
    data, train_rows, val_rows = _split(config)
    train = to_samples(data, train_rows, device)
    val = (
        _validation(config.val_data, device)
        if config.val_data is not None
        else to_samples(data, val_rows, device)
    )
    steps = len(train) // config.batch_size

    def batches(epoch: int, first: int) -> Iterator[tuple[torch.Tensor, ...]]:
        order = _epoch_order(config.seed, epoch, len(train)).to(device)
        for step in range(first, steps):
            rows = order[step * config.batch_size : (step + 1) * config.batch_size]
            yield train.batch(world.local_rows(rows))

    return _TrainData(len(train), steps, data.fingerprint, val, batches)


def _streamed_data(config: EquityTrainConfig, device: str, world: Distributed) -> _TrainData:
    """Samples in shards: the held-out ones (the last ``val_fraction``, as in memory, or
    ``val_data``) read into memory, the training ones streamed."""
    shards = open_equity_shards(config.data)
    n = shards.size if config.max_samples is None else min(shards.size, config.max_samples)
    if config.val_data is not None:
        train_rows = np.arange(n)
        val = _validation(config.val_data, device)
    else:
        held = max(1, round(n * config.val_fraction))
        train_rows = np.arange(n - held)
        val = shard_samples(shards, np.arange(n - held, n), device)
    if train_rows.size < config.batch_size:
        raise TrainingError(
            f"only {train_rows.size} training samples for batches of {config.batch_size}"
        )
    stream = EquityStream(
        shards,
        shards.by_shard(train_rows),
        batch_size=config.batch_size,
        shuffle_buffer=config.shuffle_buffer,
        seed=config.seed,
        device=device,
    )

    def batches(epoch: int, first: int) -> Iterator[tuple[torch.Tensor, ...]]:
        stream.epoch, stream.start_batch = epoch, first
        for holes, boards, scores in stream:
            local = world.local_rows(torch.arange(holes.shape[0], device=holes.device))
            mine, board = holes[local], boards[local]
            yield mine, board, score_equities(scores[local], board), possible_combos(mine, board)

    return _TrainData(int(train_rows.size), len(stream), shards.fingerprint, val, batches)


def _learning_rate(config: EquityTrainConfig, step: int, total: int) -> float:
    if config.schedule == "constant":
        return config.learning_rate
    return config.learning_rate * 0.5 * (1.0 + math.cos(math.pi * min(step, total) / total))


def _epoch_order(seed: int, epoch: int, n: int) -> torch.Tensor:
    """The batch order of one epoch: a permutation fixed by (seed, epoch)."""
    return torch.from_numpy(np.random.default_rng([seed, epoch]).permutation(n))


StepCallback = Callable[[int, int], None]
"""Called as ``on_step(step, total_steps)``."""
EpochCallback = Callable[[dict[str, float]], None]
"""Called with each epoch's history entry."""


def train_equity(
    config: EquityTrainConfig,
    *,
    resume: bool = False,
    on_step: StepCallback | None = None,
    on_epoch: EpochCallback | None = None,
) -> TrainResult:
    """Run (or resume) the training that ``config`` describes; see the module docstring.

    With ``config.devices`` above one the run is data-parallel: that many processes
    (:func:`~poolshark.training.distributed.launch`) share each batch, and the callbacks
    are not called (they live in this process).
    """
    _check_device(config.device)
    world = current()
    if config.devices > 1 and not world.active:
        check_run_folder(Path(config.out) / "last.pt", resume, TrainingError)
        return launch(_train_in_process, config.devices, config, resume, device=config.device)
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    device_name = process_device(config.device, world)
    device = torch.device(device_name)
    try:
        streamed = is_shard_folder(config.data)
        data = (_streamed_data if streamed else _memory_data)(config, device_name, world)
    except ShardError as error:
        raise TrainingError(str(error)) from None
    val, fingerprint = data.val, data.fingerprint
    out = Path(config.out)
    last_path, best_path = out / "last.pt", out / "best.pt"

    torch.manual_seed(config.seed)
    model = build_model(config.arch, config.model_hyperparameters()).to(device)
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
    )
    steps_per_epoch = data.steps_per_epoch
    total_steps = steps_per_epoch * config.epochs
    state: dict[str, Any] = {
        "epoch": 0,
        "step_in_epoch": 0,
        "global_step": 0,
        "loss_sum": 0.0,
        "best_mse": math.inf,
        "best_epoch": 0,
        "stale_epochs": 0,
        "history": [],
        "seconds": 0.0,
    }
    if resume:
        state = _restore(config, device_name, fingerprint, last_path, model, optimizer, state)
    elif last_path.exists():
        raise TrainingError(
            f"{str(last_path)!r} exists: pass resume to continue that run, or choose a new out"
        )

    log = ScalarLog(out / "tensorboard" if world.is_main else None)
    trained = world.wrap(model)

    def checkpoint(path: Path, payload_state: dict[str, Any]) -> None:
        if not world.is_main:
            world.barrier()
            return
        save_atomic(
            {
                "format": CHECKPOINT_FORMAT,
                "arch": config.arch,
                "hyperparameters": model.hyperparameters(),
                "config": config.model_dump(mode="json"),
                "data_fingerprint": fingerprint,
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "torch_rng": torch.get_rng_state(),
                "cuda_rng": torch.cuda.get_rng_state() if device.type == "cuda" else None,
                **payload_state,
            },
            path,
        )
        world.barrier()

    started = time.perf_counter() - float(state["seconds"])
    trained_samples = 0
    session_start = time.perf_counter()
    stopped_early = False
    model.train()
    try:
        while int(state["epoch"]) < config.epochs:
            epoch = int(state["epoch"])
            window_loss, window_steps = 0.0, 0
            first = int(state["step_in_epoch"])
            for step, batch in enumerate(data.batches(epoch, first), first):
                holes, boards, equity, mask = batch
                rate = _learning_rate(config, int(state["global_step"]), total_steps)
                for group in optimizer.param_groups:
                    group["lr"] = rate
                with autocast(device, config.precision):
                    predicted = trained(holes, boards)
                count = world.global_count(mask.sum().to(torch.float32))
                loss = masked_mse(predicted.float(), equity, mask, count)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()  # type: ignore[no-untyped-call]
                optimizer.step()
                value = world.mean(float(loss.detach()))
                state["loss_sum"] = float(state["loss_sum"]) + value
                state["global_step"] = int(state["global_step"]) + 1
                state["step_in_epoch"] = step + 1
                trained_samples += config.batch_size
                window_loss += value
                window_steps += 1
                if window_steps == config.log_every:
                    log.scalar("train/loss", window_loss / window_steps, state["global_step"])
                    log.scalar("train/learning_rate", rate, state["global_step"])
                    window_loss, window_steps = 0.0, 0
                if on_step is not None and world.is_main:
                    on_step(int(state["global_step"]), total_steps)
                if int(state["global_step"]) % config.checkpoint_every == 0:
                    state["seconds"] = time.perf_counter() - started
                    checkpoint(last_path, state)
                    log.flush()
            report = evaluate(model, val)
            entry = {
                "epoch": float(epoch + 1),
                "train_loss": float(state["loss_sum"]) / max(1, steps_per_epoch),
                "val_mse": report.mse,
                **{f"val_mse_{k}": v for k, v in report.mse_by_street.items()},
            }
            state["history"] = [*state["history"], entry]
            for key, value in entry.items():
                if key != "epoch":
                    log.scalar(f"epoch/{key}", value, epoch + 1)
            if on_epoch is not None and world.is_main:
                on_epoch(entry)
            improved = report.mse < float(state["best_mse"])
            state.update(
                epoch=epoch + 1,
                step_in_epoch=0,
                loss_sum=0.0,
                seconds=time.perf_counter() - started,
                best_mse=report.mse if improved else state["best_mse"],
                best_epoch=epoch + 1 if improved else state["best_epoch"],
                stale_epochs=0 if improved else int(state["stale_epochs"]) + 1,
            )
            if improved:
                checkpoint(best_path, state)
            checkpoint(last_path, state)
            log.flush()
            if config.patience is not None and int(state["stale_epochs"]) >= config.patience:
                stopped_early = True
                break
    finally:
        log.close()

    best_val = None
    if best_path.exists():
        best_model, _ = load_equity_net(best_path, device_name)
        best_val = evaluate(best_model, val)
    session_seconds = time.perf_counter() - session_start
    return TrainResult(
        arch=config.arch,
        parameters=count_parameters(model),
        train_samples=data.size,
        val_samples=len(val),
        epochs_run=int(state["epoch"]),
        best_epoch=int(state["best_epoch"]),
        best_val=best_val,
        history=list(state["history"]),
        seconds=time.perf_counter() - started,
        samples_per_s=trained_samples / session_seconds if session_seconds > 0 else 0.0,
        stopped_early=stopped_early,
        best_checkpoint=str(best_path),
        last_checkpoint=str(last_path),
    )


def _train_in_process(config: EquityTrainConfig, resume: bool) -> TrainResult:
    """One process of a data-parallel run (what :func:`launch` runs)."""
    return train_equity(config, resume=resume)


def _restore(
    config: EquityTrainConfig,
    device: str,
    fingerprint: str,
    path: Path,
    model: EquityNet,
    optimizer: torch.optim.Optimizer,
    state: dict[str, Any],
) -> dict[str, Any]:
    """Load ``last.pt`` into the model and optimizer; the run state to continue from."""
    payload = read_checkpoint(path, device)
    restore_run(
        payload, path, config, _RESUMABLE_CHANGES, model, optimizer, TrainingError, fingerprint
    )
    return {key: payload[key] for key in state}


def evaluate_checkpoint(
    checkpoint: Path, data: Path, *, device: str = "cpu", max_samples: int | None = None
) -> tuple[EvalReport, dict[str, Any]]:
    """Masked MSE of a saved network on a dataset file or shard folder; (report,
    checkpoint info)."""
    _check_device(device)
    model, payload = load_equity_net(checkpoint, device)
    if is_shard_folder(data):
        try:
            shards = open_equity_shards(data)
        except ShardError as error:
            raise TrainingError(str(error)) from None
        n = shards.size if max_samples is None else min(shards.size, max_samples)
        samples, fingerprint = shard_samples(shards, np.arange(n), device), shards.fingerprint
    else:
        dataset = load_dataset(data)
        n = len(dataset) if max_samples is None else min(len(dataset), max_samples)
        samples, fingerprint = to_samples(dataset, slice(0, n), device), dataset.fingerprint
    info = {
        "arch": payload["arch"],
        "epoch": int(payload["epoch"]),
        "data_fingerprint": payload["data_fingerprint"],
        "same_data_as_training": payload["data_fingerprint"] == fingerprint,
    }
    return evaluate(model, samples), info
