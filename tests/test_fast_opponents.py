"""Faster population-model opponents: the trimmed forward pass answers exactly what the
plain one does, and a distilled student learns the teacher, reproducibly, as an ordinary
population-model checkpoint."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from poolshark.agents.protocol import Decisions, Moves
from poolshark.engine.actions import ActionSet
from poolshark.exploit.distill import (
    DistillSettings,
    distill_checkpoint,
    distill_population,
    log_probabilities,
    opponent_features,
    policy_gap,
    untrained_policy,
)
from poolshark.exploit.rollout import Opponent, Rollout, RolloutSettings
from poolshark.pool.context import N_FEATURES, Feature
from poolshark.pool.ranges import UniformRanges
from poolshark.population.agent import (
    PopulationAgent,
    load_population_model,
    trim_opponent_rows,
)
from poolshark.population.features import encode_contexts_compiled, encode_population_contexts
from poolshark.population.model import FeatureTensors, PopulationNet
from poolshark.population.train import export_population_model

SIZES = [0.25, 0.33, 0.5, 0.66, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 5.0]
TINY = DistillSettings(
    width=16,
    depth=1,
    class_embedding=4,
    opponent_width=8,
    tables=64,
    hands_per_table=2,
    collections=1,
    held_out_hands=2,
    epochs=3,
    batch_size=128,
    learning_rate=1e-2,
    seed=3,
)


def _teacher(ranges: UniformRanges | None = None) -> PopulationAgent:
    torch.manual_seed(0)
    net = PopulationNet(width=32, depth=2, class_embedding=4, opponent_width=8)
    return PopulationAgent(net, ranges, SIZES, range_spec="uniform" if ranges else "none")


class Comparing(PopulationAgent):
    """Plays the fast path and checks it, at every decision, against the plain forward
    pass over all nine opponent rows."""

    def __init__(self, agent: PopulationAgent) -> None:
        super().__init__(agent.model, agent.ranges, SIZES, range_spec=agent.range_spec)
        self.largest_gap = 0.0
        self.trimmed_rows: list[int] = []
        self.decisions = 0

    def act(self, decisions: Decisions) -> Moves:
        fast = self.class_probabilities(decisions)
        features = self.features(decisions)
        with torch.no_grad():
            logits = self.model(FeatureTensors.of(features))
            plain = torch.softmax(logits.double(), dim=1).numpy()
        self.largest_gap = max(self.largest_gap, float(np.abs(fast - plain).max(initial=0.0)))
        self.trimmed_rows.append(trim_opponent_rows(features).opponents.shape[1])
        self.decisions += decisions.size
        return super().act(decisions)


def test_trimmed_forward_pass_equals_the_plain_one() -> None:
    agent = Comparing(_teacher(UniformRanges()))
    rollout = Rollout(
        RolloutSettings(tables=48, hands_per_table=3), ActionSet(), [Opponent("model", agent)]
    )
    rollout.collect(untrained_policy(0), seed=1, iteration=0)
    assert agent.decisions > 500
    assert agent.largest_gap < 1e-6
    # the trimming happened: never more than 5 rows at 6-max, and fewer once players fold
    assert max(agent.trimmed_rows) <= 5
    assert min(agent.trimmed_rows) < 5


class RecordingContexts(PopulationAgent):
    """Keeps the decision contexts of every batch it answers."""

    def __init__(self, agent: PopulationAgent) -> None:
        super().__init__(agent.model, agent.ranges, SIZES, range_spec=agent.range_spec)
        self.contexts: list[np.ndarray] = []

    def act(self, decisions: Decisions) -> Moves:
        self.contexts.append(decisions.contexts.copy())
        return super().act(decisions)


def test_compiled_context_encoding_equals_the_numpy_one_in_a_rollout() -> None:
    agent = RecordingContexts(_teacher())
    rollout = Rollout(
        RolloutSettings(tables=64, hands_per_table=3), ActionSet(), [Opponent("model", agent)]
    )
    rollout.collect(untrained_policy(0), seed=2, iteration=0)
    contexts = np.concatenate(agent.contexts)
    assert contexts.shape[0] > 500
    assert len(np.unique(contexts[:, Feature.STREET])) >= 3  # preflop, flop, turn at least
    assert (contexts[:, Feature.MAX_RAISE_TO] == 0).any()  # and decisions that cannot raise
    compiled = encode_contexts_compiled(contexts, 6)
    assert compiled.dtype == np.float32
    np.testing.assert_array_max_ulp(compiled, encode_population_contexts(contexts, 6), maxulp=1)


def _context_rows(draw: st.DrawFn) -> np.ndarray:
    """Random decision contexts inside the encoder's domain: categories in range, counts,
    chips and fractions anywhere from negative to large."""
    n = draw(st.integers(0, 40))
    values = hnp.arrays(
        np.float64,
        (n, N_FEATURES),
        elements=st.floats(-50.0, 1e6, allow_nan=False, allow_subnormal=False),
    )
    rows = draw(values)
    categories = {Feature.POSITION: 6, Feature.STREET: 4, Feature.PREFLOP_FACING: 5}
    for feature, count in categories.items():
        rows[:, feature] = draw(hnp.arrays(np.int64, n, elements=st.integers(0, count - 1)))
    rows[:, Feature.MY_RAISE_LEVEL] = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 9)))
    rows[:, Feature.ALIVE] = draw(hnp.arrays(np.int64, n, elements=st.integers(1, 10)))
    rows[:, Feature.FACING_FRACTION] = np.abs(rows[:, Feature.FACING_FRACTION])
    return rows


@settings(max_examples=60, deadline=None)
@given(st.composite(_context_rows)(), st.integers(2, 10))
def test_compiled_context_encoding_equals_the_numpy_one(contexts: np.ndarray, seats: int) -> None:
    compiled = encode_contexts_compiled(contexts, seats)
    np.testing.assert_array_max_ulp(compiled, encode_population_contexts(contexts, seats), maxulp=1)


def test_trimming_keeps_one_row_when_no_opponent_is_present() -> None:
    teacher = _teacher()
    features = opponent_features(teacher, 8, 1, [0], untrained_policy(0))
    empty = features.subset(slice(0, 2))
    blank = type(empty)(**{**empty.__dict__, "opponents": np.zeros_like(empty.opponents)})
    assert trim_opponent_rows(blank).opponents.shape[1] == 1


def test_distilled_student_learns_the_teacher_reproducibly() -> None:
    teacher = _teacher()
    student, report = distill_population(teacher, TINY)
    assert report.train_decisions > 200
    assert report.held_out.decisions > 50
    assert report.student_parameters < report.teacher_parameters
    # the same held-out decisions: the student is much closer than its untrained start
    held = opponent_features(
        teacher, TINY.tables, TINY.held_out_hands, [TINY.seed + 1000], untrained_policy(TINY.seed)
    )
    torch.manual_seed(TINY.seed)
    start = PopulationNet(width=16, depth=1, class_embedding=4, opponent_width=8)
    target = log_probabilities(teacher.model, held)
    untrained = policy_gap(target, log_probabilities(start, held))
    trained = policy_gap(target, log_probabilities(student.model, held))
    assert trained.kl_mean == report.held_out.kl_mean
    assert trained.kl_mean < 0.5 * untrained.kl_mean
    assert 0 <= trained.total_variation_mean <= trained.total_variation_p99 <= 1
    again, _ = distill_population(teacher, TINY)
    for a, b in zip(
        student.model.state_dict().values(), again.model.state_dict().values(), strict=True
    ):
        assert torch.equal(a, b)


def test_distilled_checkpoint_loads_as_a_population_agent(tmp_path: Path) -> None:
    teacher_path = export_population_model(
        tmp_path / "teacher.pt", _teacher().model, range_source="none", size_fractions=SIZES
    )
    report = distill_checkpoint(teacher_path, tmp_path / "student.pt", TINY)
    student = load_population_model(tmp_path / "student.pt")
    assert student.model.width == 16
    assert student.range_spec == "none"
    assert student.size_fractions.tolist() == SIZES
    payload = torch.load(tmp_path / "student.pt", weights_only=True)
    assert payload["distillation"]["held_out"]["kl_mean"] == report.held_out.kl_mean


def test_pooling_equals_masked_amax_and_mean() -> None:
    """The forward pass's pooling of opponent rows (unrolled maximum) gives exactly the
    masked mean and masked amax over present rows, any presence pattern included none."""
    torch.manual_seed(5)
    net = PopulationNet(width=16, depth=1, class_embedding=4, opponent_width=8).eval()
    features = opponent_features(_teacher(), 16, 1, [2], untrained_policy(0))
    tensors = FeatureTensors.of(features)
    presence = (torch.rand(len(tensors), 9, 1) < 0.5).float()
    presence[:3] = 0.0
    opponents = tensors.opponents.clone()
    opponents[:, :, :1] = presence
    tensors = replace(tensors, opponents=opponents)
    encoded = net.opponent_encoder(tensors.opponents)
    count = presence.sum(dim=1).clamp(min=1.0)
    mean = (encoded * presence).sum(dim=1) / count
    largest = torch.where(presence > 0, encoded, torch.zeros_like(encoded)).amax(dim=1)
    embedded = net.hand_classes(tensors.hand_class)
    inputs = torch.cat([tensors.public, tensors.hand, embedded, mean, largest], dim=1)
    expected = net.head(net.blocks(torch.relu(net.stem(inputs)))).masked_fill(~tensors.legal, -1e9)
    with torch.no_grad():
        assert torch.equal(net(tensors), expected.detach())
