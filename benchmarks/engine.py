"""Engine speed: complete 6-max no-limit hands per second, batched vs single table vs PokerKit.

Run from the repository root::

    python benchmarks/engine.py [--quick] [--seed N] [--json]

Every engine plays complete 6-max no-limit hands, blinds 1/2, 100 big blinds deep, with
the same random policy: facing a bet fold 25%, call 50%, raise 25%; otherwise check 65%,
bet 35%; a raise is all-in one time in five, else uniform from the minimum to a pot-sized
raise. Showdowns are evaluated. Everything runs on one core, side by side in one run:

* ``batched``: ``BatchedTables.play_random`` on 4,096 tables (the policy is compiled too).
* ``table``: the readable ``Table``, with the policy in Python.
* ``pokerkit``: PokerKit's ``NoLimitTexasHoldem`` state with dealing automated, the same
  policy in Python.

Then the reinforcement-learning loop, decisions per second including a batched policy
call: ``MultiAgentView`` on 4,096 tables, observations encoded for the player to act at
every table, a torch MLP (two hidden layers of 128) scores the legal actions, the choices
are mapped to exact raises and applied, finished tables dealt again.

The last line printed is one JSON object with these keys:

* ``batched_hands_per_s``, ``table_hands_per_s``, ``pokerkit_hands_per_s``
* ``ratio_batched_vs_table``, ``ratio_batched_vs_pokerkit``, ``ratio_table_vs_pokerkit``
* ``rl_decisions_per_s``: decisions per second of the policy-in-the-loop step;
  ``rl_policy_share``: the fraction of that loop's time spent in the policy call.
* ``actions_per_hand``: mean actions per batched hand (the workload).
* ``quick`` and ``seed``: the options given.
"""

from __future__ import annotations

import random
import time

import torch
from torch.distributions import Categorical, Distribution

from common import emit, parse_args, print_table
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import GameConfig
from poolshark.engine.table import Table
from poolshark.play.env import MultiAgentView

CONFIG = GameConfig(seats=6, small_blind=1, big_blind=2)
DEPTH = 200


def policy_choice(
    rng: random.Random, call: int, low: int | None, high: int | None, pot: int, current: int
) -> tuple[str, int]:
    """The benchmark policy in Python (the batched engine compiles the same rule)."""
    u = rng.randrange(100)
    if call > 0 and u < 25:
        return "fold", 0
    if low is None or high is None or (call > 0 and u < 75) or (call == 0 and u < 65):
        return "call", 0
    if rng.randrange(5) == 0:
        return "raise", high
    upper = max(low, min(high, current + pot + call))
    return "raise", rng.randint(low, upper)


def table_hands(hands: int, seed: int) -> float:
    """Hands per second of the readable Table."""
    rng = random.Random(seed)
    start = time.perf_counter()
    for hand in range(hands):
        table = Table(CONFIG, [DEPTH] * 6, button=hand % 6, seed=seed + hand)
        while not table.done:
            legal = table.legal()
            move, amount = policy_choice(
                rng,
                legal.call,
                legal.min_raise_to,
                legal.max_raise_to,
                table.pot(),
                table.current_bet,
            )
            table.act(move, amount)
    return hands / (time.perf_counter() - start)


def pokerkit_hands(hands: int, seed: int) -> float | None:
    """Hands per second of PokerKit with the same policy (None when it is not installed)."""
    try:
        from pokerkit import Mode, NoLimitTexasHoldem

        from poolshark.histories.referee import AUTOMATIONS
    except ImportError:
        return None
    rng = random.Random(seed)
    start = time.perf_counter()
    for _ in range(hands):
        state = NoLimitTexasHoldem.create_state(
            AUTOMATIONS, True, 0, (1, 2), 2, [DEPTH] * 6, 6, mode=Mode.CASH_GAME
        )
        while state.status:
            call = state.checking_or_calling_amount or 0
            can_raise = state.can_complete_bet_or_raise_to()
            low = state.min_completion_betting_or_raising_to_amount if can_raise else None
            high = state.max_completion_betting_or_raising_to_amount if can_raise else None
            pot = state.total_pot_amount
            move, amount = policy_choice(rng, call, low, high, pot, max(state.bets))
            if move == "fold" and state.can_fold():
                state.fold()
            elif move == "raise":
                state.complete_bet_or_raise_to(amount)
            else:
                state.check_or_call()
    return hands / (time.perf_counter() - start)


def batched_hands(hands: int, seed: int) -> tuple[float, float]:
    """Hands per second of the compiled batch, and its mean actions per hand."""
    batch = BatchedTables(CONFIG, 4096, seed=seed)
    batch.play_random(4096, DEPTH)  # compile and warm up
    start = time.perf_counter()
    play = batch.play_random(hands, DEPTH)
    return hands / (time.perf_counter() - start), play.actions / hands


def rl_decisions(steps: int, seed: int) -> tuple[float, float]:
    """Decisions per second of observe -> torch policy -> act on 4,096 tables."""
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    view = MultiAgentView(CONFIG, 4096, seed=seed)
    size = view.encoder.size
    model = torch.nn.Sequential(
        torch.nn.Linear(size, 128),
        torch.nn.ReLU(),
        torch.nn.Linear(128, 128),
        torch.nn.ReLU(),
        torch.nn.Linear(128, view.actions.size),
    )
    policy_time = 0.0

    def run(count: int) -> None:
        nonlocal policy_time
        for _ in range(count):
            _, observations, masks = view.observe_all()
            tick = time.perf_counter()
            with torch.inference_mode():
                logits = model(torch.from_numpy(observations))
                logits[~torch.from_numpy(masks)] = -torch.inf
                # Typed as the base class: Categorical's own ``sample`` override is unannotated.
                policy: Distribution = Categorical(logits=logits)
                choices = policy.sample().numpy()
            policy_time += time.perf_counter() - tick
            view.act(choices)

    run(3)
    policy_time = 0.0
    start = time.perf_counter()
    run(steps)
    elapsed = time.perf_counter() - start
    return steps * view.batch.size / elapsed, policy_time / elapsed


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    quick = args.quick
    batched, actions = batched_hands(200_000 if quick else 2_000_000, args.seed)
    table = table_hands(1_000 if quick else 5_000, args.seed)
    pokerkit = pokerkit_hands(100 if quick else 500, args.seed)
    decisions, policy_share = rl_decisions(20 if quick else 100, args.seed)
    figures: dict[str, object] = {
        "batched_hands_per_s": batched,
        "table_hands_per_s": table,
        "pokerkit_hands_per_s": pokerkit,
        "ratio_batched_vs_table": batched / table,
        "ratio_batched_vs_pokerkit": batched / pokerkit if pokerkit else None,
        "ratio_table_vs_pokerkit": table / pokerkit if pokerkit else None,
        "rl_decisions_per_s": decisions,
        "rl_policy_share": policy_share,
        "actions_per_hand": actions,
        "quick": quick,
        "seed": args.seed,
    }
    if not args.json:
        rows: list[list[object]] = [
            ["batched (4,096 tables, compiled)", batched, 1.0],
            ["single Table (Python)", table, batched / table],
        ]
        if pokerkit:
            rows.append(["PokerKit", pokerkit, batched / pokerkit])
        print_table(
            "6-max NLHE, 100 bb, random policy, one core: hands per second",
            ["engine", "hands/s", "batched is x faster"],
            rows,
        )
        print_table(
            "RL loop on 4,096 tables: observe -> torch MLP -> act",
            ["figure", "value"],
            [
                ["decisions per second", decisions],
                ["share of time in the policy", policy_share],
                ["actions per hand (workload)", actions],
            ],
        )
    emit(figures)


if __name__ == "__main__":
    main()
