"""Action profit and next actions: what a decision earned, and how the pool answered it.

Action profit of a decision is the deciding player's result from that decision to the end
of the hand, in big blinds: the chips the player ends the hand with less the chips the
player had just before deciding. With the rows' outcome columns (``stack_start``,
``invested``, ``won``; ``docs/histories.md``) that is ``won - invested + (stack_start -
stack)``: what came back from the pots, less everything put in, plus what had been put in
before this decision (blinds, antes, earlier bets), which is sunk by then. An uncalled bet
returned is never counted in ``invested``, so it is neither a cost nor a win.

All-in EV adjustment (``profit_ev_bb``): when a hand's betting ended before the river with
two or more players still in (so someone was all in and the board was run out) and every
live player's cards are known, the chips each live player won are replaced by the
expected chips over every runout of the board as it stood when the betting ended: each
pot (main and side pots, layered by contributions, rake taken from the main pot first, as
the engine pays) times the player's exact equity in it among the players eligible for
it, every other known hole card of the hand dead (as ``Table`` settles by expected
value). That covers heads-up and multiway all-ins and side pots alike. A hand where it
cannot be done (cards not shown, a player with no decision rows such as one all in from
posting a blind, winnings not recorded) keeps ``profit_ev_bb == profit_bb``.

Next actions: for each decision, the next decision in the same hand by another player (the
pool's answer, one step ahead), and its frequencies by spot with Wilson intervals.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import polars as pl

from poolshark.cards.combos import combo_index
from poolshark.cards.ranges import Range
from poolshark.engine.pots import side_pots, take_rake
from poolshark.equity.exact import exact_equity
from poolshark.histories.rows import ACTIONS
from poolshark.pool.stats import Z_95, wilson_interval

HAND = ("site", "hand_id")
"""The columns that identify a hand."""

OUTCOME_COLUMNS = ("stack_start", "invested", "won")
"""The row columns action profit is computed from (added to the rows for it)."""

ROW_INPUTS = (
    *HAND, "action_index", "seat", "players", "big_blind", "stack", "street", "board",
    "hole_cards", "players_alive", "action",
)  # fmt: skip
"""The other row columns :func:`decision_profit` reads (the all-in adjustment's)."""


def decision_profit(rows: pl.DataFrame) -> pl.DataFrame:
    """The rows plus ``profit_bb`` and ``profit_ev_bb`` (Float64) per decision.

    Both are null where the hand's winnings are not recorded (``won`` null). Every row of
    a hand must be present for the all-in adjustment (it needs each player's chips in the
    pots): compute profit before filtering rows to a spot.
    """
    missing = [c for c in OUTCOME_COLUMNS if c not in rows.columns]
    if missing:
        raise ValueError(
            f"the rows lack {', '.join(missing)}: re-ingest them with this version"
            " (the outcome columns were added for action profit)"
        )
    _check_columns(rows, ROW_INPUTS)
    chips = pl.col("won") - pl.col("invested") + pl.col("stack_start") - pl.col("stack")
    bb = pl.col("big_blind").cast(pl.Float64)
    with_profit = rows.with_columns((chips.cast(pl.Float64) / bb).alias("profit_bb"))
    adjustment = all_in_adjustments(rows)
    return (
        with_profit.join(
            adjustment, on=[*HAND, "seat"], how="left", nulls_equal=True, maintain_order="left"
        )
        .with_columns(
            (pl.col("profit_bb") + pl.col("ev_delta").fill_null(0.0) / bb).alias("profit_ev_bb")
        )
        .drop("ev_delta")
    )


def all_in_adjustments(rows: pl.DataFrame) -> pl.DataFrame:
    """Per (site, hand_id, seat) of the hands the all-in adjustment applies to, ``ev_delta``:
    expected chips won over the runouts less the chips actually won (see the module
    docstring for when it applies)."""
    schema = {"site": pl.String, "hand_id": pl.String, "seat": pl.UInt8, "ev_delta": pl.Float64}
    if rows.is_empty():
        return pl.DataFrame(schema=schema)
    per_seat = (
        rows.sort([*HAND, "action_index"])
        .group_by([*HAND, "seat"], maintain_order=True)
        .agg(
            pl.col("players").first(),
            pl.col("invested").first(),
            pl.col("won").first(),
            pl.col("hole_cards").first(),
            (pl.col("action").last() == "fold").alias("folded"),
            pl.col("action_index").last().alias("last_index"),
        )
    )
    last = (
        rows.sort([*HAND, "action_index"])
        .group_by(HAND, maintain_order=True)
        .agg(
            pl.col("street").last().alias("end_street"),
            pl.col("board").last().alias("end_board"),
            (pl.col("players_alive").last() - (pl.col("action").last() == "fold").cast(pl.UInt8))
            .cast(pl.Int64)
            .alias("alive_at_end"),
        )
    )
    hands = (
        per_seat.group_by(HAND, maintain_order=True)
        .agg(
            pl.len().alias("seats_seen"),
            pl.col("players").first(),
            pl.col("won").is_null().any().alias("won_unknown"),
            (~pl.col("folded") & pl.col("hole_cards").is_null()).any().alias("cards_unknown"),
        )
        .join(last, on=HAND)
        .filter(
            (pl.col("end_street") != "river")
            & (pl.col("alive_at_end") >= 2)
            & (pl.col("seats_seen") == pl.col("players").cast(pl.UInt32))
            & ~pl.col("won_unknown")
            & ~pl.col("cards_unknown")
        )
        .select(*HAND, "end_board")
    )
    chosen = per_seat.join(hands, on=HAND)
    out: list[dict[str, Any]] = []
    for (site, hand_id), seats in chosen.group_by(HAND, maintain_order=True):
        out.extend(_hand_deltas(str(site), str(hand_id), seats))
    return pl.DataFrame(out, schema=schema)


def _hand_deltas(site: str, hand_id: str, seats: pl.DataFrame) -> list[dict[str, Any]]:
    """One all-in hand's ``ev_delta`` per seat, from its seats' outcome and cards."""
    seat_ids = seats["seat"].to_list()
    invested = [int(v) for v in seats["invested"].to_list()]
    won = [int(v) for v in seats["won"].to_list()]
    live = [not f for f in seats["folded"].to_list()]
    cards = seats["hole_cards"].to_list()
    board = tuple(int(c) for c in seats["end_board"][0])
    rake = sum(invested) - sum(won)
    expected = [0.0] * len(seat_ids)
    for pot in take_rake(side_pots(invested, live), rake):
        eligible = list(pot.eligible)
        dead = tuple(c for s, hole in enumerate(cards) if hole and s not in eligible for c in hole)
        shares = (
            (1.0,)
            if len(eligible) == 1
            else pot_equity(tuple(tuple(int(c) for c in cards[s]) for s in eligible), board, dead)
        )
        for s, share in zip(eligible, shares, strict=True):
            expected[s] += pot.amount * share
    return [
        {"site": site, "hand_id": hand_id, "seat": seat_ids[s], "ev_delta": expected[s] - won[s]}
        for s in range(len(seat_ids))
        if live[s]
    ]


@lru_cache(maxsize=4096)
def pot_equity(
    holes: tuple[tuple[int, ...], ...], board: tuple[int, ...], dead: tuple[int, ...]
) -> tuple[float, ...]:
    """Exact share of a pot of each known hand over every completion of ``board``."""
    ranges = [Range.of_combos([combo_index(a, b)]) for a, b in holes]
    return exact_equity(ranges, board, dead).equities


# -- action profit by group --------------------------------------------------------------------


def action_profit(
    rows_with_profit: pl.DataFrame, by: Sequence[str], *, value: str = "profit_ev_bb"
) -> pl.DataFrame:
    """Per group of ``by``: mean of ``value`` (bb per decision) with a 95% interval.

    The interval is normal with the standard error clustered by hand (decisions of one
    hand share its result, so they are not independent); ``std_bb`` is the plain sample
    standard deviation of the decisions (the dispersion). Decisions whose value is null
    (winnings not recorded) are left out and counted in ``unknown``. Columns: ``by``,
    ``decisions``, ``hands``, ``players``, ``unknown``, ``mean_bb``, ``low_bb``,
    ``high_bb``, ``std_bb``, ``se_bb``.
    """
    keys = list(by)
    _check_columns(rows_with_profit, [*keys, *HAND, "player_id", value])
    known = rows_with_profit.filter(pl.col(value).is_not_null())
    unknown = (
        rows_with_profit.filter(pl.col(value).is_null())
        .group_by(keys)
        .agg(pl.len().alias("unknown"))
    )
    x = pl.col(value)
    groups = known.group_by(keys).agg(
        pl.len().alias("decisions"),
        pl.struct(HAND).n_unique().alias("hands"),
        pl.col("player_id").n_unique().alias("players"),
        x.mean().alias("mean_bb"),
        x.std().alias("std_bb"),
    )
    residuals = (
        known.join(groups.select(*keys, "mean_bb"), on=keys, nulls_equal=True)
        .group_by([*keys, *HAND])
        .agg((x - pl.col("mean_bb")).sum().alias("residual"))
        .group_by(keys)
        .agg((pl.col("residual") ** 2).sum().alias("squares"))
    )
    n = pl.col("decisions").cast(pl.Float64)
    g = pl.col("hands").cast(pl.Float64)
    se = (
        pl.when(pl.col("hands") >= 2)
        .then((g / (g - 1) * pl.col("squares")).sqrt() / n)
        .otherwise(None)
    )
    return (
        groups.join(residuals, on=keys, nulls_equal=True)
        .join(unknown, on=keys, how="full", coalesce=True, nulls_equal=True)
        .with_columns(
            pl.col("decisions", "hands", "players", "unknown").fill_null(0).cast(pl.UInt32),
            se.alias("se_bb"),
        )
        .with_columns(
            (pl.col("mean_bb") - Z_95 * pl.col("se_bb")).alias("low_bb"),
            (pl.col("mean_bb") + Z_95 * pl.col("se_bb")).alias("high_bb"),
        )
        .select(
            *keys, "decisions", "hands", "players", "unknown",
            "mean_bb", "low_bb", "high_bb", "std_bb", "se_bb",
        )
        .sort(keys, nulls_last=True)
    )  # fmt: skip


# -- next actions -------------------------------------------------------------------------------


def with_next_action(rows: pl.DataFrame) -> pl.DataFrame:
    """The rows sorted by hand and action, plus ``next_action`` and ``next_player_id``:
    the next decision in the same hand by another player (null when none: the hand ended,
    or only this player acted again)."""
    _check_columns(rows, [*HAND, "action_index", "seat", "action", "player_id"])
    ordered = rows.sort([*HAND, "action_index"])
    same_hand = (pl.col("site") == pl.col("site").shift(1)) & (
        pl.col("hand_id") == pl.col("hand_id").shift(1)
    )
    new_run = ~(same_hand & (pl.col("seat") == pl.col("seat").shift(1))).fill_null(False)
    hand_start = ~same_hand.fill_null(False)
    ordered = ordered.with_columns(
        new_run.cum_sum().alias("_run"), hand_start.cum_sum().alias("_hand")
    )
    runs = ordered.group_by("_run", maintain_order=True).agg(
        pl.col("_hand").first(), pl.col("action").first(), pl.col("player_id").first()
    )
    following = runs.select(
        pl.col("_run") - 1,
        pl.col("_hand").alias("_next_hand"),
        pl.col("action").alias("next_action"),
        pl.col("player_id").alias("next_player_id"),
    )
    joined = ordered.join(following, on="_run", how="left", maintain_order="left")
    same = pl.col("_next_hand") == pl.col("_hand")
    return joined.with_columns(
        pl.when(same).then(pl.col("next_action")).alias("next_action"),
        pl.when(same).then(pl.col("next_player_id")).alias("next_player_id"),
    ).drop("_run", "_hand", "_next_hand")


def next_actions(rows: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """Per group of ``by`` (normally including ``action``): how often the next player to
    act in the hand folds, checks or calls, bets or raises, with Wilson 95% intervals.

    ``answered`` counts the decisions that had a next decision by another player (the
    frequencies' denominator), ``ended`` those that had none (the hand ended), and
    ``decisions``, ``hands``, ``players`` all of the group's decisions. Rows that already
    carry ``next_action`` (:func:`with_next_action` run on whole hands before a filter)
    are grouped as they are.
    """
    keys = list(by)
    _check_columns(rows, keys)
    marked = rows if "next_action" in rows.columns else with_next_action(rows)
    answer = pl.col("next_action")
    counts = (
        marked.group_by(keys)
        .agg(
            pl.len().alias("decisions"),
            pl.struct(HAND).n_unique().alias("hands"),
            pl.col("player_id").n_unique().alias("players"),
            answer.is_not_null().sum().alias("answered"),
            answer.is_null().sum().alias("ended"),
            *[(answer == name).sum().alias(_slug(name)) for name in ACTIONS],
        )
        .sort(keys, nulls_last=True)
    )
    intervals: dict[str, list[float | None]] = {}
    answered = counts["answered"].to_list()
    for name in ACTIONS:
        slug = _slug(name)
        bounds = [
            wilson_interval(int(h), int(n)) if n else (None, None)
            for h, n in zip(counts[slug].to_list(), answered, strict=True)
        ]
        intervals[f"{slug}_freq"] = [
            h / n if n else None for h, n in zip(counts[slug], answered, strict=True)
        ]
        intervals[f"{slug}_low"] = [b[0] for b in bounds]
        intervals[f"{slug}_high"] = [b[1] for b in bounds]
    return counts.with_columns(
        pl.Series(name, values, dtype=pl.Float64) for name, values in intervals.items()
    )


def _slug(action: str) -> str:
    """An action's name as a column name: ``check-call`` -> ``check_call``."""
    return action.replace("-", "_")


def _check_columns(frame: pl.DataFrame, needed: Sequence[str]) -> None:
    """Raise ValueError naming every column of ``needed`` the frame lacks."""
    missing = [c for c in dict.fromkeys(needed) if c not in frame.columns]
    if missing:
        raise ValueError(f"the rows have no column {', '.join(map(repr, missing))}")
