"""PHH (Poker Hand History, TOML-based) hands to :class:`HandRecord` and back.

Reading is built for speed: a hand is scanned line by line by a parser for the small part of
TOML that PHH files use (``key = value`` with literal strings, decimal numbers, booleans,
local times and one-line arrays of those). Any line outside that subset (basic strings with
escapes, comments after a value, multi-line arrays, dates, ...) sends the whole hand to
Python's ``tomllib``, the plain reference the tests compare the fast path with, so the
result never depends on which path ran. Amounts become integer chips of 0.01 (or finer when
a hand writes more decimal places).

PHH conventions (as PokerKit reads them; see ``docs/histories.md``): player ``p1`` sits left
of the button and posts the small blind, the last player is the button; heads-up the
button posts the small blind, so ``p1`` (the big blind) posts ``blinds_or_straddles[1]``
and ``p2`` (the button) ``blinds_or_straddles[0]``, and likewise for antes. A negative
blind is a live post made out of position (a new player's big blind): its chips count
toward that player's call but it does not decide who opens. Record order is by seat number
(``seats``), so PHH player ``i`` is record player ``(button + 1 + i) % n``.

Long module: one format both ways; the reader and the writer share the seat-order and
blind conventions above, and each is the other's round-trip test.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, time
from enum import IntEnum
from functools import cache, partial
from itertools import pairwise
from operator import itemgetter
from typing import TypeVar

from poolshark.cards.card import CardError, format_cards, parse_cards
from poolshark.engine.config import Betting
from poolshark.engine.table import Move, Street
from poolshark.histories.chips import (
    CURRENCY_SYMBOL,
    SYMBOL_CURRENCY,
    cents,
    decimals_in,
    format_chips,
    parse_chips,
    unit_of,
)
from poolshark.histories.record import HandRecord, HistoryError, RecordedAction, Seat

Fields = dict[str, object]
_T = TypeVar("_T")

_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?"
_LITERAL = r"'[^'\x00-\x08\x0a-\x1f\x7f]*'"
_NUMBER_RE = re.compile(_NUMBER)
_NUMBERS_RE = re.compile(rf"\[\s*(?:{_NUMBER}\s*(?:,\s*{_NUMBER}\s*)*,?\s*)?\]")
_LITERAL_RE = re.compile(_LITERAL)
_LITERALS_RE = re.compile(rf"\[\s*(?:{_LITERAL}\s*(?:,\s*{_LITERAL}\s*)*,?\s*)?\]")
_LITERAL_ITEM_RE = re.compile(r"'([^']*)'")
_TIME_RE = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,6}))?")
_BARE_KEY_RE = re.compile(r"[A-Za-z0-9_-]+")
_HEADER_RE = re.compile(r"\[\s*([A-Za-z0-9_-]+)\s*\]")

_CARD_INDEX = {format_cards([c]): c for c in range(52)}
_STREET_OF_BOARD = {0: Street.PREFLOP, 3: Street.FLOP, 4: Street.TURN, 5: Street.RIVER}
_VARIANTS = {"NT": Betting.NO_LIMIT, "FT": Betting.FIXED_LIMIT}
_KNOWN = frozenset(
    [
        "variant",
        "ante_trimming_status",
        "antes",
        "blinds_or_straddles",
        "min_bet",
        "small_bet",
        "big_bet",
        "starting_stacks",
        "actions",
        "venue",
        "time",
        "day",
        "month",
        "year",
        "hand",
        "seats",
        "seat_count",
        "table",
        "players",
        "winnings",
        "finishing_stacks",
        "currency",
        "currency_symbol",
        "time_zone",
        "time_zone_abbreviation",
        "_fast_fold",
        "_hero",
        "_second_board",
    ]
)
_CACHE_LIMIT = 100_000
_action_cache: dict[tuple[Street, int, Move, int, bool], RecordedAction] = {}
_seatings: dict[tuple[str, ...], tuple[int, list[int]]] = {}
_seats: dict[tuple[int, object, int], Seat] = {}
_times: dict[tuple[object, ...], datetime | None] = {}
_lists_of_cents: dict[tuple[object, ...], tuple[int, ...]] = {}


# -- reading ----------------------------------------------------------------------------


def parse_phh(text: str) -> HandRecord:
    """One PHH hand (a ``.phh`` file, or one ``[n]`` table of a ``.phhs``) as a record.

    Raises :class:`HistoryError` (``malformed``, ``unsupported-game``) when the hand cannot
    be read; it does not replay the hand (see ``histories.replay``).
    """
    fields = scan_fields(text)
    if fields is None:
        fields = toml_fields(text)
    return record_from_fields(fields)


def scan_fields(text: str) -> Fields | None:
    """The hand's fields by the fast subset parser, or None when it needs full TOML.

    Values come back as ``str`` (strings, numbers as written, times), ``bool`` or lists of
    ``str``; :func:`toml_fields` returns the same shapes. Lines written the usual way
    (``key = value``, one-line arrays with ``", "`` between items) take a shortcut; other
    spacing goes through the general subset rules.
    """
    fields: Fields = {}
    header_seen = False
    for line in text.split("\n"):
        key, equals, value = line.partition(" = ")
        if equals and key in _KNOWN and key not in fields and line.isprintable():
            parsed = _scan_usual(value)
            if parsed is not None:
                fields[key] = parsed
                continue
        line = line.strip()
        if not line or line[0] == "#":
            continue
        if line[0] == "[":
            if header_seen or fields or not _HEADER_RE.fullmatch(line):
                return None
            header_seen = True
            continue
        key, equals, value = line.partition("=")
        key = key.strip()
        if not equals or key in fields or not _BARE_KEY_RE.fullmatch(key):
            return None
        parsed = _scan_value(value.strip())
        if parsed is None:
            return None
        fields[key] = parsed
    return fields


_checked_numbers: set[str] = set()


def _scan_usual(value: str) -> str | bool | list[str] | None:
    """A value written the usual way (``'text'``, ``['a', 'b']``, ``[1, 2.5]``), or None.

    The caller has checked the line is printable (no control characters).
    """
    first = value[:1]
    if first == "[":
        if value[1:2] == "'":
            if value[-2:] != "']":
                return None
            items = value[2:-2].split("', '")
            return items if value.count("'") == 2 * len(items) else None
        if value[-1:] != "]":
            return None
        numbers = value[1:-1].split(", ") if len(value) > 2 else []
        checked = _checked_numbers
        for number in numbers:
            if number not in checked:
                if not _NUMBER_RE.fullmatch(number):
                    return None
                if len(checked) >= _CACHE_LIMIT:
                    checked.clear()
                checked.add(number)
        return numbers
    if first == "'":
        return value[1:-1] if value.count("'") == 2 and value[-1] == "'" else None
    if value.isdigit() and value.isascii() and (value[0] != "0" or len(value) == 1):
        return value
    return _scan_value(value)


def _scan_value(value: str) -> str | bool | list[str] | None:
    """A value of the fast subset in any spacing, or None."""
    first = value[:1]
    if first == "'":
        return value[1:-1] if _LITERAL_RE.fullmatch(value) else None
    if first == "[":
        if value[1:].lstrip()[:1] == "'":
            if _LITERALS_RE.fullmatch(value):
                return _LITERAL_ITEM_RE.findall(value)
            return None
        if _NUMBERS_RE.fullmatch(value):
            inner = value[1:-1].strip().rstrip(",")
            return [item.strip() for item in inner.split(",")] if inner else []
        return None
    if value == "true":
        return True
    if value == "false":
        return False
    if _NUMBER_RE.fullmatch(value) or _TIME_RE.fullmatch(value):
        return value
    return None


def toml_fields(text: str) -> Fields:
    """The hand's fields by ``tomllib`` (the reference), in :func:`scan_fields`' shapes."""
    try:
        document = tomllib.loads(text, parse_float=str)
    except tomllib.TOMLDecodeError as error:
        raise HistoryError("malformed", f"not valid TOML: {error}") from None
    if len(document) == 1:
        (only,) = document.values()
        if isinstance(only, dict):
            document = only
    return {key: _plain(value) for key, value in document.items()}


def _plain(value: object) -> object:
    """tomllib values in the fast parser's shapes: numbers and times as text."""
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, time):
        return value.isoformat()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def record_from_fields(fields: Mapping[str, object]) -> HandRecord:
    """Build the record from parsed fields (either parser's); amounts in 0.01 or finer."""
    try:
        return _Builder(fields, cents, 2).build()
    except _FinerUnitError:
        decimals = max(decimals_in(t) for t in _numbers(fields))
        if decimals > 6:
            raise HistoryError("malformed", "amounts with more than 6 decimal places") from None
        return _Builder(fields, partial(parse_chips, decimals=decimals), decimals).build()


class _FinerUnitError(Exception):
    """An amount has more decimal places than the unit being tried."""


_AMOUNT_FIELDS = (
    "antes",
    "blinds_or_straddles",
    "starting_stacks",
    "winnings",
    "finishing_stacks",
    "min_bet",
    "small_bet",
    "big_bet",
)


def _numbers(fields: Mapping[str, object]) -> Iterable[str]:
    """Every amount written in the hand (to find the finest unit it needs)."""
    for key in _AMOUNT_FIELDS:
        value = fields.get(key)
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, str))
    actions = fields.get("actions")
    if isinstance(actions, list):
        for action in actions:
            if isinstance(action, str) and " cbr " in action:
                yield action.split()[2]


class _Builder:
    """Turns one hand's fields into a record, tracking bets to price each call."""

    def __init__(self, fields: Mapping[str, object], chips: Callable[[str], int], decimals: int):
        self.fields = fields
        self.decimals = decimals
        self._chips = chips
        self._lists = _lists_of_cents if decimals == 2 else {}

    def amount(self, text: object, what: str) -> int:
        if not isinstance(text, str):
            raise HistoryError("malformed", f"{what} is not a number: {text!r}")
        try:
            return self._chips(text)
        except ValueError:
            if _NUMBER_RE.fullmatch(text) and decimals_in(text) > self.decimals:
                raise _FinerUnitError from None
            raise HistoryError("malformed", f"{what}: bad amount {text!r}") from None

    def amounts(self, key: str, n: int, *, required: bool = False) -> list[int]:
        """A per-player list: as given, a scalar for everyone, padded/truncated to n."""
        value = self.fields.get(key)
        if value is None:
            if required:
                raise HistoryError("malformed", f"missing field {key!r}")
            return [0] * n
        if isinstance(value, str):
            return [self.amount(value, key)] * n
        if not isinstance(value, list):
            raise HistoryError("malformed", f"{key} is not a list")
        items = tuple(value[:n])
        try:
            known = self._lists.get(items)
        except TypeError:  # an unhashable item (a nested array): not an amount
            raise HistoryError("malformed", f"{key} holds something other than amounts") from None
        if known is None:
            known = tuple(self.amount(v, key) for v in items)
            if len(self._lists) >= _CACHE_LIMIT:
                self._lists.clear()
            self._lists[items] = known
        return [*known, *[0] * (n - len(known))] if len(known) < n else list(known)

    def text(self, key: str) -> str | None:
        value = self.fields.get(key)
        if value is None:
            return None
        if isinstance(value, list | dict):
            raise HistoryError("malformed", f"{key} is not a single value")
        return str(value)

    def integer(self, key: str) -> int | None:
        value = self.text(key)
        if value is None:
            return None
        if not value.isdigit():
            raise HistoryError("malformed", f"{key} is not a whole number: {value!r}")
        return int(value)

    def build(self) -> HandRecord:
        fields = self.fields
        variant = fields.get("variant")
        if variant not in _VARIANTS:
            raise HistoryError("unsupported-game", f"PHH variant {variant!r}")
        betting = _VARIANTS[str(variant)]
        raw_stacks = fields.get("starting_stacks")
        if not isinstance(raw_stacks, list):
            raise HistoryError("malformed", "missing or bad starting_stacks")
        n = len(raw_stacks)
        if n < 2:
            raise HistoryError("malformed", f"{n} players")
        if n > 10:
            raise HistoryError("unsupported-game", f"{n} players (the engine seats 2 to 10)")
        stacks = self.amounts("starting_stacks", n)
        if min(stacks) <= 0:
            raise HistoryError("malformed", "a starting stack is not positive")
        antes = self.amounts("antes", n)
        posted = self.amounts("blinds_or_straddles", n, required=True)
        if n == 2:  # heads-up: the button (p2) posts the first entry
            antes.reverse()
            posted.reverse()
        if min(antes) < 0:
            raise HistoryError("malformed", "negative ante")
        blinds = [abs(b) for b in posted]
        small_bet = big_bet = 0
        if betting is Betting.NO_LIMIT:
            big_blind = self.amount(fields.get("min_bet"), "min_bet")
        else:
            small_bet = self.amount(fields.get("small_bet"), "small_bet")
            big_bet = self.amount(fields.get("big_bet"), "big_bet")
            big_blind = max(blinds[:2]) or small_bet
        if big_blind <= 0 or (not any(blinds) and not any(antes)):
            raise HistoryError("malformed", "no big blind or minimum bet")
        small_blind = min(blinds[1] if n == 2 else blinds[0], big_blind)

        first, numbers = self.seating(n)
        track = _Tracker(stacks, antes, blinds)
        actions = fields.get("actions")
        if not isinstance(actions, list):
            raise HistoryError("malformed", "missing or bad actions")
        recorded = self.play(actions, track, n, first)

        ours = _picker(n, first)  # PHH index of each record player, in record order
        button = (n - 1 + first) % n
        names = fields.get("players")
        if names is None:
            names = [f"p{i + 1}" for i in range(n)]
        if not isinstance(names, list) or len(names) != n:
            raise HistoryError("malformed", "players does not list every player")
        winnings = self.winnings(n, track)
        total_pot = sum(track.contributed)
        return HandRecord(
            site=self.text("venue") or "",
            hand_id=self.text("hand") or "",
            seats=tuple([_seat(numbers[i], names[i], stacks[i]) for i in ours.indices]),
            button=button,
            small_blind=small_blind,
            big_blind=big_blind,
            blinds=ours(blinds),
            dead=ours(antes),
            actions=recorded,
            board=tuple(track.board),
            second_board=self.second_board(),
            hole_cards=ours(track.holes),
            winnings=None if winnings is None else ours(winnings),
            rake=None if winnings is None else total_pot - sum(winnings),
            ante=min(antes),
            betting=betting,
            unit=unit_of(self.decimals),
            currency=self.currency(),
            time=self.time(),
            table=self.text("table"),
            max_seats=self.integer("seat_count"),
            hero=self.hero(n, first),
            total_pot=total_pot,
            fast_fold=fields.get("_fast_fold") is True,
            small_bet=small_bet,
            big_bet=big_bet,
            extra=self.extra(),
        )

    def seating(self, n: int) -> tuple[int, list[int]]:
        """(record index of p1, seat number per PHH player); p1's seat comes after the
        button's in table order, so record order is a rotation of PHH order."""
        seats = self.fields.get("seats")
        if seats is None:
            return 0, list(range(1, n + 1))
        if not isinstance(seats, list) or len(seats) != n:
            raise HistoryError("malformed", "seats does not list every player")
        key = tuple(map(str, seats))
        known = _seatings.get(key)
        if known is None:
            known = _seating(seats)
            if len(_seatings) >= _CACHE_LIMIT:
                _seatings.clear()
            _seatings[key] = known
        return known

    def play(
        self, actions: list[object], track: _Tracker, n: int, first: int
    ) -> tuple[RecordedAction, ...]:
        """Walk the actions: deal cards, price calls, note all-ins; record the voluntary ones.

        ``first`` is the record index of ``p1``.
        """
        out: list[RecordedAction] = []
        street = Street.PREFLOP
        cache = _action_cache
        for action in actions:
            parsed = _parsed_actions.get(action) if isinstance(action, str) else None
            if parsed is None:
                parsed = _parse_action(action)
            kind, player, cards, amount_text = parsed
            if player >= n:
                raise HistoryError("malformed", f"no player p{player + 1} in {action!r}")
            if kind == 0:  # _Kind.CARDS: hole cards dealt or shown; nothing when unknown
                if cards:
                    track.holes[player] = cards
                continue
            if kind == 1:  # _Kind.FOLD
                move, amount, all_in = Move.FOLD, 0, False
            elif kind == 2:  # _Kind.CALL
                move = Move.CHECK_CALL
                amount, all_in = track.call(player)
            elif kind == 3:  # _Kind.RAISE
                move = Move.RAISE
                amount = self.amount(amount_text, f"action {action!r}")
                all_in = track.raise_to(player, amount)
            else:  # _Kind.BOARD
                track.end_round()
                track.board.extend(cards)
                street = _STREET_OF_BOARD.get(len(track.board), Street.DONE)
                if street is Street.DONE:
                    if len(track.board) > 5:  # PokerKit deals a second runout this way
                        raise HistoryError("unsupported-game", "more than one board in PHH")
                    raise HistoryError("malformed", f"a board of {len(track.board)} cards")
                continue
            key = (street, (player + first) % n, move, amount, all_in)
            recorded = cache.get(key)
            if recorded is None:
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                recorded = cache[key] = RecordedAction(*key)
            out.append(recorded)
        track.end_round()
        return tuple(out)

    def winnings(self, n: int, track: _Tracker) -> list[int] | None:
        """Chips collected per PHH player: ``winnings``, else from ``finishing_stacks``.

        All-zero winnings mean "not recorded" (some converted datasets zero-fill the field;
        a real pot always pays someone).
        """
        if self.fields.get("winnings") is not None:
            won = self.amounts("winnings", n)
            return won if any(won) else None
        if self.fields.get("finishing_stacks") is not None:
            final = self.amounts("finishing_stacks", n)
            return [
                f - s + c for f, s, c in zip(final, track.start, track.contributed, strict=True)
            ]
        return None

    def second_board(self) -> tuple[int, ...]:
        text = self.text("_second_board")
        return () if text is None else _cards(text, "_second_board", allow_unknown=False)

    def hero(self, n: int, first: int) -> int | None:
        text = self.text("_hero")
        if text is None:
            return None
        player = _player(text, "_hero")
        if player >= n:
            raise HistoryError("malformed", f"_hero {text!r} is not a player")
        return (player + first) % n

    def currency(self) -> str:
        code = self.text("currency")
        if code is not None:
            return code
        return SYMBOL_CURRENCY.get(self.text("currency_symbol") or "", "")

    def time(self) -> datetime | None:
        get = self.fields.get
        key = (get("year"), get("month"), get("day"), get("time"))
        stamp = _times.get(key)
        if stamp is None:
            stamp = self._parse_time()
            if len(_times) >= _CACHE_LIMIT:
                _times.clear()
            _times[key] = stamp
        return stamp

    def _parse_time(self) -> datetime | None:
        year, month, day = self.integer("year"), self.integer("month"), self.integer("day")
        if year is None or month is None or day is None:
            return None
        clock = _TIME_RE.fullmatch(self.text("time") or "00:00:00")
        if clock is None:
            raise HistoryError("malformed", f"bad time {self.text('time')!r}")
        hours, minutes, seconds, fraction = clock.groups()
        micro = int((fraction or "0").ljust(6, "0"))
        try:
            return datetime(year, month, day, int(hours), int(minutes), int(seconds), micro)
        except ValueError as error:
            raise HistoryError("malformed", f"bad date or time: {error}") from None

    def extra(self) -> dict[str, str]:
        unknown = self.fields.keys() - _KNOWN
        extra = {k: str(self.fields[k]) for k in sorted(unknown)}
        zone = self.text("time_zone_abbreviation") or self.text("time_zone")
        if zone is not None:
            extra["time_zone"] = zone
        return extra


class _Tracker:
    """Chips in front of each PHH player as the actions go, to price calls and all-ins."""

    def __init__(self, stacks: list[int], dead: list[int], blinds: list[int]) -> None:
        self.start = stacks
        self.stack = list(stacks)
        self.contributed = [0] * len(stacks)
        for i, chips in enumerate(dead):
            if chips:
                paid = min(chips, self.stack[i])
                self.stack[i] -= paid
                self.contributed[i] += paid
        self.bet = [min(b, s) for b, s in zip(blinds, self.stack, strict=True)]
        for i, chips in enumerate(self.bet):
            self.stack[i] -= chips
            self.contributed[i] += chips
        self.current = max(self.bet)
        self.board: list[int] = []
        self.holes: list[tuple[int, ...]] = [()] * len(stacks)

    def call(self, player: int) -> tuple[int, bool]:
        """(chips a check or call puts in, whether it is all-in)."""
        chips = min(self.current - self.bet[player], self.stack[player])
        if chips <= 0:
            return 0, False
        self.stack[player] -= chips
        self.bet[player] += chips
        self.contributed[player] += chips
        return chips, self.stack[player] == 0

    def raise_to(self, player: int, total: int) -> bool:
        """Bet or raise to ``total``; whether it is all-in (the replay checks legality)."""
        chips = total - self.bet[player]
        self.stack[player] -= chips
        self.bet[player] = total
        self.contributed[player] += chips
        self.current = max(self.current, total)
        return self.stack[player] <= 0

    def end_round(self) -> None:
        """Return the part of the top bet nobody matched, and start a new round."""
        bet = self.bet
        top = max(bet)
        if top and bet.count(top) == 1:
            second = sorted(bet)[-2]
            i = bet.index(top)
            self.stack[i] += top - second
            self.contributed[i] -= top - second
        self.bet = [0] * len(bet)
        self.current = 0


class _Picker:
    """Reorders a per-PHH-player list into record order (a tuple), in C via itemgetter."""

    def __init__(self, n: int, first: int) -> None:
        self.indices = [(j - first) % n for j in range(n)]
        self._get = itemgetter(*self.indices)

    def __call__(self, values: Sequence[_T]) -> tuple[_T, ...]:
        picked: tuple[_T, ...] = self._get(values)
        return picked


@cache
def _picker(n: int, first: int) -> _Picker:
    """The reordering for ``n`` players when ``p1`` is record player ``first``."""
    return _Picker(n, first)


def _seating(seats: list[object]) -> tuple[int, list[int]]:
    """:meth:`_Builder.seating` for a list of seat numbers."""
    n = len(seats)
    numbers = []
    for seat in seats:
        if not isinstance(seat, str) or not seat.isdigit() or int(seat) <= 0:
            raise HistoryError("malformed", f"bad seat number {seat!r}")
        numbers.append(int(seat))
    lowest = numbers.index(min(numbers))
    rotated = numbers[lowest:] + numbers[:lowest]
    if any(a >= b for a, b in pairwise(rotated)):
        raise HistoryError("malformed", f"seats {numbers} are not in table order")
    return (n - lowest) % n, numbers


def _seat(number: int, name: object, stack: int) -> Seat:
    """A (memoized) seat: the same players sit with the same stacks hand after hand."""
    key = (number, name, stack)
    seat = _seats.get(key)
    if seat is None:
        if not isinstance(name, str):
            raise HistoryError("malformed", f"player name {name!r} is not text")
        if len(_seats) >= _CACHE_LIMIT:
            _seats.clear()
        seat = _seats[key] = Seat(number, name, stack)
    return seat


class _Kind(IntEnum):
    """What one entry of ``actions`` does."""

    CARDS = 0  # hole cards dealt or shown (or a muck: no cards)
    FOLD = 1
    CALL = 2
    RAISE = 3
    BOARD = 4


_PLAYER_TOKENS = {f"p{i + 1}": i for i in range(10)}
ParsedAction = tuple[_Kind, int, tuple[int, ...], str]
_parsed_actions: dict[str, ParsedAction] = {}


def _parse_action(action: object) -> ParsedAction:
    """(kind, PHH player or 0, cards, raise amount text) of one action; memoized, since
    the same few hundred action strings make up most of every file."""
    if not isinstance(action, str):
        raise HistoryError("malformed", f"action {action!r} is not text")
    words = action.split()
    if "#" in words:  # commentary, as PokerKit reads it
        words = words[: words.index("#")]
    parsed: ParsedAction
    match words:
        case ["d", "db", cards]:
            parsed = (_Kind.BOARD, 0, _cards(cards, action, allow_unknown=False), "")
        case ["d", "dh", player, cards]:
            parsed = (_Kind.CARDS, _player(player, action), _cards(cards, action), "")
        case ["d", "dh", player]:
            parsed = (_Kind.CARDS, _player(player, action), (), "")
        case [player, "f"]:
            parsed = (_Kind.FOLD, _player(player, action), (), "")
        case [player, "cc"]:
            parsed = (_Kind.CALL, _player(player, action), (), "")
        case [player, "cbr", amount]:
            parsed = (_Kind.RAISE, _player(player, action), (), amount)
        case [player, "sm"] | [player, "sm", "-"]:
            parsed = (_Kind.CARDS, _player(player, action), (), "")
        case [player, "sm", cards]:
            parsed = (_Kind.CARDS, _player(player, action), _cards(cards, action), "")
        case [_, "sd", *_] | [_, "pb"]:
            raise HistoryError("unsupported-game", f"draw or stud action {action!r}")
        case _:
            raise HistoryError("malformed", f"bad action {action!r}")
    if len(_parsed_actions) >= _CACHE_LIMIT:
        _parsed_actions.clear()
    _parsed_actions[action] = parsed
    return parsed


def _player(token: str, action: str) -> int:
    """PHH player index of ``p1``..``p10``."""
    index = _PLAYER_TOKENS.get(token)
    if index is None:
        raise HistoryError("malformed", f"bad player {token!r} in {action!r}")
    return index


def _cards(text: str, action: str, *, allow_unknown: bool = True) -> tuple[int, ...]:
    """Cards such as ``"8sAh"``; ``()`` when any is unknown (``??``) and that is allowed."""
    if len(text) % 2:
        raise HistoryError("malformed", f"bad cards {text!r} in {action!r}")
    if "?" in text:
        if allow_unknown:
            return ()
        raise HistoryError("malformed", f"unknown board cards in {action!r}")
    try:
        cards = tuple(_CARD_INDEX[text[i : i + 2]] for i in range(0, len(text), 2))
    except KeyError:
        try:
            cards = tuple(parse_cards(text))
        except CardError as error:
            raise HistoryError("malformed", f"{error} in {action!r}") from None
    return cards


# -- writing ----------------------------------------------------------------------------


def _ante_trimming(record: HandRecord) -> str:
    """PHH's ``ante_trimming_status`` for the record: ``true`` (antes count toward the side
    pots like bets, as the engine settles them) unless the record shows
    ``antes-in-main-pot`` or its antes differ between players (a big-blind ante, which a
    trimming reader would hand back as an uncalled bet)."""
    antes = {a for a in record.dead if a}
    untrimmed = "antes-in-main-pot" in record.variants or len(antes) > 1
    untrimmed = untrimmed or (bool(antes) and 0 in record.dead)
    return "false" if untrimmed else "true"


def write_phh(record: HandRecord, *, key: int | str | None = None) -> str:
    """The record as PHH text; with ``key``, headed ``[key]`` for a ``.phhs`` file.

    Written as PokerKit reads it: blinds in PHH order (negative for a live post out of
    position), ``sm`` lines for players who reach a showdown, known cards of others on their
    ``d dh`` line. Run-it-twice's second board, the hero and fast-fold go in the
    user-defined fields ``_second_board``, ``_hero`` and ``_fast_fold``.
    """
    n = record.players
    decimals = _decimals_of(record)
    money = partial(format_chips, decimals=decimals)
    order = [(record.button + 1 + i) % n for i in range(n)]  # record index of PHH player i
    phh = {j: i for i, j in enumerate(order)}
    blinds = [record.blinds[j] for j in order]
    antes = [record.dead[j] for j in order]
    signed = _signed_blinds(blinds)
    if n == 2:
        signed.reverse()
        antes.reverse()
    lines = [f"[{key}]"] if key is not None else []
    variant = "NT" if record.betting is Betting.NO_LIMIT else "FT"
    lines += [
        f"variant = '{variant}'",
        f"ante_trimming_status = {_ante_trimming(record)}",
        f"antes = [{', '.join(money(a) for a in antes)}]",
        f"blinds_or_straddles = [{', '.join(money(b) for b in signed)}]",
    ]
    if record.betting is Betting.NO_LIMIT:
        lines.append(f"min_bet = {money(record.big_blind)}")
    else:
        lines.append(f"small_bet = {money(record.small_bet)}")
        lines.append(f"big_bet = {money(record.big_bet)}")
    lines.append(f"starting_stacks = [{', '.join(money(record.seats[j].stack) for j in order)}]")
    actions = _phh_actions(record, order, money)
    lines.append(f"actions = [{', '.join(_toml_string(a) for a in actions)}]")
    if record.site:
        lines.append(f"venue = {_toml_string(record.site)}")
    if record.time is not None:
        stamp = record.time
        clock = stamp.time().isoformat()
        lines += [f"time = {clock}", f"day = {stamp.day}", f"month = {stamp.month}"]
        lines.append(f"year = {stamp.year}")
    if record.hand_id:
        plain = record.hand_id.isdigit() and (record.hand_id[0] != "0" or record.hand_id == "0")
        lines.append(f"hand = {record.hand_id if plain else _toml_string(record.hand_id)}")
    lines.append(f"seats = [{', '.join(str(record.seats[j].number) for j in order)}]")
    if record.max_seats is not None:
        lines.append(f"seat_count = {record.max_seats}")
    if record.table is not None:
        lines.append(f"table = {_toml_string(record.table)}")
    names = ", ".join(_toml_string(record.seats[j].player) for j in order)
    lines.append(f"players = [{names}]")
    if record.winnings is not None:
        lines.append(f"winnings = [{', '.join(money(record.winnings[j]) for j in order)}]")
    if record.currency:
        lines.append(f"currency = {_toml_string(record.currency)}")
        if record.currency in CURRENCY_SYMBOL:
            lines.append(f"currency_symbol = {_toml_string(CURRENCY_SYMBOL[record.currency])}")
    zone = record.extra.get("time_zone")
    if zone is not None:
        lines.append(f"time_zone_abbreviation = {_toml_string(zone)}")
    if record.fast_fold:
        lines.append("_fast_fold = true")
    if record.hero is not None:
        lines.append(f"_hero = 'p{phh[record.hero] + 1}'")
    if record.second_board:
        lines.append(f"_second_board = '{format_cards(record.second_board)}'")
    return "\n".join(lines) + "\n"


def write_phhs(records: Iterable[HandRecord]) -> str:
    """Several records as one ``.phhs`` text, tables ``[1]``, ``[2]``, ..."""
    return "\n".join(write_phh(r, key=i + 1) for i, r in enumerate(records))


def _decimals_of(record: HandRecord) -> int:
    """Decimal places of the record's chip unit (0.01 -> 2)."""
    for decimals in range(7):
        if record.unit == unit_of(decimals):
            return decimals
    raise ValueError(f"unit {record.unit} is not 1, 0.1, ... or 0.000001")


def _signed_blinds(blinds: list[int]) -> list[int]:
    """PHH signs in PHH order: the small and big blind and real straddles (a post larger
    than everything before it) positive; other posts (out of position) negative."""
    signed = list(blinds)
    highest = max(blinds[:2]) if blinds else 0
    for i in range(2, len(blinds)):
        if blinds[i] > highest:
            highest = blinds[i]
        else:
            signed[i] = -blinds[i]
    return signed


def _phh_actions(record: HandRecord, order: list[int], money: Callable[[int], str]) -> list[str]:
    """The actions list: hole cards dealt, voluntary actions, board cards and showdown.

    ``order[i]`` is the record index of PHH player ``i``.
    """
    n = record.players
    phh = {j: i for i, j in enumerate(order)}
    live = [True] * n
    for action in record.actions:
        if action.move is Move.FOLD:
            live[action.player] = False
    showdown = sum(live) > 1
    holes = record.hole_cards or ((),) * n
    out = []
    for i, j in enumerate(order):
        known = holes[j] and not (showdown and live[j])
        out.append(f"d dh p{i + 1} {format_cards(holes[j]) if known else '????'}")
    board = record.board
    dealt = 0
    street = Street.PREFLOP
    for action in record.actions:
        while action.street > street:
            street = Street(street + 1)
            size = (0, 3, 4, 5)[street]
            out.append(f"d db {format_cards(board[dealt:size])}")
            dealt = size
        name = f"p{phh[action.player] + 1}"
        if action.move is Move.FOLD:
            out.append(f"{name} f")
        elif action.move is Move.CHECK_CALL:
            out.append(f"{name} cc")
        else:
            out.append(f"{name} cbr {money(action.amount)}")
    for size in (3, 4, 5):
        if len(board) >= size > dealt:
            out.append(f"d db {format_cards(board[dealt:size])}")
            dealt = size
    if showdown:
        for i, j in enumerate(order):
            if live[j]:
                out.append(f"p{i + 1} sm {format_cards(holes[j]) if holes[j] else '????'}")
    return out


def _toml_string(text: str) -> str:
    """A TOML string: literal when it can be, else a basic string with escapes."""
    if "'" not in text and not any((ord(c) < 32 and c != "\t") or ord(c) == 127 for c in text):
        return f"'{text}'"
    return json.dumps(text, ensure_ascii=False)
