"""True-equity dataset generation: samples per second, the compiled kernel next to peers.

Run from the repository root::

    python benchmarks/equity_data.py [--quick] [--seed N] [--json]

A sample is two hole cards and a 3, 4 or 5 card board; its row is the exact equity against
each of the 1,326 opponent combos over every runout (impossible combos masked). The same
random samples (seed given) are scored, side by side in one run, by:

* ``poolshark.equity_net.data.true_equities`` on one core and on all cores: the
  compiled kernel that evaluates each opponent 4-card (flop) or 3-card (turn) completion
  once and shares it among every (combo, runout) split;
* ``eval7 loop``: a Python loop over every runout with the eval7 evaluator (C), our value
  once per runout and each live combo's value, the natural way to fill a row with a fast
  evaluator;
* ``exact per combo``: poolshark's own general ``exact_equity``, called once per combo
  (1,326 calls per sample), the way a row is filled without a dedicated kernel.

Peers are slow, so they score fewer samples per street (all streets are timed separately
and combined with the default 1:1:1 street mix); every peer's rows are checked against the
kernel's.

The last line printed is one JSON object with these keys (rates in samples per second):

* ``kernel_1core``, ``kernel_all_cores``, ``eval7_loop``, ``exact_per_combo``: the mixed-street
  rate of each method; ``cores``: how many cores "all" used.
* ``by_street``: for each of ``flop``, ``turn``, ``river`` the same four rates.
* ``ratio_kernel_vs_eval7_loop``, ``ratio_kernel_vs_exact_per_combo``: one-core kernel rate
  over the peer's rate (mixed streets).
* ``max_abs_difference``: largest difference between a peer's equity and the kernel's.
* ``quick`` and ``seed``: the options given.
"""

from __future__ import annotations

import time
import warnings
from itertools import combinations

import numba
import numpy as np
import numpy.typing as npt

from common import emit, parse_args, print_table
from poolshark.cards.card import format_card
from poolshark.cards.combos import COMBO_INDEX, N_COMBOS
from poolshark.equity_net.data import (
    BOARD_SIZES,
    NO_CARD,
    random_samples,
    reference_equities,
    true_equities,
)

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # eval7 calls old pyparsing names
    import eval7

STREETS = dict(zip(BOARD_SIZES, ("flop", "turn", "river"), strict=True))
Cards = npt.NDArray[np.uint8]
EVAL7_CARDS = [eval7.Card(format_card(card)) for card in range(52)]


def street_samples(n: int, size: int, seed: int) -> tuple[Cards, Cards]:
    """``n`` random samples whose boards have ``size`` cards."""
    mix = tuple(1.0 if s == size else 0.0 for s in BOARD_SIZES)
    return random_samples(n, seed + size, street_mix=mix)


def eval7_row(hole: list[int], board: list[int]) -> npt.NDArray[np.float64]:
    """One sample's row by looping over runouts in Python with eval7."""
    dead = {*hole, *board}
    deck = [c for c in range(52) if c not in dead]
    score = np.zeros(N_COMBOS)
    count = np.zeros(N_COMBOS)
    ours_cards = [EVAL7_CARDS[c] for c in hole]
    for runout in combinations(deck, 5 - len(board)):
        shared = [EVAL7_CARDS[c] for c in (*board, *runout)]
        ours = eval7.evaluate(ours_cards + shared)
        live = [c for c in deck if c not in runout]
        for a, b in combinations(live, 2):
            theirs = eval7.evaluate([EVAL7_CARDS[a], EVAL7_CARDS[b], *shared])
            combo = COMBO_INDEX[a, b]
            score[combo] += 1.0 if ours > theirs else 0.5 if ours == theirs else 0.0
            count[combo] += 1
    return np.divide(score, count, out=np.zeros(N_COMBOS), where=count > 0)


def kernel_rate(holes: Cards, boards: Cards, threads: int | None) -> float:
    """Samples per second of the compiled kernel (best of 3)."""
    true_equities(holes[:4], boards[:4], threads=threads)  # warm-up
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        true_equities(holes, boards, threads=threads)
        best = min(best, time.perf_counter() - start)
    return len(holes) / best


def peer_rates(holes: Cards, boards: Cards, exact_samples: int) -> tuple[float, float, float]:
    """(eval7 loop rate, exact-per-combo rate, largest difference from the kernel)."""
    kernel, _ = true_equities(holes, boards)
    worst = 0.0
    start = time.perf_counter()
    for row, (hole, board) in enumerate(zip(holes.tolist(), boards.tolist(), strict=True)):
        got = eval7_row(hole, [c for c in board if c != NO_CARD])
        worst = max(worst, float(np.abs(got - kernel[row]).max()))
    eval7_rate = len(holes) / (time.perf_counter() - start)
    start = time.perf_counter()
    for row in range(exact_samples):
        hole, board = holes[row].tolist(), [c for c in boards[row].tolist() if c != NO_CARD]
        values = reference_equities(hole, board, range(N_COMBOS))
        got = np.array([0.0 if v is None else v for v in values])
        worst = max(worst, float(np.abs(got - kernel[row]).max()))
    exact_rate = exact_samples / (time.perf_counter() - start)
    return eval7_rate, exact_rate, worst


def mixed(rates: dict[int, float]) -> float:
    """Rate over a 1:1:1 street mix: samples over the summed time per sample."""
    return len(rates) / sum(1.0 / r for r in rates.values())


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    quick = args.quick
    kernel_n = {3: 1_000, 4: 4_000, 5: 20_000} if not quick else {3: 200, 4: 1_000, 5: 5_000}
    peer_n = {3: 2, 4: 20, 5: 200} if not quick else {3: 1, 4: 5, 5: 50}
    exact_n = {3: 1, 4: 3, 5: 5} if not quick else {3: 1, 4: 1, 5: 2}
    cores = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    one, every, loop, exact = {}, {}, {}, {}
    worst = 0.0
    for size in BOARD_SIZES:
        holes, boards = street_samples(kernel_n[size], size, args.seed)
        one[size] = kernel_rate(holes, boards, threads=1)
        every[size] = kernel_rate(holes, boards, threads=None)
        loop[size], exact[size], diff = peer_rates(
            holes[: peer_n[size]], boards[: peer_n[size]], exact_n[size]
        )
        worst = max(worst, diff)
    by_street = {
        STREETS[size]: {
            "kernel_1core": one[size],
            "kernel_all_cores": every[size],
            "eval7_loop": loop[size],
            "exact_per_combo": exact[size],
        }
        for size in BOARD_SIZES
    }
    figures: dict[str, object] = {
        "kernel_1core": mixed(one),
        "kernel_all_cores": mixed(every),
        "eval7_loop": mixed(loop),
        "exact_per_combo": mixed(exact),
        "cores": cores,
        "by_street": by_street,
        "ratio_kernel_vs_eval7_loop": mixed(one) / mixed(loop),
        "ratio_kernel_vs_exact_per_combo": mixed(one) / mixed(exact),
        "max_abs_difference": worst,
        "quick": quick,
        "seed": args.seed,
    }
    if not args.json:
        rows: list[list[object]] = []
        for name, rates in (
            ("poolshark kernel, 1 core", one),
            (f"poolshark kernel, {cores} cores", every),
            ("eval7, Python loop over runouts", loop),
            ("poolshark exact_equity per combo", exact),
        ):
            rows.append(
                [name, rates[3], rates[4], rates[5], mixed(rates), mixed(one) / mixed(rates)]
            )
        print_table(
            "Exact equity rows (1,326 combos): samples per second",
            ["method", "flop", "turn", "river", "1:1:1 mix", "1-core kernel is x faster"],
            rows,
        )
        print(f"largest difference between a peer and the kernel: {worst:.2e}")
    emit(figures)


if __name__ == "__main__":
    main()
