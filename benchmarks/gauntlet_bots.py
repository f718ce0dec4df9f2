"""The gauntlet's Poki and Vexbot: decisions per second and win rates in heads-up limit.

Run from the repository root::

    python benchmarks/gauntlet_bots.py [--quick] [--seed N] [--json]

* Matches: each bot against ``station`` and ``random`` in heads-up fixed-limit duplicate
  matches (blinds 1/2, bets 2/2/4/4, four bets a round), fresh agents per match; win
  rates in small bets per hand with the match's 95% interval, and the bot's decisions per
  second inside its ``act`` calls (its hand-end bookkeeping and learning included), by
  process CPU time and by the wall clock (which, on a shared machine, also counts the
  other processes' turns).
* Adaptation: Vexbot against Poki in the same kind of match, its win rate per quarter of
  the hands as they finished (the model learns over the match).
* Kernels: the compiled hand strength and potential against a weighted range
  (``agents.limit_strength.strength_potential``) against its exact reference
  (``equity.features.hand_features``) on the same flop and turn spots, in milliseconds.

The last line printed is one JSON object with these keys:

* ``matches``: per bot and opponent, ``sb_per_hand``, ``ci95``, ``hands``,
  ``decisions_per_s`` and ``ms_per_decision`` (CPU time), ``wall_decisions_per_s``;
* ``poki_decisions_per_s``, ``vexbot_decisions_per_s``: CPU time, all its matches;
* ``vexbot_vs_poki``: ``sb_per_hand``, ``ci95`` and ``quarters`` (Vexbot's small bets per
  hand in each quarter of the hands, in the order they finished);
* ``strength_ms``, ``features_ms``, ``speedup_flop``, ``speedup_turn``: per call;
* ``quick``, ``seed``, ``hands``: the options given and the hands per match.
"""

from __future__ import annotations

import time

import numpy as np

from common import emit, parse_args, print_table
from poolshark.agents import Agent, Decisions, Moves, Probabilities, load_agent
from poolshark.agents.limit_strength import strength_potential
from poolshark.cards.card import parse_cards
from poolshark.cards.ranges import Range
from poolshark.engine.config import Betting
from poolshark.equity.features import hand_features
from poolshark.evaluate import MatchConfig, play_match
from poolshark.evaluate.match import FinishedHands

BOTS = ("poki", "vexbot")
OPPONENTS = ("station", "random")
HANDS_PER_TABLE = 50


class CpuTimed:
    """An agent wrapped to add up the process CPU time of its ``act`` calls (wall-clock
    time on a shared machine also counts the other processes' turns)."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.cpu_seconds = 0.0

    def act(self, decisions: Decisions) -> Probabilities | Moves:
        start = time.process_time()
        answer = self.agent.act(decisions)
        self.cpu_seconds += time.process_time() - start
        return answer


def learning_curve(config: MatchConfig) -> tuple[float, float, float, list[float]]:
    """Vexbot against Poki: the win rate, and per quarter of the hands (in the order they
    finished) Vexbot's mean small bets per hand, to show it adapting: (sb/hand, 95%
    interval low, high, quarters)."""
    won: list[int] = []

    def observe(finished: FinishedHands) -> None:
        for owners, net in zip(finished.owners, finished.net, strict=True):
            won.append(int(net[owners == 0].sum()))

    result = play_match(
        [load_agent("vexbot"), load_agent("poki")],
        [0, 1],
        config,
        names=["vexbot", "poki"],
        observer=observe,
    )
    small_bets = np.array(won) / config.big_blind
    quarters = [float(part.mean()) for part in np.array_split(small_bets, 4)]
    estimate = result.agents[0].actual
    low, high = (bound / 100 for bound in estimate.interval)
    return estimate.small_bets_per_hand, low, high, quarters


def kernel_timings(seed: int, repeats: int) -> dict[str, dict[str, float]]:
    """CPU milliseconds per call of the compiled kernel and of the exact features."""
    weights = np.random.default_rng(seed).random(1326)
    ours = parse_cards("9h8h")
    spots = {"flop": parse_cards("Th7c2h"), "turn": parse_cards("Th7c2h3s")}
    strength_potential((ours[0], ours[1]), tuple(spots["flop"]), weights, seed=seed)  # compile
    timings: dict[str, dict[str, float]] = {}
    for street, board in spots.items():
        start = time.process_time()
        for k in range(repeats):
            strength_potential((ours[0], ours[1]), tuple(board), weights, seed=seed + k)
        fast = (time.process_time() - start) / repeats
        start = time.process_time()
        hand_features(ours, board, Range(weights))
        exact = time.process_time() - start
        timings[street] = {"strength_ms": 1e3 * fast, "features_ms": 1e3 * exact}
    return timings


def main() -> None:
    args = parse_args(__doc__ or "")
    hands = 400 if args.quick else 4000
    config = MatchConfig(
        hands=hands,
        seats=2,
        betting=Betting.FIXED_LIMIT,
        duplicate=True,
        seed=args.seed,
        tables=max(1, hands // HANDS_PER_TABLE),
    )
    matches: dict[str, dict[str, object]] = {}
    totals = {bot: [0, 0.0] for bot in BOTS}
    rows: list[list[object]] = []
    for bot in BOTS:
        for opponent in OPPONENTS:
            timed = CpuTimed(load_agent(bot))
            result = play_match(
                [timed, load_agent(opponent)], [0, 1], config, names=[bot, opponent]
            )
            agent = result.agents[0]
            low, high = (bound / 100 for bound in agent.actual.interval)
            rate = agent.decisions / max(timed.cpu_seconds, 1e-9)
            wall_rate = agent.decisions / max(agent.agent_seconds, 1e-9)
            totals[bot][0] += agent.decisions
            totals[bot][1] += timed.cpu_seconds
            matches[f"{bot}_vs_{opponent}"] = {
                "sb_per_hand": agent.actual.small_bets_per_hand,
                "ci95": [low, high],
                "hands": result.table_hands,
                "decisions_per_s": rate,
                "ms_per_decision": 1e3 / rate,
                "wall_decisions_per_s": wall_rate,
                "coerced": agent.coerced,
            }
            rows.append(
                [
                    f"{bot} vs {opponent}",
                    result.table_hands,
                    agent.actual.small_bets_per_hand,
                    f"[{low:.3f}, {high:.3f}]",
                    agent.decisions,
                    rate,
                    1e3 / rate,
                    wall_rate,
                ]
            )
    if not args.json:
        print_table(
            f"Heads-up fixed-limit duplicate matches ({hands} hands, seed {args.seed})",
            [
                "match",
                "hands",
                "sb/hand",
                "95% CI",
                "decisions",
                "decisions/s (CPU)",
                "ms/decision (CPU)",
                "decisions/s (wall)",
            ],
            rows,
        )
    adapted, low, high, quarters = learning_curve(config)
    if not args.json:
        print_table(
            f"Vexbot adapting to Poki: small bets per hand ({hands} hands)",
            ["match", "sb/hand", "95% CI", "1st quarter", "2nd", "3rd", "4th"],
            [
                ["vexbot vs poki", adapted, f"[{low:.3f}, {high:.3f}]", *quarters],
            ],
        )
    timings = kernel_timings(args.seed, 5 if args.quick else 20)
    if not args.json:
        print_table(
            "Strength and potential against a weighted range (9h8h, 1,326 weighted combos)",
            ["street", "compiled ms", "exact features ms", "speed-up"],
            [
                [street, t["strength_ms"], t["features_ms"], t["features_ms"] / t["strength_ms"]]
                for street, t in timings.items()
            ],
        )
    rates = {bot: count / max(seconds, 1e-9) for bot, (count, seconds) in totals.items()}
    emit(
        {
            "matches": matches,
            "vexbot_vs_poki": {"sb_per_hand": adapted, "ci95": [low, high], "quarters": quarters},
            "poki_decisions_per_s": rates["poki"],
            "vexbot_decisions_per_s": rates["vexbot"],
            "strength_ms": {street: t["strength_ms"] for street, t in timings.items()},
            "features_ms": {street: t["features_ms"] for street, t in timings.items()},
            "speedup_flop": timings["flop"]["features_ms"] / timings["flop"]["strength_ms"],
            "speedup_turn": timings["turn"]["features_ms"] / timings["turn"]["strength_ms"],
            "quick": args.quick,
            "seed": args.seed,
            "hands": hands,
        }
    )


if __name__ == "__main__":
    main()
