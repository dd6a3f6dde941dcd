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
"""

from __future__ import annotations

import time
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


class RowCache:
    """rows (R, ...) int -> the frozen pass's arrays for them, each stacked on a leading R axis.

    `compute(rows)` runs the pass over the rows it is given (only those not kept yet, each distinct row once)
    and returns a tuple of arrays with one leading entry per row; they are kept as given (cast them to what
    should be kept, float16 say, inside `compute`)."""

    def __init__(self, compute: Callable[[np.ndarray], tuple], clock: Callable[[], float] = time.perf_counter):
        self.compute, self.clock = compute, clock
        self.rows: dict[bytes, tuple] = {}
        self.spent_s = 0.0  # every second spent computing, first call included
        self.computed = 0  # rows the frozen model ran over
        self._first: tuple[float, int] | None = None  # (seconds, rows) of the first call
        self._later = [0.0, 0]  # seconds and rows of every later call

    def __call__(self, rows: np.ndarray) -> tuple:
        keys = [r.tobytes() for r in rows]
        missing = missing_rows(keys, self.rows)
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
                self.rows[keys[i]] = tuple(a[j] for a in out)
        parts = [self.rows[k] for k in keys]
        return tuple(mx.stack([p[n] for p in parts]) for n in range(len(parts[0])))

    def seconds_per_row(self) -> float:
        """What one more row costs: the later calls' rate, or the first call's while there is no other."""
        seconds, n = self._later if self._later[1] else (self._first or (0.0, 0))
        return seconds / max(n, 1)

    def left_s(self, *row_sets: np.ndarray) -> float:
        """Seconds still to spend on the distinct rows of `row_sets` that are not kept yet."""
        keys = {r.tobytes() for rows in row_sets for r in rows}
        return sum(k not in self.rows for k in keys) * self.seconds_per_row()
