"""Pools: shipped pools load, players and styles are dealt reproducibly, fast-fold play."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from poolshark.pool.play import play_hands
from poolshark.pool.pools import PoolError, deal_styles, list_pools, load_pool
from poolshark.pool.style import StyleError, load_style

POOL_TEXT = """
name = "mine"
players = 50
seed = 3
[mix]
tag = 2
{second} = {weight}
"""
NIT_POOL = POOL_TEXT.format(second="nit", weight=1)


def test_shipped_names_win_over_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run folder named like a style or a pool (``tag/``, ``micro-zoom/``), or a stray
    file named like one, does not hide the shipped one; a path still reads a file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tag").mkdir()
    (tmp_path / "tough-regs").mkdir()
    (tmp_path / "nit").write_text("not a style")
    assert load_pool("tough-regs").spec.name == "tough-regs"
    assert load_style("tag").spec.name == "tag"
    assert load_style("nit").spec.name == "nit"
    (tmp_path / "mine.toml").write_text(NIT_POOL)
    assert load_pool("mine.toml").spec.name == "mine"
    with pytest.raises(StyleError, match="no shipped style"):
        load_style("no-such-style")


def test_shipped_pools() -> None:
    specs = list_pools()
    assert {"micro-zoom", "tough-regs", "soft"} <= {spec.name for spec in specs}
    for spec in specs:
        pool = load_pool(spec.name)
        assert len(pool.player_names) == spec.players == len(pool.player_styles)
        assert len(set(pool.player_names)) == spec.players
        weights = np.array(list(spec.mix.values()))
        np.testing.assert_allclose(
            pool.style_frequencies(), weights / weights.sum(), atol=1 / spec.players
        )
        assert [style.name for style in pool.styles] == list(spec.mix)
        summary = pool.summary()
        assert summary["players"] == spec.players
        assert sum(entry["players"] for entry in summary["mix"]) == spec.players
    micro = load_pool("micro-zoom")
    assert micro.stack == 200
    assert micro.config.seats == 6
    shares = dict(zip([s.name for s in micro.styles], micro.style_frequencies(), strict=True))
    assert shares["zoom-reg"] + shares["station"] > 0.6  # mostly regulars and stations


def test_pools_are_reproducible() -> None:
    first, second = load_pool("soft"), load_pool("soft")
    assert first.player_names == second.player_names
    assert np.array_equal(first.player_styles, second.player_styles)
    assert first.style_of(7) == int(first.player_styles[7])


def test_deal_styles_keeps_exact_proportions() -> None:
    styles = deal_styles([0.5, 0.3, 0.2], 10, np.random.default_rng(0))
    assert np.bincount(styles).tolist() == [5, 3, 2]
    uneven = deal_styles([1, 1, 1], 100, np.random.default_rng(1))
    assert sorted(np.bincount(uneven).tolist()) == [33, 33, 34]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (POOL_TEXT.format(second="nit", weight=-1), r"mix\.nit: Input should be greater than 0"),
        (POOL_TEXT.format(second="shark", weight=1), r"mix\.shark: no shipped style 'shark'"),
        (NIT_POOL.replace("players = 50", "players = 4"), "4 players cannot fill 6 seats"),
        (NIT_POOL.replace("seed = 3", "seed = 3\nseets = 6"), "seets: Extra inputs"),
        (NIT_POOL.replace("[mix]", "[mix"), "not valid TOML"),
    ],
)
def test_bad_pool_files_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text)
    with pytest.raises(PoolError, match=message):
        load_pool(path)


def test_pool_files_may_use_style_files_beside_them(tmp_path: Path) -> None:
    styles = Path(__file__).parents[1] / "src/poolshark/pool/styles"
    (tmp_path / "shark.toml").write_text(
        (styles / "lag.toml").read_text().replace('name = "lag"', 'name = "shark"')
    )
    path = tmp_path / "mine.toml"
    path.write_text(POOL_TEXT.format(second='"shark.toml"', weight=1))
    pool = load_pool(path)
    assert [style.name for style in pool.styles] == ["tag", "shark"]
    with pytest.raises(PoolError, match="no shipped pool 'nowhere'"):
        load_pool("nowhere")


def test_fast_fold_hands_reseat_players_and_reset_stacks() -> None:
    pool = load_pool("micro-zoom")
    hands = list(play_hands(pool.config, pool.stack, pool.bank, pool.player_styles, 200, seed=4))
    assert len({hand.players for hand in hands}) == len(hands)
    for hand in hands:
        table = hand.table
        assert table.done
        assert table.result is not None
        assert table.starting_stacks == [pool.stack] * pool.config.seats
        assert len(set(hand.players)) == pool.config.seats
        assert hand.styles == tuple(pool.style_of(p) for p in hand.players)
        assert sum(table.result.net) == -table.result.rake
    flops = sum(any(a.street >= 1 for a in hand.table.log) for hand in hands)
    assert 0.2 < flops / len(hands) < 0.9
    with pytest.raises(ValueError, match="cannot fill"):
        next(play_hands(pool.config, pool.stack, pool.bank, [0, 1, 2], 1, seed=0))
