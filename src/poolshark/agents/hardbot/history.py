"""Betting histories of heads-up fixed-limit hands as short strings, and coarse contexts.

A history has one character per decision, ``f`` fold, ``c`` check or call, ``r`` bet or
raise, and rounds separated by ``/``: ``"rc/cr"`` is button raise, big blind call, then on
the flop a big blind check and a button bet, with the big blind to act. The blinds are not
decisions. Who acts follows from the history: preflop the button acts first, afterwards the
big blind. Four bets a round at most, the big blind counting as the first preflop.

A *context* is a coarser key used by the opponent model: street, the acting role, bets so
far this round and whether a bet is faced, e.g. ``"1|bb|0|free"``.
"""

from __future__ import annotations

from collections.abc import Sequence

STREETS = ("preflop", "flop", "turn", "river")
ACTION_CHARS = "fcr"
"""Character of each engine move (0 fold, 1 check/call, 2 raise)."""
FOLD_CHAR, CALL_CHAR, RAISE_CHAR = "f", "c", "r"
BUTTON, BIG_BLIND = "button", "bb"
MAX_BETS = 4


def history_string(moves: Sequence[int], streets: Sequence[int], upto_street: int) -> str:
    """The history of ``moves`` (engine moves with their streets) as seen on ``upto_street``.

    ``upto_street`` may be later than the last move's street (a new round has begun): the
    string then ends with ``/`` separators for the rounds reached.
    """
    rounds = [""] * (upto_street + 1)
    for move, street in zip(moves, streets, strict=True):
        rounds[street] += ACTION_CHARS[move]
    return "/".join(rounds)


def street_of(history: str) -> int:
    """0 preflop .. 3 river: the round the next decision belongs to."""
    return history.count("/")


def current_round(history: str) -> str:
    """The decisions of the current round so far."""
    return history.rsplit("/", 1)[-1]


def role_to_act(history: str) -> str:
    """``button`` or ``bb``: who makes the next decision."""
    first = BUTTON if street_of(history) == 0 else BIG_BLIND
    if len(current_round(history)) % 2 == 0:
        return first
    return BIG_BLIND if first == BUTTON else BUTTON


def bets_in_round(history: str) -> int:
    """Bets and raises made this round, the big blind counting as the first preflop."""
    return current_round(history).count(RAISE_CHAR) + (street_of(history) == 0)


def facing_bet(history: str) -> bool:
    """Whether the player to act must call chips to continue."""
    now = current_round(history)
    if street_of(history) == 0:
        return now == "" or now.endswith(RAISE_CHAR)
    return now.endswith(RAISE_CHAR)


def legal_chars(history: str) -> str:
    """The meaningful actions at a history: ``fcr`` facing a bet (``fc`` at the cap), ``cr``
    when checking is free (a free fold is a check)."""
    raise_ok = bets_in_round(history) < MAX_BETS
    if facing_bet(history):
        return "fcr" if raise_ok else "fc"
    return "cr" if raise_ok else "c"


def context_of(history: str) -> str:
    """The coarse betting context of a history (opponent model key)."""
    facing = "bet" if facing_bet(history) else "free"
    return f"{street_of(history)}|{role_to_act(history)}|{bets_in_round(history)}|{facing}"
