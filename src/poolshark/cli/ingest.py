"""``poolshark ingest``: hand-history files in, decision rows (Parquet) and a summary out."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from poolshark.cli.common import JsonFlag, console, print_json, user_errors
from poolshark.histories.explain import Explanation, explain_hand
from poolshark.histories.ingest import IngestError, Summary, ingest
from poolshark.histories.rows import DEFAULT_SALT

#: Files listed one by one in the summary table; beyond that, those with most rejections.
FILES_SHOWN = 20
#: Decision-row columns ``--explain`` prints for an accepted hand.
EXPLAIN_COLUMNS = ("action_index", "street", "position", "history", "action", "amount", "all_in")


def ingest_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="History files, or folders to search for .phh/.phhs/.ohh/.txt."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Output folder (rows, quarantine).")
    ] = None,
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
    explain: Annotated[
        str | None,
        typer.Option(
            help="Show why one hand is rejected (or what it gives): FILE:HAND, HAND being"
            " its index in the file from 0 or its hand id. Needs no PATHS nor --out.",
            metavar="FILE:HAND",
        ),
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Turn hand histories (PokerStars text, PHH, OHH) into decision rows under OUT/rows.

    Rejected hands go to OUT/quarantine with their reason; hands accepted with
    part of them unverified are counted as warnings and listed in OUT/warnings.
    Hands already in OUT are skipped: running it again on the same files adds nothing.
    The summary counts each file's hands; --explain FILE:HAND tells about one hand.
    """
    if explain is not None:
        with user_errors():
            explained = explain_hand(explain, replay_hands=replay, salt=salt)
        if json_output:
            print_json(explained.to_dict())
        else:
            print_explanation(explained)
        return
    with user_errors():
        if not paths or out is None:
            raise IngestError("give history files or folders and --out (or --explain FILE:HAND)")
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
    print_files(summary)
    for path, problem in summary.file_errors.items():
        console.print(f"[yellow]could not finish reading {escape(path)}: {escape(problem)}[/]")


def print_files(summary: Summary) -> None:
    """Each file's hands as a table: all of them, or the :data:`FILES_SHOWN` with the
    most rejections when there are more."""
    files = summary.per_file
    if not files:
        return
    shown = files
    if len(files) > FILES_SHOWN:
        shown = sorted(files, key=lambda f: -sum(f.rejected.values()))[:FILES_SHOWN]
    title = "Per file" if shown is files else f"The {FILES_SHOWN} files with most rejections"
    folder = os.path.commonpath([counts.path for counts in files]) if len(files) > 1 else ""
    if folder:
        title += f" (in {folder})"
    table = Table(title=escape(title), title_justify="left")
    table.add_column("file", overflow="fold", min_width=16)
    for name in ("hands", "parsed", "dups"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("rejected", overflow="fold")
    table.add_column("encoding", overflow="fold")
    for counts in shown:
        reasons = "\n".join(f"{reason} {n:,}" for reason, n in counts.rejected.items())
        table.add_row(
            escape(os.path.relpath(counts.path, folder) if folder else counts.path),
            f"{counts.hands:,}",
            f"{counts.parsed:,}",
            f"{counts.duplicates:,}",
            reasons or "-",
            counts.encoding or "",
        )
    console.print(table)
    if shown is not files:
        console.print(f"{len(files) - len(shown):,} more files: see --json or summary.json")


def print_explanation(explained: Explanation) -> None:
    """One hand: where it is, the verdict, then its text (the line a rejection points at
    marked) or its decision rows."""
    where = f"hand {explained.index} of {explained.source}, line {explained.line}"
    console.print(f"[bold]{escape(where)}[/] ({explained.format})")
    if not explained.accepted:
        verdict = f"{explained.reason}: {explained.message}"
        console.print(f"[bold red]rejected:[/] {escape(verdict)}")
        if explained.marked is None:
            console.print("(the message names no line of the hand)")
        for number, text in enumerate(explained.text.splitlines(), explained.line):
            mark = ">>" if number == explained.marked else "  "
            line = f"{mark} {number:>6}  {text}"
            console.print(f"[bold red]{escape(line)}[/]" if mark == ">>" else escape(line))
        return
    console.print(
        f"[bold green]accepted:[/] {escape(explained.site or '')} hand"
        f" {escape(explained.hand_id or '(no id)')}"
    )
    console.print(f"variants: {', '.join(explained.variants) or 'none'}")
    console.print(f"warnings: {', '.join(explained.warnings) or 'none'}")
    rows = explained.rows
    if rows is None or rows.is_empty():
        console.print("no decision rows (no voluntary action)")
        return
    table = Table(title=f"{rows.height} decision rows", title_justify="left")
    for name in EXPLAIN_COLUMNS:
        table.add_column(name)
    for row in rows.select(EXPLAIN_COLUMNS).iter_rows():
        table.add_row(*(escape(str(value)) for value in row))
    console.print(table)
