"""The exploiter's asymmetric actor-critic: a fair actor and a critic that sees every card.

* The **actor** reads only what the acting seat may know, as one float vector built by
  :func:`actor_inputs` from the engine's ``PublicObservation`` (own cards, the board so far,
  every seat's chips and status, the price), the synthetic-pool decision context (position,
  the preflop action so far, aggressors, raises this street: the betting history in a
  fixed size) and cheap strength features of the own cards on the current board (the
  preflop ranking, ``made`` and ``draw`` of ``pool.strength``). It scores a discrete
  :class:`~poolshark.engine.actions.ActionSet`; illegal actions are masked out of the
  softmax, so they get probability exactly 0.
* The **critic** reads the actor's vector plus privileged extras: every hole card and the
  whole board (the extra part of ``PrivilegedObservation``, built here from card indices)
  and who would win the showdown on that board (``train.rollout.showdown_features``). It
  only trains the actor; a deployed agent never runs it.

The two are separate multilayer perceptrons (tanh, orthogonal initialization, a small last
policy layer so the first policy is near uniform over the legal actions).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor, nn

from poolshark.engine.observation import PublicObservation
from poolshark.pool.context import N_FEATURES, Feature

Float32s = npt.NDArray[np.float32]
Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

MASKED_LOGIT = -1e9
"""Logit of an illegal action: its softmax weight underflows to exactly 0."""
POSITIONS = 6
FACING = 5
HAND_FEATURES = 6
"""Preflop strength, made, made ** (opponents alive), draw, pocket pair, suited."""
CHIP_FEATURES = (
    Feature.TO_CALL,
    Feature.POT,
    Feature.MY_BET,
    Feature.MY_STACK,
    Feature.CURRENT_BET,
    Feature.MIN_RAISE_TO,
    Feature.MAX_RAISE_TO,
)
CONTEXT_FEATURES = POSITIONS + FACING + 12 + len(CHIP_FEATURES)
"""Width of the encoded decision context (see :func:`encode_contexts`)."""


def actor_input_size(seats: int) -> int:
    """Width of the actor's input at a table of ``seats``."""
    return PublicObservation(seats).public_size + CONTEXT_FEATURES + HAND_FEATURES


def encode_contexts(contexts: Floats) -> Float32s:
    """(D, CONTEXT_FEATURES) decision contexts as numbers near [0, 1]: one-hot position and
    preflop facing, capped counts, flags, and chip amounts in units of 100 big blinds."""
    f = np.asarray(contexts, dtype=np.float64)
    if f.ndim != 2 or f.shape[1] != N_FEATURES:
        raise ValueError(f"contexts must be (D, {N_FEATURES}), got {f.shape}")
    count = f.shape[0]
    rows = np.arange(count)
    position = np.zeros((count, POSITIONS))
    position[rows, np.clip(f[:, Feature.POSITION].astype(np.int64), 0, POSITIONS - 1)] = 1.0
    facing = np.zeros((count, FACING))
    facing[rows, np.clip(f[:, Feature.PREFLOP_FACING].astype(np.int64), 0, FACING - 1)] = 1.0
    big = np.maximum(f[:, Feature.BIG_BLIND], 1.0)[:, None]
    scalars = np.stack(
        [
            np.minimum(f[:, Feature.PREFLOP_RAISES], 4.0) / 4.0,
            np.minimum(f[:, Feature.MY_RAISE_LEVEL], 4.0) / 4.0,
            np.minimum(f[:, Feature.LIMPERS], 5.0) / 5.0,
            f[:, Feature.PREFLOP_AGGRESSOR],
            f[:, Feature.PREVIOUS_AGGRESSOR],
            f[:, Feature.CBET],
            f[:, Feature.FACING_BET],
            np.minimum(f[:, Feature.FACING_FRACTION], 4.0) / 4.0,
            np.minimum(f[:, Feature.STREET_RAISES], 4.0) / 4.0,
            f[:, Feature.CHECKED],
            f[:, Feature.ALIVE] / 10.0,
            f[:, Feature.IN_POSITION],
        ],
        axis=1,
    )
    chips = f[:, list(CHIP_FEATURES)] / big / 100.0
    return np.concatenate([position, facing, scalars, chips], axis=1).astype(np.float32)


def hand_features(
    percentile: Floats, made: Floats, draw: Floats, alive: Floats, hole: Int64s
) -> Float32s:
    """(D, HAND_FEATURES): preflop strength ``1 - percentile``, ``made``, ``made`` raised to
    the live opponents (a rough chance to be best against all of them), ``draw``, and
    whether the own cards are a pair or suited. ``made`` and ``draw`` are 0 preflop."""
    opponents = np.maximum(np.asarray(alive, dtype=np.float64) - 1.0, 1.0)
    pair = (hole[:, 0] >> 2) == (hole[:, 1] >> 2)
    suited = (hole[:, 0] & 3) == (hole[:, 1] & 3)
    return np.stack([1.0 - percentile, made, made**opponents, draw, pair, suited], axis=1).astype(
        np.float32
    )


def actor_inputs(observations: Float32s, contexts: Floats, hands: Float32s) -> Float32s:
    """The actor's input rows: public observation, encoded context, hand features."""
    return np.ascontiguousarray(
        np.concatenate([observations, encode_contexts(contexts), hands], axis=1),
        dtype=np.float32,
    )


def _mlp(inputs: int, hidden: int, layers: int, outputs: int, last_gain: float) -> nn.Sequential:
    """tanh MLP with orthogonal weights (gain sqrt 2) and zero biases; last layer gain
    ``last_gain``."""
    modules: list[nn.Module] = []
    width = inputs
    for _ in range(layers):
        linear = nn.Linear(width, hidden)
        nn.init.orthogonal_(linear.weight, gain=float(np.sqrt(2.0)))
        nn.init.zeros_(linear.bias)
        modules += [linear, nn.Tanh()]
        width = hidden
    head = nn.Linear(width, outputs)
    nn.init.orthogonal_(head.weight, gain=last_gain)
    nn.init.zeros_(head.bias)
    modules.append(head)
    return nn.Sequential(*modules)


def privileged_size(seats: int) -> int:
    """Width of the critic's extras: every seat's hole cards and the whole board as
    one-hots (``PrivilegedObservation``'s extra part), and the showdown features."""
    return 52 * (seats + 1) + seats


def card_slots(cards: Tensor) -> Tensor:
    """(D, 2 * seats + 5) indices into the 52 * (seats + 1) one-hot columns of ``cards``
    (the hole cards in viewer-relative seat order, then the whole board)."""
    seats = (cards.shape[1] - 5) // 2
    slot = torch.cat(
        [
            torch.arange(seats, device=cards.device).repeat_interleave(2),
            torch.full((5,), seats, device=cards.device),
        ]
    )
    return cards.long() + 52 * slot[None, :]


def privileged_one_hot(cards: Tensor) -> Tensor:
    """(D, 52 * (seats + 1)) one-hots of ``cards`` (D, 2 * seats + 5): the same layout as
    the extra part of :class:`~poolshark.engine.observation.PrivilegedObservation`."""
    seats = (cards.shape[1] - 5) // 2
    out = torch.zeros(cards.shape[0], 52 * (seats + 1), device=cards.device)
    return out.scatter_(1, card_slots(cards), 1.0)


class PrivilegedCritic(nn.Module):
    """The critic MLP. Its first layer on the card one-hots is stored as an embedding bag:
    the sum of one weight row per card equals the one-hot product, at a fraction of the
    cost (the tests compare both)."""

    def __init__(self, seats: int, hidden: int, layers: int) -> None:
        super().__init__()
        dense_inputs = actor_input_size(seats) + seats
        card_inputs = 52 * (seats + 1)
        first = nn.Linear(dense_inputs + card_inputs, hidden)
        nn.init.orthogonal_(first.weight, gain=float(np.sqrt(2.0)))
        self.dense = nn.Linear(dense_inputs, hidden)
        self.cards = nn.EmbeddingBag(card_inputs, hidden, mode="sum")
        with torch.no_grad():
            self.dense.weight.copy_(first.weight[:, :dense_inputs])
            self.dense.bias.zero_()
            self.cards.weight.copy_(first.weight[:, dense_inputs:].T)
        self.body = nn.Sequential(nn.Tanh(), _mlp(hidden, hidden, layers - 1, 1, last_gain=1.0))

    def first_layer(self, inputs: Tensor, cards: Tensor, showdown: Tensor) -> Tensor:
        """The first layer's pre-activation."""
        dense: Tensor = self.dense(torch.cat([inputs, showdown], dim=-1))
        embedded: Tensor = self.cards(card_slots(cards))
        return dense + embedded

    def forward(self, inputs: Tensor, cards: Tensor, showdown: Tensor) -> Tensor:
        value: Tensor = self.body(self.first_layer(inputs, cards, showdown))
        return value.squeeze(-1)


class ActorCritic(nn.Module):
    """Separate actor and critic MLPs for ``seats``-handed tables and ``actions`` choices."""

    def __init__(self, seats: int, actions: int, *, hidden: int = 256, layers: int = 2) -> None:
        super().__init__()
        if not 2 <= seats <= 10:
            raise ValueError(f"seats must be 2..10, got {seats}")
        if min(actions, hidden, layers) < 1:
            raise ValueError(
                f"actions, hidden width and layers must be positive, got {actions}, {hidden}, "
                f"{layers}"
            )
        self.sizes = {"seats": seats, "actions": actions, "hidden": hidden, "layers": layers}
        inputs = actor_input_size(seats)
        self.actor = _mlp(inputs, hidden, layers, actions, last_gain=0.01)
        self.critic = PrivilegedCritic(seats, hidden, layers)

    def hyperparameters(self) -> dict[str, int]:
        """Constructor arguments (stored in checkpoints)."""
        return dict(self.sizes)

    def logits(self, inputs: Tensor, mask: Tensor) -> Tensor:
        """(D, A) action scores with illegal actions at :data:`MASKED_LOGIT`."""
        scores: Tensor = self.actor(inputs)
        return scores.masked_fill(~mask, MASKED_LOGIT)

    def probabilities(self, inputs: Tensor, mask: Tensor) -> Tensor:
        """(D, A) the policy: a softmax over the legal actions only."""
        return torch.softmax(self.logits(inputs, mask), dim=-1)

    def value(self, inputs: Tensor, cards: Tensor, showdown: Tensor) -> Tensor:
        """(D,) the critic's estimate of the (scaled) return from a decision, from the
        actor's input plus every card (``cards``, see :func:`privileged_one_hot`) and the
        showdown features."""
        estimate: Tensor = self.critic(inputs, cards, showdown)
        return estimate

    def forward(self, inputs: Tensor, mask: Tensor) -> Tensor:
        """The policy's probabilities (the actor alone, as deployed)."""
        return self.probabilities(inputs, mask)


def policy_terms(logits: Tensor, mask: Tensor, actions: Tensor) -> tuple[Tensor, Tensor]:
    """(log-probability of the taken ``actions``, entropy over the legal actions)."""
    log_p = torch.log_softmax(logits, dim=-1)
    chosen = log_p.gather(1, actions[:, None]).squeeze(1)
    p = log_p.exp()
    entropy = -torch.where(mask, p * log_p, torch.zeros_like(p)).sum(dim=-1)
    return chosen, entropy


def reference_kl(logits: Tensor, mask: Tensor, reference: Tensor) -> Tensor:
    """(D,) KL(policy || reference) over the legal actions.

    ``reference`` rows must already be positive on every legal action (smooth them first,
    :func:`smooth_reference`); illegal entries are ignored.
    """
    log_p = torch.log_softmax(logits, dim=-1)
    p = log_p.exp()
    safe = torch.where(mask, reference, torch.ones_like(reference))
    terms = torch.where(mask, p * (log_p - torch.log(safe)), torch.zeros_like(p))
    return terms.sum(dim=-1)


def smooth_reference(probabilities: Floats, mask: npt.NDArray[np.bool_], epsilon: float) -> Floats:
    """Reference rows renormalized over the legal actions and mixed with ``epsilon`` of the
    uniform legal policy, so every legal action has positive weight (the KL stays finite)."""
    if not 0.0 <= epsilon < 1.0:
        raise ValueError(f"the reference smoothing must lie in [0, 1), got {epsilon}")
    legal = np.where(mask, np.asarray(probabilities, dtype=np.float64), 0.0)
    counts = mask.sum(axis=1, keepdims=True)
    total = legal.sum(axis=1, keepdims=True)
    uniform = mask / np.maximum(counts, 1)
    shaped = np.divide(legal, total, out=uniform.astype(np.float64), where=total > 0)
    smoothed: Floats = (1.0 - epsilon) * shaped + epsilon * uniform
    return smoothed


def build_actor_critic(hyperparameters: dict[str, Any]) -> ActorCritic:
    """An :class:`ActorCritic` from stored constructor arguments."""
    sizes = {k: int(v) for k, v in hyperparameters.items()}
    return ActorCritic(
        sizes["seats"], sizes["actions"], hidden=sizes["hidden"], layers=sizes["layers"]
    )
