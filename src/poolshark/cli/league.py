"""``poolshark league``: train the self-play league, rate its checkpoints, probe it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from poolshark.cli.common import (
    JsonFlag,
    console,
    errors,
    print_json,
    progress_bar,
    user_errors,
)

if TYPE_CHECKING:
    from poolshark.agents.protocol import Agent
    from poolshark.evaluate.match import AgentResult

app = typer.Typer(
    help="Self-play league: REINFORCE against past checkpoints, ratings, exploitability.",
    no_args_is_help=True,
)


@app.callback()
def league() -> None:
    """Self-play league: REINFORCE against past checkpoints, ratings, exploitability."""


COLUMNS = (
    ("epoch", "epoch", "{:.0f}", 6),
    ("hands", "hands", "{:,.0f}", 7),
    ("bb/100", "bb_per_100", "{:+.0f}", 7),
    ("loss", "loss", "{:+.3f}", 7),
    ("entropy", "entropy", "{:.3f}", 7),
    ("fold", "freq_fold", "{:.0%}", 5),
    ("call", "freq_call", "{:.0%}", 5),
    ("bet", "freq_bet", "{:.0%}", 5),
    ("pool", "pool_size", "{:.0f}", 4),
    ("s", "seconds", "{:.1f}", 5),
)
"""Live columns: title, history key, format, width (bb/100 is against the epoch's pool)."""


def _line(values: dict[str, float]) -> str:
    return " ".join(fmt.format(values[key]).rjust(width) for _, key, fmt, width in COLUMNS)


@app.command("train")
def train(
    out: Annotated[Path, typer.Option(help="Run folder (last.pt, pool/, history.csv).")] = Path(
        "runs/league"
    ),
    config: Annotated[
        Path | None, typer.Option(help="TOML config (configs/league.toml); unknown keys fail.")
    ] = None,
    epochs: Annotated[int | None, typer.Option(help="Train to this epoch.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the whole run.")] = None,
    device: Annotated[str | None, typer.Option(help="cpu, cuda or cuda:N.")] = None,
    threads: Annotated[int | None, typer.Option(help="torch CPU threads.")] = None,
    ray_workers: Annotated[
        int | None, typer.Option(help="Play each epoch's games on this many Ray actors.")
    ] = None,
    resume_latest: Annotated[
        bool, typer.Option(help="Continue from OUT/last.pt when it exists.")
    ] = False,
    resume_from: Annotated[
        Path | None, typer.Option(help="Continue from this training checkpoint.")
    ] = None,
    every: Annotated[int, typer.Option(help="Print a line every this many epochs.")] = 10,
    json_output: JsonFlag = False,
) -> None:
    """Train the league: each epoch, games against checkpoints drawn from the pool, then
    one REINFORCE step."""
    from poolshark.league.config import LeagueConfig  # lazy: torch; CLI starts fast
    from poolshark.league.train import train_league  # lazy: torch; CLI starts fast

    with user_errors():
        run = LeagueConfig.load(
            config,
            **{
                "learning.epochs": epochs,
                "seed": seed,
                "device": device,
                "threads": threads,
                "ray_workers": ray_workers,
            },
        )
        with progress_bar(json_output, transient=True) as bar:
            task = bar.add_task("epochs", total=run.learning.epochs)
            if not json_output:
                game = run.game
                bar.console.print(
                    f"league: {run.net.architecture}, {game.seats} seats {game.mode}, "
                    f"{run.learning.epochs} epochs, seed {run.seed}, {run.device} -> {out}"
                )
                bar.console.print(" ".join(t.rjust(w) for t, _, _, w in COLUMNS), style="bold")

            def show(epoch: int, row: dict[str, float]) -> None:
                bar.update(task, completed=epoch)
                last = epoch == run.learning.epochs
                if not json_output and (epoch % max(every, 1) == 0 or last):
                    bar.console.print(_line(row))

            result = train_league(
                run, out, resume_latest=resume_latest, resume_from=resume_from, progress=show
            )
    if json_output:
        print_json(result.to_json())
        return
    console.print(
        f"{len(result.history)} epochs in {result.seconds:.0f} s; pool {result.pool}; "
        f"checkpoint {out / 'last.pt'}"
    )


WIPED = "league, memory wiped"
"""The player name of ``league eval --wiped``'s second network."""


def _hud(result: AgentResult) -> str:
    hud = result.hud
    if hud is None:
        return ""
    aggression = "-" if hud.aggression is None else f"{hud.aggression:.1f}"
    return f"{hud.folded:.0%} {hud.went_to_showdown:.0%} {aggression}"


@app.command("eval")
def evaluate(
    target: Annotated[Path, typer.Argument(help="A run folder (its last.pt) or a checkpoint.")],
    against: Annotated[
        list[str] | None,
        typer.Option(help="Opponent spec (repeat); default random, station, tag."),
    ] = None,
    compare: Annotated[
        list[str] | None,
        typer.Option(help="Another agent to play the same opponents on the same deals."),
    ] = None,
    hands: Annotated[int, typer.Option(help="Hands per match.")] = 20_000,
    seed: Annotated[int, typer.Option(help="Match seed.")] = 1,
    wiped: Annotated[
        bool,
        typer.Option(
            help="Also play the same network with its memory wiped every hand, same deals."
        ),
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """The checkpoint in one seat against each opponent in the others, with 95% intervals
    and HUD statistics (VPIP, PFR, folded, went to showdown, aggression). ``--wiped`` adds
    the same weights with the game state cleared every hand and no end-of-hand step, on
    the same deals: what the cross-hand memory is worth against each opponent."""
    from poolshark.agents.loading import load_agent  # lazy: the model packages; CLI starts fast
    from poolshark.experiments.league import (  # lazy: torch; CLI starts fast
        BOTS,
        checkpoint_seats,
        league_target,
        versus,
    )
    from poolshark.league.agent import load_league_agent  # lazy: torch; CLI starts fast

    with user_errors():
        path = league_target(target)
        players: dict[str, Agent] = {"league": load_league_agent(path)}
        if wiped:
            players[WIPED] = load_league_agent(path, wipe_memory=True)
        players.update({spec: load_agent(spec) for spec in compare or []})
        results = versus(
            players,
            against or list(BOTS),
            seats=checkpoint_seats(path),
            hands=hands,
            seed=seed,
            progress=None if json_output else lambda text: errors.print(f"[dim]{text}[/]"),
        )
    if json_output:
        print_json({"checkpoint": str(path), "matches": [v.as_dict() for v in results]})
        return
    table = Table(title=f"{path}: {hands:,} hands per match", title_justify="left")
    for title in ("player", "opponent", "bb/100", "95% CI", "VPIP", "PFR", "fold WTSD AF"):
        table.add_column(title, justify="left" if title in ("player", "opponent") else "right")
    for match in results:
        for name, result in match.matches.items():
            agent = result.agents[0]
            estimate = agent.ev_adjusted or agent.actual
            low, high = estimate.interval
            table.add_row(
                name,
                match.opponent,
                f"{estimate.bb_per_100:+.1f}",
                f"{low:+.1f} .. {high:+.1f}",
                f"{agent.vpip:.0%}",
                f"{agent.pfr:.0%}",
                _hud(agent),
            )
    console.print(table)


@app.command("table")
def table_command(
    run: Annotated[Path, typer.Argument(help="A league run folder.")],
    checkpoints: Annotated[int, typer.Option(help="Snapshots rated, evenly spaced.")] = 6,
    bots: Annotated[
        list[str] | None, typer.Option("--bot", help="Bot to rate beside them (repeat).")
    ] = None,
    hands: Annotated[int, typer.Option(help="Hands per pairing.")] = 2000,
    seed: Annotated[int, typer.Option(help="Match seed.")] = 0,
    plots: Annotated[
        Path | None, typer.Option(help="Write the league's plots (PNG) into this folder.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Round robin of the run's checkpoints and the bots; Bradley-Terry ratings on the Elo
    scale with 95% intervals (a game is a block of 100 hands, won by the player ahead)."""
    from poolshark.evaluate.ratings import elo_table  # lazy: torch; CLI starts fast
    from poolshark.experiments.league import BOTS, league_table  # lazy: torch; CLI starts fast

    with user_errors():
        result = league_table(
            run,
            checkpoints=checkpoints,
            bots=tuple(bots) if bots else BOTS,
            hands=hands,
            seed=seed,
            progress=None if json_output else lambda text: errors.print(f"[dim]{text}[/]"),
        )
        written = _league_plots(run, result, plots) if plots is not None else []
    if json_output:
        print_json({**result.as_dict(), "plots": [str(p) for p in written]})
        return
    console.print(elo_table(result.ratings, result.pairs))
    for path in written:
        console.print(f"plot: {path}")


def _league_plots(run: Path, result: Any, folder: Path) -> list[Path]:
    """Ratings over training, action frequencies and training curves, as PNGs."""
    from poolshark.report.league import (  # lazy: matplotlib
        plot_action_frequencies,
        plot_ratings_over_training,
        plot_training_curves,
    )

    folder.mkdir(parents=True, exist_ok=True)
    checkpoints = [r for r in result.ratings if r.name in result.epochs]
    bots = [r for r in result.ratings if r.name in result.bots]
    written = [
        plot_ratings_over_training(
            checkpoints, result.epochs, folder / "league-ratings.png", baselines=bots
        )
    ]
    history = run / "history.csv"
    if history.is_file():
        written.append(plot_action_frequencies(history, folder / "league-actions.png"))
        written.append(plot_training_curves(history, folder / "league-training.png"))
    return written


@app.command("probe")
def probe(
    run: Annotated[Path, typer.Argument(help="A league run folder.")],
    checkpoints: Annotated[int, typer.Option(help="Snapshots probed, evenly spaced.")] = 3,
    iterations: Annotated[int, typer.Option(help="PPO iterations per best response.")] = 20,
    tables: Annotated[int, typer.Option(help="PPO tables per iteration.")] = 256,
    hands: Annotated[int, typer.Option(help="Evaluation hands per best response.")] = 4000,
    seed: Annotated[int, typer.Option(help="Seed.")] = 0,
    json_output: JsonFlag = False,
) -> None:
    """Exploitability over training: a fresh PPO best response against each checkpoint."""
    from poolshark.experiments.league import exploitability  # lazy: torch; CLI starts fast

    with user_errors():
        points = exploitability(
            run,
            run / "probe",
            checkpoints=checkpoints,
            iterations=iterations,
            tables=tables,
            eval_hands=hands,
            seed=seed,
            progress=None if json_output else lambda text: errors.print(f"[dim]{text}[/]"),
        )
    if json_output:
        print_json({"run": str(run), "points": [p.as_dict() for p in points]})
        return
    table = Table(title="best response against each checkpoint", title_justify="left")
    for title in ("epoch", "best response bb/100", "95% CI"):
        table.add_column(title, justify="right")
    for point in points:
        low, high = point.bb_per_100 - point.half_width, point.bb_per_100 + point.half_width
        table.add_row(str(point.epoch), f"{point.bb_per_100:+.1f}", f"{low:+.1f} .. {high:+.1f}")
    console.print(table)


@app.command("memory")
def memory(
    out: Annotated[Path, typer.Option(help="Folder of the two runs.")] = Path("runs/league-memory"),
    config: Annotated[Path | None, typer.Option(help="Base TOML config.")] = None,
    opponent: Annotated[
        str, typer.Option(help="The opponent whose style switches.")
    ] = "switch:maniac,nit@0.1",
    epochs: Annotated[int | None, typer.Option(help="Epochs per run.")] = None,
    hands: Annotated[int, typer.Option(help="Evaluation hands per learner.")] = 20_000,
    paired_seeds: Annotated[
        int, typer.Option(help="Evaluation seeds of the memory learner trained vs wiped (0: skip).")
    ] = 3,
    seed: Annotated[int | None, typer.Option(help="Seed.")] = None,
    json_output: JsonFlag = False,
) -> None:
    """What cross-hand memory is worth: train with and without it against an opponent
    whose style switches, and play both against it; then the memory learner as trained
    against the same network with its memory wiped every hand, on the same deals."""
    from poolshark.experiments.league import memory_experiment  # lazy: torch; CLI starts fast
    from poolshark.league.config import LeagueConfig  # lazy: torch; CLI starts fast

    with user_errors():
        base = LeagueConfig.load(config, **{"learning.epochs": epochs, "seed": seed})
        result = memory_experiment(
            base,
            out,
            opponent=opponent,
            eval_hands=hands,
            paired_seeds=paired_seeds,
            progress=None if json_output else lambda text: errors.print(f"[dim]{text}[/]"),
        )
    if json_output:
        print_json(result.as_dict())
        return
    gain, width = result.gain
    for name, (rate, half) in (
        ("with memory", result.with_memory),
        ("without memory", result.without_memory),
    ):
        console.print(f"{name}: {rate:+.1f} ± {half:.1f} bb/100 against {result.opponent}")
    console.print(f"memory is worth {gain:+.1f} ± {width:.1f} bb/100")
    if result.in_use is not None:
        used = result.in_use
        console.print(
            f"memory in use (trained minus wiped, same network): {used.estimate:+.1f} "
            f"[{used.low:+.1f}, {used.high:+.1f}] bb/100, {used.method}"
        )
    if result.prediction is not None:
        known = result.prediction
        console.print(
            f"what the memory knows: the opponent head's cross-entropy on "
            f"{known.answered:,} answers, trained {known.trained:.3f} against wiped "
            f"{known.wiped:.3f} nats; on the {known.bets:,} answers to bets "
            f"{known.trained_bets:.3f} against {known.wiped_bets:.3f}"
        )
