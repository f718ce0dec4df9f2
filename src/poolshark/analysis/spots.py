"""Spots: the situation of each decision row, and population frequencies by spot.

A *spot* is the tuple of :data:`SPOT_COLUMNS` computed for every decision row from the
rows alone (:func:`with_spots`, vectorised Polars over the hands ordered by
``action_index``):

* ``position``: the row's own (``BTN SB BB UTG ... CO``).
* ``relative_position``: ``IP`` or ``OOP``. Postflop: ``IP`` when the decider acts last
  postflop among the players who have not folded (all-in players count). Preflop, facing
  a raise: ``IP`` when the decider acts after the last raiser postflop (the big blind is
  in position on the small blind); preflop with no raise yet: the postflop rule.
  Postflop order is ``SB BB UTG UTG+1 UTG+2 MP MP+1 HJ CO BTN`` (heads-up the button acts
  last); seats that never show a row (a big blind given a walk) count by their position.
* ``pot_type``: by the preflop raises before the decision (preflop) or in the whole
  preflop (postflop): ``unopened`` (preflop, no raise and no call yet), ``limped`` (no
  raise, a call with chips in), ``single-raised`` (1), ``3-bet`` (2), ``4-bet+`` (3 or
  more). Every bet-raise row counts, a short all-in too.
* ``street`` and ``players_in_pot`` (the row's ``players_alive``: not folded, me included).
* ``depth``: the effective stack at the start of the hand, in big blinds, bucketed by
  :data:`DEPTH_EDGES`: ``min(mine, largest start stack of the other players not folded
  before the decision)``. A start stack is the stack at the player's first row plus what
  they posted before it (the ante, and the small blind for ``SB`` or a heads-up ``BTN``,
  the big blind for ``BB``; a dead blind posted from another seat is not seen). A player
  with no row in the hand has no known stack and is left out; with no other known stack
  the depth is my own.
* ``facing``: ``none`` when nobody has bet or raised on this street before the decision
  (blinds and limps are not bets faced: the small blind completing an unopened pot faces
  ``none``); otherwise the size of the last bet or raise of the street, as its row's
  ``raise_pot`` (the raise beyond a call over the pot after calling, so a pot-sized bet
  is 1.0), bucketed by :data:`FACING_EDGES`, or ``all-in`` when that bet put its maker
  all in.

:func:`spot_table` groups rows by any of these (and any other column) and reports each
action's frequency with a 95% interval, decision- or player-weighted, with the counts of
decisions, hands and players; :func:`query_rows` runs Polars SQL over the rows.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Literal

import polars as pl

from poolshark.histories.rows import ACTIONS, MAX_SEATS, POSITIONS, STREETS, position_name
from poolshark.pool.stats import Z_95

SPOT_COLUMNS: tuple[str, ...] = (
    "position",
    "relative_position",
    "pot_type",
    "street",
    "players_in_pot",
    "depth",
    "facing",
)
"""The columns that define a spot, in display order."""

RELATIVE_POSITIONS = ("IP", "OOP")
POT_TYPES = ("unopened", "limped", "single-raised", "3-bet", "4-bet+")
DEPTH_EDGES: tuple[float, ...] = (20.0, 40.0, 80.0, 125.0)
"""Effective-stack bucket edges in big blinds; a bucket holds ``[low, high)``."""
FACING_EDGES: tuple[float, ...] = (0.4, 0.8, 1.2, 2.0)
"""Facing-size bucket edges as ``raise_pot`` (fraction of the pot); ``[low, high)``."""
FACING_NONE = "none"
FACING_ALL_IN = "all-in"

POSTFLOP_ORDER = ("SB", "BB", "UTG", "UTG+1", "UTG+2", "MP", "MP+1", "HJ", "CO", "BTN")
"""Positions in postflop order of play: the last acts last."""

HAND = ("site", "hand_id")
"""The columns that identify a hand."""
Weighting = Literal["decisions", "players"]
WEIGHTINGS: tuple[str, ...] = ("decisions", "players")


def bucket_labels(edges: Sequence[float]) -> tuple[str, ...]:
    """``(20, 40) -> ("<20", "20-40", "40+")``: one label per ``[low, high)`` bucket."""
    shown = [f"{edge:g}" for edge in edges]
    middle = [f"{low}-{high}" for low, high in itertools.pairwise(shown)]
    return (f"<{shown[0]}", *middle, f"{shown[-1]}+")


DEPTHS = bucket_labels(DEPTH_EDGES)
FACINGS = (FACING_NONE, *bucket_labels(FACING_EDGES), FACING_ALL_IN)

SPOT_VALUES: Mapping[str, tuple[str, ...]] = {
    "position": POSITIONS,
    "relative_position": RELATIVE_POSITIONS,
    "pot_type": POT_TYPES,
    "street": STREETS,
    "depth": DEPTHS,
    "facing": FACINGS,
}
"""The allowed values of each categorical spot column (``players_in_pot`` is 2 to 10)."""

ACTION_COLUMNS: Mapping[str, str] = {action: action.replace("-", "_") for action in ACTIONS}
"""Each action's frequency column in a spot table (``check-call`` -> ``check_call``)."""


# -- the spot of each row ---------------------------------------------------------------------


def _bucket(value: pl.Expr, edges: Sequence[float], labels: Sequence[str]) -> pl.Expr:
    """The label of the ``[low, high)`` bucket of ``value`` (null stays null)."""
    bucket: pl.Expr = pl.when(value.is_not_null()).then(pl.lit(labels[-1]))
    for edge, label in reversed(list(zip(edges, labels, strict=False))):
        bucket = pl.when(value < edge).then(pl.lit(label)).otherwise(bucket)
    return bucket


def _seats() -> pl.DataFrame:
    """Every position of every table size: (players, other, other_rank)."""
    table = [
        (players, position_name(offset, 0, players))
        for players in range(2, MAX_SEATS + 1)
        for offset in range(players)
    ]
    return pl.DataFrame(
        {
            "players": [players for players, _ in table],
            "other": [name for _, name in table],
            "other_rank": [POSTFLOP_ORDER.index(name) for _, name in table],
        },
        schema={"players": pl.UInt8, "other": pl.Enum(POSITIONS), "other_rank": pl.Int8},
    )


def _rank(column: str) -> pl.Expr:
    """A position column's place in postflop order (0 = SB, 9 = BTN)."""
    return (
        pl.col(column)
        .cast(pl.String)
        .replace_strict(list(POSTFLOP_ORDER), list(range(len(POSTFLOP_ORDER))))
        .cast(pl.Int8)
    )


def with_spots(rows: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """The rows, ordered by hand and ``action_index``, plus the spot columns (see the module
    docstring for their exact meaning)."""
    hand = list(HAND)
    frame = rows.lazy().sort([*hand, "action_index"])
    is_preflop = pl.col("street") == "preflop"
    is_raise = pl.col("action") == "bet-raise"
    preflop_raise = (is_preflop & is_raise).cast(pl.Int32)
    limp = (is_preflop & (pl.col("action") == "check-call") & (pl.col("amount") > 0)).cast(pl.Int32)
    street_key = [*hand, "street"]

    def last_on_street(value: pl.Expr) -> pl.Expr:
        """``value`` of the street's last bet-raise before this row (null if none)."""
        return pl.when(is_raise).then(value).shift(1).forward_fill().over(street_key)

    frame = frame.with_columns(
        _raises=pl.when(is_preflop)
        .then(preflop_raise.cum_sum().over(hand) - preflop_raise)
        .otherwise(preflop_raise.sum().over(hand)),
        _limps=limp.cum_sum().over(hand) - limp,
        _faced_size=last_on_street(pl.col("raise_pot")),
        _faced_all_in=last_on_street(pl.col("all_in")),
        _raiser_rank=last_on_street(_rank("position")),
        _rank=_rank("position"),
        _forced=pl.col("ante")
        + pl.when(
            (pl.col("position") == "SB")
            | ((pl.col("position") == "BTN") & (pl.col("players") == 2))
        )
        .then(pl.col("small_blind"))
        .when(pl.col("position") == "BB")
        .then(pl.col("big_blind"))
        .otherwise(0),
    )
    starts = (
        frame.group_by([*hand, "position"])
        .agg(
            _start=pl.col("stack").sort_by("action_index").first()
            + pl.col("_forced").sort_by("action_index").first()
        )
        .rename({"position": "other"})
    )
    folds = frame.filter(pl.col("action") == "fold").select(
        *hand, pl.col("position").alias("other"), pl.col("action_index").alias("_folded")
    )
    others = (
        frame.select(*hand, "action_index", "players", "position")
        .join(_seats().lazy(), on="players")
        .filter(pl.col("other") != pl.col("position"))
        .join(folds, on=[*hand, "other"], how="left")
        .filter(pl.col("_folded").is_null() | (pl.col("_folded") > pl.col("action_index")))
        .join(starts, on=[*hand, "other"], how="left")
        .group_by([*hand, "action_index"])
        .agg(_last_rank=pl.col("other_rank").max(), _other_start=pl.col("_start").max())
    )
    mine = starts.rename({"other": "position", "_start": "_my_start"})
    frame = frame.join(others, on=[*hand, "action_index"], how="left").join(
        mine, on=[*hand, "position"], how="left"
    )
    raises = pl.col("_raises")
    effective = pl.min_horizontal(
        "_my_start", pl.col("_other_start").fill_null(pl.col("_my_start"))
    )
    in_position = (
        pl.when(is_preflop & pl.col("_raiser_rank").is_not_null())
        .then(pl.col("_rank") > pl.col("_raiser_rank"))
        .otherwise(pl.col("_last_rank").is_null() | (pl.col("_rank") > pl.col("_last_rank")))
    )
    spots = frame.with_columns(
        relative_position=pl.when(in_position).then(pl.lit("IP")).otherwise(pl.lit("OOP")),
        pot_type=pl.when(raises == 0)
        .then(
            pl.when(is_preflop & (pl.col("_limps") == 0))
            .then(pl.lit("unopened"))
            .otherwise(pl.lit("limped"))
        )
        .when(raises == 1)
        .then(pl.lit("single-raised"))
        .when(raises == 2)
        .then(pl.lit("3-bet"))
        .otherwise(pl.lit("4-bet+")),
        players_in_pot=pl.col("players_alive"),
        depth=_bucket(effective / pl.col("big_blind"), DEPTH_EDGES, DEPTHS),
        facing=pl.when(pl.col("_faced_all_in").fill_null(False))
        .then(pl.lit(FACING_ALL_IN))
        .when(pl.col("_faced_size").is_null())
        .then(pl.lit(FACING_NONE))
        .otherwise(_bucket(pl.col("_faced_size"), FACING_EDGES, bucket_labels(FACING_EDGES))),
    ).with_columns(
        pl.col(name).cast(pl.Enum(values))
        for name, values in SPOT_VALUES.items()
        if name not in ("position", "street")
    )
    helpers = [name for name in spots.collect_schema().names() if name.startswith("_")]
    return spots.drop(helpers).sort([*hand, "action_index"]).collect()


def _spotted(rows: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """The rows with their spot columns, computing them only where missing."""
    frame = rows.lazy()
    if set(SPOT_COLUMNS) <= set(frame.collect_schema().names()):
        return frame.collect()
    return with_spots(frame)


# -- filters ----------------------------------------------------------------------------------


def _split(text: str | None) -> tuple[str, ...] | None:
    """``"BTN, CO" -> ("BTN", "CO")``; None or blank -> None (any)."""
    if text is None:
        return None
    parts = tuple(part.strip() for part in text.split(",") if part.strip())
    return parts or None


@dataclass(frozen=True)
class SpotFilter:
    """The allowed values of each spot column; None allows any. Values are checked."""

    position: tuple[str, ...] | None = None
    relative_position: tuple[str, ...] | None = None
    pot_type: tuple[str, ...] | None = None
    street: tuple[str, ...] | None = None
    players_in_pot: tuple[int, ...] | None = None
    depth: tuple[str, ...] | None = None
    facing: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        for name, allowed in SPOT_VALUES.items():
            chosen = getattr(self, name)
            for value in chosen or ():
                if value not in allowed:
                    raise ValueError(f"unknown {name} {value!r}: use one of {', '.join(allowed)}")
        for count in self.players_in_pot or ():
            if not 2 <= count <= MAX_SEATS:
                raise ValueError(f"players in the pot must be 2 to {MAX_SEATS}, not {count}")

    @classmethod
    def parse(cls, **options: str | None) -> SpotFilter:
        """A filter from comma-separated option texts keyed by spot column."""
        unknown = set(options) - set(SPOT_COLUMNS)
        if unknown:
            raise ValueError(f"unknown spot columns {sorted(unknown)}: use {SPOT_COLUMNS}")
        values: dict[str, tuple[str, ...] | tuple[int, ...] | None] = {
            name: _split(text) for name, text in options.items()
        }
        players = values.get("players_in_pot")
        if players is not None:
            try:
                values["players_in_pot"] = tuple(int(p) for p in players)
            except ValueError:
                raise ValueError(
                    f"players in the pot must be whole numbers, not {players}"
                ) from None
        return cls(**values)  # type: ignore[arg-type]

    def chosen(self) -> dict[str, list[str] | list[int]]:
        """The constrained columns and their allowed values (JSON form)."""
        return {
            spec.name: list(getattr(self, spec.name))
            for spec in fields(self)
            if getattr(self, spec.name) is not None
        }

    def apply(self, frame: pl.DataFrame) -> pl.DataFrame:
        """The rows of ``frame`` (with spot columns) whose spot this filter allows."""
        chosen = self.chosen()
        if not chosen:
            return frame
        return frame.filter(
            *(
                pl.col(name).cast(pl.String).is_in([str(v) for v in allowed])
                for name, allowed in chosen.items()
            )
        )


# -- spot tables ------------------------------------------------------------------------------


def wilson_bounds(hits: pl.Expr, count: pl.Expr, z: float = Z_95) -> tuple[pl.Expr, pl.Expr]:
    """The Wilson score interval of ``hits / count`` as expressions (count > 0); the same
    figures as :func:`poolshark.pool.stats.wilson_interval`, over whole columns."""
    n = count.cast(pl.Float64)
    p = hits.cast(pl.Float64) / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * (p * (1 - p) / n + z2 / (4 * n * n)).sqrt() / (1 + z2 / n)
    low = pl.max_horizontal(0.0, pl.min_horizontal(p, centre - half))
    high = pl.min_horizontal(1.0, pl.max_horizontal(p, centre + half))
    return low, high


def _check_columns(frame: pl.DataFrame, names: Sequence[str], what: str) -> None:
    """Raise ``ValueError`` naming any of ``names`` that ``frame`` lacks."""
    have = frame.columns
    missing = [name for name in names if name not in have]
    if missing:
        raise ValueError(
            f"unknown {what} column(s) {', '.join(missing)}: use spot columns "
            f"({', '.join(SPOT_COLUMNS)}) or row columns"
        )


def spot_table(
    rows: pl.DataFrame | pl.LazyFrame,
    by: Sequence[str],
    *,
    where: SpotFilter | None = None,
    weighting: Weighting = "decisions",
    min_player_decisions: int = 1,
    values: Sequence[str] = (),
) -> pl.DataFrame:
    """One row per group of ``by``: ``n_decisions``, ``n_hands``, ``n_players``,
    ``n_players_below_min``, and per action (:data:`ACTION_COLUMNS`) its frequency with a
    95% interval (``fold``, ``fold_low``, ``fold_high``, ...).

    In each group, a player with fewer than ``min_player_decisions`` decisions there is
    left out (both weightings; the counts are of what is kept). ``decisions``: pooled
    counts, Wilson intervals. ``players``: every kept player counts once with their own
    frequency; the rate is the mean of the players' rates, the interval the normal one
    over players (sample standard deviation; none with a single player), clipped to
    [0, 1]. ``values``: numeric per-decision columns summarised as ``<v>_mean`` with a
    95% interval clustered by hand (``<v>_low``, ``<v>_high``), over kept decisions.
    """
    if weighting not in WEIGHTINGS:
        raise ValueError(f"unknown weighting {weighting!r}: use decisions or players")
    if min_player_decisions < 1:
        raise ValueError(
            f"the minimum decisions per player must be at least 1, not {min_player_decisions}"
        )
    frame = _spotted(rows)
    _check_columns(frame, by, "group")
    _check_columns(frame, values, "value")
    if where is not None:
        frame = where.apply(frame)
    keys = list(by) or ["_all"]
    frame = frame.with_columns(_all=pl.lit(True), _hand=pl.struct(*HAND))
    frame = frame.with_columns(_n_player=pl.len().over([*keys, "player_id"]))
    below = (
        frame.filter(pl.col("_n_player") < min_player_decisions)
        .group_by(keys)
        .agg(n_players_below_min=pl.col("player_id").n_unique())
    )
    kept = frame.filter(pl.col("_n_player") >= min_player_decisions)
    counts = kept.group_by(keys).agg(
        n_decisions=pl.len(),
        n_hands=pl.col("_hand").n_unique(),
        n_players=pl.col("player_id").n_unique(),
    )
    rate = _decision_rates if weighting == "decisions" else _player_rates
    rates = rate(kept, keys)
    table = counts.join(rates, on=keys).join(below, on=keys, how="left")
    for value in values:
        table = table.join(_clustered_mean(kept, keys, value), on=keys, how="left")
    table = table.with_columns(pl.col("n_players_below_min").fill_null(0).cast(pl.UInt32))
    first = [*by, "n_decisions", "n_hands", "n_players", "n_players_below_min"]
    table = table.select(*first, pl.exclude([*first, "_all"])).sort(list(by) or "n_decisions")
    return table


def _decision_rates(kept: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """Pooled frequency and Wilson interval of each action per group."""
    hits = kept.group_by(keys).agg(
        pl.len().alias("_n"),
        *(
            (pl.col("action") == action).sum().alias(f"_{name}")
            for action, name in ACTION_COLUMNS.items()
        ),
    )
    columns: list[pl.Expr] = []
    for name in ACTION_COLUMNS.values():
        low, high = wilson_bounds(pl.col(f"_{name}"), pl.col("_n"))
        columns += [
            (pl.col(f"_{name}") / pl.col("_n")).alias(name),
            low.alias(f"{name}_low"),
            high.alias(f"{name}_high"),
        ]
    return hits.select(*keys, *columns)


def _player_rates(kept: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """Mean over players of each player's action frequency, with the normal interval."""
    per_player = kept.group_by([*keys, "player_id"]).agg(
        (pl.col("action") == action).mean().alias(name) for action, name in ACTION_COLUMNS.items()
    )
    columns: list[pl.Expr] = []
    for name in ACTION_COLUMNS.values():
        mean = pl.col(name).mean()
        half = Z_95 * pl.col(name).std(ddof=1) / pl.len().cast(pl.Float64).sqrt()
        columns += [
            mean.alias(name),
            (mean - half).clip(0.0, 1.0).alias(f"{name}_low"),
            (mean + half).clip(0.0, 1.0).alias(f"{name}_high"),
        ]
    return per_player.group_by(keys).agg(columns)


def _clustered_mean(kept: pl.DataFrame, keys: Sequence[str], value: str) -> pl.DataFrame:
    """Mean of ``value`` per group with a 95% interval clustered by hand.

    The variance of the mean is ``G / (G - 1) * sum_h (sum of x - mean in hand h)^2 / n^2``
    over the group's ``G`` hands and ``n`` values (the cluster-robust standard error of a
    mean); no interval with a single hand.
    """
    data = kept.filter(pl.col(value).is_not_null()).with_columns(_x=pl.col(value).cast(pl.Float64))
    data = data.with_columns(_dev=pl.col("_x") - pl.col("_x").mean().over(keys))
    per_hand = data.group_by([*keys, "_hand"]).agg(
        _s=pl.col("_dev").sum(), _n=pl.len(), _x=pl.col("_x").sum()
    )
    n = pl.col("_n").sum().cast(pl.Float64)
    hands = pl.len().cast(pl.Float64)
    variance = hands / (hands - 1) * (pl.col("_s") ** 2).sum() / (n * n)
    mean = pl.col("_x").sum() / n
    half = pl.when(hands > 1).then(Z_95 * variance.sqrt())
    return per_hand.group_by(keys).agg(
        mean.alias(f"{value}_mean"),
        (mean - half).alias(f"{value}_low"),
        (mean + half).alias(f"{value}_high"),
    )


# -- SQL --------------------------------------------------------------------------------------


def query_rows(rows: pl.DataFrame | pl.LazyFrame, sql: str) -> pl.DataFrame:
    """Run a Polars SQL query over a table named ``rows``: the decision rows plus their
    spot columns. A bad query raises ``ValueError`` with Polars' message."""
    context = pl.SQLContext(rows=_spotted(rows), eager=True)
    try:
        result: pl.DataFrame = context.execute(sql)
    except (pl.exceptions.PolarsError, ValueError, TypeError) as error:
        raise ValueError(f"bad SQL: {error}") from None
    return result
