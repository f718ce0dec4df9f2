"""Spot statistics: preflop by position, postflop by street and facing-size bucket.

Each statistic is hits / opportunities, counted over every player of every hand. A
*decision* is a voluntary action (blinds are not; neither is the check the engine forces
on the last player with chips, which sites never write).

Preflop, by the deciding player's position (:data:`POSITIONS`, by distance from the
button as :func:`poolshark.pool.context.position_class` counts it; with more than six
players dealt, the seats with more than five players behind them, which a six-max table
does not have, are left out of the preflop statistics but still act):

* ``open``: raises / first decisions with nobody in yet (all folded to me);
* ``limp``: calls / the same opportunities;
* ``three_bet``: raises / a player's first decision facing exactly one raise (not theirs);
* ``cold_call``: calls / the same, for players with no chips voluntarily in yet;
* ``squeeze``: raises / the same as ``cold_call``, when someone has called the raise;
* ``fold_to_three_bet``: folds / the first raiser's first decision facing a re-raise;
* ``four_bet``: raises / a player's first decision facing exactly two raises (the second
  raiser excluded).

Postflop, per street (flop, turn, river). The *previous aggressor* is whoever made the
last bet or raise of the previous street (preflop: the last raiser); none if it had none.

* ``cbet``: bets / the previous aggressor's first decision of the street, no bet yet;
* ``donk``: bets / the first decision of another player with no bet yet, the previous
  aggressor being in the hand and yet to act on the street;
* ``fold_to_cbet.<bucket>``: folds / a player's first decision facing the c-bet, nobody
  having raised it; the bucket is the c-bet's size over the pot at the start of the
  street: ``small`` under 0.4, ``medium`` 0.4 to 0.8, ``large`` over 0.8;
* ``check_raise``: raises / a player's first decision facing exactly one bet after
  checking on the street;
* ``aggression``: bets and raises / bets, raises, calls and folds (the aggression
  frequency; checks do not count).

Showdown statistics (WTSD, W$SD) are the HUD's (:mod:`poolshark.pool.stats`).

:func:`count_record` is the readable reference over a :class:`HandRecord`;
:func:`count_hands` counts the same from a simulation's arrays in one compiled pass, and
the tests check they agree exactly. The wrappers with intervals live in ``stats``.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.engine.table import Move
from poolshark.histories.record import HandRecord
from poolshark.pool.simulate import FORCED, SimulatedHands

Int64s = npt.NDArray[np.int64]

POSITIONS = ("EP", "MP", "CO", "BTN", "SB", "BB")
"""Position names in :class:`poolshark.pool.context.Position` order."""
PREFLOP_SPOTS = (
    "open",
    "limp",
    "three_bet",
    "cold_call",
    "squeeze",
    "fold_to_three_bet",
    "four_bet",
)
STREETS = ("flop", "turn", "river")
BUCKETS = ("small", "medium", "large")
"""Facing-size buckets: bet / pot under 0.4, 0.4 to 0.8, over 0.8."""
POSTFLOP_SPOTS = ("cbet", "donk", "check_raise", "aggression")

N_POSITIONS = len(POSITIONS)
OPEN, LIMP, THREE_BET, COLD_CALL, SQUEEZE, FOLD_TO_THREE_BET, FOUR_BET = (
    i * N_POSITIONS for i in range(len(PREFLOP_SPOTS))
)
POSTFLOP_BASE = len(PREFLOP_SPOTS) * N_POSITIONS
CBET, DONK, CHECK_RAISE, AGGRESSION = (POSTFLOP_BASE + 3 * i for i in range(4))
FOLD_TO_CBET = POSTFLOP_BASE + 3 * len(POSTFLOP_SPOTS)
N_SPOTS = FOLD_TO_CBET + len(STREETS) * len(BUCKETS)


def spot_names() -> tuple[str, ...]:
    """Every spot's name in index order: ``open.EP`` ... ``fold_to_cbet.river.large``."""
    names = [f"{spot}.{p}" for spot in PREFLOP_SPOTS for p in POSITIONS]
    names += [f"{spot}.{s}" for spot in POSTFLOP_SPOTS for s in STREETS]
    names += [f"fold_to_cbet.{s}.{b}" for s in STREETS for b in BUCKETS]
    assert len(names) == N_SPOTS
    return tuple(names)


SPOT_NAMES = spot_names()


@nb.njit(cache=True)
def six_max_position(seat: int, button: int, players: int) -> int:
    """Position index of ``seat`` (EP 0 ... BB 5), or -1 for a seat with more than five
    players behind it preflop (only at tables of seven or more)."""
    offset = (seat - button) % players
    if players == 2:
        return 3 if offset == 0 else 5
    if offset < 3:
        return 3 + offset
    if offset < players - 3:
        return -1
    return offset - (players - 3)


@nb.njit(cache=True)
def size_bucket(bet: int, pot: int) -> int:
    """Bucket of a bet of ``bet`` chips into ``pot``: 0 under 0.4 pot, 1 up to 0.8, else 2
    (in integers, so both counters agree to the chip)."""
    if 5 * bet < 2 * pot:
        return 0
    if 5 * bet <= 4 * pot:
        return 1
    return 2


def count_record(record: HandRecord, hits: Int64s, chances: Int64s) -> None:
    """Add one hand's spot counts to ``hits`` and ``chances`` (each ``(N_SPOTS,)``)."""
    n = record.players
    position = [six_max_position(p, record.button, n) for p in range(n)]
    put = [0] * n  # chips in this street (live blinds count preflop)
    pot = sum(record.dead)  # chips from earlier streets, and dead money
    for p in range(n):
        put[p] = record.blinds[p]
    folded = [False] * n
    voluntary = [False] * n
    acted = [False] * n
    facing_one = [False] * n
    facing_two = [False] * n
    raises = limps = callers = 0
    first_raiser = second_raiser = last_raiser = -1
    street = 0
    previous = -1
    street_bets = 0
    cbet_bucket = -1
    acted_street = [False] * n
    checked = [False] * n
    faced_cbet = [False] * n
    check_raise_seen = [False] * n
    for action in record.actions:
        p, move, amount = action.player, action.move, action.amount
        raising = move is Move.RAISE
        calling = move is Move.CHECK_CALL and amount > 0
        while street < action.street:  # a new street: the last raiser becomes "previous"
            street += 1
            previous = last_raiser
            last_raiser = -1
            pot += sum(put)
            put = [0] * n
            street_bets = 0
            cbet_bucket = -1
            acted_street = [False] * n
            checked = [False] * n
            faced_cbet = [False] * n
            check_raise_seen = [False] * n
        if street == 0:
            at = position[p]
            if at >= 0 and not acted[p] and raises == 0 and limps == 0:
                chances[OPEN + at] += 1
                chances[LIMP + at] += 1
                hits[OPEN + at] += raising
                hits[LIMP + at] += calling
            if raises == 1 and p != first_raiser and not facing_one[p]:
                facing_one[p] = True
                if at >= 0:
                    chances[THREE_BET + at] += 1
                    hits[THREE_BET + at] += raising
                    if not voluntary[p]:
                        chances[COLD_CALL + at] += 1
                        hits[COLD_CALL + at] += calling
                        if callers > 0:
                            chances[SQUEEZE + at] += 1
                            hits[SQUEEZE + at] += raising
            if raises == 2 and p != second_raiser and not facing_two[p]:
                facing_two[p] = True
                if at >= 0:
                    chances[FOUR_BET + at] += 1
                    hits[FOUR_BET + at] += raising
                    if p == first_raiser:
                        chances[FOLD_TO_THREE_BET + at] += 1
                        hits[FOLD_TO_THREE_BET + at] += move is Move.FOLD
            acted[p] = True
            if raising:
                raises += 1
                if raises == 1:
                    first_raiser = p
                elif raises == 2:
                    second_raiser = p
            elif calling:
                if raises == 0:
                    limps += 1
                elif raises == 1:
                    callers += 1
            voluntary[p] = voluntary[p] or raising or calling
        else:
            s = street - 1
            first = not acted_street[p]
            if first and street_bets == 0:
                if p == previous:
                    chances[CBET + s] += 1
                    hits[CBET + s] += raising
                elif previous >= 0 and not folded[previous] and not acted_street[previous]:
                    chances[DONK + s] += 1
                    hits[DONK + s] += raising
            if cbet_bucket >= 0 and street_bets == 1 and p != previous and not faced_cbet[p]:
                faced_cbet[p] = True
                index = FOLD_TO_CBET + 3 * s + cbet_bucket
                chances[index] += 1
                hits[index] += move is Move.FOLD
            if checked[p] and street_bets == 1 and not check_raise_seen[p]:
                check_raise_seen[p] = True
                chances[CHECK_RAISE + s] += 1
                hits[CHECK_RAISE + s] += raising
            if raising or calling or move is Move.FOLD:
                chances[AGGRESSION + s] += 1
                hits[AGGRESSION + s] += raising
            if raising and street_bets == 0 and p == previous:
                cbet_bucket = size_bucket(amount - put[p], pot + sum(put))
            if move is Move.CHECK_CALL and street_bets == 0:
                checked[p] = True
            if raising:
                street_bets += 1
            acted_street[p] = True
        if raising:
            last_raiser = p
            put[p] = amount
        elif calling:
            put[p] += amount
        folded[p] = folded[p] or move is Move.FOLD


def count_hands(hands: SimulatedHands, hits: Int64s, chances: Int64s) -> None:
    """Add the spot counts of every simulated hand: what :func:`count_record` adds over
    ``hands.records()``, from the arrays."""
    _count_kernel(
        hands.seats,
        hands.config.small_blind,
        hands.config.big_blind,
        hands.button,
        hands.action_start,
        hands.action_seat,
        hands.action_move,
        hands.action_amount,
        hands.action_street,
        hands.action_flags,
        hits,
        chances,
    )


@nb.njit(cache=True, nogil=True)
def _count_kernel(
    n: int,
    small_blind: int,
    big_blind: int,
    buttons: Int64s,
    start: Int64s,
    a_seat: Int64s,
    a_move: Int64s,
    a_amount: Int64s,
    a_street: Int64s,
    a_flags: npt.NDArray[np.uint8],
    hits: Int64s,
    chances: Int64s,
) -> None:
    position = np.zeros(n, dtype=np.int64)
    put = np.zeros(n, dtype=np.int64)
    folded = np.zeros(n, dtype=np.bool_)
    voluntary = np.zeros(n, dtype=np.bool_)
    acted = np.zeros(n, dtype=np.bool_)
    facing_one = np.zeros(n, dtype=np.bool_)
    facing_two = np.zeros(n, dtype=np.bool_)
    acted_street = np.zeros(n, dtype=np.bool_)
    checked = np.zeros(n, dtype=np.bool_)
    faced_cbet = np.zeros(n, dtype=np.bool_)
    check_raise_seen = np.zeros(n, dtype=np.bool_)
    for h in range(start.size - 1):
        button = buttons[h]
        for p in range(n):
            position[p] = six_max_position(p, button, n)
        put[:] = 0
        small = button if n == 2 else (button + 1) % n
        put[small] = small_blind
        put[(small + 1) % n] = big_blind
        pot = 0
        folded[:] = False
        voluntary[:] = False
        acted[:] = False
        facing_one[:] = False
        facing_two[:] = False
        acted_street[:] = False
        checked[:] = False
        faced_cbet[:] = False
        check_raise_seen[:] = False
        raises = limps = callers = 0
        first_raiser = second_raiser = last_raiser = -1
        street = 0
        previous = -1
        street_bets = 0
        cbet_bucket = -1
        for a in range(start[h], start[h + 1]):
            if a_flags[a] & FORCED:
                continue
            p, move, amount = a_seat[a], a_move[a], a_amount[a]
            raising = move == 2
            calling = move == 1 and amount > 0
            while street < a_street[a]:
                street += 1
                previous = last_raiser
                last_raiser = -1
                pot += put.sum()
                put[:] = 0
                street_bets = 0
                cbet_bucket = -1
                acted_street[:] = False
                checked[:] = False
                faced_cbet[:] = False
                check_raise_seen[:] = False
            if street == 0:
                at = position[p]
                if at >= 0 and not acted[p] and raises == 0 and limps == 0:
                    chances[OPEN + at] += 1
                    chances[LIMP + at] += 1
                    hits[OPEN + at] += raising
                    hits[LIMP + at] += calling
                if raises == 1 and p != first_raiser and not facing_one[p]:
                    facing_one[p] = True
                    if at >= 0:
                        chances[THREE_BET + at] += 1
                        hits[THREE_BET + at] += raising
                        if not voluntary[p]:
                            chances[COLD_CALL + at] += 1
                            hits[COLD_CALL + at] += calling
                            if callers > 0:
                                chances[SQUEEZE + at] += 1
                                hits[SQUEEZE + at] += raising
                if raises == 2 and p != second_raiser and not facing_two[p]:
                    facing_two[p] = True
                    if at >= 0:
                        chances[FOUR_BET + at] += 1
                        hits[FOUR_BET + at] += raising
                        if p == first_raiser:
                            chances[FOLD_TO_THREE_BET + at] += 1
                            hits[FOLD_TO_THREE_BET + at] += move == 0
                acted[p] = True
                if raising:
                    raises += 1
                    if raises == 1:
                        first_raiser = p
                    elif raises == 2:
                        second_raiser = p
                elif calling:
                    if raises == 0:
                        limps += 1
                    elif raises == 1:
                        callers += 1
                voluntary[p] = voluntary[p] or raising or calling
            else:
                s = street - 1
                first = not acted_street[p]
                if first and street_bets == 0:
                    if p == previous:
                        chances[CBET + s] += 1
                        hits[CBET + s] += raising
                    elif previous >= 0 and not folded[previous] and not acted_street[previous]:
                        chances[DONK + s] += 1
                        hits[DONK + s] += raising
                if cbet_bucket >= 0 and street_bets == 1 and p != previous and not faced_cbet[p]:
                    faced_cbet[p] = True
                    index = FOLD_TO_CBET + 3 * s + cbet_bucket
                    chances[index] += 1
                    hits[index] += move == 0
                if checked[p] and street_bets == 1 and not check_raise_seen[p]:
                    check_raise_seen[p] = True
                    chances[CHECK_RAISE + s] += 1
                    hits[CHECK_RAISE + s] += raising
                if raising or calling or move == 0:
                    chances[AGGRESSION + s] += 1
                    hits[AGGRESSION + s] += raising
                if raising and street_bets == 0 and p == previous:
                    cbet_bucket = size_bucket(amount - put[p], pot + put.sum())
                if move == 1 and street_bets == 0:
                    checked[p] = True
                if raising:
                    street_bets += 1
                acted_street[p] = True
            if raising:
                last_raiser = p
                put[p] = amount
            elif calling:
                put[p] += amount
            folded[p] = folded[p] or move == 0
