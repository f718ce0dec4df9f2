"""Endpoints every session shares: its finished hands, their export, closing it."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Response
from fastapi.responses import PlainTextResponse

from poolshark.web.models import SESSION_ID
from poolshark.web.sessions import HistoryFormat
from poolshark.web.state import WebState, web_state
from poolshark.web.views import history_view

router = APIRouter(prefix="/api/sessions", tags=["sessions"])
SessionId = Annotated[str, Path(pattern=SESSION_ID)]
State = Annotated[WebState, Depends(web_state)]
SUFFIX = {"pokerstars": "txt", "phh": "phhs"}


@router.get("/{session_id}/hands")
async def hands(session_id: SessionId, state: State) -> list[dict[str, Any]]:
    """The session's finished hands, one line each."""
    return history_view(state.store.get(session_id))


@router.get("/{session_id}/export", response_class=PlainTextResponse)
async def export(
    session_id: SessionId,
    state: State,
    format: Annotated[HistoryFormat, Query()] = "pokerstars",
) -> PlainTextResponse:
    """The session's finished hands as PokerStars text or PHH, as a download."""
    session = state.store.get(session_id)
    name = f"poolshark-{session.kind}-{session.id[:8]}.{SUFFIX[format]}"
    return PlainTextResponse(
        session.history(format),
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.delete("/{session_id}", status_code=204)
async def close(session_id: SessionId, state: State) -> Response:
    """End a session and free its table."""
    state.store.get(session_id)
    state.store.close(session_id)
    return Response(status_code=204)
