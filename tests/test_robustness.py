"""Edge against model error (``poolshark exploit curve``): config rules, and one toy run end
to end that must resume without work, reproduce a recomputed point from the seed and refuse
a folder of another config."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from poolshark.cli import app
from poolshark.experiments.robustness import (
    RobustnessConfig,
    RobustnessError,
    RobustnessPoint,
    open_run,
    run_robustness,
)

CONFIGS = Path(__file__).parents[1] / "configs"
TINY = CONFIGS / "robustness-tiny.toml"


def test_the_shipped_default_config_is_the_built_in_one() -> None:
    assert RobustnessConfig.load(CONFIGS / "robustness.toml") == RobustnessConfig()


def test_configs_are_validated(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="points repeat: exact-1000"):
        RobustnessConfig(points=[RobustnessPoint(hands=1000), RobustnessPoint(hands=1000)])
    with pytest.raises(ValueError, match="hands"):
        RobustnessPoint(hands=10)
    bad = tmp_path / "bad.toml"
    bad.write_text("eval_hands = 1000\nbogus = 1\n")
    with pytest.raises(ValueError, match="bogus"):
        RobustnessConfig.load(bad)
    with pytest.raises(RobustnessError, match="cannot read"):
        RobustnessConfig.load(tmp_path / "missing.toml")


def test_point_names_are_safe_file_names() -> None:
    assert RobustnessPoint(hands=4000).name == "exact-4000"
    assert RobustnessPoint(hands=500, imputer="oracle:runs/o/best.pt").name == (
        "oracle-runs-o-best-pt-500"
    )
    assert RobustnessPoint(hands=500).training_keys("soft")["imputer"] == "exact:soft"
    assert RobustnessPoint(hands=500, imputer="uniform").training_keys("soft") == {
        "imputer": "uniform",
        "em_rounds": 0,
        "em_power": 1.0,
    }
    assert RobustnessPoint(hands=500, imputer="em:2").training_keys("soft")["em_rounds"] == 2


def test_quick_keeps_the_error_axis_and_drops_points_that_coincide() -> None:
    quick = RobustnessConfig().quick()
    assert [p.name for p in quick.points] == [
        "exact-1000",
        "exact-1500",
        "exact-4000",
        "uniform-4000",
        "em-1000",
        "em-4000",
    ]
    assert quick.exploiter_iterations < RobustnessConfig().exploiter_iterations
    assert quick.eval_hands < RobustnessConfig().eval_hands


def _figures(summary: dict[str, Any]) -> dict[str, Any]:
    """What a run measured, without the timings."""
    strip = ("seconds",)
    return {
        "points": [{k: v for k, v in p.items() if k not in strip} for p in summary["points"]],
        "ceiling": {k: v for k, v in summary["ceiling"].items() if k not in strip},
    }


def _no_work(*args: object, **kwargs: object) -> None:
    raise AssertionError("a recorded run did work again")


def test_a_toy_run_end_to_end_resumes_reproduces_and_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = RobustnessConfig.load(TINY)
    out = tmp_path / "run"
    lines: list[str] = []
    summary = run_robustness(config, out, log=lines.append)

    assert [p["name"] for p in summary["points"]] == ["exact-400", "uniform-400"]
    for point in summary["points"]:
        assert point["model"]["kl"] > 0
        assert point["model"]["nll"] > point["model"]["truth_nll"]
        for variant in ("plain", "safe"):
            for against in ("true_pool", "model"):
                rate = point[variant][against]
                assert rate["half_width"] > 0
                assert rate["hands"] >= config.eval_hands
            assert point[variant]["gap"] == pytest.approx(
                point[variant]["model"]["bb_per_100"] - point[variant]["true_pool"]["bb_per_100"]
            )
        assert (out / "points" / f"{point['name']}.json").is_file()
    assert summary["ceiling"]["true_pool"]["half_width"] > 0
    assert json.loads((out / "robustness.json").read_text()) == summary
    assert (out / "edge_vs_error.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (out / "robustness.html").read_text(encoding="utf-8")
    assert page.count("<svg") == 1
    assert "uniform 400" in page
    assert sum("data:" in line for line in lines) == 1  # both points share the 400 hands
    assert not list(out.glob("points/*/population/**/data.npz"))  # recorded: caches deleted

    # Started again, nothing is trained, simulated or played: the figures come back as they were.
    for target in (
        "poolshark.population.train.train_population",
        "poolshark.exploit.ppo.train_exploiter",
        "poolshark.evaluate.match.play_match",
        "poolshark.pool.simulate.write_simulation",
    ):
        monkeypatch.setattr(target, _no_work)
    lines.clear()
    again = run_robustness(config.model_copy(update={"threads": 2}), out, log=lines.append)
    assert _figures(again) == _figures(summary)
    assert all("skipped" in line for line in lines)
    # Points may be dropped (or added) on a finished run: the others are reused as recorded.
    fewer = run_robustness(config.model_copy(update={"points": config.points[:1]}), out)
    assert _figures(fewer)["points"] == _figures(summary)["points"][:1]
    run_robustness(config, out, log=lines.append)
    monkeypatch.undo()

    # A point recomputed from scratch (its exploiters retrained) gives the same figures.
    (out / "points" / "uniform-400.json").unlink()
    for variant in ("plain", "safe"):
        shutil.rmtree(out / "points" / "uniform-400" / f"exploiter-{variant}")
    redone = run_robustness(config, out, log=lines.append)
    assert _figures(redone) == _figures(summary)

    with pytest.raises(RobustnessError, match="differs in eval_hands"):
        open_run(out, config.model_copy(update={"eval_hands": 600}))

    # The command reads the finished run back: one JSON object, or the table.
    runner = CliRunner()
    result = runner.invoke(
        app, ["exploit", "curve", "--config", str(TINY), "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    assert _figures(json.loads(result.stdout)) == _figures(summary)
    table = runner.invoke(app, ["exploit", "curve", "--config", str(TINY), "--out", str(out)])
    assert table.exit_code == 0, table.output
    assert "uniform" in table.output
    assert "ceiling" in table.output


def test_the_command_refuses_another_config_in_one_line(tmp_path: Path) -> None:
    open_run(tmp_path, RobustnessConfig.load(TINY))
    result = CliRunner().invoke(app, ["exploit", "curve", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 2
    assert "differs in" in result.output
