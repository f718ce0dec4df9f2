"""Where a population model is wrong on the path an exploiter takes (simulated pools only).

The over-exploitation gap is the model's error weighted by where the exploiter goes: the
spots it seeks out are the ones the model gets wrong in its favour. On a simulated pool the
truth is known at every decision, so this measures that error directly: a match of the
exploiter (one seat) against the pool's true styles, and at every decision of a pool
player the style's own action probabilities beside the model's, both for the real cards.

Per spot (street; preflop by the action faced and the player's position; postflop by the
size of the bet faced) it reports the mean fold, call and raise probability of the truth and
of the model, the mean KL(truth || model) over fold / call / raise, and postflop the mean
made-hand strength of the hands that continue (each decision weighted by its continue
probability), under the truth and under the model: a model whose continuing hands are
weaker pays off value bets the real players would not. ``agent=None`` measures the pool's
own path (where the model was fitted), the reference for the exploiter's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from poolshark.agents.bots import StyleAgent, hand_strengths
from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import Agent, Decisions, Moves
from poolshark.evaluate.aivat import style_policy
from poolshark.evaluate.match import MatchConfig, default_lineup, play_match
from poolshark.pool.context import Facing, Feature, Position
from poolshark.population.actions import CALL_CLASS, FOLD_CLASS
from poolshark.population.agent import PopulationAgent, load_population_model

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

SIZE_EDGES = (0.4, 0.7, 1.1)
"""Postflop size buckets of the bet faced (over the pot before it): below 0.4, 0.4-0.7,
0.7-1.1, above."""
SIZE_NAMES = ("small", "medium", "large", "overbet")
STREET_NAMES = ("preflop", "flop", "turn", "river")
MIN_DECISIONS = 30
"""Spots with fewer decisions are left out of the table."""
EPSILON = 1e-9


class ModelErrorError(ValueError):
    """The measurement cannot be made (a field whose true policy is unknown)."""


@dataclass
class ErrorRecorder:
    """A pool player's seat that plays the true styles and records, at each decision it
    faces a bet, the truth's and the model's fold / call / raise probabilities."""

    pool: StyleAgent
    model: PopulationAgent
    parts: list[Floats] = field(default_factory=list)

    def act(self, decisions: Decisions) -> Moves:
        """Record the decisions that face a bet, then play them as the styles do."""
        facing = decisions.contexts[:, Feature.TO_CALL] > 0
        if facing.any():
            self.parts.append(self._record(decisions, facing))
        return self.pool.act(decisions)

    def _record(self, decisions: Decisions, facing: npt.NDArray[np.bool_]) -> Floats:
        truth = style_policy(decisions, self.pool).probabilities
        model = self.model.class_probabilities(decisions)
        contexts = decisions.contexts
        street = contexts[:, Feature.STREET]
        made = np.zeros(decisions.size)
        postflop = street > 0
        if postflop.any():
            made[postflop], _ = hand_strengths(
                np.asarray(decisions.hole_cards, dtype=np.int64)[postflop],
                np.asarray(decisions.board)[postflop],
                street[postflop],
            )
        columns = (
            truth[:, 0],
            truth[:, 1],
            model[:, FOLD_CLASS],
            model[:, CALL_CLASS],
            street,
            contexts[:, Feature.PREFLOP_FACING],
            contexts[:, Feature.POSITION],
            contexts[:, Feature.FACING_FRACTION],
            made,
        )
        return np.column_stack(columns)[facing]

    def records(self) -> Floats:
        """(N, 9) every recorded decision (see :func:`spot_keys` for the columns)."""
        return np.concatenate(self.parts) if self.parts else np.zeros((0, 9))


def spot_keys(records: Floats) -> list[str]:
    """The spot of each recorded decision: ``preflop facing <action> <position>`` or
    ``<street> facing <size>``."""
    keys = []
    for street, facing, position, fraction in records[:, 4:8].tolist():
        if street == 0:
            action = Facing(int(facing)).name.lower().replace("_", " ")
            keys.append(f"preflop {action} {Position(int(position)).name}")
        else:
            size = SIZE_NAMES[int(np.searchsorted(SIZE_EDGES, fraction, side="right"))]
            keys.append(f"{STREET_NAMES[int(street)]} facing {size}")
    return keys


def _kl(truth: Floats, model: Floats) -> Floats:
    """KL(truth || model) over the (fold, call, raise) rows."""
    p = np.clip(truth, EPSILON, 1.0)
    q = np.clip(model, EPSILON, 1.0)
    kl: Floats = (truth * (np.log(p) - np.log(q))).sum(axis=1)
    return kl


def _three_way(fold: Floats, call: Floats) -> Floats:
    return np.column_stack([fold, call, np.clip(1.0 - fold - call, 0.0, 1.0)])


def summarize(records: Floats, *, min_decisions: int = MIN_DECISIONS) -> dict[str, Any]:
    """Per spot and over all: decisions, truth and model fold / call / raise, the model's
    fold minus the truth's, mean KL, and postflop the continuing hands' made strength."""
    truth = _three_way(records[:, 0], records[:, 1])
    model = _three_way(records[:, 2], records[:, 3])
    kl = _kl(truth, model)
    keys = np.array(spot_keys(records), dtype=object)

    def figures(rows: npt.NDArray[np.bool_]) -> dict[str, Any]:
        out: dict[str, Any] = {"decisions": int(rows.sum())}
        for name, shares in (("truth", truth), ("model", model)):
            means = shares[rows].mean(axis=0).tolist()
            out[name] = dict(zip(("fold", "call", "raise"), means, strict=True))
        out["fold_error"] = out["model"]["fold"] - out["truth"]["fold"]
        out["kl"] = float(kl[rows].mean())
        postflop = rows & (records[:, 4] > 0)
        if postflop.any():
            made = records[postflop, 8]
            out["continue_strength"] = {
                name: float(((1 - shares[postflop, 0]) * made).sum())
                / max(float((1 - shares[postflop, 0]).sum()), EPSILON)
                for name, shares in (("truth", truth), ("model", model))
            }
        return out

    spots = []
    for key in sorted(set(keys.tolist())):
        rows = keys == key
        if rows.sum() >= min_decisions:
            spots.append({"spot": key, **figures(rows)})
    spots.sort(key=lambda spot: -abs(spot["fold_error"]) * spot["decisions"])
    everything = figures(np.ones(len(records), dtype=np.bool_)) if len(records) else {}
    return {"overall": everything, "spots": spots}


def model_error(
    agent: Agent | None, model: PopulationAgent, pool: StyleAgent, config: MatchConfig
) -> dict[str, Any]:
    """The model against the true styles at the pool players' decisions facing a bet, in a
    match of ``agent`` (one seat) against ``pool`` (the others), or of the pool alone."""
    recorder = ErrorRecorder(pool, model)
    if agent is None:
        play_match([recorder], default_lineup(1, config.seats), config)
    else:
        play_match([agent, recorder], default_lineup(2, config.seats, against=True), config)
    return {"hands": config.hands, "seed": config.seed, **summarize(recorder.records())}


def model_error_of(
    agent: str | None, model: str, pool: str, *, hands: int, seed: int
) -> dict[str, Any]:
    """:func:`model_error` from specs: ``agent`` any agent spec (None: the pool alone),
    ``model`` a population-model checkpoint, ``pool`` a pool of styles (a shipped pool's
    name, or an agent spec that must come out a pool of styles)."""
    field = load_agent(pool if ":" in pool or "." in pool else f"pool:{pool}")
    if not isinstance(field, StyleAgent):
        raise ModelErrorError(f"{pool} is not a pool of styles: its truth is not known")
    figures = model_error(
        None if agent is None else load_agent(agent),
        load_population_model(model),
        field,
        MatchConfig(hands=hands, seed=seed),
    )
    return {"agent": agent, "model": model, "pool": pool, **figures}
