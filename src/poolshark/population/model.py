"""The population action model: decision features to a distribution over 14 action classes
(fold, check/call, eleven raise sizes as pot fractions, all-in) for the pool's average
player.

One categorical covers both what the player does and how much it raises (seed 000 used
three action logits and a separate size scalar): the sizes players use cluster on a few
pot fractions, a mixture over buckets shows that directly, and one softmax gives the exact
probability of every concrete action, which the true-policy KL and the exploiter's KL
reference need. Classes a decision does not allow are masked out before the softmax.

Network (:class:`PopulationNet`):

* the preflop class (169) is embedded (``class_embedding`` wide);
* each opponent row (public facts and the range view) goes through a shared two-layer
  MLP; the rows of the opponents present are pooled by mean and max (order-free, any number
  of opponents: a Deep Sets encoder);
* optionally the 100-wide board-texture embedding of a trained equity network
  (:mod:`poolshark.equity_net.model`, frozen) for postflop decisions;
* all of it concatenated with the public and hand features, a linear layer to ``width``,
  ``depth`` pre-norm residual blocks, and a linear head to the 14 logits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from poolshark.equity_net.model import EMBEDDING_SIZE, EquityNet, ResidualBlock, build_model
from poolshark.population.actions import N_CLASSES
from poolshark.population.features import HAND_SIZE, OPPONENT_SIZE, PUBLIC_SIZE, DecisionFeatures

N_HAND_CLASSES = 169
MASKED = -1e9
"""Logit given to classes a decision does not allow (exp underflows to exactly 0)."""


@dataclass(frozen=True)
class FeatureTensors:
    """:class:`~poolshark.population.data.DecisionFeatures` as tensors on a device."""

    public: Tensor
    hand: Tensor
    hand_class: Tensor
    cards: Tensor
    opponents: Tensor
    legal: Tensor

    @classmethod
    def of(cls, features: DecisionFeatures, device: torch.device | str = "cpu") -> FeatureTensors:
        """Copy the arrays to ``device`` (floats as float32)."""
        target = torch.device(device)
        return cls(
            public=torch.as_tensor(features.public, dtype=torch.float32, device=target),
            hand=torch.as_tensor(features.hand, dtype=torch.float32, device=target),
            hand_class=torch.as_tensor(features.hand_class, dtype=torch.long, device=target),
            cards=torch.as_tensor(features.cards, dtype=torch.long, device=target),
            opponents=torch.as_tensor(features.opponents, dtype=torch.float32, device=target),
            legal=torch.as_tensor(features.legal, dtype=torch.bool, device=target),
        )

    def __len__(self) -> int:
        return int(self.public.shape[0])

    def rows(self, index: Tensor) -> FeatureTensors:
        """The rows at ``index``."""
        return FeatureTensors(
            self.public[index],
            self.hand[index],
            self.hand_class[index],
            self.cards[index],
            self.opponents[index],
            self.legal[index],
        )


class PopulationNet(nn.Module):
    """Features to masked logits over the 14 action classes (see the module docstring)."""

    def __init__(
        self,
        width: int = 256,
        depth: int = 3,
        class_embedding: int = 16,
        opponent_width: int = 48,
        dropout: float = 0.0,
        equity_arch: str | None = None,
        equity_hyperparameters: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.width, self.depth = width, depth
        self.class_embedding_width, self.opponent_width = class_embedding, opponent_width
        self.dropout = dropout
        self.equity_arch = equity_arch
        self.equity_hyperparameters = dict(equity_hyperparameters or {})
        self.equity: EquityNet | None = None
        if equity_arch is not None:
            self.equity = build_model(equity_arch, self.equity_hyperparameters)
            self.equity.requires_grad_(False)
            self.equity.eval()
        self.hand_classes = nn.Embedding(N_HAND_CLASSES, class_embedding)
        self.opponent_encoder = nn.Sequential(
            nn.Linear(OPPONENT_SIZE, opponent_width),
            nn.ReLU(),
            nn.Linear(opponent_width, opponent_width),
            nn.ReLU(),
        )
        inputs = PUBLIC_SIZE + HAND_SIZE + class_embedding + 2 * opponent_width
        inputs += EMBEDDING_SIZE if self.equity is not None else 0
        self.stem = nn.Linear(inputs, width)
        self.blocks = nn.Sequential(*(ResidualBlock(width, dropout) for _ in range(depth)))
        self.head = nn.Sequential(nn.LayerNorm(width), nn.ReLU(), nn.Linear(width, N_CLASSES))

    def hyperparameters(self) -> dict[str, Any]:
        """Constructor arguments (saved in checkpoints)."""
        return {
            "width": self.width,
            "depth": self.depth,
            "class_embedding": self.class_embedding_width,
            "opponent_width": self.opponent_width,
            "dropout": self.dropout,
            "equity_arch": self.equity_arch,
            "equity_hyperparameters": self.equity_hyperparameters,
        }

    def train(self, mode: bool = True) -> PopulationNet:
        """Train mode for the trainable parts; the equity network stays in eval mode."""
        super().train(mode)
        if self.equity is not None:
            self.equity.eval()
        return self

    def board_embedding(self, cards: Tensor) -> Tensor:
        """(B, 100) the equity network's embedding of postflop rows (zeros preflop)."""
        assert self.equity is not None
        out = torch.zeros(cards.shape[0], EMBEDDING_SIZE, device=cards.device)
        postflop = torch.nonzero(cards[:, 2] < 52).flatten()
        if postflop.numel():
            with torch.no_grad():
                rows = cards[postflop]
                out[postflop] = self.equity.embed(rows[:, :2], rows[:, 2:]).float()
        return out

    def forward(self, batch: FeatureTensors) -> Tensor:
        """(B, 14) logits, :data:`MASKED` where the class is not allowed."""
        encoded = self.opponent_encoder(batch.opponents)
        present = batch.opponents[:, :, :1]
        count = present.sum(dim=1).clamp(min=1.0)
        kept = encoded * present  # absent rows to 0; encoded >= 0 (ReLU)
        mean = kept.sum(dim=1) / count
        largest = kept[:, 0]
        for slot in range(1, kept.shape[1]):  # 5-9x faster than amax(dim=1) on a CPU
            largest = torch.maximum(largest, kept[:, slot])
        parts = [batch.public, batch.hand, self.hand_classes(batch.hand_class), mean, largest]
        if self.equity is not None:
            parts.append(self.board_embedding(batch.cards))
        hidden = self.blocks(torch.relu(self.stem(torch.cat(parts, dim=1))))
        logits: Tensor = self.head(hidden)
        return logits.masked_fill(~batch.legal, MASKED)


def masked_nll(logits: Tensor, target: Tensor, count: Tensor | None = None) -> Tensor:
    """Mean negative log-likelihood of the target classes under masked logits (0-d).

    ``count`` replaces the number of rows as the divisor (a data-parallel process divides
    its part by the global count, see :mod:`poolshark.training.distributed`).
    """
    if count is None:
        return nn.functional.cross_entropy(logits, target)
    return nn.functional.cross_entropy(logits, target, reduction="sum") / count


def build_population_net(hyperparameters: dict[str, Any]) -> PopulationNet:
    """A fresh network from stored hyperparameters (unknown keys are an error)."""
    try:
        return PopulationNet(**hyperparameters)
    except TypeError as error:
        raise ValueError(f"bad population-model hyperparameters: {error}") from None
