"""13x13 chart data: the heads-up shove/fold equilibrium at a depth the client picks.

The depth is a number checked against :data:`~poolshark.web.charts.MIN_DEPTH_BB` to
:data:`~poolshark.web.charts.MAX_DEPTH_BB` and rounded to 0.1 bb; the equilibrium is solved
on the server (a worker thread: a first solve takes about half a second, then it is kept).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from poolshark.web.charts import (
    MAX_DEPTH_BB,
    MIN_DEPTH_BB,
    ChartUnavailableError,
    shove_fold_charts,
)
from poolshark.web.sessions import SessionError

router = APIRouter(prefix="/api/charts", tags=["charts"])


@router.get("/shove-fold")
async def shove_fold(
    depth: Annotated[float, Query(ge=MIN_DEPTH_BB, le=MAX_DEPTH_BB)] = 10.0,
) -> dict[str, Any]:
    """Both seats' equilibrium charts (169 class frequencies each) at ``depth`` bb."""
    try:
        return await run_in_threadpool(shove_fold_charts, round(depth, 1))
    except ChartUnavailableError as error:
        raise SessionError(503, str(error)) from None
