"""What every trainer's Ray actors share: joining (or starting) Ray and splitting work.

A local Ray instance with one CPU per worker is started unless Ray is already running in
this process; ``address`` (or the ``RAY_ADDRESS`` environment variable, as Ray reads it)
joins a cluster instead (``ray start``).
"""

from __future__ import annotations

import os
from typing import Any


def split_evenly(count: int, workers: int) -> list[int]:
    """``count`` items shared as evenly as possible among at most ``workers`` (none gets 0)."""
    used = min(count, workers)
    return [count // used + (1 if w < count % used else 0) for w in range(used)]


def start_ray(
    workers: int, address: str | None, error: type[Exception] = ValueError
) -> tuple[Any, bool]:
    """The ``ray`` module, initialised, and whether this call started it (so the caller
    shuts it down); ``error`` is raised when ray is missing or ``workers`` is below 1."""
    try:
        import ray  # lazy: optional dependency (the ray extra)
    except ImportError:
        raise error("ray_workers needs ray: pip install 'poolshark[ray]'") from None
    if workers < 1:
        raise error(f"ray_workers must be at least 1, got {workers}")
    if ray.is_initialized():
        return ray, False
    if address is None and os.environ.get("RAY_ADDRESS"):  # join it: its CPUs, not ours
        ray.init(include_dashboard=False, log_to_driver=False)
    elif address is None:
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    return ray, True
