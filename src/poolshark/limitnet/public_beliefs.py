"""Public card-type beliefs, as the players read them (thesis sections 4.3.3 and 6.1): each
seat's belief over its card type, updated by the observer after each of its actions and
carried from stage to stage by the board-conditioned transitions. A player's input is the
sum of its active opponents' beliefs.

The beliefs are public. Under the observer a player's action depends on its own type and
on public information only (the betting, and the beliefs, which are functions of the
betting), so the posterior over every seat's type path factorizes into one belief per
seat (``tests/test_limitnet_public_beliefs.py`` checks this against joint enumeration).

* :class:`PublicBeliefs` keeps them for many tables (or recorded deals) at once: one
  batched emission per step of play.
* :func:`deal_beliefs` is the readable reference for one deal.
* :func:`record_beliefs` gives every decision of recorded play the beliefs it saw, so a
  fitted opponent model can read them (``limitnet.fit``); :func:`replay_records` also
  gives the player-type beliefs, carried over each recorded match as in play.
* :class:`BeliefTracker` is what a playing agent holds, fed by the play loop's
  ``moves_seen`` (and ``hands_ended``, for the showdowns).

With player types (the observer's ``type_prior`` set) each seat's belief is joint over its
card type and its player type, the player type carried from hand to hand and recomputed
at a showdown (``limitnet.type_beliefs``); the players read the card-type marginals.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import torch

from poolshark.agents.protocol import Decisions, EndedHands, SeenMoves
from poolshark.engine.batched import BatchedTables
from poolshark.limitnet.action_function import STAGES
from poolshark.limitnet.bet_features import batch_bet_features, legal_actions, taken_actions
from poolshark.limitnet.observer import (
    Observer,
    ObserverError,
    belief_update,
    board_class,
    softmax_rows,
)
from poolshark.limitnet.records import SHOWN_AT, LimitRecords
from poolshark.limitnet.type_beliefs import (
    BOARD_CARDS,
    advance_joint,
    card_marginal,
    showdown_type_update,
    shown_type_log_likelihoods,
    start_joint,
    tracks_player_types,
    type_marginal,
    type_prior_of,
)

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


def stage_board_classes(boards: Int64s, stages: Int64s) -> Int64s:
    """(k, 4) the board class of each stage 1..``stages[i]`` of ``boards[i]`` (-1 for stage
    0 and for stages not reached)."""
    classes = np.full((boards.shape[0], STAGES), -1, dtype=np.int64)
    for row in range(boards.shape[0]):
        for stage in range(1, int(stages[row]) + 1):
            board = tuple(int(card) for card in boards[row, : SHOWN_AT[stage]])
            classes[row, stage] = board_class(board)
    return classes


HandRow = tuple[int, Floats, Floats, Floats, Bools, int]
"""One decision a seat took this hand: stage, bets, costs, summed beliefs seen, legal, action."""


class PublicBeliefs:
    """Every seat's type belief at ``tables`` tables of ``seats`` seats under ``observer``
    (whose parameters are read once, at construction). Each call takes distinct tables.

    The beliefs are kept joint, ``joint`` (tables, seats, card types, player types): with
    the observer's player-type prior set (``limitnet.type_beliefs``) a seat's player-type
    belief carries from hand to hand of a table (a match) and a showdown recomputes it;
    without, there is one certain player type and the beliefs are over card types only.
    ``beliefs`` is the card-type marginal, what the players read. ``showdowns`` keeps each
    hand's decisions for :meth:`showdown_batch` (a tracker in play, and the typed replay),
    which reads them with a float64 copy of the action function: so a batch of seats gives
    what the seats one at a time give, to rounding (float32 sums depend on the batch)."""

    def __init__(
        self, observer: Observer, tables: int, seats: int, showdowns: bool = False
    ) -> None:
        self.observer = observer
        self.initial = observer.initial()
        self.transitions = softmax_rows(observer.transition_logits)  # (3, classes, T, T)
        self.prior = type_prior_of(observer)
        self.typed = tracks_player_types(observer)
        self.player_gates = observer.emission.player_gates() if self.typed else None
        self.joint = np.zeros((tables, seats, observer.types, self.prior.size))
        self.joint[:] = start_joint(self.initial, self.prior)
        self.entered = np.zeros((tables, seats, self.prior.size))
        self.entered[:] = self.prior
        self.active = np.zeros((tables, seats), dtype=bool)
        self.stage = np.zeros(tables, dtype=np.int64)
        self.showdowns = showdowns and self.typed
        self.shown_model = (
            copy.deepcopy(observer.emission.action_function).double() if self.showdowns else None
        )
        self.hand_rows: dict[tuple[int, int], list[HandRow]] = {}

    @property
    def tables(self) -> int:
        """How many tables (or deals) are kept."""
        return int(self.stage.size)

    @property
    def beliefs(self) -> Floats:
        """(tables, seats, card types) every seat's card-type belief (a copy)."""
        return card_marginal(self.joint)

    @property
    def player_types(self) -> Floats:
        """(tables, seats, player types) every seat's player-type belief."""
        return type_marginal(self.joint)

    def start(self, tables: Int64s) -> None:
        """A new hand at ``tables``: every seat active, its card types at the pre-flop
        distribution and its player-type belief carried from the hand before (the prior at
        a table's first hand)."""
        carried = type_marginal(self.joint[tables])
        self.entered[tables] = carried
        self.joint[tables] = start_joint(self.initial, carried)
        self.active[tables] = True
        self.stage[tables] = 0
        if self.showdowns:
            for table in tables.tolist():
                for seat in range(self.active.shape[1]):
                    self.hand_rows.pop((table, seat), None)

    def advance(self, tables: Int64s, stages: Int64s, classes: Int64s) -> None:
        """Carry the beliefs at ``tables`` to ``stages`` through each stage's transition on
        its board class (``classes`` (k, 4), as :func:`stage_board_classes`)."""
        for stage in range(1, STAGES):
            rows = np.flatnonzero((self.stage[tables] < stage) & (stages >= stage))
            if rows.size == 0:
                continue
            at = tables[rows]
            matrices = self.transitions[stage - 1, classes[rows, stage]]  # (k, T, T)
            self.joint[at] = advance_joint(self.joint[at], matrices)
        self.stage[tables] = np.maximum(self.stage[tables], stages)

    def summed(self, tables: Int64s, seats: Int64s) -> Floats:
        """(k, T) the sum of the active opponents' beliefs for the player at ``seats``."""
        others = self.active[tables].copy()
        others[np.arange(tables.size), seats] = False
        summed: Floats = (card_marginal(self.joint[tables]) * others[:, :, None]).sum(axis=1)
        return summed

    def observe(
        self,
        tables: Int64s,
        seats: Int64s,
        stages: Int64s,
        bets: Floats,
        costs: Floats,
        summed: Floats,
        legal: Bools,
        actions: Int64s,
    ) -> None:
        """Bayes-update the actors' beliefs on their actions (their inputs as the emission
        reads them, ``summed`` the opponents' beliefs they saw); a fold leaves the hand.
        With player types and ``showdowns`` each actor's decisions are kept for a showdown."""
        with torch.no_grad():
            log_lik = self.observer.emission.taken_joint_log_likelihoods(
                (stages, bets, costs, summed, legal, actions), player_gates=self.player_gates
            )
        joint = self.joint[tables, seats] * log_lik.exp().numpy()
        total = joint.sum(axis=(1, 2))
        if not np.all(total > 0):
            raise ObserverError("an action has probability 0 under every type with belief")
        self.joint[tables, seats] = joint / total[:, None, None]
        folded = actions == 0
        self.active[tables[folded], seats[folded]] = False
        if self.showdowns:
            for row, (table, seat) in enumerate(zip(tables.tolist(), seats.tolist(), strict=True)):
                self.hand_rows.setdefault((table, seat), []).append(
                    (
                        int(stages[row]),
                        bets[row],
                        costs[row],
                        summed[row],
                        legal[row],
                        int(actions[row]),
                    )
                )

    def showdown(
        self, table: int, seat: int, hole: tuple[int, ...], board: tuple[int, ...]
    ) -> None:
        """``seat`` showed ``hole`` at the end of the hand at ``table`` (``board`` the board
        dealt): :meth:`showdown_batch` for one seat."""
        padded = np.zeros((1, BOARD_CARDS), dtype=np.int64)
        padded[0, : len(board)] = board
        self.showdown_batch(
            np.array([table]),
            np.array([seat]),
            np.array([hole], dtype=np.int64),
            padded,
            np.array([len(board)]),
        )

    def showdown_batch(
        self, tables: Int64s, seats: Int64s, holes: Int64s, boards: Int64s, board_shown: Int64s
    ) -> None:
        """The distinct ``seats`` at ``tables`` showed ``holes`` (k, 2) at the end of their
        hands (``boards`` (k, 5), the first ``board_shown`` (k,) cards dealt): each one's
        player-type belief becomes the one it entered the hand with times the likelihood of
        its actions this hand with these cards, normalized; one forward pass for all.
        Nothing without player types (or without ``showdowns``), or for a seat that did
        not act."""
        model = self.shown_model
        if model is None:
            return
        kept = [
            k
            for k, key in enumerate(zip(tables.tolist(), seats.tolist(), strict=True))
            if self.hand_rows.get(key)
        ]
        if not kept:
            return
        at = np.asarray(kept, dtype=np.int64)
        rows = [self.hand_rows[(int(tables[k]), int(seats[k]))] for k in kept]
        every = [row for seat_rows in rows for row in seat_rows]
        decisions = (
            np.array([row[0] for row in every], dtype=np.int64),
            np.stack([row[1] for row in every]),
            np.stack([row[2] for row in every]),
            np.stack([row[3] for row in every]),
            np.stack([row[4] for row in every]),
            np.array([row[5] for row in every], dtype=np.int64),
        )
        owners = np.repeat(np.arange(at.size), [len(seat_rows) for seat_rows in rows])
        log_lik = shown_type_log_likelihoods(
            model, decisions, owners, holes[at], boards[at], board_shown[at]
        )
        table, seat = tables[at], seats[at]
        posterior = showdown_type_update(self.entered[table, seat], log_lik)
        cards = card_marginal(self.joint[table, seat])
        self.joint[table, seat] = cards[:, :, None] * posterior[:, None, :]


@dataclass(frozen=True)
class DealStep:
    """One decision of a deal, as the observer reads it: the seat, the stage, the bet
    features after a call and a raise (2, 9), their costs (2,), the legal actions (3,) and
    the action taken."""

    seat: int
    stage: int
    bets: Floats
    costs: Floats
    legal: Bools
    action: int


def deal_beliefs(observer: Observer, seats: int, steps: list[DealStep], classes: Int64s) -> Floats:
    """(len(steps), T) the summed active-opponent beliefs each decision of one deal saw
    (``classes`` (4,) the deal's board class per stage): the readable reference of
    :class:`PublicBeliefs`."""
    beliefs = [observer.initial() for _ in range(seats)]
    active = [True] * seats
    stage = 0
    out = []
    for step in steps:
        while stage < step.stage:
            stage += 1
            matrix = observer.transition(stage, int(classes[stage]))
            beliefs = [belief @ matrix for belief in beliefs]
        summed = sum(
            (beliefs[s] for s in range(seats) if s != step.seat and active[s]),
            np.zeros(observer.types),
        )
        with torch.no_grad():
            log_lik = observer.emission.taken_log_likelihoods(
                (
                    np.array([step.stage]),
                    step.bets[None],
                    step.costs[None],
                    summed[None],
                    step.legal[None],
                    np.array([step.action]),
                )
            )
        beliefs[step.seat] = belief_update(beliefs[step.seat], log_lik.exp().numpy()[0])
        active[step.seat] = active[step.seat] and step.action != 0
        out.append(summed)
    return np.array(out).reshape(len(steps), observer.types)


@dataclass(frozen=True)
class RecordReplay:
    """Recorded play replayed under an observer: ``beliefs`` (D, T) the summed opponent
    card-type beliefs every decision saw, and ``entered`` (L, P) the player-type belief
    each line's seat entered its deal with (one certain type without player types)."""

    beliefs: Floats
    entered: Floats


def replay_records(records: LimitRecords, observer: Observer) -> RecordReplay:
    """Replay ``records`` under ``observer`` in the order of play, one batched step across
    deals. Without player types every deal is replayed at once from the pre-flop beliefs.
    With them each match is one table of :class:`PublicBeliefs` and its deals come one
    after another, so a seat's player-type belief carries from deal to deal and a shown
    hand recomputes it, exactly as a player's tracker does in play: the seats shown in
    one round of deals (one deal per match) at once (:meth:`PublicBeliefs.showdown_batch`)."""
    line = records.line
    deal_of_line = np.unique(records.deal, return_inverse=True)[1]
    deal = deal_of_line[line]
    order = np.lexsort((records.order, deal))
    first = np.concatenate([[True], deal[order][1:] != deal[order][:-1]])
    starts = np.flatnonzero(first)
    rank = np.empty(records.decisions, dtype=np.int64)
    rank[order] = np.arange(records.decisions) - np.repeat(starts, np.diff([*starts, order.size]))
    deals = int(deal.max()) + 1 if records.decisions else 0
    last_line = np.zeros(deals, dtype=np.int64)
    last_line[deal_of_line] = np.arange(records.lines)
    classes = stage_board_classes(
        records.boards[last_line], np.clip(records.board_shown[last_line] - 2, 0, STAGES - 1)
    )
    seats = int(records.seat.max()) + 1 if records.lines else 1
    out = np.zeros((records.decisions, observer.types))
    if not tracks_player_types(observer):
        state = PublicBeliefs(observer, deals, seats)
        state.start(np.arange(deals))
        _replay_waves(state, records, np.arange(records.decisions), deal, rank, classes[deal], out)
        return RecordReplay(out, np.ones((records.lines, 1)))
    match_of_line = np.unique(records.match, return_inverse=True)[1]
    match_of_deal = np.zeros(deals, dtype=np.int64)
    match_of_deal[deal_of_line] = match_of_line
    first_order = np.full(deals, np.iinfo(np.int64).max)
    np.minimum.at(first_order, deal, records.order)
    by_play = np.lexsort((first_order, match_of_deal))  # each match's deals in play order
    new_match = np.concatenate([[True], np.diff(match_of_deal[by_play]) != 0])
    match_starts = np.flatnonzero(new_match)
    deal_rank = np.empty(deals, dtype=np.int64)
    deal_rank[by_play] = np.arange(deals) - np.repeat(match_starts, np.diff([*match_starts, deals]))
    matches = int(match_of_line.max()) + 1 if records.lines else 0
    state = PublicBeliefs(observer, matches, seats, showdowns=True)
    entered = np.zeros((records.lines, state.prior.size))
    for k in range(int(deal_rank.max()) + 1 if deals else 0):
        now = np.flatnonzero(deal_rank == k)
        state.start(match_of_deal[now])
        lines = np.flatnonzero(np.isin(deal_of_line, now))
        entered[lines] = state.entered[match_of_line[lines], records.seat[lines]]
        rows = np.flatnonzero(np.isin(deal, now))
        _replay_waves(
            state, records, rows, match_of_deal[deal[rows]], rank[rows], classes[deal[rows]], out
        )
        shown = lines[records.shown[lines]]
        state.showdown_batch(
            match_of_line[shown],
            records.seat[shown],
            records.holes[shown],
            records.boards[shown],
            records.board_shown[shown],
        )
    return RecordReplay(out, entered)


def _replay_waves(
    state: PublicBeliefs,
    records: LimitRecords,
    rows: Int64s,
    tables: Int64s,
    rank: Int64s,
    classes: Int64s,
    out: Floats,
) -> None:
    """Feed ``state`` the decision ``rows`` of records, at ``tables`` (one per row, its
    deal's table), one wave per ``rank`` (the row's place in its deal's play order), each
    row's stage reached through its deal's board ``classes`` (one row of four per row);
    the summed beliefs each row saw go to ``out``."""
    for wave in range(int(rank.max()) + 1 if rows.size else 0):
        at = np.flatnonzero(rank == wave)
        now = rows[at]
        table, seats, stages = tables[at], records.seat[records.line[now]], records.stages[now]
        state.advance(table, stages, classes[at])
        summed = state.summed(table, seats)
        state.observe(
            table,
            seats,
            stages,
            records.bets[now],
            records.costs[now],
            summed,
            records.legal[now],
            records.actions[now],
        )
        out[now] = summed


def record_beliefs(records: LimitRecords, observer: Observer) -> Floats:
    """(D, T) the summed opponent beliefs at every decision of ``records``, in its row
    order (:func:`replay_records`: with player types, carried over each match)."""
    return replay_records(records, observer).beliefs


class BeliefTracker:
    """A playing agent's public beliefs at the tables of the batch it plays: started at
    each new hand id (and afresh for a new batch, whose hand ids start again), carried to
    each decision's stage, updated on every move the play loop shows (:meth:`seen`). With
    player types, a seat's player-type belief lasts the batch (each table one match, its
    seats keeping their players) and shown hands update it (:meth:`ended`; not with
    ``showdowns`` off, a switch for measuring what they add)."""

    def __init__(self, observer: Observer, showdowns: bool = True) -> None:
        self.observer = observer
        self.showdowns = showdowns
        self.state: PublicBeliefs | None = None
        self.batch: BatchedTables | None = None
        self.hands = np.zeros(0, dtype=np.int64)

    def _synced(self, decisions: Decisions) -> PublicBeliefs:
        """The beliefs with new hands started and carried to the decisions' stages."""
        batch, tables = decisions.batch, decisions.tables
        if self.state is None or self.batch is not batch:  # hand ids restart with a batch
            self.state = PublicBeliefs(
                self.observer, batch.size, batch.config.seats, self.showdowns
            )
            self.hands = np.full(batch.size, -1, dtype=np.int64)
            self.batch = batch
        state = self.state
        fresh = decisions.hand_ids != self.hands[tables]
        state.start(tables[fresh])
        self.hands[tables] = decisions.hand_ids
        stages = decisions.street.astype(np.int64)
        behind = state.stage[tables] < stages
        if behind.any():
            classes = np.full((tables.size, STAGES), -1, dtype=np.int64)
            classes[behind] = stage_board_classes(decisions.board[behind], stages[behind])
            state.advance(tables, stages, classes)
        return state

    def summed(self, decisions: Decisions) -> Floats:
        """(D, T) the summed active-opponent beliefs the deciding players read."""
        return self._synced(decisions).summed(decisions.tables, decisions.seats)

    def seat_beliefs(self, decisions: Decisions) -> Floats:
        """(D, S, T) every seat's belief at the deciding players' tables."""
        beliefs: Floats = card_marginal(self._synced(decisions).joint[decisions.tables])
        return beliefs

    def seen(self, seen: SeenMoves) -> None:
        """Update the movers' beliefs on the moves the engine is about to apply."""
        decisions = seen.decisions
        state = self._synced(decisions)
        summed = state.summed(decisions.tables, decisions.seats)
        bets, costs = batch_bet_features(decisions.batch, decisions.tables)
        legal = legal_actions(decisions)
        state.observe(
            decisions.tables,
            decisions.seats,
            decisions.street.astype(np.int64),
            bets,
            costs,
            summed,
            legal,
            taken_actions(legal, seen.move),
        )

    def ended(self, ended: EndedHands) -> None:
        """Recompute the player-type beliefs of the seats whose cards a hand showed (from
        the play loop's ``hands_ended``); nothing without player types, or for hands this
        tracker did not follow."""
        state = self.state
        if state is None or not state.showdowns or self.batch is not ended.batch:
            return
        for row in range(ended.size):
            table = int(ended.tables[row])
            if self.hands[table] != ended.hand_ids[row]:
                continue
            board = ended.board(row)
            for seat, hole in ended.shown(row).items():
                state.showdown(table, seat, hole, board)


def with_record_beliefs(records: LimitRecords, observer: Observer | None) -> LimitRecords:
    """``records`` carrying the beliefs ``observer`` gives each decision (as they are
    without one)."""
    return records if observer is None else records.with_beliefs(record_beliefs(records, observer))
