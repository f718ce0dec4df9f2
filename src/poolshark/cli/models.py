"""``poolshark equity-net``: generate true-equity data, train the equity network, evaluate it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from poolshark.cli.common import (
    BatchSizeOption,
    DeviceOption,
    DevicesOption,
    JsonFlag,
    LearningRateOption,
    PatienceOption,
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
from poolshark.equity_net.data import generate_dataset, save_dataset

if TYPE_CHECKING:
    from poolshark.equity_net.train import EquityTrainConfig, EvalReport

app = typer.Typer(
    help="The equity network: true-equity datasets, training and evaluation.",
    no_args_is_help=True,
)


def _street_mix(text: str) -> tuple[float, float, float]:
    """``"1,1,1"`` -> weights of flop, turn and river samples."""
    try:
        parts = [float(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"--street-mix takes 3 numbers like 1,1,1, got {text!r}") from None
    if len(parts) != 3:
        raise ValueError(f"--street-mix takes 3 numbers (flop,turn,river), got {text!r}")
    return parts[0], parts[1], parts[2]


@app.command("data")
def data(
    samples: Annotated[int, typer.Option("--samples", "-n", help="Number of samples.")],
    out: Annotated[
        Path,
        typer.Option("--out", help="Dataset file to write (.npz), or with --shard-rows a folder."),
    ],
    seed: Annotated[int, typer.Option(help="Seed for the dealt cards.")] = 0,
    street_mix: Annotated[
        str, typer.Option(help="Relative weights of flop, turn and river samples.")
    ] = "1,1,1",
    threads: Annotated[int, typer.Option(help="Cores to use (0: all).")] = 0,
    shard_rows: Annotated[
        int | None,
        typer.Option(help="Write shards of this many samples to the folder --out, as generated."),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Deal random (hole cards, 3-5 card board) samples and write their exact equities."""
    if shard_rows is not None:
        _data_shards(samples, out, seed, street_mix, threads, shard_rows, json_output)
        return
    with user_errors():
        if samples < 1:
            raise ValueError(f"--samples must be at least 1, got {samples}")
        if out.suffix != ".npz":
            raise ValueError(f"--out must name a .npz file, got {str(out)!r}")
        mix = _street_mix(street_mix)
        started = time.perf_counter()
        with progress_bar(json_output) as bar:
            task = bar.add_task("samples", total=samples)
            dataset = generate_dataset(
                samples,
                seed,
                street_mix=mix,
                threads=threads or None,
                progress=lambda done, _total: bar.update(task, completed=done),
            )
        seconds = time.perf_counter() - started
        path = save_dataset(dataset, out)
    figures = {
        "path": str(path),
        "samples": len(dataset),
        "seed": seed,
        "street_mix": list(dataset.street_mix),
        "samples_by_street": {
            name: int((dataset.board_sizes == size).sum())
            for name, size in (("flop", 3), ("turn", 4), ("river", 5))
        },
        "seconds": seconds,
        "samples_per_s": len(dataset) / seconds if seconds > 0 else 0.0,
        "bytes": path.stat().st_size,
        "fingerprint": dataset.fingerprint,
    }
    if json_output:
        print_json(figures)
        return
    console.print(
        f"wrote {figures['samples']:,} samples to {path} in {seconds:.1f} s"
        f" ({figures['samples_per_s']:,.0f}/s); fingerprint {dataset.fingerprint[:12]}"
    )


def _data_shards(
    samples: int,
    out: Path,
    seed: int,
    street_mix: str,
    threads: int,
    shard_rows: int,
    json_output: bool,
) -> None:
    """``data --shard-rows``: the samples written to shards as they are generated."""
    from poolshark.equity_net.shards import generate_shards  # lazy: torch; CLI starts fast

    with user_errors():
        if samples < 1:
            raise ValueError(f"--samples must be at least 1, got {samples}")
        if out.suffix == ".npz" or out.is_file():
            raise ValueError(f"with --shard-rows, --out names a folder, got {str(out)!r}")
        mix = _street_mix(street_mix)
        started = time.perf_counter()
        with progress_bar(json_output) as bar:
            task = bar.add_task("samples", total=samples)
            shards = generate_shards(
                samples,
                seed,
                out,
                street_mix=mix,
                shard_rows=shard_rows,
                threads=threads or None,
                progress=lambda done, _total: bar.update(task, completed=done),
            )
        seconds = time.perf_counter() - started
    figures = {
        "path": str(out),
        "samples": shards.size,
        "shards": shards.shards,
        "seed": seed,
        "street_mix": shards.fields["street_mix"],
        "seconds": seconds,
        "samples_per_s": shards.size / seconds if seconds > 0 else 0.0,
        "bytes": sum(f.stat().st_size for f in out.iterdir() if f.is_file()),
        "fingerprint": shards.fingerprint,
    }
    if json_output:
        print_json(figures)
        return
    console.print(
        f"wrote {shards.size:,} samples in {shards.shards} shards to {out} in {seconds:.1f} s"
        f" ({figures['samples_per_s']:,.0f}/s); fingerprint {shards.fingerprint[:12]}"
    )


@app.command("train")
def train(
    data: Annotated[
        Path | None, typer.Option(help="Training dataset (.npz or a shard folder).")
    ] = None,
    out: RunFolderOption = None,
    config: RunConfigOption = None,
    val_data: Annotated[
        Path | None, typer.Option(help="Separate validation dataset (default: hold out).")
    ] = None,
    arch: Annotated[str | None, typer.Option(help="seed or improved.")] = None,
    epochs: Annotated[int | None, typer.Option(help="Epochs (default 20).")] = None,
    batch_size: BatchSizeOption = None,
    learning_rate: LearningRateOption = None,
    device: DeviceOption = None,
    devices: DevicesOption = None,
    seed: Annotated[int | None, typer.Option(help="Seed for weights and batch order.")] = None,
    threads: ThreadsOption = None,
    patience: PatienceOption = None,
    precision: PrecisionOption = None,
    max_samples: Annotated[
        int | None, typer.Option(help="Use only the first N samples of --data.")
    ] = None,
    resume: ResumeFlag = False,
    json_output: JsonFlag = False,
) -> None:
    """Train the equity network (seed or improved) and report its validation MSE."""
    from poolshark.equity_net.train import EquityTrainConfig  # lazy: torch; CLI starts fast

    overrides: dict[str, Any] = {
        "data": data,
        "out": out,
        "val_data": val_data,
        "arch": arch,
        "epochs": epochs,
        "batch_size": batch_size,
        "learning_rate": learning_rate,
        "device": device,
        "devices": devices,
        "seed": seed,
        "threads": threads,
        "patience": patience,
        "precision": precision,
        "max_samples": max_samples,
    }
    with user_errors():
        run = load_run_config(EquityTrainConfig, config, overrides)
    run_equity_training(run, resume=resume, json_output=json_output)


def run_equity_training(run: EquityTrainConfig, *, resume: bool, json_output: bool) -> None:
    """Train (or resume) the run with a progress bar and per-epoch lines on stderr; print
    the result (one JSON object with ``json_output``). Errors exit 2 with one line."""
    from poolshark.equity_net.train import train_equity  # lazy: torch; CLI starts fast

    warn_precision(run.device, run.precision)

    def on_epoch(entry: dict[str, float]) -> None:
        if not json_output:
            errors.print(
                f"epoch {entry['epoch']:.0f}: train loss {entry['train_loss']:.6f},"
                f" val MSE {entry['val_mse']:.6f}"
            )

    with user_errors(), StagedProgress(json_output) as bar:
        result = train_equity(
            run, resume=resume, on_step=bar.stage(f"train {run.arch}"), on_epoch=on_epoch
        )
    if json_output:
        print_json(result.to_json())
        return
    console.print(
        f"{result.arch}: {result.parameters:,} parameters, {result.train_samples:,} training"
        f" samples, {result.epochs_run} epochs, {result.samples_per_s:,.0f} samples/s"
    )
    if result.best_val is not None:
        console.print(_report_table(f"best epoch {result.best_epoch}", result.best_val))
    console.print(f"checkpoints: {result.best_checkpoint}, {result.last_checkpoint}")


@app.command("eval")
def evaluate(
    checkpoint: Annotated[Path, typer.Option(help="A checkpoint (best.pt or last.pt).")],
    data: Annotated[Path, typer.Option(help="Dataset to score it on (.npz or a shard folder).")],
    device: Annotated[str, typer.Option(help="cpu, cuda or cuda:N.")] = "cpu",
    max_samples: Annotated[int | None, typer.Option(help="Use only the first N samples.")] = None,
    json_output: JsonFlag = False,
) -> None:
    """Masked MSE (overall and per street), RMSE and MAE of a trained network on a dataset."""
    from poolshark.equity_net.train import evaluate_checkpoint  # lazy: torch; CLI starts fast

    with user_errors():
        report, info = evaluate_checkpoint(checkpoint, data, device=device, max_samples=max_samples)
    if json_output:
        print_json({**info, **report.to_json()})
        return
    title = f"{info['arch']} network, epoch {info['epoch']}"
    if not info["same_data_as_training"]:
        title += " (on data it was not trained on)"
    console.print(_report_table(title, report))


def _report_table(title: str, report: EvalReport) -> Table:
    """MSE per street and overall as a small table."""
    table = Table(title=title, title_justify="left")
    for column in ("street", "MSE", "RMSE (equity points)"):
        table.add_column(column, justify="left" if column == "street" else "right")
    for name, mse in report.mse_by_street.items():
        table.add_row(name, f"{mse:.6f}", f"{100 * mse**0.5:.2f}")
    table.add_row("all", f"{report.mse:.6f}", f"{100 * report.rmse:.2f}")
    return table
