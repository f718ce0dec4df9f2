"""Play complete hands on the readable engine with a style in every seat.

The player to act at a :class:`~poolshark.engine.table.Table` gets its context from
:func:`~poolshark.pool.context.context_from_table` and its action from the compiled sampler
(:func:`~poolshark.pool.policy.sample_actions`), so these hands follow exactly the policy the
exact ranges assume. This is the generator behind the tests and small experiments; the batched
engine drives the same sampler with its own arrays.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from poolshark.engine.config import GameConfig
from poolshark.engine.table import Table
from poolshark.pool.context import MOVE_FOLD, MOVE_RAISE, context_from_table
from poolshark.pool.policy import StyleBank, sample_actions


def play_hand(
    table: Table, bank: StyleBank, seat_styles: Sequence[int], rng: np.random.Generator
) -> Table:
    """Play ``table`` to the end, seat ``s`` following bank style ``seat_styles[s]``."""
    if len(seat_styles) != table.seats:
        raise ValueError(f"need a style for each of {table.seats} seats, got {len(seat_styles)}")
    board = np.array([table.board_cards], dtype=np.int64)
    while not table.done:
        seat = table.to_act
        if len(table.hole_cards[seat]) != 2:
            raise ValueError(f"seat {seat} has no known hole cards to play")
        move, amount = sample_actions(
            bank,
            np.array([seat_styles[seat]]),
            context_from_table(table)[None, :],
            np.array([table.hole_cards[seat]], dtype=np.int64),
            board,
            rng.random(1),
        )
        if move[0] == MOVE_FOLD:
            table.fold()
        elif move[0] == MOVE_RAISE:
            table.raise_to(int(amount[0]))
        else:
            table.check_call()
    return table


@dataclass(frozen=True)
class SeatedHand:
    """One finished hand and, per seat, the style index (and player) that played it."""

    table: Table
    styles: tuple[int, ...]
    players: tuple[int, ...]


def play_hands(
    config: GameConfig,
    stack: int,
    bank: StyleBank,
    player_styles: Sequence[int],
    hands: int,
    seed: int,
) -> Iterator[SeatedHand]:
    """Fast-fold play: each hand seats ``config.seats`` players drawn at random (without
    replacement) from ``player_styles`` (one bank index per player), every stack reset to
    ``stack`` chips and the button on a random seat."""
    if len(player_styles) < config.seats:
        raise ValueError(f"{len(player_styles)} players cannot fill {config.seats} seats")
    rng = np.random.default_rng(seed)
    for _ in range(hands):
        players = rng.choice(len(player_styles), size=config.seats, replace=False)
        styles = tuple(int(player_styles[p]) for p in players)
        button = int(rng.integers(config.seats))
        table = Table(config, [stack] * config.seats, button=button, seed=int(rng.integers(2**63)))
        play_hand(table, bank, styles, rng)
        yield SeatedHand(table, styles, tuple(int(p) for p in players))
