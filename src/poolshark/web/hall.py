"""Every web table of one game in one batch: agents decide for all sessions at once.

A :class:`Hall` keeps the tables of every session that plays one :class:`GameConfig` in
one :class:`~poolshark.engine.batched.BatchedTables` (a table per session, ``capacity`` in
all), so the agents act through the same protocol as in matches (``agents.protocol``):
:meth:`Hall.agent_step` gathers the decisions pending at many tables, makes one ``act``
call per agent spec (the agent instance is shared by every session of the hall that
plays that spec) and applies every move in one engine step.

Each table also has a readable :class:`~poolshark.engine.table.Table` mirror, replaying
the same hand action by action. The mirror is the referee of a person's actions (it
refuses anything the rules forbid, with the reason), the source of what the page shows,
and, once the hand is over, of its record (``histories.replay.record_from_table``). After
every step the two engines must agree to the chip; a disagreement is a bug and raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import (
    Agent,
    AgentError,
    Decisions,
    EndedHands,
    engine_moves,
    notify_ended,
)
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.kernel import CHECK_CALL, FOLD, RAISE
from poolshark.engine.table import Move, Table

Int64s = npt.NDArray[np.int64]

ENGINE_MOVES = {Move.FOLD: FOLD, Move.CHECK_CALL: CHECK_CALL, Move.RAISE: RAISE}
"""The readable table's moves as the batched engine's move codes."""
TABLE_MOVES = {code: move for move, code in ENGINE_MOVES.items()}


class HallFullError(RuntimeError):
    """Every table of the hall is taken."""


class EngineMismatchError(RuntimeError):
    """The batched engine and the readable mirror disagree: a bug, never the user's fault."""


@dataclass
class Seated:
    """One agent spec's instance in a hall, with its own random stream and counters."""

    agent: Agent
    rng: np.random.Generator
    calls: int = 0
    decisions: int = 0


def probe_agent(agent: Agent, config: GameConfig, spec: str) -> None:
    """Ask ``agent`` for the first decision of a hand of ``config`` on a scratch table, so
    an agent that cannot play this game fails when a session asks for it, not mid-hand;
    raises :class:`AgentError` naming the spec and the game."""
    scratch = BatchedTables(config, 1)
    scratch.reset([0], stacks=100 * config.big_blind)
    legal = scratch.legal()
    decisions = Decisions(
        scratch,
        np.zeros(1, dtype=np.int64),
        legal.to_act[:1],
        np.zeros(1, dtype=np.int64),
        legal,
        np.random.default_rng(0),
    )
    try:
        engine_moves(decisions, agent.act(decisions), spec)
    except (ValueError, TypeError, IndexError) as error:
        game = f"{config.seats}-seat {config.betting.value}"
        raise AgentError(f"agent {spec!r} cannot play {game}: {error}") from None


class Hall:
    """``capacity`` tables of ``config``; a table per session, ``None`` owner = a person.

    ``load(spec)`` builds the agent a spec names (called once per spec per hall). Hand
    ids are unique within the hall, so per-hand agent state (style draws) never leaks
    from one hand or session to another.
    """

    def __init__(
        self, config: GameConfig, capacity: int, load: Callable[[str], Agent], *, seed: int = 0
    ) -> None:
        self.config = config
        self.batch = BatchedTables(config, capacity, seed=seed)
        self.load = load
        self.seed = seed
        self.free = list(range(capacity - 1, -1, -1))
        self.owners: dict[int, tuple[str | None, ...]] = {}
        self.mirrors: dict[int, Table] = {}
        self.agents: dict[str, Seated] = {}
        self.hand_ids = np.zeros(capacity, dtype=np.int64)
        self.next_hand = 0

    # -- tables ---------------------------------------------------------------------------

    @property
    def capacity(self) -> int:
        """Tables in all."""
        return self.batch.size

    def open_table(self, owners: Sequence[str | None]) -> int:
        """Take a free table for a session whose seats are played by ``owners`` (agent
        specs; ``None`` for the person). Loads any agent not yet loaded in this hall."""
        if len(owners) != self.config.seats:
            raise ValueError(f"need {self.config.seats} seat owners, got {len(owners)}")
        if not self.free:
            raise HallFullError(f"all {self.capacity} tables of this game are taken")
        for spec in owners:
            if spec is not None and spec not in self.agents:
                agent = self.load(spec)
                probe_agent(agent, self.config, spec)
                stream = np.random.default_rng([self.seed, len(self.agents)])
                self.agents[spec] = Seated(agent, stream)
        slot = self.free.pop()
        self.owners[slot] = tuple(owners)
        return slot

    def close_table(self, slot: int) -> None:
        """Give a session's table back (its hand, if any, is abandoned)."""
        self.owners.pop(slot)
        self.mirrors.pop(slot, None)
        self.free.append(slot)

    def deal(self, slot: int, stacks: Sequence[int], button: int) -> Table:
        """Deal a new hand at ``slot`` from its random stream; returns the mirror."""
        self.batch.reset([slot], stacks=np.asarray([stacks], dtype=np.int64), buttons=[button])
        self.hand_ids[slot] = self.next_hand
        self.next_hand += 1
        holes = self.batch.hole_cards[slot].astype(int).tolist()
        board = self.batch.boards[slot].astype(int).tolist()
        mirror = Table(self.config, list(stacks), button=button, hole_cards=holes, board=board)
        self.mirrors[slot] = mirror
        self._check(slot)
        return mirror

    def mirror(self, slot: int) -> Table:
        """The readable table of ``slot``'s current (or last) hand."""
        return self.mirrors[slot]

    def to_act(self, slot: int) -> int:
        """The seat to act at ``slot``, -1 when the hand is over."""
        return int(self.batch.to_act[slot])

    def agent_to_act(self, slot: int) -> bool:
        """Whether an agent's seat is to act at ``slot``."""
        seat = self.to_act(slot)
        return seat >= 0 and self.owners[slot][seat] is not None

    # -- acting -----------------------------------------------------------------------------

    def person_act(self, slot: int, move: Move, amount: int = 0) -> None:
        """The person to act at ``slot`` plays ``move``; the mirror referees it and raises
        :class:`~poolshark.engine.table.IllegalActionError` (nothing changes) if illegal."""
        seat = self.to_act(slot)
        if seat < 0 or self.owners[slot][seat] is not None:
            raise ValueError("it is not a person's turn at this table")
        self.mirrors[slot].act(move, amount)
        moves = np.full(self.capacity, -1, dtype=np.int64)
        amounts = np.zeros(self.capacity, dtype=np.int64)
        moves[slot], amounts[slot] = ENGINE_MOVES[move], amount
        self.batch.step(moves, amounts)
        self._check(slot)
        self._show_if_ended(slot)

    def agent_step(self, slots: Sequence[int]) -> None:
        """One decision at each of ``slots`` (an agent's seat to act at each): one ``act``
        call per agent spec over all of them, one engine step."""
        if not slots:
            return
        batch, legal = self.batch, self.batch.legal()
        tables = np.asarray(slots, dtype=np.int64)
        seats = legal.to_act[tables]
        specs = [self.owners[int(t)][int(s)] for t, s in zip(tables, seats, strict=True)]
        if any(spec is None or s < 0 for spec, s in zip(specs, seats, strict=True)):
            raise ValueError("agent_step needs an agent to act at every table given")
        moves = np.full(self.capacity, -1, dtype=np.int64)
        amounts = np.zeros(self.capacity, dtype=np.int64)
        for spec in dict.fromkeys(specs):
            assert spec is not None
            pick = np.asarray([s == spec for s in specs])
            at = tables[pick]
            seated = self.agents[spec]
            decisions = Decisions(batch, at, seats[pick], self.hand_ids[at], legal, seated.rng)
            answer = seated.agent.act(decisions)
            moves[at], amounts[at] = engine_moves(decisions, answer, spec)
            seated.calls += 1
            seated.decisions += decisions.size
        lengths = {int(t): len(self.mirrors[int(t)].log) for t in tables}
        batch.step(moves, amounts)
        for t in tables.tolist():
            for seat, move, amount, _ in batch.actions(t)[lengths[t] :]:
                self._mirror_act(t, seat, move, amount)
            self._check(t)
            self._show_if_ended(t)

    def _show_if_ended(self, slot: int) -> None:
        """When the hand at ``slot`` just ended, show it to each agent seated there that asks
        (the protocol's ``hands_ended``: adaptive bots learn from it, as in matches)."""
        if not self.batch.done[slot]:
            return
        owners = self.owners[slot]
        for spec in dict.fromkeys(o for o in owners if o is not None):
            mine = np.asarray([[0 if owner == spec else -1 for owner in owners]], dtype=np.int64)
            ended = EndedHands(self.batch, np.asarray([slot]), self.hand_ids[[slot]], mine, agent=0)
            notify_ended(self.agents[spec].agent, ended)

    def _mirror_act(self, slot: int, seat: int, move: int, amount: int) -> None:
        mirror = self.mirrors[slot]
        if mirror.to_act != seat:
            raise EngineMismatchError(
                f"table {slot}: engine moved seat {seat}, mirror waits for seat {mirror.to_act}"
            )
        if move == FOLD:
            mirror.fold(when_free=True)
        else:
            mirror.act(TABLE_MOVES[move], amount)

    def _check(self, slot: int) -> None:
        """The batch and the mirror agree on whose turn it is and on every seat's chips."""
        mirror = self.mirrors[slot]
        stacks = self.batch.stacks[slot].tolist()
        turn = -1 if mirror.done else mirror.to_act
        if stacks != mirror.stack or turn != self.to_act(slot):
            raise EngineMismatchError(
                f"table {slot}: engine stacks {stacks} to act {self.to_act(slot)}, "
                f"mirror {mirror.stack} to act {turn}"
            )

    # -- figures --------------------------------------------------------------------------

    def agent_counts(self) -> dict[str, tuple[int, int]]:
        """Per agent spec: (act calls, decisions) so far; decisions per call is the batching."""
        return {spec: (s.calls, s.decisions) for spec, s in self.agents.items()}
