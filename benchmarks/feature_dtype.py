"""float16 against float32 cached features of the population model (issue 23): the same
short streamed training on the same ingested rows, validation figures and shard size side
by side.

Run from the repository root::

    python benchmarks/feature_dtype.py ROWS_FOLDER [--quick] [--seeds 0 1] [--epochs N] [--json]

``ROWS_FOLDER`` is a ``poolshark ingest`` output folder (the figures in
``docs/population.md`` are from the real sample ``../shared/data/handhq-ps25``). For each
seed both runs share the split and the batch order (``train_population`` with
``stream = true``, ranges ``uniform``, one thread, the default network; ``--quick``: one
epoch on the first 4,000 rows and a small network), so the difference between them is
the rounding alone; the spread between seeds is the noise to judge it against.

The last line printed is one JSON object: ``runs`` (seed, dtype, val NLL, val NLL over
observed cards, accuracy, shards MB, seconds), ``nll_difference`` (float16 minus float32,
per seed) and the options given.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from common import emit, print_table
from poolshark.population.train import PopulationTrainConfig, train_population

QUICK_NETWORK = {"width": 64, "depth": 1, "opponent_width": 16, "class_embedding": 8}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, help="a poolshark ingest output folder")
    parser.add_argument("--quick", action="store_true", help="one short epoch, under a minute")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--epochs", type=int, default=None, help="epochs per run (default 3)")
    parser.add_argument("--json", action="store_true", help="print only the final JSON line")
    args = parser.parse_args()
    torch.set_num_threads(1)
    epochs = args.epochs or (1 if args.quick else 3)
    extra: dict[str, Any] = {"max_rows": 4000, **QUICK_NETWORK} if args.quick else {}
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="dtype-bench-") as root:
        for seed in args.seeds:
            for dtype in ("float32", "float16"):
                out = Path(root, f"{dtype}-{seed}")
                config = PopulationTrainConfig(
                    rows=args.rows, ranges="uniform", out=out, epochs=epochs, threads=1,
                    seed=seed, stream=True, feature_dtype=dtype, checkpoint_every=10**6,
                    **extra,
                )  # fmt: skip
                started = time.perf_counter()
                result = train_population(config)
                shards = sum(f.stat().st_size for f in (out / "shards").glob("*.npz"))
                model = (result.validation or {})["model"]
                runs.append(
                    {
                        "seed": seed,
                        "dtype": dtype,
                        "val_nll": model["nll"],
                        "val_nll_observed": result.history[result.best_epoch - 1][
                            "val_nll_observed"
                        ],
                        "val_accuracy": model["accuracy"],
                        "shards_mb": shards / 2**20,
                        "seconds": time.perf_counter() - started,
                        "train_rows": result.train_rows,
                        "val_rows": result.val_rows,
                    }
                )
    by = {(r["seed"], r["dtype"]): r for r in runs}
    difference = {
        str(s): by[s, "float16"]["val_nll"] - by[s, "float32"]["val_nll"] for s in args.seeds
    }
    if not args.json:
        print_table(
            f"float16 vs float32 features ({epochs} epochs, streamed, {args.rows})",
            ["seed", "features", "val NLL", "val NLL observed", "val acc", "shards MB", "s"],
            [
                [r["seed"], r["dtype"], r["val_nll"], r["val_nll_observed"],
                 r["val_accuracy"], r["shards_mb"], r["seconds"]]
                for r in runs
            ],
        )  # fmt: skip
    emit(
        {
            "runs": runs,
            "nll_difference": difference,
            "epochs": epochs,
            "seeds": args.seeds,
            "quick": args.quick,
            "rows_folder": str(args.rows),
        }
    )


if __name__ == "__main__":
    main()
