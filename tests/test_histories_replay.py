"""Replaying hand records through the engine, and records from played tables.

``replay`` is the judge of every record: these tests feed it hands it must accept (the
PokerStars fixtures, run it twice, folds when checking is free, mucked hands) and records
tampered one field at a time, each of which it must reject with the right reason. The
property tests play random hands on the engine (hypothesis draws the game, the stacks,
extra posts and every action), turn them into records with ``record_from_table`` and check
that the replay reproduces the table chip for chip. ``engine_hands`` is shared with the
PHH and PokerStars round-trip tests.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolshark.cards.card import parse_cards
from poolshark.engine.config import Betting, GameConfig
from poolshark.engine.table import ForcedBets, Move, Street, Table
from poolshark.histories.record import HandRecord, HistoryError, RecordedAction, Seat
from poolshark.histories.replay import judge, record_from_table, replay, warning_message
from poolshark.histories.split import parse_hand, read_hands

FIXTURES = Path(__file__).parent / "data" / "pokerstars"

#: Names that stress both formats: spaces, brackets, colons, quotes, non-ASCII.
NAMES = (
    "Hero",
    "Ñoño: el grande",
    "Mr. Pink [NL]",
    "ace of (spades)",
    "张伟88",
    "a: b: c",
    "O'Brien",
    'say "hi"',
    "Kåre Ørnulf",
    "x",
)


@st.composite
def engine_hands(draw: st.DrawFn, *, extra_posts: bool = True) -> Table:
    """A finished hand on the engine: random game, stacks above the forced bets, maybe
    extra posts (a new player's big blind, a dead small blind), random legal play."""
    n = draw(st.integers(2, 10))
    betting = draw(st.sampled_from(Betting))
    big = draw(st.sampled_from([2, 10, 25, 50, 100]))
    small = draw(st.integers(1, big - 1))
    ante = draw(st.sampled_from([0, 0, 0, 1, big // 5]))
    straddle = 2 * big if n >= 4 and draw(st.integers(0, 9)) == 0 else 0
    config = GameConfig(
        betting=betting,
        seats=n,
        small_blind=small,
        big_blind=big,
        ante=ante,
        small_bet=big if betting is Betting.FIXED_LIMIT else None,
        rake_percent=draw(st.sampled_from([0.0, 4.5, 5.0])),
        rake_cap=draw(st.sampled_from([None, 3 * big])),
    )
    button = draw(st.integers(0, n - 1))
    forced = None
    blinds = [0] * n
    dead = [ante] * n
    if n == 2:
        blinds[button], blinds[1 - button] = small, big
    else:
        blinds[(button + 1) % n], blinds[(button + 2) % n] = small, big
        if straddle:
            blinds[(button + 3) % n] = straddle
        if extra_posts and n >= 5 and draw(st.booleans()):
            poster = (button + draw(st.integers(4 if straddle else 3, n))) % n
            if poster not in ((button + 1) % n, (button + 2) % n):
                blinds[poster] = big
                dead[poster] += draw(st.sampled_from([0, small]))
        forced = ForcedBets(tuple(blinds), tuple(dead))
    if n > 2 and not straddle and forced == ForcedBets(tuple(blinds), (ante,) * n):
        forced = None  # the plain config path
    least = max(b + d for b, d in zip(blinds, dead, strict=True)) + 1
    stacks = draw(st.lists(st.integers(least, 400 * big), min_size=n, max_size=n))
    table = Table(
        config, stacks, button=button, seed=draw(st.integers(0, 2**32 - 1)), forced=forced
    )
    while not table.done:
        legal = table.legal()
        roll = draw(st.integers(0, 99))
        if legal.can_fold and roll < 25:
            table.fold()
        elif legal.min_raise_to is not None and legal.max_raise_to is not None and roll < 55:
            top = (
                legal.max_raise_to if roll < 30 else min(legal.max_raise_to, 4 * legal.min_raise_to)
            )
            table.raise_to(draw(st.integers(legal.min_raise_to, max(top, legal.min_raise_to))))
        else:
            table.check_call()
    return table


def names_for(n: int) -> list[str]:
    """Distinct awkward names for n players."""
    return [NAMES[i] if i < len(NAMES) else f"player {i}" for i in range(n)]


def simulated_record(table: Table, hand_id: int, **options: object) -> HandRecord:
    """The record a site would write for ``table`` (PokerStars metadata)."""
    return record_from_table(
        table,
        site="PokerStars",
        hand_id=str(hand_id),
        names=names_for(table.seats),
        seat_numbers=list(range(1, table.seats + 1)),
        time=datetime(2024, 5, 6, 7, 8, 9),
        table_name="Simulated I",
        max_seats=10,
        **options,  # type: ignore[arg-type]
    )


def fixture_records() -> list[HandRecord]:
    """Every accepted hand of the PokerStars fixtures."""
    return [
        parse_hand(raw)
        for name in (
            "zoom_6max_bom.txt",
            "ring_9max_crlf.txt",
            "heads_up_antes_cash_out_run_twice.txt",
        )
        for raw in read_hands(FIXTURES / name)
    ]


# -- records the replay accepts ---------------------------------------------------------


def test_every_fixture_hand_replays_with_its_winnings() -> None:
    """All nine hand-written PokerStars hands replay: pots, rake and winnings agree."""
    records = fixture_records()
    assert len(records) == 9
    for record in records:
        table = replay(record)
        assert table.done
        assert table.result is not None
        assert sum(table.total) == record.total_pot
        assert table.result.rake == record.rake


def test_replay_applies_the_recorded_rake_main_pot_first() -> None:
    """The three-pot hand: $3 rake off the main pot; each pot to its best hand."""
    record = next(r for r in fixture_records() if r.hand_id == "219876555555")
    table = replay(record)
    assert table.result is not None
    assert [p.amount for p in table.result.pots] == [4550, 2400, 2020]
    assert record.winnings == (0, 0, 4550, 2400, 0, 2020)


def test_run_it_twice_pays_each_board_half() -> None:
    """Each half of the raked pot goes to that board's winner; a tampered second board
    hands the second half to the other player and is caught."""
    record = next(r for r in fixture_records() if r.second_board)
    assert record.winnings == (14950, 14950, 0)
    replay(record)
    swapped = replace(record, second_board=(*record.second_board[:3], *parse_cards("4c5c")))
    with pytest.raises(HistoryError, match="winnings") as caught:
        replay(swapped)
    assert caught.value.reason == "replay-mismatch"


def test_fold_when_checking_is_free_is_replayed() -> None:
    """PokerStars lets a player fold when he could check; the replay accepts it."""
    record = HandRecord(
        site="test",
        hand_id="1",
        seats=tuple(_seats(3)),
        button=0,
        small_blind=5,
        big_blind=10,
        blinds=(0, 5, 10),
        dead=(0, 0, 0),
        actions=(
            RecordedAction(Street.PREFLOP, 0, Move.CHECK_CALL, 10),
            RecordedAction(Street.PREFLOP, 1, Move.CHECK_CALL, 5),
            RecordedAction(Street.PREFLOP, 2, Move.CHECK_CALL, 0),
            RecordedAction(Street.FLOP, 1, Move.FOLD),
            RecordedAction(Street.FLOP, 2, Move.RAISE, 10),
            RecordedAction(Street.FLOP, 0, Move.FOLD),
        ),
        board=tuple(parse_cards("2c3d4h")),
        winnings=(0, 0, 30),
        rake=0,
        total_pot=30,
    )
    table = replay(record)
    assert table.folded == [True, True, False]
    assert table.stack == [990, 990, 1020]


def test_forced_check_that_sites_leave_out_is_played() -> None:
    """Heads-up, the small blind calls all-in for less; the engine asks the big blind to
    check, the site never writes it: the replay plays it and the hand ends in a showdown."""
    record = HandRecord(
        site="test",
        hand_id="2",
        seats=tuple(_seats(2, stacks=(100, 8))),
        button=1,
        small_blind=5,
        big_blind=10,
        blinds=(10, 5),
        dead=(0, 0),
        actions=(RecordedAction(Street.PREFLOP, 1, Move.CHECK_CALL, 3, all_in=True),),
        board=tuple(parse_cards("2c3d4h5s9c")),
        hole_cards=(tuple(parse_cards("AhAd")), tuple(parse_cards("KhKd"))),
        winnings=(16, 0),
        rake=0,
        total_pot=16,
    )
    table = replay(record)
    assert [a.move for a in table.log] == [Move.CHECK_CALL, Move.CHECK_CALL]
    assert table.stack == [108, 0]


def test_unknown_cards_lose_and_all_unknown_pots_are_left_to_the_record() -> None:
    """A mucked (unknown) hand loses to a shown one; when every hand in a pot is unknown
    the rules cannot name the winner, and the recorded winnings stand."""
    base = HandRecord(
        site="test",
        hand_id="3",
        seats=tuple(_seats(2)),
        button=1,
        small_blind=5,
        big_blind=10,
        blinds=(10, 5),
        dead=(0, 0),
        actions=(
            RecordedAction(Street.PREFLOP, 1, Move.CHECK_CALL, 5),
            RecordedAction(Street.PREFLOP, 0, Move.CHECK_CALL, 0),
            *[
                RecordedAction(street, player, Move.CHECK_CALL, 0)
                for street in (Street.FLOP, Street.TURN, Street.RIVER)
                for player in (0, 1)
            ],
        ),
        board=tuple(parse_cards("2c3d4h5s9c")),
        hole_cards=((), tuple(parse_cards("7h8h"))),
        winnings=(0, 20),
        rake=0,
        total_pot=20,
    )
    replay(base)
    with pytest.raises(HistoryError, match="winnings"):
        replay(replace(base, winnings=(20, 0)))
    replay(replace(base, hole_cards=((), ()), winnings=(20, 0)))


# -- records the replay rejects ---------------------------------------------------------


def _tamper(record: HandRecord, index: int, **changes: object) -> HandRecord:
    actions = list(record.actions)
    actions[index] = replace(actions[index], **changes)  # type: ignore[arg-type]
    return replace(record, actions=tuple(actions))


def test_tampered_records_are_rejected_with_the_right_reason() -> None:
    """One wrong field at a time: each is caught and named."""
    record = next(r for r in fixture_records() if r.hand_id == "254812411090")
    cases = {
        "replay-illegal": [
            _tamper(record, 0, player=2),  # out of turn
            _tamper(record, 1, amount=15),  # raise below the minimum
            replace(record, actions=(*record.actions, record.actions[-1])),  # after the end
            _tamper(record, 6, street=Street.TURN),  # the flop is not over
        ],
        "replay-mismatch": [
            _tamper(record, 2, amount=25),  # a call for the wrong amount
            _tamper(record, 2, all_in=True),  # not all-in
            replace(record, actions=record.actions[:-2]),  # stops before the end
            replace(record, winnings=(0, 423, 0, 0, 0, 0)),  # the loser collects
            replace(record, winnings=(433, 0, 0, 0, 0, 0)),  # more than the pot
            replace(record, total_pot=450),
            replace(record, rake=30),
            replace(record, board=record.board[:4]),  # a card short
        ],
        "malformed": [
            replace(record, blinds=record.blinds[:5]),
            replace(record, button=6),
            replace(record, board=(*record.board[:4], record.hole_cards[0][0])),  # dealt twice
            replace(record, big_blind=0),
        ],
    }
    for reason, records in cases.items():
        for bad in records:
            with pytest.raises(HistoryError) as caught:
                replay(bad)
            assert caught.value.reason == reason, (reason, caught.value)


def test_winnings_over_the_pot_by_a_dropped_post_are_accepted_with_a_warning() -> None:
    """A hand folded around to a raise, collecting a dead small blind the record lacks:
    the strict replay rejects it, the judge accepts it marked ``winnings-over-pot``; more
    than a small and a big blind over, or paid to someone the replay does not pay, stays
    rejected; a clean hand gets no warning."""
    config = GameConfig(seats=4, small_blind=10, big_blind=25)
    table = Table(config, [2000] * 4, button=0, seed=3, forced=ForcedBets((0, 10, 25, 0)))
    table.raise_to(60)
    table.fold()
    table.fold()
    table.fold()
    clean = record_from_table(table, site="Sim", hand_id="1", reveal="none")
    assert clean.winnings == (0, 0, 0, 60)
    assert clean.rake == 0
    assert judge(clean).record is clean
    dropped = replace(clean, winnings=(0, 0, 0, 70), rake=-10)
    with pytest.raises(HistoryError, match="collect 10 more than the pot"):
        replay(dropped)
    judged = judge(dropped)
    assert judged.record.warnings == ("winnings-over-pot",)
    assert judged.record == replace(dropped, warnings=("winnings-over-pot",))
    assert judged.table.stack == [2000, 1990, 1975, 2035]  # the betting, as replayed
    assert "collect 10 more than the pot of 60" in warning_message(judged.record)
    for bad in (
        replace(clean, winnings=(0, 0, 0, 96), rake=-36),  # beyond a small and big blind
        replace(clean, winnings=(10, 0, 0, 60), rake=-10),  # to a player who folded
        replace(clean, winnings=(0, 0, 0, 50), rake=-10),  # less than the replay pays
    ):
        with pytest.raises(HistoryError) as caught:
            judge(bad)
        assert caught.value.reason == "replay-mismatch"


def test_the_judge_rejects_what_the_replay_rejects() -> None:
    """Tampered records (other than winnings over the pot) fare the same in both."""
    record = next(r for r in fixture_records() if r.hand_id == "254812411090")
    for bad in (
        _tamper(record, 0, player=2),
        _tamper(record, 2, amount=25),
        replace(record, total_pot=450),
        replace(record, board=record.board[:4]),
    ):
        with pytest.raises(HistoryError) as strict:
            replay(bad)
        with pytest.raises(HistoryError) as judged:
            judge(bad)
        assert (strict.value.reason, strict.value.message) == (
            judged.value.reason,
            judged.value.message,
        )


def test_hand_written_rejections_name_their_reason() -> None:
    """The replay-rejected fixtures: a raise below the minimum, collected chips that
    exceed the pot, an action out of turn."""
    reasons = []
    for raw in read_hands(FIXTURES / "replay_rejected.txt"):
        with pytest.raises(HistoryError) as caught:
            replay(parse_hand(raw))
        reasons.append(caught.value.reason)
    assert reasons == ["replay-illegal", "replay-mismatch", "replay-illegal"]


# -- records from tables ----------------------------------------------------------------


def test_record_from_table_reveals_cards_as_asked() -> None:
    """``showdown`` keeps the hero's and the showdown hands, ``all`` everyone's, ``none``
    the hero's only; the engine's forced checks are left out of the actions."""
    config = GameConfig(seats=3, small_blind=1, big_blind=2)
    table = Table(config, [100, 100, 40], button=0, seed=11)
    table.fold()
    table.check_call()
    table.raise_to(40)  # the big blind shoves
    table.check_call()  # the small blind calls: showdown between seats 1 and 2
    assert table.done
    kept = {
        reveal: record_from_table(table, site="s", hand_id="1", reveal=reveal, hero=0).hole_cards
        for reveal in ("showdown", "all", "none")
    }
    assert [bool(h) for h in kept["showdown"]] == [True, True, True]
    assert [bool(h) for h in kept["none"]] == [True, False, False]
    assert kept["all"] == tuple(tuple(h) for h in table.hole_cards)
    assert [bool(h) for h in record_from_table(table, site="s", hand_id="1").hole_cards] == [
        False,
        True,
        True,
    ]


def test_record_from_table_needs_a_finished_hand() -> None:
    table = Table(GameConfig(seats=2), [100, 100], seed=1)
    with pytest.raises(ValueError, match="not over"):
        record_from_table(table, site="s", hand_id="1")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(engine_hands())
def test_replaying_a_table_record_reproduces_the_table(table: Table) -> None:
    """record_from_table then replay: same final stacks, rake, board and actions."""
    record = simulated_record(table, 1, reveal="all")
    again = replay(record)
    assert again.stack == table.stack
    assert again.result is not None
    assert table.result is not None
    assert again.result.rake == table.result.rake
    assert again.board == table.board
    voluntary = [(a.seat, a.move, a.amount) for a in again.log]
    recorded = [(a.player, a.move, a.amount) for a in record.actions]
    assert recorded == voluntary[: len(recorded)]
    assert all(a.move is Move.CHECK_CALL and a.amount == 0 for a in again.log[len(recorded) :])


def _seats(n: int, stacks: tuple[int, ...] | None = None) -> list[Seat]:
    stacks = stacks or (1000,) * n
    return [Seat(i + 1, f"p{i + 1}", stacks[i]) for i in range(n)]
