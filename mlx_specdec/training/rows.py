"""A frozen model's pass over each training row, kept after its first.

The EAGLE-3, block-drafter and chat MTP-head trainers learn from a frozen
model (the target, the trunk) whose pass over a row never changes, so the
pass is run once per distinct row and read back in every later epoch. What
that first epoch costs is work the run does once, beyond its steps: the time
budget's calibration asks `left_s` for it (`loop.Task.one_time_s`), and
`spent_s` says how much of a timed stretch (a validation) it was.

The rate excludes the first call once later ones exist: a first call also
pays for compiling the model's kernels (MLX's CPU backend builds them with
the system compiler), which priced every later row at up to twice its cost
and left a fifth of an EAGLE-3 run's budget unspent.

A cache may be given a size (`max_bytes`): once it is full, a new row's pass
is used and dropped, and that row is run again each time it is drawn. Its
cost then recurs with every step (`recurring_s`) instead of being paid once.

A cache may also be given a `RowStore`, a folder of one file per row: a row
is read from it before the frozen model is run, and every row run is written
to it, so a resumed run, a second stage or another trainer over the same
rows of the same pass (same model weights, feature layers and vocabulary:
the folder's name says which) skips the first epoch's passes, and a row the
memory cannot keep is read back rather than run again.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from pathlib import Path
from typing import Callable

import mlx.core as mx
import numpy as np


def missing_rows(keys: list[bytes], kept: dict) -> list[int]:
    """The index of each distinct key not in `kept` (its first occurrence, in order): the rows a frozen model
    must still be run over, once each."""
    first: dict[bytes, int] = {}
    for i, k in enumerate(keys):
        if k not in kept:
            first.setdefault(k, i)
    return list(first.values())


class RowStore:
    """One safetensors file per row, named by a hash of the row's bytes, in a folder named by a hash of what
    the pass depends on (`describe`, also written beside the rows as pass.json). Files are written atomically
    (a temporary name, then a rename); one that does not read back is run again and rewritten."""

    def __init__(self, root: str | Path, describe: dict):
        text = json.dumps(describe, sort_keys=True)
        self.folder = Path(root) / hashlib.sha256(text.encode()).hexdigest()[:16]
        self.folder.mkdir(parents=True, exist_ok=True)
        about = self.folder / "pass.json"
        if not about.is_file():
            about.write_text(text + "\n")
        self.read = self.written = 0

    def rate(self) -> float:
        """Seconds a row's pass took when the rows here were run (0.0 when not known): what a new cache prices
        the rows it has still to run at before it has timed one itself."""
        try:
            return float(json.loads((self.folder / "rate.json").read_text())["seconds_per_row"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0.0

    def set_rate(self, seconds: float) -> None:
        tmp = self.folder / f".rate.{os.getpid()}.tmp"
        tmp.write_text(json.dumps({"seconds_per_row": seconds}) + "\n")
        os.replace(tmp, self.folder / "rate.json")

    def path(self, key: bytes) -> Path:
        return self.folder / (hashlib.sha256(key).hexdigest()[:32] + ".safetensors")

    def has(self, key: bytes) -> bool:
        return self.path(key).is_file()

    def get(self, key: bytes) -> tuple | None:
        path = self.path(key)
        if not path.is_file():
            return None
        try:
            arrays = mx.load(str(path))
            part = tuple(arrays[str(i)] for i in range(len(arrays)))
            mx.eval(*part)
        except (OSError, ValueError, RuntimeError, KeyError):
            return None
        self.read += 1
        return part

    def put(self, key: bytes, part: tuple) -> None:
        path = self.path(key)
        tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.safetensors")
        mx.save_safetensors(str(tmp), {str(i): a for i, a in enumerate(part)})
        os.replace(tmp, path)
        self.written += 1


class RowCache:
    """rows (R, ...) int -> the frozen pass's arrays for them, each stacked on a leading R axis.

    `compute(rows)` runs the pass over the rows it is given (only those not kept yet, each distinct row once)
    and returns a tuple of arrays with one leading entry per row; they are kept as given (cast them to what
    should be kept, float16 say, inside `compute`)."""

    def __init__(self, compute: Callable[[np.ndarray], tuple], clock: Callable[[], float] = time.perf_counter,
                 max_bytes: float = math.inf, store: RowStore | None = None):
        self.compute, self.clock, self.max_bytes, self.store = compute, clock, max_bytes, store
        self.rows: dict[bytes, tuple] = {}
        self.kept_bytes = 0
        self.row_bytes = 0  # what the last row run or read takes to keep
        self.spent_s = 0.0  # every second spent computing, first call included
        self.computed = 0  # rows the frozen model ran over
        self._first: tuple[float, int] | None = None  # (seconds, rows) of the first call
        self._later = [0.0, 0]  # seconds and rows of every later call

    def __call__(self, rows: np.ndarray) -> tuple:
        keys = [r.tobytes() for r in rows]
        missing = missing_rows(keys, self.rows)
        fresh: dict[bytes, tuple] = {}  # rows not kept in memory: read from the store or run now
        if self.store is not None and missing:
            for i in missing:
                part = self.store.get(keys[i])
                if part is not None:
                    fresh[keys[i]] = part
            missing = [i for i in missing if keys[i] not in fresh]
        if missing:
            t0 = self.clock()
            out = self.compute(rows[missing])
            mx.eval(*out)
            seconds = self.clock() - t0
            self.spent_s += seconds
            self.computed += len(missing)
            if self._first is None:
                self._first = (seconds, len(missing))
            else:
                self._later[0] += seconds
                self._later[1] += len(missing)
            for j, i in enumerate(missing):
                fresh[keys[i]] = part = tuple(a[j] for a in out)
                if self.store is not None:
                    self.store.put(keys[i], part)
            if self.store is not None:
                self.store.set_rate(self.seconds_per_row())
        for key, part in fresh.items():
            self.row_bytes = sum(a.nbytes for a in part)
            if self.kept_bytes + self.row_bytes <= self.max_bytes:
                self.rows[key] = part
                self.kept_bytes += self.row_bytes
        parts = [self.rows.get(k) or fresh[k] for k in keys]
        return tuple(mx.stack([p[n] for p in parts]) for n in range(len(parts[0])))

    def seconds_per_row(self) -> float:
        """What one more row costs: the later calls' rate, or the first call's while there is no other."""
        if self._first is None and self.store is not None:
            return self.store.rate()
        seconds, n = self._later if self._later[1] else (self._first or (0.0, 0))
        return seconds / max(n, 1)

    def _room(self) -> float:
        """How many more rows fit (inf until a row has been seen or without a size)."""
        if self.max_bytes == math.inf or not self.row_bytes:
            return math.inf
        return max(0, (self.max_bytes - self.kept_bytes) // self.row_bytes)

    def _unkept(self, row_sets) -> tuple[int, int]:
        """(distinct rows of row_sets neither kept yet nor in the store, distinct rows in all)."""
        keys = {r.tobytes() for rows in row_sets for r in rows}
        unkept = [k for k in keys if k not in self.rows]
        if self.store is not None:
            unkept = [k for k in unkept if not self.store.has(k)]
        return len(unkept), len(keys)

    def left_s(self, *row_sets: np.ndarray) -> float:
        """Seconds still to spend once on the distinct rows of `row_sets` not kept yet: those that still fit,
        or all of them with a store (a row past the size is read back from it)."""
        unkept, _ = self._unkept(row_sets)
        return min(unkept, self._room() if self.store is None else math.inf) * self.seconds_per_row()

    def recurring_s(self, rows: np.ndarray, per_step: int) -> float:
        """Seconds a step of `per_step` rows drawn from `rows` spends on rows that will never fit: the share of
        them past the cache's size, run again each time they are drawn (none with a store: a read is cheap)."""
        if self.store is not None:
            return 0.0
        unkept, total = self._unkept([rows])
        never = max(0, unkept - self._room()) if total else 0
        return per_step * never / max(total, 1) * self.seconds_per_row()
