"""Player styles: validation, the readable and compiled policies, sampling, HUD figures."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from poolshark.cards.card import parse_cards
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS, parse_combo
from poolshark.cards.evaluator import tables
from poolshark.engine.config import GameConfig
from poolshark.engine.table import Move, Street, Table
from poolshark.equity.matrix import cached_matrices
from poolshark.pool.context import Feature, Position, context_from_table
from poolshark.pool.play import SeatedHand, play_hands
from poolshark.pool.policy import (
    N_COLUMNS,
    Node,
    preflop_range_scale,
    probabilities_all,
    sample_actions,
    strengths_on,
)
from poolshark.pool.pools import load_pool
from poolshark.pool.strength import (
    HAS_STRAIGHT,
    build_preflop_ranking,
    draw_strength_one,
    draw_strength_reference,
    live_combos,
    made_strength_cached,
    made_strength_one,
    made_strength_reference,
    new_strength_cache,
    postflop_strength,
    preflop_percentile,
    preflop_ranking,
    reference_ranges,
    strength_cache,
    top_of_range,
    top_percent,
)
from poolshark.pool.style import (
    Style,
    StyleError,
    action_probabilities,
    bank_of,
    list_styles,
    load_style,
    range_weights,
)

SHIPPED = ("nit", "tag", "lag", "station", "maniac", "zoom-reg")
TAG_TEXT = (Path(__file__).parents[1] / "src/poolshark/pool/styles/tag.toml").read_text()


def test_shipped_styles_load() -> None:
    assert set(SHIPPED) <= set(list_styles())
    styles = [load_style(name) for name in list_styles()]
    bank = bank_of(styles)
    assert bank.styles == len(styles)
    assert np.allclose(bank.size_weights.sum(axis=2), 1.0)
    for style in styles:
        assert style.spec.targets.vpip is not None
        assert style.spec.targets.pfr is not None
        assert np.all((style.raise_weight >= 0) & (style.raise_weight <= 1))
    assert load_style("zoom-reg").spec.leaks  # the zoom regular names its leaks


def test_range_forms_agree() -> None:
    assert np.array_equal(range_weights(12), range_weights("12%"))
    assert np.array_equal(range_weights(12.0), range_weights(" top 12 % "))
    assert range_weights(12).sum() == pytest.approx(0.12 * N_COMBOS)
    assert range_weights("QQ+, AKs").sum() == 22
    assert range_weights(0).sum() == 0
    assert range_weights(100).sum() == N_COMBOS


def test_top_of_a_range_keeps_that_share_of_the_best_hands() -> None:
    opening = range_weights("22+, A2s+, KTs+, ATo+, KQo")
    best = top_of_range(opening, 0.35)
    assert best.sum() == pytest.approx(0.35 * opening.sum())
    assert np.all(best <= opening)
    aces = parse_combo("AsAh")
    assert best[aces] == 1.0
    assert best[parse_combo("2c2d")] == 0.0
    assert np.array_equal(top_of_range(np.ones(N_COMBOS), 0.2), top_percent(20))


@pytest.mark.parametrize(
    ("key", "new", "message"),
    [
        ("fold_to_3bet = 0.", "fold_to_3bet = 1.5", r"preflop\.fold_to_3bet: .*less than or"),
        ("threebet", 'threebet = "QQ+, AXs"', r"preflop\.threebet: .*AXs"),
        ("call_open", "call_open = true", r"preflop\.call_open: a range is"),
        ("call_open", "call_open = 140", r"preflop\.call_open: .*\[0, 100\]"),
        ("EP", "", r"preflop: .*open needs a range for every position.*EP"),
        ("check_raise", "check_raise = 0.1\ncbet_typo = 0.5", r"postflop\.cbet_typo"),
        ("fourbet", "fourbet = 0.60", r"preflop: fourbet"),
        ("name", 'name = "Bad Name"', r"name: String should match"),
        ("threebet = {", "threebet = { sizes = [0.8] }", r"sizes\.threebet"),
        ("turn", "turn = { sizes = [0.66], weights = [1, 2] }", r"sizes\.turn"),
        ("raise = {", 'raise = { sizes = ["shove"] }', r"sizes\.raise"),
        ("[postflop]", "[postflop", "not valid TOML"),
    ],
)
def test_bad_style_files_name_the_field(key: str, new: str, message: str) -> None:
    """Replace the first line of the tag file that sets ``key`` and expect a named error."""
    lines = TAG_TEXT.splitlines()
    where = next(i for i, line in enumerate(lines) if line.startswith((f"{key} = ", key)))
    lines[where] = new
    with pytest.raises(StyleError, match=message):
        Style.from_toml("\n".join(lines), "edited.toml")


def test_loading_by_name_and_path(tmp_path: Path) -> None:
    with pytest.raises(StyleError, match=r"no shipped style 'shark'.*nit"):
        load_style("shark")
    path = tmp_path / "mine.toml"
    path.write_text(TAG_TEXT.replace('name = "tag"', 'name = "mine"'))
    assert load_style(path).name == "mine"
    with pytest.raises(StyleError, match="cannot read"):
        load_style(tmp_path / "missing.toml")


def test_three_bet_answers_hold_the_configured_fold_share() -> None:
    for name in SHIPPED:
        style = load_style(name)
        fold = style.spec.preflop.fold_to_3bet
        for position in (Position.EP, Position.CO, Position.BTN, Position.SB):
            opens = style.raise_weight[Node.UNOPENED + position]
            node = Node.VS_3BET_OPENER + position
            up, keep = style.raise_weight[node], style.continue_weight[node]
            folding = (opens * (1 - up) * (1 - keep)).sum() / opens.sum()
            assert folding == pytest.approx(fold, abs=1e-9), (name, position)


def _decisions(hands: int, seed: int) -> Iterator[tuple[Table, int]]:
    """Live decisions of micro-zoom hands: (table before the action, acting style index)."""
    pool = load_pool("micro-zoom")
    rng = np.random.default_rng(seed)
    for hand in range(hands):
        styles = rng.integers(0, pool.bank.styles, pool.config.seats)
        table = Table(pool.config, [pool.stack] * 6, button=hand % 6, seed=seed + hand)
        while not table.done:
            yield table, int(styles[table.to_act])
            features = context_from_table(table)
            move, amount = sample_actions(
                pool.bank,
                styles[[table.to_act]],
                features[None, :],
                np.array([table.hole_cards[table.to_act]]),
                np.array([table.board_cards]),
                rng.random(1),
            )
            table.act((Move.FOLD, Move.CHECK_CALL, Move.RAISE)[move[0]], int(amount[0]))


def test_probabilities_are_distributions_over_legal_actions() -> None:
    pool = load_pool("micro-zoom")
    seen_streets = set()
    for table, style in _decisions(40, 11):
        features = context_from_table(table)
        legal = table.legal()
        result = action_probabilities(pool.styles[style], features, table.board)
        rows = result.probabilities
        blocked = np.zeros(N_COMBOS, dtype=bool)
        for card in table.board:
            blocked |= (card == COMBO_CARDS).any(axis=1)
        assert np.all(rows[blocked] == 0)
        np.testing.assert_allclose(rows[~blocked].sum(axis=1), 1.0, atol=1e-12)
        assert np.all(rows >= 0)
        if legal.can_check:
            assert np.all(rows[:, 0] == 0)
        if legal.min_raise_to is None:
            assert np.all(rows[:, 2:] == 0)
        else:
            used = rows[:, 2:].sum(axis=0) > 0
            assert np.all(result.raise_to[used] >= legal.min_raise_to)
            assert np.all(result.raise_to[used] <= legal.max_raise_to)
            assert np.all(result.raise_to[~used & (result.raise_to > 0)] >= legal.min_raise_to)
        fast, amounts = probabilities_all(
            pool.bank, style, features, strengths_on(np.array(table.board_cards), len(table.board))
        )
        assert np.array_equal(amounts, result.raise_to)
        np.testing.assert_allclose(fast, rows, rtol=0, atol=1e-12)
        seen_streets.add(table.street)
    assert seen_streets == {Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER}


def _random_decisions(hands: int, seed: int) -> Iterator[tuple[Table, int]]:
    """Decisions of 2-6 seat hands with uneven stacks (10-250 big blinds) where every action
    is drawn at random among fold, check/call and a raise to any legal total: raise and bet
    sizes, positions, player counts and stack-to-pot ratios a style's own play never
    reaches. Yields (table before the action, a random micro-zoom style index)."""
    pool = load_pool("micro-zoom")
    rng = np.random.default_rng(seed)
    for hand in range(hands):
        seats = int(rng.integers(2, 7))
        stacks = rng.integers(20, 500, seats).tolist()
        table = Table(GameConfig(seats=seats), stacks, button=hand % seats, seed=seed + hand)
        while not table.done:
            yield table, int(rng.integers(pool.bank.styles))
            legal = table.legal()
            pick = rng.random()
            if legal.min_raise_to is not None and pick < 0.35:
                low, high = legal.min_raise_to, legal.max_raise_to
                top = high if rng.random() < 0.15 else min(high, low + 4 * table.pot())
                table.raise_to(int(rng.integers(low, max(low, top) + 1)))
            elif legal.call > 0 and pick > 0.85:
                table.fold()
            else:
                table.check_call()


@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_policy_matches_the_reference_on_any_sizes(seed: int) -> None:
    """The compiled probabilities and sampler equal the numpy reference at decisions with
    random raise sizes, stacks and player counts (the size, position, stack-to-pot and
    multiway responses all vary here)."""
    pool = load_pool("micro-zoom")
    rng = np.random.default_rng(seed)
    scales, positions = set(), set()
    for count, (table, style) in enumerate(_random_decisions(25, 300 + seed)):
        features = context_from_table(table)
        result = action_probabilities(pool.styles[style], features, table.board)
        strengths = strengths_on(np.array(table.board_cards), len(table.board))
        fast, amounts = probabilities_all(pool.bank, style, features, strengths)
        assert np.array_equal(amounts, result.raise_to)
        np.testing.assert_allclose(fast, result.probabilities, rtol=0, atol=1e-12)
        positions.add((int(features[Feature.STREET]), int(features[Feature.IN_POSITION])))
        scales.add(round(preflop_range_scale(pool.bank.params[style], features), 2))
        if count % 3:
            continue
        live = np.flatnonzero(strengths.live)
        combos = rng.choice(live, 8, replace=False)
        uniform = rng.random(8)
        move, _ = sample_actions(
            pool.bank,
            np.full(8, style),
            np.tile(features, (8, 1)),
            COMBO_CARDS[combos].astype(np.int64),
            np.tile(table.board_cards, (8, 1)),
            uniform,
        )
        cumulative = np.cumsum(result.probabilities[combos], axis=1)
        column = (uniform[:, None] >= cumulative).sum(axis=1)
        assert np.array_equal(np.minimum(column, 2), move)
    assert len(scales) > 10  # many raise sizes met preflop
    assert {(street, side) for street in (1, 2, 3) for side in (0, 1)} <= positions


def test_raise_sizes() -> None:
    tag = load_style("tag")
    table = Table(GameConfig(seats=6), [200] * 6, button=0, seed=3)
    opening = action_probabilities(tag, context_from_table(table), [])
    assert opening.raise_to[:2].tolist() == [5, 6]  # 2.5 and 3 big blinds
    table.raise_to(5)
    three_bet = action_probabilities(tag, context_from_table(table), [])
    assert three_bet.raise_to[:2].tolist() == [15, 18]  # 3x and 3.5x, rounded half up
    for _ in range(5):
        table.check_call()  # everyone calls: 30 in the pot
    flop = action_probabilities(tag, context_from_table(table), table.board)
    assert flop.raise_to[:2].tolist() == [10, 20]  # 0.33 and 0.66 of 30, rounded
    table.raise_to(10)
    raising = action_probabilities(tag, context_from_table(table), table.board)
    assert raising.raise_to[0] == 48  # call 10, then 0.75 of the 50 in the pot: 10 + 37.5
    short = Table(GameConfig(seats=2), [30, 200], button=0, seed=4)
    jam = action_probabilities(load_style("maniac"), context_from_table(short), [])
    assert set(jam.raise_to[:3].tolist()) <= {6, 8, 10, 30}


def test_of_action_sums_slots_with_the_same_amount() -> None:
    table = Table(GameConfig(seats=2), [12, 200], button=0, seed=5)
    result = action_probabilities(load_style("maniac"), context_from_table(table), [])
    raises = result.probabilities[:, 2:].sum(axis=1)
    total = sum(result.of_action(2, amount) for amount in set(result.raise_to.tolist()))
    np.testing.assert_allclose(total, raises)
    with pytest.raises(ValueError, match="shows 0 cards"):
        action_probabilities(load_style("tag"), context_from_table(table), parse_cards("AhKdQc"))


@pytest.mark.parametrize("seed", [0, 1])
def test_sampler_frequencies_match_the_probabilities(seed: int) -> None:
    """Sample one decision many times for the combos whose action is most mixed."""
    pool = load_pool("micro-zoom")
    rng = np.random.default_rng(seed)
    checked = 0
    for table, style in _decisions(30, 100 + seed):
        if checked >= 6 or rng.random() < 0.7:
            continue
        features = context_from_table(table)
        rows = action_probabilities(pool.styles[style], features, table.board).probabilities
        entropy = -(rows * np.log(np.where(rows > 0, rows, 1))).sum(axis=1)
        combos = np.argsort(-entropy)[:3]
        if entropy[combos[-1]] < 0.3:
            continue
        draws = 8000
        chosen = np.repeat(combos, draws)
        move, amount = sample_actions(
            pool.bank,
            np.full(chosen.size, style),
            np.tile(features, (chosen.size, 1)),
            COMBO_CARDS[chosen].astype(np.int64),
            np.tile(table.board_cards, (chosen.size, 1)),
            rng.random(chosen.size),
        )
        raise_to = action_probabilities(pool.styles[style], features, table.board).raise_to
        for index, combo in enumerate(combos):
            mine = slice(index * draws, (index + 1) * draws)
            column = np.where(move[mine] < 2, move[mine], -1)
            for slot, total in enumerate(raise_to):
                hit = (move[mine] == 2) & (amount[mine] == total) & (column == -1)
                column[hit] = 2 + slot
            assert np.all(column >= 0)
            counts = np.bincount(column, minlength=N_COLUMNS)
            expected = rows[combo] * draws
            merged_counts, merged_expected = _merge_slots(counts, expected, raise_to)
            live = merged_expected > 0
            assert merged_counts[~live].sum() == 0
            chi = ((merged_counts[live] - merged_expected[live]) ** 2 / merged_expected[live]).sum()
            assert stats.chi2.sf(chi, max(live.sum() - 1, 1)) > 1e-4
        checked += 1
    assert checked >= 4


def _merge_slots(
    counts: np.ndarray, expected: np.ndarray, raise_to: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Slots that raise to the same total are one action: pool them on the first slot."""
    counts, expected = counts.astype(float), expected.copy()
    for slot in range(len(raise_to)):
        first = int(np.flatnonzero(raise_to == raise_to[slot])[0])
        if first != slot:
            expected[2 + first] += expected[2 + slot]
            expected[2 + slot] = 0.0
    return counts, expected


def _hud(hands: list[SeatedHand], style: int) -> dict[str, tuple[int, int]]:
    """(count, opportunities) of VPIP, PFR and fold to 3-bet for one style's seats."""
    vpip = pfr = seats = folds = faced = 0
    for hand in hands:
        preflop = [a for a in hand.table.log if a.street is Street.PREFLOP]
        for seat, seat_style in enumerate(hand.styles):
            if seat_style != style:
                continue
            seats += 1
            mine = [a for a in preflop if a.seat == seat]
            vpip += any(a.move is Move.RAISE or a.amount > 0 for a in mine)
            pfr += any(a.move is Move.RAISE for a in mine)
            raises, opened = 0, False
            for action in preflop:
                if action.seat == seat and raises == 2 and opened:
                    faced += 1
                    folds += action.move is Move.FOLD
                    break
                if action.move is Move.RAISE:
                    opened = opened or (raises == 0 and action.seat == seat)
                    raises += 1
    return {"vpip": (vpip, seats), "pfr": (pfr, seats), "fold_to_3bet": (folds, faced)}


@pytest.mark.parametrize("name", SHIPPED)
def test_hud_figures_land_near_the_targets(name: str) -> None:
    """The style takes a third of the seats of micro-zoom hands (the tuning environment)."""
    pool = load_pool("micro-zoom")
    style = load_style(name)
    bank = bank_of([*pool.styles, style])
    players = [*pool.player_styles.tolist(), *[len(pool.styles)] * 300]
    hands = list(play_hands(pool.config, pool.stack, bank, players, 1500, seed=9))
    hud = _hud(hands, len(pool.styles))
    targets = style.spec.targets
    for stat, target, tolerance in (("vpip", targets.vpip, 3.0), ("pfr", targets.pfr, 3.0)):
        count, opportunities = hud[stat]
        assert opportunities > 2000
        assert target is not None
        assert 100 * count / opportunities == pytest.approx(target, abs=tolerance), stat
    count, opportunities = hud["fold_to_3bet"]
    if targets.fold_to_3bet is not None and opportunities >= 30:
        error = 100 * 4 * np.sqrt(0.25 / opportunities)
        assert 100 * count / opportunities == pytest.approx(targets.fold_to_3bet, abs=error)


def test_sampling_validates_its_inputs() -> None:
    bank = load_style("tag").bank()
    with pytest.raises(ValueError, match="features must be"):
        sample_actions(
            bank,
            np.zeros(2, int),
            np.zeros((1, 3)),
            np.zeros((2, 2), int),
            np.zeros((2, 5), int),
            np.zeros(2),
        )
    table = Table(GameConfig(seats=6), [200] * 6, seed=8)
    features = context_from_table(table)[None, :]
    with pytest.raises(ValueError, match="style indices"):
        sample_actions(
            bank,
            np.array([1]),
            features,
            np.array([table.hole_cards[3]]),
            np.zeros((1, 5), int),
            np.zeros(1),
        )
    assert features[0, Feature.TO_CALL] == 2


def test_shipped_preflop_ranking_is_rebuilt_from_the_matrices() -> None:
    matrices = cached_matrices()
    if matrices is None:
        pytest.skip(
            "the exact preflop matrices are not cached (poolshark equity matrix builds them)"
        )
    names, scores = build_preflop_ranking(matrices)
    shipped_names, shipped_scores = preflop_ranking()
    assert tuple(names) == shipped_names
    np.testing.assert_allclose(scores, shipped_scores, atol=1e-6)


def test_preflop_ranking_order() -> None:
    names, scores = preflop_ranking()
    assert names[:3] == ("AA", "KK", "QQ")
    assert {"32o", "72o", "42o"} & set(names[-3:])
    assert np.all(np.diff(scores) <= 0)
    percentile = preflop_percentile()
    assert percentile[parse_combo("AsAh")] < 0.01 < percentile[parse_combo("2c7d")]


@pytest.mark.parametrize("cards", [3, 4, 5])
def test_postflop_strength_kernels_match_the_reference(cards: int) -> None:
    rng = np.random.default_rng(cards)
    for _ in range(3):
        board = [int(c) for c in rng.permutation(52)[:cards]]
        made, draw = postflop_strength(board)
        np.testing.assert_array_equal(made, made_strength_reference(board))
        np.testing.assert_array_equal(draw, draw_strength_reference(board))
        padded = np.array([*board, *[0] * (5 - cards)], dtype=np.int64)
        live = np.flatnonzero(live_combos(board))
        for combo in rng.choice(live, 25, replace=False):
            first, second = (int(c) for c in COMBO_CARDS[combo])
            one = made_strength_one(
                combo, padded, cards, reference_ranges(), COMBO_CARDS, *tables()
            )
            assert one == made[combo]
            assert draw_strength_one(first, second, padded, cards, HAS_STRAIGHT) == draw[combo]
        reference = reference_ranges()[cards - 2] & live_combos(board)
        assert made[reference].mean() == pytest.approx(0.5, abs=1e-12)  # uniform on the range


def test_the_strength_cache_gives_the_uncached_strength() -> None:
    """``made_strength_cached`` equals ``made_strength_one`` for boards asked again and
    again, on every street, through a 4-slot cache whose slots boards keep taking from each
    other (evictions, refills, a board asked with fewer cards than it has)."""
    rng = np.random.default_rng(5)
    memo = new_strength_cache(4)
    decks = [rng.permutation(52) for _ in range(9)]
    for _ in range(400):
        deck = decks[rng.integers(len(decks))]
        cards = int(rng.integers(3, 6))
        board = np.array([*deck[:cards], *[0] * (5 - cards)], dtype=np.int64)
        live = np.flatnonzero(live_combos([int(c) for c in deck[:cards]]))
        combo = int(rng.choice(live))
        cached = made_strength_cached(combo, board, cards, memo, COMBO_CARDS, *tables())
        plain = made_strength_one(combo, board, cards, reference_ranges(), COMBO_CARDS, *tables())
        assert cached == plain
    assert (memo.boards != 0).all()
    with pytest.raises(ValueError, match="power of two"):
        new_strength_cache(6)
    mine: list[object] = []
    worker = threading.Thread(target=lambda: mine.append(strength_cache()))
    worker.start()
    worker.join()
    assert mine[0] is not strength_cache()  # one per thread: slots are rewritten in place
    assert strength_cache() is strength_cache()


def test_draws_and_made_hands() -> None:
    _, draw = postflop_strength(parse_cards("Qh7h2c"))
    flush_draw = 1 - (47 - 9) * (46 - 9) / (47 * 46)
    assert draw[parse_combo("AhKh")] == pytest.approx(flush_draw)
    assert draw[parse_combo("AcKd")] == 0.0
    _, draw = postflop_strength(parse_cards("Tc7d2s6h"))
    assert draw[parse_combo("9s8s")] == 0.0  # already a straight
    assert draw[parse_combo("5s4s")] == pytest.approx(8 / 46)  # open-ended: a three or an eight
    assert draw[parse_combo("As9s")] == pytest.approx(4 / 46)  # gutshot to the eight
    made, _ = postflop_strength(parse_cards("AhKhQhJh2c"))
    assert made[parse_combo("Th3d")] == made.max()  # the royal flush
    assert made[parse_combo("3d4c")] < 0.1
