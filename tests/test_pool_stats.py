"""HUD statistics: the rules on hands worked out by hand, the Wilson interval, and the
statistics recovered from a simulation's text against those of its ground truth."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolshark.cards.card import parse_cards
from poolshark.engine.table import Move, Street
from poolshark.histories.phh import write_phhs
from poolshark.histories.record import HandRecord, RecordedAction, Seat
from poolshark.histories.replay import replay
from poolshark.histories.split import parse_hand, split_hands
from poolshark.pool.pools import load_pool
from poolshark.pool.simulate import pokerstars_text, simulate
from poolshark.pool.stats import (
    Hud,
    HudStat,
    StatsError,
    Tally,
    history_files,
    statistics,
    tally_files,
    tally_hands,
    tally_records,
    wilson_interval,
)
from test_pool_simulate import pool_of

P, F, C, R = Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER


def hand(actions: list[tuple[Street, int, Move, int]], **fields: object) -> HandRecord:
    """A 6-max $0.01/$0.02 hand, 200 chips each, button on seat 6 (index 5)."""
    values: dict[str, object] = {
        "site": "PokerStars",
        "hand_id": "1",
        "seats": tuple(Seat(i + 1, f"p{i}", 200) for i in range(6)),
        "button": 5,
        "small_blind": 1,
        "big_blind": 2,
        "blinds": (1, 2, 0, 0, 0, 0),
        "dead": (0,) * 6,
        "actions": tuple(RecordedAction(s, p, m, a) for s, p, m, a in actions),
    }
    values.update(fields)
    return HandRecord(**values)  # type: ignore[arg-type]


def three_bet_pot() -> HandRecord:
    """p2 opens, p3 folds, p4 calls, p5 three-bets, the blinds fold, p2 folds, p4 calls;
    p5 c-bets the flop and p4 calls; both check the turn; p4 bets the river and p5 calls;
    p4's aces beat p5's kings."""
    actions = [
        (P, 2, Move.RAISE, 5),
        (P, 3, Move.FOLD, 0),
        (P, 4, Move.CHECK_CALL, 5),
        (P, 5, Move.RAISE, 18),
        (P, 0, Move.FOLD, 0),
        (P, 1, Move.FOLD, 0),
        (P, 2, Move.FOLD, 0),
        (P, 4, Move.CHECK_CALL, 13),
        (F, 4, Move.CHECK_CALL, 0),
        (F, 5, Move.RAISE, 20),
        (F, 4, Move.CHECK_CALL, 20),
        (C, 4, Move.CHECK_CALL, 0),
        (C, 5, Move.CHECK_CALL, 0),
        (R, 4, Move.RAISE, 40),
        (R, 5, Move.CHECK_CALL, 40),
    ]
    holes = ((), (), (), (), tuple(parse_cards("AhAd")), tuple(parse_cards("KhKd")))
    return hand(
        actions,
        board=tuple(parse_cards("2c7d9sJc3h")),
        hole_cards=holes,
        winnings=(0, 0, 0, 0, 164, 0),
        rake=0,
        total_pot=164,
    )


def walk() -> HandRecord:
    """Everyone folds to the big blind, who has no decision."""
    actions = [(P, p, Move.FOLD, 0) for p in (2, 3, 4, 5, 0)]
    return hand(actions, winnings=(0, 2, 0, 0, 0, 0), rake=0, total_pot=2)


def test_statistics_of_hands_worked_out_by_hand() -> None:
    records = [three_bet_pot(), walk()]
    for record in records:
        replay(record)  # the worked hands are legal and pay as written
    tally = tally_records(records)
    expected = {  # (hits, opportunities)
        Hud.VPIP: (3, 6 + 5),
        Hud.PFR: (2, 11),
        Hud.THREE_BET: (1, 3),  # p3, p4 and p5 faced the open; p5 re-raised
        Hud.FOLD_TO_THREE_BET: (1, 1),
        Hud.CBET: (1, 1),
        Hud.FOLD_TO_CBET: (0, 1),
        Hud.WTSD: (2, 2),
        Hud.WSD: (1, 2),
        Hud.AF: (2, 4),  # flop bet, river bet; flop call, river call
    }
    for stat, (hits, chances) in expected.items():
        assert (tally.hits[stat], tally.chances[stat]) == (hits, chances), stat.name
    assert tally.hands == 2
    figures = statistics(tally)
    assert figures["af"].value == 1.0
    assert figures["vpip"].value == pytest.approx(3 / 11)


def test_winnings_missing_are_found_by_replay() -> None:
    """Without recorded winnings (zero-filled PHH) the showdown winner comes from a replay."""
    record = three_bet_pot()
    unknown = HandRecord(**{**record.__dict__, "winnings": None})
    assert (tally_records([unknown]).hits == tally_records([record]).hits).all()


def test_wilson_interval() -> None:
    """Known values (Newcombe 1998's examples) and the empty-count error."""
    low, high = wilson_interval(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    low, high = wilson_interval(0, 20)
    assert low == 0.0
    assert high == pytest.approx(0.1611, abs=1e-4)
    with pytest.raises(ValueError, match="at least one"):
        wilson_interval(0, 0)


@given(st.integers(1, 10_000), st.floats(0, 1))
def test_wilson_interval_holds_the_estimate(count: int, share: float) -> None:
    hits = min(count, int(share * count))
    low, high = wilson_interval(hits, count)
    assert 0.0 <= low <= hits / count <= high <= 1.0
    assert high - low <= 2 * 1.96 * math.sqrt(0.25 / count) + 1e-12


def test_aggression_interval_maps_the_share() -> None:
    tally = Tally()
    tally.hits[Hud.AF], tally.chances[Hud.AF] = 30, 50
    af = statistics(tally)["af"]
    low, high = wilson_interval(30, 50)
    assert af.value == pytest.approx(1.5)
    assert af.low == pytest.approx(low / (1 - low))
    assert af.high == pytest.approx(high / (1 - high))
    tally.hits[Hud.AF] = 50
    assert statistics(tally)["af"].value is None  # no calls: unbounded
    assert statistics(Tally())["vpip"].count == 0


def test_arrays_and_records_count_the_same() -> None:
    """The compiled ground-truth pass equals the record reference, forced checks, short
    stacks and 2-10 seats included."""
    for seats in (2, 6, 9):
        hands = simulate(pool_of(seats), 800, seed=seats, stack_range=(1, 300))
        fast, reference = tally_hands(hands), tally_records(hands.records())
        assert (fast.hits == reference.hits).all()
        assert (fast.chances == reference.chances).all()


def test_text_statistics_agree_with_the_ground_truth() -> None:
    """On a simulated pool, the statistics recovered from the written text agree with the
    ground truth's within their 95% intervals (and, the text being lossless for public
    actions, exactly)."""
    hands = simulate(load_pool("micro-zoom"), 6_000, seed=21)
    text = pokerstars_text(hands)
    records = [parse_hand(raw) for raw in split_hands(io.BytesIO(text))]
    recovered = statistics(tally_records(records))
    truth = statistics(tally_hands(hands))
    for name, figure in truth.items():
        seen = recovered[name]
        assert figure.count > 100, name
        truth_value, truth_low, truth_high = bounded(figure)
        text_value, text_low, text_high = bounded(seen)
        assert text_low <= truth_value <= text_high, name
        assert truth_low <= text_value <= truth_high, name
        assert (seen.count, seen.hits) == (figure.count, figure.hits), name
    assert 0.25 < bounded(truth["vpip"])[0] < 0.4


def bounded(figure: HudStat) -> tuple[float, float, float]:
    """Value, low and high of a statistic that has all three."""
    assert figure.value is not None
    assert figure.low is not None
    assert figure.high is not None
    return figure.value, figure.low, figure.high


def test_files_are_found_counted_and_rejections_kept(tmp_path: Path) -> None:
    """Folders are searched for .txt/.phh/.phhs; a hand that does not parse is counted under
    its reason, and so is the text of a file that is no history (a file is never refused
    whole: it is one hand rejected as ``unsupported-format``); a missing path is refused."""
    hands = simulate(load_pool("soft"), 40, seed=2)
    text = pokerstars_text(hands).decode()
    broken = text.replace("*** SUMMARY ***", "*** SUMMRY ***", 1)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text(broken)
    (tmp_path / "b.phhs").write_text(write_phhs(hands.records()))
    (tmp_path / "notes.csv").write_text("a,b\n")
    (tmp_path / "junk.txt").write_text("hello\n")
    files = history_files([tmp_path])
    assert [f.name for f in files] == ["b.phhs", "junk.txt", "a.txt"]
    result = tally_files(files)
    assert result.files == 3
    assert result.read == 81
    assert result.tally.hands == 79
    assert result.rejected == {"truncated": 1, "unsupported-format": 1}
    assert not result.file_errors
    with pytest.raises(StatsError, match="no such file"):
        history_files([tmp_path / "missing"])
