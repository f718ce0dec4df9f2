"""``poolshark pool``: the shipped synthetic pools, and simulating their hands to files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.table import Table

from poolshark.cli.common import JsonFlag, console, print_json, progress_bar, user_errors
from poolshark.cli.stats import stats_table
from poolshark.pool.pools import list_pools, load_pool
from poolshark.pool.simulate import Format, SimulatedHands, check_request, write_simulation
from poolshark.pool.stats import Tally, statistics, tally_hands

app = typer.Typer(
    help="Synthetic player pools: list them, simulate their hands.", no_args_is_help=True
)


@app.command("list")
def list_command(json_output: JsonFlag = False) -> None:
    """The shipped pools: players, game and style mix."""
    with user_errors():
        pools = [load_pool(spec.name) for spec in list_pools()]
    if json_output:
        print_json([pool.summary() for pool in pools])
        return
    table = Table(title="Shipped pools", title_justify="left")
    for column in ("pool", "players", "seats", "blinds", "stack", "style mix (players)"):
        table.add_column(column, justify="right" if column in ("players", "seats") else "left")
    for pool in pools:
        spec = pool.spec
        counts = np.bincount(pool.player_styles, minlength=len(pool.styles))
        mix = ", ".join(f"{s.name} {c}" for s, c in zip(pool.styles, counts, strict=True))
        table.add_row(
            spec.name,
            str(spec.players),
            str(spec.seats),
            f"{spec.small_blind}/{spec.big_blind}",
            f"{spec.stack_bb:g} bb",
            mix,
        )
    console.print(table)


@app.command("simulate")
def simulate_command(
    pool_name: Annotated[str, typer.Option("--pool", help="A shipped pool or a pool file.")],
    hands: Annotated[int, typer.Option("--hands", "-n", help="Hands to play.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the histories (empty).")],
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same hands.")] = 0,
    format: Annotated[
        str, typer.Option("--format", help="pokerstars, phh or both.")
    ] = "pokerstars",
    tables: Annotated[int, typer.Option(help="Tables played at once (changes the hands).")] = 256,
    hands_per_file: Annotated[int, typer.Option(help="Hands per history file.")] = 50_000,
    json_output: JsonFlag = False,
) -> None:
    """Play fast-fold hands of a pool and write them as a site would, with the ground truth.

    OUT gets pokerstars/*.txt (and/or phh/*.phhs), truth/*.parquet (every seat's cards,
    player and style: never for learners) and summary.json.
    """
    truth = Tally()

    def count(chunk: SimulatedHands) -> None:
        truth.add(tally_hands(chunk))

    with user_errors():
        pool = load_pool(pool_name)
        check_request(out, hands, format, hands_per_file)
        chosen: Format = (
            "pokerstars" if format == "pokerstars" else "phh" if format == "phh" else "both"
        )
        with progress_bar(json_output, transient=True) as bar:
            task = bar.add_task(f"{pool.name}: hands", total=hands)
            summary = write_simulation(
                pool,
                hands,
                out,
                seed=seed,
                format=chosen,
                tables=tables,
                hands_per_file=hands_per_file,
                progress=lambda done: bar.update(task, completed=done),
                on_chunk=count,
            )
    figures = statistics(truth)
    if json_output:
        payload = summary.as_dict()
        payload["stats"] = {name: stat.as_dict() for name, stat in figures.items()}
        print_json(payload)
        return
    console.print(
        f"{summary.hands:,} hands of {summary.pool} in {summary.seconds:.1f} s"
        f" ({summary.hands_per_s:,.0f} hands/s), {len(summary.files)} files in {summary.out}"
    )
    console.print(stats_table(figures, title=f"HUD statistics of {pool.name} (ground truth)"))
