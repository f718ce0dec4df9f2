"""The self-play league: config, checkpoint pool, rollouts, REINFORCE, resume, agents."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from poolshark.agents.bots import CallingStation, Folder
from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import AgentError, Decisions, Moves
from poolshark.agents.switching import SwitchingAgent
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.kernel import CHECK_CALL, RAISE
from poolshark.engine.kernel import FOLD as ENGINE_FOLD
from poolshark.evaluate.match import MatchConfig, default_lineup, play_match
from poolshark.league.actions import (
    masked_log_probabilities,
    raise_amounts,
    sample_actions,
    sample_sizes,
    size_log_prob,
)
from poolshark.league.agent import LeagueAgent, read_league_checkpoint
from poolshark.league.checkpoints import CheckpointPool, thin
from poolshark.league.config import LeagueConfig, LeagueError, PoolSettings, scheduled
from poolshark.league.critic import ValueBaseline, fit_values
from poolshark.league.inputs import (
    A_FOLD,
    A_RAISE,
    A_VIEWER,
    BET,
    CALL,
    FOLD,
    O_FOLDED,
    S_CALL,
    PolicyInputs,
    encode_hand_ends,
)
from poolshark.league.nets import net_from_config
from poolshark.league.reinforce import (
    ActionBaselines,
    advantages,
    diversity_penalty,
    game_steps,
    opponent_loss,
    reinforce_loss,
    unroll,
)
from poolshark.league.rollout import (
    Experience,
    HandEnds,
    collect,
    discounted_returns,
    lineup_keys,
    merge,
)
from poolshark.league.train import HISTORY_COLUMNS, epoch_plan, train_league
from poolshark.play.loop import match_game

TINY: dict[str, Any] = {
    "game.games_per_epoch": 24,
    "game.hands_per_game": 4,
    "learning.epochs": 2,
    "net.d_model": 16,
    "net.trunk_heads": 2,
    "net.cards_heads": 2,
    "net.trunk_layers": 1,
    "net.hand_state_dim": 8,
    "net.game_state_dim": 8,
    "net.hidden": 32,
    "pool.snapshot_every": 1,
    "tensorboard": False,
}


LEARNING_RUN: dict[str, Any] = {
    "seed": 2,
    "game.seats": 2,
    "game.games_per_epoch": 256,
    "game.hands_per_game": 8,
    "learning.epochs": 60,
    "learning.learning_rate": 1e-2,
    "learning.entropy_coef": 0.01,
    "learning.lr_decay_steps": 1000,
    "learning.baseline": "value",
    "rewards.shaping": False,
    "rewards.showdown_multiplier_start": 1.0,
    "net.architecture": "mlp",
    "net.hidden": 64,
    "net.hand_state_dim": 16,
    "net.game_state_dim": 16,
    "pool.snapshot_every": 20,
    "pool.fixed_opponents": {"random": 1.0, "station": 1.0},
    "pool.fixed_share": 1.0,
}
"""The learning test's run: heads-up, a small MLP, 60 epochs against random and the
calling station as the league's fixed opponents (about 75 s here). Pure self-play at this
length beats random but not reliably the station (``docs/league.md``)."""


def tiny(**overrides: Any) -> LeagueConfig:
    return LeagueConfig.load(None, **{**TINY, **overrides})


def experience_of(config: LeagueConfig, epoch: int = 0, seed: int = 0) -> tuple[Any, Experience]:
    torch.manual_seed(seed)
    net = net_from_config(config.net, config.game.seats)
    opponent = net_from_config(config.net, config.game.seats)
    plan = epoch_plan(config, epoch)
    return net, collect(plan, net, [opponent], (seed, epoch, 0))


# -- config -----------------------------------------------------------------------------------


def test_unknown_config_keys_are_errors_naming_the_key(tmp_path: Path) -> None:
    path = tmp_path / "league.toml"
    path.write_text("[learning]\nentropy_cof = 0.1\n")
    with pytest.raises(LeagueError, match=r"learning\.entropy_cof: unknown key"):
        LeagueConfig.load(path)
    path.write_text("[game]\nseats = 1\n")
    with pytest.raises(LeagueError, match=r"game\.seats"):
        LeagueConfig.load(path)


def test_milestone_schedules_and_the_showdown_curriculum(tmp_path: Path) -> None:
    path = tmp_path / "league.toml"
    path.write_text(
        "[game]\nhands_per_game = { 0 = 40, 300 = 30, 1000 = 25 }\n"
        "[rewards]\nshowdown_multiplier_epochs = 100\n"
    )
    config = LeagueConfig.load(path)
    assert [scheduled(config.game.hands_per_game, e) for e in (0, 299, 300, 5000)] == [
        40,
        40,
        30,
        25,
    ]
    rewards = config.rewards
    assert rewards.showdown_multiplier(0) == pytest.approx(2.0)
    assert rewards.showdown_multiplier(50) == pytest.approx(1.5)
    assert rewards.showdown_multiplier(500) == pytest.approx(1.0)
    path.write_text("[game]\nhands_per_game = { 5 = 40 }\n")
    with pytest.raises(LeagueError, match="must start at epoch 0"):
        LeagueConfig.load(path)


# -- the checkpoint pool ----------------------------------------------------------------------


def test_thinning_keeps_the_latest_and_the_first_and_spreads_the_rest() -> None:
    epochs = list(range(0, 200, 10))
    dropped = thin(epochs, max_models=8, keep_latest=3)
    kept = sorted(set(epochs) - set(dropped))
    assert len(kept) == 8
    assert kept[-3:] == [170, 180, 190]
    assert kept[0] == 0
    gaps = np.diff(kept[:-3])
    assert gaps.max() <= 2 * gaps.min() + 10


def test_sampling_laws(tmp_path: Path) -> None:
    for mode, expected in (
        ("uniform", [1 / 3, 1 / 3, 1 / 3]),
        ("linear", [1 / 63, 21 / 63, 41 / 63]),
        ("exponential", np.array([0.25, 0.5, 1.0]) / 1.75),
    ):
        pool = CheckpointPool(PoolSettings(sampling=mode, half_life=20.0), tmp_path / mode)
        for epoch in (0, 20, 40):
            pool.add(epoch, {"epoch": epoch})
        assert pool.weights() == pytest.approx(np.asarray(expected))
        draws = pool.draw(np.random.default_rng(0), 20_000)
        counts = np.bincount([pool.state().index(s.epoch) for s in draws], minlength=3)
        assert counts / 20_000 == pytest.approx(np.asarray(expected), abs=0.015)


def test_the_pool_deletes_thinned_files(tmp_path: Path) -> None:
    pool = CheckpointPool(PoolSettings(max_models=3, keep_latest=2), tmp_path)
    for epoch in range(5):
        pool.add(epoch, {"epoch": epoch})
    assert pool.state() == [0, 3, 4]
    assert sorted(p.name for p in tmp_path.glob("*.pt")) == [
        "epoch_0000000.pt",
        "epoch_0000003.pt",
        "epoch_0000004.pt",
    ]


# -- actions and sizes ------------------------------------------------------------------------


def test_sizes_are_drawn_from_the_density_the_loss_scores() -> None:
    """The sampler and ``size_log_prob`` are one distribution: sampled z match the Normal
    the loss uses (mean, spread and a Kolmogorov-Smirnov distance)."""
    mean = torch.full((20_000, 1), 0.3)
    std = torch.full((20_000, 1), 0.5)
    z = sample_sizes(mean, std, np.random.default_rng(1)).astype(np.float64)
    location = float(torch.logit(torch.tensor(0.3)))
    assert z.mean() == pytest.approx(location, abs=0.02)
    assert z.std() == pytest.approx(0.5, abs=0.01)
    grid = np.sort(z)
    normal = torch.distributions.Normal(location, 0.5)
    cdf = normal.cdf(torch.from_numpy(grid)).numpy()
    empirical = np.arange(1, grid.size + 1) / grid.size
    assert np.abs(cdf - empirical).max() < 0.015
    density = size_log_prob(mean[:5], std[:5], torch.from_numpy(grid[:5]).float())
    expected = normal.log_prob(torch.from_numpy(grid[:5])).float()
    assert torch.allclose(density, expected, atol=1e-5)


def test_size_gradient_moves_the_mean_toward_rewarded_sizes() -> None:
    raw = torch.zeros(1, 1, requires_grad=True)
    mean = torch.sigmoid(raw)
    z = torch.tensor([2.0])  # a big bet that was rewarded
    loss = -size_log_prob(mean, torch.full((1, 1), 0.5), z).sum()
    loss.backward()
    assert raw.grad is not None
    assert float(raw.grad) < 0  # descent raises the mean


def test_raise_amounts_stay_legal_and_span_min_to_all_in() -> None:
    low = np.array([4, 4, 4, -1, 10])
    high = np.array([200, 200, 200, -1, 10])
    z = np.array([-30.0, 0.0, 30.0, 0.0, 1.0], dtype=np.float32)
    amounts = raise_amounts(z, low, high)
    assert amounts.tolist() == [4, round(4 * 50**0.5), 200, -1, 10]


def test_sampled_actions_never_pick_illegal_ones() -> None:
    logits = torch.randn(5000, 3)
    mask = torch.from_numpy(np.random.default_rng(0).random((5000, 3)) < 0.6)
    mask[:, CALL] = True
    probabilities = masked_log_probabilities(logits, mask).exp().numpy().astype(np.float64)
    actions = sample_actions(probabilities, np.random.default_rng(2))
    assert mask.numpy()[np.arange(5000), actions].all()


# -- the loss ---------------------------------------------------------------------------------


def test_the_anti_collapse_penalty_hits_the_action_that_left_the_band() -> None:
    """The open peer penalised the wrong action indices; here each column is its action."""
    logits = torch.tensor([[3.0, 0.0, 0.0]] * 10, requires_grad=True)  # fold ~ 0.91
    mask = torch.ones(10, 3, dtype=torch.bool)
    probabilities = masked_log_probabilities(logits, mask).exp()
    penalty, means = diversity_penalty(probabilities, mask, 0.08, 0.80)
    assert means[FOLD] > 0.8
    values, mean_p = penalty.detach(), means.detach()
    assert float(values[FOLD]) == pytest.approx(float(mean_p[FOLD]) - 0.8)
    assert float(values[CALL]) == pytest.approx(0.08 - float(mean_p[CALL]))
    assert float(values[BET]) == pytest.approx(0.08 - float(mean_p[BET]))
    penalty[FOLD].backward()
    assert logits.grad is not None
    assert (logits.grad[:, FOLD] > 0).all()  # descent lowers the fold logit
    assert (logits.grad[:, [CALL, BET]] < 0).all()


def test_the_penalty_averages_each_action_over_rows_where_it_is_legal() -> None:
    probabilities = torch.tensor([[0.0, 0.5, 0.5], [0.5, 0.25, 0.25]])
    mask = torch.tensor([[False, True, True], [True, True, True]])
    _, means = diversity_penalty(probabilities, mask, 0.08, 0.8)
    assert means.tolist() == pytest.approx([0.5, 0.375, 0.375])


def test_baselines_roll_over_the_window_per_action() -> None:
    baselines = ActionBaselines(window=2)
    actions = np.array([FOLD, CALL, BET, BET])
    first = baselines.values(np.array([-1.0, 2.0, 4.0, 6.0]), actions)
    assert first.tolist() == [-1.0, 2.0, 5.0]  # no window yet: this epoch's means
    baselines.update(np.array([-1.0, 2.0, 4.0, 6.0]), actions)
    baselines.update(np.array([-3.0, 0.0, 0.0, 0.0]), actions)
    baselines.update(np.array([-3.0, 0.0, 0.0, 0.0]), actions)  # the first epoch rolls out
    assert baselines.values(np.zeros(4), actions).tolist() == [-3.0, 0.0, 0.0]
    normalized = advantages(np.array([1.0, 2.0, 3.0, 5.0]), actions, np.zeros(3))
    assert normalized.mean() == pytest.approx(0.0)
    assert normalized.std() == pytest.approx(1.0)


def test_discounted_returns_stay_within_their_game() -> None:
    rewards = np.array([1.0, 10.0, 2.0, 20.0])
    games = np.array([0, 1, 0, 1])
    assert discounted_returns(rewards, games, 0.5).tolist() == [2.0, 20.0, 2.0, 20.0]
    assert discounted_returns(rewards, games, 0.0).tolist() == rewards.tolist()


def test_game_steps_order_each_games_decisions() -> None:
    steps, table = game_steps(np.array([1, 0, 1, 1, 0]))
    assert steps.tolist() == [0, 0, 1, 2, 1]
    assert table.tolist() == [[1, 0], [4, 2], [-1, 3]]


# -- rollouts and the replay ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "architecture", "memory", "hand_ends"),
    [
        (2, "transformer", True, False),
        (6, "cnn", True, False),
        (3, "mlp", True, False),
        (2, "mlp", False, False),
        (2, "transformer", True, True),
        (6, "mlp", True, True),
    ],
)
def test_the_replay_reproduces_the_rollouts_probabilities(
    seats: int, architecture: str, memory: bool, hand_ends: bool
) -> None:
    """Replaying with gradients gives the log-probabilities the actions were sampled from:
    the same inputs (opponents shuffled), states carried in order, hand states cleared
    (and game states too, without cross-hand memory), end-of-hand steps in their places."""
    config = tiny(
        **{
            "game.seats": seats,
            "net.architecture": architecture,
            "net.cross_hand_memory": memory,
            "net.hand_end_step": hand_ends,
        }
    )
    net, experience = experience_of(config)
    assert experience.size > 50
    assert (experience.hand_ends.size > 0) == hand_ends
    assert experience.new_hand.any()
    assert (~experience.new_hand).any()
    replay = unroll(net, experience, torch.device("cpu"))
    mask = torch.from_numpy(experience.inputs.mask)
    log_p = masked_log_probabilities(replay.action_logits, mask)
    rows = torch.arange(experience.size)
    actions = torch.from_numpy(experience.actions)
    total = log_p[rows, actions].detach()
    betting = actions == BET
    sizes = torch.from_numpy(experience.sizes)
    size_part = size_log_prob(replay.bet_mean, replay.bet_std, sizes).detach()
    total = total + torch.where(betting, size_part, torch.zeros_like(size_part))
    assert torch.allclose(total, torch.from_numpy(experience.log_probs), atol=1e-4)


def test_hand_end_steps_change_the_replay_only_through_the_game_state() -> None:
    """Dropping the recorded end-of-hand steps changes the replayed probabilities of later
    decisions (the steps write the game state), but never the first hand's."""
    config = tiny(**{"game.seats": 2, "net.hand_end_step": True})
    net, experience = experience_of(config)
    ends = experience.hand_ends
    assert ends.size >= experience.games
    assert not ends.inputs.mask.any()
    assert (ends.inputs.scalars[:, :4] == 0).all()  # no street: the hand is over
    with torch.no_grad():
        full = unroll(net, experience, torch.device("cpu")).action_logits
        bare = unroll(
            net, replace(experience, hand_ends=HandEnds.none(2)), torch.device("cpu")
        ).action_logits
    first_end = np.full(experience.games, np.iinfo(np.int64).max)
    np.minimum.at(first_end, ends.game, ends.sequence)
    before = experience.sequence < first_end[experience.game]
    assert before.any()
    assert (~before).any()
    assert torch.equal(full[torch.from_numpy(before)], bare[torch.from_numpy(before)])
    assert not torch.allclose(full[torch.from_numpy(~before)], bare[torch.from_numpy(~before)])


def test_the_end_of_hand_inputs_hold_the_whole_hand() -> None:
    """A heads-up hand where the button raises and the big blind folds: the end-of-hand
    row of each seat has the fold as its last history row, nothing to call, no street."""
    batch = BatchedTables(GameConfig(seats=2), 1, seed=3)
    batch.reset(np.array([0]), stacks=np.array([[200, 200]]), buttons=np.array([0]))
    raiser = int(batch.legal().to_act[0])
    batch.step(np.array([2]), np.array([12]))
    folder = int(batch.legal().to_act[0])
    batch.step(np.array([0]), np.array([0]))
    assert batch.done[0]
    assert folder != raiser
    inputs = encode_hand_ends(batch, np.array([0, 0]), np.array([raiser, folder]))
    last = inputs.history[:, -1]
    assert last[:, A_FOLD].tolist() == [1.0, 1.0]
    assert last[:, A_VIEWER].tolist() == [0.0, 1.0]  # the raiser saw the other fold
    assert inputs.history[0, -2, A_RAISE] == 1.0
    assert (inputs.scalars[:, :4] == 0).all()
    assert (inputs.scalars[:, S_CALL] == 0).all()
    assert not inputs.mask.any()
    assert inputs.opponents[0, 0, O_FOLDED] == 1.0
    assert inputs.opponents[1, 0, O_FOLDED] == 0


def test_a_second_match_starts_with_a_fresh_memory() -> None:
    """The same agent object playing two matches in a row (``league eval`` plays one
    opponent after another) plays the second as a fresh agent would: a new batch of tables
    clears the game states, so no memory of the first opponent leaks into the second."""
    config = tiny(**{"game.seats": 2, "net.hand_end_step": True})
    torch.manual_seed(0)
    net = net_from_config(config.net, 2)

    def won(agent: Any, opponent: Any, seed: int) -> int:
        match = play_match(
            [agent, opponent],
            default_lineup(2, 2, against=True),
            MatchConfig(hands=200, seats=2, seed=seed),
        )
        return match.agents[0].won_chips

    reused, fresh = LeagueAgent(net), LeagueAgent(net)
    won(reused, Folder(), 3)
    assert won(reused, CallingStation(), 4) == won(fresh, CallingStation(), 4)
    np.testing.assert_array_equal(reused._game, fresh._game)
    switching = [SwitchingAgent([Folder(), CallingStation()], ["folder", "station"], 0.3)]
    switching.append(SwitchingAgent([Folder(), CallingStation()], ["folder", "station"], 0.3))
    won(LeagueAgent(net), switching[0], 3)
    results = [won(LeagueAgent(net), agent, 4) for agent in switching]
    assert results[0] == results[1]
    np.testing.assert_array_equal(switching[0]._current, switching[1]._current)


def test_a_wiped_agent_plays_like_its_weights_without_memory() -> None:
    """``wipe_memory`` (the memory experiment's ablation) plays exactly as the same weights
    in a network without cross-hand memory; the network as trained carries its game state
    from hand to hand instead (an untrained network's play barely depends on it)."""
    config = tiny(**{"game.seats": 2, "net.hand_end_step": True})
    torch.manual_seed(0)
    net = net_from_config(config.net, 2)
    plain = net_from_config(config.net.model_copy(update={"cross_hand_memory": False}), 2)
    plain.load_state_dict(net.state_dict())

    def won(agent: LeagueAgent) -> int:
        match = play_match(
            [agent, CallingStation()],
            default_lineup(2, 2, against=True),
            MatchConfig(hands=300, seats=2, seed=5),
        )
        return match.agents[0].won_chips

    wiped, remembering = LeagueAgent(net, wipe_memory=True), LeagueAgent(net)
    assert won(wiped) == won(LeagueAgent(plain))
    won(remembering)
    assert not np.allclose(wiped._game, remembering._game)


def test_memory_heads_get_gradients_through_the_replay() -> None:
    config = tiny(**{"game.seats": 2})
    net, experience = experience_of(config)
    replay = unroll(net, experience, torch.device("cpu"))
    adv = advantages(experience.returns, experience.actions, np.zeros(3))
    reinforce_loss(replay, experience, adv, config.learning, torch.device("cpu")).loss.backward()
    heads = {
        name: p.grad
        for name, p in net.named_parameters()
        if "hand_state" in name or "game_state" in name
    }
    assert heads, "the network has memory heads"
    assert all(g is not None for g in heads.values())
    assert all(float(g.abs().sum()) > 0 for g in heads.values() if g is not None)


def test_cash_rewards_are_the_plain_results_without_shaping() -> None:
    config = tiny(
        **{
            "rewards.shaping": False,
            "rewards.showdown_multiplier_start": 1.0,
            "game.seats": 3,
        }
    )
    _, experience = experience_of(config)
    assert experience.hands == 24 * 4
    assert np.isfinite(experience.returns).all()
    # each decision's return is one of the hands' results (no decay, no shaping)
    assert np.isin(np.round(experience.returns, 9), np.round(experience.hand_results, 9)).all()


def test_shaping_adds_bonuses_and_the_multiplier_scales_showdowns() -> None:
    plain = tiny(**{"rewards.shaping": False, "rewards.showdown_multiplier_start": 1.0})
    shaped = tiny(**{"rewards.steal_bonus": 3.0, "rewards.showdown_multiplier_start": 2.0})
    _, a = experience_of(plain)
    _, b = experience_of(shaped)
    assert np.array_equal(a.actions, b.actions)  # same streams, same play
    assert a.showdowns == b.showdowns > 0
    assert b.returns.sum() > a.returns.sum()


def test_merged_collections_keep_their_games_apart() -> None:
    config = tiny(**{"net.hand_end_step": True})
    _, a = experience_of(config, seed=1)
    _, b = experience_of(config, seed=2)
    both = merge([a, b])
    assert both.games == a.games + b.games
    assert both.size == a.size + b.size
    assert set(both.game[a.size :].tolist()) <= set(range(a.games, a.games + b.games))
    ends, first = both.hand_ends, a.hand_ends.size
    assert ends.size == first + b.hand_ends.size
    assert set(ends.game[first:].tolist()) <= set(range(a.games, a.games + b.games))
    assert ends.inputs.size == ends.size


def test_an_epoch_replays_exactly_from_its_seed() -> None:
    config = tiny()
    _, a = experience_of(config, seed=3)
    _, b = experience_of(config, seed=3)
    assert np.array_equal(a.actions, b.actions)
    assert np.array_equal(a.returns, b.returns)


# -- training, checkpoints, resume ------------------------------------------------------------


def test_training_writes_history_pool_and_loadable_checkpoints(tmp_path: Path) -> None:
    config = tiny(**{"learning.epochs": 3, "tensorboard": True})
    result = train_league(config, tmp_path / "run")
    assert len(result.history) == 3
    assert result.pool == [0, 1, 2, 3]
    header = (tmp_path / "run" / "history.csv").read_text().splitlines()[0]
    assert header.split(",") == list(HISTORY_COLUMNS)
    assert list((tmp_path / "run" / "tensorboard").iterdir())
    payload = read_league_checkpoint(tmp_path / "run" / "last.pt")
    assert payload["kind"] == "league"
    assert payload["epoch"] == 3
    torch.load(tmp_path / "run" / "pool" / "epoch_0000002.pt", weights_only=True)
    agent = load_agent(str(tmp_path / "run" / "pool" / "epoch_0000002.pt"))
    match = play_match(
        [agent, load_agent("station")],
        default_lineup(2, 6, against=True),
        MatchConfig(hands=60, seats=6, seed=0),
    )
    assert match.agents[0].decisions > 0
    assert match.agents[0].coerced == 0
    with pytest.raises(LeagueError, match="already holds a run"):
        train_league(config, tmp_path / "run")


@pytest.mark.parametrize("baseline", ["per-action", "value"])
def test_a_killed_run_resumes_to_the_same_weights(tmp_path: Path, baseline: str) -> None:
    def config(epochs: int, **more: Any) -> LeagueConfig:
        return tiny(
            **{"learning.epochs": epochs, "save_every": 1, "learning.baseline": baseline, **more}
        )

    straight = train_league(config(4), tmp_path / "a")
    train_league(config(2), tmp_path / "b")
    resumed = train_league(config(4), tmp_path / "b", resume_latest=True)
    a = read_league_checkpoint(tmp_path / "a" / "last.pt")
    b = read_league_checkpoint(tmp_path / "b" / "last.pt")
    for key, value in a["model"].items():
        assert torch.equal(value, b["model"][key]), key
    for key, value in a.get("critic", {}).items():
        assert torch.equal(value, b["critic"][key]), key
    assert [r["loss"] for r in straight.history] == [r["loss"] for r in resumed.history]
    with pytest.raises(LeagueError, match=r"changed config: learning\.learning_rate"):
        train_league(
            config(5, **{"learning.learning_rate": 0.1}), tmp_path / "b", resume_latest=True
        )


def test_the_value_baseline_learns_what_the_cards_are_worth() -> None:
    """Out of sample, the learned baseline recovers returns that depend on the cards (here
    ten times the preflop rank, plus noise): most of their variance is explained."""
    config = tiny(**{"game.seats": 2, "game.games_per_epoch": 64, "game.hands_per_game": 8})
    _, train = experience_of(config, seed=1)
    _, test = experience_of(config, seed=2)
    rng = np.random.default_rng(0)

    def returns(inputs: Any) -> np.ndarray[Any, np.dtype[np.float64]]:
        rank = inputs.scalars[:, 12].astype(np.float64)
        return 10.0 * rank + rng.normal(0.0, 1.0, rank.size)

    torch.manual_seed(0)
    critic = ValueBaseline(2, 64)
    optimizer = torch.optim.Adam(critic.parameters(), lr=3e-3)
    target = torch.from_numpy(returns(train.inputs)).float()
    fit_values(critic, optimizer, PolicyInputs.of(train.inputs), target, steps=300)
    truth = returns(test.inputs)
    with torch.no_grad():
        predicted = critic(PolicyInputs.of(test.inputs)).numpy()
    assert np.var(truth - predicted) < 0.3 * np.var(truth)


def test_resume_from_a_pool_snapshot_is_refused(tmp_path: Path) -> None:
    train_league(tiny(), tmp_path / "run")
    with pytest.raises(LeagueError, match="pool snapshot"):
        train_league(tiny(), tmp_path / "other", resume_from=tmp_path / "run/pool/epoch_0000001.pt")


def test_fixed_opponents_take_their_share_of_the_seats(tmp_path: Path) -> None:
    config = tiny(
        **{
            "game.seats": 2,
            "pool.fixed_opponents": {"station": 1.0},
            "pool.fixed_share": 1.0,
        }
    )
    result = train_league(config, tmp_path / "run")
    assert len(result.history) == 2
    with pytest.raises(LeagueError, match="fixed_share > 0 needs fixed_opponents"):
        tiny(**{"pool.fixed_share": 0.5})


def test_the_shipped_config_loads() -> None:
    config = LeagueConfig.load(Path(__file__).parent.parent / "configs" / "league.toml")
    assert config.net.architecture == "transformer"
    assert config.game.seats == 6


# -- the switching opponent -------------------------------------------------------------------


class _Folder:
    def act(self, decisions: Decisions) -> Moves:
        return Moves(np.zeros(decisions.size, dtype=np.int64))


def test_the_folder_completes_the_blind_and_checks_but_folds_to_any_bet() -> None:
    """Heads-up: the folder limps from the small blind and checks the flop; it folds to a
    raise preflop and to a bet on the flop."""
    batch = BatchedTables(match_game(2, 1, 2, 0.0, None, exact_ev=False), 2, seed=2)
    batch.reset(stacks=200)
    folder, rng = Folder(), np.random.default_rng(0)

    def folder_moves() -> list[int]:
        legal = batch.legal()
        tables = np.arange(2)
        decisions = Decisions(batch, tables, legal.to_act[tables], tables, legal, rng)
        return np.asarray(folder.act(decisions).move).tolist()

    assert folder_moves() == [CHECK_CALL, CHECK_CALL]  # the small blind completes
    batch.step(np.array([CHECK_CALL, CHECK_CALL]), np.zeros(2, dtype=np.int64))
    # table 0: the big blind raises the limp; table 1: it checks to the flop
    batch.step(np.array([RAISE, CHECK_CALL]), np.array([8, 0]))
    assert folder_moves()[0] == ENGINE_FOLD  # table 0 faces a raise
    # table 1 on the flop: the big blind acts first heads-up
    batch.step(np.array([ENGINE_FOLD, RAISE]), np.array([0, 4]))
    assert folder_moves()[1] == ENGINE_FOLD
    assert isinstance(load_agent("folder"), Folder)


def test_the_switching_agent_switches_at_new_hands_at_its_rate() -> None:
    batch = BatchedTables(match_game(2, 1, 2, 0.0, None, exact_ev=False), 4000, seed=1)
    batch.reset(stacks=200)
    legal = batch.legal()
    tables = np.arange(4000)
    seats = legal.to_act[tables]
    agent = SwitchingAgent([CallingStation(), _Folder()], ["station", "folder"], 0.3)
    rng = np.random.default_rng(0)
    ids = np.zeros(4000, dtype=np.int64)
    first = agent.act(Decisions(batch, tables, seats, ids, legal, rng))
    before = agent.current(tables, seats)
    again = agent.act(Decisions(batch, tables, seats, ids, legal, rng))
    assert np.array_equal(agent.current(tables, seats), before)  # same hand: no switch
    assert np.array_equal(np.asarray(first.move), np.asarray(again.move))
    assert np.array_equal(np.asarray(first.move), np.where(before == 0, 1, 0))
    agent.act(Decisions(batch, tables, seats, ids + 1, legal, rng))
    switched = (agent.current(tables, seats) != before).mean()
    assert switched == pytest.approx(0.3, abs=0.03)
    assert isinstance(load_agent("switch:station,nit@0.2"), SwitchingAgent)
    with pytest.raises(AgentError, match="at least two"):
        load_agent("switch:station")


# -- learning ---------------------------------------------------------------------------------


def test_a_short_run_beats_random_and_a_calling_station(tmp_path: Path) -> None:
    """The league's learning check: after a brief run the learner beats the random bot and
    the calling station, 95% intervals above zero."""
    config = tiny(**LEARNING_RUN)
    train_league(config, tmp_path / "run")
    agent = load_agent(str(tmp_path / "run" / "last.pt"))
    for bot in ("random", "station"):
        match = play_match(
            [agent, load_agent(bot)], [0, 1], MatchConfig(hands=60_000, seats=2, seed=3)
        )
        estimate = match.agents[0].ev_adjusted or match.agents[0].actual
        low, _ = estimate.interval
        assert low > 0, f"against {bot}: {estimate.bb_per_100:+.1f} ± {estimate.half_width:.1f}"


def test_tournament_games_carry_stacks_until_one_player_is_left() -> None:
    """Short stacks bust quickly: games end early, and the survival bonus pays the
    learner's wins (and only whole-game wins reach it)."""
    config = tiny(
        **{
            "game.mode": "tournament",
            "game.seats": 3,
            "game.stack_lo_bb": 4.0,
            "game.stack_hi_bb": 8.0,
            "game.hands_per_game": 60,
            "rewards.survival_bonus": 1000.0,
            "rewards.elimination_bonus": 0.0,
            "rewards.showdown_multiplier_start": 1.0,
        }
    )
    _, experience = experience_of(config)
    assert experience.hands < 24 * 60  # games ended before their last hand
    survived = experience.returns >= 500.0
    assert survived.any()
    assert not survived.all()


# -- the opponent head ------------------------------------------------------------------------


def answers_against(bot: str, seats: int = 2, **more: Any) -> tuple[Any, Experience]:
    """A tiny MLP learner's collection against ``bot`` in every other seat."""
    config = tiny(
        **{
            "game.seats": seats,
            "net.architecture": "mlp",
            "pool.fixed_opponents": {bot: 1.0},
            "pool.fixed_share": 1.0,
            **more,
        }
    )
    torch.manual_seed(0)
    net = net_from_config(config.net, seats)
    plan = epoch_plan(config, 0)
    return net, collect(plan, net, [], (0, 0, 0), fixed=[load_agent(bot)])


def test_responses_are_how_the_next_opponent_answered() -> None:
    """The folder folds to every bet and the station calls every one; a fold by the
    learner heads-up ends the hand, so nobody answers it."""
    for bot, answer in (("folder", ENGINE_FOLD), ("station", CHECK_CALL)):
        _, experience = answers_against(bot, **{"game.games_per_epoch": 64})
        responses, actions = experience.responses, experience.actions
        assert responses.shape == actions.shape
        assert (responses[actions == BET] == answer).all(), bot
        assert (responses[actions == FOLD] == -1).all(), bot
        assert (responses[actions == CALL] != RAISE).all(), bot  # neither bot ever raises
        assert (actions == BET).sum() > 20


def test_each_decision_knows_its_games_opponent_lineup() -> None:
    """Heads-up against a checkpoint, the folder and the station: the line-up keys say which
    opponent each game had, as the answers show (the folder folds to every bet, the station
    calls every one)."""
    config = tiny(
        **{
            "game.seats": 2,
            "game.games_per_epoch": 96,
            "net.architecture": "mlp",
            "pool.fixed_opponents": {"folder": 1.0, "station": 1.0},
            "pool.fixed_share": 0.6,
        }
    )
    torch.manual_seed(0)
    net = net_from_config(config.net, 2)
    checkpoint = net_from_config(config.net, 2)
    fixed = [load_agent("folder"), load_agent("station")]
    experience = collect(epoch_plan(config, 0), net, [checkpoint], (0, 0, 0), fixed=fixed)
    keys = experience.lineups
    assert keys.shape == experience.actions.shape
    assert set(np.unique(keys)) == {1, 2, 4}  # 2 ** kind: checkpoint 0, folder 1, station 2
    for game in np.unique(experience.game):
        assert np.unique(keys[experience.game == game]).size == 1
    bets = experience.actions == BET
    assert (experience.responses[bets & (keys == 2)] == ENGINE_FOLD).all()
    assert (experience.responses[bets & (keys == 4)] == CHECK_CALL).all()
    grouped = advantages(experience.returns, experience.actions, np.zeros(3), keys)
    for key in (1, 2, 4):
        assert grouped[keys == key].mean() == pytest.approx(0.0, abs=1e-9)
        assert grouped[keys == key].std() == pytest.approx(1.0, abs=1e-6)


def test_lineup_keys_count_each_kind_of_opponent_and_skip_the_learner() -> None:
    kinds = np.array([[0, 2, 2], [2, 0, 2], [1, 0, 0], [0, 1, 2]])
    learner_seats = np.array([0, 1, 0, 0])
    keys = lineup_keys(kinds, learner_seats, 3)
    assert keys.tolist() == [18, 18, 2, 12]  # 2 * 3**2; the same; 2 * 3**0; 3**1 + 3**2


def test_grouped_advantages_remove_each_groups_offset() -> None:
    """A per-line-up offset (one opponent pays 100 bb more than another) leaves the grouped
    advantages unchanged; the batch-wide ones keep it."""
    draw = np.random.default_rng(0)
    returns = draw.normal(size=400)
    groups = np.repeat([1, 2], 200)
    actions = draw.integers(3, size=400)
    shifted = returns + np.where(groups == 2, 100.0, 0.0)
    grouped = advantages(shifted, actions, np.zeros(3), groups)
    np.testing.assert_allclose(grouped, advantages(returns, actions, np.zeros(3), groups))
    assert abs(advantages(shifted, actions, np.zeros(3))[groups == 2].mean()) > 0.9


def test_responses_six_handed_come_from_the_next_seat_to_act() -> None:
    """Against stations only, a bet is always called and a fold is answered by the next
    seat when two or more others are still in."""
    _, experience = answers_against("station", seats=6)
    bets = experience.responses[experience.actions == BET]
    assert bets.size > 0
    assert (bets == CHECK_CALL).all()
    assert set(np.unique(experience.responses[experience.actions == FOLD])) <= {-1, CHECK_CALL}


def test_the_opponent_loss_trains_the_memory_heads() -> None:
    net, experience = answers_against(
        "switch:station,folder@0.5", **{"net.opponent_head": True, "learning.opponent_coef": 1.0}
    )
    replay = unroll(net, experience, torch.device("cpu"))
    assert replay.response_logits is not None
    actions = torch.from_numpy(experience.actions)
    loss = opponent_loss(replay, experience, actions, torch.device("cpu"))
    assert float(loss) > 0
    loss.backward()  # type: ignore[no-untyped-call]
    game = [p.grad for name, p in net.named_parameters() if "game_state" in name]
    assert game
    assert all(g is not None and float(g.abs().sum()) > 0 for g in game)
    plain, none = answers_against("station")
    assert unroll(plain, none, torch.device("cpu")).response_logits is None


def test_the_opponent_coefficient_needs_the_head() -> None:
    with pytest.raises(LeagueError, match=r"opponent_coef > 0 needs net\.opponent_head"):
        tiny(**{"learning.opponent_coef": 0.5})


def test_the_opponent_head_learns_the_bots_answers(tmp_path: Path) -> None:
    """Trained only on the opponent loss for a few epochs, the head predicts the folder's
    and the station's answers better than at the start."""
    config = tiny(
        **{
            "seed": 1,
            "game.seats": 2,
            "game.games_per_epoch": 48,
            "learning.epochs": 8,
            "learning.learning_rate": 1e-2,
            "learning.lr_decay_steps": 1000,
            "net.architecture": "mlp",
            "net.opponent_head": True,
            "learning.opponent_coef": 1.0,
            "pool.fixed_opponents": {"folder": 1.0, "station": 1.0},
            "pool.fixed_share": 1.0,
        }
    )
    losses = [row["opponent_loss"] for row in train_league(config, tmp_path / "run").history]
    assert np.mean(losses[-3:]) < 0.7 * np.mean(losses[:3])


def test_a_checkpoint_from_before_the_opponent_head_resumes(tmp_path: Path) -> None:
    """A last.pt written before ``opponent_head`` / ``opponent_coef`` existed resumes: the
    missing keys take their defaults and the missing history column reads 0."""
    config = tiny(**{"learning.epochs": 2, "save_every": 1})
    train_league(config, tmp_path / "run")
    path = tmp_path / "run" / "last.pt"
    payload = torch.load(path, weights_only=True)
    del payload["config"]["net"]["opponent_head"], payload["config"]["learning"]["opponent_coef"]
    payload["history"] = [row[:-1] for row in payload["history"]]
    torch.save(payload, path)
    resumed = train_league(tiny(**{"learning.epochs": 3}), tmp_path / "run", resume_latest=True)
    assert len(resumed.history) == 3
    assert resumed.history[0]["opponent_loss"] == 0.0


def test_every_network_takes_its_end_of_hand_step_on_hands_the_learner_abandoned() -> None:
    """Three-handed cash: the one opponent snapshot holds both other seats of every hand, so
    it takes two end-of-hand steps (rows with no legal action) per hand, hands the learner
    folded and left to the others included (heads-up a fold ends the hand anyway)."""
    config = tiny(**{"game.seats": 3, "net.hand_end_step": True})
    torch.manual_seed(0)
    net = net_from_config(config.net, 3)
    opponent = net_from_config(config.net, 3)
    end_rows = []

    def count(_module: Any, args: tuple[Any, ...], _output: Any) -> None:
        end_rows.append(int((~args[0].mask.any(dim=1)).sum()))

    opponent.register_forward_hook(count)
    experience = collect(epoch_plan(config, 0), net, [opponent], (0, 0, 0))
    assert (experience.actions == FOLD).any()  # some hands were abandoned
    assert sum(end_rows) == 2 * experience.hands


@pytest.mark.parametrize(
    "name",
    [
        "league-heads-up-bots.toml",
        "league-heads-up-bots-memory.toml",
        "league-six-max-bots.toml",
        "league-memory-opponent.toml",
        "league-memory.toml",
        "league-heads-up-mlp.toml",
        "league-heads-up.toml",
    ],
)
def test_every_shipped_league_config_loads(name: str) -> None:
    config = LeagueConfig.load(Path(__file__).parent.parent / "configs" / name)
    assert config.learning.epochs > 0


def test_a_replay_with_the_memory_wiped_is_the_network_without_memory() -> None:
    config = tiny(**{"game.seats": 2, "net.hand_end_step": True})
    net, experience = experience_of(config)
    plain = net_from_config(config.net.model_copy(update={"cross_hand_memory": False}), 2)
    plain.load_state_dict(net.state_dict())
    net.eval()
    plain.eval()
    cpu = torch.device("cpu")
    with torch.no_grad():
        wiped, without, kept = (
            unroll(net, experience, cpu, wipe_memory=True),
            unroll(plain, experience, cpu),
            unroll(net, experience, cpu),
        )
    assert torch.equal(wiped.action_logits, without.action_logits)
    assert not torch.equal(wiped.action_logits, kept.action_logits)
