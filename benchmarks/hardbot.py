"""HaRDBot speed: building the corpus, hand vectors, range updates and decisions.

Run from the repository root::

    python benchmarks/hardbot.py [--quick] [--seed N] [--json]

* ``corpus``: ``experiments.limit_corpus.build_corpus`` on the expert system's self-play
  (heads-up fixed-limit), with the same match played without recording as the peer.
* ``vectors``: one flop's ~1,100 opponent combos vectorized by ``board_vectors`` (shared
  samples, HaRDBot's bucketing path) against ``hand_vectors`` row by row (the corpus
  path), and one hand by ``hand_vectors`` against the exact ``equity.features`` reference.
* ``kmeans``: the numpy k-means HaRDBot uses against scikit-learn's ``KMeans`` on the same
  vectors (one thread).
* ``hardbot``: HaRDBot (corpus from the ``corpus`` step) against the expert system in a
  duplicate match: decisions per second, the mean cost of one range update, hands per
  second; the expert system's decisions per second in the same match as the peer.

The last line printed is one JSON object: ``corpus_hands_per_s``, ``corpus_play_only_hands_per_s``,
``corpus_vector_share``, ``board_vectors_ms``, ``row_vectors_ms``, ``ratio_board_vs_rows``,
``exact_flop_ms``, ``one_hand_ms``, ``kmeans_numpy_ms``, ``kmeans_sklearn_ms``,
``hardbot_decisions_per_s``, ``expert_decisions_per_s``, ``range_update_ms``,
``hardbot_hands_per_s``, ``quick``, ``seed``.
"""

from __future__ import annotations

import time

import numpy as np

from common import best_of, emit, parse_args, print_table
from poolshark.agents.hardbot import ExpertAgent, HaRDBot
from poolshark.agents.hardbot.corpus import Corpus
from poolshark.agents.hardbot.ranges import cluster
from poolshark.agents.hardbot.vectors import VECTOR, board_vectors, hand_vectors
from poolshark.cards.card import parse_cards
from poolshark.cards.combos import COMBO_CARDS
from poolshark.cards.ranges import Range
from poolshark.engine.config import Betting
from poolshark.equity.features import hand_features
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.experiments.limit_corpus import build_corpus


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    quick, seed = args.quick, args.seed
    show = print_table if not args.json else (lambda *_: None)
    corpus_hands = 2_000 if quick else 200_000
    match_hands = 60 if quick else 1_000

    build_corpus(hands=64, seed=seed, tables=16)  # compile and warm up
    built = build_corpus(hands=corpus_hands, seed=seed)
    peer = MatchConfig(
        seats=2, betting=Betting.FIXED_LIMIT, hands=corpus_hands, seed=seed, tables=2048
    )
    start = time.perf_counter()
    play_match([ExpertAgent(), ExpertAgent()], [0, 1], peer)
    play_only = corpus_hands / (time.perf_counter() - start)
    show(
        "corpus (expert self-play)",
        ["hands", "rows", "play s", "vectors s", "hands/s", "play-only hands/s"],
        [
            [
                built.hands,
                built.frame.height,
                built.play_seconds,
                built.vector_seconds,
                built.hands_per_second,
                play_only,
            ]
        ],
    )

    board = parse_cards("Qh7h2c")
    holes = COMBO_CARDS[[not set(c.tolist()) & set(board) for c in COMBO_CARDS]].astype(np.int64)
    padded = np.array([*board, -1, -1])
    boards = np.tile(padded, (len(holes), 1))
    repeats = 2 if quick else 5
    shared = best_of(lambda: board_vectors(holes, padded, seed=seed), repeats)
    rows = best_of(lambda: hand_vectors(holes, boards, samples=4, seed=seed), repeats)
    weights = np.random.default_rng(seed).random(1326)
    hole = [parse_cards("AhKd")]
    one = best_of(lambda: hand_vectors(hole, [padded], weights, samples=8), repeats)
    exact = best_of(lambda: hand_features(hole[0], board, Range(weights)), 1)
    vectors = board_vectors(holes, padded, seed=seed)[:, list(VECTOR)]
    mass = np.random.default_rng(seed).random(len(holes))
    numpy_km = best_of(lambda: cluster(vectors, mass, 5, seed), repeats)
    sklearn_km = best_of(lambda: cluster(vectors, mass, 5, seed, method="sklearn"), repeats)
    show(
        "vectors and buckets (one flop, ms)",
        ["what", "ms"],
        [
            [f"board_vectors, {len(holes)} combos", 1e3 * shared],
            [f"hand_vectors row by row, {len(holes)} combos", 1e3 * rows],
            ["hand_vectors, one hand vs a range", 1e3 * one],
            ["exact features, one hand vs a range", 1e3 * exact],
            ["k-means numpy (K=5)", 1e3 * numpy_km],
            ["k-means scikit-learn (K=5)", 1e3 * sklearn_km],
        ],
    )

    bot = HaRDBot(Corpus.from_frame(built.frame))
    expert = ExpertAgent()
    config = MatchConfig(
        seats=2,
        betting=Betting.FIXED_LIMIT,
        duplicate=True,
        hands=match_hands,
        seed=seed,
        tables=64,
    )
    result = play_match([bot, expert], [0, 1], config, names=["hardbot", "expert"])
    timings = bot.timings
    expert_result = result.agents[1]
    decisions_per_s = timings.decisions / timings.decision_seconds
    expert_per_s = expert_result.decisions / max(expert_result.agent_seconds, 1e-9)
    update_ms = 1e3 * timings.range_seconds / max(timings.range_updates, 1)
    hands_per_s = result.table_hands / result.seconds
    show(
        "HaRDBot against the expert system (duplicate)",
        ["hands", "decisions/s", "expert decisions/s", "range updates", "update ms", "hands/s"],
        [
            [
                result.table_hands,
                decisions_per_s,
                expert_per_s,
                timings.range_updates,
                update_ms,
                hands_per_s,
            ]
        ],
    )
    emit(
        {
            "corpus_hands_per_s": built.hands_per_second,
            "corpus_play_only_hands_per_s": play_only,
            "corpus_vector_share": built.vector_seconds / built.seconds,
            "board_vectors_ms": 1e3 * shared,
            "row_vectors_ms": 1e3 * rows,
            "ratio_board_vs_rows": rows / shared,
            "exact_flop_ms": 1e3 * exact,
            "one_hand_ms": 1e3 * one,
            "kmeans_numpy_ms": 1e3 * numpy_km,
            "kmeans_sklearn_ms": 1e3 * sklearn_km,
            "hardbot_decisions_per_s": decisions_per_s,
            "expert_decisions_per_s": expert_per_s,
            "range_update_ms": update_ms,
            "hardbot_hands_per_s": hands_per_s,
            "quick": quick,
            "seed": seed,
        }
    )


if __name__ == "__main__":
    main()
