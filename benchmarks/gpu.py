"""CPU and GPU side by side: every trainer's samples per second and the exploiter's rollout
decisions per second, on each device this machine has, in one run.

Run from the repository root::

    python benchmarks/gpu.py [--quick] [--seed N] [--json] [--threads N]

It runs ``benchmarks/train.py`` (each model's real training step: equity network in
float32 and bfloat16, range oracle, population model, the PPO update) and
``benchmarks/rollout.py`` (the exploiter's whole rollout loop against micro-zoom's styles,
and against a population-model stand-in) once per device, ``--device cpu`` and, where torch
sees a CUDA GPU, ``--device cuda``, each in its own process, and sets their figures side
by side. CPU rates are per CPU-second of ``--threads`` torch threads (default 1), GPU rates
per wall second. Without a GPU it prints the CPU column and says so; it never fails for
want of one. ``--quick`` runs each script's quick run: about 3 minutes on this 2-core
machine's CPU alone (the scripts' own quick runs are each under a minute).

The last line printed is one JSON object with these keys:

* ``devices``: the devices measured (``["cpu"]`` or ``["cpu", "cuda"]``), ``gpu_name``
  (None without one);
* ``train_samples_per_s``: ``{device: {model: samples/s}}`` (``train.py``'s
  ``step_samples_per_s``);
* ``rollout_learner_decisions_per_s``: ``{device: {row: decisions/s}}`` for the rows
  ``pool`` and ``model`` of ``rollout.py``;
* ``gpu_vs_cpu``: ``{name: cuda / cpu}`` for every figure measured on both (absent without a
  GPU);
* ``quick``, ``seed``, ``threads``: the options given.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from common import house_parser, print_table

HERE = Path(__file__).resolve().parent
ROLLOUT_ROWS = ("pool", "model")
"""The rollout rows compared: against the true styles, and against a learned-model stand-in."""


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = house_parser(__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    return parser.parse_args(argv)


def figures_of(script: str, device: str, args: argparse.Namespace) -> dict[str, Any]:
    """The JSON line of ``benchmarks/SCRIPT --device DEVICE --json`` run in its own process."""
    command = [sys.executable, str(HERE / script), "--json", "--device", device]
    command += ["--seed", str(args.seed)] + (["--quick"] if args.quick else [])
    if script == "train.py":
        command += ["--threads", str(args.threads)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{script} --device {device} failed:\n{done.stderr[-2000:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    args = parse()
    devices = ["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"]
    train: dict[str, dict[str, float]] = {}
    rollout: dict[str, dict[str, float]] = {}
    for device in devices:
        train[device] = figures_of("train.py", device, args)["step_samples_per_s"]
        measured = figures_of("rollout.py", device, args)
        rollout[device] = {row: measured[f"{row}_learner_decisions_per_s"] for row in ROLLOUT_ROWS}
    ratios: dict[str, float] = {}
    if "cuda" in devices:
        for name, cpu_rate in train["cpu"].items():
            if cpu_rate and name in train["cuda"]:
                ratios[f"train_{name}"] = train["cuda"][name] / cpu_rate
        for row in ROLLOUT_ROWS:
            ratios[f"rollout_{row}"] = rollout["cuda"][row] / rollout["cpu"][row]
    gpu_name = torch.cuda.get_device_name(0) if "cuda" in devices else None
    if not args.json:
        columns = ["figure", *(f"{device} /s" for device in devices)]
        if "cuda" in devices:
            columns.append("cuda / cpu")
        rows: list[list[object]] = []
        for name in train["cpu"]:
            rates = [train[device].get(name, float("nan")) for device in devices]
            ratio = [ratios[f"train_{name}"]] if f"train_{name}" in ratios else []
            rows.append([f"train {name} (samples)", *rates, *ratio])
        for row in ROLLOUT_ROWS:
            rates = [rollout[device][row] for device in devices]
            ratio = [ratios[f"rollout_{row}"]] if ratios else []
            rows.append([f"rollout vs {row} (learner decisions)", *rates, *ratio])
        title = f"CPU ({args.threads} torch threads)" + (
            f" and GPU ({gpu_name})" if gpu_name else ", no CUDA GPU"
        )
        print_table(title, columns, rows)
    print(
        json.dumps(
            {
                "devices": devices,
                "gpu_name": gpu_name,
                "train_samples_per_s": train,
                "rollout_learner_decisions_per_s": rollout,
                "gpu_vs_cpu": ratios,
                "quick": args.quick,
                "seed": args.seed,
                "threads": args.threads,
            }
        )
    )


if __name__ == "__main__":
    main()
