"""Ingestion: hand-history files in, decision rows (partitioned Parquet) and a summary out.

Each input file is one unit of work, run in a process pool (all cores by default), in
Ray tasks (``backend="ray"``) or inline (``backend="serial"``). A worker streams its file
in blocks of whole hands (never reading it whole), and in chunks of ``chunk_hands`` judges
them (``fast.judge_hands``: the compiled readers and checks, and for any hand they do not
pass the Python reader and the engine replay), drops duplicates and builds decision rows;
it writes each chunk as a staged part. The parent commits parts one at a time, so the
bookkeeping that must be global (hands already ingested, in this run or before) lives in
one place.

Layout of the output folder ``OUT``::

    OUT/rows/part-RUN-FILE-CHUNK.parquet     decision rows (schema: ``rows.ROW_SCHEMA``)
    OUT/index/part-RUN-FILE-CHUNK.parquet    (site, hand_id, key) of every hand ingested
    OUT/quarantine/RUN-FILE-NAME.txt         each rejected hand: a one-line reason, its text
    OUT/warnings/RUN-FILE-NAME.txt           each hand accepted with a warning, the same way
    OUT/summary.json                         the last run's summary; runs.jsonl: every run

The summary also counts each file's hands (``Summary.per_file``: hands, parsed, duplicates,
rejected by reason, the encoding read). Why one hand is rejected, or what it gives when
accepted, is :mod:`poolshark.histories.explain` (``poolshark ingest --explain FILE:HAND``).

Nothing is lost and nothing is counted twice: every hand read is parsed, rejected (with a
reason, into quarantine) or a duplicate, so ``seen = parsed + rejected + duplicates``.
A parsed hand whose winnings could not be verified (``replay.judge``) is counted under
``warnings`` by reason, listed in ``OUT/warnings`` and marked in its rows' ``warning``.
A hand is a duplicate when its site and hand id were ingested before (the index), so
re-ingesting the same files adds no rows. Keys are 64-bit hashes of site and hand id.
The output is read back here too (``row_files``, ``scan_rows``, ``hand_chunk_frames``:
whole hands a chunk at a time, for the trainers that stream it).

Long module: the writer and its readers share one layout of the output folder; the
workers, the three backends and the commit of staged parts are one protocol, kept
together.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from queue import Empty
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import polars as pl
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from poolshark.histories.fast import Judged, RowBatch, describe, judge_hands
from poolshark.histories.fast import hand_key as hand_key  # part of this module's API
from poolshark.histories.fast_split import Block, read_blocks
from poolshark.histories.keyset import KeySet
from poolshark.histories.record import HistoryError
from poolshark.histories.replay import warning_message
from poolshark.histories.rows import DEFAULT_SALT, ROW_SCHEMA
from poolshark.histories.split import RawHand

UInt64s = npt.NDArray[np.uint64]
Backend = Literal["process", "ray", "serial"]
OnProgress = Callable[[int, int], None]  # (hands, characters) just processed

HISTORY_SUFFIXES = (".phh", ".phhs", ".ohh", ".txt")
"""File names ingestion picks up when given a folder (files named explicitly are always
read, whatever their name)."""

INDEX_SCHEMA = pl.Schema({"site": pl.String(), "hand_id": pl.String(), "key": pl.UInt64()})


class IngestError(ValueError):
    """Ingestion cannot start: a missing input, an unusable output folder."""


# -- one file: the work a worker does --------------------------------------------------------


@dataclass(frozen=True)
class Options:
    """What every worker needs to know (sent to each one, so kept small and picklable)."""

    out: str
    run: str
    salt: str = DEFAULT_SALT
    replay: bool = True
    chunk_hands: int = 20_000
    known: str | None = None  # .npy of sorted keys ingested by earlier runs


@dataclass
class Part:
    """A chunk of hands written to the staging folder, waiting for the parent's commit."""

    name: str
    keys: UInt64s
    rows: int
    warned: dict[int, tuple[str, str]] = field(default_factory=dict)  # key -> reason, entry


@dataclass
class FileResult:
    """What happened to one file's hands (``parsed`` counts hands whose rows are staged)."""

    path: str
    stem: str = ""  # name of this file's quarantine and warnings files
    seen: int = 0
    parsed: int = 0
    duplicates: int = 0
    rows: int = 0
    chars: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    fast: int = 0  # hands the fast path accepted alone
    fallbacks: Counter[str] = field(default_factory=Counter)  # hands it handed over, by stage
    encodings: Counter[str] = field(default_factory=Counter)  # hands by the encoding read
    parts: list[Part] = field(default_factory=list)
    error: str | None = None


QUARANTINE_MARK = "### rejected: "
"""How each quarantined hand starts: ``### rejected: REASON: MESSAGE [SOURCE line N]``,
one line, then the hand's text as read, then a blank line."""
WARNING_MARK = "### warning: "
"""How each hand in ``OUT/warnings`` starts (then as in quarantine)."""


class Quarantine:
    """Rejected (or warned) hands of one file: each as a one-line reason, then its raw text.

    The file is opened on the first hand, so clean inputs leave no empty files.
    """

    def __init__(self, path: Path, mark: str = QUARANTINE_MARK) -> None:
        self.path = path
        self.mark = mark
        self._file: Any = None

    def add(self, raw: RawHand, reason: str, message: str) -> None:
        """Write one hand with its reason and where it was read from."""
        self.write(entry(self.mark, raw, reason, message))

    def write(self, text: str) -> None:
        """Append an entry made by :func:`entry`."""
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8", errors="replace")
        self._file.write(text)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


def entry(mark: str, raw: RawHand, reason: str, message: str) -> str:
    """One hand as quarantine and warnings files list it: the mark, the reason, the message
    and where the hand was read, on one line; then its text; then a blank line."""
    line = " ".join(message.split())
    where = f"{raw.source} line {raw.line}"
    return f"{mark}{reason}: {line} [{where}]\n" + raw.text.rstrip("\n") + "\n\n"


def ingest_file(
    path: str, number: int, options: Options, progress: OnProgress | None = None
) -> FileResult:
    """Read, check and turn into staged row parts every hand of one file.

    Never raises for bad hands. A file that cannot be read (or stops being readable) sets
    ``error``; the hands read before that are still processed and counted.
    """
    out = Path(options.out)
    name = f"{options.run}-{number:05d}"
    result = FileResult(path, stem=f"{name}-{_safe(Path(path).stem)}.txt")
    quarantine = Quarantine(out / "quarantine" / result.stem)
    work = _Chunks(options, name, _load_known(options.known), result, quarantine, progress)
    try:
        for block in read_blocks(Path(path)):
            work.add(block)
    except (OSError, UnicodeError, HistoryError) as error:
        result.error = describe(error)
    finally:
        work.flush()
        quarantine.close()
    return result


class _Chunks:
    """Collects a file's hands and processes them ``chunk_hands`` at a time: the fast path
    judges each block's share of the chunk (``fast.judge_hands``), duplicates are dropped
    in hand order, and the rows of the chunk's hands are built in one go."""

    def __init__(
        self,
        options: Options,
        name: str,
        known: UInt64s,
        result: FileResult,
        quarantine: Quarantine,
        progress: OnProgress | None,
    ) -> None:
        self.options = options
        self.name = name
        self.known = known
        self.result = result
        self.quarantine = quarantine
        self.progress = progress
        self.taken: set[int] = set()  # keys of this file's hands already accepted
        self.pending: list[tuple[Block, int, int]] = []
        self.pending_hands = 0

    def add(self, block: Block) -> None:
        """Queue a block's hands, processing every ``chunk_hands`` of them."""
        lo = 0
        while lo < block.hands:
            take = min(block.hands - lo, self.options.chunk_hands - self.pending_hands)
            self.pending.append((block, lo, lo + take))
            self.pending_hands += take
            lo += take
            if self.pending_hands >= self.options.chunk_hands:
                self.flush()

    def flush(self) -> None:
        """Process the pending hands: judge, dedupe, rows; stage them as a part."""
        if not self.pending:
            return
        pieces, self.pending, self.pending_hands = self.pending, [], 0
        batch = RowBatch()
        kept = _Kept()
        chars = 0
        for block, lo, hi in pieces:
            judged = judge_hands(block, lo, hi, check=self.options.replay)
            self.result.fallbacks.update(judged.fallbacks)
            self.result.fast += int(judged.fast.sum())
            self.result.encodings.update(block.encodings(lo, hi))
            batch.add(judged, self._dedupe(judged, kept))
            self.result.seen += judged.hands
            chars += block.bytes(lo, hi)
        if kept.keys:
            self._stage(batch.frame(salt=self.options.salt), kept)
        self.result.chars += chars
        if self.progress is not None:
            self.progress(sum(hi - lo for _, lo, hi in pieces), chars)

    def _dedupe(self, judged: Judged, kept: _Kept) -> npt.NDArray[np.bool_]:
        """Which hands of ``judged`` to keep: accepted and not seen before (in this file,
        in hand order, or in earlier runs); the others are counted, rejected ones
        quarantined."""
        keep = np.zeros(judged.hands, dtype=np.bool_)
        keys = judged.key.tolist()
        old = _contains(self.known, judged.key).tolist()
        accepted = judged.accepted.tolist()
        taken = self.taken
        for i, key in enumerate(keys):
            if key and (old[i] or key in taken):
                self.result.duplicates += 1
            elif accepted[i]:
                taken.add(key)
                keep[i] = True
                kept.add(judged, i)
            else:
                reason, message = judged.rejected[i]
                self._reject(judged.raw(i), reason, message)
        return keep

    def _stage(self, frame: pl.DataFrame, kept: _Kept) -> None:
        name = f"{self.name}-{len(self.result.parts):04d}"
        staging = Path(self.options.out) / "staging" / self.options.run
        staging.mkdir(parents=True, exist_ok=True)
        keys = np.array(kept.keys, dtype=np.uint64)
        index = pl.DataFrame(
            {"site": kept.sites, "hand_id": kept.hand_ids, "key": keys}, schema=INDEX_SCHEMA
        )
        index.write_parquet(staging / f"index-{name}.parquet")
        frame.write_parquet(staging / f"rows-{name}.parquet")
        self.result.parsed += len(kept.keys)
        self.result.rows += frame.height
        self.result.parts.append(Part(name, keys, frame.height, kept.warned))

    def _reject(self, raw: RawHand, reason: str, message: str) -> None:
        self.result.rejected[reason] += 1
        self.quarantine.add(raw, reason, message)


class _Kept:
    """The hands of a chunk that are kept: what the index part and warnings need."""

    def __init__(self) -> None:
        self.keys: list[int] = []
        self.sites: list[str] = []
        self.hand_ids: list[str] = []
        self.warned: dict[int, tuple[str, str]] = {}

    def add(self, judged: Judged, i: int) -> None:
        key = int(judged.key[i])
        self.keys.append(key)
        self.sites.append(judged.sites[i])
        self.hand_ids.append(judged.hand_ids[i])
        reason = judged.warnings.get(i)
        if reason is not None:
            message = warning_message(judged.records[i])
            self.warned[key] = (reason, entry(WARNING_MARK, judged.raw(i), reason, message))


def _safe(stem: str) -> str:
    """A file-name fragment: letters, digits, ``-_.`` only, at most 60 characters."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in stem)[:60] or "hands"


def _load_known(path: str | None) -> UInt64s:
    if path is None:
        return np.zeros(0, dtype=np.uint64)
    known: UInt64s = np.load(path, mmap_mode="r")
    return known


def _contains(sorted_keys: UInt64s, keys: UInt64s) -> npt.NDArray[np.bool_]:
    """Which ``keys`` are in the sorted array ``sorted_keys``."""
    if sorted_keys.shape[0] == 0:
        return np.zeros(keys.shape[0], dtype=np.bool_)
    where = np.searchsorted(sorted_keys, keys).clip(max=sorted_keys.shape[0] - 1)
    found: npt.NDArray[np.bool_] = sorted_keys[where] == keys
    return found


# -- the run: inputs, workers, commits, summary --------------------------------------------


@dataclass
class FileSummary:
    """One input file's hands: ``hands == parsed + sum(rejected) + duplicates``.

    ``encoding``: the text encodings its hands were read in, most hands first, joined by
    ``+`` (``utf-8``, ``cp1252+utf-8``; None for a file without hands); ``error``:
    why the file could not be read to its end (its hands read before are counted).
    """

    path: str
    hands: int = 0
    parsed: int = 0
    duplicates: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    encoding: str | None = None
    error: str | None = None

    @property
    def balanced(self) -> bool:
        """Whether every hand of the file is accounted for exactly once."""
        return self.hands == self.parsed + sum(self.rejected.values()) + self.duplicates


@dataclass
class Summary:
    """The counts of one run; ``seen == parsed + sum(rejected) + duplicates`` always.

    ``warnings``: parsed hands accepted with a warning, by reason. ``fast``: hands the
    compiled path judged alone; ``fallbacks``: hands it handed to the Python reader and
    the engine replay, by the stage that could not take them (``split``, ``read``,
    ``rows``, ``settle``); ``seen == fast + sum(fallbacks)``. ``encodings``: per file, its
    hands by the encoding they were read with (``split.ENCODINGS``).
    """

    files: int
    seen: int = 0
    parsed: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    duplicates: int = 0
    rows: int = 0
    warnings: dict[str, int] = field(default_factory=dict)
    fast: int = 0
    fallbacks: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    workers: int = 1
    backend: str = "serial"
    out: str = ""
    run: str = ""
    parts: int = 0
    file_errors: dict[str, str] = field(default_factory=dict)
    encodings: dict[str, dict[str, int]] = field(default_factory=dict)  # file -> hands by encoding
    per_file: list[FileSummary] = field(default_factory=list)  # by path

    @property
    def balanced(self) -> bool:
        """Whether every hand seen is accounted for exactly once, in all and per file."""
        total = self.seen == self.parsed + sum(self.rejected.values()) + self.duplicates
        return total and all(f.balanced for f in self.per_file)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: every field, rejections sorted by reason, hands per second."""
        data = asdict(self)
        data["rejected"] = dict(sorted(self.rejected.items()))
        data["warnings"] = dict(sorted(self.warnings.items()))
        data["fallbacks"] = dict(sorted(self.fallbacks.items()))
        data["seconds"] = round(self.seconds, 3)
        data["hands_per_s"] = round(self.seen / self.seconds, 1) if self.seconds > 0 else 0.0
        return data


def history_files(paths: Iterable[Path | str], *, skip: Path | None = None) -> list[Path]:
    """The files to read: each file given, and every history file under each folder given
    (sorted, so runs are repeatable), except under ``skip`` (the output's quarantine, whose
    files must not be read back). Raises :class:`IngestError` for a missing path."""
    files: list[Path] = []
    skipped = skip.resolve() if skip is not None else None
    for item in paths:
        path = Path(item)
        if path.is_dir():
            found = (
                p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in HISTORY_SUFFIXES
            )
            files.extend(
                sorted(p for p in found if skipped is None or skipped not in p.resolve().parents)
            )
        elif path.is_file():
            files.append(path)
        else:
            raise IngestError(f"no such file or folder: {path}")
    return list(dict.fromkeys(files))


def ingest(
    paths: Iterable[Path | str],
    out: Path | str,
    *,
    workers: int | None = None,
    backend: Backend = "process",
    salt: str = DEFAULT_SALT,
    replay_hands: bool = True,
    chunk_hands: int = 20_000,
    progress: bool = False,
) -> Summary:
    """Ingest history files into ``out`` (see the module docstring); return the summary.

    ``workers``: processes (or Ray tasks at once). By default every core, but no more
    than one per file nor per :data:`BYTES_PER_WORKER` of input: a worker takes a second or
    two to start, which small inputs do not repay. ``progress`` shows a rich progress bar
    on stderr. The summary is also written to ``out/summary.json``.

    With the process backend, a script calling this must guard its top level with
    ``if __name__ == "__main__":`` (workers re-import the main module, as multiprocessing's
    spawn and forkserver methods do).
    """
    started = time.perf_counter()
    folder = Path(out)
    files = history_files(paths, skip=folder / "quarantine")
    if chunk_hands < 1:
        raise IngestError(f"chunk_hands must be at least 1, not {chunk_hands}")
    if folder.exists() and not folder.is_dir():
        raise IngestError(f"output {folder} is not a folder")
    for sub in ("rows", "index", "quarantine", "warnings"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    run = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
    store = _Store(folder, run)
    total_chars = sum(f.stat().st_size for f in files)
    workers = _worker_count(workers, len(files), total_chars)
    options = Options(str(folder), run, salt, replay_hands, chunk_hands, store.known_path)
    summary = Summary(files=len(files), workers=workers, backend=backend, out=str(folder), run=run)
    try:
        with _ProgressBar(total_chars, enabled=progress) as bar:
            for result in _run(files, options, backend, workers, bar.advance):
                store.commit(result, summary)
            bar.hands = summary.seen
    finally:
        store.close()
    summary.per_file.sort(key=lambda f: f.path)
    summary.seconds = time.perf_counter() - started
    if not summary.balanced:  # a bug, never bad input: say so loudly
        raise AssertionError(f"ingestion counts do not add up: {summary}")
    data = summary.to_dict()
    (folder / "summary.json").write_text(json.dumps(data, indent=2) + "\n")
    with (folder / "runs.jsonl").open("a") as log:
        log.write(json.dumps(data) + "\n")
    return summary


BYTES_PER_WORKER = 4 << 20
"""Input per worker below which ``ingest`` uses fewer workers (4 MiB: about 5,000 hands)."""


def _worker_count(requested: int | None, files: int, total_bytes: int) -> int:
    """Workers to use: as requested, else every core within the limits of ``ingest``."""
    if requested is not None:
        return max(1, requested)
    cores = os.cpu_count() or 1
    return max(1, min(cores, files, -(-total_bytes // BYTES_PER_WORKER)))


def row_files(out: Path | str) -> list[Path]:
    """The Parquet parts of an ingest folder ``out``, in name order."""
    return sorted((Path(out) / "rows").glob("part-*.parquet"))


def scan_rows(out: Path | str) -> pl.LazyFrame:
    """All decision rows ingested into ``out``, lazily (an empty frame if none)."""
    parts = row_files(out)
    if not parts:
        return pl.LazyFrame(schema=ROW_SCHEMA)
    return pl.scan_parquet(parts)


def hand_chunk_frames(
    out: Path | str, chunk_hands: int, columns: Sequence[str]
) -> Iterator[pl.DataFrame]:
    """The rows ingested into ``out`` (only ``columns``) as frames of up to ``chunk_hands``
    whole hands, for trainers that must not hold every row at once. Ingestion writes each
    hand whole into one part and never twice (its index dedupes by site and hand id), so
    parts are read one after another, gathered until they hold ``chunk_hands`` hands (or
    run out), and cut by (site, hand id) into chunks: a hand is never split. Memory holds
    about one chunk plus the largest part."""
    if chunk_hands < 1:
        raise ValueError(f"chunk_hands must be at least 1, got {chunk_hands}")
    files = row_files(out)
    pending: list[pl.DataFrame] = []
    pending_hands = 0
    for number, path in enumerate(files):
        frame = pl.read_parquet(path, columns=list(columns))
        pending.append(frame)
        pending_hands += frame.select(pl.struct("site", "hand_id").n_unique()).item()
        if pending_hands < chunk_hands and number < len(files) - 1:
            continue
        rows = pl.concat(pending) if len(pending) > 1 else pending[0]
        pending, pending_hands = [], 0
        piece = rows.select(pl.struct("site", "hand_id").rank("dense") - 1).to_series()
        rows = rows.with_columns((piece // chunk_hands).alias("_chunk"))
        chunks = rows.partition_by("_chunk", as_dict=True)
        for _, part in sorted(chunks.items(), key=lambda item: item[0]):
            yield part.drop("_chunk")
        del rows


def _run(
    files: Sequence[Path], options: Options, backend: Backend, workers: int, advance: OnProgress
) -> Iterator[FileResult]:
    """Each file's result as soon as it is ready, from the chosen backend."""
    if backend == "serial" or (backend == "process" and (workers == 1 or len(files) <= 1)):
        for number, path in enumerate(files):
            yield ingest_file(str(path), number, options, advance)
    elif backend == "process":
        yield from _run_processes(files, options, workers, advance)
    elif backend == "ray":
        for result in _run_ray(files, options, workers):
            advance(result.seen, result.chars)
            yield result
    else:
        raise IngestError(f"unknown backend {backend!r}: use process, ray or serial")


_progress_queue: Any = None


def _start_worker(queue: Any) -> None:
    """Process-pool initializer: where workers send their progress."""
    global _progress_queue
    _progress_queue = queue


def _report(hands: int, chars: int) -> None:
    _progress_queue.put((hands, chars))


def _pool_task(path: str, number: int, options: Options) -> FileResult:
    return ingest_file(path, number, options, _report)


def _run_processes(
    files: Sequence[Path], options: Options, workers: int, advance: OnProgress
) -> Iterator[FileResult]:
    """Files across a pool of processes, progress through a queue.

    Workers are forked from a fresh server process that has imported this module (and the
    main module once), not from this one: forking a process whose polars or numba threads
    are running is unsafe, and spawning each worker would import everything again.
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["__main__", __name__])
    queue = context.Queue()
    with ProcessPoolExecutor(
        max_workers=min(workers, len(files)),
        mp_context=context,
        initializer=_start_worker,
        initargs=(queue,),
    ) as pool:
        pending: set[Future[FileResult]] = {
            pool.submit(_pool_task, str(path), number, options) for number, path in enumerate(files)
        }
        while pending:
            finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            _drain(queue, advance)
            for future in finished:
                yield future.result()
        _drain(queue, advance)


def _drain(queue: Any, advance: OnProgress) -> None:
    while True:
        try:
            hands, chars = queue.get_nowait()
        except Empty:
            return
        advance(hands, chars)


def _run_ray(files: Sequence[Path], options: Options, workers: int) -> Iterator[FileResult]:
    """Files as Ray tasks (a local instance of ``workers`` CPUs unless Ray is running).

    On a cluster, ``out`` must be a folder every node can write (the tasks stage their
    parts there).
    """
    try:
        import ray  # lazy: optional dependency (the ray extra)
    except ImportError:
        raise IngestError("the ray backend needs ray: pip install 'poolshark[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here and os.environ.get("RAY_ADDRESS"):  # join that cluster, all its CPUs
        ray.init(include_dashboard=False, log_to_driver=False)
    elif started_here:
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        task = ray.remote(ingest_file)
        pending = [task.remote(str(path), number, options) for number, path in enumerate(files)]
        while pending:
            finished, pending = ray.wait(pending, num_returns=1)
            for ref in finished:
                yield ray.get(ref)
    finally:
        if started_here:
            ray.shutdown()


class _Store:
    """The output folder's committed state: rows and index parts, the keys they hold."""

    def __init__(self, folder: Path, run: str) -> None:
        self.folder = folder
        self.staging = folder / "staging" / run
        self._lock = folder / "ingest.lock"
        self._take_lock()
        self._recover()
        self._check_schema()
        previous = self._index_keys()
        self.keys = KeySet(max(1 << 16, 2 * previous.shape[0]))
        self.keys.add(previous)
        self.known_path: str | None = None
        if previous.shape[0]:
            known = folder / "staging" / f"known-{run}.npy"
            known.parent.mkdir(parents=True, exist_ok=True)
            np.save(known, np.sort(previous))
            self.known_path = str(known)

    def _take_lock(self) -> None:
        """One run at a time per folder: a lock file naming the running process."""
        try:
            holder = int(self._lock.read_text().strip() or 0)
        except (FileNotFoundError, ValueError):
            holder = 0
        if holder and holder != os.getpid() and _alive(holder):
            raise IngestError(f"{self.folder} is being ingested into by process {holder}")
        self._lock.write_text(f"{os.getpid()}\n")

    def _recover(self) -> None:
        """Undo what a crashed run left half-done: staged files, index parts with no rows
        (parts are committed index first, then rows)."""
        rows = {p.name for p in (self.folder / "rows").glob("part-*.parquet")}
        for index in (self.folder / "index").glob("part-*.parquet"):
            if index.name not in rows:
                index.unlink()
        shutil.rmtree(self.folder / "staging", ignore_errors=True)

    def _check_schema(self) -> None:
        """Refuse to add rows to a folder whose rows have other columns (an older version's):
        its parts could not be read as one frame."""
        parts = sorted((self.folder / "rows").glob("part-*.parquet"))
        if not parts:
            return
        found = pl.read_parquet_schema(parts[0])
        if list(found) != ROW_SCHEMA.names():
            missing = [name for name in ROW_SCHEMA.names() if name not in found]
            raise IngestError(
                f"{self.folder} holds rows of another version (columns missing:"
                f" {', '.join(missing) or 'none'}; or in another order): ingest into a new folder"
            )

    def _index_keys(self) -> UInt64s:
        parts = sorted((self.folder / "index").glob("part-*.parquet"))
        if not parts:
            return np.zeros(0, dtype=np.uint64)
        keys = pl.scan_parquet(parts).select("key").collect()["key"]
        return keys.to_numpy().astype(np.uint64)

    def commit(self, result: FileResult, summary: Summary) -> None:
        """Move a file's staged parts into place, dropping hands another file already had."""
        summary.seen += result.seen
        summary.parsed += result.parsed
        summary.duplicates += result.duplicates
        summary.rows += result.rows
        summary.fast += result.fast
        for stage, count in result.fallbacks.items():
            summary.fallbacks[stage] = summary.fallbacks.get(stage, 0) + count
        for reason, count in result.rejected.items():
            summary.rejected[reason] = summary.rejected.get(reason, 0) + count
        if result.error is not None:
            summary.file_errors[result.path] = result.error
        if result.encodings:
            summary.encodings[result.path] = dict(sorted(result.encodings.items()))
        counts = FileSummary(
            result.path,
            hands=result.seen,
            parsed=result.parsed,
            duplicates=result.duplicates,
            rejected=dict(sorted(result.rejected.items())),
            encoding="+".join(name for name, _ in result.encodings.most_common()) or None,
            error=result.error,
        )
        summary.per_file.append(counts)
        for part in result.parts:
            fresh = self.keys.add(part.keys)
            self._note_warnings(result, part, fresh, summary)
            index_file = self.staging / f"index-{part.name}.parquet"
            rows_file = self.staging / f"rows-{part.name}.parquet"
            if not fresh.all():
                dropped = int((~fresh).sum())
                index = pl.read_parquet(index_file)
                repeated = index.filter(pl.Series(~fresh))
                rows = pl.read_parquet(rows_file).join(
                    repeated.select("site", "hand_id"), on=["site", "hand_id"], how="anti"
                )
                summary.parsed -= dropped
                summary.duplicates += dropped
                counts.parsed -= dropped
                counts.duplicates += dropped
                summary.rows -= part.rows - rows.height
                index.filter(pl.Series(fresh)).write_parquet(index_file)
                rows.write_parquet(rows_file)
            final = f"part-{part.name}.parquet"
            index_file.replace(self.folder / "index" / final)
            rows_file.replace(self.folder / "rows" / final)
            summary.parts += 1

    def _note_warnings(
        self, result: FileResult, part: Part, fresh: npt.NDArray[np.bool_], summary: Summary
    ) -> None:
        """Count and list the part's hands accepted with a warning (duplicates dropped)."""
        if not part.warned:
            return
        taken = dict(zip(part.keys.tolist(), fresh.tolist(), strict=True))
        with (self.folder / "warnings" / result.stem).open("a", encoding="utf-8") as listing:
            for key, (reason, text) in part.warned.items():
                if taken[key]:
                    summary.warnings[reason] = summary.warnings.get(reason, 0) + 1
                    listing.write(text)

    def close(self) -> None:
        """Remove the staging folder and the lock."""
        shutil.rmtree(self.folder / "staging", ignore_errors=True)
        self._lock.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    """Whether a process with this id is running."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class _ProgressBar:
    """A rich progress bar over the input's characters, with a running count of hands."""

    def __init__(self, total_chars: int, *, enabled: bool) -> None:
        self.enabled = enabled
        self.total = total_chars
        self.hands = 0
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> _ProgressBar:
        if self.enabled:
            self._bar = Progress(
                TextColumn("[progress.description]{task.description}"),
                BarColumn(),
                TextColumn("{task.percentage:>3.0f}%"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
            )
            self._bar.__enter__()
            self._task = self._bar.add_task("ingesting: 0 hands", total=max(self.total, 1))
        return self

    def advance(self, hands: int, chars: int) -> None:
        self.hands += hands
        if self._bar is not None:
            self._bar.update(
                self._task, advance=chars, description=f"ingesting: {self.hands:,} hands"
            )

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            done = f"ingested: {self.hands:,} hands"
            self._bar.update(self._task, completed=self.total, description=done)
            self._bar.__exit__(None, None, None)
