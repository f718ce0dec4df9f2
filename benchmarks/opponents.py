"""Faster population-model opponents in rollouts: each means measured, before and after.

Run from the repository root::

    python benchmarks/opponents.py [--quick] [--seed N] [--json] [--model CHECKPOINT]

``--model`` is a population-model checkpoint (default: a fresh, untrained net of the
default size, 3 blocks of 256, which costs the same per decision as a trained one; its
distillation figures then say little). Torch on one thread, 6-max, the learner an
untrained actor (``benchmarks/rollout.py``'s loop). Side by side in one run:

* rollouts (learner decisions/s): calling stations in every opponent seat (the ceiling:
  opponents that cost nothing), the population model (before), and its distilled student
  (after, :func:`poolshark.exploit.distill.distill_population`);
* the forward pass alone over the decisions the model met in that rollout (rows/s, and the
  largest change of any class probability against float32 with ``no_grad``):
  ``inference_mode``, bfloat16 autocast, dynamic int8 ``Linear`` layers, the student;
* the share of the model's decisions whose whole feature row repeats an earlier one
  (preflop and all): what a cache of identical rows could skip at most;
* the student's gap to the teacher on held-out decisions (KL, total variation).

The last line is one JSON object: ``{station,model,student}_learner_decisions_per_s``,
``{...}_opponent_share``, ``speedup_student`` (student / model learner decisions/s),
``forward_{name}_rows_per_s`` and ``forward_{name}_max_abs_difference``,
``repeat_share_all``, ``repeat_share_preflop``, ``student_kl_mean``, ``student_kl_p99``,
``student_tv_mean``, ``student_same_argmax``, ``student_parameters``,
``teacher_parameters``, ``distill_seconds``, ``target_learner_decisions_per_s`` (40,000),
``meets_target`` (student row), ``tables``, ``hands_per_table``, ``quick``, ``seed``.
"""

from __future__ import annotations

import argparse
import copy
import time
import warnings
from collections.abc import Callable, Sequence

import numpy as np
import torch

from common import emit, print_table
from poolshark.agents.bots import CallingStation
from poolshark.agents.protocol import Agent
from poolshark.engine.actions import ActionSet
from poolshark.exploit.distill import (
    DistillSettings,
    distill_population,
    opponent_features,
    untrained_policy,
)
from poolshark.exploit.rollout import Opponent, Rollout, RolloutSettings
from poolshark.population.agent import PopulationAgent, load_population_model
from poolshark.population.features import ENCODED_STREET, DecisionFeatures
from poolshark.population.model import FeatureTensors, PopulationNet

TARGET = 40_000


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The house options (``--quick``, ``--seed``, ``--json``) and ``--model``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a run of under a minute")
    parser.add_argument("--seed", type=int, default=0, help="seed for random inputs")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    parser.add_argument("--model", default=None, help="population-model checkpoint")
    return parser.parse_args(argv)


def rollout_rate(agent: Agent, tables: int, hands: int, seed: int) -> dict[str, float]:
    """Learner decisions/s and the opponents' time share of one timed collection."""
    policy = untrained_policy(seed)
    opponents = [Opponent("opponent", agent)]
    warm = Rollout(RolloutSettings(tables=64, hands_per_table=1), ActionSet(), opponents)
    warm.collect(policy, seed=seed, iteration=99)
    rollout = Rollout(RolloutSettings(tables=tables, hands_per_table=hands), ActionSet(), opponents)
    batch = rollout.collect(policy, seed=seed, iteration=0)
    total = batch.seconds["total"]
    return {
        "learner_decisions_per_s": batch.size / total,
        "opponent_share": batch.seconds["opponents"] / total,
        "opponent_decisions": float(sum(batch.opponent_decisions.values())),
    }


def forward_rows(
    run: Callable[[FeatureTensors], torch.Tensor], batches: list[FeatureTensors]
) -> tuple[float, torch.Tensor]:
    """Rows/s (best of 3) of ``run`` over the batches, and its probabilities."""
    best, out = float("inf"), torch.zeros(0)
    for _ in range(3):
        start = time.perf_counter()
        out = torch.cat([run(b) for b in batches])
        best = min(best, time.perf_counter() - start)
    return sum(len(b) for b in batches) / best, out


def repeat_share(rows: np.ndarray) -> float:
    """Share of rows equal to an earlier row."""
    if rows.shape[0] == 0:
        return 0.0
    return 1.0 - np.unique(rows, axis=0).shape[0] / rows.shape[0]


def feature_rows(features: DecisionFeatures) -> np.ndarray:
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
    rows = {
        "station": rollout_rate(CallingStation(), tables, hands, seed),
        "model": rollout_rate(teacher, tables, hands, seed),
        "student": rollout_rate(student, tables, hands, seed),
    }
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

    forward: dict[str, tuple[float, torch.Tensor]] = {}
    with torch.no_grad():
        forward["float32"] = forward_rows(probabilities(model), batches)
    with torch.inference_mode():
        forward["inference_mode"] = forward_rows(probabilities(model), batches)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        forward["bfloat16"] = forward_rows(probabilities(model), batches)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantized = torch.ao.quantization.quantize_dynamic(
            copy.deepcopy(model), {torch.nn.Linear}, dtype=torch.qint8
        )
    with torch.no_grad():
        forward["int8"] = forward_rows(probabilities(quantized), batches)
        forward["student"] = forward_rows(probabilities(student.model.eval()), batches)
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
    speedup = rows["student"]["learner_decisions_per_s"] / rows["model"]["learner_decisions_per_s"]
    figures.update(
        {
            "speedup_student": speedup,
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
            "meets_target": rows["student"]["learner_decisions_per_s"] >= TARGET,
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
            "model": "population model (before)",
            "student": "distilled student (after)",
        }
        model_rate = rows["model"]["learner_decisions_per_s"]
        print_table(
            f"Rollout, {tables:,} tables x {hands} hands, one thread ({figures['model']})",
            ["opponents", "learner dec/s", "opponent time", "x model"],
            [
                [
                    labels[name],
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
            ],
        )
        verdict = "met" if figures["meets_target"] else "missed"
        print(f"target {TARGET:,} learner decisions/s (student): {verdict}")
    emit(figures)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
