"""Streamed population training (issue 23): peak memory and throughput of the in-memory
path (``data.npz``, every row held) and the streamed path (``stream = true``: shards read
in shuffled fills) on the same rows, at two or more dataset sizes.

Run from the repository root::

    python benchmarks/stream.py [--quick] [--seed N] [--json] [--sizes N N ...]
                                [--rows FOLDER] [--max-val-rows N] [--feature-dtype D]

Two sources of rows:

* simulated (the default): a micro-zoom pool simulated in-process (opponent ranges
  ``uniform``), ``--sizes`` in hands; the rows are built once per size in this process and
  written both ways, ``data.npz`` (compressed, as the trainer caches it) and shards
  (``population/shards.py``), so the children only train;
* ingested (``--rows FOLDER``, a ``poolshark ingest`` output folder): ``--sizes`` are row
  counts (``max_rows``: the first rows of the folder), and each child builds its rows
  itself as ``poolshark population train --rows`` does: the in-memory child every row
  (``data.npz``), the streamed child a chunk of hands at a time into its shards
  (``population.data.rows_parts``). Its peak memory is the whole command's, building
  included, and ``build_rows_per_s`` is its rows built per wall second.

Each training run happens in a fresh child process (``train_population``, one torch
thread, the default network and batch of 512), which reports:

* ``peak_rss_mb``: the child's peak resident memory (``VmHWM`` of ``/proc/self/status``),
  all of the run: building or loading the rows, training, validation; ``base_rss_mb`` is
  the same process before it reads any row (Python, torch, numba);
* ``rows_per_cpu_s`` and ``rows_per_s``: training rows per CPU-second of the child
  (``time.process_time``: steadier on a shared machine, as in ``benchmarks/train.py``) and
  per wall second, over the steps (between consecutive ``on_step`` calls within an epoch;
  the pauses for validation are left out), the streamed path's reads and decompression
  of its fills included;
* ``run_s``: the whole ``train_population`` call, and the best epoch's validation figures.

Speed claims are the ratio streamed / in-memory measured in the same run. The shuffle
buffer, shard size and validation cap are the trainer's defaults unless
``--shuffle-buffer`` / ``--shard-rows`` / ``--max-val-rows`` (small ones show the bound at
small sizes: the streamed path's memory stops growing once a fill and the validation rows
are full).

The last line printed is one JSON object: ``runs`` (one dict per size and path with the
figures above and ``rows``), ``disk_mb`` (``npz`` and ``shards`` per size),
``write_s`` (per size and form; simulated rows only), ``ratio_rows_per_cpu_s`` and
``ratio_peak_rss`` (streamed over in-memory, per size), and the options given.
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
    MAX_VAL_ROWS,
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
                "val_rows": result.val_rows,
                "build_rows_per_s": result.data.get("rows_built", 0)
                / max(float(result.data.get("build_seconds", 0.0)), 1e-9),
                "val_nll": validation.get("nll"),
                "val_accuracy": validation.get("accuracy"),
            }
        )
    )


def _build(hands: int, seed: int) -> Any:
    data = DataConfig(pool="micro-zoom", hands=hands, simulation_seed=seed, ranges="uniform")
    return build_dataset(data, seed=seed)


def _disk_mb(path: Path) -> float:
    files = [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]
    return sum(f.stat().st_size for f in files) / 2**20


def _prepare_simulated(
    hands: int, root: Path, seed: int, shard_rows: int
) -> tuple[int, dict[str, float], dict[str, float]]:
    """Build a size's rows here and write them both ways; (rows, disk MB, write s)."""
    dataset, info = _build(hands, seed)
    memory_out, stream_out = root / f"memory-{hands}", root / f"stream-{hands}"
    for out in (memory_out, stream_out):
        out.mkdir()
        (out / "data.json").write_text(json.dumps(info))
    started = time.perf_counter()
    save_dataset(dataset, memory_out / "data.npz")
    npz_s = time.perf_counter() - started
    started = time.perf_counter()
    write_shards(dataset, stream_out / "shards", shard_rows=shard_rows)
    shards_s = time.perf_counter() - started
    disk = {"npz": _disk_mb(memory_out / "data.npz"), "shards": _disk_mb(stream_out / "shards")}
    return dataset.size, disk, {"npz": npz_s, "shards": shards_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, under a minute")
    parser.add_argument("--seed", type=int, default=0, help="seed of the rows and the runs")
    parser.add_argument("--json", action="store_true", help="print only the final JSON line")
    parser.add_argument(
        "--sizes", type=int, nargs="+", help="dataset sizes: hands, or rows with --rows"
    )
    parser.add_argument("--rows", type=Path, help="an ingest output folder to take rows from")
    parser.add_argument("--epochs", type=int, default=None, help="epochs per run")
    parser.add_argument("--shard-rows", type=int, default=None)
    parser.add_argument("--shuffle-buffer", type=int, default=None)
    parser.add_argument("--max-val-rows", type=int, default=None)
    parser.add_argument("--feature-dtype", choices=("float32", "float16"), default="float32")
    args = parser.parse_args()

    if args.rows is not None and not (args.rows / "rows").is_dir():
        sys.exit(f"--rows {str(args.rows)!r}: not a poolshark ingest output folder (no rows/)")
    default_sizes = ([4_000, 8_000] if args.quick else [25_000, 50_000, 100_000]) if args.rows \
        else ([800, 1600] if args.quick else [10_000, 40_000])  # fmt: skip
    sizes = args.sizes or default_sizes
    epochs = args.epochs or (1 if args.quick else 2)
    shard_rows = args.shard_rows or SHARD_ROWS
    shuffle_buffer = args.shuffle_buffer or SHUFFLE_BUFFER
    max_val_rows = args.max_val_rows or MAX_VAL_ROWS
    runs: list[dict[str, Any]] = []
    disk: dict[str, dict[str, float]] = {}
    write_s: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="stream-bench-") as root:
        for size in sizes:
            rows = 0
            if args.rows is None:
                rows, disk[str(size)], write_s[str(size)] = _prepare_simulated(
                    size, Path(root), args.seed, shard_rows
                )
            source = (
                {"rows": str(args.rows), "max_rows": size}
                if args.rows
                else {"pool": "micro-zoom", "hands": size, "simulation_seed": args.seed}
            )
            outs = {}
            for path in ("memory", "stream"):
                out = outs[path] = Path(root, f"{path}-{size}")
                config = {
                    **source,
                    "ranges": "uniform",
                    "feature_dtype": args.feature_dtype,
                    "out": str(out),
                    "epochs": epochs,
                    "threads": 1,
                    "seed": args.seed,
                    "stream": path == "stream",
                    "shard_rows": shard_rows,
                    "shuffle_buffer": shuffle_buffer,
                    "max_val_rows": max_val_rows,
                    "checkpoint_every": 1_000_000,
                }
                done = subprocess.run(
                    [sys.executable, __file__, CHILD, json.dumps(config)],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if done.returncode != 0:
                    sys.exit(f"the {path} run of size {size} failed:\n{done.stderr[-3000:]}")
                figures = json.loads(done.stdout.strip().splitlines()[-1])
                rows = rows or figures["train_rows"] + figures["val_rows"]
                runs.append({"size": size, "rows": rows, "path": path, **figures})
            if args.rows is not None:
                disk[str(size)] = {
                    "npz": _disk_mb(outs["memory"] / "data.npz"),
                    "shards": _disk_mb(outs["stream"] / "shards"),
                }

    by = {(r["size"], r["path"]): r for r in runs}
    ratio_speed = {
        str(n): by[n, "stream"]["rows_per_cpu_s"] / by[n, "memory"]["rows_per_cpu_s"] for n in sizes
    }
    ratio_rss = {
        str(n): by[n, "stream"]["peak_rss_mb"] / by[n, "memory"]["peak_rss_mb"] for n in sizes
    }
    unit = "rows" if args.rows else "hands"
    if not args.json:
        print_table(
            f"Population training, in memory vs streamed ({epochs} epochs, 1 thread, "
            f"shards of {shard_rows:,} rows, shuffle buffer {shuffle_buffer:,}, at most "
            f"{max_val_rows:,} validation rows, {args.feature_dtype} features, "
            f"{'ingested rows built in each run' if args.rows else 'simulated rows'})",
            [f"{unit} / path", "rows", "peak RSS MB", "base RSS MB", "build rows/s",
             "rows/CPU-s", "rows/s", "run s", "val NLL", "val acc"],
            [
                [f"{r['size']:,} {r['path']}", r["rows"], r["peak_rss_mb"], r["base_rss_mb"],
                 r["build_rows_per_s"] if args.rows else "-", r["rows_per_cpu_s"],
                 r["rows_per_s"], r["run_s"], r["val_nll"], r["val_accuracy"]]
                for r in runs
            ],
        )  # fmt: skip
        print_table(
            "Disk and write time",
            [unit, "npz MB", "shards MB", "npz write s", "shards write s",
             "stream/memory rows/CPU-s", "stream/memory peak RSS"],
            [
                [n, disk[str(n)]["npz"], disk[str(n)]["shards"],
                 write_s.get(str(n), {}).get("npz", "-"),
                 write_s.get(str(n), {}).get("shards", "-"), ratio_speed[str(n)],
                 ratio_rss[str(n)]]
                for n in sizes
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
            "max_val_rows": max_val_rows,
            "feature_dtype": args.feature_dtype,
            "size_unit": unit,
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
