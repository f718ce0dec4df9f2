"""The settlement check, compiled: board, pot, rake and winnings of many hands at once.

After the row pass (``rows.track``) has followed a hand's betting to its end, what is left
of the engine replay's judgement (``replay.judge``) is the outcome: the board must have as
many cards as the hand dealt, the pot the history states must be the chips put in, the
rake must fit in the pot, and the winnings must be what the rules pay. The rules are the
engine's, paid by its compiled rules kernel (``kernel.layer_pots``, ``kernel.award_pots``;
``engine.pots`` is their readable reference): pots layered by the live players'
contributions (dead chips above every live level join the last pot), rake from the main
pot first, each pot to the best hand among those eligible (unknown cards lose), odd chips
one by one clockwise from the button's left. A pot contested only by unknown hands may
go to whoever the history says, as long as they were still in the hand.

:func:`settle` answers per hand: 0 when the replay would accept the hand as it is (and
without a warning), or the first check that fails. A nonzero answer is not a verdict:
the caller hands the hand to ``replay.judge``, which gives the reason (or accepts it with
a warning). The tests compare this check with ``judge`` on real and random hands.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.evaluator import KEY_INIT, tables, value_of
from poolshark.engine.kernel import award_pots, layer_pots
from poolshark.histories.fast_phh import RAKE_FROM_POT
from poolshark.histories.flat import HandArrays
from poolshark.histories.rows import Tracked

Int64s = npt.NDArray[np.int64]
Int16s = npt.NDArray[np.int16]
Int8s = npt.NDArray[np.int8]
UInt16s = npt.NDArray[np.uint16]
Int32s = npt.NDArray[np.int32]

#: What a nonzero :func:`settle` code means.
SETTLE_CODES = {
    1: "the row pass could not follow the betting",
    2: "something only the engine replay judges (a second board, odd card lists)",
    3: "a card that is not one, or one dealt twice",
    4: "the board does not have the cards the hand dealt",
    5: "the stated pot is not the chips put in",
    6: "the winnings exceed the pot",
    7: "the rake exceeds the pot",
    8: "the winnings are not the pot less the rake",
    9: "the winnings are not what the rules pay",
}
_SHOWN = (0, 3, 4, 5)


def settle(arrays: HandArrays, tracked: Tracked) -> Int8s:
    """Per hand: 0 if its outcome is what the history says, else a key of SETTLE_CODES."""
    t = tables()
    return _settle_hands(
        arrays.seat_start,
        arrays.button,
        arrays.board,
        arrays.board_size,
        arrays.total_pot,
        arrays.rake,
        arrays.has_winnings,
        arrays.needs_reference,
        arrays.hole,
        arrays.winnings,
        tracked.error,
        tracked.final_total,
        tracked.final_folded,
        tracked.final_street,
        t.card_key,
        t.card_mask,
        t.row_base,
        t.rank_table,
        t.flush_table,
    )


@nb.njit(cache=True, nogil=True)
def _settle_hands(
    seat_start: Int64s,
    button: Int64s,
    board: Int16s,
    board_size: Int64s,
    total_pot: Int64s,
    rake_of: Int64s,
    has_winnings: Int8s,
    needs_reference: Int8s,
    hole: Int16s,
    winnings: Int64s,
    track_error: Int8s,
    final_total: Int64s,
    final_folded: Int8s,
    final_street: Int8s,
    card_key: Int64s,
    card_mask: Int64s,
    row_base: Int32s,
    rank_table: UInt16s,
    flush_table: UInt16s,
) -> Int8s:
    hands = button.shape[0]
    out = np.zeros(hands, np.int8)
    value = np.zeros(10, np.int64)
    paid = np.zeros(10, np.int64)
    pot_amount = np.zeros(11, np.int64)
    pot_level = np.zeros(11, np.int64)
    used = np.zeros(52, np.int8)
    for h in range(hands):
        if track_error[h] != 0:
            out[h] = 1
            continue
        if needs_reference[h]:
            out[h] = 2
            continue
        base = seat_start[h]
        n = seat_start[h + 1] - base
        btn = button[h]
        # Cards: real and dealt once (the engine refuses the hand otherwise).
        used[:] = 0
        code = 0
        for c in range(min(board_size[h], 5)):
            card = board[h, c]
            if card < 0 or card > 51 or used[card]:
                code = 3
            else:
                used[card] = 1
        for s in range(n):
            for k in range(2):
                card = hole[base + s, k]
                if card < 0:
                    continue
                if card > 51 or used[card]:
                    code = 3
                else:
                    used[card] = 1
        if code:
            out[h] = code
            continue
        alive = 0
        pot = 0
        for s in range(n):
            alive += 1 - final_folded[base + s]
            pot += final_total[base + s]
        showdown = alive > 1
        shown = 5 if showdown else _SHOWN[final_street[h]]
        if board_size[h] != shown:
            out[h] = 4
            continue
        if total_pot[h] >= 0 and total_pot[h] != pot:
            out[h] = 5
            continue
        collected = 0
        for s in range(n):
            collected += winnings[base + s]
        rake = rake_of[h]
        if rake == RAKE_FROM_POT:
            rake = pot - collected
        if rake < 0:
            out[h] = 6
            continue
        if rake > pot:
            out[h] = 7
            continue
        if not has_winnings[h]:
            continue
        if collected != pot - rake:
            out[h] = 8
            continue
        # Hand values at showdown; unknown cards lose to everything.
        for s in range(n):
            value[s] = 0
            if showdown and not final_folded[base + s] and hole[base + s, 0] >= 0:
                key = np.int64(KEY_INIT)
                mask = np.int64(0)
                for k in range(2):
                    key += card_key[hole[base + s, k]]
                    mask |= card_mask[hole[base + s, k]]
                for c in range(5):
                    key += card_key[board[h, c]]
                    mask |= card_mask[board[h, c]]
                value[s] = value_of(key, mask, row_base, rank_table, flush_table)
        # Pots layered by the live players' contributions, rake from the main pot first,
        # each to its best hands with odd chips clockwise from the button's left: the
        # rules kernel's settlement.
        total = final_total[base : base + n]
        folded = final_folded[base : base + n]
        pots = layer_pots(total, folded, pot, rake, pot_level, pot_amount)
        paid[:n] = 0
        award_pots(btn, total, folded, value[:n], pot_level, pot_amount, pots, paid[:n])
        # Pots only unknown hands contest: the rules cannot name their winner.
        undecided = False
        for k in range(pots):
            eligible = 0
            known = 0
            for s in range(n):
                if not folded[s] and total[s] >= pot_level[k]:
                    eligible += 1
                    known += hole[base + s, 0] >= 0
            if eligible > 1 and known == 0:
                undecided = True
        same = True
        for s in range(n):
            same &= paid[s] == winnings[base + s]
        if same:
            continue
        if undecided:
            for s in range(n):
                if winnings[base + s] > 0 and final_folded[base + s]:
                    undecided = False
        if not undecided:
            out[h] = 9
    return out
