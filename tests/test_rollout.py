"""The exploiter's rollout: legal sampling, books that balance, reproducibility, references."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.agents.bots import CallingStation, StyleAgent, TightAggressive
from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import Decisions, Probabilities
from poolshark.cards.combos import COMBO_INDEX
from poolshark.cards.evaluator import evaluate_indices
from poolshark.engine.actions import ActionSet
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.kernel import FOLDED
from poolshark.exploit.rollout import (
    Opponent,
    ProbabilitiesOf,
    Rollout,
    RolloutBatch,
    RolloutError,
    RolloutSettings,
    StyleProbabilities,
    sample_choices,
    seat_owners,
    showdown_features,
)
from poolshark.pool.pools import load_pool
from poolshark.pool.style import action_probabilities, load_style

ACTIONS = ActionSet()


def uniform_policy(inputs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Equal weight on every legal action."""
    return masks / masks.sum(axis=1, keepdims=True)


def fold_policy(inputs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Fold when folding is legal, else check."""
    out = np.zeros(masks.shape)
    out[:, 0] = masks[:, 0]
    out[:, 1] = ~masks[:, 0]
    return out


def stations(tables: int = 64, hands: int = 3, **options: object) -> Rollout:
    settings_ = RolloutSettings(tables=tables, hands_per_table=hands, **options)  # type: ignore[arg-type]
    return Rollout(settings_, ACTIONS, [Opponent("station", CallingStation())])


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), rows=st.integers(1, 50))
def test_sampling_never_picks_an_illegal_action(seed: int, rows: int) -> None:
    """Even when the probabilities put weight on illegal actions, only legal ones come out."""
    rng = np.random.default_rng(seed)
    masks = rng.random((rows, 5)) < 0.4
    masks[rng.integers(0, 5, rows) == 0, :] = False
    masks[np.arange(rows), rng.integers(0, 5, rows)] = True
    probabilities = rng.random((rows, 5)) * (rng.random((rows, 5)) < 0.7) + 1e-12
    choice = sample_choices(probabilities, masks, rng)
    assert masks[np.arange(rows), choice].all()


def test_sampling_with_no_legal_weight_is_an_error() -> None:
    with pytest.raises(RolloutError, match="no weight"):
        sample_choices(
            np.array([[1.0, 0, 0]]), np.array([[False, True, True]]), np.random.default_rng()
        )


def check_books(batch: RolloutBatch, hands: int) -> None:
    """Every hand is booked once; chains link later decisions; rewards only at hand ends."""
    n = batch.size
    assert batch.hand_rewards.size == hands
    ends = batch.next_index < 0
    linked = np.flatnonzero(~ends)
    assert (batch.next_index[linked] > linked).all()
    assert len(set(batch.next_index[linked].tolist())) == linked.size  # one predecessor each
    assert (batch.rewards[~ends] == 0).all()
    heads = n - linked.size
    assert heads == ends.sum()  # one end per chain
    assert heads <= hands
    assert batch.masks[np.arange(n), batch.actions].all()  # every action taken was legal
    assert batch.inputs.shape[0] == batch.cards.shape[0] == batch.showdown.shape[0] == n


def test_a_collection_books_every_hand_and_only_legal_actions() -> None:
    rollout = stations(tables=48, hands=4)
    batch = rollout.collect(uniform_policy, seed=1, iteration=0)
    check_books(batch, 48 * 4)
    assert batch.size > 48 * 4
    assert batch.opponent_decisions["station"] > 0
    # stations never leave the learner a walk: every hand has a chain carrying its result
    assert (batch.next_index < 0).sum() == 48 * 4
    assert batch.rewards.sum() == pytest.approx(batch.hand_rewards.sum(), abs=1e-9)


def test_a_collection_replays_exactly_from_seed_and_iteration() -> None:
    one = stations().collect(uniform_policy, seed=3, iteration=2)
    two = stations().collect(uniform_policy, seed=3, iteration=2)
    other = stations().collect(uniform_policy, seed=3, iteration=3)
    for name in ("inputs", "cards", "actions", "rewards", "next_index", "hand_rewards"):
        assert np.array_equal(getattr(one, name), getattr(two, name))
    assert not np.array_equal(one.hand_rewards, other.hand_rewards)


def test_abandoning_folded_hands_keeps_the_learners_results() -> None:
    """Against calling stations (no randomness), the learner's result of every hand is the
    same whether a folded hand is abandoned at once or played out by the others."""
    settings_ = {"all_in_ev": "off"}
    quick = stations(tables=32, hands=6, abandon_folded=True, **settings_)
    full = stations(tables=32, hands=6, abandon_folded=False, **settings_)
    fast = quick.collect(fold_policy, seed=5, iteration=0)
    slow = full.collect(fold_policy, seed=5, iteration=0)
    assert np.sort(fast.hand_rewards).tolist() == np.sort(slow.hand_rewards).tolist()
    assert fast.hand_rewards.min() == -1.0  # it never puts in more than a blind
    assert set(fast.hand_rewards[fast.hand_rewards < 0].tolist()) == {-1.0, -0.5}
    assert fast.opponent_decisions["station"] < slow.opponent_decisions["station"]
    assert np.sort(fast.rewards).tolist() == np.sort(slow.rewards).tolist()


def test_rake_comes_out_of_the_learners_winnings_only() -> None:
    """The same deal raked and unraked: the learner's actions are the same, no hand pays it
    more, the pots it wins pay it less, and the cap bounds what any hand can cost."""
    plain = stations(tables=64, hands=4, all_in_ev="off").collect(
        uniform_policy, seed=4, iteration=0
    )
    raked = stations(
        tables=64, hands=4, all_in_ev="off", rake_percent=5.0, rake_cap_bb=1.5
    ).collect(uniform_policy, seed=4, iteration=0)
    assert np.array_equal(plain.actions, raked.actions)
    cost = plain.hand_rewards - raked.hand_rewards
    assert (cost >= 0).all()
    assert (cost <= 1.5 + 1e-9).all()
    assert (cost > 0).any()
    # stacks are equal every hand (no side pots), so a hand it loses outright wins no pot
    assert (cost[plain.hand_rewards < 0] == 0).all()


def test_all_in_rewards_are_paid_by_expectation() -> None:
    """All-in every hand against stations: sampled runouts keep the mean of the dealt
    results but shrink their spread."""

    def shove(inputs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.zeros(masks.shape)
        out[:, 4] = masks[:, 4]
        out[:, 1] = ~masks[:, 4]
        return out

    dealt = stations(tables=200, hands=3, all_in_ev="off").collect(shove, seed=2, iteration=0)
    sampled = stations(tables=200, hands=3, runouts=200).collect(shove, seed=2, iteration=0)
    assert sampled.hand_rewards.std() < 0.7 * dealt.hand_rewards.std()
    gap = abs(sampled.hand_rewards.mean() - dealt.hand_rewards.mean())
    assert gap < 4 * dealt.hand_rewards.std() / np.sqrt(dealt.hand_rewards.size)


def test_opponents_are_drawn_by_weight_and_batched_per_model() -> None:
    calls: list[int] = []

    class Counting(CallingStation):
        def act(self, decisions: Decisions) -> object:  # type: ignore[override]
            calls.append(decisions.size)
            return super().act(decisions)

    rollout = Rollout(
        RolloutSettings(tables=64, hands_per_table=3),
        ACTIONS,
        [Opponent("a", Counting(), 3.0), Opponent("tag", TightAggressive(), 1.0)],
    )
    batch = rollout.collect(uniform_policy, seed=0, iteration=0)
    share = batch.opponent_decisions["a"] / sum(batch.opponent_decisions.values())
    assert 0.55 < share < 0.95
    assert max(calls) > 10  # many tables answered in one call


def test_style_probabilities_follow_the_readable_policy() -> None:
    """Fold, call and the total raise weight of the mapped policy equal the numpy policy's
    (``pool.style.action_probabilities``) at decisions met in a real rollout."""
    style = load_style("zoom-reg")
    reference = StyleProbabilities(style.bank(), [1.0], ACTIONS)
    seen: list[tuple[np.ndarray, list[int], int, np.ndarray, np.ndarray]] = []

    class Recorder:
        def act(self, decisions: Decisions) -> Probabilities:
            answer = reference.act(decisions)
            values = np.asarray(answer.values)
            mask = decisions.mask(ACTIONS)
            for i in range(decisions.size):
                hole = decisions.hole_cards[i]
                board = [int(c) for c in decisions.board[i] if c >= 0]
                combo = int(COMBO_INDEX[hole[0], hole[1]])
                seen.append((decisions.contexts[i], board, combo, values[i], mask[i]))
            return answer

    rollout = Rollout(
        RolloutSettings(tables=64, hands_per_table=2),
        ACTIONS,
        [Opponent("reg", Recorder()), Opponent("pool", load_agent("pool:micro-zoom"))],
    )
    rollout.collect(uniform_policy, seed=4, iteration=0)
    assert len(seen) > 200
    streets = set()
    for context, board, combo, row, mask in seen[::2][:400]:
        streets.add(len(board))
        policy = action_probabilities(style, context, board, [combo]).probabilities[0]
        assert row[0] == pytest.approx(policy[0], abs=1e-9)
        assert row[1] == pytest.approx(policy[1], abs=1e-9)
        assert row[2:].sum() == pytest.approx(policy[2:].sum(), abs=1e-9)
        assert row[~mask].sum() == pytest.approx(0.0, abs=1e-12)
        assert row.sum() == pytest.approx(1.0)
    assert streets >= {0, 3}


def test_style_raises_go_to_the_nearest_raise_action() -> None:
    """Under the gun at 1/2 with aces, zoom-reg opens to 2.5 big blinds (5 chips). The set's
    raises are to 4 (half pot), 7 (pot), 17 (3 pots) and 200 (all-in): 5 is nearest 4."""
    from poolshark.engine.batched import BatchedTables
    from poolshark.engine.config import GameConfig

    actions = ActionSet.of([0.5, 1.0, 3.0])
    batch = BatchedTables(GameConfig(seats=6), 1)
    holes = np.array([[[0, 1], [2, 3], [4, 5], [48, 49], [6, 7], [8, 9]]])
    batch.reset(stacks=200, buttons=0, hole_cards=holes, boards=np.array([[20, 21, 22, 23, 24]]))
    legal = batch.legal()
    decisions = Decisions(
        batch, np.array([0]), np.array([3]), np.array([0]), legal, np.random.default_rng()
    )
    from poolshark.exploit.rollout import raise_targets

    assert raise_targets(decisions, actions).tolist() == [[4, 7, 17, 200]]
    style = load_style("zoom-reg")
    row = StyleProbabilities(style.bank(), [1.0], actions).probabilities(decisions)[0]
    readable = action_probabilities(style, decisions.contexts[0], [], [int(COMBO_INDEX[48, 49])])
    assert readable.raise_to[0] == 5
    assert row[2] == pytest.approx(readable.probabilities[0, 2:].sum())
    assert row[2] > 0.9
    assert row[3:].tolist() == [0.0, 0.0, 0.0]


def test_reference_rows_are_recorded_and_checked() -> None:
    pool = StyleAgent.from_pool(load_pool("micro-zoom"))
    reference = StyleProbabilities.of(pool, ACTIONS)
    rollout = Rollout(
        RolloutSettings(tables=32, hands_per_table=2),
        ACTIONS,
        [Opponent("pool", pool)],
        reference=reference,
        reference_epsilon=0.0,
    )

    def copy_reference(inputs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return masks / masks.sum(axis=1, keepdims=True)

    batch = rollout.collect(copy_reference, seed=0, iteration=0)
    assert batch.reference is not None
    assert batch.reference.shape == batch.masks.shape
    bad = Rollout(
        RolloutSettings(tables=8, hands_per_table=1),
        ACTIONS,
        [Opponent("pool", pool)],
        reference=CallingStation(),
    )
    with pytest.raises(RolloutError, match="must answer Probabilities"):
        bad.collect(uniform_policy, seed=0, iteration=0)
    other_set = Rollout(
        RolloutSettings(tables=8, hands_per_table=1),
        ACTIONS,
        [Opponent("pool", pool)],
        reference=StyleProbabilities.of(pool, ActionSet.of([1.0])),
    )
    with pytest.raises(RolloutError, match="answers over"):
        other_set.collect(uniform_policy, seed=0, iteration=0)


def test_an_agent_with_action_probabilities_can_be_the_reference() -> None:
    pool = StyleAgent.from_pool(load_pool("micro-zoom"))
    exact = StyleProbabilities.of(pool, ACTIONS)

    class ModelAgent:
        """Answers moves, but offers its probabilities over any action set."""

        def act(self, decisions: Decisions) -> object:
            return pool.act(decisions)

        def action_probabilities(self, decisions: Decisions, actions: ActionSet) -> np.ndarray:
            return StyleProbabilities.of(pool, actions).probabilities(decisions)

    seen: list[tuple[np.ndarray, np.ndarray]] = []

    class Check:
        def act(self, decisions: Decisions) -> Probabilities:
            wrapped = ProbabilitiesOf(ModelAgent(), ACTIONS).act(decisions)
            seen.append((np.asarray(wrapped.values), exact.probabilities(decisions)))
            return wrapped

    Rollout(
        RolloutSettings(tables=16, hands_per_table=1), ACTIONS, [Opponent("x", Check())]
    ).collect(uniform_policy, seed=0, iteration=0)
    assert seen
    for one, two in seen:
        assert np.array_equal(one, two)
    with pytest.raises(RolloutError, match="action_probabilities"):
        ProbabilitiesOf(CallingStation(), ACTIONS)


def plain_showdown(batch: BatchedTables, tables: np.ndarray, viewers: np.ndarray) -> np.ndarray:
    """The showdown features by evaluating every seat one hand at a time."""
    seats = batch.config.seats
    out = np.zeros((tables.size, seats), dtype=np.float32)
    for row, (t, v) in enumerate(zip(tables.tolist(), viewers.tolist(), strict=True)):
        board = batch.boards[t].tolist()
        values = [
            evaluate_indices([*batch.hole_cards[t, s].tolist(), *board]) for s in range(seats)
        ]
        live = [not batch.seat[t, FOLDED, s] for s in range(seats)]
        for j in range(1, seats):
            s = (v + j) % seats
            out[row, j] = (
                0.0 if not live[s] else (values[s] > values[v]) + 0.5 * (values[s] == values[v])
            )
        best = max((values[s] for s in range(seats) if s != v and live[s]), default=0)
        out[row, 0] = 1.0 if values[v] > best else 0.5 if values[v] == best else 0.0
    return out


def test_showdown_features_match_a_plain_evaluation() -> None:
    rollout = stations(tables=40, hands=1)
    rollout.collect(fold_policy, seed=9, iteration=0)
    tables = np.arange(40)
    viewers = np.arange(40) % 6
    features = showdown_features(rollout.batch, tables, viewers)
    assert np.array_equal(features, plain_showdown(rollout.batch, tables, viewers))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), seats=st.integers(2, 10), rows=st.integers(0, 12))
def test_compiled_showdown_features_equal_the_plain_ones(seed: int, seats: int, rows: int) -> None:
    """Random deals, folds and viewers (rows may repeat a table): the compiled features, which
    skip folded seats, equal the plain evaluation of every seat."""
    rng = np.random.default_rng(seed)
    batch = BatchedTables(GameConfig(seats=seats), 8)
    for t in range(batch.size):
        batch.cards[t] = rng.permutation(52)[: 2 * seats + 5]
    batch.seat[:, FOLDED] = rng.random((batch.size, seats)) < 0.4
    tables = rng.integers(0, batch.size, rows)
    viewers = rng.integers(0, seats, rows)
    features = showdown_features(batch, tables, viewers)
    assert features.dtype == np.float32
    assert np.array_equal(features, plain_showdown(batch, tables, viewers))


def test_bad_settings_are_clear_errors() -> None:
    with pytest.raises(RolloutError, match="tables"):
        RolloutSettings(tables=0)
    with pytest.raises(RolloutError, match="all_in_ev"):
        RolloutSettings(all_in_ev="maybe")
    with pytest.raises(RolloutError, match="at least one opponent"):
        Rollout(RolloutSettings(), ACTIONS, [])
    with pytest.raises(RolloutError, match="weights"):
        Rollout(RolloutSettings(), ACTIONS, [Opponent("x", CallingStation(), 0.0)])


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    seats=st.integers(2, 10),
    drawn_count=st.integers(1, 3),
    seated_count=st.integers(0, 3),
)
def test_each_seated_opponent_holds_exactly_one_seat_of_every_hand(
    seed: int, seats: int, drawn_count: int, seated_count: int
) -> None:
    """The learner in seat 0, each seated opponent in exactly one other seat, the drawn
    opponents everywhere else; the same seed draws the same seating."""
    seated_count = min(seated_count, seats - 1)
    agents = np.arange(drawn_count + seated_count)
    drawn, seated = agents[:drawn_count], agents[drawn_count:]
    weights = np.full(drawn_count, 1.0 / drawn_count)
    owners = seat_owners(np.random.default_rng(seed), 50, seats, drawn, weights, seated)
    again = seat_owners(np.random.default_rng(seed), 50, seats, drawn, weights, seated)
    assert np.array_equal(owners, again)
    assert owners.shape == (50, seats)
    assert (owners[:, 0] == 0).all()
    for agent in 1 + seated:
        assert ((owners == agent).sum(axis=1) == 1).all()
    rest = owners[:, 1:][~np.isin(owners[:, 1:], 1 + seated)]
    assert np.isin(rest, 1 + drawn).all()


def test_seated_seats_are_uniform_and_drawn_seats_follow_the_weights() -> None:
    rng = np.random.default_rng(11)
    hands = 30_000
    owners = seat_owners(rng, hands, 6, np.array([0, 1]), np.array([0.75, 0.25]), np.array([2]))
    where = np.argmax(owners == 3, axis=1)
    counts = np.bincount(where, minlength=6)
    assert counts[0] == 0
    assert np.all(np.abs(counts[1:] / hands - 0.2) < 0.01)
    others = owners[:, 1:][owners[:, 1:] != 3]
    assert abs((others == 1).mean() - 0.75) < 0.01
    plain = seat_owners(
        np.random.default_rng(5),
        40,
        6,
        np.array([0, 1]),
        np.array([0.5, 0.5]),
        np.array([], dtype=np.int64),
    )
    direct = 1 + np.random.default_rng(5).choice(2, size=(40, 6), p=[0.5, 0.5])
    direct[:, 0] = 0
    assert np.array_equal(plain, direct)  # runs without seated agents replay as before


def test_a_seated_opponent_plays_one_seat_of_every_hand_at_every_table() -> None:
    """A rollout with a seated recorder among calling stations: at every hand it acts, it
    acts from one seat only, no station acts from that seat, and it sits at every table."""
    seen: dict[str, list[tuple[int, int, int]]] = {"seated": [], "pool": []}

    class Recorder(CallingStation):
        def __init__(self, name: str) -> None:
            self.name = name

        def act(self, decisions: Decisions) -> object:  # type: ignore[override]
            seen[self.name] += zip(
                decisions.hand_ids.tolist(),
                decisions.tables.tolist(),
                decisions.seats.tolist(),
                strict=True,
            )
            return super().act(decisions)

    tables, hands = 40, 5
    rollout = Rollout(
        RolloutSettings(tables=tables, hands_per_table=hands, abandon_folded=False),
        ACTIONS,
        [
            Opponent("pool", Recorder("pool"), 1.0),
            Opponent("frozen", Recorder("seated"), 1.0, seated=True),
        ],
    )
    batch = rollout.collect(fold_policy, seed=3, iteration=0)
    seated_seats: dict[int, set[int]] = {}
    for hand, _, seat in seen["seated"]:
        seated_seats.setdefault(hand, set()).add(seat)
    # stations never fold, so every seat acts in every hand
    assert len(seated_seats) == tables * hands
    assert all(len(s) == 1 for s in seated_seats.values())
    assert all(0 not in s for s in seated_seats.values())
    for hand, _, seat in seen["pool"]:
        assert seat not in seated_seats[hand]
    assert {table for _, table, _ in seen["seated"]} == set(range(tables))
    share = batch.opponent_decisions["frozen"] / sum(batch.opponent_decisions.values())
    assert 0.15 < share < 0.25  # one of the five opponent seats
    again = Rollout(rollout.settings, ACTIONS, rollout.opponents).collect(
        fold_policy, seed=3, iteration=0
    )
    assert np.array_equal(batch.hand_rewards, again.hand_rewards)


def test_seated_opponents_need_room_and_a_drawn_opponent() -> None:
    frozen = Opponent("frozen", CallingStation(), seated=True)
    with pytest.raises(RolloutError, match="not seated"):
        Rollout(RolloutSettings(), ACTIONS, [frozen])
    with pytest.raises(RolloutError, match="do not fit 2 seats"):
        Rollout(
            RolloutSettings(seats=2),
            ACTIONS,
            [
                Opponent("pool", CallingStation()),
                frozen,
                Opponent("two", TightAggressive(), seated=True),
            ],
        )
