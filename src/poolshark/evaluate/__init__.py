"""Honest evaluation: matches between agents with confidence intervals, all-in-EV
adjustment and duplicate deals (see ``docs/evaluate.md``)."""

from poolshark.evaluate.agents import (
    Agent,
    AgentError,
    Decisions,
    Moves,
    Probabilities,
    SeatView,
    SimpleAgent,
)
from poolshark.evaluate.bots import (
    CallingStation,
    MixtureAgent,
    RandomAgent,
    StyleAgent,
    TagRules,
    TightAggressive,
)
from poolshark.evaluate.loading import load_agent
from poolshark.evaluate.match import (
    AgentResult,
    Estimate,
    MatchConfig,
    MatchError,
    MatchResult,
    default_lineup,
    play_match,
)

__all__ = [
    "Agent",
    "AgentError",
    "AgentResult",
    "CallingStation",
    "Decisions",
    "Estimate",
    "MatchConfig",
    "MatchError",
    "MatchResult",
    "MixtureAgent",
    "Moves",
    "Probabilities",
    "RandomAgent",
    "SeatView",
    "SimpleAgent",
    "StyleAgent",
    "TagRules",
    "TightAggressive",
    "default_lineup",
    "load_agent",
    "play_match",
]
