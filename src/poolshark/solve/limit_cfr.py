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
equilibrium).

Everything is float64: BLAS matrix products for the terminals (skipping terminals the
opponent never reaches, which is exact), numpy views for the climb (a round's rows are
laid out breadth first so a depth's children are one reshaped block), and one numba pass
per depth for the regret, average and strategy update. CFR+ amplifies rounding (a regret
of 1e-17 instead of 0 changes a strategy), so two correct runs that round differently
agree for a hundred or so iterations and then drift apart within the solver's accuracy.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numba as nb
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
            missing = [i for i, p in enumerate(policy) if p is None]
            if missing:
                raise LimitGameError(f"{path}: no policy for decision {missing[0]}")
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

    def as_dict(self) -> dict[str, object]:
        """The figures (not the strategy) as plain JSON-ready values."""
        return {
            "game": self.game_name,
            "algorithm": self.algorithm,
            "iterations": self.iterations,
            "value": self.value,
            "exploitability": self.exploitability,
            "curve": [[t, gap] for t, gap in self.curve],
            "seconds": self.seconds,
        }


@dataclass(frozen=True, eq=False)
class _Level:
    """The decisions at one depth of a round: all the same player's (players alternate).

    Their children fill the next level's block of rows, three per decision in action
    order (a row that is never written where an action is illegal), so the children's
    values are a reshaped view: ``values[block].reshape(decisions, 3, sequences)``.
    """

    player: int
    nodes: Int64s  # tree node numbers of the decisions
    rows: Int64s  # their rows in the round's arrays
    block: slice  # the rows of their children
    legal: Floats  # (decisions, 3, 1): 1.0 where legal
    uniform: Floats  # (decisions, 3, 1): uniform over the legal actions


@dataclass(frozen=True, eq=False)
class _RoundArrays:
    """One round of the tree as rows of (rows, sequences) arrays; rows 0.. are its roots."""

    rows: int
    sequences: int
    levels: tuple[_Level, ...]
    fold_rows: Int64s
    fold_pay: tuple[Floats, Floats]  # per player, chips won at each fold
    showdown_rows: Int64s
    showdown_stake: Floats
    transition_rows: Int64s  # transition k leads to row k of the next round


@dataclass(frozen=True, eq=False)
class _Arrays:
    """The tree and chance model of a game, ready for vectorised passes."""

    tree: BettingTree
    rounds: tuple[_RoundArrays, ...]
    fold_matrix: tuple[tuple[Floats, Floats], ...]  # per round, per player: reach @ it
    showdown_matrix: tuple[Floats, Floats]  # per player: reach @ it
    extend: tuple[Int64s, ...]  # per round r >= 1: parent sequence of each sequence
    collapse: tuple[Floats, ...]  # per round r >= 1: (S_r, S_{r-1}) sums children into parents


Policies = list[list[Floats]]
"""Per round, per level: the (decisions, 3, sequences) action probabilities there."""


def _round_arrays(
    tree: BettingTree, roots: list[int], sequences: int
) -> tuple[_RoundArrays, list[int]]:
    """Lay out one round breadth first from its ``roots`` (see :class:`_Level`); also the
    next round's roots, one per transition in row order."""
    nodes = tree.nodes
    row_of: dict[int, int] = {n: k for k, n in enumerate(roots)}
    block, rows, levels = roots, len(roots), []
    while True:
        decisions = [n for n in block if n >= 0 and nodes[n].kind is NodeKind.DECISION]
        if not decisions:
            break
        players = {nodes[n].player for n in decisions}
        if len(players) != 1:
            raise LimitGameError("both players act at one depth of a round")
        block = [child for n in decisions for child in nodes[n].children]
        for k, child in enumerate(block):
            if child >= 0:
                row_of[child] = rows + k
        legal = np.array([nodes[n].legal for n in decisions], np.float64)[:, :, None]
        levels.append(
            _Level(
                player=players.pop(),
                nodes=np.array(decisions, np.int64),
                rows=np.array([row_of[n] for n in decisions], np.int64),
                block=slice(rows, rows + len(block)),
                legal=legal,
                uniform=legal / legal.sum(axis=1, keepdims=True),
            )
        )
        rows += len(block)

    def rows_of(kind: NodeKind) -> list[int]:
        return sorted(r for n, r in row_of.items() if nodes[n].kind is kind)

    folds = rows_of(NodeKind.FOLD)
    node_at = {r: n for n, r in row_of.items()}
    pay0 = np.array(
        [
            -nodes[node_at[r]].contributions[0]
            if nodes[node_at[r]].player == 0
            else nodes[node_at[r]].contributions[1]
            for r in folds
        ],
        np.float64,
    )
    showdowns = rows_of(NodeKind.SHOWDOWN)
    transitions = rows_of(NodeKind.TRANSITION)
    next_roots = [nodes[node_at[r]].children[1] for r in transitions]
    arrays = _RoundArrays(
        rows=rows,
        sequences=sequences,
        levels=tuple(levels),
        fold_rows=np.array(folds, np.int64),
        fold_pay=(pay0, -pay0),
        showdown_rows=np.array(showdowns, np.int64),
        showdown_stake=np.array(
            [nodes[node_at[r]].contributions[0] for r in showdowns], np.float64
        ),
        transition_rows=np.array(transitions, np.int64),
    )
    return arrays, next_roots


def _arrays(game: LimitGame) -> _Arrays:
    """Index arrays and matrices of ``game`` for the passes."""
    tree = build_tree(game.betting)
    chance = game.chance
    rounds: list[_RoundArrays] = []
    roots = [0]
    for r in range(game.betting.rounds):
        rnd, roots = _round_arrays(tree, roots, chance.sequences(r))
        rounds.append(rnd)
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


@dataclass(frozen=True, eq=False)
class _Workspace:
    """Arrays reused by every pass, so that no pass touches freshly allocated memory.

    ``values`` rows of illegal actions are never written, so they stay 0.
    """

    values: list[Floats]
    reach: list[Floats]
    fold_in: list[Floats]
    fold_out: list[Floats]
    showdown_in: list[Floats]
    showdown_out: list[Floats]


def _workspace(arrays: _Arrays) -> _Workspace:
    """Buffers for the passes over ``arrays``."""

    def per_round(rows: Callable[[_RoundArrays], int]) -> list[Floats]:
        return [np.zeros((rows(rnd), rnd.sequences)) for rnd in arrays.rounds]

    return _Workspace(
        values=per_round(lambda rnd: rnd.rows),
        reach=per_round(lambda rnd: rnd.rows),
        fold_in=per_round(lambda rnd: rnd.fold_rows.size),
        fold_out=per_round(lambda rnd: rnd.fold_rows.size),
        showdown_in=per_round(lambda rnd: rnd.showdown_rows.size),
        showdown_out=per_round(lambda rnd: rnd.showdown_rows.size),
    )


def _reach(
    arrays: _Arrays, policies: Policies, player: int, out: list[Floats] | None = None
) -> list[Floats]:
    """``player``'s reach at every row under ``policies``, per round (rows, sequences).

    Written into ``out`` when given (every row is overwritten).
    """
    reach = out if out is not None else [np.zeros((r.rows, r.sequences)) for r in arrays.rounds]
    reach[0][0] = 1.0
    for r, rnd in enumerate(arrays.rounds):
        here = reach[r]
        for level, policy in zip(rnd.levels, policies[r], strict=True):
            above = here[level.rows][:, None, :]
            children = here[level.block].reshape(above.shape[0], N_ACTIONS, rnd.sequences)
            if level.player == player:
                np.multiply(above, policy, out=children)
            else:
                children[...] = above
        if rnd.transition_rows.size:
            following = reach[r + 1][: rnd.transition_rows.size]
            np.take(here[rnd.transition_rows], arrays.extend[r], axis=1, out=following)
    return reach


def _terminal_values(
    here: Floats,
    reach: Floats,
    rows: Int64s,
    matrix: Floats,
    scale: Floats,
    buffers: tuple[Floats, Floats],
) -> None:
    """``here[rows] = scale * (reach[rows] @ matrix)``, computed in ``buffers``.

    Rows the opponent never reaches are set to 0 without a product (exact pruning: once
    CFR+ stops playing a line, its terminals cost nothing).
    """
    gathered, product = buffers
    np.take(reach, rows, axis=0, out=gathered)
    live = gathered.any(axis=1)
    count = int(np.count_nonzero(live))
    if count < rows.size:
        here[rows[~live]] = 0.0
        rows, scale = rows[live], scale[live]
        gathered, product = gathered[:count], product[:count]
        np.take(reach, rows, axis=0, out=gathered)
    np.matmul(gathered, matrix, out=product)
    product *= scale[:, None]
    here[rows] = product


def _values(
    arrays: _Arrays,
    policies: Policies | None,
    opponent_reach: list[Floats],
    player: int,
    work: _Workspace | None = None,
) -> list[Floats]:
    """``player``'s counterfactual values at every row, per round (rows, sequences).

    With ``policies`` the player follows its part of them; with ``None`` it best-responds.
    The result lives in ``work.values`` (valid until the next pass with ``work``).
    """
    work = work if work is not None else _workspace(arrays)
    values = work.values
    for r in range(len(arrays.rounds) - 1, -1, -1):
        rnd = arrays.rounds[r]
        here = values[r]
        reach = opponent_reach[r]
        if rnd.fold_rows.size:
            _terminal_values(
                here,
                reach,
                rnd.fold_rows,
                arrays.fold_matrix[r][player],
                rnd.fold_pay[player],
                (work.fold_in[r], work.fold_out[r]),
            )
        if rnd.showdown_rows.size:
            _terminal_values(
                here,
                reach,
                rnd.showdown_rows,
                arrays.showdown_matrix[player],
                rnd.showdown_stake,
                (work.showdown_in[r], work.showdown_out[r]),
            )
        if rnd.transition_rows.size:
            after = values[r + 1][: rnd.transition_rows.size]
            here[rnd.transition_rows] = after @ arrays.collapse[r]
        for depth in range(len(rnd.levels) - 1, -1, -1):
            level = rnd.levels[depth]
            children = here[level.block].reshape(level.rows.size, N_ACTIONS, rnd.sequences)
            if level.player != player:
                here[level.rows] = children.sum(axis=1)
            elif policies is None:
                here[level.rows] = np.where(level.legal > 0, children, -np.inf).max(axis=1)
            else:
                here[level.rows] = np.einsum("nas,nas->ns", children, policies[r][depth])
    return values


def _matched(regrets: Floats, level: _Level, out: Floats | None = None) -> Floats:
    """Regret matching: positive regrets normalised, uniform over legal actions if none."""
    positive = np.maximum(regrets, 0.0, out=out)
    positive *= level.legal
    total = positive.sum(axis=1, keepdims=True)
    np.divide(positive, total, out=positive, where=total > 0)
    empty = total == 0
    if empty.any():
        positive[...] = np.where(empty, level.uniform, positive)
    return positive


def _uniform(arrays: _Arrays) -> Policies:
    """Every legal action equally likely, at every decision and sequence."""
    return [
        [np.repeat(level.uniform, rnd.sequences, axis=2) for level in rnd.levels]
        for rnd in arrays.rounds
    ]


def _average(arrays: _Arrays, totals: Policies) -> Policies:
    """The average strategy from accumulated reach-weighted strategies."""
    return [
        [_matched(total, level) for total, level in zip(round_totals, rnd.levels, strict=True)]
        for round_totals, rnd in zip(totals, arrays.rounds, strict=True)
    ]


def _decision_order(arrays: _Arrays) -> list[tuple[int, int, int, int]]:
    """(tree node, round, level, index in level) for every decision, in tree order."""
    order = [
        (int(node), r, d, k)
        for r, rnd in enumerate(arrays.rounds)
        for d, level in enumerate(rnd.levels)
        for k, node in enumerate(level.nodes)
    ]
    return sorted(order)


def _to_strategy(game: LimitGame, arrays: _Arrays, policies: Policies) -> LimitStrategy:
    """Per-level policy arrays as a :class:`LimitStrategy` (one (sequences, 3) per node)."""
    nodes = arrays.tree.nodes
    order = _decision_order(arrays)
    return LimitStrategy(
        game_name=game.name,
        histories=tuple(nodes[n].history for n, _, _, _ in order),
        player=np.array([nodes[n].player for n, _, _, _ in order], np.int64),
        round=np.array([r for _, r, _, _ in order], np.int64),
        policy=tuple(np.ascontiguousarray(policies[r][d][k].T) for _, r, d, k in order),
    )


def _from_strategy(arrays: _Arrays, strategy: LimitStrategy) -> Policies:
    """A :class:`LimitStrategy` for this game as per-level policy arrays (checked)."""
    order = _decision_order(arrays)
    if len(strategy.histories) != len(order):
        raise LimitGameError("the strategy's decisions are not this game's betting histories")
    policies: Policies = [
        [np.empty((level.rows.size, N_ACTIONS, rnd.sequences)) for level in rnd.levels]
        for rnd in arrays.rounds
    ]
    for n, r, d, k in order:
        history = arrays.tree.nodes[n].history
        row = strategy.policy[strategy.node(history)]
        if row.shape != (arrays.rounds[r].sequences, N_ACTIONS):
            raise LimitGameError(
                f"policy at {history!r} must be ({arrays.rounds[r].sequences}, {N_ACTIONS})"
            )
        policies[r][d][k] = row.T
    return policies


def uniform_strategy(game: LimitGame) -> LimitStrategy:
    """Both players choose uniformly among legal actions everywhere."""
    arrays = _arrays(game)
    return _to_strategy(game, arrays, _uniform(arrays))


def random_strategy(game: LimitGame, seed: int) -> LimitStrategy:
    """A strategy drawn at random: each row uniform on the simplex of legal actions."""
    rng = np.random.default_rng(seed)
    arrays = _arrays(game)
    policies: Policies = []
    for rnd in arrays.rounds:
        policies.append([])
        for level in rnd.levels:
            shape = (level.rows.size, N_ACTIONS, rnd.sequences)
            weights = rng.exponential(size=shape) * level.legal
            policies[-1].append(weights / weights.sum(axis=1, keepdims=True))
    return _to_strategy(game, arrays, policies)


def _best_response(
    arrays: _Arrays, policies: Policies, player: int, work: _Workspace | None = None
) -> float:
    """``player``'s best-response value (chips per hand) against ``policies``."""
    work = work if work is not None else _workspace(arrays)
    opponent_reach = _reach(arrays, policies, 1 - player, work.reach)
    return float(_values(arrays, None, opponent_reach, player, work)[0][0].sum())


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


@nb.njit(cache=True, nogil=True)
def _update_level(
    children: Floats,
    values: Floats,
    legal: Floats,
    own_reach: Floats,
    policy: Floats,
    regrets: Floats,
    totals: Floats,
    rule: tuple[bool, float, float, float, float],
) -> None:  # pragma: no cover - compiled
    """One depth's update for the player who acts there, in place, in one pass.

    ``children`` (decisions, 3, sequences) and ``values`` (decisions, sequences) are the
    player's counterfactual values. ``rule`` is (floor regrets at 0, scale of positive
    regrets, scale of negative ones, scale of the strategy sum, weight of this iteration):
    the strategy sum becomes ``sum * scale + weight * own_reach * policy`` and the policy
    the regret-matched regrets.
    """
    floor, up, down, keep, weight = rule
    decisions, actions, sequences = children.shape
    for n in range(decisions):
        count = 0.0
        for a in range(actions):
            count += legal[n, a]
        for k in range(sequences):
            positive = 0.0
            for a in range(actions):
                if legal[n, a] == 0.0:
                    continue
                regret = regrets[n, a, k] + (children[n, a, k] - values[n, k])
                if floor and regret < 0.0:
                    regret = 0.0
                regret *= up if regret > 0.0 else down
                regrets[n, a, k] = regret
                totals[n, a, k] = (
                    totals[n, a, k] * keep + weight * own_reach[n, k] * policy[n, a, k]
                )
                if regret > 0.0:
                    positive += regret
            for a in range(actions):
                if legal[n, a] == 0.0:
                    policy[n, a, k] = 0.0
                elif positive > 0.0:
                    policy[n, a, k] = max(regrets[n, a, k], 0.0) / positive
                else:
                    policy[n, a, k] = 1.0 / count


def _rule(algorithm: Algorithm, t: int) -> tuple[bool, float, float, float, float]:
    """Iteration ``t``'s update rule for :func:`_update_level` (module doc)."""
    if algorithm == "cfr+":
        return (True, 1.0, 1.0, 1.0, float(t))
    if algorithm == "dcfr":
        up = t**DCFR_ALPHA / (t**DCFR_ALPHA + 1)
        down = t**DCFR_BETA / (t**DCFR_BETA + 1)
        return (False, up, down, ((t - 1) / t) ** DCFR_GAMMA, 1.0)
    return (False, 1.0, 1.0, 1.0, 1.0)


@dataclass(frozen=True, eq=False)
class _SolverState:
    """Everything an iteration updates in place."""

    policies: Policies  # the current strategy
    regrets: Policies
    totals: Policies  # the reach-weighted strategy sums
    reach: tuple[list[Floats], list[Floats]]  # each player's reach under ``policies``
    work: _Workspace


def _start(arrays: _Arrays) -> _SolverState:
    """The state before the first iteration: uniform strategies, no regrets."""
    policies = _uniform(arrays)

    def zeros() -> Policies:
        return [[np.zeros_like(p) for p in round_policies] for round_policies in policies]

    return _SolverState(
        policies=policies,
        regrets=zeros(),
        totals=zeros(),
        reach=(_reach(arrays, policies, 0), _reach(arrays, policies, 1)),
        work=_workspace(arrays),
    )


def _iterate(arrays: _Arrays, algorithm: Algorithm, t: int, state: _SolverState) -> None:
    """One iteration, in place: player 0 updates, then player 1 against the update."""
    rule = _rule(algorithm, t)
    for player in (0, 1):
        values = _values(arrays, state.policies, state.reach[1 - player], player, state.work)
        for r, rnd in enumerate(arrays.rounds):
            here, own_reach = values[r], state.reach[player][r]
            for d, level in enumerate(rnd.levels):
                if level.player != player:
                    continue
                decisions = level.rows.size
                _update_level(
                    here[level.block].reshape(decisions, N_ACTIONS, rnd.sequences),
                    here[level.rows],
                    level.legal.reshape(decisions, N_ACTIONS),
                    own_reach[level.rows],
                    state.policies[r][d],
                    state.regrets[r][d],
                    state.totals[r][d],
                    rule,
                )
        _reach(arrays, state.policies, player, state.reach[player])


def solve(
    game: LimitGame,
    iterations: int,
    *,
    algorithm: Algorithm = "cfr+",
    checkpoints: Sequence[int] | None = None,
    progress: Callable[[int, float | None], None] | None = None,
) -> SolveResult:
    """Run ``iterations`` of ``algorithm`` (module doc) and return the average strategy.

    The average strategy's exploitability is measured exactly at each checkpoint
    (default :func:`default_checkpoints`, always including the last iteration; each costs
    about one iteration). ``progress(iteration, exploitability)`` is called after every
    iteration, with the exploitability at checkpoints and ``None`` between them.
    """
    if iterations < 1:
        raise LimitGameError("iterations must be at least 1")
    if algorithm not in ALGORITHMS:
        raise LimitGameError(f"algorithm must be one of {', '.join(ALGORITHMS)}")
    marks = set(default_checkpoints(iterations) if checkpoints is None else checkpoints)
    marks = {m for m in marks if 1 <= m <= iterations} | {iterations}
    started = time.perf_counter()
    arrays = _arrays(game)
    state = _start(arrays)
    curve: list[tuple[int, float]] = []
    for t in range(1, iterations + 1):
        _iterate(arrays, algorithm, t, state)
        if t in marks:
            average = _average(arrays, state.totals)
            gap = 0.5 * (
                _best_response(arrays, average, 0, state.work)
                + _best_response(arrays, average, 1, state.work)
            )
            curve.append((t, gap))
            if progress is not None:
                progress(t, gap)
        elif progress is not None:
            progress(t, None)
    average = _average(arrays, state.totals)
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
