"""The population model against the data, spot by spot: the model's predicted fold /
check-call / bet-raise frequencies beside the observed ones, with KL, a calibration z and
the decision, hand and player counts, worst spots first.

**What the model predicts at a row.** The model conditions on the acting player's hole
cards, which most rows do not show (hands are shown at showdown, so the shown ones are a
selected set: a player who folds here never shows). The prediction comparable with the
observed frequency over *all* rows of a spot is the model's probability with the cards
marginalized over the player's range at that point,

    P(a | history) = sum_c P_model(c | the player's earlier actions in the hand) P_model(a | c),

the range being the model's own posterior (:class:`~poolshark.population.posterior.PolicyPosterior`,
the one EM imputes with) asked *before* the decision: the row's own action and everything
after it are not conditioned on (the end-of-hand imputation of training would be circular
here: its cards were drawn to explain this very action). Cards a row shows are ignored,
for every row alike; using them where shown would bias the spot's prediction toward the
showdown hands' actions (fewer folds). The sum over combos is estimated by ``draws``
combos drawn from the range per row (unbiased; the spot mean averages the draws of all
its rows).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl

from poolshark.cards.combos import COMBO_CARDS, N_COMBOS
from poolshark.pool.stats import wilson_interval
from poolshark.population.features import MAX_SEATS
from poolshark.population.hands import RowHands, rows_states
from poolshark.population.posterior import (
    PolicyPosterior,
    read_population_checkpoint,
    with_holes,
)
from poolshark.population.range_view import source_ranges
from poolshark.population.scoring import move_probabilities
from poolshark.population.sources import range_source_from_spec

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

MOVES = ("fold", "call", "raise")
"""Short names of the three moves, in the order of the rows' ``action`` values."""
ROW_ACTIONS = ("fold", "check-call", "bet-raise")
"""The rows' ``action`` values of :data:`MOVES`."""
PREDICTED_COLUMNS = tuple(f"p_{move}" for move in MOVES)
KEYS = ("site", "hand_id", "action_index")
CHUNK = 2048
"""Decisions per range query and forward pass batch."""
PROBABILITY_FLOOR = 1e-12
"""Predicted frequencies are floored here inside the KL's logarithm."""


class CalibrationError(ValueError):
    """Rows, predictions or a checkpoint the comparison cannot use; the message says why."""


@dataclass(frozen=True)
class Predictions:
    """The model's move probabilities per scored decision (``frame``: ``site, hand_id,
    action_index, p_fold, p_call, p_raise``) and the rows it could not score, by reason."""

    frame: pl.DataFrame
    dropped: dict[str, int]


def predict_actions(
    rows: pl.DataFrame, checkpoint: Path, *, seed: int = 0, draws: int = 16
) -> Predictions:
    """The population model's card-free probabilities of fold, check/call and bet/raise at
    every decision row it can score (see the module docstring), and the counts of the rows
    it cannot: fixed-limit rows, rows of tables outside 2 to ``MAX_SEATS`` seats, and
    rows of hands the model's context cannot replay (dead or posted blinds)."""
    if draws < 1:
        raise CalibrationError(f"draws must be at least 1, got {draws}")
    missing = [c for c in (*KEYS, "betting", "players") if c not in rows.columns]
    if missing:
        raise CalibrationError(f"rows lack columns {missing} (need poolshark ingest's rows)")
    model, spec = read_population_checkpoint(checkpoint)
    view = range_source_from_spec(spec)
    posterior = PolicyPosterior(model, view, seed=seed)
    rng = np.random.default_rng([seed, 29])
    groups, report = rows_states(rows)
    parts = [_group_predictions(rows, group, posterior, rng, draws) for group in groups]
    schema = {
        "site": pl.String,
        "hand_id": pl.String,
        "action_index": pl.UInt16,
        **dict.fromkeys(PREDICTED_COLUMNS, pl.Float64),
    }
    frame = pl.concat(parts) if parts else pl.DataFrame(schema=schema)
    no_limit = rows.filter(pl.col("betting") == "no-limit")
    other_seats = no_limit.filter(~pl.col("players").is_between(2, MAX_SEATS)).height
    dropped = {
        "fixed_limit": report.dropped_limit_rows,
        "seat_count": other_seats,
        "inconsistent": rows.height - report.dropped_limit_rows - other_seats - frame.height,
    }
    return Predictions(frame, dropped)


def predicted_actions(rows: pl.DataFrame, checkpoint: Path, *, seed: int = 0) -> pl.DataFrame:
    """``site, hand_id, action_index, p_fold, p_call, p_raise`` for every decision row the
    model can score (:func:`predict_actions`, whose ``dropped`` counts the others)."""
    return predict_actions(rows, checkpoint, seed=seed).frame


def _group_predictions(
    rows: pl.DataFrame,
    group: RowHands,
    posterior: PolicyPosterior,
    rng: np.random.Generator,
    draws: int,
) -> pl.DataFrame:
    """One game's decisions: the acting seat's range before the decision (its shown cards
    ignored), ``draws`` combos from it, the model's moves averaged over them."""
    states = group.states
    states = replace(states, hole=np.full_like(states.hole, -1))
    moves = np.zeros((states.size, 3))
    for start in range(0, states.size, CHUNK):
        decision = np.arange(start, min(start + CHUNK, states.size), dtype=np.int64)
        ranges = source_ranges(posterior, states, decision, states.seat[decision])
        combos = _draw_combos(ranges.astype(np.float64), rng, draws)
        repeated = np.repeat(decision, draws)
        drawn = with_holes(states, repeated, COMBO_CARDS[combos.ravel()].astype(np.int64))
        classes = np.exp(posterior.log_policies(drawn))
        moves[decision] = move_probabilities(classes).reshape(-1, draws, 3).mean(axis=1)
    keys = _hand_keys(rows, group)
    site, hand_id = keys[states.hand].T
    return pl.DataFrame(
        {
            "site": site.tolist(),
            "hand_id": hand_id.tolist(),
            "action_index": pl.Series(states.index, dtype=pl.UInt16),
            **{name: moves[:, i] for i, name in enumerate(PREDICTED_COLUMNS)},
        },
        schema_overrides={"site": pl.String, "hand_id": pl.String},
    )


def _draw_combos(ranges: Floats, rng: np.random.Generator, draws: int) -> Int64s:
    """(Q, draws) combos drawn from each row of ``ranges`` (rows with no mass: uniform)."""
    totals = ranges.sum(axis=1, keepdims=True)
    weights = np.where(totals > 0, ranges, 1.0)
    cumulative = np.cumsum(weights, axis=1)
    offset = np.arange(ranges.shape[0])[:, None]
    flat = (cumulative / cumulative[:, -1:] + offset).ravel()
    target = rng.random((ranges.shape[0], draws)) + offset
    chosen = np.searchsorted(flat, target.ravel(), side="right").reshape(target.shape)
    combos: Int64s = np.clip(chosen - offset * N_COMBOS, 0, N_COMBOS - 1).astype(np.int64)
    return combos


def _hand_keys(rows: pl.DataFrame, group: RowHands) -> npt.NDArray[np.object_]:
    """(H, 2) the ``site, hand_id`` of each hand of a rebuilt group, numbered the way
    :func:`~poolshark.population.hands.rows_states` numbers them (dense rank of the pair
    within the group's game)."""
    config = group.states.hands.config
    part = rows.filter(
        (pl.col("betting") == "no-limit")
        & (pl.col("players") == config.seats)
        & (pl.col("small_blind") == config.small_blind)
        & (pl.col("big_blind") == config.big_blind)
        & (pl.col("ante") == config.ante)
    )
    ranked = part.select(
        "site", "hand_id", rank=pl.struct("site", "hand_id").rank("dense") - 1
    ).unique("rank")
    keys = np.empty((len(group.hand_ids), 2), dtype=object)
    order = ranked["rank"].to_numpy().astype(np.int64)
    keys[order, 0] = ranked["site"].to_numpy()
    keys[order, 1] = ranked["hand_id"].to_numpy()
    if list(keys[:, 1]) != list(group.hand_ids):
        raise CalibrationError("rebuilt hands do not line up with the rows' hand ids")
    return keys


# -- the comparison -------------------------------------------------------------------------


def model_against_data(frame: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """Per group of ``by``: decisions, hands and players; each move's observed frequency
    with its Wilson 95% interval and the model's mean predicted frequency; KL(observed ||
    predicted) in nats; ``z``, the largest |observed - predicted| over the three moves in
    standard errors of a proportion at the predicted frequency (the score test the Wilson
    interval inverts, so ``z > 1.96`` exactly when a prediction is outside its interval);
    ``unreliable`` when one is; ``weight`` = decisions x KL. Worst (largest weight) first.

    ``frame`` is decision rows joined with :func:`predicted_actions` (columns ``action``,
    ``site``, ``hand_id``, ``player_id``, ``p_fold``, ``p_call``, ``p_raise`` and ``by``).
    A fold with nothing to call (``to_call`` 0, a free fold some sites allow) counts as a
    check, the action the model plays for it."""
    by = list(by)
    needed = ["action", "site", "hand_id", "player_id", *PREDICTED_COLUMNS, *by]
    missing = [c for c in dict.fromkeys(needed) if c not in frame.columns]
    if missing:
        raise CalibrationError(f"frame lacks columns {missing}: join rows with predicted_actions")
    if not by:
        raise CalibrationError("by needs at least one column to group on")
    if frame.select(pl.any_horizontal(pl.col(*PREDICTED_COLUMNS).is_null()).any()).item():
        raise CalibrationError("some rows have no prediction: inner-join rows and predictions")
    action = pl.col("action").cast(pl.String)
    if "to_call" in frame.columns:
        free_fold = (action == "fold") & (pl.col("to_call") == 0)
        action = pl.when(free_fold).then(pl.lit("check-call")).otherwise(action)
    unknown = frame.select(action.is_in(ROW_ACTIONS).not_().sum()).item()
    if unknown:
        raise CalibrationError(f"{unknown} rows have an action outside {ROW_ACTIONS}")
    counts = [
        (action == name).cast(pl.Int64).sum().alias(f"hits_{move}")
        for move, name in zip(MOVES, ROW_ACTIONS, strict=True)
    ]
    table = (
        frame.group_by(by)
        .agg(
            pl.len().alias("decisions"),
            pl.struct("site", "hand_id").n_unique().alias("hands"),
            pl.col("player_id").n_unique().alias("players"),
            *counts,
            *[
                pl.col(c).mean().alias(f"predicted_{m}")
                for m, c in zip(MOVES, PREDICTED_COLUMNS, strict=True)
            ],
        )
        .sort(by)
    )
    return _with_figures(table, by)


def _with_figures(table: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Observed frequencies, intervals, KL, z, the flag and the weight of a count table."""
    n = table["decisions"].to_numpy().astype(np.float64)
    observed = np.stack([table[f"hits_{m}"].to_numpy() / n for m in MOVES], axis=1)
    predicted = np.stack([table[f"predicted_{m}"].to_numpy() for m in MOVES], axis=1)
    predicted = predicted / predicted.sum(axis=1, keepdims=True)
    kl = kl_divergence(observed, predicted)
    z = calibration_z(observed, predicted, n)
    columns: dict[str, Floats] = {}
    outside = np.zeros(table.height, dtype=np.bool_)
    for i, move in enumerate(MOVES):
        hits = table[f"hits_{move}"].to_list()
        bounds = np.array(
            [wilson_interval(int(h), int(c)) for h, c in zip(hits, n.tolist(), strict=True)]
        ).reshape(-1, 2)
        columns[f"observed_{move}"] = observed[:, i]
        columns[f"observed_{move}_low"] = bounds[:, 0]
        columns[f"observed_{move}_high"] = bounds[:, 1]
        columns[f"predicted_{move}"] = predicted[:, i]
        outside |= (predicted[:, i] < bounds[:, 0]) | (predicted[:, i] > bounds[:, 1])
    result = table.select(*by, "decisions", "hands", "players").with_columns(
        **{name: pl.Series(values) for name, values in columns.items()},
        kl=pl.Series(kl),
        z=pl.Series(z),
        unreliable=pl.Series(outside),
        weight=pl.Series(n * kl),
    )
    return result.sort(["weight", *by], descending=[True, *([False] * len(by))])


def kl_divergence(observed: Floats, predicted: Floats) -> Floats:
    """Per row KL(observed || predicted) in nats over the moves (0 log 0 = 0; predicted
    floored at :data:`PROBABILITY_FLOOR`)."""
    safe = np.log(np.maximum(predicted, PROBABILITY_FLOOR))
    terms = np.where(observed > 0, observed * (np.log(np.maximum(observed, 1e-300)) - safe), 0.0)
    result: Floats = np.maximum(terms.sum(axis=1), 0.0)
    return result


def calibration_z(observed: Floats, predicted: Floats, n: Floats) -> Floats:
    """Per row the largest |observed - predicted| over the moves in standard errors of a
    proportion at the predicted frequency, sqrt(p (1 - p) / n) (0 where they agree
    exactly, infinite where the model rules out what was seen)."""
    gap = np.abs(observed - predicted)
    se = np.sqrt(predicted * (1 - predicted) / n[:, None])
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(gap == 0, 0.0, np.where(se > 0, gap / se, math.inf))
    result: Floats = z.max(axis=1)
    return result
