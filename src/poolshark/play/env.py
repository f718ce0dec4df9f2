"""Reinforcement-learning faces of the batched engine.

* :class:`VectorEnv`: many tables, one learning seat per table (seat 0; the button moves
  every hand, so it plays every position), the other seats played by given policies. Each
  ``step`` takes one choice per table and returns when every table is back at a learner
  decision; hands that ended on the way report their reward and are dealt again.
* :class:`HoldemEnv`: the same for one table, Gymnasium-style (``reset`` gives
  ``(observation, info)``, ``step`` gives ``(observation, reward, terminated, truncated,
  info)``; the legal-action mask is in ``info["mask"]``).
* :class:`MultiAgentView`: every seat is an agent; each call shows the player to act at
  every table and applies their choices (self-play, population rollouts).

Policies are plain callables ``policy(observations, masks) -> choices`` over batches, so a
torch model, a scripted style or a uniform-random stand-in all fit. Each is a face over the
play loop (``play.loop``): the seats' policies are one agent (:class:`SeatPolicies`), the
choices given to ``step`` / ``act`` another.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import Agent, Decisions, Moves
from poolshark.engine.actions import ActionSet
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.observation import ObservationEncoder, PublicObservation
from poolshark.play.loop import PlayLoop

Floats = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Results = npt.NDArray[np.float64]
Policy = Callable[[Floats, Bools], npt.ArrayLike]

LEARNER = 0


def random_policy(seed: int = 0) -> Policy:
    """A uniform choice among the legal actions (a baseline and a benchmark stand-in)."""
    rng = np.random.default_rng(seed)

    def choose(observations: Floats, masks: Bools) -> Int64s:
        scores = rng.random(masks.shape) * masks
        return np.asarray(scores.argmax(axis=1), dtype=np.int64)

    return choose


class SeatPolicies:
    """Policies over observations, one per seat, as one agent: it encodes the observations
    of the players to act and their legal masks of ``actions`` once, asks each seat's
    policy for its own rows (in seat order), and turns the choices into exact moves."""

    def __init__(
        self, policies: Sequence[Policy], encoder: ObservationEncoder, actions: ActionSet
    ) -> None:
        self.policies, self.encoder, self.actions = list(policies), encoder, actions

    def act(self, decisions: Decisions) -> Moves:
        """One call per seat's policy for that seat's decisions."""
        seats = decisions.seats
        observations = self.encoder.encode(decisions.batch, decisions.tables, seats)
        masks = decisions.mask(self.actions)
        choices = np.zeros(decisions.size, dtype=np.int64)
        for seat in np.unique(seats).tolist():
            pick = seats == seat
            choices[pick] = np.asarray(self.policies[seat](observations[pick], masks[pick]))
        return _moves_of(decisions, self.actions, choices)


class _GivenChoices:
    """The agent whose choices come from outside the loop, one per table (the learner of
    an environment's ``step``)."""

    def __init__(self, actions: ActionSet) -> None:
        self.actions = actions
        self.choices = np.zeros(0, dtype=np.int64)

    def act(self, decisions: Decisions) -> Moves:
        """The given choices at these decisions' tables."""
        return _moves_of(decisions, self.actions, self.choices[decisions.tables])


def _moves_of(decisions: Decisions, actions: ActionSet, choices: Int64s) -> Moves:
    """Abstract choices at ``decisions`` as exact engine moves."""
    moves, amounts = actions.moves_at(decisions.batch, decisions.legal, decisions.tables, choices)
    return Moves(moves, amounts)


class _Driver:
    """Shared machinery: a play loop that never stops dealing, where agent 0 plays the
    choices given from outside (in seat 0, or every seat without policies) and agent 1 the
    other seats' policies; finished hands' results are collected for the caller."""

    def __init__(
        self,
        config: GameConfig,
        tables: int,
        policies: Sequence[Policy],
        *,
        encoder: ObservationEncoder | None,
        actions: ActionSet,
        depth: int,
        seed: int,
        expected_results: bool,
    ) -> None:
        if depth <= 0:
            raise ValueError(f"stack depth must be positive chips, got {depth}")
        self.batch = BatchedTables(config, tables, seed=seed)
        self.encoder = encoder or PublicObservation(config.seats)
        self.actions = actions
        self.depth = depth
        self.given = _GivenChoices(actions)
        agents: list[Agent] = [self.given]
        seats = config.seats
        self.seat_owner = np.zeros(seats, dtype=np.int64)
        if policies:
            agents.append(SeatPolicies(policies, self.encoder, actions))
            self.seat_owner[1:] = 1
        self.expected_results = expected_results
        self.loop = PlayLoop(
            self.batch,
            agents,
            ["given choices", "seat policies"][: len(agents)],
            [np.random.default_rng(seed)] * len(agents),  # unused: policies keep their own
            self,
            hands_per_table=None,
        )
        self.finished_hands: list[tuple[Int64s, Results]] = []

    # -- the face's hooks ---------------------------------------------------------------------

    def seat(self, tables: Int64s, played: Int64s) -> Int64s:
        """Deal (the buttons move on) and seat the owners."""
        self.batch.reset(tables, stacks=self.depth)
        owners: Int64s = np.broadcast_to(self.seat_owner, (tables.size, self.seat_owner.size))
        return owners

    def finished(self, tables: Int64s) -> None:
        """Keep every seat's result in big blinds (EV-settled when asked) of ended hands."""
        batch = self.batch
        result = batch.expected_net if self.expected_results else batch.net
        self.finished_hands.append((tables, result[tables] / batch.config.big_blind))

    def take_finished(self) -> tuple[Int64s, Results]:
        """The hands ended since the last call: their tables and per-seat results."""
        hands, self.finished_hands = self.finished_hands, []
        if not hands:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self.batch.config.seats))
        if len(hands) == 1:
            return hands[0]
        return np.concatenate([t for t, _ in hands]), np.concatenate([r for _, r in hands])

    def stepped(self, tables: Int64s, seats: Int64s, owners: Int64s) -> None:
        """Nothing to record per step."""

    # -- driving ------------------------------------------------------------------------------

    def observe(self, tables: Int64s) -> tuple[Floats, Bools]:
        """Observations and legal masks of the player to act at ``tables``."""
        legal = self.batch.legal()
        viewers = legal.to_act[tables]
        return self.encoder.encode(self.batch, tables, viewers), self.actions.mask(
            self.batch, legal
        )[tables]

    def apply(self, choices: npt.ArrayLike) -> None:
        """Apply one given choice at every table."""
        self.given.choices = np.asarray(choices, dtype=np.int64)
        legal, _ = self.loop.pending()
        self.loop.step(np.arange(self.batch.size), legal)


class VectorEnv(_Driver):
    """Many tables with a learner in seat 0 and given opponents elsewhere (auto-reset)."""

    def __init__(
        self,
        config: GameConfig,
        tables: int,
        opponents: Policy | Sequence[Policy],
        *,
        encoder: ObservationEncoder | None = None,
        actions: ActionSet | None = None,
        depth_bb: int = 100,
        seed: int = 0,
        expected_rewards: bool = True,
    ) -> None:
        seats = config.seats
        if callable(opponents):
            policies: list[Policy] = [opponents] * seats
        else:
            if len(opponents) != seats:
                raise ValueError(f"give one policy per seat ({seats}); seat 0's is unused")
            policies = list(opponents)
        super().__init__(
            config,
            tables,
            policies,
            encoder=encoder,
            actions=actions or ActionSet(),
            depth=depth_bb * config.big_blind,
            seed=seed,
            expected_results=expected_rewards,
        )
        self.opponents = policies

    def reset(self) -> tuple[Floats, Bools]:
        """Deal every table and play on to the learner's first decision."""
        self.loop.deal(np.arange(self.batch.size))
        self._play_opponents()
        self.take_finished()
        return self.observe(np.arange(self.batch.size))

    def step(self, choices: npt.ArrayLike) -> tuple[Floats, Bools, Results, Bools]:
        """Apply the learner's choice at every table; returns (observations, masks,
        rewards in big blinds for hands that ended, which tables' hands ended)."""
        everyone = np.arange(self.batch.size)
        rewards = np.zeros(self.batch.size)
        finished = np.zeros(self.batch.size, dtype=np.bool_)
        self.apply(choices)
        self._play_opponents()
        for tables, results in self.finished_hands:
            rewards[tables] += results[:, LEARNER]
            finished[tables] = True
        self.finished_hands = []
        observations, masks = self.observe(everyone)
        return observations, masks, rewards, finished

    def _play_opponents(self) -> None:
        """Book finished hands and let the other seats act until the learner is to act at
        every table."""
        loop = self.loop
        while True:
            loop.settle()
            legal, live = loop.pending()
            waiting = live[legal.to_act[live] != LEARNER]
            if waiting.size == 0:
                return
            loop.step(waiting, legal)


class HoldemEnv:
    """One table, Gymnasium-style: the learner is seat 0, the others play given policies."""

    def __init__(
        self,
        config: GameConfig,
        opponents: Policy | Sequence[Policy],
        **options: Any,
    ) -> None:
        self.config = config
        self._opponents = opponents
        self._options = options
        self._env = VectorEnv(config, 1, opponents, **options)

    @property
    def action_names(self) -> list[str]:
        return self._env.actions.names

    @property
    def observation_size(self) -> int:
        return self._env.encoder.size

    def reset(self, *, seed: int | None = None) -> tuple[Floats, dict[str, Any]]:
        """Start a new hand (a new random stream when ``seed`` is given)."""
        if seed is not None:
            options = {**self._options, "seed": seed}
            self._env = VectorEnv(self.config, 1, self._opponents, **options)
        observations, masks = self._env.reset()
        return observations[0], {"mask": masks[0]}

    def step(self, action: int) -> tuple[Floats, float, bool, bool, dict[str, Any]]:
        """Play the learner's action; ``terminated`` when the hand ended (the observation
        returned is then the first of the next hand, so ``reset`` is optional)."""
        observations, masks, rewards, finished = self._env.step([action])
        return observations[0], float(rewards[0]), bool(finished[0]), False, {"mask": masks[0]}


class MultiAgentView(_Driver):
    """Every seat is an agent: observe the player to act at every table, apply choices."""

    def __init__(
        self,
        config: GameConfig,
        tables: int,
        *,
        encoder: ObservationEncoder | None = None,
        actions: ActionSet | None = None,
        depth_bb: int = 100,
        seed: int = 0,
    ) -> None:
        super().__init__(
            config,
            tables,
            [],
            encoder=encoder,
            actions=actions or ActionSet(),
            depth=depth_bb * config.big_blind,
            seed=seed,
            expected_results=True,
        )
        self.loop.deal(np.arange(tables))

    def observe_all(self) -> tuple[Int64s, Floats, Bools]:
        """(seat to act, observations, masks) at every table."""
        everyone = np.arange(self.batch.size)
        observations, masks = self.observe(everyone)
        return self.batch.to_act.copy(), observations, masks

    def act(self, choices: npt.ArrayLike) -> tuple[Int64s, Results]:
        """Apply one choice per table; returns (tables whose hand ended, their per-seat
        results in big blinds); those tables are dealt again at once."""
        self.apply(choices)
        self.loop.settle()
        return self.take_finished()
