"""PPO for the exploiter: GAE, config, checkpoints that resume bit for bit, and learning."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import AgentError, Decisions, Probabilities
from poolshark.evaluate.match import MatchConfig, play_match
from poolshark.exploit.actor_critic import ActorCritic
from poolshark.exploit.agent import (
    ExploiterAgent,
    load_exploiter,
    read_exploiter_checkpoint,
)
from poolshark.exploit.ppo import (
    TIMING_KEYS,
    ExploitConfig,
    ExploitError,
    gae,
    gae_reference,
    history_csv,
    train_exploiter,
)
from poolshark.training.tensorboard import read_scalars

TINY = {
    "against": ["station"],
    "tables": 32,
    "hands_per_table": 2,
    "hidden": 16,
    "minibatch_size": 64,
    "epochs": 2,
    "threads": 1,
}


def chains(draw: st.DrawFn) -> np.ndarray:
    """A random set of episodes interleaved in one buffer, as next_index links."""
    lengths = draw(st.lists(st.integers(1, 6), min_size=1, max_size=12))
    order = draw(st.permutations([e for e, n in enumerate(lengths) for _ in range(n)]))
    next_index = np.full(len(order), -1, dtype=np.int64)
    last: dict[int, int] = {}
    for i, episode in enumerate(order):
        if episode in last:
            next_index[last[episode]] = i
        last[episode] = i
    return next_index


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    gamma=st.sampled_from([1.0, 0.995, 0.9]),
    lam=st.sampled_from([1.0, 0.94, 0.0]),
)
def test_gae_matches_the_textbook_loop(data: st.DataObject, gamma: float, lam: float) -> None:
    next_index = data.draw(st.composite(chains)())
    n = next_index.size
    rng = np.random.default_rng(n)
    rewards = np.where(next_index < 0, rng.normal(size=n) * 10, 0.0)
    values = rng.normal(size=n)
    fast = gae(rewards, values, next_index, gamma, lam)
    assert np.allclose(fast, gae_reference(rewards, values, next_index, gamma, lam), atol=1e-12)


def test_gae_with_lambda_one_is_the_return_minus_the_value() -> None:
    """One hand of three decisions, reward 6 at the end, gamma 1: advantages are 6 - V."""
    values = np.array([1.0, 2.0, 3.0])
    advantages = gae(np.array([0, 0, 6.0]), values, np.array([1, 2, -1]), 1.0, 1.0)
    assert advantages.tolist() == [5.0, 4.0, 3.0]


def test_gae_rejects_bad_links() -> None:
    with pytest.raises(ValueError, match="later"):
        gae(np.zeros(2), np.zeros(2), np.array([-1, 0]), 1.0, 1.0)
    with pytest.raises(ValueError, match="same length"):
        gae(np.zeros(2), np.zeros(3), np.array([-1, -1]), 1.0, 1.0)


def test_config_loads_from_toml_and_rejects_mistakes(tmp_path: Path) -> None:
    path = tmp_path / "run.toml"
    path.write_text('against = ["pool:micro-zoom", "station"]\nagainst_weights = [3, 1]\n')
    config = ExploitConfig.from_toml(path, iterations=7)
    assert config.iterations == 7
    assert config.gamma == 0.995
    assert config.gae_lambda == 0.94
    assert config.clip == 0.2
    assert config.action_set().names == ["fold", "call", "raise 0.5 pot", "raise 1 pot", "all-in"]
    path.write_text("learning_rat = 0.1\n")
    with pytest.raises(ValueError, match="learning_rat"):
        ExploitConfig.from_toml(path)
    with pytest.raises(ValueError, match="reference"):
        ExploitConfig(kl_coef=0.1)
    with pytest.raises(ValueError, match="against_weights"):
        ExploitConfig(against=["station"], against_weights=[1.0, 2.0])
    with pytest.raises(ExploitError, match="cannot read"):
        ExploitConfig.from_toml(tmp_path / "missing.toml")
    path.write_text('preset = "small-cpu"\nhidden = 64\n')
    small = ExploitConfig.from_toml(path)
    assert (small.hidden, small.minibatch_size, small.tables) == (64, 512, 2048)
    assert ExploitConfig().minibatch_size == 128
    with pytest.raises(ValueError, match="preset"):
        ExploitConfig(preset="huge")  # type: ignore[arg-type]


def comparable(history: list[dict[str, float]]) -> list[dict[str, float]]:
    return [{k: v for k, v in entry.items() if k not in TIMING_KEYS} for entry in history]


def test_a_resumed_run_is_bit_identical_to_an_uninterrupted_one(tmp_path: Path) -> None:
    straight = train_exploiter(ExploitConfig(**TINY, iterations=3), tmp_path / "a")
    train_exploiter(ExploitConfig(**TINY, iterations=1), tmp_path / "b")
    resumed = train_exploiter(ExploitConfig(**TINY, iterations=3), tmp_path / "b", resume=True)
    one = torch.load(tmp_path / "a" / "last.pt", weights_only=True)
    two = torch.load(tmp_path / "b" / "last.pt", weights_only=True)
    assert one["kind"] == "exploiter"
    assert one["iteration"] == two["iteration"] == 3
    for name, tensor in one["model"].items():
        assert torch.equal(tensor, two["model"][name]), name
    assert comparable(straight.history) == comparable(resumed.history)
    assert len(resumed.history) == 3


def test_runs_refuse_to_overwrite_or_to_resume_a_different_run(tmp_path: Path) -> None:
    train_exploiter(ExploitConfig(**TINY, iterations=1), tmp_path)
    with pytest.raises(ExploitError, match="exists"):
        train_exploiter(ExploitConfig(**TINY, iterations=1), tmp_path)
    changed = {**TINY, "hidden": 32}
    with pytest.raises(ExploitError, match="hidden"):
        train_exploiter(ExploitConfig(**changed, iterations=2), tmp_path, resume=True)
    with pytest.raises(ExploitError, match="nothing to resume"):
        train_exploiter(ExploitConfig(**TINY, iterations=1), tmp_path / "new", resume=True)


def test_curves_go_to_csv_tensorboard_and_the_checkpoint(tmp_path: Path) -> None:
    result = train_exploiter(ExploitConfig(**TINY, iterations=2), tmp_path)
    with Path(result.metrics_csv).open() as stream:
        rows = list(csv.DictReader(stream))
    assert [float(r["iteration"]) for r in rows] == [1.0, 2.0]
    for key in (
        "bb_per_100",
        "policy_loss",
        "value_loss",
        "entropy",
        "approx_kl",
        "freq_fold",
        "freq_all-in",
        "threebet_rate",
    ):
        assert key in rows[0], key
    events = next((tmp_path / "tensorboard").glob("events.out.tfevents.*"))
    tags = {tag for tag, _, _ in read_scalars(events)}
    assert {"exploit/bb_per_100", "exploit/entropy", "exploit/threebet_rate"} <= tags
    payload = read_exploiter_checkpoint(Path(result.checkpoint))
    assert payload["format"] == "poolshark-exploiter-v1"
    assert comparable(payload["history"]) == comparable(result.history)
    assert history_csv([]) == "\n"


def test_a_checkpoint_is_an_agent(tmp_path: Path) -> None:
    result = train_exploiter(ExploitConfig(**TINY, iterations=1), tmp_path)
    agent = load_exploiter(Path(result.checkpoint))
    assert isinstance(agent, ExploiterAgent)
    match = play_match([agent, load_agent("tag")], [0, 1] * 3, MatchConfig(hands=120, tables=20))
    assert match.agents[0].decisions > 0
    assert match.agents[0].coerced == 0
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(AgentError, match="cannot read"):
        load_exploiter(tmp_path / "junk.pt")
    torch.save({"kind": "other"}, tmp_path / "other.pt")
    with pytest.raises(AgentError, match="not an exploiter"):
        load_exploiter(tmp_path / "other.pt")
    with pytest.raises(AgentError, match="trained at 6 seats"):
        play_match([agent, load_agent("tag")], [0, 1], MatchConfig(hands=4, seats=2))


def test_raise_caps_hold_in_play_and_travel_with_the_checkpoint(tmp_path: Path) -> None:
    """Caps of half a pot preflop and a pot after it: in a match the capped exploiter puts
    no probability on a raise bigger than its street's cap, and raises where it may; the
    checkpoint's action set keeps the caps."""
    capped = ExploitConfig(**TINY, iterations=1, raise_caps=[0.5, 1.0, 1.0, 1.0])
    agent = load_exploiter(Path(train_exploiter(capped, tmp_path).checkpoint))
    assert isinstance(agent, ExploiterAgent)
    assert agent.actions.raise_caps == (0.5, 1.0, 1.0, 1.0)
    seen = {"oversized": 0.0, "raised": 0.0}

    class Watched:
        def act(self, decisions: Decisions) -> Probabilities:
            answer = agent.act(decisions)
            actions, batch, legal = agent.actions, decisions.batch, decisions.legal
            sizes = actions.raise_sizes(batch, legal)[decisions.tables]
            caps = actions.street_caps(batch)[decisions.tables]
            raises = np.asarray(answer.values)[:, 2:]
            seen["oversized"] += float(raises[sizes > caps[:, None] + 1e-9].sum())
            seen["raised"] += float(raises.sum())
            return answer

    match = play_match([Watched(), load_agent("tag")], [0, 1] * 3, MatchConfig(hands=300))
    assert match.agents[0].coerced == 0
    assert seen["oversized"] == 0.0
    assert seen["raised"] > 1.0
    with pytest.raises(ValueError, match="raise_caps"):
        ExploitConfig(**TINY, raise_caps=[1.0, 1.0])


def test_a_checkpoint_path_is_an_agent_spec(tmp_path: Path) -> None:
    """``poolshark eval runs/x/last.pt`` reaches :func:`load_exploiter` through the spec
    loader's checkpoint dispatch on ``kind``."""
    from poolshark.agents import loading

    if "exploiter" not in getattr(loading, "CHECKPOINT_LOADERS", {}):
        pytest.skip("agents/loading.py does not dispatch checkpoint specs yet")
    result = train_exploiter(ExploitConfig(**TINY, iterations=1), tmp_path)
    assert isinstance(load_agent(result.checkpoint), ExploiterAgent)


def test_the_kl_penalty_keeps_the_policy_near_the_reference(tmp_path: Path) -> None:
    """Against micro-zoom with its own styles as the reference: a strong KL penalty ends
    much closer to the reference than the same run without it. The equilibrium mix seats
    the TAG bot."""
    common = {
        **TINY,
        "against": ["pool:micro-zoom"],
        "reference": "pool:micro-zoom",
        "tables": 256,
        "iterations": 3,
        "epochs": 4,
        "learning_rate": 3e-3,
    }
    free = train_exploiter(ExploitConfig(**common), tmp_path / "free")
    safe = train_exploiter(
        ExploitConfig(**common, kl_coef=2.0, equilibrium_mix=0.3), tmp_path / "safe"
    )
    assert "tag (mix)" in safe.opponents
    assert safe.history[-1]["reference_kl"] < 0.6 * free.history[-1]["reference_kl"]
    assert safe.history[-1]["reference_kl"] < safe.history[0]["reference_kl"]


def evaluate(agent: ExploiterAgent, hands: int) -> tuple[float, float, float]:
    """(bb/100 all-in-EV adjusted, low, high) against five calling stations."""
    result = play_match(
        [agent, load_agent("station")], [0, 1, 1, 1, 1, 1], MatchConfig(hands=hands, seed=99)
    )
    estimate = result.agents[0].ev_adjusted
    assert estimate is not None
    low, high = estimate.interval
    return estimate.bb_per_100, low, high


def test_a_short_run_learns_to_beat_calling_stations(tmp_path: Path) -> None:
    """A few seconds of PPO against stations: the trained policy wins significantly in a
    separate match, and much more than the untrained one (iteration 0)."""
    config = ExploitConfig(
        against=["station"],
        iterations=6,
        tables=512,
        hands_per_table=4,
        hidden=64,
        minibatch_size=512,
        learning_rate=1e-3,
        threads=1,
        seed=3,
    )
    torch.manual_seed(config.seed)
    untrained = ExploiterAgent(ActorCritic(6, 5, hidden=64), config.action_set())
    result = train_exploiter(config, tmp_path)
    trained = load_exploiter(Path(result.checkpoint))
    assert isinstance(trained, ExploiterAgent)
    before, _, before_high = evaluate(untrained, 3000)
    after, after_low, _ = evaluate(trained, 3000)
    assert after_low > 0, (after, after_low)
    assert after_low > before_high, (before, after)
    assert result.history[-1]["bb_per_100"] > result.history[0]["bb_per_100"]


@pytest.mark.slow
def test_a_longer_run_exploits_a_leaky_pool(tmp_path: Path) -> None:
    """Two minutes against micro-zoom: a significant edge against the true styles, and a
    3-bet frequency far above the pool's (its styles 3-bet 1-12% of the time)."""
    config = ExploitConfig(
        against=["pool:micro-zoom"],
        iterations=60,
        tables=1024,
        hands_per_table=8,
        hidden=128,
        minibatch_size=512,
        learning_rate=5e-4,
        threads=1,
    )
    result = train_exploiter(config, tmp_path)
    agent = load_exploiter(Path(result.checkpoint))
    match = play_match(
        [agent, load_agent("pool:micro-zoom")],
        [0, 1, 1, 1, 1, 1],
        MatchConfig(hands=30_000, seed=7),
    )
    estimate = match.agents[0].ev_adjusted
    assert estimate is not None
    assert estimate.interval[0] > 0
    lowest = min(entry["threebet_rate"] for entry in result.history)
    assert result.history[-1]["threebet_rate"] > max(0.2, lowest)
