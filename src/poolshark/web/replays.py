"""The Replay page's hands and their computed views: a small catalogue, never a path.

A client picks a hand by id from a :class:`ReplayCatalogue`: hands of the histories file
or folder the operator named (``poolshark web --replay-histories PATH``), a few hands of
a shipped synthetic pool played on the server (``--replay-pool NAME``), and hands the
client uploaded as text (parsed by the ingestion readers, ``histories.split``, and judged
by ``histories.replay.judge``, so an upload gets the same errors ingestion would report).
Views come from :func:`poolshark.report.hand_replay.replay_hand` with the operator's range
oracle and population model (``--replay-oracle``, ``--replay-model``), one at a time (the
model's posterior keeps state), off the event loop, and the last few are kept.
"""

from __future__ import annotations

import asyncio
import io
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poolshark.engine.table import Table
from poolshark.histories.record import HistoryError
from poolshark.histories.replay import Judged, judge
from poolshark.histories.split import parse_hand, read_hands, split_hands
from poolshark.pool.play import play_hands
from poolshark.pool.pools import Pool, load_pool

if TYPE_CHECKING:
    from poolshark.report.hand_replay import ReplaySetup

HISTORY_SUFFIXES = (".txt", ".phh", ".phhs", ".ohh")
"""Files of a histories folder the catalogue reads."""


class ReplayInputError(ValueError):
    """A hand or an upload the Replay page cannot use; the message says why."""


@dataclass(frozen=True)
class ReplayOptions:
    """The operator's choices: histories to offer (a file or folder), a shipped pool or a
    pool file whose hands are simulated (None: none), the range oracle and population model
    checkpoints, how many hands of each kind, the seed of the simulation and the equity
    samples."""

    histories: Path | None = None
    pool: str | None = "micro-zoom"
    oracle: Path | None = None
    model: Path | None = None
    simulated: int = 8
    max_hands: int = 100
    max_uploads: int = 32
    cached: int = 16
    seed: int = 0


@dataclass(frozen=True)
class ReplayHand:
    """One hand a client may replay: the finished table, the seats' names, the pool that
    played it (synthetic hands only) and how the list shows it."""

    id: str
    kind: str
    title: str
    table: Table
    names: tuple[str, ...]
    pool: Pool | None = None

    def summary(self) -> dict[str, Any]:
        """The hand as a line of the page's list."""
        return {
            "id": self.id,
            "kind": self.kind,
            "title": self.title,
            "players": self.table.seats,
            "decisions": len(self.table.log),
        }


def history_hand(judged: Judged, hand_id: str, title: str) -> ReplayHand:
    """A judged history hand as a catalogue entry: its table and its players' names."""
    names = tuple(seat.player for seat in judged.record.seats)
    return ReplayHand(id=hand_id, kind="history", title=title, table=judged.table, names=names)


def recorded_hands(text: bytes, source: str, prefix: str, limit: int) -> list[ReplayHand]:
    """The hands of one history text (any format ingestion reads), judged like ingestion;
    raises :class:`ReplayInputError` with the readers' message for the first bad hand."""
    found: list[ReplayHand] = []
    for raw in split_hands(io.BytesIO(text), source=source):
        if len(found) == limit:
            break
        try:
            judged = judge(parse_hand(raw))
        except HistoryError as error:
            where = f"hand {raw.index + 1} (line {raw.line})"
            raise ReplayInputError(f"{where}: {error}") from None
        record = judged.record
        stakes = f"{record.small_blind}/{record.big_blind}"
        title = f"{record.site} #{record.hand_id} ({record.players} players, {stakes})"
        found.append(history_hand(judged, f"{prefix}{len(found)}", title))
    if not found:
        raise ReplayInputError("no hand found in the text (PokerStars text, PHH or OHH)")
    return found


def folder_hands(path: Path, limit: int) -> tuple[list[ReplayHand], list[str]]:
    """Up to ``limit`` hands of a histories file or folder (its history files in name
    order), skipping hands the readers reject; and a note per skipped hand."""
    files = [path] if path.is_file() else sorted(
        p for p in path.iterdir() if p.suffix.lower() in HISTORY_SUFFIXES
    )  # fmt: skip
    hands: list[ReplayHand] = []
    notes: list[str] = []
    for file in files:
        for raw in read_hands(file):
            if len(hands) == limit:
                return hands, notes
            try:
                judged = judge(parse_hand(raw))
            except HistoryError as error:
                notes.append(f"{file.name} hand {raw.index + 1}: {error}")
                continue
            title = f"{file.name} #{judged.record.hand_id} ({judged.record.players} players)"
            hands.append(history_hand(judged, f"h{len(hands)}", title))
    return hands, notes


def simulated_hands(pool: Pool, count: int, seed: int) -> list[ReplayHand]:
    """``count`` hands of ``pool`` played on the readable engine, each seat a style of the
    pool (named by player and style)."""
    hands = []
    for k, seated in enumerate(
        play_hands(pool.config, pool.stack, pool.bank, pool.player_styles.tolist(), count, seed)
    ):
        names = tuple(
            f"{pool.player_names[p]} ({pool.styles[s].name})"
            for p, s in zip(seated.players, seated.styles, strict=True)
        )
        hands.append(
            ReplayHand(
                id=f"s{k}",
                kind="simulated",
                title=f"{pool.name} hand {k + 1} ({len(seated.table.log)} actions)",
                table=seated.table,
                names=names,
                pool=pool,
            )
        )
    return hands


@dataclass
class ReplayCatalogue:
    """The hands a client may replay and the views computed so far (see the module
    docstring). Built lazily: the first request reads the histories, plays the simulated
    hands and loads the checkpoints."""

    options: ReplayOptions = field(default_factory=ReplayOptions)
    setup: ReplaySetup | None = None
    hands: dict[str, ReplayHand] = field(default_factory=dict)
    uploads: OrderedDict[str, list[str]] = field(default_factory=OrderedDict)
    views: OrderedDict[str, dict[str, Any]] = field(default_factory=OrderedDict)
    notes: list[str] = field(default_factory=list)
    ready: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def prepare(self) -> None:
        """Read the operator's histories and play the simulated hands (once)."""
        if self.ready:
            return
        options = self.options
        if options.histories is not None:
            found, skipped = folder_hands(options.histories, options.max_hands)
            self.hands.update((hand.id, hand) for hand in found)
            if skipped:
                self.notes.append(f"{len(skipped)} hands skipped, first: {skipped[0]}")
        if options.pool is not None and options.simulated > 0:
            pool = load_pool(options.pool)
            for hand in simulated_hands(pool, options.simulated, options.seed):
                self.hands[hand.id] = hand
        self.ready = True

    def replay_setup(self) -> ReplaySetup:
        """The oracle and model of the options, loaded on first use."""
        if self.setup is None:
            from poolshark.oracle.model import RangeOracle  # lazy: torch
            from poolshark.population.sources import policy_posterior  # lazy: torch
            from poolshark.report.hand_replay import ReplaySetup  # lazy: torch

            options = self.options
            oracle = None if options.oracle is None else RangeOracle.load(options.oracle)
            # every combo the preflop posterior allows, not a sample: same hand, same view
            model = (
                None
                if options.model is None
                else policy_posterior(f"{options.model}?candidates=all")
            )
            self.setup = ReplaySetup(oracle=oracle, model=model, seed=options.seed)
        return self.setup

    def listing(self) -> list[dict[str, Any]]:
        """Every hand a client may pick, the operator's first."""
        self.prepare()
        return [hand.summary() for hand in self.hands.values()]

    def upload(self, text: str) -> list[ReplayHand]:
        """Add the hands of an uploaded history text (at most 20), evicting the oldest
        upload beyond ``max_uploads``."""
        self.prepare()
        key = secrets.token_hex(4)
        found = recorded_hands(text.encode(), "upload", f"u{key}-", 20)
        self.uploads[key] = [hand.id for hand in found]
        self.hands.update((hand.id, hand) for hand in found)
        while len(self.uploads) > self.options.max_uploads:
            _, ids = self.uploads.popitem(last=False)
            for hand_id in ids:
                self.hands.pop(hand_id, None)
                self.views.pop(hand_id, None)
        return found

    def hand(self, hand_id: str) -> ReplayHand:
        """The hand ``hand_id``; :class:`KeyError` when there is none."""
        self.prepare()
        return self.hands[hand_id]

    async def view(self, hand_id: str) -> dict[str, Any]:
        """The replay of hand ``hand_id`` as JSON data, computed in a worker thread (one
        at a time) unless kept."""
        hand = self.hand(hand_id)
        async with self.lock:
            if hand_id not in self.views:
                self.views[hand_id] = await asyncio.to_thread(self.compute, hand)
                while len(self.views) > self.options.cached:
                    self.views.popitem(last=False)
            self.views.move_to_end(hand_id)
            return self.views[hand_id]

    def compute(self, hand: ReplayHand) -> dict[str, Any]:
        """:func:`~poolshark.report.hand_replay.replay_hand` of one hand, as JSON data."""
        from poolshark.report.hand_replay import replay_hand  # lazy: torch

        result = replay_hand(
            hand.table, self.replay_setup(), names=hand.names, pool=hand.pool, title=hand.title
        )
        return {"id": hand.id, "kind": hand.kind, **result.to_json()}
