"""Test fixtures shared by the limit network's belief tests: random deals for the public
beliefs, action functions whose types change the play, and recorded matches of the
shipped limit pool."""

from __future__ import annotations

import numpy as np
import torch

from poolshark.agents.limit_styles import LIMIT_POOL, LIMIT_STYLES, LimitStyleAgent
from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.observer_lines import LineRecorder
from poolshark.limitnet.public_beliefs import DealStep
from poolshark.limitnet.records import LimitRecords, record_matches


def random_deal(rng: np.random.Generator, seats: int, count: int) -> list[DealStep]:
    """``count`` decisions over stages 0 and 1 at random seats, with random inputs; a fold
    takes its seat out of the later decisions."""
    steps: list[DealStep] = []
    live = list(range(seats))
    for k in range(count):
        seat = live[k % len(live)]
        legal = np.array([rng.random() < 0.7, True, rng.random() < 0.8])
        action = int(rng.choice(np.flatnonzero(legal)))
        if action == 0 and len(live) <= 2:
            action = 1
        stage = 0 if k < count // 2 else 1
        steps.append(
            DealStep(seat, stage, rng.random((2, 9)) * 3, rng.random(2) * 2, legal, action)
        )
        if action == 0:
            live.remove(seat)
    return steps


def spread_model(
    card_types: int, seed: int, player_types: int = 0, spread: float = 1.0
) -> ActionFunction:
    """A model whose gates, values and player-type offsets are large enough to change play."""
    model = ActionFunction(
        outcome_states=4, card_types=card_types, seed=seed, player_types=player_types
    )
    generator = torch.Generator().manual_seed(seed + 50)
    with torch.no_grad():
        for gates in model.gates:
            gates.copy_(torch.randn(gates.shape, generator=generator))
        for values in model.values:
            values.copy_(2.0 * torch.randn(values.shape, generator=generator))
        if model.type_gates is not None:
            model.type_gates.copy_(
                spread * torch.randn(model.type_gates.shape, generator=generator)
            )
    return model


def assert_players_read(recorder: LineRecorder, records: LimitRecords, beliefs: np.ndarray) -> None:
    """Every decision's summed beliefs in ``beliefs`` (one row per decision of ``records``)
    equal, to 1e-12, what the player read in play (``recorder``'s rows, keyed by deal, seat
    and the decision's place in the seat's line)."""
    read = {
        (hand, seat, k): row[3]
        for (_, hand, seat), rows in recorder.rows.items()
        for k, row in enumerate(rows)
    }
    assert len(read) == records.decisions
    for line in range(records.lines):
        rows = range(records.line_start[line], records.line_start[line + 1])
        for k, row in enumerate(rows):
            key = (int(records.deal[line]), int(records.seat[line]), k)
            np.testing.assert_allclose(read[key], beliefs[row], atol=1e-12)


def pool_records(matches: int, deals: int, seed: int) -> LimitRecords:
    """Matches of the shipped limit pool, each player's own strategy kept as the truth."""
    names = list(LIMIT_POOL)
    agents = [LimitStyleAgent(LIMIT_STYLES[name]) for name in names]
    return record_matches(
        agents,
        [LIMIT_POOL[name] for name in names],
        matches=matches,
        deals=deals,
        seed=seed,
        names=names,
        policies=[agent.probabilities for agent in agents],
    )
