"""Evaluation speed and variance: matches with real agents, batched vs the readable engine.

Run from the repository root::

    python benchmarks/evaluate.py [--quick] [--seed N] [--json]

Every match is 6-max no-limit, blinds 1/2, 100 big blinds, one core, side by side:

* ``bots``: the rule-based TAG bot, a calling station and a uniform random agent (A, B, C,
  A, B, C), all-in EV by sampled runouts (the default).
* ``pool`` under three all-in EV settings: the TAG bot against micro-zoom (a style agent
  in five seats; the compiled style sampler): ``off``, ``sampled`` (500 runouts),
  ``exact`` (the engine's EV settlement).
* ``readable``: the peer for the style agent: the same styles with ``pool.play.play_hands``
  on the readable ``Table`` (every seat a micro-zoom player).
* Variance: the standard error of a lopsided heads-up match (zoom-reg against the calling
  station style) in plain and duplicate mode on the same number of hands, and of the TAG
  bot against random with and without the all-in EV adjustment.

The last line printed is one JSON object with these keys:

* ``bots_hands_per_s``, ``pool_hands_per_s`` (sampled EV), ``pool_no_ev_hands_per_s``,
  ``pool_exact_ev_hands_per_s``: table-hands per second of each match;
* ``readable_hands_per_s``: ``play_hands`` on ``Table``; ``ratio_pool_vs_readable``;
* ``ratio_sampled_vs_exact_ev``: how much faster sampled runouts are than exact EV;
* ``agent_share``: the share of the pool match's time spent inside the agents' calls;
* ``duplicate_stderr_ratio``: duplicate / plain standard error (below 1: duplicate helps);
* ``ev_stderr_ratio``: EV-adjusted / actual standard error, TAG vs random;
* ``quick`` and ``seed``: the options given.
"""

from __future__ import annotations

import time

from common import emit, parse_args, print_table
from poolshark.agents import load_agent
from poolshark.engine.runouts import AllInEV
from poolshark.evaluate import MatchConfig, MatchResult, default_lineup, play_match
from poolshark.pool.play import play_hands
from poolshark.pool.pools import load_pool


def match(specs: list[str], lineup: tuple[int, ...], config: MatchConfig) -> MatchResult:
    """One match of freshly loaded agents."""
    return play_match([load_agent(s) for s in specs], lineup, config, names=specs)


def rate(result: MatchResult) -> float:
    """Table-hands per second."""
    return result.table_hands / result.seconds


def readable_hands(hands: int, seed: int) -> float:
    """Hands per second of micro-zoom on the readable engine."""
    pool = load_pool("micro-zoom")
    players: list[int] = pool.player_styles.tolist()  # play_hands takes a Sequence[int]
    start = time.perf_counter()
    for _ in play_hands(pool.config, pool.stack, pool.bank, players, hands, seed):
        pass
    return hands / (time.perf_counter() - start)


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    quick, seed = args.quick, args.seed
    hands = 20_000 if quick else 200_000
    pool_specs = ["tag", "pool:micro-zoom"]
    field = default_lineup(2, 6, against=True)
    match(pool_specs, field, MatchConfig(hands=600, seed=seed))  # compile and warm up
    bots = match(
        ["tag", "station", "random"], default_lineup(3, 6), MatchConfig(hands=hands, seed=seed)
    )
    speeds = {}
    results = {}
    for mode in ("off", "sampled", "exact"):
        size = hands // 10 if mode == "exact" else hands
        config = MatchConfig(hands=size, seed=seed, all_in_ev=AllInEV(mode))
        results[mode] = match(pool_specs, field, config)
        speeds[mode] = rate(results[mode])
    readable = readable_hands(1_000 if quick else 5_000, seed)
    pool = results["sampled"]
    agent_share = sum(a.agent_seconds for a in pool.agents) / pool.seconds
    lopsided = ["zoom-reg", "style:station"]
    plain = match(lopsided, (0, 1), MatchConfig(hands=hands // 2, seats=2, seed=seed))
    mirrored = match(
        lopsided, (0, 1), MatchConfig(hands=hands // 2, seats=2, seed=seed, duplicate=True)
    )
    duplicate_ratio = mirrored.agents[0].actual.stderr / plain.agents[0].actual.stderr
    versus_random = match(
        ["tag", "random"], (0, 1), MatchConfig(hands=hands // 4, seats=2, seed=seed)
    )
    tag = versus_random.agents[0]
    assert tag.ev_adjusted is not None
    ev_ratio = tag.ev_adjusted.stderr / tag.actual.stderr
    figures: dict[str, object] = {
        "bots_hands_per_s": rate(bots),
        "pool_hands_per_s": speeds["sampled"],
        "pool_no_ev_hands_per_s": speeds["off"],
        "pool_exact_ev_hands_per_s": speeds["exact"],
        "readable_hands_per_s": readable,
        "ratio_pool_vs_readable": speeds["sampled"] / readable,
        "ratio_sampled_vs_exact_ev": speeds["sampled"] / speeds["exact"],
        "agent_share": agent_share,
        "duplicate_stderr_ratio": duplicate_ratio,
        "ev_stderr_ratio": ev_ratio,
        "quick": quick,
        "seed": seed,
    }
    if not args.json:
        readable_count = 1_000 if quick else 5_000
        speed_rows: list[tuple[str, int, float]] = [
            ("tag, station, random (EV sampled)", bots.table_hands, rate(bots)),
            *[
                (f"tag vs micro-zoom (EV {mode})", results[mode].table_hands, speeds[mode])
                for mode in ("off", "sampled", "exact")
            ],
            ("micro-zoom on Table (play_hands)", readable_count, readable),
        ]
        print_table(
            "6-max NLHE matches, 100 bb, one core: table-hands per second",
            ["match", "hands", "hands/s", "x readable engine"],
            [[name, count, speed, speed / readable] for name, count, speed in speed_rows],
        )
        rows: list[list[object]] = [
            [
                "zoom-reg vs style:station, plain",
                plain.table_hands,
                plain.agents[0].actual.bb_per_100,
                plain.agents[0].actual.stderr,
                1.0,
            ],
            [
                "same, duplicate",
                mirrored.table_hands,
                mirrored.agents[0].actual.bb_per_100,
                mirrored.agents[0].actual.stderr,
                duplicate_ratio,
            ],
            [
                "tag vs random, actual",
                versus_random.table_hands,
                tag.actual.bb_per_100,
                tag.actual.stderr,
                1.0,
            ],
            [
                "same, all-in EV adjusted",
                versus_random.table_hands,
                tag.ev_adjusted.bb_per_100,
                tag.ev_adjusted.stderr,
                ev_ratio,
            ],
        ]
        print_table(
            "Variance: heads-up, first agent's win rate",
            ["match", "hands", "bb/100", "std. error", "x plain"],
            rows,
        )
    emit(figures)


if __name__ == "__main__":
    main()
