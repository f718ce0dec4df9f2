"""The population model's own posterior over a seat's hidden cards (EM imputation): the
class shortcut and the cache against plain enumeration, blocking, a card-blind model,
sampling-importance-resampling, the ``model:PATH`` spec and the EM rounds of training."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from poolshark.cards.combos import COMBO_CARDS, COMBO_CLASS, N_COMBOS
from poolshark.pool.context import Feature
from poolshark.pool.pools import load_pool
from poolshark.pool.ranges import RangeQuery
from poolshark.pool.simulate import simulate
from poolshark.population.actions import FOLD_CLASS, N_CLASSES
from poolshark.population.model import PopulationNet
from poolshark.population.posterior import (
    CLASS_REPRESENTATIVE,
    PolicyPosterior,
    PolicyPosteriorError,
    free_pair,
)
from poolshark.population.range_view import range_query
from poolshark.population.sources import range_source_from_spec
from poolshark.population.states import DecisionStates, HandLogs, hand_slice, select_hands


def tiny_net(seed: int = 0) -> PopulationNet:
    """A small randomly initialised population network (its likelihoods vary with cards)."""
    torch.manual_seed(seed)
    return PopulationNet(width=16, depth=1, class_embedding=4, opponent_width=8).eval()


@pytest.fixture(scope="module")
def hand_logs() -> HandLogs:
    hands = simulate(load_pool("micro-zoom"), 120, seed=3)
    starts, stops = hands.action_start[:-1], hands.action_start[1:]
    street = np.array([hands.action_street[a:b].max() for a, b in zip(starts, stops, strict=True)])
    rows = np.sort(np.r_[np.flatnonzero(street > 0)[:8], np.flatnonzero(street == 0)[:6]])
    chosen = select_hands(hands, rows)
    logs = hand_slice(chosen, chosen.action_logs(), 0, len(chosen))
    shown = np.array([0, 3, 4, 5])[street[rows]]
    boards = np.where(np.arange(5)[None, :] < shown[:, None], logs.boards, -1)
    return replace(logs, boards=boards)  # as a site writes it: only the cards dealt face up


def end_of_hand_query(hand_logs: HandLogs, dead: bool = False) -> RangeQuery:
    """Every seat that acted in each hand, asked after the hand's last action."""
    logs = hand_logs.logs
    acted = np.zeros(hand_logs.starting_stacks.shape, dtype=np.bool_)
    for h in range(len(hand_logs.button)):
        acted[h, logs.seat[h, : logs.length[h]]] = True
    hand, seat = np.nonzero(acted)
    known = (hand_logs.boards[hand] >= 0).sum(axis=1)
    contexts = np.zeros((hand.size, len(Feature)))
    contexts[:, Feature.STREET] = np.searchsorted([0, 3, 4, 5], known, side="right") - 1
    holes = np.full((hand.size, 2), -1, dtype=np.int64)
    if dead:
        holes = free_pair(hand_logs.boards[hand])
    states = DecisionStates(
        hand_logs, hand, logs.length[hand].astype(np.int64), seat, holes, contexts
    )
    return range_query(states, np.arange(hand.size), seat)


def test_class_representatives_cover_every_class() -> None:
    assert np.array_equal(COMBO_CLASS[CLASS_REPRESENTATIVE], np.arange(169))


def test_shortcuts_equal_plain_enumeration(hand_logs: HandLogs) -> None:
    query = end_of_hand_query(hand_logs)
    source = PolicyPosterior(tiny_net(), None, candidates=None)
    fast = source.ranges(query)
    reference = source.reference_ranges(query)
    assert np.allclose(fast, reference, atol=1e-6)
    assert np.allclose(fast.sum(axis=1), 1.0, atol=1e-5)
    spread = fast.max(axis=1) / np.where(fast > 0, fast, np.inf).min(axis=1)
    assert spread.max() > 1.1  # the network's likelihood does depend on the cards


def test_the_cache_gives_the_same_answer_without_new_preflop_rows(hand_logs: HandLogs) -> None:
    query = end_of_hand_query(hand_logs)
    source = PolicyPosterior(tiny_net(1), None, candidates=None)
    first = source.ranges(query)
    cached = len(source.preflop_cache)
    assert cached > 0
    second = source.ranges(query)
    assert len(source.preflop_cache) == cached
    assert np.array_equal(first, second)


def test_blocked_combos_get_nothing(hand_logs: HandLogs) -> None:
    query = end_of_hand_query(hand_logs, dead=True)
    for candidates in (None, 16):
        ranges = PolicyPosterior(tiny_net(2), None, candidates=candidates).ranges(query)
        assert np.all(ranges[query.blocked()] == 0)
        assert np.allclose(ranges.sum(axis=1), 1.0, atol=1e-5)


def test_a_card_blind_model_gives_back_the_deal(hand_logs: HandLogs) -> None:
    net = tiny_net(3)
    with torch.no_grad():
        last = net.head[-1]
        assert isinstance(last, torch.nn.Linear)
        last.weight.zero_()
        last.bias.zero_()
        last.bias[FOLD_CLASS] = 5.0  # folds whenever it may, whatever it holds
    query = end_of_hand_query(hand_logs)
    ranges = PolicyPosterior(net, None, candidates=None).ranges(query)
    live = ~query.blocked()
    prior = live / live.sum(axis=1, keepdims=True)
    assert np.allclose(ranges, prior, atol=1e-6)


def test_power_sharpens_the_posterior(hand_logs: HandLogs) -> None:
    query = end_of_hand_query(hand_logs)
    plain = PolicyPosterior(tiny_net(5), None, candidates=None).ranges(query).astype(np.float64)
    sharp = PolicyPosterior(tiny_net(5), None, candidates=None, power=2.0).ranges(query)
    squared = plain**2 / (plain**2).sum(axis=1, keepdims=True)
    assert np.allclose(sharp, squared, atol=1e-6)
    with pytest.raises(PolicyPosteriorError, match="power must be positive"):
        PolicyPosterior(tiny_net(), None, power=0.0)


def test_sampled_postflop_posterior_approaches_enumeration(hand_logs: HandLogs) -> None:
    query = end_of_hand_query(hand_logs)
    exact = PolicyPosterior(tiny_net(4), None, candidates=None).ranges(query)
    sampled = PolicyPosterior(tiny_net(4), None, candidates=3000, seed=1).ranges(query)
    postflop = np.flatnonzero(query.board[:, 0] >= 0)
    assert postflop.size
    sampled_only = np.flatnonzero(np.any(exact != sampled, axis=1))
    assert sampled_only.size
    assert set(sampled_only.tolist()) <= set(postflop.tolist())
    # a smooth statistic of the range: the mass on pairs and the mean rank of the high card
    pair = COMBO_CARDS[:, 0] >> 2 == COMBO_CARDS[:, 1] >> 2
    high = np.maximum(COMBO_CARDS[:, 0], COMBO_CARDS[:, 1]) >> 2
    assert np.allclose(sampled[:, pair].sum(axis=1), exact[:, pair].sum(axis=1), atol=0.05)
    assert np.allclose(sampled @ high, exact @ high, atol=0.6)


def test_model_spec_loads_a_checkpoint(tmp_path: Path) -> None:
    from poolshark.population.train import export_population_model

    path = export_population_model(
        tmp_path / "model.pt", tiny_net(), range_source="none", size_fractions=[0.5] * 11
    )
    source = range_source_from_spec(f"model:{path}")
    assert isinstance(source, PolicyPosterior)
    assert source.source is None
    tuned = range_source_from_spec(f"model:{path}?power=2.5&candidates=all")
    assert isinstance(tuned, PolicyPosterior)
    assert (tuned.power, tuned.candidates) == (2.5, None)
    with pytest.raises(PolicyPosteriorError, match="unknown option 'speed'"):
        range_source_from_spec(f"model:{path}?speed=2")
    with pytest.raises(PolicyPosteriorError, match="bad candidates"):
        range_source_from_spec(f"model:{path}?candidates=many")
    with pytest.raises(PolicyPosteriorError, match="no population-model checkpoint"):
        range_source_from_spec(f"model:{tmp_path / 'missing.pt'}")
    with pytest.raises(PolicyPosteriorError, match="at least 1"):
        PolicyPosterior(tiny_net(), None, candidates=0)


def test_em_rounds_train_each_round_on_the_previous_model(tmp_path: Path) -> None:
    from poolshark.population.train import PopulationTrainConfig, train_population

    config = PopulationTrainConfig(
        pool="micro-zoom",
        hands=300,
        ranges="none",
        hidden="showdown",
        em_rounds=1,
        em_power=2.0,
        out=tmp_path / "run",
        width=16,
        depth=1,
        class_embedding=4,
        opponent_width=8,
        epochs=1,
        batch_size=128,
        threads=1,
    )
    result = train_population(config)
    assert [r["imputer"] for r in result.em_rounds] == ["uniform"]
    first = Path(result.em_rounds[0]["checkpoint"])
    assert first.parent == tmp_path / "run" / "em-0"
    assert first.exists()
    saved = torch.load(result.best_checkpoint, weights_only=True)
    assert saved["config"]["imputer"] == f"model:{first}?power=2"
    assert Path(result.best_checkpoint).exists()
    again = train_population(config, resume=True)  # every round done: nothing retrained
    assert again.em_rounds[0]["checkpoint"] == str(first)
    with pytest.raises(ValueError, match="pass resume"):
        train_population(config)


def test_em_rounds_need_hidden_cards(tmp_path: Path) -> None:
    from poolshark.population.train import PopulationTrainConfig

    with pytest.raises(ValueError, match="em_rounds needs hidden cards"):
        PopulationTrainConfig(pool="micro-zoom", hands=100, em_rounds=1, out=tmp_path)


@pytest.mark.slow
def test_one_over_relaxed_em_round_beats_uniform_imputation(tmp_path: Path) -> None:
    from poolshark.population.train import (
        PopulationTrainConfig,
        evaluate_checkpoint,
        train_population,
    )

    common = {
        "pool": "micro-zoom",
        "hands": 4000,
        "ranges": "none",
        "hidden": "showdown",
        "width": 64,
        "depth": 2,
        "epochs": 4,
        "threads": 1,
    }
    uniform = train_population(
        PopulationTrainConfig(**common, imputer="uniform", out=tmp_path / "uniform")
    )
    em = train_population(
        PopulationTrainConfig(
            **common, imputer=f"model:{uniform.best_checkpoint}?power=4", out=tmp_path / "em"
        )
    )
    fresh = PopulationTrainConfig(pool="micro-zoom", hands=2000, simulation_seed=9, out=tmp_path)
    kl = {
        name: evaluate_checkpoint(Path(run.best_checkpoint), fresh.data_config())["model"]["kl"]
        for name, run in (("uniform", uniform), ("em", em))
    }
    assert kl["em"] < 0.85 * kl["uniform"]
    assert N_CLASSES == 14
    assert N_COMBOS == 1326


def test_imputer_names_map_to_training_keys() -> None:
    from poolshark.experiments.pipeline import PipelineConfig
    from poolshark.population.train import EM_POWER, EM_ROUNDS, imputer_settings

    assert imputer_settings("exact", "micro-zoom") == {
        "imputer": "exact:micro-zoom",
        "em_rounds": 0,
        "em_power": 1.0,
    }
    assert imputer_settings("em", "p") == {
        "imputer": "uniform",
        "em_rounds": EM_ROUNDS,
        "em_power": EM_POWER,
    }
    assert EM_POWER > 1.0
    assert imputer_settings("em:3", "p")["em_rounds"] == 3
    assert imputer_settings("oracle:x.pt", "p")["imputer"] == "oracle:x.pt"
    assert PipelineConfig().imputer == "em"
    with pytest.raises(ValueError, match="em:N needs N rounds"):
        PipelineConfig(imputer="em:0")
