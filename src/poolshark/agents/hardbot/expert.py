"""HaRDBot's expert system: Poki-style rules for heads-up limit, given the opponent's range.

The input of a decision is the hand's strength and potentials *against the current opponent
distribution* (``vectors.hand_vectors`` with HaRDBot's weighted range), the pot odds, the
street and the bets already made this round. Poki's effective hand strength folds the
potentials in (Billings et al. 2002):

    EHS = HS * (1 - NPOT) + (1 - HS) * PPOT

Rules are tried from the most aggressive to the least; each whose condition holds fires
with its probability, otherwise the next is tried; when none fires the bot checks if that
is free and folds otherwise:

1. **value raise**: EHS >= ``raise_at[street] + reraise_step * (bets - 1)``, fires with
   ``value_probability``;
2. **semi-bluff** (flop, turn): PPOT >= ``semibluff_ppot`` with at most one bet made,
   fires with ``semibluff_probability``;
3. **bluff / steal** when checking is free or only the blind is faced:
   E >= ``bluff_floor``, fires with ``bluff_probability[street]``;
4. **call**: facing a bet, EHS >= pot odds + ``call_margin[street]``;
5. **draw call** (flop, turn): facing a bet, PPOT >= pot odds.

Heads-up tuning: thresholds are lower than Poki's ring-game ones, and the preflop steal
fires often (the button opens most hands heads-up).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from poolshark.agents.hardbot.vectors import NPOT, PPOT, STRENGTH, E, hand_vectors
from poolshark.agents.protocol import Decisions, Moves
from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX, N_COMBOS
from poolshark.engine.kernel import CHECK_CALL, FOLD, LOG_LEN, LOG_MOVE, LOG_STREET, RAISE

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

RULES = ("value raise", "semi-bluff", "bluff", "call", "draw call")


@dataclass(frozen=True)
class ExpertRules:
    """Thresholds and firing probabilities of the expert system (per street where a tuple:
    preflop, flop, turn, river)."""

    raise_at: tuple[float, float, float, float] = (0.56, 0.62, 0.64, 0.66)
    reraise_step: float = 0.07
    value_probability: float = 0.9
    semibluff_ppot: float = 0.28
    semibluff_probability: float = 0.5
    bluff_floor: float = 0.3
    bluff_probability: tuple[float, float, float, float] = (0.6, 0.25, 0.15, 0.1)
    call_margin: tuple[float, float, float, float] = (0.08, 0.05, 0.05, 0.03)


def effective_strength(vectors: Floats) -> Floats:
    """Poki's EHS = HS (1 - NPOT) + (1 - HS) PPOT for (N, 5) hand vectors."""
    hs = vectors[:, STRENGTH]
    ehs: Floats = hs * (1.0 - vectors[:, NPOT]) + (1.0 - hs) * vectors[:, PPOT]
    return ehs


def expert_moves(
    vectors: Floats,
    street: Int64s,
    pot: npt.ArrayLike,
    call: npt.ArrayLike,
    bets: Int64s,
    can_raise: Bools,
    uniforms: Floats,
    rules: ExpertRules = ExpertRules(),
) -> tuple[Int64s, Int64s]:
    """(moves, rule fired: index into :data:`RULES`, -1 none) for N decisions.

    ``vectors`` (N, 5) against the opponent's range; ``pot`` every chip in (bets included),
    ``call`` chips to call, ``bets`` bets made this round (blind included), ``can_raise``
    whether a raise is legal, ``uniforms`` (N, 3) uniform draws deciding which rules fire.
    """
    pot_f = np.asarray(pot, dtype=np.float64)
    call_f = np.asarray(call, dtype=np.float64)
    odds = call_f / np.maximum(pot_f + call_f, 1.0)
    facing = call_f > 0
    ehs = effective_strength(vectors)
    ppot, e = vectors[:, PPOT], vectors[:, E]
    raise_at = np.asarray(rules.raise_at)[street] + rules.reraise_step * np.maximum(bets - 1, 0)
    bluff_p = np.asarray(rules.bluff_probability)[street]
    postflop_draw = (street == 1) | (street == 2)
    steal_spot = ~facing | ((street == 0) & (bets == 1))
    conditions = (
        can_raise & (ehs >= raise_at) & (uniforms[:, 0] < rules.value_probability),
        can_raise
        & postflop_draw
        & (ppot >= rules.semibluff_ppot)
        & (bets <= 1)
        & (uniforms[:, 1] < rules.semibluff_probability),
        can_raise & steal_spot & (e >= rules.bluff_floor) & (uniforms[:, 2] < bluff_p),
        facing & (ehs >= odds + np.asarray(rules.call_margin)[street]),
        facing & postflop_draw & (ppot >= odds),
    )
    fired = np.full(street.size, -1, dtype=np.int64)
    for index, condition in enumerate(conditions):
        fired[(fired < 0) & condition] = index
    moves = np.where(fired < 0, np.where(facing, FOLD, CHECK_CALL), CHECK_CALL)
    moves[(fired >= 0) & (fired <= 2)] = RAISE
    return moves.astype(np.int64), fired


@cache
def preflop_equities(samples: int = 64, seed: int = 0) -> Floats:
    """(1326,) each combo's equity against a random hand (Monte Carlo, cached)."""
    boards = np.full((N_COMBOS, 5), -1, dtype=np.int64)
    equities: Floats = hand_vectors(COMBO_CARDS, boards, samples=samples, seed=seed)[:, E]
    equities.flags.writeable = False
    return equities


def round_bets(decisions: Decisions) -> Int64s:
    """(D,) bets made in the current round (the preflop blind counts as one)."""
    batch, tables = decisions.batch, decisions.tables
    width = max(1, int(batch.table[tables, LOG_LEN].max(initial=0)))
    log = batch.log[tables, :width]
    filled = np.arange(width)[None, :] < batch.table[tables, LOG_LEN][:, None]
    this_round = filled & (log[:, :, LOG_STREET] == decisions.street[:, None])
    raises: Int64s = (this_round & (log[:, :, LOG_MOVE] == RAISE)).sum(axis=1)
    bets: Int64s = raises + (decisions.street == 0)
    return bets


class ExpertAgent:
    """The expert system alone against a uniform opponent range (no Bayes, no corpus): a
    fast batched bot for building corpora and a baseline for the ablations."""

    def __init__(self, rules: ExpertRules = ExpertRules(), samples: int = 4) -> None:
        self.rules, self.samples = rules, samples
        self.calls = 0

    def act(self, decisions: Decisions) -> Moves:
        """Vectors against a random hand, then the rules, for every decision at once."""
        street = decisions.street
        vectors = np.empty((decisions.size, 5))
        pre = street == 0
        if pre.any():
            holes = decisions.hole_cards[pre]
            equity = preflop_equities()[COMBO_INDEX[holes[:, 0], holes[:, 1]]]
            vectors[pre] = np.stack([equity, equity, equity**2, 0 * equity, 0 * equity], 1)
        if (~pre).any():
            self.calls += 1
            seed = int(decisions.rng.integers(1 << 31))
            vectors[~pre] = hand_vectors(
                decisions.hole_cards[~pre], decisions.board[~pre], samples=self.samples, seed=seed
            )
        can_raise = decisions.min_raise_to >= 0
        moves, _ = expert_moves(
            vectors,
            street,
            decisions.pot,
            decisions.call,
            round_bets(decisions),
            can_raise,
            decisions.rng.random((decisions.size, 3)),
            self.rules,
        )
        return Moves(moves, np.where(moves == RAISE, decisions.min_raise_to, 0))
