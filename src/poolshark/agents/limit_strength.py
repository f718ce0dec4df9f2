"""Hand strength, potential and rank distributions against a weighted range, compiled.

The gauntlet bots (``agents.poki``, ``agents.vexbot``) call these once or twice per
decision, so they are numba kernels over the fast evaluator's tables:

* :func:`strength_potential`: HS (the weighted chance of being ahead now, ties half),
  PPOT and NPOT against a weighted range, as ``equity.features.hand_features`` defines
  them. The current strength is exact; the potentials are exact on the turn (all 46
  rivers) and on the flop average over a fixed number of sampled turn-river runouts, each
  scored against every live combo of the range (so the estimate weighs combo and runout
  exactly as the enumeration does).
* :func:`preflop_strength`: all-in equity against a weighted range preflop, by a fixed
  sample of (opponent combo, board) deals.
* :func:`combo_ranks`: every combo's rank percentile on a board against a uniformly
  random hand (no card removal between the two hands): the "implied strength" scale of
  Poki's reweighting and of Vexbot's showdown histograms.
* :func:`final_rank_histogram`: the distribution of our own rank percentile on the river
  over the cards still to come (exact on the turn and river, sampled before).

Sampled estimates take a seed, so a decision is reproducible from its random stream
(numba compiles only the legacy ``np.random`` functions, hence the ``noqa: NPY002``).
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.card import N_CARDS
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS
from poolshark.cards.evaluator import KEY_INIT, tables, value_of

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

FLOP_RUNOUTS = 94
"""Turn-river runouts for the potentials on the flop: two rivers for each of the 47 turns."""
PREFLOP_DEALS = 600
"""(Opponent combo, board) deals sampled for the preflop strength."""
RANK_RUNOUTS = 32
"""Runouts sampled for :func:`final_rank_histogram` before the turn."""


@nb.njit(cache=True, nogil=True)
def _strength_potential(
    hole: Int64s,
    board: Int64s,
    weights: Floats,
    runouts: int,
    seed: int,
    combo_cards: npt.NDArray[np.uint8],
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
) -> tuple[float, float, float]:
    dead = np.zeros(N_CARDS, dtype=np.bool_)
    base_key = np.int64(KEY_INIT)
    base_mask = np.int64(0)
    for c in board:
        dead[c] = True
        base_key += card_key[c]
        base_mask |= card_mask[c]
    our_key = base_key + card_key[hole[0]] + card_key[hole[1]]
    our_mask = base_mask | card_mask[hole[0]] | card_mask[hole[1]]
    dead[hole[0]] = True
    dead[hole[1]] = True
    our_now = value_of(our_key, our_mask, row_base, rank_table, flush_table)
    live = np.empty(N_COMBOS, dtype=np.int64)
    n = 0
    for c in range(N_COMBOS):
        a, b = combo_cards[c, 0], combo_cards[c, 1]
        if weights[c] > 0 and not dead[a] and not dead[b]:
            live[n] = c
            n += 1
    # now[i]: 0 ahead, 1 tied, 2 behind against live combo i.
    now = np.empty(n, dtype=np.int64)
    total = 0.0
    score = 0.0
    for i in range(n):
        c = live[i]
        a, b = combo_cards[c, 0], combo_cards[c, 1]
        theirs = value_of(
            base_key + card_key[a] + card_key[b],
            base_mask | card_mask[a] | card_mask[b],
            row_base,
            rank_table,
            flush_table,
        )
        now[i] = 0 if our_now > theirs else (1 if our_now == theirs else 2)
        w = weights[c]
        total += w
        score += w * (1.0 if now[i] == 0 else (0.5 if now[i] == 1 else 0.0))
    if total <= 0:
        return 0.5, 0.0, 0.0
    strength = score / total
    if board.size == 5:
        return strength, 0.0, 0.0
    unseen = np.empty(N_CARDS, dtype=np.int64)
    m = 0
    for c in range(N_CARDS):
        if not dead[c]:
            unseen[m] = c
            m += 1
    # Per live combo, how many runouts end in a win, tie or loss.
    wins = np.zeros(n)
    ties = np.zeros(n)
    losses = np.zeros(n)
    exact = board.size == 4
    count = m if exact else runouts
    np.random.seed(seed)  # noqa: NPY002 (numba supports only the legacy functions)
    for r in range(count):
        # On the flop the turn card cycles through the unseen cards (stratified) and the
        # river is drawn at random: every unordered runout is equally likely.
        first = unseen[r % m]
        second = -1
        add_key = card_key[first]
        add_mask = card_mask[first]
        if not exact:
            j = np.random.randint(m - 1)  # noqa: NPY002 (numba supports only the legacy functions)
            second = unseen[j + 1 if j >= r % m else j]
            add_key += card_key[second]
            add_mask |= card_mask[second]
        ours = value_of(our_key + add_key, our_mask | add_mask, row_base, rank_table, flush_table)
        for k in range(n):
            c = live[k]
            a, b = combo_cards[c, 0], combo_cards[c, 1]
            if a in (first, second) or b in (first, second):
                continue  # (a card dealt twice would read outside the evaluator's tables)
            theirs = value_of(
                base_key + add_key + card_key[a] + card_key[b],
                base_mask | add_mask | card_mask[a] | card_mask[b],
                row_base,
                rank_table,
                flush_table,
            )
            wins[k] += int(ours > theirs)
            ties[k] += int(ours == theirs)
            losses[k] += int(ours < theirs)
    table = np.zeros((3, 3))
    for k in range(n):
        w = weights[live[k]]
        table[now[k], 0] += w * wins[k]
        table[now[k], 1] += w * ties[k]
        table[now[k], 2] += w * losses[k]
    behind = table[2].sum() + table[1].sum() / 2
    ahead = table[0].sum() + table[1].sum() / 2
    ppot_num = table[2, 0] + table[2, 1] / 2 + table[1, 0] / 2
    npot_num = table[0, 2] + table[0, 1] / 2 + table[1, 2] / 2
    ppot = ppot_num / behind if behind > 0 else 0.0
    npot = npot_num / ahead if ahead > 0 else 0.0
    return strength, ppot, npot


def strength_potential(
    hole: tuple[int, int],
    board: tuple[int, ...],
    weights: Floats,
    *,
    seed: int,
    runouts: int = FLOP_RUNOUTS,
) -> tuple[float, float, float]:
    """(HS, PPOT, NPOT) of ``hole`` on a 3-5 card ``board`` against range ``weights``
    (1326, any scale); an empty live range gives (0.5, 0, 0)."""
    return _strength_potential(
        np.asarray(hole, dtype=np.int64),
        np.asarray(board, dtype=np.int64),
        np.ascontiguousarray(weights, dtype=np.float64),
        runouts,
        seed,
        COMBO_CARDS,
        *tables(),
    )


@nb.njit(cache=True, nogil=True)
def _preflop_strength(
    hole: Int64s,
    weights: Floats,
    deals: int,
    seed: int,
    combo_cards: npt.NDArray[np.uint8],
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
) -> float:
    cumulative = np.zeros(N_COMBOS + 1)
    for c in range(N_COMBOS):
        a, b = combo_cards[c, 0], combo_cards[c, 1]
        blocked = a == hole[0] or a == hole[1] or b == hole[0] or b == hole[1]
        cumulative[c + 1] = cumulative[c] + (0.0 if blocked else weights[c])
    total = cumulative[N_COMBOS]
    if total <= 0:
        return 0.5
    np.random.seed(seed)  # noqa: NPY002 (numba supports only the legacy functions)
    our_key = np.int64(KEY_INIT) + card_key[hole[0]] + card_key[hole[1]]
    our_mask = card_mask[hole[0]] | card_mask[hole[1]]
    used = np.zeros(N_CARDS, dtype=np.bool_)
    score = 0.0
    for _ in range(deals):
        c = np.searchsorted(cumulative, np.random.random() * total, side="right") - 1  # noqa: NPY002 (numba supports only the legacy functions)
        c = min(max(c, 0), N_COMBOS - 1)
        a, b = combo_cards[c, 0], combo_cards[c, 1]
        used[:] = False
        used[hole[0]] = True
        used[hole[1]] = True
        used[a] = True
        used[b] = True
        key = np.int64(0)
        mask = np.int64(0)
        drawn = 0
        while drawn < 5:
            card = np.random.randint(N_CARDS)  # noqa: NPY002 (numba supports only the legacy functions)
            if not used[card]:
                used[card] = True
                key += card_key[card]
                mask |= card_mask[card]
                drawn += 1
        ours = value_of(our_key + key, our_mask | mask, row_base, rank_table, flush_table)
        theirs = value_of(
            np.int64(KEY_INIT) + key + card_key[a] + card_key[b],
            mask | card_mask[a] | card_mask[b],
            row_base,
            rank_table,
            flush_table,
        )
        score += 1.0 if ours > theirs else (0.5 if ours == theirs else 0.0)
    return score / deals


def preflop_strength(
    hole: tuple[int, int], weights: Floats, *, seed: int, deals: int = PREFLOP_DEALS
) -> float:
    """All-in equity of ``hole`` against range ``weights`` preflop, from ``deals`` sampled
    (combo, board) deals; 0.5 when no combo of the range is live."""
    return _preflop_strength(
        np.asarray(hole, dtype=np.int64),
        np.ascontiguousarray(weights, dtype=np.float64),
        deals,
        seed,
        COMBO_CARDS,
        *tables(),
    )


@nb.njit(cache=True, nogil=True)
def _combo_ranks(
    board: Int64s,
    combo_cards: npt.NDArray[np.uint8],
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    out: Floats,
) -> None:
    """``out[c]``: combo c's share of live combos it beats on ``board`` (ties half); -1
    for combos the board blocks."""
    dead = np.zeros(N_CARDS, dtype=np.bool_)
    key = np.int64(KEY_INIT)
    mask = np.int64(0)
    for c in board:
        dead[c] = True
        key += card_key[c]
        mask |= card_mask[c]
    values = np.zeros(N_COMBOS, dtype=np.int64)
    counts = np.zeros(7463, dtype=np.int64)
    n = 0
    for c in range(N_COMBOS):
        a, b = combo_cards[c, 0], combo_cards[c, 1]
        if dead[a] or dead[b]:
            values[c] = -1
            continue
        v = value_of(
            key + card_key[a] + card_key[b],
            mask | card_mask[a] | card_mask[b],
            row_base,
            rank_table,
            flush_table,
        )
        values[c] = v
        counts[v] += 1
        n += 1
    below = np.zeros(7463, dtype=np.int64)
    for level in range(1, 7463):
        below[level] = below[level - 1] + counts[level - 1]
    for c in range(N_COMBOS):
        value = values[c]
        out[c] = -1.0 if value < 0 else (below[value] + (counts[value] - 1) / 2) / max(n - 1, 1)


def combo_ranks(board: tuple[int, ...]) -> Floats:
    """(1326,) each combo's rank percentile on a 3-5 card board against a uniformly random
    other live combo (ties half; 0 the worst hand, 1 the nuts); -1 where the board blocks."""
    out = np.empty(N_COMBOS)
    _combo_ranks(np.asarray(board, dtype=np.int64), COMBO_CARDS, *tables(), out)
    return out


@nb.njit(cache=True, nogil=True)
def _final_rank_histogram(
    hole: Int64s,
    board: Int64s,
    bins: int,
    runouts: int,
    seed: int,
    combo_cards: npt.NDArray[np.uint8],
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
) -> Floats:
    dead = np.zeros(N_CARDS, dtype=np.bool_)
    base_key = np.int64(KEY_INIT)
    base_mask = np.int64(0)
    for c in board:
        dead[c] = True
        base_key += card_key[c]
        base_mask |= card_mask[c]
    dead[hole[0]] = True
    dead[hole[1]] = True
    unseen = np.empty(N_CARDS, dtype=np.int64)
    m = 0
    for c in range(N_CARDS):
        if not dead[c]:
            unseen[m] = c
            m += 1
    need = 5 - board.size
    count = 1 if need == 0 else (m if need == 1 else runouts)
    histogram = np.zeros(bins)
    chosen = np.full(5, -1, dtype=np.int64)
    np.random.seed(seed)  # noqa: NPY002 (numba supports only the legacy functions)
    for r in range(count):
        if need == 1:
            chosen[0] = unseen[r]
        got = 0 if need > 1 else need
        while got < need:
            card = unseen[np.random.randint(m)]  # noqa: NPY002 (numba supports only the legacy functions)
            fresh = True
            for q in range(got):
                fresh &= chosen[q] != card
            if fresh:
                chosen[got] = card
                got += 1
        key = base_key
        mask = base_mask
        for q in range(need):
            key += card_key[chosen[q]]
            mask |= card_mask[chosen[q]]
        ours = value_of(
            key + card_key[hole[0]] + card_key[hole[1]],
            mask | card_mask[hole[0]] | card_mask[hole[1]],
            row_base,
            rank_table,
            flush_table,
        )
        beaten = 0.0
        live = 0.0
        for c in range(N_COMBOS):
            a, b = combo_cards[c, 0], combo_cards[c, 1]
            blocked = dead[a] | dead[b]
            for q in range(need):
                blocked |= (a == chosen[q]) | (b == chosen[q])
            if blocked:
                continue  # (a card dealt twice would read outside the evaluator's tables)
            theirs = value_of(
                key + card_key[a] + card_key[b],
                mask | card_mask[a] | card_mask[b],
                row_base,
                rank_table,
                flush_table,
            )
            live += 1.0
            beaten += int(ours > theirs) + 0.5 * int(ours == theirs)
        rank = beaten / max(live, 1.0)
        histogram[min(int(rank * bins), bins - 1)] += 1.0
    shares: Floats = histogram / histogram.sum()
    return shares


def final_rank_histogram(
    hole: tuple[int, int],
    board: tuple[int, ...],
    bins: int,
    *,
    seed: int,
    runouts: int = RANK_RUNOUTS,
) -> Floats:
    """(bins,) distribution of our river rank percentile (:func:`combo_ranks` on the final
    board) over the cards to come: exact from the turn, ``runouts`` sampled boards before."""
    return _final_rank_histogram(
        np.asarray(hole, dtype=np.int64),
        np.asarray(board, dtype=np.int64),
        bins,
        runouts,
        seed,
        COMBO_CARDS,
        *tables(),
    )
