"""The agent protocol: how any bot plugs into a match.

An agent is any object with a method ``act(decisions) -> Probabilities | Moves``. The play
loop (``play.loop``, under matches, rollouts and the environments) gathers the decisions
pending at many tables whose player to act belongs to that agent and makes one call per
agent per step, so agents work on batches:

* :class:`Decisions` describes D decisions: which tables and seats, and what each acting
  player may legally know (own hole cards, the board dealt so far, stacks, bets, the
  action log) in several ready forms: the engine's ``PublicObservation`` vectors, the
  synthetic-pool decision contexts, plain arrays, and the legal bounds and masks.
* The answer is either :class:`Probabilities` over an :class:`~poolshark.engine.actions.
  ActionSet` (the match samples them with the agent's own random stream and maps the
  choice to exact chips) or exact :class:`Moves` (fold / check-call / raise to an amount).

:class:`SimpleAgent` is the one-decision-at-a-time form for bots written in plain Python.
``Decisions.batch`` is the whole engine state, hidden cards included: an agent must read
only what :class:`Decisions` exposes (the match cannot police a bot that peeks).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from poolshark.engine.actions import ActionSet
from poolshark.engine.batched import BatchedTables, LegalBatch
from poolshark.engine.kernel import (
    BET,
    BUTTON,
    CHECK_CALL,
    FOLD,
    FOLDED,
    RAISE,
    SHOWN,
    STACK,
    STREET,
    TOTAL,
)
from poolshark.engine.observation import PublicObservation
from poolshark.pool.context import engine_contexts

Floats = npt.NDArray[np.float64]
Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

__all__ = [
    "CHECK_CALL",
    "FOLD",
    "RAISE",
    "Agent",
    "AgentError",
    "Decisions",
    "EndedHands",
    "Moves",
    "Probabilities",
    "SeatView",
    "SimpleAgent",
    "engine_moves",
    "notify_ended",
]


class AgentError(ValueError):
    """An agent that cannot be loaded or that answered something unusable."""


@dataclass(frozen=True, eq=False)
class Decisions:
    """D pending decisions of one agent: the player to act at ``tables[i]`` is ``seats[i]``.

    ``hand_ids`` number the hands of a match (a new id means a new hand at that table), so
    an agent can keep per-hand state. ``legal`` holds the bounds of every table of the
    batch (use the per-row properties below). ``rng`` is the match's random stream for
    this agent: drawing from it keeps a match reproducible from its seed.
    """

    batch: BatchedTables
    tables: Int64s
    seats: Int64s
    hand_ids: Int64s
    legal: LegalBatch
    rng: np.random.Generator

    @property
    def size(self) -> int:
        """Number of decisions D."""
        return int(self.tables.size)

    @property
    def big_blind(self) -> int:
        """The big blind in chips."""
        return self.batch.config.big_blind

    @cached_property
    def call(self) -> Int64s:
        """(D,) chips to call (0: checking is free)."""
        return self.legal.call[self.tables]

    @cached_property
    def min_raise_to(self) -> Int64s:
        """(D,) smallest legal raise-to total this round; -1 when raising is not allowed."""
        return self.legal.min_raise_to[self.tables]

    @cached_property
    def max_raise_to(self) -> Int64s:
        """(D,) largest legal raise-to total (all-in); -1 when raising is not allowed."""
        return self.legal.max_raise_to[self.tables]

    @cached_property
    def street(self) -> Int64s:
        """(D,) 0 preflop .. 3 river."""
        street: Int64s = self.batch.table[self.tables, STREET]
        return street

    @cached_property
    def hole_cards(self) -> Int64s:
        """(D, 2) the acting player's own cards (ints ``4 * rank + suit``)."""
        return self.batch.hole_cards[self.tables, self.seats].astype(np.int64)

    @cached_property
    def board(self) -> Int64s:
        """(D, 5) the board dealt so far, -1 for cards not yet shown."""
        return self.batch.shown_boards(self.tables)

    @cached_property
    def pot(self) -> Int64s:
        """(D,) every chip put in this hand, current bets included."""
        pot: Int64s = self.batch.seat[self.tables, TOTAL].sum(axis=1)
        return pot

    @cached_property
    def stack(self) -> Int64s:
        """(D,) the acting player's chips behind."""
        stack: Int64s = self.batch.seat[self.tables, STACK, self.seats]
        return stack

    @cached_property
    def observations(self) -> Float32s:
        """(D, size) the engine's :class:`PublicObservation` vectors (viewer rotated to 0)."""
        encoder = PublicObservation(self.batch.config.seats)
        return encoder.encode(self.batch, self.tables, self.seats)

    @cached_property
    def contexts(self) -> Floats:
        """(D, 24) synthetic-pool decision contexts (``poolshark.pool.context.Feature``),
        read in place from the engine's arrays (``pool.context.engine_contexts``)."""
        batch = self.batch
        return engine_contexts(
            batch.config, batch.seat, batch.table, batch.log, self.tables, self.seats
        )

    def mask(self, actions: ActionSet) -> Bools:
        """(D, actions.size) which abstract actions of ``actions`` are legal."""
        mask: Bools = actions.mask(self.batch, self.legal, self.tables)
        return mask

    def subset(self, rows: Int64s) -> Decisions:
        """The decisions at positions ``rows`` (same batch, legal bounds and stream)."""
        return Decisions(
            self.batch,
            self.tables[rows],
            self.seats[rows],
            self.hand_ids[rows],
            self.legal,
            self.rng,
        )

    def view(self, row: int) -> SeatView:
        """Decision ``row`` as plain Python values (for :class:`SimpleAgent`)."""
        batch, table, seat = self.batch, int(self.tables[row]), int(self.seats[row])
        low, high = int(self.min_raise_to[row]), int(self.max_raise_to[row])
        shown = int(batch.table[table, SHOWN])
        return SeatView(
            seat=seat,
            button=int(batch.table[table, BUTTON]),
            street=int(batch.table[table, STREET]),
            hole_cards=(int(self.hole_cards[row, 0]), int(self.hole_cards[row, 1])),
            board=tuple(int(c) for c in batch.boards[table, :shown]),
            pot=int(self.pot[row]),
            call=int(self.call[row]),
            min_raise_to=None if low < 0 else low,
            max_raise_to=None if high < 0 else high,
            stacks=tuple(int(s) for s in batch.seat[table, STACK]),
            bets=tuple(int(b) for b in batch.seat[table, BET]),
            folded=tuple(bool(f) for f in batch.seat[table, FOLDED]),
            big_blind=self.big_blind,
            actions=tuple(batch.actions(table)),
            rng=self.rng,
        )


@dataclass(frozen=True, eq=False)
class EndedHands:
    """Hands that just ended at tables where an agent sits, as every player there saw them:
    the action log, the board dealt and the hole cards shown at a showdown.

    The play loop hands them to each agent with a ``hands_ended(ended)`` method before
    the tables deal again (an adaptive bot learns its opponents from them). ``owners``
    (H, seats) holds the agent index of each seat and ``agent`` the receiver's, so its
    own seats are ``owners[row] == agent``. At a showdown every live hand is shown (the
    engine has no mucking).
    """

    batch: BatchedTables
    tables: Int64s
    hand_ids: Int64s
    owners: Int64s
    agent: int

    @property
    def size(self) -> int:
        """Number of hands H."""
        return int(self.tables.size)

    def actions(self, row: int) -> tuple[tuple[int, int, int, int], ...]:
        """Hand ``row``'s log: (seat, move, amount, street), as :attr:`SeatView.actions`."""
        return tuple(self.batch.actions(int(self.tables[row])))

    def button(self, row: int) -> int:
        """The button's seat in hand ``row``."""
        return int(self.batch.table[int(self.tables[row]), BUTTON])

    def board(self, row: int) -> tuple[int, ...]:
        """The board cards dealt in hand ``row`` (none when it ended preflop)."""
        table = int(self.tables[row])
        shown = int(self.batch.table[table, SHOWN])
        return tuple(int(c) for c in self.batch.boards[table, :shown])

    def shown(self, row: int) -> dict[int, tuple[int, int]]:
        """Seat -> hole cards of the hands shown at hand ``row``'s showdown (empty when
        everyone but one folded)."""
        table = int(self.tables[row])
        live = np.flatnonzero(self.batch.seat[table, FOLDED] == 0)
        if live.size < 2:
            return {}
        cards = self.batch.hole_cards[table]
        return {int(s): (int(cards[s, 0]), int(cards[s, 1])) for s in live}


@dataclass(frozen=True)
class Probabilities:
    """(D, actions.size) probabilities over an action set, one row per decision.

    Illegal actions are ignored and each row renormalized over its legal actions; a row
    with no weight on any legal action is an error.
    """

    actions: ActionSet
    values: npt.ArrayLike


@dataclass(frozen=True)
class Moves:
    """Exact moves: ``move`` 0 fold, 1 check/call, 2 raise; ``amount`` a raise's total to.

    The engine turns an illegal request into the nearest legal action (a free fold checks,
    an unavailable raise calls, a raise size is clamped); the match counts these per agent.
    """

    move: npt.ArrayLike
    amount: npt.ArrayLike | None = None


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act``: one call per step for all of its pending decisions.

    An agent may also have ``hands_ended(ended: EndedHands) -> None``: the play loop then
    shows it every hand that ends at its tables (see :class:`EndedHands`); and
    ``moves_seen(seen: SeenMoves) -> None``: every move made at its tables, its own and
    the other players', just before the engine applies it (see :class:`SeenMoves`)."""

    def act(self, decisions: Decisions) -> Probabilities | Moves: ...


@dataclass(frozen=True, eq=False)
class SeenMoves:
    """The moves of one play-loop step at tables where an agent sits, as every player there
    sees them, before the engine applies them: ``decisions`` are the deciding players'
    (any agent's; its ``rng`` is the watcher's, not to be drawn from by the watcher for
    others), ``move`` and ``amount`` what they asked for, as :class:`Moves` (the engine
    still coerces an illegal request: a free fold checks, an unavailable raise calls).

    An agent that keeps public state across a hand (the limit network player's opponent
    beliefs) reads it here: ``hand_ids`` tell a new hand, and the table's state is the one
    the move was chosen in."""

    decisions: Decisions
    move: Int64s
    amount: Int64s


def notify_ended(agent: object, ended: EndedHands) -> None:
    """Show ``ended`` to ``agent`` if it has a ``hands_ended`` method (else nothing)."""
    hook = getattr(agent, "hands_ended", None)
    if callable(hook):
        hook(ended)


@dataclass(frozen=True)
class SeatView:
    """One decision in plain Python values: what the player to act may know.

    Chips are integers; ``board`` holds only the cards shown; ``actions`` is this hand's
    log as (seat, move, amount, street) with amount a call's chips or a raise's total;
    ``min_raise_to`` / ``max_raise_to`` are None when raising is not allowed; ``rng`` is
    the agent's random stream in the match.
    """

    seat: int
    button: int
    street: int
    hole_cards: tuple[int, int]
    board: tuple[int, ...]
    pot: int
    call: int
    min_raise_to: int | None
    max_raise_to: int | None
    stacks: tuple[int, ...]
    bets: tuple[int, ...]
    folded: tuple[bool, ...]
    big_blind: int
    actions: tuple[tuple[int, int, int, int], ...]
    rng: np.random.Generator


class SimpleAgent(ABC):
    """Base class for a bot that decides one seat at a time: write :meth:`decide`.

    Slower than a batched agent (a Python call per decision) but the easiest to write.
    """

    def act(self, decisions: Decisions) -> Moves:
        """Call :meth:`decide` on every decision."""
        moves = np.zeros(decisions.size, dtype=np.int64)
        amounts = np.zeros(decisions.size, dtype=np.int64)
        for row in range(decisions.size):
            moves[row], amounts[row] = self.decide(decisions.view(row))
        return Moves(moves, amounts)

    @abstractmethod
    def decide(self, view: SeatView) -> tuple[int, int]:
        """(move, amount): ``(0, 0)`` fold, ``(1, 0)`` check or call, ``(2, total)`` raise to."""


def engine_moves(
    decisions: Decisions, answer: Probabilities | Moves, agent: str
) -> tuple[Int64s, Int64s]:
    """Validate an agent's answer and turn it into (moves, raise-to amounts) per decision.

    Probabilities are sampled with ``decisions.rng`` after dropping illegal actions.
    Errors name the agent (``agent``) and the problem.
    """
    count = decisions.size
    if isinstance(answer, Moves):
        return _checked_moves(answer, count, agent)
    if isinstance(answer, Probabilities):
        return _sampled_moves(decisions, answer, agent)
    kind = type(answer).__name__
    raise AgentError(f"agent {agent!r} answered a {kind}; return Probabilities or Moves")


def _checked_moves(answer: Moves, count: int, agent: str) -> tuple[Int64s, Int64s]:
    move = np.asarray(answer.move)
    amount = np.zeros(count) if answer.amount is None else np.asarray(answer.amount)
    for name, values in (("move", move), ("amount", amount)):
        if values.shape != (count,):
            raise AgentError(
                f"agent {agent!r}: Moves.{name} has shape {values.shape}, "
                f"need one per decision ({count},)"
            )
        if not (np.issubdtype(values.dtype, np.integer) or _whole(values)):
            raise AgentError(f"agent {agent!r}: Moves.{name} must hold whole numbers")
    moves = move.astype(np.int64)
    if count and (moves.min() < FOLD or moves.max() > RAISE):
        raise AgentError(f"agent {agent!r}: moves are 0 fold, 1 check/call, 2 raise")
    return moves, amount.astype(np.int64)


def _whole(values: npt.NDArray[np.generic]) -> bool:
    if not np.issubdtype(values.dtype, np.floating):
        return False
    floats = values.astype(np.float64)
    return bool(np.isfinite(floats).all() and (floats == np.round(floats)).all())


def _sampled_moves(
    decisions: Decisions, answer: Probabilities, agent: str
) -> tuple[Int64s, Int64s]:
    actions, count = answer.actions, decisions.size
    values = np.asarray(answer.values, dtype=np.float64)
    if values.shape != (count, actions.size):
        raise AgentError(
            f"agent {agent!r}: probabilities have shape {values.shape}, "
            f"need ({count}, {actions.size}) for {', '.join(actions.names)}"
        )
    if not np.isfinite(values).all() or (values < 0).any():
        raise AgentError(f"agent {agent!r}: probabilities must be finite and non-negative")
    legal = values * decisions.mask(actions)
    total = legal.sum(axis=1)
    if (total <= 0).any():
        row = int(np.flatnonzero(total <= 0)[0])
        allowed = decisions.mask(actions)[row]
        names = ", ".join(n for n, ok in zip(actions.names, allowed, strict=True) if ok)
        raise AgentError(
            f"agent {agent!r}: no probability on a legal action at table "
            f"{int(decisions.tables[row])} (legal there: {names})"
        )
    cumulative = np.cumsum(legal, axis=1)
    target = decisions.rng.random(count) * total
    choice = (cumulative <= target[:, None]).sum(axis=1)
    last_legal = actions.size - 1 - np.argmax(legal[:, ::-1] > 0, axis=1)
    choice = np.minimum(choice, last_legal)  # rounding past the last legal action
    return actions.moves_at(decisions.batch, decisions.legal, decisions.tables, choice)
