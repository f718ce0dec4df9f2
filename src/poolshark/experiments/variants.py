"""Exploiter variants as every experiment trains them: the demo's PPO preset, resumable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from poolshark.exploit.ppo import ExploitConfig, ExploitResult, train_exploiter


def train_variant(keys: dict[str, Any], out: Path, **settings: Any) -> ExploitResult:
    """A PPO exploiter with the demo's preset (``small-cpu``), the run's ``settings``
    (iterations, tables, seed, threads, device, rake) and the variant's ``keys`` (its
    opponents; the safe variant's KL term); resumed from ``last.pt`` when a run was cut
    short."""

    exploit = ExploitConfig.model_validate({**keys, "preset": "small-cpu", **settings})
    return train_exploiter(exploit, out, resume=(out / "last.pt").exists())
