"""Content-checked cache files for expensive derived arrays (evaluator tables, equity matrix).

Each entry is one ``.npz`` file holding named arrays plus a SHA-256 of their bytes. A file
that is missing, unreadable, from another format version or whose checksum does not match
is rebuilt; a cache directory that cannot be written only costs the rebuild next time.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

Arrays = dict[str, npt.NDArray[np.generic]]


def cache_dir() -> Path:
    """``$POOLSHARK_CACHE_DIR``, else ``$XDG_CACHE_HOME/poolshark``, else ``~/.cache/poolshark``."""
    explicit = os.environ.get("POOLSHARK_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "poolshark"


def checksum(arrays: Mapping[str, npt.NDArray[np.generic]]) -> str:
    """SHA-256 over the names, dtypes, shapes and bytes of the arrays, in name order."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}:{array.dtype.str}:{array.shape};".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def cache_path(name: str, version: str) -> Path:
    """Where the entry ``name`` of format ``version`` lives."""
    return cache_dir() / f"{name}-{version}.npz"


def load(name: str, version: str) -> Arrays | None:
    """The cached arrays if the file exists and its checksum holds, else None."""
    path = cache_path(name, version)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays: Arrays = {key: data[key] for key in data.files if key != "__checksum__"}
            stored = str(data["__checksum__"])
    except Exception:  # a damaged file can fail in zipfile, zlib or numpy's header parser
        return None
    return arrays if stored == checksum(arrays) else None


def save(name: str, version: str, arrays: Arrays) -> Path | None:
    """Write the arrays atomically (temp file + rename); None if the directory is not writable."""
    path = cache_path(name, version)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as tmp:
            payload: dict[str, Any] = {"__checksum__": np.array(checksum(arrays)), **arrays}
            np.savez_compressed(tmp, **payload)
        os.replace(tmp.name, path)
    except OSError:
        return None
    return path


def load_or_build(name: str, version: str, build: Callable[[], Arrays]) -> Arrays:
    """Cached arrays when valid, otherwise ``build()`` them and try to cache the result."""
    arrays = load(name, version)
    if arrays is None:
        arrays = build()
        save(name, version, arrays)
    return arrays
