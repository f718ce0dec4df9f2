"""The range oracle: a network reading a range from the public history.

:mod:`~poolshark.oracle.data` (examples and their file), :mod:`~poolshark.oracle.features`
(action tokens, combo features), :mod:`~poolshark.oracle.batches` (the network's batches),
:mod:`~poolshark.oracle.model` (the network, ``RangeOracle``), :mod:`~poolshark.oracle.train`.
"""
