"""What bet sizes the data saw answered: raise caps that keep a model's exploiter in support.

A population model learns how players answer the bets they faced. Where no player in the
rows ever faced a raise as big as some size (a 100 big blind shove into a 1.5 big blind
pot, say), the model's answer is an extrapolation of its features, and an exploiter
trained against the model finds whatever that extrapolation gets wrong: in the first
honest headline, the model said opening shoves win +130 bb/100 and the players they were
fitted to took -250 bb/100 from them.

:func:`raise_caps` measures the support per street: the size of the bet or raise each
decision faced, in the rows' ``raise_pot`` measure (chips beyond the call over the pot
after calling, what :class:`~poolshark.engine.actions.ActionSet` means by "raise 1 pot"),
and returns the largest size that at least ``min_support`` decisions faced one at least as
big. An exploiter given these caps may raise that much and no more, so every bet it makes
has been answered ``min_support`` times in the data.
"""

from __future__ import annotations

import polars as pl

from poolshark.histories.rows import STREETS

MIN_SUPPORT = 100
"""Decisions that must have faced a raise at least as big as a capped size (the default)."""
FLOOR = 1.0
"""The smallest cap: a pot-sized raise stays allowed on a street with too little data."""


def facing_sizes(rows: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """(``street``, ``facing``): every decision that faced a bet or raise on its street, with
    that bet's size (the ``raise_pot`` of the street's last bet or raise before it)."""
    last_raise = (
        pl.col("raise_pot").shift(1).forward_fill().over("site", "hand_id", "street")
    ).alias("facing")
    return (
        rows.lazy()
        .sort("site", "hand_id", "action_index")
        .select("street", "to_call", last_raise)
        .filter((pl.col("to_call") > 0) & pl.col("facing").is_not_null())
        .select(pl.col("street").cast(pl.String), pl.col("facing").cast(pl.Float64))
        .collect()
    )


def raise_caps(
    rows: pl.DataFrame | pl.LazyFrame, *, min_support: int = MIN_SUPPORT, floor: float = FLOOR
) -> tuple[float, ...]:
    """Per street (preflop to river), the largest raise size that at least ``min_support``
    decisions of the rows faced a raise at least as big as; never below ``floor``."""
    if min_support < 1:
        raise ValueError(f"min_support must be at least 1, got {min_support}")
    if not floor > 0:
        raise ValueError(f"floor must be positive, got {floor}")
    faced = facing_sizes(rows)
    caps: list[float] = []
    for street in STREETS:
        sizes = faced.filter(pl.col("street") == street)["facing"].sort(descending=True)
        supported = float(sizes[min_support - 1]) if sizes.len() >= min_support else 0.0
        caps.append(max(supported, floor))
    return tuple(caps)


def support_table(rows: pl.DataFrame | pl.LazyFrame, caps: tuple[float, ...]) -> pl.DataFrame:
    """Per street: the decisions that faced a raise, the largest raise faced, and the cap
    with how many decisions faced a raise at least that big (for the report)."""
    faced = facing_sizes(rows)
    table = []
    for street, cap in zip(STREETS, caps, strict=True):
        sizes = faced.filter(pl.col("street") == street)["facing"]
        table.append(
            {
                "street": street,
                "faced": sizes.len(),
                "largest": float(sizes.max()) if sizes.len() else 0.0,  # type: ignore[arg-type]
                "cap": cap,
                "at_least_cap": int((sizes >= cap).sum()),
            }
        )
    return pl.DataFrame(table)
