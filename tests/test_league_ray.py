"""League rollouts on a local Ray cluster of two workers give the in-process games."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from poolshark.agents.loading import load_agent
from poolshark.league.agent import net_from_payload, read_league_checkpoint
from poolshark.league.nets import net_from_config
from poolshark.league.rollout import collect, merge
from poolshark.league.train import epoch_plan, train_league
from test_league import tiny


def test_two_ray_workers_play_the_in_process_games(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    from poolshark.league.remote import RayCollector

    config = tiny(
        **{
            "game.games_per_epoch": 10,
            "pool.fixed_opponents": {"station": 1.0},
            "pool.fixed_share": 0.5,
        }
    )
    torch.manual_seed(0)
    learner = net_from_config(config.net, config.game.seats)
    opponent_run = train_league(tiny(**{"learning.epochs": 1}), tmp_path / "run")
    snapshot = tmp_path / "run" / "pool" / f"epoch_{opponent_run.pool[-1]:07d}.pt"
    plan = epoch_plan(config, 3)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        collector = RayCollector(2)
        remote = collector(plan, learner, [snapshot], ["station"], 7, 3)
        collector.close()
    finally:
        ray.shutdown()
    opponent = net_from_payload(read_league_checkpoint(snapshot))
    local = merge(
        [
            collect(
                replace(plan, games=5),
                learner,
                [opponent],
                (7, 3, w + 1),
                fixed=[load_agent("station")],
            )
            for w in range(2)
        ]
    )
    assert remote.games == 10
    assert np.array_equal(remote.actions, local.actions)
    assert np.array_equal(remote.game, local.game)
    assert np.allclose(remote.returns, local.returns)
