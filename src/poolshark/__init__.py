"""poolshark: learn a poker player pool's habits from hand histories and exploit them."""

__version__ = "0.1.0"
