"""The league policies' inputs: what the player to act may know, as fixed-shape arrays.

:func:`encode` turns the agent protocol's :class:`~poolshark.agents.protocol.Decisions`
into :class:`InputArrays` (numpy, one row per decision); :class:`PolicyInputs` holds the
same fields as torch tensors for the networks of ``league.nets``. Only what a seat may
legally know goes in: its own hole cards, the board dealt so far, every seat's chips and
status, and this hand's action log. Other players' hole cards and the undealt board never
do (a test changes them and sees no difference). :func:`encode_reference` is the plain
per-decision loop the tests compare the batched :func:`encode` with, value for value.

Amounts are in big blinds divided by 100 (as ``engine.observation`` does), so a 100 bb
stack reads 1.0. Seats are relative to the viewer: the viewer is 0 and the others follow
clockwise from its left, scaled by ``seats - 1`` to lie in (0, 1].

``cards`` (7 card ids): hole cards in slots 0-1, board in slots 2-6 (engine ints
``4 * rank + suit``), :data:`NO_CARD` (52) for a board card not yet shown.

``history`` (``HISTORY`` x ``ACTION_FEATURES``): this hand's actions, the most recent in
the last row, zero rows in front when fewer (the forced bets are not actions; the oldest
actions drop off past ``HISTORY``):

==== =============== ============================================================
col  name            value
==== =============== ============================================================
0    committed       the action's amount / the actor's stack at the hand's start
1    is_viewer       1 when the actor is the viewer
2    relative_seat   (actor - viewer) mod seats / (seats - 1)
3    street          street of the action / 3 (0 preflop .. 1 river)
4    fold            1 for a fold
5    check_call      1 for a check or a call
6    raise           1 for a bet or raise
7    amount          chips called, or a raise's total this round, in bb / 100
==== =============== ============================================================

``scalars`` (``SCALARS``):

==== =============== ============================================================
col  name            value
==== =============== ============================================================
0-3  street          one-hot: preflop, flop, turn, river
4    stack           own chips behind, bb / 100
5    pot             every chip put in this hand (bets included), bb / 100
6    to_call         chips to call, bb / 100
7    pot_odds        to_call / (pot + to_call)
8    stack_to_pot    stack / (stack + pot): SPR / (1 + SPR), in [0, 1]
9    position        (viewer - button - 1) mod seats / (seats - 1): 0 acts first
                     after the flop, 1 is the button
10   live            players not folded / seats
11   min_raise_to    smallest legal raise-to total, bb / 100 (0: no raise allowed)
12   preflop_rank    1 - the hole cards' preflop percentile (1: aces, near 0: 72o)
13   made            made-hand strength on the board shown (0 preflop), as the
                     exploiter and the styles see it (``agents.bots.hand_strengths``)
14   draw            draw strength on the board shown (0 preflop and on the river)
==== =============== ============================================================

Columns 12-14 summarise the cards' strength. They encode nothing a player cannot see, and
spare REINFORCE from rediscovering hand rankings from one-hot cards: a heads-up MLP
trained 100 epochs on raw cards alone still only broke even against a calling station
(``docs/league.md``).

``opponents`` (``seats - 1`` rows, clockwise from the viewer's left, x ``OPPONENT_FEATURES``):

==== =============== ============================================================
col  name            value
==== =============== ============================================================
0    stack           chips behind, bb / 100
1    bet             bet this round, bb / 100
2    put_in          chips put in this hand (this round's bet included), bb / 100
3    folded          1 when folded
4    is_button       1 on the button
5    relative_seat   offset clockwise from the viewer / (seats - 1), as history col 2
==== =============== ============================================================

``mask`` (3): ``FOLD`` legal only when facing a bet, ``CALL`` (check or call) always,
``BET`` when a raise is legal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt
import torch

from poolshark.agents.bots import hand_strengths
from poolshark.agents.protocol import Decisions
from poolshark.cards.combos import COMBO_INDEX
from poolshark.engine.batched import BatchedTables
from poolshark.engine.kernel import BET as SEAT_BET
from poolshark.engine.kernel import (
    BUTTON,
    FOLDED,
    LOG_AMOUNT,
    LOG_LEN,
    LOG_MOVE,
    LOG_SEAT,
    LOG_STREET,
    SHOWN,
    STACK,
    START,
    TOTAL,
)
from poolshark.pool.strength import preflop_percentile

__all__ = [
    "ACTION_FEATURES",
    "ACTION_NAMES",
    "BET",
    "CALL",
    "CARD_SLOTS",
    "FOLD",
    "HISTORY",
    "NO_CARD",
    "OPPONENT_FEATURES",
    "SCALARS",
    "InputArrays",
    "PolicyInputs",
    "empty_inputs",
    "encode",
    "encode_hand_ends",
    "encode_reference",
    "shuffle_opponents",
]

Int64s = npt.NDArray[np.int64]
Float32s = npt.NDArray[np.float32]
Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

HISTORY = 64
"""Actions of the current hand kept, most recent last, zero-padded at the front."""
ACTION_FEATURES = 8
SCALARS = 15
OPPONENT_FEATURES = 6
NO_CARD = 52
"""Card id of a board card not yet shown."""
CARD_SLOTS = 7
"""Two hole cards, then five board cards."""
FOLD, CALL, BET = 0, 1, 2
"""The policy's discrete actions (the engine's move codes: a bet is a raise)."""
ACTION_NAMES = ("fold", "call", "bet")

# Columns of ``history`` (see the module docstring).
A_COMMITTED, A_VIEWER, A_SEAT, A_STREET, A_FOLD, A_CALL, A_RAISE, A_AMOUNT = range(8)
# Columns of ``scalars``.
S_STREET, S_STACK, S_POT, S_CALL, S_ODDS, S_STACK_TO_POT = 0, 4, 5, 6, 7, 8
S_POSITION, S_LIVE, S_MIN_RAISE = 9, 10, 11
S_PREFLOP, S_MADE, S_DRAW = 12, 13, 14
# Columns of ``opponents``.
O_STACK, O_BET, O_PUT_IN, O_FOLDED, O_BUTTON, O_SEAT = range(6)


@dataclass(frozen=True)
class InputArrays:
    """B decisions' policy inputs as numpy arrays (shapes in the module docstring)."""

    cards: Int64s
    history: Float32s
    scalars: Float32s
    opponents: Float32s
    mask: Bools

    @property
    def size(self) -> int:
        """Number of decisions B."""
        return int(self.cards.shape[0])

    def subset(self, rows: Int64s) -> InputArrays:
        """The decisions at positions ``rows``."""
        return InputArrays(
            self.cards[rows],
            self.history[rows],
            self.scalars[rows],
            self.opponents[rows],
            self.mask[rows],
        )

    @staticmethod
    def concatenate(parts: Sequence[InputArrays]) -> InputArrays:
        """The decisions of ``parts`` one after another (all of one seat count)."""
        if not parts:
            raise ValueError("concatenate needs at least one InputArrays")
        widths = {part.opponents.shape[1] for part in parts}
        if len(widths) > 1:
            raise ValueError(f"cannot concatenate inputs of different seat counts: {widths}")
        return InputArrays(
            np.concatenate([p.cards for p in parts]),
            np.concatenate([p.history for p in parts]),
            np.concatenate([p.scalars for p in parts]),
            np.concatenate([p.opponents for p in parts]),
            np.concatenate([p.mask for p in parts]),
        )


def empty_inputs(seats: int) -> InputArrays:
    """No decisions (B = 0) at a table of ``seats``."""
    return InputArrays(
        np.zeros((0, CARD_SLOTS), dtype=np.int64),
        np.zeros((0, HISTORY, ACTION_FEATURES), dtype=np.float32),
        np.zeros((0, SCALARS), dtype=np.float32),
        np.zeros((0, seats - 1, OPPONENT_FEATURES), dtype=np.float32),
        np.zeros((0, 3), dtype=np.bool_),
    )


def encode(decisions: Decisions) -> InputArrays:
    """The policy inputs of every decision, batched in numpy (equal to
    :func:`encode_reference`, value for value)."""
    return _encode(
        decisions.batch,
        decisions.tables,
        decisions.seats,
        SeatState(
            decisions.hole_cards,
            decisions.board,
            decisions.street,
            decisions.stack,
            decisions.pot,
            decisions.call,
            decisions.min_raise_to,
        ),
    )


def encode_hand_ends(batch: BatchedTables, tables: Int64s, viewers: Int64s) -> InputArrays:
    """The inputs of an end-of-hand step (``NetConfig.hand_end_step``): seat ``viewers[i]``'s
    view of the hand that just ended at ``tables[i]``, before the table deals again.

    The row reads like a decision's, with three marks of a hand that is over: the street
    one-hot is all zero, nothing is to call and no raise is open (``to_call``, ``pot_odds``
    and ``min_raise_to`` zero), and no action is legal (``mask`` all false). The history
    holds the hand's actions to the last, the opponents' rows their final chips and folds,
    and the strengths are read on the final board."""
    count = int(tables.size)
    board = batch.shown_boards(tables)
    shown = batch.table[tables, SHOWN]
    street = np.searchsorted(np.array([3, 4, 5]), shown, side="right").astype(np.int64)
    state = SeatState(
        batch.hole_cards[tables, viewers].astype(np.int64),
        board,
        street,
        batch.seat[tables, STACK, viewers],
        batch.seat[tables, TOTAL].sum(axis=1),
        np.zeros(count, dtype=np.int64),
        np.full(count, -1, dtype=np.int64),
    )
    inputs = _encode(batch, tables, viewers, state)
    inputs.scalars[:, S_STREET : S_STREET + 4] = 0.0
    inputs.mask[:] = False
    return inputs


@dataclass(frozen=True)
class SeatState:
    """Per row: what :func:`_encode` reads of the viewer's seat and hand besides the log."""

    hole_cards: Int64s
    board: Int64s
    street: Int64s
    stack: Int64s
    pot: Int64s
    call: Int64s
    min_raise_to: Int64s


def _encode(batch: BatchedTables, tables: Int64s, viewers: Int64s, state: SeatState) -> InputArrays:
    """The batched encoding of :func:`encode` and :func:`encode_hand_ends`."""
    count, seats = int(tables.size), batch.config.seats
    if count == 0:
        return empty_inputs(seats)
    big = float(batch.config.big_blind)
    rows = np.arange(count)

    cards = np.full((count, CARD_SLOTS), NO_CARD, dtype=np.int64)
    cards[:, :2] = state.hole_cards
    board = state.board
    cards[:, 2:] = np.where(board >= 0, board, NO_CARD)

    history = np.zeros((count, HISTORY, ACTION_FEATURES), dtype=np.float32)
    fill_history(batch.log, batch.table, batch.seat, tables, viewers, seats, big, history)

    street, stack, pot, call = state.street, state.stack, state.pot, state.call
    button = batch.table[tables, BUTTON]
    scalars = np.zeros((count, SCALARS), dtype=np.float64)
    scalars[rows, S_STREET + street] = 1.0
    scalars[:, S_STACK] = stack / big / 100.0
    scalars[:, S_POT] = pot / big / 100.0
    scalars[:, S_CALL] = call / big / 100.0
    scalars[:, S_ODDS] = call / np.maximum(pot + call, 1)
    scalars[:, S_STACK_TO_POT] = stack / np.maximum(stack + pot, 1)
    scalars[:, S_POSITION] = (viewers - button - 1) % seats / (seats - 1)
    scalars[:, S_LIVE] = (batch.seat[tables, FOLDED] == 0).sum(axis=1) / seats
    scalars[:, S_MIN_RAISE] = np.maximum(state.min_raise_to, 0) / big / 100.0
    scalars[:, S_PREFLOP:] = strengths(state.hole_cards, board, street)

    offsets = np.arange(1, seats)
    others = (viewers[:, None] + offsets[None, :]) % seats  # (B, seats - 1)
    seat_state = batch.seat[tables[:, None], :, others]  # (B, seats - 1, fields)
    opponents = np.zeros((count, seats - 1, OPPONENT_FEATURES), dtype=np.float64)
    opponents[:, :, O_STACK] = seat_state[:, :, STACK] / big / 100.0
    opponents[:, :, O_BET] = seat_state[:, :, SEAT_BET] / big / 100.0
    opponents[:, :, O_PUT_IN] = seat_state[:, :, TOTAL] / big / 100.0
    opponents[:, :, O_FOLDED] = seat_state[:, :, FOLDED] != 0
    opponents[:, :, O_BUTTON] = others == button[:, None]
    opponents[:, :, O_SEAT] = offsets[None, :] / (seats - 1)

    mask = np.stack([call > 0, np.ones(count, dtype=np.bool_), state.min_raise_to >= 0], 1)
    return InputArrays(
        cards, history, scalars.astype(np.float32), opponents.astype(np.float32), mask
    )


@nb.njit(cache=True, nogil=True)
def fill_history(
    log: Int64s,
    table_state: Int64s,
    seat_state: Int64s,
    tables: Int64s,
    viewers: Int64s,
    seats: int,
    big: float,
    out: Float32s,
) -> None:
    """Write each decision's last ``HISTORY`` logged actions into ``out[row]``, most
    recent last (rows in front stay zero): the compiled loop of :func:`encode`."""
    for row in range(tables.size):
        table = tables[row]
        length = min(table_state[table, LOG_LEN], log.shape[1])
        kept = min(length, HISTORY)
        for k in range(kept):
            entry = log[table, length - kept + k]
            actor, move, amount = entry[LOG_SEAT], entry[LOG_MOVE], entry[LOG_AMOUNT]
            relative = (actor - viewers[row]) % seats
            line = out[row, HISTORY - kept + k]
            line[A_COMMITTED] = amount / max(seat_state[table, START, actor], 1)
            line[A_VIEWER] = 1.0 if relative == 0 else 0.0
            line[A_SEAT] = relative / (seats - 1)
            line[A_STREET] = entry[LOG_STREET] / 3.0
            line[A_FOLD + move] = 1.0
            line[A_AMOUNT] = amount / big / 100.0


def strengths(hole: Int64s, board: Int64s, street: Int64s) -> Floats:
    """(B, 3) preflop rank, made and draw strength of own cards on the board shown
    (``board`` -1 where not dealt)."""
    out = np.zeros((hole.shape[0], 3))
    out[:, 0] = 1.0 - preflop_percentile()[COMBO_INDEX[hole[:, 0], hole[:, 1]]]
    postflop = np.flatnonzero(street > 0)
    if postflop.size:
        out[postflop, 1], out[postflop, 2] = hand_strengths(
            hole[postflop], board[postflop], street[postflop].astype(np.float64)
        )
    return out


def encode_reference(decisions: Decisions) -> InputArrays:
    """The policy inputs, one decision at a time from its :class:`SeatView` (the readable
    definition that :func:`encode` must equal)."""
    seats = decisions.batch.config.seats
    if decisions.size == 0:
        return empty_inputs(seats)
    return InputArrays.concatenate([_encode_one(decisions, row) for row in range(decisions.size)])


def _encode_one(decisions: Decisions, row: int) -> InputArrays:
    view = decisions.view(row)
    table = int(decisions.tables[row])
    seats, big = len(view.stacks), float(view.big_blind)
    starts = [int(s) for s in decisions.batch.seat[table, START]]
    put_in = [int(t) for t in decisions.batch.seat[table, TOTAL]]

    cards = np.full((1, CARD_SLOTS), NO_CARD, dtype=np.int64)
    cards[0, 0], cards[0, 1] = view.hole_cards
    for slot, card in enumerate(view.board):
        cards[0, 2 + slot] = card

    history = np.zeros((1, HISTORY, ACTION_FEATURES), dtype=np.float64)
    kept = view.actions[-HISTORY:]
    for k, (actor, move, amount, street) in enumerate(kept):
        line = history[0, HISTORY - len(kept) + k]
        relative = (actor - view.seat) % seats
        line[A_COMMITTED] = amount / max(starts[actor], 1)
        line[A_VIEWER] = float(relative == 0)
        line[A_SEAT] = relative / (seats - 1)
        line[A_STREET] = street / 3.0
        line[A_FOLD + move] = 1.0  # fold, check/call and raise columns are in move order
        line[A_AMOUNT] = amount / big / 100.0

    scalars = np.zeros((1, SCALARS), dtype=np.float64)
    line = scalars[0]
    stack, pot, call = view.stacks[view.seat], view.pot, view.call
    line[S_STREET + view.street] = 1.0
    line[S_STACK] = stack / big / 100.0
    line[S_POT] = pot / big / 100.0
    line[S_CALL] = call / big / 100.0
    line[S_ODDS] = call / max(pot + call, 1)
    line[S_STACK_TO_POT] = stack / max(stack + pot, 1)
    line[S_POSITION] = (view.seat - view.button - 1) % seats / (seats - 1)
    line[S_LIVE] = sum(not f for f in view.folded) / seats
    line[S_MIN_RAISE] = (view.min_raise_to or 0) / big / 100.0
    shown = np.full((1, 5), -1, dtype=np.int64)
    shown[0, : len(view.board)] = view.board
    holes = np.array([view.hole_cards], dtype=np.int64)
    line[S_PREFLOP:] = strengths(holes, shown, np.array([view.street]))[0]

    opponents = np.zeros((1, seats - 1, OPPONENT_FEATURES), dtype=np.float64)
    for offset in range(1, seats):
        other = (view.seat + offset) % seats
        line = opponents[0, offset - 1]
        line[O_STACK] = view.stacks[other] / big / 100.0
        line[O_BET] = view.bets[other] / big / 100.0
        line[O_PUT_IN] = put_in[other] / big / 100.0
        line[O_FOLDED] = float(view.folded[other])
        line[O_BUTTON] = float(other == view.button)
        line[O_SEAT] = offset / (seats - 1)

    mask = np.array([[call > 0, True, view.min_raise_to is not None]])
    return InputArrays(
        cards,
        history.astype(np.float32),
        scalars.astype(np.float32),
        opponents.astype(np.float32),
        mask,
    )


# -- the torch side ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PolicyInputs:
    """:class:`InputArrays` as torch tensors on one device (``cards`` int64, ``mask``
    bool, the others float32)."""

    cards: torch.Tensor
    history: torch.Tensor
    scalars: torch.Tensor
    opponents: torch.Tensor
    mask: torch.Tensor

    @classmethod
    def of(cls, arrays: InputArrays, device: torch.device | str = "cpu") -> PolicyInputs:
        """The tensors of ``arrays`` on ``device`` (on the CPU they share the arrays' memory)."""
        return cls(
            torch.from_numpy(np.ascontiguousarray(arrays.cards)).to(device),
            torch.from_numpy(np.ascontiguousarray(arrays.history)).to(device),
            torch.from_numpy(np.ascontiguousarray(arrays.scalars)).to(device),
            torch.from_numpy(np.ascontiguousarray(arrays.opponents)).to(device),
            torch.from_numpy(np.ascontiguousarray(arrays.mask)).to(device),
        )

    def index(self, rows: torch.Tensor) -> PolicyInputs:
        """The decisions at ``rows`` (indices or a boolean mask)."""
        return PolicyInputs(
            self.cards[rows],
            self.history[rows],
            self.scalars[rows],
            self.opponents[rows],
            self.mask[rows],
        )

    @property
    def size(self) -> int:
        """Number of decisions B."""
        return int(self.cards.shape[0])


def shuffle_opponents(inputs: PolicyInputs, generator: torch.Generator) -> PolicyInputs:
    """``inputs`` with the opponent rows of each decision in an independent random order
    (each opponent keeps its relative-seat feature, so nothing is lost)."""
    count, others = inputs.opponents.shape[:2]
    keys = torch.rand(count, others, generator=generator, device=generator.device)
    order = torch.argsort(keys, dim=1).to(inputs.opponents.device)
    index = order[:, :, None].expand(-1, -1, inputs.opponents.shape[2])
    return PolicyInputs(
        inputs.cards,
        inputs.history,
        inputs.scalars,
        torch.gather(inputs.opponents, 1, index),
        inputs.mask,
    )
