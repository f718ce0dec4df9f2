"""Simulate a pool on the batched engine and write its hands as a site would.

:class:`Simulator` plays fast-fold hands of a :class:`~poolshark.pool.pools.Pool` on many
tables of the batched engine at once, in one compiled loop
(:func:`~poolshark.pool.simulate_kernel.play_kernel`; it stays compiled rather than a face
over ``play.loop``, which sits above the agents and plays these styles far slower,
``simulate_kernel``'s docstring gives the measurement): for every decision the
context comes from :func:`~poolshark.pool.context.fill_features` and the action from
:func:`~poolshark.pool.policy.sample_kernel` for the style of the player in that seat, so
these hands follow exactly the policy the exact ranges assume. Each hand seats ``seats``
distinct players drawn at random from the whole pool (so seat-style frequencies are the
pool's, as the mixture posterior assumes), on a random button, every stack reset to the
pool's depth. Finished hands come out as arrays (:class:`SimulatedHands`): cards, stacks,
button, players, the action log, results: the ground truth, and whose cards were shown.

Showdown, as PokerStars runs it (:func:`~poolshark.pool.simulate_kernel.show_cards`; each
style's ``showdown`` table sets the two choices, ``muck_losing`` and ``show_uncontested``):

* All-in before the river with no betting left (the last action, the engine's forced
  checks aside, came before the river): every live hand is turned face up.
* Otherwise the first to show is the last player to bet or raise on the last betting
  street if still in the hand (a river bet that was called), else the first live player
  left of the button; then clockwise. Each player must show a hand that could win a pot
  he contests against the hands shown so far: a pot counts when two or more live players
  are in it, so the level checked is ``min(own chips in, second largest live player's
  chips in)`` and the hand must show unless a shown hand in that pot beats it outright
  (a tie shows, to take its share). A beaten hand mucks with the style's ``muck_losing``
  probability and shows otherwise. A mucked hand can win only a pot nobody else is in.
  Winners of a contested pot therefore always show.
* A pot nobody contested: the winner shows with the style's ``show_uncontested``
  probability (``Player: shows [..]`` after the collected line), else ``doesn't show
  hand``.

The choices are drawn from a stream of their own (one uniform per hand and seat), so the
play is the same whatever the showdown settings, and the same seed gives the same hands
however they are split into calls. ``SimulatedHands.showed`` records the outcome; the
text, the records and so the ingested rows carry hole cards only where shown (missing
not at random: losers muck), while :meth:`SimulatedHands.truth_frame` keeps every card.

The hands are then written as PokerStars text by a compiled formatter
(:func:`pokerstars_text`, over :mod:`~poolshark.pool.stars_text`) that builds the bytes
from the arrays with precomputed string pieces. It prints exactly what
``histories.pokerstars.write_pokerstars`` prints for the record of the same hand
(``SimulatedHands.record``), which the tests check byte for byte; it exists because
building records and writing them one by one in Python is some 15 to 50 times slower
(``benchmarks/pool.py``). PHH goes through the records and ``write_phh``.
:func:`write_simulation` writes a whole run: text files, optional PHH files and the
ground-truth sidecar (Parquet: every seat's hole cards, player and style per hand, never
read by learners).

Site details: Zoom hand ids are unique and increasing (with gaps, as other games share the
counter), timestamps advance as a pool of this size would deal hands, table names come
from a list of Zoom-style names, chips are cents (the pool's blinds 1/2 are $0.01/$0.02).
No hero: like mined histories, only the hands shown at the end are known.
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

import numpy as np
import numpy.typing as npt
import polars as pl

from poolshark.cards.card import format_cards
from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX
from poolshark.cards.evaluator import tables as evaluator_tables
from poolshark.engine.config import GameConfig
from poolshark.engine.kernel import DONE, SEAT_FIELDS, STREET, TABLE_FIELDS, Evaluator, Rules
from poolshark.engine.table import Move, Street
from poolshark.histories.phh import write_phh
from poolshark.histories.record import HandRecord, RecordedAction, Seat
from poolshark.pool.context import ActionLogs
from poolshark.pool.pools import Pool
from poolshark.pool.simulate_kernel import play_kernel, show_cards
from poolshark.pool.stars_text import (
    RANK_SUIT,
    hand_descriptions,
    packed,
    showdown_values,
    shown_values,
    site_pieces,
    write_kernel,
)
from poolshark.pool.strength import HAS_STRAIGHT, strength_cache

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
    dealt face up; ``showdown`` whether two or more players reached the end; ``showed``
    (N, seats) whose hole cards the site showed (module docstring). The action log
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
    showed: Bools
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
        hole cards of the hands shown (:attr:`showed`), no hero, the engine's forced
        checks left out."""
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
        moves = (Move.FOLD, Move.CHECK_CALL, Move.RAISE)
        for seat, move, amount, street, flags in self.actions(hand):
            if not flags & FORCED:
                actions.append(
                    RecordedAction(Street(street), seat, moves[move], amount, bool(flags & ALL_IN))
                )
        cards = self.cards[hand]
        holes = tuple(
            (int(cards[2 * s]), int(cards[2 * s + 1])) if self.showed[hand, s] else ()
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
        player name, style, hole cards, whether the site showed them, starting stack,
        chips won)."""
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
                "showed": self.showed.ravel(),
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
        showed=joined("showed"),
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
        self.show_rng = np.random.default_rng([seed, 6])
        showdowns = [style.spec.showdown for style in pool.styles]
        self.muck_losing = np.array([s.muck_losing for s in showdowns], dtype=np.float64)
        self.show_uncontested = np.array([s.show_uncontested for s in showdowns])

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
            played, written, status = play_kernel(
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
                strength_cache(),
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
        action_seat = np.concatenate([p[0] for p in logs]) if logs else np.zeros(0, np.int64)
        action_move = np.concatenate([p[1] for p in logs]) if logs else np.zeros(0, np.int64)
        action_street = np.concatenate([p[3] for p in logs]) if logs else np.zeros(0, np.int64)
        action_flags = np.concatenate([p[4] for p in logs]) if logs else np.zeros(0, np.uint8)
        showed = np.zeros((hands, seats), dtype=np.bool_)
        show_cards(
            seats,
            out_showdown,
            out_total,
            out_button,
            showdown_values(seats, out_cards, out_showdown, self.evaluator),
            out_start,
            action_seat,
            action_move,
            action_street,
            action_flags,
            FORCED,
            styles,
            self.muck_losing,
            self.show_uncontested,
            self.show_rng.random((hands, seats)),
            showed,
        )
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
            showed=showed,
            total=out_total,
            net=out_net,
            action_start=out_start,
            action_seat=action_seat,
            action_move=action_move,
            action_amount=np.concatenate([p[2] for p in logs]) if logs else np.zeros(0, np.int64),
            action_street=action_street,
            action_flags=action_flags,
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


def pokerstars_text(hands: SimulatedHands) -> bytes:
    """Every hand as PokerStars text (UTF-8), separated by a blank line as in
    ``write_pokerstars_hands``: byte for byte what the Python writer makes of
    :meth:`SimulatedHands.record`, tens of times faster."""
    if not len(hands):
        return b""
    n = hands.seats
    ev = Evaluator(*evaluator_tables())
    values = shown_values(n, hands.cards, hands.showdown, hands.showed, hands.shown, ev)
    board_used = np.where(hands.showdown, 5, hands.shown)
    descriptions, description_starts = hand_descriptions(hands.cards, n, values, board_used)
    names, name_starts = packed(hands.pool.player_names)
    table_names, table_starts = packed(hands.table_names)
    pieces, starts = packed(site_pieces(hands.config, n, CURRENCY, TIME_ZONE))
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
    used = write_kernel(
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
        hands.showed,
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
        RANK_SUIT,
        ALL_IN,
        FORCED,
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
