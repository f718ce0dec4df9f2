"""HaRDBot: corpus-driven opponent ranges and a Poki-style expert system for heads-up limit.

See ``docs/hardbot.md`` (section "HaRDBot"): ``vectors`` (hand vectors E, E2, PPOT, NPOT),
``history`` (betting histories), ``corpus`` (the decision corpus), ``ranges`` (buckets,
kernel, Bayes, the opponent model), ``expert`` (the rules) and ``agent`` (the bot).
"""

from poolshark.agents.hardbot.agent import HaRDBot, ablations
from poolshark.agents.hardbot.corpus import Corpus
from poolshark.agents.hardbot.expert import ExpertAgent, ExpertRules
from poolshark.agents.hardbot.ranges import RangeSettings

__all__ = ["Corpus", "ExpertAgent", "ExpertRules", "HaRDBot", "RangeSettings", "ablations"]
