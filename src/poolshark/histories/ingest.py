"""Ingestion: hand-history files in, decision rows (partitioned Parquet) and a summary out.

Each input file is one unit of work, run in a process pool (all cores by default), in
Ray tasks (``backend="ray"``) or inline (``backend="serial"``). A worker streams its file
hand by hand (never reading it whole), and in chunks of ``chunk_hands`` parses, drops
duplicates, replays each hand through the engine and builds decision rows; it writes each
chunk as a staged part. The parent commits parts one at a time, so the bookkeeping that
must be global (hands already ingested, in this run or before) lives in one place.

Layout of the output folder ``OUT``::

    OUT/rows/part-RUN-FILE-CHUNK.parquet     decision rows (schema: ``rows.ROW_SCHEMA``)
    OUT/index/part-RUN-FILE-CHUNK.parquet    (site, hand_id, key) of every hand ingested
    OUT/quarantine/RUN-FILE-NAME.txt         each rejected hand: a one-line reason, its text
    OUT/summary.json                         the last run's summary; runs.jsonl: every run

Nothing is lost and nothing is counted twice: every hand read is parsed, rejected (with a
reason, into quarantine) or a duplicate, so ``seen = parsed + rejected + duplicates``.
A hand is a duplicate when its site and hand id were ingested before (the index), so
re-ingesting the same files adds no rows. Keys are 64-bit hashes of site and hand id.
"""

from __future__ import annotations

import hashlib
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

import numba as nb
import numpy as np
import numpy.typing as npt
import polars as pl
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from poolshark.histories.record import HandRecord, HistoryError
from poolshark.histories.replay import replay
from poolshark.histories.rows import DEFAULT_SALT, ROW_SCHEMA, build_rows, empty_rows
from poolshark.histories.split import RawHand, parse_hand, read_hands

UInt64s = npt.NDArray[np.uint64]
Backend = Literal["process", "ray", "serial"]
OnProgress = Callable[[int, int], None]  # (hands, characters) just processed

HISTORY_SUFFIXES = (".phh", ".phhs", ".txt")
"""File names ingestion picks up when given a folder (files named explicitly are always
read, whatever their name)."""

INDEX_SCHEMA = pl.Schema({"site": pl.String(), "hand_id": pl.String(), "key": pl.UInt64()})


class IngestError(ValueError):
    """Ingestion cannot start: a missing input, an unusable output folder."""


# -- keys and the set of keys already taken ------------------------------------------------


def hand_key(site: str, hand_id: str) -> int:
    """The 64-bit key that identifies a hand across files and runs (never 0)."""
    digest = hashlib.blake2b(f"{site}\x00{hand_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") or 1


@nb.njit(cache=True, nogil=True)
def _insert_keys(table: UInt64s, keys: UInt64s, fresh: npt.NDArray[np.bool_]) -> int:
    """Insert ``keys`` into the open-addressing ``table`` (0 = empty slot); mark in
    ``fresh`` the ones that were not there yet; return how many were added."""
    mask = np.uint64(table.shape[0] - 1)
    added = 0
    for i in range(keys.shape[0]):
        key = keys[i]
        slot = key & mask
        while True:
            held = table[slot]
            if held == 0:
                table[slot] = key
                fresh[i] = True
                added += 1
                break
            if held == key:
                fresh[i] = False
                break
            slot = (slot + np.uint64(1)) & mask
    return added


class KeySet:
    """A set of nonzero 64-bit keys in one flat array (16 bytes a key; a Python set of
    ints takes about five times that, which matters for tens of millions of hands)."""

    def __init__(self, capacity: int = 1 << 16) -> None:
        size = 1 << max(4, (2 * max(capacity, 1) - 1).bit_length())
        self._table = np.zeros(size, dtype=np.uint64)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def add(self, keys: UInt64s) -> npt.NDArray[np.bool_]:
        """Add keys; return which of them were new (a key repeated in ``keys`` is new once)."""
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        if keys.shape[0] and not keys.all():
            raise ValueError("0 is not a key (it marks empty slots)")
        if (self._count + keys.shape[0]) * 2 > self._table.shape[0]:
            self._grow(self._count + keys.shape[0])
        fresh = np.zeros(keys.shape[0], dtype=np.bool_)
        self._count += _insert_keys(self._table, keys, fresh)
        return fresh

    def _grow(self, needed: int) -> None:
        old = self._table[self._table != 0]
        size = 1 << (4 * needed - 1).bit_length()
        self._table = np.zeros(size, dtype=np.uint64)
        self._count = _insert_keys(self._table, old, np.zeros(old.shape[0], dtype=np.bool_))


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


@dataclass
class FileResult:
    """What happened to one file's hands (``parsed`` counts hands whose rows are staged)."""

    path: str
    seen: int = 0
    parsed: int = 0
    duplicates: int = 0
    rows: int = 0
    chars: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    parts: list[Part] = field(default_factory=list)
    error: str | None = None


QUARANTINE_MARK = "### rejected: "
"""How each quarantined hand starts: ``### rejected: REASON: MESSAGE [SOURCE line N]``,
one line, then the hand's text as read, then a blank line."""


class Quarantine:
    """Rejected hands of one file: each as a one-line reason, then its raw text.

    The file is opened on the first rejection, so clean inputs leave no empty files.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: Any = None

    def add(self, raw: RawHand, reason: str, message: str) -> None:
        """Write one rejected hand with its reason and where it was read from."""
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8", errors="replace")
        line = " ".join(message.split())
        where = f"{raw.source} line {raw.line}"
        self._file.write(f"{QUARANTINE_MARK}{reason}: {line} [{where}]\n")
        self._file.write(raw.text.rstrip("\n") + "\n\n")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


def ingest_file(
    path: str, number: int, options: Options, progress: OnProgress | None = None
) -> FileResult:
    """Read, check and turn into staged row parts every hand of one file.

    Never raises for bad hands. A file that cannot be read (or stops being readable) sets
    ``error``; the hands read before that are still processed and counted.
    """
    out = Path(options.out)
    result = FileResult(path)
    name = f"{options.run}-{number:05d}"
    quarantine = Quarantine(out / "quarantine" / f"{name}-{_safe(Path(path).stem)}.txt")
    work = _Chunks(options, name, _load_known(options.known), result, quarantine, progress)
    try:
        for raw in read_hands(Path(path)):
            work.add(raw)
    except (OSError, UnicodeError, HistoryError) as error:
        result.error = _describe(error)
    finally:
        work.flush()
        quarantine.close()
    return result


class _Chunks:
    """Collects a file's hands and processes them ``chunk_hands`` at a time."""

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
        self.pending: list[RawHand] = []

    def add(self, raw: RawHand) -> None:
        self.pending.append(raw)
        if len(self.pending) >= self.options.chunk_hands:
            self.flush()

    def flush(self) -> None:
        """Process the pending hands: parse, dedupe, replay, rows; stage them as a part."""
        if not self.pending:
            return
        chunk, self.pending = self.pending, []
        self.result.seen += len(chunk)
        parsed = [item for item in map(self._parse, chunk) if item]
        keys = np.array([item.key for item in parsed], dtype=np.uint64)
        accepted: list[_Hand] = []
        for item, old in zip(parsed, _contains(self.known, keys).tolist(), strict=True):
            if old or item.key in self.taken:
                self.result.duplicates += 1
            elif self._replays(item):
                self.taken.add(item.key)
                accepted.append(item)
        frame, kept = self._rows(accepted)
        if kept:
            self._stage(frame, kept)
        chars = sum(len(raw.text) for raw in chunk)
        self.result.chars += chars
        if self.progress is not None:
            self.progress(len(chunk), chars)

    def _parse(self, raw: RawHand) -> _Hand | None:
        try:
            record = parse_hand(raw)
        except HistoryError as error:
            self._reject(raw, error.reason, error.message)
            return None
        except Exception as error:  # a reader bug must not stop the run: keep the hand
            self._reject(raw, "internal-error", _describe(error))
            return None
        return _Hand(raw, record, hand_key(record.site, record.hand_id))

    def _replays(self, hand: _Hand) -> bool:
        if not self.options.replay:
            return True
        try:
            replay(hand.record)
        except HistoryError as error:
            self._reject(hand.raw, error.reason, error.message)
            return False
        except Exception as error:
            self._reject(hand.raw, "internal-error", _describe(error))
            return False
        return True

    def _rows(self, hands: list[_Hand]) -> tuple[pl.DataFrame, list[_Hand]]:
        """Rows of the hands; those the row builder cannot follow are rejected."""
        if not hands:
            return empty_rows(), []
        try:
            rows = build_rows([hand.record for hand in hands], salt=self.options.salt)
        except Exception as problem:  # an odd record (absurd amounts, ...): find it
            if len(hands) == 1:
                self.taken.discard(hands[0].key)
                self._reject(hands[0].raw, "internal-error", _describe(problem))
                return empty_rows(), []
            frames, kept = [], []
            for hand in hands:
                frame, ok = self._rows([hand])
                frames.append(frame)
                kept.extend(ok)
            return pl.concat(frames), kept
        for index, error in rows.rejected.items():
            hand = hands[index]
            self.taken.discard(hand.key)
            self._reject(hand.raw, error.reason, error.message)
        return rows.frame, [h for i, h in enumerate(hands) if i not in rows.rejected]

    def _stage(self, frame: pl.DataFrame, hands: list[_Hand]) -> None:
        name = f"{self.name}-{len(self.result.parts):04d}"
        staging = Path(self.options.out) / "staging" / self.options.run
        staging.mkdir(parents=True, exist_ok=True)
        keys = np.array([hand.key for hand in hands], dtype=np.uint64)
        index = pl.DataFrame(
            {
                "site": [hand.record.site for hand in hands],
                "hand_id": [hand.record.hand_id for hand in hands],
                "key": keys,
            },
            schema=INDEX_SCHEMA,
        )
        index.write_parquet(staging / f"index-{name}.parquet")
        frame.write_parquet(staging / f"rows-{name}.parquet")
        self.result.parsed += len(hands)
        self.result.rows += frame.height
        self.result.parts.append(Part(name, keys, frame.height))

    def _reject(self, raw: RawHand, reason: str, message: str) -> None:
        self.result.rejected[reason] += 1
        self.quarantine.add(raw, reason, message)


@dataclass(frozen=True)
class _Hand:
    """A parsed hand on its way through a chunk."""

    raw: RawHand
    record: HandRecord
    key: int


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


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
class Summary:
    """The counts of one run; ``seen == parsed + sum(rejected) + duplicates`` always."""

    files: int
    seen: int = 0
    parsed: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    duplicates: int = 0
    rows: int = 0
    seconds: float = 0.0
    workers: int = 1
    backend: str = "serial"
    out: str = ""
    run: str = ""
    parts: int = 0
    file_errors: dict[str, str] = field(default_factory=dict)

    @property
    def balanced(self) -> bool:
        """Whether every hand seen is accounted for exactly once."""
        return self.seen == self.parsed + sum(self.rejected.values()) + self.duplicates

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: every field, rejections sorted by reason, hands per second."""
        data = asdict(self)
        data["rejected"] = dict(sorted(self.rejected.items()))
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
    for sub in ("rows", "index", "quarantine"):
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


def scan_rows(out: Path | str) -> pl.LazyFrame:
    """All decision rows ingested into ``out``, lazily (an empty frame if none)."""
    parts = sorted((Path(out) / "rows").glob("part-*.parquet"))
    if not parts:
        return pl.LazyFrame(schema=ROW_SCHEMA)
    return pl.scan_parquet(parts)


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
        import ray
    except ImportError:
        raise IngestError("the ray backend needs ray: pip install 'poolshark[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here:
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
        for reason, count in result.rejected.items():
            summary.rejected[reason] = summary.rejected.get(reason, 0) + count
        if result.error is not None:
            summary.file_errors[result.path] = result.error
        for part in result.parts:
            fresh = self.keys.add(part.keys)
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
                summary.rows -= part.rows - rows.height
                index.filter(pl.Series(fresh)).write_parquet(index_file)
                rows.write_parquet(rows_file)
            final = f"part-{part.name}.parquet"
            index_file.replace(self.folder / "index" / final)
            rows_file.replace(self.folder / "rows" / final)
            summary.parts += 1

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
