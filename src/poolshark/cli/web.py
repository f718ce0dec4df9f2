"""``poolshark web``: play against any agent and watch agents play, in the browser."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from poolshark.cli.common import errors, user_errors

if TYPE_CHECKING:
    from poolshark.web.replays import ReplayOptions


def parse_agents(values: list[str]) -> dict[str, str]:
    """``NAME=SPEC`` options as a mapping (a name may appear once)."""
    agents: dict[str, str] = {}
    for value in values:
        name, sep, spec = value.partition("=")
        if not sep or not name.strip() or not spec.strip():
            raise ValueError(f"--agent {value!r}: write NAME=SPEC, e.g. pop=runs/x/best.pt")
        if name.strip() in agents:
            raise ValueError(f"--agent {name.strip()!r} given twice")
        agents[name.strip()] = spec.strip()
    return agents


def replay_setup(
    histories: Path | None, pool: str, oracle: Path | None, model: Path | None
) -> ReplayOptions:
    """The Replay page's options, every file checked now (a bad one is the operator's
    error at start, not a client's later)."""
    from poolshark.pool.pools import load_pool  # lazy: the pool package loads numba kernels
    from poolshark.web.replays import ReplayOptions  # lazy: the web layer

    if histories is not None and not histories.exists():
        raise ValueError(f"--replay-histories {str(histories)!r} does not exist")
    for flag, path in (("--replay-oracle", oracle), ("--replay-model", model)):
        if path is not None and not path.is_file():
            raise ValueError(f"{flag} {str(path)!r} is not a file")
    if pool:
        load_pool(pool)  # an unknown pool fails here, naming the shipped ones
    return ReplayOptions(histories=histories, pool=pool or None, oracle=oracle, model=model)


def web_command(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on; anything but loopback warns.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535)] = 8000,
    max_sessions: Annotated[
        int, typer.Option("--max-sessions", min=1, help="Sessions open at once.")
    ] = 64,
    idle_minutes: Annotated[
        float, typer.Option("--idle-minutes", min=0.1, help="Close a session idle this long.")
    ] = 30.0,
    max_hands: Annotated[int, typer.Option("--max-hands", min=1, help="Hands per session.")] = 1000,
    agent: Annotated[
        list[str] | None,
        typer.Option(
            "--agent",
            help="Offer another agent as NAME=SPEC (a checkpoint .pt, a lineup .toml, ...); "
            "repeatable. Clients only ever pick names.",
        ),
    ] = None,
    study_rows: Annotated[
        Path | None,
        typer.Option("--study-rows", help="Ingested rows folder the Study page reads."),
    ] = None,
    study_run: Annotated[
        Path | None,
        typer.Option("--study-run", help="Run folder whose attribution.json Study shows."),
    ] = None,
    reports: Annotated[
        Path | None,
        typer.Option("--reports", help="Folder whose HTML report pages Study lists and serves."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the deals.")] = 0,
    torch_threads: Annotated[
        int,
        typer.Option("--torch-threads", min=1, help="torch threads for agents' forward passes."),
    ] = 1,
    replay_histories: Annotated[
        Path | None,
        typer.Option("--replay-histories", help="Hand histories (file or folder) Replay offers."),
    ] = None,
    replay_pool: Annotated[
        str,
        typer.Option("--replay-pool", help="Pool whose simulated hands Replay offers ('' none)."),
    ] = "micro-zoom",
    replay_oracle: Annotated[
        Path | None, typer.Option("--replay-oracle", help="Range oracle checkpoint for Replay.")
    ] = None,
    replay_model: Annotated[
        Path | None,
        typer.Option("--replay-model", help="Population model checkpoint for Replay."),
    ] = None,
) -> None:
    """Serve the web app: Play, Spectate, Study and Replay (127.0.0.1:8000 by default)."""
    from poolshark.web.server import exposure_warning, serve  # lazy: fastapi and uvicorn
    from poolshark.web.sessions import Limits  # lazy: pydantic model of the web layer

    with user_errors():
        agents = parse_agents(agent or [])
        limits = Limits(
            max_sessions=max_sessions, idle_seconds=60 * idle_minutes, max_hands=max_hands
        )
        if study_rows is not None and not study_rows.is_dir():
            raise ValueError(f"--study-rows {str(study_rows)!r} is not a folder")
        if study_run is not None and not (study_run / "attribution.json").is_file():
            raise ValueError(f"--study-run {str(study_run)!r} holds no attribution.json")
        if reports is not None and not reports.is_dir():
            raise ValueError(f"--reports {str(reports)!r} is not a folder")
        replay_options = replay_setup(replay_histories, replay_pool, replay_oracle, replay_model)
    warning = exposure_warning(host)
    if warning:
        errors.print(f"[bold yellow]{warning}[/]")
    errors.print(f"poolshark web on http://{host}:{port}/ (Ctrl-C stops it)")
    with user_errors():
        serve(
            host,
            port,
            limits=limits,
            agents=agents,
            seed=seed,
            study_rows=study_rows,
            study_run=study_run,
            reports_dir=reports,
            torch_threads=torch_threads,
            replay_options=replay_options,
        )
