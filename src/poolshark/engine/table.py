"""One hold'em table as a readable state machine: the reference face of the engine.

A :class:`Table` plays one hand from the forced bets to the settlement. The player to act
calls :meth:`Table.fold`, :meth:`Table.check_call` or :meth:`Table.raise_to`; anything the
rules forbid raises :class:`IllegalActionError` naming the problem. Every action is logged,
so a hand can be replayed (:meth:`Table.replay`) and serialized (:meth:`Table.to_dict`).

Rules, in the order the code applies them (see ``docs/engine.md``):

* A seat with a starting stack of 0 is empty: dealt no cards, folded from the start, it
  posts nothing and never acts; blinds and the heads-up rule count the occupied seats.
* Antes are dead money; then the blinds (heads-up, the button posts the small blind), then
  an optional straddle left of the big blind. A short stack posts what it has, all-in.
* Preflop the first to act sits left of the last blind (heads-up: the button); after the
  flop, the first live player left of the button (heads-up: the big blind).
* A bet or raise must be at least the last full bet or raise (no-limit); fixed-limit bets
  are one unit (small bet preflop and flop, big bet turn and river), capped per round.
* Once a hand has taken ``config.decision_cap`` decisions (voluntary actions, the log's
  length; 150 under fixed limit by default), nobody may bet or raise: the hand ends.
  An all-in for less than a full raise does not reopen the betting to players who already
  acted, unless the raises since they acted add up to a full raise.
* When everyone else folds, the hand ends at once. A bet nobody called is returned.
* At showdown the pots are layered by contribution (``engine.pots``), raked, and split,
  odd chips clockwise from the button. All-in before the river is settled by dealing the
  board, or (``settlement = "ev"``) by each player's exact expected share.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import IntEnum, StrEnum
from typing import Any

import numpy as np

from poolshark.cards.card import check_disjoint, format_cards, parse_cards
from poolshark.cards.evaluator import evaluate_indices, tables
from poolshark.engine.config import NO_HOUSE_RULES, Betting, GameConfig, HouseRule, Settlement
from poolshark.engine.pots import Pot, rake_amount, side_pots, split_pot, take_rake
from poolshark.equity.kernels import enumerate_deals


class IllegalActionError(ValueError):
    """An action the rules do not allow now; the message says why."""


class Street(IntEnum):
    """Betting rounds; ``DONE`` once the hand is settled."""

    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3
    DONE = 4


class Move(StrEnum):
    """The three kinds of voluntary action."""

    FOLD = "fold"
    CHECK_CALL = "call"
    RAISE = "raise"


@dataclass(frozen=True)
class Action:
    """One logged action; ``amount`` is the chips put in now (a raise: the total bet to)."""

    seat: int
    move: Move
    amount: int
    street: Street


@dataclass(frozen=True)
class Legal:
    """What the player to act may do: fold, check or call ``call``, raise to a total in
    ``[min_raise_to, max_raise_to]`` (both None when raising is not allowed)."""

    seat: int
    can_fold: bool
    can_check: bool
    call: int
    min_raise_to: int | None
    max_raise_to: int | None


@dataclass(frozen=True)
class ForcedBets:
    """Per-seat forced bets, for hands whose posts differ from the config's (real histories).

    ``blinds`` are live bets in seat order (blinds, straddles, a new player's posted big
    blind), at their full size: a short stack posts what it has, but the price to call is
    the full blind. ``dead`` is dead money per seat (antes, the dead part of a posted small
    blind). Preflop action starts at ``first_to_act`` when given, else left of the first
    seat, clockwise from the button's left, that posted the largest blind.

    ``house_rules`` are the :class:`HouseRule` s the table follows instead of its own (a
    history shows them): ``POSTED_PRICE`` (the price to call and the preflop raises count
    from the largest bet actually posted, and raise by the big blind),
    ``ANTES_IN_MAIN_POT`` (dead money goes whole into the main pot, contested by every live
    player), ``SHORT_ALL_IN_REOPENS`` (an all-in raise short of a full one reopens the
    betting when it is at least the round's largest raise so far).
    """

    blinds: tuple[int, ...]
    dead: tuple[int, ...] = ()
    first_to_act: int | None = None
    house_rules: HouseRule = NO_HOUSE_RULES


@dataclass
class HandResult:
    """How a finished hand paid out: net chips per seat (they sum to minus the rake)."""

    net: list[int]
    rake: int
    pots: list[Pot]
    showdown: bool
    expected_net: list[float] = field(default_factory=list)  # EV settlement only


class Table:
    """A single hand at one table; seats are 0..n-1 clockwise, ``button`` deals.

    Three-handed, the button (seat 0) first to act, the blinds 1 and 2 posted:

    >>> table = Table(GameConfig(seats=3), [100, 100, 100], button=0, seed=1)
    >>> table.to_act, table.bet
    (0, [0, 1, 2])
    """

    def __init__(
        self,
        config: GameConfig,
        stacks: list[int],
        *,
        button: int = 0,
        hole_cards: list[list[int]] | None = None,
        board: list[int] | None = None,
        seed: int | None = None,
        forced: ForcedBets | None = None,
    ) -> None:
        n = config.seats
        if len(stacks) != n or any(type(s) is not int or s < 0 for s in stacks):
            raise ValueError(f"need {n} whole-chip stacks of at least 0, got {stacks}")
        empty = [s for s in range(n) if stacks[s] == 0]
        if n - len(empty) < 2:
            raise ValueError(
                f"a hand needs at least 2 occupied seats, got stacks {stacks} (0: an empty seat)"
            )
        if not 0 <= button < n:
            raise ValueError(f"button {button} is not a seat of {n}")
        if button in empty:
            raise ValueError(f"the button is on seat {button}, an empty seat (stack 0)")
        if forced is not None and (
            len(forced.blinds) != n
            or len(forced.dead) not in (0, n)
            or min(*forced.blinds, *forced.dead) < 0
            or forced.first_to_act not in (None, *range(n))
        ):
            raise ValueError(f"forced bets need {n} non-negative amounts per list, got {forced}")
        if forced is not None and any(
            forced.blinds[s] or (forced.dead and forced.dead[s]) or forced.first_to_act == s
            for s in empty
        ):
            raise ValueError(f"an empty seat (stack 0) posts nothing and never acts: {forced}")
        self.config = config
        self.forced = forced
        self.button = button
        self.starting_stacks = list(stacks)
        self.hole_cards, self.board_cards = _deal(n, hole_cards, board, seed, empty)
        self.stack = list(stacks)
        self.bet = [0] * n
        self.total = [0] * n
        self.folded = [s in empty for s in range(n)]  # an empty seat is out from the start
        self.acted = [False] * n
        self.faced = [0] * n
        self.street = Street.PREFLOP
        self.current_bet = 0
        self.increment = config.big_blind
        self.raises = 0
        self.largest_raise = 0  # the round's largest raise, short all-ins included
        self.dead_paid = [0] * n
        self.log: list[Action] = []
        self.result: HandResult | None = None
        self.to_act = -1
        self._shown = 0
        self._post_forced_bets()

    # -- public API ---------------------------------------------------------------------

    @property
    def seats(self) -> int:
        """Number of seats.

        >>> Table(GameConfig(seats=3), [100, 100, 100]).seats
        3
        """
        return self.config.seats

    @property
    def board(self) -> list[int]:
        """The community cards dealt so far.

        >>> table = Table(GameConfig(seats=2), [100, 100], seed=1)
        >>> table.board
        []
        >>> table.check_call(); table.check_call()
        >>> len(table.board)
        3
        """
        return self.board_cards[: self._shown]

    @property
    def done(self) -> bool:
        """Whether the hand is over and settled.

        >>> table = Table(GameConfig(seats=2), [100, 100], seed=1)
        >>> table.fold()
        >>> table.done, table.result.net
        (True, [-1, 1])
        """
        return self.street is Street.DONE

    def pot(self) -> int:
        """Chips in the middle, bets of the current round included.

        >>> Table(GameConfig(seats=3, ante=1), [100, 100, 100]).pot()
        6
        """
        return sum(self.total)

    def legal(self) -> Legal:
        """What the player to act may do.

        >>> table = Table(GameConfig(seats=3), [100, 100, 100], button=0, seed=1)
        >>> table.legal()
        Legal(seat=0, can_fold=True, can_check=False, call=2, min_raise_to=4, max_raise_to=100)
        >>> table.raise_to(6)  # a raise of 4: the next must raise by 4 too
        >>> table.legal().min_raise_to
        10
        """
        self._require_live()
        seat = self.to_act
        call = min(self.current_bet - self.bet[seat], self.stack[seat])
        low, high = self._raise_bounds(seat, call)
        return Legal(seat, call > 0, call == 0, call, low, high)

    def fold(self, *, when_free: bool = False) -> None:
        """The player to act folds: only when facing a bet, unless ``when_free`` (some
        sites, PokerStars among them, let a player fold when checking is free).

        >>> table = Table(GameConfig(seats=2), [100, 100], seed=1)
        >>> table.check_call()  # the button completes; the big blind may check
        >>> table.fold()
        Traceback (most recent call last):
        ...
        poolshark.engine.table.IllegalActionError: seat 1 may check; folding is not allowed
        >>> table.fold(when_free=True)
        >>> table.result.net
        [2, -2]
        """
        legal = self.legal()
        if not legal.can_fold and not when_free:
            raise IllegalActionError(f"seat {legal.seat} may check; folding is not allowed")
        self.folded[legal.seat] = True
        self._record(legal.seat, Move.FOLD, 0)

    def check_call(self) -> None:
        """The player to act checks, or calls what it faces (all-in if short).

        >>> table = Table(GameConfig(seats=2), [100, 5], seed=1)
        >>> table.raise_to(50)
        >>> table.check_call()  # all-in for 5; the 45 nobody called go back
        >>> table.done, table.result.showdown, sum(table.total)
        (True, True, 10)
        """
        legal = self.legal()
        self._put_in(legal.seat, legal.call)
        self._record(legal.seat, Move.CHECK_CALL, legal.call)

    def raise_to(self, total: int) -> None:
        """The player to act bets or raises to ``total`` chips this round.

        >>> table = Table(GameConfig(seats=2), [100, 100], seed=1)
        >>> table.raise_to(3)
        Traceback (most recent call last):
        ...
        poolshark.engine.table.IllegalActionError: seat 0 must raise to between 4 and 100, not 3
        >>> table.raise_to(4)
        >>> table.current_bet, table.increment
        (4, 2)
        """
        legal = self.legal()
        seat = legal.seat
        if legal.min_raise_to is None or legal.max_raise_to is None:
            raise IllegalActionError(f"seat {seat} may not raise now")
        if not legal.min_raise_to <= total <= legal.max_raise_to:
            raise IllegalActionError(
                f"seat {seat} must raise to between {legal.min_raise_to} and"
                f" {legal.max_raise_to}, not {total}"
            )
        size = total - self.current_bet
        full = size >= self._full_raise_size()
        self._put_in(seat, total - self.bet[seat])
        if full:
            if self.config.betting is Betting.NO_LIMIT:
                self.increment = size
            self.raises += 1
            self.acted = [False] * self.seats
        elif self._follows(HouseRule.SHORT_ALL_IN_REOPENS) and size >= self.largest_raise:
            self.acted = [False] * self.seats
        self.largest_raise = max(self.largest_raise, size)
        self.current_bet = total
        self._record(seat, Move.RAISE, total)

    def act(self, move: Move | str, amount: int = 0) -> None:
        """Apply an action by kind: ``fold``, ``call`` (check or call) or ``raise`` to amount.

        >>> table = Table(GameConfig(seats=2), [100, 100], seed=1)
        >>> table.act("raise", 6); table.act("fold")
        >>> table.result.net
        [2, -2]
        """
        match Move(move):
            case Move.FOLD:
                self.fold()
            case Move.CHECK_CALL:
                self.check_call()
            case Move.RAISE:
                self.raise_to(amount)

    # -- replay and serialization -------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Everything needed to rebuild this hand: config, stacks, cards and actions.

        Unknown hole cards are written as an empty string.

        >>> table = Table(GameConfig(seats=2), [100, 100], seed=1)
        >>> table.fold()
        >>> data = table.to_dict()
        >>> data["stacks"], data["actions"]
        ([100, 100], [{'seat': 0, 'move': 'fold', 'amount': 0, 'street': 0}])
        """
        forced = None if self.forced is None else asdict(self.forced)
        return {
            "config": self.config.model_dump(mode="json"),
            "stacks": self.starting_stacks,
            "button": self.button,
            "forced": forced,
            "hole_cards": [format_cards(h) for h in self.hole_cards],
            "board": format_cards(self.board_cards),
            "actions": [
                {**asdict(a), "move": a.move.value, "street": int(a.street)} for a in self.log
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Table:
        """Rebuild a hand from :meth:`to_dict` output by replaying its actions.

        >>> table = Table(GameConfig(seats=2), [100, 100], seed=1)
        >>> table.raise_to(10); table.check_call()
        >>> Table.from_dict(table.to_dict()).pot()
        20
        """
        table = cls(
            GameConfig.model_validate(data["config"]),
            list(data["stacks"]),
            button=int(data["button"]),
            hole_cards=[parse_cards(h) for h in data["hole_cards"]],
            board=parse_cards(data["board"]),
            forced=_forced_from_dict(data.get("forced")),
        )
        for action in data["actions"]:
            if table.to_act != action["seat"]:
                raise IllegalActionError(
                    f"log says seat {action['seat']} acts, but seat {table.to_act} is to act"
                )
            if action["move"] == Move.FOLD:
                table.fold(when_free=True)  # a logged fold, even one where checking was free
            else:
                table.act(action["move"], action["amount"])
        return table

    def replay(self) -> Table:
        """A fresh table that replays this one's log (it must end in the same state).

        >>> table = Table(GameConfig(seats=3), [100, 100, 100], seed=1)
        >>> table.raise_to(6); table.fold(); table.fold()
        >>> table.replay().result == table.result
        True
        """
        return Table.from_dict(self.to_dict())

    # -- rules ----------------------------------------------------------------------------

    def _post_forced_bets(self) -> None:
        if self.forced is not None:
            self._post_given_bets(self.forced)
            return
        n, config = self.seats, self.config
        for seat in range(n):
            self._put_dead(seat, config.ante)
        # The occupied seats clockwise from the button's left; the button is the last.
        order = [
            (self.button + k) % n
            for k in range(1, n + 1)
            if self.starting_stacks[(self.button + k) % n]
        ]
        if len(order) == 2:  # heads-up: the button posts the small blind
            small, big = self.button, order[0]
        else:
            small, big = order[0], order[1]
        self._put_in(small, config.small_blind)
        self._put_in(big, config.big_blind)
        last = big
        straddle = config.straddle if len(order) > 2 else 0  # nobody straddles heads-up
        if straddle:
            last = order[2]
            self._put_in(last, straddle)
        self.current_bet = max(config.big_blind, straddle, *self.bet)
        self.increment = max(config.big_blind, straddle)
        self.raises = 1  # the blind counts as the round's first bet
        self.to_act = last
        self._advance()

    def _follows(self, rule: HouseRule) -> bool:
        """Whether the hand follows the house rule ``rule`` (``ForcedBets.house_rules``)."""
        return self.forced is not None and rule in self.forced.house_rules

    def _post_given_bets(self, forced: ForcedBets) -> None:
        n = self.seats
        for seat, chips in enumerate(forced.dead):
            self.dead_paid[seat] = min(chips, self.stack[seat])
            self._put_dead(seat, chips)
        for seat, chips in enumerate(forced.blinds):
            self._put_in(seat, chips)
        largest = max(forced.blinds)
        order = [(self.button + 1 + i) % n for i in range(n)]
        opener = next(s for s in order if forced.blinds[s] == largest)
        if forced.first_to_act is not None:
            opener = (forced.first_to_act - 1) % n  # _advance moves on to the next seat
        self.to_act = opener
        if self._follows(HouseRule.POSTED_PRICE):
            self.current_bet = max(self.bet)
            self.increment = self.config.big_blind
        else:
            self.current_bet = max(*self.bet, largest)
            self.increment = max(self.config.big_blind, largest)
        self.raises = 1
        self._advance()

    def _full_raise_size(self) -> int:
        """The smallest raise that reopens the betting."""
        if self.config.betting is Betting.FIXED_LIMIT:
            return self.config.bet_unit(self.street)
        return self.increment

    def _raise_bounds(self, seat: int, call: int) -> tuple[int | None, int | None]:
        """(min, max) total a raise may reach, or (None, None) if raising is not allowed."""
        most = self.bet[seat] + self.stack[seat]
        others_can_act = any(
            not self.folded[s] and self.stack[s] > 0 for s in range(self.seats) if s != seat
        )
        reopened = not self.acted[seat] or (
            self.current_bet - self.faced[seat] >= self._full_raise_size()
        )
        if self.stack[seat] <= call or not others_can_act or not reopened:
            return None, None
        cap = self.config.decision_cap
        if cap is not None and len(self.log) >= cap:  # the safety cap: no raise after it
            return None, None
        if self.config.betting is Betting.FIXED_LIMIT:
            heads_up = sum(not f for f in self.folded) == 2
            capped = not heads_up or self.config.cap_heads_up
            if capped and self.raises >= self.config.raise_cap:
                return None, None
            target = min(self.current_bet + self.config.bet_unit(self.street), most)
            return target, target
        least = self.current_bet + (self.increment if self.current_bet else self.config.big_blind)
        return min(least, most), most

    def _put_dead(self, seat: int, chips: int) -> None:
        paid = min(chips, self.stack[seat])
        self.stack[seat] -= paid
        self.total[seat] += paid

    def _put_in(self, seat: int, chips: int) -> None:
        paid = min(chips, self.stack[seat])
        self.stack[seat] -= paid
        self.bet[seat] += paid
        self.total[seat] += paid

    def _record(self, seat: int, move: Move, amount: int) -> None:
        self.log.append(Action(seat, move, amount, self.street))
        self.acted[seat] = True
        self.faced[seat] = self.current_bet
        self._advance()

    def _require_live(self) -> None:
        if self.done:
            raise IllegalActionError("the hand is over")

    def _can_act(self, seat: int) -> bool:
        return not self.folded[seat] and self.stack[seat] > 0

    def _round_over(self) -> bool:
        return all(
            not self._can_act(s) or (self.acted[s] and self.bet[s] == self.current_bet)
            for s in range(self.seats)
        )

    def _advance(self) -> None:
        """Move to the next player, the next street, or the settlement."""
        live = [s for s in range(self.seats) if not self.folded[s]]
        if len(live) == 1:
            self._return_uncalled()
            self._settle(live)
            return
        if not self._round_over():
            seat = self.to_act
            for _ in range(self.seats):
                seat = (seat + 1) % self.seats
                if self._can_act(seat) and not (
                    self.acted[seat] and self.bet[seat] == self.current_bet
                ):
                    self.to_act = seat
                    return
        self._return_uncalled()
        able = [s for s in live if self.stack[s] > 0]
        if self.street is Street.RIVER or len(able) <= 1:
            self._settle(live)
            return
        self.street = Street(self.street + 1)
        self._shown = (0, 3, 4, 5)[self.street]
        self.bet = [0] * self.seats
        self.acted = [False] * self.seats
        self.faced = [0] * self.seats
        self.current_bet = 0
        self.increment = self.config.big_blind
        self.raises = 0
        self.largest_raise = 0
        self.to_act = self.button
        self._advance()

    def _return_uncalled(self) -> None:
        """Give back the part of the largest bet that nobody matched."""
        top = max(range(self.seats), key=lambda s: self.bet[s])
        second = max((self.bet[s] for s in range(self.seats) if s != top), default=0)
        excess = self.bet[top] - second
        if excess > 0:
            self.bet[top] -= excess
            self.total[top] -= excess
            self.stack[top] += excess
            self.current_bet = second

    def _settle(self, live: list[int]) -> None:
        """Pay the pots: to the last player standing, or by showdown (dealt or by EV)."""
        reached_flop = self.street >= Street.FLOP or len(live) > 1
        pots = self.contested_pots()
        rake = 0
        if reached_flop or not self.config.no_flop_no_drop:
            rake = rake_amount(sum(self.total), self.config.rake_percent, self.config.rake_cap)
        pots = take_rake(pots, rake)
        showdown = len(live) > 1
        payout = [0] * self.seats
        expected = [0.0] * self.seats
        ev_mode = self.config.settlement is Settlement.EXPECTED_VALUE and self.street < Street.RIVER
        if ev_mode and showdown:
            expected = self._expected_payouts(pots)
        values = self._values(live) if showdown else {}
        self._shown = 5 if showdown else self._shown
        for pot in pots:
            if showdown:
                best = max(values[s] for s in pot.eligible)
                winners = [s for s in pot.eligible if values[s] == best]
            else:
                winners = list(pot.eligible)
            for seat, chips in split_pot(pot.amount, winners, self.button, self.seats).items():
                payout[seat] += chips
        if not (ev_mode and showdown):
            expected = [float(p) for p in payout]
        self.stack = [s + p for s, p in zip(self.stack, payout, strict=True)]
        net = [s - s0 for s, s0 in zip(self.stack, self.starting_stacks, strict=True)]
        base = [s0 - t for s0, t in zip(self.starting_stacks, self.total, strict=True)]
        expected_net = [
            b + e - s0 for b, e, s0 in zip(base, expected, self.starting_stacks, strict=True)
        ]
        self.street = Street.DONE
        self.to_act = -1
        self.result = HandResult(net, rake, pots, showdown, expected_net)

    def contested_pots(self) -> list[Pot]:
        """Main pot first, then side pots; under ``ANTES_IN_MAIN_POT`` the dead money goes
        whole into a first pot every live player contests, and only the live bets layer.

        >>> table = Table(GameConfig(seats=3), [100, 100, 20], button=2, seed=1)
        >>> table.raise_to(20)  # seat 2 all-in (first to act, three-handed: the button)
        >>> table.raise_to(60); table.check_call()
        >>> table.contested_pots()
        [Pot(amount=60, eligible=(0, 1, 2)), Pot(amount=80, eligible=(0, 1))]
        """
        live = [not f for f in self.folded]
        if not self._follows(HouseRule.ANTES_IN_MAIN_POT) or not any(self.dead_paid):
            return side_pots(self.total, live)
        bets = [t - d for t, d in zip(self.total, self.dead_paid, strict=True)]
        pots = side_pots(bets, live)
        everyone = tuple(s for s in range(self.seats) if live[s])
        dead = sum(self.dead_paid)
        if pots and pots[0].eligible == everyone:
            return [Pot(pots[0].amount + dead, everyone), *pots[1:]]
        return [Pot(dead, everyone), *pots]

    def _values(self, live: list[int]) -> dict[int, int]:
        """Hand values at showdown; a seat whose cards are unknown (mucked) loses to all."""
        cards = self.hole_cards
        board = self.board_cards
        return {s: evaluate_indices([*cards[s], *board]) if cards[s] else 0 for s in live}

    def _expected_payouts(self, pots: list[Pot]) -> list[float]:
        """Each seat's exact expected winnings over every runout of the unseen board."""
        board = np.array(self.board, dtype=np.uint8)
        if any(not self.hole_cards[s] for pot in pots for s in pot.eligible):
            raise ValueError("expected-value settlement needs every live player's hole cards")
        expected = [0.0] * self.seats
        for pot in pots:
            if len(pot.eligible) == 1:
                expected[pot.eligible[0]] += pot.amount
                continue
            others = [
                c for s in range(self.seats) if s not in pot.eligible for c in self.hole_cards[s]
            ]
            holes = np.array([[self.hole_cards[s] for s in pot.eligible]], dtype=np.uint8)
            wins, splits, boards = enumerate_deals(
                holes, board, np.array(others, dtype=np.uint8), *tables()
            )
            ways = np.arange(splits.shape[2]).clip(min=1)
            shares = (wins[0] + (splits[0] / ways).sum(axis=1)) / boards[0]
            for seat, share in zip(pot.eligible, shares, strict=True):
                expected[seat] += pot.amount * float(share)
        return expected


def _forced_from_dict(data: dict[str, Any] | None) -> ForcedBets | None:
    if data is None:
        return None
    return ForcedBets(
        tuple(data["blinds"]),
        tuple(data.get("dead", ())),
        data.get("first_to_act"),
        HouseRule(data.get("house_rules", 0)),
    )


def _deal(
    seats: int,
    hole_cards: list[list[int]] | None,
    board: list[int] | None,
    seed: int | None,
    empty: list[int],
) -> tuple[list[list[int]], list[int]]:
    """Hole cards and the full board: as given, or from a deck shuffled with ``seed``.

    A seat given no cards (``[]``) keeps unknown cards: it can play, but loses any showdown
    (a replayed history where the player mucked). The ``empty`` seats are dealt no cards.
    """
    deck = [int(c) for c in np.random.default_rng(seed).permutation(52)]
    used = {c for hand in hole_cards or [] for c in hand} | set(board or [])
    deck = [c for c in deck if c not in used]
    if hole_cards is None:
        hole_cards = [[] if s in empty else [deck.pop(), deck.pop()] for s in range(seats)]
    if len(hole_cards) != seats or any(len(h) not in (0, 2) for h in hole_cards):
        raise ValueError(f"need two hole cards (or none, if unknown) for each of {seats} seats")
    if any(hole_cards[s] for s in empty):
        raise ValueError(f"empty seats {empty} (stack 0) are dealt no cards, got {hole_cards}")
    board = list(board) if board is not None else []
    while len(board) < 5:
        board.append(deck.pop())
    if len(board) != 5:
        raise ValueError(f"a board has 5 cards, got {len(board)}")
    check_disjoint(*hole_cards, board)
    return [list(h) for h in hole_cards], board
