"""Limit games as betting + chance models, and fixed-limit matches on the engine."""

from __future__ import annotations

import numpy as np
import pytest

from poolshark.agents.bots import CallingStation, RandomAgent
from poolshark.evaluate.match import MatchConfig, MatchError, play_match
from poolshark.solve.limit_game import (
    ChanceModel,
    LimitBetting,
    LimitGameError,
    kuhn,
    leduc,
)


def test_leduc_chances_are_the_deck_s() -> None:
    """Round-0 pairs and round-1 boards follow from a six-card deck: a pocket pair is
    1/5 and pairing the board from any hand 1/4 or 2/4."""
    game = leduc()
    first, second = game.chance.joint
    assert first.sum() == pytest.approx(1.0)
    assert np.trace(first) == pytest.approx(3 / 15)
    jack_jack_board_jack = second[0, 0]
    assert jack_jack_board_jack == 0.0
    assert second[1, 4] == pytest.approx(first[0, 1] * 1 / 4)  # J vs Q, board Q


def test_kuhn_showdown_is_the_higher_card() -> None:
    showdown = kuhn().chance.showdown
    assert showdown[2, 0] == 1
    assert showdown[0, 2] == -1
    assert showdown[1, 1] == 0


def test_inconsistent_games_are_refused() -> None:
    with pytest.raises(LimitGameError, match="sum to 1"):
        ChanceModel(parent=(np.zeros(2, np.int64),), joint=(np.eye(2),), showdown=np.eye(2))
    with pytest.raises(LimitGameError, match="opening bets"):
        LimitBetting(
            bet_sizes=(2,), cap=1, contributions=(1, 2), first_to_act=(0,), opening_bets=(1,)
        )
    joint = leduc().chance.joint
    with pytest.raises(LimitGameError, match="does not sum"):
        ChanceModel(
            parent=(np.zeros(3, np.int64), np.zeros(9, np.int64)),
            joint=joint,
            showdown=np.zeros((9, 9)),
        )


def test_fixed_limit_match_conserves_chips_and_caps_raises() -> None:
    """Heads-up fixed-limit: no raise beyond four bets a round, chips sum to zero, and
    the win rate in small bets per hand is bb/100 over 100 (the small bet is the big blind)."""
    config = MatchConfig(hands=400, seats=2, betting="fixed-limit", seed=3, tables=64)
    result = play_match([RandomAgent(), CallingStation()], (0, 1), config)
    assert sum(agent.won_chips for agent in result.agents) == 0
    figures = result.as_dict()
    assert figures["betting"] == "fixed-limit"
    agents = figures["agents"]
    assert isinstance(agents, list)
    first = result.agents[0].actual
    assert agents[0]["sb_per_hand"]["mean"] == pytest.approx(first.bb_per_100 / 100)
    game = config.game()
    assert game.cap_heads_up
    assert game.bet_unit(0) == 2
    assert game.bet_unit(3) == 4
    worst = 4 * (2 + 2 + 4 + 4)  # four bets on every street
    assert abs(result.agents[0].won_chips) <= worst * result.table_hands


def test_unknown_betting_is_refused() -> None:
    with pytest.raises(MatchError, match="no-limit or fixed-limit"):
        MatchConfig(betting="pot-limit")  # type: ignore[arg-type]


def test_hud_statistics_add_up_between_two_players() -> None:
    """Heads-up, every hand ends in a fold or a showdown: one player's folds are the other's
    wins without showdown, and the showdown pots' shares sum to one."""
    config = MatchConfig(hands=600, seats=2, betting="fixed-limit", seed=5, tables=32)
    result = play_match([RandomAgent(), CallingStation()], (0, 1), config)
    rand, station = (agent.hud for agent in result.agents)
    assert rand is not None
    assert station is not None
    assert station.folded == 0.0
    assert station.won_without_showdown == pytest.approx(rand.folded)
    assert rand.went_to_showdown == pytest.approx(1 - rand.folded)
    assert rand.won_at_showdown + station.won_at_showdown == pytest.approx(1.0)
    assert station.aggression == 0.0  # calls, never bets
    assert rand.aggression is None  # a station never bets, so random never calls after the flop
