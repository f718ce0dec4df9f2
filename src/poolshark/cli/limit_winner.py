"""``poolshark limit winner`` (registered on the ``limit`` group by the CLI's ``__init__``):
fit the observer's showdown winner model (seed 003, eq. 4-7) to recorded showdowns and
score the winner's held-out log-loss against the uniform and the no-beliefs baselines."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from poolshark.cli.common import JsonFlag, console, print_json, user_errors
from poolshark.cli.limit_population import split_records


def winner_command(
    records_path: Annotated[
        Path, typer.Argument(help="Records from `poolshark limit record`.", show_default=False)
    ],
    model: Annotated[
        Path,
        typer.Option(help="A model with its observer (the .pt `limit observe` writes)."),
    ],
    steps: Annotated[int, typer.Option(help="Gradient steps on log q.")] = 100,
    learning_rate: Annotated[float, typer.Option("--lr", help="Step size.")] = 10.0,
    max_players: Annotated[
        int,
        typer.Option(help="Largest showdown kept (types ** players tuples enumerated)."),
    ] = 4,
    thin: Annotated[
        bool,
        typer.Option(
            help="The thesis's saving: train on a showdown of n > 3 players with probability "
            "types**3 / types**n, its weight scaled by the inverse."
        ),
    ] = False,
    ceiling: Annotated[
        bool,
        typer.Option(
            help="Also fit and score a model on the shown strength buckets as known types "
            "(reads the cards: what the 8 types could tell at best; slow)."
        ),
    ] = False,
    holdout: Annotated[float, typer.Option(help="Share of matches held out.")] = 0.2,
    seed: Annotated[int, typer.Option(help="Seed of the split (and of the thinning).")] = 0,
    threads: Annotated[int, typer.Option(help="Torch threads.")] = 1,
    json_output: JsonFlag = False,
) -> None:
    """Fit the winner model (seed 003, section 4.4.3): who wins a showdown from each
    player's river card-type belief, built by the model's observer from the actions alone
    (never the shown cards), by gradient ascent on log q over the training matches'
    showdowns; print the held-out mean log-loss of the winner (nats per showdown, split pots
    shared) against 1/n, the same model on no-action beliefs and, with --ceiling, a model
    fitted on the shown strength buckets (which reads the cards)."""
    from poolshark.limitnet.agent import load_player  # lazy: torch, CLI start
    from poolshark.limitnet.public_beliefs import with_record_beliefs  # lazy: torch, CLI start
    from poolshark.limitnet.winner import fit_winner_to_records  # lazy: torch, CLI start

    with user_errors():
        main, held = split_records(records_path, holdout, seed, threads)
        observer = load_player(model).observer
        if observer is None:
            raise ValueError(f"{model} has no observer: fit one with `poolshark limit observe`")
        result = fit_winner_to_records(
            with_record_beliefs(main, observer),
            with_record_beliefs(held, observer),
            observer,
            steps=steps,
            learning_rate=learning_rate,
            max_players=max_players,
            thin=thin,
            seed=seed,
            ceiling=ceiling,
        )
    report = {
        "records": str(records_path),
        "model": str(model),
        "steps": steps,
        "learning_rate": learning_rate,
        "max_players": max_players,
        "thin": thin,
        "ceiling": ceiling,
        "seed": seed,
        "train_showdowns": result.train_showdowns,
        "fitted_showdowns": result.fitted_showdowns,
        "log_q": result.model.log_q.tolist(),
        "shown_log_q": None if result.shown_model is None else result.shown_model.log_q.tolist(),
        "train_log_likelihood": [result.course[0], result.course[-1]],
        "held_out_log_loss": result.log_loss,
        "held_out_by_players": {str(n): row for n, row in result.by_players.items()},
    }
    if json_output:
        print_json(report)
        return
    table = Table(
        title=f"winner model: held-out log-loss, nats per showdown ({result.train_showdowns} "
        "training showdowns)",
        title_justify="left",
    )
    names = ("uniform", "prior", "actions", "shown") if ceiling else ("uniform", "prior", "actions")
    columns = ("players", "showdowns", "1/n", "no beliefs", "action beliefs", "shown buckets")
    for column in columns[: 2 + len(names)]:
        table.add_column(column, justify="right")
    for players, row in result.by_players.items():
        table.add_row(str(players), f"{row['showdowns']:.0f}", *(f"{row[n]:.4f}" for n in names))
    total = sum(row["showdowns"] for row in result.by_players.values())
    table.add_row("all", f"{total:.0f}", *(f"{result.log_loss[n]:.4f}" for n in names))
    console.print(table)
    console.print("log q by card type: " + " ".join(f"{v:+.2f}" for v in result.model.log_q))
