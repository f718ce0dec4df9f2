"""What replaying recorded play under an observer with player types costs
(``public_beliefs.replay_records``, behind ``fit --init`` and ``limit observe``), against
the replay of the same records with card-type beliefs only.

Run from the repository root::

    python benchmarks/limit_replay.py [--quick] [--seed N] [--json]

The records are six-seat matches of one typed network player in every seat (the known
model of ``limit_type_beliefs.py`` with 4 player types, each seat keeping one type for the
match, its observer's card-type table random and the prior uniform), 40 matches of 60
deals (6 of 20 with ``--quick``). The typed replay carries every seat's player-type belief
from deal to deal of a match and applies the showdown update to the shown seats after
each round of deals; without the prior every deal is replayed at once. Each replay is run
twice and the faster time kept (the machine may be shared). The script reads only
``record_matches`` and ``replay_records``, so it times an older checkout as well.

The last line printed is one JSON object: ``typed_seconds`` and ``plain_seconds`` (the
replay with player types and with card types only), ``record_seconds``, ``matches``,
``deals``, ``decisions``, ``shown`` (shown hands), ``quick`` and ``seed``.
"""

from __future__ import annotations

import time

import numpy as np
import torch

from common import emit, parse_args, print_table
from limit_type_beliefs import SEATS, known_model
from poolshark.limitnet.agent import LimitNetAgent
from poolshark.limitnet.observer import Observer
from poolshark.limitnet.public_beliefs import replay_records
from poolshark.limitnet.records import LimitRecords, record_matches

PLAYERS = 4
"""Player types of the known model."""
REPEATS = 2
"""Runs of each replay (the fastest kept)."""


def replay_seconds(records: LimitRecords, observer: Observer) -> float:
    """The fastest of :data:`REPEATS` replays of ``records`` under ``observer``."""
    times = []
    for _ in range(REPEATS):
        began = time.perf_counter()
        replay_records(records, observer)
        times.append(time.perf_counter() - began)
    return min(times)


def main() -> None:
    args = parse_args(__doc__ or "")
    torch.set_num_threads(1)
    matches, deals = (6, 20) if args.quick else (40, 60)
    model = known_model(PLAYERS, args.seed)
    prior = np.full(PLAYERS, 1.0 / PLAYERS)
    typed = Observer(model, seed=args.seed, init_scale=1.0)
    typed.set_type_prior(prior)
    plain = Observer(model, seed=args.seed, init_scale=1.0)
    agent = LimitNetAgent(model, type_prior=prior, observer=typed, match_types=True)
    began = time.perf_counter()
    records = record_matches(
        [agent], [1.0], matches=matches, deals=deals, seats=SEATS, seed=args.seed + 7
    )
    record_s = time.perf_counter() - began
    first = records.select(np.flatnonzero(records.match == records.match[0]))
    replay_records(first, typed)  # compiles the card features before the timing
    typed_s, plain_s = replay_seconds(records, typed), replay_seconds(records, plain)
    figures = {
        "typed_seconds": typed_s,
        "plain_seconds": plain_s,
        "record_seconds": record_s,
        "matches": matches,
        "deals": deals,
        "decisions": records.decisions,
        "shown": int(records.shown.sum()),
    }
    if not args.json:
        print_table(
            f"replaying {matches} matches of {deals} deals at {SEATS} seats "
            f"({records.decisions} decisions, {figures['shown']} shown hands)",
            ["replay", "seconds"],
            [[f"player types (P = {PLAYERS})", typed_s], ["card types only", plain_s]],
        )
    emit({**figures, "quick": args.quick, "seed": args.seed})


if __name__ == "__main__":
    main()
