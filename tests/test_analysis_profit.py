"""Action profit and next actions: hand-computed results on handmade PokerStars hands (an
uncontested hand with an uncalled bet, a split pot with rake, a heads-up flop all-in, a
three-way all-in with a side pot), the engine's own results and expected values on random
hands, chip conservation on the real sample, and next-action counts."""

from __future__ import annotations

import random
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolshark.analysis.profit import action_profit, decision_profit, next_actions, pot_equity
from poolshark.cards.card import parse_cards
from poolshark.engine.config import GameConfig, Settlement
from poolshark.engine.table import ForcedBets, Table
from poolshark.histories.fast import file_rows
from poolshark.histories.ingest import IngestError, ingest, scan_rows
from poolshark.histories.record import HandRecord
from poolshark.histories.replay import judge, record_from_table
from poolshark.histories.rows import build_rows, reference_rows
from poolshark.histories.split import parse_hand, read_hands

HANDS = Path(__file__).parent / "data" / "analysis" / "profit" / "hands.txt"
SAMPLE = Path(__file__).parents[2] / "shared" / "data" / "handhq-ps25"
UNCONTESTED, SPLIT, HEADS_UP_ALL_IN, SIDE_POT = (f"30000000000{i}" for i in range(1, 5))


@pytest.fixture(scope="module")
def records() -> list[HandRecord]:
    return [judge(parse_hand(raw)).record for raw in read_hands(HANDS)]


@pytest.fixture(scope="module")
def rows() -> pl.DataFrame:
    result = file_rows(HANDS)
    assert result.accepted == result.hands == 4
    return result.frame


@pytest.fixture(scope="module")
def profit(rows: pl.DataFrame) -> pl.DataFrame:
    return decision_profit(rows)


def hand(frame: pl.DataFrame, hand_id: str, column: str) -> list[float]:
    return frame.filter(pl.col("hand_id") == hand_id).sort("action_index")[column].to_list()


def test_outcome_columns_agree_between_the_compiled_rows_and_the_reference(
    records: list[HandRecord], rows: pl.DataFrame
) -> None:
    compiled = build_rows(records).frame
    reference = reference_rows(records).frame
    columns = ["hand_id", "action_index", "stack_start", "invested", "won"]
    assert compiled.select(columns).equals(reference.select(columns))
    assert rows.select(columns).equals(compiled.select(columns))


def test_an_uncontested_hand_returns_the_uncalled_bet(profit: pl.DataFrame) -> None:
    # alice opens 0.30, bob folds, carol 3-bets to 0.90, alice calls, carol bets 1 on the
    # flop and alice folds: carol's 1 comes back, she collects the 1.85 pot.
    assert hand(profit, UNCONTESTED, "invested") == [90, 5, 90, 90, 90, 90]
    assert hand(profit, UNCONTESTED, "won") == [0, 0, 185, 0, 185, 0]
    assert hand(profit, UNCONTESTED, "profit_bb") == [-9.0, 0.0, 10.5, -6.0, 18.5, 0.0]
    assert hand(profit, UNCONTESTED, "profit_ev_bb") == hand(profit, UNCONTESTED, "profit_bb")


def test_a_split_pot_with_rake(profit: pl.DataFrame) -> None:
    # Limped three ways (0.30), bob bets 0.30 on the flop, carol calls, alice folds; checked
    # down, a split: 0.90 less 0.04 rake is 0.43 each. From bob's limp: 0.43 back for the
    # 0.05 + 0.30 he puts in from there on; carol's check: 0.43 for 0.30.
    bb = 10
    expected = [-10, 43 - 35, 43 - 30, 43 - 30, 43 - 30, 0, 43, 43, 43, 43]
    assert hand(profit, SPLIT, "profit_bb") == [chips / bb for chips in expected]
    assert hand(profit, SPLIT, "profit_ev_bb") == hand(profit, SPLIT, "profit_bb")


def test_a_heads_up_flop_all_in_is_valued_at_its_equity(profit: pl.DataFrame) -> None:
    # 0.30 preflop, bob (AhAd) shoves 4.70 on Ks7d2c, alice (KhQh) calls: pot 10, rake 0.50,
    # bob collects 9.50. All-in EV: 9.50 times each hand's exact equity on the flop.
    aces = pot_equity(
        (tuple(parse_cards("AhAd")), tuple(parse_cards("KhQh"))), tuple(parse_cards("Ks7d2c")), ()
    )
    assert aces[0] == pytest.approx(808 / 990)  # hand-counted: 182 of 990 runouts lose
    bob_ev, alice_ev = 950 * aces[0], 950 * aces[1]
    assert hand(profit, HEADS_UP_ALL_IN, "profit_bb") == [-49.5, 46.0, 48.0, -47.0]
    ev = hand(profit, HEADS_UP_ALL_IN, "profit_ev_bb")
    want = [-495 + alice_ev, -490 + bob_ev, -470 + bob_ev, -470 + alice_ev]
    assert ev == pytest.approx([chips / 10 for chips in want])


def test_a_three_way_all_in_values_the_main_and_the_side_pot(profit: pl.DataFrame) -> None:
    # bob (AsAh) 2, carol (KcKd) 5, alice (QsQh) calls 4.90 on 8c8d3s: main pot 6 less 0.60
    # rake among the three, side pot 6 between carol and alice (bob's aces are dead there).
    flop = tuple(parse_cards("8c8d3s"))
    aces, kings, queens = (tuple(parse_cards(c)) for c in ("AsAh", "KcKd", "QsQh"))
    main = pot_equity((queens, aces, kings), flop, ())
    side = pot_equity((queens, kings), flop, aces)
    alice_ev = 540 * main[0] + 600 * side[0]
    bob_ev = 540 * main[1]
    carol_ev = 540 * main[2] + 600 * side[1]
    assert alice_ev + bob_ev + carol_ev == pytest.approx(1140)
    rows = {a: (p, e) for a, p, e in zip(*(hand(profit, SIDE_POT, c) for c in (
        "action_index", "profit_bb", "profit_ev_bb")), strict=True)}  # fmt: skip
    # alice's limp (stack 10, ends with 5), bob's bet (stack 1.90, ends with 5.40), carol's
    # raise (stack 4.90, ends with 6), alice's call (stack 9.90).
    assert rows[0] == pytest.approx((-50.0, (-500 + alice_ev) / 10))
    assert rows[3] == pytest.approx((35.0, (-190 + bob_ev) / 10))
    assert rows[4] == pytest.approx((11.0, (-490 + carol_ev) / 10))
    assert rows[5] == pytest.approx((-49.0, (-490 + alice_ev) / 10))


def test_chips_are_conserved_in_every_handmade_hand(
    records: list[HandRecord], rows: pl.DataFrame
) -> None:
    seats = rows.group_by("hand_id", "seat").agg(pl.col("won", "invested").first())
    net = seats.group_by("hand_id").agg((pl.col("won") - pl.col("invested")).sum().alias("net"))
    rake = {r.hand_id: r.rake for r in records}
    assert {h: -rake[h] for h in rake} == dict(net.iter_rows())


def test_chips_are_conserved_on_the_real_sample() -> None:
    if not SAMPLE.is_dir():
        pytest.skip(f"the real PHH sample is not here: {SAMPLE}")
    path = sorted(SAMPLE.glob("*.phhs"))[0]
    rows = file_rows(path).frame
    records = {r.hand_id: r for r in (parse_hand(raw) for raw in read_hands(path))}
    seats = rows.group_by("hand_id", "seat").agg(pl.col("won", "invested", "players").first())
    hands = (
        seats.group_by("hand_id")
        .agg(
            pl.len().alias("seen"),
            pl.col("players").first(),
            pl.col("won").is_null().any().alias("unknown"),
            (pl.col("won") - pl.col("invested")).sum().alias("net"),
        )
        .filter((pl.col("seen") == pl.col("players")) & ~pl.col("unknown"))
    )
    # Every seat acted (not a hand folded round to the big blind) and the winnings are
    # recorded (not a showdown: the PHH files record none): 294 of the file's 991 hands.
    assert hands.height > 250
    warned = set(rows.filter(pl.col("warning").is_not_null())["hand_id"])
    for hand_id, net in hands.select("hand_id", "net").iter_rows():
        record = records[hand_id]
        assert record.rake is not None
        assert net == -record.rake, hand_id
        # Negative rake only where a dead post was lost in conversion (winnings-over-pot).
        assert record.rake >= 0 or hand_id in warned


def random_all_in_table(rng: random.Random, index: int) -> Table:
    """A finished hand of 2 to 4 short stacks that often goes all in (mostly after the
    flop), settled by expected value, with a random rake."""
    n = rng.randint(2, 4)
    config = GameConfig(
        seats=n,
        small_blind=1,
        big_blind=2,
        settlement=Settlement.EXPECTED_VALUE,
        rake_percent=rng.choice([0.0, 5.0]),
        rake_cap=rng.choice([None, 3]),
    )
    stacks = [rng.randint(8, 60) for _ in range(n)]
    button = rng.randrange(n)
    blinds = [0] * n
    small, big = (button, (button + 1) % n) if n == 2 else ((button + 1) % n, (button + 2) % n)
    blinds[small], blinds[big] = 1, 2
    table = Table(config, stacks, button=button, seed=index, forced=ForcedBets(tuple(blinds)))
    while not table.done:
        legal = table.legal()
        roll = rng.random()
        shove = 0.45 if table.street > 0 else 0.03  # mostly on the flop: fast to enumerate
        if legal.can_fold and roll < 0.15:
            table.fold()
        elif legal.max_raise_to is not None and roll < shove:
            table.raise_to(legal.max_raise_to)
        else:
            table.check_call()
    return table


def rows_against_the_engine(seed: int, hands: int) -> int:
    """Check every decision's profit against the engine's result for its player and its
    all-in EV against the engine's expected result, in random hands where every seat
    decided; return how many decisions the all-in adjustment changed."""
    rng = random.Random(seed)
    tables = [random_all_in_table(rng, i) for i in range(hands)]
    records = [
        record_from_table(t, site="Sim", hand_id=str(i), reveal="all") for i, t in enumerate(tables)
    ]
    profit = decision_profit(build_rows(records).frame)
    every_seat_decided = profit.group_by("hand_id").agg(
        (pl.col("seat").n_unique() == pl.col("players").first()).alias("all")
    )
    checked = profit.join(every_seat_decided.filter("all"), on="hand_id")
    for row in checked.iter_rows(named=True):
        result = tables[int(row["hand_id"])].result
        assert result is not None
        since_start = (row["stack"] - row["stack_start"]) / 2  # chips put in before deciding
        assert row["profit_bb"] + since_start == pytest.approx(result.net[row["seat"]] / 2)
        expected = result.expected_net[row["seat"]] / 2
        assert row["profit_ev_bb"] + since_start == pytest.approx(expected)
    return int((checked["profit_ev_bb"] != checked["profit_bb"]).sum())


def test_profit_and_all_in_ev_are_the_engines_on_random_hands() -> None:
    assert rows_against_the_engine(seed=1, hands=12) > 10


@settings(max_examples=3, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_profit_and_all_in_ev_are_the_engines_for_any_seed(seed: int) -> None:
    rows_against_the_engine(seed, hands=8)


def test_next_actions_count_the_pools_answer(rows: pl.DataFrame) -> None:
    table = next_actions(rows, ["action"]).sort("action")
    # Answers by hand (the next decision by another player; - where the hand ended):
    # 1: raise->fold, fold->raise, raise->call, call->raise, raise->fold, fold->-
    # 2: call->call, call->check, check->bet, bet->call, call->fold, fold->check,
    #    check->check, check->check, check->check, check->-
    # 3: raise->call, call->call (bob's own flop bet is skipped), bet->call, call->-
    # 4: call->call, call->check, check->bet, bet->raise, raise->call, call->-
    got = {
        r["action"]: (r["decisions"], r["ended"], r["fold"], r["check_call"], r["bet_raise"])
        for r in table.iter_rows(named=True)
    }
    assert got == {
        "fold": (3, 1, 0, 1, 1),
        "check-call": (15, 3, 1, 8, 3),
        "bet-raise": (8, 0, 2, 5, 1),
    }
    folds = table.filter(pl.col("action") == "bet-raise").row(0, named=True)
    assert folds["answered"] == 8
    assert folds["fold_freq"] == 2 / 8
    assert folds["fold_low"] < 2 / 8 < folds["fold_high"]


def test_the_next_action_skips_the_same_players_next_street() -> None:
    # Heads-up limped: the big blind checks preflop and then bets first on the flop; the
    # answer to his check is the button's next action (the fold), not his own bet.
    table = Table(GameConfig(seats=2), [200, 200], button=0, seed=1)
    table.check_call()  # button limps
    table.check_call()  # big blind checks
    table.raise_to(4)  # big blind bets the flop
    table.fold()
    rows = build_rows([record_from_table(table, site="Sim", hand_id="1")]).frame
    answers = next_actions(rows, ["action_index"]).sort("action_index")
    assert answers["check_call"].to_list() == [1, 0, 0, 0]  # the limp is answered by a check
    assert answers["fold"].to_list() == [0, 1, 1, 0]
    assert answers["bet_raise"].to_list() == [0, 0, 0, 0]
    assert answers["ended"].to_list() == [0, 0, 0, 1]


def test_action_profit_means_and_clustered_intervals(profit: pl.DataFrame) -> None:
    table = action_profit(profit, ["action"], value="profit_bb").sort("action")
    raises = table.filter(pl.col("action") == "bet-raise").row(0, named=True)
    values = profit.filter(pl.col("action") == "bet-raise")["profit_bb"]
    assert raises["decisions"] == 8
    assert raises["hands"] == 4
    assert raises["mean_bb"] == pytest.approx(values.mean())
    assert raises["std_bb"] == pytest.approx(values.std())
    # The standard error clustered by hand: residuals summed within each hand.
    by_hand = (
        profit.filter(pl.col("action") == "bet-raise")
        .group_by("hand_id")
        .agg((pl.col("profit_bb") - values.mean()).sum().alias("r"))["r"]
    )
    se = (4 / 3 * (by_hand**2).sum()) ** 0.5 / 8
    assert raises["se_bb"] == pytest.approx(se)
    assert raises["low_bb"] == pytest.approx(values.mean() - 1.959963984540054 * se)


def test_missing_winnings_leave_profit_unknown(rows: pl.DataFrame) -> None:
    unknown = rows.with_columns(pl.lit(None, pl.Int64).alias("won"))
    profit = decision_profit(unknown)
    assert profit["profit_bb"].null_count() == profit.height
    table = action_profit(profit, ["street"])
    assert table["decisions"].sum() == 0
    assert table["unknown"].sum() == rows.height


def test_rows_without_the_outcome_columns_are_refused(rows: pl.DataFrame) -> None:
    with pytest.raises(ValueError, match="won"):
        decision_profit(rows.drop("won"))
    with pytest.raises(ValueError, match="'nope'"):
        next_actions(rows, ["nope"])


def test_ingesting_into_rows_of_an_older_version_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "rows"
    ingest([HANDS], out, workers=1)
    assert scan_rows(out).collect().height == 26
    (part,) = (out / "rows").glob("part-*.parquet")
    pl.read_parquet(part).drop("won").write_parquet(part)  # as written before ``won``
    with pytest.raises(IngestError, match="columns missing: won"):
        ingest([HANDS], out, workers=1)


def test_profit_keeps_the_rows_and_their_order(rows: pl.DataFrame, profit: pl.DataFrame) -> None:
    shuffled = rows.sample(fraction=1.0, shuffle=True, seed=3)
    again = decision_profit(shuffled)
    assert again.drop("profit_bb", "profit_ev_bb").equals(shuffled)
    assert again.sort("hand_id", "action_index").equals(profit.sort("hand_id", "action_index"))


def test_the_spots_command_gives_profit_and_next_actions_of_whole_hands(
    rows: pl.DataFrame, tmp_path: Path
) -> None:
    """``poolshark spots --profit`` / ``--next`` value and answer each decision within its
    whole hand, then filter: the flop's figures equal those of the whole rows restricted
    to the flop afterwards, and a decision whose answer came on a later street keeps it."""
    import json

    from typer.testing import CliRunner

    from poolshark.analysis.profit import with_next_action
    from poolshark.cli import app

    out = tmp_path / "rows"
    ingest([HANDS], out, workers=1)
    flop = pl.col("street") == "flop"

    def run(option: str) -> list[dict[str, object]]:
        args = ["spots", str(out), "--by", "street", "--street", "flop", option, "--json"]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        return sorted(json.loads(result.stdout)["groups"], key=lambda g: str(g["action"]))

    expected_profit = action_profit(decision_profit(rows).filter(flop), ["street", "action"])
    got_profit = run("--profit")
    want = sorted(expected_profit.to_dicts(), key=lambda g: str(g["action"]))
    assert [(g["action"], g["decisions"]) for g in got_profit] == [
        (g["action"], g["decisions"]) for g in want
    ]
    assert [g["mean_bb"] for g in got_profit] == pytest.approx([g["mean_bb"] for g in want])

    marked = with_next_action(rows).filter(flop)
    want_next = sorted(
        next_actions(marked, ["street", "action"]).to_dicts(), key=lambda g: str(g["action"])
    )
    got_next = run("--next")
    assert [
        (g["action"], g["answered"], g["fold"], g["check_call"], g["bet_raise"]) for g in got_next
    ] == [
        (g["action"], g["answered"], g["fold"], g["check_call"], g["bet_raise"]) for g in want_next
    ]
    cut = next_actions(rows.filter(flop), ["street", "action"])
    assert cut["answered"].sum() < sum(int(g["answered"]) for g in got_next)
