"""The exploiter's PPO update on 1 and on 2 data-parallel processes (torch DDP, gloo on CPU).

Run from the repository root::

    python benchmarks/ppo_ddp.py [--quick] [--seed N] [--json] [--threads N] [--updates N]

One rollout against micro-zoom is collected here (preset ``small-cpu``: minibatches of
512, a 2 x 128 network; 256 tables x 4 hands with ``--quick``, 1,024 x 8 without), then
the same PPO update on it (``ppo_update``: tensors, critic values, GAE, the minibatch
epochs) runs in 1 process and in 2 processes that each train on half of every minibatch
(:func:`~poolshark.training.distributed.launch`), every process on ``--threads`` torch
threads (default 1). Rates are transitions per *wall* second (each transition counted once
per PPO epoch), the median of ``--updates`` timed updates after one warm-up, timed by
process 0 between barriers: with several processes the wall clock is what shrinks, and on
a shared machine it also measures the other jobs, so the load average is printed beside it.

The last line printed is one JSON object: ``transitions``, ``epochs``, ``updates``,
``threads``, ``transitions_per_s`` (by process count), ``ratio_2_vs_1``,
``load_average_before`` and ``load_average_after`` (1-minute), ``cpus``, ``quick``,
``seed``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Sequence

import torch

from common import emit, house_parser, print_table
from poolshark.exploit.actor_critic import ActorCritic
from poolshark.exploit.data_parallel import PolicyAndValue
from poolshark.exploit.ppo import ExploitConfig, build_rollout, make_policy, ppo_update
from poolshark.exploit.rollout import RolloutBatch
from poolshark.training.distributed import current, launch

PROCESSES = (1, 2)


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The house options (``--quick``, ``--seed``, ``--json``), ``--threads``, ``--updates``."""
    parser = house_parser((__doc__ or "").splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch threads per process")
    parser.add_argument("--updates", type=int, default=3, help="timed updates (default 3)")
    return parser.parse_args(argv)


def new_learner(config: ExploitConfig) -> ActorCritic:
    """The run's freshly initialised learner (the same weights in every process)."""
    torch.manual_seed(config.seed)
    model = ActorCritic(
        config.seats, config.action_set().size, hidden=config.hidden, layers=config.layers
    )
    return model.eval()


def timed_updates(
    config: ExploitConfig, batch: RolloutBatch, updates: int, threads: int
) -> list[float]:
    """Wall seconds of each of ``updates`` PPO updates on ``batch`` after one warm-up (what
    every launched process runs; process 0's times are returned)."""
    torch.set_num_threads(threads)
    world = current()
    model = new_learner(config)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate, eps=1e-5)
    heads = world.wrap(PolicyAndValue(model))
    ppo_update(model, optimizer, batch, config, 0, world=world, heads=heads)
    seconds = []
    for iteration in range(1, updates + 1):
        world.barrier()
        started = time.perf_counter()
        ppo_update(model, optimizer, batch, config, iteration, world=world, heads=heads)
        world.barrier()
        seconds.append(time.perf_counter() - started)
    return seconds


def main() -> None:
    args = parse()
    config = ExploitConfig.model_validate(
        {
            "preset": "small-cpu",
            "tables": 256 if args.quick else 1_024,
            "hands_per_table": 4 if args.quick else 8,
            "seed": args.seed,
        }
    )
    torch.set_num_threads(args.threads)
    batch = build_rollout(config).collect(
        make_policy(new_learner(config)), seed=config.seed, iteration=0
    )
    load_before = os.getloadavg()[0]
    rates: dict[int, float] = {}
    for processes in PROCESSES:
        seconds = launch(timed_updates, processes, config, batch, args.updates, args.threads)
        rates[processes] = batch.size * config.epochs / statistics.median(seconds)
    load_after = os.getloadavg()[0]
    if not args.json:
        print_table(
            f"PPO update, {batch.size:,} transitions x {config.epochs} epochs, minibatches of "
            f"{config.minibatch_size}, {args.threads} torch thread(s) per process, "
            f"{os.cpu_count()} CPUs, load average {load_before:.2f} before, "
            f"{load_after:.2f} after",
            ["processes", "transitions / wall s", "vs 1 process"],
            [[p, rate, f"{rate / rates[1]:.2f}x"] for p, rate in rates.items()],
        )
    emit(
        {
            "transitions": batch.size,
            "epochs": config.epochs,
            "updates": args.updates,
            "threads": args.threads,
            "transitions_per_s": {str(p): rate for p, rate in rates.items()},
            "ratio_2_vs_1": rates[2] / rates[1],
            "load_average_before": load_before,
            "load_average_after": load_after,
            "cpus": os.cpu_count(),
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
