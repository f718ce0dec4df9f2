"""The self-play league: REINFORCE against past checkpoints, with recurrent policies."""
