"""PokerStars cash-game hand histories (text) to :class:`HandRecord`, and back.

Long module: the reader and the writer of one text format, kept together so that what one
writes the other reads line for line.

The reader takes one hand's text (see ``histories.split`` for files) and reads it line by
line: header, table, seats, forced bets, ``*** HOLE CARDS ***`` and the betting rounds,
showdowns (run it twice included), the pots collected, and the summary. Player names may
hold any character, spaces, brackets and colons included: a line is matched against the
names seated at the table, longest first. Lines that carry no chips (sitting out,
disconnects, time-outs, chat, cash-out offers) are recognized and skipped; any other line
rejects the hand as ``malformed``, and a hand that stops before its summary as
``truncated``. Tournaments, play money and games other than hold'em no-limit and
fixed-limit are rejected with their own reasons. Full Tilt Poker's text is rewritten in
this layout first (``histories.fulltilt``) and read the same way, with its site.

Forced bets: ``posts small blind`` is the live small blind when posted by the first
player left of the button (the button itself heads-up) and dead money otherwise; ``posts
big blind`` and ``posts straddle`` are live; ``posts small & big blinds`` is a live big
blind plus a dead small blind; antes are dead. A post cut short by the stack ("and is
all-in") is recorded at its full size, as the engine caps it by the stack itself.

The writer prints a record the way the site does, so simulated hands read like real ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from decimal import Decimal

from poolshark.cards.card import RANK_NAMES, format_cards
from poolshark.cards.evaluator import evaluate_indices
from poolshark.cards.hand_value import Category, all_keys
from poolshark.engine.config import Betting
from poolshark.engine.pots import side_pots, split_pot, take_rake
from poolshark.engine.table import Move, Street
from poolshark.histories.chips import CHIPS, CURRENCY_SYMBOL, SYMBOL_CURRENCY, cents, format_chips
from poolshark.histories.fulltilt import SITE as FULL_TILT
from poolshark.histories.fulltilt import is_full_tilt
from poolshark.histories.fulltilt import to_pokerstars as full_tilt_to_pokerstars
from poolshark.histories.record import HandRecord, HistoryError, RecordedAction, Seat

SITE = "PokerStars"

_SYMBOLS = "".join(SYMBOL_CURRENCY)
_AMOUNT = rf"[{_SYMBOLS}]?[\d,]+(?:\.\d+)?"
#: ``ROOM [Zoom ]Hand|Game #ID:`` the start of every header in PokerStars' layout.
_ROOM_RE = re.compile(r"(.*?) (Zoom )?(?:Hand|Game) #([\w-]+): *", re.IGNORECASE)
#: The rest of the header: ``Hold'em No Limit ($1/$2 USD) - 2009/10/12 23:45:12 ET
#: [...]`` and the older ``... - 2009/10/12 - 23:45:12 (ET)``; any case.
_HEADER_RE = re.compile(
    r"(.+?) \(([^()]*)\) - (\d{4})/(\d{1,2})/(\d{1,2})(?: - | )(\d{1,2}):(\d{2}):(\d{2})"
    r"(?: \(?([A-Za-z]+)\)?)?(?: \[.*\])?",
    re.IGNORECASE,
)
#: ``$3/$6 - $120 Cap -  USD``: the stakes of a capped no-limit table.
_CAP_RE = re.compile(rf"(.*?) - ({_AMOUNT}) Cap(?: - *(.*))?", re.IGNORECASE)
_TABLE_RE = re.compile(
    r"Table '(.*)'(?: (\d+)-max)?( \(Play Money\))?(?: \(Real Money\))? Seat #(\d+) is the button"
)
_SEAT_RE = re.compile(rf"Seat (\d+): (.+) \(({_AMOUNT}) in chips(?:, {_AMOUNT} bounty)?\)(.*)")
_COLLECTED_RE = re.compile(rf"(.+) collected ({_AMOUNT}) from (pot|main pot|side pot(?:-\d+)?)")
_UNCALLED_RE = re.compile(rf"Uncalled bet \(({_AMOUNT})\) returned to (.+)")
_CAP_SUFFIX_RE = re.compile(rf" and has reached the ({_AMOUNT}) cap")
#: Rooms other than PokerStars whose text follows PokerStars' layout, read as such with
#: the site recorded (the header's room, lower case -> the site). Full Tilt's own layout is
#: rewritten into this one first (``histories.fulltilt``); others (Run It Once, whose
#: showdown and pot lines differ, Bovada, ...) are rejected as ``unsupported-site``.
OTHER_ROOMS = {
    "poker": "GGPoker",
    "pokermaster": "PokerMaster",
    "pokerstars.fr": "PokerStars",
    "pokerstars.it": "PokerStars",
    "pokerstars.es": "PokerStars",
}
#: Lines where the house adds money to the pot (splash the pot, cash drop): the chips
#: would not add up, so the hand is rejected as ``unsupported-game``.
_HOUSE_MONEY = ("STP added: ", "Cash Drop to Pot")
_CARDS_RE = re.compile(r"\[([^\]]*)\]")
_POT_RE = re.compile(rf"(Main pot|Side pot(?:-\d+)?) ({_AMOUNT})\.")
_SHOWN_RE = re.compile(r"(?:showed|mucked) \[([^\]]+)\]")
_GAMES = {"hold'em no limit": Betting.NO_LIMIT, "hold'em limit": Betting.FIXED_LIMIT}
_STREETS = {"FLOP": Street.FLOP, "TURN": Street.TURN, "RIVER": Street.RIVER}
_BOARD_SIZE = {Street.FLOP: 3, Street.TURN: 4, Street.RIVER: 5}
_STREET_NAMES = {Street.FLOP: "Flop", Street.TURN: "Turn", Street.RIVER: "River"}
#: Words after a player's name (with or without a colon) on lines that move no chips.
_NOTICES = (
    "is sitting out",
    "sits out",
    "is disconnected",
    "is connected",
    "has timed out",
    "has timed out while disconnected",
    "has timed out while being disconnected",
    "has returned",
    "leaves the table",
    "will be allowed to play after the button",
    "was removed from the table for failing to post",
    "is feeling normal again",
    "is waiting for big blind",
    "is waiting for the big blind",
    "waits for big blind",
)
_NOTICE_PREFIXES = ("joins the table at seat #",)
#: Lines of the whole table that move no chips.
_TABLE_NOTICES = ("Betting is capped",)
_CACHE_LIMIT = 100_000
_action_cache: dict[tuple[Street, int, Move, int, bool], RecordedAction] = {}
_money_cache: dict[str, int] = {}


# -- reading ----------------------------------------------------------------------------


def parse_pokerstars(text: str) -> HandRecord:
    """One PokerStars hand (text) as a record; raises :class:`HistoryError`.

    It does not replay the hand (see ``histories.replay``).
    """
    site = None
    if is_full_tilt(text):
        text, site = full_tilt_to_pokerstars(text), FULL_TILT
    lines = [line.rstrip().lstrip(" \t") for line in text.lstrip("\ufeff").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    try:
        record = _Reader(lines).read()
        return record if site is None else replace(record, site=site)
    except HistoryError:
        raise
    except (ValueError, IndexError, KeyError) as error:  # a line that parsed only half-way
        raise HistoryError("malformed", f"cannot read the hand: {error}") from None


class _Reader:
    """Reads one hand's lines, section by section."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.at = 0
        self.names: dict[str, int] = {}  # every seated name -> seat list position
        self.seats: list[tuple[int, str, int, bool]] = []  # number, name, chips, sitting out
        self.dealt: list[int] = []  # seat list positions dealt in, table order
        self.record_index: dict[int, int] = {}  # seat list position -> record index
        self.actions: list[RecordedAction] = []
        self.holes: dict[int, tuple[int, ...]] = {}
        self.collected: dict[int, int] = {}
        self.extra: dict[str, str] = {}
        self.hero: int | None = None
        self.site = SITE
        self.cap = 0  # capped no-limit: the most a player may put in the hand
        self.variants: list[str] = []

    # -- small helpers ----------------------------------------------------------------

    def line(self) -> str | None:
        return self.lines[self.at] if self.at < len(self.lines) else None

    def need(self, what: str) -> str:
        line = self.line()
        if line is None:
            raise HistoryError("truncated", f"the hand stops before its {what}")
        return line

    def speaker(self, line: str) -> tuple[int, str] | None:
        """(seat list position, the rest) of a line ``NAME: rest``; longest name wins."""
        found = None
        at = line.find(": ")
        while at >= 0:
            position = self.names.get(line[:at])
            if position is not None:
                found = (position, line[at + 2 :])
            at = line.find(": ", at + 1)
        return found

    def player(self, position: int, line: str) -> int:
        """The record index of a seat list position, which must be dealt in."""
        index = self.record_index.get(position)
        if index is None:
            raise HistoryError("malformed", f"a player who was not dealt in acts: {line!r}")
        return index

    def named(self, name: str, line: str) -> int:
        position = self.names.get(name)
        if position is None:
            raise HistoryError("malformed", f"unknown player in {line!r}")
        return self.player(position, line)

    # -- sections ---------------------------------------------------------------------

    def read(self) -> HandRecord:
        hand_id, fast_fold, betting, low, high, currency, stamp, zone = self.header()
        table, max_seats, button_seat = self.table_line()
        self.seat_lines()
        posts = self.forced_bets()
        button = self.deal_in(button_seat, posts)
        n = len(self.dealt)
        if n < 2:
            raise HistoryError("malformed", f"{n} player dealt in")
        if n > 10:
            raise HistoryError("unsupported-game", f"{n} players")
        small_seat = button if n == 2 else (button + 1) % n
        if betting is Betting.NO_LIMIT:
            small_blind, big_blind = low, high
        else:
            big_blind = posts.size("big blind", None) or low
            small_blind = posts.size("small blind", self.dealt[small_seat]) or big_blind // 2
        blinds, dead = self.resolve_posts(posts, small_seat, small_blind, big_blind)
        boards = self.play()
        total_pot, rake = self.summary(boards)
        if not self.collected:
            raise HistoryError("malformed", "nobody collects the pot")
        if zone:
            self.extra["time_zone"] = zone
        if self.seats[self.dealt[button]][0] != button_seat:
            self.extra["button_seat"] = str(button_seat)
        fixed = betting is Betting.FIXED_LIMIT
        return HandRecord(
            site=self.site,
            hand_id=hand_id,
            seats=self.dealt_seats(),
            button=button,
            small_blind=small_blind,
            big_blind=big_blind,
            blinds=tuple(blinds),
            dead=tuple(dead),
            actions=tuple(self.actions),
            board=tuple(boards.first),
            second_board=tuple(boards.second),
            hole_cards=tuple(self.holes.get(i, ()) for i in range(n)),
            winnings=tuple(self.collected.get(i, 0) for i in range(n)),
            rake=rake,
            ante=min(dead),
            betting=betting,
            currency=currency,
            time=stamp,
            table=table,
            max_seats=max_seats or None,
            hero=self.hero,
            total_pot=total_pot,
            fast_fold=fast_fold,
            small_bet=low if fixed else 0,
            big_bet=high if fixed else 0,
            variants=tuple(self.variants),
            extra=self.extra,
        )

    def dealt_seats(self) -> tuple[Seat, ...]:
        """The dealt players' seats. With a cap, each plays the smaller of stack and cap
        (what the cap lets them lose, which the replay checks); the real stacks are kept
        in ``extra["stacks"]``."""
        seats = tuple(Seat(*self.seats[p][:3]) for p in self.dealt)
        if not self.cap:
            return seats
        self.extra["stacks"] = " ".join(str(seat.stack) for seat in seats)
        return tuple(Seat(s.number, s.player, min(s.stack, self.cap)) for s in seats)

    def header(self) -> tuple[str, bool, Betting, int, int, str, datetime, str | None]:
        """The first line: room, hand id, game, stakes (a cap too), the clock. The room is
        PokerStars in any case (a tracker's upper-case export included) or one of
        :data:`OTHER_ROOMS`; other rooms' hands are rejected as ``unsupported-site``."""
        line = self.need("header")
        if " home game #" in line.partition(":")[0].lower():
            raise HistoryError("home-game", f"a home game: {line[:80]!r}")
        room_match = _ROOM_RE.match(line)
        if room_match is None:
            name = _room_name(line)
            if name:
                raise HistoryError("unsupported-site", f"a {name} hand: {line[:80]!r}")
            raise HistoryError("unsupported-format", f"not a hand history: {line[:60]!r}")
        room = room_match.group(1).strip()
        key = room.lower()
        if key != "pokerstars" and key not in OTHER_ROOMS:
            raise HistoryError("unsupported-site", f"a {room} hand: {line[:80]!r}")
        self.site = SITE if key == "pokerstars" else OTHER_ROOMS[key]
        rest = line[room_match.end() :]
        if re.search(r"\bTournament #", rest, re.IGNORECASE):
            raise HistoryError("tournament", "a tournament hand")
        match = _HEADER_RE.fullmatch(rest)
        if match is None:
            raise HistoryError("malformed", f"bad header {line!r}")
        zoom, hand_id = room_match.group(2), room_match.group(3)
        game, stakes, year, month, day, hour, minute, second, zone = match.groups()
        betting = _GAMES.get(game.strip().lower())
        if betting is None:
            raise HistoryError("unsupported-game", game)
        capped = _CAP_RE.fullmatch(stakes)
        if capped is not None:
            if betting is not Betting.NO_LIMIT:
                raise HistoryError("unsupported-game", f"a capped {game} game")
            self.cap = _money(capped.group(2))
            stakes = f"{capped.group(1)} {capped.group(3) or ''}".strip()
            self.variants.append("capped-no-limit")
            self.extra["cap"] = str(self.cap)
        amounts, _, code = stakes.partition(" ")
        low_text, slash, high_text = amounts.partition("/")
        symbol = low_text[:1]
        if not slash:
            raise HistoryError("malformed", f"bad stakes {stakes!r}")
        low, high = _money(low_text), _money(high_text)
        currency = code.strip().upper() or SYMBOL_CURRENCY.get(symbol, CHIPS)
        stamp = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second))
        bracket = line.rfind(" [")
        if bracket > 0 and line.endswith("]"):
            self.extra["time_et"] = line[bracket + 1 :]
        self.at += 1
        return hand_id, bool(zoom), betting, low, high, currency, stamp, zone

    def table_line(self) -> tuple[str, int, int]:
        """``Table 'NAME' 9-max Seat #4 is the button``; the size may be missing (0)."""
        line = self.need("table line")
        match = _TABLE_RE.fullmatch(line)
        if match is None:
            raise HistoryError("malformed", f"bad table line {line!r}")
        if match.group(3):
            raise HistoryError("play-money", "a play-money table")
        self.at += 1
        return match.group(1), int(match.group(2) or 0), int(match.group(4))

    def seat_lines(self) -> None:
        while (line := self.need("seats")).startswith("Seat "):
            match = _SEAT_RE.fullmatch(line)
            if match is None:
                raise HistoryError("malformed", f"bad seat line {line!r}")
            number, name, chips, rest = match.groups()
            sitting_out = rest.strip() != ""
            if name in self.names:
                raise HistoryError("malformed", f"player {name!r} sits twice")
            self.names[name] = len(self.seats)
            self.seats.append((int(number), name, _money(chips), sitting_out))
            self.at += 1
        numbers = [s[0] for s in self.seats]
        if len(set(numbers)) != len(numbers):
            raise HistoryError("malformed", "two players in one seat")

    def forced_bets(self) -> _Posts:
        """Lines up to ``*** HOLE CARDS ***``: posts and notices."""
        posts = _Posts()
        end = self.find("*** HOLE CARDS ***", "hole cards")
        for line in self.lines[self.at : end]:
            spoken = self.speaker(line)
            if spoken is not None and spoken[1].startswith("posts "):
                posts.add(spoken[0], spoken[1], line)
                continue
            for suffix in (" is sitting out", " sits out"):
                name = line.removesuffix(suffix)
                if name != line:
                    position = self.names.get(name.removesuffix(":"))
                    if position is not None:
                        posts.sat_out.add(position)
            if not self.notice(line):
                raise HistoryError("malformed", f"unexpected line before the deal: {line!r}")
        self.at = end + 1
        return posts

    def seats_by_number(self) -> dict[int, int]:
        return {s[0]: position for position, s in enumerate(self.seats)}

    def deal_in(self, button_seat: int, posts: _Posts) -> int:
        """Fix who is dealt in (table order by seat number) and the button's record index.

        Out: players marked sitting out on their seat line, and those who sat out before
        the deal without posting. A button on an empty seat (a dead button) moves to the
        nearest dealt player counter-clockwise, which keeps the order of play the same.
        """
        posters = {item[0] for item in posts.items}
        order = sorted(range(len(self.seats)), key=lambda p: self.seats[p][0])
        self.dealt = [
            p for p in order if p in posters or not (self.seats[p][3] or p in posts.sat_out)
        ]
        self.record_index = {p: i for i, p in enumerate(self.dealt)}
        numbers = [self.seats[p][0] for p in self.dealt]
        before = [i for i, number in enumerate(numbers) if number <= button_seat]
        return before[-1] if before else len(numbers) - 1

    def resolve_posts(
        self, posts: _Posts, small_seat: int, small_blind: int, big_blind: int
    ) -> tuple[list[int], list[int]]:
        """(live blinds, dead money) per record player, at their full (nominal) sizes."""
        n = len(self.dealt)
        blinds, dead = [0] * n, [0] * n
        for position, kind, chips, all_in in posts.items:
            i = self.record_index[position]
            if kind == "small blind":
                if i == small_seat:
                    blinds[i] += max(chips, small_blind) if all_in else chips
                else:
                    dead[i] += chips
            elif kind == "big blind":
                blinds[i] += max(chips, big_blind) if all_in else chips
            elif kind == "small & big blinds":
                live = min(chips, big_blind)
                blinds[i] += live
                dead[i] += chips - live
            elif kind == "straddle":
                blinds[i] += chips
            else:  # the ante
                dead[i] += max(chips, posts.ante) if all_in else chips
        return blinds, dead

    def play(self) -> _Boards:
        """The betting rounds and showdowns, up to the summary; returns the boards."""
        street = Street.PREFLOP
        boards = _Boards()
        end = self.find("*** SUMMARY ***", "summary")
        for line in self.lines[self.at : end]:
            if line.startswith("*** "):
                street = self.section(line, street, boards)
                continue
            if line.startswith("Dealt to "):
                self.dealt_to(line)
                continue
            if line.startswith(_HOUSE_MONEY):
                raise HistoryError("unsupported-game", f"the house adds to the pot: {line!r}")
            spoken = self.speaker(line)
            if spoken is not None:
                position, rest = spoken
                if self.action(position, rest, street, boards.twice, line):
                    continue
            if not self.result_line(line) and not self.notice(line):
                raise HistoryError("malformed", f"unexpected line {line!r}")
        self.at = end + 1
        return boards

    def find(self, marker: str, what: str) -> int:
        """Index of the line ``marker`` from the current line on; ``truncated`` if none."""
        try:
            return self.lines.index(marker, self.at)
        except ValueError:
            raise HistoryError("truncated", f"the hand stops before its {what}") from None

    def section(self, line: str, street: Street, boards: _Boards) -> Street:
        """A ``*** NAME *** [cards]`` line: a new street, a run of a run-it-twice, or a
        showdown; returns the betting street."""
        end = line.find(" ***", 4)
        if end < 0:
            raise HistoryError("malformed", f"bad section line {line!r}")
        name = line[4:end]
        if name in ("SHOW DOWN", "FIRST SHOW DOWN", "SECOND SHOW DOWN"):
            return street
        which, _, street_name = name.rpartition(" ")
        new_street = _STREETS.get(street_name)
        if new_street is None or which not in ("", "FIRST", "SECOND"):
            raise HistoryError("malformed", f"unknown section {line!r}")
        cards = _cards(" ".join(_CARDS_RE.findall(line[end:])), line)
        if len(cards) != _BOARD_SIZE[new_street]:
            raise HistoryError("malformed", f"{len(cards)} board cards in {line!r}")
        if which == "":
            if boards.twice or new_street != street + 1:
                raise HistoryError("malformed", f"{line!r} is out of order")
            boards.deal(boards.first, cards, line)
            return new_street
        if not boards.twice:
            boards.shared, boards.twice = len(boards.first), True
        if which == "FIRST":
            boards.deal(boards.first, cards, line)
        else:
            if not boards.second:
                boards.second.extend(boards.first[: boards.shared])
            boards.deal(boards.second, cards, line)
        return street

    def dealt_to(self, line: str) -> None:
        """``Dealt to NAME [Ah Kd]``: the hero's cards (``Dealt to NAME`` for others)."""
        rest = line[len("Dealt to ") :]
        if rest in self.names:
            self.named(rest, line)
            return
        bracket = rest.rfind(" [")
        if bracket < 0 or not rest.endswith("]"):
            raise HistoryError("malformed", f"bad line {line!r}")
        index = self.named(rest[:bracket], line)
        self.holes[index] = tuple(_cards(rest[bracket + 2 : -1], line, count=2))
        if self.hero is None:
            self.hero = index

    def action(self, position: int, rest: str, street: Street, twice: bool, line: str) -> bool:
        """A ``NAME: ...`` line during the hand; False when it is not one of these. With a
        cap, ``and has reached the $10 cap`` marks the player all-in: the record's stack
        is the cap (see :meth:`dealt_seats`)."""
        all_in = rest.endswith(" and is all-in")
        verb = rest[: -len(" and is all-in")] if all_in else rest
        if self.cap and verb.endswith(" cap"):
            reached = _CAP_SUFFIX_RE.search(verb)
            if reached is not None and reached.end() == len(verb):
                if _money(reached.group(1)) != self.cap:
                    raise HistoryError("malformed", f"a cap other than the table's: {line!r}")
                verb, all_in = verb[: reached.start()], True
        move: Move | None = None
        amount = 0
        if verb == "folds" or verb.startswith("folds ["):
            move = Move.FOLD
        elif verb == "checks":
            move = Move.CHECK_CALL
        elif verb.startswith("calls "):
            move, amount = Move.CHECK_CALL, _money(verb[6:])
        elif verb.startswith("bets "):
            move, amount = Move.RAISE, _money(verb[5:])
        elif verb.startswith("raises "):
            _, to, total = f" {verb[7:]}".partition(" to ")  # "raises $2 to $3", "raises to $3"
            if not to:
                raise HistoryError("malformed", f"bad raise {line!r}")
            move, amount = Move.RAISE, _money(total)
        elif verb.startswith("shows ["):
            self.holes[self.player(position, line)] = _shown(verb, line)
            return True
        elif verb in ("mucks hand", "doesn't show hand") or verb.startswith("mucks ["):
            return True
        elif verb.startswith("posts "):
            raise HistoryError("malformed", f"a post after the deal: {line!r}")
        else:
            return False
        if twice:
            raise HistoryError("malformed", f"betting after the board was run twice: {line!r}")
        key = (street, self.player(position, line), move, amount, all_in)
        recorded = _action_cache.get(key)
        if recorded is None:
            if len(_action_cache) >= _CACHE_LIMIT:
                _action_cache.clear()
            recorded = _action_cache[key] = RecordedAction(*key)
        self.actions.append(recorded)
        return True

    def result_line(self, line: str) -> bool:
        """Collected pots and returned bets; False when the line is neither."""
        if line.startswith("Uncalled bet ("):
            match = _UNCALLED_RE.fullmatch(line)
            if match is None:
                raise HistoryError("malformed", f"bad line {line!r}")
            self.named(match.group(2), line)
            return True
        if " collected " in line:
            match = _COLLECTED_RE.fullmatch(line)
            if match is None:
                return False
            index = self.named(match.group(1), line)
            self.collected[index] = self.collected.get(index, 0) + _money(match.group(2))
            return True
        return False

    def notice(self, line: str) -> bool:
        """Lines that move no chips: seating changes, connection, chat, cash-out offers
        (kept in ``extra["cash_out"]``)."""
        if line.endswith('"') and ' said, "' in line:
            return True
        if line in _TABLE_NOTICES:
            return True
        deposit = line.find(": Table deposit ")
        if deposit > 0 and line[:deposit] in self.names:
            # chips a player adds to the table, for the hands after this one
            self.extra["deposits"] = " | ".join(filter(None, (self.extra.get("deposits"), line)))
            return True
        if "Cashout" in line or " cashed out the hand for " in line:
            self.extra["cash_out"] = " | ".join(filter(None, (self.extra.get("cash_out"), line)))
            return True
        spoken = self.speaker(line)
        rest = spoken[1] if spoken is not None else None
        if any(rest == notice or line.endswith(" " + notice) for notice in _NOTICES):
            return True
        return any(
            (rest or "").startswith(prefix) or f" {prefix}" in line for prefix in _NOTICE_PREFIXES
        )

    def summary(self, boards: _Boards) -> tuple[int, int]:
        """(total pot, rake) and cards from the summary; checks it is complete."""
        total: int | None = None
        rake = 0
        summarized: set[int] = set()
        seen_board: dict[str, list[int]] = {}
        by_number = self.seats_by_number()
        while (line := self.line()) is not None:
            self.at += 1
            if line.startswith("Total pot "):
                total, rake = self.pot_line(line)
            elif line.startswith(("Board [", "FIRST Board [", "SECOND Board [")):
                if not line.endswith("]"):
                    raise HistoryError("malformed", f"bad board line {line!r}")
                seen_board[line.partition(" ")[0]] = _cards(line[line.index("[") + 1 : -1], line)
            elif line.startswith("Seat "):
                number_text, _, rest = line[5:].partition(": ")
                if not number_text.isdigit() or int(number_text) not in by_number:
                    raise HistoryError("malformed", f"bad summary line {line!r}")
                position = by_number[int(number_text)]
                summarized.add(position)
                shown = _SHOWN_RE.search(rest)
                if shown is not None and position in self.record_index:
                    cards = _cards(shown.group(1), line)
                    if len(cards) == 2:
                        self.holes[self.record_index[position]] = tuple(cards)
            elif line == "Hand was run twice" or "cashed out" in line:
                continue
            else:
                raise HistoryError("malformed", f"unexpected summary line {line!r}")
        if total is None:
            raise HistoryError("truncated", "the summary has no total pot")
        if boards.twice:
            expected = {"FIRST": boards.first, "SECOND": boards.second}
        else:
            expected = {"Board": boards.first}
        for key, board in expected.items():
            if board and key not in seen_board:
                raise HistoryError("truncated", f"the summary has no {key} board line")
            if key in seen_board and seen_board[key] != board:
                raise HistoryError("malformed", "the summary's board differs from the deal")
        missing = [self.seats[p][1] for p in self.dealt if p not in summarized]
        if missing:
            raise HistoryError("truncated", f"no summary line for {missing[0]!r}")
        return total, rake

    def pot_line(self, line: str) -> tuple[int, int]:
        """``Total pot $X [Main pot $A. Side pot-1 $B.] | Rake $R [| Other $F]``."""
        parts = line.split(" | ")
        head = parts[0][len("Total pot ") :]
        amount, _, pots = head.partition(" ")
        total = _money(amount)
        if pots:
            found = _POT_RE.findall(pots)
            if not found:
                raise HistoryError("malformed", f"bad pot line {line!r}")
            self.extra["pots"] = " ".join(str(_money(chips)) for _, chips in found)
        rake = 0
        for fee in parts[1:]:
            _, _, chips = fee.rpartition(" ")
            rake += _money(chips)
        return total, rake


class _Boards:
    """The board as dealt; with run it twice, both runs (``shared`` cards in common)."""

    def __init__(self) -> None:
        self.first: list[int] = []
        self.second: list[int] = []
        self.shared = 0
        self.twice = False

    def deal(self, board: list[int], cards: list[int], line: str) -> None:
        """Extend ``board`` to ``cards``, which must start with what it already holds."""
        if cards[: len(board)] != board or len(cards) - len(board) not in (1, 3):
            raise HistoryError("malformed", f"{line!r} does not follow the board")
        board[:] = cards


class _Posts:
    """Forced bets seen before the deal, resolved once the button's position is known."""

    def __init__(self) -> None:
        self.items: list[tuple[int, str, int, bool]] = []  # position, kind, chips, all-in
        self.sat_out: set[int] = set()
        self.ante = 0

    def add(self, position: int, rest: str, line: str) -> None:
        all_in = rest.endswith(" and is all-in")
        body = rest[6 : -len(" and is all-in")] if all_in else rest[6:]
        kind, _, chips = body.rpartition(" ")
        if kind == "the ante":
            kind = "ante"
        if kind not in ("small blind", "big blind", "small & big blinds", "straddle", "ante"):
            raise HistoryError("malformed", f"bad post {line!r}")
        amount = _money(chips)
        if kind == "ante" and not all_in:
            self.ante = max(self.ante, amount)
        self.items.append((position, kind, amount, all_in))

    def size(self, kind: str, position: int | None) -> int:
        """The first full-size post of ``kind`` (by ``position`` when given), or 0."""
        for who, what, chips, all_in in self.items:
            if what == kind and not all_in and position in (None, who):
                return chips
        return 0


#: How other rooms' headers start, for the rejection message (lower case -> room).
_OTHER_HEADERS = {
    "bovada": "Bovada",
    "ignition": "Ignition",
    "888poker": "888poker",
    "winamax": "Winamax",
    "partypoker": "partypoker",
    "#game no": "partypoker",
    "game #": "iPoker",
}


def _room_name(line: str) -> str:
    """The room a header line not in PokerStars' layout comes from, or ``""``."""
    lowered = line.lower()
    return next((room for start, room in _OTHER_HEADERS.items() if lowered.startswith(start)), "")


def _money(text: str) -> int:
    """Cents in ``$1,234.50`` (any known currency symbol, or none); memoized."""
    chips = _money_cache.get(text)
    if chips is None:
        try:
            chips = cents(text[1:] if text[:1] in SYMBOL_CURRENCY else text)
        except ValueError:
            raise HistoryError("malformed", f"bad amount {text!r}") from None
        if len(_money_cache) >= _CACHE_LIMIT:
            _money_cache.clear()
        _money_cache[text] = chips
    return chips


_CARD_INDEX = {format_cards([c]): c for c in range(52)}


def _cards(text: str, line: str, *, count: int | None = None) -> list[int]:
    """Space-separated cards such as ``Ah Kd 2c``; ``count`` when the number is fixed."""
    cards = []
    for token in text.split():
        card = _CARD_INDEX.get(token)
        if card is None:
            raise HistoryError("malformed", f"bad card {token!r} in {line!r}")
        cards.append(card)
    if count is not None and len(cards) != count:
        raise HistoryError("malformed", f"expected {count} cards in {line!r}")
    if len(set(cards)) != len(cards):
        raise HistoryError("malformed", f"a card is dealt twice in {line!r}")
    return cards


def _shown(verb: str, line: str) -> tuple[int, ...]:
    """Cards in ``shows [Ah Kd] (...)``; () when only one card is shown."""
    close = verb.find("]")
    if close < 0:
        raise HistoryError("malformed", f"bad show {line!r}")
    cards = _cards(verb[len("shows [") : close], line)
    return tuple(cards) if len(cards) == 2 else ()


# -- writing ----------------------------------------------------------------------------


def write_pokerstars(record: HandRecord) -> str:
    """The record as a PokerStars cash-game hand history, laid out line for line as the
    site writes one (ending in a newline; :func:`write_pokerstars_hands` joins several).

    Shown cards: the hero's (``Dealt to``) and every hand that reaches a showdown with
    known cards; a showdown hand without known cards mucks. Raises ValueError for what the
    format cannot say: chips finer than cents, an unknown currency, a live blind smaller
    than the big blind out of position, a non-numeric hand id.
    """
    return _Writer(record).text()


def write_pokerstars_hands(records: Iterable[HandRecord]) -> str:
    """Several records as one PokerStars file's text, hands separated by blank lines."""
    return "\n\n".join(write_pokerstars(record) for record in records)


class _Writer:
    """Builds one hand's text, tracking the chips in front of each player as it goes."""

    def __init__(self, record: HandRecord) -> None:
        if record.unit != cents_unit():
            raise ValueError(f"PokerStars prints cents; this record counts in {record.unit}")
        if record.currency not in CURRENCY_SYMBOL:
            raise ValueError(f"no PokerStars currency symbol for {record.currency!r}")
        if not record.hand_id.isdigit():
            raise ValueError(f"PokerStars hand ids are numbers, not {record.hand_id!r}")
        self.r = record
        self.n = record.players
        self.symbol = CURRENCY_SYMBOL[record.currency]
        self.names = [seat.player for seat in record.seats]
        self.stack = [seat.stack for seat in record.seats]
        self.total = [0] * self.n
        self.bet = [0] * self.n
        self.folded = [False] * self.n
        self.lines: list[str] = []
        self.small_seat = record.button if self.n == 2 else (record.button + 1) % self.n
        self.big_seat = (self.small_seat + 1) % self.n
        self.holes = record.hole_cards or ((),) * self.n
        self.paid = [0] * self.n  # chips collected, per player
        self.paid_by_board: list[list[int]] = []  # the same, per board (run it twice)
        self.pot_amounts: list[int] = []  # main pot, side pots, after rake
        self.cap = int(record.extra.get("cap", 0)) if "capped-no-limit" in record.variants else 0
        stacks = record.extra.get("stacks", "").split() if self.cap else []
        self.real_stacks = [int(x) for x in stacks] if len(stacks) == self.n else list(self.stack)

    def money(self, chips: int) -> str:
        return f"{self.symbol}{format_chips(chips)}"

    def text(self) -> str:
        self.header()
        self.posts()
        self.lines.append("*** HOLE CARDS ***")
        hero = self.r.hero
        if hero is not None and len(self.holes[hero]) == 2:
            self.lines.append(
                f"Dealt to {self.names[hero]} [{format_cards(self.holes[hero], ' ')}]"
            )
        last = self.betting()
        self.finish(last)
        return "\n".join(self.lines) + "\n"

    def header(self) -> None:
        r = self.r
        game = "Hold'em No Limit" if r.betting is Betting.NO_LIMIT else "Hold'em Limit"
        low, high = (
            (r.small_blind, r.big_blind)
            if r.betting is Betting.NO_LIMIT
            else (r.small_bet, r.big_bet)
        )
        t = r.time or datetime(2000, 1, 1)
        stamp = f"{t.year}/{t.month:02d}/{t.day:02d} {t.hour}:{t.minute:02d}:{t.second:02d}"
        zone = r.extra.get("time_zone", "ET")
        zoom = "Zoom " if r.fast_fold else ""
        code = "" if r.fast_fold and r.currency == "USD" else f" {r.currency}"
        if self.cap:
            code = f" - {self.money(self.cap)} Cap -{code}"
        second_clock = f" {r.extra['time_et']}" if "time_et" in r.extra else ""
        self.lines.append(
            f"PokerStars {zoom}Hand #{r.hand_id}:  {game} ({self.money(low)}/{self.money(high)}"
            f"{code}) - {stamp} {zone}{second_clock}"
        )
        numbers = [seat.number for seat in r.seats]
        max_seats = r.max_seats or next((m for m in (2, 6, 9, 10) if m >= max(numbers)), 10)
        button_seat = r.extra.get("button_seat", str(numbers[r.button]))
        self.lines.append(
            f"Table '{r.table or 'Poolshark'}' {max_seats}-max Seat #{button_seat} is the button"
        )
        for seat, stack in zip(r.seats, self.real_stacks, strict=True):
            self.lines.append(f"Seat {seat.number}: {seat.player} ({self.money(stack)} in chips)")

    def post(self, i: int, what: str, chips: int, *, live: bool) -> None:
        paid = min(chips, self.stack[i])
        self.stack[i] -= paid
        self.total[i] += paid
        if live:
            self.bet[i] += paid
        all_in = " and is all-in" if self.stack[i] == 0 else ""
        self.lines.append(f"{self.names[i]}: posts {what} {self.money(paid)}{all_in}")

    def posts(self) -> None:
        """Antes, then the small and big blind, then other posts clockwise."""
        r = self.r
        order = [(self.small_seat + k) % self.n for k in range(self.n)]
        ante = r.ante
        for i in sorted(range(self.n), key=lambda i: r.seats[i].number):
            if ante and r.dead[i] >= ante:
                self.post(i, "the ante", ante, live=False)
        for i in sorted(
            order, key=lambda i: (i not in (self.small_seat, self.big_seat), order.index(i))
        ):
            live = r.blinds[i]
            dead = r.dead[i] - (ante if ante and r.dead[i] >= ante else 0)
            if dead and live == r.big_blind:
                self.post(i, "small & big blinds", live + dead, live=False)
                self.bet[i] += min(live, self.total[i])
                continue
            if dead:
                if i == self.small_seat:
                    raise ValueError("PokerStars cannot show dead money from the small blind")
                self.post(i, "small blind", dead, live=False)
            if not live:
                continue
            if i == self.small_seat and live < r.big_blind:
                self.post(i, "small blind", live, live=True)
            elif live == r.big_blind or (live < r.big_blind and i == self.big_seat):
                self.post(i, "big blind", live, live=True)
            elif live > r.big_blind:
                self.post(i, "straddle", live, live=True)
            else:
                raise ValueError(
                    f"PokerStars cannot show a live post of {live} (below the big blind)"
                    " out of position"
                )

    def betting(self) -> Street:
        """Every action with the street lines between; returns the last betting street."""
        street = Street.PREFLOP
        current = max(self.bet)
        for action in self.r.actions:
            while action.street > street:
                self.return_uncalled()
                street = Street(street + 1)
                self.street_line(street, self.r.board, "")
                current = 0
            i = action.player
            name = self.names[i]
            all_in = self.all_in(i) if action.all_in else ""
            if action.move is Move.FOLD:
                self.folded[i] = True
                self.lines.append(f"{name}: folds")
                continue
            if action.move is Move.CHECK_CALL:
                if not action.amount:
                    self.lines.append(f"{name}: checks")
                    continue
                self.put_in(i, action.amount)
                self.lines.append(f"{name}: calls {self.money(action.amount)}{all_in}")
                continue
            to = action.amount
            self.put_in(i, to - self.bet[i])
            if current:
                raised = self.money(to - current)
                self.lines.append(f"{name}: raises {raised} to {self.money(to)}{all_in}")
            else:
                self.lines.append(f"{name}: bets {self.money(to)}{all_in}")
            current = max(current, to)
        self.return_uncalled()
        return street

    def all_in(self, i: int) -> str:
        """How the site ends the line of a player's last chip: all-in, or (capped no-limit,
        a stack above the cap) the cap reached."""
        if self.cap and self.real_stacks[i] > self.cap:
            return f" and has reached the {self.money(self.cap)} cap"
        return " and is all-in"

    def put_in(self, i: int, chips: int) -> None:
        self.stack[i] -= chips
        self.bet[i] += chips
        self.total[i] += chips

    def return_uncalled(self) -> None:
        top = max(range(self.n), key=lambda i: self.bet[i])
        second = max((b for i, b in enumerate(self.bet) if i != top), default=0)
        excess = self.bet[top] - second
        if excess > 0:
            self.stack[top] += excess
            self.total[top] -= excess
            self.lines.append(f"Uncalled bet ({self.money(excess)}) returned to {self.names[top]}")
        self.bet = [0] * self.n

    def street_line(self, street: Street, board: Sequence[int], run: str) -> None:
        size = _BOARD_SIZE[street]
        if len(board) < size:
            raise ValueError(
                f"the board has {len(board)} cards; the {street.name.lower()} needs {size}"
            )
        name = f"{run} {street.name}" if run else street.name
        if street is Street.FLOP:
            self.lines.append(f"*** {name} *** [{format_cards(board[:3], ' ')}]")
        else:
            before = format_cards(board[: size - 1], " ")
            self.lines.append(
                f"*** {name} *** [{before}] [{format_cards(board[size - 1 : size], ' ')}]"
            )

    def finish(self, last: Street) -> None:
        """The rest of the board, the showdown, the pots collected and the summary."""
        r = self.r
        live = [i for i in range(self.n) if not self.folded[i]]
        showdown = len(live) > 1
        awards = self.awards(live, showdown)
        if r.second_board:
            shared = next((k for k in range(5) if r.board[k] != r.second_board[k]), 5)
            dealt = {0: Street.PREFLOP, 3: Street.FLOP, 4: Street.TURN}[shared]
            for street in (Street.FLOP, Street.TURN, Street.RIVER):
                if street > last and _BOARD_SIZE[street] <= shared:
                    self.street_line(street, r.board, "")
            for run, board in (("FIRST", r.board), ("SECOND", r.second_board)):
                for street in (Street.FLOP, Street.TURN, Street.RIVER):
                    if street > dealt:
                        self.street_line(street, board, run)
        else:
            for street in (Street.FLOP, Street.TURN, Street.RIVER):
                if street > last and len(r.board) >= _BOARD_SIZE[street]:
                    self.street_line(street, r.board, "")
        boards = [r.board, r.second_board] if r.second_board else [r.board]
        if showdown:
            for k, board in enumerate(boards):
                run = ("FIRST ", "SECOND ")[k] if r.second_board else ""
                self.lines.append(f"*** {run}SHOW DOWN ***")
                if k == 0 or r.second_board:
                    for i in self.show_order(live):
                        if len(self.holes[i]) == 2:
                            described = describe_hand([*self.holes[i], *board])
                            shown = format_cards(self.holes[i], " ")
                            self.lines.append(f"{self.names[i]}: shows [{shown}] ({described})")
                        else:
                            self.lines.append(f"{self.names[i]}: mucks hand")
                self.lines.extend(awards[k])
        else:
            self.lines.extend(awards[0])
            winner = live[0]
            if len(self.holes[winner]) == 2 and winner != r.hero:
                shown = format_cards(self.holes[winner], " ")
                described = describe_hand([*self.holes[winner], *r.board])
                self.lines.append(f"{self.names[winner]}: shows [{shown}] ({described})")
            else:
                self.lines.append(f"{self.names[winner]}: doesn't show hand")
        self.summary(live, showdown, boards)

    def show_order(self, live: list[int]) -> list[int]:
        """Who shows first: the last to bet or raise on the last street, else the first
        live player left of the button; then clockwise."""
        r = self.r
        last_street = r.actions[-1].street if r.actions else Street.PREFLOP
        raisers = [a.player for a in r.actions if a.street == last_street and a.move is Move.RAISE]
        first = raisers[-1] if raisers and raisers[-1] in live else None
        start = first if first is not None else (r.button + 1) % self.n
        return sorted(live, key=lambda i: (i - start) % self.n)

    def awards(self, live: list[int], showdown: bool) -> list[list[str]]:
        """The ``collected`` lines, per board: pot by pot when the rules agree with the
        record's winnings, else one line per winner with the recorded total."""
        r = self.r
        won = list(r.winnings) if r.winnings is not None else None
        pots = take_rake(side_pots(self.total, [not f for f in self.folded]), r.rake or 0)
        pots = [p for p in pots if p.amount > 0]
        boards = [r.board, r.second_board] if r.second_board else [r.board]
        per_board: list[list[tuple[int, int, int]]] = []  # (pot number, player, chips)
        paid = [0] * self.n
        for k, board in enumerate(boards):
            lines = []
            for number, pot in enumerate(pots):
                amount = (
                    pot.amount
                    if len(boards) == 1
                    else (pot.amount - pot.amount // 2 if k == 0 else pot.amount // 2)
                )
                winners = list(pot.eligible)
                if showdown and len(winners) > 1:
                    values = {
                        s: evaluate_indices([*self.holes[s], *board])
                        if len(self.holes[s]) == 2
                        else 0
                        for s in winners
                    }
                    best = max(values.values())
                    winners = [s for s in winners if values[s] == best]
                for seat, chips in split_pot(amount, winners, r.button, self.n).items():
                    lines.append((number, seat, chips))
                    paid[seat] += chips
            per_board.append(lines)
        self.paid = paid if won is None else won
        self.paid_by_board = [[0] * self.n for _ in boards]
        for k, lines_k in enumerate(per_board):
            for _, seat, chips in lines_k:
                self.paid_by_board[k][seat] += chips
        if won is not None and won != paid:
            self.paid_by_board = [list(won)] + [[0] * self.n for _ in boards[1:]]
            return [
                [
                    f"{self.names[i]} collected {self.money(w)} from pot"
                    for i, w in enumerate(won)
                    if w
                ]
            ] + [[] for _ in boards[1:]]
        self.pot_amounts = [p.amount for p in pots]
        out = []
        for lines in per_board:
            text = []
            for number, seat, chips in sorted(lines, key=lambda x: (-x[0], x[1])):
                if len(pots) == 1:
                    source = "pot"
                elif number == 0:
                    source = "main pot"
                else:
                    source = "side pot" if len(pots) == 2 else f"side pot-{number}"
                text.append(f"{self.names[seat]} collected {self.money(chips)} from {source}")
            out.append(text)
        return out

    def summary(self, live: list[int], showdown: bool, boards: list[tuple[int, ...]]) -> None:
        r = self.r
        total = r.total_pot if r.total_pot is not None else sum(self.total)
        rake = r.rake or 0
        self.lines.append("*** SUMMARY ***")
        pots = self.pot_amounts
        if len(pots) > 1:
            parts = [f"Main pot {self.money(pots[0])}."]
            for number, amount in enumerate(pots[1:], 1):
                label = "Side pot" if len(pots) == 2 else f"Side pot-{number}"
                parts.append(f"{label} {self.money(amount)}.")
            self.lines.append(
                f"Total pot {self.money(total)} {' '.join(parts)} | Rake {self.money(rake)}"
            )
        else:
            self.lines.append(f"Total pot {self.money(total)} | Rake {self.money(rake)}")
        if r.second_board:
            self.lines.append("Hand was run twice")
            self.lines.append(f"FIRST Board [{format_cards(r.board, ' ')}]")
            self.lines.append(f"SECOND Board [{format_cards(r.second_board, ' ')}]")
        elif r.board:
            self.lines.append(f"Board [{format_cards(r.board, ' ')}]")
        fold_street = {a.player: a.street for a in r.actions if a.move is Move.FOLD}
        for i in sorted(range(self.n), key=lambda i: r.seats[i].number):
            tags = ""
            if i == r.button and "button_seat" not in r.extra:
                tags += " (button)"
            if i == self.small_seat and 0 < r.blinds[i] < r.big_blind:
                tags += " (small blind)"
            elif i == self.big_seat and r.blinds[i]:
                tags += " (big blind)"
            won = self.paid[i]
            if i in fold_street:
                street = fold_street[i]
                if street is Street.PREFLOP:
                    fate = "folded before Flop"
                    if self.total[i] == 0:
                        fate += " (didn't bet)"
                else:
                    fate = f"folded on the {_STREET_NAMES[street]}"
            elif not showdown:
                fate = f"collected ({self.money(won)})"
            elif len(self.holes[i]) == 2:
                results = []
                for k, board in enumerate(boards):
                    described = describe_hand([*self.holes[i], *board])
                    chips = self.paid_by_board[k][i]
                    result = f"won ({self.money(chips)})" if chips else "lost"
                    results.append(f"{result} with {described}")
                fate = f"showed [{format_cards(self.holes[i], ' ')}] and " + ", and ".join(results)
            else:
                fate = f"collected ({self.money(won)})" if won else "mucked"
            self.lines.append(f"Seat {r.seats[i].number}: {self.names[i]}{tags} {fate}")


def cents_unit() -> Decimal:
    """The chip unit PokerStars histories use: one cent."""
    return Decimal("0.01")


_RANK_WORDS = [name.capitalize() for name in RANK_NAMES]
_RANK_PLURALS = [w + ("es" if w.endswith("x") else "s") for w in _RANK_WORDS]


def describe_hand(cards: Sequence[int]) -> str:
    """PokerStars' words for the best hand in 2 to 7 cards, e.g. ``a pair of Kings``."""
    if len(cards) >= 5:
        category, ranks = all_keys()[evaluate_indices(list(cards)) - 1]
    else:
        counts = sorted(
            {c >> 2: sum(1 for d in cards if d >> 2 == c >> 2) for c in cards}.items(),
            key=lambda rc: (rc[1], rc[0]),
            reverse=True,
        )
        ranks = tuple(r for r, _ in counts)
        shape = tuple(k for _, k in counts)
        category = {
            (4,): Category.QUADS,
            (3, 1): Category.TRIPS,
            (3,): Category.TRIPS,
            (2, 2): Category.TWO_PAIR,
            (2, 1, 1): Category.PAIR,
            (2, 1): Category.PAIR,
            (2,): Category.PAIR,
        }.get(shape, Category.HIGH_CARD)
    word, plural = _RANK_WORDS, _RANK_PLURALS
    top = ranks[0]
    match category:
        case Category.STRAIGHT_FLUSH:
            if top == 12:
                return "a Royal Flush"
            return f"a straight flush, {word[top - 4 if top > 3 else 12]} to {word[top]}"
        case Category.QUADS:
            return f"four of a kind, {plural[top]}"
        case Category.FULL_HOUSE:
            return f"a full house, {plural[top]} full of {plural[ranks[1]]}"
        case Category.FLUSH:
            return f"a flush, {word[top]} high"
        case Category.STRAIGHT:
            return f"a straight, {word[top - 4 if top > 3 else 12]} to {word[top]}"
        case Category.TRIPS:
            return f"three of a kind, {plural[top]}"
        case Category.TWO_PAIR:
            return f"two pair, {plural[top]} and {plural[ranks[1]]}"
        case Category.PAIR:
            return f"a pair of {plural[top]}"
        case _:
            return f"high card {word[top]}"
