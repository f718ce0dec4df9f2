"""The network player's speed without learning: six-seat fixed-limit hands per second of
the player at every seat, beside PokerKit playing six-seat hands with a random policy.

Run from the repository root::

    python benchmarks/limitnet_hands.py [--quick] [--seed N] [--json] [--checkpoint PATH]

One ``LimitNetAgent`` (a fresh ``ActionFunction``; its default path: compiled bet and card
features, one batched forward pass per step) holds all six seats of a fixed-limit match
(``evaluate.match.play_match``: blinds 1/2, bets 2/4, 100 big blinds reset every hand, its
books kept as in ``poolshark eval``), torch on one thread, no learning. It plays the same
number of hands at 256, 1,024 and 4,096 tables at once; at the fastest count it then plays
the million (the full run) or 24,576 hands (``--quick``). Times are the process's CPU
seconds (``time.process_time``, one core) and wall seconds; ``seconds_per_million`` is CPU
seconds for a million hands, measured when ``million_played`` and otherwise projected from
the rate. With ``--checkpoint`` (a trained ``limitnet.pt``, played as ``poolshark eval``
loads it) that player is timed too at the same table count: a trained player takes another
number of decisions per hand.

PokerKit's ``FixedLimitTexasHoldem`` (the peer of ``benchmarks/limit_engine.py``, random
policy) plays 2,000 six-seat hands (200 with ``--quick``): at about a hundred hands a
second a million would take hours, so its ``pokerkit_seconds_per_million`` is always a
projection from that rate. ``ratio_vs_pokerkit`` is the player's hands per CPU second over
PokerKit's.

The last line is one JSON object: ``sweep`` (per table count: ``tables``, ``hands``,
``decisions``, ``cpu_s``, ``wall_s``, ``hands_per_s`` and ``decisions_per_s`` per CPU
second); ``best_tables``; ``hands``, ``decisions``, ``cpu_s``, ``wall_s``, ``hands_per_s``,
``decisions_per_s``, ``decisions_per_hand``, ``seconds_per_million``, ``million_played``
of the long run; ``trained`` (the same keys and ``checkpoint`` for ``--checkpoint``, else
null); ``pokerkit_hands``, ``pokerkit_cpu_s``, ``pokerkit_hands_per_s``,
``pokerkit_seconds_per_million``, ``ratio_vs_pokerkit`` (null without PokerKit);
``load_average`` (1-minute, at the end); ``quick`` and ``seed``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import torch

from common import emit, house_parser, print_table
from limit_engine import pokerkit_hands
from poolshark.engine.config import Betting
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.agent import LimitNetAgent, load_limitnet_agent

SEATS = 6
TABLES = (256, 1024, 4096)
MILLION = 1_000_000


def play(agent: LimitNetAgent, hands: int, tables: int, seed: int) -> dict[str, float]:
    """Time ``agent`` at all six seats for ``hands`` (at least) table-hands on ``tables``."""
    config = MatchConfig(
        hands=hands, seats=SEATS, seed=seed, tables=tables, betting=Betting.FIXED_LIMIT
    )
    cpu, wall = time.process_time(), time.perf_counter()
    result = play_match([agent], [0] * SEATS, config)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    played, decisions = result.table_hands, result.agents[0].decisions
    return {
        "tables": tables,
        "hands": played,
        "decisions": decisions,
        "cpu_s": cpu,
        "wall_s": wall,
        "hands_per_s": played / cpu,
        "decisions_per_s": decisions / cpu,
        "decisions_per_hand": decisions / played,
        "seconds_per_million": MILLION * cpu / played,
        "million_played": played >= MILLION,
    }


def main() -> None:
    parser = house_parser(__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, help="a trained limitnet.pt to time too")
    args = parser.parse_args()
    torch.set_num_threads(1)
    agent = LimitNetAgent(ActionFunction(seed=args.seed))
    play(agent, 600, 100, args.seed + 1)  # compile and warm up, untimed
    sweep_hands = 12_288 if args.quick else 98_304
    sweep = [play(agent, sweep_hands, tables, args.seed) for tables in TABLES]
    best = max(sweep, key=lambda run: run["hands_per_s"])
    tables = int(best["tables"])
    long_run = play(agent, 24_576 if args.quick else MILLION, tables, args.seed)
    trained: dict[str, object] | None = None
    if args.checkpoint is not None:
        player = load_limitnet_agent(args.checkpoint)
        play(player, 600, 100, args.seed + 1)
        trained = {
            **play(player, sweep_hands, tables, args.seed),
            "checkpoint": str(args.checkpoint),
        }
    kit_hands = 200 if args.quick else 2_000
    kit_cpu = time.process_time()
    kit_wall_rate = pokerkit_hands(SEATS, kit_hands, args.seed)
    kit_cpu = time.process_time() - kit_cpu
    kit_rate = kit_hands / kit_cpu if kit_wall_rate is not None else None
    if not args.json:
        rows: list[list[object]] = [
            [
                f"{run['tables']} tables",
                run["hands"],
                run["cpu_s"],
                run["wall_s"],
                run["hands_per_s"],
                run["decisions_per_s"],
                run["seconds_per_million"],
            ]
            for run in sweep
        ]
        label = "measured" if long_run["million_played"] else "projected"
        rows.append(
            [
                f"{tables} tables, long run ({label})",
                long_run["hands"],
                long_run["cpu_s"],
                long_run["wall_s"],
                long_run["hands_per_s"],
                long_run["decisions_per_s"],
                long_run["seconds_per_million"],
            ]
        )
        if trained is not None:
            rows.append(
                [
                    f"trained, {tables} tables",
                    trained["hands"],
                    trained["cpu_s"],
                    trained["wall_s"],
                    trained["hands_per_s"],
                    trained["decisions_per_s"],
                    trained["seconds_per_million"],
                ]
            )
        if kit_rate is not None:
            rows.append(
                [
                    "PokerKit, random policy (projected)",
                    kit_hands,
                    kit_cpu,
                    "-",
                    kit_rate,
                    "-",
                    MILLION / kit_rate,
                ]
            )
        print_table(
            "Six-seat fixed-limit hands, network player at every seat, one core, no learning",
            ["run", "hands", "CPU s", "wall s", "hands/s", "decisions/s", "CPU s per 1M"],
            rows,
        )
    emit(
        {
            "sweep": sweep,
            "best_tables": tables,
            **{
                key: long_run[key]
                for key in (
                    "hands",
                    "decisions",
                    "cpu_s",
                    "wall_s",
                    "hands_per_s",
                    "decisions_per_s",
                    "decisions_per_hand",
                    "seconds_per_million",
                    "million_played",
                )
            },
            "trained": trained,
            "pokerkit_hands": kit_hands,
            "pokerkit_cpu_s": kit_cpu if kit_rate is not None else None,
            "pokerkit_hands_per_s": kit_rate,
            "pokerkit_seconds_per_million": MILLION / kit_rate if kit_rate else None,
            "ratio_vs_pokerkit": long_run["hands_per_s"] / kit_rate if kit_rate else None,
            "load_average": os.getloadavg()[0],
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
