"""The league's policy inputs and networks: the batched encoder equals its reference, sees
no hidden card, masks what the engine allows; every architecture has the same outputs,
trains its memory heads through the recurrent state, and rebuilds from its
hyperparameters; the Transformer ignores the order of its opponents."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from torch import nn

from poolshark.agents.protocol import Decisions
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.kernel import CHECK_CALL, FOLD, RAISE, SHOWN
from poolshark.league.inputs import (
    ACTION_FEATURES,
    BET,
    CALL,
    HISTORY,
    NO_CARD,
    OPPONENT_FEATURES,
    SCALARS,
    InputArrays,
    PolicyInputs,
    empty_inputs,
    encode,
    encode_reference,
    shuffle_opponents,
)
from poolshark.league.nets import (
    NetConfig,
    PokerNet,
    TransformerNet,
    build_net,
    net_from_config,
)

FIELDS = ("cards", "history", "scalars", "opponents", "mask")
ARCHITECTURES = ("transformer", "cnn", "mlp")
TINY = {
    "d_model": 8,
    "trunk_heads": 2,
    "trunk_layers": 1,
    "cards_heads": 2,
    "hand_state_dim": 4,
    "game_state_dim": 5,
    "hidden": 16,
}


@pytest.fixture(autouse=True)
def one_torch_thread() -> Iterator[None]:
    """Small tensors: one thread is fastest, and fair to the other jobs on the machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def tiny_net(architecture: str, seats: int, seed: int = 0) -> PokerNet:
    torch.manual_seed(seed)
    return net_from_config(NetConfig(architecture=architecture, **TINY), seats)


def pending(batch: BatchedTables, rng: np.random.Generator) -> Decisions:
    """The decisions of every player to act in ``batch``."""
    legal = batch.legal()
    live = np.flatnonzero(legal.to_act >= 0)
    return Decisions(batch, live, legal.to_act[live], live, legal, rng)


def random_play(seats: int, tables: int, steps: int, seed: int) -> Iterator[Decisions]:
    """Random legal play (uneven stacks, raises anywhere between min and all-in, new hands
    dealt as tables finish), yielding the pending decisions before every step."""
    batch = BatchedTables(GameConfig(seats=seats), tables, seed=seed, max_actions=128)
    rng = np.random.default_rng(seed)
    batch.reset(stacks=rng.integers(10, 400, (tables, seats)))
    for _ in range(steps):
        decisions = pending(batch, rng)
        yield decisions
        legal = decisions.legal
        span = np.maximum(legal.max_raise_to - legal.min_raise_to + 1, 1)
        amounts = legal.min_raise_to + rng.integers(0, 2**31, batch.size) % span
        moves = rng.choice([FOLD, CHECK_CALL, RAISE], batch.size, p=[0.2, 0.5, 0.3])
        batch.step(moves, amounts)
        finished = int(batch.done.sum())
        batch.reset(stacks=rng.integers(10, 400, (finished, seats)))


def assert_same(a: InputArrays, b: InputArrays) -> None:
    for name in FIELDS:
        left, right = getattr(a, name), getattr(b, name)
        assert left.dtype == right.dtype, name
        assert left.shape == right.shape, name
        assert np.array_equal(left, right), name


def sample_inputs(seats: int, count: int, seed: int = 0) -> PolicyInputs:
    """``count`` encoded decisions from random play."""
    parts = [encode(d) for d in random_play(seats, 32, 12, seed)]
    arrays = InputArrays.concatenate(parts)
    assert arrays.size >= count
    return PolicyInputs.of(arrays.subset(np.arange(count)))


# -- the encoder ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 6])
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_encode_equals_the_reference_along_random_play(seats: int, seed: int) -> None:
    decisions_seen = 0
    for decisions in random_play(seats, 12, 25, seed):
        fast, slow = encode(decisions), encode_reference(decisions)
        assert_same(fast, slow)
        assert fast.history.shape == (decisions.size, HISTORY, ACTION_FEATURES)
        assert fast.scalars.shape == (decisions.size, SCALARS)
        assert fast.opponents.shape == (decisions.size, seats - 1, OPPONENT_FEATURES)
        decisions_seen += decisions.size
    assert decisions_seen > 100


def test_a_long_hand_keeps_its_last_actions_most_recent_last() -> None:
    """Heads-up min-raises past HISTORY actions: the rows are the last HISTORY actions in
    order, the encoder still equals the reference."""
    batch = BatchedTables(GameConfig(seats=2), 1, seed=0, max_actions=200)
    batch.reset(stacks=100_000, buttons=0)
    rng = np.random.default_rng(0)
    for _ in range(HISTORY + 11):
        legal = batch.legal()
        batch.step([RAISE], legal.min_raise_to)
    decisions = pending(batch, rng)
    arrays = encode(decisions)
    assert_same(arrays, encode_reference(decisions))
    log = batch.actions(0)
    assert len(log) == HISTORY + 11
    history = arrays.history[0]
    assert (history[:, 6] == 1.0).all()  # every kept row is a raise, no padding
    # the amount column is each kept raise's total in bb / 100, oldest first
    kept = np.array([amount for _, _, amount, _ in log[-HISTORY:]], dtype=np.float64)
    assert np.array_equal(history[:, 7], (kept / 2.0 / 100.0).astype(np.float32))


def test_a_short_hand_is_padded_in_front() -> None:
    batch = BatchedTables(GameConfig(seats=3), 1, seed=0)
    batch.reset(stacks=200, buttons=0)
    batch.step([CHECK_CALL])  # button calls
    batch.step([FOLD])  # small blind folds
    decisions = pending(batch, np.random.default_rng(0))
    history = encode(decisions).history[0]
    assert not history[: HISTORY - 2].any()
    call_row, fold_row = history[-2], history[-1]
    # viewer is the big blind (seat 2); the button (seat 0) is one seat to its left
    assert call_row.tolist() == pytest.approx([2 / 200, 0, 0.5, 0, 0, 1, 0, 0.01])
    assert fold_row.tolist() == pytest.approx([0, 0, 1.0, 0, 1, 0, 0, 0])


def test_other_seats_hole_cards_and_the_undealt_board_change_nothing() -> None:
    for decisions in random_play(6, 24, 8, seed=4):
        before = encode(decisions)
        batch = decisions.batch
        saved = batch.cards.copy()
        rng = np.random.default_rng(1)
        for row in range(decisions.size):
            table, viewer = int(decisions.tables[row]), int(decisions.seats[row])
            seen = {int(c) for c in batch.hole_cards[table, viewer]}
            shown = int(batch.table[table, SHOWN])
            seen |= {int(c) for c in batch.boards[table, :shown]}
            unseen = np.array(sorted(set(range(52)) - seen))
            fresh = rng.permutation(unseen)
            others = [s for s in range(6) if s != viewer]
            holes = batch.hole_cards[table].copy()
            holes[others] = fresh[:10].reshape(5, 2)
            board = batch.boards[table].copy()
            board[shown:] = fresh[10 : 10 + 5 - shown]
            batch.cards[table] = np.concatenate([holes.reshape(-1), board])
        assert not np.array_equal(saved, batch.cards)
        assert_same(before, encode(decisions))
        assert_same(before, encode_reference(decisions))
        batch.cards[:] = saved


def test_own_cards_and_the_shown_board_are_what_the_cards_say() -> None:
    """The card slots: own hole cards, the board shown so far, NO_CARD after it."""
    for decisions in random_play(3, 16, 10, seed=2):
        cards = encode(decisions).cards
        batch = decisions.batch
        for row in range(decisions.size):
            table, viewer = int(decisions.tables[row]), int(decisions.seats[row])
            shown = int(batch.table[table, SHOWN])
            expected = [*batch.hole_cards[table, viewer], *batch.boards[table, :shown]]
            expected += [NO_CARD] * (5 - shown)
            assert cards[row].tolist() == [int(c) for c in expected]


def test_mask_follows_the_legal_bounds() -> None:
    for decisions in random_play(6, 24, 10, seed=5):
        mask = encode(decisions).mask
        assert np.array_equal(mask[:, 0], decisions.call > 0)
        assert mask[:, CALL].all()
        assert np.array_equal(mask[:, BET], decisions.min_raise_to >= 0)


def test_fold_is_masked_when_checking_is_free_and_bet_when_no_raise_is_allowed() -> None:
    rng = np.random.default_rng(0)
    # heads-up: the button (small blind) limps, the big blind may check: no fold
    batch = BatchedTables(GameConfig(seats=2), 1, seed=0)
    batch.reset(stacks=200, buttons=0)
    batch.step([CHECK_CALL])
    assert encode(pending(batch, rng)).mask[0].tolist() == [False, True, True]
    # the button shoves its shorter stack: the big blind may fold or call, never raise
    batch.reset(0, stacks=[[50, 400]], buttons=0)
    batch.step([RAISE], [50])
    assert encode(pending(batch, rng)).mask[0].tolist() == [True, True, False]


def test_arrays_subset_concatenate_and_empty() -> None:
    decisions = next(iter(random_play(3, 8, 1, seed=0)))
    arrays = encode(decisions)
    assert arrays.size == decisions.size == 8
    rows = np.array([5, 1])
    again = InputArrays.concatenate([arrays.subset(rows[:1]), arrays.subset(rows[1:])])
    assert_same(again, arrays.subset(rows))
    empty = empty_inputs(3)
    assert empty.size == 0
    assert_same(encode(decisions.subset(np.zeros(0, dtype=np.int64))), empty)
    assert_same(InputArrays.concatenate([empty, arrays]), arrays)
    with pytest.raises(ValueError, match="seat counts"):
        InputArrays.concatenate([arrays, empty_inputs(4)])
    tensors = PolicyInputs.of(arrays)
    assert tensors.size == 8
    assert tensors.cards.dtype == torch.int64
    assert tensors.mask.dtype == torch.bool
    assert tensors.history.dtype == torch.float32
    picked = tensors.index(torch.tensor([5, 1]))
    assert torch.equal(picked.opponents, torch.from_numpy(arrays.opponents[rows]))


def test_shuffle_opponents_permutes_each_row_independently() -> None:
    inputs = sample_inputs(6, 64)
    shuffled = shuffle_opponents(inputs, torch.Generator().manual_seed(0))
    before, after = inputs.opponents, shuffled.opponents
    seat_column = 5  # the relative seat identifies each opponent row
    orders = set()
    for row in range(inputs.size):
        order = torch.argsort(after[row, :, seat_column])
        assert torch.equal(after[row][order], before[row])  # the same rows, permuted
        orders.add(tuple(after[row, :, seat_column].tolist()))
    assert len(orders) > 10  # independent permutations, not one for the batch
    for name in ("cards", "history", "scalars", "mask"):
        assert torch.equal(getattr(shuffled, name), getattr(inputs, name))


# -- the networks --------------------------------------------------------------------------------


@pytest.mark.parametrize("architecture", ARCHITECTURES)
@pytest.mark.parametrize("seats", [2, 6])
def test_outputs_have_the_interface_shapes_and_ranges(architecture: str, seats: int) -> None:
    net = tiny_net(architecture, seats)
    inputs = sample_inputs(seats, 20)
    hand, game = net.initial_state(inputs.size)
    assert hand.shape == (20, 4)
    assert game.shape == (20, 5)
    out = net(inputs, hand, game)
    assert out.action_logits.shape == (20, 3)
    assert out.bet_mean.shape == (20, 1)
    assert out.bet_std.shape == (20, 1)
    assert out.hand_state.shape == (20, 4)
    assert out.game_state.shape == (20, 5)
    assert out.response_logits is None  # no opponent head
    for tensor in out[:5]:
        assert torch.isfinite(tensor).all()
    assert ((out.bet_mean > 0) & (out.bet_mean < 1)).all()
    assert ((out.bet_std >= 1e-4) & (out.bet_std <= 1.0)).all()
    assert (out.hand_state.abs() <= 1).all()
    assert (out.game_state.abs() <= 1).all()
    # a fresh network plays near-uniformly and bets about 0.3
    probabilities = torch.softmax(out.action_logits, dim=1)
    assert probabilities.detach() == pytest.approx(torch.full((20, 3), 1 / 3), abs=0.02)
    assert out.bet_mean.detach() == pytest.approx(torch.full((20, 1), 0.3), abs=0.02)


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_an_empty_batch_gives_empty_outputs_in_both_modes(architecture: str) -> None:
    net = tiny_net(architecture, 6)
    inputs = PolicyInputs.of(empty_inputs(6))
    for training in (True, False):
        net.train(training)
        out = net(inputs, *net.initial_state(0))
        shapes = [tuple(tensor.shape) for tensor in out[:5]]
        assert shapes == [(0, 3), (0, 1), (0, 1), (0, 4), (0, 5)]


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_inputs_of_another_table_size_or_state_width_are_refused(architecture: str) -> None:
    net = tiny_net(architecture, 6)
    inputs = sample_inputs(3, 4)
    with pytest.raises(ValueError, match="2 opponents; this network plays 6 seats"):
        net(inputs, *net.initial_state(4))
    inputs = sample_inputs(6, 4)
    hand, game = net.initial_state(4)
    with pytest.raises(ValueError, match="hand_state has shape"):
        net(inputs, hand[:, :2], game)


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_memory_heads_are_trained_through_the_recurrent_state(architecture: str) -> None:
    """Three steps unrolled, each step's states feeding the next, a loss on the last
    step's logits only: gradients reach both memory heads and the first input states (so
    nothing on the way detaches them)."""
    net = tiny_net(architecture, 6)
    steps = [sample_inputs(6, 16, seed) for seed in (1, 2, 3)]
    hand0, game0 = (state.requires_grad_() for state in net.initial_state(16))
    hand, game = hand0, game0
    for inputs in steps:
        out = net(inputs, hand, game)
        hand, game = out.hand_state, out.game_state
    loss = torch.log_softmax(out.action_logits, dim=1)[:, 0].mean()
    loss.backward()
    heads = net.heads
    memory = (
        heads.hand_state_head,
        heads.game_state_head,
        heads.hand_state_gate,
        heads.game_state_gate,
    )
    for head in memory:
        for parameter in head.parameters():
            assert parameter.grad is not None
            assert parameter.grad.abs().sum() > 0
    assert hand0.grad is not None
    assert hand0.grad.abs().sum() > 0
    assert game0.grad is not None
    assert game0.grad.abs().sum() > 0


@pytest.mark.parametrize("seats", [2, 6])
def test_transformer_ignores_the_order_of_its_opponents(seats: int) -> None:
    net = tiny_net("transformer", seats).eval()
    inputs = sample_inputs(seats, 32)
    hand = torch.randn(32, 4)
    game = torch.randn(32, 5)
    shuffled = shuffle_opponents(inputs, torch.Generator().manual_seed(3))
    if seats > 2:
        assert not torch.equal(shuffled.opponents, inputs.opponents)
    with torch.no_grad():
        a, b = net(inputs, hand, game), net(shuffled, hand, game)
    for left, right in zip(a[:5], b[:5], strict=True):
        assert torch.allclose(left, right, atol=1e-5)


def test_the_cnn_and_mlp_see_their_opponents() -> None:
    """The order-invariance above is a property of the Transformer, not of the inputs."""
    inputs = sample_inputs(6, 32)
    shuffled = shuffle_opponents(inputs, torch.Generator().manual_seed(3))
    for architecture in ("cnn", "mlp"):
        net = tiny_net(architecture, 6).eval()
        with torch.no_grad():
            a = net(inputs, *net.initial_state(32)).hand_state
            b = net(shuffled, *net.initial_state(32)).hand_state
        assert not torch.allclose(a, b, atol=1e-6)


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_hyperparameters_rebuild_the_same_network(architecture: str) -> None:
    net = tiny_net(architecture, 3, seed=1).eval()
    described = json.loads(json.dumps(net.hyperparameters()))
    assert described["architecture"] == architecture
    assert described["seats"] == 3
    torch.manual_seed(99)
    rebuilt = build_net(described).eval()
    assert type(rebuilt) is type(net)
    rebuilt.load_state_dict(net.state_dict())
    inputs = sample_inputs(3, 10)
    hand, game = torch.randn(10, 4), torch.randn(10, 5)
    with torch.no_grad():
        for left, right in zip(
            net(inputs, hand, game)[:5], rebuilt(inputs, hand, game)[:5], strict=True
        ):
            assert torch.equal(left, right)


def test_net_config_rejects_unknown_keys_and_bad_values() -> None:
    with pytest.raises(ValidationError, match="d_modle"):
        NetConfig.model_validate({"d_modle": 32})
    with pytest.raises(ValidationError, match="architecture"):
        NetConfig(architecture="lstm")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="greater than 0"):
        NetConfig(trunk_layers=0)
    with pytest.raises(ValidationError, match="d_model=30 is not divisible by trunk_heads=4"):
        NetConfig(d_model=30, trunk_heads=4, cards_heads=2)
    with pytest.raises(ValidationError, match="cards_heads=3"):
        NetConfig(d_model=32, cards_heads=3)
    with pytest.raises(ValueError, match="lack 'seats'"):
        build_net({"architecture": "mlp"})
    with pytest.raises(ValueError, match=r"seats must be 2\.\.10"):
        build_net({"architecture": "mlp", "seats": 11})
    assert isinstance(build_net({"seats": 2}), TransformerNet)


def recall_after_hands(
    architecture: str, hands_later: int, steps: int, lr: float, hidden: int = 16
) -> float:
    """Train a tiny network to recall a bit shown at one hand ``hands_later`` hands on,
    through the game state alone (the hand state is reset at every hand and the later
    hands' inputs carry no trace of the bit); returns the recall accuracy on fresh bits."""
    torch.manual_seed(0)
    net = net_from_config(NetConfig(architecture=architecture, **{**TINY, "hidden": hidden}), 6)
    hands = [sample_inputs(6, 64, seed) for seed in range(hands_later + 1)]
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(0)

    def marked(inputs: PolicyInputs, bits: torch.Tensor) -> PolicyInputs:
        scalars = inputs.scalars.clone()
        scalars[:, -1] = bits
        return PolicyInputs(inputs.cards, inputs.history, scalars, inputs.opponents, inputs.mask)

    def recall(bits: torch.Tensor) -> torch.Tensor:
        hand, game = net.initial_state(64)
        out = net(marked(hands[0], bits), hand, game)
        for later in hands[1:]:
            out = net(marked(later, torch.zeros(64)), torch.zeros_like(hand), out.game_state)
        logits: torch.Tensor = out.action_logits
        return logits

    for _ in range(steps):
        bits = (torch.rand(64, generator=generator) < 0.5).float()
        loss = nn.functional.cross_entropy(recall(bits), bits.long())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if loss.item() < 0.02:
            break
    bits = (torch.rand(64, generator=generator) < 0.5).float()
    with torch.no_grad():
        return float((recall(bits).argmax(dim=1) == bits.long()).float().mean())


def test_the_game_state_learns_to_carry_a_bit_across_hands() -> None:
    """The cross-hand memory is usable, not only differentiable: a bit seen two hands
    earlier is recalled perfectly after a short training."""
    assert recall_after_hands("mlp", hands_later=2, steps=800, lr=1e-2) == 1.0


@pytest.mark.slow
@pytest.mark.parametrize(("architecture", "hidden"), [("transformer", 16), ("cnn", 64)])
def test_every_architecture_learns_to_carry_a_bit_across_hands(
    architecture: str, hidden: int
) -> None:
    """As above for the other two (about 30 s each). The CNN at 16 hidden units did not
    learn it in 800 steps at any of lr 1e-3, 3e-3, 1e-2; at 64 it does."""
    accuracy = recall_after_hands(architecture, hands_later=2, steps=800, lr=3e-3, hidden=hidden)
    assert accuracy == 1.0


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_the_opponent_head_answers_each_action(
    architecture: str,
) -> None:
    torch.manual_seed(0)
    net = net_from_config(NetConfig(architecture=architecture, opponent_head=True, **TINY), 4)
    net.eval()
    inputs = sample_inputs(4, 12)
    hand, game = torch.randn(12, 4), torch.randn(12, 5)
    shuffled = shuffle_opponents(inputs, torch.Generator().manual_seed(1))
    with torch.no_grad():
        out, again = net(inputs, hand, game), net(shuffled, hand, game)
    assert out.response_logits is not None
    assert again.response_logits is not None
    assert out.response_logits.shape == (12, 3, 3)
    if architecture == "transformer":  # the one whose opponent tokens carry no order
        assert torch.allclose(out.response_logits, again.response_logits, atol=1e-5)
    rebuilt = build_net(net.hyperparameters())
    rebuilt.load_state_dict(net.state_dict())
    assert rebuilt.config.opponent_head
