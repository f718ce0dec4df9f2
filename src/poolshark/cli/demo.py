"""``poolshark demo``: the whole pipeline on a built-in synthetic pool, end to end.

Simulate → write PokerStars text → ingest → population models → PPO exploiters →
evaluation three ways → HTML report (see :mod:`poolshark.experiments.pipeline`). A run folder that
already holds finished stages resumes after them. The population models' cached training rows
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

    with user_errors():
        config = PipelineConfig() if config_file is None else PipelineConfig.load(config_file)
        if keep_caches:
            config = config.model_copy(update={"keep_caches": True})
        run = start_run(out, config)
    run.log = (lambda line: errors.print(line)) if json_output else console.print
    figures = run_pipeline(run, default_stages())
    summary = _summary(figures)
    if json_output:
        print_json(summary)
        return
    table = Table(title="Exploiters against the true pool (bb/100, 95% interval)")
    table.add_column("agent")
    for field in ("model", "true pool", "held-out model"):
        table.add_column(f"vs {field}", justify="right")
    for name, rows in figures["evaluate"]["exploiters"].items():
        table.add_row(
            name,
            *(
                f"{rows[f]['bb_per_100']:+.1f} ± {rows[f]['half_width']:.1f}"
                for f in ("model", "true pool", "held-out model")
            ),
        )
    console.print(table)
    console.print(
        f"over-exploitation gap {summary['over_exploitation_gap']:+.1f} bb/100; "
        f"report: [bold]{summary['report']}[/]"
    )


def _summary(figures: dict[str, Any]) -> dict[str, Any]:
    """The run's headline figures (the ``--json`` object)."""
    evaluation = figures["evaluate"]
    return {
        "report": figures["report"]["path"],
        "hands": figures["simulate"]["hands"],
        "rows": figures["ingest"]["main"]["rows"],
        "exploiters": evaluation["exploiters"],
        "baselines": evaluation["baselines"],
        "over_exploitation_gap": evaluation["over_exploitation_gap"],
        "share_of_ceiling": evaluation["share_of_ceiling"],
        "seconds": {name: stage.get("seconds") for name, stage in figures.items()},
    }
