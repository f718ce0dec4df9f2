"""Honest evaluation: matches between agents with confidence intervals, all-in-EV
adjustment and duplicate deals (see ``docs/evaluate.md``)."""

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
    "AgentResult",
    "Estimate",
    "MatchConfig",
    "MatchError",
    "MatchResult",
    "default_lineup",
    "play_match",
]
