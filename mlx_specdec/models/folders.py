"""Reading and writing model folders: the pieces every model kind shares.

Each failure a user can cause ends in a one-line `ModelLoadError` naming the
file, parameter or value; writers build a sibling temp folder and move it into
place, so readers never see a half-written folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

import mlx.core as mx
from mlx.utils import tree_flatten

from ..errors import ModelLoadError, SpecDecError


def first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes, read in 1 MB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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


# ---------------------------------------------------------------- writing: never over what we did not make

def folder_model_type(path) -> str | None:
    """The model_type a folder's config.json names, None where there is none or it cannot be read."""
    p = Path(path) / "config.json"
    if not p.is_file():
        return None
    try:
        config = json.loads(p.read_text())
    except (OSError, ValueError):
        return None
    return config.get("model_type") if isinstance(config, dict) else None


def float16_weights(model) -> dict:
    """A module's parameters as stored in a drafter folder: float16, integer maps (d2t) as they are."""
    return {k: (v if v.dtype == mx.int32 else v.astype(mx.float16)) for k, v in tree_flatten(model.parameters())}


def is_model_folder(path: Path) -> bool:
    """A folder this toolkit (or mlx-lm, or a hub snapshot) wrote: config.json naming a model_type."""
    path = Path(path)
    try:
        config = json.loads((path / "config.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and isinstance(config.get("model_type"), str)


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


def check_out(out, *, overwrite: bool = False, protect: dict | None = None, flag: str = "--out",
              need_bytes: int = 0) -> Path:
    """Refuse an output folder whose replacement would destroy something we did not make.

    Refused: an existing file; an existing non-empty folder that is not a model
    folder; a model folder unless `overwrite`; the working directory or any
    folder containing it; a folder equal to or containing a path in `protect`
    ({flag: path}, e.g. the base model or the run directory); a place we cannot
    write or without `need_bytes` free. Returns `out` as a Path.
    """
    out = Path(out)
    where = out.resolve()
    cwd = Path.cwd().resolve()
    if _inside(cwd, where):
        raise SpecDecError(f"{flag} {str(out)!r} is the working directory or contains it; choose a new folder")
    for other_flag, other in (protect or {}).items():
        if other is None:
            continue
        if _inside(Path(other).resolve(), where):
            same = Path(other).resolve() == where
            raise SpecDecError(
                f"{flag} {str(out)!r} {'is' if same else 'contains'} {other_flag} {str(other)!r}: writing it would "
                f"delete {other_flag}; choose another {flag}"
            )
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise SpecDecError(f"{flag} {str(out)!r} is an existing file; choose a new folder (nothing is written over it)")
    if out.is_dir() and any(out.iterdir()):
        if not is_model_folder(out):
            raise SpecDecError(
                f"{flag} {str(out)!r} exists and is not a model folder; choose a new folder "
                "(only a model folder can be replaced, with --overwrite)"
            )
        if not overwrite:
            raise SpecDecError(f"{flag} {str(out)!r} already holds a model; pass --overwrite to replace it")
    check_writable(out.parent if not out.is_dir() else out, need_bytes, flag=flag, shown=out)
    return out


def check_writable(folder, need_bytes: int = 0, *, flag: str = "--out", shown=None) -> None:
    """Before long work: `folder` (or its nearest existing ancestor) takes a file, and has room."""
    folder = Path(folder)
    shown = folder if shown is None else shown
    probe_dir = folder
    while not probe_dir.exists() and probe_dir != probe_dir.parent:
        probe_dir = probe_dir.parent
    if not probe_dir.is_dir():
        raise SpecDecError(f"{flag} {str(shown)!r} cannot be created: {str(probe_dir)!r} is a file")
    try:
        fd, probe = tempfile.mkstemp(prefix=".write-probe-", dir=probe_dir)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise SpecDecError(f"{flag} {str(shown)!r} is not writable ({e.strerror or e} in {str(probe_dir)!r})") from None
    if need_bytes:
        free = shutil.disk_usage(probe_dir).free
        if free < need_bytes:
            raise SpecDecError(
                f"{flag} {str(shown)!r}: {free / 1e6:,.0f} MB free in {str(probe_dir)!r}, "
                f"about {need_bytes / 1e6:,.0f} MB needed"
            )


def atomic_folder(out: Path, fill: Callable[[Path], None], *, overwrite: bool = False) -> Path:
    """Build a folder with ``fill(tmp)`` beside `out`, fsync it, then move it into place.

    `out` must be new, an empty folder, or (with `overwrite`) a model folder:
    see check_out. The temp folder is removed on every failure, and a replaced
    model folder is restored if the final move fails.
    """
    out = check_out(out, overwrite=overwrite)
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
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.replace(out, old)
        try:
            os.replace(tmp, out)
        except BaseException:
            if old is not None:
                os.replace(old, out)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def write_text_atomic(path, text: str) -> None:
    """Replace one file's text through a temp file beside it, removed if anything fails."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_model_folder(out, model, tokenizer_path, config: dict, card_text: str, *, overwrite: bool = False) -> Path:
    """A model-store folder, atomically: fp16 weights, the tokenizer, config.json and the card."""

    def fill(tmp: Path) -> None:
        weights = {k: v.astype(mx.float16) for k, v in tree_flatten(model.parameters())}
        mx.save_safetensors(str(tmp / "model.safetensors"), weights, metadata={"format": "mlx"})
        shutil.copyfile(tokenizer_path, tmp / "tokenizer.model")
        (tmp / "config.json").write_text(json.dumps(config, indent=2) + "\n")
        (tmp / "README.md").write_text(card_text)

    return atomic_folder(Path(out), fill, overwrite=overwrite)
