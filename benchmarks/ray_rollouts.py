"""Exploiter rollouts on Ray actors: learner decisions/s in-process, on 1 and on 2 workers.

Run from the repository root::

    python benchmarks/ray_rollouts.py [--quick] [--seed N] [--json] [--against SPEC]

One PPO iteration's collection (``exploit.rollout.Rollout.collect``: 6-max, 100 bb, the
untrained 2 x 256 actor-critic on one torch thread, micro-zoom's true styles as opponents,
or the agent ``--against`` names: a population-model checkpoint, a distilled student ...)
timed three ways in one run: in-process, over one Ray actor and over two
(``exploit.remote.RayRollouts``: the tables split between the actors, the weights sent to
them and the parts merged, all inside the timing). A local Ray instance with 2 CPUs is
started and stopped here; each actor is warmed up (opponents loaded, numba caches read)
before it is timed. Each rate is the best of the repeats.

The last line printed is one JSON object with these keys: ``in_process_``, ``ray_1_`` and
``ray_2_learner_decisions_per_s``; ``scaling_efficiency`` (ray_2 / (2 x ray_1));
``ratio_ray_1_vs_in_process``; ``ratio_ray_2_vs_in_process``; ``cpus`` (the cores this
machine reports); ``load_average_start`` and ``load_average_end`` (1-minute: a second
worker only helps on a free core); ``against``, ``tables``, ``hands_per_table``,
``repeats``, ``quick``, ``seed``.
"""

from __future__ import annotations

import os
import time
from functools import partial

import torch

from common import emit, house_parser, print_table
from poolshark.exploit.actor_critic import ActorCritic
from poolshark.exploit.ppo import ExploitConfig, build_rollout, make_policy, worker_rollout
from poolshark.exploit.remote import RayRollouts
from poolshark.exploit.rollout import RolloutBatch


def best_rate(collect: partial[RolloutBatch], repeats: int) -> float:
    """Learner decisions per second of the fastest of ``repeats`` collections."""
    best = 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        batch = collect()
        best = max(best, batch.size / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = house_parser(__doc__ or "")
    parser.add_argument("--against", default="pool:micro-zoom", help="the opponents' agent spec")
    args = parser.parse_args()
    import ray  # lazy: optional dependency (the ray extra)

    torch.set_num_threads(1)
    load_start = os.getloadavg()[0]
    tables, hands, repeats = (256, 4, 2) if args.quick else (1024, 8, 3)
    config = ExploitConfig(against=[args.against], tables=tables, hands_per_table=hands, threads=1)
    torch.manual_seed(args.seed)
    model = ActorCritic(config.seats, config.action_set().size, hidden=config.hidden).eval()
    policy = make_policy(model)
    rollout = build_rollout(config)
    rollout.collect(policy, seed=args.seed, iteration=0)  # compile and warm up
    rates = {
        "in_process": best_rate(
            partial(rollout.collect, policy, seed=args.seed, iteration=1), repeats
        )
    }
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        for workers in (1, 2):
            remote = RayRollouts(partial(worker_rollout, config), make_policy, tables, workers)
            try:
                remote.collect(model, seed=args.seed, iteration=0)
                collect = partial(remote.collect, model, seed=args.seed, iteration=1)
                rates[f"ray_{workers}"] = best_rate(collect, repeats)
            finally:
                remote.close()
    finally:
        ray.shutdown()
    base, one, two = rates["in_process"], rates["ray_1"], rates["ray_2"]
    efficiency = two / (2 * one)
    if not args.json:
        print_table(
            f"Exploiter rollout, {tables:,} tables x {hands} hands vs {args.against} "
            f"({os.cpu_count()} cores)",
            ["where", "learner decisions/s", "vs in-process"],
            [
                ["in-process", round(base), 1.0],
                ["Ray, 1 worker", round(one), one / base],
                ["Ray, 2 workers", round(two), two / base],
            ],
        )
        print(f"scaling efficiency 2 workers / (2 x 1 worker): {efficiency:.2f}")
    emit(
        {
            "in_process_learner_decisions_per_s": base,
            "ray_1_learner_decisions_per_s": one,
            "ray_2_learner_decisions_per_s": two,
            "scaling_efficiency": efficiency,
            "ratio_ray_1_vs_in_process": one / base,
            "ratio_ray_2_vs_in_process": two / base,
            "cpus": os.cpu_count(),
            "load_average_start": load_start,
            "load_average_end": os.getloadavg()[0],
            "against": args.against,
            "tables": tables,
            "hands_per_table": hands,
            "repeats": repeats,
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
