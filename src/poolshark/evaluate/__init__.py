"""Honest evaluation: matches between agents with confidence intervals, all-in-EV
adjustment and duplicate deals (see ``docs/evaluate.md``).

Importing this package registers the model packages' checkpoint loaders with the agent
loader (:mod:`poolshark.evaluate.checkpoints`), so ``load_agent("x.pt")`` finds them.
"""

from poolshark.agents.loading import CHECKPOINT_LOADERS
from poolshark.evaluate.checkpoints import register_model_loaders
from poolshark.evaluate.match import (
    AgentResult,
    Estimate,
    MatchConfig,
    MatchError,
    MatchResult,
    default_lineup,
    play_match,
)

register_model_loaders(CHECKPOINT_LOADERS)

__all__ = [
    "AgentResult",
    "Estimate",
    "MatchConfig",
    "MatchError",
    "MatchResult",
    "default_lineup",
    "play_match",
]
