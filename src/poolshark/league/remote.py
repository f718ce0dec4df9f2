"""League rollouts spread over Ray actors (the optional ``ray`` extra).

:class:`RayCollector` is a drop-in collector for ``league.train``: each epoch it sends the
learner's weights to ``workers`` :class:`RolloutWorker` actors, each plays its share of the
games with its own random stream ``(seed, epoch, worker + 1)``, and the parts come back
merged (``league.rollout.merge``). Actors keep the snapshot networks they loaded, so an
opponent is read once per actor. Snapshot files are read by path: on a cluster the run
folder must be on a filesystem every node sees. A local Ray instance with ``workers`` CPUs
is started unless Ray is already running (``ray start`` / ``address``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from poolshark.agents.loading import load_agent
from poolshark.league.agent import net_from_payload, read_league_checkpoint
from poolshark.league.config import LeagueError
from poolshark.league.nets import PokerNet, build_net
from poolshark.league.rollout import EpochPlan, Experience, collect, merge
from poolshark.training.ray_actors import split_evenly, start_ray


class RolloutWorker:
    """One actor's side: rebuild the learner from weights, play a share of the games."""

    def __init__(self, threads: int = 1) -> None:
        torch.set_num_threads(threads)
        self.nets: dict[str, PokerNet] = {}

    def collect(
        self,
        plan: EpochPlan,
        hyperparameters: dict[str, Any],
        weights: dict[str, torch.Tensor],
        opponents: list[str],
        fixed: list[str],
        key: tuple[int, ...],
    ) -> Experience:
        learner = build_net(hyperparameters)
        learner.load_state_dict(weights)
        for path in opponents:
            if path not in self.nets:
                self.nets[path] = net_from_payload(read_league_checkpoint(Path(path)))
        nets = [self.nets[p] for p in opponents]
        agents = [load_agent(spec) for spec in fixed]
        return collect(plan, learner.eval(), nets, key, fixed=agents)


class RayCollector:
    """``collector(plan, learner, opponents, fixed, seed, epoch)`` over Ray actors."""

    def __init__(self, workers: int, *, address: str | None = None) -> None:
        self.ray, self.started_here = start_ray(workers, address, LeagueError)
        actor = self.ray.remote(num_cpus=1)(RolloutWorker)
        self.actors: list[Any] = [actor.remote() for _ in range(workers)]

    def __call__(
        self,
        plan: EpochPlan,
        learner: PokerNet,
        opponents: list[Path],
        fixed: list[str],
        seed: int,
        epoch: int,
    ) -> Experience:
        hyperparameters = learner.hyperparameters()
        weights = {k: v.detach().cpu() for k, v in learner.state_dict().items()}
        shares = split_evenly(plan.games, len(self.actors))
        paths = [str(p) for p in opponents]
        pending = [
            actor.collect.remote(
                replace(plan, games=share),
                hyperparameters,
                weights,
                paths,
                fixed,
                (seed, epoch, w + 1),
            )
            for w, (actor, share) in enumerate(zip(self.actors, shares, strict=False))
        ]
        return merge(self.ray.get(pending))

    def close(self) -> None:
        """Stop the actors (and the local Ray instance this collector started)."""
        for actor in self.actors:
            self.ray.kill(actor)
        if self.started_here:
            self.ray.shutdown()
