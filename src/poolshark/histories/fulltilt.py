"""Full Tilt Poker cash-game text, rewritten line by line in PokerStars' layout.

Full Tilt wrote the same events as PokerStars in other words: ``NAME posts the small blind
of $1`` for ``NAME: posts small blind $1``, ``NAME raises to $4`` for ``NAME: raises ... to
$4``, ``NAME wins the pot ($9)`` for ``NAME collected $9 from pot``, the button on a line of
its own after the blinds, the stakes and the clock in another order in the header. The
PokerStars reader (``histories.pokerstars``) reads the rewritten hand, so both rooms go
through one set of checks; the record's site is ``Full Tilt Poker``.

Lines that move no chips (time warnings, disconnects, players standing up or sitting
down, chat, observers) are dropped; a line the rewrite does not know is kept as it is, so
the PokerStars reader rejects the hand naming it. Only hold'em no-limit and fixed-limit
cash games are rewritten; tournaments and other games are rejected with their reasons.
"""

from __future__ import annotations

import re

from poolshark.histories.record import HistoryError

SITE = "Full Tilt Poker"
HEADER_START = "Full Tilt Poker Game #"

_AMOUNT = r"[$€£]?[\d,]+(?:\.\d+)?"
_HEADER_RE = re.compile(r"Full Tilt Poker Game #(\d+): (.*)")
_STAKES_RE = re.compile(rf"({_AMOUNT})/({_AMOUNT})")
_CLOCK_RE = re.compile(r"(\d{1,2}:\d{2}:\d{2}) ([A-Za-z]+)")
_DATE_RE = re.compile(r"\d{4}/\d{2}/\d{2}")
_SEAT_RE = re.compile(rf"Seat (\d+): (.+) \(({_AMOUNT})\)(, is sitting out)?")
_SIZE_RE = re.compile(r"\((\d+) max\b")
_BUTTON_RE = re.compile(r"The button is in seat #(\d+)")
_UNCALLED_RE = re.compile(rf"Uncalled bet of ({_AMOUNT}) returned to (.+)")
_WINS_RE = re.compile(rf"(?:wins|ties for) (?:the )?(?:main |side )?pot(?: #?\d+)? \(({_AMOUNT})\)")
_SITTING_OUT_RE = re.compile(r"Seat (\d+): .+ is sitting out")
_SUMMARY_WON_RE = re.compile(rf"Seat (\d+): .*?(?:collected|won) \(({_AMOUNT})\)")
_STREET_RE = re.compile(r"(\*\*\* (?:FLOP|TURN|RIVER) \*\*\* [^(]*?) \(Total Pot: .*\)")
_GAMES = {
    "no limit hold'em": "Hold'em No Limit",
    "nl hold'em": "Hold'em No Limit",
    "limit hold'em": "Hold'em Limit",
    "fixed limit hold'em": "Hold'em Limit",
}
#: Words after a player's name on lines that move no chips.
_QUIET = (
    "has been disconnected",
    "has reconnected",
    "stands up",
    "sits down",
    "is sitting out",
    "has returned",
    "has timed out",
    "is feeling normal again",
    "seconds left to act",
    "seconds to reconnect",
)
_POSTS = {
    "posts the small blind of ": "posts small blind ",
    "posts the big blind of ": "posts big blind ",
    "posts a dead small blind of ": "posts small blind ",
    "antes ": "posts the ante ",
    "posts ": "posts big blind ",
}


def is_full_tilt(text: str) -> bool:
    """Whether a hand's text starts with a Full Tilt Poker header."""
    return text.lstrip("\ufeff \t\n").startswith(HEADER_START)


def to_pokerstars(text: str) -> str:
    """The hand in PokerStars' layout; raises :class:`HistoryError` for a hand that is
    not a hold'em cash game or whose header or button cannot be read."""
    lines = [line.rstrip() for line in text.lstrip("\ufeff").strip().split("\n")]
    header, table = _header(lines[0])
    names: dict[str, int] = {}
    seats: list[str] = []
    body: list[str] = []
    button = None
    won_lines = False
    at = 1
    while at < len(lines) and lines[at].startswith("Seat "):
        match = _SEAT_RE.fullmatch(lines[at])
        if match is None:
            raise HistoryError("malformed", f"bad seat line {lines[at]!r}")
        number, name, chips, out = match.groups()
        names[name] = int(number)
        seats.append(f"Seat {number}: {name} ({chips} in chips){' is sitting out' if out else ''}")
        at += 1
    out_in_summary = {int(m.group(1)) for m in map(_SITTING_OUT_RE.fullmatch, lines) if m}
    for i, seat in enumerate(seats):
        number = int(seat[5 : seat.index(":")])
        if number in out_in_summary and not seat.endswith(" is sitting out"):
            seats[i] = seat + " is sitting out"  # marked so in the summary only
    by_number = {number: name for name, number in names.items()}
    ordered = sorted(names, key=len, reverse=True)
    in_summary = False
    for line in lines[at:]:
        if not line:
            continue
        if (found := _BUTTON_RE.fullmatch(line)) is not None:
            button = int(found.group(1))
            continue
        if in_summary:
            body.append(line.replace("Board: [", "Board [", 1))
            continue
        if line == "*** SUMMARY ***":
            in_summary = True
            if not won_lines:
                body.extend(_collected_from_summary(lines, by_number))
            body.append(line)
            continue
        if line.startswith("*** "):
            if line == "*** HOLE CARDS ***" and body.count(line):
                continue
            street = _STREET_RE.fullmatch(line)
            body.append(street.group(1) if street is not None else line)
            continue
        if line.startswith(("Dealt to ", "Uncalled bet of ")):
            uncalled = _UNCALLED_RE.fullmatch(line)
            body.append(
                f"Uncalled bet ({uncalled.group(1)}) returned to {uncalled.group(2)}"
                if uncalled is not None
                else line
            )
            continue
        if line.endswith(" seconds left to act") and line[0].isdigit():
            continue
        name = next((n for n in ordered if line.startswith(n + " ")), None)
        if name is None:
            if " (Observer): " in line or _chat(line, ordered):
                continue
            if " posts " in line:
                raise HistoryError(
                    "malformed", f"a player with no seat line (so no stack) posts: {line!r}"
                )
            body.append(line)
            continue
        rewritten = _player_line(name, line[len(name) + 1 :])
        if rewritten is None:
            body.append(line)
        elif rewritten:
            won_lines = won_lines or " collected " in rewritten
            body.append(rewritten)
    if button is None:
        raise HistoryError("malformed", "no line says where the button is")
    size = _SIZE_RE.search(table)
    heads_up = "(heads up)" in table
    name = table.split(" (", 1)[0]
    max_seats = f" {size.group(1)}-max" if size else " 2-max" if heads_up else ""
    table_line = f"Table '{name}'{max_seats} Seat #{button} is the button"
    return "\n".join([header, table_line, *seats, *body]) + "\n"


def _header(line: str) -> tuple[str, str]:
    """The PokerStars header for a Full Tilt one, and the table part of it."""
    match = _HEADER_RE.fullmatch(line)
    if match is None:
        raise HistoryError("malformed", f"bad header {line!r}")
    hand_id, rest = match.groups()
    if re.search(r"\b(Tournament|Sit & Go)\b", rest, re.IGNORECASE):
        raise HistoryError("tournament", "a tournament hand")
    parts = rest.split(" - ")
    if not parts[0].startswith("Table "):
        raise HistoryError("malformed", f"bad header {line!r}")
    table = parts[0][len("Table ") :]
    stakes = next((p for p in parts[1:] if _STAKES_RE.fullmatch(p)), None)
    clock = next((m for p in parts[1:] if (m := _CLOCK_RE.fullmatch(p)) is not None), None)
    date = next((p for p in parts[1:] if _DATE_RE.fullmatch(p)), None)
    games = [p for p in parts[1:] if p not in (stakes, date) and _CLOCK_RE.fullmatch(p) is None]
    if stakes is None or clock is None or date is None or not games:
        raise HistoryError("malformed", f"bad header {line!r}")
    game = _GAMES.get(games[0].lower())
    if game is None:
        raise HistoryError("unsupported-game", games[0])
    when = f"{date} {clock.group(1)} {clock.group(2)}"
    return f"PokerStars Hand #{hand_id}: {game} ({stakes}) - {when}", table


def _player_line(name: str, rest: str) -> str | None:
    """A ``NAME rest`` line in PokerStars' words; ``""`` to drop it, None when unknown."""
    all_in = rest.endswith(", and is all in")
    verb = rest.removesuffix(", and is all in")
    tail = " and is all-in" if all_in else ""
    if verb in ("folds", "checks"):
        return f"{name}: {verb}"
    if verb.startswith(("calls ", "bets ", "raises to ")):
        return f"{name}: {verb}{tail}"
    for words, stars in _POSTS.items():
        if verb.startswith(words):
            return f"{name}: {stars}{verb[len(words) :]}{tail}"
    if verb == "mucks" or verb.startswith("mucks "):
        return f"{name}: mucks hand"
    if verb.startswith("shows ["):
        cards, _, description = verb[len("shows [") :].partition("]")
        return f"{name}: shows [{cards}]" + (f" ({description.strip()})" if description else "")
    if verb.startswith("shows "):
        return ""  # the hand's name, after its cards were shown
    won = _WINS_RE.match(verb)
    if won is not None:
        return f"{name} collected {won.group(1)} from pot"
    if verb.startswith("adds "):
        return f"{name}: Table deposit {verb[len('adds ') :]}"
    if any(verb == quiet or verb.endswith(quiet) for quiet in _QUIET):
        return ""
    return None


def _chat(line: str, names: list[str]) -> bool:
    """Whether ``line`` is a seated player's chat (``NAME: words``)."""
    return any(line.startswith(name + ": ") for name in names)


def _collected_from_summary(lines: list[str], by_number: dict[int, str]) -> list[str]:
    """``collected`` lines from the summary's ``collected ($X)`` and ``won ($X)``, for a
    hand whose body names no winner (Full Tilt leaves it out when nobody calls)."""
    found = []
    for line in lines[lines.index("*** SUMMARY ***") :]:
        match = _SUMMARY_WON_RE.match(line)
        if match is not None and int(match.group(1)) in by_number:
            found.append(f"{by_number[int(match.group(1))]} collected {match.group(2)} from pot")
    return found
