"""Stream hand-history files into raw hands, one at a time, and parse them.

Files of any size are read line by line in binary (never whole), so a worker holds one
hand at a time. Each :class:`RawHand` keeps its text, the file it came from, its position
in that file and its first line number, so a rejected hand can be quarantined verbatim
with a pointer to its source.

* PokerStars text: hands are separated by blank lines; a line starting ``PokerStars ``
  also starts a new hand (files glued together without a blank line). A UTF-8 byte-order
  mark (at the start of the file or of a glued-in file) and CRLF line ends are removed;
  UTF-16 files (with their byte-order mark) are read too.
* PHH: a ``.phhs`` file holds TOML tables ``[1]``, ``[2]``, ...; each table header starts
  a hand (a dotted header such as ``[1.notes]`` stays with its hand). A ``.phh`` file
  without a header is one hand.
* OHH: JSON objects ``{"ohh": ...}``, cut apart by ``ohh.hand_chunks``.

The format comes from the ``format`` argument, else the extension (``.phh``, ``.phhs``,
``.ohh``), else the content (first meaningful line; ``{`` is OHH, so a ``.json`` file
holding OHH hands is read as OHH).
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from poolshark.histories.ohh import hand_chunks, parse_ohh
from poolshark.histories.phh import parse_phh
from poolshark.histories.pokerstars import parse_pokerstars
from poolshark.histories.record import HandRecord, HistoryError

Format = Literal["phh", "pokerstars", "ohh"]

_SNIFF_BYTES = 64 * 1024
_BOM = codecs.BOM_UTF8
_PS_STARTS = (b"PokerStars ", _BOM + b"PokerStars ")


@dataclass(frozen=True)
class RawHand:
    """One hand's text as it stood in its file.

    ``index`` counts hands from 0 within the file; ``line`` is the 1-based line its text
    starts on. ``error`` is set when the bytes were not valid UTF-8 (the text then has
    replacement characters and :func:`parse_hand` rejects it).
    """

    text: str
    source: str
    index: int
    line: int
    format: Format
    error: str | None = None


def parse_hand(raw: RawHand) -> HandRecord:
    """The record of a raw hand, by its format; raises :class:`HistoryError`."""
    if raw.error is not None:
        raise HistoryError("malformed", raw.error)
    if raw.format == "phh":
        return parse_phh(raw.text)
    if raw.format == "ohh":
        return parse_ohh(raw.text)
    return parse_pokerstars(raw.text)


def read_hands(path: str | Path, *, format: Format | None = None) -> Iterator[RawHand]:
    """Every hand of one file, streamed; raises ``unsupported-format`` if it is neither."""
    path = Path(path)
    chosen = format or format_from_name(path.name)
    with path.open("rb") as stream:
        yield from split_hands(stream, source=str(path), format=chosen)


def format_from_name(name: str) -> Format | None:
    """``phh`` for ``.phh``/``.phhs`` files, ``ohh`` for ``.ohh``; None when the name does
    not tell."""
    lowered = name.lower()
    if lowered.endswith(".ohh"):
        return "ohh"
    return "phh" if lowered.endswith((".phh", ".phhs")) else None


def split_hands(
    stream: BinaryIO, *, source: str = "<stream>", format: Format | None = None
) -> Iterator[RawHand]:
    """Raw hands from a binary file object, streamed line by line."""
    head = stream.read(_SNIFF_BYTES)
    if not head.strip():
        return  # an empty file holds no hands
    lines = _utf8_lines(head, stream)
    chosen = format or sniff_format(head)
    yield from split_lines(lines, source=source, format=chosen)


def split_lines(lines: Iterable[bytes], *, source: str, format: Format) -> Iterator[RawHand]:
    """Raw hands from a file's UTF-8 lines (each with its newline) in a known format."""
    if format == "phh":
        yield from _split_phh(lines, source)
    elif format == "ohh":
        for index, (chunk, line) in enumerate(hand_chunks(lines)):
            yield _hand(chunk, source, index, line, "ohh")
    else:
        yield from _split_pokerstars(lines, source)


def sniff_format(head: bytes) -> Format:
    """The format of a file from its first bytes; raises ``unsupported-format``."""
    text = _decode_head(head)
    for line in text.splitlines():
        line = line.strip().lstrip("\ufeff")
        if not line or line.startswith("#"):
            continue
        if line.startswith("PokerStars "):
            return "pokerstars"
        if line.startswith("{") or line == "[" or line.startswith("[{"):
            return "ohh"
        if line.startswith("[") or "=" in line:
            return "phh"
        break
    raise HistoryError("unsupported-format", "neither PokerStars hand histories nor PHH")


def _decode_head(head: bytes) -> str:
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return head.decode("utf-16", errors="replace")
    return head.decode("utf-8", errors="replace")


def _utf8_lines(head: bytes, rest: BinaryIO) -> Iterator[bytes]:
    """The stream's lines as UTF-8 bytes (``head`` is what was already read of it)."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raw = io.BufferedReader(_Prepended(head, rest))
        text = io.TextIOWrapper(raw, encoding="utf-16", errors="replace")
        return (line.encode("utf-8") for line in text)
    return _rejoin(head, rest)


def _rejoin(head: bytes, rest: Iterable[bytes]) -> Iterator[bytes]:
    """Lines of ``head`` followed by the lines of ``rest``, the split line made whole."""
    pieces = head.split(b"\n")
    last = pieces.pop()
    for piece in pieces:
        yield piece + b"\n"
    for line in rest:
        if last:
            line, last = last + line, b""
        yield line
    if last:
        yield last


class _Prepended(io.RawIOBase):
    """A readable stream that gives ``head`` first, then the rest of ``stream``."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self._head = head
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._head[: len(buffer)] if self._head else self._stream.read(len(buffer))
        self._head = self._head[len(data) :] if self._head else b""
        buffer[: len(data)] = data
        return len(data)


def _hand(lines: list[bytes], source: str, index: int, line: int, fmt: Format) -> RawHand:
    """Decode one hand's lines: UTF-8, no byte-order mark, no carriage returns."""
    data = b"".join(lines)
    error = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as problem:
        text = data.decode("utf-8", errors="replace")
        error = f"not valid UTF-8 at byte {problem.start} of the hand"
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return RawHand(text.lstrip("\ufeff").rstrip() + "\n", source, index, line, fmt, error)


def _split_pokerstars(lines: Iterable[bytes], source: str) -> Iterator[RawHand]:
    current: list[bytes] = []
    index = start = 0
    for number, line in enumerate(lines, 1):
        if line.isspace() or line in (b"", _BOM + b"\n", _BOM + b"\r\n"):
            if current:
                yield _hand(current, source, index, start, "pokerstars")
                index += 1
                current = []
            continue
        if current and line.startswith(_PS_STARTS):
            yield _hand(current, source, index, start, "pokerstars")
            index += 1
            current = []
        if not current:
            start = number
        current.append(line)
    if current:
        yield _hand(current, source, index, start, "pokerstars")


def _split_phh(lines: Iterable[bytes], source: str) -> Iterator[RawHand]:
    current: list[bytes] = []
    index = 0
    start = 1
    meaningful = False  # whether ``current`` holds more than blank lines and comments
    for number, line in enumerate(lines, 1):
        if _is_hand_header(line):
            if meaningful:
                yield _hand(current, source, index, start, "phh")
                index += 1
            current, start, meaningful = [line], number, True
            continue
        if not current:
            start = number
        current.append(line)
        if not meaningful:
            stripped = line.strip().lstrip(_BOM)
            meaningful = bool(stripped) and not stripped.startswith(b"#")
    if meaningful:
        yield _hand(current, source, index, start, "phh")


def _is_hand_header(line: bytes) -> bool:
    """A TOML table header such as ``[12]`` (not ``[12.notes]`` nor ``[[array]]``)."""
    if not line.startswith((b"[", _BOM + b"[")):
        return False
    header = line.strip().lstrip(_BOM)
    return header.endswith(b"]") and b"." not in header and not header.startswith(b"[[")
