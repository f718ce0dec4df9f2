"""Many hands as flat arrays: per hand, per seat (player) and per action.

:class:`HandArrays` is the one shape the compiled stages work on: the decision-row pass
(``rows``) and the settlement check (``settle``) read it, and it comes either from records
(:meth:`HandArrays.of`, a plain Python pass) or straight from text (the byte-level readers
of ``fast_phh`` and ``fast_pokerstars``), which is what makes ingestion fast. Both sources
give identical arrays for the same hand; the tests compare them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from poolshark.engine.config import Betting
from poolshark.engine.table import Move
from poolshark.histories.record import VARIANTS, WARNING_REASONS, HandRecord

Int64s = npt.NDArray[np.int64]
Int16s = npt.NDArray[np.int16]
Int8s = npt.NDArray[np.int8]
Int32s = npt.NDArray[np.int32]

WARNINGS = tuple(WARNING_REASONS)
"""Warning codes in the order ``HandArrays.warning`` numbers them."""

MOVE_CODES = {Move.FOLD: 0, Move.CHECK_CALL: 1, Move.RAISE: 2}
"""``HandArrays.move`` codes; 3 marks a move the passes do not know."""

UNSTATED = -1
"""``amount`` of a call whose size the history does not state (PHH ``cc``: the size is
whatever the rules make it), and ``all_in`` of an action whose all-in flag is not stated."""


@dataclass(frozen=True)
class HandArrays:
    """Many hands flattened. ``seat_start`` and ``action_start`` are offsets (length
    hands + 1) into the per-seat and per-action arrays; cards are 0..51, -1 for none or
    unknown. Strings are pyarrow arrays (per hand: ``site``, ``hand_id``; per seat:
    ``name``)."""

    seat_start: Int64s
    action_start: Int64s
    # per hand
    button: Int64s
    small_blind: Int64s
    big_blind: Int64s
    fixed_limit: Int8s
    limit_bets: Int64s  # (hands, 2): fixed-limit small and big bet; zeros in no-limit
    ante: Int64s
    board: Int16s  # (hands, 5)
    board_size: Int64s  # cards in the record's board
    total_pot: Int64s  # the pot the history states (before rake), -1 when it does not
    rake: Int64s  # the rake the replay applies: stated, else pot less winnings, else 0
    has_winnings: Int8s  # whether ``winnings`` is recorded
    needs_reference: Int8s  # 1: something only the engine replay judges (a second board)
    warning: Int8s  # index into WARNINGS, -1 for none
    site: pa.Array
    hand_id: pa.Array
    # per seat
    stack: Int64s
    blind: Int64s
    dead: Int64s
    hole: Int16s  # (seats, 2)
    seat_number: Int64s
    name: pa.Array
    winnings: Int64s  # chips collected (0 when not recorded)
    # per action
    street: Int8s
    player: Int64s
    move: Int8s
    amount: Int64s  # a call's chips (or UNSTATED), the total a raise goes to, 0 for a fold
    all_in: Int8s  # the history's all-in flag, or UNSTATED
    # per hand, optional: bit i set for ``VARIANT_CODES[i]`` in the record's variants
    variants: Int32s | None = None

    def variant_bits(self) -> Int32s:
        """Per hand, the bits of :data:`VARIANT_CODES` its record shows (0: none)."""
        if self.variants is None:
            return np.zeros(self.hands, dtype=np.int32)
        return self.variants

    @property
    def hands(self) -> int:
        """Number of hands."""
        return int(self.button.shape[0])

    @classmethod
    def of(cls, records: Sequence[HandRecord]) -> HandArrays:
        """Flatten records (one Python pass over their seats and actions, no state)."""
        players = [r.players for r in records]
        moves = MOVE_CODES
        stacks: list[int] = []
        blinds: list[int] = []
        dead: list[int] = []
        holes: list[tuple[int, int]] = []
        numbers: list[int] = []
        names: list[str] = []
        won: list[int] = []
        streets: list[int] = []
        actors: list[int] = []
        codes: list[int] = []
        amounts: list[int] = []
        boards = np.full((len(records), 5), -1, dtype=np.int16)
        for index, record in enumerate(records):
            n = len(record.seats)
            stacks.extend([seat.stack for seat in record.seats])
            numbers.extend([seat.number for seat in record.seats])
            names.extend([seat.player for seat in record.seats])
            blinds.extend(padded(record.blinds, n))
            dead.extend(padded(record.dead, n))
            won.extend(padded(record.winnings or (), n))
            holes.extend(_holes(record.hole_cards, n))
            actions = record.actions
            streets.extend([a.street for a in actions])
            actors.extend([a.player for a in actions])
            codes.extend([moves.get(a.move, 3) for a in actions])
            amounts.extend([a.amount for a in actions])
            board = record.board[:5]
            if board:
                boards[index, : len(board)] = board
        return cls(
            seat_start=offsets(players),
            action_start=offsets([len(r.actions) for r in records]),
            button=np.array([r.button for r in records], dtype=np.int64),
            small_blind=np.array([r.small_blind for r in records], dtype=np.int64),
            big_blind=np.array([r.big_blind for r in records], dtype=np.int64),
            fixed_limit=np.array(
                [r.betting is Betting.FIXED_LIMIT for r in records], dtype=np.int8
            ),
            limit_bets=np.array([limit_bets(r) for r in records], dtype=np.int64).reshape(-1, 2),
            ante=np.array([r.ante for r in records], dtype=np.int64),
            board=boards,
            board_size=np.array([len(r.board) for r in records], dtype=np.int64),
            total_pot=np.array(
                [-1 if r.total_pot is None else r.total_pot for r in records], dtype=np.int64
            ),
            rake=np.array([recorded_rake(r) for r in records], dtype=np.int64),
            has_winnings=np.array([r.winnings is not None for r in records], dtype=np.int8),
            needs_reference=np.array([_needs_reference(r) for r in records], dtype=np.int8),
            warning=np.array(
                [WARNINGS.index(r.warnings[0]) if r.warnings else -1 for r in records],
                dtype=np.int8,
            ),
            site=pa.array([r.site for r in records], pa.string()),
            hand_id=pa.array([r.hand_id for r in records], pa.string()),
            stack=np.array(stacks, dtype=np.int64),
            blind=np.array(blinds, dtype=np.int64),
            dead=np.array(dead, dtype=np.int64),
            hole=np.array(holes, dtype=np.int16).reshape(-1, 2),
            seat_number=np.array(numbers, dtype=np.int64),
            name=pa.array(names, pa.string()),
            winnings=np.array(won, dtype=np.int64),
            street=np.array(streets, dtype=np.int8),
            player=np.array(actors, dtype=np.int64),
            move=np.array(codes, dtype=np.int8),
            amount=np.array(amounts, dtype=np.int64),
            all_in=np.full(len(amounts), UNSTATED, dtype=np.int8),
            variants=(
                np.array([variant_bits(r.variants) for r in records], dtype=np.int32)
                if any(r.variants for r in records)
                else None
            ),
        )

    @classmethod
    def concat(cls, parts: Sequence[HandArrays]) -> HandArrays:
        """The hands of ``parts`` one after the other."""
        if len(parts) == 1:
            return parts[0]
        values: dict[str, object] = {}
        for spec in fields(cls):
            name = spec.name
            items = [getattr(part, name) for part in parts]
            if name in ("seat_start", "action_start"):
                values[name] = np.concatenate(
                    [items[0][:1]]
                    + [a[1:] + b[-1] for a, b in zip(items, _ends(items), strict=True)]
                )
            elif name == "variants":
                values[name] = np.concatenate([part.variant_bits() for part in parts])
            elif isinstance(items[0], pa.Array):
                values[name] = pa.concat_arrays(items)
            else:
                values[name] = np.concatenate(items)
        return cls(**values)  # type: ignore[arg-type]

    def take(self, hands: npt.NDArray[np.int64], variants: Int32s | None = None) -> HandArrays:
        """The hands ``hands`` (indices, in that order) alone; ``variants``, when given,
        replaces their variant bits (one entry per hand taken)."""
        seats = _spans(self.seat_start, hands)
        actions = _spans(self.action_start, hands)
        values: dict[str, object] = {}
        for spec in fields(self):
            name = spec.name
            item = getattr(self, name)
            if name == "seat_start":
                values[name] = offsets(np.diff(self.seat_start)[hands].tolist())
            elif name == "action_start":
                values[name] = offsets(np.diff(self.action_start)[hands].tolist())
            elif name == "variants":
                values[name] = self.variant_bits()[hands] if variants is None else variants
            elif name in _SEAT_FIELDS:
                values[name] = _taken(item, seats)
            elif name in _ACTION_FIELDS:
                values[name] = _taken(item, actions)
            else:
                values[name] = _taken(item, hands)
        return HandArrays(**values)  # type: ignore[arg-type]


_SEAT_FIELDS = frozenset(("stack", "blind", "dead", "hole", "seat_number", "name", "winnings"))
_ACTION_FIELDS = frozenset(("street", "player", "move", "amount", "all_in"))


def _spans(starts: Int64s, hands: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The indices of the per-seat (or per-action) entries of ``hands``, in order."""
    lo = starts[hands]
    counts = starts[hands + 1] - lo
    before = np.cumsum(counts) - counts
    return np.repeat(lo - before, counts) + np.arange(int(counts.sum()), dtype=np.int64)


def _taken(values: object, index: npt.NDArray[np.int64]) -> object:
    """``values[index]`` for a numpy or a pyarrow array."""
    if isinstance(values, pa.Array):
        return values.take(pa.array(index, pa.int64()))
    assert isinstance(values, np.ndarray)
    return values[index]


#: The variant codes in ``HandArrays.variants`` bit order.
VARIANT_CODES = tuple(VARIANTS)


def variant_bits(variants: Sequence[str]) -> int:
    """The bits of ``VARIANT_CODES`` for a record's variants."""
    return sum(1 << VARIANT_CODES.index(code) for code in variants)


def _ends(offsets: list[Int64s]) -> list[Int64s]:
    """For each offsets array, the total of the ones before it (as a 1-element array)."""
    totals = np.cumsum([0] + [int(o[-1]) for o in offsets[:-1]])
    return [np.array([t], dtype=np.int64) for t in totals]


def recorded_rake(record: HandRecord) -> int:
    """The rake the site took, as the replay applies it: as recorded, else the pot less
    what was collected, else 0."""
    if record.rake is not None:
        return record.rake
    if record.winnings is not None and record.total_pot is not None:
        return record.total_pot - sum(record.winnings)
    return 0


def _needs_reference(record: HandRecord) -> bool:
    """What the compiled settlement leaves to the engine replay: a second board (run it
    twice), a board of more than five cards, hole cards that are not pairs, per-player
    lists of the wrong length."""
    n = record.players
    return bool(
        record.second_board
        or len(record.board) > 5
        or any(len(h) not in (0, 2) for h in record.hole_cards)
        or (record.hole_cards and len(record.hole_cards) != n)
        or len(record.blinds) != n
        or len(record.dead) != n
        or (record.winnings is not None and len(record.winnings) != n)
    )


def limit_bets(record: HandRecord) -> tuple[int, int]:
    """A fixed-limit game's small and big bet (by default the big blind and twice it)."""
    if record.betting is not Betting.FIXED_LIMIT:
        return (0, 0)
    small = record.small_bet or record.big_blind
    return (small, record.big_bet or 2 * small)


def offsets(counts: Sequence[int]) -> Int64s:
    """Start offsets (and the end) of consecutive groups of these sizes."""
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def padded(values: Sequence[int], n: int) -> Sequence[int]:
    """A per-player list of length ``n`` (missing entries are 0)."""
    if len(values) == n:
        return values
    return [*values[:n], *([0] * (n - len(values)))]


def _holes(hole_cards: tuple[tuple[int, ...], ...], n: int) -> list[tuple[int, int]]:
    """Two cards per player, ``(-1, -1)`` where unknown."""
    unknown = (-1, -1)
    holes = [(h[0], h[1]) if len(h) == 2 else unknown for h in hole_cards[:n]]
    holes.extend([unknown] * (n - len(holes)))
    return holes
