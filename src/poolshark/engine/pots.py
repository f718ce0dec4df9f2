"""Side pots, rake and splitting a pot among tied winners, in integer chips.

Both faces of the engine settle hands through these functions, so the rules live in one
place:

* Pots are layered by the contribution levels of the players still in the hand: each pot
  is open to every live player who put in at least its level. Folded players' chips stay
  in the pots they reached.
* Rake is taken from the main pot first, then the side pots in order.
* A pot that does not split evenly gives its odd chips one at a time to the tied winners
  in seat order starting left of the button (the usual card-room rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Pot:
    """Chips in one pot and the seats that can win it."""

    amount: int
    eligible: tuple[int, ...]


def side_pots(contributions: Sequence[int], live: Sequence[bool]) -> list[Pot]:
    """Main pot first, then side pots, from each seat's total contribution this hand."""
    levels = sorted({c for c, alive in zip(contributions, live, strict=True) if alive and c > 0})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = sum(min(c, level) - min(c, previous) for c in contributions)
        eligible = tuple(
            seat
            for seat, (c, alive) in enumerate(zip(contributions, live, strict=True))
            if alive and c >= level
        )
        pots.append(Pot(amount, eligible))
        previous = level
    leftover = sum(contributions) - sum(p.amount for p in pots)
    if leftover:  # dead chips above every live level (only when nobody live contributed)
        if pots:
            last = pots[-1]
            pots[-1] = Pot(last.amount + leftover, last.eligible)
        else:
            pots.append(Pot(leftover, tuple(s for s, alive in enumerate(live) if alive)))
    return pots


def rake_amount(total: int, percent: float, cap: int | None) -> int:
    """Chips raked from a pot of ``total``: ``percent`` rounded down, at most ``cap``."""
    raked = int(total * Decimal(str(percent)) // 100)  # exact: 4.6% of 1500 is 69, not 68
    return raked if cap is None else min(raked, cap)


def take_rake(pots: list[Pot], rake: int) -> list[Pot]:
    """The pots after removing ``rake`` chips, main pot first."""
    left = rake
    out = []
    for pot in pots:
        taken = min(left, pot.amount)
        left -= taken
        out.append(Pot(pot.amount - taken, pot.eligible))
    return out


def split_pot(amount: int, winners: Sequence[int], button: int, seats: int) -> dict[int, int]:
    """Chips each winner gets; odd chips go one by one clockwise from the button's left."""
    share, odd = divmod(amount, len(winners))
    payout = dict.fromkeys(winners, share)
    clockwise = sorted(winners, key=lambda seat: (seat - button - 1) % seats)
    for seat in clockwise[:odd]:
        payout[seat] += 1
    return payout
