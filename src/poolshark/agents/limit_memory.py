"""What the gauntlet bots remember in heads-up fixed-limit matches: the betting tree, and
how each hand ended.

* :class:`BettingTree`: every betting sequence of heads-up fixed-limit hold'em (blinds 1/2
  in small-blind units, bets of one small bet on preflop and flop and two on turn and
  river, four bets a round with the big blind as preflop's first), as flat arrays numbered
  in depth-first preorder, so the subtree of node ``x`` is the range ``x .. x + size[x]``
  and a compiled backward pass needs no recursion. Position 0 is the button (small blind,
  first to act preflop), position 1 the big blind. Chips scale with the match's big blind.
* :class:`HandTracker`: per match, the hand each of the agent's tables is playing, and at
  the agent's first decision of the next hand there, how the previous one ended.

How a hand's end is known. The protocol shows an agent only its own decisions, and the
table is dealt again before the agent acts next, so the moves after its last decision
and the cards shown at a showdown are gone from the decision views. Two things survive:

* The engine does not clear a table's action log when it deals again: the new hand's
  entries overwrite it from the start, and at the agent's first decision of a hand at most
  one entry has been written (the small blind's first move). The previous hand's moves
  after the agent's last decision (index ``L + 1`` on, ``L`` being its own last move) are
  therefore still there; they are read and replayed through the betting tree, which
  says where the hand ended (fold or showdown) and rejects anything inconsistent (wrong
  actor or street, an unfinished hand).
* The opponent's hole cards are read from the engine state at each decision and kept
  *sealed*: they are used only when that reconstruction shows the hand went to showdown,
  where the engine shows both hands. Folded hands are never looked at.

A hand in which the agent never acted (it was the big blind and the button folded first)
leaves no trace but the seat order: heads-up matches alternate the button, so two hands
in a row on the button at one table mean one such fold in between, counted as the
opponent's fold at the root. The last hand of each table is never closed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cache

import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import AgentError, Decisions, Moves, SeatView
from poolshark.engine.config import Betting
from poolshark.engine.kernel import BUTTON, CHECK_CALL, FOLD, LOG_LEN, RAISE

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
    """A finished hand as one player saw it, its end reconstructed (module docstring).

    ``position`` is ours (0 button, 1 big blind); ``steps`` the hand's moves as tree steps
    (position, move, street), complete when ``complete``; ``node`` the tree node reached;
    ``shown`` the opponent's hole cards when the hand went to showdown, with ``board``;
    ``hand_id`` is the match's id of the hand (-1 for a fold inferred from the seating).
    """

    hand_id: int
    table: int
    position: int
    steps: tuple[tuple[int, int, int], ...]
    node: int
    complete: bool
    board: tuple[int, ...]
    shown: tuple[int, int] | None


@dataclass
class _Open:
    """A hand in progress at one table: what we saw at our last decision there."""

    hand_id: int
    seat: int
    button: int
    actions: tuple[Action, ...]
    board: tuple[int, ...]
    sealed: tuple[int, int]
    move: int = CHECK_CALL
    amount: int = 0
    street: int = 0


@dataclass
class HandTracker:
    """The hands in progress of one agent in one match (one batch), closed as they end."""

    batch_id: int = -1
    open: dict[int, _Open] = field(default_factory=dict)
    hands_closed: int = 0
    hands_lost: int = 0

    def new_match(self, decisions: Decisions) -> bool:
        """Start over when ``decisions`` come from another batch (a new match); True then."""
        if id(decisions.batch) == self.batch_id:
            return False
        self.batch_id = id(decisions.batch)
        self.open = {}
        return True

    def ended(self, decisions: Decisions) -> list[EndedHand]:
        """The hands that ended at these decisions' tables since our last decision there;
        call once per ``act`` before :meth:`record`."""
        ended: list[EndedHand] = []
        tree = betting_tree()
        batch = decisions.batch
        for row in range(decisions.size):
            table = int(decisions.tables[row])
            previous = self.open.get(table)
            if previous is None or previous.hand_id == int(decisions.hand_ids[row]):
                continue
            del self.open[table]
            ended.append(self._close(previous, decisions, table, tree))
            seat = int(decisions.seats[row])
            if previous.seat == previous.button and seat == int(batch.table[table, BUTTON]):
                # We were on the button twice running: in the hand between, we were the big
                # blind and the button folded before we acted.
                fold = int(tree.child[0, FOLD])
                ended.append(EndedHand(-1, table, 1, ((0, FOLD, 0),), fold, True, (), None))
        return ended

    def _close(self, hand: _Open, decisions: Decisions, table: int, tree: BettingTree) -> EndedHand:
        batch = decisions.batch
        own: Action = (hand.seat, hand.move, hand.amount, hand.street)
        known = [*hand.actions, own]
        written = int(batch.table[table, LOG_LEN])  # the new hand's entries so far
        log = batch.log[table]
        steps = positional(known, hand.button)
        node, used = tree.walk(steps)
        while used == len(steps) and tree.kind[node] == DECISION:
            index = len(steps)
            if index < written or index >= log.shape[0]:
                break
            seat, move, _, st = (int(v) for v in log[index])
            steps.append((0 if seat == hand.button else 1, move, st))
            node, used = tree.walk(steps)
        steps = steps[:used]
        complete = tree.kind[node] != DECISION
        showdown = tree.kind[node] == SHOWDOWN and len(hand.board) == 5
        self.hands_closed += 1
        self.hands_lost += not complete
        position = 0 if hand.seat == hand.button else 1
        return EndedHand(
            hand.hand_id,
            table,
            position,
            tuple(steps),
            node,
            complete,
            hand.board,
            hand.sealed if showdown else None,
        )

    def record(
        self, decisions: Decisions, row: int, view: SeatView, move: int, amount: int
    ) -> None:
        """Remember decision ``row`` (its view and our answer) until the hand ends."""
        table = int(decisions.tables[row])
        opponent = 1 - view.seat
        cards = decisions.batch.hole_cards[table, opponent]
        self.open[table] = _Open(
            hand_id=int(decisions.hand_ids[row]),
            seat=view.seat,
            button=view.button,
            actions=view.actions,
            board=view.board,
            sealed=(int(cards[0]), int(cards[1])),
            move=move,
            amount=amount,
            street=view.street,
        )


def current_node(view: SeatView) -> int:
    """The betting-tree node of a decision (-1 if its log does not fit the tree)."""
    tree = betting_tree()
    steps = positional(view.actions, view.button)
    node, used = tree.walk(steps)
    return node if used == len(steps) and tree.kind[node] == DECISION else -1


class HeadsUpLimitAgent(ABC):
    """An agent for heads-up fixed-limit matches that remembers its opponent for a match.

    Each ``act``: a new batch starts a new match (:meth:`reset`), the hands that ended
    since the last call are handed to :meth:`learn`, then :meth:`choose` answers each
    decision, and the answer is recorded for reconstructing the hand's end.
    """

    name = "limit agent"

    def __init__(self) -> None:
        self.tracker = HandTracker()

    def act(self, decisions: Decisions) -> Moves:
        """One move per decision, after learning from the hands that ended."""
        config = decisions.batch.config
        if config.seats != 2 or config.betting is not Betting.FIXED_LIMIT:
            raise AgentError(
                f"{self.name} plays heads-up fixed-limit hold'em; this game is "
                f"{config.seats}-handed {config.betting}"
            )
        if self.tracker.new_match(decisions):
            self.reset()
        for hand in self.tracker.ended(decisions):
            self.learn(hand)
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
            logged = view.call if move == CHECK_CALL else (amount if move == RAISE else 0)
            self.tracker.record(decisions, row, view, move, logged)
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
