"""Training speed: samples per second of each model's full training step, next to its bare
forward and backward pass.

Run from the repository root::

    python benchmarks/train.py [--quick] [--seed N] [--json] [--device cpu|cuda] [--threads N]

Torch runs on ``--threads`` threads (default 1: on a shared 2-core machine two threads
were measured 45x slower under contention). On the CPU, rates are per CPU-second of this
process (``time.process_time``, all its threads counted), so other jobs on a shared machine
change them little; on a GPU they are per wall second. Every model is trained at its
config's default batch size and network, on real data made here (``--seed``):

* ``equity_seed``, ``equity_improved`` and ``equity_improved_bf16``: the equity network
  (seed architecture, and the improved one at the default width 768, in float32 and in
  bfloat16 mixed precision: fast where the CPU has AVX-512 BF16 or on a recent GPU),
  batches of 512 deals (a hole pair and a 3-5 card board with its exact equity against all
  1,326 combos; 7,000 deals, 21,000 without ``--quick``);
* ``oracle``: the range oracle, batches of 64 simulated micro-zoom hands (all questions
  about a hand: ``oracle_examples_per_s`` counts those);
* ``population``: the population action model, batches of 512 decision rows of simulated
  micro-zoom hands (opponent ranges ``uniform``: building exact ones costs minutes and
  gives inputs of the same shape);
* ``ppo`` and ``ppo_small_cpu``: the exploiter's PPO update on one collected rollout
  against micro-zoom (presets ``seed000``: minibatches of 128, 2 x 256 networks; ``small-cpu``:
  512, 2 x 128), counting each transition once per PPO epoch.

Two figures per model, in one run:

* **step**: the real training loop. For the three supervised models it is the trainer
  itself (``train_equity``, ``train_oracle``, ``train_population``) timed between its
  ``on_step`` callbacks, so each interval is one whole step: selecting and gathering the
  batch (the oracle builds its batch from the hands here), forward, loss, backward, the
  AdamW step, reading the loss (which waits for a GPU) and logging; the median interval
  after two warm-up steps.
  For PPO it is ``ppo_update`` on the rollout (tensors, critic values, GAE, then the
  minibatch epochs), the median of three calls.
* **bare**: the same network's forward pass, the same loss and the backward pass on one
  preallocated batch already on the device (no data handling, no optimizer step); the
  median of the timed repeats. For PPO the loss has the same terms (policy, entropy,
  value) without the clipping arithmetic.

``step / bare`` is the pipeline's efficiency: what the optimizer step and the data
handling cost on top of the model's own compute (1.0 would be free).

The last line printed is one JSON object with these keys:

* ``step_samples_per_s``, ``bare_samples_per_s``, ``step_vs_bare``: dicts keyed by the model
  names above (samples: deals, hands, rows or transitions);
* ``batch_size``, ``parameters``, ``steps_timed`` (PPO: updates): dicts by model;
* ``oracle_examples_per_s``: the oracle's step rate in questions rather than hands;
* ``ratio_seed_vs_improved_step`` and ``ratio_seed_vs_improved_bare``: the equity network's
  seed architecture over the improved one;
* ``ratio_bf16_vs_fp32_step`` and ``ratio_bf16_vs_fp32_bare``: the improved equity network
  trained in bfloat16 mixed precision (``precision = "bf16"``) over float32;
* ``clock``: ``cpu`` (CPU-seconds) or ``wall``;
* ``device``, ``threads``, ``quick``, ``seed``: the options given.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from common import emit, house_parser, print_table
from poolshark.equity_net.data import generate_dataset, load_dataset, save_dataset
from poolshark.equity_net.model import build_model, masked_mse
from poolshark.equity_net.train import EquityTrainConfig, to_samples, train_equity
from poolshark.exploit.actor_critic import ActorCritic, policy_terms
from poolshark.exploit.ppo import (
    ExploitConfig,
    Tensors,
    build_opponents,
    make_policy,
    ppo_update,
)
from poolshark.exploit.rollout import Rollout, RolloutBatch
from poolshark.oracle import batches as obatch
from poolshark.oracle import data as od
from poolshark.oracle.loss import batch_loss
from poolshark.oracle.model import BatchTensors, build_oracle
from poolshark.oracle.train import SIM_TABLES, OracleTrainConfig, train_oracle
from poolshark.pool.pools import load_pool
from poolshark.pool.simulate import simulate
from poolshark.population.data import load_dataset as load_action_dataset
from poolshark.population.model import FeatureTensors, PopulationNet, masked_nll
from poolshark.population.train import PopulationTrainConfig, train_population
from poolshark.training.common import Precision, autocast, count_parameters, require_device

WARM_UP = 2
"""Steps run before timing starts (first-call allocations, numba and torch warm-up)."""
UNITS = {
    "equity_seed": "deals",
    "equity_improved": "deals",
    "equity_improved_bf16": "deals",
    "oracle": "hands",
    "population": "rows",
    "ppo": "transitions",
    "ppo_small_cpu": "transitions",
}


@dataclass(frozen=True)
class Sizes:
    """How much data and how many timed steps a run uses."""

    equity_deals: int
    equity_steps: int
    oracle_hands: int
    oracle_steps: int
    population_hands: int
    population_steps: int
    ppo_tables: int
    ppo_hands: int
    ppo_updates: int
    bare_repeats: int

    @classmethod
    def of(cls, quick: bool) -> Sizes:
        """The sizes of a ``--quick`` run (under a minute) or of a full one."""
        scale = 1 if quick else 3
        return cls(
            equity_deals=7_000 * scale,
            equity_steps=6 * scale,
            oracle_hands=600 * scale,
            oracle_steps=5 * scale,
            population_hands=1_200 * scale,
            population_steps=12 * scale,
            ppo_tables=256 if quick else 1_024,
            ppo_hands=4 if quick else 8,
            ppo_updates=3,
            bare_repeats=6 * scale,
        )


@dataclass(frozen=True)
class Figures:
    """One model's measurements."""

    batch: int
    parameters: int
    step_per_s: float
    bare_per_s: float
    steps: int


class EnoughStepsError(Exception):
    """Raised from a trainer's ``on_step`` once enough steps are timed."""


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The house options (``--quick``, ``--seed``, ``--json``), ``--device``, ``--threads``."""
    parser = house_parser((__doc__ or "").splitlines()[0])
    parser.add_argument("--device", default="cpu", help="torch device: cpu, cuda, cuda:N")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    return parser.parse_args(argv)


def now(device: str) -> float:
    """The benchmark's clock: on the CPU, CPU-seconds of this process (all its threads; steady
    on a busy shared machine, where wall time mostly measures the other jobs); on a GPU, wall
    seconds once the queued work is done."""
    if device == "cpu":
        return time.process_time()
    torch.cuda.synchronize(torch.device(device))
    return time.perf_counter()


def trainer_step_seconds(
    run: Callable[[Callable[[int, int], None]], object], steps: int, device: str
) -> float:
    """Median seconds between a trainer's ``on_step`` calls (one whole training step each),
    over ``steps`` steps after the warm-up; the run is stopped once they are timed."""
    stamps: list[float] = []

    def on_step(_done: int, _total: int) -> None:
        stamps.append(now(device))
        if len(stamps) == WARM_UP + steps + 1:
            raise EnoughStepsError

    with contextlib.suppress(EnoughStepsError):
        run(on_step)
    intervals = np.diff(stamps[WARM_UP:])
    if intervals.size < steps:
        raise RuntimeError(f"the run ended after {len(stamps)} steps; {steps} were to be timed")
    return float(np.median(intervals))


def bare_seconds(work: Callable[[], None], repeats: int, device: str) -> float:
    """Median seconds of ``work()`` (forward, loss and backward), after the warm-up."""
    for _ in range(WARM_UP):
        work()
    times = []
    for _ in range(repeats):
        started = now(device)
        work()
        times.append(now(device) - started)
    return statistics.median(times)


def backward_of(model: torch.nn.Module, loss: Callable[[], torch.Tensor]) -> Callable[[], None]:
    """One bare step: clear the gradients, compute ``loss()``, backpropagate."""

    def work() -> None:
        model.zero_grad(set_to_none=True)
        loss().backward()  # type: ignore[no-untyped-call]

    return work


def equity(
    arch: str,
    data: Path,
    folder: Path,
    sizes: Sizes,
    device: str,
    threads: int,
    precision: Precision = "fp32",
) -> Figures:
    """The equity network: its trainer's step and the bare pass on one batch of 512."""
    config = EquityTrainConfig(
        data=data,
        out=folder / f"{arch}-{precision}",
        arch=arch,
        epochs=1,
        device=device,
        threads=threads,
        precision=precision,
    )
    step = trainer_step_seconds(
        lambda on_step: train_equity(config, on_step=on_step), sizes.equity_steps, device
    )
    torch.manual_seed(0)
    model = build_model(arch, config.model_hyperparameters()).to(torch.device(device)).train()
    batch = config.batch_size
    samples = to_samples(load_dataset(data), slice(0, batch), device)
    holes, boards, target, mask = samples.batch(torch.arange(batch, device=torch.device(device)))

    def loss() -> torch.Tensor:
        with autocast(torch.device(device), precision):
            predicted = model(holes, boards)
        return masked_mse(predicted.float(), target, mask)

    bare = bare_seconds(backward_of(model, loss), sizes.bare_repeats, device)
    return Figures(batch, count_parameters(model), batch / step, batch / bare, sizes.equity_steps)


def oracle(
    folder: Path, sizes: Sizes, seed: int, device: str, threads: int
) -> tuple[Figures, float]:
    """The range oracle: its trainer's step and the bare pass on one batch of 64 hands; and
    the data's questions (examples) per hand."""
    hands = simulate(load_pool("micro-zoom"), sizes.oracle_hands, seed=seed, tables=SIM_TABLES)
    train, val = od.from_simulation(hands, exact=False, seed=seed).split(0.1, seed=seed)
    config = OracleTrainConfig(
        out=folder / "oracle",
        pool="micro-zoom",
        hands=sizes.oracle_hands,
        data_seed=seed,
        device=device,
        threads=threads,
    )
    step = trainer_step_seconds(
        lambda on_step: train_oracle(config, data=(train, val), on_step=on_step),
        sizes.oracle_steps,
        device,
    )
    torch.manual_seed(0)
    net = build_oracle(config.model_hyperparameters()).to(torch.device(device)).train()
    batch = config.batch_hands
    chosen = np.arange(batch, dtype=np.int64)
    tensors = BatchTensors.of(
        obatch.make_batch(train, chosen, obatch.example_starts(train)), device
    )

    def loss() -> torch.Tensor:
        return batch_loss(net(tensors), tensors, config.mode, config.effective_batch_weight).loss

    bare = bare_seconds(backward_of(net, loss), sizes.bare_repeats, device)
    figures = Figures(batch, count_parameters(net), batch / step, batch / bare, sizes.oracle_steps)
    return figures, len(train) / train.hands


def population(folder: Path, sizes: Sizes, seed: int, device: str, threads: int) -> Figures:
    """The population model: its trainer's step and the bare pass on one batch of 512 rows."""
    config = PopulationTrainConfig(
        out=folder / "population",
        pool="micro-zoom",
        hands=sizes.population_hands,
        simulation_seed=seed,
        ranges="uniform",
        epochs=1,
        device=device,
        threads=threads,
    )
    step = trainer_step_seconds(
        lambda on_step: train_population(config, on_step=on_step),
        sizes.population_steps,
        device,
    )
    torch.manual_seed(0)
    model = PopulationNet(
        width=config.width,
        depth=config.depth,
        class_embedding=config.class_embedding,
        opponent_width=config.opponent_width,
        dropout=config.dropout,
    )
    model.to(torch.device(device)).train()
    batch = config.batch_size
    rows = load_action_dataset(folder / "population" / "data.npz").subset(slice(0, batch))
    features = FeatureTensors.of(rows.features, device)
    target = torch.as_tensor(rows.target, dtype=torch.long, device=torch.device(device))
    bare = bare_seconds(
        backward_of(model, lambda: masked_nll(model(features), target)),
        sizes.bare_repeats,
        device,
    )
    return Figures(
        batch, count_parameters(model), batch / step, batch / bare, sizes.population_steps
    )


def ppo(preset: str, sizes: Sizes, seed: int, device: str, threads: int) -> Figures:
    """The PPO update on one rollout, and the bare pass on one minibatch of it."""
    config = ExploitConfig.model_validate(
        {
            "preset": preset,
            "tables": sizes.ppo_tables,
            "hands_per_table": sizes.ppo_hands,
            "seed": seed,
            "device": device,
            "threads": threads,
        }
    )
    actions = config.action_set()
    torch.manual_seed(config.seed)
    model = ActorCritic(config.seats, actions.size, hidden=config.hidden, layers=config.layers)
    model.to(torch.device(device)).eval()
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate, eps=1e-5)
    rollout = Rollout(config.rollout_settings(), actions, build_opponents(config))
    batch: RolloutBatch = rollout.collect(make_policy(model), seed=config.seed, iteration=0)
    ppo_update(model, optimizer, batch, config, 0)  # warm-up
    times = []
    for iteration in range(1, sizes.ppo_updates + 1):
        started = now(device)
        ppo_update(model, optimizer, batch, config, iteration)
        times.append(now(device) - started)
    transitions = batch.size * config.epochs
    step = statistics.median(times)

    size = min(config.minibatch_size, batch.size)
    tensors = Tensors.of(batch, torch.device(device))
    inputs, masks = tensors.inputs[:size], tensors.masks[:size]
    cards, showdown, taken = tensors.cards[:size], tensors.showdown[:size], tensors.actions[:size]
    returns = torch.zeros(size, device=torch.device(device))

    def loss() -> torch.Tensor:
        log_probs, entropy = policy_terms(model.logits(inputs, masks), masks, taken)
        value = model.value(inputs, cards, showdown)
        policy_loss = -log_probs.mean() - config.entropy_coef * entropy.mean()
        return policy_loss + config.value_coef * 0.5 * ((value - returns) ** 2).mean()

    model.train()
    bare = bare_seconds(backward_of(model, loss), sizes.bare_repeats * 5, device)
    return Figures(
        size, count_parameters(model), transitions / step, size / bare, sizes.ppo_updates
    )


def main() -> None:
    args = parse()
    try:
        require_device(args.device, ValueError)
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None
    torch.set_num_threads(args.threads)
    sizes = Sizes.of(args.quick)
    results: dict[str, Figures] = {}
    with tempfile.TemporaryDirectory(prefix="poolshark-train-bench-") as tmp:
        folder = Path(tmp)
        deals = generate_dataset(sizes.equity_deals, args.seed, threads=1)
        data = save_dataset(deals, folder / "equity.npz")
        for arch in ("seed", "improved"):
            results[f"equity_{arch}"] = equity(arch, data, folder, sizes, args.device, args.threads)
        results["equity_improved_bf16"] = equity(
            "improved", data, folder, sizes, args.device, args.threads, "bf16"
        )
        results["oracle"], examples_per_hand = oracle(
            folder, sizes, args.seed, args.device, args.threads
        )
        results["population"] = population(folder, sizes, args.seed, args.device, args.threads)
    results["ppo"] = ppo("seed000", sizes, args.seed, args.device, args.threads)
    results["ppo_small_cpu"] = ppo("small-cpu", sizes, args.seed, args.device, args.threads)

    seed_arch, improved = results["equity_seed"], results["equity_improved"]
    bf16 = results["equity_improved_bf16"]
    if not args.json:
        print_table(
            f"Training samples per {'CPU-' if args.device == 'cpu' else 'wall '}second,"
            f" {args.device}, {args.threads} torch thread(s)",
            ["model", "unit", "batch", "parameters", "step /s", "bare /s", "step / bare"],
            [
                [name, UNITS[name], f.batch, f.parameters, f.step_per_s, f.bare_per_s,
                 f"{f.step_per_s / f.bare_per_s:.2f}"]
                for name, f in results.items()
            ],
        )  # fmt: skip
        print_table(
            "Equity network, seed vs improved",
            ["figure", "seed /s", "improved /s", "seed is"],
            [
                ["step", seed_arch.step_per_s, improved.step_per_s,
                 f"{seed_arch.step_per_s / improved.step_per_s:.2f}x"],
                ["bare", seed_arch.bare_per_s, improved.bare_per_s,
                 f"{seed_arch.bare_per_s / improved.bare_per_s:.2f}x"],
            ],
        )  # fmt: skip
        print_table(
            "Improved equity network, bfloat16 mixed precision vs float32",
            ["figure", "fp32 /s", "bf16 /s", "bf16 is"],
            [
                ["step", improved.step_per_s, bf16.step_per_s,
                 f"{bf16.step_per_s / improved.step_per_s:.2f}x"],
                ["bare", improved.bare_per_s, bf16.bare_per_s,
                 f"{bf16.bare_per_s / improved.bare_per_s:.2f}x"],
            ],
        )  # fmt: skip
    emit(
        {
            "step_samples_per_s": {name: f.step_per_s for name, f in results.items()},
            "bare_samples_per_s": {name: f.bare_per_s for name, f in results.items()},
            "step_vs_bare": {name: f.step_per_s / f.bare_per_s for name, f in results.items()},
            "batch_size": {name: f.batch for name, f in results.items()},
            "parameters": {name: f.parameters for name, f in results.items()},
            "steps_timed": {name: f.steps for name, f in results.items()},
            "oracle_examples_per_s": results["oracle"].step_per_s * examples_per_hand,
            "ratio_seed_vs_improved_step": seed_arch.step_per_s / improved.step_per_s,
            "ratio_seed_vs_improved_bare": seed_arch.bare_per_s / improved.bare_per_s,
            "ratio_bf16_vs_fp32_step": bf16.step_per_s / improved.step_per_s,
            "ratio_bf16_vs_fp32_bare": bf16.bare_per_s / improved.bare_per_s,
            "clock": "cpu" if args.device == "cpu" else "wall",
            "device": args.device,
            "threads": args.threads,
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
