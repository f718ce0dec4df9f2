"""The network player as an agent: fixed-limit hold'em at 2-10 seats through the agent
protocol, one batched forward pass of the :class:`ActionFunction` per call.

Each decision's inputs are its bet features (compiled, over the engine's arrays), its
card features at the stage (compiled, one batch per call, each row kept for the rest of
its street: ``limitnet.card_feature_cache``) and the summed opponent
card-type beliefs: with an observer, the public beliefs it keeps at every table from every
move the play loop shows it (``moves_seen``, ``limitnet.public_beliefs``); without, zeros.
A model with the extra layer also reads each opponent's belief and position. Actions are
drawn from the legal fold / call / raise probabilities with the decision's random stream,
so a match replays from its seed. A :class:`Recorder` (the trainer's) is shown every
decision.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import torch

from poolshark.agents.bots import SeatDraws
from poolshark.agents.protocol import AgentError, Decisions, EndedHands, Moves, SeenMoves
from poolshark.engine.config import Betting
from poolshark.limitnet import CHECKPOINT_KIND
from poolshark.limitnet.action_function import ActionFunction, OpponentInputs
from poolshark.limitnet.bet_features import batch_bet_features, legal_actions
from poolshark.limitnet.card_feature_cache import CardFeatureCache
from poolshark.limitnet.card_features_compiled import card_feature_batch
from poolshark.limitnet.observer import Observer, ObserverError
from poolshark.limitnet.opponent_features import opponent_features
from poolshark.limitnet.public_beliefs import BeliefTracker
from poolshark.training.common import read_checkpoint_of, save_atomic

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

CHECKPOINT_FORMAT = "poolshark-limitnet-v1"

Tensors6 = tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]
"""The action function's inputs in order: stages, bets, costs, cards, beliefs, legal."""


@dataclass(frozen=True)
class DecisionInputs:
    """What the action function reads for D decisions (numpy, float64); ``opponents``
    (D, S, F) and ``present`` (D, S) are the extra layer's per-opponent inputs (None for a
    model without the layer)."""

    stages: Int64s
    bets: Floats
    costs: Floats
    cards: Floats
    beliefs: Floats
    legal: Bools
    opponents: Floats | None = None
    present: Bools | None = None

    def tensors(self, device: torch.device) -> Tensors6:
        """The arrays as float32 tensors (stages and legal as int64 and bool)."""
        return (
            torch.from_numpy(self.stages).to(device),
            torch.from_numpy(self.bets).float().to(device),
            torch.from_numpy(self.costs).float().to(device),
            torch.from_numpy(self.cards).float().to(device),
            torch.from_numpy(self.beliefs).float().to(device),
            torch.from_numpy(self.legal).to(device),
        )

    def opponent_tensors(self, device: torch.device) -> OpponentInputs | None:
        """The extra layer's inputs as tensors, or None."""
        if self.opponents is None or self.present is None:
            return None
        return (
            torch.from_numpy(self.opponents).float().to(device),
            torch.from_numpy(self.present).to(device),
        )

    @staticmethod
    def concatenate(parts: list[DecisionInputs]) -> DecisionInputs:
        """One block of rows from many (all with the extra layer's inputs, or none)."""
        names = [field.name for field in fields(DecisionInputs)]
        if any(p.opponents is None for p in parts):
            names = names[:-2]
        return DecisionInputs(
            **{name: np.concatenate([getattr(p, name) for p in parts]) for name in names}
        )


def decision_inputs(
    decisions: Decisions,
    card_types: int,
    beliefs: Floats | None = None,
    seat_beliefs: Floats | None = None,
    card_cache: CardFeatureCache | None = None,
) -> DecisionInputs:
    """The action function's inputs at every decision of ``decisions`` (``beliefs``: the
    summed opponent beliefs, zeros when None); with ``seat_beliefs`` (D, S, T), every
    seat's belief, also the extra layer's per-opponent inputs. ``card_cache`` serves card
    features already computed this street (the same rows, sooner)."""
    batch = decisions.batch
    if batch.config.betting is not Betting.FIXED_LIMIT:
        raise AgentError("the network player plays fixed-limit hold'em only")
    bets, costs = batch_bet_features(batch, decisions.tables)
    stages = decisions.street.astype(np.int64)
    shown = np.asarray((0, 3, 4, 5), dtype=np.int64)[stages]
    if card_cache is None:
        cards = card_feature_batch(decisions.hole_cards, decisions.board, shown)
    else:
        shape = (batch.size, batch.config.seats)
        cards = card_cache.rows(
            decisions.tables, decisions.seats, decisions.hole_cards, decisions.board, shown, shape
        )
    legal = legal_actions(decisions)
    if beliefs is None:
        beliefs = np.zeros((decisions.size, card_types))
    if seat_beliefs is None:
        return DecisionInputs(stages, bets, costs, cards, beliefs, legal)
    opponents, present = opponent_features(
        decisions.batch, decisions.tables, decisions.seats, seat_beliefs
    )
    return DecisionInputs(stages, bets, costs, cards, beliefs, legal, opponents, present)


class Recorder(Protocol):
    """What a trainer keeps of each decision the learner takes."""

    def record(self, decisions: Decisions, inputs: DecisionInputs, actions: Int64s) -> None: ...


class LimitNetAgent:
    """Plays an :class:`ActionFunction` (see the module docstring); ``greedy`` takes the most
    likely action instead of sampling. With ``type_prior`` (a model with player types, as
    fitted), each seat plays a type drawn from it for each hand, as a population would, or
    with ``match_types`` one type per seat for the whole match (each table of a batch), as
    the thesis's players keep theirs. With ``observer`` (over this model, or for an
    exploiter over the model it exploits), it reads its opponents' public beliefs: joint
    over card and player types when the observer has a player-type prior, whose card-type
    marginals it reads, the shown hands updating the player types (:meth:`hands_ended`)."""

    def __init__(
        self,
        model: ActionFunction,
        *,
        device: str = "cpu",
        recorder: Recorder | None = None,
        greedy: bool = False,
        type_prior: Floats | None = None,
        observer: Observer | None = None,
        match_types: bool = False,
    ) -> None:
        self.device = torch.device(device)
        self.model = model.to(self.device)
        self.recorder = recorder
        self.greedy = greedy
        self.type_draws: SeatDraws | None = None
        if type_prior is not None:
            if len(type_prior) != model.player_types:
                raise AgentError(
                    f"a prior over {len(type_prior)} player types for a model with "
                    f"{model.player_types}"
                )
            self.type_draws = SeatDraws(type_prior.tolist(), per_match=match_types)
        self.observer = observer
        self.card_cache = CardFeatureCache()
        self.beliefs = None if observer is None else BeliefTracker(observer)
        if observer is not None and observer.types != model.card_types:
            raise AgentError(
                f"an observer over {observer.types} card types for a model reading "
                f"{model.card_types}"
            )

    def probabilities(self, inputs: DecisionInputs, types: Int64s | None = None) -> Floats:
        """(D, 3) probabilities of fold, call, raise (``types``: the players' types)."""
        typed = None if types is None else torch.from_numpy(types).to(self.device)
        with torch.inference_mode():
            log_p = self.model.log_probabilities(
                *inputs.tensors(self.device),
                types=typed,
                opponents=inputs.opponent_tensors(self.device),
            )
        probabilities: Floats = log_p.exp().cpu().double().numpy()
        return probabilities

    def act(self, decisions: Decisions) -> Moves:
        """Draw fold, call or raise at every decision (raises are one bet unit)."""
        beliefs = seat_beliefs = None
        if self.beliefs is not None:
            beliefs = self.beliefs.summed(decisions)
        if self.model.extra_layer:
            seat_beliefs = (
                np.zeros((decisions.size, decisions.batch.config.seats, self.model.card_types))
                if self.beliefs is None
                else self.beliefs.seat_beliefs(decisions)
            )
        inputs = decision_inputs(
            decisions, self.model.card_types, beliefs, seat_beliefs, self.card_cache
        )
        types = None if self.type_draws is None else self.type_draws.draw(decisions)
        probabilities = self.probabilities(inputs, types) * inputs.legal
        if self.greedy:
            actions = probabilities.argmax(axis=1)
        else:
            cumulative = np.cumsum(probabilities, axis=1)
            target = decisions.rng.random(decisions.size) * cumulative[:, -1]
            actions = (cumulative <= target[:, None]).sum(axis=1)
            last_legal = 2 - np.argmax(inputs.legal[:, ::-1], axis=1)
            actions = np.minimum(actions, last_legal)
        actions = actions.astype(np.int64)
        if self.recorder is not None:
            self.recorder.record(decisions, inputs, actions)
        amounts = np.where(actions == 2, decisions.min_raise_to, 0)
        return Moves(actions, amounts.astype(np.int64))

    def moves_seen(self, seen: SeenMoves) -> None:
        """Update the opponents' public beliefs on every move at this agent's tables."""
        if self.beliefs is not None:
            self.beliefs.seen(seen)

    def hands_ended(self, ended: EndedHands) -> None:
        """Update the player-type beliefs of the seats shown at these hands' showdowns."""
        if self.beliefs is not None:
            self.beliefs.ended(ended)


def checkpoint_payload(
    model: ActionFunction, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """What a network player's checkpoint holds (weights, sizes, and ``extra``)."""
    return {
        "kind": CHECKPOINT_KIND,
        "format": CHECKPOINT_FORMAT,
        "outcome_states": model.outcome_states,
        "card_types": model.card_types,
        "player_types": model.player_types,
        "extra_layer": model.extra_layer,
        "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        **(extra or {}),
    }


def save_model(model: ActionFunction, path: Path, extra: dict[str, Any] | None = None) -> None:
    """Write a checkpoint atomically."""
    save_atomic(checkpoint_payload(model, extra), path)


def model_from_payload(payload: dict[str, Any]) -> ActionFunction:
    """The action function a checkpoint dict holds."""
    model = ActionFunction(
        int(payload["outcome_states"]),
        int(payload["card_types"]),
        player_types=int(payload.get("player_types", 0)),
        extra_layer=int(payload.get("extra_layer", 0)),
    )
    model.load_state_dict(payload["model"])
    return model


def load_model(path: Path, device: str = "cpu") -> ActionFunction:
    """The action function of a checkpoint file (read with ``weights_only=True``)."""
    payload = read_checkpoint_of(path, CHECKPOINT_KIND, CHECKPOINT_FORMAT, device, AgentError)
    return model_from_payload(payload)


def observer_payload(observer: Observer, model: ActionFunction) -> dict[str, Any]:
    """A checkpoint's entries for ``observer`` kept beside ``model``: its state, and its
    own action function when that is not ``model`` (an exploiter's observer reads the
    fitted model it exploits, not the exploiter)."""
    extra: dict[str, Any] = {"observer": observer.state()}
    base = observer.emission.action_function
    if base is not model:
        extra["observer_model"] = checkpoint_payload(base)
    return extra


def observer_from_payload(payload: dict[str, Any], model: ActionFunction) -> Observer | None:
    """The observer a checkpoint dict keeps beside its model (:func:`observer_payload`), or
    None."""
    state = payload.get("observer")
    if state is None:
        return None
    base = payload.get("observer_model")
    try:
        return Observer.from_state(model if base is None else model_from_payload(base), state)
    except ObserverError as error:
        raise AgentError(f"the checkpoint's observer: {error}") from error


@dataclass(frozen=True)
class SavedPlayer:
    """What a network player's checkpoint holds: the model, its observer (or None), the
    player-type prior (or None) and the whole dict (its reports included)."""

    model: ActionFunction
    observer: Observer | None
    type_prior: Floats | None
    payload: dict[str, Any]


def load_player(path: Path, device: str = "cpu") -> SavedPlayer:
    """The model, observer and type prior of a checkpoint file (``weights_only=True``); an
    observer over the checkpoint's own typed model takes the checkpoint's type prior (its
    player-type beliefs start from it)."""
    payload = read_checkpoint_of(path, CHECKPOINT_KIND, CHECKPOINT_FORMAT, device, AgentError)
    prior = payload.get("type_prior")
    model = model_from_payload(payload)
    type_prior = None if prior is None else np.asarray(prior, dtype=np.float64)
    observer = observer_from_payload(payload, model)
    if (
        observer is not None
        and type_prior is not None
        and observer.emission.action_function is model
    ):
        observer.set_type_prior(type_prior)  # the model's fitted prior, the newest estimate
    return SavedPlayer(model, observer, type_prior, payload)


def load_limitnet_agent(path: Path, *, device: str = "cpu") -> LimitNetAgent:
    """The agent of a network player's checkpoint (the registered loader); a fitted model
    with player types plays them by its ``type_prior``, one with an observer reads its
    opponents' beliefs. A typed model whose observer tracks player types keeps each seat's
    type for the whole match (what those beliefs assume); otherwise it draws one each hand."""
    saved = load_player(path, device)
    observer = saved.observer
    return LimitNetAgent(
        saved.model,
        device=device,
        type_prior=saved.type_prior,
        observer=observer,
        match_types=observer is not None and observer.type_prior is not None,
    )
