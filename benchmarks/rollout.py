"""Exploiter rollout speed: decisions per second of the whole loop, with real opponents.

Run from the repository root::

    python benchmarks/rollout.py [--quick] [--seed N] [--json] [--device cpu|cuda]

Every figure is 6-max no-limit, blinds 1/2, 100 big blinds, torch on one thread, and
counts complete hands. The rollout (``exploit.rollout.Rollout.collect``) is the full loop:
the learner's features and one forward pass of the actor per step (``ActorCritic``,
2 x 256 tanh, untrained: near-uniform play, with the long all-in-happy hands an early policy
plays), every opponent model's ``act`` once per step, the engine's step, EV-sampled
settlement and dealing. Side by side in one run:

* ``pool``: opponents = micro-zoom's true styles (``StyleAgent.from_pool``);
* ``station``: opponents = calling stations;
* ``pool_tight`` and ``pool_tight_no_abandon``: as ``pool`` with the actor biased to fold
  (about half its preflop decisions, like a trained exploiter), with folded hands abandoned
  (the default) and played out by the opponents;
* ``probabilities``: opponents that answer probabilities (the styles' exact policy over
  the action set, the form a population model takes; compiled);
* ``model``: a stand-in for a learned population model (a 3 x 512 tanh MLP over the
  decision context and the cards, softmax over the action set);
* ``ev_sampled`` / ``ev_exact``: 512 tables x 2 hands against micro-zoom with the learner's
  all-in pots paid by 64 sampled runouts (the default) or by the engine's exact EV
  settlement (every runout enumerated), the untrained policy going all-in often;
* peers: ``match``: ``evaluate.match.play_match``, a random agent (uniform over the same
  five actions) in one seat against micro-zoom, counting every decision; ``vector_env``:
  ``play.env.VectorEnv`` with a random learner and random opponents (the same play loop,
  observation encoding included), counting learner decisions.

The last line printed is one JSON object with these keys:

* ``{name}_learner_decisions_per_s`` and ``{name}_all_decisions_per_s`` for each rollout
  row above, ``{name}_learner_share`` (the time inside the learner's features and forward
  pass) and ``{name}_opponent_share``;
* ``match_decisions_per_s``, ``vector_env_decisions_per_s``;
* ``ratio_pool_vs_match`` (all decisions, rollout / match),
  ``ratio_pool_learner_vs_vector_env`` (learner decisions, rollout / VectorEnv),
  ``ratio_abandon`` (pool_tight / pool_tight_no_abandon learner decisions),
  ``ratio_model`` (model / pool learner decisions);
* ``ratio_sampled_vs_exact_ev`` (ev_sampled / ev_exact learner decisions);
* ``target_learner_decisions_per_s`` (20,000) and ``meets_target`` (pool row);
* ``tables``, ``hands_per_table``, ``device``, ``quick``, ``seed``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import TypedDict, Unpack

import numpy as np
import torch

from common import emit, house_parser, print_table
from poolshark.agents import Decisions, Probabilities, RandomAgent, load_agent
from poolshark.agents.bots import CallingStation, StyleAgent
from poolshark.engine.actions import ActionSet
from poolshark.engine.config import GameConfig
from poolshark.evaluate import MatchConfig, play_match
from poolshark.exploit.actor_critic import CONTEXT_FEATURES, ActorCritic, encode_policy_contexts
from poolshark.exploit.ppo import make_policy
from poolshark.exploit.rollout import (
    Opponent,
    Rollout,
    RolloutBatch,
    RolloutSettings,
    StyleProbabilities,
)
from poolshark.play.env import VectorEnv, random_policy
from poolshark.pool.pools import load_pool

TARGET = 20_000


class ModelLike:
    """A stand-in for a learned population model: context, own cards and board in, a
    softmax over the action set out (3 hidden layers of 512)."""

    def __init__(self, actions: ActionSet, seed: int) -> None:
        torch.manual_seed(seed)
        width = 512
        self.actions = actions
        self.net = torch.nn.Sequential(
            torch.nn.Linear(CONTEXT_FEATURES + 104, width),
            torch.nn.Tanh(),
            torch.nn.Linear(width, width),
            torch.nn.Tanh(),
            torch.nn.Linear(width, width),
            torch.nn.Tanh(),
            torch.nn.Linear(width, actions.size),
        )

    def act(self, decisions: Decisions) -> Probabilities:
        count = decisions.size
        cards = np.zeros((count, 104), dtype=np.float32)
        rows = np.arange(count)
        cards[rows, decisions.hole_cards[:, 0]] = 1.0
        cards[rows, decisions.hole_cards[:, 1]] = 1.0
        for b in range(5):
            shown = decisions.board[:, b] >= 0
            cards[rows[shown], 52 + decisions.board[shown, b]] = 1.0
        inputs = np.concatenate([encode_policy_contexts(decisions.contexts), cards], axis=1)
        mask = torch.from_numpy(decisions.mask(self.actions))
        with torch.no_grad():
            logits = self.net(torch.from_numpy(inputs)).masked_fill(~mask, -1e9)
            values = torch.softmax(logits, dim=1).double().numpy()
        return Probabilities(self.actions, values)


class SettingsOptions(TypedDict, total=False):
    """The :class:`RolloutSettings` fields a run of :func:`collect` may set (else defaults)."""

    abandon_folded: bool
    all_in_ev: str


class CollectOptions(SettingsOptions, total=False):
    """Every keyword option of :func:`collect`."""

    tight: bool


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The house options (``--quick``, ``--seed``, ``--json``) and ``--device``."""
    parser = house_parser(__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", help="torch device of the learner")
    return parser.parse_args(argv)


def collect(
    opponents: list[Opponent],
    tables: int,
    hands: int,
    seed: int,
    device: str,
    *,
    tight: bool = False,
    **options: Unpack[SettingsOptions],
) -> RolloutBatch:
    """One timed collection (after a small warm-up collection that compiles everything).

    ``tight`` biases the untrained actor towards folding (about half its preflop
    decisions, as a trained exploiter folds), so abandoning folded hands shows its effect.
    """
    torch.manual_seed(seed)
    model = ActorCritic(6, ActionSet().size).to(torch.device(device)).eval()
    if tight:
        with torch.no_grad():
            head = model.actor[-1]
            assert isinstance(head, torch.nn.Linear)
            head.bias[0] = 2.5
    policy = make_policy(model)
    warm = Rollout(RolloutSettings(tables=64, hands_per_table=1, **options), ActionSet(), opponents)
    warm.collect(policy, seed=seed, iteration=99)
    rollout = Rollout(
        RolloutSettings(tables=tables, hands_per_table=hands, **options), ActionSet(), opponents
    )
    return rollout.collect(policy, seed=seed, iteration=0)


def rates(batch: RolloutBatch) -> dict[str, float]:
    """Decisions per second and time shares of one collection."""
    total = batch.seconds["total"]
    others = sum(batch.opponent_decisions.values())
    return {
        "learner_decisions_per_s": batch.size / total,
        "all_decisions_per_s": (batch.size + others) / total,
        "learner_share": batch.seconds["learner"] / total,
        "opponent_share": batch.seconds["opponents"] / total,
        "hands": float(batch.hand_rewards.size),
        "learner_decisions": float(batch.size),
    }


def match_rate(hands: int, seed: int) -> tuple[float, int]:
    """Every decision per second of play_match: a random agent against micro-zoom."""
    agents = [RandomAgent(), load_agent("pool:micro-zoom")]
    play_match(agents, (0, 1, 1, 1, 1, 1), MatchConfig(hands=600, seed=seed))
    result = play_match(agents, (0, 1, 1, 1, 1, 1), MatchConfig(hands=hands, seed=seed))
    decisions = sum(a.decisions for a in result.agents)
    return decisions / result.seconds, decisions


def vector_env_rate(tables: int, steps: int, seed: int) -> float:
    """Learner decisions per second of VectorEnv with random players everywhere."""
    env = VectorEnv(GameConfig(seats=6), tables, random_policy(seed), seed=seed)
    learner = random_policy(seed + 1)
    observations, masks = env.reset()
    env.step(learner(observations, masks))
    start = time.perf_counter()
    for _ in range(steps):
        observations, masks, _, _ = env.step(learner(observations, masks))
    return tables * steps / (time.perf_counter() - start)


def main() -> None:
    args = parse()
    torch.set_num_threads(1)
    quick, seed, device = args.quick, args.seed, args.device
    tables, hands = (1024, 4) if quick else (4096, 8)
    pool = StyleAgent.from_pool(load_pool("micro-zoom"))
    styles = [Opponent("pool:micro-zoom", pool)]
    exact = StyleProbabilities.of(pool)
    rows: dict[str, dict[str, float]] = {}
    plan: list[tuple[str, list[Opponent], CollectOptions]] = [
        ("pool", styles, {}),
        ("station", [Opponent("station", CallingStation())], {}),
        ("pool_tight", styles, {"tight": True}),
        ("pool_tight_no_abandon", styles, {"tight": True, "abandon_folded": False}),
        ("probabilities", [Opponent("styles' probabilities", exact)], {}),
    ]
    for name, opponents, options in plan:
        batch = collect(opponents, tables, hands, seed, device, **options)
        rows[name] = rates(batch)
    model = [Opponent("model", ModelLike(ActionSet(), seed))]
    rows["model"] = rates(collect(model, tables, hands, seed, device))
    for mode in ("sampled", "exact"):
        batch = collect(styles, 512, 2, seed, device, all_in_ev=mode)
        rows[f"ev_{mode}"] = rates(batch)
    match_speed, _ = match_rate(20_000 if quick else 100_000, seed)
    env_speed = vector_env_rate(1024 if quick else 4096, 30 if quick else 100, seed)
    figures: dict[str, object] = {}
    for name, row in rows.items():
        for key in ("learner_decisions_per_s", "all_decisions_per_s", "learner_share"):
            figures[f"{name}_{key}"] = row[key]
        figures[f"{name}_opponent_share"] = row["opponent_share"]
    pool_row = rows["pool"]
    figures.update(
        {
            "match_decisions_per_s": match_speed,
            "vector_env_decisions_per_s": env_speed,
            "ratio_pool_vs_match": pool_row["all_decisions_per_s"] / match_speed,
            "ratio_pool_learner_vs_vector_env": pool_row["learner_decisions_per_s"] / env_speed,
            "ratio_model": rows["model"]["learner_decisions_per_s"]
            / pool_row["learner_decisions_per_s"],
            "ratio_abandon": rows["pool_tight"]["learner_decisions_per_s"]
            / rows["pool_tight_no_abandon"]["learner_decisions_per_s"],
            "ratio_sampled_vs_exact_ev": rows["ev_sampled"]["learner_decisions_per_s"]
            / rows["ev_exact"]["learner_decisions_per_s"],
            "target_learner_decisions_per_s": TARGET,
            "meets_target": pool_row["learner_decisions_per_s"] >= TARGET,
            "tables": tables,
            "hands_per_table": hands,
            "device": device,
            "quick": quick,
            "seed": seed,
        }
    )
    if not args.json:
        labels = {
            "pool": "rollout vs micro-zoom styles",
            "station": "rollout vs calling stations",
            "pool_tight": "vs micro-zoom, learner folds ~half",
            "pool_tight_no_abandon": "same, folded hands played out",
            "probabilities": "vs styles' probabilities (compiled)",
            "model": "vs a 3 x 512 MLP opponent model",
            "ev_sampled": "512 x 2 hands, all-in EV by 64 runouts",
            "ev_exact": "512 x 2 hands, all-in EV exact",
        }
        print_table(
            f"Exploiter rollout, {tables:,} tables x {hands} hands, one thread, {device}",
            ["loop", "learner dec/s", "all dec/s", "learner time", "opponent time", "x pool"],
            [
                [
                    labels[name],
                    row["learner_decisions_per_s"],
                    row["all_decisions_per_s"],
                    f"{row['learner_share']:.0%}",
                    f"{row['opponent_share']:.0%}",
                    row["learner_decisions_per_s"] / pool_row["learner_decisions_per_s"],
                ]
                for name, row in rows.items()
            ],
        )
        print_table(
            "Peers (decisions per second)",
            ["loop", "decisions/s", "rollout is x faster"],
            [
                [
                    "play_match: random vs micro-zoom (all decisions)",
                    match_speed,
                    pool_row["all_decisions_per_s"] / match_speed,
                ],
                [
                    "VectorEnv, random players (learner decisions)",
                    env_speed,
                    pool_row["learner_decisions_per_s"] / env_speed,
                ],
            ],
        )
        print(
            f"target {TARGET:,} learner decisions/s: "
            f"{'met' if figures['meets_target'] else 'missed'}"
        )
    emit(figures)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
