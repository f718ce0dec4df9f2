"""Folds written before the player's turn (a fold in advance, a fast fold).

The replay plays such a fold at the player's turn when only folds, checks and calls come
between, and keeps the hand with the variant ``early-fold`` and its actions in the order
played; a bet or raise between, or a betting round that ends first, leaves it out of turn
(``replay-illegal``, naming the fold). Engine hands with one fold moved earlier check
both ways; a real PokerStars hand with its fold line moved checks the text end to end.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolshark.engine.table import Move, Table
from poolshark.histories.record import VARIANTS, HandRecord, HistoryError
from poolshark.histories.replay import judge
from poolshark.histories.split import parse_hand, read_hands
from test_histories_replay import engine_hands, simulated_record

CORPUS = Path(__file__).parent / "data" / "corpus"


def moved_earlier(record: HandRecord, fold: int, to: int) -> HandRecord:
    """``record`` with action ``fold`` moved to position ``to`` (earlier)."""
    actions = list(record.actions)
    actions.insert(to, actions.pop(fold))
    return replace(record, actions=tuple(actions))


def early_folds(record: HandRecord) -> list[tuple[int, int, bool]]:
    """(fold, earlier position, acceptable) for every fold and every earlier place in
    its betting round after the player's previous action; acceptable when only folds,
    checks and calls lie between."""
    moves = []
    actions = record.actions
    for i, action in enumerate(actions):
        if action.move is not Move.FOLD:
            continue
        j = i
        while j > 0:
            before = actions[j - 1]
            if before.street != action.street or before.player == action.player:
                break
            j -= 1
            between = actions[j:i]
            moves.append((i, j, all(a.move is not Move.RAISE for a in between)))
    return moves


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=engine_hands(), pick=st.integers(0, 10**6))
def test_a_fold_moved_earlier_is_played_at_its_turn_unless_a_raise_comes_between(
    table: Table, pick: int
) -> None:
    record = simulated_record(table, 1)
    moves = early_folds(record)
    if not moves:
        return
    fold, to, acceptable = moves[pick % len(moves)]
    early = moved_earlier(record, fold, to)
    if acceptable:
        judged = judge(early).record
        assert judged.actions == record.actions
        assert judged.variants == ("early-fold",)
        assert judged.winnings == record.winnings
    else:
        with pytest.raises(HistoryError, match="out of turn") as caught:
            judge(early)
        assert caught.value.reason == "replay-illegal"


def test_a_hand_in_turn_carries_no_variant() -> None:
    for raw in read_hands(CORPUS / "pokerregion_una_2020.txt"):
        assert judge(parse_hand(raw)).record.variants == ()


def test_the_real_hand_with_its_fold_line_moved() -> None:
    """The corpus hands: two early folds accepted (the fold played at its turn), one with
    a bet between rejected with a message naming the fold and the bet."""
    raws = list(read_hands(CORPUS / "derived_early_folds.txt"))
    first = judge(parse_hand(raws[0])).record
    names = [seat.player for seat in first.seats]
    folds = [names[a.player] for a in first.actions if a.move is Move.FOLD]
    assert folds[:5] == ["jimmimax", "nutzz99", "xBIGRIVERx", "AgeofInnocence", "pengjin"]
    assert folds[5] == "Kaufmann I"
    assert first.variants == ("early-fold",)
    assert "early-fold" in VARIANTS
    with pytest.raises(HistoryError) as caught:
        judge(parse_hand(raws[2]))
    assert caught.value.reason == "replay-illegal"
    assert "'AgeofInnocence' folds) is out of turn" in caught.value.message
    assert "'Kazooka' raises to 9" in caught.value.message


def test_a_fold_whose_turn_never_comes_is_out_of_turn() -> None:
    """A player who has called and faces no raise has no turn left in the round: a fold
    written then is out of turn."""
    raw = next(iter(read_hands(CORPUS / "pokerregion_una_2020.txt")))
    record = parse_hand(raw)
    actions = list(record.actions)
    names = [seat.player for seat in record.seats]
    caller = next(i for i, a in enumerate(actions) if names[a.player] == "revysledneck")
    fold = replace(actions[caller], move=Move.FOLD, amount=0)
    actions.insert(caller + 2, fold)  # after his call, before the round ends
    with pytest.raises(HistoryError, match="the betting round ends first") as caught:
        judge(replace(record, actions=tuple(actions)))
    assert caught.value.reason == "replay-illegal"
