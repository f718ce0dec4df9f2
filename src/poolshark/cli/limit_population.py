"""``poolshark limit record | fit | observe | exploit``, seed 003's chapter 6 (registered on
the ``limit`` group by the CLI's ``__init__``): record a population's fixed-limit matches,
fit the network player to the records with the hidden hands imputed by stochastic EM (one
model, or player types; with ``--observe-every`` the observer refitted between rounds),
fit an observer over the fitted model so that it reads its opponents' beliefs, and train
exploiters of the fitted model scored against the model and against the true pool (Table
6-2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from poolshark.agents.limit_styles import LIMIT_POOL, LimitStyleAgent
from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import Agent
from poolshark.cli.common import JsonFlag, console, print_json, progress_bar, user_errors
from poolshark.cli.limit import named_spec

if TYPE_CHECKING:
    from poolshark.limitnet.records import LimitRecords


def _population(specs: list[str] | None) -> tuple[list[str], list[Agent], list[float]]:
    """Players ``NAME=SPEC:WEIGHT`` (or ``SPEC:WEIGHT``) with their agents and weights; the
    shipped synthetic limit pool when none are given."""
    if not specs:
        specs = [f"{name}=limit:{name}:{weight}" for name, weight in LIMIT_POOL.items()]
    names, agents, weights = [], [], []
    for text in specs:
        named, colon, weight = text.rpartition(":")
        if not colon or not named:
            raise ValueError(f"write a player as NAME=SPEC:WEIGHT or SPEC:WEIGHT, got {text!r}")
        try:
            value = float(weight)
        except ValueError:
            raise ValueError(
                f"player {text!r}: the weight {weight!r} is not a number (write a player as"
                " NAME=SPEC:WEIGHT or SPEC:WEIGHT)"
            ) from None
        name, spec = named_spec(named)
        names.append(name)
        agents.append(load_agent(spec))
        weights.append(value)
    return names, agents, weights


def split_records(
    records_path: Path, holdout: float, seed: int, threads: int
) -> tuple[LimitRecords, LimitRecords]:
    """The records split by whole matches into (training, held out), after checking the
    settings a fit shares and giving torch its threads."""
    import torch  # lazy: torch, CLI start

    from poolshark.limitnet.records import LimitRecords  # lazy: torch, CLI start

    if not 0 < holdout < 1:
        raise ValueError(f"holdout must be between 0 and 1, got {holdout}")
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    torch.set_num_threads(threads)
    main, held = LimitRecords.load(records_path).split_matches(holdout, seed)
    if main.lines == 0 or held.lines == 0:
        raise ValueError("too few matches to hold some out; record more")
    return main, held


def record_command(
    out: Annotated[Path, typer.Option(help="The records file to write (.npz).")],
    player: Annotated[
        list[str] | None,
        typer.Option(
            help="A population member NAME=SPEC:WEIGHT (repeat; default: the shipped "
            "synthetic limit pool, limit:rock ... limit:maniac by their pool weights)."
        ),
    ] = None,
    matches: Annotated[int, typer.Option(help="Matches (one table each).")] = 375,
    deals: Annotated[int, typer.Option(help="Deals per match.")] = 120,
    seats: Annotated[int, typer.Option(help="Players at the table, 2-10.")] = 6,
    seed: Annotated[int, typer.Option(help="Seed of the seating, the deals and the play.")] = 0,
    json_output: JsonFlag = False,
) -> None:
    """Record a population's fixed-limit play (seed 003, section 6.5): MATCHES matches of
    DEALS deals, each seat a player drawn for the whole match; every decision, every
    player's cards and whether they were shown at a showdown."""
    from poolshark.limitnet.fit import mixture_nll, truth_nll  # lazy: torch, CLI start
    from poolshark.limitnet.records import record_matches  # lazy: torch, CLI start

    with user_errors():
        if not 2 <= seats <= 10:
            raise ValueError(f"seats must be 2-10, got {seats}")
        names, agents, weights = _population(player)
        policies = [a.probabilities if isinstance(a, LimitStyleAgent) else None for a in agents]
        records = record_matches(
            agents,
            weights,
            matches=matches,
            deals=deals,
            seats=seats,
            seed=seed,
            names=names,
            policies=policies,
        )
        records.save(out)
    hidden = records.shown.size - int(records.shown.sum())
    summary_ = {
        "out": str(out),
        "players": dict(zip(names, weights, strict=True)),
        "matches": matches,
        "deals": deals,
        "seats": seats,
        "decisions": records.decisions,
        "lines": records.lines,
        "shown_lines": int(records.shown.sum()),
        "hidden_lines": hidden,
        "longest_line": int(records.line_lengths.max()) if records.lines else 0,
        "truth_nll": truth_nll(records),
        "mixture_nll": mixture_nll(records),
    }
    if json_output:
        print_json(summary_)
        return
    console.print(
        f"{records.decisions} decisions in {records.lines} player-deals ({hidden} hidden, "
        f"{records.lines - hidden} shown) -> {out}"
    )
    own, mixed = summary_["truth_nll"], summary_["mixture_nll"]
    if own is not None and mixed is not None:
        console.print(
            f"floors, nats per decision: {own:.3f} (each player's own strategy), {mixed:.3f} "
            "(the members mixed by their posterior in the deal)"
        )


def fit_command(
    records_path: Annotated[
        Path, typer.Argument(help="Records from `poolshark limit record`.", show_default=False)
    ],
    out: Annotated[
        Path,
        typer.Option(help="Folder: limitnet.pt (the model), fit.json, last.pt (resumable)."),
    ],
    rounds: Annotated[int, typer.Option(help="EM rounds (impute, then fit).")] = 8,
    epochs: Annotated[int, typer.Option(help="Passes over the training rows per round.")] = 2,
    holdout: Annotated[float, typer.Option(help="Share of matches held out.")] = 0.2,
    player_types: Annotated[
        int,
        typer.Option(
            help="Player types (section 6.3): 0 fits one model for the population; the "
            "thesis uses 8, each player-match's type drawn by stochastic EM."
        ),
    ] = 0,
    learning_rate: Annotated[float, typer.Option("--lr", help="Adam's step size.")] = 0.01,
    seed: Annotated[int, typer.Option(help="Seed of the split, imputation and weights.")] = 0,
    resume: Annotated[bool, typer.Option(help="Continue from OUT/last.pt.")] = False,
    init: Annotated[
        Path | None,
        typer.Option(
            help="Start from this model (limitnet.pt); with an observer in it (`limit "
            "observe`), every decision reads the opponent beliefs it computes."
        ),
    ] = None,
    observe_every: Annotated[
        int,
        typer.Option(
            help="Refit the observer over the model after every this many rounds (as `limit "
            "observe` does, warm-started from the last one) and read its beliefs from then "
            "on; the model is written with it. 0: never."
        ),
    ] = 0,
    observe_lines: Annotated[int, typer.Option(help="Training lines per observer fit.")] = 20_000,
    observe_steps: Annotated[int, typer.Option(help="Gradient steps per observer fit.")] = 10,
    threads: Annotated[int, typer.Option(help="Torch threads.")] = 1,
    json_output: JsonFlag = False,
) -> None:
    """Fit the network player's action function to recorded play by stochastic EM (seed 003,
    section 6.1): impute the hidden hands from the current model (rejection sampling, full
    enumeration for long lines, no card twice in a deal), then maximise the likelihood of
    the actions; per round, the held-out negative log-likelihood per decision with hands
    imputed and with the true hands (with player types: each match's type summed out); with
    --observe-every, the observer's held-out log-likelihood per decision after each refit."""

    import torch  # lazy: torch, CLI start

    from poolshark.limitnet.agent import (  # lazy: torch, CLI start
        load_player,
        observer_payload,
        save_model,
    )
    from poolshark.limitnet.fit import (  # lazy: torch, CLI start
        FitConfig,
        RoundStats,
        fit,
        match_type_table,
        replayed_belief_nll,
    )
    from poolshark.limitnet.fit_observed import ObserveConfig  # lazy: torch, CLI start
    from poolshark.limitnet.public_beliefs import with_record_beliefs  # lazy: torch, CLI start

    with user_errors():
        main, held = split_records(records_path, holdout, seed, threads)
        config = FitConfig(
            rounds=rounds,
            epochs=epochs,
            learning_rate=learning_rate,
            player_types=player_types,
            seed=seed,
            observe=ObserveConfig(every=observe_every, lines=observe_lines, steps=observe_steps),
        )
        start = observer = None
        if init is not None:
            saved = load_player(init)
            start, observer = saved.model, saved.observer
            main, held = with_record_beliefs(main, observer), with_record_beliefs(held, observer)
        with progress_bar(json_output, transient=True) as bar:
            task = bar.add_task("EM rounds", total=rounds)

            def advance(row: RoundStats) -> None:
                bar.update(task, completed=row.round + 1)

            result = fit(
                main,
                config,
                holdout=held,
                model=start,
                observer=observer,
                progress=advance,
                checkpoint=out / "last.pt",
                resume=resume,
            )
        if result.observed is not None:
            observer = result.observed.observer
        report = {
            "records": str(records_path),
            "config": config.model_dump(mode="json"),
            "train_lines": main.lines,
            "holdout_lines": held.lines,
            "holdout_decisions": held.decisions,
            "start_holdout_imputed_nll": result.start_holdout_imputed_nll,
            "holdout_truth_nll": result.holdout_truth_nll,
            "holdout_mixture_nll": result.holdout_mixture_nll,
            "holdout_match_mixture_nll": result.holdout_match_mixture_nll,
            "init": None if init is None else str(init),
            "beliefs": observer is not None,
            "holdout_true_nll_replayed_beliefs": None
            if observer is None
            else replayed_belief_nll(result.model, observer, held, result.type_prior),
            "type_prior": None if result.type_prior is None else result.type_prior.tolist(),
            "type_by_member": None
            if result.type_by_member is None
            else {
                str(name): row.tolist()
                for name, row in zip(main.member_names, result.type_by_member, strict=True)
            },
            "rounds": [row.as_dict() for row in result.history],
        }
        extra: dict[str, Any] = {"fit": report}
        if result.type_prior is not None:
            extra["type_prior"] = result.type_prior.tolist()
        if result.types is not None:  # `limit observe` fits the observer with them revealed
            extra["match_types"] = torch.from_numpy(match_type_table(main, result.types))
        if observer is not None:  # the type tables, now over the refitted model
            extra.update(observer_payload(observer, result.model))
        save_model(result.model, out / "limitnet.pt", extra=extra)
        (out / "fit.json").write_text(json.dumps(report, indent=2) + "\n")
    if json_output:
        print_json({"out": str(out), **report})
        return
    table = Table(
        title=f"stochastic-EM fit, nats per decision ({held.decisions} held-out decisions)",
        title_justify="left",
    )
    columns = ["round", "train (imputed)", "held out, imputed", "held out, true hands"]
    if observe_every:
        columns.append("observer held out (start -> kept)")
    for column in columns:
        table.add_column(column, justify="right")
    table.add_row("start", "", _nats(result.start_holdout_imputed_nll), "")
    for row in result.history:
        cells = [
            str(row.round + 1),
            f"{row.train_nll:.3f}",
            _nats(row.holdout_imputed_nll),
            _nats(row.holdout_true_nll),
        ]
        if observe_every:
            refit = row.observer
            cells.append(
                "" if refit is None else f"{refit['start_held_out']:.3f} -> {refit['held_out']:.3f}"
            )
        table.add_row(*cells)
    if result.holdout_mixture_nll is not None:
        table.add_row("members mixed (deal)", "", "", f"{result.holdout_mixture_nll:.3f}")
    if result.holdout_match_mixture_nll is not None:
        table.add_row("members mixed (match)", "", "", f"{result.holdout_match_mixture_nll:.3f}")
    if result.holdout_truth_nll is not None:
        table.add_row("own strategies", "", "", f"{result.holdout_truth_nll:.3f}")
    replayed = report["holdout_true_nll_replayed_beliefs"]
    if replayed is not None:
        table.add_row("beliefs replayed by the fit", "", "", f"{replayed:.3f}")
    console.print(table)
    if result.type_by_member is not None and result.type_prior is not None:
        types = Table(
            title="player types: share of each member's training matches per type",
            title_justify="left",
        )
        types.add_column("member")
        for t, weight in enumerate(result.type_prior):
            types.add_column(f"{t} ({weight:.2f})", justify="right")
        for name, row in zip(main.member_names, result.type_by_member, strict=True):
            types.add_row(str(name), *(f"{share:.2f}" for share in row))
        console.print(types)
    console.print(f"model -> {out / 'limitnet.pt'}")


def observe_command(
    records_path: Annotated[
        Path, typer.Argument(help="Records from `poolshark limit record`.", show_default=False)
    ],
    model: Annotated[
        Path,
        typer.Option(help="The fitted model (limitnet.pt from `limit fit`) the observer reads."),
    ],
    out: Annotated[Path, typer.Option(help="The model with its observer (.pt), an agent spec.")],
    lines: Annotated[int, typer.Option(help="Training lines drawn from the records.")] = 20_000,
    steps: Annotated[int, typer.Option(help="Gradient steps (the best held-out kept).")] = 40,
    learning_rate: Annotated[float, typer.Option("--lr", help="Step size.")] = 1.0,
    holdout: Annotated[float, typer.Option(help="Share of matches held out.")] = 0.2,
    seed: Annotated[int, typer.Option(help="Seed of the split, the lines and the start.")] = 0,
    revealed_types: Annotated[
        bool,
        typer.Option(
            help="With a typed model from `limit fit --player-types`, score each training "
            "line with the type its player-match drew in the fit, as if revealed (the same "
            "--seed and --holdout as the fit); held-out lines sum the type out."
        ),
    ] = True,
    threads: Annotated[int, typer.Option(help="Torch threads.")] = 1,
    json_output: JsonFlag = False,
) -> None:
    """Fit the observer (seed 003, section 4.3.3) to recorded play over a fitted model: the
    card-type tables, the board-conditioned transitions and the showdown estimator, by
    per-type normalized steps on the actions' likelihood, stopped at the best held-out
    likelihood. The model it writes reads its opponents' public beliefs in play, and `limit
    fit --init` refits it reading them. A model fitted without beliefs has its belief
    weights zeroed first (it plays the same until refitted)."""

    from poolshark.limitnet.agent import (  # lazy: torch, CLI start
        load_player,
        observer_payload,
        save_model,
    )
    from poolshark.limitnet.fit import line_types  # lazy: torch, CLI start
    from poolshark.limitnet.fit_observed import observe_records  # lazy: torch, CLI start

    with user_errors():
        main, held = split_records(records_path, holdout, seed, threads)
        saved = load_player(model)
        table = saved.payload.get("match_types") if revealed_types else None
        types = held_types = None
        if table is not None and saved.type_prior is not None:
            types = line_types(main, table.numpy())
            held_types = line_types(held, table.numpy())
            if (types < 0).any():
                raise ValueError(
                    f"{int((types < 0).sum())} training lines have no player type in {model}: "
                    "observe with the fit's --seed and --holdout, or --no-revealed-types"
                )
        with progress_bar(json_output, transient=True) as bar:
            task = bar.add_task("observer steps", total=steps + 1)
            observer, course = observe_records(
                saved.model,
                saved.observer,
                main,
                held,
                lines=lines,
                steps=steps,
                learning_rate=learning_rate,
                seed=seed,
                types=types,
                held_types=held_types,
                type_prior=saved.type_prior,
                progress=lambda step, _train, _held: bar.update(task, completed=step + 1),
            )
        report = {
            "records": str(records_path),
            "model": str(model),
            "lines": lines,
            "steps": steps,
            "learning_rate": learning_rate,
            "seed": seed,
            "revealed_types": types is not None,
            "best_step": course.best_step,
            "train_log_likelihood": course.train,
            "held_out_log_likelihood": course.held_out,
        }
        extra: dict[str, Any] = {"observe": report, **observer_payload(observer, saved.model)}
        if saved.type_prior is not None:
            extra["type_prior"] = saved.type_prior.tolist()
        save_model(saved.model, out, extra=extra)
    if json_output:
        print_json({"out": str(out), **report})
        return
    table = Table(
        title="observer fit: log-likelihood per decision (showdowns included)",
        title_justify="left",
    )
    for column in ("step", "train", "held out"):
        table.add_column(column, justify="right")
    for step, (train, held_) in enumerate(zip(course.train, course.held_out, strict=True)):
        if step % max(1, steps // 10) == 0 or step in (course.best_step, steps):
            mark = " (kept)" if step == course.best_step else ""
            table.add_row(f"{step}{mark}", f"{train:.4f}", f"{held_:.4f}")
    console.print(table)
    console.print(f"model and observer -> {out}")


def _nats(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def exploit_command(
    model: Annotated[
        Path,
        typer.Argument(help="A fitted model (limitnet.pt from `limit fit`).", show_default=False),
    ],
    out: Annotated[Path, typer.Option(help="Folder: one resumable run per objective.")],
    against: Annotated[str, typer.Option(help="The true pool, an agent spec.")] = "limit:pool",
    objectives: Annotated[
        str, typer.Option(help="Comma-separated: mean, sharpe, gamblers-ruin.")
    ] = "mean,sharpe,gamblers-ruin",
    seats: Annotated[int, typer.Option(help="Players at the table, 2-10.")] = 6,
    updates: Annotated[int, typer.Option(help="Gradient steps per exploiter.")] = 300,
    tables: Annotated[int, typer.Option(help="Hands dealt per update.")] = 64,
    learning_rate: Annotated[float, typer.Option("--lr", help="Adam's step size.")] = 0.002,
    eval_hands: Annotated[int, typer.Option(help="Table-hands of each evaluation.")] = 20_000,
    safe_kl: Annotated[
        float,
        typer.Option(help="Also train the safe exploiter: the mean, held near the model by KL."),
    ] = 0.0,
    extra_layer: Annotated[
        int,
        typer.Option(
            help="Tile nodes of an extra layer over each opponent's belief and position "
            "(section 6.4), added to every exploiter (0: none)."
        ),
    ] = 0,
    beliefs: Annotated[
        bool,
        typer.Option(
            help="The exploiters read their opponents' card-type beliefs under the model's "
            "observer (a model from `limit observe` or `limit fit --init` has one)."
        ),
    ] = True,
    seed: Annotated[int, typer.Option(help="Seed of training and evaluation.")] = 0,
    threads: Annotated[int, typer.Option(help="Torch threads.")] = 1,
    json_output: JsonFlag = False,
) -> None:
    """Train exploiters against a fitted model (seed 003, Table 6-2): best responses started
    from the model, aiming at the mean, the Sharpe ratio or the gambler's-ruin ratio; then
    each plays one seat against the model and one seat against the true pool, and the table
    shows what the model promised beside what the pool paid (small bets per hand, 95% CI)."""
    import torch  # lazy: torch, CLI start

    from poolshark.experiments.limit_exploiters import (  # lazy: torch, CLI start
        ExploitConfig,
        exploiter_table,
        model_row,
        parse_objectives,
    )

    with user_errors():
        if not model.is_file():
            raise ValueError(f"no model file {str(model)!r}")
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        torch.set_num_threads(threads)
        config = ExploitConfig(
            objectives=parse_objectives(objectives.split(",")),
            seats=seats,
            updates=updates,
            tables=tables,
            learning_rate=learning_rate,
            eval_hands=eval_hands,
            safe_kl=safe_kl,
            extra_layer=extra_layer,
            beliefs=beliefs,
            seed=seed,
        )
        pool = load_agent(against)
        with progress_bar(json_output, transient=True) as bar:
            runs = len(config.objectives) + (1 if safe_kl > 0 else 0)
            task = bar.add_task("updates", total=updates * runs)
            rows = [model_row(model, pool, config)]
            rows += exploiter_table(model, pool, config, out, lambda n: bar.advance(task, n))
    if json_output:
        print_json(
            {
                "model": str(model),
                "against": against,
                "config": config.model_dump(mode="json"),
                "unit": "small bets per hand",
                "rows": [row.as_dict() for row in rows],
            }
        )
        return
    table = Table(
        title=f"exploiters of {model}: promised (vs the model) and paid (vs {against}), "
        "small bets per hand, 95% CI",
        title_justify="left",
    )
    for column in ("exploiter", "vs model", "sd", "vs pool", "sd", "optimism", "VP$IP"):
        table.add_column(column, justify="right")
    for row in rows:
        low, high = row.optimism_ci
        table.add_row(
            row.objective,
            f"{row.model.mean:+.3f} [{row.model.low:+.3f}, {row.model.high:+.3f}]",
            f"{row.model.sd:.2f}",
            f"{row.pool.mean:+.3f} [{row.pool.low:+.3f}, {row.pool.high:+.3f}]",
            f"{row.pool.sd:.2f}",
            f"{row.optimism:+.3f} [{low:+.3f}, {high:+.3f}]",
            f"{row.pool.vpip:.0%}",
        )
    console.print(table)
