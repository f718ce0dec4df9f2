"""Spectate: agents against agents; the server moves the table at the chosen speed."""

from __future__ import annotations

import math
from typing import Annotated

from fastapi import APIRouter, Depends, Path
from fastapi.responses import JSONResponse

from poolshark.web.models import SESSION_ID, SpectateRequest, SpeedRequest
from poolshark.web.sessions import Session, player_name
from poolshark.web.state import WebState, run_agents, web_state
from poolshark.web.views import session_view

router = APIRouter(prefix="/api/spectate", tags=["spectate"])
SessionId = Annotated[str, Path(pattern=SESSION_ID)]
State = Annotated[WebState, Depends(web_state)]
MAX_STEPS_PER_POLL = 25
"""A page that polls rarely catches up at most this many actions (a hand's end and the
next deal count as one each), so one poll never plays a hundred hands."""


async def advance(state: WebState, session: Session, steps: int) -> None:
    """Up to ``steps`` agent actions or deals at the session's table."""
    while steps > 0:
        if session.hand_over:
            if session.hands_left <= 0:
                return
            session.deal()
            steps -= 1
            continue
        steps -= max(await run_agents(state, session, steps), 1)


def due_steps(session: Session, now: float) -> int:
    """Actions due since the table last moved at the session's speed (capped)."""
    if session.speed <= 0:
        session.stepped_at = now
        return 0
    due = math.floor((now - session.stepped_at) * session.speed)
    if due >= MAX_STEPS_PER_POLL:
        session.stepped_at = now
        return MAX_STEPS_PER_POLL
    session.stepped_at += due / session.speed
    return max(due, 0)


@router.post("", status_code=201, response_class=JSONResponse)
async def start(request: SpectateRequest, state: State) -> JSONResponse:
    """A new table of agents; it moves as the page polls it."""
    agents = request.agents * (request.seats if len(request.agents) == 1 else 1)
    for name in agents:
        state.catalogue.check(name)
    names = [f"{player_name(name)}_{seat}" for seat, name in enumerate(agents, 1)]
    session = state.store.open(
        "spectate",
        list(agents),
        names,
        seats=request.seats,
        betting=request.betting,
        stack_bb=request.stack_bb,
        max_hands=request.max_hands,
    )
    session.speed = request.actions_per_second
    return JSONResponse(session_view(session), status_code=201)


@router.get("/{session_id}")
async def watch(session_id: SessionId, state: State) -> JSONResponse:
    """The table after the actions due since the last poll."""
    session = state.store.get(session_id, "spectate")
    await advance(state, session, due_steps(session, state.store.clock()))
    return JSONResponse(session_view(session))


@router.post("/{session_id}/step")
async def step(session_id: SessionId, state: State) -> JSONResponse:
    """One action (or the next deal) now, whatever the speed."""
    session = state.store.get(session_id, "spectate")
    await advance(state, session, 1)
    return JSONResponse(session_view(session))


@router.post("/{session_id}/speed")
async def speed(session_id: SessionId, request: SpeedRequest, state: State) -> JSONResponse:
    """Change the table's speed (0 pauses it)."""
    session = state.store.get(session_id, "spectate")
    session.speed = request.actions_per_second
    session.stepped_at = state.store.clock()
    return JSONResponse(session_view(session))
