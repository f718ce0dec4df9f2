"""Files into blocks of whole hands, and blocks into hands, at the byte level.

The fast counterpart of ``histories.split``: a file is read in blocks of about a
megabyte, each cut where a hand ends (PokerStars: after a blank line; PHH: before a
``[n]`` header), and a compiled pass finds the hands inside a block as byte offsets with
their first line numbers, so the fast readers can take many hands at once. Hands are the
same, with the same text, positions and line numbers, as ``split.read_hands`` gives
(``tests/test_histories_fast.py`` compares them). A block the compiled pass does not
handle (UTF-16, a byte-order mark inside the file, a lone carriage return, bytes that are
not UTF-8, such as Windows-1252 text) is split by ``split.split_hands`` instead, so
nothing depends on this module's coverage. CRLF line ends are turned into LF first, as
``split`` does per hand. Hand-archive separator lines, indented lines and ``PokerStars``
in any case are split here as ``split`` splits them.
"""

from __future__ import annotations

import codecs
import io
import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.histories.split import (
    UTF8,
    Format,
    RawHand,
    format_from_name,
    sniff_format,
    split_hands,
    split_lines,
    utf16_of,
)

Int64s = npt.NDArray[np.int64]
UInt8s = npt.NDArray[np.uint8]

BLOCK_BYTES = 1 << 20
"""Bytes read at a time; a block holds the whole hands among them (about 1,000)."""
_SNIFF_BYTES = 64 * 1024
_RAWS_PER_BLOCK = 1000
_BOM = codecs.BOM_UTF8


_EMPTY_BYTES: UInt8s = np.zeros(0, dtype=np.uint8)
_NONE: Int64s = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Block:
    """Consecutive whole hands of one file.

    ``data`` holds the block's bytes (CRLF turned into LF) and ``newlines`` the positions
    of its newlines; hand ``i`` is ``data[start[i]:end[i]]``, starts on line ``line[i]``
    of the file (``first_line[i]``-th line of the block, from 0) and is hand number
    ``first_index + i`` of the file. ``tainted[i]`` marks a hand with control characters.
    ``raws`` is set instead when the block was split by the Python reader (the arrays are
    then empty).
    """

    data: UInt8s
    source: str
    format: Format
    first_index: int
    start: Int64s
    end: Int64s
    line: Int64s
    raws: tuple[RawHand, ...] | None = None
    newlines: Int64s = field(default_factory=lambda: _NONE)
    first_line: Int64s = field(default_factory=lambda: _NONE)
    tainted: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, np.bool_))

    @property
    def hands(self) -> int:
        """Hands in the block."""
        return len(self.raws) if self.raws is not None else int(self.start.shape[0])

    def bytes(self, lo: int, hi: int) -> int:
        """Size of hands ``lo:hi`` (characters, for a block split by Python)."""
        if self.raws is not None:
            return sum(len(raw.text) for raw in self.raws[lo:hi])
        return int((self.end[lo:hi] - self.start[lo:hi]).sum())

    def encodings(self, lo: int, hi: int) -> Counter[str]:
        """Hands ``lo:hi`` by the encoding they were read with (``RawHand.encoding``)."""
        if self.raws is not None:
            return Counter(raw.encoding for raw in self.raws[lo:hi])
        return Counter({UTF8: hi - lo} if hi > lo else {})

    def raw(self, i: int) -> RawHand:
        """Hand ``i`` as ``split.read_hands`` gives it."""
        if self.raws is not None:
            return self.raws[i]
        text = bytes(self.data[self.start[i] : self.end[i]]).decode("utf-8")
        return RawHand(
            text.lstrip("\ufeff").rstrip() + "\n",
            self.source,
            self.first_index + i,
            int(self.line[i]),
            self.format,
        )


def read_blocks(
    path: str | Path, *, format: Format | None = None, block_bytes: int = BLOCK_BYTES
) -> Iterator[Block]:
    """The file's hands, block by block, streamed (one block and a partial one in memory).

    Raises ``HistoryError("unsupported-format")`` as ``split.read_hands`` does.
    """
    path = Path(path)
    source = str(path)
    with path.open("rb") as stream:
        head = stream.read(_SNIFF_BYTES)
        if not head.strip():
            return
        chosen = format or format_from_name(path.name) or sniff_format(head)
        if utf16_of(head) is not None or chosen == "ohh":  # UTF-16 and OHH: the Python reader
            stream.seek(0)
            hands = split_hands(stream, source=source, format=chosen)
            index = 0
            while raws := tuple(itertools.islice(hands, _RAWS_PER_BLOCK)):
                yield Block(_EMPTY_BYTES, source, chosen, index, _NONE, _NONE, _NONE, raws)
                index += len(raws)
            return
        pending = bytearray(head)
        line = 1
        index = 0
        ended = False
        while pending or not ended:
            while not ended and len(pending) < block_bytes:
                more = stream.read(block_bytes)
                ended = not more
                pending += more
            cut = len(pending) if ended else _cut(pending, chosen)
            if cut <= 0:  # no end of a hand yet: read on
                more = stream.read(block_bytes)
                ended = not more
                pending += more
                continue
            piece = bytes(pending[:cut])
            del pending[:cut]
            block = _block(piece, source, chosen, index, line, first=line == 1)
            line += block.newlines.shape[0] if block.raws is None else piece.count(b"\n")
            index += block.hands
            if block.hands:
                yield block


def _cut(data: bytearray, fmt: Format) -> int:
    """Where ``data`` can be cut between hands (0: nowhere yet)."""
    if fmt == "pokerstars":
        blank = max(data.rfind(b"\n\n"), data.rfind(b"\n\r\n"))
        separator = data.rfind(b"\n****")
        if separator > blank:  # a hand-archive separator line starts the next block
            stop = data.find(b"\n", separator + 1)
            if stop >= 0 and bytes(data[separator + 1 : stop]).rstrip().endswith(b"*"):
                return separator + 1
        if blank < 0:
            return 0
        return blank + (2 if data[blank + 1] == 10 else 3)
    at = data.rfind(b"\n[")
    while at >= 0:
        stop = data.find(b"\n", at + 1)
        header = bytes(data[at + 1 : stop if stop >= 0 else len(data)]).strip()
        if header.endswith(b"]") and b"." not in header and not header.startswith(b"[["):
            return at + 1
        at = data.rfind(b"\n[", 0, at)
    return 0


def _block(piece: bytes, source: str, fmt: Format, index: int, line: int, first: bool) -> Block:
    """Split one block: compiled when its bytes are plain UTF-8 text, else by ``split``."""
    skip = 3 if first and piece.startswith(_BOM) else 0
    data = piece
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
    ascii_only = data.isascii()
    plain = b"\r" not in data and (ascii_only or (not _has_bom(data, skip) and _utf8(data)))
    if not plain:
        raws = tuple(
            RawHand(
                raw.text,
                raw.source,
                raw.index + index,
                raw.line + line - 1,
                fmt,
                raw.error,
                raw.encoding,
            )
            for raw in split_lines(io.BytesIO(piece), source=source, format=fmt)
        )
        return Block(_EMPTY_BYTES, source, fmt, index, _NONE, _NONE, _NONE, raws)
    array = np.frombuffer(data, dtype=np.uint8)
    newlines = np.flatnonzero(array == 10)
    split = _split_pokerstars if fmt == "pokerstars" else _split_phh
    start, end, first_line = split(array, skip, newlines)
    control = np.flatnonzero(((array < 32) & (array != 10)) | (array == 127))
    tainted = np.zeros(start.shape[0], dtype=np.bool_)
    if control.size and start.size:
        tainted[np.unique(np.searchsorted(start, control, side="right") - 1).clip(0)] = True
    return Block(
        array,
        source,
        fmt,
        index,
        start,
        end,
        first_line + line,
        newlines=newlines,
        first_line=first_line,
        tainted=tainted,
    )


def _has_bom(data: bytes, skip: int) -> bool:
    """Whether a byte-order mark is in ``data`` after its first ``skip`` bytes."""
    array = np.frombuffer(data, dtype=np.uint8)
    for at in np.flatnonzero(array[skip:] == 0xEF).tolist():
        if data[skip + at : skip + at + 3] == _BOM:
            return True
    return False


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_POKERSTARS = np.frombuffer(b"pokerstars ", dtype=np.uint8).copy()


@nb.njit(cache=True, nogil=True, inline="always")
def _separator(data: UInt8s, start: int, stop: int) -> bool:
    """Whether ``data[start:stop]`` separates hands as ``split.separates_hands`` says: only
    whitespace, or (stripped) four asterisks first and one last."""
    while start < stop and (data[start] == 32 or 9 <= data[start] <= 13):
        start += 1
    while stop > start and (data[stop - 1] == 32 or 9 <= data[stop - 1] <= 13):
        stop -= 1
    if start == stop:
        return True
    if stop - start < 4 or data[stop - 1] != 42:
        return False
    stars = 0
    for i in range(start, start + 4):
        stars += data[i] == 42
    return stars == 4


@nb.njit(cache=True, nogil=True, inline="always")
def _opens(data: UInt8s, at: int, stop: int, word: UInt8s) -> bool:
    """Whether the line ``data[at:stop]`` starts a hand as ``split.starts_hand`` says:
    ``word`` (lower case) in any case, after any indentation."""
    while at < stop and (data[at] == 32 or 9 <= data[at] <= 13):
        at += 1
    if stop - at < word.shape[0]:
        return False
    for i in range(word.shape[0]):
        byte = data[at + i]
        if word[i] == 32:
            if byte != 32:
                return False
        elif not ((65 <= byte <= 90 or 97 <= byte <= 122) and byte | 32 == word[i]):
            return False
    return True


@nb.njit(cache=True, nogil=True)
def _split_pokerstars(data: UInt8s, skip: int, newlines: Int64s) -> tuple[Int64s, Int64s, Int64s]:
    """Hands separated by blank or separator lines, or started by a ``PokerStars `` line:
    (start, end, index of the first line in the block) of each."""
    size = data.shape[0]
    lines = newlines.shape[0] + 1
    start = np.empty(lines, np.int64)
    end = np.empty(lines, np.int64)
    first = np.empty(lines, np.int64)
    hands = 0
    current = False
    at = skip
    word = _POKERSTARS
    for k in range(lines):
        if at >= size:
            break
        stop = newlines[k] if k < newlines.shape[0] else size
        if _separator(data, at, stop):
            if current:
                end[hands] = at
                hands += 1
                current = False
        else:
            if current and _opens(data, at, stop, word):
                end[hands] = at
                hands += 1
                current = False
            if not current:
                start[hands] = at
                first[hands] = k
                current = True
        at = stop + 1
    if current:
        end[hands] = size
        hands += 1
    return start[:hands], end[:hands], first[:hands]


@nb.njit(cache=True, nogil=True, inline="always")
def _header(data: UInt8s, at: int, stop: int) -> bool:
    """Whether the line ``data[at:stop]`` is a hand's ``[n]`` header (as ``split`` reads it:
    stripped, it ends in ``]``, holds no ``.`` and does not start ``[[``)."""
    if at >= stop or data[at] != 91:  # [
        return False
    last = stop - 1
    while last > at and (data[last] == 32 or 9 <= data[last] <= 13):
        last -= 1
    if data[last] != 93 or (at + 1 < stop and data[at + 1] == 91):
        return False
    dots = 0
    for i in range(at, last):
        dots += data[i] == 46  # .
    return dots == 0


@nb.njit(cache=True, nogil=True)
def _split_phh(data: UInt8s, skip: int, newlines: Int64s) -> tuple[Int64s, Int64s, Int64s]:
    """Hands started by ``[n]`` headers (text before the first header is a hand when it
    holds more than blank lines and comments): (start, end, index of the first line)."""
    size = data.shape[0]
    lines = newlines.shape[0] + 1
    start = np.empty(lines, np.int64)
    end = np.empty(lines, np.int64)
    first = np.empty(lines, np.int64)
    hands = 0
    has_lines = False
    meaningful = False
    opened = 0
    opened_line = 0
    at = skip
    for k in range(lines):
        if at >= size:
            break
        stop = newlines[k] if k < newlines.shape[0] else size
        if _header(data, at, stop):
            if meaningful:
                start[hands] = opened
                end[hands] = at
                first[hands] = opened_line
                hands += 1
            opened = at
            opened_line = k
            has_lines = True
            meaningful = True
        else:
            if not has_lines:
                opened = at
                opened_line = k
                has_lines = True
            if not meaningful:
                lead = at
                while lead < stop and (data[lead] == 32 or 9 <= data[lead] <= 13):
                    lead += 1
                meaningful = lead < stop and data[lead] != 35  # #
        at = stop + 1
    if meaningful:
        start[hands] = opened
        end[hands] = size
        first[hands] = opened_line
        hands += 1
    return start[:hands], end[:hands], first[:hands]
