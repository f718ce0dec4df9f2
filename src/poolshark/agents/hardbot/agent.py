"""The HaRDBot agent: a per-hand opponent distribution updated by corpus Bayes, a per-match
opponent model, and the expert system deciding against that distribution.

Each decision: the opponent's actions logged since HaRDBot's last look at that table update
the distribution (``ranges``: buckets and kernel postflop, hand by hand preflop, tilted by
the opponent model), HaRDBot's hand is vectorized against the distribution
(``vectors.hand_vectors`` with the weights) and the rules (``expert``) pick the move.

Actions that end a hand (a fold, the last call or check on the river) come after HaRDBot's
last decision: the opponent model counts them when the play loop shows the finished hand
(``hands_ended``, the agent protocol's hook), so every opponent action is counted once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path

import numpy as np
import numpy.typing as npt

from poolshark.agents.hardbot.corpus import Corpus
from poolshark.agents.hardbot.expert import ExpertRules, expert_moves
from poolshark.agents.hardbot.history import (
    bets_in_round,
    context_of,
    history_string,
    street_of,
)
from poolshark.agents.hardbot.ranges import (
    OpponentModel,
    RangeSettings,
    action_given_bucket,
    bayes_posterior,
    cluster,
    corpus_action_probabilities,
    history_prior,
    legal_mask,
    preflop_likelihoods,
    tilt,
)
from poolshark.agents.hardbot.vectors import VECTOR, board_vectors, combo_holes, hand_vectors
from poolshark.agents.protocol import AgentError, Decisions, EndedHands, Moves
from poolshark.cache import cache_dir
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS
from poolshark.engine.kernel import RAISE

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

DECISION_SAMPLES = 8
"""Monte Carlo samples per next card for HaRDBot's own hand vector."""
DEFAULT_CORPUS_NAME = "limit-corpus.parquet"


def default_corpus_path() -> Path:
    """Where :class:`DefaultHaRDBot` reads its corpus: ``limit-corpus.parquet`` in the
    project's cache folder (``poolshark.cache.cache_dir``)."""
    return cache_dir() / DEFAULT_CORPUS_NAME


@cache
def _shared_corpus(path: str, modified: float, seed: int) -> Corpus:
    """A corpus file read and grouped once per process (per path, version and seed)."""
    return Corpus.read(Path(path), seed=seed)


@dataclass
class HandState:
    """What HaRDBot keeps for the hand in play at one table."""

    hand_id: int
    seat: int
    weights: Floats
    processed: int = 0
    street_buckets: dict[int, tuple[Int64s, Int64s, Floats]] = field(default_factory=dict)


@dataclass
class Timings:
    """Counters for the speed figures: decisions, range updates and their seconds."""

    decisions: int = 0
    decision_seconds: float = 0.0
    range_updates: int = 0
    range_seconds: float = 0.0


def _card_free(cards: list[int]) -> npt.NDArray[np.bool_]:
    """(1326,) combos that use none of ``cards``."""
    dead = np.zeros(52, dtype=np.bool_)
    dead[cards] = True
    free: npt.NDArray[np.bool_] = ~(dead[COMBO_CARDS[:, 0]] | dead[COMBO_CARDS[:, 1]])
    return free


class HaRDBot:
    """HaRDBot for heads-up fixed-limit hold'em (``act(decisions)``, any number of tables).

    ``corpus`` None is the uniform prior (no corpus ablation); ``settings`` holds the other
    ablation switches (opponent model, bucket count K). One instance keeps one opponent
    model: use a fresh instance per match (and one per seat in self-play).
    """

    def __init__(
        self,
        corpus: Corpus | None = None,
        settings: RangeSettings | None = None,
        rules: ExpertRules | None = None,
        *,
        decision_samples: int = DECISION_SAMPLES,
    ) -> None:
        self.settings = settings or RangeSettings()
        if corpus is None or not self.settings.use_corpus:
            corpus = None
        self.corpus = corpus
        self.rules = rules or ExpertRules()
        self.decision_samples = decision_samples
        self.model = OpponentModel(self.settings.prior_observations)
        self.hands: dict[tuple[int, int], HandState] = {}
        self.timings = Timings()

    @classmethod
    def from_corpus(
        cls,
        path: Path,
        settings: RangeSettings | None = None,
        rules: ExpertRules | None = None,
        *,
        max_entries: int = 20_000,
    ) -> HaRDBot:
        """HaRDBot reading its corpus from a Parquet file (``experiments.limit_corpus``)."""
        seed = (settings or RangeSettings()).seed
        return cls(Corpus.read(path, max_entries=max_entries, seed=seed), settings, rules)

    # -- the agent protocol --------------------------------------------------------------------

    def act(self, decisions: Decisions) -> Moves:
        """Update each table's opponent distribution from the new actions, then decide."""
        start = time.perf_counter()
        moves = np.zeros(decisions.size, dtype=np.int64)
        amounts = np.zeros(decisions.size, dtype=np.int64)
        for row in range(decisions.size):
            table, seat = int(decisions.tables[row]), int(decisions.seats[row])
            state = self._state(table, int(decisions.hand_ids[row]), seat)
            actions = decisions.batch.actions(table)
            hole = [int(c) for c in decisions.hole_cards[row]]
            board = decisions.board[row]
            self._remove_dead(state, hole + [int(c) for c in board if c >= 0])
            self._catch_up(state, actions, board)
            moves[row] = self._decide(decisions, row, state, actions)
            if moves[row] == RAISE:
                amounts[row] = decisions.min_raise_to[row]
            state.processed = len(actions) + 1
        self.timings.decisions += decisions.size
        self.timings.decision_seconds += time.perf_counter() - start
        return Moves(moves, amounts)

    def hands_ended(self, ended: EndedHands) -> None:
        """Count the opponent's actions that no decision of ours saw: those after our last
        one in each hand that ended (the fold or call that closed it, a hand we never acted
        in), from the play loop's ``hands_ended``."""
        for row in range(ended.size):
            table, hand_id = int(ended.tables[row]), int(ended.hand_ids[row])
            actions = ended.actions(row)
            moves = [a[1] for a in actions]
            streets = [a[3] for a in actions]
            for seat in np.flatnonzero(ended.owners[row] == ended.agent).tolist():
                state = self.hands.get((table, seat))
                seen = state.processed if state is not None and state.hand_id == hand_id else 0
                for index in range(seen, len(actions)):
                    actor, move, _amount, street = actions[index]
                    if actor != seat:
                        history = history_string(moves[:index], streets[:index], street)
                        self.model.observe(context_of(history), move)

    def opponent_range(self, table: int, seat: int) -> Floats:
        """(1326,) the distribution over the hand of the opponent of ``seat`` at ``table``
        (normalized), as HaRDBot left it at its last decision there."""
        weights = self.hands[(table, seat)].weights
        total = weights.sum()
        return weights / total if total > 0 else weights.copy()

    # -- per-hand state ------------------------------------------------------------------------

    def _state(self, table: int, hand_id: int, seat: int) -> HandState:
        state = self.hands.get((table, seat))
        if state is not None and state.hand_id == hand_id:
            return state
        state = HandState(hand_id, seat, np.ones(N_COMBOS))
        self.hands[(table, seat)] = state
        return state

    def _remove_dead(self, state: HandState, cards: list[int]) -> None:
        """Card removal (our cards, the board), then pruning of negligible combos."""
        weights = state.weights
        weights[~_card_free(cards)] = 0.0
        peak = weights.max(initial=0.0)
        if peak > 0:
            weights[weights < self.settings.prune * peak] = 0.0

    def _catch_up(
        self, state: HandState, actions: list[tuple[int, int, int, int]], board: Int64s
    ) -> None:
        """Apply the opponent's actions logged since this seat last acted (``board``: the
        five board slots now, -1 for cards not dealt)."""
        moves = [a[1] for a in actions]
        streets = [a[3] for a in actions]
        for index in range(state.processed, len(actions)):
            seat, move, _amount, street = actions[index]
            if seat == state.seat:
                continue
            history = history_string(moves[:index], streets[:index], street)
            started = time.perf_counter()
            self._update(state, history, move, board, index)
            self.model.observe(context_of(history), move)
            self.timings.range_updates += 1
            self.timings.range_seconds += time.perf_counter() - started

    def _update(
        self,
        state: HandState,
        history: str,
        move: int,
        board: Int64s,
        index: int,
    ) -> None:
        """Bayes on the opponent distribution for the action ``move`` taken at ``history``."""
        corpus, settings = self.corpus, self.settings
        if corpus is None:
            return  # uniform prior: every hand acts alike, the action says nothing
        mask = legal_mask(history)
        context = context_of(history)
        corpus_p = corpus_action_probabilities(corpus, context, mask)
        opponent_p = (
            self.model.probabilities(context, corpus_p) if settings.use_opponent_model else corpus_p
        )
        live = np.flatnonzero(state.weights > 0)
        street = street_of(history)
        if street == 0:
            likelihoods = preflop_likelihoods(corpus, history, live, mask, settings.smoothing)
            likelihoods = tilt(likelihoods, opponent_p, corpus_p, mask)
            buckets = np.arange(live.size)
        else:
            entries = corpus.entries.get(history)
            if entries is None:
                return  # no corpus entry at this history: no evidence either way
            street_board = np.where(np.arange(5) < (0, 3, 4, 5)[street], board, -1)
            buckets, centers = self._buckets(state, street, live, street_board)
            prior = history_prior(corpus, history, mask)
            likelihoods = action_given_bucket(
                centers, entries, prior, mask, settings.bandwidth, settings.smoothing
            )
            likelihoods = tilt(likelihoods, opponent_p, corpus_p, mask)
        posterior = bayes_posterior(state.weights[live], buckets, likelihoods[:, move])
        state.weights[live] = posterior

    def _buckets(
        self, state: HandState, street: int, live: Int64s, board: Int64s
    ) -> tuple[Int64s, Floats]:
        """(bucket of each live combo, centroids) on this street. The live combos' vectors
        (E, E2, PPOT, NPOT against a random hand, as the corpus stores them) and their
        k-means are computed at the street's first update and kept for the street."""
        cached = state.street_buckets.get(street)
        if cached is None or not np.isin(live, cached[0]).all():
            settings = self.settings
            vectors = board_vectors(
                combo_holes(live), board, samples=settings.samples, seed=settings.seed + street
            )[:, list(VECTOR)]
            labels, centers = cluster(
                vectors,
                state.weights[live],
                settings.buckets,
                settings.seed + street,
                method=settings.kmeans,
            )
            cached = (live, labels, centers)
            state.street_buckets[street] = cached
        combos, labels, centers = cached
        return labels[np.searchsorted(combos, live)], centers

    # -- deciding ------------------------------------------------------------------------------

    def _decide(
        self,
        decisions: Decisions,
        row: int,
        state: HandState,
        actions: list[tuple[int, int, int, int]],
    ) -> int:
        """The expert system's move against the current distribution."""
        hole = [int(c) for c in decisions.hole_cards[row]]
        board_row = decisions.board[row]
        street = int(decisions.street[row])
        weights = state.weights
        history = history_string([a[1] for a in actions], [a[3] for a in actions], street)
        vector = hand_vectors(
            [hole],
            [board_row],
            weights if weights.sum() > 0 else None,
            samples=self.decision_samples,
            seed=int(decisions.rng.integers(1 << 31)),
        )
        move, _ = expert_moves(
            vector,
            np.array([street]),
            [int(decisions.pot[row])],
            [int(decisions.call[row])],
            np.array([bets_in_round(history)]),
            np.array([decisions.min_raise_to[row] >= 0]),
            decisions.rng.random((1, 3)),
            self.rules,
        )
        return int(move[0])


def ablations(
    corpus: Corpus, buckets: tuple[int, ...] = (3, 5, 8)
) -> dict[str, Callable[[], HaRDBot]]:
    """Factories of the issue's HaRDBot variants on one corpus (a fresh bot per match):
    ``hardbot`` (K = 5), ``hardbot-no-corpus`` (uniform prior), ``hardbot-no-model`` (no
    opponent-specific update) and ``hardbot-kK`` for each K in ``buckets``."""
    variants: dict[str, Callable[[], HaRDBot]] = {
        "hardbot": lambda: HaRDBot(corpus),
        "hardbot-no-corpus": lambda: HaRDBot(None),
        "hardbot-no-model": lambda: HaRDBot(corpus, RangeSettings(use_opponent_model=False)),
    }
    for k in buckets:
        variants[f"hardbot-k{k}"] = partial(HaRDBot, corpus, RangeSettings(buckets=k))
    return variants


class DefaultHaRDBot(HaRDBot):
    """HaRDBot (default settings) on the corpus at :func:`default_corpus_path`, built with
    no arguments so that the spec ``poolshark.agents.hardbot:DefaultHaRDBot`` loads it; the
    corpus is read once per process."""

    def __init__(self) -> None:
        path = default_corpus_path()
        if not path.is_file():
            raise AgentError(
                f"HaRDBot needs its corpus at {path}: build one with "
                "poolshark.experiments.limit_corpus.build_default_corpus()"
            )
        settings = RangeSettings()
        corpus = _shared_corpus(str(path), path.stat().st_mtime, settings.seed)
        super().__init__(corpus, settings)
