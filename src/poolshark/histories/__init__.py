"""Hand histories: PokerStars text and PHH readers and writers, replay, decision rows."""
