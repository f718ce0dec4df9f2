"""One batched play loop: matches, exploiter rollouts and the environments play through it.

:class:`PlayLoop` plays hands at every table of one
:class:`~poolshark.engine.batched.BatchedTables`. Each step it gathers the decisions
pending at its open tables, groups them by the agent that owns the seat to act
(``owner[table, seat]``, an index into ``agents``), makes one ``act`` call per agent (in
agent order, each with its own random stream), and applies every table's move in one
compiled engine step. Finished hands are booked and their tables dealt again until every
table has played ``hands_per_table`` hands (or forever, for an environment).

What a use of the loop adds is its :class:`Face`:

* ``seat(tables, played)``: who sits where in the next hand at these tables (the owners),
  and the deal itself (``batch.reset``: buttons, stacks, replayed cards);
* ``finished(tables)``: book the hands that ended (results at the hand's end; all-in pots
  by expectation with :func:`~poolshark.engine.runouts.hand_results`);
* ``stepped(tables, seats, owners)``: after each engine step (per-decision statistics;
  a face may end a hand early, say a folded learner's, with :meth:`PlayLoop.close`).

Agents that ask (a ``hands_ended`` method, ``agents.protocol.EndedHands``) are shown every
hand that ends at their tables, after ``finished`` and before the tables deal again; agents
with a ``moves_seen`` method (``agents.protocol.SeenMoves``) are shown every move made at
their tables, after every agent chose and before the engine step.

A learning seat is an agent like any other whose ``act`` records what the learner needs
(its inputs, choices, log-probabilities: ``exploit.rollout``); rewards come at the hand's
end through ``finished``. Matches (``evaluate.match``), PPO rollouts (``exploit.rollout``)
and the Gymnasium-style environments (``play.env``) are faces over this loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import (
    Agent,
    Decisions,
    EndedHands,
    SeenMoves,
    engine_moves,
    notify_ended,
)
from poolshark.engine.batched import BatchedTables, LegalBatch
from poolshark.engine.config import Betting, GameConfig, Settlement
from poolshark.engine.kernel import COERCED

Int64s = npt.NDArray[np.int64]


class Face(Protocol):
    """What a use of the loop decides: seating and dealing, booking, per-step records."""

    def seat(self, tables: Int64s, played: Int64s) -> Int64s:
        """Deal the next hand at ``tables`` (``played`` hands there so far) and return who
        owns each seat, (k, seats) agent indices."""
        ...

    def finished(self, tables: Int64s) -> None:
        """Book the hands that ended at ``tables`` (the loop deals them again after)."""
        ...

    def stepped(self, tables: Int64s, seats: Int64s, owners: Int64s) -> None:
        """After the engine applied the moves of ``seats`` (owned by ``owners``) at ``tables``."""
        ...


class PlayLoop:
    """Hands at every table of ``batch`` between ``agents``, one ``act`` per agent per step.

    ``rngs[a]`` is agent ``a``'s random stream (``Decisions.rng``) and ``names[a]`` its
    label in errors. ``hands_per_table`` None deals forever (an environment drives the
    loop step by step). Per agent it counts decisions, engine-coerced moves and the
    seconds inside ``act``; ``engine_seconds`` is the time in the engine's calls.
    """

    def __init__(
        self,
        batch: BatchedTables,
        agents: Sequence[Agent],
        names: Sequence[str],
        rngs: Sequence[np.random.Generator],
        face: Face,
        *,
        hands_per_table: int | None,
        first_hand: int = 0,
    ) -> None:
        tables, seats = batch.size, batch.config.seats
        self.batch, self.face = batch, face
        self.agents, self.names, self.rngs = tuple(agents), tuple(names), tuple(rngs)
        self.hands_per_table = hands_per_table
        self.owner = np.zeros((tables, seats), dtype=np.int64)
        self.hand_ids = np.zeros(tables, dtype=np.int64)
        self.next_hand = first_hand
        self.played = np.zeros(tables, dtype=np.int64)  # hands dealt per table
        self.open = np.zeros(tables, dtype=np.bool_)  # a hand in progress, not yet booked
        self.retired = np.zeros(tables, dtype=np.bool_)  # no more hands here (retire)
        self.closed = 0  # hands booked (finished or ended early)
        self.decisions = np.zeros(len(agents), dtype=np.int64)
        self.coerced = np.zeros(len(agents), dtype=np.int64)
        self.seconds = np.zeros(len(agents))
        self.engine_seconds = 0.0

    # -- dealing and booking ------------------------------------------------------------------

    def deal(self, tables: Int64s) -> None:
        """Start the next hand at ``tables``: the face seats the owners and deals."""
        self.owner[tables] = self.face.seat(tables, self.played[tables])
        self.hand_ids[tables] = self.next_hand + np.arange(tables.size)
        self.next_hand += tables.size
        self.played[tables] += 1
        self.open[tables] = True

    def close(self, tables: Int64s) -> None:
        """End the (booked) hands at ``tables`` and deal again where hands are left."""
        self.open[tables] = False
        self.closed += tables.size
        again = tables[~self.retired[tables]]
        if self.hands_per_table is not None:
            again = again[self.played[again] < self.hands_per_table]
        if again.size:
            self.deal(again)

    def retire(self, tables: Int64s) -> None:
        """Deal no more hands at ``tables`` (a face whose game there is over, say a
        tournament with one player left); call it from ``finished`` or ``stepped``."""
        self.retired[tables] = True

    def settle(self) -> None:
        """Book every finished open hand and deal again (repeatedly: a new hand can end at
        the deal, everyone all-in on the blinds)."""
        while True:
            done = np.flatnonzero(self.batch.done & self.open)
            if done.size == 0:
                return
            self.face.finished(done)
            self.show_ended(done)
            self.close(done)

    def show_ended(self, done: Int64s) -> None:
        """Show the hands that ended at ``done`` to every agent seated there that asks
        (``hands_ended``), before the tables deal again."""
        owners = self.owner[done]
        for a, agent in enumerate(self.agents):
            mine = np.flatnonzero((owners == a).any(axis=1))
            if mine.size and callable(getattr(agent, "hands_ended", None)):
                at = done[mine]
                notify_ended(agent, EndedHands(self.batch, at, self.hand_ids[at], owners[mine], a))

    # -- playing ------------------------------------------------------------------------------

    def pending(self) -> tuple[LegalBatch, Int64s]:
        """The legal bounds of every table and the open tables with a player to act."""
        legal = self.batch.legal()
        live = np.flatnonzero((legal.to_act >= 0) & self.open)
        return legal, live

    def step(self, tables: Int64s, legal: LegalBatch) -> None:
        """One decision at each of ``tables``: one ``act`` per owning agent, one engine step."""
        batch = self.batch
        seats = legal.to_act[tables]
        owners = self.owner[tables, seats]
        moves = np.full(batch.size, -1, dtype=np.int64)  # -1: this table waits
        amounts = np.zeros(batch.size, dtype=np.int64)
        count = len(self.agents)
        for a in np.flatnonzero(np.bincount(owners, minlength=count)).tolist():
            pick = owners == a
            at = tables[pick]
            decisions = Decisions(batch, at, seats[pick], self.hand_ids[at], legal, self.rngs[a])
            start = time.perf_counter()
            answer = self.agents[a].act(decisions)
            moves[at], amounts[at] = engine_moves(decisions, answer, self.names[a])
            self.seconds[a] += time.perf_counter() - start
            self.decisions[a] += decisions.size
        self.show_moves(tables, seats, legal, moves, amounts)
        start = time.perf_counter()
        coerced_before = batch.table[tables, COERCED]
        batch.step(moves, amounts)
        coerced = batch.table[tables, COERCED] - coerced_before
        self.coerced += np.bincount(owners, weights=coerced, minlength=count).astype(np.int64)
        self.engine_seconds += time.perf_counter() - start
        self.face.stepped(tables, seats, owners)

    def show_moves(
        self, tables: Int64s, seats: Int64s, legal: LegalBatch, moves: Int64s, amounts: Int64s
    ) -> None:
        """Show this step's moves (``moves[table]``) to every agent seated at their tables
        that asks (``moves_seen``), before the engine applies them."""
        for a, agent in enumerate(self.agents):
            hook = getattr(agent, "moves_seen", None)
            if not callable(hook):
                continue
            mine = np.flatnonzero((self.owner[tables] == a).any(axis=1))
            if mine.size == 0:
                continue
            at = tables[mine]
            decisions = Decisions(
                self.batch, at, seats[mine], self.hand_ids[at], legal, self.rngs[a]
            )
            start = time.perf_counter()
            hook(SeenMoves(decisions, moves[at], amounts[at]))
            self.seconds[a] += time.perf_counter() - start

    def run(self, progress: Callable[[int], None] | None = None) -> None:
        """Deal every table and play until each has played ``hands_per_table`` hands;
        ``progress(closed)`` is called after each round of booking."""
        if self.hands_per_table is None:
            raise ValueError("a loop without a hand limit is driven step by step")
        self.deal(np.arange(self.batch.size))
        while True:
            start = time.perf_counter()
            self.settle()
            if progress is not None:
                progress(self.closed)
            legal, live = self.pending()
            self.engine_seconds += time.perf_counter() - start
            if live.size == 0:
                return
            self.step(live, legal)


def match_game(
    seats: int,
    small_blind: int,
    big_blind: int,
    rake_percent: float,
    rake_cap_bb: float | None,
    *,
    exact_ev: bool,
    betting: Betting = Betting.NO_LIMIT,
    cap_heads_up: bool = True,
) -> GameConfig:
    """The game of a match or a rollout: the rake cap given in big blinds (rounded to the
    chip), the engine's exact all-in EV settlement when ``exact_ev``. Fixed-limit games bet
    the big blind on preflop and flop and twice it on turn and river, four bets a round,
    heads-up too when ``cap_heads_up`` (the convention of computer poker competitions)."""
    cap = None if rake_cap_bb is None else round(rake_cap_bb * big_blind)
    limit = betting is Betting.FIXED_LIMIT
    return GameConfig(
        betting=betting,
        seats=seats,
        small_blind=small_blind,
        big_blind=big_blind,
        small_bet=big_blind if limit else None,
        big_bet=2 * big_blind if limit else None,
        cap_heads_up=limit and cap_heads_up,
        rake_percent=rake_percent,
        rake_cap=cap,
        settlement=Settlement.EXPECTED_VALUE if exact_ev else Settlement.DEAL,
    )
