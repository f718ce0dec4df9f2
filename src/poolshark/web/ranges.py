"""Preflop charts of a run's agents: the true pool, the population model and the exploiter.

The agents are the ones the ``--study-run`` folder's stage files name (``config.json``'s
pool, ``population.json``'s main checkpoint, ``exploiters.json``'s first seed's plain
exploiter), read once; the client picks one of those three names and a 6-max preflop spot
(the hero's seat and the seat that opened, if any, checked by
:class:`poolshark.report.spots.Spot`). Each chart is :func:`~poolshark.report.spots.
action_shares` at the spot's 1,326 deals, as the run report's range charts, averaged per
class: the fold, call and raise frequency of every class.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import Agent
from poolshark.report.range_chart import class_frequencies
from poolshark.web.charts import chart, palette

RUN_AGENTS = ("true pool", "population model", "exploiter")
"""The names a client may ask for, in display order."""
SEATS = ("UTG", "MP", "CO", "BTN", "SB", "BB")
"""6-max seats in preflop order (``report.spots.SEAT_NAMES``); an opener acts before the hero."""
ACTION_NAMES = ("fold", "call", "raise")


def stage_file(run: Path, name: str) -> dict[str, Any]:
    """A stage's JSON figures in the run folder ({} if missing or unreadable)."""
    try:
        figures = json.loads((run / name).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return figures if isinstance(figures, dict) else {}


def checkpoint_path(run: Path, text: object) -> Path | None:
    """A checkpoint the run's files name: as written (absolute, or from the working
    folder), else from the folder holding the runs folder (runs name their files
    ``runs/NAME/...``), made absolute so it names the same file from any folder; None when
    it is not found."""
    if not isinstance(text, str) or not text:
        return None
    written = Path(text)
    for candidate in (written, run.parent.parent / written):
        if candidate.is_file():
            return candidate.resolve()
    return None


@lru_cache(maxsize=4)
def run_agents(run: Path) -> dict[str, str]:
    """Agent specs of the run's true pool, population model and exploiter, those found."""
    specs: dict[str, str] = {}
    pool = stage_file(run, "config.json").get("pool")
    if isinstance(pool, str) and pool:
        specs["true pool"] = f"pool:{pool}"
    population = stage_file(run, "population.json").get("main", {})
    model = checkpoint_path(run, population.get("checkpoint") if population else None)
    if model is not None:
        specs["population model"] = str(model)
    seeds = stage_file(run, "exploiters.json").get("seeds") or [{}]
    exploiter = checkpoint_path(run, seeds[0].get("model", {}).get("checkpoint"))
    if exploiter is not None:
        specs["exploiter"] = str(exploiter)
    return specs


@lru_cache(maxsize=8)
def loaded_agent(spec: str) -> Agent:
    """The agent of ``spec`` (an operator's run file or a shipped pool), loaded once."""
    return load_agent(spec)


@lru_cache(maxsize=128)
def range_charts(spec: str, label: str, hero: str, opener: str | None) -> dict[str, Any]:
    """Fold, call and raise charts of ``spec`` at the spot (``ValueError`` for a bad spot)."""
    from poolshark.report import spots  # lazy: imports torch (the exploiter's rollouts)

    if hero == "BB" and opener is None:
        raise ValueError("the big blind has no decision when everyone folds: pick an opener")
    spot = spots.Spot(hero, opener=opener)
    shares = spots.action_shares(loaded_agent(spec), spots.spot_decisions(spot))
    return {
        "agent": label,
        "spot": spot.title,
        "palette": palette(),
        "charts": [
            chart(name, f"{label}: {name}, {spot.title}", class_frequencies(shares[:, k]))
            for k, name in enumerate(ACTION_NAMES)
        ],
    }
