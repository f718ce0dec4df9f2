"""Training of the population action model: its data, the training loop, checkpoints, EM.

A run builds its training rows once (:mod:`poolshark.population.data`: a pool simulated
in-process, every hole card known or only showdowns with the rest imputed; or ingested
decision rows, hidden cards imputed), keeps them in ``<out>/data.npz`` with their
fingerprint, holds out a share of the *hands* (never rows of one hand on both sides), and
minimizes the negative log-likelihood of the actions taken with AdamW and a cosine
learning-rate decay. Checkpoints follow the house pattern (``equity_net/train.py``): ``last.pt``
atomically every ``checkpoint_every`` steps and after each epoch, ``best.pt`` for the
lowest validation NLL over the rows whose cards were observed (imputed cards are never
scored: :func:`~poolshark.population.scoring.selection_nll`), batches ordered by
``(seed, epoch)``, the torch random state saved, so a killed run resumed with
``resume=True`` ends bit for bit where an unbroken one does.
Checkpoints are dicts of tensors and plain values (``torch.load(..., weights_only=True)``)
with ``"kind": "population-model"``, the config, the range-source spec, the representative
pot fraction of each raise bucket and the data fingerprint. Scalars go to TensorBoard
event files under ``<out>/tensorboard``.

Evaluation (:func:`~poolshark.population.scoring.evaluate`) and per-player fine-tuning
(:func:`~poolshark.population.finetune.finetune_player`) live beside it.

With ``stream = true`` the rows are written once as shards (``<out>/shards``,
:mod:`poolshark.population.shards`) and the loop reads its batches from a
:class:`~poolshark.population.shards.ShardStream` instead of a permutation of rows in
memory; everything else (validation, checkpoints, resume, EM) is the same code.

Long module: one trainer's config, data preparation (in memory or sharded), loop, EM rounds
and checkpoint I/O share the run state; the shard format lives in its own module.
"""

from __future__ import annotations

import json
import math
import shutil
import time
import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import torch
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from poolshark.equity_net.train import load_equity_net
from poolshark.pool.pools import load_pool
from poolshark.pool.simulate import simulate
from poolshark.population import CHECKPOINT_KIND
from poolshark.population.actions import FIRST_RAISE_CLASS, N_SIZES, SIZE_CENTERS
from poolshark.population.data import (
    ActionDataset,
    join_same_players,
    load_dataset,
    rows_parts,
    save_dataset,
    simulated_parts,
    with_feature_dtype,
)
from poolshark.population.hands import RowsReport
from poolshark.population.model import (
    FeatureTensors,
    PopulationNet,
    build_population_net,
    masked_nll,
)
from poolshark.population.scoring import (
    Baselines,
    context_keys,
    evaluate,
    predict,
    score,
    selection_nll,
)
from poolshark.population.shards import (
    SHARD_ROWS,
    SHUFFLE_BUFFER,
    ShardError,
    ShardManifest,
    ShardStream,
    ShardWriter,
    open_shards,
)
from poolshark.population.sources import range_source_from_spec
from poolshark.population.states import select_hands
from poolshark.training.common import (
    Precision,
    autocast,
    check_device_name,
    count_parameters,
    read_checkpoint_of,
    require_device,
    restore_run,
    save_atomic,
)
from poolshark.training.distributed import current, launch, process_device
from poolshark.training.tensorboard import ScalarLog

CHECKPOINT_FORMAT = "poolshark-population-model-v1"
DATA_CACHE = "data.npz"
"""The file in a run's folder that caches its training rows (:func:`prepared_data`)."""
SHARD_CACHE = "shards"
"""The folder in a run's folder that holds its training rows as shards when it streams
(:func:`prepared_shards`)."""
_RESUMABLE_CHANGES = ("out", "device", "threads", "patience", "rows", "devices")
"""Config keys a resumed run may change (the data fingerprint guards the data itself)."""
SELECTION = "observed-nll"
"""What picks ``best.pt`` (checkpoints carry it): the validation NLL of the rows whose
cards were observed. Runs before issue 17 picked by the NLL of every validation row,
imputed cards included, and cannot be resumed."""

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]


class PopulationTrainingError(ValueError):
    """A run that cannot start, resume or evaluate as asked; the message says why."""


class DataConfig(BaseModel):
    """Where training rows come from (TOML keys of the same names).

    Either ``pool`` and ``hands`` (simulated in-process from ``simulation_seed``) or
    ``rows`` (a ``poolshark ingest`` output folder). ``ranges`` is the range source of the
    opponent view: ``exact`` (the pool's exact posterior; with ``rows`` name the pool,
    ``exact:POOL``), ``uniform``, ``none`` or ``package.module:factory[=ARG]``. ``hidden``
    (simulated pools): ``none`` every hole card known, ``showdown`` only shown cards known
    and the rest imputed from ``imputer`` (a range-source spec; default ``ranges``).
    ``holdout_player`` leaves one player id's rows out (to fine-tune on them later).
    ``max_rows`` keeps the first rows built (ingested rows: the rows report counts the
    chunks read). ``feature_dtype`` ``float16`` stores the features that are not 0/1
    flags at half precision (:func:`~poolshark.population.data.with_feature_dtype`;
    measured against ``float32`` in ``docs/population.md``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    pool: str | None = None
    hands: int | None = Field(None, ge=1)
    simulation_seed: int = Field(1, ge=0)
    rows: Path | None = None
    ranges: str = "exact"
    hidden: Literal["none", "showdown"] = "none"
    imputer: str | None = None
    holdout_player: str | None = None
    max_rows: int | None = Field(None, ge=1)
    feature_dtype: Literal["float32", "float16"] = "float32"

    @model_validator(mode="after")
    def _one_source(self) -> DataConfig:
        simulated = self.pool is not None or self.hands is not None
        if simulated == (self.rows is not None):
            raise ValueError("give either pool and hands (simulate) or rows (ingested rows)")
        if simulated and (self.pool is None or self.hands is None):
            raise ValueError("simulating needs both pool and hands")
        if self.rows is not None and self.ranges == "exact":
            raise ValueError("ranges 'exact' needs a pool: with rows write exact:POOL")
        if self.rows is not None and self.hidden != "none":
            raise ValueError("hidden applies to simulated pools (ingested rows hide cards anyway)")
        return self

    def range_spec(self) -> str:
        """The range-source spec with ``exact`` resolved to this pool."""
        return f"exact:{self.pool}" if self.ranges == "exact" else self.ranges


MAX_VAL_ROWS = 200_000
"""Default cap on the validation rows scored after each epoch (:func:`cap_validation`):
about 340 MB of float32 features held, and a standard error of the NLL near 0.002."""

EM_ROUNDS = 3
"""EM rounds of the imputer name ``em`` (``em:N`` asks for N). Chosen on the development
pool ``micro-zoom``: each round brought the ceiling exploiter's promise against the model
closer to what the true pool pays (1.64, 1.21, 1.07, 1.00 times for 0 to 3 rounds) and the
model closer to the true styles (``docs/pipeline.md``, "EM rounds")."""
EM_POWER = 4.0
"""Over-relaxation of the first EM step for the imputer name ``em``: the step from a model
fitted on uniformly drawn cards, whose card effects are diluted (``docs/population.md``)."""


def imputer_settings(imputer: str, pool: str) -> dict[str, Any]:
    """The population-training keys (``imputer``, ``em_rounds``, ``em_power``) that an
    imputer *name*, as the pipeline and the robustness curve take it, stands for: ``exact``
    (the pool's exact posterior), ``em`` / ``em:N`` (uniform cards first, then N rounds of
    EM, the first over-relaxed), anything else a range-source spec used as it is."""
    if imputer == "exact":
        return {"imputer": f"exact:{pool}", "em_rounds": 0, "em_power": 1.0}
    if imputer == "em" or imputer.startswith("em:"):
        rounds = imputer[3:]
        if rounds and not (rounds.isdigit() and 1 <= int(rounds) <= 20):
            raise ValueError(f"imputer {imputer!r}: em:N needs N rounds, 1 to 20")
        return {
            "imputer": "uniform",
            "em_rounds": int(rounds) if rounds else EM_ROUNDS,
            "em_power": EM_POWER,
        }
    return {"imputer": imputer, "em_rounds": 0, "em_power": 1.0}


class PopulationTrainConfig(DataConfig):
    """Everything that defines a population-model training run (see :class:`DataConfig`
    for the data keys).

    ``em_rounds`` N > 0 imputes the hidden cards by expectation-maximization (seed 003,
    section 6.1): round 0 trains a model in ``<out>/em-0`` on cards drawn from ``imputer``
    (default ``uniform``), round k in ``<out>/em-k`` on cards drawn from round k-1's model
    (``model:<out>/em-<k-1>/best.pt``, :mod:`poolshark.population.posterior`), and the
    run itself in ``<out>`` on cards drawn from round N-1's model. ``em_power`` is the
    exponent on the likelihood of the first step only (the one from round 0's model): a
    model fitted to uniform cards has its card effects diluted by every hidden row, so
    plain EM creeps toward the fixed point; sharpening that one step (over-relaxation) and
    letting later rounds be plain EM gets there in fewer rounds (``docs/population.md``).

    ``stream`` trains from shards (``<out>/shards``, :mod:`poolshark.population.shards`)
    instead of holding every row in memory: ``shard_rows`` rows per shard, batches drawn
    from shuffled fills of at least ``shuffle_buffer`` rows (the memory bound), the
    validation rows (at most ``max_val_rows``) held in memory as before.

    ``max_val_rows`` caps the validation rows, held in memory and scored after every epoch
    (:func:`cap_validation`; None: every held-out hand), so that a run's memory does not
    grow with ``val_fraction`` of its rows.

    ``devices`` N > 1 trains data-parallel in N processes (:mod:`poolshark.training.distributed`):
    each builds or reads the same rows and takes its share of every batch.

    ``precision`` ``bf16`` runs the training forward pass under bfloat16 autocast
    (:func:`poolshark.training.common.autocast`; weights, optimizer, loss and validation
    stay float32)."""

    out: Path
    val_fraction: float = Field(0.1, gt=0.0, lt=0.5)
    max_val_rows: int | None = Field(MAX_VAL_ROWS, ge=1)
    width: int = Field(256, ge=8, le=8192)
    depth: int = Field(3, ge=0, le=32)
    class_embedding: int = Field(16, ge=1, le=512)
    opponent_width: int = Field(48, ge=4, le=1024)
    dropout: float = Field(0.0, ge=0.0, lt=1.0)
    equity_net: Path | None = None
    epochs: int = Field(8, ge=1, le=10_000)
    batch_size: int = Field(512, ge=2, le=1 << 20)
    learning_rate: float = Field(2e-3, gt=0.0, le=1.0)
    weight_decay: float = Field(1e-4, ge=0.0, le=1.0)
    schedule: Literal["cosine", "constant"] = "cosine"
    seed: int = Field(0, ge=0)
    device: str = "cpu"
    threads: int | None = Field(None, ge=1, le=1024)
    devices: int = Field(1, ge=1, le=64)
    precision: Precision = "fp32"
    checkpoint_every: int = Field(2000, ge=1)
    log_every: int = Field(50, ge=1)
    patience: int | None = Field(None, ge=1)
    em_rounds: int = Field(0, ge=0, le=20)
    em_power: float = Field(1.0, gt=0.0, le=16.0)
    stream: bool = False
    shard_rows: int = Field(SHARD_ROWS, ge=1)
    shuffle_buffer: int = Field(SHUFFLE_BUFFER, ge=1)

    @field_validator("device")
    @classmethod
    def _known_device(cls, value: str) -> str:
        return check_device_name(value)

    @model_validator(mode="after")
    def _em_needs_hidden_cards(self) -> PopulationTrainConfig:
        if self.em_rounds and self.rows is None and self.hidden != "showdown":
            raise ValueError("em_rounds needs hidden cards: rows, or hidden = 'showdown'")
        return self

    @classmethod
    def from_toml(cls, path: Path, **overrides: Any) -> PopulationTrainConfig:
        """Load a TOML file; ``overrides`` (not None) replace its keys. Errors name the file."""
        return cls.model_validate(_toml(path, overrides))

    def data_config(self) -> DataConfig:
        """The data keys alone."""
        return DataConfig.model_validate(
            {key: getattr(self, key) for key in DataConfig.model_fields}
        )


def _toml(path: Path, overrides: dict[str, Any]) -> dict[str, Any]:
    try:
        document = tomllib.loads(Path(path).read_text())
    except OSError as error:
        raise PopulationTrainingError(
            f"cannot read config {str(path)!r}: {error.strerror}"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise PopulationTrainingError(f"config {str(path)!r} is not valid TOML: {error}") from None
    document.update({k: v for k, v in overrides.items() if v is not None})
    return document


# -- data -------------------------------------------------------------------------------------

Progress = Callable[[int, int], None]


def build_dataset(
    data: DataConfig,
    *,
    seed: int = 0,
    progress: Progress | None = None,
    only_player: str | None = None,
) -> tuple[ActionDataset, dict[str, Any]]:
    """The training rows a data config describes, and what building them reported (the
    parts of :func:`build_parts` joined).

    ``only_player`` (an id, or ``auto`` for the player seated most often) keeps just the
    hands that player sat in, before any feature is computed (fine-tuning needs no more).
    """
    info: dict[str, Any] = {}
    parts = list(build_parts(data, info, seed=seed, progress=progress, only_player=only_player))
    return join_same_players(parts), info


def build_parts(
    data: DataConfig,
    info: dict[str, Any],
    *,
    seed: int = 0,
    progress: Progress | None = None,
    only_player: str | None = None,
) -> Iterator[ActionDataset]:
    """The rows of :func:`build_dataset` in parts, in order: ingested rows
    (:func:`~poolshark.population.data.rows_parts`) and simulated hands a chunk of hands at
    a time (a streamed run writes each to its shards and keeps none), ``holdout_player``,
    ``max_rows`` and ``feature_dtype`` applied. ``info`` gets what building
    reported, complete once the parts are exhausted."""
    source = range_source_from_spec(data.range_spec())
    imputer = range_source_from_spec(data.imputer) if data.imputer is not None else None
    info["range_source"] = data.range_spec()
    started = time.perf_counter()
    parts: Iterable[ActionDataset]
    report: RowsReport | None = None
    if data.rows is not None:
        if not Path(data.rows).is_dir():
            raise PopulationTrainingError(f"no ingested rows folder at {str(data.rows)!r}")
        report = RowsReport()
        parts = rows_parts(
            data.rows, source, imputer=imputer, seed=seed, report=report, progress=progress
        )
    else:
        if data.pool is None or data.hands is None:
            raise PopulationTrainingError("simulating needs both pool and hands")
        pool = load_pool(data.pool)
        hands = simulate(pool, data.hands, seed=data.simulation_seed)
        info["simulation_seconds"] = time.perf_counter() - started
        if only_player is not None:
            seats = np.bincount(hands.players.ravel(), minlength=len(pool.player_names))
            if only_player == "auto":
                player = int(np.argmax(seats))
            elif only_player in pool.player_names:
                player = pool.player_names.index(only_player)
            else:
                raise PopulationTrainingError(f"no player {only_player!r} in pool {pool.name}")
            hands = select_hands(hands, np.flatnonzero((hands.players == player).any(axis=1)))
            info["player_hands"] = len(hands)
        parts = simulated_parts(
            hands, source, hidden=data.hidden, imputer=imputer, seed=seed, progress=progress
        )
        info["hands"] = len(hands)
    built = imputed = held_rows = 0
    for part in parts:
        if data.holdout_player is not None:
            if data.holdout_player not in part.player_ids:
                raise PopulationTrainingError(f"no player {data.holdout_player!r} in the data")
            held = part.player_ids.index(data.holdout_player)
            keep = np.flatnonzero(part.player != held)
            held_rows += part.size - keep.size
            part = part.subset(keep)
        if data.max_rows is not None and built + part.size > data.max_rows:
            part = part.subset(slice(0, data.max_rows - built))
        built += part.size
        imputed += int(part.imputed.sum())
        yield with_feature_dtype(part, data.feature_dtype)
        if data.max_rows is not None and built >= data.max_rows:
            break
    if report is not None:
        if not built:
            raise PopulationTrainingError(f"{str(data.rows)!r} holds no usable decision rows")
        info["rows"] = report.as_dict()
    if data.holdout_player is not None:
        info["holdout_player_rows"] = held_rows
    info["rows_built"] = built
    info["imputed_rows"] = imputed
    info["build_seconds"] = time.perf_counter() - started


def split_hands(hand_key: Int64s, fractions: tuple[float, ...], seed: int) -> list[Int64s]:
    """Row indices of consecutive parts of a seeded shuffle of the hands: the last parts get
    ``fractions`` of the hands each, the first part the rest. A hand is never split."""
    hands = np.unique(hand_key)
    order = np.random.default_rng([seed, 3]).permutation(hands.size)
    cuts = [hands.size]
    for fraction in reversed(fractions):
        cuts.insert(0, cuts[0] - max(1, round(hands.size * fraction)))
    cuts.insert(0, 0)
    part_of = np.zeros(hands.size, dtype=np.int64)
    for part in range(len(cuts) - 1):
        part_of[order[cuts[part] : cuts[part + 1]]] = part
    labels = part_of[np.searchsorted(hands, hand_key)]
    return [np.flatnonzero(labels == part) for part in range(len(cuts) - 1)]


def cap_validation(
    hand_key: Int64s, train_rows: Int64s, val_rows: Int64s, max_rows: int | None, seed: int
) -> tuple[Int64s, Int64s]:
    """``(train_rows, val_rows)`` with at most ``max_rows`` validation rows: a seeded
    shuffle of the validation hands keeps whole hands while they fit (at least one) and
    gives the rest back to training, so no row is wasted and none is on both sides."""
    if max_rows is None or val_rows.size <= max_rows:
        return train_rows, val_rows
    hands, inverse, counts = np.unique(hand_key[val_rows], return_inverse=True, return_counts=True)
    order = np.random.default_rng([seed, 5]).permutation(hands.size)
    kept = np.zeros(hands.size, dtype=np.bool_)
    kept[order[np.cumsum(counts[order]) <= max_rows]] = True
    kept[order[0]] = True
    scored = kept[inverse]
    return np.sort(np.concatenate([train_rows, val_rows[~scored]])), val_rows[scored]


def size_representatives(dataset: ActionDataset) -> list[float]:
    """Per raise bucket the median pot fraction of the training raises in it (the bucket's
    centre where there were none): the size a sampled raise of that bucket takes."""
    return size_fractions(dataset.target, dataset.fraction)


def size_fractions(target: Int64s, fraction: npt.NDArray[np.float32]) -> list[float]:
    """:func:`size_representatives` from the rows' classes and raise fractions alone."""
    out = []
    for bucket in range(N_SIZES):
        values = fraction[target == FIRST_RAISE_CLASS + bucket]
        out.append(float(np.median(values)) if values.size else SIZE_CENTERS[bucket])
    return out


# -- checkpoints -----------------------------------------------------------------------------


def read_checkpoint(path: Path, device: str = "cpu") -> dict[str, Any]:
    """A population-model checkpoint's dict (``weights_only=True``); errors name the file."""
    return read_checkpoint_of(path, CHECKPOINT_KIND, None, device, PopulationTrainingError)


def load_population_net(path: Path, device: str = "cpu") -> tuple[PopulationNet, dict[str, Any]]:
    """The network stored in a checkpoint, in eval mode on ``device``, and the checkpoint."""
    payload = read_checkpoint(path, device)
    model = build_population_net(dict(payload["hyperparameters"]))
    model.load_state_dict(payload["model"])
    model.to(torch.device(device))
    model.eval()
    return model, payload


def export_population_model(
    path: Path,
    model: PopulationNet,
    *,
    range_source: str,
    size_fractions: list[float],
    config: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write an inference checkpoint (``kind`` ``population-model``, no optimizer state)
    that :func:`load_population_net` and the agent loader read."""
    if len(size_fractions) != N_SIZES:
        raise PopulationTrainingError(f"need {N_SIZES} raise-bucket fractions")
    save_atomic(
        {
            "kind": CHECKPOINT_KIND,
            "format": CHECKPOINT_FORMAT,
            "hyperparameters": model.hyperparameters(),
            "config": dict(config or {}),
            "range_source": range_source,
            "size_fractions": [float(x) for x in size_fractions],
            "model": model.state_dict(),
            **dict(extra or {}),
        },
        Path(path),
    )
    return Path(path)


def _check_device(device: str) -> None:
    require_device(device, PopulationTrainingError)


def _equity_part(config: PopulationTrainConfig) -> tuple[str | None, dict[str, Any], Any]:
    """(arch, hyperparameters, state dict) of the configured equity network, or Nones."""
    if config.equity_net is None:
        return None, {}, None
    net, payload = load_equity_net(config.equity_net)
    return str(payload["arch"]), dict(payload["hyperparameters"]), net.state_dict()


def _learning_rate(base: float, schedule: str, step: int, total: int) -> float:
    if schedule == "constant":
        return base
    return base * 0.5 * (1.0 + math.cos(math.pi * min(step, total) / max(total, 1)))


def epoch_order(seed: int, epoch: int, n: int) -> torch.Tensor:
    """The batch order of one epoch: a permutation fixed by (seed, epoch)."""
    return torch.from_numpy(np.random.default_rng([seed, epoch]).permutation(n))


StepCallback = Callable[[int, int], None]
EpochCallback = Callable[[dict[str, float]], None]


@dataclass
class TrainResult:
    """What a finished (or early-stopped) run reports."""

    parameters: int
    train_rows: int
    val_rows: int
    epochs_run: int
    best_epoch: int
    data: dict[str, Any]
    validation: dict[str, Any] | None
    history: list[dict[str, float]] = field(default_factory=list)
    seconds: float = 0.0
    rows_per_s: float = 0.0
    stopped_early: bool = False
    best_checkpoint: str = ""
    last_checkpoint: str = ""
    em_rounds: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict (the CLI's ``--json`` object)."""
        return dict(self.__dict__)


def prepared_data(
    config: PopulationTrainConfig, *, resume: bool, progress: Progress | None = None
) -> tuple[ActionDataset, dict[str, Any]]:
    """The run's rows: ``<out>/data.npz`` when resuming (or already built by this run), else
    built from the data config and saved there."""
    path = Path(config.out) / DATA_CACHE
    info_path = Path(config.out) / "data.json"
    if path.exists() and (resume or info_path.exists()):
        info = json.loads(info_path.read_text()) if info_path.exists() else {}
        return load_dataset(path), info
    dataset, info = build_dataset(config.data_config(), seed=config.seed, progress=progress)
    save_dataset(dataset, path)
    info_path.write_text(json.dumps(info, indent=2) + "\n")
    return dataset, info


def prepared_shards(
    config: PopulationTrainConfig, *, resume: bool, progress: Progress | None = None
) -> tuple[ShardManifest, dict[str, Any]]:
    """The run's rows as shards (a streamed run's :func:`prepared_data`): ``<out>/shards``
    when resuming (or already written by this run), else built from the data config and
    written there. Simulated hands and ingested rows are built a chunk of hands at a time
    and never held whole."""
    folder = Path(config.out) / SHARD_CACHE
    info_path = Path(config.out) / "data.json"
    if (folder / "manifest.json").exists() and (resume or info_path.exists()):
        info = json.loads(info_path.read_text()) if info_path.exists() else {}
        return open_shards(folder), info
    if folder.exists():  # a writer killed before its manifest: start the shards over
        shutil.rmtree(folder)
    writer = ShardWriter(folder, shard_rows=config.shard_rows)
    info = {}
    for part in build_parts(config.data_config(), info, seed=config.seed, progress=progress):
        writer.append(part)
    manifest = writer.close()
    info_path.write_text(json.dumps(info, indent=2) + "\n")
    return manifest, info


def remove_data_caches(out: Path) -> int:
    """Delete a run's cached rows (``<out>/data.npz`` or ``<out>/shards``, and its EM
    rounds' in ``em-*/``) and return the bytes freed. Only resuming reads them: a resumed
    run without them builds the rows again from its data config, the same bit for bit (the
    checkpoint's data fingerprint checks it). ``data.json``, what building them reported,
    stays."""
    freed = 0
    for cache in (Path(out) / DATA_CACHE, *sorted(Path(out).glob(f"em-*/{DATA_CACHE}"))):
        if cache.is_file():
            freed += cache.stat().st_size
            cache.unlink()
    for folder in (Path(out) / SHARD_CACHE, *sorted(Path(out).glob(f"em-*/{SHARD_CACHE}"))):
        if folder.is_dir():
            freed += sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
            shutil.rmtree(folder)
    return freed


@dataclass
class _TrainingRows:
    """What the loop needs of the training rows, in memory or streamed: their count, the
    baselines and raise sizes fitted on them, the data fingerprint, the validation rows, and
    a source of ``(features, target)`` batches for ``(epoch, first batch)``."""

    size: int
    steps_per_epoch: int
    fingerprint: str
    info: dict[str, Any]
    val_data: ActionDataset
    baselines: Baselines
    sizes: list[float]
    batches: Callable[[int, int], Iterator[tuple[FeatureTensors, torch.Tensor]]]


def _split(hand_key: Int64s, config: PopulationTrainConfig) -> tuple[Int64s, Int64s]:
    """The run's training and validation rows: :func:`split_hands`, then
    :func:`cap_validation` (both paths, so they train and score the same rows)."""
    train_rows, val_rows = split_hands(hand_key, (config.val_fraction,), config.seed)
    return cap_validation(hand_key, train_rows, val_rows, config.max_val_rows, config.seed)


def _memory_rows(
    config: PopulationTrainConfig, device: torch.device, resume: bool, on_data: Progress | None
) -> _TrainingRows:
    """Every row in memory (``data.npz``), batches from a seeded permutation per epoch."""
    dataset, info = prepared_data(config, resume=resume, progress=on_data)
    train_rows, val_rows = _split(dataset.hand_key, config)
    fingerprint = dataset.fingerprint
    train_data, val_data = dataset.subset(train_rows), dataset.subset(val_rows)
    del dataset  # the two parts are copies: keep memory at one copy of the rows
    train = FeatureTensors.of(train_data.features, device)
    target = torch.as_tensor(train_data.target, dtype=torch.long, device=device)
    steps_per_epoch = len(train) // config.batch_size

    def batches(epoch: int, first: int) -> Iterator[tuple[FeatureTensors, torch.Tensor]]:
        order = epoch_order(config.seed, epoch, len(train)).to(device)
        for step in range(first, steps_per_epoch):
            rows = order[step * config.batch_size : (step + 1) * config.batch_size]
            yield train.rows(rows), target[rows]

    return _TrainingRows(
        size=train_data.size,
        steps_per_epoch=steps_per_epoch,
        fingerprint=fingerprint,
        info=info,
        val_data=val_data,
        baselines=Baselines.fit(train_data),
        sizes=size_representatives(train_data),
        batches=batches,
    )


def _streamed_rows(
    config: PopulationTrainConfig, device: torch.device, resume: bool, on_data: Progress | None
) -> _TrainingRows:
    """Rows in shards: the hand split from the hand keys alone, the baselines and raise
    sizes gathered shard by shard, the validation rows read into memory, batches streamed."""
    manifest, info = prepared_shards(config, resume=resume, progress=on_data)
    train_rows, val_rows = _split(manifest.column("hand_key"), config)
    by_shard = manifest.by_shard(train_rows)
    keys, targets, fractions = [], [], []
    for shard, local in enumerate(by_shard):
        arrays = manifest.read(shard, ("features_public", "target", "fraction"), local)
        keys.append(context_keys(arrays["features_public"]))
        targets.append(arrays["target"])
        fractions.append(arrays["fraction"])
    target, fraction = np.concatenate(targets), np.concatenate(fractions)
    stream = ShardStream(
        manifest,
        by_shard,
        batch_size=config.batch_size,
        shuffle_buffer=config.shuffle_buffer,
        seed=config.seed,
        device=device,
    )

    def batches(epoch: int, first: int) -> Iterator[tuple[FeatureTensors, torch.Tensor]]:
        stream.epoch, stream.start_batch = epoch, first
        return iter(stream)

    return _TrainingRows(
        size=int(train_rows.size),
        steps_per_epoch=len(stream),
        fingerprint=manifest.fingerprint,
        info=info,
        val_data=manifest.select(val_rows),
        baselines=Baselines.fit_keys(np.concatenate(keys), target),
        sizes=size_fractions(target, fraction),
        batches=batches,
    )


def train_population(
    config: PopulationTrainConfig,
    *,
    resume: bool = False,
    on_step: StepCallback | None = None,
    on_epoch: EpochCallback | None = None,
    on_data: Progress | None = None,
) -> TrainResult:
    """Run (or resume) the training ``config`` describes; see the module docstring.

    With ``config.devices`` above one the run is data-parallel in that many processes
    (:func:`~poolshark.training.distributed.launch`); the callbacks are not called then.
    """
    _check_device(config.device)
    world = current()
    out = Path(config.out)
    last_path, best_path = out / "last.pt", out / "best.pt"
    started_rounds = sorted(out.glob("em-*/last.pt"))
    if not resume and (last_path.exists() or started_rounds):
        first = last_path if last_path.exists() else started_rounds[0]
        raise PopulationTrainingError(
            f"{str(first)!r} exists: pass resume to continue that run, or choose a new out"
        )
    if config.devices > 1 and not world.active:
        return launch(_train_in_process, config.devices, config, resume, device=config.device)
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    device_name = process_device(config.device, world)
    device = torch.device(device_name)
    rounds: list[dict[str, Any]] = []
    if config.em_rounds:
        imputer, rounds = _em_rounds(config, on_step=on_step, on_epoch=on_epoch, on_data=on_data)
        config = config.model_copy(update={"imputer": imputer})
        resume = resume and last_path.exists()
    if resume and not last_path.exists():
        raise PopulationTrainingError(f"nothing to resume: no {str(last_path)!r}")
    if not world.is_main:
        world.barrier()  # the main process builds the row caches first; the others read them
    try:
        data = (_streamed_rows if config.stream else _memory_rows)(config, device, resume, on_data)
    except ShardError as error:
        raise PopulationTrainingError(str(error)) from None
    finally:
        if world.is_main:
            world.barrier()
    fingerprint, info, val_data = data.fingerprint, data.info, data.val_data
    if data.size < config.batch_size:
        raise PopulationTrainingError(
            f"only {data.size} training rows for batches of {config.batch_size}"
        )
    if val_data.imputed.all():
        raise PopulationTrainingError(
            f"none of the {val_data.size} validation rows has observed hole cards to pick the "
            "best epoch by (imputed cards are never scored): use more hands or a larger "
            "val_fraction"
        )
    baselines, sizes = data.baselines, data.sizes

    torch.manual_seed(config.seed)
    equity_arch, equity_hyper, equity_state = _equity_part(config)
    model = PopulationNet(
        width=config.width,
        depth=config.depth,
        class_embedding=config.class_embedding,
        opponent_width=config.opponent_width,
        dropout=config.dropout,
        equity_arch=equity_arch,
        equity_hyperparameters=equity_hyper,
    )
    if model.equity is not None and equity_state is not None:
        model.equity.load_state_dict(equity_state)
    model.to(device)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(
        trainable, lr=config.learning_rate, weight_decay=config.weight_decay
    )
    steps_per_epoch = data.steps_per_epoch
    total_steps = steps_per_epoch * config.epochs
    state: dict[str, Any] = {
        "epoch": 0,
        "step_in_epoch": 0,
        "global_step": 0,
        "loss_sum": 0.0,
        "best_nll": math.inf,
        "best_epoch": 0,
        "selection": SELECTION,
        "stale_epochs": 0,
        "history": [],
        "seconds": 0.0,
    }
    if resume:
        state = _restore(config, device_name, fingerprint, last_path, model, optimizer, state)

    log = ScalarLog(out / "tensorboard" if world.is_main else None)
    trained = world.wrap(model)

    def checkpoint(path: Path, payload_state: dict[str, Any]) -> None:
        if not world.is_main:
            world.barrier()
            return
        save_atomic(
            {
                "kind": CHECKPOINT_KIND,
                "format": CHECKPOINT_FORMAT,
                "hyperparameters": model.hyperparameters(),
                "config": config.model_dump(mode="json"),
                "range_source": config.range_spec(),
                "size_fractions": sizes,
                "data_fingerprint": fingerprint,
                "data": info,
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
    session_start = time.perf_counter()
    trained_rows = 0
    stopped_early = False
    model.train()
    try:
        while int(state["epoch"]) < config.epochs:
            epoch = int(state["epoch"])
            window_loss, window_steps = 0.0, 0
            resume_at = int(state["step_in_epoch"])
            batches = data.batches(epoch, resume_at)
            for step, (features, labels) in enumerate(batches, start=resume_at):
                rate = _learning_rate(
                    config.learning_rate, config.schedule, int(state["global_step"]), total_steps
                )
                for group in optimizer.param_groups:
                    group["lr"] = rate
                if world.active:
                    mine = world.local_rows(torch.arange(len(labels), device=labels.device))
                    count = world.global_count(torch.tensor(float(len(mine)), device=device))
                    with autocast(device, config.precision):
                        logits = trained(features.rows(mine))
                    loss = masked_nll(logits.float(), labels[mine], count)
                else:
                    with autocast(device, config.precision):
                        logits = model(features)
                    loss = masked_nll(logits.float(), labels)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()  # type: ignore[no-untyped-call]
                optimizer.step()
                value = world.mean(float(loss.detach()))
                state["loss_sum"] = float(state["loss_sum"]) + value
                state["global_step"] = int(state["global_step"]) + 1
                state["step_in_epoch"] = step + 1
                trained_rows += len(labels)
                window_loss += value
                window_steps += 1
                if window_steps == config.log_every:
                    log.scalar("train/nll", window_loss / window_steps, state["global_step"])
                    log.scalar("train/learning_rate", rate, state["global_step"])
                    window_loss, window_steps = 0.0, 0
                if on_step is not None and world.is_main:
                    on_step(int(state["global_step"]), total_steps)
                if int(state["global_step"]) % config.checkpoint_every == 0:
                    state["seconds"] = time.perf_counter() - started
                    checkpoint(last_path, state)
                    log.flush()
            probabilities = predict(model, val_data, device_name)
            figures = score(probabilities, val_data)
            selection = selection_nll(probabilities, val_data)
            entry = {
                "epoch": float(epoch + 1),
                "train_nll": float(state["loss_sum"]) / max(1, steps_per_epoch),
                "val_nll": figures["nll"],
                "val_nll_observed": selection,
                "val_accuracy": figures["accuracy"],
            }
            if "kl" in figures:
                entry["val_kl"] = figures["kl"]
                entry["val_kl_moves"] = figures["kl_moves"]
            state["history"] = [*state["history"], entry]
            for key, value in entry.items():
                if key != "epoch":
                    log.scalar(f"epoch/{key}", value, epoch + 1)
            if on_epoch is not None and world.is_main:
                on_epoch(entry)
            improved = selection < float(state["best_nll"])
            state.update(
                epoch=epoch + 1,
                step_in_epoch=0,
                loss_sum=0.0,
                seconds=time.perf_counter() - started,
                best_nll=selection if improved else state["best_nll"],
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

    validation = None
    if best_path.exists():
        best_model, _ = load_population_net(best_path, device_name)
        validation = evaluate(best_model, val_data, baselines, device_name)
    session_seconds = time.perf_counter() - session_start
    return TrainResult(
        parameters=count_parameters(model),
        train_rows=data.size,
        val_rows=val_data.size,
        epochs_run=int(state["epoch"]),
        best_epoch=int(state["best_epoch"]),
        data=info,
        validation=validation,
        history=list(state["history"]),
        seconds=time.perf_counter() - started,
        rows_per_s=trained_rows / session_seconds if session_seconds > 0 else 0.0,
        stopped_early=stopped_early,
        best_checkpoint=str(best_path),
        last_checkpoint=str(last_path),
        em_rounds=rounds,
    )


def _em_rounds(
    config: PopulationTrainConfig,
    *,
    on_step: StepCallback | None,
    on_epoch: EpochCallback | None,
    on_data: Progress | None,
) -> tuple[str, list[dict[str, Any]]]:
    """Train the EM rounds of ``config`` (each resumed where it stopped); the imputer spec
    of the final run (the last round's model) and each round's figures."""
    imputer = config.imputer or "uniform"
    rounds: list[dict[str, Any]] = []
    for number in range(config.em_rounds):
        folder = Path(config.out) / f"em-{number}"
        round_config = config.model_copy(update={"out": folder, "imputer": imputer, "em_rounds": 0})
        started = time.perf_counter()
        result = train_population(
            round_config,
            resume=(folder / "last.pt").exists(),
            on_step=on_step,
            on_epoch=on_epoch,
            on_data=on_data,
        )
        rounds.append(
            {
                "round": number,
                "imputer": imputer,
                "checkpoint": result.best_checkpoint,
                "val_nll": result.validation["model"]["nll"] if result.validation else None,
                "val_nll_observed": result.history[result.best_epoch - 1]["val_nll_observed"]
                if result.best_epoch
                else None,
                "build_seconds": result.data.get("build_seconds"),
                "seconds": time.perf_counter() - started,
            }
        )
        imputer = f"model:{result.best_checkpoint}"
        if number == 0 and config.em_power != 1.0:
            imputer += f"?power={config.em_power:g}"
    return imputer, rounds


def _train_in_process(config: PopulationTrainConfig, resume: bool) -> TrainResult:
    """One process of a data-parallel run (what :func:`launch` runs)."""
    return train_population(config, resume=resume)


def _restore(
    config: PopulationTrainConfig,
    device: str,
    fingerprint: str,
    path: Path,
    model: PopulationNet,
    optimizer: torch.optim.Optimizer,
    state: dict[str, Any],
) -> dict[str, Any]:
    """Load ``last.pt`` into the model and optimizer; the run state to continue from."""
    payload = read_checkpoint(path, device)
    if payload.get("selection") != SELECTION:
        raise PopulationTrainingError(
            f"{str(path)!r} picked its best epoch by the NLL of every validation row, imputed "
            "cards included (before issue 17): it cannot be resumed; start a new run"
        )
    restore_run(
        payload, path, config, _RESUMABLE_CHANGES, model, optimizer,
        PopulationTrainingError, fingerprint,
    )  # fmt: skip
    return {key: payload[key] for key in state}


# -- evaluation of a checkpoint on new data ----------------------------------------------------


def evaluate_checkpoint(
    checkpoint: Path,
    data: DataConfig,
    *,
    device: str = "cpu",
    seed: int = 0,
    threads: int | None = None,
) -> dict[str, Any]:
    """A saved model on new data built with its own range source: its figures, and the
    baselines' fitted on the first half of the new hands and scored, with the model, on the
    second half. ``threads``: torch CPU threads (None: torch's default)."""
    _check_device(device)
    if threads is not None:
        torch.set_num_threads(threads)
    model, payload = load_population_net(checkpoint, device)
    spec = str(payload["range_source"])
    data = data.model_copy(update={"ranges": spec})
    dataset, info = build_dataset(data, seed=seed)
    fit_rows, test_rows = split_hands(dataset.hand_key, (0.5,), seed)
    fit, test = dataset.subset(fit_rows), dataset.subset(test_rows)
    report = evaluate(model, test, Baselines.fit(fit), device)
    return {
        "checkpoint": str(checkpoint),
        "range_source": spec,
        "rows": test.size,
        "baseline_rows": fit.size,
        "data": info,
        **report,
    }
