"""Range-oracle examples: questions about one seat's hole cards and their answers.

An example is a question ``(hand, actions before, seat)``: "what does ``seat`` hold after
the first ``before`` public actions of this hand?", asked either just before one of the
seat's own decisions or at the end of the hand, with the seat's true combo (when known),
whether that combo was shown at showdown, and the asker's dead cards (its own hole cards,
which no range may hold). On a simulated pool the exact pool posterior of the same question
is attached as well: the log-probability it gives the true combo, the best any oracle can
do on those hands.

Two sources give the same arrays (:class:`OracleData`):

* :func:`from_simulation`: the arrays of :func:`~poolshark.pool.simulate.simulate`, every
  hole card known; exact posteriors from one compiled
  :func:`~poolshark.pool.posterior.label_decisions` walk per chunk of hands;
* :func:`from_rows`: ingested decision rows (``poolshark ingest``), where only showdown
  cards are known.

And :func:`from_query` turns a :class:`~poolshark.pool.ranges.RangeQuery` into the same
form, so the oracle answers queries exactly as it was trained.

Each public action and each combo on a board become a few numbers
(:mod:`poolshark.oracle.features`); hands and their examples become the network's batches
(:mod:`poolshark.oracle.batches`).
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import polars as pl

from poolshark.cards.card import N_CARDS
from poolshark.cards.combos import COMBO_CARDS, N_COMBOS
from poolshark.histories.rows import POSITIONS, position_name
from poolshark.pool.context import (
    MOVE_CALL,
    MOVE_FOLD,
    MOVE_RAISE,
    ActionLogs,
    Feature,
    replay_contexts,
)
from poolshark.pool.posterior import label_decisions, pool_mixture
from poolshark.pool.ranges import RangeQuery
from poolshark.pool.simulate import SimulatedHands

Int8s = npt.NDArray[np.int8]
Int16s = npt.NDArray[np.int16]
Int32s = npt.NDArray[np.int32]
Int64s = npt.NDArray[np.int64]
Float32s = npt.NDArray[np.float32]
Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

FORMAT = "poolshark-oracle-data-v1"
MAX_SEATS = 10
VISIBLE = (0, 3, 4, 5)
"""Board cards shown on each street."""
MOVES = ("fold", "check", "call", "bet", "raise")
MOVE_CHECK_CODE, MOVE_CALL_CODE, MOVE_BET_CODE, MOVE_RAISE_CODE = 1, 2, 3, 4
NO_CARD = -1

COMBO_HOLDS_CARD = np.zeros((N_CARDS + 1, N_COMBOS), dtype=np.bool_)
COMBO_HOLDS_CARD[COMBO_CARDS[:, 0], np.arange(N_COMBOS)] = True
COMBO_HOLDS_CARD[COMBO_CARDS[:, 1], np.arange(N_COMBOS)] = True
COMBO_HOLDS_CARD.flags.writeable = False
"""(53, 1326) whether a combo holds a card; row 52 ("no card") is empty."""


class OracleDataError(ValueError):
    """Data the oracle cannot learn from or answer; the message says why."""


@dataclass(frozen=True, eq=False)
class OracleData:
    """Questions about hole cards, in flat arrays (H hands, A actions, E examples).

    Per hand: ``players`` dealt in, ``boards`` (H, 5) every board card known (-1 after the
    last), ``action_start`` (H + 1) offsets into the actions. Per public action (forced
    checks left out): ``actor`` seat index, ``offset`` seats from the button, ``street``,
    ``move`` (index into :data:`MOVES`), ``alive`` players not folded before it,
    ``all_in``, ``put_pot`` chips put in / pot before, ``raise_pot`` raise beyond a call /
    (pot + to call) (0 unless a raise), ``to_call_pot`` price / pot, ``pot_bb`` and
    ``stack_bb`` (the actor's chips behind) before it. Per example: ``example_hand``,
    ``example_before`` (actions of the hand before the question), ``example_seat``,
    ``example_board`` (board cards shown at the question), ``example_end`` (asked after
    the hand's last action rather than before a decision), ``example_combo`` (the true
    combo, -1 unknown), ``example_shown`` (shown at showdown), ``example_dead`` (E, 2)
    the asker's cards (-1 none); ``exact_logp`` and ``exact_rank`` the exact posterior's
    log-probability and rank percentile of the true combo (NaN where not computed), and
    optionally ``exact_rows`` its whole rows (E, 1326), else (0, 1326). ``source`` says
    where the data came from.
    """

    players: Int8s
    boards: Int8s
    action_start: Int64s
    actor: Int8s
    offset: Int8s
    street: Int8s
    move: Int8s
    alive: Int8s
    all_in: Bools
    put_pot: Float32s
    raise_pot: Float32s
    to_call_pot: Float32s
    pot_bb: Float32s
    stack_bb: Float32s
    example_hand: Int32s
    example_before: Int16s
    example_seat: Int8s
    example_board: Int8s
    example_end: Bools
    example_combo: Int16s
    example_shown: Bools
    example_dead: Int8s
    exact_logp: Floats
    exact_rank: Float32s
    exact_rows: Float32s
    source: str = ""

    def __len__(self) -> int:
        return int(self.example_hand.size)

    @property
    def hands(self) -> int:
        """Number of hands H."""
        return int(self.players.size)

    @property
    def has_exact(self) -> bool:
        """Whether every example carries the exact posterior's figures."""
        return len(self) > 0 and not bool(np.isnan(self.exact_logp).any())

    @property
    def example_street(self) -> Int8s:
        """(E,) street of each question, from the board shown (0 preflop .. 3 river)."""
        street: Int8s = np.searchsorted(VISIBLE, self.example_board).astype(np.int8)
        return street

    @cached_property
    def fingerprint(self) -> str:
        """SHA-256 of every array: the data identity checkpoints carry."""
        digest = hashlib.sha256(FORMAT.encode())
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, np.ndarray):
                digest.update(item.name.encode())
                digest.update(np.ascontiguousarray(value).tobytes())
        return digest.hexdigest()

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """Every array field by name."""
        return {
            item.name: getattr(self, item.name)
            for item in fields(self)
            if isinstance(getattr(self, item.name), np.ndarray)
        }

    def select_hands(self, hands: Int64s) -> OracleData:
        """The data of some hands (in the order given), with all their examples."""
        hands = np.asarray(hands, dtype=np.int64)
        counts = np.diff(self.action_start)[hands]
        starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        actions = concatenated_ranges(self.action_start[hands], counts)
        new_index = np.full(self.hands, -1, dtype=np.int64)
        new_index[hands] = np.arange(hands.size)
        mapped = new_index[self.example_hand]
        keep = np.flatnonzero(mapped >= 0)
        keep = keep[np.argsort(mapped[keep], kind="stable")]
        values: dict[str, Any] = {name: getattr(self, name)[actions] for name in PER_ACTION}
        values.update({name: getattr(self, name)[keep] for name in PER_EXAMPLE})
        return OracleData(
            players=self.players[hands],
            boards=self.boards[hands],
            action_start=starts,
            example_hand=mapped[keep].astype(np.int32),
            exact_rows=self.exact_rows[keep] if self.exact_rows.shape[0] else self.exact_rows,
            source=self.source,
            **values,
        )

    def split(self, val_fraction: float, *, seed: int = 0) -> tuple[OracleData, OracleData]:
        """(train, validation): ``val_fraction`` of the hands, drawn from ``seed``, held out
        (drawn rather than the last ones: a simulation returns its short hands first)."""
        held = max(1, round(self.hands * val_fraction))
        if held >= self.hands:
            raise OracleDataError(f"cannot hold out {held} of {self.hands} hands")
        chosen = np.zeros(self.hands, dtype=np.bool_)
        chosen[np.random.default_rng([seed, 11]).choice(self.hands, held, replace=False)] = True
        return self.select_hands(np.flatnonzero(~chosen)), self.select_hands(np.flatnonzero(chosen))


PER_HAND = ("players", "boards")
PER_ACTION = ("actor", "offset", "street", "move", "alive", "all_in", "put_pot", "raise_pot",
              "to_call_pot", "pot_bb", "stack_bb")  # fmt: skip
PER_EXAMPLE = ("example_before", "example_seat", "example_board", "example_end", "example_combo",
               "example_shown", "example_dead", "exact_logp", "exact_rank")  # fmt: skip
"""The arrays of :class:`OracleData` by what they index (besides ``action_start``,
``example_hand`` and ``exact_rows``, whose values or length depend on the others)."""


def concat_data(parts: Sequence[OracleData], source: str | None = None) -> OracleData:
    """The hands of ``parts`` one after another (``action_start`` and ``example_hand``
    offset); ``exact_rows`` kept only where every part keeps them. ``source``: the
    first part's unless given."""
    if not parts:
        raise OracleDataError("nothing to concatenate")
    if len(parts) == 1 and source is None:
        return parts[0]
    hand_offsets = np.cumsum([0, *(p.hands for p in parts)])
    action_offsets = np.cumsum([0, *(int(p.action_start[-1]) for p in parts)])
    values: dict[str, Any] = {
        name: np.concatenate([getattr(p, name) for p in parts])
        for name in (*PER_HAND, *PER_ACTION, *PER_EXAMPLE)
    }
    rows = [p.exact_rows for p in parts]
    keep_rows = all(r.shape[0] == len(p) for r, p in zip(rows, parts, strict=True))
    return OracleData(
        action_start=np.concatenate(
            [[0], *(p.action_start[1:] + o for p, o in zip(parts, action_offsets, strict=False))]
        ).astype(np.int64),
        example_hand=np.concatenate(
            [p.example_hand + o for p, o in zip(parts, hand_offsets, strict=False)]
        ).astype(np.int32),
        exact_rows=np.concatenate(rows) if keep_rows else np.zeros((0, N_COMBOS), np.float32),
        source=parts[0].source if source is None else source,
        **values,
    )


def concatenated_ranges(starts: Int64s, counts: Int64s) -> Int64s:
    """The concatenation of ``range(start, start + count)`` for each pair."""
    total = int(counts.sum())
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
    ranges: Int64s = np.arange(total, dtype=np.int64) + offsets
    return ranges


# -- files --------------------------------------------------------------------------------------


def save_data(data: OracleData, path: Path | str) -> Path:
    """Write ``data`` as an uncompressed ``.npz`` (temp file, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    arrays: dict[str, Any] = {
        "format": np.array(FORMAT),
        "source": np.array(data.source),
        "fingerprint": np.array(data.fingerprint),
        **data.arrays(),
    }
    with open(temporary, "wb") as handle:
        np.savez(handle, **arrays)
    temporary.replace(path)
    return path


def load_data(path: Path | str) -> OracleData:
    """Read a file written by :func:`save_data`; errors name the file."""
    path = Path(path)
    if not path.is_file():
        raise OracleDataError(f"no oracle dataset at {str(path)!r}")
    try:
        with np.load(path, allow_pickle=False) as archive:
            if "format" not in archive or str(archive["format"]) != FORMAT:
                raise OracleDataError(f"{str(path)!r} is not an oracle dataset ({FORMAT})")
            names = [item.name for item in fields(OracleData) if item.name != "source"]
            missing = [name for name in names if name not in archive]
            if missing:
                raise OracleDataError(f"{str(path)!r} lacks {', '.join(missing)}")
            values = {name: archive[name] for name in names}
            data = OracleData(source=str(archive["source"]), **values)
            stored = str(archive["fingerprint"])
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        if isinstance(error, OracleDataError):
            raise
        raise OracleDataError(f"cannot read oracle dataset {str(path)!r}: {error}") from None
    if data.fingerprint != stored:
        raise OracleDataError(f"{str(path)!r} is damaged: its fingerprint does not match")
    return data


def blocked_combos(boards: Int64s, counts: Int64s, dead: Int64s) -> Bools:
    """(n, 1326) combos holding one of the first ``counts`` board cards or a dead card."""
    boards = np.asarray(boards, dtype=np.int64)
    shown = np.where(np.arange(5)[None, :] < np.asarray(counts)[:, None], boards, N_CARDS)
    cards = np.concatenate([shown, np.asarray(dead, dtype=np.int64)], axis=1)
    cards = np.where(cards < 0, N_CARDS, cards)
    blocked: Bools = COMBO_HOLDS_CARD[cards].any(axis=1)
    return blocked


# -- from a simulation ----------------------------------------------------------------------


Asker = Literal["opponent", "none"]
ProgressCallback = Callable[[int, int], None]


def _action_fields(
    seats: int, button: Int64s, logs: ActionLogs, contexts: Floats
) -> tuple[dict[str, npt.NDArray[Any]], Bools]:
    """Every logged action's fields (flattened hand by hand) and which are decisions.

    An engine-forced check (nothing to call, chips behind, nobody else able to act: the
    effective stack is 0) is no decision; the caller drops it.
    """
    valid = np.arange(logs.seat.shape[1])[None, :] < logs.length[:, None]
    ctx = contexts[valid]
    seat, move, amount = logs.seat[valid], logs.move[valid], logs.amount[valid]
    to_call, pot = ctx[:, Feature.TO_CALL], ctx[:, Feature.POT]
    my_bet, my_stack = ctx[:, Feature.MY_BET], ctx[:, Feature.MY_STACK]
    big_blind = ctx[:, Feature.BIG_BLIND]
    forced = (move == MOVE_CALL) & (to_call == 0) & (ctx[:, Feature.SPR] == 0) & (my_stack > 0)
    put_in = np.where(move == MOVE_RAISE, amount - my_bet, np.where(move == MOVE_CALL, amount, 0))
    code = np.select(
        [move == MOVE_FOLD, (move == MOVE_CALL) & (to_call == 0), move == MOVE_CALL, to_call == 0],
        [0, MOVE_CHECK_CODE, MOVE_CALL_CODE, MOVE_BET_CODE],
        MOVE_RAISE_CODE,
    )
    beyond_call = amount - ctx[:, Feature.CURRENT_BET]
    raise_pot = np.where(move == MOVE_RAISE, beyond_call / np.maximum(pot + to_call, 1), 0.0)
    offsets = ((logs.seat - button[:, None]) % seats)[valid]
    values: dict[str, npt.NDArray[Any]] = {
        "actor": seat.astype(np.int8),
        "offset": offsets.astype(np.int8),
        "street": ctx[:, Feature.STREET].astype(np.int8),
        "move": code.astype(np.int8),
        "alive": ctx[:, Feature.ALIVE].astype(np.int8),
        "all_in": (put_in > 0) & (put_in == my_stack),
        "put_pot": (put_in / np.maximum(pot, 1)).astype(np.float32),
        "raise_pot": raise_pot.astype(np.float32),
        "to_call_pot": (to_call / np.maximum(pot, 1)).astype(np.float32),
        "pot_bb": (pot / big_blind).astype(np.float32),
        "stack_bb": (my_stack / big_blind).astype(np.float32),
    }
    return values, ~forced


def _chunk_logs(hands: SimulatedHands, lo: int, hi: int, end_checks: bool) -> ActionLogs:
    """Hands ``lo:hi``'s logs padded to (n, width); with ``end_checks`` every seat gets one
    more check after the hand's last action (its row in ``label_decisions`` is then the
    seat's exact range at the end of the hand)."""
    starts = hands.action_start[lo : hi + 1]
    length = np.diff(starts)
    seats = hands.seats
    extra = seats if end_checks else 0
    width = max(int(length.max(initial=0)) + extra, 1)
    n = hi - lo
    rows = np.repeat(np.arange(n), length)
    columns = np.arange(int(length.sum())) - np.repeat(starts[:-1] - starts[0], length)
    flat = slice(int(starts[0]), int(starts[-1]))
    grids = []
    for values in (hands.action_seat, hands.action_move, hands.action_amount, hands.action_street):
        grid = np.zeros((n, width), dtype=np.int64)
        grid[rows, columns] = values[flat]
        grids.append(grid)
    seat, move, amount, street = grids
    if end_checks:
        last_street = np.where(length > 0, street[np.arange(n), np.maximum(length - 1, 0)], 0)
        for s in range(seats):
            seat[np.arange(n), length + s] = s
            move[np.arange(n), length + s] = MOVE_CALL
            street[np.arange(n), length + s] = last_street
    return ActionLogs(seat, move, amount, street, (length + extra).astype(np.int64))


def from_simulation(
    hands: SimulatedHands,
    *,
    exact: bool = True,
    asker: Asker = "opponent",
    seed: int = 0,
    keep_exact_rows: bool = False,
    chunk_hands: int = 1000,
    threads: int | None = 1,
    progress: ProgressCallback | None = None,
) -> OracleData:
    """Examples from simulated hands: every seat's range before each of its decisions and
    at the end of the hand, the true combo of every seat known.

    ``asker``: ``"opponent"`` makes each question asked by another seat of the same hand
    (drawn from ``seed``), whose hole cards are then dead; ``"none"`` asks from outside the
    table. With ``exact`` the exact pool posterior (anonymous seats: style weighted by the
    pool's frequencies, the asker's cards removed) gives each example its ``exact_logp``
    and ``exact_rank``; ``keep_exact_rows`` keeps the whole rows (5.3 kB an example).
    """
    if len(hands) == 0:
        raise OracleDataError("no hands to build oracle examples from")
    if asker not in ("opponent", "none"):
        raise OracleDataError(f"asker must be 'opponent' or 'none', not {asker!r}")
    seats, n_hands = hands.seats, len(hands)
    parts: list[dict[str, npt.NDArray[Any]]] = []
    for lo in range(0, n_hands, chunk_hands):
        hi = min(lo + chunk_hands, n_hands)
        parts.append(_simulated_chunk(hands, lo, hi))
        if progress is not None:
            progress(hi if not exact else hi // 2, n_hands)
    joined = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
    decisions = joined.pop("decision_count")
    action_start = np.concatenate([[0], np.cumsum(decisions)]).astype(np.int64)
    n_examples = joined["example_hand"].size
    dead = np.full((n_examples, 2), NO_CARD, dtype=np.int8)
    if asker == "opponent":
        rng = np.random.default_rng([seed, 7])
        other = (joined["example_seat"] + rng.integers(1, seats, size=n_examples)) % seats
        holes = hands.hole_cards.astype(np.int8)
        dead = holes[joined["example_hand"], other]
    exact_logp = np.full(n_examples, np.nan)
    exact_rank = np.full(n_examples, np.nan, dtype=np.float32)
    rows = np.zeros((n_examples if keep_exact_rows else 0, N_COMBOS), dtype=np.float32)
    original = joined.pop("example_log_row")
    if exact:
        _exact_posteriors(
            hands, joined, original, dead, exact_logp, exact_rank, rows, chunk_hands, threads,
            progress,
        )  # fmt: skip
    pool = hands.pool.name
    return OracleData(
        players=np.full(n_hands, seats, dtype=np.int8),
        boards=np.where(
            np.arange(5)[None, :] < hands.shown[:, None], hands.boards.astype(np.int16), -1
        ).astype(np.int8),
        action_start=action_start,
        example_dead=dead,
        exact_logp=exact_logp,
        exact_rank=exact_rank,
        exact_rows=rows,
        source=f"simulated pool {pool}, {n_hands} hands",
        **joined,
    )


def _simulated_chunk(hands: SimulatedHands, lo: int, hi: int) -> dict[str, npt.NDArray[Any]]:
    """Actions and examples of hands ``lo:hi`` (example hands are global indices)."""
    seats = hands.seats
    logs = _chunk_logs(hands, lo, hi, end_checks=False)
    button = hands.button[lo:hi].astype(np.int64)
    contexts = replay_contexts(hands.config, hands.stacks[lo:hi], button, logs)
    values, decision = _action_fields(seats, button, logs, contexts)
    n = hi - lo
    length = logs.length
    action_hand = np.repeat(np.arange(n), length)
    position = np.arange(action_hand.size) - np.repeat(np.cumsum(length) - length, length)
    kept_count = np.bincount(action_hand[decision], minlength=n)
    kept_before: Int64s = np.cumsum(decision) - decision
    kept_before -= np.repeat(np.cumsum(kept_count) - kept_count, length)
    holes = hands.hole_cards[lo:hi].astype(np.int64)
    combos = _combo_of(holes[:, :, 0], holes[:, :, 1])
    shown_seat = hands.showed[lo:hi]
    # decision questions: before each kept action, about its actor
    d_hand = action_hand[decision]
    d_seat = values["actor"][decision].astype(np.int64)
    d_board = np.array(VISIBLE)[values["street"][decision]]
    # end questions: after the last action, about every seat
    e_hand = np.repeat(np.arange(n), seats)
    e_seat = np.tile(np.arange(seats), n)
    first_row = np.cumsum(length) - length
    hand = np.concatenate([d_hand, e_hand])
    seat = np.concatenate([d_seat, e_seat])
    order = np.lexsort((np.concatenate([np.zeros(d_hand.size), np.ones(e_hand.size)]), hand))
    example = {
        "example_hand": (hand + lo).astype(np.int32),
        "example_before": np.concatenate([kept_before[decision], kept_count[e_hand]]).astype(
            np.int16
        ),
        "example_seat": seat.astype(np.int8),
        "example_board": np.concatenate([d_board, hands.shown[lo:hi][e_hand]]).astype(np.int8),
        "example_end": np.concatenate([np.zeros(d_hand.size, bool), np.ones(e_hand.size, bool)]),
        "example_combo": combos[hand, seat].astype(np.int16),
        "example_shown": shown_seat[hand, seat],
        # the example's row in the labelled logs (the logs with one end check per seat)
        "example_log_row": int(hands.action_start[lo])
        + lo * seats
        + np.concatenate(
            [
                first_row[d_hand] + d_hand * seats + position[decision],
                first_row[e_hand] + e_hand * seats + length[e_hand] + e_seat,
            ]
        ),
    }
    out = {key: value[order] for key, value in example.items()}
    out.update({key: value[decision] for key, value in values.items()})
    out["decision_count"] = kept_count
    return out


def _combo_of(first: Int64s, second: Int64s) -> Int64s:
    """Combo indices of card pairs (any order), vectorized."""
    lo, hi = np.minimum(first, second), np.maximum(first, second)
    index: Int64s = lo * (2 * N_CARDS - 1 - lo) // 2 + (hi - lo - 1)
    return index


def _exact_posteriors(
    hands: SimulatedHands,
    examples: dict[str, npt.NDArray[Any]],
    log_rows: Int64s,
    dead: Int8s,
    exact_logp: Floats,
    exact_rank: Float32s,
    keep: Float32s,
    chunk_hands: int,
    threads: int | None,
    progress: ProgressCallback | None,
) -> None:
    """Fill the exact posterior's figures of every example, chunk by chunk of hands."""
    pool = hands.pool
    frequencies = pool.style_frequencies()
    example_hand = examples["example_hand"]
    bounds = np.searchsorted(example_hand, np.arange(0, len(hands) + chunk_hands, chunk_hands))
    for chunk, lo in enumerate(range(0, len(hands), chunk_hands)):
        hi = min(lo + chunk_hands, len(hands))
        logs = _chunk_logs(hands, lo, hi, end_checks=True)
        rows = label_decisions(
            pool.bank,
            hands.config,
            hands.stacks[lo:hi],
            hands.button[lo:hi],
            hands.boards[lo:hi].astype(np.int64),
            logs,
            pool_mixture(frequencies, hi - lo, hands.seats),
            threads=threads,
        )
        first = int(hands.action_start[lo]) + lo * hands.seats
        members = slice(int(bounds[chunk]), int(bounds[chunk + 1]))
        posterior = rows[log_rows[members] - first].astype(np.float64)
        board_counts = examples["example_board"][members]
        blocked = blocked_combos(
            hands.boards[example_hand[members]].astype(np.int64),
            board_counts.astype(np.int64),
            dead[members].astype(np.int64),
        )
        posterior[blocked] = 0.0
        posterior /= posterior.sum(axis=1, keepdims=True)
        combo = examples["example_combo"][members].astype(np.int64)
        truth = posterior[np.arange(combo.size), combo]
        exact_logp[members] = np.log(truth)
        exact_rank[members] = rank_percentile(posterior, combo, ~blocked)
        if keep.shape[0]:
            keep[members] = posterior
        if progress is not None:
            progress(len(hands) // 2 + hi // 2, len(hands))


def rank_percentile(probabilities: Floats, combo: Int64s, possible: Bools) -> Float32s:
    """(n,) where each true combo ranks among the possible ones, as a share: (combos more
    likely + half the equally likely ones, itself counted) / possible combos. 1/n is the
    top, about 0.5 for a uniform row."""
    truth = probabilities[np.arange(combo.size), combo][:, None]
    above = ((probabilities > truth) & possible).sum(axis=1)
    equal = ((probabilities == truth) & possible).sum(axis=1)
    share: Float32s = ((above + (equal + 1) / 2) / possible.sum(axis=1)).astype(np.float32)
    return share


# -- from ingested decision rows ------------------------------------------------------------


def _position_offsets() -> Int8s:
    """[players, position index (``histories.rows.POSITIONS``)] -> seats from the button
    (-1 where no such seat)."""
    table = np.full((MAX_SEATS + 1, len(POSITIONS)), -1, dtype=np.int8)
    for players in range(2, MAX_SEATS + 1):
        for offset in range(players):
            table[players, POSITIONS.index(position_name(offset, 0, players))] = offset
    return table


_OFFSET_OF_POSITION = _position_offsets()

ROW_COLUMNS = (
    "site", "hand_id", "action_index", "seat", "position", "players", "betting", "street",
    "board", "hole_cards", "stack", "pot", "to_call", "big_blind", "players_alive", "action",
    "amount", "raise_pot", "all_in",
)  # fmt: skip


def from_rows(frame: pl.DataFrame | pl.LazyFrame) -> OracleData:
    """Examples from ingested decision rows (``docs/histories.md``): every seat's range
    before each of its decisions and after the hand's last action; a combo is known only
    where the history shows it (showdown). Fixed-limit hands are skipped."""
    lazy = frame.lazy() if isinstance(frame, pl.DataFrame) else frame
    missing = [c for c in ROW_COLUMNS if c not in lazy.collect_schema().names()]
    if missing:
        raise OracleDataError(f"decision rows lack the columns {', '.join(missing)}")
    rows = (
        lazy.select(ROW_COLUMNS)
        .filter(pl.col("betting").cast(pl.String) == "no-limit")
        .sort("site", "hand_id", "action_index")
        .collect()
    )
    if rows.height == 0:
        raise OracleDataError("no no-limit decision rows to build oracle examples from")
    key = rows.select(pl.struct("site", "hand_id").rle_id()).to_series().to_numpy()
    starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    length = np.diff(np.concatenate([starts, [rows.height]]))
    n_hands = starts.size
    hand = np.repeat(np.arange(n_hands), length)
    position = np.arange(rows.height) - np.repeat(starts, length)
    players = rows["players"].to_numpy().astype(np.int64)
    if players.min() < 2 or players.max() > MAX_SEATS:
        raise OracleDataError(f"rows must have 2 to {MAX_SEATS} players")
    position_code = rows["position"].to_physical().to_numpy().astype(np.int64)
    offset = _OFFSET_OF_POSITION[players, position_code]
    street = rows["street"].to_physical().to_numpy().astype(np.int8)
    action = rows["action"].to_physical().to_numpy()
    to_call = rows["to_call"].to_numpy().astype(np.float64)
    pot = np.maximum(rows["pot"].to_numpy().astype(np.float64), 1.0)
    big_blind = rows["big_blind"].to_numpy().astype(np.float64)
    code = np.select(
        [action == 0, (action == 1) & (to_call == 0), action == 1, to_call == 0],
        [0, MOVE_CHECK_CODE, MOVE_CALL_CODE, MOVE_BET_CODE],
        MOVE_RAISE_CODE,
    )
    board_lists = rows["board"].to_list()
    board_count = np.array([len(b) for b in board_lists], dtype=np.int8)
    last = starts + length - 1
    boards = np.full((n_hands, 5), NO_CARD, dtype=np.int8)
    for h, row in enumerate(last):
        cards = board_lists[row]
        boards[h, : len(cards)] = cards
    hole = rows.select(
        pl.col("hole_cards").arr.get(i).cast(pl.Int64).fill_null(-1).alias(str(i)) for i in (0, 1)
    ).to_numpy()
    seat = rows["seat"].to_numpy().astype(np.int64)
    known = (hole >= 0).all(axis=1)
    row_combo = np.full(rows.height, -1, dtype=np.int64)
    row_combo[known] = _combo_of(hole[known, 0], hole[known, 1])
    seat_combo = np.full((n_hands, MAX_SEATS), -1, dtype=np.int64)
    seat_combo[hand[known], seat[known]] = row_combo[known]
    acted = np.zeros((n_hands, MAX_SEATS), dtype=np.bool_)
    acted[hand, seat] = True
    e_hand, e_seat = np.nonzero(acted)
    e_combo = seat_combo[e_hand, e_seat]
    decision_combo = seat_combo[hand, seat]
    example_hand = np.concatenate([hand, e_hand])
    order = np.lexsort((np.concatenate([np.zeros(hand.size), np.ones(e_hand.size)]), example_hand))
    board_end = (boards >= 0).sum(axis=1)
    combos = np.concatenate([decision_combo, e_combo])
    n_examples = example_hand.size
    return OracleData(
        players=players[starts].astype(np.int8),
        boards=boards,
        action_start=np.concatenate([[0], np.cumsum(length)]).astype(np.int64),
        actor=seat.astype(np.int8),
        offset=offset,
        street=street,
        move=code.astype(np.int8),
        alive=rows["players_alive"].to_numpy().astype(np.int8),
        all_in=rows["all_in"].to_numpy().astype(np.bool_),
        put_pot=(rows["amount"].to_numpy() / pot).astype(np.float32),
        raise_pot=rows["raise_pot"].fill_null(0.0).to_numpy().astype(np.float32),
        to_call_pot=(to_call / pot).astype(np.float32),
        pot_bb=(pot / big_blind).astype(np.float32),
        stack_bb=(rows["stack"].to_numpy() / big_blind).astype(np.float32),
        example_hand=example_hand[order].astype(np.int32),
        example_before=np.concatenate([position, length[e_hand]])[order].astype(np.int16),
        example_seat=np.concatenate([seat, e_seat])[order].astype(np.int8),
        example_board=np.concatenate([board_count, board_end[e_hand]])[order].astype(np.int8),
        example_end=np.concatenate([np.zeros(hand.size, bool), np.ones(e_hand.size, bool)])[order],
        example_combo=combos[order].astype(np.int16),
        example_shown=combos[order] >= 0,
        example_dead=np.full((n_examples, 2), NO_CARD, dtype=np.int8),
        exact_logp=np.full(n_examples, np.nan),
        exact_rank=np.full(n_examples, np.nan, dtype=np.float32),
        exact_rows=np.zeros((0, N_COMBOS), dtype=np.float32),
        source=f"decision rows, {n_hands} hands",
    )


# -- from a range query ---------------------------------------------------------------------


def from_query(query: RangeQuery) -> OracleData:
    """One hand and one (unlabelled) example per query row: the range of the row's seat
    after its logged actions, the row's dead cards removed."""
    n = query.size
    seats = query.config.seats
    if n == 0:
        raise OracleDataError("an empty range query")
    board = np.asarray(query.board, dtype=np.int64)
    shown = (board >= 0).sum(axis=1)
    if np.any((board >= 0) != (np.arange(5)[None, :] < shown[:, None])):
        raise OracleDataError("a query's board must list its shown cards first, then -1")
    if np.any((query.seat < 0) | (query.seat >= seats)):
        raise OracleDataError(f"a query asks about a seat outside 0..{seats - 1}")
    logs = query.logs
    width = max(int(logs.length.max(initial=0)), 1)
    logs = ActionLogs(
        seat=np.ascontiguousarray(logs.seat[:, :width], dtype=np.int64),
        move=np.ascontiguousarray(logs.move[:, :width], dtype=np.int64),
        amount=np.ascontiguousarray(logs.amount[:, :width], dtype=np.int64),
        street=np.ascontiguousarray(logs.street[:, :width], dtype=np.int64),
        length=np.asarray(logs.length, dtype=np.int64),
    )
    last_street = np.where(
        logs.length > 0, logs.street[np.arange(n), np.maximum(logs.length - 1, 0)], 0
    )
    if np.any(shown < np.array(VISIBLE)[last_street]):
        raise OracleDataError(
            "a query's board must show every card of the streets its actions reach"
        )
    button = np.asarray(query.button, dtype=np.int64)
    contexts = replay_contexts(query.config, query.starting_stacks, button, logs)
    values, decision = _action_fields(seats, button, logs, contexts)
    action_hand = np.repeat(np.arange(n), logs.length)
    kept = np.bincount(action_hand[decision], minlength=n)
    return OracleData(
        players=np.full(n, seats, dtype=np.int8),
        boards=np.where(board >= 0, board, NO_CARD).astype(np.int8),
        action_start=np.concatenate([[0], np.cumsum(kept)]).astype(np.int64),
        example_hand=np.arange(n, dtype=np.int32),
        example_before=kept.astype(np.int16),
        example_seat=np.asarray(query.seat).astype(np.int8),
        example_board=shown.astype(np.int8),
        example_end=np.ones(n, dtype=np.bool_),
        example_combo=np.full(n, -1, dtype=np.int16),
        example_shown=np.zeros(n, dtype=np.bool_),
        example_dead=np.where(query.dead >= 0, query.dead, NO_CARD).astype(np.int8),
        exact_logp=np.full(n, np.nan),
        exact_rank=np.full(n, np.nan, dtype=np.float32),
        exact_rows=np.zeros((0, N_COMBOS), dtype=np.float32),
        source="range query",
        **{key: value[decision] for key, value in values.items()},
    )
