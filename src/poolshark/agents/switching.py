"""An opponent whose style changes: it plays one of several agents, switching now and then.

:class:`SwitchingAgent` holds one current agent per (table, seat). When a new hand starts
there it switches to another of its agents (uniformly) with probability ``switch``, so a
style lasts ``1 / switch`` hands on average: long enough that a player with memory can
notice it, short enough that no fixed counter-strategy beats every phase. The league uses
it to show what cross-hand memory is worth (``poolshark league memory``); its spec is
``switch:A,B[,C...][@P]`` (for example ``switch:maniac,nit@0.1``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import Agent, AgentError, Decisions, Moves, engine_moves
from poolshark.engine.batched import BatchedTables

Int64s = npt.NDArray[np.int64]

DEFAULT_SWITCH = 0.1
"""The chance of a switch at each new hand when a spec gives none."""


class SwitchingAgent:
    """Plays ``agents[k]`` at each (table, seat), ``k`` switching at new hands w.p. ``switch``."""

    def __init__(self, agents: Sequence[Agent], names: Sequence[str], switch: float) -> None:
        if len(agents) < 2:
            raise AgentError("a switching agent needs at least two agents to switch between")
        if not 0.0 <= switch <= 1.0:
            raise AgentError(f"the switch probability must be in [0, 1], got {switch}")
        self.agents, self.names, self.switch = list(agents), list(names), switch
        self._current: Int64s = np.zeros((0, 0), dtype=np.int64)
        self._hand_id: Int64s = np.zeros((0, 0), dtype=np.int64)
        self._batch: BatchedTables | None = None

    def current(self, tables: Int64s, seats: Int64s) -> Int64s:
        """The agent index now playing at each (table, seat) (-1 where none played yet)."""
        if self._current.shape[0] == 0:
            return np.full(tables.size, -1, dtype=np.int64)
        return self._current[tables, seats]

    def act(self, decisions: Decisions) -> Moves:
        """Switch where a new hand started, then let each current agent answer its rows."""
        batch = decisions.batch
        if batch is not self._batch:  # a new match starts over, whatever the last one left
            self._batch = batch
            shape = (batch.size, batch.config.seats)
            self._current = np.full(shape, -1, dtype=np.int64)
            self._hand_id = np.full(shape, -1, dtype=np.int64)
        tables, seats, rng = decisions.tables, decisions.seats, decisions.rng
        count = len(self.agents)
        fresh = self._current[tables, seats] < 0
        self._current[tables[fresh], seats[fresh]] = rng.integers(count, size=int(fresh.sum()))
        new_hand = (self._hand_id[tables, seats] != decisions.hand_ids) & ~fresh
        switching = new_hand & (rng.random(decisions.size) < self.switch)
        if switching.any():
            step = rng.integers(1, count, size=int(switching.sum()))
            now = self._current[tables[switching], seats[switching]]
            self._current[tables[switching], seats[switching]] = (now + step) % count
        self._hand_id[tables, seats] = decisions.hand_ids
        playing = self._current[tables, seats]
        moves = np.zeros(decisions.size, dtype=np.int64)
        amounts = np.zeros(decisions.size, dtype=np.int64)
        for k in np.unique(playing).tolist():
            rows = np.flatnonzero(playing == k)
            part = decisions.subset(rows)
            moves[rows], amounts[rows] = engine_moves(part, self.agents[k].act(part), self.names[k])
        return Moves(moves, amounts)


def parse_switch_spec(text: str) -> tuple[list[str], float]:
    """``A,B[,C][@P]`` (the part after ``switch:``) as (agent specs, switch probability)."""
    body, _, chance = text.partition("@")
    specs = [part.strip() for part in body.split(",") if part.strip()]
    try:
        switch = float(chance) if chance else DEFAULT_SWITCH
    except ValueError:
        raise AgentError(f"switch probability {chance!r} is not a number") from None
    return specs, switch
