"""Exact ranges: distributions, a readable reference, and a Monte Carlo check of the posterior."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from scipy import stats

from poolshark.cards.card import parse_cards
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS, combos_sharing_cards
from poolshark.engine.config import GameConfig
from poolshark.engine.table import Action, Table
from poolshark.pool.context import (
    MOVE_CODE,
    MOVE_RAISE,
    context_from_table,
    logs_from_tables,
    replay_contexts,
)
from poolshark.pool.play import SeatedHand, play_hands
from poolshark.pool.policy import StyleBank, sample_actions
from poolshark.pool.pools import Pool, load_pool
from poolshark.pool.posterior import (
    VISIBLE,
    PosteriorError,
    PublicHand,
    known_styles,
    label_decisions,
    mixture_posterior,
    pool_mixture,
    posterior,
    range_posterior,
)
from poolshark.pool.style import action_probabilities, load_style


@cache
def _pool() -> Pool:
    return load_pool("micro-zoom")


@cache
def _hands(count: int, seed: int) -> tuple[SeatedHand, ...]:
    pool = _pool()
    return tuple(play_hands(pool.config, pool.stack, pool.bank, pool.player_styles, count, seed))


def _label(hands: tuple[SeatedHand, ...], mixture: bool, threads: int | None = 1) -> np.ndarray:
    pool = _pool()
    tables = [hand.table for hand in hands]
    if mixture:
        weights = pool_mixture(pool.style_frequencies(), len(tables), pool.config.seats)
    else:
        weights = known_styles(np.array([hand.styles for hand in hands]), pool.bank.styles)
    return label_decisions(
        pool.bank,
        pool.config,
        np.array([t.starting_stacks for t in tables]),
        np.array([t.button for t in tables]),
        np.array([t.board_cards for t in tables]),
        logs_from_tables(tables),
        weights,
        threads=threads,
    )


@pytest.mark.parametrize("mixture", [False, True])
def test_rows_are_distributions_that_respect_the_board(mixture: bool) -> None:
    hands = _hands(120, 1)
    rows = _label(hands, mixture)
    assert rows.shape == (sum(len(h.table.log) for h in hands), N_COMBOS)
    assert not np.isnan(rows).any()
    np.testing.assert_allclose(rows.sum(axis=1), 1.0, atol=1e-5)
    row = 0
    for hand in hands:
        for action in hand.table.log:
            board = hand.table.board_cards[: VISIBLE[action.street]]
            assert np.all(rows[row, combos_sharing_cards(board)] == 0)
            row += 1


def test_parallel_labelling_matches_serial() -> None:
    hands = _hands(40, 6)
    np.testing.assert_array_equal(_label(hands, True, threads=2), _label(hands, True))


def _reference_rows(hand: SeatedHand, weights: np.ndarray) -> list[np.ndarray]:
    """The posterior before every action, by replaying the hand with the numpy policy."""
    pool = _pool()
    original = hand.table
    table = Table(
        original.config,
        original.starting_stacks,
        button=original.button,
        hole_cards=original.hole_cards,
        board=original.board_cards,
    )
    products = np.ones((original.seats, pool.bank.styles, N_COMBOS))
    rows = []
    for action in original.log:
        seat, board = action.seat, table.board
        live = ~combos_sharing_cards(board)
        seat_weights = weights[seat]
        mass = live * (seat_weights[:, None] * products[seat]).sum(axis=0)
        rows.append(mass / mass.sum())
        context = context_from_table(table)
        for k, style in enumerate(pool.styles):
            if seat_weights[k] > 0:
                result = action_probabilities(style, context, board)
                products[seat, k] *= result.of_action(MOVE_CODE[action.move], action.amount)
        table.act(action.move, action.amount)
    return rows


@pytest.mark.parametrize("mixture", [False, True])
def test_kernel_matches_the_readable_reference(mixture: bool) -> None:
    pool = _pool()
    hands = _hands(12, 2)
    rows = _label(hands, mixture)
    row = 0
    for hand in hands:
        if mixture:
            weights = np.tile(pool.style_frequencies(), (hand.table.seats, 1))
        else:
            weights = np.eye(pool.bank.styles)[list(hand.styles)]
        for expected in _reference_rows(hand, weights):
            np.testing.assert_allclose(rows[row], expected, rtol=0, atol=1e-6)
            row += 1
    assert row == len(rows)


def test_single_hand_posteriors_agree_with_the_labels() -> None:
    pool = _pool()
    hand = next(h for h in _hands(40, 3) if len(h.table.log) >= 8)
    rows = _label((hand,), mixture=False)
    mixed_rows = _label((hand,), mixture=True)
    for index, action in enumerate(hand.table.log):
        public = PublicHand.from_table(hand.table, index)
        style = pool.styles[hand.styles[action.seat]]
        np.testing.assert_allclose(posterior(style, public, action.seat), rows[index], atol=1e-6)
        mixed = mixture_posterior(pool, public, action.seat)
        np.testing.assert_allclose(mixed, mixed_rows[index], atol=1e-6)
    last = PublicHand.from_table(hand.table)
    one_hot = np.eye(pool.bank.styles)[hand.styles[0]]
    np.testing.assert_allclose(
        range_posterior(pool.bank, one_hot, last, 0),
        posterior(pool.styles[hand.styles[0]], last, 0),
        atol=1e-12,
    )


def test_mixture_is_the_weighted_sum_of_style_likelihoods() -> None:
    """sum_k w_k prior L_k, normalized, from the per-style posteriors and evidences."""
    pool = _pool()
    hand = next(h for h in _hands(60, 4) if sum(a.seat == 2 for a in h.table.log) >= 3)
    public = PublicHand.from_table(hand.table)
    weights = pool.style_frequencies()
    live = ~combos_sharing_cards(list(public.board))
    evidence = []
    for _k, style in enumerate(pool.styles):
        unnormalized = np.ones(N_COMBOS)
        for _, action, context, board in _seat_contexts(hand.table, 2):
            result = action_probabilities(style, context, board)
            unnormalized *= result.of_action(MOVE_CODE[action.move], action.amount)
        evidence.append(live * unnormalized)
    mixed = sum(w * e for w, e in zip(weights, evidence, strict=True))
    np.testing.assert_allclose(
        mixture_posterior(pool, public, 2), mixed / mixed.sum(), rtol=0, atol=1e-12
    )


def _seat_contexts(original: Table, seat: int) -> list[tuple[int, Action, np.ndarray, list[int]]]:
    """(log index, action, context, board) of every decision of ``seat``, by replaying."""
    table = Table(
        original.config,
        original.starting_stacks,
        button=original.button,
        hole_cards=original.hole_cards,
        board=original.board_cards,
    )
    found = []
    for index, action in enumerate(original.log):
        if action.seat == seat:
            found.append((index, action, context_from_table(table), table.board))
        table.act(action.move, action.amount)
    return found


def test_dead_cards_and_impossible_histories() -> None:
    tag = load_style("tag")
    table = Table(GameConfig(seats=6), [200] * 6, button=0, seed=5)
    table.raise_to(5)  # an open the tag plays
    public = PublicHand.from_table(table)
    dead = parse_cards("AsKd")
    result = posterior(tag, public, 3, dead=dead)
    assert np.all(result[combos_sharing_cards(dead)] == 0)
    assert result.sum() == pytest.approx(1.0)
    table.fold()
    table.raise_to(12)  # a 2.4x three-bet: the tag only makes 3x and 3.5x
    with pytest.raises(PosteriorError, match="seat 5"):
        posterior(tag, PublicHand.from_table(table), 5)
    flop = Table(GameConfig(seats=2), [100, 100], button=0, seed=6)
    for _ in range(3):
        flop.check_call()  # call, check, and a check on the flop
    hand = PublicHand.from_table(flop)
    no_board = PublicHand(hand.config, hand.starting_stacks, 0, (), hand.logs)
    with pytest.raises(ValueError, match="board must show"):
        posterior(tag, no_board, 1)


def _monte_carlo(
    bank: StyleBank,
    style_weights: np.ndarray,
    public: PublicHand,
    table: Table,
    seat: int,
    samples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Combo counts of deals that repeat ``seat``'s actions: its hole cards are dealt
    uniformly from the cards the public board leaves, its style is drawn from the weights,
    and every one of its decisions is sampled again with the compiled sampler."""
    upto = int(public.logs.length[0])
    logs = logs_from_tables([table])
    contexts = replay_contexts(
        table.config, np.array([table.starting_stacks]), np.array([table.button]), logs
    )[0]
    live = np.flatnonzero(~combos_sharing_cards(list(public.board)))
    combos = rng.choice(live, samples)
    styles = rng.choice(len(style_weights), samples, p=style_weights / style_weights.sum())
    kept = np.ones(samples, dtype=bool)
    full_board = np.tile(table.board_cards, (samples, 1))
    for index in range(upto):
        if logs.seat[0, index] != seat:
            continue
        move, amount = sample_actions(
            bank,
            styles,
            np.tile(contexts[index], (samples, 1)),
            COMBO_CARDS[combos].astype(np.int64),
            full_board,
            rng.random(samples),
        )
        same = move == logs.move[0, index]
        kept &= same & ((move != MOVE_RAISE) | (amount == logs.amount[0, index]))
    return np.bincount(combos[kept], minlength=N_COMBOS)


def _history(pool: Pool, seed: int) -> tuple[SeatedHand, int, int]:
    """A seat with three or more decisions, one after the flop, whose line is not rare."""
    for hand in _hands(200, seed):
        for seat in range(hand.table.seats):
            mine = [i for i, a in enumerate(hand.table.log) if a.seat == seat]
            if len(mine) >= 3 and hand.table.log[mine[-1]].street >= 1:
                upto = mine[-1] + 1
                evidence = _evidence(pool, hand, seat, upto)
                if evidence > 0.03:
                    return hand, seat, upto
    raise AssertionError("no suitable history")


def _evidence(pool: Pool, hand: SeatedHand, seat: int, upto: int) -> float:
    """Chance that a uniformly dealt live combo repeats the seat's actions (its own style)."""
    public = PublicHand.from_table(hand.table, upto)
    style = pool.styles[hand.styles[seat]]
    product = np.ones(N_COMBOS)
    for index, action, context, board in _seat_contexts(hand.table, seat):
        if index < upto:
            result = action_probabilities(style, context, board)
            product *= result.of_action(MOVE_CODE[action.move], action.amount)
    live = ~combos_sharing_cards(list(public.board))
    return float(product[live].mean())


def _chi_square_p(counts: np.ndarray, exact: np.ndarray, buckets: int = 20) -> float:
    """Group combos into buckets of equal posterior mass and compare counts with a chi-square."""
    order = np.argsort(exact, kind="stable")
    bucket = np.minimum((np.cumsum(exact[order]) * buckets).astype(int), buckets - 1)
    observed = np.bincount(bucket, counts[order], buckets)
    expected = np.bincount(bucket, exact[order], buckets) * counts.sum()
    used = expected > 0
    chi = ((observed[used] - expected[used]) ** 2 / expected[used]).sum()
    return float(stats.chi2.sf(chi, used.sum() - 1))


@pytest.mark.parametrize("mixture", [False, True])
def test_monte_carlo_agrees_with_the_exact_posterior(mixture: bool) -> None:
    pool = _pool()
    hand, seat, upto = _history(pool, 5)
    public = PublicHand.from_table(hand.table, upto)
    if mixture:
        weights = pool.style_frequencies()
        exact = mixture_posterior(pool, public, seat)
    else:
        weights = np.eye(pool.bank.styles)[hand.styles[seat]]
        exact = posterior(pool.styles[hand.styles[seat]], public, seat)
    rng = np.random.default_rng(2025)
    counts = _monte_carlo(pool.bank, weights, public, hand.table, seat, 200_000, rng)
    assert counts.sum() > 2_000
    assert counts[exact == 0].sum() == 0  # no deal the posterior rules out ever repeats the line
    assert _chi_square_p(counts, exact) > 1e-3
    heaviest = np.argsort(-exact)[:5]
    for combo in heaviest:
        expected = exact[combo] * counts.sum()
        assert abs(counts[combo] - expected) < 5 * np.sqrt(expected) + 1


def test_labelling_checks_shapes() -> None:
    pool = _pool()
    hands = _hands(3, 7)
    tables = [hand.table for hand in hands]
    arguments = (
        pool.bank,
        pool.config,
        np.array([t.starting_stacks for t in tables]),
        np.array([t.button for t in tables]),
        np.array([t.board_cards for t in tables]),
        logs_from_tables(tables),
    )
    with pytest.raises(ValueError, match="style weights must be"):
        label_decisions(*arguments, np.ones((3, 6, 2)))
    with pytest.raises(ValueError, match="boards"):
        label_decisions(*arguments[:4], np.zeros((3, 3)), arguments[5], np.ones((3, 6, 6)))
