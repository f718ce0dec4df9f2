"""Local best response (LBR) in heads-up limit hold'em: how much a known strategy loses to
a simple opponent that reads its range exactly.

Exact exploitability is measured in the abstract game (``solve.limit_cfr``); the real
game is too big. LBR (Lisý and Bowling, 2017) gives a lower bound there: an agent that
knows its opponent's policy for every hand it could hold

1. keeps the opponent's range over the 1,326 combos: each opponent action multiplies
   every combo's weight by the probability the policy gives that action with that combo
   (card removal of our cards and the board applied);
2. at each decision values its options, assuming both players only check and call after
   this action: fold 0; check/call ``WP * (pot + call) - call``; bet/raise ``FP * pot +
   (1 - FP) * (WP' * (pot + 2 * raise - call) - raise)``, where ``raise`` is what the raise
   puts in, ``FP`` the range's chance of folding to it (the policy one node later),
   ``WP`` the chance of winning at showdown against the range and ``WP'`` against the part
   of it that continues;
3. takes the best option (check or call on ties).

``WP`` is HS (1 - NPOT) + (1 - HS) PPOT against the weighted range postflop and the all-in
equity preflop (``agents.limit_strength``). LBR's win rate against the strategy in a
duplicate match is the estimate: a strategy that loses little to LBR is hard to exploit
locally; a large loss is a proven leak.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from poolshark.agents.equilibrium import EquilibriumAgent, history_of
from poolshark.agents.limit_strength import preflop_strength, strength_potential
from poolshark.agents.protocol import AgentError, Decisions, Moves, SeatView
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS
from poolshark.engine.config import Betting
from poolshark.engine.kernel import CHECK_CALL, FOLD, RAISE
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.solve.bucket_features import BOARD_CARDS

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]


class KnownLimitPolicy(Protocol):
    """A heads-up limit policy known hand by hand: (1326, 3) fold/call/raise probabilities
    of every combo at a decision ``history`` on ``board`` (zeros for combos the board holds)."""

    def combo_policy(self, history: str, board: tuple[int, ...]) -> Floats: ...


class AbstractionPolicy:
    """The policy of an :class:`EquilibriumAgent` for every combo: each combo's bucket
    sequence on the board, then the strategy's row for that sequence."""

    def __init__(self, agent: EquilibriumAgent) -> None:
        self.abstraction = agent.abstraction
        self.strategy = agent.strategy
        self._sequences: dict[tuple[int, ...], Int64s] = {}

    def sequences(self, board: tuple[int, ...]) -> Int64s:
        """(1326,) every combo's bucket sequence up to the street of ``board`` (-1 where
        the combo holds a board card); cached per board."""
        known = self._sequences.get(board)
        if known is not None:
            return known
        street = BOARD_CARDS.index(len(board))
        live = ~np.isin(COMBO_CARDS, board).any(axis=1)
        holes = COMBO_CARDS[live].astype(np.int64)
        sequence = np.zeros(int(live.sum()), dtype=np.int64)
        for s in range(street + 1):
            boards = np.full((holes.shape[0], 5), -1, dtype=np.int64)
            boards[:, : BOARD_CARDS[s]] = board[: BOARD_CARDS[s]]
            buckets = self.abstraction.bucket_batch(s, holes, boards)
            sequence = sequence * self.abstraction.buckets[s] + buckets
        found = np.full(N_COMBOS, -1, dtype=np.int64)
        found[live] = sequence
        self._sequences[board] = found
        return found

    def combo_policy(self, history: str, board: tuple[int, ...]) -> Floats:
        """(1326, 3) the strategy's probabilities at ``history`` for every combo."""
        sequences = self.sequences(board)
        table = np.asarray(self.strategy.policy[self.strategy.node(history)])  # type: ignore[attr-defined]
        policy = np.zeros((N_COMBOS, 3))
        live = sequences >= 0
        policy[live] = table[sequences[live]]
        return policy


@dataclass
class _Hand:
    """LBR's view of one hand at one table: the opponent's range and the log read so far."""

    hand_id: int
    weights: Floats
    read: int = 0


@dataclass
class LocalBestResponse:
    """The LBR agent against ``opponent`` (module doc); ``seed`` seeds its equity samples."""

    opponent: KnownLimitPolicy
    seed: int = 0
    hands: dict[int, _Hand] = field(default_factory=dict)

    def act(self, decisions: Decisions) -> Moves:
        """The best local action at every decision (fixed-limit raises to the minimum)."""
        config = decisions.batch.config
        if config.seats != 2 or config.betting is not Betting.FIXED_LIMIT:
            raise AgentError("local best response plays heads-up fixed-limit only")
        moves = np.zeros(decisions.size, dtype=np.int64)
        amounts = np.zeros(decisions.size, dtype=np.int64)
        for row in range(decisions.size):
            view = decisions.view(row)
            weights = self.range_at(view, int(decisions.tables[row]), int(decisions.hand_ids[row]))
            moves[row] = self.choose(view, weights)
            if moves[row] == RAISE and view.min_raise_to is not None:
                amounts[row] = view.min_raise_to
        return Moves(moves, amounts)

    def range_at(self, view: SeatView, table: int, hand_id: int) -> Floats:
        """The opponent's range at this decision: every action it took since we last read
        the log, applied through its policy."""
        hand = self.hands.get(table)
        if hand is None or hand.hand_id != hand_id:
            weights = np.ones(N_COMBOS)
            weights[np.isin(COMBO_CARDS, view.hole_cards).any(axis=1)] = 0.0
            hand = _Hand(hand_id, weights)
            self.hands[table] = hand
        actions = view.actions
        for index in range(hand.read, len(actions)):
            seat, move, _, street = actions[index]
            if seat == view.seat:
                continue
            history = history_of(actions[:index], street)
            board = view.board[: BOARD_CARDS[street]]
            hand.weights *= self.opponent.combo_policy(history, board)[:, move]
        hand.read = len(actions)
        hand.weights[np.isin(COMBO_CARDS, view.board).any(axis=1)] = 0.0
        return hand.weights

    def win_chance(self, view: SeatView, weights: Floats) -> float:
        """Our chance to win at showdown against ``weights`` if nobody bets again."""
        if weights.sum() <= 0:
            return 1.0
        seed = self.seed + 7919 * len(view.actions) + view.hole_cards[0]
        if view.street == 0:
            return preflop_strength(view.hole_cards, weights, seed=seed)
        strength, ppot, npot = strength_potential(view.hole_cards, view.board, weights, seed=seed)
        return strength * (1 - npot) + (1 - strength) * ppot

    def choose(self, view: SeatView, weights: Floats) -> int:
        """The move with the greatest local value (module doc)."""
        pot, call = view.pot, view.call
        values = {CHECK_CALL: self.win_chance(view, weights) * (pot + call) - call}
        if call > 0:
            values[FOLD] = 0.0
        if view.min_raise_to is not None:
            history = history_of(view.actions, view.street) + "r"
            fold = self.opponent.combo_policy(history, view.board)[:, FOLD]
            total = weights.sum()
            folds = float((weights * fold).sum() / total) if total > 0 else 0.0
            raise_cost = view.min_raise_to - view.bets[view.seat]
            continuing = weights * (1 - fold)
            showdown = self.win_chance(view, continuing) * (pot + 2 * raise_cost - call)
            values[RAISE] = folds * pot + (1 - folds) * (showdown - raise_cost)
        best = max(values.values())
        return CHECK_CALL if values[CHECK_CALL] >= best else max(values, key=values.__getitem__)


@dataclass(frozen=True)
class LbrResult:
    """LBR's win rate against a strategy: small bets and milli-big-blinds per hand."""

    small_bets_per_hand: float
    ci95: tuple[float, float]
    hands: int
    seconds: float

    @property
    def mbb_per_hand(self) -> float:
        """The same in milli-big-blinds per hand (the small bet is the big blind)."""
        return 1000 * self.small_bets_per_hand

    def as_dict(self) -> dict[str, object]:
        """Plain values for JSON."""
        return {
            "lbr_sb_per_hand": self.small_bets_per_hand,
            "lbr_mbb_per_hand": self.mbb_per_hand,
            "ci95_sb": list(self.ci95),
            "ci95_mbb": [1000 * bound for bound in self.ci95],
            "hands": self.hands,
            "seconds": self.seconds,
        }


def local_best_response(
    agent: EquilibriumAgent,
    *,
    hands: int,
    seed: int = 0,
    tables: int = 64,
    progress: Callable[[int, int], None] | None = None,
) -> LbrResult:
    """LBR against ``agent`` over a duplicate heads-up fixed-limit match (LBR's win rate)."""
    lbr = LocalBestResponse(AbstractionPolicy(agent), seed=seed)
    config = MatchConfig(
        hands=hands,
        seats=2,
        duplicate=True,
        seed=seed,
        tables=tables,
        betting=Betting.FIXED_LIMIT,
    )
    result = play_match([lbr, agent], (0, 1), config, names=["lbr", "agent"], progress=progress)
    rate = result.agents[0].actual
    low, high = rate.interval
    return LbrResult(
        rate.small_bets_per_hand, (low / 100, high / 100), result.table_hands, result.seconds
    )
