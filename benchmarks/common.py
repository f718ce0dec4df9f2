"""Helpers every benchmark script shares: options, timing, random hands and output.

Benchmark scripts are run from the repository root as ``python benchmarks/NAME.py``. Python
puts a script's own folder first on ``sys.path``, so they import these helpers with a plain
``from common import ...``. Each script prints readable tables and then, as its very last
line, one JSON object of its figures (``--json`` prints only that line).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Mapping, Sequence
from itertools import combinations

import numpy as np
import numpy.typing as npt
from rich.console import Console
from rich.table import Table

N_CARDS = 52


def parse_args(description: str, argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Options common to every benchmark: ``--quick``, ``--seed`` and ``--json``.

    ``quick`` asks for a run of under a minute (smaller inputs, fewer repeats), ``seed``
    seeds every random input (default 0) and ``json`` silences all but the JSON line.
    """
    return house_parser(description).parse_args(argv)


def house_parser(description: str) -> argparse.ArgumentParser:
    """A parser with the common options of :func:`parse_args`, for a script to add its own."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--quick", action="store_true", help="smaller inputs, so the run takes under a minute"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for random inputs (default 0)")
    parser.add_argument(
        "--json", action="store_true", help="print only the final JSON line of figures"
    )
    return parser


def print_table(title: str, columns: list[str], rows: list[list[object]]) -> None:
    """Print a titled table: the first column (names) left-aligned, the others right-aligned.

    Integers are shown with thousands separators, floats with three decimals (none from
    1,000 up) and anything else with ``str``, so scripts can pass raw figures.
    """
    table = Table(title=title, title_justify="left")
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right", no_wrap=True)
    for row in rows:
        table.add_row(*(_cell(value) for value in row))
    console = Console()
    if not console.is_terminal:  # piped or captured: rich would assume 80 columns
        console = Console(width=200)
    console.print(table)


def _cell(value: object) -> str:
    """How ``print_table`` shows one value."""
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return f"{value:,}"
    if isinstance(value, float | np.floating):
        number = float(value)
        return f"{number:,.0f}" if abs(number) >= 1000 else f"{number:.3f}"
    return str(value)


def emit(figures: Mapping[str, object]) -> None:
    """Print the figures as one JSON object on one line: the script's last line of output."""

    def plain(value: object) -> object:
        if isinstance(value, np.generic):
            return value.item()
        raise TypeError(f"{type(value).__name__} is not JSON serializable")

    print(json.dumps(dict(figures), default=plain), flush=True)


def best_of(fn: Callable[[], object], repeats: int) -> float:
    """Fastest of ``repeats`` calls of ``fn``, in seconds (``time.perf_counter``)."""
    best = float("inf")
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def random_hands(n: int, k: int, seed: int) -> npt.NDArray[np.uint8]:
    """``n`` uniformly random hands of ``k`` distinct cards as an (n, k) uint8 array.

    Rows are drawn whole and the ones holding a repeated card drawn again (about a third
    of the rows for seven cards), so every row is a uniform ordered draw without
    replacement; 10 M seven-card hands take about a second.
    """
    if not 1 <= k <= N_CARDS:
        raise ValueError(f"cannot deal {k} distinct cards from {N_CARDS}")
    rng = np.random.default_rng(seed)
    hands = rng.integers(0, N_CARDS, size=(n, k), dtype=np.uint8)
    pending = np.arange(n)
    while pending.size:
        rows = hands[pending]
        clash = np.zeros(pending.size, dtype=np.bool_)
        for i, j in combinations(range(k), 2):
            clash |= rows[:, i] == rows[:, j]
        pending = pending[clash]
        hands[pending] = rng.integers(0, N_CARDS, size=(pending.size, k), dtype=np.uint8)
    return hands
