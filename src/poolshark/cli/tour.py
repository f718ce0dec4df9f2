"""``poolshark tour``: the foundation at a glance, on built-in inputs.

The evaluator (a few hands and its speed on this machine), exact and sampled equity on
classic matchups, a 13x13 chart of each preflop class's equity against a random hand and
the heads-up shove/fold equilibrium at 10 bb. (``poolshark demo`` runs the whole pipeline.)
"""

from __future__ import annotations

import time

import numpy as np
import numpy.typing as npt
from rich.table import Table

from poolshark.cards.card import format_cards, parse_cards
from poolshark.cards.combos import CLASS_NAMES, N_CLASSES, class_combos
from poolshark.cards.evaluator import evaluate, evaluate_batch
from poolshark.cards.hand_value import describe
from poolshark.cards.ranges import Range
from poolshark.cli.common import JsonFlag, console, percent, print_json
from poolshark.equity.exact import exact_equity
from poolshark.equity.matrix import cached_matrices
from poolshark.equity.montecarlo import monte_carlo_equity
from poolshark.report.range_chart import render_text
from poolshark.solve.shove_fold import ShoveFoldGame, fraction_of_combos, payoffs
from poolshark.solve.solvers import solve_exact

SHOWCASE_HANDS = ("AhKhQhJhTh", "7c7d7h7sKd2c3d", "AsKd5h4c3s2d9c", "QcQdJsJh9c8c2d", "7c5d4h3s2c")
MATCHUPS = (
    ("AhKh", "QdQc"),
    ("AsAd", "KhKc"),
    ("AcKd", "2s2h"),
    ("JhTh", "AsKc"),
    ("AhAd", "KsKc", "QhQc"),
    ("8s7s", "AA,KK,QQ,AK"),
)
CHART_SAMPLES = 40_960


def _random_hands(n: int, seed: int) -> npt.NDArray[np.uint8]:
    """(n, 7) random 7-card hands with distinct cards."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52), dtype=np.float32), axis=1)[:, :7].astype(np.uint8)


def tour(json_output: JsonFlag = False) -> None:
    """Show the evaluator, exact and sampled equity, a preflop chart and shove/fold at 10 bb."""
    figures: dict[str, object] = {}

    hands = Table(title="Hand values (1..7462, higher wins)")
    hands.add_column("cards")
    hands.add_column("value", justify="right")
    hands.add_column("hand")
    for text in SHOWCASE_HANDS:
        value = evaluate(text)
        hands.add_row(format_cards(parse_cards(text), " "), str(value), describe(value))

    batch = _random_hands(2_000_000, seed=0)
    evaluate_batch(batch[:8])
    started = time.perf_counter()
    evaluate_batch(batch)
    per_second = batch.shape[0] / (time.perf_counter() - started)
    figures["evaluations_per_s_one_core"] = per_second

    matchups = Table(title="Exact all-in equity (every board enumerated)")
    matchups.add_column("players")
    matchups.add_column("equities", justify="right")
    matchups.add_column("boards", justify="right")
    matchups.add_column("time", justify="right")
    exact_rows = []
    for players in MATCHUPS:
        started = time.perf_counter()
        result = exact_equity([Range.parse(p) for p in players])
        seconds = time.perf_counter() - started
        exact_rows.append({"players": list(players), "equities": list(result.equities)})
        matchups.add_row(
            " vs ".join(players),
            " / ".join(percent(e) for e in result.equities),
            f"{result.boards:,}",
            f"{1000 * seconds:.0f} ms",
        )
    figures["matchups"] = exact_rows

    sampled = monte_carlo_equity([Range.parse("AhKh"), Range.parse("QdQc")], samples=1_000_000)
    figures["monte_carlo_AhKh_vs_QdQc"] = {
        "equity": sampled.equities[0],
        "std_error": (sampled.std_errors or (0.0,))[0],
    }

    chart, chart_source = _class_equity_vs_random()
    figures["chart_source"] = chart_source
    figures["class_equity_vs_random"] = dict(zip(CLASS_NAMES, chart.round(4).tolist(), strict=True))

    matrices = cached_matrices()
    shove_fold = (
        None if matrices is None else solve_exact(payoffs(ShoveFoldGame(stack=10), matrices))
    )
    if shove_fold is not None:
        figures["shove_fold_10bb"] = {
            "sb_shove_fraction": fraction_of_combos(shove_fold.shove),
            "bb_call_fraction": fraction_of_combos(shove_fold.call),
            "sb_value_bb": shove_fold.exploitability.value,
        }

    if json_output:
        print_json(figures)
        return
    console.print(hands)
    console.print(
        f"Batch evaluator on this machine: [bold]{per_second / 1e6:.0f} M[/] random 7-card "
        "hands/s on one core (`python benchmarks/evaluator.py` compares with peers)\n"
    )
    console.print(matchups)
    error = sampled.std_errors[0] if sampled.std_errors else 0.0
    console.print(
        f"Monte Carlo, 1M samples: AhKh vs QdQc = {percent(sampled.equities[0])}"
        f" ± {percent(error, 3)} (exact 46.21%)\n"
    )
    console.print(
        render_text(
            chart,
            f"Preflop equity vs a random hand ({chart_source})",
            caption="each cell: the class's all-in equity against a random hand",
        )
    )
    if shove_fold is None:
        console.print(
            "`poolshark equity matrix` (minutes, once) makes this chart exact and adds the"
            " heads-up shove/fold equilibrium to this demo."
        )
        return
    console.print(render_text(shove_fold.shove, "Heads-up shove/fold at 10 bb: small blind shoves"))
    console.print(render_text(shove_fold.call, "... and the big blind calls"))
    console.print(
        f"Small blind's value {shove_fold.exploitability.value:+.4f} bb/hand, exploitability"
        f" {shove_fold.exploitability.total:.1e}, solved in {1000 * shove_fold.seconds:.0f} ms"
        " (`poolshark solve shove-fold --help` for more)."
    )


def _class_equity_vs_random() -> tuple[npt.NDArray[np.float64], str]:
    """Each class's all-in equity against a random hand: exact from the cached preflop
    matrices when present, else sampled."""
    matrices = cached_matrices()
    if matrices is not None:
        per_combo = matrices.equity_vs_random()
        return np.array([per_combo[class_combos(c)[0]] for c in range(N_CLASSES)]), "exact"
    anyone = Range.full()
    chart = np.zeros(N_CLASSES)
    for cls in range(N_CLASSES):
        hero = Range.of_combos([class_combos(cls)[0]])
        chart[cls] = monte_carlo_equity([hero, anyone], samples=CHART_SAMPLES, seed=cls).equities[0]
    return chart, f"Monte Carlo, {CHART_SAMPLES:,} samples each"
