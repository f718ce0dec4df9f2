"""Cards, combos, preflop classes, ranges, suit isomorphism and the hand evaluator."""
