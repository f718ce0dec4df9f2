"""Stream hand-history files into raw hands, one at a time, and parse them.

Files of any size are read line by line in binary (never whole), so a worker holds one
hand at a time. Each :class:`RawHand` keeps its text, the file it came from, its position
in that file and its first line number, so a rejected hand can be quarantined verbatim
with a pointer to its source.

* PokerStars text (and other rooms' text in its layout): hands are separated by blank
  lines and by hand-archive separator lines (``*********** # 2 **************``); a line
  starting ``PokerStars `` in any case (after any indentation) also starts a new hand
  (files glued together without a blank line). A UTF-8 byte-order mark (at the start of
  the file or of a glued-in file) and CRLF line ends are removed.
* Encodings: UTF-16 files (with a byte-order mark, or without one when every other byte
  of the start is zero) are decoded per file; anything else per hand, as UTF-8 when it
  is valid UTF-8, else as Windows-1252 (the euro sign is byte 0x80), else Latin-1. Each
  :class:`RawHand` says which (``encoding``), so a file of mixed hands loses none.
* PHH: a ``.phhs`` file holds TOML tables ``[1]``, ``[2]``, ...; each table header starts
  a hand (a dotted header such as ``[1.notes]`` stays with its hand). A ``.phh`` file
  without a header is one hand.
* OHH: JSON objects ``{"ohh": ...}``, cut apart by ``ohh.hand_chunks``.

The format comes from the ``format`` argument, else the extension (``.phh``, ``.phhs``,
``.ohh``), else the content: OHH when the first meaningful line opens a JSON object (so a
``.json`` file of OHH hands is read), PHH when it looks like TOML, else text. A file is
never refused whole: a text file of hands from elsewhere yields its hands, which the
reader rejects one by one with a reason.
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
_HAND_START = b"pokerstars "
_WHITESPACE = b" \t\n\r\x0b\x0c"
UTF8, UTF16_LE, UTF16_BE, CP1252, LATIN1 = "utf-8", "utf-16-le", "utf-16-be", "cp1252", "latin-1"
ENCODINGS = (UTF8, UTF16_LE, UTF16_BE, CP1252, LATIN1)
"""The encodings a hand can be read with (``RawHand.encoding``)."""


@dataclass(frozen=True)
class RawHand:
    """One hand's text as it stood in its file.

    ``index`` counts hands from 0 within the file; ``line`` is the 1-based line its text
    starts on. ``encoding`` is the encoding its bytes were read with (one of
    :data:`ENCODINGS`). ``error`` is set when the bytes could not be decoded (the text then
    has replacement characters and :func:`parse_hand` rejects it as ``malformed``).
    """

    text: str
    source: str
    index: int
    line: int
    format: Format
    error: str | None = None
    encoding: str = UTF8


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
    """Every hand of one file, streamed."""
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
    utf16 = utf16_of(head)
    lines = _utf8_lines(head, stream, utf16)
    chosen = format or sniff_format(head)
    hands = split_lines(lines, source=source, format=chosen)
    if utf16 is None:
        yield from hands
    else:
        for raw in hands:
            yield RawHand(raw.text, raw.source, raw.index, raw.line, raw.format, raw.error, utf16)


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
    """The format of a file from its first bytes: PHH when its first meaningful line is a
    TOML table header or ``key = value``, else text (PokerStars and rooms writing like it;
    hands in no known layout are rejected one by one by the reader)."""
    text = head.decode(_codec(head, utf16_of(head)), errors="replace")
    for line in text.splitlines():
        line = line.strip().lstrip("\ufeff")
        if not line or line.startswith("#"):
            continue
        if line.startswith("{") or line == "[" or line.startswith("[{"):
            return "ohh"
        if line[:11].lower() != "pokerstars " and (line.startswith("[") or "=" in line):
            return "phh"
        break
    return "pokerstars"


def utf16_of(head: bytes) -> str | None:
    """``utf-16-le``/``utf-16-be`` when a file starting with ``head`` is UTF-16 (a
    byte-order mark, or text whose every other byte is nearly always zero and the
    others never), else None."""
    if head.startswith(codecs.BOM_UTF16_LE):
        return UTF16_LE
    if head.startswith(codecs.BOM_UTF16_BE):
        return UTF16_BE
    sample = head[: len(head[:512]) // 2 * 2]
    if len(sample) >= 8:
        half = len(sample) // 2
        even, odd = sample[0::2].count(0), sample[1::2].count(0)
        if odd >= 0.9 * half and even == 0:
            return UTF16_LE
        if even >= 0.9 * half and odd == 0:
            return UTF16_BE
    return None


def _codec(head: bytes, utf16: str | None) -> str:
    """The codec that decodes a file starting with ``head`` whole (UTF-16 with its mark
    dropped), or UTF-8 for a first look at one decoded hand by hand."""
    if utf16 is None:
        return UTF8
    return "utf-16" if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) else utf16


def _utf8_lines(head: bytes, rest: BinaryIO, utf16: str | None) -> Iterator[bytes]:
    """The stream's lines as bytes, UTF-16 re-encoded as UTF-8 (``head`` is what was
    already read of it)."""
    if utf16 is not None:
        raw = io.BufferedReader(_Prepended(head, rest))
        text = io.TextIOWrapper(raw, encoding=_codec(head, utf16), errors="replace")
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


def decode_hand(data: bytes) -> tuple[str, str]:
    """(text, encoding) of one hand's bytes: UTF-8 when they are valid UTF-8, else
    Windows-1252, else Latin-1 (which decodes any byte)."""
    try:
        return data.decode(UTF8), UTF8
    except UnicodeDecodeError:
        pass
    try:
        return data.decode(CP1252), CP1252
    except UnicodeDecodeError:
        return data.decode(LATIN1), LATIN1


def _hand(lines: list[bytes], source: str, index: int, line: int, fmt: Format) -> RawHand:
    """Decode one hand's lines (:func:`decode_hand`): no byte-order mark, no carriage
    returns."""
    text, encoding = decode_hand(b"".join(lines))
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    text = text.lstrip("\ufeff").rstrip() + "\n"
    return RawHand(text, source, index, line, fmt, None, encoding)


def starts_hand(line: bytes) -> bool:
    """Whether a text line starts a hand by itself: ``PokerStars `` in any case, after any
    indentation or byte-order mark."""
    body = line.lstrip(_WHITESPACE)
    if body.startswith(_BOM):
        body = body[len(_BOM) :]
    return body[: len(_HAND_START)].lower() == _HAND_START


def separates_hands(line: bytes) -> bool:
    """Whether a text line only separates hands: blank, or a hand-archive separator
    (``*********** # 2 **************``: four or more asterisks first, one last)."""
    body = line.strip(_WHITESPACE)
    return not body or body == _BOM or (body.startswith(b"****") and body.endswith(b"*"))


def _split_pokerstars(lines: Iterable[bytes], source: str) -> Iterator[RawHand]:
    current: list[bytes] = []
    index = start = 0
    for number, line in enumerate(lines, 1):
        if separates_hands(line):
            if current:
                yield _hand(current, source, index, start, "pokerstars")
                index += 1
                current = []
            continue
        if current and starts_hand(line):
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
