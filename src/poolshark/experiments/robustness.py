"""Edge against model error: how much an exploiter wins from the true pool as the population
model it trained on gets worse, for the plain exploiter and the safe (KL-regularized) one.

Each *point* is a population model of known quality: ``hands`` hands of the pool are
simulated and written as PokerStars text, ingested, and a population model is fitted on
the rows with the hidden hole cards drawn by ``imputer`` (exactly the demo's route,
:mod:`poolshark.experiments.pipeline`). Fewer hands give a noisier model; the ``uniform``
imputer gives a biased one (folded hands look like random cards). The model's error is
measured on other hands of the pool with every card known: the mean KL divergence per
decision from the pool's exact average-player policy to the model (nats). Against each
model a plain PPO exploiter and a safe one (``safe_kl_coef`` times the KL to the model's
own policy) are trained, and both are evaluated against the true pool (and the model
they trained on) in bb/100 with 95% intervals. A ceiling exploiter, trained on the pool's
true styles, is trained once as the reference.

Every point writes ``points/<name>.json`` atomically when it is complete, the ceiling
``ceiling.json``; a run started again skips what is recorded and resumes inside a
half-trained model or exploiter from its ``last.pt``. A recorded point's population
training rows (``data.npz``, which only resuming its model reads) are deleted unless
``keep_caches`` is set. The run folder remembers its config and refuses another one. The
summary goes to ``robustness.json``, the chart to ``edge_vs_error.png`` and a
self-contained ``robustness.html``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from pydantic import BaseModel, ConfigDict, Field, model_validator

from poolshark.evaluate.match import MatchConfig
from poolshark.experiments.pipeline import POPULATION_RANGES, edge, reopen_config
from poolshark.experiments.variants import train_variant
from poolshark.histories.ingest import ingest
from poolshark.pool.pools import load_pool
from poolshark.pool.simulate import write_simulation
from poolshark.population.scoring import predict, score
from poolshark.population.sources import range_source_from_spec
from poolshark.population.train import (
    DataConfig,
    PopulationTrainConfig,
    build_dataset,
    imputer_settings,
    load_population_net,
    remove_data_caches,
    train_population,
)
from poolshark.report.html import HtmlReport
from poolshark.report.plots import edge_curves
from poolshark.training.common import write_text_atomic

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from poolshark.population.data import ActionDataset

VARIANTS = ("plain", "safe")
"""The exploiter variants trained at every point."""
TRUTH_SEED_OFFSET = 1_000_003
"""The error is measured on hands simulated with ``seed + TRUTH_SEED_OFFSET``, never trained on."""
EVAL_SEED_OFFSET = 7
"""Evaluation matches use ``seed + EVAL_SEED_OFFSET`` (the demo's): every exploiter meets the
same cards, so the comparisons between points and variants are paired."""
RESUMABLE_CHANGES = ("threads", "workers", "points", "keep_caches")
"""Config keys a run folder may be reopened with changed: they change no recorded figure
(each point is recorded under its own name, so points may be added or dropped)."""


class RobustnessError(ValueError):
    """A run that cannot start as asked (bad config, a folder of another run); says why."""


class RobustnessPoint(BaseModel):
    """One error level: a population model fitted on ``hands`` hands whose hidden cards are
    drawn by ``imputer`` (``exact``: the pool's exact posterior; ``em`` / ``em:N``: the
    model's own posterior by EM; ``uniform``; or any range-source spec such as
    ``oracle:PATH``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hands: int = Field(ge=100)
    imputer: str = "exact"

    @property
    def name(self) -> str:
        """The point's folder and file name: ``<imputer>-<hands>``."""
        slug = re.sub(r"[^A-Za-z0-9]+", "-", self.imputer).strip("-") or "imputer"
        return f"{slug}-{self.hands}"

    def training_keys(self, pool: str) -> dict[str, Any]:
        """The population-training keys of the imputer (``exact`` resolved to the pool,
        ``em`` to EM rounds): :func:`~poolshark.population.train.imputer_settings`."""

        return imputer_settings(self.imputer, pool)


def _default_points() -> list[RobustnessPoint]:
    return [
        RobustnessPoint(hands=1_000),
        RobustnessPoint(hands=4_000),
        RobustnessPoint(hands=15_000),
        RobustnessPoint(hands=40_000),
        RobustnessPoint(hands=40_000, imputer="uniform"),
        RobustnessPoint(hands=4_000, imputer="em"),
        RobustnessPoint(hands=40_000, imputer="em"),
    ]


class RobustnessConfig(BaseModel):
    """Sizes and seeds of an edge-against-error run (TOML keys of the same names; points as
    ``[[points]]`` tables). The exploiter and evaluation sizes are the demo's; ``kl_hands``
    hands with every card known measure each model's error; ``threads`` is torch's thread
    count (keep 1 on a shared CPU, see ``docs/pipeline.md``), ``workers`` ingest;
    ``keep_caches`` keeps each recorded point's population training rows (``data.npz``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pool: str = "micro-zoom"
    seed: int = Field(0, ge=0)
    points: list[RobustnessPoint] = Field(default_factory=_default_points, min_length=1)
    kl_hands: int = Field(4_000, ge=100)
    population_epochs: int = Field(4, ge=1)
    population_width: int = Field(256, ge=8)
    population_batch_size: int = Field(512, ge=2)
    exploiter_iterations: int = Field(30, ge=1)
    exploiter_tables: int = Field(1024, ge=8)
    safe_kl_coef: float = Field(0.05, gt=0.0)
    eval_hands: int = Field(30_000, ge=100)
    workers: int = Field(2, ge=1)
    threads: int = Field(1, ge=1)
    device: str = "cpu"
    keep_caches: bool = False

    @model_validator(mode="after")
    def _distinct_points(self) -> RobustnessConfig:
        names = [point.name for point in self.points]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"points repeat: {', '.join(repeated)}")
        return self

    @classmethod
    def load(cls, path: str | Path) -> RobustnessConfig:
        """Read a TOML config file (unknown keys are an error)."""
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise RobustnessError(f"cannot read robustness config {path}: {error}") from None
        return cls.model_validate(data)

    def quick(self) -> RobustnessConfig:
        """A small version of this run (under a minute on one core; it checks the mechanics,
        its exploiters are too short to win): a tenth of each point's hands (at least 1,000;
        points that coincide are kept once), one small population epoch, short exploiters
        and matches."""
        points: list[RobustnessPoint] = []
        for point in self.points:
            small = point.model_copy(update={"hands": max(1_000, point.hands // 10)})
            if small.name not in {p.name for p in points}:
                points.append(small)
        return self.model_copy(
            update={
                "points": points,
                "kl_hands": min(self.kl_hands, 1_000),
                "population_epochs": 1,
                "population_width": min(self.population_width, 64),
                "exploiter_iterations": min(self.exploiter_iterations, 4),
                "exploiter_tables": min(self.exploiter_tables, 128),
                "eval_hands": min(self.eval_hands, 3_000),
            }
        )


# -- the run folder ---------------------------------------------------------------------------


@dataclass
class RobustnessRun:
    """An open run folder: its config, a log, and the truth datasets built so far."""

    out: Path
    config: RobustnessConfig
    log: Callable[[str], None] = print
    truth: dict[str, ActionDataset] = field(default_factory=dict)

    def path(self, *parts: str) -> Path:
        """A path inside the run folder."""
        return self.out.joinpath(*parts)


def open_run(
    out: str | Path, config: RobustnessConfig, log: Callable[[str], None] = print
) -> RobustnessRun:
    """Open (or reopen) a run folder; a folder holding another config is refused, naming
    the keys that differ (:data:`RESUMABLE_CHANGES` may differ)."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    wanted = config.model_dump(mode="json")
    before = reopen_config(folder, wanted, RESUMABLE_CHANGES, RobustnessError)
    if before is not None and before.get("points") != wanted["points"]:
        _write_json(folder / "config.json", wanted)
    return RobustnessRun(folder, config, log)


def _write_json(path: Path, payload: dict[str, Any]) -> None:
    write_text_atomic(json.dumps(payload, indent=2) + "\n", path)


def _read_json(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    payload: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return payload


# -- the experiment ---------------------------------------------------------------------------


def run_robustness(
    config: RobustnessConfig, out: str | Path, *, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """Run (or resume) every point and the ceiling, write the summary, chart and page, and
    return the summary (see the module docstring)."""

    run = open_run(out, config, log)
    for point in config.points:  # a bad imputer fails now, not after an hour of work
        range_source_from_spec(point.training_keys(config.pool)["imputer"])
    torch.set_num_threads(config.threads)
    points = []
    for point in config.points:
        marker = run.path("points", f"{point.name}.json")
        points.append(_recorded(run, marker, point.name, _point_task(point)))
        if not config.keep_caches:
            remove_data_caches(run.path("points", point.name, "population"))
    ceiling = _recorded(run, run.path("ceiling.json"), "ceiling", _ceiling)
    return write_summary(run, points, ceiling)


def _recorded(
    run: RobustnessRun,
    marker: Path,
    name: str,
    task: Callable[[RobustnessRun], dict[str, Any]],
) -> dict[str, Any]:
    """The figures ``marker`` holds, or ``task``'s, timed and recorded there atomically."""
    before = _read_json(marker)
    if before is not None:
        run.log(f"{name}: done earlier, skipped")
        return before
    run.log(f"{name}: running")
    started = time.perf_counter()
    figures = task(run)
    figures["seconds"] = round(time.perf_counter() - started, 1)
    _write_json(marker, figures)
    run.log(f"{name}: finished in {figures['seconds']:.0f} s")
    return figures


def _point_task(point: RobustnessPoint) -> Callable[[RobustnessRun], dict[str, Any]]:
    return lambda run: run_point(run, point)


def run_point(run: RobustnessRun, point: RobustnessPoint) -> dict[str, Any]:
    """One error level: rows, population model and its error, both exploiters, their edges."""
    config = run.config
    rows = ensure_rows(run, point.hands)
    folder = run.path("points", point.name)
    model = fit_population(run, point, rows, folder / "population")
    error = model_error(run, Path(model["checkpoint"]))
    run.log(f"  {point.name}: KL to the true policy {error['kl']:.4f} nats per decision")
    checkpoint = model["checkpoint"]
    variants = {
        "plain": {"against": [checkpoint]},
        "safe": {"against": [checkpoint], "kl_coef": config.safe_kl_coef, "reference": checkpoint},
    }
    figures: dict[str, Any] = {
        "name": point.name,
        "hands": point.hands,
        "imputer": point.imputer,
        "model": {**model, **error},
    }
    for name in VARIANTS:
        trained = _train(run, variants[name], folder / f"exploiter-{name}")
        true_pool = _edge(run, trained, f"pool:{config.pool}")
        own_model = _edge(run, trained, checkpoint)
        figures[name] = {
            "checkpoint": trained,
            "true_pool": true_pool,
            "model": own_model,
            "gap": own_model["bb_per_100"] - true_pool["bb_per_100"],
        }
        run.log(
            f"  {point.name} {name}: {true_pool['bb_per_100']:+.1f} ± "
            f"{true_pool['half_width']:.1f} bb/100 vs the true pool, "
            f"{own_model['bb_per_100']:+.1f} vs its model"
        )
    return figures


def ensure_rows(run: RobustnessRun, hands: int) -> Path:
    """Decision rows of ``hands`` hands of the pool (shared by the points of that size):
    simulated and written as PokerStars text, then ingested, as the demo does."""

    folder = run.path("data", f"hands-{hands}")
    marker = folder / "data.json"
    if marker.exists():
        return folder / "rows"
    for partial in ("histories", "rows"):  # a run killed while writing them
        shutil.rmtree(folder / partial, ignore_errors=True)
    simulated = write_simulation(
        load_pool(run.config.pool), hands, folder / "histories", seed=run.config.seed
    )
    summary = ingest(
        [folder / "histories" / "pokerstars"], folder / "rows", workers=run.config.workers
    )
    run.log(f"  data: {simulated.hands:,} hands written, {summary.rows:,} rows ingested")
    _write_json(marker, {"hands": simulated.hands, "ingest": summary.to_dict()})
    return folder / "rows"


def fit_population(
    run: RobustnessRun, point: RobustnessPoint, rows: Path, out: Path
) -> dict[str, Any]:
    """The point's population model, fitted (or its interrupted fit resumed) on ``rows``."""

    config = run.config
    trained = train_population(
        PopulationTrainConfig(
            rows=rows,
            ranges=POPULATION_RANGES,
            **point.training_keys(config.pool),
            out=out,
            epochs=config.population_epochs,
            width=config.population_width,
            batch_size=config.population_batch_size,
            seed=config.seed,
            threads=config.threads,
            device=config.device,
        ),
        resume=(out / "last.pt").exists() or any(out.glob("em-*/last.pt")),
    )
    validation = trained.validation or {}
    return {
        "checkpoint": trained.best_checkpoint,
        "train_rows": trained.train_rows,
        "val_rows": trained.val_rows,
        "imputed_rows": trained.data.get("imputed_rows"),
        "val_nll": validation.get("model", {}).get("nll"),
    }


def model_error(run: RobustnessRun, checkpoint: Path) -> dict[str, Any]:
    """How far a population model is from the pool's exact average-player policy, on
    ``kl_hands`` hands never trained on with every card known: mean KL per decision over
    the 14 action classes and over fold / call / raise, the NLL and the truth's NLL."""

    config = run.config
    model, payload = load_population_net(checkpoint, config.device)
    spec = str(payload["range_source"])
    if spec not in run.truth:
        data = DataConfig(
            pool=config.pool,
            hands=config.kl_hands,
            simulation_seed=config.seed + TRUTH_SEED_OFFSET,
            ranges=spec,
        )
        run.truth[spec], _ = build_dataset(data, seed=config.seed)
    truth = run.truth[spec]
    figures = score(predict(model, truth, config.device), truth)
    floor = score(truth.true_policy.astype("float64"), truth)
    return {
        "kl": figures["kl"],
        "kl_moves": figures["kl_moves"],
        "nll": figures["nll"],
        "truth_nll": floor["nll"],
        "kl_rows": truth.size,
    }


def _train(run: RobustnessRun, keys: dict[str, Any], out: Path) -> str:
    """A PPO exploiter with the demo's settings plus ``keys`` (its opponents, the safe
    variant's KL term): :func:`poolshark.experiments.variants.train_variant`. Its checkpoint."""
    config = run.config
    result = train_variant(
        keys,
        out,
        iterations=config.exploiter_iterations,
        tables=config.exploiter_tables,
        seed=config.seed,
        threads=config.threads,
        device=config.device,
    )
    return result.checkpoint


def _edge(run: RobustnessRun, agent: str, field: str) -> dict[str, Any]:
    """``agent`` against ``field`` in the run's match (``experiments.pipeline.edge``)."""

    config = run.config
    return edge(
        agent, field, MatchConfig(hands=config.eval_hands, seed=config.seed + EVAL_SEED_OFFSET)
    )


def _ceiling(run: RobustnessRun) -> dict[str, Any]:
    """The exploiter trained on the pool's true styles: the most any exploiter takes."""
    pool = f"pool:{run.config.pool}"
    trained = _train(run, {"against": [pool]}, run.path("ceiling"))
    return {"checkpoint": trained, "true_pool": _edge(run, trained, pool)}


# -- summary, chart, page ---------------------------------------------------------------------


def write_summary(
    run: RobustnessRun, points: list[dict[str, Any]], ceiling: dict[str, Any]
) -> dict[str, Any]:
    """``robustness.json``, ``edge_vs_error.png`` and ``robustness.html``; the summary."""

    chart = run.path("edge_vs_error.png")
    page = run.path("robustness.html")
    figure = edge_figure(points, ceiling)
    temporary = chart.with_name(f".{chart.name}.tmp")
    figure.savefig(temporary, format="png", dpi=120, metadata={"Software": None})
    os.replace(temporary, chart)
    write_text_atomic(_page(run.config, points, ceiling, figure), page)
    summary = {
        "pool": run.config.pool,
        "seed": run.config.seed,
        "config": run.config.model_dump(mode="json"),
        "points": points,
        "ceiling": ceiling,
        "chart": str(chart),
        "report": str(page),
        "seconds": round(sum(p["seconds"] for p in [*points, ceiling]), 1),
    }
    _write_json(run.path("robustness.json"), summary)
    return summary


def edge_figure(points: list[dict[str, Any]], ceiling: dict[str, Any]) -> Figure:
    """Edge against the true pool as a function of the model's KL, one line per variant,
    95% bands, the ceiling as a flat band, each point labelled with its hands and imputer."""

    errors = [float(p["model"]["kl"]) for p in points]
    curves: dict[str, list[tuple[float, float, float]]] = {
        name: [
            (float(p["model"]["kl"]), p[name]["true_pool"]["bb_per_100"], _half(p, name))
            for p in points
        ]
        for name in VARIANTS
    }
    top = ceiling["true_pool"]
    curves["ceiling (true styles)"] = [
        (x, top["bb_per_100"], top["half_width"]) for x in (min(errors), max(errors))
    ]
    figure = edge_curves(
        curves,
        x_label="population model's KL to the true policy (nats per decision)",
        title="Exploiter edge against population-model error",
    )
    axes = figure.axes[0]
    if min(errors) > 0 and max(errors) / min(errors) > 8:
        axes.set_xscale("log")
    for p in points:
        axes.annotate(
            point_label(p),
            (float(p["model"]["kl"]), p["plain"]["true_pool"]["bb_per_100"]),
            textcoords="offset points",
            xytext=(4, 6),
            fontsize=7,
        )
    return figure


def _half(point: dict[str, Any], variant: str) -> float:
    return float(point[variant]["true_pool"]["half_width"])


def point_label(point: dict[str, Any]) -> str:
    """``exact 40k``: a point's imputer and training hands, short."""
    hands = int(point["hands"])
    size = f"{hands // 1000}k" if hands % 1000 == 0 else f"{hands:,}"
    return f"{point['imputer']} {size}"


def _page(
    config: RobustnessConfig,
    points: list[dict[str, Any]],
    ceiling: dict[str, Any],
    figure: Figure,
) -> str:
    """The self-contained HTML page of the run."""

    def rate(figures: dict[str, Any]) -> str:
        return f"{figures['bb_per_100']:+.1f} ± {figures['half_width']:.1f}"

    ordered = sorted(points, key=lambda p: float(p["model"]["kl"]))
    report = HtmlReport(
        "Exploiter edge against population-model error",
        subtitle=f"pool {config.pool}, seed {config.seed}",
    )
    report.section("Edge against the true pool")
    report.paragraph(
        "Each point is a population model fitted on simulated, ingested hand histories of the"
        " pool; its error is the mean KL divergence per decision from the pool's exact"
        " average-player policy, measured on other hands with every card known. A plain PPO"
        f" exploiter and a safe one (KL penalty {config.safe_kl_coef} toward the model's own"
        " policy) train against each model and play the true pool; bb/100 with 95% intervals,"
        " all-in EV adjusted."
    )
    report.figures([(figure, "edge against the true pool; the bands are 95% intervals")])
    report.table(
        [
            "point",
            "KL (nats)",
            "KL fold/call/raise",
            "plain vs pool",
            "safe vs pool",
            "plain vs its model",
            "safe vs its model",
        ],
        [
            [
                point_label(p),
                float(p["model"]["kl"]),
                float(p["model"]["kl_moves"]),
                rate(p["plain"]["true_pool"]),
                rate(p["safe"]["true_pool"]),
                rate(p["plain"]["model"]),
                rate(p["safe"]["model"]),
            ]
            for p in ordered
        ],
    )
    report.paragraph(
        f"Ceiling (trained on the true styles): {rate(ceiling['true_pool'])} bb/100 against"
        " the true pool."
    )
    report.section("Config")
    report.code(json.dumps(config.model_dump(mode="json")))
    return report.render()
