"""``poolshark ingest``: hand-history files in, decision rows (Parquet) and a summary out."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from poolshark.cli.common import JsonFlag, console, print_json, user_errors
from poolshark.histories.ingest import Summary, ingest
from poolshark.histories.rows import DEFAULT_SALT


def ingest_command(
    paths: Annotated[
        list[Path], typer.Argument(help="History files, or folders to search for .phh/.phhs/.txt.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder (rows, quarantine).")],
    workers: Annotated[
        int, typer.Option("--workers", "-w", help="Worker processes (0: every core).")
    ] = 0,
    use_ray: Annotated[bool, typer.Option("--ray", help="Run the files as Ray tasks.")] = False,
    salt: Annotated[
        str,
        typer.Option(
            envvar="POOLSHARK_SALT", help="Salt of the players' anonymized ids (keep it secret)."
        ),
    ] = DEFAULT_SALT,
    replay: Annotated[
        bool, typer.Option(help="Replay every hand through the engine (--no-replay: faster).")
    ] = True,
    chunk_hands: Annotated[int, typer.Option(help="Hands per Parquet part.")] = 20_000,
    json_output: JsonFlag = False,
) -> None:
    """Turn hand histories (PokerStars text, PHH) into decision rows under OUT/rows.

    Rejected hands go to OUT/quarantine with their reason; hands accepted with
    part of them unverified are counted as warnings and listed in OUT/warnings.
    Hands already in OUT are skipped: running it again on the same files adds nothing.
    """
    with user_errors():
        summary = ingest(
            paths,
            out,
            workers=workers or None,
            backend="ray" if use_ray else "process",
            salt=salt,
            replay_hands=replay,
            chunk_hands=chunk_hands,
            progress=not json_output,
        )
    if json_output:
        print_json(summary.to_dict())
    else:
        print_summary(summary)


def print_summary(summary: Summary) -> None:
    """The run's counts as a table, rejections by reason below."""
    table = Table(title=f"Ingested into {summary.out}", title_justify="left")
    table.add_column("")
    table.add_column("count", justify="right")
    rejected = sum(summary.rejected.values())
    for name, value in (
        ("files", summary.files),
        ("hands seen", summary.seen),
        ("parsed", summary.parsed),
        ("rejected (in quarantine)", rejected),
        ("duplicates skipped", summary.duplicates),
        ("decision rows", summary.rows),
    ):
        table.add_row(name, f"{value:,}")
    for reason, count in sorted(summary.rejected.items()):
        table.add_row(f"  {reason}", f"{count:,}")
    if summary.warnings:
        table.add_row("parsed with a warning (in warnings)", f"{sum(summary.warnings.values()):,}")
        for reason, count in sorted(summary.warnings.items()):
            table.add_row(f"  {reason}", f"{count:,}")
    console.print(table)
    handed = ", ".join(f"{stage} {count:,}" for stage, count in sorted(summary.fallbacks.items()))
    console.print(
        f"{summary.fast:,} hands judged by the compiled path"
        + (f"; handed to the Python reader and engine replay: {handed}" if handed else "")
    )
    rate = summary.seen / summary.seconds if summary.seconds > 0 else 0.0
    console.print(
        f"{summary.seconds:.1f} s, {rate:,.0f} hands/s on {summary.workers} worker(s)"
        f" ({summary.backend})"
    )
    for path, problem in summary.file_errors.items():
        console.print(f"[yellow]could not finish reading {path}: {problem}[/]")
