"""Population training on ingested rows with bounded memory (issue 23): rows built a chunk of
hands at a time (:func:`rows_parts`) are the whole frame's rows up to the cards drawn for
hidden seats, and report the same counts; a streamed run on them trains and resumes bit for
bit; validation is capped by whole hands; float16 features round-trip within their bound.
The range oracle's examples of the same rows stream into shards a chunk at a time too."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.histories.ingest import hand_chunk_frames, ingest, scan_rows
from poolshark.oracle import data as oracle_data
from poolshark.oracle import shards as oracle_shards
from poolshark.pool.ranges import UniformRanges
from poolshark.population.data import (
    COMPACT_FEATURES,
    ActionDataset,
    join_same_players,
    rows_dataset,
    rows_parts,
    with_feature_dtype,
)
from poolshark.population.hands import RowsReport
from poolshark.population.shards import open_shards, write_shards
from poolshark.population.train import (
    DataConfig,
    PopulationTrainConfig,
    build_dataset,
    cap_validation,
    read_checkpoint,
    split_hands,
    train_population,
)

DATA = Path(__file__).parents[2] / "shared" / "data" / "handhq-ps25"
RNG_COUNTS = {"imputation_redraws", "imputation_sequential", "muck_fallbacks"}
"""Report counts that depend on the cards drawn (the random stream), not on the rows."""


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One file of the real PokerStars sample (about 1,000 hands) ingested to rows."""
    if not DATA.is_dir():
        pytest.skip(f"the real sample is not at {DATA} (the shared data checkout is absent)")
    out = tmp_path_factory.mktemp("ps25")
    ingest([DATA / "ps25_1.phhs"], out, backend="serial", chunk_hands=400)
    return out


@pytest.fixture(scope="module")
def whole(ingested: Path) -> tuple[ActionDataset, RowsReport]:
    return rows_dataset(scan_rows(ingested).collect(), UniformRanges(), seed=3)


def _row_bytes(dataset: ActionDataset, arrays: list[npt.NDArray[Any]]) -> list[bytes]:
    """Each row's values of ``arrays`` and its player's id, as one sortable bytes key."""
    names = np.array(dataset.player_ids)[dataset.player]
    flat = [np.ascontiguousarray(a.reshape(dataset.size, -1)).view(np.uint8) for a in arrays]
    joined = np.concatenate([f.reshape(dataset.size, -1) for f in flat], axis=1)
    return sorted(bytes(row) + str(name).encode() for row, name in zip(joined, names, strict=True))


def test_chunked_rows_are_the_whole_frames_up_to_the_drawn_cards(
    ingested: Path, whole: tuple[ActionDataset, RowsReport]
) -> None:
    full, full_report = whole
    report = RowsReport()
    parts = list(rows_parts(ingested, UniformRanges(), seed=3, chunk_hands=150, report=report))
    assert len(parts) >= 6  # several chunks in each of the three Parquet parts
    counts = {k: v for k, v in report.as_dict().items() if k not in RNG_COUNTS}
    assert counts == {k: v for k, v in full_report.as_dict().items() if k not in RNG_COUNTS}
    assert report.imputed_seats > 1000
    keys = [set(np.unique(p.hand_key).tolist()) for p in parts]
    assert sum(len(k) for k in keys) == len(set().union(*keys)) == report.kept_hands
    assert all(p.player_ids == parts[0].player_ids for p in parts)
    assert list(parts[0].player_ids) == sorted(full.player_ids)
    rows = join_same_players(parts)
    assert rows.size == full.size == report.kept_rows
    assert rows.imputed.sum() == full.imputed.sum()

    def public(d: ActionDataset) -> list[bytes]:
        f = d.features
        return _row_bytes(d, [f.public, f.legal, f.street, d.target, d.imputed, d.fraction])

    assert public(rows) == public(full)
    observed, full_observed = rows.subset(~rows.imputed), full.subset(~full.imputed)

    def every(d: ActionDataset) -> list[bytes]:
        f = d.features
        return _row_bytes(d, [f.public, f.hand, f.hand_class, f.cards, f.opponents, d.target])

    assert every(observed) == every(full_observed)
    drawn = rows.subset(rows.imputed)
    assert every(drawn) != every(full.subset(full.imputed))  # other draws, other cards


def test_one_chunk_is_the_whole_frame_exactly(
    ingested: Path, whole: tuple[ActionDataset, RowsReport]
) -> None:
    full, full_report = whole
    report = RowsReport()
    (rows,) = rows_parts(ingested, UniformRanges(), seed=3, chunk_hands=10**6, report=report)
    assert report.as_dict() == full_report.as_dict()
    for (name, a), (_, b) in zip(rows.arrays().items(), full.arrays().items(), strict=True):
        if name == "player":
            a, b = np.array(rows.player_ids)[a], np.array(full.player_ids)[b]
        np.testing.assert_array_equal(a, b, err_msg=name)


TINY = {"width": 32, "depth": 1, "opponent_width": 8, "class_embedding": 4, "batch_size": 128}


def test_streamed_run_on_ingested_rows_trains_and_resumes_bit_for_bit(
    ingested: Path, tmp_path: Path
) -> None:
    config = PopulationTrainConfig(
        rows=ingested, ranges="uniform", out=tmp_path / "whole", epochs=2, threads=1, seed=2,
        stream=True, shard_rows=1000, shuffle_buffer=2500, max_val_rows=400, **TINY,
    )  # fmt: skip
    result = train_population(config)
    manifest = open_shards(tmp_path / "whole" / "shards")
    assert manifest.shards >= 8
    assert 300 <= result.val_rows <= 400  # capped, whole hands
    assert result.train_rows + result.val_rows == manifest.size
    assert result.data["rows"]["kept_rows"] == manifest.size
    in_memory, _ = build_dataset(config.data_config(), seed=config.seed)
    assert in_memory.fingerprint == manifest.fingerprint
    assert result.history[-1]["val_nll"] < result.history[0]["val_nll"] + 0.05

    broken = config.model_copy(update={"out": tmp_path / "broken", "checkpoint_every": 5})
    shutil.copytree(tmp_path / "whole" / "shards", tmp_path / "broken" / "shards")
    shutil.copy(tmp_path / "whole" / "data.json", tmp_path / "broken" / "data.json")
    stop = result.train_rows // config.batch_size + 23  # in the second epoch, past a fill

    class StopError(Exception):
        pass

    def stop_at(step: int, _total: int) -> None:
        if step == stop:
            raise StopError

    with pytest.raises(StopError):
        train_population(broken, on_step=stop_at)
    assert read_checkpoint(tmp_path / "broken" / "last.pt")["epoch"] == 1
    train_population(broken, resume=True)
    one = read_checkpoint(tmp_path / "whole" / "last.pt")
    other = read_checkpoint(tmp_path / "broken" / "last.pt")
    for key, value in one["model"].items():
        assert torch.equal(value, other["model"][key]), key
    assert one["history"] == other["history"]


def test_float16_features_round_trip_within_half_precision(
    whole: tuple[ActionDataset, RowsReport], tmp_path: Path
) -> None:
    full, _ = whole
    half = with_feature_dtype(full, "float16")
    assert with_feature_dtype(full, "float32").features.public is full.features.public
    for name in COMPACT_FEATURES:
        exact = getattr(full.features, name)
        rounded = getattr(half.features, name)
        assert rounded.dtype == np.float16
        assert np.isfinite(rounded).all(), name
        error = np.abs(rounded.astype(np.float32) - exact)
        assert (error <= np.abs(exact) * 2.0**-11 + 2.0**-25).all(), name  # subnormals: absolute
        flags = (exact == 0) | (exact == 1)
        assert (error[flags] == 0).all(), name
    manifest = write_shards(half, tmp_path / "half", shard_rows=4000)
    back = manifest.select(np.arange(half.size))
    for name in COMPACT_FEATURES:
        assert getattr(back.features, name).dtype == np.float16
        np.testing.assert_array_equal(getattr(back.features, name), getattr(half.features, name))
    assert manifest.fingerprint == half.fingerprint
    stored = sum(p.stat().st_size for p in (tmp_path / "half").glob("shard-*.npz"))
    single = write_shards(full, tmp_path / "single", shard_rows=4000)
    assert stored < sum(p.stat().st_size for p in single.folder.glob("shard-*.npz"))
    with pytest.raises(ValueError, match="feature dtype"):
        with_feature_dtype(full, "bfloat16")


def test_feature_dtype_is_a_data_key() -> None:
    assert DataConfig(pool="micro-zoom", hands=5, feature_dtype="float16").feature_dtype
    with pytest.raises(ValueError, match="feature_dtype"):
        DataConfig(pool="micro-zoom", hands=5, feature_dtype="int8")  # type: ignore[arg-type]


@settings(max_examples=80, deadline=None)
@given(
    hands=st.lists(st.integers(1, 12), min_size=2, max_size=60),
    fraction=st.floats(0.05, 0.45),
    cap=st.integers(1, 200),
    seed=st.integers(0, 5),
)
def test_capped_validation_keeps_whole_hands_and_gives_the_rest_back(
    hands: list[int], fraction: float, cap: int, seed: int
) -> None:
    hand_key = np.repeat(np.arange(len(hands)), hands)
    train, val = split_hands(hand_key, (fraction,), seed)
    capped_train, capped_val = cap_validation(hand_key, train, val, cap, seed)
    assert np.array_equal(np.sort(np.concatenate([capped_train, capped_val])),
                          np.arange(hand_key.size))  # fmt: skip
    assert not set(hand_key[capped_train]) & set(hand_key[capped_val])
    assert set(hand_key[capped_val]) <= set(hand_key[val])
    assert capped_val.size >= 1
    if val.size <= cap:
        assert np.array_equal(capped_val, val)
        assert np.array_equal(capped_train, train)
    else:
        assert capped_val.size <= cap or np.unique(hand_key[capped_val]).size == 1
        assert np.all(np.diff(capped_train) > 0)
    assert cap_validation(hand_key, train, val, None, seed)[1] is val


def test_oracle_examples_of_ingested_rows_stream_into_shards(
    ingested: Path, tmp_path: Path
) -> None:
    """``oracle data --rows --shard-hands`` builds a chunk of whole hands at a time
    (``rows_shards``): the shards hold exactly the examples of the whole folder's rows, the
    hands in chunk order (the ingest's parts, sorted within each chunk)."""
    whole = oracle_data.from_rows(scan_rows(ingested))
    shards = oracle_shards.rows_shards(ingested, tmp_path / "shards", shard_hands=150)
    chunks = [
        frame.unique().sort("site", "hand_id")
        for frame in hand_chunk_frames(ingested, 150, ["site", "hand_id"])
    ]
    assert len(chunks) > len(list((ingested / "rows").glob("part-*.parquet")))
    order = pl.concat(chunks)
    ranked = order.sort("site", "hand_id").with_row_index("whole")
    position = order.join(ranked, on=["site", "hand_id"], how="left", maintain_order="left")
    expected = whole.select_hands(position["whole"].to_numpy().astype(np.int64))
    streamed = oracle_shards.read_all(shards)
    assert shards.fields["hands"] == whole.hands
    assert shards.fields["source"] == whole.source
    for name, values in expected.arrays().items():
        assert np.array_equal(values, streamed.arrays()[name], equal_nan=True), name
    with pytest.raises(ValueError, match="chunk_hands must be at least 1"):
        next(hand_chunk_frames(ingested, 0, ["site"]))


def test_a_folder_without_rows_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "rows").mkdir()
    with pytest.raises(ValueError, match="holds no decision rows"):
        next(rows_parts(tmp_path, UniformRanges()))
    with pytest.raises(ValueError, match="chunk_hands must be at least 1"):
        next(rows_parts(tmp_path, UniformRanges(), chunk_hands=0))
