"""Variance reduction in matches: the check-down value against its readable reference, the
exactness that makes each correction mean zero (chance nodes, move mapping, style rows),
a readable one-hand reference, and unbiasedness on matches with a known answer."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.agents import CallingStation, Decisions, Probabilities, RandomAgent, StyleAgent
from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import engine_moves
from poolshark.engine.actions import ActionSet
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig, Settlement
from poolshark.engine.kernel import BET, FOLDED, SHOWN, STACK, TOTAL
from poolshark.engine.pots import side_pots
from poolshark.evaluate import MatchConfig, play_match
from poolshark.evaluate.aivat import (
    FEATURES,
    KINDS,
    Corrections,
    after_moves,
    cross_fitted,
    known_policy,
    sampled_shares,
    style_policy,
)
from poolshark.evaluate.checkdown import BoardRanks, checkdown_value, even_split_values
from poolshark.pool.policy import sample_actions


def one_table(seats: int, holes: list[int], board: list[int]) -> BatchedTables:
    """A single table dealt the given cards (hole cards seat by seat, then the board)."""
    batch = BatchedTables(GameConfig(seats=seats, small_blind=1, big_blind=2), 1, seed=0)
    batch.reset(
        [0],
        stacks=200,
        buttons=0,
        hole_cards=np.array(holes).reshape(1, seats, 2),
        boards=np.array(board).reshape(1, 5),
    )
    return batch


def values_on(batch: BatchedTables, shown: int, total: list[int], folded: list[int]) -> list[float]:
    ranks = BoardRanks(1, batch.config.seats, 64, seed=1)
    batch.seat[0, FOLDED] = folded
    ranks.build(batch, np.array([0]), np.array([shown]))
    return ranks.values(np.array([0]), np.array([total]), np.array([folded]))[0].tolist()


# -- the check-down value ------------------------------------------------------------------------


@settings(max_examples=8, deadline=None)
@given(
    seats=st.integers(2, 3),
    shown=st.sampled_from([3, 4, 5]),
    cards=st.permutations(range(52)),
    data=st.data(),
)
def test_the_compiled_value_matches_the_readable_reference(
    seats: int, shown: int, cards: list[int], data: st.DataObject
) -> None:
    """Side pots, folded dead money, unmatched bets and ties: to the last fraction."""
    total = data.draw(st.lists(st.integers(0, 40), min_size=seats, max_size=seats))
    folded = data.draw(st.lists(st.integers(0, 1), min_size=seats, max_size=seats))
    if all(folded):
        folded[0] = 0
    holes, board = cards[: 2 * seats], cards[2 * seats : 2 * seats + 5]
    batch = one_table(seats, holes, board)
    compiled = values_on(batch, shown, total, folded)
    pairs = [(holes[2 * s], holes[2 * s + 1]) for s in range(seats)]
    reference = checkdown_value(pairs, board[:shown], total, [bool(f) for f in folded])
    assert compiled == pytest.approx([float(v) for v in reference], abs=1e-9)
    assert sum(compiled) == pytest.approx(0.0, abs=1e-9)  # no rake: the chips only move


def test_the_value_before_a_card_is_the_mean_of_the_values_after_it() -> None:
    """The chance corrections' mean is exactly zero: brute force over every turn and river."""
    holes = [0, 5, 17, 22, 40, 41]  # three seats
    board = [8, 30, 35, 12, 50]
    total, folded = [30, 30, 12], [0, 0, 0]
    batch = one_table(3, holes, board)
    flop = values_on(batch, 3, total, folded)
    used = set(holes) | set(board[:3])
    after_turn = []
    for turn in sorted(set(range(52)) - used):
        cards = [*board[:3], turn, *(c for c in range(52) if c not in used and c != turn)][:5]
        turn_value = values_on(one_table(3, holes, cards), 4, total, folded)
        rivers = [
            values_on(one_table(3, holes, [*cards[:4], river]), 5, total, folded)
            for river in sorted(set(range(52)) - used - {turn})
        ]
        assert np.mean(rivers, axis=0) == pytest.approx(turn_value, abs=1e-9)
        after_turn.append(turn_value)
    assert np.mean(after_turn, axis=0) == pytest.approx(flop, abs=1e-9)


def test_an_even_split_is_the_values_mean_over_the_deal() -> None:
    """Before the cards the live seats are exchangeable: each pot splits evenly."""
    total = np.array([[1, 2, 0, 0], [50, 20, 20, 5], [7, 7, 3, 0]])
    folded = np.array([[0, 0, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0]])
    for row, (t, f) in enumerate(zip(total, folded, strict=True)):
        expected = [-float(c) for c in t]
        for pot in side_pots(t.tolist(), [not x for x in f]):
            for s in pot.eligible:
                expected[s] += pot.amount / len(pot.eligible)
        assert even_split_values(total, folded)[row] == pytest.approx(expected)
    # heads-up blinds: swapping the two hands turns the small blind's value v into -v, so
    # over a deal (where both orders are equally likely) its mean is exactly zero
    rng = np.random.default_rng(0)
    board = [0, 13, 26, 39, 51]
    for _ in range(50):
        a, b, c, d = (
            int(x) for x in rng.choice([x for x in range(52) if x not in board], 4, replace=False)
        )
        one = checkdown_value([(a, b), (c, d)], board, [1, 2], [False, False])[0]
        other = checkdown_value([(c, d), (a, b)], board, [1, 2], [False, False])[0]
        assert one + other == 0
    assert even_split_values(np.array([[1, 2]]), np.array([[0, 0]])).tolist() == [[0.0, 0.0]]


def test_preflop_values_average_sampled_boards_without_bias() -> None:
    """Preflop the value is a mean over sampled boards: the engine's exact all-in expectation
    on average over seeds, each seed off by sampling noise only."""
    holes, board = [48, 49, 44, 45], [0, 1, 2, 3, 4]  # AcAd against KcKd
    exact = BatchedTables(
        GameConfig(seats=2, small_blind=1, big_blind=2, settlement=Settlement.EXPECTED_VALUE),
        1,
    )
    exact.reset([0], stacks=100, buttons=0, hole_cards=[[48, 49], [44, 45]], boards=[board])
    exact.step([2], [100])
    exact.step([1])
    assert exact.done[0]
    batch = one_table(2, holes, board)
    estimates = []
    for seed in range(8):
        ranks = BoardRanks(1, 2, 1000, seed=seed)
        ranks.build(batch, np.array([0]), np.array([0]))
        both_in = np.array([[100, 100]])
        estimates.append(ranks.values(np.array([0]), both_in, np.zeros((1, 2), np.int64))[0, 0])
    spread = np.std(estimates)
    assert spread > 0
    assert np.mean(estimates) == pytest.approx(exact.expected_net[0, 0], abs=4 * spread)


# -- the known policies and the moves they map to ------------------------------------------------


def random_states(seats: int, tables: int, seed: int) -> BatchedTables:
    """Tables stopped at random decision points (random play, some steps in)."""
    batch = BatchedTables(GameConfig(seats=seats, small_blind=1, big_blind=2), tables, seed=seed)
    batch.reset(stacks=np.random.default_rng(seed).integers(30, 300, (tables, seats)), buttons=0)
    rng = np.random.default_rng(seed)
    steps = rng.integers(0, 9, tables)
    agent = RandomAgent()
    for step in range(9):
        legal = batch.legal()
        live = np.flatnonzero((legal.to_act >= 0) & (steps > step))
        if live.size == 0:
            break
        decisions = Decisions(batch, live, legal.to_act[live], live, legal, rng)
        moves = np.full(tables, -1)
        amounts = np.zeros(tables, dtype=np.int64)
        moves[live], amounts[live] = engine_moves(decisions, agent.act(decisions), "random")
        batch.step(moves, amounts)
    return batch


def test_each_action_is_valued_at_the_state_the_engine_reaches() -> None:
    """``after_moves`` (fold, call, every raise size, all-in; illegal ones coerced) leads to
    the value of the state the engine really reaches, so the taken action's value in the
    expectation is the value the correction is booked with."""
    batch = random_states(4, 48, seed=3)
    legal = batch.legal()
    tables = np.flatnonzero(legal.to_act >= 0)
    assert tables.size > 10
    seats = legal.to_act[tables]
    ranks = BoardRanks(batch.size, 4, 64, seed=2)
    ranks.build(batch, tables)
    actions = ActionSet((0.33, 0.5, 1.0, 2.5))
    tried: list[tuple[int, int]] = [(0, 0), (1, 0), (2, 1), (2, 10**6)]  # raises get clamped
    tried += [(-1, column) for column in range(actions.size)]
    for move_code, raise_to in tried:
        if move_code == -1:
            move, amount = actions.to_moves(batch, legal, np.full(batch.size, raise_to))
            moves, amounts = move[tables], amount[tables]
        else:
            moves = np.full(tables.size, move_code)
            amounts = np.full(tables.size, raise_to)
        total, folded = after_moves(
            batch,
            tables,
            seats,
            legal.call[tables],
            legal.min_raise_to[tables],
            legal.max_raise_to[tables],
            moves,
            amounts,
        )
        stepped = copy.copy(batch)  # the state arrays copied, the evaluator's tables shared
        for name in ("seat", "table", "cards", "log", "expected", "rng"):
            setattr(stepped, name, getattr(batch, name).copy())
        every = np.full(batch.size, -1)
        every_amount = np.zeros(batch.size, dtype=np.int64)
        every[tables], every_amount[tables] = moves, amounts
        stepped.step(every, every_amount)
        assert (stepped.seat[tables, FOLDED] == folded).all()
        engine = ranks.values(tables, stepped.seat[tables, TOTAL], stepped.seat[tables, FOLDED])
        assert ranks.values(tables, total, folded) == pytest.approx(engine, abs=1e-9)


def test_the_style_rows_are_what_the_style_agent_samples() -> None:
    """Each column of the recomputed style row, hit by a uniform number inside its interval,
    is exactly the move and amount the agent's sampler returns."""
    agent = load_agent("pool:micro-zoom")
    assert isinstance(agent, StyleAgent)
    batch = random_states(6, 64, seed=5)
    legal = batch.legal()
    live = np.flatnonzero(legal.to_act >= 0)
    rng = np.random.default_rng(0)
    decisions = Decisions(batch, live, legal.to_act[live], live, legal, rng)
    agent.act(decisions)  # draws each seat's style for the hand
    policy = style_policy(decisions, agent)
    assert policy.probabilities.sum(axis=1) == pytest.approx(1.0)
    styles = agent.draws.draw(decisions)
    running = np.cumsum(policy.probabilities, axis=1)
    checked = 0
    for column in range(policy.probabilities.shape[1]):
        rows = np.flatnonzero(policy.probabilities[:, column] > 1e-9)
        if rows.size == 0:
            continue
        middle = running[rows, column] - policy.probabilities[rows, column] / 2
        move, amount = sample_actions(
            agent.bank,
            styles[rows],
            decisions.contexts[rows],
            decisions.hole_cards[rows],
            np.maximum(decisions.board[rows], 0),
            middle,
        )
        assert (move == policy.moves[rows, column]).all()
        raising = move == 2
        assert (amount[raising] == policy.amounts[rows[raising], column]).all()
        checked += rows.size
    assert checked >= live.size


def test_sampled_shares_follow_the_inverse_cdf_rule() -> None:
    rows = np.array([[0.2, 0.3, 0.1, 0.0], [0.5, 0.2, 0.0, 0.0], [0.6, 0.6, 0.0, 0.0]])
    shares = sampled_shares(rows)
    assert shares == pytest.approx(
        np.array([[0.2, 0.3, 0.5, 0.0], [0.5, 0.5, 0.0, 0.0], [0.6, 0.4, 0.0, 0.0]])
    )


# -- a readable reference for one hand -----------------------------------------------------------


class Prober:
    """A known policy that mostly calls, sometimes folds or raises half the pot."""

    actions = ActionSet((0.5,), all_in=False)

    def act(self, decisions: Decisions) -> Probabilities:
        return Probabilities(self.actions, np.tile([0.15, 0.7, 0.15], (decisions.size, 1)))


def readable_hand(seats: int, seed: int) -> tuple[list[list[float]], np.ndarray]:
    """Play one hand of known-policy agents at one table with the batched corrections, and
    recompute every postflop correction with plain Python and the readable check-down
    value."""
    batch = BatchedTables(GameConfig(seats=seats, small_blind=1, big_blind=2), 1, seed=seed)
    batch.reset([0], stacks=120, buttons=0)
    corrections = Corrections(batch, seed=seed)
    corrections.dealt(np.array([0]))
    agent, rng = Prober(), np.random.default_rng(seed)
    holes = [tuple(int(c) for c in batch.hole_cards[0, s]) for s in range(seats)]
    board = [int(c) for c in batch.boards[0]]
    reference = [[0.0] * seats for _ in KINDS]

    def value(total: list[int], folded: list[int], shown: int) -> list[float]:
        exact = checkdown_value(holes, board[:shown], total, [bool(f) for f in folded])
        return [float(v) for v in exact]

    while not batch.done[0]:
        legal = batch.legal()
        seat = int(legal.to_act[0])
        decisions = Decisions(batch, np.array([0]), np.array([seat]), np.array([0]), legal, rng)
        answer = agent.act(decisions)
        policy = known_policy(decisions, answer, agent)
        assert policy is not None
        corrections.expect(decisions, policy)
        shown = int(batch.table[0, SHOWN])
        total, folded = batch.seat[0, TOTAL].tolist(), batch.seat[0, FOLDED].tolist()
        bet, stack = int(batch.seat[0, BET, seat]), int(batch.seat[0, STACK, seat])
        expected = [0.0] * seats
        for k, p in enumerate(policy.probabilities[0]):
            if p == 0:
                continue
            t, f = list(total), list(folded)
            move, amount = int(policy.moves[0, k]), int(policy.amounts[0, k])
            if move == 0:
                f[seat] = 1
            elif move == 1:
                t[seat] += min(int(legal.call[0]), stack)
            else:
                t[seat] += min(amount - bet, stack)
            if shown >= 3:
                expected = [e + p * v for e, v in zip(expected, value(t, f, shown), strict=True)]
        move, amount = engine_moves(decisions, answer, "random")
        batch.step(move, amount)
        corrections.stepped(np.array([0]))
        after_total, after_folded = batch.seat[0, TOTAL].tolist(), batch.seat[0, FOLDED].tolist()
        if shown >= 3:
            taken = value(after_total, after_folded, shown)
            kind = 5 + shown - 2
            reference[kind] = [
                r + a - e for r, a, e in zip(reference[kind], taken, expected, strict=True)
            ]
        now = int(batch.table[0, SHOWN])
        if now != shown and shown >= 3:
            before = value(after_total, after_folded, shown)
            after = value(after_total, after_folded, now)
            kind = now - 2 if now == shown + 1 else 4
            reference[kind] = [
                r + a - b for r, a, b in zip(reference[kind], after, before, strict=True)
            ]
    return reference, corrections.parts[0, :, : len(KINDS)].T


def test_the_batched_corrections_match_a_readable_reference() -> None:
    """Turn and river chance corrections and every postflop decision correction of whole
    hands, recomputed in plain Python with exact fractions (preflop and the flop deal use
    the sampled preflop boards, which the reference does not replay)."""
    compared = set()
    for seed in range(8):
        reference, batched = readable_hand(3, seed)
        for kind in (2, 3, 6, 7, 8):
            assert batched[kind] == pytest.approx(reference[kind], abs=1e-7), KINDS[kind]
            if np.abs(reference[kind]).max() > 0.1:
                compared.add(kind)
    assert compared == {2, 3, 6, 7, 8}  # every kind was exercised with nonzero corrections


# -- matches -------------------------------------------------------------------------------------


class HalfFolder:
    """Facing a bet: fold or call, half and half; otherwise check. A known policy."""

    actions = ActionSet((), all_in=False)

    def act(self, decisions: Decisions) -> Probabilities:
        can_fold = decisions.mask(self.actions)[:, 0]
        values = np.where(can_fold[:, None], [0.5, 0.5], [0.0, 1.0])
        return Probabilities(self.actions, values)


@pytest.mark.parametrize("duplicate", [False, True])
def test_a_match_with_a_known_answer_is_estimated_without_bias(duplicate: bool) -> None:
    """The half-folder against a calling station, heads-up: as the button it folds half its
    small blinds (-0.5 chips a hand there) and every other hand checks down (0 on average),
    so it loses exactly 0.25 chips = 12.5 bb/100. The corrected estimate covers that with
    a narrower interval, and the corrections' own mean covers zero."""
    config = MatchConfig(
        hands=12_000, seats=2, seed=11, variance_reduction=True, tables=256, duplicate=duplicate
    )
    result = play_match([HalfFolder(), CallingStation()], [0, 1], config)
    folder = result.agents[0]
    assert folder.aivat is not None
    assert folder.luck is not None
    assert folder.aivat_plain is not None
    low, high = folder.aivat.interval
    assert low < -12.5 < high
    low, high = folder.aivat_plain.interval
    assert low < -12.5 < high
    assert folder.aivat.half_width < 0.7 * folder.actual.half_width
    assert abs(folder.luck.bb_per_100) < 2.5 * folder.luck.stderr + 1e-9
    assert folder.corrected_decisions > 0
    assert result.agents[1].corrected_decisions == 0  # exact moves: no known policy


def test_corrections_have_mean_zero_in_a_busy_match() -> None:
    """Random agents (known policies) and styles (known rows) against the TAG bot (exact
    moves), six-handed: every kind of correction, and their means stay within their
    intervals of zero while the interval narrows."""
    agents = [RandomAgent(), load_agent("pool:micro-zoom"), load_agent("tag")]
    config = MatchConfig(hands=6_000, seats=6, seed=3, variance_reduction=True, tables=512)
    result = play_match(agents, [0, 1, 2, 1, 0, 1], config)
    for agent in result.agents:
        assert agent.luck is not None
        assert agent.aivat is not None
        assert abs(agent.luck.bb_per_100) < 3.0 * agent.luck.stderr
        assert agent.aivat.half_width < agent.actual.half_width
    assert result.agents[2].corrected_decisions == 0
    assert result.agents[0].corrected_decisions == result.agents[0].decisions
    assert result.agents[1].corrected_decisions == result.agents[1].decisions
    assert result.as_dict()["variance_reduction"] is True


def test_variance_reduction_leaves_the_plain_figures_alone() -> None:
    """The same seed gives the same actual and EV figures with and without it."""
    agents = [load_agent("zoom-reg"), RandomAgent()]
    plain = play_match(agents, [0, 1, 0, 1], MatchConfig(hands=400, seats=4, seed=2, tables=64))
    reduced = play_match(
        agents,
        [0, 1, 0, 1],
        MatchConfig(hands=400, seats=4, seed=2, tables=64, variance_reduction=True),
    )
    for a, b in zip(plain.agents, reduced.agents, strict=True):
        assert (a.actual, a.ev_adjusted) == (b.actual, b.ev_adjusted)
        assert a.aivat is None
        assert b.aivat is not None
    again = play_match(
        agents,
        [0, 1, 0, 1],
        MatchConfig(hands=400, seats=4, seed=2, tables=64, variance_reduction=True),
    )
    assert [a.aivat for a in again.agents] == [b.aivat for b in reduced.agents]


def test_cross_fitting_never_uses_a_units_own_result() -> None:
    """Changing the results of one fold leaves that fold's corrections unchanged."""
    rng = np.random.default_rng(0)
    parts = rng.normal(size=(400, len(FEATURES)))
    actual = parts @ rng.normal(size=len(FEATURES)) + rng.normal(size=400)
    before = cross_fitted(actual, parts)
    changed = actual.copy()
    changed[0::2] += rng.normal(size=200) * 50
    after = cross_fitted(changed, parts)
    assert after[0::2] == pytest.approx(before[0::2])
    assert not np.allclose(after[1::2], before[1::2])
    few = cross_fitted(actual[:20], parts[:20])  # too few units: the plain weights
    assert few == pytest.approx(parts[:20, : len(KINDS)].sum(axis=1))
