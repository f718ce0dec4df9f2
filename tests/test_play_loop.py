"""The one batched play loop: every table plays its hands, agents are asked once per step
for all their decisions, a face can end hands early; and the pool simulator's compiled loop
plays the same styles as the play loop does (the same statistics for the same pool)."""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt
import pytest

from poolshark.agents.bots import CallingStation, RandomAgent, StyleAgent
from poolshark.agents.protocol import Agent, Decisions, Moves
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.evaluate import MatchConfig, play_match
from poolshark.play.loop import PlayLoop
from poolshark.pool.pools import load_pool
from poolshark.pool.simulate import simulate
from poolshark.pool.stats import Hud, tally_hands

Int64s = npt.NDArray[np.int64]


class Counting:
    """An agent that counts its calls and the decisions in them, then calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.decisions = 0

    def act(self, decisions: Decisions) -> Moves:
        self.calls += 1
        self.decisions += decisions.size
        return Moves(np.ones(decisions.size, dtype=np.int64))


class Face:
    """Two agents alternating around the table; books every finished hand's net."""

    def __init__(self, batch: BatchedTables, abandon_at: int | None = None) -> None:
        self.batch = batch
        self.booked: list[Int64s] = []
        self.abandoned = 0
        self.abandon_at = abandon_at
        self.loop: PlayLoop | None = None

    def seat(self, tables: Int64s, played: Int64s) -> Int64s:
        self.batch.reset(tables, stacks=200)
        seats = self.batch.config.seats
        return np.broadcast_to(np.arange(seats) % 2, (tables.size, seats)).copy()

    def finished(self, tables: Int64s) -> None:
        assert self.loop is not None
        assert self.loop.open[tables].all()
        self.booked.append(self.batch.net[tables].sum(axis=1))

    def stepped(self, tables: Int64s, seats: Int64s, owners: Int64s) -> None:
        assert self.loop is not None
        if self.abandon_at is None:
            return
        early = tables[~self.batch.done[tables] & (self.loop.played[tables] == self.abandon_at)]
        if early.size:
            self.abandoned += early.size
            self.loop.close(early)


def run_loop(agents: list[Agent], abandon_at: int | None = None) -> tuple[PlayLoop, Face]:
    batch = BatchedTables(GameConfig(seats=6), 16, seed=3)
    face = Face(batch, abandon_at)
    rngs = [np.random.default_rng(k) for k in range(len(agents))]
    names = [f"agent {k}" for k in range(len(agents))]
    loop = PlayLoop(batch, agents, names, rngs, face, hands_per_table=5)
    face.loop = loop
    loop.run()
    return loop, face


def test_every_table_plays_its_hands_with_one_call_per_agent_per_step() -> None:
    first, second = Counting(), Counting()
    loop, face = run_loop([first, second])
    assert (loop.played == 5).all()
    assert not loop.open.any()
    assert loop.closed == 16 * 5 == sum(b.size for b in face.booked)
    assert all((chips == 0).all() for chips in face.booked)  # no rake: zero-sum hands
    assert loop.decisions.tolist() == [first.decisions, second.decisions]
    assert first.calls <= first.decisions
    assert second.calls <= second.decisions
    assert first.decisions > first.calls  # batched: several tables per call


def test_a_face_can_end_hands_early() -> None:
    loop, face = run_loop([RandomAgent(), CallingStation()], abandon_at=2)
    assert face.abandoned > 0
    assert loop.closed == 16 * 5
    assert sum(b.size for b in face.booked) == 16 * 5 - face.abandoned


def test_a_loop_without_a_hand_limit_is_driven_step_by_step() -> None:
    batch = BatchedTables(GameConfig(seats=6), 4, seed=3)
    face = Face(batch)
    rngs = [np.random.default_rng()]
    loop = PlayLoop(batch, [Counting()], ["a"], rngs, face, hands_per_table=None)
    with pytest.raises(ValueError, match="step by step"):
        loop.run()


def test_a_loop_replays_from_its_streams() -> None:
    """Probabilities are sampled with each agent's own stream: the same streams, the same
    hands."""
    a, _ = run_loop([RandomAgent(), RandomAgent()])
    b, _ = run_loop([RandomAgent(), RandomAgent()])
    assert (a.batch.seat == b.batch.seat).all()
    assert a.decisions.tolist() == b.decisions.tolist()


# -- the pool simulator against the play loop -------------------------------------------------


@cache
def pool_statistics() -> tuple[dict[str, tuple[float, int]], dict[str, tuple[float, int]]]:
    """(VPIP, PFR) with their opportunities: micro-zoom simulated by the compiled loop, and
    the same pool's styles played through the play loop (``StyleAgent.from_pool``)."""
    pool = load_pool("micro-zoom")
    hands = 6000
    tally = tally_hands(simulate(pool, hands, seed=2))
    simulated = {
        name: (float(tally.hits[stat] / tally.chances[stat]), int(tally.chances[stat]))
        for name, stat in (("vpip", Hud.VPIP), ("pfr", Hud.PFR))
    }
    config = MatchConfig(
        hands=hands, seats=pool.spec.seats, seed=2, depth_bb=pool.spec.stack_bb, all_in_ev="off"
    )
    result = play_match([StyleAgent.from_pool(pool)], (0,) * pool.spec.seats, config)
    agent = result.agents[0]
    played = {"vpip": (agent.vpip, agent.hands), "pfr": (agent.pfr, agent.hands)}
    return simulated, played


@pytest.mark.parametrize("stat", ["vpip", "pfr"])
def test_the_simulator_and_the_play_loop_play_a_pool_alike(stat: str) -> None:
    """Not the same hands (the simulator draws from compiled per-table streams), but the
    same policy: the preflop frequencies agree within four standard errors."""
    simulated, played = pool_statistics()
    (p, n), (q, m) = simulated[stat], played[stat]
    pooled = (p * n + q * m) / (n + m)
    stderr = np.sqrt(pooled * (1 - pooled) * (1 / n + 1 / m))
    assert abs(p - q) < 4 * stderr, (stat, p, q, stderr)
