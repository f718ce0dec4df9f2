"""Batched play: one loop seating agents at thousands of tables; the RL environment on it."""
