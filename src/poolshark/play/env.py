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
torch model, a scripted style or a uniform-random stand-in all fit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from poolshark.engine.actions import ActionSet
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.observation import ObservationEncoder, PublicObservation

Floats = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Policy = Callable[[Floats, Bools], npt.ArrayLike]

LEARNER = 0


def random_policy(seed: int = 0) -> Policy:
    """A uniform choice among the legal actions (a baseline and a benchmark stand-in)."""
    rng = np.random.default_rng(seed)

    def choose(observations: Floats, masks: Bools) -> Int64s:
        scores = rng.random(masks.shape) * masks
        return np.asarray(scores.argmax(axis=1), dtype=np.int64)

    return choose


class _Driver:
    """Shared machinery: observe the player to act, apply choices, deal finished tables."""

    def __init__(
        self,
        config: GameConfig,
        tables: int,
        *,
        encoder: ObservationEncoder | None,
        actions: ActionSet,
        depth: int,
        seed: int,
    ) -> None:
        if depth <= 0:
            raise ValueError(f"stack depth must be positive chips, got {depth}")
        self.batch = BatchedTables(config, tables, seed=seed)
        self.encoder = encoder or PublicObservation(config.seats)
        self.actions = actions
        self.depth = depth

    def deal(self, which: Int64s | None = None) -> Int64s:
        return self.batch.reset(which, stacks=self.depth)

    def observe(self, tables: Int64s) -> tuple[Floats, Bools]:
        """Observations and legal masks of the player to act at ``tables``."""
        legal = self.batch.legal()
        viewers = legal.to_act[tables]
        return self.encoder.encode(self.batch, tables, viewers), self.actions.mask(legal)[tables]

    def apply(self, tables: Int64s, choices: npt.ArrayLike) -> None:
        """Apply abstract choices at ``tables`` (the other tables do not move)."""
        legal = self.batch.legal()
        full = np.ones(self.batch.size, dtype=np.int64)
        full[tables] = np.asarray(choices, dtype=np.int64)
        moves, amounts = self.actions.to_moves(self.batch, legal, full)
        waiting = np.full(self.batch.size, -1, dtype=np.int64)  # -1: this table waits
        waiting[tables] = moves[tables]
        self.batch.step(waiting, amounts)


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
        super().__init__(
            config,
            tables,
            encoder=encoder,
            actions=actions or ActionSet(),
            depth=depth_bb * config.big_blind,
            seed=seed,
        )
        seats = config.seats
        if callable(opponents):
            self.opponents: list[Policy] = [opponents] * seats
        else:
            if len(opponents) != seats:
                raise ValueError(f"give one policy per seat ({seats}); seat 0's is unused")
            self.opponents = list(opponents)
        self.expected_rewards = expected_rewards

    def reset(self) -> tuple[Floats, Bools]:
        """Deal every table and play on to the learner's first decision."""
        self.deal(np.arange(self.batch.size))
        rewards = np.zeros(self.batch.size)
        finished = np.zeros(self.batch.size, dtype=np.bool_)
        self._play_opponents(rewards, finished)
        return self.observe(np.arange(self.batch.size))

    def step(self, choices: npt.ArrayLike) -> tuple[Floats, Bools, npt.NDArray[np.float64], Bools]:
        """Apply the learner's choice at every table; returns (observations, masks,
        rewards in big blinds for hands that ended, which tables' hands ended)."""
        everyone = np.arange(self.batch.size)
        rewards = np.zeros(self.batch.size)
        finished = np.zeros(self.batch.size, dtype=np.bool_)
        self.apply(everyone, choices)
        self._collect(rewards, finished)
        self._play_opponents(rewards, finished)
        observations, masks = self.observe(everyone)
        return observations, masks, rewards, finished

    def _collect(self, rewards: npt.NDArray[np.float64], finished: Bools) -> None:
        """Book the learner's result at finished tables and deal them again."""
        done = np.flatnonzero(self.batch.done)
        if done.size == 0:
            return
        result = self.batch.expected_net if self.expected_rewards else self.batch.net
        rewards[done] += result[done, LEARNER] / self.batch.config.big_blind
        finished[done] = True
        self.deal(done)

    def _play_opponents(self, rewards: npt.NDArray[np.float64], finished: Bools) -> None:
        """Let the other seats act until the learner is to act at every table."""
        batch = self.batch
        while True:
            self._collect(rewards, finished)
            to_act = batch.to_act
            waiting = np.flatnonzero(to_act != LEARNER)
            if waiting.size == 0:
                return
            observations, masks = self.observe(waiting)
            choices = np.zeros(waiting.size, dtype=np.int64)
            for seat in np.unique(to_act[waiting]).tolist():
                pick = to_act[waiting] == seat
                choices[pick] = np.asarray(self.opponents[seat](observations[pick], masks[pick]))
            self.apply(waiting, choices)


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
            encoder=encoder,
            actions=actions or ActionSet(),
            depth=depth_bb * config.big_blind,
            seed=seed,
        )
        self.deal(np.arange(tables))

    def observe_all(self) -> tuple[Int64s, Floats, Bools]:
        """(seat to act, observations, masks) at every table."""
        everyone = np.arange(self.batch.size)
        observations, masks = self.observe(everyone)
        return self.batch.to_act.copy(), observations, masks

    def act(self, choices: npt.ArrayLike) -> tuple[Int64s, npt.NDArray[np.float64]]:
        """Apply one choice per table; returns (tables whose hand ended, their per-seat
        results in big blinds); those tables are dealt again at once."""
        self.apply(np.arange(self.batch.size), choices)
        done = np.flatnonzero(self.batch.done)
        results = self.batch.expected_net[done] / self.batch.config.big_blind
        self.deal(done)
        return done, results
