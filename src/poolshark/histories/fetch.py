"""Download files of the public PHH dataset (HandHQ, July 2009) and ingest them.

The dataset lives in the GitHub repository ``uoftcprg/phh-dataset``; its HandHQ files are
``data/handhq/<SITE>-2009-07-01_2009-07-23_<STAKES>NLH_OBFU/<BIG BLIND>/<site> NLH
handhq_<N>-OBFUSCATED.phhs``, numbered from 1, about 1,000 hands each. :data:`COLLECTIONS`
lists the site/stakes folders known to exist (checked against the repository at the pinned
commit); the files of one are tried in number order, and a number the server does not have
(404) is skipped, so ``files=N`` fetches the first N files that exist.

Downloads use only the standard library (``urllib``). Each file is written to
``NAME.part`` and renamed when complete, so an interrupted run resumes where it stopped
(an HTTP ``Range`` request for the rest); a dropped connection or a server error is
retried with exponential backoff. Sizes are checked against the server's
``Content-Length``/``Content-Range``, and SHA-256 against :data:`CHECKSUMS` for files whose
digest is known (the three files of the sample in ``shared/data/handhq-ps25``).
"""

from __future__ import annotations

import hashlib
import http.client
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATASET_COMMIT = "a82bb6d545fecbeb9984238cfdd09d77f9881cd0"
"""The commit of ``uoftcprg/phh-dataset`` the default URL and the manifest refer to."""

DEFAULT_BASE_URL = f"https://raw.githubusercontent.com/uoftcprg/phh-dataset/{DATASET_COMMIT}/"
"""Files are fetched from ``base_url + repository path`` (the path URL-quoted)."""

BLOCK = 1 << 16


class FetchError(ValueError):
    """A download that cannot be completed: a bad option, a file that stays broken."""


class MissingFileError(FetchError):
    """The server does not have the file (HTTP 404)."""


@dataclass(frozen=True)
class Collection:
    """One site and stakes of the HandHQ part of the dataset: a folder of numbered files.

    ``known_files`` is the highest file number seen in the repository (some numbers below
    it may be missing; fetching skips them).
    """

    site: str
    stakes: int  # the big blind in cents
    folder: str
    prefix: str
    known_files: int

    def path(self, number: int) -> str:
        """The repository path of file ``number`` (from 1)."""
        return f"{self.folder}/{self.prefix}{number}-OBFUSCATED.phhs"


def _collection(site: str, stakes: int, big_blind: str, known_files: int) -> Collection:
    folder = f"data/handhq/{site.upper()}-2009-07-01_2009-07-23_{stakes}NLH_OBFU/{big_blind}"
    return Collection(site, stakes, folder, f"{site} NLH handhq_", known_files)


COLLECTIONS: dict[tuple[str, int], Collection] = {
    ("ps", 25): _collection("ps", 25, "0.25", 4940),
    ("ps", 50): _collection("ps", 50, "0.5", 1088),
    ("abs", 100): _collection("abs", 100, "1", 128),
    ("abs", 1000): _collection("abs", 1000, "10", 67),
}
"""Site/stakes folders known to exist at :data:`DATASET_COMMIT`, by (site, big blind in
cents). ``known_files`` is a lower bound on the files there (the highest number checked)."""

CHECKSUMS: dict[str, tuple[int, str]] = {
    COLLECTIONS["ps", 25].path(1): (
        827748,
        "3ecf663b0c18f3224fb235066cadd886d22f8277f25cb5d85e721588be649755",
    ),
    COLLECTIONS["ps", 25].path(2): (
        827145,
        "bc07c9a8b8c69f3419e6c7dd41e267d10a26fab8a1c8a063a6ff75bccd883b51",
    ),
    COLLECTIONS["ps", 25].path(3): (
        835682,
        "9d7712db8a688a2ec22bb7323d49deba8767770ba207adf8b4062e097298b129",
    ),
}
"""(size in bytes, SHA-256) of files whose content is known, by repository path."""


def collection(site: str, stakes: int) -> Collection:
    """The collection for a site and stakes; raises :class:`FetchError` naming the known ones."""
    found = COLLECTIONS.get((site.lower(), stakes))
    if found is None:
        known = ", ".join(f"{s} {b}" for s, b in sorted(COLLECTIONS))
        raise FetchError(f"no HandHQ collection for site {site!r} stakes {stakes}: known: {known}")
    return found


def file_url(base_url: str, path: str) -> str:
    """The URL of a repository path under ``base_url`` (spaces and the like quoted)."""
    return base_url.rstrip("/") + "/" + urllib.parse.quote(path)


@dataclass
class Downloaded:
    """One file fetched: where it is, its size, and what it took."""

    path: Path
    size: int
    resumed_from: int = 0
    attempts: int = 1
    checked: bool = False  # the SHA-256 was known and matched
    skipped: bool = False  # it was already complete on disk


OnBytes = Callable[[int], None]


def download(
    url: str,
    dest: Path,
    *,
    retries: int = 5,
    backoff: float = 1.0,
    timeout: float = 60.0,
    expected: tuple[int, str] | None = None,
    on_bytes: OnBytes | None = None,
) -> Downloaded:
    """Fetch ``url`` into ``dest``, resuming a partial ``dest.part`` with a Range request.

    A failed attempt (connection dropped, timeout, HTTP 5xx) is retried up to ``retries``
    times, waiting ``backoff * 2**k`` seconds; HTTP 404 raises :class:`MissingFileError` at
    once. ``expected`` is the (size, SHA-256) the file must have, when known; a part that
    does not match it is thrown away and fetched again.
    """
    if dest.exists() and (expected is None or _matches(dest, expected)):
        return Downloaded(dest, dest.stat().st_size, skipped=True, checked=expected is not None)
    partial = dest.with_name(dest.name + ".part")
    dest.parent.mkdir(parents=True, exist_ok=True)
    resumed_from = partial.stat().st_size if partial.exists() else 0
    failure = ""
    for attempt in range(1, retries + 2):
        try:
            total = _fetch_into(url, partial, timeout, on_bytes)
        except MissingFileError:
            partial.unlink(missing_ok=True)
            raise
        except _RETRYABLE as error:
            failure = f"{type(error).__name__}: {error}"
        else:
            size = partial.stat().st_size
            failure = "" if total is None or size == total else f"got {size} bytes of {total}"
            if not failure and expected is not None and not _matches(partial, expected):
                partial.unlink()  # a stale or corrupted part: start again from nothing
                failure = "the content does not match its known size and SHA-256"
        if failure:
            if attempt <= retries:
                time.sleep(backoff * 2 ** (attempt - 1))
            continue
        partial.replace(dest)
        return Downloaded(dest, size, resumed_from, attempt, checked=expected is not None)
    raise FetchError(f"{url}: failed after {retries + 1} attempts ({failure})")


class _RetryableError(Exception):
    """A server answer worth retrying (5xx, a range it did not honour as asked)."""


_RETRYABLE = (
    _RetryableError,
    urllib.error.URLError,
    http.client.HTTPException,
    ConnectionError,
    TimeoutError,
    OSError,
)


def _fetch_into(url: str, partial: Path, timeout: float, on_bytes: OnBytes | None) -> int | None:
    """One attempt: append the rest of the file to ``partial``; return the full size if the
    server said it."""
    have = partial.stat().st_size if partial.exists() else 0
    request = urllib.request.Request(url, headers={"User-Agent": "poolshark-fetch"})
    if have:
        request.add_header("Range", f"bytes={have}-")
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as error:
        if error.code == 404:
            raise MissingFileError(f"{url}: not found (HTTP 404)") from None
        if error.code == 416 and have:  # nothing left to send: the part may be whole
            return _length_of(url, timeout)
        if error.code >= 500 or error.code in (408, 429):
            raise _RetryableError(f"HTTP {error.code}") from None
        raise FetchError(f"{url}: HTTP {error.code} {error.reason}") from None
    with response:
        total = _total_size(response, have)
        mode = "ab" if response.status == 206 else "wb"
        if response.status == 206 and _range_start(response) != have:
            raise _RetryableError("the server answered a different range")
        with partial.open(mode) as sink:
            while block := response.read(BLOCK):
                sink.write(block)
                if on_bytes is not None:
                    on_bytes(len(block))
    return total


def _total_size(response: Any, have: int) -> int | None:
    """The whole file's size from ``Content-Range`` (a 206) or ``Content-Length`` (a 200)."""
    if response.status == 206:
        content_range = response.headers.get("Content-Range", "")
        total = content_range.rpartition("/")[2]
        return int(total) if total.isdigit() else None
    length = response.headers.get("Content-Length")
    return int(length) if length and length.isdigit() else None


def _range_start(response: Any) -> int:
    content_range = response.headers.get("Content-Range", "")  # "bytes START-END/TOTAL"
    start = content_range.removeprefix("bytes ").partition("-")[0]
    return int(start) if start.isdigit() else -1


def _length_of(url: str, timeout: float) -> int | None:
    """The size a HEAD request reports for ``url``."""
    request = urllib.request.Request(url, method="HEAD")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        length = response.headers.get("Content-Length")
    return int(length) if length and length.isdigit() else None


def _matches(path: Path, expected: tuple[int, str]) -> bool:
    size, digest = expected
    if path.stat().st_size != size:
        return False
    sha = hashlib.sha256()
    with path.open("rb") as source:
        while block := source.read(BLOCK):
            sha.update(block)
    return sha.hexdigest() == digest


@dataclass
class FetchSummary:
    """What a fetch did: files downloaded (or already there), numbers missing, bytes."""

    site: str
    stakes: int
    requested: int
    files: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    downloaded_bytes: int = 0
    skipped: int = 0
    resumed: int = 0
    retries: int = 0
    checked: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "site": self.site,
            "stakes": self.stakes,
            "requested": self.requested,
            "fetched": len(self.files),
            "missing": len(self.missing),
            "downloaded_bytes": self.downloaded_bytes,
            "already_there": self.skipped,
            "resumed": self.resumed,
            "retries": self.retries,
            "checksummed": self.checked,
            "seconds": round(self.seconds, 3),
        }


def fetch_handhq(
    site: str,
    stakes: int,
    files: int,
    folder: Path,
    *,
    base_url: str = DEFAULT_BASE_URL,
    first: int = 1,
    retries: int = 5,
    backoff: float = 1.0,
    timeout: float = 60.0,
    max_missing: int = 50,
    on_bytes: OnBytes | None = None,
    on_file: Callable[[str], None] | None = None,
) -> FetchSummary:
    """Download the first ``files`` existing files of a collection (from number ``first``)
    into ``folder``, keeping the repository layout; stop after ``max_missing`` numbers in
    a row that the server does not have."""
    if files < 1:
        raise FetchError(f"files must be at least 1, not {files}")
    chosen = collection(site, stakes)
    summary = FetchSummary(chosen.site, chosen.stakes, files)
    started = time.perf_counter()
    number = first
    missing_in_a_row = 0
    while len(summary.files) < files and missing_in_a_row < max_missing:
        path = chosen.path(number)
        number += 1
        try:
            got = download(
                file_url(base_url, path),
                folder / path,
                retries=retries,
                backoff=backoff,
                timeout=timeout,
                expected=CHECKSUMS.get(path),
                on_bytes=on_bytes,
            )
        except MissingFileError:
            summary.missing.append(path)
            missing_in_a_row += 1
            continue
        missing_in_a_row = 0
        summary.files.append(str(got.path))
        summary.skipped += got.skipped
        summary.resumed += got.resumed_from > 0
        summary.retries += got.attempts - 1
        summary.checked += got.checked
        if not got.skipped:
            summary.downloaded_bytes += got.size - got.resumed_from
        if on_file is not None:
            on_file(path)
    summary.seconds = time.perf_counter() - started
    return summary
