"""Fetching the PHH dataset: the real download code against a small HTTP server on
127.0.0.1 that serves sample files laid out like the repository, including one that drops
the connection mid-file, one without Range support, 404s, 5xx errors and bad content."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

import pytest
from typer.testing import CliRunner

from poolshark.cli import app
from poolshark.histories.fetch import (
    CHECKSUMS,
    COLLECTIONS,
    DATASET_COMMIT,
    DEFAULT_BASE_URL,
    FetchError,
    MissingFileError,
    collection,
    download,
    fetch_handhq,
    file_url,
)

SAMPLE = Path(__file__).parents[2] / "shared" / "data" / "handhq-ps25"
PS25 = COLLECTIONS["ps", 25]


@dataclass
class Behaviour:
    """How the test server misbehaves, and what it saw."""

    drop_first: bool = False  # the first request for each file stops half-way
    no_ranges: bool = False  # ignore Range headers (always 200, the whole file)
    fail_first: int = 0  # answer this many requests per file with HTTP 503 first
    corrupt: bool = False  # flip a byte in every file served
    requests: list[tuple[str, str | None]] = field(default_factory=list)  # (path, Range)
    _seen: dict[str, int] = field(default_factory=dict)

    def count(self, path: str) -> int:
        self._seen[path] = self._seen.get(path, 0) + 1
        return self._seen[path]


def make_handler(root: Path, behaviour: Behaviour) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            """Quiet."""

        def do_HEAD(self) -> None:
            self._serve(body=False)

        def do_GET(self) -> None:
            self._serve(body=True)

        def _serve(self, *, body: bool) -> None:
            path = unquote(self.path)
            asked = self.headers.get("Range")
            behaviour.requests.append((path, asked))
            file = root / path.lstrip("/")
            if not file.is_file():
                self.send_error(404)
                return
            number = behaviour.count(path)
            if number <= behaviour.fail_first:
                self.send_error(503)
                return
            data = file.read_bytes()
            if behaviour.corrupt:
                data = data[:100] + bytes([data[100] ^ 1]) + data[101:]
            start = 0
            if asked and not behaviour.no_ranges:
                start = int(asked.removeprefix("bytes=").partition("-")[0])
                if start >= len(data):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(data)}")
                    self.end_headers()
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            else:
                self.send_response(200)
            self.send_header("Content-Length", str(len(data) - start))
            self.end_headers()
            if not body:
                return
            chunk = data[start:]
            if behaviour.drop_first and number == 1:
                self.wfile.write(chunk[: len(chunk) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(chunk)

    return Handler


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Behaviour, Path]]:
    """(base URL, behaviour, served root): the sample files as files 1 and 3 of PS $0.25
    at the pinned commit (their real numbers: 1 and 3), and ps25_2 as file 5; 2 and 4 are
    missing."""
    if not SAMPLE.is_dir():
        pytest.skip(f"the real PHH sample is not here: {SAMPLE}")
    root = tmp_path / "server"
    for number, name in ((1, "ps25_1.phhs"), (3, "ps25_3.phhs"), (5, "ps25_2.phhs")):
        target = root / DATASET_COMMIT / PS25.path(number)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLE / name, target)
    behaviour = Behaviour()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(root, behaviour))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/{DATASET_COMMIT}/", behaviour, root
    finally:
        server.shutdown()
        server.server_close()


def test_the_default_url_points_at_the_pinned_commit() -> None:
    assert DEFAULT_BASE_URL.endswith(f"/uoftcprg/phh-dataset/{DATASET_COMMIT}/")
    url = file_url(DEFAULT_BASE_URL, PS25.path(1))
    folder = "/data/handhq/PS-2009-07-01_2009-07-23_25NLH_OBFU/0.25/"
    assert url.endswith(folder + "ps%20NLH%20handhq_1-OBFUSCATED.phhs")
    assert collection("PS", 25) is PS25
    with pytest.raises(FetchError, match="known: abs 100"):
        collection("ps", 7)


def test_fetch_downloads_files_in_order_skipping_missing_numbers(
    served: tuple[str, Behaviour, Path], tmp_path: Path
) -> None:
    base, behaviour, _ = served
    summary = fetch_handhq("ps", 25, 2, tmp_path / "files", base_url=base, backoff=0)
    assert [Path(p).name for p in summary.files] == [
        "ps NLH handhq_1-OBFUSCATED.phhs",
        "ps NLH handhq_3-OBFUSCATED.phhs",
    ]
    assert summary.missing == [PS25.path(2)]
    assert Path(summary.files[0]).read_bytes() == (SAMPLE / "ps25_1.phhs").read_bytes()
    assert Path(summary.files[1]).read_bytes() == (SAMPLE / "ps25_3.phhs").read_bytes()
    assert summary.checked == 2  # both have known SHA-256 digests
    assert not list((tmp_path / "files").rglob("*.part"))
    again = fetch_handhq("ps", 25, 2, tmp_path / "files", base_url=base, backoff=0)
    assert again.skipped == 2
    assert again.downloaded_bytes == 0
    assert len(behaviour.requests) == 4  # 1, 2 (404), 3; then only the missing 2 again


def test_a_dropped_connection_is_resumed_with_a_range_request(
    served: tuple[str, Behaviour, Path], tmp_path: Path
) -> None:
    base, behaviour, _ = served
    behaviour.drop_first = True
    summary = fetch_handhq("ps", 25, 1, tmp_path, base_url=base, backoff=0)
    assert summary.retries == 1
    assert Path(summary.files[0]).read_bytes() == (SAMPLE / "ps25_1.phhs").read_bytes()
    ranges = [asked for _, asked in behaviour.requests]
    size = (SAMPLE / "ps25_1.phhs").stat().st_size
    assert ranges == [None, f"bytes={size // 2}-"]


def test_a_partial_file_from_an_earlier_run_is_resumed(
    served: tuple[str, Behaviour, Path], tmp_path: Path
) -> None:
    base, behaviour, _ = served
    dest = tmp_path / "f.phhs"
    original = (SAMPLE / "ps25_1.phhs").read_bytes()
    dest.with_name("f.phhs.part").write_bytes(original[:1000])
    got = download(file_url(base, PS25.path(1)), dest, backoff=0, expected=CHECKSUMS[PS25.path(1)])
    assert got.resumed_from == 1000
    assert got.checked
    assert dest.read_bytes() == original
    assert behaviour.requests == [(f"/{DATASET_COMMIT}/{PS25.path(1)}", "bytes=1000-")]


def test_a_server_without_ranges_restarts_the_file(
    served: tuple[str, Behaviour, Path], tmp_path: Path
) -> None:
    base, behaviour, _ = served
    behaviour.no_ranges = True
    behaviour.drop_first = True
    dest = tmp_path / "f.phhs"
    got = download(file_url(base, PS25.path(5)), dest, backoff=0)
    assert got.attempts == 2
    assert dest.read_bytes() == (SAMPLE / "ps25_2.phhs").read_bytes()


def test_server_errors_are_retried_then_reported(
    served: tuple[str, Behaviour, Path], tmp_path: Path
) -> None:
    base, behaviour, _ = served
    behaviour.fail_first = 2
    got = download(file_url(base, PS25.path(5)), tmp_path / "a", backoff=0, retries=2)
    assert got.attempts == 3
    behaviour.fail_first = 10
    with pytest.raises(FetchError, match=r"failed after 3 attempts .*503"):
        download(file_url(base, PS25.path(1)), tmp_path / "b", backoff=0, retries=2)
    with pytest.raises(MissingFileError):
        download(file_url(base, PS25.path(2)), tmp_path / "c", backoff=0)


def test_content_that_fails_its_checksum_is_never_kept(
    served: tuple[str, Behaviour, Path], tmp_path: Path
) -> None:
    base, behaviour, _ = served
    behaviour.corrupt = True
    dest = tmp_path / "f.phhs"
    with pytest.raises(FetchError, match="SHA-256"):
        download(
            file_url(base, PS25.path(1)),
            dest,
            backoff=0,
            retries=1,
            expected=CHECKSUMS[PS25.path(1)],
        )
    assert not dest.exists()
    assert not dest.with_name("f.phhs.part").exists()


def test_fetch_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(FetchError, match="at least 1"):
        fetch_handhq("ps", 25, 0, tmp_path)
    with pytest.raises(FetchError, match="no HandHQ collection"):
        fetch_handhq("zz", 25, 1, tmp_path)


def test_data_fetch_command_downloads_and_ingests(
    served: tuple[str, Behaviour, Path], tmp_path: Path
) -> None:
    """`poolshark data fetch handhq ... --json`: one object with the fetch and the ingest."""
    base, behaviour, _ = served
    behaviour.drop_first = True
    out = tmp_path / "data"
    args = ["data", "fetch", "handhq", "--site", "ps", "--stakes", "25", "--files", "1"]
    result = CliRunner().invoke(app, [*args, "--out", str(out), "--base-url", base, "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["fetch"]["fetched"] == 1
    assert payload["fetch"]["retries"] == 1
    summary = payload["ingest"]
    assert summary["seen"] == 991
    assert summary["seen"] == summary["parsed"] + sum(summary["rejected"].values())
    assert summary["rows"] > 9000
    assert (out / "files" / PS25.path(1)).is_file()
    assert list((out / "rows").glob("part-*.parquet"))
    bad = CliRunner().invoke(app, ["data", "fetch", "other", "--out", str(out)])
    assert bad.exit_code == 2
    assert "unknown dataset" in bad.output
