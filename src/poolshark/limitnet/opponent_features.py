"""Per-opponent features, the inputs of the exploiter's extra layer (thesis section 6.4):
for each opponent of the player to act, in seat order after it, the opponent's card-type
belief and three features of its betting position relative to the decider:

0. ``after_me``: 1 when the opponent acts after the decider on the later rounds;
1. ``to_act``: 1 when the opponent will act again this round if the betting goes on (it
   has not acted yet or not yet matched the bet);
2. ``bet_share``: the opponent's bet this round over the bet to match (0 when no bet).

An opponent is *present* while it has not folded; absent ones read zeros.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from poolshark.engine.batched import BatchedTables
from poolshark.engine.kernel import ACTED, BET, BUTTON, CURRENT_BET, FOLDED

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

POSITION_FEATURES = 3
"""Betting-position features per opponent (after the card-type belief)."""


def opponent_features(
    batch: BatchedTables, tables: Int64s, seats: Int64s, beliefs: Floats
) -> tuple[Floats, Bools]:
    """((D, S - 1, T + 3) features, (D, S - 1) present) of the opponents of the player at
    ``seats[i]`` of ``tables[i]``, the opponents ordered from the next seat on;
    ``beliefs`` (D, S, T) every seat's card-type belief at that table."""
    count, seats_at = tables.size, batch.config.seats
    others = (seats[:, None] + np.arange(1, seats_at)[None, :]) % seats_at  # (D, S - 1)
    rows = np.arange(count)[:, None]
    state = batch.seat[tables]  # (D, fields, S)
    present = state[rows, FOLDED, others] == 0
    button = batch.table[tables, BUTTON][:, None]
    order = (others - button - 1) % seats_at
    mine = (seats[:, None] - button - 1) % seats_at
    current = batch.table[tables, CURRENT_BET][:, None]
    bet = state[rows, BET, others]
    acted = state[rows, ACTED, others] != 0
    position = np.stack(
        [
            (order > mine).astype(np.float64),
            (~(acted & (bet == current))).astype(np.float64),
            np.where(current > 0, bet / np.maximum(current, 1), 0.0),
        ],
        axis=2,
    )
    features = np.concatenate([beliefs[rows, others], position], axis=2)
    features[~present] = 0.0
    return features, present
