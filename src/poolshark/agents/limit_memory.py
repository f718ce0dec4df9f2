"""What the gauntlet bots remember in heads-up fixed-limit matches: the betting tree, and
how each hand ended.

* :class:`BettingTree`: every betting sequence of heads-up fixed-limit hold'em (blinds 1/2
  in small-blind units, bets of one small bet on preflop and flop and two on turn and
  river, four bets a round with the big blind as preflop's first), as flat arrays numbered
  in depth-first preorder, so the subtree of node ``x`` is the range ``x .. x + size[x]``
  and a compiled backward pass needs no recursion. Position 0 is the button (small blind,
  first to act preflop), position 1 the big blind. Chips scale with the match's big blind.
* :func:`ended_hands`: each finished hand as the agent saw it, from the play loop's
  ``hands_ended`` hook (``agents.protocol.EndedHands``: the action log, the board, the
  cards shown at a showdown), for the bots to learn from.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import AgentError, Decisions, EndedHands, Moves, SeatView
from poolshark.engine.config import Betting
from poolshark.engine.kernel import CHECK_CALL, FOLD, RAISE

Int64s = npt.NDArray[np.int64]
Action = tuple[int, int, int, int]

DECISION, FOLDED_END, SHOWDOWN = 0, 1, 2
"""Node kinds: someone to act, a fold ended the hand, a showdown."""
BLINDS = (1, 2)
"""The button's and the big blind's forced bets, in small-blind units (half small bets)."""
BET_UNITS = (2, 2, 4, 4)
"""Bet size per street in the same units: one small bet preflop and flop, two after."""
CAP = 4
"""Bets per round, the big blind counting as preflop's first."""


@dataclass(frozen=True, eq=False)
class BettingTree:
    """Every heads-up fixed-limit betting sequence as arrays (see the module docstring).

    ``child[x, a]`` is the node after action ``a`` (0 fold, 1 check/call, 2 bet/raise) or
    -1 when illegal; ``actor[x]`` the position to act (-1 at terminals); ``kind[x]`` one of
    DECISION, FOLDED_END, SHOWDOWN; ``folder[x]`` who folded (-1 otherwise);
    ``contrib[x, p]`` what position p has put in (blinds included, units of BLINDS);
    ``street[x]`` the street of the last action into x (0 preflop .. 3 river); ``size[x]``
    the nodes in x's subtree; ``bets[x]`` the bets made in x's round so far;
    ``round_history[x]`` the moves of x's round before it (``"crr"``); ``history[x]`` all
    moves, rounds joined by ``/``; ``raises[x, p]`` the bets and raises position p made on
    the way to x.
    """

    child: Int64s
    actor: Int64s
    kind: Int64s
    folder: Int64s
    contrib: Int64s
    street: Int64s
    size: Int64s
    bets: Int64s
    round_history: tuple[str, ...]
    history: tuple[str, ...]
    raises: Int64s

    @property
    def nodes(self) -> int:
        """How many nodes the tree has."""
        return int(self.actor.size)

    def walk(self, moves: list[tuple[int, int, int]]) -> tuple[int, int]:
        """Follow (position, move, street) steps from the root: (node reached, steps used).

        Stops at a terminal or at the first step that does not fit (wrong actor or street,
        an illegal move): ``steps used`` then counts only the steps that fit.
        """
        node = 0
        for used, (position, move, street) in enumerate(moves):
            if self.kind[node] != DECISION:
                return node, used
            nxt = int(self.child[node, move]) if 0 <= move <= 2 else -1
            if self.actor[node] != position or nxt < 0 or self.street[nxt] != street:
                return node, used
            node = nxt
        return node, len(moves)


MOVE_CHARS = "fcr"


@cache
def betting_tree() -> BettingTree:
    """The heads-up fixed-limit hold'em betting tree (built once, about 10 ms)."""
    child: list[list[int]] = []
    actor: list[int] = []
    kind: list[int] = []
    folder: list[int] = []
    contrib: list[tuple[int, int]] = []
    street: list[int] = []
    size: list[int] = []
    bets: list[int] = []
    round_history: list[str] = []
    history: list[str] = []
    raises: list[tuple[int, int]] = []

    def add(
        node_kind: int,
        to_act: int,
        into_street: int,
        paid: tuple[int, int],
        round_bets: int,
        moves: str,
        text: str,
        raised: tuple[int, int],
        fold_by: int = -1,
    ) -> int:
        index = len(actor)
        child.append([-1, -1, -1])
        actor.append(to_act)
        kind.append(node_kind)
        folder.append(fold_by)
        contrib.append(paid)
        street.append(into_street)
        size.append(1)
        bets.append(round_bets)
        round_history.append(moves)
        history.append(text)
        raises.append(raised)
        return index

    def grow(
        node: int, to_act: int, st: int, paid: tuple[int, int], round_bets: int, moves: str
    ) -> None:
        text = history[node]
        other = 1 - to_act
        same = raises[node]
        more = (same[0] + (to_act == 0), same[1] + (to_act == 1))
        facing = paid[other] > paid[to_act]
        if facing:
            lost = (paid[0], paid[1])
            child[node][FOLD] = add(
                FOLDED_END, -1, st, lost, round_bets, moves + "f", text + "f", same, to_act
            )
        called = list(paid)
        called[to_act] = paid[other]
        closes = len(moves) >= 1
        after = (called[0], called[1])
        if closes and st == 3:
            child[node][CHECK_CALL] = add(
                SHOWDOWN, -1, st, after, round_bets, moves + "c", text + "c", same
            )
        elif closes:
            nxt = add(DECISION, 1, st, after, 0, "", text + "c/", same)
            child[node][CHECK_CALL] = nxt
            grow(nxt, 1, st + 1, after, 0, "")
        else:
            nxt = add(DECISION, other, st, after, round_bets, moves + "c", text + "c", same)
            child[node][CHECK_CALL] = nxt
            grow(nxt, other, st, after, round_bets, moves + "c")
        if round_bets < CAP:
            bet = list(paid)
            bet[to_act] = paid[other] + BET_UNITS[st]
            up = (bet[0], bet[1])
            nxt = add(DECISION, other, st, up, round_bets + 1, moves + "r", text + "r", more)
            child[node][RAISE] = nxt
            grow(nxt, other, st, up, round_bets + 1, moves + "r")
        size[node] = len(actor) - node

    root = add(DECISION, 0, 0, BLINDS, 1, "", "", (0, 0))
    grow(root, 0, 0, BLINDS, 1, "")
    tree = BettingTree(
        child=np.array(child, dtype=np.int64),
        actor=np.array(actor, dtype=np.int64),
        kind=np.array(kind, dtype=np.int64),
        folder=np.array(folder, dtype=np.int64),
        contrib=np.array(contrib, dtype=np.int64),
        street=np.array(street, dtype=np.int64),
        size=np.array(size, dtype=np.int64),
        bets=np.array(bets, dtype=np.int64),
        round_history=tuple(round_history),
        history=tuple(history),
        raises=np.array(raises, dtype=np.int64),
    )
    arrays = (tree.child, tree.actor, tree.kind, tree.folder, tree.contrib, tree.street)
    for array in (*arrays, tree.size, tree.bets, tree.raises):
        array.flags.writeable = False
    return tree


def positional(
    actions: tuple[Action, ...] | list[Action], button: int
) -> list[tuple[int, int, int]]:
    """Log entries (seat, move, amount, street) as tree steps (position, move, street)."""
    return [(0 if seat == button else 1, move, st) for seat, move, _, st in actions]


@dataclass(frozen=True)
class EndedHand:
    """A finished hand as one player saw it (from the play loop's ``hands_ended``).

    ``position`` is ours (0 button, 1 big blind); ``steps`` the hand's moves as tree steps
    (position, move, street); ``node`` the tree node reached, ``complete`` whether it is
    a terminal (False only for a log the tree does not fit, say a short stack's all-in);
    ``shown`` the opponent's hole cards when the hand went to showdown, with ``board``.
    """

    hand_id: int
    table: int
    position: int
    steps: tuple[tuple[int, int, int], ...]
    node: int
    complete: bool
    board: tuple[int, ...]
    shown: tuple[int, int] | None


def ended_hands(ended: EndedHands) -> list[EndedHand]:
    """The hands of ``ended`` from each of the receiving agent's seats."""
    tree = betting_tree()
    hands = []
    for row in range(ended.size):
        button = ended.button(row)
        steps = positional(ended.actions(row), button)
        node, used = tree.walk(steps)
        shown = ended.shown(row)
        for seat in np.flatnonzero(ended.owners[row] == ended.agent).tolist():
            opponent = 1 - seat
            hands.append(
                EndedHand(
                    hand_id=int(ended.hand_ids[row]),
                    table=int(ended.tables[row]),
                    position=0 if seat == button else 1,
                    steps=tuple(steps[:used]),
                    node=node,
                    complete=used == len(steps) and tree.kind[node] != DECISION,
                    board=ended.board(row),
                    shown=shown.get(opponent),
                )
            )
    return hands


def current_node(view: SeatView) -> int:
    """The betting-tree node of a decision (-1 if its log does not fit the tree)."""
    tree = betting_tree()
    steps = positional(view.actions, view.button)
    node, used = tree.walk(steps)
    return node if used == len(steps) and tree.kind[node] == DECISION else -1


class HeadsUpLimitAgent(ABC):
    """An agent for heads-up fixed-limit matches that remembers its opponent for a match.

    A new batch (a new match) starts a new model (:meth:`reset`); every hand that ends at
    its tables comes through the play loop's ``hands_ended`` to :meth:`learn`; and
    :meth:`choose` answers each decision.
    """

    name = "limit agent"

    def __init__(self) -> None:
        self.batch_id = -1
        self.hands_learned = 0

    def _match(self, batch: object) -> None:
        """Start over when the tables belong to another batch (a new match)."""
        if id(batch) != self.batch_id:
            self.batch_id = id(batch)
            self.reset()

    def hands_ended(self, ended: EndedHands) -> None:
        """Learn from the hands that just ended at this agent's tables."""
        self._match(ended.batch)
        for hand in ended_hands(ended):
            self.learn(hand)
            self.hands_learned += 1

    def act(self, decisions: Decisions) -> Moves:
        """One move per decision."""
        config = decisions.batch.config
        if config.seats != 2 or config.betting is not Betting.FIXED_LIMIT:
            raise AgentError(
                f"{self.name} plays heads-up fixed-limit hold'em; this game is "
                f"{config.seats}-handed {config.betting}"
            )
        self._match(decisions.batch)
        moves = np.zeros(decisions.size, dtype=np.int64)
        amounts = np.zeros(decisions.size, dtype=np.int64)
        for row in range(decisions.size):
            view = decisions.view(row)
            move, amount = self.choose(
                view, int(decisions.tables[row]), int(decisions.hand_ids[row])
            )
            if move == RAISE and view.min_raise_to is None:
                move, amount = CHECK_CALL, 0
            if move == FOLD and view.call == 0:
                move = CHECK_CALL
            moves[row], amounts[row] = move, amount
        return Moves(moves, amounts)

    @abstractmethod
    def reset(self) -> None:
        """Forget the opponent: a new match begins."""

    @abstractmethod
    def learn(self, hand: EndedHand) -> None:
        """Update the opponent model with a finished hand."""

    @abstractmethod
    def choose(self, view: SeatView, table: int, hand_id: int) -> tuple[int, int]:
        """(move, amount) for one decision (``SimpleAgent.decide``'s answer)."""


def step_nodes(steps: list[tuple[int, int, int]] | tuple[tuple[int, int, int], ...]) -> list[int]:
    """The tree node at which each (fitting) step was taken, in order."""
    tree = betting_tree()
    nodes = []
    node = 0
    for _, move, _ in steps:
        if tree.kind[node] != DECISION or tree.child[node, move] < 0:
            break
        nodes.append(node)
        node = int(tree.child[node, move])
    return nodes


def facing_bet(node: int) -> int:
    """1 when the player to act at ``node`` faces a bet, else 0."""
    tree = betting_tree()
    actor = int(tree.actor[node])
    return int(tree.contrib[node, 1 - actor] > tree.contrib[node, actor])
