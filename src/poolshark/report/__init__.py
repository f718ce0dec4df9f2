"""Reports: the 13x13 preflop range chart as terminal text, plain text, PNG, SVG or PDF."""
