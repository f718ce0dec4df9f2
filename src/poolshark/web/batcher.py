"""Agents' decisions gathered across sessions, one ``act`` per agent per round.

A request that leaves agents to act (a person's action, a new hand, a spectator's poll)
awaits :meth:`Batcher.run`. The first such request starts a drain task; the drain waits
a short window (``window_s``, 2 ms) so that the requests already on their way join, then
plays rounds: each round makes one :meth:`Hall.agent_step
<poolshark.web.hall.Hall.agent_step>` per hall over every waiting table where an agent
is to act (so an agent spec shared by fifty sessions answers fifty decisions in one
call), yielding between rounds so that new requests join the next round. A waiter is
answered when no agent is to act at its table any more (the person's turn, or the hand
is over) or when it used its budget of agent actions (a spectator's speed).

Everything runs on the event loop's thread, so sessions need no locks; the price is that
an agent's ``act`` blocks the loop while it runs, which batching keeps to one call per
round.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from poolshark.web.sessions import Session, SessionError


@dataclass
class Waiter:
    """A request waiting for agents to act at its session's table."""

    session: Session
    budget: int | None  # agent actions allowed; None: until no agent is to act
    future: asyncio.Future[int]
    used: int = 0


@dataclass
class Batcher:
    """Gathers agent decisions across requests; ``rounds`` and ``steps`` count work.

    ``window_s``: how long a drain waits before its first round, so that requests already
    on their way (parsed, validated, the person's action applied) join it.
    """

    window_s: float = 0.002
    waiting: list[Waiter] = field(default_factory=list)
    rounds: int = 0
    steps: int = 0
    task: asyncio.Task[None] | None = None

    async def run(self, session: Session, budget: int | None = None) -> int:
        """Let agents act at ``session``'s table until it needs no agent (or ``budget``
        actions were taken); returns the number of agent actions taken."""
        loop = asyncio.get_running_loop()
        waiter = Waiter(session, budget, loop.create_future())
        self.waiting.append(waiter)
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.task = loop.create_task(self.drain())
        return await waiter.future

    async def drain(self) -> None:
        """Play rounds until no waiter is left; an unexpected error reaches every waiter
        (a request never hangs on a drain that died)."""
        await asyncio.sleep(self.window_s)
        try:
            while self.waiting:
                busy = self.settle()
                if not busy:
                    return
                self.round(busy)
                await asyncio.sleep(0)
        except Exception as error:
            for waiter in self.waiting:
                if not waiter.future.done():
                    waiter.future.set_exception(error)
            self.waiting = []

    def settle(self) -> list[Waiter]:
        """Answer the waiters that need no agent now; keep and return the others."""
        busy: list[Waiter] = []
        for waiter in self.waiting:
            session = waiter.session
            if session.closed:
                if not waiter.future.done():
                    waiter.future.set_exception(SessionError(410, "the session was closed"))
                continue
            spent = waiter.budget is not None and waiter.used >= waiter.budget
            if spent or not session.hall.agent_to_act(session.slot):
                session.book()
                if not waiter.future.done():
                    waiter.future.set_result(waiter.used)
            else:
                busy.append(waiter)
        self.waiting = busy
        return busy

    def round(self, busy: list[Waiter]) -> None:
        """One agent action at every busy table: one ``agent_step`` per hall."""
        self.rounds += 1
        halls: dict[int, list[Waiter]] = {}
        for waiter in busy:
            halls.setdefault(id(waiter.session.hall), []).append(waiter)
        for group in halls.values():
            hall = group[0].session.hall
            try:
                hall.agent_step([w.session.slot for w in group])
            except Exception as error:  # an agent failed: its waiters get the error
                for waiter in group:
                    if not waiter.future.done():
                        waiter.future.set_exception(error)
                self.waiting = [w for w in self.waiting if w not in group]
                continue
            self.steps += len(group)
            for waiter in group:
                waiter.used += 1
