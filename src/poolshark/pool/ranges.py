"""Range sources: anything that answers "what does this seat hold, given the hand so far?".

The range oracle (a learned model), the exact pool posterior (the best possible answer on a
synthetic pool) and the uniform deal all answer the same batched question, a
:class:`RangeQuery`, with an (N, 1326) array of probabilities over the canonical combos.
The population action model and the evaluation code only depend on :class:`RangeSource`,
so one source can stand in for another.

A source is named by a *spec*, ``KIND`` or ``KIND:ARGUMENT`` (``uniform``, ``exact:POOL``,
``oracle:PATH`` ...): a :class:`RangeSources` registry maps each kind to its loader. The
kinds this package defines are registered here (:func:`pool_range_sources`); the model
packages register theirs where the table is built (``poolshark.population.sources``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from poolshark.cards.combos import N_COMBOS, combos_sharing_cards
from poolshark.engine.config import GameConfig
from poolshark.pool.context import ActionLogs
from poolshark.pool.pools import Pool, load_pool
from poolshark.pool.posterior import PublicHand, range_posterior

Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]


@dataclass(frozen=True)
class RangeQuery:
    """N questions, one per row: the range of ``seat`` after the first ``logs.length``
    public actions of a hand.

    ``starting_stacks`` (N, S) chips before the forced bets; ``button`` (N,); ``board``
    (N, 5) the cards shown so far, -1 for cards not shown; ``logs`` the public actions so far
    (padded (N, L) arrays, see :class:`~poolshark.pool.context.ActionLogs`); ``seat`` (N,)
    whose range is asked; ``dead`` (N, 2) cards the asker knows are elsewhere (its own hole
    cards), -1 for none.
    """

    config: GameConfig
    starting_stacks: Int64s
    button: Int64s
    board: Int64s
    logs: ActionLogs
    seat: Int64s
    dead: Int64s

    def __post_init__(self) -> None:
        n = len(self.button)
        seats = self.config.seats
        shapes = {
            "starting_stacks": (self.starting_stacks.shape, (n, seats)),
            "board": (self.board.shape, (n, 5)),
            "seat": (self.seat.shape, (n,)),
            "dead": (self.dead.shape, (n, 2)),
            "logs.length": (self.logs.length.shape, (n,)),
        }
        for name, (got, want) in shapes.items():
            if got != want:
                raise ValueError(f"range query: {name} must have shape {want}, got {got}")

    @property
    def size(self) -> int:
        """Number of questions N."""
        return int(self.button.size)

    def known_cards(self, row: int) -> list[int]:
        """The board and dead cards of question ``row`` (the cards no range may hold)."""
        cards = np.concatenate([self.board[row], self.dead[row]])
        return [int(c) for c in cards if c >= 0]

    def blocked(self) -> npt.NDArray[np.bool_]:
        """(N, 1326) combos that share a card with the row's board or dead cards."""
        out = np.zeros((self.size, N_COMBOS), dtype=np.bool_)
        for row in range(self.size):
            out[row] = combos_sharing_cards(self.known_cards(row))
        return out

    def public_hand(self, row: int) -> PublicHand:
        """Question ``row`` as the pool posterior's :class:`PublicHand`."""
        length = int(self.logs.length[row])
        width = max(length, 1)
        logs = ActionLogs(
            seat=self.logs.seat[row : row + 1, :width],
            move=self.logs.move[row : row + 1, :width],
            amount=self.logs.amount[row : row + 1, :width],
            street=self.logs.street[row : row + 1, :width],
            length=np.array([length], dtype=np.int64),
        )
        board = tuple(int(c) for c in self.board[row] if c >= 0)
        stacks = tuple(int(s) for s in self.starting_stacks[row])
        return PublicHand(self.config, stacks, int(self.button[row]), board, logs)


@runtime_checkable
class RangeSource(Protocol):
    """Answers range queries: (N, 1326) float32 rows, zero on blocked combos, each summing
    to 1."""

    def ranges(self, query: RangeQuery) -> Float32s: ...


class UniformRanges:
    """The deal itself: every combo not blocked by the known cards equally likely."""

    def ranges(self, query: RangeQuery) -> Float32s:
        """Uniform over the unblocked combos of each row."""
        weights = (~query.blocked()).astype(np.float32)
        out: Float32s = weights / weights.sum(axis=1, keepdims=True)
        return out


class ExactPoolRanges:
    """The exact posterior under a synthetic pool: every seat an anonymous player whose style
    is drawn by the pool's seat frequencies (the best any oracle can do on that pool's
    hands). One compiled posterior walk per row: a reference, not a fast path."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool

    def ranges(self, query: RangeQuery) -> Float32s:
        """The pool posterior of each row's seat, the row's dead cards removed."""
        out = np.zeros((query.size, N_COMBOS), dtype=np.float32)
        weights = self.pool.style_frequencies()
        for row in range(query.size):
            dead = [int(c) for c in query.dead[row] if c >= 0]
            out[row] = range_posterior(
                self.pool.bank, weights, query.public_hand(row), int(query.seat[row]), dead
            )
        return out


class RangeSourceError(ValueError):
    """A range-source spec that names no source; the message says why."""


RangeSourceLoader = Callable[[str], RangeSource | None]
"""Builds a source from the ARGUMENT of a ``KIND:ARGUMENT`` spec ("" for a bare ``KIND``);
None means "no range view"."""


class RangeSources(Mapping[str, RangeSourceLoader]):
    """Range-source loaders by spec kind, registered explicitly with :meth:`register`.

    :meth:`load` reads a spec: a registered ``KIND`` or ``KIND:ARGUMENT``, else
    ``package.module:factory`` or ``package.module:factory=ARG`` (a user's callable, dotted
    names allowed, returning a :class:`RangeSource`, called with ARG if given)."""

    def __init__(self) -> None:
        self._loaders: dict[str, RangeSourceLoader] = {}
        self._arguments: dict[str, str | None] = {}

    def register(self, kind: str, loader: RangeSourceLoader, *, argument: str | None) -> None:
        """Make ``KIND:ARGUMENT`` specs load with ``loader(ARGUMENT)``; ``argument`` names
        the argument for help texts (``"PATH"``), or is None for a bare ``KIND`` (loaded
        with ``loader("")``)."""
        if kind in self._loaders:
            raise RangeSourceError(f"range source kind {kind!r} is registered already")
        self._loaders[kind] = loader
        self._arguments[kind] = argument

    def __getitem__(self, kind: str) -> RangeSourceLoader:
        return self._loaders[kind]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)

    def usage(self, kind: str) -> str:
        """How a spec of ``kind`` is written: ``uniform``, ``exact:POOL`` ..."""
        argument = self._arguments[kind]
        return kind if argument is None else f"{kind}:{argument}"

    def load(self, spec: str) -> RangeSource | None:
        """The range source ``spec`` names (see the class docstring)."""
        text = spec.strip()
        kind, colon, argument = text.partition(":")
        if kind in self._loaders and (self._arguments[kind] is not None) == bool(colon):
            return self._loaders[kind](argument)
        return self._user_source(spec, text)

    def _user_source(self, spec: str, text: str) -> RangeSource:
        """``package.module:factory[=ARG]``: a user's range source."""
        module_name, _, target = text.partition(":")
        name, _, argument = target.partition("=")
        if not module_name or not name:
            kinds = ", ".join(self.usage(kind) for kind in self)
            raise RangeSourceError(
                f"unknown range source {spec!r}: use {kinds} or package.module:factory[=ARG]"
            )
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise RangeSourceError(
                f"range source {spec!r}: cannot import {module_name!r}: {error}"
            ) from None
        factory: Any = module
        for part in name.split("."):
            factory = getattr(factory, part, None)
        if not callable(factory):
            raise RangeSourceError(f"range source {spec!r}: {module_name} has no callable {name!r}")
        source = factory(argument) if argument else factory()
        if not isinstance(source, RangeSource):
            raise RangeSourceError(
                f"range source {spec!r} gave a {type(source).__name__}, no ranges()"
            )
        return source


def no_range_view(argument: str) -> None:
    """``none``: no range view (the features' range part left at zero)."""
    return None


def uniform_source(argument: str) -> UniformRanges:
    """``uniform``: the deal itself."""
    return UniformRanges()


def exact_source(argument: str) -> ExactPoolRanges:
    """``exact:POOL``: the exact posterior of a shipped pool or pool file (synthetic pools
    only)."""
    return ExactPoolRanges(load_pool(argument))


def pool_range_sources() -> RangeSources:
    """A registry with this package's kinds: ``none``, ``uniform`` and ``exact:POOL``."""
    sources = RangeSources()
    sources.register("none", no_range_view, argument=None)
    sources.register("uniform", uniform_source, argument=None)
    sources.register("exact", exact_source, argument="POOL")
    return sources
