"""``poolshark solve``: heads-up shove/fold solved exactly, best responses to any strategies;
Kuhn, Leduc and heads-up limit hold'em (in a card abstraction) by CFR."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.table import Table

from poolshark.agents.equilibrium import ABSTRACTION_FILE, STRATEGY_FILE
from poolshark.cards.ranges import Range
from poolshark.cli.common import (
    JsonFlag,
    console,
    errors,
    matrices_with_progress,
    print_json,
    progress_bar,
    user_errors,
)
from poolshark.equity.matrix import PreflopMatrices
from poolshark.report.range_chart import render_text, save_chart
from poolshark.solve.card_abstraction import fit_abstraction, holdem_game
from poolshark.solve.limit_cfr import ALGORITHMS, Algorithm, SolveResult
from poolshark.solve.limit_cfr import solve as limit_solve
from poolshark.solve.limit_game import LimitGame, kuhn, leduc
from poolshark.solve.shove_fold import (
    ShoveFoldGame,
    Vector,
    fraction_of_combos,
    payoffs,
    top_fraction,
)
from poolshark.solve.solvers import SOLVERS, Solution, solve
from poolshark.solve.sweep import PushFoldTable, stack_grid, sweep

app = typer.Typer(
    help="Solve games: heads-up shove/fold exactly; Kuhn, Leduc and limit hold'em by CFR.",
    no_args_is_help=True,
)
MBB_PER_CHIP = 500.0
"""Milli-big-blinds per chip of the limit games (the big blind is 2 chips)."""

StackOption = Annotated[float, typer.Option("--stack", "-s", help="Stacks in big blinds.")]
AnteOption = Annotated[float, typer.Option(help="Ante per player, in big blinds.")]
SmallBlindOption = Annotated[float, typer.Option(help="Small blind, in big blinds.")]
OutOption = Annotated[Path, typer.Option("--out", help="Folder for charts and tables.")]
_TOP = re.compile(r"top\s*(\d+(?:\.\d+)?)\s*%", re.IGNORECASE)


def _game(stack: float, small_blind: float, ante: float) -> ShoveFoldGame:
    """A validated game with the stack rounded to 0.1 bb (errors: one line, exit 2)."""
    return ShoveFoldGame(stack=round(stack, 1), small_blind=small_blind, ante=ante)


def _strategy(text: str, matrices: PreflopMatrices) -> Vector:
    """A strategy from range notation (``22+,A2s+``) or ``topN%`` by equity vs a random hand."""
    top = _TOP.fullmatch(text.strip())
    if top:
        return top_fraction(float(top.group(1)) / 100, matrices)
    return Range.parse(text).weights.copy()


@app.command("shove-fold")
def shove_fold(
    stack: StackOption = 10.0,
    ante: AnteOption = 0.0,
    small_blind: SmallBlindOption = 0.5,
    method: Annotated[
        str, typer.Option(help="exact (linear program), gradient (torch) or fictitious.")
    ] = "exact",
    sweep_range: Annotated[
        str | None, typer.Option("--sweep", help="LOW:HIGH[:STEP] stacks: a push/fold table.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for the gradient method.")] = 0,
    out: OutOption = Path("out/shove-fold"),
    json_output: JsonFlag = False,
) -> None:
    """Solve heads-up shove/fold: both ranges as 13x13 charts, the game value, exploitability."""
    with user_errors():
        if method not in SOLVERS:
            raise ValueError(f"unknown method {method!r}: use one of {', '.join(SOLVERS)}")
        game = _game(stack, small_blind, ante)
        matrices = matrices_with_progress(quiet=json_output)
        if sweep_range is not None:
            _run_sweep(sweep_range, game, matrices, out, json_output)
            return
        solution = solve(payoffs(game, matrices), method, seed=seed)
    charts = _save_pair(solution.shove, solution.call, game, out)
    figures = {
        "stack_bb": game.stack,
        "small_blind_bb": game.small_blind,
        "ante_bb": game.ante,
        "method": solution.method,
        "sb_shove_fraction": fraction_of_combos(solution.shove),
        "bb_call_fraction": fraction_of_combos(solution.call),
        "sb_value_bb": solution.exploitability.value,
        "exploitability_bb": solution.exploitability.total,
        "sb_gives_up_bb": solution.exploitability.sb_gives_up,
        "bb_gives_up_bb": solution.exploitability.bb_gives_up,
        "seconds": solution.seconds,
        "charts": [str(p) for p in charts],
        "curve": solution.curve,
    }
    if json_output:
        print_json(figures)
        return
    console.print(render_text(solution.shove, f"Small blind shoves at {game.stack:g} bb"))
    console.print(render_text(solution.call, f"Big blind calls at {game.stack:g} bb"))
    console.print(_summary_table(solution))
    console.print(f"charts: {', '.join(str(p) for p in charts)}")


@app.command("exploit")
def exploit(
    shove: Annotated[str, typer.Option(help="Small blind's shoving range, or 'top30%'.")],
    call: Annotated[str, typer.Option(help="Big blind's calling range, or 'top20%'.")],
    stack: StackOption = 10.0,
    ante: AnteOption = 0.0,
    small_blind: SmallBlindOption = 0.5,
    json_output: JsonFlag = False,
) -> None:
    """Exact best responses to two given strategies, and what each strategy gives up."""
    with user_errors():
        game = _game(stack, small_blind, ante)
        matrices = matrices_with_progress(quiet=json_output)
        the_payoffs = payoffs(game, matrices)
        shove_strategy = _strategy(shove, matrices)
        call_strategy = _strategy(call, matrices)
    measured = the_payoffs.exploitability(shove_strategy, call_strategy)
    best_shove = the_payoffs.best_shove(call_strategy)
    best_call = the_payoffs.best_call(shove_strategy)
    figures = {
        "stack_bb": game.stack,
        "sb_shove_fraction": fraction_of_combos(shove_strategy),
        "bb_call_fraction": fraction_of_combos(call_strategy),
        "sb_value_bb": measured.value,
        "exploitability_bb": measured.total,
        "sb_gives_up_bb": measured.sb_gives_up,
        "bb_gives_up_bb": measured.bb_gives_up,
        "best_shove_fraction": fraction_of_combos(best_shove),
        "best_call_fraction": fraction_of_combos(best_call),
    }
    if json_output:
        print_json(figures)
        return
    console.print(render_text(best_call, f"Big blind's best response to shoving {shove}"))
    console.print(render_text(best_shove, f"Small blind's best response to calling {call}"))
    table = Table(title=f"Given strategies at {game.stack:g} bb")
    table.add_column("figure")
    table.add_column("bb per hand", justify="right")
    table.add_row("small blind's value", f"{measured.value:+.4f}")
    table.add_row("the shove strategy gives up", f"{measured.sb_gives_up:.4f}")
    table.add_row("the call strategy gives up", f"{measured.bb_gives_up:.4f}")
    table.add_row("exploitability (mean)", f"{measured.total:.4f}")
    console.print(table)


def _run_sweep(
    text: str, game: ShoveFoldGame, matrices: PreflopMatrices, out: Path, json_output: bool
) -> None:
    """Solve every stack of ``LOW:HIGH[:STEP]`` and write the push/fold table and charts."""
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise ValueError(f"bad --sweep {text!r}: expected LOW:HIGH or LOW:HIGH:STEP")
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"bad --sweep {text!r}: stacks must be numbers") from None
    stacks = stack_grid(*numbers)
    _game(stacks[0], game.small_blind, game.ante)  # the shortest stack must be playable too
    started = time.perf_counter()
    table = sweep(matrices, stacks, small_blind=game.small_blind, ante=game.ante)
    seconds = time.perf_counter() - started
    files = _write_sweep(table, out)
    figures = {
        "stacks": len(stacks),
        "low_bb": stacks[0],
        "high_bb": stacks[-1],
        "seconds": seconds,
        "max_exploitability_bb": max(row.exploitability for row in table.rows),
        "files": [str(p) for p in files],
    }
    if json_output:
        print_json(figures)
        return
    top = stacks[-1]
    console.print(render_text(table.max_shove / top, f"Shoved up to (share of {top:g} bb)"))
    console.print(
        f"Solved {len(stacks)} stacks from {stacks[0]:g} to {top:g} bb in {seconds:.1f} s; "
        f"worst exploitability {figures['max_exploitability_bb']:.2e} bb/hand."
    )
    console.print(f"files: {', '.join(str(p) for p in files)}")


def _write_sweep(table: PushFoldTable, out: Path) -> list[Path]:
    """The table as CSV and JSON, and both seats' charts of the largest stacks."""
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / "push-fold.csv"
    csv_path.write_text(table.to_csv())
    json_path = out / "push-fold.json"
    json_path.write_text(json.dumps(table.to_json(), indent=1))
    top = table.stacks[-1]
    files = [csv_path, json_path]
    for seat, values in (("shove", table.max_shove), ("call", table.max_call)):
        for suffix in (".png", ".svg"):
            files.append(
                save_chart(
                    values / top,
                    out / f"push-fold-{seat}{suffix}",
                    title=f"Largest stack (bb) at which the equilibrium {seat}s",
                    values=np.where(values > 0, values, np.nan),
                    value_format="{:g}",
                    shade_label=f"largest stack as a share of {top:g} bb",
                )
            )
    return files


def _save_pair(shove: Vector, call: Vector, game: ShoveFoldGame, out: Path) -> list[Path]:
    """PNG and SVG charts of both strategies."""
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for seat, strategy, verb in (("sb-shove", shove, "shoves"), ("bb-call", call, "calls")):
        title = f"{'Small' if seat.startswith('sb') else 'Big'} blind {verb} at {game.stack:g} bb"
        for suffix in (".png", ".svg"):
            files.append(
                save_chart(strategy, out / f"{seat}-{game.stack:g}bb{suffix}", title=title)
            )
    return files


def _summary_table(solution: Solution) -> Table:
    """The headline numbers of one solve."""
    table = Table(title="Shove/fold equilibrium")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_row("method", solution.method)
    table.add_row(
        "small blind shoves", f"{100 * fraction_of_combos(solution.shove):.1f}% of combos"
    )
    table.add_row("big blind calls", f"{100 * fraction_of_combos(solution.call):.1f}% of combos")
    table.add_row("small blind's value", f"{solution.exploitability.value:+.4f} bb/hand")
    table.add_row("exploitability", f"{solution.exploitability.total:.2e} bb/hand")
    table.add_row("solve time", f"{solution.seconds:.3f} s")
    return table


SMALL_GAMES = {"kuhn": kuhn, "leduc": leduc}
AlgorithmOption = Annotated[
    str, typer.Option(help="cfr+ (regret matching+, linear averaging), dcfr or cfr.")
]


def _algorithm(name: str) -> Algorithm:
    """A solver algorithm by name (errors: one line, exit 2)."""
    for algorithm in ALGORITHMS:
        if algorithm == name:
            return algorithm
    raise ValueError(f"unknown algorithm {name!r}: use one of {', '.join(ALGORITHMS)}")


def _solve_with_progress(
    game: LimitGame, iterations: int, algorithm: Algorithm, *, quiet: bool, unit: str, scale: float
) -> SolveResult:
    """:func:`limit_cfr.solve` with a progress bar showing the last exploitability."""
    with progress_bar(quiet, transient=True) as bar:
        task = bar.add_task(f"{algorithm} on {game.name}", total=iterations)

        def report(iteration: int, gap: float | None) -> None:
            if gap is not None:
                bar.update(task, description=f"{algorithm}: {gap * scale:.4g} {unit}")
            bar.update(task, completed=iteration)

        return limit_solve(game, iterations, algorithm=algorithm, progress=report)


def _print_curve(result: SolveResult, unit: str, scale: float) -> None:
    """The exploitability curve as a table."""
    table = Table(title=f"{result.game_name}, {result.algorithm}", title_justify="left")
    table.add_column("iteration", justify="right")
    table.add_column(f"exploitability ({unit})", justify="right")
    for iteration, gap in result.curve:
        table.add_row(f"{iteration:,}", f"{gap * scale:.5g}")
    console.print(table)
    console.print(
        f"value for the first player: {result.value * scale:+.5g} {unit}; {result.seconds:.1f} s"
    )


@app.command("cfr")
def cfr_command(
    game: Annotated[str, typer.Option(help="kuhn or leduc.")] = "leduc",
    iterations: Annotated[int, typer.Option("--iterations", "-i")] = 1000,
    algorithm: AlgorithmOption = "cfr+",
    json_output: JsonFlag = False,
) -> None:
    """Solve Kuhn poker or Leduc hold'em by CFR: the value (Kuhn -1/18, Leduc -0.0856 for
    the first player) and the exact exploitability falling with iterations, in chips."""
    with user_errors():
        if game not in SMALL_GAMES:
            raise ValueError(f"unknown game {game!r}: use {' or '.join(SMALL_GAMES)}")
        result = _solve_with_progress(
            SMALL_GAMES[game](),
            iterations,
            _algorithm(algorithm),
            quiet=json_output,
            unit="chips",
            scale=1.0,
        )
    if json_output:
        print_json(result.as_dict())
        return
    _print_curve(result, "chips per hand", 1.0)


@app.command("limit")
def limit_command(
    buckets: Annotated[
        str, typer.Option(help="Card buckets per street: preflop,flop,turn,river.")
    ] = "5,5,5,5",
    fit_hands: Annotated[
        int, typer.Option(help="Sampled (hand, board) pairs per street to fit the buckets.")
    ] = 20_000,
    deals: Annotated[
        int, typer.Option(help="Random deals that define the abstract game's chances.")
    ] = 200_000,
    iterations: Annotated[int, typer.Option("--iterations", "-i")] = 200,
    algorithm: AlgorithmOption = "dcfr",
    threads: Annotated[int, typer.Option(help="Cores for the card features.")] = 1,
    seed: Annotated[int, typer.Option(help="Seed of the buckets and the deals.")] = 0,
    out: Annotated[
        Path, typer.Option("--out", help="Folder for abstraction.npz, strategy.npz, solve.json.")
    ] = Path("out/limit-solve"),
    json_output: JsonFlag = False,
) -> None:
    """Solve heads-up limit hold'em in a card abstraction (Sparbot's role): k-means buckets
    of E/E2/PPOT/NPOT per street, the abstract game of sampled deals, CFR on its whole
    betting tree with the exact exploitability (milli-big-blinds per hand) as it falls.
    The folder plays as an agent: ``poolshark eval OUT station --seats 2 --betting
    fixed-limit``."""
    with user_errors():
        counts = tuple(int(part) for part in buckets.split(","))
        if len(counts) != 4:
            raise ValueError(f"buckets are four counts (preflop,flop,turn,river), got {buckets!r}")
        chosen = _algorithm(algorithm)
        if not json_output:
            errors.print(f"fitting {counts} buckets on {fit_hands:,} hands a street ...")
        started = time.perf_counter()
        abstraction = fit_abstraction(
            (counts[0], counts[1], counts[2], counts[3]),
            hands=fit_hands,
            seed=seed,
            threads=threads,
        )
        if not json_output:
            errors.print(f"dealing {deals:,} hands into the abstract game ...")
        game = holdem_game(abstraction, deals, seed, threads=threads)
        prepared = time.perf_counter() - started
        result = _solve_with_progress(
            game,
            iterations,
            chosen,
            quiet=json_output,
            unit="mbb/hand",
            scale=MBB_PER_CHIP,
        )
    out.mkdir(parents=True, exist_ok=True)
    abstraction.save(out / ABSTRACTION_FILE)
    result.strategy.save(out / STRATEGY_FILE)
    figures = {
        **result.as_dict(),
        "buckets": list(counts),
        "fit_hands": fit_hands,
        "deals": deals,
        "seed": seed,
        "exploitability_mbb": result.exploitability * MBB_PER_CHIP,
        "curve_mbb": [[t, gap * MBB_PER_CHIP] for t, gap in result.curve],
        "prepare_seconds": prepared,
        "out": str(out),
    }
    (out / "solve.json").write_text(json.dumps(figures, indent=1) + "\n")
    if json_output:
        print_json(figures)
        return
    _print_curve(result, "mbb/hand", MBB_PER_CHIP)
    console.print(
        f"abstraction, strategy and figures in {out}/ (play it: poolshark eval {out} ...)"
    )
