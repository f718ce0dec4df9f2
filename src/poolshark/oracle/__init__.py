"""The range oracle: a network reading a range from the public history; its data, trainer."""
