"""Shared fixtures: the exact preflop matrices, loaded (or built once) per test session."""

from __future__ import annotations

import pytest

from poolshark.equity.matrix import PreflopMatrices, preflop_matrices


@pytest.fixture(scope="session")
def preflop() -> PreflopMatrices:
    """The exact 1326x1326 win/tie matrices from the user cache (built there if missing)."""
    return preflop_matrices()
