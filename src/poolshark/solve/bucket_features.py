"""Monte Carlo hand features (E, E2, PPOT, NPOT) against a uniform random opponent hand.

The definitions are those of :mod:`poolshark.equity.features` (which computes them exactly
against any range, too slowly for the millions of deals an abstraction samples), with the
opponent's hand uniform over the cards left (card removal applied):

* ``e``: the hand's equity (ties half) against the rest of the board; ``e2`` the mean, over
  the next observed cards, of the square of the equity once they are seen. The next
  observed cards are the flop preflop, the turn on the flop and the river on the turn; on
  the river nothing is to come, so ``e2 = e ** 2``.
* ``ppot`` / ``npot``: of the deals where the hand is behind now (ties half), the chance to
  end ahead (ties half) at the river; and from ahead to behind. Preflop there is no hand
  "now", so both are 0 (as on the river, where nothing is to come).

On the river every opponent hand is enumerated (990 evaluations, exact and cheaper than
sampling). Elsewhere the estimate is stratified over the next observed cards: on the flop
and the turn every unseen card is a stratum (each is equally likely against a uniform
opponent), preflop ``samples // PREFLOP_PER_FLOP`` random flops are. Within a stratum
``per`` deals of the opponent's hand and the rest of the board are drawn, and the square
of the stratum's equity is estimated without bias by ``(S1^2 - S2) / (per (per - 1))``
from the sums of the pot shares and of their squares. So ``e`` and ``e2`` are unbiased;
``ppot`` and ``npot`` are ratio estimates (bias of order 1 / samples).

Each row draws from its own SplitMix64 stream, seeded by a hash of the caller's seed, the
street and the *sets* of hole and board cards (order does not matter), so a (hand, board)
gets the same features, and so the same bucket, wherever and in whatever batch it is
computed.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.card import N_CARDS, CardError
from poolshark.cards.combos import CLASS_SIZE, COMBO_CARDS, N_CLASSES, class_combos
from poolshark.cards.evaluator import KEY_INIT, numba_threads, tables, value_of
from poolshark.cards.ranges import Range
from poolshark.equity.features import hand_features

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

FEATURE_NAMES = ("e", "e2", "ppot", "npot")
"""The columns of every feature array, in order."""
N_FEATURES = len(FEATURE_NAMES)
STREET_NAMES = ("preflop", "flop", "turn", "river")
BOARD_CARDS = (0, 3, 4, 5)
"""Board cards seen on each street (0 preflop .. 3 river)."""
PREFLOP_PER_FLOP = 4
"""Deals drawn per sampled flop preflop (a flop is the stratum there)."""

AHEAD, TIED, BEHIND = 0, 1, 2


@nb.njit(inline="always")
def _outcome(ours: int, theirs: int) -> int:
    if ours > theirs:
        return AHEAD
    if ours == theirs:
        return TIED
    return BEHIND


@nb.njit(inline="always")
def row_seed(seed: int, street: int, hole: Int64s, board: Int64s, n_board: int) -> int:
    """A 31-bit seed from the seed, the street and the sets of hole and board cards."""
    hole_mask = np.int64(0)
    for c in hole:
        hole_mask |= np.int64(1) << np.int64(c)
    board_mask = np.int64(0)
    for i in range(n_board):
        board_mask |= np.int64(1) << np.int64(board[i])
    h = np.int64(seed) * np.int64(6364136223846793005) + np.int64(street) + np.int64(1)
    h = (h ^ hole_mask) * np.int64(-7046029254386353131)
    h = (h ^ board_mask) * np.int64(-4658895280553007687)
    h ^= h >> np.int64(31)
    return int(h & np.int64(0x7FFFFFFF))


@nb.njit(inline="always")
def below(state: npt.NDArray[np.uint64], n: int) -> int:
    """A uniform integer in [0, n) from a SplitMix64 stream (``state``: one word, advanced);
    the high 32 bits scaled by ``n``, so the bias is below n / 2^32."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return int(((z >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@nb.njit(cache=True)
def _row_features(
    hole: Int64s,
    board: Int64s,
    n_board: int,
    samples: int,
    seed: int,
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    out: Floats,
) -> None:
    """The four features of one (hole, board) row into ``out`` (see the module doc)."""
    used = np.zeros(N_CARDS, dtype=np.bool_)
    used[hole[0]] = True
    used[hole[1]] = True
    board_key = np.int64(KEY_INIT)
    board_mask = np.int64(0)
    for i in range(n_board):
        used[board[i]] = True
        board_key += card_key[board[i]]
        board_mask |= card_mask[board[i]]
    deck = np.empty(N_CARDS, dtype=np.int64)
    n = 0
    for c in range(N_CARDS):
        if not used[c]:
            deck[n] = c
            n += 1
    hero_key = board_key + card_key[hole[0]] + card_key[hole[1]]
    hero_mask = board_mask | card_mask[hole[0]] | card_mask[hole[1]]
    has_now = n_board >= 3
    hero_now = 0
    if has_now:
        hero_now = int(value_of(hero_key, hero_mask, row_base, rank_table, flush_table))
    out[2] = 0.0
    out[3] = 0.0
    if n_board == 5:  # the river: every opponent hand, exactly (cheaper than sampling)
        total = 0.0
        for a in range(n):
            key_a = board_key + card_key[deck[a]]
            mask_a = board_mask | card_mask[deck[a]]
            for b in range(a + 1, n):
                theirs = value_of(
                    key_a + card_key[deck[b]],
                    mask_a | card_mask[deck[b]],
                    row_base,
                    rank_table,
                    flush_table,
                )
                total += 1.0 if hero_now > theirs else (0.5 if hero_now == theirs else 0.0)
        e = total / (n * (n - 1) // 2)
        out[0] = e
        out[1] = e * e
        return

    if n_board >= 3:
        strata, stratum_cards = n, 1
        per = max(2, (samples + n - 1) // n)
    else:
        per, stratum_cards = PREFLOP_PER_FLOP, 3
        strata = max(1, samples // PREFLOP_PER_FLOP)
    rest = 5 - n_board - stratum_cards  # board cards drawn with the opponent's hand
    state = np.full(1, np.uint64(seed), dtype=np.uint64)
    work = deck[:n].copy()
    table = np.zeros((3, 3))
    e_sum = 0.0
    e2_sum = 0.0
    for s in range(strata):
        stratum_key = np.int64(0)
        stratum_mask = np.int64(0)
        if stratum_cards == 1:  # the stratum is unseen card deck[s]: move it to the end
            for j in range(n):
                if work[j] == deck[s]:
                    work[j], work[n - 1] = work[n - 1], work[j]
                    break
        for d in range(stratum_cards):
            if stratum_cards == 3:  # a random flop
                j = below(state, n - d)
                work[j], work[n - 1 - d] = work[n - 1 - d], work[j]
            card = work[n - 1 - d]
            stratum_key += card_key[card]
            stratum_mask |= card_mask[card]
        avail = n - stratum_cards
        s1 = 0.0
        s2 = 0.0
        for _ in range(per):
            for d in range(2 + rest):
                j = d + below(state, avail - d)
                work[d], work[j] = work[j], work[d]
            runout_key = stratum_key
            runout_mask = stratum_mask
            for d in range(2, 2 + rest):
                runout_key += card_key[work[d]]
                runout_mask |= card_mask[work[d]]
            villain_key = board_key + card_key[work[0]] + card_key[work[1]]
            villain_mask = board_mask | card_mask[work[0]] | card_mask[work[1]]
            ours = value_of(
                hero_key + runout_key, hero_mask | runout_mask, row_base, rank_table, flush_table
            )
            theirs = value_of(
                villain_key + runout_key,
                villain_mask | runout_mask,
                row_base,
                rank_table,
                flush_table,
            )
            final = _outcome(int(ours), int(theirs))
            share = 1.0 if final == AHEAD else (0.5 if final == TIED else 0.0)
            s1 += share
            s2 += share * share
            if has_now:
                now_theirs = value_of(villain_key, villain_mask, row_base, rank_table, flush_table)
                table[_outcome(hero_now, int(now_theirs)), final] += 1.0
        e_sum += s1 / per
        e2_sum += (s1 * s1 - s2) / (per * (per - 1))
    out[0] = e_sum / strata
    out[1] = e2_sum / strata
    if has_now:
        behind = table[BEHIND].sum() + table[TIED].sum() / 2
        ahead = table[AHEAD].sum() + table[TIED].sum() / 2
        ppot = table[BEHIND, AHEAD] + table[BEHIND, TIED] / 2 + table[TIED, AHEAD] / 2
        npot = table[AHEAD, BEHIND] + table[AHEAD, TIED] / 2 + table[TIED, BEHIND] / 2
        out[2] = ppot / behind if behind > 0 else 0.0
        out[3] = npot / ahead if ahead > 0 else 0.0


@nb.njit(cache=True)
def _features_rows(
    holes: Int64s,
    boards: Int64s,
    street: int,
    samples: int,
    seed: int,
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    out: Floats,
) -> None:
    n_board = (0, 3, 4, 5)[street]
    for i in range(holes.shape[0]):
        own = row_seed(seed, street, holes[i], boards[i], n_board)
        _row_features(
            holes[i],
            boards[i],
            n_board,
            samples,
            own,
            card_key,
            card_mask,
            row_base,
            rank_table,
            flush_table,
            out[i],
        )


@nb.njit(cache=True, parallel=True)
def _features_rows_parallel(
    holes: Int64s,
    boards: Int64s,
    street: int,
    samples: int,
    seed: int,
    card_key: Int64s,
    card_mask: Int64s,
    row_base: npt.NDArray[np.int32],
    rank_table: npt.NDArray[np.uint16],
    flush_table: npt.NDArray[np.uint16],
    out: Floats,
) -> None:
    n_board = (0, 3, 4, 5)[street]
    for i in nb.prange(holes.shape[0]):
        own = row_seed(seed, street, holes[i], boards[i], n_board)
        _row_features(
            holes[i],
            boards[i],
            n_board,
            samples,
            own,
            card_key,
            card_mask,
            row_base,
            rank_table,
            flush_table,
            out[i],
        )


def check_street(street: int) -> None:
    """Streets are 0 preflop .. 3 river."""
    if street not in (0, 1, 2, 3):
        raise CardError(f"street must be 0 (preflop) .. 3 (river), got {street}")


def check_cards(street: int, holes: npt.ArrayLike, boards: npt.ArrayLike) -> tuple[Int64s, Int64s]:
    """Validated (N, 2) hole cards and (N, 5) boards (-1 past the street's cards), as int64.

    Errors name the first bad row: cards outside 0..51, a missing board card, or a card
    used twice.
    """
    check_street(street)
    hole = np.ascontiguousarray(holes, dtype=np.int64)
    board = np.ascontiguousarray(boards, dtype=np.int64)
    if hole.ndim != 2 or hole.shape[1] != 2:
        raise CardError(f"holes must be (N, 2) cards, got shape {hole.shape}")
    if board.ndim != 2 or board.shape != (hole.shape[0], 5):
        raise CardError(f"boards must be (N, 5) with -1 for unseen cards, got {board.shape}")
    seen = BOARD_CARDS[street]
    known = np.concatenate([hole, board[:, :seen]], axis=1)
    bad = (known < 0) | (known >= N_CARDS)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        raise CardError(
            f"row {row}: {STREET_NAMES[street]} needs 2 hole cards and {seen} board cards "
            f"in 0..51, got hole {hole[row].tolist()} board {board[row].tolist()}"
        )
    ordered = np.sort(known, axis=1)
    repeated = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    if repeated.any():
        row = int(np.flatnonzero(repeated)[0])
        raise CardError(f"row {row}: a card is used twice in {known[row].tolist()}")
    return hole, board


def monte_carlo_features(
    street: int,
    holes: npt.ArrayLike,
    boards: npt.ArrayLike,
    *,
    samples: int = 200,
    seed: int = 0,
    threads: int | None = 1,
) -> Floats:
    """(N, 4) E, E2, PPOT, NPOT of each (hole, board) on ``street`` against a random hand.

    ``boards`` are (N, 5) with -1 for cards not seen yet (only the street's first cards
    are read). ``samples`` is about how many deals each row draws (on the flop and the
    turn at least two per unseen card; the river is exact). ``threads``: cores to use
    (None: all).
    """
    if samples < 2:
        raise CardError(f"samples must be at least 2, got {samples}")
    hole, board = check_cards(street, holes, boards)
    out = np.zeros((hole.shape[0], N_FEATURES))
    if threads == 1:
        _features_rows(hole, board, street, samples, seed, *tables(), out)
    else:
        with numba_threads(threads):
            _features_rows_parallel(hole, board, street, samples, seed, *tables(), out)
    return out


def preflop_class_features(*, samples: int = 20_000, seed: int = 0) -> Floats:
    """(169, 4) features of each preflop class (its first combo; suits do not matter
    against a random hand), in the chart order of :mod:`poolshark.cards.combos`."""
    holes = np.array([_first_combo_cards(cls) for cls in range(N_CLASSES)], dtype=np.int64)
    boards = np.full((N_CLASSES, 5), -1, dtype=np.int64)
    return monte_carlo_features(0, holes, boards, samples=samples, seed=seed)


def _first_combo_cards(cls: int) -> tuple[int, int]:
    a, b = COMBO_CARDS[class_combos(cls)[0]]
    return int(a), int(b)


def class_weights() -> Floats:
    """(169,) the share of all 1,326 combos in each preflop class (6, 4 or 12 of them)."""
    weights: Floats = CLASS_SIZE.astype(np.float64) / CLASS_SIZE.sum()
    return weights


def exact_features(street: int, hole: list[int], board: list[int]) -> Floats:
    """(4,) the features computed exactly against a uniform random hand (the reference,
    :func:`poolshark.equity.features.hand_features`; flop, turn or river only)."""
    if street not in (1, 2, 3):
        raise CardError(f"exact features are computed on the flop, turn or river, not {street}")
    found = hand_features(hole, board[: BOARD_CARDS[street]], Range.full())
    return np.array([found.e, found.e2, found.ppot, found.npot])
