"""A card abstraction of heads-up limit hold'em: k-means buckets over E, E2, PPOT, NPOT.

Each street has its own buckets (``buckets = (K0, K1, K2, K3)``, 5 each by default):

* **Preflop**: the 169 classes, each with its features computed once at fit time
  (:func:`~poolshark.solve.bucket_features.preflop_class_features`), clustered with
  weights equal to their share of the 1,326 combos. A class's bucket is a table lookup.
* **Flop, turn, river**: k-means on the features of ``hands`` random (hand, board) pairs
  of the street; a new pair takes the bucket of the nearest centroid, after the same
  standardisation (the fit's mean and standard deviation per feature; a constant feature,
  such as the potentials on the river, is left unscaled and so adds nothing).

Bucket numbers read as strength: they are sorted by the centroid's mean E. Postflop
features are Monte Carlo estimates seeded by the cards themselves, so a (hand, board)
always falls in the same bucket; a hand on the edge of two buckets may still land in
the other one than its exact features would put it in.

:func:`holdem_game` turns an abstraction into the :class:`~poolshark.solve.limit_game.
LimitGame` a limit solver works on: the *empirical* game of ``deals`` sampled deals.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.card import N_CARDS, CardError
from poolshark.cards.combos import COMBO_CLASS, COMBO_INDEX, N_CLASSES
from poolshark.cards.evaluator import evaluate_batch
from poolshark.solve.bucket_features import (
    BOARD_CARDS,
    N_FEATURES,
    check_cards,
    check_street,
    class_weights,
    monte_carlo_features,
    preflop_class_features,
)
from poolshark.solve.limit_game import HOLDEM_BETTING, ChanceModel, LimitGame

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

STREETS = 4
FORMAT_VERSION = 1
"""Version of the saved ``.npz`` layout."""


@dataclass(frozen=True, eq=False)
class CardAbstraction:
    """Buckets per street and what it takes to find them (see the module doc).

    ``centroids[s]`` are (K_s, 4) in standardised units: ``(features - means[s]) /
    scales[s]``. ``preflop_features`` (169, 4) and ``preflop_buckets`` (169,) are per
    class; ``samples`` is the Monte Carlo size of a postflop feature and ``seed`` seeds it.
    """

    buckets: tuple[int, int, int, int]
    samples: int
    seed: int
    centroids: tuple[Floats, Floats, Floats, Floats]
    means: Floats
    scales: Floats
    preflop_features: Floats
    preflop_buckets: Int64s = field(repr=False)

    def __post_init__(self) -> None:
        if len(self.buckets) != STREETS or min(self.buckets) < 1:
            raise CardError(f"buckets are four counts >= 1, got {self.buckets}")
        for street, (k, centroids) in enumerate(zip(self.buckets, self.centroids, strict=True)):
            if centroids.shape != (k, N_FEATURES):
                raise CardError(f"street {street}: centroids must be ({k}, {N_FEATURES})")
        if self.means.shape != (STREETS, N_FEATURES) or self.scales.shape != self.means.shape:
            raise CardError("means and scales must be (4, 4)")
        if self.preflop_buckets.shape != (N_CLASSES,):
            raise CardError("preflop buckets need one entry per class (169)")

    @property
    def sequences(self) -> tuple[int, int, int, int]:
        """How many bucket sequences a player may hold at each round: K0, K0*K1, ..."""
        counts = np.cumprod(self.buckets)
        return (int(counts[0]), int(counts[1]), int(counts[2]), int(counts[3]))

    @property
    def game_name(self) -> str:
        """The name of its abstract game (:func:`holdem_game`): ``holdem-K0-K1-K2-K3``."""
        return "holdem-" + "-".join(str(k) for k in self.buckets)

    def features(
        self, street: int, holes: npt.ArrayLike, boards: npt.ArrayLike, *, threads: int | None = 1
    ) -> Floats:
        """(N, 4) the features the buckets are found from (preflop: the class's)."""
        hole, board = check_cards(street, holes, boards)
        if street == 0:
            classes = COMBO_CLASS[COMBO_INDEX[hole[:, 0], hole[:, 1]]]
            found: Floats = self.preflop_features[classes]
            return found
        return monte_carlo_features(
            street, hole, board, samples=self.samples, seed=self.seed, threads=threads
        )

    def bucket_batch(
        self, street: int, holes: npt.ArrayLike, boards: npt.ArrayLike, *, threads: int | None = 1
    ) -> Int64s:
        """(N,) the bucket of each (hole, board) on ``street``: (N, 2) hole cards, (N, 5)
        boards with -1 for unseen cards. ``threads``: cores for the features (None: all)."""
        hole, board = check_cards(street, holes, boards)
        if street == 0:
            found: Int64s = self.preflop_buckets[COMBO_CLASS[COMBO_INDEX[hole[:, 0], hole[:, 1]]]]
            return found
        features = self.features(street, hole, board, threads=threads)
        return self.nearest(street, features)

    def bucket(self, street: int, hole: tuple[int, int] | list[int], board: list[int]) -> int:
        """The bucket of one hand on ``street`` (``board``: the cards seen, any length)."""
        row = np.full((1, 5), -1, dtype=np.int64)
        row[0, : len(board)] = board
        return int(self.bucket_batch(street, np.array([hole]), row)[0])

    def nearest(self, street: int, features: npt.ArrayLike) -> Int64s:
        """(N,) the nearest centroid of each feature row, after standardising it."""
        check_street(street)
        return nearest_centroid(
            features, self.means[street], self.scales[street], self.centroids[street]
        )

    def save(self, path: Path | str) -> None:
        """Write the abstraction to ``path`` (.npz), atomically (a temporary file renamed)."""
        target = Path(path)
        arrays: dict[str, npt.NDArray[np.generic]] = {
            "version": np.array(FORMAT_VERSION),
            "buckets": np.array(self.buckets, dtype=np.int64),
            "samples": np.array(self.samples),
            "seed": np.array(self.seed),
            "means": self.means,
            "scales": self.scales,
            "preflop_features": self.preflop_features,
            "preflop_buckets": self.preflop_buckets,
        }
        for street, centroids in enumerate(self.centroids):
            arrays[f"centroids_{street}"] = centroids
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, suffix=".npz", delete=False) as tmp:
            try:
                np.savez(tmp, **arrays)  # type: ignore[arg-type]
            except BaseException:
                Path(tmp.name).unlink()
                raise
        os.replace(tmp.name, target)

    @classmethod
    def load(cls, path: Path | str) -> CardAbstraction:
        """Read an abstraction written by :meth:`save`; errors name the file and problem."""
        try:
            with np.load(Path(path)) as data:
                version = int(data["version"])
                if version != FORMAT_VERSION:
                    raise CardError(f"{path}: abstraction format {version}, need {FORMAT_VERSION}")
                k0, k1, k2, k3 = (int(k) for k in data["buckets"])
                centroids = tuple(np.array(data[f"centroids_{s}"]) for s in range(STREETS))
                return cls(
                    buckets=(k0, k1, k2, k3),
                    samples=int(data["samples"]),
                    seed=int(data["seed"]),
                    centroids=(centroids[0], centroids[1], centroids[2], centroids[3]),
                    means=np.array(data["means"]),
                    scales=np.array(data["scales"]),
                    preflop_features=np.array(data["preflop_features"]),
                    preflop_buckets=np.array(data["preflop_buckets"], dtype=np.int64),
                )
        except (OSError, KeyError, ValueError) as error:
            raise CardError(f"cannot read card abstraction {str(path)!r}: {error}") from None


def fit_abstraction(
    buckets: tuple[int, int, int, int] = (5, 5, 5, 5),
    *,
    hands: int = 20_000,
    samples: int = 200,
    preflop_samples: int = 20_000,
    seed: int = 0,
    threads: int | None = 1,
) -> CardAbstraction:
    """Fit the buckets: k-means (scikit-learn, seeded) per street on standardised features.

    ``hands`` random (hand, board) pairs per postflop street, each with features from
    ``samples`` Monte Carlo deals (the same size later used to bucket); preflop, the 169
    classes with ``preflop_samples`` deals each, weighted by their combos. ``threads``:
    cores for the features and k-means (None: all).
    """
    if len(buckets) != STREETS or min(buckets) < 1:
        raise CardError(f"buckets are four counts >= 1, got {buckets}")
    if buckets[0] > N_CLASSES:
        raise CardError(f"at most {N_CLASSES} preflop buckets (one per class), got {buckets[0]}")
    if hands < max(buckets[1:]):
        raise CardError(f"hands ({hands}) must be at least the largest bucket count")
    if samples < 2:
        raise CardError(f"samples must be at least 2, got {samples}")
    preflop = preflop_class_features(samples=preflop_samples, seed=seed)
    weights = class_weights()
    fits = [_cluster(preflop, weights, buckets[0], seed, threads)]
    for street in range(1, STREETS):
        cards = deal_cards(hands, seed + street)
        boards = cards[:, 4:9].copy()
        boards[:, BOARD_CARDS[street] :] = -1
        features = monte_carlo_features(
            street, cards[:, :2], boards, samples=samples, seed=seed, threads=threads
        )
        fits.append(_cluster(features, np.ones(hands), buckets[street], seed, threads))
    means = np.stack([fit[1] for fit in fits])
    scales = np.stack([fit[2] for fit in fits])
    centroids = (fits[0][0], fits[1][0], fits[2][0], fits[3][0])
    return CardAbstraction(
        buckets=buckets,
        samples=samples,
        seed=seed,
        centroids=centroids,
        means=means,
        scales=scales,
        preflop_features=preflop,
        preflop_buckets=nearest_centroid(preflop, means[0], scales[0], centroids[0]),
    )


def nearest_centroid(
    features: npt.ArrayLike, mean: Floats, scale: Floats, centroids: Floats
) -> Int64s:
    """(N,) the index of the nearest centroid of each feature row, standardised first."""
    scaled = (np.asarray(features, dtype=np.float64) - mean) / scale
    distances = ((scaled[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)
    nearest: Int64s = distances.argmin(axis=1).astype(np.int64)
    return nearest


def _cluster(
    features: Floats, weights: Floats, k: int, seed: int, threads: int | None
) -> tuple[Floats, Floats, Floats]:
    """(centroids sorted by mean E, means, scales): weighted k-means on standardised rows,
    on ``threads`` cores (None: scikit-learn's default, all of them)."""
    from sklearn.cluster import KMeans  # lazy: scikit-learn takes seconds to load; fits only
    from threadpoolctl import threadpool_limits  # lazy: comes with scikit-learn, fits only

    mean = np.average(features, axis=0, weights=weights)
    spread = np.sqrt(np.average((features - mean) ** 2, axis=0, weights=weights))
    scale = np.where(spread > 1e-12, spread, 1.0)
    scaled = (features - mean) / scale
    with threadpool_limits(limits=threads):
        model = KMeans(n_clusters=k, n_init=4, random_state=seed)
        model.fit(scaled, sample_weight=weights)
    centroids = np.asarray(model.cluster_centers_, dtype=np.float64)
    return centroids[np.argsort(centroids[:, 0], kind="stable")], mean, scale


@nb.njit(cache=True)
def _deal_cards(deals: int, seed: int) -> Int64s:
    np.random.seed(seed)  # noqa: NPY002 (numba kernels have only the legacy API)
    out = np.empty((deals, 9), dtype=np.int64)
    deck = np.arange(N_CARDS)
    for i in range(deals):
        for d in range(9):
            j = d + np.random.randint(0, N_CARDS - d)  # noqa: NPY002
            deck[d], deck[j] = deck[j], deck[d]
            out[i, d] = deck[d]
    return out


def deal_cards(deals: int, seed: int) -> Int64s:
    """(deals, 9) random deals: player 0's hole cards, player 1's, then the five board
    cards, all distinct (seeded, compiled)."""
    if deals < 1:
        raise CardError(f"deals must be at least 1, got {deals}")
    return _deal_cards(deals, seed % (2**31))


@dataclass(frozen=True)
class DealBuckets:
    """The deals behind an abstract game and each player's bucket per street."""

    cards: Int64s  # (D, 9) hole cards of players 0 and 1, then the board
    buckets: Int64s  # (2, 4, D) player, street, deal
    results: Int64s  # (D,) player 0's showdown result: 1, 0 or -1


def bucket_deals(
    abstraction: CardAbstraction, deals: int, seed: int, *, threads: int | None = 1
) -> DealBuckets:
    """Deal ``deals`` random hands (seeded) and bucket both players on every street."""
    cards = deal_cards(deals, seed)
    buckets = np.zeros((2, STREETS, deals), dtype=np.int64)
    for street in range(STREETS):
        boards = cards[:, 4:9].copy()
        boards[:, BOARD_CARDS[street] :] = -1
        both = abstraction.bucket_batch(
            street,
            np.concatenate([cards[:, 0:2], cards[:, 2:4]]),
            np.concatenate([boards, boards]),
            threads=threads,
        )
        buckets[:, street] = both.reshape(2, deals)
    values = evaluate_batch(
        np.concatenate([np.concatenate([cards[:, p : p + 2], cards[:, 4:9]], 1) for p in (0, 2)]),
        threads=threads,
    ).reshape(2, deals)
    results = np.sign(values[0].astype(np.int64) - values[1].astype(np.int64))
    return DealBuckets(cards, buckets, results)


def sequences_of(abstraction: CardAbstraction, buckets: Int64s) -> Int64s:
    """(..., 4) bucket sequence per round from (..., 4) buckets per street: the sequence
    at round r is ``seq[r - 1] * K_r + bucket[r]``."""
    found = np.array(buckets, dtype=np.int64, copy=True)
    for street in range(1, STREETS):
        found[..., street] = (
            found[..., street - 1] * abstraction.buckets[street] + found[..., street]
        )
    return found


def chance_model(abstraction: CardAbstraction, dealt: DealBuckets) -> ChanceModel:
    """The empirical chance model of bucketed deals, symmetrised (each deal counted once
    with the players as dealt and once swapped, which halves the noise of an exactly
    symmetric truth): joint = pair frequencies per round, showdown = player 0's mean
    result per river pair (0 for a pair never dealt)."""
    deals = dealt.results.size
    sequences = sequences_of(abstraction, np.moveaxis(dealt.buckets, 1, 2))  # (2, D, 4)
    sizes = abstraction.sequences
    joint: list[Floats] = []
    parent: list[Int64s] = []
    for r, n in enumerate(sizes):
        # Pair index i * n + j of each deal as dealt (forward) and with the players swapped.
        forward = sequences[0, :, r] * n + sequences[1, :, r]
        backward = sequences[1, :, r] * n + sequences[0, :, r]
        counts = np.bincount(forward, minlength=n * n) + np.bincount(backward, minlength=n * n)
        joint.append((counts / (2 * deals)).reshape(n, n))
        above = np.arange(n, dtype=np.int64) // abstraction.buckets[r]
        parent.append(above if r else np.zeros(n, dtype=np.int64))
    results = dealt.results.astype(np.float64)
    n = sizes[-1]
    totals = np.bincount(forward, weights=results, minlength=n * n) - np.bincount(
        backward, weights=results, minlength=n * n
    )
    showdown = np.divide(totals, counts, out=np.zeros(n * n), where=counts > 0).reshape(n, n)
    return ChanceModel(parent=tuple(parent), joint=tuple(joint), showdown=showdown)


def holdem_game(
    abstraction: CardAbstraction, deals: int, seed: int, *, threads: int | None = 1
) -> LimitGame:
    """Abstract heads-up limit hold'em: :data:`HOLDEM_BETTING` with the empirical chance
    model (:func:`chance_model`) of ``deals`` random deals bucketed by ``abstraction``."""
    dealt = bucket_deals(abstraction, deals, seed, threads=threads)
    chance = chance_model(abstraction, dealt)
    return LimitGame(name=abstraction.game_name, betting=HOLDEM_BETTING, chance=chance)
