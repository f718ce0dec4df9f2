"""Showdown like a real site: who shows first, who must show, who mucks, and every output
(text, records, ingested rows) carrying only the cards shown.

The compiled rule (``simulate_kernel.show_cards``) is checked on constructed hands and
against a plain reference written from the pots (``engine.pots.side_pots``) on simulated
hands with side pots; the mucking share follows each style's ``showdown`` parameters.
"""

from __future__ import annotations

import io
from dataclasses import replace
from functools import cache
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolshark.cards.evaluator import evaluate_indices
from poolshark.engine.pots import side_pots
from poolshark.histories.ingest import ingest, scan_rows
from poolshark.histories.pokerstars import write_pokerstars_hands
from poolshark.histories.replay import replay
from poolshark.histories.split import parse_hand, split_hands
from poolshark.pool.pools import Pool, PoolSpec, build_pool, load_pool
from poolshark.pool.simulate import (
    ALL_IN,
    FORCED,
    SimulatedHands,
    pokerstars_text,
    simulate,
)
from poolshark.pool.simulate_kernel import show_cards
from poolshark.pool.style import Showdown

RIVER = 3


def with_showdown(pool: Pool, muck_losing: float, show_uncontested: float) -> Pool:
    """``pool`` with every style's showdown parameters replaced."""
    rule = Showdown(muck_losing=muck_losing, show_uncontested=show_uncontested)
    styles = tuple(
        replace(s, spec=s.spec.model_copy(update={"showdown": rule})) for s in pool.styles
    )
    return Pool(pool.spec, styles, pool.player_names, pool.player_styles)


@cache
def mixed_pool(seats: int) -> Pool:
    spec = PoolSpec(
        name=f"showdown-{seats}",
        players=60,
        seed=seats,
        seats=seats,
        mix={"zoom-reg": 3, "station": 2, "nit": 1, "tag": 1, "lag": 1, "maniac": 1},
    )
    return build_pool(spec, None)


@cache
def side_pot_hands(muck_losing: float, show_uncontested: float) -> SimulatedHands:
    """Stations and maniacs at 9-handed tables with uneven stacks: many multiway
    showdowns, side pots, all-ins on every street."""
    spec = PoolSpec(name="loose-9", players=60, seed=1, seats=9, mix={"station": 3, "maniac": 1})
    pool = with_showdown(build_pool(spec, None), muck_losing, show_uncontested)
    return simulate(pool, 3_000, seed=21, tables=32, stack_range=(20, 400))


# -- the reference ----------------------------------------------------------------------------


def required_to_show(hands: SimulatedHands, h: int) -> tuple[list[int], set[int]]:
    """(the live seats in showing order, those the rules make show) of hand ``h``, from the
    pots: a hand must show when, in some pot it contests with another live player, no hand
    shown before it beats it; every live hand shows after an all-in before the river."""
    n = hands.seats
    actions = hands.actions(h)
    folded = {seat for seat, move, *_ in actions if move == 0}
    live = [s for s in range(n) if s not in folded]
    if not hands.showdown[h]:
        return live, set()
    voluntary = [a for a in actions if not a[4] & FORCED]
    last = voluntary[-1][3] if voluntary else 0
    raisers = [seat for seat, move, _, street, _ in voluntary if street == last and move == 2]
    first = raisers[-1] if raisers and raisers[-1] in live else (int(hands.button[h]) + 1) % n
    order = sorted(live, key=lambda s: (s - first) % n)
    if last < RIVER:
        return order, set(live)
    board = hands.boards[h].tolist()
    value = {s: evaluate_indices([*hands.hole_cards[h, s].tolist(), *board]) for s in live}
    contested = [
        pot.eligible
        for pot in side_pots(hands.total[h].tolist(), [s in live for s in range(n)])
        if len(pot.eligible) > 1
    ]
    shown: list[int] = []
    must: set[int] = set()
    for s in order:
        if any(
            s in eligible and all(value[q] <= value[s] for q in shown if q in eligible)
            for eligible in contested
        ):
            must.add(s)
        if s in must or hands.showed[h, s]:
            shown.append(s)
    return order, must


def contested_winners(hands: SimulatedHands, h: int) -> set[int]:
    """Seats that win chips from a pot two or more live players contest."""
    n = hands.seats
    folded = {seat for seat, move, *_ in hands.actions(h) if move == 0}
    live = [s not in folded for s in range(n)]
    board = hands.boards[h].tolist()
    winners: set[int] = set()
    for pot in side_pots(hands.total[h].tolist(), live):
        if len(pot.eligible) < 2 or pot.amount == 0:
            continue
        value = {
            s: evaluate_indices([*hands.hole_cards[h, s].tolist(), *board]) for s in pot.eligible
        }
        best = max(value.values())
        winners |= {s for s, v in value.items() if v == best}
    return winners


# -- constructed hands ---------------------------------------------------------------------


def showed_of(
    button: int,
    total: list[int],
    values: list[int],
    actions: list[tuple[int, int, int]],
    *,
    muck_losing: float = 1.0,
    uniform: float = 0.5,
) -> list[bool]:
    """The compiled rule on one hand: ``actions`` are (seat, move, street) with move 0 fold,
    1 check/call, 2 bet/raise; every seat plays a style with ``muck_losing``."""
    n = len(total)
    folded = {seat for seat, move, _ in actions if move == 0}
    showdown = np.array([n - len(folded) > 1])
    showed = np.zeros((1, n), dtype=np.bool_)
    show_cards(
        n,
        showdown,
        np.array([total], dtype=np.int64),
        np.array([button], dtype=np.int64),
        np.array([values], dtype=np.int64),
        np.array([0, len(actions)], dtype=np.int64),
        np.array([a[0] for a in actions], dtype=np.int64),
        np.array([a[1] for a in actions], dtype=np.int64),
        np.array([a[2] for a in actions], dtype=np.int64),
        np.zeros(len(actions), dtype=np.uint8),
        FORCED,
        np.zeros((1, n), dtype=np.int64),
        np.array([muck_losing]),
        np.array([0.0]),
        np.full((1, n), uniform),
        showed,
    )
    return showed[0].tolist()


# Three seats, button 0 (so seat 1 is first left of it); seat 0 folds preflop, seats 1
# and 2 see a river. Values: higher is better.
PREFLOP = [(0, 0, 0), (1, 1, 0), (2, 1, 0)]


def test_a_called_river_bet_shows_first_and_a_beaten_caller_mucks() -> None:
    bet_called = [*PREFLOP, (1, 1, RIVER), (2, 2, RIVER), (1, 1, RIVER)]
    assert showed_of(0, [0, 10, 10], [0, 100, 200], bet_called) == [False, False, True]
    assert showed_of(0, [0, 10, 10], [0, 300, 200], bet_called) == [False, True, True]
    # the same beaten caller shows when the style does not muck (draw above the share)
    assert showed_of(0, [0, 10, 10], [0, 100, 200], bet_called, muck_losing=0.4) == [
        False,
        True,
        True,
    ]


def test_a_checked_river_shows_from_the_left_of_the_button_and_ties_show() -> None:
    checked = [*PREFLOP, (1, 1, RIVER), (2, 1, RIVER)]
    # seat 1 shows first: seat 2, beaten, mucks; seat 2 better: both show
    assert showed_of(0, [0, 10, 10], [0, 200, 100], checked) == [False, True, False]
    assert showed_of(0, [0, 10, 10], [0, 100, 200], checked) == [False, True, True]
    assert showed_of(0, [0, 10, 10], [0, 150, 150], checked) == [False, True, True]
    # the order decides: checked, the worse hand left of the button shows first
    bet_called = [*PREFLOP, (1, 1, RIVER), (2, 2, RIVER), (1, 1, RIVER)]
    assert showed_of(0, [0, 10, 10], [0, 100, 200], bet_called)[1] is False
    # the first live player left of the button, skipping a folded seat
    assert showed_of(2, [0, 10, 10], [0, 100, 200], checked) == [False, True, True]
    assert showed_of(2, [0, 10, 10], [0, 200, 100], checked) == [False, True, False]


def test_every_live_hand_shows_after_an_all_in_before_the_river() -> None:
    all_in_turn = [*PREFLOP, (1, 2, 2), (2, 1, 2)]
    assert showed_of(0, [0, 50, 50], [0, 100, 200], all_in_turn) == [False, True, True]
    assert showed_of(0, [0, 50, 50], [0, 200, 100], all_in_turn) == [False, True, True]


def test_a_hand_beaten_for_the_main_pot_shows_to_claim_a_side_pot() -> None:
    """Seat 0 is all-in short with the best hand; seats 1 and 2 check the river down.
    Button 2: seat 0 shows first; seat 1 is beaten for the main pot but must show for
    the side pot, which seat 2, beaten by seat 1, then mucks."""
    actions = [(0, 2, 0), (1, 1, 0), (2, 1, 0), (1, 1, RIVER), (2, 1, RIVER)]
    totals = [50, 200, 200]
    assert showed_of(2, totals, [300, 200, 100], actions) == [True, True, False]
    # without the side pot (equal stacks) seat 1 and seat 2 would both muck
    assert showed_of(2, [200, 200, 200], [300, 200, 100], actions) == [True, False, False]


def test_an_uncontested_winner_shows_only_by_choice() -> None:
    walk = [(0, 2, 0), (1, 0, 0), (2, 0, 0)]
    n = 3
    for share, expected in ((0.0, False), (1.0, True)):
        showed = np.zeros((1, n), dtype=np.bool_)
        show_cards(
            n,
            np.array([False]),
            np.array([[4, 1, 2]], dtype=np.int64),
            np.array([0], dtype=np.int64),
            np.zeros((1, n), dtype=np.int64),
            np.array([0, 3], dtype=np.int64),
            np.array([a[0] for a in walk], dtype=np.int64),
            np.array([a[1] for a in walk], dtype=np.int64),
            np.array([a[2] for a in walk], dtype=np.int64),
            np.zeros(3, dtype=np.uint8),
            FORCED,
            np.zeros((1, n), dtype=np.int64),
            np.array([0.9]),
            np.array([share]),
            np.full((1, n), 0.5),
            showed,
        )
        assert showed[0].tolist() == [expected, False, False]


# -- simulated hands ------------------------------------------------------------------------


def test_the_compiled_rule_equals_the_reference_from_the_pots() -> None:
    """Always mucking when allowed, never showing uncontested: exactly the hands the rules
    require show. Never mucking, always showing: every live hand shows."""
    strict = side_pot_hands(1.0, 0.0)
    assert (strict.action_flags & ALL_IN).any()
    river_side_pots = 0
    for h in range(len(strict)):
        order, must = required_to_show(strict, h)
        assert {s for s in range(strict.seats) if strict.showed[h, s]} == must, h
        live = [s in order for s in range(strict.seats)]
        contested = [p for p in side_pots(strict.total[h].tolist(), live) if len(p.eligible) > 1]
        voluntary = [a for a in strict.actions(h) if not a[4] & FORCED]
        river_side_pots += len(contested) > 1 and voluntary[-1][3] == RIVER
    assert river_side_pots > 50
    loose = side_pot_hands(0.0, 1.0)
    assert (strict.cards == loose.cards).all()  # the draws never change the play
    for h in range(len(loose)):
        order, _ = required_to_show(loose, h)
        assert {s for s in range(loose.seats) if loose.showed[h, s]} == set(order)


@pytest.mark.parametrize("muck_losing", [0.3, 0.8])
def test_the_share_of_beaten_hands_mucked_follows_the_style(muck_losing: float) -> None:
    """Among hands the rules let muck, the share mucked is ``muck_losing``; among pots
    nobody contested, the share shown is ``show_uncontested``."""
    hands = side_pot_hands(muck_losing, 0.25)
    optional = mucked = 0
    for h in range(len(hands)):
        order, must = required_to_show(hands, h)
        if not hands.showdown[h]:
            continue
        for s in order:
            if s not in must:
                optional += 1
                mucked += not hands.showed[h, s]
    assert optional > 200
    share = mucked / optional
    assert abs(share - muck_losing) < 4 * np.sqrt(muck_losing * (1 - muck_losing) / optional)
    uncontested = ~hands.showdown
    shown = hands.showed[uncontested].any(axis=1).mean()
    assert abs(shown - 0.25) < 4 * np.sqrt(0.25 * 0.75 / uncontested.sum())


def test_shipped_styles_muck_and_show_as_configured() -> None:
    """Stations show beaten hands more often than regulars; micro-zoom's rows miss cards."""
    hands = simulate(load_pool("micro-zoom"), 3_000, seed=4)
    station = next(i for i, s in enumerate(hands.pool.styles) if s.name == "station")
    shares: dict[bool, list[int]] = {True: [0, 0], False: [0, 0]}
    for h in np.flatnonzero(hands.showdown).tolist():
        order, must = required_to_show(hands, h)
        for s in order:
            if s not in must:
                tally = shares[int(hands.styles[h, s]) == station]
                tally[0] += 1
                tally[1] += bool(hands.showed[h, s])
    station_rate = shares[True][1] / shares[True][0]
    others_rate = shares[False][1] / shares[False][0]
    assert station_rate > others_rate + 0.2


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=st.integers(2, 9),
    seed=st.integers(0, 2**32 - 1),
    low=st.integers(1, 80),
    spread=st.integers(0, 400),
    muck=st.sampled_from([0.0, 0.5, 0.9, 1.0]),
)
def test_text_parses_back_pots_add_up_and_only_shown_cards_appear(
    seats: int, seed: int, low: int, spread: int, muck: float
) -> None:
    """Any table and stacks: the text is the Python writer's and parses back to the same
    records, which replay; chips are conserved; every winner of a contested pot shows; a
    hand's cards appear exactly where they were shown, and the parsed records agree."""
    pool = with_showdown(mixed_pool(seats), muck, 0.3)
    hands = simulate(pool, 60, seed=seed, tables=8, stack_range=(low, low + spread))
    text = pokerstars_text(hands)
    records = list(hands.records())
    assert text.decode() == write_pokerstars_hands(records)
    again = [parse_hand(raw) for raw in split_hands(io.BytesIO(text))]
    assert again == records
    assert (hands.net.sum(axis=1) == 0).all()
    for h, record in enumerate(again):
        replay(record)
        assert record.winnings is not None
        assert sum(record.winnings) == record.total_pot == int(hands.total[h].sum())
        assert [len(c) == 2 for c in record.hole_cards] == hands.showed[h].tolist()
        for s in contested_winners(hands, h):
            assert hands.showed[h, s], (h, s)
        for s, cards in enumerate(record.hole_cards):
            if cards:
                assert list(cards) == hands.hole_cards[h, s].tolist()


def test_muck_lines_read_as_the_site_writes_them() -> None:
    """The show-down section says ``mucks hand``, the summary ``mucked`` (or ``collected``
    for a mucked hand that takes an uncontested side pot) and ``showed [..] and won``."""
    hands = side_pot_hands(0.9, 0.3)
    text = pokerstars_text(hands).decode()
    assert ": mucks hand\n" in text
    assert " mucked\n" in text
    assert "] and won (" in text
    assert "] and lost with " in text
    assert "doesn't show hand" in text
    uncontested_show = [
        line
        for hand in text.split("\n\n")
        if "*** SHOW DOWN ***" not in hand
        for line in hand.splitlines()
        if ": shows [" in line
    ]
    assert uncontested_show


def test_ingested_rows_carry_exactly_the_shown_cards(tmp_path: Path) -> None:
    """Ingesting the text yields hole cards on a seat's rows exactly where it showed."""
    hands = side_pot_hands(0.9, 0.3)
    (tmp_path / "sim.txt").write_bytes(pokerstars_text(hands))
    summary = ingest([tmp_path / "sim.txt"], tmp_path / "out", workers=1, backend="serial")
    assert summary.seen == len(hands)
    rows = (
        scan_rows(tmp_path / "out")
        .select("hand_id", "seat", pl.col("hole_cards").is_not_null().alias("known"))
        .unique()
        .collect()
    )
    index = {str(int(i)): h for h, i in enumerate(hands.hand_id)}
    assert rows.height > len(hands)
    mucked = 0
    for hand_id, seat, known in rows.iter_rows():
        h = index[hand_id]
        assert known == bool(hands.showed[h, seat]), (hand_id, seat)
        mucked += bool(hands.showdown[h]) and not known
    assert mucked > 0
