"""Know the pool: spot-level statistics over decision rows, action profit, the population
model against the data, where an exploiter's edge comes from, and a leak explorer."""
