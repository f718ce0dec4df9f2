"""Streamed equity-network training (issue 23): peak memory and throughput of the in-memory
path (a ``.npz`` dataset file, every sample held, float16 equities) and the streamed path
(a shard folder of exact scores read in shuffled fills) on the same samples, at two dataset
sizes, and what the float16 targets cost against exact float32 ones.

Run from the repository root::

    python benchmarks/stream_equity.py [--quick] [--seed N] [--json] [--samples N N]

``--base`` exact samples are generated once (``generate_dataset``) and repeated to each
size (row ``i`` is base sample ``i mod base``): memory and speed depend on the number of
rows, not on their being distinct, and generating 400,000 distinct flops would take an
hour here. Each size is written both ways, ``.npz`` (``save_dataset``) and shards
(``write_dataset_shards``, scores recovered exactly from the float16 file). A separate
validation set (``--base`` samples of seed + 1) is written both ways too. Each training run
happens in a fresh child process (``train_equity``, one torch thread, one epoch, an improved
network of width 256, batch 512), which reports:

* ``peak_rss_mb``: the child's peak resident memory (``VmHWM``), all of the run: loading,
  training, validation; ``base_rss_mb`` the same process before it reads a sample;
* ``samples_per_cpu_s`` and ``samples_per_s``: training samples per CPU-second of the
  child and per wall second over the steps (between consecutive ``on_step`` calls; the
  streamed path's reads and decompression included);
* ``val_mse``: the run's best validation MSE on its own validation set, and
  ``val_mse_exact``: the best checkpoint's MSE on the exact (float32) validation targets,
  the same for both paths: the in-memory run trains on float16 targets, the streamed one on
  exact ones.

The last line printed is one JSON object: ``runs``, ``disk_mb`` (``npz`` and ``shards`` per
size), ``ratio_samples_per_cpu_s`` and ``ratio_peak_rss`` (streamed over in-memory, per
size), ``rss_growth_mb`` (peak RSS of the larger size minus the smaller, per path),
``float16_max_error`` (largest |float16 - float32| equity of the base samples), and the
options given.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from common import emit, print_table
from poolshark.equity_net.data import EquityDataset, generate_dataset, save_dataset, true_equities
from poolshark.equity_net.shards import write_dataset_shards
from poolshark.equity_net.train import EquityTrainConfig, evaluate_checkpoint, train_equity
from stream import peak_rss_mb

CHILD = "--child"
NETWORK = {"arch": "improved", "width": 256, "blocks": 1, "head": 256}


def child(config_json: str, exact_val: str) -> None:
    """Train one run as the config says and print its figures (one JSON line)."""
    torch.set_num_threads(1)
    config = EquityTrainConfig.model_validate(json.loads(config_json))
    stamps: list[tuple[float, float]] = []
    epochs_ended: list[int] = []
    base = peak_rss_mb()
    started = time.perf_counter()
    result = train_equity(
        config,
        on_step=lambda _step, _total: stamps.append((time.perf_counter(), time.process_time())),
        on_epoch=lambda _entry: epochs_ended.append(len(stamps)),
    )
    run_s = time.perf_counter() - started
    peak = peak_rss_mb()
    timed = [i for i in range(1, len(stamps)) if i not in set(epochs_ended)]
    seconds = sum(stamps[i][0] - stamps[i - 1][0] for i in timed)
    cpu_seconds = sum(stamps[i][1] - stamps[i - 1][1] for i in timed)
    samples = len(timed) * config.batch_size
    exact, _ = evaluate_checkpoint(Path(result.best_checkpoint), Path(exact_val))
    print(
        json.dumps(
            {
                "peak_rss_mb": peak,
                "base_rss_mb": base,
                "samples_per_s": samples / seconds if seconds > 0 else 0.0,
                "samples_per_cpu_s": samples / cpu_seconds if cpu_seconds > 0 else 0.0,
                "run_s": run_s,
                "train_samples": result.train_samples,
                "val_mse": None if result.best_val is None else result.best_val.mse,
                "val_mse_exact": exact.mse,
            }
        )
    )


def _repeated(base: EquityDataset, n: int) -> EquityDataset:
    rows = np.arange(n) % len(base)
    return EquityDataset(
        holes=base.holes[rows],
        boards=base.boards[rows],
        equity=base.equity[rows],
        mask_bits=base.mask_bits[rows],
        seed=base.seed,
        street_mix=base.street_mix,
        fingerprint=f"{base.fingerprint}x{n}",
    )


def _disk_mb(path: Path) -> float:
    files = [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]
    return sum(f.stat().st_size for f in files) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, under a minute")
    parser.add_argument("--seed", type=int, default=0, help="seed of the samples and the runs")
    parser.add_argument("--json", action="store_true", help="print only the final JSON line")
    parser.add_argument("--samples", type=int, nargs=2, help="the two dataset sizes")
    parser.add_argument("--base", type=int, default=None, help="distinct exact samples")
    parser.add_argument("--shard-rows", type=int, default=None)
    parser.add_argument("--shuffle-buffer", type=int, default=None)
    args = parser.parse_args()

    sizes = args.samples or ([2_048, 8_192] if args.quick else [50_000, 200_000])
    base_n = args.base or (200 if args.quick else 5_000)
    args.shard_rows = args.shard_rows or (512 if args.quick else 4_096)
    args.shuffle_buffer = args.shuffle_buffer or (1_024 if args.quick else 16_384)
    base = generate_dataset(base_n, args.seed, threads=None)
    val = generate_dataset(base_n, args.seed + 1, threads=None)
    exact, _ = true_equities(base.holes, base.boards)
    float16_error = float(np.abs(base.equity.astype(np.float32) - exact).max())
    runs: list[dict[str, Any]] = []
    disk: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="stream-equity-") as root:
        val_npz = save_dataset(val, Path(root, "val.npz"))
        write_dataset_shards(val, Path(root, "val-shards"), shard_rows=args.shard_rows)
        for n in sizes:
            data = _repeated(base, n)
            npz = save_dataset(data, Path(root, f"data-{n}.npz"))
            shards = Path(root, f"shards-{n}")
            write_dataset_shards(data, shards, shard_rows=args.shard_rows)
            del data
            disk[str(n)] = {"npz": _disk_mb(npz), "shards": _disk_mb(shards)}
            for path, source, held in (
                ("memory", npz, val_npz),
                ("stream", shards, Path(root, "val-shards")),
            ):
                config = {
                    **NETWORK,
                    "data": str(source),
                    "val_data": str(held),
                    "out": str(Path(root, f"run-{path}-{n}")),
                    "epochs": 1,
                    "batch_size": 512,
                    "threads": 1,
                    "seed": args.seed,
                    "shuffle_buffer": args.shuffle_buffer,
                    "checkpoint_every": 1_000_000,
                }
                done = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        CHILD,
                        json.dumps(config),
                        str(root) + "/val-shards",
                    ],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if done.returncode != 0:
                    sys.exit(f"the {path} run of {n} samples failed:\n{done.stderr[-3000:]}")
                figures = json.loads(done.stdout.strip().splitlines()[-1])
                runs.append({"samples": n, "path": path, **figures})

    by = {(r["samples"], r["path"]): r for r in runs}
    ratio_speed = {
        str(n): by[n, "stream"]["samples_per_cpu_s"] / by[n, "memory"]["samples_per_cpu_s"]
        for n in sizes
    }
    ratio_rss = {
        str(n): by[n, "stream"]["peak_rss_mb"] / by[n, "memory"]["peak_rss_mb"] for n in sizes
    }
    growth = {
        path: by[sizes[1], path]["peak_rss_mb"] - by[sizes[0], path]["peak_rss_mb"]
        for path in ("memory", "stream")
    }
    if not args.json:
        print_table(
            f"Equity-network training, in memory vs streamed (1 epoch, 1 thread, width 256, "
            f"shards of {args.shard_rows:,}, shuffle buffer {args.shuffle_buffer:,})",
            ["samples / path", "peak RSS MB", "base RSS MB", "samples/CPU-s", "samples/s",
             "run s", "val MSE", "val MSE exact"],
            [
                [f"{r['samples']:,} {r['path']}", r["peak_rss_mb"], r["base_rss_mb"],
                 r["samples_per_cpu_s"], r["samples_per_s"], r["run_s"], r["val_mse"],
                 r["val_mse_exact"]]
                for r in runs
            ],
        )  # fmt: skip
        print_table(
            "Disk and ratios (streamed / in memory)",
            ["samples", "npz MB", "shards MB", "samples/CPU-s ratio", "peak RSS ratio"],
            [
                [n, disk[str(n)]["npz"], disk[str(n)]["shards"], ratio_speed[str(n)],
                 ratio_rss[str(n)]]
                for n in sizes
            ],
        )  # fmt: skip
        print(f"peak RSS growth {sizes[0]:,} -> {sizes[1]:,} samples: {growth}")
        print(f"float16 equities, largest error against float32: {float16_error:.3g}")
    emit(
        {
            "runs": runs,
            "disk_mb": disk,
            "ratio_samples_per_cpu_s": ratio_speed,
            "ratio_peak_rss": ratio_rss,
            "rss_growth_mb": growth,
            "float16_max_error": float16_error,
            "base_samples": base_n,
            "shard_rows": args.shard_rows,
            "shuffle_buffer": args.shuffle_buffer,
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == CHILD:
        child(sys.argv[2], sys.argv[3])
    else:
        main()
