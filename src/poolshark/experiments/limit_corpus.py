"""Build HaRDBot's corpus: heads-up fixed-limit matches, every decision stored as a row.

:func:`build_corpus` plays each pairing of agent specs (``agents.loading.load_agent``) with
``evaluate.match.play_match`` (``seats=2``, ``betting="fixed-limit"``) and records, through
the match's ``observer`` hook, every decision of every finished hand: the betting history
before it, street, role, the actor's hole cards and board, the action, and the actor's hand
vector (E, E2, PPOT, NPOT against a random hand; ``agents.hardbot.vectors``). The table
has the columns of ``agents.hardbot.corpus.SCHEMA``; :func:`write_corpus` stores it as
Parquet for ``HaRDBot.from_corpus``.

The seed's corpus is "strong machine play"; give the strongest agents available (the
equilibrium bot's self-play and its games against the others). Until that bot exists the
default pairing is the expert system's self-play (``poolshark.agents.hardbot:ExpertAgent``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl

from poolshark.agents.hardbot.agent import default_corpus_path
from poolshark.agents.hardbot.corpus import SCHEMA, check_frame, write_corpus
from poolshark.agents.hardbot.expert import preflop_equities
from poolshark.agents.hardbot.history import ACTION_CHARS, BIG_BLIND, BUTTON, context_of
from poolshark.agents.hardbot.vectors import E2, NPOT, PPOT, E, hand_vectors
from poolshark.agents.loading import load_agent
from poolshark.cards.combos import COMBO_CLASS, COMBO_INDEX
from poolshark.engine.config import Betting
from poolshark.engine.kernel import BUTTON as BUTTON_FIELD
from poolshark.engine.kernel import LOG_LEN
from poolshark.evaluate.match import FinishedHands, MatchConfig, play_match

Int64s = npt.NDArray[np.int64]

DEFAULT_PAIRINGS: tuple[tuple[str, str], ...] = (
    ("poolshark.agents.hardbot:ExpertAgent", "poolshark.agents.hardbot:ExpertAgent"),
)
"""Expert-system self-play: the stand-in for strong machine play until the equilibrium bot
lands (then pass its spec)."""
HAND_ID_STRIDE = 10**10
"""``hand_id = pairing * HAND_ID_STRIDE + the match's hand id`` (unique over pairings)."""
SHOWN_AT_STREET = (0, 3, 4, 5)


@dataclass(frozen=True)
class CorpusBuild:
    """A built corpus and how long it took (``play_seconds`` includes the agents)."""

    frame: pl.DataFrame
    hands: int
    play_seconds: float
    vector_seconds: float

    @property
    def seconds(self) -> float:
        """Wall time of the whole build."""
        return self.play_seconds + self.vector_seconds

    @property
    def hands_per_second(self) -> float:
        """Hands recorded per second of building."""
        return self.hands / max(self.seconds, 1e-9)


class DecisionRecorder:
    """A match observer that keeps one record per decision of every finished hand.

    ``names[a]`` labels agent ``a``; ``pairing`` offsets hand ids. Hand vectors are added
    later in one compiled pass (:meth:`frame`).
    """

    def __init__(self, names: Sequence[str], pairing: int) -> None:
        self.names, self.pairing = list(names), pairing
        self.columns: dict[str, list[object]] = {
            name: [] for name in SCHEMA if name not in ("e", "e2", "ppot", "npot")
        }
        self.hands = 0

    def __call__(self, finished: FinishedHands) -> None:
        """Record the decisions of a batch of finished hands."""
        batch = finished.batch
        cols = self.columns
        for row, table in enumerate(finished.tables.tolist()):
            length = int(batch.table[table, LOG_LEN])
            log = batch.log[table, :length].tolist()
            holes = batch.hole_cards[table].tolist()
            board = batch.boards[table].tolist()
            button = int(batch.table[table, BUTTON_FIELD])
            owners = finished.owners[row].tolist()
            hand_id = self.pairing * HAND_ID_STRIDE + int(finished.hand_ids[row])
            rounds = ["", "", "", ""]
            for seat, move, _amount, street in log:
                history = "/".join(rounds[: street + 1])
                hole = holes[seat]
                shown = SHOWN_AT_STREET[street]
                cols["hand_id"].append(hand_id)
                cols["player"].append(self.names[owners[seat]])
                cols["opponent"].append(self.names[owners[1 - seat]])
                cols["history"].append(history)
                cols["context"].append(context_of(history))
                cols["street"].append(street)
                cols["role"].append(BUTTON if seat == button else BIG_BLIND)
                cols["hole1"].append(hole[0])
                cols["hole2"].append(hole[1])
                for j in range(5):
                    cols[f"board{j + 1}"].append(board[j] if j < shown else -1)
                cols["hand_class"].append(int(COMBO_CLASS[COMBO_INDEX[hole[0], hole[1]]]))
                cols["action"].append(ACTION_CHARS[move])
                rounds[street] += ACTION_CHARS[move]
            self.hands += 1

    def frame(self, *, samples: int = 4, seed: int = 0) -> pl.DataFrame:
        """The records with hand vectors, as a corpus table (:data:`SCHEMA`)."""
        raw = pl.DataFrame(self.columns, schema={k: SCHEMA[k] for k in self.columns})
        return with_vectors(raw, samples=samples, seed=seed)


def with_vectors(raw: pl.DataFrame, *, samples: int = 4, seed: int = 0) -> pl.DataFrame:
    """Add ``e, e2, ppot, npot`` to decision records: one vector per hand, seat and street
    (postflop, against a random hand) and the preflop equity table preflop."""
    keyed = raw.with_row_index("row")
    post = keyed.filter(pl.col("street") > 0)
    unique = post.unique(["hand_id", "role", "street"], keep="first", maintain_order=True)
    board_cols = [f"board{j}" for j in range(1, 6)]
    holes = unique.select("hole1", "hole2").to_numpy().astype(np.int64)
    boards = unique.select(board_cols).to_numpy().astype(np.int64)
    vectors = hand_vectors(holes, boards, samples=samples, seed=seed)
    table = unique.select("hand_id", "role", "street").with_columns(
        pl.Series("e", vectors[:, E], dtype=pl.Float32),
        pl.Series("e2", vectors[:, E2], dtype=pl.Float32),
        pl.Series("ppot", vectors[:, PPOT], dtype=pl.Float32),
        pl.Series("npot", vectors[:, NPOT], dtype=pl.Float32),
    )
    joined = post.join(table, on=["hand_id", "role", "street"], how="left")
    pre = keyed.filter(pl.col("street") == 0)
    combos = COMBO_INDEX[pre["hole1"].to_numpy(), pre["hole2"].to_numpy()]
    equity = preflop_equities()[combos]
    pre = pre.with_columns(
        pl.Series("e", equity, dtype=pl.Float32),
        pl.Series("e2", equity**2, dtype=pl.Float32),
        pl.Series("ppot", np.zeros(equity.size), dtype=pl.Float32),
        pl.Series("npot", np.zeros(equity.size), dtype=pl.Float32),
    )
    merged = pl.concat([pre, joined.select(pre.columns)]).sort("row").drop("row")
    return check_frame(merged)


def build_corpus(
    pairings: Sequence[tuple[str, str]] = DEFAULT_PAIRINGS,
    hands: int = 200_000,
    *,
    seed: int = 0,
    tables: int = 2048,
    samples: int = 4,
    progress: Callable[[int, int], None] | None = None,
) -> CorpusBuild:
    """Play ``hands`` heads-up fixed-limit hands per pairing (agent specs) and record them.

    Each pairing is one match (plain rotation, so both agents play both roles) with its own
    seed ``seed + index``; ``samples`` sets the precision of the hand vectors.
    """
    if hands < 1:
        raise ValueError(f"hands must be at least 1, got {hands}")
    if not pairings:
        raise ValueError("give at least one pairing of agent specs")
    start = time.perf_counter()
    recorders = []
    for index, (first, second) in enumerate(pairings):
        names = [first, second] if first != second else [first, f"{second}#2"]
        recorder = DecisionRecorder(names, index)
        config = MatchConfig(
            hands=hands, seats=2, betting=Betting.FIXED_LIMIT, seed=seed + index, tables=tables
        )
        play_match(
            [load_agent(first), load_agent(second)],
            [0, 1],
            config,
            names=names,
            progress=progress,
            observer=recorder,
        )
        recorders.append(recorder)
    played = time.perf_counter() - start
    frames = [r.frame(samples=samples, seed=seed + i) for i, r in enumerate(recorders)]
    frame = pl.concat(frames)
    total = sum(r.hands for r in recorders)
    return CorpusBuild(frame, total, played, time.perf_counter() - start - played)


def build_default_corpus(
    pairings: Sequence[tuple[str, str]] = DEFAULT_PAIRINGS,
    hands: int = 200_000,
    *,
    seed: int = 0,
    path: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Path, CorpusBuild]:
    """:func:`build_corpus` written where ``DefaultHaRDBot`` reads it (or to ``path``)."""
    built = build_corpus(pairings, hands, seed=seed, progress=progress)
    return write_corpus(built.frame, path or default_corpus_path()), built
