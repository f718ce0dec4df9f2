"""League evaluation: checkpoints against bots, the league table, exploitability, memory.

* :func:`versus` plays a league checkpoint (and any agents to compare, on the same deals)
  against each opponent: the checkpoint in one seat, the opponent in the rest. Win rates
  come with 95% intervals and HUD statistics, so a degenerate style shows.
* :func:`league_table` plays every pair of a run's checkpoints and the bots, seats
  alternating, and fits Bradley-Terry ratings on the Elo scale (``evaluate.ratings``):
  each block of 100 hands is a game won by the player ahead.
* :func:`exploitability` trains a fresh PPO best response against each of a few
  checkpoints (every other seat the checkpoint) and reports what it wins: a proxy of
  exploitability that should fall as self-play moves toward robust play.
* :func:`memory_experiment` trains two learners against an opponent whose style switches
  (``switch:maniac,nit``), one with cross-hand memory and one whose game state is cleared
  every hand, and plays both against it. Two separately trained networks also differ by
  their training luck, so it measures the memory *in use* too: the memory learner as
  trained against the same network with its game state wiped every hand, on the same deals
  of several evaluation seeds, with a t-interval over the seeds' paired differences.
  With an opponent head it also scores what the memory knows (:func:`answer_prediction`):
  the head's cross-entropy on the opponent's answers with the memory as trained and wiped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import Agent
from poolshark.evaluate.match import (
    FinishedHands,
    MatchConfig,
    MatchResult,
    default_lineup,
    play_match,
)
from poolshark.evaluate.ratings import PairResult, Rating, bradley_terry, pair_result
from poolshark.experiments.intervals import Interval, critical_value, mean_interval
from poolshark.exploit.agent import load_exploiter
from poolshark.exploit.ppo import ExploitConfig, train_exploiter
from poolshark.league.agent import load_league_agent, net_from_payload, read_league_checkpoint
from poolshark.league.checkpoints import snapshot_path
from poolshark.league.config import LeagueConfig, LeagueError
from poolshark.league.inputs import BET
from poolshark.league.reinforce import answer_losses, unroll
from poolshark.league.rollout import collect
from poolshark.league.train import epoch_plan, train_league

BOTS = ("random", "station", "tag")
"""The baseline bots a league is measured against."""
Progress = Callable[[str], None]


@dataclass(frozen=True)
class Checkpoint:
    """One snapshot of a run, by name and epoch."""

    name: str
    epoch: int
    path: Path


def league_target(target: Path) -> Path:
    """A checkpoint file, or a run folder's ``last.pt``."""
    path = target / "last.pt" if target.is_dir() else target
    if not path.is_file():
        raise LeagueError(f"no league checkpoint at {str(path)!r} (a run folder or a .pt file)")
    return path


def checkpoint_seats(path: Path) -> int:
    """The table size a league checkpoint plays."""
    try:
        payload = read_league_checkpoint(path)
    except ValueError as error:
        raise LeagueError(str(error)) from None
    return int(payload["net_hyperparameters"]["seats"])


def run_checkpoints(run: Path, count: int | None = None) -> list[Checkpoint]:
    """The run's pool snapshots, ``count`` of them evenly spaced (first and last always)."""
    files = sorted((run / "pool").glob("epoch_*.pt"))
    if not files:
        raise LeagueError(f"{str(run)!r} has no pool snapshots (pool/epoch_*.pt)")
    epochs = [int(f.stem.removeprefix("epoch_")) for f in files]
    chosen = list(range(len(files)))
    if count is not None and count < len(files):
        chosen = sorted({round(x) for x in np.linspace(0, len(files) - 1, max(count, 1))})
    return [
        Checkpoint(f"epoch {epochs[i]}", epochs[i], snapshot_path(run / "pool", epochs[i]))
        for i in chosen
    ]


@dataclass(frozen=True)
class Versus:
    """Every player's match against one opponent (same seed, so the same deals)."""

    opponent: str
    matches: dict[str, MatchResult]

    def as_dict(self) -> dict[str, Any]:
        return {
            "opponent": self.opponent,
            "players": {name: m.agents[0].as_dict() for name, m in self.matches.items()},
        }


def versus(
    players: Mapping[str, Agent],
    opponents: Sequence[str],
    *,
    seats: int,
    hands: int,
    seed: int,
    progress: Progress | None = None,
) -> list[Versus]:
    """Each player in one seat against each opponent in the others (see the module
    docstring); the opponents are loaded fresh for each match."""
    results = []
    lineup = default_lineup(2, seats, against=True)
    config = MatchConfig(hands=hands, seats=seats, seed=seed)
    for spec in opponents:
        matches = {}
        for name, agent in players.items():
            if progress is not None:
                progress(f"{name} vs {spec}")
            matches[name] = play_match(
                [agent, load_agent(spec)], lineup, config, names=[name, spec]
            )
        results.append(Versus(spec, matches))
    return results


def pair_match(
    first: Agent, second: Agent, names: tuple[str, str], *, seats: int, hands: int, seed: int
) -> PairResult:
    """Two players, seats alternating; each hand's result of ``first`` (all-in pots by
    expectation, summed over its seats) in big blinds, scored in blocks."""
    per_hand: list[np.ndarray[Any, np.dtype[np.float64]]] = []
    config = MatchConfig(hands=hands, seats=seats, seed=seed)

    def observe(finished: FinishedHands) -> None:
        mine = (finished.owners == 0).astype(np.float64)
        per_hand.append((finished.ev * mine).sum(axis=1) / config.big_blind)

    play_match(
        [first, second], default_lineup(2, seats), config, names=list(names), observer=observe
    )
    results = np.concatenate(per_hand) if per_hand else np.zeros(0)
    return pair_result(names[0], names[1], results)


@dataclass(frozen=True)
class LeagueTable:
    """The league's ratings, the pairings they came from, and each checkpoint's epoch."""

    ratings: list[Rating]
    pairs: list[PairResult]
    epochs: dict[str, int]
    bots: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "ratings": [
                {"name": r.name, "elo": r.elo, "low": r.low, "high": r.high, "games": r.games}
                for r in self.ratings
            ],
            "pairs": [
                {
                    "first": p.first,
                    "second": p.second,
                    "wins": p.wins,
                    "games": p.games,
                    "bb_per_100": p.bb_per_100,
                    "bb_per_100_interval": p.bb_per_100_interval,
                }
                for p in self.pairs
            ],
            "epochs": self.epochs,
            "bots": list(self.bots),
        }


def league_table(
    run: Path,
    *,
    checkpoints: int = 6,
    bots: Sequence[str] = BOTS,
    hands: int = 2000,
    seed: int = 0,
    progress: Progress | None = None,
) -> LeagueTable:
    """Round robin of ``checkpoints`` snapshots of ``run`` and the ``bots`` (see the module
    docstring); ratings anchored on the first bot at Elo 0 (or the first checkpoint)."""
    chosen = run_checkpoints(run, checkpoints)
    seats = checkpoint_seats(chosen[0].path)
    players: dict[str, Agent] = {c.name: load_league_agent(c.path) for c in chosen}
    players.update({bot: load_agent(bot) for bot in bots})
    names = list(players)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if progress is not None:
                progress(f"{a} vs {b}")
            pairs.append(
                pair_match(players[a], players[b], (a, b), seats=seats, hands=hands, seed=seed)
            )
    anchor = bots[0] if bots else chosen[0].name
    ratings = bradley_terry(pairs, anchor=anchor)
    return LeagueTable(ratings, pairs, {c.name: c.epoch for c in chosen}, tuple(bots))


@dataclass(frozen=True)
class ProbePoint:
    """A best response's win rate against one checkpoint (bb/100, 95% half-width)."""

    epoch: int
    bb_per_100: float
    half_width: float
    iterations: int

    def as_dict(self) -> dict[str, float]:
        return {
            "epoch": self.epoch,
            "bb_per_100": self.bb_per_100,
            "half_width": self.half_width,
            "iterations": self.iterations,
        }


def exploitability(
    run: Path,
    out: Path,
    *,
    checkpoints: int = 3,
    iterations: int = 20,
    tables: int = 256,
    eval_hands: int = 4000,
    seed: int = 0,
    progress: Progress | None = None,
) -> list[ProbePoint]:
    """A fresh PPO best response against each of ``checkpoints`` snapshots (every other
    seat the checkpoint), trained ``iterations`` and evaluated on ``eval_hands`` new hands."""
    points = []
    for checkpoint in run_checkpoints(run, checkpoints):
        seats = checkpoint_seats(checkpoint.path)
        if progress is not None:
            progress(f"best response to {checkpoint.name}")
        config = ExploitConfig(
            preset="small-cpu",
            against=[str(checkpoint.path)],
            seats=seats,
            iterations=iterations,
            tables=tables,
            seed=seed,
        )
        result = train_exploiter(config, out / f"epoch_{checkpoint.epoch:07d}")
        best = load_exploiter(Path(result.checkpoint))
        match = play_match(
            [best, load_league_agent(checkpoint.path)],
            default_lineup(2, seats, against=True),
            MatchConfig(hands=eval_hands, seats=seats, seed=seed + 1),
            names=["best response", checkpoint.name],
        )
        estimate = match.agents[0].ev_adjusted or match.agents[0].actual
        points.append(
            ProbePoint(checkpoint.epoch, estimate.bb_per_100, estimate.half_width, iterations)
        )
    return points


@dataclass(frozen=True)
class AnswerPrediction:
    """What a network's memory knows of its opponent: its opponent head's mean cross-entropy
    (nats) on the answers of one collection's decisions, with the game state as trained and
    wiped at every hand, over every answered decision and over the answers to its bets."""

    trained: float
    wiped: float
    trained_bets: float
    wiped_bets: float
    answered: int
    bets: int

    def as_dict(self) -> dict[str, float | int]:
        return {
            "trained": self.trained,
            "wiped": self.wiped,
            "trained_bets": self.trained_bets,
            "wiped_bets": self.wiped_bets,
            "answered": self.answered,
            "bets": self.bets,
        }


def answer_prediction(checkpoint: Path, opponent: str, seed: int) -> AnswerPrediction | None:
    """Play one collection of the run's last epoch against ``opponent`` with the network of
    ``checkpoint`` (a run's ``last.pt``) and score its opponent head on the same decisions
    with its memory as trained and wiped (None for a network without the head)."""
    payload = read_league_checkpoint(checkpoint)
    config = LeagueConfig.model_validate(payload["config"])
    if not config.net.opponent_head:
        return None
    net = net_from_payload(payload)
    last = epoch_plan(config, config.learning.epochs - 1)
    plan = replace(last, fixed_share=1.0, fixed_weights=(1.0,))  # the opponent alone
    experience = collect(plan, net, [], (seed, 0, 0), fixed=[load_agent(opponent)])
    actions = torch.from_numpy(experience.actions)
    scores: dict[bool, tuple[float, float]] = {}
    bets = np.zeros(0, dtype=np.bool_)
    for wiped in (False, True):
        with torch.no_grad():
            replay = unroll(net, experience, torch.device("cpu"), wipe_memory=wiped)
            rows, losses = answer_losses(replay, experience, actions, torch.device("cpu"))
        bets = experience.actions[rows] == BET
        values = losses.numpy()
        scores[wiped] = (
            float(values.mean()) if values.size else float("nan"),
            float(values[bets].mean()) if bets.any() else float("nan"),
        )
    return AnswerPrediction(
        scores[False][0],
        scores[True][0],
        scores[False][1],
        scores[True][1],
        bets.size,
        int(bets.sum()),
    )


@dataclass(frozen=True)
class MemoryResult:
    """Each learner's win rate against the switching opponent (bb/100, 95% half-width)."""

    opponent: str
    epochs: int
    with_memory: tuple[float, float]
    without_memory: tuple[float, float]
    runs: dict[str, str] = field(default_factory=dict)
    in_use: Interval | None = None
    """The memory learner as trained minus wiped every hand, paired over evaluation seeds."""
    prediction: AnswerPrediction | None = None
    """With an opponent head: what the memory learner's memory knows of the opponent."""

    @property
    def gain(self) -> tuple[float, float]:
        """Memory's gain and its 95% half-width (independent matches)."""
        a, b = self.with_memory, self.without_memory
        return a[0] - b[0], float(np.hypot(a[1], b[1]))

    def as_dict(self) -> dict[str, Any]:
        gain, width = self.gain
        return {
            "opponent": self.opponent,
            "epochs": self.epochs,
            "with_memory": {"bb_per_100": self.with_memory[0], "half_width": self.with_memory[1]},
            "without_memory": {
                "bb_per_100": self.without_memory[0],
                "half_width": self.without_memory[1],
            },
            "gain": {"bb_per_100": gain, "half_width": width},
            "in_use": None
            if self.in_use is None
            else {
                "bb_per_100": self.in_use.estimate,
                "low": self.in_use.low,
                "high": self.in_use.high,
                "seeds": self.in_use.seeds,
                "method": self.in_use.method,
            },
            "prediction": None if self.prediction is None else self.prediction.as_dict(),
            "runs": self.runs,
        }


def memory_experiment(
    base: LeagueConfig,
    out: Path,
    *,
    opponent: str = "switch:maniac,nit@0.1",
    eval_hands: int = 20_000,
    paired_seeds: int = 3,
    progress: Progress | None = None,
) -> MemoryResult:
    """Train with and without cross-hand memory against ``opponent`` alone and play each
    learner against it on the same deals; then the memory learner as trained and wiped on
    ``paired_seeds`` evaluation seeds (0: skip; see the module docstring)."""
    rates: dict[bool, tuple[float, float]] = {}
    runs = {}
    seats = base.game.seats

    def win_rate(agent: Agent, name: str, seed: int) -> tuple[float, float]:
        match = play_match(
            [agent, load_agent(opponent)],
            default_lineup(2, seats, against=True),
            MatchConfig(hands=eval_hands, seats=seats, seed=seed),
            names=[name, opponent],
        )
        estimate = match.agents[0].ev_adjusted or match.agents[0].actual
        return estimate.bb_per_100, estimate.half_width

    for memory in (True, False):
        name = "memory" if memory else "no-memory"
        config = base.model_copy(
            update={
                "net": base.net.model_copy(update={"cross_hand_memory": memory}),
                "pool": base.pool.model_copy(
                    update={"fixed_opponents": {opponent: 1.0}, "fixed_share": 1.0}
                ),
            }
        )
        if progress is not None:
            progress(f"training with {name}")
        train_league(config, out / name, resume_latest=True)
        rates[memory] = win_rate(load_league_agent(out / name / "last.pt"), name, base.seed + 1)
        runs[name] = str(out / name)
    in_use = None
    if paired_seeds > 0:
        if progress is not None:
            progress(f"the memory learner as trained and wiped, {paired_seeds} seeds")
        differences, stderrs = [], []
        for k in range(paired_seeds):
            seed = base.seed + 1 + k
            last = out / "memory" / "last.pt"
            trained = rates[True] if k == 0 else win_rate(load_league_agent(last), "memory", seed)
            wiped = win_rate(load_league_agent(last, wipe_memory=True), "wiped", seed)
            differences.append(trained[0] - wiped[0])
            stderrs.append(float(np.hypot(trained[1], wiped[1])) / critical_value(1))
        in_use = mean_interval(differences, stderrs)
    if progress is not None and base.net.opponent_head:
        progress("what the memory knows: its opponent head as trained and wiped")
    prediction = answer_prediction(out / "memory" / "last.pt", opponent, base.seed + 1)
    return MemoryResult(
        opponent, base.learning.epochs, rates[True], rates[False], runs, in_use, prediction
    )
