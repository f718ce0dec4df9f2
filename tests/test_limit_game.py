"""Limit games as betting + chance models, and fixed-limit matches on the engine."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from poolshark.agents.bots import CallingStation, RandomAgent
from poolshark.agents.protocol import CHECK_CALL, FOLD, RAISE, Agent, Decisions, Moves
from poolshark.engine.config import Betting
from poolshark.engine.kernel import PREFLOP
from poolshark.evaluate.match import (
    FinishedHands,
    HudStats,
    MatchConfig,
    MatchError,
    MatchResult,
    play_match,
)
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
    config = MatchConfig(hands=400, seats=2, betting=Betting.FIXED_LIMIT, seed=3, tables=64)
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
    config = MatchConfig(hands=600, seats=2, betting=Betting.FIXED_LIMIT, seed=5, tables=32)
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


# -- the thesis's HUD statistics (seed 003, section 5.3) on scripted heads-up play -------------


class _Raiser:
    """Bets or raises at every decision."""

    def act(self, decisions: Decisions) -> Moves:
        """Raise everywhere."""
        return Moves(np.full(decisions.size, RAISE, dtype=np.int64), decisions.min_raise_to)


class _CallsThenFolds:
    """Calls anything before the flop; after it, checks and folds to any bet."""

    def act(self, decisions: Decisions) -> Moves:
        """Fold facing a postflop bet, else check or call."""
        facing_bet = (decisions.street > PREFLOP) & (decisions.call > 0)
        return Moves(np.where(facing_bet, FOLD, CHECK_CALL).astype(np.int64))


class _PreflopRaiser:
    """Raises before the flop; after it, checks and calls."""

    def act(self, decisions: Decisions) -> Moves:
        """Raise preflop, else check or call."""
        move = np.where(decisions.street == PREFLOP, RAISE, CHECK_CALL).astype(np.int64)
        return Moves(move, decisions.min_raise_to)


class _PostflopBettor:
    """Checks and calls before the flop; after it, bets when nothing is to call, else calls."""

    def act(self, decisions: Decisions) -> Moves:
        """Bet into an unbet postflop round, else check or call."""
        open_round = (decisions.street > PREFLOP) & (decisions.call == 0)
        move = np.where(open_round, RAISE, CHECK_CALL).astype(np.int64)
        return Moves(move, decisions.min_raise_to)


class _Folds:
    """Folds every decision (the engine checks where folding is free)."""

    def act(self, decisions: Decisions) -> Moves:
        """Fold everywhere."""
        return Moves(np.full(decisions.size, FOLD, dtype=np.int64))


def _heads_up(
    agents: list[Agent], observer: Callable[[FinishedHands], None] | None = None
) -> tuple[MatchResult, HudStats, HudStats]:
    """A heads-up fixed-limit match of ``agents`` (each in both blinds equally often)."""
    config = MatchConfig(hands=256, seats=2, betting=Betting.FIXED_LIMIT, seed=11, tables=32)
    result = play_match(agents, (0, 1), config, observer=observer)
    first, second = (agent.hud for agent in result.agents)
    assert first is not None
    assert second is not None
    return result, first, second


def test_thesis_fold_share_counts_folds_after_voluntary_chips() -> None:
    """A caller who folds to any postflop bet, against a player who raises everything: it
    calls every preflop raise (VP$IP 1) and folds every deal on the flop (Fold% 1); the
    raiser wins every voluntary deal without a showdown. The caller's AF is 0 (three calls
    a pair of deals, none after the flop); the raiser never calls (AF None)."""
    result, caller, raiser = _heads_up([_CallsThenFolds(), _Raiser()])
    assert [agent.vpip for agent in result.agents] == [1.0, 1.0]
    assert caller.voluntary_folded == 1.0
    assert caller.voluntary_won_without_showdown == 0.0
    assert caller.voluntary_went_to_showdown == 0.0
    assert caller.aggression_all_streets == 0.0
    assert caller.aggression is None
    assert raiser.voluntary_won_without_showdown == 1.0
    assert raiser.voluntary_folded == 0.0
    assert raiser.aggression_all_streets is None


def test_thesis_aggression_counts_preflop_raises_and_calls() -> None:
    """Preflop raiser (then check-call) against a postflop bettor (check-call preflop): per
    pair of deals the raiser raises twice and calls six times (AF 1/3 on all streets, 0
    after the flop); the bettor bets six times and calls three times, all preflop (AF 2 on
    all streets, None after the flop). Every deal is voluntary for both and reaches a
    showdown."""
    result, raiser, bettor = _heads_up([_PreflopRaiser(), _PostflopBettor()])
    assert raiser.aggression_all_streets == pytest.approx(1 / 3)
    assert raiser.aggression == 0.0
    assert bettor.aggression_all_streets == pytest.approx(2.0)
    assert bettor.aggression is None
    for agent in result.agents:
        assert agent.vpip == 1.0
        assert agent.hud is not None
        assert agent.hud.voluntary_went_to_showdown == 1.0
        assert agent.hud.voluntary_folded == 0.0
    assert raiser.won_at_showdown + bettor.won_at_showdown == pytest.approx(1.0)


def test_walks_in_the_big_blind_are_not_voluntary_deals() -> None:
    """Two players who fold every hand: each folds its small blind and takes a walk in the
    big blind. Half the seat-hands are won without a showdown, but no deal is voluntary, so
    the thesis's shares are None rather than a division by zero."""
    result, first, _ = _heads_up([_Folds(), _Folds()])
    for agent in result.agents:
        hud = agent.hud
        assert hud is not None
        assert agent.vpip == 0.0
        assert hud.folded == 0.5
        assert hud.won_without_showdown == 0.5
        assert hud.voluntary_folded is None
        assert hud.voluntary_won_without_showdown is None
        assert hud.voluntary_went_to_showdown is None
        assert hud.aggression_all_streets is None
    assert first.as_dict()["voluntary_folded"] is None


def test_a_station_s_walks_do_not_count_as_voluntary_wins() -> None:
    """A folder against a calling station: the station's walks in the big blind are half its
    seat-hands won without a showdown (the usual HUD figure), but its voluntary deals (the
    completed small blinds, checked down by the folder) all go to showdown: Ww/oSD 0."""
    result, folder, station = _heads_up([_Folds(), CallingStation()])
    assert result.agents[1].vpip == 0.5
    assert station.won_without_showdown == 0.5
    assert station.voluntary_won_without_showdown == 0.0
    assert station.voluntary_went_to_showdown == 1.0
    assert station.aggression_all_streets == 0.0  # the completions are calls
    assert station.aggression is None  # no postflop call: everything checks through
    assert folder.folded == 0.5
    assert folder.voluntary_folded is None


def test_split_pots_count_as_the_fraction_won_at_showdown() -> None:
    """Two calling stations reach a showdown every hand; W$SD counts a tied pot as half a
    win, as read from the hands' results (a tie is a net of zero heads-up)."""
    nets: list[np.ndarray] = []

    def observe(hands: FinishedHands) -> None:
        nets.append(hands.net[hands.owners == 0])

    _, first, _ = _heads_up([CallingStation(), CallingStation()], observe)
    net = np.concatenate(nets)
    ties = int((net == 0).sum())
    assert ties > 0
    expected = (int((net > 0).sum()) + ties / 2) / net.size
    assert first.won_at_showdown == pytest.approx(expected)
    assert first.voluntary_went_to_showdown == 1.0


def test_thesis_shares_partition_the_voluntary_deals() -> None:
    """Three random players: each voluntary deal ends in exactly one of a fold, a win
    without showdown or a showdown, so Fold% + Ww/oSD + the showdown share is 1, and each
    part (times VP$IP) is at most the same outcome's share of all seat-hands."""
    config = MatchConfig(hands=900, seats=3, betting=Betting.FIXED_LIMIT, seed=7, tables=64)
    result = play_match([RandomAgent(), RandomAgent(), RandomAgent()], (0, 1, 2), config)
    for agent in result.agents:
        hud = agent.hud
        assert hud is not None
        parts = (
            hud.voluntary_folded,
            hud.voluntary_won_without_showdown,
            hud.voluntary_went_to_showdown,
        )
        assert all(part is not None and 0 < part < 1 for part in parts)
        folded, won, showdown = (float(part or 0) for part in parts)
        assert folded + won + showdown == pytest.approx(1.0)
        assert folded * agent.vpip <= hud.folded + 1e-12
        assert won * agent.vpip <= hud.won_without_showdown + 1e-12
        assert showdown * agent.vpip <= hud.went_to_showdown + 1e-12
