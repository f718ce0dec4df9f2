"""Training and evaluation of the range oracle: one validated config, resumable runs.

Long module: the config, evaluation, the in-memory and streamed data sources and the one
training loop that both feed belong together.

Data comes from one of three places: a pool simulated in-process (``pool`` and ``hands``;
the validation hands are simulated from the next seed and carry the exact pool posterior),
ingested decision rows (``rows``, a ``poolshark ingest`` folder; a share of the hands held
out), or a dataset file written by ``poolshark oracle data`` (``data``, optionally
``val_data``).

The loss of a batch (:func:`oracle_loss`) is the mean negative log-likelihood of the
labelled examples' true combos, plus ``batch_weight`` times the KL divergence from the
average uniform deal (each example uniform over its unblocked combos) to the average
prediction, both over the batch's questions that are not selected on the seat's cards
(end of hand, or before the seat's first action: only there does the true posterior
average to the deal), which keeps mass on hands that are rarely labelled. Mode
``all`` labels every example whose combo is known (synthetic truth); mode ``shown`` only
those shown at showdown, as real histories allow.

Batches are whole hands (all questions about a hand share its action scores); each epoch's
hand order is a permutation fixed by ``(seed, epoch)``. With ``stream`` the hands come
from shards of whole hands instead (:mod:`poolshark.oracle.shards`), shuffled by shard
and by fills of ``shuffle_buffer`` hands, so memory is bounded by those sizes; the
validation data stays in memory. ``last.pt`` is written atomically
every ``checkpoint_every`` steps and after every epoch with the model, optimizer, random
state and counters; ``best.pt`` holds the epoch with the lowest validation NLL (in mode
``shown``, of the shown hands); a resumed run ends bit for bit where an unbroken one does.
Checkpoints are plain dicts (``"kind": "range-oracle"``) read with
``torch.load(weights_only=True)``, carrying the config and the data fingerprint. Scalars
go to TensorBoard event files under ``<out>/tensorboard``.
"""

from __future__ import annotations

import hashlib
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

from poolshark.histories.ingest import scan_rows
from poolshark.oracle.batches import example_starts, make_batch
from poolshark.oracle.data import OracleData, from_rows, from_simulation, load_data, rank_percentile
from poolshark.oracle.loss import batch_loss
from poolshark.oracle.model import (
    CHECKPOINT_FORMAT,
    CHECKPOINT_KIND,
    BatchTensors,
    OracleNet,
    build_oracle,
    read_oracle_checkpoint,
)
from poolshark.oracle.shards import (
    SHARD_HANDS,
    SHUFFLE_HANDS,
    OracleStream,
    held_out,
    is_shard_folder,
    open_oracle_shards,
    read_all,
    read_hands,
    simulate_shards,
)
from poolshark.pool.pools import load_pool
from poolshark.pool.simulate import simulate
from poolshark.training.common import (
    Precision,
    autocast,
    check_device_name,
    check_run_folder,
    count_parameters,
    require_device,
    restore_run,
    save_atomic,
)
from poolshark.training.distributed import current, launch, process_device
from poolshark.training.shards import MANIFEST, ShardSet
from poolshark.training.tensorboard import ScalarLog

STREETS = ("preflop", "flop", "turn", "river")
_RESUMABLE_CHANGES = ("out", "device", "threads", "rows", "data", "val_data", "devices")
"""Config keys a resumed run may change (the data fingerprint guards the data itself)."""
EVAL_HANDS = 256
SIM_TABLES = 16
"""Tables a run's hands are played on. A simulation returns hands as they finish, so the
hands still running when it stops (one per table, longer than most) are missing: few tables
keep that bias small (16 tables simulate as fast as 256)."""

Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]
Int64s = npt.NDArray[np.int64]


class OracleTrainingError(ValueError):
    """A run that cannot start or resume as asked; the message says why."""


class OracleTrainConfig(BaseModel):
    """Everything that defines a range-oracle training run (TOML keys of the same names).

    Data: exactly one of ``pool`` (with ``hands``; ``val_hands`` validation hands are
    simulated with seed ``data_seed + 1``), ``rows`` or ``data``. ``mode``: ``all`` or
    ``shown`` labels; ``batch_weight`` of the batch term (None: 1 for ``shown``, 0 for
    ``all``). Network: ``hidden``, ``layers``, ``preflop_width``, ``combo_width``,
    ``components`` (:class:`~poolshark.oracle.model.OracleNet`). ``precision`` ``bf16``:
    the training forward pass under bfloat16 autocast (loss and evaluation in float32).
    ``stream``: train from shards of whole hands (:mod:`poolshark.oracle.shards`) read as
    fills of at least ``shuffle_buffer`` hands, never all in memory: ``data`` a shard folder,
    or a ``pool`` simulated ``shard_hands`` hands at a time into ``<out>/shards``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    out: Path
    pool: str | None = None
    hands: int | None = Field(None, ge=10)
    val_hands: int = Field(5000, ge=10)
    data_seed: int = Field(0, ge=0)
    asker: Literal["opponent", "none"] = "opponent"
    rows: Path | None = None
    data: Path | None = None
    val_data: Path | None = None
    val_fraction: float = Field(0.1, gt=0.0, lt=0.5)
    mode: Literal["all", "shown"] = "all"
    batch_weight: float | None = Field(None, ge=0.0, le=1000.0)
    hidden: int = Field(128, ge=4, le=4096)
    layers: int = Field(1, ge=1, le=8)
    preflop_width: int = Field(256, ge=4, le=8192)
    combo_width: int = Field(32, ge=4, le=4096)
    components: int = Field(8, ge=1, le=64)
    epochs: int = Field(1, ge=1, le=10_000)
    batch_hands: int = Field(64, ge=1, le=1 << 16)
    learning_rate: float = Field(8e-3, gt=0.0, le=1.0)
    weight_decay: float = Field(0.0, ge=0.0, le=1.0)
    schedule: Literal["cosine", "constant"] = "cosine"
    seed: int = Field(0, ge=0)
    device: str = "cpu"
    threads: int | None = Field(None, ge=1, le=1024)
    devices: int = Field(1, ge=1, le=64)
    precision: Precision = "fp32"
    checkpoint_every: int = Field(500, ge=1)
    log_every: int = Field(50, ge=1)
    eval_every: int | None = Field(None, ge=1)
    stream: bool = False
    shuffle_buffer: int = Field(SHUFFLE_HANDS, ge=1)
    shard_hands: int = Field(SHARD_HANDS, ge=1)

    @field_validator("device")
    @classmethod
    def _known_device(cls, value: str) -> str:
        return check_device_name(value)

    @model_validator(mode="after")
    def _one_source(self) -> OracleTrainConfig:
        given = [name for name in ("pool", "rows", "data") if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one data source of pool, rows, data (got {given})")
        if self.pool is not None and self.hands is None:
            raise ValueError("a pool source needs hands (how many to simulate)")
        if self.pool is None and self.hands is not None:
            raise ValueError("hands only applies to a pool source")
        if self.rows is not None and self.mode == "all":
            raise ValueError("decision rows only know shown hole cards: use mode 'shown'")
        if self.stream and self.rows is not None:
            raise ValueError(
                "stream takes a pool or a shard folder as data, not rows (write the rows'"
                " examples to shards first: poolshark oracle data --rows ... --shard-hands K)"
            )
        if self.stream and self.data is not None and not is_shard_folder(self.data):
            raise ValueError(f"stream needs data to be a shard folder, not {str(self.data)!r}")
        return self

    @classmethod
    def from_toml(cls, path: Path, **overrides: Any) -> OracleTrainConfig:
        """Load a TOML file; ``overrides`` (not None) replace its keys. Errors name the file."""
        try:
            document = tomllib.loads(Path(path).read_text())
        except OSError as error:
            raise OracleTrainingError(
                f"cannot read config {str(path)!r}: {error.strerror}"
            ) from None
        except tomllib.TOMLDecodeError as error:
            raise OracleTrainingError(f"config {str(path)!r} is not valid TOML: {error}") from None
        document.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(document)

    @property
    def effective_batch_weight(self) -> float:
        """The batch term's weight (the mode's default when not given)."""
        if self.batch_weight is not None:
            return self.batch_weight
        return 1.0 if self.mode == "shown" else 0.0

    def model_hyperparameters(self) -> dict[str, Any]:
        """Constructor arguments of the network."""
        return {
            "hidden": self.hidden,
            "layers": self.layers,
            "preflop_width": self.preflop_width,
            "combo_width": self.combo_width,
            "components": self.components,
        }


# -- evaluation -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class OracleReport:
    """How well an oracle names the true hands of some examples, next to the uniform deal
    and (on simulated pools) the exact posterior. NLLs in nats; ``probability``: the mean
    probability given to the true combo; ``rank``: its mean rank percentile (1/n the top,
    about 0.5 uniform); ``gap`` = NLL - exact NLL. ``by_street`` and ``by_kind``
    (``decision``: before one of the seat's actions, ``end``: after the hand) hold the same
    figures for parts; ``shown`` for the examples whose cards were shown."""

    examples: int
    nll: float
    uniform_nll: float
    exact_nll: float | None
    gap: float | None
    probability: float
    exact_probability: float | None
    uniform_probability: float
    rank: float
    exact_rank: float | None
    by_street: dict[str, dict[str, Any]] = field(default_factory=dict)
    by_kind: dict[str, dict[str, Any]] = field(default_factory=dict)
    shown: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return {
            "examples": self.examples,
            "nll": self.nll,
            "uniform_nll": self.uniform_nll,
            "exact_nll": self.exact_nll,
            "gap": self.gap,
            "probability": self.probability,
            "exact_probability": self.exact_probability,
            "uniform_probability": self.uniform_probability,
            "rank": self.rank,
            "exact_rank": self.exact_rank,
            "by_street": self.by_street,
            "by_kind": self.by_kind,
            "shown": self.shown,
        }


def _summary(
    model_logp: Floats,
    model_rank: Floats,
    uniform_logp: Floats,
    exact_logp: Floats,
    exact_rank: Floats,
    rows: Bools,
) -> dict[str, Any]:
    """The report's figures over the examples ``rows``."""
    count = int(rows.sum())
    if count == 0:
        return {"examples": 0}
    exact = not bool(np.isnan(exact_logp[rows]).any())
    nll = float(-model_logp[rows].mean())
    exact_nll = float(-exact_logp[rows].mean()) if exact else None
    return {
        "examples": count,
        "nll": nll,
        "uniform_nll": float(-uniform_logp[rows].mean()),
        "exact_nll": exact_nll,
        "gap": nll - exact_nll if exact_nll is not None else None,
        "probability": float(np.exp(model_logp[rows]).mean()),
        "exact_probability": float(np.exp(exact_logp[rows]).mean()) if exact else None,
        "uniform_probability": float(np.exp(uniform_logp[rows]).mean()),
        "rank": float(model_rank[rows].mean()),
        "exact_rank": float(exact_rank[rows].mean()) if exact else None,
    }


@torch.no_grad()
def evaluate_oracle(
    net: OracleNet, data: OracleData, *, device: str = "cpu", batch_hands: int = EVAL_HANDS
) -> OracleReport:
    """Score ``net`` on every example of ``data`` whose true combo is known (eval mode)."""
    was_training = net.training
    net.eval()
    n = len(data)
    model_logp = np.full(n, np.nan)
    model_rank = np.full(n, np.nan)
    uniform_logp = np.full(n, np.nan)
    starts = example_starts(data)
    for first in range(0, data.hands, batch_hands):
        hands = np.arange(first, min(first + batch_hands, data.hands))
        batch = make_batch(data, hands, starts)
        known = batch.combo >= 0
        if not known.any():
            continue
        log_probs = net(BatchTensors.of(batch, device)).double().cpu().numpy()
        rows, combos = np.flatnonzero(known), batch.combo[known]
        examples = batch.examples[known]
        model_logp[examples] = log_probs[rows, combos]
        model_rank[examples] = rank_percentile(log_probs[rows], combos, ~batch.blocked[rows])
        uniform_logp[examples] = -np.log((~batch.blocked[rows]).sum(axis=1))
    net.train(was_training)
    labelled = data.example_combo >= 0
    if not labelled.any():
        raise OracleTrainingError("no example with a known true combo to evaluate on")
    exact_logp = data.exact_logp.astype(np.float64)
    exact_rank = data.exact_rank.astype(np.float64)
    figures = (model_logp, model_rank, uniform_logp, exact_logp, exact_rank)
    overall = _summary(*figures, labelled)
    street = data.example_street
    by_street = {
        name: _summary(*figures, labelled & (street == s))
        for s, name in enumerate(STREETS)
        if (labelled & (street == s)).any()
    }
    by_kind = {
        "decision": _summary(*figures, labelled & ~data.example_end),
        "end": _summary(*figures, labelled & data.example_end),
    }
    shown = labelled & data.example_shown
    return OracleReport(
        examples=overall["examples"],
        nll=overall["nll"],
        uniform_nll=overall["uniform_nll"],
        exact_nll=overall["exact_nll"],
        gap=overall["gap"],
        probability=overall["probability"],
        exact_probability=overall["exact_probability"],
        uniform_probability=overall["uniform_probability"],
        rank=overall["rank"],
        exact_rank=overall["exact_rank"],
        by_street=by_street,
        by_kind=by_kind,
        shown=_summary(*figures, shown) if shown.any() else None,
    )


# -- data -------------------------------------------------------------------------------------


ProgressCallback = Callable[[str, int, int], None]
"""Called as ``progress(stage, done, total)`` while data is prepared."""


def load_training_data(
    config: OracleTrainConfig, progress: ProgressCallback | None = None
) -> tuple[OracleData, OracleData]:
    """(train, validation) data of a run, as its config says."""
    if config.pool is not None:
        assert config.hands is not None
        pool = load_pool(config.pool)
        hands = simulate(pool, config.hands, seed=config.data_seed, tables=SIM_TABLES)
        train = from_simulation(
            hands,
            exact=False,
            asker=config.asker,
            seed=config.data_seed,
            progress=_stage(progress, "train examples"),
        )
        return train, _simulated_validation(config, progress)
    if config.rows is not None:
        if not Path(config.rows).is_dir():
            raise OracleTrainingError(f"no ingest folder at {str(config.rows)!r}")
        data = from_rows(scan_rows(config.rows))
        return data.split(config.val_fraction, seed=config.data_seed)
    assert config.data is not None
    data = load_any(config.data)
    if config.val_data is not None:
        return data, load_any(config.val_data)
    return data.split(config.val_fraction, seed=config.data_seed)


def load_any(path: Path) -> OracleData:
    """A dataset file (:func:`~poolshark.oracle.data.load_data`) or every hand of a shard
    folder, in memory."""
    return read_all(open_oracle_shards(path)) if is_shard_folder(path) else load_data(path)


def _simulated_validation(
    config: OracleTrainConfig, progress: ProgressCallback | None
) -> OracleData:
    """The validation hands of a pool source: seed ``data_seed + 1``, exact posteriors."""
    held = simulate(
        load_pool(str(config.pool)), config.val_hands, seed=config.data_seed + 1, tables=SIM_TABLES
    )
    return from_simulation(
        held,
        exact=True,
        asker=config.asker,
        seed=config.data_seed + 1,
        progress=_stage(progress, "validation posteriors"),
    )


@dataclass(frozen=True)
class StreamedData:
    """A streamed run's data: its shards, the hands of each to train on, the validation
    data (in memory) and the number of training examples."""

    shards: ShardSet
    train_rows: list[Int64s]
    val: OracleData
    train_examples: int

    @property
    def fingerprint(self) -> str:
        """One identity for the shards, the hands trained on and the validation data."""
        digest = hashlib.sha256(f"{self.shards.fingerprint}:{self.val.fingerprint}".encode())
        for rows in self.train_rows:
            digest.update(np.ascontiguousarray(rows).tobytes())
            digest.update(b"|")
        return digest.hexdigest()


def prepare_shards(config: OracleTrainConfig, progress: ProgressCallback | None = None) -> Path:
    """The shard folder a streamed run trains from: ``data``, or for a pool ``<out>/shards``,
    simulated now unless a complete one of the same pool, hands, seed and asker is there
    (a resumed run's)."""
    if config.data is not None:
        return Path(config.data)
    folder = Path(config.out) / "shards"
    wanted = {"pool": load_pool(str(config.pool)).name, "hands": config.hands,
              "seed": config.data_seed, "asker": config.asker}  # fmt: skip
    if (folder / MANIFEST).exists():
        found = open_oracle_shards(folder).fields
        if any(found.get(key) != value for key, value in wanted.items()):
            raise OracleTrainingError(
                f"{str(folder)!r} holds shards of other hands ({found.get('source')!r}):"
                " choose a new out"
            )
        return folder
    simulate_shards(
        load_pool(str(config.pool)),
        int(config.hands or 0),
        folder,
        seed=config.data_seed,
        shard_hands=config.shard_hands,
        tables=SIM_TABLES,
        asker=config.asker,
        progress=_stage(progress, "train shards"),
    )
    return folder


def load_streamed_data(
    config: OracleTrainConfig, progress: ProgressCallback | None = None
) -> StreamedData:
    """A streamed run's shards (:func:`prepare_shards`) and validation data: the pool's
    validation hands, ``val_data``, or ``val_fraction`` of the shards' hands held out as
    :meth:`~poolshark.oracle.data.OracleData.split` would hold them out."""
    shards = open_oracle_shards(prepare_shards(config, progress))
    examples = int(shards.fields["examples"])
    if config.pool is not None:
        rows = [np.arange(n, dtype=np.int64) for n in shards.shard_rows]
        return StreamedData(shards, rows, _simulated_validation(config, progress), examples)
    if config.val_data is not None:
        rows = [np.arange(n, dtype=np.int64) for n in shards.shard_rows]
        return StreamedData(shards, rows, load_any(config.val_data), examples)
    train_rows, val_rows = held_out(shards, config.val_fraction, config.data_seed)
    val = read_hands(shards, val_rows)
    return StreamedData(shards, train_rows, val, examples - len(val))


def _stage(progress: ProgressCallback | None, stage: str) -> Callable[[int, int], None] | None:
    if progress is None:
        return None
    report = progress
    return lambda done, total: report(stage, done, total)


def data_fingerprint(train: OracleData, val: OracleData) -> str:
    """One identity for a run's training and validation data."""
    return hashlib.sha256(f"{train.fingerprint}:{val.fingerprint}".encode()).hexdigest()


# -- training ---------------------------------------------------------------------------------


@dataclass
class OracleTrainResult:
    """What a finished run reports."""

    parameters: int
    train_hands: int
    train_examples: int
    val_hands: int
    epochs_run: int
    steps: int
    best_epoch: int
    best_val: OracleReport | None
    history: list[dict[str, float]] = field(default_factory=list)
    seconds: float = 0.0
    hands_per_s: float = 0.0
    best_checkpoint: str = ""
    last_checkpoint: str = ""

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict (the CLI's ``--json`` object)."""
        return {
            "parameters": self.parameters,
            "train_hands": self.train_hands,
            "train_examples": self.train_examples,
            "val_hands": self.val_hands,
            "epochs_run": self.epochs_run,
            "steps": self.steps,
            "best_epoch": self.best_epoch,
            "best_val": None if self.best_val is None else self.best_val.to_json(),
            "history": self.history,
            "seconds": self.seconds,
            "hands_per_s": self.hands_per_s,
            "best_checkpoint": self.best_checkpoint,
            "last_checkpoint": self.last_checkpoint,
        }


StepCallback = Callable[[int, int], None]
"""Called as ``on_step(step, total_steps)``."""
EvalCallback = Callable[[dict[str, float]], None]
"""Called with each history entry (every evaluation)."""


def _learning_rate(config: OracleTrainConfig, step: int, total: int) -> float:
    if config.schedule == "constant":
        return config.learning_rate
    return config.learning_rate * 0.5 * (1.0 + math.cos(math.pi * min(step, total) / total))


def _epoch_order(seed: int, epoch: int, n: int) -> npt.NDArray[np.int64]:
    """The hand order of one epoch: a permutation fixed by (seed, epoch)."""
    order: npt.NDArray[np.int64] = np.random.default_rng([seed, epoch]).permutation(n)
    return order


def _check_device(device: str) -> None:
    require_device(device, OracleTrainingError)


def check_run(config: OracleTrainConfig, *, sources: bool = True) -> None:
    """Refuse early what would fail after the data is built: a missing GPU, a missing
    ingest folder or dataset file (with ``sources``)."""
    _check_device(config.device)
    if not sources:
        return
    if config.rows is not None and not Path(config.rows).is_dir():
        raise OracleTrainingError(f"no ingest folder at {str(config.rows)!r}")
    for path in (config.data, config.val_data):
        if path is not None and not Path(path).exists():
            raise OracleTrainingError(f"no oracle dataset at {str(path)!r}")


def _entry(report: OracleReport, epoch: float, step: int, hands_seen: int) -> dict[str, float]:
    """A history entry from a validation report."""
    entry = {
        "epoch": epoch,
        "step": float(step),
        "hands_seen": float(hands_seen),
        "val_nll": report.nll,
        "val_uniform_nll": report.uniform_nll,
        "val_rank": report.rank,
        "val_probability": report.probability,
    }
    if report.gap is not None:
        entry["val_gap"] = report.gap
    for name, figures in report.by_street.items():
        if figures.get("gap") is not None:
            entry[f"val_gap_{name}"] = figures["gap"]
        entry[f"val_nll_{name}"] = figures["nll"]
    return entry


def _selection_nll(report: OracleReport, mode: str) -> float:
    """The validation NLL that picks ``best.pt``: over the labels the mode may use (in mode
    ``shown``, the shown hands only, even where the validation data knows more)."""
    if mode == "shown" and report.shown is not None:
        return float(report.shown["nll"])
    return report.nll


def train_oracle(
    config: OracleTrainConfig,
    *,
    resume: bool = False,
    data: tuple[OracleData, OracleData] | None = None,
    on_step: StepCallback | None = None,
    on_eval: EvalCallback | None = None,
    progress: ProgressCallback | None = None,
) -> OracleTrainResult:
    """Run (or resume) the training ``config`` describes; see the module docstring.

    ``data`` (train, validation) skips loading it from the config's source (tests, and
    callers that already hold the data; the fingerprint still guards a resume). With
    ``config.devices`` above one the run is data-parallel in that many processes
    (:func:`~poolshark.training.distributed.launch`, each given ``data`` or loading it,
    each taking its share of every batch's hands); the callbacks are not called then.
    """
    check_run(config, sources=data is None)
    if config.stream and data is not None:
        raise OracleTrainingError("a streamed run reads its data from shards: pass no data")
    world = current()
    if config.stream and config.pool is not None and not world.active:
        prepare_shards(config, progress)  # once, before any process of a parallel run reads
    if config.devices > 1 and not world.active:
        check_run_folder(Path(config.out) / "last.pt", resume, OracleTrainingError)
        return launch(_train_in_process, config.devices, config, resume, data, device=config.device)
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    device_name = process_device(config.device, world)
    device = torch.device(device_name)
    stream: OracleStream | None = None
    if config.stream:
        streamed = load_streamed_data(config, progress)
        stream = OracleStream(
            streamed.shards,
            streamed.train_rows,
            batch_size=config.batch_hands,
            shuffle_buffer=config.shuffle_buffer,
            seed=config.seed,
        )
        val, fingerprint = streamed.val, streamed.fingerprint
        train_hands, train_examples, source = stream.rows, streamed.train_examples, stream.source
    else:
        train, val = data if data is not None else load_training_data(config, progress)
        fingerprint = data_fingerprint(train, val)
        train_hands, train_examples, source = train.hands, len(train), train.source
        starts = example_starts(train)
    if train_hands < config.batch_hands:
        raise OracleTrainingError(
            f"only {train_hands} training hands for batches of {config.batch_hands}"
        )
    out = Path(config.out)
    last_path, best_path = out / "last.pt", out / "best.pt"

    torch.manual_seed(config.seed)
    net = build_oracle(config.model_hyperparameters()).to(device)
    optimizer = torch.optim.AdamW(
        net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
    )
    steps_per_epoch = train_hands // config.batch_hands
    total_steps = steps_per_epoch * config.epochs
    state: dict[str, Any] = {
        "epoch": 0,
        "step_in_epoch": 0,
        "global_step": 0,
        "hands_seen": 0,
        "best_nll": math.inf,
        "best_epoch": 0,
        "history": [],
        "seconds": 0.0,
    }
    if resume:
        state = _restore(config, device_name, fingerprint, last_path, net, optimizer, state)
    elif last_path.exists():
        raise OracleTrainingError(
            f"{str(last_path)!r} exists: pass resume to continue that run, or choose a new out"
        )

    log = ScalarLog(out / "tensorboard" if world.is_main else None)
    weight = config.effective_batch_weight
    trained = world.wrap(net, partial=True)

    def checkpoint(path: Path) -> None:
        if not world.is_main:
            world.barrier()
            return
        save_atomic(
            {
                "kind": CHECKPOINT_KIND,
                "format": CHECKPOINT_FORMAT,
                "hyperparameters": net.hyperparameters(),
                "config": config.model_dump(mode="json"),
                "data_fingerprint": fingerprint,
                "data_source": source,
                "model": net.state_dict(),
                "optimizer": optimizer.state_dict(),
                "torch_rng": torch.get_rng_state(),
                "cuda_rng": torch.cuda.get_rng_state() if device.type == "cuda" else None,
                **state,
            },
            path,
        )
        world.barrier()

    def record(report: OracleReport, epoch: float) -> dict[str, float]:
        entry = _entry(report, epoch, int(state["global_step"]), int(state["hands_seen"]))
        state["history"] = [*state["history"], entry]
        for key, value in entry.items():
            if key.startswith("val_"):
                log.scalar(f"eval/{key}", value, int(state["global_step"]))
        if on_eval is not None and world.is_main:
            on_eval(entry)
        return entry

    started = time.perf_counter() - float(state["seconds"])
    session_start = time.perf_counter()
    session_hands = 0

    def batches(epoch: int, first: int) -> Iterator[tuple[OracleData, Int64s, Int64s]]:
        """(data, hands, example starts) of each batch of an epoch from step ``first``."""
        if stream is not None:
            stream.epoch, stream.start_batch = epoch, first
            for part in stream:
                yield part, np.arange(part.hands, dtype=np.int64), example_starts(part)
            return
        order = _epoch_order(config.seed, epoch, train.hands)
        for step in range(first, steps_per_epoch):
            yield train, order[step * config.batch_hands : (step + 1) * config.batch_hands], starts

    net.train()
    try:
        while int(state["epoch"]) < config.epochs:
            epoch = int(state["epoch"])
            window: list[tuple[float, float, float]] = []
            first = int(state["step_in_epoch"])
            for step, (source_data, hands, hand_starts) in enumerate(
                batches(epoch, first), start=first
            ):
                mine = hands[world.rank :: world.world_size]
                batch = BatchTensors.of(make_batch(source_data, mine, hand_starts), device)
                rate = _learning_rate(config, int(state["global_step"]), total_steps)
                for group in optimizer.param_groups:
                    group["lr"] = rate
                with autocast(device, config.precision):
                    log_probs = trained(batch)
                terms = batch_loss(log_probs.float(), batch, config.mode, weight, world)
                optimizer.zero_grad(set_to_none=True)
                terms.loss.backward()  # type: ignore[no-untyped-call]
                optimizer.step()
                state["global_step"] = int(state["global_step"]) + 1
                state["step_in_epoch"] = step + 1
                state["hands_seen"] = int(state["hands_seen"]) + len(hands)
                session_hands += len(hands)
                window.append(
                    (
                        world.mean(terms.loss.item()),
                        world.mean(terms.nll.item()),
                        terms.batch_kl.item(),
                    )
                )
                global_step = int(state["global_step"])
                if len(window) == config.log_every:
                    means = np.mean(window, axis=0)
                    for tag, value in zip(("loss", "nll", "batch_kl"), means, strict=True):
                        log.scalar(f"train/{tag}", float(value), global_step)
                    log.scalar("train/learning_rate", rate, global_step)
                    window = []
                if on_step is not None and world.is_main:
                    on_step(global_step, total_steps)
                periodic = config.eval_every is not None and global_step % config.eval_every == 0
                if periodic and step + 1 < steps_per_epoch:  # the epoch's end evaluates anyway
                    fraction = epoch + (step + 1) / steps_per_epoch
                    record(evaluate_oracle(net, val, device=device_name), fraction)
                if global_step % config.checkpoint_every == 0:
                    state["seconds"] = time.perf_counter() - started
                    checkpoint(last_path)
                    log.flush()
            report = evaluate_oracle(net, val, device=device_name)
            record(report, float(epoch + 1))
            score = _selection_nll(report, config.mode)
            improved = score < float(state["best_nll"])
            state.update(
                epoch=epoch + 1,
                step_in_epoch=0,
                seconds=time.perf_counter() - started,
                best_nll=score if improved else state["best_nll"],
                best_epoch=epoch + 1 if improved else state["best_epoch"],
            )
            if improved:
                checkpoint(best_path)
            checkpoint(last_path)
            log.flush()
    finally:
        log.close()

    best_val = None
    if best_path.exists():
        best_net, _ = load_oracle_net(best_path, device_name)
        best_val = evaluate_oracle(best_net, val, device=device_name)
    session_seconds = time.perf_counter() - session_start
    return OracleTrainResult(
        parameters=count_parameters(net),
        train_hands=train_hands,
        train_examples=train_examples,
        val_hands=val.hands,
        epochs_run=int(state["epoch"]),
        steps=int(state["global_step"]),
        best_epoch=int(state["best_epoch"]),
        best_val=best_val,
        history=list(state["history"]),
        seconds=time.perf_counter() - started,
        hands_per_s=session_hands / session_seconds if session_seconds > 0 else 0.0,
        best_checkpoint=str(best_path),
        last_checkpoint=str(last_path),
    )


def load_oracle_net(path: Path | str, device: str = "cpu") -> tuple[OracleNet, dict[str, Any]]:
    """The network stored in a checkpoint, in eval mode on ``device``, and the checkpoint."""
    _check_device(device)
    payload = read_oracle_checkpoint(path, device)
    net = build_oracle(dict(payload["hyperparameters"]))
    net.load_state_dict(payload["model"])
    net.to(torch.device(device))
    net.eval()
    return net, payload


def _train_in_process(
    config: OracleTrainConfig, resume: bool, data: tuple[OracleData, OracleData] | None
) -> OracleTrainResult:
    """One process of a data-parallel run (what :func:`launch` runs)."""
    return train_oracle(config, resume=resume, data=data)


def _restore(
    config: OracleTrainConfig,
    device: str,
    fingerprint: str,
    path: Path,
    net: OracleNet,
    optimizer: torch.optim.Optimizer,
    state: dict[str, Any],
) -> dict[str, Any]:
    """Load ``last.pt`` into the network and optimizer; the run state to continue from."""
    if not path.is_file():
        raise OracleTrainingError(f"no checkpoint at {str(path)!r} to resume")
    payload = read_oracle_checkpoint(path, device)
    restore_run(
        payload, path, config, _RESUMABLE_CHANGES, net, optimizer, OracleTrainingError,
        fingerprint,
    )  # fmt: skip
    return {key: payload[key] for key in state}


def evaluate_checkpoint(
    checkpoint: Path, data: OracleData, *, device: str = "cpu"
) -> tuple[OracleReport, dict[str, Any]]:
    """A saved oracle's report on some data; (report, checkpoint info)."""
    net, payload = load_oracle_net(checkpoint, device)
    info = {
        "epoch": int(payload["epoch"]),
        "steps": int(payload["global_step"]),
        "data_fingerprint": payload["data_fingerprint"],
        "trained_on": payload.get("data_source", ""),
        "mode": dict(payload["config"]).get("mode"),
    }
    return evaluate_oracle(net, data, device=device), info
