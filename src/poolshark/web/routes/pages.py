"""The pages: plain HTML files that call the API (no build step); one per page group."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

router = APIRouter(tags=["pages"])
PAGES = {
    "/": "index.html",
    "/play": "play.html",
    "/spectate": "spectate.html",
    "/study": "study.html",
    "/replay": "replay.html",
}
"""Path -> file under ``poolshark/web/static``."""


def page(name: str) -> HTMLResponse:
    """A page from the package's static folder."""
    text = resources.files("poolshark.web").joinpath("static", name).read_text()
    return HTMLResponse(text)


def add_page(path: str, name: str) -> None:
    """Serve ``static/name`` at ``path``."""

    async def serve() -> HTMLResponse:
        return page(name)

    serve.__name__ = f"page_{name.removesuffix('.html')}"
    router.add_api_route(path, serve, methods=["GET"], response_class=HTMLResponse)


for _path, _name in PAGES.items():
    add_page(_path, _name)
