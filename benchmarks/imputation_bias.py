"""Imputed against true cards: how far the EM imputation's hidden hands are from the truth.

Run from the repository root::

    python benchmarks/imputation_bias.py [--run FOLDER] [--quick] [--seed N] [--json]
                                         [--hands N] [--seats N] [--repeats N]

A diagnostic, not a speed benchmark. ``--run`` (default ``runs/demo``, where ``poolshark
demo`` writes; a missing default folder skips the script with one JSON line ``skipped``,
so ``make bench`` goes on, and a missing ``--run`` folder is an error) is a ``poolshark demo``
run folder with the EM imputer (the default): its
ingested rows (``rows-main``), the simulator's true hole cards (``histories/truth``), every
EM round's model (``population-main/em-K/best.pt``) and the final one
(``population-main/best.pt``).

From the first ``--hands`` ingested hands (default 4,000; quick 1,000) it takes the hidden
seats that acted postflop, in two groups: *folded* (folded on the flop or later) and
*mucked* (reached the showdown and did not show), at most ``--seats`` of each (default 400;
quick 60), drawn with ``--seed``. For each seat and each model it builds the end-of-hand
posterior the imputation draws from (``end_of_hand_ranges`` of the ``model:`` range source,
every known card blocked, a mucked seat's hand losing to the best hand shown; power 1,
and also round 0's model at the run's ``em_power``, which round 1 drew from), exactly
(``candidates=all``, every combo enumerated), and for the last EM round's model also with
32 postflop candidates (the sampler imputation uses), averaged over ``--repeats`` draws
(default 4; quick 2). Per group and model it prints the posterior's mean made strength
(``pool.strength.postflop_strength`` on the board of the seat's last action, as
``hand_strengths`` scores it: the percentile in the street's reference range, 1 the best)
and mean preflop percentile (0 is aces), the true cards' means, and truth minus posterior
with its standard error over seats.

The last line printed is one JSON object: ``run``, ``pool``, ``hands`` (ingested hands
read), ``seats`` (the cap per group), ``repeats``, ``candidates`` (32), ``seconds``,
``quick``, ``seed`` and ``groups``: per group (``folded``, ``mucked``) ``available`` (such
seats in the hands read), ``n`` (seats measured), ``truth`` (``made``, ``made_se``, ``pct``,
``pct_se``: the true cards' means and their standard errors) and ``models``: per model
(``em-0`` ... ``em-(K-1)``, ``em-0 ^P`` where the run's first EM step was over-relaxed to
power P, ``final``, ``em-(K-1) sir32``) ``made`` and ``pct`` (the posterior's means),
``made_gap`` and ``pct_gap`` (truth minus posterior) with
``made_gap_se`` and ``pct_gap_se``, and ``p_true`` (the mean posterior probability of the
true combo); the SIR model also ``made_minus_exact`` and ``pct_minus_exact`` (SIR minus the
same model's exact posterior, seat by seat) with ``made_minus_exact_se`` and
``pct_minus_exact_se``.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import torch

from common import emit, house_parser, print_table
from poolshark.cards.card import parse_cards
from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX
from poolshark.histories.ingest import hand_chunk_frames
from poolshark.pool.context import MOVE_FOLD
from poolshark.pool.ranges import RangeSource
from poolshark.pool.strength import postflop_strength, preflop_percentile
from poolshark.population.data import ROW_COLUMNS
from poolshark.population.hands import RowHands, rows_states
from poolshark.population.imputation import (
    NO_BOUND,
    Imputation,
    condition_on_mucks,
    end_of_hand_ranges,
    live_combos,
    muck_bounds,
)
from poolshark.population.sources import range_source_from_spec
from poolshark.population.train import imputer_settings

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

GROUPS = ("folded", "mucked")
CANDIDATES = 32
CHUNK = 50
"""Seats per call of the range source (bounds the enumeration's memory)."""


@dataclass
class Seats:
    """The measured seats: ``group`` (index into the rebuilt games), ``hand`` and ``seat``
    in it, ``kind`` (index into :data:`GROUPS`), ``bound`` (muck bound or NO_BOUND),
    ``made`` (N, 1326) every combo's made strength on the board of the seat's last action
    and ``true`` the true combo."""

    group: Int64s
    hand: Int64s
    seat: Int64s
    kind: Int64s
    bound: Int64s
    made: Floats
    true: Int64s


DEFAULT_RUN = Path("runs/demo")
"""Where ``poolshark demo`` writes; without it (and without ``--run``) the script skips."""


def options() -> argparse.Namespace:
    """The common benchmark options, the run folder and the sizes."""
    parser = house_parser(__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, default=None, help="a `poolshark demo` run (runs/demo)")
    parser.add_argument("--hands", type=int, default=None, help="hands read (4,000; quick 1,000)")
    parser.add_argument("--seats", type=int, default=None, help="seats per group (400; quick 60)")
    parser.add_argument("--repeats", type=int, default=None, help="SIR draws averaged (4; quick 2)")
    return parser.parse_args()


def checkpoints(run: Path) -> dict[str, str] | str:
    """The exact range-source spec of every EM round's model and the final one, by label (and
    of round 0's at the power the next round drew from); or a message naming what is missing."""
    folder = run / "population-main"
    rounds = sorted(folder.glob("em-*/best.pt"), key=lambda path: int(path.parent.name[3:]))
    missing = [
        name
        for name, ok in (
            ("rows-main", (run / "rows-main").is_dir()),
            ("histories/truth", any((run / "histories" / "truth").glob("*.parquet"))),
            ("population-main/em-K/best.pt", bool(rounds)),
            ("population-main/best.pt", (folder / "best.pt").exists()),
        )
        if not ok
    ]
    if missing:
        return (
            f"{run} lacks {', '.join(missing)}; make it with `poolshark demo --out {run}`"
            " (the default EM imputer keeps every round's model)"
        )
    power = em_power(run)
    models: dict[str, str] = {}
    for path in rounds:
        models[path.parent.name] = f"model:{path}?candidates=all"
        if path.parent.name == "em-0" and power != 1.0:  # what round 1 drew its cards from
            models[f"em-0 ^{power:g}"] = f"model:{path}?power={power:g}&candidates=all"
    models["final"] = f"model:{folder / 'best.pt'}?candidates=all"
    return models


def em_power(run: Path) -> float:
    """The power of the first EM step the run's imputer name stands for (1 without a
    ``config.json``)."""
    config = run / "config.json"
    if not config.exists():
        return 1.0
    imputer = str(json.loads(config.read_text()).get("imputer", "em"))
    return float(imputer_settings(imputer, "")["em_power"])


def true_combos(
    run: Path, games: list[RowHands], group: Int64s, hand: Int64s, seat: Int64s
) -> Int64s:
    """The combo each (game, hand, seat) was dealt, from the simulator's truth files (whose
    seats count from 1)."""
    ids = {int(games[g].hand_ids[h]) for g, h in zip(group.tolist(), hand.tolist(), strict=True)}
    truth = pl.concat(
        [
            pl.read_parquet(path, columns=["hand_id", "seat", "hole_cards"])
            for path in sorted((run / "histories" / "truth").glob("*.parquet"))
        ]
    ).filter(pl.col("hand_id").is_in(list(ids)))
    cards = {
        (int(h), int(s)): str(c)
        for h, s, c in zip(truth["hand_id"], truth["seat"], truth["hole_cards"], strict=True)
    }
    out = np.zeros(len(group), dtype=np.int64)
    for i, (g, h, s) in enumerate(zip(group.tolist(), hand.tolist(), seat.tolist(), strict=True)):
        first, second = parse_cards(cards[(int(games[g].hand_ids[h]), s + 1)], count=2)
        out[i] = int(COMBO_INDEX[first, second])
    return out


def pick_seats(run: Path, games: list[RowHands], cap: int, seed: int) -> tuple[Seats, list[int]]:
    """At most ``cap`` hidden seats that acted postflop of each group, drawn with ``seed``;
    also how many of each there were."""
    found: list[tuple[int, int, int, int, int, int]] = []  # game, hand, seat, kind, bound, street
    for g, game in enumerate(games):
        hands = game.states.hands
        logs = hands.logs
        hidden = game.known[:, :, 0] < 0
        bounds = muck_bounds(hands, game.known, hidden)
        row, column = np.nonzero(np.arange(logs.move.shape[1])[None, :] < logs.length[:, None])
        seat = logs.seat[row, column].astype(np.int64)
        street = logs.street[row, column].astype(np.int64)
        acted = np.zeros(hidden.shape, dtype=np.bool_)
        folded = np.zeros(hidden.shape, dtype=np.bool_)
        last = np.zeros(hidden.shape, dtype=np.int64)
        post = street > 0
        acted[row[post], seat[post]] = True
        fold = post & (logs.move[row, column] == MOVE_FOLD)
        folded[row[fold], seat[fold]] = True
        np.maximum.at(last, (row, seat), street)
        for kind, mask in enumerate((hidden & folded, hidden & acted & (bounds != NO_BOUND))):
            for h, s in zip(*np.nonzero(mask), strict=True):
                found.append((g, int(h), int(s), kind, int(bounds[h, s]), int(last[h, s])))
    table = np.array(found, dtype=np.int64).reshape(-1, 6)
    rng = np.random.default_rng(seed)
    available = [int((table[:, 3] == kind).sum()) for kind in range(len(GROUPS))]
    chosen = np.sort(
        np.concatenate(
            [
                rng.choice(np.flatnonzero(table[:, 3] == kind), min(cap, count), replace=False)
                for kind, count in enumerate(available)
            ]
        )
    )
    table = table[chosen]
    made = np.zeros((len(table), len(COMBO_CARDS)))
    for i, (g, h, _s, _k, _b, street) in enumerate(table.tolist()):
        board = games[g].states.hands.boards[h]
        made[i] = postflop_strength([int(card) for card in board[: street + 2]])[0]
    group, hand, seat = table[:, 0], table[:, 1], table[:, 2]
    true = true_combos(run, games, group, hand, seat)
    return Seats(group, hand, seat, table[:, 3], table[:, 4], made, true), available


def posterior(games: list[RowHands], seats: Seats, source: RangeSource) -> Floats:
    """(N, 1326) each seat's end-of-hand range from ``source`` as the imputation conditions
    it: a mucked seat's combos that would not lose zeroed (asking the source again where
    none is left), every known card blocked, and each row normalized."""
    out = np.zeros((len(seats.hand), len(COMBO_CARDS)))
    for g in np.unique(seats.group).tolist():
        hands, known = games[g].states.hands, games[g].known
        rows = np.flatnonzero(seats.group == g)
        for start in range(0, rows.size, CHUNK):
            part = rows[start : start + CHUNK]
            hand, seat = seats.hand[part], seats.seat[part]
            ranges = end_of_hand_ranges(hands, hand, seat, source).astype(np.float64)
            report = Imputation(known, np.zeros(known.shape[:2], dtype=np.bool_))
            condition_on_mucks(
                hands, known, hand, seat, seats.bound[part], ranges, source, 3, report
            )
            for i, h in enumerate(hand.tolist()):
                live = live_combos(hands, known, h)
                weights = ranges[i] * live
                out[part[i]] = weights if weights.sum() > 0 else live
    normalized: Floats = out / out.sum(axis=1, keepdims=True)
    return normalized


def mean_se(values: Floats) -> tuple[float, float]:
    """Mean and its standard error."""
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(max(values.size, 1)))


def pool_name(run: Path) -> str | None:
    """The pool the run simulated, from its ``config.json`` (None if it has none)."""
    config = run / "config.json"
    if not config.exists():
        return None
    pool = json.loads(config.read_text()).get("pool")
    return str(pool) if pool is not None else None


def main() -> None:
    """Pick the seats, build every model's posterior, print the tables and the JSON line."""
    args = options()
    started = time.perf_counter()
    torch.set_num_threads(1)
    run = args.run or DEFAULT_RUN
    models = checkpoints(run)
    if isinstance(models, str):
        if args.run is not None:  # asked for this folder: an error
            raise SystemExit(f"imputation_bias: {models}")
        if not args.json:  # the default folder: nothing to measure yet (`make bench`)
            print(f"imputation_bias: skipped, {models}")
        emit({"skipped": models, "run": str(run), "quick": args.quick, "seed": args.seed})
        return
    hands = args.hands or (1_000 if args.quick else 4_000)
    cap = args.seats or (60 if args.quick else 400)
    repeats = args.repeats or (2 if args.quick else 4)
    frame = next(hand_chunk_frames(run / "rows-main", hands, ROW_COLUMNS))
    games, _ = rows_states(frame)
    seats, available = pick_seats(run, games, cap, args.seed)
    percentile = preflop_percentile()
    rows = np.arange(len(seats.hand))
    truth_made = seats.made[rows, seats.true]
    truth_pct = percentile[seats.true]
    last = [label for label in models if label[3:].isdigit()][-1]
    ranges: dict[str, Floats] = {}
    for label, spec in models.items():
        exact = range_source_from_spec(spec)
        assert exact is not None
        ranges[label] = posterior(games, seats, exact)
        if not args.json:
            print(f"{label}: {time.perf_counter() - started:.0f} s", flush=True)
    sampled = range_source_from_spec(
        models[last].replace("candidates=all", f"candidates={CANDIDATES}")
    )
    assert sampled is not None
    total = np.zeros_like(seats.made)
    for _ in range(repeats):
        total += posterior(games, seats, sampled)
    sir = f"{last} sir{CANDIDATES}"
    ranges[sir] = total / repeats
    groups: dict[str, Any] = {}
    for kind, name in enumerate(GROUPS):
        mask = seats.kind == kind
        made, made_se = mean_se(truth_made[mask])
        pct, pct_se = mean_se(truth_pct[mask])
        block: dict[str, Any] = {
            "available": available[kind],
            "n": int(mask.sum()),
            "truth": {"made": made, "made_se": made_se, "pct": pct, "pct_se": pct_se},
            "models": {},
        }
        for label, weights in ranges.items():
            post_made = (weights[mask] * seats.made[mask]).sum(axis=1)
            post_pct = weights[mask] @ percentile
            made_gap, made_gap_se = mean_se(truth_made[mask] - post_made)
            pct_gap, pct_gap_se = mean_se(truth_pct[mask] - post_pct)
            block["models"][label] = {
                "made": float(post_made.mean()),
                "pct": float(post_pct.mean()),
                "made_gap": made_gap,
                "made_gap_se": made_gap_se,
                "pct_gap": pct_gap,
                "pct_gap_se": pct_gap_se,
                "p_true": float(weights[mask][np.arange(mask.sum()), seats.true[mask]].mean()),
            }
        sampled_made = (ranges[sir][mask] * seats.made[mask]).sum(axis=1)
        exact_made = (ranges[last][mask] * seats.made[mask]).sum(axis=1)
        made_diff, made_diff_se = mean_se(sampled_made - exact_made)
        pct_diff, pct_diff_se = mean_se((ranges[sir][mask] - ranges[last][mask]) @ percentile)
        block["models"][sir].update(
            {
                "made_minus_exact": made_diff,
                "made_minus_exact_se": made_diff_se,
                "pct_minus_exact": pct_diff,
                "pct_minus_exact_se": pct_diff_se,
            }
        )
        groups[name] = block
    if not args.json:
        for name, block in groups.items():
            truth = block["truth"]
            print_table(
                f"{run.name}, {name} hidden seats: {block['n']:,} of {block['available']:,}"
                f" (truth: made {truth['made']:.3f} ± {truth['made_se']:.3f}, preflop"
                f" percentile {truth['pct']:.3f} ± {truth['pct_se']:.3f})",
                [
                    "model",
                    "made",
                    "truth - model",
                    "± se",
                    "percentile",
                    "truth - model",
                    "± se",
                    "P(true combo)",
                ],
                [
                    [
                        label,
                        m["made"],
                        m["made_gap"],
                        m["made_gap_se"],
                        m["pct"],
                        m["pct_gap"],
                        m["pct_gap_se"],
                        m["p_true"],
                    ]
                    for label, m in block["models"].items()
                ],
            )
            row = block["models"][sir]
            print(
                f"{sir} minus {last} exact: made {row['made_minus_exact']:+.4f} ±"
                f" {row['made_minus_exact_se']:.4f}, percentile"
                f" {row['pct_minus_exact']:+.4f} ± {row['pct_minus_exact_se']:.4f}",
                flush=True,
            )
    emit(
        {
            "run": str(run),
            "pool": pool_name(run),
            "hands": hands,
            "seats": cap,
            "repeats": repeats,
            "candidates": CANDIDATES,
            "seconds": round(time.perf_counter() - started, 1),
            "quick": args.quick,
            "seed": args.seed,
            "groups": groups,
        }
    )


if __name__ == "__main__":
    main()
