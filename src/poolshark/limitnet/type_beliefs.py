"""Joint card-type x player-type beliefs (seed 003 section 6.3): the pieces
:class:`~poolshark.limitnet.public_beliefs.PublicBeliefs` uses when its observer's action
function has player types and the observer knows their prior.

Per seat the belief is a (card types, player types) table ``b(c, t)``:

* a hand starts at ``b(c, t) = initial(c) * p(t)``, ``p`` the seat's player-type belief:
  the prior at the first hand of a match, the previous hand's carried belief after it;
* each action multiplies ``b(c, t)`` by ``P(action | card type c, player type t)`` (the
  observer's emission with the action function's player-type offset added) and
  renormalizes (``observer.belief_update``);
* a new stage moves the card part by the board class's transition for every player type,
  ``b'(d, t) = sum_c b(c, t) T(c, d)``, leaving the player-type marginal as it was;
* at the hand's end the player-type marginal ``sum_c b(c, t)`` is carried to the next
  hand, unless the seat's cards were shown: then the carried belief is recomputed from the
  hand's actions with the true cards, ``P(t | hand) ∝ p(t) prod_i P(a_i | cards, t)``
  (:func:`shown_type_log_likelihoods`, :func:`showdown_type_update`).

The formulas are written down in ``docs/limit.md`` ("Opponent beliefs").
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import torch

from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.card_features_compiled import card_feature_batch
from poolshark.limitnet.observer import DecisionArrays, Observer, ObserverError
from poolshark.limitnet.records import SHOWN_AT

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

BOARD_CARDS = 5
"""Cards of a full board (what a showdown shows)."""


def type_prior_of(observer: Observer) -> Floats:
    """(P,) the player-type prior the public beliefs start from: the observer's, or a
    single certain type when the beliefs are over card types only (no prior set)."""
    return np.ones(1) if observer.type_prior is None else observer.type_prior


def tracks_player_types(observer: Observer) -> bool:
    """Whether ``observer``'s public beliefs are joint over card and player types (it has a
    player-type prior, which only a model with player types takes)."""
    return observer.type_prior is not None


def start_joint(initial: Floats, types: Floats) -> Floats:
    """(..., C, P) the joint belief at a hand's start: ``initial`` (C,) card types times
    each seat's player-type belief ``types`` (..., P)."""
    joint: Floats = initial[:, None] * types[..., None, :]
    return joint


def type_marginal(joint: Floats) -> Floats:
    """(..., P) the player-type marginal of joint beliefs (..., C, P), renormalized (so a
    single player type is exactly 1)."""
    marginal = joint.sum(axis=-2)
    normalized: Floats = marginal / marginal.sum(axis=-1, keepdims=True)
    return normalized


def card_marginal(joint: Floats) -> Floats:
    """(..., C) the card-type marginal of joint beliefs (..., C, P): what a player reads."""
    marginal: Floats = joint.sum(axis=-1)
    return marginal


def advance_joint(joint: Floats, matrices: Floats) -> Floats:
    """Joint beliefs (k, S, C, P) carried to the next stage by row-stochastic card-type
    transitions (k, C, C), one per table, the same for every player type."""
    moved: Floats = np.einsum("kscp,kcd->ksdp", joint, matrices)
    return moved


def shown_type_log_likelihoods(
    model: ActionFunction,
    decisions: DecisionArrays,
    owners: Int64s,
    holes: Int64s,
    boards: Int64s,
    board_shown: Int64s,
) -> Floats:
    """(k, P) ``sum_i log P(a_i | true cards, player type t)`` over each of k shown seats'
    decisions in its hand: the action function itself, reading the cards' features at each
    decision's stage and the summed opponent beliefs each decision saw. ``decisions`` holds
    every seat's rows, ``owners`` (n,) the seat (0..k-1) of each; ``holes`` (k, 2) and
    ``boards`` (k, up to 5) the seats' cards, the first ``board_shown`` (k,) of a board dealt
    by the hand's end. One forward pass for all seats and types, so a wave of showdowns
    costs about one call; a seat with no rows gets zeros."""
    players = model.player_types
    if players == 0:
        raise ObserverError("a showdown's player-type update needs a model with player types")
    stages, bets, costs, opponents, legal, actions = decisions
    rows = stages.shape[0]
    seen = SHOWN_AT[stages]
    if rows and np.any(seen > board_shown[owners]):
        raise ObserverError("a board of fewer cards than a decision's stage shows")
    padded = np.zeros((holes.shape[0], BOARD_CARDS), dtype=np.int64)
    padded[:, : boards.shape[1]] = boards
    cards = card_feature_batch(holes[owners], padded[owners], seen)
    dtype = model.cost_weight.dtype

    def every_type(array: npt.NDArray[np.generic]) -> torch.Tensor:
        """The rows repeated once per player type (type-major)."""
        return torch.from_numpy(np.tile(array, (players,) + (1,) * (array.ndim - 1)))

    types = torch.arange(players).repeat_interleave(rows)
    with torch.no_grad():
        log_p = model.log_probabilities(
            every_type(stages),
            every_type(bets).to(dtype),
            every_type(costs).to(dtype),
            every_type(cards).to(dtype),
            every_type(opponents).to(dtype),
            every_type(legal),
            types=types,
        )
    taken = log_p.gather(1, every_type(actions)[:, None]).squeeze(1).double()
    summed = np.zeros((holes.shape[0], players))
    np.add.at(summed, owners, taken.reshape(players, rows).numpy().T)
    return summed


def showdown_type_update(entered: Floats, log_likelihoods: Floats) -> Floats:
    """(..., P) the player-type posteriors after showdowns: the belief each seat entered
    the hand with times the hand's likelihood with the true cards, normalized."""
    with np.errstate(divide="ignore"):  # a type ruled out before stays out
        weights = np.log(np.maximum(entered, 0.0)) + log_likelihoods
    top = weights.max(axis=-1, keepdims=True)
    if not np.all(np.isfinite(top)):
        raise ObserverError("the shown hand has probability 0 under every player type")
    posterior = np.exp(weights - top)
    normalized: Floats = posterior / posterior.sum(axis=-1, keepdims=True)
    return normalized
