"""A league run's settings: one validated TOML file in which an unknown key is an error.

Sections mirror the parts of a run: ``[net]`` the policy network
(:class:`~poolshark.league.nets.NetConfig`), ``[game]`` the games played each epoch,
``[rewards]`` the curriculum and shaping, ``[learning]`` the REINFORCE update, ``[pool]`` the
checkpoint pool and how opponents are drawn from it. ``games_per_epoch`` and
``hands_per_game`` take either one number or a milestone schedule ``{epoch = value}``
(TOML: ``hands_per_game = { 0 = 40, 500 = 25 }``): the value of the last milestone reached.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from poolshark.league.nets import NetConfig
from poolshark.training.common import check_device_name


class LeagueError(ValueError):
    """A league run that cannot start, resume or load as asked; the message says why."""


Schedule = int | dict[int, int]
"""One value for every epoch, or milestones ``{first epoch: value}`` starting at epoch 0."""


def scheduled(schedule: Schedule, epoch: int) -> int:
    """The value a milestone schedule gives at ``epoch`` (the last milestone reached)."""
    if isinstance(schedule, int):
        return schedule
    reached = [start for start in schedule if start <= epoch]
    return schedule[max(reached)]


def _check_schedule(name: str, value: Schedule, low: int, high: int) -> Schedule:
    values = [value] if isinstance(value, int) else list(value.values())
    if isinstance(value, dict):
        if 0 not in value:
            raise ValueError(f"the {name} schedule must start at epoch 0, got {sorted(value)}")
        if min(value) < 0:
            raise ValueError(f"{name} milestones are epochs >= 0, got {sorted(value)}")
    if any(not low <= v <= high for v in values):
        raise ValueError(f"{name} must be between {low} and {high}, got {values}")
    return value


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GameSettings(_Section):
    """The games of one epoch: each is ``hands_per_game`` hands at one table whose seats keep
    the same players; the learner sits in one seat chosen at random, checkpoints fill the rest.

    ``cash``: every hand starts from fresh stacks drawn uniformly in ``[stack_lo_bb,
    stack_hi_bb]``. ``tournament``: stacks are drawn once per game and carried from hand to
    hand; a busted player's seat stays empty, and the game ends when one player holds every
    chip, the learner busts, or ``hands_per_game`` hands were played.
    """

    seats: int = Field(6, ge=2, le=10)
    mode: Literal["cash", "tournament"] = "cash"
    small_blind: int = Field(1, ge=1)
    big_blind: int = Field(2, ge=1)
    stack_lo_bb: float = Field(50.0, gt=0.0)
    stack_hi_bb: float = Field(200.0, gt=0.0)
    games_per_epoch: Schedule = 256
    hands_per_game: Schedule = 25
    hand_reward_decay: float = Field(0.0, ge=0.0, le=1.0)
    all_in_ev: bool = True

    @field_validator("games_per_epoch")
    @classmethod
    def _games(cls, value: Schedule) -> Schedule:
        return _check_schedule("games_per_epoch", value, 1, 1 << 20)

    @field_validator("hands_per_game")
    @classmethod
    def _hands(cls, value: Schedule) -> Schedule:
        return _check_schedule("hands_per_game", value, 1, 100_000)

    @model_validator(mode="after")
    def _consistent(self) -> GameSettings:
        if self.small_blind > self.big_blind:
            raise ValueError("the small blind cannot exceed the big blind")
        if self.stack_lo_bb > self.stack_hi_bb:
            raise ValueError(
                f"stack_lo_bb {self.stack_lo_bb} exceeds stack_hi_bb {self.stack_hi_bb}"
            )
        if self.stack_lo_bb * self.big_blind < self.big_blind:
            raise ValueError("stacks must hold at least one big blind")
        return self


class RewardSettings(_Section):
    """What a hand pays the learner, in big blinds, before the REINFORCE update.

    The hand's result (all-in pots by expectation when ``game.all_in_ev``) is multiplied by
    the *showdown multiplier* when the learner reached showdown; the multiplier decays
    linearly from ``showdown_multiplier_start`` to ``showdown_multiplier_end`` over
    ``showdown_multiplier_epochs`` (a curriculum that stresses card strength early).
    Shaping bonuses (``shaping = false`` turns them all off; none encodes card strength):

    * ``elimination_bonus``: per opponent busted in a hand the learner won (tournaments);
    * ``survival_bonus``: the learner holds every chip at the end of a tournament game;
    * ``isolation_bonus``: the learner saw the flop heads-up;
    * ``showdown_bonus``: the learner reached showdown;
    * ``steal_bonus``: the learner won a pot uncontested (everyone else folded).
    """

    shaping: bool = True
    elimination_bonus: float = 5.0
    survival_bonus: float = 20.0
    isolation_bonus: float = 0.25
    showdown_bonus: float = 0.25
    steal_bonus: float = 0.5
    showdown_multiplier_start: float = Field(2.0, ge=0.0)
    showdown_multiplier_end: float = Field(1.0, ge=0.0)
    showdown_multiplier_epochs: int = Field(30_000, ge=1)

    def showdown_multiplier(self, epoch: int) -> float:
        """The multiplier at ``epoch`` (linear decay, then constant)."""
        share = min(1.0, epoch / self.showdown_multiplier_epochs)
        start, end = self.showdown_multiplier_start, self.showdown_multiplier_end
        return start + (end - start) * share


class LearningSettings(_Section):
    """The REINFORCE update (``league.reinforce``): Adam with step decay, clipped gradients,
    a baseline, an entropy bonus and the anti-collapse penalty.

    ``baseline``: ``per-action`` (seed 001: each action's rolling mean return), ``pooled``
    (one rolling mean) or ``value`` (a learned state-value network, ``league.critic``,
    fitted ``value_steps`` Adam steps per epoch at ``value_learning_rate``).
    ``opponent_coef`` weights the auxiliary loss of a network with ``net.opponent_head``:
    predicting how the next opponent answers each decision (``league.reinforce``).
    ``advantage_groups``: normalize the advantages over the whole ``batch``, or within each
    opponent ``lineup`` (each fixed bot its own group, the checkpoints one).
    """

    epochs: int = Field(1000, ge=1)
    learning_rate: float = Field(3e-4, gt=0.0, le=1.0)
    lr_decay_steps: int = Field(100, ge=1)
    lr_decay_gamma: float = Field(0.97, gt=0.0, le=1.0)
    grad_clip_norm: float = Field(1.0, gt=0.0)
    continuous_weight: float = Field(0.01, ge=0.0)
    size_loss_clamp: float = Field(5.0, gt=0.0)
    entropy_coef: float = Field(0.05, ge=0.0)
    diversity_coef: float = Field(0.15, ge=0.0)
    diversity_lo: float = Field(0.08, ge=0.0, le=1.0)
    diversity_hi: float = Field(0.80, ge=0.0, le=1.0)
    action_baseline_window: int = Field(50, ge=1)
    baseline: Literal["per-action", "pooled", "value"] = "per-action"
    value_steps: int = Field(8, ge=1)
    value_learning_rate: float = Field(1e-3, gt=0.0)
    value_hidden: int = Field(128, ge=4)
    opponent_coef: float = Field(0.0, ge=0.0)
    advantage_groups: Literal["batch", "lineup"] = "batch"
    shuffle_opponents: bool = True

    @model_validator(mode="after")
    def _band(self) -> LearningSettings:
        if self.diversity_lo >= self.diversity_hi:
            raise ValueError(
                f"diversity_lo {self.diversity_lo} must be below diversity_hi {self.diversity_hi}"
            )
        return self


class PoolSettings(_Section):
    """The checkpoint pool: the learner joins it every ``snapshot_every`` epochs; at most
    ``max_models`` are kept (the ``keep_latest`` newest always, older ones thinned evenly).

    Opponents are drawn from it by ``sampling``: ``uniform``; ``linear``, weight proportional
    to the snapshot's epoch + 1; ``exponential``, weight ``2 ** ((epoch - newest) /
    half_life)`` (``half_life`` in epochs). Each epoch loads ``opponents_per_epoch`` draws and
    seats each opponent seat with one of them at random, so the seats' marginal law is the
    sampling law while each engine step batches at most that many networks.

    ``fixed_opponents`` (agent specs with weights: bots, styles, ``switch:...``) take a
    ``fixed_share`` of the opponent seats (drawn per game); 1.0 trains against them alone.
    """

    max_models: int = Field(100, ge=1)
    keep_latest: int = Field(20, ge=1)
    sampling: Literal["uniform", "linear", "exponential"] = "linear"
    half_life: float = Field(50.0, gt=0.0)
    snapshot_every: int = Field(10, ge=1)
    opponents_per_epoch: int = Field(4, ge=1, le=64)
    fixed_opponents: dict[str, float] = Field(default_factory=dict)
    fixed_share: float = Field(0.0, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _sizes(self) -> PoolSettings:
        if self.keep_latest > self.max_models:
            raise ValueError(f"keep_latest {self.keep_latest} exceeds max_models {self.max_models}")
        if self.fixed_share > 0 and not self.fixed_opponents:
            raise ValueError("fixed_share > 0 needs fixed_opponents (agent specs with weights)")
        weights = list(self.fixed_opponents.values())
        if any(w < 0 for w in weights) or (weights and sum(weights) <= 0):
            raise ValueError("fixed_opponents weights must be >= 0 with a positive sum")
        return self


class LeagueConfig(_Section):
    """Everything that defines a league run (``poolshark league train --config FILE``).

    ``ray_workers`` > 0 plays each epoch's games on that many Ray actors (``league.remote``;
    ``ray_address`` joins a running cluster); 0 plays them in this process.
    """

    seed: int = Field(0, ge=0)
    device: str = "cpu"
    threads: int | None = Field(None, ge=1, le=1024)
    save_every: int = Field(10, ge=1)
    tensorboard: bool = True
    wandb_project: str | None = None
    ray_workers: int = Field(0, ge=0, le=4096)
    ray_address: str | None = None
    net: NetConfig = Field(default_factory=NetConfig)
    game: GameSettings = Field(default_factory=GameSettings)
    rewards: RewardSettings = Field(default_factory=RewardSettings)
    learning: LearningSettings = Field(default_factory=LearningSettings)
    pool: PoolSettings = Field(default_factory=PoolSettings)

    @field_validator("device")
    @classmethod
    def _known_device(cls, value: str) -> str:
        return check_device_name(value)

    @model_validator(mode="after")
    def _opponent_head(self) -> LeagueConfig:
        if self.learning.opponent_coef > 0 and not self.net.opponent_head:
            raise ValueError("learning.opponent_coef > 0 needs net.opponent_head = true")
        return self

    @classmethod
    def load(cls, path: Path | None = None, **overrides: Any) -> LeagueConfig:
        """The config in TOML file ``path`` (defaults without one), with dotted
        ``overrides`` (``{"learning.epochs": 50}``; None values ignored) applied on top.
        Errors name the file and every bad key."""
        document: dict[str, Any] = {}
        where = "the defaults" if path is None else repr(str(path))
        if path is not None:
            try:
                document = tomllib.loads(Path(path).read_text())
            except OSError as error:
                raise LeagueError(f"cannot read config {where}: {error.strerror}") from None
            except tomllib.TOMLDecodeError as error:
                raise LeagueError(f"config {where} is not valid TOML: {error}") from None
        for dotted, value in overrides.items():
            if value is not None:
                _set_dotted(document, dotted, value)
        try:
            return cls.model_validate(document)
        except ValidationError as error:
            raise LeagueError(f"bad league config in {where}: {describe(error)}") from None

    def resumable(self) -> frozenset[str]:
        """Top-level keys a resumed run may change (they do not alter what was learned)."""
        return frozenset(
            {
                "device",
                "threads",
                "save_every",
                "tensorboard",
                "wandb_project",
                "ray_workers",
                "ray_address",
            }
        )


def _set_dotted(document: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    node = document
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value


def describe(error: ValidationError) -> str:
    """Every problem of a validation error on one line, each naming its dotted key."""
    problems = []
    for item in error.errors():
        key = ".".join(str(part) for part in item["loc"]) or "(top)"
        message = item["msg"]
        if item["type"] == "extra_forbidden":
            message = "unknown key"
        problems.append(f"{key}: {message}")
    return "; ".join(problems)
