"""Leak explorer: scores worked out by hand, the sample filter, per-player counts, the
push/fold reference, records rebuilt from rows, and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from poolshark.analysis.leaks import (
    CALL_SHOVE,
    LEAK_NAMES,
    SHOVE,
    LeakError,
    PushFoldReference,
    count_sample,
    find_leaks,
    load_source,
    records_from_rows,
    simulated_sample,
    unranked,
)
from poolshark.cli import app
from poolshark.engine.table import Move, Street
from poolshark.equity.matrix import PreflopMatrices
from poolshark.histories.record import HandRecord, RecordedAction, Seat
from poolshark.histories.rows import decision_rows
from poolshark.pool.simulate import pokerstars_text, simulate
from poolshark.pool.spots import N_SPOTS, SPOT_NAMES
from poolshark.pool.stats import spot_tally_hands, wilson_interval
from poolshark.solve.shove_fold import ShoveFoldGame, fraction_of_combos, payoffs
from poolshark.solve.solvers import solve_exact
from test_pool_simulate import pool_of

P = Street.PREFLOP
REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "handhq-ps25"


def six_max(actions: list[tuple[int, Move, int]], hand_id: int) -> HandRecord:
    """A 6-max 1/2 preflop hand, 200 chips each, button on index 5; players ``p0``..``p5``
    (p2 is EP, p3 MP, p4 CO, p5 BTN, p0 SB, p1 BB)."""
    return HandRecord(
        site="Test",
        hand_id=str(hand_id),
        seats=tuple(Seat(i + 1, f"p{i}", 200) for i in range(6)),
        button=5,
        small_blind=1,
        big_blind=2,
        blinds=(1, 2, 0, 0, 0, 0),
        dead=(0,) * 6,
        actions=tuple(RecordedAction(P, p, m, a) for p, m, a in actions),
    )


FOLD, CALL, RAISE = Move.FOLD, Move.CHECK_CALL, Move.RAISE


def button_opens(hand_id: int) -> HandRecord:
    """Folded to the button, who raises to 5; the blinds fold."""
    return six_max(
        [(2, FOLD, 0), (3, FOLD, 0), (4, FOLD, 0), (5, RAISE, 5), (0, FOLD, 0), (1, FOLD, 0)],
        hand_id,
    )


def cutoff_limps(hand_id: int) -> HandRecord:
    """The cutoff limps, the button and the small blind fold, the big blind checks."""
    return six_max(
        [(2, FOLD, 0), (3, FOLD, 0), (4, CALL, 2), (5, FOLD, 0), (0, FOLD, 0), (1, CALL, 0)],
        hand_id,
    )


def walk(hand_id: int) -> HandRecord:
    """Everyone folds to the big blind."""
    return six_max([(p, FOLD, 0) for p in (2, 3, 4, 5, 0)], hand_id)


def subject_and_reference() -> tuple[list[HandRecord], list[HandRecord]]:
    """Subject: 40 hands where the button opens, 20 where the cutoff limps; reference: 60
    walks (nobody ever opens or limps)."""
    subject = [button_opens(h) for h in range(40)] + [cutoff_limps(h) for h in range(40, 60)]
    return subject, [walk(h) for h in range(60)]


def test_scores_worked_out_by_hand() -> None:
    """open.BTN: 40/40 against 0, 40 per 60 hands, pot 3 chips = 1.5 bb: score
    1 x 66.67 x 1.5 = 100. limp.CO: 20/60 against 0, 100 per 100 hands: 1/3 x 100 x 1.5 =
    50. Every other rated statistic matches the reference (score 0); three_bet and
    cold_call have no reference opportunities."""
    records, reference_records = subject_and_reference()
    subject, _ = count_sample(records, label="subject")
    reference, _ = count_sample(reference_records, label="reference")
    leaks = find_leaks(subject, reference)
    first, second = leaks[0], leaks[1]
    assert (first.name, first.hits, first.opportunities) == ("open.BTN", 40, 40)
    assert first.rate == 1.0
    assert first.reference.value == 0.0
    assert first.difference == 1.0
    assert first.frequency == pytest.approx(200 / 3)
    assert first.stake_bb == pytest.approx(1.5)
    assert first.score == pytest.approx(100.0)
    assert first.significant
    assert (first.low, first.high) == wilson_interval(40, 40)
    assert (first.reference.low, first.reference.high) == wilson_interval(0, 60)
    assert first.reference.opportunities == 60
    assert (second.name, second.hits, second.opportunities) == ("limp.CO", 20, 60)
    assert second.difference == pytest.approx(1 / 3)
    assert second.score == pytest.approx(50.0)
    rest = leaks[2:]
    assert [leak.name for leak in rest] == sorted(leak.name for leak in rest)
    assert all(leak.score == 0 and not leak.significant for leak in rest)
    assert {leak.name for leak in rest} == {
        "open.EP", "open.MP", "open.CO", "limp.EP", "limp.MP", "limp.BTN",
    }  # fmt: skip
    assert unranked(subject, reference)["three_bet.BB"] == "no reference"
    assert [leak.name for leak in find_leaks(subject, reference, top=1)] == ["open.BTN"]
    against_itself = find_leaks(subject, subject, min_opportunities=1)
    assert against_itself
    assert all(leak.score == 0 and not leak.significant for leak in against_itself)


def test_minimum_sample_filters_the_subject_and_the_reference() -> None:
    records, reference_records = subject_and_reference()
    subject, _ = count_sample(records, label="subject")
    reference, _ = count_sample(reference_records, label="reference")
    names = {leak.name for leak in find_leaks(subject, reference, min_opportunities=41)}
    assert "open.BTN" not in names
    assert "limp.CO" in names
    assert unranked(subject, reference, 41)["open.BTN"] == "few (40)"
    assert find_leaks(subject, reference, min_opportunities=61) == []  # the reference has 60
    with pytest.raises(LeakError, match="at least 1"):
        find_leaks(subject, reference, min_opportunities=0)


def test_one_player_against_the_rest() -> None:
    """p5 opens the button 40 times; the rest never open, so p5's open.BTN is 40/40 over
    60 hands, and the rest's counts are everyone's less p5's."""
    records, _ = subject_and_reference()
    everyone, _ = count_sample(records, label="all")
    hero, rest = count_sample(records, label="all", player="p5")
    assert hero.hands == rest.hands == 60
    np.testing.assert_array_equal(hero.chances + rest.chances, everyone.chances)
    np.testing.assert_array_equal(hero.hits + rest.hits, everyone.hits)
    index = LEAK_NAMES.index("open.BTN")
    assert (hero.hits[index], hero.chances[index]) == (40, 40)
    assert rest.chances[index] == 0
    assert hero.chances[LEAK_NAMES.index("limp.CO")] == 0


def test_per_player_counts_sum_to_the_compiled_counts() -> None:
    """On simulated hands the per-decision counts, summed over players, are the compiled
    spot counter's, and pots are positive wherever there are opportunities."""
    hands = simulate(pool_of(6), 300, seed=3, tables=8)
    records = list(hands.records())
    everyone, _ = count_sample(records, label="sim")
    tally = spot_tally_hands(hands)
    np.testing.assert_array_equal(everyone.chances[:N_SPOTS], tally.chances)
    np.testing.assert_array_equal(everyone.hits[:N_SPOTS], tally.hits)
    name = records[0].seats[0].player
    mine, others = count_sample(records, label="sim", player=name)
    np.testing.assert_array_equal(mine.chances + others.chances, everyone.chances)
    assert mine.hands == sum(name in {s.player for s in r.seats} for r in records)
    assert everyone.pot_bb is not None
    seen = everyone.chances > 0
    assert np.all(everyone.pot_bb[seen] / everyone.chances[seen] >= 1.5)


def heads_up_shove(hand_id: int, *, called: bool) -> HandRecord:
    """Heads-up 1/2 with 20 chips each (10 bb): the button (small blind) shoves, the big
    blind calls or folds."""
    reply = (1, CALL, 18) if called else (1, FOLD, 0)
    return HandRecord(
        site="Test",
        hand_id=str(hand_id),
        seats=(Seat(1, "a", 20), Seat(2, "b", 20)),
        button=0,
        small_blind=1,
        big_blind=2,
        blinds=(1, 2),
        dead=(0, 0),
        actions=(RecordedAction(P, 0, RAISE, 20, True), RecordedAction(P, *reply)),
    )


def test_push_fold_reference_on_handmade_hands(preflop: PreflopMatrices) -> None:
    """30 shoves at 10 bb, 10 of them called: the reference is the 10 bb equilibrium
    (58.3% shoved, 37.4% called), exactly (10 bb is on the solved grid)."""
    records = [heads_up_shove(h, called=h < 10) for h in range(30)]
    subject, _ = count_sample(records, label="short")
    assert (subject.hits[SHOVE], subject.chances[SHOVE]) == (30, 30)
    assert (subject.hits[CALL_SHOVE], subject.chances[CALL_SHOVE]) == (10, 30)
    solution = solve_exact(payoffs(ShoveFoldGame(stack=10.0), preflop))
    leaks = {leak.name: leak for leak in find_leaks(subject, PushFoldReference(preflop))}
    assert set(leaks) == {"shove.SB", "call_shove.BB"}
    shove, call = leaks["shove.SB"], leaks["call_shove.BB"]
    assert shove.reference.value == pytest.approx(fraction_of_combos(solution.shove))
    assert shove.reference.low is None
    assert shove.reference.opportunities is None
    assert shove.difference == pytest.approx(1 - 0.58284, abs=1e-4)
    assert call.reference.value == pytest.approx(0.37376, abs=1e-4)
    assert call.difference == pytest.approx(1 / 3 - 0.37376, abs=1e-4)
    assert shove.stake_bb == pytest.approx(1.5)
    assert call.stake_bb == pytest.approx(11.0)
    assert shove.significant
    assert not call.significant
    too_few = {"shove.SB": "few (30)", "call_shove.BB": "few (30)"}
    assert unranked(subject, PushFoldReference(preflop), 31) == too_few
    deep, _ = count_sample(records, label="deep", push_fold_max_bb=9.5)
    assert deep.chances[SHOVE] == 0


def test_push_fold_reference_on_simulated_short_stacks(preflop: PreflopMatrices) -> None:
    """Stacks of 8 to 14 bb: every hand folded to the small blind is a push/fold spot, and
    the reference is the mean of the interpolated equilibrium over their stacks."""
    hands = simulate(pool_of(6), 600, seed=5, tables=8, stack_range=(16, 28))
    subject, _ = count_sample(hands.records(), label="short")
    spots = subject.push_fold["shove.SB"]
    assert len(spots) == subject.chances[SHOVE] > 0
    assert all(8 <= spot.stack_bb <= 14 for spot in spots)
    reference = PushFoldReference(preflop)
    expected = np.mean([reference.shares(s.stack_bb, 0.5, 0.0)[0] for s in spots])
    rates = reference.rates(subject)
    assert rates["shove.SB"].value == pytest.approx(expected)
    low, high = reference.shares(8.0, 0.5, 0.0)[0], reference.shares(14.0, 0.5, 0.0)[0]
    assert high <= rates["shove.SB"].value <= low  # shallower stacks shove more
    middle = reference.shares(8.25, 0.5, 0.0)[0]
    ends = reference.shares(8.0, 0.5, 0.0)[0], reference.shares(8.5, 0.5, 0.0)[0]
    assert middle == pytest.approx(sum(ends) / 2)


def test_records_rebuilt_from_rows_count_the_same() -> None:
    """Simulated hands through decision rows and back: the same spot counts and pots."""
    hands = simulate(pool_of(6), 200, seed=8, tables=8)
    records = list(hands.records())
    rebuilt = records_from_rows(decision_rows(records))
    direct, _ = count_sample(records, label="records")
    again, _ = count_sample(rebuilt, label="rows")
    np.testing.assert_array_equal(direct.chances, again.chances)
    np.testing.assert_array_equal(direct.hits, again.hits)
    assert direct.pot_bb is not None
    assert again.pot_bb is not None
    np.testing.assert_allclose(direct.pot_bb, again.pot_bb)


@pytest.mark.skipif(not REAL.is_dir(), reason="the real sample shared/data/handhq-ps25 is absent")
def test_real_rows_count_as_the_histories() -> None:
    """The first 400 real hands (2 to 9 players, missing blinds, posts): through rows and
    back they count the same spot statistics and pots."""
    records = load_source(REAL).records[:400]
    rebuilt = records_from_rows(decision_rows(records))
    direct, _ = count_sample(records, label="histories")
    again, _ = count_sample(rebuilt, label="rows")
    np.testing.assert_array_equal(direct.chances[:N_SPOTS], again.chances[:N_SPOTS])
    np.testing.assert_array_equal(direct.hits[:N_SPOTS], again.hits[:N_SPOTS])
    assert direct.pot_bb is not None
    assert again.pot_bb is not None
    np.testing.assert_allclose(direct.pot_bb[:N_SPOTS], again.pot_bb[:N_SPOTS])


def test_simulated_reference_is_seeded() -> None:
    one = simulated_sample("tough-regs", 500, seed=2)
    two = simulated_sample("tough-regs", 500, seed=2)
    np.testing.assert_array_equal(one.hits, two.hits)
    assert one.chances[LEAK_NAMES.index("open.BTN")] > 0
    assert one.chances[SHOVE] == 0  # 100 bb stacks: no push/fold spots
    with pytest.raises(LeakError, match="subject needs the pots"):
        find_leaks(one, two)


runner = CliRunner()


@pytest.fixture(scope="module")
def history_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """400 simulated micro-zoom-like hands written as PokerStars text."""
    path = tmp_path_factory.mktemp("leaks") / "hands.txt"
    path.write_bytes(pokerstars_text(simulate(pool_of(6), 400, seed=4, tables=8)))
    return path


def test_cli_json(history_file: Path) -> None:
    result = runner.invoke(
        app,
        [
            "leaks", str(history_file), "--reference", "pool:tough-regs",
            "--reference-hands", "2000", "--top", "5", "--json",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["subject"]["hands"] == 400
    assert payload["reference"]["hands"] == 2000
    leaks = payload["leaks"]
    assert len(leaks) == 5
    scores = [leak["score"] for leak in leaks]
    assert scores == sorted(scores, reverse=True)
    assert all(leak["opportunities"] >= 30 for leak in leaks)
    assert set(leaks[0]) >= {"statistic", "rate", "interval", "reference", "difference"}
    assert all(name in SPOT_NAMES for name in payload["unranked"] if "few" in name)


def test_cli_player_against_the_rest(history_file: Path) -> None:
    record = load_source(history_file).records[0]
    player = load_source(history_file).player_ids(record)[0]
    result = runner.invoke(
        app, ["leaks", str(history_file), "--player", player, "--min-opportunities", "5", "--json"]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert player in payload["subject"]["label"]
    assert 0 < payload["subject"]["hands"] < 400


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([], "give --reference"),
        (["--reference", "pool:no-such-pool"], "no shipped pool"),
        (["--reference", "rest"], "give --player"),
        (["--player", "0123456789abcdef"], "is in no hand"),
        (["--reference", "rows:/no/such/folder"], "no such file"),
    ],
)
def test_cli_errors(history_file: Path, arguments: list[str], message: str) -> None:
    result = runner.invoke(app, ["leaks", str(history_file), *arguments])
    assert result.exit_code == 2
    assert message in result.output


def test_cli_missing_source() -> None:
    result = runner.invoke(app, ["leaks", "/no/such/hands", "--reference", "push-fold"])
    assert result.exit_code == 2
    assert "no such file or folder" in result.output


@pytest.mark.skipif(not REAL.is_dir(), reason="the real sample shared/data/handhq-ps25 is absent")
@pytest.mark.parametrize("pool", ["handhq-25nl", "micro-zoom"])
def test_real_sample_against_shipped_pools(pool: str) -> None:
    """The real sample against a simulated shipped pool: every ranked statistic has its
    sample, scores are ordered and recomputable; the 21 short-stack spots are too few."""
    result = runner.invoke(
        app, ["leaks", str(REAL), "--reference", f"pool:{pool}", "--reference-hands", "4000",
              "--top", "10", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["subject"]["hands"] == 2986
    assert payload["push_fold_opportunities"]["shove.SB"] == 21
    assert payload["unranked"]["shove.SB"] == "few (21)"
    leaks = payload["leaks"]
    assert len(leaks) == 10
    for leak in leaks:
        assert leak["opportunities"] >= 30
        expected = abs(leak["difference"]) * leak["frequency_per_100"] * leak["stake_bb"]
        assert leak["score"] == pytest.approx(expected)
        assert leak["frequency_per_100"] == pytest.approx(100 * leak["opportunities"] / 2986)
    assert [leak["score"] for leak in leaks] == sorted((x["score"] for x in leaks), reverse=True)
