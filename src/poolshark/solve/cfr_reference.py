"""A plain tabular CFR and exact best response for small limit games (Kuhn, Leduc).

It is the reference :mod:`.limit_cfr` is tested against, written for reading, not speed:
one information set is a ``(decision node, own type sequence at that round)`` pair kept in
a dictionary, and each iteration walks the whole betting tree once for every pair of
last-round type sequences ``(i, j)`` that chance deals with probability
``joint[-1][i, j] > 0``. At round ``r`` a player holding last-round sequence ``i`` knows
only its round-``r`` ancestor, so that ancestor names its information set.

Updates alternate (player 0's walk over all deals, its regrets updated, then player 1's),
as in the fast solver, so both produce the same iterates:

* ``"cfr"``: regrets summed, average strategy weighted by own reach.
* ``"cfr+"``: regrets floored at 0 after each update, average weighted by ``t``.

The best response is computed per information set: its counterfactual value under each
action sums, over the opponent's sequences, chance times the opponent's reach times the
payoff, and the player keeps the best action. Values are chips per hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from poolshark.solve.betting_tree import BettingNode, BettingTree, NodeKind, build_tree
from poolshark.solve.limit_cfr import LimitStrategy, uniform_strategy
from poolshark.solve.limit_game import Floats, Int64s, LimitGame, LimitGameError

ReferenceAlgorithm = Literal["cfr", "cfr+"]
InfoSet = tuple[int, int]


@dataclass(frozen=True)
class ReferenceResult:
    """The reference solver's average strategy and its value and exploitability."""

    strategy: LimitStrategy
    value: float
    exploitability: float


def ancestors(game: LimitGame) -> list[Int64s]:
    """``ancestors(game)[r][k]``: the round-``r`` sequence last-round sequence ``k`` extends."""
    chance = game.chance
    last = chance.rounds - 1
    chains = [np.arange(chance.sequences(last), dtype=np.int64)]
    for r in range(last, 0, -1):
        chains.insert(0, chance.parent[r][chains[0]])
    return chains


def fold_payoff(node: BettingNode) -> int:
    """Player 0's chips won at a fold: the folder loses what it put in."""
    return -node.contributions[0] if node.player == 0 else node.contributions[1]


def matched(regrets: list[float], legal: tuple[bool, bool, bool]) -> list[float]:
    """Regret matching: positive regrets normalised, or uniform over legal actions."""
    positive = [max(g, 0.0) if ok else 0.0 for g, ok in zip(regrets, legal, strict=True)]
    total = sum(positive)
    if total > 0:
        return [g / total for g in positive]
    count = sum(legal)
    return [1.0 / count if ok else 0.0 for ok in legal]


class ReferenceCfr:
    """Tabular CFR state: regrets and strategy sums per information set."""

    def __init__(self, game: LimitGame, algorithm: ReferenceAlgorithm) -> None:
        if algorithm not in ("cfr", "cfr+"):
            raise LimitGameError("the reference runs 'cfr' or 'cfr+'")
        self.game = game
        self.algorithm = algorithm
        self.tree: BettingTree = build_tree(game.betting)
        self.ancestors = ancestors(game)
        self.regrets: dict[InfoSet, list[float]] = {}
        self.totals: dict[InfoSet, list[float]] = {}
        self.iteration = 0

    def info_set(self, node_id: int, deal: tuple[int, int]) -> InfoSet:
        """The acting player's information set at ``node_id`` in ``deal``."""
        node = self.tree.nodes[node_id]
        return (node_id, int(self.ancestors[node.round][deal[node.player]]))

    def current(self, key: InfoSet) -> list[float]:
        """The current strategy at an information set (regret matching)."""
        node = self.tree.nodes[key[0]]
        return matched(self.regrets.get(key, [0.0, 0.0, 0.0]), node.legal)

    def iterate(self) -> None:
        """One iteration: player 0 walks every deal and updates, then player 1."""
        self.iteration += 1
        joint = self.game.chance.joint[-1]
        for player in (0, 1):
            gains: dict[InfoSet, list[float]] = {}
            for i, j in zip(*np.nonzero(joint), strict=True):
                deal = (int(i), int(j))
                self.walk(0, deal, [1.0, 1.0], float(joint[i, j]), player, gains)
            for key, gain in gains.items():
                total = [a + b for a, b in zip(self.regrets.get(key, [0.0] * 3), gain, strict=True)]
                if self.algorithm == "cfr+":
                    total = [max(g, 0.0) for g in total]
                self.regrets[key] = total

    def walk(
        self,
        node_id: int,
        deal: tuple[int, int],
        reach: list[float],
        chance: float,
        player: int,
        gains: dict[InfoSet, list[float]],
    ) -> float:
        """``player``'s value below ``node_id`` in ``deal``; collects its regrets in ``gains``."""
        node = self.tree.nodes[node_id]
        sign = 1.0 if player == 0 else -1.0
        if node.kind is NodeKind.FOLD:
            return sign * fold_payoff(node)
        if node.kind is NodeKind.SHOWDOWN:
            result = self.game.chance.showdown[deal[0], deal[1]]
            return sign * float(result) * node.contributions[0]
        if node.kind is NodeKind.TRANSITION:
            return self.walk(node.children[1], deal, reach, chance, player, gains)
        actor = node.player
        key = self.info_set(node_id, deal)
        strategy = self.current(key)
        values = [0.0, 0.0, 0.0]
        for action, child in enumerate(node.children):
            if child < 0:
                continue
            after = list(reach)
            after[actor] *= strategy[action]
            values[action] = self.walk(child, deal, after, chance, player, gains)
        value = sum(p * v for p, v in zip(strategy, values, strict=True))
        if actor == player:
            weight = chance * reach[1 - player]
            gain = gains.setdefault(key, [0.0, 0.0, 0.0])
            for action, legal in enumerate(node.legal):
                if legal:
                    gain[action] += weight * (values[action] - value)
            step = float(self.iteration) if self.algorithm == "cfr+" else 1.0
            total = self.totals.setdefault(key, [0.0, 0.0, 0.0])
            for action in range(3):
                total[action] += step * chance * reach[player] * strategy[action]
        return value

    def average(self) -> LimitStrategy:
        """The average strategy (uniform where an information set was never reached)."""
        strategy = uniform_strategy(self.game)
        policy = [p.copy() for p in strategy.policy]
        for (node_id, sequence), total in self.totals.items():
            node = self.tree.nodes[node_id]
            row = strategy.node(node.history)
            policy[row][sequence] = matched(total, node.legal)
        return LimitStrategy(
            game_name=strategy.game_name,
            histories=strategy.histories,
            player=strategy.player,
            round=strategy.round,
            policy=tuple(policy),
        )


def reference_solve(
    game: LimitGame, iterations: int, *, algorithm: ReferenceAlgorithm = "cfr+"
) -> ReferenceResult:
    """Run the plain tabular CFR for ``iterations`` and measure its average strategy."""
    solver = ReferenceCfr(game, algorithm)
    for _ in range(iterations):
        solver.iterate()
    strategy = solver.average()
    return ReferenceResult(
        strategy=strategy,
        value=reference_game_value(game, strategy),
        exploitability=reference_exploitability(game, strategy),
    )


def opponent_reach(
    tree: BettingTree,
    strategy: LimitStrategy,
    node_id: int,
    opponent: int,
    sequence: int,
    game: LimitGame,
) -> float:
    """How likely ``opponent`` holding round sequence ``sequence`` plays to ``node_id``."""
    chain = []
    child = node_id
    while tree.nodes[child].parent >= 0:
        parent = tree.nodes[child].parent
        chain.append((parent, tree.nodes[parent].children.index(child)))
        child = parent
    node_round = tree.nodes[node_id].round
    reach = 1.0
    for parent, action in chain:
        node = tree.nodes[parent]
        if node.kind is not NodeKind.DECISION or node.player != opponent:
            continue
        own = sequence
        for r in range(node_round, node.round, -1):
            own = int(game.chance.parent[r][own])
        reach *= float(strategy.probabilities(node.history, own)[action])
    return reach


def reference_best_response_value(game: LimitGame, strategy: LimitStrategy, player: int) -> float:
    """``player``'s exact best-response value (chips per hand) against ``strategy``."""
    tree = build_tree(game.betting)
    chance = game.chance
    sign = 1.0 if player == 0 else -1.0

    def chance_of(r: int, own: int, other: int) -> float:
        pair = (own, other) if player == 0 else (other, own)
        return float(chance.joint[r][pair])

    def value(node_id: int, own: int) -> float:
        node = tree.nodes[node_id]
        r = node.round
        if node.kind in (NodeKind.FOLD, NodeKind.SHOWDOWN):
            total = 0.0
            for other in range(chance.sequences(r)):
                weight = chance_of(r, own, other)
                if weight == 0.0:
                    continue
                reach = opponent_reach(tree, strategy, node_id, 1 - player, other, game)
                if node.kind is NodeKind.FOLD:
                    payoff = sign * fold_payoff(node)
                else:
                    pair = (own, other) if player == 0 else (other, own)
                    payoff = sign * float(chance.showdown[pair]) * node.contributions[0]
                total += weight * reach * payoff
            return total
        if node.kind is NodeKind.TRANSITION:
            extensions = np.flatnonzero(chance.parent[r + 1] == own)
            return sum(value(node.children[1], int(k)) for k in extensions)
        options = [value(child, own) for child in node.children if child >= 0]
        return max(options) if node.player == player else sum(options)

    return sum(value(0, own) for own in range(chance.sequences(0)))


def reference_exploitability(game: LimitGame, strategy: LimitStrategy) -> float:
    """Mean of both players' exact best-response values (chips per hand)."""
    return 0.5 * (
        reference_best_response_value(game, strategy, 0)
        + reference_best_response_value(game, strategy, 1)
    )


def reference_game_value(game: LimitGame, strategy: LimitStrategy) -> float:
    """Player 0's expected chips per hand under ``strategy``, summed deal by deal."""
    tree = build_tree(game.betting)
    chains = ancestors(game)
    joint = game.chance.joint[-1]

    def value(node_id: int, deal: tuple[int, int]) -> float:
        node = tree.nodes[node_id]
        if node.kind is NodeKind.FOLD:
            return float(fold_payoff(node))
        if node.kind is NodeKind.SHOWDOWN:
            return float(game.chance.showdown[deal]) * node.contributions[0]
        if node.kind is NodeKind.TRANSITION:
            return value(node.children[1], deal)
        own = int(chains[node.round][deal[node.player]])
        probabilities: Floats = strategy.probabilities(node.history, own)
        return sum(
            float(probabilities[a]) * value(child, deal)
            for a, child in enumerate(node.children)
            if child >= 0
        )

    return sum(
        float(joint[i, j]) * value(0, (int(i), int(j)))
        for i, j in zip(*np.nonzero(joint), strict=True)
    )
