"""Run reports: the catalogue of the operator's HTML pages, and each page by its name.

Names come from the catalogue built at start (``poolshark web --reports DIR``); a name
not in it (a path, ``..``, anything else) is a 404, and no client text reaches the disk.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi.responses import HTMLResponse

from poolshark.web.reports import REPORT_POLICY, ReportCatalogue
from poolshark.web.sessions import SessionError
from poolshark.web.state import WebState, web_state

router = APIRouter(tags=["reports"])
State = Annotated[WebState, Depends(web_state)]


def catalogue(state: WebState) -> ReportCatalogue:
    """The server's catalogue, or a 404 that says how to give one."""
    if state.reports is None:
        raise SessionError(404, "no reports to browse: start the server with --reports FOLDER")
    return state.reports


@router.get("/api/reports")
async def list_reports(state: State) -> dict[str, Any]:
    """Every catalogued page: name, run, title, date and size, newest first."""
    reports = catalogue(state)
    return {
        "folder": reports.root.name,
        "reports": reports.listing(),
        "truncated": reports.truncated,
    }


@router.get("/reports/{name:path}", response_class=HTMLResponse)
async def report_page(name: str, state: State) -> HTMLResponse:
    """The page catalogued as ``name`` (no scripts, no requests elsewhere: see the policy)."""
    text = catalogue(state).read(name)
    if text is None:
        raise SessionError(404, f"no report named {name[:200]!r}: pick one from /api/reports")
    return HTMLResponse(
        text,
        headers={"content-security-policy": REPORT_POLICY, "x-content-type-options": "nosniff"},
    )
