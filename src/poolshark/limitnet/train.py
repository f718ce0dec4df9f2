"""REINFORCE for the network player, no critic: self-play (every seat the learner) and a
best response (one learning seat against frozen others), both over the play loop.

Each update deals one hand at each of ``tables`` tables and plays them to the end. Every
decision the learner took is pushed towards (or away from) its action in proportion to
what that seat won in the deal, in small bets: the gradient is
``sum_decisions grad log P(a) * (R - b) / hands``. Self-play needs no baseline (the seats'
results sum to zero); the best response uses reinforcement comparison, ``b`` a running
mean of its results (a number, not a critic). Adam takes the step, the gradient's norm
clipped at 10.

A best response can aim at a risk-adjusted target instead of the mean result (seed 003,
section 6.5.1): the Sharpe ratio ``mu / sigma`` or the gambler's-ruin ratio
``mu / sigma^2``. Each learner reward ``x`` is then replaced by ``x - c x^2``
(:func:`shaped_rewards`), the change in the ratio from a small step of the first two
moments about zero towards ``x`` (up to a positive factor), with the moments running
averages of the learner's results; the baseline tracks the mean shaped reward. A run can
also start from a fitted network player (``init``) instead of fresh weights, and a best
response can be held near its start (the safe exploiter): ``kl_weight`` adds
``kl_weight * KL(learner || start)`` at the learner's decisions to the loss, per hand as
the policy-gradient term, so it leaves the fitted model's play only where the edge pays.

Runs are seeded (a fresh engine batch and agent streams per update, drawn from the seed
and the update number) and resumable: ``last.pt`` holds the weights, the optimizer, the
baseline, the running moments and the update count, so a resumed run gives the weights a
straight run does.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from pydantic import BaseModel, ConfigDict, Field

from poolshark.agents.protocol import Agent, Decisions
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import Betting, GameConfig
from poolshark.limitnet.action_function import ActionFunction, OpponentInputs
from poolshark.limitnet.agent import (
    DecisionInputs,
    LimitNetAgent,
    Tensors6,
    checkpoint_payload,
    load_model,
    model_from_payload,
    observer_payload,
)
from poolshark.limitnet.observer import Observer
from poolshark.play.loop import PlayLoop, match_game
from poolshark.training.common import read_checkpoint_of, save_atomic

Int64s = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]

TRAIN_FORMAT = "poolshark-limitnet-run-v1"


class TrainError(ValueError):
    """A training run that cannot start or resume as asked."""


class Mode(StrEnum):
    """Who learns: every seat (self-play) or one seat against frozen others."""

    SELF_PLAY = "self-play"
    BEST_RESPONSE = "best-response"


class Objective(StrEnum):
    """What a best response maximises (seed 003, section 6.5.1): its mean result, the
    Sharpe ratio ``mu / sigma``, or the gambler's-ruin ratio ``mu / sigma^2``."""

    MEAN = "mean"
    SHARPE = "sharpe"
    GAMBLERS_RUIN = "gamblers-ruin"


def shaped_rewards(results: Floats, m1: float, m2: float, objective: Objective) -> Floats:
    """The rewards ``x - c x^2`` whose mean over a sample is, up to a positive factor and a
    constant, the change in ``objective`` when the moments ``m1 = E[x]``, ``m2 = E[x^2]``
    take a small step towards that sample's (so REINFORCE on them climbs the ratio).

    Sharpe ``S = m1 / sqrt(m2 - m1^2)``: ``dS/dm1 = m2 / sigma^3``,
    ``dS/dm2 = -m1 / (2 sigma^3)``, so ``c = m1 / (2 m2)``. Gambler's ruin
    ``G = m1 / (m2 - m1^2)``: ``dG/dm1 = (m2 + m1^2) / sigma^4``, ``dG/dm2 = -m1 / sigma^4``,
    so ``c = m1 / (m2 + m1^2)``. The mean leaves ``x`` as it is. With ``m1 > 0`` the
    quadratic term penalises risk, with ``m1 < 0`` it rewards it, at ``m1 = 0`` it is nil;
    with ``m2 = 0`` (every result nil so far) ``c`` is taken as 0."""
    x = np.asarray(results, dtype=np.float64)
    if objective is Objective.MEAN:
        return x.copy()
    denominator = 2 * m2 if objective is Objective.SHARPE else m2 + m1 * m1
    c = m1 / denominator if denominator > 0 else 0.0
    return x - c * x * x


class TrainConfig(BaseModel):
    """A run's settings (validated). Chips: blinds 1/2, bets 2/2/4/4, four bets a round
    (uncapped heads-up unless ``cap_heads_up``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Mode = Mode.SELF_PLAY
    seats: int = Field(6, ge=2, le=10)
    updates: int = Field(200, ge=1)
    tables: int = Field(64, ge=1, description="Hands dealt per update.")
    learning_rate: float = Field(0.002, gt=0)
    baseline_decay: float = Field(0.99, ge=0, lt=1)
    outcome_states: int = Field(8, ge=1)
    depth_bb: float = Field(100.0, gt=0)
    cap_heads_up: bool = False
    seed: int = 0
    checkpoint_every: int = Field(25, ge=1)
    objective: Objective = Field(
        Objective.MEAN, description="A best response's target; self-play takes only the mean."
    )
    init: Path | None = Field(
        None, description="A network player's checkpoint (limitnet.pt) to start from."
    )
    kl_weight: float = Field(
        0.0,
        ge=0,
        description="A best response's pull towards its starting player: the loss adds "
        "this times KL(learner || start) at the learner's decisions (the safe exploiter).",
    )
    extra_layer: int = Field(
        0,
        ge=0,
        description="Tile nodes of the extra layer over each opponent's belief and position "
        "(section 6.4); added to a started player with its output weights at zero.",
    )


def limit_game(seats: int, cap_heads_up: bool = False) -> GameConfig:
    """The thesis's game: blinds 1/2, bets 2/2/4/4, a cap of four bets a round (the play
    loop's fixed-limit game, no rake)."""
    return match_game(
        seats,
        1,
        2,
        0.0,
        None,
        exact_ev=False,
        betting=Betting.FIXED_LIMIT,
        cap_heads_up=cap_heads_up,
    )


@dataclass
class UpdateStats:
    """One update's figures: the learner's mean result (small bets per hand) and how it
    acted (shares of its decisions; ``raise_share`` of those where raising was legal);
    ``kl`` is the learner's mean KL to the starting player per decision."""

    update: int
    hands: int
    decisions: int
    reward: float
    fold_share: float
    raise_share: float
    loss: float
    seconds: float
    kl: float = 0.0

    def as_dict(self) -> dict[str, float | int]:
        """Plain values for JSON."""
        return dict(vars(self))


@dataclass
class _Trajectories:
    """The learner's decisions in one update."""

    inputs: list[DecisionInputs] = field(default_factory=list)
    actions: list[Int64s] = field(default_factory=list)
    tables: list[Int64s] = field(default_factory=list)
    seats: list[Int64s] = field(default_factory=list)

    def record(self, decisions: Decisions, inputs: DecisionInputs, actions: Int64s) -> None:
        self.inputs.append(inputs)
        self.actions.append(actions)
        self.tables.append(decisions.tables.copy())
        self.seats.append(decisions.seats.copy())


class _DealFace:
    """Deals one hand per table and books the chips won; the learner sits at ``learner``
    seats (every seat in self-play, one rotating seat in a best response)."""

    def __init__(
        self, batch: BatchedTables, depth: int, buttons: Int64s, learner_seat: Int64s | None
    ) -> None:
        self.batch, self.depth = batch, depth
        self.buttons, self.learner_seat = buttons, learner_seat
        self.net = np.zeros((batch.size, batch.config.seats), dtype=np.int64)

    def seat(self, tables: Int64s, played: Int64s) -> Int64s:
        seats = self.batch.config.seats
        self.batch.reset(tables, stacks=self.depth, buttons=self.buttons[tables])
        if self.learner_seat is None:
            return np.zeros((tables.size, seats), dtype=np.int64)
        owners = np.ones((tables.size, seats), dtype=np.int64)
        owners[np.arange(tables.size), self.learner_seat[tables]] = 0
        return owners

    def finished(self, tables: Int64s) -> None:
        self.net[tables] = self.batch.net[tables]

    def stepped(self, tables: Int64s, seats: Int64s, owners: Int64s) -> None:
        """Nothing to record per step."""


def with_extra_layer(model: ActionFunction, tiles: int, seed: int) -> ActionFunction:
    """``model`` with an extra layer of ``tiles`` tile nodes added (section 6.4), its output
    weights at zero: it plays as ``model`` until it learns."""
    grown = ActionFunction(
        model.outcome_states,
        model.card_types,
        seed=seed,
        player_types=model.player_types,
        extra_layer=tiles,
    )
    missing, unexpected = grown.load_state_dict(model.state_dict(), strict=False)
    if unexpected or set(missing) != {"tile_weights", "tile_gates"}:
        raise TrainError(f"cannot add an extra layer: missing {missing}, unexpected {unexpected}")
    return grown


class Trainer:
    """A REINFORCE run (see the module docstring); ``opponent`` plays the frozen seats of a
    best response (default: a frozen copy of the starting network, ``config.init``'s
    weights when given); with ``observer`` the learner reads its opponents' public beliefs
    under it (a best response to a fitted model: the model's own observer, over a frozen
    copy of the model)."""

    def __init__(
        self, config: TrainConfig, opponent: Agent | None = None, observer: Observer | None = None
    ) -> None:
        if config.mode is Mode.SELF_PLAY and config.objective is not Objective.MEAN:
            raise TrainError(
                f"the {config.objective} objective needs a best response: self-play's "
                "zero-sum results take only the mean"
            )
        self.config = config
        torch.manual_seed(config.seed)
        self.model = self._starting_model()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=config.learning_rate)
        self.update = 0
        self.baseline = 0.0
        self.moments: tuple[float, float] | None = None  # running (E[x], E[x^2]) of results
        self.history: list[UpdateStats] = []
        self.reference = copy.deepcopy(self.model).requires_grad_(False)
        if config.mode is Mode.SELF_PLAY and config.kl_weight > 0:
            raise TrainError("the KL pull to the starting player needs a best response")
        if config.mode is Mode.BEST_RESPONSE and opponent is None:
            opponent = LimitNetAgent(copy.deepcopy(self.model))
        self.opponent = opponent
        self.observer = observer
        self.game = limit_game(config.seats, config.cap_heads_up)

    def _starting_model(self) -> ActionFunction:
        """Fresh weights from the seed, or ``config.init``'s (whose sizes must match)."""
        config = self.config
        if config.init is None:
            return ActionFunction(
                config.outcome_states, seed=config.seed, extra_layer=config.extra_layer
            )
        try:
            model = load_model(config.init)
        except (ValueError, RuntimeError) as error:  # missing, another kind, bad weights
            raise TrainError(f"cannot start from {config.init}: {error}") from error
        if model.outcome_states != config.outcome_states:
            raise TrainError(
                f"{config.init} has {model.outcome_states} outcome states, the run "
                f"{config.outcome_states}"
            )
        if model.extra_layer == config.extra_layer:
            return model
        if model.extra_layer:
            raise TrainError(
                f"{config.init} has an extra layer of {model.extra_layer} tiles, the run "
                f"{config.extra_layer}"
            )
        return with_extra_layer(model, config.extra_layer, config.seed)

    # -- one update ---------------------------------------------------------------------------

    def play(self, update: int) -> tuple[_Trajectories, Floats, Int64s]:
        """Play update ``update``'s deals: the learner's decisions, the chips won per table
        and seat (in small bets), and each table's learning seat (-1: every seat)."""
        config = self.config
        batch = BatchedTables(self.game, config.tables, seed=_mix(config.seed, update))
        trajectories = _Trajectories()
        learner = LimitNetAgent(self.model, recorder=trajectories, observer=self.observer)
        agents: list[Agent] = [learner]
        index = np.arange(config.tables)
        buttons = (index // config.seats + update) % config.seats
        learner_seat = None
        if config.mode is Mode.BEST_RESPONSE:
            if self.opponent is None:
                raise TrainError("a best response needs an opponent")
            agents.append(self.opponent)
            learner_seat = (buttons + index) % config.seats  # every position in turn
        depth = round(config.depth_bb * self.game.big_blind)
        face = _DealFace(batch, depth, buttons, learner_seat)
        rngs = [np.random.default_rng([config.seed, update, a]) for a in range(len(agents))]
        names = [f"agent{a}" for a in range(len(agents))]
        loop = PlayLoop(batch, agents, names, rngs, face, hands_per_table=1)
        loop.run()
        seats = np.full(config.tables, -1) if learner_seat is None else learner_seat
        return trajectories, face.net / self.game.bet_unit(0), seats

    def step(self) -> UpdateStats:
        """Play one update's deals and take one gradient step."""
        start = time.perf_counter()
        self.model.train()
        trajectories, won, learner_seat = self.play(self.update)
        if not trajectories.actions:  # every hand ended before the learner acted
            return self._book(
                UpdateStats(self.update, self.config.tables, 0, 0.0, 0.0, 0.0, 0.0, 0.0)
            )
        inputs = DecisionInputs.concatenate(trajectories.inputs)
        actions = torch.from_numpy(np.concatenate(trajectories.actions))
        tables = np.concatenate(trajectories.tables)
        seats = np.concatenate(trajectories.seats)
        rewards = won[tables, seats]
        if self.config.mode is Mode.BEST_RESPONSE:
            results = won[np.arange(won.shape[0]), learner_seat]
            mean_result = float(results.mean())
            advantage = self._shape(rewards, results)
        else:
            mean_result = float(won.mean())
            advantage = rewards
        tensors = inputs.tensors(torch.device("cpu"))
        opponents = inputs.opponent_tensors(torch.device("cpu"))
        log_p = self.model.log_probabilities(*tensors, opponents=opponents)
        chosen = log_p[torch.arange(actions.shape[0]), actions]
        weights = torch.from_numpy(advantage).float()
        loss = -(chosen * weights).sum() / self.config.tables
        kl = self._kl_to_start(log_p, tensors, opponents)
        if self.config.kl_weight > 0:
            loss = loss + self.config.kl_weight * kl.sum() / self.config.tables
        self.optimizer.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 10.0)
        self.optimizer.step()
        legal_raise = inputs.legal[:, 2]
        action_array = actions.numpy()
        stats = UpdateStats(
            update=self.update,
            hands=self.config.tables,
            decisions=int(action_array.size),
            reward=mean_result,
            fold_share=float((action_array == 0).mean()),
            raise_share=float((action_array[legal_raise] == 2).mean()) if legal_raise.any() else 0,
            loss=float(loss.detach()),
            seconds=time.perf_counter() - start,
            kl=float(kl.detach().mean()),
        )
        return self._book(stats)

    def _kl_to_start(
        self,
        log_p: torch.Tensor,
        tensors: Tensors6,
        opponents: OpponentInputs | None,
    ) -> torch.Tensor:
        """(D,) KL(learner || starting player) over the legal actions of each decision
        (illegal actions' -inf log-probabilities are masked before they meet, so neither
        the value nor the gradient sees a NaN)."""
        with torch.no_grad():
            reference = self.reference.log_probabilities(*tensors, opponents=opponents)
        legal = tensors[-1]
        zero = torch.zeros_like(log_p)
        gap = torch.where(legal, log_p, zero) - torch.where(legal, reference, zero)
        return (log_p.exp() * gap).sum(dim=1)

    def _shape(self, rewards: Floats, results: Floats) -> Floats:
        """A best response's advantages: the decisions' rewards shaped by the objective at
        the running moments, less the baseline; then the baseline (the mean shaped result)
        and the moments take this update's hands, with the same decay. The moments start
        at the first update's own."""
        decay = self.config.baseline_decay
        batch = (float(results.mean()), float((results * results).mean()))
        if self.moments is None:
            self.moments = batch
        m1, m2 = self.moments
        objective = self.config.objective
        advantage = shaped_rewards(rewards, m1, m2, objective) - self.baseline
        shaped_mean = float(shaped_rewards(results, m1, m2, objective).mean())
        self.baseline = decay * self.baseline + (1 - decay) * shaped_mean
        self.moments = (
            decay * m1 + (1 - decay) * batch[0],
            decay * m2 + (1 - decay) * batch[1],
        )
        return advantage

    def _book(self, stats: UpdateStats) -> UpdateStats:
        self.update += 1
        self.history.append(stats)
        return stats

    def run(
        self, out: Path | None = None, progress: Callable[[UpdateStats], None] | None = None
    ) -> list[UpdateStats]:
        """Train to ``config.updates``, writing ``out/last.pt`` every ``checkpoint_every``
        updates and at the end (and ``out/limitnet.pt``, the player alone)."""
        while self.update < self.config.updates:
            stats = self.step()
            if progress is not None:
                progress(stats)
            if out is not None and (
                self.update % self.config.checkpoint_every == 0
                or self.update == self.config.updates
            ):
                self.save(out)
        return self.history

    # -- checkpoints ---------------------------------------------------------------------------

    def save(self, out: Path) -> None:
        """``out/last.pt`` (resumable) and ``out/limitnet.pt`` (the player), atomically."""
        save_atomic(
            {
                "kind": "limitnet-run",
                "format": TRAIN_FORMAT,
                "config": self.config.model_dump(mode="json"),
                "player": checkpoint_payload(self.model),
                "optimizer": self.optimizer.state_dict(),
                "update": self.update,
                "baseline": self.baseline,
                "moments": None if self.moments is None else list(self.moments),
                "history": [s.as_dict() for s in self.history],
            },
            out / "last.pt",
        )
        extra: dict[str, Any] = {"update": self.update}
        if self.observer is not None:
            extra |= observer_payload(self.observer, self.model)
        save_atomic(checkpoint_payload(self.model, extra), out / "limitnet.pt")

    def resume(self, out: Path) -> None:
        """Continue from ``out/last.pt``; the run's config must match except ``updates``."""
        payload = read_checkpoint_of(
            out / "last.pt", "limitnet-run", TRAIN_FORMAT, "cpu", TrainError
        )
        saved = TrainConfig.model_validate(payload["config"]).model_dump(mode="json")
        now = self.config.model_dump(mode="json")
        changed = sorted(k for k in now if k != "updates" and saved.get(k) != now[k])
        if changed:
            raise TrainError(f"cannot resume {out}: the config differs in {', '.join(changed)}")
        self.model.load_state_dict(model_from_payload(payload["player"]).state_dict())
        self.optimizer.load_state_dict(payload["optimizer"])
        self.update = int(payload["update"])
        self.baseline = float(payload["baseline"])
        moments = payload.get("moments")
        self.moments = None if moments is None else (float(moments[0]), float(moments[1]))
        self.history = [UpdateStats(**s) for s in payload["history"]]


def _mix(seed: int, update: int) -> int:
    """A batch seed per (run seed, update)."""
    return int(np.random.SeedSequence([seed, update]).generate_state(1)[0])


def summary(history: list[UpdateStats], window: int = 10) -> dict[str, Any]:
    """First and last ``window`` updates' mean figures (for ``--json`` and the docs)."""

    def mean(rows: list[UpdateStats], key: str) -> float:
        return float(np.mean([getattr(r, key) for r in rows])) if rows else 0.0

    first, last = history[:window], history[-window:]
    keys = ("reward", "fold_share", "raise_share")
    return {
        "updates": len(history),
        "first": {k: mean(first, k) for k in keys},
        "last": {k: mean(last, k) for k in keys},
        "seconds": float(sum(r.seconds for r in history)),
    }
