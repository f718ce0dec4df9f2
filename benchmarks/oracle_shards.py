"""Peak memory and disk of building range-oracle data: in memory (one ``OracleData``, saved
as ``.npz``) against shards written a chunk of hands at a time (issue 23).

Each measurement runs in a fresh process (its own peak RSS from ``getrusage``), building the
examples of ``N`` simulated micro-zoom hands (no exact posteriors). Prints a table, then one
JSON line of figures (``--json``: only that line). ``--quick``: 5,000 and 20,000 hands.

    python benchmarks/oracle_shards.py [--quick] [--seed N] [--json] [--sizes 25000 100000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import emit, print_table


def measure(kind: str, hands: int, seed: int, folder: Path) -> dict[str, float]:
    """Build the data of ``hands`` hands in this process; seconds, peak RSS (MB), bytes."""
    from poolshark.oracle.data import from_simulation, save_data  # lazy: child process only
    from poolshark.oracle.shards import simulate_shards  # lazy: child process only
    from poolshark.pool.pools import load_pool  # lazy: child process only
    from poolshark.pool.simulate import simulate  # lazy: child process only
    from stream import peak_rss_mb  # lazy: child process only (loads torch)

    pool = load_pool("micro-zoom")
    started = time.perf_counter()
    if kind == "memory":
        data = from_simulation(simulate(pool, hands, seed=seed, tables=16), exact=False, seed=seed)
        size = save_data(data, folder / "data.npz").stat().st_size
    else:
        simulate_shards(pool, hands, folder / "shards", seed=seed, shard_hands=4096)
        size = sum(p.stat().st_size for p in (folder / "shards").iterdir())
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "peak_rss_mb": peak_rss_mb(), "bytes": float(size)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="5,000 and 20,000 hands")
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulations")
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    parser.add_argument("--sizes", type=int, nargs="+", default=None, help="hands to build")
    parser.add_argument("--one", nargs=2, metavar=("KIND", "HANDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        with tempfile.TemporaryDirectory() as folder:
            print(json.dumps(measure(args.one[0], int(args.one[1]), args.seed, Path(folder))))
        return
    sizes = args.sizes or ([5000, 20000] if args.quick else [25000, 100000])
    rows = []
    for hands in sizes:
        figures = {}
        for kind in ("memory", "shards"):
            done = subprocess.run(
                [sys.executable, __file__, "--one", kind, str(hands), "--seed", str(args.seed)],
                check=True,
                capture_output=True,
                text=True,
            )
            figures[kind] = json.loads(done.stdout.strip().splitlines()[-1])
        rows.append({"hands": hands, **figures})
    if not args.json:
        print_table(
            "Building oracle data: in memory (.npz) vs shards of 4,096 hands",
            [
                "hands",
                "memory: peak RSS MB",
                "file MB",
                "s",
                "shards: peak RSS MB",
                "folder MB",
                "s",
            ],
            [
                [
                    row["hands"],
                    row["memory"]["peak_rss_mb"],
                    row["memory"]["bytes"] / 1e6,
                    row["memory"]["seconds"],
                    row["shards"]["peak_rss_mb"],
                    row["shards"]["bytes"] / 1e6,
                    row["shards"]["seconds"],
                ]
                for row in rows
            ],
        )
    emit({"benchmark": "oracle_shards", "seed": args.seed, "rows": rows})


if __name__ == "__main__":
    main()
