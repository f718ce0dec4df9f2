"""Learned models of cards and of the player pool: the equity network first."""
