"""Hand histories to decision rows, hands per second per core, next to PokerKit's PHH reader.

Run from the repository root::

    python benchmarks/ingest.py [--quick] [--json]

Input: the real PHH sample (``shared/data/handhq-ps25``, 2,986 hands; ``--quick``: its
first file, 991 hands) and the same hands written as PokerStars text by our writer (hands
it cannot write, a few with dead small blinds, are left out of that file). Every figure is
one process, the best of three runs (one with ``--quick``), after a warm-up that loads the
compiled code. Rates are hands per CPU-second of this process (all its threads counted),
so they mean "per core" even on a busy shared machine, where wall-clock rates would depend
on the neighbours. The pipeline stages, timed separately and together:

* split: ``read_hands`` (stream the file into raw hands);
* parse: ``parse_hand`` (raw hand to ``HandRecord``);
* replay: ``replay`` (the engine judges every hand: turn, amounts, pot, winnings);
* rows: ``build_rows`` (one compiled pass over all the hands' actions, then the frame).

"to rows" is split + parse + rows (the compiled pass checks order of play, streets,
amounts and raise sizes, not the showdown); "to rows, replayed" adds the engine replay, as
``poolshark ingest`` does by default. ``ingest`` is the whole command inline (also dedupe,
quarantine and Parquet files). PokerKit 0.7.7 is timed on the same PHH hands:
``HandHistory.loads`` on each hand's text (its ``[n]`` header removed), and replay as
iterating the loaded history's states.

The last line printed is one JSON object with these keys (rates in hands per second):

* ``phh_to_rows_per_s``, ``pokerstars_to_rows_per_s``: text to rows, per core.
* ``phh_to_rows_replayed_per_s``, ``pokerstars_to_rows_replayed_per_s``: with the replay.
* ``phh_split_per_s``, ``phh_parse_per_s``, ``pokerstars_split_per_s``,
  ``pokerstars_parse_per_s``, ``replay_per_s``, ``rows_per_s``: each stage alone.
* ``ingest_per_s``: ``ingest(..., workers=1)`` of the PHH files into a fresh folder.
* ``pokerkit_loads_per_s``, ``pokerkit_replay_per_s``: PokerKit on the same PHH hands
  (replay on a prefix of at most 500 hands, 200 with ``--quick``).
* ``ratio_phh_to_rows_vs_pokerkit_loads``, ``ratio_phh_to_rows_replayed_vs_pokerkit_replay``,
  ``ratio_rows_vs_pokerkit_loads``: our rate over PokerKit's.
* ``rows_per_hand``: decision rows per hand; ``rows_match_pokerkit``: every hand has as
  many rows as PokerKit counts fold, check/call and bet/raise actions.
* ``target_per_core``: 50,000; ``target_met``: both text-to-rows rates reach it.
* ``hands_phh``, ``hands_pokerstars``, ``hands_pokerkit_replay``; ``quick``.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from pokerkit import HandHistory

from common import emit, parse_args, print_table
from poolshark.histories.ingest import ingest
from poolshark.histories.pokerstars import write_pokerstars
from poolshark.histories.record import HandRecord, HistoryError
from poolshark.histories.replay import replay
from poolshark.histories.rows import build_rows
from poolshark.histories.split import RawHand, parse_hand, read_hands

SAMPLE = Path(__file__).resolve().parents[2] / "shared" / "data" / "handhq-ps25"
TARGET = 50_000


def to_rows(paths: list[Path], *, replayed: bool) -> int:
    """Split, parse (and replay) every hand of the files, then build the rows; the rows."""
    records = []
    for path in paths:
        for raw in read_hands(path):
            record = parse_hand(raw)
            if not replayed or replays(record):
                records.append(record)
    return build_rows(records).frame.height


def replays(record: HandRecord) -> bool:
    """Whether the engine accepts the hand (a few real hands it rejects are dropped)."""
    try:
        replay(record)
    except HistoryError:
        return False
    return True


def split_all(paths: list[Path]) -> list[RawHand]:
    return [raw for path in paths for raw in read_hands(path)]


def pokerkit_actions(history: HandHistory) -> int:
    """Voluntary actions in a PokerKit history: folds, checks/calls, bets/raises."""
    return sum(1 for action in history.actions if action.split()[1] in ("f", "cc", "cbr"))


def replay_pokerkit(histories: list[HandHistory]) -> None:
    for history in histories:
        for _ in history:
            pass


def rate(hands: int, fn: Callable[[], object], repeats: int) -> float:
    """Hands per CPU-second of ``fn``, the best of ``repeats`` runs."""
    best = float("inf")
    for _ in range(max(1, repeats)):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return hands / best


def main() -> None:
    """Measure, print the table and the JSON line."""
    args = parse_args(__doc__.splitlines()[0])
    warnings.simplefilter("ignore")  # PokerKit warns about every hand's extra fields
    if not SAMPLE.is_dir():
        raise SystemExit(f"the real PHH sample is not here: {SAMPLE}")
    repeats = 1 if args.quick else 3
    phh_files = sorted(SAMPLE.glob("*.phhs"))[: 1 if args.quick else None]
    work = Path(tempfile.mkdtemp(prefix="poolshark-bench-"))
    try:
        phh_raw = split_all(phh_files)
        records: list[HandRecord] = [parse_hand(raw) for raw in phh_raw]
        written = []
        for record in records:
            try:
                written.append(write_pokerstars(record))
            except ValueError:
                continue
        stars_file = work / "hands.txt"
        stars_file.write_text("\n\n".join(written))
        stars_raw = split_all([stars_file])
        build_rows(records[:50])  # warm-up: load the compiled pass

        figures: dict[str, float] = {}
        n_phh, n_stars = len(phh_raw), len(stars_raw)
        figures["phh_split_per_s"] = rate(n_phh, lambda: split_all(phh_files), repeats)
        figures["phh_parse_per_s"] = rate(n_phh, lambda: [parse_hand(r) for r in phh_raw], repeats)
        figures["pokerstars_split_per_s"] = rate(n_stars, lambda: split_all([stars_file]), repeats)
        figures["pokerstars_parse_per_s"] = rate(
            n_stars, lambda: [parse_hand(r) for r in stars_raw], repeats
        )
        figures["replay_per_s"] = rate(n_phh, lambda: [replays(r) for r in records], repeats)
        figures["rows_per_s"] = rate(n_phh, lambda: build_rows(records), repeats)
        figures["phh_to_rows_per_s"] = rate(
            n_phh, lambda: to_rows(phh_files, replayed=False), repeats
        )
        figures["pokerstars_to_rows_per_s"] = rate(
            n_stars, lambda: to_rows([stars_file], replayed=False), repeats
        )
        figures["phh_to_rows_replayed_per_s"] = rate(
            n_phh, lambda: to_rows(phh_files, replayed=True), repeats
        )
        figures["pokerstars_to_rows_replayed_per_s"] = rate(
            n_stars, lambda: to_rows([stars_file], replayed=True), repeats
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
    finally:
        shutil.rmtree(work, ignore_errors=True)

    frame = build_rows(records).frame
    per_hand = frame.group_by("hand_id").len()
    ours = dict(zip(per_hand["hand_id"].to_list(), per_hand["len"].to_list(), strict=True))
    matches = all(ours.get(str(h.hand), 0) == pokerkit_actions(h) for h in histories)
    loads = figures["pokerkit_loads_per_s"]
    figures |= {
        "ratio_phh_to_rows_vs_pokerkit_loads": figures["phh_to_rows_per_s"] / loads,
        "ratio_phh_to_rows_replayed_vs_pokerkit_replay": figures["phh_to_rows_replayed_per_s"]
        / figures["pokerkit_replay_per_s"],
        "ratio_rows_vs_pokerkit_loads": figures["rows_per_s"] / loads,
    }
    met = min(figures["phh_to_rows_per_s"], figures["pokerstars_to_rows_per_s"]) >= TARGET

    if not args.json:

        def row(name: str, key: str, hands: int) -> list[object]:
            return [name, hands, figures[key], f"{figures[key] / TARGET:.2f}"]

        print_table(
            f"Hands to decision rows, one core{' (quick)' if args.quick else ''}",
            ["stage", "hands", "hands/s", "of 50k target"],
            [
                row("PHH: split", "phh_split_per_s", n_phh),
                row("PHH: parse", "phh_parse_per_s", n_phh),
                row("PokerStars: split", "pokerstars_split_per_s", n_stars),
                row("PokerStars: parse", "pokerstars_parse_per_s", n_stars),
                row("replay (engine)", "replay_per_s", n_phh),
                row("rows (compiled pass + frame)", "rows_per_s", n_phh),
                row("PHH text to rows", "phh_to_rows_per_s", n_phh),
                row("PokerStars text to rows", "pokerstars_to_rows_per_s", n_stars),
                row("PHH text to rows, replayed", "phh_to_rows_replayed_per_s", n_phh),
                row("PokerStars to rows, replayed", "pokerstars_to_rows_replayed_per_s", n_stars),
                row("ingest (inline, Parquet out)", "ingest_per_s", n_phh),
                row("PokerKit HandHistory.loads", "pokerkit_loads_per_s", n_phh),
                row("PokerKit replay", "pokerkit_replay_per_s", len(prefix)),
            ],
        )
        print_table(
            "Ratios (ours over PokerKit)",
            ["comparison", "ratio"],
            [
                ["PHH to rows vs loads", f"{figures['ratio_phh_to_rows_vs_pokerkit_loads']:.1f}x"],
                [
                    "PHH to rows, replayed vs replay",
                    f"{figures['ratio_phh_to_rows_replayed_vs_pokerkit_replay']:.1f}x",
                ],
                ["rows stage vs loads", f"{figures['ratio_rows_vs_pokerkit_loads']:.1f}x"],
            ],
        )

    emit(
        {
            **figures,
            "rows_per_hand": frame.height / len(records),
            "rows_match_pokerkit": matches,
            "target_per_core": TARGET,
            "target_met": met,
            "hands_phh": n_phh,
            "hands_pokerstars": n_stars,
            "hands_pokerkit_replay": len(prefix),
            "quick": args.quick,
        }
    )


if __name__ == "__main__":
    main()
