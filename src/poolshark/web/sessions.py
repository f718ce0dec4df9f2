"""Sessions: a person's table against agents, or a table of agents to watch; bounded.

A :class:`Session` owns one table of a :class:`~poolshark.web.hall.Hall` (the hall of its
game), deals hand after hand (every seat starts each hand with the same stack, the
button moving on), keeps each finished hand's table (its
:class:`~poolshark.histories.record.HandRecord`, built when the history is exported by the
PokerStars and PHH writers) and each seat's running result.

A :class:`SessionStore` holds every session and enforces the :class:`Limits`: how many
sessions at once, how long one may sit idle, how many hands one may play. A full store
answers :class:`ServerFullError` (HTTP 503) rather than evicting someone's live game.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

from poolshark.agents.protocol import Agent
from poolshark.engine.config import Betting, GameConfig
from poolshark.engine.table import Table
from poolshark.histories.phh import write_phhs
from poolshark.histories.pokerstars import write_pokerstars_hands
from poolshark.histories.record import HandRecord
from poolshark.histories.replay import record_from_table
from poolshark.play.loop import match_game
from poolshark.web.hall import Hall

Kind = Literal["play", "spectate"]
HistoryFormat = Literal["pokerstars", "phh"]
SITE = "PokerStars"
"""The site name the exported histories carry (the writers and readers know its format)."""
SITE_ZONE = ZoneInfo("America/New_York")
"""PokerStars text stamps hands in ET."""


class Limits(BaseModel):
    """What one server allows; every bound is configurable (``poolshark web`` options)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_sessions: int = Field(64, ge=1, le=10_000)
    idle_seconds: float = Field(1800.0, gt=0)
    max_hands: int = Field(1000, ge=1, le=100_000)
    max_body_bytes: int = Field(16_384, ge=256)


class SessionError(Exception):
    """A request a session cannot serve now; ``status`` is the HTTP status to answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class ServerFullError(SessionError):
    """No room for another session."""


def game_config(seats: int, betting: Betting) -> GameConfig:
    """The web's games: blinds 1/2; fixed-limit bets 2/2/4/4, four bets a round (heads-up
    too), as in ``poolshark eval`` matches."""
    return match_game(seats, 1, 2, 0.0, None, exact_ev=False, betting=betting)


def player_name(text: str) -> str:
    """A name safe in both history formats: letters, digits and underscores."""
    return re.sub(r"[^A-Za-z0-9_]", "_", text)[:24] or "player"


@dataclass(frozen=True)
class FinishedHand:
    """A finished hand of a session: its number, its table (the engine's whole account
    of it), and when it ended on the site's clock."""

    number: int
    table: Table
    time: datetime


@dataclass
class Session:
    """One table: ``owners[seat]`` is an agent name, or None for the person (play only)."""

    id: str
    kind: Kind
    hall: Hall
    slot: int
    owners: tuple[str | None, ...]
    names: tuple[str, ...]
    stack: int
    max_hands: int
    created: float
    last_seen: float
    hero: int | None = None
    speed: float = 2.0  # spectate: actions per second (0: paused)
    stepped_at: float = 0.0  # spectate: when the table last moved
    hands: list[FinishedHand] = field(default_factory=list)
    net: list[int] = field(default_factory=list)
    booked: bool = True  # the current hand's result is in ``hands`` and ``net``
    number: int = 0  # hands dealt
    closed: bool = False
    result_of: tuple[int, dict[str, Any]] = (0, {})  # (hand number, its result view), see ``views``

    @property
    def config(self) -> GameConfig:
        """The game played."""
        return self.hall.config

    @property
    def table(self) -> Table:
        """The current (or last) hand's readable table."""
        return self.hall.mirror(self.slot)

    @property
    def hand_over(self) -> bool:
        """Whether the current hand is finished (or none was dealt yet)."""
        return self.number == 0 or self.hall.to_act(self.slot) < 0

    @property
    def hands_left(self) -> int:
        """Hands this session may still deal."""
        return self.max_hands - self.number

    def deal(self) -> None:
        """Deal the next hand; the button moves one seat on each hand."""
        if not self.hand_over:
            raise SessionError(409, "the current hand is not over")
        if self.hands_left <= 0:
            raise SessionError(
                409, f"this session has played its {self.max_hands} hands; start a new one"
            )
        button = self.number % self.config.seats
        self.hall.deal(self.slot, [self.stack] * self.config.seats, button)
        self.number += 1
        self.booked = False
        self.book()

    def book(self) -> None:
        """If the hand just ended, keep its record and add its result to ``net``."""
        if self.booked or not self.hand_over:
            return
        table = self.table
        assert table.result is not None
        for seat, chips in enumerate(table.result.net):
            self.net[seat] += chips
        played = datetime.now(SITE_ZONE).replace(tzinfo=None, microsecond=0)
        self.hands.append(FinishedHand(self.number, table, played))
        self.booked = True

    def record(self, hand: FinishedHand) -> HandRecord:
        """The record a site would keep of a finished hand (built when exported)."""
        return record_from_table(
            hand.table,
            site=SITE,
            hand_id=f"{hand.number}",
            names=self.names,
            time=hand.time,
            table_name=f"poolshark {self.kind} {self.id[:6]}",
            max_seats=self.config.seats,
            hero=self.hero,
        )

    def history(self, form: HistoryFormat) -> str:
        """Every finished hand of the session in PokerStars text or as PHH."""
        records = [self.record(hand) for hand in self.hands]
        if form == "pokerstars":
            return write_pokerstars_hands(records)
        return write_phhs(records)


class SessionStore:
    """Every session, bounded by :class:`Limits`; halls are made per game on first use.

    ``load(name)`` builds the agent a catalogue name stands for; ``clock`` is the time in
    seconds (tests pass a fake one).
    """

    def __init__(
        self,
        limits: Limits,
        load: Callable[[str], Agent],
        *,
        seed: int = 0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits
        self.load = load
        self.seed = seed
        self.clock = clock
        self.sessions: dict[str, Session] = {}
        self.halls: dict[tuple[int, Betting], Hall] = {}
        self.evicted = 0

    def hall(self, seats: int, betting: Betting) -> Hall:
        """The hall of one game, made on first use with a table per allowed session."""
        key = (seats, betting)
        if key not in self.halls:
            seed = self.seed * 1000 + len(self.halls)
            config = game_config(seats, betting)
            self.halls[key] = Hall(config, self.limits.max_sessions, self.load, seed=seed)
        return self.halls[key]

    def expire(self) -> None:
        """Close every session idle for longer than the limit."""
        cutoff = self.clock() - self.limits.idle_seconds
        for session in [s for s in self.sessions.values() if s.last_seen < cutoff]:
            self.close(session.id)
            self.evicted += 1

    def open(
        self,
        kind: Kind,
        owners: Sequence[str | None],
        names: Sequence[str],
        *,
        seats: int,
        betting: Betting,
        stack_bb: int,
        max_hands: int | None,
    ) -> Session:
        """A new session with its first hand dealt (503 when the server is full)."""
        self.expire()
        limit = self.limits.max_sessions
        if len(self.sessions) >= limit:
            raise ServerFullError(
                503,
                f"the server is full ({limit} sessions); try again later "
                f"(sessions idle for {self.limits.idle_seconds:g} s are closed)",
            )
        hall = self.hall(seats, betting)
        slot = hall.open_table(owners)
        now = self.clock()
        hands = (
            self.limits.max_hands if max_hands is None else min(max_hands, self.limits.max_hands)
        )
        session = Session(
            id=secrets.token_urlsafe(12),
            kind=kind,
            hall=hall,
            slot=slot,
            owners=tuple(owners),
            names=tuple(names),
            stack=stack_bb * hall.config.big_blind,
            max_hands=hands,
            created=now,
            last_seen=now,
            hero=owners.index(None) if None in owners else None,
            stepped_at=now,
            net=[0] * seats,
        )
        self.sessions[session.id] = session
        session.deal()
        return session

    def get(self, session_id: str, kind: Kind | None = None) -> Session:
        """The session ``session_id`` (404 if unknown or expired), marked as seen."""
        self.expire()
        session = self.sessions.get(session_id)
        if session is None or (kind is not None and session.kind != kind):
            what = "session" if kind is None else f"{kind} session"
            raise SessionError(404, f"no {what} {session_id!r} (it may have expired)")
        session.last_seen = self.clock()
        return session

    def close(self, session_id: str) -> None:
        """End a session and free its table."""
        session = self.sessions.pop(session_id)
        session.closed = True
        session.hall.close_table(session.slot)

    def agent_counts(self) -> dict[str, tuple[int, int]]:
        """Per agent name, over every hall: (act calls, decisions)."""
        totals: dict[str, tuple[int, int]] = {}
        for hall in self.halls.values():
            for name, (calls, decisions) in hall.agent_counts().items():
                before = totals.get(name, (0, 0))
                totals[name] = (before[0] + calls, before[1] + decisions)
        return totals
