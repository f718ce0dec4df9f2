"""The agents a browser may ask for: names, never paths.

``agents.loading.load_agent`` reads files and imports modules, which a web client must
never choose. The client names an entry of an :class:`AgentCatalogue` instead: the
built-in bots, every shipped style (``style:NAME``) and shipped pool (``pool:NAME``), and
whatever the server's operator added on the command line (``poolshark web --agent
NAME=SPEC``, where SPEC may be a checkpoint or any other ``load_agent`` spec).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import poolshark.evaluate  # noqa: F401  (registers the checkpoint loaders for operator specs)
from poolshark.agents.loading import BOTS, load_agent
from poolshark.agents.protocol import Agent, AgentError
from poolshark.pool.pools import list_pools
from poolshark.pool.style import list_styles

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
"""What an operator's agent name may look like (it appears in URLs and hand histories)."""

BOT_NOTES = {
    "random": "uniform over fold, call and four raise sizes",
    "station": "checks and calls everything",
    "tag": "rule-based tight-aggressive bot (no-limit)",
}


@dataclass(frozen=True)
class AgentEntry:
    """One agent a client may name: its ``name``, the ``load_agent`` spec, a note."""

    name: str
    spec: str
    kind: str
    note: str


class AgentCatalogue:
    """The agents this server offers, by name; ``extra`` maps operator names to specs."""

    def __init__(self, extra: Mapping[str, str] | None = None) -> None:
        entries = [AgentEntry(name, name, "bot", BOT_NOTES.get(name, "")) for name in BOTS]
        entries += [
            AgentEntry(f"style:{style}", f"style:{style}", "style", "one synthetic-pool style")
            for style in list_styles()
        ]
        entries += [
            AgentEntry(f"pool:{pool.name}", f"pool:{pool.name}", "pool", pool.description)
            for pool in list_pools()
        ]
        self.entries = {entry.name: entry for entry in entries}
        for name, spec in (extra or {}).items():
            if not NAME_PATTERN.match(name):
                raise ValueError(
                    f"agent name {name!r}: use letters, digits and _.:- (64 at most), "
                    "starting with a letter or digit"
                )
            if name in self.entries:
                raise ValueError(f"agent name {name!r} is taken by a built-in agent")
            self.entries[name] = AgentEntry(name, spec, "operator", spec)

    def __contains__(self, name: object) -> bool:
        return name in self.entries

    def names(self) -> list[str]:
        """Every name a client may use."""
        return list(self.entries)

    def check(self, name: str) -> None:
        """Raise :class:`AgentError` for a name the catalogue does not hold."""
        if name not in self.entries:
            shown = ", ".join(self.names()[:12])
            raise AgentError(
                f"unknown agent {name!r}; choose one of GET /api/agents ({shown}, ...)"
            )

    def load(self, name: str) -> Agent:
        """The agent ``name`` stands for (a fresh instance)."""
        self.check(name)
        return load_agent(self.entries[name].spec)
