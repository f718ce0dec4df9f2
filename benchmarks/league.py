"""Self-play league speed: an epoch's rollouts and its REINFORCE update, per network and
device, side by side in one run.

Run from the repository root::

    python benchmarks/league.py [--quick] [--seed N] [--json] [--threads N]
                                [--devices cpu,cuda] [--architectures mlp,cnn,transformer]

Each row trains a fresh league for three epochs (``league.train.train_league``, 6-max
cash games, 50-200 big blinds, the learner against the snapshot pool) with one network
architecture (``mlp``, ``cnn``, ``transformer``) on one device, and splits every
epoch into its rollouts (``collect_in_process``: the batched play loop, the learner's and
the snapshots' forward passes) and its update (critic fit, the unrolled replay through the
recurrent memory, the loss, the backward pass and the optimizer step). The first epoch,
which compiles the engine and warms the device, is not counted. ``--devices`` defaults to
``cpu`` plus ``cuda`` where torch sees a GPU; CPU figures use ``--threads`` torch threads
(default 1), so a GPU row compares one GPU with that many cores.

The last line printed is one JSON object with these keys:

* ``rows``: ``{"ARCH@DEVICE": {...}}`` with ``rollout_decisions_per_s`` (learner decisions
  per second of rollouts), ``update_decisions_per_s`` (learner decisions per second of
  update), ``epoch_decisions_per_s`` (both together), ``decisions_per_epoch``, ``epochs``;
* ``gpu_vs_cpu``: ``{"ARCH": {"rollout": r, "update": u, "epoch": e}}``, cuda / cpu, for
  every architecture measured on both (absent without a GPU);
* ``games_per_epoch``, ``hands_per_game``, ``threads``, ``gpu_name``, ``quick``, ``seed``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from common import emit, house_parser, print_table
from poolshark.league.config import LeagueConfig
from poolshark.league.nets import PokerNet
from poolshark.league.rollout import EpochPlan, Experience
from poolshark.league.train import collect_in_process, train_league

ARCHITECTURES = ("mlp", "cnn", "transformer")


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The house options and ``--threads`` / ``--devices``."""
    parser = house_parser(__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    parser.add_argument("--devices", default=None, help="comma-separated torch devices")
    parser.add_argument(
        "--architectures", default=",".join(ARCHITECTURES), help="comma-separated networks"
    )
    return parser.parse_args(argv)


class TimedCollector:
    """``collect_in_process`` with a stopwatch: the seconds of each epoch's rollouts."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    def __call__(
        self,
        plan: EpochPlan,
        learner: PokerNet,
        opponents: list[Path],
        fixed: list[str],
        seed: int,
        epoch: int,
    ) -> Experience:
        began = time.perf_counter()
        experience = collect_in_process(plan, learner, opponents, fixed, seed, epoch)
        self.seconds.append(time.perf_counter() - began)
        return experience


def measure(architecture: str, device: str, args: argparse.Namespace) -> dict[str, float]:
    """Rollout, update and whole-epoch learner decisions per second of one league run."""
    games, hands, epochs = (64, 10, 3) if args.quick else (256, 25, 3)
    config = LeagueConfig.load(
        None,
        **{"seed": args.seed, "device": device, "threads": args.threads,
           "net.architecture": architecture, "game.games_per_epoch": games,
           "game.hands_per_game": hands, "learning.epochs": epochs, "save_every": epochs},
    )  # fmt: skip
    timer = TimedCollector()
    with tempfile.TemporaryDirectory() as folder:
        result = train_league(config, Path(folder) / "run", collector=timer)
    counted = result.history[1:]
    decisions = float(sum(row["decisions"] for row in counted))
    rollout = float(sum(timer.seconds[1:]))
    total = float(sum(row["seconds"] for row in counted))
    return {
        "rollout_decisions_per_s": decisions / rollout,
        "update_decisions_per_s": decisions / max(total - rollout, 1e-9),
        "epoch_decisions_per_s": decisions / total,
        "decisions_per_epoch": float(np.mean([row["decisions"] for row in counted])),
        "epochs": float(len(counted)),
    }


def main() -> None:
    args = parse()
    torch.set_num_threads(args.threads)
    devices = (
        args.devices.split(",")
        if args.devices
        else ["cpu", "cuda"]
        if torch.cuda.is_available()
        else ["cpu"]
    )
    rows: dict[str, dict[str, float]] = {}
    for device in devices:
        for architecture in args.architectures.split(","):
            rows[f"{architecture}@{device}"] = measure(architecture, device, args)
    ratios: dict[str, dict[str, float]] = {}
    cuda = next((d for d in devices if d.startswith("cuda")), None)
    if cuda is not None and "cpu" in devices:
        for architecture in args.architectures.split(","):
            gpu, cpu = rows[f"{architecture}@{cuda}"], rows[f"{architecture}@cpu"]
            ratios[architecture] = {
                part: gpu[f"{part}_decisions_per_s"] / cpu[f"{part}_decisions_per_s"]
                for part in ("rollout", "update", "epoch")
            }
    gpu_name = torch.cuda.get_device_name(0) if cuda is not None else None
    if not args.json:
        table: list[list[object]] = []
        for name, row in rows.items():
            architecture = name.split("@")[0]
            ratio = ratios.get(architecture, {}).get("epoch") if name.endswith(str(cuda)) else None
            table.append(
                [
                    name,
                    row["rollout_decisions_per_s"],
                    row["update_decisions_per_s"],
                    row["epoch_decisions_per_s"],
                    row["decisions_per_epoch"],
                    "" if ratio is None else f"{ratio:.2f}x",
                ]
            )
        print_table(
            f"League epoch speed (learner decisions/s; CPU on {args.threads} torch threads"
            + (f", GPU {gpu_name})" if gpu_name else ")"),
            ["net@device", "rollout /s", "update /s", "epoch /s", "decisions/epoch", "gpu/cpu"],
            table,
        )
    games, hands = (64, 10) if args.quick else (256, 25)
    figures: dict[str, Any] = {
        "rows": rows,
        "gpu_vs_cpu": ratios,
        "games_per_epoch": games,
        "hands_per_game": hands,
        "threads": args.threads,
        "gpu_name": gpu_name,
        "quick": args.quick,
        "seed": args.seed,
    }
    emit(figures)


if __name__ == "__main__":
    main()
