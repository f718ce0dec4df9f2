"""``poolshark leaks``: the spots where a pool (or one player) deviates most from a reference."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from poolshark.analysis.leaks import (
    MIN_OPPORTUNITIES,
    PUSH_FOLD_MAX_BB,
    Leak,
    LeakError,
    PushFoldReference,
    Reference,
    SpotSample,
    count_sample,
    find_leaks,
    load_source,
    simulated_sample,
    unranked,
)
from poolshark.cli.common import (
    JsonFlag,
    console,
    errors,
    matrices_with_progress,
    print_json,
    user_errors,
)
from poolshark.histories.rows import DEFAULT_SALT
from poolshark.pool.pools import PoolError

REFERENCE_HELP = (
    "pool:NAME (a shipped pool or pool file, simulated), rows:DIR or a path (another "
    "ingested pool or histories), push-fold (the shove/fold equilibrium, short stacks), "
    "rest (with --player: the other players of SOURCE; the default then)."
)


def leaks_command(
    source: Annotated[
        Path, typer.Argument(help="An ingested rows folder (poolshark ingest --out), or histories.")
    ],
    reference: Annotated[str | None, typer.Option("--reference", "-r", help=REFERENCE_HELP)] = None,
    reference_hands: Annotated[
        int, typer.Option(help="Hands to simulate for a pool:NAME reference.")
    ] = 20_000,
    player: Annotated[
        str | None, typer.Option("--player", help="Only this player's decisions (player_id).")
    ] = None,
    top: Annotated[int, typer.Option(help="Leaks to show.")] = 15,
    min_opportunities: Annotated[
        int, typer.Option(help="Rank a statistic only with this many subject opportunities.")
    ] = MIN_OPPORTUNITIES,
    push_fold_max: Annotated[
        float, typer.Option(help="Deepest effective stack (bb) counted as a push/fold spot.")
    ] = PUSH_FOLD_MAX_BB,
    seed: Annotated[int, typer.Option(help="Seed of a simulated reference.")] = 0,
    salt: Annotated[
        str,
        typer.Option(envvar="POOLSHARK_SALT", help="Salt of the player ids (as at ingestion)."),
    ] = DEFAULT_SALT,
    json_output: JsonFlag = False,
) -> None:
    """Rank the statistics where SOURCE deviates most from a reference.

    Score = |difference| x opportunities per 100 hands x average pot (bb) at the spot;
    significant: the subject's 95% interval excludes the reference rate (docs/analysis.md).
    """
    with user_errors():
        try:
            subject, rest, reference_of = _inputs(
                source, reference, player, reference_hands, push_fold_max, seed, salt, json_output
            )
        except PoolError as error:
            raise LeakError(str(error)) from None
        chosen = rest if reference_of is None else reference_of
        leaks = find_leaks(subject, chosen, top=top, min_opportunities=min_opportunities)
        left_out = unranked(subject, chosen, min_opportunities)
    if json_output:
        print_json(
            {
                "subject": subject.summary(),
                "reference": _reference_summary(chosen),
                "min_opportunities": min_opportunities,
                "push_fold_max_bb": push_fold_max,
                "push_fold_opportunities": {n: len(s) for n, s in subject.push_fold.items()},
                "leaks": [leak.as_dict() for leak in leaks],
                "unranked": left_out,
            }
        )
        return
    console.print(leak_table(leaks, subject, chosen))
    if not leaks:
        errors.print(f"no statistic has {min_opportunities} opportunities and a reference rate")
    few = sorted(name for name, why in left_out.items() if why.startswith("few"))
    if few:
        listed = ", ".join(f"{name} {left_out[name][4:]}" for name in few[:8])
        more = " ..." if len(few) > 8 else ""
        errors.print(
            f"{len(few)} statistic(s) under {min_opportunities} opportunities left out"
            f" ({listed}{more})"
        )


def _inputs(
    source: Path,
    reference: str | None,
    player: str | None,
    reference_hands: int,
    push_fold_max: float,
    seed: int,
    salt: str,
    quiet: bool,
) -> tuple[SpotSample, SpotSample, Reference | None]:
    """The subject, the rest of SOURCE, and the reference when it is not the rest."""
    if reference is None and player is None:
        raise LeakError("give --reference (pool:NAME, rows:DIR, push-fold), or --player")
    if reference == "rest" and player is None:
        raise LeakError("--reference rest compares one --player with the others: give --player")
    if push_fold_max <= 0:
        raise LeakError(f"--push-fold-max must be positive, got {push_fold_max}")
    loaded = load_source(source, salt=salt)
    subject, rest = count_sample(
        loaded.records,
        label=loaded.label,
        push_fold_max_bb=push_fold_max,
        player=player,
        player_ids=loaded.player_ids,
    )
    if player is not None and subject.hands == 0:
        raise LeakError(f"player {player} is in no hand of {source}")
    if reference is None or reference == "rest":
        return subject, rest, None
    if reference == "push-fold":
        return subject, rest, PushFoldReference(matrices_with_progress(quiet=quiet))
    if reference.startswith("pool:"):
        return subject, rest, simulated_sample(reference[5:], reference_hands, seed=seed)
    path = Path(reference.removeprefix("rows:"))
    other = load_source(path, salt=salt)
    counted, _ = count_sample(other.records, label=other.label, push_fold_max_bb=push_fold_max)
    return subject, rest, counted


def _reference_summary(reference: Reference) -> dict[str, object]:
    if isinstance(reference, PushFoldReference):
        return {"label": reference.label}
    return reference.summary()


def leak_table(leaks: list[Leak], subject: SpotSample, reference: Reference) -> Table:
    """The ranked leaks: subject rate and interval, reference, difference, n, frequency,
    stake and score; a star marks a subject interval that excludes the reference."""
    table = Table(
        title=f"Leaks: {subject.label} ({subject.hands:,} hands) against {reference.label}",
        title_justify="left",
    )
    for column in ("statistic", "subject", "95% interval", "reference", "diff", "n"):
        table.add_column(column, justify="left" if column == "statistic" else "right")
    for column in ("per 100", "pot bb", "score"):
        table.add_column(column, justify="right")
    for leak in leaks:
        ref = leak.reference
        shown = f"{100 * ref.value:.1f}%"
        if ref.low is not None and ref.high is not None:
            shown += f" ({100 * ref.low:.0f}-{100 * ref.high:.0f})"
        table.add_row(
            leak.name,
            f"{100 * leak.rate:.1f}%",
            f"{100 * leak.low:.1f} - {100 * leak.high:.1f}%",
            shown,
            f"{100 * leak.difference:+.1f}{' *' if leak.significant else '  '}",
            f"{leak.opportunities:,}",
            f"{leak.frequency:.1f}",
            f"{leak.stake_bb:.1f}",
            f"{leak.score:.1f}",
        )
    return table
