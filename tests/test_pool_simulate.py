"""Pool simulation on the batched engine, the fast PokerStars writer and the run's files.

Simulated hands are replayed on the readable ``Table`` (every call amount, the results chip
for chip, the record a site would keep); the fast writer is compared byte for byte with
``write_pokerstars`` on thousands of hands (2 to 10 seats, short stacks, side pots); the
text reads back to the same records with no rejection and replays; the sidecar's hole
cards are those the text shows.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import replace
from functools import cache
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolshark.cards.card import format_cards
from poolshark.cards.combos import COMBO_INDEX
from poolshark.engine.table import Move, Table
from poolshark.histories.pokerstars import write_pokerstars_hands
from poolshark.histories.replay import record_from_table, replay
from poolshark.histories.split import parse_hand, read_hands, split_hands
from poolshark.pool import simulate as simulate_module
from poolshark.pool.pools import Pool, PoolSpec, build_pool, load_pool
from poolshark.pool.posterior import known_styles, label_decisions
from poolshark.pool.simulate import (
    FORCED,
    SimulatedHands,
    SimulationError,
    Simulator,
    concatenate,
    pokerstars_text,
    simulate,
    write_simulation,
)

MOVES = (Move.FOLD, Move.CHECK_CALL, Move.RAISE)


@cache
def pool_of(seats: int, players: int = 60) -> Pool:
    """A small pool of every shipped style at a table of ``seats``."""
    spec = PoolSpec(
        name=f"test-{seats}",
        players=players,
        seed=seats,
        seats=seats,
        mix={"zoom-reg": 3, "station": 2, "nit": 1, "tag": 1, "lag": 1, "maniac": 1},
    )
    return build_pool(spec, None)


@cache
def micro_hands() -> SimulatedHands:
    return simulate(load_pool("micro-zoom"), 3_000, seed=11)


@cache
def short_stack_hands() -> SimulatedHands:
    """Uneven stacks from one chip to 150 big blinds: short blinds, side pots, all-ins."""
    return simulate(pool_of(6), 1_500, seed=12, stack_range=(1, 300))


def replayed(hands: SimulatedHands, h: int) -> Table:
    """Hand ``h`` played again on a ``Table`` from its cards and log, amounts checked."""
    n = hands.seats
    cards = hands.cards[h]
    table = Table(
        hands.config,
        [int(s) for s in hands.stacks[h]],
        button=int(hands.button[h]),
        hole_cards=[[int(cards[2 * s]), int(cards[2 * s + 1])] for s in range(n)],
        board=[int(c) for c in cards[2 * n :]],
    )
    for seat, move, amount, _street, _flags in hands.actions(h):
        assert table.to_act == seat
        if move == 1:
            assert table.legal().call == amount
        table.act(MOVES[move], amount)
    assert table.done
    return table


# -- the hands ------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["micro", "short"])
def test_hands_replay_on_the_table_chip_for_chip(which: str) -> None:
    """Every hand replays on the readable engine to the same results, pot and board, and
    its record equals the one ``record_from_table`` makes of the replayed table with the
    hole cards of the seats shown (``showed``: losers may muck)."""
    hands = micro_hands() if which == "micro" else short_stack_hands()
    assert hands.coerced == 0
    names = hands.pool.player_names
    for h in range(0, len(hands), 3):
        table = replayed(hands, h)
        assert table.result is not None
        assert table.result.net == hands.net[h].tolist()
        assert table.total == hands.total[h].tolist()
        assert table.result.showdown == bool(hands.showdown[h])
        assert len(table.board) == hands.shown[h]
        record = hands.record(h)
        expected = record_from_table(
            table,
            site="PokerStars",
            hand_id=record.hand_id,
            names=[names[p] for p in hands.players[h]],
            time=record.time,
            table_name=record.table,
            max_seats=hands.seats,
            reveal="all",
            fast_fold=True,
        )
        shown = tuple(c if hands.showed[h, s] else () for s, c in enumerate(expected.hole_cards))
        assert record == replace(expected, hole_cards=shown)


def test_fast_fold_seating() -> None:
    """Distinct players at a table, drawn from the whole pool: seat-style shares near the
    pool's, buttons on every seat, every stack at the pool's depth, chips conserved."""
    hands = micro_hands()
    pool = hands.pool
    assert all(len(set(row)) == hands.seats for row in hands.players.tolist())
    assert (hands.styles == pool.player_styles[hands.players]).all()
    shares = np.bincount(hands.styles.ravel(), minlength=len(pool.styles)) / hands.styles.size
    assert np.abs(shares - pool.style_frequencies()).max() < 0.02
    assert set(hands.button.tolist()) == set(range(hands.seats))
    assert (hands.stacks == pool.stack).all()
    assert (hands.net.sum(axis=1) == 0).all()
    assert len(set(hands.players.ravel().tolist())) > 0.9 * pool.spec.players


def test_site_numbers_and_reproducibility() -> None:
    """Hand ids unique and increasing, clock never going back; the same seed gives the same
    hands however they are split into calls; another seed gives other hands."""
    pool = load_pool("tough-regs")
    whole = simulate(pool, 900, seed=5, tables=64)
    simulator = Simulator(pool, seed=5, tables=64)
    parts = concatenate([simulator.play(k) for k in (1, 299, 600)])
    for name in ("hand_id", "time", "table", "players", "cards", "net", "action_amount"):
        assert (getattr(whole, name) == getattr(parts, name)).all(), name
    assert (whole.action_start == parts.action_start).all()
    assert pokerstars_text(whole) == pokerstars_text(parts)
    assert (np.diff(whole.hand_id) > 0).all()
    assert (np.diff(whole.time) >= 0).all()
    other = simulate(pool, 900, seed=6, tables=64)
    assert not (other.cards == whole.cards).all()


def test_forced_checks_are_flagged_and_logs_feed_the_posterior() -> None:
    """The engine's check with everyone else all-in is flagged; the padded logs label
    every decision with an exact range that gives the real hole cards weight."""
    hands = short_stack_hands()
    assert (hands.action_flags & FORCED).any()
    sample = concatenate([simulate(load_pool("micro-zoom"), 150, seed=3)])
    logs = sample.action_logs()
    assert (logs.length == np.diff(sample.action_start)).all()
    weights = known_styles(sample.styles, len(sample.pool.styles))
    rows = label_decisions(
        sample.pool.bank,
        sample.config,
        sample.stacks,
        sample.button,
        sample.boards.astype(np.int64),
        logs,
        weights,
    )
    assert np.isfinite(rows).all()
    assert np.allclose(rows.sum(axis=1), 1.0, atol=1e-4)
    acting = sample.action_seat
    hand = np.repeat(np.arange(len(sample)), np.diff(sample.action_start))
    holes = sample.hole_cards[hand, acting]
    true_combo = COMBO_INDEX[holes[:, 0], holes[:, 1]]
    assert (rows[np.arange(rows.shape[0]), true_combo] > 0).all()


# -- the fast writer ------------------------------------------------------------------------


def test_fast_writer_equals_the_python_writer() -> None:
    """Byte for byte what ``write_pokerstars`` prints, on thousands of hands."""
    for hands in (micro_hands(), short_stack_hands()):
        assert pokerstars_text(hands).decode() == write_pokerstars_hands(hands.records())


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=st.integers(2, 10),
    seed=st.integers(0, 2**32 - 1),
    low=st.integers(1, 60),
    spread=st.integers(0, 400),
)
def test_fast_writer_on_any_table(seats: int, seed: int, low: int, spread: int) -> None:
    """Any table size and stack spread: the text equals the Python writer's, reads back to
    the same records and replays; chips are conserved."""
    hands = simulate(pool_of(seats), 60, seed=seed, tables=8, stack_range=(low, low + spread))
    assert (hands.net.sum(axis=1) == 0).all()
    text = pokerstars_text(hands)
    records = list(hands.records())
    assert text.decode() == write_pokerstars_hands(records)
    again = [parse_hand(raw) for raw in split_hands(io.BytesIO(text))]
    assert again == records
    for record in again:
        replay(record)


def test_text_reads_back_with_no_rejection_and_replays() -> None:
    hands = micro_hands()
    text = pokerstars_text(hands)
    raws = list(split_hands(io.BytesIO(text), source="sim.txt"))
    assert len(raws) == len(hands)
    records = [parse_hand(raw) for raw in raws]
    assert records == list(hands.records())
    for record, raw in zip(records[:1000], raws[:1000], strict=True):
        table = replay(record)
        assert table.result is not None, raw.line
    assert "PokerStars Zoom Hand #" in raws[0].text
    assert "Hold'em No Limit ($0.01/$0.02)" in raws[0].text
    assert f"Table '{hands.table_names[int(hands.table[0])]}' 6-max" in raws[0].text


# -- a run's files --------------------------------------------------------------------------


def test_run_files_sidecar_matches_the_shown_cards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PokerStars and PHH files read back to the same hands, the text being that of one
    simulation however it was stepped; every card the text shows is the sidecar's; the
    sidecar names every seat's player and style."""
    monkeypatch.setattr(simulate_module, "STEP_HANDS", 200)
    pool = load_pool("soft")
    summary = write_simulation(pool, 1_200, tmp_path, seed=7, format="both", hands_per_file=500)
    files = sorted((tmp_path / "pokerstars").iterdir())
    whole = pokerstars_text(simulate(pool, 1_200, seed=7))
    assert b"\n\n".join(f.read_bytes() for f in files) == whole
    assert summary.hands == 1_200
    assert summary.coerced == 0
    assert sorted(p.name for p in (tmp_path / "pokerstars").iterdir()) == [
        "hands-00000.txt",
        "hands-00001.txt",
        "hands-00002.txt",
    ]
    assert (tmp_path / "summary.json").exists()
    text_records = [
        parse_hand(raw)
        for path in sorted((tmp_path / "pokerstars").iterdir())
        for raw in read_hands(path)
    ]
    phh_records = [
        parse_hand(raw) for path in sorted((tmp_path / "phh").iterdir()) for raw in read_hands(path)
    ]
    assert len(text_records) == len(phh_records) == 1_200
    truth = pl.read_parquet(tmp_path / "truth" / "*.parquet")
    assert truth.height == 1_200 * pool.spec.seats
    assert set(truth["style"].unique().to_list()) == {s.name for s in pool.styles}
    styles = [pool.styles[i].name for i in pool.player_styles]
    names = dict(zip(pool.player_names, styles, strict=True))
    assert all(names[p] == s for p, s in truth.select("player", "style").iter_rows())
    cards, players = {}, {}
    for hand, seat, hole, player in truth.select("hand_id", "seat", "hole_cards", "player").rows():
        cards[hand, seat] = hole
        players[hand, seat] = player
    shown = 0
    for text_record, phh_record in zip(text_records, phh_records, strict=True):
        assert phh_record.actions == text_record.actions
        assert phh_record.hole_cards == text_record.hole_cards
        hand = int(text_record.hand_id)
        for seat, hole in zip(text_record.seats, text_record.hole_cards, strict=True):
            assert players[hand, seat.number] == seat.player
            if hole:
                shown += 1
                assert format_cards(hole) == cards[hand, seat.number]
    assert shown > 300


def test_run_refuses_a_used_folder_and_bad_requests(tmp_path: Path) -> None:
    pool = load_pool("micro-zoom")
    write_simulation(pool, 10, tmp_path, seed=1)
    with pytest.raises(SimulationError, match="already holds"):
        write_simulation(pool, 10, tmp_path, seed=1)
    with pytest.raises(SimulationError, match="format"):
        write_simulation(pool, 10, tmp_path / "x", format="html")  # type: ignore[arg-type]
    with pytest.raises(SimulationError, match="at least one hand"):
        write_simulation(pool, 0, tmp_path / "y")
    with pytest.raises(SimulationError, match="stack range"):
        Simulator(pool, stack_range=(50, 10))
    even = build_pool(
        PoolSpec(name="even", players=12, small_blind=2, big_blind=2, mix={"tag": 1}), None
    )
    with pytest.raises(SimulationError, match="small blind < big blind"):
        Simulator(even)


def test_hands_look_like_a_zoom_game() -> None:
    """A sanity check of realism: many hands end preflop, some reach showdown, and opening
    raises are mostly 2 to 4 big blinds."""
    hands = micro_hands()
    assert 0.2 < (hands.shown == 0).mean() < 0.7
    assert 0.05 < hands.showdown.mean() < 0.4
    opens: Counter[int] = Counter()
    for h in range(len(hands)):
        for _seat, move, amount, street, _flags in hands.actions(h):
            if move == 2 and street == 0:
                opens[amount] += 1
                break
    assert sum(opens[k] for k in range(4, 9)) > 0.85 * sum(opens.values())
