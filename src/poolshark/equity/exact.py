"""Exact equity by enumerating every board completion, for hands or weighted ranges.

A *deal* fixes every player's hole cards; a deal's equity is exact over all completions of
the board. With ranges, the answer is the weighted mean over every joint deal whose cards do
not collide (weight = product of the players' combo weights), which is exactly the
probability under the ranges with card removal. Deals equal up to a renaming of suits have
equal counts, so each class is enumerated once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from math import comb

import numpy as np

from poolshark.cards.card import check_disjoint, format_cards
from poolshark.cards.combos import COMBO_CARDS, conflict_matrix
from poolshark.cards.isomorphism import canonical_key
from poolshark.cards.ranges import Range
from poolshark.equity.enumeration import Progress, enumerate_chunks
from poolshark.equity.matrix import PreflopMatrices, cached_matrices
from poolshark.equity.result import EquityError, EquityResult, TooMuchWorkError

MAX_EXACT_DEALS = 250_000
"""Refuse to list more joint deals than this (before merging suit-isomorphic ones)."""
MAX_EXACT_EVALUATIONS = 4_000_000_000
"""Refuse exact work above this many hand evaluations (some seconds on two cores)."""


def check_deal(players: Sequence[Range], board: Sequence[int], dead: Sequence[int]) -> list[Range]:
    """Validate the inputs shared by exact and sampled equity; return live ranges.

    Each range loses the combos that use a board or dead card.
    """
    if not 2 <= len(players) <= 10:
        raise EquityError(f"equity needs 2 to 10 players, got {len(players)}")
    if len(board) not in (0, 3, 4, 5):
        shown = format_cards(board, " ")
        raise EquityError(f"a board has 0, 3, 4 or 5 cards, got {len(board)}: {shown!r}")
    check_disjoint(board, dead)
    if 2 * len(players) + 5 + len(dead) > 52:
        raise EquityError("not enough cards in the deck for these players and dead cards")
    live = [r.without([*board, *dead]) for r in players]
    for seat, r in enumerate(live):
        if players[seat].total() <= 0:
            raise EquityError(f"player {seat + 1} has no possible hand: the range is empty")
        if r.total() <= 0:
            removed = format_cards([*board, *dead], " ")
            raise EquityError(
                f"player {seat + 1} has no possible hand left: every combo of"
                f" {players[seat]} uses one of {removed!r}"
            )
    fixed = [COMBO_CARDS[int(r.combos()[0])].tolist() for r in live if r.is_single_combo]
    check_disjoint(*fixed)
    return live


def joint_deals(live: Sequence[Range]) -> Iterator[tuple[tuple[int, ...], float]]:
    """Every collision-free assignment of one combo per player, with its product weight."""
    options = [[(int(c), float(r.weights[c])) for c in r.combos()] for r in live]

    def extend(
        seat: int, used: int, chosen: tuple[int, ...], weight: float
    ) -> Iterator[tuple[tuple[int, ...], float]]:
        if seat == len(options):
            yield chosen, weight
            return
        for combo, w in options[seat]:
            a, b = COMBO_CARDS[combo]
            bits = (1 << int(a)) | (1 << int(b))
            if not used & bits:
                yield from extend(seat + 1, used | bits, (*chosen, combo), weight * w)

    yield from extend(0, 0, (), 1.0)


def exact_equity(
    players: Sequence[Range],
    board: Sequence[int] = (),
    dead: Sequence[int] = (),
    *,
    threads: int | None = None,
    progress: Progress | None = None,
) -> EquityResult:
    """Exact equity of each player's hand or range on a partial board (0, 3, 4 or 5 cards).

    ``boards`` in the result counts every (deal, board) outcome the answer is exact over.
    Heads-up preflop ranges use the cached preflop matrices when they exist.
    """
    live = check_deal(players, board, dead)
    n_deal = 5 - len(board)
    deck_left = 52 - len(board) - len(dead) - 2 * len(players)
    boards_per_deal = comb(deck_left, n_deal)
    matrices = cached_matrices() if len(live) == 2 and not board and not dead else None
    if matrices is not None and not (live[0].is_single_combo and live[1].is_single_combo):
        return _headsup_from_matrices(live[0], live[1], matrices, boards_per_deal)
    deal_bound = int(np.prod([len(r) for r in live], dtype=np.float64))
    if deal_bound > MAX_EXACT_DEALS:
        raise TooMuchWorkError(
            f"exact enumeration over up to {deal_bound:,} joint deals is too slow here;"
            " use Monte Carlo samples"
        )

    class_of: dict[tuple[tuple[int, ...], ...], int] = {}
    class_weight: list[float] = []
    representatives: list[tuple[int, ...]] = []
    n_deals = 0
    for deal, weight in joint_deals(live):
        n_deals += 1
        groups = [COMBO_CARDS[c].tolist() for c in deal]
        key = canonical_key([*groups, board, dead])
        index = class_of.setdefault(key, len(class_of))
        if index == len(class_weight):
            class_weight.append(0.0)
            representatives.append(deal)
        class_weight[index] += weight
    if not representatives:
        raise EquityError("no deal is possible: the ranges always collide")
    work = len(representatives) * boards_per_deal * len(players)
    if work > MAX_EXACT_EVALUATIONS:
        raise TooMuchWorkError(
            f"exact enumeration needs {work:,} hand evaluations; use Monte Carlo samples"
        )

    wins, splits, boards = enumerate_chunks(representatives, board, dead, threads, progress)
    weights = np.array(class_weight) / sum(class_weight)
    shares = splits / np.arange(len(players) + 1).clip(min=1)
    per_board = boards.astype(np.float64)[:, None]
    win_p = weights @ (wins / per_board)
    tie_p = weights @ (splits.sum(axis=2) / per_board)
    equity = weights @ ((wins + shares.sum(axis=2)) / per_board)
    return EquityResult(
        equities=tuple(float(x) for x in equity),
        wins=tuple(float(x) for x in win_p),
        ties=tuple(float(x) for x in tie_p),
        boards=boards_per_deal * n_deals,
        exact=True,
    )


def _headsup_from_matrices(
    first: Range, second: Range, matrices: PreflopMatrices, boards_per_deal: int
) -> EquityResult:
    """Heads-up preflop range equity read off the cached exact matrices (milliseconds)."""
    joint = np.outer(first.weights, second.weights) * ~conflict_matrix()
    total = joint.sum()
    if total <= 0:
        raise EquityError("no deal is possible: the ranges always collide")
    win = float((joint * matrices.win).sum() / total)
    tie = float((joint * matrices.tie).sum() / total)
    loss = 1.0 - win - tie
    return EquityResult(
        equities=(win + tie / 2, loss + tie / 2),
        wins=(win, loss),
        ties=(tie, tie),
        boards=boards_per_deal * int(np.count_nonzero(joint)),
        exact=True,
    )
