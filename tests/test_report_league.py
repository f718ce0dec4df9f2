"""The league's plots and HTML fragment, from a small synthetic history and ratings."""

from __future__ import annotations

import csv
import math
import subprocess
import sys
from pathlib import Path

import pytest

from poolshark.evaluate.ratings import PairResult, Rating
from poolshark.report.league import (
    CURVE_COLUMNS,
    FREQUENCY_COLUMNS,
    league_report_html,
    plot_action_frequencies,
    plot_ratings_over_training,
    plot_training_curves,
    read_history,
)

TRAINER_COLUMNS = [
    "epoch",
    "seconds",
    "hands",
    "decisions",
    "loss",
    "policy_loss",
    "size_loss",
    "entropy",
    "diversity_penalty",
    "reward_mean",
    "showdown_multiplier",
    "learning_rate",
    "freq_fold",
    "freq_call",
    "freq_bet",
    "mean_p_fold",
    "mean_p_call",
    "mean_p_bet",
    "pool_size",
    "grad_norm",
]
"""The columns the league trainer writes, one row per epoch."""
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def write_history(path: Path, columns: list[str], epochs: int = 6) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for epoch in range(epochs):
            fold = 0.3 - 0.02 * epoch
            values = {
                "epoch": epoch,
                "freq_fold": fold,
                "freq_call": 0.4,
                "freq_bet": 0.6 - fold,
                "mean_p_fold": fold + 0.01,
                "mean_p_call": 0.39,
                "mean_p_bet": 0.6 - fold,
                "loss": 1.0 / (epoch + 1),
                "entropy": math.log(3) - 0.05 * epoch,
                "reward_mean": 0.01 * epoch,
            }
            writer.writerow([values.get(column, 0.5 * epoch) for column in columns])
    return path


def test_the_trainers_columns_cover_every_plot() -> None:
    assert set(FREQUENCY_COLUMNS) <= set(TRAINER_COLUMNS)
    assert set(CURVE_COLUMNS) <= set(TRAINER_COLUMNS)


def test_history_plots_write_png_files(tmp_path: Path) -> None:
    history = write_history(tmp_path / "history.csv", TRAINER_COLUMNS)
    for plot, name in ((plot_action_frequencies, "actions.png"), (plot_training_curves, "c.png")):
        written = plot(history, tmp_path / "plots" / name)
        assert written == tmp_path / "plots" / name
        data = written.read_bytes()
        assert data.startswith(PNG_MAGIC)
        assert len(data) > 5_000
    assert not list((tmp_path / "plots").glob(".*.tmp"))


def test_ratings_plot_writes_a_png(tmp_path: Path) -> None:
    ratings = [
        Rating(f"ckpt-{e:04d}", 30.0 * e, 30.0 * e - 40, 30.0 * e + 40, 400)
        for e in (0, 10, 20, 30)
    ]
    epochs = {rating.name: int(rating.name[-4:]) for rating in ratings}
    bots = [Rating("random", -300.0, -340.0, -260.0, 400), Rating("tag", 250.0, 210.0, 290.0, 400)]
    path = plot_ratings_over_training(ratings, epochs, tmp_path / "elo.png", baselines=bots)
    assert path.read_bytes().startswith(PNG_MAGIC)
    with pytest.raises(ValueError, match=r"no epoch for checkpoint.*'random'.*baselines"):
        plot_ratings_over_training([*ratings, bots[0]], epochs, tmp_path / "x.png")
    with pytest.raises(ValueError, match="at least one checkpoint"):
        plot_ratings_over_training([], epochs, tmp_path / "x.png")


def test_a_missing_column_is_named(tmp_path: Path) -> None:
    columns = [column for column in TRAINER_COLUMNS if column not in ("entropy", "freq_bet")]
    history = write_history(tmp_path / "history.csv", columns)
    with pytest.raises(ValueError, match="no column 'freq_bet'"):
        plot_action_frequencies(history, tmp_path / "a.png")
    with pytest.raises(ValueError, match="no column 'entropy'"):
        plot_training_curves(history, tmp_path / "c.png")
    assert not (tmp_path / "a.png").exists()


def test_bad_numbers_and_empty_histories_are_refused(tmp_path: Path) -> None:
    history = write_history(tmp_path / "history.csv", TRAINER_COLUMNS, epochs=2)
    text = history.read_text().splitlines()
    cells = text[2].split(",")
    cells[TRAINER_COLUMNS.index("loss")] = "nan-ish"
    history.write_text("\n".join([*text[:2], ",".join(cells)]) + "\n")
    with pytest.raises(ValueError, match="line 3: column 'loss' holds 'nan-ish'"):
        read_history(history, CURVE_COLUMNS)
    empty = write_history(tmp_path / "empty.csv", TRAINER_COLUMNS, epochs=0)
    with pytest.raises(ValueError, match="no epochs"):
        plot_training_curves(empty, tmp_path / "c.png")


def test_html_fragment_embeds_the_plots_and_tables(tmp_path: Path) -> None:
    history = write_history(tmp_path / "history.csv", TRAINER_COLUMNS)
    images = [
        (plot_action_frequencies(history, tmp_path / "a.png"), "actions <over> training"),
        (plot_training_curves(history, tmp_path / "c.png"), "curves"),
    ]
    ratings = [Rating("<ckpt>", 12.5, 1.0, 24.0, 100), Rating("random", 0.0, 0.0, 0.0, 100)]
    pairs = [PairResult("<ckpt>", "random", 60.0, 100, 35.25, 20.0)]
    fragment = league_report_html(ratings, pairs, images, heading="League table")
    assert fragment.count('<img src="data:image/png;base64,') == 2
    assert "<ckpt>" not in fragment
    assert "&lt;ckpt&gt;" in fragment
    assert "actions &lt;over&gt; training" in fragment
    assert "<h2>League table</h2>" in fragment
    assert "60.0%" in fragment
    assert "35.25" in fragment
    assert "<html" not in fragment


def test_importing_the_module_does_not_load_matplotlib() -> None:
    code = "import sys, poolshark.report.league; print('matplotlib' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
