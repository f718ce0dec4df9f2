"""The FastAPI app: routers per page group, validation and limits, static files.

:func:`create_app` builds an app from :class:`~poolshark.web.sessions.Limits` and the
operator's extra agents; ``poolshark web`` serves it with uvicorn (:mod:`.server`). Every
error answers JSON ``{"detail": "..."}`` with a sentence a person can act on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from poolshark.agents.protocol import AgentError
from poolshark.engine.table import IllegalActionError
from poolshark.web.batcher import Batcher
from poolshark.web.catalogue import AgentCatalogue
from poolshark.web.hall import HallFullError
from poolshark.web.replays import ReplayCatalogue, ReplayOptions
from poolshark.web.reports import ReportCatalogue
from poolshark.web.routes import charts as study_charts
from poolshark.web.routes import meta, pages, play, replay, sessions, spectate, study
from poolshark.web.routes import reports as study_reports
from poolshark.web.sessions import Limits, SessionError, SessionStore
from poolshark.web.state import WebState


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets a 413 before any route
    sees it, by its Content-Length or, for a streamed body, by reading it (at most
    ``limit`` bytes are ever held) before the app runs."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        declared = headers.get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self.refuse(send)
            return
        if declared is not None:
            await self.app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if len(body) > self.limit:
                await self.refuse(send)
                return
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def refuse(self, send: Send) -> None:
        """Answer 413 with a JSON detail."""
        body = json.dumps({"detail": f"request body over {self.limit} bytes"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})


class ServerTiming:
    """ASGI middleware: every answer carries ``Server-Timing: app;dur=MS``, the time the
    server spent on the request (load tests tell server time from client queueing)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                took = f"app;dur={1000 * (time.perf_counter() - start):.2f}".encode()
                message = {
                    **message,
                    "headers": [*message.get("headers", []), (b"server-timing", took)],
                }
            await send(message)

        await self.app(scope, receive, timed)


def detail(status: int, message: str, **extra: Any) -> JSONResponse:
    """An error answer: ``{"detail": message, ...}``."""
    return JSONResponse({"detail": message, **extra}, status_code=status)


def readable(errors: Any) -> str:
    """Pydantic's validation errors as one sentence: ``body.amount: ...; ...``."""
    parts = []
    for error in errors:
        where = ".".join(str(p) for p in error.get("loc", ()))
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    return "; ".join(parts) or "invalid request"


def create_app(
    limits: Limits | None = None,
    *,
    agents: Mapping[str, str] | None = None,
    seed: int = 0,
    study_rows: Path | None = None,
    study_run: Path | None = None,
    reports_dir: Path | None = None,
    replay_options: ReplayOptions | None = None,
) -> FastAPI:
    """The web app: Play, Spectate, Study and the API, bounded by ``limits``.

    ``agents`` adds operator agents (name -> ``load_agent`` spec, files allowed: the
    operator chose them); clients only ever name catalogue entries. ``study_rows`` is the
    ingested rows folder the Study page reads (None: Study says how to give one);
    ``study_run`` the run folder whose stored attribution it shows; ``reports_dir`` the
    folder whose HTML pages it lists and serves by name (catalogued here, once).
    ``replay_options`` are the Replay page's hands and checkpoints (default: a few
    simulated hands, no oracle or model).
    """
    limits = limits or Limits()
    catalogue = AgentCatalogue(agents)
    store = SessionStore(limits, catalogue.load, seed=seed)
    app = FastAPI(title="poolshark", docs_url="/api/docs", redoc_url=None)
    app.state.web = WebState(store, catalogue, Batcher(), study_rows)
    app.state.web.study_run = study_run
    app.state.web.reports = ReportCatalogue(reports_dir) if reports_dir is not None else None
    app.state.web.replays = ReplayCatalogue(replay_options or ReplayOptions())
    for module in (meta, play, spectate, sessions, study, replay, pages):
        app.include_router(module.router)
    app.include_router(study_charts.router)
    app.include_router(study_reports.router)
    static = resources.files("poolshark.web").joinpath("static")
    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    @app.exception_handler(SessionError)
    async def session_error(_: Request, error: SessionError) -> JSONResponse:
        headers = {"Retry-After": "30"} if error.status == 503 else None
        response = detail(error.status, error.message)
        if headers:
            response.headers.update(headers)
        return response

    @app.exception_handler(AgentError)
    async def agent_error(_: Request, error: AgentError) -> JSONResponse:
        return detail(422, str(error))

    @app.exception_handler(IllegalActionError)
    async def illegal(_: Request, error: IllegalActionError) -> JSONResponse:
        return detail(422, f"illegal action: {error}")

    @app.exception_handler(HallFullError)
    async def hall_full(_: Request, error: HallFullError) -> JSONResponse:
        return detail(503, str(error))

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, error: RequestValidationError) -> JSONResponse:
        errors = json.loads(json.dumps(error.errors(), default=str))
        return detail(422, readable(errors), errors=errors)

    app.add_middleware(BodyLimit, limit=limits.max_body_bytes)
    app.add_middleware(ServerTiming)
    return app
