"""Recording the module calls that change a stateful cache, to rebuild it by position.

The ``replay`` and ``positions`` rollbacks (``caches``) need to see, while a
forward pass is built, which module calls receive each stateful unit (a
recurrent layer's ``ArraysCache``, a ``CacheList``, ...). ``instrument(model)``
swaps the class of every module whose ``__call__`` takes a ``cache`` for a
subclass that consults the active ``Recorder`` (none active: it calls straight
through). Arguments are cut by position with ``slice_call``; a call whose
arguments or outputs cannot be cut is logged as ``OPAQUE``, and the sequence
re-feeds that round instead, counting it.
"""

from __future__ import annotations

import inspect

import mlx.core as mx
from mlx_lm.models import cache as mlc

from .caches import fingerprint, restore, snapshot
from .errors import SpecDecError

_ACTIVE: "Recorder | None" = None  # the recorder of the forward pass being built, if any


class Recorder:
    """Watches one forward pass of `n` tokens, for the stateful units in `units`
    (keyed by the id of the unit and of each of its member caches).

    * ``replay``: for each unit, log the *innermost* module calls that receive
      it (or one of its members) by identity: the mixer that owns the state,
      not the decoder layer around it, so a replay skips the layer's norms and
      MLP. When an inner call's arguments cannot be cut by position, the
      enclosing call is logged instead; when none can, the unit's log is
      marked opaque. ``calls[id(unit)]`` holds the log, in call order.
    * ``positions``: the outermost call that receives a unit is split into one
      call per position, and the unit's snapshot after each is logged in
      ``states[id(unit)]``.
    """

    def __init__(self, units: dict, mode: str, n: int):
        self.units, self.mode, self.n = units, mode, n
        self.calls: dict[int, list] = {}
        self.states: dict[int, list] = {}
        self._frames: dict[int, list] = {}  # per unit: collectors of the calls in flight
        self.checkpoints: dict[int, tuple] = {}  # per unit: its snapshot as its first call began
        self.seams: dict[int, list] = {}  # per unit: fingerprints before and after each logged call
        self.inside = False  # positions: inside a split call

    def owner_of(self, args, kwargs):
        for value in (*args, *kwargs.values()):
            unit = self.units.get(id(value))
            if unit is not None:
                return unit
        return None

    def run(self, unit, module, call, args, kwargs):
        if self.mode == "replay":
            return self._logged(unit, module, call, args, kwargs)
        return self._split(unit, module, call, args, kwargs)

    def _logged(self, unit, module, call, args, kwargs):
        frames = self._frames.setdefault(id(unit), [])
        if not frames and id(unit) not in self.checkpoints:
            # The state this pass's calls start from, after whatever the model's own
            # code did to the unit first (llama4 trims a chunk's front before its layers).
            self.checkpoints[id(unit)] = snapshot(unit)
        frames.append([])
        before = fingerprint(unit)
        try:
            out = call(module, *args, **kwargs)
        finally:
            inner = frames.pop()
        after = fingerprint(unit)
        own = (module, call, args, kwargs) if sliceable(args, kwargs, self.units, self.n) else OPAQUE
        entries = [e for logged, _, _ in inner for e in logged]
        # The inner calls stand for this one only if they made every change to the
        # unit: this call's own code must not touch it before, between or after them.
        seams = [before, *(f for _, b, a in inner for f in (b, a)), after]
        inner_only = bool(inner) and all(seams[i] == seams[i + 1] for i in range(0, len(seams), 2))
        if not inner_only or (OPAQUE in entries and own is not OPAQUE):
            entries = [own]
        if frames:
            frames[-1].append((entries, before, after))
        else:
            self.calls.setdefault(id(unit), []).extend(entries)
            self.seams.setdefault(id(unit), []).extend((before, after))
        return out

    def complete(self, unit) -> bool:
        """Did this pass change `unit` only inside its logged calls (after the first began)?"""
        seams = [*self.seams.get(id(unit), [])[1:], fingerprint(unit)]
        return bool(self.calls.get(id(unit))) and all(seams[i] == seams[i + 1] for i in range(0, len(seams), 2))

    def _split(self, unit, module, call, args, kwargs):
        states = self.states.setdefault(id(unit), [])
        if not sliceable(args, kwargs, self.units, self.n):
            states.append(OPAQUE)
            return call(module, *args, **kwargs)
        start, mark = snapshot(unit), len(states)
        self.inside = True
        try:
            outs = []
            for p in range(self.n):
                a, kw = (args, kwargs) if self.n == 1 else slice_call(args, kwargs, p, p + 1, self.n)
                outs.append(call(module, *a, **kw))
                states.append(snapshot(unit))
            return outs[0] if self.n == 1 else _concat_outputs(outs)
        except _Unsplittable:
            # Outputs that cannot be joined by position: undo the split, run the call whole.
            restore(unit, start)
            del states[mark:]
            states.append(OPAQUE)
            return call(module, *args, **kwargs)
        finally:
            self.inside = False


class _Unsplittable(Exception):
    pass


OPAQUE = ("opaque",)  # a logged call that cannot be replayed or split by position


def recording(recorder: "Recorder | None"):
    """Context manager: make `recorder` watch the forward pass built inside it."""
    return _Recording(recorder)


class _Recording:
    def __init__(self, recorder):
        self.recorder = recorder

    def __enter__(self):
        global _ACTIVE
        _ACTIVE = self.recorder

    def __exit__(self, *exc):
        global _ACTIVE
        _ACTIVE = None


def replay(unit, log: list, n_valid: int) -> None:
    """Land `unit` on position n_valid of the round from its replay log: one
    ``(checkpoint, n, calls)`` per forward pass since the commit. Restore the
    checkpoint of the pass holding the boundary, then make that pass's calls
    again over its accepted positions. When the boundary falls between passes
    (a drafter's one-token steps) nothing is recomputed."""
    start = 0
    for checkpoint, n, calls in log:
        if start + n > n_valid:
            restore(unit, checkpoint)
            if n_valid > start:
                for module, call, args, kwargs in calls:
                    a, kw = slice_call(args, kwargs, 0, n_valid - start, n)
                    call(module, *a, **kw)
            return
        start += n
    raise SpecDecError(f"replay log covers {start} positions, cannot land on {n_valid}")


def logged_positions(log: list) -> int:
    """Positions a unit's log can land on; -1 when a pass cannot be rebuilt from it."""
    if not log:
        return 0
    if isinstance(log[0], tuple) and len(log[0]) == 3:  # replay: (checkpoint, n, calls) per pass
        if any(not calls or OPAQUE in calls for _, _, calls in log):
            return -1
        return sum(n for _, n, _ in log)
    return -1 if OPAQUE in log else len(log)  # positions: one state per position


def _slice(x, lo: int, hi: int, n: int):
    """Positions lo:hi of an argument built for an n-position call."""
    if isinstance(x, mx.array):
        shape = x.shape
        if x.ndim == 4 and shape[1] == n and shape[2] != n:  # per-head activations (B, n, H, D)
            return x[:, lo:hi]
        if x.ndim in (2, 4) and shape[-2] == n and shape[-1] >= n:  # mask (.., n, keys)
            return x[..., lo:hi, : shape[-1] - n + hi]
        if x.ndim >= 3 and shape[1] == n:  # hidden states (B, n, D)
            return x[:, lo:hi]
        if x.ndim == 2 and shape == (1, n):  # position ids (B, n)
            return x[:, lo:hi]
        if x.ndim == 1 and shape[0] == n:
            return x[lo:hi]
        return x
    if isinstance(x, (list, tuple)) and not isinstance(x, mlc.CacheList):
        return type(x)(_slice(v, lo, hi, n) for v in x)
    return x


def slice_call(args, kwargs, lo: int, hi: int, n: int):
    """The arguments of a call over positions lo:hi. A keyword ``offset`` (the
    position of the call's first token, as bailing's and gemma3n's layers take
    it) moves with the slice."""
    kwargs = {k: (v + lo if k == "offset" and isinstance(v, int) else _slice(v, lo, hi, n)) for k, v in kwargs.items()}
    return tuple(_slice(a, lo, hi, n) for a in args), kwargs


_PLAIN = (mx.array, str, int, float, bool, type(None))


def ambiguous(x: mx.array, n: int) -> bool:
    """An array `_slice` cannot cut with certainty: 4-D with both middle axes n long, so per-head activations
    (B, n, H, D) with H == n and a mask (B, H, n, keys) with H == n look alike (rwkv7's 4 heads in a 4-token
    pass were cut along the heads)."""
    return x.ndim == 4 and x.shape[1] == n and x.shape[2] == n and n > 1


def sliceable(args, kwargs, units: dict, n: int | None = None) -> bool:
    """Can this call be cut by position? Only if every argument is an array, a
    plain value, a cache, or a list/tuple of those: an opaque object (kimi_k3's
    block residuals) may carry per-position data we cannot see to slice; nor
    when an array's position axis is ambiguous (then the enclosing call, or a
    re-feed, rebuilds the state instead)."""

    def ok(v):
        if isinstance(v, mx.array):
            return n is None or not ambiguous(v, n)
        if isinstance(v, _PLAIN) or id(v) in units or isinstance(v, mlc._BaseCache):
            return True
        if isinstance(v, (list, tuple)):
            return all(ok(x) for x in v)
        return False

    return all(ok(v) for v in (*args, *kwargs.values()))


def _concat_outputs(outs: list):
    """Join per-position outputs along the position axis (arrays, tuples of them, None)."""
    first = outs[0]
    if isinstance(first, (int, float, str, bool, type(None))) and all(type(o) is type(first) and o == first for o in outs):
        return first
    if isinstance(first, mx.array) and all(isinstance(o, mx.array) and o.shape[2:] == first.shape[2:] for o in outs):
        if first.ndim >= 2 and first.shape[1] == 1:
            return mx.concatenate(outs, axis=1)
    if isinstance(first, tuple) and all(isinstance(o, tuple) and len(o) == len(first) for o in outs):
        return tuple(_concat_outputs([o[i] for o in outs]) for i in range(len(first)))
    raise _Unsplittable(type(first).__name__)


_INSTRUMENTED: dict[type, type] = {}


def _instrumented_class(cls: type) -> type:
    sub = _INSTRUMENTED.get(cls)
    if sub is None:
        call = cls.__call__

        def __call__(self, *args, **kwargs):
            rec = _ACTIVE
            if rec is None or rec.inside:
                return call(self, *args, **kwargs)
            unit = rec.owner_of(args, kwargs)
            if unit is None:
                return call(self, *args, **kwargs)
            return rec.run(unit, self, call, args, kwargs)

        sub = type(cls.__name__, (cls,), {"__call__": __call__, "__module__": cls.__module__})
        sub.__qualname__ = cls.__qualname__
        _INSTRUMENTED[cls] = sub
        _INSTRUMENTED[sub] = sub
    return sub


def is_instrumented(cls: type) -> bool:
    """Whether instances of `cls` already consult the active recorder (it is, or derives from, an instrumented class)."""
    return _INSTRUMENTED.get(cls) is cls


def mark_instrumented(cls: type) -> None:
    """`cls` derives from an instrumented class (e.g. a feature tap over one): instrument() leaves it as it is."""
    _INSTRUMENTED[cls] = cls


def instrument(model) -> None:
    """Let a Recorder see the calls of `model`'s modules that take a cache.

    Each such module's class is swapped for a subclass whose ``__call__``
    consults the active recorder; with none active it calls straight through.
    Idempotent.
    """
    for module in model.modules():
        if module is model:
            continue
        cls = type(module)
        sub = _INSTRUMENTED.get(cls)
        if sub is cls or cls in _NO_CACHE_ARG:
            continue
        if sub is None:
            try:
                takes_cache = "cache" in inspect.signature(cls.__call__).parameters
            except (TypeError, ValueError):
                takes_cache = False
            if not takes_cache:
                _NO_CACHE_ARG.add(cls)
                continue
        module.__class__ = _instrumented_class(cls)


_NO_CACHE_ARG: set[type] = set()
