"""Decision rows: the public state immediately before every voluntary action, as a table.

Long module: the compiled row pass and its readable reference (``reference_rows``) build
the same frame and are kept side by side, so a change to one is seen next to the other.

One row per recorded action (blind and ante posts are not actions): who acts from where,
stacks, pot, price, how many players are in and still to act, the board, the betting so
far as a compact string, what the player did, and how the hand ended for that player
(starting stack, chips put in, chips won: what action profit needs). The columns and
their meaning are in ``docs/histories.md`` ("Decision rows"); :data:`ROW_SCHEMA` is the
typed polars schema.

Two builders produce the same frame:

* :func:`build_rows` flattens many records into arrays (``flat.HandArrays``), runs one
  compiled pass (:func:`track`) over all their actions and gathers the frame from the
  arrays (:func:`rows_frame`); ingestion runs :func:`track` and :func:`rows_frame` on the
  arrays its fast readers make straight from text (``histories.fast``).
* :func:`reference_rows` replays each record through the engine's readable
  :class:`~poolshark.engine.table.Table` and reads the state before each action; tests
  compare the two on real and random hands.

The compiled pass also checks each hand's betting (order of play, streets, amounts, legal
raises) the way ``Table`` does; a hand it cannot follow gets a ``rows-...`` reason and no
rows, so callers can quarantine it.

History encoding (column ``history``): the betting before this action, streets separated
by ``/`` (a trailing ``/`` once a new street has begun). Each action is one token: ``f``
fold, ``k`` check, ``c`` call, ``b<x>`` bet (nothing to call on the street yet), ``r<x>``
raise; ``<x>`` is the street total bet to, in big blinds, rounded to two decimals with
trailing zeros dropped; a trailing ``a`` marks an all-in. Preflop ``r2.5fc/kb3r9ac`` reads:
raise to 2.5 bb, fold, call; flop: check, bet 3 bb, raise all-in to 9 bb, call.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from poolshark.engine.config import Betting, GameConfig
from poolshark.engine.kernel import (
    ACTED,
    BET,
    CHECK_CALL,
    CURRENT_BET,
    END_STREET,
    FACED,
    FOLD,
    FOLDED,
    NEW_STREET,
    NO_RAISE,
    RAISE,
    SEAT_FIELDS,
    SETTLING,
    STACK,
    STREET,
    TABLE_FIELDS,
    TO_ACT,
    TOTAL,
    Rules,
    advance,
    betting_rules,
    legal_bounds,
    note_raise,
    post_given_bets,
    put_in,
)
from poolshark.engine.table import ForcedBets, IllegalActionError, Move, Street, Table
from poolshark.histories.flat import VARIANT_CODES, WARNINGS, HandArrays, limit_bets, padded
from poolshark.histories.record import (
    HOUSE_RULE_OF_VARIANT,
    HandRecord,
    HistoryError,
    house_rules_of,
)
from poolshark.histories.replay import FIXED_LIMIT_CAP, FIXED_LIMIT_CAP_4

Int64s = npt.NDArray[np.int64]
Int16s = npt.NDArray[np.int16]
Int8s = npt.NDArray[np.int8]
Int32s = npt.NDArray[np.int32]
UInt8s = npt.NDArray[np.uint8]

DEFAULT_SALT = "poolshark"
"""Salt of :func:`anonymize` unless one is given. It is public, so the ids it makes are
only pseudonyms; pass a secret salt to make them unlinkable to the names."""

MAX_SEATS = 10
POSITIONS = ("BTN", "SB", "BB", "UTG", "UTG+1", "UTG+2", "MP", "MP+1", "HJ", "CO")
STREETS = ("preflop", "flop", "turn", "river")
ACTIONS = ("fold", "check-call", "bet-raise")
BETTINGS = (Betting.NO_LIMIT.value, Betting.FIXED_LIMIT.value)
_MIDDLE_BY_COUNT: dict[int, tuple[str, ...]] = {
    0: (),
    1: ("CO",),
    2: ("HJ", "CO"),
    3: ("UTG", "HJ", "CO"),
    4: ("UTG", "MP", "HJ", "CO"),
    5: ("UTG", "UTG+1", "MP", "HJ", "CO"),
    6: ("UTG", "UTG+1", "UTG+2", "MP", "HJ", "CO"),
    7: ("UTG", "UTG+1", "UTG+2", "MP", "MP+1", "HJ", "CO"),
}

_COLUMNS: dict[str, pl.DataType] = {
    "site": pl.String(),
    "hand_id": pl.String(),
    "action_index": pl.UInt16(),
    "seat": pl.UInt8(),
    "seat_number": pl.UInt8(),
    "position": pl.Enum(POSITIONS),
    "players": pl.UInt8(),
    "player_id": pl.String(),
    "betting": pl.Enum(BETTINGS),
    "small_blind": pl.Int64(),
    "big_blind": pl.Int64(),
    "ante": pl.Int64(),
    "street": pl.Enum(STREETS),
    "board": pl.List(pl.UInt8()),
    "hole_cards": pl.Array(pl.UInt8(), 2),
    "stack": pl.Int64(),
    "pot": pl.Int64(),
    "to_call": pl.Int64(),
    "stack_bb": pl.Float32(),
    "pot_bb": pl.Float32(),
    "to_call_bb": pl.Float32(),
    "players_alive": pl.UInt8(),
    "players_to_act": pl.UInt8(),
    "history": pl.String(),
    "action": pl.Enum(ACTIONS),
    "amount": pl.Int64(),
    "amount_bb": pl.Float32(),
    "amount_pot": pl.Float32(),
    "raise_to": pl.Int64(),
    "raise_pot": pl.Float32(),
    "all_in": pl.Boolean(),
    "stack_start": pl.Int64(),
    "invested": pl.Int64(),
    "won": pl.Int64(),
    "warning": pl.Enum(WARNINGS),
    "variants": pl.String(),
}
ROW_SCHEMA = pl.Schema(_COLUMNS)
"""The columns of a decision-row frame, in order (see ``docs/histories.md``)."""

_ACTION_OF_TOKEN = np.array([0, 1, 1, 2, 2], dtype=np.int64)  # f k c b r -> ACTIONS

# Reasons for hands the compiled pass cannot follow, by error code.
_REASONS = {
    1: ("rows-seats", "needs 2 to 10 players with positive stacks and a button among them"),
    2: ("rows-player", "an action names a player who is not at the table"),
    3: ("rows-after-end", "an action comes after the hand is over"),
    4: ("rows-street", "an action is recorded on the wrong street"),
    5: ("rows-order", "a player acts out of turn"),
    7: ("rows-call-amount", "a call's amount is not what the player owed"),
    8: ("rows-raise-not-allowed", "a player raises when raising is closed to them"),
    9: ("rows-raise-amount", "a raise is smaller than the rules allow or bigger than the stack"),
    10: ("rows-incomplete", "the actions end while a player still has to act"),
    11: ("rows-board", "the board has too few cards for a street that was played"),
    12: ("rows-move", "an action of unknown kind"),
    13: ("rows-all-in", "an all-in flag that disagrees with the stacks"),
}


# -- positions and ids ----------------------------------------------------------------------


def position_name(seat: int, button: int, players: int) -> str:
    """Position of ``seat`` at a table of ``players`` with the button at ``button``.

    Counted from the button: BTN, SB, BB, then the others in preflop order, named (from
    the button backwards) CO, HJ, MP, ... and UTG for the first to act; heads-up the
    button posts the small blind and is called BTN.
    """
    if not 2 <= players <= MAX_SEATS:
        raise ValueError(f"positions are named for 2 to {MAX_SEATS} players, not {players}")
    offset = (seat - button) % players
    if players == 2:
        return ("BTN", "BB")[offset]
    if offset < 3:
        return POSITIONS[offset]
    return _MIDDLE_BY_COUNT[players - 3][offset - 3]


def _position_codes() -> Int8s:
    """``[players, offset from button] -> index into POSITIONS`` (-1 where no seat)."""
    codes = np.full((MAX_SEATS + 1, MAX_SEATS), -1, dtype=np.int8)
    for players in range(2, MAX_SEATS + 1):
        for offset in range(players):
            codes[players, offset] = POSITIONS.index(position_name(offset, 0, players))
    return codes


_POSITION_CODES = _position_codes()


def anonymize(site: str, player: str, salt: str = DEFAULT_SALT) -> str:
    """A stable pseudonym for a player: 16 hex digits of a keyed BLAKE2b of site and name.

    The same site, name and salt always give the same id; without the salt the name cannot
    be recovered from it (other than by guessing names and salts).
    """
    return _anonymize_joined(f"{site}\x00{player}", salt)


@lru_cache(maxsize=1 << 18)
def _anonymize_joined(site_and_player: str, salt: str) -> str:
    """:func:`anonymize` of ``site + "\\0" + player``."""
    key = salt.encode()[:64]
    return hashlib.blake2b(site_and_player.encode(), key=key, digest_size=8).hexdigest()


# -- the compiled pass ------------------------------------------------------------------------


@dataclass(frozen=True)
class Tracked:
    """What the compiled pass (:func:`track`) returns: per action (row), per hand, per
    seat, and the byte buffers of the history and board columns."""

    stack: Int64s
    pot: Int64s
    to_call: Int64s
    alive: Int8s
    to_act: Int8s  # other players still to act
    code: Int8s  # 0 fold, 1 check, 2 call, 3 bet, 4 raise
    put_in: Int64s
    raise_to: Int64s
    current: Int64s
    all_in: Int8s
    error: Int8s  # per hand, 0 when the hand is consistent
    error_action: Int64s  # per hand, the action the error was found at (-1: none)
    history_offsets: Int64s
    history_bytes: UInt8s
    board_offsets: Int64s
    board_cards: UInt8s
    final_total: Int64s  # per seat: chips put in over the hand, uncalled bets returned
    final_folded: Int8s  # per seat: folded by the end
    final_street: Int8s  # per hand: the street the betting ended on
    variants: Int32s  # per hand: ``HandArrays.variants`` bits, with limit-cap-4 where shown

    @classmethod
    def concat(cls, parts: Sequence[Tracked]) -> Tracked:
        """The passes over consecutive groups of hands as one (as ``HandArrays.concat``)."""
        if len(parts) == 1:
            return parts[0]
        values: dict[str, Any] = {}
        for spec in fields(cls):
            items = [getattr(part, spec.name) for part in parts]
            if spec.name.endswith("_offsets"):
                shift = np.cumsum([0] + [int(o[-1]) for o in items[:-1]])
                items = [items[0][:1]] + [o[1:] + k for o, k in zip(items, shift, strict=True)]
            values[spec.name] = np.concatenate(items)
        return cls(**values)


@nb.njit(cache=True, nogil=True)
def _unrecorded_check(r: Rules, seat: Int64s, s: int, current: int) -> bool:
    """Whether seat ``s`` must act but only to check with everyone else all-in: ``Table``
    asks for that check, sites neither ask nor record it."""
    if seat[FOLDED, s] or seat[STACK, s] <= 0 or seat[BET, s] != current:
        return False
    if seat[ACTED, s]:
        return False
    able_others = 0
    for t in range(r.seats):
        able_others += t != s and seat[FOLDED, t] == 0 and seat[STACK, t] > 0
    return able_others == 0


@nb.njit(cache=True, nogil=True, inline="always")
def _write_int(buffer: UInt8s, at: int, value: int) -> int:
    """Write ``value >= 0`` in decimal at ``at``; return the position after it."""
    digits = 1
    probe = value
    while probe >= 10:
        probe //= 10
        digits += 1
    for i in range(digits - 1, -1, -1):
        buffer[at + i] = 48 + value % 10
        value //= 10
    return at + digits


@nb.njit(cache=True, nogil=True, inline="always")
def _write_token(buffer: UInt8s, at: int, code: int, to: int, big_blind: int, all_in: bool) -> int:
    """Write one history token (``f k c b<x> r<x>``, ``a`` if all-in); return the end."""
    buffer[at] = (102, 107, 99, 98, 114)[code]  # f k c b r
    at += 1
    if code >= 3:
        hundredths = (2 * 100 * to + big_blind) // (2 * big_blind)  # rounded half up
        at = _write_int(buffer, at, hundredths // 100)
        fraction = hundredths % 100
        if fraction:
            buffer[at] = 46  # .
            buffer[at + 1] = 48 + fraction // 10
            at += 2
            if fraction % 10:
                buffer[at] = 48 + fraction % 10
                at += 1
    if all_in:
        buffer[at] = 97  # a
        at += 1
    return at


TOKEN_BYTES = 28
"""Most bytes one history token takes (a letter, 20 digits, a point, 2 digits, ``a``, a
street separator), used to size the history buffers."""


@nb.njit(cache=True, nogil=True)
def _raise_code(r: Rules, seat: Int64s, table: Int64s, to: int) -> int:
    """0 when the player to act may raise to ``to`` now (``kernel.legal_bounds``), 8 when
    raising is not allowed, 9 for a size out of bounds."""
    _, low, high = legal_bounds(r, seat, table)
    if low == NO_RAISE:
        return 8
    return 0 if low <= to <= high else 9


@nb.njit(cache=True, nogil=True)
def _track_hands(
    seat_start: Int64s,
    action_start: Int64s,
    button: Int64s,
    big_blind: Int64s,
    limit_bets: Int64s,
    board: Int16s,
    seat_stack: Int64s,
    seat_blind: Int64s,
    seat_dead: Int64s,
    street_of: Int8s,
    player_of: Int64s,
    move_of: Int8s,
    amount_of: Int64s,
    all_in_of: Int8s,
    cap: Int64s,
    house: Int64s,
) -> tuple[Any, ...]:
    """Follow every hand's betting action by action, recording the state before each.

    Plays by the rules kernel (``engine.kernel``: posting, order of play, raise rules,
    uncalled bets, streets), as ``Table`` does, and stops a hand at the first action it
    cannot follow, with an error code. A call's ``amount_of`` and an ``all_in_of`` flag
    are checked unless ``UNSTATED`` (-1). Per
    hand that was followed to its end, the chips each player put in (uncalled bets
    returned), who folded and the last street are kept for the settlement check.
    ``cap`` is each hand's fixed-limit raise cap, ``house`` its ``HouseRule`` bits. A
    fixed-limit hand whose raise breaks its ``cap`` of a bet and three raises but keeps to
    four goes on under four: its ``cap`` entry is widened in place (``limit-cap-4``).
    """
    hands = button.shape[0]
    actions = street_of.shape[0]
    longest = 0
    capacity = 0
    for h in range(hands):
        count = action_start[h + 1] - action_start[h]
        longest = max(longest, count)
        capacity += count * count * TOKEN_BYTES
    out_stack = np.zeros(actions, np.int64)
    out_pot = np.zeros(actions, np.int64)
    out_call = np.zeros(actions, np.int64)
    out_alive = np.zeros(actions, np.int8)
    out_waiting = np.zeros(actions, np.int8)
    out_code = np.zeros(actions, np.int8)
    out_put = np.zeros(actions, np.int64)
    out_to = np.zeros(actions, np.int64)
    out_current = np.zeros(actions, np.int64)
    out_all_in = np.zeros(actions, np.int8)
    error = np.zeros(hands, np.int8)
    error_action = np.full(hands, -1, np.int64)
    final_total = np.zeros(seat_stack.shape[0], np.int64)
    final_folded = np.zeros(seat_stack.shape[0], np.int8)
    final_street = np.zeros(hands, np.int8)
    history_offsets = np.zeros(actions + 1, np.int64)
    history = np.empty(capacity, np.uint8)
    board_offsets = np.zeros(actions + 1, np.int64)
    board_cards = np.empty(5 * actions, np.uint8)
    line = np.empty(TOKEN_BYTES * (longest + 1), np.uint8)  # this hand's history so far
    table = np.zeros(TABLE_FIELDS, np.int64)
    seat = np.zeros((SEAT_FIELDS, MAX_SEATS), np.int64)
    cursor = 0
    board_cursor = 0
    for h in range(hands):
        base = seat_start[h]
        n = seat_start[h + 1] - base
        first = action_start[h]
        last = action_start[h + 1]
        bb = big_blind[h]
        btn = button[h]
        small_bet = limit_bets[h, 0]
        big_bet = limit_bets[h, 1]
        code = 0 if 2 <= n <= MAX_SEATS and 0 <= btn < n and bb > 0 else 1
        for s in range(n if code == 0 else 0):
            if seat_stack[base + s] <= 0:
                code = 1
        done = first  # actions before this one were followed
        length = 0  # bytes of this hand's history line
        if code == 0:
            r = betting_rules(n, bb, small_bet, big_bet, cap[h], house[h])
            table[:] = 0
            seat[:] = 0
            posted = post_given_bets(
                r,
                seat,
                table,
                btn,
                seat_stack[base : base + n],
                seat_blind[base : base + n],
                seat_dead[base : base + n],
            )
            if posted == NEW_STREET:
                line[length] = 47  # /
                length += 1
            for a in range(first, last + 1):
                p = player_of[a] if a < last else -1
                while (
                    table[STREET] != SETTLING
                    and table[TO_ACT] != p
                    and _unrecorded_check(r, seat, table[TO_ACT], table[CURRENT_BET])
                ):
                    seat[ACTED, table[TO_ACT]] = 1
                    seat[FACED, table[TO_ACT]] = table[CURRENT_BET]
                    if advance(r, seat, table) == NEW_STREET:
                        line[length] = 47  # /
                        length += 1
                if a == last:
                    if table[STREET] != SETTLING:
                        code = 10
                    break
                street = table[STREET]
                current = table[CURRENT_BET]
                if p < 0 or p >= n:
                    code = 2
                elif street == SETTLING:
                    code = 3
                elif street_of[a] != street:
                    code = 4
                elif p != table[TO_ACT]:
                    code = 5
                elif street > 0 and board[h, street + 1] < 0:
                    code = 11
                if code != 0:
                    break
                # The state before the action: the row.
                stack = seat[STACK, p]
                owed = min(current - seat[BET, p], stack)
                alive = 0
                able = 0
                pot = 0
                for s in range(n):
                    live = seat[FOLDED, s] == 0
                    alive += live
                    able += live and seat[STACK, s] > 0
                    pot += seat[TOTAL, s]
                waiting = 0  # others who must act, less checks nobody could answer
                for s in range(n):
                    if s == p or seat[FOLDED, s] or seat[STACK, s] <= 0:
                        continue
                    matched = seat[BET, s] == current
                    if not (seat[ACTED, s] and matched) and (not matched or able > 1):
                        waiting += 1
                out_stack[a] = stack
                out_pot[a] = pot
                out_call[a] = owed
                out_alive[a] = alive
                out_waiting[a] = waiting
                out_current[a] = current
                # The action itself.
                move = move_of[a]
                to = 0
                if move == FOLD:  # PokerStars lets a player fold even when checking is free
                    seat[FOLDED, p] = 1
                    out_code[a] = 0
                elif move == CHECK_CALL:
                    if amount_of[a] != owed and amount_of[a] >= 0:
                        code = 7
                        break
                    put_in(seat, p, owed)
                    out_put[a] = owed
                    out_code[a] = 2 if owed > 0 else 1
                elif move == RAISE:
                    to = amount_of[a]
                    code = _raise_code(r, seat, table, to)
                    if code == 8 and small_bet and cap[h] == FIXED_LIMIT_CAP:
                        # A raise over the cap of three: the hand shows the cap of four
                        # (``limit-cap-4``) if that allows it, as the replay decides.
                        wider = betting_rules(
                            n, bb, small_bet, big_bet, FIXED_LIMIT_CAP_4, house[h]
                        )
                        wider_code = _raise_code(wider, seat, table, to)
                        if wider_code != 8:
                            cap[h] = FIXED_LIMIT_CAP_4
                            code = wider_code
                            r = wider
                    if code != 0:
                        break
                    put = to - seat[BET, p]
                    out_put[a] = put
                    out_to[a] = to
                    out_code[a] = 3 if current == 0 else 4
                    put_in(seat, p, put)
                    note_raise(r, seat, table, to)
                else:
                    code = 12
                    break
                broke = seat[STACK, p] == 0
                out_all_in[a] = 1 if move != FOLD and broke else 0
                if all_in_of[a] >= 0 and all_in_of[a] != out_all_in[a]:
                    code = 13
                    break
                seat[ACTED, p] = 1
                seat[FACED, p] = table[CURRENT_BET]
                done = a + 1
                # The history before this action, then this action's token.
                shown = 0 if street == 0 else street + 2
                for c in range(shown):
                    board_cards[board_cursor + c] = board[h, c]
                board_cursor += shown
                board_offsets[a + 1] = board_cursor
                for c in range(length):
                    history[cursor + c] = line[c]
                cursor += length
                history_offsets[a + 1] = cursor
                length = _write_token(line, length, out_code[a], to, bb, broke)
                if advance(r, seat, table) == NEW_STREET:
                    line[length] = 47  # /
                    length += 1
        error[h] = code
        if code != 0:
            error_action[h] = done - first
        else:
            final_street[h] = table[END_STREET]
            for s in range(n):
                final_total[base + s] = seat[TOTAL, s]
                final_folded[base + s] = seat[FOLDED, s]
        for a in range(done, last):  # rows never written: empty, so offsets stay ordered
            history_offsets[a + 1] = cursor
            board_offsets[a + 1] = board_cursor
    return (
        out_stack,
        out_pot,
        out_call,
        out_alive,
        out_waiting,
        out_code,
        out_put,
        out_to,
        out_current,
        out_all_in,
        error,
        error_action,
        history_offsets,
        history[:cursor],
        board_offsets,
        board_cards[:board_cursor],
        final_total,
        final_folded,
        final_street,
    )


# -- assembling the frame ---------------------------------------------------------------------


@dataclass(frozen=True)
class Rows:
    """Decision rows of the hands that could be followed, and why the others could not.

    ``rejected`` maps an index into the records given to the :class:`HistoryError` that
    explains why that hand has no rows.
    """

    frame: pl.DataFrame
    rejected: dict[int, HistoryError]


def build_rows(records: Sequence[HandRecord], *, salt: str = DEFAULT_SALT) -> Rows:
    """Decision rows of many hands in one compiled pass (see the module docstring)."""
    arrays = HandArrays.of(records)
    tracked = track(arrays)
    return Rows(rows_frame(arrays, tracked, salt=salt), rejections(tracked))


_CAP_4_BIT = 1 << VARIANT_CODES.index("limit-cap-4")
"""The bit of ``limit-cap-4`` in ``HandArrays.variants``."""


def track(arrays: HandArrays) -> Tracked:
    """The compiled pass over every hand of ``arrays`` (states before each action); a
    fixed-limit hand that keeps to a bet and four raises but not three gets the variant
    ``limit-cap-4`` in ``Tracked.variants``, as ``replay.judge`` gives it."""
    caps = raise_caps(arrays)
    passed = _track_hands(
        arrays.seat_start,
        arrays.action_start,
        arrays.button,
        arrays.big_blind,
        arrays.limit_bets,
        arrays.board,
        arrays.stack,
        arrays.blind,
        arrays.dead,
        arrays.street,
        arrays.player,
        arrays.move,
        arrays.amount,
        arrays.all_in,
        caps,
        house_rules(arrays),
    )
    widened = np.where(caps == FIXED_LIMIT_CAP_4, _CAP_4_BIT, 0).astype(np.int32)
    return Tracked(*[*passed, arrays.variant_bits() | widened])  # variants: the last field


def house_rules(arrays: HandArrays) -> Int64s:
    """Per hand, the engine's :class:`HouseRule` bits for the house rules its record shows
    (``record.HOUSE_RULE_OF_VARIANT``); the pass follows the betting ones like ``Table``."""
    bits = arrays.variant_bits().astype(np.int64)
    rules = np.zeros(arrays.hands, dtype=np.int64)
    for code, rule in HOUSE_RULE_OF_VARIANT.items():
        rules |= (bits >> VARIANT_CODES.index(code) & 1) * int(rule)
    return rules


def raise_caps(arrays: HandArrays) -> Int64s:
    """Per hand, the fixed-limit bets and raises per round: a bet and three raises, or
    four where the record shows ``limit-cap-4``."""
    four = arrays.variant_bits() & _CAP_4_BIT
    return np.where(four != 0, FIXED_LIMIT_CAP_4, FIXED_LIMIT_CAP).astype(np.int64)


def rejections(tracked: Tracked) -> dict[int, HistoryError]:
    """Why each hand the pass could not follow has no rows, by hand index."""
    return {
        int(h): _rejection(int(tracked.error[h]), int(tracked.error_action[h]))
        for h in np.flatnonzero(tracked.error)
    }


def rows_frame(
    arrays: HandArrays,
    tracked: Tracked,
    *,
    salt: str = DEFAULT_SALT,
    rows: Int64s | None = None,
) -> pl.DataFrame:
    """The rows of every hand the pass followed, in hand order, with every column of
    :data:`ROW_SCHEMA`; or just the rows ``rows`` (action indices, of followed hands), in
    that order.

    The columns are gathered from the arrays and the derived ones (in big blinds, as pot
    fractions) computed with numpy, in float64 then rounded to float32 as
    :func:`finish_rows` does for the reference (the tests compare the two frames).
    """
    counts = np.diff(arrays.action_start)
    hand_of = np.repeat(np.arange(arrays.hands, dtype=np.int64), counts)
    # The rows kept, as action indices: every hand followed, or as given.
    keep = np.flatnonzero(tracked.error[hand_of] == 0) if rows is None else rows
    columns = _columns(arrays, tracked, salt, keep, hand_of[keep])
    bb = columns["big_blind"].astype(np.float64)
    pot = columns["pot"].astype(np.float64)
    amount = columns["amount"]
    code = tracked.code[keep]
    current = tracked.current[keep]
    with np.errstate(divide="ignore", invalid="ignore"):
        derived = {
            "stack_bb": columns["stack"] / bb,
            "pot_bb": pot / bb,
            "to_call_bb": columns["to_call"] / bb,
            "amount_bb": amount / bb,
            "amount_pot": amount / pot,
        }
        fraction = (tracked.raise_to[keep] - current) / (pot + columns["to_call"])
    for name, values in derived.items():
        columns[name] = values.astype(np.float32)
    columns["raise_pot"] = pa.array(fraction.astype(np.float32), mask=code < 3)
    return pl.DataFrame({name: columns[name] for name in ROW_SCHEMA.names()})


def _columns(
    arrays: HandArrays, tracked: Tracked, salt: str, keep: Int64s, hand_of: Int64s
) -> dict[str, Any]:
    """The rows ``keep`` (action indices; ``hand_of`` their hands) as columns gathered
    from the arrays."""
    player = arrays.player[keep]
    seat_of = arrays.seat_start[hand_of] + player
    players = np.diff(arrays.seat_start)[hand_of]
    offset = (player - arrays.button[hand_of]) % np.maximum(players, 1)
    hole = arrays.hole[seat_of]
    known = hole[:, 0] >= 0
    code = tracked.code[keep]
    warning = arrays.warning[hand_of]
    row_hand = pa.array(hand_of)
    columns: dict[str, Any] = {
        "site": arrays.site.take(row_hand),
        "hand_id": arrays.hand_id.take(row_hand),
        "action_index": (keep - arrays.action_start[hand_of]).astype(np.uint16),
        "seat": player.astype(np.uint8),
        "seat_number": arrays.seat_number[seat_of].astype(np.uint8),
        "position": _enum(_POSITION_CODES[np.minimum(players, MAX_SEATS), offset], POSITIONS),
        "players": players.astype(np.uint8),
        "player_id": _player_ids(arrays, salt).take(pa.array(seat_of)),
        "betting": _enum(arrays.fixed_limit[hand_of], BETTINGS),
        "small_blind": arrays.small_blind[hand_of],
        "big_blind": arrays.big_blind[hand_of],
        "ante": arrays.ante[hand_of],
        "street": _enum(arrays.street[keep], STREETS),
        "board": _lists(tracked.board_offsets, tracked.board_cards, keep),
        "hole_cards": pa.FixedSizeListArray.from_arrays(
            pa.array(np.where(known[:, None], hole, 0).astype(np.uint8).ravel()),
            2,
            mask=pa.array(~known),
        ),
        "stack": tracked.stack[keep],
        "pot": tracked.pot[keep],
        "to_call": tracked.to_call[keep],
        "players_alive": tracked.alive[keep].astype(np.uint8),
        "players_to_act": tracked.to_act[keep].astype(np.uint8),
        "history": _strings(tracked.history_offsets, tracked.history_bytes, keep),
        "action": _enum(_ACTION_OF_TOKEN[code], ACTIONS),
        "amount": tracked.put_in[keep],
        "raise_to": pa.array(tracked.raise_to[keep], mask=code < 3),
        "all_in": tracked.all_in[keep].astype(np.bool_),
        "stack_start": arrays.stack[seat_of],
        "invested": tracked.final_total[seat_of],
        "won": pa.array(arrays.winnings[seat_of], mask=arrays.has_winnings[hand_of] == 0),
        "warning": _enum(warning, WARNINGS),
        "variants": _variant_names(tracked.variants[hand_of]),
    }
    return columns


def _variant_names(bits: Int32s) -> pa.Array:
    """Per row, the hand's variant codes joined by commas, null when none."""
    if not bits.any():
        return pa.nulls(bits.shape[0], pa.string())
    return _every_variant_name().take(pa.array(bits.astype(np.int64)))


@lru_cache(maxsize=1)
def _every_variant_name() -> pa.Array:
    """For each bit pattern of ``HandArrays.variants``, its codes joined by commas (null
    for 0): what :func:`_variant_names` picks from, made once."""
    patterns = range(1 << len(VARIANT_CODES))
    return pa.array([",".join(variant_codes(b)) or None for b in patterns], pa.string())


def variant_codes(bits: int) -> tuple[str, ...]:
    """The codes of ``VARIANT_CODES`` whose bits are set."""
    return tuple(code for i, code in enumerate(VARIANT_CODES) if bits >> i & 1)


def _player_ids(arrays: HandArrays, salt: str) -> pa.Array:
    """:func:`anonymize` of every seat's player, hashing each distinct name once."""
    seats_per_hand = np.diff(arrays.seat_start)
    site_of_seat = arrays.site.take(pa.array(np.repeat(np.arange(arrays.hands), seats_per_hand)))
    joined = pc.binary_join_element_wise(site_of_seat, arrays.name, "\x00")
    encoded = joined.dictionary_encode()
    distinct = encoded.dictionary.to_pylist()
    ids = pa.array([_anonymize_joined(key, salt) for key in distinct], pa.string())
    return ids.take(encoded.indices)


def decision_rows(records: Sequence[HandRecord], *, salt: str = DEFAULT_SALT) -> pl.DataFrame:
    """Decision rows of hands that must all be consistent; raises :class:`HistoryError`."""
    rows = build_rows(records, salt=salt)
    if rows.rejected:
        index, problem = next(iter(sorted(rows.rejected.items())))
        raise HistoryError(problem.reason, f"hand {records[index].hand_id}: {problem.message}")
    return rows.frame


def _rejection(code: int, action: int) -> HistoryError:
    reason, text = _REASONS[code]
    where = f" (action {action})" if action >= 0 and code != 1 else ""
    return HistoryError(reason, text + where)


def _enum(codes: npt.NDArray[Any], names: tuple[str, ...]) -> pl.Series:
    """An enum column of ``names`` from integer codes into them (negative: null)."""
    every = _enum_values(names)
    index = np.where(codes < 0, len(names), codes).astype(np.int64)
    return every[index]


@lru_cache(maxsize=16)
def _enum_values(names: tuple[str, ...]) -> pl.Series:
    """Each value of the enum ``names`` once, then a null (what :func:`_enum` picks from)."""
    return pl.Series([*names, None], dtype=pl.Enum(names))


def _lists(offsets: Int64s, values: UInt8s, keep: Int64s) -> pa.Array:
    """The rows ``keep`` of a list-of-cards column given by offsets into ``values``."""
    full = pa.LargeListArray.from_arrays(pa.array(offsets), pa.array(values, pa.uint8()))
    return full.take(pa.array(keep)).cast(pa.list_(pa.uint8()))


def _strings(offsets: Int64s, data: UInt8s, keep: Int64s) -> pa.Array:
    """The rows ``keep`` of a string column given by offsets into ASCII bytes."""
    full = pa.LargeStringArray.from_buffers(
        len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(data.tobytes())
    )
    return full.take(pa.array(keep)).cast(pa.string())


def finish_rows(frame: pl.DataFrame) -> pl.DataFrame:
    """Add the derived columns (in big blinds, as pot fractions) and fix types and order.

    ``frame`` has the raw integer columns plus ``current`` (the bet to match before the
    action); both builders end here so the derived values are computed one way.
    """
    bb = pl.col("big_blind").cast(pl.Float64)
    pot = pl.col("pot").cast(pl.Float64)
    raising = pl.col("action").cast(pl.String) == "bet-raise"
    derived = {
        "stack_bb": pl.col("stack") / bb,
        "pot_bb": pot / bb,
        "to_call_bb": pl.col("to_call") / bb,
        "amount_bb": pl.col("amount") / bb,
        "amount_pot": pl.col("amount") / pot,
        "raise_pot": pl.when(raising).then(
            (pl.col("raise_to") - pl.col("current")) / (pot + pl.col("to_call"))
        ),
    }
    return frame.select(  # one pass: the derived columns and every column's type
        derived.get(name, pl.col(name)).cast(dtype).alias(name)
        for name, dtype in ROW_SCHEMA.items()
    )


def empty_rows() -> pl.DataFrame:
    """A frame with the row schema and no rows."""
    return pl.DataFrame(schema=ROW_SCHEMA)


# -- the readable reference -------------------------------------------------------------------


def reference_rows(records: Sequence[HandRecord], *, salt: str = DEFAULT_SALT) -> Rows:
    """The same rows as :func:`build_rows`, by replaying each record through ``Table``.

    Slow and plain: for each recorded action, read the table's state, then apply the
    action. A check the engine asks for but sites never record (the last player with
    chips, nothing to call, everyone else all-in) is applied silently, without a row.
    """
    frames: list[dict[str, Any]] = []
    rejected: dict[int, HistoryError] = {}
    for index, record in enumerate(records):
        try:
            frames.extend(_reference_hand(record, salt))
        except (IllegalActionError, ValueError) as error:
            reason = error.reason if isinstance(error, HistoryError) else "rows-illegal"
            rejected[index] = HistoryError(reason, str(error))
    if not frames:
        return Rows(empty_rows(), rejected)
    schema: dict[str, pl.DataType] = {**_COLUMNS, "current": pl.Int64()}
    raw = pl.DataFrame(frames, schema={k: v for k, v in schema.items() if k in frames[0]})
    return Rows(finish_rows(raw), rejected)


def table_for(record: HandRecord) -> Table:
    """A fresh engine table set up like the record: stacks, button, forced bets, cards."""
    n = record.players
    small_bet, big_bet = limit_bets(record)
    config = GameConfig(
        betting=record.betting,
        seats=n,
        small_blind=min(record.small_blind, record.big_blind),
        big_blind=record.big_blind,
        small_bet=small_bet or None,
        big_bet=big_bet or None,
        raise_cap=FIXED_LIMIT_CAP_4 if "limit-cap-4" in record.variants else FIXED_LIMIT_CAP,
    )
    holes = [list(h) if len(h) == 2 else [] for h in record.hole_cards[:n]]
    holes.extend([] for _ in range(n - len(holes)))
    forced = ForcedBets(
        tuple(padded(record.blinds, n)),
        tuple(padded(record.dead, n)),
        house_rules=house_rules_of(record.variants),
    )
    return Table(
        config,
        [seat.stack for seat in record.seats],
        button=record.button,
        hole_cards=holes,
        board=list(record.board[:5]),
        seed=0,
        forced=forced,
    )


def _reference_hand(record: HandRecord, salt: str) -> list[dict[str, Any]]:
    """One record's rows, from an engine table stepped through its actions."""
    table = table_for(record)
    n = record.players
    rows: list[dict[str, Any]] = []
    history = ""
    street = Street.PREFLOP
    for index, action in enumerate(record.actions):
        _skip_unrecorded_checks(table, action.player)
        if table.done:
            raise HistoryError("rows-after-end", f"action {index} comes after the hand is over")
        if table.street != action.street:
            raise HistoryError("rows-street", f"action {index} is on the wrong street")
        if table.to_act != action.player:
            raise HistoryError("rows-order", f"action {index}: a player acts out of turn")
        while street < table.street:
            history += "/"
            street = Street(street + 1)
        seat = action.player
        legal = table.legal()
        before = table.stack[seat]
        current = table.current_bet
        waiting = sum(1 for s in range(n) if s != seat and _still_to_act(table, s))
        row: dict[str, Any] = {
            "site": record.site,
            "hand_id": record.hand_id,
            "action_index": index,
            "seat": seat,
            "seat_number": record.seats[seat].number,
            "position": position_name(seat, record.button, n),
            "players": n,
            "player_id": anonymize(record.site, record.seats[seat].player, salt),
            "betting": record.betting.value,
            "small_blind": record.small_blind,
            "big_blind": record.big_blind,
            "ante": record.ante,
            "street": STREETS[table.street],
            "board": list(table.board),
            "hole_cards": list(table.hole_cards[seat]) or None,
            "stack": before,
            "pot": table.pot(),
            "to_call": legal.call,
            "players_alive": sum(not f for f in table.folded),
            "players_to_act": waiting,
            "history": history,
            "current": current,
            "stack_start": record.seats[seat].stack,
            "won": None if record.winnings is None else record.winnings[seat],
            "warning": record.warnings[0] if record.warnings else None,
            "variants": ",".join(record.variants) or None,
        }
        if action.move is Move.CHECK_CALL and action.amount != legal.call:
            raise HistoryError("rows-call-amount", f"action {index}: a call of the wrong size")
        put_in = {
            Move.FOLD: 0,
            Move.CHECK_CALL: legal.call,
            Move.RAISE: action.amount - table.bet[seat],
        }[action.move]
        if action.move is Move.FOLD:
            table.fold(when_free=True)  # PokerStars lets a player fold when checking is free
        else:
            table.act(action.move, action.amount)
        all_in = action.move is not Move.FOLD and before == put_in
        token = _token(action.move, legal.call, current, action.amount, record.big_blind)
        history += token + ("a" if all_in else "")
        row |= {
            "action": _ACTION_NAMES[action.move],
            "amount": put_in,
            "raise_to": action.amount if action.move is Move.RAISE else None,
            "all_in": all_in,
        }
        rows.append(row)
    _skip_unrecorded_checks(table, -1)
    if not table.done:
        raise HistoryError("rows-incomplete", "the actions end while a player still has to act")
    return [row | {"invested": table.total[row["seat"]]} for row in rows]


_ACTION_NAMES = {Move.FOLD: "fold", Move.CHECK_CALL: "check-call", Move.RAISE: "bet-raise"}


def _still_to_act(table: Table, seat: int) -> bool:
    """Whether ``seat`` must still act this round, not counting unrecorded checks."""
    if table.folded[seat] or table.stack[seat] == 0:
        return False
    matched = table.bet[seat] == table.current_bet
    if table.acted[seat] and matched:
        return False
    others = [s for s in range(table.seats) if s != seat and not table.folded[s]]
    return not matched or any(table.stack[s] > 0 for s in others)


def _skip_unrecorded_checks(table: Table, actor: int) -> None:
    """Apply the checks ``Table`` asks for that no site records (see ``_still_to_act``)."""
    while not table.done and table.to_act != actor and not _still_to_act(table, table.to_act):
        table.check_call()


def _token(move: Move, owed: int, current: int, amount: int, big_blind: int) -> str:
    """One history token (see the module docstring), without the all-in mark."""
    if move is Move.FOLD:
        return "f"
    if move is Move.CHECK_CALL:
        return "c" if owed > 0 else "k"
    hundredths = (2 * 100 * amount + big_blind) // (2 * big_blind)
    whole, fraction = divmod(hundredths, 100)
    text = str(whole) + (f".{fraction:02d}".rstrip("0") if fraction else "")
    return ("b" if current == 0 else "r") + text
