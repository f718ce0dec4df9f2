"""Faster population-model opponents in rollouts: each means measured, before and after.

Run from the repository root::

    python benchmarks/opponents.py [--quick] [--seed N] [--json] [--model CHECKPOINT]
                                   [--compile]

``--model`` is a population-model checkpoint (default: a fresh, untrained net of the
default size, 3 blocks of 256, which costs the same per decision as a trained one; its
distillation figures then say little). Torch on one thread, 6-max, the learner an
untrained actor (``benchmarks/rollout.py``'s loop). Side by side in one run:

* rollouts (learner decisions per CPU-second of the one thread, the best of 3
  interleaved rounds, 2 with ``--quick``): calling stations in every opponent seat (the
  ceiling: opponents that cost nothing), the population model as it was (``plain``: all
  nine opponent rows through the network, pooled by a masked ``amax``, ``no_grad``), as
  it is now (``model``: only the rows some decision fills, an unrolled maximum,
  ``inference_mode``; exact), and its distilled student (``student``,
  :func:`poolshark.exploit.distill.distill_population`); then stations and the student
  again with four times the tables and a quarter of the hands each (``station_wide``,
  ``student_wide``: the same hands in fewer, larger steps, amortising each step's fixed
  cost), and the student's ratio to the stations at each size;
* the forward pass alone over the decisions the model met in one rollout (rows per
  CPU-second, and the largest change of any class probability against the plain float32
  pass): the unrolled maximum, plus trimmed opponent rows, plus ``inference_mode``,
  bfloat16 autocast, dynamic int8 ``Linear`` layers, the student (under ``no_grad`` and
  ``inference_mode``), and with ``--compile`` the student through ``torch.compile`` (its
  compile time reported: minutes on this CPU, hence opt-in);
* the decision-context encoding of the opponents' feature rows, the numpy chain against
  the compiled pass (``population.features.encode_contexts_compiled``), microseconds per
  row and whether they are equal;
* the share of the model's decisions whose whole feature row repeats an earlier one
  (preflop and all): what a cache of identical rows could skip at most;
* the student's gap to the teacher on held-out decisions (KL, total variation).

The last line is one JSON object: ``{station,plain,model,student}_learner_decisions_per_s``,
``{...}_opponent_share``, ``speedup_student`` and ``speedup_trimmed`` (over ``plain``),
``forward_{name}_rows_per_s`` and ``forward_{name}_max_abs_difference``,
``repeat_share_all``, ``repeat_share_preflop``, ``student_kl_mean``, ``student_kl_p99``,
``student_tv_mean``, ``student_same_argmax``, ``student_parameters``,
``teacher_parameters``, ``distill_seconds``, ``target_learner_decisions_per_s`` (40,000),
``meets_target`` (the better student row), ``student_to_station`` and
``student_wide_to_station_wide`` (ratios in this run), ``quiet_ceiling`` (59,500: stations
on a quiet core, 2026-11), ``quiet_estimate`` and ``quiet_estimate_wide`` (each ratio
times it),
``contexts_{numpy,compiled}_us_per_row``, ``contexts_equal``, ``compile_seconds`` (None
without ``--compile``), ``load_average_{start,end}`` (1-minute), ``tables``,
``hands_per_table``, ``model``, ``quick``, ``seed``.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol, cast

import numpy as np
import numpy.typing as npt
import torch

from common import emit, house_parser, print_table
from poolshark.agents.bots import CallingStation
from poolshark.agents.protocol import Agent, Decisions, Moves
from poolshark.engine.actions import ActionSet
from poolshark.exploit.distill import (
    DistillSettings,
    distill_population,
    opponent_features,
    untrained_policy,
)
from poolshark.exploit.rollout import Opponent, Rollout, RolloutSettings
from poolshark.population.agent import PopulationAgent, load_population_model
from poolshark.population.features import (
    ENCODED_STREET,
    DecisionFeatures,
    encode_contexts_compiled,
    encode_population_contexts,
)
from poolshark.population.model import MASKED, FeatureTensors, PopulationNet

TARGET = 40_000
QUIET_CEILING = 59_500
"""Learner decisions per CPU-second against calling stations on a quiet core
(``benchmarks/rollout.py``, docs/benchmarks.md "Rollouts")."""


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The house options (``--quick``, ``--seed``, ``--json``) and ``--model``."""
    parser = house_parser(__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="population-model checkpoint")
    parser.add_argument(
        "--compile", action="store_true", help="also time the student under torch.compile"
    )
    return parser.parse_args(argv)


def plain_forward(model: PopulationNet, batch: FeatureTensors) -> torch.Tensor:
    """The population model's forward pass as it was before (pooling by a masked
    ``amax(dim=1)``); the same logits as ``model(batch)`` (tests/test_fast_opponents.py)."""
    encoded = model.opponent_encoder(batch.opponents)
    present = batch.opponents[:, :, :1]
    count = present.sum(dim=1).clamp(min=1.0)
    mean = (encoded * present).sum(dim=1) / count
    largest = torch.where(present > 0, encoded, torch.zeros_like(encoded)).amax(dim=1)
    embedded = model.hand_classes(batch.hand_class)
    inputs = torch.cat([batch.public, batch.hand, embedded, mean, largest], dim=1)
    logits: torch.Tensor = model.head(model.blocks(torch.relu(model.stem(inputs))))
    return logits.masked_fill(~batch.legal, MASKED)


class PlainPopulationAgent(PopulationAgent):
    """The population agent as it was before: all nine opponent rows, ``amax`` pooling,
    ``no_grad``."""

    def class_probabilities(self, decisions: Decisions) -> npt.NDArray[np.float64]:
        batch = FeatureTensors.of(self.features(decisions), self.device)
        with torch.no_grad():
            logits = plain_forward(self.model, batch)
        values: npt.NDArray[np.float64] = torch.softmax(logits.double(), dim=1).numpy()
        return values


class ContextRecorder(PopulationAgent):
    """A population agent keeping the decision contexts of every batch it answers."""

    def __init__(self, agent: PopulationAgent) -> None:
        super().__init__(
            agent.model,
            agent.ranges,
            agent.size_fractions.tolist(),
            range_spec=agent.range_spec,
        )
        self.contexts: list[np.ndarray] = []

    def act(self, decisions: Decisions) -> Moves:
        self.contexts.append(decisions.contexts.copy())
        return super().act(decisions)


def context_encoding(
    teacher: PopulationAgent, tables: int, seed: int, rounds: int
) -> dict[str, float]:
    """Microseconds per row of the numpy and the compiled context encoding over the
    contexts of every opponent batch of one rollout (best of ``rounds``), and equality."""
    recorder = ContextRecorder(teacher)
    rollout = Rollout(
        RolloutSettings(tables=tables, hands_per_table=2), ActionSet(), [Opponent("o", recorder)]
    )
    rollout.collect(untrained_policy(seed), seed=seed, iteration=0)
    batches = recorder.contexts
    rows = sum(b.shape[0] for b in batches)
    best = {"numpy": float("inf"), "compiled": float("inf")}
    encoders = {"numpy": encode_population_contexts, "compiled": encode_contexts_compiled}
    for _ in range(rounds):
        for name, encode in encoders.items():
            start = time.process_time()
            for b in batches:
                encode(b, 6)
            best[name] = min(best[name], time.process_time() - start)
    equal = all(
        np.array_equal(encode_population_contexts(b, 6), encode_contexts_compiled(b, 6))
        for b in batches
    )
    return {
        "numpy_us_per_row": 1e6 * best["numpy"] / rows,
        "compiled_us_per_row": 1e6 * best["compiled"] / rows,
        "equal": float(equal),
        "rows": float(rows),
    }


def trimmed(features: FeatureTensors) -> FeatureTensors:
    """The tensors with the opponent rows nobody fills dropped (as the agent does)."""
    used = max(1, int((features.opponents[:, :, 0] > 0).sum(dim=1).max()))
    return replace(features, opponents=features.opponents[:, :used])


def rollout_rate(agent: Agent, tables: int, hands: int, seed: int) -> dict[str, float]:
    """Learner decisions per CPU-second (one thread: steadier than wall time on a shared
    machine) and the opponents' share of the wall time, of one timed collection."""
    policy = untrained_policy(seed)
    opponents = [Opponent("opponent", agent)]
    warm = Rollout(RolloutSettings(tables=64, hands_per_table=1), ActionSet(), opponents)
    warm.collect(policy, seed=seed, iteration=99)
    rollout = Rollout(RolloutSettings(tables=tables, hands_per_table=hands), ActionSet(), opponents)
    start = time.process_time()
    batch = rollout.collect(policy, seed=seed, iteration=0)
    cpu = time.process_time() - start
    total = batch.seconds["total"]
    return {
        "learner_decisions_per_s": batch.size / cpu,
        "opponent_share": batch.seconds["opponents"] / total,
        "opponent_decisions": float(sum(batch.opponent_decisions.values())),
    }


def forward_rows(
    variants: dict[str, tuple[Callable[[FeatureTensors], torch.Tensor], list[FeatureTensors], str]],
    rounds: int,
) -> dict[str, tuple[float, torch.Tensor]]:
    """Rows per CPU-second of each variant over its batches (the best of ``rounds``
    interleaved passes: the machine's load moves all alike) and its probabilities. A
    variant is (forward, batches, mode: ``no_grad``, ``inference_mode`` or ``bfloat16``
    autocast)."""
    best: dict[str, float] = {}
    out: dict[str, torch.Tensor] = {}
    for _ in range(rounds):
        for name, (run, batches, mode) in variants.items():
            with contextlib.ExitStack() as stack:
                stack.enter_context(
                    torch.inference_mode() if mode == "inference_mode" else torch.no_grad()
                )
                if mode == "bfloat16":
                    stack.enter_context(torch.autocast("cpu", dtype=torch.bfloat16))
                start = time.process_time()
                out[name] = torch.cat([run(b) for b in batches])
                seconds = time.process_time() - start
            best[name] = min(best.get(name, float("inf")), seconds)
    rows = {name: sum(len(b) for b in variants[name][1]) for name in variants}
    return {name: (rows[name] / best[name], out[name]) for name in variants}


class QuantizeDynamic(Protocol):
    """The part of ``torch.ao.quantization.quantize_dynamic``'s signature used here."""

    def __call__(
        self,
        model: torch.nn.Module,
        qconfig_spec: set[type[torch.nn.Module]],
        *,
        dtype: torch.dtype,
    ) -> torch.nn.Module: ...


def repeat_share(rows: npt.NDArray[np.float32]) -> float:
    """Share of rows equal to an earlier row."""
    total: int = rows.shape[0]
    if total == 0:
        return 0.0
    distinct: int = np.unique(rows, axis=0).shape[0]
    return 1.0 - distinct / total


def feature_rows(features: DecisionFeatures) -> npt.NDArray[np.float32]:
    """Every model input of each decision as one float row."""
    n = features.size
    return np.concatenate(
        [
            features.public,
            features.hand,
            features.hand_class[:, None].astype(np.float32),
            features.cards.astype(np.float32),
            features.opponents.reshape(n, -1),
            features.legal.astype(np.float32),
        ],
        axis=1,
    )


def main() -> None:
    args = parse()
    torch.set_num_threads(1)
    load_start = os.getloadavg()[0]
    quick, seed = args.quick, args.seed
    tables, hands = (1024, 2) if quick else (4096, 4)
    if args.model:
        teacher = load_population_model(args.model)
    else:
        torch.manual_seed(seed)
        teacher = PopulationAgent(
            PopulationNet(), None, [0.33, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4, 6, 8]
        )
    settings = (
        DistillSettings(tables=512, hands_per_table=4, collections=2, epochs=3, seed=seed)
        if quick
        else DistillSettings(seed=seed)
    )
    student, report = distill_population(teacher, settings)
    plain_agent = PlainPopulationAgent(
        teacher.model,
        teacher.ranges,
        teacher.size_fractions.tolist(),
        range_spec=teacher.range_spec,
    )
    contenders: dict[str, Agent] = {
        "station": CallingStation(),
        "plain": plain_agent,
        "model": teacher,
        "student": student,
    }
    sizes = {name: (tables, hands) for name in contenders}
    sizes["station_wide"] = sizes["student_wide"] = (4 * tables, max(1, hands // 4))
    contenders["station_wide"], contenders["student_wide"] = contenders["station"], student
    rows: dict[str, dict[str, float]] = {}
    for _ in range(2 if quick else 3):  # interleaved rounds, the best of each kept
        for name, agent in contenders.items():
            row = rollout_rate(agent, *sizes[name], seed)
            best = rows.get(name)
            if best is None or row["learner_decisions_per_s"] > best["learner_decisions_per_s"]:
                rows[name] = row
    features = opponent_features(
        teacher, 512 if quick else 1024, 2, [seed + 7], untrained_policy(seed)
    )
    step = 600
    batches = [
        FeatureTensors.of(features.subset(slice(i, i + step)))
        for i in range(0, features.size, step)
    ]
    model = teacher.model.eval()

    def probabilities(net: torch.nn.Module) -> Callable[[FeatureTensors], torch.Tensor]:
        return lambda b: torch.softmax(net(b).double(), dim=1)

    short = [trimmed(b) for b in batches]
    student_net = student.model.eval()
    compile_seconds = None
    compiled_student: Callable[[FeatureTensors], torch.Tensor] | None = None
    if args.compile:
        start = time.perf_counter()
        compiled_student = torch.compile(student_net, dynamic=True)
        with torch.inference_mode():
            for b in short:  # every trimmed width once: each may compile a variant
                compiled_student(b)
        compile_seconds = time.perf_counter() - start
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # torch leaves quantize_dynamic unannotated: give it the signature it is used with.
        quantize_dynamic = cast(QuantizeDynamic, torch.ao.quantization.quantize_dynamic)
        quantized = quantize_dynamic(copy.deepcopy(model), {torch.nn.Linear}, dtype=torch.qint8)
    variants = {
        "float32": (
            lambda b: torch.softmax(plain_forward(model, b).double(), dim=1),
            batches,
            "no_grad",
        ),
        "unrolled_max": (probabilities(model), batches, "no_grad"),
        "trimmed": (probabilities(model), short, "no_grad"),
        "trimmed_inference_mode": (probabilities(model), short, "inference_mode"),
        "bfloat16": (probabilities(model), batches, "bfloat16"),
        "int8": (probabilities(quantized), batches, "no_grad"),
        "student_no_grad": (probabilities(student_net), short, "no_grad"),
        "student": (probabilities(student_net), short, "inference_mode"),
    }
    if compiled_student is not None:
        variants["student_compiled"] = (
            lambda b: torch.softmax(compiled_student(b).double(), dim=1),
            short,
            "inference_mode",
        )
    forward = forward_rows(variants, 3 if quick else 5)
    contexts = context_encoding(teacher, 512 if quick else 1024, seed + 11, 3 if quick else 5)
    plain = forward["float32"][1]
    preflop = features.public[:, ENCODED_STREET] == 1
    all_rows = feature_rows(features)
    gap = report.held_out
    figures: dict[str, object] = {}
    for name, row in rows.items():
        figures[f"{name}_learner_decisions_per_s"] = row["learner_decisions_per_s"]
        figures[f"{name}_opponent_share"] = row["opponent_share"]
    for name, (speed, values) in forward.items():
        figures[f"forward_{name}_rows_per_s"] = speed
        figures[f"forward_{name}_max_abs_difference"] = float((values - plain).abs().max())
    plain_rate = rows["plain"]["learner_decisions_per_s"]
    ratio = rows["student"]["learner_decisions_per_s"] / rows["station"]["learner_decisions_per_s"]
    ratio_wide = (
        rows["student_wide"]["learner_decisions_per_s"]
        / rows["station_wide"]["learner_decisions_per_s"]
    )
    best_student = max(
        rows["student"]["learner_decisions_per_s"], rows["student_wide"]["learner_decisions_per_s"]
    )
    speedup = rows["student"]["learner_decisions_per_s"] / plain_rate
    figures.update(
        {
            "speedup_student": speedup,
            "speedup_trimmed": rows["model"]["learner_decisions_per_s"] / plain_rate,
            "repeat_share_all": repeat_share(all_rows),
            "repeat_share_preflop": repeat_share(all_rows[preflop]),
            "student_kl_mean": gap.kl_mean,
            "student_kl_p99": gap.kl_p99,
            "student_tv_mean": gap.total_variation_mean,
            "student_same_argmax": gap.same_argmax,
            "student_parameters": report.student_parameters,
            "teacher_parameters": report.teacher_parameters,
            "distill_seconds": report.seconds,
            "target_learner_decisions_per_s": TARGET,
            "meets_target": best_student >= TARGET,
            "student_to_station": ratio,
            "student_wide_to_station_wide": ratio_wide,
            "quiet_ceiling": QUIET_CEILING,
            "quiet_estimate": ratio * QUIET_CEILING,
            "quiet_estimate_wide": ratio_wide * QUIET_CEILING,
            "contexts_numpy_us_per_row": contexts["numpy_us_per_row"],
            "contexts_compiled_us_per_row": contexts["compiled_us_per_row"],
            "contexts_equal": bool(contexts["equal"]),
            "compile_seconds": compile_seconds,
            "load_average_start": load_start,
            "load_average_end": os.getloadavg()[0],
            "tables": tables,
            "hands_per_table": hands,
            "model": args.model or "untrained",
            "quick": quick,
            "seed": seed,
        }
    )
    if not args.json:
        labels = {
            "station": "calling stations (ceiling)",
            "plain": "population model as before",
            "model": "population model now (exact)",
            "student": "distilled student (after)",
            "station_wide": "calling stations",
            "student_wide": "distilled student",
        }
        model_rate = rows["plain"]["learner_decisions_per_s"]
        print_table(
            f"Rollout, one thread ({figures['model']}); load average {load_start:.1f}",
            ["opponents", "tables x hands", "learner dec/s", "opponent time", "x plain"],
            [
                [
                    labels[name],
                    f"{sizes[name][0]:,} x {sizes[name][1]}",
                    row["learner_decisions_per_s"],
                    f"{row['opponent_share']:.0%}",
                    row["learner_decisions_per_s"] / model_rate,
                ]
                for name, row in rows.items()
            ],
        )
        base_speed = forward["float32"][0]
        print_table(
            f"Forward pass alone, {features.size:,} recorded decisions in batches of {step}",
            ["means", "rows/s", "x float32", "max |dp| vs float32"],
            [
                [name, speed, speed / base_speed, figures[f"forward_{name}_max_abs_difference"]]
                for name, (speed, _) in forward.items()
            ],
        )
        print_table(
            "Student vs teacher on held-out decisions, and repeated rows",
            ["figure", "value"],
            [
                [
                    "parameters: teacher / student",
                    f"{report.teacher_parameters:,} / {report.student_parameters:,}",
                ],
                ["KL(teacher||student) mean / p99 (nats)", f"{gap.kl_mean:.4f} / {gap.kl_p99:.4f}"],
                [
                    "total variation mean / p99",
                    f"{gap.total_variation_mean:.4f} / {gap.total_variation_p99:.4f}",
                ],
                ["same most likely class", f"{gap.same_argmax:.1%}"],
                ["largest |dp| of one class", f"{gap.max_abs_difference:.3f}"],
                ["distillation seconds", report.seconds],
                [
                    "repeated feature rows: all / preflop",
                    f"{figures['repeat_share_all']:.1%} / {figures['repeat_share_preflop']:.1%}",
                ],
                [
                    "context encoding us/row: numpy / compiled (equal)",
                    f"{contexts['numpy_us_per_row']:.3f} / {contexts['compiled_us_per_row']:.3f}"
                    f" ({bool(contexts['equal'])})",
                ],
                [
                    "torch.compile of the student, seconds",
                    "not run" if compile_seconds is None else f"{compile_seconds:.0f}",
                ],
            ],
        )
        verdict = "met" if figures["meets_target"] else "missed"
        print(
            f"target {TARGET:,} learner decisions/s (student): {verdict}; student / stations "
            f"{ratio:.2f} ({ratio_wide:.2f} wide), x {QUIET_CEILING:,} quiet = "
            f"{figures['quiet_estimate']:,.0f} ({figures['quiet_estimate_wide']:,.0f} wide); "
            f"load average {load_start:.1f} -> "
            f"{figures['load_average_end']:.1f}"
        )
    emit(figures)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
