"""The whole pipeline on one synthetic pool, end to end: what ``make demo`` runs.

simulate a pool's hands as a site would write them → ingest the text into decision rows →
fit population action models on those rows (and a held-out one on different hands) →
train exploiters with PPO, once per training seed: one against the fitted model, a safe
(KL-regularized) one, and the ceiling one against the pool's true styles, trained longer
and tested for a plateau → evaluate each three ways (against the model it trained on,
against the true pool, against the held-out model), each seed on its own deals, next to
baselines → optionally probe the plain and safe exploiters with a fresh best response →
write an HTML report with every headline figure's 95% interval across seeds and deals
(:mod:`poolshark.experiments.headline`).

Every stage writes its outputs under the run folder and a ``<stage>.json`` with its
figures last; a stage whose file exists is skipped, so a killed run started again resumes
at the first unfinished stage. A finished stage's caches (the population models' training
rows, which only resuming that stage reads) are deleted unless ``keep_caches`` is set.
Sizes come from :class:`PipelineConfig` (TOML keys of the same names); the defaults fit
about an hour on a 2-core CPU.
"""

from __future__ import annotations

import json
import os
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

import torch
from pydantic import BaseModel, ConfigDict, Field, field_validator

from poolshark.agents.loading import load_agent
from poolshark.analysis.attribution import attribute_edge, compare_attributions
from poolshark.analysis.model_error import model_error_of
from poolshark.evaluate.match import MatchConfig, default_lineup, play_match
from poolshark.experiments.headline import headline
from poolshark.experiments.intervals import MIN_PLATEAU_POINTS, plateau
from poolshark.experiments.probe import probe_exploiter
from poolshark.experiments.variants import train_variant
from poolshark.histories.ingest import ingest, scan_rows
from poolshark.pool.pools import load_pool
from poolshark.pool.simulate import write_simulation
from poolshark.population.support import raise_caps, support_table
from poolshark.population.train import (
    EM_POWER,
    PopulationTrainConfig,
    imputer_settings,
    remove_data_caches,
    train_population,
)
from poolshark.report.run_report import build_report
from poolshark.training.common import write_text_atomic

STAGES = (
    "simulate",
    "ingest",
    "population",
    "exploiters",
    "evaluate",
    "probe",
    "attribution",
    "report",
)
"""The stages, in order; each one's figures land in ``<out>/<stage>.json``."""
RESUMABLE_CHANGES = ("keep_caches",)
"""Config keys a run folder may be reopened with changed: they change no figure."""
DEFAULT_POOL = "handhq-25nl"
"""The demo's pool: ``handhq-25nl``, fitted to real 25NL hands (``docs/pool-fit.md``)."""
TUNING_POOL = "micro-zoom"
"""The development pool: the imputer's settings (``em_power`` = :data:`EM_POWER`) were
chosen on it, so figures on it are not out of sample; the report says which pool it shows."""


class PipelineError(ValueError):
    """A run that cannot start as asked (bad config, an unknown pool); the message says why."""


class PipelineConfig(BaseModel):
    """Sizes and seeds of an end-to-end run. ``hands`` are simulated, written as PokerStars
    text and ingested; the held-out population model is fitted on ``heldout_hands`` other
    hands of the same pool (another seed). ``imputer`` draws the hole cards the rows do not
    show for the population models: ``em`` / ``em:N`` (the default, and honest:
    expectation-maximization from the rows alone, uniform cards first, then N rounds,
    default 1, of cards drawn from the previous model's own posterior, the first step
    over-relaxed; see :mod:`poolshark.population.posterior`), ``exact`` (the pool's
    exact posterior, what a perfect range oracle would give: it reads the true styles, so
    it is a reference, not something a user has), ``uniform`` (nothing but the deal: the
    models then misjudge folded hands and the exploiters over-exploit) or any range-source
    spec (``oracle:PATH``, ``model:PATH``). ``rake_percent`` (of the pot, at most
    ``rake_cap_bb`` big blinds a hand, none without a flop) applies to the exploiters'
    training and to every evaluation match; the simulated histories stay unraked.
    ``seeds`` training seeds (``seed``, ``seed + 1``, ...) each train the three exploiters
    into ``seed-K/`` and evaluate them on deals of their own (match seed ``seed + 7 +
    1000 K``); the simulated hands and the population models are shared by the seeds.
    The ceiling exploiter trains ``ceiling_iterations`` (longer than the others, to
    converge; the report tests its learning curve for a plateau). ``variance_reduction``
    asks the matches for AIVAT estimates beside the actual ones (``MatchConfig``'s
    option). ``probe_iterations`` > 0 trains a fresh best response against the plain and
    the safe exploiter of each of the first ``probe_seeds`` seeds (the
    ``probe`` stage). ``attribution_hands`` > 0 splits the first seed's plain exploiter's
    edge by preflop spot against the model and the true pool (the ``attribution`` stage,
    :mod:`poolshark.analysis.attribution`). ``support_min_decisions`` holds the
    model-trained exploiters to raise sizes that many decisions of the main rows faced
    (per street; 0: no caps; see :mod:`poolshark.population.support`).
    ``workers`` ingest in parallel; ``threads`` is torch's thread count: keep 1 on a shared
    or small CPU, where a second torch thread contending for a busy core made a training
    step 45x slower (354 vs 7.6 ms here). ``keep_caches`` keeps the population models'
    cached training rows (``data.npz``) after their stage finishes; they are deleted by
    default, since only resuming the stage reads them."""

    model_config = ConfigDict(extra="forbid")

    pool: str = DEFAULT_POOL
    seed: int = 0
    seeds: int = Field(3, ge=1, le=50)
    hands: int = Field(40_000, ge=1_000)
    heldout_hands: int = Field(20_000, ge=1_000)
    population_epochs: int = Field(4, ge=1)
    imputer: str = "em"
    exploiter_iterations: int = Field(30, ge=1)
    exploiter_tables: int = Field(1024, ge=8)
    ceiling_iterations: int = Field(90, ge=1)
    safe_kl_coef: float = Field(0.05, ge=0.0)
    support_min_decisions: int = Field(100, ge=0)
    eval_hands: int = Field(30_000, ge=600)
    variance_reduction: bool = True
    probe_iterations: int = Field(20, ge=0)
    probe_seeds: int = Field(1, ge=1)
    probe_tables: int = Field(512, ge=8)
    probe_eval_hands: int = Field(12_000, ge=600)
    attribution_hands: int = Field(12_000, ge=0)
    rake_percent: float = Field(0.0, ge=0.0, le=100.0)
    rake_cap_bb: float | None = Field(None, ge=0.0)
    workers: int = Field(2, ge=1)
    threads: int = Field(1, ge=1)
    device: str = "cpu"
    keep_caches: bool = False

    @field_validator("pool")
    @classmethod
    def _known_pool(cls, value: str) -> str:
        load_pool(value)
        return value

    @field_validator("imputer")
    @classmethod
    def _known_imputer(cls, value: str) -> str:
        imputer_settings(value, "")
        return value

    @classmethod
    def load(cls, path: str | Path) -> PipelineConfig:
        """Read a TOML config file (unknown keys are an error)."""
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise PipelineError(f"cannot read pipeline config {path}: {error}") from None
        return cls.model_validate(data)


@dataclass
class Run:
    """One run folder: the config, where each stage writes, and the figures so far."""

    out: Path
    config: PipelineConfig
    log: Callable[[str], None] = print
    figures: dict[str, dict[str, Any]] = field(default_factory=dict)

    def path(self, *parts: str) -> Path:
        """A path inside the run folder."""
        return self.out.joinpath(*parts)

    def done(self, stage: str) -> dict[str, Any] | None:
        """The figures of a finished stage, or None if it has not finished."""
        marker = self.path(f"{stage}.json")
        if not marker.exists():
            return None
        figures: dict[str, Any] = json.loads(marker.read_text(encoding="utf-8"))
        return figures

    def finish(self, stage: str, figures: dict[str, Any]) -> None:
        """Record a stage's figures atomically: the stage counts as done from now on."""
        marker = self.path(f"{stage}.json")
        temporary = marker.with_name(f".{marker.name}.tmp")
        temporary.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        os.replace(temporary, marker)
        self.figures[stage] = figures


def reopen_config(
    folder: Path,
    wanted: dict[str, Any],
    resumable: Sequence[str],
    error: type[ValueError],
) -> dict[str, Any] | None:
    """The config a run folder was started with (None for a new folder, whose
    ``config.json`` is written now); ``error`` names the keys that differ from ``wanted``
    apart from the ``resumable`` ones."""
    saved = folder / "config.json"
    if not saved.exists():
        write_text_atomic(json.dumps(wanted, indent=2) + "\n", saved)
        return None
    before: dict[str, Any] = json.loads(saved.read_text(encoding="utf-8"))
    changed = sorted(
        key
        for key in set(wanted) | set(before)
        if key not in resumable and before.get(key) != wanted.get(key)
    )
    if changed:
        raise error(
            f"{folder} holds a run with another config (differs in {', '.join(changed)}):"
            " pick another --out or delete it"
        )
    return before


def start_run(out: str | Path, config: PipelineConfig) -> Run:
    """Open (or reopen) a run folder; a folder holding another config is refused, naming
    the keys that differ (:data:`RESUMABLE_CHANGES` may differ)."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    reopen_config(folder, config.model_dump(mode="json"), RESUMABLE_CHANGES, PipelineError)
    return Run(folder, config)


def run_pipeline(run: Run, stages: dict[str, Callable[[Run], dict[str, Any]]]) -> dict[str, Any]:
    """Run each stage in order unless it already finished, deleting a finished stage's
    caches unless the config keeps them; return every stage's figures."""
    for name in STAGES:
        before = run.done(name)
        if before is not None:
            run.log(f"{name}: done earlier, skipped")
            run.figures[name] = before
        else:
            run.log(f"{name}: running")
            started = time.perf_counter()
            figures = stages[name](run)
            figures["seconds"] = round(time.perf_counter() - started, 1)
            run.finish(name, figures)
            run.log(f"{name}: finished in {figures['seconds']:.0f} s")
        if name in CACHED_FOLDERS and not run.config.keep_caches:
            remove_caches(run, name)
    return run.figures


CACHED_FOLDERS = {"population": ("population-main", "population-heldout")}
"""Per stage, the run folders whose caches only resuming that stage reads: the population
models' training rows (``data.npz``, also in each EM round's ``em-N/``). Deleted once the
stage has finished (also when a finished stage is skipped, in case a run was killed between
the two); nothing after the stage reads them."""


def remove_caches(run: Run, stage: str) -> None:
    """Delete the caches of a finished ``stage`` (see :data:`CACHED_FOLDERS`)."""

    freed = sum(remove_data_caches(run.path(folder)) for folder in CACHED_FOLDERS[stage])
    if freed:
        run.log(f"  {stage}: deleted {freed / 1e6:.0f} MB of cached rows (keep_caches keeps them)")


# -- stages ---------------------------------------------------------------------------------


def simulate_stage(run: Run) -> dict[str, Any]:
    """The pool's hands as PokerStars text with the ground truth beside them, and other
    hands of the same pool (another seed) for the held-out model."""

    config = run.config
    pool = load_pool(config.pool)
    main = write_simulation(pool, config.hands, run.path("histories"), seed=config.seed)
    heldout = write_simulation(
        pool, config.heldout_hands, run.path("heldout-histories"), seed=config.seed + 1_000_003
    )
    return {
        "pool": pool.name,
        "hands": main.hands,
        "heldout_hands": heldout.hands,
        "hands_per_s": round(main.hands_per_s, 1),
        "files": main.files,
    }


def ingest_stage(run: Run) -> dict[str, Any]:
    """Both sets of hand histories into decision rows, with their ingestion summaries."""

    figures: dict[str, Any] = {}
    for name, source in (("main", "histories"), ("heldout", "heldout-histories")):
        summary = ingest(
            [run.path(source, "pokerstars")],
            run.path(f"rows-{name}"),
            workers=run.config.workers,
        )
        figures[name] = summary.to_dict()
        run.log(
            f"  {name}: {summary.seen:,} hands seen, {summary.parsed:,} parsed,"
            f" {sum(summary.rejected.values()):,} rejected, {summary.rows:,} rows"
        )
    return figures


def population_stage(run: Run) -> dict[str, Any]:
    """Population action models fitted on the ingested rows: the one the exploiters train
    against, and a held-out one fitted on the other hands."""

    config = run.config
    imputer = imputer_settings(config.imputer, config.pool)
    figures: dict[str, Any] = {}
    for name in ("main", "heldout"):
        out = run.path(f"population-{name}")
        trained = train_population(
            PopulationTrainConfig(
                rows=run.path(f"rows-{name}"),
                ranges=POPULATION_RANGES,
                **imputer,
                out=out,
                epochs=config.population_epochs,
                seed=config.seed,
                threads=config.threads,
                device=config.device,
            ),
            resume=(out / "last.pt").exists() or any(out.glob("em-*/last.pt")),
        )
        figures[name] = {
            "checkpoint": trained.best_checkpoint,
            "train_rows": trained.train_rows,
            "val_rows": trained.val_rows,
            "validation": trained.validation,
            "history": trained.history,
            "em_rounds": trained.em_rounds,
        }
        run.log(f"  {name}: {trained.train_rows:,} training rows, {trained.seconds:.0f} s")
    return figures


POPULATION_RANGES = "none"
"""The population models' view of opponents' ranges: none. On synthetic pools the styles
never look at ranges, so the view adds nothing there, and a model without it plays about
four times faster as a frozen opponent (``docs/population.md``)."""


EXPLOITERS = ("model", "safe", "ceiling")
"""The exploiter variants every run trains and evaluates, once per training seed."""
PROBED = ("model", "safe")
"""The exploiters the ``probe`` stage tests for exploitability."""


def training_seeds(config: PipelineConfig) -> list[int]:
    """The exploiters' training seeds: ``seed``, ``seed + 1``, ... (``seeds`` of them)."""
    return [config.seed + index for index in range(config.seeds)]


def match_seed(config: PipelineConfig, index: int) -> int:
    """The evaluation deals of training seed number ``index``: distinct for every seed."""
    return config.seed + 7 + 1_000 * index


def exploiters_stage(run: Run) -> dict[str, Any]:
    """Per training seed, three PPO exploiters: against the fitted model, the same with a KL
    penalty toward the model's own policy (safe), both held to the raise sizes the rows saw
    answered (:func:`raise_support`), and against the pool's true styles (the ceiling,
    trained ``ceiling_iterations``, with every size); then the ceiling's plateau test."""
    config = run.config
    model = run.figures["population"]["main"]["checkpoint"]
    support = raise_support(run)
    in_support = {} if support["caps"] is None else {"raise_caps": support["caps"]}
    variants = {
        "model": {"against": [model], **in_support},
        "safe": {
            "against": [model],
            "kl_coef": config.safe_kl_coef,
            "reference": model,
            **in_support,
        },
        "ceiling": {"against": [f"pool:{config.pool}"]},
    }
    seeds: list[dict[str, Any]] = []
    for index, seed in enumerate(training_seeds(config)):
        trained: dict[str, Any] = {"seed": seed}
        for name in EXPLOITERS:
            result = train_variant(
                variants[name],
                run.path(f"seed-{index}", f"exploiter-{name}"),
                iterations=(
                    config.ceiling_iterations if name == "ceiling" else config.exploiter_iterations
                ),
                tables=config.exploiter_tables,
                seed=seed,
                threads=config.threads,
                device=config.device,
                rake_percent=config.rake_percent,
                rake_cap_bb=config.rake_cap_bb,
            )
            trained[name] = {"checkpoint": result.checkpoint, "history": result.history}
            run.log(f"  seed {seed} {name}: {result.iterations} iterations, {result.seconds:.0f} s")
        seeds.append(trained)
    return {"seeds": seeds, "ceiling_plateau": ceiling_plateau(seeds), "support": support}


def raise_support(run: Run) -> dict[str, Any]:
    """The raise caps of the model-trained exploiters: per street, the largest raise that
    ``support_min_decisions`` decisions of the main rows faced one as big as (none when
    that setting is 0), with the support table behind them."""
    minimum = run.config.support_min_decisions
    if minimum == 0:
        return {"min_decisions": 0, "caps": None, "table": []}
    rows = scan_rows(run.path("rows-main"))
    caps = raise_caps(rows, min_support=minimum)
    run.log("  raise caps (preflop to river): " + ", ".join(f"{cap:.2f}" for cap in caps))
    return {
        "min_decisions": minimum,
        "caps": list(caps),
        "table": support_table(rows, caps).to_dicts(),
    }


def ceiling_plateau(seeds: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The ceiling's learning curve (training bb/100 per iteration against the true pool)
    averaged over the seeds, and the plateau test of that mean curve and of each seed's."""
    curves = [[row["bb_per_100"] for row in seed["ceiling"]["history"]] for seed in seeds]
    length = min(len(curve) for curve in curves)
    mean_curve = [fmean(curve[i] for curve in curves) for i in range(length)]
    if length < MIN_PLATEAU_POINTS:
        return {
            "curve": mean_curve,
            "tested": False,
            "reason": f"{length} iterations: a plateau test needs {MIN_PLATEAU_POINTS}",
        }
    return {
        "curve": mean_curve,
        "tested": True,
        "mean": plateau(mean_curve).as_dict(),
        "seeds": [plateau(curve[:length]).as_dict() for curve in curves],
    }


def edge(agent: str, field: str, match: MatchConfig) -> dict[str, Any]:
    """``agent`` in one seat against ``field`` in the others: bb/100 (all-in EV adjusted
    when the match measures it) with its standard error and the half width of its 95%
    interval, the raw figures beside it, and the AIVAT estimate when the match has one."""

    lineup = default_lineup(2, match.seats, against=True)
    result = play_match([load_agent(agent), load_agent(field)], lineup, match)
    player = result.agents[0]
    estimate = player.ev_adjusted or player.actual
    return {
        "bb_per_100": estimate.bb_per_100,
        "stderr": estimate.stderr,
        "half_width": estimate.half_width,
        "actual": player.actual.as_dict(),
        "aivat": None if player.aivat is None else player.aivat.as_dict(),
        "vpip": player.vpip,
        "pfr": player.pfr,
        "hands": player.hands,
    }


def match_config(config: PipelineConfig, index: int) -> MatchConfig:
    """The evaluation match of training seed number ``index`` (its own deals)."""
    return MatchConfig(
        hands=config.eval_hands,
        seed=match_seed(config, index),
        rake_percent=config.rake_percent,
        rake_cap_bb=config.rake_cap_bb,
        variance_reduction=config.variance_reduction,
    )


def evaluate_stage(run: Run) -> dict[str, Any]:
    """Each seed's exploiters three ways (the training model, the true pool, the held-out
    model) on that seed's own deals, the baselines on the first seed's, and the headline:
    every figure's mean over seeds with its 95% interval across seeds and deals."""

    config = run.config
    torch.set_num_threads(config.threads)
    fields = {
        "model": run.figures["population"]["main"]["checkpoint"],
        "true pool": f"pool:{config.pool}",
        "held-out model": run.figures["population"]["heldout"]["checkpoint"],
    }
    seeds: list[dict[str, Any]] = []
    for index, trained in enumerate(run.figures["exploiters"]["seeds"]):
        match = match_config(config, index)
        evaluated: dict[str, Any] = {
            "seed": trained["seed"],
            "match_seed": match.seed,
            "exploiters": {
                name: {
                    against: {**edge(trained[name]["checkpoint"], field, match), "field": field}
                    for against, field in fields.items()
                }
                for name in EXPLOITERS
            },
        }
        seeds.append(evaluated)
        run.log(f"  seed {trained['seed']}: exploiters evaluated on match seed {match.seed}")
    first = match_config(config, 0)
    baselines = {
        name: {**edge(fields.get(agent, agent), fields[against], first), "field": fields[against]}
        for name, (agent, against) in BASELINES.items()
    }
    return {
        "seeds": seeds,
        "baselines": baselines,
        "headline": headline(seeds, tuned_on=TUNING_POOL, pool=config.pool),
        "tuning": {"pool": TUNING_POOL, "em_power": EM_POWER},
    }


BASELINES = {
    "population model vs itself": ("model", "model"),
    "population model vs true pool": ("model", "true pool"),
    "calling station vs true pool": ("station", "true pool"),
    "tight-aggressive bot vs true pool": ("tag", "true pool"),
}
"""Baselines in every report: (agent, field), each an agent spec or one of the evaluation
fields. The population model playing itself should come out near zero minus its share of
the rake; the others show what the true pool gives away without any training."""


def probe_stage(run: Run) -> dict[str, Any]:
    """A fresh best response (:func:`~poolshark.experiments.probe.probe_exploiter`) against
    the plain and the safe exploiter of the first ``probe_seeds`` seeds; skipped when
    ``probe_iterations`` is 0."""
    config = run.config
    if config.probe_iterations == 0:
        return {"skipped": "probe_iterations = 0"}
    seeds: list[dict[str, Any]] = []
    for index, trained in enumerate(run.figures["exploiters"]["seeds"][: config.probe_seeds]):
        probed: dict[str, Any] = {"seed": trained["seed"]}
        for name in PROBED:
            probed[name] = probe_exploiter(
                trained[name]["checkpoint"],
                config.pool,
                run.path(f"seed-{index}", f"probe-{name}"),
                iterations=config.probe_iterations,
                tables=config.probe_tables,
                seed=trained["seed"],
                eval_hands=config.probe_eval_hands,
                threads=config.threads,
                device=config.device,
                rake_percent=config.rake_percent,
                rake_cap_bb=config.rake_cap_bb,
            )
            run.log(f"  seed {trained['seed']} {name}: probed")
        seeds.append(probed)
    return {"seeds": seeds}


def attribution_stage(run: Run) -> dict[str, Any]:
    """Where the first seed's plain exploiter's edge comes from: its edge split by its first
    preflop decision's spot and action, against the model it trained on and against the
    true pool, on the same match seed, and the spots where the two disagree."""
    config = run.config
    if config.attribution_hands == 0:
        return {"skipped": "attribution_hands = 0"}
    torch.set_num_threads(config.threads)
    exploiter = run.figures["exploiters"]["seeds"][0]["model"]["checkpoint"]

    def split(field: str) -> dict[str, Any]:
        return attribute_edge(
            exploiter,
            field,
            hands=config.attribution_hands,
            seed=match_seed(config, 0),
            rake_percent=config.rake_percent,
            rake_cap_bb=config.rake_cap_bb,
        )

    population = run.figures["population"]["main"]["checkpoint"]
    model = split(population)
    pool = split(f"pool:{config.pool}")
    run.log(
        f"  plain exploiter: {model['total']['bb_per_100']:+.1f} bb/100 vs the model, "
        f"{pool['total']['bb_per_100']:+.1f} vs the true pool, split by spot"
    )
    errors = {
        name: model_error_of(
            agent,
            population,
            config.pool,
            hands=config.attribution_hands,
            seed=match_seed(config, 0),
        )
        for name, agent in (("exploiter_path", exploiter), ("pool_path", None))
    }
    run.log(
        "  model against the truth, continuing strength on the exploiter's path: "
        + "{truth:.3f} true, {model:.3f} model".format(
            **errors["exploiter_path"]["overall"]["continue_strength"]
        )
    )
    return {
        "exploiter": exploiter,
        "against_model": model,
        "against_pool": pool,
        "comparison": compare_attributions(model, pool),
        "model_error": errors,
    }


def report_stage(run: Run) -> dict[str, Any]:
    """The HTML report of the whole run."""

    torch.set_num_threads(run.config.threads)
    path = build_report(run.figures, run.path("report.html"), run.config.model_dump())
    return {"path": str(path)}


def default_stages() -> dict[str, Callable[[Run], dict[str, Any]]]:
    """The stage functions by name (tests may swap some for smaller ones)."""
    return {
        "simulate": simulate_stage,
        "ingest": ingest_stage,
        "population": population_stage,
        "exploiters": exploiters_stage,
        "evaluate": evaluate_stage,
        "probe": probe_stage,
        "attribution": attribution_stage,
        "report": report_stage,
    }
