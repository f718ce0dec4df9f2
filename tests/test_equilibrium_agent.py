"""EquilibriumAgent: engine action logs to abstract histories, bucket sequences, and full
heads-up fixed-limit matches played with stand-in strategies."""

from __future__ import annotations

import numpy as np
import pytest

from poolshark.agents.bots import CallingStation
from poolshark.agents.equilibrium import EquilibriumAgent, history_of, tree_node
from poolshark.agents.protocol import AgentError, Decisions, Moves
from poolshark.engine.kernel import BUTTON, CHECK_CALL, RAISE
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.solve.bucket_features import BOARD_CARDS
from poolshark.solve.card_abstraction import CardAbstraction, fit_abstraction
from poolshark.solve.limit_game import LimitGameError

BTN, BB = 0, 1
C, R = CHECK_CALL, RAISE


class UniformTreeStrategy:
    """A stand-in for a solved strategy: uniform over the tree's actions at each history,
    recording every question asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, int]] = []

    def probabilities(self, history: str, sequence: int) -> np.ndarray:
        self.asked.append((history, sequence))
        _, may_fold, may_raise = tree_node(history)
        return np.array([may_fold, 1.0, may_raise], dtype=np.float64)


class FixedStrategy:
    """Always the same (fold, call, raise) probabilities."""

    def __init__(self, probabilities: tuple[float, float, float]) -> None:
        self.values = np.array(probabilities)

    def probabilities(self, history: str, sequence: int) -> np.ndarray:
        return self.values


class AlwaysRaise:
    """Raises whenever the engine allows (to test raises past the abstract cap)."""

    def act(self, decisions: Decisions) -> Moves:
        can = decisions.min_raise_to >= 0
        return Moves(np.where(can, RAISE, CHECK_CALL), np.where(can, decisions.min_raise_to, 0))


@pytest.fixture(scope="module")
def abstraction() -> CardAbstraction:
    return fit_abstraction((3, 3, 3, 3), hands=600, samples=24, preflop_samples=400, seed=1)


@pytest.mark.parametrize(
    ("log", "street", "history"),
    [
        ([], 0, ""),
        ([(BTN, C, 1, 0)], 0, "c"),
        ([(BTN, C, 1, 0), (BB, C, 0, 0)], 1, "cc/"),
        ([(BTN, C, 1, 0), (BB, R, 4, 0)], 0, "cr"),
        ([(BTN, R, 4, 0), (BB, R, 6, 0), (BTN, R, 8, 0)], 0, "rrr"),
        ([(BTN, R, 4, 0), (BB, R, 6, 0), (BTN, R, 8, 0), (BB, C, 4, 0)], 1, "rrrc/"),
        ([(BTN, R, 4, 0), (BB, C, 2, 0), (BB, C, 0, 1), (BTN, C, 0, 1)], 2, "rc/cc/"),
        (
            [(BTN, C, 1, 0), (BB, C, 0, 0), (BB, R, 2, 1), (BTN, R, 4, 1), (BB, C, 2, 1)],
            2,
            "cc/rrc/",
        ),
        (
            [
                *[(BTN, R, 4, 0), (BB, C, 2, 0)],
                *[(BB, R, 2, 1), (BTN, R, 4, 1), (BB, R, 6, 1), (BTN, R, 8, 1), (BB, C, 2, 1)],
                *[(BB, C, 0, 2), (BTN, R, 4, 2), (BB, C, 4, 2), (BB, R, 4, 3)],
            ],
            3,
            "rc/rrrrc/crc/r",
        ),
    ],
)
def test_action_logs_map_to_histories(
    log: list[tuple[int, int, int, int]], street: int, history: str
) -> None:
    assert history_of(log, street) == history


def test_raises_past_the_cap_toggle_the_leading_check() -> None:
    """An uncapped engine's fifth bet: the capped state with the other player to act."""
    flop = [(BTN, C, 1, 0), (BB, C, 0, 0)]
    bets = [(BB, R, 2, 1), (BTN, R, 4, 1), (BB, R, 6, 1), (BTN, R, 8, 1)]
    assert history_of(flop + bets, 1) == "cc/rrrr"
    assert tree_node("cc/rrrr") == (1, True, False)  # BTN made the fourth bet: BB acts
    assert history_of([*flop, *bets, (BB, R, 10, 1)], 1) == "cc/crrrr"
    assert tree_node("cc/crrrr") == (0, True, False)  # BB's fifth bet: BTN faces the cap
    assert history_of([*flop, *bets, (BB, R, 10, 1), (BTN, R, 12, 1)], 1) == "cc/rrrr"
    preflop = [(BTN, R, 4, 0), (BB, R, 6, 0), (BTN, R, 8, 0), (BB, R, 10, 0)]
    assert history_of(preflop, 0) == "crrr"
    assert tree_node("crrr") == (0, True, False)


@pytest.mark.parametrize(
    ("history", "node"),
    [
        ("", (0, True, True)),
        ("c", (1, False, True)),
        ("cr", (0, True, True)),
        ("rrr", (1, True, False)),
        ("cc/", (1, False, True)),
        ("cc/c", (0, False, True)),
        ("rc/r", (0, True, True)),
        ("rc/cc/cc/crrrr", (0, True, False)),
    ],
)
def test_tree_nodes(history: str, node: tuple[int, bool, bool]) -> None:
    assert tree_node(history) == node


@pytest.mark.parametrize(
    "history", ["f", "rrrr", "c/", "cc/cc/cc/cc/", "cc/rrrrr", "cr/", "cc/rcr"]
)
def test_tree_rejects_histories_off_the_tree(history: str) -> None:
    with pytest.raises(AgentError):
        tree_node(history)


def test_the_tree_has_holdems_decision_counts() -> None:
    """Walking :func:`tree_node`'s actions from the root reaches the 8, 70, 630 and 5,670
    decisions per round of heads-up limit hold'em (6,378 in all)."""
    counts = [0, 0, 0, 0]
    pending = [""]
    while pending:
        history = pending.pop()
        _, may_fold, may_raise = tree_node(history)
        rounds = history.count("/")
        counts[rounds] += 1
        opened = history.rsplit("/", 1)[-1]
        if may_raise:
            pending.append(history + "r")
        if not opened:
            pending.append(history + "c")  # the first action of a round never closes it
        elif rounds < 3:
            pending.append(history + "c/")
        assert may_fold == history.endswith("r") or history == ""
    assert counts == [8, 70, 630, 5670]


def test_history_rejects_bad_logs() -> None:
    with pytest.raises(AgentError, match="street 2"):
        history_of([(BTN, C, 1, 2)], 1)
    with pytest.raises(AgentError, match="unknown move"):
        history_of([(BTN, 7, 1, 0)], 0)


class CheckedAgent(EquilibriumAgent):
    """Checks each decision against an independent computation: the tree has this player
    to act at the mapped history, and the sequence folds this player's own buckets."""

    checked = 0

    def row_probabilities(self, decisions: Decisions, row: int, sequence: int) -> np.ndarray:
        table, seat = int(decisions.tables[row]), int(decisions.seats[row])
        street = int(decisions.street[row])
        history = history_of(decisions.batch.actions(table), street)
        player = 0 if seat == int(decisions.batch.table[table, BUTTON]) else 1
        assert tree_node(history)[0] == player
        assert history.count("/") == street
        hole = decisions.hole_cards[row].tolist()
        board = [c for c in decisions.board[row].tolist() if c >= 0]
        assert len(board) == BOARD_CARDS[street]
        expected = 0
        for s in range(street + 1):
            bucket = self.abstraction.bucket(s, hole, board[: BOARD_CARDS[s]])
            expected = expected * self.abstraction.buckets[s] + bucket
        assert sequence == expected
        CheckedAgent.checked += 1
        return super().row_probabilities(decisions, row, sequence)


def _limit_match(hands: int, seed: int, *, cap: bool = True) -> MatchConfig:
    return MatchConfig(
        seats=2, betting="fixed-limit", hands=hands, tables=16, seed=seed, cap_heads_up=cap
    )


def test_full_match_against_itself(abstraction: CardAbstraction) -> None:
    """Raise wars to the cap on every street; chips conserved; never coerced or off-tree."""
    strategies = UniformTreeStrategy(), UniformTreeStrategy()
    agents = [CheckedAgent(abstraction, s) for s in strategies]
    result = play_match(agents, [0, 1], _limit_match(120, seed=3))
    assert sum(a.won_chips for a in result.agents) == 0
    assert all(a.coerced == 0 for a in result.agents)
    assert all(agent.off_tree == 0 for agent in agents)
    asked = [h for s in strategies for h, _ in s.asked]
    assert CheckedAgent.checked == len(asked) > 300
    assert any(h.endswith("rrr") and "/" not in h for h in asked)  # preflop capped
    assert any(h.endswith("/crrrr") or h.endswith("/rrrr") for h in asked)  # postflop cap
    assert any(h.count("/") == 3 for h in asked)  # river decisions
    both = CheckedAgent(abstraction, UniformTreeStrategy())  # one object in both seats
    mirror = play_match([both], [0, 0], _limit_match(40, seed=4))
    assert mirror.agents[0].won_chips == 0
    assert mirror.agents[0].coerced == both.off_tree == 0


def test_match_against_a_station_and_a_maniac(abstraction: CardAbstraction) -> None:
    """Against a calling station and (uncapped) an always-raise bot: no coerced action,
    the over-cap raises mapped to decisions of the tree."""
    agent = CheckedAgent(abstraction, UniformTreeStrategy())
    station = play_match([agent, CallingStation()], [0, 1], _limit_match(60, seed=5))
    assert sum(a.won_chips for a in station.agents) == 0
    assert station.agents[0].coerced == 0
    maniac = play_match([agent, AlwaysRaise()], [0, 1], _limit_match(60, seed=6, cap=False))
    assert sum(a.won_chips for a in maniac.agents) == 0
    assert maniac.agents[0].coerced == 0
    assert agent.off_tree == 0


def test_same_seed_same_match(abstraction: CardAbstraction) -> None:
    runs = [
        play_match(
            [EquilibriumAgent(abstraction, UniformTreeStrategy()), CallingStation()],
            [0, 1],
            _limit_match(40, seed=8),
        )
        for _ in range(2)
    ]
    assert runs[0].agents[0].won_chips == runs[1].agents[0].won_chips


def test_a_folding_strategy_folds_only_when_facing_a_bet(abstraction: CardAbstraction) -> None:
    """All weight on fold: folds to a bet; when checking is free it checks instead (the
    engine would otherwise coerce the free fold)."""
    folder = EquilibriumAgent(abstraction, FixedStrategy((1.0, 0.0, 0.0)))
    result = play_match([folder, CallingStation()], [0, 1], _limit_match(40, seed=2))
    assert result.agents[0].coerced == 0
    # The folder loses the small blind as the button and checks its big blind through.
    assert result.agents[0].won_chips < 0
    assert result.agents[0].vpip == 0.0


def test_unknown_histories_check_or_call(abstraction: CardAbstraction) -> None:
    class Unknown:
        def probabilities(self, history: str, sequence: int) -> np.ndarray:
            raise KeyError(history)

    agent = EquilibriumAgent(abstraction, Unknown())
    result = play_match([agent, CallingStation()], [0, 1], _limit_match(20, seed=1))
    assert result.agents[0].coerced == 0
    assert agent.off_tree == result.agents[0].decisions > 0


def test_bad_strategy_answers_are_named(abstraction: CardAbstraction) -> None:
    agent = EquilibriumAgent(abstraction, FixedStrategy((0.5, -0.1, 0.6)))
    with pytest.raises(AgentError, match="non-negative"):
        play_match([agent, CallingStation()], [0, 1], _limit_match(4, seed=1))


def test_strategy_errors_are_raised_with_the_history(abstraction: CardAbstraction) -> None:
    class Refusing:
        def probabilities(self, history: str, sequence: int) -> np.ndarray:
            raise LimitGameError(f"sequence {sequence} is not in 0..0")

    agent = EquilibriumAgent(abstraction, Refusing())
    with pytest.raises(AgentError, match="refused history ''"):
        play_match([agent, CallingStation()], [0, 1], _limit_match(4, seed=1))


def test_a_strategy_of_another_game_is_refused(abstraction: CardAbstraction) -> None:
    class Named(UniformTreeStrategy):
        game_name = "holdem-5-5-5-5"

    assert abstraction.game_name == "holdem-3-3-3-3"
    with pytest.raises(AgentError, match="holdem-5-5-5-5"):
        EquilibriumAgent(abstraction, Named())


def test_more_than_two_seats_is_refused(abstraction: CardAbstraction) -> None:
    agent = EquilibriumAgent(abstraction, UniformTreeStrategy())
    config = MatchConfig(seats=3, betting="fixed-limit", hands=3, tables=1)
    with pytest.raises(AgentError, match="heads-up only"):
        play_match([agent, CallingStation()], [0, 1, 1], config)
