"""Differential test: poolshark's :class:`Table` against PokerKit, hand for hand.

Random hands (2-10 players, stacks from a chip or two to deep, blinds 1/2, sometimes an
ante, no-limit and fixed-limit) are dealt identically into both engines and driven with
the same actions. At every decision the two engines' options are compared (who acts, the
call amount, whether folding and raising are allowed, the raise-to bounds). At the end
poolshark's final stacks must equal, chip for chip, an independent card-room settlement
of the hand: PokerKit's contributions and hand evaluations, pots layered by the live
players' contribution levels, odd chips one at a time clockwise from the button's left.
PokerKit's own final stacks must match it too, up to its different odd-chip rule.

Seat mapping. PokerKit numbers players from the small blind (index 0) round to the button
(index ``n - 1``). Heads-up it reverses the blinds: index 0 posts the big blind and index
1, the button, posts the small blind and acts first preflop. Both cases come to the same
rule: PokerKit index ``i`` is poolshark seat ``(button + 1 + i) % n``.

Driving PokerKit: every automation is on except hole dealing, board dealing and card
burning (the driver burns ``??`` and deals the hand's own cards) and the betting actions.
``Mode.CASH_GAME``, antes trimmed like any other contribution (``ante_trimming_status``),
no rake (PokerKit rakes each pot separately and caps it per pot; poolshark rakes the hand)
and no straddle (PokerKit's minimum raise over a straddle of 4 is to 6, the straddle plus
the big blind; poolshark's is to 8). The property tests cover rake and straddles.

Where the engines follow different rules (``DOCUMENTED``; each has an explicit test
below), the driver plays only actions both allow, counts the disagreement by kind, and
leaves out of the stack comparison the hands whose chip flow the difference changes. Any
other disagreement fails the test with the hand that shows it.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field

import pytest

pytest.importorskip("pokerkit")

from pokerkit import (
    Automation,
    Card,
    ChipsPulling,
    FixedLimitTexasHoldem,
    Folding,
    Mode,
    NoLimitTexasHoldem,
    StandardHighHand,
    State,
)

from poolshark.cards.card import format_card, parse_cards
from poolshark.engine.config import Betting, GameConfig
from poolshark.engine.table import IllegalActionError, Legal, Move, Street, Table

PK_CARDS = [next(iter(Card.parse(format_card(c)))) for c in range(52)]

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

#: Rule differences between the engines, by the kind name the driver counts them under.
DOCUMENTED = {
    "short-big-blind-price": (
        "A big blind all-in for less than the full blind: poolshark keeps the price to"
        " call at the full big blind (the card-room rule); PokerKit lowers it to the"
        " largest bet actually posted. The chip flow differs, so the hand is left out."
    ),
    "forced-check": (
        "Everyone else is all-in and covered by the big blind's bet: poolshark still asks"
        " the big blind to check; PokerKit skips the turn. No chips move."
    ),
    "covered-raise": (
        "poolshark lets a player raise while another live player still has chips, even if"
        " that player is already covered; PokerKit forbids a raise nobody could call in"
        " full. The surplus would come back as an uncalled bet."
    ),
    "sub-minimum-all-in-reopens": (
        "PokerKit's record of the last raise size starts at zero each round (the blinds"
        " do not set it), so an all-in bet or raise smaller than the big blind (or the"
        " fixed-limit bet) counts as a full raise and reopens the betting to players who"
        " already acted; poolshark measures it against the big blind and does not reopen."
    ),
    "cumulative-all-ins-forgotten": (
        "Short all-ins that add up to a full raise reopen the betting in both engines"
        " (PokerKit 0.7.7's issue #45 rework). PokerKit then clears its running sum but"
        " not its set of players who acted, so one more short all-in closes the betting"
        " again to a player who faces more than a full raise since acting; poolshark"
        " counts every raise since the player acted and lets them raise."
    ),
    "fl-preflop-cap": (
        "Fixed-limit preflop: poolshark counts the big blind as the round's first bet, so"
        " a cap of 4 allows three raises; PokerKit allows four raises after the blind."
    ),
    "fl-heads-up-uncapped": (
        "Fixed-limit with two players left: poolshark does not cap the raises (unless"
        " cap_heads_up); PokerKit always caps at four."
    ),
    "fl-cap-counts-short-all-in": (
        "Fixed-limit: PokerKit counts an all-in for less than a full raise toward the cap;"
        " poolshark counts only full bets and raises."
    ),
    "odd-chips": (
        "A split pot's odd chips: poolshark splits each side pot on its own and gives the"
        " odd chips one at a time clockwise from the button's left; PokerKit first merges"
        " side pots that the same hands contest once losers are mucked, then gives the"
        " whole remainder to the first winner in that order."
    ),
}

#: Kinds after which the two hands' chip flows may legitimately differ.
DIVERGING = {"short-big-blind-price"}


@dataclass
class Spec:
    """One hand: the rules, stacks, seating and cards."""

    config: GameConfig
    stacks: list[int]
    button: int
    hole_cards: list[list[int]]
    board: list[int]


@dataclass
class Tally:
    """Counts over many hands: mismatches by kind, coverage, and unexplained failures."""

    hands: int = 0
    excluded: int = 0
    compared: int = 0
    decisions: int = 0
    showdowns: int = 0
    side_pots: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    hands_with: Counter[str] = field(default_factory=Counter)
    unexplained: list[str] = field(default_factory=list)

    def report(self) -> str:
        """The counts as a small table."""
        lines = [
            f"hands {self.hands} (compared {self.compared}, left out {self.excluded}),"
            f" decisions {self.decisions}, showdowns {self.showdowns},"
            f" with side pots {self.side_pots}",
            f"  {'kind':28s} {'decisions':>9s} {'hands':>7s}",
        ]
        for kind in sorted(self.kinds):
            lines.append(f"  {kind:28s} {self.kinds[kind]:9d} {self.hands_with[kind]:7d}")
        lines.extend(f"  UNEXPLAINED {u}" for u in self.unexplained[:5])
        return "\n".join(lines)


# -- hands ------------------------------------------------------------------------------


def random_stack(rng: random.Random) -> int:
    """A stack from a mix: tiny (all-in on the forced bets), short, medium or deep."""
    roll = rng.random()
    if roll < 0.08:
        return rng.randint(1, 4)
    if roll < 0.35:
        return rng.randint(5, 40)
    if roll < 0.85:
        return rng.randint(41, 300)
    return rng.randint(301, 3000)


def random_spec(rng: random.Random, betting: Betting) -> Spec:
    """A random hand for ``betting`` with blinds 1/2, sometimes an ante of 1 or 2."""
    n = rng.randint(2, 10)
    ante = rng.choice([0, 0, 0, 1, 2])
    if betting is Betting.FIXED_LIMIT:
        config = GameConfig(
            betting=betting,
            seats=n,
            ante=ante,
            small_bet=2,
            big_bet=4,
            cap_heads_up=rng.random() < 0.5,
        )
    else:
        config = GameConfig(betting=betting, seats=n, ante=ante)
    deck = rng.sample(range(52), 2 * n + 5)
    return Spec(
        config=config,
        stacks=[random_stack(rng) for _ in range(n)],
        button=rng.randrange(n),
        hole_cards=[deck[2 * i : 2 * i + 2] for i in range(n)],
        board=deck[2 * n :],
    )


def describe(spec: Spec, table: Table) -> str:
    """The hand and its actions so far, for a failure message."""
    actions = " ".join(f"{a.seat}:{a.move.value}:{a.amount}" for a in table.log)
    return (
        f"{spec.config.betting.value} seats={spec.config.seats} ante={spec.config.ante}"
        f" cap_heads_up={spec.config.cap_heads_up} stacks={spec.stacks}"
        f" button={spec.button} hole={spec.hole_cards} board={spec.board} actions=[{actions}]"
    )


# -- PokerKit -------------------------------------------------------------------------


def pk_index(spec: Spec, seat: int) -> int:
    """PokerKit's player index of a poolshark seat (small blind first, button last)."""
    return (seat - spec.button - 1) % spec.config.seats


def pk_seat(spec: Spec, index: int) -> int:
    """The poolshark seat of a PokerKit player index."""
    return (spec.button + 1 + index) % spec.config.seats


def pk_state(spec: Spec) -> State:
    """A PokerKit state for the hand, forced bets posted, run up to the first decision."""
    config = spec.config
    stacks = [spec.stacks[pk_seat(spec, i)] for i in range(config.seats)]
    blinds = (config.small_blind, config.big_blind)
    if config.betting is Betting.FIXED_LIMIT:
        state = FixedLimitTexasHoldem.create_state(
            AUTOMATIONS,
            True,
            config.ante,
            blinds,
            config.bet_unit(0),
            config.bet_unit(3),
            stacks,
            config.seats,
            mode=Mode.CASH_GAME,
        )
    else:
        state = NoLimitTexasHoldem.create_state(
            AUTOMATIONS,
            True,
            config.ante,
            blinds,
            config.big_blind,
            stacks,
            config.seats,
            mode=Mode.CASH_GAME,
        )
    pk_deal(spec, state)
    return state


def pk_deal(spec: Spec, state: State) -> None:
    """Burn and deal the hand's own cards until PokerKit needs a betting action or is done."""
    while state.status and state.actor_index is None:
        if state.can_burn_card():
            state.burn_card("??")
        elif state.can_deal_hole():
            index = state.hole_dealee_index
            state.deal_hole([PK_CARDS[c] for c in spec.hole_cards[pk_seat(spec, index)]], index)
        elif state.can_deal_board():
            dealt = len(state.board_cards)
            count = state.board_dealing_count
            state.deal_board([PK_CARDS[c] for c in spec.board[dealt : dealt + count]])
        else:  # pragma: no cover - PokerKit waits for something this driver does not do
            raise AssertionError("PokerKit is waiting for an unexpected operation")


def pk_act(spec: Spec, state: State, move: Move, amount: int = 0) -> None:
    """Play one action in PokerKit, then deal on to its next decision."""
    if move is Move.FOLD:
        state.fold()
    elif move is Move.CHECK_CALL:
        state.check_or_call()
    else:
        state.complete_bet_or_raise_to(amount)
    pk_deal(spec, state)


@dataclass(frozen=True)
class PkLegal:
    """PokerKit's options for its actor, in poolshark's terms (seat, not index)."""

    seat: int
    call: int
    can_fold: bool
    min_raise_to: int | None
    max_raise_to: int | None


def pk_legal(spec: Spec, state: State) -> PkLegal:
    """What PokerKit lets its actor do (folding only facing a bet, as in tournament mode)."""
    index = state.actor_index
    return PkLegal(
        seat=pk_seat(spec, index),
        call=state.checking_or_calling_amount,
        can_fold=state.bets[index] < max(state.bets),
        min_raise_to=state.min_completion_betting_or_raising_to_amount,
        max_raise_to=state.max_completion_betting_or_raising_to_amount,
    )


def pk_contributions(state: State) -> list[int]:
    """Chips each PokerKit player lost to the pots before the payout, by index.

    When everyone else folds, PokerKit hands the winner's last bet back with the pot
    instead of collecting it, so the winner's figure can be lower than poolshark's (the
    winner's final stack is the same either way).
    """
    pulled = [0] * len(state.stacks)
    for operation in state.operations:
        if isinstance(operation, ChipsPulling):
            pulled[operation.player_index] += operation.amount
    return [
        start - (final - won)
        for start, final, won in zip(state.starting_stacks, state.stacks, pulled, strict=True)
    ]


def card_room_payout(spec: Spec, contributions: list[int], folded: list[bool]) -> list[int]:
    """Chips each seat wins under the card-room rules, computed without poolshark.

    Pots are layered by the live players' contribution levels (dead chips above the top
    level join the top pot); each pot goes to its best hands by PokerKit's evaluator, odd
    chips one at a time clockwise from the button's left.
    """
    n = len(contributions)
    live = [s for s in range(n) if not folded[s]]
    payout = [0] * n
    if len(live) == 1:
        payout[live[0]] = sum(contributions)
        return payout
    clockwise = [(spec.button + 1 + i) % n for i in range(n)]
    board = [PK_CARDS[c] for c in spec.board]
    hands = {
        s: StandardHighHand.from_game([PK_CARDS[c] for c in spec.hole_cards[s]], board)
        for s in live
    }
    levels = sorted({contributions[s] for s in live if contributions[s] > 0})
    previous = 0
    for k, level in enumerate(levels):
        amount = sum(min(c, level) - min(c, previous) for c in contributions)
        if k == len(levels) - 1:
            amount += sum(max(c - level, 0) for c in contributions)
        eligible = [s for s in live if contributions[s] >= level]
        best = max(hands[s] for s in eligible)
        winners = [s for s in clockwise if s in eligible and hands[s] == best]
        share, odd = divmod(amount, len(winners))
        for rank, s in enumerate(winners):
            payout[s] += share + (rank < odd)
        previous = level
    return payout


# -- comparing ------------------------------------------------------------------------


def _full_raise(table: Table) -> int:
    if table.config.betting is Betting.FIXED_LIMIT:
        return table.config.bet_unit(table.street)
    return table.increment


def _short_big_blind(table: Table) -> bool:
    n = table.seats
    big = (table.button + 1) % n if n == 2 else (table.button + 2) % n
    return table.starting_stacks[big] < table.config.ante + table.config.big_blind


def classify(spec: Spec, table: Table, state: State, ours: Legal, theirs: PkLegal) -> str | None:
    """The documented kind that explains how the two engines' options differ (``None``
    when they agree, a description starting ``unexplained`` when nothing explains it)."""
    config = table.config
    fixed = config.betting is Betting.FIXED_LIMIT
    two_left = sum(not f for f in table.folded) == 2
    if (ours.call, ours.can_fold) != (theirs.call, theirs.can_fold):
        if table.street is Street.PREFLOP and _short_big_blind(table):
            return "short-big-blind-price"
        return "unexplained call or fold"
    ours_raise = ours.min_raise_to is not None
    theirs_raise = theirs.min_raise_to is not None
    if ours_raise and not theirs_raise:
        index = pk_index(spec, ours.seat)
        if not any(
            state.statuses[i] and state.stacks[i] + state.bets[i] > max(state.bets)
            for i in range(config.seats)
            if i != index
        ):
            return "covered-raise"
        pending = state.consecutive_short_all_in_amounts
        if (
            index in state.acted_player_indices
            and pending
            and sum(pending) < state.completion_betting_or_raising_amount
            and table.current_bet - table.faced[ours.seat] >= _full_raise(table)
        ):
            return "cumulative-all-ins-forgotten"
        if fixed and state.completion_betting_or_raising_count >= 4:
            if two_left and not config.cap_heads_up:
                return "fl-heads-up-uncapped"
            if table.raises < config.raise_cap:
                return "fl-cap-counts-short-all-in"
        return "unexplained: only poolshark allows a raise"
    if theirs_raise and not ours_raise:
        capped = not two_left or config.cap_heads_up
        if fixed and capped and table.raises >= config.raise_cap:
            if table.street is Street.PREFLOP:
                return "fl-preflop-cap"
        elif (
            table.acted[ours.seat]
            and table.current_bet - table.faced[ours.seat] < _full_raise(table)
            and state.completion_betting_or_raising_amount < _full_raise(table)
        ):
            return "sub-minimum-all-in-reopens"
        return "unexplained: only PokerKit allows a raise"
    if ours_raise and (ours.min_raise_to, ours.max_raise_to) != (
        theirs.min_raise_to,
        theirs.max_raise_to,
    ):
        return "unexplained raise bounds"
    return None


def choose(rng: random.Random, ours: Legal, theirs: PkLegal) -> tuple[Move, int]:
    """A random action both engines allow, biased toward raises and all-ins."""
    options: list[tuple[Move, int]] = [(Move.CHECK_CALL, 0)]
    weights = [0.35]
    if ours.can_fold and theirs.can_fold:
        options.append((Move.FOLD, 0))
        weights.append(0.25)
    if ours.min_raise_to is not None and theirs.min_raise_to is not None:
        assert ours.max_raise_to is not None
        assert theirs.max_raise_to is not None
        low = max(ours.min_raise_to, theirs.min_raise_to)
        high = min(ours.max_raise_to, theirs.max_raise_to)
        if low <= high:
            roll = rng.random()
            if roll < 0.35:
                amount = low
            elif roll < 0.65:
                amount = high
            else:
                amount = rng.randint(low, high)
            options.append((Move.RAISE, amount))
            weights.append(0.4)
    return rng.choices(options, weights)[0]


def play(spec: Spec, rng: random.Random, tally: Tally) -> None:
    """Play one hand in both engines and record in ``tally`` what differed."""
    table = Table(
        spec.config, spec.stacks, button=spec.button, hole_cards=spec.hole_cards, board=spec.board
    )
    state = pk_state(spec)
    tally.hands += 1
    seen: set[str] = set()

    def note(kind: str) -> None:
        seen.add(kind)
        tally.kinds[kind] += 1

    def fail(problem: str) -> None:
        tally.unexplained.append(f"{problem}: {describe(spec, table)}")

    for _ in range(1000):
        if table.done:
            break
        ours = table.legal()
        if state.actor_index is None:
            if ours.call == 0 and ours.min_raise_to is None:
                note("forced-check")
                table.check_call()
                continue
            if table.street is Street.PREFLOP and _short_big_blind(table):
                note("short-big-blind-price")
                break
            return fail(f"only poolshark has a decision {ours}")
        theirs = pk_legal(spec, state)
        tally.decisions += 1
        if theirs.seat != ours.seat:
            return fail(f"actor: poolshark seat {ours.seat}, PokerKit seat {theirs.seat}")
        kind = classify(spec, table, state, ours, theirs)
        if kind is not None and kind not in DOCUMENTED:
            return fail(f"{kind}: {ours} vs {theirs}")
        if kind is not None:
            note(kind)
            if kind in DIVERGING:
                break
        move, amount = choose(rng, ours, theirs)
        table.act(move, amount)
        pk_act(spec, state, move, amount)
    else:  # pragma: no cover
        return fail("no end after 1000 actions")
    if seen & DIVERGING:
        tally.excluded += 1
        tally.hands_with.update(seen)
        return
    if state.status:
        return fail("poolshark finished, PokerKit did not")
    assert table.result is not None
    tally.compared += 1
    tally.showdowns += table.result.showdown
    tally.side_pots += len(table.result.pots) > 1
    n = spec.config.seats
    by_index = pk_contributions(state)
    contributions = [by_index[pk_index(spec, s)] for s in range(n)]
    folded = [False] * n
    for operation in state.operations:
        if isinstance(operation, Folding):
            folded[pk_seat(spec, operation.player_index)] = True
    payout = card_room_payout(spec, contributions, folded)
    expected = [s0 - c + p for s0, c, p in zip(spec.stacks, contributions, payout, strict=True)]
    theirs_final = [state.stacks[pk_index(spec, s)] for s in range(n)]
    if theirs_final != expected:
        note("odd-chips")
        worst = max(abs(a - b) for a, b in zip(theirs_final, expected, strict=True))
        if sum(theirs_final) != sum(expected) or worst >= n * len(table.result.pots):
            fail(f"PokerKit paid {theirs_final}, card room {expected}")
    tally.hands_with.update(seen)
    if folded != table.folded or table.stack != expected:
        fail(
            f"stacks {table.stack} vs card room {expected} (PokerKit {theirs_final};"
            f" contributions {table.total} vs PokerKit {contributions})"
        )


def run(seed: int, hands: int, betting: Betting) -> Tally:
    """Play ``hands`` random hands from ``seed`` and return the tally."""
    rng = random.Random(seed)
    tally = Tally()
    for _ in range(hands):
        play(random_spec(rng, betting), rng, tally)
    return tally


def check(tally: Tally, hands: int, betting: Betting) -> None:
    """Every hand explained, nearly all compared, and the hands cover the hard cases."""
    print(f"\n{betting.value}: {tally.report()}")
    assert not tally.unexplained, tally.report()
    assert tally.hands == hands
    assert tally.compared >= 0.9 * hands
    assert tally.side_pots >= 0.1 * hands
    assert tally.showdowns >= 0.3 * hands
    assert tally.compared - tally.showdowns >= 0.05 * hands  # won without a showdown
    assert set(tally.kinds) <= set(DOCUMENTED)


# -- the differential runs --------------------------------------------------------------


@pytest.mark.parametrize(
    ("betting", "hands"), [(Betting.NO_LIMIT, 5_000), (Betting.FIXED_LIMIT, 5_000)]
)
def test_random_hands_match_pokerkit(betting: Betting, hands: int) -> None:
    """10,000 random hands in all (5,000 no-limit, 5,000 fixed-limit) agree with PokerKit."""
    start = time.perf_counter()
    tally = run(20240601, hands, betting)
    print(f"{hands} hands in {time.perf_counter() - start:.1f}s")
    check(tally, hands, betting)


@pytest.mark.slow
@pytest.mark.parametrize("betting", list(Betting))
def test_a_million_hands_match_pokerkit(betting: Betting) -> None:
    """1,000,000 random hands in all, half no-limit and half fixed-limit (about an hour)."""
    hands = 500_000
    check(run(7, hands, betting), hands, betting)


# -- seat mapping ---------------------------------------------------------------------


def pair(
    config: GameConfig,
    stacks: list[int],
    button: int = 0,
    hole_cards: list[list[int]] | None = None,
    board: str = "AhKdQcJs9s",
) -> tuple[Spec, Table, State]:
    """A hand set up in both engines (hole cards default to deuces through sixes)."""
    n = config.seats
    holes = hole_cards or [[i, 10 + i] for i in range(n)]
    spec = Spec(config, stacks, button, holes, parse_cards(board))
    table = Table(config, stacks, button=button, hole_cards=holes, board=spec.board)
    return spec, table, pk_state(spec)


def both(spec: Spec, table: Table, state: State, move: Move, amount: int = 0) -> None:
    """Play one action in both engines, checking that the same seat acts."""
    assert pk_seat(spec, state.actor_index) == table.to_act
    table.act(move, amount)
    pk_act(spec, state, move, amount)


def test_seat_mapping_heads_up() -> None:
    """Heads-up PokerKit index 0 is the big blind and index 1 the button, who posts the
    small blind and acts first preflop; the big blind acts first after the flop."""
    spec, table, state = pair(GameConfig(seats=2), [100, 200], button=1)
    assert [pk_seat(spec, i) for i in range(2)] == [0, 1]
    assert state.bets == [2, 1]  # index 0 = seat 0 = big blind
    assert table.bet == [2, 1]
    assert table.to_act == 1 == pk_seat(spec, state.actor_index)
    both(spec, table, state, Move.CHECK_CALL)
    both(spec, table, state, Move.CHECK_CALL)
    assert table.street is Street.FLOP
    assert table.to_act == 0 == pk_seat(spec, state.actor_index)


def test_seat_mapping_six_handed() -> None:
    """Six-handed with the button on seat 3: PokerKit index 0 is seat 4 (small blind),
    index 5 seat 3 (button); seat 0, left of the big blind, opens."""
    spec, table, state = pair(GameConfig(seats=6), [100] * 6, button=3)
    assert [pk_seat(spec, i) for i in range(6)] == [4, 5, 0, 1, 2, 3]
    assert state.bets == [1, 2, 0, 0, 0, 0]
    assert table.bet == [0, 0, 0, 0, 1, 2]
    assert table.to_act == 0 == pk_seat(spec, state.actor_index)


# -- documented rule differences, one explicit hand each ------------------------------


def test_odd_chips_one_at_a_time_versus_all_to_the_first_winner() -> None:
    """Three players split 11 chips on a royal-flush board. poolshark: 4, 4, 3 clockwise
    from the button's left; PokerKit: 5, 3, 3 (the remainder to the first winner)."""
    holes = [[0, 5], [1, 6], [2, 9], [4, 13]]  # no spades: everyone plays the board
    spec, table, state = pair(
        GameConfig(seats=4, ante=1), [100] * 4, hole_cards=holes, board="AsKsQsJsTs"
    )
    both(spec, table, state, Move.CHECK_CALL)  # seat 3 calls
    both(spec, table, state, Move.CHECK_CALL)  # seat 0 (button) calls
    both(spec, table, state, Move.FOLD)  # seat 1 (small blind) folds: 11 in the pot
    while not table.done:
        both(spec, table, state, Move.CHECK_CALL)
    assert table.stack == [100, 98, 101, 101]
    assert [state.stacks[pk_index(spec, s)] for s in range(4)] == [100, 98, 102, 100]


def test_side_pots_split_separately_versus_merged() -> None:
    """Seats 1 and 3 tie for three side pots (15, 108, 411 chips). poolshark splits each
    (seat 3, first clockwise from the button, gets two odd chips); PokerKit mucks the
    losers, merges the three pots into one of 534 and splits it evenly."""
    spec, table, state = pair(
        GameConfig(seats=6),
        [27, 1430, 3, 167, 283, 30],
        button=1,
        hole_cards=[[10, 29], [25, 23], [40, 17], [0, 20], [47, 32], [15, 12]],
        board="7d9h7hQd4d",
    )
    for move, amount in [
        (Move.CHECK_CALL, 0),
        (Move.RAISE, 28),
        (Move.FOLD, 0),
        (Move.RAISE, 992),
        *[(Move.CHECK_CALL, 0)] * 4,
    ]:
        both(spec, table, state, move, amount)
    assert table.result is not None
    assert [p.amount for p in table.result.pots] == [15, 108, 411, 232]
    assert table.stack[1] - 1430 + 283 == 7 + 54 + 205 + 232
    assert table.stack[3] == 8 + 54 + 206
    assert state.stacks[pk_index(spec, 3)] == 267


def test_fold_when_checking_is_free() -> None:
    """poolshark refuses a fold when checking is free; PokerKit's cash-game mode only
    warns and mucks the hand (so the differential drives it only with folds facing a bet)."""
    spec, table, state = pair(GameConfig(seats=2), [100, 100])
    both(spec, table, state, Move.CHECK_CALL)  # the button limps
    with pytest.raises(IllegalActionError, match="may check"):
        table.fold()
    with pytest.warns(UserWarning, match="no reason for this player to fold"):
        state.fold()


def test_short_big_blind_keeps_the_full_price() -> None:
    """The big blind has one chip: poolshark still charges 2 to call; PokerKit charges 1
    (the largest bet posted) and its minimum raise is 3 rather than 4."""
    spec, table, state = pair(GameConfig(seats=3), [100, 100, 1])
    ours, theirs = table.legal(), pk_legal(spec, state)
    assert ours.seat == theirs.seat == 0
    assert (ours.call, ours.min_raise_to) == (2, 4)
    assert (theirs.call, theirs.min_raise_to) == (1, 3)


def test_forced_check() -> None:
    """Heads-up, the button posts its last chip as the small blind: poolshark asks the big
    blind to check; PokerKit goes straight to the showdown."""
    spec, table, state = pair(GameConfig(seats=2), [3, 1], button=1)
    assert state.actor_index is None
    assert not state.status
    ours = table.legal()
    assert (ours.seat, ours.can_check, ours.min_raise_to) == (0, True, None)
    table.check_call()
    assert table.done
    assert table.stack == [state.stacks[pk_index(spec, s)] for s in range(2)]


def test_raise_when_the_others_are_covered() -> None:
    """UTG is all-in for 100; the small and big blinds still have chips but fewer than
    100. poolshark lets the button raise; PokerKit does not (nobody could call it)."""
    spec, table, state = pair(GameConfig(seats=4), [500, 10, 20, 100])
    both(spec, table, state, Move.RAISE, 100)
    ours, theirs = table.legal(), pk_legal(spec, state)
    assert (ours.min_raise_to, ours.max_raise_to) == (198, 500)
    assert theirs.min_raise_to is None
    assert classify(spec, table, state, ours, theirs) == "covered-raise"


def test_sub_minimum_all_in_raise_reopens_in_pokerkit() -> None:
    """UTG limps for 2, the button raises all-in to 3 (one chip, less than a full raise),
    the blinds call. poolshark: UTG may only call or fold. PokerKit, whose last-raise size
    starts at zero, counts the one-chip raise as full and lets UTG raise to 5."""
    spec, table, state = pair(GameConfig(seats=4), [3, 100, 100, 100])
    both(spec, table, state, Move.CHECK_CALL)  # seat 3 (UTG) limps
    both(spec, table, state, Move.RAISE, 3)  # seat 0 (button) all-in
    both(spec, table, state, Move.CHECK_CALL)
    both(spec, table, state, Move.CHECK_CALL)
    ours, theirs = table.legal(), pk_legal(spec, state)
    assert ours.seat == theirs.seat == 3
    assert ours.min_raise_to is None
    assert theirs.min_raise_to == 5
    assert classify(spec, table, state, ours, theirs) == "sub-minimum-all-in-reopens"


def test_cumulative_short_all_ins_forgotten_by_pokerkit() -> None:
    """UTG raises to 10 (a raise of 8); three short all-ins follow, to 15, 20 and 25. The
    first two add up to a full raise, so the betting is open again to UTG, and the third
    only adds to it: poolshark lets UTG (15 more since acting) raise to 33. PokerKit
    cleared its running sum after the second, sees only the third (5 < 8) and refuses."""
    spec, table, state = pair(GameConfig(seats=6), [25, 500, 500, 500, 15, 20])
    both(spec, table, state, Move.RAISE, 10)  # seat 3 (UTG)
    for amount in (15, 20, 25):  # seats 4, 5 and 0 (button) all-in
        both(spec, table, state, Move.RAISE, amount)
    both(spec, table, state, Move.CHECK_CALL)  # small blind
    both(spec, table, state, Move.CHECK_CALL)  # big blind
    ours, theirs = table.legal(), pk_legal(spec, state)
    assert ours.seat == theirs.seat == 3
    assert (ours.min_raise_to, ours.max_raise_to) == (33, 500)
    assert theirs.min_raise_to is None
    assert classify(spec, table, state, ours, theirs) == "cumulative-all-ins-forgotten"


def test_cumulative_short_all_ins_agree() -> None:
    """PokerKit 0.7.7 (issue #45) reopens once the short all-ins since the last full raise
    add up to a full raise, and refuses a raise when the call is below the last raise size;
    here that matches poolshark's "raises since you acted" rule. UTG raises to 10,
    seat 4 all-in to 15, the button calls, the small blind all-in to 20 (5 + 5 >= 8), the
    big blind calls: UTG may raise again in both; the button (5 since it acted) in neither."""
    spec, table, state = pair(GameConfig(seats=5), [500, 20, 500, 500, 15])
    both(spec, table, state, Move.RAISE, 10)
    both(spec, table, state, Move.RAISE, 15)
    both(spec, table, state, Move.CHECK_CALL)
    both(spec, table, state, Move.RAISE, 20)
    both(spec, table, state, Move.CHECK_CALL)
    ours, theirs = table.legal(), pk_legal(spec, state)
    assert ours.seat == 3
    assert (ours.min_raise_to, ours.max_raise_to) == (theirs.min_raise_to, theirs.max_raise_to)
    assert ours.min_raise_to == 28
    both(spec, table, state, Move.CHECK_CALL)
    ours, theirs = table.legal(), pk_legal(spec, state)
    assert ours.seat == 0
    assert ours.min_raise_to is None
    assert theirs.min_raise_to is None


def test_fixed_limit_preflop_cap() -> None:
    """Fixed-limit, three players: raises to 4, 6 and 8 make four bets with the blind.
    poolshark's cap of 4 stops there; PokerKit allows a fourth raise, to 10."""
    spec, table, state = pair(
        GameConfig(betting="fixed-limit", seats=3, small_bet=2, big_bet=4), [100] * 3
    )
    for amount in (4, 6, 8):
        both(spec, table, state, Move.RAISE, amount)
    ours, theirs = table.legal(), pk_legal(spec, state)
    assert ours.min_raise_to is None
    assert theirs.min_raise_to == 10
    assert classify(spec, table, state, ours, theirs) == "fl-preflop-cap"


def test_fixed_limit_heads_up_uncapped() -> None:
    """Fixed-limit heads-up: after raises to 4, 6, 8 and 10 poolshark (cap_heads_up off)
    allows another; PokerKit's cap of four raises applies heads-up too."""
    config = GameConfig(betting="fixed-limit", seats=2, small_bet=2, big_bet=4)
    spec, table, state = pair(config, [100, 100])
    for amount in (4, 6, 8, 10):
        both(spec, table, state, Move.RAISE, amount)
    ours, theirs = table.legal(), pk_legal(spec, state)
    assert (ours.min_raise_to, theirs.min_raise_to) == (12, None)
    assert classify(spec, table, state, ours, theirs) == "fl-heads-up-uncapped"


def test_fixed_limit_cap_counts_a_short_all_in_in_pokerkit() -> None:
    """Fixed-limit flop: the small blind bets 2, the big blind is all-in for 3 (short),
    UTG raises to 5, the button folds, the small blind raises to 7. poolshark has seen
    three full bets, so UTG may make it 9; PokerKit counts four and stops."""
    config = GameConfig(betting="fixed-limit", seats=4, small_bet=2, big_bet=4)
    spec, table, state = pair(config, [100, 100, 5, 100])
    for _ in range(4):
        both(spec, table, state, Move.CHECK_CALL)
    assert table.street is Street.FLOP
    for move, amount in [(Move.RAISE, 2), (Move.RAISE, 3), (Move.RAISE, 5), (Move.FOLD, 0)]:
        both(spec, table, state, move, amount)
    both(spec, table, state, Move.RAISE, 7)
    ours, theirs = table.legal(), pk_legal(spec, state)
    assert ours.seat == 3
    assert (ours.min_raise_to, theirs.min_raise_to) == (9, None)
    assert classify(spec, table, state, ours, theirs) == "fl-cap-counts-short-all-in"


def main() -> None:  # pragma: no cover - manual runs: python tests/test_engine_pokerkit.py N
    """Print the mismatch tables and timings for N hands of each betting structure."""
    import sys

    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    for betting in Betting:
        start = time.perf_counter()
        tally = run(20240601, hands, betting)
        print(f"{betting.value}: {time.perf_counter() - start:.1f}s\n{tally.report()}")


if __name__ == "__main__":  # pragma: no cover
    main()
