"""``poolshark population``: train, evaluate and fine-tune (SFT) the population action model."""

from __future__ import annotations

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
    user_errors,
    warn_precision,
)

if TYPE_CHECKING:
    from poolshark.population.train import PopulationTrainConfig

app = typer.Typer(
    help="The population action model: train on a simulated pool or ingested rows, "
    "evaluate, fine-tune on one player.",
    no_args_is_help=True,
)

PoolOption = Annotated[
    str | None, typer.Option("--pool", help="Simulate this pool in-process (with --hands).")
]
HandsOption = Annotated[int | None, typer.Option("--hands", help="Hands to simulate.")]
SimulationSeed = Annotated[
    int | None, typer.Option("--simulation-seed", help="Seed of the simulated hands.")
]
RowsOption = Annotated[
    Path | None, typer.Option("--rows", help="A `poolshark ingest` output folder.")
]
SeedOption = Annotated[int | None, typer.Option("--seed", help="Seed of the run.")]


def _given(values: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


@app.command("train")
def train(
    out: RunFolderOption = None,
    config: RunConfigOption = None,
    pool: PoolOption = None,
    hands: HandsOption = None,
    simulation_seed: SimulationSeed = None,
    rows: RowsOption = None,
    ranges: Annotated[
        str | None,
        typer.Option(help="Opponent range source: exact, exact:POOL, uniform, none, module:f."),
    ] = None,
    hidden: Annotated[
        str | None, typer.Option(help="Simulated pools: none, or showdown (impute the rest).")
    ] = None,
    imputer: Annotated[
        str | None, typer.Option(help="Range source the hidden cards are drawn from.")
    ] = None,
    holdout_player: Annotated[
        str | None, typer.Option(help="Leave this player id's rows out (to fine-tune later).")
    ] = None,
    max_rows: Annotated[int | None, typer.Option(help="Use at most N rows.")] = None,
    epochs: Annotated[int | None, typer.Option(help="Epochs (default 8).")] = None,
    batch_size: BatchSizeOption = None,
    learning_rate: LearningRateOption = None,
    width: Annotated[int | None, typer.Option(help="Trunk width (default 256).")] = None,
    depth: Annotated[int | None, typer.Option(help="Residual blocks (default 3).")] = None,
    equity_net: Annotated[
        Path | None, typer.Option(help="Equity-network checkpoint: add its board embedding.")
    ] = None,
    patience: PatienceOption = None,
    device: DeviceOption = None,
    devices: DevicesOption = None,
    precision: PrecisionOption = None,
    seed: SeedOption = None,
    threads: ThreadsOption = None,
    resume: ResumeFlag = False,
    json_output: JsonFlag = False,
) -> None:
    """Train the population model; report validation figures next to the baselines."""
    from poolshark.population.train import PopulationTrainConfig  # lazy: torch; CLI starts fast

    overrides = {
        "out": out,
        "pool": pool,
        "hands": hands,
        "simulation_seed": simulation_seed,
        "rows": rows,
        "ranges": ranges,
        "hidden": hidden,
        "imputer": imputer,
        "holdout_player": holdout_player,
        "max_rows": max_rows,
        "epochs": epochs,
        "batch_size": batch_size,
        "learning_rate": learning_rate,
        "width": width,
        "depth": depth,
        "equity_net": equity_net,
        "patience": patience,
        "device": device,
        "devices": devices,
        "precision": precision,
        "seed": seed,
        "threads": threads,
    }
    with user_errors():
        run = load_run_config(PopulationTrainConfig, config, overrides)
    run_population_training(run, resume=resume, json_output=json_output)


def run_population_training(run: PopulationTrainConfig, *, resume: bool, json_output: bool) -> None:
    """Train (or resume) the run with progress bars (rows, training) and a line per epoch
    on stderr; print the result (one JSON object with ``json_output``). Errors exit 2 with
    one line."""
    from poolshark.population.train import train_population  # lazy: torch; CLI starts fast

    warn_precision(run.device, run.precision)

    def on_epoch(entry: dict[str, float]) -> None:
        if not json_output:
            kl = f", val KL {entry['val_kl']:.4f}" if "val_kl" in entry else ""
            errors.print(
                f"epoch {entry['epoch']:.0f}: train NLL {entry['train_nll']:.4f},"
                f" val NLL {entry['val_nll']:.4f}, accuracy"
                f" {entry['val_accuracy']:.3f}{kl}"
            )

    with user_errors(), StagedProgress(json_output) as bar:
        result = train_population(
            run,
            resume=resume,
            on_step=bar.stage("train"),
            on_epoch=on_epoch,
            on_data=bar.stage("build rows"),
        )
    if json_output:
        print_json(result.to_json())
        return
    console.print(
        f"{result.parameters:,} parameters, {result.train_rows:,} training rows,"
        f" {result.val_rows:,} held-out rows, {result.epochs_run} epochs,"
        f" {result.rows_per_s:,.0f} rows/s"
    )
    if result.validation is not None:
        console.print(report_table(f"held-out hands, best epoch {result.best_epoch}",
                                   result.validation))  # fmt: skip
    console.print(f"checkpoints: {result.best_checkpoint}, {result.last_checkpoint}")


@app.command("eval")
def evaluate(
    checkpoint: Annotated[Path, typer.Option(help="A population-model checkpoint.")],
    pool: PoolOption = None,
    hands: HandsOption = None,
    simulation_seed: SimulationSeed = None,
    rows: RowsOption = None,
    device: DeviceOption = None,
    seed: SeedOption = None,
    threads: ThreadsOption = None,
    json_output: JsonFlag = False,
) -> None:
    """Score a saved model on fresh simulated hands (use another --simulation-seed than
    training) or on ingested rows: baselines are fitted on half the hands, all scored on the
    other half."""
    from poolshark.population.train import (  # lazy: torch; CLI starts fast
        DataConfig,
        evaluate_checkpoint,
    )

    with user_errors():
        data = DataConfig.model_validate(
            _given(
                {
                    "pool": pool,
                    "hands": hands,
                    "simulation_seed": simulation_seed,
                    "rows": rows,
                    "ranges": "uniform",
                }
            )
        )
        if threads is not None and threads < 1:
            raise ValueError(f"--threads must be at least 1, not {threads}")
        report = evaluate_checkpoint(
            checkpoint,
            data,
            device=device or "cpu",
            seed=0 if seed is None else seed,
            threads=threads,
        )
    if json_output:
        print_json(report)
        return
    console.print(report_table(f"{report['rows']:,} rows ({checkpoint})", report))


@app.command("sft")
def sft(
    checkpoint: Annotated[
        Path, typer.Option(help="The population-model checkpoint to start from.")
    ],
    out: Annotated[Path, typer.Option(help="Folder for the player's checkpoint (player.pt).")],
    player: Annotated[
        str, typer.Option(help="The player id (a pool's player name), or auto: the most rows.")
    ] = "auto",
    pool: PoolOption = None,
    hands: HandsOption = None,
    simulation_seed: SimulationSeed = None,
    rows: RowsOption = None,
    epochs: Annotated[int | None, typer.Option(help="At most this many epochs (20).")] = None,
    learning_rate: Annotated[float | None, typer.Option(help="Learning rate (3e-4).")] = None,
    device: DeviceOption = None,
    seed: SeedOption = None,
    threads: ThreadsOption = None,
    json_output: JsonFlag = False,
) -> None:
    """Fine-tune the population model on one player's rows; compare both on that player's
    held-out hands."""
    from poolshark.population.finetune import (  # lazy: torch; CLI starts fast
        SftConfig,
        finetune_player,
    )

    with user_errors():
        run = SftConfig.model_validate(
            _given(
                {
                    "checkpoint": checkpoint,
                    "out": out,
                    "player": player,
                    "pool": pool,
                    "hands": hands,
                    "simulation_seed": simulation_seed,
                    "rows": rows,
                    "epochs": epochs,
                    "learning_rate": learning_rate,
                    "device": device,
                    "seed": seed,
                    "threads": threads,
                }
            )
        )
        result = finetune_player(run)
    if json_output:
        print_json(result)
        return
    console.print(
        f"player {result['player']}: {result['player_rows']:,} rows in"
        f" {result['player_hands']:,} hands ({result['player_rows_imputed']:,} with imputed"
        f" cards); train {result['train_rows']:,}, test {result['test_rows']:,}"
    )
    table = Table(title="the player's held-out hands", title_justify="left")
    for column in ("model", "accuracy", "NLL", "KL to own style"):
        table.add_column(column, justify="left" if column == "model" else "right")
    rows_out = [("population", result["population"]), ("fine-tuned", result["finetuned"])]
    rows_out += [(name, figures) for name, figures in result["baselines"].items()]
    if result["own_style"] is not None:
        rows_out.append(("own style (floor)", result["own_style"]))
    for name, figures in rows_out:
        table.add_row(
            name,
            f"{figures['accuracy']:.3f}",
            f"{figures['nll']:.4f}",
            f"{figures['kl_own_style']:.4f}" if "kl_own_style" in figures else "",
        )
    console.print(table)
    console.print(f"checkpoint: {result['checkpoint']}")


def report_table(title: str, report: dict[str, Any]) -> Table:
    """Accuracy, NLL and KL per street for the model, the baselines and the truth."""
    table = Table(title=title, title_justify="left")
    with_kl = "kl" in report["model"]
    columns = ["predictor", "street", "rows", "accuracy", "NLL"]
    columns += ["KL", "KL moves"] if with_kl else []
    for column in columns:
        table.add_column(column, justify="left" if column in ("predictor", "street") else "right")
    for name in ("model", "context", "majority", "uniform", "truth"):
        if name not in report:
            continue
        figures = report[name]
        streets = [("all", figures), *figures["by_street"].items()]
        for street, part in streets:
            if not part["rows"] or (name != "model" and street != "all"):
                continue
            cells = [
                name if street == "all" else "",
                street,
                f"{part['rows']:,}",
                f"{part['accuracy']:.3f}",
                f"{part['nll']:.4f}",
            ]
            if with_kl:
                cells += [f"{part['kl']:.4f}", f"{part['kl_moves']:.4f}"]
            table.add_row(*cells)
    return table
