"""Decision rows: the compiled builder against the ``Table``-based reference on real and
random hands, hand-checked values on a worked example, the encodings, and bad hands."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from poolshark.cards.card import parse_cards
from poolshark.engine.config import Betting, GameConfig
from poolshark.engine.table import ForcedBets, Move, Street, Table
from poolshark.histories.record import HandRecord, HistoryError, RecordedAction, Seat
from poolshark.histories.replay import record_from_table
from poolshark.histories.rows import (
    POSITIONS,
    ROW_SCHEMA,
    anonymize,
    build_rows,
    decision_rows,
    empty_rows,
    position_name,
    reference_rows,
)
from poolshark.histories.split import parse_hand, read_hands

SAMPLE = Path(__file__).parents[2] / "shared" / "data" / "handhq-ps25"


def sample_files() -> list[Path]:
    if not SAMPLE.is_dir():
        pytest.skip(f"the real PHH sample is not here: {SAMPLE}")
    return sorted(SAMPLE.glob("*.phhs"))


@pytest.fixture(scope="module")
def real_records() -> list[HandRecord]:
    """Every hand of the real sample that the reader accepts."""
    return [parse_hand(raw) for path in sample_files() for raw in read_hands(path)]


# -- random engine hands ----------------------------------------------------------------------


def random_table(rng: random.Random, index: int) -> Table:
    """A finished hand of random size, stacks, structure and actions (forced bets given per
    seat, as real histories do)."""
    n = rng.randint(2, 10)
    betting = rng.choice([Betting.NO_LIMIT, Betting.FIXED_LIMIT])
    config = GameConfig(seats=n, small_blind=1, big_blind=2, betting=betting)
    stacks = [rng.choice([rng.randint(1, 30), rng.randint(40, 400)]) for _ in range(n)]
    button = rng.randrange(n)
    blinds = [0] * n
    small, big = (button, (button + 1) % n) if n == 2 else ((button + 1) % n, (button + 2) % n)
    blinds[small], blinds[big] = 1, 2
    table = Table(config, stacks, button=button, seed=index, forced=ForcedBets(tuple(blinds)))
    while not table.done:
        legal = table.legal()
        roll = rng.random()
        if legal.can_fold and roll < 0.25:
            table.fold()
        elif legal.min_raise_to is not None and legal.max_raise_to is not None and roll < 0.5:
            table.raise_to(rng.randint(legal.min_raise_to, legal.max_raise_to))
        else:
            table.check_call()
    return table


def random_records(seed: int, count: int) -> list[HandRecord]:
    rng = random.Random(seed)
    return [
        record_from_table(random_table(rng, i), site="Sim", hand_id=f"{seed}-{i}", reveal="all")
        for i in range(count)
    ]


def test_rows_match_the_table_reference_on_random_hands() -> None:
    """2,000 random hands (2-10 players, no-limit and fixed-limit, short stacks, all-ins):
    every column of every row is the same from both builders."""
    records = random_records(7, 2000)
    fast = build_rows(records)
    slow = reference_rows(records)
    assert not fast.rejected
    assert not slow.rejected
    assert fast.frame.height > 10_000
    assert_frame_equal(fast.frame, slow.frame)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_rows_match_the_reference_for_any_seed(seed: int) -> None:
    """Hypothesis picks the seeds: the two builders agree on whatever hands they make."""
    records = random_records(seed, 20)
    assert_frame_equal(build_rows(records).frame, reference_rows(records).frame)


def test_rows_accept_the_checks_the_engine_asks_for_and_sites_omit() -> None:
    """A record that keeps the engine's check by the last player with chips (everyone else
    all-in) and one that leaves it out give the same rows but for that check's own row."""
    config = GameConfig(seats=3, small_blind=1, big_blind=2)
    forced = ForcedBets((2, 0, 1))  # seat 0 big blind, seat 2 small blind, button seat 1
    table = Table(config, [200, 2, 200], button=1, seed=1, forced=forced)
    table.check_call()  # the button calls all-in for 2
    table.fold()  # the small blind folds
    table.check_call()  # the big blind's check nobody could answer
    assert table.done
    kept = tuple(RecordedAction(a.street, a.seat, a.move, a.amount) for a in table.log)
    record = record_from_table(table, site="Sim", hand_id="1")
    assert len(record.actions) == 2  # the writer leaves the check out
    with_check = replace(record, hand_id="2", actions=kept)
    rows = build_rows([record, with_check])
    assert not rows.rejected
    assert rows.frame.group_by("hand_id").len().sort("hand_id")["len"].to_list() == [2, 3]
    assert_frame_equal(rows.frame, reference_rows([record, with_check]).frame)


# -- real hands --------------------------------------------------------------------------------


def test_rows_match_the_reference_on_every_real_hand(real_records: list[HandRecord]) -> None:
    """All ~3,000 hands of the real sample: same rows, same (no) rejections."""
    fast = build_rows(real_records)
    slow = reference_rows(real_records)
    assert fast.rejected.keys() == slow.rejected.keys() == set()
    assert fast.frame.height > 25_000
    assert_frame_equal(fast.frame, slow.frame)


def test_hole_cards_in_rows_are_the_cards_the_text_shows(real_records: list[HandRecord]) -> None:
    """Read straight from the PHH text (``pK sm CARDS``): every row of a player who showed
    carries those cards, and no other row carries any."""
    shown: dict[tuple[str, str], list[int]] = {}
    for path in sample_files():
        for raw in read_hands(path):
            hand = re.search(r"^hand = (\d+)", raw.text, re.M)
            names = re.search(r"^players = \[(.*)\]", raw.text, re.M)
            assert hand is not None
            assert names is not None
            players = re.findall(r"'([^']*)'", names.group(1))
            for number, cards in re.findall(r"'p(\d+) sm ([2-9TJQKA][cdhs]\S*)'", raw.text):
                player_id = anonymize("PokerStars", players[int(number) - 1])
                shown[hand.group(1), player_id] = parse_cards(cards)
    frame = build_rows(real_records).frame
    with_cards = frame.filter(pl.col("hole_cards").is_not_null())
    assert with_cards.height > 1000
    for hand_id, player_id, cards in with_cards.select(
        "hand_id", "player_id", "hole_cards"
    ).iter_rows():
        assert shown[hand_id, player_id] == cards
    keys = set(zip(frame["hand_id"], frame["player_id"], strict=True))
    known = {key for key in keys if key in shown}
    assert known == {tuple(k) for k in with_cards.select("hand_id", "player_id").iter_rows()}


# -- a worked example -------------------------------------------------------------------------


def worked_example() -> HandRecord:
    """Six players, blinds 10/25 (in cents), 100 bb stacks but the small blind's 10 bb.

    Preflop: UTG folds, HJ raises to 3 bb, CO folds, BTN calls, SB shoves 10 bb, BB folds,
    HJ and BTN call. Flop: HJ checks, BTN bets 12 bb, HJ shoves, BTN folds.
    """
    stacks = [2500, 250, 2500, 2500, 2500, 2500]  # BTN, SB, BB, UTG, HJ, CO
    seats = tuple(Seat(i + 1, f"player{i}", s) for i, s in enumerate(stacks))
    act = RecordedAction
    actions = (
        act(Street.PREFLOP, 3, Move.FOLD),
        act(Street.PREFLOP, 4, Move.RAISE, 75),
        act(Street.PREFLOP, 5, Move.FOLD),
        act(Street.PREFLOP, 0, Move.CHECK_CALL, 75),
        act(Street.PREFLOP, 1, Move.RAISE, 250, all_in=True),
        act(Street.PREFLOP, 2, Move.FOLD),
        act(Street.PREFLOP, 4, Move.CHECK_CALL, 175),
        act(Street.PREFLOP, 0, Move.CHECK_CALL, 175),
        act(Street.FLOP, 4, Move.CHECK_CALL, 0),
        act(Street.FLOP, 0, Move.RAISE, 300),
        act(Street.FLOP, 4, Move.RAISE, 2250, all_in=True),
        act(Street.FLOP, 0, Move.FOLD),
    )
    return HandRecord(
        site="Example",
        hand_id="42",
        seats=seats,
        button=0,
        small_blind=10,
        big_blind=25,
        blinds=(0, 10, 25, 0, 0, 0),
        dead=(0,) * 6,
        actions=actions,
        board=tuple(parse_cards("AhKd7c")),
        hole_cards=((), tuple(parse_cards("QsQc")), (), (), tuple(parse_cards("AsKs")), ()),
    )


def test_worked_example_by_hand() -> None:
    """Every interesting column of the worked example, computed by hand."""
    frame = decision_rows([worked_example()])
    assert frame.schema == ROW_SCHEMA
    assert frame["position"].to_list() == [
        "UTG", "HJ", "CO", "BTN", "SB", "BB", "HJ", "BTN", "HJ", "BTN", "HJ", "BTN"
    ]  # fmt: skip
    assert frame["pot"].to_list() == [35, 35, 110, 110, 185, 425, 425, 600, 775, 775, 1075, 3325]
    assert frame["to_call"].to_list() == [25, 25, 75, 75, 65, 225, 175, 175, 0, 0, 300, 1950]
    assert frame["players_alive"].to_list() == [6, 5, 5, 4, 4, 4, 3, 3, 3, 3, 3, 3]
    assert frame["players_to_act"].to_list() == [5, 4, 3, 2, 1, 2, 1, 0, 1, 0, 0, 0]
    assert frame["history"].to_list() == [
        "",
        "f",
        "fr3",
        "fr3f",
        "fr3fc",
        "fr3fcr10a",
        "fr3fcr10af",
        "fr3fcr10afc",
        "fr3fcr10afcc/",
        "fr3fcr10afcc/k",
        "fr3fcr10afcc/kb12",
        "fr3fcr10afcc/kb12r90a",
    ]
    assert frame["action"].to_list() == [
        "fold", "bet-raise", "fold", "check-call", "bet-raise", "fold",
        "check-call", "check-call", "check-call", "bet-raise", "bet-raise", "fold",
    ]  # fmt: skip
    assert frame["amount"].to_list() == [0, 75, 0, 75, 240, 0, 175, 175, 0, 300, 2250, 0]
    assert frame["all_in"].to_list() == [False] * 4 + [True] + [False] * 5 + [True, False]
    assert frame["street"].to_list() == ["preflop"] * 8 + ["flop"] * 4
    assert frame["board"].to_list() == [[]] * 8 + [parse_cards("AhKd7c")] * 4
    assert frame["hole_cards"].to_list()[1] == parse_cards("AsKs")
    assert frame["hole_cards"].to_list()[4] == parse_cards("QsQc")
    assert frame["hole_cards"].null_count() == 12 - 5  # HJ's four rows and SB's one
    assert frame["stack_bb"].to_list()[4] == pytest.approx(9.6)
    assert frame["pot_bb"].to_list()[0] == pytest.approx(1.4)
    # HJ's open: raise 50 beyond the 25 to call, into a pot of 35 + 25 = 60.
    assert frame["raise_pot"].to_list()[1] == pytest.approx(50 / 60)
    assert frame["amount_pot"].to_list()[3] == pytest.approx(75 / 110)
    assert frame["raise_to"].to_list()[9] == 300
    assert frame["raise_to"].null_count() == 8
    assert frame["seat_number"].to_list()[0] == 4
    assert frame["player_id"].to_list()[0] == anonymize("Example", "player3")
    assert_frame_equal(frame, reference_rows([worked_example()]).frame)


@pytest.mark.parametrize(
    ("players", "names"),
    [
        (2, ["BTN", "BB"]),
        (3, ["BTN", "SB", "BB"]),
        (4, ["BTN", "SB", "BB", "CO"]),
        (6, ["BTN", "SB", "BB", "UTG", "HJ", "CO"]),
        (9, ["BTN", "SB", "BB", "UTG", "UTG+1", "UTG+2", "MP", "HJ", "CO"]),
        (10, ["BTN", "SB", "BB", "UTG", "UTG+1", "UTG+2", "MP", "MP+1", "HJ", "CO"]),
    ],
)
def test_positions_by_table_size(players: int, names: list[str]) -> None:
    """Counted clockwise from the button; heads-up the button is the small blind."""
    button = 1
    got = [position_name((button + k) % players, button, players) for k in range(players)]
    assert got == names


def test_every_table_size_names_each_seat_once() -> None:
    for players in range(2, 11):
        names = [position_name(seat, 0, players) for seat in range(players)]
        assert len(set(names)) == players
        assert set(names) <= set(POSITIONS)
    with pytest.raises(ValueError, match="11"):
        position_name(0, 0, 11)


def test_anonymized_ids_are_stable_salted_and_opaque() -> None:
    first = anonymize("PokerStars", "Alice")
    assert first == anonymize("PokerStars", "Alice")
    assert re.fullmatch(r"[0-9a-f]{16}", first)
    assert first != anonymize("PokerStars", "Alice", "another salt")
    assert first != anonymize("Party", "Alice")
    assert "Alice" not in first
    records = [worked_example()]
    salted = build_rows(records, salt="s3cret").frame["player_id"]
    assert salted[0] == anonymize("Example", "player3", "s3cret")


# -- bad hands --------------------------------------------------------------------------------


def broken(**changes: object) -> HandRecord:
    return replace(worked_example(), **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ("swap the first two actions", "rows-order"),
        ("flop action on the preflop", "rows-street"),
        ("call short", "rows-call-amount"),
        ("raise too small", "rows-raise-amount"),
        ("raise beyond the stack", "rows-raise-amount"),
        ("drop the last action", "rows-incomplete"),
        ("an extra action", "rows-after-end"),
        ("a stranger acts", "rows-player"),
        ("no flop cards", "rows-board"),
        ("one player", "rows-seats"),
    ],
)
def test_hands_the_rules_cannot_follow_are_rejected(change: str, reason: str) -> None:
    """Each defect gets its reason; the good hand next to it keeps its rows."""
    good = worked_example()
    actions = list(good.actions)
    act = RecordedAction
    if change == "swap the first two actions":
        actions[0], actions[1] = actions[1], actions[0]
    elif change == "flop action on the preflop":
        actions[8] = replace(actions[8], street=Street.PREFLOP)
    elif change == "call short":
        actions[3] = replace(actions[3], amount=50)
    elif change == "raise too small":
        actions[1] = replace(actions[1], amount=40)
    elif change == "raise beyond the stack":
        actions[1] = replace(actions[1], amount=2501)
    elif change == "drop the last action":
        actions.pop()
    elif change == "an extra action":
        actions.append(act(Street.FLOP, 0, Move.FOLD))
    elif change == "a stranger acts":
        actions[0] = replace(actions[0], player=7)
    bad = replace(good, hand_id="bad", actions=tuple(actions))
    if change == "no flop cards":
        bad = replace(bad, board=())
    if change == "one player":
        bad = replace(bad, seats=good.seats[:1], blinds=(0,), dead=(0,), button=0)
    rows = build_rows([good, bad])
    assert list(rows.rejected) == [1]
    assert rows.rejected[1].reason == reason
    assert set(rows.frame["hand_id"]) == {"42"}
    with pytest.raises(HistoryError, match=reason):
        decision_rows([good, bad])


def test_a_fold_when_checking_is_free_is_a_row() -> None:
    """PokerStars allows it (a real sample hand has one); so does the row builder."""
    good = worked_example()
    actions = list(good.actions)
    actions[8] = replace(actions[8], move=Move.FOLD)  # HJ folds on the flop instead of checking
    record = replace(good, actions=tuple(actions[:9]))
    frame = decision_rows([record])
    assert frame["action"][-1] == "fold"
    assert frame["to_call"][-1] == 0
    assert_frame_equal(frame, reference_rows([record]).frame)


def test_no_hands_give_an_empty_frame_with_the_schema() -> None:
    assert build_rows([]).frame.schema == ROW_SCHEMA
    assert empty_rows().height == 0
    assert empty_rows().schema == ROW_SCHEMA
