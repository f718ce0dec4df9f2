"""``poolshark oracle``: range-oracle datasets, training and evaluation."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import Progress
from rich.table import Table

from poolshark.cli.common import (
    DeviceOption,
    DevicesOption,
    JsonFlag,
    LearningRateOption,
    PrecisionOption,
    ResumeFlag,
    RunConfigOption,
    RunFolderOption,
    StagedProgress,
    ThreadsOption,
    console,
    errors,
    load_run_config,
    print_json,
    progress_bar,
    user_errors,
    warn_precision,
)
from poolshark.histories.ingest import scan_rows
from poolshark.oracle.data import OracleData, from_rows, from_simulation, save_data
from poolshark.pool.pools import load_pool
from poolshark.pool.simulate import simulate

if TYPE_CHECKING:
    from poolshark.oracle.train import OracleReport, OracleTrainConfig

app = typer.Typer(
    help="The range oracle: examples from pools or decision rows, training, evaluation.",
    no_args_is_help=True,
)

PoolOption = Annotated[
    str | None, typer.Option("--pool", help="Simulate this pool (name or TOML file).")
]
HandsOption = Annotated[int | None, typer.Option("--hands", help="Hands to simulate.")]
RowsOption = Annotated[
    Path | None, typer.Option("--rows", help="An ingest folder of decision rows.")
]
SeedOption = Annotated[int | None, typer.Option("--seed", help="Seed (data or run).")]


def _source_data(
    pool: str | None,
    hands: int | None,
    rows: Path | None,
    seed: int,
    *,
    exact: bool,
    asker: str,
    bar: Progress,
) -> OracleData:
    """Examples from a simulated pool or an ingest folder (checked by :func:`_check_source`)."""
    if rows is not None:
        return from_rows(scan_rows(rows))
    from poolshark.oracle.train import SIM_TABLES  # lazy: torch; CLI starts fast

    assert pool is not None
    assert hands is not None
    simulated = simulate(load_pool(pool), hands, seed=seed, tables=SIM_TABLES)
    task = bar.add_task("examples" + (" + exact posteriors" if exact else ""), total=hands)
    return from_simulation(
        simulated,
        exact=exact,
        asker="opponent" if asker == "opponent" else "none",
        seed=seed,
        progress=lambda done, _total: bar.update(task, completed=done),
    )


def _check_source(pool: str | None, hands: int | None, rows: Path | None, asker: str) -> None:
    """Refuse a source request that names no source, two, or bad values."""
    if (pool is None) == (rows is None):
        raise ValueError("give either --pool NAME --hands N or --rows DIR")
    if rows is not None and not rows.is_dir():
        raise ValueError(f"no ingest folder at {str(rows)!r}")
    if pool is not None and (hands is None or hands < 1):
        raise ValueError("--pool needs --hands N (at least 1)")
    if asker not in ("opponent", "none"):
        raise ValueError(f"--asker takes opponent or none, not {asker!r}")


@app.command("data")
def data(
    out: Annotated[
        Path,
        typer.Option("--out", help="Dataset file to write (.npz), or with --shard-hands a folder."),
    ],
    pool: PoolOption = None,
    hands: HandsOption = None,
    rows: RowsOption = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the simulation.")] = 0,
    exact: Annotated[
        bool, typer.Option(help="Attach the exact pool posterior (simulated pools).")
    ] = True,
    asker: Annotated[
        str, typer.Option(help="opponent (a random other seat asks) or none.")
    ] = "opponent",
    shard_hands: Annotated[
        int | None,
        typer.Option(
            help="Write shards of this many whole hands to the folder --out (a pool is"
            " simulated one shard at a time: bounded memory for any --hands)."
        ),
    ] = None,
    device: DeviceOption = None,
    json_output: JsonFlag = False,
) -> None:
    """Build range-oracle examples and write them to a file or to shards (``device`` is
    accepted for symmetry; building data runs on the CPU)."""
    del device
    if shard_hands is not None:
        _write_shards(out, pool, hands, rows, seed, exact, asker, shard_hands, json_output)
        return
    with user_errors():
        if out.suffix != ".npz":
            raise ValueError(f"--out must name a .npz file, got {str(out)!r}")
        _check_source(pool, hands, rows, asker)
        started = time.perf_counter()
        with progress_bar(json_output) as bar:
            dataset = _source_data(
                pool, hands, rows, seed, exact=exact and rows is None, asker=asker, bar=bar
            )
        path = save_data(dataset, out)
    figures = {
        "path": str(path),
        "source": dataset.source,
        "hands": dataset.hands,
        "examples": len(dataset),
        "labelled": int((dataset.example_combo >= 0).sum()),
        "shown": int(dataset.example_shown.sum()),
        "exact": dataset.has_exact,
        "seconds": time.perf_counter() - started,
        "bytes": path.stat().st_size,
        "fingerprint": dataset.fingerprint,
    }
    if json_output:
        print_json(figures)
        return
    console.print(
        f"wrote {figures['examples']:,} examples of {figures['hands']:,} hands to {path}"
        f" ({figures['labelled']:,} labelled, {figures['shown']:,} shown) in"
        f" {figures['seconds']:.1f} s; fingerprint {dataset.fingerprint[:12]}"
    )


def _write_shards(
    out: Path,
    pool: str | None,
    hands: int | None,
    rows: Path | None,
    seed: int,
    exact: bool,
    asker: str,
    shard_hands: int,
    json_output: bool,
) -> None:
    """``oracle data --shard-hands``: a pool simulated into shards chunk by chunk, or the
    examples of decision rows written as shards."""
    from poolshark.oracle import shards  # lazy: torch; CLI starts fast
    from poolshark.oracle.train import SIM_TABLES  # lazy: torch; CLI starts fast

    with user_errors():
        if out.suffix == ".npz":
            raise ValueError(f"--shard-hands writes a folder: --out names a file, {str(out)!r}")
        if shard_hands < 1:
            raise ValueError(f"--shard-hands must be at least 1, got {shard_hands}")
        _check_source(pool, hands, rows, asker)
        started = time.perf_counter()
        with progress_bar(json_output) as bar:
            if rows is not None:
                written = shards.rows_shards(rows, out, shard_hands=shard_hands)
            else:
                assert pool is not None
                assert hands is not None
                task = bar.add_task(
                    "shards" + (" + exact posteriors" if exact else ""), total=hands
                )
                written = shards.simulate_shards(
                    load_pool(pool),
                    hands,
                    out,
                    seed=seed,
                    shard_hands=shard_hands,
                    tables=SIM_TABLES,
                    exact=exact,
                    asker="opponent" if asker == "opponent" else "none",
                    progress=lambda done, _total: bar.update(task, completed=done),
                )
    size = sum(path.stat().st_size for path in out.iterdir())
    figures = {
        "path": str(out),
        "source": written.fields["source"],
        "hands": written.size,
        "examples": written.fields["examples"],
        "shards": written.shards,
        "seconds": time.perf_counter() - started,
        "bytes": size,
        "fingerprint": written.fingerprint,
    }
    if json_output:
        print_json(figures)
        return
    console.print(
        f"wrote {figures['examples']:,} examples of {figures['hands']:,} hands to {out}"
        f" in {written.shards} shards ({size / 1e6:.1f} MB) in {figures['seconds']:.1f} s;"
        f" fingerprint {written.fingerprint[:12]}"
    )


@app.command("train")
def train(
    out: RunFolderOption = None,
    config: RunConfigOption = None,
    pool: PoolOption = None,
    hands: HandsOption = None,
    rows: RowsOption = None,
    data: Annotated[
        Path | None, typer.Option(help="A dataset file or shard folder from 'oracle data'.")
    ] = None,
    val_data: Annotated[
        Path | None, typer.Option(help="A validation dataset file or shard folder.")
    ] = None,
    stream: Annotated[
        bool | None,
        typer.Option(
            "--stream/--no-stream",
            help="Train from shards of whole hands (--data a shard folder, or --pool"
            " simulated into <out>/shards), never all in memory.",
        ),
    ] = None,
    shuffle_buffer: Annotated[
        int | None, typer.Option(help="Least hands per shuffled fill (--stream).")
    ] = None,
    shard_hands: Annotated[
        int | None, typer.Option(help="Hands per shard a --stream --pool run writes.")
    ] = None,
    val_hands: Annotated[
        int | None, typer.Option(help="Validation hands to simulate (--pool).")
    ] = None,
    mode: Annotated[
        str | None, typer.Option(help="all (every hand labelled) or shown (showdowns only).")
    ] = None,
    epochs: Annotated[int | None, typer.Option(help="Epochs (default 1).")] = None,
    batch_hands: Annotated[int | None, typer.Option(help="Hands per batch (default 64).")] = None,
    learning_rate: LearningRateOption = None,
    eval_every: Annotated[
        int | None, typer.Option(help="Also evaluate every N steps (a learning curve).")
    ] = None,
    device: DeviceOption = None,
    devices: DevicesOption = None,
    precision: PrecisionOption = None,
    seed: SeedOption = None,
    data_seed: Annotated[int | None, typer.Option(help="Seed of the simulated hands.")] = None,
    threads: ThreadsOption = None,
    resume: ResumeFlag = False,
    json_output: JsonFlag = False,
) -> None:
    """Train the range oracle and report it on held-out hands."""
    from poolshark.oracle.train import OracleTrainConfig  # lazy: torch; CLI starts fast

    overrides: dict[str, Any] = {
        "out": out,
        "pool": pool,
        "hands": hands,
        "rows": rows,
        "data": data,
        "val_data": val_data,
        "stream": stream,
        "shuffle_buffer": shuffle_buffer,
        "shard_hands": shard_hands,
        "val_hands": val_hands,
        "mode": mode,
        "epochs": epochs,
        "batch_hands": batch_hands,
        "learning_rate": learning_rate,
        "eval_every": eval_every,
        "device": device,
        "devices": devices,
        "precision": precision,
        "seed": seed,
        "data_seed": data_seed,
        "threads": threads,
    }
    with user_errors():
        run = load_run_config(OracleTrainConfig, config, overrides)
    run_oracle_training(run, resume=resume, json_output=json_output)


def run_oracle_training(run: OracleTrainConfig, *, resume: bool, json_output: bool) -> None:
    """Train (or resume) the run with progress bars (data, training) and a line per
    evaluation on stderr; print the result (one JSON object with ``json_output``). Errors
    exit 2 with one line."""
    from poolshark.oracle.train import check_run, train_oracle  # lazy: torch; CLI starts fast

    warn_precision(run.device, run.precision)

    def on_eval(entry: dict[str, float]) -> None:
        if not json_output:
            gap = entry.get("val_gap")
            errors.print(
                f"step {entry['step']:.0f} ({entry['hands_seen']:,.0f} hands):"
                f" val NLL {entry['val_nll']:.4f}"
                + (f", gap {gap:.4f}" if gap is not None else "")
                + f", uniform {entry['val_uniform_nll']:.4f}"
            )

    with user_errors():
        check_run(run)
        with StagedProgress(json_output) as bar:
            result = train_oracle(
                run,
                resume=resume,
                on_step=bar.stage("train"),
                on_eval=on_eval,
                progress=bar.update,
            )
    if json_output:
        print_json(result.to_json())
        return
    console.print(
        f"{result.parameters:,} parameters, {result.train_hands:,} hands"
        f" ({result.train_examples:,} examples), {result.epochs_run} epochs,"
        f" {result.hands_per_s:,.0f} hands/s"
    )
    if result.best_val is not None:
        console.print(_report_table(f"best epoch {result.best_epoch}", result.best_val))
    console.print(f"checkpoints: {result.best_checkpoint}, {result.last_checkpoint}")


@app.command("eval")
def evaluate(
    checkpoint: Annotated[Path, typer.Option(help="A checkpoint (best.pt or last.pt).")],
    data: Annotated[
        Path | None, typer.Option(help="A dataset file or shard folder to score it on.")
    ] = None,
    pool: PoolOption = None,
    hands: HandsOption = None,
    rows: RowsOption = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the simulated hands.")] = 1,
    device: Annotated[str, typer.Option(help="cpu, cuda or cuda:N.")] = "cpu",
    json_output: JsonFlag = False,
) -> None:
    """NLL, probability and rank of the true hands (overall, per street, decision and end
    questions), next to the uniform deal and the exact posterior where known."""
    from poolshark.oracle.train import evaluate_checkpoint, load_any  # lazy: torch; CLI starts fast

    with user_errors():
        if data is not None:
            if pool is not None or rows is not None:
                raise ValueError("give one of --data, --pool, --rows")
            dataset = load_any(data)
        else:
            _check_source(pool, hands, rows, "opponent")
            with progress_bar(json_output) as bar:
                dataset = _source_data(
                    pool, hands, rows, seed, exact=rows is None, asker="opponent", bar=bar
                )
        report, info = evaluate_checkpoint(checkpoint, dataset, device=device)
    if json_output:
        print_json({**info, "data": dataset.source, **report.to_json()})
        return
    console.print(_report_table(f"{dataset.source}; checkpoint of step {info['steps']}", report))


def _report_table(title: str, report: OracleReport) -> Table:
    """NLL, gap, probability and rank by street and overall."""
    table = Table(title=title, title_justify="left")
    columns = ("part", "examples", "NLL", "uniform", "exact", "gap", "p(true)", "rank")
    for column in columns:
        table.add_column(column, justify="left" if column == "part" else "right")

    def number(value: Any, digits: int = 3) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    parts = [*report.by_street.items(), *report.by_kind.items()]
    if report.shown is not None:
        parts.append(("shown", report.shown))
    parts.append(("all", report.to_json()))
    for name, figures in parts:
        if not figures.get("examples"):
            continue
        table.add_row(
            name,
            f"{figures['examples']:,}",
            number(figures["nll"]),
            number(figures["uniform_nll"]),
            number(figures["exact_nll"]),
            number(figures["gap"]),
            f"{100 * figures['probability']:.3f}%",
            f"{100 * figures['rank']:.1f}%",
        )
    return table
