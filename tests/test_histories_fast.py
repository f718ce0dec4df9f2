"""The fast path of ingestion against the plain one, stage by stage and end to end.

The fast path (``fast_split``, ``fast_phh``, ``fast_pokerstars``, the row pass, ``settle``,
``fast.judge_hands``) must give exactly what the plain path gives (``split.read_hands``,
``parse_hand``, ``replay.judge``, ``rows.build_rows``): the same hands, the same arrays
for every hand it reads itself, the same accept/reject decisions with the same reasons,
the same warnings and the same rows. Checked on the real sample (PHH, and written as
PokerStars text), on the PokerStars fixtures, on engine-generated hands (random and
hypothesis-drawn, both formats, awkward names) and on hypothesis-corrupted real hands.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import random
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from poolshark.engine.config import Betting
from poolshark.engine.table import Table
from poolshark.histories.fast import (
    Judged,
    RowBatch,
    block_content_ids,
    content_id,
    file_rows,
    judge_hands,
)
from poolshark.histories.fast_phh import RAKE_FROM_POT, read_phh
from poolshark.histories.fast_pokerstars import read_pokerstars
from poolshark.histories.fast_split import Block, read_blocks
from poolshark.histories.flat import UNSTATED, HandArrays
from poolshark.histories.phh import parse_phh, write_phh, write_phhs
from poolshark.histories.pokerstars import write_pokerstars
from poolshark.histories.record import HandRecord, HistoryError, Seat
from poolshark.histories.replay import judge
from poolshark.histories.rows import build_rows, rejections, track
from poolshark.histories.settle import settle
from poolshark.histories.split import parse_hand, read_hands
from test_histories_replay import NAMES, engine_hands, fixture_records, simulated_record
from test_histories_rows import random_records

SAMPLE = Path(__file__).parents[2] / "shared" / "data" / "handhq-ps25"
CORRUPTIONS = int(os.environ.get("POOLSHARK_FAST_CORRUPTIONS", "60"))
"""Examples of the corruption test (raise it to hunt for differences)."""
FIXTURES = Path(__file__).parent / "data" / "pokerstars"


def sample_files() -> list[Path]:
    if not SAMPLE.is_dir():
        pytest.skip(f"the real PHH sample is not here: {SAMPLE}")
    return sorted(SAMPLE.glob("*.phhs"))


@pytest.fixture(scope="module")
def sample_records() -> list[HandRecord]:
    return [parse_hand(raw) for path in sample_files() for raw in read_hands(path)]


def pokerstars_text(records: list[HandRecord]) -> str:
    """The records PokerStars text can show, as one file."""
    written = []
    for record in records:
        try:
            written.append(write_pokerstars(record))
        except ValueError:
            continue
    return "\n\n".join(written)


def engine_records(seed: int, count: int) -> list[HandRecord]:
    """Random engine hands (2-10 players, both bettings, short stacks) with numeric ids,
    PokerStars as the site and awkward names (colons, quotes, non-ASCII, brackets)."""
    records = []
    for i, record in enumerate(random_records(seed, count)):
        names = [NAMES[(i + k) % len(NAMES)] for k in range(record.players)]
        seats = tuple(Seat(s.number, names[k], s.stack) for k, s in enumerate(record.seats))
        records.append(replace(record, site="PokerStars", hand_id=str(10_000 + i), seats=seats))
    return records


# -- the reference: the plain path, hand by hand ----------------------------------------------


def plain_outcomes(path: Path, *, check: bool = True) -> tuple[list[object], list[HandRecord]]:
    """Per hand: ("ok", warnings) or (reason, message); and the accepted records."""
    outcomes: list[object] = []
    records: dict[int, HandRecord] = {}
    for index, raw in enumerate(read_hands(path)):
        try:
            record = parse_hand(raw)
            if not record.hand_id:  # identified by its content (``fast.content_id``)
                record = replace(record, hand_id=content_id(raw.text))
            if check:
                record = judge(record).record
        except HistoryError as error:
            outcomes.append((error.reason, error.message))
            continue
        outcomes.append(("ok", record.warnings))
        records[index] = record
    order = sorted(records)
    for k, error in rejections(track(HandArrays.of([records[i] for i in order]))).items():
        outcomes[order[k]] = (error.reason, error.message)
        del records[order[k]]
    return outcomes, [records[i] for i in sorted(records)]


def fast_outcomes(path: Path, *, check: bool = True) -> FastOutcomes:
    """The same per hand from the fast path, its rows, the fallbacks by stage and the
    hands it judged alone."""
    result = FastOutcomes()
    batch = RowBatch()
    for block in read_blocks(path):
        judged = judge_hands(block, 0, block.hands, check=check)
        batch.add(judged, np.ones(judged.hands, dtype=np.bool_))
        result.fallbacks.update(judged.fallbacks)
        result.fast += int(judged.fast.sum())
        for i in range(judged.hands):
            if judged.accepted[i]:
                warning = judged.warnings.get(i)
                result.outcomes.append(("ok", (warning,) if warning else ()))
            else:
                result.outcomes.append(judged.rejected[i])
    result.frame = batch.frame()
    return result


@dataclasses.dataclass
class FastOutcomes:
    outcomes: list[object] = dataclasses.field(default_factory=list)
    fallbacks: Counter[str] = dataclasses.field(default_factory=Counter)
    fast: int = 0
    frame: pl.DataFrame | None = None


def assert_same_as_plain(path: Path, *, check: bool = True) -> tuple[Counter[str], int]:
    """Same decisions, reasons, warnings and rows by both paths; (fallbacks, fast)."""
    plain, accepted = plain_outcomes(path, check=check)
    fast = fast_outcomes(path, check=check)
    assert fast.outcomes == plain
    assert fast.frame is not None
    assert_frame_equal(fast.frame, build_rows(accepted).frame)
    return fast.fallbacks, fast.fast


# -- splitting ---------------------------------------------------------------------------------


def test_blocks_hold_the_hands_read_hands_gives(tmp_path: Path) -> None:
    """Every sample and fixture file, and a UTF-16 file of 2,400 hands (split by Python,
    streamed a thousand hands at a time), in blocks of any size: the same raw hands."""
    utf16 = tmp_path / "utf16.txt"
    text = (FIXTURES / "zoom_6max_bom.txt").read_text(encoding="utf-8-sig")
    utf16.write_text(text * 800, encoding="utf-16")
    assert [b.hands for b in read_blocks(utf16)] == [1000, 1000, 400]
    files = [*sample_files()[:1], *sorted(FIXTURES.glob("*.txt")), utf16]
    for path in files:
        expected = list(read_hands(path))
        for size in (1 << 20, 4000, 333):
            got = [b.raw(i) for b in read_blocks(path, block_bytes=size) for i in range(b.hands)]
            assert got == expected, (path, size)


_LINES = st.sampled_from(
    [
        "PokerStars Hand #1: x",
        "Seat 1: a ($1 in chips)",
        "",
        "   ",
        "\t",
        "[1]",
        "[2]",
        "[3.notes]",
        "[[x]]",
        "[ 4 ]",
        "# comment",
        "variant = 'NT'",
        "\ufeffPokerStars Hand #2: y",
        "\ufeff[5]",
        "x = 1\r",
        "caf\u00e9",
        "\x1c",
        "*********** # 3 **************",
        "  pokerstars GAME #3: z",
        " Seat 2: b ($2 in chips)",
        "POKERSTARS ZOOM HAND #4: w",
        "****x",
        "\u00a0PokerStars Hand #5: u",
    ]
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.lists(_LINES, max_size=40),
    crlf=st.booleans(),
    bad_byte=st.booleans(),
    size=st.sampled_from([7, 50, 1 << 20]),
    fmt=st.sampled_from(["phh", "pokerstars"]),
)
@example(lines=["\t", "[ 4 ]"], crlf=False, bad_byte=False, size=7, fmt="phh")
def test_any_file_splits_as_read_hands_splits_it(
    tmp_path: Path, lines: list[str], crlf: bool, bad_byte: bool, size: int, fmt: str
) -> None:
    """Blank and whitespace lines, headers of every kind, comments, byte-order marks,
    CRLF, lone carriage returns, non-ASCII and invalid UTF-8: the same hands, texts,
    positions, line numbers and errors."""
    data = "\n".join(lines).encode()
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    if bad_byte and data:
        data = data[: len(data) // 2] + b"\xff" + data[len(data) // 2 :]
    path = tmp_path / ("hands.phhs" if fmt == "phh" else "hands.txt")
    path.write_bytes(data)
    expected = list(read_hands(path, format=fmt))  # type: ignore[arg-type]
    blocks = read_blocks(path, format=fmt, block_bytes=size)  # type: ignore[arg-type]
    assert [b.raw(i) for b in blocks for i in range(b.hands)] == expected


# -- the fast readers against the Python readers -----------------------------------------------


def assert_arrays_match(block: Block, arrays: HandArrays, status: np.ndarray) -> int:
    """Every hand the fast reader read (status 0) gives the arrays of its Python record;
    the fast reader never reads a hand the Python reader rejects. Returns how many it read."""
    phh = block.format == "phh"
    for i in range(block.hands):
        try:
            record = parse_hand(block.raw(i))
        except HistoryError:
            assert status[i] != 0, block.raw(i).text
            continue
        if status[i] != 0:
            continue
        expected = HandArrays.of([record])
        s0, s1 = arrays.seat_start[i : i + 2]
        a0, a1 = arrays.action_start[i : i + 2]
        per_seat = ("stack", "blind", "dead", "hole", "seat_number", "winnings", "name")
        per_action = ("street", "player", "move", "amount", "all_in")
        for spec in dataclasses.fields(HandArrays):
            name = spec.name
            ours = getattr(arrays, name)
            theirs = getattr(expected, name)
            if name == "variants":  # none read from text; records of a reader show none
                assert arrays.variant_bits()[i] == expected.variant_bits()[0] == 0
                continue
            if name in ("seat_start", "action_start"):
                assert (s1 - s0, a1 - a0) == (expected.seat_start[1], expected.action_start[1])
                continue
            if name in per_seat:
                ours = ours[s0:s1]
            elif name in per_action:
                ours = ours[a0:a1]
            else:
                ours = ours[i : i + 1]
            if isinstance(ours, pa.Array):
                assert ours.equals(theirs), (name, ours, theirs)
            elif name == "all_in":  # stated in PokerStars text; in PHH, with short blinds
                flags = [int(a.all_in) for a in record.actions]
                unstated = phh and not short_blind(record)
                assert ours.tolist() == ([UNSTATED] * len(flags) if unstated else flags)
            elif name == "amount" and phh and not short_blind(record):  # no call amounts
                calls = arrays.move[a0:a1] == 1
                assert (ours[calls] == UNSTATED).all()
                assert np.array_equal(ours[~calls], theirs[~calls])
            elif name == "total_pot" and phh:  # PHH states no pot: the pass computes it
                assert ours.tolist() == [-1]
            elif name == "rake" and phh:
                assert ours.tolist() == [RAKE_FROM_POT if record.winnings else 0]
            else:
                assert np.array_equal(ours, theirs), (name, ours, theirs, block.raw(i).text)
    return int((status == 0).sum())


def short_blind(record: HandRecord) -> bool:
    """Whether the largest live blind is more than anyone could post (the PHH reader then
    states the calls and all-in marks the Python reader writes)."""
    behind = [s.stack - min(d, s.stack) for s, d in zip(record.seats, record.dead, strict=True)]
    posted = max(min(b, left) for b, left in zip(record.blinds, behind, strict=True))
    return posted < max(record.blinds)


def read_all(path: Path) -> int:
    """Fast-read every block of the file and check it; the hands read fast."""
    fast = 0
    for block in read_blocks(path):
        reader = read_phh if block.format == "phh" else read_pokerstars
        arrays, status = reader(block, 0, block.hands)
        fast += assert_arrays_match(block, arrays, status)
    return fast


def test_the_phh_reader_reads_every_sample_hand_as_python_does() -> None:
    assert sum(read_all(path) for path in sample_files()) == 2986


def test_the_pokerstars_reader_reads_the_sample_as_python_does(
    sample_records: list[HandRecord], tmp_path: Path
) -> None:
    """The sample written as PokerStars text: all read fast but the six whose rake is
    negative (their winnings exceed the pot), which only the Python reader takes."""
    path = tmp_path / "sample.txt"
    path.write_text(pokerstars_text(sample_records))
    assert read_all(path) == 2975


def test_the_pokerstars_reader_on_the_fixtures() -> None:
    """Real-world lines: what the fast reader takes it reads right; chat, cash-outs, run it
    twice and names with brackets go to the Python reader."""
    fast = sum(read_all(path) for path in sorted(FIXTURES.glob("*.txt")))
    assert fast >= 8


def test_the_readers_on_engine_hands(tmp_path: Path) -> None:
    """1,000 random engine hands, both formats: the same arrays as the Python readers;
    the no-limit hands with bracket-free names are all read fast."""
    records = engine_records(5, 1000)
    phh = tmp_path / "engine.phhs"
    phh.write_text(write_phhs(records))
    assert read_all(phh) >= 0.97 * len(records)  # all but stacks short of a blind
    stars = tmp_path / "engine.txt"
    stars.write_text(pokerstars_text(records))
    plain = [
        r
        for r in records
        if r.betting is Betting.NO_LIMIT and not any("[" in s.player for s in r.seats)
    ]
    assert read_all(stars) >= len(plain) > 100


# -- the settlement check against the engine replay --------------------------------------------


def test_settle_agrees_with_the_judge(sample_records: list[HandRecord]) -> None:
    """Real, random and fixture hands, and tampered ones: a hand passes the compiled
    settlement exactly when the engine replay accepts it without a warning (or it has
    something only the replay judges)."""
    records = [*sample_records[:1500], *random_records(3, 1500), *fixture_records()]
    rng = random.Random(1)
    tampered = []
    for record in records[:1200]:
        if record.winnings is None:
            continue
        won = list(record.winnings)
        k = rng.randrange(len(won))
        change = rng.choice([-1, 1, 5])
        won[k] += change
        tampered.append(replace(record, winnings=tuple(won)))
        if record.board:
            tampered.append(replace(record, board=record.board[:-1]))
        tampered.append(replace(record, total_pot=(record.total_pot or 0) + 1))
    everything = records + tampered
    arrays = HandArrays.of(everything)
    codes = settle(arrays, track(arrays))
    seen: Counter[tuple[bool, bool]] = Counter()
    for record, code in zip(everything, codes.tolist(), strict=True):
        try:
            clean = not judge(record).record.warnings
        except HistoryError:
            clean = False
        if code == 2:  # left to the replay (a second board)
            continue
        assert (code == 0) == clean, (code, record)
        seen[code == 0, clean] += 1
    assert seen[True, True] > 2500
    assert seen[False, False] > 800


# -- end to end: decisions, reasons, warnings, rows ----------------------------------------------


def test_the_sample_end_to_end(tmp_path: Path, sample_records: list[HandRecord]) -> None:
    """PHH and PokerStars text, with and without the winnings check: what the plain path
    decides, with nearly every hand judged by the fast path alone."""
    for path, check in ((sample_files()[0], True), (sample_files()[1], False)):
        fallbacks, alone = assert_same_as_plain(path, check=check)
        assert sum(fallbacks.values()) <= 3
        whole = file_rows(path, check=check)
        assert_frame_equal(whole.frame, fast_outcomes(path, check=check).frame)
        assert whole.fast == alone
    stars = tmp_path / "sample.txt"
    stars.write_text(pokerstars_text(sample_records[:600]))
    fallbacks, alone = assert_same_as_plain(stars)
    assert alone >= 595


def test_corpus_end_to_end() -> None:
    """Every file of the real-text corpus: the same decisions, reasons and rows by both
    paths; the fast path judges alone the old headers, upper-case exports, archives and
    tables without a size."""
    corpus = sorted((FIXTURES.parent / "corpus").glob("*.txt"))
    assert corpus
    fast = 0
    for path in corpus:
        assert_same_as_plain(path, check=False)
        fast += assert_same_as_plain(path)[1]
    assert fast >= 19


def test_fixtures_end_to_end() -> None:
    for path in sorted(FIXTURES.glob("*.txt")):
        assert_same_as_plain(path)
        assert_same_as_plain(path, check=False)


def test_engine_hands_end_to_end(tmp_path: Path) -> None:
    records = engine_records(8, 600)
    (tmp_path / "e.phhs").write_text(write_phhs(records))
    (tmp_path / "e.txt").write_text(pokerstars_text(records))
    for path in (tmp_path / "e.phhs", tmp_path / "e.txt"):
        assert_same_as_plain(path)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(engine_hands(), min_size=1, max_size=4))
def test_hypothesis_engine_hands_end_to_end(tmp_path: Path, tables: list[Table]) -> None:
    """Hypothesis draws the games (antes, straddles, extra posts, rake) and the play."""
    records = [simulated_record(t, 500 + i, reveal="showdown") for i, t in enumerate(tables)]
    phh = tmp_path / "h.phhs"
    phh.write_text("\n".join(write_phh(r, key=i + 1) for i, r in enumerate(records)))
    stars = tmp_path / "h.txt"
    stars.write_text(pokerstars_text(records))
    assert_same_as_plain(phh)
    assert_same_as_plain(stars)


_VERBS = st.sampled_from(
    [
        "folds",
        "checks",
        "calls $0.25",
        "calls $0.10 and is all-in",
        "bets $1",
        "raises $0.25 to $0.50",
        "raises $5 to $100 and is all-in",
        "f",
        "cc",
        "cbr 0.50",
        "cbr 100",
        "sm AhAd",
    ]
)
_ODD_LINES = st.sampled_from(
    [
        "*** SHOW DOWN ***",
        "*** FIRST FLOP *** [2c 3c 4c]",
        "Hand was run twice",
        "x is sitting out",
        "x: sits out",
        "x has timed out",
        "x joins the table at seat #3",
        'x said, "hi"',
        "Dealt to x",
        "Total pot $1 | Rake $0",
        "Board [2c 3c 4c]",
        "Seat 1: x (button) folded before Flop",
        "Uncalled bet ($1) returned to x",
        "x collected $1 from side pot-2",
        "x: posts small blind $0.10",
        "p1 f",
        "hand = 7",
        "seats = [1, 2]",
        "winnings = [0, 0.50]",
        "time = 24:00:00",
        "day = 31",
        "_hero = 'p2'",
        "finishing_stacks = [1, 2]",
        "players = ['a', \"b\"]",
        "[1.notes]",
        "# a comment",
        "",
        "x: Table deposit $5",
        "Betting is capped",
        "x: raises $1 to $2 and has reached the $2 cap",
        "  x: folds",
        "POKERSTARS HAND #9: Hold'em No Limit ($0.10/$0.25) - 2009/10/12 - 23:45:12 (ET)",
        "Table 'x' Seat #1 is the button",
        "*********** # 2 **************",
    ]
)


def _corrupt(text: str, data: st.DataObject) -> str:
    """One random corruption of a hand's text."""
    lines = text.split("\n")
    kinds = ["drop", "copy", "swap", "digit", "char", "cut", "insert", "verb"]
    kind = data.draw(st.sampled_from(kinds))
    at = data.draw(st.integers(0, max(0, len(lines) - 1)))
    if kind == "verb":  # another action by the same player (PokerStars or PHH)
        verb = data.draw(_VERBS)
        lines[at] = re.sub(r": (folds|checks|calls|bets|raises).*$", ": " + verb, lines[at])
        lines[at] = re.sub(r"'(p\d+) (f|cc|cbr [\d.]+)'", lambda m: f"'{m[1]} {verb}'", lines[at])
    elif kind == "insert":
        lines.insert(at, data.draw(_ODD_LINES))
    elif kind == "drop":
        del lines[at]
    elif kind == "copy":
        lines.insert(at, lines[at])
    elif kind == "swap":
        other = data.draw(st.integers(0, max(0, len(lines) - 1)))
        lines[at], lines[other] = lines[other], lines[at]
    elif kind == "cut":
        lines = lines[:at]
    else:
        line = lines[at]
        spots = [m.start() for m in re.finditer(r"\d" if kind == "digit" else r".", line)]
        if spots:
            spot = data.draw(st.sampled_from(spots))
            new = data.draw(
                st.sampled_from("0123456789")
                if kind == "digit"
                else st.sampled_from(list("0'[] :,.$-?pAKcdhsx\u00e9"))
            )
            lines[at] = line[:spot] + new + line[spot + 1 :]
    return "\n".join(lines)


@functools.cache
def sample_texts() -> tuple[list[str], list[str]]:
    """Hands to corrupt: the first 40 sample hands and 40 engine hands with awkward names,
    as PHH texts (without their headers) and as PokerStars texts."""
    records = [parse_hand(raw) for raw in read_hands(sample_files()[0])][:40]
    records += engine_records(13, 40)
    phh = [write_phh(record) for record in records]
    stars = []
    for record in records:
        try:
            stars.append(write_pokerstars(record))
        except ValueError:
            continue
    return phh, stars


@settings(
    max_examples=CORRUPTIONS,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data(), check=st.booleans())
def test_corrupted_real_hands_end_to_end(tmp_path: Path, data: st.DataObject, check: bool) -> None:
    """Real hands with random corruptions among clean ones: the fast path accepts,
    rejects (with the same reason and message) and warns exactly as the plain path."""
    phh, stars = sample_texts()
    picks = data.draw(st.lists(st.integers(0, len(stars) - 1), min_size=1, max_size=4))
    phh_hands = [phh[0]] + [_corrupt(phh[k % len(phh)], data) for k in picks]
    star_hands = [stars[0]] + [_corrupt(stars[k], data) for k in picks]
    path = tmp_path / "c.phhs"
    path.write_text("\n".join(f"[{i + 1}]\n{text}" for i, text in enumerate(phh_hands)))
    assert_same_as_plain(path, check=check)
    path = tmp_path / "c.txt"
    path.write_text("\n\n".join(star_hands))
    assert_same_as_plain(path, check=check)


# -- batches ---------------------------------------------------------------------------------


def test_row_batches_keep_the_hands_asked_for_in_order(tmp_path: Path) -> None:
    """Rows of chosen hands from several pieces, fast and plain mixed: in hand order."""
    path = sample_files()[0]
    block = next(read_blocks(path))
    pieces: list[Judged] = [judge_hands(block, 0, 400), judge_hands(block, 400, 991)]
    batch = RowBatch()
    chosen = []
    for judged in pieces:
        keep = np.arange(judged.hands) % 3 != 1
        batch.add(judged, keep)
        chosen += [judged.lo + i for i in np.flatnonzero(keep & judged.accepted).tolist()]
    records = [judge(parse_hand(block.raw(i))).record for i in chosen]
    assert any(r.warnings for r in records)  # the plain path's hands are among them
    assert_frame_equal(batch.frame(), build_rows(records).frame)


# -- PokerKit-written PHH --------------------------------------------------------------------


POKERKIT_HANDS = 300
"""Random hands PokerKit writes for the tests below (``histories.referee``, seeded)."""


@functools.cache
def pokerkit_file_texts() -> tuple[str, ...]:
    """PokerKit's random hands (no-limit and fixed-limit, 2-10 seats, antes, straddles,
    short stacks, unknown cards, half without ids, half with ``finishing_stacks``)."""
    referee = pytest.importorskip("poolshark.histories.referee")
    return tuple(hand.text for hand in referee.pokerkit_hands(POKERKIT_HANDS, seed=15))


def pokerkit_file(tmp_path: Path) -> Path:
    referee = pytest.importorskip("poolshark.histories.referee")
    path = tmp_path / "pokerkit.phhs"
    path.write_text(referee.phhs_text(list(pokerkit_file_texts())))
    return path


def test_the_phh_reader_reads_pokerkit_hands_as_python_does(tmp_path: Path) -> None:
    """PokerKit's hands, with and without ``finishing_stacks`` (their winnings derived as
    the Python reader derives them) and short blinds (their calls and all-in marks stated):
    the same arrays; nearly all read fast."""
    path = pokerkit_file(tmp_path)
    texts = pokerkit_file_texts()
    finishing = sum("finishing_stacks" in t for t in texts)
    assert 0.3 * len(texts) < finishing < 0.7 * len(texts)
    assert read_all(path) >= 0.97 * len(texts)
    gaps = (path.read_text().replace("\n[", "\n\n\n["), "\n\n".join(texts[0].split("\n")))
    (tmp_path / "gaps.phhs").write_text("[1]\n".join(gaps))  # empty lines, inside too
    for file in (path, tmp_path / "gaps.phhs"):  # ids from bytes as from text
        for block in read_blocks(file):
            read = np.flatnonzero(read_phh(block, 0, block.hands)[1] == 0).tolist()
            assert read
            expected = [content_id(block.raw(i).text) for i in read]
            assert block_content_ids(block, read) == expected


def test_pokerkit_hands_end_to_end(tmp_path: Path) -> None:
    """PokerKit's hands through both paths, with and without the winnings check: the same
    decisions, reasons and rows; a fixed-limit hand with a bet and four raises is judged
    by the fast path alone, with the variant ``limit-cap-4`` in its rows as the replay
    gives it; short blinds are judged fast where the engine prices their calls as the
    record does."""
    path = pokerkit_file(tmp_path)
    fallbacks, alone = assert_same_as_plain(path)
    assert fallbacks["read"] <= 0.03 * POKERKIT_HANDS
    assert alone >= 0.85 * POKERKIT_HANDS
    assert_same_as_plain(path, check=False)
    frame = file_rows(path).frame
    capped = frame.filter(pl.col("variants").str.contains("limit-cap-4"))
    assert capped["hand_id"].n_unique() >= 10


def test_hands_needing_house_rules_are_judged_fast(tmp_path: Path) -> None:
    """PokerKit's hands that replay only under ``posted-price`` (or other house rules the
    compiled stages follow) are judged fast, retried under the rule sets in the replay's
    order, with the variants the replay gives (``assert_same_as_plain`` compares rows,
    variants included); nearly none of them go to the plain path from the row pass."""
    path = pokerkit_file(tmp_path)
    fallbacks, _ = assert_same_as_plain(path)
    needing = 0
    for block in read_blocks(path):
        judged = judge_hands(block, 0, block.hands)
        needing += len(judged.retried_position)
        assert judged.fast[list(judged.retried_position)].all()
        assert judged.retried_arrays is None or judged.retried_arrays.variant_bits().all()
    assert needing >= 5
    assert fallbacks["rows"] <= 2


def test_a_subset_of_arrays_is_the_arrays_of_its_records() -> None:
    """``HandArrays.take`` of some hands (any order) equals the arrays of those records;
    ``variants`` replaces their bits."""
    records = [parse_phh(text) for text in pokerkit_file_texts()[:40]]
    whole = HandArrays.of(records)
    chosen = np.array([7, 3, 3, 39, 0, 21], dtype=np.int64)
    part = whole.take(chosen)
    expected = HandArrays.of([records[i] for i in chosen.tolist()])
    for spec in dataclasses.fields(HandArrays):
        ours = getattr(part, spec.name)
        theirs = getattr(expected, spec.name)
        if spec.name == "variants":
            ours, theirs = part.variant_bits(), expected.variant_bits()
        if isinstance(ours, pa.Array):
            assert ours.to_pylist() == theirs.to_pylist(), spec.name
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=spec.name)
    bits = np.arange(chosen.size, dtype=np.int32)
    assert whole.take(chosen, bits).variant_bits().tolist() == bits.tolist()


def test_the_row_pass_finds_the_cap_of_four_raises() -> None:
    """A fixed-limit record whose betting has a bet and four raises but no variant: the
    row pass widens the cap and marks it, as ``replay.judge`` does."""
    for text in pokerkit_file_texts():
        try:
            judged = judge(parse_phh(text))
        except HistoryError:
            continue
        if "limit-cap-4" in judged.record.variants:
            break
    else:
        pytest.fail("no PokerKit hand with a bet and four raises")
    bare = replace(judged.record, variants=())
    tracked = track(HandArrays.of([bare]))
    assert tracked.error.tolist() == [0]
    assert HandArrays.of([judged.record]).variant_bits().tolist() == tracked.variants.tolist()
    assert build_rows([bare]).frame["variants"].unique().to_list() == ["limit-cap-4"]


@pytest.mark.parametrize("clock", ["24:00:00", "12:60:00", "12:00:60"])
def test_a_clock_that_is_no_time_is_judged_as_the_plain_path_does(
    tmp_path: Path, clock: str
) -> None:
    """A hand whose ``time`` is no clock time is rejected by both paths alike (hypothesis
    found a sample hand with ``time = 24:00:00`` accepted by the fast reader alone)."""
    phh, _ = sample_texts()
    path = tmp_path / "clock.phhs"
    path.write_text(f"[1]\n{phh[0]}\n[2]\ntime = {clock}\n{phh[41]}\n")
    assert_same_as_plain(path)
