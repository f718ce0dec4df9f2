"""The real-text corpus (``tests/data/corpus``, sources in ``tests/data/SOURCES.md``).

Hands other people's programs and sites wrote, in every era and export of PokerStars text
and other rooms' text in its layout, in several encodings. Each file is ingested alone and
its accepted and rejected hands (by reason) and encodings are pinned; the fast path and
the plain readers must decide every hand alike; and for the hands in :data:`GOLDEN` the
decisions (player, move, amount), the payouts (winnings, rake) and the variants are pinned
as read off the text by hand.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from poolshark.histories.fast import judge_hands
from poolshark.histories.fast_split import read_blocks
from poolshark.histories.ingest import ingest
from poolshark.histories.record import HistoryError
from poolshark.histories.replay import judge
from poolshark.histories.split import parse_hand, read_hands

CORPUS = Path(__file__).parent / "data" / "corpus"

#: file -> (hands accepted, rejected by reason, hands by encoding, hands the fast path
#: judges alone).
EXPECTED: dict[str, tuple[int, dict[str, int], dict[str, int], int]] = {
    "derived_early_folds.txt": (2, {"replay-illegal": 1}, {"utf-8": 3}, 0),
    "derived_euro_table_cp1252_crlf.txt": (1, {}, {"cp1252": 1}, 0),
    "derived_mixed_cp1252_utf8.txt": (2, {}, {"cp1252": 1, "utf-8": 1}, 0),
    "derived_zoom_2017_utf16.txt": (1, {}, {"utf-16-le": 1}, 0),
    "hhp_cash_2010.txt": (1, {}, {"utf-8": 1}, 1),
    "hhp_zoom_2017.txt": (1, {}, {"utf-8": 1}, 1),
    "hhsmithy_10_max_limit_indented.txt": (1, {}, {"utf-8": 1}, 0),
    "hhsmithy_10_multiple_hands.txt": (10, {}, {"utf-8": 10}, 10),
    "hhsmithy_cap_no_limit.txt": (2, {}, {"utf-8": 2}, 0),
    "hhsmithy_cap_reached_2014.txt": (1, {}, {"utf-8": 1}, 0),
    "hhsmithy_disconnect.txt": (1, {}, {"utf-8": 1}, 1),
    "hhsmithy_euro_table.txt": (1, {}, {"utf-8": 1}, 0),
    "hhsmithy_leaves_mid_hand.txt": (1, {}, {"utf-8": 1}, 1),
    "hhsmithy_no_blank_lines_cap.txt": (14, {}, {"utf-8": 14}, 0),
    "hhsmithy_full_tilt.txt": (0, {"malformed": 1}, {"utf-8": 1}, 0),
    "hhsmithy_full_tilt_heads_up_10.txt": (10, {}, {"utf-8": 10}, 0),
    "hhsmithy_full_tilt_limit.txt": (1, {}, {"utf-8": 1}, 0),
    "hhsmithy_full_tilt_sitting_out.txt": (1, {}, {"utf-8": 1}, 0),
    "hhsmithy_omaha_zoom_run_twice_yuan.txt": (0, {"unsupported-game": 3}, {"utf-8": 3}, 0),
    "poolshark_cap_reached.txt": (2, {}, {"utf-8": 2}, 0),
    "poolshark_old_headers.txt": (2, {}, {"utf-8": 2}, 2),
    "poolshark_other_rooms.txt": (
        1,
        {"home-game": 1, "play-money": 1, "unsupported-site": 1},
        {"utf-8": 4},
        0,
    ),
    "poolshark_table_life.txt": (1, {}, {"utf-8": 1}, 0),
    "poolshark_tracker_export_crlf.txt": (2, {}, {"utf-8": 2}, 2),
    "poolshark_zoom_hand_archive.txt": (2, {}, {"utf-8": 2}, 2),
    "pokerregion_aksnes_2020.txt": (9, {}, {"utf-8": 9}, 8),
    "pokerregion_una_2020.txt": (13, {}, {"utf-8": 13}, 13),
}


def test_the_corpus_is_listed_and_small() -> None:
    """Every corpus file is pinned here and has a source entry; all of it stays small."""
    files = sorted(path.name for path in CORPUS.glob("*.txt"))
    assert files == sorted(EXPECTED)
    sources = (CORPUS.parent / "SOURCES.md").read_text(encoding="utf-8")
    assert [name for name in files if f"`{name}`" not in sources] == []
    assert sum(path.stat().st_size for path in CORPUS.iterdir()) < 300_000


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_ingest_each_file(name: str, tmp_path: Path) -> None:
    """Per file: hands accepted, rejected by reason and read by encoding; counts add up."""
    accepted, rejected, encodings, _ = EXPECTED[name]
    path = CORPUS / name
    summary = ingest([path], tmp_path / "out", backend="serial", workers=1)
    assert summary.balanced
    assert summary.duplicates == 0
    assert summary.file_errors == {}
    assert (summary.parsed, summary.rejected) == (accepted, rejected)
    assert summary.seen == accepted + sum(rejected.values()) == sum(encodings.values())
    assert summary.encodings == {str(path): encodings}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fast_and_plain_paths_agree(name: str) -> None:
    """The fast path decides every hand as the plain reader and replay do, and judges
    alone the hands pinned as fast."""
    plain: list[str] = []
    for raw in read_hands(CORPUS / name):
        try:
            judge(parse_hand(raw))
            plain.append("accepted")
        except HistoryError as error:
            plain.append(error.reason)
    fast: list[str] = []
    alone = 0
    for block in read_blocks(CORPUS / name):
        judged = judge_hands(block, 0, block.hands)
        alone += int(judged.fast.sum())
        for i in range(judged.hands):
            fast.append("accepted" if judged.accepted[i] else judged.rejected[i][0])
    assert fast == plain
    assert alone == EXPECTED[name][3]
    decided = Counter(plain)
    assert decided["accepted"] == EXPECTED[name][0]


@dataclass(frozen=True)
class Golden:
    """One hand read off its text by hand: ``"STREET NAME: MOVE"`` per voluntary action
    (``f`` fold, ``c<chips>`` check or call, ``r<chips>`` bet or raise to), the winnings
    per player and the rake, in cents."""

    file: str
    index: int
    actions: tuple[str, ...]
    winnings: str
    rake: int
    variants: tuple[str, ...] = ()


GOLDEN = [
    Golden(
        "hhp_cash_2010.txt",
        0,
        (
            "p glaine 59: c10",
            "p AIG 2U: f",
            "p I.C.U-2-Win: r40",
            "p Kozlicek_x: f",
            "p held: f",
            "p stefanengel: c30",
            "p glaine 59: c30",
            "f stefanengel: c0",
            "f glaine 59: r10",
            "f I.C.U-2-Win: c10",
            "f stefanengel: r140",
            "f glaine 59: c25",
            "f I.C.U-2-Win: f",
        ),
        "stefanengel: 195",
        10,
    ),
    Golden(
        "hhp_zoom_2017.txt",
        0,
        (
            "p pfckfdcrbq: f",
            "p Lobster01RUS: f",
            "p moreno627: r10",
            "p Mr.BinAlik: c10",
            "p B0GEYMAN: f",
            "p held: c5",
            "f held: c0",
            "f moreno627: c0",
            "f Mr.BinAlik: c0",
            "t held: c0",
            "t moreno627: c0",
            "t Mr.BinAlik: c0",
            "r held: r15",
            "r moreno627: f",
            "r Mr.BinAlik: f",
        ),
        "held: 31",
        1,
    ),
    Golden(
        "hhsmithy_10_max_limit_indented.txt",
        0,
        (
            "p buddadim: r1000",
            "p FATAL463: f",
            "p slimfast: r1500",
            "p esky7777: f",
            "p buddadim: c500",
            "f slimfast: r500",
            "f buddadim: r1000",
            "f slimfast: c500",
            "t slimfast: c0",
            "t buddadim: r1000",
            "t slimfast: r2000",
            "t buddadim: r3000",
            "t slimfast: r4000",
            "t buddadim: c1000",
            "r slimfast: c0",
            "r buddadim: r1000",
            "r slimfast: c1000",
        ),
        "buddadim: 15300",
        200,
    ),
    Golden(
        "hhsmithy_10_multiple_hands.txt",
        0,
        (
            "p BeastOfPrey7: r150",
            "p plochisch: c100",
            "f plochisch: c0",
            "f BeastOfPrey7: c0",
            "t plochisch: r200",
            "t BeastOfPrey7: c200",
            "r plochisch: r250",
            "r BeastOfPrey7: f",
        ),
        "plochisch: 668",
        32,
    ),
    Golden(
        "hhsmithy_10_multiple_hands.txt",
        4,
        (
            "p BeastOfPrey7: r200",
            "p plochisch: c150",
            "f plochisch: c0",
            "f BeastOfPrey7: r250",
            "f plochisch: r2204",
            "f BeastOfPrey7: f",
        ),
        "plochisch: 860",
        40,
    ),
    Golden(
        "hhsmithy_cap_no_limit.txt",
        0,
        (
            "p willybeer22: r1206",
            "p YurNas: f",
        ),
        "willybeer22: 1200",
        0,
        ("capped-no-limit",),
    ),
    Golden(
        "hhsmithy_disconnect.txt",
        0,
        (
            "p Poszi: f",
            "p JuryMonster: f",
            "p Dantistcopra: f",
            "p brtnboarder: r200",
            "p J.Fousse: c100",
            "f brtnboarder: r248",
            "f J.Fousse: c248",
            "t brtnboarder: c0",
            "t J.Fousse: r600",
            "t brtnboarder: f",
        ),
        "J.Fousse: 856",
        40,
    ),
    Golden(
        "hhsmithy_euro_table.txt",
        0,
        (
            "p MrDurden: f",
            "p MoraI Hazard: f",
            "p GusanoZ: f",
            "p daniferdoser: f",
            "p DionisoA.C.: r880",
            "p mrtittyy: f",
            "p Tarjei82: c480",
            "f Tarjei82: c0",
            "f DionisoA.C.: c0",
            "t Tarjei82: r936",
            "t DionisoA.C.: r3968",
            "t Tarjei82: c3032",
            "r Tarjei82: c0",
            "r DionisoA.C.: c0",
        ),
        "Tarjei82: 9681",
        215,
    ),
    Golden(
        "poolshark_cap_reached.txt",
        0,
        (
            "p callstation: c50",
            "p capper: r200",
            "p shorty: c175",
            "p deep_dave: r1000",
            "p callstation: c950",
            "p capper: c800",
            "p shorty: c440",
        ),
        "deep_dave: 3460",
        180,
        ("capped-no-limit",),
    ),
    Golden(
        "poolshark_cap_reached.txt",
        1,
        (
            "p callstation: r150",
            "p capper: r1000",
            "p deep_dave: f",
            "p callstation: f",
        ),
        "capper: 350",
        0,
        ("capped-no-limit",),
    ),
    Golden(
        "poolshark_old_headers.txt",
        0,
        (
            "p moonraker: r700",
            "p Big Slick 77: c700",
            "p quietmouse: f",
            "p ozzy.k: f",
            "f moonraker: r1200",
            "f Big Slick 77: c1200",
            "t moonraker: r3000",
            "t Big Slick 77: f",
        ),
        "moonraker: 3900",
        200,
    ),
    Golden(
        "poolshark_old_headers.txt",
        1,
        (
            "p lowball larry: r300",
            "p ann_k: c250",
            "p Tenbagger: f",
            "f ann_k: c0",
            "f lowball larry: c0",
            "t ann_k: r400",
            "t lowball larry: c400",
            "r ann_k: c0",
            "r lowball larry: c0",
        ),
        "ann_k: 1435",
        65,
    ),
    Golden(
        "poolshark_table_life.txt",
        0,
        (
            "p newcomer: c25",
            "p lateguy: f",
            "p early: f",
            "p dealer dan: r175",
            "p smally: f",
            "p biggs: f",
            "p strad: c125",
            "p newcomer: f",
            "f strad: c0",
            "f dealer dan: r200",
            "f strad: f",
        ),
        "dealer dan: 450",
        20,
    ),
    Golden(
        "poolshark_tracker_export_crlf.txt",
        0,
        (
            "p dollar_dan: r75",
            "p river rat: f",
            "p sharkbait: c50",
            "f sharkbait: c0",
            "f dollar_dan: r100",
            "f sharkbait: f",
        ),
        "dollar_dan: 152",
        8,
    ),
    Golden(
        "poolshark_zoom_hand_archive.txt",
        0,
        (
            "p K-Dog: f",
            "p 0ptimal: r125",
            "p minraiser: r1240",
            "p north wind: f",
            "p Hero: c1215",
            "p tilt.master: f",
            "p 0ptimal: f",
        ),
        "Hero: 2582",
        73,
    ),
    Golden(
        "hhsmithy_cap_reached_2014.txt",
        0,
        (
            "p KASSIR8485: c100",
            "p GuOlIg: f",
            "p martin070: c100",
            "p jammyd0dger7: f",
            "p ekologe: r2000",
            "p PANTER555: c1774",
            "p KASSIR8485: f",
            "p martin070: f",
        ),
        "ekologe: 3770",
        178,
        ("capped-no-limit",),
    ),
    Golden(
        "hhsmithy_full_tilt_heads_up_10.txt",
        1,
        (
            "p metior: r10000",
            "p TheHoboKing: c5000",
            "f TheHoboKing: c0",
            "f metior: c0",
            "t TheHoboKing: r5000",
            "t metior: c5000",
            "r TheHoboKing: c0",
            "r metior: c0",
        ),
        "TheHoboKing: 29950",
        50,
    ),
    Golden(
        "hhsmithy_full_tilt_limit.txt",
        0,
        (
            "p fuhlsgold: f",
            "p lonestar98: f",
            "p mlcruiser: f",
            "p bob from ct: f",
            "p nowhiningplease: r1000",
            "p ciwei999: f",
            "p oh__pelle: c750",
            "p PreaknessPass: c500",
            "f oh__pelle: r500",
            "f PreaknessPass: f",
            "f nowhiningplease: r1000",
            "f oh__pelle: r1500",
            "f nowhiningplease: c500",
            "t oh__pelle: r1000",
            "t nowhiningplease: c1000",
            "r oh__pelle: r1000",
            "r nowhiningplease: f",
        ),
        "oh__pelle: 7700",
        300,
    ),
    Golden(
        "hhsmithy_full_tilt_sitting_out.txt",
        0,
        (
            "p erki1964: c100",
            "p Jarmuli: f",
            "p M_Mathers: r450",
            "p jacksparrow8119: f",
            "p kukuruzkuckuck: f",
            "p erki1964: c350",
            "f erki1964: r400",
            "f M_Mathers: c400",
            "t erki1964: r500",
            "t M_Mathers: f",
        ),
        "erki1964: 1760",
        90,
    ),
    Golden(
        "pokerregion_aksnes_2020.txt",
        8,
        (
            "p Parker09SA: r10",
            "p pokerHero1: f",
            "p fifita78: f",
            "p GIE0RGE: f",
            "p Trend154reg: f",
            "p subarist085: c10",
            "p Jerry194208: c10",
            "p BRUNOFUENTES27: c9",
            "p Finalflash007: f",
            "f BRUNOFUENTES27: c0",
            "f Parker09SA: r24",
            "f subarist085: f",
            "f Jerry194208: c24",
            "f BRUNOFUENTES27: c24",
            "t BRUNOFUENTES27: r112",
            "t Parker09SA: c112",
            "t Jerry194208: c112",
            "r BRUNOFUENTES27: c0",
            "r Parker09SA: r120",
            "r Jerry194208: c26",
            "r BRUNOFUENTES27: c78",
        ),
        "Parker09SA: 612",
        22,
    ),
    Golden(
        "pokerregion_una_2020.txt",
        6,
        (
            "p Kazooka: f",
            "p pokerHero1: f",
            "p jimmimax: f",
            "p nutzz99: r6",
            "p xBIGRIVERx: f",
            "p revysledneck: c4",
            "p AgeofInnocence: f",
            "p pengjin: f",
            "p Kaufmann I: c4",
            "f Kaufmann I: c0",
            "f nutzz99: c0",
            "f revysledneck: r19",
            "f Kaufmann I: f",
            "f nutzz99: f",
        ),
        "revysledneck: 19",
        1,
    ),
    Golden(
        "derived_early_folds.txt",
        0,
        (
            "p jimmimax: f",
            "p nutzz99: f",
            "p xBIGRIVERx: f",
            "p revysledneck: c2",
            "p AgeofInnocence: f",
            "p pengjin: f",
            "p Kaufmann I: f",
            "p Kazooka: c1",
            "p pokerHero1: c0",
            "f Kazooka: c0",
            "f pokerHero1: c0",
            "f revysledneck: c0",
            "t Kazooka: r2",
            "t pokerHero1: f",
            "t revysledneck: c2",
            "r Kazooka: c0",
            "r revysledneck: c0",
        ),
        "Kazooka: 10",
        0,
        ("early-fold",),
    ),
    Golden(
        "derived_early_folds.txt",
        1,
        (
            "p nutzz99: f",
            "p xBIGRIVERx: f",
            "p revysledneck: c2",
            "p AgeofInnocence: f",
            "p pengjin: c2",
            "p Kaufmann I: f",
            "p Kazooka: c2",
            "p pokerHero1: c1",
            "p jimmimax: c0",
            "f pokerHero1: c0",
            "f jimmimax: r7",
            "f revysledneck: c7",
            "f pengjin: f",
            "f Kazooka: f",
            "f pokerHero1: f",
            "t jimmimax: r16",
            "t revysledneck: f",
        ),
        "jimmimax: 23",
        1,
        ("early-fold",),
    ),
    Golden(
        "poolshark_other_rooms.txt",
        0,
        (
            "p feffe29b: r30",
            "p Hero: f",
            "p 21be2f: c20",
            "f 21be2f: c0",
            "f feffe29b: r33",
            "f 21be2f: f",
        ),
        "feffe29b: 62",
        3,
    ),
]


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda g: f"{g.file}:{g.index}")
def test_golden_decisions_and_payouts(golden: Golden) -> None:
    """The record's actions, winnings and rake are the text's, and the replay agrees."""
    raw = list(read_hands(CORPUS / golden.file))[golden.index]
    record = judge(parse_hand(raw)).record
    names = [seat.player for seat in record.seats]
    moves = {"FOLD": "f", "CHECK_CALL": "c", "RAISE": "r"}
    actions = tuple(
        f"{a.street.name[0].lower()} {names[a.player]}: {moves[a.move.name]}"
        + ("" if a.move.name == "FOLD" else str(a.amount))
        for a in record.actions
    )
    assert actions == golden.actions
    assert record.winnings is not None
    won = ", ".join(f"{names[i]}: {chips}" for i, chips in enumerate(record.winnings) if chips)
    assert won == golden.winnings
    assert record.rake == golden.rake
    assert record.variants == golden.variants
