"""Ingestion: real files in, rows and quarantine out; the counts always add up, nothing is
ingested twice, bad hands are kept with their reason, every backend gives the same result."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from poolshark.histories.explain import explain_hand
from poolshark.histories.ingest import (
    INDEX_SCHEMA,
    QUARANTINE_MARK,
    WARNING_MARK,
    IngestError,
    Summary,
    hand_key,
    history_files,
    ingest,
    scan_rows,
)
from poolshark.histories.keyset import KeySet
from poolshark.histories.pokerstars import write_pokerstars
from poolshark.histories.rows import ROW_SCHEMA
from poolshark.histories.split import parse_hand, read_hands

SAMPLE = Path(__file__).parents[2] / "shared" / "data" / "handhq-ps25"


def sample_file(number: int = 1) -> Path:
    path = SAMPLE / f"ps25_{number}.phhs"
    if not path.is_file():
        pytest.skip(f"the real PHH sample is not here: {SAMPLE}")
    return path


def hand_texts(number: int = 1, count: int | None = None) -> list[str]:
    """The raw text of the first ``count`` hands of a sample file."""
    texts = [raw.text for raw in read_hands(sample_file(number))]
    return texts[:count]


def write(path: Path, texts: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(texts))
    return path


def rows_on_disk(out: Path) -> pl.DataFrame:
    return scan_rows(out).collect()


def check_consistent(summary: Summary, out: Path) -> None:
    """The invariants every run keeps, checked against what is on disk."""
    assert summary.balanced
    assert summary.seen == summary.parsed + sum(summary.rejected.values()) + summary.duplicates
    assert summary.seen == summary.fast + sum(summary.fallbacks.values())
    saved = json.loads((out / "summary.json").read_text())
    assert saved == summary.to_dict()
    marks = sum(
        text.count(f"\n{QUARANTINE_MARK}") + text.startswith(QUARANTINE_MARK)
        for text in (p.read_text() for p in (out / "quarantine").glob(f"{summary.run}-*.txt"))
    )
    assert marks == sum(summary.rejected.values())


# -- the real sample ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Summary, Path]:
    out = tmp_path_factory.mktemp("ingest") / "out"
    return ingest([SAMPLE if SAMPLE.is_dir() else sample_file()], out, workers=1), out


def test_the_real_sample_is_ingested_and_the_counts_add_up(
    sample_run: tuple[Summary, Path],
) -> None:
    summary, out = sample_run
    check_consistent(summary, out)
    assert summary.files == 3
    assert summary.seen == 991 + 998 + 997
    # The compiled path judged all but the six hands only the engine replay could
    # (their winnings exceed the pot), which it handed over at the settlement check.
    assert summary.fallbacks == {"settle": 6}
    assert summary.fast == summary.seen - 6
    assert summary.parsed / summary.seen >= 0.99
    rows = rows_on_disk(out)
    assert rows.schema == ROW_SCHEMA
    assert rows.height == summary.rows > 25_000
    index = pl.read_parquet(sorted((out / "index").glob("*.parquet")))
    assert index.schema == INDEX_SCHEMA
    assert index.height == summary.parsed
    assert index["key"].n_unique() == summary.parsed
    assert set(rows["hand_id"]) <= set(index["hand_id"])


def test_hands_with_winnings_over_the_pot_are_kept_with_a_warning(
    sample_run: tuple[Summary, Path],
) -> None:
    """The sample's six hands whose winnings exceed their pot (a dropped dead post): parsed,
    counted under ``warnings``, listed in ``OUT/warnings`` with their text, and their rows
    (only theirs) carry the warning; nothing of the sample is rejected."""
    summary, out = sample_run
    if summary.files < 3:
        pytest.skip("needs the whole sample")
    assert summary.rejected == {}
    assert summary.parsed == summary.seen == 2986
    assert summary.warnings == {"winnings-over-pot": 6}
    listed = "".join(p.read_text() for p in (out / "warnings").glob(f"{summary.run}-*.txt"))
    marks = re.findall(
        rf"^{re.escape(WARNING_MARK)}winnings-over-pot: .+ line \d+\]$", listed, re.M
    )
    warned_ids = set(re.findall(r"^hand = (\d+)$", listed, re.M))
    assert len(marks) == len(warned_ids) == 6
    rows = rows_on_disk(out)
    flagged = rows.filter(pl.col("warning").is_not_null())
    assert set(flagged["hand_id"]) == warned_ids
    assert set(flagged["warning"]) == {"winnings-over-pot"}
    assert rows.filter(pl.col("hand_id").is_in(list(warned_ids))).height == flagged.height


def test_reingesting_the_same_files_adds_nothing(
    sample_run: tuple[Summary, Path], tmp_path: Path
) -> None:
    first, out = sample_run
    before = rows_on_disk(out).height
    again = ingest([SAMPLE], out, workers=1)
    check_consistent(again, out)
    assert again.rows == again.parsed == 0
    assert again.duplicates == first.parsed
    assert again.rejected == first.rejected
    assert again.warnings == {}
    assert rows_on_disk(out).height == before
    assert len(list((out / "rows").glob("*.parquet"))) == first.parts


def test_each_rejected_hand_is_in_quarantine_with_its_reason(
    sample_run: tuple[Summary, Path],
) -> None:
    summary, out = sample_run
    text = "".join(p.read_text() for p in (out / "quarantine").glob(f"{summary.run}-*.txt"))
    reasons = re.findall(rf"^{re.escape(QUARANTINE_MARK)}([a-z-]+): .+\[.+ line \d+\]$", text, re.M)
    assert sorted(reasons) == sorted(r for r, n in summary.rejected.items() for _ in range(n))
    hands = re.findall(r"^hand = (\d+)$", text, re.M)
    assert len(hands) == len(reasons)


def test_pokerstars_text_gives_the_same_rows_as_phh(tmp_path: Path) -> None:
    """The sample written as PokerStars text (CRLF, a byte-order mark) and as PHH: same rows."""
    texts = hand_texts(1, 300)
    records = [parse_hand(raw) for raw in read_hands(write(tmp_path / "a.phhs", texts))]
    written = []
    for record in records:
        try:
            written.append(write_pokerstars(record))
        except ValueError:  # a post PokerStars text cannot show (a dead small blind)
            continue
    assert len(written) > 290
    stars = "\n\n".join(written)
    (tmp_path / "hands.txt").write_bytes(b"\xef\xbb\xbf" + stars.replace("\n", "\r\n").encode())
    ingest([tmp_path / "a.phhs"], tmp_path / "phh", workers=1)
    from_stars = ingest([tmp_path / "hands.txt"], tmp_path / "stars", workers=1)
    check_consistent(from_stars, tmp_path / "stars")
    assert from_stars.seen == stars.count("PokerStars Hand #")
    assert from_stars.rejected == {}
    assert from_stars.fast >= from_stars.seen - 1  # CRLF and the mark are no obstacle
    order = ["hand_id", "action_index"]
    phh_rows = rows_on_disk(tmp_path / "phh").sort(order)
    stars_rows = rows_on_disk(tmp_path / "stars").sort(order)
    shared = stars_rows["hand_id"].to_list()
    phh_rows = phh_rows.filter(pl.col("hand_id").is_in(shared))
    # The text states winnings where the PHH hand has none (its writer pays by the rules).
    recorded = phh_rows["won"].is_not_null()
    assert_frame_equal(phh_rows.filter(recorded), stars_rows.filter(recorded))
    assert_frame_equal(phh_rows.drop("won"), stars_rows.drop("won"))


# -- duplicates -----------------------------------------------------------------------------------


def test_the_same_hands_in_two_files_are_ingested_once(tmp_path: Path) -> None:
    """Two copies in one run, across two worker processes, then a third copy later."""
    texts = hand_texts(2, 150)
    write(tmp_path / "in" / "a.phhs", texts)
    write(tmp_path / "in" / "b.phhs", texts)
    out = tmp_path / "out"
    summary = ingest([tmp_path / "in"], out, workers=2)
    check_consistent(summary, out)
    assert summary.workers == 2
    assert summary.seen == 300
    assert summary.duplicates == summary.parsed == 150 - sum(summary.rejected.values()) // 2
    rows = rows_on_disk(out)
    assert rows.height == summary.rows
    assert rows.select("hand_id", "action_index").is_duplicated().sum() == 0
    write(tmp_path / "later" / "c.phhs", texts[::-1])
    later = ingest([tmp_path / "later"], out, workers=1)
    assert later.parsed == 0
    assert later.duplicates == summary.parsed


def test_a_hand_repeated_within_a_file_counts_once(tmp_path: Path) -> None:
    texts = hand_texts(1, 20)
    path = write(tmp_path / "x.phhs", texts + texts[:5])
    summary = ingest([path], tmp_path / "out", workers=1, chunk_hands=7)
    check_consistent(summary, tmp_path / "out")
    assert summary.seen == 25
    assert summary.duplicates == 5
    assert summary.parts == 3  # 20 distinct hands in chunks of 7: the repeats in the last


# -- bad input --------------------------------------------------------------------------------


def corrupted_file(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    """Good hands mixed with bad ones of known reasons, and a stretch of invalid UTF-8."""
    good = hand_texts(3, 8)
    omaha = good[0].replace("variant = 'NT'", "variant = 'PO'")
    no_actions = re.sub(r"(?m)^actions = .*\n", "", good[1])
    bad_amount = good[2].replace("starting_stacks = [", "starting_stacks = [x", 1)
    wrong_winner = re.sub(r"(?m)^winnings = \[(.*)\]$", lambda m: "winnings = [" + ", ".join(
        "0" if i else "99" for i, _ in enumerate(m.group(1).split(","))
    ) + "]", good[3])  # fmt: skip
    assert wrong_winner != good[3]
    data = "\n".join([*good[4:], omaha, no_actions, bad_amount, wrong_winner]).encode()
    broken_utf8 = good[5].replace("variant", "vari\udcffant", 1)
    data += b"\n" + broken_utf8.encode("utf-8", "surrogateescape")
    path = tmp_path / "bad.phhs"
    path.write_bytes(data)
    expected = {"unsupported-game": 1, "malformed": 3, "replay-mismatch": 1}
    return path, expected


def test_corrupted_hands_go_to_quarantine_with_reasons(tmp_path: Path) -> None:
    path, expected = corrupted_file(tmp_path)
    out = tmp_path / "out"
    summary = ingest([path], out, workers=1)
    check_consistent(summary, out)
    assert summary.seen == 9
    assert summary.rejected == expected
    assert summary.parsed == 4  # good[4:8]; good[5] once more, broken, is rejected
    quarantine = "".join(p.read_text() for p in (out / "quarantine").glob("*.txt"))
    assert "variant = 'PO'" in quarantine
    assert "starting_stacks = [x" in quarantine


def test_a_file_that_is_neither_format_is_reported_not_fatal(tmp_path: Path) -> None:
    junk = tmp_path / "junk.txt"
    junk.write_text("this is not a hand history\n")
    good = write(tmp_path / "good.phhs", hand_texts(1, 3))
    summary = ingest([junk, good], tmp_path / "out", workers=1)
    check_consistent(summary, tmp_path / "out")
    assert summary.file_errors == {}  # never refused whole: its one "hand" is accounted for
    assert summary.rejected == {"unsupported-format": 1}
    assert summary.parsed == 3


def test_missing_inputs_and_bad_options_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="no such file"):
        ingest([tmp_path / "nope"], tmp_path / "out")
    (tmp_path / "file").write_text("")
    with pytest.raises(IngestError, match="not a folder"):
        ingest([], tmp_path / "file")
    with pytest.raises(IngestError, match="chunk_hands"):
        ingest([], tmp_path / "out", chunk_hands=0)


def test_history_files_finds_history_files_in_folders(tmp_path: Path) -> None:
    write(tmp_path / "a" / "1.phhs", ["x"])
    write(tmp_path / "a" / "b" / "2.txt", ["x"])
    write(tmp_path / "a" / "notes.md", ["x"])
    found = history_files([tmp_path / "a", tmp_path / "a" / "1.phhs"])
    assert [p.name for p in found] == ["1.phhs", "2.txt"]


def test_an_output_folder_inside_the_input_is_not_read_back(tmp_path: Path) -> None:
    """Quarantine files are .txt; ingesting the parent folder again must not read them."""
    corrupted_file(tmp_path)
    first = ingest([tmp_path], tmp_path / "out", workers=1)
    assert list((tmp_path / "out" / "quarantine").glob("*.txt"))
    again = ingest([tmp_path], tmp_path / "out", workers=1)
    assert again.files == first.files == 1
    assert again.seen == first.seen
    assert again.file_errors == {}


# -- crash safety -----------------------------------------------------------------------------


def test_a_half_committed_part_from_a_crash_is_undone(tmp_path: Path) -> None:
    out = tmp_path / "out"
    path = write(tmp_path / "x.phhs", hand_texts(1, 10))
    first = ingest([path], out, workers=1)
    orphan = out / "index" / "part-crashed.parquet"  # its rows part never made it
    pl.read_parquet(next((out / "index").glob("*.parquet"))).write_parquet(orphan)
    (out / "staging" / "old-run").mkdir(parents=True)
    again = ingest([path], out, workers=1)
    assert not orphan.exists()
    assert not (out / "staging").exists()
    assert again.duplicates == first.parsed


def test_one_run_at_a_time_per_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "ingest.lock").write_text(f"{os.getppid()}\n")  # a live process holds it
    with pytest.raises(IngestError, match="being ingested"):
        ingest([], out)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    (out / "ingest.lock").write_text(dead.stdout)
    assert ingest([], out).files == 0  # a stale lock is taken over
    assert not (out / "ingest.lock").exists()


# -- keys -----------------------------------------------------------------------------------------


def test_hand_keys_are_stable_and_tell_sites_apart() -> None:
    assert hand_key("PokerStars", "123") == hand_key("PokerStars", "123")
    assert hand_key("PokerStars", "123") != hand_key("Party", "123")
    assert 0 < hand_key("x", "y") < 2**64


def test_the_key_set_refuses_zero() -> None:
    with pytest.raises(ValueError, match="0 is not a key"):
        KeySet().add(np.array([3, 0], dtype=np.uint64))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(1, 2**64 - 1), max_size=300), max_size=6))
def test_the_key_set_behaves_like_a_set(batches: list[list[int]]) -> None:
    keys = KeySet(capacity=4)
    plain: set[int] = set()
    for batch in batches:
        fresh = keys.add(np.array(batch, dtype=np.uint64))
        expected = []
        for key in batch:
            expected.append(key not in plain)
            plain.add(key)
        assert fresh.tolist() == expected
        assert len(keys) == len(plain)


# -- fuzz ---------------------------------------------------------------------------------------

MUTATIONS = ("drop line", "truncate", "swap chars", "duplicate hand", "junk line", "bad bytes")


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(
        st.tuples(st.sampled_from(MUTATIONS), st.integers(0, 10**6), st.integers(0, 10**6)),
        min_size=1,
        max_size=6,
    )
)
def test_any_corruption_keeps_the_counts_adding_up(
    tmp_path_factory: pytest.TempPathFactory, mutations: list[tuple[str, int, int]]
) -> None:
    """Random damage to real hands never crashes ingestion: every hand read is parsed,
    quarantined with a reason, or a duplicate, and the rows on disk are the rows counted."""
    texts = hand_texts(1, 8)
    data = "\n".join(texts).encode()
    for kind, a, b in mutations:
        lines = data.split(b"\n")
        if kind == "drop line":
            del lines[a % len(lines)]
            data = b"\n".join(lines)
        elif kind == "truncate":
            data = data[: a % (len(data) + 1)]
        elif kind == "swap chars" and data:
            i, j = a % len(data), b % len(data)
            chars = bytearray(data)
            chars[i], chars[j] = chars[j], chars[i]
            data = bytes(chars)
        elif kind == "duplicate hand":
            data += b"\n" + texts[a % len(texts)].encode()
        elif kind == "junk line":
            lines.insert(a % (len(lines) + 1), b"p1 cbr " + str(b).encode() + b" = [")
            data = b"\n".join(lines)
        elif kind == "bad bytes":
            at = a % (len(data) + 1)
            data = data[:at] + b"\xff\xfe" + data[at:]
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "fuzz.phhs"
    path.write_bytes(data)
    summary = ingest([path], folder / "out", workers=1, chunk_hands=3)
    check_consistent(summary, folder / "out")
    assert rows_on_disk(folder / "out").height == summary.rows
    index = sorted((folder / "out" / "index").glob("*.parquet"))
    assert sum(pl.read_parquet(p).height for p in index) == summary.parsed


# -- the Ray backend --------------------------------------------------------------------------


def test_the_ray_backend_gives_the_same_result(tmp_path: Path) -> None:
    """Local Ray instance, one CPU; same counts and rows as the inline run."""
    pytest.importorskip("ray", reason="the ray extra is not installed")
    write(tmp_path / "in" / "a.phhs", hand_texts(1, 40))
    write(tmp_path / "in" / "b.phhs", hand_texts(2, 30) + hand_texts(1, 5))
    by_ray = ingest([tmp_path / "in"], tmp_path / "ray", workers=1, backend="ray")
    inline = ingest([tmp_path / "in"], tmp_path / "inline", workers=1, backend="serial")
    check_consistent(by_ray, tmp_path / "ray")
    assert by_ray.backend == "ray"
    for field in ("seen", "parsed", "rejected", "duplicates", "rows"):
        assert getattr(by_ray, field) == getattr(inline, field)
    order = ["hand_id", "action_index"]
    assert_frame_equal(
        rows_on_disk(tmp_path / "ray").sort(order), rows_on_disk(tmp_path / "inline").sort(order)
    )


# -- OHH files, per-file counts, --explain --------------------------------------------------


def ohh_files(folder: Path) -> tuple[Path, Path, list[str]]:
    """The PokerStars fixtures as a ``.ohh`` file (one hand broken) and, one per line, as
    a ``.json`` file; and their hand ids."""
    from poolshark.histories.ohh import write_ohh, write_ohh_hands
    from test_histories_replay import fixture_records

    records = fixture_records()
    folder.mkdir(parents=True, exist_ok=True)
    pretty = write_ohh_hands(records).replace('"action": "Fold"', '"action": "Fould"', 1)
    first = folder / "fixtures.ohh"
    first.write_text(pretty)
    second = folder / "again.json"
    second.write_text("".join(write_ohh(r, indent=None) for r in records))
    return first, second, [r.hand_id for r in records]


def test_ohh_files_are_ingested_and_counted_per_file(tmp_path: Path) -> None:
    """A folder's ``.ohh`` file is found and a named ``.json`` one is read as OHH; each
    file's hands add up (the broken one rejected in the first file, then accepted from
    the second; the others duplicates there)."""
    first, second, ids = ohh_files(tmp_path / "in")
    assert history_files([tmp_path / "in"]) == [first]
    out = tmp_path / "out"
    summary = ingest([first, second], out, workers=1)
    check_consistent(summary, out)
    assert summary.seen == 2 * len(ids)
    assert summary.rejected == {"malformed": 1}
    assert summary.parsed == len(ids)
    by_path = {f.path: f for f in summary.per_file}
    assert list(by_path) == sorted(by_path)
    one, two = by_path[str(first)], by_path[str(second)]
    assert (one.hands, one.parsed, one.duplicates, one.rejected) == (9, 8, 0, {"malformed": 1})
    assert (two.hands, two.parsed, two.duplicates, two.rejected) == (9, 1, 8, {})
    saved = json.loads((out / "summary.json").read_text())["per_file"]
    assert [set(f) for f in saved] == [
        {"path", "hands", "parsed", "duplicates", "rejected", "encoding", "error"}
    ] * 2


def test_per_file_counts_follow_duplicates_across_files(tmp_path: Path) -> None:
    """The same hands in two files: the file committed second counts them as duplicates,
    however the workers finish."""
    good = hand_texts_of_fixtures(tmp_path)
    other = tmp_path / "copy.txt"
    other.write_text(good.read_text())
    summary = ingest([good, other], tmp_path / "out", workers=2)
    assert summary.balanced
    counts = sorted((f.parsed, f.duplicates) for f in summary.per_file)
    assert counts == [(0, 9), (9, 0)]


def hand_texts_of_fixtures(folder: Path) -> Path:
    from test_histories_replay import fixture_records

    path = folder / "fixtures.txt"
    path.write_text("\n\n".join(write_pokerstars(r) for r in fixture_records()))
    return path


def test_explain_a_rejected_hand_marks_its_line(tmp_path: Path) -> None:
    first, _, ids = ohh_files(tmp_path)
    explained = explain_hand(f"{first}:0")
    assert not explained.accepted
    assert explained.reason == "malformed"
    assert explained.message is not None
    assert "'Fould'" in explained.message
    lines = first.read_text().splitlines()
    assert explained.marked is not None
    assert "Fould" in lines[explained.marked - 1]
    assert explained.line == 1
    assert explained.format == "ohh"
    by_id = explain_hand(f"{first}:{ids[0]}")  # its id cannot be read: found by its text
    assert by_id.index == 0


def test_explain_an_accepted_hand_gives_its_rows(tmp_path: Path) -> None:
    _, second, ids = ohh_files(tmp_path)
    explained = explain_hand(f"{second}:{ids[3]}")
    assert explained.accepted
    assert explained.index == 3
    assert explained.line == 4
    assert explained.hand_id == ids[3]
    assert explained.rows is not None
    assert explained.rows.schema == ROW_SCHEMA
    assert explained.rows.height > 0
    assert explained.warnings == ()
    assert explained.variants == ()
    data = explained.to_dict()
    assert len(data["rows"]) == explained.rows.height
    json.dumps(data, default=str)
    assert explain_hand(f"{second}:3").hand_id == ids[3]


def test_explain_reports_a_bad_file_or_hand(tmp_path: Path) -> None:
    _, second, _ = ohh_files(tmp_path)
    for spec, message in (
        ("nocolon", "FILE:HAND"),
        (f"{second}:", "FILE:HAND"),
        (f"{tmp_path / 'missing.ohh'}:0", "no such file"),
        (f"{second}:99", "has 9 hands (0 to 8) and none with hand id '99'"),
    ):
        with pytest.raises(IngestError, match=re.escape(message)):
            explain_hand(spec)


def test_explain_marks_the_line_of_the_action_a_replay_refuses() -> None:
    """A replay message quoting a player and a move marks the line where that player
    makes that move, not the first line naming the player (the seat line)."""
    corpus = Path(__file__).parent / "data" / "corpus" / "derived_early_folds.txt"
    explained = explain_hand(f"{corpus}:2")
    assert explained.reason == "replay-illegal"
    assert explained.marked is not None
    lines = corpus.read_text().splitlines()
    assert lines[explained.marked - 1] == "AgeofInnocence: folds"
