"""PokerKit as referee for PHH, both ways: random hands it writes, hands we write it replays.

PokerKit (a dev dependency, imported here only) is PHH's reference implementation. Two
checks, both on random hands:

* **PokerKit writes, poolshark reads.** :func:`pokerkit_hands` plays random no-limit and
  fixed-limit hands on PokerKit (2-10 seats, antes and big-blind antes, straddles, short
  stacks, side pots) with random actions and dumps each as PHH, sometimes with a hand
  number, sometimes with ``finishing_stacks``, sometimes with the cards of players who
  never show replaced by ``????``. :func:`judge_pokerkit_hand` reads one with
  ``parse_phh`` and judges it with ``replay.judge``; it must give PokerKit's final stacks.
* **poolshark writes, PokerKit reads.** :func:`poolshark_hands` plays random hands on the
  engine's ``Table`` and writes each with ``write_phh``; :func:`pokerkit_final_stacks`
  loads the text with ``HandHistory.loads`` and plays it out on PokerKit.

``python -m poolshark.histories.referee --hands N`` prints the acceptance figures.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
import time
import warnings
from collections import Counter
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path

from pokerkit import (
    Automation,
    FixedLimitTexasHoldem,
    HandHistory,
    Mode,
    NoLimitTexasHoldem,
    State,
)

from poolshark.engine.config import Betting, GameConfig
from poolshark.engine.table import Move, Table
from poolshark.histories.ingest import ingest
from poolshark.histories.phh import parse_phh, write_phh
from poolshark.histories.record import HandRecord, HistoryError
from poolshark.histories.replay import judge, record_from_table

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_DEALING,
    Automation.BOARD_DEALING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

#: Blinds (small, big) the random hands use, in chips.
STAKES = ((1, 2), (5, 10), (25, 50), (2, 5))


@dataclass(frozen=True)
class PokerKitHand:
    """One hand PokerKit played: its PHH text (no ``[n]`` header), final stacks, actions.

    ``final_stacks`` and ``actions`` (folds, checks/calls, bets/raises) are in PHH
    player order; ``features`` names what the hand shows (``fixed-limit``, ``ante``,
    ``straddle``, ``side-pot``, ``unknown-cards``, ``no-id``, ...).
    """

    text: str
    final_stacks: tuple[int, ...]
    actions: int
    features: frozenset[str]


def _stack(rng: random.Random, big: int) -> int:
    """A stack from a mix: tiny (all-in on the forced bets), short, medium or deep."""
    roll = rng.random()
    if roll < 0.08:
        return rng.randint(1, 2 * big)
    if roll < 0.35:
        return rng.randint(2 * big, 20 * big)
    if roll < 0.85:
        return rng.randint(20 * big, 150 * big)
    return rng.randint(150 * big, 1500 * big)


def _pokerkit_state(
    rng: random.Random, fixed: bool, n: int
) -> tuple[FixedLimitTexasHoldem | NoLimitTexasHoldem, State, set[str]]:
    """A fresh PokerKit game and state with random stakes, antes, straddle and stacks."""
    small, big = rng.choice(STAKES)
    features = {"fixed-limit" if fixed else "no-limit", f"{n}-max"}
    blinds: list[int] = [small, big]
    if not fixed and n >= 4 and rng.random() < 0.2:
        blinds.append(2 * big)
        features.add("straddle")
    antes: int | dict[int, int] = 0
    roll = rng.random()
    if roll < 0.2:
        antes = rng.choice([1, small, big // 2 or 1])
        features.add("ante")
    elif roll < 0.3 and n > 2:
        antes = {1: big}  # a big-blind ante: the big blind posts it for everyone
        features.add("big-blind-ante")
    stacks = [_stack(rng, big) for _ in range(n)]
    posts = [*blinds[:n], *[0] * max(0, n - len(blinds))]
    if n == 2:
        posts.reverse()
    ante_of = [antes.get(i, 0) for i in range(n)] if isinstance(antes, dict) else [antes] * n
    if any(s < p + a for s, p, a in zip(stacks, posts, ante_of, strict=True)):
        features.add("short-post")
    game: FixedLimitTexasHoldem | NoLimitTexasHoldem
    if fixed:
        game = FixedLimitTexasHoldem(
            AUTOMATIONS, False, antes, tuple(blinds), big, 2 * big, mode=Mode.CASH_GAME
        )
    else:
        game = NoLimitTexasHoldem(
            AUTOMATIONS, False, antes, tuple(blinds), big, mode=Mode.CASH_GAME
        )
    saved = random.getstate()  # PokerKit shuffles its deck with the module's generator
    random.seed(rng.getrandbits(64))
    try:
        state = game(stacks, n)
    finally:
        random.setstate(saved)
    return game, state, features


def _play_randomly(rng: random.Random, state: State) -> tuple[int, bool]:
    """Random legal actions until the hand ends; the voluntary actions taken, and whether
    a side pot was formed."""
    actions = 0
    side_pot = False
    aggression = rng.choice([0.15, 0.3, 0.5])
    while state.status:
        roll = rng.random()
        if state.can_complete_bet_or_raise_to() and roll < aggression:
            low = state.min_completion_betting_or_raising_to_amount
            high = state.max_completion_betting_or_raising_to_amount
            assert low is not None
            assert high is not None
            amount = high if rng.random() < 0.15 else rng.randint(low, high)
            state.complete_bet_or_raise_to(amount)
        elif state.can_fold() and roll < aggression + 0.25 and state.checking_or_calling_amount:
            state.fold()
        else:
            state.check_or_call()
        actions += 1
        side_pot = side_pot or len(list(state.pots)) > 1
    return actions, side_pot


def _hide_unshown(actions: list[str]) -> list[str]:
    """The actions with ``????`` for the hole cards of every player who never shows them."""
    shown = {a.split()[0] for a in actions if " sm " in a and not a.endswith(" sm")}
    hidden = []
    for action in actions:
        parts = action.split()
        if parts[:2] == ["d", "dh"] and parts[2] not in shown:
            action = f"d dh {parts[2]} ????"
        hidden.append(action)
    return hidden


def pokerkit_hand(rng: random.Random, number: int) -> PokerKitHand:
    """One random hand played on PokerKit and written by it as PHH."""
    fixed = rng.random() < 0.5
    n = rng.randint(2, 10)
    game, state, features = _pokerkit_state(rng, fixed, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns about folds when checking is free
        actions, side_pot = _play_randomly(rng, state)
    if side_pot:
        features.add("side-pot")
    extra: dict[str, object] = {}
    if rng.random() < 0.5:
        extra["hand"] = number
    else:
        features.add("no-id")
    if rng.random() < 0.5:
        extra["finishing_stacks"] = list(state.stacks)
    history = HandHistory.from_game_state(game, state, **extra)  # type: ignore[arg-type]
    if rng.random() < 0.5:
        history.actions = _hide_unshown(list(history.actions))
        if any("????" in a for a in history.actions):
            features.add("unknown-cards")
    return PokerKitHand(history.dumps(), tuple(state.stacks), actions, frozenset(features))


def pokerkit_hands(count: int, seed: int = 0) -> list[PokerKitHand]:
    """``count`` random PokerKit hands from ``seed`` (the same hands for the same seed)."""
    rng = random.Random(seed)
    return [pokerkit_hand(rng, i + 1) for i in range(count)]


def phhs_text(texts: list[str]) -> str:
    """Hands as one ``.phhs`` file, tables ``[1]``, ``[2]``, ..."""
    return "\n".join(f"[{i + 1}]\n{t}\n" for i, t in enumerate(texts))


def final_stacks_of(record: HandRecord) -> tuple[int, ...]:
    """The judged hand's final stacks, in PHH player order (``p1`` first)."""
    table = judge(record).table
    n = record.players
    return tuple(table.stack[(record.button + 1 + i) % n] for i in range(n))


def judge_pokerkit_hand(hand: PokerKitHand) -> HandRecord:
    """Read and judge one PokerKit hand; raises ``HistoryError`` or ``AssertionError``
    (final stacks or the number of actions differ from PokerKit's)."""
    record = parse_phh(hand.text)
    judged = judge(record)
    n = record.players
    scale = int(1 / record.unit)  # PokerKit's whole chips in the record's unit
    order = [(record.button + 1 + i) % n for i in range(n)]
    final = [0] * n
    for i, j in enumerate(order):
        final[j] = hand.final_stacks[i] * scale
    if judged.table.stack != final:
        # PokerKit places odd chips its own way: its stacks, as the record's winnings,
        # must then pass the judge (as the variant odd-chip)
        table = judged.table
        won = tuple(
            f - s0 + t for f, s0, t in zip(final, table.starting_stacks, table.total, strict=True)
        )
        judged = judge(replace(record, winnings=won, rake=None))
        if judged.table.stack != final and "odd-chip" not in judged.record.variants:
            raise AssertionError(f"final stacks {table.stack} != PokerKit's {final}")
    if len(record.actions) != hand.actions:
        raise AssertionError(f"{len(record.actions)} actions != PokerKit's {hand.actions}")
    return judged.record


# -- poolshark writes, PokerKit reads ---------------------------------------------------


def poolshark_record(rng: random.Random, number: int) -> tuple[HandRecord, tuple[int, ...]]:
    """A random hand played on the engine's ``Table``: the record we would write, and the
    final stacks in PHH player order.

    The random actions stay within what both engines allow (PokerKit forbids a raise that
    nobody left could call in full, and caps fixed-limit raises heads-up too).
    """
    fixed = rng.random() < 0.5
    n = rng.randint(2, 10)
    small, big = rng.choice(STAKES)
    ante = rng.choice([0, 0, 0, 1, small])
    if fixed:
        config = GameConfig(
            betting=Betting.FIXED_LIMIT,
            seats=n,
            small_blind=small,
            big_blind=big,
            ante=ante,
            small_bet=big,
            big_bet=2 * big,
            cap_heads_up=True,
        )
    else:
        config = GameConfig(seats=n, small_blind=small, big_blind=big, ante=ante)
    stacks = [max(_stack(rng, big), 3 * big) for _ in range(n)]
    table = Table(config, stacks, button=rng.randrange(n), seed=rng.randrange(1 << 30))
    aggression = rng.choice([0.15, 0.3, 0.5])
    while not table.done:
        legal = table.legal()
        roll = rng.random()
        seat = table.to_act
        others_can_pay = any(  # PokerKit: a raise needs someone who can put in more
            not table.folded[s] and table.stack[s] + table.bet[s] > table.current_bet
            for s in range(n)
            if s != seat
        )
        # PokerKit counts every fixed-limit raise toward its cap, short all-ins included
        raised = sum(a.move is Move.RAISE and a.street == table.street for a in table.log)
        under_cap = not fixed or raised < 4
        low, high = legal.min_raise_to, legal.max_raise_to
        if (
            low is not None
            and high is not None
            and roll < aggression
            and others_can_pay
            and under_cap
        ):
            table.act(Move.RAISE, rng.randint(low, high))
        elif legal.can_fold and roll < aggression + 0.25 and legal.call:
            table.act(Move.FOLD)
        else:
            table.act(Move.CHECK_CALL)
    hand_id = str(number) if rng.random() < 0.5 else ""
    record = record_from_table(
        table,
        site="poolshark",
        hand_id=hand_id,
        reveal=rng.choice(["showdown", "all"]),
        unit=Decimal(1),
        currency="",
    )
    final = tuple(table.stack[(table.button + 1 + i) % n] for i in range(n))
    return record, final


def pokerkit_final_stacks(text: str) -> tuple[int, ...]:
    """PokerKit's final stacks for a PHH hand: ``HandHistory.loads`` played to the end."""
    history = HandHistory.loads(text)
    states = list(history)
    return tuple(int(s) for s in states[-1].stacks)


def pokerkit_agrees(record: HandRecord, ours: tuple[int, ...], theirs: tuple[int, ...]) -> str:
    """How PokerKit's final stacks for our hand compare with ours: ``same``, or
    ``odd-chip`` where they differ only in which winners of a split pot got its odd chips
    (PokerKit merges pots the same hands contest and gives the whole remainder to one
    winner); raises ``AssertionError`` otherwise."""
    if theirs == ours:
        return "same"
    table = judge(record).table
    n = record.players
    final = [0] * n
    for i in range(n):
        final[(record.button + 1 + i) % n] = theirs[i]
    won = tuple(
        f - s0 + t for f, s0, t in zip(final, table.starting_stacks, table.total, strict=True)
    )
    try:
        judged = judge(replace(record, winnings=won, rake=None))
    except HistoryError as error:
        raise AssertionError(f"PokerKit's stacks {theirs} != ours {ours}: {error}") from None
    if "odd-chip" not in judged.record.variants:
        raise AssertionError(f"PokerKit's stacks {theirs} != ours {ours}")
    return "odd-chip"


# -- the figures ------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    """Print the acceptance figures of both directions."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(json.dumps(figures(args.hands, args.seed)))


def figures(count: int, seed: int) -> dict[str, object]:
    """Both directions on ``count`` random hands each: acceptance by feature and variant."""
    start = time.perf_counter()
    hands = pokerkit_hands(count, seed)
    made = time.perf_counter() - start
    by_feature: Counter[str] = Counter()
    accepted_by_feature: Counter[str] = Counter()
    rejected: Counter[str] = Counter()
    variants: Counter[str] = Counter()
    examples: dict[str, str] = {}
    messages: Counter[str] = Counter()
    for hand in hands:
        by_feature.update(hand.features)
        try:
            record = judge_pokerkit_hand(hand)
        except (HistoryError, AssertionError) as error:
            reason = error.reason if isinstance(error, HistoryError) else "stacks-differ"
            rejected[reason] += 1
            key = re.sub(r"[0-9]+", "N", str(error))[:90]
            messages[key] += 1
            examples.setdefault(key, f"{error}\n{hand.text}")
            continue
        accepted_by_feature.update(hand.features)
        variants.update(record.variants or ("none",))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pokerkit.phhs"
        path.write_text(phhs_text([h.text for h in hands]))
        summary = ingest([path], out=Path(folder) / "out", workers=1)
    rng = random.Random(seed + 1)
    written = 0
    replayed: Counter[str] = Counter()
    for number in range(count):
        record, ours = poolshark_record(rng, number + 1)
        text = write_phh(record)
        written += 1
        try:
            replayed[pokerkit_agrees(record, ours, pokerkit_final_stacks(text))] += 1
        except AssertionError as error:
            replayed["stacks-differ"] += 1
            examples.setdefault("pokerkit-stacks", f"{error}\n{text}")
        except Exception as error:
            replayed["pokerkit-refused"] += 1
            examples.setdefault("pokerkit-refused", f"{error}\n{text}")
    return {
        "pokerkit_hands": count,
        "pokerkit_to_poolshark_judged": count - sum(rejected.values()),
        "rejected": dict(rejected),
        "acceptance_by_feature": {
            k: f"{accepted_by_feature[k]}/{by_feature[k]}" for k in sorted(by_feature)
        },
        "variants": dict(variants),
        "messages": dict(messages.most_common()),
        "ingest": {
            "seen": summary.seen,
            "parsed": summary.parsed,
            "duplicates": summary.duplicates,
            "rejected": dict(summary.rejected),
            "fast": summary.fast,
            "fallbacks": dict(summary.fallbacks),
        },
        "poolshark_hands_written": written,
        "poolshark_to_pokerkit": dict(replayed),
        "seconds_generating": round(made, 1),
        "examples": examples,
    }


if __name__ == "__main__":
    main()
