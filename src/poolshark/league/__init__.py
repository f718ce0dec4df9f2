"""The self-play league: REINFORCE against past checkpoints, with recurrent policies.

Importing the package registers the league's checkpoint loader with the agent loader, so
``poolshark eval RUN/pool/epoch_0000100.pt station`` plays a snapshot.
"""

from pathlib import Path

from poolshark.agents.loading import CHECKPOINT_LOADERS
from poolshark.agents.protocol import Agent

CHECKPOINT_KIND = "league"
"""The ``kind`` a league checkpoint carries."""


def load_checkpoint_agent(path: Path) -> Agent:
    """The league network a checkpoint holds, as an agent (the registered loader)."""
    from poolshark.league.agent import load_league_agent  # lazy: torch, CLI start

    return load_league_agent(path)


CHECKPOINT_LOADERS.register(CHECKPOINT_KIND, load_checkpoint_agent)
