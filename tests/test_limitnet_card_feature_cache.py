"""The card feature cache serves the rows ``card_feature_batch`` computes, and a match of the
network player plays the same hands with it as without it."""

from __future__ import annotations

import numpy as np
import pytest

from poolshark.engine.config import Betting
from poolshark.evaluate.match import MatchConfig, MatchResult, play_match
from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.agent import LimitNetAgent
from poolshark.limitnet.card_feature_cache import CardFeatureCache
from poolshark.limitnet.card_features_compiled import card_feature_batch


def test_cached_rows_equal_the_computed_rows_through_hands_and_streets() -> None:
    """Decisions at random tables and seats, streets advancing and hands re-dealt (tables
    keep their cache slots, the cards change under them): every row as computed afresh."""
    rng = np.random.default_rng(7)
    tables, seats = 5, 3
    cache = CardFeatureCache()
    deals = [rng.permutation(52) for _ in range(tables)]
    street = np.zeros(tables, dtype=np.int64)
    served = 0
    for _ in range(60):
        for t in np.flatnonzero(rng.random(tables) < 0.2):  # a new hand at some tables
            deals[t], street[t] = rng.permutation(52), 0
        street = np.minimum(street + (rng.random(tables) < 0.3), 3)
        at = rng.integers(0, tables, 8)
        who = rng.integers(0, seats, 8)
        holes = np.stack([deals[t][2 * s : 2 * s + 2] for t, s in zip(at, who, strict=True)])
        boards = np.stack([deals[t][40:45] for t in at])
        shown = np.asarray((0, 3, 4, 5))[street[at]]
        got = cache.rows(at, who, holes, boards, shown, (tables, seats))
        want = card_feature_batch(holes, boards, shown)
        assert got.tolist() == want.tolist()
        served += int((shown > 0).sum())
    assert served > 100  # the flop, turn and river were reached often


def test_a_batch_of_another_shape_starts_the_cache_afresh() -> None:
    """The same table and seat indices in a smaller batch: rows of the new cards."""
    cache = CardFeatureCache()
    holes, boards, shown = np.asarray([[0, 1]]), np.asarray([[8, 12, 16, 20, 24]]), [3]
    cache.rows(np.asarray([1]), np.asarray([1]), holes, boards, np.asarray(shown), (4, 2))
    other = np.asarray([[44, 48]])
    got = cache.rows(np.asarray([1]), np.asarray([1]), other, boards, np.asarray(shown), (2, 2))
    assert got.tolist() == card_feature_batch(other, boards, shown).tolist()


def _match() -> MatchResult:
    """Two fresh network players alternating around a six-seat fixed-limit table."""
    players = [LimitNetAgent(ActionFunction(seed=seed)) for seed in (1, 2)]
    config = MatchConfig(hands=360, seats=6, seed=11, tables=60, betting=Betting.FIXED_LIMIT)
    return play_match(players, [0, 1, 0, 1, 0, 1], config)


def test_a_match_plays_the_same_hands_with_the_cache_as_without(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Fixed seeds: the same chips won, decisions and style with every row recomputed."""
    cached = _match()

    def uncached(self: CardFeatureCache, tables: object, seats: object, *cards: object) -> object:
        holes, boards, shown, _ = cards
        return card_feature_batch(holes, boards, shown)  # type: ignore[arg-type]

    monkeypatch.setattr(CardFeatureCache, "rows", uncached)
    plain = _match()
    for a, b in zip(cached.agents, plain.agents, strict=True):
        assert a.won_chips == b.won_chips
        assert a.decisions == b.decisions
        assert (a.vpip, a.pfr, a.hud) == (b.vpip, b.pfr, b.hud)
    assert cached.agents[0].won_chips != 0  # the players' results differ, so chips moved
