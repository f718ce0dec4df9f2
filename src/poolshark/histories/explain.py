"""One hand judged the way ingestion judges it (``poolshark ingest --explain FILE:HAND``).

:func:`explain_hand` finds the hand in its file, judges it as ingestion does
(:func:`~poolshark.histories.fast.judge_hands`), and says why it is rejected (pointing at
the file line the message names) or what it gives when accepted: its record's site, hand
id, variants, warnings and decision rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from poolshark.histories.fast import judge_hands
from poolshark.histories.fast_split import Block
from poolshark.histories.ingest import IngestError
from poolshark.histories.record import HistoryError
from poolshark.histories.rows import DEFAULT_SALT, decision_rows
from poolshark.histories.split import RawHand, parse_hand, read_hands


@dataclass
class Explanation:
    """What ingestion makes of one hand of a file (``poolshark ingest --explain``).

    ``index``: the hand's place in the file (from 0); ``line``: the file line its text
    starts on. A rejected hand has ``reason`` and ``message``, and ``marked``, the file line
    the message points at when it names one; an accepted one has its record's site, hand
    id, variants and warnings, and its decision ``rows``.
    """

    source: str
    index: int
    line: int
    format: str
    text: str
    accepted: bool
    reason: str | None = None
    message: str | None = None
    marked: int | None = None
    site: str | None = None
    hand_id: str | None = None
    variants: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    rows: pl.DataFrame | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (rows as a list of objects)."""
        data = {k: v for k, v in self.__dict__.items() if k != "rows"}
        data["variants"] = list(self.variants)
        data["warnings"] = list(self.warnings)
        data["rows"] = self.rows.to_dicts() if self.rows is not None else []
        return data


def explain_hand(spec: str, *, replay_hands: bool = True, salt: str = DEFAULT_SALT) -> Explanation:
    """Judge one hand, named ``FILE:HAND``, the way ingestion does.

    ``HAND`` is the hand's index in the file (from 0) when it is a number smaller than the
    file's count of hands, else its site hand id. Raises :class:`IngestError` for a
    ``spec`` that names no file or no hand of it.
    """
    raw = find_hand(spec)
    block = Block(
        np.zeros(0, dtype=np.uint8),
        raw.source,
        raw.format,
        raw.index,
        *(np.zeros(0, dtype=np.int64),) * 3,
        raws=(raw,),
    )
    judged = judge_hands(block, 0, 1, check=replay_hands)
    explained = Explanation(raw.source, raw.index, raw.line, raw.format, raw.text, False)
    if 0 in judged.rejected:
        reason, message = judged.rejected[0]
        explained.reason, explained.message = reason, message
        explained.marked = _marked_line(raw, message)
        return explained
    record = judged.records[0]
    explained.accepted = True
    explained.site, explained.hand_id = record.site, record.hand_id
    explained.variants, explained.warnings = record.variants, record.warnings
    explained.rows = decision_rows([record], salt=salt)
    return explained


def find_hand(spec: str) -> RawHand:
    """The raw hand ``FILE:HAND`` names (see :func:`explain_hand`)."""
    name, colon, hand = spec.rpartition(":")
    if not colon or not name or not hand.strip():
        raise IngestError(
            "--explain takes FILE:HAND (HAND: the hand's index from 0, or its hand id),"
            f" not {spec!r}"
        )
    path = Path(name)
    if not path.is_file():
        raise IngestError(f"no such file: {path}")
    hand = hand.strip()
    try:
        raws = list(read_hands(path))
    except HistoryError as error:
        raise IngestError(f"cannot read {path}: {error.message}") from None
    if hand.isdigit() and int(hand) < len(raws):
        return raws[int(hand)]
    unread: RawHand | None = None
    for raw in raws:
        if hand not in raw.text:
            continue
        try:
            if parse_hand(raw).hand_id == hand:
                return raw
        except HistoryError:
            unread = unread or raw  # its id cannot be read; the text names it
    if unread is not None:
        return unread
    last = f" (0 to {len(raws) - 1})" if raws else ""
    raise IngestError(f"{path} has {len(raws)} hands{last} and none with hand id {hand!r}")


_LINE_RE = re.compile(r"\bline (\d+)\b")
_QUOTED_RE = re.compile(r"'([^']{3,})'|\"([^\"]{3,})\"")
_NEXT_WORD_RE = re.compile(r"\s+([a-z]+)")


def _marked_line(raw: RawHand, message: str) -> int | None:
    """The file line a rejection message points at: a ``line N`` of the hand, else the first
    line holding a text the message quotes with the word that follows it there (``'Name'
    folds``: the line where Name folds), else the first holding the text; None when it
    names none."""
    lines = raw.text.splitlines()
    found = _LINE_RE.search(message)
    if found is not None and 1 <= int(found.group(1)) <= len(lines):
        return raw.line + int(found.group(1)) - 1
    for match in _QUOTED_RE.finditer(message):
        quoted = match.group(1) or match.group(2)
        word = _NEXT_WORD_RE.match(message, match.end())
        holding = [number for number, text in enumerate(lines) if quoted in text]
        if word is not None:
            verb = word.group(1)
            doing = [n for n in holding if verb in lines[n].split(quoted, 1)[1]]
            holding = doing or holding
        if holding:
            return raw.line + holding[0]
    return None
