"""Seven-card evaluations per second: poolshark next to eval7, phevaluator and treys.

Run from the repository root::

    python benchmarks/evaluator.py [--quick] [--seed N] [--json]

Every evaluator scores the same pre-generated random seven-card hands (``--seed``). The
poolshark batch kernel takes all of them (10 M; 2 M with ``--quick``), best of three runs
after a warm-up call that loads or compiles the numba code. Evaluators called once per hand
from Python take a prefix of the same hands, sized from a short pilot run so each timed run
lasts about 1.5 s (0.25 s with ``--quick``); their inputs are converted to each library's
own card type before the clock starts. Each one's answers are checked against the batch
values: a peer agrees when its values order the hands exactly as ours do (one of its values
per one of ours, and the same winner of every pair of hands).

The last line printed is one JSON object with these keys (rates are evaluations per second):

* ``poolshark_batch_1core_per_s``: ``evaluate_batch(hands, threads=1)``.
* ``poolshark_batch_all_cores_per_s``: ``evaluate_batch(hands, threads=None)``.
* ``poolshark_scalar_per_s``: ``evaluate_indices(hand)`` in a Python loop.
* ``eval7_per_s``: ``eval7.evaluate(cards)`` in a Python loop.
* ``phevaluator_per_s``: ``phevaluator.evaluate_cards(*cards)`` in a Python loop.
* ``treys_per_s``: ``treys.Evaluator().evaluate(board, hand)`` in a Python loop.
* ``ratio_batch_vs_eval7``, ``ratio_batch_vs_phevaluator``, ``ratio_batch_vs_treys``:
  one-core batch rate over the peer's rate.
* ``agree_with_eval7``, ``agree_with_phevaluator``, ``agree_with_treys``: the peer orders
  its hands exactly as poolshark does.
* ``scalar_matches_batch``: the scalar loop returns the batch values exactly.
* ``poolshark_first_call_s``: the warm-up call (numba cache load or compile), in seconds.
* ``hands_batch``: hands in the batch runs; ``hands_eval7``, ``hands_phevaluator``,
  ``hands_treys``, ``hands_scalar``: the prefix each Python loop timed.
* ``cores``: cores the all-cores run used; ``quick`` and ``seed``: the options given.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import eval7
import numba
import numpy as np
import numpy.typing as npt
import treys
from phevaluator import evaluate_cards
from phevaluator.card import Card as PhCard

from common import best_of, emit, parse_args, print_table, random_hands
from poolshark.cards.card import N_CARDS, format_card
from poolshark.cards.evaluator import evaluate_batch, evaluate_indices

HAND_SIZE = 7
Rows = Sequence[Sequence[int]]
Loop = Callable[[], list[int]]


@dataclass(frozen=True)
class Peer:
    """An evaluator called once per hand from Python.

    ``prepare`` converts hands (lists of our card indices) to the library's own cards and
    returns the timed loop, which gives one value per hand. ``higher_is_better`` tells how
    to compare its values with ours.
    """

    name: str
    key: str
    prepare: Callable[[Rows], Loop]
    higher_is_better: bool


@dataclass(frozen=True)
class Result:
    """One timed run: how many hands, how long, and the values it returned."""

    hands: int
    seconds: float
    values: npt.NDArray[np.int64]

    @property
    def per_s(self) -> float:
        """Evaluations per second."""
        return self.hands / self.seconds


def poolshark_scalar(rows: Rows) -> Loop:
    """Our scalar entry point on each hand's card indices."""
    evaluate = evaluate_indices
    return lambda: [evaluate(row) for row in rows]


def eval7_loop(rows: Rows) -> Loop:
    """eval7 on lists of its Card objects (52 built once, shared by all hands)."""
    cards = [eval7.Card(format_card(c)) for c in range(N_CARDS)]
    hands = [[cards[c] for c in row] for row in rows]
    evaluate = eval7.evaluate
    return lambda: [evaluate(hand) for hand in hands]


def phevaluator_loop(rows: Rows) -> Loop:
    """phevaluator on its card ids, which are our indices (checked by ``check_encodings``)."""
    hands = [tuple(row) for row in rows]
    evaluate = evaluate_cards
    return lambda: [evaluate(*hand) for hand in hands]


def treys_loop(rows: Rows) -> Loop:
    """treys on its card ints, five as the board and two as the hole cards."""
    cards = [treys.Card.new(format_card(c)) for c in range(N_CARDS)]
    hands = [([cards[c] for c in row[:5]], [cards[c] for c in row[5:]]) for row in rows]
    evaluate = treys.Evaluator().evaluate
    return lambda: [evaluate(board, hole) for board, hole in hands]


PEERS = (
    Peer("poolshark scalar (Python loop)", "scalar", poolshark_scalar, higher_is_better=True),
    Peer("eval7", "eval7", eval7_loop, higher_is_better=True),
    Peer("phevaluator", "phevaluator", phevaluator_loop, higher_is_better=False),
    Peer("treys", "treys", treys_loop, higher_is_better=False),
)


def check_encodings() -> None:
    """Stop if phevaluator's card ids ever stop being our card indices."""
    for card in range(N_CARDS):
        if PhCard(card).describe_card() != format_card(card):
            raise SystemExit(f"phevaluator card {card} is not {format_card(card)}")


def same_order(ours: npt.NDArray[np.integer], theirs: npt.NDArray[np.integer]) -> bool:
    """Whether ``theirs`` (higher is better) orders the hands exactly as ``ours`` does.

    True when the two are strictly increasing functions of each other: every pair of
    hands then has the same winner, or ties, under both.
    """
    pairs = np.unique(np.column_stack([ours, theirs]).astype(np.int64), axis=0)
    one_to_one = np.unique(ours).size == pairs.shape[0] == np.unique(theirs).size
    return bool(one_to_one and np.all(np.diff(pairs[:, 1]) > 0))


def timed(loop: Loop, hands: int, repeats: int) -> Result:
    """Best of ``repeats`` runs of ``loop``, keeping the values of the last one."""
    kept: list[list[int]] = []

    def run() -> None:
        kept[:] = [loop()]

    seconds = best_of(run, repeats)
    return Result(hands, seconds, np.array(kept[0], dtype=np.int64))


def time_peer(peer: Peer, rows: Rows, target_s: float, repeats: int) -> Result:
    """Time ``peer`` on a prefix of ``rows`` long enough for about ``target_s`` a run."""
    pilot = min(1_000, len(rows))
    pilot_s = best_of(peer.prepare(rows[:pilot]), 1)
    while pilot_s < target_s / 20 and pilot < len(rows):
        pilot = min(4 * pilot, len(rows))
        pilot_s = best_of(peer.prepare(rows[:pilot]), 1)
    size = int(min(len(rows), max(pilot, target_s * pilot / pilot_s)))
    return timed(peer.prepare(rows[:size]), size, repeats)


def main() -> None:
    """Measure, print the table and the JSON line."""
    args = parse_args(__doc__.splitlines()[0])
    n_batch = 2_000_000 if args.quick else 10_000_000
    target_s = 0.25 if args.quick else 1.5
    peer_cap = 500_000 if args.quick else 3_000_000
    repeats = 1 if args.quick else 2
    check_encodings()

    hands = random_hands(n_batch, HAND_SIZE, args.seed)
    start = time.perf_counter()
    evaluate_batch(hands[:1_000], threads=1)
    evaluate_batch(hands[:1_000], threads=None)
    first_call_s = time.perf_counter() - start

    cores = numba.get_num_threads()
    batch_values = evaluate_batch(hands, threads=1).astype(np.int64)
    one_core = Result(n_batch, best_of(lambda: evaluate_batch(hands, threads=1), 3), batch_values)
    all_cores_s = best_of(lambda: evaluate_batch(hands, threads=None), 3)
    all_cores = Result(n_batch, all_cores_s, batch_values)

    rows = hands[:peer_cap].tolist()
    peers = {peer.key: time_peer(peer, rows, target_s, repeats) for peer in PEERS}
    agree: dict[str, bool] = {}
    for peer in PEERS:
        result = peers[peer.key]
        theirs = result.values if peer.higher_is_better else -result.values
        agree[peer.key] = same_order(batch_values[: result.hands], theirs)
    scalar_exact = bool(
        np.array_equal(peers["scalar"].values, batch_values[: peers["scalar"].hands])
    )

    def ratio(result: Result) -> float:
        return one_core.per_s / result.per_s

    if not args.json:
        table_rows: list[list[object]] = []
        named = [
            ("poolshark batch (1 core)", one_core, True),
            (f"poolshark batch ({cores} cores)", all_cores, True),
        ] + [(peer.name, peers[peer.key], agree[peer.key]) for peer in PEERS]
        for name, result, agrees in named:
            table_rows.append(
                [
                    name,
                    result.hands,
                    result.seconds,
                    result.per_s / 1e6,
                    f"{ratio(result):,.1f}x",
                    agrees,
                ]
            )
        print_table(
            f"Random 7-card hands, seed {args.seed}{' (quick)' if args.quick else ''}",
            ["evaluator", "hands", "seconds", "M evals/s", "1-core batch is", "same order"],
            table_rows,
        )

    emit(
        {
            "poolshark_batch_1core_per_s": one_core.per_s,
            "poolshark_batch_all_cores_per_s": all_cores.per_s,
            "poolshark_scalar_per_s": peers["scalar"].per_s,
            "eval7_per_s": peers["eval7"].per_s,
            "phevaluator_per_s": peers["phevaluator"].per_s,
            "treys_per_s": peers["treys"].per_s,
            "ratio_batch_vs_eval7": ratio(peers["eval7"]),
            "ratio_batch_vs_phevaluator": ratio(peers["phevaluator"]),
            "ratio_batch_vs_treys": ratio(peers["treys"]),
            "agree_with_eval7": agree["eval7"],
            "agree_with_phevaluator": agree["phevaluator"],
            "agree_with_treys": agree["treys"],
            "scalar_matches_batch": scalar_exact,
            "poolshark_first_call_s": first_call_s,
            "hands_batch": n_batch,
            "hands_scalar": peers["scalar"].hands,
            "hands_eval7": peers["eval7"].hands,
            "hands_phevaluator": peers["phevaluator"].hands,
            "hands_treys": peers["treys"].hands,
            "cores": cores,
            "quick": args.quick,
            "seed": args.seed,
        }
    )


if __name__ == "__main__":
    main()
