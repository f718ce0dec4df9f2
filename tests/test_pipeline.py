"""The end-to-end pipeline's mechanics: stages in order, resume after a kill, config checks,
caches deleted when their stage finishes.

The full run is what ``make demo`` does; here the heavy stages are swapped for small
recorders, and one real run at toy sizes is marked slow.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from poolshark.cli import app
from poolshark.experiments import pipeline
from poolshark.experiments.headline import headline
from poolshark.experiments.pipeline import (
    STAGES,
    PipelineConfig,
    PipelineError,
    Run,
    default_stages,
    match_config,
    probe_stage,
    run_pipeline,
    start_run,
    training_seeds,
)

SeedRecords = Callable[..., list[dict[str, Any]]]
"""The ``seed_records`` fixture (``conftest.py``): per-seed evaluation records."""


class KilledError(Exception):
    """Stands in for a run killed in the middle of a stage."""


def _recording(calls: list[str], fail_at: str | None = None) -> dict[str, Any]:
    def make(name: str) -> Any:
        def stage(run: Run) -> dict[str, Any]:
            calls.append(name)
            if name == fail_at:
                raise KilledError(name)
            return {"stage": name, "seen_before": sorted(run.figures)}

        return stage

    return {name: make(name) for name in STAGES}


def test_stages_run_in_order_and_resume_after_a_kill(tmp_path: Path) -> None:
    calls: list[str] = []
    run = start_run(tmp_path, PipelineConfig())
    run.log = lambda line: None
    with pytest.raises(KilledError):
        run_pipeline(run, _recording(calls, fail_at="exploiters"))
    assert calls == ["simulate", "ingest", "population", "exploiters"]
    assert not (tmp_path / "exploiters.json").exists()

    calls.clear()
    again = start_run(tmp_path, PipelineConfig())
    again.log = lambda line: None
    figures = run_pipeline(again, _recording(calls))
    assert calls == ["exploiters", "evaluate", "probe", "attribution", "report"]
    assert list(figures) == list(STAGES)
    assert figures["report"]["seen_before"] == sorted(STAGES[:-1])
    saved = json.loads((tmp_path / "evaluate.json").read_text())
    assert saved["stage"] == "evaluate"
    assert saved["seconds"] >= 0


def test_a_folder_with_another_config_is_refused(tmp_path: Path) -> None:
    start_run(tmp_path, PipelineConfig())
    with pytest.raises(PipelineError, match="differs in hands"):
        start_run(tmp_path, PipelineConfig(hands=2_000))


def test_a_folder_reopens_with_keep_caches_changed_or_missing(tmp_path: Path) -> None:
    start_run(tmp_path, PipelineConfig())
    assert start_run(tmp_path, PipelineConfig(keep_caches=True)).config.keep_caches
    saved = tmp_path / "config.json"
    older = json.loads(saved.read_text())
    del older["keep_caches"]  # a run folder written before the key existed
    saved.write_text(json.dumps(older))
    start_run(tmp_path, PipelineConfig())


CACHES = (
    "population-main/data.npz",
    "population-main/em-0/data.npz",
    "population-heldout/data.npz",
)


def _caching(calls: list[str], fail_at: str | None = None) -> dict[str, Any]:
    """Recording stages whose population stage leaves cached rows as the real one does."""
    stages = _recording(calls, fail_at)
    record = stages["population"]

    def population(run: Run) -> dict[str, Any]:
        for cache in CACHES:
            run.path(cache).parent.mkdir(parents=True, exist_ok=True)
            run.path(cache).write_bytes(b"rows")
            run.path(cache).with_suffix(".json").write_text("{}")
        figures: dict[str, Any] = record(run)
        return figures

    return {**stages, "population": population}


def test_caches_are_deleted_when_their_stage_finishes(tmp_path: Path) -> None:
    calls: list[str] = []
    run = start_run(tmp_path, PipelineConfig())
    run.log = lambda line: None
    with pytest.raises(KilledError):
        run_pipeline(run, _caching(calls, fail_at="exploiters"))
    assert not any((tmp_path / cache).exists() for cache in CACHES)
    assert all((tmp_path / cache).with_suffix(".json").exists() for cache in CACHES)
    # The later stages resume without them.
    run_pipeline(run, _caching(calls))
    assert calls[-5:] == ["exploiters", "evaluate", "probe", "attribution", "report"]

    # A run killed after a stage finished, before its caches went: deleted when skipped.
    (tmp_path / CACHES[0]).write_bytes(b"rows")
    run_pipeline(run, _caching(calls))
    assert not (tmp_path / CACHES[0]).exists()


def test_keep_caches_keeps_them(tmp_path: Path) -> None:
    run = start_run(tmp_path, PipelineConfig(keep_caches=True))
    run.log = lambda line: None
    run_pipeline(run, _caching([]))
    assert all((tmp_path / cache).exists() for cache in CACHES)


def test_the_command_keeps_caches_when_asked(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    seed_records: SeedRecords,
) -> None:
    stages = _caching([])

    def report(run: Run) -> dict[str, Any]:
        return {"path": str(run.path("report.html"))}

    def evaluate(run: Run) -> dict[str, Any]:
        records = seed_records()
        summary = headline(records, tuned_on="micro-zoom", pool="soft")
        return {"seeds": records, "baselines": {}, "headline": summary}

    stages.update(
        simulate=lambda run: {"hands": 1_000},
        ingest=lambda run: {"main": {"rows": 9_000}},
        exploiters=lambda run: {"seeds": [], "ceiling_plateau": {"tested": False, "curve": []}},
        evaluate=evaluate,
        report=report,
    )
    monkeypatch.setattr("poolshark.experiments.pipeline.default_stages", lambda: stages)
    for flags, kept in (([], False), (["--keep-caches"], True)):
        out = tmp_path / ("kept" if kept else "deleted")
        result = CliRunner().invoke(app, ["demo", "--out", str(out), "--json", *flags])
        assert result.exit_code == 0, result.output
        assert (out / CACHES[0]).exists() == kept
        assert json.loads((out / "config.json").read_text())["keep_caches"] == kept
        summary = json.loads(result.stdout)
        assert summary["headline"]["exploiters"]["model"]["true pool"]["estimate"] == 100.0
        assert "curve" not in summary["ceiling_plateau"]
    result = CliRunner().invoke(app, ["demo", "--out", str(tmp_path / "t"), "--pool", "tough-regs"])
    assert result.exit_code == 0, result.output
    assert "share of the ceiling 0.62 [0.56, 0.68]" in result.output
    assert json.loads((tmp_path / "t" / "config.json").read_text())["pool"] == "tough-regs"
    result = CliRunner().invoke(app, ["demo", "--out", str(tmp_path / "b"), "--pool", "bogus"])
    assert result.exit_code != 0
    assert "no shipped pool 'bogus'" in result.output


def test_config_files_are_validated(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('pool = "soft"\nhands = 5000\n')
    assert PipelineConfig.load(good).pool == "soft"
    bad = tmp_path / "bad.toml"
    bad.write_text("hands = 5000\nbogus = 1\n")
    with pytest.raises(ValueError, match="bogus"):
        PipelineConfig.load(bad)
    with pytest.raises(PipelineError, match="cannot read"):
        PipelineConfig.load(tmp_path / "missing.toml")


def test_every_stage_has_a_function() -> None:
    assert list(default_stages()) == list(STAGES)


def test_every_seed_trains_and_plays_apart() -> None:
    config = PipelineConfig(seed=5, seeds=3)
    assert training_seeds(config) == [5, 6, 7]
    assert len({match_config(config, index).seed for index in range(3)}) == 3
    assert match_config(config, 0).seed == 12  # seed + 7, as one-seed runs had


def test_no_probe_iterations_skips_the_probe(tmp_path: Path) -> None:
    skipped = start_run(tmp_path / "skip", PipelineConfig(probe_iterations=0))
    assert probe_stage(skipped) == {"skipped": "probe_iterations = 0"}


def test_the_probe_stage_probes_plain_and_safe_of_the_first_seeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, str, Path, dict[str, Any]]] = []

    def probe(exploiter: str, pool: str, out: Path, **settings: Any) -> dict[str, Any]:
        calls.append((exploiter, pool, out, settings))
        return {"probe": {"bb_per_100": 1.0}}

    monkeypatch.setattr(pipeline, "probe_exploiter", probe)
    config = PipelineConfig(
        seeds=3, probe_seeds=2, probe_iterations=3, probe_tables=16, probe_eval_hands=600
    )
    run = start_run(tmp_path, config)
    run.figures["exploiters"] = {
        "seeds": [
            {"seed": s, **{name: {"checkpoint": f"{name}-{s}.pt"} for name in ("model", "safe")}}
            for s in (0, 1, 2)
        ]
    }
    figures = probe_stage(run)
    assert [c[0] for c in calls] == ["model-0.pt", "safe-0.pt", "model-1.pt", "safe-1.pt"]
    assert calls[3][2] == tmp_path / "seed-1" / "probe-safe"
    assert calls[0][3]["iterations"] == 3
    assert calls[0][3]["eval_hands"] == 600
    assert calls[2][3]["seed"] == 1
    assert figures["seeds"][1]["safe"] == {"probe": {"bb_per_100": 1.0}}


@pytest.mark.slow
def test_whole_pipeline_at_toy_sizes(tmp_path: Path) -> None:
    config = PipelineConfig(
        hands=2_000,
        heldout_hands=1_000,
        population_epochs=1,
        seeds=2,
        exploiter_iterations=2,
        ceiling_iterations=9,
        exploiter_tables=64,
        eval_hands=600,
        rake_percent=5.0,
        rake_cap_bb=3.0,
        probe_iterations=0,
        attribution_hands=600,
    )
    run = start_run(tmp_path, config)
    run.log = lambda line: None
    figures = run_pipeline(run, default_stages())
    report = Path(figures["report"]["path"])
    text = report.read_text(encoding="utf-8")
    assert "over-exploitation gap" in text
    assert "Done means" in text
    assert "t-interval over 2 seeds (1 df)" in text
    assert text.count("<svg") >= 9
    assert (tmp_path / "seed-1" / "exploiter-ceiling" / "last.pt").is_file()
    assert len(figures["exploiters"]["seeds"][1]["ceiling"]["history"]) == 9
    assert figures["exploiters"]["ceiling_plateau"]["tested"]
    seeds = figures["evaluate"]["seeds"]
    assert [s["match_seed"] for s in seeds] == [7, 1_007]
    assert (
        seeds[0]["exploiters"]["model"]["true pool"] != seeds[1]["exploiters"]["model"]["true pool"]
    )
    assert figures["probe"]["skipped"] == "probe_iterations = 0"
    assert "Where the edge comes from" in text
    assert "Bet sizes the data saw answered" in text
    attribution = figures["attribution"]["against_pool"]
    assert attribution["sum_of_contributions"] == pytest.approx(
        attribution["total"]["bb_per_100"], abs=1e-6
    )
    errors = figures["attribution"]["model_error"]
    assert errors["exploiter_path"]["overall"]["decisions"] > 0
    assert errors["pool_path"]["agent"] is None
    assert "Where the model is wrong where the exploiter goes" in text
    assert figures["exploiters"]["support"]["caps"] is not None
    assert "Raked 5% of the pot, at most 3 bb a hand" in text
    baselines = figures["evaluate"]["baselines"]
    assert baselines["population model vs itself"]["field"].endswith("best.pt")
    assert "population model vs true pool" in baselines
    assert not list(tmp_path.glob("population-*/**/data.npz"))  # the caches went
    assert (tmp_path / "population-main" / "em-0" / "data.json").is_file()
