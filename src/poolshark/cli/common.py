"""Small pieces every command shares: JSON output, error reporting, the default sub-command,
progress bars and run configs."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Protocol, Self, TypeVar

import typer
from pydantic import ValidationError
from pydantic_core import ErrorDetails
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TimeRemainingColumn
from typer.core import TyperGroup

from poolshark.equity.matrix import PreflopMatrices, cached_matrices, preflop_matrices

console = Console()
errors = Console(stderr=True)


def print_json(payload: object) -> None:
    """Print one JSON object on stdout (the ``--json`` contract of every command)."""
    sys.stdout.write(json.dumps(payload) + "\n")


def warn_precision(device: str, precision: str) -> None:
    """Print (stderr) why ``bf16`` will be slow here, when it will be."""
    from poolshark.training.common import precision_warning  # lazy: torch; CLI starts fast

    warning = precision_warning(device, "bf16" if precision == "bf16" else "fp32")
    if warning:
        errors.print(f"[bold yellow]{warning}[/]")


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

RunConfigOption = Annotated[
    Path | None,
    typer.Option("--config", help="TOML run config; options given here override it."),
]
RunFolderOption = Annotated[
    Path | None, typer.Option("--out", help="Run folder: checkpoints, logs.")
]
ResumeFlag = Annotated[
    bool, typer.Option("--resume/--no-resume", help="Continue the run in --out from last.pt.")
]
DeviceOption = Annotated[str | None, typer.Option("--device", help="cpu, cuda or cuda:N.")]
ThreadsOption = Annotated[int | None, typer.Option("--threads", help="torch CPU threads.")]
DevicesOption = Annotated[
    int | None,
    typer.Option(
        "--devices",
        min=1,
        help="Data-parallel processes (torch DDP: gloo on cpu, NCCL on cuda, one GPU each).",
    ),
]
PrecisionOption = Annotated[
    str | None,
    typer.Option("--precision", help="fp32 or bf16 (bfloat16 mixed precision in training)."),
]
LearningRateOption = Annotated[
    float | None, typer.Option("--learning-rate", help="Peak learning rate.")
]
BatchSizeOption = Annotated[
    int | None, typer.Option("--batch-size", help="Batch size (default 512).")
]
PatienceOption = Annotated[
    int | None,
    typer.Option("--patience", help="Stop after this many epochs without improvement."),
]
"""Options the training commands share (``None``: the run config's value)."""


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
    with progress_bar(quiet) as bar:
        task = bar.add_task("matchups", total=None)
        return preflop_matrices(
            progress=lambda done, total: bar.update(task, completed=done, total=total),
            threads=threads,
        )


def progress_bar(quiet: bool, *, transient: bool = False) -> Progress:
    """A progress bar on stderr (done/total and time left), hidden when ``quiet``
    (``--json``); a ``transient`` one is erased when it ends."""
    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=errors,
        disable=quiet,
        transient=transient,
    )


class StagedProgress:
    """A stderr progress bar with one row per named stage, added when first reported.

    Trainers report ``(done, total)`` per stage (building data, training); the row appears
    only once its total is known, and the bar starts with the first row (so an error before
    any progress is the only thing printed). Use it as a context manager.
    """

    def __init__(self, quiet: bool) -> None:
        self.bar = progress_bar(quiet)
        self._tasks: dict[str, TaskID] = {}

    def __enter__(self) -> StagedProgress:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._tasks:
            self.bar.stop()

    def update(self, stage: str, done: int, total: int) -> None:
        """Show ``done`` of ``total`` on the row of ``stage``."""
        if not self._tasks:
            self.bar.start()
        if stage not in self._tasks:
            self._tasks[stage] = self.bar.add_task(stage, total=total)
        self.bar.update(self._tasks[stage], completed=done, total=total)

    def stage(self, name: str) -> Callable[[int, int], None]:
        """A ``(done, total)`` callback for the row of stage ``name``."""
        return lambda done, total: self.update(name, done, total)


class RunConfig(Protocol):
    """A trainer's run config: a pydantic model that also loads from a TOML file."""

    @classmethod
    def from_toml(cls, path: Path, **overrides: Any) -> Self: ...

    @classmethod
    def model_validate(cls, obj: Any) -> Self: ...


RunConfigT = TypeVar("RunConfigT", bound=RunConfig)


def load_run_config(
    config_type: type[RunConfigT], path: Path | None, overrides: Mapping[str, Any]
) -> RunConfigT:
    """A run config from TOML file ``path`` (or from the options alone when None); options
    that are not None override the file's keys. Bad files and values raise ``ValueError``."""
    given = {key: value for key, value in overrides.items() if value is not None}
    if path is None:
        return config_type.model_validate(given)
    return config_type.from_toml(path, **given)
