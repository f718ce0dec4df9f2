"""Local best response in heads-up limit hold'em: the range it reads, the options it values,
and its win rate against policies whose best answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from poolshark.agents.bots import CallingStation
from poolshark.agents.equilibrium import EquilibriumAgent
from poolshark.agents.protocol import SeatView
from poolshark.cards.card import parse_cards
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS
from poolshark.engine.kernel import CHECK_CALL, RAISE
from poolshark.evaluate.lbr import AbstractionPolicy, LocalBestResponse, local_best_response
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.solve.card_abstraction import fit_abstraction, holdem_game
from poolshark.solve.limit_cfr import solve


class FixedPolicy:
    """Every combo plays the same (fold, call, raise) everywhere."""

    def __init__(self, probabilities: tuple[float, float, float]) -> None:
        self.row = np.asarray(probabilities)

    def combo_policy(self, history: str, board: tuple[int, ...]) -> np.ndarray:
        return np.tile(self.row, (N_COMBOS, 1))


class AcesRaise:
    """Raises with aces only, calls otherwise."""

    def combo_policy(self, history: str, board: tuple[int, ...]) -> np.ndarray:
        aces = (COMBO_CARDS // 4 == 12).all(axis=1)
        policy = np.zeros((N_COMBOS, 3))
        policy[aces, 2] = 1.0
        policy[~aces, 1] = 1.0
        return policy


def view(hole: str, actions: tuple[tuple[int, int, int, int], ...], call: int) -> SeatView:
    """The big blind (seat 1) preflop after the button's move."""
    first, second = parse_cards(hole)
    return SeatView(
        seat=1,
        button=0,
        street=0,
        hole_cards=(first, second),
        board=(),
        pot=6 if call else 4,
        call=call,
        min_raise_to=6 if call else 4,
        max_raise_to=6 if call else 4,
        stacks=(196, 198),
        bets=(4 if call else 2, 2),
        folded=(False, False),
        big_blind=2,
        actions=actions,
        rng=np.random.default_rng(0),
    )


def test_the_range_keeps_only_hands_that_would_have_raised() -> None:
    lbr = LocalBestResponse(AcesRaise())
    weights = lbr.range_at(view("7c2d", ((0, RAISE, 4, 0),), call=2), table=0, hand_id=1)
    kept = np.flatnonzero(weights)
    assert kept.size == 6  # the six combos of aces
    assert (COMBO_CARDS[kept] // 4 == 12).all()


def test_raising_into_a_range_that_always_folds_is_best() -> None:
    lbr = LocalBestResponse(FixedPolicy((1.0, 0.0, 0.0)))
    limp = view("7c2d", ((0, CHECK_CALL, 1, 0),), call=0)
    assert lbr.choose(limp, lbr.range_at(limp, 0, 1)) == RAISE


def test_lbr_never_bluffs_a_station_and_beats_it() -> None:
    """Against a station (never folds) LBR raises only for value, and wins."""
    lbr = LocalBestResponse(FixedPolicy((0.0, 1.0, 0.0)))
    weak = view("7c2d", ((0, CHECK_CALL, 1, 0),), call=0)
    assert lbr.choose(weak, lbr.range_at(weak, 0, 1)) == CHECK_CALL
    config = MatchConfig(
        hands=600, seats=2, betting="fixed-limit", duplicate=True, seed=2, tables=64
    )
    result = play_match([lbr, CallingStation()], (0, 1), config)
    low, _ = result.agents[0].actual.interval
    assert low > 0


def test_lbr_reads_a_solved_abstraction() -> None:
    """The abstraction's policy is a distribution for every live combo and zero for combos
    the board holds; LBR plays a whole duplicate match against the agent."""
    abstraction = fit_abstraction((2, 2, 2, 2), hands=300, samples=50, preflop_samples=400)
    game = holdem_game(abstraction, 2000, 0)
    agent = EquilibriumAgent(abstraction, solve(game, 10).strategy)
    policy = AbstractionPolicy(agent)
    board = tuple(parse_cards("AhKd7c"))
    rows = policy.combo_policy("cc/", board)
    live = ~np.isin(COMBO_CARDS, board).any(axis=1)
    assert rows[live].sum(axis=1) == pytest.approx(np.ones(int(live.sum())))
    assert not rows[~live].any()
    result = local_best_response(agent, hands=60, seed=1, tables=16)
    assert result.hands >= 60
    low, high = result.ci95
    assert low <= result.small_bets_per_hand <= high
