"""Fixed-limit speed: complete limit hold'em hands per second, batched engine vs PokerKit.

Run from the repository root::

    python benchmarks/limit_engine.py [--quick] [--seed N] [--json]

Both engines play complete fixed-limit hold'em hands (blinds 1/2, bets 2/2/4/4, four bets a
round, heads-up capped too), 6-max and heads-up, stacks of 200 chips reset every hand, with
the same random policy as ``benchmarks/engine.py`` (facing a bet fold 25%, call 50%, raise
25%; otherwise check 65%, bet 35%), showdowns evaluated, on one core, side by side:

* ``batched``: ``BatchedTables.play_random`` on 4,096 tables (policy compiled).
* ``pokerkit``: PokerKit's ``FixedLimitTexasHoldem`` with dealing automated, the policy in
  Python.

The seed thesis (003) played a million 6-player limit hands without learning in about six
minutes; ``seconds_per_million_6max`` is ours at the measured rate.

The last line is one JSON object with the keys ``batched_6max_hands_per_s``,
``batched_hu_hands_per_s``, ``pokerkit_6max_hands_per_s``, ``pokerkit_hu_hands_per_s``,
``ratio_6max_vs_pokerkit``, ``ratio_hu_vs_pokerkit``, ``seconds_per_million_6max``,
``actions_per_hand_6max``, ``quick`` and ``seed``.
"""

from __future__ import annotations

import random
import time

from common import emit, parse_args, print_table
from engine import policy_choice
from poolshark.engine.batched import BatchedTables
from poolshark.engine.config import Betting, GameConfig

DEPTH = 200


def game(seats: int) -> GameConfig:
    """Fixed-limit hold'em, blinds 1/2, bets 2 and 4, four bets a round at any table size."""
    return GameConfig(
        betting=Betting.FIXED_LIMIT,
        seats=seats,
        small_blind=1,
        big_blind=2,
        small_bet=2,
        big_bet=4,
        cap_heads_up=True,
    )


def batched_hands(seats: int, hands: int, seed: int) -> tuple[float, float]:
    """Hands per second of the compiled batch, and its mean actions per hand."""
    batch = BatchedTables(game(seats), 4096, seed=seed)
    batch.play_random(4096, DEPTH)  # compile and warm up
    start = time.perf_counter()
    play = batch.play_random(hands, DEPTH)
    return hands / (time.perf_counter() - start), play.actions / hands


def pokerkit_hands(seats: int, hands: int, seed: int) -> float | None:
    """Hands per second of PokerKit's fixed-limit state (None when it is not installed)."""
    try:
        from pokerkit import FixedLimitTexasHoldem, Mode

        from poolshark.histories.referee import AUTOMATIONS
    except ImportError:
        return None
    rng = random.Random(seed)
    start = time.perf_counter()
    for _ in range(hands):
        state = FixedLimitTexasHoldem.create_state(
            AUTOMATIONS, True, 0, (1, 2), 2, 4, [DEPTH] * seats, seats, mode=Mode.CASH_GAME
        )
        while state.status:
            call = state.checking_or_calling_amount or 0
            can_raise = state.can_complete_bet_or_raise_to()
            low = state.min_completion_betting_or_raising_to_amount if can_raise else None
            move, _ = policy_choice(rng, call, low, low, state.total_pot_amount, max(state.bets))
            if move == "fold" and state.can_fold():
                state.fold()
            elif move == "raise":
                state.complete_bet_or_raise_to()
            else:
                state.check_or_call()
    return hands / (time.perf_counter() - start)


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    quick = args.quick
    six, actions = batched_hands(6, 200_000 if quick else 1_000_000, args.seed)
    heads_up, _ = batched_hands(2, 200_000 if quick else 1_000_000, args.seed)
    kit_six = pokerkit_hands(6, 200 if quick else 1_000, args.seed)
    kit_hu = pokerkit_hands(2, 200 if quick else 1_000, args.seed)
    figures: dict[str, object] = {
        "batched_6max_hands_per_s": six,
        "batched_hu_hands_per_s": heads_up,
        "pokerkit_6max_hands_per_s": kit_six,
        "pokerkit_hu_hands_per_s": kit_hu,
        "ratio_6max_vs_pokerkit": six / kit_six if kit_six else None,
        "ratio_hu_vs_pokerkit": heads_up / kit_hu if kit_hu else None,
        "seconds_per_million_6max": 1e6 / six,
        "actions_per_hand_6max": actions,
        "quick": quick,
        "seed": args.seed,
    }
    if not args.json:
        rows: list[list[object]] = [
            ["batched, 6-max", six, six / kit_six if kit_six else "-"],
            ["batched, heads-up", heads_up, heads_up / kit_hu if kit_hu else "-"],
        ]
        if kit_six and kit_hu:
            rows += [["PokerKit, 6-max", kit_six, 1.0], ["PokerKit, heads-up", kit_hu, 1.0]]
        print_table(
            "Fixed-limit hold'em, random policy, one core: hands per second",
            ["engine", "hands/s", "x PokerKit"],
            rows,
        )
        print(f"a million 6-max limit hands: {1e6 / six:.1f} s (the seed thesis: about 360 s)")
    emit(figures)


if __name__ == "__main__":
    main()
