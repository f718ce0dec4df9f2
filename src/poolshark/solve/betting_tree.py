"""The public betting tree of a two-player limit game (:class:`~.limit_game.LimitBetting`).

Every node is a public betting history. A history is one character per decision, ``f``
(fold), ``c`` (check or call) and ``r`` (bet or raise), with ``/`` between rounds: in
hold'em ``"rc/c"`` is the small blind's raise, the big blind's call, then a check on the
flop. Node kinds:

* ``DECISION``: a player acts. Fold is offered only when there is something to call
  (folding to a free check is dominated, so it is left out of the tree); raise only while
  the round's bets are below the cap (``opening_bets`` count towards it: hold'em's big
  blind is preflop's first bet, so preflop allows three raises).
* ``FOLD``: a terminal where ``player`` folded; the other player wins what the folder put in.
* ``SHOWDOWN``: a terminal after the last round's closing call; contributions are equal.
* ``TRANSITION``: the round's closing call before the last round; its only child is the
  next round's first decision, whose history adds ``/``. The chance model's next types are
  dealt here.

A round closes on a check or call made once both players have acted in the round:
check-check, bet-call, raise-call. The first action of a round never closes it, so in
hold'em the small blind's preflop call leaves the big blind the option.

Nodes are numbered round by round, and within a round by the number of actions taken in
it (so every child of a node in the same round has a higher number). Heads-up limit
hold'em has 6,378 decision nodes (8, 70, 630, 5,670 by round).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum
from functools import cache

from poolshark.solve.limit_game import LimitBetting, LimitGameError

ACTIONS = "fcr"
"""The actions in policy order: fold, check/call, bet/raise."""
FOLD, CALL, RAISE = 0, 1, 2
ROUND_SEPARATOR = "/"


class NodeKind(IntEnum):
    """What happens at a node of the betting tree."""

    DECISION = 0
    FOLD = 1
    SHOWDOWN = 2
    TRANSITION = 3


@dataclass(frozen=True)
class BettingNode:
    """One public history: who acts (or folded), in which round, and the chips put in.

    ``children[a]`` is the node after action ``a`` (fold, call, raise) or -1 where the
    action is not legal; a transition's only child is ``children[CALL]``. ``depth`` is the
    number of actions taken in the node's round. ``bets`` counts the round's bets so far.
    """

    history: str
    kind: NodeKind
    round: int
    player: int
    contributions: tuple[int, int]
    bets: int
    depth: int
    parent: int
    children: tuple[int, int, int]

    @property
    def legal(self) -> tuple[bool, bool, bool]:
        """Which of fold, call, raise can be taken here (all False away from decisions)."""
        if self.kind is not NodeKind.DECISION:
            return (False, False, False)
        return (self.children[0] >= 0, self.children[1] >= 0, self.children[2] >= 0)


@dataclass(frozen=True, eq=False)
class BettingTree:
    """All nodes of a limit betting tree (see the module doc), with a history index."""

    betting: LimitBetting
    nodes: tuple[BettingNode, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {node.history: i for i, node in enumerate(self.nodes)})

    def node(self, history: str) -> int:
        """The number of the node reached by ``history`` (``ValueError`` if there is none)."""
        index: dict[str, int] = self._index  # type: ignore[attr-defined]
        if history not in index:
            raise LimitGameError(f"no betting history {history!r} in this game")
        return index[history]

    def count(self, kind: NodeKind, round_: int | None = None) -> int:
        """How many nodes of ``kind`` (in ``round_``, or in all rounds)."""
        return sum(
            1
            for node in self.nodes
            if node.kind is kind and (round_ is None or node.round == round_)
        )

    def decisions(self) -> tuple[int, ...]:
        """The decision nodes' numbers, in tree order (round by round)."""
        return tuple(i for i, node in enumerate(self.nodes) if node.kind is NodeKind.DECISION)


NO_CHILDREN = (-1, -1, -1)


def _round_start(
    betting: LimitBetting, round_: int, contributions: tuple[int, int], history: str, parent: int
) -> BettingNode:
    """The first decision of ``round_`` (children not linked yet)."""
    return BettingNode(
        history=history,
        kind=NodeKind.DECISION,
        round=round_,
        player=betting.first_to_act[round_],
        contributions=contributions,
        bets=betting.opening_bets[round_],
        depth=0,
        parent=parent,
        children=NO_CHILDREN,
    )


@cache
def build_tree(betting: LimitBetting) -> BettingTree:
    """The full public betting tree of ``betting`` (module doc for the rules; built once
    per betting structure and shared, as trees are immutable)."""
    pending = [_round_start(betting, 0, betting.contributions, "", -1)]
    children: list[list[int]] = []
    last_round = betting.rounds - 1
    position = 0
    while position < len(pending):
        node = pending[position]
        links = [-1, -1, -1]
        if node.kind is NodeKind.TRANSITION:
            links[CALL] = len(pending)
            history = node.history + ROUND_SEPARATOR
            pending.append(
                _round_start(betting, node.round + 1, node.contributions, history, position)
            )
        elif node.kind is NodeKind.DECISION:
            for action, child in _successors(betting, node, last_round):
                links[action] = len(pending)
                pending.append(replace(child, parent=position))
        children.append(links)
        position += 1
    order = sorted(range(len(pending)), key=lambda i: (pending[i].round, pending[i].depth, i))
    number = {old: new for new, old in enumerate(order)}
    nodes = tuple(
        replace(
            pending[old],
            parent=number[pending[old].parent] if pending[old].parent >= 0 else -1,
            children=_renumber(children[old], number),
        )
        for old in order
    )
    return BettingTree(betting=betting, nodes=nodes)


def _renumber(links: list[int], number: dict[int, int]) -> tuple[int, int, int]:
    """Child links in the final numbering (-1 stays -1)."""
    fold, call, raise_ = (number[c] if c >= 0 else -1 for c in links)
    return (fold, call, raise_)


def _successors(
    betting: LimitBetting, node: BettingNode, last_round: int
) -> list[tuple[int, BettingNode]]:
    """The legal actions at a decision and the node each one leads to."""
    me, other = node.player, 1 - node.player
    mine, theirs = node.contributions[me], node.contributions[other]
    to_call = theirs - mine
    successors: list[tuple[int, BettingNode]] = []

    def after(action: int, kind: NodeKind, put_in: int, bets: int) -> BettingNode:
        contributions = [0, 0]
        contributions[me], contributions[other] = put_in, theirs
        return BettingNode(
            history=node.history + ACTIONS[action],
            kind=kind,
            round=node.round,
            player=me if kind is NodeKind.FOLD else (other if kind is NodeKind.DECISION else -1),
            contributions=(contributions[0], contributions[1]),
            bets=bets,
            depth=node.depth + 1,
            parent=-1,
            children=NO_CHILDREN,
        )

    if to_call > 0:
        successors.append((FOLD, after(FOLD, NodeKind.FOLD, mine, node.bets)))
    if node.depth > 0:  # both players have acted in the round once this call is made
        closing = NodeKind.SHOWDOWN if node.round == last_round else NodeKind.TRANSITION
    else:
        closing = NodeKind.DECISION
    successors.append((CALL, after(CALL, closing, theirs, node.bets)))
    if node.bets < betting.cap:
        raised = theirs + betting.bet_sizes[node.round]
        successors.append((RAISE, after(RAISE, NodeKind.DECISION, raised, node.bets + 1)))
    return successors
