"""Decisions from ingested rows: hands rebuilt from the Parquet decision rows
(:func:`rows_states`), hole cards only where shown, grouped by seat count and game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt
import polars as pl

from poolshark.engine.config import GameConfig
from poolshark.histories.rows import position_name
from poolshark.pool.context import (
    MOVE_CALL,
    MOVE_FOLD,
    MOVE_RAISE,
    ActionLogs,
    Feature,
    replay_contexts,
)
from poolshark.population.features import MAX_SEATS
from poolshark.population.states import STREET_NAMES, DecisionStates, HandLogs

Int64s = npt.NDArray[np.int64]

_MOVE_OF_ACTION = {"fold": MOVE_FOLD, "check-call": MOVE_CALL, "bet-raise": MOVE_RAISE}


@dataclass(frozen=True, eq=False)
class RowHands:
    """Ingested decision rows of one game (seats and forced bets), rebuilt into hands.

    ``states`` are the rows as decisions (hole cards: -1 where never shown, until
    imputed), ``moves`` / ``amounts`` the action of each row, ``known`` (H, S, 2) the
    cards each seat showed (-1: hidden), ``players`` (H, S) an index into ``player_ids``
    (-1: a seat without rows), ``hand_ids`` (H,) the site's hand ids.
    """

    states: DecisionStates
    moves: Int64s
    amounts: Int64s
    known: Int64s
    players: Int64s
    player_ids: tuple[str, ...]
    hand_ids: tuple[str, ...]


@dataclass
class RowsReport:
    """What rebuilding ingested rows into hands kept and dropped, and (filled by
    :func:`rows_dataset`) how many seats' cards were imputed, joint draws rejected for a
    shared card, hands drawn seat by seat after too many rejections, hidden seats that
    mucked at a showdown (drawn from hands that lose there) and, of those, the ones whose
    source range held no losing hand."""

    rows: int = 0
    hands: int = 0
    kept_rows: int = 0
    kept_hands: int = 0
    dropped_limit_rows: int = 0
    dropped_inconsistent_hands: int = 0
    free_folds_as_checks: int = 0
    shown_seats: int = 0
    hidden_seats: int = 0
    imputed_seats: int = 0
    imputation_redraws: int = 0
    imputation_sequential: int = 0
    mucked_seats: int = 0
    muck_fallbacks: int = 0

    def as_dict(self) -> dict[str, int]:
        """Plain counts."""
        return dict(self.__dict__)

    def add(self, other: RowsReport) -> None:
        """Add another part's counts (rows built a chunk of hands at a time)."""
        for name, value in other.__dict__.items():
            setattr(self, name, getattr(self, name) + value)


def _button_offsets(players: int) -> dict[str, int]:
    """Position name -> seats after the button, at a table of ``players``."""
    return {position_name(seat, 0, players): seat for seat in range(players)}


def rows_states(frame: pl.DataFrame) -> tuple[list[RowHands], RowsReport]:
    """Rebuild ingested decision rows (``poolshark ingest``'s Parquet) into hands, one
    :class:`RowHands` per game.

    A hand's log is its rows in order (a call's chips, a raise's total); the button comes
    from any row's position; a seat's stack before the forced bets is its stack at its
    first decision plus the ante and blind its position posts (a seat that never acts gets
    the largest stack of the hand). Contexts are replayed from that and each row's ``pot``,
    ``to_call`` and ``stack`` must come out the same, or the whole hand is dropped (dead or
    posted blinds, which the synthetic-pool context does not describe). A fold when
    checking was free (PokerStars allows it) is labelled a check (``moves``: fold is no
    legal class there) but stays a fold in the hand's log, so later decisions see the
    player out of the hand. Fixed-limit rows are skipped.
    """
    report = RowsReport(rows=frame.height)
    limit = frame.filter(pl.col("betting") != "no-limit")
    report.dropped_limit_rows = limit.height
    frame = frame.filter(pl.col("betting") == "no-limit").sort(["site", "hand_id", "action_index"])
    report.hands = (
        frame.select(pl.struct("site", "hand_id").n_unique()).item() if frame.height else 0
    )
    groups: list[RowHands] = []
    games = frame.group_by(["players", "small_blind", "big_blind", "ante"], maintain_order=True)
    for key, part in games:  # in order (the imputation draws follow it)
        players, small, big, ante = (int(cast(int, v)) for v in key)
        group, dropped, free_folds = _rows_group(part, players, small, big, ante)
        report.dropped_inconsistent_hands += dropped
        report.free_folds_as_checks += free_folds
        if group is not None:
            groups.append(group)
            report.kept_rows += group.states.size
            report.kept_hands += int(np.unique(group.states.hand).size)
            acting = group.players >= 0
            shown = (group.known[:, :, 0] >= 0) & acting
            report.shown_seats += int(shown.sum())
            report.hidden_seats += int((acting & ~shown).sum())
    return groups, report


def _rows_group(
    part: pl.DataFrame, players: int, small: int, big: int, ante: int
) -> tuple[RowHands | None, int, int]:
    """One game's rows as hands; (hands or None, hands dropped, free folds relabelled)."""
    if not 2 <= players <= MAX_SEATS:
        return None, 0, 0
    config = GameConfig(seats=players, small_blind=small, big_blind=big, ante=ante)
    part = part.sort(["site", "hand_id", "action_index"])
    hand_key = part.select(pl.struct("site", "hand_id").rank("dense") - 1).to_series()
    hand = hand_key.to_numpy().astype(np.int64)
    n_hands = int(hand.max()) + 1
    seat = part["seat"].to_numpy().astype(np.int64)
    moves = part["action"].cast(pl.String).replace_strict(_MOVE_OF_ACTION).to_numpy()
    moves = moves.astype(np.int64)
    to_call = part["to_call"].to_numpy().astype(np.int64)
    free_fold = (moves == MOVE_FOLD) & (to_call == 0)
    logged = moves.copy()  # the log keeps the fold: the player is out of the hand
    moves[free_fold] = MOVE_CALL
    raise_to = part["raise_to"].fill_null(0).to_numpy().astype(np.int64)
    called = part["amount"].to_numpy().astype(np.int64)
    amounts = np.where(moves == MOVE_RAISE, raise_to, np.where(moves == MOVE_CALL, called, 0))
    street_index = {name: i for i, name in enumerate(STREET_NAMES)}
    street = part["street"].cast(pl.String).replace_strict(street_index).to_numpy()
    street = street.astype(np.int64)
    index = part["action_index"].to_numpy().astype(np.int64)
    length = np.bincount(hand, minlength=n_hands).astype(np.int64)
    in_order = index == np.arange(len(hand)) - np.repeat(np.cumsum(length) - length, length)
    index = np.where(in_order, index, 0)  # a hand with missing rows is dropped below
    offsets = _button_offsets(players)
    offset = part["position"].cast(pl.String).replace_strict(offsets).to_numpy().astype(np.int64)
    button = np.zeros(n_hands, dtype=np.int64)
    button[hand] = (seat - offset) % players
    width = max(int(length.max()), 1)
    log = [np.zeros((n_hands, width), dtype=np.int64) for _ in range(4)]
    for grid, values in zip(log, (seat, logged, amounts, street), strict=True):
        grid[hand, index] = values
    logs = ActionLogs(seat=log[0], move=log[1], amount=log[2], street=log[3], length=length)
    stack = part["stack"].to_numpy().astype(np.int64)
    first = np.zeros(len(hand), dtype=np.bool_)
    first[np.unique(hand * players + seat, return_index=True)[1]] = True  # rows are in order
    small_seat = np.where(players == 2, button, (button + 1) % players)
    big_seat = (small_seat + 1) % players
    posted = ante + np.where(seat == small_seat[hand], small, 0)
    posted = posted + np.where(seat == big_seat[hand], big, 0)
    stacks = np.full((n_hands, players), -1, dtype=np.int64)
    stacks[hand[first], seat[first]] = stack[first] + posted[first]
    deepest = np.where(stacks.max(axis=1) > 0, stacks.max(axis=1), 100 * big)
    stacks = np.where(stacks < 0, deepest[:, None], stacks)
    boards = np.full((n_hands, 5), -1, dtype=np.int64)
    board_lists = part["board"].to_list()
    for row in np.flatnonzero(np.r_[hand[1:] != hand[:-1], True]).tolist():
        cards = board_lists[row] or []
        boards[hand[row], : len(cards)] = cards
    known = np.full((n_hands, players, 2), -1, dtype=np.int64)
    hole = part["hole_cards"]
    has_cards = hole.is_not_null().to_numpy()
    if has_cards.any():
        shown = np.array(hole.filter(hole.is_not_null()).to_list(), dtype=np.int64)
        known[hand[has_cards], seat[has_cards]] = np.sort(shown, axis=1)
    names, player_index = np.unique(part["player_id"].to_numpy().astype(str), return_inverse=True)
    player_grid = np.full((n_hands, players), -1, dtype=np.int64)
    player_grid[hand, seat] = player_index
    hands = HandLogs(config, stacks, button, boards, logs)
    contexts = replay_contexts(config, stacks, button, logs)[hand, index]
    consistent = (
        in_order
        & (contexts[:, Feature.TO_CALL] == to_call)
        & (contexts[:, Feature.POT] == part["pot"].to_numpy())
        & (contexts[:, Feature.MY_STACK] == stack)
    )
    raising = moves == MOVE_RAISE
    consistent &= ~raising | (
        (amounts >= contexts[:, Feature.MIN_RAISE_TO])
        & (amounts <= contexts[:, Feature.MAX_RAISE_TO])
    )
    bad_hands = np.unique(hand[~consistent])
    keep_hand = np.ones(n_hands, dtype=np.bool_)
    keep_hand[bad_hands] = False
    keep = keep_hand[hand]
    hole_rows = known[hand, seat]
    states = DecisionStates(hands, hand[keep], index[keep], seat[keep], hole_rows[keep],
                            contexts[keep])  # fmt: skip
    hand_ids = part["hand_id"].to_numpy().astype(str)
    ids = np.empty(n_hands, dtype=object)
    ids[hand] = hand_ids
    group = RowHands(
        states=states,
        moves=moves[keep],
        amounts=amounts[keep],
        known=np.where(keep_hand[:, None, None], known, -1),
        players=np.where(keep_hand[:, None], player_grid, -1),
        player_ids=tuple(str(n) for n in names),
        hand_ids=tuple(str(i) for i in ids),
    )
    return group, int(bad_hands.size), int(free_fold[keep].sum())
