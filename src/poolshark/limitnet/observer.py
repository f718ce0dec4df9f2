"""The observer model (thesis section 4.3.3): a hidden Markov model over 8 card types per
stage and player, read by the players instead of the betting history.

* **Belief update per action**: ``P(type | actions) ∝ P(type | before) P(action | type)``,
  the action probability from the action function with the type in place of the cards
  (:class:`TypeEmission`: the card-feature gating block replaced by a per-type table, every
  other weight the player's own, frozen; with player types, per card type and player type,
  ``limitnet.type_beliefs``).
* **Transitions between stages**: row-stochastic 8 x 8 matrices per stage change, one per
  coarse class of the new board (:func:`board_class`).
* **Showdown estimator**: shown hole cards map to a hand-strength bucket
  (:func:`showdown_bucket`), observed through a type x bucket matrix at the river.
* **Fitting**: gradient ascent on the conditional log-likelihood of the actions (and
  showdowns) given the boards, its gradients from forward-backward posteriors, each type's
  step divided by the type's expected occupancy (per-type learning-rate normalization);
  with player types, each line's type (the fit's draw) taken as revealed, its offset added
  to the emission (section 6.3).

The reconstructions are written down in ``docs/limit.md`` (section "The observer model").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt
import torch

from poolshark.cards.card import rank_of, suit_of
from poolshark.cards.evaluator import evaluate_indices
from poolshark.limitnet.action_function import (
    BET_SIZE,
    CARD_TYPES,
    OPTIONS,
    STAGES,
    ActionFunction,
)
from poolshark.limitnet.card_ranks import WINDOWS

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

BOARD_CLASSES = 8
"""Coarse board classes the transitions are conditioned on: three flags of the board."""

ACTIONS = 3
"""Fold, call, raise."""


OBSERVER_PARAMETERS = ("initial_logits", "transition_logits", "showdown_logits", "type_gates")
"""The observer's learnt parameter blocks, as :meth:`Observer.state` names them."""


class ObserverError(ValueError):
    """A line or parameter the observer cannot use; the message names the problem."""


def board_class(board: tuple[int, ...]) -> int:
    """Class 0..7 of a flop, turn or river board: bit 0 paired, bit 1 three or more of a
    suit (a flush possible), bit 2 three or more ranks in a straight window."""
    if not 3 <= len(board) <= 5:
        raise ObserverError(f"a board class needs 3 to 5 cards, got {len(board)}")
    ranks = [rank_of(card) for card in board]
    suits = [suit_of(card) for card in board]
    paired = len(set(ranks)) < len(ranks)
    flush = max(suits.count(suit) for suit in range(4)) >= 3
    straight = any(len(window & set(ranks)) >= 3 for window in WINDOWS)
    return int(paired) + 2 * int(flush) + 4 * int(straight)


@lru_cache(maxsize=65_536)
def showdown_strength(hole: tuple[int, ...], board: tuple[int, ...]) -> float:
    """Share of the other hole-card pairs this hand beats on a five-card board (ties
    half): the showdown estimator's type-of-cards map reads it."""
    if len(hole) != 2 or len(board) != 5 or len(set(hole + board)) != 7:
        raise ObserverError(f"a showdown needs 2 hole and 5 distinct board cards: {hole} {board}")
    mine = evaluate_indices(hole + board)
    rest = [card for card in range(52) if card not in hole and card not in board]
    score = 0.0
    pairs = 0
    for i, first in enumerate(rest):
        for second in rest[i + 1 :]:
            theirs = evaluate_indices((first, second, *board))
            score += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            pairs += 1
    return score / pairs


def showdown_bucket(hole: tuple[int, ...], board: tuple[int, ...], types: int = CARD_TYPES) -> int:
    """Hand-strength bucket 0 (weakest) .. ``types - 1`` of shown cards on the river."""
    return min(types - 1, int(showdown_strength(hole, board) * types))


DecisionArrays = tuple[Int64s, Floats, Floats, Floats, Bools, Int64s]
"""Stages, bets, costs, opponent beliefs, legal actions and actions taken of T decisions."""


@dataclass(frozen=True)
class PlayerLine:
    """One player's observed line in one deal: each decision's stage, bet features after
    call and raise (T, 2, 9), their costs (T, 2), the summed opponent beliefs it saw
    (T, types), the legal actions (T, 3) and the action taken (0 fold, 1 call, 2 raise);
    the board class at stages 1..3 (entry 0 unused), the last stage the player reached and
    the showdown bucket (-1 when the cards were not shown)."""

    stages: Int64s
    bets: Floats
    costs: Floats
    opponents: Floats
    legal: Bools
    actions: Int64s
    board_classes: Int64s
    last_stage: int
    shown: int = -1

    def decisions(self) -> DecisionArrays:
        """The decisions' arrays (what the emission reads)."""
        return (self.stages, self.bets, self.costs, self.opponents, self.legal, self.actions)

    def __post_init__(self) -> None:
        steps = self.stages.shape[0]
        if steps and (self.stages.min() < 0 or self.stages.max() > self.last_stage):
            raise ObserverError("a decision's stage lies outside 0 .. last_stage")
        if steps and np.any(np.diff(self.stages) < 0):
            raise ObserverError("decisions must come in stage order")
        if not 0 <= self.last_stage < STAGES:
            raise ObserverError(f"last_stage {self.last_stage} is not a stage")
        if self.shown >= 0 and self.last_stage != STAGES - 1:
            raise ObserverError("a showdown happens on the river (last_stage 3)")
        if not np.all(self.legal[np.arange(steps), self.actions]):
            raise ObserverError("an action taken is not legal")


class TypeEmission:
    """``P(action | bet features, type)``: the action function with the card type in place
    of the card features. The gating logits are the player's own bet, opponent-belief and
    bias terms plus ``type_gates[stage, option, state, type]``; values and the cost weight
    are the player's. Only ``type_gates`` is learnt (the thesis's observer learns only the
    parameters connected to the card types). :meth:`joint_log_probabilities` also adds a
    player type's offset, the action function's own ``G_type`` (section 6.3)."""

    def __init__(
        self, action_function: ActionFunction, seed: int = 0, init_scale: float = 0.5
    ) -> None:
        generator = torch.Generator().manual_seed(seed)
        self.action_function = action_function
        self.types = action_function.card_types
        self.type_gates = init_scale * torch.randn(
            STAGES,
            OPTIONS,
            action_function.outcome_states,
            self.types,
            generator=generator,
            dtype=torch.float64,
        )

    def player_gates(self) -> torch.Tensor | None:
        """The action function's player-type offsets ``G_type`` (stages, 2, states, player
        types) as float64, or None for a model without player types."""
        gates = self.action_function.type_gates
        return None if gates is None else gates.detach().double()

    def joint_log_probabilities(
        self,
        stages: Int64s,
        bets: Floats,
        costs: Floats,
        opponents: Floats,
        legal: Bools,
        type_gates: torch.Tensor | None = None,
        player_gates: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """(T, types, P, 3) log-probabilities of fold, call, raise per card type and player
        type (-inf where illegal): the card type's gating column plus, with
        ``player_gates`` (stages, 2, states, P, as :meth:`player_gates`), the player type's
        offset; without, P is 1 and no offset is added. ``type_gates`` overrides the
        stored card-type table (a tensor that needs grad)."""
        gates = self.type_gates if type_gates is None else type_gates
        model = self.action_function
        rows = stages.shape[0]
        players = 1 if player_gates is None else player_gates.shape[3]
        out = torch.zeros(rows, self.types, players, ACTIONS, dtype=torch.float64)
        for stage in range(STAGES):
            at = np.flatnonzero(stages == stage)
            if at.size == 0:
                continue
            weights = model.gates[stage].detach().double()
            size = model.card_sizes[stage]
            b = torch.from_numpy(bets[at]).double()
            o = torch.from_numpy(opponents[at]).double()
            beliefs = weights[:, :, BET_SIZE + size : BET_SIZE + size + self.types]
            base = (
                torch.einsum("doi,oki->dok", b, weights[:, :, :BET_SIZE])
                + torch.einsum("di,oki->dok", o, beliefs)
                + weights[:, :, -1]
            )
            logits = base[:, None] + gates[stage].permute(2, 0, 1)[None]  # (D, C, 2, K)
            logits = logits[:, :, None]  # (D, C, 1, 2, K)
            if player_gates is not None:
                logits = logits + player_gates[stage].permute(2, 0, 1)[None, None]
            states = torch.softmax(logits, dim=4)
            ones = torch.ones(at.size, OPTIONS, 1, dtype=torch.float64)
            values = torch.einsum(
                "doi,oki->dok", torch.cat([b, ones], 2), model.values[stage].detach().double()
            )
            cost = float(model.cost_weight[stage].detach()) * torch.from_numpy(costs[at])
            option = (states * values[:, None, None]).sum(4) - cost.double()[:, None, None, :]
            fold = torch.zeros(at.size, self.types, players, 1, dtype=torch.float64)
            utilities = torch.cat([fold, option], 3)
            mask = torch.from_numpy(legal[at])[:, None, None, :].expand_as(utilities)
            out[torch.from_numpy(at)] = torch.log_softmax(
                utilities.masked_fill(~mask, float("-inf")), dim=3
            )
        return out

    def log_probabilities(
        self,
        stages: Int64s,
        bets: Floats,
        costs: Floats,
        opponents: Floats,
        legal: Bools,
        type_gates: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """(T, types, 3) log-probabilities of fold, call, raise per type (-inf where
        illegal), no player type; ``type_gates`` overrides the stored table (a tensor that
        needs grad)."""
        return self.joint_log_probabilities(
            stages, bets, costs, opponents, legal, type_gates
        ).squeeze(2)

    def taken_joint_log_likelihoods(
        self,
        decisions: DecisionArrays,
        type_gates: torch.Tensor | None = None,
        player_gates: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """(T, types, P) ``log P(action taken | card type, player type)`` at each decision
        (P is 1 without ``player_gates``)."""
        stages, bets, costs, opponents, legal, actions = decisions
        log_p = self.joint_log_probabilities(
            stages, bets, costs, opponents, legal, type_gates, player_gates
        )
        taken = torch.from_numpy(actions)[:, None, None, None].expand(*log_p.shape[:3], 1)
        return log_p.gather(3, taken).squeeze(3)

    def taken_log_likelihoods(
        self, decisions: DecisionArrays, type_gates: torch.Tensor | None = None
    ) -> torch.Tensor:
        """(T, types) ``log P(action taken | type)`` at each decision."""
        return self.taken_joint_log_likelihoods(decisions, type_gates).squeeze(2)

    def taken_typed_log_likelihoods(
        self,
        decisions: DecisionArrays,
        player_types: Int64s,
        type_gates: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """(T, types) ``log P(action taken | card type, player type)`` with each decision's
        player type known (``player_types`` (T,), the action function's offset of that
        type added): the emission of a fit that treats the imputed player types as
        revealed. Each type's rows go through :meth:`taken_joint_log_likelihoods` once."""
        gates = self.player_gates()
        if gates is None:
            raise ObserverError("player types for an action function without them")
        if player_types.shape != decisions[0].shape:
            raise ObserverError(f"{player_types.size} player types for {decisions[0].size} rows")
        if player_types.size and not 0 <= player_types.min() <= player_types.max() < gates.shape[3]:
            raise ObserverError(f"player types outside 0 .. {gates.shape[3] - 1}")
        parts: list[torch.Tensor] = []
        order: list[Int64s] = []
        stages, bets, costs, opponents, legal, actions = decisions
        for player in np.unique(player_types).tolist():
            rows = np.flatnonzero(player_types == player)
            subset = (stages[rows], bets[rows], costs[rows], opponents[rows], legal[rows])
            log_lik = self.taken_joint_log_likelihoods(
                (*subset, actions[rows]), type_gates, gates[..., player : player + 1]
            )
            parts.append(log_lik.squeeze(2))
            order.append(rows)
        if not parts:
            return torch.zeros(0, self.types, dtype=torch.float64)
        inverse = np.empty(player_types.size, dtype=np.int64)
        inverse[np.concatenate(order)] = np.arange(player_types.size)
        return torch.cat(parts)[torch.from_numpy(inverse)]


def belief_update(belief: Floats, action_likelihood: Floats) -> Floats:
    """Bayes: the belief after an action, ``belief * P(action | type)`` normalized (any
    shape: a card-type belief, or a joint card-type x player-type one)."""
    joint = belief * action_likelihood
    total = joint.sum()
    if not total > 0:
        raise ObserverError("the action has probability 0 under every type with belief")
    posterior: Floats = joint / total
    return posterior


@dataclass(frozen=True)
class Posteriors:
    """Forward-backward's results for one line: ``stages`` (last_stage + 1, types) the type
    posteriors per stage, ``pairs`` (last_stage, types, types) the posteriors of
    consecutive types (row: the earlier stage), ``log_likelihood`` of the actions (and the
    showdown) given the boards."""

    stages: Floats
    pairs: Floats
    log_likelihood: float


def stage_evidence(
    step_stages: Int64s, likelihoods: Floats, last_stage: int, showdown: Floats | None
) -> Floats:
    """(last_stage + 1, types): per stage, the product of the decisions' action
    likelihoods (and the showdown's at the last stage)."""
    evidence = np.ones((last_stage + 1, likelihoods.shape[1]))
    for step, stage in enumerate(step_stages):
        evidence[stage] *= likelihoods[step]
    if showdown is not None:
        evidence[last_stage] *= showdown
    return evidence


def forward_backward(initial: Floats, transitions: list[Floats], evidence: Floats) -> Posteriors:
    """Scaled forward-backward over the stages of one line: ``initial`` (types,),
    ``transitions[s - 1]`` the (types, types) matrix into stage ``s``, ``evidence`` from
    :func:`stage_evidence`."""
    count = evidence.shape[0]
    if len(transitions) != count - 1:
        raise ObserverError(f"{count} stages need {count - 1} transitions, got {len(transitions)}")
    forward = np.zeros_like(evidence)
    scales = np.zeros(count)
    alpha = initial * evidence[0]
    for stage in range(count):
        if stage:
            alpha = (forward[stage - 1] @ transitions[stage - 1]) * evidence[stage]
        scales[stage] = alpha.sum()
        if not scales[stage] > 0:
            raise ObserverError("the line has probability 0 under the model")
        forward[stage] = alpha / scales[stage]
    backward = np.ones_like(evidence)
    for stage in range(count - 2, -1, -1):
        backward[stage] = transitions[stage] @ (evidence[stage + 1] * backward[stage + 1])
        backward[stage] /= scales[stage + 1]
    posteriors = forward * backward
    pairs = np.zeros((count - 1, evidence.shape[1], evidence.shape[1]))
    for stage in range(count - 1):
        after = evidence[stage + 1] * backward[stage + 1] / scales[stage + 1]
        pairs[stage] = forward[stage][:, None] * transitions[stage] * after[None, :]
    return Posteriors(posteriors, pairs, float(np.log(scales).sum()))


def softmax_rows(logits: Floats) -> Floats:
    """Softmax over the last axis."""
    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    result: Floats = shifted / shifted.sum(axis=-1, keepdims=True)
    return result


@dataclass
class ObserverGradients:
    """Gradients (or steps) of the log-likelihood for each learnt parameter block."""

    initial: Floats
    transitions: Floats
    showdown: Floats
    type_gates: Floats
    log_likelihood: float
    actions: int


class Observer:
    """The observer model's parameters: the initial type distribution (softmax of
    ``initial_logits``), transitions ``transition_logits[stage - 1, board class, from, to]``
    (row softmax), the showdown matrix ``showdown_logits[type, bucket]`` (row softmax) and
    the :class:`TypeEmission`. ``action_function.card_types`` sets the number of types.
    ``type_prior`` is the player-type prior of an action function with player types (set
    by whoever knows it, the fit's checkpoint): with it the public beliefs are joint over
    card and player types (``limitnet.type_beliefs``); without, over card types only."""

    def __init__(self, action_function: ActionFunction, seed: int = 0, init_scale: float = 0.5):
        rng = np.random.default_rng(seed)
        self.emission = TypeEmission(action_function, seed, init_scale)
        self.type_prior: Floats | None = None
        types = self.emission.types
        self.types = types
        self.initial_logits = init_scale * rng.standard_normal(types)
        self.transition_logits = init_scale * rng.standard_normal(
            (STAGES - 1, BOARD_CLASSES, types, types)
        )
        self.showdown_logits = init_scale * rng.standard_normal((types, types))

    def initial(self) -> Floats:
        """The pre-flop type distribution."""
        return softmax_rows(self.initial_logits)

    def transition(self, stage: int, board: int) -> Floats:
        """Row-stochastic (types, types) matrix into ``stage`` (1..3) on board class ``board``."""
        return softmax_rows(self.transition_logits[stage - 1, board])

    def showdown(self) -> Floats:
        """(types, buckets) ``P(shown bucket | river type)``."""
        return softmax_rows(self.showdown_logits)

    def stage_inputs(
        self, line: PlayerLine, likelihoods: Floats
    ) -> tuple[Floats, list[Floats], Floats]:
        """Initial distribution, transitions and stage evidence of ``line`` given its
        (T, types) action likelihoods."""
        transitions = [
            self.transition(stage, int(line.board_classes[stage]))
            for stage in range(1, line.last_stage + 1)
        ]
        shown = self.showdown()[:, line.shown] if line.shown >= 0 else None
        evidence = stage_evidence(line.stages, likelihoods, line.last_stage, shown)
        return self.initial(), transitions, evidence

    def action_likelihoods(self, line: PlayerLine, player_type: int | None = None) -> Floats:
        """(T, types) ``P(action taken | type)`` at each decision of ``line`` (with
        ``player_type``, that player type's offset added)."""
        with torch.no_grad():
            likelihoods: Floats = (
                self.taken_log_likelihoods(line.decisions(), None, player_type).exp().numpy()
            )
        return likelihoods

    def taken_log_likelihoods(
        self,
        decisions: DecisionArrays,
        table: torch.Tensor | None,
        player_types: Int64s | int | None,
    ) -> torch.Tensor:
        """(T, types) the emission's log-likelihoods of the actions taken: without player
        types as before, with them (one per row, or one for all) each row's type's offset
        added (:meth:`TypeEmission.taken_typed_log_likelihoods`)."""
        if player_types is None:
            return self.emission.taken_log_likelihoods(decisions, table)
        typed = np.broadcast_to(np.asarray(player_types, dtype=np.int64), decisions[0].shape)
        return self.emission.taken_typed_log_likelihoods(
            decisions, np.ascontiguousarray(typed), table
        )

    def posteriors(self, line: PlayerLine, player_type: int | None = None) -> Posteriors:
        """Forward-backward on ``line`` (the belief conditioned on everything, the showdown
        included; with ``player_type``, the line played by that type)."""
        likelihoods = self.action_likelihoods(line, player_type)
        return forward_backward(*self.stage_inputs(line, likelihoods))

    def beliefs(self, line: PlayerLine, likelihoods: Floats | None = None) -> Floats:
        """(T + 1, types): the belief before each decision (what the opponents read) and
        after the last; a stage change applies its transition, a showdown its bucket.
        ``likelihoods`` are :meth:`action_likelihoods` when already computed in a batch."""
        if likelihoods is None:
            likelihoods = self.action_likelihoods(line)
        belief = self.initial()
        stage = 0
        out = []
        for step in range(line.stages.shape[0]):
            while stage < line.stages[step]:
                stage += 1
                belief = belief @ self.transition(stage, int(line.board_classes[stage]))
            out.append(belief)
            belief = belief_update(belief, likelihoods[step])
        while stage < line.last_stage:
            stage += 1
            belief = belief @ self.transition(stage, int(line.board_classes[stage]))
        if line.shown >= 0:
            belief = belief_update(belief, self.showdown()[:, line.shown])
        out.append(belief)
        return np.array(out)

    def gradients(
        self, lines: list[PlayerLine], normalize: bool = True, types: Int64s | None = None
    ) -> ObserverGradients:
        """Gradients of the summed log-likelihood from forward-backward posteriors; with
        ``normalize`` each type's rows are divided by that type's expected occupancy (of
        the stage for transitions out of it and decisions in it, of the river at
        showdowns) and the initial logits by the number of lines. ``types`` (L,) the
        player type of each line, treated as revealed (the fit's imputed types): each
        line's actions are then scored with its type's offset (section 6.3)."""
        row_types = line_rows(lines, types)
        card_types = self.types
        initial = np.zeros(card_types)
        transitions = np.zeros_like(self.transition_logits)
        transition_use = np.zeros((STAGES - 1, BOARD_CLASSES, card_types))
        showdown = np.zeros_like(self.showdown_logits)
        showdown_use = np.zeros(card_types)
        table = self.emission.type_gates.clone().requires_grad_(True)
        joined = join_lines(lines)
        log_lik = self.taken_log_likelihoods(joined, table, row_types)
        likelihoods = log_lik.detach().exp().numpy()
        weights = np.zeros_like(likelihoods)
        total = 0.0
        start = 0
        for line in lines:
            steps = line.stages.shape[0]
            post = forward_backward(*self.stage_inputs(line, likelihoods[start : start + steps]))
            total += post.log_likelihood
            initial += post.stages[0] - self.initial()
            for stage in range(1, line.last_stage + 1):
                board = int(line.board_classes[stage])
                before = post.stages[stage - 1]
                transitions[stage - 1, board] += post.pairs[stage - 1] - before[
                    :, None
                ] * self.transition(stage, board)
                transition_use[stage - 1, board] += before
            if line.shown >= 0:
                river = post.stages[line.last_stage]
                target = np.zeros(card_types)
                target[line.shown] = 1.0
                showdown += river[:, None] * (target[None, :] - self.showdown())
                showdown_use += river
            weights[start : start + steps] = post.stages[line.stages]
            start += steps
        if normalize:
            gate_use = np.zeros((STAGES, card_types))
            np.add.at(gate_use, joined[0], weights)
            weights = weights / np.maximum(gate_use, 1e-12)[joined[0]]
            initial /= max(len(lines), 1)
            transitions /= np.maximum(transition_use, 1e-12)[..., None]
            showdown /= np.maximum(showdown_use, 1e-12)[:, None]
        (torch.from_numpy(weights) * log_lik).sum().backward()  # type: ignore[no-untyped-call]
        gates = np.zeros(table.shape) if table.grad is None else table.grad.numpy()
        return ObserverGradients(initial, transitions, showdown, gates, total, start)

    def step(
        self,
        lines: list[PlayerLine],
        learning_rate: float,
        normalize: bool = True,
        types: Int64s | None = None,
    ) -> float:
        """One gradient-ascent step on ``lines``, per-type normalized (or, without
        ``normalize``, the plain gradient averaged over the lines), ``types`` each line's
        revealed player type (or none); the log-likelihood before it."""
        grads = self.gradients(lines, normalize=normalize, types=types)
        if not normalize:
            for name in ("initial", "transitions", "showdown", "type_gates"):
                setattr(grads, name, getattr(grads, name) / max(len(lines), 1))
        self.initial_logits = self.initial_logits + learning_rate * grads.initial
        self.transition_logits = self.transition_logits + learning_rate * grads.transitions
        self.showdown_logits = self.showdown_logits + learning_rate * grads.showdown
        self.emission.type_gates = self.emission.type_gates + learning_rate * torch.from_numpy(
            grads.type_gates
        )
        return grads.log_likelihood

    def state(self) -> dict[str, torch.Tensor]:
        """The learnt parameters as tensors (what a checkpoint keeps), and the player-type
        prior when one is set."""
        state = {
            "initial_logits": torch.from_numpy(self.initial_logits.copy()),
            "transition_logits": torch.from_numpy(self.transition_logits.copy()),
            "showdown_logits": torch.from_numpy(self.showdown_logits.copy()),
            "type_gates": self.emission.type_gates.detach().clone(),
        }
        if self.type_prior is not None:
            state["type_prior"] = torch.from_numpy(self.type_prior.copy())
        return state

    @staticmethod
    def from_state(action_function: ActionFunction, state: dict[str, torch.Tensor]) -> Observer:
        """The observer of :meth:`state` over ``action_function`` (its emission's base)."""
        observer = Observer(action_function)
        try:
            arrays = {name: state[name].double() for name in OBSERVER_PARAMETERS}
        except KeyError as missing:
            raise ObserverError(f"an observer's state lacks {missing}") from None
        expected = {name: tuple(getattr(observer, name).shape) for name in OBSERVER_PARAMETERS[:3]}
        expected["type_gates"] = tuple(observer.emission.type_gates.shape)
        for name, shape in expected.items():
            if tuple(arrays[name].shape) != shape:
                raise ObserverError(
                    f"the observer's {name} has shape {tuple(arrays[name].shape)}, its action "
                    f"function needs {shape}"
                )
        observer.initial_logits = arrays["initial_logits"].numpy()
        observer.transition_logits = arrays["transition_logits"].numpy()
        observer.showdown_logits = arrays["showdown_logits"].numpy()
        observer.emission.type_gates = arrays["type_gates"]
        if "type_prior" in state:
            observer.set_type_prior(state["type_prior"].double().numpy())
        return observer

    def set_type_prior(self, prior: Floats) -> None:
        """Set the player-type prior (normalized); its length must be the action
        function's number of player types."""
        values = np.asarray(prior, dtype=np.float64)
        players = self.emission.action_function.player_types
        if values.shape != (players,) or players == 0:
            raise ObserverError(
                f"a prior over {values.size} player types for an action function with {players}"
            )
        if (values < 0).any() or not values.sum() > 0:
            raise ObserverError("a player-type prior needs non-negative weights, some positive")
        self.type_prior = values / values.sum()

    def log_likelihood(self, lines: list[PlayerLine], types: Int64s | None = None) -> float:
        """Summed log-likelihood of ``lines`` (actions and showdowns given the boards); with
        ``types`` each line played by its player type, or, where the type is -1 (not
        known), with the type summed out under ``type_prior``."""
        if types is None:
            return self.gradients(lines).log_likelihood
        known = np.flatnonzero(types >= 0)
        total = 0.0
        if known.size:
            total += self.gradients([lines[k] for k in known], types=types[known]).log_likelihood
        unknown = np.flatnonzero(types < 0)
        if unknown.size:
            if self.type_prior is None:
                raise ObserverError("summing a player type out needs the observer's type prior")
            per_type = self.type_log_likelihoods([lines[k] for k in unknown])
            with np.errstate(divide="ignore"):
                weighted = per_type + np.log(self.type_prior)[None, :]
            top = weighted.max(axis=1, keepdims=True)
            total += float((top[:, 0] + np.log(np.exp(weighted - top).sum(axis=1))).sum())
        return total

    def type_log_likelihoods(self, lines: list[PlayerLine]) -> Floats:
        """(L, P) each line's log-likelihood if played by each of the action function's
        player types (what a player-type posterior over a match multiplies)."""
        players = self.emission.action_function.player_types
        if players == 0:
            raise ObserverError("player-type likelihoods need an action function with them")
        out = np.zeros((len(lines), players))
        joined = join_lines(lines)
        starts = np.cumsum([0] + [line.stages.size for line in lines])
        for player in range(players):
            with torch.no_grad():
                likelihoods = self.taken_log_likelihoods(joined, None, player).exp().numpy()
            for k, line in enumerate(lines):
                inputs = self.stage_inputs(line, likelihoods[starts[k] : starts[k + 1]])
                out[k, player] = forward_backward(*inputs).log_likelihood
        return out


def line_rows(lines: list[PlayerLine], types: Int64s | None) -> Int64s | None:
    """Each decision's player type from each line's (``types`` (L,)), or None."""
    if types is None:
        return None
    if types.shape != (len(lines),):
        raise ObserverError(f"{types.size} player types for {len(lines)} lines")
    rows: Int64s = np.repeat(types.astype(np.int64), [line.stages.size for line in lines])
    return rows


def join_lines(lines: list[PlayerLine]) -> DecisionArrays:
    """Every decision of ``lines`` as one block (for one batched emission call)."""
    if not lines:
        raise ObserverError("no lines")
    parts = [line.decisions() for line in lines]
    stages, bets, costs, opponents, legal, actions = (
        np.concatenate([part[field] for part in parts]) for field in range(6)
    )
    return stages, bets, costs, opponents, legal, actions


def sample_lines(
    observer: Observer,
    count: int,
    seed: int,
    decisions_per_stage: int = 2,
    player_types: Int64s | None = None,
) -> list[PlayerLine]:
    """Lines drawn from ``observer`` itself (random bet features and legal sets, types
    along the chain, actions from the emission, a showdown bucket on every river line):
    data from a known model, for checking the fit. With ``player_types`` (count,) each
    line is played by its player type (the action function's offset added)."""
    rng = np.random.default_rng(seed)
    types = observer.types
    lines: list[PlayerLine] = []
    for _ in range(count):
        last = int(rng.integers(0, STAGES))
        boards = np.concatenate([[-1], rng.integers(0, BOARD_CLASSES, STAGES - 1)]).astype(np.int64)
        hidden = [int(rng.choice(types, p=observer.initial()))]
        for stage in range(1, last + 1):
            row = observer.transition(stage, int(boards[stage]))[hidden[-1]]
            hidden.append(int(rng.choice(types, p=row)))
        steps = (last + 1) * decisions_per_stage
        stages = np.repeat(np.arange(last + 1), decisions_per_stage).astype(np.int64)
        bets = rng.random((steps, OPTIONS, BET_SIZE)) * 3
        costs = rng.integers(0, 3, (steps, OPTIONS)).astype(np.float64)
        opponents = rng.random((steps, types))
        legal = np.ones((steps, ACTIONS), dtype=bool)
        legal[:, 0] = rng.random(steps) < 0.7
        legal[:, 2] = rng.random(steps) < 0.8
        with torch.no_grad():
            if player_types is None:
                log_p = observer.emission.log_probabilities(stages, bets, costs, opponents, legal)
            else:
                player = int(player_types[len(lines)])
                log_p = observer.emission.joint_log_probabilities(
                    stages,
                    bets,
                    costs,
                    opponents,
                    legal,
                    player_gates=observer.emission.player_gates(),
                )[:, :, player]
        probabilities = log_p.exp().numpy()
        actions = np.array(
            [
                rng.choice(ACTIONS, p=probabilities[step, hidden[stages[step]]])
                for step in range(steps)
            ],
            dtype=np.int64,
        )
        shown = -1
        if last == STAGES - 1:
            shown = int(rng.choice(types, p=observer.showdown()[hidden[-1]]))
        lines.append(
            PlayerLine(stages, bets, costs, opponents, legal, actions, boards, last, shown)
        )
    return lines
