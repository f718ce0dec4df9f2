"""``poolshark pool``: the shipped synthetic pools, simulating their hands to files, and
fitting a pool to real hands."""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.table import Table

from poolshark.cli.common import JsonFlag, console, print_json, progress_bar, user_errors
from poolshark.cli.stats import hands_summary, stats_table
from poolshark.pool.fit import (
    FitError,
    FitResult,
    default_parameters,
    fit_pool,
    read_parameters,
    real_statistics,
    start_point,
)
from poolshark.pool.pools import list_pools, load_pool, load_pool_spec, pool_toml
from poolshark.pool.simulate import Format, SimulatedHands, check_request, write_simulation
from poolshark.pool.stats import Tally, statistics, tally_hands

app = typer.Typer(
    help="Synthetic player pools: list them, simulate their hands, fit one to real hands.",
    no_args_is_help=True,
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


@app.command("fit")
def fit_command(
    rows: Annotated[
        list[Path],
        typer.Argument(help="Hand-history files, or folders to search for .txt/.phh/.phhs."),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Pool file to write (TOML).")],
    start: Annotated[
        str, typer.Option(help="The pool to start from: a shipped pool or a pool file.")
    ] = "micro-zoom",
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            help="A parameter to fit: ENTRY:PATH, *:PATH or mix:ENTRY, optionally =LOW:HIGH.",
        ),
    ] = None,
    params_file: Annotated[
        Path | None, typer.Option("--params", help="A file of parameters, one per line.")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Name of the fitted pool.")] = None,
    description: Annotated[str | None, typer.Option(help="Its description.")] = None,
    hands: Annotated[
        int, typer.Option("--hands", "-n", help="Simulated hands per candidate.")
    ] = 20_000,
    budget: Annotated[int, typer.Option(help="Candidates simulated at most.")] = 200,
    min_count: Annotated[
        int, typer.Option(help="Fit statistics with at least this many real opportunities.")
    ] = 30,
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same fit.")] = 0,
    json_output: JsonFlag = False,
) -> None:
    """Fit a pool (style mix and per-style parameters) to real hands' spot statistics.

    Without --param or --params, the mix weights and pool-wide preflop and postflop
    frequencies are fitted. Writes OUT and reports every statistic against the rows'
    95% interval (docs/pool-fit.md).
    """
    with user_errors():
        spec, folder = load_pool_spec(start)
        texts = list(param or [])
        if params_file is not None:
            try:
                texts += params_file.read_text().splitlines()
            except OSError as error:
                raise FitError(f"cannot read {params_file}: {error.strerror}") from None
        params = read_parameters(texts) if texts else default_parameters(spec)
        start_point(spec, folder, params)  # fails early on a path a style lacks
        with progress_bar(json_output, transient=True) as bar:
            task = bar.add_task("reading rows", total=None)
            real, read = real_statistics(rows)
            bar.update(task, description="fitting", total=budget, completed=0)
            result = fit_pool(
                spec,
                folder,
                real,
                params,
                hands=hands,
                budget=budget,
                seed=seed,
                min_count=min_count,
                progress=lambda done, best: bar.update(
                    task, completed=done, description=f"fitting (distance {best:.2f})"
                ),
            )
        fitted = result.spec.model_copy(
            update={
                "name": name or result.spec.name,
                "description": description if description is not None else spec.description,
            }
        )
        command = regenerate_command(
            rows,
            {
                "start": start,
                "param": param or [],
                "params": params_file,
                "name": name,
                "description": description,
                "hands": hands,
                "budget": budget,
                "min_count": min_count,
                "seed": seed,
                "out": out,
            },
        )
        comment = (
            f"Fitted by `poolshark pool fit` to {read.tally.hands:,} hands "
            f"({result.evaluations} candidates of {hands:,} hands, seed {seed}).\n"
            f"Regenerate: {command}\n"
            f"Distance (mean squared z): {result.start_distance:.2f} -> {result.distance:.2f}; "
            f"{len(result.misses)} of {sum(line.fitted for line in result.report)} "
            "fitted statistics outside the real 95% interval.\n"
            f"{MAPPING}"
        )
        out.write_text(pool_toml(fitted, comment))
    result = replace(result, spec=fitted)
    if json_output:
        payload = result.as_dict()
        payload["out"] = str(out)
        payload["hands"] = hands_summary(read)
        print_json(payload)
        return
    console.print(fit_table(result))
    console.print(
        f"distance {result.start_distance:.2f} -> {result.distance:.2f} in "
        f"{result.evaluations} candidates, {result.seconds:.0f} s; "
        f"{len(result.misses)} misses; wrote {out}"
    )


MAPPING = (
    "Mapping (docs/pool-fit.md): real hands of any blinds and table size are matched on\n"
    "statistics that mean the same in this pool's game: positions count from the button\n"
    "(seats with more than five players behind them count in no preflop spot), bet sizes\n"
    "are fractions of the pot, the game is the pool's own (seats, blinds, stack above)."
)
"""The header lines of a fitted pool file that say how real hands map onto its game."""


def regenerate_command(rows: list[Path], options: dict[str, object]) -> str:
    """The ``poolshark pool fit`` call that makes the same file (None options left out)."""
    words = ["poolshark", "pool", "fit", *map(str, rows)]
    for key, value in options.items():
        for item in value if isinstance(value, list) else [value]:
            if item is not None:
                words += [f"--{key.replace('_', '-')}", str(item)]
    return " ".join(shlex.quote(word) for word in words)


def fit_table(result: FitResult) -> Table:
    """Every statistic: real value and 95% interval, the fitted pool's value, z, inside."""
    table = Table(title="Fit: real 95% interval against the fitted pool", title_justify="left")
    for column in ("statistic", "real", "95% interval", "n", "fitted", "z", ""):
        table.add_column(column, justify="left" if column == "statistic" else "right")
    for line in result.report:
        real, simulated = line.real, line.simulated
        if real.value is None or real.low is None or real.high is None:
            table.add_row(line.name, "-", "-", "0", _percent(simulated.value), "", "")
            continue
        mark = "" if not line.fitted else "ok" if line.inside else "[red]miss[/]"
        table.add_row(
            line.name,
            _percent(real.value),
            f"{_percent(real.low)} - {_percent(real.high)}",
            f"{real.count:,}",
            _percent(simulated.value),
            "" if line.z is None else f"{line.z:+.1f}",
            mark if line.fitted else "[dim]n/a[/]" if simulated.count == 0 else "[dim]few[/]",
        )
    return table


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"
