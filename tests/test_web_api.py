"""The web API through FastAPI's TestClient: every endpoint, the engine's referee, the
limits, the exports read back by the ingestion readers, and bad input of every kind."""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("fastapi", reason="fastapi is not installed (pip install -e '.[dev]')")
pytest.importorskip("httpx", reason="httpx is not installed (pip install -e '.[dev]')")

from fastapi.testclient import TestClient
from typer.testing import CliRunner

import poolshark.web.server
from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import Decisions, Moves
from poolshark.cli import app as cli_app
from poolshark.cli.web import parse_agents
from poolshark.engine.config import Betting
from poolshark.engine.table import Move
from poolshark.histories.ingest import ingest
from poolshark.histories.phh import parse_phh
from poolshark.histories.replay import replay
from poolshark.histories.split import parse_hand, split_hands
from poolshark.web.app import create_app
from poolshark.web.batcher import Batcher
from poolshark.web.catalogue import AgentCatalogue
from poolshark.web.hall import Hall
from poolshark.web.server import exposure_warning
from poolshark.web.sessions import Limits, SessionError, SessionStore, game_config

View = dict[str, Any]


class FakeClock:
    """Seconds that pass only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def client_for(limits: Limits, **kwargs: Any) -> tuple[TestClient, FakeClock]:
    app = create_app(limits, **kwargs)
    clock = FakeClock()
    app.state.web.store.clock = clock
    return TestClient(app), clock


@pytest.fixture
def api() -> Iterator[TestClient]:
    client, _ = client_for(Limits(max_sessions=4, max_body_bytes=2048, max_hands=50))
    with client:
        yield client


def start(api: TestClient, **body: Any) -> View:
    response = api.post("/api/play", json=body)
    assert response.status_code == 201, response.text
    view: View = response.json()
    return view


def call_down(api: TestClient, view: View) -> View:
    """Check or call until the hand is over."""
    while not view["hand_over"]:
        move = "call" if view["legal"]["call"] else "check"
        response = api.post(f"/api/play/{view['id']}/act", json={"move": move})
        assert response.status_code == 200, response.text
        view = response.json()
    return view


def error(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    detail: str = response.json()["detail"]
    return detail


# -- meta ------------------------------------------------------------------------------------


def test_agents_lists_names_never_paths(api: TestClient) -> None:
    names = {a["name"] for a in api.get("/api/agents").json()}
    assert {"random", "station", "tag", "style:nit", "pool:soft"} <= names
    assert not any("/" in name or name.endswith((".pt", ".toml")) for name in names)


def test_limits_and_health(api: TestClient) -> None:
    assert api.get("/api/limits").json()["max_sessions"] == 4
    health = api.get("/api/health").json()
    assert (health["ok"], health["sessions"]) == (True, 0)


def test_pages_and_static_files_are_served(api: TestClient) -> None:
    for path in ("/", "/play", "/spectate", "/study"):
        response = api.get(path)
        assert response.status_code == 200
        assert "<title>poolshark" in response.text
    assert "renderTable" in api.get("/static/common.js").text


# -- play --------------------------------------------------------------------------------------


def test_a_hand_against_a_station_is_chip_exact_to_showdown(api: TestClient) -> None:
    view = start(api, opponents=["station"])
    hero, villain = view["seats"]
    assert len(hero["cards"]) == 2
    assert villain["cards"] is None
    assert view["pot"] == 3
    assert view["legal"]["call"] == 1
    view = call_down(api, view)
    assert view["result"]["showdown"]
    assert all(len(seat["cards"]) == 2 for seat in view["seats"])  # shown at showdown
    net = view["result"]["net"]
    assert sum(net) == 0
    assert [s["stack"] for s in view["seats"]] == [200 + n for n in net]
    assert [s["session_net"] for s in view["seats"]] == net
    hands = api.get(f"/api/sessions/{view['id']}/hands").json()
    assert hands == [{"hand": "1", "board": hands[0]["board"], "net": net}]
    assert len(hands[0]["board"].split()) == 5


def test_legal_raises_are_accepted_and_illegal_ones_refused(api: TestClient) -> None:
    view = start(api, opponents=["station"])
    sid = view["id"]
    assert view["legal"] == {
        "fold": True,
        "check": False,
        "call": 1,
        "min_raise_to": 4,
        "max_raise_to": 200,
        "current_bet": 2,
        "fixed_limit": False,
    }
    act = f"/api/play/{sid}/act"
    assert "cannot check: 1 to call" in error(api.post(act, json={"move": "check"}), 422)
    assert "between 4 and 200, not 3" in error(
        api.post(act, json={"move": "raise", "amount": 3}), 422
    )
    assert "not 201" in error(api.post(act, json={"move": "raise", "amount": 201}), 422)
    assert "needs an amount" in error(api.post(act, json={"move": "raise"}), 422)
    view = api.post(act, json={"move": "raise", "amount": 7}).json()  # the station calls
    assert view["street"] == "flop"
    assert view["pot"] == 14
    assert view["log"][:2] == [
        {"seat": 0, "street": "preflop", "text": "Hero raises to 7"},
        {"seat": 1, "street": "preflop", "text": "station_1 calls 5"},
    ]
    assert view["legal"]["check"]  # the station checked the flop to the button
    assert "folding is not allowed" in error(api.post(act, json={"move": "fold"}), 422)
    assert "nothing to call" in error(api.post(act, json={"move": "call"}), 422)
    view = api.post(act, json={"move": "raise", "amount": 193}).json()  # all-in
    assert view["hand_over"]
    assert view["result"]["showdown"]
    assert sum(view["result"]["net"]) == 0
    assert abs(view["result"]["net"][0]) in (0, 200)
    assert "hand is over" in error(api.post(act, json={"move": "check"}), 409)


def test_fixed_limit_raises_are_the_fixed_size(api: TestClient) -> None:
    view = start(api, opponents=["station"], betting="fixed-limit")
    act = f"/api/play/{view['id']}/act"
    assert view["legal"]["min_raise_to"] == view["legal"]["max_raise_to"] == 4
    assert "exactly 4, not 6" in error(api.post(act, json={"move": "raise", "amount": 6}), 422)
    view = api.post(act, json={"move": "raise"}).json()  # the amount is implied
    assert view["pot"] == 8
    assert view["street"] == "flop"
    view = api.post(act, json={"move": "raise"}).json()  # a flop bet is the small bet: 2
    assert view["pot"] == 12
    assert view["street"] == "turn"
    view = api.post(act, json={"move": "raise"}).json()  # the turn's big bet: 4
    assert view["pot"] == 20


def test_a_six_max_session_deals_hand_after_hand(api: TestClient) -> None:
    view = start(api, opponents=["style:nit"], seats=6)
    assert len(view["seats"]) == 6
    assert sum(seat["cards"] is not None for seat in view["seats"]) == 1
    for hand in range(1, 4):
        view = call_down(api, view)
        assert sum(view["result"]["net"]) == 0
        assert view["hand"] == hand
        view = api.post(f"/api/play/{view['id']}/next").json()
    assert [s["button"] for s in view["seats"]].index(True) == 3  # one seat on per hand
    assert len(api.get(f"/api/sessions/{view['id']}/hands").json()) == 3


def test_one_opponent_per_seat(api: TestClient) -> None:
    view = start(api, opponents=["tag", "station", "random", "style:lag", "pool:soft"], seats=6)
    assert [s["agent"] for s in view["seats"]] == [
        None,
        "tag",
        "station",
        "random",
        "style:lag",
        "pool:soft",
    ]


def test_the_next_hand_waits_for_this_one_and_the_session_limit(api: TestClient) -> None:
    view = start(api, opponents=["station"], max_hands=2)
    sid = view["id"]
    assert "not over" in error(api.post(f"/api/play/{sid}/next"), 409)
    view = call_down(api, view)
    view = call_down(api, api.post(f"/api/play/{sid}/next").json())
    assert "played its 2 hands" in error(api.post(f"/api/play/{sid}/next"), 409)


def test_exports_read_back_through_the_ingestion_readers(api: TestClient) -> None:
    view = start(api, opponents=["tag"], seats=6)
    for _ in range(4):
        view = call_down(api, view)
        view = api.post(f"/api/play/{view['id']}/next").json()
    stars = api.get(f"/api/sessions/{view['id']}/export?format=pokerstars")
    assert stars.status_code == 200
    assert "attachment" in stars.headers["content-disposition"]
    records = [parse_hand(raw) for raw in split_hands(io.BytesIO(stars.content))]
    assert len(records) == view["hands_played"] >= 4
    for record in records:
        replay(record)  # the judge of ingestion: every chip must add up
        assert record.seats[0].player == "Hero"
        assert record.hero == 0
    phh = api.get(f"/api/sessions/{view['id']}/export", params={"format": "phh"}).text
    parsed = [parse_phh(block) for block in phh.split("\n\n") if block.strip()]
    assert [r.winnings for r in parsed] == [r.winnings for r in records]
    assert "query.format: Input should be 'pokerstars' or 'phh'" in error(
        api.get(f"/api/sessions/{view['id']}/export?format=csv"), 422
    )


def test_closing_a_session_frees_its_table(api: TestClient) -> None:
    sid = start(api)["id"]
    assert api.delete(f"/api/sessions/{sid}").status_code == 204
    assert "no session" in error(api.get(f"/api/sessions/{sid}/hands"), 404)
    assert "no play session" in error(api.get(f"/api/play/{sid}"), 404)


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"opponents": ["nobody"]}, "unknown agent 'nobody'"),
        ({"opponents": ["../../etc/passwd"]}, "unknown agent"),
        ({"opponents": ["poolshark.web.app:create_app"]}, "unknown agent"),
        ({"opponents": ["runs/x/best.pt"]}, "unknown agent"),
        ({"seats": 3}, "body.seats"),
        ({"betting": "pot-limit"}, "body.betting"),
        ({"stack_bb": 5}, "body.stack_bb"),
        ({"opponents": []}, "body.opponents"),
        ({"opponents": ["tag", "tag"], "seats": 6}, "one opponent for every seat or 5"),
        ({"name": "<script>"}, "body.name"),
        ({"surprise": 1}, "body.surprise"),
        ({"opponents": ["tag"], "betting": "fixed-limit"}, "cannot play 2-seat fixed-limit"),
    ],
)
def test_bad_session_requests_say_what_is_wrong(
    api: TestClient, body: dict[str, Any], words: str
) -> None:
    assert words in error(api.post("/api/play", json=body), 422)
    assert api.get("/api/health").json()["sessions"] == 0


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"move": "shove"}, "body.move"),
        ({"move": "raise", "amount": -4}, "body.amount"),
        ({"move": "raise", "amount": 4.5}, "body.amount"),
        ({"move": "raise", "amount": "lots"}, "body.amount"),
        ({}, "body.move"),
    ],
)
def test_bad_actions_say_what_is_wrong(api: TestClient, body: dict[str, Any], words: str) -> None:
    sid = start(api, opponents=["station"])["id"]
    assert words in error(api.post(f"/api/play/{sid}/act", json=body), 422)


def test_malformed_json_and_unknown_sessions(api: TestClient) -> None:
    sid = start(api, opponents=["station"])["id"]
    garbled = api.post(
        f"/api/play/{sid}/act", content=b"{move", headers={"content-type": "application/json"}
    )
    assert "JSON" in error(garbled, 422)
    assert "no play session 'nope'" in error(
        api.post("/api/play/nope/act", json={"move": "check"}), 404
    )
    assert "string_pattern_mismatch" in api.get("/api/play/bad%20id!").text
    spectate = api.post("/api/spectate", json={"agents": ["station"]}).json()["id"]
    assert "no play session" in error(api.get(f"/api/play/{spectate}"), 404)


def test_oversized_bodies_are_refused(api: TestClient) -> None:
    big = {"move": "check", "padding": "x" * 5000}
    assert "over 2048 bytes" in error(api.post("/api/play/abc/act", json=big), 413)

    def chunks() -> Iterator[bytes]:
        yield b'{"move": "check", "x": "'
        for _ in range(10):
            yield b"y" * 500
        yield b'"}'

    streamed = api.post("/api/play/abc/act", content=chunks())
    assert streamed.status_code == 413


def test_too_many_sessions_get_a_503_and_idle_ones_expire() -> None:
    client, clock = client_for(Limits(max_sessions=2, idle_seconds=60))
    with client:
        first = start(client, opponents=["station"])["id"]
        clock.now += 30
        start(client, opponents=["station"])
        full = client.post("/api/play", json={"opponents": ["station"]})
        assert "server is full (2 sessions)" in error(full, 503)
        assert full.headers["retry-after"] == "30"
        clock.now += 31  # the first session has been idle for 61 s
        start(client, opponents=["station"])
        assert "may have expired" in error(client.get(f"/api/play/{first}"), 404)
        assert client.get("/api/health").json()["expired"] == 1


def test_a_failing_agent_ends_its_session_with_a_500() -> None:
    """An agent that plays the first decision (the probe) but fails later."""
    module = types.ModuleType("web_test_agents")

    class Brittle:
        def __init__(self) -> None:
            self.calls = 0

        def act(self, decisions: Decisions) -> Moves:
            self.calls += 1
            if self.calls > 1:
                raise ValueError("brittle gave up")
            return Moves(np.ones(decisions.size, dtype=np.int64))

    module.Brittle = Brittle  # type: ignore[attr-defined]
    sys.modules["web_test_agents"] = module
    try:
        client, _ = client_for(Limits(), agents={"brittle": "web_test_agents:Brittle"})
        with client:
            view = start(client, opponents=["brittle"])
            response = client.post(f"/api/play/{view['id']}/act", json={"move": "call"})
            assert "brittle gave up" in error(response, 500)
            assert client.get("/api/health").json()["sessions"] == 0
    finally:
        del sys.modules["web_test_agents"]


# -- spectate ----------------------------------------------------------------------------------


def test_spectating_moves_at_the_chosen_speed() -> None:
    client, clock = client_for(Limits())
    with client:
        view = client.post(
            "/api/spectate", json={"agents": ["tag", "station"], "actions_per_second": 2}
        ).json()
        sid = view["id"]
        assert all(len(seat["cards"]) == 2 for seat in view["seats"])  # a broadcast shows all
        assert view["log"] == []
        assert view["speed"] == 2
        clock.now += 1.0  # two actions due
        view = client.get(f"/api/spectate/{sid}").json()
        moved = len(view["log"]) + 10 * view["hands_played"]
        assert 1 <= moved <= 2 or view["hand"] > 1
        paused = client.post(f"/api/spectate/{sid}/speed", json={"actions_per_second": 0}).json()
        clock.now += 100
        again = client.get(f"/api/spectate/{sid}").json()
        assert (again["hand"], again["log"]) == (paused["hand"], paused["log"])
        stepped = client.post(f"/api/spectate/{sid}/step").json()
        assert (stepped["hand"], len(stepped["log"])) != (again["hand"], len(again["log"]))
        client.post(f"/api/spectate/{sid}/speed", json={"actions_per_second": 50})
        for _ in range(5):
            clock.now += 10  # a rare poll catches up a bounded number of actions
            view = client.get(f"/api/spectate/{sid}").json()
        assert view["hands_played"] >= 2
        stars = client.get(f"/api/sessions/{sid}/export?format=pokerstars").text
        assert len(list(split_hands(io.BytesIO(stars.encode())))) == view["hands_played"]
        assert "body.actions_per_second" in error(
            client.post(f"/api/spectate/{sid}/speed", json={"actions_per_second": 99}), 422
        )
        assert "every seat or 6 of them" in error(
            client.post("/api/spectate", json={"agents": ["tag"] * 4, "seats": 6}), 422
        )


# -- batching, the engine mirror, the command line -------------------------------------------


def test_agents_decide_for_many_sessions_in_one_call() -> None:
    """Six 6-max sessions against ``tag`` open with three agents to act before the person
    (the button deals the first hand): gathered, each round is one ``act`` for all six."""
    store = SessionStore(Limits(max_sessions=8), load_agent)
    batcher = Batcher()

    async def open_all() -> None:
        sessions = [
            store.open(
                "play",
                [None, "tag", "tag", "tag", "tag", "tag"],
                ["Hero", "a", "b", "c", "d", "e"],
                seats=6,
                betting=Betting.NO_LIMIT,
                stack_bb=100,
                max_hands=None,
            )
            for _ in range(6)
        ]
        await asyncio.gather(*(batcher.run(s) for s in sessions))

    asyncio.run(open_all())
    calls, decisions = store.agent_counts()["tag"]
    assert decisions >= 18  # seats 3, 4, 5 act before the person at every table
    assert calls <= decisions / 6 + 1  # a round's decisions go in one call (plus the probe)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), choices=st.lists(st.floats(0, 1), min_size=60, max_size=60))
def test_any_legal_play_keeps_the_engine_and_its_mirror_equal(
    seed: int, choices: list[float]
) -> None:
    """A person's random legal actions against random agents, 6-max no-limit: the batched
    engine and the readable table agree after every step (``Hall`` checks) and every hand's
    results sum to zero."""
    hall = Hall(game_config(6, Betting.NO_LIMIT), 2, load_agent, seed=seed)
    slot = hall.open_table([None, "random", "random", "station", "random", "random"])
    hall.deal(slot, [200] * 6, seed % 6)
    for u in choices:
        if hall.to_act(slot) < 0:
            assert sum(hall.mirror(slot).result.net) == 0  # type: ignore[union-attr]
            hall.deal(slot, [200] * 6, (seed + len(choices)) % 6)
        elif hall.agent_to_act(slot):
            hall.agent_step([slot])
        else:
            legal = hall.mirror(slot).legal()
            if u < 0.2 and legal.can_fold:
                hall.person_act(slot, Move.FOLD)
            elif u < 0.6 or legal.min_raise_to is None or legal.max_raise_to is None:
                hall.person_act(slot, Move.CHECK_CALL)
            else:
                span = legal.max_raise_to - legal.min_raise_to
                hall.person_act(
                    slot, Move.RAISE, legal.min_raise_to + round(span * (u - 0.6) / 0.4)
                )


def test_the_catalogue_refuses_bad_operator_names() -> None:
    with pytest.raises(ValueError, match="taken by a built-in"):
        AgentCatalogue({"tag": "station"})
    with pytest.raises(ValueError, match="use letters"):
        AgentCatalogue({"a b": "station"})
    assert "mine" in AgentCatalogue({"mine": "station"})


def test_agent_options_and_the_exposure_warning() -> None:
    assert parse_agents(["pop = runs/x.pt", "b=tag"]) == {"pop": "runs/x.pt", "b": "tag"}
    with pytest.raises(ValueError, match="NAME=SPEC"):
        parse_agents(["runs/x.pt"])
    with pytest.raises(ValueError, match="twice"):
        parse_agents(["a=tag", "a=station"])
    for host in ("127.0.0.1", "localhost", "::1", "127.0.0.2"):
        assert exposure_warning(host) is None
    for host in ("0.0.0.0", "192.168.1.5", "::", "example.org"):
        assert "warning: listening on" in (exposure_warning(host) or "")


def test_the_command_line_starts_without_fastapi() -> None:
    probe = (
        "import sys, poolshark.cli; "
        "print(sorted({'fastapi', 'uvicorn', 'starlette', 'torch'} & set(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


# -- study -------------------------------------------------------------------------------------

STUDY_HANDS = Path(__file__).parent / "data" / "analysis" / "spots_hands.txt"


@pytest.fixture(scope="module")
def study_rows(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("web-study") / "rows"
    assert ingest([STUDY_HANDS], out, workers=1, backend="serial").rows == 32
    return out


def test_study_without_rows_says_how_to_give_them(api: TestClient) -> None:
    assert "--study-rows" in error(api.get("/api/study/options"), 404)
    assert "--study-rows" in error(api.get("/api/study/spots"), 404)


def test_study_serves_the_spot_statistics_of_the_operator_s_rows(study_rows: Path) -> None:
    client, _ = client_for(Limits(), study_rows=study_rows)
    with client:
        options = client.get("/api/study/options").json()
        assert (options["folder"], options["decisions"]) == ("rows", 32)
        assert "pot_type" in options["columns"]
        assert options["values"]["street"] == ["preflop", "flop", "turn", "river"]
        table = client.get("/api/study/spots").json()
        assert table["by"] == ["street", "pot_type"]
        decisions = table["columns"].index("n_decisions")
        assert sum(row[decisions] for row in table["rows"]) == 32
        preflop = client.get("/api/study/spots", params={"by": "street", "street": "preflop"})
        assert [row[0] for row in preflop.json()["rows"]] == ["preflop"]
        fold = preflop.json()["columns"].index("fold")
        assert 0 <= preflop.json()["rows"][0][fold] <= 1
        everything = client.get("/api/study/spots", params={"by": ""}).json()
        assert everything["rows"][0][everything["columns"].index("n_decisions")] == 32
        assert "unknown spot columns ['hero']" in error(
            client.get("/api/study/spots", params={"by": "street,hero"}), 422
        )
        assert "unknown street 'preflopp'" in error(
            client.get("/api/study/spots", params={"street": "preflopp"}), 422
        )
        assert "query.position" in error(
            client.get("/api/study/spots", params={"position": "../etc"}), 422
        )
        assert "query.weighting" in error(
            client.get("/api/study/spots", params={"weighting": "hands"}), 422
        )
        assert client.get("/study").status_code == 200


# -- the command -------------------------------------------------------------------------------


def test_poolshark_web_passes_its_options_and_warns_off_loopback(
    monkeypatch: pytest.MonkeyPatch, study_rows: Path
) -> None:
    served: dict[str, Any] = {}

    def fake_serve(host: str, port: int, **options: Any) -> None:
        served.update(options, host=host, port=port)

    monkeypatch.setattr(poolshark.web.server, "serve", fake_serve)
    args = ["web", "--host", "0.0.0.0", "--port", "8123", "--max-sessions", "3"]
    args += ["--idle-minutes", "2", "--agent", "mine=station", "--study-rows", str(study_rows)]
    args += ["--torch-threads", "2"]
    result = CliRunner().invoke(cli_app, args)
    assert result.exit_code == 0, result.output
    assert "warning: listening on 0.0.0.0" in result.output
    assert (served["host"], served["port"], served["agents"]) == (
        "0.0.0.0",
        8123,
        {"mine": "station"},
    )
    assert served["limits"] == Limits(max_sessions=3, idle_seconds=120)
    assert served["study_rows"] == study_rows
    assert served["torch_threads"] == 2
    quiet = CliRunner().invoke(cli_app, ["web"])
    assert "warning" not in quiet.output
    assert served["host"] == "127.0.0.1"
    assert served["torch_threads"] == 1


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--agent", "runs/x.pt"], "NAME=SPEC"),
        (["--study-rows", "/no/such/rows"], "is not a folder"),
        (["--max-sessions", "0"], "--max-sessions"),
    ],
)
def test_poolshark_web_refuses_bad_options(args: list[str], words: str) -> None:
    result = CliRunner().invoke(cli_app, ["web", *args])
    assert result.exit_code == 2
    assert words in result.output


def test_a_waiter_never_hangs_on_a_closed_session_or_a_broken_table() -> None:
    store = SessionStore(Limits(), load_agent)
    batcher = Batcher()
    session = store.open(
        "play",
        [None, "tag", "tag", "tag", "tag", "tag"],
        ["Hero", "a", "b", "c", "d", "e"],
        seats=6,
        betting=Betting.NO_LIMIT,
        stack_bb=100,
        max_hands=None,
    )
    store.close(session.id)
    with pytest.raises(SessionError, match="closed"):
        asyncio.run(batcher.run(session))

    class BrokenHall:
        def agent_to_act(self, slot: int) -> bool:
            raise RuntimeError("broken table")

    broken: Any = types.SimpleNamespace(closed=False, hall=BrokenHall(), slot=0)
    with pytest.raises(RuntimeError, match="broken table"):
        asyncio.run(batcher.run(broken))
    assert batcher.waiting == []


def test_adaptive_agents_learn_the_hands_they_play_in_the_hall() -> None:
    """The hall shows each finished hand to the agents at the table (``hands_ended``), as
    matches do, so Vexbot's model counts every hand played against it."""
    hall = Hall(game_config(2, Betting.FIXED_LIMIT), 1, load_agent, seed=3)
    slot = hall.open_table(["vexbot", "station"])
    played = 0
    while played < 12:
        hall.deal(slot, [200, 200], played % 2)
        while hall.to_act(slot) >= 0:
            hall.agent_step([slot])
        played += 1
    vexbot = hall.agents["vexbot"].agent
    assert vexbot.hands_learned == played  # type: ignore[attr-defined]
