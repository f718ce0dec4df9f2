"""The population action model: what the pool's average player does at a decision.

Read in this order: :mod:`~poolshark.population.actions` (the 14 action classes),
:mod:`~poolshark.population.states` (decision states), :mod:`~poolshark.population.range_view`
and :mod:`~poolshark.population.features` (the model's inputs),
:mod:`~poolshark.population.true_policy` (the synthetic pool's exact policy),
:mod:`~poolshark.population.hands` and :mod:`~poolshark.population.imputation` (ingested
rows, hidden cards drawn), :mod:`~poolshark.population.data` (datasets and their file),
:mod:`~poolshark.population.model` (the network), :mod:`~poolshark.population.train`,
:mod:`~poolshark.population.scoring` and :mod:`~poolshark.population.finetune` (training,
evaluation, SFT), :mod:`~poolshark.population.posterior` and
:mod:`~poolshark.population.sources` (ranges from the model; range sources by spec),
:mod:`~poolshark.population.agent` (the model at the table).
"""

from pathlib import Path

from poolshark.agents.loading import CHECKPOINT_LOADERS
from poolshark.agents.protocol import Agent

CHECKPOINT_KIND = "population-model"
"""The ``kind`` a population-model checkpoint carries."""


def load_checkpoint_agent(path: Path) -> Agent:
    """The population model a checkpoint holds, as an agent (the registered loader)."""
    from poolshark.population.agent import load_population_model  # lazy: torch, CLI start

    return load_population_model(path)


CHECKPOINT_LOADERS.register(CHECKPOINT_KIND, load_checkpoint_agent)
