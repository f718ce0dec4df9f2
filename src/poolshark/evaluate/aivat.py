"""Variance reduction for simulated matches: control variates in the spirit of AIVAT.

In a simulated match the evaluator knows every card and, for many agents, the exact
probabilities of every action. Each seat's result of a hand is corrected by terms whose
expectation is zero, so the mean is unchanged while much of the luck is taken out:

    corrected = result - sum of corrections

with ``v`` the check-down value (:mod:`poolshark.evaluate.checkdown`) and the corrections

* **chance nodes** (the hole cards, each board card or cards): ``v(after) - E[v(after)]``.
  With the check-down value, ``E[v(after)]`` over the next board card(s) is the value
  before the deal, exactly (the value is an average over the board's completions). At the
  deal of the hole cards it is each pot split evenly among its eligible seats, since the
  seats are exchangeable before the cards (:func:`~poolshark.evaluate.checkdown.
  even_split_values`).
* **known-policy decisions** (an agent whose probabilities the match knows: it answered
  :class:`~poolshark.agents.protocol.Probabilities`, which the match samples itself, or a
  :class:`~poolshark.agents.bots.StyleAgent`, whose compiled policy row is recomputed
  for the style its seat drew): ``v(s, a_taken) - sum_a pi(a|s) v(s, a)``, over the actions
  of the row that was sampled (each mapped to exact chips as the match maps it).
* exact :class:`~poolshark.agents.protocol.Moves` with no known policy: no correction.

Every term has mean zero given what came before it (the next card is uniform over the
cards no seat holds; the action is drawn from ``pi``), so the corrected result is an
unbiased estimate of the same expectation, whatever the value function. The preflop values
average over sampled boards: an unbiased estimate of the exact value, drawn from a stream
of its own that no card or action depends on, so unbiasedness survives. A better ``v``
only narrows the interval.

:class:`Corrections` keeps the running sum per (table, seat) for the hands in progress;
the match calls :meth:`Corrections.dealt` after each deal, :meth:`Corrections.expect` when
a known-policy agent answered (before the engine applies the move) and
:meth:`Corrections.stepped` after each engine step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.agents.bots import StyleAgent, hand_strengths
from poolshark.agents.protocol import Decisions, Moves, Probabilities
from poolshark.cards.combos import COMBO_INDEX
from poolshark.engine.batched import BatchedTables
from poolshark.engine.kernel import (
    BET,
    CHECK_CALL,
    FOLD,
    FOLDED,
    RAISE,
    SHOWN,
    STACK,
    START,
    TOTAL,
)
from poolshark.evaluate.checkdown import BoardRanks, even_split_values
from poolshark.pool.context import Feature
from poolshark.pool.policy import MAX_SIZES, N_COLUMNS, style_distribution

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

PREFLOP_BOARDS = 256
"""Boards sampled per hand for the preflop check-down values (shared by its preflop states)."""

KINDS = (
    "hole cards",
    "flop",
    "turn",
    "river",
    "run-out",
    "preflop decision",
    "flop decision",
    "turn decision",
    "river decision",
)
"""The kinds of correction, booked apart: chance nodes by what was dealt (``run-out``: more
than one street's cards at once, after an all-in), known-policy decisions by street."""
RUN_OUT = 4
FIRST_DECISION = 5
FEATURES = (*KINDS, *(f"{kind} (share x stack)" for kind in KINDS))
"""The correction features :class:`Corrections` books per seat (see there)."""


@dataclass(frozen=True)
class Policy:
    """A known policy at D decisions: K candidate moves each, their probabilities."""

    probabilities: Floats  # (D, K), rows sum to 1
    moves: Int64s  # (D, K) engine moves
    amounts: Int64s  # (D, K) raise-to totals (ignored unless a raise)


def known_policy(
    decisions: Decisions, answer: Probabilities | Moves, agent: object
) -> Policy | None:
    """The distribution the match (or the agent) sampled ``answer`` from, when known."""
    if isinstance(answer, Probabilities):
        return probabilities_policy(decisions, answer)
    if isinstance(agent, StyleAgent):
        return style_policy(decisions, agent)
    return None


def probabilities_policy(decisions: Decisions, answer: Probabilities) -> Policy | None:
    """The match's sampling of ``answer``: legal weights renormalized, each action as the
    action set maps it to chips (None when a row is unusable: the match refuses it)."""
    actions = answer.actions
    values = np.asarray(answer.values, dtype=np.float64)
    if values.shape != (decisions.size, actions.size) or not np.isfinite(values).all():
        return None
    legal = np.where(decisions.mask(actions), values, 0.0)
    total = legal.sum(axis=1)
    if (total <= 0).any() or (values < 0).any():
        return None
    moves = np.zeros((decisions.size, actions.size), dtype=np.int64)
    amounts = np.zeros_like(moves)
    batch, legal_bounds = decisions.batch, decisions.legal
    for column in range(actions.size):
        every = np.full(decisions.size, column, dtype=np.int64)
        moves[:, column], amounts[:, column] = actions.moves_at(
            batch, legal_bounds, decisions.tables, every
        )
    return Policy(legal / total[:, None], moves, amounts)


def style_policy(decisions: Decisions, agent: StyleAgent) -> Policy:
    """The compiled style row (fold, check/call, each raise size) of the style each seat
    drew this hand: exactly what the agent sampled its move from."""
    count = decisions.size
    rows = np.zeros((count, N_COLUMNS))
    amounts = np.zeros((count, MAX_SIZES), dtype=np.int64)
    contexts = np.ascontiguousarray(decisions.contexts)
    if count:
        hole = np.asarray(decisions.hole_cards, dtype=np.int64)
        street = contexts[:, Feature.STREET]
        made, draw = np.zeros(count), np.zeros(count)
        postflop = street > 0  # preflop rows read no strength
        made[postflop], draw[postflop] = hand_strengths(
            hole[postflop], np.asarray(decisions.board)[postflop], street[postflop]
        )
        _style_rows_kernel(
            *agent.bank,
            agent.draws.draw(decisions),  # the styles drawn at the seats' first decision
            contexts,
            COMBO_INDEX[hole[:, 0], hole[:, 1]].astype(np.int64),
            made,
            draw,
            rows,
            amounts,
        )
    moves = np.broadcast_to(
        np.array([FOLD, CHECK_CALL, *[RAISE] * MAX_SIZES], dtype=np.int64), rows.shape
    ).copy()
    call = np.minimum(contexts[:, Feature.TO_CALL], contexts[:, Feature.MY_STACK])
    raise_to = np.concatenate([np.zeros((count, 1)), call[:, None], amounts], axis=1)
    return Policy(sampled_shares(rows), moves, raise_to.astype(np.int64))


def sampled_shares(rows: Floats) -> Floats:
    """The probability of each column when a uniform u in [0, 1) picks the first column
    whose running sum exceeds u, and u past the sum picks the last column with weight
    (the compiled style sampler's rule): exact even when a row does not sum to one."""
    running = np.minimum(np.cumsum(rows, axis=1), 1.0)
    shares = np.diff(running, axis=1, prepend=0.0)
    last = rows.shape[1] - 1 - np.argmax(rows[:, ::-1] > 0, axis=1)
    shares[np.arange(rows.shape[0]), last] += 1.0 - running[:, -1]
    return shares


@nb.njit(cache=True, nogil=True)
def _style_rows_kernel(
    raise_weight: Floats,
    continue_weight: Floats,
    params: Floats,
    sizes: Floats,
    size_weights: Floats,
    style: Int64s,
    features: Floats,
    combos: Int64s,
    made: Floats,
    draw: Floats,
    out: Floats,
    out_amounts: Int64s,
) -> None:
    """``out[i]`` the row of style ``style[i]`` at decision ``i`` (as ``pool.policy``'s
    sampler computes it), ``out_amounts[i]`` its raise sizes' totals."""
    for i in range(style.size):
        style_distribution(
            raise_weight,
            continue_weight,
            params,
            sizes,
            size_weights,
            style[i],
            features[i],
            combos[i],
            made[i],
            draw[i],
            out[i],
            out_amounts[i],
        )


def after_moves(
    batch: BatchedTables,
    tables: Int64s,
    seats: Int64s,
    call: Int64s,
    low: Int64s,
    high: Int64s,
    moves: Int64s,
    amounts: Int64s,
) -> tuple[Int64s, Int64s]:
    """(total, folded) per row after seat ``seats[i]`` makes ``moves[i]`` at ``tables[i]``,
    with the engine's coercions (a free fold checks, a refused raise calls, a raise size is
    clamped) and its all-in cap; ``call``, ``low``, ``high`` are the legal bounds there."""
    rows = np.arange(tables.size)
    total = batch.seat[tables, TOTAL].copy()
    folded = batch.seat[tables, FOLDED].copy()
    bet = batch.seat[tables, BET, seats]
    stack = batch.seat[tables, STACK, seats]
    move = np.where((moves == FOLD) & (call == 0), CHECK_CALL, moves)
    move = np.where((move == RAISE) & (low < 0), CHECK_CALL, move)
    raise_to = np.clip(amounts, low, np.maximum(high, 0))
    added = np.where(move == CHECK_CALL, call, np.where(move == RAISE, raise_to - bet, 0))
    total[rows, seats] += np.minimum(np.maximum(added, 0), stack)
    folded[rows, seats] = np.where(move == FOLD, 1, folded[rows, seats])
    return total, folded


class Corrections:
    """The running AIVAT corrections of the hands in progress, per (table, seat).

    ``parts[t, s, f]`` is the sum of seat ``s``'s correction terms of feature ``f``
    (:data:`FEATURES`) in table ``t``'s hand so far. Features ``0..8`` are the check-down
    value's corrections by kind (:data:`KINDS`); features ``9..17`` the same nodes'
    corrections of the seat's share of a unit pot among the live seats, times its
    effective stack before the node: the same martingale, scaled by what is still to
    be bet. Each has mean zero; :func:`cross_fitted` weighs them.
    """

    def __init__(self, batch: BatchedTables, seed: int, preflop_boards: int = PREFLOP_BOARDS):
        tables, seats = batch.size, batch.config.seats
        self.batch = batch
        self.boards = BoardRanks(tables, seats, preflop_boards, seed)
        self.parts = np.zeros((tables, seats, len(FEATURES)))
        self.expected = np.zeros((tables, seats))
        self.expected_share = np.zeros((tables, seats))
        self.scale = np.zeros((tables, seats))
        self.pending = np.zeros(tables, dtype=np.bool_)

    @property
    def total(self) -> Floats:
        """(tables, seats) the plain AIVAT correction of the hand in progress: the value
        corrections with weight one."""
        total: Floats = self.parts[:, :, : len(KINDS)].sum(axis=2)
        return total

    def dealt(self, tables: Int64s) -> None:
        """Hands just dealt at ``tables``: the hole-card correction, then any board dealt
        already (everyone all-in on the blinds)."""
        batch = self.batch
        self.parts[tables] = 0.0
        self.pending[tables] = False
        self.boards.build(batch, tables, np.zeros(tables.size, dtype=np.int64))
        total, folded = batch.seat[tables, TOTAL], batch.seat[tables, FOLDED]
        value, share = self._values(tables, total, folded)
        live = 1 - folded
        self.parts[tables, :, 0] = value - even_split_values(total, folded)
        fair = live / live.sum(axis=1, keepdims=True)
        self.parts[tables, :, len(KINDS)] = self._stack_scale(tables) * (share - fair)
        self._board_dealt(tables, value, share)

    def expect(self, decisions: Decisions, policy: Policy) -> None:
        """Before the engine applies a known-policy agent's moves: ``sum_a pi(a) v(s, a)``
        per decision (only actions of positive probability are valued)."""
        d, k = np.nonzero(policy.probabilities > 0)
        if d.size == 0:
            return
        legal = decisions.legal
        tables = decisions.tables[d]
        total, folded = after_moves(
            self.batch,
            tables,
            decisions.seats[d],
            legal.call[tables],
            legal.min_raise_to[tables],
            legal.max_raise_to[tables],
            policy.moves[d, k],
            policy.amounts[d, k],
        )
        value, share = self._values(tables, total, folded)
        weight = policy.probabilities[d, k][:, None]
        expected = np.zeros((decisions.size, value.shape[1]))
        expected_share = np.zeros_like(expected)
        np.add.at(expected, d, weight * value)
        np.add.at(expected_share, d, weight * share)
        self.expected[decisions.tables] = expected
        self.expected_share[decisions.tables] = expected_share
        self.scale[decisions.tables] = self._stack_scale(decisions.tables)
        self.pending[decisions.tables] = True

    def stepped(self, tables: Int64s) -> None:
        """After one engine step at ``tables``: the known-policy corrections of the moves
        just made and the chance corrections of any board card just dealt."""
        batch = self.batch
        changed = batch.table[tables, SHOWN] != self.boards.shown[tables]
        needed = tables[self.pending[tables] | changed]
        if needed.size == 0:
            return
        total, folded = batch.seat[needed, TOTAL], batch.seat[needed, FOLDED]
        value, share = self._values(needed, total, folded)  # on the board before this step
        rows = self.pending[needed]
        known = needed[rows]
        street = FIRST_DECISION + _street_of(self.boards.shown[known])
        self.parts[known, :, street] += value[rows] - self.expected[known]
        self.parts[known, :, street + len(KINDS)] += self.scale[known] * (
            share[rows] - self.expected_share[known]
        )
        self.pending[needed] = False
        self._board_dealt(needed, value, share)

    def _board_dealt(self, tables: Int64s, value: Floats, share: Floats) -> None:
        """Board cards appeared at ``tables`` since the stored ranks (``value``, ``share``:
        on the old board): ``v(after) - v(before)`` for both features."""
        changed = self.batch.table[tables, SHOWN] != self.boards.shown[tables]
        which = tables[changed]
        if which.size == 0:
            return
        was = _street_of(self.boards.shown[which])
        scale = self._stack_scale(which)
        self.boards.build(self.batch, which)
        now = _street_of(self.boards.shown[which])
        kind = np.where(now == was + 1, now, RUN_OUT)
        total, folded = self.batch.seat[which, TOTAL], self.batch.seat[which, FOLDED]
        after, after_share = self._values(which, total, folded)
        self.parts[which, :, kind] += after - value[changed]
        self.parts[which, :, kind + len(KINDS)] += scale * (after_share - share[changed])

    def _values(self, tables: Int64s, total: Int64s, folded: Int64s) -> tuple[Floats, Floats]:
        """Check-down values and each seat's share of a pot the live seats fed equally,
        with one pass over each table's boards (the rows are interleaved per table)."""
        count = tables.size
        live = 1 - folded
        both = np.empty((2 * count, total.shape[1]), dtype=np.int64)
        both[0::2], both[1::2] = total, live
        values = self.boards.values(np.repeat(tables, 2), both, np.repeat(folded, 2, axis=0))
        share = (values[1::2] + live) / np.maximum(live.sum(axis=1, keepdims=True), 1)
        return values[0::2], share

    def _stack_scale(self, tables: Int64s) -> Floats:
        """(k, seats) each live seat's effective stack behind: the least of its chips behind
        and the most any other live seat has (fixed by the actions so far, not the cards)."""
        seat = self.batch.seat[tables]
        live = seat[:, FOLDED] == 0
        behind = np.where(live, seat[:, START] - seat[:, TOTAL], 0)
        order = np.sort(behind, axis=1)
        most, second = order[:, -1:], order[:, -2:-1] if behind.shape[1] > 1 else order[:, -1:]
        other_most = np.where(behind == most, second, most)
        return np.where(live, np.minimum(behind, other_most), 0).astype(np.float64)


def cross_fitted(actual: Floats, parts: Floats, *, folds: int = 2) -> Floats:
    """(units,) the corrections to subtract: each fold's ``parts`` weighed by coefficients
    fitted on the other folds (least squares of the result on the parts, shrunk toward the
    plain AIVAT weights: one on the value features, zero on the rest). A unit's weights
    never see its own result, so every unit stays an unbiased estimate; too few units for
    a fit (fewer than twice the features per fold) keep the plain weights."""
    units, features = parts.shape
    plain = np.zeros(features)
    plain[: min(len(KINDS), features)] = 1.0
    fold = np.arange(units) % folds
    out = parts @ plain
    for f in range(folds):
        train = fold != f
        if int((fold == f).sum()) < 2 * features or int(train.sum()) < 2 * features:
            continue
        design = parts[train]
        residual = actual[train] - design @ plain
        gram = np.einsum("ij,ik->jk", design, design)  # not BLAS: its threads stall here
        ridge = 1e-6 * max(float(np.trace(gram)) / features, 1e-12)
        delta = np.linalg.solve(gram + ridge * np.eye(features), design.T @ residual)
        out[fold == f] = parts[fold == f] @ (plain + delta)
    return out


def _street_of(shown: Int64s) -> Int64s:
    """0 preflop .. 3 river from the number of board cards shown."""
    street: Int64s = np.maximum(shown - 2, 0)
    return street
