"""Training rows of the population action model (:class:`ActionDataset`) and their file
(``data.npz``): decisions from simulated pools (:func:`simulated_dataset`, with the true
pool policy) or ingested decision rows (:func:`rows_dataset`, hidden hole cards imputed).

The pieces live beside it: action classes (:mod:`~poolshark.population.actions`), decision
states (:mod:`~poolshark.population.states`), features (:mod:`~poolshark.population.features`
and the range view, :mod:`~poolshark.population.range_view`), the true policy
(:mod:`~poolshark.population.true_policy`), hands rebuilt from rows
(:mod:`~poolshark.population.hands`) and imputation (:mod:`~poolshark.population.imputation`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl

from poolshark.histories.ingest import hand_chunk_frames, row_files
from poolshark.pool.ranges import RangeSource, UniformRanges
from poolshark.pool.simulate import SimulatedHands
from poolshark.population.actions import (
    ALL_IN_CLASS,
    FIRST_RAISE_CLASS,
    N_CLASSES,
    action_classes,
    raise_fraction,
)
from poolshark.population.features import DecisionFeatures, featurize
from poolshark.population.hands import RowsReport, rows_states
from poolshark.population.imputation import impute_hole_cards
from poolshark.population.states import ActionDataError, hand_slice, seen_boards, simulated_states
from poolshark.population.true_policy import true_policies

Floats = npt.NDArray[np.float64]
Float32s = npt.NDArray[np.float32]
Int64s = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

DATA_FORMAT = "poolshark-action-data-v2"
"""v2 (issue 17): in rows rebuilt from ingested hands, a player who folded when checking
was free is out of the hand in later decisions (v1 counted it alive)."""


# -- datasets ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ActionDataset:
    """Training rows: features, the class taken, and what each row is about.

    ``hand_key`` (N,) a hand number unique in the dataset (splits keep hands whole),
    ``player`` (N,) an index into ``player_ids``, ``imputed`` (N,) whether the acting
    player's cards were imputed, ``fraction`` (N,) the pot fraction of a sized raise (NaN
    otherwise), ``true_policy`` / ``style_policy`` (N, N_CLASSES) the synthetic pool's
    exact average-player policy and the player's own style's (NaN rows where unknown).
    """

    features: DecisionFeatures
    target: Int64s
    hand_key: Int64s
    player: Int64s
    player_ids: tuple[str, ...]
    imputed: Bools
    fraction: Float32s
    true_policy: Float32s
    style_policy: Float32s

    @property
    def size(self) -> int:
        """Number of rows N."""
        return int(self.target.size)

    @property
    def has_truth(self) -> bool:
        """Whether every row carries the exact pool policy."""
        return bool(self.size) and not np.isnan(self.true_policy).any()

    def subset(self, rows: Int64s | slice) -> ActionDataset:
        """The rows at ``rows``."""
        return ActionDataset(
            features=self.features.subset(rows),
            target=self.target[rows],
            hand_key=self.hand_key[rows],
            player=self.player[rows],
            player_ids=self.player_ids,
            imputed=self.imputed[rows],
            fraction=self.fraction[rows],
            true_policy=self.true_policy[rows],
            style_policy=self.style_policy[rows],
        )

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """Every array by name (features prefixed ``features_``)."""
        out: dict[str, npt.NDArray[Any]] = {
            f"features_{f.name}": getattr(self.features, f.name) for f in fields(DecisionFeatures)
        }
        for name in ("target", "hand_key", "player", "imputed", "fraction"):
            out[name] = getattr(self, name)
        out["true_policy"] = self.true_policy
        out["style_policy"] = self.style_policy
        return out

    @property
    def fingerprint(self) -> str:
        """SHA-256 of every array and the player ids: the data identity checkpoints carry."""
        digest = hashlib.sha256()
        for name, array in sorted(self.arrays().items()):
            digest.update(name.encode())
            digest.update(np.ascontiguousarray(array).tobytes())
        digest.update("\0".join(self.player_ids).encode())
        return digest.hexdigest()

    @staticmethod
    def concatenate(parts: Sequence[ActionDataset]) -> ActionDataset:
        """Datasets one after another; hand keys and player indices are renumbered so
        they stay distinct (players with the same id are merged)."""
        ids: dict[str, int] = {}
        players, keys = [], []
        offset = 0
        for part in parts:
            mapping = np.array([ids.setdefault(p, len(ids)) for p in part.player_ids] or [0])
            players.append(mapping[part.player] if part.size else part.player)
            keys.append(part.hand_key + offset)
            offset += int(part.hand_key.max(initial=-1)) + 1
        return ActionDataset(
            features=DecisionFeatures.concatenate([p.features for p in parts]),
            target=np.concatenate([p.target for p in parts]),
            hand_key=np.concatenate(keys),
            player=np.concatenate(players),
            player_ids=tuple(ids),
            imputed=np.concatenate([p.imputed for p in parts]),
            fraction=np.concatenate([p.fraction for p in parts]),
            true_policy=np.concatenate([p.true_policy for p in parts]),
            style_policy=np.concatenate([p.style_policy for p in parts]),
        )


def save_dataset(dataset: ActionDataset, path: Path) -> Path:
    """Write a dataset as a deflate-compressed ``.npz`` (temp file, then rename).

    Compression is lossless, so the arrays load back bit for bit (same fingerprint, same
    training), and the features are mostly one-hot zeros: the demo's 40,000 ingested hands
    take 25 MB instead of 660 MB, for about 15 s more to write (2-core CPU).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp.npz")
    payload: dict[str, Any] = {
        "format": np.array(DATA_FORMAT),
        "player_ids": np.array(dataset.player_ids, dtype=str),
        **dataset.arrays(),
    }
    np.savez_compressed(temporary, **payload)
    temporary.replace(path)
    return path


def load_dataset(path: Path) -> ActionDataset:
    """Read a dataset written by :func:`save_dataset`."""
    try:
        data = np.load(Path(path), allow_pickle=False)
    except (OSError, ValueError) as error:
        raise ActionDataError(f"cannot read action dataset {str(path)!r}: {error}") from None
    with data:
        found = str(data["format"]) if "format" in data else ""
        if found.startswith("poolshark-action-data-") and found != DATA_FORMAT:
            raise ActionDataError(
                f"{str(path)!r} is an action dataset of an older format ({found}, not "
                f"{DATA_FORMAT}): delete it and build the rows again"
            )
        if found != DATA_FORMAT:
            raise ActionDataError(f"{str(path)!r} is not an action dataset ({DATA_FORMAT})")
        features = DecisionFeatures(
            **{f.name: data[f"features_{f.name}"] for f in fields(DecisionFeatures)}
        )
        return ActionDataset(
            features=features,
            target=data["target"],
            hand_key=data["hand_key"],
            player=data["player"],
            player_ids=tuple(str(p) for p in data["player_ids"]),
            imputed=data["imputed"],
            fraction=data["fraction"],
            true_policy=data["true_policy"],
            style_policy=data["style_policy"],
        )


FEATURE_DTYPES = ("float32", "float16")
COMPACT_FEATURES = ("public", "hand", "opponents")
"""The float feature arrays :func:`with_feature_dtype` stores at a chosen precision."""


def with_feature_dtype(dataset: ActionDataset, dtype: str) -> ActionDataset:
    """The same rows with the float feature arrays (:data:`COMPACT_FEATURES`) as ``dtype``
    (``float32``: the arrays themselves, no copy). ``float16`` halves the cached features
    that are not 0/1 flags (the shards store those as ``uint8`` either way) and the rows
    held in memory; the network reads float32 (``FeatureTensors.of``), so only the
    rounding differs: relative error at most 2**-11 (values up to 65,504; the encoded
    features lie well inside)."""
    if dtype not in FEATURE_DTYPES:
        raise ActionDataError(f"feature dtype must be one of {FEATURE_DTYPES}, got {dtype!r}")
    arrays = {
        name: getattr(dataset.features, name).astype(dtype, copy=False) for name in COMPACT_FEATURES
    }
    return replace(dataset, features=replace(dataset.features, **arrays))


def _sized_fractions(moves: Int64s, amounts: Int64s, contexts: Floats, target: Int64s) -> Float32s:
    sized = (target >= FIRST_RAISE_CLASS) & (target < ALL_IN_CLASS)
    fraction = np.full(len(target), np.nan, dtype=np.float32)
    fraction[sized] = raise_fraction(amounts[sized], contexts[sized])
    return fraction


Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)``."""


def simulated_dataset(
    hands: SimulatedHands,
    source: RangeSource | None,
    *,
    hidden: str = "none",
    imputer: RangeSource | None = None,
    seed: int = 0,
    chunk_hands: int = 2000,
    progress: Progress | None = None,
) -> ActionDataset:
    """Training rows from simulated hands, with the exact pool policy of every row: the
    parts of :func:`simulated_parts` joined."""
    parts = list(
        simulated_parts(
            hands, source, hidden=hidden, imputer=imputer, seed=seed,
            chunk_hands=chunk_hands, progress=progress,
        )
    )  # fmt: skip
    if not parts:
        raise ActionDataError("no hands to build rows from")
    return join_same_players(parts)


def simulated_parts(
    hands: SimulatedHands,
    source: RangeSource | None,
    *,
    hidden: str = "none",
    imputer: RangeSource | None = None,
    seed: int = 0,
    chunk_hands: int = 2000,
    progress: Progress | None = None,
) -> Iterator[ActionDataset]:
    """Training rows from simulated hands, ``chunk_hands`` hands' worth at a time (a
    streamed run writes each to its shards and keeps none), with the exact pool policy of
    every row.

    ``hidden="none"``: every hole card is known (the simulator's truth). ``"showdown"``: as
    in mined histories, only cards shown at showdown are known and every other acting
    player's cards are imputed from ``imputer`` (default: ``source``) before the features
    are computed. The true policy is of the real cards, so rows with imputed cards get
    NaN there (score such a model on hands built with every card known).
    """
    if hidden not in ("none", "showdown"):
        raise ActionDataError(f"hidden must be 'none' or 'showdown', got {hidden!r}")
    rng = np.random.default_rng([seed, 7])
    pool = hands.pool
    logs = hands.action_logs()
    for start in range(0, len(hands), chunk_hands):
        stop = min(start + chunk_hands, len(hands))
        states, moves, amounts = simulated_states(hands, start, stop)
        holes = hands.hole_cards[start:stop].astype(np.int64)
        styles = hands.styles[start:stop]
        mixture, own = true_policies(pool, states, holes, styles)
        imputed = np.zeros(states.size, dtype=np.bool_)
        if hidden == "showdown":
            table = seen_boards(hand_slice(hands, logs, start, stop), hands.shown[start:stop])
            known = np.full_like(holes, -1)
            shown = hands.showed[start:stop]
            known[shown] = holes[shown]
            needed = np.zeros(holes.shape[:2], dtype=np.bool_)
            needed[states.hand, states.seat] = True
            drawn = impute_hole_cards(table, known, needed, imputer or source or _uniform(), rng)
            imputed = drawn.imputed[states.hand, states.seat]
            states = replace(states, hole=drawn.holes[states.hand, states.seat])
            mixture[imputed] = np.nan  # the truth is about the real cards, not the drawn ones
            own[imputed] = np.nan
        features = featurize(states, source)
        target = action_classes(moves, amounts, states.contexts)
        if progress is not None:
            progress(stop, len(hands))
        yield ActionDataset(
            features=features,
            target=target,
            hand_key=states.hand + start,
            player=hands.players[start:stop][states.hand, states.seat].astype(np.int64),
            player_ids=pool.player_names,
            imputed=imputed,
            fraction=_sized_fractions(moves, amounts, states.contexts, target),
            true_policy=mixture,
            style_policy=own,
        )


def join_same_players(parts: Sequence[ActionDataset]) -> ActionDataset:
    """Concatenate parts that share player ids and hand numbering (one part: itself)."""
    first = parts[0]
    if len(parts) == 1:
        return first
    return ActionDataset(
        features=DecisionFeatures.concatenate([p.features for p in parts]),
        target=np.concatenate([p.target for p in parts]),
        hand_key=np.concatenate([p.hand_key for p in parts]),
        player=np.concatenate([p.player for p in parts]),
        player_ids=first.player_ids,
        imputed=np.concatenate([p.imputed for p in parts]),
        fraction=np.concatenate([p.fraction for p in parts]),
        true_policy=np.concatenate([p.true_policy for p in parts]),
        style_policy=np.concatenate([p.style_policy for p in parts]),
    )


def _uniform() -> RangeSource:
    return UniformRanges()


def rows_dataset(
    frame: pl.DataFrame,
    source: RangeSource | None,
    *,
    imputer: RangeSource | None = None,
    seed: int = 0,
    chunk: int = 0,
) -> tuple[ActionDataset, RowsReport]:
    """Training rows from ingested decision rows: hands rebuilt (:func:`rows_states`),
    hidden hole cards imputed from ``imputer`` (default ``source``, else uniform), features
    from ``source``. There is no true policy (NaN rows). Returns the dataset and what was
    kept, dropped and imputed.

    ``chunk`` numbers the imputation's random stream: chunk 0 (a whole frame) draws from
    ``(seed, 11)``, chunk k > 0 from ``(seed, 11, k)`` (:func:`rows_parts`)."""
    dataset, report = _rows_chunk(frame, source, imputer=imputer, seed=seed, chunk=chunk)
    if dataset is None:
        raise ActionDataError("no usable no-limit decision rows")
    return dataset, report


def _rows_chunk(
    frame: pl.DataFrame,
    source: RangeSource | None,
    *,
    imputer: RangeSource | None,
    seed: int,
    chunk: int,
) -> tuple[ActionDataset | None, RowsReport]:
    """:func:`rows_dataset`, with None for rows that give no usable hand."""
    groups, report = rows_states(frame)
    if not groups:
        return None, report
    rng = np.random.default_rng([seed, 11] if chunk == 0 else [seed, 11, chunk])
    parts = []
    for group in groups:
        states = group.states
        needed = np.zeros(group.known.shape[:2], dtype=np.bool_)
        needed[states.hand, states.seat] = True
        drawn = impute_hole_cards(
            states.hands, group.known, needed, imputer or source or _uniform(), rng
        )
        report.imputed_seats += int(drawn.imputed.sum())
        report.imputation_redraws += drawn.redraws
        report.imputation_sequential += drawn.sequential
        report.mucked_seats += drawn.mucked
        report.muck_fallbacks += drawn.muck_fallbacks
        states = replace(states, hole=drawn.holes[states.hand, states.seat])
        target = action_classes(group.moves, group.amounts, states.contexts)
        nan = np.full((states.size, N_CLASSES), np.nan, dtype=np.float32)
        parts.append(
            ActionDataset(
                features=featurize(states, source),
                target=target,
                hand_key=states.hand,
                player=group.players[states.hand, states.seat],
                player_ids=group.player_ids,
                imputed=drawn.imputed[states.hand, states.seat],
                fraction=_sized_fractions(group.moves, group.amounts, states.contexts, target),
                true_policy=nan,
                style_policy=nan.copy(),
            )
        )
    return ActionDataset.concatenate(parts), report


ROW_COLUMNS = (
    "site", "hand_id", "action_index", "betting", "players", "small_blind", "big_blind",
    "ante", "seat", "position", "player_id", "action", "amount", "raise_to", "to_call",
    "pot", "stack", "street", "board", "hole_cards",
)  # fmt: skip
"""The columns of the ingested rows that rebuilding hands reads (:func:`rows_states`)."""


def rows_parts(
    folder: Path,
    source: RangeSource | None,
    *,
    imputer: RangeSource | None = None,
    seed: int = 0,
    chunk_hands: int = 2000,
    report: RowsReport | None = None,
    progress: Progress | None = None,
) -> Iterator[ActionDataset]:
    """Training rows from a ``poolshark ingest`` folder, ``chunk_hands`` hands at a time
    (:func:`rows_dataset` on each chunk; a streamed run writes each to its shards and keeps
    none), so memory is bounded by the chunk and the largest Parquet part, not the rows.

    The chunks are :func:`~poolshark.histories.ingest.hand_chunk_frames`' (only
    :data:`ROW_COLUMNS`): a hand is never split. Player indices point into one list for
    every part, the sorted ids of every no-limit row; hand keys run on across chunks.
    Chunk k imputes from its own random stream (:func:`rows_dataset`), so with one chunk
    the rows are :func:`rows_dataset`'s of the whole frame exactly, and with several they
    differ from them only in the cards drawn for hidden seats and the row order (hands by
    game within each chunk). ``report`` is filled with the counts of every chunk (their
    sums: the whole frame's, imputation redraws aside). ``progress(rows read, rows)``.
    """
    if chunk_hands < 1:
        raise ActionDataError(f"chunk_hands must be at least 1, got {chunk_hands}")
    files = row_files(folder)
    if not files:
        raise ActionDataError(f"{str(folder)!r} holds no decision rows")
    scan = pl.scan_parquet(files)
    total = int(scan.select(pl.len()).collect().item())
    names = (
        scan.filter(pl.col("betting") == "no-limit")
        .select(pl.col("player_id").unique())
        .collect()
        .to_series()
    )
    known = np.unique(names.to_numpy().astype(str))  # sorted as searchsorted needs
    player_ids = tuple(str(name) for name in known)
    report = report if report is not None else RowsReport()
    chunk = offset = read = 0
    for part in hand_chunk_frames(folder, chunk_hands, ROW_COLUMNS):
        dataset, counts = _rows_chunk(part, source, imputer=imputer, seed=seed, chunk=chunk)
        chunk += 1
        report.add(counts)
        read += part.height
        if progress is not None:
            progress(read, total)
        if dataset is None or not dataset.size:
            continue
        mapping = np.searchsorted(known, np.array(dataset.player_ids, dtype=str))
        yield replace(
            dataset,
            hand_key=dataset.hand_key + offset,
            player=mapping[dataset.player],
            player_ids=player_ids,
        )
        offset += int(dataset.hand_key.max()) + 1
