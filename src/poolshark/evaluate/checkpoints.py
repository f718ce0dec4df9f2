"""The model packages' checkpoint loaders, registered with the agent loader
(:data:`poolshark.agents.loading.CHECKPOINT_LOADERS`) once, when :mod:`poolshark.evaluate`
is imported: ``population-model`` (the population action model,
:func:`poolshark.population.agent.load_population_model`) and ``exploiter`` (a PPO
exploiter, :func:`poolshark.exploit.agent.load_exploiter`).

``agents`` sits below the model packages and cannot import them; this layer sits above
them. Each loader imports its model package on first use, which keeps torch out of the
CLI's start.
"""

from __future__ import annotations

from pathlib import Path

from poolshark.agents.loading import CheckpointLoaders
from poolshark.agents.protocol import Agent


def load_population_model(path: Path) -> Agent:
    """The population action model a ``population-model`` checkpoint holds."""
    from poolshark.population.agent import load_population_model  # lazy: torch, CLI start

    return load_population_model(path)


def load_exploiter(path: Path) -> Agent:
    """The PPO exploiter an ``exploiter`` checkpoint holds."""
    from poolshark.exploit.agent import load_exploiter  # lazy: torch, CLI start

    return load_exploiter(path)


def register_model_loaders(loaders: CheckpointLoaders) -> None:
    """Register every model package's checkpoint loader with ``loaders``."""
    loaders.register("population-model", load_population_model)
    loaders.register("exploiter", load_exploiter)
