"""The web app in a real browser: Playwright drives Debian's chromium (headless) against a
uvicorn server on a free loopback port. It plays a whole hand to showdown by clicking,
visits every page and saves a screenshot of each under ``artifacts/screenshots/`` (or
``$POOLSHARK_SCREENSHOTS``). Without playwright or chromium it skips with one line."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        f"no chromium at {CHROMIUM} (apt-get install chromium): browser tests skip",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed: browser tests skip"
)
uvicorn = pytest.importorskip("uvicorn", reason="uvicorn is not installed: browser tests skip")

import torch  # noqa: E402

from poolshark.histories.ingest import ingest  # noqa: E402
from poolshark.oracle.model import CHECKPOINT_KIND, OracleNet  # noqa: E402
from poolshark.population import CHECKPOINT_KIND as MODEL_KIND  # noqa: E402
from poolshark.population.model import PopulationNet  # noqa: E402
from poolshark.report.html import HtmlReport  # noqa: E402
from poolshark.web.app import create_app  # noqa: E402
from poolshark.web.replays import ReplayOptions  # noqa: E402
from poolshark.web.reports import ReportCatalogue  # noqa: E402
from poolshark.web.sessions import Limits  # noqa: E402

SHOTS = Path(
    os.environ.get(
        "POOLSHARK_SCREENSHOTS", Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"
    )
)


STUDY_HANDS = Path(__file__).parent / "data" / "analysis" / "spots_hands.txt"
STUDY_RUN = Path(__file__).parent / "data" / "web" / "demo19"


def study_reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A reports folder: one run's report page."""
    runs = tmp_path_factory.mktemp("web-browser-reports") / "runs"
    report = HtmlReport(title="poolshark run report")
    report.section("Headline").paragraph("the demo run")
    report.write(runs / "demo" / "report.html")
    return runs


REPLAY_HANDS = Path(__file__).parent / "data" / "web" / "handhq_ps25_3hands.phhs"
"""Three real PokerStars hands of the HandHQ data (PHH), for Replay."""


def replay_checkpoints(folder: Path) -> tuple[Path, Path]:
    """A random-init range oracle and population model checkpoint, for Replay."""
    torch.manual_seed(0)
    nets = {
        "oracle.pt": (CHECKPOINT_KIND, OracleNet(hidden=16, preflop_width=16, combo_width=8)),
        "model.pt": (MODEL_KIND, PopulationNet(width=16, depth=1, opponent_width=8)),
    }
    for name, (kind, net) in nets.items():
        payload = {"kind": kind, "hyperparameters": net.hyperparameters(),
                   "model": net.state_dict(), "range_source": "none"}  # fmt: skip
        torch.save(payload, folder / name)
    return folder / "oracle.pt", folder / "model.pt"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A uvicorn server in a thread, on loopback, with a small rows folder to study."""
    rows = tmp_path_factory.mktemp("web-browser") / "rows"
    ingest([STUDY_HANDS], rows, workers=1, backend="serial")
    port = free_port()
    oracle, model = replay_checkpoints(rows.parent)
    replays = ReplayOptions(histories=REPLAY_HANDS, oracle=oracle, model=model, simulated=1)
    app = create_app(Limits(max_sessions=8), study_rows=rows, replay_options=replays)
    app.state.web.study_run = STUDY_RUN
    app.state.web.reports = ReportCatalogue(study_reports(tmp_path_factory))
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not instance.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the web server did not start within 20 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page(server: str) -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"]
        )
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        page = context.new_page()
        page.set_default_timeout(10_000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
        browser.close()
        assert not errors, f"JavaScript errors: {errors}"


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def version(page: Any) -> int:
    return int(page.evaluate("Number(document.body.dataset.version || 0)"))


def click_and_wait(page: Any, selector: str) -> None:
    """Click, then wait for the page to render the server's answer."""
    before = version(page)
    page.click(selector)
    page.wait_for_function(f"Number(document.body.dataset.version || 0) > {before}")


def test_home_page(page: Any, server: str) -> None:
    page.goto(server + "/")
    page.wait_for_function("document.getElementById('health').textContent.includes('sessions')")
    assert "0 of 8 sessions open" in page.inner_text("#health")
    shot(page, "home")


def test_play_a_hand_to_showdown_by_clicking(page: Any, server: str) -> None:
    page.goto(server + "/play")
    page.wait_for_selector("#opponent option[value='station']", state="attached")
    page.select_option("#opponent", "station")
    click_and_wait(page, "#start")
    assert page.inner_text("#btn-call") == "Call 1"  # the button posts the small blind
    assert page.locator(".seat[data-seat='0'] .cardface:not(.back)").count() == 2
    assert page.locator(".seat[data-seat='1'] .cardface.back").count() == 2
    page.click(".frac[data-frac='1']")  # a pot-sized raise: to 2 + (3 + 1) = 6
    assert page.input_value("#raise-amount") == "6"
    page.click(".frac[data-frac='all']")
    assert page.input_value("#raise-amount") == "200"
    for _ in range(12):  # check or call down; the station calls everything
        if page.inner_text("#result"):
            break
        click_and_wait(page, "#btn-call")
    result = page.inner_text("#result")
    assert "wins" in result or "split" in result
    assert page.locator(".seat[data-seat='1'] .cardface:not(.back)").count() == 2  # shown
    assert page.locator("#board .cardface").count() == 5
    assert page.is_visible("#btn-next")
    page.wait_for_selector("#history table.hands tr:nth-child(2)")
    href = page.get_attribute("#export-stars", "href") or ""
    assert href.endswith("format=pokerstars")
    shot(page, "play")
    click_and_wait(page, "#btn-next")
    assert page.inner_text("#street").startswith("Hand 2")


def test_an_illegal_amount_shows_the_engine_s_reason(page: Any, server: str) -> None:
    page.goto(server + "/play")
    page.wait_for_selector("#opponent option[value='station']", state="attached")
    page.select_option("#opponent", "station")
    click_and_wait(page, "#start")
    page.evaluate("document.getElementById('raise-amount').value = '3'")
    page.click("#btn-raise")
    page.wait_for_function("document.getElementById('error').textContent.length > 0")
    assert "between 4 and 200, not 3" in page.inner_text("#error")


def test_spectate_a_table_of_agents(page: Any, server: str) -> None:
    page.goto(server + "/spectate")
    page.wait_for_selector("#agent-b option[value='station']", state="attached")
    page.fill("#speed", "20")  # a range input takes a value like a text box
    click_and_wait(page, "#start")
    page.wait_for_function("document.querySelectorAll('#log div').length >= 2")
    assert page.locator(".seat .cardface:not(.back)").count() >= 2  # a broadcast shows cards
    shot(page, "spectate")


def test_study_the_spot_statistics(page: Any, server: str) -> None:
    page.goto(server + "/study")
    page.wait_for_selector("#spots tr:nth-child(2)")
    assert "32 decisions" in page.inner_text("#source")
    page.select_option("#filters select[data-column='street']", "preflop")
    page.click("#groups input[value='pot_type']")  # group by street only
    page.click("#show")
    page.wait_for_function("document.querySelectorAll('#spots tr').length === 2")
    assert page.inner_text("#spots tr:nth-child(2) td:first-child") == "preflop"
    shot(page, "study")


def test_fixed_limit_six_max_offers_the_one_legal_size(page: Any, server: str) -> None:
    page.goto(server + "/play")
    page.wait_for_selector("#opponent option[value='station']", state="attached")
    page.select_option("#opponent", "station")
    page.select_option("#table-size", "6")
    page.select_option("#betting", "fixed-limit")
    click_and_wait(page, "#start")
    assert page.locator(".seat").count() == 6
    assert page.is_hidden("#raise-box")  # no slider: the size is fixed
    assert page.inner_text("#btn-raise") == "Raise to 4"
    click_and_wait(page, "#btn-raise")
    assert "Hero raises to 4" in page.inner_text("#log")
    shot(page, "play-fixed-limit-6max")


def test_study_where_the_exploiter_earns_charts_and_reports(
    page: Any, server: str, preflop: Any
) -> None:
    page.goto(server + "/study")
    page.wait_for_selector("#edge-bars svg .edge-bar")
    assert page.locator("#edge-bars .edge-bar").count() == 16
    assert page.locator("#edge-table table.edge-spots tr").count() == 32  # 30 spots, head, total
    assert "against the population model" in page.inner_text("#edge-summary")
    page.select_option("#edge-field", "1")
    page.wait_for_function(
        "document.getElementById('edge-summary').textContent.includes('true pool')"
    )
    page.wait_for_function("document.querySelectorAll('#chart-shove .chart13-cell').length === 169")
    assert page.locator("#chart-call .chart13-cell").count() == 169
    assert page.get_attribute("#chart-shove [data-class='AA']", "data-value") == "1"
    assert page.get_attribute("#chart-shove [data-class='72o']", "data-value") == "0"
    assert page.inner_text("#chart-shove [data-class='AKs']").startswith("AKs")
    page.fill("#solver-depth", "20")  # a range input takes a value like a text box
    page.dispatch_event("#solver-depth", "change")
    page.wait_for_function("document.getElementById('solver').dataset.depth === '20'")
    page.wait_for_function("document.querySelectorAll('#ranges .chart13-cell').length === 507")
    assert page.get_attribute("#ranges", "data-shown") == "true pool|BTN vs CO open"
    page.wait_for_selector("#reports-list a")
    assert page.inner_text("#reports-list a") == "demo/report.html"
    shot(page, "study-edge-charts-reports")
    with page.context.expect_page() as opened:
        page.click("#reports-list a")
    report = opened.value
    report.wait_for_load_state()
    assert "the demo run" in report.inner_text("body")
    report.close()


def test_replay_a_real_hand_decision_by_decision(page: Any, server: str) -> None:
    page.goto(server + "/replay")
    page.wait_for_selector("#hand option[value='h0']", state="attached")
    click_and_wait(page, "#load")  # the first real hand: four players, a showdown
    assert page.inner_text("#counter") == "decision 1 of 10"
    assert page.input_value("#source") == "oracle"
    # the actor's range, fold / call / raise support, the range after, the model per class
    assert page.locator("#figure .grid13").count() == 8
    assert page.locator("#players .grid13").count() == 4  # every live player
    assert page.locator("#figure .grid13 >> nth=0").locator(".chart13-cell").count() == 169
    aa = page.locator("#players .grid13 >> nth=0").locator(".chart13-cell >> nth=0")
    assert aa.get_attribute("data-class") == "AA"
    assert aa.inner_text().strip() == "AA"
    assert "rgb(" in (aa.get_attribute("style") or "")
    page.keyboard.press("ArrowRight")  # keyboard steps
    page.wait_for_function("document.getElementById('counter').textContent === 'decision 2 of 10'")
    for _ in range(7):
        click_and_wait(page, "#next")
    assert page.inner_text("#counter") == "decision 9 of 10"
    assert page.locator("#board .cardface").count() == 5
    assert "checks" in page.inner_text("#action")
    assert "equity vs this range" in page.inner_text("#players")  # the shown 8s Ah acts
    shot(page, "replay")
    click_and_wait(page, "#next")
    assert page.is_disabled("#next")
    page.select_option("#source", "uniform")
    assert page.locator("#players .grid13").count() == 2  # two of four folded preflop
    page.click("#upload-box summary")
    page.fill("#upload-text", "PokerStars Hand #1: nonsense")
    page.click("#upload")
    page.wait_for_function("document.getElementById('error').textContent.length > 0")
    assert "malformed" in page.inner_text("#error")
    page.select_option("#hand", "s0")
    click_and_wait(page, "#load")
    assert page.input_value("#source") == "uniform"  # the chosen source stays
    page.select_option("#source", "exact")  # a simulated hand: the exact pool posterior
    assert page.locator("#figure .grid13").count() == 8
    shot(page, "replay-simulated")
