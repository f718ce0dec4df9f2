"""Where the exploit earns: an exploiter's edge against a field, split by preflop spot.

:func:`attribute_edge` plays a match of the exploiter in one seat against a field (the
true pool ``pool:NAME``, a population model checkpoint, any agent spec) and books every
hand under the exploiter's **first preflop decision**: its spot (the exploiter's position
and what it faces: unopened, limped, an open from a position, a 3-bet, a 4-bet or more;
or a walk, the big blind with no decision) and the action it took there (fold, call or
check, raise, all-in). Each hand belongs to exactly one (spot, action), so with N hands
and the exploiter's result ``r_h`` (big blinds, all-in EV adjusted) in hand ``h``

    contribution(spot) = 100 / N * sum of r_h over the hands in the spot   (bb/100)

and the contributions add up to the match's win rate, 100 * mean(r_h), exactly. The
interval of a contribution is the normal one of the mean of ``x_h = r_h * 1[h in spot]``
over all N hands (sample standard deviation / sqrt(N), +-1.96), the match's own estimator
applied to the spot's share of the result; hands are independent (stacks reset). Beside
it, per spot: how often it comes (Wilson interval), the exploiter's action shares there,
the average result of a hand in it, and what the field does in the same spot (its seats'
first preflop decisions in the same match) and how it answers the exploiter: how often
another player called or raised preflop after the exploiter's first action (against its
raises and all-ins: how often the steal or the shove is contested). A second split by the
street where the hand ended uses the same arithmetic.

Spots are read from the finished hands' action logs (a match observer,
:class:`~poolshark.evaluate.match.FinishedHands`) with the engine's own decision
contexts (:func:`~poolshark.pool.context.replay_contexts`: ``PREFLOP_FACING`` before the
seat's first action), batched over every seat of every finished hand.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import Agent
from poolshark.engine.kernel import (
    BUTTON,
    END_STREET,
    LOG_AMOUNT,
    LOG_LEN,
    LOG_MOVE,
    LOG_SEAT,
    LOG_STREET,
    PREFLOP,
    START,
)
from poolshark.evaluate.match import (
    Estimate,
    FinishedHands,
    MatchConfig,
    default_lineup,
    play_match,
)
from poolshark.pool.context import (
    MOVE_CALL,
    MOVE_FOLD,
    MOVE_RAISE,
    ActionLogs,
    Facing,
    Feature,
    Position,
    position_class,
    replay_contexts,
)
from poolshark.pool.stats import Z_95, wilson_interval

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

POSITIONS = tuple(position.name for position in Position)
"""Position names by :class:`~poolshark.pool.context.Position` value (EP is UTG at 6-max)."""
ACTIONS = ("fold", "call", "raise", "all-in", "none")
"""The first preflop action's classes; ``call`` includes a check, ``none`` is a walk."""
NO_ACTION = ACTIONS.index("none")
STREETS = ("preflop", "flop", "turn", "river")

WALK = 0
UNOPENED, LIMPED, VS_OPEN = 1, 2, 3  # VS_OPEN + opener's position: 3..8
VS_THREE_BET = VS_OPEN + len(Position)
VS_FOUR_BET = VS_THREE_BET + 1
SITUATIONS = (
    "walk",
    "unopened",
    "limped",
    *(f"vs open {name}" for name in POSITIONS),
    "vs 3-bet",
    "vs 4-bet+",
)
"""What a seat faces at its first preflop decision, by situation code."""

METHOD = (
    "each hand is booked under the exploiter's first preflop decision (its position, what "
    "it faces, the action it took); contribution = 100 x (sum of the exploiter's all-in-EV "
    "adjusted results in the spot's hands) / (all hands), so the contributions add up to "
    "the win rate exactly; 95% interval: +-1.96 x sd(x) / sqrt(hands) with "
    "x = result x [hand in spot] over all hands"
)


class AttributionError(ValueError):
    """An attribution that cannot be made as asked."""


# -- reading spots from finished hands ------------------------------------------------------


def seat_positions(seats: int) -> Int64s:
    """(seats,) position class of each offset from the button."""
    return np.array([int(position_class(o, 0, seats)) for o in range(seats)], dtype=np.int64)


def first_decisions(hands: FinishedHands) -> dict[str, Int64s | Floats]:
    """Every seat's first preflop decision in these finished hands, flattened (H * seats,).

    ``situation`` (a :data:`SITUATIONS` code), ``position``, ``action`` (an :data:`ACTIONS`
    index), ``owner`` (agent index), ``result`` and ``dealt`` (big blinds won, all-in EV
    adjusted and as dealt), ``street`` (where the hand ended), ``hand`` (the id the agents
    saw), ``seat``, and ``continued``: another seat called or raised preflop after it.
    """
    batch, tables = hands.batch, hands.tables
    config = batch.config
    seats, count = config.seats, tables.size
    length = batch.table[tables, LOG_LEN]
    width = max(1, int(length.max(initial=0)))
    log = batch.log[tables, :width]
    logs = ActionLogs(
        seat=np.ascontiguousarray(log[:, :, LOG_SEAT]),
        move=np.ascontiguousarray(log[:, :, LOG_MOVE]),
        amount=np.ascontiguousarray(log[:, :, LOG_AMOUNT]),
        street=np.ascontiguousarray(log[:, :, LOG_STREET]),
        length=np.ascontiguousarray(length),
    )
    button = batch.table[tables, BUTTON]
    start = batch.seat[tables, START]  # (H, seats)
    contexts = replay_contexts(config, start, button, logs)
    by_offset = seat_positions(seats)
    rows = np.arange(count)
    preflop = (np.arange(width)[None, :] < length[:, None]) & (logs.street == PREFLOP)

    raises = preflop & (logs.move == MOVE_RAISE)
    opener_seat = logs.seat[rows, raises.argmax(axis=1)]
    opener = by_offset[(opener_seat - button) % seats]  # meaningful only facing one raise

    mine = preflop[:, None, :] & (logs.seat[:, None, :] == np.arange(seats)[None, :, None])
    acted = mine.any(axis=2)  # (H, seats): False only in a walk
    first = mine.argmax(axis=2)
    entered = preflop & ((logs.move == MOVE_RAISE) | ((logs.move == MOVE_CALL) & (logs.amount > 0)))
    later = np.arange(width)[None, None, :] > first[:, :, None]
    others = logs.seat[:, None, :] != np.arange(seats)[None, :, None]
    continued = acted & (entered[:, None, :] & later & others).any(axis=2)
    at = (rows[:, None], first)
    facing = contexts[rows[:, None], first, Feature.PREFLOP_FACING].astype(np.int64)
    situation = np.select(
        [
            facing == Facing.UNOPENED,
            facing == Facing.LIMPED,
            facing == Facing.OPEN_RAISED,
            facing == Facing.THREE_BET,
        ],
        [UNOPENED, LIMPED, VS_OPEN + opener[:, None], VS_THREE_BET],
        VS_FOUR_BET,
    )
    move, amount = logs.move[at], logs.amount[at]
    action = np.select(
        [move == MOVE_FOLD, move == MOVE_CALL, amount >= start],
        [ACTIONS.index("fold"), ACTIONS.index("call"), ACTIONS.index("all-in")],
        ACTIONS.index("raise"),
    )
    big = config.big_blind
    position = by_offset[(np.arange(seats)[None, :] - button[:, None]) % seats]
    shape = (count, seats)
    return {
        "situation": np.where(acted, situation, WALK).ravel(),
        "position": position.ravel(),
        "action": np.where(acted, action, NO_ACTION).ravel(),
        "owner": hands.owners.ravel().astype(np.int64),
        "result": (hands.ev / big).ravel(),
        "dealt": (hands.net / big).ravel(),
        "street": np.broadcast_to(batch.table[tables, END_STREET][:, None], shape).ravel(),
        "hand": np.broadcast_to(hands.hand_ids[:, None], shape).ravel(),
        "seat": np.broadcast_to(np.arange(seats)[None, :], shape).ravel(),
        "continued": continued.ravel(),
    }


class SpotRecorder:
    """A match observer that keeps every seat's first preflop decision and result."""

    def __init__(self) -> None:
        self.parts: list[dict[str, Int64s | Floats]] = []

    def __call__(self, hands: FinishedHands) -> None:
        """Book a batch of finished hands."""
        self.parts.append(first_decisions(hands))

    def records(self) -> dict[str, Int64s | Floats]:
        """All booked seat-hands, concatenated in the order the hands finished."""
        if not self.parts:
            raise AttributionError("no hands were booked")
        return {key: np.concatenate([p[key] for p in self.parts]) for key in self.parts[0]}


# -- the decomposition ------------------------------------------------------------------------


def split_estimates(groups: Int64s, results: Floats, size: int) -> tuple[Floats, Floats]:
    """Per group ``g`` < ``size``: 100 * mean of ``results * 1[groups == g]`` over all hands
    and its standard error (sample sd over all hands / sqrt(hands)), in bb/100."""
    count = results.size
    sums = np.bincount(groups, weights=results, minlength=size)
    squares = np.bincount(groups, weights=results * results, minlength=size)
    mean = sums / count
    if count < 2:
        return 100.0 * mean, np.full(size, math.inf)
    variance = np.maximum(squares - count * mean * mean, 0.0) / (count - 1)
    return 100.0 * mean, 100.0 * np.sqrt(variance / count)


def _estimate(bb_per_100: float, stderr: float) -> dict[str, Any]:
    return Estimate(float(bb_per_100), float(stderr)).as_dict()


def _mean_interval(values: Floats) -> dict[str, Any]:
    """Mean of per-hand values (bb) with its normal 95% interval (None from one value)."""
    mean = float(values.mean())
    if values.size < 2:
        return {"mean": mean, "ci95": None}
    half = Z_95 * float(values.std(ddof=1)) / math.sqrt(values.size)
    return {"mean": mean, "ci95": [mean - half, mean + half]}


def _continues(continued: npt.NDArray[np.bool_]) -> dict[str, Any] | None:
    """How often another player called or raised after these hands' first action (Wilson
    interval); None without hands."""
    if continued.size == 0:
        return None
    hits = int(continued.sum())
    low, high = wilson_interval(hits, continued.size)
    return {"hands": int(continued.size), "share": hits / continued.size, "ci95": [low, high]}


def _shares(counts: Floats) -> dict[str, float]:
    """Action shares of the decisions counted (the played actions only: no ``none``)."""
    total = counts.sum()
    return {
        name: float(counts[a] / total) if total else 0.0
        for a, name in enumerate(ACTIONS)
        if name != "none"
    }


def attribute_records(exploiter_rows: dict[str, Any], field_rows: dict[str, Any]) -> dict[str, Any]:
    """The per-spot decomposition of the exploiter's result (one row per hand) beside the
    field's first-decision action shares; see the module docstring."""
    situation, position = exploiter_rows["situation"], exploiter_rows["position"]
    action, result = exploiter_rows["action"], exploiter_rows["result"]
    continued = exploiter_rows["continued"]
    aggressive = (action == ACTIONS.index("raise")) | (action == ACTIONS.index("all-in"))
    hands = int(result.size)
    if hands == 0:
        raise AttributionError("no hands to attribute")
    n_situations, n_actions = len(SITUATIONS), len(ACTIONS)
    size = len(POSITIONS) * n_situations
    spot = position * n_situations + situation
    spot_mean, spot_se = split_estimates(spot, result, size)
    cell_mean, cell_se = split_estimates(spot * n_actions + action, result, size * n_actions)
    counts = np.bincount(spot * n_actions + action, minlength=size * n_actions).reshape(
        size, n_actions
    )
    field_spot = field_rows["position"] * n_situations + field_rows["situation"]
    field_counts = np.bincount(
        field_spot * n_actions + field_rows["action"], minlength=size * n_actions
    ).reshape(size, n_actions)
    rows: list[dict[str, Any]] = []
    for k in np.flatnonzero(counts.sum(axis=1)).tolist():
        in_spot = spot == k
        n_spot = int(counts[k].sum())
        low, high = wilson_interval(n_spot, hands)
        by_action = [
            {
                "action": ACTIONS[a],
                "hands": int(counts[k, a]),
                "share": float(counts[k, a] / n_spot),
                "contribution": _estimate(cell_mean[k * n_actions + a], cell_se[k * n_actions + a]),
                "average_bb": _mean_interval(result[in_spot & (action == a)]),
                "field_continues": _continues(continued[in_spot & (action == a)]),
            }
            for a in np.flatnonzero(counts[k]).tolist()
        ]
        pos, sit = divmod(k, n_situations)
        rows.append(
            {
                "spot": f"{POSITIONS[pos]} {SITUATIONS[sit]}",
                "position": POSITIONS[pos],
                "facing": SITUATIONS[sit],
                "hands": n_spot,
                "frequency": n_spot / hands,
                "frequency_ci95": [low, high],
                "contribution": _estimate(spot_mean[k], spot_se[k]),
                "average_bb": _mean_interval(result[in_spot]),
                "exploiter_actions": _shares(counts[k]),
                "field_decisions": int(field_counts[k, :NO_ACTION].sum()),
                "field_actions": _shares(field_counts[k]),
                "field_continues_vs_raise": _continues(continued[in_spot & aggressive]),
                "by_action": by_action,
            }
        )
    street_mean, street_se = split_estimates(exploiter_rows["street"], result, len(STREETS))
    street_counts = np.bincount(exploiter_rows["street"], minlength=len(STREETS))
    streets = [
        {
            "street": STREETS[s],
            "hands": int(street_counts[s]),
            "frequency": float(street_counts[s] / hands),
            "contribution": _estimate(street_mean[s], street_se[s]),
        }
        for s in range(len(STREETS))
    ]
    total_se = float(result.std(ddof=1)) * 100.0 / math.sqrt(hands) if hands > 1 else math.inf
    return {
        "hands": hands,
        "total": _estimate(100.0 * float(result.mean()), total_se),
        "sum_of_contributions": float(sum(row["contribution"]["bb_per_100"] for row in rows)),
        "spots": rows,
        "streets": streets,
        "method": METHOD,
    }


def attribute_edge(
    exploiter: str,
    field: str,
    *,
    hands: int,
    seed: int,
    rake_percent: float = 0.0,
    rake_cap_bb: float | None = None,
    seats: int = 6,
    depth_bb: float = 100.0,
) -> dict[str, Any]:
    """Play ``exploiter`` in one seat against ``field`` in the rest (agent specs as
    :func:`~poolshark.agents.loading.load_agent` takes them) for ``hands`` table-hands
    (at least) and split its all-in-EV-adjusted win rate by preflop spot (JSON-able)."""
    if hands < 2:
        raise AttributionError(f"an attribution needs at least 2 hands, got {hands}")
    config = MatchConfig(
        hands=hands,
        seats=seats,
        seed=seed,
        depth_bb=depth_bb,
        rake_percent=rake_percent,
        rake_cap_bb=rake_cap_bb,
        tables=min(1024, hands),
    )
    figures = attribute_agents(load_agent(exploiter), load_agent(field), config)
    return {"exploiter": exploiter, "field": field, **figures}


def attribute_agents(exploiter: Agent, field: Agent, config: MatchConfig) -> dict[str, Any]:
    """:func:`attribute_edge` for agent objects and a match configuration."""
    recorder = SpotRecorder()
    match = play_match(
        [exploiter, field],
        default_lineup(2, config.seats, against=True),
        config,
        names=["exploiter", "field"],
        observer=recorder,
    )
    records = recorder.records()
    mine = records["owner"] == 0
    figures = attribute_records(
        {key: values[mine] for key, values in records.items()},
        {key: values[~mine] for key, values in records.items()},
    )
    own = match.agents[0]
    checked = own.ev_adjusted if own.ev_adjusted is not None else own.actual
    return {
        "seed": config.seed,
        "seats": config.seats,
        "depth_bb": config.depth_bb,
        "rake_percent": config.rake_percent,
        "rake_cap_bb": config.rake_cap_bb,
        "all_in_ev": str(config.all_in_ev),
        "match_total": checked.as_dict(),
        "dealt_total": own.actual.as_dict(),
        **figures,
    }


# -- model against pool ----------------------------------------------------------------------


def compare_attributions(
    against_model: dict[str, Any], against_pool: dict[str, Any]
) -> list[dict[str, Any]]:
    """The spots of both attributions joined (a spot missing from one counts 0 there), with
    the difference model - pool in bb/100, its interval (independent matches) and whether
    it excludes zero: an edge the model promises that the pool does not pay is
    over-exploitation made visible. Sorted by the size of the difference."""
    model = {row["spot"]: row for row in against_model["spots"]}
    pool = {row["spot"]: row for row in against_pool["spots"]}
    joined = []
    for spot in sorted(model.keys() | pool.keys()):
        sides = [model.get(spot), pool.get(spot)]
        rates = [0.0 if s is None else s["contribution"]["bb_per_100"] for s in sides]
        errors = [0.0 if s is None else s["contribution"]["stderr"] for s in sides]
        difference = rates[0] - rates[1]
        stderr = math.hypot(*errors)
        half = Z_95 * stderr
        joined.append(
            {
                "spot": spot,
                "model": rates[0],
                "pool": rates[1],
                "model_ci95": None if sides[0] is None else sides[0]["contribution"]["ci95"],
                "pool_ci95": None if sides[1] is None else sides[1]["contribution"]["ci95"],
                "difference": difference,
                "difference_ci95": [difference - half, difference + half],
                "disagree": bool(abs(difference) > half),
                "model_frequency": 0.0 if sides[0] is None else sides[0]["frequency"],
                "pool_frequency": 0.0 if sides[1] is None else sides[1]["frequency"],
                "model_field_actions": None if sides[0] is None else sides[0]["field_actions"],
                "pool_field_actions": None if sides[1] is None else sides[1]["field_actions"],
                "model_continues_vs_raise": _side(sides[0], "field_continues_vs_raise"),
                "pool_continues_vs_raise": _side(sides[1], "field_continues_vs_raise"),
            }
        )
    joined.sort(key=lambda row: -abs(row["difference"]))
    return joined


def _side(row: dict[str, Any] | None, key: str) -> Any:
    return None if row is None else row.get(key)
