"""What the server offers and how it is doing: agents, limits, health and batching."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from poolshark.web.state import WebState, web_state

router = APIRouter(prefix="/api", tags=["meta"])
State = Annotated[WebState, Depends(web_state)]


@router.get("/agents")
async def agents(state: State) -> list[dict[str, str]]:
    """Every agent a session may name."""
    return [
        {"name": e.name, "kind": e.kind, "note": e.note} for e in state.catalogue.entries.values()
    ]


@router.get("/limits")
async def limits(state: State) -> dict[str, Any]:
    """The server's bounds on sessions, idle time, hands and request bodies."""
    return state.store.limits.model_dump()


@router.get("/health")
async def health(state: State) -> dict[str, Any]:
    """Sessions open, and per agent its act calls and decisions (their ratio is the batching)."""
    store, batcher = state.store, state.batcher
    store.expire()
    return {
        "ok": True,
        "sessions": len(store.sessions),
        "max_sessions": store.limits.max_sessions,
        "expired": store.evicted,
        "rounds": batcher.rounds,
        "agent_steps": batcher.steps,
        "agents": {
            name: {"calls": calls, "decisions": decisions}
            for name, (calls, decisions) in store.agent_counts().items()
        },
    }
