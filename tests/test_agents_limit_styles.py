"""Scripted fixed-limit styles: their probabilities are legal and are what the agent plays,
the pool plays clean six-seat matches, the styles differ as designed, and specs load."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

from poolshark.agents.bots import MixtureAgent
from poolshark.agents.limit_styles import (
    LIMIT_POOL,
    LIMIT_STYLES,
    LimitStyle,
    LimitStyleAgent,
    limit_pool_agent,
    limit_style_probabilities,
)
from poolshark.agents.loading import agent_help, load_agent
from poolshark.agents.protocol import AgentError, Decisions, Moves
from poolshark.cards.combos import COMBO_INDEX
from poolshark.engine.config import Betting
from poolshark.engine.kernel import CHECK_CALL, FOLD, RAISE
from poolshark.evaluate.match import MatchConfig, MatchResult, play_match
from poolshark.pool.strength import preflop_percentile


def limit_config(hands: int, seed: int = 5) -> MatchConfig:
    """A six-seat fixed-limit match of at least ``hands`` table-hands."""
    return MatchConfig(hands=hands, seats=6, seed=seed, betting=Betting.FIXED_LIMIT, tables=256)


@dataclass
class Recorder:
    """Plays a style and keeps, per decision, the style's probabilities (from the function,
    checked against the agent's method), the move made and what was legal (read while the
    decision is pending: the tables move on afterwards)."""

    agent: LimitStyleAgent
    probabilities: list[np.ndarray] = field(default_factory=list)
    moves: list[np.ndarray] = field(default_factory=list)
    amounts: list[np.ndarray] = field(default_factory=list)
    min_raise_to: list[np.ndarray] = field(default_factory=list)
    free: list[np.ndarray] = field(default_factory=list)
    street: list[np.ndarray] = field(default_factory=list)
    percentile: list[np.ndarray] = field(default_factory=list)

    def act(self, decisions: Decisions) -> Moves:
        probabilities = limit_style_probabilities(self.agent.style, decisions)
        assert np.array_equal(probabilities, self.agent.probabilities(decisions))
        self.probabilities.append(probabilities)
        answer = self.agent.act(decisions)
        self.moves.append(np.asarray(answer.move))
        self.amounts.append(np.asarray(answer.amount))
        self.min_raise_to.append(decisions.min_raise_to.copy())
        self.free.append(decisions.call <= 0)
        self.street.append(decisions.street.copy())
        hole = decisions.hole_cards
        self.percentile.append(preflop_percentile()[COMBO_INDEX[hole[:, 0], hole[:, 1]]])
        return answer

    def stacked(self, name: str) -> np.ndarray:
        return np.concatenate(getattr(self, name))


@pytest.fixture(scope="module", params=sorted(LIMIT_STYLES))
def recorded(request: pytest.FixtureRequest) -> Recorder:
    """A style's decisions in two seats of a six-seat match against the pool."""
    recorder = Recorder(LimitStyleAgent(LIMIT_STYLES[request.param]))
    play_match([recorder, limit_pool_agent()], [0, 1, 1, 0, 1, 1], limit_config(1200))
    return recorder


def test_probabilities_are_legal_and_normalized(recorded: Recorder) -> None:
    p = recorded.stacked("probabilities")
    assert p.shape[1] == 3
    assert np.isfinite(p).all()
    assert (p >= 0).all()
    assert np.allclose(p.sum(axis=1), 1.0)
    assert (p[recorded.stacked("free"), FOLD] == 0).all()
    assert (p[recorded.stacked("min_raise_to") < 0, RAISE] == 0).all()
    assert set(np.unique(recorded.stacked("street")).tolist()) == {0, 1, 2, 3}


def test_sampled_moves_follow_the_probabilities(recorded: Recorder) -> None:
    p = recorded.stacked("probabilities")
    moves = recorded.stacked("moves")
    assert p.shape[0] > 3000
    for action in (FOLD, CHECK_CALL, RAISE):
        expected = p[:, action].sum()
        spread = np.sqrt((p[:, action] * (1 - p[:, action])).sum())
        assert abs((moves == action).sum() - expected) <= 4.5 * spread + 1
    assert (p[np.arange(moves.size), moves] > 0).all()  # never an action of probability 0
    raising = moves == RAISE
    assert (recorded.stacked("amounts")[raising] == recorded.stacked("min_raise_to")[raising]).all()


def test_better_starting_hands_raise_more_preflop(recorded: Recorder) -> None:
    p = recorded.stacked("probabilities")
    preflop = recorded.stacked("street") == 0
    percentile = recorded.stacked("percentile")
    best = preflop & (percentile < 0.05)
    worst = preflop & (percentile > 0.7)
    assert p[best, RAISE].mean() > p[worst, RAISE].mean() + 0.3
    assert p[worst, FOLD].mean() > p[best, FOLD].mean()


def test_the_pool_plays_a_clean_six_seat_match_with_realistic_statistics() -> None:
    result = play_match([load_agent("limit:pool")], [0] * 6, limit_config(3000, seed=2))
    (pool,) = result.agents
    assert pool.coerced == 0
    assert pool.hud is not None
    assert pool.hud.aggression is not None
    assert 0.28 < pool.vpip < 0.42
    assert 0.7 < pool.hud.aggression < 1.3
    assert 0.33 < pool.hud.won_at_showdown < 0.5


@pytest.fixture(scope="module")
def styles_at_one_table() -> MatchResult:
    """Every shipped style and the pool, one seat each, rotated around a six-seat table."""
    names = sorted(LIMIT_STYLES)
    agents = [LimitStyleAgent(LIMIT_STYLES[name]) for name in names]
    return play_match(
        [*agents, limit_pool_agent()],
        list(range(len(names) + 1)),
        limit_config(4000, seed=3),
        names=[*names, "pool"],
    )


def test_styles_order_as_designed(styles_at_one_table: MatchResult) -> None:
    by_name = {agent.name: agent for agent in styles_at_one_table.agents}
    assert all(agent.coerced == 0 for agent in by_name.values())
    vpip = {name: agent.vpip for name, agent in by_name.items()}
    pfr = {name: agent.pfr for name, agent in by_name.items()}
    aggression = {}
    for name, agent in by_name.items():
        assert agent.hud is not None
        assert agent.hud.aggression is not None
        aggression[name] = agent.hud.aggression
    assert vpip["fish"] > vpip["weak-tight"] > vpip["rock"]
    assert vpip["maniac"] > vpip["tag"]
    assert pfr["maniac"] > pfr["tag"] > pfr["rock"]
    assert aggression["maniac"] > aggression["tag"] > aggression["fish"]
    assert aggression["tag"] > aggression["rock"]


def test_specs_load_the_styles_and_the_pool() -> None:
    rock = load_agent("limit:rock")
    assert isinstance(rock, LimitStyleAgent)
    assert rock.style == LIMIT_STYLES["rock"]
    pool = load_agent("limit:pool")
    assert isinstance(pool, MixtureAgent)
    assert pool.names == tuple(LIMIT_POOL)
    assert np.allclose(pool.draws.weights, np.asarray(list(LIMIT_POOL.values())))
    with pytest.raises(AgentError, match="no limit style"):
        load_agent("limit:shark")
    assert "limit:NAME" in agent_help()


def test_a_style_refuses_no_limit_hold_em() -> None:
    config = MatchConfig(hands=20, seats=6, seed=1, tables=4)
    with pytest.raises(AgentError, match="fixed-limit"):
        play_match([load_agent("limit:tag")], [0] * 6, config)


@pytest.mark.parametrize(
    "changes",
    [{"play": 1.5}, {"bluff": -0.1}, {"call_margin": 2.0}, {"softness": 0.0}],
)
def test_a_style_with_a_bad_parameter_is_refused(changes: dict[str, float]) -> None:
    values = {**vars(LIMIT_STYLES["tag"]), **changes}
    with pytest.raises(ValueError, match="limit style 'tag'"):
        LimitStyle(**values)


def test_a_match_replays_from_its_seed() -> None:
    first, again = (
        play_match([load_agent("limit:pool")], [0] * 6, limit_config(300, seed=7)) for _ in "ab"
    )
    assert first.agents[0].won_chips == again.agents[0].won_chips
    assert first.agents[0].decisions == again.agents[0].decisions
