"""The population model against the data: hand-built frames with known counts, KL and z;
the score z agrees with the Wilson flag; a tiny model trained on a simulated pool predicts
probabilities for every row, ignores shown cards and the row's own action, and beats a
uniform prediction on fresh rows of its pool."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.analysis.calibration import (
    PREDICTED_COLUMNS,
    CalibrationError,
    calibration_z,
    kl_divergence,
    model_against_data,
    predict_actions,
    predicted_actions,
)
from poolshark.pool.stats import Z_95, wilson_interval

KEYS = ["site", "hand_id", "action_index"]


def hand_built() -> pl.DataFrame:
    """Two streets. Preflop: 4 decisions in 2 hands by 3 players (2 folds, 1 call, 1 raise);
    flop: 2 decisions in 1 hand by 2 players (1 call, 1 raise). Predictions equal the
    observed frequencies of each street."""
    return pl.DataFrame(
        {
            "site": ["s"] * 6,
            "hand_id": ["1", "1", "1", "2", "1", "1"],
            "action_index": [0, 1, 2, 0, 3, 4],
            "player_id": ["a", "b", "c", "a", "b", "c"],
            "street": ["preflop"] * 4 + ["flop"] * 2,
            "action": ["fold", "fold", "check-call", "bet-raise", "check-call", "bet-raise"],
            "to_call": [2, 2, 2, 2, 0, 0],
            "p_fold": [0.5] * 4 + [0.0] * 2,
            "p_call": [0.25] * 4 + [0.5] * 2,
            "p_raise": [0.25] * 4 + [0.5] * 2,
        }
    )


def test_counts_and_a_perfect_prediction() -> None:
    table = model_against_data(hand_built(), ["street"])
    rows = {r["street"]: r for r in table.to_dicts()}
    assert (rows["preflop"]["decisions"], rows["preflop"]["hands"], rows["preflop"]["players"]) == (
        4,
        2,
        3,
    )
    assert (rows["flop"]["decisions"], rows["flop"]["hands"], rows["flop"]["players"]) == (2, 1, 2)
    assert rows["preflop"]["observed_fold"] == 0.5
    assert rows["flop"]["observed_raise"] == 0.5
    low, high = wilson_interval(2, 4)
    assert (rows["preflop"]["observed_fold_low"], rows["preflop"]["observed_fold_high"]) == (
        low,
        high,
    )
    for row in rows.values():
        assert row["kl"] == pytest.approx(0.0, abs=1e-12)
        assert row["z"] == 0.0
        assert not row["unreliable"]
        assert row["weight"] == pytest.approx(0.0, abs=1e-12)


def test_a_wrong_prediction_by_hand() -> None:
    frame = hand_built().with_columns(p_fold=pl.lit(0.1), p_call=pl.lit(0.1), p_raise=pl.lit(0.8))
    table = model_against_data(frame, ["street"])
    preflop = table.filter(pl.col("street") == "preflop").row(0, named=True)
    kl = 0.5 * np.log(0.5 / 0.1) + 0.25 * np.log(0.25 / 0.1) + 0.25 * np.log(0.25 / 0.8)
    assert preflop["kl"] == pytest.approx(kl)
    z = max(
        abs(o - p) / np.sqrt(p * (1 - p) / 4) for o, p in ((0.5, 0.1), (0.25, 0.1), (0.25, 0.8))
    )
    assert preflop["z"] == pytest.approx(z)
    assert preflop["unreliable"]
    flop = table.filter(pl.col("street") == "flop").row(0, named=True)
    assert preflop["weight"] == pytest.approx(4 * kl)
    assert table["street"].to_list() == (
        ["preflop", "flop"] if 4 * kl > flop["weight"] else ["flop", "preflop"]
    )


def test_a_free_fold_counts_as_a_check() -> None:
    frame = hand_built().with_columns(
        action=pl.when(pl.col("action_index") == 3).then(pl.lit("fold")).otherwise(pl.col("action"))
    )
    flop = model_against_data(frame, ["street"]).filter(pl.col("street") == "flop")
    assert flop["observed_fold"].item() == 0.0
    assert flop["observed_call"].item() == 0.5
    assert flop["kl"].item() == pytest.approx(0.0, abs=1e-12)


def test_an_empty_frame_gives_an_empty_table() -> None:
    table = model_against_data(hand_built().clear(), ["street"])
    assert table.height == 0
    assert {"kl", "z", "unreliable", "weight", "observed_fold_low"} <= set(table.columns)


def test_bad_frames_are_refused() -> None:
    with pytest.raises(CalibrationError, match="p_raise"):
        model_against_data(hand_built().drop("p_raise"), ["street"])
    with pytest.raises(CalibrationError, match="position"):
        model_against_data(hand_built(), ["position"])
    nulls = hand_built().with_columns(p_fold=pl.lit(None, dtype=pl.Float64))
    with pytest.raises(CalibrationError, match="no prediction"):
        model_against_data(nulls, ["street"])


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 400),
    share=st.floats(0, 1),
    predicted=st.floats(0.001, 0.999),
)
def test_z_above_the_critical_value_exactly_when_outside_the_wilson_interval(
    n: int, share: float, predicted: float
) -> None:
    hits = round(share * n)
    observed = hits / n
    z = calibration_z(
        np.array([[observed, 1 - observed]]), np.array([[predicted, 1 - predicted]]), np.array([n])
    )[0]
    low, high = wilson_interval(hits, n)
    if abs(z - Z_95) > 1e-6:
        assert (z > Z_95) == (not low <= predicted <= high)


def test_kl_is_zero_only_on_agreement() -> None:
    p = np.array([[0.2, 0.3, 0.5], [0.2, 0.3, 0.5], [0.0, 0.5, 0.5]])
    q = np.array([[0.2, 0.3, 0.5], [0.3, 0.3, 0.4], [0.1, 0.45, 0.45]])
    kl = kl_divergence(p, q)
    assert kl[0] == pytest.approx(0.0, abs=1e-15)
    assert kl[1] > 0
    assert kl[2] > 0
    assert kl[2] == pytest.approx(np.log(0.5 / 0.45))


# -- a tiny model on a simulated pool ----------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_model(tiny_population_model: Path) -> Path:
    """The session's tiny population model (``conftest.py``)."""
    return tiny_population_model


@pytest.fixture(scope="module")
def fresh_rows() -> pl.DataFrame:
    """Decision rows of 250 fresh micro-zoom hands (showdown cards shown)."""
    from poolshark.histories.rows import build_rows
    from poolshark.pool.pools import load_pool
    from poolshark.pool.simulate import simulate

    hands = simulate(load_pool("micro-zoom"), 250, seed=11)
    return build_rows(list(hands.records())).frame


def test_predictions_are_probabilities_for_every_row(
    tiny_model: Path, fresh_rows: pl.DataFrame
) -> None:
    found = predict_actions(fresh_rows, tiny_model, seed=3, draws=4)
    frame = found.frame
    assert found.dropped == {"fixed_limit": 0, "seat_count": 0, "inconsistent": 0}
    assert frame.height == fresh_rows.height
    assert frame.select(KEYS).sort(KEYS).equals(fresh_rows.select(KEYS).sort(KEYS))
    values = frame.select(PREDICTED_COLUMNS).to_numpy()
    assert np.all((values >= 0) & (values <= 1))
    assert np.allclose(values.sum(axis=1), 1.0)
    joined = fresh_rows.join(frame, on=KEYS)
    free = joined.filter(pl.col("to_call") == 0)["p_fold"].to_numpy()
    assert free.size
    assert np.all(free == 0)  # folding is no legal class with nothing to call
    again = predict_actions(fresh_rows, tiny_model, seed=3, draws=4).frame
    assert again.equals(frame)


def test_predictions_ignore_shown_cards_and_the_row_s_own_action(
    tiny_model: Path, fresh_rows: pl.DataFrame
) -> None:
    assert fresh_rows["hole_cards"].is_not_null().any()
    base = predict_actions(fresh_rows, tiny_model, seed=1, draws=4).frame.sort(KEYS)
    hidden = fresh_rows.with_columns(
        pl.lit(None, dtype=fresh_rows.schema["hole_cards"]).alias("hole_cards")
    )
    assert predict_actions(hidden, tiny_model, seed=1, draws=4).frame.sort(KEYS).equals(base)
    # the last decision of a hand that ended with a fold facing a bet: make it a call
    last = fresh_rows.group_by("site", "hand_id").agg(pl.col("action_index").max())
    ends = fresh_rows.join(last, on=["site", "hand_id", "action_index"])
    target = ends.filter((pl.col("action") == "fold") & (pl.col("to_call") > 0)).row(0, named=True)
    is_target = (pl.col("hand_id") == target["hand_id"]) & (
        pl.col("action_index") == target["action_index"]
    )
    called = fresh_rows.with_columns(
        action=pl.when(is_target)
        .then(pl.lit("check-call"))
        .otherwise(pl.col("action"))
        .cast(fresh_rows.schema["action"]),
        amount=pl.when(is_target).then(pl.col("to_call")).otherwise(pl.col("amount")),
    )
    changed = predict_actions(called, tiny_model, seed=1, draws=4).frame.sort(KEYS)
    assert changed.filter(is_target).equals(base.filter(is_target))


def test_fixed_limit_rows_are_dropped_with_a_count(
    tiny_model: Path, fresh_rows: pl.DataFrame
) -> None:
    first = fresh_rows["hand_id"][0]
    limit = fresh_rows.with_columns(
        betting=pl.when(pl.col("hand_id") == first)
        .then(pl.lit("fixed-limit"))
        .otherwise(pl.col("betting"))
        .cast(fresh_rows.schema["betting"])
    )
    found = predict_actions(limit, tiny_model, draws=1)
    count = fresh_rows.filter(pl.col("hand_id") == first).height
    assert found.dropped["fixed_limit"] == count
    assert found.frame.height == fresh_rows.height - count
    assert first not in found.frame["hand_id"].to_list()


def test_the_model_beats_a_uniform_prediction_on_its_own_pool(
    tiny_model: Path, fresh_rows: pl.DataFrame
) -> None:
    joined = fresh_rows.join(predicted_actions(fresh_rows, tiny_model), on=KEYS)
    uniform = joined.with_columns(**dict.fromkeys(PREDICTED_COLUMNS, pl.lit(1 / 3)))
    for by in (["street"], ["street", "position"]):
        model = model_against_data(joined, by).filter(pl.col("decisions") >= 20).sort(by)
        blind = model_against_data(uniform, by).sort(by).join(model.select(by), on=by)
        assert model.height >= 4, by
        assert model["weight"].to_numpy().sum() < 0.25 * blind["weight"].to_numpy().sum()
        assert np.median(model["z"].to_numpy()) < np.median(blind["z"].to_numpy())


def test_the_spots_command_puts_the_model_beside_the_data(
    tiny_model: Path, fresh_rows: pl.DataFrame, tmp_path: Path
) -> None:
    """``poolshark spots ROWS --model CKPT --json``: the model replays every hand of the
    folder, the filter (flop only) applies after, and each group's observed frequencies
    come from the rows."""
    import json

    from typer.testing import CliRunner

    from poolshark.cli import app

    folder = tmp_path / "rows"
    (folder / "rows").mkdir(parents=True)
    fresh_rows.write_parquet(folder / "rows" / "part-0.parquet")
    result = CliRunner().invoke(
        app,
        [
            "spots", str(folder), "--by", "street,position", "--street", "flop",
            "--model", str(tiny_model), "--draws", "4", "--json",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["dropped"] == {"fixed_limit": 0, "seat_count": 0, "inconsistent": 0}
    groups = out["groups"]
    assert {g["street"] for g in groups} == {"flop"}
    flop = fresh_rows.filter(pl.col("street") == "flop")
    assert sum(g["decisions"] for g in groups) == flop.height
    for group in groups:
        assert group["predicted_fold"] + group["predicted_call"] + group["predicted_raise"] == (
            pytest.approx(1.0)
        )
