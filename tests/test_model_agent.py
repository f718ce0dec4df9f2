"""The population model as an agent: live features equal recorded ones, full matches with
only legal moves, action-set probabilities, and loading checkpoints as agents."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from poolshark.agents.bots import StyleAgent
from poolshark.agents.loading import CHECKPOINT_LOADERS, agent_help, load_agent
from poolshark.agents.protocol import AgentError, Decisions, Moves
from poolshark.engine.actions import ActionSet
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.pool.context import ActionLogs, replay_contexts
from poolshark.pool.pools import load_pool
from poolshark.pool.ranges import ExactPoolRanges, UniformRanges
from poolshark.population.actions import legal_classes
from poolshark.population.agent import (
    PopulationAgent,
    decision_states,
    load_population_model,
)
from poolshark.population.features import featurize
from poolshark.population.model import PopulationNet
from poolshark.population.states import DecisionStates, HandLogs
from poolshark.population.train import export_population_model

SIZES = [0.25, 0.33, 0.5, 0.66, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 5.0]


def _net() -> PopulationNet:
    torch.manual_seed(0)
    return PopulationNet(width=32, depth=1, class_embedding=4, opponent_width=8)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("agent") / "population.pt"
    return export_population_model(
        path, _net(), range_source="uniform", size_fractions=SIZES, config={"test": True}
    )


class Recorder:
    """Plays a pool's styles and records, at each of its decisions, the live features and
    everything needed to rebuild the decision from the hand's log afterwards."""

    def __init__(self, source: object) -> None:
        self.inner = StyleAgent.from_pool(load_pool("micro-zoom"))
        self.source = source
        self.records: list[tuple[object, ...]] = []

    def act(self, decisions: Decisions) -> Moves:
        states = decision_states(decisions)
        live = featurize(states, self.source)  # type: ignore[arg-type]
        for i in range(decisions.size):
            length = int(states.index[i])
            log = tuple(a[i, :length].copy() for a in states.hands.logs[:4])
            self.records.append(
                (
                    int(decisions.tables[i]),
                    int(decisions.hand_ids[i]),
                    states.hands.starting_stacks[i].copy(),
                    int(states.hands.button[i]),
                    states.hands.boards[i].copy(),
                    log,
                    int(states.seat[i]),
                    states.hole[i].copy(),
                    live.subset(np.array([i])),
                )
            )
        return self.inner.act(decisions)


def test_live_features_equal_features_from_recorded_logs() -> None:
    pool = load_pool("micro-zoom")
    source = ExactPoolRanges(pool)
    recorder = Recorder(source)
    play_match([recorder], [0] * 6, MatchConfig(hands=24, tables=12, seed=3, all_in_ev="off"))
    by_hand: dict[tuple[int, int], list[tuple[object, ...]]] = {}
    for record in recorder.records:
        by_hand.setdefault((int(record[0]), int(record[1])), []).append(record)  # type: ignore[call-overload]
    hands = list(by_hand.values())
    width = max(len(r[5][0]) for h in hands for r in h) + 1  # type: ignore[arg-type]
    count = len(hands)
    logs = ActionLogs(*(np.zeros((count, width), dtype=np.int64) for _ in range(4)),
                      np.zeros(count, dtype=np.int64))  # fmt: skip
    stacks = np.zeros((count, 6), dtype=np.int64)
    button = np.zeros(count, dtype=np.int64)
    boards = np.full((count, 5), -1, dtype=np.int64)
    decision_hand, decision_index, seats, holes, live = [], [], [], [], []
    for h, records in enumerate(hands):
        longest = max(records, key=lambda r: len(r[5][0]))  # type: ignore[arg-type]
        for column, values in enumerate(longest[5]):  # type: ignore[arg-type]
            logs[column][h, : len(values)] = values
        logs.length[h] = len(longest[5][0])  # type: ignore[index]
        stacks[h], button[h] = longest[2], longest[3]  # type: ignore[assignment]
        last_board = max((r[4] for r in records), key=lambda b: int((b >= 0).sum()))  # type: ignore[union-attr]
        boards[h] = last_board
        for record in records:
            decision_hand.append(h)
            decision_index.append(len(record[5][0]))  # type: ignore[index]
            seats.append(record[6])
            holes.append(record[7])
            live.append(record[8])
    table = HandLogs(pool.config, stacks, button, boards, logs)
    hand = np.array(decision_hand)
    index = np.array(decision_index)
    # a hand's last decision is not in any log seen (its action came after): replaying a
    # log describes the decisions whose actions it holds
    logged = index < logs.length[hand]
    hand, index = hand[logged], index[logged]
    seats = [s for s, keep in zip(seats, logged, strict=True) if keep]
    holes = [c for c, keep in zip(holes, logged, strict=True) if keep]
    live = [f for f, keep in zip(live, logged, strict=True) if keep]
    contexts = replay_contexts(pool.config, stacks, button, logs)[hand, index]
    states = DecisionStates(table, hand, index, np.array(seats), np.array(holes), contexts)
    recorded = featurize(states, source)
    assert states.size > 150
    assert (states.street > 0).sum() > 30
    for name in ("public", "hand", "hand_class", "cards", "opponents", "legal", "street"):
        live_values = np.concatenate([getattr(f, name) for f in live])  # type: ignore[attr-defined]
        np.testing.assert_array_equal(live_values, getattr(recorded, name), err_msg=name)


def test_agent_plays_full_matches_with_legal_moves_only(checkpoint) -> None:  # type: ignore[no-untyped-def]
    agent = load_population_model(checkpoint)
    assert isinstance(agent, PopulationAgent)
    assert isinstance(agent.ranges, UniformRanges)
    other = StyleAgent.from_pool(load_pool("micro-zoom"))
    result = play_match(
        [agent, other], [0, 1, 0, 1, 0, 1], MatchConfig(hands=120, tables=24, seed=1)
    )
    mine = result.agents[0]
    assert mine.decisions > 300
    assert mine.coerced == 0
    assert 0 < mine.vpip < 1
    assert 0 < mine.pfr < 1


class ProbeDecisions:
    """Plays a pool's styles and checks the model's action-set probabilities on each batch
    while it is live (a Decisions batch reads the engine's current state)."""

    def __init__(self, agent: PopulationAgent) -> None:
        self.inner = StyleAgent.from_pool(load_pool("soft"))
        self.agent = agent
        self.checked = 0

    def act(self, decisions: Decisions) -> Moves:
        classes = self.agent.class_probabilities(decisions)
        assert np.all(classes[~legal_classes(decisions.contexts)] == 0)
        sets = (
            ActionSet(),
            ActionSet.of([0.33, 0.75, 1.5]),
            ActionSet.of([], all_in=True),
            ActionSet.of([0.5], all_in=False),
            ActionSet.of([], all_in=False),
        )
        for actions in sets:
            mapped = self.agent.action_probabilities(decisions, actions)
            assert mapped.shape == (decisions.size, actions.size)
            np.testing.assert_allclose(mapped.sum(axis=1), 1.0, atol=1e-9)
            np.testing.assert_allclose(mapped[:, 0], classes[:, 0])
            assert np.all(mapped[~decisions.mask(actions)] < 1e-12)
        plain = self.agent.action_probabilities(decisions, ActionSet.of([], all_in=False))
        np.testing.assert_allclose(plain[:, 1], classes[:, 1:].sum(axis=1))
        self.checked += decisions.size
        return self.inner.act(decisions)


def test_action_set_probabilities(checkpoint) -> None:  # type: ignore[no-untyped-def]
    probe = ProbeDecisions(load_population_model(checkpoint))
    play_match([probe], [0] * 6, MatchConfig(hands=12, tables=6, seed=2, all_in_ev="off"))
    assert probe.checked > 50


def test_loading_dispatches_on_the_checkpoint_kind(checkpoint, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    assert isinstance(load_agent(str(checkpoint)), PopulationAgent)
    assert ".pt" in agent_help()
    unknown = tmp_path / "mystery.pt"
    torch.save({"kind": "mystery"}, unknown)
    with pytest.raises(AgentError, match="kind 'mystery'"):
        load_agent(str(unknown))
    plain = tmp_path / "plain.pt"
    torch.save({"weights": torch.zeros(2)}, plain)
    with pytest.raises(AgentError, match="no kind"):
        load_agent(str(plain))
    with pytest.raises(AgentError, match="no checkpoint file"):
        load_agent(str(tmp_path / "absent.pt"))
    broken = tmp_path / "broken.pt"
    broken.write_bytes(b"not a checkpoint")
    with pytest.raises(AgentError, match="cannot read"):
        load_agent(str(broken))
    exploiter = tmp_path / "exploiter.pt"
    torch.save({"kind": "exploiter"}, exploiter)
    seen: list[Path] = []
    import poolshark.exploit.agent as exploiter_agent

    monkeypatch.setattr(exploiter_agent, "load_exploiter", lambda path: seen.append(path) or "X")
    assert load_agent(str(exploiter)) == "X"
    assert seen == [exploiter]
    assert set(CHECKPOINT_LOADERS) == {"population-model", "exploiter", "league", "limitnet"}


def test_checkpoints_in_lineup_files(checkpoint, tmp_path) -> None:  # type: ignore[no-untyped-def]
    target = tmp_path / "model.pt"
    target.write_bytes(Path(checkpoint).read_bytes())
    lineup = tmp_path / "field.toml"
    lineup.write_text('name = "field"\n[mix]\n"model.pt" = 0.5\nzoom-reg = 0.5\n')
    agent = load_agent(str(lineup))
    result = play_match([agent], [0] * 6, MatchConfig(hands=36, tables=6, seed=4))
    assert result.agents[0].coerced == 0


def test_a_bad_range_source_is_a_clear_error(checkpoint) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AgentError, match="range source"):
        load_population_model(checkpoint, ranges="bogus")
    agent = load_population_model(checkpoint, ranges="none")
    assert agent.ranges is None


def test_checkpoint_kinds_are_registered_once() -> None:
    """Each model package registers its own loader; a second loader for a kind is an
    error, not a silent replacement."""
    with pytest.raises(AgentError, match="has a loader already"):
        CHECKPOINT_LOADERS.register("population-model", load_population_model)
