"""What k="auto" learned about a pair, kept between processes: FFTW's wisdom, an autotuner's cache.

`mlx-specdec generate` runs one generation per process, so without this every
command would start k="auto" cold: it would pay again to learn what a round of
each k costs on this machine and how often the pair's drafts are accepted. The
calibration file holds, per (target, drafter, machine, dtype, greedy or
sampled), the estimates a generation ended with (`AdaptiveK.snapshot`); the
next generation of the same pair starts from them (`AdaptiveK.warm_start`,
round times kept as the pair's, acceptance shrunk to a few rounds: it is the
text's) and writes its own back when it ends.

* Where: ``$MLX_SPECDEC_CALIBRATION`` (a file path, or ``off``), else
  ``calibration.json`` in ``$MLX_SPECDEC_CACHE`` (default
  ``~/.cache/mlx-specdec``). `generate --no-calibration` turns it off for one
  command.
* Which models: those `load()` read from a folder (their identity is the
  folder and its weight files' sizes and times); a model built in memory has
  no identity, and its generations neither read nor write the file.
* Written atomically (a temporary file in the same folder, then a rename);
  two processes at once: the last one's entry wins.
* An entry from another calibration format, another mlx or mlx-specdec
  version, or older than MAX_AGE_DAYS is stale: ignored with one line and
  replaced. A file that is not a calibration file (corrupt, or someone
  else's) is ignored with one line and never overwritten.
* Beside the pairs, per model (identity, dtype, machine, mlx / mlx-lm /
  mlx-specdec versions), the verdicts of one-time probes (`probe_verdict`):
  whether the compiled step reproduces the plain one (`state.compiled_step_works`)
  costs a trace and two short passes, 15 ms for a 1M StoryLM and 0.34 s for
  SmolLM2-135M, in every process that would otherwise ask again. A stale
  verdict is asked again, silently.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

from .paths import cache_dir

FORMAT = "mlx-specdec calibration"
VERSION = 4  # 2: the drafter's measured step cost (draft_ratio); 3: no pooled acceptance counts; 4: catch_up
MAX_AGE_DAYS = 30
OFF = ("off", "0", "false", "no", "none")

_said: set = set()  # one line per problem per process


def calibration_path() -> Path | None:
    """The calibration file, or None where it is turned off."""
    chosen = os.environ.get("MLX_SPECDEC_CALIBRATION")
    if chosen is not None:
        return None if chosen.strip().lower() in OFF or not chosen.strip() else Path(chosen).expanduser()
    return cache_dir() / "calibration.json"


def mark_origin(model, folder: Path) -> None:
    """Give a model loaded from `folder` its identity: the folder, and its weight files' sizes and times."""
    folder = Path(folder).resolve()
    weights = sorted(folder.glob("*.safetensors"))
    stamp = "|".join(f"{f.name}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in weights)
    try:
        model.__dict__["_specdec_origin"] = f"{folder}|{stamp}"
    except (AttributeError, TypeError):  # an object without a __dict__: no identity, no calibration
        pass


def origin(model) -> str | None:
    return getattr(model, "__dict__", {}).get("_specdec_origin")


@lru_cache(maxsize=1)
def machine() -> str:
    """What a round's cost depends on besides the models: the machine, its device, and MLX."""
    import mlx.core as mx

    cpu = None
    try:  # before platform.processor(), which on Linux spawns `uname -p` inside the timed generation
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cpu = cpu or platform.processor() or platform.machine()
    return f"{platform.system()} {platform.machine()} {cpu} x{os.cpu_count()} {mx.default_device()}"


def _dtype(model) -> str:
    from mlx.utils import tree_flatten

    for _, value in tree_flatten(model.parameters()):
        return str(value.dtype)
    return "none"


def pair_key(target, drafter_identity: str | None, sampled: bool) -> str | None:
    """The entry a generation reads and writes, or None where the target or the drafter has no identity."""
    target_id = origin(target)
    if target_id is None or drafter_identity is None:
        return None
    parts = [target_id, _dtype(target), drafter_identity, machine(), "sampled" if sampled else "greedy"]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]


def _versions() -> dict:
    import mlx.core as mx

    from . import __version__

    return {"mlx": mx.__version__, "mlx_specdec": __version__}


def _say(path: Path, problem: str) -> None:
    if (path, problem) not in _said:
        _said.add((path, problem))
        print(f"mlx-specdec: calibration file {path}: {problem}", file=sys.stderr)


def _read_file(path: Path) -> dict | None:
    """The whole file (its pairs' `entries` and models' `probes`); empty ones where there is no file; None where
    the file is not ours to use or rewrite."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {"format": FORMAT, "entries": {}, "probes": {}}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        _say(path, f"unreadable ({type(e).__name__}); ignored and left as it is (remove it to calibrate afresh)")
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), dict):
        _say(path, "not a calibration file; ignored and left as it is (remove it to calibrate afresh)")
        return None
    if not isinstance(data.get("probes"), dict):  # a file from before probes were kept
        data["probes"] = {}
    return data


def _read(path: Path) -> dict | None:
    """The file's pair entries; {} where there is no file; None where the file is not ours to use or rewrite."""
    data = _read_file(path)
    return None if data is None else data["entries"]


def _write(path: Path, data: dict) -> None:
    """The whole file, atomically (a temporary file in the same folder, then a rename)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".calibration-", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError as e:
        _say(path, f"cannot be written ({type(e).__name__}: {e.strerror or e}); this run's calibration is not kept")
        try:
            os.unlink(tmp)
        except (OSError, UnboundLocalError):
            pass


def load_entry(key: str | None) -> dict | None:
    """The snapshot kept for `key`, or None (no file, no entry, stale, or turned off)."""
    path = calibration_path()
    if key is None or path is None:
        return None
    entries = _read(path)
    entry = (entries or {}).get(key)
    if not isinstance(entry, dict):
        return None
    age_days = (time.time() - float(entry.get("written", 0))) / 86400
    if entry.get("version") != VERSION or entry.get("versions") != _versions() or age_days > MAX_AGE_DAYS:
        _say(path, "an entry for this pair is stale (another version, or older than "
                   f"{MAX_AGE_DAYS} days); calibrating afresh")
        return None
    snapshot = entry.get("snapshot")
    return snapshot if isinstance(snapshot, dict) else None


def save_entry(key: str | None, snapshot: dict, label: str = "") -> None:
    """Write `snapshot` for `key`, atomically; a file that is not ours is left as it is."""
    path = calibration_path()
    if key is None or path is None:
        return
    data = _read_file(path)
    if data is None:
        return
    data["entries"][key] = {"version": VERSION, "versions": _versions(), "written": time.time(), "pair": label,
                            "snapshot": snapshot}
    _write(path, data)


def _probe_key(model, probe: str) -> tuple[str, dict] | None:
    """(key, versions) of a probe's verdict on `model`, or None where the model has no identity."""
    model_id = origin(model)
    if model_id is None:
        return None
    import mlx_lm

    parts = [model_id, type(model).__module__ + "." + type(model).__qualname__, _dtype(model), machine(), probe]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24], {**_versions(), "mlx_lm": mlx_lm.__version__}


def probe_verdict(model, probe: str) -> bool | None:
    """A one-time probe's kept verdict on `model` (None: never asked here, stale, no identity, or turned off)."""
    path, key = calibration_path(), _probe_key(model, probe)
    if path is None or key is None:
        return None
    data = _read_file(path)
    kept = (data or {}).get("probes", {}).get(key[0])
    if not isinstance(kept, dict) or kept.get("versions") != key[1] or not isinstance(kept.get("ok"), bool):
        return None
    if (time.time() - float(kept.get("written", 0))) / 86400 > MAX_AGE_DAYS:
        return None
    return kept["ok"]


def save_probe_verdict(model, probe: str, ok: bool) -> None:
    path, key = calibration_path(), _probe_key(model, probe)
    if path is None or key is None:
        return
    data = _read_file(path)
    if data is None:
        return
    data["probes"][key[0]] = {"ok": ok, "versions": key[1], "written": time.time(), "probe": probe}
    _write(path, data)

