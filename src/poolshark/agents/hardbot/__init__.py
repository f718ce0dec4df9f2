"""HaRDBot: corpus-driven opponent ranges and a Poki-style expert system for heads-up limit.

See ``docs/hardbot.md`` (section "HaRDBot"): ``vectors`` (hand vectors E, E2, PPOT, NPOT),
``history`` (betting histories), ``corpus`` (the decision corpus), ``ranges`` (buckets,
kernel, Bayes, the opponent model), ``expert`` (the rules) and ``agent`` (the bot).
"""

from poolshark.agents.hardbot.agent import DefaultHaRDBot, HaRDBot, ablations, default_corpus_path
from poolshark.agents.hardbot.corpus import Corpus
from poolshark.agents.hardbot.expert import ExpertAgent, ExpertRules
from poolshark.agents.hardbot.ranges import RangeSettings

__all__ = [
    "Corpus",
    "DefaultHaRDBot",
    "ExpertAgent",
    "ExpertRules",
    "HaRDBot",
    "RangeSettings",
    "ablations",
    "default_corpus_path",
]
