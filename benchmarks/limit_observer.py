"""The observer model's fit on lines drawn from a known observer: conditional-likelihood
forward-backward gradient ascent with per-type learning-rate normalization against the
plain averaged gradient at the same learning rate, from the same start.

Run from the repository root::

    python benchmarks/limit_observer.py [--quick] [--seed N] [--json]

The known model has 8 card types and an action function with values large enough for the
types to change the play (random values, spread 2); lines run to a random stage with two
decisions per stage and a showdown bucket on every river line (``observer.sample_lines``).
Figures are log-likelihoods per decision (the showdowns included in the total) of the true
model, the start and each fit after every ``report`` steps, on the training lines and on
as many fresh lines from the same model (held out), and seconds per step.

The last line printed is one JSON object: ``truth`` and ``start`` ([train, held out]),
``normalized_train``, ``normalized_held_out``, ``plain_train`` and ``plain_held_out``
(one entry per report), ``steps``, ``lines``, ``decisions``,
``step_seconds``, ``quick`` and ``seed``.
"""

from __future__ import annotations

import copy
import time

import torch

from common import emit, parse_args, print_table
from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.observer import Observer, PlayerLine, sample_lines


def known_action_function(seed: int) -> ActionFunction:
    """An action function whose values are large enough for the card types to matter."""
    model = ActionFunction(seed=seed)
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for values in model.values:
            values.copy_(2.0 * torch.randn(values.shape, generator=generator))
    return model


def per_decision(observer: Observer, lines: list[PlayerLine]) -> float:
    """Log-likelihood of ``lines`` per decision."""
    return observer.log_likelihood(lines) / sum(int(line.stages.shape[0]) for line in lines)


def main() -> None:
    args = parse_args(__doc__ or "")
    torch.set_num_threads(1)
    lines_count, steps, report = (200, 20, 5) if args.quick else (1000, 60, 10)
    action_function = known_action_function(args.seed)
    truth = Observer(action_function, seed=args.seed, init_scale=2.0)
    lines = sample_lines(truth, lines_count, args.seed)
    held_out = sample_lines(truth, lines_count, args.seed + 1000)
    decisions = sum(line.stages.shape[0] for line in lines)
    start = Observer(action_function, seed=args.seed + 1, init_scale=0.1)
    fits = {"normalized": start, "plain": copy.deepcopy(start)}
    curves: dict[str, list[float]] = {
        f"{name}_{part}": [] for name in fits for part in ("train", "held_out")
    }
    began = time.perf_counter()
    for step in range(1, steps + 1):
        for name, observer in fits.items():
            observer.step(lines, learning_rate=1.0, normalize=name == "normalized")
        if step % report == 0:
            for name, observer in fits.items():
                curves[f"{name}_train"].append(per_decision(observer, lines))
                curves[f"{name}_held_out"].append(per_decision(observer, held_out))
    step_seconds = (time.perf_counter() - began) / (2 * steps)
    fresh = Observer(action_function, seed=args.seed + 1, init_scale=0.1)
    truth_ll = [per_decision(truth, lines), per_decision(truth, held_out)]
    start_ll = [per_decision(fresh, lines), per_decision(fresh, held_out)]
    if not args.json:
        rows: list[list[object]] = [
            ["true model", *truth_ll, *truth_ll],
            ["start", *start_ll, *start_ll],
        ]
        rows += [
            [f"after {(i + 1) * report} steps", *(curves[name][i] for name in curves)]
            for i in range(steps // report)
        ]
        print_table(
            f"observer fit, {lines_count} lines ({decisions} decisions) and as many held out: "
            "log-likelihood per decision",
            ["", *curves],
            rows,
        )
    emit(
        {
            "truth": truth_ll,
            "start": start_ll,
            **curves,
            "steps": steps,
            "lines": lines_count,
            "decisions": decisions,
            "step_seconds": step_seconds,
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
