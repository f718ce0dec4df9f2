"""Small pieces every command shares: JSON output, error reporting, the default sub-command."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from pydantic_core import ErrorDetails
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from typer.core import TyperGroup

from poolshark.equity.matrix import PreflopMatrices, cached_matrices, preflop_matrices

console = Console()
errors = Console(stderr=True)


def print_json(payload: object) -> None:
    """Print one JSON object on stdout (the ``--json`` contract of every command)."""
    sys.stdout.write(json.dumps(payload) + "\n")


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn ``ValueError`` (bad cards, ranges, deals) into a one-line message and exit 2."""
    try:
        yield
    except ValidationError as error:
        problems = "; ".join(_describe(problem) for problem in error.errors())
        errors.print(f"[bold red]error:[/] {escape(f'bad {error.title}: {problems}')}")
        raise typer.Exit(2) from None
    except ValueError as error:
        errors.print(f"[bold red]error:[/] {escape(str(error))}")
        raise typer.Exit(2) from None


def _describe(problem: ErrorDetails) -> str:
    """One pydantic validation problem as ``field: message``."""
    where = ".".join(str(part) for part in problem["loc"])
    message = problem["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def with_default_command(name: str) -> type[TyperGroup]:
    """A group class that runs sub-command ``name`` when the first word is no sub-command.

    Lets ``poolshark equity AhKh QdQc`` and ``poolshark equity matrix`` live side by side.
    """

    class DefaultCommandGroup(TyperGroup):
        def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
            if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
                args = [name, *args]
            result: list[str] = super().parse_args(ctx, args)
            return result

    return DefaultCommandGroup


JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object, not a table.")]


def percent(x: float, digits: int = 2) -> str:
    """``0.462145 -> '46.21%'``."""
    return f"{100 * x:.{digits}f}%"


def matrices_with_progress(*, quiet: bool = False, threads: int | None = None) -> PreflopMatrices:
    """The exact preflop matrices; building them (minutes, once) shows a progress bar."""
    ready = cached_matrices()
    if ready is not None:
        return ready
    if not quiet:
        errors.print("Building the exact preflop matrices once (a few minutes; then cached).")
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=errors,
        disable=quiet,
    ) as bar:
        task = bar.add_task("matchups", total=None)
        return preflop_matrices(
            progress=lambda done, total: bar.update(task, completed=done, total=total),
            threads=threads,
        )
