"""``python -m poolshark.cli``: the same command line as the ``poolshark`` script."""

from poolshark.cli import main

main()
