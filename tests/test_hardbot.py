"""HaRDBot: vectors against the exact reference, histories, the corpus, the range updates
(Bayes, kernel, opponent model) and full fixed-limit matches."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.agents.hardbot import ExpertAgent, ExpertRules, HaRDBot, RangeSettings
from poolshark.agents.hardbot.corpus import (
    Corpus,
    CorpusError,
    Entries,
    decisions_at,
    read_corpus,
    write_corpus,
)
from poolshark.agents.hardbot.expert import RULES, expert_moves
from poolshark.agents.hardbot.history import (
    bets_in_round,
    context_of,
    facing_bet,
    history_string,
    legal_chars,
    role_to_act,
    street_of,
)
from poolshark.agents.hardbot.ranges import (
    OpponentModel,
    action_given_bucket,
    bayes_posterior,
    cluster,
    kernel_weights,
    tilt,
)
from poolshark.agents.hardbot.vectors import board_vectors, hand_vectors
from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import AgentError, Decisions, Moves
from poolshark.cards.card import parse_cards
from poolshark.cards.combos import COMBO_CARDS
from poolshark.cards.ranges import Range
from poolshark.engine.kernel import CHECK_CALL, FOLD, RAISE
from poolshark.equity.features import hand_features
from poolshark.evaluate.match import FinishedHands, MatchConfig, play_match
from poolshark.experiments.limit_corpus import build_corpus


def _reference(hole: str, board: str, weights: np.ndarray) -> np.ndarray:
    f = hand_features(parse_cards(hole), parse_cards(board), Range(weights))
    return np.array([f.strength, f.e, f.e2, f.ppot, f.npot])


def _board(text: str) -> np.ndarray:
    cards = parse_cards(text)
    return np.array(cards + [-1] * (5 - len(cards)))


# -- vectors -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hole", "board"), [("AhKd", "Qh7h2c"), ("7c6c", "8c9d2h"), ("AhKd", "Qh7h2cJs")]
)
def test_vectors_agree_with_the_exact_reference(hole: str, board: str) -> None:
    weights = np.random.default_rng(3).random(1326)
    exact = _reference(hole, board, weights)
    sampled = hand_vectors([parse_cards(hole)], [_board(board)], weights, samples=300)[0]
    np.testing.assert_allclose(sampled, exact, atol=0.02)


@pytest.mark.parametrize(("hole", "board"), [("AhKd", "Qh7h2c"), ("7c6c", "8c9d2hTs")])
def test_vectors_against_a_random_hand_agree_with_the_reference(hole: str, board: str) -> None:
    exact = _reference(hole, board, np.ones(1326))
    sampled = hand_vectors([parse_cards(hole)], [_board(board)], samples=300)[0]
    np.testing.assert_allclose(sampled, exact, atol=0.02)


def test_river_vectors_are_exact_on_both_paths() -> None:
    weights = np.random.default_rng(4).random(1326)
    exact = _reference("AhKd", "Qh7h2cJs5d", weights)
    one = hand_vectors([parse_cards("AhKd")], [_board("Qh7h2cJs5d")], weights)[0]
    many = board_vectors([parse_cards("AhKd"), parse_cards("3s3c")], _board("Qh7h2cJs5d"), weights)
    np.testing.assert_allclose(one, exact, atol=1e-12)
    np.testing.assert_allclose(many[0], exact, atol=1e-12)


@pytest.mark.parametrize(("board", "hands"), [("Qh7h2c", 2), ("Qh7h2cJs", 8)])
def test_board_vectors_agree_with_the_reference_on_average(board: str, hands: int) -> None:
    weights = np.random.default_rng(5).random(1326)
    cards = parse_cards(board)
    holes = [h for h in COMBO_CARDS[::97].tolist() if not set(h) & set(cards)][:hands]
    sampled = board_vectors(holes, _board(board), weights, samples=128)
    exact = np.array([_reference_cards(h, cards, weights) for h in holes])
    assert np.abs(sampled - exact).mean() < 0.015


def _reference_cards(hole: list[int], board: list[int], weights: np.ndarray) -> np.ndarray:
    f = hand_features(hole, board, Range(weights))
    return np.array([f.strength, f.e, f.e2, f.ppot, f.npot])


def test_vectors_are_reproducible_and_preflop_is_an_equity() -> None:
    holes, boards = [parse_cards("AsAd")], [np.full(5, -1)]
    first = hand_vectors(holes, boards, seed=7)
    np.testing.assert_array_equal(first, hand_vectors(holes, boards, seed=7))
    assert 0.8 < first[0, 1] < 0.9  # aces against a random hand: 85%
    assert first[0, 2] == pytest.approx(first[0, 1] ** 2)


# -- histories -----------------------------------------------------------------------------------


def test_histories_roles_and_legal_actions() -> None:
    assert history_string([2, 1, 1, 2], [0, 0, 1, 1], 1) == "rc/cr"
    assert history_string([2, 1], [0, 0], 1) == "rc/"
    assert street_of("rc/cr") == 1
    assert role_to_act("") == "button"
    assert role_to_act("rc/") == "bb"
    assert role_to_act("rc/cr") == "bb"
    assert facing_bet("")
    assert not facing_bet("c")
    assert facing_bet("cr")
    assert not facing_bet("rc/")
    assert facing_bet("rc/r")
    assert bets_in_round("rrr") == 4
    assert legal_chars("rrr") == "fc"
    assert legal_chars("rc/") == "cr"
    assert legal_chars("rc/r") == "fcr"
    assert context_of("rc/cr") == "1|bb|1|bet"


# -- Bayes, kernel, opponent model ---------------------------------------------------------------


def test_bayes_update_on_a_hand_computed_case() -> None:
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    buckets = np.array([0, 0, 1, 1])
    likelihood = np.array([0.8, 0.2])  # P(raise | bucket)
    # P(b) = (0.3, 0.7); P(b | raise) = (0.24, 0.14) / 0.38; P(h | a) = P(b | a) / P(b) P(h).
    expected = np.array([0.08, 0.16, 0.06, 0.08]) / 0.38
    np.testing.assert_allclose(bayes_posterior(prior, buckets, likelihood), expected)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(0.01, 1.0), min_size=2, max_size=8),
    # a likelihood is 0 or a normal float: near 5e-324 the brute force's own products
    # underflow to subnormals and lose every digit (hypothesis found [0.0, 5e-324])
    st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 1.0)), min_size=2, max_size=2),
    st.data(),
)
def test_bayes_update_matches_brute_force(
    prior: list[float], likelihood: list[float], data: st.DataObject
) -> None:
    buckets = np.array(
        data.draw(st.lists(st.integers(0, 1), min_size=len(prior), max_size=len(prior)))
    )
    p = np.array(prior) / sum(prior)
    lik = np.array(likelihood)
    # Brute force: the joint P(hand, action) over every hand, then condition on the action.
    joint = np.array([p[h] * lik[buckets[h]] for h in range(len(p))])
    posterior = bayes_posterior(np.array(prior), buckets, lik)
    if joint.sum() > 0:
        np.testing.assert_allclose(posterior, joint / joint.sum(), atol=1e-12)
    else:
        np.testing.assert_allclose(posterior, p)


def test_kernel_weights_and_kernel_estimate() -> None:
    buckets = np.array([[0.5, 0.3, 0.1, 0.1]])
    entries = np.array([[0.5, 0.3, 0.1, 0.1], [0.5, 0.6, 0.5, 0.1]])  # distance 0 and 0.5
    weights = kernel_weights(buckets, entries, bandwidth=0.25)
    np.testing.assert_allclose(weights, [[1.0, np.exp(-2.0)]])
    table = Entries(entries, np.array([RAISE, CHECK_CALL], dtype=np.int8))
    mask = np.array([1.0, 1.0, 1.0])
    p = action_given_bucket(buckets, table, np.ones(3) / 3, mask, 0.25, smoothing=0.0)
    total = 1.0 + np.exp(-2.0)
    np.testing.assert_allclose(p, [[0.0, np.exp(-2.0) / total, 1.0 / total]])


def test_opponent_model_prior_is_six_observations_of_the_corpus_estimate() -> None:
    corpus = np.array([0.2, 0.5, 0.3])
    model = OpponentModel()
    np.testing.assert_allclose(model.probabilities("ctx", corpus), corpus)
    for _ in range(6):
        model.observe("ctx", RAISE)
    # (6 * 0.3 + 6) / (6 + 6): six pseudo-observations weigh as much as six real ones.
    np.testing.assert_allclose(model.probabilities("ctx", corpus), [0.1, 0.25, 0.65])
    for _ in range(2000):
        model.observe("ctx", FOLD)
    assert model.probabilities("ctx", corpus)[FOLD] > 0.99
    np.testing.assert_allclose(model.probabilities("other", corpus), corpus)


def test_tilt_is_neutral_for_a_mean_opponent_and_normalizes_per_bucket() -> None:
    likelihoods = np.array([[0.2, 0.5, 0.3], [0.1, 0.3, 0.6]])
    corpus = np.array([0.2, 0.4, 0.4])
    mask = np.ones(3)
    np.testing.assert_allclose(tilt(likelihoods, corpus, corpus, mask), likelihoods)
    tilted = tilt(likelihoods, np.array([0.2, 0.2, 0.6]), corpus, mask)
    ratio = np.array([1.0, 0.5, 1.5])
    expected = likelihoods * ratio / (likelihoods * ratio).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(tilted, expected)


def test_numpy_kmeans_finds_the_same_clusters_as_sklearn() -> None:
    rng = np.random.default_rng(0)
    centres = np.array([[0.1, 0.1, 0.0, 0.0], [0.9, 0.8, 0.3, 0.1], [0.5, 0.3, 0.6, 0.2]])
    points = np.concatenate([c + 0.02 * rng.standard_normal((40, 4)) for c in centres])
    weights = rng.random(len(points))
    fast, _ = cluster(points, weights, 3, seed=1)
    reference, _ = cluster(points, weights, 3, seed=1, method="sklearn")
    pairs = {(int(a), int(b)) for a, b in zip(fast, reference, strict=True)}
    assert len(pairs) == 3  # the same partition up to relabelling


def test_expert_rules_raise_strength_fold_weakness_check_free() -> None:
    vectors = np.array([[0.95, 0.95, 0.9, 0.0, 0.0], [0.05, 0.05, 0.01, 0.0, 0.0]] * 2)
    street = np.array([3, 3, 3, 3])
    call = np.array([4, 4, 0, 0])
    moves, fired = expert_moves(
        vectors,
        street,
        np.array([20, 20, 20, 20]),
        call,
        np.array([1, 1, 0, 0]),
        np.array([True, True, True, True]),
        np.full((4, 3), 0.99),  # only rules that always fire may fire
        ExpertRules(value_probability=1.0),
    )
    assert moves.tolist() == [RAISE, FOLD, RAISE, CHECK_CALL]
    assert RULES[fired[0]] == "value raise"
    assert fired[1] == -1


# -- the corpus ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pairings = [("poolshark.agents.hardbot:ExpertAgent", "station"), ("random", "station")]
    build = build_corpus(pairings, hands=300, seed=1, tables=64)
    assert build.hands >= 600
    return write_corpus(build.frame, tmp_path_factory.mktemp("corpus") / "corpus.parquet")


def test_corpus_round_trips_and_is_queryable_by_history(small_corpus: Path) -> None:
    frame = read_corpus(small_corpus)
    again = read_corpus(write_corpus(frame, small_corpus.with_name("again.parquet")))
    assert again.equals(frame)
    assert frame.select((pl.col("history").str.count_matches("/") == pl.col("street")).all()).item()
    roles = [role_to_act(h) for h in frame["history"].to_list()]
    assert roles == frame["role"].to_list()
    opening = decisions_at(frame, "")
    assert opening.height == frame["hand_id"].n_unique()  # every hand opens with the button
    assert set(opening["role"].to_list()) == {"button"}
    post = frame.filter(pl.col("street") > 0)
    assert post.select(pl.col("e").is_between(0, 1).all()).item()
    corpus = Corpus.from_frame(frame)
    assert corpus.rows == frame.height
    assert corpus.history_counts[""].sum() == opening.height


def test_corpus_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="no corpus file"):
        read_corpus(tmp_path / "missing.parquet")
    pl.DataFrame({"hand_id": [1]}).write_parquet(tmp_path / "bad.parquet")
    with pytest.raises(CorpusError, match="missing columns"):
        read_corpus(tmp_path / "bad.parquet")


# -- the agent -----------------------------------------------------------------------------------


def test_corpus_moves_the_range_and_the_uniform_prior_does_not(small_corpus: Path) -> None:
    config = MatchConfig(seats=2, betting="fixed-limit", hands=8, tables=8, seed=2)
    with_corpus = HaRDBot.from_corpus(small_corpus)
    uniform = HaRDBot(None)
    for bot in (with_corpus, uniform):
        play_match([bot, load_agent("random")], [0, 1], config)
    assert with_corpus.timings.range_updates > 0
    moved = [s.weights for s in with_corpus.hands.values()]
    still = [s.weights for s in uniform.hands.values()]
    assert any(len(np.unique(w[w > 0])) > 1 for w in moved)
    assert all(len(np.unique(w[w > 0])) == 1 for w in still)


def test_hardbot_beats_random_in_a_duplicate_match(small_corpus: Path) -> None:
    bot = HaRDBot.from_corpus(small_corpus, RangeSettings(buckets=3))
    config = MatchConfig(seats=2, betting="fixed-limit", duplicate=True, hands=200, tables=50)
    result = play_match([bot, load_agent("random")], [0, 1], config)
    hardbot, rand = result.agents
    assert hardbot.won_chips + rand.won_chips == 0
    assert hardbot.coerced == 0
    low, _ = hardbot.actual.interval
    assert low > 0


def test_expert_agent_plays_clean_fixed_limit() -> None:
    config = MatchConfig(seats=2, betting="fixed-limit", duplicate=True, hands=64, tables=16)
    result = play_match([ExpertAgent(), load_agent("station")], [0, 1], config)
    assert result.agents[0].coerced == 0
    assert result.agents[0].won_chips + result.agents[1].won_chips == 0


def test_opponent_model_counts_only_the_opponents_actions(small_corpus: Path) -> None:
    bot = HaRDBot.from_corpus(small_corpus)
    config = MatchConfig(seats=2, betting="fixed-limit", hands=16, tables=16, seed=3)
    play_match([bot, load_agent("station")], [0, 1], config)
    counts = np.sum(list(bot.model.counts.values()), axis=0)
    assert counts[CHECK_CALL] > 0
    assert counts[FOLD] == 0  # the station never folds and never raises: nothing of
    assert counts[RAISE] == 0  # HaRDBot's own is counted as the opponent's


def test_opponent_model_learns_folds_to_bets_after_the_hand() -> None:
    class Folder:
        """Checks when free, folds to any bet."""

        def act(self, decisions: Decisions) -> Moves:
            return Moves(np.where(decisions.call > 0, FOLD, CHECK_CALL))

    bot = HaRDBot(None, rules=ExpertRules(raise_at=(0.0, 0.0, 0.0, 0.0)))  # always bets
    config = MatchConfig(seats=2, betting="fixed-limit", hands=32, tables=8, seed=4)
    play_match([bot, Folder()], [0, 1], config)
    folds = sum(c[FOLD] for c in bot.model.counts.values())
    assert folds > 0


def test_default_hardbot_loads_by_spec_from_the_cache_folder(
    small_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POOLSHARK_CACHE_DIR", str(tmp_path))
    spec = "poolshark.agents.hardbot:DefaultHaRDBot"
    with pytest.raises(AgentError, match="needs its corpus"):
        load_agent(spec)
    (tmp_path / "limit-corpus.parquet").write_bytes(small_corpus.read_bytes())
    bot = load_agent(spec)
    assert isinstance(bot, HaRDBot)
    assert bot.corpus is not None


def test_opponent_model_counts_every_opponent_action_once() -> None:
    """Through the loop's hands_ended hook the model sees each of the opponent's actions
    exactly once, those after HaRDBot's last decision included."""
    bot = HaRDBot(None)
    opponent_actions = 0

    def observe(finished: FinishedHands) -> None:
        nonlocal opponent_actions
        for table, owners in zip(finished.tables.tolist(), finished.owners, strict=True):
            theirs = int(np.flatnonzero(owners == 1)[0])
            opponent_actions += sum(seat == theirs for seat, *_ in finished.batch.actions(table))

    config = MatchConfig(seats=2, betting="fixed-limit", hands=64, tables=8, seed=5)
    play_match([bot, load_agent("random")], [0, 1], config, observer=observe)
    counted = sum(int(np.sum(c)) for c in bot.model.counts.values())
    assert counted == opponent_actions > 0
