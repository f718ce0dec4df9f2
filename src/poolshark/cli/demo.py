"""``poolshark demo``: the whole pipeline on a built-in synthetic pool, end to end.

Simulate → write PokerStars text → ingest → population models → PPO exploiters (one set
per training seed) → evaluation three ways, each seed on its own deals → HTML report with
95% intervals across seeds and deals (see :mod:`poolshark.experiments.pipeline`). A run
folder that already holds finished stages resumes after them. ``--pool`` reports another
pool (``tough-regs``, say) than the configured one. The population models' cached training rows
are deleted once their stage finishes unless ``--keep-caches`` (or ``keep_caches`` in the config).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from poolshark.cli.common import JsonFlag, console, errors, print_json, user_errors


def demo(
    out: Annotated[Path, typer.Option("--out", help="Run folder (resumed if it exists).")] = Path(
        "runs/demo"
    ),
    config_file: Annotated[
        Path | None, typer.Option("--config", help="TOML file of pipeline sizes and seeds.")
    ] = None,
    pool: Annotated[
        str | None, typer.Option("--pool", help="Pool to run on (overrides the config's).")
    ] = None,
    keep_caches: Annotated[
        bool,
        typer.Option(
            "--keep-caches", help="Keep the population models' cached rows (data.npz) after."
        ),
    ] = False,
    json_output: JsonFlag = False,
) -> None:
    """Run the whole pipeline on a built-in pool and write an HTML report."""
    from poolshark.experiments.pipeline import (  # lazy: trains torch models; CLI starts fast
        PipelineConfig,
        default_stages,
        run_pipeline,
        start_run,
    )
    from poolshark.report.headline import FIELDS, bb, ratio  # lazy: loads matplotlib

    with user_errors():
        config = PipelineConfig() if config_file is None else PipelineConfig.load(config_file)
        updates: dict[str, Any] = {"keep_caches": True} if keep_caches else {}
        if pool is not None:
            updates["pool"] = pool
        config = PipelineConfig.model_validate({**config.model_dump(), **updates})
        run = start_run(out, config)
    run.log = (lambda line: errors.print(line)) if json_output else console.print
    figures = run_pipeline(run, default_stages())
    summary = _summary(figures)
    if json_output:
        print_json(summary)
        return
    headline = figures["evaluate"]["headline"]
    table = Table(
        title=f"Exploiters, mean over {headline['seeds']} seeds (bb/100, 95% interval"
        " across seeds and deals)"
    )
    table.add_column("agent")
    for column in (*(f"vs {field}" for field in FIELDS), "gap", "promised / paid"):
        table.add_column(column, justify="right")
    for name, rows in headline["exploiters"].items():
        table.add_row(name, *(bb(rows[f]) for f in (*FIELDS, "gap")), ratio(rows["calibration"]))
    console.print(table)
    share = headline["share_of_ceiling"]["model"]
    console.print(f"share of the ceiling {ratio(share)}; report: [bold]{summary['report']}[/]")


def _summary(figures: dict[str, Any]) -> dict[str, Any]:
    """The run's headline figures (the ``--json`` object)."""
    evaluation = figures["evaluate"]
    return {
        "report": figures["report"]["path"],
        "hands": figures["simulate"]["hands"],
        "rows": figures["ingest"]["main"]["rows"],
        "headline": evaluation["headline"],
        "ceiling_plateau": {
            key: value
            for key, value in figures["exploiters"]["ceiling_plateau"].items()
            if key != "curve"
        },
        "seeds": evaluation["seeds"],
        "baselines": evaluation["baselines"],
        "probe": figures.get("probe"),
        "seconds": {name: stage.get("seconds") for name, stage in figures.items()},
    }
