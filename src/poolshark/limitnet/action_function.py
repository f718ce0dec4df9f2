"""The action selection function: a class-mixture regression per option, a softmax over
the legal actions (thesis section 4.4.1; the equations are reconstructed in
``docs/limit.md``).

For option ``j`` (0 call, 1 raise) of a decision at stage ``s``, with bet features
``b_j`` (after the option), card features ``c`` and summed opponent card-type beliefs
``o``:

* gating: ``P(k | j) = softmax_k(G[s, j, k] . [b_j, c, o, 1])`` over ``K = 8`` outcome
  states (multinomial logit, linear in every input);
* state values: ``v_{j,k} = V[s, j, k] . [b_j, 1]`` (linear in the bet features);
* option utility: ``u_j = sum_k P(k | j) v_{j,k} - w[s] cost_j`` (the direct cost of the
  option, in small bets, priced by its own weight); a fold's utility is 0;
* ``P(a) = softmax(u)`` over the legal actions (fold only when facing a bet, raise only
  below the cap).

Every stage has its own parameters. Everything is batched over decisions: rows are
grouped by stage and each group is one set of matrix products.

With ``player_types`` T > 0 (the thesis's player modelling, section 6.3) a decision may
carry the acting player's type ``t``: the gating logits gain a free parameter per stage,
option, outcome state and type, ``G_type[s, j, k, t]``, and nothing else changes (most
parameters are shared between the types). A decision without a type (``-1``, say an
exploiter built from a typed model) gets no offset.

With ``extra_layer`` H > 0 (the exploiter's extra layer, section 6.4) the gating also
reads H *tile* sums: each active opponent's features ``f_o`` (its card-type belief and its
betting position relative to the decider, ``limitnet.opponent_features``) feed H tile nodes
``h_o = tanh(U[s] . [f_o, 1])``, summed over the opponents, ``t = sum_o h_o``, and the
gating logits gain ``G_tile[s, j, k] . t``. Summing the opponents' beliefs first loses who
holds which belief where; the tiles keep each opponent's belief and position together.
``G_tile`` starts at zero, so a model given the layer plays as before until it learns.
"""

from __future__ import annotations

import torch
from torch import nn

from poolshark.limitnet.bet_features import BET_FEATURES
from poolshark.limitnet.card_features import input_size
from poolshark.limitnet.opponent_features import POSITION_FEATURES

OUTCOME_STATES = 8
"""Outcome states per option and stage (the thesis's choice)."""

CARD_TYPES = 8
"""Card types per opponent belief vector (the thesis's choice). A player with an observer
reads its opponents' public beliefs (``limitnet.public_beliefs``); one without reads zeros."""

STAGES = 4
OPTIONS = 2
OpponentInputs = tuple[torch.Tensor, torch.Tensor]
"""The extra layer's inputs: (D, S, F) per-opponent features and (D, S) which are present."""
BET_SIZE = len(BET_FEATURES)


class ActionFunction(nn.Module):
    """The action selection function's parameters, one set per stage (see the module).

    ``init_scale`` is the spread of the random gating weights; the values and the cost
    weight start at zero, so a fresh function plays every legal action alike.
    """

    def __init__(
        self,
        outcome_states: int = OUTCOME_STATES,
        card_types: int = CARD_TYPES,
        seed: int = 0,
        player_types: int = 0,
        extra_layer: int = 0,
    ) -> None:
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        self.outcome_states = outcome_states
        self.card_types = card_types
        self.player_types = player_types
        self.card_sizes = tuple(input_size(stage) for stage in range(STAGES))
        self.gates = nn.ParameterList(
            nn.Parameter(
                0.01
                * torch.randn(
                    OPTIONS,
                    outcome_states,
                    BET_SIZE + size + card_types + 1,
                    generator=generator,
                )
            )
            for size in self.card_sizes
        )
        self.values = nn.ParameterList(
            nn.Parameter(
                0.01 * torch.randn(OPTIONS, outcome_states, BET_SIZE + 1, generator=generator)
            )
            for _ in range(STAGES)
        )
        self.cost_weight = nn.Parameter(torch.zeros(STAGES))
        self.type_gates = (
            nn.Parameter(
                0.1
                * torch.randn(STAGES, OPTIONS, outcome_states, player_types, generator=generator)
            )
            if player_types > 0
            else None
        )
        self.extra_layer = extra_layer
        self.tile_weights = (
            nn.Parameter(
                0.3
                * torch.randn(
                    STAGES,
                    extra_layer,
                    card_types + POSITION_FEATURES + 1,
                    generator=generator,
                )
            )
            if extra_layer > 0
            else None
        )
        self.tile_gates = (
            nn.Parameter(torch.zeros(STAGES, OPTIONS, outcome_states, extra_layer))
            if extra_layer > 0
            else None
        )

    def clear_belief_gates(self) -> None:
        """Zero the gating weights of the summed opponent beliefs: a model fitted without
        beliefs then plays alike when they are fed in, until it learns to read them."""
        with torch.no_grad():
            for size, gates in zip(self.card_sizes, self.gates, strict=True):
                gates[:, :, BET_SIZE + size : BET_SIZE + size + self.card_types] = 0.0

    def utilities(
        self,
        stage: int,
        bets: torch.Tensor,
        costs: torch.Tensor,
        cards: torch.Tensor,
        beliefs: torch.Tensor,
        types: torch.Tensor | None = None,
        opponents: OpponentInputs | None = None,
    ) -> torch.Tensor:
        """(D, 3) utilities of fold, call, raise for D decisions at one ``stage``:
        ``bets`` (D, 2, 9), ``costs`` (D, 2), ``cards`` (D, card inputs of the stage),
        ``beliefs`` (D, card types), ``types`` (D,) player types or -1 (optional),
        ``opponents`` the per-opponent features and which are present (the extra layer's
        inputs; a model without the layer ignores them)."""
        rows = bets.shape[0]
        ones = torch.ones(rows, OPTIONS, 1, dtype=bets.dtype, device=bets.device)
        shared = torch.cat([cards, beliefs], dim=1).unsqueeze(1).expand(-1, OPTIONS, -1)
        gate_inputs = torch.cat([bets, shared, ones], dim=2)  # (D, 2, inputs)
        logits = torch.einsum("doi,oki->dok", gate_inputs, self.gates[stage])
        if types is not None and self.type_gates is not None:
            offsets = self.type_gates[stage][:, :, types.clamp(min=0)].permute(2, 0, 1)
            logits = logits + offsets * (types >= 0).to(logits.dtype)[:, None, None]
        if opponents is not None and self.tile_weights is not None and self.tile_gates is not None:
            features, present = opponents
            weights = self.tile_weights[stage]  # (H, features + 1)
            nodes = torch.tanh(
                torch.einsum("dsf,hf->dsh", features, weights[:, :-1]) + weights[:, -1]
            )
            tiles = (nodes * present.to(nodes.dtype)[:, :, None]).sum(dim=1)  # (D, H)
            logits = logits + torch.einsum("dh,okh->dok", tiles, self.tile_gates[stage])
        states = torch.softmax(logits, dim=2)
        value_inputs = torch.cat([bets, ones], dim=2)
        values = torch.einsum("doi,oki->dok", value_inputs, self.values[stage])
        option = (states * values).sum(dim=2) - self.cost_weight[stage] * costs
        return torch.cat([torch.zeros(rows, 1, dtype=bets.dtype, device=bets.device), option], 1)

    def log_probabilities(
        self,
        stages: torch.Tensor,
        bets: torch.Tensor,
        costs: torch.Tensor,
        cards: torch.Tensor,
        beliefs: torch.Tensor,
        legal: torch.Tensor,
        types: torch.Tensor | None = None,
        opponents: OpponentInputs | None = None,
    ) -> torch.Tensor:
        """(D, 3) log-probabilities of fold, call, raise (-inf where illegal) for D
        decisions of any stages: ``cards`` is (D, widest card inputs), each row's own
        stage's inputs first and zeros after; ``legal`` (D, 3) booleans; ``types`` (D,)
        the players' types, -1 for none (optional); ``opponents`` ((D, S, F) features,
        (D, S) present) for the extra layer (optional)."""
        rows = stages.shape[0]
        utilities = torch.zeros(rows, 3, dtype=bets.dtype, device=bets.device)
        for stage in range(STAGES):
            at = torch.nonzero(stages == stage).flatten()
            if at.numel() == 0:
                continue
            size = self.card_sizes[stage]
            part = self.utilities(
                stage,
                bets[at],
                costs[at],
                cards[at, :size],
                beliefs[at],
                None if types is None else types[at],
                None if opponents is None else (opponents[0][at], opponents[1][at]),
            )
            utilities = utilities.index_copy(0, at, part)
        masked = utilities.masked_fill(~legal, float("-inf"))
        return torch.log_softmax(masked, dim=1)


def widest_cards() -> int:
    """Width of a card-feature row that fits every stage (the turn's 136)."""
    return max(input_size(stage) for stage in range(STAGES))
