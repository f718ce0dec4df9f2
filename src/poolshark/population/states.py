"""Decision states: the state just before one voluntary action, from any source.

A *decision* is a hand's public record up to that point (:class:`HandLogs`: game, stacks
before the forced bets, button, board, action log), the acting seat, its two hole cards and
the synthetic-pool decision context (:mod:`poolshark.pool.context`). The same
:class:`DecisionStates` come from three places, and everything after is one code path, so
features cannot drift between them:

* simulated hands (:func:`simulated_states`: every hole card known; contexts by
  ``replay_contexts``);
* ingested decision rows (:func:`poolshark.population.hands.rows_states`: hands rebuilt
  from the Parquet rows, hole cards only where shown, the rest imputed);
* live engine decisions (``poolshark.population.agent``: contexts by ``context_batch``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from poolshark.engine.config import GameConfig
from poolshark.pool.context import N_FEATURES, ActionLogs, Feature, replay_contexts
from poolshark.pool.simulate import FORCED, SimulatedHands

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]


class ActionDataError(ValueError):
    """Decisions or rows that cannot be turned into training rows; the message says why."""


STREET_NAMES = ("preflop", "flop", "turn", "river")
VISIBLE = (0, 3, 4, 5)
"""Board cards shown on each street."""
VISIBLE_NB = np.array(VISIBLE, dtype=np.int64)
VISIBLE_NB.flags.writeable = False


def game_numbers(config: GameConfig) -> tuple[int, int, int, int, int]:
    return (config.seats, config.small_blind, config.big_blind, config.straddle, config.ante)


@dataclass(frozen=True, eq=False)
class HandLogs:
    """H hands' public records: the game, each seat's chips before the forced bets
    (H, S), the button (H,), the board (H, 5; -1 for a card nobody saw) and the padded
    action logs (move codes of :mod:`poolshark.pool.context`)."""

    config: GameConfig
    starting_stacks: Int64s
    button: Int64s
    boards: Int64s
    logs: ActionLogs

    def __post_init__(self) -> None:
        h, s = len(self.button), self.config.seats
        if self.starting_stacks.shape != (h, s) or self.boards.shape != (h, 5):
            raise ActionDataError(
                f"hand logs: need ({h}, {s}) stacks and ({h}, 5) boards, got "
                f"{self.starting_stacks.shape} and {self.boards.shape}"
            )
        if self.logs.length.shape != (h,):
            raise ActionDataError(f"hand logs: the action logs must hold {h} hands")
        if self.boards.size and (self.boards.min() < -1 or self.boards.max() > 51):
            raise ActionDataError("hand logs: board cards are 0..51, or -1 for an unseen card")


@dataclass(frozen=True, eq=False)
class DecisionStates:
    """N decisions: decision ``i`` is seat ``seat[i]`` to act in hand ``hand[i]`` of
    ``hands`` after its first ``index[i]`` logged actions, holding ``hole[i]``, with the
    decision context ``contexts[i]`` (:class:`~poolshark.pool.context.Feature`)."""

    hands: HandLogs
    hand: Int64s
    index: Int64s
    seat: Int64s
    hole: Int64s
    contexts: Floats

    def __post_init__(self) -> None:
        n = len(self.hand)
        for name, shape in (
            ("index", (n,)),
            ("seat", (n,)),
            ("hole", (n, 2)),
            ("contexts", (n, N_FEATURES)),
        ):
            if getattr(self, name).shape != shape:
                raise ActionDataError(f"decision states: {name} must have shape {shape}")

    @property
    def size(self) -> int:
        """Number of decisions N."""
        return int(self.hand.size)

    @property
    def street(self) -> Int64s:
        """(N,) 0 preflop .. 3 river."""
        return self.contexts[:, Feature.STREET].astype(np.int64)

    def visible_boards(self) -> Int64s:
        """(N, 5) the board shown at each decision, -1 for cards not shown yet."""
        boards = self.hands.boards[self.hand].copy()
        shown = np.array(VISIBLE)[self.street]
        boards[np.arange(5)[None, :] >= shown[:, None]] = -1
        return boards

    def subset(self, rows: Int64s) -> DecisionStates:
        """The decisions at ``rows`` (same hands)."""
        return DecisionStates(
            self.hands,
            self.hand[rows],
            self.index[rows],
            self.seat[rows],
            self.hole[rows],
            self.contexts[rows],
        )


def hand_slice(hands: SimulatedHands, logs: ActionLogs, start: int, stop: int) -> HandLogs:
    """Hands ``start:stop`` of a simulation as :class:`HandLogs` (every board card known)."""
    rows = slice(start, stop)
    return HandLogs(
        hands.config,
        hands.stacks[rows].astype(np.int64),
        hands.button[rows].astype(np.int64),
        hands.boards[rows].astype(np.int64),
        ActionLogs(*(a[rows] for a in logs)),
    )


def seen_boards(hands: HandLogs, shown: Int64s) -> HandLogs:
    """The same hands with only their ``shown`` (H,) board cards: what their histories
    show. A simulation deals five board cards to every hand but settles all-in pots by
    expectation, so a hand shows the board only up to the street it ended on."""
    boards = np.where(np.arange(5)[None, :] < shown[:, None], hands.boards, -1)
    return replace(hands, boards=boards.astype(np.int64))


def select_hands(hands: SimulatedHands, rows: Int64s) -> SimulatedHands:
    """The hands at ``rows`` (ascending) of a simulation, as a simulation of their own."""
    rows = np.asarray(rows, dtype=np.int64)
    starts, stops = hands.action_start[rows], hands.action_start[rows + 1]
    length = stops - starts
    actions = np.concatenate([np.arange(a, b) for a, b in zip(starts, stops, strict=True)] or
                             [np.zeros(0, dtype=np.int64)])  # fmt: skip
    per_hand = {
        name: getattr(hands, name)[rows]
        for name in ("hand_id", "time", "table", "button", "players", "styles", "stacks",
                     "cards", "shown", "showdown", "showed", "total", "net")
    }  # fmt: skip
    per_action = {
        name: getattr(hands, name)[actions]
        for name in ("action_seat", "action_move", "action_amount", "action_street",
                     "action_flags")
    }  # fmt: skip
    return replace(
        hands,
        **per_hand,
        **per_action,
        action_start=np.concatenate([[0], np.cumsum(length)]).astype(np.int64),
        coerced=0,
    )


def simulated_states(
    hands: SimulatedHands, start: int = 0, stop: int | None = None
) -> tuple[DecisionStates, Int64s, Int64s]:
    """Every decision of hands ``start:stop`` (the engine's forced checks are not decisions),
    with the move and amount taken at each: (states, moves, amounts)."""
    stop = len(hands) if stop is None else stop
    logs = hands.action_logs()
    table = hand_slice(hands, logs, start, stop)
    first, last = int(hands.action_start[start]), int(hands.action_start[stop])
    length = table.logs.length
    hand = np.repeat(np.arange(stop - start), length)
    index = np.arange(last - first) - np.repeat(np.cumsum(length) - length, length)
    keep = (hands.action_flags[first:last] & FORCED) == 0
    hand, index = hand[keep], index[keep]
    seat = hands.action_seat[first:last][keep]
    hole = hands.hole_cards[start:stop][hand, seat].astype(np.int64)
    contexts = replay_contexts(table.config, table.starting_stacks, table.button, table.logs)
    states = DecisionStates(table, hand, index, seat, hole, contexts[hand, index])
    moves = hands.action_move[first:last][keep].astype(np.int64)
    amounts = hands.action_amount[first:last][keep].astype(np.int64)
    return states, moves, amounts
