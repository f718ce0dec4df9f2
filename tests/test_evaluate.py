"""Honest evaluation: the agent protocol, built-in agents, loading by spec, and matches
(zero-sum books, positions, duplicate deals, all-in EV, confidence intervals)."""

from __future__ import annotations

import sys
import textwrap
from collections import Counter, defaultdict
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolshark.agents import (
    AgentError,
    CallingStation,
    Decisions,
    MixtureAgent,
    Moves,
    Probabilities,
    RandomAgent,
    SeatView,
    SimpleAgent,
    StyleAgent,
    TightAggressive,
    load_agent,
)
from poolshark.agents.bots import hand_strengths
from poolshark.agents.protocol import engine_moves
from poolshark.cards.combos import COMBO_INDEX
from poolshark.engine.actions import ActionSet
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig, Settlement
from poolshark.engine.observation import PublicObservation
from poolshark.engine.runouts import AllInEV, all_in_before_river, sampled_net
from poolshark.engine.table import Move, Street, Table
from poolshark.evaluate import MatchConfig, MatchError, MatchResult, default_lineup, play_match
from poolshark.evaluate.match import rotation_period
from poolshark.pool.context import context_from_table
from poolshark.pool.play import play_hand
from poolshark.pool.pools import load_pool
from poolshark.pool.strength import postflop_strength
from poolshark.pool.style import action_probabilities, bank_of, load_style


def ev_chips(result: MatchResult) -> float:
    """Chips won by all agents under the EV-adjusted books."""
    big = result.config.big_blind
    return sum(
        a.ev_adjusted.bb_per_100 * a.hands / 100 * big for a in result.agents if a.ev_adjusted
    )


# -- the books ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", list(AllInEV))
def test_results_are_zero_sum_minus_the_rake(mode: AllInEV) -> None:
    """Every agent's chips (actual and EV-adjusted) add up to minus the rake."""
    agents = [TightAggressive(), RandomAgent(), CallingStation(), load_agent("maniac")]
    config = MatchConfig(
        hands=120 if mode is AllInEV.EXACT else 1200,
        seats=6,
        seed=4,
        rake_percent=5.0,
        rake_cap_bb=3.0,
        all_in_ev=mode,
        tables=64,
    )
    result = play_match(agents, [0, 1, 2, 3, 1, 3], config)
    assert result.rake_chips > 0
    assert sum(a.won_chips for a in result.agents) == -result.rake_chips
    if mode is AllInEV.OFF:
        assert all(a.ev_adjusted is None for a in result.agents)
    else:
        assert ev_chips(result) == pytest.approx(-result.rake_chips, abs=1e-6)
    assert sum(a.hands for a in result.agents) == 6 * result.table_hands
    assert result.table_hands >= 120
    assert result.table_hands % 6 == 0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=st.integers(2, 10),
    depth=st.sampled_from([1.0, 3.5, 20.0, 100.0, 400.0]),
    rake=st.sampled_from([0.0, 2.5, 10.0]),
    duplicate=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_books_balance_for_any_game(
    seats: int, depth: float, rake: float, duplicate: bool, seed: int
) -> None:
    """Short stacks (all-in on the blinds), deep stacks, rake, duplicate: books balance and
    every seat-hand is counted once."""
    agents = [RandomAgent(), CallingStation(), TightAggressive()]
    count = min(3, seats)
    config = MatchConfig(
        hands=40, seats=seats, depth_bb=depth, rake_percent=rake, duplicate=duplicate, seed=seed
    )
    result = play_match(agents[:count], default_lineup(count, seats), config)
    assert sum(a.won_chips for a in result.agents) == -result.rake_chips
    assert ev_chips(result) == pytest.approx(-result.rake_chips, abs=1e-6)
    assert sum(a.hands for a in result.agents) == seats * result.table_hands
    assert result.deals * result.replays == result.table_hands


def test_a_match_is_reproducible_from_its_seed() -> None:
    def run(seed: int) -> list[object]:
        agents = [RandomAgent(), load_agent("pool:micro-zoom")]
        result = play_match(agents, default_lineup(2, 6), MatchConfig(hands=600, seed=seed))
        return [a.as_dict() | {"agent_seconds": 0} for a in result.agents]

    assert run(5) == run(5)
    assert run(5) != run(6)


# -- estimates ---------------------------------------------------------------------------------


def test_an_agent_against_itself_is_zero_within_its_interval() -> None:
    """Two copies of one style: each one's 95% interval holds 0 (no rake)."""
    agents = [load_agent("zoom-reg"), load_agent("zoom-reg")]
    result = play_match(agents, default_lineup(2, 6), MatchConfig(hands=3000, seed=11))
    for agent in result.agents:
        low, high = agent.actual.interval
        assert low < 0 < high
        assert agent.ev_adjusted is not None
        low, high = agent.ev_adjusted.interval
        assert low < 0 < high
    assert [a.name for a in result.agents] == ["StyleAgent", "StyleAgent#2"]


@pytest.mark.parametrize("opponent", ["random", "station"])
def test_the_tag_bot_beats_random_and_calling_station(opponent: str) -> None:
    """Heads-up, 2,000 hands: the whole 95% interval is above zero."""
    agents = [load_agent("tag"), load_agent(opponent)]
    result = play_match(agents, [0, 1], MatchConfig(hands=2000, seats=2, seed=3))
    tag = result.agents[0]
    assert tag.actual.interval[0] > 0
    assert tag.ev_adjusted is not None
    assert tag.ev_adjusted.interval[0] > 0


def test_duplicate_deals_narrow_the_interval_of_a_lopsided_match() -> None:
    """A regular against a calling-station style heads-up: on the same number of
    table-hands, duplicate deals give a standard error at least 20% smaller."""
    agents = [load_agent("zoom-reg"), load_agent("style:station")]
    for seed in (1, 2):
        plain = play_match(agents, [0, 1], MatchConfig(hands=6000, seats=2, seed=seed))
        mirrored = play_match(
            agents, [0, 1], MatchConfig(hands=6000, seats=2, seed=seed, duplicate=True)
        )
        assert plain.table_hands == mirrored.table_hands
        assert mirrored.agents[0].actual.stderr < 0.8 * plain.agents[0].actual.stderr
        assert mirrored.agents[0].actual.interval[0] > 0


def test_the_ev_adjustment_keeps_the_mean_and_cuts_the_noise_of_all_ins() -> None:
    """Random agents go all-in often: the adjusted interval is much narrower, and the
    sampled and exact adjustments agree (same hands: the dealt results are identical)."""
    agents = [TightAggressive(), RandomAgent()]
    sampled = play_match(agents, [0, 1], MatchConfig(hands=400, seats=2, seed=8, tables=64))
    exact = play_match(
        agents, [0, 1], MatchConfig(hands=400, seats=2, seed=8, tables=64, all_in_ev="exact")
    )
    for s, e in zip(sampled.agents, exact.agents, strict=True):
        assert s.won_chips == e.won_chips
        assert s.ev_adjusted is not None
        assert e.ev_adjusted is not None
        assert s.ev_adjusted.bb_per_100 == pytest.approx(e.ev_adjusted.bb_per_100, abs=5.0)
        assert e.ev_adjusted.stderr < 0.8 * e.actual.stderr


def test_sampled_runouts_match_the_engines_exact_expectation() -> None:
    """Everyone shoves: 2, 3 and 6 seats, rake; the mean over 4,000 runouts per table is
    within 5 standard errors of the engine's exact EV settlement."""
    for seats in (2, 3, 6):
        config = GameConfig(seats=seats, settlement=Settlement.EXPECTED_VALUE, rake_percent=5)
        batch = BatchedTables(config, 8, seed=seats)
        batch.reset(stacks=np.random.default_rng(seats).integers(20, 400, size=(8, seats)))
        while not batch.done.all():
            legal = batch.legal()
            batch.step(np.where(legal.can_raise, 2, 1), legal.max_raise_to)
        tables = np.arange(8)
        assert all_in_before_river(batch, tables).all()
        runouts = 4000
        estimate = sampled_net(batch, tables, runouts, np.random.default_rng(0))
        pot = batch.seat[:, 3].sum(axis=1, keepdims=True)  # TOTAL: every chip put in
        tolerance = 5 * pot / np.sqrt(runouts)
        assert (np.abs(estimate - batch.expected_net) <= tolerance).all()
        assert estimate.sum(axis=1) == pytest.approx(-batch.table[:, 7], abs=1e-6)  # RAKE


def runouts_reference(
    batch: BatchedTables, tables: np.ndarray, runouts: int, seed: int
) -> np.ndarray:
    """``sampled_net`` the readable way: each runout's board drawn from the same stream,
    then the engine's own ``settle`` on a copy of the table with that board."""
    from poolshark.cards.evaluator import tables as evaluator_tables
    from poolshark.engine.batched import random_below
    from poolshark.engine.kernel import (
        END_STREET,
        NET,
        SETTLING,
        STACK,
        START,
        STREET,
        TOTAL,
        Evaluator,
        settle,
    )

    n = batch.config.seats
    stream = np.random.default_rng(seed).integers(1, 2**63, size=1, dtype=np.uint64) | 1
    rules = batch.rules._replace(expected_value=0)
    out = np.zeros((tables.size, n))
    for k, i in enumerate(tables):
        end = int(batch.table[i, END_STREET])
        known = 0 if end == 0 else end + 2
        dealt = [c for c in range(n) if batch.seat[i, START, c] > 0]
        used = {int(batch.cards[i, 2 * s + j]) for s in dealt for j in (0, 1)}
        used |= {int(card) for card in batch.cards[i, 2 * n : 2 * n + known]}
        deck = np.array([card for card in range(52) if card not in used], dtype=np.int64)
        for _ in range(runouts):
            cards = batch.cards[i].copy()
            for d in range(5 - known):
                j = d + random_below(stream, 0, deck.size - d)
                deck[d], deck[j] = deck[j], deck[d]
                cards[2 * n + known + d] = deck[d]
            seat, table = batch.seat[i].copy(), batch.table[i].copy()
            seat[STACK] = seat[START] - seat[TOTAL]
            seat[NET] = 0
            table[STREET] = SETTLING
            settle(rules, seat, table, cards, np.zeros(n), Evaluator(*evaluator_tables()))
            out[k] += seat[NET]
    return out / runouts


def test_sampled_runouts_are_the_engines_settlement_of_each_drawn_board() -> None:
    """The compiled runouts (pots laid once per table) equal the engine's ``settle`` run on
    every drawn board, exactly: all-ins on every street before the river, side pots
    (uneven stacks), rake and odd chips (an odd big blind), 2 to 6 seats."""
    from poolshark.engine.kernel import STREET

    for seats in (2, 3, 6):
        config = GameConfig(seats=seats, small_blind=1, big_blind=3, rake_percent=5)
        batch = BatchedTables(config, 12, seed=10 + seats)
        batch.reset(stacks=np.random.default_rng(seats).integers(20, 400, size=(12, seats)))
        shove_on = np.arange(12) % 3  # preflop, flop or turn
        while not batch.done.all():
            legal = batch.legal()
            shove = legal.can_raise & (batch.table[:, STREET] >= shove_on)
            batch.step(np.where(shove, 2, 1), legal.max_raise_to)
        tables = np.flatnonzero(all_in_before_river(batch, np.arange(12)))
        assert tables.size >= 8
        estimate = sampled_net(batch, tables, 7, np.random.default_rng(seats))
        np.testing.assert_array_equal(estimate, runouts_reference(batch, tables, 7, seats))


# -- seating and duplicate deals ---------------------------------------------------------------


class Recorder(CallingStation):
    """A calling station that notes every decision: (hand id, table, seat, hole cards)."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int, int, tuple[int, int]]] = []

    def act(self, decisions: Decisions) -> Moves:
        for i in range(decisions.size):
            hole = decisions.hole_cards[i]
            self.seen.append(
                (
                    int(decisions.hand_ids[i]),
                    int(decisions.tables[i]),
                    int(decisions.seats[i]),
                    (int(hole[0]), int(hole[1])),
                )
            )
        return super().act(decisions)


def test_each_agent_plays_every_position_equally() -> None:
    """Two calling stations heads-up (both act every hand): each sits on the button in
    exactly half of the hands; three agents at six seats: each seat twice per rotation."""
    first, second = Recorder(), Recorder()
    config = MatchConfig(hands=400, seats=2, tables=32)
    result = play_match([first, second], [0, 1], config)
    for recorder in (first, second):
        counts = Counter(s for _, s in {(h, s) for h, _, s, _ in recorder.seen})
        assert counts[0] == counts[1] == result.table_hands // 2
    agents = [Recorder(), Recorder(), Recorder()]
    play_match(agents, default_lineup(3, 6), MatchConfig(hands=600, seats=6, tables=10))
    for recorder in agents:
        counts = Counter(s for _, s in {(h, s) for h, _, s, _ in recorder.seen})
        assert sorted(counts) == list(range(6))
        assert max(counts.values()) - min(counts.values()) <= 0.02 * sum(counts.values())


def test_duplicate_replays_give_every_agent_each_seats_cards() -> None:
    """Heads-up duplicate: each deal is played twice, the cards of seat s going to the
    other agent the second time."""
    first, second = Recorder(), Recorder()
    result = play_match(
        [first, second], [0, 1], MatchConfig(hands=200, seats=2, tables=20, duplicate=True)
    )
    assert result.replays == 2
    assert result.deals == 100
    by_hand: dict[int, dict[int, tuple[int, int]]] = defaultdict(dict)
    owner: dict[tuple[int, int], int] = {}
    for agent, recorder in enumerate((first, second)):
        for hand, _, seat, hole in recorder.seen:
            by_hand[hand][seat] = hole
            owner[hand, seat] = agent
    hands = sorted(by_hand)
    table_of = {h: t for recorder in (first, second) for h, t, _, _ in recorder.seen}
    pairs = 0
    for table in set(table_of.values()):
        mine = [h for h in hands if table_of[h] == table]
        for a, b in zip(mine[::2], mine[1::2], strict=True):
            assert by_hand[a] == by_hand[b]  # same cards in each seat
            assert owner[a, 0] != owner[b, 0]  # with the agents swapped
            pairs += 1
    assert pairs == 100


def test_lineups_and_periods() -> None:
    assert default_lineup(2, 6) == (0, 1, 0, 1, 0, 1)
    assert default_lineup(3, 6, against=True) == (0, 1, 2, 2, 2, 2)
    assert rotation_period([0, 1, 0, 1, 0, 1]) == 2
    assert rotation_period([0, 1, 1, 1, 1, 1]) == 6
    assert rotation_period([0, 0, 0]) == 1
    with pytest.raises(MatchError, match="do not fit"):
        default_lineup(7, 6)
    with pytest.raises(MatchError, match="a field"):
        default_lineup(7, 6, against=True)
    with pytest.raises(MatchError, match="no seat"):
        play_match([RandomAgent(), RandomAgent()], [0, 0], MatchConfig(hands=10, seats=2))
    with pytest.raises(MatchError, match="one agent per seat"):
        play_match([RandomAgent()], [0, 0, 0], MatchConfig(hands=10, seats=2))
    for bad, message in (
        ({"hands": 0}, "hands"),
        ({"seats": 11}, "seats"),
        ({"depth_bb": 0.1}, "depth"),
        ({"all_in_ev": "maybe"}, "all_in_ev"),
        ({"rake_percent": 101.0}, "bad game"),
        ({"runouts": 0}, "runouts"),
    ):
        with pytest.raises(MatchError, match=message):
            MatchConfig(**bad)  # type: ignore[arg-type]


# -- what agents see ---------------------------------------------------------------------------


class Inspector(RandomAgent):
    """Random play that checks each decision's views against the readable engine."""

    def __init__(self) -> None:
        super().__init__()
        self.checked = 0

    def act(self, decisions: Decisions) -> Probabilities:
        batch = decisions.batch
        encoder = PublicObservation(batch.config.seats)
        for i in range(min(decisions.size, 8)):
            t, seat = int(decisions.tables[i]), int(decisions.seats[i])
            table = Table(
                batch.config,
                [int(s) for s in batch.seat[t, 0]],  # START
                button=int(batch.table[t, 0]),
                hole_cards=batch.hole_cards[t].tolist(),
                board=batch.boards[t].tolist(),
            )
            for actor, move, amount, _ in batch.actions(t):
                assert table.to_act == actor
                table.act((Move.FOLD, Move.CHECK_CALL, Move.RAISE)[move], amount)
            assert table.to_act == seat
            np.testing.assert_array_equal(decisions.contexts[i], context_from_table(table))
            legal = table.legal()
            assert decisions.call[i] == legal.call
            assert decisions.min_raise_to[i] == (legal.min_raise_to or -1)
            assert decisions.max_raise_to[i] == (legal.max_raise_to or -1)
            shown = [c for c in decisions.board[i].tolist() if c >= 0]
            assert shown == table.board
            assert (decisions.board[i, len(shown) :] == -1).all()
            assert decisions.pot[i] == table.pot()
            assert decisions.stack[i] == table.stack[seat]
            view = decisions.view(i)
            assert view.board == tuple(table.board)
            assert list(view.hole_cards) == table.hole_cards[seat]
            np.testing.assert_array_equal(
                decisions.observations[i], encoder.encode(batch, np.array([t]), np.array([seat]))[0]
            )
            self.checked += 1
        return super().act(decisions)


def test_decisions_show_what_the_readable_engine_shows() -> None:
    inspector = Inspector()
    play_match(
        [inspector, load_agent("pool:soft")],
        [0, 1, 1, 1, 1],
        MatchConfig(hands=200, seats=5, tables=20, seed=2),
    )
    assert inspector.checked > 300


def test_hand_strengths_match_the_pool_reference() -> None:
    rng = np.random.default_rng(4)
    holes, boards, streets, expected = [], [], [], []
    for _ in range(60):
        cards = rng.permutation(52)[:7]
        street = int(rng.integers(1, 4))
        board = cards[2 : 4 + street].tolist()
        made, draw = postflop_strength(board)
        combo = COMBO_INDEX[cards[0], cards[1]]
        holes.append(cards[:2])
        boards.append(board + [-1] * (5 - len(board)))
        streets.append(street)
        expected.append((made[combo], draw[combo]))
    made, draw = hand_strengths(np.array(holes), np.array(boards), np.array(streets, float))
    np.testing.assert_allclose(np.stack([made, draw], axis=1), np.array(expected))


# -- agents ------------------------------------------------------------------------------------


HUD_SEATS = (0, 3)  # the style's seats; micro-zoom players in the others


def _reference_hud(name: str, hands: int, seed: int) -> tuple[float, float, int]:
    """(VPIP, PFR, seat-hands) of a style in HUD_SEATS of micro-zoom hands, played on the
    readable engine by ``pool.play.play_hand`` (the other seats: pool styles by frequency)."""
    pool = load_pool("micro-zoom")
    bank = bank_of([*pool.styles, load_style(name)])
    mine = len(pool.styles)
    rng = np.random.default_rng(seed)
    vpip = pfr = 0
    for _ in range(hands):
        drawn = rng.choice(mine, size=6, p=pool.style_frequencies())
        styles = [mine if s in HUD_SEATS else int(drawn[s]) for s in range(6)]
        table = Table(pool.config, [pool.stack] * 6, button=int(rng.integers(6)), seed=seed)
        seed += 1
        play_hand(table, bank, styles, rng)
        for seat in HUD_SEATS:
            acts = [a for a in table.log if a.street is Street.PREFLOP and a.seat == seat]
            vpip += any(a.move is Move.RAISE or a.amount > 0 for a in acts)
            pfr += any(a.move is Move.RAISE for a in acts)
    seats = len(HUD_SEATS) * hands
    return vpip / seats, pfr / seats, seats


@pytest.mark.parametrize("name", ["maniac", "nit", "zoom-reg"])
def test_the_style_agent_reproduces_its_styles_vpip_and_pfr(name: str) -> None:
    """The same seats, the same pool around it: the style agent's VPIP and PFR agree with
    the readable engine's within 4 standard errors."""
    agents = [load_agent(f"style:{name}"), load_agent("pool:micro-zoom")]
    lineup = [0 if s in HUD_SEATS else 1 for s in range(6)]
    agent = play_match(agents, lineup, MatchConfig(hands=6000, seed=9)).agents[0]
    vpip, pfr, seats = _reference_hud(name, 1000, seed=4)
    for measured, reference in ((agent.vpip, vpip), (agent.pfr, pfr)):
        error = np.sqrt(reference * (1 - reference) * (1 / seats + 1 / agent.hands))
        assert measured == pytest.approx(reference, abs=4 * error)


class StyleRecorder(StyleAgent):
    """A style agent that keeps (context, board, combo, move, amount) of its decisions."""

    def __init__(self, name: str) -> None:
        super().__init__([load_style(name)])
        self.records: list[tuple[np.ndarray, list[int], int, int, int]] = []

    def act(self, decisions: Decisions) -> Moves:
        answer = super().act(decisions)
        moves, amounts = np.asarray(answer.move), np.asarray(answer.amount)
        for i in range(min(decisions.size, 40)):
            hole = decisions.hole_cards[i]
            board = [int(c) for c in decisions.board[i] if c >= 0]
            combo = int(COMBO_INDEX[hole[0], hole[1]])
            self.records.append(
                (decisions.contexts[i], board, combo, int(moves[i]), int(amounts[i]))
            )
        return answer


@pytest.mark.parametrize("name", ["zoom-reg", "maniac"])
def test_style_agent_decisions_follow_the_readable_policy(name: str) -> None:
    """Every action the agent takes has positive probability under the numpy policy
    (``pool.style.action_probabilities``), and fold / call / raise counts match the summed
    probabilities within 4 standard deviations."""
    recorder = StyleRecorder(name)
    play_match(
        [recorder, load_agent("pool:micro-zoom")], [0, 1, 1, 1, 1, 1], MatchConfig(hands=600)
    )
    style = load_style(name)
    expected = np.zeros(3)
    variance = np.zeros(3)
    observed = np.zeros(3)
    for context, board, combo, move, amount in recorder.records[:800]:
        policy = action_probabilities(style, context, board, [combo])
        assert policy.of_action(move, amount)[0] > 0
        row = policy.probabilities[0]
        p = np.array([row[0], row[1], row[2:].sum()])
        expected += p
        variance += p * (1 - p)
        observed[move] += 1
    assert observed.sum() >= 500
    assert (np.abs(observed - expected) <= 4 * np.sqrt(variance) + 1e-9).all()


def test_a_pool_agent_plays_its_pools_mix() -> None:
    """The pool agent seats its styles by the pool's frequencies: its VPIP is the pool's
    (micro-zoom: 32.2% in docs/pool.md), within 2 points."""
    result = play_match([load_agent("pool:micro-zoom")], [0] * 6, MatchConfig(hands=3000, seed=1))
    assert 100 * result.agents[0].vpip == pytest.approx(32.2, abs=2.0)
    assert result.agents[0].won_chips == -result.rake_chips == 0


def test_random_agent_samples_its_probabilities() -> None:
    """Uniform over the legal abstract actions, then mapped to exact chips."""
    batch = BatchedTables(GameConfig(seats=6), 3000, seed=1)
    batch.reset(stacks=200, buttons=0)
    legal = batch.legal()
    decisions = Decisions(
        batch,
        np.arange(3000),
        legal.to_act.copy(),
        np.arange(3000),
        legal,
        np.random.default_rng(0),
    )
    moves, amounts = engine_moves(decisions, RandomAgent().act(decisions), "random")
    raised = np.where(moves == 2, amounts, 0)
    counts = Counter(zip(moves.tolist(), raised.tolist(), strict=True))
    # UTG facing the big blind: fold, call, raise to 4 (half pot), 7 (pot), 200 (all-in)
    assert set(counts) == {(0, 0), (1, 0), (2, 4), (2, 7), (2, 200)}
    for count in counts.values():
        assert count == pytest.approx(600, abs=4 * np.sqrt(3000 * 0.2 * 0.8))
    tilted = Probabilities(ActionSet(), np.tile([0.0, 0.25, 0.0, 0.0, 0.75], (3000, 1)))
    moves, amounts = engine_moves(decisions, tilted, "tilted")
    assert set(moves.tolist()) == {1, 2}
    assert (amounts[moves == 2] == 200).all()
    assert (moves == 1).mean() == pytest.approx(0.25, abs=0.03)


def test_bad_answers_name_the_agent() -> None:
    batch = BatchedTables(GameConfig(seats=3), 4, seed=1)
    batch.reset(stacks=200)
    legal = batch.legal()
    decisions = Decisions(
        batch, np.arange(4), legal.to_act.copy(), np.arange(4), legal, np.random.default_rng(0)
    )
    actions = ActionSet()
    cases: list[tuple[object, str]] = [
        (Probabilities(actions, np.ones((3, 5))), r"shape \(3, 5\)"),
        (Probabilities(actions, -np.ones((4, 5))), "non-negative"),
        (Probabilities(actions, np.full((4, 5), np.nan)), "finite"),
        (Moves(np.ones(3)), "one per decision"),
        (Moves(np.full(4, 5)), "0 fold, 1 check/call, 2 raise"),
        (Moves(np.full(4, 1.5)), "whole numbers"),
        ([1, 1, 1, 1], "answered a list"),
    ]
    for answer, message in cases:
        with pytest.raises(AgentError, match=f"'bot7'.*{message}|{message}"):
            engine_moves(decisions, answer, "bot7")  # type: ignore[arg-type]
    # the big blind cannot fold preflop when checking is free: all-fold rows are refused
    batch = BatchedTables(GameConfig(seats=2), 1, seed=1)
    batch.reset(stacks=200, buttons=0)
    batch.step([1])  # the button completes; the big blind may check
    legal = batch.legal()
    decisions = Decisions(
        batch, np.arange(1), legal.to_act.copy(), np.arange(1), legal, np.random.default_rng(0)
    )
    with pytest.raises(AgentError, match="no probability on a legal action at table 0"):
        engine_moves(decisions, Probabilities(actions, [[1.0, 0, 0, 0, 0]]), "folder")


class CheckOrFold(SimpleAgent):
    """The docs' minimal user bot: raise pocket pairs preflop, check or fold otherwise."""

    def decide(self, view: SeatView) -> tuple[int, int]:
        first, second = view.hole_cards
        if view.street == 0 and first // 4 == second // 4 and view.min_raise_to is not None:
            return 2, view.min_raise_to
        return (1, 0) if view.call == 0 else (0, 0)


def test_a_simple_agent_plays_a_match() -> None:
    result = play_match(
        [CheckOrFold(), CallingStation()], [0, 1], MatchConfig(hands=2000, seats=2, seed=1)
    )
    bot = result.agents[0]
    assert bot.coerced == 0
    assert bot.pfr == pytest.approx(78 / 1326, abs=0.015)  # pocket pairs
    assert bot.vpip == bot.pfr


# -- loading by spec ---------------------------------------------------------------------------


def test_built_in_specs_load() -> None:
    assert isinstance(load_agent("random"), RandomAgent)
    assert isinstance(load_agent("station"), CallingStation)
    assert isinstance(load_agent("tag"), TightAggressive)
    assert isinstance(load_agent("bot:tag"), TightAggressive)
    nit = load_agent("nit")
    assert isinstance(nit, StyleAgent)
    assert [s.name for s in nit.styles] == ["nit"]
    tag_style = load_agent("style:tag")
    assert isinstance(tag_style, StyleAgent)
    assert [s.name for s in tag_style.styles] == ["tag"]
    pool = load_agent("pool:soft")
    assert isinstance(pool, StyleAgent)
    np.testing.assert_allclose(
        pool.draws.weights, load_pool("soft").style_frequencies(), rtol=1e-12
    )


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A user package on the path: one good bot and a few broken ones."""
    package = tmp_path / "userbots"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bots.py").write_text(
        textwrap.dedent(
            """
            import numpy as np
            from poolshark.agents import Moves, SimpleAgent

            class Folder(SimpleAgent):
                def decide(self, view):
                    return (1, 0) if view.call == 0 else (0, 0)

            class NeedsArgs:
                def __init__(self, depth):
                    self.depth = depth
                def act(self, decisions):
                    return Moves(np.ones(decisions.size, dtype=np.int64))

            class NoAct:
                pass

            READY = Folder()
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "userbots", raising=False)
    monkeypatch.delitem(sys.modules, "userbots.bots", raising=False)
    return "userbots.bots"


def test_user_agents_load_from_module_specs(user_module: str) -> None:
    folder = load_agent(f"{user_module}:Folder")
    assert type(folder).__name__ == "Folder"
    assert type(load_agent(f"{user_module}:READY")).__name__ == "Folder"
    result = play_match([folder, TightAggressive()], [0, 1], MatchConfig(hands=100, seats=2))
    assert result.agents[0].vpip == 0.0
    for spec, message in (
        (f"{user_module}:NeedsArgs", "must take no arguments"),
        (f"{user_module}:NoAct", "has no act"),
        (f"{user_module}:Missing", "has no 'Missing'"),
        ("userbots.nothere:Bot", "cannot import 'userbots.nothere'"),
        ("no_such_package_xyz:Bot", "cannot import"),
        (":Bot", "package.module:Class"),
    ):
        with pytest.raises(AgentError, match=message):
            load_agent(spec)


def test_bad_specs_say_what_is_wrong(tmp_path: Path) -> None:
    for spec, message in (
        ("bogus", "unknown agent 'bogus': use random, station, folder, tag"),
        ("style:nope", "no shipped style 'nope'"),
        ("pool:nope", "no shipped pool 'nope'"),
        (str(tmp_path / "missing.toml"), "cannot read agent file"),
    ):
        with pytest.raises(AgentError, match=message):
            load_agent(spec)
    broken = tmp_path / "broken.toml"
    broken.write_text("mix = [")
    with pytest.raises(AgentError, match="not valid TOML"):
        load_agent(str(broken))
    weights = tmp_path / "weights.toml"
    weights.write_text('[mix]\nnit = -1\n"bot:tag" = 1\n')
    with pytest.raises(AgentError, match=r"mix\.nit"):
        load_agent(str(weights))
    unknown = tmp_path / "unknown.toml"
    unknown.write_text('[mix]\nnit = 1\n"martian" = 1\n')
    with pytest.raises(AgentError, match=r"mix\.martian: unknown agent 'martian'"):
        load_agent(str(unknown))
    style = tmp_path / "badstyle.toml"
    style.write_text('name = "x"\n')
    with pytest.raises(AgentError, match=r"badstyle\.toml"):
        load_agent(str(style))


def test_lineup_files_mix_styles_pools_and_agents(tmp_path: Path, user_module: str) -> None:
    """A lineup file: shipped styles, a style file beside it, a bot and a user agent."""
    (tmp_path / "mine.toml").write_text(_style_text("mine"))
    lineup = tmp_path / "lineup.toml"
    lineup.write_text(
        textwrap.dedent(
            f"""
            name = "mixed"
            [mix]
            zoom-reg = 0.3
            "mine.toml" = 0.2
            "bot:station" = 0.3
            "{user_module}:Folder" = 0.2
            """
        )
    )
    agent = load_agent(str(lineup))
    assert isinstance(agent, MixtureAgent)
    assert agent.names == ("bot:station", f"{user_module}:Folder", "styles")
    np.testing.assert_allclose(agent.draws.weights, [0.3, 0.2, 0.5])
    result = play_match([agent], [0] * 6, MatchConfig(hands=600, seed=3))
    assert result.agents[0].won_chips == 0
    assert 0.3 < result.agents[0].vpip < 0.6  # stations call everything, folders nothing
    pool_file = tmp_path / "pool.toml"
    pool_file.write_text('name = "p"\nplayers = 50\n[mix]\nnit = 1\n"mine.toml" = 1\n')
    pool_agent = load_agent(str(pool_file))
    assert isinstance(pool_agent, StyleAgent)
    assert [s.name for s in pool_agent.styles] == ["nit", "mine"]
    np.testing.assert_allclose(pool_agent.draws.weights, [0.5, 0.5])
    assert isinstance(load_agent(str(tmp_path / "mine.toml")), StyleAgent)


def _style_text(name: str) -> str:
    """The shipped nit style file under another name."""
    text = resources.files("poolshark.pool").joinpath("styles", "nit.toml").read_text()
    return text.replace('name = "nit"', f'name = "{name}"', 1)


class MinRaiser:
    """Min-raises whenever it may: deep stacks make an endless raising war."""

    def act(self, decisions: Decisions) -> Moves:
        can_raise = decisions.min_raise_to >= 0
        return Moves(np.where(can_raise, 2, 1), np.maximum(decisions.min_raise_to, 0))


def test_an_endless_raising_war_is_a_clear_error() -> None:
    config = MatchConfig(hands=4, seats=2, depth_bb=1000, tables=2)
    with pytest.raises(MatchError, match="kept re-raising"):
        play_match([MinRaiser(), MinRaiser()], [0, 1], config)
    short = play_match([MinRaiser(), MinRaiser()], [0, 1], MatchConfig(hands=40, seats=2))
    assert sum(a.won_chips for a in short.agents) == 0
