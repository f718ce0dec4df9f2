"""Hand histories to decision rows, hands per second per core, next to PokerKit's PHH reader.

Run from the repository root::

    python benchmarks/ingest.py [--quick] [--json]

Input: the real PHH sample (``shared/data/handhq-ps25``, 2,986 hands in three files;
``--quick``: its first file, 991 hands) and the same hands written as PokerStars text by
our writer, one file per sample file (PokerStars text cannot show a few of them: a
live post below the big blind out of position). Every figure is one process, the best of
three runs (two with ``--quick``), after a warm-up that loads the compiled code. Rates
are hands per CPU-second of this process, all its threads counted (polars builds frames
on several), so they mean "per core" even on a busy shared machine.

The fast path (what ``poolshark ingest`` runs, ``histories.fast``): files are split into
blocks of whole hands, each block read by a compiled byte-level reader into flat arrays,
followed by the compiled row pass (order of play, amounts, raise sizes, all-in marks) and,
"checked", the compiled settlement check (board, pot, rake, winnings by the engine's pot
rules); the frame is built from the arrays. A hand any compiled stage does not take goes
through the plain path instead (the Python reader, the engine replay, the row builder on
its record): ``fallbacks`` counts them. "unchecked" skips the settlement (and the engine
replay on the plain path), as ``ingest --no-replay`` does.

The plain path alone is timed too (``plain_*``): ``read_hands`` + ``parse_hand``, the
engine replay, ``build_rows``. PokerKit 0.7.7 is timed on the same PHH hands:
``HandHistory.loads`` on each hand's text (its ``[n]`` header removed), and replay as
iterating the loaded history's states.

The last line printed is one JSON object with these keys (rates in hands per second):

* ``phh_to_rows_per_s``, ``pokerstars_to_rows_per_s``: text to rows by the fast path,
  checked (the default of ingestion), per core.
* ``phh_to_rows_unchecked_per_s``, ``pokerstars_to_rows_unchecked_per_s``: without the
  settlement check.
* ``fallbacks_phh``, ``fallbacks_pokerstars``: hands the fast path handed to the plain
  path (checked run), by stage; ``fast_phh``, ``fast_pokerstars``: hands it judged alone.
* ``us_split``, ``us_read_phh``, ``us_read_pokerstars``, ``us_track``, ``us_settle``,
  ``us_keys``, ``us_frame``: microseconds per hand of each fast stage (PHH but the readers).
* ``plain_phh_to_rows_per_s``, ``plain_pokerstars_to_rows_per_s``: the plain path, text to
  rows without the replay; ``plain_phh_to_rows_replayed_per_s``,
  ``plain_pokerstars_to_rows_replayed_per_s``: with it; ``plain_phh_parse_per_s``,
  ``plain_pokerstars_parse_per_s``, ``replay_per_s``, ``rows_per_s``: its stages.
* ``ingest_per_s``: ``ingest(..., workers=1)`` of the PHH files into a fresh folder (fast
  path, duplicates, quarantine, Parquet parts).
* ``pokerkit_loads_per_s``, ``pokerkit_replay_per_s``: PokerKit on the same PHH hands
  (replay on a prefix of at most 500 hands, 200 with ``--quick``).
* ``ratio_phh_to_rows_vs_pokerkit_loads``, ``ratio_pokerstars_to_rows_vs_pokerkit_loads``,
  ``ratio_phh_to_rows_vs_plain_replayed``: our rates over theirs.
* ``rows_per_hand``; ``rows_match_plain``: the fast path's rows equal the plain path's;
  ``rows_match_pokerkit``: every hand has as many rows as PokerKit counts fold,
  check/call and bet/raise actions.
* ``target_per_core``: 50,000; ``target_met``: both checked text-to-rows rates reach it.
* ``pokerkit_file_to_rows_per_s``, ``pokerkit_file_loads_per_s``,
  ``ratio_pokerkit_file_to_rows_vs_loads``: a file PokerKit wrote (``hands_pokerkit_file``
  random hands of ``histories.referee``, seed 1: no-limit and fixed-limit, 2-10 seats,
  antes, straddles, short stacks, unknown cards, half without hand ids, half with
  ``finishing_stacks``; 4,000 hands, 1,000 with ``--quick``): our fast path to rows,
  checked, whole file (the hands it hands over included), and PokerKit's ``loads`` on the
  same hands. ``pokerkit_file_fast_hands_to_rows_per_s``,
  ``pokerkit_file_fast_hands_loads_per_s``, ``ratio_pokerkit_file_fast_hands_vs_loads``:
  the same on a file of only the ``hands_pokerkit_file_fast`` hands the fast path judges
  alone. ``pokerkit_file_fast_share``; ``pokerkit_file_plain_us_per_hand``: CPU
  microseconds per hand handed over (from the two rates); ``fallbacks_pokerkit_file``,
  ``rejected_pokerkit_file`` (by reason), ``variants_pokerkit_file`` (hands per variant
  list); ``pokerkit_file_target_met``, ``pokerkit_file_fast_hands_target_met``: the two
  rates reach ``target_per_core``.
* ``hands_phh``, ``hands_pokerstars``, ``hands_pokerkit_replay``; ``quick``.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path

from pokerkit import HandHistory
from polars.testing import assert_frame_equal

from common import emit, parse_args, print_table
from poolshark.histories.fast import file_rows, hand_key, judge_hands
from poolshark.histories.fast_phh import read_phh
from poolshark.histories.fast_pokerstars import read_pokerstars
from poolshark.histories.fast_split import Block, read_blocks
from poolshark.histories.ingest import ingest
from poolshark.histories.pokerstars import write_pokerstars
from poolshark.histories.record import HandRecord, HistoryError
from poolshark.histories.referee import phhs_text, pokerkit_hands
from poolshark.histories.replay import judge
from poolshark.histories.rows import build_rows, rows_frame, track
from poolshark.histories.settle import settle
from poolshark.histories.split import RawHand, parse_hand, read_hands

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "data" / "handhq-ps25"
TARGET = 50_000


def rate(hands: int, fn: Callable[[], object], repeats: int) -> float:
    """Hands per CPU-second of ``fn``, the best of ``repeats`` runs."""
    best = float("inf")
    for _ in range(max(1, repeats)):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return hands / best


def per_hand_us(hands: int, fn: Callable[[], object], repeats: int) -> float:
    """CPU microseconds per hand of ``fn``, the best of ``repeats`` runs."""
    return 1e6 / rate(hands, fn, repeats)


def fast_rows(paths: list[Path], *, check: bool) -> int:
    """Text to rows by the fast path; the rows."""
    return sum(file_rows(path, check=check).frame.height for path in paths)


def plain_rows(paths: list[Path], *, replayed: bool) -> int:
    """Text to rows by the plain path (with the engine replay: ``judge``); the rows."""
    records = []
    for path in paths:
        for raw in read_hands(path):
            record = parse_hand(raw)
            if replayed:
                try:
                    record = judge(record).record
                except HistoryError:
                    continue
            records.append(record)
    return build_rows(records).frame.height


def split_all(paths: list[Path]) -> list[RawHand]:
    return [raw for path in paths for raw in read_hands(path)]


def blocks_of(paths: list[Path]) -> list[Block]:
    return [block for path in paths for block in read_blocks(path)]


def pokerkit_actions(history: HandHistory) -> int:
    """Voluntary actions in a PokerKit history: folds, checks/calls, bets/raises."""
    return sum(1 for action in history.actions if action.split()[1] in ("f", "cc", "cbr"))


def replay_pokerkit(histories: list[HandHistory]) -> None:
    for history in histories:
        for _ in history:
            pass


def write_pokerstars_files(records_by_file: list[list[HandRecord]], folder: Path) -> list[Path]:
    """Each file's hands as PokerStars text (those the format can show)."""
    paths = []
    for number, records in enumerate(records_by_file, 1):
        written = []
        for record in records:
            try:
                written.append(write_pokerstars(record))
            except ValueError:
                continue
        path = folder / f"ps25_{number}.txt"
        path.write_text("\n\n".join(written))
        paths.append(path)
    return paths


def stage_costs(phh_files: list[Path], stars_files: list[Path], repeats: int) -> dict[str, float]:
    """Microseconds per hand of each fast stage, on the first file's first block."""
    block = next(read_blocks(phh_files[0]))
    stars = next(read_blocks(stars_files[0]))
    n = block.hands
    arrays, _ = read_phh(block, 0, n)
    tracked = track(arrays)
    sites = arrays.site.to_pylist()
    ids = arrays.hand_id.to_pylist()
    return {
        "us_split": per_hand_us(n, lambda: list(read_blocks(phh_files[0])), repeats),
        "us_read_phh": per_hand_us(n, lambda: read_phh(block, 0, n), 3),
        "us_read_pokerstars": per_hand_us(
            stars.hands, lambda: read_pokerstars(stars, 0, stars.hands), 3
        ),
        "us_track": per_hand_us(n, lambda: track(arrays), 3),
        "us_settle": per_hand_us(n, lambda: settle(arrays, tracked), 3),
        "us_keys": per_hand_us(
            n, lambda: [hand_key(s, h) for s, h in zip(sites, ids, strict=True)], 3
        ),
        "us_frame": per_hand_us(n, lambda: rows_frame(arrays, tracked), 3),
    }


def pokerkit_file_figures(work: Path, hands: int, repeats: int) -> dict[str, object]:
    """A file PokerKit wrote (random hands of ``histories.referee``): our fast path to rows,
    checked, on the whole file and on the hands it judges alone, beside PokerKit's
    ``HandHistory.loads`` on the same hands; where the others go and what they cost."""
    made = pokerkit_hands(hands, seed=1)
    texts = [h.text for h in made]
    path = work / "pokerkit.phhs"
    path.write_text(phhs_text(texts))
    result = file_rows(path)  # also the warm-up
    ours = rate(len(texts), lambda: fast_rows([path], check=True), repeats)
    theirs = rate(len(texts), lambda: [HandHistory.loads(t) for t in texts], repeats)
    alone_texts = [t for t, fast in zip(texts, fast_hands(path), strict=True) if fast]
    alone = work / "pokerkit-fast.phhs"
    alone.write_text(phhs_text(alone_texts))
    ours_alone = rate(len(alone_texts), lambda: fast_rows([alone], check=True), repeats)
    theirs_alone = rate(
        len(alone_texts), lambda: [HandHistory.loads(t) for t in alone_texts], repeats
    )
    plain = len(texts) - len(alone_texts)
    plain_us = (1 / ours - len(alone_texts) / len(texts) / ours_alone) * len(texts) / plain * 1e6
    return {
        "pokerkit_file_to_rows_per_s": ours,
        "pokerkit_file_loads_per_s": theirs,
        "ratio_pokerkit_file_to_rows_vs_loads": ours / theirs,
        "pokerkit_file_fast_hands_to_rows_per_s": ours_alone,
        "pokerkit_file_fast_hands_loads_per_s": theirs_alone,
        "ratio_pokerkit_file_fast_hands_vs_loads": ours_alone / theirs_alone,
        "pokerkit_file_plain_us_per_hand": plain_us if plain else 0.0,
        "pokerkit_file_fast_share": result.fast / len(texts),
        "fallbacks_pokerkit_file": dict(result.fallbacks),
        "rejected_pokerkit_file": dict(result.rejected),
        "variants_pokerkit_file": dict(
            result.frame.unique("hand_id")["variants"].drop_nulls().value_counts().iter_rows()
        ),
        "hands_pokerkit_file": len(texts),
        "hands_pokerkit_file_fast": len(alone_texts),
        "pokerkit_file_target_met": ours >= TARGET,
        "pokerkit_file_fast_hands_target_met": ours_alone >= TARGET,
    }


def fast_hands(path: Path) -> list[bool]:
    """Per hand of a file, whether the fast path judged it alone."""
    return [
        bool(fast)
        for block in read_blocks(path)
        for fast in judge_hands(block, 0, block.hands).fast.tolist()
    ]


def main() -> None:
    """Measure, print the tables and the JSON line."""
    args = parse_args(__doc__.splitlines()[0])
    warnings.simplefilter("ignore")  # PokerKit warns about every hand's extra fields
    if not SAMPLE.is_dir():
        raise SystemExit(f"the real PHH sample is not here: {SAMPLE}")
    repeats = 2 if args.quick else 3
    phh_files = sorted(SAMPLE.glob("*.phhs"))[: 1 if args.quick else None]
    work = Path(tempfile.mkdtemp(prefix="poolshark-bench-"))
    try:
        records_by_file = [[parse_hand(raw) for raw in read_hands(p)] for p in phh_files]
        records = [r for rs in records_by_file for r in rs]
        stars_files = write_pokerstars_files(records_by_file, work)
        phh_raw = split_all(phh_files)
        stars_raw = split_all(stars_files)
        n_phh, n_stars = len(phh_raw), len(stars_raw)
        for check in (True, False):  # warm-up: load the compiled code
            fast_rows(phh_files[:1], check=check)
            fast_rows(stars_files[:1], check=check)
        build_rows(records[:50])

        figures: dict[str, float] = {}
        for key, paths, n in (("phh", phh_files, n_phh), ("pokerstars", stars_files, n_stars)):
            figures[f"{key}_to_rows_per_s"] = rate(
                n, partial(fast_rows, paths, check=True), repeats
            )
            figures[f"{key}_to_rows_unchecked_per_s"] = rate(
                n, partial(fast_rows, paths, check=False), repeats
            )
        figures |= stage_costs(phh_files, stars_files, repeats)

        figures["plain_phh_parse_per_s"] = rate(
            n_phh, lambda: [parse_hand(r) for r in phh_raw], repeats
        )
        figures["plain_pokerstars_parse_per_s"] = rate(
            n_stars, lambda: [parse_hand(r) for r in stars_raw], repeats
        )
        figures["replay_per_s"] = rate(n_phh, lambda: [replays(r) for r in records], repeats)
        figures["rows_per_s"] = rate(n_phh, lambda: build_rows(records), repeats)
        for key, paths, n in (("phh", phh_files, n_phh), ("pokerstars", stars_files, n_stars)):
            figures[f"plain_{key}_to_rows_per_s"] = rate(
                n, partial(plain_rows, paths, replayed=False), 1
            )
            figures[f"plain_{key}_to_rows_replayed_per_s"] = rate(
                n, partial(plain_rows, paths, replayed=True), 1
            )
        runs = iter(range(10))

        def ingest_once() -> None:
            ingest(phh_files, work / f"out{next(runs)}", workers=1)

        figures["ingest_per_s"] = rate(n_phh, ingest_once, repeats)

        bodies = [raw.text.split("\n", 1)[1] for raw in phh_raw]
        histories = [HandHistory.loads(body) for body in bodies]  # also the warm-up
        figures["pokerkit_loads_per_s"] = rate(
            n_phh, lambda: [HandHistory.loads(b) for b in bodies], repeats
        )
        prefix = histories[: 200 if args.quick else 500]
        figures["pokerkit_replay_per_s"] = rate(len(prefix), lambda: replay_pokerkit(prefix), 1)
        pokerkit_file = pokerkit_file_figures(work, 1000 if args.quick else 4000, repeats)

        counts: dict[str, object] = {}
        matches_plain = True
        for key, paths in (("phh", phh_files), ("pokerstars", stars_files)):
            fallbacks: Counter[str] = Counter()
            fast = 0
            for path in paths:
                result = file_rows(path)
                fallbacks.update(result.fallbacks)
                fast += result.fast
                plain = [judge(parse_hand(raw)).record for raw in read_hands(path)]
                try:
                    assert_frame_equal(result.frame, build_rows(plain).frame)
                except AssertionError:
                    matches_plain = False
            counts[f"fallbacks_{key}"] = {k: v for k, v in sorted(fallbacks.items()) if v}
            counts[f"fast_{key}"] = fast
        frame = build_rows(records).frame
    finally:
        shutil.rmtree(work, ignore_errors=True)

    per_hand = frame.group_by("hand_id").len()
    ours = dict(zip(per_hand["hand_id"].to_list(), per_hand["len"].to_list(), strict=True))
    matches_pokerkit = all(ours.get(str(h.hand), 0) == pokerkit_actions(h) for h in histories)
    loads = figures["pokerkit_loads_per_s"]
    figures |= {
        "ratio_phh_to_rows_vs_pokerkit_loads": figures["phh_to_rows_per_s"] / loads,
        "ratio_pokerstars_to_rows_vs_pokerkit_loads": figures["pokerstars_to_rows_per_s"] / loads,
        "ratio_phh_to_rows_vs_plain_replayed": figures["phh_to_rows_per_s"]
        / figures["plain_phh_to_rows_replayed_per_s"],
    }
    met = min(figures["phh_to_rows_per_s"], figures["pokerstars_to_rows_per_s"]) >= TARGET

    if not args.json:
        show(figures, counts, n_phh, n_stars, len(prefix), quick=args.quick)
        show_pokerkit_file(pokerkit_file, figures["phh_to_rows_per_s"])

    emit(
        {
            **figures,
            **counts,
            **pokerkit_file,
            "rows_per_hand": frame.height / len(records),
            "rows_match_plain": matches_plain,
            "rows_match_pokerkit": matches_pokerkit,
            "target_per_core": TARGET,
            "target_met": met,
            "hands_phh": n_phh,
            "hands_pokerstars": n_stars,
            "hands_pokerkit_replay": len(prefix),
            "quick": args.quick,
        }
    )


def replays(record: HandRecord) -> bool:
    """Whether the engine accepts the hand."""
    try:
        judge(record)
    except HistoryError:
        return False
    return True


def show_pokerkit_file(figures: dict[str, object], sample_rate: float) -> None:
    """The table of the PokerKit-written file, beside the real sample's fast path."""
    hands = figures["hands_pokerkit_file"]
    alone = figures["hands_pokerkit_file_fast"]
    rows: list[list[object]] = [
        [
            "whole file, fast path to rows, checked",
            hands,
            figures["pokerkit_file_to_rows_per_s"],
            figures["pokerkit_file_loads_per_s"],
            figures["ratio_pokerkit_file_to_rows_vs_loads"],
        ],
        [
            "hands the fast path judges alone",
            alone,
            figures["pokerkit_file_fast_hands_to_rows_per_s"],
            figures["pokerkit_file_fast_hands_loads_per_s"],
            figures["ratio_pokerkit_file_fast_hands_vs_loads"],
        ],
        ["real PHH sample, fast path (same run)", "", sample_rate, "", ""],
    ]
    print_table(
        "PokerKit-written PHH (histories.referee), hands/s per core",
        ["input", "hands", "poolshark", "PokerKit loads", "ratio"],
        rows,
    )
    print(
        f"fast share {figures['pokerkit_file_fast_share']:.1%}; plain path"
        f" {figures['pokerkit_file_plain_us_per_hand']:,.0f} us per hand;"
        f" fallbacks {figures['fallbacks_pokerkit_file']};"
        f" rejected {figures['rejected_pokerkit_file']};"
        f" variants {figures['variants_pokerkit_file']}"
    )


def show(
    figures: dict[str, float],
    counts: dict[str, object],
    n_phh: int,
    n_stars: int,
    n_replay: int,
    *,
    quick: bool,
) -> None:
    """The readable tables."""

    def row(name: str, key: str, hands: int) -> list[object]:
        return [name, hands, figures[key], f"{figures[key] / TARGET:.2f}"]

    print_table(
        f"Hands to decision rows, one core{' (quick)' if quick else ''}",
        ["path", "hands", "hands/s", "of 50k target"],
        [
            row("fast: PHH text to rows, checked", "phh_to_rows_per_s", n_phh),
            row("fast: PokerStars text to rows, checked", "pokerstars_to_rows_per_s", n_stars),
            row("fast: PHH text to rows, unchecked", "phh_to_rows_unchecked_per_s", n_phh),
            row(
                "fast: PokerStars text to rows, unchecked",
                "pokerstars_to_rows_unchecked_per_s",
                n_stars,
            ),
            row("ingest (inline, fast, Parquet out)", "ingest_per_s", n_phh),
            row("plain: PHH text to rows", "plain_phh_to_rows_per_s", n_phh),
            row("plain: PHH text to rows, replayed", "plain_phh_to_rows_replayed_per_s", n_phh),
            row("plain: PokerStars text to rows", "plain_pokerstars_to_rows_per_s", n_stars),
            row(
                "plain: PokerStars to rows, replayed",
                "plain_pokerstars_to_rows_replayed_per_s",
                n_stars,
            ),
            row("plain: PHH parse", "plain_phh_parse_per_s", n_phh),
            row("plain: PokerStars parse", "plain_pokerstars_parse_per_s", n_stars),
            row("plain: engine replay", "replay_per_s", n_phh),
            row("plain: rows from records", "rows_per_s", n_phh),
            row("PokerKit HandHistory.loads", "pokerkit_loads_per_s", n_phh),
            row("PokerKit replay", "pokerkit_replay_per_s", n_replay),
        ],
    )
    print_table(
        "Where the fast path's time goes (CPU us per hand)",
        ["stage", "us/hand"],
        [
            ["split the file into hands", figures["us_split"]],
            ["read PHH to arrays", figures["us_read_phh"]],
            ["read PokerStars text to arrays", figures["us_read_pokerstars"]],
            ["row pass (betting followed)", figures["us_track"]],
            ["settlement check", figures["us_settle"]],
            ["hand keys (BLAKE2b of site and id)", figures["us_keys"]],
            ["frame (columns, player ids)", figures["us_frame"]],
        ],
    )
    print_table(
        "Ratios and fallbacks",
        ["comparison", "value"],
        [
            [
                "fast PHH to rows vs PokerKit loads",
                f"{figures['ratio_phh_to_rows_vs_pokerkit_loads']:.1f}x",
            ],
            [
                "fast PokerStars to rows vs PokerKit loads",
                f"{figures['ratio_pokerstars_to_rows_vs_pokerkit_loads']:.1f}x",
            ],
            [
                "fast PHH to rows vs plain, replayed",
                f"{figures['ratio_phh_to_rows_vs_plain_replayed']:.1f}x",
            ],
            [
                "PHH hands judged fast / fallbacks",
                f"{counts['fast_phh']} / {counts['fallbacks_phh']}",
            ],
            [
                "PokerStars hands judged fast / fallbacks",
                f"{counts['fast_pokerstars']} / {counts['fallbacks_pokerstars']}",
            ],
        ],
    )


if __name__ == "__main__":
    main()
