"""The documented large run (issue 23): a pool's hands simulated, ingested, a population
model trained on the ingested rows from shards, an exploiter trained against that model and
evaluated against the true pool and the model, each stage timed and measured.

Run from the repository root::

    python benchmarks/large_run.py [--quick] [--hands N] [--out DIR] [--pool NAME] [--json]

Every stage is the public CLI (``poolshark pool simulate``, ``ingest``, ``population
train``, ``exploit train``, ``eval``) in a fresh child process, started through a small
wrapper that reports, for the stage and every process it starts:

* ``wall_s``: wall-clock seconds;
* ``cpu_s``: user + system CPU seconds of the stage's processes;
* ``peak_rss_mb``: the largest resident memory of any one of them (``ru_maxrss`` of the
  wrapper's children, waited-for grandchildren included);
* ``disk_mb``: what the stage wrote.

Defaults: 1,000,000 hands of ``handhq-25nl`` (``--quick``: 3,000 hands, one exploiter
iteration of 64 tables and 600 evaluation hands, about a minute: six CLI processes start),
the population model streamed from shards (``stream = true``, one epoch, opponent ranges
``none``), the exploiter with the ``small-cpu`` preset (2,048 tables) for 30 iterations,
evaluated over 60,000 duplicate table-hands. Existing stage outputs in
``--out`` are reused (``--fresh`` removes them), so a long run can be resumed stage by
stage. The stages' own JSON results are kept in ``<out>/<stage>.json``, their output in
``<stage>.out`` and their figures in ``<stage>.figures.json``.

The last line printed is one JSON object: ``stages`` (one dict per stage with the figures
above), ``hands``, ``rows`` (decision rows ingested), ``population`` (training rows,
rows/s, validation NLL and accuracy), ``exploiter`` (iterations, seconds), ``eval_pool`` and
``eval_model`` (the exploiter's all-in-EV-adjusted bb/100 with its 95% interval, VPIP and
PFR, against each),
``total_wall_s``, ``max_peak_rss_mb``, ``total_disk_mb`` and the options.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import emit, print_table

MEASURE = "--measure"


def measure(report: str, output: str, command: list[str]) -> None:
    """Run ``command`` with its stdout to ``output``, and write its figures to ``report``."""
    started = time.perf_counter()
    with Path(output).open("w") as stdout:
        code = subprocess.run(command, stdout=stdout, check=False).returncode
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures = {
        "returncode": code,
        "wall_s": time.perf_counter() - started,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_rss_mb": usage.ru_maxrss / 1024.0,
    }
    Path(report).write_text(json.dumps(figures))


def _disk_mb(path: Path) -> float:
    if not path.exists():
        return 0.0
    files = [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]
    return sum(f.stat().st_size for f in files) / 2**20


def _last_json(path: Path) -> dict[str, Any]:
    lines = [line for line in path.read_text().splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"{path} holds no JSON result")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def run_stage(name: str, command: list[str], out: Path, product: Path) -> dict[str, Any]:
    """One stage through the measuring wrapper; its figures and its own JSON result. A stage
    whose result file exists is not run again (its recorded figures are returned)."""
    figures_file, result_file = out / f"{name}.figures.json", out / f"{name}.json"
    output = out / f"{name}.out"
    if not (figures_file.is_file() and result_file.is_file()):
        print(f"stage {name}: {' '.join(command)}", file=sys.stderr, flush=True)
        wrapper = [sys.executable, __file__, MEASURE, str(figures_file), str(output), *command]
        subprocess.run(wrapper, check=True)
        figures = json.loads(figures_file.read_text())
        if figures["returncode"] != 0:
            raise SystemExit(f"stage {name} failed (exit {figures['returncode']})")
        figures["disk_mb"] = _disk_mb(product)
        figures_file.write_text(json.dumps(figures))
        result_file.write_text(json.dumps(_last_json(output)))
    return {
        "figures": json.loads(figures_file.read_text()),
        "result": json.loads(result_file.read_text()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3,000 hands, tiny training")
    parser.add_argument("--hands", type=int, default=None, help="hands (default 1,000,000)")
    parser.add_argument("--pool", default="handhq-25nl", help="the simulated pool")
    parser.add_argument("--out", type=Path, default=Path("runs/large"), help="run folder")
    parser.add_argument("--seed", type=int, default=0, help="seed of every stage")
    parser.add_argument("--epochs", type=int, default=1, help="population-model epochs")
    parser.add_argument("--iterations", type=int, default=None, help="exploiter iterations")
    parser.add_argument("--eval-hands", type=int, default=None, help="table-hands per eval")
    parser.add_argument("--fresh", action="store_true", help="remove earlier stage outputs")
    parser.add_argument("--json", action="store_true", help="print only the final JSON line")
    args = parser.parse_args()

    hands = args.hands or (3_000 if args.quick else 1_000_000)
    iterations = args.iterations or (1 if args.quick else 30)
    tables = ["--tables", "64"] if args.quick else []
    eval_hands = args.eval_hands or (600 if args.quick else 60_000)
    out = args.out
    if args.fresh and out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    cli = [sys.executable, "-m", "poolshark.cli"]
    sim, rows, pop, ex = out / "sim", out / "rows", out / "population", out / "exploiter"
    config = out / "population.toml"
    config.write_text(
        f'rows = "{rows}"\nout = "{pop}"\nranges = "none"\nstream = true\n'
        f"epochs = {args.epochs}\nseed = {args.seed}\nthreads = 1\n"
    )
    agent, model = str(ex / "last.pt"), str(pop / "best.pt")
    evaluate = ["--hands", str(eval_hands), "--duplicate", "--seed", str(args.seed + 1)]
    plan: list[tuple[str, list[str], Path]] = [
        ("simulate", ["pool", "simulate", "--pool", args.pool, "--hands", str(hands),
                      "--out", str(sim), "--seed", str(args.seed)], sim),
        ("ingest", ["ingest", str(sim / "pokerstars"), "--out", str(rows), "--workers", "1"],
         rows),
        ("population", ["population", "train", "--config", str(config)], pop),
        ("exploiter", ["exploit", "train", "--against", model, "--preset", "small-cpu",
                       "--iterations", str(iterations), *tables, "--seed", str(args.seed),
                       "--threads", "1", "--out", str(ex)], ex),
        ("eval_pool", ["eval", agent, "--against", f"pool:{args.pool}", *evaluate],
         out / "eval_pool.out"),
        ("eval_model", ["eval", agent, "--against", model, *evaluate], out / "eval_model.out"),
    ]  # fmt: skip
    stages = {
        name: run_stage(name, [*cli, *command, "--json"], out, product)
        for name, command, product in plan
    }
    figures = {name: stage["figures"] for name, stage in stages.items()}
    population = stages["population"]["result"]
    validation = (population.get("validation") or {}).get("model", {})
    summary: dict[str, Any] = {
        "hands": hands,
        "rows": stages["ingest"]["result"].get("rows"),
        "population": {
            "train_rows": population.get("train_rows"),
            "rows_per_s": population.get("rows_per_s"),
            "val_nll": validation.get("nll"),
            "val_accuracy": validation.get("accuracy"),
        },
        "exploiter": {
            "iterations": iterations,
            "seconds": figures["exploiter"]["wall_s"],
        },
        "eval_pool": _edge(stages["eval_pool"]["result"]),
        "eval_model": _edge(stages["eval_model"]["result"]),
        "stages": figures,
        "total_wall_s": sum(f["wall_s"] for f in figures.values()),
        "max_peak_rss_mb": max(f["peak_rss_mb"] for f in figures.values()),
        "total_disk_mb": _disk_mb(out),
        "pool": args.pool,
        "seed": args.seed,
        "epochs": args.epochs,
        "quick": args.quick,
    }
    if not args.json:
        print_table(
            f"Large run: {hands:,} hands of {args.pool} ({out})",
            ["stage", "wall s", "CPU s", "peak RSS MB", "disk MB"],
            [
                [name, f["wall_s"], f["cpu_s"], f["peak_rss_mb"], f["disk_mb"]]
                for name, f in figures.items()
            ],
        )
        print_table(
            "Figures",
            ["figure", "value"],
            [
                ["decision rows ingested", summary["rows"]],
                ["population training rows", summary["population"]["train_rows"]],
                ["population rows/s", summary["population"]["rows_per_s"]],
                ["population val NLL", summary["population"]["val_nll"]],
                ["population val accuracy", summary["population"]["val_accuracy"]],
                ["exploiter vs pool, bb/100", _interval(summary["eval_pool"])],
                ["exploiter vs model, bb/100", _interval(summary["eval_model"])],
            ],
        )
    emit(summary)


def _edge(result: dict[str, Any]) -> dict[str, Any]:
    """The exploiter's (first agent's) bb/100, all-in EV adjusted, with its 95% interval,
    from an ``eval --json`` result."""
    agent = result["agents"][0]
    figures = agent["ev_adjusted"]
    low, high = figures["ci95"]
    return {
        "bb_per_100": figures["bb_per_100"],
        "ci95_low": low,
        "ci95_high": high,
        "hands": agent["hands"],
        "vpip": agent["vpip"],
        "pfr": agent["pfr"],
    }


def _interval(edge: dict[str, Any]) -> str:
    return f"{edge['bb_per_100']:+.1f} [{edge['ci95_low']:+.1f}, {edge['ci95_high']:+.1f}]"


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == MEASURE:
        measure(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        main()
