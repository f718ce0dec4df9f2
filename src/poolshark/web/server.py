"""Serve the app with uvicorn: loopback by default, another address only when asked."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from pathlib import Path

import uvicorn

from poolshark.web.app import create_app
from poolshark.web.replays import ReplayOptions
from poolshark.web.sessions import Limits

DEFAULT_HOST = "127.0.0.1"


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable only from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str) -> str | None:
    """The warning to print when the server listens beyond this machine."""
    if is_loopback(host):
        return None
    return (
        f"warning: listening on {host}: anyone who can reach this address can play and "
        "load agents here; there is no login. Use 127.0.0.1 unless you mean it."
    )


def serve(
    host: str = DEFAULT_HOST,
    port: int = 8000,
    *,
    limits: Limits | None = None,
    agents: Mapping[str, str] | None = None,
    seed: int = 0,
    study_rows: Path | None = None,
    study_run: Path | None = None,
    reports_dir: Path | None = None,
    replay_options: ReplayOptions | None = None,
    log_level: str = "warning",
    torch_threads: int = 1,
) -> None:
    """Run the app until interrupted, torch on ``torch_threads`` threads.

    One thread by default: the server's forward passes are a few decisions each (batched
    across sessions), too small for intra-op threads to pay, and a second thread would
    only contend with the event loop that answers every other request.
    """
    import torch  # lazy: only the running server sets torch's threads

    torch.set_num_threads(torch_threads)
    app = create_app(
        limits,
        agents=agents,
        seed=seed,
        study_rows=study_rows,
        study_run=study_run,
        reports_dir=reports_dir,
        replay_options=replay_options,
    )
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=False)
