"""The Study page's API beyond spot statistics, through FastAPI's TestClient: where a run's
exploiter earns (its stored attribution), the shove/fold equilibrium as 13x13 chart data,
and the run reports catalogued at start and served by name only."""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="fastapi is not installed (pip install -e '.[dev]')")
pytest.importorskip("httpx", reason="httpx is not installed (pip install -e '.[dev]')")

from fastapi.testclient import TestClient
from typer.testing import CliRunner

import poolshark.web.charts
import poolshark.web.reports
import poolshark.web.server
from poolshark.agents.loading import load_agent
from poolshark.analysis.attribution import (
    ACTIONS,
    POSITIONS,
    SITUATIONS,
    STREETS,
    attribute_records,
    compare_attributions,
)
from poolshark.analysis.spots import SPOT_COLUMNS
from poolshark.cards.combos import CLASS_NAMES, class_index
from poolshark.cli import app as cli_app
from poolshark.equity.matrix import PreflopMatrices
from poolshark.histories.ingest import ingest
from poolshark.report.html import HtmlReport
from poolshark.report.range_chart import PALETTE, class_frequencies
from poolshark.report.spots import SEAT_NAMES, Spot, action_shares, spot_decisions
from poolshark.solve.shove_fold import ShoveFoldGame, payoffs
from poolshark.solve.solvers import solve_exact
from poolshark.web.app import create_app
from poolshark.web.edge import EdgeError, load_edge
from poolshark.web.ranges import RUN_AGENTS, SEATS, run_agents
from poolshark.web.reports import ReportCatalogue
from poolshark.web.routes.study import Seat

ROOT = Path(__file__).resolve().parents[1]
PUSH_FOLD_TABLE = ROOT / "docs" / "push-fold-1-25bb.csv"
CHART_JS = ROOT / "src" / "poolshark" / "web" / "static" / "chart13.js"


def error(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    detail: str = response.json()["detail"]
    return detail


def field_attribution(rng: np.random.Generator, field: str, edge: float) -> dict[str, Any]:
    """A real attribution (``attribute_records``) of random hands: the exploiter wins
    ``edge`` bb a hand on average in its raised spots."""
    hands = 3000
    action = rng.integers(0, 4, hands)
    result = rng.normal(0, 5, hands) + np.where(action == ACTIONS.index("raise"), edge, -0.1)
    mine = {
        "situation": rng.integers(1, 4, hands),
        "position": rng.integers(0, len(POSITIONS), hands),
        "action": action,
        "result": result,
        "continued": rng.random(hands) < 0.3,
        "street": rng.integers(0, len(STREETS), hands),
    }
    field_rows = {
        "situation": rng.integers(1, len(SITUATIONS), 5 * hands),
        "position": rng.integers(0, len(POSITIONS), 5 * hands),
        "action": rng.integers(0, 4, 5 * hands),
    }
    figures = attribute_records(mine, field_rows)
    return {"exploiter": "runs/x/seed-0/exploiter-model/last.pt", "field": field, **figures}


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run folder holding an attribution as the pipeline writes it."""
    rng = np.random.default_rng(3)
    model = field_attribution(rng, "runs/x/population-main/best.pt", 1.0)
    pool = field_attribution(rng, "pool:soft", 0.2)
    run = tmp_path_factory.mktemp("web-edge") / "demo"
    run.mkdir()
    figures = {
        "exploiter": model["exploiter"],
        "against_model": model,
        "against_pool": pool,
        "comparison": compare_attributions(model, pool),
    }
    (run / "attribution.json").write_text(json.dumps(figures))
    return run


@pytest.fixture(scope="module")
def reports_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``runs/`` with two runs' reports, a spot table, and things the catalogue must skip."""
    base = tmp_path_factory.mktemp("web-reports")
    runs = base / "runs"
    for name in ("alpha", "beta"):
        report = HtmlReport(title=f"poolshark run report {name}")
        report.section("Headline").paragraph(f"the {name} run")
        report.write(runs / name / "report.html")
    (runs / "beta" / "spots").mkdir()
    (runs / "beta" / "spots" / "table.html").write_text("<html><title>spots</title>t</html>")
    (runs / "beta" / "notes.txt").write_text("not a page")
    (runs / ".git").mkdir()
    (runs / ".git" / "hidden.html").write_text("<title>hidden</title>")
    (base / "secret.html").write_text("<title>secret</title>outside the reports folder")
    (runs / "alpha" / "linked.html").symlink_to(base / "secret.html")
    os.utime(runs / "alpha" / "report.html", (1_700_000_000, 1_700_000_000))
    return runs


@pytest.fixture
def study(run_folder: Path, reports_folder: Path) -> Iterator[TestClient]:
    with TestClient(create_app(study_run=run_folder, reports_dir=reports_folder)) as client:
        yield client


@pytest.fixture
def bare() -> Iterator[TestClient]:
    with TestClient(create_app()) as client:
        yield client


# -- where the exploiter earns ---------------------------------------------------------------


def test_edge_serves_the_run_s_stored_attribution(study: TestClient, run_folder: Path) -> None:
    edge = study.get("/api/study/edge").json()
    stored = json.loads((run_folder / "attribution.json").read_text())
    assert edge["run"] == "demo"
    assert [f["label"] for f in edge["fields"]] == [
        "against the population model",
        "against the true pool",
    ]
    for field, key in zip(edge["fields"], ("against_model", "against_pool"), strict=True):
        assert field["field"] == stored[key]["field"]
        assert field["total"] == stored[key]["total"]
        rates = [spot["contribution"]["bb_per_100"] for spot in field["spots"]]
        assert sorted(map(abs, rates), reverse=True) == [abs(r) for r in rates]
        assert sum(rates) == pytest.approx(field["total"]["bb_per_100"])  # they add up
        assert {s["spot"] for s in field["spots"]} == {s["spot"] for s in stored[key]["spots"]}
        assert all(len(s["contribution"]["ci95"]) == 2 for s in field["spots"])
        assert [s["street"] for s in field["streets"]] == list(STREETS)
    model_raise = edge["fields"][0]["spots"][0]
    assert model_raise["contribution"]["bb_per_100"] > 0  # the raised spots pay 1 bb a hand
    assert len(edge["comparison"]) == len(stored["comparison"])
    assert "by_action" not in model_raise  # trimmed to what the page shows


def test_edge_reads_a_real_run_s_attribution() -> None:
    edge = load_edge(ROOT / "tests" / "data" / "web" / "demo19")
    model, pool = edge["fields"]
    assert (model["hands"], pool["hands"]) == (12_000, 12_000)
    assert pool["field"] == "pool:handhq-25nl"
    assert (len(model["spots"]), len(pool["spots"])) == (30, 31)
    for field in (model, pool):
        rates = [spot["contribution"]["bb_per_100"] for spot in field["spots"]]
        assert sum(rates) == pytest.approx(field["total"]["bb_per_100"], abs=1e-3)
    assert pool["total"]["bb_per_100"] == pytest.approx(37.7317, abs=1e-3)
    assert sum(row["disagree"] for row in edge["comparison"]) == 2


def test_edge_reads_the_attribute_command_s_json_too(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    entry = field_attribution(rng, "pool:soft", 0.5)
    (tmp_path / "attribution.json").write_text(
        json.dumps({"attributions": [entry], "comparison": None})
    )
    edge = load_edge(tmp_path)
    assert [f["label"] for f in edge["fields"]] == ["against pool:soft"]
    assert edge["comparison"] == []


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "has no attribution.json"),
        ("{not json", "cannot be read"),
        ("[1, 2]", "not a JSON object"),
        ('{"skipped": "attribution_hands = 0"}', "skipped its attribution"),
        ('{"seconds": 1.0}', "holds no attribution"),
        ('{"against_pool": {"hands": 3}}', "not an attribution (missing 'spots')"),
    ],
)
def test_edge_names_what_is_wrong_with_the_run(
    tmp_path: Path, content: str | None, words: str
) -> None:
    if content is not None:
        (tmp_path / "attribution.json").write_text(content)
    with pytest.raises(EdgeError, match=re.escape(words)):
        load_edge(tmp_path)
    with TestClient(create_app(study_run=tmp_path)) as client:
        assert words in error(client.get("/api/study/edge"), 404)


def test_edge_without_a_run_says_how_to_give_one(bare: TestClient) -> None:
    assert "--study-run" in error(bare.get("/api/study/edge"), 404)


# -- the shove/fold charts ---------------------------------------------------------------------


@pytest.fixture
def solver(
    monkeypatch: pytest.MonkeyPatch, preflop: PreflopMatrices, bare: TestClient
) -> TestClient:
    monkeypatch.setattr(poolshark.web.charts, "cached_matrices", lambda: preflop)
    poolshark.web.charts.shove_fold_charts.cache_clear()
    return bare


def push_fold_table() -> dict[str, tuple[float, float]]:
    with PUSH_FOLD_TABLE.open() as handle:
        return {
            row["class"]: (float(row["max_shove_bb"]), float(row["max_call_bb"]))
            for row in csv.DictReader(handle)
        }


def test_the_shove_fold_chart_is_the_solver_s_equilibrium(
    solver: TestClient, preflop: PreflopMatrices
) -> None:
    data = solver.get("/api/charts/shove-fold", params={"depth": 10}).json()
    assert data["depth_bb"] == 10.0
    assert data["classes"] == list(CLASS_NAMES)
    assert data["palette"] == [[at, list(rgb)] for at, rgb in PALETTE]
    shove, call = (np.array(chart["frequencies"]) for chart in data["charts"])
    assert shove.shape == call.shape == (169,)
    assert shove[class_index("AA")] == 1.0
    assert call[class_index("AA")] == 1.0
    assert shove[class_index("72o")] == 0.0
    assert call[class_index("72o")] == 0.0
    assert shove[class_index("K2o")] == 1.0
    assert call[class_index("K2o")] == 0.0
    assert shove[class_index("43s")] == pytest.approx(0.71, abs=0.01)  # the one mixed class
    assert data["sb_shove_fraction"] == pytest.approx(0.5828, abs=1e-4)  # docs/solve.md
    assert data["bb_call_fraction"] == pytest.approx(0.3738, abs=1e-4)
    solution = solve_exact(payoffs(ShoveFoldGame(stack=10.0), preflop))
    np.testing.assert_allclose(shove, class_frequencies(solution.shove), atol=1e-4)
    table = push_fold_table()
    for name, share in zip(CLASS_NAMES, shove, strict=True):
        if share >= 0.5:  # shoved at 10 bb: the table's largest shoving stack is 10 or more
            assert table[name][0] >= 10.0, name


def test_the_chart_at_25_bb_matches_the_push_fold_table(solver: TestClient) -> None:
    data = solver.get("/api/charts/shove-fold", params={"depth": "25"}).json()
    shove, call = (np.array(chart["frequencies"]) for chart in data["charts"])
    table = push_fold_table()
    for k, name in enumerate(CLASS_NAMES):
        assert (shove[k] >= 0.5) == (table[name][0] == 25.0), name
        assert (call[k] >= 0.5) == (table[name][1] == 25.0), name


@pytest.mark.parametrize(
    ("depth", "words"),
    [("0.5", "greater than or equal to 1"), ("26", "less than or equal to 25"), ("ten", "number")],
)
def test_bad_depths_are_refused(bare: TestClient, depth: str, words: str) -> None:
    detail = error(bare.get("/api/charts/shove-fold", params={"depth": depth}), 422)
    assert "query.depth" in detail
    assert words in detail


def test_the_depth_is_rounded_to_a_tenth(solver: TestClient) -> None:
    assert solver.get("/api/charts/shove-fold?depth=7.34").json()["depth_bb"] == 7.3


def test_without_the_matrices_the_chart_says_how_to_build_them(
    monkeypatch: pytest.MonkeyPatch, bare: TestClient
) -> None:
    monkeypatch.setattr(poolshark.web.charts, "cached_matrices", lambda: None)
    poolshark.web.charts.shove_fold_charts.cache_clear()
    assert "poolshark solve shove-fold" in error(bare.get("/api/charts/shove-fold"), 503)


def test_the_chart_component_uses_the_report_s_palette_and_layout() -> None:
    text = CHART_JS.read_text()
    stops = ", ".join(f"[{at:.1f}, [{r}, {g}, {b}]]" for at, (r, g, b) in PALETTE)
    assert f"const CHART13_PALETTE = [{stops}];" in text
    assert 'const CHART13_RANKS = "AKQJT98765432";' in text
    assert "function drawChart13(container, frequencies, options = {})" in text


# -- run reports -------------------------------------------------------------------------------


def test_reports_are_catalogued_at_start_and_listed(study: TestClient) -> None:
    listing = study.get("/api/reports").json()
    assert listing["folder"] == "runs"
    assert listing["truncated"] is False
    names = [entry["name"] for entry in listing["reports"]]
    assert sorted(names) == ["alpha/report.html", "beta/report.html", "beta/spots/table.html"]
    assert names[-1] == "alpha/report.html"  # the oldest last
    alpha = next(e for e in listing["reports"] if e["name"] == "alpha/report.html")
    assert alpha["run"] == "alpha"
    assert alpha["title"] == "poolshark run report alpha"
    assert alpha["modified"] == "2023-11-14 22:13 UTC"
    assert "path" not in alpha
    assert not any("/tmp" in str(v) for v in alpha.values())


def test_a_report_is_served_by_its_name_without_scripts(study: TestClient) -> None:
    page = study.get("/reports/beta/report.html")
    assert page.status_code == 200
    assert "the beta run" in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert page.headers["content-type"].startswith("text/html")
    assert "t</html>" in study.get("/reports/beta/spots/table.html").text


@pytest.mark.parametrize(
    "name",
    [
        "%2e%2e/secret.html",
        "alpha%2F..%2F..%2Fsecret.html",
        "..%2Fsecret.html",
        "%2Fetc%2Fpasswd",
        "alpha/linked.html",
        ".git/hidden.html",
        "beta/notes.txt",
        "gamma/report.html",
        "alpha/report.html%00",
    ],
)
def test_anything_not_in_the_catalogue_is_a_404(study: TestClient, name: str) -> None:
    detail = error(study.get(f"/reports/{name}"), 404)
    assert "no report named" in detail
    assert "outside the reports folder" not in study.get(f"/reports/{name}").text


def test_the_catalogue_never_reads_a_path_it_did_not_record(reports_folder: Path) -> None:
    catalogue = ReportCatalogue(reports_folder)
    for name in ("../secret.html", str(reports_folder.parent / "secret.html"), "alpha/../../x"):
        assert catalogue.read(name) is None
    assert catalogue.read("alpha/report.html") is not None


def test_the_catalogue_is_bounded(monkeypatch: pytest.MonkeyPatch, reports_folder: Path) -> None:
    monkeypatch.setattr(poolshark.web.reports, "MAX_PAGES", 2)
    capped = ReportCatalogue(reports_folder)
    assert (len(capped.entries), capped.truncated) == (2, True)
    monkeypatch.setattr(poolshark.web.reports, "MAX_PAGES", 1000)
    monkeypatch.setattr(poolshark.web.reports, "MAX_PAGE_BYTES", 100)
    assert list(ReportCatalogue(reports_folder).entries) == ["beta/spots/table.html"]
    with pytest.raises(ValueError, match="is not a folder"):
        ReportCatalogue(reports_folder / "alpha" / "report.html")


def test_reports_without_a_folder_say_how_to_give_one(bare: TestClient) -> None:
    assert "--reports" in error(bare.get("/api/reports"), 404)
    assert "--reports" in error(bare.get("/reports/report.html"), 404)


def test_the_study_page_carries_the_new_sections(bare: TestClient) -> None:
    page = bare.get("/study").text
    for part in ('id="edge"', 'id="solver"', 'id="reports"', "/static/chart13.js"):
        assert part in page
    assert bare.get("/static/chart13.js").status_code == 200


def test_the_filters_offer_every_spot_column(tmp_path: Path) -> None:
    hands = ROOT / "tests" / "data" / "analysis" / "spots_hands.txt"
    ingest([hands], tmp_path / "rows", workers=1, backend="serial")
    with TestClient(create_app(study_rows=tmp_path / "rows")) as client:
        values = client.get("/api/study/options").json()["values"]
        assert list(values) == list(SPOT_COLUMNS)  # every column, players in the pot too
        assert values["players_in_pot"] == [str(n) for n in range(2, 11)]
        assert values["facing"][:2] == ["none", "<0.4"]
        table = client.get("/api/study/spots", params={"by": "facing", "facing": "none"}).json()
        assert [row[0] for row in table["rows"]] == ["none"]


# -- the command -------------------------------------------------------------------------------


def test_poolshark_web_passes_the_study_options(
    monkeypatch: pytest.MonkeyPatch, run_folder: Path, reports_folder: Path
) -> None:
    served: dict[str, Any] = {}

    def fake_serve(host: str, port: int, **options: Any) -> None:
        served.update(options)

    monkeypatch.setattr(poolshark.web.server, "serve", fake_serve)
    args = ["web", "--study-run", str(run_folder), "--reports", str(reports_folder)]
    result = CliRunner().invoke(cli_app, args)
    assert result.exit_code == 0, result.output
    assert (served["study_run"], served["reports_dir"]) == (run_folder, reports_folder)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--study-run", "/no/such/run"], "holds no attribution.json"),
        (["--reports", "/no/such/runs"], "is not a folder"),
    ],
)
def test_poolshark_web_refuses_bad_study_options(args: list[str], words: str) -> None:
    result = CliRunner().invoke(cli_app, ["web", *args])
    assert result.exit_code == 2
    assert words in result.output


# -- the run's preflop ranges ------------------------------------------------------------------


@pytest.fixture(scope="module")
def pool_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run folder whose only agent is its true pool (the ``soft`` pool)."""
    run = tmp_path_factory.mktemp("web-ranges") / "runs" / "soft-run"
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"pool": "soft", "seed": 0}))
    return run


def test_the_run_s_agents_are_found_by_its_stage_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checkpoints the run names as ``runs/...`` are found beside its runs folder (from a
    working folder where they are not, unlike a checkout that has a ``runs/demo``)."""
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "runs" / "demo"
    (run / "population-main").mkdir(parents=True)
    (run / "population-main" / "best.pt").write_bytes(b"not read here")
    (run / "config.json").write_text(json.dumps({"pool": "soft"}))
    population = {"main": {"checkpoint": "runs/demo/population-main/best.pt"}}
    (run / "population.json").write_text(json.dumps(population))
    exploiters = {"seeds": [{"model": {"checkpoint": "runs/demo/seed-0/missing.pt"}}]}
    (run / "exploiters.json").write_text(json.dumps(exploiters))
    assert run_agents(run) == {
        "true pool": "pool:soft",
        "population model": str((run / "population-main" / "best.pt").resolve()),
    }
    with TestClient(create_app(study_run=run)) as client:
        options = client.get("/api/study/ranges").json()
        assert options["agents"] == ["true pool", "population model"]
        assert options["seats"] == ["UTG", "MP", "CO", "BTN", "SB", "BB"]
        detail = error(client.get("/api/study/range?agent=exploiter&hero=BTN"), 404)
        assert "no exploiter to chart: it has true pool, population model" in detail


def test_the_seats_and_agents_the_api_takes_are_the_report_s() -> None:
    assert set(SEATS) == set(SEAT_NAMES)
    assert SEATS[:3] == ("UTG", "MP", "CO")
    assert get_args(Seat) == SEATS
    assert RUN_AGENTS == ("true pool", "population model", "exploiter")


def test_a_range_chart_is_the_agent_s_action_shares(pool_run: Path) -> None:
    with TestClient(create_app(study_run=pool_run)) as client:
        params = {"agent": "true pool", "hero": "BTN", "opener": "CO"}
        data = client.get("/api/study/range", params=params).json()
    assert data["spot"] == "BTN vs CO open"
    fold, call, raised = (np.array(chart["frequencies"]) for chart in data["charts"])
    np.testing.assert_allclose(fold + call + raised, 1.0, atol=2e-4)
    shares = action_shares(load_agent("pool:soft"), spot_decisions(Spot("BTN", opener="CO")))
    np.testing.assert_allclose(raised, class_frequencies(shares[:, 2]), atol=1e-4)
    assert raised[class_index("AA")] > raised[class_index("72o")]


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("agent=true+pool&hero=XX", 422, "query.hero"),
        ("agent=everyone&hero=BTN", 422, "query.agent"),
        ("agent=true+pool", 422, "query.hero"),
        ("agent=true+pool&hero=BB", 422, "pick an opener"),
        ("agent=true+pool&hero=SB&opener=BB", 422, "BB acts after SB"),
        ("agent=true+pool&hero=CO&opener=..%2Fx", 422, "query.opener"),
    ],
)
def test_bad_range_requests_are_refused(
    pool_run: Path, query: str, status: int, words: str
) -> None:
    with TestClient(create_app(study_run=pool_run)) as client:
        assert words in error(client.get(f"/api/study/range?{query}"), status)


def test_ranges_without_a_run_say_how_to_give_one(bare: TestClient) -> None:
    assert "--study-run" in error(bare.get("/api/study/ranges"), 404)
    assert "--study-run" in error(bare.get("/api/study/range?agent=exploiter&hero=BTN"), 404)
