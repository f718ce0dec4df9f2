"""REINFORCE for the league, read top to bottom: replay with gradients, baselines, the loss.

1. :func:`unroll` replays an epoch's decisions through the network in the order they were
   taken, game by game, carrying the hand and game states from each decision to the next
   *with their gradients* (backpropagation through the whole game), so the memory heads
   learn what to remember (without ``cross_hand_memory`` the game state is cleared at each
   hand, as in play). The end-of-hand steps of a network with ``hand_end_step`` are
   replayed in their places between the decisions, so the gradient reaches the memory
   through what it read at each hand's end too. The replay sees the rollout's inputs and
   states, so its probabilities equal the ones the actions were sampled from.
2. :class:`ActionBaselines` keeps, per action (fold / call / bet), the mean return of that
   action over the last ``action_baseline_window`` epochs (seed 001's per-action
   baselines), or one mean over all actions (``baseline = "pooled"``). A decision's
   advantage is its return minus its baseline, then normalized over the whole batch, or
   (``advantage_groups = "lineup"``) within each opponent line-up: each kind of opponent
   then gets its own mean (a baseline that knows the opponents, still unbiased) and an
   equal scale, so a bot whose games pay little is not drowned by one whose games swing
   hundreds of big blinds (``docs/league.md``). A
   per-action baseline depends on the action taken, so it biases the gradient: on average
   each action's advantage is zero, and what remains compares states, not actions
   (``docs/league.md`` measures both).
3. :func:`reinforce_loss` is ``policy + continuous_weight * size + diversity - entropy
   + opponent_coef * opponent``:

   * policy: ``mean(-advantage * log p(action))``;
   * size (bets only): ``mean(clamp(-advantage * log p(z), -c, c))`` with the size head's
     own density of the recorded logit-space size ``z`` (:mod:`poolshark.league.actions`);
   * diversity (anti-collapse): for each action, its mean probability over the decisions
     where it is legal; ``coef * sum(relu(mean - hi) + relu(lo - mean))``, indexed by the
     action constants so the penalty lands on the action that left the band;
   * entropy: ``entropy_coef`` times the mean entropy of the legal distribution;
   * opponent (a network with ``opponent_head``): the cross-entropy of its predicted answer
     to the action taken against the answer the next opponent gave (``Experience.responses``;
     decisions nobody answered are left out). A supervised signal about the opponents that
     reaches the memory through the replay, however noisy the rewards are.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import torch

from poolshark.league.actions import masked_log_probabilities, size_log_prob
from poolshark.league.config import LearningSettings
from poolshark.league.inputs import ACTION_NAMES, BET, InputArrays, PolicyInputs
from poolshark.league.nets import PokerNet
from poolshark.league.rollout import Experience

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

ACTIONS = len(ACTION_NAMES)


@dataclass(frozen=True)
class Replay:
    """The network's outputs at every decision of an epoch, in the experience's order."""

    action_logits: torch.Tensor  # (N, 3)
    bet_mean: torch.Tensor  # (N, 1)
    bet_std: torch.Tensor  # (N, 1)
    response_logits: torch.Tensor | None = None  # (N, 3, 3) with an opponent head


def game_steps(games: Int64s) -> tuple[Int64s, Int64s]:
    """(step index of each decision within its game, (T, G) decision index per step and
    game, -1 where a game has no decision at that step); games are numbered 0..G-1."""
    count = int(games.max()) + 1 if games.size else 0
    order = np.argsort(games, kind="stable")
    sorted_games = games[order]
    starts = np.searchsorted(sorted_games, np.arange(count))
    steps = np.empty(games.size, dtype=np.int64)
    steps[order] = np.arange(games.size) - starts[sorted_games]
    length = int(steps.max()) + 1 if games.size else 0
    table = np.full((length, count), -1, dtype=np.int64)
    table[steps, games] = np.arange(games.size)
    return steps, table


def unroll(
    net: PokerNet, experience: Experience, device: torch.device, *, wipe_memory: bool = False
) -> Replay:
    """Replay every game's decisions in order with gradients through the recurrent states
    (the hand state cleared where a hand starts, the game state kept for the whole game,
    and each end-of-hand step taken in its place between the decisions). ``wipe_memory``
    clears the game state at every hand, as a network without cross-hand memory plays."""
    ends = experience.hand_ends
    n = experience.size
    games = np.concatenate([experience.game, ends.game])
    in_time = np.argsort(np.concatenate([experience.sequence, ends.sequence]), kind="stable")
    _, steps = game_steps(games[in_time])
    table = np.where(steps >= 0, in_time[np.maximum(steps, 0)], -1)
    arrays = experience.inputs
    if ends.size:
        arrays = InputArrays.concatenate([experience.inputs, ends.inputs])
    inputs = PolicyInputs.of(arrays, device)
    new_hand = torch.from_numpy(np.concatenate([experience.new_hand, ends.new_hand])).to(device)
    hand, game = net.initial_state(table.shape[1], device)
    logits = torch.zeros(n, ACTIONS, device=device)
    means = torch.zeros(n, 1, device=device)
    stds = torch.ones(n, 1, device=device)
    rows_all, logits_all, means_all, stds_all, answers_all = [], [], [], [], []
    for step in range(table.shape[0]):
        cols_np = np.flatnonzero(table[step] >= 0)
        cols = torch.from_numpy(cols_np).to(device)
        rows_np = table[step, cols_np]
        rows = torch.from_numpy(rows_np).to(device)
        keep = (~new_hand[rows]).to(hand.dtype).unsqueeze(1)
        carried = game[cols] * keep if wipe_memory or not net.cross_hand_memory else game[cols]
        output = net(inputs.index(rows), hand[cols] * keep, carried)
        hand = hand.index_copy(0, cols, output.hand_state)
        game = game.index_copy(0, cols, output.game_state)
        decided = torch.from_numpy(np.flatnonzero(rows_np < n)).to(device)
        rows_all.append(rows[decided])
        logits_all.append(output.action_logits[decided])
        means_all.append(output.bet_mean[decided])
        stds_all.append(output.bet_std[decided])
        if output.response_logits is not None:
            answers_all.append(output.response_logits[decided])
    answers = None
    if rows_all:
        order = torch.cat(rows_all)
        logits = logits.index_copy(0, order, torch.cat(logits_all))
        means = means.index_copy(0, order, torch.cat(means_all))
        stds = stds.index_copy(0, order, torch.cat(stds_all))
        if answers_all:
            answers = torch.zeros(n, 3, 3, device=device)
            answers = answers.index_copy(0, order, torch.cat(answers_all))
    return Replay(logits, means, stds, answers)


class ActionBaselines:
    """Per-action rolling mean return over the last ``window`` epochs (``pooled``: one
    mean over every action, the same for all)."""

    def __init__(self, window: int, *, pooled: bool = False) -> None:
        self.epochs: deque[tuple[Floats, Floats]] = deque(maxlen=window)
        self.pooled = pooled

    def values(self, returns: Floats, actions: Int64s) -> Floats:
        """(3,) the baselines for this epoch: the window's means, or this epoch's mean
        return of the action where the window has none (the first epoch)."""
        sums = np.zeros(ACTIONS)
        counts = np.zeros(ACTIONS)
        for s, c in self.epochs:
            sums += s
            counts += c
        now_sums, now_counts = per_action(returns, actions)
        if self.pooled:
            sums, counts = np.full(ACTIONS, sums.sum()), np.full(ACTIONS, counts.sum())
            now_sums, now_counts = (
                np.full(ACTIONS, now_sums.sum()),
                np.full(ACTIONS, now_counts.sum()),
            )
        fallback = np.divide(now_sums, now_counts, out=np.zeros(ACTIONS), where=now_counts > 0)
        values: Floats = np.where(counts > 0, sums / np.maximum(counts, 1), fallback)
        return values

    def update(self, returns: Floats, actions: Int64s) -> None:
        """Add an epoch's returns to the window."""
        self.epochs.append(per_action(returns, actions))

    def state(self) -> list[list[float]]:
        """The window as plain lists (for a checkpoint): sums then counts per epoch."""
        return [[*s.tolist(), *c.tolist()] for s, c in self.epochs]

    def restore(self, state: list[list[float]]) -> None:
        """Load :meth:`state`."""
        self.epochs.clear()
        for row in state:
            self.epochs.append((np.asarray(row[:ACTIONS]), np.asarray(row[ACTIONS:])))


def per_action(returns: Floats, actions: Int64s) -> tuple[Floats, Floats]:
    """(sums, counts) of returns by action."""
    sums = np.bincount(actions, weights=returns, minlength=ACTIONS).astype(np.float64)
    counts = np.bincount(actions, minlength=ACTIONS).astype(np.float64)
    return sums, counts


def advantages(
    returns: Floats, actions: Int64s, baselines: Floats, groups: Int64s | None = None
) -> Floats:
    """Return minus the action's baseline, normalized to mean 0 and std 1 over the batch, or
    within each group of ``groups`` (one label per decision) when given."""
    raw = returns - baselines[actions]
    if groups is None:
        return _standardized(raw)
    centred = np.zeros_like(raw)
    labels, which = np.unique(groups, return_inverse=True)
    for label in range(labels.size):
        members = which == label
        centred[members] = _standardized(raw[members])
    return centred


def _standardized(values: Floats) -> Floats:
    """Mean 0 and std 1 (zeros for fewer than two values)."""
    if values.size < 2:
        return values * 0.0
    scaled: Floats = (values - values.mean()) / (values.std() + 1e-8)
    return scaled


def diversity_penalty(
    probabilities: torch.Tensor, mask: torch.Tensor, low: float, high: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """(penalty per action (3,), mean probability per action (3,)): each action's mean
    probability over the decisions where it is legal, and how far it left ``[low, high]``."""
    legal = mask.to(probabilities.dtype)
    counts = legal.sum(dim=0)
    means = (probabilities * legal).sum(dim=0) / counts.clamp(min=1.0)
    outside = torch.relu(means - high) + torch.relu(low - means)
    penalty = torch.where(counts > 0, outside, torch.zeros_like(outside))
    return penalty, means


@dataclass(frozen=True)
class LossParts:
    """The loss and its parts (floats, for the history)."""

    loss: torch.Tensor
    policy: float
    size: float
    diversity: float
    entropy: float
    mean_probabilities: tuple[float, float, float]
    opponent: float = 0.0


def reinforce_loss(
    replay: Replay,
    experience: Experience,
    advantage: Floats,
    settings: LearningSettings,
    device: torch.device,
) -> LossParts:
    """The league's REINFORCE loss (see the module docstring)."""
    mask = torch.from_numpy(experience.inputs.mask).to(device)
    actions = torch.from_numpy(experience.actions).to(device)
    adv = torch.from_numpy(advantage).to(device=device, dtype=torch.float32)
    log_p = masked_log_probabilities(replay.action_logits, mask)
    rows = torch.arange(experience.size, device=device)
    chosen = log_p[rows, actions]
    probabilities = log_p.exp()
    entropy = -(probabilities * log_p).sum(dim=1).mean()
    policy = -(adv * chosen).mean()
    betting = actions == BET
    size = torch.zeros((), device=device)
    if bool(betting.any()):
        z = torch.from_numpy(experience.sizes).to(device)[betting]
        size_lp = size_log_prob(replay.bet_mean[betting], replay.bet_std[betting], z)
        clamp = settings.size_loss_clamp
        size = torch.clamp(-adv[betting] * size_lp, -clamp, clamp).mean()
    penalty, means = diversity_penalty(
        probabilities, mask, settings.diversity_lo, settings.diversity_hi
    )
    diversity = settings.diversity_coef * penalty.sum()
    loss = policy + settings.continuous_weight * size + diversity - settings.entropy_coef * entropy
    opponent = opponent_loss(replay, experience, actions, device)
    loss = loss + settings.opponent_coef * opponent
    mean_p = means.detach().cpu().tolist()
    return LossParts(
        loss,
        float(policy.detach()),
        float(size.detach()),
        float(diversity.detach()),
        float(entropy.detach()),
        (mean_p[0], mean_p[1], mean_p[2]),
        float(opponent.detach()),
    )


def opponent_loss(
    replay: Replay, experience: Experience, actions: torch.Tensor, device: torch.device
) -> torch.Tensor:
    """Mean cross-entropy of the predicted answer to each action taken against the answer
    given (zero without an opponent head or an answered decision)."""
    _, losses = answer_losses(replay, experience, actions, device)
    return losses.mean() if losses.numel() else torch.zeros((), device=device)


def answer_losses(
    replay: Replay, experience: Experience, actions: torch.Tensor, device: torch.device
) -> tuple[Int64s, torch.Tensor]:
    """(the answered decisions, the cross-entropy of each one's predicted answer to the
    action taken); none without an opponent head."""
    answered_np = np.flatnonzero(experience.responses >= 0)
    if replay.response_logits is None or answered_np.size == 0:
        return answered_np[:0], torch.zeros(0, device=device)
    answered = torch.from_numpy(answered_np).to(device)
    logits = replay.response_logits[answered, actions[answered]]
    targets = torch.from_numpy(experience.responses[answered_np]).to(device)
    return answered_np, torch.nn.functional.cross_entropy(logits, targets, reduction="none")
