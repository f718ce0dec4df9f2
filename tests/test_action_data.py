"""Training rows of the population model: classes, exact ranges, the true pool policy
against Monte Carlo, imputation, and hands rebuilt from decision rows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX, N_COMBOS
from poolshark.cards.evaluator import evaluate_batch
from poolshark.histories.pokerstars import parse_pokerstars
from poolshark.histories.rows import build_rows
from poolshark.pool.context import Feature, replay_contexts
from poolshark.pool.policy import sample_actions
from poolshark.pool.pools import load_pool
from poolshark.pool.ranges import ExactPoolRanges, RangeQuery, UniformRanges
from poolshark.pool.simulate import simulate
from poolshark.population.actions import (
    ALL_IN_CLASS,
    CALL_CLASS,
    FIRST_RAISE_CLASS,
    FOLD_CLASS,
    N_CLASSES,
    SIZE_CENTERS,
    SIZE_EDGES,
    action_classes,
    legal_classes,
    size_bucket,
)
from poolshark.population.data import ActionDataset, load_dataset, save_dataset, simulated_dataset
from poolshark.population.features import featurize
from poolshark.population.hands import rows_states
from poolshark.population.imputation import (
    NO_BOUND,
    impute_hole_cards,
    losing_combos,
    muck_bounds,
)
from poolshark.population.range_view import exact_pool_ranges, range_query, source_ranges
from poolshark.population.sources import range_source_from_spec
from poolshark.population.states import (
    ActionDataError,
    DecisionStates,
    HandLogs,
    hand_slice,
    seen_boards,
    select_hands,
    simulated_states,
)
from poolshark.population.true_policy import true_policies

DATA = Path(__file__).parents[2] / "shared" / "data" / "handhq-ps25"


@pytest.fixture(scope="module")
def hands():  # type: ignore[no-untyped-def]
    return simulate(load_pool("micro-zoom"), 400, seed=5)


@pytest.fixture(scope="module")
def decisions(hands):  # type: ignore[no-untyped-def]
    return simulated_states(hands)


def test_buckets_split_between_centres() -> None:
    assert size_bucket(SIZE_CENTERS).tolist() == list(range(len(SIZE_CENTERS)))
    assert size_bucket([0.0, 1e-3]).tolist() == [0, 0]
    assert size_bucket([100.0]).tolist() == [len(SIZE_CENTERS) - 1]
    below = np.nextafter(SIZE_EDGES, 0)
    assert (size_bucket(below) == np.arange(len(SIZE_EDGES))).all()
    assert (size_bucket(SIZE_EDGES) == np.arange(1, len(SIZE_EDGES) + 1)).all()


def test_every_action_and_the_truth_are_legal(hands, decisions) -> None:  # type: ignore[no-untyped-def]
    states, moves, amounts = decisions
    classes = action_classes(moves, amounts, states.contexts)
    legal = legal_classes(states.contexts)
    rows = np.arange(states.size)
    assert legal[rows, classes].all()
    assert (classes == FOLD_CLASS).any()
    assert (classes == ALL_IN_CLASS).any()
    assert ((classes >= FIRST_RAISE_CLASS) & (classes < ALL_IN_CLASS)).any()
    mixture, own = true_policies(
        hands.pool, states, hands.hole_cards.astype(np.int64), hands.styles
    )
    np.testing.assert_allclose(mixture.sum(axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(own.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(mixture[~legal] == 0)
    assert np.all(own[~legal] == 0)
    assert np.all(mixture[rows, classes] > 0)  # the action taken was possible
    assert np.all(own[rows, classes] > 0)
    no_bet = states.contexts[:, Feature.TO_CALL] == 0
    assert np.all(mixture[no_bet, FOLD_CLASS] == 0)  # styles never fold when checking is free


def test_forced_checks_are_not_decisions(hands, decisions) -> None:  # type: ignore[no-untyped-def]
    states, _, _ = decisions
    logged = int(hands.action_start[-1])
    forced = int(((hands.action_flags & 2) > 0).sum())
    assert states.size == logged - forced


def test_fast_exact_ranges_equal_the_pool_posterior(hands, decisions) -> None:  # type: ignore[no-untyped-def]
    states, _, _ = decisions
    rows = np.arange(0, states.size, 97)[:24]
    opponents = (states.seat[rows] + 1) % hands.seats
    fast = exact_pool_ranges(hands.pool, states, rows, opponents)
    reference = ExactPoolRanges(hands.pool).ranges(range_query(states, rows, opponents))
    np.testing.assert_allclose(fast, reference, atol=1e-6)
    dead = states.hole[rows]
    for q in range(rows.size):
        for card in dead[q]:
            blocked = (COMBO_CARDS[:, 0] == card) | (COMBO_CARDS[:, 1] == card)
            assert np.all(fast[q, blocked] == 0)


def test_fast_uniform_ranges_equal_the_uniform_source(decisions) -> None:  # type: ignore[no-untyped-def]
    states, _, _ = decisions
    rows = np.arange(0, states.size, 13)
    seats = (states.seat[rows] + 2) % states.hands.config.seats
    fast = source_ranges(UniformRanges(), states, rows, seats)
    reference = UniformRanges().ranges(range_query(states, rows, seats))
    np.testing.assert_allclose(fast, reference, rtol=1e-6)


def test_features_do_not_depend_on_the_batch(hands, decisions) -> None:  # type: ignore[no-untyped-def]
    states, _, _ = decisions
    source = ExactPoolRanges(hands.pool)
    whole = featurize(states.subset(np.arange(200)), source)
    part = featurize(states.subset(np.arange(150, 200)), source)
    np.testing.assert_array_equal(whole.subset(slice(150, 200)).opponents, part.opponents)
    np.testing.assert_array_equal(whole.subset(slice(150, 200)).public, part.public)
    np.testing.assert_array_equal(whole.subset(slice(150, 200)).hand, part.hand)
    present = whole.opponents[:, :, 0] > 0
    alive = states.contexts[:200, Feature.ALIVE]
    assert (present.sum(axis=1) == alive - 1).all()
    shares = whole.opponents[:, :, -4][present]
    assert shares.min() >= 0
    assert shares.max() <= 1


def _monte_carlo_policy(hands, states, i: int, samples: int, rng) -> tuple[np.ndarray, int]:  # type: ignore[no-untyped-def]
    """Class frequencies of the next action of decision ``i``'s player, drawing its style
    from the pool and keeping only draws that replay its earlier actions exactly."""
    pool = hands.pool
    h, j, seat = int(states.hand[i]), int(states.index[i]), int(states.seat[i])
    table = states.hands
    contexts = replay_contexts(table.config, table.starting_stacks, table.button, table.logs)
    logs = table.logs
    earlier = [t for t in range(j) if logs.seat[h, t] == seat]
    style = rng.choice(pool.bank.styles, size=samples, p=pool.style_frequencies())
    hole = np.broadcast_to(states.hole[i], (samples, 2))
    board = np.broadcast_to(np.maximum(table.boards[h], 0), (samples, 5))
    keep = np.ones(samples, dtype=bool)
    for t in earlier:
        move, amount = sample_actions(
            pool.bank,
            style,
            np.broadcast_to(contexts[h, t], (samples, contexts.shape[2])),
            hole,
            board,
            rng.random(samples),
        )
        keep &= (move == logs.move[h, t]) & ((move != 2) | (amount == logs.amount[h, t]))
    move, amount = sample_actions(
        pool.bank,
        style[keep],
        np.broadcast_to(contexts[h, j], (int(keep.sum()), contexts.shape[2])),
        hole[keep],
        board[keep],
        rng.random(int(keep.sum())),
    )
    context = np.broadcast_to(contexts[h, j], (move.size, contexts.shape[2]))
    classes = action_classes(move, amount, context)
    return np.bincount(classes, minlength=N_CLASSES) / max(move.size, 1), int(move.size)


def test_true_policy_matches_monte_carlo(hands, decisions) -> None:  # type: ignore[no-untyped-def]
    states, _, _ = decisions
    mixture, own = true_policies(
        hands.pool, states, hands.hole_cards.astype(np.int64), hands.styles
    )
    logs = states.hands.logs
    earlier = np.array(
        [
            int((logs.seat[h, :j] == s).sum())
            for h, j, s in zip(states.hand, states.index, states.seat, strict=True)
        ]
    )
    mixed = (earlier >= 1) & (mixture.max(axis=1) < 0.9)
    candidates = np.flatnonzero(mixed)
    assert candidates.size >= 3
    rng = np.random.default_rng(0)
    checked = 0
    for i in candidates[:: max(1, candidates.size // 6)][:6].tolist():
        frequencies, kept = _monte_carlo_policy(hands, states, i, 60_000, rng)
        if kept < 2_000:
            continue
        tolerance = 5 * np.sqrt(mixture[i] * (1 - mixture[i]) / kept) + 2e-3
        assert np.all(np.abs(frequencies - mixture[i]) <= tolerance), (i, frequencies, mixture[i])
        checked += 1
    assert checked >= 2
    # the mixture differs from a single style's policy somewhere (Bayes over styles matters)
    assert np.abs(mixture - own).max() > 0.2


class FixedRanges:
    """A range source answering every question with one fixed distribution."""

    def __init__(self, weights: np.ndarray) -> None:
        self.weights = weights / weights.sum()

    def ranges(self, query: RangeQuery) -> np.ndarray:
        out = np.broadcast_to(self.weights, (query.size, N_COMBOS)).astype(np.float32)
        out = out * ~query.blocked()
        return out / out.sum(axis=1, keepdims=True)


def _one_hand_many_times(hands, hand: int, copies: int) -> HandLogs:  # type: ignore[no-untyped-def]
    logs = hands.action_logs()
    pick = np.full(copies, hand)
    boards = hands.boards[pick].astype(np.int64)
    return HandLogs(
        hands.config,
        hands.stacks[pick].astype(np.int64),
        hands.button[pick].astype(np.int64),
        boards,
        type(logs)(*(a[pick] for a in logs)),
    )


def test_imputed_cards_follow_the_posterior_and_are_never_blocked(hands) -> None:  # type: ignore[no-untyped-def]
    hand = int(np.flatnonzero(hands.shown == 5)[0])
    copies = 6000
    table = _one_hand_many_times(hands, hand, copies)
    rng = np.random.default_rng(1)
    weights = np.zeros(N_COMBOS)
    chosen = rng.choice(N_COMBOS, 30, replace=False)
    weights[chosen] = rng.random(30) + 0.2
    known = np.full((copies, hands.seats, 2), -1, dtype=np.int64)
    known[:, 1] = hands.hole_cards[hand, 1]  # seat 1 showed its cards
    needed = np.zeros((copies, hands.seats), dtype=bool)
    needed[:, 0] = True
    drawn = impute_hole_cards(table, known, needed, FixedRanges(weights), rng)
    assert drawn.imputed[:, 0].all()
    assert not drawn.imputed[:, 1:].any()
    combos = COMBO_INDEX[drawn.holes[:, 0, 0], drawn.holes[:, 0, 1]]
    dead = set(hands.boards[hand].tolist()) | set(hands.hole_cards[hand, 1].tolist())
    blocked = np.array([bool(set(COMBO_CARDS[c].tolist()) & dead) for c in range(N_COMBOS)])
    posterior = np.where(blocked, 0.0, weights)
    posterior /= posterior.sum()
    assert not blocked[combos].any()
    counts = np.bincount(combos, minlength=N_COMBOS)
    support = posterior > 0
    assert counts[~support].sum() == 0
    expected = posterior[support] * copies
    chi2 = float(((counts[support] - expected) ** 2 / expected).sum())
    dof = int(support.sum()) - 1
    assert chi2 < dof + 5 * np.sqrt(2 * dof)  # about 5 standard deviations of chi-square


def test_joint_draws_never_share_a_card(hands) -> None:  # type: ignore[no-untyped-def]
    table = _one_hand_many_times(hands, 0, 300)
    weights = np.zeros(N_COMBOS)
    ace_of_spades = 51
    weights[(COMBO_CARDS[:, 0] == ace_of_spades) | (COMBO_CARDS[:, 1] == ace_of_spades)] = 1.0
    weights[:40] += 0.05  # a little room elsewhere, so a deal exists
    table = HandLogs(
        table.config, table.starting_stacks, table.button,
        np.full_like(table.boards, -1), table.logs,
    )  # fmt: skip
    known = np.full((300, hands.seats, 2), -1, dtype=np.int64)
    needed = np.ones((300, hands.seats), dtype=bool)
    drawn = impute_hole_cards(table, known, needed, FixedRanges(weights), np.random.default_rng(2))
    cards = drawn.holes.reshape(300, -1)
    for row in cards:
        assert np.unique(row).size == row.size
    assert drawn.redraws > 0 or drawn.sequential > 0


def test_imputation_from_the_exact_posterior_is_possible(hands) -> None:  # type: ignore[no-untyped-def]
    table_rows = 60
    logs = hands.action_logs()
    table = HandLogs(
        hands.config,
        hands.stacks[:table_rows].astype(np.int64),
        hands.button[:table_rows].astype(np.int64),
        np.where(np.arange(5)[None, :] < hands.shown[:table_rows, None],
                 hands.boards[:table_rows].astype(np.int64), -1),
        type(logs)(*(a[:table_rows] for a in logs)),
    )  # fmt: skip
    known = np.full((table_rows, hands.seats, 2), -1, dtype=np.int64)
    needed = np.ones((table_rows, hands.seats), dtype=bool)
    source = ExactPoolRanges(hands.pool)
    drawn = impute_hole_cards(table, known, needed, source, np.random.default_rng(3))
    for h in range(table_rows):
        board = {int(c) for c in table.boards[h] if c >= 0}
        cards = drawn.holes[h].ravel()
        assert np.unique(cards).size == cards.size
        assert not board & set(cards.tolist())
    # each imputed combo has positive probability under the player's exact range
    states = DecisionStates(
        table,
        np.arange(table_rows),
        table.logs.length.copy(),
        np.zeros(table_rows, dtype=np.int64),
        np.full((table_rows, 2), -1, dtype=np.int64),
        np.zeros((table_rows, 24)),
    )
    street = (table.boards >= 0).sum(axis=1)
    states.contexts[:, Feature.STREET] = np.searchsorted([0, 3, 4, 5], street, side="right") - 1
    ranges = exact_pool_ranges(hands.pool, states, np.arange(table_rows), states.seat)
    combos = COMBO_INDEX[drawn.holes[:, 0, 0], drawn.holes[:, 0, 1]]
    assert np.all(ranges[np.arange(table_rows), combos] > 0)


def _showdown_evidence(hands):  # type: ignore[no-untyped-def]
    """The hands as their histories show them: the board up to the street each ended on,
    the cards of the seats that showed, and which seats had decisions."""
    table = seen_boards(hand_slice(hands, hands.action_logs(), 0, len(hands)), hands.shown)
    holes = hands.hole_cards.astype(np.int64)
    known = np.where(hands.showed[:, :, None], holes, -1)
    decisions, _, _ = simulated_states(hands)
    needed = np.zeros(holes.shape[:2], dtype=bool)
    needed[decisions.hand, decisions.seat] = True
    return table, known, needed


def _values(boards: np.ndarray, holes: np.ndarray) -> np.ndarray:
    return evaluate_batch(np.concatenate([boards, holes], axis=1)).astype(np.int64)


def test_mucked_seats_draw_only_hands_that_lose_at_the_showdown() -> None:
    """A seat that reached the showdown and did not show mucked, which a site allows only
    for a hand that wins nothing: its imputed cards lose to the best hand shown. A uniform
    range ignores that evidence, so without the bound about half its draws would win."""
    hands = simulate(load_pool("handhq-25nl"), 1500, seed=11)
    table, known, needed = _showdown_evidence(hands)
    hidden = needed & (known[:, :, 0] < 0)
    bounds = muck_bounds(table, known, hidden)
    hand, seat = np.nonzero(bounds != NO_BOUND)
    assert hand.size >= 50
    truth = _values(table.boards[hand], hands.hole_cards[hand, seat].astype(np.int64))
    assert np.all(truth < bounds[hand, seat])  # the evidence is true of the real cards
    drawn = impute_hole_cards(table, known, needed, UniformRanges(), np.random.default_rng(4))
    imputed = _values(table.boards[hand], drawn.holes[hand, seat])
    assert np.all(imputed < bounds[hand, seat])
    assert drawn.mucked == hand.size
    assert drawn.muck_fallbacks == 0
    folded = np.nonzero(hidden & (bounds == NO_BOUND))
    assert folded[0].size > 10 * hand.size  # most hidden seats folded and are unbounded


def _one_showdown(hands):  # type: ignore[no-untyped-def]
    """A hand of ``hands`` whose showdown had a seat shown and another one mucked, with
    the evidence arrays of that one hand."""
    table, known, needed = _showdown_evidence(hands)
    bounds = muck_bounds(table, known, needed & (known[:, :, 0] < 0))
    hand = int(np.nonzero(bounds != NO_BOUND)[0][0])
    seat = int(np.flatnonzero(bounds[hand] != NO_BOUND)[0])
    return hand, seat, int(bounds[hand, seat]), known[hand], needed[hand]


def _impute_one_mucked_seat(hands, showdown, copies: int, weights, rng):  # type: ignore[no-untyped-def]
    """``copies`` imputations of the showdown's mucked seat alone, from a fixed range."""
    hand, seat, _, known, needed = showdown
    one_hidden = np.zeros_like(needed)
    one_hidden[seat] = True
    return impute_hole_cards(
        _one_hand_many_times(hands, hand, copies),
        np.broadcast_to(known, (copies, *known.shape)),
        np.broadcast_to(one_hidden, (copies, *needed.shape)),
        FixedRanges(weights),
        rng,
    )


def test_a_mucked_seat_follows_its_range_restricted_to_losing_hands(hands) -> None:  # type: ignore[no-untyped-def]
    showdown = _one_showdown(hands)
    hand, seat, bound, known, _ = showdown
    copies = 6000
    rng = np.random.default_rng(5)
    weights = rng.random(N_COMBOS) ** 4
    drawn = _impute_one_mucked_seat(hands, showdown, copies, weights, rng)
    assert drawn.mucked == copies
    dead = set(hands.boards[hand].tolist()) | set(known[known >= 0].tolist())
    blocked = np.array([bool(set(COMBO_CARDS[c].tolist()) & dead) for c in range(N_COMBOS)])
    losing = losing_combos(hands.boards[hand].astype(np.int64), bound)
    posterior = np.where(blocked | ~losing, 0.0, weights)
    posterior /= posterior.sum()
    combos = COMBO_INDEX[drawn.holes[:, seat, 0], drawn.holes[:, seat, 1]]
    counts = np.bincount(combos, minlength=N_COMBOS)
    support = posterior > 0
    assert counts[~support].sum() == 0
    expected = posterior[support] * copies
    chi2 = float(((counts[support] - expected) ** 2 / expected).sum())
    dof = int(support.sum()) - 1
    assert chi2 < dof + 5 * np.sqrt(2 * dof)


def test_a_range_without_a_losing_hand_falls_back_to_the_deals_losing_hands(hands) -> None:  # type: ignore[no-untyped-def]
    showdown = _one_showdown(hands)
    hand, seat, bound, _, _ = showdown
    copies = 200
    losing = losing_combos(hands.boards[hand].astype(np.int64), bound)
    winning = (~losing).astype(np.float64)  # only hands that would have won
    drawn = _impute_one_mucked_seat(hands, showdown, copies, winning, np.random.default_rng(6))
    assert drawn.muck_fallbacks == copies
    combos = COMBO_INDEX[drawn.holes[:, seat, 0], drawn.holes[:, seat, 1]]
    assert losing[combos].all()
    assert np.unique(combos).size > 50  # spread over the deal's losing hands


def test_rows_rebuild_the_simulated_hands(hands, decisions) -> None:  # type: ignore[no-untyped-def]
    states, moves, amounts = decisions
    frame = build_rows(list(hands.records())).frame
    groups, report = rows_states(frame)
    assert report.dropped_inconsistent_hands == 0
    assert report.kept_rows == states.size
    (group,) = groups
    order = {hid: h for h, hid in enumerate(group.hand_ids)}
    mapped = np.array([order[str(int(i))] for i in hands.hand_id])
    # rows come in hand order within each hand: compare hand by hand
    for h in range(0, len(hands), 37):
        mine = np.flatnonzero(states.hand == h)
        theirs = np.flatnonzero(group.states.hand == mapped[h])
        np.testing.assert_array_equal(group.states.contexts[theirs], states.contexts[mine])
        np.testing.assert_array_equal(group.moves[theirs], moves[mine])
        np.testing.assert_array_equal(group.amounts[theirs], amounts[mine])
    shown = group.known[:, :, 0] >= 0
    assert shown.sum() == report.shown_seats
    holes = hands.hole_cards.astype(np.int64)[np.argsort(mapped)]
    np.testing.assert_array_equal(
        np.sort(group.known[shown], axis=1), np.sort(holes[shown], axis=1)
    )


def test_seen_boards_are_the_boards_a_history_shows(hands) -> None:  # type: ignore[no-untyped-def]
    """A simulation deals five board cards to every hand; masked to the ones shown, they
    are the boards of the hands' written records."""
    seen = seen_boards(hand_slice(hands, hands.action_logs(), 0, len(hands)), hands.shown)
    for h in range(len(hands)):
        board = list(hands.record(h).board)
        assert seen.boards[h].tolist() == board + [-1] * (5 - len(board))
    assert set((seen.boards >= 0).sum(axis=1).tolist()) == {0, 3, 4, 5}
    assert (seen.boards >= 0).sum() < (hands.boards >= 0).sum()


def test_a_hand_with_a_missing_row_is_dropped(hands) -> None:  # type: ignore[no-untyped-def]
    frame = build_rows([hands.record(h) for h in range(40)]).frame
    first_hand = frame["hand_id"][0]
    gap = (
        frame.with_row_index()
        .filter(~((frame["hand_id"] == first_hand) & (frame["action_index"] == 1)))
        .drop("index")
    )
    _, report = rows_states(gap)
    assert report.dropped_inconsistent_hands == 1
    assert report.kept_hands == 39


def test_dataset_roundtrip_and_fingerprint(hands, tmp_path) -> None:  # type: ignore[no-untyped-def]
    dataset = simulated_dataset(hands, UniformRanges(), chunk_hands=150)
    path = save_dataset(dataset, tmp_path / "rows.npz")
    again = load_dataset(path)
    assert again.fingerprint == dataset.fingerprint
    assert again.size == dataset.size
    assert dataset.has_truth
    assert not dataset.imputed.any()
    both = ActionDataset.concatenate([dataset, dataset])
    assert both.size == 2 * dataset.size
    assert np.unique(both.hand_key).size == 2 * np.unique(dataset.hand_key).size


def test_datasets_of_an_older_format_are_refused(hands, tmp_path) -> None:  # type: ignore[no-untyped-def]
    dataset = simulated_dataset(select_hands(hands, np.arange(20)), None)
    path = save_dataset(dataset, tmp_path / "rows.npz")
    with np.load(path) as stored:
        arrays = dict(stored)
    arrays["format"] = np.array("poolshark-action-data-v1")
    np.savez(tmp_path / "old.npz", **arrays)
    with pytest.raises(ActionDataError, match=r"older format .*v1.* build the rows again"):
        load_dataset(tmp_path / "old.npz")


def test_showdown_only_rows_impute_the_rest(hands) -> None:  # type: ignore[no-untyped-def]
    dataset = simulated_dataset(hands, UniformRanges(), hidden="showdown")
    assert 0.5 < dataset.imputed.mean() < 1.0
    assert not dataset.has_truth  # the truth is of the real cards: only shown rows keep it
    shown = ~dataset.imputed
    assert not np.isnan(dataset.true_policy[shown]).any()
    assert np.isnan(dataset.true_policy[~shown]).all()


def test_selected_hands_are_the_same_hands(hands) -> None:  # type: ignore[no-untyped-def]
    rows = np.array([3, 4, 17, 250, 399])
    part = select_hands(hands, rows)
    assert len(part) == rows.size
    for i, h in enumerate(rows.tolist()):
        assert part.record(i) == hands.record(h)
    states, _, _ = simulated_states(part)
    assert states.size == sum(
        1 for h in rows.tolist() for action in hands.actions(h) if not action[4] & 2
    )


def test_oracle_range_source_spec() -> None:
    pytest.importorskip("poolshark.oracle.model")
    with pytest.raises(ValueError, match="no range-oracle checkpoint"):
        range_source_from_spec("oracle:/nowhere/best.pt")


def test_range_source_specs() -> None:
    assert isinstance(range_source_from_spec("uniform"), UniformRanges)
    assert range_source_from_spec("none") is None
    assert isinstance(range_source_from_spec("exact:micro-zoom"), ExactPoolRanges)
    source = range_source_from_spec("poolshark.pool.ranges:UniformRanges")
    assert isinstance(source, UniformRanges)
    with pytest.raises(ValueError, match="unknown range source"):
        range_source_from_spec("oracle")
    with pytest.raises(ValueError, match="no callable"):
        range_source_from_spec("poolshark.pool.ranges:nothing")


@pytest.fixture(scope="module")
def real_rows(tmp_path_factory):  # type: ignore[no-untyped-def]
    if not DATA.is_dir():
        pytest.skip(f"the real sample is not at {DATA}")
    from poolshark.histories.ingest import ingest, scan_rows

    out = tmp_path_factory.mktemp("ps25")
    ingest([DATA], out, backend="serial")
    return scan_rows(out).collect()


def test_real_rows_rebuild_into_consistent_hands(real_rows) -> None:  # type: ignore[no-untyped-def]
    groups, report = rows_states(real_rows)
    assert report.rows == real_rows.height
    assert report.kept_hands >= 0.9 * report.hands
    assert report.kept_rows >= 0.9 * report.rows
    assert report.shown_seats > 500
    assert report.hidden_seats > 10 * report.shown_seats
    for group in groups:
        classes = action_classes(group.moves, group.amounts, group.states.contexts)
        legal = legal_classes(group.states.contexts)
        assert legal[np.arange(classes.size), classes].all()
        hands_seen = np.unique(group.states.hand)
        assert ((group.players[hands_seen] >= 0).sum(axis=1) >= 1).all()


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(row=st.integers(0, 10**6), share=st.floats(0.0, 1.0))
def test_every_legal_raise_lands_in_a_legal_class(decisions, row: int, share: float) -> None:  # type: ignore[no-untyped-def]
    states, _, _ = decisions
    can_raise = np.flatnonzero(states.contexts[:, Feature.MAX_RAISE_TO] > 0)
    context = states.contexts[can_raise[row % can_raise.size]][None, :]
    least, most = context[0, Feature.MIN_RAISE_TO], context[0, Feature.MAX_RAISE_TO]
    amount = round(least + share * (most - least))
    (label,) = action_classes([2], [amount], context)
    assert legal_classes(context)[0, label]
    assert (label == ALL_IN_CLASS) == (amount >= most)


@pytest.mark.parametrize("street", [0, 1, 2, 3])
def test_call_class_is_always_legal(decisions, street: int) -> None:  # type: ignore[no-untyped-def]
    states, _, _ = decisions
    rows = states.street == street
    assert legal_classes(states.contexts[rows])[:, CALL_CLASS].all()


FREE_FOLD_HAND = """\
PokerStars Hand #100000000001:  Hold'em No Limit ($0.05/$0.10 USD) - 2009/07/01 12:00:00 ET
Table 'Free Fold' 6-max Seat #1 is the button
Seat 1: Button ($10 in chips)
Seat 2: Small ($10 in chips)
Seat 3: Big ($10 in chips)
Small: posts small blind $0.05
Big: posts big blind $0.10
*** HOLE CARDS ***
Button: calls $0.10
Small: calls $0.05
Big: checks
*** FLOP *** [Jd 7c 2s]
Small: folds
Big: checks
Button: bets $0.20
Big: folds
Uncalled bet ($0.20) returned to Button
Button collected $0.30 from pot
Button: doesn't show hand
*** SUMMARY ***
Total pot $0.30 | Rake $0
Board [Jd 7c 2s]
Seat 1: Button (button) collected ($0.30)
Seat 2: Small (small blind) folded on the Flop
Seat 3: Big (big blind) folded on the Flop
"""


def test_a_free_fold_is_a_check_and_the_folder_is_out_of_the_hand() -> None:
    """PokerStars lets the small blind fold on the flop when checking is free. The action
    model learns it as the check it amounts to, but every later decision sees two players,
    not three, as the rows themselves say."""
    frame = build_rows([parse_pokerstars(FREE_FOLD_HAND)]).frame
    groups, report = rows_states(frame)
    assert report.free_folds_as_checks == 1
    (group,) = groups
    states = group.states
    assert states.size == 7
    contexts = states.contexts
    classes = action_classes(group.moves, group.amounts, contexts)
    assert classes[3] == CALL_CLASS  # the small blind's free fold, learnt as a check
    assert contexts[3, Feature.TO_CALL] == 0
    alive = contexts[:, Feature.ALIVE].astype(np.int64).tolist()
    assert alive == frame["players_alive"].to_list()
    assert alive == [3, 3, 3, 3, 2, 2, 2]
