"""Raise caps from the rows' support: the sizes the data saw answered, per street."""

from __future__ import annotations

import polars as pl
import pytest

from poolshark.engine.actions import ActionSet
from poolshark.population.support import facing_sizes, raise_caps, support_table


def decisions(hands: list[list[tuple[str, int, float | None]]]) -> pl.DataFrame:
    """Rows of handmade hands: per decision (street, to_call, raise_pot or None)."""
    rows = [
        {
            "site": "test",
            "hand_id": str(hand),
            "action_index": index,
            "street": street,
            "to_call": to_call,
            "raise_pot": size,
        }
        for hand, actions in enumerate(hands)
        for index, (street, to_call, size) in enumerate(actions)
    ]
    return pl.DataFrame(rows, schema_overrides={"raise_pot": pl.Float32})


def test_facing_sizes_take_the_streets_last_raise_before_each_decision() -> None:
    """Preflop: an open (0.8), a call and a 3-bet (1.5) facing it, a fold facing the 3-bet;
    on the flop the checks face nothing, the check-raise (2.0) faces the bet (0.5) and the
    fold faces the check-raise; a second hand starts afresh."""
    rows = decisions(
        [
            [
                ("preflop", 2, 0.8),
                ("preflop", 5, None),
                ("preflop", 5, 1.5),
                ("preflop", 12, None),
                ("flop", 0, None),
                ("flop", 0, 0.5),
                ("flop", 10, 2.0),
                ("flop", 30, None),
            ],
            [("preflop", 2, None), ("flop", 0, None)],
        ]
    )
    faced = facing_sizes(rows.sample(fraction=1.0, shuffle=True, seed=1))
    facing = [round(size, 3) for size in faced["facing"]]
    assert sorted(zip(faced["street"], facing, strict=True)) == [
        ("flop", 0.5),
        ("flop", 2.0),
        ("preflop", 0.8),
        ("preflop", 0.8),
        ("preflop", 1.5),
    ]


def test_caps_are_the_largest_size_enough_decisions_faced() -> None:
    """Flop raises faced: 0.5 three times, 3.0 twice, 40 once. Two decisions faced a raise
    of at least 3.0, so with a support of 2 the cap is 3.0 (40 is out); a support of 6 is
    more than the flop has and leaves the floor. Streets with no data get the floor."""
    hand = [("flop", 0, 0.5), ("flop", 5, None)]
    big = [("flop", 0, 3.0), ("flop", 9, None)]
    shove = [("flop", 0, 40.0), ("flop", 100, None)]
    rows = decisions([hand, hand, hand, big, big, shove])
    assert raise_caps(rows, min_support=2) == (1.0, 3.0, 1.0, 1.0)
    assert raise_caps(rows, min_support=1) == (1.0, 40.0, 1.0, 1.0)
    assert raise_caps(rows, min_support=6) == (1.0, 1.0, 1.0, 1.0)
    assert raise_caps(rows, min_support=4, floor=0.25) == (0.25, 0.5, 0.25, 0.25)
    table = support_table(rows, (1.0, 3.0, 1.0, 1.0)).to_dicts()
    assert table[1] == {
        "street": "flop",
        "faced": 6,
        "largest": 40.0,
        "cap": 3.0,
        "at_least_cap": 3,
    }
    ActionSet.of([0.5, 1.0], raise_caps=raise_caps(rows, min_support=2))  # a valid action set
    with pytest.raises(ValueError, match="min_support"):
        raise_caps(rows, min_support=0)
