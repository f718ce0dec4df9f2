"""Simulate a pool on the batched engine and write its hands as a site would.

:class:`Simulator` plays fast-fold hands of a :class:`~poolshark.pool.pools.Pool` on many
tables of the batched engine at once, in one compiled loop: for every decision the
context comes from :func:`~poolshark.pool.context.fill_features` and the action from
:func:`~poolshark.pool.policy.sample_kernel` for the style of the player in that seat, so
these hands follow exactly the policy the exact ranges assume. Each hand seats ``seats``
distinct players drawn at random from the whole pool (so seat-style frequencies are the
pool's, as the mixture posterior assumes), on a random button, every stack reset to the
pool's depth. Finished hands come out as arrays (:class:`SimulatedHands`): cards, stacks,
button, players, the action log, results: the ground truth.

The hands are then written as PokerStars text by a compiled formatter
(:func:`pokerstars_text`) that builds the bytes from the arrays with precomputed string
pieces. It prints exactly what ``histories.pokerstars.write_pokerstars`` prints for the
record of the same hand (``SimulatedHands.record``), which the tests check byte for byte;
it exists because building records and writing them one by one in Python is some 15 to 50
times slower (``benchmarks/pool.py``). PHH goes through the records and ``write_phh``.
:func:`write_simulation` writes a whole run: text files, optional PHH files and the
ground-truth sidecar (Parquet: every seat's hole cards, player and style per hand, never
read by learners).

Site details: Zoom hand ids are unique and increasing (with gaps, as other games share the
counter), timestamps advance as a pool of this size would deal hands, table names come
from a list of Zoom-style names, chips are cents (the pool's blinds 1/2 are $0.01/$0.02).
No hero: like mined histories, only showdown hands are shown.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import numba as nb
import numpy as np
import numpy.typing as npt
import polars as pl

from poolshark.cards.card import format_cards
from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX
from poolshark.cards.evaluator import KEY_INIT, value_of
from poolshark.cards.evaluator import tables as evaluator_tables
from poolshark.engine.batched import (
    BET,
    BUTTON,
    COERCED,
    DONE,
    FOLDED,
    LOG_AMOUNT,
    LOG_LEN,
    LOG_MOVE,
    LOG_SEAT,
    LOG_STREET,
    NET,
    SEAT_FIELDS,
    SETTLING,
    SHOWDOWN,
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
    deal,
    next_random,
    random_below,
    settle,
    start_hand,
)
from poolshark.engine.config import GameConfig
from poolshark.engine.table import Move, Street
from poolshark.histories.chips import CURRENCY_SYMBOL, format_chips
from poolshark.histories.phh import write_phh
from poolshark.histories.pokerstars import _describe
from poolshark.histories.record import HandRecord, RecordedAction, Seat
from poolshark.pool.context import N_FEATURES, ActionLogs, fill_features
from poolshark.pool.policy import sample_kernel
from poolshark.pool.pools import Pool
from poolshark.pool.strength import HAS_STRAIGHT, reference_ranges

Int64s = npt.NDArray[np.int64]
UInt8s = npt.NDArray[np.uint8]
Bools = npt.NDArray[np.bool_]

SITE = "PokerStars"
CURRENCY = "USD"
TIME_ZONE = "ET"
LOG_WIDTH = 256
"""Actions one hand may take (a longer hand stops the run with an error)."""
ALL_IN = 1
"""Bit of ``SimulatedHands.action_flags``: the action put the player's last chip in."""
FORCED = 2
"""Bit of ``SimulatedHands.action_flags``: a check the engine asks of the last player
able to act when everyone else is all-in; sites never write it (a non-decision)."""
HAND_SECONDS = 35.0
"""Mean length of one hand at one table: sets how fast a pool's clock runs."""
ZOOM_TABLES = (
    "Halley", "Encke", "Biela", "Tempel", "Tuttle", "Donati", "Kohoutek", "Borrelly",
    "Faye", "Giacobini", "Brorsen", "Westphal", "Olbers", "Crommelin", "Wirtanen", "Arend",
    "Finlay", "Grigg", "Holmes", "Pons", "Swift", "Wolf", "Schaumasse", "Wild",
)  # fmt: skip
"""Zoom-style table names (comets); a run deals under a few of them."""
FIRST_DAY = datetime(2024, 1, 8)
FIRST_HAND_ID = 250_000_000_000
STEP_HANDS = 10_000
"""Hands :func:`write_simulation` plays and writes at a time."""


class SimulationError(ValueError):
    """A pool or request the simulator cannot play or write; the message says why."""


# -- the hands --------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SimulatedHands:
    """N finished hands of one pool as arrays: the ground truth of a simulation.

    Per hand: ``hand_id``, ``time`` (seconds since 1970 on the site's ET clock), ``table``
    (index into ``table_names``), ``button``, and per seat ``players`` (pool player index),
    ``styles`` (pool style index), ``stacks`` (starting chips), ``total`` (chips put in,
    uncalled bets returned) and ``net`` (chips won); ``cards`` (N, 2 * seats + 5) holds the
    hole cards of seat s at 2s, 2s + 1, then the five board cards, of which ``shown`` were
    dealt face up; ``showdown`` whether two or more players reached the end. The action log
    is flat: hand h's actions are ``action_start[h]:action_start[h + 1]`` of
    ``action_seat``, ``action_move`` (0 fold, 1 check/call, 2 bet/raise), ``action_amount``
    (a call: chips put in; a raise: the total bet to) and ``action_street`` (0..3), with
    ``action_flags`` (:data:`ALL_IN`, :data:`FORCED`). ``coerced`` counts sampled actions
    the engine had to correct (0 unless the policy and the engine disagree on a bound).
    """

    pool: Pool
    hand_id: Int64s
    time: Int64s
    table: Int64s
    table_names: tuple[str, ...]
    button: Int64s
    players: Int64s
    styles: Int64s
    stacks: Int64s
    cards: UInt8s
    shown: Int64s
    showdown: Bools
    total: Int64s
    net: Int64s
    action_start: Int64s
    action_seat: Int64s
    action_move: Int64s
    action_amount: Int64s
    action_street: Int64s
    action_flags: UInt8s
    coerced: int = 0

    def __len__(self) -> int:
        return int(self.hand_id.size)

    @property
    def seats(self) -> int:
        """Seats per table."""
        return int(self.players.shape[1])

    @property
    def config(self) -> GameConfig:
        """The game every hand was played with."""
        return self.pool.config

    @property
    def boards(self) -> UInt8s:
        """(N, 5) the whole board each hand was dealt (``shown`` cards are public)."""
        return self.cards[:, 2 * self.seats :]

    @property
    def hole_cards(self) -> UInt8s:
        """(N, seats, 2) every seat's hole cards."""
        return self.cards[:, : 2 * self.seats].reshape(len(self), self.seats, 2)

    @property
    def collected(self) -> Int64s:
        """(N, seats) chips each seat collected from the pots (net + chips put in)."""
        collected: Int64s = self.net + self.total
        return collected

    def actions(self, hand: int) -> list[tuple[int, int, int, int, int]]:
        """Hand ``hand``'s log as (seat, move, amount, street, flags) rows."""
        rows = slice(self.action_start[hand], self.action_start[hand + 1])
        columns = (
            self.action_seat[rows],
            self.action_move[rows],
            self.action_amount[rows],
            self.action_street[rows],
            self.action_flags[rows],
        )
        return [tuple(int(v) for v in row) for row in zip(*columns, strict=True)]  # type: ignore[misc]

    def action_logs(self) -> ActionLogs:
        """The logs padded to (N, longest) arrays, as ``posterior.label_decisions`` takes."""
        length = np.diff(self.action_start)
        width = max(int(length.max(initial=0)), 1)
        rows = np.repeat(np.arange(len(self)), length)
        columns = np.arange(self.action_seat.size) - np.repeat(self.action_start[:-1], length)
        padded = []
        for values in (self.action_seat, self.action_move, self.action_amount, self.action_street):
            grid = np.zeros((len(self), width), dtype=np.int64)
            grid[rows, columns] = values
            padded.append(grid)
        seat, move, amount, street = padded
        return ActionLogs(seat, move, amount, street, length.astype(np.int64))

    def datetime(self, hand: int) -> datetime:
        """Hand ``hand``'s time on the site's clock."""
        return datetime(1970, 1, 1) + timedelta(seconds=int(self.time[hand]))

    def record(self, hand: int) -> HandRecord:
        """The record a site would keep of hand ``hand``: players by name, seats 1..n,
        showdown hands shown, no hero, the engine's forced checks left out."""
        n = self.seats
        button = int(self.button[hand])
        small = button if n == 2 else (button + 1) % n
        big = (small + 1) % n
        blinds = [0] * n
        blinds[small] = self.config.small_blind
        blinds[big] = self.config.big_blind
        names = self.pool.player_names
        seats = tuple(
            Seat(s + 1, names[int(self.players[hand, s])], int(self.stacks[hand, s]))
            for s in range(n)
        )
        actions = []
        folded = [False] * n
        moves = (Move.FOLD, Move.CHECK_CALL, Move.RAISE)
        for seat, move, amount, street, flags in self.actions(hand):
            folded[seat] |= move == 0
            if not flags & FORCED:
                actions.append(
                    RecordedAction(Street(street), seat, moves[move], amount, bool(flags & ALL_IN))
                )
        showdown = bool(self.showdown[hand])
        cards = self.cards[hand]
        holes = tuple(
            (int(cards[2 * s]), int(cards[2 * s + 1])) if showdown and not folded[s] else ()
            for s in range(n)
        )
        return HandRecord(
            site=SITE,
            hand_id=str(int(self.hand_id[hand])),
            seats=seats,
            button=button,
            small_blind=self.config.small_blind,
            big_blind=self.config.big_blind,
            blinds=tuple(blinds),
            dead=(0,) * n,
            actions=tuple(actions),
            board=tuple(int(c) for c in cards[2 * n : 2 * n + int(self.shown[hand])]),
            hole_cards=holes,
            winnings=tuple(int(c) for c in self.collected[hand]),
            rake=0,
            unit=Decimal("0.01"),
            currency=CURRENCY,
            time=self.datetime(hand),
            table=self.table_names[int(self.table[hand])],
            max_seats=n,
            total_pot=int(self.total[hand].sum()),
            fast_fold=True,
        )

    def records(self) -> Iterator[HandRecord]:
        """Every hand's :meth:`record`, in order."""
        return (self.record(h) for h in range(len(self)))

    def truth_frame(self) -> pl.DataFrame:
        """The ground-truth sidecar: one row per hand and seat (hand id, seat number,
        player name, style, hole cards, starting stack, chips won)."""
        n, seats = len(self), self.seats
        names = np.array(self.pool.player_names, dtype=object)
        styles = np.array([s.name for s in self.pool.styles], dtype=object)
        holes = self.hole_cards.reshape(-1, 2)
        card_names = np.array([format_cards([c]) for c in range(52)], dtype=object)
        return pl.DataFrame(
            {
                "hand_id": np.repeat(self.hand_id, seats),
                "seat": np.tile(np.arange(1, seats + 1, dtype=np.uint8), n),
                "player": names[self.players.ravel()].tolist(),
                "style": pl.Series(styles[self.styles.ravel()].tolist(), dtype=pl.Categorical),
                "hole_cards": (card_names[holes[:, 0]] + card_names[holes[:, 1]]).tolist(),
                "stack": self.stacks.ravel(),
                "net": self.net.ravel(),
            }
        )


def concatenate(parts: Sequence[SimulatedHands]) -> SimulatedHands:
    """Several runs of one pool (in order) as one."""
    if not parts:
        raise SimulationError("nothing to concatenate")
    first = parts[0]
    starts = [first.action_start[:1]]
    offset = 0
    for part in parts:
        starts.append(part.action_start[1:] + offset)
        offset += int(part.action_start[-1])

    def joined(name: str) -> npt.NDArray[Any]:
        return np.concatenate([getattr(p, name) for p in parts])

    return SimulatedHands(
        pool=first.pool,
        hand_id=joined("hand_id"),
        time=joined("time"),
        table=joined("table"),
        table_names=first.table_names,
        button=joined("button"),
        players=joined("players"),
        styles=joined("styles"),
        stacks=joined("stacks"),
        cards=joined("cards"),
        shown=joined("shown"),
        showdown=joined("showdown"),
        total=joined("total"),
        net=joined("net"),
        action_start=np.concatenate(starts),
        action_seat=joined("action_seat"),
        action_move=joined("action_move"),
        action_amount=joined("action_amount"),
        action_street=joined("action_street"),
        action_flags=joined("action_flags"),
        coerced=sum(p.coerced for p in parts),
    )


# -- playing --------------------------------------------------------------------------------


class Simulator:
    """Plays a pool's fast-fold hands on ``tables`` batched tables, chunk after chunk.

    Reproducible: the same pool, seed and ``tables`` give the same hands, however they are
    split into :meth:`play` calls. ``stack_range`` (low, high) chips deals each seat a
    uniform stack in that range instead of the pool's depth (tests use it for side pots).
    """

    def __init__(
        self,
        pool: Pool,
        *,
        seed: int = 0,
        tables: int = 256,
        stack_range: tuple[int, int] | None = None,
    ) -> None:
        config = pool.config
        if not 0 < config.small_blind < config.big_blind:
            raise SimulationError(
                f"pool {pool.name}: the simulator needs 0 < small blind < big blind"
                f" (got {config.small_blind}/{config.big_blind})"
            )
        if tables < 1:
            raise SimulationError(f"need at least one table, got {tables}")
        low, high = stack_range if stack_range is not None else (pool.stack, pool.stack)
        if not 0 < low <= high:
            raise SimulationError(f"stack range {low}..{high} must be positive chips, low first")
        self.pool = pool
        self.low, self.high = low, high
        self.rules = Rules.of(config)
        seats = config.seats
        self.seat = np.zeros((tables, SEAT_FIELDS, seats), dtype=np.int64)
        self.table = np.zeros((tables, TABLE_FIELDS), dtype=np.int64)
        self.table[:, STREET] = DONE
        self.cards = np.zeros((tables, 2 * seats + 5), dtype=np.uint8)
        self.log = np.zeros((tables, LOG_WIDTH, 4), dtype=np.int64)
        self.flags = np.zeros((tables, LOG_WIDTH), dtype=np.uint8)
        self.expected = np.zeros((tables, seats), dtype=np.float64)
        self.seated = np.zeros((tables, seats), dtype=np.int64)
        streams = np.random.SeedSequence([seed, 1]).generate_state(tables, dtype=np.uint64)
        self.rng = streams | np.uint64(1)
        self.cursor = np.zeros(2, dtype=np.int64)  # next table to step, actions coerced
        site = np.random.default_rng([seed, 2])
        names = site.permutation(len(ZOOM_TABLES))[:4]
        self.table_names = tuple(ZOOM_TABLES[i] for i in sorted(names))
        self.next_id = FIRST_HAND_ID + int(site.integers(0, 10**9))
        day = FIRST_DAY + timedelta(days=int(site.integers(0, 300)))
        self.clock = (day - datetime(1970, 1, 1)).total_seconds() + 3600 * 7.5
        # one stream per per-hand number, so chunking never changes them
        self.id_rng, self.clock_rng, self.table_rng = (
            np.random.default_rng([seed, 3 + k]) for k in range(3)
        )
        self.evaluator = Evaluator(*evaluator_tables())
        self.player_styles = np.ascontiguousarray(pool.player_styles, dtype=np.int64)

    def play(self, hands: int) -> SimulatedHands:
        """The next ``hands`` finished hands."""
        if hands < 0:
            raise SimulationError(f"cannot play {hands} hands")
        seats = self.pool.config.seats
        bank = self.pool.bank
        out_button = np.zeros(hands, dtype=np.int64)
        out_players = np.zeros((hands, seats), dtype=np.int64)
        out_stacks = np.zeros((hands, seats), dtype=np.int64)
        out_cards = np.zeros((hands, 2 * seats + 5), dtype=np.uint8)
        out_shown = np.zeros(hands, dtype=np.int64)
        out_showdown = np.zeros(hands, dtype=np.bool_)
        out_total = np.zeros((hands, seats), dtype=np.int64)
        out_net = np.zeros((hands, seats), dtype=np.int64)
        out_start = np.zeros(hands + 1, dtype=np.int64)
        logs: list[tuple[Int64s, Int64s, Int64s, Int64s, UInt8s]] = []
        done = 0
        coerced_before = int(self.cursor[1])
        while done < hands:
            capacity = max(LOG_WIDTH, 16 * (hands - done))
            a_seat, a_move, a_amount, a_street = (np.zeros(capacity, np.int64) for _ in range(4))
            a_flags = np.zeros(capacity, np.uint8)
            played, written, status = _play_kernel(
                self.rules,
                self.seat,
                self.table,
                self.cards,
                self.log,
                self.flags,
                self.expected,
                self.rng,
                self.evaluator,
                *bank,
                reference_ranges(),
                COMBO_INDEX,
                COMBO_CARDS,
                HAS_STRAIGHT,
                self.player_styles,
                self.low,
                self.high,
                self.seated,
                self.cursor,
                done,
                hands,
                out_button,
                out_players,
                out_stacks,
                out_cards,
                out_shown,
                out_showdown,
                out_total,
                out_net,
                out_start,
                a_seat,
                a_move,
                a_amount,
                a_street,
                a_flags,
            )
            if status:
                raise SimulationError(f"a hand took more than {LOG_WIDTH} actions")
            base = sum(int(part[0].size) for part in logs)
            out_start[done + 1 : played + 1] += base
            logs.append(
                (a_seat[:written], a_move[:written], a_amount[:written], a_street[:written],
                 a_flags[:written])
            )  # fmt: skip
            done = played
        hand_id, clock, table = self._site_numbers(hands)
        styles = self.player_styles[out_players]
        return SimulatedHands(
            pool=self.pool,
            hand_id=hand_id,
            time=clock,
            table=table,
            table_names=self.table_names,
            button=out_button,
            players=out_players,
            styles=styles,
            stacks=out_stacks,
            cards=out_cards,
            shown=out_shown,
            showdown=out_showdown,
            total=out_total,
            net=out_net,
            action_start=out_start,
            action_seat=np.concatenate([p[0] for p in logs]) if logs else np.zeros(0, np.int64),
            action_move=np.concatenate([p[1] for p in logs]) if logs else np.zeros(0, np.int64),
            action_amount=np.concatenate([p[2] for p in logs]) if logs else np.zeros(0, np.int64),
            action_street=np.concatenate([p[3] for p in logs]) if logs else np.zeros(0, np.int64),
            action_flags=np.concatenate([p[4] for p in logs]) if logs else np.zeros(0, np.uint8),
            coerced=int(self.cursor[1]) - coerced_before,
        )

    def _site_numbers(self, hands: int) -> tuple[Int64s, Int64s, Int64s]:
        """Hand ids (increasing, with gaps), clock times and table names of the next hands."""
        gaps = 1 + self.id_rng.geometric(0.2, size=hands)
        hand_id = self.next_id + np.cumsum(gaps)
        if hands:
            self.next_id = int(hand_id[-1])
        tables_dealing = max(1.0, self.pool.spec.players / self.pool.config.seats)
        waits = self.clock_rng.exponential(HAND_SECONDS / tables_dealing, size=hands)
        clock = self.clock + np.cumsum(waits)
        if hands:
            self.clock = float(clock[-1])
        table = self.table_rng.integers(0, len(self.table_names), size=hands)
        return hand_id.astype(np.int64), np.floor(clock).astype(np.int64), table.astype(np.int64)


def simulate(
    pool: Pool,
    hands: int,
    *,
    seed: int = 0,
    tables: int = 256,
    stack_range: tuple[int, int] | None = None,
) -> SimulatedHands:
    """Play ``hands`` fast-fold hands of ``pool`` (see :class:`Simulator`)."""
    return Simulator(pool, seed=seed, tables=tables, stack_range=stack_range).play(hands)


@nb.njit(inline="always")
def _uniform(rng: npt.NDArray[np.uint64], i: int) -> float:
    """A float in [0, 1) from table ``i``'s stream (53 random bits)."""
    return float(next_random(rng, i) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(inline="always")
def _random_index(rng: npt.NDArray[np.uint64], i: int, bound: int) -> int:
    """A uniform int64 in [0, bound) from table ``i``'s stream (never uint64, whose
    arithmetic with int64 numba turns into floats)."""
    return int(np.int64(random_below(rng, i, bound)))


@nb.njit(cache=True, nogil=True)
def _play_kernel(
    r: Rules,
    seat: Int64s,
    table: Int64s,
    cards: UInt8s,
    log: Int64s,
    flags: UInt8s,
    expected: npt.NDArray[np.float64],
    rng: npt.NDArray[np.uint64],
    ev: Evaluator,
    raise_weight: npt.NDArray[np.float64],
    continue_weight: npt.NDArray[np.float64],
    params: npt.NDArray[np.float64],
    sizes: npt.NDArray[np.float64],
    size_weights: npt.NDArray[np.float64],
    references: Bools,
    combo_index: npt.NDArray[np.int16],
    combo_cards: UInt8s,
    has_straight: Bools,
    player_styles: Int64s,
    low: int,
    high: int,
    seated: Int64s,
    cursor: Int64s,
    done: int,
    wanted: int,
    out_button: Int64s,
    out_players: Int64s,
    out_stacks: Int64s,
    out_cards: UInt8s,
    out_shown: Int64s,
    out_showdown: Bools,
    out_total: Int64s,
    out_net: Int64s,
    out_start: Int64s,
    a_seat: Int64s,
    a_move: Int64s,
    a_amount: Int64s,
    a_street: Int64s,
    a_flags: UInt8s,
) -> tuple[int, int, int]:
    """Step the tables round-robin until hand ``wanted`` is finished or the action arrays
    are nearly full; returns (hands finished in all, actions written now, status: 1 when a
    log overflowed). Finished hands are written at index ``done`` onwards."""
    n_tables = table.shape[0]
    seats = r.seats
    width = log.shape[1]
    players = player_styles.size
    style = np.zeros(1, dtype=np.int64)
    features = np.zeros((1, N_FEATURES))
    hole = np.zeros((1, 2), dtype=np.int64)
    board = np.zeros((1, 5), dtype=np.int64)
    uniform = np.zeros(1)
    move = np.zeros(1, dtype=np.int64)
    amount = np.zeros(1, dtype=np.int64)
    written = 0
    capacity = a_seat.size
    while done < wanted and written + width <= capacity:
        i = cursor[0]
        cursor[0] = (i + 1) % n_tables
        if table[i, STREET] == DONE:
            for s in range(seats):
                while True:
                    player = _random_index(rng, i, players)
                    clash = False
                    for t in range(s):
                        clash = clash or seated[i, t] == player
                    if not clash:
                        break
                seated[i, s] = player
                stack = low
                if high > low:
                    stack += _random_index(rng, i, high - low + 1)
                seat[i, START, s] = stack
            button = _random_index(rng, i, seats)
            deal(cards, rng, i)
            start_hand(r, seat[i], table[i], button)
        else:
            who = table[i, TO_ACT]
            k = table[i, LOG_LEN]
            stuck = True
            for s in range(seats):
                if s != who and seat[i, FOLDED, s] == 0 and seat[i, STACK, s] > 0:
                    stuck = False
            stack_before = seat[i, STACK, who]
            bet_before = seat[i, BET, who]
            fill_features(
                seats,
                r.big_blind,
                r.straddle,
                table[i, BUTTON],
                who,
                table[i, STREET],
                seat[i, STACK],
                seat[i, BET],
                seat[i, TOTAL].sum(),
                log[i, :, LOG_SEAT],
                log[i, :, LOG_MOVE],
                log[i, :, LOG_AMOUNT],
                log[i, :, LOG_STREET],
                k,
                features[0],
            )
            style[0] = player_styles[seated[i, who]]
            hole[0, 0] = cards[i, 2 * who]
            hole[0, 1] = cards[i, 2 * who + 1]
            for b in range(5):
                board[0, b] = cards[i, 2 * seats + b]
            uniform[0] = _uniform(rng, i)
            sample_kernel(
                raise_weight,
                continue_weight,
                params,
                sizes,
                size_weights,
                style,
                features,
                hole,
                board,
                uniform,
                references,
                combo_index,
                combo_cards,
                ev.card_key,
                ev.card_mask,
                ev.row_base,
                ev.rank_table,
                ev.flush_table,
                has_straight,
                move,
                amount,
            )
            act(r, seat[i], table[i], log[i], move[0], amount[0])
            if k < width:
                logged_move, logged = log[i, k, LOG_MOVE], log[i, k, LOG_AMOUNT]
                chips = logged if logged_move == 1 else logged - bet_before
                flag = 0
                if logged_move != 0 and chips > 0 and chips == stack_before:
                    flag |= 1
                if logged_move == 1 and logged == 0 and stuck:
                    flag |= 2
                flags[i, k] = flag
        if table[i, STREET] == SETTLING:
            settle(r, seat[i], table[i], cards[i], expected[i], ev)
            length = table[i, LOG_LEN]
            if length > width:
                return done, written, 1
            out_button[done] = table[i, BUTTON]
            for s in range(seats):
                out_players[done, s] = seated[i, s]
                out_stacks[done, s] = seat[i, START, s]
                out_total[done, s] = seat[i, TOTAL, s]
                out_net[done, s] = seat[i, NET, s]
            for c in range(cards.shape[1]):
                out_cards[done, c] = cards[i, c]
            out_shown[done] = table[i, SHOWN]
            out_showdown[done] = table[i, SHOWDOWN] == 1
            for k in range(length):
                a_seat[written] = log[i, k, LOG_SEAT]
                a_move[written] = log[i, k, LOG_MOVE]
                a_amount[written] = log[i, k, LOG_AMOUNT]
                a_street[written] = log[i, k, LOG_STREET]
                a_flags[written] = flags[i, k]
                written += 1
            cursor[1] += table[i, COERCED]
            done += 1
            out_start[done] = written
    return done, written, 0


# -- the fast PokerStars writer ----------------------------------------------------------------

# Indices of the constant text pieces (see ``_pieces``).
(
    P_HEADER, P_GAME, P_ZONE_TABLE, P_MAX_SEATS, P_IS_BUTTON, P_SEAT, P_COLON, P_OPEN,
    P_IN_CHIPS, P_POSTS_SB, P_POSTS_BB, P_ALL_IN, P_HOLE_CARDS, P_FOLDS, P_CHECKS, P_CALLS,
    P_RAISES, P_TO, P_BETS, P_UNCALLED, P_RETURNED, P_FLOP, P_TURN, P_RIVER, P_BETWEEN,
    P_CLOSE_LINE, P_SHOW_DOWN, P_SHOWS, P_CARDS_DESC, P_CLOSE_PAREN_LINE, P_COLLECTED,
    P_FROM_POT, P_FROM_MAIN, P_FROM_SIDE, P_FROM_SIDE_N, P_NO_SHOW, P_SUMMARY, P_TOTAL_POT,
    P_RAKE, P_MAIN_POT, P_SIDE_POT, P_SIDE_POT_N, P_DOT, P_BOARD, P_TAG_BUTTON, P_TAG_SMALL,
    P_TAG_BIG, P_FOLDED_PRE, P_DIDNT_BET, P_FOLDED_FLOP, P_FOLDED_TURN, P_FOLDED_RIVER,
    P_COLLECTED_SUMMARY, P_CLOSE_PAREN, P_SHOWED, P_AND_WON, P_WITH, P_AND_LOST, P_NEWLINE,
    P_SYMBOL, P_SPACE,
) = range(61)  # fmt: skip


def _pieces(config: GameConfig, max_seats: int) -> list[str]:
    """The constant strings of a hand's text, in ``P_*`` order, as the site prints them."""
    symbol = CURRENCY_SYMBOL[CURRENCY]
    stakes = f"{symbol}{format_chips(config.small_blind)}/{symbol}{format_chips(config.big_blind)}"
    return [
        "PokerStars Zoom Hand #",
        f":  Hold'em No Limit ({stakes}) - ",
        f" {TIME_ZONE}\nTable '",
        f"' {max_seats}-max Seat #",
        " is the button\n",
        "Seat ",
        ": ",
        " (",
        " in chips)\n",
        ": posts small blind ",
        ": posts big blind ",
        " and is all-in",
        "*** HOLE CARDS ***\n",
        ": folds\n",
        ": checks\n",
        ": calls ",
        ": raises ",
        " to ",
        ": bets ",
        "Uncalled bet (",
        ") returned to ",
        "*** FLOP *** [",
        "*** TURN *** [",
        "*** RIVER *** [",
        "] [",
        "]\n",
        "*** SHOW DOWN ***\n",
        ": shows [",
        "] (",
        ")\n",
        " collected ",
        " from pot\n",
        " from main pot\n",
        " from side pot\n",
        " from side pot-",
        ": doesn't show hand\n",
        "*** SUMMARY ***\n",
        "Total pot ",
        " | Rake ",
        " Main pot ",
        " Side pot ",
        " Side pot-",
        ".",
        "Board [",
        " (button)",
        " (small blind)",
        " (big blind)",
        " folded before Flop",
        " (didn't bet)",
        " folded on the Flop",
        " folded on the Turn",
        " folded on the River",
        " collected (",
        ")",
        " showed [",
        "] and won (",
        ") with ",
        "] and lost with ",
        "\n",
        symbol,
        " ",
    ]


def _packed(texts: Sequence[str]) -> tuple[UInt8s, Int64s]:
    """Strings as one UTF-8 byte array and the (len + 1) offsets of each."""
    encoded = [t.encode() for t in texts]
    starts = np.zeros(len(encoded) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([len(b) for b in encoded])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), starts


_DESCRIPTIONS: dict[int, str] = {}  # hand value -> the site's words, filled as values occur
_RANK_SUIT = np.frombuffer(b"23456789TJQKAcdhs", dtype=np.uint8).copy()


@nb.njit(cache=True, nogil=True)
def _put(buf: UInt8s, p: int, data: UInt8s, starts: Int64s, k: int) -> int:
    """Copy string ``k`` of a packed table to ``buf[p:]``; returns the new end."""
    for j in range(starts[k], starts[k + 1]):
        buf[p] = data[j]
        p += 1
    return p


@nb.njit(cache=True, nogil=True)
def _put_int(buf: UInt8s, p: int, value: int) -> int:
    """A non-negative integer in decimal."""
    digits = 1
    rest = value // 10
    while rest:
        digits += 1
        rest //= 10
    for j in range(digits - 1, -1, -1):
        buf[p + j] = 48 + value % 10
        value //= 10
    return p + digits


@nb.njit(cache=True, nogil=True)
def _put_two(buf: UInt8s, p: int, value: int) -> int:
    """Two digits, zero-padded."""
    buf[p] = 48 + value // 10
    buf[p + 1] = 48 + value % 10
    return p + 2


@nb.njit(cache=True, nogil=True)
def _put_money(buf: UInt8s, p: int, chips: int, pieces: UInt8s, starts: Int64s) -> int:
    """Cents as the site prints money: ``$0.25``, ``$2``, ``$1.50``."""
    p = _put(buf, p, pieces, starts, P_SYMBOL)
    p = _put_int(buf, p, chips // 100)
    if chips % 100:
        buf[p] = 46
        p = _put_two(buf, p + 1, chips % 100)
    return p


@nb.njit(cache=True, nogil=True)
def _put_card(buf: UInt8s, p: int, card: int, rank_suit: UInt8s) -> int:
    buf[p] = rank_suit[card >> 2]
    buf[p + 1] = rank_suit[13 + (card & 3)]
    return p + 2


@nb.njit(cache=True, nogil=True)
def _put_cards(buf: UInt8s, p: int, cards: UInt8s, first: int, stop: int, rank_suit: UInt8s) -> int:
    """Cards ``first:stop`` separated by spaces."""
    for c in range(first, stop):
        if c > first:
            buf[p] = 32
            p += 1
        p = _put_card(buf, p, cards[c], rank_suit)
    return p


@nb.njit(cache=True, nogil=True)
def _return_uncalled(
    buf: UInt8s,
    p: int,
    bet: Int64s,
    stack: Int64s,
    total: Int64s,
    names: UInt8s,
    name_starts: Int64s,
    players: Int64s,
    pieces: UInt8s,
    starts: Int64s,
) -> int:
    """The part of the largest bet nobody matched goes back (with its line); bets reset."""
    top = 0
    for s in range(1, bet.size):
        if bet[s] > bet[top]:
            top = s
    second = 0
    for s in range(bet.size):
        if s != top:
            second = max(second, bet[s])
    excess = bet[top] - second
    if excess > 0:
        stack[top] += excess
        total[top] -= excess
        p = _put(buf, p, pieces, starts, P_UNCALLED)
        p = _put_money(buf, p, excess, pieces, starts)
        p = _put(buf, p, pieces, starts, P_RETURNED)
        p = _put(buf, p, names, name_starts, players[top])
        p = _put(buf, p, pieces, starts, P_NEWLINE)
    bet[:] = 0
    return p


@nb.njit(cache=True, nogil=True)
def _street_line(
    buf: UInt8s,
    p: int,
    street: int,
    board: UInt8s,
    rank_suit: UInt8s,
    pieces: UInt8s,
    starts: Int64s,
) -> int:
    """``*** FLOP *** [..]``, ``*** TURN *** [...] [.]``, ``*** RIVER *** [....] [.]``."""
    p = _put(buf, p, pieces, starts, P_FLOP + street - 1)
    if street == 1:
        p = _put_cards(buf, p, board, 0, 3, rank_suit)
    else:
        p = _put_cards(buf, p, board, 0, street + 1, rank_suit)
        p = _put(buf, p, pieces, starts, P_BETWEEN)
        p = _put_card(buf, p, board[street + 1], rank_suit)
    return _put(buf, p, pieces, starts, P_CLOSE_LINE)


@nb.njit(cache=True, nogil=True)
def _showdown_values(
    seats: int,
    cards: UInt8s,
    showdown: Bools,
    ev: Evaluator,
) -> Int64s:
    """(N, seats) hand values of every seat in a showdown hand (0 elsewhere)."""
    values = np.zeros((cards.shape[0], seats), dtype=np.int64)
    for h in range(cards.shape[0]):
        if not showdown[h]:
            continue
        base_key = np.int64(KEY_INIT)
        base_mask = np.int64(0)
        for b in range(5):
            c = cards[h, 2 * seats + b]
            base_key += ev.card_key[c]
            base_mask |= ev.card_mask[c]
        for s in range(seats):
            a, b = cards[h, 2 * s], cards[h, 2 * s + 1]
            key = base_key + ev.card_key[a] + ev.card_key[b]
            mask = base_mask | ev.card_mask[a] | ev.card_mask[b]
            values[h, s] = value_of(key, mask, ev.row_base, ev.rank_table, ev.flush_table)
    return values


@nb.njit(cache=True, nogil=True)
def _write_kernel(
    small_blind: int,
    big_blind: int,
    hand_id: Int64s,
    clock: Int64s,
    table_index: Int64s,
    button: Int64s,
    players: Int64s,
    stacks: Int64s,
    cards: UInt8s,
    shown: Int64s,
    engine_total: Int64s,
    collected: Int64s,
    values: Int64s,
    action_start: Int64s,
    a_seat: Int64s,
    a_move: Int64s,
    a_amount: Int64s,
    a_street: Int64s,
    a_flags: UInt8s,
    names: UInt8s,
    name_starts: Int64s,
    table_names: UInt8s,
    table_starts: Int64s,
    descriptions: UInt8s,
    description_starts: Int64s,
    pieces: UInt8s,
    starts: Int64s,
    rank_suit: UInt8s,
    buf: UInt8s,
) -> int:
    """Every hand's PokerStars text into ``buf``, hands separated by a blank line; returns
    the bytes written. ``clock`` is (N, 6): year, month, day, hour, minute, second."""
    n = stacks.shape[1]
    stack = np.zeros(n, dtype=np.int64)
    bet = np.zeros(n, dtype=np.int64)
    total = np.zeros(n, dtype=np.int64)
    folded = np.zeros(n, dtype=np.bool_)
    fold_street = np.zeros(n, dtype=np.int64)
    paid = np.zeros(n, dtype=np.int64)
    pot_amount = np.zeros(n + 1, dtype=np.int64)
    pot_level = np.zeros(n + 1, dtype=np.int64)
    award_pot = np.zeros((n + 1) * n, dtype=np.int64)
    award_seat = np.zeros((n + 1) * n, dtype=np.int64)
    award_chips = np.zeros((n + 1) * n, dtype=np.int64)
    winners = np.zeros(n, dtype=np.int64)
    p = 0
    for h in range(stacks.shape[0]):
        if h:
            buf[p] = 10
            buf[p + 1] = 10
            p += 2
        b = button[h]
        small = b if n == 2 else (b + 1) % n
        big = (small + 1) % n
        who = players[h]
        board = cards[h, 2 * n :]
        # header, table and seats
        p = _put(buf, p, pieces, starts, P_HEADER)
        p = _put_int(buf, p, hand_id[h])
        p = _put(buf, p, pieces, starts, P_GAME)
        p = _put_int(buf, p, clock[h, 0])
        buf[p] = 47
        p = _put_two(buf, p + 1, clock[h, 1])
        buf[p] = 47
        p = _put_two(buf, p + 1, clock[h, 2])
        buf[p] = 32
        p = _put_int(buf, p + 1, clock[h, 3])
        buf[p] = 58
        p = _put_two(buf, p + 1, clock[h, 4])
        buf[p] = 58
        p = _put_two(buf, p + 1, clock[h, 5])
        p = _put(buf, p, pieces, starts, P_ZONE_TABLE)
        p = _put(buf, p, table_names, table_starts, table_index[h])
        p = _put(buf, p, pieces, starts, P_MAX_SEATS)
        p = _put_int(buf, p, b + 1)
        p = _put(buf, p, pieces, starts, P_IS_BUTTON)
        for s in range(n):
            p = _put(buf, p, pieces, starts, P_SEAT)
            p = _put_int(buf, p, s + 1)
            p = _put(buf, p, pieces, starts, P_COLON)
            p = _put(buf, p, names, name_starts, who[s])
            p = _put(buf, p, pieces, starts, P_OPEN)
            p = _put_money(buf, p, stacks[h, s], pieces, starts)
            p = _put(buf, p, pieces, starts, P_IN_CHIPS)
            stack[s] = stacks[h, s]
            bet[s] = 0
            total[s] = 0
            folded[s] = False
            fold_street[s] = -1
            paid[s] = 0
        # blinds
        for s, chips, piece in ((small, small_blind, P_POSTS_SB), (big, big_blind, P_POSTS_BB)):
            posted = min(chips, stack[s])
            stack[s] -= posted
            bet[s] += posted
            total[s] += posted
            p = _put(buf, p, names, name_starts, who[s])
            p = _put(buf, p, pieces, starts, piece)
            p = _put_money(buf, p, posted, pieces, starts)
            if stack[s] == 0:
                p = _put(buf, p, pieces, starts, P_ALL_IN)
            p = _put(buf, p, pieces, starts, P_NEWLINE)
        p = _put(buf, p, pieces, starts, P_HOLE_CARDS)
        # betting
        current = bet.max()
        street = 0
        last_action_street = 0
        for a in range(action_start[h], action_start[h + 1]):
            if a_flags[a] & FORCED:
                continue
            st = a_street[a]
            while st > street:
                p = _return_uncalled(
                    buf, p, bet, stack, total, names, name_starts, who, pieces, starts
                )
                street += 1
                p = _street_line(buf, p, street, board, rank_suit, pieces, starts)
                current = 0
            last_action_street = st
            i = a_seat[a]
            amount = a_amount[a]
            p = _put(buf, p, names, name_starts, who[i])
            if a_move[a] == 0:
                folded[i] = True
                fold_street[i] = st
                p = _put(buf, p, pieces, starts, P_FOLDS)
                continue
            if a_move[a] == 1:
                if amount == 0:
                    p = _put(buf, p, pieces, starts, P_CHECKS)
                    continue
                stack[i] -= amount
                bet[i] += amount
                total[i] += amount
                p = _put(buf, p, pieces, starts, P_CALLS)
                p = _put_money(buf, p, amount, pieces, starts)
            else:
                chips = amount - bet[i]
                stack[i] -= chips
                bet[i] += chips
                total[i] += chips
                if current:
                    p = _put(buf, p, pieces, starts, P_RAISES)
                    p = _put_money(buf, p, amount - current, pieces, starts)
                    p = _put(buf, p, pieces, starts, P_TO)
                    p = _put_money(buf, p, amount, pieces, starts)
                else:
                    p = _put(buf, p, pieces, starts, P_BETS)
                    p = _put_money(buf, p, amount, pieces, starts)
                current = max(current, amount)
            if a_flags[a] & ALL_IN:
                p = _put(buf, p, pieces, starts, P_ALL_IN)
            p = _put(buf, p, pieces, starts, P_NEWLINE)
        p = _return_uncalled(buf, p, bet, stack, total, names, name_starts, who, pieces, starts)
        last = street
        # pots: one per contribution level of a live player, dead chips in the last
        live = 0
        for s in range(n):
            live += not folded[s]
        showdown = live > 1
        pots = 0
        previous = 0
        layered = 0
        while True:
            level = -1
            for s in range(n):
                if not folded[s] and total[s] > previous and (level < 0 or total[s] < level):
                    level = total[s]
            if level < 0:
                break
            amount = 0
            for s in range(n):
                amount += min(total[s], level) - min(total[s], previous)
            pot_amount[pots] = amount
            pot_level[pots] = level
            layered += amount
            pots += 1
            previous = level
        leftover = total.sum() - layered
        if leftover:
            if pots:
                pot_amount[pots - 1] += leftover
            else:
                pot_amount[0] = leftover
                pot_level[0] = 0
                pots = 1
        kept = 0
        for k in range(pots):
            if pot_amount[k] > 0:
                pot_amount[kept] = pot_amount[k]
                pot_level[kept] = pot_level[k]
                kept += 1
        pots = kept
        awards = 0
        for k in range(pots):
            count = 0
            best = -1
            for s in range(n):
                if not folded[s] and total[s] >= pot_level[k]:
                    winners[count] = s
                    count += 1
                    best = max(best, values[h, s])
            if showdown and count > 1:
                kept = 0
                for j in range(count):
                    if values[h, winners[j]] == best:
                        winners[kept] = winners[j]
                        kept += 1
                count = kept
            share = pot_amount[k] // count
            odd = pot_amount[k] % count
            for j in range(count):
                s = winners[j]
                ahead = 0
                for m in range(count):
                    if (winners[m] - b - 1) % n < (s - b - 1) % n:
                        ahead += 1
                chips = share + (1 if ahead < odd else 0)
                award_pot[awards] = k
                award_seat[awards] = s
                award_chips[awards] = chips
                awards += 1
                paid[s] += chips
        agree = True
        for s in range(n):
            agree = agree and paid[s] == collected[h, s]
        # the rest of the board, the showdown, the pots collected
        for st in range(1, 4):
            if st > last and shown[h] >= st + 2:
                p = _street_line(buf, p, st, board, rank_suit, pieces, starts)
        if showdown:
            p = _put(buf, p, pieces, starts, P_SHOW_DOWN)
            raiser = -1
            for a in range(action_start[h], action_start[h + 1]):
                recorded = not a_flags[a] & FORCED
                if recorded and a_street[a] == last_action_street and a_move[a] == 2:
                    raiser = a_seat[a]
            first = raiser if raiser >= 0 and not folded[raiser] else (b + 1) % n
            for j in range(n):
                s = (first + j) % n
                if folded[s]:
                    continue
                p = _put(buf, p, names, name_starts, who[s])
                p = _put(buf, p, pieces, starts, P_SHOWS)
                p = _put_cards(buf, p, cards[h], 2 * s, 2 * s + 2, rank_suit)
                p = _put(buf, p, pieces, starts, P_CARDS_DESC)
                p = _put(buf, p, descriptions, description_starts, values[h, s])
                p = _put(buf, p, pieces, starts, P_CLOSE_PAREN_LINE)
        if agree:
            for k in range(pots - 1, -1, -1):
                for j in range(awards):
                    if award_pot[j] != k:
                        continue
                    p = _put(buf, p, names, name_starts, who[award_seat[j]])
                    p = _put(buf, p, pieces, starts, P_COLLECTED)
                    p = _put_money(buf, p, award_chips[j], pieces, starts)
                    if pots == 1:
                        p = _put(buf, p, pieces, starts, P_FROM_POT)
                    elif k == 0:
                        p = _put(buf, p, pieces, starts, P_FROM_MAIN)
                    elif pots == 2:
                        p = _put(buf, p, pieces, starts, P_FROM_SIDE)
                    else:
                        p = _put(buf, p, pieces, starts, P_FROM_SIDE_N)
                        p = _put_int(buf, p, k)
                        p = _put(buf, p, pieces, starts, P_NEWLINE)
        else:
            for s in range(n):
                paid[s] = collected[h, s]
                if paid[s]:
                    p = _put(buf, p, names, name_starts, who[s])
                    p = _put(buf, p, pieces, starts, P_COLLECTED)
                    p = _put_money(buf, p, paid[s], pieces, starts)
                    p = _put(buf, p, pieces, starts, P_FROM_POT)
        if not showdown:
            for s in range(n):
                if not folded[s]:
                    p = _put(buf, p, names, name_starts, who[s])
                    p = _put(buf, p, pieces, starts, P_NO_SHOW)
        # summary
        p = _put(buf, p, pieces, starts, P_SUMMARY)
        p = _put(buf, p, pieces, starts, P_TOTAL_POT)
        p = _put_money(buf, p, engine_total[h].sum(), pieces, starts)
        if agree and pots > 1:
            p = _put(buf, p, pieces, starts, P_MAIN_POT)
            p = _put_money(buf, p, pot_amount[0], pieces, starts)
            p = _put(buf, p, pieces, starts, P_DOT)
            for k in range(1, pots):
                if pots == 2:
                    p = _put(buf, p, pieces, starts, P_SIDE_POT)
                else:
                    p = _put(buf, p, pieces, starts, P_SIDE_POT_N)
                    p = _put_int(buf, p, k)
                    p = _put(buf, p, pieces, starts, P_SPACE)
                p = _put_money(buf, p, pot_amount[k], pieces, starts)
                p = _put(buf, p, pieces, starts, P_DOT)
        p = _put(buf, p, pieces, starts, P_RAKE)
        p = _put_money(buf, p, 0, pieces, starts)
        p = _put(buf, p, pieces, starts, P_NEWLINE)
        if shown[h]:
            p = _put(buf, p, pieces, starts, P_BOARD)
            p = _put_cards(buf, p, board, 0, shown[h], rank_suit)
            p = _put(buf, p, pieces, starts, P_CLOSE_LINE)
        for s in range(n):
            p = _put(buf, p, pieces, starts, P_SEAT)
            p = _put_int(buf, p, s + 1)
            p = _put(buf, p, pieces, starts, P_COLON)
            p = _put(buf, p, names, name_starts, who[s])
            if s == b:
                p = _put(buf, p, pieces, starts, P_TAG_BUTTON)
            if s == small:
                p = _put(buf, p, pieces, starts, P_TAG_SMALL)
            elif s == big:
                p = _put(buf, p, pieces, starts, P_TAG_BIG)
            if fold_street[s] == 0:
                p = _put(buf, p, pieces, starts, P_FOLDED_PRE)
                if total[s] == 0:
                    p = _put(buf, p, pieces, starts, P_DIDNT_BET)
            elif fold_street[s] > 0:
                p = _put(buf, p, pieces, starts, P_FOLDED_FLOP + fold_street[s] - 1)
            elif not showdown:
                p = _put(buf, p, pieces, starts, P_COLLECTED_SUMMARY)
                p = _put_money(buf, p, collected[h, s], pieces, starts)
                p = _put(buf, p, pieces, starts, P_CLOSE_PAREN)
            else:
                p = _put(buf, p, pieces, starts, P_SHOWED)
                p = _put_cards(buf, p, cards[h], 2 * s, 2 * s + 2, rank_suit)
                if paid[s]:
                    p = _put(buf, p, pieces, starts, P_AND_WON)
                    p = _put_money(buf, p, paid[s], pieces, starts)
                    p = _put(buf, p, pieces, starts, P_WITH)
                else:
                    p = _put(buf, p, pieces, starts, P_AND_LOST)
                p = _put(buf, p, descriptions, description_starts, values[h, s])
            p = _put(buf, p, pieces, starts, P_NEWLINE)
    return p


def _descriptions(hands: SimulatedHands, values: Int64s) -> tuple[UInt8s, Int64s]:
    """The site's words for every hand value (``_describe``, computed once per value seen)."""
    seen, first = np.unique(values.ravel(), return_index=True)
    n = hands.seats
    for value, flat in zip(seen.tolist(), first.tolist(), strict=True):
        if value and value not in _DESCRIPTIONS:
            h, s = divmod(flat, n)
            row = hands.cards[h]
            cards = [int(row[2 * s]), int(row[2 * s + 1]), *(int(c) for c in row[2 * n :])]
            _DESCRIPTIONS[value] = _describe(cards)
    texts = [_DESCRIPTIONS.get(v, "") for v in range(7463)]
    return _packed(texts)


def pokerstars_text(hands: SimulatedHands) -> bytes:
    """Every hand as PokerStars text (UTF-8), separated by a blank line as in
    ``write_pokerstars_hands``: byte for byte what the Python writer makes of
    :meth:`SimulatedHands.record`, tens of times faster."""
    if not len(hands):
        return b""
    n = hands.seats
    ev = Evaluator(*evaluator_tables())
    values = _showdown_values(n, hands.cards, hands.showdown, ev)
    descriptions, description_starts = _descriptions(hands, values)
    names, name_starts = _packed(hands.pool.player_names)
    table_names, table_starts = _packed(hands.table_names)
    pieces, starts = _packed(_pieces(hands.config, n))
    stamps = hands.time.astype("datetime64[s]")
    days = stamps.astype("datetime64[D]")
    months = stamps.astype("datetime64[M]")
    years = stamps.astype("datetime64[Y]")
    seconds = (stamps - days).astype(np.int64)
    clock = np.stack(
        [
            years.astype(np.int64) + 1970,
            (months - years).astype(np.int64) + 1,
            (days - months).astype(np.int64) + 1,
            seconds // 3600,
            seconds // 60 % 60,
            seconds % 60,
        ],
        axis=1,
    )
    longest_name = int(np.diff(name_starts).max())
    actions = np.diff(hands.action_start)
    bound = int((1200 + n * (3 * longest_name + 420) + actions * (longest_name + 64)).sum())
    buf = np.empty(bound, dtype=np.uint8)
    used = _write_kernel(
        hands.config.small_blind,
        hands.config.big_blind,
        hands.hand_id,
        clock,
        hands.table,
        hands.button,
        hands.players,
        hands.stacks,
        hands.cards,
        hands.shown,
        hands.total,
        hands.collected,
        values,
        hands.action_start,
        hands.action_seat,
        hands.action_move,
        hands.action_amount,
        hands.action_street,
        hands.action_flags,
        names,
        name_starts,
        table_names,
        table_starts,
        descriptions,
        description_starts,
        pieces,
        starts,
        _RANK_SUIT,
        buf,
    )
    return buf[:used].tobytes()


# -- writing a run ------------------------------------------------------------------------------

Format = Literal["pokerstars", "phh", "both"]


@dataclass
class SimulationSummary:
    """What :func:`write_simulation` did (also written to ``OUT/summary.json``)."""

    pool: str
    hands: int
    seed: int
    tables: int
    format: str
    out: str
    files: list[str] = field(default_factory=list)
    actions: int = 0
    coerced: int = 0
    seconds: float = 0.0
    hands_per_s: float = 0.0

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def check_request(out: str | Path, hands: int, format: str, hands_per_file: int) -> None:
    """Refuse a run :func:`write_simulation` cannot do, before any work: a bad format or
    count, or an output folder that already holds a simulation."""
    if format not in ("pokerstars", "phh", "both"):
        raise SimulationError(f"unknown format {format!r}: use pokerstars, phh or both")
    if hands < 1:
        raise SimulationError(f"need at least one hand, got {hands}")
    if hands_per_file < 1:
        raise SimulationError(f"hands per file must be positive, got {hands_per_file}")
    folder = Path(out)
    if (folder / "summary.json").exists() or any(
        (folder / sub).is_dir() and any((folder / sub).iterdir())
        for sub in ("pokerstars", "phh", "truth")
    ):
        raise SimulationError(f"{folder} already holds a simulation; choose an empty folder")


def write_simulation(
    pool: Pool,
    hands: int,
    out: str | Path,
    *,
    seed: int = 0,
    format: Format = "pokerstars",
    tables: int = 256,
    hands_per_file: int = 50_000,
    progress: Callable[[int], None] | None = None,
    on_chunk: Callable[[SimulatedHands], None] | None = None,
) -> SimulationSummary:
    """Simulate ``hands`` hands of ``pool`` into ``out``: ``pokerstars/hands-NNNNN.txt``
    and/or ``phh/hands-NNNNN.phhs`` (``hands_per_file`` hands each), the ground truth in
    ``truth/hands-NNNNN.parquet`` and ``summary.json``. Hands are played and written in
    steps of at most :data:`STEP_HANDS`; ``progress`` is told the hands done after each
    step and ``on_chunk`` sees each step's hands (e.g. to tally statistics)."""
    check_request(out, hands, format, hands_per_file)
    folder = Path(out)
    kinds = ["pokerstars", "phh"] if format == "both" else [format]
    for sub in [*kinds, "truth"]:
        (folder / sub).mkdir(parents=True, exist_ok=True)
    summary = SimulationSummary(pool.name, hands, seed, tables, format, str(folder))
    simulator = Simulator(pool, seed=seed, tables=tables)
    started = time.perf_counter()
    done = 0
    part = 0
    while done < hands:
        in_file = min(hands_per_file, hands - done)
        stem = f"hands-{part:05d}"
        paths = {
            "pokerstars": folder / "pokerstars" / f"{stem}.txt",
            "phh": folder / "phh" / f"{stem}.phhs",
        }
        frames = []
        with ExitStack() as stack:
            files = {kind: stack.enter_context(paths[kind].open("wb")) for kind in kinds}
            written = 0
            while written < in_file:
                chunk = simulator.play(min(STEP_HANDS, in_file - written))
                if "pokerstars" in files:
                    files["pokerstars"].write(
                        (b"\n\n" if written else b"") + pokerstars_text(chunk)
                    )
                if "phh" in files:
                    text = "\n".join(
                        write_phh(record, key=written + k + 1)
                        for k, record in enumerate(chunk.records())
                    )
                    files["phh"].write((("\n" if written else "") + text).encode())
                frames.append(chunk.truth_frame())
                summary.actions += int(chunk.action_start[-1])
                summary.coerced += chunk.coerced
                if on_chunk is not None:
                    on_chunk(chunk)
                written += len(chunk)
                if progress is not None:
                    progress(done + written)
        truth = folder / "truth" / f"{stem}.parquet"
        pl.concat(frames).write_parquet(truth)
        summary.files += [str(paths[kind]) for kind in kinds] + [str(truth)]
        done += in_file
        part += 1
    summary.seconds = time.perf_counter() - started
    summary.hands_per_s = hands / summary.seconds if summary.seconds else 0.0
    (folder / "summary.json").write_text(json.dumps(summary.as_dict(), indent=2) + "\n")
    return summary
