"""Recorded fixed-limit play, the sample an opponent model is fitted to (seed 003, chapter 6):
one row per decision (the action function's betting inputs and the action taken) and one
*line* per player and deal (the player's cards, the board, and whether the cards were shown).

A line's cards are evidence only when shown: a player who reached a showdown showed them
(the engine has no mucking, as the thesis's sample); the others are hidden and the fit
imputes them (``limitnet.fit``). The recorder keeps the true cards of every line anyway
(a simulated pool knows them), so a fit can be scored against the truth, and, where the
caller knows them (the scripted limit styles' strategies), each player's own action
probabilities: the floor any model's likelihood can reach.

:func:`record_matches` plays the thesis's set-up: matches of ``deals`` deals at ``seats``
seats, each match seating players drawn from a population for its whole length, blinds
1/2 and bets 2/2/4/4, stacks reset every deal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import (
    Agent,
    Decisions,
    EndedHands,
    Moves,
    SeenMoves,
    engine_moves,
)
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import Betting
from poolshark.engine.kernel import FOLDED, SHOWN
from poolshark.limitnet.bet_features import batch_bet_features, legal_actions, taken_actions
from poolshark.play.loop import PlayLoop, match_game

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

Policy = Callable[[Decisions], npt.NDArray[np.float64]]
"""A player's own (D, 3) fold / call / raise probabilities at D decisions."""

RECORDS_FORMAT = "poolshark-limit-records-v2"
"""v2 added ``order`` (the play order of the rows within a deal)."""
SHOWN_AT = np.asarray((0, 3, 4, 5), dtype=np.int64)
"""Board cards public at each stage."""


class RecordsError(ValueError):
    """A records file or a recording request that cannot be used."""


@dataclass(frozen=True)
class LimitRecords:
    """Decisions grouped by line (a line's decisions are contiguous, in order of play) and
    the lines themselves; ``line_start`` (L + 1) are the offsets of each line's rows.

    ``order`` (D,) increases with the time of each decision within its deal (the deal's
    rows sorted by it are the order of play). ``truth`` (D, 3) is the acting player's own
    action probabilities and ``members`` (D, K, 3) every population member's at the same
    decision (NaN where unknown);
    ``member_weights`` (K,) is how often each member is seated and ``member_names`` (K,)
    what each is called (``player`` indexes them). ``beliefs`` (D, T), when set
    (:meth:`with_beliefs`), are the summed opponent card-type beliefs each decision saw
    under an observer (``limitnet.public_beliefs.record_beliefs``); a model reads zeros
    without them."""

    line: Int64s
    order: Int64s
    stages: Int64s
    bets: Floats
    costs: Floats
    legal: Bools
    actions: Int64s
    truth: Floats
    members: Floats
    deal: Int64s
    match: Int64s
    seat: Int64s
    player: Int64s
    holes: Int64s
    boards: Int64s
    board_shown: Int64s
    shown: Bools
    line_start: Int64s
    member_weights: Floats
    member_names: npt.NDArray[np.str_]
    beliefs: Floats | None = None

    @property
    def decisions(self) -> int:
        """Number of decision rows D."""
        return int(self.line.size)

    @property
    def lines(self) -> int:
        """Number of lines L (player-deals with at least one decision)."""
        return int(self.deal.size)

    @property
    def line_lengths(self) -> Int64s:
        """Decisions per line."""
        lengths: Int64s = np.diff(self.line_start)
        return lengths

    def dead_cards(self, line: int) -> Int64s:
        """Cards line ``line``'s player cannot hold as far as the record shows: the board
        dealt by the deal's end and every other shown hand of the deal (the readable
        reference of the fit's batched ``dead_cards``)."""
        deal = self.deal[line]
        same = np.flatnonzero((self.deal == deal) & self.shown)
        others = self.holes[same[same != line]].ravel()
        board = self.boards[line, : self.board_shown[line]]
        return np.concatenate([board, others]).astype(np.int64)

    def select(self, lines: Int64s | Bools) -> LimitRecords:
        """The records of some lines (and their decisions), renumbered."""
        chosen = np.flatnonzero(lines) if np.asarray(lines).dtype == bool else np.asarray(lines)
        chosen = np.sort(chosen.astype(np.int64))
        lengths = self.line_lengths[chosen]
        start = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        rows = np.repeat(self.line_start[chosen] - start[:-1], lengths) + np.arange(start[-1])
        per_line = {name: getattr(self, name)[chosen] for name in _LINE_FIELDS}
        per_row = {name: getattr(self, name)[rows] for name in _ROW_FIELDS}
        per_row["line"] = np.repeat(np.arange(chosen.size, dtype=np.int64), lengths)
        return LimitRecords(
            **per_row,
            **per_line,
            line_start=start,
            member_weights=self.member_weights,
            member_names=self.member_names,
            beliefs=None if self.beliefs is None else self.beliefs[rows],
        )

    def with_beliefs(self, beliefs: Floats | None) -> LimitRecords:
        """The same records with each decision's summed opponent beliefs (D, T) set."""
        if beliefs is not None and beliefs.shape[0] != self.decisions:
            raise RecordsError(f"{beliefs.shape[0]} belief rows for {self.decisions} decisions")
        return replace(self, beliefs=beliefs)

    def split_matches(self, held_out: float, seed: int) -> tuple[LimitRecords, LimitRecords]:
        """(main, hold-out): whole matches drawn at random into the hold-out set, about
        ``held_out`` of them."""
        matches = np.unique(self.match)
        rng = np.random.default_rng(seed)
        count = round(held_out * matches.size)
        out = rng.choice(matches, size=count, replace=False)
        is_out = np.isin(self.match, out)
        return self.select(~is_out), self.select(is_out)

    def save(self, path: Path) -> None:
        """Write the records to one compressed ``.npz`` file (through a rename, so a killed
        run never leaves half a file)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.beliefs is None:
            del arrays["beliefs"]
        partial = path.with_name(path.name + ".partial")
        with partial.open("wb") as handle:
            np.savez_compressed(handle, format=np.asarray(RECORDS_FORMAT), **arrays)
        partial.replace(path)

    @staticmethod
    def load(path: Path) -> LimitRecords:
        """Read records written by :meth:`save`."""
        try:
            with np.load(path, allow_pickle=False) as data:
                written = str(data["format"])
                if written.startswith("poolshark-limit-records-") and written != RECORDS_FORMAT:
                    raise RecordsError(
                        f"{path} holds limit records of format {written}, this version reads "
                        f"{RECORDS_FORMAT}: record them again (`poolshark limit record`)"
                    )
                if written != RECORDS_FORMAT:
                    raise RecordsError(f"{path} is not a limit records file ({RECORDS_FORMAT})")
                arrays = {f.name: data[f.name] for f in fields(LimitRecords) if f.name != "beliefs"}
                return LimitRecords(**arrays, beliefs=data.get("beliefs"))
        except (OSError, KeyError, ValueError) as error:
            if isinstance(error, RecordsError):
                raise
            raise RecordsError(f"cannot read limit records from {path}: {error}") from error


_LINE_FIELDS = (
    "deal",
    "match",
    "seat",
    "player",
    "holes",
    "boards",
    "board_shown",
    "shown",
)
_ROW_FIELDS = ("order", "stages", "bets", "costs", "legal", "actions", "truth", "members")


@dataclass
class _Store:
    """What the recording agents collect while a match plays."""

    rows: dict[str, list[npt.NDArray[np.generic]]]
    deals: dict[int, tuple[int, Int64s, Int64s, int, Bools]]

    @staticmethod
    def empty() -> _Store:
        names = ("table", "hand", "seat", "player", *_ROW_FIELDS[1:])  # order comes later
        return _Store({name: [] for name in names}, {})


class RecordingAgent:
    """Plays ``inner`` (population member ``player``) and records every decision it takes
    and every deal it sat in."""

    def __init__(
        self,
        inner: Agent,
        player: int,
        store: _Store,
        name: str,
        policies: Sequence[Policy | None],
    ) -> None:
        self.inner, self.player, self.store, self.name = inner, player, store, name
        self.policies = policies

    def act(self, decisions: Decisions) -> Moves:
        """Ask the inner agent; keep its inputs and (legal) action."""
        answer = self.inner.act(decisions)
        moves, amounts = engine_moves(decisions, answer, self.name)
        bets, costs = batch_bet_features(decisions.batch, decisions.tables)
        legal = legal_actions(decisions)
        actions = taken_actions(legal, moves)
        members = np.full((decisions.size, len(self.policies), 3), np.nan)
        for k, policy in enumerate(self.policies):
            if policy is not None:
                members[:, k] = policy(decisions)
        truth = members[:, self.player]
        rows = self.store.rows
        rows["table"].append(decisions.tables.copy())
        rows["hand"].append(decisions.hand_ids.copy())
        rows["seat"].append(decisions.seats.copy())
        rows["player"].append(np.full(decisions.size, self.player, dtype=np.int64))
        rows["stages"].append(decisions.street.astype(np.int64))
        rows["bets"].append(bets)
        rows["costs"].append(costs)
        rows["legal"].append(legal)
        rows["actions"].append(actions)
        rows["truth"].append(truth)
        rows["members"].append(members)
        return Moves(moves, amounts)

    def hands_ended(self, ended: EndedHands) -> None:
        """Keep each ended deal's cards, board and showdown once."""
        batch = ended.batch
        for row in range(ended.size):
            hand = int(ended.hand_ids[row])
            if hand in self.store.deals:
                continue
            table = int(ended.tables[row])
            folded = batch.seat[table, FOLDED] != 0
            self.store.deals[hand] = (
                table,
                batch.hole_cards[table].astype(np.int64).copy(),
                batch.boards[table].astype(np.int64).copy(),
                int(batch.table[table, SHOWN]),
                (~folded) & ((~folded).sum() >= 2),
            )
        hands_ended = getattr(self.inner, "hands_ended", None)
        if callable(hands_ended):
            hands_ended(ended)

    def moves_seen(self, seen: SeenMoves) -> None:
        """Pass the moves at this player's tables on to the inner agent, if it asks."""
        moves_seen = getattr(self.inner, "moves_seen", None)
        if callable(moves_seen):
            moves_seen(seen)


class _MatchFace:
    """Seats each table's players for its whole match (drawn by ``weights`` at the first
    deal) and deals with a rotating button and fresh stacks."""

    def __init__(
        self, batch: BatchedTables, weights: Floats, depth: int, rng: np.random.Generator
    ) -> None:
        self.batch, self.weights, self.depth, self.rng = batch, weights, depth, rng
        self.owners = np.zeros((batch.size, batch.config.seats), dtype=np.int64)

    def seat(self, tables: Int64s, played: Int64s) -> Int64s:
        fresh = tables[played == 0]
        if fresh.size:
            size = (fresh.size, self.batch.config.seats)
            self.owners[fresh] = self.rng.choice(self.weights.size, size=size, p=self.weights)
        self.batch.reset(tables, stacks=self.depth)
        owners: Int64s = self.owners[tables]
        return owners

    def finished(self, tables: Int64s) -> None:
        """Results are not needed: the records are the product."""

    def stepped(self, tables: Int64s, seats: Int64s, owners: Int64s) -> None:
        """Nothing to record per step (the agents record their decisions)."""


def record_matches(
    players: Sequence[Agent],
    weights: Sequence[float],
    *,
    matches: int,
    deals: int = 120,
    seats: int = 6,
    seed: int = 0,
    depth_bb: float = 100.0,
    names: Sequence[str] | None = None,
    policies: Sequence[Policy | None] | None = None,
) -> LimitRecords:
    """Play ``matches`` matches of ``deals`` deals (one table each) with players drawn from
    ``players`` by ``weights`` for each seat of each match, and record them; ``policies``
    (one per player, or None) give the players' own action probabilities, kept as
    ``truth``."""
    if matches < 1 or deals < 1:
        raise RecordsError("record at least one match of at least one deal")
    chances = np.asarray(weights, dtype=np.float64)
    if chances.shape != (len(players),) or (chances < 0).any() or chances.sum() <= 0:
        raise RecordsError("give one non-negative weight per player, with a positive sum")
    labels = list(names) if names is not None else [f"player{i}" for i in range(len(players))]
    game = match_game(seats, 1, 2, 0.0, None, exact_ev=False, betting=Betting.FIXED_LIMIT)
    batch = BatchedTables(game, matches, seed=seed)
    store = _Store.empty()
    known = list(policies) if policies is not None else [None] * len(players)
    if len(known) != len(players):
        raise RecordsError("give one policy (or None) per player")
    agents = [RecordingAgent(agent, i, store, labels[i], known) for i, agent in enumerate(players)]
    face = _MatchFace(
        batch,
        chances / chances.sum(),
        round(depth_bb * game.big_blind),
        np.random.default_rng([seed, 1]),
    )
    rngs = [np.random.default_rng([seed, 2, i]) for i in range(len(agents))]
    loop = PlayLoop(batch, agents, labels, rngs, face, hands_per_table=deals)
    loop.run()
    return _assemble(store, chances / chances.sum(), labels)


def _assemble(store: _Store, weights: Floats, names: Sequence[str]) -> LimitRecords:
    """Group the recorded rows into lines (deal, seat), in order of play."""
    rows = {name: np.concatenate(parts) for name, parts in store.rows.items()}
    rows["order"] = np.arange(rows["hand"].size, dtype=np.int64)  # appended in play order
    hand, seat = rows["hand"], rows["seat"]
    order = np.lexsort((np.arange(hand.size), seat, hand))  # stable within a line
    rows = {name: values[order] for name, values in rows.items()}
    hand, seat = rows["hand"], rows["seat"]
    key = hand * 64 + seat
    first = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    line_start = np.concatenate([first, [key.size]]).astype(np.int64)
    lengths = np.diff(line_start)
    line_hand, line_seat = hand[first], seat[first]
    holes = np.zeros((first.size, 2), dtype=np.int64)
    boards = np.zeros((first.size, 5), dtype=np.int64)
    board_shown = np.zeros(first.size, dtype=np.int64)
    shown = np.zeros(first.size, dtype=bool)
    table = np.zeros(first.size, dtype=np.int64)
    for i, (h, s) in enumerate(zip(line_hand.tolist(), line_seat.tolist(), strict=True)):
        deal_table, deal_holes, deal_board, deal_shown, showdown = store.deals[h]
        holes[i] = deal_holes[s]
        boards[i] = deal_board
        board_shown[i] = deal_shown
        shown[i] = showdown[s]
        table[i] = deal_table
    return LimitRecords(
        line=np.repeat(np.arange(first.size, dtype=np.int64), lengths),
        order=rows["order"],
        stages=rows["stages"],
        bets=rows["bets"],
        costs=rows["costs"],
        legal=rows["legal"],
        actions=rows["actions"],
        truth=rows["truth"],
        members=rows["members"],
        deal=line_hand,
        match=table,
        seat=line_seat,
        player=rows["player"][first],
        holes=holes,
        boards=boards,
        board_shown=board_shown,
        shown=shown,
        line_start=line_start,
        member_weights=weights,
        member_names=np.asarray(names, dtype=np.str_),
    )
