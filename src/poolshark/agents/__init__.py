"""Agents: the protocol every player follows, built-in bots, style agents and the loader.

* :mod:`~poolshark.agents.protocol`: ``Agent``, the batched decision views and moves.
* :mod:`~poolshark.agents.bots`: calling station, random, TAG rules, style and mixture agents.
* :mod:`~poolshark.agents.loading`: an agent from a spec string; models register their loaders.
"""

from poolshark.agents.bots import (
    CallingStation,
    Folder,
    MixtureAgent,
    RandomAgent,
    StyleAgent,
    TagRules,
    TightAggressive,
)
from poolshark.agents.loading import load_agent
from poolshark.agents.protocol import (
    Agent,
    AgentError,
    Decisions,
    Moves,
    Probabilities,
    SeatView,
    SimpleAgent,
)

__all__ = [
    "Agent",
    "AgentError",
    "CallingStation",
    "Decisions",
    "Folder",
    "MixtureAgent",
    "Moves",
    "Probabilities",
    "RandomAgent",
    "SeatView",
    "SimpleAgent",
    "StyleAgent",
    "TagRules",
    "TightAggressive",
    "load_agent",
]
