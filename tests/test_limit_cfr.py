"""Limit betting trees, the fast vectorised CFR and the plain reference it is checked against."""

from __future__ import annotations

import json
from itertools import pairwise
from math import comb
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.solve.betting_tree import ACTIONS, NodeKind, build_tree
from poolshark.solve.cfr_reference import (
    reference_best_response_value,
    reference_exploitability,
    reference_game_value,
    reference_solve,
)
from poolshark.solve.limit_cfr import (
    LimitStrategy,
    best_response_value,
    exploitability,
    game_value,
    random_bucket_game,
    random_strategy,
    solve,
    uniform_strategy,
)
from poolshark.solve.limit_game import (
    HOLDEM_BETTING,
    KUHN_VALUE,
    LEDUC_VALUE,
    LimitBetting,
    LimitGame,
    LimitGameError,
    kuhn,
    leduc,
)

BLINDS_TWO_ROUNDS = LimitBetting(
    bet_sizes=(2, 4), cap=3, contributions=(1, 2), first_to_act=(0, 1), opening_bets=(1, 0)
)
"""Hold'em's preflop (blinds, the big blind as the first bet) and one more round, small
enough for the reference solver."""


def small_games() -> list[LimitGame]:
    """Kuhn, Leduc and a random two-round game with blinds (3 then 2 buckets)."""
    return [kuhn(), leduc(), random_bucket_game(BLINDS_TWO_ROUNDS, (3, 2), seed=5, name="blinds")]


def always_call(game: LimitGame) -> LimitStrategy:
    """Both players check or call everywhere: never fold, never bet."""
    uniform = uniform_strategy(game)
    rows = tuple(np.tile([0.0, 1.0, 0.0], (p.shape[0], 1)) for p in uniform.policy)
    return LimitStrategy(uniform.game_name, uniform.histories, uniform.player, uniform.round, rows)


# -- the betting tree ---------------------------------------------------------------------


def test_kuhn_and_leduc_trees_have_their_known_sizes() -> None:
    """Kuhn: 4 decisions, 2 folds, 3 showdowns (12 information sets). Leduc: 6 decisions
    in the first round and 30 in the second, so 6 * 3 + 30 * 9 = 288 information sets."""
    tree = build_tree(kuhn().betting)
    assert [tree.count(kind) for kind in NodeKind] == [4, 2, 3, 0]
    leduc_tree = build_tree(leduc().betting)
    decisions = [leduc_tree.count(NodeKind.DECISION, r) for r in (0, 1)]
    assert decisions == [6, 30]
    assert decisions[0] * 3 + decisions[1] * 9 == 288
    assert leduc_tree.count(NodeKind.TRANSITION) == 5
    assert leduc_tree.count(NodeKind.SHOWDOWN) == 25


def test_holdem_tree_counts_match_the_published_game_size() -> None:
    """Heads-up limit hold'em: 6,378 decision nodes; with 1,326 hole-card pairs and the
    boards of each street that is the published 3.19e14 information sets."""
    tree = build_tree(HOLDEM_BETTING)
    decisions = [tree.count(NodeKind.DECISION, r) for r in range(4)]
    assert decisions == [8, 70, 630, 5670]
    assert sum(decisions) == 6378
    assert [tree.count(NodeKind.TRANSITION, r) for r in range(3)] == [7, 63, 567]
    assert tree.count(NodeKind.SHOWDOWN) == 5103
    assert [tree.count(NodeKind.FOLD, r) for r in range(4)] == [7, 56, 504, 4536]
    hands = comb(52, 2)
    private = [hands, hands * comb(50, 3), hands * comb(50, 3) * 47, hands * comb(50, 3) * 47 * 46]
    information_sets = sum(d * p for d, p in zip(decisions, private, strict=True))
    assert information_sets == 319_365_922_522_608
    assert f"{information_sets:.2e}" == "3.19e+14"


def test_holdem_rules_blinds_option_cap_and_fold() -> None:
    tree = build_tree(HOLDEM_BETTING)
    limp = tree.nodes[tree.node("c")]
    assert limp.kind is NodeKind.DECISION
    assert limp.player == 1
    assert limp.legal == (False, True, True)  # the big blind's option: no fold when free
    assert tree.nodes[tree.node("cc")].kind is NodeKind.TRANSITION
    capped = tree.nodes[tree.node("rrr")]
    assert capped.legal == (True, True, False)  # four bets: the blind and three raises
    assert capped.contributions == (8, 6)
    flop = tree.nodes[tree.node("rrrc/")]
    assert (flop.player, flop.round, flop.contributions, flop.bets) == (1, 1, (8, 8), 0)
    assert tree.nodes[tree.node("rc/c")].player == 0
    assert tree.nodes[tree.node("rc/crrrr")].legal == (True, True, False)
    river_close = tree.nodes[tree.node("rc/cc/cc/rc")]
    assert river_close.kind is NodeKind.SHOWDOWN
    assert river_close.contributions == (8, 8)
    fold = tree.nodes[tree.node("f")]
    assert (fold.kind, fold.player, fold.contributions) == (NodeKind.FOLD, 0, (1, 2))
    with pytest.raises(LimitGameError, match="no betting history"):
        tree.node("rrrr")


@pytest.mark.parametrize("betting", [kuhn().betting, leduc().betting, HOLDEM_BETTING])
def test_histories_round_trip_and_link_parents_to_children(betting: LimitBetting) -> None:
    tree = build_tree(betting)
    for number, node in enumerate(tree.nodes):
        assert tree.node(node.history) == number
        for action, child in enumerate(node.children):
            if child < 0:
                continue
            assert tree.nodes[child].parent == number
            suffix = "/" if node.kind is NodeKind.TRANSITION else ACTIONS[action]
            assert tree.nodes[child].history == node.history + suffix
            same_round = tree.nodes[child].round == node.round
            assert child > number or not same_round
    strategy = uniform_strategy(
        LimitGame("h", betting, random_bucket_game(betting, (1,) * betting.rounds, seed=0).chance)
    )
    for number, history in enumerate(strategy.histories):
        assert strategy.node(history) == number


# -- solving ------------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr"])
def test_fast_solver_finds_kuhn_and_leduc_values(algorithm: str) -> None:
    kuhn_result = solve(kuhn(), 300, algorithm=algorithm)  # type: ignore[arg-type]
    assert kuhn_result.value == pytest.approx(KUHN_VALUE, abs=1e-3)
    leduc_result = solve(leduc(), 400, algorithm=algorithm)  # type: ignore[arg-type]
    assert leduc_result.value == pytest.approx(LEDUC_VALUE, abs=1e-3)
    assert leduc_result.exploitability < 2e-3


def test_reference_solver_finds_kuhn_value() -> None:
    result = reference_solve(kuhn(), 300)
    assert result.value == pytest.approx(KUHN_VALUE, abs=1e-3)
    assert result.exploitability < 2e-3


@pytest.mark.slow
def test_reference_solver_finds_leduc_value() -> None:
    result = reference_solve(leduc(), 400)
    assert result.value == pytest.approx(LEDUC_VALUE, abs=1e-3)


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+"])
@pytest.mark.parametrize("game", small_games(), ids=lambda g: g.name)
def test_fast_solver_repeats_the_reference_iterates(game: LimitGame, algorithm: str) -> None:
    """Same updates in the same order: the average strategies agree to rounding."""
    iterations = 12 if game.name == "kuhn" else 6
    fast = solve(game, iterations, algorithm=algorithm)  # type: ignore[arg-type]
    reference = reference_solve(game, iterations, algorithm=algorithm)  # type: ignore[arg-type]
    for mine, theirs in zip(fast.strategy.policy, reference.strategy.policy, strict=True):
        np.testing.assert_allclose(mine, theirs, atol=1e-9)
    assert fast.value == pytest.approx(reference.value, abs=1e-9)
    assert fast.exploitability == pytest.approx(reference.exploitability, abs=1e-9)


def test_exploitability_falls_with_iterations() -> None:
    reported: list[tuple[int, float | None]] = []
    result = solve(
        leduc(), 500, checkpoints=(10, 50, 100, 500), progress=lambda t, g: reported.append((t, g))
    )
    curve = result.curve
    assert [t for t, _ in reported] == list(range(1, 501))
    assert [(t, g) for t, g in reported if g is not None] == list(curve)
    assert json.loads(json.dumps(result.as_dict()))["curve"][-1] == [500, result.exploitability]
    gaps = [gap for _, gap in curve]
    assert [t for t, _ in curve] == [10, 50, 100, 500]
    assert all(later < earlier for earlier, later in pairwise(gaps))
    assert gaps[-1] < gaps[0] / 100


# -- best responses -----------------------------------------------------------------------


@pytest.mark.parametrize("game", small_games(), ids=lambda g: g.name)
def test_best_responses_equal_the_reference(game: LimitGame) -> None:
    """Uniform, random, and always-call (whose never-reached terminals the fast solver
    skips) strategies."""
    strategies = (
        uniform_strategy(game),
        random_strategy(game, 1),
        random_strategy(game, 2),
        always_call(game),
    )
    for strategy in strategies:
        for player in (0, 1):
            fast = best_response_value(game, strategy, player)
            assert fast == pytest.approx(
                reference_best_response_value(game, strategy, player), abs=1e-9
            )
        assert game_value(game, strategy) == pytest.approx(
            reference_game_value(game, strategy), abs=1e-9
        )
        assert exploitability(game, strategy) == pytest.approx(
            reference_exploitability(game, strategy), abs=1e-9
        )


def test_best_response_to_always_call_in_kuhn() -> None:
    """Against a player who only checks and calls, bet the king, check the rest: +2 with
    K, 0 with Q, -1 with J, so 1/3 a hand from either seat; calling down is worth 0."""
    game = kuhn()
    strategy = always_call(game)
    assert best_response_value(game, strategy, 0) == pytest.approx(1 / 3, abs=1e-12)
    assert best_response_value(game, strategy, 1) == pytest.approx(1 / 3, abs=1e-12)
    assert game_value(game, strategy) == pytest.approx(0.0, abs=1e-12)
    assert exploitability(game, strategy) == pytest.approx(1 / 3, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), leduc_game=st.booleans())
def test_value_lies_between_the_best_responses(seed: int, leduc_game: bool) -> None:
    """For any strategy: -BR1 <= value <= BR0, so exploitability >= 0."""
    game = leduc() if leduc_game else kuhn()
    strategy = random_strategy(game, seed)
    value = game_value(game, strategy)
    assert value <= best_response_value(game, strategy, 0) + 1e-12
    assert -best_response_value(game, strategy, 1) <= value + 1e-12
    assert exploitability(game, strategy) >= 0.0


# -- strategies ---------------------------------------------------------------------------


def test_strategy_saves_and_loads(tmp_path: Path) -> None:
    game = leduc()
    strategy = solve(game, 20).strategy
    path = tmp_path / "leduc.npz"
    strategy.save(path)
    assert [p.name for p in tmp_path.iterdir()] == ["leduc.npz"]
    loaded = LimitStrategy.load(path)
    assert loaded.game_name == "leduc"
    assert loaded.histories == strategy.histories
    np.testing.assert_array_equal(loaded.player, strategy.player)
    np.testing.assert_array_equal(loaded.round, strategy.round)
    for mine, theirs in zip(loaded.policy, strategy.policy, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    assert exploitability(game, loaded) == exploitability(game, strategy)
    row = loaded.probabilities("rc/", 4)
    assert row.sum() == pytest.approx(1.0)
    assert row[0] == 0.0  # nothing to call: no fold


def test_bad_input_is_refused() -> None:
    game = kuhn()
    with pytest.raises(LimitGameError, match="iterations"):
        solve(game, 0)
    with pytest.raises(LimitGameError, match="algorithm"):
        solve(game, 1, algorithm="fictitious")  # type: ignore[arg-type]
    with pytest.raises(LimitGameError, match="betting histor"):
        exploitability(leduc(), uniform_strategy(game))
    with pytest.raises(LimitGameError, match="player"):
        best_response_value(game, uniform_strategy(game), 2)
    with pytest.raises(LimitGameError, match="sequence"):
        uniform_strategy(game).probabilities("", 3)
