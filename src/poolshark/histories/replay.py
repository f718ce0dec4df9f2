"""Replay a :class:`HandRecord` through the engine, and turn a played :class:`Table` into one.

:func:`replay` is the judge of every record a reader produces: it seats the players with
their recorded stacks and forced bets (``ForcedBets``), plays every recorded action on a
:class:`Table` (which refuses anything the rules forbid), and checks what the site wrote
against what the rules make of it: the call amounts and all-ins, the board, the total pot,
the rake and every player's winnings (run it twice included). Unknown hole cards are
allowed; such a player loses any showdown, which is what a muck means. The site's rake is
replayed as a rake of exactly that many chips, taken from the main pot first.

:func:`judge` is the same check with one documented tolerance, for a known conversion
artefact: winnings that exceed the pot by at most a small and a big blind (a dead post
the converted file dropped), paid to the players the replay pays. Such a hand is accepted
with its betting verified and the warning ``winnings-over-pot`` (``record.WARNING_REASONS``)
instead of being rejected; :func:`replay` stays strict.

:func:`record_from_table` goes the other way, so simulated hands can be written by the
PokerStars and PHH writers.
"""

from __future__ import annotations

from collections.abc import Sequence, Sized
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from itertools import combinations
from math import gcd
from typing import Literal

from poolshark.cards.card import CardError, check_disjoint
from poolshark.cards.evaluator import evaluate_indices
from poolshark.engine.config import Betting, GameConfig
from poolshark.engine.pots import Pot, split_pot
from poolshark.engine.table import ForcedBets, IllegalActionError, Move, Table
from poolshark.histories.record import (
    WARNING_REASONS,
    HandRecord,
    HistoryError,
    RecordedAction,
    Seat,
    house_rules_of,
)

Reveal = Literal["showdown", "all", "none"]

#: Fixed-limit bets and raises per round (a bet and three raises), as PokerStars caps them.
FIXED_LIMIT_CAP = 4
#: The other cap a record may show (``limit-cap-4``): a bet and four raises (PokerKit's,
#: where the big blind does not count as the first bet preflop).
FIXED_LIMIT_CAP_4 = 5


def replay(record: HandRecord, *, check: bool = True) -> Table:
    """Play the record on a :class:`Table` and return the finished table.

    Raises :class:`HistoryError`: ``replay-illegal`` for an action the rules forbid or one
    out of turn, ``replay-mismatch`` when the record disagrees with the replay (a call
    amount, an all-in flag, the board, the pot, the rake or the winnings), ``malformed``
    for a record whose shape is wrong. With ``check=False`` only the actions are checked.
    """
    return _replayed(record, check=check, tolerant=False).table


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` made of a record: the finished table, and the record as accepted
    (``record.warnings`` names what could not be verified; empty for a clean hand)."""

    table: Table
    record: HandRecord


def judge(record: HandRecord) -> Judged:
    """:func:`replay` with every check, tolerating winnings over the pot (see the module
    docstring): such a hand comes back with ``warnings == ("winnings-over-pot",)``.

    Raises :class:`HistoryError` as :func:`replay` does for everything else.
    """
    return _replayed(record, check=True, tolerant=True)


def warning_message(record: HandRecord) -> str:
    """What a judged record's warning means for this hand, in one line."""
    if record.warnings != ("winnings-over-pot",) or record.winnings is None:
        return "; ".join(WARNING_REASONS[w] for w in record.warnings)
    excess = -_recorded_rake(record)
    return (
        f"the players collect {excess} more than the pot of {record.total_pot}: a dead post"
        " the conversion dropped; the betting is verified, the winnings are not"
    )


def _replayed(record: HandRecord, *, check: bool, tolerant: bool) -> Judged:
    """The replay under the rules the record shows: first the engine's own (and any the
    record already names); if the history breaks them, again under each combination of the
    house rules it could show (``HOUSE_RULES``), fewest first, accepting the first that
    replays with the codes it needed (the first error stands if none does)."""
    _check_shape(record)
    known = frozenset(record.variants) & frozenset(HOUSE_RULES)
    try:
        return _replayed_with(record, check=check, tolerant=tolerant, rules=known)
    except HistoryError as error:
        if error.reason not in ("replay-illegal", "replay-mismatch"):
            raise
        for rules in _rule_sets(record, known):
            try:
                judged = _replayed_with(record, check=check, tolerant=tolerant, rules=rules)
            except HistoryError:
                continue
            variants = tuple(sorted({*judged.record.variants, *rules}))
            return Judged(judged.table, replace(judged.record, variants=variants))
        raise error from None


#: House rules a record may show that change the betting or the pots (``record.VARIANTS``).
HOUSE_RULES = ("limit-cap-4", "posted-price", "antes-in-main-pot", "short-all-in-reopens")


def _rule_sets(record: HandRecord, known: frozenset[str]) -> list[frozenset[str]]:
    """:func:`house_rule_sets` for the record: a raise cap only in fixed-limit,
    ``posted-price`` only with a short or straddled blind, ``antes-in-main-pot`` only with
    dead money."""
    short = any(
        seat.stack < dead + blind
        for seat, dead, blind in zip(record.seats, record.dead, record.blinds, strict=True)
        if blind
    )
    return house_rule_sets(
        known,
        fixed_limit=record.betting is Betting.FIXED_LIMIT,
        priced_blind=short or max(record.blinds) > record.big_blind,
        dead_money=any(record.dead),
    )


def house_rule_sets(
    known: frozenset[str], *, fixed_limit: bool, priced_blind: bool, dead_money: bool
) -> list[frozenset[str]]:
    """The combinations of house rules beyond ``known`` that :func:`judge` tries, in its
    order (fewest first, then in ``HOUSE_RULES`` order): ``limit-cap-4`` only in
    ``fixed_limit``, ``posted-price`` only with a ``priced_blind`` (short or straddled),
    ``antes-in-main-pot`` only with ``dead_money``. The compiled fast path tries them in
    the same order, so both accept a hand under the same rules."""
    possible = [
        rule
        for rule, applies in (
            ("limit-cap-4", fixed_limit),
            ("posted-price", priced_blind),
            ("antes-in-main-pot", dead_money),
            ("short-all-in-reopens", True),
        )
        if applies and rule not in known
    ]
    return [
        known | frozenset(extra)
        for size in range(1, len(possible) + 1)
        for extra in combinations(possible, size)
    ]


def _replayed_with(
    record: HandRecord, *, check: bool, tolerant: bool, rules: frozenset[str]
) -> Judged:
    rake = _recorded_rake(record) if check else 0
    table = _seat_players(record, rake, rules)
    played = _play_in_turn(table, record)
    if played != record.actions:
        variants = tuple(sorted({*record.variants, "early-fold"}))
        record = replace(record, actions=played, variants=variants)
    _finish_forced_checks(table)
    if not table.done:
        raise HistoryError("replay-mismatch", "the hand is not over after the last action")
    warnings: tuple[str, ...] = ()
    variants = record.variants
    if check:
        warnings, shown = _check_outcome(record, table, rake, tolerant=tolerant)
        variants = tuple(sorted({*variants, *shown}))
    if warnings != record.warnings or variants != record.variants:
        record = replace(record, warnings=warnings, variants=variants)
    return Judged(table, record)


def _check_shape(record: HandRecord) -> None:
    """Per-player lists of the right length and indices in range."""
    n = record.players
    if not 2 <= n <= 10:
        raise HistoryError("malformed", f"{n} players (the engine seats 2 to 10)")
    sized: dict[str, Sized] = {"blinds": record.blinds, "dead": record.dead}
    if record.hole_cards:
        sized["hole_cards"] = record.hole_cards
    if record.winnings is not None:
        sized["winnings"] = record.winnings
    for name, values in sized.items():
        if len(values) != n:
            raise HistoryError("malformed", f"{name} has {len(values)} entries for {n} players")
    if not 0 <= record.button < n:
        raise HistoryError("malformed", f"button {record.button} is not a player")
    if any(not 0 <= a.player < n for a in record.actions):
        raise HistoryError("malformed", "an action names a player who is not seated")
    if record.big_blind <= 0:
        raise HistoryError("malformed", f"big blind {record.big_blind}")


def _recorded_rake(record: HandRecord) -> int:
    """The rake the site took: as recorded, else the pot less what was collected."""
    if record.rake is not None:
        return record.rake
    if record.winnings is not None and record.total_pot is not None:
        return record.total_pot - sum(record.winnings)
    return 0


def _seat_players(record: HandRecord, rake: int, rules: frozenset[str] = frozenset()) -> Table:
    """A table with the record's stacks, button, forced bets, known cards and rake, under
    the house rules ``rules`` (codes of ``HOUSE_RULES``)."""
    cap = FIXED_LIMIT_CAP_4 if "limit-cap-4" in rules else FIXED_LIMIT_CAP
    fixed = record.betting is Betting.FIXED_LIMIT
    try:
        config = GameConfig(
            betting=record.betting,
            seats=record.players,
            small_blind=min(record.small_blind, record.big_blind),
            big_blind=record.big_blind,
            small_bet=(record.small_bet or None) if fixed else None,
            big_bet=(record.big_bet or None) if fixed else None,
            raise_cap=cap,
            rake_percent=100.0 if rake > 0 else 0.0,
            rake_cap=rake if rake > 0 else None,
            no_flop_no_drop=False,
        )
        holes = record.hole_cards or ((),) * record.players
        return Table(
            config,
            [seat.stack for seat in record.seats],
            button=record.button,
            hole_cards=[list(h) for h in holes],
            board=list(record.board[:5]),
            seed=0,
            forced=ForcedBets(record.blinds, record.dead, house_rules=house_rules_of(rules)),
        )
    except (ValueError, CardError) as error:  # pydantic's ValidationError is a ValueError
        raise HistoryError("malformed", f"cannot seat the hand: {_one_line(error)}") from None


def _play(table: Table, action: RecordedAction, number: int, record: HandRecord) -> None:
    """One recorded action on the table, checked against the turn, street and amounts."""
    where = f"action {number} ({_describe(action, record)})"
    if table.done:
        raise HistoryError("replay-illegal", f"{where} comes after the hand is over")
    if action.street != table.street:
        raise HistoryError(
            "replay-illegal",
            f"{where} is on the {action.street.name.lower()}, but the"
            f" betting is on the {table.street.name.lower()}",
        )
    if action.player != table.to_act:
        actor = record.seats[table.to_act].player
        raise HistoryError("replay-illegal", f"{where} is out of turn: {actor!r} is to act")
    all_in = _goes_all_in(table, action.move, action.amount)
    try:
        match action.move:
            case Move.FOLD:
                _fold(table)
            case Move.CHECK_CALL:
                owed = table.legal().call
                if action.amount != owed:
                    raise HistoryError(
                        "replay-mismatch", f"{where} puts in {action.amount}, but owes {owed}"
                    )
                table.check_call()
            case Move.RAISE:
                table.raise_to(action.amount)
    except IllegalActionError as error:
        raise HistoryError("replay-illegal", f"{where}: {error}") from None
    if action.all_in != all_in:
        state = "is" if all_in else "is not"
        raise HistoryError("replay-mismatch", f"{where}: the player {state} all-in")


def _play_in_turn(table: Table, record: HandRecord) -> tuple[RecordedAction, ...]:
    """Play every recorded action; returns them in the order played.

    A fold written before the player's turn (a fold in advance, or a fast fold) waits for
    that turn, in the same betting round, and is played there, provided nothing between
    changed the price the player faced: only folds, checks and calls in between. A raise
    in between, or a betting round that ends before the turn comes, leaves the fold out of
    turn (``replay-illegal``, naming the fold)."""
    played: list[RecordedAction] = []
    waiting: dict[int, tuple[int, RecordedAction]] = {}  # player -> (number, early fold)

    def play_waiting() -> None:
        while not table.done and table.to_act in waiting:
            number, fold = waiting.pop(table.to_act)
            _play(table, fold, number, record)
            played.append(fold)
        for number, fold in waiting.values():
            if table.done or table.street != fold.street:
                _out_of_turn(table, fold, number, record, "the betting round ends first")

    for number, action in enumerate(record.actions, 1):
        play_waiting()
        if _may_wait(table, action) and action.player not in waiting:
            waiting[action.player] = (number, action)
            continue
        if waiting and action.move is Move.RAISE:
            number_waiting, fold = min(waiting.values(), key=lambda item: item[0])
            raiser = f"action {number} ({_describe(action, record)})"
            _out_of_turn(table, fold, number_waiting, record, f"{raiser} comes before it")
        _play(table, action, number, record)
        played.append(action)
    play_waiting()
    return tuple(played)


def _may_wait(table: Table, action: RecordedAction) -> bool:
    """Whether ``action`` is a fold before its player's turn, by a player still to act in
    this betting round (in the hand, with chips, not the one to act)."""
    return (
        action.move is Move.FOLD
        and not table.done
        and action.street == table.street
        and 0 <= action.player < table.seats
        and action.player != table.to_act
        and not table.folded[action.player]
        and table.stack[action.player] > 0
    )


def _out_of_turn(
    table: Table, fold: RecordedAction, number: int, record: HandRecord, why: str
) -> None:
    """Reject an early fold that cannot wait for its turn."""
    where = f"action {number} ({_describe(fold, record)})"
    raise HistoryError("replay-illegal", f"{where} is out of turn, and {why}")


def _goes_all_in(table: Table, move: Move, amount: int) -> bool:
    """Whether the action about to be played puts in the player's last chip (asked before
    playing it: once the hand ends, the stacks hold the winnings)."""
    seat = table.to_act
    if move is Move.FOLD:
        return False
    chips = amount if move is Move.CHECK_CALL else amount - table.bet[seat]
    return chips > 0 and chips == table.stack[seat]


def _fold(table: Table) -> None:
    """Fold, also when checking is free: PokerStars lets a player do that."""
    table.fold(when_free=True)


def _finish_forced_checks(table: Table) -> None:
    """Play the checks sites never write: the last player able to act, facing no bet, with
    everyone else all-in or folded (the engine still asks for the check)."""
    while not table.done:
        legal = table.legal()
        others = [s for s in range(table.seats) if s != legal.seat and not table.folded[s]]
        if legal.call or any(table.stack[s] > 0 for s in others):
            return
        table.check_call()


def _check_outcome(
    record: HandRecord, table: Table, rake: int, *, tolerant: bool
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Board, total pot, rake and winnings against what the replay produced; returns the
    warnings of a hand accepted with its winnings unverified (``tolerant`` only), and the
    variants its winnings show (``odd-chip``, ``rake-split``)."""
    result = table.result
    assert result is not None  # the table is done
    shown = len(table.board)
    if len(record.board) != shown:
        raise HistoryError(
            "replay-mismatch", f"the board has {len(record.board)} cards, the hand dealt {shown}"
        )
    pot = sum(table.total)
    if record.total_pot is not None and record.total_pot != pot:
        raise HistoryError("replay-mismatch", f"total pot {record.total_pot}, replay {pot}")
    if rake < 0:
        if tolerant and _dropped_post(record, table, -rake):
            return ("winnings-over-pot",), ()
        raise HistoryError("replay-mismatch", f"the players collect {-rake} more than the pot")
    if rake > pot:
        raise HistoryError("replay-mismatch", f"rake {rake} out of a pot of {pot}")
    if record.winnings is None:
        return (), ()
    if record.second_board:
        if len(record.second_board) != 5 or not result.showdown:
            raise HistoryError("replay-mismatch", "a second board without an all-in showdown")
        shared = sum(a == b for a, b in zip(record.board, record.second_board, strict=False))
        try:
            check_disjoint(*record.hole_cards, record.board, record.second_board[shared:])
        except CardError as error:
            raise HistoryError("malformed", f"second board: {error}") from None
        paid = _run_twice_payouts(record, table, result.pots)
    else:
        paid = [
            s - s0 + t
            for s, s0, t in zip(table.stack, table.starting_stacks, table.total, strict=True)
        ]
    won = list(record.winnings)
    if sum(won) != pot - result.rake:
        raise HistoryError(
            "replay-mismatch",
            f"collected {sum(won)} out of a pot of {pot} less rake {result.rake}",
        )
    if won == paid or _undecided(record, table, result.pots, won):
        return (), ()
    variant = None if record.second_board else split_variant(record, table, won)
    if variant is None:
        raise HistoryError("replay-mismatch", f"winnings {won}, the replay pays {paid}")
    return (), (variant,)


def split_variant(record: HandRecord, table: Table, won: Sequence[int]) -> str | None:
    """``odd-chip`` or ``rake-split`` when the recorded winnings differ from the replay's
    only in how a split pot was divided among its winners, else None.

    Each pot (after rake) must pay its winners, the best hands among those eligible, an
    equal share each, and the remainder to one or more of them: every player then
    collects between the sum of their shares and that plus the remainders of the pots they
    split. ``rake-split`` when every split pot divides evenly before the rake (the odd
    chips come from the rake's rounding), ``odd-chip`` otherwise. Failing that, a raked
    split pot may have charged its rake to the winners unequally (each bears between none
    and all of it): ``rake-split`` too. Chips are never created: the total is the replay's.
    """
    result = table.result
    if result is None or not result.showdown or sum(won) != sum(result.net) + sum(table.total):
        return None
    holes = record.hole_cards or ((),) * record.players
    live = [s for s in range(table.seats) if not table.folded[s]]
    board = table.board_cards
    values = {s: evaluate_indices([*holes[s], *board]) if holes[s] else 0 for s in live}
    chip = _smallest_chip(record)
    least, spare = [0] * table.seats, [0] * table.seats  # equal shares after rake, odd chips
    lowest, highest = [0] * table.seats, [0] * table.seats  # the rake charged unequally
    uneven_before_rake = False
    for pot, whole in zip(result.pots, table.contested_pots(), strict=True):
        best = max(values[s] for s in pot.eligible)
        winners = [s for s in pot.eligible if values[s] == best]
        share = pot.amount // (chip * len(winners)) * chip
        share_before_rake = whole.amount // (chip * len(winners)) * chip
        odd_before_rake = whole.amount - share_before_rake * len(winners)
        uneven_before_rake |= odd_before_rake != 0
        for seat in winners:
            least[seat] += share
            spare[seat] += pot.amount - share * len(winners)
            lowest[seat] += max(0, share_before_rake - (whole.amount - pot.amount))
            highest[seat] += share_before_rake + odd_before_rake
    if all(lo <= w <= lo + extra for w, lo, extra in zip(won, least, spare, strict=True)):
        return "odd-chip" if uneven_before_rake else "rake-split"
    if all(lo <= w <= hi for w, lo, hi in zip(won, lowest, highest, strict=True)):
        return "rake-split"
    return None


def _smallest_chip(record: HandRecord) -> int:
    """The smallest chip the record's amounts show (the greatest common divisor of its
    stacks, posts, bets and winnings): a site splits a pot in those, never in less."""
    amounts = [seat.stack for seat in record.seats]
    amounts += [*record.blinds, *record.dead, *(record.winnings or ())]
    amounts += [action.amount for action in record.actions]
    return gcd(*amounts) or 1


def _dropped_post(record: HandRecord, table: Table, excess: int) -> bool:
    """Whether winnings ``excess`` chips over the pot look like a dead post the converted
    file dropped: at most a small and a big blind more (the largest post a player owing
    blinds makes), one board, and the surplus paid to the very players the replay pays."""
    if record.winnings is None or record.second_board:
        return False
    if excess > record.small_blind + record.big_blind:
        return False
    paid = [
        s - s0 + t for s, s0, t in zip(table.stack, table.starting_stacks, table.total, strict=True)
    ]
    return all(
        won >= owed and (won > 0) == (owed > 0)
        for won, owed in zip(record.winnings, paid, strict=True)
    )


def _undecided(record: HandRecord, table: Table, pots: Sequence[Pot], won: list[int]) -> bool:
    """Whether the record's winnings may stand although the replay pays otherwise: some pot
    is contested only by unknown hands (so the rules cannot name its winner), and every
    winner is a player still in the hand."""
    holes = record.hole_cards or ((),) * record.players
    if not any(len(p.eligible) > 1 and not any(holes[s] for s in p.eligible) for p in pots):
        return False
    return all(not table.folded[s] for s, chips in enumerate(won) if chips > 0)


def _run_twice_payouts(record: HandRecord, table: Table, pots: Sequence[Pot]) -> list[int]:
    """Collected chips when the board is run twice: each (raked) pot splits in halves, the
    odd chip to the first run, and each half goes to that board's best hands."""
    holes = record.hole_cards or ((),) * record.players
    paid = [0] * record.players
    for board, share in ((record.board, 0), (record.second_board, 1)):
        for pot in pots:
            amount = pot.amount // 2 if share else pot.amount - pot.amount // 2
            values = {
                s: evaluate_indices([*holes[s], *board]) if holes[s] else 0 for s in pot.eligible
            }
            best = max(values.values())
            winners = [s for s, v in values.items() if v == best]
            for seat, chips in split_pot(amount, winners, table.button, table.seats).items():
                paid[seat] += chips
    return paid


def _describe(action: RecordedAction, record: HandRecord) -> str:
    """Words for an action in error messages."""
    name = record.seats[action.player].player if action.player < record.players else "?"
    if action.move is Move.FOLD:
        return f"{name!r} folds"
    if action.move is Move.CHECK_CALL:
        return f"{name!r} calls {action.amount}" if action.amount else f"{name!r} checks"
    return f"{name!r} raises to {action.amount}"


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


# -- tables to records --------------------------------------------------------------------


def record_from_table(
    table: Table,
    *,
    site: str,
    hand_id: str,
    names: Sequence[str] | None = None,
    seat_numbers: Sequence[int] | None = None,
    time: datetime | None = None,
    table_name: str | None = None,
    max_seats: int | None = None,
    hero: int | None = None,
    reveal: Reveal = "showdown",
    unit: Decimal = Decimal("0.01"),
    currency: str = "USD",
    fast_fold: bool = False,
) -> HandRecord:
    """The record a site would write for a finished hand played on ``table``.

    ``reveal`` says which hole cards the record keeps, as a site shows them: ``showdown``
    (the hero's and those of every player in a showdown), ``all`` (everyone's; PHH can
    write them, PokerStars text cannot for folded players) or ``none`` (the hero's only).
    The engine's checks by a player whom everyone else has left all-in are not recorded
    (sites do not write them; :func:`replay` plays them back). Blinds and antes are the
    nominal forced bets; a stack too short for one posts what it has.
    """
    if not table.done or table.result is None:
        raise ValueError("the hand is not over")
    n = table.seats
    names = list(names) if names is not None else [f"Player{i + 1}" for i in range(n)]
    numbers = list(seat_numbers) if seat_numbers is not None else list(range(1, n + 1))
    if len(names) != n or len(numbers) != n:
        raise ValueError(f"need {n} names and seat numbers")
    if hero is not None and not 0 <= hero < n:
        raise ValueError(f"hero {hero} is not a seat")
    config = table.config
    blinds, dead = _nominal_forced_bets(table)
    live = [not f for f in table.folded]
    showdown = table.result.showdown
    holes: list[tuple[int, ...]] = []
    for seat, cards in enumerate(table.hole_cards):
        shown = (
            reveal == "all" or seat == hero or (reveal == "showdown" and showdown and live[seat])
        )
        holes.append(tuple(cards) if shown else ())
    paid = [
        s - s0 + t for s, s0, t in zip(table.stack, table.starting_stacks, table.total, strict=True)
    ]
    fixed = config.betting is Betting.FIXED_LIMIT
    return HandRecord(
        site=site,
        hand_id=hand_id,
        seats=tuple(Seat(numbers[i], names[i], table.starting_stacks[i]) for i in range(n)),
        button=table.button,
        small_blind=config.small_blind,
        big_blind=config.big_blind,
        blinds=blinds,
        dead=dead,
        actions=_recorded_actions(table),
        board=tuple(table.board),
        hole_cards=tuple(holes),
        winnings=tuple(paid),
        rake=table.result.rake,
        ante=min(dead),
        betting=config.betting,
        unit=unit,
        currency=currency,
        time=time,
        table=table_name,
        max_seats=max_seats,
        hero=hero,
        total_pot=sum(table.total),
        fast_fold=fast_fold,
        small_bet=config.bet_unit(0) if fixed else 0,
        big_bet=config.bet_unit(2) if fixed else 0,
    )


def _nominal_forced_bets(table: Table) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(live blinds, dead money) per seat as the rules ask for them, before stack limits."""
    n = table.seats
    if table.forced is not None:
        dead = table.forced.dead or (0,) * n
        return tuple(table.forced.blinds), tuple(dead)
    config = table.config
    blinds = [0] * n
    if n == 2:
        small, big = table.button, (table.button + 1) % n
    else:
        small, big = (table.button + 1) % n, (table.button + 2) % n
    blinds[small] = config.small_blind
    blinds[big] = config.big_blind
    if config.straddle:
        blinds[(big + 1) % n] = config.straddle
    return tuple(blinds), (config.ante,) * n


def _recorded_actions(table: Table) -> tuple[RecordedAction, ...]:
    """The table's log with all-in flags, less the checks no site writes (see above)."""
    fresh = Table(
        table.config,
        table.starting_stacks,
        button=table.button,
        hole_cards=table.hole_cards,
        board=table.board_cards,
        forced=table.forced,
    )
    out = []
    for action in table.log:
        seat = action.seat
        others_stuck = all(
            fresh.folded[s] or fresh.stack[s] == 0 for s in range(fresh.seats) if s != seat
        )
        forced_check = action.move is Move.CHECK_CALL and action.amount == 0 and others_stuck
        all_in = _goes_all_in(fresh, action.move, action.amount)
        fresh.act(action.move, action.amount)
        if forced_check:
            continue
        out.append(RecordedAction(action.street, seat, action.move, action.amount, all_in))
    return tuple(out)
