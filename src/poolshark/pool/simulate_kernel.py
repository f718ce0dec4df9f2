"""The compiled loop of pool simulation: fast-fold hands of a style bank on the engine.

:func:`play_kernel` plays hands at many tables of the batched engine's arrays in one
compiled call: each decision's context comes from ``pool.context.fill_features`` and its
action from ``pool.policy.sample_kernel`` for the style of the player in that seat; every
finished hand is written out (cards, stacks, the action log with its flags, results) and
the table is seated with fresh players from the pool and dealt again.
``pool.simulate.Simulator`` drives it.

It stays a compiled loop rather than a face over ``play.loop``: the loop sits above the
agents (the pool sits below them), it plays these styles slower (measured, CPU time of
20,000 hands of micro-zoom: this kernel 20,300-20,700 hands/s, the same styles as
``StyleAgent.from_pool`` through ``play_match`` 10,500-13,100, 1.6 to 2.0 times slower,
though the kernel also logs every hand and seats distinct players), and the simulation's
output (distinct players per hand, the action flags) is not what a match books.
``tests/test_play_loop.py`` checks that both play a pool alike (the same preflop
frequencies).
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.engine.batched import deal, next_random, random_below
from poolshark.engine.kernel import (
    BET,
    BUTTON,
    COERCED,
    DONE,
    FOLDED,
    LOG_AMOUNT,
    LOG_LEN,
    LOG_MOVE,
    LOG_SEAT,
    LOG_STREET,
    NET,
    SETTLING,
    SHOWDOWN,
    SHOWN,
    STACK,
    START,
    STREET,
    TO_ACT,
    TOTAL,
    Evaluator,
    Rules,
    act,
    settle,
    start_hand,
)
from poolshark.pool.context import N_FEATURES, fill_features
from poolshark.pool.policy import sample_kernel
from poolshark.pool.strength import StrengthCache

Int64s = npt.NDArray[np.int64]
UInt8s = npt.NDArray[np.uint8]
Bools = npt.NDArray[np.bool_]


@nb.njit(inline="always")
def _uniform(rng: npt.NDArray[np.uint64], i: int) -> float:
    """A float in [0, 1) from table ``i``'s stream (53 random bits)."""
    return float(next_random(rng, i) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(inline="always")
def _random_index(rng: npt.NDArray[np.uint64], i: int, bound: int) -> int:
    """A uniform int64 in [0, bound) from table ``i``'s stream (never uint64, whose
    arithmetic with int64 numba turns into floats)."""
    return int(np.int64(random_below(rng, i, bound)))


@nb.njit(cache=True, nogil=True)
def play_kernel(
    r: Rules,
    seat: Int64s,
    table: Int64s,
    cards: UInt8s,
    log: Int64s,
    flags: UInt8s,
    expected: npt.NDArray[np.float64],
    rng: npt.NDArray[np.uint64],
    ev: Evaluator,
    raise_weight: npt.NDArray[np.float64],
    continue_weight: npt.NDArray[np.float64],
    params: npt.NDArray[np.float64],
    sizes: npt.NDArray[np.float64],
    size_weights: npt.NDArray[np.float64],
    memo: StrengthCache,
    combo_index: npt.NDArray[np.int16],
    combo_cards: UInt8s,
    has_straight: Bools,
    player_styles: Int64s,
    low: int,
    high: int,
    seated: Int64s,
    cursor: Int64s,
    done: int,
    wanted: int,
    out_button: Int64s,
    out_players: Int64s,
    out_stacks: Int64s,
    out_cards: UInt8s,
    out_shown: Int64s,
    out_showdown: Bools,
    out_total: Int64s,
    out_net: Int64s,
    out_start: Int64s,
    a_seat: Int64s,
    a_move: Int64s,
    a_amount: Int64s,
    a_street: Int64s,
    a_flags: UInt8s,
) -> tuple[int, int, int]:
    """Step the tables round-robin until hand ``wanted`` is finished or the action arrays
    are nearly full; returns (hands finished in all, actions written now, status: 1 when a
    log overflowed). Finished hands are written at index ``done`` onwards."""
    n_tables = table.shape[0]
    seats = r.seats
    width = log.shape[1]
    players = player_styles.size
    style = np.zeros(1, dtype=np.int64)
    features = np.zeros((1, N_FEATURES))
    hole = np.zeros((1, 2), dtype=np.int64)
    board = np.zeros((1, 5), dtype=np.int64)
    uniform = np.zeros(1)
    move = np.zeros(1, dtype=np.int64)
    amount = np.zeros(1, dtype=np.int64)
    written = 0
    capacity = a_seat.size
    while done < wanted and written + width <= capacity:
        i = cursor[0]
        cursor[0] = (i + 1) % n_tables
        if table[i, STREET] == DONE:
            for s in range(seats):
                while True:
                    player = _random_index(rng, i, players)
                    clash = False
                    for t in range(s):
                        clash = clash or seated[i, t] == player
                    if not clash:
                        break
                seated[i, s] = player
                stack = low
                if high > low:
                    stack += _random_index(rng, i, high - low + 1)
                seat[i, START, s] = stack
            button = _random_index(rng, i, seats)
            deal(cards, rng, i)
            start_hand(r, seat[i], table[i], button)
        else:
            who = table[i, TO_ACT]
            k = table[i, LOG_LEN]
            stuck = True
            for s in range(seats):
                if s != who and seat[i, FOLDED, s] == 0 and seat[i, STACK, s] > 0:
                    stuck = False
            stack_before = seat[i, STACK, who]
            bet_before = seat[i, BET, who]
            fill_features(
                seats,
                r.big_blind,
                r.straddle,
                table[i, BUTTON],
                who,
                table[i, STREET],
                seat[i, STACK],
                seat[i, BET],
                seat[i, TOTAL].sum(),
                log[i, :, LOG_SEAT],
                log[i, :, LOG_MOVE],
                log[i, :, LOG_AMOUNT],
                log[i, :, LOG_STREET],
                k,
                features[0],
            )
            style[0] = player_styles[seated[i, who]]
            hole[0, 0] = cards[i, 2 * who]
            hole[0, 1] = cards[i, 2 * who + 1]
            for b in range(5):
                board[0, b] = cards[i, 2 * seats + b]
            uniform[0] = _uniform(rng, i)
            sample_kernel(
                raise_weight,
                continue_weight,
                params,
                sizes,
                size_weights,
                style,
                features,
                hole,
                board,
                uniform,
                memo,
                combo_index,
                combo_cards,
                ev.card_key,
                ev.card_mask,
                ev.row_base,
                ev.rank_table,
                ev.flush_table,
                has_straight,
                move,
                amount,
            )
            act(r, seat[i], table[i], log[i], move[0], amount[0])
            if k < width:
                logged_move, logged = log[i, k, LOG_MOVE], log[i, k, LOG_AMOUNT]
                chips = logged if logged_move == 1 else logged - bet_before
                flag = 0
                if logged_move != 0 and chips > 0 and chips == stack_before:
                    flag |= 1
                if logged_move == 1 and logged == 0 and stuck:
                    flag |= 2
                flags[i, k] = flag
        if table[i, STREET] == SETTLING:
            settle(r, seat[i], table[i], cards[i], expected[i], ev)
            length = table[i, LOG_LEN]
            if length > width:
                return done, written, 1
            out_button[done] = table[i, BUTTON]
            for s in range(seats):
                out_players[done, s] = seated[i, s]
                out_stacks[done, s] = seat[i, START, s]
                out_total[done, s] = seat[i, TOTAL, s]
                out_net[done, s] = seat[i, NET, s]
            for c in range(cards.shape[1]):
                out_cards[done, c] = cards[i, c]
            out_shown[done] = table[i, SHOWN]
            out_showdown[done] = table[i, SHOWDOWN] == 1
            for k in range(length):
                a_seat[written] = log[i, k, LOG_SEAT]
                a_move[written] = log[i, k, LOG_MOVE]
                a_amount[written] = log[i, k, LOG_AMOUNT]
                a_street[written] = log[i, k, LOG_STREET]
                a_flags[written] = flags[i, k]
                written += 1
            cursor[1] += table[i, COERCED]
            done += 1
            out_start[done] = written
    return done, written, 0


@nb.njit(cache=True, nogil=True)
def show_cards(
    seats: int,
    showdown: Bools,
    total: Int64s,
    button: Int64s,
    values: Int64s,
    action_start: Int64s,
    a_seat: Int64s,
    a_move: Int64s,
    a_street: Int64s,
    a_flags: UInt8s,
    forced_flag: int,
    styles: Int64s,
    muck_losing: npt.NDArray[np.float64],
    show_uncontested: npt.NDArray[np.float64],
    uniforms: npt.NDArray[np.float64],
    showed: Bools,
) -> None:
    """Fill ``showed`` (N, seats): whose hole cards each finished hand shows, by the site's
    showdown rules (``pool.simulate``'s docstring states them) and each seat's style
    (``muck_losing``, ``show_uncontested`` per style index). ``values`` are the seats'
    showdown values (``stars_text.showdown_values``); ``uniforms`` (N, seats) the draws in
    [0, 1), one per hand and seat whether used or not, so the draws never shift."""
    folded = np.zeros(seats, dtype=np.bool_)
    for h in range(showdown.size):
        for s in range(seats):
            folded[s] = False
            showed[h, s] = False
        last_street = 0
        raiser = -1
        for a in range(action_start[h], action_start[h + 1]):
            if a_move[a] == 0:
                folded[a_seat[a]] = True
            if a_flags[a] & forced_flag:
                continue
            if a_street[a] != last_street:
                raiser = -1
            last_street = a_street[a]
            if a_move[a] == 2:
                raiser = a_seat[a]
        if not showdown[h]:
            for s in range(seats):
                if not folded[s]:
                    showed[h, s] = uniforms[h, s] < show_uncontested[styles[h, s]]
            continue
        if last_street < 3:  # all-in before the river: every live hand is turned up
            for s in range(seats):
                showed[h, s] = not folded[s]
            continue
        top = 0
        second = 0  # the two largest contributions of live players: the top contested level
        for s in range(seats):
            if folded[s]:
                continue
            if total[h, s] > top:
                second = top
                top = total[h, s]
            elif total[h, s] > second:
                second = total[h, s]
        first = raiser if raiser >= 0 and not folded[raiser] else (button[h] + 1) % seats
        for j in range(seats):
            s = (first + j) % seats
            if folded[s]:
                continue
            level = min(total[h, s], second)
            beaten = False
            for q in range(seats):
                if showed[h, q] and total[h, q] >= level and values[h, q] > values[h, s]:
                    beaten = True
            showed[h, s] = not beaten or uniforms[h, s] >= muck_losing[styles[h, s]]
