"""The league's training loop: collect games against the pool, update, snapshot, repeat.

Each epoch:

1. draw ``opponents_per_epoch`` snapshots from the checkpoint pool (``league.checkpoints``);
2. play ``games_per_epoch`` games of ``hands_per_game`` hands against them
   (``league.rollout``; in-process, or split over Ray actors with ``ray_workers``);
3. replay the learner's decisions with gradients and take one REINFORCE step
   (``league.reinforce``): Adam, gradients clipped to ``grad_clip_norm``, the learning
   rate decayed by ``lr_decay_gamma`` every ``lr_decay_steps`` epochs;
4. every ``pool.snapshot_every`` epochs the learner joins the pool; every ``save_every``
   epochs (and at the end) ``last.pt`` and ``history.csv`` are written atomically.

A run directory holds ``config.toml``-equivalent JSON in ``config.json``, ``last.pt`` (a
league checkpoint that also carries the optimizer, the schedule, the baselines and the
pool, so ``--resume-latest`` continues it exactly), ``pool/epoch_*.pt`` snapshots (each an
agent), ``history.csv`` (one row per epoch, :data:`HISTORY_COLUMNS`) and TensorBoard logs
in ``tensorboard/`` (and a Weights & Biases run with ``wandb_project``, the ``wandb`` extra).
Every random stream comes from ``(seed, epoch)``: a killed and resumed
run ends with the same weights as an uninterrupted one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch

from poolshark.agents.loading import load_agent
from poolshark.league.agent import checkpoint_payload, net_from_payload, read_league_checkpoint
from poolshark.league.checkpoints import CheckpointPool
from poolshark.league.config import LeagueConfig, LeagueError, scheduled
from poolshark.league.critic import ValueBaseline, fit_values
from poolshark.league.inputs import ACTION_NAMES, PolicyInputs
from poolshark.league.nets import PokerNet, net_from_config
from poolshark.league.reinforce import (
    ActionBaselines,
    advantages,
    reinforce_loss,
    unroll,
)
from poolshark.league.remote import RayCollector
from poolshark.league.rollout import EpochPlan, Experience, collect
from poolshark.training.common import require_device, save_atomic, write_text_atomic
from poolshark.training.tensorboard import ScalarLog
from poolshark.training.wandb_log import WandbLog

HISTORY_COLUMNS = (
    "epoch",
    "seconds",
    "hands",
    "decisions",
    "loss",
    "policy_loss",
    "size_loss",
    "entropy",
    "diversity_penalty",
    "reward_mean",
    "bb_per_100",
    "showdown_multiplier",
    "learning_rate",
    "freq_fold",
    "freq_call",
    "freq_bet",
    "mean_p_fold",
    "mean_p_call",
    "mean_p_bet",
    "pool_size",
    "grad_norm",
    "value_loss",
    "opponent_loss",
)
"""The columns of ``history.csv``, one row per epoch."""

Floats = npt.NDArray[np.float64]
Collector = Callable[[EpochPlan, PokerNet, list[Path], list[str], int, int], Experience]
"""``collector(plan, learner, opponent snapshot files, fixed opponent specs, seed, epoch)``:
an epoch's games (the in-process :func:`collect_in_process`, or Ray actors from
``league.remote``)."""


@dataclass
class LeagueResult:
    """What a run did: its folder, the epochs it reached, the history rows."""

    out: Path
    epochs: int
    history: list[dict[str, float]] = field(default_factory=list)
    seconds: float = 0.0
    pool: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        last = self.history[-1] if self.history else {}
        return {
            "out": str(self.out),
            "epochs": self.epochs,
            "seconds": round(self.seconds, 3),
            "pool": self.pool,
            "last": last,
        }


class _Nets:
    """Snapshot networks loaded once per file (opponents repeat across epochs)."""

    def __init__(self) -> None:
        self.loaded: dict[Path, PokerNet] = {}

    def get(self, path: Path) -> PokerNet:
        if path not in self.loaded:
            self.loaded[path] = net_from_payload(read_league_checkpoint(path))
        return self.loaded[path]

    def forget_missing(self) -> None:
        self.loaded = {p: n for p, n in self.loaded.items() if p.is_file()}


_NETS = _Nets()


def collect_in_process(
    plan: EpochPlan,
    learner: PokerNet,
    opponents: list[Path],
    fixed: list[str],
    seed: int,
    epoch: int,
) -> Experience:
    """The epoch's games in this process (device: the learner's)."""
    device = str(next(learner.parameters()).device)
    nets = [_NETS.get(path) for path in opponents]
    agents = [load_agent(spec) for spec in fixed]
    return collect(plan, learner, nets, (seed, epoch, 0), fixed=agents, device=device)


def epoch_plan(config: LeagueConfig, epoch: int) -> EpochPlan:
    """What epoch ``epoch`` plays (the schedules and the curriculum at that epoch)."""
    return EpochPlan(
        game=config.game,
        rewards=config.rewards,
        games=scheduled(config.game.games_per_epoch, epoch),
        hands_per_game=scheduled(config.game.hands_per_game, epoch),
        showdown_multiplier=config.rewards.showdown_multiplier(epoch),
        shuffle_opponents=config.learning.shuffle_opponents,
        fixed_share=config.pool.fixed_share,
        fixed_weights=tuple(config.pool.fixed_opponents.values()),
    )


@dataclass
class _Learner:
    """Everything a run updates: the network and its optimizer and schedule, the value
    baseline (``baseline = "value"``) and its optimizer, the action baselines, the pool."""

    net: PokerNet
    optimizer: torch.optim.Optimizer
    schedule: torch.optim.lr_scheduler.StepLR
    baselines: ActionBaselines
    pool: CheckpointPool
    critic: ValueBaseline | None
    critic_optimizer: torch.optim.Optimizer | None

    @classmethod
    def fresh(cls, config: LeagueConfig, out: Path, device: torch.device) -> _Learner:
        learning = config.learning
        net = net_from_config(config.net, config.game.seats).to(device)
        optimizer = torch.optim.Adam(net.parameters(), lr=learning.learning_rate)
        schedule = torch.optim.lr_scheduler.StepLR(
            optimizer, step_size=learning.lr_decay_steps, gamma=learning.lr_decay_gamma
        )
        critic, critic_optimizer = None, None
        if learning.baseline == "value":
            critic = ValueBaseline(config.game.seats, learning.value_hidden).to(device)
            critic_optimizer = torch.optim.Adam(
                critic.parameters(), lr=learning.value_learning_rate
            )
        return cls(
            net,
            optimizer,
            schedule,
            ActionBaselines(
                learning.action_baseline_window, pooled=learning.baseline != "per-action"
            ),
            CheckpointPool(config.pool, out / "pool"),
            critic,
            critic_optimizer,
        )

    def state(self) -> dict[str, Any]:
        """What ``last.pt`` stores beside the network."""
        state: dict[str, Any] = {
            "optimizer": self.optimizer.state_dict(),
            "schedule": self.schedule.state_dict(),
            "baselines": self.baselines.state(),
            "pool": self.pool.state(),
        }
        if self.critic is not None and self.critic_optimizer is not None:
            state["critic"] = {k: v.detach().cpu() for k, v in self.critic.state_dict().items()}
            state["critic_optimizer"] = self.critic_optimizer.state_dict()
        return state

    def restore(self, payload: dict[str, Any]) -> None:
        """Load :meth:`state` (and the network) from a ``last.pt`` dict."""
        self.net.load_state_dict(payload["model"])
        self.optimizer.load_state_dict(payload["optimizer"])
        self.schedule.load_state_dict(payload["schedule"])
        self.baselines.restore(payload["baselines"])
        if self.critic is not None and self.critic_optimizer is not None:
            self.critic.load_state_dict(payload["critic"])
            self.critic_optimizer.load_state_dict(payload["critic_optimizer"])
        try:
            self.pool.restore(list(payload["pool"]))
        except FileNotFoundError as error:
            raise LeagueError(str(error)) from None


def train_league(
    config: LeagueConfig,
    out: Path,
    *,
    resume_latest: bool = False,
    resume_from: Path | None = None,
    collector: Collector | None = None,
    progress: Callable[[int, dict[str, float]], None] | None = None,
) -> LeagueResult:
    """Train (or resume) the league run in ``out``; see the module docstring. ``collector``
    replaces how games are played (default: in this process, or Ray with ``ray_workers``);
    ``progress(epoch, row)`` is called after each epoch."""
    require_device(config.device, LeagueError)
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    device = torch.device(config.device)
    torch.manual_seed(config.seed)
    learner = _Learner.fresh(config, out, device)
    history: list[dict[str, float]] = []
    start = 0
    source = resume_from or (out / "last.pt" if resume_latest else None)
    if source is not None and (resume_from is not None or source.is_file()):
        start = _resume(source, config, learner, history)
    else:
        if (out / "last.pt").is_file():
            raise LeagueError(
                f"{str(out)!r} already holds a run; resume it with --resume-latest or "
                "choose another --out"
            )
        learner.pool.add(0, checkpoint_payload(learner.net, 0))
    out.mkdir(parents=True, exist_ok=True)
    write_text_atomic(
        json.dumps(config.model_dump(mode="json"), indent=2) + "\n", out / "config.json"
    )
    logs = _logs(config, out)
    remote = None
    if collector is None and config.ray_workers > 0:
        remote = RayCollector(config.ray_workers, address=config.ray_address)
    collector = collector or remote or collect_in_process
    epochs = config.learning.epochs
    began = time.perf_counter()
    try:
        for epoch in range(start, epochs):
            row = _epoch(config, learner, collector, epoch)
            history.append(row)
            done = epoch + 1
            if done % config.pool.snapshot_every == 0:
                learner.pool.add(done, checkpoint_payload(learner.net, done))
                _NETS.forget_missing()
            for log in logs:
                for key, value in row.items():
                    if key != "epoch":
                        log.scalar(f"league/{key}", value, done)
            if done % config.save_every == 0 or done == epochs:
                _save(out, config, learner, history, done)
                for log in logs:
                    log.flush()
            if progress is not None:
                progress(done, row)
    finally:
        for log in logs:
            log.close()
        if remote is not None:
            remote.close()
    seconds = time.perf_counter() - began
    return LeagueResult(out, epochs, history, seconds, learner.pool.state())


def _logs(config: LeagueConfig, out: Path) -> list[ScalarLog | WandbLog]:
    """TensorBoard (``tensorboard``) and Weights & Biases (``wandb_project``) logs."""
    logs: list[ScalarLog | WandbLog] = []
    if config.wandb_project is not None:
        try:
            logs.append(
                WandbLog(config.wandb_project, out.name, config.model_dump(mode="json"), out)
            )
        except ImportError as error:
            raise LeagueError(str(error)) from None
    if config.tensorboard:
        logs.append(ScalarLog(out / "tensorboard"))
    return logs


def _advantages(
    config: LeagueConfig, learner: _Learner, experience: Experience, device: torch.device
) -> tuple[Floats, float]:
    """The epoch's normalized advantages (by the configured baseline) and the value
    baseline's loss after fitting this epoch's returns (0 without one)."""
    returns, actions = experience.returns, experience.actions
    groups = experience.lineups if config.learning.advantage_groups == "lineup" else None
    if learner.critic is None or learner.critic_optimizer is None:
        values = learner.baselines.values(returns, actions)
        learner.baselines.update(returns, actions)
        return advantages(returns, actions, values, groups), 0.0
    inputs = PolicyInputs.of(experience.inputs, device)
    with torch.no_grad():
        predicted = learner.critic(inputs).cpu().numpy().astype(np.float64)
    target = torch.from_numpy(returns).to(device=device, dtype=torch.float32)
    steps = config.learning.value_steps
    value_loss = fit_values(learner.critic, learner.critic_optimizer, inputs, target, steps)
    zero = np.zeros(len(ACTION_NAMES))
    return advantages(returns - predicted, actions, zero, groups), value_loss


def _epoch(
    config: LeagueConfig, learner: _Learner, collector: Collector, epoch: int
) -> dict[str, float]:
    """One epoch: collect, one REINFORCE step; returns its history row."""
    began = time.perf_counter()
    net, optimizer = learner.net, learner.optimizer
    device = next(net.parameters()).device
    plan = epoch_plan(config, epoch)
    draw = np.random.default_rng([config.seed, epoch, 1])
    opponents = []
    if config.pool.fixed_share < 1.0:
        opponents = [s.path for s in learner.pool.draw(draw, config.pool.opponents_per_epoch)]
    fixed = list(config.pool.fixed_opponents)
    net.eval()
    experience = collector(plan, net, opponents, fixed, config.seed, epoch)
    if experience.size == 0:
        raise LeagueError(f"epoch {epoch} gave the learner no decision; play more games")
    advantage, value_loss = _advantages(config, learner, experience, device)
    net.train()
    replay = unroll(net, experience, device)
    parts = reinforce_loss(replay, experience, advantage, config.learning, device)
    optimizer.zero_grad(set_to_none=True)
    parts.loss.backward()  # type: ignore[no-untyped-call]
    grad_norm = torch.nn.utils.clip_grad_norm_(net.parameters(), config.learning.grad_clip_norm)
    optimizer.step()
    learning_rate = optimizer.param_groups[0]["lr"]
    learner.schedule.step()
    net.eval()
    counts = np.bincount(experience.actions, minlength=len(ACTION_NAMES)) / experience.size
    row = {
        "epoch": float(epoch + 1),
        "seconds": time.perf_counter() - began,
        "hands": float(experience.hands),
        "decisions": float(experience.size),
        "loss": float(parts.loss.detach()),
        "policy_loss": parts.policy,
        "size_loss": parts.size,
        "entropy": parts.entropy,
        "diversity_penalty": parts.diversity,
        "opponent_loss": parts.opponent,
        "reward_mean": float(experience.returns.mean()),
        "bb_per_100": 100.0 * float(experience.hand_results.mean()),
        "showdown_multiplier": plan.showdown_multiplier,
        "learning_rate": float(learning_rate),
        "freq_fold": float(counts[0]),
        "freq_call": float(counts[1]),
        "freq_bet": float(counts[2]),
        "mean_p_fold": parts.mean_probabilities[0],
        "mean_p_call": parts.mean_probabilities[1],
        "mean_p_bet": parts.mean_probabilities[2],
        "pool_size": float(len(learner.pool)),
        "grad_norm": float(grad_norm),
        "value_loss": value_loss,
    }
    return row


def _save(
    out: Path,
    config: LeagueConfig,
    learner: _Learner,
    history: list[dict[str, float]],
    epoch: int,
) -> None:
    """``last.pt`` (a league checkpoint with the whole training state) and ``history.csv``."""
    payload = checkpoint_payload(
        learner.net,
        epoch,
        {
            "config": config.model_dump(mode="json"),
            **learner.state(),
            "history": [[row[c] for c in HISTORY_COLUMNS] for row in history],
        },
    )
    save_atomic(payload, out / "last.pt")
    write_text_atomic(history_csv(history), out / "history.csv")


def _dotted(document: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A nested config dump as ``{"section.key": value}``."""
    flat: dict[str, Any] = {}
    for key, value in document.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and not all(k.isdigit() for k in value):
            flat.update(_dotted(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def history_csv(history: list[dict[str, float]]) -> str:
    """The history rows as CSV text with :data:`HISTORY_COLUMNS`."""
    lines = [",".join(HISTORY_COLUMNS)]
    for row in history:
        lines.append(",".join(f"{row[c]:.6g}" for c in HISTORY_COLUMNS))
    return "\n".join(lines) + "\n"


def _resume(
    path: Path, config: LeagueConfig, learner: _Learner, history: list[dict[str, float]]
) -> int:
    """Load a training checkpoint into the run's parts; returns the epoch to start at.
    The config may differ only in :meth:`LeagueConfig.resumable` keys and ``learning.epochs``
    (to train a finished run further)."""
    try:
        payload = read_league_checkpoint(path, str(next(learner.net.parameters()).device))
    except ValueError as error:
        raise LeagueError(str(error)) from None
    if "optimizer" not in payload:
        raise LeagueError(f"{str(path)!r} is a pool snapshot, not a run's last.pt; cannot resume")
    saved_config = LeagueConfig.model_validate(payload["config"])  # keys added since: defaults
    saved, now = (
        _dotted(saved_config.model_dump(mode="json")),
        _dotted(config.model_dump(mode="json")),
    )
    free = {*config.resumable(), "learning.epochs"}
    keys = saved.keys() | now.keys()
    changed = sorted(k for k in keys if k not in free and saved.get(k) != now.get(k))
    if changed:
        raise LeagueError(
            f"cannot resume {str(path)!r} with a changed config: {', '.join(changed)}"
        )
    learner.restore(payload)
    for row in payload["history"]:  # columns added since a checkpoint was written read 0
        padded = [*row, *[0.0] * (len(HISTORY_COLUMNS) - len(row))]
        history.append(dict(zip(HISTORY_COLUMNS, padded, strict=True)))
    return int(payload["epoch"])
