"""Ranges from the population action model itself: the E-step of fitting it by EM.

Hand histories show hole cards only at showdown. Seed 003 (section 6.1) fits its opponent
model by expectation-maximization: draw the hidden cards from the posterior the current
model implies, refit on the completed hands, repeat. :class:`PolicyPosterior` is that
posterior as a :class:`~poolshark.pool.ranges.RangeSource`: the range of a seat is the
deal (uniform over the combos no known card blocks) times the probability the model gives
each of the seat's logged actions when it holds the combo,

    P(combo | actions) ∝ [combo unblocked] · Π_decisions P_model(action | features(combo)).

The features are :func:`~poolshark.population.data.featurize`'s, built for each
candidate combo (one feature path for training, play and imputation). Running the network
on all 1,326 combos at every decision is the reference (:meth:`PolicyPosterior.reference_ranges`);
two shortcuts make the answer cheap enough to impute every hidden seat of a data set:

* **Preflop, by class.** Before the flop the hand features are functions of the preflop
  class, so a decision needs 169 rows, not 1,326. Decisions whose inputs are identical
  (same public and opponent features and legal classes, whatever the action taken: most
  early folds and opens) share one evaluation of all 14 classes, cached for the life of
  the source. Exact for models without a range view; with one (a model trained with
  ``ranges`` other than ``none``) the opponents' range summaries also see which suits our
  cards block, which the class representative stands in for (suit-symmetric preflop
  ranges make it exact), and nothing is cached.
* **Postflop, by sampling-importance-resampling.** ``candidates`` combos are drawn from
  the preflop posterior (exact, above), each weighted by the likelihood of the seat's
  postflop actions; the range is that weighted sample. Drawing one combo from it is a
  SIR draw from the posterior (exact as ``candidates`` grows). ``candidates=None``
  enumerates every combo the preflop posterior allows instead.

``power`` raises the likelihood to a power (1: the posterior itself). Above 1 it is an
over-relaxed E-step: the training loop uses it once, on the step from a model fitted to
uniformly drawn cards, whose card effects are diluted (``population/train.py``, ``em_power``).

A logged check by the last player able to act while every other player still in the hand
is all-in (a non-decision the simulator's engine asks for) is not counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from poolshark.cards.combos import COMBO_CARDS, COMBO_CLASS, N_COMBOS
from poolshark.pool.context import Feature, replay_contexts
from poolshark.pool.ranges import RangeQuery, RangeSource
from poolshark.population import CHECKPOINT_KIND
from poolshark.population.actions import CALL_CLASS, N_CLASSES, action_classes
from poolshark.population.features import DecisionFeatures, featurize
from poolshark.population.model import (
    N_HAND_CLASSES,
    FeatureTensors,
    PopulationNet,
    build_population_net,
)
from poolshark.population.states import DecisionStates, HandLogs
from poolshark.training.common import read_checkpoint_of

Floats = npt.NDArray[np.float64]
Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

OPPONENT_PRESENT, OPPONENT_ALL_IN = 0, 6
"""Entries of an opponent feature row: the row is present; the opponent is all-in."""
CLASS_REPRESENTATIVE: Int64s = np.unique(COMBO_CLASS, return_index=True)[1].astype(np.int64)
"""(169,) one combo of each preflop class (its first in canonical order)."""
CLASS_REPRESENTATIVE.flags.writeable = False


class PolicyPosteriorError(ValueError):
    """A checkpoint or query the policy posterior cannot use; the message says why."""


@dataclass(frozen=True, eq=False)
class SeatDecisions:
    """The queried seats' own logged actions: ``states`` (one per action, hole cards -1,
    ``hand`` the query row), the class each took (``target``) and whether it counts
    (``counted``: False for forced checks)."""

    states: DecisionStates
    target: Int64s
    counted: Bools


def seat_decisions(query: RangeQuery) -> SeatDecisions:
    """Every action the queried seat took in the first ``logs.length`` actions of its row,
    as decisions of hands rebuilt from the query (one hand per query row)."""
    logs = query.logs
    hands = HandLogs(
        query.config,
        np.asarray(query.starting_stacks, dtype=np.int64),
        np.asarray(query.button, dtype=np.int64),
        np.asarray(query.board, dtype=np.int64),
        logs,
    )
    width = logs.seat.shape[1]
    mine = (np.arange(width)[None, :] < logs.length[:, None]) & (logs.seat == query.seat[:, None])
    hand, index = np.nonzero(mine)
    contexts = replay_contexts(query.config, hands.starting_stacks, hands.button, logs)
    contexts = contexts[hand, index]
    states = DecisionStates(
        hands,
        hand.astype(np.int64),
        index.astype(np.int64),
        query.seat[hand].astype(np.int64),
        np.full((hand.size, 2), -1, dtype=np.int64),
        contexts,
    )
    target = action_classes(logs.move[hand, index], logs.amount[hand, index], contexts)
    return SeatDecisions(states, target, np.ones(hand.size, dtype=np.bool_))


def free_pair(boards: Int64s) -> Int64s:
    """(N, 2) the two lowest cards not on each board: hole cards that clash with nothing,
    for features whose hand part is not used."""
    used = np.zeros((boards.shape[0], 53), dtype=np.bool_)
    used[
        np.repeat(np.arange(boards.shape[0]), boards.shape[1]),
        np.where(boards >= 0, boards, 52).ravel(),
    ] = True
    free = np.argsort(used[:, :52], axis=1, kind="stable")[:, :2]
    pair: Int64s = np.sort(free, axis=1).astype(np.int64)
    return pair


def with_holes(states: DecisionStates, rows: Int64s, holes: npt.ArrayLike) -> DecisionStates:
    """The decisions at ``rows`` (repeats allowed) holding ``holes`` (len(rows), 2)."""
    return DecisionStates(
        states.hands,
        states.hand[rows],
        states.index[rows],
        states.seat[rows],
        np.asarray(holes, dtype=np.int64),
        states.contexts[rows],
    )


class PolicyPosterior:
    """A :class:`~poolshark.pool.ranges.RangeSource` whose range for a seat is the prior
    deal times the likelihood of the seat's actions under a population model (see the
    module docstring). ``source`` is the range view the model was trained with (None:
    none); ``candidates`` the postflop sample size (None: enumerate); ``power`` the
    exponent of the likelihood (1: the model's posterior, the E-step of EM; above 1 an
    over-relaxed step that sharpens it); ``seed`` seeds the postflop draws; ``batch`` rows
    per forward pass."""

    def __init__(
        self,
        model: PopulationNet,
        source: RangeSource | None,
        *,
        candidates: int | None = 32,
        power: float = 1.0,
        seed: int = 0,
        device: str = "cpu",
        batch: int = 16384,
    ) -> None:
        if candidates is not None and candidates < 1:
            raise PolicyPosteriorError(f"candidates must be at least 1, got {candidates}")
        if not power > 0:
            raise PolicyPosteriorError(f"power must be positive, got {power}")
        self.model = model.eval()
        self.source = source
        self.candidates = candidates
        self.power = power
        self.device = device
        self.batch = batch
        self.rng = np.random.default_rng([seed, 13])
        self.preflop_cache: dict[bytes, Float32s] = {}
        self.rows_evaluated = 0

    # -- the model's probability of the actions taken ---------------------------------------

    def features(self, states: DecisionStates) -> DecisionFeatures:
        """The model's inputs for some decisions (the one feature path)."""
        return featurize(states, self.source)

    @torch.no_grad()
    def log_policies(self, states: DecisionStates) -> Floats:
        """(N, 14) the model's log-probability of every class at each decision."""
        out = np.zeros((states.size, N_CLASSES))
        for start in range(0, states.size, self.batch):
            rows = np.arange(start, min(start + self.batch, states.size))
            tensors = FeatureTensors.of(self.features(states.subset(rows)), self.device)
            logits = self.model(tensors).double()
            out[rows] = torch.log_softmax(logits, dim=1).cpu().numpy()
        self.rows_evaluated += states.size
        return out

    def action_log_probs(self, states: DecisionStates, target: Int64s) -> Floats:
        """(N,) log P_model(target class) at each decision with its hole cards."""
        result: Floats = self.log_policies(states)[np.arange(states.size), target]
        return result

    def _decisions(self, query: RangeQuery) -> tuple[SeatDecisions, DecisionFeatures]:
        """The seat decisions of a query with forced checks marked, and their features
        without the hand part (placeholder cards, no range view)."""
        found = seat_decisions(query)
        states = found.states
        placeholder = free_pair(states.visible_boards())
        base = featurize(with_holes(states, np.arange(states.size), placeholder), None)
        present = base.opponents[:, :, OPPONENT_PRESENT] > 0
        all_in = base.opponents[:, :, OPPONENT_ALL_IN] > 0
        forced = (
            (found.target == CALL_CLASS)
            & (states.contexts[:, Feature.TO_CALL] == 0)
            & present.any(axis=1)
            & np.all(all_in | ~present, axis=1)
        )
        return SeatDecisions(states, found.target, ~forced), base

    def class_log_likelihoods(
        self, decisions: SeatDecisions, base: DecisionFeatures, rows: Int64s
    ) -> Floats:
        """(len(rows), 169) log P_model(action | preflop class) of preflop decisions; the
        network runs once per distinct input (whatever the action taken), and the answers
        are kept for the life of the source when the model has no range view."""
        if rows.size == 0:
            return np.zeros((0, N_HAND_CLASSES))
        target = decisions.target[rows]
        if self.source is not None:
            fresh = self._evaluate_classes(decisions, rows)
            return fresh[np.arange(rows.size), :, target]
        parts = [
            base.public[rows],
            base.opponents[rows].reshape(rows.size, -1),
            base.legal[rows].astype(np.float32),
        ]
        packed = np.ascontiguousarray(np.concatenate(parts, axis=1))
        void = packed.view(np.dtype((np.void, packed.dtype.itemsize * packed.shape[1])))
        _, first, inverse = np.unique(void.ravel(), return_index=True, return_inverse=True)
        blobs = [packed[i].tobytes() for i in first.tolist()]
        missing = [u for u, blob in enumerate(blobs) if blob not in self.preflop_cache]
        if missing:
            fresh = self._evaluate_classes(decisions, rows[first[missing]])
            for u, values in zip(missing, fresh.astype(np.float32), strict=True):
                self.preflop_cache[blobs[u]] = values
        table = np.stack([self.preflop_cache[blob] for blob in blobs])
        result: Floats = table[inverse.ravel(), :, target].astype(np.float64)
        return result

    def _evaluate_classes(self, decisions: SeatDecisions, rows: Int64s) -> Floats:
        """(len(rows), 169, 14) the network on one combo of every class at each decision."""
        repeated = np.repeat(rows, N_HAND_CLASSES)
        holes = np.tile(COMBO_CARDS[CLASS_REPRESENTATIVE].astype(np.int64), (rows.size, 1))
        values = self.log_policies(with_holes(decisions.states, repeated, holes))
        result: Floats = values.reshape(rows.size, N_HAND_CLASSES, N_CLASSES)
        return result

    # -- ranges -----------------------------------------------------------------------------

    def preflop_posterior(
        self, query: RangeQuery, decisions: SeatDecisions, base: DecisionFeatures
    ) -> Floats:
        """(N, 1326) prior deal times the likelihood of each row's preflop actions, rows
        normalized (zero on blocked combos)."""
        states = decisions.states
        rows = np.flatnonzero((states.street == 0) & decisions.counted)
        by_class = self.class_log_likelihoods(decisions, base, rows)
        log_like = np.zeros((query.size, N_HAND_CLASSES))
        np.add.at(log_like, states.hand[rows], by_class)
        return _normalized(~query.blocked(), self.power * log_like[:, COMBO_CLASS])

    def ranges(self, query: RangeQuery) -> Float32s:
        """(N, 1326) each row's seat's posterior under the model (see the module
        docstring): exact preflop, sampled (or enumerated) postflop."""
        decisions, base = self._decisions(query)
        prior = self.preflop_posterior(query, decisions, base)
        states = decisions.states
        later = np.flatnonzero((states.street > 0) & decisions.counted)
        out = prior.copy()
        if later.size == 0:
            return out.astype(np.float32)
        owner = states.hand[later]
        chosen = {row: self._candidates(prior[row]) for row in np.unique(owner).tolist()}
        sizes = np.array([chosen[row][0].size for row in owner.tolist()], dtype=np.int64)
        log_probs = self.action_log_probs(
            with_holes(
                states,
                np.repeat(later, sizes),
                COMBO_CARDS[np.concatenate([chosen[row][0] for row in owner.tolist()])],
            ),
            np.repeat(decisions.target[later], sizes),
        )
        totals = {row: np.zeros(combos.size) for row, (combos, _) in chosen.items()}
        ends = np.cumsum(sizes)
        for row, stop, size in zip(owner.tolist(), ends.tolist(), sizes.tolist(), strict=True):
            totals[row] += log_probs[stop - size : stop]
        for row, (combos, weight) in chosen.items():
            posterior = np.zeros(N_COMBOS)
            posterior[combos] = weight * np.exp(self.power * (totals[row] - totals[row].max()))
            out[row] = posterior / posterior.sum()
        return out.astype(np.float32)

    def _candidates(self, prior: Floats) -> tuple[Int64s, Floats]:
        """The combos a row's postflop likelihood is evaluated on and their prior weight:
        every combo the preflop posterior allows, or ``candidates`` draws from it (weight:
        how often each was drawn)."""
        if self.candidates is None:
            combos = np.flatnonzero(prior > 0)
            return combos.astype(np.int64), prior[combos]
        drawn = self.rng.choice(N_COMBOS, size=self.candidates, p=prior)
        combos, counts = np.unique(drawn, return_counts=True)
        return combos.astype(np.int64), counts.astype(np.float64)

    def reference_ranges(self, query: RangeQuery) -> Float32s:
        """The same posterior by plain enumeration: the network on every unblocked combo at
        every counted decision (slow; what the tests compare the shortcuts with)."""
        decisions, _ = self._decisions(query)
        states = decisions.states
        live = ~query.blocked()
        counted = np.flatnonzero(decisions.counted)
        row, combo = np.nonzero(live[states.hand[counted]])
        repeated = counted[row]
        values = self.action_log_probs(
            with_holes(states, repeated, COMBO_CARDS[combo]), decisions.target[repeated]
        )
        log_like = np.zeros((query.size, N_COMBOS))
        np.add.at(log_like, (states.hand[repeated], combo), values)
        return _normalized(live, self.power * log_like).astype(np.float32)


def read_population_checkpoint(path: str | Path) -> tuple[PopulationNet, str]:
    """The network of a population-model checkpoint (``kind`` ``population-model``) and
    the spec of the range view it was trained with."""
    payload = read_checkpoint_of(Path(path), CHECKPOINT_KIND, None, "cpu", PolicyPosteriorError)
    model = build_population_net(dict(payload["hyperparameters"]))
    model.load_state_dict(payload["model"])
    return model, str(payload.get("range_source", "none"))


def posterior_options(text: str) -> tuple[str, dict[str, Any]]:
    """``PATH`` or ``PATH?power=P&candidates=K`` (K an int or ``all``), the argument of a
    ``model:`` range-source spec: the path and the :class:`PolicyPosterior` options."""
    path, _, query = text.partition("?")
    options: dict[str, Any] = {}
    for item in filter(None, query.split("&")):
        key, _, value = item.partition("=")
        if key not in ("power", "candidates"):
            raise PolicyPosteriorError(f"model spec {text!r}: unknown option {key!r}")
        try:
            if key == "power":
                options[key] = float(value)
            else:
                options[key] = None if value == "all" else int(value)
        except ValueError:
            raise PolicyPosteriorError(f"model spec {text!r}: bad {key} {value!r}") from None
    return path, options


def _normalized(allowed: Bools, log_like: Floats) -> Floats:
    """Rows of ``allowed * exp(log_like)`` summing to 1 (the allowed combos uniform where a
    row's likelihood vanishes everywhere)."""
    masked = np.where(allowed, log_like, -np.inf)
    peak = masked.max(axis=1, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    weights = np.where(allowed, np.exp(masked - peak), 0.0)
    total = weights.sum(axis=1, keepdims=True)
    uniform = allowed / np.maximum(allowed.sum(axis=1, keepdims=True), 1)
    result: Floats = np.where(total > 0, weights / np.maximum(total, 1e-300), uniform)
    return result
