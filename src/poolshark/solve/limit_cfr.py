"""A fast CFR+ / discounted-CFR solver for two-player limit games, with exact best responses.

It works on the public betting tree (:mod:`.betting_tree`) and is vectorised over private
type sequences: at a node of round ``r`` each player's reach is a vector over its round-``r``
sequences, and a player's counterfactual values are a vector over its own. An information
set is a (decision node, own sequence) pair, so one vector operation updates every
information set at a node, and all nodes at one depth of a round are updated together.

One iteration for the updating player ``p``:

1. the opponent's reach at every node is known (from its current strategy);
2. terminal values of a whole round are two matrix products: ``fold`` values are
   ``pay * (reach_opp @ joint_r^T)`` and showdown values ``stake * (reach_opp @ (joint *
   showdown)^T)`` (from player 1's side the matrices are transposed and the showdown
   negated);
3. values climb the tree depth by depth: at the opponent's nodes children are summed, at
   ``p``'s weighted by its strategy; at a round transition the next round's values are
   summed over the sequences extending each of this round's;
4. instantaneous regrets ``v(child) - v(node)`` update ``p``'s regrets and strategy, and its
   reach-weighted strategy is added to the average.

Algorithms (alternating updates: player 0, then player 1, each iteration):

* ``"cfr+"``: regret matching+ (regrets floored at 0 after each update), average weighted
  by the iteration number ``t`` (Tammelin et al., 2015).
* ``"dcfr"``: discounted CFR with alpha 1.5, beta 0, gamma 2 (Brown and Sandholm, 2019):
  after iteration ``t`` positive regrets are scaled by ``t^1.5 / (t^1.5 + 1)``, negative ones
  by ``1/2``, and the running average by ``((t - 1) / t)^2`` before adding iteration ``t``'s.
* ``"cfr"``: vanilla regret matching and a uniform average (a baseline).

The best response is exact: a player's best-response value climbs the same tree taking the
maximum over its actions, per own sequence. Values are chips per hand for the player named;
:func:`exploitability` is the mean of the two players' best-response values (0 at an
equilibrium). Everything is float64 numpy.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from poolshark.solve.betting_tree import BettingTree, NodeKind, build_tree
from poolshark.solve.limit_game import (
    ChanceModel,
    Floats,
    Int64s,
    LimitBetting,
    LimitGame,
    LimitGameError,
)

Algorithm = Literal["cfr+", "dcfr", "cfr"]
ALGORITHMS: tuple[Algorithm, ...] = ("cfr+", "dcfr", "cfr")
DCFR_ALPHA, DCFR_BETA, DCFR_GAMMA = 1.5, 0.0, 2.0
N_ACTIONS = 3


@dataclass(frozen=True, eq=False)
class LimitStrategy:
    """A behaviour strategy for both players of a limit game.

    ``histories[n]`` is the betting history of decision node ``n``, ``player[n]`` who acts
    there and ``round[n]`` its round. ``policy[n][k]`` is the probability of fold, call and
    raise for the actor holding type sequence ``k`` of that round (illegal actions 0).
    """

    game_name: str
    histories: tuple[str, ...]
    player: Int64s
    round: Int64s
    policy: tuple[Floats, ...]

    def __post_init__(self) -> None:
        n = len(self.histories)
        if self.player.shape != (n,) or self.round.shape != (n,) or len(self.policy) != n:
            raise LimitGameError("a strategy needs a player, a round and a policy per history")
        object.__setattr__(self, "_index", {h: i for i, h in enumerate(self.histories)})

    def node(self, history: str) -> int:
        """The decision node of ``history`` in this strategy's numbering."""
        index: dict[str, int] = self._index  # type: ignore[attr-defined]
        if history not in index:
            raise LimitGameError(f"no decision at betting history {history!r}")
        return index[history]

    def probabilities(self, history: str, sequence: int) -> Floats:
        """Fold, call and raise probabilities at ``history`` for type sequence ``sequence``."""
        policy = self.policy[self.node(history)]
        if not 0 <= sequence < policy.shape[0]:
            raise LimitGameError(f"sequence {sequence} is not in 0..{policy.shape[0] - 1}")
        row: Floats = policy[sequence]
        return row

    def save(self, path: Path | str) -> None:
        """Write the strategy to ``path`` (.npz), atomically: a temporary file, then a rename."""
        target = Path(path)
        arrays: dict[str, np.ndarray] = {
            "game_name": np.array(self.game_name),
            "histories": np.array(self.histories, dtype=np.str_),
            "player": self.player,
            "round": self.round,
        }
        for r in np.unique(self.round):
            members = np.flatnonzero(self.round == r)
            arrays[f"nodes_{r}"] = members
            arrays[f"policy_{r}"] = np.stack([self.policy[i] for i in members])
        handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".npz.tmp")
        try:
            with os.fdopen(handle, "wb") as stream:
                np.savez_compressed(stream, **arrays)  # type: ignore[arg-type]
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: Path | str) -> LimitStrategy:
        """Read a strategy written by :meth:`save` (no pickles)."""
        with np.load(Path(path), allow_pickle=False) as data:
            rounds = np.asarray(data["round"], dtype=np.int64)
            policy: list[Floats | None] = [None] * rounds.size
            for r in np.unique(rounds):
                stacked = np.asarray(data[f"policy_{r}"], dtype=np.float64)
                for row, node in zip(stacked, data[f"nodes_{r}"], strict=True):
                    policy[int(node)] = row
            return cls(
                game_name=str(data["game_name"]),
                histories=tuple(str(h) for h in data["histories"]),
                player=np.asarray(data["player"], dtype=np.int64),
                round=rounds,
                policy=tuple(p for p in policy if p is not None),
            )


@dataclass(frozen=True)
class SolveResult:
    """What :func:`solve` found: the average strategy, its value and exploitability curve.

    ``value`` is player 0's expected chips per hand when both play ``strategy``;
    ``curve`` holds ``(iteration, exploitability)`` at each checkpoint (chips per hand).
    """

    game_name: str
    algorithm: Algorithm
    iterations: int
    strategy: LimitStrategy
    value: float
    exploitability: float
    curve: tuple[tuple[int, float], ...]
    seconds: float


@dataclass(frozen=True, eq=False)
class _RoundArrays:
    """One round of the tree in array form (local node numbers; row ``count`` is a zero row)."""

    count: int
    sequences: int
    decision_nodes: Int64s  # global node numbers of the round's decisions, in order
    decision_local: Int64s  # their local numbers
    children: Int64s  # (decisions, 3) local numbers, the zero row where illegal
    legal: Floats  # (decisions, 3, 1) 1.0 where legal
    actor: Int64s
    own: tuple[Int64s, Int64s]  # decision positions of player 0 and player 1
    levels: tuple[tuple[Int64s, Int64s], ...]  # per depth: positions of player 0's, player 1's
    fold_local: Int64s
    fold_pay: tuple[Floats, Floats]  # per player, chips won at each fold
    showdown_local: Int64s
    showdown_stake: Floats
    transition_local: Int64s
    transition_child: Int64s  # local number of the next round's first decision


@dataclass(frozen=True, eq=False)
class _Arrays:
    """The tree and chance model of a game, ready for vectorised passes."""

    tree: BettingTree
    rounds: tuple[_RoundArrays, ...]
    fold_matrix: tuple[tuple[Floats, Floats], ...]  # per round, per player: multiply reach by it
    showdown_matrix: tuple[Floats, Floats]
    extend: tuple[Int64s, ...]  # per round r >= 1: parent sequence of each sequence
    collapse: tuple[Floats, ...]  # per round r >= 1: (S_r, S_{r-1}) sums children into parents


def _arrays(game: LimitGame) -> _Arrays:
    """Index arrays and matrices of ``game`` for the passes."""
    tree = build_tree(game.betting)
    chance = game.chance
    local = np.zeros(len(tree.nodes), dtype=np.int64)
    counts = [0] * game.betting.rounds
    for i, node in enumerate(tree.nodes):
        local[i] = counts[node.round]
        counts[node.round] += 1
    rounds = []
    for r in range(game.betting.rounds):
        ids = [i for i, node in enumerate(tree.nodes) if node.round == r]
        decisions = np.array([i for i in ids if tree.nodes[i].kind is NodeKind.DECISION], np.int64)
        links = np.array([tree.nodes[i].children for i in decisions], np.int64).reshape(-1, 3)
        children = np.where(links >= 0, local[np.maximum(links, 0)], counts[r])
        actor = np.array([tree.nodes[i].player for i in decisions], np.int64)
        depth = np.array([tree.nodes[i].depth for i in decisions], np.int64)
        levels = tuple(
            (
                np.flatnonzero((depth == d) & (actor == 0)),
                np.flatnonzero((depth == d) & (actor == 1)),
            )
            for d in range(int(depth.max(initial=-1)) + 1)
        )
        folds = [i for i in ids if tree.nodes[i].kind is NodeKind.FOLD]
        pay0 = np.array(
            [
                -tree.nodes[i].contributions[0]
                if tree.nodes[i].player == 0
                else tree.nodes[i].contributions[1]
                for i in folds
            ],
            np.float64,
        )
        showdowns = [i for i in ids if tree.nodes[i].kind is NodeKind.SHOWDOWN]
        transitions = [i for i in ids if tree.nodes[i].kind is NodeKind.TRANSITION]
        rounds.append(
            _RoundArrays(
                count=counts[r],
                sequences=chance.sequences(r),
                decision_nodes=decisions,
                decision_local=local[decisions],
                children=children,
                legal=(links >= 0).astype(np.float64)[:, :, None],
                actor=actor,
                own=(np.flatnonzero(actor == 0), np.flatnonzero(actor == 1)),
                levels=levels,
                fold_local=local[np.array(folds, np.int64)],
                fold_pay=(pay0, -pay0),
                showdown_local=local[np.array(showdowns, np.int64)],
                showdown_stake=np.array(
                    [tree.nodes[i].contributions[0] for i in showdowns], np.float64
                ),
                transition_local=local[np.array(transitions, np.int64)],
                transition_child=local[
                    np.array([tree.nodes[i].children[1] for i in transitions], np.int64)
                ],
            )
        )
    wins = chance.joint[-1] * chance.showdown
    collapse = []
    for r in range(1, chance.rounds):
        matrix = np.zeros((chance.sequences(r), chance.sequences(r - 1)))
        matrix[np.arange(chance.sequences(r)), chance.parent[r]] = 1.0
        collapse.append(matrix)
    return _Arrays(
        tree=tree,
        rounds=tuple(rounds),
        fold_matrix=tuple((joint.T.copy(), joint.copy()) for joint in chance.joint),
        showdown_matrix=(wins.T.copy(), -wins),
        extend=tuple(chance.parent[1:]),
        collapse=tuple(collapse),
    )


Policies = list[Floats]
"""Per round, the (decisions, 3, sequences) action probabilities of every decision."""


def _reach(arrays: _Arrays, policies: Policies, player: int) -> list[Floats]:
    """``player``'s reach at every node, per round as (nodes + 1, sequences)."""
    reach = [np.zeros((rnd.count + 1, rnd.sequences)) for rnd in arrays.rounds]
    reach[0][0] = 1.0
    for r, rnd in enumerate(arrays.rounds):
        here = reach[r]
        for level in rnd.levels:
            for actor, positions in enumerate(level):
                if positions.size == 0:
                    continue
                above = here[rnd.decision_local[positions]][:, None, :]
                if actor == player:
                    here[rnd.children[positions]] = above * policies[r][positions]
                else:
                    here[rnd.children[positions]] = above
        here[rnd.count] = 0.0
        if rnd.transition_local.size:
            reach[r + 1][rnd.transition_child] = here[rnd.transition_local][:, arrays.extend[r]]
    return reach


def _values(
    arrays: _Arrays,
    policies: Policies | None,
    opponent_reach: list[Floats],
    player: int,
) -> list[Floats]:
    """``player``'s counterfactual values at every node, per round as (nodes + 1, sequences).

    With ``policies`` the player follows them; with ``None`` it best-responds.
    """
    values: list[Floats] = [np.zeros(0)] * len(arrays.rounds)
    last = len(arrays.rounds) - 1
    for r in range(last, -1, -1):
        rnd = arrays.rounds[r]
        here = np.zeros((rnd.count + 1, rnd.sequences))
        reach = opponent_reach[r]
        if rnd.fold_local.size:
            fold_values = reach[rnd.fold_local] @ arrays.fold_matrix[r][player]
            here[rnd.fold_local] = fold_values * rnd.fold_pay[player][:, None]
        if rnd.showdown_local.size:
            showdown_values = reach[rnd.showdown_local] @ arrays.showdown_matrix[player]
            here[rnd.showdown_local] = showdown_values * rnd.showdown_stake[:, None]
        if rnd.transition_local.size:
            after = values[r + 1][rnd.transition_child]
            here[rnd.transition_local] = after @ arrays.collapse[r]
        for level in reversed(rnd.levels):
            mine, theirs = level[player], level[1 - player]
            if theirs.size:
                here[rnd.decision_local[theirs]] = here[rnd.children[theirs]].sum(axis=1)
            if mine.size:
                below = here[rnd.children[mine]]
                if policies is None:
                    best = np.where(rnd.legal[mine] > 0, below, -np.inf)
                    here[rnd.decision_local[mine]] = best.max(axis=1)
                else:
                    weighted = below * policies[r][mine]
                    here[rnd.decision_local[mine]] = weighted.sum(axis=1)
        values[r] = here
    return values


def _uniform(arrays: _Arrays) -> Policies:
    """Every legal action equally likely, at every decision and sequence."""
    policies = []
    for rnd in arrays.rounds:
        legal = np.broadcast_to(rnd.legal, (*rnd.legal.shape[:2], rnd.sequences))
        policies.append(legal / legal.sum(axis=1, keepdims=True))
    return policies


def _matched(regrets: Floats, legal: Floats) -> Floats:
    """Regret matching: positive regrets normalised, uniform over legal actions if none."""
    positive = np.maximum(regrets, 0.0) * legal
    total = positive.sum(axis=1, keepdims=True)
    uniform = legal / legal.sum(axis=1, keepdims=True)
    safe = np.where(total > 0, total, 1.0)
    return np.where(total > 0, positive / safe, uniform)


def _average(arrays: _Arrays, totals: Policies) -> Policies:
    """The average strategy from accumulated reach-weighted strategies."""
    return [_matched(total, rnd.legal) for total, rnd in zip(totals, arrays.rounds, strict=True)]


def _to_strategy(game: LimitGame, arrays: _Arrays, policies: Policies) -> LimitStrategy:
    """Per-round policy arrays as a :class:`LimitStrategy` (one (sequences, 3) per node)."""
    nodes = arrays.tree.nodes
    rows: list[Floats] = []
    for policy in policies:
        rows.extend(np.ascontiguousarray(policy.transpose(0, 2, 1)))
    decisions = [n for rnd in arrays.rounds for n in rnd.decision_nodes]
    return LimitStrategy(
        game_name=game.name,
        histories=tuple(nodes[n].history for n in decisions),
        player=np.array([nodes[n].player for n in decisions], np.int64),
        round=np.array([nodes[n].round for n in decisions], np.int64),
        policy=tuple(rows),
    )


def _from_strategy(arrays: _Arrays, strategy: LimitStrategy) -> Policies:
    """A :class:`LimitStrategy` for this game as per-round policy arrays (checked)."""
    nodes = arrays.tree.nodes
    policies = []
    for rnd in arrays.rounds:
        stacked = []
        for n in rnd.decision_nodes:
            policy = strategy.policy[strategy.node(nodes[n].history)]
            if policy.shape != (rnd.sequences, N_ACTIONS):
                raise LimitGameError(
                    f"policy at {nodes[n].history!r} must be ({rnd.sequences}, {N_ACTIONS})"
                )
            stacked.append(policy.T)
        policies.append(np.array(stacked).reshape(-1, N_ACTIONS, rnd.sequences))
    if len(strategy.histories) != sum(rnd.decision_nodes.size for rnd in arrays.rounds):
        raise LimitGameError("the strategy has decisions this game's tree does not")
    return policies


def uniform_strategy(game: LimitGame) -> LimitStrategy:
    """Both players choose uniformly among legal actions everywhere."""
    arrays = _arrays(game)
    return _to_strategy(game, arrays, _uniform(arrays))


def random_strategy(game: LimitGame, seed: int) -> LimitStrategy:
    """A strategy drawn at random: each row uniform on the simplex of legal actions."""
    rng = np.random.default_rng(seed)
    arrays = _arrays(game)
    policies = []
    for rnd in arrays.rounds:
        weights = rng.exponential(size=(rnd.decision_nodes.size, N_ACTIONS, rnd.sequences))
        weights *= rnd.legal
        policies.append(weights / weights.sum(axis=1, keepdims=True))
    return _to_strategy(game, arrays, policies)


def _best_response(arrays: _Arrays, policies: Policies, player: int) -> float:
    """``player``'s best-response value (chips per hand) against ``policies``."""
    opponent_reach = _reach(arrays, policies, 1 - player)
    return float(_values(arrays, None, opponent_reach, player)[0][0].sum())


def _game_value(arrays: _Arrays, policies: Policies) -> float:
    """Player 0's expected chips per hand when both follow ``policies``."""
    return float(_values(arrays, policies, _reach(arrays, policies, 1), 0)[0][0].sum())


def best_response_value(game: LimitGame, strategy: LimitStrategy, player: int) -> float:
    """Chips per hand ``player`` wins by best-responding to the other's part of ``strategy``."""
    if player not in (0, 1):
        raise LimitGameError(f"player must be 0 or 1, not {player}")
    arrays = _arrays(game)
    return _best_response(arrays, _from_strategy(arrays, strategy), player)


def exploitability(game: LimitGame, strategy: LimitStrategy) -> float:
    """Mean of the two best-response values against ``strategy`` (chips per hand; 0 at Nash)."""
    arrays = _arrays(game)
    policies = _from_strategy(arrays, strategy)
    return 0.5 * (_best_response(arrays, policies, 0) + _best_response(arrays, policies, 1))


def game_value(game: LimitGame, strategy: LimitStrategy) -> float:
    """Player 0's expected chips per hand when both players follow ``strategy``."""
    arrays = _arrays(game)
    return _game_value(arrays, _from_strategy(arrays, strategy))


def default_checkpoints(iterations: int) -> tuple[int, ...]:
    """1, 2, 5, 10, 20, 50, ... up to ``iterations``, and ``iterations`` itself."""
    marks = {iterations}
    scale = 1
    while scale <= iterations:
        marks.update(m * scale for m in (1, 2, 5) if m * scale <= iterations)
        scale *= 10
    return tuple(sorted(marks))


def solve(
    game: LimitGame,
    iterations: int,
    *,
    algorithm: Algorithm = "cfr+",
    checkpoints: Sequence[int] | None = None,
    progress: Callable[[int, float], None] | None = None,
) -> SolveResult:
    """Run ``iterations`` of ``algorithm`` (module doc) and return the average strategy.

    The average strategy's exploitability is measured exactly at each checkpoint
    (default :func:`default_checkpoints`, always including the last iteration), and
    ``progress(iteration, exploitability)`` is called there.
    """
    if iterations < 1:
        raise LimitGameError("iterations must be at least 1")
    if algorithm not in ALGORITHMS:
        raise LimitGameError(f"algorithm must be one of {', '.join(ALGORITHMS)}")
    marks = set(default_checkpoints(iterations) if checkpoints is None else checkpoints)
    marks = {m for m in marks if 1 <= m <= iterations} | {iterations}
    started = time.perf_counter()
    arrays = _arrays(game)
    policies = _uniform(arrays)
    regrets = [np.zeros_like(p) for p in policies]
    totals = [np.zeros_like(p) for p in policies]
    reach = [_reach(arrays, policies, 0), _reach(arrays, policies, 1)]
    curve: list[tuple[int, float]] = []
    for t in range(1, iterations + 1):
        for player in (0, 1):
            values = _values(arrays, policies, reach[1 - player], player)
            for r, rnd in enumerate(arrays.rounds):
                mine = rnd.own[player]
                if mine.size == 0:
                    continue
                here = values[r]
                gain = here[rnd.children[mine]] - here[rnd.decision_local[mine]][:, None, :]
                accumulated = regrets[r][mine] + gain * rnd.legal[mine]
                own_reach = reach[player][r][rnd.decision_local[mine]][:, None, :]
                contribution = own_reach * policies[r][mine]
                if algorithm == "cfr+":
                    accumulated = np.maximum(accumulated, 0.0)
                    totals[r][mine] += t * contribution
                elif algorithm == "dcfr":
                    up = t**DCFR_ALPHA / (t**DCFR_ALPHA + 1)
                    down = t**DCFR_BETA / (t**DCFR_BETA + 1)
                    accumulated *= np.where(accumulated > 0, up, down)
                    totals[r][mine] = totals[r][mine] * ((t - 1) / t) ** DCFR_GAMMA + contribution
                else:
                    totals[r][mine] += contribution
                regrets[r][mine] = accumulated
                policies[r][mine] = _matched(accumulated, rnd.legal[mine])
            reach[player] = _reach(arrays, policies, player)
        if t in marks:
            average = _average(arrays, totals)
            gap = 0.5 * (_best_response(arrays, average, 0) + _best_response(arrays, average, 1))
            curve.append((t, gap))
            if progress is not None:
                progress(t, gap)
    average = _average(arrays, totals)
    return SolveResult(
        game_name=game.name,
        algorithm=algorithm,
        iterations=iterations,
        strategy=_to_strategy(game, arrays, average),
        value=_game_value(arrays, average),
        exploitability=curve[-1][1],
        curve=tuple(curve),
        seconds=time.perf_counter() - started,
    )


def random_bucket_game(
    betting: LimitBetting, buckets: Sequence[int], seed: int, name: str = "random-buckets"
) -> LimitGame:
    """A valid random game on ``betting``: ``buckets[r]`` new types per player each round.

    For benchmarks and tests. Sequence ``k`` of round ``r`` is ``parent * buckets[r] +
    bucket``; the chance of each pair of next buckets given the pair of parents is random
    and positive, and showdowns compare a random strength per last-round sequence (a
    difference in [-1, 1], so ties and partial wins occur as with real buckets).
    """
    if len(buckets) != betting.rounds or min(buckets, default=0) < 1:
        raise LimitGameError("need a positive bucket count for every betting round")
    rng = np.random.default_rng(seed)
    first = rng.random((buckets[0], buckets[0])) + 0.1
    joints = [first / first.sum()]
    parents = [np.zeros(buckets[0], np.int64)]
    for k in buckets[1:]:
        above = joints[-1].shape[0]
        split = rng.random((above, above, k, k)) + 0.1
        split /= split.sum(axis=(2, 3), keepdims=True)
        joint = (joints[-1][:, :, None, None] * split).transpose(0, 2, 1, 3)
        joints.append(joint.reshape(above * k, above * k))
        parents.append(np.repeat(np.arange(above, dtype=np.int64), k))
    strength = rng.random(joints[-1].shape[0])
    showdown = strength[:, None] - strength[None, :]
    chance = ChanceModel(parent=tuple(parents), joint=tuple(joints), showdown=showdown)
    return LimitGame(name=name, betting=betting, chance=chance)
