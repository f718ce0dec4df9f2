"""OHH (Open Hand History: JSON, spec 1.4.x, by the Poker Tool Developers group) hands to
:class:`HandRecord` and back.

A hand is one JSON object ``{"ohh": {...}}``; a ``.ohh`` file holds several, separated by
a blank line (the spec's storage format), one per line, or glued together;
:func:`hand_chunks` cuts a file's lines into hands by following the JSON braces, so a
pretty-printed hand and a one-line hand split the same way, and a hand cut short does not
swallow the next one.

Reading follows the spec's meaning of amounts: a post, call, bet or raise gives the chips
put in by that action (a raise is *not* the total bet to, which the record keeps); pot
``amount`` includes its rake. Amounts become integer chips of 0.01 (or finer when a hand
writes more decimal places). Conventions where the spec leaves room (``docs/histories.md``,
"OHH conventions"): a small blind posted by a player who is not the small blind is dead
money, as PokerStars text reads it; a short all-in post of a blind or ante keeps the
nominal size in the record (the engine posts what the stack holds); ``Post Dead`` and
``Post Ante`` are dead money, every other post is live; rounds repeating a street (run it
twice) make the second board; known hole cards come from ``Dealt Cards``, ``Shows Cards``
and ``Mucks Cards`` actions (and a player's ``cards``, which some writers use).

Writing puts everything a record holds into standard fields, except what OHH has no
field for, which goes into underscore-prefixed keys (readers ignore unknown keys):
``_small_bet``/``_big_bet`` for fixed-limit bets that are not one and two big blinds,
``_decimals`` for a chip unit other than 0.01 (JSON numbers drop trailing zeros).
Everything is written as one pot whose ``player_wins`` are each player's total winnings.

Long module: one format both ways; the reader and the writer share the spec's vocabulary
(bet types, street names, board sizes) and each is the other's round-trip test.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from poolshark.cards.card import CardError, format_cards, parse_cards
from poolshark.engine.config import Betting
from poolshark.engine.table import Move, Street
from poolshark.histories.record import HandRecord, HistoryError, RecordedAction, Seat

#: The spec version the writer declares.
SPEC_VERSION = "1.4.6"

_BET_TYPES = {"NL": Betting.NO_LIMIT, "FL": Betting.FIXED_LIMIT}
_BET_TYPE_NAMES = {betting: name for name, betting in _BET_TYPES.items()}
_STREETS = {"Preflop": Street.PREFLOP, "Flop": Street.FLOP, "Turn": Street.TURN}
_STREETS["River"] = Street.RIVER
_STREET_NAMES = {street: name for name, street in _STREETS.items()}
_BOARD_SIZE = {Street.FLOP: 3, Street.TURN: 4, Street.RIVER: 5}
_POSTS = frozenset(["Post Ante", "Post SB", "Post BB", "Straddle", "Post Dead", "Post Extra Blind"])
_VOLUNTARY = frozenset(["Fold", "Check", "Call", "Bet", "Raise"])
_CARD_ACTIONS = frozenset(["Dealt Cards", "Shows Cards", "Mucks Cards"])
_IGNORED = frozenset(["Sits Down", "Stands Up", "Added Chips"])
#: Currencies that are not money (play money, chips of a home game).
_NOT_MONEY = frozenset(["PLAY", "PM", "PLAY MONEY", "PLAYMONEY", "CHIPS", "FUN"])
_MAX_DECIMALS = 6


# -- splitting a file -------------------------------------------------------------------


def hand_chunks(lines: Iterable[bytes]) -> Iterator[tuple[list[bytes], int]]:
    """A file's lines cut into hands: (the hand's lines, its first line number from 1).

    Follows ``{``/``}`` outside JSON strings. Between hands, whitespace, commas and the
    brackets of a JSON array are skipped. A line that opens with ``{"ohh"`` in its first
    column while a hand is still open starts a new hand (the open one was cut short);
    text outside any object is a hand of its own (which the reader then rejects), so no
    byte of the file goes uncounted.
    """
    current: list[bytes] = []
    start = 0
    depth = 0
    for number, line in enumerate(lines, 1):
        if number == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if depth > 0 and line.startswith(b'{"ohh"'):
            yield current, start
            current, depth = [], 0
        at = 0
        while at < len(line):
            if depth == 0 and not current:
                at = _skip_separators(line, at)
                if at >= len(line):
                    break
                start = number
            stop, depth = _scan(line, at, depth)
            current.append(line[at:stop])
            at = stop
            if depth == 0:
                yield current, start
                current = []
    if current and any(piece.strip() for piece in current):
        yield current, start


def _skip_separators(line: bytes, at: int) -> int:
    """The position of the first byte from ``at`` that is not whitespace, a comma or an
    array bracket."""
    while at < len(line) and line[at] in b" \t\r\n,[]":
        at += 1
    return at


def _scan(line: bytes, at: int, depth: int) -> tuple[int, int]:
    """Follow braces from ``at``: (where the object closes, just past its ``}``, or the end
    of the line; the depth there). Text that is no object runs to the end of the line."""
    in_string = False
    escaped = False
    opened = depth > 0
    for i in range(at, len(line)):
        byte = line[i]
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte == 0x7B:  # {
            depth += 1
            opened = True
        elif byte == 0x7D and depth > 0:  # }
            depth -= 1
            if depth == 0:
                return i + 1, 0
    if not opened:  # junk outside any object: one line of it, then look again
        return len(line), 0
    return len(line), depth


# -- reading ----------------------------------------------------------------------------


def parse_ohh(text: str) -> HandRecord:
    """One OHH hand (a ``{"ohh": {...}}`` object) as a record.

    Raises :class:`HistoryError`: ``malformed`` naming the JSON line or field,
    ``unsupported-game`` (not hold'em, pot-limit), ``tournament``, ``play-money``. It does
    not replay the hand (see ``histories.replay``).
    """
    try:
        data = json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as error:
        raise HistoryError(
            "malformed", f"not JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    except RecursionError:
        raise HistoryError("malformed", "not JSON: nested too deeply") from None
    if not isinstance(data, dict) or not isinstance(data.get("ohh"), dict):
        raise HistoryError("malformed", 'not an OHH hand: no top-level "ohh" object')
    return _Reader(data["ohh"]).record()


class _Reader:
    """Reads one ``ohh`` object; errors name the field by its JSON path."""

    def __init__(self, hand: Mapping[str, Any]) -> None:
        self.hand = hand

    def record(self) -> HandRecord:
        hand = self.hand
        self.check_game()
        site = _text(hand, "site_name", "")
        hand_id = hand.get("game_number", "")
        if isinstance(hand_id, int | Decimal) and not isinstance(hand_id, bool):
            hand_id = str(hand_id)
        if not isinstance(hand_id, str):
            raise HistoryError("malformed", f"game_number {hand_id!r} is not a string")
        limit = hand.get("bet_limit")
        if not isinstance(limit, dict):
            raise HistoryError("malformed", "bet_limit is missing")
        betting = self.betting(limit)
        rounds = self.rounds()
        self.decimals = self.decimals_of(rounds)
        players = self.players(rounds)
        n = len(players)
        if n < 2:
            raise HistoryError("malformed", f"{n} player dealt in")
        index = {player_id: i for i, (player_id, _) in enumerate(players)}
        seats = tuple(seat for _, seat in players)
        button, button_seat = self.button(seats)
        small = self.chips(hand.get("small_blind_amount"), "small_blind_amount")
        big = self.chips(hand.get("big_blind_amount"), "big_blind_amount")
        ante = self.chips(hand.get("ante_amount", 0), "ante_amount")
        plays = _Plays(n, index, button, small, big, ante, self)
        for number, round_ in rounds:
            plays.round(round_, f"rounds[{number}]")
        for i, (player_id, _) in enumerate(players):
            cards = self.player(player_id).get("cards")
            if cards and not plays.holes[i]:
                plays.holes[i] = tuple(_cards(cards, f"players[id={player_id}].cards"))
        winnings, rake, total_pot = self.pots(index)
        extra: dict[str, str] = {}
        if button_seat is not None:
            extra["button_seat"] = str(button_seat)
        variants: tuple[str, ...] = ()
        cap = self.chips(limit.get("bet_cap") or 0, "bet_limit.bet_cap")
        if cap and betting is Betting.NO_LIMIT:
            variants = ("capped-no-limit",)
            extra["bet_cap"] = str(cap)
        fixed = betting is Betting.FIXED_LIMIT
        small_bet = self.chips(hand.get("_small_bet", Decimal(0)), "_small_bet") or big
        big_bet = self.chips(hand.get("_big_bet", Decimal(0)), "_big_bet") or 2 * small_bet
        flags = hand.get("flags") or []
        if not isinstance(flags, list):
            raise HistoryError("malformed", f"flags {flags!r} is not a list")
        hero = hand.get("hero_player_id")
        return HandRecord(
            site=site,
            hand_id=hand_id,
            seats=seats,
            button=button,
            small_blind=small,
            big_blind=big,
            blinds=tuple(plays.blinds),
            dead=tuple(plays.dead),
            actions=tuple(plays.actions),
            board=tuple(plays.board),
            second_board=tuple(plays.second_board),
            hole_cards=tuple(plays.holes),
            winnings=winnings,
            rake=rake,
            ante=ante,
            betting=betting,
            unit=Decimal(1).scaleb(-self.decimals),
            currency=_text(hand, "currency", "USD"),
            time=self.time(),
            table=_text(hand, "table_name", None),
            max_seats=_integer(hand, "table_size", None),
            hero=index.get(hero) if isinstance(hero, int) else None,
            total_pot=total_pot,
            fast_fold="Fast" in flags,
            small_bet=small_bet if fixed else 0,
            big_bet=big_bet if fixed else 0,
            variants=variants,
            extra=extra,
        )

    def check_game(self) -> None:
        """Reject what the engine does not play, each with its own reason."""
        hand = self.hand
        if hand.get("tournament") is True or hand.get("tournament_info"):
            raise HistoryError("tournament", "a tournament hand (tournament is set)")
        game = hand.get("game_type")
        if game is None:
            raise HistoryError("malformed", "game_type is missing")
        if game != "Holdem":
            raise HistoryError("unsupported-game", f"game_type {game!r} is not 'Holdem'")
        currency = hand.get("currency")
        if isinstance(currency, str) and currency.strip().upper() in _NOT_MONEY:
            raise HistoryError("play-money", f"currency {currency!r} is not money")

    def betting(self, limit: Mapping[str, Any]) -> Betting:
        kind = limit.get("bet_type")
        if kind == "PL":
            raise HistoryError("unsupported-game", "bet_limit.bet_type 'PL' (pot-limit)")
        if kind not in _BET_TYPES:
            raise HistoryError("malformed", f"bet_limit.bet_type {kind!r} is not NL, PL or FL")
        return _BET_TYPES[kind]

    def rounds(self) -> list[tuple[int, Mapping[str, Any]]]:
        """The rounds in the order they happened (by ``id``; array order breaks ties)."""
        rounds = self.hand.get("rounds")
        if not isinstance(rounds, list) or not rounds:
            raise HistoryError("malformed", "rounds is missing or empty")
        for k, round_ in enumerate(rounds):
            if not isinstance(round_, dict):
                raise HistoryError("malformed", f"rounds[{k}] is not an object")
        numbered = list(enumerate(rounds))
        return sorted(numbered, key=lambda item: _round_order(item[1], item[0]))

    def decimals_of(self, rounds: Sequence[tuple[int, Mapping[str, Any]]]) -> int:
        """Decimal places of the finest amount in the hand (at least 2)."""
        hand = self.hand
        amounts: list[object] = [
            hand.get("small_blind_amount"),
            hand.get("big_blind_amount"),
            hand.get("ante_amount"),
        ]
        amounts += [p.get("starting_stack") for p in self.hand_players()]
        for _, round_ in rounds:
            amounts += [a.get("amount") for a in _list(round_, "actions") if isinstance(a, dict)]
        for pot in _list(hand, "pots"):
            if isinstance(pot, dict):
                amounts += [pot.get("amount"), pot.get("rake"), pot.get("jackpot")]
                amounts += [w.get("win_amount") for w in _list(pot, "player_wins")]
        written = hand.get("_decimals")
        finest = written if isinstance(written, int) and not isinstance(written, bool) else 2
        for amount in amounts:
            if isinstance(amount, Decimal) and amount.is_finite():
                exponent = amount.normalize().as_tuple().exponent
                if isinstance(exponent, int):
                    finest = max(finest, -exponent)
        if finest > _MAX_DECIMALS:
            raise HistoryError("malformed", f"an amount has {finest} decimal places")
        return finest

    def chips(self, value: object, where: str, *, signed: bool = False) -> int:
        """An amount as whole chips (negative only when ``signed``); raises ``malformed``
        naming ``where``."""
        if value is None:
            raise HistoryError("malformed", f"{where} is missing")
        if isinstance(value, bool):
            raise HistoryError("malformed", f"{where} {value!r} is not an amount")
        try:
            amount = Decimal(value) if isinstance(value, int | str) else value
        except InvalidOperation:
            raise HistoryError("malformed", f"{where} {value!r} is not an amount") from None
        if not isinstance(amount, Decimal) or not amount.is_finite() or (amount < 0 and not signed):
            raise HistoryError("malformed", f"{where} {value!r} is not an amount")
        chips = amount.scaleb(self.decimals)
        if chips != chips.to_integral_value():
            raise HistoryError("malformed", f"{where} {value!r} has too many decimal places")
        return int(chips)

    def hand_players(self) -> list[Mapping[str, Any]]:
        players = self.hand.get("players")
        if not isinstance(players, list):
            raise HistoryError("malformed", "players is missing")
        for k, player in enumerate(players):
            if not isinstance(player, dict):
                raise HistoryError("malformed", f"players[{k}] is not an object")
        return players

    def player(self, player_id: int) -> Mapping[str, Any]:
        return next(p for p in self.hand_players() if p.get("id") == player_id)

    def players(self, rounds: Sequence[tuple[int, Mapping[str, Any]]]) -> list[tuple[int, Seat]]:
        """(id, seat) of every player dealt in, in table order (by seat number): all but
        those marked sitting out who take no part in the hand."""
        acting = {
            a.get("player_id")
            for _, round_ in rounds
            for a in _list(round_, "actions")
            if isinstance(a, dict) and a.get("action") not in _IGNORED
        }
        found: list[tuple[int, Seat]] = []
        ids: set[int] = set()
        numbers: set[int] = set()
        for k, player in enumerate(self.hand_players()):
            player_id = _integer(player, "id", None, where=f"players[{k}].id")
            number = _integer(player, "seat", None, where=f"players[{k}].seat")
            if player_id is None or number is None:
                raise HistoryError("malformed", f"players[{k}] has no id or seat")
            if player_id in ids:
                raise HistoryError("malformed", f"players[{k}].id {player_id} is used twice")
            if number in numbers:
                raise HistoryError("malformed", f"players[{k}].seat {number} holds two players")
            ids.add(player_id)
            numbers.add(number)
            if player.get("is_sitting_out") is True and player_id not in acting:
                continue
            name = player.get("name")
            if not isinstance(name, str):
                name = str(player_id) if name is None else str(name)
            stack = self.chips(player.get("starting_stack"), f"players[{k}].starting_stack")
            found.append((player_id, Seat(number, name, stack)))
        unknown = sorted(str(i) for i in acting - ids)
        if unknown:
            raise HistoryError("malformed", f"an action names player_id {unknown[0]}, not seated")
        return sorted(found, key=lambda item: item[1].number)

    def button(self, seats: Sequence[Seat]) -> tuple[int, int | None]:
        """(record index of the button, the dealer seat when it is empty, else None).

        A button on an empty seat (a dead button) moves to the nearest dealt player
        counter-clockwise, which keeps the order of play the same.
        """
        dealer = _integer(self.hand, "dealer_seat", None)
        if dealer is None:
            raise HistoryError("malformed", "dealer_seat is missing")
        numbers = [s.number for s in seats]
        if dealer in numbers:
            return numbers.index(dealer), None
        before = [i for i, number in enumerate(numbers) if number <= dealer]
        return (before[-1] if before else len(numbers) - 1), dealer

    def pots(
        self, index: Mapping[int, int]
    ) -> tuple[tuple[int, ...] | None, int | None, int | None]:
        """(winnings per player, rake, total pot) from ``pots``; None where not recorded."""
        pots = self.hand.get("pots")
        if pots is None or pots == []:
            return None, None, None
        if not isinstance(pots, list):
            raise HistoryError("malformed", "pots is not a list")
        won = [0] * len(index)
        any_win = False
        rake: int | None = None
        total = 0
        for k, pot in enumerate(pots):
            where = f"pots[{k}]"
            if not isinstance(pot, dict):
                raise HistoryError("malformed", f"{where} is not an object")
            total += self.chips(pot.get("amount"), f"{where}.amount")
            for key in ("rake", "jackpot"):
                if pot.get(key) is not None:
                    # a negative rake: winnings over the pot, which the replay judges
                    rake = (rake or 0) + self.chips(pot[key], f"{where}.{key}", signed=True)
            for w, win in enumerate(_list(pot, "player_wins")):
                there = f"{where}.player_wins[{w}]"
                if not isinstance(win, dict):
                    raise HistoryError("malformed", f"{there} is not an object")
                player = _player_index(index, win.get("player_id"), there)
                won[player] += self.chips(win.get("win_amount"), f"{there}.win_amount")
                any_win = True
        return (tuple(won) if any_win else None), rake, total

    def time(self) -> datetime | None:
        stamp = self.hand.get("start_date_utc")
        if stamp is None or stamp == "":
            return None
        if not isinstance(stamp, str):
            raise HistoryError("malformed", f"start_date_utc {stamp!r} is not a date")
        try:
            return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            raise HistoryError("malformed", f"start_date_utc {stamp!r} is not a date") from None


class _Plays:
    """Follows the rounds: forced posts, voluntary actions, board cards and shown cards."""

    def __init__(
        self,
        n: int,
        index: Mapping[int, int],
        button: int,
        small: int,
        big: int,
        ante: int,
        reader: _Reader,
    ) -> None:
        self.n = n
        self.index = index
        self.small_seat = button if n == 2 else (button + 1) % n
        self.small, self.big, self.ante = small, big, ante
        self.reader = reader
        self.blinds = [0] * n
        self.dead = [0] * n
        self.put = [0] * n  # chips put in this street (live posts count preflop)
        self.actions: list[RecordedAction] = []
        self.board: list[int] = []
        self.second_board: list[int] = []
        self.holes: list[tuple[int, ...]] = [()] * n
        self.street = Street.PREFLOP
        self.showdown = False

    def round(self, round_: Mapping[str, Any], where: str) -> None:
        name = round_.get("street")
        if name == "Showdown":
            self.showdown = True
            street = None
        elif name in _STREETS:
            street = _STREETS[name]
            if self.showdown:
                raise HistoryError("malformed", f"{where}.street {name!r} comes after the showdown")
        else:
            raise HistoryError("malformed", f"{where}.street {name!r} is not a street")
        cards = round_.get("cards")
        dealt = _cards(cards, f"{where}.cards") if cards not in (None, "") else []
        if street is not None:
            self.deal(street, dealt, where)
        elif dealt:
            raise HistoryError("malformed", f"{where}.cards: the showdown deals no cards")
        for k, action in enumerate(_list(round_, "actions")):
            self.act(action, f"{where}.actions[{k}]")

    def deal(self, street: Street, cards: list[int], where: str) -> None:
        """Board cards of a round; a street dealt again starts the second run."""
        if street is Street.PREFLOP:
            if cards:
                raise HistoryError("malformed", f"{where}.cards: no board cards preflop")
            if self.actions or self.board:
                raise HistoryError("malformed", f"{where}: a second preflop round")
            return
        before = _BOARD_SIZE[street] - (3 if street is Street.FLOP else 1)
        second = street <= self.street or bool(self.second_board)
        if second:
            if not self.second_board:
                if len(self.board) < 5:
                    raise HistoryError("malformed", f"{where}: a street is dealt twice")
                self.second_board = self.board[:before]
            board = self.second_board
        else:
            board = self.board
            self.street = street
            self.put = [0] * self.n
        if len(board) != before or len(cards) != _BOARD_SIZE[street] - before:
            raise HistoryError(
                "malformed",
                f"{where}.cards: {len(cards)} cards on the {_STREET_NAMES[street].lower()}"
                f" after {len(board)}",
            )
        board.extend(cards)

    def act(self, action: object, where: str) -> None:
        if not isinstance(action, dict):
            raise HistoryError("malformed", f"{where} is not an object")
        kind = action.get("action")
        if kind in _IGNORED:
            return
        p = _player_index(self.index, action.get("player_id"), where)
        all_in = action.get("is_allin") is True
        if kind in _CARD_ACTIONS:
            cards = action.get("cards")
            if cards not in (None, "", []):
                self.holes[p] = tuple(_cards(cards, f"{where}.cards"))
            return
        if self.showdown:
            raise HistoryError("malformed", f"{where}.action {kind!r} in the showdown round")
        if kind in _POSTS:
            self.post(kind, p, action, all_in, where)
        elif kind in _VOLUNTARY:
            self.voluntary(kind, p, action, all_in, where)
        else:
            raise HistoryError("malformed", f"{where}.action {kind!r} is not an OHH action")

    def amount(self, action: Mapping[str, Any], where: str) -> int:
        return self.reader.chips(action.get("amount"), f"{where}.amount")

    def post(self, kind: str, p: int, action: Mapping[str, Any], all_in: bool, where: str) -> None:
        if self.street is not Street.PREFLOP or self.actions:
            raise HistoryError("malformed", f"{where}: {kind!r} after the betting began")
        chips = self.amount(action, where)
        if kind == "Post Ante":
            self.dead[p] += max(chips, self.ante) if all_in else chips
        elif kind == "Post Dead" or (kind == "Post SB" and p != self.small_seat):
            self.dead[p] += chips
        else:
            nominal = {"Post SB": self.small, "Post BB": self.big}.get(kind, chips)
            self.blinds[p] += max(chips, nominal) if all_in else chips
            self.put[p] += chips

    def voluntary(
        self, kind: str, p: int, action: Mapping[str, Any], all_in: bool, where: str
    ) -> None:
        if kind == "Fold":
            move, amount = Move.FOLD, 0
        elif kind == "Check":
            move, amount = Move.CHECK_CALL, 0
        elif kind == "Call":
            move, amount = Move.CHECK_CALL, self.amount(action, where)
            self.put[p] += amount
        else:
            move, amount = Move.RAISE, self.put[p] + self.amount(action, where)
            self.put[p] = amount
        self.actions.append(RecordedAction(self.street, p, move, amount, all_in))


def _player_index(index: Mapping[int, int], player_id: object, where: str) -> int:
    """The record index of an OHH player id; raises ``malformed`` naming ``where``."""
    found = index.get(player_id) if type(player_id) is int else None
    if found is None:
        raise HistoryError("malformed", f"{where}.player_id {player_id!r} is not dealt in")
    return found


def _round_order(round_: Mapping[str, Any], position: int) -> tuple[int, int]:
    number = round_.get("id")
    return (
        number if isinstance(number, int) and not isinstance(number, bool) else position,
        position,
    )


def _list(obj: Mapping[str, Any], key: str) -> list[Any]:
    """``obj[key]`` as a list (absent or null: empty); raises ``malformed`` otherwise."""
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise HistoryError("malformed", f"{key} {value!r} is not a list")
    return value


def _text(obj: Mapping[str, Any], key: str, default: str | None) -> Any:
    value = obj.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise HistoryError("malformed", f"{key} {value!r} is not a string")
    return value


def _integer(
    obj: Mapping[str, Any], key: str, default: int | None, *, where: str | None = None
) -> int | None:
    value = obj.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise HistoryError("malformed", f"{where or key} {value!r} is not a whole number")
    return value


def _cards(value: object, where: str) -> list[int]:
    if not isinstance(value, list | str) or not all(isinstance(c, str) for c in value):
        raise HistoryError("malformed", f"{where} {value!r} is not a list of cards")
    try:
        return parse_cards(value)
    except CardError as error:
        raise HistoryError("malformed", f"{where}: {error}") from None


# -- writing ----------------------------------------------------------------------------


def write_ohh(record: HandRecord, *, indent: int | None = 2) -> str:
    """The record as one OHH hand, ``{"ohh": {...}}`` (pretty-printed unless ``indent``
    is None: then one line). :func:`parse_ohh` reads it back as the same record."""
    return json.dumps({"ohh": ohh_object(record)}, indent=indent, ensure_ascii=False) + "\n"


def write_ohh_hands(records: Iterable[HandRecord], *, indent: int | None = 2) -> str:
    """Several records as one ``.ohh`` text: hands separated by a blank line, as the
    spec's storage format asks."""
    return "\n".join(write_ohh(r, indent=indent) for r in records)


def ohh_object(record: HandRecord) -> dict[str, Any]:
    """The record as the object under the ``"ohh"`` key."""
    decimals = _decimals_of(record.unit)

    def money(chips: int) -> int | float:
        value = Decimal(chips).scaleb(-decimals)
        return int(value) if value == value.to_integral_value() else float(value)

    hand: dict[str, Any] = {"spec_version": SPEC_VERSION, "site_name": record.site}
    hand["game_number"] = record.hand_id
    if record.time is not None:
        hand["start_date_utc"] = record.time.isoformat()
    if record.table is not None:
        hand["table_name"] = record.table
    hand["game_type"] = "Holdem"
    cap = record.extra.get("bet_cap") if "capped-no-limit" in record.variants else None
    hand["bet_limit"] = {
        "bet_type": _BET_TYPE_NAMES[record.betting],
        "bet_cap": money(int(cap)) if cap is not None else 0,
    }
    if record.max_seats is not None:
        hand["table_size"] = record.max_seats
    hand["currency"] = record.currency
    button_seat = record.extra.get("button_seat")
    hand["dealer_seat"] = (
        int(button_seat) if button_seat is not None else record.seats[record.button].number
    )
    hand["small_blind_amount"] = money(record.small_blind)
    hand["big_blind_amount"] = money(record.big_blind)
    hand["ante_amount"] = money(record.ante)
    if decimals != 2:
        hand["_decimals"] = decimals
    fixed = record.betting is Betting.FIXED_LIMIT
    if fixed and (record.small_bet != record.big_blind or record.big_bet != 2 * record.small_bet):
        hand["_small_bet"] = money(record.small_bet)
        hand["_big_bet"] = money(record.big_bet)
    if record.hero is not None:
        hand["hero_player_id"] = record.hero
    flags = []
    if record.second_board:
        flags.append("Run_It_Twice")
    if record.fast_fold:
        flags.append("Fast")
    if flags:
        hand["flags"] = flags
    hand["players"] = [
        {"id": i, "seat": s.number, "name": s.player, "starting_stack": money(s.stack)}
        for i, s in enumerate(record.seats)
    ]
    hand["rounds"] = _Rounds(record, money).rounds
    if record.total_pot is not None or record.winnings is not None:
        pot: dict[str, Any] = {"number": 0}
        total = record.total_pot
        if total is None:
            total = sum(record.winnings or ()) + (record.rake or 0)
        pot["amount"] = money(total)
        if record.rake is not None:
            pot["rake"] = money(record.rake)
        pot["player_wins"] = [
            {"player_id": i, "win_amount": money(won)}
            for i, won in enumerate(record.winnings or ())
            if won
        ]
        hand["pots"] = [pot]
    else:
        hand["pots"] = []
    return hand


class _Rounds:
    """The record's posts, actions, board and shown cards as OHH rounds."""

    def __init__(self, record: HandRecord, money: Any) -> None:
        self.record = record
        self.money = money
        self.number = 0
        n = record.players
        self.stack = [s.stack for s in record.seats]
        self.put = [0] * n
        self.rounds: list[dict[str, Any]] = []
        preflop = self.open(Street.PREFLOP, [])
        self.posts(preflop)
        holes = record.hole_cards or ((),) * n
        if record.hero is not None and holes[record.hero]:
            preflop.append(self.entry(record.hero, "Dealt Cards", cards=holes[record.hero]))
        street = Street.PREFLOP
        current = preflop
        board = record.board
        for action in record.actions:
            while action.street > street:
                street = Street(street + 1)
                current = self.open(street, _street_cards(board, street))
                self.put = [0] * n
            current.append(self.voluntary(action))
        for later in (Street.FLOP, Street.TURN, Street.RIVER):
            if later > street and len(board) >= _BOARD_SIZE[later]:
                self.open(later, _street_cards(board, later))
        if record.second_board:
            shared = next(
                (k for k in range(5) if board[k : k + 1] != record.second_board[k : k + 1]), 5
            )
            for later in (Street.FLOP, Street.TURN, Street.RIVER):
                if _BOARD_SIZE[later] > shared:
                    self.open(later, _street_cards(record.second_board, later))
        folded = {a.player for a in record.actions if a.move is Move.FOLD}
        showdown = n - len(folded) > 1
        shown = [
            self.entry(p, "Mucks Cards" if p in folded else "Shows Cards", cards=cards)
            for p, cards in enumerate(holes)
            if cards and (p != record.hero or (showdown and p not in folded))
        ]
        if shown:
            self.open_showdown().extend(shown)

    def open(self, street: Street, cards: Sequence[int]) -> list[dict[str, Any]]:
        actions: list[dict[str, Any]] = []
        self.rounds.append(
            {
                "id": len(self.rounds),
                "street": _STREET_NAMES[street],
                "cards": [format_cards([c]) for c in cards],
                "actions": actions,
            }
        )
        return actions

    def open_showdown(self) -> list[dict[str, Any]]:
        actions: list[dict[str, Any]] = []
        self.rounds.append({"id": len(self.rounds), "street": "Showdown", "actions": actions})
        return actions

    def entry(
        self,
        player: int,
        kind: str,
        *,
        chips: int | None = None,
        all_in: bool = False,
        cards: Sequence[int] = (),
    ) -> dict[str, Any]:
        self.number += 1
        item: dict[str, Any] = {"action_number": self.number, "player_id": player, "action": kind}
        if chips is not None:
            item["amount"] = self.money(chips)
        if all_in:
            item["is_allin"] = True
        if cards:
            item["cards"] = [format_cards([c]) for c in cards]
        return item

    def pay(self, player: int, chips: int) -> tuple[int, bool]:
        """What a player can put in of ``chips``, and whether that is all he has."""
        paid = min(chips, self.stack[player])
        self.stack[player] -= paid
        return paid, self.stack[player] == 0

    def posts(self, preflop: list[dict[str, Any]]) -> None:
        """Antes, then live blinds (small, big, then other posts), then other dead money."""
        r = self.record
        n = r.players
        small_seat = r.button if n == 2 else (r.button + 1) % n
        antes = [min(r.ante, d) for d in r.dead]
        for p in range(n):
            if antes[p]:
                paid, all_in = self.pay(p, antes[p])
                preflop.append(self.entry(p, "Post Ante", chips=paid, all_in=all_in))
        order = sorted(range(n), key=lambda p: (p != small_seat, (p - r.button) % n))
        for p in order:
            if not r.blinds[p]:
                continue
            if p == small_seat and r.blinds[p] <= r.small_blind:
                kind = "Post SB"
            elif r.blinds[p] == r.big_blind:
                kind = "Post BB"
            elif r.blinds[p] > r.big_blind:
                kind = "Straddle"
            else:
                kind = "Post Extra Blind"
            paid, all_in = self.pay(p, r.blinds[p])
            self.put[p] += paid
            preflop.append(self.entry(p, kind, chips=paid, all_in=all_in))
        for p in range(n):
            rest = r.dead[p] - antes[p]
            if rest:
                paid, all_in = self.pay(p, rest)
                preflop.append(self.entry(p, "Post Dead", chips=paid, all_in=all_in))

    def voluntary(self, action: RecordedAction) -> dict[str, Any]:
        p = action.player
        if action.move is Move.FOLD:
            return self.entry(p, "Fold")
        if action.move is Move.CHECK_CALL:
            if action.amount == 0:
                return self.entry(p, "Check", all_in=action.all_in)
            self.stack[p] -= action.amount
            self.put[p] += action.amount
            return self.entry(p, "Call", chips=action.amount, all_in=action.all_in)
        kind = "Raise" if any(self.put) else "Bet"
        added = action.amount - self.put[p]
        self.stack[p] -= added
        self.put[p] = action.amount
        return self.entry(p, kind, chips=added, all_in=action.all_in)


def _street_cards(board: Sequence[int], street: Street) -> Sequence[int]:
    size = _BOARD_SIZE[street]
    return board[size - (3 if street is Street.FLOP else 1) : size]


def _decimals_of(unit: Decimal) -> int:
    """Decimal places of a chip unit (0.01 -> 2)."""
    for decimals in range(_MAX_DECIMALS + 1):
        if unit == Decimal(1).scaleb(-decimals):
            return decimals
    raise ValueError(f"unit {unit} is not 1, 0.1, ... or 0.000001")
