"""Pool fitting: per-style overrides in pool files, fit parameters, the search moving a
mis-set parameter back toward a known pool, and ``poolshark pool fit --json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poolshark.cli import app
from poolshark.pool.fit import (
    FitError,
    candidate,
    fit_pool,
    parse_parameter,
    read_parameters,
    simulated_statistics,
    start_point,
)
from poolshark.pool.pools import PoolError, load_pool, load_pool_spec, pool_toml
from poolshark.pool.simulate import pokerstars_text, simulate

runner = CliRunner()
PARAMS = Path(__file__).parents[1] / "src" / "poolshark" / "pool" / "pools" / "handhq-25nl.params"
POOL = """name = "custom"
players = 60
[mix]
tag = 1
station = 1
"""


def write_pool(tmp_path: Path, overrides: str) -> Path:
    path = tmp_path / "pool.toml"
    path.write_text(POOL + overrides)
    return path


def test_overrides_change_the_style(tmp_path: Path) -> None:
    path = write_pool(
        tmp_path,
        '[styles.tag]\n"postflop.fold_to_cbet" = 0.55\n"preflop.open.BTN" = 38\n'
        '"preflop.limp.EP" = 7\n"postflop.raise" = 0.2\n',
    )
    pool = load_pool(path)
    tag, station = pool.styles
    assert tag.spec.postflop.fold_to_cbet == 0.55
    assert tag.spec.postflop.raise_ == 0.2
    assert tag.spec.preflop.open["BTN"] == 38
    assert tag.spec.preflop.limp == {"EP": 7}
    assert station.name == "station"
    plain = load_pool(write_pool(tmp_path, ""))
    assert plain.styles[0].spec.postflop.fold_to_cbet != 0.55
    assert (plain.styles[1].params == station.params).all()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ('"postflop.fold_to_cbett" = 0.5', "no parameter 'fold_to_cbett' in postflop"),
        ('"postflop.fold_to_cbet" = 1.5', "postflop.fold_to_cbet: Input should be less"),
        ('"postflop.fold_to_cbet.x" = 1', "postflop.fold_to_cbet is not a group"),
        ('"preflop.open.BB" = 30', "preflop.open.BB"),
        ('"postflop.cbet.flop" = "often"', "postflop.cbet.flop"),
        ('"nothing.x" = 1', "nothing is not a group"),
    ],
)
def test_bad_overrides_name_the_pool_entry_and_field(
    tmp_path: Path, overrides: str, message: str
) -> None:
    with pytest.raises(PoolError) as error:
        load_pool(write_pool(tmp_path, f"[styles.tag]\n{overrides}\n"))
    assert "pool custom: styles.tag: " in str(error.value)
    assert message in str(error.value)


def test_overrides_of_a_style_not_in_the_mix(tmp_path: Path) -> None:
    with pytest.raises(PoolError, match=r"styles\.nit: overrides a style that is not in the mix"):
        load_pool(write_pool(tmp_path, '[styles.nit]\n"postflop.bluff" = 0.1\n'))


def test_pool_files_round_trip(tmp_path: Path) -> None:
    overrides = '[styles.tag]\n"postflop.bluff" = 0.1\n"preflop.iso" = "QQ+"\n'
    spec, _ = load_pool_spec(write_pool(tmp_path, overrides))
    out = tmp_path / "again.toml"
    out.write_text(pool_toml(spec, "a comment\nover two lines"))
    assert out.read_text().startswith("# a comment\n# over two lines\n")
    again, _ = load_pool_spec(out)
    assert again == spec
    shipped, _ = load_pool_spec("micro-zoom")
    out.write_text(pool_toml(shipped))
    assert load_pool_spec(out)[0] == shipped


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tag", "write ENTRY:PATH"),
        ("tag:postflop.nope", "no field 'nope' in postflop"),
        ("tag:postflop.cbet", "a group of parameters"),
        ("tag:postflop.bluff=0.5:0.1", "not an interval"),
        ("tag:postflop.bluff=a:b", "two numbers"),
    ],
)
def test_bad_parameters(text: str, message: str) -> None:
    with pytest.raises(FitError, match=message):
        parse_parameter(text)


def test_parameter_bounds_come_from_the_schema() -> None:
    bluff = parse_parameter("tag:postflop.bluff")
    assert (bluff.low, bluff.high) == (0, 1)
    shift = parse_parameter("*:preflop.open.BTN")
    assert (shift.low, shift.high, shift.floor, shift.ceiling) == (-50, 50, 0, 100)
    assert parse_parameter("tag:postflop.draw_discipline").low == 0.2
    assert parse_parameter("mix:tag=0.1:0.9").high == 0.9
    with pytest.raises(FitError, match="given twice"):
        read_parameters(["mix:tag", "mix:tag  # again"])


def test_shifts_keep_the_styles_apart_and_clip(tmp_path: Path) -> None:
    spec, folder = load_pool_spec(write_pool(tmp_path, ""))
    params = read_parameters(["*:preflop.open.BTN", "mix:tag", "station:postflop.bluff"])
    start = start_point(spec, folder, params)
    tag_btn, station_btn = start.bases[0]["tag"], start.bases[0]["station"]
    assert start.values[0] == 0.0
    assert start.values[1] == 1.0
    moved = candidate(spec, params, start, [-(station_btn + 1), 0.5, 0.25])
    assert moved.styles["station"]["preflop.open.BTN"] == 0.0  # clipped at the floor
    assert moved.styles["tag"]["preflop.open.BTN"] == round(tag_btn - station_btn - 1, 4)
    assert moved.styles["station"]["postflop.bluff"] == 0.25
    assert moved.mix == {"tag": 0.3333, "station": 0.6667}
    with pytest.raises(FitError, match="'nit' is not in the mix"):
        start_point(spec, folder, read_parameters(["nit:postflop.bluff"]))


def test_the_fit_moves_a_mis_set_parameter_back() -> None:
    """Target: tough-regs with fold to c-bet raised by 0.25; the fit, started from the
    plain pool, recovers most of the shift (common random numbers, a few candidates)."""
    spec, folder = load_pool_spec("tough-regs")
    params = read_parameters(["*:postflop.fold_to_cbet"])
    start = start_point(spec, folder, params)
    target = candidate(spec, params, start, [0.25])
    real = simulated_statistics(target, folder, 30_000, seed=7)
    again = simulated_statistics(target, folder, 30_000, seed=7)
    assert [s.hits for s in again.values()] == [s.hits for s in real.values()]  # seeded
    result = fit_pool(spec, folder, real, params, hands=4_000, budget=8, seed=1)
    assert result.distance < result.start_distance
    assert abs(result.values[0] - 0.25) < 0.1
    assert result.evaluations <= 8
    names = {line.name for line in result.report}
    assert {"vpip", "wtsd", "open.BTN", "fold_to_cbet.flop.medium"} <= names
    before = sum(line.fitted and not line.inside for line in result.report)
    assert before == len(result.misses)


def test_cli_fit_json(tmp_path: Path) -> None:
    """``pool fit`` on written histories: one JSON object, a pool file that loads, the
    regenerate command in its header, every statistic reported."""
    rows = tmp_path / "rows.txt"
    rows.write_bytes(pokerstars_text(simulate(load_pool("tough-regs"), 1_500, seed=5)))
    out = tmp_path / "fitted.toml"
    result = runner.invoke(
        app,
        [
            "pool", "fit", str(rows), "--out", str(out), "--start", "tough-regs",
            "--param", "*:postflop.cbet.flop", "--param", "mix:nit", "--name", "fitted",
            "--hands", "1000", "--budget", "3", "--seed", "2", "--json",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["evaluations"] == 3
    assert payload["hands"]["parsed"] == 1_500
    assert [p["name"] for p in payload["parameters"]] == ["*:postflop.cbet.flop", "mix:nit"]
    assert len(payload["report"]) == 4 + 63
    assert payload["inside"] + len(payload["misses"]) == payload["fitted"]
    pool = load_pool(out)
    assert pool.name == "fitted"
    header = out.read_text().splitlines()[1]
    assert header.startswith("# Regenerate: poolshark pool fit ")
    assert "--param '*:postflop.cbet.flop'" in header


def test_cli_fit_errors(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["pool", "fit", str(tmp_path), "--out", str(tmp_path / "x.toml"), "-p", "tag:x"]
    )
    assert result.exit_code == 2
    assert "no field 'x' in a style" in result.stderr


def test_the_shipped_fit_is_reproducible_as_written() -> None:
    """handhq-25nl loads, its header gives the command that made it, and that command's
    parameter file names parameters every style of its start pool has."""
    pool = load_pool("handhq-25nl")
    assert pool.config.seats == 6
    assert pool.stack == 200
    text = (PARAMS.parent / "handhq-25nl.toml").read_text()
    assert "# Regenerate: poolshark pool fit ../shared/data/handhq-ps25 " in text
    assert f"--params {PARAMS.relative_to(PARAMS.parents[4])}" in text
    params = read_parameters(PARAMS.read_text().splitlines())
    spec, folder = load_pool_spec("micro-zoom")
    assert len(start_point(spec, folder, params).values) == len(params)
