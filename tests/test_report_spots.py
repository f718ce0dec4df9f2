"""Preflop spots: the hero is reached at every combo and agents' shares are read right."""

from __future__ import annotations

import numpy as np
import pytest

from poolshark.agents.bots import CallingStation, StyleAgent, TightAggressive
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS
from poolshark.engine.kernel import BET, STACK
from poolshark.pool.style import load_style
from poolshark.report.spots import Spot, action_shares, spot_decisions


def test_spot_reaches_the_hero_with_every_combo() -> None:
    decisions = spot_decisions(Spot("BTN", opener="CO"))
    assert decisions.size == N_COMBOS
    hole = np.sort(decisions.hole_cards, axis=1)
    assert np.array_equal(hole, np.sort(COMBO_CARDS, axis=1))
    tables = decisions.tables
    assert np.all(decisions.batch.seat[tables, BET, 5] == 5)  # the cutoff opened to 2.5 bb
    assert np.all(decisions.batch.seat[tables, STACK, 0] == 200)
    assert np.all(decisions.call == 5)


def test_bad_spots_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown seat"):
        Spot("HJ")
    with pytest.raises(ValueError, match="acts after"):
        Spot("UTG", opener="CO")


def test_shares_of_simple_and_style_agents() -> None:
    decisions = spot_decisions(Spot("CO"))
    station = action_shares(CallingStation(), decisions)
    assert np.all(station[:, 1] == 1.0)
    nit = action_shares(StyleAgent([load_style("nit")]), decisions)
    np.testing.assert_allclose(nit.sum(axis=1), 1.0)
    aces = np.flatnonzero((COMBO_CARDS // 4 == 12).all(axis=1))
    ranks = np.sort(COMBO_CARDS // 4, axis=1)
    seven_deuce = np.flatnonzero((ranks[:, 0] == 0) & (ranks[:, 1] == 5))
    assert nit[aces, 2].min() > 0.9  # a nit opens aces from the cutoff
    assert nit[seven_deuce, 0].min() > 0.9  # and folds seven-deuce
    tag = action_shares(TightAggressive(), decisions)
    assert set(np.unique(tag)) <= {0.0, 1.0}
    assert tag[aces, 2].min() == 1.0
