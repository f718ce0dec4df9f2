"""Pieces every trainer shares: device checks, atomic checkpoint and text writes, sizes.

Checkpoints are written to a temporary file beside their target and renamed over it, so a
run killed mid-write never leaves a torn checkpoint behind.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import torch
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

DEVICE_PATTERN = re.compile(r"^(cpu|cuda(:\d+)?)$")

Precision = Literal["fp32", "bf16"]
"""Arithmetic of a training step's forward and backward pass: ``fp32``, or ``bf16`` mixed
precision (matrix products in bfloat16, weights, optimizer and loss in float32)."""
"""Device names a config may give."""


def check_device_name(value: str) -> str:
    """A config's device, validated (``cpu``, ``cuda`` or ``cuda:N``)."""
    if not DEVICE_PATTERN.match(value):
        raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N', got {value!r}")
    return value


def require_device(device: str, error: type[ValueError]) -> None:
    """Raise ``error`` when a CUDA device is asked for and torch sees none."""
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise error(f"device {device!r} asked for, but torch sees no CUDA GPU here")


def save_atomic(payload: dict[str, Any], path: Path) -> None:
    """``torch.save`` to a temp file beside ``path``, then rename over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as tmp:
        try:
            torch.save(payload, tmp)
        except BaseException:
            tmp.close()
            os.unlink(tmp.name)
            raise
    os.chmod(tmp.name, 0o644)
    os.replace(tmp.name, path)


def read_checkpoint_of(
    path: Path,
    kind: str,
    version: str | None,
    device: str,
    error: type[ValueError],
    *,
    kind_field: bool = True,
) -> dict[str, Any]:
    """A checkpoint's dict read with ``weights_only=True``, checked to carry ``kind`` and
    format ``version`` (``None``: any format; ``kind_field=False``: files that carry no
    ``kind``, known by their format alone); ``error`` names the file and what is wrong
    (missing, unreadable, another kind, another format)."""
    path = Path(path)
    article = "an" if kind[:1] in "aeiou" else "a"
    if not path.is_file():
        raise error(f"no {kind} checkpoint at {str(path)!r}")
    try:
        payload = torch.load(path, map_location=torch.device(device), weights_only=True)
    except Exception as problem:  # a damaged file can fail in zipfile, pickle or torch
        raise error(f"cannot read checkpoint {str(path)!r}: {problem}") from None
    if not isinstance(payload, dict) or (kind_field and payload.get("kind") != kind):
        raise error(f"{str(path)!r} is not {article} {kind} checkpoint")
    if version is not None and payload.get("format") != version:
        if not kind_field:
            raise error(f"{str(path)!r} is not {article} {kind} checkpoint")
        raise error(
            f"{str(path)!r} has format {payload.get('format')!r}; this version reads {version!r}"
        )
    return payload


def check_run_folder(last: Path, resume: bool, error: type[ValueError]) -> None:
    """Refuse to start a run over ``last`` (its ``last.pt``), or to resume without one."""
    if resume and not last.exists():
        raise error(f"nothing to resume: no {str(last)!r}")
    if not resume and last.exists():
        raise error(f"{str(last)!r} exists: pass resume to continue that run, or choose a new out")


def write_text_atomic(text: str, path: Path) -> None:
    """Write a text file through a temp file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", dir=path.parent, suffix=".tmp", delete=False, newline=""
    ) as tmp:
        tmp.write(text)
    os.chmod(tmp.name, 0o644)
    os.replace(tmp.name, path)


def precision_warning(device: str, precision: Precision) -> str | None:
    """A warning when ``bf16`` is asked for on a CPU without bfloat16 instructions, where
    it runs many times slower than float32 (16x measured, ``docs/benchmarks.md``)."""
    if precision != "bf16" or not device.startswith("cpu"):
        return None
    supported = getattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", None)
    if supported is None or supported():
        return None
    return (
        "warning: this CPU has no bfloat16 instructions, so precision bf16 runs many times "
        "slower than fp32 here (16x measured); pass --precision fp32"
    )


def autocast(device: torch.device, precision: Precision) -> contextlib.AbstractContextManager[Any]:
    """The context a training forward pass runs in: bfloat16 autocast for ``bf16``, else none.

    On a CPU with AVX-512 BF16 (or a recent GPU) the products run about 2-3x faster; the
    weights, their gradients, the optimizer and the loss stay float32, and evaluation is
    always float32 (``benchmarks/train.py`` measures the speed, docs/models.md the accuracy).
    """
    if precision == "fp32":
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16)


def count_parameters(model: torch.nn.Module) -> int:
    """Number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def _default_of(config: BaseModel, key: str) -> Any:
    """The JSON form of a config key's default (a stand-in for "no default" when required)."""
    field = type(config).model_fields.get(key)
    if field is None or field.is_required():
        return _NO_DEFAULT
    return to_jsonable_python(field.get_default(call_default_factory=True))


_NO_DEFAULT = object()


def restore_run(
    payload: Mapping[str, Any],
    path: Path,
    config: BaseModel,
    resumable: Iterable[str],
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    error: type[ValueError],
    fingerprint: str | None = None,
) -> None:
    """Load a ``last.pt`` payload into ``model`` and ``optimizer`` (and torch's random
    state, when it was saved) after checking it belongs to this run: the same data
    (``fingerprint``, when the trainer has one) and a config changed only in ``resumable``
    keys. A key the checkpoint predates counts as its default, so adding a config key does
    not strand older runs. ``error`` says what does not match."""
    if fingerprint is not None and payload["data_fingerprint"] != fingerprint:
        raise error(f"{str(path)!r} was trained on other data; cannot resume on this data")
    saved = dict(payload["config"])
    now = config.model_dump(mode="json")
    allowed = set(resumable)
    changed = sorted(
        key
        for key in now
        if key not in allowed and saved.get(key, _default_of(config, key)) != now[key]
    )
    if changed:
        raise error(f"cannot resume {str(path)!r} with a changed config: {', '.join(changed)}")
    model.load_state_dict(payload["model"])
    optimizer.load_state_dict(payload["optimizer"])
    if payload.get("torch_rng") is not None:
        torch.set_rng_state(payload["torch_rng"].cpu())
    if payload.get("cuda_rng") is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state(payload["cuda_rng"].cpu())
