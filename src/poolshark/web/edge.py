"""Where the exploiter earns: a run's stored attribution, shaped for the Study page.

The run folder comes from the server's command line (``poolshark web --study-run
runs/demo19``); its ``attribution.json`` is what the pipeline's attribution stage wrote
(``against_model``, ``against_pool`` and their ``comparison``) or what ``poolshark exploit
attribute --json`` printed (``attributions`` and ``comparison``). Nothing is computed
here: the figures are :func:`poolshark.analysis.attribution.attribute_edge`'s, read back
and trimmed to what the page shows (every spot, largest contribution first).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ATTRIBUTION_FILE = "attribution.json"
SPOT_KEYS = (
    "spot",
    "position",
    "facing",
    "hands",
    "frequency",
    "frequency_ci95",
    "contribution",
    "average_bb",
    "exploiter_actions",
    "field_decisions",
    "field_actions",
    "field_continues_vs_raise",
)
"""What the page shows of each spot (the per-action split stays in the file)."""
COMPARISON_KEYS = ("spot", "model", "pool", "difference", "difference_ci95", "disagree")


class EdgeError(ValueError):
    """The run's attribution file is missing, unreadable or not an attribution."""


def labelled_fields(figures: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(label, one field's attribution) for each field the file holds, model first."""
    if "attributions" in figures:
        entries = figures["attributions"]
        if not isinstance(entries, list):
            raise EdgeError("'attributions' is not a list")
        return [(f"against {entry.get('field', 'a field')}", entry) for entry in entries]
    pairs = (
        ("against the population model", "against_model"),
        ("against the true pool", "against_pool"),
    )
    return [(label, figures[key]) for label, key in pairs if isinstance(figures.get(key), dict)]


def trimmed_field(label: str, entry: dict[str, Any]) -> dict[str, Any]:
    """One field's figures as the page shows them: totals, spots by size, streets."""
    try:
        spots = sorted(
            ({key: spot.get(key) for key in SPOT_KEYS} for spot in entry["spots"]),
            key=lambda spot: -abs(spot["contribution"]["bb_per_100"]),
        )
        return {
            "label": label,
            "exploiter": entry.get("exploiter"),
            "field": entry.get("field"),
            "hands": int(entry["hands"]),
            "seats": entry.get("seats"),
            "seed": entry.get("seed"),
            "total": entry["total"],
            "sum_of_contributions": entry.get("sum_of_contributions"),
            "spots": spots,
            "streets": entry.get("streets", []),
        }
    except (KeyError, TypeError) as error:
        raise EdgeError(f"{label}: not an attribution (missing {error})") from None


def load_edge(run: Path) -> dict[str, Any]:
    """The attribution stored in ``run/attribution.json``, trimmed for the page.

    Raises :class:`EdgeError` naming the problem: no file, bad JSON, a skipped stage, or
    a file that holds no attribution."""
    path = run / ATTRIBUTION_FILE
    if not path.is_file():
        raise EdgeError(
            f"the run {run.name!r} has no {ATTRIBUTION_FILE} (its attribution stage did not run)"
        )
    try:
        figures = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise EdgeError(f"{ATTRIBUTION_FILE} of {run.name!r} cannot be read: {error}") from None
    if not isinstance(figures, dict):
        raise EdgeError(f"{ATTRIBUTION_FILE} of {run.name!r} is not a JSON object")
    if "skipped" in figures:
        raise EdgeError(f"the run {run.name!r} skipped its attribution: {figures['skipped']}")
    fields = [trimmed_field(label, entry) for label, entry in labelled_fields(figures)]
    if not fields:
        raise EdgeError(f"{ATTRIBUTION_FILE} of {run.name!r} holds no attribution")
    comparison = figures.get("comparison") or []
    return {
        "run": run.name,
        "exploiter": figures.get("exploiter") or fields[0]["exploiter"],
        "fields": fields,
        "comparison": [{key: row.get(key) for key in COMPARISON_KEYS} for row in comparison],
    }
