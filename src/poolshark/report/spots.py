"""Preflop ranges of any agent at a fixed spot, for range charts in reports.

A spot is a 6-max preflop situation reached by folds and at most one open raise: "the
button facing a cutoff open", say. :func:`spot_decisions` deals the same spot at 1,326
tables, one per hero combo, and :func:`action_shares` asks an agent how often it folds,
calls and raises there with each combo, as exact probabilities where the agent can give
them (learned models, the synthetic styles) and as its chosen move otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from poolshark.agents.bots import StyleAgent
from poolshark.agents.protocol import Agent, Decisions, Moves, Probabilities
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS
from poolshark.engine.actions import ActionSet
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.kernel import CHECK_CALL, FOLD, RAISE
from poolshark.exploit.rollout import StyleProbabilities

Floats = npt.NDArray[np.float64]

SEAT_NAMES = ("BTN", "SB", "BB", "UTG", "MP", "CO")
"""6-max seats by offset from the button (the button is seat 0 in a spot)."""


@dataclass(frozen=True)
class Spot:
    """The hero's first decision preflop after everyone before it folds, except ``opener``
    (a seat name) who raises to ``open_bb`` big blinds first."""

    hero: str
    opener: str | None = None
    open_bb: float = 2.5

    def __post_init__(self) -> None:
        for seat in (self.hero, self.opener):
            if seat is not None and seat not in SEAT_NAMES:
                raise ValueError(f"unknown seat {seat!r}: use one of {', '.join(SEAT_NAMES)}")
        order = _preflop_order()
        if self.opener is not None and order.index(self.opener) >= order.index(self.hero):
            raise ValueError(f"{self.opener} acts after {self.hero} preflop, so cannot open")

    @property
    def title(self) -> str:
        """``"BTN vs CO open"`` or ``"CO first in"``."""
        return f"{self.hero} vs {self.opener} open" if self.opener else f"{self.hero} first in"


def _preflop_order() -> list[str]:
    """6-max seats in preflop order of play: UTG first, the big blind last."""
    return [SEAT_NAMES[(3 + k) % 6] for k in range(6)]


def spot_decisions(spot: Spot, *, depth_bb: float = 100.0, seed: int = 0) -> Decisions:
    """1,326 tables at ``spot``, the hero holding combo ``i`` at table ``i``."""
    config = GameConfig(seats=6, small_blind=1, big_blind=2)
    batch = BatchedTables(config, N_COMBOS, seed=seed)
    holes = np.zeros((N_COMBOS, 6, 2), dtype=np.int64)
    boards = np.zeros((N_COMBOS, 5), dtype=np.int64)
    hero = SEAT_NAMES.index(spot.hero)
    for combo, (a, b) in enumerate(COMBO_CARDS):
        rest = [c for c in range(52) if c not in (a, b)]
        others = iter(rest)
        for seat in range(6):
            holes[combo, seat] = (a, b) if seat == hero else (next(others), next(others))
        boards[combo] = [next(others) for _ in range(5)]
    batch.reset(
        stacks=round(depth_bb * config.big_blind), buttons=0, hole_cards=holes, boards=boards
    )
    for name in _preflop_order():
        if name == spot.hero:
            break
        if name == spot.opener:
            batch.step(np.full(N_COMBOS, RAISE), np.full(N_COMBOS, round(spot.open_bb * 2)))
        else:
            batch.step(np.full(N_COMBOS, FOLD))
    if not np.all(batch.to_act == hero):
        raise AssertionError(f"the spot {spot.title} did not reach the hero")
    return Decisions(
        batch,
        np.arange(N_COMBOS, dtype=np.int64),
        np.full(N_COMBOS, hero, dtype=np.int64),
        np.arange(N_COMBOS, dtype=np.int64),
        batch.legal(),
        np.random.default_rng(seed),
    )


def action_shares(agent: Agent, decisions: Decisions) -> Floats:
    """(D, 3) probabilities of fold, check/call and raise at each decision."""
    actions = ActionSet()
    method = getattr(agent, "action_probabilities", None)
    if callable(method):
        return _collapse(np.asarray(method(decisions, actions), dtype=np.float64), decisions)
    if isinstance(agent, StyleAgent):
        exact = StyleProbabilities.of(agent, actions).probabilities(decisions)
        return _collapse(exact, decisions)
    answer = agent.act(decisions)
    if isinstance(answer, Probabilities):
        values = np.asarray(answer.values, dtype=np.float64)
        legal = decisions.mask(answer.actions)
        values = np.where(legal, values, 0.0)
        values /= values.sum(axis=1, keepdims=True)
        return _collapse(values, decisions)
    if isinstance(answer, Moves):
        moves = np.asarray(answer.move, dtype=np.int64)
        out = np.zeros((decisions.size, 3))
        out[np.arange(decisions.size), np.clip(moves, 0, 2)] = 1.0
        return out
    raise TypeError(f"{type(agent).__name__}.act returned {type(answer).__name__}")


def _collapse(values: Floats, decisions: Decisions) -> Floats:
    """Probabilities over an action set → fold, check/call, raise (every raise size)."""
    out = np.zeros((values.shape[0], 3))
    out[:, FOLD] = values[:, 0]
    out[:, CHECK_CALL] = values[:, 1]
    out[:, RAISE] = values[:, 2:].sum(axis=1)
    return out
