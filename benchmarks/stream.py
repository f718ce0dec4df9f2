"""Streamed population training (issue 23): peak memory and throughput of the in-memory
path (``data.npz``, every row held) and the streamed path (``stream = true``: shards read
in shuffled fills) on the same rows, at two dataset sizes.

Run from the repository root::

    python benchmarks/stream.py [--quick] [--seed N] [--json] [--hands N N] [--rows FOLDER]

The rows are built once per size in this process (a micro-zoom pool simulated in-process,
opponent ranges ``uniform``; or, with ``--rows``, a ``poolshark ingest`` output folder and
its first ``N`` rows per size) and written both ways: ``data.npz`` (compressed, as the
trainer caches it) and shards (``population/shards.py``). Each training run then happens
in a fresh child process (``train_population``, one torch thread, the default network and
batch of 512), which reports:

* ``peak_rss_mb``: the child's peak resident memory (``VmHWM`` of ``/proc/self/status``),
  all of the run: loading the rows, training, validation; ``base_rss_mb`` is the same
  process before it reads any row (Python, torch, numba);
* ``rows_per_cpu_s`` and ``rows_per_s``: training rows per CPU-second of the child
  (``time.process_time``: steadier on a shared machine, as in ``benchmarks/train.py``) and
  per wall second, over the steps (between consecutive ``on_step`` calls within an epoch;
  the pauses for validation are left out), the streamed path's reads and decompression
  of its fills included;
* ``run_s``: the whole ``train_population`` call, and the best epoch's validation figures.

Speed claims are the ratio streamed / in-memory measured in the same run. The shuffle
buffer and shard size are the defaults unless ``--shuffle-buffer`` / ``--shard-rows``.

The last line printed is one JSON object: ``runs`` (one dict per size and path with the
figures above and ``rows``), ``disk_mb`` (``npz`` and ``shards`` per size),
``write_s`` (per size and form), ``ratio_rows_per_cpu_s`` and ``ratio_peak_rss`` (streamed
over in-memory, per size), and the options given.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from common import emit, print_table
from poolshark.population.data import save_dataset
from poolshark.population.shards import SHARD_ROWS, SHUFFLE_BUFFER, write_shards
from poolshark.population.train import (
    DataConfig,
    PopulationTrainConfig,
    build_dataset,
    train_population,
)

CHILD = "--child"


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MB: ``VmHWM``, which starts afresh at
    ``exec`` (``ru_maxrss`` carries the parent's peak over an ``exec`` on Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def child(config_json: str) -> None:
    """Train one run as the config says and print its figures (one JSON line)."""
    torch.set_num_threads(1)
    config = PopulationTrainConfig.model_validate(json.loads(config_json))
    stamps: list[tuple[float, float]] = []
    epochs_ended: list[int] = []

    def on_step(step: int, _total: int) -> None:
        stamps.append((time.perf_counter(), time.process_time()))

    def on_epoch(_entry: dict[str, float]) -> None:
        epochs_ended.append(len(stamps))

    base = peak_rss_mb()
    started = time.perf_counter()
    result = train_population(config, on_step=on_step, on_epoch=on_epoch)
    run_s = time.perf_counter() - started
    breaks = set(epochs_ended)
    timed = [i for i in range(1, len(stamps)) if i not in breaks]
    seconds = sum(stamps[i][0] - stamps[i - 1][0] for i in timed)
    cpu_seconds = sum(stamps[i][1] - stamps[i - 1][1] for i in timed)
    rows = len(timed) * config.batch_size
    validation = (result.validation or {}).get("model", {})
    print(
        json.dumps(
            {
                "peak_rss_mb": peak_rss_mb(),
                "base_rss_mb": base,
                "rows_per_s": rows / seconds if seconds > 0 else 0.0,
                "rows_per_cpu_s": rows / cpu_seconds if cpu_seconds > 0 else 0.0,
                "run_s": run_s,
                "train_rows": result.train_rows,
                "val_nll": validation.get("nll"),
                "val_accuracy": validation.get("accuracy"),
            }
        )
    )


def _build(hands: int, rows_folder: Path | None, seed: int, max_rows: int | None) -> Any:
    if rows_folder is not None:
        data = DataConfig(rows=rows_folder, ranges="uniform", max_rows=max_rows)
    else:
        data = DataConfig(pool="micro-zoom", hands=hands, simulation_seed=seed, ranges="uniform")
    return build_dataset(data, seed=seed)


def _disk_mb(path: Path) -> float:
    files = [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]
    return sum(f.stat().st_size for f in files) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, under a minute")
    parser.add_argument("--seed", type=int, default=0, help="seed of the rows and the runs")
    parser.add_argument("--json", action="store_true", help="print only the final JSON line")
    parser.add_argument("--hands", type=int, nargs=2, help="the two dataset sizes, in hands")
    parser.add_argument("--rows", type=Path, help="an ingest output folder to take rows from")
    parser.add_argument("--epochs", type=int, default=None, help="epochs per run")
    parser.add_argument("--shard-rows", type=int, default=None)
    parser.add_argument("--shuffle-buffer", type=int, default=None)
    args = parser.parse_args()

    sizes = args.hands or ([800, 1600] if args.quick else [10_000, 40_000])
    epochs = args.epochs or (1 if args.quick else 2)
    shard_rows = args.shard_rows or SHARD_ROWS
    shuffle_buffer = args.shuffle_buffer or SHUFFLE_BUFFER
    runs: list[dict[str, Any]] = []
    disk: dict[str, dict[str, float]] = {}
    write_s: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="stream-bench-") as root:
        for hands in sizes:
            # with --rows, each size is that many hands' worth of rows at ~17 rows a hand
            dataset, info = _build(hands, args.rows, args.seed, hands * 17)
            memory_out, stream_out = Path(root, f"memory-{hands}"), Path(root, f"stream-{hands}")
            for out in (memory_out, stream_out):
                out.mkdir()
                (out / "data.json").write_text(json.dumps(info))
            started = time.perf_counter()
            save_dataset(dataset, memory_out / "data.npz")
            npz_s = time.perf_counter() - started
            started = time.perf_counter()
            write_shards(dataset, stream_out / "shards", shard_rows=shard_rows)
            shards_s = time.perf_counter() - started
            rows = dataset.size
            del dataset
            key = str(hands)
            disk[key] = {
                "npz": _disk_mb(memory_out / "data.npz"),
                "shards": _disk_mb(stream_out / "shards"),
            }
            write_s[key] = {"npz": npz_s, "shards": shards_s}
            source = (
                {"rows": str(args.rows)} if args.rows else {"pool": "micro-zoom", "hands": hands}
            )
            for path, out in (("memory", memory_out), ("stream", stream_out)):
                config = {
                    **source,
                    "simulation_seed": args.seed,
                    "ranges": "uniform",
                    "max_rows": hands * 17 if args.rows else None,
                    "out": str(out),
                    "epochs": epochs,
                    "threads": 1,
                    "seed": args.seed,
                    "stream": path == "stream",
                    "shard_rows": shard_rows,
                    "shuffle_buffer": shuffle_buffer,
                    "checkpoint_every": 1_000_000,
                }
                done = subprocess.run(
                    [sys.executable, __file__, CHILD, json.dumps(config)],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if done.returncode != 0:
                    sys.exit(f"the {path} run of {hands} hands failed:\n{done.stderr[-3000:]}")
                figures = json.loads(done.stdout.strip().splitlines()[-1])
                runs.append({"hands": hands, "rows": rows, "path": path, **figures})

    by = {(r["hands"], r["path"]): r for r in runs}
    ratio_speed = {
        str(h): by[h, "stream"]["rows_per_cpu_s"] / by[h, "memory"]["rows_per_cpu_s"] for h in sizes
    }
    ratio_rss = {
        str(h): by[h, "stream"]["peak_rss_mb"] / by[h, "memory"]["peak_rss_mb"] for h in sizes
    }
    if not args.json:
        print_table(
            f"Population training, in memory vs streamed ({epochs} epochs, 1 thread, "
            f"shards of {shard_rows:,} rows, shuffle buffer {shuffle_buffer:,})",
            ["hands / path", "rows", "peak RSS MB", "base RSS MB", "rows/CPU-s", "rows/s",
             "run s", "val NLL", "val acc"],
            [
                [f"{r['hands']:,} {r['path']}", r["rows"], r["peak_rss_mb"], r["base_rss_mb"],
                 r["rows_per_cpu_s"], r["rows_per_s"], r["run_s"], r["val_nll"],
                 r["val_accuracy"]]
                for r in runs
            ],
        )  # fmt: skip
        print_table(
            "Disk and write time",
            ["hands", "npz MB", "shards MB", "npz write s", "shards write s",
             "stream/memory rows/CPU-s", "stream/memory peak RSS"],
            [
                [h, disk[str(h)]["npz"], disk[str(h)]["shards"], write_s[str(h)]["npz"],
                 write_s[str(h)]["shards"], ratio_speed[str(h)], ratio_rss[str(h)]]
                for h in sizes
            ],
        )  # fmt: skip
    emit(
        {
            "runs": runs,
            "disk_mb": disk,
            "write_s": write_s,
            "ratio_rows_per_cpu_s": ratio_speed,
            "ratio_peak_rss": ratio_rss,
            "epochs": epochs,
            "shard_rows": shard_rows,
            "shuffle_buffer": shuffle_buffer,
            "quick": args.quick,
            "seed": args.seed,
            "rows_folder": str(args.rows) if args.rows else None,
        }
    )


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == CHILD:
        child(sys.argv[2])
    else:
        main()
