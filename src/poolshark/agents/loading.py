"""Agents from short specs (the ``poolshark eval`` arguments) and from lineup files.

Spec forms, tried in this order:

* ``random``, ``station``, ``tag``, ``poki``, ``vexbot``, ``hardbot``, ``expert`` (also
  ``bot:random`` ...): the built-in bots (the last four play heads-up fixed-limit only;
  ``hardbot`` reads its corpus from the cache folder);
* ``hardbot:CORPUS.parquet``: HaRDBot on a corpus file (``poolshark limit corpus``);
* ``style:NAME`` or ``style:FILE.toml``: one synthetic-pool style; a shipped style's bare
  name (``nit``, ``lag``, ``maniac``, ``zoom-reg``) works too, except ``tag`` and
  ``station``, which name the bots (their styles are ``style:tag``, ``style:station``);
* ``pool:NAME``: a shipped pool, every seat a random player of it;
* ``limit:NAME`` or ``limit:pool``: one scripted fixed-limit style (``rock``,
  ``weak-tight``, ``fish``, ``tag``, ``maniac``) or their synthetic population mix
  (``agents.limit_styles``; fixed-limit hold'em only);
* ``switch:A,B[,...][@P]``: plays one of the agents A, B, ... at each seat, switching to
  another at each new hand with probability P (default 0.1): an opponent whose style
  changes (``agents.switching``);
* ``FILE.toml``: a style file, a pool file, or a *lineup file* (a pool file whose ``mix``
  also names agents, below);
* ``DIR``: a solved heads-up limit abstraction (``poolshark solve limit --out DIR``),
  played by :class:`~poolshark.agents.equilibrium.EquilibriumAgent`;
* ``FILE.pt``: a training checkpoint, read with ``torch.load(weights_only=True)`` and
  loaded by the loader registered for its ``kind`` in :data:`CHECKPOINT_LOADERS`. This
  package knows no model: each model package registers its own loader when imported
  (``population-model``: the population action model; ``exploiter``: a PPO exploiter);
* ``package.module:Class``: a user agent, built with no arguments (or a module-level agent
  object).

A lineup file is a pool file (``poolshark.pool.pools``) whose ``[mix]`` keys may also be
agent specs: keys are read as in pool files first (a shipped style name, or a style file
beside the lineup file), and otherwise as a spec above, so ``"bot:tag" = 0.2`` or
``"mybots.rules:Shark" = 0.1`` mix bots into a pool, and ``"population.pt" = 0.5`` a
checkpoint (a ``.pt`` key, like a ``.toml`` one, is a file beside the lineup file). A file
whose mix holds only styles is loaded as a pool exactly (players dealt in proportion).
"""

from __future__ import annotations

import importlib
import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from poolshark.agents.bots import (
    CallingStation,
    Folder,
    MixtureAgent,
    RandomAgent,
    StyleAgent,
    TightAggressive,
)
from poolshark.agents.equilibrium import is_equilibrium_folder, load_equilibrium_agent
from poolshark.agents.hardbot import DefaultHaRDBot, ExpertAgent, HaRDBot
from poolshark.agents.limit_styles import LIMIT_STYLES, limit_pool_agent, limit_style_agent
from poolshark.agents.poki import Poki
from poolshark.agents.protocol import Agent, AgentError
from poolshark.agents.switching import SwitchingAgent, parse_switch_spec
from poolshark.agents.vexbot import Vexbot
from poolshark.pool.pools import PoolSpec, build_pool, list_pools, load_pool
from poolshark.pool.style import Style, describe_errors, list_styles, load_style

BOTS: dict[str, Callable[[], Agent]] = {
    "random": RandomAgent,
    "station": CallingStation,
    "folder": Folder,
    "tag": TightAggressive,
    "poki": Poki,
    "vexbot": Vexbot,
    "hardbot": DefaultHaRDBot,
    "expert": ExpertAgent,
}
"""Built-in bots by name."""

CheckpointLoader = Callable[[Path], Agent]
"""Builds the agent a checkpoint file holds."""


class CheckpointLoaders(Mapping[str, CheckpointLoader]):
    """Agent loaders by checkpoint ``kind``, registered explicitly by the layer that knows
    the models (:meth:`register`)."""

    def __init__(self) -> None:
        self._loaders: dict[str, CheckpointLoader] = {}

    def register(self, kind: str, loader: CheckpointLoader) -> None:
        """Load checkpoints of ``kind`` with ``loader(path)``."""
        if kind in self._loaders:
            raise AgentError(f"checkpoint kind {kind!r} has a loader already")
        self._loaders[kind] = loader

    def __getitem__(self, kind: str) -> CheckpointLoader:
        return self._loaders[kind]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)


CHECKPOINT_LOADERS = CheckpointLoaders()
"""Checkpoint ``kind`` -> loader; each model package registers its own when imported
(``poolshark.population``, ``poolshark.exploit``)."""


class LineupSpec(BaseModel):
    """A lineup file: a pool file's keys, with a mix that may name agents."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "lineup"
    description: str = ""
    players: int | None = None
    seed: int = 0
    seats: int = 6
    small_blind: int = 1
    big_blind: int = 2
    stack_bb: float = 100.0
    mix: dict[str, Annotated[float, Field(gt=0, allow_inf_nan=False)]] = Field(min_length=1)


def agent_help() -> str:
    """One line listing the spec forms and the shipped names."""
    pools = ", ".join(spec.name for spec in list_pools())
    styles = ", ".join(list_styles())
    return (
        f"random, station, folder, tag, poki, vexbot, hardbot (its corpus in the cache folder; "
        f"hardbot:CORPUS.parquet) and expert (heads-up fixed-limit), "
        f"a style ({styles}; style:NAME or style:FILE.toml), "
        f"pool:NAME ({pools}), limit:NAME or limit:pool (fixed-limit styles: "
        f"{', '.join(LIMIT_STYLES)}), switch:A,B[@P] (switches between agents), "
        f"a pool or lineup FILE.toml, a checkpoint FILE.pt "
        f"({' or '.join(CHECKPOINT_LOADERS)}), a solved limit folder (poolshark solve limit), "
        "or package.module:Class"
    )


def load_agent(spec: str) -> Agent:
    """The agent a spec names (see the module docstring); :class:`AgentError` otherwise."""
    text = spec.strip()
    name = text.removeprefix("bot:")
    if name in BOTS:
        return BOTS[name]()
    try:
        if text.startswith("switch:"):
            specs, switch = parse_switch_spec(text.removeprefix("switch:"))
            return SwitchingAgent([load_agent(s) for s in specs], specs, switch)
        if text.startswith("style:"):
            return StyleAgent([load_style(text.removeprefix("style:"))])
        if text.startswith("hardbot:"):
            return _hardbot(Path(text.removeprefix("hardbot:")))
        if text.startswith("pool:"):
            return StyleAgent.from_pool(load_pool(text.removeprefix("pool:")))
        if text.startswith("limit:"):
            style = text.removeprefix("limit:")
            return limit_pool_agent() if style == "pool" else limit_style_agent(style)
        if text.endswith(".pt"):
            return load_checkpoint_agent(Path(text))
        if is_equilibrium_folder(Path(text)):
            return load_equilibrium_agent(Path(text))
        if text.endswith(".toml") or Path(text).is_file():
            return load_agent_file(Path(text))
    except AgentError:
        raise
    except ValueError as error:  # a style or pool that does not load
        raise AgentError(f"agent {text!r}: {error}") from None
    if text in list_styles():
        return StyleAgent([load_style(text)])
    if ":" in text:
        return _import_agent(text)
    raise AgentError(f"unknown agent {text!r}: use {agent_help()}")


def _hardbot(corpus: Path) -> Agent:
    """HaRDBot on the corpus file ``corpus`` (``poolshark limit corpus``)."""
    if not corpus.is_file():
        raise AgentError(f"no corpus file {str(corpus)!r} (build one with poolshark limit corpus)")
    return HaRDBot.from_corpus(corpus)


def load_checkpoint_agent(path: Path) -> Agent:
    """The agent a training checkpoint holds, by its ``kind`` (:data:`CHECKPOINT_LOADERS`)."""
    if not path.is_file():
        raise AgentError(f"no checkpoint file {str(path)!r}")
    import torch  # lazy: torch, kept out of the CLI's start

    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # a damaged file can fail in zipfile, pickle or torch
        raise AgentError(f"cannot read checkpoint {str(path)!r}: {error}") from None
    kind = payload.get("kind") if isinstance(payload, dict) else None
    if kind not in CHECKPOINT_LOADERS:
        known = ", ".join(CHECKPOINT_LOADERS) or "none registered (import poolshark.evaluate)"
        found = "no kind" if kind is None else f"kind {kind!r}"
        raise AgentError(f"checkpoint {str(path)!r} has {found}; agents load from: {known}")
    return CHECKPOINT_LOADERS[str(kind)](path)


def load_agent_file(path: Path) -> Agent:
    """A style file, a pool file, or a lineup file mixing styles and agents."""
    try:
        text = path.read_text()
    except OSError as error:
        raise AgentError(f"cannot read agent file {path}: {error.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise AgentError(f"agent file {path}: not valid TOML: {error}") from None
    if "mix" not in data:
        return StyleAgent([Style.from_toml(text, str(path))])
    try:
        lineup = LineupSpec.model_validate(data)
    except ValidationError as error:
        raise AgentError(f"lineup {path}: {describe_errors(error)}") from None
    styles: list[tuple[Style, float]] = []
    agents: list[tuple[str, Agent, float]] = []
    for key, weight in lineup.mix.items():
        try:
            entry = _mix_entry(key, path.parent)
        except ValueError as error:
            raise AgentError(f"lineup {path}: mix.{key}: {error}") from None
        if isinstance(entry, Style):
            styles.append((entry, weight))
        else:
            agents.append((key, entry, weight))
    if not agents:
        return _style_pool(lineup, data, path, styles)
    components: list[Agent] = [agent for _, agent, _ in agents]
    weights = [weight for _, _, weight in agents]
    names = [key for key, _, _ in agents]
    if styles:
        components.append(StyleAgent([s for s, _ in styles], [w for _, w in styles]))
        weights.append(sum(w for _, w in styles))
        names.append("styles")
    return MixtureAgent(components, weights, names)


def _mix_entry(key: str, folder: Path) -> Style | Agent:
    """What a mix key names, read as a pool file would first: a shipped style, or a file
    beside the lineup file (a style, or a nested pool or lineup); otherwise an agent spec."""
    if key.endswith(".pt"):
        return load_checkpoint_agent(folder / key)
    if key.endswith(".toml"):
        source = folder / key
        try:
            has_mix = "mix" in tomllib.loads(source.read_text())
        except OSError as error:
            raise AgentError(f"cannot read {source}: {error.strerror}") from None
        except tomllib.TOMLDecodeError as error:
            raise AgentError(f"{source}: not valid TOML: {error}") from None
        return load_agent_file(source) if has_mix else load_style(source)
    if key in list_styles():
        return load_style(key)
    return load_agent(key)


def _style_pool(
    lineup: LineupSpec, data: dict[str, object], path: Path, styles: list[tuple[Style, float]]
) -> Agent:
    """Only styles: a real pool when the file is one (players dealt), else the weights."""
    if lineup.players is None:
        return StyleAgent([s for s, _ in styles], [w for _, w in styles])
    try:
        spec = PoolSpec.model_validate(data)
    except ValidationError as error:
        raise AgentError(f"pool {path}: {describe_errors(error)}") from None
    return StyleAgent.from_pool(build_pool(spec, path.parent))


def _import_agent(spec: str) -> Agent:
    """``package.module:Name``: a class built with no arguments, or an agent object."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise AgentError(f"agent {spec!r}: write package.module:Class")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise AgentError(f"agent {spec!r}: cannot import {module_name!r}: {error}") from None
    target = getattr(module, attribute, None)
    if target is None:
        raise AgentError(f"agent {spec!r}: module {module_name!r} has no {attribute!r}")
    if isinstance(target, type):
        try:
            target = target()
        except TypeError as error:
            raise AgentError(
                f"agent {spec!r}: {attribute}() must take no arguments: {error}"
            ) from None
    if not callable(getattr(target, "act", None)):
        raise AgentError(
            f"agent {spec!r}: {type(target).__name__} has no act(decisions) method "
            "(see docs/evaluate.md)"
        )
    agent: Agent = target
    return agent
