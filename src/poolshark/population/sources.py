"""Range sources by spec, in one table: the kinds of :mod:`poolshark.pool.ranges`
(``none``, ``uniform``, ``exact:POOL``), the learned range oracle (``oracle:PATH``,
:meth:`~poolshark.oracle.model.RangeOracle.load`) and the posterior a population-model
checkpoint implies for a seat's own actions (``model:PATH[?power=P&candidates=K]``,
:class:`~poolshark.population.posterior.PolicyPosterior`: EM imputation). A user's
``package.module:factory[=ARG]`` works too (:class:`~poolshark.pool.ranges.RangeSources`).
"""

from __future__ import annotations

from poolshark.oracle.model import RangeOracle
from poolshark.pool.ranges import RangeSource, pool_range_sources
from poolshark.population.posterior import (
    PolicyPosterior,
    posterior_options,
    read_population_checkpoint,
)


def range_source_from_spec(spec: str) -> RangeSource | None:
    """The range source ``spec`` names (:data:`RANGE_SOURCES`); None for ``none``."""
    return RANGE_SOURCES.load(spec)


def policy_posterior(argument: str) -> PolicyPosterior:
    """``model:PATH[?power=P&candidates=K]``: the posterior of a population-model
    checkpoint, with the checkpoint's own range view."""
    path, options = posterior_options(argument)
    model, view = read_population_checkpoint(path)
    return PolicyPosterior(model, range_source_from_spec(view), **options)


def oracle_ranges(argument: str) -> RangeOracle:
    """``oracle:PATH``: a trained range oracle."""
    return RangeOracle.load(argument)


RANGE_SOURCES = pool_range_sources()
"""Every range-source kind by name."""
RANGE_SOURCES.register("oracle", oracle_ranges, argument="PATH")
RANGE_SOURCES.register("model", policy_posterior, argument="PATH[?power=P&candidates=K]")
