"""Joint card-type x player-type beliefs (seed 003 section 6.3): the per-action update and
the stage transitions against brute-force Bayes over every seat's (card-type path, player
type), the showdown's player-type update against enumerating the types with the true
cards, one player type against today's card-type beliefs, and a typed player's beliefs
learning its opponents' types over a match."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from limitnet_fixtures import random_deal, spread_model
from poolshark.agents.protocol import Decisions
from poolshark.limitnet.action_function import STAGES, ActionFunction, widest_cards
from poolshark.limitnet.agent import LimitNetAgent, load_limitnet_agent, observer_payload
from poolshark.limitnet.agent import save_model as save_checkpoint
from poolshark.limitnet.card_features import card_features
from poolshark.limitnet.observer import Observer, ObserverError
from poolshark.limitnet.public_beliefs import DealStep, PublicBeliefs
from poolshark.limitnet.records import record_matches
from poolshark.limitnet.type_beliefs import showdown_type_update

torch.set_num_threads(1)

CLASSES = np.array([-1, 5, 2, 7])
"""Board classes of the test deals' flop, turn and river."""


def typed_observer(model: ActionFunction, prior: list[float], seed: int) -> Observer:
    """An observer over ``model`` with spread-out tables and the player-type prior."""
    observer = Observer(model, seed=seed, init_scale=1.0)
    observer.set_type_prior(np.asarray(prior))
    return observer


def folded_model(
    model: ActionFunction, observer: Observer, card: int, player: int
) -> ActionFunction:
    """An untyped float64 copy of ``model`` with card type ``card``'s observer column and
    player type ``player``'s offset folded into the gating bias: fed zero card features it
    plays as the joint emission says (a second path to the same numbers)."""
    folded = ActionFunction(outcome_states=model.outcome_states, card_types=model.card_types)
    state = {k: v for k, v in model.state_dict().items() if k != "type_gates"}
    folded.load_state_dict(state)
    folded = folded.double()
    with torch.no_grad():
        for stage in range(STAGES):
            bias = observer.emission.type_gates[stage, :, :, card].clone()
            if model.type_gates is not None and player >= 0:
                bias += model.type_gates[stage, :, :, player].double()
            folded.gates[stage][:, :, -1] += bias
    return folded


def reference_likelihood(
    model: ActionFunction, observer: Observer, step: DealStep, summed: np.ndarray
) -> np.ndarray:
    """(C, P) ``P(action | card type, player type)`` through :func:`folded_model`."""
    players = max(model.player_types, 1)
    out = np.zeros((observer.types, players))
    for card, player in itertools.product(range(observer.types), range(players)):
        folded = folded_model(model, observer, card, player if model.player_types else -1)
        with torch.no_grad():
            log_p = folded.log_probabilities(
                torch.tensor([step.stage]),
                torch.from_numpy(step.bets[None]),
                torch.from_numpy(step.costs[None]),
                torch.zeros(1, widest_cards(), dtype=torch.float64),
                torch.from_numpy(summed[None]),
                torch.from_numpy(step.legal[None]),
            )
        out[card, player] = float(log_p[0, step.action].exp())
    return out


def play_deal(
    state: PublicBeliefs, steps: list[DealStep], classes: np.ndarray
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Feed one deal to the tracker at table 0: the summed beliefs each step saw and the
    joint beliefs after it."""
    table = np.zeros(1, dtype=np.int64)
    seen: list[np.ndarray] = []
    after: list[np.ndarray] = []
    for step in steps:
        state.advance(table, np.array([step.stage]), classes[None])
        summed = state.summed(table, np.array([step.seat]))
        state.observe(
            table,
            np.array([step.seat]),
            np.array([step.stage]),
            step.bets[None],
            step.costs[None],
            summed,
            step.legal[None],
            np.array([step.action]),
        )
        seen.append(summed[0])
        after.append(state.joint[0].copy())
    return seen, after


def brute_force_joint(
    model: ActionFunction,
    observer: Observer,
    seats: int,
    steps: list[DealStep],
    seen: list[np.ndarray],
    entered: np.ndarray,
) -> np.ndarray:
    """(seats, C, P) each seat's posterior over (card type at the last step's stage, player
    type), summing the joint over every seat's card-type path and player type."""
    types, players = observer.types, entered.shape[1]
    stage_count = steps[-1].stage + 1
    likelihoods = [reference_likelihood(model, observer, s, seen[k]) for k, s in enumerate(steps)]
    options = list(
        itertools.product(itertools.product(range(types), repeat=stage_count), range(players))
    )
    out = np.zeros((seats, types, players))
    for choice in itertools.product(options, repeat=seats):
        weight = 1.0
        for seat, (path, player) in enumerate(choice):
            weight *= observer.initial()[path[0]] * entered[seat, player]
            for stage in range(1, stage_count):
                matrix = observer.transition(stage, int(CLASSES[stage]))
                weight *= matrix[path[stage - 1], path[stage]]
        for k, step in enumerate(steps):
            path, player = choice[step.seat]
            weight *= likelihoods[k][path[step.stage], player]
        for seat, (path, player) in enumerate(choice):
            out[seat, path[-1], player] += weight
    normalized: np.ndarray = out / out.sum(axis=(1, 2), keepdims=True)
    return normalized


@pytest.mark.parametrize("seed", [0, 1])
def test_the_joint_update_is_bayes_over_card_and_player_types(seed: int) -> None:
    rng = np.random.default_rng(seed)
    model = spread_model(2, seed, 2)
    observer = typed_observer(model, [0.3, 0.7], seed)
    seats = 3
    state = PublicBeliefs(observer, 1, seats)
    entered = np.array([[0.3, 0.7], [0.6, 0.4], [0.9, 0.1]])
    state.joint[0] = observer.initial()[:, None] * entered[:, None, :]  # carried beliefs
    state.start(np.zeros(1, dtype=np.int64))
    np.testing.assert_allclose(state.player_types[0], entered, atol=1e-15)
    steps = random_deal(rng, seats, 6)
    seen, after = play_deal(state, steps, CLASSES)
    for k in range(len(steps)):
        exact = brute_force_joint(model, observer, seats, steps[: k + 1], seen, entered)
        np.testing.assert_allclose(after[k], exact, atol=1e-10)


def test_one_player_type_is_today_s_card_type_belief() -> None:
    """With one player type the joint belief is the card-type belief of an untyped model
    whose gating bias carries the type's offset (today's machinery, no player types)."""
    rng = np.random.default_rng(5)
    model = spread_model(3, 5, 1, spread=2.0)
    observer = typed_observer(model, [1.0], 5)
    plain = ActionFunction(outcome_states=4, card_types=3)
    plain.load_state_dict({k: v for k, v in model.state_dict().items() if k != "type_gates"})
    plain = plain.double()  # the fold exact, as the emission reads the weights in float64
    with torch.no_grad():
        for stage in range(STAGES):
            plain.gates[stage][:, :, -1] += model.type_gates[stage, :, :, 0].double()
    state = observer.state()
    del state["type_prior"]
    today = Observer.from_state(plain, state)
    assert today.type_prior is None
    joint, cards = PublicBeliefs(observer, 1, 4), PublicBeliefs(today, 1, 4)
    assert joint.typed
    assert not cards.typed
    table = np.zeros(1, dtype=np.int64)
    for _ in range(2):  # a second hand starts from the carried (certain) type
        joint.start(table)
        cards.start(table)
        steps = random_deal(rng, 4, 8)
        seen_joint, after_joint = play_deal(joint, steps, CLASSES)
        seen_cards, after_cards = play_deal(cards, steps, CLASSES)
        np.testing.assert_allclose(seen_joint, seen_cards, atol=1e-12)
        np.testing.assert_allclose(after_joint, after_cards, atol=1e-12)
        np.testing.assert_array_equal(joint.player_types, np.ones((1, 4, 1)))


def test_an_untyped_observer_keeps_one_certain_player_type() -> None:
    model = spread_model(2, 3, 0)
    observer = Observer(model, seed=3)
    with pytest.raises(ObserverError, match="player types"):
        observer.set_type_prior(np.ones(2))
    state = PublicBeliefs(observer, 2, 3)
    assert not state.typed
    assert state.joint.shape == (2, 3, 2, 1)


@pytest.mark.parametrize("seed", [0, 2])
def test_the_showdown_recomputes_the_player_type_with_the_true_cards(seed: int) -> None:
    rng = np.random.default_rng(seed)
    model = spread_model(2, seed, 3, spread=2.0)
    observer = typed_observer(model, [0.2, 0.3, 0.5], seed)
    state = PublicBeliefs(observer, 1, 3, showdowns=True)
    table = np.zeros(1, dtype=np.int64)
    state.start(table)
    steps = random_deal(rng, 3, 7)
    seen, _ = play_deal(state, steps, CLASSES)
    seat = steps[-1].seat
    cards = [int(c) for c in rng.choice(52, 7, replace=False)]
    hole, board = (cards[0], cards[1]), tuple(cards[2:])
    log_lik = np.zeros(3)
    for k, step in enumerate(steps):
        if step.seat != seat:
            continue
        shown = board[: (0, 3, 4, 5)[step.stage]]
        features = np.zeros(widest_cards())
        row = card_features(hole, shown)
        features[: row.size] = row
        for player in range(3):
            with torch.no_grad():
                log_p = model.log_probabilities(
                    torch.tensor([step.stage]),
                    torch.from_numpy(step.bets[None]).float(),
                    torch.from_numpy(step.costs[None]).float(),
                    torch.from_numpy(features[None]).float(),
                    torch.from_numpy(seen[k][None]).float(),
                    torch.from_numpy(step.legal[None]),
                    types=torch.tensor([player]),
                )
            log_lik[player] += float(log_p[0, step.action])
    expected = np.array([0.2, 0.3, 0.5]) * np.exp(log_lik)
    expected /= expected.sum()
    others = state.player_types[0].copy()
    card_part = state.beliefs[0, seat].copy()
    state.showdown(0, seat, hole, board)
    np.testing.assert_allclose(state.player_types[0, seat], expected, atol=1e-6)
    np.testing.assert_allclose(state.beliefs[0, seat], card_part, atol=1e-12)
    untouched = [s for s in range(3) if s != seat]
    np.testing.assert_allclose(state.player_types[0, untouched], others[untouched], atol=1e-15)
    state.start(table)  # the next hand carries the shown type and restarts the cards
    np.testing.assert_allclose(state.player_types[0, seat], expected, atol=1e-6)
    np.testing.assert_allclose(state.beliefs[0, seat], observer.initial(), atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_batch_of_showdowns_is_the_showdowns_one_seat_at_a_time(seed: int) -> None:
    """Seats of several tables, hands ending on every stage (boards of 0 to 5 cards, some
    longer than the decisions need), a seat that did not act: one batched update equals
    the single-seat updates one after another."""
    rng = np.random.default_rng(seed)
    model = spread_model(3, seed, 3, spread=2.0)
    observer = typed_observer(model, [0.2, 0.3, 0.5], seed)
    tables, seats = 4, 3
    batched, single = (PublicBeliefs(observer, tables, seats, showdowns=True) for _ in range(2))
    entered = rng.dirichlet(np.ones(3), size=(tables, seats))
    every = np.arange(tables)
    for state in (batched, single):
        state.joint[:] = observer.initial()[:, None] * entered[:, :, None, :]
        state.start(every)
    last = np.array([0, 1, 2, 3])
    for step in range(14):
        table = every[last >= step // 4]
        seat = rng.integers(0, seats, table.size)
        seat[table == 0] = rng.integers(0, 2, int((table == 0).sum()))  # seat 2 never acts
        stage = np.minimum(step // 4, last[table])
        legal = rng.random((table.size, 3)) < 0.7
        legal[:, 1] = True
        action = np.array([rng.choice(np.flatnonzero(row)) for row in legal])
        action[action == 0] = 1  # nobody folds, so every seat can act again
        bets, costs = rng.random((table.size, 2, 9)) * 3, rng.random((table.size, 2)) * 2
        for state in (batched, single):
            state.advance(table, stage, np.tile(CLASSES, (table.size, 1)))
            summed = state.summed(table, seat)
            state.observe(table, seat, stage, bets, costs, summed, legal, action)
    shown_tables = np.repeat(every, seats)
    shown_seats = np.tile(np.arange(seats), tables)
    holes = np.zeros((shown_tables.size, 2), dtype=np.int64)
    boards = np.zeros((shown_tables.size, 5), dtype=np.int64)
    board_shown = np.array([0, 0, 5, 3, 3, 4, 4, 5, 5, 5, 5, 5])
    for k in range(shown_tables.size):
        cards = rng.choice(52, 7, replace=False)
        holes[k], boards[k, : board_shown[k]] = cards[:2], cards[2 : 2 + board_shown[k]]
    before = batched.player_types.copy()
    batched.showdown_batch(shown_tables, shown_seats, holes, boards, board_shown)
    for k in range(shown_tables.size):
        board = tuple(int(card) for card in boards[k, : board_shown[k]])
        hole = (int(holes[k, 0]), int(holes[k, 1]))
        single.showdown(int(shown_tables[k]), int(shown_seats[k]), hole, board)
    np.testing.assert_allclose(batched.joint, single.joint, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(batched.player_types[0, 2], before[0, 2])  # no rows
    assert np.abs(batched.player_types - before).max() > 0.05
    with pytest.raises(ObserverError, match="fewer cards"):
        batched.showdown_batch(
            every[3:],
            np.zeros(1, dtype=np.int64),
            holes[:1],
            boards[:1],
            np.zeros(1, dtype=np.int64),
        )


def test_the_showdown_update_is_bayes_in_log_space() -> None:
    entered = np.array([0.5, 0.25, 0.25, 0.0])
    log_lik = np.array([-800.0, -801.0, -799.0, 0.0])
    expected = np.array([0.5, 0.25 / np.e, 0.25 * np.e, 0.0])
    np.testing.assert_allclose(showdown_type_update(entered, log_lik), expected / expected.sum())
    with pytest.raises(ObserverError, match="probability 0"):
        showdown_type_update(np.array([1.0, 0.0]), np.array([-np.inf, 0.0]))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(1, 3))
def test_joint_beliefs_stay_distributions(seed: int, players: int) -> None:
    rng = np.random.default_rng(seed)
    model = spread_model(2, seed % 7, players)
    prior = rng.random(players) + 0.1
    observer = typed_observer(model, list(prior / prior.sum()), seed % 5)
    state = PublicBeliefs(observer, 1, 3)
    table = np.zeros(1, dtype=np.int64)
    state.start(table)
    steps = random_deal(rng, 3, 6)
    _, after = play_deal(state, steps, CLASSES)
    before_stage = state.player_types.copy()
    state.advance(table, np.array([2]), CLASSES[None])
    for joint in [*after, state.joint[0]]:
        assert np.all(joint >= 0)
        np.testing.assert_allclose(joint.sum(axis=(1, 2)), 1.0, atol=1e-12)
    np.testing.assert_allclose(state.player_types, before_stage, atol=1e-12)


def test_a_typed_player_learns_its_opponents_types_over_a_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seats keep one type for the match; the players' own tracker (public beliefs, shown
    hands included) ends the match with most weight on the true types."""
    shown: list[tuple[int, int]] = []
    showdown = PublicBeliefs.showdown

    def counted(
        state: PublicBeliefs, table: int, seat: int, hole: tuple[int, ...], board: tuple[int, ...]
    ) -> None:
        shown.append((table, seat))
        showdown(state, table, seat, hole, board)

    monkeypatch.setattr(PublicBeliefs, "showdown", counted)
    model = spread_model(2, 0, 2, spread=4.0)
    observer = typed_observer(model, [0.5, 0.5], 0)
    agent = LimitNetAgent(
        model, type_prior=observer.type_prior, observer=observer, match_types=True
    )
    record_matches([agent], [1.0], matches=6, deals=20, seats=4, seed=8)
    assert agent.type_draws is not None
    assert agent.beliefs is not None
    assert agent.beliefs.state is not None
    assert len(shown) >= 10
    truth = agent.type_draws.choices
    assert truth.min() >= 0
    assert len(np.unique(truth)) == 2
    posterior = agent.beliefs.state.player_types
    on_truth = np.take_along_axis(posterior, truth[..., None], axis=2)[..., 0]
    assert on_truth.mean() > 0.9
    assert (on_truth > 0.5).mean() > 0.9


def test_a_checkpoint_with_a_typed_observer_keeps_types_for_the_match(tmp_path: Path) -> None:
    model = spread_model(2, 1, 2)
    observer = Observer(model, seed=1)
    observer.set_type_prior(np.array([0.9, 0.1]))  # stale: the checkpoint's prior wins
    path = tmp_path / "typed.pt"
    save_checkpoint(model, path, {**observer_payload(observer, model), "type_prior": [0.4, 0.6]})
    agent = load_limitnet_agent(path)
    assert agent.observer is not None
    assert agent.observer.type_prior is not None
    np.testing.assert_allclose(agent.observer.type_prior, [0.4, 0.6])
    assert agent.type_draws is not None
    assert agent.type_draws.per_match
    saved = Observer.from_state(model, agent.observer.state())
    np.testing.assert_allclose(saved.type_prior, [0.4, 0.6])


@pytest.mark.parametrize("per_match", [True, False])
def test_a_typed_player_keeps_a_seat_s_type_for_the_match_when_asked(per_match: bool) -> None:
    model = spread_model(2, 4, 3)
    agent = LimitNetAgent(model, type_prior=np.ones(3) / 3, match_types=per_match)
    assert agent.type_draws is not None
    draws = agent.type_draws
    seen: dict[tuple[int, int], set[int]] = {}
    draw = draws.draw

    def recorded(decisions: Decisions) -> np.ndarray:
        types = draw(decisions)
        for table, seat, kind in zip(decisions.tables, decisions.seats, types, strict=True):
            seen.setdefault((int(table), int(seat)), set()).add(int(kind))
        return types

    draws.draw = recorded  # type: ignore[method-assign]
    record_matches([agent], [1.0], matches=3, deals=12, seats=4, seed=2)
    kinds = [len(types) for types in seen.values()]
    assert len(kinds) == 12
    if per_match:
        assert max(kinds) == 1
    else:
        assert max(kinds) > 1
