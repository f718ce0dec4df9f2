"""The observer with player types (seed 003 section 6.3): its fit with each line's player
type revealed against brute force over card-type paths, what the revealed types buy on a
synthetic typed pool, replayed records carrying each seat's player-type belief over a
match as a player's tracker does in play, and the untyped paths as they were."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from limitnet_fixtures import assert_players_read, spread_model
from poolshark.limitnet.action_function import STAGES
from poolshark.limitnet.agent import LimitNetAgent
from poolshark.limitnet.fit import line_types, match_type_table, player_matches
from poolshark.limitnet.observer import Observer, PlayerLine, sample_lines
from poolshark.limitnet.observer_lines import LineRecorder, fit_observer
from poolshark.limitnet.public_beliefs import PublicBeliefs, record_beliefs, replay_records
from poolshark.limitnet.records import LimitRecords, record_matches

torch.set_num_threads(1)


def checksums(values: np.ndarray) -> tuple[float, float]:
    """Two sums of ``values`` that move with almost any change to any entry."""
    weights = np.arange(values.size).reshape(values.shape) % 7
    return float(values.sum()), float((values * weights).sum())


def test_the_untyped_paths_give_what_they_gave_before() -> None:
    """Gradients, a short fit and replayed beliefs on a fixed small case, against the
    figures the code gave before player types reached the fit and the replay (exact
    there; a tolerance here for other machines' arithmetic)."""
    model = spread_model(3, 1)
    observer = Observer(model, seed=2, init_scale=1.0)
    lines = sample_lines(observer, 10, seed=5)
    grads = observer.gradients(lines)
    flat = np.concatenate(
        [
            grads.initial.ravel(),
            grads.transitions.ravel(),
            grads.showdown.ravel(),
            grads.type_gates.ravel(),
            [grads.log_likelihood],
        ]
    )
    np.testing.assert_allclose(
        checksums(flat), (-15.780928716920336, -26.096318617313923), rtol=1e-9
    )
    _, course = fit_observer(Observer(model, seed=3, init_scale=0.1), lines[:6], lines[6:], steps=3)
    np.testing.assert_allclose(
        checksums(np.array(course.train + course.held_out)),
        (-2.8392202786440777, -5.541639571717871),
        rtol=1e-9,
    )
    records = record_matches(
        [LimitNetAgent(model, observer=observer)], [1.0], matches=2, deals=5, seats=3, seed=4
    )
    np.testing.assert_allclose(
        checksums(record_beliefs(records, observer)), (109.0, 331.59024228110206), rtol=1e-9
    )
    typed = Observer(spread_model(3, 2, player_types=2), seed=4, init_scale=1.0)  # no prior
    replay = replay_records(records, typed)
    np.testing.assert_allclose(checksums(replay.beliefs), (109.0, 334.79354141519207), rtol=1e-9)
    np.testing.assert_array_equal(replay.entered, np.ones((records.lines, 1)))


def brute_force(
    observer: Observer, lines: list[PlayerLine], types: np.ndarray
) -> dict[str, torch.Tensor]:
    """The summed log-likelihood of ``lines`` (each played by its player type) by summing
    over every card-type path, and its gradients by autograd, for every learnt block."""
    initial = torch.from_numpy(observer.initial_logits.copy()).requires_grad_(True)
    transitions = torch.from_numpy(observer.transition_logits.copy()).requires_grad_(True)
    showdown = torch.from_numpy(observer.showdown_logits.copy()).requires_grad_(True)
    table = observer.emission.type_gates.clone().requires_grad_(True)
    player_gates = observer.emission.player_gates()
    total = torch.zeros((), dtype=torch.float64)
    for line, player in zip(lines, types.tolist(), strict=True):
        stages, bets, costs, opponents, legal, actions = line.decisions()
        log_p = observer.emission.joint_log_probabilities(
            stages, bets, costs, opponents, legal, table, player_gates
        )[:, :, player]
        taken = log_p[torch.arange(stages.size), :, torch.from_numpy(actions)]  # (T, C)
        paths = []
        for path in itertools.product(range(observer.types), repeat=line.last_stage + 1):
            term = torch.log_softmax(initial, 0)[path[0]]
            for stage in range(1, line.last_stage + 1):
                rows = torch.log_softmax(transitions[stage - 1, int(line.board_classes[stage])], 1)
                term = term + rows[path[stage - 1], path[stage]]
            for step, stage in enumerate(stages.tolist()):
                term = term + taken[step, path[stage]]
            if line.shown >= 0:
                term = term + torch.log_softmax(showdown, 1)[path[-1], line.shown]
            paths.append(term)
        total = total + torch.logsumexp(torch.stack(paths), 0)
    total.backward()  # type: ignore[no-untyped-call]
    out = {"log_likelihood": total.detach()}
    blocks = {"initial": initial, "transitions": transitions, "showdown": showdown}
    for name, tensor in {**blocks, "type_gates": table}.items():
        assert tensor.grad is not None
        out[name] = tensor.grad
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_a_fit_step_with_revealed_types_is_brute_force(seed: int) -> None:
    """With each line's player type revealed, the likelihood and the plain (unnormalized)
    gradient of every block equal enumerating the card-type paths with the type's offset."""
    model = spread_model(2, seed, player_types=3, spread=2.0)
    observer = Observer(model, seed=seed + 7, init_scale=1.0)
    types = np.array([0, 2, 1, 2, 0, 1], dtype=np.int64)
    lines = sample_lines(
        observer, types.size, seed=seed + 3, decisions_per_stage=1, player_types=types
    )
    assert any(line.last_stage == STAGES - 1 for line in lines)
    reference = brute_force(observer, lines, types)
    grads = observer.gradients(lines, normalize=False, types=types)
    assert grads.log_likelihood == pytest.approx(float(reference["log_likelihood"]), abs=1e-10)
    assert observer.log_likelihood(lines, types) == pytest.approx(grads.log_likelihood, abs=1e-12)
    for name in ("initial", "transitions", "showdown", "type_gates"):
        np.testing.assert_allclose(getattr(grads, name), reference[name].numpy(), atol=1e-10)
    ignored = observer.gradients(lines, normalize=False)
    assert abs(ignored.log_likelihood - grads.log_likelihood) > 1e-3  # the offsets matter


def test_a_missing_type_is_summed_out_under_the_prior() -> None:
    """A held-out line whose player type is not known (-1) scores the mixture over types."""
    model = spread_model(2, 4, player_types=2, spread=2.0)
    observer = Observer(model, seed=5, init_scale=1.0)
    observer.set_type_prior(np.array([0.3, 0.7]))
    lines = sample_lines(observer, 3, seed=6, player_types=np.array([0, 1, 1]))
    per_type = np.array(
        [[observer.log_likelihood([line], np.array([t])) for t in range(2)] for line in lines]
    )
    np.testing.assert_allclose(observer.type_log_likelihoods(lines), per_type, atol=1e-10)
    mixed = np.log(np.exp(per_type) @ np.array([0.3, 0.7])).sum()
    assert observer.log_likelihood(lines, np.full(3, -1)) == pytest.approx(mixed, abs=1e-10)


def test_revealed_types_fit_the_card_type_table_of_a_typed_pool() -> None:
    """Lines from a known typed observer (3 player types, each a block of 8 lines like a
    player-match): the table fitted with the types revealed scores held-out lines (types
    revealed) higher than the one fitted ignoring them (and stopped, as before, on the
    held-out likelihood without types), and recovers the blocks' types at least as often.
    Measured: -0.320 against -0.450 nats per decision (the truth -0.236), 19 of 20 blocks
    against 14."""
    model = spread_model(4, 3, player_types=3, spread=2.0)
    truth = Observer(model, seed=9, init_scale=1.5)
    truth.set_type_prior(np.ones(3) / 3)
    rng = np.random.default_rng(1)
    train_types = np.repeat(rng.integers(0, 3, 40), 8)
    held_types = np.repeat(rng.integers(0, 3, 20), 8)
    train = sample_lines(truth, train_types.size, seed=10, player_types=train_types)
    held = sample_lines(truth, held_types.size, seed=11, player_types=held_types)

    def fitted(types: np.ndarray | None) -> Observer:
        start = Observer(model, seed=12, init_scale=0.1)
        start.set_type_prior(np.ones(3) / 3)
        observer, _ = fit_observer(
            start,
            train,
            held,
            steps=25,
            train_types=types,
            held_types=None if types is None else held_types,
        )
        return observer

    typed, untyped = fitted(train_types), fitted(None)
    scores = {
        name: obs.log_likelihood(held, held_types) / sum(line.stages.size for line in held)
        for name, obs in (("typed", typed), ("untyped", untyped), ("truth", truth))
    }
    assert scores["typed"] > scores["untyped"] + 0.01
    assert scores["truth"] >= scores["typed"] - 0.05

    def recovered(observer: Observer) -> float:
        per_block = observer.type_log_likelihoods(held).reshape(20, 8, 3).sum(axis=1)
        return float((per_block.argmax(axis=1) == held_types[::8]).mean())

    assert recovered(typed) >= recovered(untyped)


def test_match_types_map_back_to_lines() -> None:
    """The checkpoint's (match, seat, type) table gives every line its player-match's type,
    and -1 to lines of matches it does not hold."""
    records = record_matches(
        [LimitNetAgent(spread_model(3, 1))], [1.0], matches=3, deals=3, seats=3, seed=2
    )
    players = player_matches(records)
    types = np.arange(int(players.max()) + 1) % 4
    table = match_type_table(records, types)
    np.testing.assert_array_equal(line_types(records, table), types[players])
    partial = table[table[:, 0] != records.match[0]]
    expected = np.where(records.match == records.match[0], -1, types[players])
    np.testing.assert_array_equal(line_types(records, partial), expected)
    np.testing.assert_array_equal(line_types(records, table[:0]), np.full(records.lines, -1))


@pytest.fixture(scope="module")
def typed_play() -> tuple[LimitRecords, Observer, LineRecorder, dict[int, list[np.ndarray]]]:
    """Typed players (one type per seat for the match) reading joint beliefs in every
    seat of 4-seat matches, recorded; the player-type beliefs each table's seats entered
    each hand with, as the players' own tracker kept them."""
    model = spread_model(3, 0, player_types=2, spread=3.0)
    observer = Observer(model, seed=1, init_scale=1.0)
    observer.set_type_prior(np.array([0.4, 0.6]))
    recorder = LineRecorder()
    agent = LimitNetAgent(
        model,
        type_prior=observer.type_prior,
        observer=observer,
        match_types=True,
        recorder=recorder,
    )
    entered = StartSpy()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PublicBeliefs, "start", entered.start)
        records = record_matches([agent], [1.0], matches=4, deals=10, seats=4, seed=6)
    assert len(entered.seen) == 1  # the one tracker
    return records, observer, recorder, next(iter(entered.seen.values()))


class StartSpy:
    """Wraps :meth:`PublicBeliefs.start`, keeping per tracker and table the player-type
    beliefs the seats entered each hand with."""

    def __init__(self) -> None:
        self.seen: dict[int, dict[int, list[np.ndarray]]] = {}
        original = PublicBeliefs.start

        def start(state: PublicBeliefs, tables: np.ndarray) -> None:
            original(state, tables)
            kept = self.seen.setdefault(id(state), {})
            for table in tables.tolist():
                kept.setdefault(table, []).append(state.entered[table].copy())

        self.start = start


def test_replayed_records_carry_player_types_as_play_does(
    typed_play: tuple[LimitRecords, Observer, LineRecorder, dict[int, list[np.ndarray]]],
) -> None:
    """Every decision's summed beliefs, and every seat's player-type belief entering every
    deal, replayed from the records equal what the players' tracker had in play (the
    showdown updates included); the beliefs move away from the prior over a match."""
    records, observer, recorder, in_play = typed_play
    assert records.shown.sum() >= 5
    replay = replay_records(records, observer)
    assert_players_read(recorder, records, replay.beliefs)
    for match in np.unique(records.match).tolist():
        lines = np.flatnonzero(records.match == match)
        deals = np.unique(records.deal[lines])
        assert len(in_play[match]) == deals.size
        for k, deal in enumerate(deals.tolist()):
            for line in lines[records.deal[lines] == deal].tolist():
                np.testing.assert_allclose(
                    replay.entered[line], in_play[match][k][records.seat[line]], atol=1e-12
                )
    first = np.array(
        [
            records.deal[x] == records.deal[records.match == records.match[x]].min()
            for x in range(records.lines)
        ]
    )
    np.testing.assert_allclose(replay.entered[first], [[0.4, 0.6]] * int(first.sum()))
    assert np.abs(replay.entered - [0.4, 0.6]).max() > 0.3  # carried, not restarted
    assert np.all(record_beliefs(records, observer) == replay.beliefs)
