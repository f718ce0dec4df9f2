"""Thousands of hold'em tables in arrays, stepped together: the fast face of the engine.

:class:`BatchedTables` keeps N tables of one :class:`GameConfig` as arrays and applies one
action per table in a single compiled call. Tables finish at different times and are
dealt a new hand independently (:meth:`BatchedTables.reset`); a seat dealt a stack of 0
sits out that hand (an empty seat, for tournament play). The rules are those of
:class:`poolshark.engine.table.Table`, line for line (the tests replay batched hands
through a ``Table`` and compare), with one difference of interface: a batch never raises.
It exposes what is legal (:meth:`BatchedTables.legal`) and turns an illegal request into
the nearest legal action (a fold when checking is free becomes a check, a raise that is
not allowed becomes a call, a raise size is clamped to its bounds), counting each.

Layout. The state is a handful of arrays with named fields on one axis, so compiled
functions take few arguments (a named tuple of arrays would cost a reference count per
member on every call): ``seat[table, FIELD, seat]`` for per-seat integers,
``table[table, FIELD]`` for per-table integers, ``cards[table, 2 * seat + k]`` for hole
cards followed by the five board cards, ``log[table, k, FIELD]`` for the action log.

The layout (the field constants, moves and streets) and the rules are the compiled rules
kernel's: code that works on a batch's arrays imports them from :mod:`poolshark.engine.kernel`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.evaluator import tables
from poolshark.engine.config import GameConfig
from poolshark.engine.kernel import (
    BUTTON,
    CHECK_CALL,
    CURRENT_BET,
    DONE,
    FOLD,
    LOG_LEN,
    NET,
    NO_RAISE,
    RAISE,
    SEAT_FIELDS,
    SETTLING,
    SHOWN,
    STACK,
    START,
    STREET,
    TABLE_FIELDS,
    TO_ACT,
    TOTAL,
    Evaluator,
    Rules,
    act,
    legal_bounds,
    settle,
    start_hand,
)

__all__ = [
    "BatchedTables",
    "Bools",
    "Floats",
    "Int64s",
    "LegalBatch",
    "RandomPlay",
    "UInt8s",
    "UInt64s",
    "deal",
    "legal_tables",
    "next_occupied_seats",
    "next_random",
    "play_random_hands",
    "random_action",
    "random_below",
    "reset_tables",
    "step_tables",
]

Int64s = npt.NDArray[np.int64]
UInt8s = npt.NDArray[np.uint8]
UInt64s = npt.NDArray[np.uint64]
Bools = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]

# -- random streams and dealing --------------------------------------------------------------


@nb.njit(inline="always")
def next_random(rng: UInt64s, i: int) -> np.uint64:
    """xorshift64* step of table ``i``'s stream: reproducible, independent of batch order."""
    x = rng[i]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[i] = x
    return np.uint64(x * np.uint64(0x2545F4914F6CDD1D))


@nb.njit(inline="always")
def random_below(rng: UInt64s, i: int, bound: int) -> int:
    """A uniform int in [0, bound) for bound < 2**32 (multiply-shift on 32 random bits)."""
    return int(((next_random(rng, i) >> np.uint64(32)) * np.uint64(bound)) >> np.uint64(32))


@nb.njit(inline="always")
def deal(cards: UInt8s, rng: UInt64s, i: int) -> None:
    """Shuffle a fresh deck into table ``i``'s hole cards and board (partial Fisher-Yates)."""
    row = cards[i]
    deck = np.arange(52, dtype=np.uint8)
    for k in range(row.size):
        j = k + random_below(rng, i, 52 - k)
        deck[k], deck[j] = deck[j], deck[k]
        row[k] = deck[k]


# -- batch entry points ----------------------------------------------------------------------


@nb.njit(cache=True, nogil=True)
def step_tables(
    r: Rules,
    seat: Int64s,
    table: Int64s,
    cards: UInt8s,
    log: Int64s,
    expected: Floats,
    ev: Evaluator,
    moves: Int64s,
    amounts: Int64s,
) -> int:
    """Apply one action at every live table with a move >= 0; returns how many finished."""
    finished = 0
    for i in range(table.shape[0]):
        if table[i, STREET] < DONE and moves[i] >= 0:
            act(r, seat[i], table[i], log[i], moves[i], amounts[i])
            if table[i, STREET] == SETTLING:
                settle(r, seat[i], table[i], cards[i], expected[i], ev)
                finished += 1
    return finished


@nb.njit(cache=True, nogil=True)
def legal_tables(r: Rules, seat: Int64s, table: Int64s, bounds: Int64s) -> None:
    """Fill ``bounds[i]`` with table i's (call, min raise-to, max raise-to); -1s when done."""
    for i in range(table.shape[0]):
        if table[i, STREET] >= DONE:
            bounds[i, :] = NO_RAISE
        else:
            bounds[i, 0], bounds[i, 1], bounds[i, 2] = legal_bounds(r, seat[i], table[i])


@nb.njit(cache=True, nogil=True)
def reset_tables(
    r: Rules,
    seat: Int64s,
    table: Int64s,
    cards: UInt8s,
    expected: Floats,
    rng: UInt64s,
    ev: Evaluator,
    which: Int64s,
    stacks: Int64s,
    buttons: Int64s,
    shuffle: bool,
) -> None:
    """Start a new hand at tables ``which`` with rows of ``stacks`` and ``buttons``."""
    for k in range(which.size):
        i = which[k]
        seat[i, START] = stacks[k]
        if shuffle:
            deal(cards, rng, i)
        start_hand(r, seat[i], table[i], buttons[k])
        if table[i, STREET] == SETTLING:  # everyone all-in from the blinds
            settle(r, seat[i], table[i], cards[i], expected[i], ev)


@nb.njit(inline="always")
def random_action(r: Rules, seat: Int64s, table: Int64s, rng: UInt64s, i: int) -> tuple[int, int]:
    """A random legal action: the benchmark's and the tests' stand-in for a policy.

    Facing a bet: fold 25%, call 50%, raise 25%; otherwise check 65%, bet 35%. A raise is
    all-in one time in five, else uniform between the minimum and a pot-sized raise.
    """
    call, low, high = legal_bounds(r, seat, table)
    u = random_below(rng, i, 100)
    if call > 0 and u < 25:
        return FOLD, 0
    if low == NO_RAISE or (call > 0 and u < 75) or (call == 0 and u < 65):
        return CHECK_CALL, 0
    if random_below(rng, i, 5) == 0:
        return RAISE, high
    pot_raise = table[CURRENT_BET] + seat[TOTAL].sum() + call
    upper = max(low, min(high, pot_raise))
    return RAISE, low + random_below(rng, i, upper - low + 1)


@nb.njit(cache=True, nogil=True)
def play_random_hands(
    r: Rules,
    seat: Int64s,
    table: Int64s,
    cards: UInt8s,
    log: Int64s,
    expected: Floats,
    rng: UInt64s,
    ev: Evaluator,
    hands: int,
    depth: int,
) -> tuple[Int64s, int]:
    """Play ``hands`` complete hands across the batch with :func:`random_action`.

    Each finished table is dealt again at once, the button moving on and stacks reset to
    ``depth``. Returns the chips won per seat over all hands (they sum to minus the rake)
    and the number of actions taken.
    """
    n = table.shape[0]
    played = 0
    actions = 0
    won = np.zeros(r.seats, dtype=np.int64)
    for i in range(n):
        table[i, STREET] = DONE
        table[i, BUTTON] = i % r.seats
    while played < hands:
        for i in range(n):
            if table[i, STREET] == DONE:
                seat[i, START] = depth
                deal(cards, rng, i)
                start_hand(r, seat[i], table[i], (table[i, BUTTON] + 1) % r.seats)
            else:
                move, amount = random_action(r, seat[i], table[i], rng, i)
                act(r, seat[i], table[i], log[i], move, amount)
                actions += 1
            if table[i, STREET] == SETTLING:
                settle(r, seat[i], table[i], cards[i], expected[i], ev)
                played += 1
                won += seat[i, NET]
    return won, actions


# -- the Python face -----------------------------------------------------------------------


def next_occupied_seats(buttons: Int64s, occupied: Bools) -> Int64s:
    """Per row, the first seat clockwise after ``buttons`` where ``occupied`` (k, seats)
    holds: where the button moves on to (the next seat when every seat is occupied)."""
    seats = occupied.shape[1]
    candidates = (buttons[:, None] + np.arange(1, seats + 1)[None, :]) % seats
    rows = np.arange(buttons.size)
    first = np.argmax(occupied[rows[:, None], candidates], axis=1)
    moved: Int64s = candidates[rows, first]
    return moved


@dataclass(frozen=True)
class LegalBatch:
    """What the player to act at each table may do; -1 everywhere at finished tables.

    ``call``: chips to call (0: checking is free); ``min_raise_to``/``max_raise_to``: the
    bounds of a raise (the total bet this round), -1 when raising is not allowed.
    """

    to_act: Int64s
    call: Int64s
    min_raise_to: Int64s
    max_raise_to: Int64s

    @property
    def can_fold(self) -> Bools:
        """Folding is offered only when facing a bet."""
        return self.call > 0

    @property
    def can_raise(self) -> Bools:
        return self.min_raise_to >= 0

    def mask(self) -> Bools:
        """(tables, 3) legal-move mask in the order fold, check/call, raise."""
        return np.stack([self.can_fold, self.to_act >= 0, self.can_raise], axis=1)


class BatchedTables:
    """N tables of one game, stepped together; see the module docstring for the contract.

    The action log holds ``max_actions`` actions per hand, and never fewer than the most a
    hand can take under the config's decision cap (``GameConfig.most_decisions``), so a
    capped game cannot overflow it.
    """

    def __init__(
        self, config: GameConfig, tables_: int, *, seed: int = 0, max_actions: int = 96
    ) -> None:
        if tables_ <= 0:
            raise ValueError(f"need at least one table, got {tables_}")
        n, s = tables_, config.seats
        self.config = config
        self.rules = Rules.of(config)
        self.seat = np.zeros((n, SEAT_FIELDS, s), dtype=np.int64)
        self.table = np.zeros((n, TABLE_FIELDS), dtype=np.int64)
        self.table[:, STREET] = DONE
        self.table[:, TO_ACT] = -1
        self.table[:, BUTTON] = s - 1  # so the first reset puts every button on seat 0
        self.cards = np.zeros((n, 2 * s + 5), dtype=np.uint8)
        width = max(max_actions, config.most_decisions or 0)
        self.log = np.zeros((n, width, 4), dtype=np.int64)
        self.expected = np.zeros((n, s), dtype=np.float64)
        streams = np.random.SeedSequence(seed).generate_state(n, dtype=np.uint64)
        self.rng = streams | np.uint64(1)  # xorshift needs a non-zero state
        self._evaluator = Evaluator(*tables())

    # -- views ------------------------------------------------------------------------------

    @property
    def size(self) -> int:
        """Number of tables."""
        return int(self.table.shape[0])

    @property
    def done(self) -> Bools:
        """Tables whose hand is finished (or never started)."""
        done: Bools = self.table[:, STREET] == DONE
        return done

    @property
    def to_act(self) -> Int64s:
        """The seat to act at each table (-1 when done)."""
        return self.table[:, TO_ACT]

    @property
    def street(self) -> Int64s:
        """Current street per table (4 when done)."""
        return self.table[:, STREET]

    @property
    def stacks(self) -> Int64s:
        """(tables, seats) chips behind."""
        return self.seat[:, STACK]

    @property
    def net(self) -> Int64s:
        """(tables, seats) chips won in the last finished hand (valid where ``done``)."""
        return self.seat[:, NET]

    @property
    def expected_net(self) -> Floats:
        """(tables, seats) EV-settled result (equals ``net`` unless settled by expectation)."""
        return self.expected

    @property
    def hole_cards(self) -> UInt8s:
        """(tables, seats, 2) hole cards."""
        return self.cards[:, : 2 * self.config.seats].reshape(self.size, -1, 2)

    @property
    def boards(self) -> UInt8s:
        """(tables, 5) the whole board of each hand (``table[:, SHOWN]`` cards are public)."""
        return self.cards[:, 2 * self.config.seats :]

    def shown_boards(self, tables: Int64s) -> Int64s:
        """(len(tables), 5) the board public at ``tables`` so far, -1 for cards not shown."""
        board = self.boards[tables].astype(np.int64)
        shown = self.table[tables, SHOWN]
        board[np.arange(5)[None, :] >= shown[:, None]] = -1
        return board

    # -- driving ----------------------------------------------------------------------------

    def reset(
        self,
        which: npt.ArrayLike | None = None,
        *,
        stacks: npt.ArrayLike = 200,
        buttons: npt.ArrayLike | None = None,
        hole_cards: npt.ArrayLike | None = None,
        boards: npt.ArrayLike | None = None,
    ) -> Int64s:
        """Deal new hands at tables ``which`` (default: every finished table).

        ``stacks`` is one depth for every seat or a row per table; a stack of 0 is an empty
        seat (a busted player sitting out: dealt out, posting nothing; at least two seats
        must be occupied). ``buttons`` defaults to moving each button on to the next
        occupied seat; a given button must be an occupied seat. Cards come from each
        table's own random stream, unless ``hole_cards`` (k, seats, 2) and ``boards``
        (k, 5) are given. Returns the indices of the tables reset.
        """
        seats = self.config.seats
        index = (
            np.flatnonzero(self.done)
            if which is None
            else np.atleast_1d(np.asarray(which, dtype=np.int64))
        )
        if index.size and (index.min() < 0 or index.max() >= self.size):
            raise ValueError(f"table index out of range 0..{self.size - 1}")
        rows = np.broadcast_to(np.asarray(stacks, dtype=np.int64), (index.size, seats))
        lowest = int(rows.min()) if rows.size else 1
        if lowest < 0:
            raise ValueError("stacks must be whole chips, at least 0 (0: an empty seat)")
        occupied = rows > 0 if lowest == 0 else None  # None: every seat occupied
        if occupied is not None:
            counts = occupied.sum(axis=1)
            if counts.min() < 2:
                short = int(index[np.argmax(counts < 2)])
                raise ValueError(
                    f"table {short} has {int(counts.min())} occupied seat(s); a hand needs at"
                    " least 2 seats with positive stacks (a stack of 0 is an empty seat)"
                )
        if buttons is None:
            button_rows = (self.table[index, BUTTON] + 1) % seats
            if occupied is not None:
                button_rows = next_occupied_seats(self.table[index, BUTTON], occupied)
        else:
            button_rows = np.broadcast_to(np.asarray(buttons, dtype=np.int64), index.shape)
            if button_rows.size and (button_rows.min() < 0 or button_rows.max() >= seats):
                raise ValueError(f"a button must be a seat 0..{seats - 1}")
            if occupied is not None:
                empty = ~occupied[np.arange(index.size), button_rows]
                if empty.any():
                    k = int(np.argmax(empty))
                    raise ValueError(
                        f"table {int(index[k])}: the button is on seat {int(button_rows[k])},"
                        " an empty seat (stack 0)"
                    )
        shuffle = hole_cards is None
        if not shuffle:
            if boards is None:
                raise ValueError("give boards together with hole_cards")
            holes = np.asarray(hole_cards, dtype=np.int64).reshape(index.size, 2 * seats)
            board_rows = np.asarray(boards, dtype=np.int64).reshape(index.size, 5)
            dealt = np.concatenate([holes, board_rows], axis=1)
            if dealt.size and (dealt.min() < 0 or dealt.max() > 51):
                raise ValueError("cards are indices 0..51")
            if any(len(set(row.tolist())) != row.size for row in dealt):
                raise ValueError("a card is dealt twice at one table")
            self.cards[index] = dealt.astype(np.uint8)
        reset_tables(
            self.rules,
            self.seat,
            self.table,
            self.cards,
            self.expected,
            self.rng,
            self._evaluator,
            index,
            np.ascontiguousarray(rows),
            np.ascontiguousarray(button_rows),
            shuffle,
        )
        return index

    def legal(self) -> LegalBatch:
        """Legal-action bounds at every table (-1 at finished ones)."""
        bounds = np.empty((self.size, 3), dtype=np.int64)
        legal_tables(self.rules, self.seat, self.table, bounds)
        return LegalBatch(self.to_act.copy(), bounds[:, 0], bounds[:, 1], bounds[:, 2])

    def step(self, moves: npt.ArrayLike, amounts: npt.ArrayLike | None = None) -> int:
        """One action at every unfinished table (0 fold, 1 check/call, 2 raise to amount).

        A negative move leaves that table waiting (drive seats by different policies);
        finished tables ignore their entry. Returns how many tables finished this step.
        """
        n = self.size
        move_array = np.ascontiguousarray(np.broadcast_to(np.asarray(moves, np.int64), (n,)))
        amount_array = np.ascontiguousarray(
            np.broadcast_to(np.asarray(0 if amounts is None else amounts, np.int64), (n,))
        )
        finished = step_tables(
            self.rules,
            self.seat,
            self.table,
            self.cards,
            self.log,
            self.expected,
            self._evaluator,
            move_array,
            amount_array,
        )
        width = self.log.shape[1]
        if int(self.table[:, LOG_LEN].max()) > width:
            raise OverflowError(f"a hand took more than max_actions={width} actions")
        return int(finished)

    def actions(self, table: int) -> list[tuple[int, int, int, int]]:
        """Table ``table``'s actions this hand as (seat, move, amount, street)."""
        k = min(int(self.table[table, LOG_LEN]), self.log.shape[1])
        return [tuple(int(v) for v in row) for row in self.log[table, :k]]  # type: ignore[misc]

    def play_random(self, hands: int, depth: int) -> RandomPlay:
        """Play ``hands`` hands with random legal actions (benchmarks, smoke tests)."""
        won, actions = play_random_hands(
            self.rules,
            self.seat,
            self.table,
            self.cards,
            self.log,
            self.expected,
            self.rng,
            self._evaluator,
            hands,
            depth,
        )
        return RandomPlay(np.asarray(won), int(actions))


@dataclass(frozen=True)
class RandomPlay:
    """What :meth:`BatchedTables.play_random` did: chips won per seat, actions taken."""

    won: Int64s
    actions: int
