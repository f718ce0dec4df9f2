"""Play a solved abstract strategy of heads-up limit hold'em in the real game (Sparbot's role).

:class:`EquilibriumAgent` holds a :class:`~poolshark.solve.card_abstraction.CardAbstraction`
and a strategy over its abstract game (anything with ``probabilities(history, sequence)``,
such as the CFR solver's ``LimitStrategy``). At each decision it

1. maps the engine's action log to the abstract *history*: one character per decision,
   ``f`` fold, ``c`` check/call, ``r`` bet/raise, rounds separated by ``/`` (the current
   round's part is open: the flop's first decision reads ``cc/``);
2. finds its own *bucket sequence*: its bucket on each street so far, folded as
   ``seq_r = seq_{r-1} * K_r + bucket_r`` (cached per hand, so each street is bucketed once);
3. asks the strategy for (fold, call, raise) probabilities and samples them with the
   match's stream ``decisions.rng``.

Roles: in heads-up the button posts the small blind and is player 0 of the abstract game
(first to act preflop, last after); the big blind is player 1.

Off the tree (the engine allowing what the abstract game does not):

* a raise past the cap (a match with ``cap_heads_up`` off): the round's history is at the
  cap, ``c?r^k``; the over-cap raise toggles the leading check/limp (``rrrr`` becomes
  ``crrrr`` and back), which is the capped state with the right player facing the bet;
  the abstract pot is smaller than the real one by the over-cap bets;
* an action the engine forbids (no raise when a stack is short, no fold when checking is
  free): its probability moves to check/call, so the agent is never coerced;
* a history that maps to no decision of this player in the tree, or one the strategy
  does not know (``KeyError``): check/call, counted in :attr:`off_tree` (with the CFR
  solver's strategies this never happens: :func:`tree_node` accepts exactly the decision
  histories of its tree). A strategy that refuses a history of the tree or a sequence
  (``LimitGameError``) is a mismatch of strategy and abstraction, raised as an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import AgentError, Decisions, Moves
from poolshark.engine.kernel import BUTTON, CHECK_CALL, FOLD, RAISE
from poolshark.solve.bucket_features import BOARD_CARDS
from poolshark.solve.card_abstraction import CardAbstraction
from poolshark.solve.limit_cfr import LimitStrategy
from poolshark.solve.limit_game import HOLDEM_BETTING, LimitBetting, LimitGameError

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

MOVE_CHARS = {FOLD: "f", CHECK_CALL: "c", RAISE: "r"}
"""The history character of each engine move."""


class AbstractStrategy(Protocol):
    """A strategy of an abstract limit game: (fold, call, raise) probabilities at a
    history for the acting player's type sequence (the CFR solver's ``LimitStrategy``)."""

    def probabilities(self, history: str, sequence: int) -> npt.ArrayLike: ...


def history_of(
    actions: Sequence[tuple[int, int, int, int]],
    street: int,
    betting: LimitBetting = HOLDEM_BETTING,
) -> str:
    """The abstract history of a hand's action log ``(seat, move, amount, street)`` at a
    decision on ``street`` (raises past the cap are toggled, see the module doc)."""
    if not 0 <= street < betting.rounds:
        raise AgentError(f"street {street} is not a round of the game (0..{betting.rounds - 1})")
    rounds = [""] * (street + 1)
    for _, move, _, round_ in actions:
        if not 0 <= round_ <= street:
            raise AgentError(f"an action on street {round_} in a decision on street {street}")
        if move not in MOVE_CHARS:
            raise AgentError(f"unknown move {move} in the action log")
        text = rounds[round_]
        bets = betting.opening_bets[round_] + text.count("r")
        if move == RAISE and bets >= betting.cap:
            text = text[1:] if text.startswith("c") else "c" + text
        else:
            text += MOVE_CHARS[move]
        rounds[round_] = text
    return "/".join(rounds)


def tree_node(history: str, betting: LimitBetting = HOLDEM_BETTING) -> tuple[int, bool, bool]:
    """(player to act, may fold, may raise) at a decision ``history`` of the abstract game;
    :class:`AgentError` when the history is not a decision of the tree.

    A round in progress reads ``c?r*`` (a check or limp, then bets and raises up to the
    cap); a finished round is one of those followed by the ``c`` that closes it."""
    rounds = history.split("/")
    if len(rounds) > betting.rounds:
        raise AgentError(f"history {history!r} has more than {betting.rounds} rounds")
    for r, text in enumerate(rounds[:-1]):
        if len(text) < 2 or text[-1] != "c" or not _round_open(text[:-1], r, betting):
            raise AgentError(f"history {history!r}: round {r} is not a finished round")
    r, text = len(rounds) - 1, rounds[-1]
    if not _round_open(text, r, betting):
        raise AgentError(f"history {history!r}: round {r} is not a decision of the tree")
    player = (betting.first_to_act[r] + len(text)) % 2
    facing = text.endswith("r") or (not text and betting.opening_bets[r] > 0)
    bets = betting.opening_bets[r] + text.count("r")
    return player, facing, bets < betting.cap


def _round_open(text: str, round_: int, betting: LimitBetting) -> bool:
    """Whether ``text`` is a round still in progress: ``c?r*`` within the cap."""
    body = text[1:] if text.startswith("c") else text
    return set(body) <= {"r"} and betting.opening_bets[round_] + len(body) <= betting.cap


class EquilibriumAgent:
    """Plays ``strategy`` (over ``abstraction``'s abstract game) at heads-up fixed-limit
    tables; see the module doc. ``threads``: cores for the postflop bucket features."""

    def __init__(
        self,
        abstraction: CardAbstraction,
        strategy: AbstractStrategy,
        *,
        betting: LimitBetting = HOLDEM_BETTING,
        threads: int | None = 1,
    ) -> None:
        name = getattr(strategy, "game_name", None)
        if isinstance(name, str) and name.startswith("holdem-") and name != abstraction.game_name:
            raise AgentError(
                f"the strategy solves {name!r} but the abstraction's game is "
                f"{abstraction.game_name!r}"
            )
        self.abstraction = abstraction
        self.strategy = strategy
        self.betting = betting
        self.threads = threads
        self.off_tree = 0
        self._buckets: dict[tuple[int, int], tuple[int, list[int]]] = {}

    def act(self, decisions: Decisions) -> Moves:
        """One sampled fixed-limit move per decision (raises to ``min_raise_to``)."""
        if decisions.batch.config.seats != 2:
            raise AgentError(
                f"EquilibriumAgent plays heads-up only, not {decisions.batch.config.seats} seats"
            )
        sequences = self.sequences(decisions)
        probabilities = np.zeros((decisions.size, 3))
        for row in range(decisions.size):
            probabilities[row] = self.row_probabilities(decisions, row, int(sequences[row]))
        legal_fold = decisions.call > 0
        legal_raise = decisions.min_raise_to >= 0
        probabilities[:, CHECK_CALL] += np.where(legal_fold, 0.0, probabilities[:, FOLD])
        probabilities[:, CHECK_CALL] += np.where(legal_raise, 0.0, probabilities[:, RAISE])
        probabilities[:, FOLD] *= legal_fold
        probabilities[:, RAISE] *= legal_raise
        total = probabilities.sum(axis=1)
        cumulative = np.cumsum(probabilities, axis=1)
        target = decisions.rng.random(decisions.size) * total
        moves = np.minimum((cumulative <= target[:, None]).sum(axis=1), RAISE)
        moves = np.where(probabilities[np.arange(decisions.size), moves] > 0, moves, CHECK_CALL)
        amounts = np.where(moves == RAISE, decisions.min_raise_to, 0)
        return Moves(moves.astype(np.int64), amounts.astype(np.int64))

    def row_probabilities(self, decisions: Decisions, row: int, sequence: int) -> Floats:
        """(3,) the strategy's (fold, call, raise) at decision ``row``, masked to the
        tree's actions; check/call (and :attr:`off_tree` counted) off the tree."""
        table, seat = int(decisions.tables[row]), int(decisions.seats[row])
        player = 0 if seat == int(decisions.batch.table[table, BUTTON]) else 1
        history = history_of(
            decisions.batch.actions(table), int(decisions.street[row]), self.betting
        )
        fallback = np.array([0.0, 1.0, 0.0])
        try:
            actor, may_fold, may_raise = tree_node(history, self.betting)
            if actor != player:
                raise AgentError(f"history {history!r} is player {actor}'s decision")
            found = np.asarray(self.strategy.probabilities(history, sequence), dtype=np.float64)
        except (AgentError, KeyError):
            self.off_tree += 1
            return fallback
        except LimitGameError as error:
            raise AgentError(
                f"the strategy refused history {history!r}, sequence {sequence}: {error}"
            ) from None
        if found.shape != (3,) or not np.isfinite(found).all() or (found < 0).any():
            raise AgentError(
                f"strategy probabilities at {history!r} must be 3 finite non-negative numbers"
            )
        found = found * np.array([may_fold, True, may_raise])
        return found if found.sum() > 0 else fallback

    def sequences(self, decisions: Decisions) -> Int64s:
        """(D,) each acting player's bucket sequence at its current street."""
        rows_by_street: list[list[int]] = [[] for _ in range(len(BOARD_CARDS))]
        lists: list[list[int]] = []
        for row in range(decisions.size):
            key = (int(decisions.tables[row]), int(decisions.seats[row]))
            hand = int(decisions.hand_ids[row])
            cached = self._buckets.get(key)
            if cached is None or cached[0] != hand:
                cached = (hand, [])
                self._buckets[key] = cached
            lists.append(cached[1])
            for street in range(len(cached[1]), int(decisions.street[row]) + 1):
                rows_by_street[street].append(row)
        for street, rows in enumerate(rows_by_street):
            if not rows:
                continue
            boards = decisions.board[rows].copy()
            boards[:, BOARD_CARDS[street] :] = -1
            found = self.abstraction.bucket_batch(
                street, decisions.hole_cards[rows], boards, threads=self.threads
            )
            for row, bucket in zip(rows, found.tolist(), strict=True):
                lists[row].append(bucket)
        sequences = np.zeros(decisions.size, dtype=np.int64)
        for row, buckets in enumerate(lists):
            sequence = 0
            for street, bucket in enumerate(buckets[: int(decisions.street[row]) + 1]):
                sequence = sequence * self.abstraction.buckets[street] + bucket
            sequences[row] = sequence
        return sequences


ABSTRACTION_FILE = "abstraction.npz"
STRATEGY_FILE = "strategy.npz"
"""The files of a solved abstraction's folder (``poolshark solve limit --out``)."""


def is_equilibrium_folder(path: Path) -> bool:
    """Whether ``path`` is a folder holding a solved abstraction and its strategy."""
    return path.is_dir() and (path / STRATEGY_FILE).is_file()


def load_equilibrium_agent(folder: Path) -> EquilibriumAgent:
    """The agent of a ``poolshark solve limit`` folder; :class:`AgentError` naming the
    missing or unreadable file otherwise."""
    for name in (ABSTRACTION_FILE, STRATEGY_FILE):
        if not (folder / name).is_file():
            raise AgentError(f"{folder} has no {name} (make one with poolshark solve limit)")
    try:
        abstraction = CardAbstraction.load(folder / ABSTRACTION_FILE)
        strategy = LimitStrategy.load(folder / STRATEGY_FILE)
    except (OSError, ValueError, KeyError) as error:
        raise AgentError(f"cannot load the solved abstraction in {folder}: {error}") from None
    return EquilibriumAgent(abstraction, strategy)
