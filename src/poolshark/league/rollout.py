"""One epoch of league games on the batched play loop: the learner against past checkpoints.

Each table of one :class:`~poolshark.engine.batched.BatchedTables` plays one *game*:
``hands_per_game`` hands with the same players in the same seats. The learner (agent 0, a
:class:`~poolshark.league.agent.LeagueAgent` with a recorder) sits in a seat drawn per game;
every other seat is played by one of the epoch's opponents (agents 1..K, frozen
checkpoints), drawn per game. Every agent's game state is cleared when a game starts, so the
cross-hand memory sees one session against one set of opponents.

* **cash** games deal every hand from fresh stacks drawn per seat in
  ``[stack_lo_bb, stack_hi_bb]``; a hand the learner folded is abandoned at once (its
  result is fixed at minus what it put in; nobody learns from the rest; every network
  with ``hand_end_step`` at the table takes that step on the hand as it was left).
* **tournament** games draw the stacks once and carry them from hand to hand; a busted
  player's seat stays empty, and the game ends when one player holds every chip, the
  learner busts, or the hands run out (:meth:`~poolshark.play.loop.PlayLoop.retire`).

A hand pays the learner its result in big blinds (all-in pots before the river by the mean
of 64 sampled runouts when ``all_in_ev``), times the showdown multiplier when it reached
showdown, plus the shaping bonuses (``RewardSettings``). A decision's *return* is its
hand's reward plus the later hands' of the same game discounted by ``hand_reward_decay``.
Every random stream comes from ``(seed, epoch, worker)``, so an epoch replays exactly.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import Agent, Decisions
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.kernel import (
    BUTTON,
    FOLDED,
    LOG_LEN,
    LOG_MOVE,
    LOG_SEAT,
    LOG_STREET,
    SHOWDOWN,
    SHOWN,
    START,
    TOTAL,
)
from poolshark.engine.runouts import AllInEV, hand_results
from poolshark.league.agent import LeagueAgent
from poolshark.league.config import GameSettings, RewardSettings
from poolshark.league.inputs import FOLD, InputArrays, empty_inputs
from poolshark.league.nets import PokerNet
from poolshark.play.loop import PlayLoop, match_game

Floats = npt.NDArray[np.float64]
Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

LEARNER = 0
"""The learner's agent index in the play loop."""
RUNOUTS = 64
"""Boards sampled to pay an all-in before the river by expectation."""


@dataclass(frozen=True)
class EpochPlan:
    """What one collection plays: the games, their length, the curriculum's multiplier."""

    game: GameSettings
    rewards: RewardSettings
    games: int
    hands_per_game: int
    showdown_multiplier: float
    shuffle_opponents: bool
    fixed_share: float = 0.0
    fixed_weights: tuple[float, ...] = ()


@dataclass(frozen=True)
class HandEnds:
    """The learner's end-of-hand steps of one collection (``NetConfig.hand_end_step``):
    the inputs each read, its game, whether it started its hand (the learner made no
    decision in it) and its place in the collection's ``sequence``."""

    inputs: InputArrays
    game: Int64s
    new_hand: Bools
    sequence: Int64s

    @property
    def size(self) -> int:
        """Number of end-of-hand steps."""
        return int(self.game.size)

    @staticmethod
    def none(seats: int) -> HandEnds:
        """No end-of-hand step (a network without ``hand_end_step``)."""
        nothing = np.zeros(0, dtype=np.int64)
        return HandEnds(empty_inputs(seats), nothing, nothing.astype(np.bool_), nothing)


@dataclass(frozen=True)
class Experience:
    """The learner's decisions of one collection, in the order they were taken.

    ``game`` numbers the games (each a trajectory for the recurrent state, its decisions in
    order); ``new_hand`` marks a decision that starts a hand (the hand state is cleared
    before it). ``returns`` are the decision's return in big blinds (shaped); ``hand_results``
    the learner's plain result of every hand played (unshaped, for reporting).
    ``sequence`` orders the decisions and the ``hand_ends`` steps of a game as they were
    taken (a counter of the learner's calls). ``responses`` is, per decision, how the next
    other seat to act in the same hand answered it (fold 0, check/call 1, bet/raise 2; -1
    when nobody acted after it), the target of the network's ``opponent_head``.
    ``lineups`` is, per decision, its game's opponent line-up as one integer
    (:func:`lineup_keys`: how many seats each kind of opponent holds, every checkpoint one
    kind), the same in every collection of an epoch.
    """

    inputs: InputArrays
    game: Int64s
    new_hand: Bools
    actions: Int64s
    sizes: Float32s
    log_probs: Float32s
    returns: Floats
    hand_results: Floats
    games: int
    showdowns: int
    sequence: Int64s
    hand_ends: HandEnds
    responses: Int64s
    lineups: Int64s
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """Number of decisions."""
        return int(self.actions.size)

    @property
    def hands(self) -> int:
        """Number of hands the learner played."""
        return int(self.hand_results.size)


def merge(parts: Sequence[Experience]) -> Experience:
    """Several collections as one (games renumbered so they stay distinct)."""
    offsets = np.cumsum([0, *(p.games for p in parts[:-1])])
    seconds: dict[str, float] = {}
    for part in parts:
        for key, value in part.seconds.items():
            seconds[key] = seconds.get(key, 0.0) + value
    ends = [p.hand_ends for p in parts]
    hand_ends = HandEnds(
        InputArrays.concatenate([e.inputs for e in ends]),
        np.concatenate([e.game + o for e, o in zip(ends, offsets, strict=True)]),
        np.concatenate([e.new_hand for e in ends]),
        np.concatenate([e.sequence for e in ends]),
    )
    return Experience(
        inputs=InputArrays.concatenate([p.inputs for p in parts]),
        game=np.concatenate([p.game + o for p, o in zip(parts, offsets, strict=True)]),
        new_hand=np.concatenate([p.new_hand for p in parts]),
        actions=np.concatenate([p.actions for p in parts]),
        sizes=np.concatenate([p.sizes for p in parts]),
        log_probs=np.concatenate([p.log_probs for p in parts]),
        returns=np.concatenate([p.returns for p in parts]),
        hand_results=np.concatenate([p.hand_results for p in parts]),
        games=sum(p.games for p in parts),
        showdowns=sum(p.showdowns for p in parts),
        sequence=np.concatenate([p.sequence for p in parts]),
        hand_ends=hand_ends,
        responses=np.concatenate([p.responses for p in parts]),
        lineups=np.concatenate([p.lineups for p in parts]),
        seconds=seconds,
    )


def league_game(settings: GameSettings) -> GameConfig:
    """The engine's game for league games (no rake; hands settle on the dealt board)."""
    return match_game(
        settings.seats, settings.small_blind, settings.big_blind, 0.0, None, exact_ev=False
    )


def action_bound(game: GameSettings) -> int:
    """A log long enough for any hand: every raise adds at least a big blind, so a street
    holds at most ``stack / big blind`` raises, each answered by every other seat."""
    raises = int(np.ceil(game.stack_hi_bb)) + 1
    return 4 * game.seats + raises * game.seats


class _LearnerLog:
    """The learner's recorder: every decision's inputs and choices, keyed by hand, and
    every end-of-hand step, each numbered by the call that made it; at each hand's end, the
    answers of the other seats to the learner's decisions in it (:meth:`answered`)."""

    def __init__(self, collection: _Collection) -> None:
        self.collection = collection
        self.parts: dict[str, list[npt.NDArray[np.generic]]] = {
            k: [] for k in ("game", "new_hand", "actions", "sizes", "log_probs", "hand", "sequence")
        }
        self.inputs: list[InputArrays] = []
        self.folded: list[Int64s] = []
        self.ends: dict[str, list[npt.NDArray[np.generic]]] = {
            k: [] for k in ("game", "new_hand", "sequence")
        }
        self.end_inputs: list[InputArrays] = []
        self.calls = 0
        self.decisions = 0
        self.pending: dict[int, list[tuple[int, int]]] = {}  # table: (decision, log row)
        self.responses: dict[int, int] = {}

    def record(
        self,
        decisions: Decisions,
        inputs: InputArrays,
        new_hand: Bools,
        actions: Int64s,
        sizes: Float32s,
        log_probs: Float32s,
    ) -> None:
        tables = decisions.tables
        self.inputs.append(inputs)
        self.parts["game"].append(self.collection.game_of[tables])
        self.parts["new_hand"].append(new_hand)
        self.parts["actions"].append(actions)
        self.parts["sizes"].append(sizes)
        self.parts["log_probs"].append(log_probs)
        self.parts["hand"].append(self.collection.hand_slot[tables])
        self.parts["sequence"].append(np.full(tables.size, self.calls, dtype=np.int64))
        self.calls += 1
        self.folded.append(tables[actions == FOLD])
        log_rows = decisions.batch.table[tables, LOG_LEN]  # where this action will be logged
        for offset, (table, row) in enumerate(zip(tables.tolist(), log_rows.tolist(), strict=True)):
            self.pending.setdefault(table, []).append((self.decisions + offset, row))
        self.decisions += tables.size

    def answered(self, batch: BatchedTables, tables: Int64s, seats: Int64s) -> None:
        """The hands at ``tables`` are over: for each of the learner's decisions in them,
        the first move another seat made after it (a decision nobody answered has none)."""
        width = batch.log.shape[1]
        for table, seat in zip(tables.tolist(), seats.tolist(), strict=True):
            pending = self.pending.pop(table, [])
            if not pending:
                continue
            log = batch.log[table, : min(int(batch.table[table, LOG_LEN]), width)]
            others = np.flatnonzero(log[:, LOG_SEAT] != seat)
            for decision, row in pending:
                later = others[np.searchsorted(others, row, side="right") :]
                if later.size:
                    self.responses[decision] = int(log[later[0], LOG_MOVE])

    def joined_responses(self) -> Int64s:
        """Every decision's answer (-1 where none was recorded)."""
        out = np.full(self.decisions, -1, dtype=np.int64)
        if self.responses:
            out[np.fromiter(self.responses, dtype=np.int64)] = list(self.responses.values())
        return out

    def record_hand_ends(
        self, tables: Int64s, seats: Int64s, inputs: InputArrays, new_hand: Bools
    ) -> None:
        self.end_inputs.append(inputs)
        self.ends["game"].append(self.collection.game_of[tables])
        self.ends["new_hand"].append(new_hand)
        self.ends["sequence"].append(np.full(tables.size, self.calls, dtype=np.int64))
        self.calls += 1

    def hand_ends(self, seats: int) -> HandEnds:
        """The end-of-hand steps recorded (none without ``hand_end_step``)."""
        if not self.end_inputs:
            return HandEnds.none(seats)
        return HandEnds(
            InputArrays.concatenate(self.end_inputs),
            np.concatenate(self.ends["game"]).astype(np.int64),
            np.concatenate(self.ends["new_hand"]).astype(np.bool_),
            np.concatenate(self.ends["sequence"]).astype(np.int64),
        )

    def take_folded(self) -> Int64s:
        """Tables where the learner folded since the last call."""
        folded = np.concatenate(self.folded) if self.folded else np.zeros(0, dtype=np.int64)
        self.folded = []
        return folded

    def joined(self, name: str, dtype: type) -> npt.NDArray[Any]:
        """The recorded parts of ``name`` as one array of ``dtype``."""
        parts = self.parts[name]
        return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)


class _Collection:
    """One collection as a face over the play loop (see the module docstring)."""

    def __init__(
        self,
        plan: EpochPlan,
        learner: PokerNet,
        opponents: Sequence[PokerNet],
        fixed: Sequence[Agent],
        key: Sequence[int],
        device: str,
    ) -> None:
        if len(fixed) != len(plan.fixed_weights):
            raise ValueError(f"{len(fixed)} fixed opponents for {len(plan.fixed_weights)} weights")
        if not opponents and plan.fixed_share < 1.0:
            raise ValueError("a league collection needs an opponent network (or fixed_share 1)")
        self.plan = plan
        game = plan.game
        self.big_blind = game.big_blind
        self.batch = BatchedTables(
            league_game(game), plan.games, seed=0, max_actions=action_bound(game)
        )
        streams = np.random.SeedSequence(list(key)).spawn(4 + len(opponents) + len(fixed))
        self.batch.rng[:] = streams[0].generate_state(plan.games, dtype=np.uint64) | np.uint64(1)
        self.draw = np.random.default_rng(streams[1])
        self.runouts = np.random.default_rng(streams[2])
        self.log = _LearnerLog(self)
        self.learner = LeagueAgent(
            learner, device=device, shuffle_opponents=plan.shuffle_opponents, recorder=self.log
        )
        self.opponents = [LeagueAgent(net, device=device) for net in opponents]
        self.fixed = list(fixed)
        agents: list[Agent] = [self.learner, *self.opponents, *self.fixed]
        self.loop = PlayLoop(
            self.batch,
            agents,
            [
                "learner",
                *(f"checkpoint {i}" for i in range(len(opponents))),
                *(f"fixed {i}" for i in range(len(fixed))),
            ],
            [np.random.default_rng(streams[3]), *(np.random.default_rng(s) for s in streams[4:])],
            self,
            hands_per_table=plan.hands_per_game,
        )
        seats = game.seats
        self.game_of = np.arange(plan.games, dtype=np.int64)
        self.learner_seat = np.zeros(plan.games, dtype=np.int64)
        self.owners = np.zeros((plan.games, seats), dtype=np.int64)
        self.hand_slot = np.full(plan.games, -1, dtype=np.int64)  # this hand's slot, -1 booked
        self.hand_game: list[int] = []  # per hand slot: its game
        self.hand_reward: list[float] = []
        self.hand_result: list[float] = []
        self.showdowns = 0

    # -- the face's hooks ---------------------------------------------------------------------

    def seat(self, tables: Int64s, played: Int64s) -> Int64s:
        """New games get a learner seat, opponents, a button and (tournaments) stacks;
        every hand gets its stacks and cards."""
        game, batch = self.plan.game, self.batch
        seats, big = game.seats, game.big_blind
        first = played == 0
        starting = tables[first]
        if starting.size:
            self.learner_seat[starting] = self.draw.integers(seats, size=starting.size)
            drawn = self._draw_opponents((starting.size, seats))
            drawn[np.arange(starting.size), self.learner_seat[starting]] = LEARNER
            self.owners[starting] = drawn
            for agent in (self.learner, *self.opponents):
                agent.new_games(starting)
        buttons = (batch.table[tables, BUTTON] + 1) % seats
        buttons[first] = self.draw.integers(seats, size=starting.size)
        stacks = self._fresh_stacks(tables.size, seats, big)
        if game.mode == "cash":
            batch.reset(tables, stacks=stacks, buttons=buttons)
        else:  # carried stacks; the engine moves each button on past empty seats
            later = tables[~first]
            if starting.size:
                batch.reset(starting, stacks=stacks[first], buttons=buttons[first])
            if later.size:
                batch.reset(later, stacks=batch.stacks[later].copy())
        for table in tables.tolist():  # a hand closed without an end leaves no answers
            self.log.pending.pop(table, None)
        slots = np.arange(len(self.hand_game), len(self.hand_game) + tables.size)
        self.hand_slot[tables] = slots
        self.hand_game.extend(tables.tolist())
        self.hand_reward.extend([0.0] * tables.size)
        self.hand_result.extend([0.0] * tables.size)
        owners: Int64s = self.owners[tables]
        return owners

    def _draw_opponents(self, shape: tuple[int, int]) -> Int64s:
        """Agent indices for opponent seats: a fixed agent in ``fixed_share`` of them (by
        weight), otherwise one of the epoch's checkpoints uniformly."""
        plan, checkpoints = self.plan, len(self.opponents)
        drawn = 1 + self.draw.integers(max(checkpoints, 1), size=shape)
        if self.fixed:
            weights = np.asarray(plan.fixed_weights, dtype=np.float64)
            which = self.draw.choice(len(self.fixed), size=shape, p=weights / weights.sum())
            use_fixed = self.draw.random(shape) < plan.fixed_share
            drawn = np.where(use_fixed, 1 + checkpoints + which, drawn)
        return drawn.astype(np.int64)

    def _lineups(self) -> Int64s:
        """(games,) each game's opponent line-up key (:func:`lineup_keys`)."""
        kinds = np.maximum(self.owners - len(self.opponents), 0)  # checkpoints 0, fixed i: i+1
        return lineup_keys(kinds, self.learner_seat, self.plan.game.seats)

    def _fresh_stacks(self, count: int, seats: int, big: int) -> Int64s:
        game = self.plan.game
        low, high = game.stack_lo_bb * big, game.stack_hi_bb * big
        drawn = self.draw.uniform(low, high, size=(count, seats))
        return np.maximum(np.rint(drawn), big).astype(np.int64)

    def finished(self, done: Int64s) -> None:
        """Book the learner's reward for the hands that ended at ``done``."""
        batch = self.batch
        seats = self.learner_seat[done]
        mode = AllInEV.SAMPLED if self.plan.game.all_in_ev else AllInEV.OFF
        results = hand_results(batch, done, mode, RUNOUTS, self.runouts)
        result = results[np.arange(done.size), seats] / self.big_blind
        live = batch.seat[done, FOLDED] == 0  # (k, seats)
        learner_live = live[np.arange(done.size), seats]
        showdown = (batch.table[done, SHOWDOWN] == 1) & learner_live
        steal = learner_live & (live.sum(axis=1) == 1)
        self.showdowns += int(showdown.sum())
        self.log.answered(batch, done, seats)
        rewards = self._shaped(done, seats, result, showdown, steal)
        if self.plan.game.mode == "tournament":
            rewards += self._tournament_bonuses(done, seats, result)
        self.book(done, result, rewards)

    def stepped(self, tables: Int64s, seats: Int64s, owners: Int64s) -> None:
        """In cash games, abandon the hands the learner just folded."""
        folded = self.log.take_folded()
        if self.plan.game.mode != "cash" or folded.size == 0:
            return
        batch = self.batch
        gone = folded[~batch.done[folded]]
        if gone.size:
            seat = self.learner_seat[gone]
            self.log.answered(batch, gone, seat)
            result = -batch.seat[gone, TOTAL, seat] / self.big_blind
            no = np.zeros(gone.size, dtype=np.bool_)
            self.book(gone, result, self._shaped(gone, seat, result, no, no))
            self.loop.show_ended(gone)  # end-of-hand steps, on the hand as the learner left it
            self.loop.close(gone)

    # -- rewards ------------------------------------------------------------------------------

    def _shaped(
        self, tables: Int64s, seats: Int64s, result: Floats, showdown: Bools, steal: Bools
    ) -> Floats:
        """The result (times the showdown multiplier at showdown) plus the hand's bonuses."""
        rewards = np.where(showdown, result * self.plan.showdown_multiplier, result)
        shaping = self.plan.rewards
        if shaping.shaping:
            rewards = rewards + shaping.showdown_bonus * showdown + shaping.steal_bonus * steal
            rewards = rewards + shaping.isolation_bonus * self._isolated(tables, seats)
        return rewards

    def _isolated(self, tables: Int64s, seats: Int64s) -> Bools:
        """Whether the learner saw the flop with exactly one opponent."""
        batch = self.batch
        log = batch.log[tables]
        length = batch.table[tables, LOG_LEN]
        width = log.shape[1]
        recorded = np.arange(width)[None, :] < np.minimum(length, width)[:, None]
        preflop_fold = recorded & (log[:, :, LOG_MOVE] == 0) & (log[:, :, LOG_STREET] == 0)
        occupied = (batch.seat[tables, START] > 0).sum(axis=1)
        live_at_flop = occupied - preflop_fold.sum(axis=1)
        folded_preflop = np.zeros(tables.size, dtype=np.bool_)
        for row in range(tables.size):
            mine = preflop_fold[row] & (log[row, :, 0] == seats[row])
            folded_preflop[row] = bool(mine.any())
        saw_flop = batch.table[tables, SHOWN] >= 3
        isolated: Bools = saw_flop & (live_at_flop == 2) & ~folded_preflop
        return isolated

    def _tournament_bonuses(self, tables: Int64s, seats: Int64s, result: Floats) -> Floats:
        """Eliminations the learner won, and survival; retires the games that are over."""
        batch, shaping = self.batch, self.plan.rewards
        before = batch.seat[tables, START]
        after = batch.stacks[tables]
        busted = ((before > 0) & (after == 0)).sum(axis=1)
        learner_after = after[np.arange(tables.size), seats]
        alive = (after > 0).sum(axis=1)
        bonus = np.zeros(tables.size)
        if shaping.shaping:
            bonus += shaping.elimination_bonus * busted * (result > 0)
            bonus += shaping.survival_bonus * ((alive == 1) & (learner_after > 0))
        over = (alive <= 1) | (learner_after == 0)
        if over.any():
            self.loop.retire(tables[over])
        return bonus

    def book(self, tables: Int64s, result: Floats, rewards: Floats) -> None:
        """Store the hand's plain result and shaped reward in its slot."""
        for slot, value, reward in zip(
            self.hand_slot[tables].tolist(), result.tolist(), rewards.tolist(), strict=True
        ):
            self.hand_result[slot] = value
            self.hand_reward[slot] = reward
        self.hand_slot[tables] = -1

    # -- the result ---------------------------------------------------------------------------

    def run(self) -> Experience:
        start = time.perf_counter()
        self.loop.run()
        total = time.perf_counter() - start
        log = self.log
        hand = log.joined("hand", np.int64)
        game = log.joined("game", np.int64)
        rewards = np.asarray(self.hand_reward)
        hand_game = np.asarray(self.hand_game, dtype=np.int64)
        hand_returns = discounted_returns(rewards, hand_game, self.plan.game.hand_reward_decay)
        seconds = {
            "collect": total,
            "learner": float(self.loop.seconds[LEARNER]),
            "opponents": float(self.loop.seconds[1:].sum()),
            "engine": self.loop.engine_seconds,
        }
        return Experience(
            inputs=(
                InputArrays.concatenate(log.inputs)
                if log.inputs
                else empty_inputs(self.plan.game.seats)
            ),
            game=game,
            new_hand=log.joined("new_hand", np.bool_),
            actions=log.joined("actions", np.int64),
            sizes=log.joined("sizes", np.float32),
            log_probs=log.joined("log_probs", np.float32),
            returns=hand_returns[hand] if hand.size else np.zeros(0),
            hand_results=np.asarray(self.hand_result),
            games=self.plan.games,
            showdowns=self.showdowns,
            sequence=log.joined("sequence", np.int64),
            hand_ends=log.hand_ends(self.plan.game.seats),
            responses=log.joined_responses(),
            lineups=self._lineups()[game] if game.size else np.zeros(0, dtype=np.int64),
            seconds=seconds,
        )


def lineup_keys(kinds: Int64s, learner_seats: Int64s, seats: int) -> Int64s:
    """(games,) one integer per game's opponent line-up: ``sum(count_k * seats ** k)`` over
    the opponent kinds ``k`` of the ``(games, seats)`` array ``kinds`` (the learner's seat
    left out), so two games share a key exactly when they hold the same opponents."""
    games = np.arange(kinds.shape[0])
    opponent = np.ones(kinds.shape, dtype=np.bool_)
    opponent[games, learner_seats] = False
    powers = np.power(seats, kinds, dtype=np.int64)
    keys: Int64s = (powers * opponent).sum(axis=1).astype(np.int64)
    return keys


def discounted_returns(rewards: Floats, games: Int64s, decay: float) -> Floats:
    """Each hand's reward plus the later hands' of its game times ``decay`` per hand
    (hands are given in the order played; a game's hands need not be contiguous)."""
    returns = np.zeros_like(rewards)
    running: dict[int, float] = {}
    for i in range(rewards.size - 1, -1, -1):
        g = int(games[i])
        running[g] = rewards[i] + decay * running.get(g, 0.0)
        returns[i] = running[g]
    return returns


def collect(
    plan: EpochPlan,
    learner: PokerNet,
    opponents: Sequence[PokerNet],
    key: Sequence[int],
    *,
    fixed: Sequence[Agent] = (),
    device: str = "cpu",
) -> Experience:
    """Play one collection: ``plan.games`` games of the learner against ``opponents``
    (frozen networks) and the ``fixed`` agents (``plan.fixed_share`` of the seats), every
    random stream derived from ``key`` (seed, epoch, worker)."""
    return _Collection(plan, learner, opponents, fixed, key, device).run()
