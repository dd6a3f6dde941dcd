"""How many times `mx.compile` has traced one of our functions, so a round that paid for a trace is known.

A compiled function's Python body runs only while MLX traces it (once per new
input shape: a new block length, a grown buffer), and the first evaluation of
a new trace also builds its kernels. A round that did either costs several
times what the same round costs the next time, so k="auto" must not take its
time for what such a round costs (adaptive.AdaptiveK.update's `traced`). Every
function this package hands to `mx.compile` is wrapped in `counted`; the loop
compares `traces()` before and after each round.
"""

from __future__ import annotations

import functools

_traces = 0


def traces() -> int:
    """Traces so far in this process, of every function wrapped in `counted`."""
    return _traces


def counted(fn):
    """`fn`, counting its calls: under `mx.compile` it is called only to trace."""

    @functools.wraps(fn)
    def tracing(*args, **kwargs):
        global _traces
        _traces += 1
        return fn(*args, **kwargs)

    return tracing
