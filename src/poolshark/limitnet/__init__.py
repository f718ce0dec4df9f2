"""The thesis's network player for multi-player fixed-limit hold'em (seed 003, chapters
4-5): bet features, staged card features, the class-mixture action function, its agent and
REINFORCE trainers (self-play and best response). See ``docs/limit.md``.

Importing the package registers the player's checkpoint loader with the agent loader, so
``poolshark eval RUN/limitnet.pt station --betting fixed-limit`` plays a checkpoint.
"""

from pathlib import Path

from poolshark.agents.loading import CHECKPOINT_LOADERS
from poolshark.agents.protocol import Agent

CHECKPOINT_KIND = "limitnet"
"""The ``kind`` a network player's checkpoint carries."""


def load_checkpoint_agent(path: Path) -> Agent:
    """The network player a checkpoint holds, as an agent (the registered loader)."""
    from poolshark.limitnet.agent import load_limitnet_agent  # lazy: torch, CLI start

    return load_limitnet_agent(path)


CHECKPOINT_LOADERS.register(CHECKPOINT_KIND, load_checkpoint_agent)
