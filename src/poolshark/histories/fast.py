"""Hands to checked decision rows in batches: the fast path of ingestion.

For a block of hands (``fast_split``) it runs, each stage once over all the hands:

1. the byte-level reader of the block's format (``fast_phh`` / ``fast_pokerstars``) into
   :class:`~poolshark.histories.flat.HandArrays`;
2. the compiled row pass (``rows.track``), which also follows the betting the way the
   engine does (turn, streets, call amounts, raise sizes, all-in marks, the end);
3. with ``check``, the compiled settlement check (``settle``): board, pot, rake, winnings.

A hand any stage does not pass goes, alone, through the plain path: the Python reader
(``split.parse_hand``), the engine replay (``replay.judge``) and the row builder on its
record. That path decides every rejection (with its reason) and every warning, and any
hand the fast stages do not cover, so the outcome never depends on the fast path: it is
exactly the plain path's, only faster for the hands that are plainly fine. The tests
compare the two on the real sample, engine hands and corrupted hands.

:func:`judge_hands` gives the outcome of each hand (parsed and accepted, with its key; or
rejected, with a reason); a :class:`RowBatch` builds the rows of the hands one keeps, from
several judged pieces at once. Ingestion drops duplicates in between; :func:`file_rows`
does it all for one file, without.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numba as nb
import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa

from poolshark.histories.fast_phh import read_phh
from poolshark.histories.fast_pokerstars import read_pokerstars
from poolshark.histories.fast_split import Block, read_blocks
from poolshark.histories.flat import UNSTATED, HandArrays, variant_bits
from poolshark.histories.record import HandRecord, HistoryError
from poolshark.histories.replay import HOUSE_RULES, house_rule_sets, judge
from poolshark.histories.rows import (
    DEFAULT_SALT,
    Tracked,
    empty_rows,
    rejections,
    rows_frame,
    track,
    variant_codes,
)
from poolshark.histories.settle import settle
from poolshark.histories.split import RawHand, parse_hand

Bools = npt.NDArray[np.bool_]
Int64s = npt.NDArray[np.int64]
Int8s = npt.NDArray[np.int8]
Int32s = npt.NDArray[np.int32]
UInt8s = npt.NDArray[np.uint8]
UInt64s = npt.NDArray[np.uint64]


@dataclass
class Judged:
    """The outcome of hands ``lo:hi`` of a block, before duplicates are dropped.

    Per hand (index from ``lo``): ``key`` (0 when the hand did not parse), ``accepted``,
    and for the others ``rejected[i] = (reason, message)``. Accepted hands are either in
    the fast arrays (``fast[i]``) or plain records (``records[i]``); ``warnings[i]`` is
    the warning of a hand accepted with one. A fast hand the compiled stages accepted only
    under house rules has its rows in ``retried_arrays`` (``retried_position[i]``), with
    those rules' variant bits. ``fallbacks`` counts the hands the fast stages handed to
    the plain path, by stage.
    """

    block: Block
    lo: int
    hi: int
    key: UInt64s
    accepted: Bools
    fast: Bools
    rejected: dict[int, tuple[str, str]]
    warnings: dict[int, str]
    records: dict[int, HandRecord]
    sites: list[str]
    hand_ids: list[str]
    arrays: HandArrays | None = None  # the fast stages' arrays, every hand of the piece
    tracked: Tracked | None = None
    plain_arrays: HandArrays | None = None  # the plain path's records, in hand order
    plain_tracked: Tracked | None = None
    plain_position: dict[int, int] = field(default_factory=dict)  # hand -> plain_arrays index
    retried_arrays: HandArrays | None = None  # fast hands accepted under house rules
    retried_tracked: Tracked | None = None
    retried_position: dict[int, int] = field(default_factory=dict)  # hand -> its index
    fallbacks: Counter[str] = field(default_factory=Counter)

    @property
    def hands(self) -> int:
        """Hands judged."""
        return self.hi - self.lo

    def raw(self, i: int) -> RawHand:
        """Hand ``i`` as read (for quarantine and warnings)."""
        return self.block.raw(self.lo + i)


class RowBatch:
    """Accepted hands of several judged pieces whose rows are built in one go (a frame
    costs about half a millisecond however few its rows, so pieces are batched)."""

    def __init__(self) -> None:
        self._arrays: list[HandArrays] = []
        self._tracked: list[Tracked] = []
        self._starts: list[npt.NDArray[np.int64]] = []
        self._counts: list[npt.NDArray[np.int64]] = []
        self._actions = 0
        self.hands = 0

    def add(self, judged: Judged, keep: Bools) -> None:
        """The rows of the accepted hands of ``judged`` that ``keep`` marks, in hand order."""
        keep = keep & judged.accepted
        hands = np.flatnonzero(keep)
        if not hands.size:
            return
        starts = np.zeros(hands.size, dtype=np.int64)
        counts = np.zeros(hands.size, dtype=np.int64)
        fast = judged.fast[hands]
        retried = np.zeros(hands.size, dtype=np.bool_)
        if judged.retried_position:
            retried = np.isin(hands, np.fromiter(judged.retried_position, dtype=np.int64))
        for chosen, arrays, tracked, position in (
            (fast & ~retried, judged.arrays, judged.tracked, None),
            (retried, judged.retried_arrays, judged.retried_tracked, judged.retried_position),
            (~fast, judged.plain_arrays, judged.plain_tracked, judged.plain_position),
        ):
            if not chosen.any() or arrays is None or tracked is None:
                continue
            where = hands[chosen]
            if position is not None:
                where = np.array([position[int(h)] for h in where], dtype=np.int64)
            offsets = arrays.action_start
            starts[chosen] = self._actions + offsets[where]
            counts[chosen] = offsets[where + 1] - offsets[where]
            self._part(arrays, tracked)
        self._starts.append(starts)
        self._counts.append(counts)
        self.hands += hands.size

    def _part(self, arrays: HandArrays, tracked: Tracked) -> None:
        self._arrays.append(arrays)
        self._tracked.append(tracked)
        self._actions += int(arrays.action_start[-1])

    def frame(self, *, salt: str = DEFAULT_SALT) -> pl.DataFrame:
        """The rows of every hand added, in the order added."""
        if not self.hands:
            return empty_rows()
        starts = np.concatenate(self._starts)
        counts = np.concatenate(self._counts)
        before = np.cumsum(counts) - counts
        rows = np.repeat(starts - before, counts) + np.arange(int(counts.sum()))
        arrays = HandArrays.concat(self._arrays)
        tracked = Tracked.concat(self._tracked)
        return rows_frame(arrays, tracked, salt=salt, rows=rows)


def judge_hands(block: Block, lo: int, hi: int, *, check: bool = True) -> Judged:
    """The outcome of hands ``lo:hi`` of ``block`` (see the module docstring)."""
    count = hi - lo
    judged = Judged(
        block,
        lo,
        hi,
        key=np.zeros(count, dtype=np.uint64),
        accepted=np.zeros(count, dtype=np.bool_),
        fast=np.zeros(count, dtype=np.bool_),
        rejected={},
        warnings={},
        records={},
        sites=[""] * count,
        hand_ids=[""] * count,
    )
    if block.raws is None and count:
        try:
            _fast_stages(judged, check=check)
        except Exception:  # a bug of the fast path must not cost hands: all go plain
            judged.fast[:] = False
            judged.accepted[:] = False
            judged.key[:] = 0
            judged.fallbacks.clear()
            judged.fallbacks["error"] += count
    else:
        judged.fallbacks["split"] += count
    for i in np.flatnonzero(~judged.fast).tolist():
        _plain_path(judged, i, check=check)
    _plain_rows(judged)
    return judged


def _fast_stages(judged: Judged, *, check: bool) -> None:
    """Read, follow and settle the hands at once; mark those that pass all as fast."""
    block = judged.block
    reader = read_phh if block.format == "phh" else read_pokerstars
    arrays, status = reader(block, judged.lo, judged.hi)
    if not check:  # the plain path without the replay does not look at all-in marks
        arrays = dataclasses.replace(arrays, all_in=np.full_like(arrays.all_in, UNSTATED))
    tracked = track(arrays)
    read = status == 0
    followed = read & (tracked.error == 0)
    settled = settle(arrays, tracked) if check else np.zeros(judged.hands, np.int8)
    passed = followed & (settled == 0)
    rules: dict[int, int] = {}
    if check and (read & ~passed).any():  # the plain path without the replay tries none
        rules = house_rule_retries(arrays, tracked.error, settled, np.flatnonzero(read & ~passed))
    retried = np.zeros(judged.hands, dtype=np.bool_)
    retried[list(rules)] = True
    for stage, handed in (
        ("read", ~read),
        ("rows", read & ~followed & ~retried),
        ("settle", followed & ~passed & ~retried),
    ):
        if handed.any():
            judged.fallbacks[stage] += int(handed.sum())
    passed |= retried
    judged.arrays = arrays
    judged.tracked = tracked
    judged.fast = passed
    judged.accepted |= passed
    fast = np.flatnonzero(passed)
    sites = arrays.site.take(fast).to_pylist()
    hand_ids = arrays.hand_id.take(fast).to_pylist()
    if "" in hand_ids:  # identified by their content instead
        missing = [k for k, hand_id in enumerate(hand_ids) if not hand_id]
        ids = block_content_ids(block, (judged.lo + fast[missing]).tolist())
        for k, hand_id in zip(missing, ids, strict=True):
            hand_ids[k] = hand_id
        every = arrays.hand_id.to_pylist()
        for k, i in enumerate(fast.tolist()):
            every[i] = hand_ids[k]
        judged.arrays = arrays = dataclasses.replace(arrays, hand_id=pa.array(every, pa.string()))
    judged.key[fast] = np.fromiter(
        map(hand_key, sites, hand_ids), dtype=np.uint64, count=len(hand_ids)
    )
    if rules:  # their rows: the compiled pass again, under the rules each was accepted with
        chosen = np.array(sorted(rules), dtype=np.int64)
        bits = np.array([rules[i] for i in chosen.tolist()], dtype=np.int32)
        judged.retried_arrays = arrays.take(chosen, bits)
        judged.retried_tracked = track(judged.retried_arrays)
        judged.retried_position = {i: k for k, i in enumerate(chosen.tolist())}
    if fast.size == judged.hands:  # every hand fast: the lists as they are
        judged.sites, judged.hand_ids = sites, hand_ids
        return
    for i, site, hand_id in zip(fast.tolist(), sites, hand_ids, strict=True):
        judged.sites[i] = site
        judged.hand_ids[i] = hand_id


#: The house rules (``replay.HOUSE_RULES``) the compiled stages follow when a hand's
#: variant bits name them: ``rows.track`` the raise cap, the posted price and the reopening
#: short all-in; the settlement needs none. ``antes-in-main-pot`` they do not follow.
COMPILED_HOUSE_RULES = frozenset(("limit-cap-4", "posted-price", "short-all-in-reopens"))

#: ``rows.track`` errors the replay makes too, under the same rules: each is found at an
#: action played in turn (no fold before it waited for its turn), where ``Table`` refuses
#: the same thing (a call amount, a raise, an all-in mark) or the hand is left unfinished.
DEFINITE_TRACK_ERRORS = frozenset((7, 8, 9, 10, 13))
#: ``settle.settle`` codes the replay rejects too: the board, the stated pot, the rake, the
#: winnings' sum (not 6 or 9: the replay may accept those with a warning or a variant).
DEFINITE_SETTLE_CODES = frozenset((4, 5, 7, 8))


def house_rule_retries(
    arrays: HandArrays, error: Int8s, settled: Int8s, hands: Int64s
) -> dict[int, int]:
    """Of ``hands`` (read, but not passed by the compiled stages under the rules their
    records show), those the compiled stages accept under house rules, with the variant
    bits to accept them with: the rule sets are tried in ``replay.judge``'s order
    (``replay.house_rule_sets``), each earlier one having to fail in a way the replay
    fails too; a hand stops (goes plain) at the first set the compiled stages cannot
    decide, or one with a rule they do not follow."""
    known_bits = arrays.variant_bits()[hands]
    verdicts = {frozenset[str](): _verdicts(error[hands], settled[hands], widened=None)}
    followed = sorted(COMPILED_HOUSE_RULES)
    for size in range(1, len(followed) + 1):
        for extra in combinations(followed, size):
            rules = frozenset(extra)
            bits = known_bits | variant_bits(sorted(rules))
            subset = arrays.take(hands, bits.astype(np.int32))
            tracked = track(subset)
            widened = None if "limit-cap-4" in rules else tracked.variants & ~subset.variant_bits()
            verdicts[rules] = _verdicts(tracked.error, settle(subset, tracked), widened=widened)
    accepted: dict[int, int] = {}
    for k, hand in enumerate(hands.tolist()):
        known = frozenset(variant_codes(int(known_bits[k]))) & frozenset(HOUSE_RULES)
        seats = slice(arrays.seat_start[hand], arrays.seat_start[hand + 1])
        blind = arrays.blind[seats]
        dead = arrays.dead[seats]
        short = bool(((blind != 0) & (arrays.stack[seats] < dead + blind)).any())
        tried = house_rule_sets(
            known,
            fixed_limit=bool(arrays.fixed_limit[hand]),
            priced_blind=short or (blind.size > 0 and int(blind.max()) > arrays.big_blind[hand]),
            dead_money=bool(dead.any()),
        )
        for rules in [known, *tried]:
            if not rules <= COMPILED_HOUSE_RULES:
                break
            verdict = verdicts[rules][k]
            if verdict == _PASSES:
                if rules != known:
                    accepted[hand] = int(known_bits[k]) | variant_bits(sorted(rules))
                break
            if verdict == _UNDECIDED:
                break
    return accepted


_PASSES, _FAILS, _UNDECIDED = 0, 1, 2


def _verdicts(error: Int8s, settled: Int8s, *, widened: Int32s | None) -> list[int]:
    """Per hand, what the compiled stages say of it under one set of rules: it passes, the
    replay fails it too, or only the replay can tell. ``widened``: hands the row pass moved
    to the cap of four raises, which the rules tried do not allow (they fail)."""
    out = []
    for k, (problem, code) in enumerate(zip(error.tolist(), settled.tolist(), strict=True)):
        if widened is not None and widened[k]:
            out.append(_FAILS)
        elif problem == 0 and code == 0:
            out.append(_PASSES)
        elif problem in DEFINITE_TRACK_ERRORS or (problem == 0 and code in DEFINITE_SETTLE_CODES):
            out.append(_FAILS)
        else:
            out.append(_UNDECIDED)
    return out


def _plain_path(judged: Judged, i: int, *, check: bool) -> None:
    """Hand ``i`` through the Python reader and the engine replay."""
    raw = judged.raw(i)
    try:
        record = parse_hand(raw)
    except HistoryError as error:
        judged.rejected[i] = (error.reason, error.message)
        return
    except Exception as error:  # a reader bug must not stop the run: keep the hand
        judged.rejected[i] = ("internal-error", describe(error))
        return
    if not record.hand_id:
        record = dataclasses.replace(record, hand_id=content_id(raw.text))
    judged.sites[i] = record.site
    judged.hand_ids[i] = record.hand_id
    judged.key[i] = hand_key(record.site, record.hand_id)
    if check:
        try:
            record = judge(record).record
        except HistoryError as error:
            judged.rejected[i] = (error.reason, error.message)
            return
        except Exception as error:
            judged.rejected[i] = ("internal-error", describe(error))
            return
        if record.warnings:
            judged.warnings[i] = record.warnings[0]
    judged.records[i] = record
    judged.accepted[i] = True


def _plain_rows(judged: Judged) -> None:
    """Reject the plain-path hands the row pass cannot follow (only without the replay:
    a replayed hand always can)."""
    plain = sorted(judged.records)
    if not plain:
        return
    try:
        arrays = HandArrays.of([judged.records[i] for i in plain])
        tracked = track(arrays)
    except Exception:  # an odd record (absurd amounts, ...): find it, keep the others
        for i in plain:
            try:
                track(HandArrays.of([judged.records[i]]))
            except Exception as error:
                judged.rejected[i] = ("internal-error", describe(error))
                _unaccept(judged, i)
        _plain_rows(judged)
        return
    for k, problem in rejections(tracked).items():
        judged.rejected[plain[k]] = (problem.reason, problem.message)
        _unaccept(judged, plain[k])
    judged.plain_arrays = arrays
    judged.plain_tracked = tracked
    judged.plain_position = {i: k for k, i in enumerate(plain)}


def _unaccept(judged: Judged, i: int) -> None:
    judged.accepted[i] = False
    judged.warnings.pop(i, None)
    del judged.records[i]


def describe(error: BaseException) -> str:
    """An unexpected exception in one line."""
    return f"{type(error).__name__}: {error}"


def hand_key(site: str, hand_id: str) -> int:
    """The 64-bit key that identifies a hand across files and runs (never 0)."""
    digest = hashlib.blake2b(f"{site}\x00{hand_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") or 1


def content_id(text: str) -> str:
    """The id of a hand whose history gives none (PHH without ``hand``): ``#`` and 16 hex
    digits of BLAKE2b of its text, less a ``[n]`` table header, trailing spaces and blank
    lines. Distinct hands get distinct ids; the same hand read again, the same id."""
    lines = [line.rstrip() for line in text.split("\n")]
    if lines and lines[0].startswith("["):
        lines = lines[1:]
    canonical = "\n".join(line for line in lines if line)
    return "#" + hashlib.blake2b(canonical.encode(), digest_size=8).hexdigest()


def block_content_ids(block: Block, hands: Sequence[int]) -> list[str]:
    """:func:`content_id` of the hands ``hands`` of a block the fast PHH reader read, from
    the block's bytes: a hand that reader takes has no line that ends in a space and none
    of spaces only, so only the ``[n]`` header and empty lines go; without empty lines
    inside, what is hashed is one span of the bytes (the tests compare the two)."""
    if block.format != "phh":
        return [content_id(block.raw(i).text) for i in hands]
    chosen = np.asarray(hands, dtype=np.int64)
    spans = _content_spans(block.data, block.start[chosen], block.end[chosen])
    data = block.data.data  # a memoryview: spans hashed without copies
    ids = []
    for lo, hi, gaps in spans.tolist():
        if gaps:  # empty lines inside: joined without them
            lines = data[lo:hi].tobytes().split(b"\n")
            digest = hashlib.blake2b(b"\n".join(filter(None, lines)), digest_size=8)
        else:
            digest = hashlib.blake2b(data[lo:hi], digest_size=8)
        ids.append("#" + digest.hexdigest())
    return ids


@nb.njit(cache=True, nogil=True)
def _content_spans(data: UInt8s, start: Int64s, end: Int64s) -> Int64s:
    """Per hand, the bytes :func:`content_id` hashes (less a first line that starts with
    ``[``, and newlines at either end) and whether empty lines lie inside them."""
    spans = np.zeros((start.shape[0], 3), np.int64)
    for k in range(start.shape[0]):
        lo = start[k]
        hi = end[k]
        if lo < hi and data[lo] == 91:  # [n]
            while lo < hi and data[lo] != 10:
                lo += 1
        while lo < hi and data[lo] == 10:
            lo += 1
        while hi > lo and data[hi - 1] == 10:
            hi -= 1
        gaps = 0
        for i in range(lo, hi - 1):
            if data[i] == 10 and data[i + 1] == 10:
                gaps = 1
                break
        spans[k, 0] = lo
        spans[k, 1] = hi
        spans[k, 2] = gaps
    return spans


# -- one file to rows, without duplicates or quarantine (benchmarks, tests) ---------------


@dataclass
class FileRows:
    """Rows of one file's accepted hands, and how its hands fared."""

    frame: pl.DataFrame
    hands: int = 0
    accepted: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    warnings: Counter[str] = field(default_factory=Counter)
    fast: int = 0
    fallbacks: Counter[str] = field(default_factory=Counter)


def file_rows(path: str | Path, *, check: bool = True, salt: str = DEFAULT_SALT) -> FileRows:
    """Every hand of a file to decision rows by the fast path (no duplicate check)."""
    batch = RowBatch()
    result = FileRows(empty_rows())
    for block in read_blocks(path):
        judged = judge_hands(block, 0, block.hands, check=check)
        batch.add(judged, np.ones(judged.hands, dtype=np.bool_))
        result.hands += judged.hands
        result.accepted += int(judged.accepted.sum())
        result.fast += int(judged.fast.sum())
        result.rejected.update(reason for reason, _ in judged.rejected.values())
        result.warnings.update(judged.warnings.values())
        result.fallbacks.update(judged.fallbacks)
    result.frame = batch.frame(salt=salt)
    return result
