"""Shared fixtures: the exact preflop matrices, loaded (or built once) per test session, a
tiny population model trained once per session, and the per-seed evaluation records the
headline and pipeline tests share. Under pytest-xdist (``make test``), how the test files
are shared out between the workers."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from poolshark.equity.matrix import PreflopMatrices, preflop_matrices

if "PYTEST_XDIST_WORKER_COUNT" in os.environ:
    # An xdist worker takes its share of the cores for torch (one of two on two cores).
    workers = int(os.environ["PYTEST_XDIST_WORKER_COUNT"])
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // workers))

RAY_FILE_SUFFIX = "_ray.py"
"""Test files named ``test_*_ray.py`` start a local Ray cluster; one worker runs them all."""


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile``, with the Ray files as one unit: each test file runs on one worker
    (its module fixtures are built once), and the files that start a local Ray cluster run
    on the same worker, one after the other, so two clusters never share the machine.

    (xdist's own ``loadgroup`` cannot group them: with pytest 9 its ``xdist_group`` mark
    no longer reaches the test ids the scheduler sees.)"""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling  # lazy: only an xdist run schedules

    class FileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return RAY_FILE_SUFFIX if path.endswith(RAY_FILE_SUFFIX) else path

    return FileScheduling(config, log)


@pytest.fixture(autouse=True)
def torch_threads_restored() -> Iterator[None]:
    """Each test leaves torch's thread count as it found it (under xdist, the worker's
    share of the cores). A test that trains with ``threads=2`` would otherwise hand two
    threads to every later test on its worker, and with two workers on two cores the
    oversubscribed threads crawl: a league test of 9 s took over 150 s that way."""
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def preflop() -> PreflopMatrices:
    """The exact 1326x1326 win/tie matrices from the user cache (built there if missing)."""
    return preflop_matrices()


@pytest.fixture(scope="session")
def tiny_population_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small population model (``best.pt``) trained briefly on 600 micro-zoom hands."""
    from poolshark.population.train import (  # lazy: only the model tests train one
        PopulationTrainConfig,
        train_population,
    )

    config = PopulationTrainConfig(
        pool="micro-zoom",
        hands=600,
        ranges="none",
        out=tmp_path_factory.mktemp("tiny-population") / "model",
        width=32,
        depth=1,
        class_embedding=4,
        opponent_width=8,
        epochs=2,
        batch_size=128,
        learning_rate=0.005,
        threads=1,
    )
    return Path(train_population(config).best_checkpoint)


SeedRecords = Callable[..., list[dict[str, Any]]]
"""Builds a multi-seed run's per-seed evaluation records (``seed_records(aivat=False)``)."""


def _edge(bb: float, se: float = 10.0, aivat: float | None = None) -> dict[str, Any]:
    return {
        "bb_per_100": bb,
        "stderr": se,
        "half_width": 1.96 * se,
        "aivat": None if aivat is None else {"bb_per_100": aivat, "stderr": se / 2},
    }


def _seed_records(aivat: bool = False) -> list[dict[str, Any]]:
    """Three seeds: the plain exploiter promises 200 and pays 100 (+-10 over seeds), the
    safe one promises 120 and pays 100, the ceiling pays 160."""
    records = []
    for index, wiggle in enumerate((-10.0, 0.0, 10.0)):
        paid = 100.0 + wiggle
        records.append(
            {
                "seed": index,
                "match_seed": 7 + 1_000 * index,
                "exploiters": {
                    "model": {
                        "model": _edge(200.0 + wiggle),
                        "true pool": _edge(paid, aivat=paid + 1 if aivat else None),
                        "held-out model": _edge(50.0),
                    },
                    "safe": {
                        "model": _edge(120.0 + wiggle / 2),
                        "true pool": _edge(paid),
                        "held-out model": _edge(40.0),
                    },
                    "ceiling": {
                        "model": _edge(150.0),
                        "true pool": _edge(160.0 + wiggle),
                        "held-out model": _edge(60.0),
                    },
                },
            }
        )
    return records


@pytest.fixture
def seed_records() -> SeedRecords:
    """Three seeds' evaluation records with known figures, for the headline's tests."""
    return _seed_records
