"""House rules a history may show (``record.VARIANTS``), each on a small PHH hand: the
replay accepts the hand under the rule, records its code, and the row pass follows it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from poolshark.engine.config import GameConfig, HouseRule
from poolshark.engine.table import ForcedBets, Table
from poolshark.histories.phh import parse_phh, write_phh
from poolshark.histories.pokerstars import parse_pokerstars
from poolshark.histories.record import HistoryError
from poolshark.histories.replay import judge
from poolshark.histories.rows import build_rows

#: A big blind with one chip: PokerKit prices the call at that chip.
SHORT_BIG_BLIND = (
    "variant = 'NT'\nantes = [0, 0, 0]\nblinds_or_straddles = [1, 2, 0]\nmin_bet = 2\n"
    "starting_stacks = [100, 1, 100]\n"
    "actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p3 cc', 'p1 cc',"
    " 'd db 2c3d7h', 'p1 cbr 2', 'p3 f', 'd db 8s', 'd db 9s']\n"
)

#: Five antes of 5, one player all-in on 4 of them; the antes go whole into the main pot.
ANTES_IN_MAIN_POT = (
    "variant = 'NT'\nante_trimming_status = false\nantes = [5, 5, 5, 5, 5]\n"
    "blinds_or_straddles = [5, 10, 0, 0, 0]\nmin_bet = 10\n"
    "starting_stacks = [20, 189, 1124, 1586, 4]\n"
    "actions = ['d dh p1 3c2s', 'd dh p2 5c9d', 'd dh p3 Kd6s', 'd dh p4 Tc3h', 'd dh p5 2c7h',"
    " 'p3 cbr 808', 'p4 f', 'p1 f', 'p2 f', 'p3 sm Kd6s', 'p5 sm 2c7h', 'd db 7d7cQc',"
    " 'd db 4h', 'd db 4c']\n"
)

#: Fixed-limit: p1 checks, p2 bets its last chip (half a bet), p1 raises.
SHORT_ALL_IN_REOPENS = (
    "variant = 'FT'\nantes = [0, 0, 0]\nblinds_or_straddles = [1, 2, 0]\n"
    "small_bet = 2\nbig_bet = 4\nstarting_stacks = [100, 3, 100]\n"
    "actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p3 cc', 'p1 cc', 'p2 cc',"
    " 'd db 2c3d7h', 'p1 cc', 'p2 cbr 1', 'p3 cc', 'p1 cbr 3', 'p3 f', 'd db 8s', 'd db 9s']\n"
)


def test_a_call_priced_at_a_short_big_blind_is_posted_price() -> None:
    record = judge(parse_phh(SHORT_BIG_BLIND)).record
    assert record.variants == ("posted-price",)
    assert [a.amount for a in record.actions[:2]] == [100, 0]  # the limp is 1 chip (cents)
    rows = build_rows([record])
    assert not rows.rejected
    assert rows.frame.height == len(record.actions)
    assert rows.frame["variants"].to_list()[0] == "posted-price"


def test_the_engine_keeps_the_full_price_by_default() -> None:
    """The card-room rule (PokerStars): others call the full big blind; under the house
    rule only what the short big blind posted."""
    config = GameConfig(seats=3)
    full = Table(config, [100, 100, 1], forced=ForcedBets((0, 1, 2)))
    posted = Table(
        config, [100, 100, 1], forced=ForcedBets((0, 1, 2), house_rules=HouseRule.POSTED_PRICE)
    )
    assert (full.legal().call, full.legal().min_raise_to) == (2, 4)
    assert (posted.legal().call, posted.legal().min_raise_to) == (1, 3)


def test_antes_in_the_main_pot_show_in_the_winnings() -> None:
    with_stacks = ANTES_IN_MAIN_POT + "finishing_stacks = [10, 174, 1134, 1581, 24]\n"
    judged = judge(parse_phh(with_stacks))
    assert judged.record.variants == ("antes-in-main-pot",)
    assert judged.table.stack[-1] == 2400  # the short player wins all five antes
    # without an outcome nothing shows the rule: the engine's (antes count like bets)
    plain = judge(parse_phh(ANTES_IN_MAIN_POT))
    assert plain.record.variants == ()
    assert plain.table.stack[-1] == 2000
    trimmed = with_stacks.replace("[10, 174, 1134, 1581, 24]", "[10, 174, 1138, 1581, 20]")
    assert judge(parse_phh(trimmed)).record.variants == ()


def test_a_short_all_in_bet_that_reopens_is_a_variant() -> None:
    record = judge(parse_phh(SHORT_ALL_IN_REOPENS)).record
    assert record.variants == ("short-all-in-reopens",)
    rows = build_rows([record])
    assert not rows.rejected
    assert rows.frame.height == len(record.actions)


def test_a_raise_no_rule_allows_stays_illegal() -> None:
    """p1 checked and faces no bet at all from a short all-in: its raise is still illegal."""
    text = SHORT_ALL_IN_REOPENS.replace(
        "'p2 cbr 1', 'p3 cc', 'p1 cbr 3'", "'p2 cc', 'p3 cbr 2', 'p1 cbr 9'"
    )
    with pytest.raises(HistoryError, match="raise"):
        judge(parse_phh(text))


def test_the_writer_states_how_antes_are_settled() -> None:
    """Uniform antes settle like bets (``true``); a record showing the house rule, or a
    big-blind ante, is written untrimmed (``false``)."""
    plain = judge(parse_phh(ANTES_IN_MAIN_POT)).record
    assert "ante_trimming_status = true" in write_phh(plain)
    shown = judge(parse_phh(ANTES_IN_MAIN_POT + "finishing_stacks = [10, 174, 1134, 1581, 24]\n"))
    assert "ante_trimming_status = false" in write_phh(shown.record)
    again = judge(parse_phh(write_phh(shown.record))).record
    assert again.variants == ("antes-in-main-pot",)


#: A four-way chop of a $4 pot raked $0.15, the rake charged to the winners unequally.
FOUR_WAY_CHOP = Path(__file__).parent / "data" / "pokerstars" / "four_way_chop_uneven_rake.txt"


@pytest.mark.parametrize(
    ("winnings", "variants"),
    [
        ((97, 97, 96, 95), ("rake-split",)),  # as the file: each bears 3 to 5 of the rake
        ((96, 97, 96, 96), ()),  # the engine's odd chip: first left of the button
        ((97, 96, 96, 96), ("rake-split",)),  # another winner has the rake's odd chip
        ((85, 100, 100, 100), ("rake-split",)),  # one winner bears the whole rake
    ],
)
def test_a_split_pots_rake_may_fall_unequally(
    winnings: tuple[int, ...], variants: tuple[str, ...]
) -> None:
    """Winners of a raked split pot may bear its rake unequally; chips are never made."""
    record = parse_pokerstars(FOUR_WAY_CHOP.read_text())
    assert record.winnings == (97, 97, 96, 95)
    judged = judge(replace(record, winnings=winnings))
    assert judged.record.variants == variants


@pytest.mark.parametrize("winnings", [(84, 101, 100, 100), (97, 97, 96, 96), (101, 95, 95, 94)])
def test_a_split_pot_never_pays_past_a_whole_share(winnings: tuple[int, ...]) -> None:
    """More than a share before the rake, or chips the pot does not hold, stay a mismatch."""
    record = parse_pokerstars(FOUR_WAY_CHOP.read_text())
    with pytest.raises(HistoryError, match="replay-mismatch"):
        judge(replace(record, winnings=winnings))
