"""PPO for the exploiter, top to bottom: config, advantages, the update, the training loop.

One iteration = collect experience with the frozen policy (``train.rollout``: thousands of
tables, the learner against frozen opponents), estimate advantages with GAE (each hand is
an episode; the reward, in big blinds times ``reward_scale``, arrives at the learner's
last decision of the hand), then ``epochs`` passes of minibatch Adam steps on the clipped
surrogate objective plus the value loss minus the entropy bonus.

The **safe exploiter** adds two options. ``kl_coef`` with a ``reference`` agent adds
``kl_coef * KL(policy || reference)`` at the learner's own decisions to the loss (the
reference answers :class:`~poolshark.evaluate.agents.Probabilities` over the same action
set: the population model, or for synthetic pools their styles' exact policy), so the
exploiter moves only as far from the population's own play as its edge pays for.
``equilibrium_mix`` seats an equilibrium-minded agent (``equilibrium``, default the TAG
bot) in that share of the opponent seats, so the exploiter cannot lean entirely on the
model's habits (in the spirit of data-biased robust counter-strategies).

Runs are reproducible and resumable: every collection's randomness comes from
``(seed, iteration)``, minibatch order from ``(seed, iteration)``, and ``last.pt`` (written
atomically every ``checkpoint_every`` iterations and at the end) holds the weights, the
optimizer and the per-iteration history, so ``resume`` continues a killed run bit for bit.
Curves go to TensorBoard event files under ``<out>/tensorboard`` and to ``<out>/metrics.csv``.
"""

from __future__ import annotations

import csv
import io
import math
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numba as nb
import numpy as np
import numpy.typing as npt
import torch
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from poolshark.engine.actions import ActionSet
from poolshark.evaluate.agents import Agent
from poolshark.evaluate.bots import MixtureAgent, StyleAgent
from poolshark.evaluate.exploiter_agent import CHECKPOINT_FORMAT, CHECKPOINT_KIND
from poolshark.evaluate.loading import load_agent
from poolshark.models.actor_critic import ActorCritic, policy_terms, reference_kl
from poolshark.train.common import (
    check_device_name,
    count_parameters,
    require_device,
    restore_run,
    save_atomic,
    write_text_atomic,
)
from poolshark.train.rollout import (
    Opponent,
    ProbabilitiesOf,
    Rollout,
    RolloutBatch,
    RolloutSettings,
    StyleProbabilities,
)
from poolshark.train.tensorboard import ScalarLog

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

_RESUMABLE_CHANGES = ("iterations", "device", "threads", "checkpoint_every")
"""Config keys a resumed run may change."""
TIMING_KEYS = ("seconds", "rollout_seconds", "update_seconds", "learner_decisions_per_s")
"""History entries that measure time (everything else replays exactly)."""
VALUE_BATCH = 8192


PRESETS: dict[str, dict[str, Any]] = {
    "seed": {},
    "small-cpu": {"tables": 2048, "hidden": 128, "minibatch_size": 512, "learning_rate": 5e-4},
}
"""Named sets of defaults: ``seed`` is seed 000's hyperparameters (the plain defaults),
``small-cpu`` trades them for fewer, larger Adam steps that learn about four times faster
per second on one CPU core (``docs/exploit.md`` has the comparison)."""


class ExploitError(ValueError):
    """A run that cannot start or resume as asked; the message says why."""


class ExploitConfig(BaseModel):
    """Everything that defines an exploiter training run (TOML keys of the same names).

    Defaults follow seed 000 where it gives a value (gamma, lambda, clip, epochs, minibatch
    128, entropy 0.001, Adam 2.5e-4); ``preset = "small-cpu"`` fills the keys not given
    with the values tuned for small CPU runs (:data:`PRESETS`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    preset: Literal["seed", "small-cpu"] = "seed"
    against: list[str] = Field(default_factory=lambda: ["pool:micro-zoom"], min_length=1)
    against_weights: list[float] | None = None
    iterations: int = Field(100, ge=1, le=1_000_000)
    tables: int = Field(1024, ge=1, le=1 << 20)
    hands_per_table: int = Field(8, ge=1, le=10_000)
    seats: int = Field(6, ge=2, le=10)
    depth_bb: float = Field(100.0, gt=0.0, le=10_000.0)
    rake_percent: float = Field(0.0, ge=0.0, le=100.0)
    rake_cap_bb: float | None = Field(None, ge=0.0)
    all_in_ev: Literal["sampled", "exact", "off"] = "sampled"
    runouts: int = Field(64, ge=1, le=100_000)
    abandon_folded: bool = True
    pot_fractions: list[float] = Field(default_factory=lambda: [0.5, 1.0])
    all_in: bool = True
    hidden: int = Field(256, ge=4, le=8192)
    layers: int = Field(2, ge=1, le=16)
    gamma: float = Field(0.995, ge=0.0, le=1.0)
    gae_lambda: float = Field(0.94, ge=0.0, le=1.0)
    clip: float = Field(0.2, gt=0.0, lt=1.0)
    epochs: int = Field(5, ge=1, le=100)
    minibatch_size: int = Field(128, ge=2, le=1 << 20)
    learning_rate: float = Field(2.5e-4, gt=0.0, le=1.0)
    anneal_lr: bool = False
    entropy_coef: float = Field(0.001, ge=0.0, le=10.0)
    value_coef: float = Field(0.5, ge=0.0, le=100.0)
    max_grad_norm: float = Field(0.5, gt=0.0)
    reward_scale: float = Field(0.1, gt=0.0)
    normalize_advantages: bool = True
    target_kl: float | None = Field(None, gt=0.0)
    kl_coef: float = Field(0.0, ge=0.0)
    reference: str | None = None
    reference_epsilon: float = Field(0.01, ge=0.0, lt=1.0)
    equilibrium_mix: float = Field(0.0, ge=0.0, lt=1.0)
    equilibrium: str = "tag"
    seed: int = Field(0, ge=0)
    device: str = "cpu"
    threads: int | None = Field(None, ge=1, le=1024)
    checkpoint_every: int = Field(1, ge=1)

    @model_validator(mode="before")
    @classmethod
    def _apply_preset(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("preset") in PRESETS:
            return {**PRESETS[str(data["preset"])], **data}
        return data

    @field_validator("device")
    @classmethod
    def _known_device(cls, value: str) -> str:
        return check_device_name(value)

    @field_validator("pot_fractions")
    @classmethod
    def _positive_fractions(cls, value: list[float]) -> list[float]:
        if any(not math.isfinite(f) or f <= 0 for f in value):
            raise ValueError(f"pot fractions must be positive, got {value}")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> ExploitConfig:
        if self.against_weights is not None and len(self.against_weights) != len(self.against):
            raise ValueError(
                f"{len(self.against_weights)} against_weights for {len(self.against)} opponents"
            )
        if self.against_weights is not None and (
            any(w < 0 for w in self.against_weights) or sum(self.against_weights) <= 0
        ):
            raise ValueError("against_weights must be non-negative with a positive sum")
        if self.kl_coef > 0 and self.reference is None:
            raise ValueError("kl_coef needs a reference agent (reference = 'pool:...')")
        return self

    @classmethod
    def from_toml(cls, path: Path, **overrides: Any) -> ExploitConfig:
        """Load a TOML file; ``overrides`` (not None) replace its keys. Errors name the file."""
        try:
            document = tomllib.loads(Path(path).read_text())
        except OSError as error:
            raise ExploitError(f"cannot read config {str(path)!r}: {error.strerror}") from None
        except tomllib.TOMLDecodeError as error:
            raise ExploitError(f"config {str(path)!r} is not valid TOML: {error}") from None
        document.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(document)

    def action_set(self) -> ActionSet:
        """The learner's discrete actions."""
        return ActionSet.of(self.pot_fractions, all_in=self.all_in)

    def rollout_settings(self) -> RolloutSettings:
        """How each iteration's experience is collected."""
        return RolloutSettings(
            tables=self.tables,
            hands_per_table=self.hands_per_table,
            seats=self.seats,
            depth_bb=self.depth_bb,
            rake_percent=self.rake_percent,
            rake_cap_bb=self.rake_cap_bb,
            all_in_ev=self.all_in_ev,
            runouts=self.runouts,
            abandon_folded=self.abandon_folded,
        )


# -- opponents and reference from specs ---------------------------------------------------


def build_opponents(config: ExploitConfig) -> list[Opponent]:
    """The opponent mix: each ``against`` spec by its weight, plus the equilibrium-minded
    agent in ``equilibrium_mix`` of the seats."""
    weights = config.against_weights or [1.0] * len(config.against)
    total = float(sum(weights))
    share = 1.0 - config.equilibrium_mix
    opponents = [
        Opponent(spec, load_agent(spec), share * w / total)
        for spec, w in zip(config.against, weights, strict=True)
    ]
    if config.equilibrium_mix > 0:
        opponents.append(
            Opponent(f"{config.equilibrium} (mix)", load_agent(config.equilibrium), 1 - share)
        )
    return opponents


def opponent_field(config: ExploitConfig) -> Agent:
    """The ``against`` opponents as one agent (for evaluation matches): the agent itself,
    or a mix drawn per seat and hand by weight. The equilibrium mix is left out."""
    agents = [load_agent(spec) for spec in config.against]
    if len(agents) == 1:
        return agents[0]
    weights = config.against_weights or [1.0] * len(agents)
    return MixtureAgent(agents, weights, config.against)


def build_reference(spec: str, actions: ActionSet) -> Agent:
    """The KL reference a spec names, answering probabilities over ``actions``: style agents
    become their exact probabilities, an agent with ``action_probabilities(decisions,
    actions)`` (the population model) is asked that; any other agent must answer
    :class:`~poolshark.evaluate.agents.Probabilities` over the same set itself."""
    agent = load_agent(spec)
    if isinstance(agent, StyleAgent):
        return StyleProbabilities.of(agent, actions)
    if callable(getattr(agent, "action_probabilities", None)):
        return ProbabilitiesOf(agent, actions)
    return agent


# -- advantages ---------------------------------------------------------------------------


def gae(rewards: Floats, values: Floats, next_index: Int64s, gamma: float, lam: float) -> Floats:
    """Generalized advantage estimates over transitions linked by ``next_index`` (the next
    decision of the same episode, -1 at its end, always a later index). Compiled."""
    n = rewards.size
    if values.shape != (n,) or next_index.shape != (n,):
        raise ValueError("rewards, values and next_index must have the same length")
    linked = np.flatnonzero(next_index >= 0)
    if linked.size and (next_index[linked] <= linked).any():
        raise ValueError("next_index must point to a later transition")
    if linked.size and next_index.max() >= n:
        raise ValueError("next_index points past the last transition")
    out = np.zeros(n)
    _gae_kernel(
        np.ascontiguousarray(rewards, dtype=np.float64),
        np.ascontiguousarray(values, dtype=np.float64),
        np.ascontiguousarray(next_index, dtype=np.int64),
        gamma,
        lam,
        out,
    )
    return out


@nb.njit(cache=True, nogil=True)
def _gae_kernel(
    rewards: Floats, values: Floats, next_index: Int64s, gamma: float, lam: float, out: Floats
) -> None:
    for i in range(rewards.size - 1, -1, -1):
        j = next_index[i]
        if j < 0:
            out[i] = rewards[i] - values[i]
        else:
            delta = rewards[i] + gamma * values[j] - values[i]
            out[i] = delta + gamma * lam * out[j]


def gae_reference(
    rewards: Floats, values: Floats, next_index: Int64s, gamma: float, lam: float
) -> Floats:
    """The textbook loop, episode by episode (the test's reference for :func:`gae`)."""
    n = len(rewards)
    pointed = {int(j) for j in next_index if j >= 0}
    out = np.zeros(n)
    for head in range(n):
        if head in pointed:
            continue
        episode = [head]
        while next_index[episode[-1]] >= 0:
            episode.append(int(next_index[episode[-1]]))
        running = 0.0
        for t in reversed(range(len(episode))):
            i = episode[t]
            following = values[episode[t + 1]] if t + 1 < len(episode) else 0.0
            delta = rewards[i] + gamma * following - values[i]
            running = delta + gamma * lam * running
            out[i] = running
    return out


# -- the update ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Tensors:
    """A rollout's arrays as tensors on the training device."""

    inputs: torch.Tensor
    cards: torch.Tensor
    showdown: torch.Tensor
    masks: torch.Tensor
    actions: torch.Tensor
    log_probs: torch.Tensor
    reference: torch.Tensor | None

    @classmethod
    def of(cls, batch: RolloutBatch, device: torch.device) -> Tensors:
        def put(array: npt.NDArray[np.generic], dtype: torch.dtype) -> torch.Tensor:
            return torch.from_numpy(np.ascontiguousarray(array)).to(device=device, dtype=dtype)

        return cls(
            inputs=put(batch.inputs, torch.float32),
            cards=put(batch.cards, torch.long),
            showdown=put(batch.showdown, torch.float32),
            masks=put(batch.masks, torch.bool),
            actions=put(batch.actions, torch.long),
            log_probs=put(batch.log_probs, torch.float32),
            reference=None if batch.reference is None else put(batch.reference, torch.float32),
        )


@torch.no_grad()
def critic_values(model: ActorCritic, tensors: Tensors) -> Floats:
    """The critic's value of every transition (in chunks)."""
    parts = []
    n = tensors.inputs.shape[0]
    for start in range(0, n, VALUE_BATCH):
        rows = slice(start, start + VALUE_BATCH)
        parts.append(
            model.value(tensors.inputs[rows], tensors.cards[rows], tensors.showdown[rows]).cpu()
        )
    if not parts:
        return np.zeros(0)
    values: Floats = torch.cat(parts).double().numpy()
    return values


def ppo_update(
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    batch: RolloutBatch,
    config: ExploitConfig,
    iteration: int,
) -> dict[str, float]:
    """GAE, then ``epochs`` passes of clipped-PPO minibatch steps; returns loss figures."""
    device = next(model.parameters()).device
    tensors = Tensors.of(batch, device)
    values = critic_values(model, tensors)
    rewards = batch.rewards * config.reward_scale
    advantages = gae(rewards, values, batch.next_index, config.gamma, config.gae_lambda)
    returns = advantages + values
    adv_t = torch.from_numpy(advantages).float().to(device)
    ret_t = torch.from_numpy(returns).float().to(device)
    order_rng = np.random.default_rng([config.seed, iteration, 1])
    sums: dict[str, float] = {
        "policy_loss": 0.0,
        "value_loss": 0.0,
        "entropy": 0.0,
        "approx_kl": 0.0,
        "clip_fraction": 0.0,
        "reference_kl": 0.0,
    }
    steps = 0
    n = batch.size
    stopped_early = False
    model.train()
    for _ in range(config.epochs):
        order = torch.from_numpy(order_rng.permutation(n)).to(device)
        epoch_kl = 0.0
        epoch_steps = 0
        for start in range(0, n, config.minibatch_size):
            rows = order[start : start + config.minibatch_size]
            if rows.numel() < 2:
                continue
            masks = tensors.masks[rows]
            logits = model.logits(tensors.inputs[rows], masks)
            new_log_probs, entropy = policy_terms(logits, masks, tensors.actions[rows])
            log_ratio = new_log_probs - tensors.log_probs[rows]
            ratio = log_ratio.exp()
            advantage = adv_t[rows]
            if config.normalize_advantages:
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
            policy_loss = torch.max(
                -advantage * ratio,
                -advantage * torch.clamp(ratio, 1.0 - config.clip, 1.0 + config.clip),
            ).mean()
            value = model.value(tensors.inputs[rows], tensors.cards[rows], tensors.showdown[rows])
            value_loss = 0.5 * ((value - ret_t[rows]) ** 2).mean()
            entropy_mean = entropy.mean()
            loss = policy_loss - config.entropy_coef * entropy_mean + config.value_coef * value_loss
            kl_to_reference = torch.zeros((), device=device)
            if tensors.reference is not None:
                kl_to_reference = reference_kl(logits, masks, tensors.reference[rows]).mean()
                if config.kl_coef > 0:
                    loss = loss + config.kl_coef * kl_to_reference
            optimizer.zero_grad(set_to_none=True)
            loss.backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                approx_kl = float(((ratio - 1.0) - log_ratio).mean())
                clipped = float(((ratio - 1.0).abs() > config.clip).float().mean())
            sums["policy_loss"] += float(policy_loss.detach())
            sums["value_loss"] += float(value_loss.detach())
            sums["entropy"] += float(entropy_mean.detach())
            sums["approx_kl"] += approx_kl
            sums["clip_fraction"] += clipped
            sums["reference_kl"] += float(kl_to_reference.detach())
            epoch_kl += approx_kl
            epoch_steps += 1
            steps += 1
        if (
            config.target_kl is not None
            and epoch_steps
            and epoch_kl / epoch_steps > config.target_kl
        ):
            stopped_early = True
            break
    model.eval()
    figures = {key: total / max(steps, 1) for key, total in sums.items()}
    spread = float(np.var(returns)) if n > 1 else 0.0
    figures["explained_variance"] = (
        float(1.0 - np.var(returns - values) / spread) if spread > 0 else 0.0
    )
    figures["optimizer_steps"] = float(steps)
    figures["stopped_early"] = float(stopped_early)
    return figures


# -- checkpoints --------------------------------------------------------------------------


def history_csv(history: Sequence[dict[str, float]]) -> str:
    """Per-iteration metrics as CSV text (columns: the union of keys, in first-seen order)."""
    columns: list[str] = []
    for entry in history:
        columns += [key for key in entry if key not in columns]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for entry in history:
        writer.writerow({key: entry.get(key, "") for key in columns})
    return buffer.getvalue()


def read_checkpoint(path: Path, device: str = "cpu") -> dict[str, Any]:
    """An exploiter checkpoint's dict, loaded with ``weights_only=True``."""
    from poolshark.evaluate.exploiter_agent import read_exploiter_checkpoint

    return read_exploiter_checkpoint(path, device)


# -- the training loop ----------------------------------------------------------------------


@dataclass
class ExploitResult:
    """What a finished run reports."""

    iterations: int
    history: list[dict[str, float]]
    checkpoint: str
    metrics_csv: str
    parameters: int
    seconds: float
    opponents: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready dict (the CLI's ``--json`` object, without an evaluation)."""
        return {
            "iterations": self.iterations,
            "history": self.history,
            "checkpoint": self.checkpoint,
            "metrics_csv": self.metrics_csv,
            "parameters": self.parameters,
            "seconds": self.seconds,
            "opponents": self.opponents,
        }


IterationCallback = Callable[[dict[str, float]], None]


def _check_device(device: str) -> None:
    require_device(device, ExploitError)


def make_policy(
    model: ActorCritic,
) -> Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]], Floats]:
    """The learner's batched policy for the rollout: numpy in, probabilities out."""
    device = next(model.parameters()).device

    def policy(inputs: npt.NDArray[np.float32], masks: npt.NDArray[np.bool_]) -> Floats:
        with torch.no_grad():
            probabilities = model.probabilities(
                torch.from_numpy(inputs).to(device), torch.from_numpy(masks).to(device)
            )
        values: Floats = probabilities.cpu().double().numpy()
        return values

    return policy


def train_exploiter(
    config: ExploitConfig,
    out: Path,
    *,
    resume: bool = False,
    opponents: Sequence[Opponent] | None = None,
    reference: Agent | None = None,
    on_iteration: IterationCallback | None = None,
) -> ExploitResult:
    """Run (or resume) the training ``config`` describes, writing into ``out``.

    ``opponents`` and ``reference`` replace the ones the config's specs name (agent
    objects built in code); the config still records the specs.
    """
    _check_device(config.device)
    if config.threads is not None:
        torch.set_num_threads(config.threads)
    device = torch.device(config.device)
    actions = config.action_set()
    seats = opponents or build_opponents(config)
    if reference is None and config.reference is not None:
        reference = build_reference(config.reference, actions)
    rollout = Rollout(
        config.rollout_settings(),
        actions,
        seats,
        reference=reference,
        reference_epsilon=config.reference_epsilon,
    )
    out = Path(out)
    last_path = out / "last.pt"
    csv_path = out / "metrics.csv"

    torch.manual_seed(config.seed)
    model = ActorCritic(config.seats, actions.size, hidden=config.hidden, layers=config.layers)
    model.to(device).eval()
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate, eps=1e-5)
    history: list[dict[str, float]] = []
    done_iterations = 0
    seconds_before = 0.0
    if resume:
        payload = _restore(config, last_path, model, optimizer)
        history = [dict(entry) for entry in payload["history"]]
        done_iterations = int(payload["iteration"])
        seconds_before = float(payload["seconds"])
    elif last_path.exists():
        raise ExploitError(
            f"{str(last_path)!r} exists: pass resume to continue that run, or choose a new out"
        )

    def checkpoint(iteration: int, seconds: float) -> None:
        save_atomic(
            {
                "kind": CHECKPOINT_KIND,
                "format": CHECKPOINT_FORMAT,
                "seats": config.seats,
                "actions": {"pot_fractions": list(actions.pot_fractions), "all_in": actions.all_in},
                "action_names": actions.names,
                "model_hyperparameters": model.hyperparameters(),
                "config": config.model_dump(mode="json"),
                "opponents": [o.name for o in seats],
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "iteration": iteration,
                "history": history,
                "seconds": seconds,
            },
            last_path,
        )
        write_text_atomic(history_csv(history), csv_path)

    log = ScalarLog(out / "tensorboard")
    started = time.perf_counter()
    policy = make_policy(model)
    try:
        for iteration in range(done_iterations, config.iterations):
            rate = config.learning_rate
            if config.anneal_lr:
                rate *= 1.0 - iteration / config.iterations
            for group in optimizer.param_groups:
                group["lr"] = rate
            collect_start = time.perf_counter()
            batch = rollout.collect(policy, seed=config.seed, iteration=iteration)
            update_start = time.perf_counter()
            losses = ppo_update(model, optimizer, batch, config, iteration)
            finished = time.perf_counter()
            entry = {
                "iteration": float(iteration + 1),
                **batch.metrics(actions.names),
                **losses,
                "learning_rate": rate,
                "opponent_decisions": float(sum(batch.opponent_decisions.values())),
                "rollout_seconds": update_start - collect_start,
                "update_seconds": finished - update_start,
                "learner_decisions_per_s": batch.size / max(update_start - collect_start, 1e-9),
                "seconds": seconds_before + finished - started,
            }
            history.append(entry)
            for key, value in entry.items():
                if key != "iteration":
                    log.scalar(f"exploit/{key}", value, iteration + 1)
            log.flush()
            last = iteration + 1 == config.iterations
            if last or (iteration + 1) % config.checkpoint_every == 0:
                checkpoint(iteration + 1, seconds_before + finished - started)
            if on_iteration is not None:
                on_iteration(entry)
    finally:
        log.close()
    if not last_path.exists():  # nothing left to run on a resume of a finished run
        checkpoint(done_iterations, seconds_before)
    return ExploitResult(
        iterations=len(history),
        history=history,
        checkpoint=str(last_path),
        metrics_csv=str(csv_path),
        parameters=count_parameters(model),
        seconds=seconds_before + time.perf_counter() - started,
        opponents=[o.name for o in seats],
    )


def _restore(
    config: ExploitConfig, path: Path, model: ActorCritic, optimizer: torch.optim.Optimizer
) -> dict[str, Any]:
    """Load ``last.pt`` into the model and optimizer after checking the config matches."""
    if not path.is_file():
        raise ExploitError(f"nothing to resume: no checkpoint at {str(path)!r}")
    payload = read_checkpoint(path, config.device)
    restore_run(payload, path, config, _RESUMABLE_CHANGES, model, optimizer, ExploitError)
    return payload
