"""How many EM rounds: the imputation's rounds measured on a development pool.

Run from the repository root::

    python benchmarks/em_rounds.py [--quick] [--seed N] [--json] [--pool NAME] [--rounds K]
                                   [--out DIR]

The demo's first stages on ``--pool`` (default ``micro-zoom``, the development pool the
pipeline's imputer settings are chosen on): simulate its hands as PokerStars text, ingest
them, and fit one population model with ``--rounds`` EM rounds (default 3), which leaves
the model of every earlier round in ``em-0`` (hidden cards drawn from the deal) to
``em-(K-1)``. A ceiling exploiter is trained against the pool's true styles with the
pipeline's settings. Each model is then measured two ways:

* the ceiling's edge against it, beside the ceiling's edge against the true pool on the
  same deals: *promised / paid*, how much softer than the players the model is where an
  exploiter plays (1.0 is a model that pays what the pool pays);
* ``analysis.model_error`` on the pool's own path: the mean KL(truth || model) at the true
  players' decisions facing a bet, and postflop the made strength of the hands that
  continue under the truth and under the model.

Everything lands in ``--out`` (default ``runs/em-rounds``) and resumes from it. The full
run takes about an hour on two busy cores (40,000 hands, 90 ceiling iterations, 40,000
evaluation hands); ``--quick`` (about two minutes: 1,000 hands, 2 rounds, 2 ceiling
iterations, 600 evaluation hands) only checks the plumbing.

The last line printed is one JSON object: ``pool``, ``rounds``, ``hands``, ``eval_hands``,
``paid`` and ``paid_stderr`` (the ceiling against the true pool, bb/100), and ``models``:
per round ``round``, ``checkpoint``, ``promised``, ``promised_stderr``, ``ratio``
(promised / paid), ``kl``, ``fold_error`` (model minus truth), ``strength_truth`` and
``strength_model``; plus ``quick`` and ``seed``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from common import emit, print_table
from poolshark.analysis.model_error import model_error_of
from poolshark.evaluate.match import MatchConfig
from poolshark.experiments.pipeline import (
    POPULATION_RANGES,
    PipelineConfig,
    edge,
    ingest_stage,
    simulate_stage,
    start_run,
)
from poolshark.experiments.variants import train_variant
from poolshark.population.train import PopulationTrainConfig, imputer_settings, train_population


def options() -> argparse.Namespace:
    """The common benchmark options, the pool, the rounds and the run folder."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes: plumbing only")
    parser.add_argument("--seed", type=int, default=0, help="seed of every stage (default 0)")
    parser.add_argument("--json", action="store_true", help="print only the final JSON line")
    parser.add_argument("--pool", default="micro-zoom", help="development pool (micro-zoom)")
    parser.add_argument("--rounds", type=int, default=None, help="EM rounds (3; quick 2)")
    parser.add_argument("--out", type=Path, default=None, help="run folder (runs/em-rounds)")
    return parser.parse_args()


def sizes(quick: bool) -> dict[str, int]:
    """Hands, rounds and training lengths of a full or a quick run."""
    if quick:
        return {"hands": 1_000, "rounds": 2, "epochs": 1, "ceiling": 2, "tables": 64,
                "eval_hands": 600, "error_hands": 300}  # fmt: skip
    return {"hands": 40_000, "rounds": 3, "epochs": 4, "ceiling": 90, "tables": 1_024,
            "eval_hands": 40_000, "error_hands": 6_000}  # fmt: skip


def main() -> None:
    """Fit, train, measure and print the table and the JSON line."""
    args = options()
    size = sizes(args.quick)
    rounds = args.rounds if args.rounds is not None else size["rounds"]
    out = args.out or Path("runs/em-rounds-quick" if args.quick else "runs/em-rounds")
    config = PipelineConfig(
        pool=args.pool,
        seed=args.seed,
        hands=size["hands"],
        heldout_hands=max(1_000, size["hands"] // 2),
    )
    run = start_run(out, config)
    run.log = lambda line: None if args.json else print(line, flush=True)
    for name, stage in (("simulate", simulate_stage), ("ingest", ingest_stage)):
        if run.done(name) is None:
            run.finish(name, stage(run))
    folder = run.path("population-main")
    population = PopulationTrainConfig(
        rows=run.path("rows-main"),
        ranges=POPULATION_RANGES,
        **imputer_settings(f"em:{rounds}", args.pool),
        out=folder,
        epochs=size["epochs"],
        seed=args.seed,
        threads=1,
    )
    resume = (folder / "last.pt").exists() or any(folder.glob("em-*/last.pt"))
    final = train_population(population, resume=resume).best_checkpoint
    ceiling = train_variant(
        {"against": [f"pool:{args.pool}"]},
        run.path("ceiling"),
        iterations=size["ceiling"],
        tables=size["tables"],
        seed=args.seed,
        threads=1,
    ).checkpoint
    match = MatchConfig(hands=size["eval_hands"], seed=args.seed + 7)
    paid = edge(ceiling, f"pool:{args.pool}", match)
    checkpoints = [str(folder / f"em-{k}" / "best.pt") for k in range(rounds)] + [final]
    models: list[dict[str, Any]] = []
    for number, checkpoint in enumerate(checkpoints):
        promised = edge(ceiling, checkpoint, match)
        error = model_error_of(
            None, checkpoint, args.pool, hands=size["error_hands"], seed=args.seed + 7
        )["overall"]
        models.append(
            {
                "round": number,
                "checkpoint": checkpoint,
                "promised": promised["bb_per_100"],
                "promised_stderr": promised["stderr"],
                "ratio": promised["bb_per_100"] / paid["bb_per_100"],
                "kl": error["kl"],
                "fold_error": error["fold_error"],
                "strength_truth": error["continue_strength"]["truth"],
                "strength_model": error["continue_strength"]["model"],
            }
        )
    if not args.json:
        print_table(
            f"EM rounds on {args.pool}: the ceiling exploiter earns "
            f"{paid['bb_per_100']:+.1f} ± {paid['half_width']:.1f} bb/100 against the true pool",
            [
                "EM rounds",
                "ceiling vs model",
                "± (95%)",
                "promised / paid",
                "KL",
                "fold error",
                "strength truth",
                "strength model",
            ],
            [
                [
                    row["round"],
                    row["promised"],
                    1.96 * row["promised_stderr"],
                    row["ratio"],
                    row["kl"],
                    row["fold_error"],
                    row["strength_truth"],
                    row["strength_model"],
                ]
                for row in models
            ],
        )
    emit(
        {
            "pool": args.pool,
            "rounds": rounds,
            "hands": size["hands"],
            "eval_hands": size["eval_hands"],
            "paid": paid["bb_per_100"],
            "paid_stderr": paid["stderr"],
            "models": models,
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
