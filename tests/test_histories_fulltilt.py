"""Full Tilt Poker text: rewritten in PokerStars' layout and read by its reader.

The real hands are in the corpus (``tests/data/corpus/hhsmithy_full_tilt*.txt``, pinned in
``test_corpus.py``); here the rewrite itself, line by line, and the hands it must reject.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from poolshark.histories.fulltilt import SITE, is_full_tilt, to_pokerstars
from poolshark.histories.pokerstars import parse_pokerstars
from poolshark.histories.record import HistoryError
from poolshark.histories.replay import judge
from poolshark.histories.split import read_hands

CORPUS = Path(__file__).parent / "data" / "corpus"

HAND = """\
Full Tilt Poker Game #33727539525: Table Judo (6 max, shallow) - NL Hold'em - $0.50/$1 - \
19:04:52 ET - 2014/01/05
Seat 1: jack sparrow ($5)
Seat 2: Steamkid79 ($65.65), is sitting out
Seat 3: kuku ($42.70)
Seat 4: erki1964 ($1,143.05)
jack sparrow posts the small blind of $0.50
kuku posts the big blind of $1
erki1964 posts a dead small blind of $0.50
erki1964 posts $1
The button is in seat #4
*** HOLE CARDS ***
*** HOLE CARDS ***
Dealt to kuku [Ah Kd]
erki1964 has 15 seconds left to act
erki1964 checks
jack sparrow: nice hand
Rail Bird (Observer): hello
jack sparrow raises to $5, and is all in
kuku calls $4
erki1964 folds
*** FLOP *** [5h 9h Jd] (Total Pot: $11.50, 2 Players)
*** TURN *** [5h 9h Jd] [Jc] (Total Pot: $11.50, 2 Players)
*** RIVER *** [5h 9h Jd Jc] [2c]
*** SHOW DOWN ***
jack sparrow shows [Qs Qd] two pair, Queens and Jacks
kuku shows [Ah Kd] a pair of Jacks
jack sparrow wins the pot ($11) with two pair, Queens and Jacks
kuku adds $5
*** SUMMARY ***
Total pot $11.50 | Rake $0.50
Board: [5h 9h Jd Jc 2c]
Seat 1: jack sparrow (small blind) showed [Qs Qd] and won ($11) with two pair
Seat 2: Steamkid79 is sitting out
Seat 3: kuku (big blind) showed [Ah Kd] and lost with a pair of Jacks
Seat 4: erki1964 (button) folded before the Flop
"""


def test_the_rewrite_line_by_line() -> None:
    """Header, table and seats in PokerStars' words; posts, actions, all-ins, streets,
    showdown and winnings rewritten; time warnings, chat and observers dropped."""
    assert is_full_tilt(HAND)
    assert not is_full_tilt("PokerStars Hand #1: ...")
    lines = to_pokerstars(HAND).splitlines()
    assert lines[:4] == [
        "PokerStars Hand #33727539525: Hold'em No Limit ($0.50/$1) - 2014/01/05 19:04:52 ET",
        "Table 'Judo' 6-max Seat #4 is the button",
        "Seat 1: jack sparrow ($5 in chips)",
        "Seat 2: Steamkid79 ($65.65 in chips) is sitting out",
    ]
    assert "erki1964: posts small blind $0.50" in lines
    assert "erki1964: posts big blind $1" in lines
    assert lines.count("*** HOLE CARDS ***") == 1
    assert "jack sparrow: raises to $5 and is all-in" in lines
    assert "*** FLOP *** [5h 9h Jd]" in lines
    assert "jack sparrow: shows [Qs Qd] (two pair, Queens and Jacks)" in lines
    assert "jack sparrow collected $11 from pot" in lines
    assert "kuku: Table deposit $5" in lines
    assert "Board [5h 9h Jd Jc 2c]" in lines
    assert not [line for line in lines if "seconds" in line or "said" in line or "hello" in line]
    assert "jack sparrow: nice hand" not in lines


def test_the_hand_is_read_and_replayed_with_its_site() -> None:
    record = judge(parse_pokerstars(HAND)).record
    assert (record.site, record.hand_id, record.max_seats) == (SITE, "33727539525", 6)
    assert [seat.player for seat in record.seats] == ["jack sparrow", "kuku", "erki1964"]
    assert record.seats[2].stack == 114305
    assert (record.blinds, record.dead) == ((50, 100, 100), (0, 0, 50))
    assert record.winnings == (1100, 0, 0)
    assert record.extra["deposits"] == "kuku: Table deposit $5"


def test_every_corpus_hand_carries_the_site() -> None:
    for name in ("heads_up_10", "limit", "sitting_out"):
        for raw in read_hands(CORPUS / f"hhsmithy_full_tilt_{name}.txt"):
            assert parse_pokerstars(raw.text).site == SITE


@pytest.mark.parametrize(
    ("change", "reason", "words"),
    [
        (("NL Hold'em - $0.50/$1", "$10 Sit & Go (Tournament #1), NL Hold'em"), "tournament", ""),
        (("NL Hold'em", "Pot Limit Omaha"), "unsupported-game", "Pot Limit Omaha"),
        (("The button is in seat #4\n", ""), "malformed", "button"),
        (("jack sparrow posts the small", "silva posts the small"), "malformed", "no seat line"),
        (("kuku calls $4", "kuku juggles $4"), "malformed", "kuku juggles $4"),
        (("Seat 3: kuku ($42.70)", "Seat 3: kuku (42.70 chips)"), "malformed", "seat line"),
    ],
)
def test_hands_rejected_with_a_reason_naming_the_line(
    change: tuple[str, str], reason: str, words: str
) -> None:
    text = HAND.replace(*change)
    assert text != HAND
    with pytest.raises(HistoryError) as caught:
        judge(parse_pokerstars(text))
    assert caught.value.reason == reason
    assert words in caught.value.message
