"""Range-oracle examples: features against plain references, the two sources against each
other, the attached exact posteriors against the pool posterior, files and batches."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.cards.combos import COMBO_INDEX, N_COMBOS
from poolshark.cards.isomorphism import CARD_PERMUTATIONS, COMBO_PERMUTATIONS
from poolshark.histories.rows import decision_rows
from poolshark.oracle import batches as obatch
from poolshark.oracle import data as od
from poolshark.oracle import features as ofeat
from poolshark.pool.context import ActionLogs, replay_contexts
from poolshark.pool.pools import load_pool
from poolshark.pool.ranges import ExactPoolRanges, RangeQuery
from poolshark.pool.simulate import FORCED, SimulatedHands, simulate

REAL_SAMPLE = Path(__file__).parents[2] / "shared" / "data" / "handhq-ps25"


@pytest.fixture(scope="module")
def hands() -> SimulatedHands:
    return simulate(load_pool("micro-zoom"), 240, seed=4)


@pytest.fixture(scope="module")
def data(hands: SimulatedHands) -> od.OracleData:
    return od.from_simulation(hands, exact=True, keep_exact_rows=True, seed=3, chunk_hands=70)


def log_length(hands: SimulatedHands, data: od.OracleData, example: int) -> int:
    """How many logged actions (forced checks included) come before an example."""
    hand = int(data.example_hand[example])
    actions = hands.actions(hand)
    if data.example_end[example]:
        return len(actions)
    decisions = [i for i, action in enumerate(actions) if not action[4] & FORCED]
    return decisions[int(data.example_before[example])]


def query_of(hands: SimulatedHands, data: od.OracleData, examples: np.ndarray) -> RangeQuery:
    """The range queries that ask the same questions as some examples."""
    logs = hands.action_logs()
    rows = data.example_hand[examples].astype(np.int64)
    length = np.array([log_length(hands, data, int(e)) for e in examples])
    board = np.full((examples.size, 5), -1, dtype=np.int64)
    for i, e in enumerate(examples):
        shown = int(data.example_board[e])
        board[i, :shown] = hands.boards[rows[i], :shown]
    return RangeQuery(
        hands.config,
        hands.stacks[rows],
        hands.button[rows],
        board,
        ActionLogs(logs.seat[rows], logs.move[rows], logs.amount[rows], logs.street[rows], length),
        data.example_seat[examples].astype(np.int64),
        data.example_dead[examples].astype(np.int64),
    )


# -- features -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "board", [[0, 17, 34], [48, 49, 44, 12], [3, 7, 11, 40, 51], [8, 12, 16, 21, 25]]
)
def test_combo_features_match_the_plain_reference(board: list[int]) -> None:
    cards = np.array([board + [0] * (5 - len(board))])
    fast = ofeat.combo_features(cards, np.array([len(board)]))[0]
    np.testing.assert_allclose(fast, ofeat.combo_features_reference(board), atol=1e-6)
    blocked = od.blocked_combos(cards, np.array([len(board)]), np.full((1, 2), -1))[0]
    assert (fast[blocked] == 0).all()
    assert (fast[~blocked, 3:12].sum(axis=1) == 1).all()  # one hand category each


@settings(max_examples=25, deadline=None)
@given(st.permutations(range(52)), st.integers(3, 5), st.integers(1, 23))
def test_combo_features_do_not_depend_on_suit_names(
    deck: list[int], count: int, renaming: int
) -> None:
    board = np.array([deck[:5]])
    renamed = CARD_PERMUTATIONS[renaming][board].astype(np.int64)
    counts = np.array([count])
    features = ofeat.combo_features(board, counts)[0]
    moved = ofeat.combo_features(renamed, counts)[0]
    np.testing.assert_array_equal(moved[COMBO_PERMUTATIONS[renaming]], features)


def test_bad_boards_are_refused() -> None:
    with pytest.raises(od.OracleDataError, match="3 to 5"):
        ofeat.combo_features(np.zeros((1, 5), dtype=np.int64), np.array([2]))
    with pytest.raises(od.OracleDataError, match="boards"):
        ofeat.combo_features(np.zeros((1, 4), dtype=np.int64), np.array([3]))


def test_rank_percentile_matches_a_plain_count() -> None:
    rng = np.random.default_rng(1)
    probabilities = rng.integers(0, 5, size=(6, N_COMBOS)).astype(np.float64)
    possible = rng.random((6, N_COMBOS)) > 0.2
    combo = np.array([int(np.flatnonzero(row)[3]) for row in possible])
    fast = od.rank_percentile(probabilities, combo, possible)
    for r in range(6):
        mine = probabilities[r, combo[r]]
        live = probabilities[r][possible[r]]
        want = ((live > mine).sum() + ((live == mine).sum() + 1) / 2) / live.size
        assert fast[r] == pytest.approx(want)


# -- examples from a simulation ---------------------------------------------------------------


def test_examples_cover_every_decision_and_every_seat_at_the_end(
    hands: SimulatedHands, data: od.OracleData
) -> None:
    assert data.hands == len(hands)
    assert int(data.action_start[-1]) == int(hands.action_start[-1])  # no forced checks here
    ends = data.example_end
    assert ends.sum() == len(hands) * hands.seats
    assert (~ends).sum() == hands.action_start[-1]
    assert (np.diff(data.example_hand) >= 0).all()
    truth = hands.hole_cards[data.example_hand, data.example_seat].astype(np.int64)
    assert (COMBO_INDEX[truth[:, 0], truth[:, 1]] == data.example_combo).all()
    dead = data.example_dead.astype(np.int64)
    assert (dead >= 0).all()
    assert not (dead[:, :, None] == truth[:, None, :]).any()
    shown = data.example_shown
    assert hands.showed[data.example_hand[shown], data.example_seat[shown]].all()
    assert data.example_shown.any()


def test_exact_posteriors_equal_the_pool_posterior(
    hands: SimulatedHands, data: od.OracleData
) -> None:
    rng = np.random.default_rng(5)
    ends = rng.choice(np.flatnonzero(data.example_end), 6, replace=False)
    decisions = rng.choice(np.flatnonzero(~data.example_end & (data.example_board > 0)), 6)
    examples = np.concatenate([ends, decisions, rng.choice(len(data), 6)])
    want = ExactPoolRanges(hands.pool).ranges(query_of(hands, data, examples))
    np.testing.assert_allclose(data.exact_rows[examples], want, atol=2e-6)
    truth = want[np.arange(examples.size), data.example_combo[examples]]
    np.testing.assert_allclose(data.exact_logp[examples], np.log(truth), rtol=1e-4)
    assert np.isfinite(data.exact_logp).all()
    assert data.has_exact


def test_forced_checks_are_left_out() -> None:
    short = simulate(load_pool("micro-zoom"), 1500, seed=12, stack_range=(1, 300))
    forced = (short.action_flags & FORCED) > 0
    assert forced.any()
    logs = short.action_logs()
    contexts = replay_contexts(short.config, short.stacks, short.button, logs)
    _, decision = od._action_fields(short.seats, short.button, logs, contexts)
    np.testing.assert_array_equal(decision, ~forced)
    built = od.from_simulation(short, exact=False)
    assert int(built.action_start[-1]) == int((~forced).sum())


def test_rows_and_simulation_give_the_same_actions_and_labels(
    hands: SimulatedHands, data: od.OracleData
) -> None:
    rows = od.from_rows(decision_rows(list(hands.records())))
    assert rows.hands == data.hands
    np.testing.assert_array_equal(rows.action_start, data.action_start)
    for name in ("actor", "offset", "street", "move", "alive", "all_in"):
        np.testing.assert_array_equal(getattr(rows, name), getattr(data, name), err_msg=name)
    for name in ("put_pot", "raise_pot", "to_call_pot", "pot_bb", "stack_bb"):
        np.testing.assert_allclose(getattr(rows, name), getattr(data, name), rtol=1e-6)
    decided = ~data.example_end
    for name in ("example_hand", "example_before", "example_seat", "example_board"):
        np.testing.assert_array_equal(
            getattr(rows, name)[~rows.example_end], getattr(data, name)[decided], err_msg=name
        )
    shown = data.example_shown[decided]
    np.testing.assert_array_equal(rows.example_shown[~rows.example_end], shown)
    np.testing.assert_array_equal(
        rows.example_combo[~rows.example_end][shown], data.example_combo[decided][shown]
    )
    assert (rows.example_combo[~rows.example_end][~shown] == -1).all()
    tokens = ofeat.token_matrix(data, np.arange(data.hands))
    np.testing.assert_allclose(ofeat.token_matrix(rows, np.arange(rows.hands)), tokens, atol=1e-6)


def test_the_real_sample_gives_examples() -> None:
    if not REAL_SAMPLE.is_dir():
        pytest.skip(f"the real PHH sample is not at {REAL_SAMPLE}")
    from poolshark.histories.split import parse_hand, read_hands

    records = [parse_hand(raw) for raw in read_hands(REAL_SAMPLE / "ps25_1.phhs")]
    real = od.from_rows(decision_rows(records[:600]))
    assert real.hands > 500
    assert real.example_shown.any()
    assert ((real.example_combo >= 0) == real.example_shown).all()
    assert np.isfinite(ofeat.token_matrix(real, np.arange(real.hands))).all()
    assert real.players.max() > 6  # 9-max tables too


def test_line_features_count_raises_and_name_the_aggressor(data: od.OracleData) -> None:
    """Preflop raises so far, and whether the actor made the last preflop raise, against
    a plain walk over each hand's actions."""
    line = ofeat.TOKEN_FEATURES - ofeat.LINE_FEATURES
    tokens = ofeat.token_matrix(data, np.arange(data.hands))
    aggressors = 0
    for hand in range(data.hands):
        raises, last_raiser = 0, -1
        for a in range(int(data.action_start[hand]), int(data.action_start[hand + 1])):
            seat, aggressive = int(data.offset[a]), int(data.move[a]) >= od.MOVE_BET_CODE
            assert tokens[a, line : line + 5].argmax() == min(raises, 4)
            mine = raises > 0 and last_raiser == seat
            assert tokens[a, line + 10] == float(mine)
            aggressors += mine and data.street[a] > 0
            if data.street[a] == 0 and aggressive:
                raises, last_raiser = raises + 1, seat
    assert aggressors > 0


# -- files, selections, queries ---------------------------------------------------------------


def test_files_round_trip_and_damage_is_caught(data: od.OracleData, tmp_path: Path) -> None:
    path = od.save_data(data, tmp_path / "examples.npz")
    again = od.load_data(path)
    assert again.fingerprint == data.fingerprint
    assert again.source == data.source
    for name, array in data.arrays().items():
        np.testing.assert_array_equal(getattr(again, name), array, err_msg=name)
    with pytest.raises(od.OracleDataError, match="no oracle dataset"):
        od.load_data(tmp_path / "missing.npz")
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(od.OracleDataError, match="cannot read"):
        od.load_data(tmp_path / "bad.npz")


def test_split_keeps_examples_with_their_hands(data: od.OracleData) -> None:
    train, val = data.split(0.25, seed=2)
    assert train.hands + val.hands == data.hands
    assert len(train) + len(val) == len(data)
    for part in (train, val):
        assert (np.diff(part.example_hand) >= 0).all()
        assert part.example_hand.max() == part.hands - 1
        assert int(part.action_start[-1]) == int(np.diff(part.action_start).sum())
    assert sorted(np.concatenate([train.exact_logp, val.exact_logp])) == sorted(data.exact_logp)


def test_queries_become_the_same_questions(hands: SimulatedHands, data: od.OracleData) -> None:
    examples = np.flatnonzero(data.example_end)[:30]
    asked = od.from_query(query_of(hands, data, examples))
    hand_ids = data.example_hand[examples].astype(np.int64)
    np.testing.assert_array_equal(
        ofeat.token_matrix(asked, np.arange(asked.hands)), ofeat.token_matrix(data, hand_ids)
    )
    np.testing.assert_array_equal(asked.example_dead, data.example_dead[examples])
    np.testing.assert_array_equal(asked.example_seat, data.example_seat[examples])
    np.testing.assert_array_equal(asked.example_board, data.example_board[examples])


def test_batches_pair_each_example_with_its_seats_earlier_actions(data: od.OracleData) -> None:
    hands = np.array([5, 0, 17, 3])
    batch = obatch.make_batch(data, hands)
    width = batch.tokens.shape[1]
    pairs = {(int(e), int(batch.pre_positions[a])) for e, a in batch.pre_pairs.T}
    pairs |= {(int(e), int(batch.post_positions[a])) for e, a in batch.post_pairs.T}
    starts = obatch.example_starts(data)
    want = set()
    for local, hand in enumerate(hands):
        first = int(data.action_start[hand])
        for i, example in enumerate(range(starts[hand], starts[hand + 1])):
            row = int(np.flatnonzero(batch.examples == example)[0])
            assert row == int(np.flatnonzero(batch.examples == starts[hand])[0]) + i
            for t in range(int(data.example_before[example])):
                if data.actor[first + t] == data.example_seat[example]:
                    want.add((row, local * width + t))
    assert pairs == want
    assert batch.board_features.shape[0] == np.unique(batch.post_board).size
