"""``poolshark stats``: HUD statistics (VPIP, PFR, 3-bet, ...) of the hands in some files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from poolshark.cli.common import JsonFlag, console, errors, print_json, user_errors
from poolshark.pool.stats import (
    LABELS,
    FileTally,
    Hud,
    HudStat,
    history_files,
    spot_statistics,
    statistics,
    tally_files,
)


def stats_command(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Hand-history files, or folders to search for .txt/.phh/.phhs."),
    ],
    spots: Annotated[
        bool,
        typer.Option(
            "--spots", help="Also the spot statistics: preflop by position, postflop by size."
        ),
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """HUD statistics of every player of every hand: value, count and 95% interval.

    PokerStars text and PHH are read; hands that do not parse are counted by reason.
    With --spots, also the spot statistics ``poolshark pool fit`` matches (docs/pool-fit.md).
    """
    with user_errors():
        files = history_files(paths)
        with Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[hands]:,} hands"),
            console=errors,
            disable=json_output,
            transient=True,
        ) as bar:
            task = bar.add_task("reading files", total=len(files), hands=0)
            result = tally_files(
                files, progress=lambda _path, read: bar.update(task, advance=1, hands=read)
            )
    figures = statistics(result.tally)
    if json_output:
        payload: dict[str, object] = {name: stat.as_dict() for name, stat in figures.items()}
        payload["hands"] = hands_summary(result)
        if spots:
            payload["spots"] = {
                name: stat.as_dict() for name, stat in spot_statistics(result.spots).items()
            }
        print_json(payload)
        return
    console.print(stats_table(figures, title=_title(result)))
    if spots:
        console.print(spot_table(spot_statistics(result.spots), title="Spot statistics"))
    for path, message in result.file_errors.items():
        errors.print(f"[yellow]skipped {path}: {message}[/]")


def hands_summary(result: FileTally) -> dict[str, object]:
    """What was read: files, hands read, parsed, rejected by reason, unreadable files."""
    return {
        "files": result.files,
        "read": result.read,
        "parsed": result.tally.hands,
        "rejected": dict(sorted(result.rejected.items())),
        "file_errors": result.file_errors,
    }


def _title(result: FileTally) -> str:
    rejected = sum(result.rejected.values())
    reasons = ", ".join(f"{reason} {count}" for reason, count in sorted(result.rejected.items()))
    tail = f", {rejected:,} rejected ({reasons})" if rejected else ""
    return f"HUD statistics: {result.tally.hands:,} hands from {result.files:,} file(s){tail}"


def stats_table(figures: dict[str, HudStat], *, title: str) -> Table:
    """The statistics as a HUD would show them: percent (AF as a ratio), interval, count."""
    table = Table(title=title, title_justify="left")
    table.add_column("statistic")
    table.add_column("value", justify="right")
    table.add_column("95% interval", justify="right")
    table.add_column("opportunities", justify="right")
    for stat in Hud:
        figure = figures[stat.name.lower()]
        table.add_row(LABELS[stat], *_cells(stat, figure))
    return table


def spot_table(figures: dict[str, HudStat], *, title: str) -> Table:
    """Spot statistics (proportions): value, 95% interval and opportunities."""
    table = Table(title=title, title_justify="left")
    table.add_column("spot")
    table.add_column("value", justify="right")
    table.add_column("95% interval", justify="right")
    table.add_column("opportunities", justify="right")
    for name, figure in figures.items():
        table.add_row(name, *_cells(Hud.VPIP, figure))  # any proportion shows as VPIP does
    return table


def _cells(stat: Hud, figure: HudStat) -> tuple[str, str, str]:
    """Value, interval and count of one statistic as text."""
    if stat is Hud.AF:

        def show(x: float | None) -> str:
            return "inf" if x is None else f"{x:.2f}"

    else:

        def show(x: float | None) -> str:
            return "-" if x is None else f"{100 * x:.1f}%"

    if figure.count == 0:
        return "-", "-", "0"
    return show(figure.value), f"{show(figure.low)} - {show(figure.high)}", f"{figure.count:,}"
