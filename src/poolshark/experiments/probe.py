"""How exploitable is the exploiter: a fresh best response trained against it in the pool.

The exploiter is a fixed policy, so it can be beaten. The literature reports how much a
best response takes from an agent (local best response, LBR) beside the agent's win rate;
here the best response is a **probe**: a new PPO agent (the pipeline's preset,
:func:`~poolshark.experiments.variants.train_variant`) trained at tables where the frozen
exploiter holds exactly one seat (a random one each hand) and the pool's players the rest.

Three matches then play the same deals (bb/100, all-in EV adjusted, 95% intervals):

* **with the probe**: probe, exploiter and four pool players. The probe's win rate, and
  the exploiter's win rate when a best response sits with it;
* **control**: the same table with a pool player in the probe's seat. The exploiter's edge
  with no probe (what the pipeline reports), and what a pool player makes in that seat;
* **the probe without the exploiter**: a pool player in the exploiter's seat. What the
  probe takes from the pool alone.

From these: what the probe *takes from the exploiter* (control edge minus the edge beside
the probe) and the probe's *gain from the exploiter's presence* (its win rate beside the
exploiter minus its win rate without it). The first also holds the money the probe wins
from the pool players that would otherwise have gone to the exploiter; the second says
how much of the probe's win rate comes from the exploiter itself.

Seating: a match rotates its lineup around the table, which would keep the exploiter at one
fixed seat relative to the probe. So each match is played once per relative seat (the
exploiter 1..seats-1 seats to the probe's left), each with a ``1 / (seats - 1)`` share of
the hands and its own seed, and the estimates are averaged: the seating the probe trained
under. Intervals of the averages combine the matches' independent standard errors;
intervals of the differences add the two matches' variances, which is conservative since
the matches share their deals.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import Agent
from poolshark.evaluate.match import AgentResult, Estimate, MatchConfig, play_match
from poolshark.experiments.variants import train_variant
from poolshark.training.common import write_text_atomic

PROBE_FOLDER = "probe"
"""The probe's training run, under the output folder (``last.pt``, ``metrics.csv``)."""
FIGURES_FILE = "probe.json"
"""The figures :func:`probe_exploiter` returns, written under the output folder."""
EVAL_SEED_OFFSET = 7
"""Evaluation matches use ``seed + 7`` (+ the relative seat), as the pipeline's do."""


class ProbeError(ValueError):
    """A probe that cannot run as asked; the message says why."""


def probe_exploiter(
    exploiter: str,
    pool: str,
    out: Path,
    *,
    iterations: int,
    tables: int,
    seed: int,
    eval_hands: int,
    threads: int = 1,
    device: str = "cpu",
    rake_percent: float = 0.0,
    rake_cap_bb: float | None = None,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Train a best response to the frozen ``exploiter`` (a checkpoint) seated in ``pool``
    (a shipped pool's name or a pool file), resuming its run in ``out/probe``, and measure
    it (see the module docstring). Returns JSON-able figures, also written to
    ``out/probe.json``; ``log`` hears each stage."""
    say = log or (lambda line: None)
    if eval_hands < 1:
        raise ProbeError(f"eval_hands must be at least 1, got {eval_hands}")
    out = Path(out)
    pool_spec = f"pool:{pool}"
    frozen = load_agent(exploiter)  # a clear error for a bad checkpoint, before training
    say(f"training the probe against {exploiter} seated in {pool_spec}")
    training = train_variant(
        {"against": [pool_spec], "seated": [exploiter]},
        out / PROBE_FOLDER,
        iterations=iterations,
        tables=tables,
        seed=seed,
        threads=threads,
        device=device,
        rake_percent=rake_percent,
        rake_cap_bb=rake_cap_bb,
    )
    torch.set_num_threads(threads)
    match = MatchConfig(
        hands=eval_hands,
        seed=seed + EVAL_SEED_OFFSET,
        rake_percent=rake_percent,
        rake_cap_bb=rake_cap_bb,
    )
    probe = load_agent(training.checkpoint)
    say("evaluating: the probe beside the exploiter")
    with_probe = seated_match([probe, frozen, load_agent(pool_spec)], match)
    say("evaluating: the control, a pool player in the probe's seat")
    control = seated_match([load_agent(pool_spec), frozen, load_agent(pool_spec)], match)
    say("evaluating: the probe with a pool player in the exploiter's seat")
    alone = seated_match([probe, load_agent(pool_spec), load_agent(pool_spec)], match)
    figures: dict[str, Any] = {
        "exploiter": exploiter,
        "pool": pool,
        "seed": seed,
        "iterations": iterations,
        "tables": tables,
        "eval_hands": eval_hands,
        "rake_percent": rake_percent,
        "rake_cap_bb": rake_cap_bb,
        "probe_checkpoint": training.checkpoint,
        "training": {
            "seconds": training.seconds,
            "learning_curve": [
                {
                    "iteration": entry["iteration"],
                    "bb_per_100": entry["bb_per_100"],
                    "bb_per_100_stderr": entry["bb_per_100_stderr"],
                }
                for entry in training.history
            ],
            "history": training.history,
        },
        "with_probe": {"probe": with_probe[0], "exploiter": with_probe[1], "pool": with_probe[2]},
        "control": {"pool_player": control[0], "exploiter": control[1], "pool": control[2]},
        "probe_without_exploiter": {"probe": alone[0], "pool_player": alone[1], "pool": alone[2]},
        "taken_from_exploiter": difference(control[1], with_probe[1]),
        "probe_gain_from_exploiter": difference(with_probe[0], alone[0]),
        "method": METHOD,
    }
    write_text_atomic(json.dumps(figures, indent=2) + "\n", out / FIGURES_FILE)
    return figures


METHOD = (
    "bb/100 per seat-hand, all-in EV adjusted; each match is played once per seat of the "
    "exploiter relative to the probe with an equal share of the hands and the estimates "
    "averaged (standard errors combined as independent); differences add the two "
    "matches' variances (conservative: the matches share their deals); 95% = 1.96 SE"
)


def seated_match(agents: Sequence[Agent], match: MatchConfig) -> list[dict[str, Any]]:
    """``agents[0]`` in one seat, ``agents[1]`` in another, ``agents[2]`` in the rest, played
    once per seat of ``agents[1]`` relative to ``agents[0]``: each agent's averaged figures
    (``bb_per_100``, ``half_width``, ``stderr``, ``vpip``, ``pfr``, ``hands``)."""
    if len(agents) != 3:
        raise ProbeError(
            f"a seated match takes 3 agents (player, seated, field), got {len(agents)}"
        )
    positions = match.seats - 1
    share = replace(match, hands=math.ceil(match.hands / positions))
    results: list[list[AgentResult]] = [[], [], []]
    for offset in range(1, positions + 1):
        lineup = [2] * match.seats
        lineup[0], lineup[offset] = 0, 1
        played = play_match(
            agents,
            lineup,
            replace(share, seed=match.seed + offset),
            names=["player", "seated", "field"],
        )
        for index, result in enumerate(played.agents):
            results[index].append(result)
    return [combined(rows) for rows in results]


def combined(results: Sequence[AgentResult]) -> dict[str, Any]:
    """One agent's figures over equal-sized matches: the mean of their estimates (all-in EV
    adjusted when measured), its standard error from theirs, hand-weighted VPIP and PFR."""
    estimates = [r.ev_adjusted or r.actual for r in results]
    count = len(estimates)
    mean = Estimate(
        sum(e.bb_per_100 for e in estimates) / count,
        math.sqrt(sum(e.stderr**2 for e in estimates)) / count,
    )
    hands = sum(r.hands for r in results)
    return {
        **figures_of(mean),
        "vpip": sum(r.vpip * r.hands for r in results) / max(hands, 1),
        "pfr": sum(r.pfr * r.hands for r in results) / max(hands, 1),
        "hands": hands,
    }


def difference(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """``first - second`` of two figures from different matches (variances added)."""
    return figures_of(
        Estimate(
            first["bb_per_100"] - second["bb_per_100"],
            math.hypot(first["stderr"], second["stderr"]),
        )
    )


def figures_of(estimate: Estimate) -> dict[str, Any]:
    """An estimate as the pipeline writes one: bb/100 with its 95% half width."""
    return {
        "bb_per_100": estimate.bb_per_100,
        "half_width": estimate.half_width,
        "stderr": estimate.stderr,
    }
