"""Range oracle: per-combo board features, answers and training steps, next to their peers.

Run from the repository root::

    python benchmarks/oracle.py [--quick] [--seed N] [--json]

Everything runs on one core (torch and numba single-threaded). Measured side by side:

* **Per-combo features of a board** (what the oracle's postflop scorer reads), boards per
  second: the compiled ``combo_features`` kernel; its plain numpy reference; and the
  equity network's 100-wide embedding of all 1,326 combos on the board (seed architecture,
  and the improved one at widths 768 and 1024, the sizes of the trained runs; untrained
  weights, which cost the same). The last is what seed 000 feeds its oracle.
* **Answers to range queries**, queries (rows) per second, on the same end-of-hand queries
  of simulated micro-zoom hands: ``RangeOracle.ranges`` (default network, untrained weights);
  the exact pool posterior batched in one compiled walk per hand (``label_decisions``, the
  way ``from_simulation`` labels data: all seats of a hand at once); ``ExactPoolRanges``
  (one compiled walk per query: the readable reference).
* **Training**: hands per second of forward + backward + optimizer step, batches of 64
  hands, default network.

The last line printed is one JSON object with these keys:

* ``features_boards_per_s``: ``kernel``, ``reference``, ``embed_seed``, ``embed_768``,
  ``embed_1024`` (boards per second); ``ratio_kernel_vs_embed_1024``,
  ``ratio_kernel_vs_reference``.
* ``answers_rows_per_s``: ``oracle``, ``exact_batched``, ``exact_per_query``;
  ``ratio_oracle_vs_exact_per_query``.
* ``train_hands_per_s``: training hands per second; ``train_examples_per_s``.
* ``quick`` and ``seed``: the options given.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from common import emit, parse_args, print_table
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS
from poolshark.equity_net.model import build_model
from poolshark.oracle import batches as obatch
from poolshark.oracle import data as od
from poolshark.oracle import features as ofeat
from poolshark.oracle.loss import batch_loss
from poolshark.oracle.model import BatchTensors, OracleNet, RangeOracle
from poolshark.pool.context import ActionLogs
from poolshark.pool.pools import load_pool
from poolshark.pool.posterior import label_decisions, pool_mixture
from poolshark.pool.ranges import ExactPoolRanges, RangeQuery
from poolshark.pool.simulate import SimulatedHands, simulate


def timed(work: object, repeats: int = 1) -> float:
    """Seconds per call of ``work()`` (best of ``repeats``, after one warm-up call)."""
    assert callable(work)
    work()
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def random_boards(count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(count, 5) random boards and their sizes (3, 4 or 5, in turn)."""
    boards = np.array([rng.permutation(52)[:5] for _ in range(count)], dtype=np.int64)
    return boards, 3 + np.arange(count) % 3


def feature_rates(count: int, rng: np.random.Generator) -> dict[str, float]:
    """Boards per second of each way to describe every combo on a board."""
    boards, sizes = random_boards(count, rng)
    rates = {"kernel": count / timed(lambda: ofeat.combo_features(boards, sizes), 3)}
    few = max(2, count // 40)
    rates["reference"] = few / timed(
        lambda: [
            ofeat.combo_features_reference(list(b[:s]))
            for b, s in zip(boards[:few], sizes[:few], strict=True)
        ]
    )
    holes = torch.from_numpy(COMBO_CARDS.astype(np.int64))
    nets = {
        "embed_seed": build_model("seed"),
        "embed_768": build_model("improved", {"width": 768, "head": 768}),
        "embed_1024": build_model("improved", {"width": 1024, "head": 1024}),
    }
    for name, net in nets.items():
        net.eval()

        def embed(net: torch.nn.Module = net) -> None:
            with torch.no_grad():
                for b, s in zip(boards[:few], sizes[:few], strict=True):
                    board = torch.full((N_COMBOS, 5), 255, dtype=torch.long)
                    board[:, :s] = torch.from_numpy(b[:s])
                    net.embed(holes, board)  # type: ignore[operator]

        rates[name] = few / timed(embed)
    return rates


def end_queries(hands: SimulatedHands) -> RangeQuery:
    """Every seat's range after each hand's last action, a neighbour asking."""
    n, seats = len(hands), hands.seats
    rows = np.repeat(np.arange(n), seats)
    seat = np.tile(np.arange(seats), n)
    logs = hands.action_logs()
    board = np.where(
        np.arange(5)[None, :] < hands.shown[rows, None], hands.boards[rows].astype(np.int64), -1
    )
    return RangeQuery(
        hands.config,
        hands.stacks[rows],
        hands.button[rows],
        board,
        ActionLogs(
            logs.seat[rows],
            logs.move[rows],
            logs.amount[rows],
            logs.street[rows],
            logs.length[rows],
        ),
        seat.astype(np.int64),
        hands.hole_cards[rows, (seat + 1) % seats].astype(np.int64),
    )


def answer_rates(hands: SimulatedHands, reference_rows: int) -> dict[str, float]:
    """Queries per second of the oracle and of the exact posterior, batched and per query."""
    query = end_queries(hands)
    oracle = RangeOracle(OracleNet())
    rates = {"oracle": query.size / timed(lambda: oracle.ranges(query), 2)}
    pool = hands.pool
    logs = od._chunk_logs(hands, 0, len(hands), end_checks=True)
    weights = pool_mixture(pool.style_frequencies(), len(hands), hands.seats)

    def batched() -> None:
        label_decisions(pool.bank, hands.config, hands.stacks, hands.button,
                        hands.boards.astype(np.int64), logs, weights)  # fmt: skip

    rates["exact_batched"] = query.size / timed(batched)
    few = np.arange(min(reference_rows, query.size))
    subset = RangeQuery(
        query.config,
        query.starting_stacks[few],
        query.button[few],
        query.board[few],
        ActionLogs(*(a[few] for a in query.logs[:4]), query.logs.length[few]),  # type: ignore[call-arg]
        query.seat[few],
        query.dead[few],
    )
    exact = ExactPoolRanges(pool)
    rates["exact_per_query"] = few.size / timed(lambda: exact.ranges(subset))
    return rates


def training_rate(data: od.OracleData, steps: int) -> tuple[float, float]:
    """(hands, examples) per second of training steps on batches of 64 hands."""
    torch.manual_seed(0)
    net = OracleNet()
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)
    starts = obatch.example_starts(data)
    order = np.random.default_rng(0).permutation(data.hands)
    examples = 0
    steps = min(steps, data.hands // 64)
    started = time.perf_counter()
    for step in range(steps):
        batch = obatch.make_batch(data, order[step * 64 : (step + 1) * 64], starts)
        tensors = BatchTensors.of(batch, "cpu")
        loss = batch_loss(net(tensors), tensors, "all", 0.0).loss
        optimizer.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        optimizer.step()
        examples += batch.size
    seconds = time.perf_counter() - started
    return steps * 64 / seconds, examples / seconds


def main() -> None:
    args = parse_args(__doc__ or "")
    torch.set_num_threads(1)
    rng = np.random.default_rng(args.seed)
    boards = 300 if args.quick else 3000
    features = feature_rates(boards, rng)
    pool = load_pool("micro-zoom")
    hands = simulate(pool, 600 if args.quick else 2000, seed=args.seed + 1, tables=16)
    answers = answer_rates(hands, 60 if args.quick else 300)
    data = od.from_simulation(hands, exact=False, seed=args.seed)
    train_hands, train_examples = training_rate(data, 8 if args.quick else 30)
    if not args.json:
        print_table(
            "Per-combo features of one board (1,326 combos), one core",
            ["method", "boards/s", "kernel is"],
            [[name, rate, f"{features['kernel'] / rate:,.0f}x"] for name, rate in features.items()],
        )
        print_table(
            "Range queries (end-of-hand, micro-zoom), one core",
            ["method", "rows/s", "oracle is"],
            [[name, rate, f"{answers['oracle'] / rate:.2f}x"] for name, rate in answers.items()],
        )
        print_table(
            "Training, batches of 64 hands, one core",
            ["figure", "per second"],
            [["hands", train_hands], ["examples", train_examples]],
        )
    emit(
        {
            "features_boards_per_s": features,
            "ratio_kernel_vs_embed_1024": features["kernel"] / features["embed_1024"],
            "ratio_kernel_vs_reference": features["kernel"] / features["reference"],
            "answers_rows_per_s": answers,
            "ratio_oracle_vs_exact_per_query": answers["oracle"] / answers["exact_per_query"],
            "train_hands_per_s": train_hands,
            "train_examples_per_s": train_examples,
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
