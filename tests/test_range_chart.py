"""The 13x13 range chart: class frequencies, layout, text and file output, errors."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from poolshark.cards.combos import CLASS_NAMES, N_CLASSES, class_combos, class_index
from poolshark.cards.ranges import Range
from poolshark.report.range_chart import (
    class_frequencies,
    render_plain,
    render_text,
    save_chart,
    summary,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_whole_classes_are_one_and_the_rest_zero() -> None:
    """QQ+,AKs fills exactly the AA, KK, QQ and AKs cells."""
    freqs = class_frequencies(Range.parse("QQ+,AKs"))
    full = {class_index(name) for name in ("AA", "KK", "QQ", "AKs")}
    assert freqs.shape == (N_CLASSES,)
    assert all(freqs[c] == 1.0 for c in full)
    assert not np.delete(freqs, sorted(full)).any()
    assert summary(freqs) == "1.7% of hands (22 combos)"


def test_partial_class_is_the_mean_over_its_combos() -> None:
    """Two of the four AKs combos give 0.5; weights average too; (169,) passes through."""
    aks = class_combos(class_index("AKs"))
    assert class_frequencies(Range.of_combos(aks[:2]))[class_index("AKs")] == 0.5
    weighted = class_frequencies(Range.parse("AKo:0.3").weights)
    assert weighted[class_index("AKo")] == pytest.approx(0.3)
    per_class = np.linspace(0.0, 1.0, N_CLASSES)
    np.testing.assert_array_equal(class_frequencies(per_class), per_class)


def test_bad_input_is_a_clear_value_error(tmp_path: Path) -> None:
    """Wrong shapes, frequencies outside [0, 1], unknown suffixes and bad values all raise."""
    with pytest.raises(ValueError, match=r"1326 per-combo or 169 per-class .* shape \(13, 13\)"):
        class_frequencies(np.zeros((13, 13)))
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\], got 1\.5"):
        class_frequencies(np.full(N_CLASSES, 1.5))
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\], got nan"):
        class_frequencies(np.full(N_CLASSES, np.nan))
    with pytest.raises(ValueError, match=r"'chart\.jpg': use one of \('\.png', '\.svg', '\.pdf'\)"):
        save_chart(np.zeros(N_CLASSES), tmp_path / "chart.jpg")
    with pytest.raises(ValueError, match=r"one number per class \(169\), got shape \(3,\)"):
        save_chart(np.zeros(N_CLASSES), tmp_path / "chart.svg", values=[1, 2, 3])
    assert not list(tmp_path.iterdir())
    np.testing.assert_array_equal(class_frequencies(np.full(N_CLASSES, 1 + 1e-12)), 1.0)


def test_plain_layout_matches_the_usual_chart() -> None:
    """AA top-left, AKs right of it, AKo below it, 22 bottom-right; a title line on top."""
    lines = render_plain(Range.parse("AA,AKs:0.5,AKo:0.004,KK:0.999"), title="demo").splitlines()
    assert lines[0] == "demo"
    grid = [line.split() for line in lines[1:14]]
    assert [len(row) for row in grid] == [26] * 13
    assert grid[0][:4] == ["AA", "100%", "AKs", "50%"]
    assert grid[1][:4] == ["AKo", "1%", "KK", "99%"]
    assert grid[12][-2:] == ["22", "-"]
    assert [row[2 * col] for row in grid for col in range(13)] == list(CLASS_NAMES)
    assert lines[14] == "1.1% of hands (14.04 combos)"


@pytest.mark.parametrize("color", [True, False])
def test_rich_table_shows_every_class(color: bool) -> None:
    """The terminal table prints all 169 names and the frequencies; colour only when asked."""
    console = Console(width=120, color_system="truecolor", force_terminal=True)
    with console.capture() as captured:
        console.print(render_text(Range.parse("AKs:0.73"), title="Chart", color=color))
    output = captured.get()
    assert all(name in output for name in CLASS_NAMES)
    assert "73%" in output
    assert "Chart" in output
    assert ("48;2;" in output) is color  # a 24-bit background colour


def test_png_is_written(tmp_path: Path) -> None:
    """A PNG with the right signature that matplotlib reads back as an RGB(A) image."""
    import matplotlib.image

    path = save_chart(Range.parse("QQ+,AKs"), str(tmp_path / "chart.png"), title="Test")
    assert path == tmp_path / "chart.png"
    assert path.read_bytes().startswith(PNG_SIGNATURE)
    image = matplotlib.image.imread(path)
    assert image.ndim == 3
    assert image.shape[0] > 500
    assert image.shape[1] > 500


def test_svg_is_valid_text_and_deterministic(tmp_path: Path) -> None:
    """The SVG parses, keeps class names and values as text, and two saves are identical."""
    values = np.full(N_CLASSES, np.nan)
    values[class_index("AKs")] = 12.25
    first = save_chart(
        Range.parse("QQ+,AKs"), tmp_path / "a.svg", values=values, value_format="{:.1f}bb"
    )
    second = save_chart(
        Range.parse("QQ+,AKs"), tmp_path / "b.svg", values=values, value_format="{:.1f}bb"
    )
    texts = {"".join(element.itertext()) for element in ET.parse(first).iter()}
    assert {"AKs", "22", "12.2bb"} <= texts
    assert first.read_bytes() == second.read_bytes()
