"""What a page sees of a session: the table as plain JSON, hidden cards left out.

A person sees their own hole cards, the board, every stack, bet and pot, whose turn it
is, what they may do (the engine's legal bounds), the hand's actions so far and, once the
hand is over, every hand that reached a showdown. A spectator sees every hole card (the
players are agents; the view is a broadcast's).
"""

from __future__ import annotations

from typing import Any

from poolshark.cards.card import format_card
from poolshark.engine.config import Betting
from poolshark.engine.table import Move, Street, Table
from poolshark.histories.pokerstars import describe_hand
from poolshark.web.sessions import Session

STREETS = ("preflop", "flop", "turn", "river", "over")


def action_line(name: str, move: Move, amount: int, *, opened: bool) -> str:
    """One action in words: ``Hero raises to 6``, ``tag_1 calls 4``, ``nit_2 bets 3``;
    ``opened``: a bet was made on this street before (preflop: the blinds)."""
    if move is Move.FOLD:
        return f"{name} folds"
    if move is Move.CHECK_CALL:
        return f"{name} calls {amount}" if amount else f"{name} checks"
    return f"{name} raises to {amount}" if opened else f"{name} bets {amount}"


def hand_log(session: Session) -> list[dict[str, Any]]:
    """The current hand's actions in order, with the street of each."""
    table, names = session.table, session.names
    lines = []
    opened = {Street.PREFLOP}
    for action in table.log:
        text = action_line(
            names[action.seat], action.move, action.amount, opened=action.street in opened
        )
        if action.move is Move.RAISE:
            opened.add(action.street)
        lines.append({"seat": action.seat, "street": STREETS[int(action.street)], "text": text})
    return lines


def shown_seats(session: Session) -> set[int]:
    """Seats whose hole cards this viewer may see now."""
    table = session.table
    if session.kind == "spectate":
        return set(range(table.seats))
    shown = set() if session.hero is None else {session.hero}
    if table.done and table.result is not None and table.result.showdown:
        shown |= {seat for seat in range(table.seats) if not table.folded[seat]}
    return shown


def legal_view(session: Session) -> dict[str, Any] | None:
    """What the person may do now (None when it is not their turn)."""
    table = session.table
    if session.hero is None or table.done or table.to_act != session.hero:
        return None
    legal = table.legal()
    return {
        "fold": legal.can_fold,
        "check": legal.can_check,
        "call": legal.call,
        "min_raise_to": legal.min_raise_to,
        "max_raise_to": legal.max_raise_to,
        "current_bet": table.current_bet,
        "fixed_limit": session.config.betting is Betting.FIXED_LIMIT,
    }


def result_view(session: Session) -> dict[str, Any] | None:
    """How the finished hand paid out (None while it is played); worked out once a hand."""
    table = session.table
    if not table.done or table.result is None:
        return None
    if session.result_of[0] != session.number:
        session.result_of = (session.number, finished_view(session, table))
    cached: dict[str, Any] = session.result_of[1]
    return cached


def finished_view(session: Session, table: Table) -> dict[str, Any]:
    """A finished hand's payouts, winners and the hands shown in words."""
    assert table.result is not None
    result = table.result
    winners = [seat for seat, chips in enumerate(result.net) if chips > 0]
    hands: dict[int, str] = {}
    if result.showdown:
        board = table.board_cards
        for seat in range(table.seats):
            if not table.folded[seat]:
                hands[seat] = describe_hand([*table.hole_cards[seat], *board])
    return {
        "net": result.net,
        "showdown": result.showdown,
        "winners": winners,
        "hands": {str(seat): words for seat, words in hands.items()},
        "text": ", ".join(f"{session.names[s]} wins {result.net[s]}" for s in winners)
        or "the pot is split",
    }


def seat_views(session: Session, table: Table) -> list[dict[str, Any]]:
    """Every seat: name, chips, bet, cards when visible, position marks, running result."""
    shown = shown_seats(session)
    seats = table.seats
    small = table.button if seats == 2 else (table.button + 1) % seats
    big = (small + 1) % seats
    return [
        {
            "seat": seat,
            "name": session.names[seat],
            "agent": session.owners[seat],
            "hero": seat == session.hero,
            "stack": table.stack[seat],
            "bet": table.bet[seat],
            "in_pot": table.total[seat],
            "folded": table.folded[seat],
            "cards": [format_card(c) for c in table.hole_cards[seat]] if seat in shown else None,
            "button": seat == table.button,
            "blind": "SB" if seat == small else "BB" if seat == big else None,
            "to_act": not table.done and table.to_act == seat,
            "session_net": session.net[seat],
        }
        for seat in range(seats)
    ]


def session_view(session: Session) -> dict[str, Any]:
    """The whole state a page renders."""
    table, config = session.table, session.config
    street = Street.DONE if table.done else table.street
    return {
        "id": session.id,
        "kind": session.kind,
        "game": {
            "seats": config.seats,
            "betting": config.betting.value,
            "small_blind": config.small_blind,
            "big_blind": config.big_blind,
            "stack": session.stack,
        },
        "hand": session.number,
        "hands_played": len(session.hands),
        "max_hands": session.max_hands,
        "hand_over": table.done,
        "street": STREETS[int(street)],
        "board": [format_card(c) for c in table.board],
        "pot": table.pot(),
        "to_act": None if table.done else table.to_act,
        "seats": seat_views(session, table),
        "legal": legal_view(session),
        "log": hand_log(session),
        "result": result_view(session),
        "speed": session.speed if session.kind == "spectate" else None,
    }


def history_view(session: Session) -> list[dict[str, Any]]:
    """One line per finished hand: its number, board, each seat's chips won or lost."""
    return [
        {
            "hand": str(hand.number),
            "board": " ".join(format_card(c) for c in hand.table.board),
            "net": hand.table.result.net if hand.table.result else [],
        }
        for hand in session.hands
    ]
