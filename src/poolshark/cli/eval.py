"""``poolshark eval``: play agents against each other or a pool; bb/100 with 95% intervals."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import Agent
from poolshark.cli.common import JsonFlag, console, print_json, progress_bar, user_errors
from poolshark.engine.config import Betting
from poolshark.engine.runouts import AllInEV
from poolshark.evaluate.match import (
    AgentResult,
    Estimate,
    MatchConfig,
    MatchResult,
    default_lineup,
    play_match,
)


def eval_command(
    agents: Annotated[
        list[str],
        typer.Argument(
            help="Agents: random, station, folder, tag, poki, vexbot, hardbot, expert, a style "
            "(nit, style:tag), pool:NAME, limit:NAME or limit:pool (fixed-limit styles), "
            "switch:A,B[@P], a pool/lineup .toml file, a solved limit folder, a checkpoint "
            ".pt, or package.module:Class (docs/evaluate.md lists them all).",
            show_default=False,
        ),
    ],
    against: Annotated[
        str | None,
        typer.Option(help="An agent or pool filling every seat the AGENTS leave (one each)."),
    ] = None,
    hands: Annotated[
        int, typer.Option("--hands", "-n", help="Table-hands to play (at least).")
    ] = 10_000,
    seats: Annotated[int, typer.Option(help="Seats per table (2-10).")] = 6,
    betting: Annotated[
        Betting,
        typer.Option(
            help="no-limit, or fixed-limit (bets of 1 and 2 big blinds, 4 per round; "
            "win rates also in small bets per hand)."
        ),
    ] = Betting.NO_LIMIT,
    duplicate: Annotated[
        bool, typer.Option(help="Replay each deal with the seats rotated; average per deal.")
    ] = False,
    seed: Annotated[int, typer.Option(help="Seed of the cards and every agent's stream.")] = 0,
    depth: Annotated[float, typer.Option(help="Starting stacks in big blinds.")] = 100.0,
    rake: Annotated[float, typer.Option(help="Rake in percent of the pot.")] = 0.0,
    rake_cap: Annotated[
        float | None, typer.Option(help="Rake cap per hand, in big blinds.")
    ] = None,
    all_in_ev: Annotated[
        AllInEV,
        typer.Option(
            "--ev", help="All-in EV adjustment: sampled (random runouts), exact (slow), or off."
        ),
    ] = AllInEV.SAMPLED,
    tables: Annotated[int, typer.Option(help="Tables played at once.")] = 1024,
    variance_reduction: Annotated[
        bool,
        typer.Option(
            "--aivat",
            help="Also report an AIVAT-style variance-reduced win rate (chance and "
            "known-policy corrections; unbiased, narrower interval, slower).",
        ),
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Play AGENTS against each other (in turn around the table) or --against a field;
    print each one's win rate in bb/100 with a 95% confidence interval, actual and
    all-in-EV adjusted (and with --aivat, variance-reduced)."""
    with user_errors():
        config = MatchConfig(
            hands=hands,
            seats=seats,
            duplicate=duplicate,
            seed=seed,
            depth_bb=depth,
            tables=tables,
            rake_percent=rake,
            rake_cap_bb=rake_cap,
            all_in_ev=all_in_ev,
            variance_reduction=variance_reduction,
            betting=betting,
        )
        specs = [*agents, *([against] if against is not None else [])]
        if str(Path.cwd()) not in sys.path:  # user bots beside the caller, like python -m
            sys.path.insert(0, str(Path.cwd()))
        loaded: list[Agent] = [load_agent(spec) for spec in specs]
        lineup = default_lineup(len(loaded), seats, against=against is not None)
        result = _play(loaded, lineup, config, specs, quiet=json_output)
    if json_output:
        print_json(result.as_dict())
    else:
        print_result(result)


def _play(
    agents: list[Agent],
    lineup: tuple[int, ...],
    config: MatchConfig,
    names: list[str],
    *,
    quiet: bool,
) -> MatchResult:
    """The match, with a progress bar on stderr unless ``quiet``."""
    with progress_bar(quiet, transient=True) as bar:
        task = bar.add_task("hands", total=None)
        return play_match(
            agents,
            lineup,
            config,
            names=names,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )


def _rate(estimate: Estimate | None) -> tuple[str, str]:
    if estimate is None:
        return "-", "-"
    return f"{estimate.bb_per_100:+.1f}", f"±{estimate.half_width:.1f}"


def print_result(result: MatchResult) -> None:
    """One row per agent: bb/100 and 95% interval (actual and all-in EV), hands, VPIP/PFR."""
    config = result.config
    mode = f"duplicate, {result.replays} replays per deal" if config.duplicate else "plain"
    table = Table(
        title=f"{result.table_hands:,} hands, {config.seats} seats, {mode}, seed {config.seed}",
        title_justify="left",
    )
    columns = ["agent", "seats", "hands", "bb/100", "95% CI", "EV bb/100", "EV 95%"]
    if config.variance_reduction:
        columns += ["AIVAT", "AIVAT CI"]
    limit = config.betting is Betting.FIXED_LIMIT
    if limit:
        columns += ["sb/hand", "sb 95% CI"]
    for column in columns:
        table.add_column(column, justify="left" if column == "agent" else "right")

    for agent in result.agents:
        table.add_row(
            agent.name,
            str(agent.seats),
            f"{agent.hands:,}",
            *_cells(agent, aivat=config.variance_reduction, limit=limit),
        )
    console.print(table)
    if limit:
        print_thesis_styles(result)
    else:
        print_styles(result)
    lineup = ", ".join(result.agents[i].name for i in result.lineup)
    ev = {
        AllInEV.SAMPLED: f"sampled ({config.runouts} runouts)",
        AllInEV.EXACT: "exact",
        AllInEV.OFF: "off",
    }
    console.print(
        f"lineup (seat slots, rotated every hand): {lineup}; all-in EV: {ev[config.all_in_ev]}; "
        f"rake {result.rake_chips / config.big_blind:,.1f} bb; "
        f"{result.seconds:.1f} s ({result.table_hands / max(result.seconds, 1e-9):,.0f} hands/s)"
    )
    styles = (
        "VP$IP: deals it put chips in preflop beyond the blinds; Fold%, Ww/oSD: of those, "
        "the deals it later folded, and won with everyone else folded (the rest went to "
        "showdown); W$SD: its share of the showdown pots it contested; AF: bets and raises "
        "per call, every street."
        if limit
        else "WTSD: went to showdown; W$SD: its share of the showdown pots it contested; "
        "AF: postflop bets and raises per call."
    )
    console.print(
        "95% CI: ±1.96 standard errors over independent deals (per agent, its seats summed); "
        f"EV: all-in pots paid by expectation. {styles}"
        + (
            " AIVAT: minus chance and known-policy corrections (mean zero; docs/evaluate.md)."
            if config.variance_reduction
            else ""
        )
    )
    coerced = [f"{a.name}: {a.coerced:,}" for a in result.agents if a.coerced]
    if coerced:
        console.print(
            f"[yellow]illegal requests turned into legal actions: {', '.join(coerced)}[/]"
        )


def _cells(agent: AgentResult, *, aivat: bool, limit: bool) -> list[str]:
    actual, actual_ci = _rate(agent.actual)
    ev, ev_ci = _rate(agent.ev_adjusted)
    reduced = list(_rate(agent.aivat)) if aivat else []
    rate = agent.actual
    small_bets = (
        [f"{rate.small_bets_per_hand:+.3f}", f"±{rate.half_width / 100:.3f}"] if limit else []
    )
    return [
        actual,
        actual_ci,
        ev,
        ev_ci,
        *reduced,
        *small_bets,
    ]


def print_styles(result: MatchResult) -> None:
    """One row per agent: its HUD statistics, so a degenerate style shows beside its rate."""
    table = Table(title="styles (percent of hands; AF postflop)", title_justify="left")
    for column in ("agent", "VPIP", "PFR", "fold", "WTSD", "W$SD", "won w/o SD", "AF"):
        table.add_column(column, justify="left" if column == "agent" else "right")
    for agent in result.agents:
        hud = agent.hud
        if hud is None:
            continue
        aggression = "-" if hud.aggression is None else f"{hud.aggression:.2f}"
        table.add_row(
            agent.name,
            *(
                f"{100 * share:.1f}"
                for share in (
                    agent.vpip,
                    agent.pfr,
                    hud.folded,
                    hud.went_to_showdown,
                    hud.won_at_showdown,
                    hud.won_without_showdown,
                )
            ),
            aggression,
        )
    console.print(table)


def print_thesis_styles(result: MatchResult) -> None:
    """One row per agent: the fixed-limit HUD statistics as the seed-003 thesis defines them
    (section 5.3), so figures compare with its tables (docs/limit.md)."""
    table = Table(
        title="styles as in the thesis (percent; Fold% and Ww/oSD of the VP$IP deals)",
        title_justify="left",
    )
    for column in ("agent", "VP$IP", "Fold%", "Ww/oSD", "W$SD", "AF"):
        table.add_column(column, justify="left" if column == "agent" else "right")
    for agent in result.agents:
        hud = agent.hud
        if hud is None:
            continue
        shares = (
            agent.vpip,
            hud.voluntary_folded,
            hud.voluntary_won_without_showdown,
            hud.won_at_showdown,
        )
        table.add_row(
            agent.name,
            *("-" if share is None else f"{100 * share:.1f}" for share in shares),
            "-" if hud.aggression_all_streets is None else f"{hud.aggression_all_streets:.2f}",
        )
    console.print(table)
