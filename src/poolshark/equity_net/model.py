"""The equity network: from (hole cards, board) to our equity against all 1,326 combos.

Two architectures share one interface (``forward(holes, boards) -> (n, 1326)`` equities in
the canonical combo order, ``embed(holes, boards) -> (n, 100)``):

* :class:`SeedEquityNet`, the network of seed 000: 133 inputs, four hidden layers
  800-400-200-100 each followed by ReLU, BatchNorm and Dropout(0.1), then a linear layer to
  the 1,326 outputs. Each of the 7 card slots (two hole cards, five board cards) is a
  one-hot of 14 ranks and one of 5 suits; the 14th rank and the 5th suit mean "no card" and
  are both set for a board card not dealt yet. Cards are sorted (hole, then board)
  so equal card sets always give equal inputs.
* :class:`ImprovedEquityNet`: suits renamed to a canonical order before anything else (24
  suit renamings of a deal have the same equities, so the network learns one of them and
  the outputs are mapped back), richer order-free inputs (card sets, rank and suit counts,
  street), a wider residual trunk, a 100-wide embedding layer, a non-linear head and
  sigmoid outputs.

Both take hole cards (n, 2) and boards (n, 5) as integer card indices, with any value
>= 52 (the datasets use 255) for an undealt board card. The loss is the mean squared error
over possible combos only (:func:`masked_mse`).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import torch
from torch import Tensor, nn

from poolshark.cards.card import N_CARDS, N_RANKS, N_SUITS, CardError
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS
from poolshark.cards.isomorphism import CARD_PERMUTATIONS, COMBO_PERMUTATIONS

EMBEDDING_SIZE = 100
"""Width of the exported board-texture embedding."""
SLOTS = 7
ABSENT = N_CARDS
"""Internal index of "no card" (an undealt board slot)."""
SLOT_WIDTH = (N_RANKS + 1) + (N_SUITS + 1)
SEED_INPUTS = SLOTS * SLOT_WIDTH
"""133: seven card slots of 14 rank and 5 suit one-hots."""
IMPROVED_INPUTS = SEED_INPUTS + 2 * N_CARDS + 2 * N_RANKS + 2 * N_SUITS + 3
"""274: the slot one-hots, hole and board card sets, rank and suit counts, street."""
SEED_HIDDEN = (800, 400, 200, EMBEDDING_SIZE)
Architecture = Literal["seed", "improved"]
ARCHITECTURES: tuple[Architecture, ...] = ("seed", "improved")


def _conflict_table() -> Tensor:
    """(53, 1326) bool: True where the combo holds the card (row 52, "no card", is empty)."""
    table = torch.zeros(N_CARDS + 1, N_COMBOS, dtype=torch.bool)
    cards = torch.from_numpy(COMBO_CARDS.astype(np.int64))
    table[cards[:, 0], torch.arange(N_COMBOS)] = True
    table[cards[:, 1], torch.arange(N_COMBOS)] = True
    return table


_CONFLICTS = _conflict_table()


def possible_combos(holes: Tensor, boards: Tensor) -> Tensor:
    """(n, 1326) bool: True where a combo shares no card with the hole cards or the board."""
    cards = sorted_cards(holes, boards)
    table = _CONFLICTS.to(cards.device)
    taken = table[cards[:, 0]]
    for slot in range(1, SLOTS):
        taken = taken | table[cards[:, slot]]
    return ~taken


def sorted_cards(holes: Tensor, boards: Tensor) -> Tensor:
    """(n, 7) long: hole cards ascending, then board cards ascending, ABSENT last."""
    if holes.dim() != 2 or holes.shape[1] != 2:
        raise CardError(f"hole cards must be an (n, 2) tensor, got shape {tuple(holes.shape)}")
    if boards.dim() != 2 or boards.shape != (holes.shape[0], 5):
        raise CardError(
            f"boards must be an (n, 5) tensor, got shape {tuple(boards.shape)}"
            f" for {holes.shape[0]} hole-card rows"
        )
    if holes.numel() and (int(holes.min()) < 0 or int(holes.max()) >= N_CARDS):
        raise CardError("hole cards must be card indices 0..51")
    if boards.numel() and int(boards.min()) < 0:
        raise CardError("board cards must be card indices 0..51, or >= 52 for no card")
    hole = torch.sort(holes.long(), dim=1).values
    board = torch.sort(boards.long().clamp(max=ABSENT), dim=1).values
    return torch.cat([hole, board], dim=1)


def slot_one_hots(cards: Tensor) -> Tensor:
    """(n, 133) float: per slot a 14-wide rank and a 5-wide suit one-hot (ABSENT: the last)."""
    absent = cards >= ABSENT
    ranks = torch.where(absent, N_RANKS, cards >> 2)
    suits = torch.where(absent, N_SUITS, cards & 3)
    parts = torch.cat(
        [
            nn.functional.one_hot(ranks, N_RANKS + 1),
            nn.functional.one_hot(suits, N_SUITS + 1),
        ],
        dim=2,
    )
    return parts.reshape(cards.shape[0], SEED_INPUTS).float()


class SeedEquityNet(nn.Module):
    """Seed 000's network: 133 -> 800 -> 400 -> 200 -> 100 -> 1326, linear outputs."""

    arch: Architecture = "seed"

    def __init__(self, dropout: float = 0.1) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = SEED_INPUTS
        for size in SEED_HIDDEN:
            layers += [nn.Linear(width, size), nn.ReLU(), nn.BatchNorm1d(size), nn.Dropout(dropout)]
            width = size
        self.trunk = nn.Sequential(*layers)
        self.head = nn.Linear(EMBEDDING_SIZE, N_COMBOS)
        self.dropout = dropout

    def hyperparameters(self) -> dict[str, Any]:
        """What :func:`build_model` needs to rebuild this network (saved in checkpoints)."""
        return {"dropout": self.dropout}

    def embed(self, holes: Tensor, boards: Tensor) -> Tensor:
        """(n, 100) the last hidden layer: the board-texture embedding."""
        embedding: Tensor = self.trunk(slot_one_hots(sorted_cards(holes, boards)))
        return embedding

    def forward(self, holes: Tensor, boards: Tensor) -> Tensor:
        """(n, 1326) predicted equity against each combo (unbounded, linear outputs)."""
        out: Tensor = self.head(self.embed(holes, boards))
        return out


class ResidualBlock(nn.Module):
    """x + Linear(ReLU(Linear(LayerNorm(x)))): a pre-norm residual MLP block."""

    def __init__(self, width: int, dropout: float) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.inner = nn.Linear(width, width)
        self.outer = nn.Linear(width, width)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        """The block's output, same shape as ``x``."""
        update: Tensor = self.outer(self.dropout(torch.relu(self.inner(self.norm(x)))))
        return x + update


class ImprovedEquityNet(nn.Module):
    """Suit-canonical inputs and outputs, rich features, residual trunk, sigmoid outputs."""

    arch: Architecture = "improved"

    def __init__(
        self,
        width: int = 768,
        blocks: int = 2,
        head: int = 768,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.width, self.blocks, self.head_width, self.dropout = width, blocks, head, dropout
        self.stem = nn.Linear(IMPROVED_INPUTS, width)
        self.trunk = nn.Sequential(*(ResidualBlock(width, dropout) for _ in range(blocks)))
        self.to_embedding = nn.Sequential(nn.LayerNorm(width), nn.Linear(width, EMBEDDING_SIZE))
        self.head = nn.Sequential(
            nn.ReLU(),
            nn.Linear(EMBEDDING_SIZE, head),
            nn.ReLU(),
        )
        self.combo_out = nn.Linear(head, N_COMBOS)
        extended = torch.cat(
            [torch.from_numpy(CARD_PERMUTATIONS.astype(np.int64)), torch.full((24, 1), ABSENT)],
            dim=1,
        )
        self.card_permutations: Tensor
        self.combo_permutations: Tensor
        self.register_buffer("card_permutations", extended, persistent=False)
        self.register_buffer(
            "combo_permutations",
            torch.from_numpy(COMBO_PERMUTATIONS.astype(np.int64)),
            persistent=False,
        )

    def hyperparameters(self) -> dict[str, Any]:
        """What :func:`build_model` needs to rebuild this network (saved in checkpoints)."""
        return {
            "width": self.width,
            "blocks": self.blocks,
            "head": self.head_width,
            "dropout": self.dropout,
        }

    def canonical(self, holes: Tensor, boards: Tensor) -> tuple[Tensor, Tensor]:
        """Rename suits to the canonical order: (n, 7) sorted cards, (n, 24) renamings used.

        The canonical form is the lexicographically smallest (sorted hole, sorted board)
        over the 24 renamings, so suit-renamed deals get identical inputs. The second
        result marks every renaming that yields it (more than one when some suits are
        interchangeable, e.g. two suits absent from all seven cards).
        """
        cards = sorted_cards(holes, boards)
        renamed = self.card_permutations[:, cards].transpose(0, 1)  # (n, 24, 7)
        renamed = torch.cat(
            [
                torch.sort(renamed[:, :, :2], dim=2).values,
                torch.sort(renamed[:, :, 2:], dim=2).values,
            ],
            dim=2,
        )
        weights = (ABSENT + 1) ** torch.arange(SLOTS - 1, -1, -1, device=cards.device)
        keys = (renamed * weights).sum(dim=2)
        renamings = keys == keys.min(dim=1, keepdim=True).values
        choice = torch.argmax(renamings.to(torch.uint8), dim=1)
        rows = torch.arange(cards.shape[0], device=cards.device)
        return renamed[rows, choice], renamings

    def features(self, cards: Tensor) -> Tensor:
        """(n, 274) float inputs from sorted canonical cards (see :data:`IMPROVED_INPUTS`)."""
        one_hot = nn.functional.one_hot(cards, N_CARDS + 1)[:, :, :N_CARDS].float()
        hole_set = one_hot[:, :2].sum(dim=1)
        board_set = one_hot[:, 2:].sum(dim=1)
        board_ranks = board_set.reshape(-1, N_RANKS, N_SUITS)
        hole_ranks = hole_set.reshape(-1, N_RANKS, N_SUITS)
        all_ranks = board_ranks + hole_ranks
        board_size = board_set.sum(dim=1).long() - 3
        street = nn.functional.one_hot(board_size.clamp(0, 2), 3).float()
        return torch.cat(
            [
                slot_one_hots(cards),
                hole_set,
                board_set,
                board_ranks.sum(dim=2) / 2,
                all_ranks.sum(dim=2) / 2,
                board_ranks.sum(dim=1) / 2,
                all_ranks.sum(dim=1) / 2,
                street,
            ],
            dim=1,
        )

    def _canonical_embedding(self, holes: Tensor, boards: Tensor) -> tuple[Tensor, Tensor]:
        cards, renamings = self.canonical(holes, boards)
        hidden = self.trunk(torch.relu(self.stem(self.features(cards))))
        embedding: Tensor = self.to_embedding(hidden)
        return embedding, renamings

    def embed(self, holes: Tensor, boards: Tensor) -> Tensor:
        """(n, 100) the embedding layer (before its ReLU); equal for suit-renamed deals."""
        return self._canonical_embedding(holes, boards)[0]

    def forward(self, holes: Tensor, boards: Tensor) -> Tensor:
        """(n, 1326) predicted equity against each combo, in (0, 1).

        Canonical outputs are mapped back through every renaming that gives the canonical
        deal and averaged, so the prediction is exactly invariant under suit renaming, as
        the true equities are.
        """
        embedding, renamings = self._canonical_embedding(holes, boards)
        canonical = torch.sigmoid(self.combo_out(self.head(embedding)))
        ties = renamings.sum(dim=1, keepdim=True)
        order = torch.argsort(renamings.to(torch.uint8), dim=1, descending=True, stable=True)
        total = torch.zeros_like(canonical)
        for j in range(int(ties.max())):
            mapped = torch.gather(canonical, 1, self.combo_permutations[order[:, j]])
            total = total + torch.where(j < ties, mapped, 0.0)
        return total / ties


EquityNet = SeedEquityNet | ImprovedEquityNet


def build_model(arch: str, hyperparameters: dict[str, Any] | None = None) -> EquityNet:
    """A fresh network of the named architecture (``seed`` or ``improved``)."""
    options = dict(hyperparameters or {})
    if arch == "seed":
        return SeedEquityNet(**options)
    if arch == "improved":
        return ImprovedEquityNet(**options)
    raise ValueError(
        f"unknown equity network architecture {arch!r}; choose one of {', '.join(ARCHITECTURES)}"
    )


def masked_mse(
    predicted: Tensor, target: Tensor, mask: Tensor, count: Tensor | None = None
) -> Tensor:
    """Mean squared error over the possible combos only (``mask`` True), as a 0-d tensor.

    ``count`` replaces the number of possible combos as the divisor (a data-parallel
    process divides its part by the global count, see :mod:`poolshark.training.distributed`).
    """
    weights = mask.to(predicted.dtype)
    divisor = weights.sum() if count is None else count
    return ((predicted - target) ** 2 * weights).sum() / divisor.clamp(min=1.0)
