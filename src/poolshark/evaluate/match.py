"""Matches between agents on the batched engine, with honest error bars.

:func:`play_match` seats agents by a *lineup* (one agent index per seat slot) at
thousands of :class:`~poolshark.engine.batched.BatchedTables` and plays complete hands
through the one batched play loop (:class:`~poolshark.play.loop.PlayLoop`; a match is a
face over it): every step gathers the pending decisions of each agent into one call. Stacks
reset to ``depth_bb`` every hand (cash-game win rates, no carry-over).

* **Positions.** The button stays on seat 0 and the lineup is rotated instead: hand ``k``
  of table ``t`` seats lineup slot ``j`` at seat ``(j + t + k) % seats`` (plain mode), and
  every table plays a multiple of ``seats`` hands, so each agent plays every position
  equally often.
* **Duplicate mode.** Each deal (every seat's hole cards and the whole board) is played
  once per distinct rotation of the lineup (``seats`` replays, fewer for a periodic
  lineup such as A, B, A, B, A, B), so each agent holds each seat's cards in each
  position; the replays' results are averaged per deal, which cancels most card luck.
* **All-in EV.** Each hand books the dealt result (``actual``) and an all-in-EV-adjusted
  result: the same except when players were all-in before the river, where the pot is paid
  by expectation over the unseen board, exactly (``all_in_ev="exact"``, the engine's
  ``settlement="ev"``, slow for all-in-heavy agents) or by the mean of ``runouts`` random
  boards through the engine's settlement (``"sampled"``, unbiased, the default).
* **Estimator.** Per agent, the unit is a deal: one table-hand (plain) or one deal's set of
  replays (duplicate). The unit's value is the agent's chips won summed over its seats and
  replays, divided by its seat-hands in the unit and the big blind. The win rate is the
  mean over units times 100 (bb/100 seat-hands); its standard error is the sample standard
  deviation of the unit values over the square root of the number of units; the 95%
  interval is +-1.96 standard errors (units are independent: stacks reset every hand).
* **Variance reduction** (``variance_reduction=True``). Each seat's result is also booked
  minus its AIVAT-style corrections (:mod:`poolshark.evaluate.aivat`: chance nodes and
  the decisions of agents whose policy the match knows), each kind weighed by a
  coefficient fitted on the other half of the deals: an unbiased estimate of the same
  win rate with a narrower interval (``AgentResult.aivat``); ``luck`` is the mean of the
  corrections themselves (zero in expectation).

An ``observer`` given to :func:`play_match` sees every batch of finished hands
(:class:`FinishedHands`: the engine state with the hands' action logs, the seats' owners and
results) before the tables deal again; spot-level analyses (``analysis.attribution``) read
the logs there instead of wrapping the agents.

All agents' chips sum to minus the rake, hand by hand. A match is reproducible from its
seed: the cards come from the engine's per-table streams, and every agent gets its own
random stream (:attr:`~poolshark.agents.protocol.Decisions.rng`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import (
    Agent,
    Decisions,
    EndedHands,
    Moves,
    Probabilities,
    notify_ended,
)
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import Betting, GameConfig
from poolshark.engine.kernel import (
    FOLD,
    FOLDED,
    LOG_AMOUNT,
    LOG_LEN,
    LOG_MOVE,
    LOG_SEAT,
    LOG_STREET,
    PREFLOP,
    RAISE,
    RAKE,
    TOTAL,
)
from poolshark.engine.runouts import AllInEV, hand_results
from poolshark.evaluate.aivat import (
    FEATURES,
    KINDS,
    PREFLOP_BOARDS,
    Corrections,
    cross_fitted,
    known_policy,
)
from poolshark.play.loop import PlayLoop, match_game

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


Z95 = 1.959963984540054
MAX_ACTIONS = 256  # per hand; a longer no-limit raising war is refused (MatchError)
ESTIMATOR = (
    "mean over independent deals of each agent's chips per seat-hand (summed over its seats "
    "and, in duplicate mode, averaged over a deal's replays), in big blinds x 100; "
    "standard error = sample sd / sqrt(deals); 95% CI = +-1.96 standard errors"
)


class MatchError(ValueError):
    """A match that cannot be played as asked (bad lineup, sizes, options)."""


@dataclass(frozen=True)
class MatchConfig:
    """How a match is played (validated). Chips: blinds 1/2 unless given.

    ``hands`` is a minimum number of table-hands: it is rounded up so every table plays
    whole rotations of the lineup. ``tables`` caps the tables played at once.
    """

    hands: int = 10_000
    seats: int = 6
    duplicate: bool = False
    seed: int = 0
    depth_bb: float = 100.0
    tables: int = 1024
    small_blind: int = 1
    big_blind: int = 2
    rake_percent: float = 0.0
    rake_cap_bb: float | None = None
    all_in_ev: AllInEV = AllInEV.SAMPLED
    runouts: int = 500
    variance_reduction: bool = False
    preflop_boards: int = PREFLOP_BOARDS
    betting: Betting = Betting.NO_LIMIT
    cap_heads_up: bool = True

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "betting", Betting(self.betting))
        except ValueError:
            raise MatchError(
                f"betting must be no-limit or fixed-limit, got {self.betting!r}"
            ) from None
        try:
            object.__setattr__(self, "all_in_ev", AllInEV(self.all_in_ev))
        except ValueError:
            raise MatchError(
                f"all_in_ev must be sampled, exact or off, got {self.all_in_ev!r}"
            ) from None
        checks = (
            (self.hands >= 1, f"hands must be at least 1, got {self.hands}"),
            (2 <= self.seats <= 10, f"seats must be 2..10, got {self.seats}"),
            (self.tables >= 1, f"tables must be at least 1, got {self.tables}"),
            (
                math.isfinite(self.depth_bb) and round(self.depth_bb * self.big_blind) >= 1,
                f"depth must be a finite number of big blinds of at least one chip, "
                f"got {self.depth_bb}",
            ),
            (self.runouts >= 1, f"runouts must be at least 1, got {self.runouts}"),
            (
                self.preflop_boards >= 1,
                f"preflop boards must be at least 1, got {self.preflop_boards}",
            ),
            (
                self.rake_cap_bb is None or self.rake_cap_bb >= 0,
                f"the rake cap cannot be negative, got {self.rake_cap_bb}",
            ),
        )
        for ok, message in checks:
            if not ok:
                raise MatchError(message)
        try:
            self.game()
        except ValueError as error:
            raise MatchError(f"bad game: {error}") from None

    @property
    def depth(self) -> int:
        """Starting stack in chips."""
        return round(self.depth_bb * self.big_blind)

    def game(self) -> GameConfig:
        """The engine's game: this betting, these blinds, rake and settlement."""
        return match_game(
            self.seats,
            self.small_blind,
            self.big_blind,
            self.rake_percent,
            self.rake_cap_bb,
            exact_ev=self.all_in_ev is AllInEV.EXACT,
            betting=self.betting,
            cap_heads_up=self.cap_heads_up,
        )


@dataclass(frozen=True)
class Estimate:
    """A win rate in bb/100 and its standard error (bb/100)."""

    bb_per_100: float
    stderr: float

    @property
    def half_width(self) -> float:
        """Half the 95% confidence interval."""
        return Z95 * self.stderr

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% confidence interval."""
        return self.bb_per_100 - self.half_width, self.bb_per_100 + self.half_width

    @property
    def small_bets_per_hand(self) -> float:
        """The win rate in small bets per hand, the unit of limit poker (matches bet the
        big blind as the small bet)."""
        return self.bb_per_100 / 100

    def as_dict(self) -> dict[str, float | list[float]]:
        """Plain numbers for JSON."""
        low, high = self.interval
        return {"bb_per_100": self.bb_per_100, "stderr": self.stderr, "ci95": [low, high]}


@dataclass(frozen=True)
class AgentResult:
    """One agent's figures over a match (``hands`` are seat-hands it played).

    ``aivat`` is the variance-reduced win rate (corrections weighed by cross-fitted
    coefficients), ``aivat_plain`` the same with every value correction weighed one, and
    ``luck`` the mean of the corrections ``aivat`` took out (all None unless the match ran
    with ``variance_reduction``); ``corrected_decisions`` counts this agent's decisions
    with a known policy.
    """

    name: str
    seats: int
    hands: int
    won_chips: int
    actual: Estimate
    ev_adjusted: Estimate | None
    vpip: float
    pfr: float
    decisions: int
    coerced: int
    agent_seconds: float
    aivat: Estimate | None = None
    aivat_plain: Estimate | None = None
    luck: Estimate | None = None
    corrected_decisions: int = 0
    hud: HudStats | None = None

    def as_dict(self) -> dict[str, object]:
        """Plain values for JSON."""
        return {
            "name": self.name,
            "seats": self.seats,
            "hands": self.hands,
            "won_chips": self.won_chips,
            "actual": self.actual.as_dict(),
            "ev_adjusted": None if self.ev_adjusted is None else self.ev_adjusted.as_dict(),
            "aivat": None if self.aivat is None else self.aivat.as_dict(),
            "aivat_plain": None if self.aivat_plain is None else self.aivat_plain.as_dict(),
            "luck": None if self.luck is None else self.luck.as_dict(),
            "corrected_decisions": self.corrected_decisions,
            "vpip": self.vpip,
            "pfr": self.pfr,
            "decisions": self.decisions,
            "coerced": self.coerced,
            "agent_seconds": self.agent_seconds,
            "hud": None if self.hud is None else self.hud.as_dict(),
        }


@dataclass(frozen=True)
class HudStats:
    """An agent's style over a match, the statistics a HUD shows beside a win rate, so that
    a degenerate style (always raising, folding everything) is visible at a glance.

    Shares of the agent's seat-hands: ``folded`` (it folded), ``went_to_showdown`` (it
    saw a showdown), ``won_without_showdown`` (everyone else folded). ``won_at_showdown``
    is its share of the showdown pots it contested (a split pot counts the part it took).
    ``aggression`` is bets and raises over calls after the flop (checks count as neither;
    None when it never called after the flop).

    The ``voluntary_*`` fields are the thesis's variants (seed 003, section 5.3), shares of
    the agent's voluntary deals (those counted in VP$IP: chips put in preflop beyond the
    blinds), which each end in exactly one of them: ``voluntary_folded`` (Fold%: it folded
    later), ``voluntary_won_without_showdown`` (Ww/oSD: everyone else folded) and
    ``voluntary_went_to_showdown`` (the rest); None when it had no voluntary deal.
    ``aggression_all_streets`` (AF) is bets and raises over calls on every street, preflop
    included (checks count as neither; None when it never called).
    """

    folded: float
    went_to_showdown: float
    won_without_showdown: float
    won_at_showdown: float
    aggression: float | None
    voluntary_folded: float | None
    voluntary_won_without_showdown: float | None
    voluntary_went_to_showdown: float | None
    aggression_all_streets: float | None

    def as_dict(self) -> dict[str, float | None]:
        """Plain values for JSON."""
        return {
            "folded": self.folded,
            "went_to_showdown": self.went_to_showdown,
            "won_without_showdown": self.won_without_showdown,
            "won_at_showdown": self.won_at_showdown,
            "aggression": self.aggression,
            "voluntary_folded": self.voluntary_folded,
            "voluntary_won_without_showdown": self.voluntary_won_without_showdown,
            "voluntary_went_to_showdown": self.voluntary_went_to_showdown,
            "aggression_all_streets": self.aggression_all_streets,
        }


@dataclass(frozen=True)
class MatchResult:
    """A finished match: per-agent results and the totals that check them."""

    config: MatchConfig
    agents: tuple[AgentResult, ...]
    lineup: tuple[int, ...]
    table_hands: int
    deals: int
    replays: int
    rake_chips: int
    seconds: float

    def as_dict(self) -> dict[str, object]:
        """Plain values for JSON (the ``poolshark eval --json`` object)."""
        config = self.config
        agents = [agent.as_dict() for agent in self.agents]
        if config.betting is Betting.FIXED_LIMIT:
            for agent, figures in zip(self.agents, agents, strict=True):
                rate = agent.actual
                figures["sb_per_hand"] = {
                    "mean": rate.small_bets_per_hand,
                    "ci95": [bound / 100 for bound in rate.interval],
                }
        return {
            "agents": agents,
            "lineup": [self.agents[i].name for i in self.lineup],
            "seats": config.seats,
            "table_hands": self.table_hands,
            "deals": self.deals,
            "replays": self.replays,
            "duplicate": config.duplicate,
            "seed": config.seed,
            "depth_bb": config.depth_bb,
            "betting": str(config.betting),
            "big_blind": config.big_blind,
            "rake_percent": config.rake_percent,
            "rake_cap_bb": config.rake_cap_bb,
            "rake_bb": self.rake_chips / config.big_blind,
            "all_in_ev": str(config.all_in_ev),
            "runouts": config.runouts if config.all_in_ev is AllInEV.SAMPLED else None,
            "variance_reduction": config.variance_reduction,
            "preflop_boards": config.preflop_boards if config.variance_reduction else None,
            "estimator": ESTIMATOR,
            "seconds": self.seconds,
            "hands_per_second": self.table_hands / max(self.seconds, 1e-9),
        }


@dataclass(frozen=True, eq=False)
class FinishedHands:
    """Hands that just ended, as a match's observer sees them before the tables deal again.

    ``batch`` still holds these hands (action logs, starting stacks, buttons, end streets);
    ``hand_ids`` (H,) are the ids the agents saw (``Decisions.hand_ids``); ``owners``
    (H, seats) the agent index of each seat; ``net`` (H, seats) the chips each seat won as
    dealt and ``ev`` the same with all-in pots paid by expectation (the match's
    ``all_in_ev``; as dealt when it is off).
    """

    batch: BatchedTables
    tables: Int64s
    hand_ids: Int64s
    owners: Int64s
    net: Int64s
    ev: Floats


def default_lineup(agents: int, seats: int, *, against: bool = False) -> tuple[int, ...]:
    """Agent index per seat slot: agents in turn around the table (A, B, A, B, ...), or with
    ``against`` the first ``agents - 1`` once each and the last (the field) in the rest."""
    if agents < 1:
        raise MatchError("a match needs at least one agent")
    if against:
        players = agents - 1
        if players < 1:
            raise MatchError("give at least one agent besides the field")
        if players >= seats:
            raise MatchError(
                f"{players} agent(s) and a field need at least {players + 1} seats, got {seats}"
            )
        return (*range(players), *[players] * (seats - players))
    if agents > seats:
        raise MatchError(f"{agents} agents do not fit {seats} seats")
    return tuple(i % agents for i in range(seats))


def rotation_period(lineup: Sequence[int]) -> int:
    """The number of distinct rotations of a lineup (A, B, A, B, A, B: 2)."""
    seats = len(lineup)
    for period in range(1, seats + 1):
        if seats % period == 0 and all(
            lineup[i] == lineup[(i + period) % seats] for i in range(seats)
        ):
            return period
    return seats


def play_match(
    agents: Sequence[Agent],
    lineup: Sequence[int],
    config: MatchConfig,
    *,
    names: Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    observer: Callable[[FinishedHands], None] | None = None,
) -> MatchResult:
    """Play ``config.hands`` (at least) table-hands and report every agent's win rate.

    ``lineup[j]`` is the agent in seat slot ``j`` (rotated around the table, see the
    module docstring); ``names`` label the agents (default: class names, numbered when
    repeated); ``progress(done, total)`` is called as table-hands finish; ``observer``
    is handed each batch of finished hands (:class:`FinishedHands`).
    """
    labels = _labels(agents, names)
    slots = np.asarray(lineup, dtype=np.int64)
    if slots.shape != (config.seats,):
        raise MatchError(f"the lineup needs one agent per seat ({config.seats}), got {len(lineup)}")
    if slots.min() < 0 or slots.max() >= len(agents):
        raise MatchError(f"lineup entries are agent indices 0..{len(agents) - 1}")
    missing = sorted(set(range(len(agents))) - set(slots.tolist()))
    if missing:
        raise MatchError(f"agents {', '.join(labels[i] for i in missing)} have no seat")
    runner = _Runner(agents, labels, slots, config, observer)
    start = time.perf_counter()
    try:
        runner.run(progress)
    except OverflowError as error:
        raise MatchError(
            f"{error}: the agents kept re-raising (tiny raises, deep stacks)"
        ) from None
    return runner.result(time.perf_counter() - start)


def _labels(agents: Sequence[Agent], names: Sequence[str] | None) -> list[str]:
    if names is not None:
        if len(names) != len(agents):
            raise MatchError(f"{len(names)} names for {len(agents)} agents")
        base = [str(n) for n in names]
    else:
        base = [type(agent).__name__ for agent in agents]
    labels = []
    for i, name in enumerate(base):
        repeats = base[:i].count(name)
        labels.append(name if repeats == 0 else f"{name}#{repeats + 1}")
    return labels


class _Runner:
    """One match as a face over the play loop: the rotated lineup, the per-deal books."""

    def __init__(
        self,
        agents: Sequence[Agent],
        labels: list[str],
        lineup: Int64s,
        config: MatchConfig,
        observer: Callable[[FinishedHands], None] | None = None,
    ) -> None:
        seats = config.seats
        self.agents, self.labels, self.lineup, self.config = agents, labels, lineup, config
        self.observer = observer
        self.replays = rotation_period(lineup.tolist()) if config.duplicate else 1
        rounds = math.ceil(config.hands / (seats * config.tables))
        self.per_table = seats * rounds
        self.tables = math.ceil(config.hands / self.per_table)
        self.batch = BatchedTables(
            config.game(), self.tables, seed=config.seed, max_actions=MAX_ACTIONS
        )
        streams = np.random.SeedSequence(config.seed).spawn(len(agents) + 2)
        self.runout_rng = np.random.default_rng(streams[len(agents)])
        self.corrections: Corrections | None = None
        self.observed = [_Observed(agent, None) for agent in agents]
        if config.variance_reduction:
            seed = int(streams[-1].generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
            self.corrections = Corrections(self.batch, seed, config.preflop_boards)
            self.observed = [_Observed(agent, self.corrections) for agent in agents]
        self.loop = PlayLoop(
            self.batch,
            self.observed,
            labels,
            [np.random.default_rng(s) for s in streams[:-1]],
            self,
            hands_per_table=self.per_table,
        )
        n_agents = len(agents)
        self.units = self.tables * self.per_table // self.replays
        self.unit_actual = np.zeros((self.units, n_agents), dtype=np.int64)
        self.unit_ev = np.zeros((self.units, n_agents))
        self.unit_parts = np.zeros(
            (self.units, n_agents, len(FEATURES) if config.variance_reduction else 0)
        )
        self.deals = np.zeros_like(self.batch.cards)
        self.vpip_flag = np.zeros((self.tables, seats), dtype=np.bool_)
        self.pfr_flag = np.zeros((self.tables, seats), dtype=np.bool_)
        self.vpip = np.zeros(n_agents, dtype=np.int64)
        self.pfr = np.zeros(n_agents, dtype=np.int64)
        self.seat_hands = np.zeros(n_agents, dtype=np.int64)
        # Hand outcomes per agent, split by whether the hand was voluntary (column 1) or not
        # (column 0); moves per agent, split preflop (column 0) and postflop (column 1).
        self.folds = np.zeros((n_agents, 2), dtype=np.int64)
        self.showdowns = np.zeros((n_agents, 2), dtype=np.int64)
        self.showdown_share = np.zeros(n_agents)
        self.uncontested_wins = np.zeros((n_agents, 2), dtype=np.int64)
        self.aggressive = np.zeros((n_agents, 2), dtype=np.int64)
        self.calls = np.zeros((n_agents, 2), dtype=np.int64)
        self.rake = 0

    # -- the face's hooks ---------------------------------------------------------------------

    def seat(self, which: Int64s, played: Int64s) -> Int64s:
        """Seat the rotated lineup at tables ``which`` and deal (fresh cards or a replay)."""
        seats, batch = self.config.seats, self.batch
        if self.config.duplicate:
            rotation = played % self.replays
            fresh = which[rotation == 0]
            replay = which[rotation != 0]
        else:
            rotation = (which + played) % seats
            fresh, replay = which, which[:0]
        slot_of_seat = (np.arange(seats)[None, :] - rotation[:, None]) % seats
        self.vpip_flag[which] = False
        self.pfr_flag[which] = False
        if fresh.size:
            batch.reset(fresh, stacks=self.config.depth, buttons=0)
            self.deals[fresh] = batch.cards[fresh]
        if replay.size:
            stored = self.deals[replay]
            batch.reset(
                replay,
                stacks=self.config.depth,
                buttons=0,
                hole_cards=stored[:, : 2 * seats].reshape(replay.size, seats, 2),
                boards=stored[:, 2 * seats :],
            )
        if self.corrections is not None:
            self.corrections.dealt(which)
        owners: Int64s = self.lineup[slot_of_seat]
        return owners

    def finished(self, done: Int64s) -> None:
        """Add finished hands at tables ``done`` to the books."""
        batch, config = self.batch, self.config
        owners = self.loop.owner[done]
        net = batch.net[done]
        ev = hand_results(batch, done, config.all_in_ev, config.runouts, self.runout_rng)
        k = self.loop.played[done] - 1
        unit = done * (self.per_table // self.replays) + k // self.replays
        rows = np.broadcast_to(unit[:, None], owners.shape)
        np.add.at(self.unit_actual, (rows, owners), net)
        np.add.at(self.unit_ev, (rows, owners), ev)
        if self.corrections is not None:
            np.add.at(self.unit_parts, (rows, owners), self.corrections.parts[done])
        voluntary = self.vpip_flag[done]
        np.add.at(self.vpip, owners, voluntary)
        np.add.at(self.pfr, owners, self.pfr_flag[done])
        np.add.at(self.seat_hands, owners.ravel(), 1)
        self._book_showdowns(done, owners, voluntary.astype(np.int64), net)
        self.rake += int(batch.table[done, RAKE].sum())
        if self.observer is not None:
            self.observer(FinishedHands(batch, done, self.loop.hand_ids[done], owners, net, ev))

    def stepped(self, live: Int64s, seats: Int64s, owners: Int64s) -> None:
        """Flag who put chips in voluntarily (VPIP) and who raised (PFR) preflop; count bets,
        raises and calls (not checks) per street group for the aggression factors."""
        batch = self.batch
        entry = batch.log[live, batch.table[live, LOG_LEN] - 1]
        preflop = entry[:, LOG_STREET] == PREFLOP
        raised = entry[:, LOG_MOVE] == RAISE
        voluntary = preflop & (raised | (entry[:, LOG_AMOUNT] > 0))
        actor = entry[:, LOG_SEAT]
        self.vpip_flag[live[voluntary], actor[voluntary]] = True
        self.pfr_flag[live[preflop & raised], actor[preflop & raised]] = True
        postflop = (~preflop).astype(np.int64)
        acting = self.loop.owner[live, actor]
        np.add.at(self.aggressive, (acting[raised], postflop[raised]), 1)
        called = ~raised & (entry[:, LOG_MOVE] != FOLD) & (entry[:, LOG_AMOUNT] > 0)
        np.add.at(self.calls, (acting[called], postflop[called]), 1)
        if self.corrections is not None:
            self.corrections.stepped(live)

    def _book_showdowns(self, done: Int64s, owners: Int64s, voluntary: Int64s, net: Int64s) -> None:
        """Count folds, showdowns (with each one's share of the pot) and uncontested wins,
        each apart for the seat-hands where the seat put chips in voluntarily (1) or not (0)."""
        folded = self.batch.seat[done, FOLDED].astype(np.bool_)
        alive = ~folded
        showdown = alive & (alive.sum(axis=1) >= 2)[:, None]
        uncontested = alive & (alive.sum(axis=1) == 1)[:, None]
        paid = np.where(showdown, net + self.batch.seat[done, TOTAL], 0).astype(np.float64)
        share = paid / np.maximum(paid.sum(axis=1, keepdims=True), 1)
        np.add.at(self.folds, (owners[folded], voluntary[folded]), 1)
        np.add.at(self.showdowns, (owners[showdown], voluntary[showdown]), 1)
        np.add.at(self.showdown_share, owners[showdown], share[showdown])
        np.add.at(self.uncontested_wins, (owners[uncontested], voluntary[uncontested]), 1)

    def _hud(self, agent: int) -> HudStats:
        """Agent ``agent``'s HUD statistics from the books."""
        hands = max(int(self.seat_hands[agent]), 1)
        showdowns = int(self.showdowns[agent].sum())
        voluntary = int(self.vpip[agent])
        calls, aggressive = self.calls[agent], self.aggressive[agent]
        return HudStats(
            folded=float(self.folds[agent].sum() / hands),
            went_to_showdown=showdowns / hands,
            won_without_showdown=float(self.uncontested_wins[agent].sum() / hands),
            won_at_showdown=float(self.showdown_share[agent] / max(showdowns, 1)),
            aggression=_ratio(aggressive[1], calls[1]),
            voluntary_folded=_ratio(self.folds[agent, 1], voluntary),
            voluntary_won_without_showdown=_ratio(self.uncontested_wins[agent, 1], voluntary),
            voluntary_went_to_showdown=_ratio(self.showdowns[agent, 1], voluntary),
            aggression_all_streets=_ratio(aggressive.sum(), calls.sum()),
        )

    # -- playing ------------------------------------------------------------------------------

    def run(self, progress: Callable[[int, int], None] | None) -> None:
        """Play every table's hands to the end."""
        total = self.tables * self.per_table
        if progress is None:
            self.loop.run()
            return
        reported = 0

        def report(finished: int) -> None:
            nonlocal reported
            if finished - reported >= max(1, total // 200):
                progress(finished, total)
                reported = finished

        self.loop.run(report)
        progress(self.loop.closed, total)

    # -- results --------------------------------------------------------------------------------

    def result(self, seconds: float) -> MatchResult:
        """Per-agent estimates from the per-deal books."""
        config, big = self.config, self.config.big_blind
        counts = np.bincount(self.lineup, minlength=len(self.agents))
        results = []
        for a, label in enumerate(self.labels):
            per_unit = counts[a] * self.replays * big  # chips -> bb per seat-hand
            actual = _estimate(self.unit_actual[:, a] / per_unit)
            ev = (
                None
                if config.all_in_ev is AllInEV.OFF
                else _estimate(self.unit_ev[:, a] / per_unit)
            )
            aivat = aivat_plain = luck = None
            if self.corrections is not None:
                won, parts = self.unit_actual[:, a].astype(np.float64), self.unit_parts[:, a]
                corrections = cross_fitted(won, parts)
                luck = _estimate(corrections / per_unit)
                aivat = _estimate((won - corrections) / per_unit)
                aivat_plain = _estimate((won - parts[:, : len(KINDS)].sum(axis=1)) / per_unit)
            hands = int(self.seat_hands[a])
            results.append(
                AgentResult(
                    name=label,
                    seats=int(counts[a]),
                    hands=hands,
                    won_chips=int(self.unit_actual[:, a].sum()),
                    actual=actual,
                    ev_adjusted=ev,
                    vpip=float(self.vpip[a] / max(hands, 1)),
                    pfr=float(self.pfr[a] / max(hands, 1)),
                    decisions=int(self.loop.decisions[a]),
                    coerced=int(self.loop.coerced[a]),
                    agent_seconds=float(self.loop.seconds[a] - self.observed[a].seconds),
                    aivat=aivat,
                    aivat_plain=aivat_plain,
                    luck=luck,
                    corrected_decisions=self.observed[a].corrected,
                    hud=self._hud(a),
                )
            )
        return MatchResult(
            config=config,
            agents=tuple(results),
            lineup=tuple(int(i) for i in self.lineup),
            table_hands=self.loop.closed,
            deals=self.units,
            replays=self.replays,
            rake_chips=self.rake,
            seconds=seconds,
        )


class _Observed:
    """An agent seen by the match: its answers pass unchanged, and where its policy is known
    the expected value of its decisions goes to the corrections (timed apart from the
    agent)."""

    def __init__(self, agent: Agent, corrections: Corrections | None) -> None:
        self.agent, self.corrections = agent, corrections
        self.seconds = 0.0
        self.corrected = 0

    def act(self, decisions: Decisions) -> Probabilities | Moves:
        """The agent's answer; its known policy's expectations noted first."""
        answer = self.agent.act(decisions)
        if self.corrections is not None:
            start = time.perf_counter()
            policy = known_policy(decisions, answer, self.agent)
            if policy is not None:
                self.corrections.expect(decisions, policy)
                self.corrected += decisions.size
            self.seconds += time.perf_counter() - start
        return answer

    def hands_ended(self, ended: EndedHands) -> None:
        """Pass the hands that ended on to the agent, if it asks for them."""
        notify_ended(self.agent, ended)


def _ratio(part: int | np.integer, whole: int | np.integer) -> float | None:
    """``part / whole``, or None when ``whole`` is zero (a share of nothing)."""
    return float(part / whole) if whole else None


def _estimate(values: Floats) -> Estimate:
    """Mean x 100 and its standard error from per-deal values in big blinds per seat-hand."""
    count = values.size
    mean = float(values.mean())
    spread = float(values.std(ddof=1)) if count > 1 else float("inf")
    return Estimate(100.0 * mean, 100.0 * spread / math.sqrt(count))
