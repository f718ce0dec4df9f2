"""``poolshark equity``: equity of hands and ranges, hand features, the preflop matrices."""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Annotated

import typer
from rich.table import Table

from poolshark import cache as disk_cache
from poolshark.cards.card import format_cards, parse_cards
from poolshark.cards.combos import parse_combo
from poolshark.cards.ranges import Range
from poolshark.cli.common import (
    JsonFlag,
    console,
    errors,
    matrices_with_progress,
    percent,
    print_json,
    user_errors,
    with_default_command,
)
from poolshark.equity.exact import exact_equity
from poolshark.equity.features import hand_features
from poolshark.equity.matrix import CACHE_NAME, MATRIX_VERSION
from poolshark.equity.montecarlo import monte_carlo_equity
from poolshark.equity.result import EquityResult, TooMuchWorkError

app = typer.Typer(
    cls=with_default_command("calc"),
    help="Equity of hands and ranges (`poolshark equity AhKh QdQc`), and the preflop matrix.",
    no_args_is_help=True,
)


@app.command("calc")
def calc(
    players: Annotated[
        list[str],
        typer.Argument(help="A hand or range per player: 'AhKh', 'QQ+,AKs', 'any'. At least two."),
    ],
    board: Annotated[
        str, typer.Option("--board", "-b", help="Known board: 0, 3, 4 or 5 cards.")
    ] = "",
    dead: Annotated[str, typer.Option(help="Cards known to be out of the deck.")] = "",
    exact: Annotated[
        bool, typer.Option("--exact", help="Enumerate every board (default).")
    ] = False,
    samples: Annotated[int, typer.Option("--samples", "-n", help="Monte Carlo, N samples.")] = 0,
    seed: Annotated[int, typer.Option(help="Seed for Monte Carlo.")] = 0,
    threads: Annotated[int, typer.Option(help="Cores to use (0: all).")] = 0,
    json_output: JsonFlag = False,
) -> None:
    """Equity of each player's hand or range: exact by default, or Monte Carlo with -n N.

    Without --exact or --samples, work too large to enumerate falls back to 1M samples.
    """
    with user_errors():
        if exact and samples:
            raise ValueError("choose one of --exact and --samples")
        ranges = [Range.parse(text) for text in players]
        board_cards = parse_cards(board)
        dead_cards = parse_cards(dead)
        cores = threads or None
        started = time.perf_counter()
        result: EquityResult
        if samples:
            result = monte_carlo_equity(
                ranges, board_cards, dead_cards, samples=samples, seed=seed, threads=cores
            )
        else:
            try:
                result = exact_equity(ranges, board_cards, dead_cards, threads=cores)
            except TooMuchWorkError as too_big:
                if exact:
                    raise
                errors.print(f"[yellow]{too_big}; using 1,000,000 Monte Carlo samples[/]")
                result = monte_carlo_equity(
                    ranges, board_cards, dead_cards, samples=1_000_000, seed=seed, threads=cores
                )
        seconds = time.perf_counter() - started
    if json_output:
        print_json(
            {
                "players": players,
                "board": format_cards(board_cards),
                **result.to_json(),
                "seconds": seconds,
            }
        )
        return
    how = "exact" if result.exact else "Monte Carlo"
    unit = "boards" if result.exact else "samples"
    table = Table(title=f"Equity ({how}, {result.boards:,} {unit}, {seconds:.3f} s)")
    table.add_column("player")
    table.add_column("hand or range")
    table.add_column("equity", justify="right", style="bold")
    table.add_column("win", justify="right")
    table.add_column("tie", justify="right")
    if result.std_errors is not None:
        table.add_column("± 1 s.e.", justify="right")
    for seat, text in enumerate(players):
        row = [
            str(seat + 1),
            text,
            percent(result.equities[seat]),
            percent(result.wins[seat]),
            percent(result.ties[seat]),
        ]
        if result.std_errors is not None:
            row.append(percent(result.std_errors[seat], 3))
        table.add_row(*row)
    if board_cards:
        table.caption = f"board {format_cards(board_cards, ' ')}"
    console.print(table)


@app.command("matrix")
def matrix(
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if cached.")] = False,
    threads: Annotated[int, typer.Option(help="Cores to use (0: all).")] = 0,
    json_output: JsonFlag = False,
) -> None:
    """Build (or load) the exact 1326x1326 preflop win/tie matrices; cached with a checksum."""
    path = disk_cache.cache_path(CACHE_NAME, MATRIX_VERSION)
    if force:
        path.unlink(missing_ok=True)
    started = time.perf_counter()
    was_cached = disk_cache.load(CACHE_NAME, MATRIX_VERSION) is not None
    matrices = matrices_with_progress(quiet=json_output, threads=threads or None)
    seconds = time.perf_counter() - started
    aa_vs_kk = float(matrices.equity[parse_combo("AhAs"), parse_combo("KhKs")])
    if json_output:
        print_json(
            {
                "path": str(path),
                "cached": was_cached,
                "seconds": seconds,
                "shape": list(matrices.win.shape),
                "AhAs_vs_KhKs": aa_vs_kk,
            }
        )
        return
    verb = "loaded" if was_cached else "built"
    console.print(f"{verb} 1326x1326 win and tie matrices in {seconds:.1f} s: {path}")
    console.print(f"AhAs vs KhKs: {percent(aa_vs_kk)}")


@app.command("features")
def features(
    hole: Annotated[str, typer.Argument(help="Your two hole cards, e.g. 'AhKh'.")],
    board: Annotated[str, typer.Option("--board", "-b", help="Flop, turn or river.")],
    opponent: Annotated[str, typer.Option("--range", "-r", help="Opponent's range.")] = "any",
    json_output: JsonFlag = False,
) -> None:
    """Hand strength, E, E2, PPOT and NPOT of a hand against a range (exact)."""
    with user_errors():
        result = hand_features(
            parse_cards(hole, count=2), parse_cards(board), Range.parse(opponent)
        )
    values = asdict(result)
    if json_output:
        print_json({"hole": hole, "board": board, "range": opponent, **values})
        return
    table = Table(title=f"{hole} on {format_cards(parse_cards(board), ' ')} vs {opponent}")
    table.add_column("feature")
    table.add_column("value", justify="right", style="bold")
    for name, value in values.items():
        table.add_row(name, f"{value:.4f}")
    console.print(table)
