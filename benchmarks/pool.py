"""Pool simulation speed: fast-fold hands to PokerStars text, batched vs the readable path.

Run from the repository root::

    python benchmarks/pool.py [--quick] [--seed N] [--json]

Every path plays complete fast-fold hands of the shipped ``micro-zoom`` pool (6-max, blinds
1/2, 100 big blinds, players reseated at random every hand, each decision sampled from the
seat's style) and writes them as PokerStars Zoom text to a file. Side by side, one core:

* ``fast``: ``Simulator.play`` on 256 batched tables (the policy and the engine in one
  compiled loop), then the compiled writer ``pokerstars_text`` and a file write; also the
  two halves alone (``simulate``, ``fast writer``).
* ``python writer``: the same simulated hands through ``SimulatedHands.record`` and the
  per-hand ``histories.pokerstars.write_pokerstars`` (the writer the fast one equals).
* ``table``: ``pool.play.play_hands`` on the readable ``Table`` (one decision at a time
  through ``sample_actions``), then ``record_from_table`` and ``write_pokerstars``.
* ``policy``: the style policy alone, ``policy.sample_actions`` over every decision of the
  simulated hands at once (contexts from ``context.replay_contexts``), in decisions per
  CPU-second: the share of the simulation the styles' rules cost.

Rates are hands per CPU-second of this process (``time.process_time``), so a busy shared
machine slows them less than wall-clock rates; the best of a few repeats is kept. The fast
path is also timed on each shipped pool.

The last line printed is one JSON object with these keys:

* ``fast_hands_per_s``: simulate + fast writer + file, the figure of the 20,000 target;
  ``simulate_hands_per_s``, ``fast_writer_hands_per_s``: its two halves alone.
* ``python_writer_hands_per_s``: records + ``write_pokerstars`` on simulated hands.
* ``policy_decisions_per_s``: ``sample_actions`` alone over the simulated decisions.
* ``table_hands_per_s``: the readable path end to end; ``table_play_hands_per_s``: its
  play alone.
* ``ratio_fast_vs_table``, ``ratio_fast_writer_vs_python_writer``,
  ``ratio_simulate_vs_table_play``.
* ``pools``: ``fast_hands_per_s`` of each shipped pool, by name.
* ``actions_per_hand``, ``bytes_per_hand``: the workload (micro-zoom).
* ``target_hands_per_s`` (20,000) and ``meets_target``.
* ``quick`` and ``seed``: the options given.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import numpy as np

from common import emit, parse_args, print_table
from poolshark.histories.pokerstars import write_pokerstars
from poolshark.histories.replay import record_from_table
from poolshark.pool.context import replay_contexts
from poolshark.pool.play import play_hands
from poolshark.pool.policy import sample_actions
from poolshark.pool.pools import Pool, list_pools, load_pool
from poolshark.pool.simulate import SimulatedHands, Simulator, pokerstars_text

TARGET = 20_000
TABLES = 256


def cpu_rate(hands: int, fn: Callable[[], object], repeats: int) -> float:
    """Hands per CPU-second of ``fn`` (which handles ``hands`` hands), best of ``repeats``."""
    best = float("inf")
    for _ in range(max(1, repeats)):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return hands / max(best, 1e-9)


def fast_path(pool: Pool, hands: int, seed: int, out: Path, repeats: int) -> float:
    """Simulate on the batch, format with the compiled writer, write the file."""
    Simulator(pool, seed=seed, tables=TABLES).play(64)  # compile, load the tables

    def run() -> None:
        chunk = Simulator(pool, seed=seed, tables=TABLES).play(hands)
        out.write_bytes(pokerstars_text(chunk))

    return cpu_rate(hands, run, repeats)


def table_path(pool: Pool, hands: int, seed: int, out: Path) -> tuple[float, float]:
    """(end to end, play alone) hands per CPU-second of the readable path."""
    names = pool.player_names
    styles = pool.player_styles.tolist()
    start = time.process_time()
    played = list(play_hands(pool.config, pool.stack, pool.bank, styles, hands, seed=seed))
    play_seconds = time.process_time() - start
    clock = datetime(2024, 3, 14, 12)
    with out.open("w") as file:
        for number, hand in enumerate(played):
            record = record_from_table(
                hand.table,
                site="PokerStars",
                hand_id=str(250_000_000_000 + number),
                names=[names[p] for p in hand.players],
                time=clock,
                table_name="Halley",
                max_seats=pool.config.seats,
                fast_fold=True,
            )
            file.write(write_pokerstars(record) + "\n\n")
    total = time.process_time() - start
    return hands / total, hands / play_seconds


def python_writer(hands: SimulatedHands, out: Path) -> float:
    """Hands per CPU-second of records + ``write_pokerstars`` on simulated hands."""

    def run() -> None:
        with out.open("w") as file:
            file.write("\n\n".join(write_pokerstars(r) for r in hands.records()))

    return cpu_rate(len(hands), run, 1)


def policy_rate(pool: Pool, hands: SimulatedHands, seed: int, repeats: int) -> float:
    """Decisions per CPU-second of ``sample_actions`` over every decision of ``hands``."""
    logs = hands.action_logs()
    contexts = replay_contexts(pool.config, hands.stacks, hands.button, logs)
    hand, column = np.nonzero(np.arange(logs.seat.shape[1]) < logs.length[:, None])
    seat = logs.seat[hand, column]
    style = hands.styles[hand, seat].astype(np.int64)
    hole = np.stack([hands.cards[hand, 2 * seat], hands.cards[hand, 2 * seat + 1]], axis=1)
    board = hands.cards[hand, 2 * pool.config.seats :]
    uniform = np.random.default_rng(seed).random(len(hand))
    features = contexts[hand, column]
    args = (pool.bank, style, features, hole.astype(np.int64), board.astype(np.int64), uniform)
    sample_actions(*args)  # compile
    return cpu_rate(len(hand), lambda: sample_actions(*args), repeats)


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    quick, seed = args.quick, args.seed
    fast_hands = 40_000 if quick else 400_000
    table_hands = 300 if quick else 2_000
    writer_hands = 5_000 if quick else 30_000
    repeats = 2 if quick else 3
    pool = load_pool("micro-zoom")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "hands.txt"
        fast = fast_path(pool, fast_hands, seed, out, repeats)
        bytes_per_hand = out.stat().st_size / fast_hands
        simulator = Simulator(pool, seed=seed, tables=TABLES)
        sample: list[SimulatedHands] = []
        simulate = cpu_rate(fast_hands, lambda: sample.append(simulator.play(fast_hands)), repeats)
        hands = sample[-1]
        writer = cpu_rate(fast_hands, lambda: pokerstars_text(hands), repeats)
        actions = int(hands.action_start[-1]) / len(hands)
        policy = policy_rate(pool, hands, seed, repeats)
        python = python_writer(Simulator(pool, seed=seed, tables=TABLES).play(writer_hands), out)
        table, table_play = table_path(pool, table_hands, seed, out)
        pools = {
            spec.name: fast_path(load_pool(spec.name), fast_hands // 2, seed, out, 1)
            for spec in list_pools()
        }
    figures: dict[str, object] = {
        "fast_hands_per_s": fast,
        "simulate_hands_per_s": simulate,
        "fast_writer_hands_per_s": writer,
        "python_writer_hands_per_s": python,
        "policy_decisions_per_s": policy,
        "table_hands_per_s": table,
        "table_play_hands_per_s": table_play,
        "ratio_fast_vs_table": fast / table,
        "ratio_fast_writer_vs_python_writer": writer / python,
        "ratio_simulate_vs_table_play": simulate / table_play,
        "pools": pools,
        "actions_per_hand": actions,
        "bytes_per_hand": bytes_per_hand,
        "target_hands_per_s": TARGET,
        "meets_target": fast >= TARGET,
        "quick": quick,
        "seed": seed,
    }
    if not args.json:
        print_table(
            "micro-zoom fast-fold hands to PokerStars text, one core: hands per CPU-second",
            ["path", "hands/s", "fast path / this"],
            [
                ["fast: batched simulate + compiled writer + file", fast, 1.0],
                ["  batched simulate alone", simulate, fast / simulate],
                ["  compiled writer alone", writer, fast / writer],
                ["python writer (records + write_pokerstars)", python, fast / python],
                ["table: Table + record_from_table + write_pokerstars", table, fast / table],
                ["  Table play alone", table_play, fast / table_play],
            ],
        )
        print_table(
            "The fast path on each shipped pool",
            ["pool", "hands/s", f"meets {TARGET:,}"],
            [[name, rate, rate >= TARGET] for name, rate in pools.items()],
        )
        print_table(
            "Workload",
            ["figure", "value"],
            [
                ["actions per hand", actions],
                ["bytes of text per hand", bytes_per_hand],
                ["policy alone (sample_actions): decisions/s", policy],
            ],
        )
    emit(figures)


if __name__ == "__main__":
    main()
