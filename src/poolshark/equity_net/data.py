"""True equities for the equity network: our two cards against every opponent combo.

A *sample* is two hole cards and a board of 3, 4 or 5 cards. Its target is a row of 1,326
equities, one per opponent combo in the canonical combo order, exact over every runout of
the board; combos that share a card with the hole cards or the board are impossible and
masked out.

The compiled kernel does far less work than 1,326 separate equity calls. With ``m`` cards
left in the deck, an opponent combo {a, b} and a runout {c, d} together are a 4-subset of
the deck, and the opponent's seven cards are the board plus that subset whichever way it is
split. So one evaluation per 4-subset (C(47, 4) = 178,365 on a flop) serves all six ways to
split it into (combo, runout), each compared with our own value on that runout (evaluated
once per runout). Turns work the same with 3-subsets, rivers with pairs.

Dataset file (``.npz``, uncompressed, written atomically), ``n`` samples:

* ``format``: the string :data:`DATASET_FORMAT`.
* ``hole``: uint8 (n, 2), our cards, ascending.
* ``board``: uint8 (n, 5), the board ascending, then :data:`NO_CARD` in unused slots.
* ``equity``: float16 (n, 1326), our equity against each combo; 0 where impossible.
* ``mask_bits``: uint8 (n, 166), ``np.packbits`` of the (n, 1326) possible-combo mask.
* ``seed`` (int), ``street_mix`` (3 floats: flop, turn, river) and ``fingerprint`` (a
  SHA-256 of the arrays above), so a trained model can name the data it saw.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from math import comb
from pathlib import Path

import numba as nb
import numpy as np
import numpy.typing as npt

from poolshark.cards.card import N_CARDS, check_disjoint
from poolshark.cards.combos import COMBO_CARDS, COMBO_INDEX, N_COMBOS, combo_index
from poolshark.cards.evaluator import KEY_INIT, numba_threads, tables, value_of
from poolshark.cards.ranges import Range
from poolshark.equity.exact import exact_equity

DATASET_FORMAT = "poolshark-equity-v1"
NO_CARD = 255
"""Board slot filler for cards not dealt yet (turn and river of a flop sample)."""
BOARD_SIZES = (3, 4, 5)
DEFAULT_STREET_MIX = (1 / 3, 1 / 3, 1 / 3)
"""Fractions of flop, turn and river samples unless told otherwise."""
CHUNK_SAMPLES = 512
"""Samples per compiled call, so the progress bar moves between calls."""

Int64s = npt.NDArray[np.int64]
Int32s = npt.NDArray[np.int32]
UInt8s = npt.NDArray[np.uint8]
UInt16s = npt.NDArray[np.uint16]
Float32s = npt.NDArray[np.float32]
Bools = npt.NDArray[np.bool_]
Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` with counts of samples."""


class EquityDataError(ValueError):
    """A sample or dataset file that cannot be used: the message says what is wrong."""


@nb.njit(inline="always")
def _score(ours: np.uint16, theirs: np.uint16) -> np.int32:
    """Twice our pot share on one runout: 2 for a win, 1 for a tie, 0 for a loss."""
    return np.int32(ours > theirs) + np.int32(ours >= theirs)


@nb.njit(cache=True, nogil=True)
def _score_sample(
    hole: UInt8s,
    board: UInt8s,
    card_key: Int64s,
    card_mask: Int64s,
    row_base: Int32s,
    rank_table: UInt16s,
    flush_table: UInt16s,
    combo_index: npt.NDArray[np.int16],
    out: UInt16s,
) -> None:
    """Fill ``out`` (1326,) with twice our wins plus ties, summed over every runout.

    ``board`` holds only the dealt cards. Impossible combos get 0. Pairs of deck positions
    (i, j) accumulate in an (m, m) matrix so that the innermost loops run over contiguous
    memory and vectorize.
    """
    used = np.zeros(52, dtype=np.bool_)
    board_key = np.int64(KEY_INIT)
    board_mask = np.int64(0)
    for c in board:
        used[c] = True
        board_key += card_key[c]
        board_mask |= card_mask[c]
    our_key = board_key
    our_mask = board_mask
    for c in hole:
        used[c] = True
        our_key += card_key[c]
        our_mask |= card_mask[c]
    deck = np.flatnonzero(~used)
    m = deck.size
    keys = np.empty(m, dtype=np.int64)
    masks = np.empty(m, dtype=np.int64)
    for i in range(m):
        keys[i] = card_key[deck[i]]
        masks[i] = card_mask[deck[i]]
    acc = np.zeros((m, m), dtype=np.int32)
    if board.size == 5:
        ours = value_of(our_key, our_mask, row_base, rank_table, flush_table)
        for i in range(m - 1):
            k1 = board_key + keys[i]
            m1 = board_mask | masks[i]
            for j in range(i + 1, m):
                theirs = value_of(k1 + keys[j], m1 | masks[j], row_base, rank_table, flush_table)
                acc[i, j] = _score(ours, theirs)
    elif board.size == 4:
        hero = np.empty(m, dtype=np.uint16)  # our value when the river is deck[r]
        for r in range(m):
            hero[r] = value_of(
                our_key + keys[r], our_mask | masks[r], row_base, rank_table, flush_table
            )
        for i in range(m - 2):
            k1 = board_key + keys[i]
            m1 = board_mask | masks[i]
            for j in range(i + 1, m - 1):
                k2 = k1 + keys[j]
                m2 = m1 | masks[j]
                s_ij = np.int32(0)
                for k in range(j + 1, m):
                    v = value_of(k2 + keys[k], m2 | masks[k], row_base, rank_table, flush_table)
                    s_ij += _score(hero[k], v)  # combo (i, j), river k
                    acc[i, k] += _score(hero[j], v)  # combo (i, k), river j
                    acc[j, k] += _score(hero[i], v)  # combo (j, k), river i
                acc[i, j] += s_ij
    else:
        hero2 = np.zeros((m, m), dtype=np.uint16)  # our value on the runout {deck[r], deck[s]}
        for r in range(m - 1):
            for s in range(r + 1, m):
                v = value_of(
                    our_key + keys[r] + keys[s],
                    our_mask | masks[r] | masks[s],
                    row_base,
                    rank_table,
                    flush_table,
                )
                hero2[r, s] = v
        for i in range(m - 3):
            k1 = board_key + keys[i]
            m1 = board_mask | masks[i]
            for j in range(i + 1, m - 2):
                k2 = k1 + keys[j]
                m2 = m1 | masks[j]
                h_ij = hero2[i, j]
                s_ij = np.int32(0)
                for k in range(j + 1, m - 1):
                    k3 = k2 + keys[k]
                    m3 = m2 | masks[k]
                    h_ik = hero2[i, k]
                    h_jk = hero2[j, k]
                    s_ik = np.int32(0)
                    s_jk = np.int32(0)
                    row_i = acc[i]
                    row_j = acc[j]
                    row_k = acc[k]
                    for ll in range(k + 1, m):
                        v = value_of(
                            k3 + keys[ll], m3 | masks[ll], row_base, rank_table, flush_table
                        )
                        s_ij += _score(hero2[k, ll], v)  # combo (i, j), runout (k, l)
                        s_ik += _score(hero2[j, ll], v)  # combo (i, k), runout (j, l)
                        s_jk += _score(hero2[i, ll], v)  # combo (j, k), runout (i, l)
                        row_i[ll] += _score(h_jk, v)  # combo (i, l), runout (j, k)
                        row_j[ll] += _score(h_ik, v)  # combo (j, l), runout (i, k)
                        row_k[ll] += _score(h_ij, v)  # combo (k, l), runout (i, j)
                    acc[i, k] += s_ik
                    acc[j, k] += s_jk
                acc[i, j] += s_ij
    out[:] = 0
    for i in range(m - 1):
        for j in range(i + 1, m):
            out[combo_index[deck[i], deck[j]]] = np.uint16(acc[i, j])


@nb.njit(cache=True, nogil=True, parallel=True)
def _score_samples(
    holes: UInt8s,
    boards: UInt8s,
    sizes: UInt8s,
    card_key: Int64s,
    card_mask: Int64s,
    row_base: Int32s,
    rank_table: UInt16s,
    flush_table: UInt16s,
    combo_index: npt.NDArray[np.int16],
    out: UInt16s,
) -> None:
    """:func:`_score_sample` for every row, in parallel; each row is independent."""
    for a in nb.prange(holes.shape[0]):
        _score_sample(
            holes[a],
            boards[a, : sizes[a]],
            card_key,
            card_mask,
            row_base,
            rank_table,
            flush_table,
            combo_index,
            out[a],
        )


def runouts_per_combo(board_size: int) -> int:
    """How many runouts each possible opponent combo is scored over (990, 44 or 1)."""
    left = N_CARDS - 2 - board_size - 2
    return comb(left, 5 - board_size)


def _check_samples(holes: npt.ArrayLike, boards: npt.ArrayLike) -> tuple[UInt8s, UInt8s, UInt8s]:
    """Validate (n, 2) hole cards and (n, 5) boards padded with NO_CARD; (holes, boards, sizes)."""
    hole = np.asarray(holes)
    board = np.asarray(boards)
    if hole.ndim != 2 or hole.shape[1] != 2:
        raise EquityDataError(f"hole cards must be an (n, 2) array, got shape {hole.shape}")
    if board.ndim != 2 or board.shape != (hole.shape[0], 5):
        raise EquityDataError(
            f"boards must be an (n, 5) array padded with {NO_CARD}, got shape {board.shape}"
            f" for {hole.shape[0]} hole-card rows"
        )
    for name, array in (("hole cards", hole), ("boards", board)):
        if array.size and array.dtype.kind not in "iu":
            raise EquityDataError(f"{name} must be integer card indices, got dtype {array.dtype}")
    hole = hole.astype(np.int64)
    board = board.astype(np.int64)
    dealt = board != NO_CARD
    sizes = dealt.sum(axis=1)
    if hole.size and (hole.min() < 0 or hole.max() >= N_CARDS):
        raise EquityDataError("hole cards must be card indices 0..51")
    if board.size and (board.min() < 0 or board[dealt].max(initial=0) >= N_CARDS):
        raise EquityDataError(f"board cards must be card indices 0..51 or {NO_CARD} (none)")
    bad_size = ~np.isin(sizes, BOARD_SIZES)
    if bad_size.any():
        row = int(np.flatnonzero(bad_size)[0])
        raise EquityDataError(f"row {row}: a board has 3, 4 or 5 cards, got {int(sizes[row])}")
    if (dealt[:, :-1] < dealt[:, 1:]).any():
        raise EquityDataError(f"boards must list dealt cards first, then {NO_CARD}")
    cards = np.concatenate([hole, np.where(dealt, board, -1 - np.arange(5))], axis=1)
    ordered = np.sort(cards, axis=1)
    repeated = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    if repeated.any():
        raise EquityDataError(f"row {int(np.flatnonzero(repeated)[0])}: a card is dealt twice")
    return hole.astype(np.uint8), board.astype(np.uint8), sizes.astype(np.uint8)


def combo_mask(holes: npt.ArrayLike, boards: npt.ArrayLike) -> Bools:
    """(n, 1326) True where an opponent combo shares no card with the hole cards or board."""
    hole, board, _ = _check_samples(holes, boards)
    dead = np.zeros((hole.shape[0], N_CARDS + 1), dtype=np.bool_)
    rows = np.arange(hole.shape[0])[:, None]
    dead[rows, hole] = True
    dead[rows, np.minimum(board, N_CARDS)] = True
    dead = dead[:, :N_CARDS]
    return ~(dead[:, COMBO_CARDS[:, 0]] | dead[:, COMBO_CARDS[:, 1]])


SCORE_DENOMINATORS = np.array([2 * runouts_per_combo(s) for s in range(6)], dtype=np.float32)
"""Per number of board cards: what a combo's score (twice wins plus ties over its runouts)
is divided by to give the equity (1,980 on a flop, 88 on a turn, 2 on a river)."""


def true_scores(
    holes: npt.ArrayLike, boards: npt.ArrayLike, *, threads: int | None = 1
) -> tuple[UInt16s, UInt8s]:
    """Twice the wins plus the ties of each row's hole cards against all 1,326 combos,
    summed over every runout (0 where impossible), and each row's number of board cards:
    the exact integers :func:`true_equities` divides by :data:`SCORE_DENOMINATORS`."""
    hole, board, sizes = _check_samples(holes, boards)
    scores = np.empty((hole.shape[0], N_COMBOS), dtype=np.uint16)
    if hole.shape[0]:
        with numba_threads(threads):
            _score_samples(hole, board, sizes, *tables(), COMBO_INDEX, scores)
    return scores, sizes


def true_equities(
    holes: npt.ArrayLike, boards: npt.ArrayLike, *, threads: int | None = 1
) -> tuple[Float32s, Bools]:
    """Exact equity of each row's hole cards against all 1,326 combos, and the possible mask.

    ``holes`` is (n, 2), ``boards`` (n, 5) with dealt cards first and :data:`NO_CARD` after.
    Impossible combos get equity 0 and mask False. ``threads``: cores (None for all); the
    result does not depend on it.
    """
    scores, sizes = true_scores(holes, boards, threads=threads)
    equity = scores.astype(np.float32) / SCORE_DENOMINATORS[sizes][:, None]
    return equity, combo_mask(holes, boards)


def reference_equities(
    hole: Sequence[int], board: Sequence[int], combos: Sequence[int]
) -> list[float | None]:
    """Equity of ``hole`` against each listed combo by plain exact enumeration (slow).

    The readable reference for :func:`true_equities`: one ``exact_equity`` call per combo;
    None where the combo collides with the hole cards or the board.
    """
    if len(hole) != 2:
        raise EquityDataError(f"hole cards are 2 cards, got {len(hole)}")
    if len(board) not in BOARD_SIZES:
        raise EquityDataError(f"a board has 3, 4 or 5 cards, got {len(board)}")
    check_disjoint(hole, board)
    ours = Range.of_combos([combo_index(hole[0], hole[1])])
    result: list[float | None] = []
    for combo in combos:
        cards = COMBO_CARDS[combo].tolist()
        if set(cards) & {*hole, *board}:
            result.append(None)
            continue
        theirs = Range.of_combos([int(combo)])
        result.append(exact_equity([ours, theirs], board, threads=1).equities[0])
    return result


def random_samples(
    n: int, seed: int, street_mix: Sequence[float] = DEFAULT_STREET_MIX
) -> tuple[UInt8s, UInt8s]:
    """``n`` uniformly dealt (hole, board) samples; board sizes 3/4/5 drawn by ``street_mix``.

    Returns ``holes`` (n, 2) and ``boards`` (n, 5), each sorted ascending, boards padded
    with :data:`NO_CARD`. Reproducible from ``seed``.
    """
    mix = np.asarray(street_mix, dtype=np.float64)
    if n < 0:
        raise EquityDataError(f"the number of samples must be >= 0, got {n}")
    if mix.shape != (3,) or (mix < 0).any() or not np.isfinite(mix).all() or mix.sum() <= 0:
        raise EquityDataError(
            f"street_mix must be 3 non-negative weights (flop, turn, river), got {list(mix)}"
        )
    rng = np.random.default_rng(seed)
    deals = np.argsort(rng.random((n, N_CARDS)), axis=1)[:, :7].astype(np.uint8)
    sizes = rng.choice(np.array(BOARD_SIZES), size=n, p=mix / mix.sum())
    holes = np.sort(deals[:, :2], axis=1)
    boards = np.where(np.arange(5)[None, :] < sizes[:, None], deals[:, 2:], NO_CARD)
    return holes, np.sort(boards, axis=1).astype(np.uint8)


def random_sample_chunks(
    n: int, seed: int, street_mix: Sequence[float] = DEFAULT_STREET_MIX, chunk: int = 4096
) -> Iterator[tuple[UInt8s, UInt8s]]:
    """The samples of :func:`random_samples` (the same ones, in order) ``chunk`` at a time,
    so that dealing millions never holds a full (n, 52) draw. Each chunk's draws are found
    by advancing the generator to where the one-shot call takes them: one 64-bit step per
    uniform double, the (n, 52) card draws first, then one double per board size."""
    mix = np.asarray(street_mix, dtype=np.float64)
    random_samples(min(n, 0), seed, street_mix)  # its checks of n and the mix, nothing dealt
    for start in range(0, n, chunk):
        count = min(chunk, n - start)
        cards = np.random.Generator(np.random.PCG64(seed).advance(start * N_CARDS))
        deals = np.argsort(cards.random((count, N_CARDS)), axis=1)[:, :7].astype(np.uint8)
        streets = np.random.Generator(np.random.PCG64(seed).advance(n * N_CARDS + start))
        sizes = streets.choice(np.array(BOARD_SIZES), size=count, p=mix / mix.sum())
        holes = np.sort(deals[:, :2], axis=1)
        boards = np.where(np.arange(5)[None, :] < sizes[:, None], deals[:, 2:], NO_CARD)
        yield holes, np.sort(boards, axis=1).astype(np.uint8)


@dataclass(frozen=True)
class EquityDataset:
    """Samples and their true equities, in memory (see the module docstring for the file)."""

    holes: UInt8s
    boards: UInt8s
    equity: npt.NDArray[np.float16]
    mask_bits: UInt8s
    seed: int
    street_mix: tuple[float, float, float]
    fingerprint: str

    def __len__(self) -> int:
        return int(self.holes.shape[0])

    @property
    def mask(self) -> Bools:
        """(n, 1326) possible-combo mask, unpacked from ``mask_bits`` on each access."""
        return np.unpackbits(self.mask_bits, axis=1, count=N_COMBOS).astype(np.bool_)

    @property
    def board_sizes(self) -> UInt8s:
        """(n,) number of dealt board cards per sample."""
        return np.asarray((self.boards != NO_CARD).sum(axis=1), dtype=np.uint8)


def fingerprint_of(
    holes: UInt8s, boards: UInt8s, equity: npt.NDArray[np.float16], mask_bits: UInt8s
) -> str:
    """SHA-256 over the sample and target arrays: the identity of a dataset's content."""
    digest = hashlib.sha256(DATASET_FORMAT.encode())
    arrays: tuple[npt.NDArray[np.generic], ...] = (holes, boards, equity, mask_bits)
    for array in arrays:
        digest.update(f"{array.dtype.str}{array.shape};".encode())
        for start in range(0, array.shape[0], 1 << 16):  # in blocks: no full-size copy
            digest.update(np.ascontiguousarray(array[start : start + (1 << 16)]).tobytes())
    return digest.hexdigest()


def generate_dataset(
    n: int,
    seed: int,
    *,
    street_mix: Sequence[float] = DEFAULT_STREET_MIX,
    threads: int | None = None,
    progress: Progress | None = None,
) -> EquityDataset:
    """``n`` random samples with exact equities; equal for equal ``seed`` and ``street_mix``."""
    holes, boards = random_samples(n, seed, street_mix)
    equity = np.empty((n, N_COMBOS), dtype=np.float16)
    mask_bits = np.empty((n, (N_COMBOS + 7) // 8), dtype=np.uint8)
    for start in range(0, n, CHUNK_SAMPLES):
        rows = slice(start, min(start + CHUNK_SAMPLES, n))
        chunk_equity, chunk_mask = true_equities(holes[rows], boards[rows], threads=threads)
        equity[rows] = chunk_equity
        mask_bits[rows] = np.packbits(chunk_mask, axis=1)
        if progress is not None:
            progress(rows.stop, n)
    mix = np.asarray(street_mix, dtype=np.float64)
    flop, turn, river = (float(x) for x in mix / mix.sum())
    return EquityDataset(
        holes=holes,
        boards=boards,
        equity=equity,
        mask_bits=mask_bits,
        seed=seed,
        street_mix=(flop, turn, river),
        fingerprint=fingerprint_of(holes, boards, equity, mask_bits),
    )


def save_dataset(dataset: EquityDataset, path: Path) -> Path:
    """Write ``dataset`` to ``path`` (.npz) atomically: a temp file beside it, then a rename."""
    path = Path(path)
    if path.suffix != ".npz":
        raise EquityDataError(f"dataset files end in .npz, got {str(path)!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as tmp:
        try:
            np.savez(
                tmp,
                format=np.array(DATASET_FORMAT),
                hole=dataset.holes,
                board=dataset.boards,
                equity=dataset.equity,
                mask_bits=dataset.mask_bits,
                seed=np.array(dataset.seed, dtype=np.int64),
                street_mix=np.array(dataset.street_mix, dtype=np.float64),
                fingerprint=np.array(dataset.fingerprint),
            )
        except BaseException:
            tmp.close()
            os.unlink(tmp.name)
            raise
    os.chmod(tmp.name, 0o644)  # temp files are private; a dataset is an ordinary file
    os.replace(tmp.name, path)
    return path


def load_dataset(path: Path) -> EquityDataset:
    """Read a dataset written by :func:`save_dataset`; errors name the file and the problem."""
    path = Path(path)
    if not path.is_file():
        raise EquityDataError(f"no dataset file at {str(path)!r}")
    try:
        with np.load(path, allow_pickle=False) as data:
            if "format" not in data.files or str(data["format"]) != DATASET_FORMAT:
                raise EquityDataError(f"{str(path)!r} is not a {DATASET_FORMAT} dataset file")
            holes = data["hole"]
            boards = data["board"]
            equity = data["equity"]
            mask_bits = data["mask_bits"]
            seed = int(data["seed"])
            mix = tuple(float(x) for x in data["street_mix"])
            fingerprint = str(data["fingerprint"])
    except (OSError, KeyError, ValueError) as error:
        if isinstance(error, EquityDataError):
            raise
        raise EquityDataError(f"cannot read dataset {str(path)!r}: {error}") from None
    n = holes.shape[0]
    shapes = (boards.shape, equity.shape, mask_bits.shape, len(mix))
    if shapes != ((n, 5), (n, N_COMBOS), (n, (N_COMBOS + 7) // 8), 3):
        raise EquityDataError(f"{str(path)!r} has inconsistent array shapes")
    return EquityDataset(
        holes=holes.astype(np.uint8, copy=False),
        boards=boards.astype(np.uint8, copy=False),
        equity=equity.astype(np.float16, copy=False),
        mask_bits=mask_bits.astype(np.uint8, copy=False),
        seed=seed,
        street_mix=(mix[0], mix[1], mix[2]),
        fingerprint=fingerprint,
    )
