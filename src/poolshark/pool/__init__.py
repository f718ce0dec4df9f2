"""Synthetic player pools: styles as data, pools of anonymous players, exact ranges.

* :mod:`~poolshark.pool.context`: the public decision context a style sees.
* :mod:`~poolshark.pool.strength`: the preflop ranking and postflop hand strength.
* :mod:`~poolshark.pool.style`: style files (TOML) and the readable policy.
* :mod:`~poolshark.pool.policy`: the compiled policy: sampling and per-combo probabilities.
* :mod:`~poolshark.pool.pools`: pools of players drawn from a style mix.
* :mod:`~poolshark.pool.posterior`: exact ranges given the public history.
* :mod:`~poolshark.pool.ranges`: range sources (uniform, exact) and their registry by spec.
* :mod:`~poolshark.pool.play`: complete hands on the readable engine.
* :mod:`~poolshark.pool.simulate`: fast-fold hands on the batched engine, written as text
  (:mod:`~poolshark.pool.simulate_kernel`: the compiled loop;
  :mod:`~poolshark.pool.stars_text`: the PokerStars text of simulated hands).
* :mod:`~poolshark.pool.stats`: HUD statistics with 95% intervals, from text or ground truth.
"""
