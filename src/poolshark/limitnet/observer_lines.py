"""The lines an observer is fitted to, and its fit: one :class:`PlayerLine` per player and
deal, from self-play (:class:`LineRecorder`, the network player's recorder) or from
recorded population play (:func:`record_lines`: the decisions, the board classes and the
showdown buckets of shown hands), and :func:`fit_observer`, per-type normalized gradient
steps stopped at the best held-out likelihood."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from poolshark.agents.protocol import Decisions
from poolshark.limitnet.action_function import STAGES
from poolshark.limitnet.agent import DecisionInputs
from poolshark.limitnet.observer import (
    Observer,
    ObserverError,
    PlayerLine,
    board_class,
    showdown_bucket,
)
from poolshark.limitnet.records import SHOWN_AT, LimitRecords

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

RecordedDecision = tuple[int, Floats, Floats, Floats, Bools, int, Int64s]
"""Stage, bet features, costs, opponent beliefs, legal actions, action and board of one
recorded decision."""


def line_board_classes(board: tuple[int, ...], last_stage: int) -> Int64s:
    """(4,) the board class of stages 1..``last_stage`` (-1 for stage 0 and after)."""
    classes = [-1] + [board_class(board[: SHOWN_AT[stage]]) for stage in range(1, last_stage + 1)]
    return np.array(classes + [-1] * (STAGES - len(classes)), dtype=np.int64)


class LineRecorder:
    """A network player's recorder (``LimitNetAgent(recorder=...)``) that keeps every
    decision it is shown and turns them into one :class:`PlayerLine` per player and hand:
    the lines to fit an observer on self-play. Showdowns are not seen (``shown`` -1)."""

    def __init__(self) -> None:
        self.rows: dict[tuple[int, int, int], list[RecordedDecision]] = {}

    def record(self, decisions: Decisions, inputs: DecisionInputs, actions: Int64s) -> None:
        """Keep each decision under (table, hand, seat)."""
        boards = decisions.board
        for row in range(decisions.size):
            key = (
                int(decisions.tables[row]),
                int(decisions.hand_ids[row]),
                int(decisions.seats[row]),
            )
            self.rows.setdefault(key, []).append(
                (
                    int(inputs.stages[row]),
                    inputs.bets[row],
                    inputs.costs[row],
                    inputs.beliefs[row],
                    inputs.legal[row],
                    int(actions[row]),
                    boards[row],
                )
            )

    def lines(self) -> list[PlayerLine]:
        """The recorded lines, in the order their first decisions came."""
        lines = []
        for rows in self.rows.values():
            stages = np.array([row[0] for row in rows], dtype=np.int64)
            last = int(stages.max())
            board = tuple(int(card) for card in rows[-1][6] if card >= 0)
            lines.append(
                PlayerLine(
                    stages,
                    np.stack([row[1] for row in rows]),
                    np.stack([row[2] for row in rows]),
                    np.stack([row[3] for row in rows]),
                    np.stack([row[4] for row in rows]),
                    np.array([row[5] for row in rows], dtype=np.int64),
                    line_board_classes(board, last),
                    last,
                )
            )
        return lines


def record_lines(records: LimitRecords, lines: Int64s, types: int) -> list[PlayerLine]:
    """The observer's view of recorded lines ``lines``: each decision with the summed
    opponent beliefs the records carry (zeros over ``types`` without them), the board
    classes of the stages the player reached, and the showdown bucket of shown hands."""
    out = []
    for line in lines.tolist():
        rows = slice(int(records.line_start[line]), int(records.line_start[line + 1]))
        stages = records.stages[rows]
        shown = bool(records.shown[line])
        last = STAGES - 1 if shown else int(stages.max())
        board = tuple(int(card) for card in records.boards[line, : records.board_shown[line]])
        bucket = -1
        if shown:
            hole = tuple(int(card) for card in records.holes[line])
            bucket = showdown_bucket(hole, board, types)
        opponents = (
            np.zeros((stages.size, types)) if records.beliefs is None else records.beliefs[rows]
        )
        out.append(
            PlayerLine(
                stages,
                records.bets[rows],
                records.costs[rows],
                opponents,
                records.legal[rows],
                records.actions[rows],
                line_board_classes(board, last),
                last,
                bucket,
            )
        )
    return out


@dataclass
class ObserverFit:
    """An observer fit's course: log-likelihood per decision (showdown terms included) on
    the training and held-out lines before each step and after the last; ``best_step``
    is the step whose parameters were kept (0: the start)."""

    train: list[float] = field(default_factory=list)
    held_out: list[float] = field(default_factory=list)
    best_step: int = 0


def fit_observer(
    observer: Observer,
    train: list[PlayerLine],
    held_out: list[PlayerLine],
    *,
    steps: int,
    learning_rate: float = 1.0,
    progress: Callable[[int, float, float], None] | None = None,
    train_types: Int64s | None = None,
    held_types: Int64s | None = None,
) -> tuple[Observer, ObserverFit]:
    """Per-type normalized gradient ascent on ``train`` for ``steps`` steps; the observer
    with the best held-out likelihood (the normalized fit overfits past a few dozen steps,
    ``docs/limit.md``) and the course. ``progress(step, train, held out)`` after each.
    ``train_types`` (and ``held_types``; -1 where not known, summed out under the type
    prior) are the lines' player types, treated as revealed (section 6.3)."""
    if not train or not held_out:
        raise ObserverError("fitting an observer needs training and held-out lines")
    train_decisions = max(sum(line.stages.size for line in train), 1)
    held_decisions = max(sum(line.stages.size for line in held_out), 1)
    course = ObserverFit()
    best, best_score = observer.state(), -np.inf
    for step in range(steps + 1):
        held = observer.log_likelihood(held_out, held_types) / held_decisions
        if held > best_score:
            best, best_score, course.best_step = observer.state(), held, step
        if step == steps:
            course.train.append(observer.log_likelihood(train, train_types) / train_decisions)
        else:
            score = observer.step(train, learning_rate, types=train_types)
            course.train.append(score / train_decisions)
        course.held_out.append(held)
        if progress is not None:
            progress(step, course.train[-1], held)
    return Observer.from_state(observer.emission.action_function, best), course


def fit_observer_to_records(
    observer: Observer,
    records: LimitRecords,
    held_out: LimitRecords,
    *,
    lines: int,
    steps: int,
    learning_rate: float = 1.0,
    seed: int = 0,
    progress: Callable[[int, float, float], None] | None = None,
    types: Int64s | None = None,
    held_types: Int64s | None = None,
) -> tuple[Observer, ObserverFit]:
    """Fit ``observer`` to ``lines`` lines drawn from ``records`` (and a quarter as many
    from ``held_out`` to stop on), each decision reading the opponent beliefs the records
    carry (zeros without them), by :func:`fit_observer`; ``types`` (and ``held_types``)
    give each record line's player type as revealed (-1: not known, which only the
    held-out lines may have: summed out there under the observer's type prior)."""
    if lines < 1:
        raise ObserverError(f"fit an observer to at least one line, got {lines}")
    rng = np.random.default_rng([seed, 11])
    train = rng.choice(records.lines, size=min(lines, records.lines), replace=False)
    held = rng.choice(held_out.lines, size=min(max(lines // 4, 1), held_out.lines), replace=False)
    train, held = np.sort(train), np.sort(held)
    if types is not None and (types[train] < 0).any():
        raise ObserverError("every training line needs its player type")
    return fit_observer(
        observer,
        record_lines(records, train, observer.types),
        record_lines(held_out, held, observer.types),
        steps=steps,
        learning_rate=learning_rate,
        progress=progress,
        train_types=None if types is None else types[train],
        held_types=None if held_types is None else held_types[held],
    )
