"""The league's action space: fold, call or bet, and the size of a bet.

A network answers three logits (fold / call / bet) and, for a bet, a size distribution
given by ``bet_mean`` in (0, 1) and ``bet_std``. The size is drawn in logit space,
``z ~ Normal(logit(bet_mean), bet_std)``, and the bet fraction is ``sigmoid(z)``; the
training loss scores the recorded ``z`` with the same Normal (:func:`size_log_prob`), so
what is sampled and what is trained are one distribution (``sigmoid``'s Jacobian does not
depend on the parameters, so it drops out of the gradient). The fraction places the bet
geometrically between the smallest and the largest legal raise (all-in):
``raise_to = low * (high / low) ** fraction``, so small and large bets get equal room.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import torch

from poolshark.league.inputs import BET, CALL, FOLD

Floats = npt.NDArray[np.float64]
Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

ENGINE_MOVE = np.array([0, 1, 2], dtype=np.int64)
"""The engine's move (fold, check/call, raise) of each league action (FOLD, CALL, BET)."""
_EDGE = 1e-6

__all__ = [
    "BET",
    "CALL",
    "ENGINE_MOVE",
    "FOLD",
    "masked_log_probabilities",
    "raise_amounts",
    "sample_actions",
    "sample_sizes",
    "size_location",
    "size_log_prob",
]


def masked_log_probabilities(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """(B, 3) log-probabilities over the legal actions (illegal ones get a very low value)."""
    floor = torch.finfo(logits.dtype).min / 2
    return torch.log_softmax(torch.where(mask, logits, torch.full_like(logits, floor)), dim=-1)


def size_location(bet_mean: torch.Tensor) -> torch.Tensor:
    """The size Normal's location: ``logit(bet_mean)`` (clamped off 0 and 1)."""
    return torch.logit(bet_mean.clamp(_EDGE, 1.0 - _EDGE))


def size_log_prob(bet_mean: torch.Tensor, bet_std: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    """Log-density of logit-space sizes ``z`` (B,) under the network's size head."""
    location = size_location(bet_mean).squeeze(-1)
    scale = bet_std.squeeze(-1)
    normal = torch.distributions.Normal(location, scale)
    density: torch.Tensor = normal.log_prob(z)  # type: ignore[no-untyped-call]
    return density


def sample_sizes(
    bet_mean: torch.Tensor, bet_std: torch.Tensor, rng: np.random.Generator
) -> Float32s:
    """(B,) logit-space sizes drawn from the size head with the agent's random stream."""
    location = size_location(bet_mean).squeeze(-1).cpu().numpy().astype(np.float64)
    scale = bet_std.squeeze(-1).cpu().numpy().astype(np.float64)
    noise = rng.standard_normal(location.shape[0])
    return (location + scale * noise).astype(np.float32)


def sample_actions(probabilities: Floats, rng: np.random.Generator) -> Int64s:
    """(B,) one action per row of (B, 3) probabilities (rows sum to 1)."""
    cumulative = np.cumsum(probabilities, axis=1)
    draws = rng.random(probabilities.shape[0]) * cumulative[:, -1]
    chosen = (draws[:, None] >= cumulative).sum(axis=1)
    # guard against a draw that lands on an illegal action's zero-width slot at the end
    actions: Int64s = np.minimum(chosen, probabilities.shape[1] - 1).astype(np.int64)
    return actions


def raise_amounts(z: Float32s, low: Int64s, high: Int64s) -> Int64s:
    """Raise-to totals for logit-space sizes ``z`` between the legal ``low`` and ``high``
    (rows without a legal raise, ``low < 0``, get -1)."""
    fraction = 1.0 / (1.0 + np.exp(-z.astype(np.float64)))
    low_f = np.maximum(low, 1).astype(np.float64)
    high_f = np.maximum(high, low_f)
    amount = np.rint(low_f * (high_f / low_f) ** fraction).astype(np.int64)
    amount = np.clip(amount, low, np.maximum(high, low))
    return np.where(low >= 0, amount, -1)
