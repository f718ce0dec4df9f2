"""The examples in ``engine.table``'s docstrings run and hold (the readable rulebook's
doctests; run here rather than by a global ``--doctest-modules``)."""

from __future__ import annotations

import doctest

from poolshark.engine import table


def test_the_table_doctests_hold() -> None:
    failed, attempted = doctest.testmod(table, optionflags=doctest.ELLIPSIS)
    assert attempted > 0
    assert failed == 0
