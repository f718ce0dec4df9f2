"""Range-oracle batches (:func:`make_batch`): some hands of
:class:`~poolshark.oracle.data.OracleData` with all their examples, as the arrays the
network takes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from poolshark.oracle.data import VISIBLE, OracleData, blocked_combos, concatenated_ranges
from poolshark.oracle.features import TOKEN_FEATURES, combo_features, token_matrix

Int8s = npt.NDArray[np.int8]
Int16s = npt.NDArray[np.int16]
Int32s = npt.NDArray[np.int32]
Int64s = npt.NDArray[np.int64]
Float32s = npt.NDArray[np.float32]
Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]


# -- batches ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class OracleBatch:
    """Everything the network needs for some hands and their examples, as numpy arrays.

    ``tokens`` (B, L, TOKEN_FEATURES) each hand's actions, ``lengths`` (B,). The actions
    whose scores some example needs: ``pre_positions`` (P,) and ``post_positions`` (Q,) as
    flat positions ``b * L + t`` in the token grid, preflop and postflop; ``post_board``
    (Q,) each postflop action's row of ``board_features`` (G, 1326, COMBO_FEATURES), one
    per (hand, street) needed. Examples (E): ``examples`` their indices in the data,
    ``blocked`` (E, 1326), ``combo`` (-1 unknown), ``shown``, ``street``, ``end``,
    ``exact_logp``, ``deal`` (the question is not selected on the seat's cards: asked at
    the end of the hand, or before the seat's first action; the batch term of the loss
    averages over these only); an example's logits add the scores of its seat's earlier actions:
    ``pre_pairs`` (2, ·) and ``post_pairs`` (2, ·) rows (example, action) with the action
    an index into ``pre_positions`` / ``post_positions``.
    """

    tokens: Float32s
    lengths: Int64s
    pre_positions: Int64s
    post_positions: Int64s
    post_board: Int64s
    board_features: Float32s
    examples: Int64s
    blocked: Bools
    combo: Int64s
    shown: Bools
    street: Int64s
    end: Bools
    exact_logp: Floats
    deal: Bools
    pre_pairs: Int64s
    post_pairs: Int64s

    @property
    def size(self) -> int:
        """Number of examples E."""
        return int(self.examples.size)


def example_starts(data: OracleData) -> Int64s:
    """(H + 1,) offsets of each hand's examples (examples are sorted by hand)."""
    starts: Int64s = np.searchsorted(data.example_hand, np.arange(data.hands + 1)).astype(np.int64)
    return starts


def make_batch(data: OracleData, hands: Int64s, starts: Int64s | None = None) -> OracleBatch:
    """The batch of some hands with all their examples (``starts``: :func:`example_starts`,
    passed in to save recomputing it)."""
    hands = np.asarray(hands, dtype=np.int64)
    starts = example_starts(data) if starts is None else starts
    length = np.diff(data.action_start)[hands]
    width = max(int(length.max(initial=0)), 1)
    b = hands.size
    action_ids = concatenated_ranges(data.action_start[hands], length)
    grid_hand = np.repeat(np.arange(b), length)
    grid_t = np.arange(action_ids.size) - np.repeat(np.cumsum(length) - length, length)
    tokens = np.zeros((b, width, TOKEN_FEATURES), dtype=np.float32)
    tokens[grid_hand, grid_t] = token_matrix(data, hands)
    actor = np.full((b, width), -1, dtype=np.int64)
    actor[grid_hand, grid_t] = data.actor[action_ids]
    street = np.zeros((b, width), dtype=np.int64)
    street[grid_hand, grid_t] = data.street[action_ids]

    examples = concatenated_ranges(starts[hands], starts[hands + 1] - starts[hands])
    local = np.repeat(np.arange(b), starts[hands + 1] - starts[hands])
    before = data.example_before[examples].astype(np.int64)
    seat = data.example_seat[examples].astype(np.int64)
    earlier = (np.arange(width)[None, :] < before[:, None]) & (actor[local] == seat[:, None])
    pair_example, pair_t = np.nonzero(earlier)
    acted = np.zeros(examples.size, dtype=np.bool_)
    acted[pair_example] = True
    end = data.example_end[examples]
    pair_position = local[pair_example] * width + pair_t
    needed = np.unique(pair_position)
    is_pre = street.ravel()[needed] == 0
    pre_positions, post_positions = needed[is_pre], needed[~is_pre]
    pair_pre = street.ravel()[pair_position] == 0
    pre_pairs = np.stack(
        [pair_example[pair_pre], np.searchsorted(pre_positions, pair_position[pair_pre])]
    )
    post_pairs = np.stack(
        [pair_example[~pair_pre], np.searchsorted(post_positions, pair_position[~pair_pre])]
    )
    post_hand = post_positions // width
    post_street = street.ravel()[post_positions]
    board_keys, post_board = np.unique(post_hand * 4 + post_street, return_inverse=True)
    board_hands = hands[board_keys // 4]
    board_counts = np.array(VISIBLE)[board_keys % 4]
    features = combo_features(data.boards[board_hands].astype(np.int64), board_counts)
    board_shown = data.example_board[examples].astype(np.int64)
    blocked = blocked_combos(
        data.boards[data.example_hand[examples]].astype(np.int64),
        board_shown,
        data.example_dead[examples].astype(np.int64),
    )
    return OracleBatch(
        tokens=tokens,
        lengths=length.astype(np.int64),
        pre_positions=pre_positions,
        post_positions=post_positions,
        post_board=post_board.astype(np.int64).reshape(-1),
        board_features=features,
        examples=examples,
        blocked=blocked,
        combo=data.example_combo[examples].astype(np.int64),
        shown=data.example_shown[examples],
        street=np.searchsorted(VISIBLE, board_shown).astype(np.int64),
        end=end,
        exact_logp=data.exact_logp[examples],
        deal=end | ~acted,
        pre_pairs=pre_pairs.astype(np.int64),
        post_pairs=post_pairs.astype(np.int64),
    )
