"""Study: the population's spot statistics over the ingested rows the operator chose, and
where the exploiter of a run earns against the pool.

The rows folder and the run folder come from the server's command line (``poolshark web
--study-rows DIR --study-run RUN``), never from the client; the client picks groupings and
filters by name, checked against the spot columns and their values (``analysis.spots``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Literal

import polars as pl
from fastapi import APIRouter, Depends, Query
from starlette.concurrency import run_in_threadpool

from poolshark.analysis.spots import (
    ACTION_COLUMNS,
    SPOT_COLUMNS,
    SPOT_VALUES,
    SpotFilter,
    spot_table,
    with_spots,
)
from poolshark.histories.ingest import scan_rows
from poolshark.histories.rows import MAX_SEATS
from poolshark.web.edge import EdgeError, load_edge
from poolshark.web.ranges import RUN_AGENTS, SEATS, range_charts, run_agents
from poolshark.web.sessions import SessionError
from poolshark.web.state import WebState, web_state

router = APIRouter(prefix="/api/study", tags=["study"])
State = Annotated[WebState, Depends(web_state)]
Choice = Annotated[str | None, Query(max_length=200, pattern=r"^[A-Za-z0-9_+<>=.,-]*$")]
MAX_GROUPS = 2000
"""At most this many table rows go to the page."""


def study_rows(state: WebState) -> pl.DataFrame:
    """The operator's decision rows with their spot columns, read once and kept."""
    if state.study_rows is None:
        raise SessionError(
            404, "no rows to study: start the server with --study-rows FOLDER (an ingest --out)"
        )
    if state.study_frame is None:
        frame = scan_rows(state.study_rows).collect()
        if frame.is_empty():
            raise SessionError(404, "the study rows folder holds no decision rows")
        state.study_frame = with_spots(frame)
    return state.study_frame


def filter_values() -> dict[str, tuple[str, ...]]:
    """Each filterable spot column's values in display order (``players_in_pot`` 2 to 10)."""
    players = tuple(str(count) for count in range(2, MAX_SEATS + 1))
    values = {**SPOT_VALUES, "players_in_pot": players}
    return {name: values[name] for name in SPOT_COLUMNS if name in values}


def plain(value: object) -> object:
    """A table cell as JSON: NaN as null, floats to four places."""
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 4)
    return value


@router.get("/options")
async def options(state: State) -> dict[str, Any]:
    """What the page may group by and filter on, and how many decisions there are."""
    frame = study_rows(state)
    return {
        "folder": state.study_rows.name if state.study_rows else None,
        "decisions": frame.height,
        "columns": list(SPOT_COLUMNS),
        "values": {name: list(values) for name, values in filter_values().items()},
        "actions": list(ACTION_COLUMNS.values()),
    }


@router.get("/spots")
async def spots(
    state: State,
    by: Annotated[str, Query(max_length=200, pattern=r"^[a-z_,]*$")] = "street,pot_type",
    position: Choice = None,
    relative_position: Choice = None,
    pot_type: Choice = None,
    street: Choice = None,
    players_in_pot: Choice = None,
    depth: Choice = None,
    facing: Choice = None,
    weighting: Literal["decisions", "players"] = "decisions",
    min_decisions: Annotated[int, Query(ge=1, le=10**7)] = 1,
) -> dict[str, Any]:
    """Action frequencies with 95% intervals per group of ``by`` (``poolshark spots``)."""
    groups = [name for name in by.split(",") if name]
    unknown = [name for name in groups if name not in SPOT_COLUMNS]
    if unknown:
        raise SessionError(422, f"unknown spot columns {unknown}: use {', '.join(SPOT_COLUMNS)}")
    try:
        where = SpotFilter.parse(
            position=position or None,
            relative_position=relative_position or None,
            pot_type=pot_type or None,
            street=street or None,
            players_in_pot=players_in_pot or None,
            depth=depth or None,
            facing=facing or None,
        )
    except ValueError as error:
        raise SessionError(422, str(error)) from None
    table = spot_table(study_rows(state), groups, where=where, weighting=weighting)
    table = table.filter(pl.col("n_decisions") >= min_decisions).head(MAX_GROUPS)
    labels = table.with_columns(pl.col(groups).cast(pl.String)) if groups else table
    return {
        "by": groups,
        "filters": where.chosen(),
        "columns": table.columns,
        "rows": [[plain(v) for v in row] for row in labels.rows()],
    }


def study_run(state: WebState) -> Path:
    """The operator's run folder, or a 404 that says how to give one."""
    if state.study_run is None:
        raise SessionError(
            404, "no run to study: start the server with --study-run RUN (a run folder)"
        )
    return state.study_run


@router.get("/edge")
async def edge(state: State) -> dict[str, Any]:
    """Where the run's exploiter earns: its stored attribution by preflop spot and by the
    street the hand ended, per field, with the model-against-pool comparison."""
    run = study_run(state)
    if state.study_edge is None:
        try:
            state.study_edge = load_edge(run)
        except EdgeError as error:
            raise SessionError(404, str(error)) from None
    return state.study_edge


Seat = Literal["UTG", "MP", "CO", "BTN", "SB", "BB"]
"""A 6-max seat (:data:`poolshark.web.ranges.SEATS`)."""


@router.get("/ranges")
async def ranges(state: State) -> dict[str, Any]:
    """The run's agents whose preflop charts the page may ask for, and the seats."""
    found = run_agents(study_run(state))
    return {"agents": [name for name in RUN_AGENTS if name in found], "seats": list(SEATS)}


@router.get("/range")
async def preflop_range(
    state: State,
    agent: Literal["true pool", "population model", "exploiter"],
    hero: Seat,
    opener: Seat | None = None,
) -> dict[str, Any]:
    """Fold, call and raise charts of one of the run's agents at a 6-max preflop spot
    (computed on the server at the spot's 1,326 deals, then kept)."""
    found = run_agents(study_run(state))
    if agent not in found:
        raise SessionError(
            404, f"the run has no {agent} to chart: it has {', '.join(found) or 'none'}"
        )
    try:
        return await run_in_threadpool(range_charts, found[agent], agent, hero, opener)
    except ValueError as error:
        raise SessionError(422, str(error)) from None
