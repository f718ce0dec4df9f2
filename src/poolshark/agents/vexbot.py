"""A Vexbot-like adaptive bot for heads-up fixed-limit hold'em (the gauntlet's "Vexbot").

Reconstructed from Billings et al., "Game-tree search with adaptation in stochastic
imperfect-information games" (2004), whose program became Vexbot; the details we chose are
in ``docs/hardbot.md`` ("Gauntlet: Poki and Vexbot").

* **Action model.** Over the match it counts the opponent's fold / call / raise at every
  node of the betting tree (``limit_memory.betting_tree``: the exact betting history,
  both positions). The estimate at a node blends, with ``k`` pseudo-counts each, the
  node's counts, then this round's history alone (street, position, the round's moves),
  then (street, position, facing a bet or not), then a fixed prior:
  ``p = (n_x p_x + k p_coarser) / (n_x + k)``, renormalized over the legal actions.
* **Showdown model.** At every showdown it reads the opponent's shown hand's rank
  percentile on the final board against a uniformly random hand
  (``limit_strength.combo_ranks``) into a histogram of ``bins`` bins at that terminal
  node, blended the same way with the histogram over showdowns of the same pot size, then
  over all showdowns, then a uniform prior.
* **Best response.** At each decision it takes our own river-rank distribution over the
  cards to come (``limit_strength.final_rank_histogram``, once per street) and runs a
  backward pass (expectimax) over the rest of the betting tree: our nodes take the best
  action, opponent nodes average by the action model, a fold pays the pot as it stands,
  and a showdown pays ``(2 E - 1) c`` for our contribution ``c``, with E the chance that
  our rank beats a draw from the node's showdown histogram (ties within a bin half).
  Cards to come are not branched on: the rank distribution already averages over them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark import cache as disk_cache
from poolshark.agents.limit_memory import (
    DECISION,
    FOLDED_END,
    SHOWDOWN,
    BettingTree,
    EndedHand,
    HeadsUpLimitAgent,
    betting_tree,
    current_node,
    step_nodes,
)
from poolshark.agents.limit_strength import combo_ranks, final_rank_histogram
from poolshark.agents.protocol import SeatView
from poolshark.cards.combos import (
    COMBO_CARDS,
    COMBO_CLASS,
    COMBO_INDEX,
    N_CLASSES,
    class_combos,
)
from poolshark.engine.kernel import CHECK_CALL, FOLD, RAISE

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

PREFLOP_RUNOUTS = 400
"""Boards sampled for a hand class's preflop rank distribution (kept per class)."""
ACTION_PRIOR = np.array([[0.0, 0.6, 0.4], [0.2, 0.5, 0.3]])
"""Prior (fold, call, raise) shares with nothing to call (row 0) and facing a bet (row 1)."""


@dataclass(frozen=True)
class VexbotSettings:
    """Vexbot's model sizes: histogram bins and the pseudo-counts of each fallback."""

    bins: int = 10
    action_strength: float = 3.0
    showdown_strength: float = 3.0
    prior_showdowns: float = 5.0


class _Contexts:
    """Node -> coarser context ids, for the fallbacks of the action and showdown models."""

    def __init__(self, tree: BettingTree) -> None:
        nodes = tree.nodes
        decision = tree.kind == DECISION
        actor = np.where(decision, tree.actor, 0)
        # The street a node's actions are taken on (the call child always exists).
        call_child = np.where(decision, tree.child[:, CHECK_CALL], np.arange(nodes))
        self.street = np.where(decision, tree.street[call_child], tree.street)
        other = tree.contrib[np.arange(nodes), 1 - actor]
        self.facing = (decision & (other > tree.contrib[np.arange(nodes), actor])).astype(np.int64)
        rounds = [
            f"{s}:{a}:{h}"
            for s, a, h in zip(
                self.street.tolist(), actor.tolist(), tree.round_history, strict=True
            )
        ]
        _, self.round = np.unique(rounds, return_inverse=True)
        self.coarse = (self.street * 2 + actor) * 2 + self.facing
        pots = tree.contrib[:, 0]
        _, self.pot = np.unique(pots, return_inverse=True)
        legal = tree.child >= 0
        self.legal = legal & decision[:, None]


class VexbotModel:
    """The opponent's action and showdown counts over one match, and their estimates.

    :meth:`probabilities` and :meth:`beaten` are the plain numpy estimates over the whole
    tree (the reference); the search blends the same counts node by node in compiled code
    (:func:`node_probabilities`, :func:`node_beaten`), so learning costs nothing until a
    node is searched.
    """

    def __init__(self, settings: VexbotSettings) -> None:
        tree = betting_tree()
        self.tree, self.settings = tree, settings
        self.contexts = _Contexts(tree)
        c = self.contexts
        self.actions = np.zeros((tree.nodes, 3))
        self.round_actions = np.zeros((int(c.round.max()) + 1, 3))
        self.coarse_actions = np.zeros((int(c.coarse.max()) + 1, 3))
        bins = settings.bins
        self.showdowns = np.zeros((tree.nodes, bins))
        self.pot_showdowns = np.zeros((int(c.pot.max()) + 1, bins))
        self.all_showdowns = np.zeros(bins)
        self.prior = showdown_prior(tree, bins)

    def observe_action(self, node: int, move: int) -> None:
        """The opponent took ``move`` at ``node``."""
        c = self.contexts
        self.actions[node, move] += 1
        self.round_actions[c.round[node], move] += 1
        self.coarse_actions[c.coarse[node], move] += 1

    def observe_showdown(self, node: int, strength: float) -> None:
        """The opponent showed a hand of rank percentile ``strength`` at showdown ``node``."""
        b = min(int(strength * self.settings.bins), self.settings.bins - 1)
        self.showdowns[node, b] += 1
        self.pot_showdowns[self.contexts.pot[node], b] += 1
        self.all_showdowns[b] += 1

    def probabilities(self) -> Floats:
        """(nodes, 3) the opponent's estimated (fold, call, raise) at every decision node
        (zeros elsewhere): node counts shrunk toward the round's, those toward (street,
        position, facing a bet)'s, those toward the prior; renormalized over legal moves."""
        s, c = self.settings, self.contexts
        k = s.action_strength
        coarse = _shrink(self.coarse_actions[c.coarse], ACTION_PRIOR[c.facing], k)
        by_round = _shrink(self.round_actions[c.round], coarse, k)
        exact = _shrink(self.actions, by_round, k) * c.legal
        total = exact.sum(axis=1, keepdims=True)
        shares: Floats = np.divide(exact, total, out=np.zeros_like(exact), where=total > 0)
        return shares

    def beaten(self, opponent: int) -> Floats:
        """(nodes, bins) the chance that a hand of rank bin i beats the showdown hand of
        the opponent in position ``opponent`` at each node: P(opponent's bin < i) +
        P(same bin) / 2, the node's histogram shrunk toward its pot size's, that toward
        all showdowns', that toward the node's prior (:func:`showdown_prior`)."""
        s, c = self.settings, self.contexts
        overall = _shrink(self.all_showdowns[None, :], self.prior[:, opponent], s.prior_showdowns)
        by_pot = _shrink(self.pot_showdowns[c.pot], overall, s.showdown_strength)
        histogram = _shrink(self.showdowns, by_pot, s.showdown_strength)
        below: Floats = np.cumsum(histogram, axis=1) - histogram
        return below + histogram / 2

    def kernel_estimates(self, opponent: int) -> tuple[Floats, Floats]:
        """(probabilities, beaten) at every node as the compiled search blends them (tests
        compare them with :meth:`probabilities` and :meth:`beaten`)."""
        tree, c, s = self.tree, self.contexts, self.settings
        probabilities = np.zeros((tree.nodes, 3))
        beaten = np.zeros((tree.nodes, s.bins))
        out = np.zeros(3)
        scratch = np.zeros(s.bins)
        for x in range(tree.nodes):
            if tree.kind[x] == DECISION:
                node_probabilities(
                    x, tree.child, self._contexts(), self._actions(), s.action_strength, out
                )
                probabilities[x] = out
            showdowns = self._showdowns()
            node_beaten(x, opponent, c.pot, showdowns, self._strengths(), beaten[x], scratch)
        return probabilities, beaten

    def search(self, root: int, position: int, ours: Floats, values: Floats) -> int:
        """Best action at ``root`` for ``position`` with rank distribution ``ours``."""
        t = self.tree
        return expectimax(
            root,
            position,
            (t.child, t.actor, t.kind, t.folder, t.contrib, t.size),
            self._contexts(),
            self._actions(),
            self._showdowns(),
            self._strengths(),
            ours,
            values,
        )

    def _contexts(self) -> tuple[Int64s, Int64s, Int64s, Int64s]:
        c = self.contexts
        return c.round, c.coarse, c.facing, c.pot

    def _actions(self) -> tuple[Floats, Floats, Floats, Floats]:
        return self.actions, self.round_actions, self.coarse_actions, ACTION_PRIOR

    def _showdowns(self) -> tuple[Floats, Floats, Floats, Floats]:
        return self.showdowns, self.pot_showdowns, self.all_showdowns, self.prior

    def _strengths(self) -> tuple[float, float, float]:
        s = self.settings
        return s.action_strength, s.showdown_strength, s.prior_showdowns


def showdown_prior(tree: BettingTree, bins: int) -> Floats:
    """(nodes, 2, bins) the prior histogram of position p's showdown rank at each node: the
    best of ``1 + r`` uniform draws, r the bets and raises p made on the way there
    (P(rank <= x) = x ** (1 + r)): a check-down shows a random hand, every raise a better
    one."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    draws = 1.0 + tree.raises[:, :, None]
    below = edges[None, None, :] ** draws
    prior: Floats = np.diff(below, axis=2)
    return prior


def _shrink(counts: Floats, fallback: Floats, strength: float) -> Floats:
    """Rows of counts as shares, pulled toward ``fallback`` rows by ``strength`` pseudo-counts."""
    shares: Floats = (counts + strength * fallback) / (counts.sum(axis=1, keepdims=True) + strength)
    return shares


@nb.njit(inline="always")
def _blend(counts: Floats, fallback: Floats, strength: float, out: Floats) -> None:
    """``out`` = counts shrunk toward ``fallback`` (one row of :func:`_shrink`); ``out`` may
    be ``fallback`` itself."""
    total = 0.0
    for i in range(counts.size):
        total += counts[i]
    for i in range(counts.size):
        out[i] = (counts[i] + strength * fallback[i]) / (total + strength)


@nb.njit(cache=True, nogil=True)
def node_probabilities(
    x: int,
    child: Int64s,
    contexts: tuple[Int64s, Int64s, Int64s, Int64s],
    actions: tuple[Floats, Floats, Floats, Floats],
    strength: float,
    out: Floats,
) -> None:
    """``out`` = the opponent's (fold, call, raise) at node x (``VexbotModel.probabilities``);
    ``contexts`` are the nodes' (round, coarse, facing, pot) ids."""
    round_, coarse, facing, _ = contexts
    exact, by_round, by_coarse, prior = actions
    out[:] = prior[facing[x]]
    _blend(by_coarse[coarse[x]], out, strength, out)
    _blend(by_round[round_[x]], out, strength, out)
    _blend(exact[x], out, strength, out)
    total = 0.0
    for a in range(3):
        out[a] = out[a] if child[x, a] >= 0 else 0.0
        total += out[a]
    for a in range(3):
        out[a] /= total


@nb.njit(cache=True, nogil=True)
def node_beaten(
    x: int,
    opponent: int,
    pot: Int64s,
    showdowns: tuple[Floats, Floats, Floats, Floats],
    strengths: tuple[float, float, float],
    out: Floats,
    level: Floats,
) -> None:
    """``out`` = the chance each rank bin beats the showdown hand at x (``VexbotModel.beaten``);
    ``level`` is scratch space of the same size."""
    exact, by_pot, overall, prior = showdowns
    _, showdown_strength, prior_strength = strengths
    bins = out.size
    level[:] = prior[x, opponent]
    _blend(overall, level, prior_strength, level)
    _blend(by_pot[pot[x]], level, showdown_strength, level)
    _blend(exact[x], level, showdown_strength, level)
    below = 0.0
    for i in range(bins):
        out[i] = below + level[i] / 2
        below += level[i]


@nb.njit(cache=True, nogil=True)
def expectimax(
    root: int,
    position: int,
    tree: tuple[Int64s, Int64s, Int64s, Int64s, Int64s, Int64s],
    contexts: tuple[Int64s, Int64s, Int64s, Int64s],
    actions: tuple[Floats, Floats, Floats, Floats],
    showdowns: tuple[Floats, Floats, Floats, Floats],
    strengths: tuple[float, float, float],
    ours: Floats,
    values: Floats,
) -> int:
    """Best action (0 fold, 1 check/call, 2 bet/raise) at ``root`` for ``position``, by a
    backward pass over its subtree (preorder numbering: children after parents);
    ``values[x]`` gets each node's expected chips for us. ``tree`` is the betting tree's
    (child, actor, kind, folder, contrib, size); the model's counts come blended per node."""
    child, actor, kind, folder, contrib, size = tree
    bins = ours.size
    probabilities = np.empty(3)
    beaten = np.empty(bins)
    scratch = np.empty(bins)
    pot = contexts[3]
    for x in range(root + size[root] - 1, root - 1, -1):
        if kind[x] == FOLDED_END:
            values[x] = -contrib[x, position] if folder[x] == position else contrib[x, 1 - position]
        elif kind[x] == SHOWDOWN:
            node_beaten(x, 1 - position, pot, showdowns, strengths, beaten, scratch)
            equity = 0.0
            for i in range(bins):
                equity += ours[i] * beaten[i]
            values[x] = (2.0 * equity - 1.0) * contrib[x, position]
        elif actor[x] == position:
            best = -1e18
            for a in range(3):
                if child[x, a] >= 0 and values[child[x, a]] > best:
                    best = values[child[x, a]]
            values[x] = best
        else:
            node_probabilities(x, child, contexts, actions, strengths[0], probabilities)
            total = 0.0
            for a in range(3):
                if child[x, a] >= 0:
                    total += probabilities[a] * values[child[x, a]]
            values[x] = total
    choice = CHECK_CALL
    best = values[child[root, CHECK_CALL]]
    for a in (RAISE, FOLD):
        nxt = child[root, a]
        if nxt >= 0 and values[nxt] > best + 1e-9:
            best = values[nxt]
            choice = a
    return choice


def preflop_ranks(cls: int, bins: int) -> Floats:
    """Our river-rank distribution preflop for hand class ``cls`` (the same for each of its
    combos): a row of :func:`preflop_rank_table`."""
    row: Floats = preflop_rank_table(bins)[cls]
    return row


@cache
def preflop_rank_table(bins: int) -> Floats:
    """(169, bins) every hand class's preflop river-rank distribution, from
    :data:`PREFLOP_RUNOUTS` boards with a fixed seed; cached on disk (seconds to build)."""

    def build() -> disk_cache.Arrays:
        rows = []
        for cls in range(N_CLASSES):
            first, second = COMBO_CARDS[class_combos(cls)[0]]
            hole = (int(first), int(second))
            rows.append(final_rank_histogram(hole, (), bins, seed=cls, runouts=PREFLOP_RUNOUTS))
        return {"ranks": np.array(rows)}

    arrays = disk_cache.load_or_build(f"vexbot-preflop-ranks-{bins}", "v1", build)
    table: Floats = arrays["ranks"].astype(np.float64)
    table.flags.writeable = False
    return table


class Vexbot(HeadsUpLimitAgent):
    """The adaptive best-responder (module docstring); ``settings`` sizes its model."""

    name = "vexbot"

    def __init__(self, settings: VexbotSettings | None = None) -> None:
        super().__init__()
        self.settings = settings or VexbotSettings()
        self.model = VexbotModel(self.settings)
        self.values = np.zeros(self.model.tree.nodes)
        self._ranks: dict[int, tuple[int, int, Floats]] = {}

    def reset(self) -> None:
        """A new match: a fresh opponent model."""
        self.model = VexbotModel(self.settings)
        self._ranks = {}

    def learn(self, hand: EndedHand) -> None:
        """Count the opponent's moves of a finished hand, and its shown hand if any."""
        for node, (position, move, _) in zip(step_nodes(hand.steps), hand.steps, strict=False):
            if position != hand.position:
                self.model.observe_action(node, move)
        if hand.shown is not None and self.model.tree.kind[hand.node] == SHOWDOWN:
            combo = int(COMBO_INDEX[hand.shown[0], hand.shown[1]])
            self.model.observe_showdown(hand.node, float(combo_ranks(hand.board)[combo]))

    def our_ranks(self, view: SeatView, table: int, hand_id: int) -> Floats:
        """Our river-rank distribution this street (computed once per street)."""
        if view.street == 0:
            combo = int(COMBO_INDEX[view.hole_cards[0], view.hole_cards[1]])
            return preflop_ranks(int(COMBO_CLASS[combo]), self.settings.bins)
        known = self._ranks.get(table)
        if known is None or known[0] != hand_id or known[1] != view.street:
            seed = int(view.rng.integers(2**31))
            ranks = final_rank_histogram(view.hole_cards, view.board, self.settings.bins, seed=seed)
            known = (hand_id, view.street, ranks)
            self._ranks[table] = known
        return known[2]

    def choose(self, view: SeatView, table: int, hand_id: int) -> tuple[int, int]:
        """The action of greatest expected value against the model."""
        node = current_node(view)
        if node < 0:  # a log the tree does not know (short stacks): just call
            return CHECK_CALL, 0
        position = 0 if view.seat == view.button else 1
        ours = self.our_ranks(view, table, hand_id)
        action = self.model.search(node, position, ours, self.values)
        if action == RAISE:
            return RAISE, view.min_raise_to or 0
        return (CHECK_CALL, 0) if action == CHECK_CALL else (FOLD, 0)
