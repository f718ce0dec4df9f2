"""Honest evaluation: matches between agents with confidence intervals, all-in-EV
adjustment and duplicate deals (see ``docs/evaluate.md``).

Every model package registers its own checkpoint loader with the agent loader when it is
imported; this package imports them all, so here ``load_agent("x.pt")`` finds every kind.
"""

# Imported for what they register: the exploiter, population-model, league and limit
# network player loaders.
import poolshark.exploit
import poolshark.league
import poolshark.limitnet  # noqa: F401
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
