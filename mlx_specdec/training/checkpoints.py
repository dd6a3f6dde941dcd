"""Checkpoints every trainer writes: atomic, checksummed, never holding nan, one step back kept.

A checkpoint holds the trained module's weights (fp32), the optimizer state and
the run's meta (step, schedule length, elapsed time, config, first invocation).
Nothing in a step is random and the batch order is a pure function of
(seed, step), so that is the whole state of a run: a resumed run continues
with exactly the losses an uninterrupted one has.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import os
from pathlib import Path

import mlx.core as mx
import numpy as np
from mlx.utils import tree_flatten, tree_unflatten

from ..errors import SpecDecError, TrainingDiverged

CKPT = "ckpt.safetensors"


def previous_checkpoint(path: Path) -> Path:
    """Where save_checkpoint keeps the checkpoint it replaced: one step back if this one is damaged."""
    return path.with_name(path.stem + ".prev.safetensors")


def tensors_checksum(arrays: dict) -> str:
    """sha256 of a checkpoint's tensors (names, dtypes, shapes and bytes), in name order."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        value = arrays[name]
        digest.update(f"{name}:{value.dtype}:{tuple(value.shape)};".encode())
        digest.update(np.asarray(value).tobytes())
    return digest.hexdigest()


def check_finite_loss(loss: float, step: int, ckpt_path: Path) -> None:
    """Stop a run whose loss is nan or inf: nothing from this state is ever saved."""
    if math.isfinite(loss):
        return
    raise TrainingDiverged(f"loss is {loss} at step {step}: training stopped and nothing was saved; "
                           f"{_last_good(ckpt_path)}")


def _last_good(ckpt_path: Path) -> str:
    meta = _header_meta(ckpt_path)
    if meta is None:
        return "no checkpoint was written yet: start again with a lower --lr (or check the data)"
    return (f"the last good checkpoint {str(ckpt_path)!r} (step {meta.get('step')}) is kept: "
            "continue it with --resume, perhaps with a lower --lr")


def _header_meta(path: Path) -> dict | None:
    """The run meta from a safetensors header alone (8-byte length, JSON): no tensor is read."""
    try:
        with open(path, "rb") as fh:
            size = int.from_bytes(fh.read(8), "little")
            if not 0 < size < 100_000_000:
                return None
            header = json.loads(fh.read(size))
        return json.loads(header["__metadata__"]["meta"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _non_finite(arrays: dict) -> str | None:
    """The first tensor holding nan or inf, if any (one sync for all of them)."""
    names = [k for k, v in arrays.items() if mx.issubdtype(v.dtype, mx.floating)]
    flags = [mx.all(mx.isfinite(arrays[k])) for k in names]
    mx.eval(flags)
    return next((k for k, ok in zip(names, flags) if not ok.item()), None)


def save_checkpoint(path: Path, model, optimizer, meta: dict, prefix: str = "model",
                    extra: dict | None = None) -> None:
    """Weights (fp32), optimizer moments and step, and the run's meta in one file.

    Written to a temp file and fsynced before os.replace: a run killed at any
    moment leaves either the previous checkpoint or the new one, never a torn one.
    The file carries a checksum of its tensors, the checkpoint it replaces is
    kept as ckpt.prev.safetensors, and weights holding nan/inf are never written.
    `prefix` names the trained module's tensors (the MTP trainer saves a "head");
    `extra` holds a task's own tensors (named apart from both), given back by load_checkpoint.
    """
    arrays = {f"{prefix}.{k}": v for k, v in tree_flatten(model.parameters())}
    arrays.update({f"optim.{k}": v for k, v in tree_flatten(optimizer.state)})
    arrays.update(extra or {})
    bad = _non_finite(arrays)
    if bad is not None:
        raise TrainingDiverged(f"{bad} holds nan or inf at step {meta.get('step')}: training stopped and "
                               f"this state was not saved; {_last_good(path)}")
    metadata = {"meta": json.dumps(meta), "tensors_sha256": tensors_checksum(arrays)}
    tmp = path.with_name(path.stem + ".tmp.safetensors")
    try:
        mx.save_safetensors(str(tmp), arrays, metadata=metadata)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        if path.is_file():  # keep the one we replace, by a hard link, so `path` never goes missing
            prev, link = previous_checkpoint(path), path.with_name(path.stem + ".prev.tmp")
            link.unlink(missing_ok=True)
            try:
                os.link(path, link)
                os.replace(link, prev)
            except OSError:
                link.unlink(missing_ok=True)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def recovery(path: Path) -> str:
    prev = previous_checkpoint(path)
    if prev.is_file():
        return f"recover the one before it: mv {prev} {path}, then run again with --resume"
    return f"no earlier checkpoint is kept: remove it (rm {path}) and start again without --resume"


def _read_checkpoint(path: Path, required: dict | None = None):
    try:
        arrays, metadata = mx.load(str(path), format="safetensors", return_metadata=True)
        meta = json.loads(metadata["meta"])
    except Exception as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise SpecDecError(f"checkpoint {str(path)!r} is unreadable ({msg}); {recovery(path)}") from None
    want = metadata.get("tensors_sha256")
    if want is not None and tensors_checksum(arrays) != want:
        raise SpecDecError(f"checkpoint {str(path)!r} is corrupted (its tensors do not match the checksum saved "
                           f"with them); {recovery(path)}")
    if not isinstance(meta, dict):
        raise SpecDecError(f"checkpoint {str(path)!r} has no run metadata; {recovery(path)}")
    for key, kind in (required or {}).items():
        if key not in meta:
            raise SpecDecError(f"checkpoint {str(path)!r} lacks {key!r} in its metadata; {recovery(path)}")
        if not isinstance(meta[key], kind) or isinstance(meta[key], bool):
            raise SpecDecError(f"checkpoint {str(path)!r}: {key} is {meta[key]!r}; {recovery(path)}")
    return arrays, meta


# What a resumed run reads from a checkpoint's meta, and its type.
CHECKPOINT_META = {"step": int, "max_steps": int, "elapsed_s": (int, float)}  # every run; trainers add their own


def read_checkpoint_meta(path: Path, required: dict | None = None) -> dict:
    return _read_checkpoint(path, required)[1]


def load_checkpoint(path: Path, model, optimizer, prefix: str = "model") -> tuple[dict, dict]:
    """Restore the module and the optimizer; returns the meta and the tensors that are neither (a task's extra)."""
    arrays, meta = _read_checkpoint(path)
    cut = len(prefix) + 1
    model.update(tree_unflatten([(k[cut:], v) for k, v in arrays.items() if k.startswith(prefix + ".")]))
    optimizer.state = tree_unflatten([(k[6:], v) for k, v in arrays.items() if k.startswith("optim.")])
    mx.eval(model.parameters(), optimizer.state)
    extra = {k: v for k, v in arrays.items() if not k.startswith((prefix + ".", "optim."))}
    return meta, extra


def truncate_csv(path: Path, step: int, fields: list[str]) -> None:
    """Drop log rows past the checkpoint a resumed run restarts from."""
    if not path.is_file():
        return
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if int(r["step"]) <= step]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fields)
        w.writeheader()
        w.writerows(rows)
