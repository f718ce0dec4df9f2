"""The league's policy networks: three architectures behind one recurrent interface.

Every :class:`PokerNet` maps (:class:`~poolshark.league.inputs.PolicyInputs`, hand state,
game state) to a :class:`PolicyOutput`: raw logits for fold / call / bet, the mean and
standard deviation of a bet size in (0, 1), the two updated recurrent states and (with
``opponent_head``) the predicted answer of the next opponent to each action. The
caller feeds the states back: the hand state from one decision of a hand to the next (and
zeros at a new hand), the game state across the hands of a session. The states are
ordinary outputs of the graph, so a loss on a later step trains the heads that wrote them
(``tests/test_league_nets.py`` checks the gradients reach them); each is updated through
a keep gate (:class:`OutputHeads`), so what it holds persists by default.

* :class:`TransformerNet` (``"transformer"``): one token each for the cards (an attention
  encoder over the seven card slots), the action history, the scalars, the hand state and
  the game state, one per opponent, and a learnable CLS token, through a Transformer
  encoder; the heads read the CLS token. Opponent tokens carry no position, so the output
  does not depend on their order (their relative seat is one of their features).
* :class:`ConvNet` (``"cnn"``): convolutions over a suits x ranks card grid, an MLP on the
  history, an MLP fusing scalars, opponents and both states, then an MLP trunk.
* :class:`MLPNet` (``"mlp"``): everything flattened through one MLP (the baseline).

:func:`build_net` rebuilds a network from :meth:`PokerNet.hyperparameters` (what a
checkpoint stores beside the weights); :func:`net_from_config` builds one from a
validated :class:`NetConfig`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any, Literal, NamedTuple

import torch
from pydantic import BaseModel, ConfigDict, Field, model_validator
from torch import Tensor, nn

from poolshark.league.inputs import (
    ACTION_FEATURES,
    CARD_SLOTS,
    HISTORY,
    NO_CARD,
    OPPONENT_FEATURES,
    SCALARS,
    PolicyInputs,
)

__all__ = [
    "BET_MEAN_START",
    "BET_STD_MAX",
    "BET_STD_MIN",
    "KEEP_BIAS",
    "ConvNet",
    "MLPNet",
    "NetConfig",
    "OutputHeads",
    "PokerNet",
    "PolicyOutput",
    "TransformerNet",
    "build_net",
    "net_from_config",
]

BET_STD_MIN, BET_STD_MAX = 1e-4, 1.0
"""The bet size's standard deviation is clamped to this range."""
BET_MEAN_START = 0.3
"""A fresh network's bet mean (a fraction in (0, 1))."""
BET_STD_START = 0.2
"""A fresh network's bet standard deviation."""
HEAD_SCALE = 0.01
"""The last layers of the policy and bet heads start this small: near-uniform logits."""
KEEP_BIAS = 1.0
"""A fresh network's memory keeps sigmoid(1) = 73% of its state at each step."""
RANKS, SUITS = 13, 4


class PolicyOutput(NamedTuple):
    """What every network returns for B decisions."""

    action_logits: Tensor
    """(B, 3) raw logits for FOLD / CALL / BET (not masked)."""
    bet_mean: Tensor
    """(B, 1) bet fraction in (0, 1) (sigmoid)."""
    bet_std: Tensor
    """(B, 1) standard deviation of the bet fraction (exp, clamped to [1e-4, 1])."""
    hand_state: Tensor
    """(B, hand_state_dim) the updated per-hand recurrent state (gated, in [-1, 1])."""
    game_state: Tensor
    """(B, game_state_dim) the updated cross-hand recurrent state (gated, in [-1, 1])."""
    response_logits: Tensor | None = None
    """(B, 3, 3) with ``opponent_head``: for each action the decider might take (rows: fold /
    call / bet), raw logits of the next opponent's answer to it (fold / call / raise)."""


class NetConfig(BaseModel):
    """A policy network's shape (validated; unknown keys are errors).

    ``d_model``, the heads and the layers shape the Transformer; ``hidden`` is the width
    of the CNN's and the MLP's layers; the state sizes are those of every architecture.
    ``cross_hand_memory = false`` clears the game state with the hand state at every new
    hand (players of the network do it: ``league.agent`` and the replay), the control of
    the memory experiment. ``hand_end_step = true`` gives a network with cross-hand memory
    one more step at the end of every hand it sat in: it reads the hand's final state
    (:func:`~poolshark.league.inputs.encode_hand_ends`) and updates its game state, so
    what happened after its last decision (a fold to its bet, the calls to a showdown)
    reaches the memory; the step's action outputs are ignored. ``opponent_head = true`` adds
    an auxiliary head predicting how the next opponent answers each action
    (:attr:`PolicyOutput.response_logits`); trained with ``learning.opponent_coef``, its
    loss reaches the memory directly instead of only through the rewards (docs/league.md).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    architecture: Literal["transformer", "cnn", "mlp"] = "transformer"
    d_model: int = Field(64, gt=0)
    trunk_heads: int = Field(4, gt=0)
    trunk_layers: int = Field(2, gt=0)
    cards_heads: int = Field(4, gt=0)
    hand_state_dim: int = Field(64, gt=0)
    game_state_dim: int = Field(64, gt=0)
    hidden: int = Field(256, gt=0)
    cross_hand_memory: bool = True
    hand_end_step: bool = False
    opponent_head: bool = False

    @model_validator(mode="after")
    def _heads_divide_width(self) -> NetConfig:
        for name in ("trunk_heads", "cards_heads"):
            heads = getattr(self, name)
            if self.d_model % heads:
                raise ValueError(f"d_model={self.d_model} is not divisible by {name}={heads}")
        return self


class OutputHeads(nn.Module):
    """The heads every architecture shares, read from one feature vector of ``width``.

    Each recurrent state is updated like a GRU's: ``new = keep * old + (1 - keep) * write``
    with ``write = tanh(state_head(features))`` and ``keep = sigmoid(state_gate(features))``,
    so a state stays in [-1, 1] and persists unless the network learns to overwrite it
    (the keep gates start at ``sigmoid(KEEP_BIAS)``). A plain ``tanh`` overwrite must
    learn to copy the state through the whole network at every step; in a test task that
    recalls a bit several hands later it learned far slower or not at all (docs/league.md).
    """

    def __init__(
        self, width: int, hand_state_dim: int, game_state_dim: int, opponent_head: bool = False
    ) -> None:
        super().__init__()
        self.policy_head = nn.Linear(width, 3)
        self.response_head = nn.Linear(width, 9) if opponent_head else None
        self.bet_mean_head = nn.Linear(width, 1)
        self.bet_std_head = nn.Linear(width, 1)
        self.hand_state_head = nn.Linear(width, hand_state_dim)
        self.game_state_head = nn.Linear(width, game_state_dim)
        self.hand_state_gate = nn.Linear(width, hand_state_dim)
        self.game_state_gate = nn.Linear(width, game_state_dim)
        with torch.no_grad():
            for head in (self.policy_head, self.bet_mean_head, self.bet_std_head):
                head.weight.mul_(HEAD_SCALE)
                head.bias.zero_()
            self.bet_mean_head.bias.fill_(math.log(BET_MEAN_START / (1 - BET_MEAN_START)))
            self.bet_std_head.bias.fill_(math.log(BET_STD_START))
            self.hand_state_gate.bias.fill_(KEEP_BIAS)
            self.game_state_gate.bias.fill_(KEEP_BIAS)

    def forward(self, features: Tensor, hand_state: Tensor, game_state: Tensor) -> PolicyOutput:
        """The outputs from (B, width) features and the states they update."""
        keep_hand = torch.sigmoid(self.hand_state_gate(features))
        keep_game = torch.sigmoid(self.game_state_gate(features))
        write_hand = torch.tanh(self.hand_state_head(features))
        write_game = torch.tanh(self.game_state_head(features))
        responses = None
        if self.response_head is not None:
            responses = self.response_head(features).reshape(-1, 3, 3)
        return PolicyOutput(
            self.policy_head(features),
            torch.sigmoid(self.bet_mean_head(features)),
            torch.exp(self.bet_std_head(features)).clamp(BET_STD_MIN, BET_STD_MAX),
            keep_hand * hand_state + (1 - keep_hand) * write_hand,
            keep_game * game_state + (1 - keep_game) * write_game,
            responses,
        )


class PokerNet(nn.Module):
    """Base of the league's networks: one forward, one state layout, one checkpoint form."""

    architecture: str = ""
    heads: OutputHeads

    def __init__(self, config: NetConfig, seats: int) -> None:
        super().__init__()
        if not 2 <= seats <= 10:
            raise ValueError(f"seats must be 2..10, got {seats}")
        if config.architecture != self.architecture:
            raise ValueError(
                f"{type(self).__name__} builds {self.architecture!r}, "
                f"the config asks for {config.architecture!r}"
            )
        self.config = config
        self.seats = seats
        self.hand_state_dim = config.hand_state_dim
        self.game_state_dim = config.game_state_dim
        self.cross_hand_memory = config.cross_hand_memory
        self.hand_end_step = config.cross_hand_memory and config.hand_end_step

    def forward(self, inputs: PolicyInputs, hand_state: Tensor, game_state: Tensor) -> PolicyOutput:
        """Outputs for B decisions given each one's current hand and game state."""
        self.check_shapes(inputs, hand_state, game_state)
        features = self.features(inputs, hand_state, game_state)
        return self.heads(features, hand_state, game_state)  # type: ignore[no-any-return]

    def features(self, inputs: PolicyInputs, hand_state: Tensor, game_state: Tensor) -> Tensor:
        """(B, width) the features the heads read; each architecture writes its own."""
        raise NotImplementedError

    def initial_state(
        self, batch: int, device: torch.device | str = "cpu"
    ) -> tuple[Tensor, Tensor]:
        """Zero hand and game states for ``batch`` rows (a new hand, a new session)."""
        return (
            torch.zeros(batch, self.hand_state_dim, device=device),
            torch.zeros(batch, self.game_state_dim, device=device),
        )

    def hyperparameters(self) -> dict[str, Any]:
        """JSON-able description: :func:`build_net` of it rebuilds an identical network."""
        return {**self.config.model_dump(), "seats": self.seats}

    def check_shapes(self, inputs: PolicyInputs, hand_state: Tensor, game_state: Tensor) -> None:
        """A clear error when the inputs or states do not fit this network."""
        count, others = inputs.size, inputs.opponents.shape[1]
        if others != self.seats - 1:
            raise ValueError(
                f"inputs have {others} opponents; this network plays {self.seats} seats"
            )
        for name, state, width in (
            ("hand_state", hand_state, self.hand_state_dim),
            ("game_state", game_state, self.game_state_dim),
        ):
            if tuple(state.shape) != (count, width):
                raise ValueError(f"{name} has shape {tuple(state.shape)}, need ({count}, {width})")


class CardsEncoder(nn.Module):
    """Seven card tokens (rank, suit and slot embeddings) through self-attention, pooled
    over the cards present into one ``d_model`` token."""

    def __init__(self, d_model: int, heads: int) -> None:
        super().__init__()
        self.rank = nn.Embedding(RANKS + 1, d_model)  # the last row: no card
        self.suit = nn.Embedding(SUITS + 1, d_model)
        self.slot = nn.Embedding(CARD_SLOTS, d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, heads, 2 * d_model, dropout=0.0, batch_first=True, norm_first=True
        )
        self.attention = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)

    def forward(self, cards: Tensor) -> Tensor:
        """(B, 7) card ids -> (B, d_model)."""
        absent = cards == NO_CARD
        rank = torch.where(absent, RANKS, cards // SUITS)
        suit = torch.where(absent, SUITS, cards % SUITS)
        slots = torch.arange(CARD_SLOTS, device=cards.device)
        tokens = self.rank(rank) + self.suit(suit) + self.slot(slots)[None]
        if cards.shape[0] == 0:  # attention's padding mask cannot take an empty batch
            empty: Tensor = tokens.sum(dim=1)
            return empty
        tokens = self.attention(tokens, src_key_padding_mask=absent)
        present = (~absent).to(tokens.dtype)[:, :, None]
        pooled: Tensor = (tokens * present).sum(dim=1) / present.sum(dim=1)
        return pooled


def mlp(widths: list[int]) -> nn.Sequential:
    """Linear layers of ``widths`` with GELU between them (none after the last)."""
    layers: list[nn.Module] = []
    for k, (a, b) in enumerate(itertools.pairwise(widths)):
        layers.append(nn.Linear(a, b))
        if k < len(widths) - 2:
            layers.append(nn.GELU())
    return nn.Sequential(*layers)


class TransformerNet(PokerNet):
    """Cards, history, scalars, hand-state, game-state and opponent tokens with a CLS token
    through a Transformer encoder (see the module docstring)."""

    architecture = "transformer"

    def __init__(self, config: NetConfig, seats: int) -> None:
        super().__init__(config, seats)
        d = config.d_model
        self.cards = CardsEncoder(d, config.cards_heads)
        self.history = mlp([HISTORY * ACTION_FEATURES, 2 * d, d])
        self.scalars = mlp([SCALARS, d, d])
        self.hand_state_token = nn.Linear(config.hand_state_dim, d)
        self.game_state_token = nn.Linear(config.game_state_dim, d)
        self.opponent = mlp([OPPONENT_FEATURES, d, d])
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        layer = nn.TransformerEncoderLayer(
            d, config.trunk_heads, 4 * d, dropout=0.0, batch_first=True, norm_first=True
        )
        self.trunk = nn.TransformerEncoder(
            layer, config.trunk_layers, norm=nn.LayerNorm(d), enable_nested_tensor=False
        )
        self.heads = OutputHeads(
            d, config.hand_state_dim, config.game_state_dim, config.opponent_head
        )

    def features(self, inputs: PolicyInputs, hand_state: Tensor, game_state: Tensor) -> Tensor:
        count = inputs.size
        tokens = torch.cat(
            [
                self.cls.expand(count, -1, -1),
                self.cards(inputs.cards)[:, None],
                self.history(inputs.history.flatten(1))[:, None],
                self.scalars(inputs.scalars)[:, None],
                self.hand_state_token(hand_state)[:, None],
                self.game_state_token(game_state)[:, None],
                self.opponent(inputs.opponents),
            ],
            dim=1,
        )
        cls: Tensor = self.trunk(tokens)[:, 0]
        return cls


def card_grid(cards: Tensor) -> Tensor:
    """(B, 7) card ids -> (B, 5, 4 suits, 13 ranks) channels: hole, flop, turn, river and
    all cards together (no card: an empty grid)."""
    one_hot = nn.functional.one_hot(cards, NO_CARD + 1)[:, :, :NO_CARD].to(torch.float32)
    grid = one_hot.reshape(cards.shape[0], CARD_SLOTS, RANKS, SUITS).transpose(2, 3)
    return torch.stack(
        [
            grid[:, 0:2].sum(dim=1),
            grid[:, 2:5].sum(dim=1),
            grid[:, 5],
            grid[:, 6],
            grid.sum(dim=1),
        ],
        dim=1,
    )


class ConvNet(PokerNet):
    """The ``"cnn"`` network: a card-grid convolution, a history MLP and a state-fusion MLP,
    concatenated into an MLP trunk."""

    architecture = "cnn"
    CHANNELS = 32

    def __init__(self, config: NetConfig, seats: int) -> None:
        super().__init__(config, seats)
        h, c = config.hidden, self.CHANNELS
        self.cards = nn.Sequential(
            nn.Conv2d(5, c, kernel_size=3, padding=1),
            nn.GELU(),
            nn.Conv2d(c, c, kernel_size=3, padding=1),
            nn.GELU(),
            nn.Flatten(),
            nn.Linear(c * SUITS * RANKS, h),
            nn.GELU(),
        )
        self.history = nn.Sequential(mlp([HISTORY * ACTION_FEATURES, h, h]), nn.GELU())
        fused = (
            SCALARS
            + (seats - 1) * OPPONENT_FEATURES
            + config.hand_state_dim
            + config.game_state_dim
        )
        self.fusion = nn.Sequential(mlp([fused, h, h]), nn.GELU())
        self.trunk = nn.Sequential(mlp([3 * h, h, h]), nn.GELU())
        self.heads = OutputHeads(
            h, config.hand_state_dim, config.game_state_dim, config.opponent_head
        )

    def features(self, inputs: PolicyInputs, hand_state: Tensor, game_state: Tensor) -> Tensor:
        state = torch.cat(
            [inputs.scalars, inputs.opponents.flatten(1), hand_state, game_state], dim=1
        )
        joined = torch.cat(
            [
                self.cards(card_grid(inputs.cards)),
                self.history(inputs.history.flatten(1)),
                self.fusion(state),
            ],
            dim=1,
        )
        out: Tensor = self.trunk(joined)
        return out


class MLPNet(PokerNet):
    """The ``"mlp"`` baseline: own cards and board as one-hots, the flattened history,
    scalars, opponents and both states through one MLP."""

    architecture = "mlp"

    def __init__(self, config: NetConfig, seats: int) -> None:
        super().__init__(config, seats)
        h = config.hidden
        width = (
            2 * NO_CARD
            + HISTORY * ACTION_FEATURES
            + SCALARS
            + (seats - 1) * OPPONENT_FEATURES
            + config.hand_state_dim
            + config.game_state_dim
        )
        self.body = nn.Sequential(mlp([width, h, h]), nn.GELU())
        self.heads = OutputHeads(
            h, config.hand_state_dim, config.game_state_dim, config.opponent_head
        )

    def features(self, inputs: PolicyInputs, hand_state: Tensor, game_state: Tensor) -> Tensor:
        one_hot = nn.functional.one_hot(inputs.cards, NO_CARD + 1)[:, :, :NO_CARD].float()
        flat = torch.cat(
            [
                one_hot[:, :2].sum(dim=1),
                one_hot[:, 2:].sum(dim=1),
                inputs.history.flatten(1),
                inputs.scalars,
                inputs.opponents.flatten(1),
                hand_state,
                game_state,
            ],
            dim=1,
        )
        out: Tensor = self.body(flat)
        return out


ARCHITECTURES: dict[str, type[PokerNet]] = {
    "transformer": TransformerNet,
    "cnn": ConvNet,
    "mlp": MLPNet,
}


def net_from_config(config: NetConfig, seats: int) -> PokerNet:
    """A fresh network of ``config``'s architecture for tables of ``seats``."""
    return ARCHITECTURES[config.architecture](config, seats)


def build_net(hyperparameters: Mapping[str, Any]) -> PokerNet:
    """The network :meth:`PokerNet.hyperparameters` describes (weights freshly drawn)."""
    settings = dict(hyperparameters)
    if "seats" not in settings:
        raise ValueError("network hyperparameters lack 'seats'")
    seats = settings.pop("seats")
    if not isinstance(seats, int):
        raise ValueError(f"network hyperparameters: seats must be an int, got {seats!r}")
    return net_from_config(NetConfig.model_validate(settings), seats)
