"""The target's hidden states at chosen layers, captured in the pass that computes its logits.

A feature drafter (EAGLE-3 style) reads the outputs of a few target layers
at every position the target verifies. `tap(model, layers)` swaps the class of
those decoder layers (`model.layers[i]`) for a subclass whose `__call__` also
writes its output into the active `capture()` sink; with no sink active it
calls straight through, so a tapped model runs as before everywhere else (the
replay rollback's re-feeds included). The module tree and its parameters are
untouched, so compiled steps and weight fingerprints see the same model.

Layer i's feature is what decoder layer i returns (its residual stream after
the layer); `features(sink, layers)` concatenates them in the order asked,
(T, len(layers) * D).
"""

from __future__ import annotations

import functools
from contextlib import contextmanager

import mlx.core as mx

from . import replay
from .errors import SpecDecError

_SINK: dict | None = None  # layer index -> its output in the pass being built
_TAPPED: dict[type, type] = {}


def _tapped_class(cls: type) -> type:
    if cls in _TAPPED:
        return _TAPPED[cls]
    call = cls.__call__

    @functools.wraps(call)  # keeps the signature: replay.instrument still sees the layer takes a cache
    def __call__(self, *args, **kwargs):
        out = call(self, *args, **kwargs)
        if _SINK is not None:
            _SINK[self._specdec_layer] = out[0] if isinstance(out, tuple) else out
        return out

    sub = type(cls.__name__, (cls,), {"__call__": __call__, "__module__": cls.__module__})
    sub.__qualname__ = cls.__qualname__
    _TAPPED[cls] = _TAPPED[sub] = sub
    if replay.is_instrumented(cls):  # already consults the recorder through its base: not instrumented again
        replay.mark_instrumented(sub)
    return sub


def tap(model, layers) -> tuple[int, ...]:
    """Tap decoder layers `layers` of `model` (negative indices count from the top); returns them as indices."""
    blocks = list(getattr(model, "layers", ()))
    if not blocks:
        raise SpecDecError(f"{type(model).__name__} exposes no decoder layers (model.layers): cannot capture features")
    chosen = []
    for i in layers:
        if isinstance(i, bool) or not isinstance(i, int) or not -len(blocks) <= i < len(blocks):
            raise SpecDecError(f"feature layer {i!r} is not a layer of this {len(blocks)}-layer model")
        chosen.append(i % len(blocks))
    replay.instrument(model)  # first, so each tap is the outermost class: it sees a whole call's output
    for i in chosen:
        block = blocks[i]
        if getattr(block, "_specdec_layer", None) is None:
            block.__class__ = _tapped_class(type(block))
            object.__setattr__(block, "_specdec_layer", i)
    return tuple(chosen)


@contextmanager
def capture():
    """A sink for the tapped layers' outputs of the calls made inside the block (nested: the inner one wins)."""
    global _SINK
    outer, _SINK = _SINK, {}
    try:
        yield _SINK
    finally:
        _SINK = outer


def features(sink: dict, layers: tuple[int, ...]) -> mx.array:
    """(T, len(layers) * D): the captured outputs of `layers` for one sequence, concatenated in order."""
    missing = [i for i in layers if i not in sink]
    if missing:
        raise SpecDecError(f"layers {missing} did not run in this pass; their features cannot be captured")
    for i in layers:
        if sink[i].ndim != 3 or sink[i].shape[0] != 1:
            raise SpecDecError(f"decoder layer {i} returns an array of shape {tuple(sink[i].shape)}, not one "
                               "residual stream (1, T, D): its features cannot be captured")
    return mx.concatenate([sink[i][0] for i in layers], axis=-1)
