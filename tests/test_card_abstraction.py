"""Card abstraction of heads-up limit hold'em: Monte Carlo features against the exact
reference, k-means buckets ordered by strength, and the empirical abstract game."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from poolshark.cards.card import CardError, parse_cards
from poolshark.cards.combos import COMBO_CARDS, COMBO_CLASS, class_combos, class_index
from poolshark.cards.evaluator import evaluate_indices
from poolshark.solve.bucket_features import (
    BOARD_CARDS,
    exact_features,
    monte_carlo_features,
    preflop_class_features,
)
from poolshark.solve.card_abstraction import (
    CardAbstraction,
    bucket_deals,
    chance_model,
    deal_cards,
    fit_abstraction,
    holdem_game,
    sequences_of,
)
from poolshark.solve.limit_game import HOLDEM_BETTING

SEEDS = 8
"""Independent Monte Carlo runs per case: their spread gives the standard error."""

CASES = [
    (1, "QhJh", "Ah7d2c"),
    (1, "8s8d", "Kc9h4h"),
    (2, "QhJh", "Ah7d2c9s"),
    (2, "AcKd", "Th9h2s3s"),
    (3, "QhJh", "Ah7d2c9sKd"),
    (3, "5c5d", "Ts8s4d2hJc"),
]


def _board_row(board: str) -> np.ndarray:
    row = np.full(5, -1, dtype=np.int64)
    cards = parse_cards(board)
    row[: len(cards)] = cards
    return row


@pytest.mark.parametrize(("street", "hole", "board"), CASES)
def test_monte_carlo_features_agree_with_exact_reference(
    street: int, hole: str, board: str
) -> None:
    """Each of E, E2, PPOT, NPOT within 4 standard errors (+ the ratio bias) of exact."""
    exact = exact_features(street, parse_cards(hole), parse_cards(board))
    holes = np.array([parse_cards(hole)])
    boards = np.array([_board_row(board)])
    runs = np.stack(
        [monte_carlo_features(street, holes, boards, samples=3000, seed=s)[0] for s in range(SEEDS)]
    )
    mean = runs.mean(axis=0)
    stderr = runs.std(axis=0, ddof=1) / np.sqrt(SEEDS)
    assert np.all(np.abs(mean - exact) <= 4 * stderr + 2e-3), (mean, exact, stderr)


@pytest.mark.parametrize(
    ("name", "equity"), [("AA", 0.8520371330), ("72o", 0.3458364732), ("AKs", 0.6704463231)]
)
def test_preflop_equity_matches_exact_enumeration(name: str, equity: float) -> None:
    """Preflop E against the exact all-in equity vs a random hand (``exact_equity``)."""
    hole = COMBO_CARDS[class_combos(class_index(name))[0]].astype(np.int64)
    features = monte_carlo_features(0, [hole], [[-1] * 5], samples=40_000, seed=3)[0]
    assert abs(features[0] - equity) < 4 * 0.5 / np.sqrt(40_000)
    assert features[1] >= features[0] ** 2 - 0.01  # E2 >= E^2 up to the noise
    assert features[2] == features[3] == 0.0


def test_e2_is_unbiased_with_two_deals_per_next_card() -> None:
    """With two deals per turn card the squared equity of each is estimated without bias
    (the plain square of a two-deal mean would be off by about 0.1 here)."""
    hole, board = parse_cards("QhJh"), _board_row("Ah7d2c")
    exact = exact_features(1, hole, parse_cards("Ah7d2c"))
    runs = np.array(
        [monte_carlo_features(1, [hole], [board], samples=94, seed=s)[0, 1] for s in range(300)]
    )
    assert abs(runs.mean() - exact[1]) < 4 * runs.std(ddof=1) / np.sqrt(runs.size)


def test_preflop_class_features_cover_every_class() -> None:
    found = preflop_class_features(samples=400, seed=1)
    assert found.shape == (169, 4)
    assert found[class_index("AA"), 0] > found[class_index("KK"), 0] > found[class_index("72o"), 0]


def test_river_features_are_exact() -> None:
    """On the river every opponent hand is counted: the exact reference to rounding."""
    for hole, board in (("QhJh", "Ah7d2h9sKd"), ("2c3d", "Ah7d2h9sKd"), ("AsKs", "QsJsTs2c3d")):
        found = monte_carlo_features(3, [parse_cards(hole)], [_board_row(board)], seed=1)
        np.testing.assert_allclose(
            found[0], exact_features(3, parse_cards(hole), parse_cards(board))
        )


def test_features_depend_on_card_sets_not_order_or_batch() -> None:
    """A (hand, board) gets the same features whatever its card order or batch."""
    hole, board = parse_cards("QhJh"), _board_row("Ah7d2c9s")
    alone = monte_carlo_features(2, np.array([hole]), np.array([board]), samples=100, seed=5)
    swapped = board.copy()
    swapped[[0, 3]] = swapped[[3, 0]]
    batch = monte_carlo_features(
        2,
        np.array([parse_cards("2c3d"), hole[::-1], hole]),
        np.array([_board_row("Ah7d9sKs"), swapped, board]),
        samples=100,
        seed=5,
    )
    np.testing.assert_array_equal(batch[1], alone[0])
    np.testing.assert_array_equal(batch[2], alone[0])
    other = monte_carlo_features(2, np.array([hole]), np.array([board]), samples=100, seed=6)
    assert not np.array_equal(other, alone)


@pytest.mark.slow
def test_threads_do_not_change_features() -> None:
    """Per-row streams: the parallel kernel gives the serial kernel's figures exactly
    (slow only for compiling the parallel kernel, about 30 s on a cold cache)."""
    cards = deal_cards(64, seed=3)
    boards = cards[:, 4:9].copy()
    boards[:, 3:] = -1
    serial = monte_carlo_features(1, cards[:, :2], boards, samples=50, seed=2)
    parallel = monte_carlo_features(1, cards[:, :2], boards, samples=50, seed=2, threads=2)
    np.testing.assert_array_equal(parallel, serial)


@pytest.mark.parametrize(
    ("holes", "boards", "message"),
    [
        ([[0, 0]], [[4, 8, 12, -1, -1]], "used twice"),
        ([[0, 1]], [[4, 8, -1, -1, -1]], "3 board cards"),
        ([[0, 52]], [[4, 8, 12, -1, -1]], "in 0..51"),
        ([[0, 1, 2]], [[4, 8, 12, -1, -1]], r"\(N, 2\)"),
    ],
)
def test_bad_cards_are_named(holes: list[list[int]], boards: list[list[int]], message: str) -> None:
    with pytest.raises(CardError, match=message):
        monte_carlo_features(1, holes, boards)


@pytest.fixture(scope="module")
def abstraction() -> CardAbstraction:
    return fit_abstraction((5, 4, 4, 3), hands=3000, samples=60, preflop_samples=2000, seed=7)


def test_buckets_are_numbered_by_strength(abstraction: CardAbstraction) -> None:
    """Bucket k's hands have a lower mean E than bucket k + 1's, on every street."""
    cards = deal_cards(4000, seed=11)
    for street in range(4):
        boards = cards[:, 4:9].copy()
        boards[:, BOARD_CARDS[street] :] = -1
        features = abstraction.features(street, cards[:, :2], boards)
        buckets = abstraction.bucket_batch(street, cards[:, :2], boards)
        assert set(buckets.tolist()) == set(range(abstraction.buckets[street]))
        means = [features[buckets == k, 0].mean() for k in range(abstraction.buckets[street])]
        assert np.all(np.diff(means) > 0), (street, means)
        assert np.all(np.diff(abstraction.centroids[street][:, 0]) > 0)


def test_preflop_buckets_follow_classes(abstraction: CardAbstraction) -> None:
    """Every combo of a class shares its bucket; aces beat seven-deuce."""
    holes = COMBO_CARDS.astype(np.int64)
    buckets = abstraction.bucket_batch(0, holes, np.full((len(holes), 5), -1))
    np.testing.assert_array_equal(buckets, abstraction.preflop_buckets[COMBO_CLASS])
    assert abstraction.bucket(0, parse_cards("AsAh"), []) == abstraction.buckets[0] - 1
    assert abstraction.bucket(0, parse_cards("7h2c"), []) == 0


def test_one_bucket_equals_batch(abstraction: CardAbstraction) -> None:
    hole, board = parse_cards("9c9d"), parse_cards("Ts8s4d2h")
    batch = abstraction.bucket_batch(2, np.array([hole]), np.array([_board_row("Ts8s4d2h")]))
    assert abstraction.bucket(2, hole, board) == int(batch[0])


def test_same_seed_same_abstraction() -> None:
    def fit(seed: int) -> CardAbstraction:
        return fit_abstraction((4, 3, 3, 3), hands=500, samples=20, preflop_samples=200, seed=seed)

    first, again, other = fit(7), fit(7), fit(8)
    for street in range(4):
        np.testing.assert_array_equal(again.centroids[street], first.centroids[street])
    np.testing.assert_array_equal(again.preflop_buckets, first.preflop_buckets)
    assert not np.array_equal(other.centroids[1], first.centroids[1])


def test_save_and_load_round_trip(abstraction: CardAbstraction, tmp_path: Path) -> None:
    path = tmp_path / "sub" / "abstraction.npz"
    abstraction.save(path)
    loaded = CardAbstraction.load(path)
    assert loaded.buckets == abstraction.buckets
    assert (loaded.samples, loaded.seed) == (abstraction.samples, abstraction.seed)
    for street in range(4):
        np.testing.assert_array_equal(loaded.centroids[street], abstraction.centroids[street])
    np.testing.assert_array_equal(loaded.means, abstraction.means)
    np.testing.assert_array_equal(loaded.preflop_features, abstraction.preflop_features)
    assert [p.name for p in path.parent.iterdir()] == ["abstraction.npz"]  # no temporary left
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(CardError, match="cannot read card abstraction"):
        CardAbstraction.load(tmp_path / "bad.npz")


def test_fit_rejects_bad_bucket_counts() -> None:
    with pytest.raises(CardError, match="four counts"):
        fit_abstraction((5, 0, 5, 5))
    with pytest.raises(CardError, match="at most 169"):
        fit_abstraction((170, 5, 5, 5))


def test_holdem_game_is_the_empirical_game(abstraction: CardAbstraction) -> None:
    """Joint = pair frequencies (symmetrised), consistent across rounds (ChanceModel
    validates it), showdown = player 0's mean result per river pair."""
    game = holdem_game(abstraction, 3000, seed=4)
    assert game.betting == HOLDEM_BETTING
    chance = game.chance
    sizes = abstraction.sequences
    assert [chance.sequences(r) for r in range(4)] == list(sizes)
    for joint in chance.joint:
        assert joint.sum() == pytest.approx(1.0)
        np.testing.assert_allclose(joint, joint.T)
    np.testing.assert_allclose(chance.showdown, -chance.showdown.T)
    dealt = bucket_deals(abstraction, 3000, seed=4)
    sequences = sequences_of(abstraction, np.moveaxis(dealt.buckets, 1, 2))
    first, second = sequences[0, :, 3], sequences[1, :, 3]
    pair = int(first[0]), int(second[0])
    together = (first == pair[0]) & (second == pair[1])
    swapped = (first == pair[1]) & (second == pair[0])
    count = together.sum() + swapped.sum()
    assert chance.joint[3][pair] == pytest.approx(count / 6000)
    result = (dealt.results[together].sum() - dealt.results[swapped].sum()) / count
    assert chance.showdown[pair] == pytest.approx(result)
    never = chance.joint[3] == 0
    assert never.any()
    assert (chance.showdown[never] == 0).all()
    again = holdem_game(abstraction, 3000, seed=4)
    np.testing.assert_array_equal(again.chance.joint[3], chance.joint[3])


def test_deal_results_are_showdowns(abstraction: CardAbstraction) -> None:
    """The dealt results and buckets agree with direct evaluation and bucketing."""
    dealt = bucket_deals(abstraction, 50, seed=9)
    for deal in range(5):
        cards = dealt.cards[deal].tolist()
        ours = evaluate_indices(cards[0:2] + cards[4:9])
        theirs = evaluate_indices(cards[2:4] + cards[4:9])
        assert dealt.results[deal] == np.sign(ours - theirs)
        for street in range(4):
            board = cards[4 : 4 + BOARD_CARDS[street]]
            assert dealt.buckets[1, street, deal] == abstraction.bucket(street, cards[2:4], board)
    assert len(set(map(tuple, dealt.cards.tolist()))) == 50
    assert all(len(set(row)) == 9 for row in dealt.cards.tolist())


def test_chance_model_matches_manual_round_zero(abstraction: CardAbstraction) -> None:
    dealt = bucket_deals(abstraction, 400, seed=2)
    model = chance_model(abstraction, dealt)
    k = abstraction.buckets[0]
    manual = np.zeros((k, k))
    for a, b in zip(dealt.buckets[0, 0], dealt.buckets[1, 0], strict=True):
        manual[a, b] += 0.5 / 400
        manual[b, a] += 0.5 / 400
    np.testing.assert_allclose(model.joint[0], manual)
