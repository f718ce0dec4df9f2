"""The range oracle: valid ranges, suit symmetry, the loss against a plain reference, a tiny
run that learns, checkpoints that resume bit for bit and load for queries."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from poolshark.cards.isomorphism import CARD_PERMUTATIONS, COMBO_PERMUTATIONS
from poolshark.oracle import batches as obatch
from poolshark.oracle import data as od
from poolshark.oracle.loss import batch_loss, labelled_examples, oracle_loss
from poolshark.oracle.model import (
    KNOTS,
    STRENGTHS,
    BatchTensors,
    OracleError,
    OracleNet,
    RangeOracle,
    StrengthFunctions,
    read_oracle_checkpoint,
)
from poolshark.oracle.train import (
    OracleTrainConfig,
    OracleTrainingError,
    evaluate_oracle,
    train_oracle,
)
from poolshark.pool.context import ActionLogs
from poolshark.pool.pools import load_pool
from poolshark.pool.ranges import ExactPoolRanges, RangeQuery, RangeSource, UniformRanges
from poolshark.pool.simulate import SimulatedHands, simulate


@pytest.fixture(scope="module")
def hands() -> SimulatedHands:
    return simulate(load_pool("micro-zoom"), 160, seed=21)


@pytest.fixture(scope="module")
def data(hands: SimulatedHands) -> od.OracleData:
    return od.from_simulation(hands, exact=False, seed=2)


@pytest.fixture(scope="module")
def tiny_data() -> tuple[od.OracleData, od.OracleData]:
    pool = load_pool("micro-zoom")
    train = od.from_simulation(simulate(pool, 480, seed=31), exact=False, seed=31)
    # few tables: the first hands a simulation returns are its shortest ones
    val = od.from_simulation(simulate(pool, 120, seed=32, tables=4), exact=True, seed=32)
    return train, val


def random_net(seed: int = 0) -> OracleNet:
    """An untrained network whose scores are far from uniform."""
    torch.manual_seed(seed)
    net = OracleNet(hidden=32, preflop_width=32, combo_width=16, components=3)
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.add_(0.3 * torch.randn_like(parameter))
    return net.eval()


def log_probs_of(net: OracleNet, data: od.OracleData) -> np.ndarray:
    batch = obatch.make_batch(data, np.arange(data.hands))
    with torch.no_grad():
        result: np.ndarray = net(BatchTensors.of(batch, "cpu")).double().numpy()
    out = np.zeros_like(result)
    out[batch.examples] = result
    return out


def end_queries(hands: SimulatedHands, count: int, dead: bool = True) -> RangeQuery:
    """The range of seat h % seats after all of hand h's actions, a neighbour asking."""
    logs = hands.action_logs()
    rows = np.arange(count)
    seats = hands.seats
    seat = rows % seats
    board = np.where(
        np.arange(5)[None, :] < hands.shown[rows, None], hands.boards[rows].astype(np.int64), -1
    )
    holes = hands.hole_cards[rows, (seat + 1) % seats].astype(np.int64)
    return RangeQuery(
        hands.config,
        hands.stacks[rows],
        hands.button[rows],
        board,
        ActionLogs(*(a[rows] for a in logs[:4]), logs.length[rows]),  # type: ignore[call-arg]
        seat.astype(np.int64),
        holes if dead else np.full((count, 2), -1, dtype=np.int64),
    )


# -- the ranges ---------------------------------------------------------------------------------


def test_rows_sum_to_one_and_blocked_combos_get_nothing(hands: SimulatedHands) -> None:
    oracle = RangeOracle(random_net(), batch_hands=7)
    assert isinstance(oracle, RangeSource)
    query = end_queries(hands, 40)
    ranges = oracle.ranges(query)
    assert ranges.shape == (40, 1326)
    assert ranges.dtype == np.float32
    np.testing.assert_allclose(ranges.sum(axis=1), 1.0, atol=1e-6)
    blocked = query.blocked()
    assert (ranges[blocked] == 0).all()
    assert (ranges[~blocked] > 0).all()
    uniform = UniformRanges().ranges(query)
    assert np.abs(ranges - uniform).max() > 1e-3  # the actions moved something


def test_a_seat_that_has_not_acted_gets_the_uniform_deal(hands: SimulatedHands) -> None:
    query = end_queries(hands, 12)
    fresh = RangeQuery(
        query.config,
        query.starting_stacks,
        query.button,
        np.full((12, 5), -1, dtype=np.int64),
        query.logs._replace(length=np.zeros(12, dtype=np.int64)),
        query.seat,
        query.dead,
    )
    np.testing.assert_allclose(
        RangeOracle(random_net()).ranges(fresh), UniformRanges().ranges(fresh), atol=1e-7
    )


@pytest.mark.parametrize("renaming", [1, 9, 23])
def test_renaming_the_suits_renames_the_answer(data: od.OracleData, renaming: int) -> None:
    permutation = CARD_PERMUTATIONS[renaming].astype(np.int64)

    def renamed(cards: np.ndarray) -> np.ndarray:
        return np.where(cards >= 0, permutation[np.maximum(cards, 0)], -1).astype(np.int8)

    moved = od.OracleData(
        **{
            **{name: getattr(data, name) for name in data.arrays()},
            "boards": renamed(data.boards.astype(np.int64)),
            "example_dead": renamed(data.example_dead.astype(np.int64)),
            "example_combo": COMBO_PERMUTATIONS[renaming][data.example_combo.astype(np.int64)],
        }
    )
    net = random_net(3)
    original, relabelled = log_probs_of(net, data), log_probs_of(net, moved)
    np.testing.assert_allclose(
        relabelled[:, COMBO_PERMUTATIONS[renaming]], original, atol=2e-5, rtol=1e-5
    )


def test_answers_depend_only_on_the_asked_seats_own_actions(data: od.OracleData) -> None:
    """Other players' actions alone move nothing: before its first decision a seat's
    range is the uniform deal, whatever happened before it."""
    log_probs = log_probs_of(random_net(5), data)
    first = (data.example_before == 0) & ~data.example_end
    possible = np.isfinite(log_probs[first])
    count = possible.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(
        np.where(possible, log_probs[first], 0), np.where(possible, -np.log(count), 0), atol=1e-5
    )


def test_strength_functions_equal_a_linear_layer_on_hat_codes() -> None:
    """The embedding-bag form against the plain one: each strength value spread over its
    two nearest knots, then a matrix product with the table."""
    torch.manual_seed(2)
    functions = StrengthFunctions(7)
    features = torch.rand(5, 11, 18)
    features[0, 0, :3] = torch.tensor([1.0, 0.5, 0.0])  # the ends of each range
    codes = []
    for column, power, top in STRENGTHS:
        value = (features[..., column] ** power).clamp(0.0, top)
        knots = torch.linspace(0.0, top, KNOTS)
        codes.append(torch.clamp(1 - (value[..., None] - knots).abs() * (KNOTS - 1) / top, min=0))
    want = torch.cat(codes, dim=-1) @ functions.table
    torch.testing.assert_close(functions(features), want, atol=1e-5, rtol=1e-5)


# -- the loss -----------------------------------------------------------------------------------


def test_the_loss_matches_a_plain_reference() -> None:
    rng = np.random.default_rng(4)
    examples = 9
    blocked = rng.random((examples, 1326)) < 0.15
    logits = torch.from_numpy(rng.normal(size=(examples, 1326)) * 2)
    log_probs = torch.log_softmax(logits.masked_fill(torch.from_numpy(blocked), -math.inf), dim=1)
    combo = torch.tensor([int(np.flatnonzero(~row)[5]) for row in blocked])
    combo[2] = -1
    shown = torch.tensor([True, False, True, True, False, True, False, True, True])
    deal = torch.tensor([True, True, False, True, False, True, True, False, True])
    averaged = [i for i in range(examples) if deal[i]]
    for mode in ("all", "shown"):
        labelled = labelled_examples(combo, shown, mode)
        terms = oracle_loss(log_probs, combo, labelled, torch.from_numpy(blocked), 0.7, deal)
        values = log_probs.numpy()
        chosen = [i for i in range(examples) if combo[i] >= 0 and (mode == "all" or shown[i])]
        nll = -sum(values[i, int(combo[i])] for i in chosen) / len(chosen)
        average_deal = np.zeros(1326)
        average_prediction = np.zeros(1326)
        for i in averaged:
            possible = [c for c in range(1326) if not blocked[i, c]]
            for c in possible:
                average_deal[c] += 1 / len(possible) / len(averaged)
            average_prediction += np.exp(values[i]) / len(averaged)
        kl = sum(
            t * (math.log(t) - math.log(p))
            for t, p in zip(average_deal, average_prediction, strict=True)
            if t > 0
        )
        assert float(terms.nll) == pytest.approx(nll, rel=1e-9)
        assert float(terms.batch_kl) == pytest.approx(kl, rel=1e-9, abs=1e-12)
        assert float(terms.loss) == pytest.approx(nll + 0.7 * kl, rel=1e-9)
    nothing = torch.zeros(examples, dtype=torch.bool)
    empty = oracle_loss(log_probs, combo, nothing, torch.from_numpy(blocked), 0.0, deal)
    assert float(empty.loss) == 0.0
    no_deal = oracle_loss(log_probs, combo, nothing, torch.from_numpy(blocked), 1.0, nothing)
    assert float(no_deal.batch_kl) == 0.0


def seat_acted_before(data: od.OracleData, example: int) -> bool:
    """Whether the asked seat made one of the hand's actions before the question."""
    first = int(data.action_start[int(data.example_hand[example])])
    earlier = data.actor[first : first + int(data.example_before[example])]
    return bool((earlier == data.example_seat[example]).any())


def test_the_batch_term_leaves_the_exact_posterior_alone() -> None:
    """The average posterior equals the deal only over questions that are not selected on
    the seat's cards (end of hand, or before the seat's first action). Questions after the
    seat's own decisions (only players who did not fold are asked again) average far from
    the deal; a batch term over them pulls a correct oracle toward uniform."""
    hands = simulate(load_pool("micro-zoom"), 200, seed=5, tables=8)
    data = od.from_simulation(hands, exact=True, seed=5, keep_exact_rows=True)
    batch = obatch.make_batch(data, np.arange(data.hands))
    exact = torch.from_numpy(data.exact_rows[batch.examples].astype(np.float64)).log()
    exact.requires_grad_(True)
    selected = np.array(
        [not batch.end[i] and seat_acted_before(data, int(e)) for i, e in enumerate(batch.examples)]
    )
    assert selected.sum() > 500
    assert (~selected).sum() > 2000
    # after a seat's own decisions its true range is far from the deal on average
    possible = ~batch.blocked
    deal = (possible / possible.sum(axis=1, keepdims=True))[selected].mean(axis=0)
    average = data.exact_rows[batch.examples][selected].astype(np.float64).mean(axis=0)
    assert float((deal * np.log(deal / average)).sum()) > 0.5
    terms = batch_loss(exact, BatchTensors.of(batch, "cpu"), "all", 1.0)
    # the true posterior pays (almost) nothing: the sampling noise of 200 hands
    assert terms.batch_kl.item() < 0.002
    terms.batch_kl.backward()  # type: ignore[no-untyped-call]
    assert exact.grad is not None
    assert float(exact.grad[torch.from_numpy(selected)].abs().max()) == 0.0
    assert float(exact.grad[torch.from_numpy(~selected)].abs().max()) > 0.0


# -- training ---------------------------------------------------------------------------------


def tiny_config(out: Path, **changes: Any) -> OracleTrainConfig:
    settings: dict[str, Any] = {
        "out": out,
        "data": out / "unused.npz",
        "hidden": 48,
        "preflop_width": 64,
        "combo_width": 16,
        "components": 4,
        "epochs": 2,
        "batch_hands": 16,
        "learning_rate": 8e-3,
        "checkpoint_every": 7,
        "log_every": 5,
        "threads": 1,
    }
    settings.update(changes)
    return OracleTrainConfig.model_validate(settings)


def test_a_tiny_run_learns_and_loads_for_queries(
    tiny_data: tuple[od.OracleData, od.OracleData], tmp_path: Path
) -> None:
    train, val = tiny_data
    config = tiny_config(tmp_path / "run", epochs=4)
    result = train_oracle(config, data=(train, val))
    report = result.best_val
    assert report is not None
    assert report.exact_nll is not None
    assert report.gap is not None
    assert report.exact_nll < report.nll < report.uniform_nll - 0.1, report.to_json()
    gained, possible = report.uniform_nll - report.nll, report.uniform_nll - report.exact_nll
    assert gained > 0.35 * possible
    assert report.rank < 0.45
    assert report.probability > report.uniform_probability
    assert set(report.by_street) == {"preflop", "flop", "turn", "river"}
    payload = torch.load(tmp_path / "run" / "best.pt", weights_only=True)
    assert payload["kind"] == "range-oracle"
    assert payload["config"]["mode"] == "all"
    oracle = RangeOracle.load(tmp_path / "run" / "best.pt")
    again = evaluate_oracle(oracle.net, val)
    assert again.nll == pytest.approx(report.nll, rel=1e-6)
    assert (tmp_path / "run" / "tensorboard").is_dir()


def test_shown_mode_trains_on_showdowns_with_the_batch_term(
    tiny_data: tuple[od.OracleData, od.OracleData], tmp_path: Path
) -> None:
    train, val = tiny_data
    config = tiny_config(tmp_path / "shown", mode="shown", epochs=2)
    assert config.effective_batch_weight == 1.0
    result = train_oracle(config, data=(train, val))
    assert result.best_val is not None
    assert result.best_val.shown is not None
    assert result.best_val.shown["nll"] < result.best_val.shown["uniform_nll"]


class KilledError(Exception):
    """Stands in for a run killed between two checkpoints."""


def test_a_killed_run_resumes_to_the_same_weights(
    tiny_data: tuple[od.OracleData, od.OracleData], tmp_path: Path
) -> None:
    train, val = tiny_data
    small = (train.select_hands(np.arange(160)), val.select_hands(np.arange(40)))
    straight = train_oracle(tiny_config(tmp_path / "straight"), data=small)

    def kill(step: int, _total: int) -> None:
        if step == 10:
            raise KilledError

    broken = tiny_config(tmp_path / "broken")
    with pytest.raises(KilledError):
        train_oracle(broken, data=small, on_step=kill)
    resumed = train_oracle(broken, data=small, resume=True)
    assert resumed.history == straight.history
    final = torch.load(tmp_path / "straight" / "last.pt", weights_only=True)["model"]
    again = torch.load(tmp_path / "broken" / "last.pt", weights_only=True)["model"]
    assert final.keys() == again.keys()
    for name in final:
        assert torch.equal(final[name], again[name]), name
    with pytest.raises(OracleTrainingError, match="exists"):
        train_oracle(broken, data=small)
    with pytest.raises(OracleTrainingError, match="learning_rate"):
        train_oracle(tiny_config(tmp_path / "broken", learning_rate=1e-3), data=small, resume=True)
    other = (train.select_hands(np.arange(1, 161)), small[1])
    with pytest.raises(OracleTrainingError, match="other data"):
        train_oracle(broken, data=other, resume=True)
    with pytest.raises(OracleTrainingError, match="no checkpoint"):
        train_oracle(tiny_config(tmp_path / "fresh"), data=small, resume=True)


def test_checkpoints_must_be_range_oracles(tmp_path: Path) -> None:
    torch.save({"kind": "equity-net"}, tmp_path / "other.pt")
    with pytest.raises(OracleError, match="not a range-oracle"):
        read_oracle_checkpoint(tmp_path / "other.pt")
    with pytest.raises(OracleError, match="no range-oracle checkpoint"):
        RangeOracle.load(tmp_path / "missing.pt")


def test_configs_name_their_problems(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="exactly one data source"):
        OracleTrainConfig.model_validate({"out": tmp_path, "pool": "micro-zoom", "data": "x"})
    with pytest.raises(ValueError, match="needs hands"):
        OracleTrainConfig.model_validate({"out": tmp_path, "pool": "micro-zoom"})
    with pytest.raises(ValueError, match="mode 'shown'"):
        OracleTrainConfig.model_validate({"out": tmp_path, "rows": tmp_path})
    with pytest.raises(ValueError, match="device"):
        OracleTrainConfig.model_validate({"out": tmp_path, "data": "x", "device": "tpu"})
    with pytest.raises(ValueError, match="extra"):
        OracleTrainConfig.model_validate({"out": tmp_path, "data": "x", "epoch": 3})
    toml = tmp_path / "run.toml"
    toml.write_text('pool = "micro-zoom"\nhands = 1000\nout = "runs/x"\nmode = "shown"\n')
    config = OracleTrainConfig.from_toml(toml, epochs=4)
    assert config.epochs == 4
    assert config.effective_batch_weight == 1.0
    toml.write_text("pool = [")
    with pytest.raises(OracleTrainingError, match="not valid TOML"):
        OracleTrainConfig.from_toml(toml)


def test_the_oracle_and_the_exact_posterior_answer_the_same_queries(
    hands: SimulatedHands,
) -> None:
    """Both are range sources; on the same queries both give valid rows."""
    query = end_queries(hands, 6)
    for source in (RangeOracle(random_net()), ExactPoolRanges(hands.pool)):
        rows = source.ranges(query)
        np.testing.assert_allclose(rows.sum(axis=1), 1.0, atol=1e-5)
        assert (rows[query.blocked()] == 0).all()
