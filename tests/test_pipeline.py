"""The end-to-end pipeline's mechanics: stages in order, resume after a kill, config checks,
caches deleted when their stage finishes.

The full run is what ``make demo`` does; here the heavy stages are swapped for small
recorders, and one real run at toy sizes is marked slow.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from poolshark.cli import app
from poolshark.experiments.pipeline import (
    STAGES,
    PipelineConfig,
    PipelineError,
    Run,
    default_stages,
    run_pipeline,
    start_run,
)


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
    assert calls == ["exploiters", "evaluate", "report"]
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
    assert calls[-3:] == ["exploiters", "evaluate", "report"]

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
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stages = _caching([])

    def report(run: Run) -> dict[str, Any]:
        return {"path": str(run.path("report.html"))}

    def evaluate(run: Run) -> dict[str, Any]:
        return {"exploiters": {}, "baselines": {}, "over_exploitation_gap": 0.0,
                "share_of_ceiling": None}  # fmt: skip

    stages.update(
        simulate=lambda run: {"hands": 1_000},
        ingest=lambda run: {"main": {"rows": 9_000}},
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


@pytest.mark.slow
def test_whole_pipeline_at_toy_sizes(tmp_path: Path) -> None:
    config = PipelineConfig(
        hands=2_000,
        heldout_hands=1_000,
        population_epochs=1,
        exploiter_iterations=2,
        exploiter_tables=64,
        eval_hands=600,
        rake_percent=5.0,
        rake_cap_bb=3.0,
    )
    run = start_run(tmp_path, config)
    run.log = lambda line: None
    figures = run_pipeline(run, default_stages())
    report = Path(figures["report"]["path"])
    text = report.read_text(encoding="utf-8")
    assert "over-exploitation gap" in text
    assert text.count("<svg") >= 6
    assert "Raked 5% of the pot, at most 3 bb a hand" in text
    baselines = figures["evaluate"]["baselines"]
    assert baselines["population model vs itself"]["field"].endswith("best.pt")
    assert "population model vs true pool" in baselines
    assert not list(tmp_path.glob("population-*/**/data.npz"))  # the caches went
    assert (tmp_path / "population-main" / "em-0" / "data.json").is_file()
