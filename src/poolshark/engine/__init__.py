"""Hold'em rules: the game configuration, side pots, and a readable single-table engine."""
