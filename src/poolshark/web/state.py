"""The server's state, shared by every router: sessions, agents, the batcher."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
from fastapi import Request

from poolshark.web.batcher import Batcher
from poolshark.web.catalogue import AgentCatalogue
from poolshark.web.replays import ReplayCatalogue
from poolshark.web.reports import ReportCatalogue
from poolshark.web.sessions import Session, SessionError, SessionStore


@dataclass
class WebState:
    """What one app serves; ``study_rows`` is the ingested rows folder the operator chose."""

    store: SessionStore
    catalogue: AgentCatalogue
    batcher: Batcher
    study_rows: Path | None = None
    study_frame: pl.DataFrame | None = None  # the rows with spot columns, read on first use
    study_run: Path | None = None  # the run folder whose attribution.json Study shows
    study_edge: dict[str, Any] | None = None  # that attribution, read on first use
    reports: ReportCatalogue | None = None  # the operator's HTML report pages, by name
    replays: ReplayCatalogue = field(default_factory=ReplayCatalogue)  # the Replay page's hands


async def web_state(request: Request) -> WebState:
    """The app's :class:`WebState` (a FastAPI dependency; async, so FastAPI runs it on the
    event loop rather than in a worker thread)."""
    state: WebState = request.app.state.web
    return state


async def run_agents(state: WebState, session: Session, budget: int | None = None) -> int:
    """Agents act at ``session``'s table until it needs no agent (or ``budget`` actions);
    an agent that fails ends the session (500, naming the agent's error)."""
    try:
        return await state.batcher.run(session, budget)
    except SessionError:
        raise
    except Exception as error:
        if not session.closed:
            state.store.close(session.id)
        raise SessionError(500, f"an agent failed and the session was closed: {error}") from None
    finally:
        session.book()
