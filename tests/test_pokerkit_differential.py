"""PokerKit as referee for PHH, both ways, on random hands (``histories.referee``).

PokerKit writes random no-limit and fixed-limit hands (2-10 seats, antes, big-blind antes,
straddles, short stacks, side pots, unknown cards, ids present and absent) and poolshark
must read and judge every one to PokerKit's final stacks with one row per voluntary
action, by the plain path and by ingestion, recording the house rules PokerKit follows
where a hand shows them (``posted-price``, ``antes-in-main-pot``, ``short-all-in-reopens``,
``limit-cap-4``, ``odd-chip``); poolshark writes engine hands and PokerKit must replay
them to our final stacks, up to its odd-chip rule. The default run takes a few thousand
hands; the slow one, 10,000 each way.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from polars.testing import assert_frame_equal

pytest.importorskip("pokerkit")

from poolshark.histories.fast import RowBatch, content_id, judge_hands
from poolshark.histories.fast_split import read_blocks
from poolshark.histories.ingest import ingest
from poolshark.histories.phh import parse_phh, write_phh
from poolshark.histories.record import VARIANTS, HistoryError
from poolshark.histories.referee import (
    PokerKitHand,
    judge_pokerkit_hand,
    phhs_text,
    pokerkit_agrees,
    pokerkit_final_stacks,
    pokerkit_hands,
    poolshark_record,
)
from poolshark.histories.replay import judge
from poolshark.histories.rows import build_rows


def check_pokerkit_hands(hands: list[PokerKitHand]) -> tuple[Counter[str], Counter[str]]:
    """Judge every hand: (variants of those accepted, reasons of those rejected). A hand
    accepted always ends on PokerKit's stacks."""
    variants: Counter[str] = Counter()
    rejected: Counter[str] = Counter()
    for hand in hands:
        try:
            record = judge_pokerkit_hand(hand)
        except HistoryError as error:
            rejected[error.reason] += 1
            continue
        variants.update(record.variants or ("none",))
        assert set(record.variants) <= set(VARIANTS)
    return variants, rejected


def test_pokerkit_hands_are_judged_to_pokerkit_stacks() -> None:
    hands = pokerkit_hands(1500, seed=11)
    variants, rejected = check_pokerkit_hands(hands)
    assert not rejected
    assert variants["limit-cap-4"] > 50  # PokerKit's fixed-limit cap shows often
    for rule in ("odd-chip", "posted-price", "antes-in-main-pot"):
        assert variants[rule] > 0


def test_a_pokerkit_file_is_ingested_in_full(tmp_path: Path) -> None:
    """Through ``ingest``: every hand parsed (none lost as a duplicate though half have no
    id), one row per voluntary action; ingesting again adds nothing."""
    hands = pokerkit_hands(1200, seed=12)
    path = tmp_path / "pokerkit.phhs"
    path.write_text(phhs_text([h.text for h in hands]))
    summary = ingest([path], out=tmp_path / "out", workers=1)
    assert (summary.seen, summary.parsed, summary.duplicates) == (len(hands), len(hands), 0)
    assert summary.rows == sum(h.actions for h in hands)
    assert summary.fast > 0.85 * len(hands)  # limit-cap-4, finishing_stacks, short blinds
    again = ingest([path], out=tmp_path / "out", workers=1)
    assert (again.parsed, again.duplicates) == (0, summary.parsed)


def test_the_fast_path_matches_the_plain_path_on_pokerkit_files(tmp_path: Path) -> None:
    """Same decisions and the same rows (variants, content ids) by both paths."""
    hands = pokerkit_hands(900, seed=13)
    path = tmp_path / "pokerkit.phhs"
    path.write_text(phhs_text([h.text for h in hands]))
    outcomes: list[object] = []
    batch = RowBatch()
    fast = 0
    for block in read_blocks(path):
        judged = judge_hands(block, 0, block.hands)
        batch.add(judged, np.ones(judged.hands, dtype=np.bool_))
        fast += int(judged.fast.sum())
        for i in range(judged.hands):
            outcomes.append("ok" if judged.accepted[i] else judged.rejected[i][0])
    plain: list[object] = []
    records = []
    for hand in hands:
        record = parse_phh(hand.text)
        if not record.hand_id:
            record = dataclasses.replace(record, hand_id=content_id(hand.text))
        try:
            records.append(judge(record).record)
            plain.append("ok")
        except HistoryError as error:
            plain.append(error.reason)
    assert outcomes == plain
    assert fast > 0.85 * len(hands)
    assert_frame_equal(batch.frame(), build_rows(records).frame)
    assert batch.frame()["variants"].drop_nulls().len() > 0


def test_distinct_hands_without_ids_never_collapse() -> None:
    hands = [h.text for h in pokerkit_hands(300, seed=14) if "no-id" in h.features]
    ids = {content_id(text) for text in hands}
    assert len(ids) == len(set(hands)) == len(hands)
    assert content_id("[7]\n" + hands[0] + "\n\n") == content_id(hands[0])
    changed = hands[0].replace("variant = ", "variant  = ")
    assert content_id(changed) != content_id(hands[0])


def test_poolshark_hands_replay_on_pokerkit() -> None:
    """Our PHH replays on PokerKit to our stacks, or differs only by its odd-chip rule."""
    rng = random.Random(15)
    outcomes: Counter[str] = Counter()
    for number in range(800):
        record, ours = poolshark_record(rng, number + 1)
        outcomes[pokerkit_agrees(record, ours, pokerkit_final_stacks(write_phh(record)))] += 1
    assert outcomes["same"] > 780


def test_an_odd_chip_difference_must_be_one() -> None:
    """PokerKit's stacks are accepted only as another placement of a split pot's odd chip."""
    rng = random.Random(16)
    record, ours = poolshark_record(rng, 1)
    assert pokerkit_agrees(record, ours, ours) == "same"
    giver = next(i for i, chips in enumerate(ours) if chips)
    moved = list(ours)
    moved[giver] -= 1
    moved[(giver + 1) % len(ours)] += 1
    with pytest.raises(AssertionError):
        pokerkit_agrees(record, ours, tuple(moved))


def test_a_raise_beyond_any_known_cap_stays_illegal() -> None:
    text = (
        "variant = 'FT'\nantes = [0, 0, 0]\nblinds_or_straddles = [1, 2, 0]\n"
        "small_bet = 2\nbig_bet = 4\nstarting_stacks = [200, 200, 200]\n"
        "actions = ['d dh p1 ????', 'd dh p2 ????', 'd dh p3 ????', 'p3 cbr 4', 'p1 cbr 6',"
        " 'p2 cbr 8', 'p3 cbr 10', 'p1 cbr 12', 'p2 cbr 14']\n"
    )
    with pytest.raises(HistoryError, match="may not raise now"):
        judge(parse_phh(text))
    fifth = text.replace(", 'p1 cbr 12', 'p2 cbr 14'", ", 'p1 f', 'p2 f'")
    assert judge(parse_phh(fifth)).record.variants == ("limit-cap-4",)


def test_an_odd_chip_to_another_winner_is_a_variant() -> None:
    """A pot of 5 chips split by two: the odd chip to either winner, never elsewhere."""
    base = (
        "variant = 'NT'\nantes = [0, 0, 0]\nblinds_or_straddles = [1, 2, 0]\nmin_bet = 2\n"
        "starting_stacks = [100, 100, 100]\n"
        "actions = ['d dh p1 ????', 'd dh p2 AsKd', 'd dh p3 AhKc', 'p3 cc', 'p1 f', 'p2 cc',"
        " 'd db 2c3d7h', 'p2 cc', 'p3 cc', 'd db 8s', 'p2 cc', 'p3 cc', 'd db 9s', 'p2 cc',"
        " 'p3 cc', 'p2 sm AsKd', 'p3 sm AhKc']\n"
    )
    # the replay counts in cents: 2.5 chips each, so either whole-chip placement is a variant
    for final in ("[99, 101, 100]", "[99, 100, 101]"):
        odd = judge(parse_phh(base + f"finishing_stacks = {final}\n")).record
        assert odd.variants == ("odd-chip",)
    with pytest.raises(HistoryError, match="winnings"):
        judge(parse_phh(base + "finishing_stacks = [99, 99, 102]\n"))


@pytest.mark.slow
def test_ten_thousand_hands_each_way(tmp_path: Path) -> None:
    hands = pokerkit_hands(10_000, seed=21)
    variants, rejected = check_pokerkit_hands(hands)
    assert not rejected
    assert min(variants[rule] for rule in ("posted-price", "antes-in-main-pot", "odd-chip")) > 0
    path = tmp_path / "pokerkit.phhs"
    path.write_text(phhs_text([h.text for h in hands]))
    summary = ingest([path], out=tmp_path / "out", workers=1)
    assert (summary.parsed, summary.rows) == (len(hands), sum(h.actions for h in hands))
    rng = random.Random(22)
    outcomes: Counter[str] = Counter()
    for number in range(10_000):
        record, ours = poolshark_record(rng, number + 1)
        outcomes[pokerkit_agrees(record, ours, pokerkit_final_stacks(write_phh(record)))] += 1
    assert outcomes["same"] + outcomes["odd-chip"] == 10_000
