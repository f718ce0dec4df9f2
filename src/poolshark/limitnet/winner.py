"""The observer's showdown winner model (thesis section 4.4.3, eq. 4-7): who wins a showdown
given each showdown player's river card-type belief, built from the actions alone.

* **Known types**: ``P(W = i | C) = q[C(i)] / sum_j q[C(j)]`` over the players ``j`` at the
  showdown, ``q`` one strictly positive parameter per card type, learnt as ``log q``.
* **Beliefs instead of types**: each player's type is drawn from its own belief, so
  ``P(W = i) = sum over type tuples c of prod_j b_j(c_j) q[c_i] / sum_j q[c_j]``, computed
  exactly by enumerating the ``types ** n`` tuples (:func:`win_probabilities_batch`).
* **Split pots**: a tie's winners share the outcome; each winner carries weight
  ``1 / |winners|`` in the log-likelihood (``Showdown.winners``).
* **Cost**: showdowns with more than ``max_players`` players are left out (default 4).
  :func:`thin_large_showdowns` is the thesis's saving: above 3 players keep a showdown
  with probability ``types**3 / types**n`` and scale its weight by the inverse, which
  keeps the expected gradient.
* **Scale**: multiplying every ``q`` by one constant changes nothing, so ``log q`` is kept
  at mean zero.

:func:`record_showdowns` builds the showdowns of recorded deals: each shown line's river
belief from its actions under an observer, the shown cards withheld from it, and the winners
by the hand evaluator on the shown hole cards and the board.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import numpy.typing as npt
import torch

from poolshark.cards.evaluator import evaluate_indices
from poolshark.limitnet.action_function import CARD_TYPES, STAGES
from poolshark.limitnet.observer import Observer, PlayerLine, join_lines
from poolshark.limitnet.observer_lines import record_lines
from poolshark.limitnet.records import LimitRecords

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

MAX_PLAYERS = 4
"""Largest showdown kept by default (``8 ** 4`` type tuples; larger ones are about 1.5% of
the synthetic pool's six-seat showdowns and cost 8 or 64 times as much each)."""

FULL_PLAYERS = 3
"""Showdowns up to this many players are always kept by :func:`thin_large_showdowns`."""

TUPLE_BLOCK = 1 << 21
"""Showdowns x type tuples held at once when enumerating (memory bound)."""


class WinnerError(ValueError):
    """A showdown or parameter the winner model cannot use; the message names it."""


@dataclass(frozen=True)
class Showdown:
    """One showdown: each player's river card-type belief ``beliefs`` (n, types), from the
    actions only; ``winners`` (n,) each player's share of the win (1 / number of winners,
    0 for losers); ``weight`` its learning weight; ``deal`` and ``seats`` where from."""

    beliefs: Floats
    winners: Floats
    weight: float = 1.0
    deal: int = -1
    seats: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        players = self.beliefs.shape[0]
        if self.beliefs.ndim != 2 or players < 2:
            raise WinnerError(f"a showdown needs beliefs (n >= 2, types), got {self.beliefs.shape}")
        if self.winners.shape != (players,) or not np.isclose(self.winners.sum(), 1.0):
            raise WinnerError("winner weights need one entry per player and must sum to 1")

    @property
    def players(self) -> int:
        """Number of players at the showdown."""
        return int(self.beliefs.shape[0])


@lru_cache(maxsize=16)
def type_tuples(types: int, players: int) -> Int64s:
    """(types ** players, players) every assignment of a card type to each player."""
    grid: Int64s = np.indices((types,) * players).reshape(players, -1).T.astype(np.int64)
    grid.flags.writeable = False
    return grid


def tuple_shares(q: Floats, players: int) -> tuple[Int64s, Floats]:
    """The type tuples and each tuple's win shares ``q[c_i] / sum_j q[c_j]`` (tuples, n)."""
    tuples = type_tuples(q.size, players)
    strengths = q[tuples]
    return tuples, strengths / strengths.sum(axis=1, keepdims=True)


def tuple_weights(beliefs: Floats, tuples: Int64s) -> Floats:
    """(S, tuples) the probability of each type tuple under S showdowns' independent
    beliefs (S, n, types)."""
    players = tuples.shape[1]
    weights = beliefs[:, 0, tuples[:, 0]]
    for player in range(1, players):
        weights = weights * beliefs[:, player, tuples[:, player]]
    return weights


def win_probabilities_batch(q: Floats, beliefs: Floats) -> Floats:
    """(S, n) each player's probability of winning for S showdowns of n players each
    (beliefs (S, n, types)), exact by enumerating the type tuples (eq. 4-7 under beliefs)."""
    tuples, shares = tuple_shares(q, beliefs.shape[1])
    block = max(1, TUPLE_BLOCK // tuples.shape[0])
    out = np.empty(beliefs.shape[:2])
    for start in range(0, beliefs.shape[0], block):
        part = beliefs[start : start + block]
        out[start : start + block] = tuple_weights(part, tuples) @ shares
    return out


@dataclass(frozen=True)
class ShowdownGroup:
    """Showdowns of one size stacked for batched enumeration: ``beliefs`` (S, n, types),
    ``targets`` (S, n) each winner share times the showdown's weight, ``indices`` (S,)
    their places in the list they came from."""

    beliefs: Floats
    targets: Floats
    indices: Int64s

    @property
    def players(self) -> int:
        """Players per showdown of the group."""
        return int(self.beliefs.shape[1])


def stack_showdowns(showdowns: Sequence[Showdown]) -> list[ShowdownGroup]:
    """``showdowns`` grouped by their number of players and stacked (done once per fit)."""
    groups: dict[int, list[int]] = {}
    for index, showdown in enumerate(showdowns):
        groups.setdefault(showdown.players, []).append(index)
    return [
        ShowdownGroup(
            np.stack([showdowns[k].beliefs for k in indices]),
            np.stack([showdowns[k].weight * showdowns[k].winners for k in indices]),
            np.asarray(indices, dtype=np.int64),
        )
        for indices in groups.values()
    ]


def share_moves(tuples: Int64s, shares: Floats, types: int) -> Floats:
    """(tuples, n * types) each tuple's share derivatives in ``log q``: ``s_i (1[c_i = k] -
    sum_j 1[c_j = k] s_j)``, player-major."""
    count, players = tuples.shape
    rows = np.arange(count)
    mixed = np.zeros((count, types))
    for player in range(players):
        np.add.at(mixed, (rows, tuples[:, player]), shares[:, player])
    moves = -shares[:, :, None] * mixed[:, None, :]
    for player in range(players):
        moves[rows, player, tuples[:, player]] += shares[:, player]
    out: Floats = moves.reshape(count, -1)
    return out


class WinnerModel:
    """Eq. 4-7's parameters ``log_q`` (types,), kept at mean zero: ``q`` is the relative
    strength of each river card type at a showdown."""

    def __init__(self, types: int = CARD_TYPES, log_q: Floats | None = None) -> None:
        values = np.zeros(types) if log_q is None else np.asarray(log_q, dtype=np.float64)
        if values.shape != (types,) or not np.all(np.isfinite(values)):
            raise WinnerError(f"log_q needs {types} finite values, got {values.shape}")
        self.types = types
        self.log_q = values - values.mean()

    @property
    def q(self) -> Floats:
        """The strictly positive type strengths ``exp(log_q)``."""
        strengths: Floats = np.exp(self.log_q)
        return strengths

    def win_probabilities(self, beliefs: Floats) -> Floats:
        """(n,) each player's probability of winning given their beliefs (n, types)."""
        if beliefs.ndim != 2 or beliefs.shape[1] != self.types:
            raise WinnerError(f"beliefs need shape (n, {self.types}), got {beliefs.shape}")
        probabilities: Floats = win_probabilities_batch(self.q, beliefs[None])[0]
        return probabilities

    def probabilities(self, showdowns: Sequence[Showdown]) -> list[Floats]:
        """Each showdown's win probabilities, batched by number of players."""
        out: list[Floats] = [np.empty(0)] * len(showdowns)
        for group in stack_showdowns(showdowns):
            rows = win_probabilities_batch(self.q, group.beliefs)
            for k, row in zip(group.indices.tolist(), rows, strict=True):
                out[k] = row
        return out

    def log_likelihood(self, showdowns: Sequence[Showdown]) -> float:
        """Weighted log-likelihood ``sum_s weight_s sum_i winners_i log P_s(W = i)``."""
        return self.evaluate(stack_showdowns(showdowns), with_gradient=False)[0]

    def gradient(self, showdowns: Sequence[Showdown]) -> Floats:
        """(types,) the gradient of :meth:`log_likelihood` in ``log_q``."""
        return self.evaluate(stack_showdowns(showdowns))[1]

    def evaluate(
        self, groups: Sequence[ShowdownGroup], with_gradient: bool = True
    ) -> tuple[float, Floats]:
        """The weighted log-likelihood of stacked showdowns and (zeros without
        ``with_gradient``) its gradient in ``log_q``, through :func:`share_moves`."""
        q = self.q
        total = 0.0
        gradient = np.zeros(self.types)
        for group in groups:
            players = group.players
            tuples, shares = tuple_shares(q, players)
            moves = np.empty((len(tuples), 0))
            if with_gradient:
                moves = share_moves(tuples, shares, self.types)
            block = max(1, TUPLE_BLOCK // len(tuples))
            for start in range(0, group.beliefs.shape[0], block):
                weights = tuple_weights(group.beliefs[start : start + block], tuples)
                targets = group.targets[start : start + block]
                probabilities = weights @ shares
                won = targets > 0
                total += float(targets[won] @ np.log(probabilities[won]))
                if with_gradient:
                    derivatives = (weights @ moves).reshape(len(targets), players, self.types)
                    gradient += np.einsum("si,sik->k", targets / probabilities, derivatives)
        return total, gradient

    def fit(
        self, showdowns: Sequence[Showdown], steps: int, learning_rate: float = 10.0
    ) -> list[float]:
        """``steps`` gradient-ascent steps on ``log_q`` for the mean weighted
        log-likelihood, re-centred after each; that mean before each step and after the
        last."""
        if not showdowns:
            raise WinnerError("fitting the winner model needs showdowns")
        groups = stack_showdowns(showdowns)
        total = sum(s.weight for s in showdowns)
        course = []
        for _ in range(steps):
            score, gradient = self.evaluate(groups)
            course.append(score / total)
            self.log_q = self.log_q + learning_rate * gradient / total
            self.log_q -= self.log_q.mean()
        course.append(self.evaluate(groups, with_gradient=False)[0] / total)
        return course


def mean_log_loss(model: WinnerModel, showdowns: Sequence[Showdown]) -> float:
    """Mean over showdowns of ``-sum_i winners_i log P(W = i)`` (unweighted)."""
    if not showdowns:
        raise WinnerError("no showdowns to score")
    probabilities = model.probabilities(showdowns)
    losses = [
        -float(s.winners @ np.log(np.maximum(p, 1e-300)))
        for s, p in zip(showdowns, probabilities, strict=True)
    ]
    return float(np.mean(losses))


def uniform_log_loss(showdowns: Sequence[Showdown]) -> float:
    """The same score for ``P(W = i) = 1 / n`` (no model): the mean of ``log n``."""
    if not showdowns:
        raise WinnerError("no showdowns to score")
    return float(np.mean([np.log(s.players) for s in showdowns]))


def thin_large_showdowns(
    showdowns: Iterable[Showdown],
    rng: np.random.Generator,
    types: int = CARD_TYPES,
    full_players: int = FULL_PLAYERS,
) -> list[Showdown]:
    """Keep each showdown of ``n > full_players`` players with probability
    ``types**full_players / types**n`` and its weight scaled by the inverse (the thesis's
    saving: the expected enumeration cost per showdown stays ``types**full_players`` and the
    expected gradient is unchanged)."""
    kept = []
    for showdown in showdowns:
        excess = showdown.players - full_players
        if excess <= 0:
            kept.append(showdown)
            continue
        chance = float(types) ** -excess
        if rng.random() < chance:
            kept.append(replace(showdown, weight=showdown.weight / chance))
    return kept


def winner_shares(holes: Sequence[tuple[int, ...]], board: tuple[int, ...]) -> Floats:
    """(n,) each shown hand's share of the pot by the hand evaluator: 1 / number of best
    hands for the best, 0 for the rest."""
    ranks = np.array([evaluate_indices(hole + board) for hole in holes])
    best = ranks == ranks.max()
    shares: Floats = best / best.sum()
    return shares


def river_beliefs(observer: Observer, lines: Sequence[PlayerLine]) -> Floats:
    """(L, types) each line's belief after its last action, on the river, from its actions
    only (any showdown bucket dropped before :meth:`Observer.beliefs`); the emission runs
    once over every line's decisions."""
    if any(line.last_stage != STAGES - 1 for line in lines):
        raise WinnerError("a showdown belief needs a line that acted on the river")
    with torch.no_grad():
        joined = observer.taken_log_likelihoods(join_lines(list(lines)), None, None)
    likelihoods = joined.exp().numpy()
    starts = np.cumsum([0] + [line.stages.size for line in lines])
    return np.stack(
        [
            observer.beliefs(replace(line, shown=-1), likelihoods[starts[k] : starts[k + 1]])[-1]
            for k, line in enumerate(lines)
        ]
    )


def prior_river_belief(observer: Observer, line: PlayerLine) -> Floats:
    """(types,) the river belief with no actions seen (the pre-flop distribution through
    the line's board transitions): the no-beliefs baseline."""
    belief = observer.initial()
    for stage in range(1, STAGES):
        belief = belief @ observer.transition(stage, int(line.board_classes[stage]))
    return belief


BELIEF_SOURCES = ("actions", "prior", "shown")
"""Where :func:`record_showdowns` takes each player's river belief from: the actions under
the observer (the model proper), no actions (the pre-flop distribution through the board
transitions), or the shown cards' strength bucket as a known type (a ceiling that reads the
cards)."""


def record_showdowns(
    records: LimitRecords,
    observer: Observer,
    *,
    max_players: int = MAX_PLAYERS,
    source: str = "actions",
) -> list[Showdown]:
    """The showdowns of ``records``: every deal's shown lines (deals with more than
    ``max_players`` left out), each player's river belief from ``source`` (one of
    :data:`BELIEF_SOURCES`) and the evaluator's winner shares."""
    if source not in BELIEF_SOURCES:
        raise WinnerError(f"source must be one of {BELIEF_SOURCES}, got {source!r}")
    shown = np.flatnonzero(records.shown)
    deals: dict[int, list[int]] = {}
    for line in shown.tolist():
        deals.setdefault(int(records.deal[line]), []).append(line)
    kept = {deal: members for deal, members in deals.items() if 2 <= len(members) <= max_players}
    chosen = np.asarray([line for members in kept.values() for line in members], dtype=np.int64)
    if source == "shown":
        lines = record_lines(records, chosen, observer.types)
        beliefs = np.eye(observer.types)[[line.shown for line in lines]]
    else:
        unshown = replace(records, shown=np.zeros_like(records.shown))  # no bucket computed
        lines = record_lines(unshown, chosen, observer.types)
        if source == "prior":
            beliefs = np.stack([prior_river_belief(observer, line) for line in lines])
        else:
            beliefs = river_beliefs(observer, lines) if lines else np.zeros((0, observer.types))
    showdowns = []
    start = 0
    for deal, members in kept.items():
        first = members[0]
        board = tuple(int(card) for card in records.boards[first, : records.board_shown[first]])
        holes = [tuple(int(card) for card in records.holes[line]) for line in members]
        showdowns.append(
            Showdown(
                beliefs[start : start + len(members)],
                winner_shares(holes, board),
                deal=deal,
                seats=tuple(int(records.seat[line]) for line in members),
            )
        )
        start += len(members)
    return showdowns


@dataclass
class WinnerEvaluation:
    """A winner-model fit on training showdowns and its held-out scores: mean log-loss of
    the winner (nats per showdown) under ``actions`` (the fitted model on the observer's
    beliefs), ``uniform`` (1 / n), ``prior`` (the model on no-action beliefs) and
    ``shown`` (when asked: a model fitted to the shown strength buckets as known types, a
    ceiling that reads the cards), overall (``log_loss``) and by players at the showdown."""

    model: WinnerModel
    shown_model: WinnerModel | None
    course: list[float]
    train_showdowns: int
    fitted_showdowns: int
    log_loss: dict[str, float]
    by_players: dict[int, dict[str, float]]


def scores(
    showdowns: dict[str, list[Showdown]], models: dict[str, WinnerModel]
) -> dict[str, float]:
    """Mean log-loss of each belief source's showdowns under its model, and the uniform."""
    out = {name: mean_log_loss(models[name], rows) for name, rows in showdowns.items()}
    out["uniform"] = uniform_log_loss(showdowns["actions"])
    return out


def fit_winner_to_records(
    train: LimitRecords,
    held_out: LimitRecords,
    observer: Observer,
    *,
    steps: int,
    learning_rate: float = 10.0,
    max_players: int = MAX_PLAYERS,
    thin: bool = False,
    seed: int = 0,
    ceiling: bool = False,
) -> WinnerEvaluation:
    """Fit eq. 4-7 to ``train``'s showdowns (with ``thin``, the thesis's thinning of those
    above 3 players) on the observer's action beliefs, and score ``held_out``'s; with
    ``ceiling`` also the shown-bucket model (slow: each shown hand's strength is counted
    against the 990 other hole pairs)."""
    fitted: dict[str, WinnerModel] = {}
    held: dict[str, list[Showdown]] = {}
    course: list[float] = []
    counts = (0, 0)
    for source in BELIEF_SOURCES if ceiling else BELIEF_SOURCES[:2]:
        rows = record_showdowns(train, observer, max_players=max_players, source=source)
        recorded = len(rows)
        if thin:
            rows = thin_large_showdowns(rows, np.random.default_rng([seed, 17]), observer.types)
        model = WinnerModel(observer.types)
        if source == "actions":
            course, counts = model.fit(rows, steps, learning_rate), (recorded, len(rows))
        elif source == "shown":
            model.fit(rows, steps, learning_rate)
        fitted[source] = model  # prior beliefs are the same for every player: any q gives 1 / n
        held[source] = record_showdowns(held_out, observer, max_players=max_players, source=source)
    if not held["actions"]:
        raise WinnerError("the held-out records have no showdowns")
    by_players = {}
    for players in sorted({s.players for s in held["actions"]}):
        subset = {name: [s for s in rows if s.players == players] for name, rows in held.items()}
        by_players[players] = {"showdowns": float(len(subset["actions"])), **scores(subset, fitted)}
    return WinnerEvaluation(
        model=fitted["actions"],
        shown_model=fitted.get("shown"),
        course=course,
        train_showdowns=counts[0],
        fitted_showdowns=counts[1],
        log_loss=scores(held, fitted),
        by_players=by_players,
    )
