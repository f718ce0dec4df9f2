"""Play: a person against agents, one action at a time, the engine refereeing."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path
from fastapi.responses import JSONResponse

from poolshark.engine.config import Betting
from poolshark.engine.table import Move
from poolshark.web.models import SESSION_ID, ActRequest, PlayRequest
from poolshark.web.sessions import Session, SessionError, player_name
from poolshark.web.state import WebState, run_agents, web_state
from poolshark.web.views import session_view

router = APIRouter(prefix="/api/play", tags=["play"])
SessionId = Annotated[str, Path(pattern=SESSION_ID)]
State = Annotated[WebState, Depends(web_state)]


@router.post("", status_code=201, response_class=JSONResponse)
async def start(request: PlayRequest, state: State) -> JSONResponse:
    """A new session against the named agents; its first hand is dealt."""
    opponents = request.opponents * (request.seats - 1 if len(request.opponents) == 1 else 1)
    for name in opponents:
        state.catalogue.check(name)
    owners: list[str | None] = [None, *opponents]
    names = [request.name] + [
        f"{player_name(name)}_{seat}" for seat, name in enumerate(opponents, 1)
    ]
    session = state.store.open(
        "play",
        owners,
        names,
        seats=request.seats,
        betting=request.betting,
        stack_bb=request.stack_bb,
        max_hands=request.max_hands,
    )
    await run_agents(state, session)
    return JSONResponse(session_view(session), status_code=201)


@router.get("/{session_id}")
async def show(session_id: SessionId, state: State) -> JSONResponse:
    """The table as the person sees it."""
    return JSONResponse(session_view(state.store.get(session_id, "play")))


def engine_move(session: Session, request: ActRequest) -> tuple[Move, int]:
    """The engine's move for a request, refusing what does not fit the situation."""
    table = session.table
    if table.done:
        raise SessionError(409, "the hand is over; deal the next one (POST .../next)")
    if table.to_act != session.hero:
        raise SessionError(409, f"it is not your turn: {session.names[table.to_act]} is to act")
    legal = table.legal()
    if request.move == "fold":
        return Move.FOLD, 0
    if request.move == "check":
        if legal.call:
            raise SessionError(422, f"you cannot check: {legal.call} to call")
        return Move.CHECK_CALL, 0
    if request.move == "call":
        if not legal.call:
            raise SessionError(422, "there is nothing to call: check instead")
        return Move.CHECK_CALL, 0
    if legal.min_raise_to is None or legal.max_raise_to is None:
        raise SessionError(422, "you may not raise now (the betting is capped or closed)")
    amount = request.amount
    if amount is None:
        if session.config.betting is not Betting.FIXED_LIMIT:
            raise SessionError(
                422,
                "a raise needs an amount: the total to raise to, "
                f"between {legal.min_raise_to} and {legal.max_raise_to}",
            )
        amount = legal.min_raise_to
    if not legal.min_raise_to <= amount <= legal.max_raise_to:
        fixed = legal.min_raise_to == legal.max_raise_to
        allowed = (
            f"exactly {legal.min_raise_to}"
            if fixed
            else f"between {legal.min_raise_to} and {legal.max_raise_to}"
        )
        raise SessionError(422, f"you may raise to {allowed}, not {amount}")
    return Move.RAISE, amount


@router.post("/{session_id}/act")
async def act(session_id: SessionId, request: ActRequest, state: State) -> JSONResponse:
    """The person's action; the agents then act until it is their turn again."""
    session = state.store.get(session_id, "play")
    move, amount = engine_move(session, request)
    session.hall.person_act(session.slot, move, amount)
    session.book()
    await run_agents(state, session)
    return JSONResponse(session_view(session))


@router.post("/{session_id}/next")
async def next_hand(session_id: SessionId, state: State) -> JSONResponse:
    """Deal the next hand (409 while a hand is played or after the session's last)."""
    session = state.store.get(session_id, "play")
    session.deal()
    await run_agents(state, session)
    return JSONResponse(session_view(session))
