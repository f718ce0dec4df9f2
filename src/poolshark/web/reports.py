"""Run reports the operator offers: the HTML pages under one folder, catalogued at start.

``poolshark web --reports runs/`` walks the folder once when the server starts and keeps
one :class:`ReportEntry` per HTML page (a run's ``report.html``, a ``poolshark spots
--html`` table, ...), named by its path relative to the folder (``demo19/report.html``).
Clients list the catalogue and ask for a page by that name; the server looks the name up
in the catalogue and reads the file it recorded, so no text from a client ever becomes a
path. Pages are read on request (a rebuilt report shows its new figures) and served with
a content security policy that allows no scripts and no network: the reports are
self-contained (inline SVG and data-URI images).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

MAX_PAGES = 1000
"""At most this many pages are catalogued (the walk stops there, and says so)."""
MAX_PAGE_BYTES = 64 * 1024 * 1024
"""A bigger HTML file is left out of the catalogue."""
MAX_DEPTH = 6
"""Folders deeper than this under the reports folder are not walked."""
REPORT_POLICY = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; "
    "frame-ancestors 'self'"
)
"""The Content-Security-Policy of a served report: no scripts, no requests elsewhere."""
TITLE = re.compile(rb"<title>(.*?)</title>", re.IGNORECASE | re.DOTALL)
SKIPPED_FOLDERS = frozenset({".git", ".venv", "node_modules", "__pycache__"})


@dataclass(frozen=True)
class ReportEntry:
    """One catalogued page: its name (the relative path), run, title, date and size."""

    name: str
    run: str
    title: str
    modified: str
    size_bytes: int
    path: Path

    def summary(self) -> dict[str, object]:
        """The entry as the API lists it (never the server's path)."""
        return {
            "name": self.name,
            "run": self.run,
            "title": self.title,
            "modified": self.modified,
            "size_bytes": self.size_bytes,
        }


def page_title(path: Path) -> str:
    """The page's ``<title>`` (from its first 64 KiB), unescaped; empty if none."""
    with path.open("rb") as handle:
        head = handle.read(65536)
    found = TITLE.search(head)
    return html.unescape(found.group(1).decode("utf-8", "replace")).strip() if found else ""


def html_files(root: Path) -> list[Path]:
    """The ``*.html`` files under ``root`` (real files, inside it, at most :data:`MAX_DEPTH`
    folders down, none in hidden or tool folders), sorted by relative path."""
    base = root.resolve()
    found: list[Path] = []
    folders = [(base, 0)]
    while folders:
        folder, depth = folders.pop()
        try:
            children = sorted(folder.iterdir())
        except OSError:  # a folder we may not read is left out, not fatal
            continue
        for child in children:
            if child.is_symlink():
                continue
            if child.is_dir():
                if depth < MAX_DEPTH and child.name not in SKIPPED_FOLDERS:
                    folders.append((child, depth + 1))
            elif child.suffix.lower() in (".html", ".htm") and child.is_file():
                found.append(child)
    return sorted(found, key=lambda p: p.relative_to(base).as_posix())


class ReportCatalogue:
    """The HTML pages under the operator's reports folder, by name (built once)."""

    def __init__(self, root: Path) -> None:
        if not root.is_dir():
            raise ValueError(f"--reports {str(root)!r} is not a folder")
        self.root = root.resolve()
        self.entries: dict[str, ReportEntry] = {}
        self.truncated = False
        for path in html_files(self.root):
            if len(self.entries) == MAX_PAGES:
                self.truncated = True
                break
            try:
                entry = self.entry(path)
            except OSError:  # unreadable: left out
                continue
            if entry.size_bytes <= MAX_PAGE_BYTES:
                self.entries[entry.name] = entry

    def entry(self, path: Path) -> ReportEntry:
        """The catalogue entry of ``path`` (a file under the root)."""
        relative = path.relative_to(self.root)
        status = path.stat()
        return ReportEntry(
            name=relative.as_posix(),
            run=relative.parent.as_posix() if relative.parent != Path() else self.root.name,
            title=page_title(path) or path.stem,
            modified=datetime.fromtimestamp(status.st_mtime, tz=UTC).strftime("%Y-%m-%d %H:%M UTC"),
            size_bytes=status.st_size,
            path=path,
        )

    def listing(self) -> list[dict[str, object]]:
        """Every entry's summary, newest first."""
        ordered = sorted(self.entries.values(), key=lambda e: (e.modified, e.name), reverse=True)
        return [entry.summary() for entry in ordered]

    def read(self, name: str) -> str | None:
        """The page named ``name`` in the catalogue, or None (unknown name or file gone)."""
        entry = self.entries.get(name)
        if entry is None:
            return None
        try:
            return entry.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
