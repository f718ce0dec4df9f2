"""Spot statistics: the rules on hands worked out by hand, positions by distance from the
button, size buckets to the chip, and the compiled pass against the record reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from poolshark.cli import app
from poolshark.pool.context import position_class
from poolshark.pool.simulate import pokerstars_text, simulate
from poolshark.pool.spots import N_SPOTS, SPOT_NAMES, six_max_position, size_bucket
from poolshark.pool.stats import (
    spot_statistics,
    spot_tally_hands,
    spot_tally_records,
    tally_files,
    wilson_interval,
)
from test_pool_simulate import pool_of
from test_pool_stats import three_bet_pot, walk


def test_spots_of_hands_worked_out_by_hand() -> None:
    """``three_bet_pot``: EP opens, MP folds, CO cold-calls, BTN squeezes, the blinds fold,
    EP folds to the 3-bet, CO calls; BTN c-bets the flop (20 into 44: medium) after CO
    checks, CO calls; both check the turn; CO bets the river, BTN calls. ``walk``: folds
    to the big blind."""
    tally = spot_tally_records([three_bet_pot(), walk()])
    expected = {  # (hits, opportunities); every other spot (0, 0)
        "open.EP": (1, 2),
        "limp.EP": (0, 2),
        "open.MP": (0, 1),
        "limp.MP": (0, 1),
        "open.CO": (0, 1),
        "limp.CO": (0, 1),
        "open.BTN": (0, 1),
        "limp.BTN": (0, 1),
        "open.SB": (0, 1),
        "limp.SB": (0, 1),
        "three_bet.MP": (0, 1),
        "three_bet.CO": (0, 1),
        "three_bet.BTN": (1, 1),
        "cold_call.MP": (0, 1),
        "cold_call.CO": (1, 1),
        "cold_call.BTN": (0, 1),
        "squeeze.BTN": (1, 1),
        "four_bet.SB": (0, 1),
        "four_bet.BB": (0, 1),
        "four_bet.EP": (0, 1),
        "four_bet.CO": (0, 1),
        "fold_to_three_bet.EP": (1, 1),
        "donk.flop": (0, 1),
        "cbet.flop": (1, 1),
        "fold_to_cbet.flop.medium": (0, 1),
        "check_raise.flop": (0, 1),
        "aggression.flop": (1, 2),
        "donk.turn": (0, 1),
        "cbet.turn": (0, 1),
        "aggression.river": (1, 2),
    }
    for index, name in enumerate(SPOT_NAMES):
        seen = (int(tally.hits[index]), int(tally.chances[index]))
        assert seen == expected.get(name, (0, 0)), name
    figures = spot_statistics(tally)
    assert figures["open.EP"].value == 0.5
    assert (figures["open.EP"].low, figures["open.EP"].high) == wilson_interval(1, 2)
    assert figures["squeeze.EP"].value is None


@given(st.integers(2, 10), st.data())
def test_positions_count_from_the_button(players: int, data: st.DataObject) -> None:
    """Up to six players the position class; beyond, seats with more than five players
    behind them are left out and the last three before the button are EP, MP, CO."""
    button = data.draw(st.integers(0, players - 1))
    seat = data.draw(st.integers(0, players - 1))
    at = six_max_position(seat, button, players)
    offset = (seat - button) % players
    if players <= 6 or offset < 3 or offset >= players - 3:
        assert at == position_class(seat, button, players)
    else:
        assert at == -1


def test_size_buckets_to_the_chip() -> None:
    assert size_bucket(39, 100) == 0
    assert size_bucket(40, 100) == 1  # 0.4 pot is medium
    assert size_bucket(80, 100) == 1  # 0.8 pot is medium
    assert size_bucket(81, 100) == 2
    assert size_bucket(1, 3) == 0
    assert size_bucket(2, 3) == 1
    assert size_bucket(3, 3) == 2


@pytest.mark.parametrize("seats", [2, 6, 9])
def test_arrays_and_records_count_the_same(seats: int) -> None:
    """The compiled pass equals the record reference (forced checks, short stacks)."""
    hands = simulate(pool_of(seats), 800, seed=seats, stack_range=(1, 300))
    fast, reference = spot_tally_hands(hands), spot_tally_records(hands.records())
    assert (fast.hits == reference.hits).all()
    assert (fast.chances == reference.chances).all()
    assert fast.chances.sum() > 1000
    assert fast.hands == reference.hands == 800


def test_files_count_the_spots(tmp_path: Path) -> None:
    """``tally_files`` counts the spots of every hand it reads, beside the HUD."""
    hands = simulate(pool_of(6), 300, seed=4)
    path = tmp_path / "hands.txt"
    path.write_bytes(pokerstars_text(hands))
    result = tally_files([path])
    assert result.spots.hands == result.tally.hands == 300
    assert (result.spots.chances == spot_tally_hands(hands).chances).all()
    assert result.spots.hits.shape == (N_SPOTS,)


def test_cli_stats_spots_json(tmp_path: Path) -> None:
    """``stats --spots --json`` adds every spot statistic, as counted from the records."""
    hands = simulate(pool_of(6), 400, seed=8)
    path = tmp_path / "hands.txt"
    path.write_bytes(pokerstars_text(hands))
    result = CliRunner().invoke(app, ["stats", str(path), "--spots", "--json"])
    assert result.exit_code == 0, result.stderr
    spots = json.loads(result.stdout)["spots"]
    assert list(spots) == list(SPOT_NAMES)
    expected = spot_tally_hands(hands)
    assert [s["count"] for s in spots.values()] == expected.chances.tolist()
    table = CliRunner().invoke(app, ["stats", str(path), "--spots"])
    assert "fold_to_cbet.flop.medium" in table.stdout
