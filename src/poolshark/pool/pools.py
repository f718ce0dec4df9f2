"""Player pools: a weighted mix of styles spread over hundreds of anonymous players.

A pool file (TOML, validated) names the game (seats, blinds, stack depth), the number of
players and the mix of styles (shipped style names, or paths to style files relative to
the pool file). Loading deals the styles out to the players exactly in proportion (largest
remainders), then shuffles players and draws their anonymous names with the pool's seed, so
a pool is the same set of players every time. Seat-style frequencies (:meth:`Pool.
style_frequencies`) are what the exact pool-mixture ranges weight the styles by.

A pool file may also override style parameters per mix entry, as dotted paths into the
style schema (``[styles.tag]`` then ``"postflop.fold_to_cbet" = 0.55`` or
``"preflop.open.BTN" = 38``); the overridden style is validated as a style file is, and a
bad path, field or value is an error naming the pool, the entry and the field. Fitted
pools (``poolshark pool fit``) are written this way.
"""

from __future__ import annotations

import json
import math
import string
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from poolshark.engine.config import GameConfig
from poolshark.pool.policy import StyleBank
from poolshark.pool.style import (
    Style,
    StyleError,
    StyleSpec,
    bank_of,
    describe_errors,
    load_style,
)

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

NAME_LENGTH = 8
_NAME_CHARS = string.ascii_lowercase + string.digits


class PoolError(ValueError):
    """A pool file that cannot be used; the message names the file and the field."""


class PoolSpec(BaseModel):
    """One pool file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9-]*$")]
    description: str = ""
    players: Annotated[int, Field(ge=2, le=100_000)]
    seed: Annotated[int, Field(ge=0)] = 0
    seats: Annotated[int, Field(ge=2, le=10)] = 6
    small_blind: Annotated[int, Field(ge=0)] = 1
    big_blind: Annotated[int, Field(gt=0)] = 2
    stack_bb: Annotated[float, Field(gt=0, le=10_000, allow_inf_nan=False)] = 100.0
    mix: dict[str, Annotated[float, Field(gt=0, allow_inf_nan=False)]] = Field(min_length=1)
    styles: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Per mix entry: style parameter overrides, dotted path -> value."""

    @model_validator(mode="after")
    def _consistent(self) -> PoolSpec:
        unknown = [entry for entry in self.styles if entry not in self.mix]
        if unknown:
            raise ValueError(f"styles.{unknown[0]}: overrides a style that is not in the mix")
        if self.players < self.seats:
            raise ValueError(f"{self.players} players cannot fill {self.seats} seats")
        if self.small_blind > self.big_blind:
            raise ValueError("the small blind cannot exceed the big blind")
        if round(self.stack_bb * self.big_blind) < 1:
            raise ValueError("the stack is less than one chip")
        return self


@dataclass(frozen=True, eq=False)
class Pool:
    """A loaded pool: its styles (in mix order) and each player's name and style index."""

    spec: PoolSpec
    styles: tuple[Style, ...]
    player_names: tuple[str, ...]
    player_styles: Int64s = field(repr=False)

    @property
    def name(self) -> str:
        """The pool's name."""
        return self.spec.name

    @property
    def config(self) -> GameConfig:
        """The game every hand of this pool is played with."""
        return GameConfig(
            seats=self.spec.seats,
            small_blind=self.spec.small_blind,
            big_blind=self.spec.big_blind,
        )

    @property
    def stack(self) -> int:
        """Starting stack in chips (every hand resets to it)."""
        return round(self.spec.stack_bb * self.spec.big_blind)

    @cached_property
    def bank(self) -> StyleBank:
        """The pool's styles compiled into one bank (index = position in :attr:`styles`)."""
        return bank_of(list(self.styles))

    def style_of(self, player: int) -> int:
        """Style index of a player."""
        return int(self.player_styles[player])

    def style_frequencies(self) -> Floats:
        """Share of the players who play each style (the seat-style frequencies)."""
        counts = np.bincount(self.player_styles, minlength=len(self.styles))
        frequencies: Floats = counts / counts.sum()
        return frequencies

    def summary(self) -> dict[str, object]:
        """Name, players, game and style mix (spec weights and player counts) as plain data."""
        counts = np.bincount(self.player_styles, minlength=len(self.styles))
        return {
            "name": self.name,
            "description": self.spec.description,
            "players": self.spec.players,
            "seats": self.spec.seats,
            "big_blind": self.spec.big_blind,
            "stack_bb": self.spec.stack_bb,
            "mix": [
                {"style": style.name, "weight": weight, "players": int(count)}
                for style, weight, count in zip(
                    self.styles, self.spec.mix.values(), counts, strict=True
                )
            ],
        }


def deal_styles(weights: list[float], players: int, rng: np.random.Generator) -> Int64s:
    """Style index per player: counts in proportion to ``weights`` (largest remainders),
    in a random order."""
    share = np.array(weights) / sum(weights) * players
    counts = np.floor(share).astype(np.int64)
    short = players - int(counts.sum())
    counts[np.argsort(-(share - counts), kind="stable")[:short]] += 1
    styles = np.repeat(np.arange(len(weights)), counts)
    shuffled: Int64s = rng.permutation(styles).astype(np.int64)
    return shuffled


def anonymous_names(players: int, rng: np.random.Generator) -> tuple[str, ...]:
    """Distinct random screen names of :data:`NAME_LENGTH` lowercase letters and digits."""
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < players:
        name = "".join(rng.choice(list(_NAME_CHARS), size=NAME_LENGTH))
        if name not in seen:
            seen.add(name)
            names.append(name)
    return tuple(names)


def _shipped() -> dict[str, str]:
    folder = resources.files("poolshark.pool").joinpath("pools")
    return {
        p.name.removesuffix(".toml"): p.read_text()
        for p in folder.iterdir()
        if p.name.endswith(".toml")
    }


def _parse(text: str, source: str) -> PoolSpec:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PoolError(f"pool {source}: not valid TOML: {error}") from None
    try:
        return PoolSpec.model_validate(data)
    except ValidationError as error:
        raise PoolError(f"pool {source}: {describe_errors(error)}") from None


def list_pools() -> list[PoolSpec]:
    """The shipped pools' specs, by name."""
    return [_parse(text, f"{name}.toml") for name, text in sorted(_shipped().items())]


def load_pool(name_or_path: str | Path) -> Pool:
    """A shipped pool by name (``"micro-zoom"``) or a pool file by path."""
    return build_pool(*load_pool_spec(name_or_path))


def load_pool_spec(name_or_path: str | Path) -> tuple[PoolSpec, Path | None]:
    """The validated spec of a shipped pool or pool file, and the folder its style paths are
    relative to (None for a shipped pool). A shipped name always means the shipped pool,
    whatever the working folder holds under that name."""
    path = Path(name_or_path)
    shipped = _shipped()
    if str(name_or_path) not in shipped and (path.suffix == ".toml" or path.exists()):
        try:
            text = path.read_text()
        except OSError as error:
            raise PoolError(f"cannot read pool file {path}: {error.strerror}") from None
        return _parse(text, str(path)), path.parent
    name = str(name_or_path)
    if name not in shipped:
        raise PoolError(f"no shipped pool {name!r}; choose one of {', '.join(sorted(shipped))}")
    return _parse(shipped[name], f"{name}.toml"), None


def build_pool(spec: PoolSpec, folder: Path | None) -> Pool:
    """Load the styles of a validated spec and deal them to its players."""
    styles = []
    for entry in spec.mix:
        source: str | Path = entry
        if folder is not None and entry.endswith(".toml"):
            source = folder / entry
        try:
            style = load_style(source)
        except StyleError as error:
            raise PoolError(f"pool {spec.name}: mix.{entry}: {error}") from None
        overrides = spec.styles.get(entry, {})
        if overrides:
            try:
                style = override_style(style, overrides)
            except StyleError as error:
                raise PoolError(f"pool {spec.name}: styles.{entry}: {error}") from None
        styles.append(style)
    rng = np.random.default_rng(spec.seed)
    player_styles = deal_styles(list(spec.mix.values()), spec.players, rng)
    names = anonymous_names(spec.players, rng)
    return Pool(spec, tuple(styles), names, player_styles)


def override_style(style: Style, overrides: dict[str, Any]) -> Style:
    """``style`` with parameters replaced: ``{"postflop.fold_to_cbet": 0.55, ...}`` (dotted
    paths into the style schema, aliases as in a style file); the result is validated as a
    style file is. A path through a missing field or a bad value raises ``StyleError``."""
    data = _file_form(style.spec.model_dump(by_alias=True))
    for path, value in overrides.items():
        parts = path.split(".")
        node = data
        for depth, part in enumerate(parts[:-1]):
            child = node.get(part) if isinstance(node, dict) else None
            if not isinstance(child, dict):
                where = ".".join(parts[: depth + 1])
                raise StyleError(f"{path}: {where} is not a group of style parameters")
            node = child
        if parts[-1] not in node and not _open_keys(parts[:-1]):
            group = ".".join(parts[:-1]) or "a style"
            known = ", ".join(sorted(node))
            raise StyleError(f"{path}: no parameter {parts[-1]!r} in {group} (has {known})")
        node[parts[-1]] = value
    try:
        return Style.from_spec(StyleSpec.model_validate(data))
    except ValidationError as error:
        raise StyleError(describe_errors(error)) from None


def _open_keys(group: list[str]) -> bool:
    """Groups keyed by position, where a missing position may be added (``preflop.limp``)."""
    return group in (["preflop", "open"], ["preflop", "limp"])


def _file_form(value: Any) -> Any:
    """A dumped spec as a style file writes it: an all-in size (infinity) as ``"allin"``."""
    if isinstance(value, dict):
        return {key: _file_form(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_file_form(item) for item in value]
    if isinstance(value, float) and math.isinf(value):
        return "allin"
    return value


def pool_toml(spec: PoolSpec, comment: str = "") -> str:
    """A pool file for ``spec`` (``comment`` lines first, as ``#`` comments); loading it
    gives the same spec."""
    lines = [f"# {line}".rstrip() for line in comment.splitlines()]
    for key in ("name", "description", "players", "seed", "seats"):
        lines.append(f"{key} = {_toml_value(getattr(spec, key))}")
    for key in ("small_blind", "big_blind", "stack_bb"):
        lines.append(f"{key} = {_toml_value(getattr(spec, key))}")
    lines += ["", "[mix]"]
    lines += [f"{_toml_key(entry)} = {_toml_value(w)}" for entry, w in spec.mix.items()]
    for entry, overrides in spec.styles.items():
        lines += ["", f"[styles.{_toml_key(entry)}]"]
        lines += [f"{_toml_key(path)} = {_toml_value(v)}" for path, v in overrides.items()]
    return "\n".join(lines) + "\n"


def _toml_key(key: str) -> str:
    bare = key and all(c.isalnum() or c in "-_" for c in key)
    return key if bare else json.dumps(key)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + items + " }"
    raise PoolError(f"cannot write {value!r} to a pool file")
