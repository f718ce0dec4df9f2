"""PokerStars hand histories: the reader on hand-written hands, the writer, the splitter.

The fixtures under ``tests/data/pokerstars`` are written by hand in the site's format and
cover the lines real files hold: Zoom and ring tables, 2 to 9 seats, seats sitting out,
time-outs, disconnects and chat, a new player's "small & big blinds", antes, "doesn't
show", "mucks", shown hands with their descriptions, uncalled bets, three pots with rake,
an all-in cash-out, a dead button, run it twice, names with spaces, brackets, colons and
non-ASCII letters, CRLF line ends, a UTF-8 byte-order mark and several hands per file.
Every amount in them was worked out by hand; the replay checks them all.
"""

from __future__ import annotations

import codecs
import dataclasses
import io
import random
import re
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolshark.cards.card import parse_cards
from poolshark.engine.config import Betting
from poolshark.engine.table import Move, Street, Table
from poolshark.histories.pokerstars import describe_hand, parse_pokerstars, write_pokerstars
from poolshark.histories.record import REJECTION_REASONS, HandRecord, HistoryError, Seat
from poolshark.histories.replay import replay
from poolshark.histories.split import RawHand, parse_hand, read_hands, split_hands
from test_histories_replay import engine_hands, simulated_record

FIXTURES = Path(__file__).parent / "data" / "pokerstars"
ACCEPTED = ("zoom_6max_bom.txt", "ring_9max_crlf.txt", "heads_up_antes_cash_out_run_twice.txt")
#: Lines the records do not keep (they move no chips), so the writer does not print them.
NOTICE = re.compile(
    r"is sitting out$|has timed out|is disconnected$|is connected$|said, \"|: .*Cashout|"
    r" cashed out the hand"
)


def hands(name: str) -> list[RawHand]:
    return list(read_hands(FIXTURES / name))


def records(name: str) -> list[HandRecord]:
    return [parse_hand(raw) for raw in hands(name)]


# -- files into hands -------------------------------------------------------------------


def test_files_split_into_hands_with_their_place() -> None:
    """Blank lines separate hands; the BOM and CRLF ends are gone from the text."""
    raw = hands("zoom_6max_bom.txt")
    assert [(h.index, h.line) for h in raw] == [(0, 1), (1, 32), (2, 78)]
    assert all(h.format == "pokerstars" and h.error is None for h in raw)
    assert raw[0].text.startswith("PokerStars Zoom Hand #254812398741:")
    crlf = hands("ring_9max_crlf.txt")
    assert [h.line for h in crlf] == [1, 54]
    assert not any("\r" in h.text or "\ufeff" in h.text for h in raw + crlf)
    assert (FIXTURES / "ring_9max_crlf.txt").read_bytes().count(b"\r\n") > 50
    assert (FIXTURES / "zoom_6max_bom.txt").read_bytes().startswith(codecs.BOM_UTF8)


def test_glued_files_utf16_and_bad_bytes() -> None:
    """A hand glued to the last without a blank line (a second BOM between them) still
    starts a new hand; UTF-16 files are read; a hand that is not UTF-8 is read as
    Windows-1252; another room's file yields its hands, each rejected."""
    one = (FIXTURES / "heads_up_antes_cash_out_run_twice.txt").read_bytes()
    first, second = one.split(b"\n\n")[:2]
    glued = codecs.BOM_UTF8 + first + b"\n" + codecs.BOM_UTF8 + second + b"\n"
    split = list(split_hands(io.BytesIO(glued)))
    assert [parse_hand(h).hand_id for h in split] == ["230000000001", "230000000777"]
    utf16 = (first + b"\n\n" + second).decode().encode("utf-16")
    assert [parse_hand(h).hand_id for h in split_hands(io.BytesIO(utf16))] == [
        "230000000001",
        "230000000777",
    ]
    latin = first.replace(b"lefty", "lefté".encode("cp1252")) + b"\n\n" + second
    windows, utf8 = split_hands(io.BytesIO(latin))
    assert (windows.encoding, utf8.encoding) == ("cp1252", "utf-8")
    assert "lefté" in [seat.player for seat in parse_hand(windows).seats]
    assert parse_hand(utf8).hand_id == "230000000777"
    (other,) = split_hands(io.BytesIO(b"Bovada Hand #1: ...\n"))
    with pytest.raises(HistoryError) as unknown:
        parse_hand(other)
    assert unknown.value.reason == "unsupported-site"
    assert list(split_hands(io.BytesIO(b"\n\n"))) == []


# -- the reader on the fixtures ---------------------------------------------------------


def test_zoom_hands() -> None:
    """Zoom header and table, odd names, uncalled bet, the hero's cards, a muck, two pots."""
    first, second, third = records("zoom_6max_bom.txt")
    assert first.site == "PokerStars"
    assert first.fast_fold
    assert (first.table, first.max_seats, first.currency) == ("Halley", 6, "USD")
    assert first.time == datetime(2024, 3, 14, 21, 7, 33)
    assert first.extra["time_zone"] == "CET"
    assert [s.player for s in first.seats][:4] == [
        "Kåre Ørnulf",
        "Mr. Pink [NL]",
        "Ñoño: el grande",
        "张伟88",
    ]
    assert (first.small_blind, first.big_blind, first.blinds) == (5, 10, (0, 5, 10, 0, 0, 0))
    assert first.actions[1].move is Move.RAISE
    assert first.actions[1].amount == 25
    assert (first.total_pot, first.rake, first.winnings) == (25, 0, (0, 0, 0, 0, 25, 0))
    assert second.hero == 0
    assert second.hole_cards[0] == tuple(parse_cards("QsJh"))
    assert second.hole_cards[1] == ()  # mucked
    assert second.board == tuple(parse_cards("Jd7c2s9h4d"))
    assert (second.total_pot, second.rake, second.winnings[0]) == (445, 22, 423)
    assert third.extra["pots"] == "713 740"
    assert [a.all_in for a in third.actions if a.player in (1, 2, 3)] == [
        False,
        False,
        True,
        True,
        True,
    ]
    assert third.winnings == (0, 0, 0, 1453, 0, 0)


def test_ring_hand_with_sitting_out_timeouts_and_a_new_player() -> None:
    """Seat 3 sits out (not dealt); 'Dr: Strange' times out and folds; 'quiet one' posts
    small and big blinds (live 50, dead 25) and checks his option; chat is ignored."""
    first, second = records("ring_9max_crlf.txt")
    assert [s.number for s in first.seats] == [1, 2, 4, 5, 6, 8, 9]
    quiet = [s.player for s in first.seats].index("quiet one")
    assert (first.blinds[quiet], first.dead[quiet]) == (50, 25)
    assert first.actions[0].player == quiet
    assert (first.actions[0].move, first.actions[0].amount) == (Move.CHECK_CALL, 0)
    assert first.seats[first.button].player == "José Müller"
    assert first.winnings == (0, 0, 2265, 0, 0, 0, 0)
    assert second.extra["pots"] == "4550 2400 2020"
    assert second.winnings == (0, 0, 4550, 2400, 0, 2020)
    assert "Dr: Strange" not in [s.player for s in second.seats]


def test_heads_up_antes_dead_button_cash_out_and_run_twice() -> None:
    """Heads-up the button posts the small blind; antes are dead money; a button on an
    empty seat moves to the last player before it; cash-out lines are kept aside; both
    boards of a run-it-twice hand."""
    duel, antes, cash_out, twice = records("heads_up_antes_cash_out_run_twice.txt")
    assert (duel.button, duel.blinds) == (1, (100, 50))
    assert antes.ante == 5
    assert antes.dead == (5, 5, 5, 5, 5)
    assert antes.winnings == (0, 206, 205, 0, 0)  # the odd cent left of the button
    assert cash_out.extra["button_seat"] == "3"
    assert cash_out.seats[cash_out.button].number == 2
    assert "Chooses to EV Cashout" in cash_out.extra["cash_out"]
    assert twice.board == tuple(parse_cards("9s8s2dQc3h"))
    assert twice.second_board == tuple(parse_cards("9s8s2d7sAd"))
    assert twice.actions[-1].street is Street.FLOP


def test_rejected_hands_name_their_reason() -> None:
    """Tournament, play money, Omaha, pot-limit, a hand cut short, an unknown line."""
    reasons = []
    for raw in hands("rejected.txt"):
        with pytest.raises(HistoryError) as caught:
            parse_hand(raw)
        reasons.append(caught.value.reason)
    assert reasons == [
        "tournament",
        "play-money",
        "unsupported-game",
        "unsupported-game",
        "truncated",
        "malformed",
    ]


# -- every era and export: the real-text corpus -------------------------------------------

CORPUS = FIXTURES.parent / "corpus"


def corpus(name: str) -> list[RawHand]:
    return list(read_hands(CORPUS / name))


def test_capped_no_limit_plays_each_stack_up_to_the_cap() -> None:
    """``$0.25/$0.50 - $10 Cap - USD``: each player's stack is the cap (the real one kept),
    reaching the cap is all-in, and the replay pays the side pot of the three who capped."""
    capped, raised = (parse_hand(raw) for raw in corpus("poolshark_cap_reached.txt"))
    assert capped.variants == ("capped-no-limit",)
    assert (capped.small_blind, capped.big_blind, capped.extra["cap"]) == (25, 50, "1000")
    assert [s.stack for s in capped.seats] == [1000, 640, 1000, 1000]
    assert capped.extra["stacks"] == "5000 640 12000 2500"
    assert [a.all_in for a in capped.actions] == [False] * 3 + [True] * 4
    assert replay(capped).stack[2] == 3460
    assert replay(raised).stack == [1000 + 200, 1000 - 50, 1000 - 150]
    uncapped = dataclasses.replace(
        capped, seats=tuple(Seat(s.number, s.player, 5000) for s in capped.seats)
    )
    with pytest.raises(HistoryError) as caught:  # the cap is what makes the hand add up
        replay(uncapped)
    assert caught.value.reason.startswith("replay-")
    text = corpus("poolshark_cap_reached.txt")[0].text.replace(
        "reached the $10 cap", "reached the $20 cap", 1
    )
    with pytest.raises(HistoryError, match="cap other than"):
        parse_pokerstars(text)
    for raw in corpus("poolshark_cap_reached.txt"):  # the writer prints the cap back
        expected = raw.text.replace("Game #", "Hand #", 1).splitlines()
        assert write_pokerstars(parse_hand(raw)).splitlines() == expected
    (real,) = [parse_hand(raw) for raw in corpus("hhsmithy_cap_no_limit.txt")][1:]
    assert real.variants == ("capped-no-limit",)
    assert [s.stack for s in real.seats] == [12000, 12000]


def test_old_headers_tables_without_a_size_and_any_case() -> None:
    """The pre-2010 headers, a table line without its size, a tracker's upper-case header
    with trailing spaces and CRLF, hands glued without a blank line."""
    dashed, bracketed = (parse_hand(raw) for raw in corpus("poolshark_old_headers.txt"))
    assert dashed.time == datetime(2009, 10, 12, 23, 45, 12)
    assert (dashed.extra["time_zone"], dashed.max_seats, dashed.currency) == ("ET", None, "USD")
    assert bracketed.extra["time_et"] == "[2009/05/06 12:34:56 ET]"
    assert bracketed.extra["time_zone"] == "CET"
    upper, mixed = (parse_hand(raw) for raw in corpus("poolshark_tracker_export_crlf.txt"))
    assert (upper.site, upper.hand_id, mixed.hand_id) == (
        "PokerStars",
        "40123456789",
        "40123456790",
    )
    assert upper.winnings == (0, 152, 0)
    (limit,) = (parse_hand(raw) for raw in corpus("hhsmithy_10_max_limit_indented.txt"))
    assert (limit.betting, limit.max_seats, limit.players) == (Betting.FIXED_LIMIT, 10, 4)
    assert [s.number for s in limit.seats] == [1, 2, 3, 10]


def test_archives_separators_and_indentation() -> None:
    """``*********** # N ***`` lines separate hands (a glued archive) and are not part of
    any; indented lines read as if they were not."""
    first, second = corpus("poolshark_zoom_hand_archive.txt")
    assert (first.line, second.line) == (2, 38)
    assert not first.text.startswith("*")
    assert "**** #" not in first.text
    assert parse_hand(second).fast_fold
    text = first.text.replace("\n", "\n   ")
    assert parse_pokerstars(text) == parse_hand(first)


def test_table_life_lines() -> None:
    """A straddle, a new player's big blind, dead and live blinds, a player waiting for
    the button, a disconnect and a time-out, a table deposit."""
    (record,) = (parse_hand(raw) for raw in corpus("poolshark_table_life.txt"))
    names = [s.player for s in record.seats]
    assert "waiting wendy" not in names
    assert record.blinds == (0, 0, 10, 25, 50, 25, 25)
    assert record.dead == (0, 0, 0, 0, 0, 0, 10)
    assert record.extra["deposits"] == "early: Table deposit $5"
    assert replay(record).stack[1] == 3000 - 175 + 450


def test_other_rooms_home_games_and_play_money() -> None:
    """Another room's hand in PokerStars' layout is read with its site; a room whose text
    is not in it, a home game and play money are rejected each with its own reason; a
    Full Tilt hand whose small blind has no seat line is malformed (its stack is unknown)."""
    raws = corpus("poolshark_other_rooms.txt")
    gg = parse_hand(raws[0])
    assert (gg.site, gg.hand_id, gg.rake, gg.time) == (
        "GGPoker",
        "RC1330589595",
        3,
        datetime(2023, 2, 8, 19, 10, 27),
    )
    reasons = []
    for raw in [*raws[1:], *corpus("hhsmithy_full_tilt.txt")]:
        with pytest.raises(HistoryError) as caught:
            parse_hand(raw)
        reasons.append(caught.value.reason)
    assert reasons == ["unsupported-site", "home-game", "play-money", "malformed"]
    gg = raws[0].text
    rio = gg.replace("Poker Hand #RC", "Run It Once Poker Hand #", 1)
    drop = gg.replace("*** HOLE CARDS ***", "*** HOLE CARDS ***\nCash Drop to Pot : total $1")
    for text, reason in ((rio, "unsupported-site"), (drop, "unsupported-game")):
        with pytest.raises(HistoryError) as caught:
            parse_pokerstars(text)
        assert caught.value.reason == reason
    assert {"home-game", "unsupported-site"} <= set(REJECTION_REASONS)


def test_currencies() -> None:
    """Dollars, euros, yuan (``¥``: CNY) and bare chips in a real-money header."""
    (euro,) = (parse_hand(raw) for raw in corpus("hhsmithy_euro_table.txt"))
    assert (euro.currency, euro.big_blind, euro.rake) == ("EUR", 400, 215)
    text = corpus("poolshark_old_headers.txt")[0].text
    yuan = parse_pokerstars(text.replace("$", "¥").replace("(¥1/¥2)", "(¥1/¥2 CNY)"))
    assert (yuan.currency, yuan.winnings) == ("CNY", (390 * 10, 0, 0, 0))
    chips = parse_pokerstars(text.replace("$", ""))
    assert (chips.currency, chips.big_blind) == ("XXX", 200)


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "cp1252"])
def test_encodings(encoding: str) -> None:
    """A file in UTF-8 (with a byte-order mark), UTF-16 (with one, or without one either
    way round) or Windows-1252 (the euro sign as byte 0x80) gives the same hands, each
    saying how it was read."""
    text = (CORPUS / "hhsmithy_euro_table.txt").read_text(encoding="utf-8")
    raws = list(split_hands(io.BytesIO(text.encode(encoding))))
    assert [parse_hand(raw) for raw in raws] == [
        parse_hand(r) for r in corpus("hhsmithy_euro_table.txt")
    ]
    named = {"utf-8-sig": "utf-8", "utf-16": "utf-16-le"}.get(encoding, encoding)
    assert [raw.encoding for raw in raws] == [named]


def test_undecodable_bytes_fall_back_to_latin_1() -> None:
    """Bytes Windows-1252 leaves undefined (0x81) are read as Latin-1: the hand is kept
    and the reader judges its text."""
    (raw,) = split_hands(io.BytesIO(b"PokerStars Hand #1: \x81\n"))
    assert raw.encoding == "latin-1"
    with pytest.raises(HistoryError) as caught:
        parse_hand(raw)
    assert caught.value.reason == "malformed"


def test_names_are_matched_longest_first() -> None:
    """A player called 'A' and another called 'A: B' at the same table."""
    text = (FIXTURES / "heads_up_antes_cash_out_run_twice.txt").read_text().split("\n\n")[0]
    text = text.replace("lefty", "A").replace("righty", "A: B")
    record = parse_pokerstars(text)
    assert [s.player for s in record.seats] == ["A", "A: B"]
    assert [a.player for a in record.actions][:3] == [1, 0, 1]


# -- the writer -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ACCEPTED)
def test_writer_prints_the_fixtures_line_for_line(name: str) -> None:
    """Each hand-written hand, read and written again, comes back line for line, except
    the lines a record does not keep (notices, chat, cash-out offers, sitting-out seats)."""
    for raw in hands(name):
        expected = [line for line in raw.text.splitlines() if not NOTICE.search(line)]
        assert write_pokerstars(parse_hand(raw)).splitlines() == expected


def test_hand_descriptions_in_the_sites_words() -> None:
    cases = {
        "AhKd": "high card Ace",
        "AhAd": "a pair of Aces",
        "AhKdQcJsTs": "a straight, Ten to Ace",
        "Ah2d3c4s5s9h": "a straight, Ace to Five",
        "6h6d6cKsKh": "a full house, Sixes full of Kings",
        "AhKhQhJhTh": "a Royal Flush",
        "9h8h7h6h5h": "a straight flush, Five to Nine",
        "2h7h9hJhKh3c": "a flush, King high",
        "2h2d2c2s": "four of a kind, Deuces",
        "5h5d9c9sAc": "two pair, Nines and Fives",
    }
    for cards, words in cases.items():
        assert describe_hand(parse_cards(cards)) == words


def test_writer_refuses_what_the_format_cannot_say() -> None:
    record = records("heads_up_antes_cash_out_run_twice.txt")[0]
    from dataclasses import replace

    for bad, match in [
        (replace(record, unit=Decimal("0.001")), "cents"),
        (replace(record, currency="XYZ"), "currency"),
        (replace(record, hand_id="sim-1"), "numbers"),
    ]:
        with pytest.raises(ValueError, match=match):
            write_pokerstars(bad)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(engine_hands(), min_size=1, max_size=3), st.booleans())
def test_round_trip_of_engine_hands(tables: list[Table], fast_fold: bool) -> None:
    """Engine hands written as PokerStars text read back as the same records (several per
    file, split again), and the text replays."""
    originals = [
        simulated_record(table, 9_000_000 + i, hero=0, fast_fold=fast_fold)
        for i, table in enumerate(tables)
    ]
    text = "\n\n".join(write_pokerstars(r) for r in originals)
    again = [parse_hand(raw) for raw in split_hands(io.BytesIO(text.encode()))]
    assert again == originals
    for record in again:
        replay(record)
        assert record.betting in Betting


# -- corrupted hands --------------------------------------------------------------------


def corrupt(text: str, rng: random.Random) -> str:
    """One random damage: cut, drop, double or swap lines, or flip characters."""
    if not text:  # an earlier cut left nothing to damage
        return text
    lines = text.split("\n")
    match rng.randrange(6):
        case 0:
            return text[: rng.randrange(len(text))]
        case 1:
            del lines[rng.randrange(len(lines))]
        case 2:
            at = rng.randrange(len(lines))
            lines.insert(at, lines[at])
        case 3:
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        case 4:
            chars = list(text)
            for _ in range(rng.randint(1, 3)):
                chars[rng.randrange(len(chars))] = rng.choice("0123456789$.,:[]() '\"=-#?\nhsKé张")
            return "".join(chars)
        case _:
            at = rng.randrange(len(lines))
            lines[at] = lines[at][: len(lines[at]) // 2]
    return "\n".join(lines)


FUZZ_SOURCES = [raw for name in ACCEPTED for raw in read_hands(FIXTURES / name)]


@settings(max_examples=400, deadline=None)
@given(st.integers(0, len(FUZZ_SOURCES) - 1), st.integers(0, 2**32 - 1), st.integers(1, 3))
def test_corrupted_hands_parse_or_are_rejected_with_a_reason(
    which: int, seed: int, damages: int
) -> None:
    """Whatever the damage, reading and replaying either succeed or raise HistoryError
    with a known reason: never another exception."""
    rng = random.Random(seed)
    raw = FUZZ_SOURCES[which]
    text = raw.text
    for _ in range(damages):
        text = corrupt(text, rng)
    reason = None
    try:
        replay(parse_hand(RawHand(text, raw.source, raw.index, raw.line, raw.format)))
    except HistoryError as error:
        reason = error.reason
    assert reason is None or reason in REJECTION_REASONS
