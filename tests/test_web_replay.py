"""The Replay page's API (FastAPI's TestClient): the catalogue, a replay with every source,
uploads good and bad, the size limits, unknown hands and the command's options."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from fastapi.testclient import TestClient
from typer.testing import CliRunner

import poolshark.web.server
from poolshark.cli import app as cli_app
from poolshark.oracle.model import CHECKPOINT_KIND as ORACLE_KIND
from poolshark.oracle.model import OracleNet
from poolshark.population import CHECKPOINT_KIND as MODEL_KIND
from poolshark.population.model import PopulationNet
from poolshark.web.app import create_app
from poolshark.web.replays import ReplayOptions
from poolshark.web.routes.replay import MAX_UPLOAD_CHARS
from poolshark.web.sessions import Limits

HANDS = Path(__file__).parent / "data" / "web" / "handhq_ps25_3hands.phhs"
"""Three real PokerStars hands (PHH), the first with a shown hand."""
STARS = Path(__file__).parent / "data" / "analysis" / "spots_hands.txt"


def tiny_checkpoints(folder: Path) -> tuple[Path, Path]:
    """A random-init range oracle and population model, saved as their trainers save them."""
    torch.manual_seed(0)
    oracle = OracleNet(hidden=16, preflop_width=16, combo_width=8, components=2)
    model = PopulationNet(width=16, depth=1, class_embedding=4, opponent_width=8)
    oracle_path, model_path = folder / "oracle.pt", folder / "model.pt"
    torch.save(
        {"kind": ORACLE_KIND, "hyperparameters": oracle.hyperparameters(),
         "model": oracle.state_dict()},
        oracle_path,
    )  # fmt: skip
    torch.save(
        {"kind": MODEL_KIND, "hyperparameters": model.hyperparameters(),
         "model": model.state_dict(), "range_source": "none"},
        model_path,
    )  # fmt: skip
    return oracle_path, model_path


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return tiny_checkpoints(tmp_path_factory.mktemp("replay-checkpoints"))


@pytest.fixture(scope="module")
def api(checkpoints: tuple[Path, Path]) -> Iterator[TestClient]:
    oracle, model = checkpoints
    options = ReplayOptions(histories=HANDS, oracle=oracle, model=model, simulated=2)
    with TestClient(create_app(Limits(max_body_bytes=16_384), replay_options=options)) as client:
        yield client


def error(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    detail: str = response.json()["detail"]
    return detail


def test_the_catalogue_lists_the_operator_s_hands_and_simulated_ones(api: TestClient) -> None:
    listing = api.get("/api/replay/hands").json()
    assert listing["sources"] == ["uniform", "oracle", "model", "exact"]
    assert listing["has_model"] is True
    kinds = [(h["id"], h["kind"], h["players"]) for h in listing["hands"]]
    assert kinds == [("h0", "history", 4), ("h1", "history", 9), ("h2", "history", 3),
                     ("s0", "simulated", 6), ("s1", "simulated", 6)]  # fmt: skip
    assert "#59937794410" in listing["hands"][0]["title"]
    assert not any("/" in h["title"] for h in listing["hands"])  # no paths go out


def test_a_real_hand_replays_with_every_source_but_the_exact_one(api: TestClient) -> None:
    replay = api.get("/api/replay/hands/h0").json()
    assert replay["sources"] == ["uniform", "oracle", "model"]  # no pool: no exact posterior
    decisions = replay["decisions"]
    assert len(decisions) == 10  # p3 f, p4 cbr, p1 f, p2 cc, then two checks a street
    first = decisions[0]
    assert (first["street"], first["pot"], first["action"]) == (
        "preflop",
        35,
        f"{replay['seats'][2]['name']} folds",
    )
    assert first["legal"] == {"can_fold": True, "can_check": False, "call": 25,
                              "min_raise_to": 50, "max_raise_to": 1635}  # fmt: skip
    assert [p["seat"] for p in first["players"]] == [0, 1, 2, 3]
    for view in decisions:
        for player in view["players"]:
            assert set(player["ranges"]) == {"uniform", "oracle", "model"}
            assert all(len(chart) == 169 for chart in player["ranges"].values())
        assert set(view["breakdown"]) == {"uniform", "oracle", "model"}
        assert set(view["policy"]) == {"fold", "call", "raise"}
    river = decisions[-1]
    assert river["board"] == "4d Qs 4s 9h Ad"
    shown = next(p for p in river["players"] if p["cards"])  # p2 showed 8s Ah
    assert shown["cards"] == "8s Ah"
    # the actor with known cards gets its equity against every other live player
    mine = [v for v in decisions if v["actor"] == shown["seat"]]
    assert mine
    assert all(
        set(p["actor_equity"]) == {"uniform", "oracle", "model"}
        for v in mine
        for p in v["players"]
        if p["seat"] != v["actor"]
    )


def test_a_simulated_hand_has_the_exact_pool_posterior(api: TestClient) -> None:
    replay = api.get("/api/replay/hands/s0").json()
    assert replay["sources"] == ["uniform", "oracle", "model", "exact"]
    assert all(s["cards"] for s in replay["seats"])  # a simulation knows every card
    assert "(" in replay["seats"][0]["name"]  # player (style)
    assert all("exact" in v["breakdown"] for v in replay["decisions"])


def test_uploads_parse_with_the_ingestion_readers(api: TestClient) -> None:
    answer = api.post("/api/replay/upload", json={"text": STARS.read_text()})
    assert answer.status_code == 201, answer.text
    hands = answer.json()["hands"]
    assert len(hands) >= 2
    assert all(h["kind"] == "history" for h in hands)
    replay = api.get(f"/api/replay/hands/{hands[0]['id']}").json()
    assert [s["name"] for s in replay["seats"]] == ["Alice", "Bob", "Carl"]
    assert replay["decisions"][0]["action"] == "Alice calls 10"
    assert [d["action"] for d in replay["decisions"][3:6]] == [
        "Bob checks", "Carl checks", "Alice bets 10"
    ]  # fmt: skip
    listed = {h["id"] for h in api.get("/api/replay/hands").json()["hands"]}
    assert {h["id"] for h in hands} <= listed


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("   \n", "no hand found"),
        ("PokerStars Hand #1: nonsense\nmore nonsense\n", "hand 1 (line 1): malformed"),
        (HANDS.read_text().replace("'p3 f', 'p4 cbr 0.75'", "'p3 f', 'p4 cbr 99'", 1),
         "hand 1 (line 1): replay-illegal"),
    ],
)  # fmt: skip
def test_a_bad_upload_gets_the_reader_s_message(api: TestClient, text: str, message: str) -> None:
    assert message in error(api.post("/api/replay/upload", json={"text": text}), 422)


def test_uploads_are_size_limited(api: TestClient) -> None:
    too_long = "x" * (MAX_UPLOAD_CHARS + 1)
    assert "at most 15000 characters" in error(
        api.post("/api/replay/upload", json={"text": too_long}), 422
    )
    huge = "x" * 20_000
    assert "over 16384 bytes" in error(api.post("/api/replay/upload", json={"text": huge}), 413)
    extra = api.post("/api/replay/upload", json={"text": "a", "path": "/etc"})
    assert "body.path: Extra inputs are not permitted" in error(extra, 422)


def test_unknown_hands_and_bad_ids(api: TestClient) -> None:
    assert "no hand 'h99'" in error(api.get("/api/replay/hands/h99"), 404)
    assert "hand_id" in error(api.get("/api/replay/hands/h0.phhs"), 422)
    assert "hand_id" in error(api.get("/api/replay/hands/" + "a" * 41), 422)


def test_a_replay_that_fails_answers_json(api: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    replays = api.app.state.web.replays  # type: ignore[attr-defined]
    replays.views.pop("h2", None)

    def broken(hand: Any) -> Any:
        raise RuntimeError("checkpoint and hand disagree")

    monkeypatch.setattr(replays, "compute", broken)
    detail = error(api.get("/api/replay/hands/h2"), 500)
    assert detail == "the replay of hand 'h2' failed: checkpoint and hand disagree"


def test_the_page_is_served(api: TestClient) -> None:
    page = api.get("/replay")
    assert page.status_code == 200
    assert "/static/replay.js" in page.text
    assert api.get("/static/replay.js").status_code == 200
    assert api.get("/static/replay.css").status_code == 200


def test_without_options_replay_offers_simulated_hands_and_the_uniform_deal() -> None:
    with TestClient(create_app(replay_options=ReplayOptions(simulated=1))) as client:
        listing = client.get("/api/replay/hands").json()
        assert listing["sources"] == ["uniform", "exact"]
        assert not listing["has_model"]
        replay = client.get("/api/replay/hands/s0").json()
        assert replay["decisions"][0]["breakdown"] == {}
        assert replay["decisions"][0]["policy"] is None


def test_the_command_checks_the_replay_options(
    monkeypatch: pytest.MonkeyPatch, checkpoints: tuple[Path, Path], tmp_path: Path
) -> None:
    served: dict[str, Any] = {}

    def fake_serve(host: str, port: int, **options: Any) -> None:
        served.update(options)

    monkeypatch.setattr(poolshark.web.server, "serve", fake_serve)
    runner = CliRunner()
    oracle, model = checkpoints
    args = ["web", "--replay-histories", str(HANDS), "--replay-oracle", str(oracle),
            "--replay-model", str(model), "--replay-pool", "soft"]  # fmt: skip
    result = runner.invoke(cli_app, args)
    assert result.exit_code == 0, result.output
    assert served["replay_options"] == ReplayOptions(
        histories=HANDS, pool="soft", oracle=oracle, model=model
    )
    missing = runner.invoke(cli_app, ["web", "--replay-oracle", str(tmp_path / "no.pt")])
    assert missing.exit_code != 0
    assert "--replay-oracle" in missing.output
    unknown = runner.invoke(cli_app, ["web", "--replay-pool", "no-such-pool"])
    assert unknown.exit_code != 0
    assert "no-such-pool" in unknown.output
