"""Spots over decision rows: hand-computed counts on four handmade PokerStars hands
(tests/data/analysis/spots_hands.txt: a limped pot, a single-raised pot, a 3-bet pot, a
heads-up 4-bet), decision- against player-weighted rates, filters, SQL, the CLI, and
invariants on the real sample."""

from __future__ import annotations

import json
import math
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from poolshark.analysis.spots import (
    ACTION_COLUMNS,
    SPOT_COLUMNS,
    SpotFilter,
    bucket_labels,
    query_rows,
    spot_table,
    wilson_bounds,
    with_spots,
)
from poolshark.cli import app
from poolshark.histories.ingest import ingest, scan_rows
from poolshark.histories.rows import anonymize
from poolshark.pool.stats import wilson_interval

HANDS = Path(__file__).parent / "data" / "analysis" / "spots_hands.txt"
SAMPLE = Path(__file__).parents[2] / "shared" / "data" / "handhq-ps25"
runner = CliRunner()


def player(name: str) -> str:
    return anonymize("PokerStars", name)


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("spots") / "rows"
    summary = ingest([HANDS], out, workers=1, backend="serial")
    assert summary.parsed == 4
    assert summary.rows == 32
    return out


@pytest.fixture(scope="module")
def spotted(ingested: Path) -> pl.DataFrame:
    return with_spots(scan_rows(ingested))


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not SAMPLE.is_dir():
        pytest.skip(f"the real PHH sample is not here: {SAMPLE}")
    out = tmp_path_factory.mktemp("real") / "rows"
    ingest([SAMPLE], out, workers=1, backend="serial")
    return out


# (hand, action_index) -> (relative_position, pot_type, players_in_pot, depth, facing),
# worked out by hand from the histories.
EXPECTED = {
    (1, 0): ("IP", "unopened", 3, "80-125", "none"),  # BTN limps
    (1, 1): ("OOP", "limped", 3, "80-125", "none"),  # SB completes: blinds are no bet
    (1, 2): ("OOP", "limped", 3, "80-125", "none"),
    (1, 3): ("OOP", "limped", 3, "80-125", "none"),
    (1, 4): ("OOP", "limped", 3, "80-125", "none"),
    (1, 5): ("IP", "limped", 3, "80-125", "none"),  # BTN bets 1/3 pot
    (1, 6): ("OOP", "limped", 3, "80-125", "<0.4"),
    (1, 7): ("OOP", "limped", 2, "80-125", "<0.4"),
    (1, 8): ("OOP", "limped", 2, "80-125", "none"),
    (1, 9): ("IP", "limped", 2, "80-125", "none"),
    (1, 10): ("OOP", "limped", 2, "80-125", "none"),  # BB bets pot on the river
    (1, 11): ("IP", "limped", 2, "80-125", "0.8-1.2"),
    (2, 0): ("OOP", "unopened", 4, "80-125", "none"),  # CO opens, BTN behind
    (2, 1): ("IP", "single-raised", 4, "80-125", "0.4-0.8"),  # open = 0.6 pot
    (2, 2): ("OOP", "single-raised", 4, "80-125", "0.4-0.8"),
    (2, 3): ("OOP", "single-raised", 3, "80-125", "0.4-0.8"),
    (2, 4): ("OOP", "single-raised", 3, "80-125", "none"),
    (2, 5): ("OOP", "single-raised", 3, "80-125", "none"),  # CO bets half pot
    (2, 6): ("IP", "single-raised", 3, "80-125", "0.4-0.8"),  # BTN raises 0.75 pot
    (2, 7): ("OOP", "single-raised", 3, "80-125", "0.4-0.8"),
    (2, 8): ("OOP", "single-raised", 2, "80-125", "0.4-0.8"),
    (3, 0): ("IP", "unopened", 3, "80-125", "none"),
    (3, 1): ("OOP", "single-raised", 3, "80-125", "0.4-0.8"),  # SB 3-bets 1.08 pot
    (3, 2): ("IP", "3-bet", 3, "80-125", "0.8-1.2"),  # the BB acts after the SB
    (3, 3): ("IP", "3-bet", 2, "80-125", "0.8-1.2"),
    (3, 4): ("OOP", "3-bet", 2, "80-125", "none"),
    (3, 5): ("IP", "3-bet", 2, "80-125", "0.4-0.8"),  # BTN shoves
    (3, 6): ("OOP", "3-bet", 2, "80-125", "all-in"),
    (4, 0): ("IP", "unopened", 2, "20-40", "none"),  # heads-up, 30 bb effective
    (4, 1): ("OOP", "single-raised", 2, "20-40", "0.4-0.8"),
    (4, 2): ("IP", "3-bet", 2, "20-40", "0.8-1.2"),
    (4, 3): ("OOP", "4-bet+", 2, "20-40", "all-in"),
}


def test_every_row_gets_the_spot_worked_out_by_hand(spotted: pl.DataFrame) -> None:
    assert set(SPOT_COLUMNS) <= set(spotted.columns)
    got = {
        (int(r["hand_id"][-1]), r["action_index"]): (
            r["relative_position"],
            r["pot_type"],
            r["players_in_pot"],
            r["depth"],
            r["facing"],
        )
        for r in spotted.iter_rows(named=True)
    }
    assert got == EXPECTED
    assert spotted["action_index"].to_list()[:3] == [0, 1, 2]  # ordered by hand and index


def test_decision_weighted_counts_and_wilson_intervals(spotted: pl.DataFrame) -> None:
    table = spot_table(spotted, ["street"])
    preflop = table.filter(pl.col("street") == "preflop").row(0, named=True)
    assert (preflop["n_decisions"], preflop["n_hands"], preflop["n_players"]) == (15, 4, 6)
    assert (preflop["fold"], preflop["check_call"], preflop["bet_raise"]) == (0.2, 0.4, 0.4)
    assert (preflop["fold_low"], preflop["fold_high"]) == pytest.approx(wilson_interval(3, 15))
    flop = table.filter(pl.col("street") == "flop").row(0, named=True)
    assert (flop["n_decisions"], flop["n_hands"], flop["n_players"]) == (13, 3, 4)
    assert flop["fold"] == pytest.approx(4 / 13)
    assert flop["bet_raise"] == pytest.approx(5 / 13)
    assert table["n_decisions"].to_list() == [15, 13, 2, 2]  # street order


def test_player_weighted_differs_from_decision_weighted(spotted: pl.DataFrame) -> None:
    # Preflop folds: Alice 1 of 6, Bob 1 of 3, Carl 0/2, Dave 0/1, Eve 1/1, Frank 0/2.
    pooled = spot_table(spotted, ["street"], where=SpotFilter(street=("preflop",)))
    players = spot_table(
        spotted, ["street"], where=SpotFilter(street=("preflop",)), weighting="players"
    )
    assert pooled["fold"].item() == pytest.approx(3 / 15)
    assert players["fold"].item() == pytest.approx((1 / 6 + 1 / 3 + 1) / 6)
    rates = [1 / 6, 1 / 3, 0, 0, 1, 0]
    mean = sum(rates) / 6
    sd = math.sqrt(sum((r - mean) ** 2 for r in rates) / 5)
    assert players["fold_high"].item() == pytest.approx(mean + 1.959963984540054 * sd / 6**0.5)
    assert players["fold_low"].item() == 0.0  # clipped
    assert players["n_players"].item() == 6
    assert players["n_decisions"].item() == 15


def test_minimum_player_sample_leaves_players_out_and_says_so(spotted: pl.DataFrame) -> None:
    table = spot_table(spotted, ["street"], weighting="players", min_player_decisions=2).filter(
        pl.col("street") == "preflop"
    )
    row = table.row(0, named=True)
    assert (row["n_decisions"], row["n_players"], row["n_players_below_min"]) == (13, 4, 2)
    assert row["fold"] == pytest.approx((1 / 6 + 1 / 3) / 4)  # Dave and Eve left out
    pooled = spot_table(spotted, ["street"], min_player_decisions=2)
    assert pooled.filter(pl.col("street") == "preflop")["fold"].item() == pytest.approx(2 / 13)
    # turn and river: one decision each per player, so those groups are gone
    assert pooled["street"].to_list() == ["preflop", "flop"]


def test_filters_and_grouping_by_several_columns(spotted: pl.DataFrame) -> None:
    table = spot_table(spotted, ["pot_type"])
    assert dict(zip(table["pot_type"], table["n_decisions"], strict=True)) == {
        "unopened": 4,
        "limped": 11,
        "single-raised": 10,
        "3-bet": 6,
        "4-bet+": 1,
    }
    where = SpotFilter.parse(street="flop", relative_position="IP")
    ip_flop = spot_table(spotted, [], where=where)
    assert ip_flop["n_decisions"].item() == 3
    assert ip_flop["bet_raise"].item() == 1.0
    facing = spot_table(spotted, ["facing", "relative_position"])
    counts = {(r["facing"], r["relative_position"]): r["n_decisions"] for r in facing.to_dicts()}
    assert sum(v for (f, _), v in counts.items() if f == "0.4-0.8") == 9
    assert counts[("all-in", "OOP")] == 2
    two = spot_table(spotted, ["depth"], where=SpotFilter.parse(players_in_pot="2"))
    assert dict(zip(two["depth"], two["n_decisions"], strict=True)) == {"20-40": 4, "80-125": 10}
    alice = spotted.filter(pl.col("player_id") == player("Alice"))
    assert spot_table(alice, [])["n_decisions"].item() == 11


def test_bad_filters_and_columns_name_the_problem(spotted: pl.DataFrame) -> None:
    with pytest.raises(ValueError, match="unknown pot_type '5-bet'"):
        SpotFilter.parse(pot_type="5-bet")
    with pytest.raises(ValueError, match="whole numbers"):
        SpotFilter.parse(players_in_pot="two")
    with pytest.raises(ValueError, match="unknown group column"):
        spot_table(spotted, ["stack_depth"])
    with pytest.raises(ValueError, match="unknown weighting"):
        spot_table(spotted, [], weighting="hands")  # type: ignore[arg-type]


def test_values_are_summarised_with_hand_clustered_intervals(spotted: pl.DataFrame) -> None:
    table = spot_table(spotted, [], values=["amount_bb"])
    x = spotted["amount_bb"].cast(pl.Float64)
    mean = x.mean()
    assert isinstance(mean, float)
    assert table["amount_bb_mean"].item() == pytest.approx(mean)
    sums = (
        spotted.with_columns(d=x - mean).group_by("hand_id").agg(pl.col("d").sum())["d"].to_list()
    )
    se = math.sqrt(4 / 3 * sum(s * s for s in sums)) / 32
    assert table["amount_bb_high"].item() == pytest.approx(mean + 1.959963984540054 * se)


def test_sql_over_rows_with_spot_columns(spotted: pl.DataFrame, ingested: Path) -> None:
    result = query_rows(
        scan_rows(ingested),
        "SELECT facing, COUNT(*) AS n FROM rows WHERE street = 'preflop' "
        "GROUP BY facing ORDER BY facing",
    )
    assert (
        dict(zip(result["facing"], result["n"], strict=True))
        == {
            "none": 4,
            "0.4-0.8": 5,
            "0.8-1.2": 4,
            "all-in": 1,
        }
        or sum(result["n"]) == 15
    )
    with pytest.raises(ValueError, match="bad SQL"):
        query_rows(spotted, "SELECT nonsense FROM rows")


def test_cli_json_and_errors(ingested: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "spots",
            str(ingested),
            "--by",
            "street",
            "--weighting",
            "players",
            "--json",
            "--csv",
            str(tmp_path / "t.csv"),
            "--html",
            str(tmp_path / "t.html"),
        ],
    )
    assert result.exit_code == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["decisions"] == 32
    assert payload["by"] == ["street"]
    assert [g["street"] for g in payload["groups"]] == ["preflop", "flop", "turn", "river"]
    assert payload["groups"][0]["fold"] == pytest.approx(0.25)
    assert pl.read_csv(tmp_path / "t.csv")["n_decisions"].to_list() == [15, 13, 2, 2]
    assert "preflop" in (tmp_path / "t.html").read_text()

    result = runner.invoke(
        app, ["spots", str(ingested), "--player", player("Alice"), "--street", "flop", "--json"]
    )
    assert json.loads(result.stdout)["decisions"] == 3

    sql = runner.invoke(
        app, ["spots", str(ingested), "--sql", "SELECT COUNT(*) AS n FROM rows", "--json"]
    )
    assert json.loads(sql.stdout)["groups"] == [{"n": 32}]

    for args, message in (
        (["--facing", "huge"], "unknown facing 'huge'"),
        (["--by", "nonsense"], "unknown group column"),
        (["--sql", "SELEC 1"], "bad SQL"),
    ):
        bad = runner.invoke(app, ["spots", str(ingested), *args])
        assert bad.exit_code == 2
        assert message in bad.stderr
    missing = runner.invoke(app, ["spots", str(tmp_path / "nowhere")])
    assert missing.exit_code == 2
    assert "no rows folder" in missing.stderr


@given(st.integers(1, 400), st.data())
def test_vectorised_wilson_matches_the_scalar_one(count: int, data: st.DataObject) -> None:
    hits = data.draw(st.integers(0, count))
    low, high = wilson_bounds(pl.lit(hits), pl.lit(count))
    got = pl.select(low.alias("low"), high.alias("high")).row(0)
    assert got == pytest.approx(wilson_interval(hits, count))


def test_bucket_labels() -> None:
    assert bucket_labels((20, 40, 80, 125)) == ("<20", "20-40", "40-80", "80-125", "125+")


def test_real_sample_invariants(real: Path) -> None:
    rows = scan_rows(real)
    spotted = with_spots(rows)
    assert spotted.height == rows.select(pl.len()).collect().item()
    for column in SPOT_COLUMNS:
        assert spotted[column].null_count() == 0, column
    table = spot_table(spotted, ["street", "pot_type"])
    total = sum(table[name] for name in ACTION_COLUMNS.values())
    assert (total - 1).abs().max() < 1e-9  # type: ignore[union-attr,operator]
    assert (table["n_hands"] <= table["n_decisions"]).all()
    assert (table["n_players"] <= table["n_decisions"]).all()
    assert table["n_decisions"].sum() == spotted.height
    for name in ACTION_COLUMNS.values():
        assert (table[f"{name}_low"] <= table[name]).all()
        assert (table[name] <= table[f"{name}_high"]).all()
    postflop = spotted.filter(pl.col("street") != "preflop")
    assert "unopened" not in postflop["pot_type"].cast(pl.String).unique().to_list()
    # facing none exactly when nothing is owed beyond the blinds on this street
    owed = spotted.filter(pl.col("facing") == "none", pl.col("street") != "preflop")
    assert (owed["to_call"] == 0).all()
    everyone = spot_table(spotted, ["street"])
    kept = spot_table(spotted, ["street"], weighting="players", min_player_decisions=20)
    both = everyone.join(kept, on="street", suffix="_kept")
    assert both.height >= 1
    assert (both["n_players_kept"] + both["n_players_below_min_kept"] == both["n_players"]).all()
    assert (both["n_decisions_kept"] < both["n_decisions"]).all()
