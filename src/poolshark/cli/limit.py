"""``poolshark limit``: heads-up fixed-limit hold'em: the gauntlet of every pairing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import Agent
from poolshark.cli.common import JsonFlag, console, errors, print_json, user_errors
from poolshark.experiments.gauntlet import (
    AgentFactory,
    Pairing,
    cross_cells,
    markdown_table,
    round_robin,
)

app = typer.Typer(
    help="Heads-up fixed-limit hold'em: bots and their gauntlet.", no_args_is_help=True
)


def _factory(spec: str) -> AgentFactory:
    """Load ``spec`` once now (so a bad spec fails before any match), then afresh per use."""
    load_agent(spec)

    def fresh() -> Agent:
        return load_agent(spec)

    return fresh


@app.command("gauntlet")
def gauntlet(
    agents: Annotated[
        list[str],
        typer.Argument(
            help="Two or more agent specs (as for poolshark eval: poki, vexbot, station, "
            "random, hardbot, a folder from poolshark solve limit, ...).",
            show_default=False,
        ),
    ],
    hands: Annotated[
        int, typer.Option("--hands", "-n", help="Table-hands per pairing (each deal twice).")
    ] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed of the first pairing's deals.")] = 0,
    tables: Annotated[int, typer.Option(help="Tables played at once.")] = 256,
    markdown: Annotated[
        Path | None, typer.Option(help="Also write the cross table here as Markdown.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Play every pairing of AGENTS in duplicate heads-up fixed-limit hold'em and print the
    cross table: the row agent's small bets per hand against the column, with 95% intervals."""
    with user_errors():
        names = list(dict.fromkeys(agents))
        if len(names) < 2:
            raise ValueError("a gauntlet needs at least two different agents")
        if str(Path.cwd()) not in sys.path:  # user bots beside the caller, like python -m
            sys.path.insert(0, str(Path.cwd()))
        factories = {name: _factory(name) for name in names}

        def report(pairing: Pairing) -> None:
            if not json_output:
                low, high = pairing.ci95
                errors.print(
                    f"{pairing.first} vs {pairing.second}: {pairing.small_bets_per_hand:+.3f} "
                    f"sb/hand [{low:+.3f}, {high:+.3f}] ({pairing.seconds:.0f} s)"
                )

        pairings = round_robin(factories, hands=hands, seed=seed, tables=tables, progress=report)
    table_text = markdown_table(pairings)
    if markdown is not None:
        markdown.write_text(table_text + "\n")
    if json_output:
        print_json(
            {
                "agents": names,
                "hands_per_pairing": hands,
                "seed": seed,
                "pairings": [p.as_dict() for p in pairings],
                "unit": "small bets per hand of the first agent; 95% CI over duplicate deals",
            }
        )
        return
    table = Table(title="row vs column, small bets per hand (95% CI)", title_justify="left")
    table.add_column("agent")
    for name in names:
        table.add_column(name, justify="right")
    cells = cross_cells(pairings)
    for row in names:
        table.add_row(row, *(cells.get((row, column), "") for column in names))
    console.print(table)
