"""The nine bet features of the network player: the betting as it would stand after a call
and after a raise (a fold needs none: nothing after it changes the folder's result).

Features, in this order (chips in small bets, the preflop bet unit; see ``docs/limit.md``):

0. ``opponents``: active (not folded) opponents.
1. ``ends_stage``: 1 when the action closes the betting round.
2. ``pot``: every chip in the middle after the action.
3. ``owed``: chips the active opponents must add to call the bet after the action (capped
   by their stacks).
4. ``fair_share``: the pot after everyone calls, split equally among the active players.
5. ``to_act_now``: opponents sure to act again this round.
6. ``to_act_next``: active opponents acting after this player on the next round (0 on the
   river).
7. ``heads_up``: 1 when only two players are active.
8. ``bets_to_cap``: bets and raises still allowed this round after the action (the cap when
   the round is uncapped, heads-up).

:func:`table_bet_features` is the readable reference on an engine
:class:`~poolshark.engine.table.Table`; :func:`batch_bet_features` computes the same for
many tables of a :class:`~poolshark.engine.batched.BatchedTables` in one compiled pass
(``tests/test_limitnet_bet_features.py`` compares them on random hands). The direct cost
of each option (chips put in now) is returned beside the features: the action function
prices it with its own weight.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import Decisions
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.kernel import (
    ACTED,
    BET,
    BUTTON,
    CURRENT_BET,
    FOLDED,
    RAISES,
    RIVER,
    STACK,
    STREET,
    TO_ACT,
    TOTAL,
)
from poolshark.engine.table import Table

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

BET_FEATURES = (
    "opponents",
    "ends_stage",
    "pot",
    "owed",
    "fair_share",
    "to_act_now",
    "to_act_next",
    "heads_up",
    "bets_to_cap",
)
"""Names of the nine bet features, in vector order."""

CALL, RAISE_OPTION = 0, 1
"""Option rows of a (2, 9) feature block: after a call, after a raise."""


def legal_actions(decisions: Decisions) -> Bools:
    """(D, 3) which of fold, call (check), raise are allowed: folding only facing a bet
    (a free fold would be a check), raising until the round's cap or the game's decision
    cap closes it."""
    return np.stack(
        [decisions.call > 0, np.ones(decisions.size, dtype=bool), decisions.min_raise_to >= 0],
        axis=1,
    )


def taken_actions(legal: Bools, moves: npt.ArrayLike) -> Int64s:
    """The fold / call / raise the engine applies for requested ``moves``: an illegal
    request becomes a call (a free fold checks, an unavailable raise calls)."""
    actions = np.asarray(moves, dtype=np.int64).copy()
    actions[~legal[np.arange(actions.size), actions]] = 1
    return actions


def table_bet_features(table: Table) -> tuple[Floats, Floats]:
    """((2, 9) features after a call and after a raise, (2,) direct costs in small bets)
    for the player to act at ``table``, a fixed-limit hand in progress (readable reference).

    The raise row describes a raise of one bet unit (all-in when short); when raising is
    not allowed it is what a raise would give if it were (the action function masks it).
    """
    config = table.config
    unit = config.bet_unit(0)
    me = table.to_act
    n = config.seats
    opponents = [s for s in range(n) if s != me and not table.folded[s]]
    most = table.bet[me] + table.stack[me]
    raise_to = min(table.current_bet + config.bet_unit(table.street), most)
    features = np.zeros((2, 9))
    costs = np.zeros(2)
    for option, bet_to in ((CALL, table.current_bet), (RAISE_OPTION, raise_to)):
        paid = min(bet_to - table.bet[me], table.stack[me])
        pot = table.pot() + paid
        owed = sum(max(0, min(bet_to - table.bet[s], table.stack[s])) for s in opponents)
        if option == CALL:
            waiting = [
                s
                for s in opponents
                if table.stack[s] > 0 and not (table.acted[s] and table.bet[s] == bet_to)
            ]
        else:
            waiting = [s for s in opponents if table.stack[s] > 0]
        ends = option == CALL and not waiting
        heads_up = len(opponents) == 1
        raises = table.raises + (option == RAISE_OPTION)
        capped = not heads_up or config.cap_heads_up
        to_cap = max(0, config.raise_cap - raises) if capped else config.raise_cap
        features[option] = (
            len(opponents),
            float(ends),
            pot / unit,
            owed / unit,
            (pot + owed) / (len(opponents) + 1) / unit,
            len(waiting),
            _acting_after_next(table.button, me, opponents, n) if table.street < RIVER else 0,
            float(heads_up),
            to_cap,
        )
        costs[option] = paid / unit
    return features, costs


def _acting_after_next(button: int, me: int, opponents: list[int], seats: int) -> int:
    """Opponents who act after ``me`` on a postflop round (order starts left of the button)."""
    mine = (me - button - 1) % seats
    return sum((s - button - 1) % seats > mine for s in opponents)


def batch_bet_features(batch: BatchedTables, tables: Int64s) -> tuple[Floats, Floats]:
    """((D, 2, 9) features, (D, 2) costs) for the player to act at each of ``tables``
    (compiled; equal to :func:`table_bet_features` on the same states)."""
    config: GameConfig = batch.config
    features = np.zeros((tables.size, 2, 9))
    costs = np.zeros((tables.size, 2))
    _batch_features(
        batch.seat,
        batch.table,
        np.ascontiguousarray(tables, dtype=np.int64),
        config.seats,
        config.bet_unit(0),
        config.bet_unit(2),
        config.raise_cap,
        int(config.cap_heads_up),
        features,
        costs,
    )
    return features, costs


@nb.njit(cache=True, nogil=True)
def _batch_features(
    seat: Int64s,
    table: Int64s,
    tables: Int64s,
    n: int,
    small_bet: int,
    big_bet: int,
    raise_cap: int,
    cap_heads_up: int,
    features: Floats,
    costs: Floats,
) -> None:
    for row in range(tables.size):
        t = tables[row]
        s_ = seat[t]
        me = table[t, TO_ACT]
        street = table[t, STREET]
        button = table[t, BUTTON]
        current = table[t, CURRENT_BET]
        unit = small_bet if street < 2 else big_bet
        opponents = 0
        pot = 0
        for s in range(n):
            pot += s_[TOTAL, s]
            if s != me and s_[FOLDED, s] == 0:
                opponents += 1
        capped = opponents != 1 or cap_heads_up
        raise_to = min(current + unit, s_[BET, me] + s_[STACK, me])
        mine = (me - button - 1) % n
        after_next = 0
        if street < RIVER:
            for s in range(n):
                if s != me and s_[FOLDED, s] == 0 and (s - button - 1) % n > mine:
                    after_next += 1
        for option in range(2):
            bet_to = current if option == 0 else raise_to
            paid = min(bet_to - s_[BET, me], s_[STACK, me])
            owed = 0
            waiting = 0
            for s in range(n):
                if s == me or s_[FOLDED, s] != 0:
                    continue
                owed += max(0, min(bet_to - s_[BET, s], s_[STACK, s]))
                if s_[STACK, s] > 0 and (
                    option == 1 or not (s_[ACTED, s] != 0 and s_[BET, s] == bet_to)
                ):
                    waiting += 1
            raises = table[t, RAISES] + option
            to_cap = max(0, raise_cap - raises) if capped else raise_cap
            f = features[row, option]
            f[0] = opponents
            f[1] = 1.0 if option == 0 and waiting == 0 else 0.0
            f[2] = (pot + paid) / small_bet
            f[3] = owed / small_bet
            f[4] = (pot + paid + owed) / (opponents + 1) / small_bet
            f[5] = waiting
            f[6] = after_next
            f[7] = 1.0 if opponents == 1 else 0.0
            f[8] = to_cap
            costs[row, option] = paid / small_bet
