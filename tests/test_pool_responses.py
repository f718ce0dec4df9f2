"""Styles respond like players: to the size of a bet or raise, stack depth, position and the
number of opponents (the rules in ``docs/pool.md``, "The policy")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from poolshark.engine.config import GameConfig
from poolshark.engine.table import Table
from poolshark.pool.context import Feature, context_from_table
from poolshark.pool.strength import postflop_strength, reference_ranges
from poolshark.pool.style import Style, action_probabilities, load_style

TAG_TEXT = (Path(__file__).parents[1] / "src/poolshark/pool/styles/tag.toml").read_text()


def _tag_with(**postflop: float) -> Style:
    """The shipped tag with postflop numbers replaced (or added)."""
    lines = []
    for line in TAG_TEXT.splitlines():
        key = line.split("=")[0].strip()
        if key not in postflop:
            lines.append(line)
        if line.strip() == "[postflop]":
            lines += [f"{name} = {value}" for name, value in postflop.items()]
    return Style.from_toml("\n".join(lines))


def _facing_cbet(fraction: float, stacks: tuple[int, int] = (400, 400)) -> Table:
    """Heads-up: the button opens to 3 big blinds, the big blind calls and checks the flop,
    the button c-bets ``fraction`` of the 12-chip pot; the big blind (out of position) acts."""
    table = Table(GameConfig(seats=2), list(stacks), button=0, seed=7)
    table.raise_to(6)
    table.check_call()
    table.check_call()
    table.raise_to(round(fraction * table.pot()))
    return table


def _continuing(style: Style, table: Table) -> float:
    """Share of the flop's reference range (the combos ``made`` is uniform over) that does
    not fold."""
    rows = action_probabilities(style, context_from_table(table), table.board).probabilities
    chosen = reference_ranges()[1] & (rows.sum(axis=1) > 0)
    return float(1.0 - rows[chosen, 0].mean())


def test_folding_follows_the_minimum_defence_frequency() -> None:
    """A style continues (1 - fold_to_cbet) (MDF(f) / MDF(1/2)) ** size_sensitivity of a
    range against a bet of f times the pot, MDF(f) = 1 / (1 + f): small bets are folded to
    less, overbets much more, and a size-blind style folds the same share to any size."""
    style = _tag_with(
        draw_discipline=5.0, position_defence=0.0, fold_to_cbet=0.4, semi_bluff_raise=0.0
    )
    fractions = (0.25, 0.5, 1.0, 2.0)
    shares = [_continuing(style, _facing_cbet(f)) for f in fractions]
    for fraction, share in zip(fractions, shares, strict=True):
        expected = 0.6 * (1.5 / (1.0 + fraction))
        assert share == pytest.approx(expected, abs=0.03), fraction
    assert shares == sorted(shares, reverse=True)
    blind = _tag_with(draw_discipline=5.0, semi_bluff_raise=0.0, size_sensitivity=0.0)
    flat = [_continuing(blind, _facing_cbet(f)) for f in fractions]
    assert max(flat) - min(flat) < 0.03


def test_shallow_stacks_commit_made_hands() -> None:
    """Facing a pot-sized bet with a stack-to-pot ratio of 1 for the round, made hands fold
    less than 200 big blinds deep; without ``commitment`` depth does not matter. (Facing
    an all-in the caller counts as in position: nobody with chips acts after it, so the
    position term is switched off here.)"""
    deep, shallow = _facing_cbet(1.0), _facing_cbet(1.0, (18, 18))
    assert context_from_table(shallow)[Feature.MY_STACK] == 12  # 12 behind, a 12-chip pot
    plain = {"draw_discipline": 5.0, "semi_bluff_raise": 0.0, "position_defence": 0.0}
    style = _tag_with(**plain)
    assert _continuing(style, shallow) > _continuing(style, deep) + 0.1
    uncommitted = _tag_with(**plain, commitment=0.0)
    assert _continuing(uncommitted, shallow) == pytest.approx(_continuing(uncommitted, deep))


def _with(features: np.ndarray, feature: Feature, value: float) -> np.ndarray:
    changed = features.copy()
    changed[feature] = value
    return changed


def test_position_moves_betting_and_defending() -> None:
    """The same spot in position bets more often (stabs, bluffs) and defends more than out
    of position."""
    tag = load_style("tag")
    checked_to = Table(GameConfig(seats=2), [400, 400], button=0, seed=7)
    checked_to.raise_to(6)
    checked_to.check_call()
    checked_to.check_call()  # the big blind checks: the button may c-bet
    features = context_from_table(checked_to)
    betting = {}
    for side in (0.0, 1.0):
        at = _with(features, Feature.IN_POSITION, side)
        rows = action_probabilities(tag, at, checked_to.board).probabilities
        betting[side] = rows[:, 2:].sum()
    assert betting[1.0] > 1.1 * betting[0.0]
    facing = _facing_cbet(0.5)
    features = context_from_table(facing)
    defending = {}
    for side in (0.0, 1.0):
        at = _with(features, Feature.IN_POSITION, side)
        rows = action_probabilities(tag, at, facing.board).probabilities
        defending[side] = 1.0 - rows[rows.sum(axis=1) > 0, 0].mean()
    assert defending[1.0] > defending[0.0] + 0.03


def test_bluffs_thin_out_multiway() -> None:
    """Air bets less often against two opponents than against one (and value is tighter
    through ``made ** opponents``)."""
    maniac = load_style("maniac")
    table = Table(GameConfig(seats=3), [400, 400, 400], button=0, seed=11)
    for _ in range(4):
        table.check_call()  # limp, complete, check: a three-way flop
    made, draw = postflop_strength(table.board)
    rows = {}
    for alive in (2.0, 3.0):
        features = _with(context_from_table(table), Feature.ALIVE, alive)
        rows[alive] = action_probabilities(maniac, features, table.board).probabilities
    air = (made < 0.1) & (draw == 0) & (rows[2.0].sum(axis=1) > 0)
    assert air.sum() > 50
    heads_up, three_way = rows[2.0][air, 2:].sum(axis=1), rows[3.0][air, 2:].sum(axis=1)
    assert np.all(heads_up > 0)
    np.testing.assert_allclose(three_way, heads_up / 2)  # multiway = 1: halved


def _preflop_fold_share(style: Style, table: Table, weights: np.ndarray | None = None) -> float:
    """Share of a range (default: every combo) that folds at this preflop decision."""
    rows = action_probabilities(style, context_from_table(table), []).probabilities
    weights = np.ones(len(rows)) if weights is None else weights
    return float((rows[:, 0] * weights).sum() / weights.sum())


def test_bigger_opens_are_folded_to_more() -> None:
    """The cutoff opens; the button folds more the bigger the open, and at the reference
    size (2.5 big blinds) exactly as its ranges are written."""
    tag = load_style("tag")
    folds = {}
    for open_to in (4, 5, 6, 8, 10):
        table = Table(GameConfig(seats=6), [200] * 6, button=3, seed=2)
        table.fold()  # EP (under the gun)
        table.fold()  # MP
        table.raise_to(open_to)  # the cutoff opens
        folds[open_to] = _preflop_fold_share(tag, table)
    assert list(folds.values()) == sorted(folds.values())
    assert folds[8] > folds[5] + 0.03
    assert folds[4] < folds[5] - 0.03
    node_up, node_keep = tag.raise_weight[12 + 3], tag.continue_weight[12 + 3]  # VS_OPEN, BTN
    written = ((1 - node_up) * (1 - node_keep)).mean()
    assert folds[5] == pytest.approx(written, abs=1e-12)
    continuing = 1 - folds[8]
    assert continuing == pytest.approx((1 - written) * (8 / 5) ** -1.0, abs=0.002)


def test_bigger_three_bets_are_folded_to_more() -> None:
    """The opener folds ``fold_to_3bet`` of its opening range to a three-bet of the
    reference size (3 times the open) and more to a bigger one."""
    tag = load_style("tag")
    opens = tag.raise_weight[3]  # UNOPENED + BTN
    folds = {}
    for three_bet in (12, 15, 20, 30):
        table = Table(GameConfig(seats=6), [400] * 6, button=3, seed=2)
        for _ in range(3):
            table.fold()  # EP, MP, CO
        table.raise_to(5)  # the button opens to 2.5 big blinds
        table.fold()  # small blind
        table.raise_to(three_bet)  # the big blind three-bets
        folds[three_bet] = _preflop_fold_share(tag, table, opens)
    assert folds[15] == pytest.approx(tag.spec.preflop.fold_to_3bet, abs=1e-9)
    assert folds[12] < folds[15] < folds[20] < folds[30]
