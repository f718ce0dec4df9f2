"""A learned state-value baseline for REINFORCE (``learning.baseline = "value"``).

REINFORCE's variance in poker comes mostly from the cards: a hand's result depends far more
on what was dealt than on the action taken. A baseline that depends on the state (never on
the action) leaves the gradient unbiased and removes that part. :class:`ValueBaseline` is a
small MLP over a decision's inputs (own cards and the board one-hot, the action history,
the scalars, the opponents) predicting the decision's return. Each epoch the advantages use
its predictions *before* it sees that epoch's returns, then it takes ``value_steps`` Adam
steps of squared error on them, so a return never baselines itself.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from poolshark.league.inputs import (
    ACTION_FEATURES,
    HISTORY,
    NO_CARD,
    OPPONENT_FEATURES,
    SCALARS,
    PolicyInputs,
)


def flat_features(inputs: PolicyInputs) -> torch.Tensor:
    """(B, width) hole and board cards one-hot (52 each), then history, scalars, opponents."""
    count = inputs.size
    cards = inputs.cards
    hole = torch.zeros(count, NO_CARD + 1, device=cards.device)
    board = torch.zeros(count, NO_CARD + 1, device=cards.device)
    hole.scatter_(1, cards[:, :2], 1.0)
    board.scatter_(1, cards[:, 2:], 1.0)
    return torch.cat(
        [
            hole[:, :NO_CARD],
            board[:, :NO_CARD],
            inputs.history.reshape(count, -1),
            inputs.scalars,
            inputs.opponents.reshape(count, -1),
        ],
        dim=1,
    )


class ValueBaseline(nn.Module):
    """Predicts a decision's return (big blinds) from its inputs."""

    def __init__(self, seats: int, hidden: int = 128) -> None:
        super().__init__()
        width = 2 * NO_CARD + HISTORY * ACTION_FEATURES + SCALARS + (seats - 1) * OPPONENT_FEATURES
        self.seats, self.hidden = seats, hidden
        self.body = nn.Sequential(
            nn.Linear(width, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU()
        )
        self.out = nn.Linear(hidden, 1)

    def forward(self, inputs: PolicyInputs) -> torch.Tensor:
        """(B,) predicted returns."""
        values: torch.Tensor = self.out(self.body(flat_features(inputs))).squeeze(-1)
        return values

    def hyperparameters(self) -> dict[str, Any]:
        return {"seats": self.seats, "hidden": self.hidden}


def fit_values(
    critic: ValueBaseline,
    optimizer: torch.optim.Optimizer,
    inputs: PolicyInputs,
    returns: torch.Tensor,
    steps: int,
) -> float:
    """``steps`` full-batch Adam steps of mean squared error; returns the last loss."""
    loss = torch.zeros(())
    for _ in range(steps):
        loss = nn.functional.mse_loss(critic(inputs), returns)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()  # type: ignore[no-untyped-call]
        optimizer.step()
    return float(loss.detach())
