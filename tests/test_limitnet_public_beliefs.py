"""Public card-type beliefs: the batched tracker against the one-deal reference, both
against brute-force Bayes over every seat's type path, the beliefs a playing agent reads
against the ones computed afterwards from its records, and the checkpoint and records
that carry an observer's beliefs."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
import torch

from limitnet_fixtures import assert_players_read, random_deal
from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.agent import (
    LimitNetAgent,
    load_limitnet_agent,
    load_player,
    observer_payload,
    save_model,
)
from poolshark.limitnet.fit import decision_cards, mean_nll
from poolshark.limitnet.observer import Observer
from poolshark.limitnet.observer_lines import (
    LineRecorder,
    fit_observer,
    line_board_classes,
    record_lines,
)
from poolshark.limitnet.public_beliefs import (
    DealStep,
    PublicBeliefs,
    deal_beliefs,
    record_beliefs,
)
from poolshark.limitnet.records import LimitRecords, RecordsError, record_matches
from poolshark.limitnet.train import Mode, TrainConfig, Trainer

torch.set_num_threads(1)


def reading_model(types: int, seed: int) -> ActionFunction:
    """An action function whose gates read the beliefs strongly (so they change play)."""
    model = ActionFunction(outcome_states=4, card_types=types, seed=seed)
    generator = torch.Generator().manual_seed(seed + 50)
    with torch.no_grad():
        for gates in model.gates:
            gates.copy_(torch.randn(gates.shape, generator=generator))
        for values in model.values:
            values.copy_(2.0 * torch.randn(values.shape, generator=generator))
    return model


def brute_force_marginals(
    observer: Observer, seats: int, steps: list[DealStep], summed: np.ndarray, classes: np.ndarray
) -> np.ndarray:
    """(seats, T) each seat's type posterior at the last step's stage, summing the joint
    posterior over every seat's type path (the inputs the actors saw given)."""
    types = observer.types
    stage_count = steps[-1].stage + 1
    likelihoods = np.zeros((len(steps), types))
    for k, step in enumerate(steps):
        with torch.no_grad():
            log_lik = observer.emission.taken_log_likelihoods(
                (
                    np.array([step.stage]),
                    step.bets[None],
                    step.costs[None],
                    summed[k][None],
                    step.legal[None],
                    np.array([step.action]),
                )
            )
        likelihoods[k] = log_lik.exp().numpy()[0]
    marginals = np.zeros((seats, types))
    paths = list(itertools.product(range(types), repeat=stage_count))
    for joint in itertools.product(paths, repeat=seats):
        weight = 1.0
        for path in joint:
            weight *= observer.initial()[path[0]]
            for stage in range(1, stage_count):
                weight *= observer.transition(stage, int(classes[stage]))[
                    path[stage - 1], path[stage]
                ]
        for k, step in enumerate(steps):
            weight *= likelihoods[k, joint[step.seat][step.stage]]
        for seat, path in enumerate(joint):
            marginals[seat, path[-1]] += weight
    normalized: np.ndarray = marginals / marginals.sum(axis=1, keepdims=True)
    return normalized


@pytest.mark.parametrize("seed", [0, 1])
def test_beliefs_are_the_marginals_of_the_joint_posterior(seed: int) -> None:
    rng = np.random.default_rng(seed)
    observer = Observer(reading_model(2, seed), seed=seed, init_scale=1.0)
    seats, classes = 3, np.array([-1, 5, -1, -1])
    steps = random_deal(rng, seats, 6)
    summed = deal_beliefs(observer, seats, steps, classes)
    state = PublicBeliefs(observer, 1, seats)
    table = np.zeros(1, dtype=np.int64)
    state.start(table)
    for k, step in enumerate(steps):
        state.advance(table, np.array([step.stage]), classes[None])
        read = state.summed(table, np.array([step.seat]))
        np.testing.assert_allclose(read[0], summed[k], atol=1e-12)
        state.observe(
            table,
            np.array([step.seat]),
            np.array([step.stage]),
            step.bets[None],
            step.costs[None],
            read,
            step.legal[None],
            np.array([step.action]),
        )
        exact = brute_force_marginals(observer, seats, steps[: k + 1], summed, classes)
        np.testing.assert_allclose(state.beliefs[0], exact, atol=1e-10)


@pytest.fixture(scope="module")
def observed_play() -> tuple[LimitRecords, Observer, LineRecorder]:
    """A belief-reading network player in every seat of 4-seat matches, recorded."""
    model = reading_model(3, 1)
    observer = Observer(model, seed=2, init_scale=1.0)
    recorder = LineRecorder()
    agent = LimitNetAgent(model, observer=observer, recorder=recorder)
    records = record_matches([agent], [1.0], matches=4, deals=12, seats=4, seed=3)
    return records, observer, recorder


def test_a_player_reads_the_beliefs_its_records_give(
    observed_play: tuple[LimitRecords, Observer, LineRecorder],
) -> None:
    records, observer, recorder = observed_play
    computed = record_beliefs(records, observer)
    assert_players_read(recorder, records, computed)
    assert np.abs(computed).sum() > 0
    assert np.all(computed.sum(axis=1) <= 3.0 + 1e-9)  # at most 3 opponents, each sums to 1


def test_the_reference_replays_recorded_deals(
    observed_play: tuple[LimitRecords, Observer, LineRecorder],
) -> None:
    records, observer, _ = observed_play
    computed = record_beliefs(records, observer)
    for deal in np.unique(records.deal)[:8]:
        lines = np.flatnonzero(records.deal == deal)
        rows = np.concatenate(
            [np.arange(records.line_start[x], records.line_start[x + 1]) for x in lines]
        )
        rows = rows[np.argsort(records.order[rows])]
        seats = records.seat[records.line[rows]]
        steps = [
            DealStep(
                int(seat),
                int(records.stages[row]),
                records.bets[row],
                records.costs[row],
                records.legal[row],
                int(records.actions[row]),
            )
            for row, seat in zip(rows, seats, strict=True)
        ]
        board = tuple(int(c) for c in records.boards[lines[0], : records.board_shown[lines[0]]])
        classes = line_board_classes(board, max(0, len(board) - 2))
        np.testing.assert_allclose(
            deal_beliefs(observer, 4, steps, classes), computed[rows], atol=1e-12
        )


def test_records_carry_beliefs_and_the_fit_reads_them(
    observed_play: tuple[LimitRecords, Observer, LineRecorder], tmp_path: Path
) -> None:
    records, observer, _ = observed_play
    beliefs = record_beliefs(records, observer)
    carried = records.with_beliefs(beliefs)
    path = tmp_path / "records.npz"
    carried.save(path)
    loaded = LimitRecords.load(path)
    assert loaded.beliefs is not None
    np.testing.assert_array_equal(loaded.beliefs, beliefs)
    half = loaded.select(np.arange(records.lines) % 2 == 0)
    assert half.beliefs is not None
    assert half.beliefs.shape == (half.decisions, 3)
    with pytest.raises(RecordsError, match="belief rows"):
        records.with_beliefs(beliefs[:-1])
    model = observer.emission.action_function
    cards = decision_cards(records, records.holes)
    reading = mean_nll(model, carried, cards)
    blind = mean_nll(model, records, cards)
    assert reading != pytest.approx(blind)
    cleared = reading_model(3, 1)
    cleared.clear_belief_gates()
    assert mean_nll(cleared, carried, cards) == pytest.approx(mean_nll(cleared, records, cards))


def test_an_older_records_file_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "old.npz"
    np.savez(path, format=np.asarray("poolshark-limit-records-v1"))
    with pytest.raises(RecordsError, match="record them again"):
        LimitRecords.load(path)


def test_a_checkpoint_keeps_its_observer(tmp_path: Path) -> None:
    model = reading_model(3, 4)
    observer = Observer(model, seed=5, init_scale=1.0)
    path = tmp_path / "reader.pt"
    save_model(model, path, extra={"observer": observer.state()})
    agent = load_limitnet_agent(path)
    assert agent.observer is not None
    for name, tensor in observer.state().items():
        np.testing.assert_allclose(agent.observer.state()[name].numpy(), tensor.numpy())
    plain = tmp_path / "plain.pt"
    save_model(model, plain)
    assert load_limitnet_agent(plain).observer is None


def test_an_observer_fitted_to_records_raises_the_held_out_likelihood(
    observed_play: tuple[LimitRecords, Observer, LineRecorder],
) -> None:
    records, truth, _ = observed_play
    carried = records.with_beliefs(record_beliefs(records, truth))
    lines = record_lines(carried, np.arange(records.lines), 3)
    start = Observer(truth.emission.action_function, seed=9, init_scale=0.1)
    before = start.log_likelihood(lines[1::2])
    fitted, course = fit_observer(start, lines[::2], lines[1::2], steps=6)
    assert course.best_step > 0
    assert fitted.log_likelihood(lines[1::2]) > before
    assert max(course.held_out) == pytest.approx(course.held_out[course.best_step])


def test_a_best_response_reads_the_model_s_beliefs_and_keeps_its_observer(
    tmp_path: Path,
) -> None:
    model = reading_model(8, 6)
    observer = Observer(model, seed=7, init_scale=1.0)
    fitted = tmp_path / "fitted.pt"
    save_model(model, fitted, extra=observer_payload(observer, model))
    saved = load_player(fitted)
    assert saved.observer is not None
    config = TrainConfig(
        mode=Mode.BEST_RESPONSE, seats=3, updates=2, tables=8, outcome_states=4, init=fitted
    )
    trainer = Trainer(config, load_limitnet_agent(fitted), saved.observer)
    trainer.run(tmp_path / "run")
    assert trainer.history[-1].decisions > 0
    exploiter = load_player(tmp_path / "run" / "limitnet.pt")
    assert exploiter.observer is not None
    base = exploiter.observer.emission.action_function
    assert base is not exploiter.model
    for name, weights in model.state_dict().items():
        np.testing.assert_array_equal(base.state_dict()[name].numpy(), weights.numpy())
