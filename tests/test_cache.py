"""The checksummed array cache: where it lives, round trips, and what happens to bad files.

Every test works in its own temporary cache directory (``POOLSHARK_CACHE_DIR``), so the
user's cache is never touched.
"""

from __future__ import annotations

import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from poolshark import cache

NAME = "unit-test-entry"


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty cache directory for this test."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("POOLSHARK_CACHE_DIR", str(directory))
    return directory


def sample_arrays() -> cache.Arrays:
    """Arrays of several dtypes and shapes."""
    rng = np.random.default_rng(0)
    return {
        "floats": rng.random((7, 3)),
        "small": np.arange(300, dtype=np.uint16),
        "flags": np.array([True, False, True]),
        "scalar": np.array(3.5),
        "empty": np.zeros((0, 4), dtype=np.int32),
    }


def assert_same(got: cache.Arrays | None, want: cache.Arrays) -> None:
    """Same names, and per name the same dtype, shape and values."""
    assert got is not None
    assert set(got) == set(want)
    for name, array in want.items():
        assert got[name].dtype == array.dtype, name
        assert got[name].shape == array.shape, name
        np.testing.assert_array_equal(got[name], array)


class Builder:
    """A build function that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> cache.Arrays:
        self.calls += 1
        return sample_arrays()


# --- location ------------------------------------------------------------------------------


def test_cache_dir_from_env(cache_dir: Path) -> None:
    """POOLSHARK_CACHE_DIR wins."""
    assert cache.cache_dir() == cache_dir
    assert cache.cache_path(NAME, "v3") == cache_dir / f"{NAME}-v3.npz"


def test_cache_dir_falls_back_to_xdg_then_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without it: $XDG_CACHE_HOME/poolshark, then ~/.cache/poolshark."""
    monkeypatch.delenv("POOLSHARK_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "poolshark"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.cache_dir() == tmp_path / "home" / ".cache" / "poolshark"


# --- round trip ----------------------------------------------------------------------------


def test_save_then_load(cache_dir: Path) -> None:
    """Saved arrays come back identical; the directory is created; no temp file is left."""
    path = cache.save(NAME, "v1", sample_arrays())
    assert path == cache_dir / f"{NAME}-v1.npz"
    assert path.is_file()
    assert_same(cache.load(NAME, "v1"), sample_arrays())
    assert sorted(p.name for p in cache_dir.iterdir()) == [f"{NAME}-v1.npz"]


def test_load_missing_is_none(cache_dir: Path) -> None:
    """Nothing cached yet."""
    assert cache.load(NAME, "v1") is None


def test_load_or_build_builds_once(cache_dir: Path) -> None:
    """The first call builds and saves; later calls read the file."""
    build = Builder()
    assert_same(cache.load_or_build(NAME, "v1", build), sample_arrays())
    assert_same(cache.load_or_build(NAME, "v1", build), sample_arrays())
    assert build.calls == 1


def test_versions_are_separate_entries(cache_dir: Path) -> None:
    """Another version is another file; neither disturbs the other."""
    old = {"data": np.arange(5)}
    new = {"data": np.arange(5) * 2}
    cache.save(NAME, "v1", old)
    assert cache.load(NAME, "v2") is None
    cache.save(NAME, "v2", new)
    assert_same(cache.load(NAME, "v1"), old)
    assert_same(cache.load(NAME, "v2"), new)


def test_save_overwrites(cache_dir: Path) -> None:
    """Saving again replaces the entry."""
    cache.save(NAME, "v1", {"data": np.arange(3)})
    cache.save(NAME, "v1", {"other": np.ones(2)})
    assert_same(cache.load(NAME, "v1"), {"other": np.ones(2)})


# --- bad files -----------------------------------------------------------------------------


def entry_path(cache_dir: Path) -> Path:
    """Write the sample entry and return its file."""
    path = cache.save(NAME, "v1", sample_arrays())
    assert path is not None
    return path


def truncate_half(path: Path) -> None:
    """Cut the file in the middle."""
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def truncate_tail(path: Path) -> None:
    """Lose the last byte (part of the zip directory)."""
    path.write_bytes(path.read_bytes()[:-1])


def empty_file(path: Path) -> None:
    """Zero bytes."""
    path.write_bytes(b"")


def garbage(path: Path) -> None:
    """Not a zip file at all."""
    path.write_bytes(b"definitely not a numpy archive\n" * 10)


def stale_checksum(path: Path) -> None:
    """A well-formed archive whose arrays no longer match the stored checksum."""
    arrays = sample_arrays()
    stored = cache.checksum(arrays)
    arrays["floats"] = arrays["floats"] + 1.0
    with path.open("wb") as handle:
        np.savez_compressed(handle, __checksum__=np.array(stored), **arrays)


def no_checksum(path: Path) -> None:
    """A well-formed archive without the checksum entry."""
    with path.open("wb") as handle:
        np.savez_compressed(handle, **sample_arrays())


def directory_in_the_way(path: Path) -> None:
    """A directory where the file should be: unreadable and unwritable."""
    path.unlink()
    path.mkdir()


def first_member_data_offset(raw: bytes) -> int:
    """Offset of the first archive member's compressed data (after its local header)."""
    assert raw[:4] == b"PK\x03\x04"
    name_length, extra_length = struct.unpack("<HH", raw[26:30])
    return 30 + name_length + extra_length


def bad_deflate_block(path: Path) -> None:
    """Set the first deflate block's type bits to 11, a type that does not exist."""
    raw = bytearray(path.read_bytes())
    raw[first_member_data_offset(bytes(raw))] |= 0b110
    path.write_bytes(bytes(raw))


def bad_zip_version(path: Path) -> None:
    """Raise the 'version needed to extract' of the first central directory entry to 25.5."""
    raw = bytearray(path.read_bytes())
    entry = raw.index(b"PK\x01\x02")
    raw[entry + 6 : entry + 8] = struct.pack("<H", 255)
    path.write_bytes(bytes(raw))


CORRUPTIONS: list[Callable[[Path], None]] = [
    truncate_half,
    truncate_tail,
    empty_file,
    garbage,
    stale_checksum,
    no_checksum,
]

ESCAPING_CORRUPTIONS = [bad_deflate_block, bad_zip_version]
"""Damage that raises errors other than OSError/ValueError inside zipfile and zlib."""


@pytest.mark.parametrize("corrupt", [*CORRUPTIONS, directory_in_the_way, *ESCAPING_CORRUPTIONS])
def test_corrupt_entry_is_not_loaded(cache_dir: Path, corrupt: Callable[[Path], None]) -> None:
    """A damaged entry reads as missing."""
    path = entry_path(cache_dir)
    corrupt(path)
    assert cache.load(NAME, "v1") is None


@pytest.mark.parametrize("corrupt", [*CORRUPTIONS, *ESCAPING_CORRUPTIONS])
def test_corrupt_entry_is_rebuilt(cache_dir: Path, corrupt: Callable[[Path], None]) -> None:
    """load_or_build replaces a damaged entry with a fresh build, which then loads."""
    path = entry_path(cache_dir)
    corrupt(path)
    build = Builder()
    assert_same(cache.load_or_build(NAME, "v1", build), sample_arrays())
    assert build.calls == 1
    assert_same(cache.load(NAME, "v1"), sample_arrays())


def test_every_single_byte_flip_loads_intact_or_not_at_all(cache_dir: Path) -> None:
    """Whatever byte of the file is damaged, load returns the original arrays or None.

    A zip member's CRC catches most damage to compressed data; damage that breaks the
    deflate stream itself, the zip version fields or a .npy header raises zlib,
    NotImplementedError or tokenizer errors, which ``load`` must also treat as missing.
    """
    arrays = {"data": np.arange(40, dtype=np.float64)}
    path = cache.save(NAME, "v1", arrays)
    assert path is not None
    raw = path.read_bytes()
    escaped: dict[str, int] = {}
    for position in range(len(raw)):
        damaged = bytearray(raw)
        damaged[position] ^= 0xFF
        path.write_bytes(bytes(damaged))
        try:
            loaded = cache.load(NAME, "v1")
        except Exception as error:
            escaped.setdefault(f"{type(error).__module__}.{type(error).__name__}", position)
            continue
        if loaded is not None:
            assert_same(loaded, arrays)
    assert escaped == {}


def test_directory_in_the_way_still_returns_built_arrays(cache_dir: Path) -> None:
    """If the entry's path cannot be written, the build result is still returned."""
    path = entry_path(cache_dir)
    directory_in_the_way(path)
    build = Builder()
    assert_same(cache.load_or_build(NAME, "v1", build), sample_arrays())
    assert cache.save(NAME, "v1", sample_arrays()) is None
    assert build.calls == 1


def test_unwritable_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache directory that cannot be created: save says None, load_or_build still works.

    A path below a regular file can never be a directory (this holds even for root, for
    whom permission bits would not stop the write).
    """
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    monkeypatch.setenv("POOLSHARK_CACHE_DIR", str(blocker / "cache"))
    assert cache.save(NAME, "v1", sample_arrays()) is None
    build = Builder()
    assert_same(cache.load_or_build(NAME, "v1", build), sample_arrays())
    assert_same(cache.load_or_build(NAME, "v1", build), sample_arrays())
    assert build.calls == 2
    assert cache.load(NAME, "v1") is None


# --- checksum ------------------------------------------------------------------------------


def test_checksum_is_sha256_hex_and_order_free() -> None:
    """64 hex digits; the insertion order of the names does not matter."""
    arrays = sample_arrays()
    digest = cache.checksum(arrays)
    assert len(digest) == 64
    int(digest, 16)
    assert cache.checksum(dict(reversed(list(arrays.items())))) == digest


def test_checksum_changes_with_any_byte() -> None:
    """Flipping any single byte of any array changes the checksum."""
    arrays = {"a": np.arange(6, dtype=np.int16), "b": np.linspace(0.0, 1.0, 3)}
    base = cache.checksum(arrays)
    seen = {base}
    for name, array in arrays.items():
        raw = bytearray(array.tobytes())
        for position in range(len(raw)):
            damaged = bytearray(raw)
            damaged[position] ^= 0x01
            changed = dict(arrays)
            changed[name] = np.frombuffer(bytes(damaged), dtype=array.dtype).reshape(array.shape)
            digest = cache.checksum(changed)
            assert digest not in seen, (name, position)
            seen.add(digest)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda a: {"renamed": a["x"]}, id="name"),
        pytest.param(lambda a: {"x": a["x"].astype(np.int64)}, id="dtype"),
        pytest.param(lambda a: {"x": a["x"].reshape(2, 3)}, id="shape"),
        pytest.param(lambda a: {**a, "extra": np.zeros(0)}, id="extra-array"),
    ],
)
def test_checksum_covers_names_dtypes_and_shapes(
    change: Callable[[cache.Arrays], cache.Arrays],
) -> None:
    """Same bytes under another name, dtype or shape give another checksum."""
    arrays: cache.Arrays = {"x": np.arange(6, dtype=np.int32)}
    assert cache.checksum(change(arrays)) != cache.checksum(arrays)


def test_checksum_ignores_memory_layout() -> None:
    """A non-contiguous view checksums like its contiguous copy."""
    base = np.arange(20, dtype=np.float64).reshape(4, 5)
    view = base[:, ::2]
    assert cache.checksum({"x": view}) == cache.checksum({"x": np.ascontiguousarray(view)})


def test_zip_member_names(cache_dir: Path) -> None:
    """The file is a plain npz: one .npy member per array plus the checksum."""
    path = entry_path(cache_dir)
    with zipfile.ZipFile(path) as archive:
        names = sorted(archive.namelist())
    assert names == sorted([f"{name}.npy" for name in sample_arrays()] + ["__checksum__.npy"])
