"""The ``poolshark`` command line: one Typer app; each pipeline stage plugs in a sub-command."""

from __future__ import annotations

import typer

from poolshark.cli import (
    cards,
    data,
    demo,
    equity,
    exploit,
    ingest,
    league,
    leaks,
    limit,
    limit_population,
    limit_winner,
    models,
    oracle,
    pool,
    population,
    solve,
    spots,
    stats,
    tour,
    train,
    web,
)
from poolshark.cli import eval as eval_cli

app = typer.Typer(
    name="poolshark",
    help="Learn a poker player pool's habits from hand histories and exploit them.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(equity.app, name="equity")
app.add_typer(solve.app, name="solve")
app.command("hand")(cards.hand)
app.command("demo")(demo.demo)
app.command("tour")(tour.tour)
app.command("ingest")(ingest.ingest_command)
app.add_typer(data.app, name="data")
app.add_typer(pool.app, name="pool")
limit.app.command("record")(limit_population.record_command)
limit.app.command("fit")(limit_population.fit_command)
limit.app.command("observe")(limit_population.observe_command)
limit.app.command("exploit")(limit_population.exploit_command)
limit.app.command("winner")(limit_winner.winner_command)
app.add_typer(limit.app, name="limit")
app.add_typer(league.app, name="league")
app.command("stats")(stats.stats_command)
app.command("spots")(spots.spots_command)
app.command("leaks")(leaks.leaks_command)
app.add_typer(models.app, name="equity-net")
app.command("eval")(eval_cli.eval_command)
app.add_typer(exploit.app, name="exploit")
app.add_typer(population.app, name="population")
app.add_typer(oracle.app, name="oracle")
app.add_typer(train.app, name="train")
app.command("web")(web.web_command)


def main() -> None:
    """Entry point of the ``poolshark`` script."""
    app()
