"""Reading and writing model folders: the pieces every model kind shares.

Each failure a user can cause ends in a one-line `ModelLoadError` naming the
file, parameter or value; writers build a sibling temp folder and move it into
place, so readers never see a half-written folder.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core on Linux)
import mlx.core as mx
from mlx.utils import tree_flatten

from ..errors import ModelLoadError


def first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def read_json(path: Path, what: str = "a JSON object") -> dict:
    """A JSON object from `path`, or a one-line error naming the file."""
    path = Path(path)
    if not path.is_file():
        raise ModelLoadError(f"{path} is missing")
    try:
        value = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ModelLoadError(f"{path} is not valid JSON ({e})") from None
    if not isinstance(value, dict):
        raise ModelLoadError(f"{path} must hold {what}")
    return value


def load_safetensors(path: Path) -> dict:
    try:
        return dict(mx.load(str(path), format="safetensors"))
    except Exception as e:  # noqa: BLE001 - MLX raises several types for bad files
        raise ModelLoadError(f"{path} is corrupt or truncated ({first_line(e)})") from None


def check_weights(model, weights: dict, where: str) -> None:
    """One-line ModelLoadError unless `weights` holds exactly the model's parameters, shapes included."""
    expected = dict(tree_flatten(model.parameters()))
    missing = sorted(set(expected) - set(weights))
    if missing:
        raise ModelLoadError(
            f"{where} lacks parameter {missing[0]!r} ({len(missing)} missing: {', '.join(missing[:3])}"
            f"{', ...' if len(missing) > 3 else ''})"
        )
    extra = sorted(set(weights) - set(expected))
    if extra:
        raise ModelLoadError(f"{where} has unexpected parameter {extra[0]!r} ({len(extra)} extra)")
    for name, p in expected.items():
        if tuple(weights[name].shape) != tuple(p.shape):
            raise ModelLoadError(
                f"parameter {name!r}: config implies shape {tuple(p.shape)}, {where} has {tuple(weights[name].shape)}"
            )


def compute_dtype() -> mx.Dtype:
    """fp32 on the CPU (fp16/bf16 matmuls there skip BLAS), fp16 on GPUs."""
    return mx.float16 if mx.default_device() == mx.gpu else mx.float32


def atomic_folder(out: Path, fill: Callable[[Path], None]) -> Path:
    """Build a folder with ``fill(tmp)`` beside `out`, fsync it, then move it into place."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        fill(tmp)
        for f in tmp.iterdir():
            if f.is_file():
                with open(f, "rb") as fh:
                    os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o777 & ~umask)  # mkdtemp makes it private; a model folder is for sharing
        old = None
        if out.exists():
            # rename cannot replace a non-empty folder: move the old one aside, then delete it.
            old = out.parent / f".{out.name}.old-{os.getpid()}"
            os.replace(out, old)
        os.replace(tmp, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out
