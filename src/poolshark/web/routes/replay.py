"""Replay: step through a hand decision by decision with the ranges and the action model.

Clients pick hands by id from the server's catalogue (``web.replays``) or upload a hand
history as text (size-limited by the app's body limit, parsed and judged by the ingestion
readers: a bad hand gets their message as a 422). They never name a file.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path
from pydantic import Field

from poolshark.web.models import Strict
from poolshark.web.replays import ReplayCatalogue, ReplayInputError
from poolshark.web.sessions import SessionError
from poolshark.web.state import WebState, web_state

router = APIRouter(prefix="/api/replay", tags=["replay"])
State = Annotated[WebState, Depends(web_state)]
HandId = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,40}$")]
MAX_UPLOAD_CHARS = 15_000
"""An uploaded history's text, at most (the app's body limit caps the request too)."""


class UploadRequest(Strict):
    """A hand history as text: PokerStars text, PHH or OHH, one or more hands."""

    text: str = Field(min_length=1, max_length=MAX_UPLOAD_CHARS)


def catalogue(state: WebState) -> ReplayCatalogue:
    """The server's replay catalogue."""
    return state.replays


@router.get("/hands")
async def hands(state: State) -> dict[str, Any]:
    """The hands a client may replay, and what each view will show."""
    replays = catalogue(state)
    options = replays.options
    sources = ["uniform"]
    sources += ["oracle"] if options.oracle is not None else []
    sources += ["model"] if options.model is not None else []
    sources += ["exact"] if options.pool is not None and options.simulated > 0 else []
    return {
        "hands": replays.listing(),
        "sources": sources,
        "has_model": options.model is not None,
        "upload_chars": MAX_UPLOAD_CHARS,
        "notes": replays.notes,
    }


@router.get("/hands/{hand_id}")
async def replay(state: State, hand_id: HandId) -> dict[str, Any]:
    """Every decision of one hand: ranges per source, the model's view, equities."""
    try:
        return await catalogue(state).view(hand_id)
    except KeyError:
        raise SessionError(404, f"no hand {hand_id!r} to replay (uploads expire)") from None
    except ValueError as error:  # a hand a source or the model cannot read
        raise SessionError(422, f"cannot replay hand {hand_id!r}: {error}") from None
    except Exception as error:  # a checkpoint that fails: the operator's to fix
        raise SessionError(500, f"the replay of hand {hand_id!r} failed: {error}") from None


@router.post("/upload", status_code=201)
async def upload(state: State, request: UploadRequest) -> dict[str, Any]:
    """Parse an uploaded history; its hands join the catalogue (their ids come back)."""
    try:
        found = catalogue(state).upload(request.text)
    except ReplayInputError as error:
        raise SessionError(422, str(error)) from None
    return {"hands": [hand.summary() for hand in found]}
