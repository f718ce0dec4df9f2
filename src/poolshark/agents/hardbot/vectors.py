"""Hand vectors (strength, E, E2, PPOT, NPOT) against a weighted range, by compiled Monte Carlo.

The exact reference is :func:`poolshark.equity.features.hand_features` (same definitions,
same card-removal weighting); this module trades exactness for speed so that HaRDBot can
vectorize all ~1,000 of an opponent's hands on every street and the corpus builder can
vectorize every decision of 200,000 hands.

* **River** (5 board cards): exact. Strength = E = the weighted share of the range we beat
  (ties half), E2 = E^2, both potentials 0.
* **Flop and turn**: every possible next card ``c`` is enumerated and weighted by its chance
  given the range (the range mass of combos not holding ``c``); under each, ``samples``
  opponent combos are drawn from the range (card removal applied) and, on the flop, a river
  card uniformly from the rest. The equity under ``c`` is the mean pot share of those
  samples; E is the chance-weighted mean of those equities and E2 the chance-weighted mean
  of their squares, each square estimated without bias as ``(S^2 - sum x_i^2) / (m (m-1))``
  from the m shares ``x_i`` (so E2 has no ``var/m`` upward bias). Strength, PPOT and NPOT
  come from the same samples (current and final outcome of each).
* **Preflop** (no board): E = strength = the equity against the range (``samples`` random
  opponent combos and boards per hand), E2 = E^2, potentials 0; HaRDBot does not use
  preflop vectors (it treats preflop hands one by one, as the seed does).

Columns of the result: :data:`STRENGTH`, :data:`E`, :data:`E2`, :data:`PPOT`, :data:`NPOT`.
The compiled kernels draw with the legacy ``np.random`` functions (all numba supports),
seeded per call.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.card import N_CARDS
from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX, N_COMBOS
from poolshark.cards.evaluator import tables as evaluator_tables
from poolshark.cards.evaluator import value_of
from poolshark.equity.result import EquityError

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

STRENGTH, E, E2, PPOT, NPOT = range(5)
VECTOR = (E, E2, PPOT, NPOT)
"""The columns that make a hand's vector (the seed's E, E2, PPOT, NPOT)."""
DEFAULT_SAMPLES = 8
"""Opponent samples per next card (flop/turn) or per hand /8 (preflop, see below)."""
PREFLOP_SAMPLES_PER_UNIT = 32
POOL = 1 << 14
"""Most opponent combos pre-drawn by weight per board; rows sample from this pool (fewer
when few rows share the board: ``256 + 24 * samples * rows``)."""
"""Preflop runs ``samples * PREFLOP_SAMPLES_PER_UNIT`` random deals per hand."""

_COMBO_A = np.ascontiguousarray(COMBO_CARDS[:, 0].astype(np.int64))
_COMBO_B = np.ascontiguousarray(COMBO_CARDS[:, 1].astype(np.int64))
_COMBO_INDEX = np.ascontiguousarray(COMBO_INDEX.astype(np.int64))


@nb.njit(inline="always")
def _share(ours: np.uint16, theirs: np.uint16) -> float:
    if ours > theirs:
        return 1.0
    if ours == theirs:
        return 0.5
    return 0.0


@nb.njit(inline="always")
def _value(
    cards: npt.NDArray[np.int64],
    count: int,
    card_key: npt.NDArray[np.int64],
    card_mask: npt.NDArray[np.int64],
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
) -> np.uint16:
    key = np.int64(0x3333 << 32)
    mask = np.int64(0)
    for j in range(count):
        key += card_key[cards[j]]
        mask |= card_mask[cards[j]]
    return value_of(key, mask, row_base, rank_table, flush_table)


@nb.njit(inline="always")
def _draw_combo(pool: npt.NDArray[np.int64], dead: npt.NDArray[np.bool_]) -> int:
    """A combo from the board's pre-drawn pool avoiding ``dead`` cards (-1 after 200 misses).

    The pool holds combos drawn by weight once per board; a uniform pick from it is a draw
    from the range, and rejecting dead cards applies card removal.
    """
    for _ in range(200):
        combo = pool[np.random.randint(0, pool.size)]  # noqa: NPY002
        if not dead[_COMBO_A[combo]] and not dead[_COMBO_B[combo]]:
            return int(combo)
    return -1


@nb.njit(inline="always")
def _draw_uniform(dead: npt.NDArray[np.bool_]) -> int:
    """A uniformly random combo of two live cards (a random hand, card removal applied)."""
    first = np.random.randint(0, N_CARDS)  # noqa: NPY002
    while dead[first]:
        first = np.random.randint(0, N_CARDS)  # noqa: NPY002
    second = np.random.randint(0, N_CARDS)  # noqa: NPY002
    while dead[second] or second == first:
        second = np.random.randint(0, N_CARDS)  # noqa: NPY002
    return int(_COMBO_INDEX[first, second])


@nb.njit(inline="always")
def _bisect(cumulative: npt.NDArray[np.float64], target: float) -> int:
    """The first index whose cumulative weight exceeds ``target`` (clamped to the last)."""
    low, high = 0, cumulative.size - 1
    while low < high:
        middle = (low + high) >> 1
        if cumulative[middle] > target:
            high = middle
        else:
            low = middle + 1
    return low


@nb.njit(inline="always")
def _board_changed(boards: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64], i: int) -> bool:
    if lengths[i] != lengths[i - 1]:
        return True
    for j in range(lengths[i]):  # noqa: SIM110
        if boards[i, j] != boards[i - 1, j]:
            return True
    return False


@nb.njit(cache=True)
def _vectors(
    holes: npt.NDArray[np.int64],
    boards: npt.NDArray[np.int64],
    lengths: npt.NDArray[np.int64],
    weights: npt.NDArray[np.float64],
    samples: int,
    seed: int,
    uniform: bool,
    card_key: npt.NDArray[np.int64],
    card_mask: npt.NDArray[np.int64],
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    out: npt.NDArray[np.float64],
) -> None:
    """Per-row vectors (see :func:`hand_vectors`). ``uniform``: the range is every combo,
    so opponents are two random live cards, every next card is equally likely and the
    per-board range statistics are skipped (except the river's exact pass)."""
    np.random.seed(seed)  # noqa: NPY002
    n = holes.shape[0]
    cards = np.empty(7, dtype=np.int64)
    theirs = np.empty(7, dtype=np.int64)
    dead = np.zeros(N_CARDS, dtype=np.bool_)
    live = np.empty(N_COMBOS, dtype=np.float64)
    cumulative = np.empty(N_COMBOS, dtype=np.float64)
    card_mass = np.zeros(N_CARDS, dtype=np.float64)
    pool_buffer = np.zeros(POOL, dtype=np.int64)
    pool = pool_buffer[:1]
    river_values = np.zeros(N_COMBOS, dtype=np.uint16)
    board_dead = np.zeros(N_CARDS, dtype=np.bool_)
    board_total = 0.0
    for i in range(n):
        k = lengths[i]
        a, b = holes[i, 0], holes[i, 1]
        if i == 0 or _board_changed(boards, lengths, i):
            # Range statistics shared by every row on this board (rows are often sorted so).
            board_dead[:] = False
            for j in range(k):
                board_dead[boards[i, j]] = True
            board_total = 0.0
            card_mass[:] = 0.0
            for c in range(N_COMBOS if k == 5 or not uniform else 0):
                w = weights[c]
                if board_dead[_COMBO_A[c]] or board_dead[_COMBO_B[c]]:
                    w = 0.0
                live[c] = w
                board_total += w
                cumulative[c] = board_total
                card_mass[_COMBO_A[c]] += w
                card_mass[_COMBO_B[c]] += w
            run = 1
            while i + run < n and not _board_changed(boards, lengths, i + run):
                run += 1
            pool = pool_buffer[: min(POOL, 256 + 24 * samples * run)]
            if uniform and k < 5:
                board_total = 1.0
            elif board_total > 0.0:
                for j in range(pool.size):
                    pool[j] = _bisect(cumulative, np.random.random() * board_total)  # noqa: NPY002
            if k == 5:
                for j in range(5):
                    theirs[2 + j] = boards[i, j]
                for c in range(N_COMBOS):
                    if live[c] > 0.0:
                        theirs[0], theirs[1] = _COMBO_A[c], _COMBO_B[c]
                        river_values[c] = _value(
                            theirs, 7, card_key, card_mask, row_base, rank_table, flush_table
                        )
        dead[:] = board_dead
        dead[a] = True
        dead[b] = True
        both = live[_COMBO_INDEX[a, b]] if a != b else 0.0
        total = board_total - card_mass[a] - card_mass[b] + both  # combos clear of a and b
        if uniform and k < 5:
            total = 1.0
        if total <= 1e-12 * max(board_total, 1.0):
            out[i, :] = np.nan
            continue
        cards[0], cards[1] = a, b
        for j in range(k):
            cards[2 + j] = boards[i, j]
            theirs[2 + j] = boards[i, j]
        if k == 5:  # river: exact
            ours = _value(cards, 7, card_key, card_mask, row_base, rank_table, flush_table)
            won = 0.0
            for c in range(N_COMBOS):
                if live[c] > 0.0 and not dead[_COMBO_A[c]] and not dead[_COMBO_B[c]]:
                    won += live[c] * _share(ours, river_values[c])
            e = won / total
            out[i, 0], out[i, 1], out[i, 2], out[i, 3], out[i, 4] = e, e, e * e, 0.0, 0.0
            continue
        if k == 0:  # preflop: equity by random deals
            runs = samples * PREFLOP_SAMPLES_PER_UNIT
            won = 0.0
            done = 0
            for _ in range(runs):
                combo = _draw_uniform(dead) if uniform else _draw_combo(pool, dead)
                if combo < 0:
                    break
                oa, ob = _COMBO_A[combo], _COMBO_B[combo]
                dead[oa] = True
                dead[ob] = True
                drawn = 0
                while drawn < 5:
                    card = np.random.randint(0, N_CARDS)  # noqa: NPY002
                    if not dead[card]:
                        dead[card] = True
                        cards[2 + drawn] = card
                        theirs[2 + drawn] = card
                        drawn += 1
                theirs[0], theirs[1] = oa, ob
                ours = _value(cards, 7, card_key, card_mask, row_base, rank_table, flush_table)
                v = _value(theirs, 7, card_key, card_mask, row_base, rank_table, flush_table)
                won += _share(ours, v)
                done += 1
                for j in range(5):
                    dead[cards[2 + j]] = False
                dead[oa] = False
                dead[ob] = False
            e = won / max(done, 1)
            out[i, 0], out[i, 1], out[i, 2], out[i, 3], out[i, 4] = e, e, e * e, 0.0, 0.0
            continue
        # Flop or turn: the chance of each next card is the live mass of combos without it.
        ours_now = _value(cards, 2 + k, card_key, card_mask, row_base, rank_table, flush_table)
        chance_sum = 0.0
        e_sum = 0.0
        e2_sum = 0.0
        strength_sum = 0.0
        table = np.zeros((3, 3))  # now outcome (ahead, tied, behind) x final outcome
        for nxt in range(N_CARDS):
            if dead[nxt]:
                continue
            if uniform:
                chance = 1.0
            else:
                with_next = card_mass[nxt] - live[_COMBO_INDEX[nxt, a]] - live[_COMBO_INDEX[nxt, b]]
                chance = total - with_next
            if chance <= 0.0:
                continue
            dead[nxt] = True
            cards[2 + k] = nxt
            theirs[2 + k] = nxt
            s1 = 0.0
            s2 = 0.0
            m = 0
            for _ in range(samples):
                combo = _draw_uniform(dead) if uniform else _draw_combo(pool, dead)
                if combo < 0:
                    break
                oa, ob = _COMBO_A[combo], _COMBO_B[combo]
                theirs[0], theirs[1] = oa, ob
                v_now = _value(
                    theirs, 2 + k, card_key, card_mask, row_base, rank_table, flush_table
                )
                count = 3 + k
                if k == 3:  # a river card, uniform over the rest
                    dead[oa] = True
                    dead[ob] = True
                    river = np.random.randint(0, N_CARDS)  # noqa: NPY002
                    while dead[river]:
                        river = np.random.randint(0, N_CARDS)  # noqa: NPY002
                    dead[oa] = False
                    dead[ob] = False
                    cards[6] = river
                    theirs[6] = river
                    count = 7
                ours = _value(cards, count, card_key, card_mask, row_base, rank_table, flush_table)
                v = _value(theirs, count, card_key, card_mask, row_base, rank_table, flush_table)
                x = _share(ours, v)
                now = 0 if ours_now > v_now else (1 if ours_now == v_now else 2)
                final = 0 if x == 1.0 else (1 if x == 0.5 else 2)
                table[now, final] += chance / samples
                strength_sum += chance * (1.0 - now / 2.0) / samples
                s1 += x
                s2 += x * x
                m += 1
            dead[nxt] = False
            if m < 2:
                continue
            chance_sum += chance
            e_sum += chance * s1 / m
            e2_sum += chance * (s1 * s1 - s2) / (m * (m - 1))
        if chance_sum <= 0.0:
            out[i, :] = np.nan
            continue
        behind = table[2].sum() + table[1].sum() / 2
        ahead = table[0].sum() + table[1].sum() / 2
        ppot_num = table[2, 0] + table[2, 1] / 2 + table[1, 0] / 2
        npot_num = table[0, 2] + table[0, 1] / 2 + table[1, 2] / 2
        out[i, 0] = strength_sum / chance_sum
        out[i, 1] = e_sum / chance_sum
        out[i, 2] = e2_sum / chance_sum
        out[i, 3] = ppot_num / behind if behind > 0 else 0.0
        out[i, 4] = npot_num / ahead if ahead > 0 else 0.0


@nb.njit(cache=True)
def _board_vectors(
    holes: npt.NDArray[np.int64],
    board: npt.NDArray[np.int64],
    k: int,
    weights: npt.NDArray[np.float64],
    rivers: int,
    opponents: int,
    seed: int,
    card_key: npt.NDArray[np.int64],
    card_mask: npt.NDArray[np.int64],
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    out: npt.NDArray[np.float64],
) -> None:
    np.random.seed(seed)  # noqa: NPY002
    board_dead = np.zeros(N_CARDS, dtype=np.bool_)
    for j in range(k):
        board_dead[board[j]] = True
    live = np.zeros(N_COMBOS)
    cumulative = np.zeros(N_COMBOS)
    card_mass = np.zeros(N_CARDS)
    total = 0.0
    theirs = np.empty(7, dtype=np.int64)
    for j in range(k):
        theirs[2 + j] = board[j]
    value_now = np.zeros(N_COMBOS, dtype=np.uint16)
    for c in range(N_COMBOS):
        w = weights[c]
        if board_dead[_COMBO_A[c]] or board_dead[_COMBO_B[c]]:
            w = 0.0
        live[c] = w
        total += w
        cumulative[c] = total
        card_mass[_COMBO_A[c]] += w
        card_mass[_COMBO_B[c]] += w
        if w > 0.0:
            theirs[0], theirs[1] = _COMBO_A[c], _COMBO_B[c]
            value_now[c] = _value(
                theirs, 2 + k, card_key, card_mask, row_base, rank_table, flush_table
            )
    if total <= 0.0:
        out[:, :] = np.nan
        return
    pool = np.empty(min(POOL, 256 + 2 * N_CARDS * rivers * opponents), dtype=np.int64)
    for j in range(pool.size):
        pool[j] = _bisect(cumulative, np.random.random() * total)  # noqa: NPY002
    # Shared samples: per next card, `rivers` river cards (flop) and per river `opponents`
    # opponent combos with their final values; every hand is compared with the same ones.
    river_of = np.full((N_CARDS, rivers), -1, dtype=np.int64)
    combo_of = np.full((N_CARDS, rivers, opponents), -1, dtype=np.int64)
    final_of = np.zeros((N_CARDS, rivers, opponents), dtype=np.uint16)
    dead = board_dead.copy()
    count = 3 + k if k == 4 else 7
    for nxt in range(N_CARDS):
        if board_dead[nxt]:
            continue
        dead[nxt] = True
        theirs[2 + k] = nxt
        for r in range(rivers):
            if k == 3:
                river = np.random.randint(0, N_CARDS)  # noqa: NPY002
                while dead[river]:
                    river = np.random.randint(0, N_CARDS)  # noqa: NPY002
                river_of[nxt, r] = river
                dead[river] = True
                theirs[6] = river
            for s in range(opponents):
                combo = _draw_combo(pool, dead)
                if combo < 0:
                    continue
                theirs[0], theirs[1] = _COMBO_A[combo], _COMBO_B[combo]
                combo_of[nxt, r, s] = combo
                final_of[nxt, r, s] = _value(
                    theirs, count, card_key, card_mask, row_base, rank_table, flush_table
                )
            if k == 3:
                dead[river_of[nxt, r]] = False
        dead[nxt] = False
    cards = np.empty(7, dtype=np.int64)
    for j in range(k):
        cards[2 + j] = board[j]
    for i in range(holes.shape[0]):
        a, b = holes[i, 0], holes[i, 1]
        cards[0], cards[1] = a, b
        both = live[_COMBO_INDEX[a, b]]
        total_h = total - card_mass[a] - card_mass[b] + both
        if board_dead[a] or board_dead[b] or total_h <= 1e-12 * total:
            out[i, :] = np.nan
            continue
        ours_now = _value(cards, 2 + k, card_key, card_mask, row_base, rank_table, flush_table)
        table = np.zeros((3, 3))
        chance_sum = 0.0
        e_sum = 0.0
        e2_sum = 0.0
        strength_sum = 0.0
        for nxt in range(N_CARDS):
            if board_dead[nxt] or nxt == a or nxt == b:  # noqa: SIM109
                continue
            chance = total_h - (
                card_mass[nxt] - live[_COMBO_INDEX[nxt, a]] - live[_COMBO_INDEX[nxt, b]]
            )
            if chance <= 0.0:
                continue
            cards[2 + k] = nxt
            s_all = 0.0
            n_all = 0
            cross_minus = 0.0  # sum of squared group sums
            pairs_minus = 0  # sum of squared group sizes
            for r in range(rivers):
                if k == 3:
                    river = river_of[nxt, r]
                    if river == a or river == b:  # noqa: SIM109
                        continue
                    cards[6] = river
                ours = _value(cards, count, card_key, card_mask, row_base, rank_table, flush_table)
                s_group = 0.0
                n_group = 0
                for s in range(opponents):
                    combo = combo_of[nxt, r, s]
                    if combo < 0:
                        continue
                    oa, ob = _COMBO_A[combo], _COMBO_B[combo]
                    if oa == a or oa == b or ob == a or ob == b:  # noqa: SIM109
                        continue
                    x = _share(ours, final_of[nxt, r, s])
                    v_now = value_now[combo]
                    now = 0 if ours_now > v_now else (1 if ours_now == v_now else 2)
                    final = 0 if x == 1.0 else (1 if x == 0.5 else 2)
                    table[now, final] += chance
                    strength_sum += chance * (1.0 - now / 2.0)
                    if k == 4:  # no river: every sample is its own group
                        cross_minus += x * x
                        pairs_minus += 1
                    s_group += x
                    n_group += 1
                if k == 3:
                    cross_minus += s_group * s_group
                    pairs_minus += n_group * n_group
                s_all += s_group
                n_all += n_group
            pairs = n_all * n_all - pairs_minus
            if n_all == 0 or pairs <= 0:
                continue
            weight = chance * n_all
            chance_sum += weight
            e_sum += weight * s_all / n_all
            e2_sum += weight * (s_all * s_all - cross_minus) / pairs
        if chance_sum <= 0.0:
            out[i, :] = np.nan
            continue
        behind = table[2].sum() + table[1].sum() / 2
        ahead = table[0].sum() + table[1].sum() / 2
        ppot_num = table[2, 0] + table[2, 1] / 2 + table[1, 0] / 2
        npot_num = table[0, 2] + table[0, 1] / 2 + table[1, 2] / 2
        out[i, 0] = strength_sum / chance_sum
        out[i, 1] = e_sum / chance_sum
        out[i, 2] = e2_sum / chance_sum
        out[i, 3] = ppot_num / behind if behind > 0 else 0.0
        out[i, 4] = npot_num / ahead if ahead > 0 else 0.0


@nb.njit(cache=True)
def _river_strengths(
    holes: npt.NDArray[np.int64],
    board: npt.NDArray[np.int64],
    weights: npt.NDArray[np.float64],
    card_key: npt.NDArray[np.int64],
    card_mask: npt.NDArray[np.int64],
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    out: npt.NDArray[np.float64],
) -> None:
    """Exact river strength of many hands on one board: the range's values are sorted once;
    a hand's weight below / tied is two look-ups minus the combos that share its cards."""
    dead = np.zeros(N_CARDS, dtype=np.bool_)
    for j in range(5):
        dead[board[j]] = True
    cards = np.empty(7, dtype=np.int64)
    for j in range(5):
        cards[2 + j] = board[j]
    values = np.zeros(N_COMBOS, dtype=np.int64)
    live = np.zeros(N_COMBOS)
    for c in range(N_COMBOS):
        if not dead[_COMBO_A[c]] and not dead[_COMBO_B[c]] and weights[c] > 0.0:
            live[c] = weights[c]
            cards[0], cards[1] = _COMBO_A[c], _COMBO_B[c]
            values[c] = _value(cards, 7, card_key, card_mask, row_base, rank_table, flush_table)
    # below[v] = range weight with value < v, at[v] = weight with value == v.
    at = np.zeros(7464)
    for c in range(N_COMBOS):
        at[values[c]] += live[c]
    below = np.zeros(7464)
    for v in range(1, 7464):
        below[v] = below[v - 1] + at[v - 1]
    total = below[7463] + at[7463]
    for i in range(holes.shape[0]):
        a, b = holes[i, 0], holes[i, 1]
        cards[0], cards[1] = a, b
        ours = _value(cards, 7, card_key, card_mask, row_base, rank_table, flush_table)
        won = below[ours] + 0.5 * at[ours]
        mass = total
        for other in range(N_CARDS):  # combos sharing a card with the hand are not live
            for mine in (a, b):
                if other == mine or ((other == a or other == b) and other < mine):  # noqa: SIM109
                    continue
                c = _COMBO_INDEX[mine, other]
                w = live[c]
                if w > 0.0:
                    mass -= w
                    v = values[c]
                    won -= w if v < ours else (0.5 * w if v == ours else 0.0)
        e = won / mass if mass > 0 else np.nan
        out[i, 0], out[i, 1], out[i, 2], out[i, 3], out[i, 4] = e, e, e * e, 0.0, 0.0


def board_vectors(
    holes: npt.ArrayLike,
    board: npt.ArrayLike,
    weights: npt.ArrayLike | None = None,
    *,
    samples: int = 16,
    seed: int = 0,
) -> Floats:
    """(N, 5) :func:`hand_vectors` of many hands on ONE flop or turn, from shared samples.

    Every next card gets one set of samples (on the flop ``samples // 4`` river cards, each
    with 4 opponent combos; on the turn ``samples`` combos), drawn once and
    compared with every hand (samples clashing with a hand's cards are skipped for it). So
    the opponent's hands are evaluated once for all rows and a hand costs about one
    evaluation per river card: the way to vectorize a whole range for bucketing. E2 takes
    cross products only between samples with different river cards (unbiased). The river
    card is drawn before the opponent here (the other order in :func:`hand_vectors`), which
    weighs runouts by the range's mass clear of the river card: exact for a uniform range,
    a deviation of order 1/50 for a weighted one. On the river the strengths are exact (the
    range's values sorted once).
    """
    hole = np.ascontiguousarray(np.asarray(holes, dtype=np.int64).reshape(-1, 2))
    cards = [int(c) for c in np.asarray(board, dtype=np.int64).ravel() if c >= 0]
    if len(cards) not in (3, 4, 5):
        raise EquityError(f"board_vectors needs a flop, turn or river, got {len(cards)} cards")
    if samples < 4:
        raise EquityError(f"samples must be at least 4, got {samples}")
    w = np.ones(N_COMBOS) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (N_COMBOS,) or not np.isfinite(w).all() or (w < 0).any():
        raise EquityError("weights are 1326 finite non-negative numbers, one per combo")
    if len(cards) == 5:
        out = np.empty((hole.shape[0], 5))
        river = np.asarray(cards, dtype=np.int64)
        _river_strengths(hole, river, np.ascontiguousarray(w), *evaluator_tables(), out)
        return out
    rivers, opponents = (samples // 4, 4) if len(cards) == 3 else (1, samples)
    full = np.full(5, -1, dtype=np.int64)
    full[: len(cards)] = cards
    out = np.empty((hole.shape[0], 5))
    _board_vectors(
        hole,
        full,
        len(cards),
        np.ascontiguousarray(w),
        rivers,
        opponents,
        seed,
        *evaluator_tables(),
        out,
    )
    return out


def hand_vectors(
    holes: npt.ArrayLike,
    boards: npt.ArrayLike,
    weights: npt.ArrayLike | None = None,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
) -> Floats:
    """(N, 5) strength, E, E2, PPOT, NPOT of N hands against one weighted range.

    ``holes`` (N, 2) card indices; ``boards`` (N, 5) with -1 for cards not dealt (0, 3, 4
    or 5 shown, per row); ``weights`` (1326,) the opponent's range over combos (None:
    every combo, i.e. a random hand). Card removal is applied per row. ``samples`` trades
    precision for speed (see the module docstring); same seed, same numbers. A row whose
    range is empty after card removal is NaN.
    """
    hole = np.ascontiguousarray(np.asarray(holes, dtype=np.int64).reshape(-1, 2))
    board = np.ascontiguousarray(np.asarray(boards, dtype=np.int64).reshape(-1, 5))
    if hole.shape[0] != board.shape[0]:
        raise EquityError(f"{hole.shape[0]} hands but {board.shape[0]} boards")
    if samples < 2:
        raise EquityError(f"samples must be at least 2 (E2 needs two per card), got {samples}")
    shown = board >= 0
    lengths = shown.sum(axis=1)
    if not np.isin(lengths, (0, 3, 4, 5)).all() or (shown[:, 1:] & ~shown[:, :-1]).any():
        raise EquityError("boards hold 0, 3, 4 or 5 cards first, then -1")
    if hole.size and (hole.min() < 0 or hole.max() >= N_CARDS or board.max() >= N_CARDS):
        raise EquityError("card indices are 0..51")
    w = np.ones(N_COMBOS) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (N_COMBOS,) or not np.isfinite(w).all() or (w < 0).any():
        raise EquityError("weights are 1326 finite non-negative numbers, one per combo")
    out = np.empty((hole.shape[0], 5))
    _vectors(
        hole,
        board,
        lengths.astype(np.int64),
        np.ascontiguousarray(w),
        samples,
        seed,
        weights is None,
        *evaluator_tables(),
        out,
    )
    return out


def combo_holes(combos: npt.ArrayLike) -> Int64s:
    """(n, 2) hole cards of combo indices (a helper for vectorizing a whole range)."""
    holes: Int64s = COMBO_CARDS[np.asarray(combos, dtype=np.int64)].astype(np.int64)
    return holes
