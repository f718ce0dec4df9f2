"""The network player's card features: the readable reference against the compiled batch
path, per stage, on the same random deals in one run.

Run from the repository root::

    python benchmarks/limit_card_features.py [--quick] [--seed N] [--json]

Random deals (seven distinct cards: two hole cards and a board); at each stage (0, 3, 4
and 5 board cards) the reference ``card_features.card_features`` runs once per deal with
its per-board caches cleared (cold) and once more with them filled (warm), and the
compiled ``card_features_compiled.card_feature_batch`` runs over all the deals in one call
(after an untimed compiling call, best of a few repeats). Every compiled row is checked
against the reference before timing. ``--quick``: 300 deals instead of 2,000.

The last line printed is one JSON object: ``deals``; per stage name (``preflop``,
``flop``, ``turn``, ``river``) and for ``all`` (every stage's vectors together) an object
with ``reference_cold_s``, ``reference_warm_s`` and ``compiled_s`` (vectors per second),
``speedup_cold`` and ``speedup_warm`` (compiled over reference); ``load_average``;
``quick`` and ``seed``.
"""

from __future__ import annotations

import os
import time

import numpy as np

from common import emit, parse_args, print_table
from poolshark.limitnet import card_features as reference
from poolshark.limitnet.card_features_compiled import card_feature_batch

STAGES = {"preflop": 0, "flop": 3, "turn": 4, "river": 5}
"""Stage name -> board cards shown."""


def reference_seconds(decks: list[list[int]], shown: int) -> float:
    """Seconds for the reference to compute every deal's vector at one stage."""
    start = time.perf_counter()
    for deck in decks:
        reference.card_features(deck[:2], deck[2 : 2 + shown])
    return time.perf_counter() - start


def compiled_seconds(holes: np.ndarray, boards: np.ndarray, shown: int, repeats: int) -> float:
    """Best seconds of ``repeats`` compiled batch calls over every deal at one stage."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        card_feature_batch(holes, boards, shown)
        best = min(best, time.perf_counter() - start)
    return best


def check_equal(decks: list[list[int]], holes: np.ndarray, boards: np.ndarray) -> None:
    """Every compiled row equals the reference vector (a benchmark of wrong answers is void)."""
    for shown in STAGES.values():
        rows = card_feature_batch(holes, boards, shown)
        for deck, row in zip(decks, rows, strict=True):
            want = reference.card_features(deck[:2], deck[2 : 2 + shown])
            if row[: want.size].tolist() != want.tolist():
                raise AssertionError(f"compiled features differ on {deck} at {shown} cards")


def main() -> None:
    """Time both paths per stage, print the table, then the JSON line."""
    args = parse_args(__doc__ or "")
    deals = 300 if args.quick else 2000
    rng = np.random.default_rng(args.seed)
    decks = [[int(c) for c in rng.permutation(52)[:7]] for _ in range(deals)]
    holes = np.array([deck[:2] for deck in decks], dtype=np.int64)
    boards = np.array([deck[2:] for deck in decks], dtype=np.int64)
    card_feature_batch(holes[:1], boards[:1], 5)  # compile (or load the compiled cache)
    check_equal(decks[:50], holes[:50], boards[:50])

    seconds: dict[str, dict[str, float]] = {}
    reference.clear_caches()
    for name, shown in STAGES.items():
        seconds[name] = {"reference_cold": reference_seconds(decks, shown)}
    for name, shown in STAGES.items():
        seconds[name]["reference_warm"] = reference_seconds(decks, shown)
        seconds[name]["compiled"] = compiled_seconds(holes, boards, shown, 3 if args.quick else 5)
    seconds["all"] = {
        kind: sum(seconds[name][kind] for name in STAGES)
        for kind in ("reference_cold", "reference_warm", "compiled")
    }

    figures: dict[str, object] = {"deals": deals}
    rows: list[list[object]] = []
    for name, spent in seconds.items():
        vectors = deals * (len(STAGES) if name == "all" else 1)
        rates = {f"{kind}_s": vectors / spent[kind] for kind in spent}
        rates["speedup_cold"] = rates["compiled_s"] / rates["reference_cold_s"]
        rates["speedup_warm"] = rates["compiled_s"] / rates["reference_warm_s"]
        figures[name] = rates
        rows.append(
            [
                name,
                rates["reference_cold_s"],
                rates["reference_warm_s"],
                rates["compiled_s"],
                f"{rates['speedup_cold']:,.0f}x",
                f"{rates['speedup_warm']:,.0f}x",
            ]
        )
    load = os.getloadavg()[0]
    if not args.json:
        print_table(
            f"card feature vectors per second, {deals:,} random deals per stage (load {load:.1f})",
            [
                "stage",
                "reference, caches cold",
                "reference, caches warm",
                "compiled batch",
                "compiled / cold",
                "compiled / warm",
            ],
            rows,
        )
    emit({**figures, "load_average": load, "quick": args.quick, "seed": args.seed})


if __name__ == "__main__":
    main()
