"""The gauntlet's Poki-like and Vexbot-like bots for heads-up fixed-limit hold'em."""

from __future__ import annotations

import numpy as np
import pytest

from poolshark.agents.bots import CallingStation
from poolshark.agents.limit_memory import (
    DECISION,
    FOLDED_END,
    SHOWDOWN,
    EndedHand,
    betting_tree,
    positional,
)
from poolshark.agents.limit_strength import (
    combo_ranks,
    final_rank_histogram,
    preflop_strength,
    strength_potential,
)
from poolshark.agents.loading import load_agent
from poolshark.agents.poki import Poki
from poolshark.agents.protocol import AgentError, Decisions, Moves, SeatView
from poolshark.agents.vexbot import Vexbot, VexbotModel, VexbotSettings, showdown_prior
from poolshark.cards.card import parse_cards
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS
from poolshark.cards.evaluator import evaluate_batch
from poolshark.cards.ranges import Range
from poolshark.engine.kernel import CHECK_CALL, FOLD, RAISE
from poolshark.equity.features import hand_features
from poolshark.evaluate.match import FinishedHands, MatchConfig, MatchResult, play_match


class AlwaysRaise:
    """Bets or raises whenever it may, calls when capped."""

    def act(self, decisions: Decisions) -> Moves:
        can = decisions.min_raise_to >= 0
        return Moves(np.where(can, RAISE, CHECK_CALL), np.where(can, decisions.min_raise_to, 0))


def limit_config(hands: int, tables: int, seed: int = 3) -> MatchConfig:
    return MatchConfig(
        hands=hands, seats=2, betting="fixed-limit", duplicate=True, seed=seed, tables=tables
    )


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


def hole(text: str) -> tuple[int, int]:
    first, second = parse_cards(text, count=2)
    return first, second


# -- strength and potential against the exact reference ----------------------------------------


def narrow_range(seed: int, share: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.where(rng.random(N_COMBOS) < share, rng.random(N_COMBOS), 0.0)


@pytest.mark.parametrize(
    ("ours", "board"), [("AhKd", "Qs7h2cJd"), ("9h8h", "Th7c2h3s"), ("2c3d", "QsQh2hJd5c")]
)
def test_strength_potential_is_exact_on_turn_and_river(ours: str, board: str) -> None:
    weights = narrow_range(1, 0.5)
    exact = hand_features(list(hole(ours)), list(cards(board)), Range(weights))
    fast = strength_potential(hole(ours), cards(board), weights, seed=0)
    assert fast == pytest.approx((exact.strength, exact.ppot, exact.npot), abs=1e-9)


@pytest.mark.parametrize(("ours", "board"), [("AhKd", "Qs7h2c"), ("9h8h", "Th7c2h")])
def test_flop_potentials_are_close_to_exact(ours: str, board: str) -> None:
    weights = narrow_range(2, 0.15)
    exact = hand_features(list(hole(ours)), list(cards(board)), Range(weights))
    fast = strength_potential(hole(ours), cards(board), weights, seed=0)
    assert fast[0] == pytest.approx(exact.strength, abs=1e-9)
    assert fast[1] == pytest.approx(exact.ppot, abs=0.05)
    assert fast[2] == pytest.approx(exact.npot, abs=0.05)


def test_strength_with_no_live_combo_is_even() -> None:
    weights = np.zeros(N_COMBOS)
    assert strength_potential(hole("AhKd"), cards("Qs7h2c"), weights, seed=0) == (0.5, 0.0, 0.0)


def test_preflop_strength_of_aces_against_a_random_hand() -> None:
    equity = preflop_strength(hole("AhAd"), np.ones(N_COMBOS), seed=4, deals=4000)
    assert equity == pytest.approx(0.852, abs=0.02)  # aces win 85.2% all-in against any hand
    weak = preflop_strength(hole("7c2d"), np.ones(N_COMBOS), seed=4, deals=4000)
    assert weak == pytest.approx(0.346, abs=0.02)


def brute_rank(ours: tuple[int, int], board: tuple[int, ...]) -> float:
    """Our share of the live combos beaten on a full board, ties half (by plain numpy)."""
    dead = {*ours, *board}
    live = np.array([c for c in range(N_COMBOS) if not dead & set(COMBO_CARDS[c].tolist())])
    theirs = evaluate_batch(np.concatenate([COMBO_CARDS[live], np.tile(board, (live.size, 1))], 1))
    mine = evaluate_batch(np.array([[*ours, *board]]))[0]
    return float(((mine > theirs) + 0.5 * (mine == theirs)).mean())


def test_combo_ranks_match_brute_force() -> None:
    board = cards("Qs7h2cJd5c")
    ranks = combo_ranks(board)
    blocked = np.array([bool({*board} & set(COMBO_CARDS[c].tolist())) for c in range(N_COMBOS)])
    assert (ranks[blocked] == -1).all()
    values = evaluate_batch(
        np.concatenate([COMBO_CARDS[~blocked], np.tile(board, ((~blocked).sum(), 1))], 1)
    )
    expected = np.array([((v > values) + 0.5 * (v == values)).sum() - 0.5 for v in values])
    assert ranks[~blocked] == pytest.approx(expected / (values.size - 1))


def test_final_rank_histogram_is_exact_from_the_turn() -> None:
    ours, turn = hole("9h8h"), cards("Th7c2h3s")
    unseen = [c for c in range(52) if c not in {*ours, *turn}]
    bins = 10
    expected = np.zeros(bins)
    for river in unseen:
        expected[min(int(brute_rank(ours, (*turn, river)) * bins), bins - 1)] += 1
    histogram = final_rank_histogram(ours, turn, bins, seed=0)
    assert histogram == pytest.approx(expected / expected.sum())
    river = final_rank_histogram(ours, (*turn, unseen[0]), bins, seed=0)
    assert river.max() == 1.0


# -- the betting tree and the reconstructed ends of hands --------------------------------------


def test_betting_tree_has_every_heads_up_limit_sequence() -> None:
    tree = betting_tree()
    # 7 preflop sequences reach the flop and 9 more per street: 7 * 9 * 9 * 9 showdowns.
    assert (tree.kind == SHOWDOWN).sum() == 7 * 9 * 9 * 9
    showdown = tree.kind == SHOWDOWN
    assert (tree.contrib[showdown, 0] == tree.contrib[showdown, 1]).all()
    assert tree.contrib.max() == 48  # capped every round: 8 + 8 + 16 + 16 chips
    decision = tree.kind == DECISION
    assert (tree.child[decision, CHECK_CALL] >= 0).all()
    nodes = np.flatnonzero(decision)
    actor = tree.actor[nodes]
    facing = tree.contrib[nodes, 1 - actor] > tree.contrib[nodes, actor]
    assert ((tree.child[nodes, FOLD] >= 0) == facing).all()
    assert ((tree.child[nodes, RAISE] >= 0) == (tree.bets[nodes] < 4)).all()
    folds = tree.kind == FOLDED_END
    assert (tree.folder[folds] >= 0).all()
    ends = np.flatnonzero(~decision)
    assert (tree.size[ends] == 1).all()
    assert tree.size[0] == tree.nodes


class Recording(Vexbot):
    """A Vexbot that keeps every hand it learns from."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[EndedHand] = []

    def learn(self, hand: EndedHand) -> None:
        self.seen.append(hand)
        super().learn(hand)


def test_bots_learn_every_hand_as_it_ended() -> None:
    """The play loop's ``hands_ended`` hook shows the bot every hand at its tables, with
    its whole log and the opponent's cards exactly when a showdown showed them."""
    truth: dict[int, tuple[list[tuple[int, int, int]], tuple[int, int] | None]] = {}

    def observe(finished: FinishedHands) -> None:
        batch = finished.batch
        for table, hand_id, owners in zip(
            finished.tables.tolist(), finished.hand_ids.tolist(), finished.owners, strict=True
        ):
            log = batch.actions(table)
            steps = positional(log, int(batch.table[table, 0]))
            opponent = int(np.flatnonzero(owners == 1)[0])
            folded = any(move == FOLD for _, move, _, _ in log)
            shown = None if folded else tuple(int(c) for c in batch.hole_cards[table, opponent])
            truth[hand_id] = (steps, shown)  # type: ignore[assignment]

    bot = Recording()
    play_match([bot, AlwaysRaiseOrFold()], [0, 1], limit_config(400, 8), observer=observe)
    assert sorted(hand.hand_id for hand in bot.seen) == sorted(truth)
    assert all(hand.complete for hand in bot.seen)
    for hand in bot.seen:
        steps, shown = truth[hand.hand_id]
        assert list(hand.steps) == steps
        assert hand.shown == shown
    assert any(hand.shown is not None for hand in bot.seen)
    assert any(hand.steps == ((0, FOLD, 0),) for hand in bot.seen)  # folds it never acted in


class AlwaysRaiseOrFold:
    """Raises, or folds a third of the time when facing a bet (so hands end both ways)."""

    def act(self, decisions: Decisions) -> Moves:
        can = decisions.min_raise_to >= 0
        fold = (decisions.call > 0) & (decisions.rng.random(decisions.size) < 0.3)
        move = np.where(fold, FOLD, np.where(can, RAISE, CHECK_CALL))
        return Moves(move, np.where(can, decisions.min_raise_to, 0))


# -- Poki ----------------------------------------------------------------------------------------


def river_view(ours: str, board: str, seed: int) -> SeatView:
    """The button on the river facing the big blind's bet, after checks all the way."""
    actions = (
        (0, CHECK_CALL, 1, 0),
        (1, CHECK_CALL, 0, 0),
        (1, CHECK_CALL, 0, 1),
        (0, CHECK_CALL, 0, 1),
        (1, CHECK_CALL, 0, 2),
        (0, CHECK_CALL, 0, 2),
        (1, RAISE, 4, 3),
    )
    return SeatView(
        seat=0,
        button=0,
        street=3,
        hole_cards=hole(ours),
        board=cards(board),
        pot=8,
        call=4,
        min_raise_to=8,
        max_raise_to=8,
        stacks=(198, 194),
        bets=(0, 4),
        folded=(False, False),
        big_blind=2,
        actions=actions,
        rng=np.random.default_rng(seed),
    )


def poki_moves(ours: str, board: str, trials: int = 200) -> np.ndarray:
    bot = Poki()
    moves = [bot.choose(river_view(ours, board, seed), seed, seed)[0] for seed in range(trials)]
    return np.bincount(moves, minlength=3)


def test_poki_raises_the_nuts_and_folds_trash() -> None:
    nuts = poki_moves("AhKh", "QhJhTh4c2d")
    assert nuts[RAISE] >= 0.8 * nuts.sum()
    assert nuts[FOLD] == 0
    trash = poki_moves("3c2d", "AhKsQd9h7c")
    assert trash[FOLD] > trash[CHECK_CALL]
    assert trash[RAISE] == 0


def test_poki_reweights_the_range_after_a_raise() -> None:
    bot = Poki()
    view = river_view("AhKh", "QhJhTh4c2d", 0)
    weights = bot.weights(view, 0, 0)
    ranks = combo_ranks(view.board)
    live = ranks >= 0
    strong, weak = live & (ranks > 0.9), live & (ranks < 0.3)
    assert weights[strong].mean() > 5 * weights[weak].mean()


# -- Vexbot --------------------------------------------------------------------------------------


def test_vexbot_model_kernel_matches_the_numpy_estimates() -> None:
    model = VexbotModel(VexbotSettings())
    rng = np.random.default_rng(0)
    for counts in (model.actions, model.round_actions, model.coarse_actions):
        counts[:] = rng.integers(0, 5, counts.shape)
    for counts in (model.showdowns, model.pot_showdowns, model.all_showdowns):
        counts[:] = rng.integers(0, 3, counts.shape)
    showdown = model.tree.kind == SHOWDOWN
    decision = model.tree.kind == DECISION
    for opponent in (0, 1):
        probabilities, beaten = model.kernel_estimates(opponent)
        assert probabilities == pytest.approx(model.probabilities(), abs=1e-12)
        assert beaten[showdown] == pytest.approx(model.beaten(opponent)[showdown], abs=1e-12)
        assert probabilities[decision].sum(axis=1) == pytest.approx(1.0)


def test_showdown_prior_favours_the_raiser() -> None:
    tree = betting_tree()
    prior = showdown_prior(tree, 10)
    assert prior.sum(axis=2) == pytest.approx(1.0)
    node, used = tree.walk([(0, RAISE, 0), (1, RAISE, 0), (0, RAISE, 0), (1, CHECK_CALL, 0)])
    assert used == 4
    assert tree.raises[node].tolist() == [2, 1]
    mean = prior[node] @ (np.arange(10) + 0.5) / 10
    assert mean[0] == pytest.approx(3 / 4, abs=0.01)  # the best of three uniform draws
    assert mean[1] == pytest.approx(2 / 3, abs=0.01)
    assert prior[0, 0] == pytest.approx(np.full(10, 0.1))


def sb_interval(result: MatchResult, agent: int = 0) -> tuple[float, float, float]:
    estimate = result.agents[agent].actual
    low, high = estimate.interval
    return estimate.small_bets_per_hand, low / 100, high / 100


def test_vexbot_learns_and_exploits_always_raise() -> None:
    bot = Vexbot()
    result = play_match([bot, AlwaysRaise()], [0, 1], limit_config(600, 10))
    probabilities = bot.model.probabilities()
    seen = bot.model.actions.sum(axis=1) >= 10
    can_raise = bot.model.tree.child[:, RAISE] >= 0
    assert (seen & can_raise).sum() >= 10
    assert (probabilities[seen & can_raise, RAISE] > 0.85).all()
    assert (probabilities[seen & ~can_raise, CHECK_CALL] > 0.85).all()
    mean, low, _ = sb_interval(result)
    assert low > 0, f"vexbot vs always-raise: {mean:.3f} sb/hand, 95% interval from {low:.3f}"
    assert result.agents[0].coerced == 0


def test_vexbot_exploits_a_calling_station() -> None:
    bot = Vexbot()
    result = play_match([bot, CallingStation()], [0, 1], limit_config(400, 10))
    calls = bot.model.probabilities()[bot.model.actions.sum(axis=1) >= 10]
    assert calls.size
    assert (calls[:, CHECK_CALL] > 0.85).all()
    mean, low, _ = sb_interval(result)
    assert low > 0, f"vexbot vs station: {mean:.3f} sb/hand, 95% interval from {low:.3f}"


# -- full matches ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["poki", "vexbot"])
def test_full_limit_match_conserves_chips_and_repeats(name: str) -> None:
    nets: list[int] = []

    def observe(finished: FinishedHands) -> None:
        nets.extend(finished.net.sum(axis=1).tolist())

    config = limit_config(120, 6, seed=11)
    first = play_match([load_agent(name), load_agent("random")], [0, 1], config, observer=observe)
    assert nets
    assert set(nets) == {0}
    assert first.agents[0].won_chips + first.agents[1].won_chips == 0
    assert first.agents[0].coerced == 0
    assert first.agents[0].decisions > 0
    again = play_match([load_agent(name), load_agent("random")], [0, 1], config)
    assert [a.won_chips for a in again.agents] == [a.won_chips for a in first.agents]
    assert again.agents[0].decisions == first.agents[0].decisions


def test_poki_against_vexbot_plays_a_full_match() -> None:
    result = play_match([Poki(), Vexbot()], [0, 1], limit_config(80, 4))
    assert result.agents[0].won_chips == -result.agents[1].won_chips
    assert result.agents[0].coerced == result.agents[1].coerced == 0


@pytest.mark.parametrize("name", ["poki", "vexbot"])
def test_gauntlet_bots_refuse_other_games(name: str) -> None:
    config = MatchConfig(hands=12, seats=2, tables=2)
    with pytest.raises(AgentError, match="heads-up fixed-limit"):
        play_match([load_agent(name), CallingStation()], [0, 1], config)
