"""``poolshark spots ROWS``: population action frequencies by spot over ingested decision
rows, grouped and filtered by spot columns, or any Polars SQL query over them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import polars as pl
import typer
from rich.table import Table

from poolshark.analysis.profit import (
    action_profit,
    decision_profit,
    next_actions,
    with_next_action,
)
from poolshark.analysis.spots import (
    ACTION_COLUMNS,
    SPOT_COLUMNS,
    WEIGHTINGS,
    SpotFilter,
    Weighting,
    query_rows,
    spot_table,
    with_spots,
)
from poolshark.cli.common import JsonFlag, console, print_json, user_errors
from poolshark.histories.ingest import scan_rows

DEFAULT_BY = "street,pot_type"
HEADERS = {
    "n_decisions": "decisions",
    "n_hands": "hands",
    "n_players": "players",
    "n_players_below_min": "players < min",
    "players_in_pot": "in pot",
    "relative_position": "rel. pos",
}
"""Shorter headers for the terminal table."""


def spots_command(
    rows: Annotated[Path, typer.Argument(help="Folder written by `poolshark ingest --out`.")],
    by: Annotated[
        str, typer.Option("--by", help=f"Columns to group by, comma-separated: {SPOT_COLUMNS}.")
    ] = DEFAULT_BY,
    position: Annotated[
        str | None, typer.Option("--position", help="Positions, e.g. BTN,CO.")
    ] = None,
    pot_type: Annotated[
        str | None,
        typer.Option("--pot-type", help="unopened, limped, single-raised, 3-bet, 4-bet+."),
    ] = None,
    street: Annotated[
        str | None, typer.Option("--street", help="preflop, flop, turn, river.")
    ] = None,
    relative_position: Annotated[
        str | None, typer.Option("--relative-position", help="IP or OOP.")
    ] = None,
    players: Annotated[
        str | None, typer.Option("--players", help="Players in the pot at the decision, e.g. 2,3.")
    ] = None,
    depth: Annotated[
        str | None,
        typer.Option("--depth", help="Effective stack buckets (bb): <20, 20-40, ..., 125+."),
    ] = None,
    facing: Annotated[
        str | None,
        typer.Option(
            "--facing", help="Bet faced (fraction of pot): none, <0.4, 0.4-0.8, ..., all-in."
        ),
    ] = None,
    weighting: Annotated[
        str, typer.Option("--weighting", help="decisions (pooled) or players (mean of players).")
    ] = "decisions",
    min_player_decisions: Annotated[
        int,
        typer.Option(
            "--min-player-decisions", help="Leave out players with fewer decisions in a group."
        ),
    ] = 1,
    player: Annotated[
        str | None, typer.Option("--player", help="Only these player ids, comma-separated.")
    ] = None,
    min_decisions: Annotated[
        int, typer.Option("--min-decisions", help="Hide groups with fewer decisions.")
    ] = 1,
    sql: Annotated[
        str | None,
        typer.Option("--sql", help="A Polars SQL query over table `rows` (spot columns added)."),
    ] = None,
    profit: Annotated[
        bool,
        typer.Option(
            "--profit",
            help="Action profit: per spot and action, the bb won from the decision to the "
            "end of the hand (all-in EV adjusted), with its interval and dispersion.",
        ),
    ] = False,
    next_action: Annotated[
        bool,
        typer.Option(
            "--next",
            help="Next actions: per spot and action, how the next player to act answers.",
        ),
    ] = False,
    model: Annotated[
        Path | None,
        typer.Option(
            "--model",
            help="A population model checkpoint: its predicted frequencies beside the observed "
            "ones, with KL and z, worst spots first.",
        ),
    ] = None,
    draws: Annotated[
        int, typer.Option("--draws", help="--model: card pairs drawn from each range.", min=1)
    ] = 16,
    seed: Annotated[int, typer.Option("--seed", help="--model: seed of the card draws.")] = 0,
    csv: Annotated[Path | None, typer.Option("--csv", help="Also write the table as CSV.")] = None,
    parquet: Annotated[
        Path | None, typer.Option("--parquet", help="Also write the table as Parquet.")
    ] = None,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write the table as an HTML page.")
    ] = None,
    json_output: JsonFlag = False,
) -> None:
    """Action frequencies (fold, check-call, bet-raise) with 95% intervals by spot.

    Spots are defined in docs/analysis.md ("poolshark spots"). Every group reports its
    decisions, hands and players. --sql replaces the table with any query's result.
    """
    with user_errors():
        if weighting not in WEIGHTINGS:
            raise ValueError(f"unknown weighting {weighting!r}: use decisions or players")
        where = SpotFilter.parse(
            position=position,
            relative_position=relative_position,
            pot_type=pot_type,
            street=street,
            players_in_pot=players,
            depth=depth,
            facing=facing,
        )
        replacing = {
            "--sql": sql is not None,
            "--model": model is not None,
            "--profit": profit,
            "--next": next_action,
        }
        chosen = [name for name, on in replacing.items() if on]
        if len(chosen) > 1:
            raise ValueError(f"choose one of {', '.join(chosen)}")
        whole_hands = profit or next_action
        frame = _load(rows, None if whole_hands else player)
        if profit:
            frame = decision_profit(frame)
        if next_action:
            frame = with_next_action(frame)
        if whole_hands and player is not None:
            frame = frame.filter(pl.col("player_id").is_in(_ids(player)))
        frame = where.apply(with_spots(frame))
        groups = [name.strip() for name in by.split(",") if name.strip()]
        dropped: dict[str, int] | None = None
        if sql is not None:
            table = query_rows(frame, sql)
        elif profit:
            table = action_profit(frame, [*groups, "action"])
            table = table.filter(pl.col("decisions") >= min_decisions)
        elif next_action:
            table = next_actions(frame, [*groups, "action"])
            table = table.filter(pl.col("decisions") >= min_decisions)
        elif model is not None:
            table, dropped = _against_model(rows, frame, model, groups, draws=draws, seed=seed)
            table = table.filter(pl.col("decisions") >= min_decisions)
        else:
            mode: Weighting = "players" if weighting == "players" else "decisions"
            table = spot_table(
                frame, groups, weighting=mode, min_player_decisions=min_player_decisions
            ).filter(pl.col("n_decisions") >= min_decisions)
        _write(table, csv=csv, parquet=parquet)
        title = _title(rows, where, weighting, sql)
        if html is not None:
            from poolshark.report.spot_tables import spot_table_page  # lazy: loads matplotlib

            spot_table_page(table, title=title, command=_command(rows, by, sql)).write(html)
    if json_output:
        print_json(
            {
                "rows": str(rows),
                "decisions": frame.height,
                "by": None if sql is not None else groups,
                "filters": where.chosen(),
                "player": player,
                "weighting": weighting,
                "min_player_decisions": min_player_decisions,
                "min_decisions": min_decisions,
                "sql": sql,
                "model": None if model is None else str(model),
                "profit": profit,
                "next": next_action,
                "dropped": dropped,
                "groups": _plain(table),
            }
        )
        return
    if profit:
        console.print(terminal_table(profit_view(table), title=f"Action profit: {title}"))
        return
    if next_action:
        console.print(terminal_table(next_view(table), title=f"Next actions: {title}"))
        return
    if model is not None and sql is None:
        console.print(model_table(table, title=f"{title}: the model {model} against the data"))
        if dropped:
            console.print(f"rows the model cannot score, left out: {dropped}")
        return
    console.print(terminal_table(table, title=title))


def _against_model(
    rows: Path,
    frame: pl.DataFrame,
    checkpoint: Path,
    groups: list[str],
    *,
    draws: int,
    seed: int,
) -> tuple[pl.DataFrame, dict[str, int]]:
    """The model's predicted frequencies beside the observed ones per group of ``frame``
    (the chosen rows), and the rows it could not score (by reason). The model predicts
    over every row of the folder: it replays whole hands, so filters apply after."""
    from poolshark.analysis.calibration import (  # lazy: loads torch
        model_against_data,
        predict_actions,
    )

    found = predict_actions(scan_rows(rows).collect(), checkpoint, seed=seed, draws=draws)
    joined = frame.join(found.frame, on=["site", "hand_id", "action_index"], how="inner")
    return model_against_data(joined, groups), dict(found.dropped)


def model_table(table: pl.DataFrame, *, title: str) -> Table:
    """A rich table of the model against the data: per move ``observed (interval) →
    predicted``, then KL, z and the flag."""
    out = Table(title=title, title_justify="left")
    moves = ("fold", "call", "raise")
    keys = [c for c in table.columns if c not in MODEL_FIGURES and not c.startswith(MODEL_PREFIXES)]
    for column in [*keys, "decisions", *moves, "kl", "z", "unreliable"]:
        out.add_column(column, justify="left" if column in keys else "right")
    for record in table.iter_rows(named=True):
        cells = [str(record[c]) for c in keys] + [f"{record['decisions']:,}"]
        for move in moves:
            low, high = record[f"observed_{move}_low"], record[f"observed_{move}_high"]
            cells.append(
                f"{100 * record[f'observed_{move}']:.1f}% ({100 * low:.0f}-{100 * high:.0f})"
                f" → {100 * record[f'predicted_{move}']:.1f}%"
            )
        cells += [
            f"{record['kl']:.4f}",
            f"{record['z']:.1f}",
            "yes" if record["unreliable"] else "",
        ]
        out.add_row(*cells)
    return out


MODEL_FIGURES = ("decisions", "hands", "players", "kl", "z", "unreliable", "weight")
"""Columns of the model-against-data table that are figures, not group keys."""
MODEL_PREFIXES = ("observed_", "predicted_")


def profit_view(table: pl.DataFrame) -> pl.DataFrame:
    """The action-profit table for the terminal: the mean with its interval as text."""
    interval = pl.format(
        "{} ({} to {})",
        *(pl.col(c).round(2) for c in ("mean_bb", "low_bb", "high_bb")),
    ).alias("profit bb (95%)")
    return table.with_columns(interval).drop("mean_bb", "low_bb", "high_bb", "se_bb")


def next_view(table: pl.DataFrame) -> pl.DataFrame:
    """The next-actions table for the terminal: each answer's share with its interval."""
    slugs = ACTION_COLUMNS.values()
    return table.drop(*slugs).rename({f"{slug}_freq": slug for slug in slugs})


def _ids(player: str) -> list[str]:
    """Player ids from a comma-separated option."""
    return [part.strip() for part in player.split(",") if part.strip()]


def _load(rows: Path, player: str | None) -> pl.DataFrame:
    """The decision rows in folder ``rows``, of the given players if any."""
    if not rows.is_dir():
        raise ValueError(f"no rows folder at {rows}: give the --out folder of poolshark ingest")
    frame = scan_rows(rows)
    if player is not None:
        frame = frame.filter(pl.col("player_id").is_in(_ids(player)))
    collected = frame.collect()
    if collected.is_empty():
        who = f" of player(s) {player}" if player is not None else ""
        raise ValueError(f"no decision rows{who} in {rows / 'rows'}")
    return collected


def _write(table: pl.DataFrame, *, csv: Path | None, parquet: Path | None) -> None:
    """Write the table where asked (CSV has no enum or nested types: they become text)."""
    if csv is not None:
        csv.parent.mkdir(parents=True, exist_ok=True)
        table.with_columns(pl.col(pl.Enum, pl.Categorical).cast(pl.String)).write_csv(csv)
    if parquet is not None:
        parquet.parent.mkdir(parents=True, exist_ok=True)
        table.write_parquet(parquet)


def _plain(table: pl.DataFrame) -> list[dict[str, object]]:
    """The table as JSON-ready dicts (enums as text)."""
    return table.with_columns(pl.col(pl.Enum, pl.Categorical).cast(pl.String)).to_dicts()


def _title(rows: Path, where: SpotFilter, weighting: str, sql: str | None) -> str:
    """A one-line description of what the table shows."""
    if sql is not None:
        return f"SQL over the decision rows of {rows}"
    chosen = ", ".join(f"{k}={'/'.join(map(str, v))}" for k, v in where.chosen().items())
    return f"Spots of {rows} ({weighting}-weighted{'; ' + chosen if chosen else ''})"


def _command(rows: Path, by: str, sql: str | None) -> str:
    """The command that makes the table, for the page."""
    return f'poolshark spots {rows} --sql "{sql}"' if sql else f"poolshark spots {rows} --by {by}"


def terminal_table(table: pl.DataFrame, *, title: str) -> Table:
    """A rich table: spot columns, counts, and each action as ``share (low-high)``."""
    out = Table(title=title, title_justify="left")
    actions = [name for name in ACTION_COLUMNS.values() if f"{name}_low" in table.columns]
    hidden = {f"{a}_{end}" for a in actions for end in ("low", "high")}
    if "n_players_below_min" in table.columns and table["n_players_below_min"].sum() == 0:
        hidden.add("n_players_below_min")
    shown = [column for column in table.columns if column not in hidden]
    for column in shown:
        numeric = table.schema[column].is_numeric()
        header = HEADERS.get(column, column)
        out.add_column(header, justify="right" if numeric else "left")
    for record in table.iter_rows(named=True):
        out.add_row(*(_cell(record, column, actions) for column in shown))
    return out


def _cell(record: dict[str, object], column: str, actions: list[str]) -> str:
    """One cell's text; an action frequency with its interval, in percent."""
    value = record[column]
    if column in actions:
        low, high = record[f"{column}_low"], record[f"{column}_high"]
        if not isinstance(value, float):
            return "-"
        interval = (
            f" ({100 * low:.0f}-{100 * high:.0f})"
            if isinstance(low, float) and isinstance(high, float)
            else ""
        )
        return f"{100 * value:.1f}%{interval}"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, int):
        return f"{value:,}"
    return "-" if value is None else str(value)
