"""The decision corpus HaRDBot learns from: one Parquet row per decision, read with Polars.

Columns (:data:`SCHEMA`): ``hand_id``; ``player`` and ``opponent`` (agent names);
``history`` (the betting history before the decision, see ``history``), ``context`` (its
coarse key), ``street`` (0..3), ``role`` (``button`` / ``bb``); the acting player's
``hole1``, ``hole2`` and board ``board1..board5`` (card indices, -1 not dealt),
``hand_class`` (preflop chart class 0..168); ``action`` (``f``/``c``/``r``); and the hand
vector ``e``, ``e2``, ``ppot``, ``npot`` of the acting player's hand against a random
opponent hand on that board (``vectors.hand_vectors`` with no range; preflop E is the
equity against a random hand, E2 = E^2, potentials 0).

Query by exact history with a Polars filter or group, e.g. the button's answers to a
check-raise on the flop::

    frame = read_corpus(path)
    frame.filter(pl.col("history") == "rc/cr").group_by("action").len()

:class:`Corpus` is the same table pre-grouped for HaRDBot's hot path: per history, the
entries' vectors and actions (postflop), action counts per preflop class (preflop), and
action counts per history and per context.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl

from poolshark.agents.hardbot.history import ACTION_CHARS

Floats = npt.NDArray[np.float64]
Int64s = npt.NDArray[np.int64]

SCHEMA: dict[str, pl.DataType] = {
    "hand_id": pl.Int64(),
    "player": pl.String(),
    "opponent": pl.String(),
    "history": pl.String(),
    "context": pl.String(),
    "street": pl.Int8(),
    "role": pl.String(),
    "hole1": pl.Int8(),
    "hole2": pl.Int8(),
    "board1": pl.Int8(),
    "board2": pl.Int8(),
    "board3": pl.Int8(),
    "board4": pl.Int8(),
    "board5": pl.Int8(),
    "hand_class": pl.Int16(),
    "action": pl.String(),
    "e": pl.Float32(),
    "e2": pl.Float32(),
    "ppot": pl.Float32(),
    "npot": pl.Float32(),
}
"""Column names and types of a corpus table."""
VECTOR_COLUMNS = ("e", "e2", "ppot", "npot")
N_CLASSES = 169


class CorpusError(ValueError):
    """A corpus file that is missing or does not have the corpus columns."""


def check_frame(frame: pl.DataFrame, source: str = "corpus") -> pl.DataFrame:
    """``frame`` cast to :data:`SCHEMA`, or :class:`CorpusError` naming missing columns."""
    missing = [name for name in SCHEMA if name not in frame.columns]
    if missing:
        raise CorpusError(f"{source}: missing columns {', '.join(missing)}")
    bad = frame.filter(~pl.col("action").is_in(list(ACTION_CHARS))).height
    if bad:
        raise CorpusError(f"{source}: {bad} rows have an action other than f, c, r")
    return frame.select([pl.col(name).cast(kind) for name, kind in SCHEMA.items()])


def write_corpus(frame: pl.DataFrame, path: Path) -> Path:
    """Write a corpus table as Parquet (zstd), creating the folder; returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    check_frame(frame).write_parquet(path, compression="zstd")
    return path


def read_corpus(path: Path) -> pl.DataFrame:
    """A corpus Parquet file as a Polars frame (checked columns and types)."""
    if not path.is_file():
        raise CorpusError(f"no corpus file {str(path)!r}")
    return check_frame(pl.read_parquet(path), str(path))


def decisions_at(frame: pl.DataFrame, history: str) -> pl.DataFrame:
    """The corpus rows whose betting history is exactly ``history``."""
    return frame.filter(pl.col("history") == history)


def action_codes(actions: pl.Series) -> npt.NDArray[np.int8]:
    """``f``/``c``/``r`` as 0/1/2."""
    codes: npt.NDArray[np.int8] = (
        actions.replace_strict({c: i for i, c in enumerate(ACTION_CHARS)}, return_dtype=pl.Int8)
        .to_numpy()
        .astype(np.int8)
    )
    return codes


@dataclass(frozen=True)
class Entries:
    """The postflop corpus entries at one history: (n, 4) vectors and (n,) action codes."""

    vectors: Floats
    actions: npt.NDArray[np.int8]


@dataclass(frozen=True)
class Corpus:
    """A corpus grouped for lookups (build with :meth:`from_frame`).

    ``entries[history]``: postflop :class:`Entries` (at most ``max_entries`` per history, a
    seeded sample); ``preflop[history]``: (169, 3) action counts per hand class;
    ``history_counts[history]`` and ``context_counts[context]``: (3,) action counts.
    """

    entries: dict[str, Entries]
    preflop: dict[str, Floats]
    history_counts: dict[str, Floats]
    context_counts: dict[str, Floats]
    rows: int

    @classmethod
    def from_frame(cls, frame: pl.DataFrame, *, max_entries: int = 20_000, seed: int = 0) -> Corpus:
        """Group a corpus table; histories with more than ``max_entries`` postflop entries
        keep a seeded random sample of that many (the kernel sums stay cheap)."""
        frame = check_frame(frame)
        codes = action_codes(frame["action"])
        frame = frame.with_columns(pl.Series("code", codes))
        rng = np.random.default_rng(seed)
        history_counts = _counts(frame, "history")
        context_counts = _counts(frame, "context")
        preflop: dict[str, Floats] = {}
        pre = frame.filter(pl.col("street") == 0)
        for (history,), group in pre.group_by(["history"]):
            table = np.zeros((N_CLASSES, 3))
            np.add.at(table, (group["hand_class"].to_numpy(), group["code"].to_numpy()), 1.0)
            preflop[str(history)] = table
        entries: dict[str, Entries] = {}
        post = frame.filter(pl.col("street") > 0)
        for (history,), group in post.group_by(["history"], maintain_order=True):
            vectors = group.select(VECTOR_COLUMNS).to_numpy().astype(np.float64)
            actions = group["code"].to_numpy().astype(np.int8)
            if actions.size > max_entries:
                keep = np.sort(rng.choice(actions.size, max_entries, replace=False))
                vectors, actions = vectors[keep], actions[keep]
            entries[str(history)] = Entries(np.ascontiguousarray(vectors), actions)
        return cls(entries, preflop, history_counts, context_counts, frame.height)

    @classmethod
    def read(cls, path: Path, *, max_entries: int = 20_000, seed: int = 0) -> Corpus:
        """:meth:`from_frame` of a Parquet corpus file."""
        return cls.from_frame(read_corpus(path), max_entries=max_entries, seed=seed)


def _counts(frame: pl.DataFrame, key: str) -> dict[str, Floats]:
    grouped = frame.group_by([key, "code"]).len()
    counts: dict[str, Floats] = {}
    for name, code, count in grouped.iter_rows():
        counts.setdefault(str(name), np.zeros(3))[int(code)] += float(count)
    return counts
