"""Recorded limit play and the stochastic-EM fit (seed 003, section 6.1): records that hold
what the matches played, hidden-hand imputation against the exact posterior by enumeration,
joint draws without overlap, and a fit that learns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from scipy import stats

from limitnet_fixtures import pool_records
from poolshark.agents.bots import CallingStation
from poolshark.agents.limit_styles import LIMIT_STYLES, LimitStyleAgent
from poolshark.agents.protocol import AgentError
from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX
from poolshark.engine.config import Betting
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.limitnet.action_function import ActionFunction
from poolshark.limitnet.agent import LimitNetAgent, load_limitnet_agent, save_model
from poolshark.limitnet.fit import (
    FitConfig,
    FitError,
    ImputeConfig,
    ImputeStats,
    dead_cards,
    decision_cards,
    enumerate_posterior,
    fit,
    impute,
    line_log_likelihoods,
    marginal_nll,
    match_mixture_nll,
    mean_nll,
    mixture_nll,
    player_matches,
    truth_nll,
    type_log_likelihoods,
    type_posteriors,
)
from poolshark.limitnet.records import LimitRecords, RecordsError, record_matches

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def records() -> LimitRecords:
    return pool_records(matches=12, deals=30, seed=3)


def card_minded_model(seed: int) -> ActionFunction:
    """An action function whose play depends strongly on the cards."""
    model = ActionFunction(outcome_states=4, seed=seed)
    generator = torch.Generator().manual_seed(seed + 100)
    with torch.no_grad():
        for values in model.values:
            values.copy_(2.0 * torch.randn(values.shape, generator=generator))
        for gates in model.gates:
            gates.copy_(0.5 * torch.randn(gates.shape, generator=generator))
    return model


def informative_short_line(model: ActionFunction, records: LimitRecords) -> tuple[int, np.ndarray]:
    """A hidden line of 2-6 decisions that rejection accepts often (mean likelihood over
    uniform hands above 2%) whose posterior is far from uniform; and that posterior."""
    lengths = records.line_lengths
    dead = dead_cards(records)
    for line in np.flatnonzero(~records.shown & (lengths >= 2) & (lengths <= 6)).tolist():
        possible = ~dead[line][COMBO_CARDS].any(axis=1)
        hands = np.flatnonzero(possible)
        likelihood = np.exp(line_log_likelihoods(model, records, np.full(hands.size, line), hands))
        posterior = likelihood / likelihood.sum()
        if likelihood.mean() > 0.02 and posterior.max() > 5 / hands.size:
            full = np.zeros(COMBO_CARDS.shape[0])
            full[hands] = posterior
            return line, full
    raise AssertionError("no informative short line in the records")


def test_records_hold_lines_of_play_and_their_showdowns(records: LimitRecords) -> None:
    assert records.decisions > 1000
    assert records.line_start[-1] == records.decisions
    assert (np.diff(records.line) >= 0).all()
    for line in range(records.lines):
        rows = slice(records.line_start[line], records.line_start[line + 1])
        assert (records.line[rows] == line).all()
        assert (np.diff(records.stages[rows]) >= 0).all()  # in order of play
        folded = (records.actions[rows] == 0).any()
        assert not (folded and records.shown[line])
    assert records.legal[np.arange(records.decisions), records.actions].all()
    np.testing.assert_allclose(records.truth.sum(axis=1), 1.0)
    # a deal has a showdown exactly when at least two of its lines never folded
    for deal in np.unique(records.deal)[:100]:
        lines = np.flatnonzero(records.deal == deal)
        stayed = [
            not (records.actions[records.line_start[i] : records.line_start[i + 1]] == 0).any()
            for i in lines
        ]
        if sum(stayed) >= 2:
            assert records.shown[lines].tolist() == stayed
        else:
            assert not records.shown[lines].any()
    # a match keeps its players for every deal
    for match in np.unique(records.match)[:5]:
        at = records.match == match
        seats: dict[int, set[int]] = {int(s): set() for s in records.seat[at]}
        for seat, player in zip(records.seat[at], records.player[at], strict=True):
            seats[int(seat)].add(int(player))
        assert all(len(players) == 1 for players in seats.values())


def test_records_save_load_select_and_split(records: LimitRecords, tmp_path: Path) -> None:
    path = tmp_path / "records.npz"
    records.save(path)
    loaded = LimitRecords.load(path)
    for name in ("line", "bets", "actions", "holes", "shown", "line_start"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(records, name))
    main, held = records.split_matches(0.25, seed=0)
    assert main.lines + held.lines == records.lines
    assert main.decisions + held.decisions == records.decisions
    assert not set(main.match.tolist()) & set(held.match.tolist())
    one = records.select(np.asarray([5]))
    assert one.lines == 1
    assert one.decisions == records.line_lengths[5]
    np.testing.assert_array_equal(one.holes[0], records.holes[5])
    (tmp_path / "bad.npz").write_bytes(b"not a records file")
    with pytest.raises(RecordsError, match="cannot read"):
        LimitRecords.load(tmp_path / "bad.npz")


def test_dead_cards_are_the_board_and_the_other_shown_hands(records: LimitRecords) -> None:
    dead = dead_cards(records)
    hidden = np.flatnonzero(~records.shown)
    for line in hidden[:200].tolist():
        assert not dead[line, records.holes[line]].any()  # the truth is always possible
        np.testing.assert_array_equal(
            np.flatnonzero(dead[line]), np.unique(records.dead_cards(line))
        )


def test_line_likelihoods_add_up_to_the_decisions_likelihood(records: LimitRecords) -> None:
    model = card_minded_model(1)
    lines = np.arange(records.lines)
    hands = COMBO_INDEX[records.holes[:, 0], records.holes[:, 1]].astype(np.int64)
    total = line_log_likelihoods(model, records, lines, hands).sum()
    cards = decision_cards(records, records.holes)
    assert total == pytest.approx(-mean_nll(model, records, cards) * records.decisions, rel=1e-5)


def test_rejection_draws_follow_the_enumerated_posterior(records: LimitRecords) -> None:
    model = card_minded_model(2)
    line, _ = informative_short_line(model, records)
    alone = records.select(np.asarray([line]))  # the deal's other shown hands are gone
    posterior = enumerate_posterior(model, alone, 0)
    assert posterior.sum() == pytest.approx(1.0)
    # draw the same line many times over, by rejection only
    copies = 2000
    many = alone.select(np.zeros(copies, dtype=np.int64))
    many = LimitRecords(**{**vars(many), "deal": np.arange(copies)})
    stats_ = ImputeStats()
    holes = impute(model, many, np.random.default_rng(0), ImputeConfig(rounds=400), stats_)
    assert stats_.enumerated == 0
    assert stats_.rejection == copies
    drawn = COMBO_INDEX[holes[:, 0], holes[:, 1]].astype(np.int64)
    # ten bins of equal posterior mass, sorted by posterior
    order = np.argsort(-posterior)
    cumulative = np.cumsum(posterior[order])
    bin_of = np.empty(posterior.size, dtype=np.int64)
    bin_of[order] = np.minimum((cumulative * 10).astype(np.int64), 9)
    expected = np.bincount(bin_of, weights=posterior, minlength=10) * copies
    observed = np.bincount(bin_of[drawn], minlength=10)
    keep = expected > 5
    statistic = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    assert stats.chi2.sf(statistic, keep.sum() - 1) > 1e-3
    assert posterior[drawn].min() > 0  # never a hand the record rules out


def test_long_lines_are_enumerated_and_deals_never_hold_a_card_twice(
    records: LimitRecords,
) -> None:
    model = card_minded_model(3)
    stats_ = ImputeStats()
    config = ImputeConfig(rejection_decisions=2)
    holes = impute(model, records, np.random.default_rng(1), config, stats_)
    hidden = ~records.shown
    assert stats_.enumerated >= (records.line_lengths[hidden] > 2).sum()
    assert stats_.rejection + stats_.enumerated >= hidden.sum()
    np.testing.assert_array_equal(holes[records.shown], records.holes[records.shown])
    dead = dead_cards(records)
    assert not dead[np.arange(records.lines)[:, None], holes][hidden].any()
    for deal in np.unique(records.deal):
        cards = holes[records.deal == deal].ravel()
        assert np.unique(cards).size == cards.size


def test_the_fit_learns_the_pool(records: LimitRecords) -> None:
    main, held = records.split_matches(0.25, seed=0)
    config = FitConfig(rounds=2, epochs=3, batch=512, learning_rate=0.02, seed=0)
    result = fit(main, config, holdout=held)
    start = ActionFunction(config.outcome_states, seed=config.seed)
    start_true = mean_nll(start, held, decision_cards(held, held.holes))
    last = result.history[-1]
    assert last.holdout_true_nll is not None
    assert last.holdout_true_nll < start_true - 0.15
    assert result.history[-1].train_nll < result.history[0].train_nll
    floor = truth_nll(held)
    assert floor is not None
    assert floor < last.holdout_true_nll  # the true strategies stay the floor


def test_the_mixture_floor_is_bayes_over_the_members(records: LimitRecords) -> None:
    rows = np.arange(records.decisions)
    np.testing.assert_array_equal(
        records.members[rows, records.player[records.line]], records.truth
    )
    first = records.select(np.arange(300))
    total = 0.0
    for line in range(first.lines):
        posterior = first.member_weights.copy()
        for row in range(first.line_start[line], first.line_start[line + 1]):
            chances = first.members[row, :, first.actions[row]]
            total -= np.log((posterior / posterior.sum() * chances).sum())
            posterior = posterior * chances
    assert mixture_nll(first) == pytest.approx(total / first.decisions)
    own, mixed = truth_nll(records), mixture_nll(records)
    assert own is not None
    assert mixed is not None
    assert own < mixed  # knowing who plays is worth something


@pytest.mark.parametrize("player_types", [0, 2])
def test_a_resumed_fit_ends_with_the_weights_of_a_straight_fit(
    records: LimitRecords, tmp_path: Path, player_types: int
) -> None:
    small = records.select(np.arange(600))
    config = FitConfig(rounds=2, epochs=1, batch=256, seed=4, player_types=player_types)
    straight = fit(small, config, checkpoint=tmp_path / "straight.pt")
    fit(small, FitConfig(**{**config.model_dump(), "rounds": 1}), checkpoint=tmp_path / "cut.pt")
    resumed = fit(small, config, checkpoint=tmp_path / "cut.pt", resume=True)
    assert [row.round for row in resumed.history] == [0, 1]
    for a, b in zip(
        straight.model.state_dict().values(), resumed.model.state_dict().values(), strict=True
    ):
        torch.testing.assert_close(a, b)
    if player_types:
        assert straight.type_prior is not None
        assert resumed.type_prior is not None
        np.testing.assert_allclose(straight.type_prior, resumed.type_prior)
    with pytest.raises(FitError, match="exists"):
        fit(small, config, checkpoint=tmp_path / "straight.pt")
    with pytest.raises(FitError, match="other settings"):
        fit(small, FitConfig(seed=5), checkpoint=tmp_path / "cut.pt", resume=True)


def test_player_types_offset_only_the_typed_decisions(records: LimitRecords) -> None:
    model = ActionFunction(outcome_states=4, seed=5, player_types=3)
    few = records.select(np.arange(40))
    cards = decision_cards(few, few.holes)
    plain = mean_nll(model, few, cards)
    untyped = np.full(few.decisions, -1, dtype=np.int64)
    assert mean_nll(model, few, cards, untyped) == pytest.approx(plain)
    typed = [mean_nll(model, few, cards, np.full(few.decisions, t)) for t in range(3)]
    assert len({round(value, 6) for value in typed}) == 3
    # each player-match's likelihood under a type is the sum of its decisions'
    table = type_log_likelihoods(model, few, cards)
    for t in range(3):
        total = -typed[t] * few.decisions
        assert table[:, t].sum() == pytest.approx(total, rel=1e-6)
    # one type, or a prior on one type, is the typed model's plain likelihood
    prior = np.asarray([0.0, 1.0, 0.0])
    assert marginal_nll(model, few, cards, prior) == pytest.approx(typed[1], rel=1e-6)
    posterior = type_posteriors(table, np.full(3, 1 / 3))
    expected = np.exp(table - table.max(axis=1, keepdims=True))
    np.testing.assert_allclose(posterior, expected / expected.sum(axis=1, keepdims=True))


def test_the_match_mixture_floor_is_bayes_over_whole_matches(records: LimitRecords) -> None:
    players = player_matches(records)
    total = 0.0
    for player in np.unique(players)[:30]:
        lines = np.flatnonzero(players == player)
        joint = records.member_weights.copy()
        for line in lines:
            for row in range(records.line_start[line], records.line_start[line + 1]):
                joint = joint * records.members[row, :, records.actions[row]]
        total -= np.log(joint.sum())
    first = records.select(np.flatnonzero(np.isin(players, np.unique(players)[:30])))
    assert match_mixture_nll(first) == pytest.approx(total / first.decisions)
    floor, deal_floor = match_mixture_nll(records), mixture_nll(records)
    assert floor is not None
    assert deal_floor is not None
    own = truth_nll(records)
    assert own is not None
    assert own <= floor < deal_floor  # a whole match says more than a deal


def test_player_types_fit_a_two_style_pool_better_than_one_model() -> None:
    agents = [LimitStyleAgent(LIMIT_STYLES["rock"]), LimitStyleAgent(LIMIT_STYLES["maniac"])]
    two = record_matches(
        agents,
        [0.5, 0.5],
        matches=24,
        deals=40,
        seed=11,
        policies=[agent.probabilities for agent in agents],
    )
    main, held = two.split_matches(0.25, seed=1)
    config = FitConfig(rounds=4, epochs=3, batch=512, learning_rate=0.02, seed=0)
    one = fit(main, config, holdout=held).history[-1].holdout_true_nll
    typed_fit = fit(main, config.model_copy(update={"player_types": 2}), holdout=held)
    typed = typed_fit.history[-1].holdout_true_nll
    assert one is not None
    assert typed is not None
    assert typed < one - 0.02
    assert typed_fit.type_prior is not None
    assert typed_fit.type_prior.sum() == pytest.approx(1.0)
    shares = typed_fit.type_by_member  # the two types found the two styles
    assert shares is not None
    assert shares.argmax(axis=1).tolist() in ([0, 1], [1, 0])
    assert shares.max(axis=1).min() > 0.8


def test_a_typed_model_plays_one_type_per_seat_and_hand(tmp_path: Path) -> None:
    path = tmp_path / "typed.pt"
    save_model(ActionFunction(outcome_states=4, player_types=2), path, {"type_prior": [0.5, 0.5]})
    agent = load_limitnet_agent(path)
    assert agent.type_draws is not None
    config = MatchConfig(hands=120, seats=6, seed=2, betting=Betting.FIXED_LIMIT)
    result = play_match([agent, CallingStation()], [0, 1, 0, 1, 0, 1], config)
    assert result.agents[0].coerced == 0
    with pytest.raises(AgentError, match="player types"):
        LimitNetAgent(ActionFunction(player_types=2), type_prior=np.ones(3) / 3)


def crowded_deal(records: LimitRecords, hidden: np.ndarray, live: int, seed: int) -> LimitRecords:
    """One deal of ``hidden`` (lines of ``records``, kept hidden, all given the first's board)
    and shown one-decision lines holding every card but ``live`` (one more for parity) of
    those off the board: a deal whose hidden hands range over a few dozen hands each, so
    the exact joint posterior is a small table and two draws overlap often."""
    rng = np.random.default_rng(seed)
    board, on_board = records.boards[hidden[0]], int(records.board_shown[hidden[0]])
    off = np.setdiff1d(np.arange(52), board[:on_board])
    live += (off.size - live) % 2
    held = rng.permutation(np.setdiff1d(off, rng.choice(off, live, replace=False)))
    ones = np.flatnonzero(records.line_lengths == 1)
    fillers = ones[~np.isin(ones, hidden)][: held.size // 2]
    chosen = np.concatenate([hidden, fillers])
    base = records.select(chosen)
    filler = np.isin(np.sort(chosen), fillers)
    holes = base.holes.copy()
    holes[filler] = held.reshape(-1, 2)
    count = base.lines
    return LimitRecords(
        **{
            **vars(base),
            "deal": np.zeros(count, dtype=np.int64),
            "boards": np.tile(board, (count, 1)),
            "board_shown": np.full(count, on_board, dtype=np.int64),
            "shown": filler,
            "holes": holes,
        }
    )


def exact_joint_posterior(
    model: ActionFunction, deal: LimitRecords
) -> tuple[list[np.ndarray], np.ndarray]:
    """The possible hands of each hidden line of the one ``deal`` (combo indices) and, by
    brute force over every tuple of them, the joint posterior table ``∝ Π_i P(a_i | h_i)``
    on tuples of hands without a card in common (0 elsewhere)."""
    dead = dead_cards(deal)
    hidden = np.flatnonzero(~deal.shown)
    hands = [np.flatnonzero(~dead[line][COMBO_CARDS].any(axis=1)) for line in hidden]
    grids = [g.ravel() for g in np.meshgrid(*[np.arange(h.size) for h in hands], indexing="ij")]
    log_joint = np.zeros(grids[0].size)
    held = np.zeros((grids[0].size, 52), dtype=np.int64)
    for line, possible, grid in zip(hidden, hands, grids, strict=True):
        log_l = line_log_likelihoods(model, deal, np.full(possible.size, line), possible)
        log_joint += log_l[grid]
        np.add.at(held, (np.arange(grid.size)[:, None], COMBO_CARDS[possible[grid]]), 1)
    apart = held.max(axis=1) == 1
    joint = np.where(apart, np.exp(log_joint - log_joint[apart].max()), 0.0)
    return hands, (joint / joint.sum()).reshape([h.size for h in hands])


def joint_draws_against_exact(
    model: ActionFunction, deal: LimitRecords, copies: int, config: ImputeConfig, seed: int
) -> tuple[float, float, ImputeStats]:
    """Impute ``copies`` copies of the one ``deal`` (each its own deal) and compare the
    tuples of hidden hands drawn with the exact joint posterior: (chi-square p-value over
    the tuples, the rarest pooled into one cell of at least 10 expected; total variation;
    the imputation's stats). A tuple the posterior rules out fails at once."""
    hands, joint = exact_joint_posterior(model, deal)
    many = deal.select(np.repeat(np.arange(deal.lines), copies))
    many = LimitRecords(**{**vars(many), "deal": np.tile(np.arange(copies), deal.lines)})
    stats_ = ImputeStats()
    holes = impute(model, many, np.random.default_rng(seed), config, stats_)
    places = []
    for line, possible in zip(np.flatnonzero(~deal.shown), hands, strict=True):
        rows = holes[line * copies : (line + 1) * copies]
        drawn = COMBO_INDEX[rows[:, 0], rows[:, 1]].astype(np.int64)
        place = np.minimum(np.searchsorted(possible, drawn), possible.size - 1)
        assert (possible[place] == drawn).all()  # never a hand the record rules out
        places.append(place)
    observed = np.bincount(np.ravel_multi_index(tuple(places), joint.shape), minlength=joint.size)
    chances = joint.ravel()
    assert observed[chances == 0].sum() == 0  # never two hands with a card in common
    expected = chances * copies
    order = np.argsort(expected)
    rare = order[np.cumsum(expected[order]) < 10]
    rare = rare[chances[rare] > 0]
    common = np.setdiff1d(np.flatnonzero(chances > 0), rare)
    cells_observed = np.append(observed[common], observed[rare].sum())
    cells_expected = np.append(expected[common], expected[rare].sum())
    statistic = ((cells_observed - cells_expected) ** 2 / cells_expected).sum()
    p_value = float(stats.chi2.sf(statistic, cells_observed.size - 1))
    total_variation = 0.5 * float(np.abs(observed / copies - chances).sum())
    return p_value, total_variation, stats_


def hidden_lines_of_one_deal(records: LimitRecords, lengths: list[tuple[int, int]]) -> np.ndarray:
    """Hidden lines of the first deal that has one for each (fewest, most) decisions range."""
    span = records.line_lengths
    for deal in np.unique(records.deal).tolist():
        free = np.flatnonzero((records.deal == deal) & ~records.shown)
        picked: list[int] = []
        for low, high in lengths:
            fits = [int(line) for line in free if low <= span[line] <= high and line not in picked]
            if not fits:
                break
            picked.append(fits[0])
        if len(picked) == len(lengths):
            return np.asarray(picked, dtype=np.int64)
    raise AssertionError(f"no deal with hidden lines of {lengths} decisions")


@pytest.mark.parametrize("lines", [2, 3])
def test_rejection_draws_of_a_deal_follow_the_exact_joint_posterior(
    records: LimitRecords, lines: int
) -> None:
    model = card_minded_model(2)
    hidden = hidden_lines_of_one_deal(records, [(2, 6)] * lines)
    deal = crowded_deal(records, hidden, live=9, seed=0)
    copies = 3000
    config = ImputeConfig(proposals=64, rounds=400)
    p_value, total_variation, stats_ = joint_draws_against_exact(model, deal, copies, config, 0)
    assert stats_.enumerated == 0  # rejection alone
    assert stats_.overlap_redraws > copies // 10  # the overlap rejection is at work
    assert p_value > 1e-3, total_variation


def test_enumerated_draws_of_a_deal_follow_the_exact_joint_posterior(
    records: LimitRecords,
) -> None:
    model = card_minded_model(2)
    hidden = hidden_lines_of_one_deal(records, [(7, 99), (2, 6)])
    deal = crowded_deal(records, hidden, live=9, seed=0)
    copies = 1500
    p_value, total_variation, stats_ = joint_draws_against_exact(
        model, deal, copies, ImputeConfig(), 1
    )
    assert stats_.enumerated >= copies  # the long line, every time
    assert stats_.overlap_redraws > copies // 10
    assert p_value > 1e-3, total_variation


def test_a_deal_whose_hidden_hands_cannot_all_be_apart_fails_by_name(
    records: LimitRecords,
) -> None:
    """Two hidden lines with at most three live cards between them share a card in every
    draw: the imputation stops after its redraws with the deal named, not in an endless loop."""
    hidden = hidden_lines_of_one_deal(records, [(2, 6)] * 2)
    deal = crowded_deal(records, hidden, live=2, seed=0)
    with pytest.raises(ValueError, match=r"deals \[0\]: no hidden hands without a shared card"):
        impute(card_minded_model(2), deal, np.random.default_rng(0), ImputeConfig(redraws=50))
