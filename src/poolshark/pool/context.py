"""The decision context a player style sees: public state only, as fixed-size numbers.

A context is a float vector of :data:`N_FEATURES` entries indexed by :class:`Feature`. It
is computed from primitive per-hand data that both engine faces have: the config (seats,
blinds, straddle), the button, the current stacks, bets and pot, the street, the seat to
act, and the action log (per action: seat, move 0 = fold, 1 = check/call, 2 = bet/raise,
amount (a call: the chips put in; a raise: the total bet to this round) and street).
Only no-limit hold'em with the config's own forced bets is described.

Three ways to get it, compared on thousands of hands by the tests:

* :func:`context_from_table`: readable, from an engine :class:`~poolshark.engine.table.Table`
  (legal amounts from ``Table.legal``);
* :func:`context_batch`: a numba kernel over many tables at once, from state arrays plus
  the flat log arrays (legal amounts re-derived from the log: the raise increment, who may
  still re-raise);
* :func:`replay_contexts`: the context before every logged action of many hands, from the
  starting stacks and logs alone (the state is rebuilt by replaying the forced bets and
  actions), which is what labelling recorded hands needs.

Features (all numbers, chips unscaled):

* ``POSITION`` :class:`Position` by seats from the button (heads-up: button and big blind).
* ``STREET`` 0..3; ``PREFLOP_FACING`` :class:`Facing`, counted over the preflop actions so
  far (after the flop: the whole preflop); ``PREFLOP_RAISES`` voluntary raises preflop;
  ``MY_RAISE_LEVEL`` which raise was my last preflop raise (1 open, 2 three-bet, ...; 0 none);
  ``LIMPERS`` calls preflop before the first raise (the blinds' checks are not limps).
* ``PREFLOP_AGGRESSOR`` I made the last preflop raise; ``PREVIOUS_AGGRESSOR`` I made the
  last bet or raise of the previous street; ``CBET`` this street's first bet came from the
  previous street's last aggressor (on the flop: a continuation bet).
* ``FACING_BET`` there is something to call (preflop the blind counts); ``FACING_FRACTION``
  to call / (pot - to call) (the divisor at least 1 chip): for a plain bet, its size as a
  fraction of the pot before it.
* ``STREET_RAISES`` bets and raises this street (blinds excluded); ``CHECKED`` I checked
  earlier this street (a raise now is a check-raise).
* ``ALIVE`` players not folded; ``IN_POSITION`` no live player with chips acts after me
  (postflop order); ``SPR`` effective stack (mine vs the deepest live opponent) / pot.
* ``TO_CALL``, ``POT`` (all chips put in, current bets included), ``MY_BET`` (this round),
  ``MY_STACK`` (behind), ``CURRENT_BET``, ``MIN_RAISE_TO`` / ``MAX_RAISE_TO`` (0 when
  raising is not allowed), ``BIG_BLIND``.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import NamedTuple

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.engine.config import Betting, GameConfig
from poolshark.engine.kernel import (
    ACTED,
    BET,
    BUTTON,
    CURRENT_BET,
    FACED,
    FOLDED,
    INCREMENT,
    LOG_AMOUNT,
    LOG_LEN,
    LOG_MOVE,
    LOG_SEAT,
    LOG_STREET,
    NO_RAISE,
    SEAT_FIELDS,
    STACK,
    STREET,
    TABLE_FIELDS,
    TO_ACT,
    TOTAL,
    betting_rules,
    legal_bounds,
    note_raise,
)
from poolshark.engine.table import Move, Street, Table

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

MOVE_FOLD, MOVE_CALL, MOVE_RAISE = 0, 1, 2
"""Move codes of the flat action logs."""
MOVE_CODE = {Move.FOLD: MOVE_FOLD, Move.CHECK_CALL: MOVE_CALL, Move.RAISE: MOVE_RAISE}


class Feature(IntEnum):
    """Index of each entry of a context vector (see the module docstring)."""

    POSITION = 0
    STREET = 1
    PREFLOP_FACING = 2
    PREFLOP_RAISES = 3
    MY_RAISE_LEVEL = 4
    LIMPERS = 5
    PREFLOP_AGGRESSOR = 6
    PREVIOUS_AGGRESSOR = 7
    CBET = 8
    FACING_BET = 9
    FACING_FRACTION = 10
    STREET_RAISES = 11
    CHECKED = 12
    ALIVE = 13
    IN_POSITION = 14
    SPR = 15
    TO_CALL = 16
    POT = 17
    MY_BET = 18
    MY_STACK = 19
    CURRENT_BET = 20
    MIN_RAISE_TO = 21
    MAX_RAISE_TO = 22
    BIG_BLIND = 23


N_FEATURES = len(Feature)


class Position(IntEnum):
    """Position classes: early, middle (hijack), cutoff, button, small blind, big blind."""

    EP = 0
    MP = 1
    CO = 2
    BTN = 3
    SB = 4
    BB = 5


class Facing(IntEnum):
    """What the preflop action so far amounts to."""

    UNOPENED = 0
    LIMPED = 1
    OPEN_RAISED = 2
    THREE_BET = 3
    FOUR_BET_PLUS = 4


def position_class(seat: int, button: int, seats: int) -> Position:
    """The position class of ``seat``: BTN, SB, BB, then CO, MP and EP counting back."""
    offset = (seat - button) % seats
    if seats == 2:
        return Position.BTN if offset == 0 else Position.BB
    if offset < 3:
        return (Position.BTN, Position.SB, Position.BB)[offset]
    if offset == seats - 1:
        return Position.CO
    if offset == seats - 2:
        return Position.MP
    return Position.EP


# -- the readable reference ---------------------------------------------------------------


def context_from_table(table: Table) -> Floats:
    """The context of the player to act at ``table`` (a live no-limit hand)."""
    if table.done:
        raise ValueError("the hand is over: there is no decision to describe")
    if table.config.betting is not Betting.NO_LIMIT:
        raise ValueError("decision contexts describe no-limit hold'em only")
    if table.forced is not None:
        raise ValueError("decision contexts need the config's own forced bets, not ForcedBets")
    seat, street, log, n = table.to_act, int(table.street), table.log, table.seats
    legal = table.legal()
    preflop = [a for a in log if a.street is Street.PREFLOP]
    preflop_raisers = [a.seat for a in preflop if a.move is Move.RAISE]
    limpers = 0
    for action in preflop:
        if action.move is Move.RAISE:
            break
        limpers += action.move is Move.CHECK_CALL and action.amount > 0
    facing = _facing(len(preflop_raisers), limpers)
    my_level = max((i + 1 for i, s in enumerate(preflop_raisers) if s == seat), default=0)

    this_street = [a for a in log if a.street == street]
    raisers_now = [a.seat for a in this_street if a.move is Move.RAISE]
    previous = [a.seat for a in log if a.street == street - 1 and a.move is Move.RAISE]
    previous_aggressor = previous[-1] if street > 0 and previous else -1
    cbet = bool(raisers_now) and raisers_now[0] == previous_aggressor

    alive = [s for s in range(n) if not table.folded[s]]
    others = [s for s in alive if s != seat]

    def order(s: int) -> int:
        return (s - table.button - 1) % n

    in_position = not any(order(s) > order(seat) and table.stack[s] > 0 for s in others)
    pot = table.pot()
    deepest = max((table.stack[s] for s in others), default=0)
    to_call = legal.call
    features = {
        Feature.POSITION: position_class(seat, table.button, n),
        Feature.STREET: street,
        Feature.PREFLOP_FACING: facing,
        Feature.PREFLOP_RAISES: len(preflop_raisers),
        Feature.MY_RAISE_LEVEL: my_level,
        Feature.LIMPERS: limpers,
        Feature.PREFLOP_AGGRESSOR: bool(preflop_raisers) and preflop_raisers[-1] == seat,
        Feature.PREVIOUS_AGGRESSOR: previous_aggressor == seat,
        Feature.CBET: cbet,
        Feature.FACING_BET: to_call > 0,
        Feature.FACING_FRACTION: to_call / max(pot - to_call, 1) if to_call > 0 else 0.0,
        Feature.STREET_RAISES: len(raisers_now),
        Feature.CHECKED: any(
            a.seat == seat and a.move is Move.CHECK_CALL and a.amount == 0 for a in this_street
        ),
        Feature.ALIVE: len(alive),
        Feature.IN_POSITION: in_position,
        Feature.SPR: min(table.stack[seat], deepest) / pot,
        Feature.TO_CALL: to_call,
        Feature.POT: pot,
        Feature.MY_BET: table.bet[seat],
        Feature.MY_STACK: table.stack[seat],
        Feature.CURRENT_BET: table.current_bet,
        Feature.MIN_RAISE_TO: legal.min_raise_to or 0,
        Feature.MAX_RAISE_TO: legal.max_raise_to or 0,
        Feature.BIG_BLIND: table.config.big_blind,
    }
    return np.array([float(features[f]) for f in Feature])


def _facing(raises: int, limpers: int) -> Facing:
    if raises == 0:
        return Facing.LIMPED if limpers else Facing.UNOPENED
    return Facing(min(raises + 1, Facing.FOUR_BET_PLUS))


# -- flat arrays ------------------------------------------------------------------------------


class ActionLogs(NamedTuple):
    """Flat action logs of N hands, padded to L actions: (N, L) arrays and (N,) lengths."""

    seat: Int64s
    move: Int64s
    amount: Int64s
    street: Int64s
    length: Int64s


class TableStates(NamedTuple):
    """Per-table state arrays of N live hands: who acts, the street, chips."""

    button: Int64s  # (N,)
    to_act: Int64s  # (N,)
    street: Int64s  # (N,)
    stacks: Int64s  # (N, S) chips behind
    bets: Int64s  # (N, S) chips bet this round
    pot: Int64s  # (N,) all chips put in, bets included


def logs_from_tables(tables: Sequence[Table], width: int | None = None) -> ActionLogs:
    """The logs of some tables as flat arrays (``width`` at least the longest log)."""
    longest = max((len(t.log) for t in tables), default=0)
    width = max(longest, 1) if width is None else width
    if width < longest:
        raise ValueError(f"a log has {longest} actions, more than the width {width}")
    shape = (len(tables), width)
    seat, move, amount, street = (np.zeros(shape, dtype=np.int64) for _ in range(4))
    for row, table in enumerate(tables):
        for col, action in enumerate(table.log):
            seat[row, col] = action.seat
            move[row, col] = MOVE_CODE[action.move]
            amount[row, col] = action.amount
            street[row, col] = int(action.street)
    length = np.array([len(t.log) for t in tables], dtype=np.int64)
    return ActionLogs(seat, move, amount, street, length)


def states_from_tables(tables: Sequence[Table]) -> TableStates:
    """The state arrays of some live tables."""
    return TableStates(
        button=np.array([t.button for t in tables], dtype=np.int64),
        to_act=np.array([t.to_act for t in tables], dtype=np.int64),
        street=np.array([int(t.street) for t in tables], dtype=np.int64),
        stacks=np.array([t.stack for t in tables], dtype=np.int64),
        bets=np.array([t.bet for t in tables], dtype=np.int64),
        pot=np.array([t.pot() for t in tables], dtype=np.int64),
    )


def context_batch(config: GameConfig, states: TableStates, logs: ActionLogs) -> Floats:
    """(N, N_FEATURES) contexts of the players to act at N tables (compiled)."""
    _check_config(config)
    n = len(states.button)
    out = np.zeros((n, N_FEATURES))
    _context_kernel(
        config.seats,
        config.big_blind,
        config.straddle,
        states.button,
        states.to_act,
        states.street,
        states.stacks,
        states.bets,
        states.pot,
        logs.seat,
        logs.move,
        logs.amount,
        logs.street,
        logs.length,
        out,
    )
    return out


def engine_contexts(
    config: GameConfig,
    seat: Int64s,
    table: Int64s,
    log: Int64s,
    tables: Int64s,
    to_act: Int64s,
) -> Floats:
    """(N, N_FEATURES) contexts of the players ``to_act`` at ``tables`` of a batched engine,
    read in place from its arrays (``BatchedTables.seat``, ``.table`` and ``.log``): the
    same numbers as :func:`context_batch` on the state and log gathered per table (which
    the tests compare), without gathering the logs (compiled)."""
    _check_config(config)
    out = np.zeros((tables.size, N_FEATURES))
    _engine_context_kernel(
        config.seats, config.big_blind, config.straddle, seat, table, log, tables, to_act, out
    )
    return out


def replay_contexts(
    config: GameConfig, starting_stacks: Int64s, button: Int64s, logs: ActionLogs
) -> Floats:
    """(N, L, N_FEATURES) context before every logged action (rows past a log's end are 0)."""
    _check_config(config)
    stacks = np.asarray(starting_stacks, dtype=np.int64)
    if stacks.ndim != 2 or stacks.shape[1] != config.seats:
        raise ValueError(f"starting stacks must be (hands, {config.seats}), got {stacks.shape}")
    out = np.zeros((*logs.seat.shape, N_FEATURES))
    _replay_kernel(
        config.seats,
        config.small_blind,
        config.big_blind,
        config.straddle,
        config.ante,
        stacks,
        np.asarray(button, dtype=np.int64),
        logs.seat,
        logs.move,
        logs.amount,
        logs.street,
        logs.length,
        out,
    )
    return out


def _check_config(config: GameConfig) -> None:
    if config.betting is not Betting.NO_LIMIT:
        raise ValueError("decision contexts describe no-limit hold'em only")


# -- compiled kernels ------------------------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def _position(seat: int, button: int, seats: int) -> int:
    offset = (seat - button) % seats
    if seats == 2:
        return 3 if offset == 0 else 5
    if offset < 3:
        return 3 + offset
    if offset == seats - 1:
        return 2
    if offset == seats - 2:
        return 1
    return 0


@nb.njit(cache=True, nogil=True)
def fill_features(
    seats: int,
    big_blind: int,
    straddle: int,
    button: int,
    seat: int,
    street: int,
    stacks: Int64s,
    bets: Int64s,
    pot: int,
    log_seat: Int64s,
    log_move: Int64s,
    log_amount: Int64s,
    log_street: Int64s,
    length: int,
    out: Floats,
) -> None:
    """Write the context of ``seat`` into ``out`` from one hand's state and log prefix.

    The betting of the current street is replayed through the rules kernel
    (``kernel.note_raise``: the raise increment and who may raise again), and the legal
    amounts come from ``kernel.legal_bounds``, as ``Table.legal`` gives them."""
    rules = betting_rules(seats, big_blind, 0, 0, 0, 0)
    state = np.zeros((SEAT_FIELDS, seats), dtype=np.int64)
    table = np.zeros(TABLE_FIELDS, dtype=np.int64)
    first_raiser = np.full(4, -1, dtype=np.int64)
    last_raiser = np.full(4, -1, dtype=np.int64)
    preflop_raises = 0
    my_level = 0
    limpers = 0
    street_raises = 0
    checked = False
    table[STREET] = street
    table[CURRENT_BET] = max(big_blind, straddle) if street == 0 else 0
    table[INCREMENT] = max(big_blind, straddle) if street == 0 else big_blind
    for j in range(length):
        s, move, amount, st = log_seat[j], log_move[j], log_amount[j], log_street[j]
        if move == MOVE_FOLD:
            state[FOLDED, s] = 1
        if st == 0 and move == MOVE_RAISE:
            preflop_raises += 1
            if s == seat:
                my_level = preflop_raises
        elif st == 0 and move == MOVE_CALL and amount > 0 and preflop_raises == 0:
            limpers += 1
        if move == MOVE_RAISE:
            last_raiser[st] = s
            if first_raiser[st] < 0:
                first_raiser[st] = s
        if st == street:
            if move == MOVE_RAISE:
                street_raises += 1
                note_raise(rules, state, table, amount)
            state[ACTED, s] = 1
            state[FACED, s] = table[CURRENT_BET]
            if s == seat and move == MOVE_CALL and amount == 0:
                checked = True
    state[STACK] = stacks
    state[BET] = bets
    table[TO_ACT] = seat
    to_call, min_raise_to, max_raise_to = legal_bounds(rules, state, table)
    level = table[CURRENT_BET]
    in_position = True
    alive = 0
    deepest = 0
    mine = (seat - button - 1) % seats
    for s in range(seats):
        if state[FOLDED, s]:
            continue
        alive += 1
        if s == seat:
            continue
        deepest = max(deepest, stacks[s])
        if stacks[s] > 0 and (s - button - 1) % seats > mine:
            in_position = False
    facing = min(preflop_raises + 1, 4) if preflop_raises > 0 else int(limpers > 0)
    previous = last_raiser[street - 1] if street > 0 else -1
    out[0] = _position(seat, button, seats)
    out[1] = street
    out[2] = facing
    out[3] = preflop_raises
    out[4] = my_level
    out[5] = limpers
    out[6] = preflop_raises > 0 and last_raiser[0] == seat
    out[7] = previous == seat
    out[8] = street > 0 and previous >= 0 and first_raiser[street] == previous
    out[9] = to_call > 0
    out[10] = to_call / max(pot - to_call, 1) if to_call > 0 else 0.0
    out[11] = street_raises
    out[12] = checked
    out[13] = alive
    out[14] = in_position
    out[15] = min(stacks[seat], deepest) / pot
    out[16] = to_call
    out[17] = pot
    out[18] = bets[seat]
    out[19] = stacks[seat]
    out[20] = level
    out[21] = 0 if min_raise_to == NO_RAISE else min_raise_to
    out[22] = 0 if max_raise_to == NO_RAISE else max_raise_to
    out[23] = big_blind


@nb.njit(cache=True, nogil=True)
def _context_kernel(
    seats: int,
    big_blind: int,
    straddle: int,
    button: Int64s,
    to_act: Int64s,
    street: Int64s,
    stacks: Int64s,
    bets: Int64s,
    pot: Int64s,
    log_seat: Int64s,
    log_move: Int64s,
    log_amount: Int64s,
    log_street: Int64s,
    log_len: Int64s,
    out: Floats,
) -> None:
    for i in range(button.size):
        fill_features(
            seats,
            big_blind,
            straddle,
            button[i],
            to_act[i],
            street[i],
            stacks[i],
            bets[i],
            pot[i],
            log_seat[i],
            log_move[i],
            log_amount[i],
            log_street[i],
            log_len[i],
            out[i],
        )


@nb.njit(cache=True, nogil=True)
def _engine_context_kernel(
    seats: int,
    big_blind: int,
    straddle: int,
    seat: Int64s,
    table: Int64s,
    log: Int64s,
    tables: Int64s,
    to_act: Int64s,
    out: Floats,
) -> None:
    for i in range(tables.size):
        t = tables[i]
        fill_features(
            seats,
            big_blind,
            straddle,
            table[t, BUTTON],
            to_act[i],
            table[t, STREET],
            seat[t, STACK],
            seat[t, BET],
            seat[t, TOTAL].sum(),
            log[t, :, LOG_SEAT],
            log[t, :, LOG_MOVE],
            log[t, :, LOG_AMOUNT],
            log[t, :, LOG_STREET],
            table[t, LOG_LEN],
            out[i],
        )


@nb.njit(cache=True, nogil=True)
def post_forced_bets(
    seats: int,
    small_blind: int,
    big_blind: int,
    straddle: int,
    ante: int,
    button: int,
    stacks: Int64s,
    bets: Int64s,
    total: Int64s,
) -> None:
    """Antes (dead), blinds and straddle as the engine posts them; short stacks go all-in."""
    for s in range(seats):
        paid = min(ante, stacks[s])
        stacks[s] -= paid
        total[s] += paid
    small = button if seats == 2 else (button + 1) % seats
    big = (small + 1) % seats
    posts = ((small, small_blind), (big, big_blind), ((big + 1) % seats, straddle))
    for seat, chips in posts:
        paid = min(chips, stacks[seat])
        stacks[seat] -= paid
        bets[seat] += paid
        total[seat] += paid


@nb.njit(cache=True, nogil=True)
def return_uncalled(bets: Int64s, stacks: Int64s, total: Int64s) -> None:
    """Give back the part of the largest bet nobody matched (end of a betting round)."""
    top = 0
    for s in range(bets.size):
        if bets[s] > bets[top]:
            top = s
    second = 0
    for s in range(bets.size):
        if s != top:
            second = max(second, bets[s])
    excess = bets[top] - second
    if excess > 0:
        bets[top] -= excess
        total[top] -= excess
        stacks[top] += excess


@nb.njit(cache=True, nogil=True)
def apply_action(
    seat: int, move: int, amount: int, stacks: Int64s, bets: Int64s, total: Int64s
) -> None:
    """Move the chips of one logged action (a call puts in ``amount``; a raise goes to it)."""
    chips = 0
    if move == MOVE_CALL:
        chips = amount
    elif move == MOVE_RAISE:
        chips = amount - bets[seat]
    stacks[seat] -= chips
    bets[seat] += chips
    total[seat] += chips


@nb.njit(cache=True, nogil=True)
def _replay_kernel(
    seats: int,
    small_blind: int,
    big_blind: int,
    straddle: int,
    ante: int,
    starting_stacks: Int64s,
    button: Int64s,
    log_seat: Int64s,
    log_move: Int64s,
    log_amount: Int64s,
    log_street: Int64s,
    log_len: Int64s,
    out: Floats,
) -> None:
    for i in range(button.size):
        stacks = starting_stacks[i].copy()
        bets = np.zeros(seats, dtype=np.int64)
        total = np.zeros(seats, dtype=np.int64)
        post_forced_bets(
            seats, small_blind, big_blind, straddle, ante, button[i], stacks, bets, total
        )
        street = 0
        for j in range(log_len[i]):
            if log_street[i, j] != street:
                return_uncalled(bets, stacks, total)
                bets[:] = 0
                street = log_street[i, j]
            seat = log_seat[i, j]
            fill_features(
                seats,
                big_blind,
                straddle,
                button[i],
                seat,
                street,
                stacks,
                bets,
                total.sum(),
                log_seat[i],
                log_move[i],
                log_amount[i],
                log_street[i],
                j,
                out[i, j],
            )
            apply_action(seat, log_move[i, j], log_amount[i, j], stacks, bets, total)
