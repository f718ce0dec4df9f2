"""The range oracle: from the public history of a hand, a distribution over a seat's combos.

Bayes says what shape the answer has. A player's actions depend on its own cards and on
public information only, so

    P(combo | history) ∝ [combo not blocked] * Σ_k w_k Π_{its actions t} P_k(a_t | public_t, combo)

where k runs over the kinds of player the seat might be (the pool is anonymous). The
network learns exactly these pieces:

* a causal GRU reads the hand's public actions one by one (:func:`~poolshark.oracle.data.
  token_matrix`); its state after action ``t`` describes that action in its
  public context;
* for a preflop action, a head maps that state to K x 169 scores, one per preflop class
  (preflop, suits carry no information about a decision);
* for a postflop action, a per-combo scorer reads each combo's features on that street's
  board (:func:`~poolshark.oracle.data.combo_features`; the strength features also
  through learned piecewise-linear functions, :class:`StrengthFunctions`), modulated by
  the action's state (a scale and a shift per hidden unit), and gives K scores per combo;
* a question about seat ``s`` after some actions sums the scores of ``s``'s own actions so
  far, adds a learned weight per component, takes the log-sum-exp over the K components
  and a softmax over the combos not blocked by the board or the asker's dead cards, which
  get probability exactly 0.

So the answer depends only on the asked seat's own actions, each judged in its public
context; a seat that has not acted yet gets the uniform deal. Every score is computed once
per action of a hand and shared by all questions about that hand. No feature depends on
suit names, so renaming the suits permutes the answer in the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor, nn

from poolshark.cards.combos import COMBO_CLASS, N_CLASSES, N_COMBOS
from poolshark.oracle.batches import OracleBatch, example_starts, make_batch
from poolshark.oracle.data import OracleData, from_query
from poolshark.oracle.features import COMBO_FEATURES, TOKEN_FEATURES
from poolshark.pool.ranges import RangeQuery
from poolshark.training.common import read_checkpoint_of

Float32s = npt.NDArray[np.float32]

CHECKPOINT_KIND = "range-oracle"
CHECKPOINT_FORMAT = "poolshark-range-oracle-v1"


class OracleError(ValueError):
    """An oracle checkpoint or request that cannot be used; the message says why."""


@dataclass(frozen=True)
class BatchTensors:
    """An :class:`~poolshark.oracle.data.OracleBatch` as tensors on one device."""

    tokens: Tensor
    pre_positions: Tensor
    post_positions: Tensor
    post_board: Tensor
    board_features: Tensor
    blocked: Tensor
    combo: Tensor
    shown: Tensor
    deal: Tensor
    pre_pairs: Tensor
    post_pairs: Tensor

    @classmethod
    def of(cls, batch: OracleBatch, device: torch.device | str) -> BatchTensors:
        """Move a numpy batch to ``device``."""
        target = torch.device(device)

        def put(array: npt.NDArray[Any]) -> Tensor:
            return torch.from_numpy(np.ascontiguousarray(array)).to(target)

        return cls(
            tokens=put(batch.tokens),
            pre_positions=put(batch.pre_positions),
            post_positions=put(batch.post_positions),
            post_board=put(batch.post_board),
            board_features=put(batch.board_features),
            blocked=put(batch.blocked),
            combo=put(batch.combo),
            shown=put(batch.shown),
            deal=put(batch.deal),
            pre_pairs=put(batch.pre_pairs),
            post_pairs=put(batch.post_pairs),
        )


KNOTS = 21
"""Knots of the piecewise-linear functions of the strength features (every 0.05)."""


STRENGTHS = ((0, 1, 1.0), (0, 2, 1.0), (0, 3, 1.0), (1, 1, 0.5), (2, 1, 1.0))
"""The per-combo features read piecewise-linearly, as (column, power, top): ``made`` and its
square and cube (the multiway strength of 3 and 4 players), ``draw`` on [0, 0.5], and the
value percentile."""


class StrengthFunctions(nn.Module):
    """``width`` learned piecewise-linear functions of each strength feature, with a knot
    every ``top / (KNOTS - 1)``, summed: tables of the values at the knots, interpolated.

    The same as a linear layer on a "hat" code of each feature (each value shared between
    its two nearest knots), computed as one weighted embedding bag instead of building the
    code: steps as sharp as the pool's ramps are one knot apart, which a linear layer on
    the raw feature only reaches with huge weights.
    """

    def __init__(self, width: int) -> None:
        super().__init__()
        self.table = nn.Parameter(torch.randn(len(STRENGTHS) * KNOTS, width) / math.sqrt(KNOTS))

    def forward(self, features: Tensor) -> Tensor:
        """(..., width) from per-combo features (..., COMBO_FEATURES)."""
        indices, weights = [], []
        for slot, (column, power, top) in enumerate(STRENGTHS):
            position = (features[..., column] ** power).clamp(0.0, top) * ((KNOTS - 1) / top)
            below = position.floor().clamp(max=KNOTS - 2)
            share = position - below
            index = below.long() + slot * KNOTS
            indices += [index, index + 1]
            weights += [1.0 - share, share]
        flat_index = torch.stack(indices, dim=-1).reshape(-1, 2 * len(STRENGTHS))
        flat_weight = torch.stack(weights, dim=-1).reshape(-1, 2 * len(STRENGTHS))
        summed = nn.functional.embedding_bag(
            flat_index, self.table, per_sample_weights=flat_weight, mode="sum"
        )
        result: Tensor = summed.reshape(*features.shape[:-1], -1)
        return result


class OracleNet(nn.Module):
    """The network described in the module docstring.

    ``hidden``: GRU width (and token embedding); ``layers``: GRU layers; ``preflop_width``:
    hidden width of the preflop head; ``combo_width``: hidden width of the per-combo
    scorer; ``components``: K, the mixture over kinds of player.
    """

    def __init__(
        self,
        hidden: int = 128,
        layers: int = 1,
        preflop_width: int = 256,
        combo_width: int = 32,
        components: int = 8,
    ) -> None:
        super().__init__()
        self.hidden, self.layers = hidden, layers
        self.preflop_width, self.combo_width, self.components = (
            preflop_width,
            combo_width,
            components,
        )
        self.embed = nn.Sequential(nn.Linear(TOKEN_FEATURES, hidden), nn.ReLU())
        self.gru = nn.GRU(hidden, hidden, num_layers=layers, batch_first=True)
        self.preflop = nn.Sequential(
            nn.Linear(hidden, preflop_width),
            nn.ReLU(),
            nn.Linear(preflop_width, components * N_CLASSES),
        )
        self.combo_in = nn.Linear(COMBO_FEATURES, combo_width)
        self.strength = StrengthFunctions(combo_width)
        self.modulation = nn.Linear(hidden, 2 * combo_width)
        self.combo_mid = nn.Linear(combo_width, combo_width)
        self.combo_out = nn.Linear(combo_width, components)
        self.mixture = nn.Parameter(torch.zeros(components))
        for last in (self.preflop[-1], self.combo_out):
            # small but not zero: zero would give the K components equal scores and equal
            # gradients forever, a mixture of one
            assert isinstance(last, nn.Linear)
            with torch.no_grad():
                last.weight.mul_(0.1)
                last.bias.zero_()
        self.combo_class: Tensor
        self.register_buffer(
            "combo_class", torch.from_numpy(COMBO_CLASS.astype(np.int64)), persistent=False
        )

    def hyperparameters(self) -> dict[str, Any]:
        """Constructor arguments (saved in checkpoints)."""
        return {
            "hidden": self.hidden,
            "layers": self.layers,
            "preflop_width": self.preflop_width,
            "combo_width": self.combo_width,
            "components": self.components,
        }

    def combo_features(self, features: Tensor) -> Tensor:
        """(..., combo_width) the first layer of the per-combo scorer, per board."""
        hidden: Tensor = self.combo_in(features) + self.strength(features)
        return hidden

    def forward(self, batch: BatchTensors) -> Tensor:
        """(E, 1326) log-probabilities of every example's combos; -inf where blocked.

        Examples whose seat has no postflop action yet only have preflop scores, which
        depend on the class alone: their mixture is taken over 169 classes, not 1,326
        combos (most examples; this is where the time goes otherwise). Under bfloat16
        autocast the layers run in bfloat16 and the mixture (sums, log-sum-exp) in float32.
        """
        n_examples = batch.blocked.shape[0]
        k = self.components
        device = batch.tokens.device
        states, _ = self.gru(self.embed(batch.tokens))
        flat = states.reshape(-1, self.hidden)
        prior = torch.log_softmax(self.mixture, dim=0)[None, :, None]
        preflop = torch.zeros(n_examples, k, N_CLASSES, device=device)
        if batch.pre_positions.numel():
            scores = self.preflop(flat[batch.pre_positions]).float().reshape(-1, k, N_CLASSES)
            preflop = preflop.index_add(0, batch.pre_pairs[0], scores[batch.pre_pairs[1]])
        preflop = preflop + prior
        has_post = torch.zeros(n_examples, dtype=torch.bool, device=device)
        has_post[batch.post_pairs[0]] = True
        plain = torch.nonzero(~has_post).squeeze(1)
        mixed = torch.zeros(n_examples, N_COMBOS, device=device)
        by_class = torch.logsumexp(preflop[plain], dim=1)[:, self.combo_class]
        mixed = mixed.index_copy(0, plain, by_class)
        if batch.post_positions.numel():
            rich = torch.nonzero(has_post).squeeze(1)
            slot = torch.full((n_examples,), -1, dtype=torch.long, device=device)
            slot[rich] = torch.arange(rich.numel(), device=device)
            scale, shift = self.modulation(flat[batch.post_positions]).chunk(2, dim=1)
            combos = self.combo_features(batch.board_features)[batch.post_board]
            hidden = torch.relu(combos * (1.0 + scale[:, None, :]) + shift[:, None, :])
            scores = self.combo_out(torch.relu(self.combo_mid(hidden))).float()
            logits = preflop[rich][:, :, self.combo_class].transpose(1, 2)
            logits = logits.index_add(0, slot[batch.post_pairs[0]], scores[batch.post_pairs[1]])
            mixed = mixed.index_copy(0, rich, torch.logsumexp(logits, dim=2))
        mixed = mixed.masked_fill(batch.blocked, -math.inf)
        return torch.log_softmax(mixed, dim=1)


def build_oracle(hyperparameters: dict[str, Any] | None = None) -> OracleNet:
    """A fresh network with the given constructor arguments."""
    return OracleNet(**dict(hyperparameters or {}))


def read_oracle_checkpoint(path: Path | str, device: str = "cpu") -> dict[str, Any]:
    """A range-oracle checkpoint's dict, loaded with ``weights_only=True``."""
    return read_checkpoint_of(Path(path), CHECKPOINT_KIND, None, device, OracleError)


class RangeOracle:
    """A trained :class:`OracleNet` answering :class:`~poolshark.pool.ranges.RangeQuery`
    batches (a :class:`~poolshark.pool.ranges.RangeSource`).

    ``batch_hands`` questions go through the network at a time.
    """

    def __init__(self, net: OracleNet, *, device: str = "cpu", batch_hands: int = 512) -> None:
        self.net = net.to(torch.device(device)).eval()
        self.device = device
        self.batch_hands = batch_hands

    @classmethod
    def load(cls, path: Path | str, *, device: str = "cpu", batch_hands: int = 512) -> RangeOracle:
        """The oracle stored in a checkpoint (``best.pt`` or ``last.pt`` of a run)."""
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise OracleError(f"device {device!r} asked for, but torch sees no CUDA GPU here")
        payload = read_oracle_checkpoint(path, device)
        net = build_oracle(dict(payload["hyperparameters"]))
        net.load_state_dict(payload["model"])
        return cls(net, device=device, batch_hands=batch_hands)

    @torch.no_grad()
    def log_probabilities(self, data: OracleData) -> Float32s:
        """(E, 1326) log-probabilities of every example of ``data`` (-inf where blocked)."""
        out = np.zeros((len(data), N_COMBOS), dtype=np.float32)
        starts = example_starts(data)
        for first in range(0, data.hands, self.batch_hands):
            hands = np.arange(first, min(first + self.batch_hands, data.hands))
            batch = make_batch(data, hands, starts)
            result = self.net(BatchTensors.of(batch, self.device))
            out[batch.examples] = result.float().cpu().numpy()
        return out

    def ranges(self, query: RangeQuery) -> Float32s:
        """(N, 1326) the range of each query row's seat: rows sum to 1, blocked combos 0."""
        probabilities = np.exp(self.log_probabilities(from_query(query)).astype(np.float64))
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        result: Float32s = probabilities.astype(np.float32)
        return result
