"""``poolshark limit``: fixed-limit hold'em: the heads-up gauntlet of every pairing, local best
response against a solved abstraction, HaRDBot's corpus, and the multi-player network
player's training (``train``) and rollout-improvement evaluation (``ri``). Chapter 6's
``record``, ``fit`` and ``exploit`` join the group from ``cli.limit_population``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from poolshark.agents.equilibrium import load_equilibrium_agent
from poolshark.agents.hardbot import Corpus, ablations
from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import Agent
from poolshark.cli.common import (
    JsonFlag,
    console,
    errors,
    print_json,
    progress_bar,
    user_errors,
)
from poolshark.engine.config import Betting
from poolshark.evaluate.lbr import local_best_response
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.experiments.gauntlet import (
    AgentFactory,
    Pairing,
    cross_cells,
    markdown_table,
    round_robin,
)
from poolshark.experiments.limit_corpus import DEFAULT_PAIRINGS, build_default_corpus

app = typer.Typer(
    help="Fixed-limit hold'em: heads-up bots and their gauntlet; the multi-player network player,\n"
    "its opponent models and exploiters (seed 003).",
    no_args_is_help=True,
)


def _print_pairing(pairing: Pairing) -> None:
    """One finished pairing's line on stderr, as the gauntlet goes."""
    low, high = pairing.ci95
    errors.print(
        f"{pairing.first} vs {pairing.second}: {pairing.small_bets_per_hand:+.3f} "
        f"sb/hand [{low:+.3f}, {high:+.3f}] ({pairing.seconds:.0f} s)"
    )


def named_spec(text: str) -> tuple[str, str]:
    """``NAME=SPEC`` as (name, spec); a bare spec names itself."""
    name, equals, spec = text.partition("=")
    if not equals:
        return text, text
    if not name.strip() or not spec.strip():
        raise ValueError(f"write an agent as NAME=SPEC or SPEC, got {text!r}")
    return name.strip(), spec.strip()


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
            "random, hardbot, a folder from poolshark solve limit, ...), each optionally "
            "named: NAME=SPEC.",
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
        named = dict(named_spec(text) for text in agents)
        names = list(named)
        if len(names) < 2:
            raise ValueError("a gauntlet needs at least two different agents")
        if str(Path.cwd()) not in sys.path:  # user bots beside the caller, like python -m
            sys.path.insert(0, str(Path.cwd()))
        factories = {name: _factory(spec) for name, spec in named.items()}

        pairings = round_robin(
            factories,
            hands=hands,
            seed=seed,
            tables=tables,
            progress=None if json_output else _print_pairing,
        )
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


@app.command("lbr")
def lbr_command(
    folder: Annotated[
        Path, typer.Argument(help="A solved abstraction (poolshark solve limit --out).")
    ],
    hands: Annotated[
        int, typer.Option("--hands", "-n", help="Table-hands (each deal twice).")
    ] = 2000,
    seed: Annotated[int, typer.Option(help="Seed of the deals and equity samples.")] = 0,
    tables: Annotated[int, typer.Option(help="Tables played at once.")] = 64,
    json_output: JsonFlag = False,
) -> None:
    """Local best response against a solved abstraction in the real game: LBR reads the
    strategy's range hand by hand and takes the best check/call-down action; its win rate
    is a lower bound on how exploitable the strategy is (mbb/hand, 95% CI)."""
    with user_errors():
        agent = load_equilibrium_agent(folder)
        with progress_bar(json_output, transient=True) as bar:
            task = bar.add_task("LBR hands", total=None)
            result = local_best_response(
                agent,
                hands=hands,
                seed=seed,
                tables=tables,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )
    if json_output:
        print_json({"folder": str(folder), "seed": seed, **result.as_dict()})
        return
    low, high = result.ci95
    console.print(
        f"LBR against {folder}: {result.mbb_per_hand:+.0f} mbb/hand "
        f"[{1000 * low:+.0f}, {1000 * high:+.0f}] over {result.hands:,} hands "
        f"({result.seconds:.0f} s); the strategy is at least this exploitable when positive"
    )


@app.command("corpus")
def corpus_command(
    pair: Annotated[
        list[str] | None,
        typer.Option(
            "--pair",
            help="Two agent specs, A,B, playing each other (repeat for more pairings; "
            "default: the expert system against itself).",
        ),
    ] = None,
    hands: Annotated[int, typer.Option("--hands", "-n", help="Hands per pairing.")] = 200_000,
    seed: Annotated[int, typer.Option(help="Seed of the first pairing's match.")] = 0,
    out: Annotated[
        Path | None,
        typer.Option(help="The Parquet file (default: the cache folder, where hardbot reads)."),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Build HaRDBot's corpus: heads-up fixed-limit hands between the given agents (strong
    machine play: a solved folder from poolshark solve limit, say), one row per decision
    with its betting history and the actor's hand vector (E, E2, PPOT, NPOT)."""
    with user_errors():
        pairings = [_pairing(text) for text in pair] if pair else list(DEFAULT_PAIRINGS)
        for spec in {spec for pairing in pairings for spec in pairing}:
            load_agent(spec)  # a bad spec fails here, before any hand is played
        with progress_bar(json_output, transient=True) as bar:
            task = bar.add_task("corpus hands", total=None)
            path, built = build_default_corpus(
                pairings,
                hands,
                seed=seed,
                path=out,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
            )
    figures = {
        "path": str(path),
        "pairings": [list(p) for p in pairings],
        "hands": built.hands,
        "rows": built.frame.height,
        "seconds": built.seconds,
        "hands_per_second": built.hands_per_second,
        "seed": seed,
    }
    if json_output:
        print_json(figures)
        return
    console.print(
        f"{built.hands:,} hands, {built.frame.height:,} decisions in {path} "
        f"({built.seconds:.0f} s, {built.hands_per_second:,.0f} hands/s)"
    )


def _pairing(text: str) -> tuple[str, str]:
    """``A,B`` as two agent specs."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"a pairing is two agent specs A,B, got {text!r}")
    return parts[0], parts[1]


@app.command("ablations")
def ablations_command(
    corpus: Annotated[Path, typer.Option(help="HaRDBot's corpus (poolshark limit corpus).")],
    against: Annotated[
        list[str],
        typer.Option(help="Opponents, NAME=SPEC or SPEC (repeat); each variant plays each."),
    ],
    hands: Annotated[
        int, typer.Option("--hands", "-n", help="Table-hands per pairing (each deal twice).")
    ] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed of the first pairing's deals.")] = 0,
    tables: Annotated[int, typer.Option(help="Tables played at once.")] = 256,
    json_output: JsonFlag = False,
) -> None:
    """HaRDBot's ablations: the full bot, without the corpus (uniform prior), without the
    opponent-specific update, and with 3 and 8 buckets instead of 5, each against every
    opponent in duplicate; small bets per hand with 95% intervals."""
    with user_errors():
        if not corpus.is_file():
            raise ValueError(
                f"no corpus file {str(corpus)!r} (build one with poolshark limit corpus)"
            )
        variants = ablations(Corpus.read(corpus), buckets=(3, 8))  # "hardbot" is K = 5
        opponents = dict(named_spec(text) for text in against)
        factories: dict[str, AgentFactory] = {
            **variants,
            **{name: _factory(spec) for name, spec in opponents.items()},
        }
        pairs = [(variant, opponent) for variant in variants for opponent in opponents]

        pairings = round_robin(
            factories,
            hands=hands,
            seed=seed,
            tables=tables,
            pairs=pairs,
            progress=None if json_output else _print_pairing,
        )
    if json_output:
        print_json(
            {
                "corpus": str(corpus),
                "hands_per_pairing": hands,
                "seed": seed,
                "pairings": [p.as_dict() for p in pairings],
            }
        )
        return
    table = Table(title="HaRDBot variants, small bets per hand (95% CI)", title_justify="left")
    table.add_column("variant")
    for opponent in opponents:
        table.add_column(f"vs {opponent}", justify="right")
    cells = cross_cells(pairings)
    for variant in variants:
        table.add_row(variant, *(cells.get((variant, o), "") for o in opponents))
    console.print(table)


@app.command("train")
def train_command(
    out: Annotated[Path, typer.Option(help="Run folder: last.pt (resumable) and limitnet.pt.")],
    mode: Annotated[
        str, typer.Option(help="self-play (every seat learns) or best-response (one seat).")
    ] = "self-play",
    opponent: Annotated[
        str | None,
        typer.Option(
            help="Best response: the agent spec at the frozen seats (default: a "
            "frozen copy of the starting network)."
        ),
    ] = None,
    objective: Annotated[
        str,
        typer.Option(
            help="Best response: maximise the mean result, the Sharpe ratio (sharpe) or the "
            "gambler's-ruin ratio (gamblers-ruin), seed 003 section 6.5.1."
        ),
    ] = "mean",
    init: Annotated[
        Path | None,
        typer.Option(
            help="Start from this network player's checkpoint (limitnet.pt, e.g. a fitted "
            "opponent model) instead of fresh weights."
        ),
    ] = None,
    kl_weight: Annotated[
        float,
        typer.Option(
            help="Best response: add this times KL(learner || start) to the loss (the safe "
            "exploiter, held near INIT's play)."
        ),
    ] = 0.0,
    extra_layer: Annotated[
        int,
        typer.Option(
            help="Tile nodes of the extra layer over each opponent's belief and position "
            "(section 6.4; 0: none)."
        ),
    ] = 0,
    seats: Annotated[int, typer.Option(help="Players at the table, 2-10.")] = 6,
    updates: Annotated[int, typer.Option(help="Gradient steps.")] = 200,
    tables: Annotated[int, typer.Option(help="Hands dealt per update.")] = 64,
    learning_rate: Annotated[float, typer.Option("--lr", help="Adam's step size.")] = 0.002,
    seed: Annotated[int, typer.Option(help="Seed of the weights, deals and actions.")] = 0,
    resume: Annotated[bool, typer.Option(help="Continue from OUT/last.pt.")] = False,
    against: Annotated[
        str, typer.Option(help="Evaluate the start and the end against this agent spec.")
    ] = "station",
    eval_hands: Annotated[int, typer.Option(help="Table-hands of each evaluation.")] = 2000,
    threads: Annotated[int, typer.Option(help="Torch threads.")] = 1,
    json_output: JsonFlag = False,
) -> None:
    """Train the thesis's network player by REINFORCE per deal (no critic): self-play, or a
    best response against frozen seats (aiming at the mean, Sharpe or gambler's-ruin ratio;
    starting from fresh weights or INIT's); then play the starting and the trained player
    against AGAINST (one seat each, the rest AGAINST) on the same deals, in small bets per
    hand with 95% intervals."""
    import torch  # lazy: torch, CLI start

    from poolshark.limitnet.action_function import ActionFunction  # lazy: torch, CLI start
    from poolshark.limitnet.agent import LimitNetAgent, load_model  # lazy: torch, CLI start
    from poolshark.limitnet.train import (  # lazy: torch, CLI start
        Mode,
        Objective,
        TrainConfig,
        Trainer,
        summary,
    )

    with user_errors():
        if mode not in set(Mode):
            raise ValueError(f"mode must be self-play or best-response, got {mode!r}")
        if objective not in set(Objective):
            raise ValueError(f"objective must be mean, sharpe or gamblers-ruin, got {objective!r}")
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        torch.set_num_threads(threads)
        start = load_model(init) if init is not None else None
        config = TrainConfig(
            mode=Mode(mode),
            seats=seats,
            updates=updates,
            tables=tables,
            learning_rate=learning_rate,
            seed=seed,
            objective=Objective(objective),
            init=init,
            kl_weight=kl_weight,
            extra_layer=extra_layer,
            **({} if start is None else {"outcome_states": start.outcome_states}),
        )
        frozen = load_agent(opponent) if opponent is not None else None
        load_agent(against)
        trainer = Trainer(config, frozen)
        if resume:
            trainer.resume(out)
        if start is None:
            start = ActionFunction(config.outcome_states, seed=config.seed)
        with progress_bar(json_output, transient=True) as bar:
            task = bar.add_task("updates", total=config.updates, completed=trainer.update)
            history = trainer.run(out, progress=lambda _: bar.advance(task))
        lineup = [0] + [1] * (seats - 1)
        match = MatchConfig(
            hands=eval_hands, seats=seats, seed=seed + 1, betting=Betting.FIXED_LIMIT
        )
        rates: dict[str, dict[str, Any]] = {}
        for name, model in (("start", start), ("trained", trainer.model)):
            result = play_match([LimitNetAgent(model), load_agent(against)], lineup, match)
            figures = result.agents[0]
            rates[name] = {
                "sb_per_hand": figures.actual.small_bets_per_hand,
                "ci95": [bound / 100 for bound in figures.actual.interval],
                "vpip": figures.vpip,
                "hud": None if figures.hud is None else figures.hud.as_dict(),
            }
        trained = summary(history)
    if json_output:
        print_json(
            {
                "out": str(out),
                "config": config.model_dump(mode="json"),
                "training": trained,
                "against": against,
                "eval_hands": eval_hands,
                "evaluation": rates,
            }
        )
        return
    first, last = trained["first"], trained["last"]
    console.print(
        f"{len(history)} updates: learner {first['reward']:+.3f} -> {last['reward']:+.3f} "
        f"sb/hand, raises {first['raise_share']:.2f} -> {last['raise_share']:.2f}, "
        f"folds {first['fold_share']:.2f} -> {last['fold_share']:.2f}"
    )
    for name, rate in rates.items():
        low, high = rate["ci95"]
        console.print(
            f"{name} against {against}: {rate['sb_per_hand']:+.3f} sb/hand "
            f"[{low:+.3f}, {high:+.3f}]"
        )


@app.command("ri")
def ri_command(
    checkpoint: Annotated[
        Path,
        typer.Argument(help="A network player's checkpoint (limitnet.pt).", show_default=False),
    ],
    decisions: Annotated[
        int, typer.Option("--decisions", "-n", help="Decisions frozen (one per self-play hand).")
    ] = 200,
    rollouts: Annotated[
        int, typer.Option("--rollouts", "-k", help="Redrawn deals per decision and option.")
    ] = 100,
    seats: Annotated[int, typer.Option(help="Players at the table, 2-10.")] = 6,
    folds: Annotated[int, typer.Option(help="Folds of the leave-fraction-out estimate.")] = 10,
    seed: Annotated[int, typer.Option(help="Seed of the hands, draws and playouts.")] = 0,
    threads: Annotated[int, typer.Option(help="Torch threads.")] = 1,
    json_output: JsonFlag = False,
) -> None:
    """Rollout improvement (seed 003, Table 5-1): freeze decisions of the player's self-play,
    redraw the unseen cards weighted by the opponents' earlier actions, play every option out
    with the player's policy, and print the sample, leave-fraction-out and rollout-improvement
    errors by stage, in chips (bets 2/2/4/4)."""
    import torch  # lazy: torch, CLI start

    from poolshark.limitnet.agent import load_model  # lazy: torch, CLI start
    from poolshark.limitnet.rollout_improvement import (  # lazy: torch, CLI start
        evaluate,
        network_policy,
    )
    from poolshark.limitnet.train import limit_game  # lazy: torch, CLI start

    with user_errors():
        if not checkpoint.is_file():
            raise ValueError(f"no checkpoint file {str(checkpoint)!r}")
        if not 2 <= seats <= 10:
            raise ValueError(f"seats must be 2-10, got {seats}")
        if folds < 2:
            raise ValueError(f"folds must be at least 2, got {folds}")
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        torch.set_num_threads(threads)
        model = load_model(checkpoint)
        with progress_bar(json_output, transient=True) as bar:
            task = bar.add_task("decisions", total=decisions)
            result = evaluate(
                limit_game(seats),
                network_policy(model),
                decisions,
                rollouts,
                seed,
                folds=folds,
                progress=lambda done: bar.update(task, completed=done),
            )
    rows = [row.as_dict() for row in result.rows]
    if json_output:
        print_json(
            {
                "checkpoint": str(checkpoint),
                "decisions": decisions,
                "rollouts": rollouts,
                "seats": seats,
                "folds": folds,
                "seed": seed,
                "skipped": result.skipped,
                "unit": "chips (blinds 1/2, bets 2/2/4/4)",
                "stages": rows,
            }
        )
        return
    table = Table(
        title=f"rollout errors of {checkpoint} in chips ({decisions} decisions, {rollouts} deals)",
        title_justify="left",
    )
    table.add_column("")
    for row in result.rows:
        table.add_column(row.stage, justify="right")
    table.add_row("% of decisions", *(f"{100 * row.share:.0f}%" for row in result.rows))
    table.add_row("sample error", *(f"{row.sample:.3f}" for row in result.rows))
    table.add_row("LFO error", *(f"{row.lfo:.3f}" for row in result.rows))
    table.add_row("RI error", *(f"{row.ri:.3f}" for row in result.rows))
    table.add_row(
        "std. error of RI",
        *("-" if row.decisions < 2 else f"{row.ri_std_error:.3f}" for row in result.rows),
    )
    console.print(table)
    if result.skipped:
        errors.print(f"{result.skipped} decision(s) had no draw consistent with the actions")
