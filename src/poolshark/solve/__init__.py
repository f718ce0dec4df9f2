"""Equilibrium solvers for small games: heads-up shove/fold today."""
