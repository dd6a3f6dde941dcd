"""Committed inference state: how a model remembers the accepted prefix.

Both the target and a model drafter keep a *sequence*: the committed tokens the
model has already consumed, plus ``pending`` tokens that are committed but not
fed yet (after every round the target's own correction/bonus token is pending:
it is known, but its key/value rows are computed by the next verification
pass). A round feeds ``pending + drafts`` speculatively; ``commit(n_valid, new_pending)``
then keeps the first ``n_valid`` fed tokens and makes the rest invisible.

Strategies sharing that contract (``STRATEGIES``):

* ``cache``, ``replay``, ``refeed``, ``positions``: ``CacheSequence``,
  mlx-lm's prompt cache for every cache family; each layer commits by its own
  rule (``caches``), and the name picks how recurrent layers are rebuilt.
* ``compiled``: KV-only models, one compiled step over fixed-size buffers.
* ``auto`` (the generators' default): compiled where a probe shows it matches, else ``cache``.
* ``recompute``: no cache, every call recomputes the whole prefix. Slow,
  correct by construction: the reference oracle the cached engine must match.
"""

from __future__ import annotations

from typing import Callable, Protocol

import mlx.core as mx
from mlx_lm.models import cache as mlc
from mlx_lm.models.cache import make_prompt_cache

from . import caches, replay
from .model_info import model_context_window, model_name, model_vocab_size, output_projection  # noqa: F401
from .distributed import ranks_of
from .errors import SpecDecError
from .traces import counted

DEFAULT_QUANTIZED_KV_START = 5000  # mlx-lm's: --kv-bits quantizes once the cache holds this many rows
PREFILL_CHUNK = 2048  # tokens per prefill pass, as mlx-lm chunks (a sliding window sees chunk edges)


def _ids(tokens) -> mx.array:
    return tokens if isinstance(tokens, mx.array) else mx.array(list(tokens), dtype=mx.int32)


class Sequence(Protocol):
    """The committed-state contract every strategy implements."""

    committed: int  # tokens consumed and committed (excludes pending)

    def prefill(self, prompt_ids) -> None: ...
    def extend(self, tokens: mx.array) -> mx.array: ...
    def commit(self, n_valid: int, pending: mx.array) -> None: ...
    def block_limit(self) -> int | None: ...  # tokens the next pass may feed; None: any


class _SequenceBase:
    """Pending tokens and the extend step shared by every strategy.

    With ``capture_hidden`` set (MTP self-speculation), every pass also keeps
    the trunk's final hidden states in ``hidden`` (T, D), so a head can draft
    from the verification pass without another trunk pass.
    """

    capture_hidden = False
    capture_layers: tuple[int, ...] = ()  # set by capture_features

    def __init__(self, model):
        self.model = model
        self.hidden = None
        self.features = None  # (T, L * D): the chosen layers' outputs for the rows of the last pass
        self.committed = 0
        self.pending = mx.array([], dtype=mx.int32)

    def capture_features(self, layers) -> tuple[int, ...]:
        """From the next pass on, keep the outputs of decoder layers `layers` in ``features`` (T, L * D), rows
        as the logits' (the prefill's too: rows for the prompt but its last token), computed in the same pass."""
        from .features import tap

        self.capture_layers = tap(self.model, layers)
        return self.capture_layers

    def _call(self, inputs: mx.array, cache, trunk: bool):
        """(out, features or None): the model (or its trunk, for hidden rows) over `inputs`, one pass."""
        fn = self.model.model if trunk else self.model
        if not self.capture_layers:
            return fn(inputs[None], cache=cache)[0], None
        from .features import capture, features

        with capture() as sink:
            out = fn(inputs[None], cache=cache)[0]
        return out, features(sink, self.capture_layers)

    def _prefill_call(self, chunk: mx.array, cache) -> tuple[mx.array | None, mx.array | None]:
        """One prefill call over `chunk`: (its trunk rows with ``capture_hidden``, else None; its features with
        ``capture_layers``, else None), so a drafter reading them can draft in the first round."""
        out, feats = self._call(chunk, cache, trunk=self.capture_hidden)
        return (out if self.capture_hidden else None), feats

    def _logits(self, inputs: mx.array, cache) -> mx.array:
        out, self.features = self._call(inputs, cache, trunk=self.capture_hidden)
        if not self.capture_hidden:
            return out
        self.hidden = out
        return output_projection(self.model)(self.hidden)

    def forward(self, inputs: mx.array) -> mx.array:
        raise NotImplementedError

    def block_limit(self) -> int | None:
        """Most tokens the next pass may feed before a state change it must not straddle
        (None: no limit)."""
        return None

    def extend(self, tokens: mx.array) -> mx.array:
        """Feed pending + tokens; return their logits rows, one per fed token."""
        inputs = mx.concatenate([self.pending, tokens]) if tokens.size else self.pending
        self.pending = mx.array([], dtype=mx.int32)
        return self.forward(inputs)


class CacheSequence(_SequenceBase):
    """Committed state in mlx-lm's prompt cache, for every cache family.

    Each round is a transaction over every layer (``caches``): rows of KV-like
    caches are trimmed, sliding windows live in a ``SlidingKVCache`` whose
    rollback is also a trim, and stateful units (recurrent states, anything
    else restorable) are snapshotted before the round and rebuilt on the
    accepted boundary by the ``rollback`` chosen (``caches.ROLLBACKS``).
    Every layer lands on the same boundary. ``rebuilds`` counts rounds that
    rebuilt a stateful unit; ``fallbacks`` counts rounds where a replay or
    per-position capture was incomplete and a whole-model re-feed was used.
    """

    def __init__(self, model, rollback: str = caches.DEFAULT_ROLLBACK, *, kv_bits: int | None = None,
                 kv_group_size: int = 64, quantized_kv_start: int = 0, max_kv_size: int | None = None):
        super().__init__(model)
        if rollback not in caches.ROLLBACKS:
            raise SpecDecError(f"unknown rollback {rollback!r}; expected one of {list(caches.ROLLBACKS)}")
        if kv_bits is not None and kv_bits not in (2, 3, 4, 5, 6, 8):
            raise SpecDecError(f"kv_bits must be one of 2, 3, 4, 5, 6, 8 or None, got {kv_bits!r}")
        if max_kv_size is not None and (isinstance(max_kv_size, bool) or not isinstance(max_kv_size, int)
                                        or max_kv_size < 5):
            raise SpecDecError(f"max_kv_size must be an integer >= 5 (4 rows are kept sinks), got {max_kv_size!r}")
        # mlx-lm bounds only models without their own make_cache (4 sink rows + a ring).
        self.cache = caches.adapt_cache(make_prompt_cache(model, max_kv_size), model_name(model))
        self.rollback = rollback
        if isinstance(quantized_kv_start, bool) or not isinstance(quantized_kv_start, int) or quantized_kv_start < 0:
            raise SpecDecError(f"quantized_kv_start must be an integer >= 0, got {quantized_kv_start!r}")
        self.kv_bits, self.kv_group_size, self.quantized_kv_start = kv_bits, kv_group_size, quantized_kv_start
        self._quantize_at = None  # the committed length at which the KV cache turns quantized, once known
        self._sort_units()
        # Pipeline stages hold different layers, so a whole-model re-feed (which runs every
        # stage's collectives) would be decided by some stages only: refused, never a hang.
        self.pipelined = getattr(getattr(model, "model", None), "pipeline_size", 1) > 1
        if self.pipelined and self.stateful and rollback == "refeed":
            raise SpecDecError(f"the refeed rollback is not available for a pipeline-sharded {model_name(model)}: "
                               "use replay (the default) or positions")
        if self.stateful and rollback != "refeed":
            replay.instrument(model)
        self._fed, self._fed_tokens = 0, []
        self._snaps, self._log = {}, {}
        self.rebuilds = self.fallbacks = 0

    def _sort_units(self) -> None:
        units = list({id(c): c for c in self.cache}.values())  # a shared cache commits once
        self.stateful = [u for u in units if caches.is_stateful_unit(u)]
        self.plain = [u for u in units if not caches.is_stateful_unit(u)]
        # What a Recorder watches for: each stateful unit and its member caches, by identity.
        self._watch = {id(m): u for u in self.stateful for m in (u, *caches.members(u))}

    def _quantize_kv(self) -> None:
        """With kv_bits, turn every KVCache into a QuantizedKVCache as mlx-lm's
        ``maybe_quantize_kv_cache`` does; every later row is stored quantized,
        and the QuantizedKVCache rolls back by a trim like the KVCache it replaces.

        mlx-lm converts after the first model call that leaves ``quantized_kv_start``
        or more rows: after a prefill chunk, or else after decoding position
        P - 1 with P = max(quantized_kv_start, prompt length). Positions from P
        on see quantized keys, those before it did not. A verification block
        must not straddle P, so ``block_limit`` caps it there, and the commit
        that lands on P converts.
        """
        if self.kv_bits is None:
            return
        self._quantize_at = None
        from mlx_lm.models.cache import KVCache

        for e, c in enumerate(self.cache):
            if isinstance(c, caches.SlidingKVCache):
                raise SpecDecError(f"kv_bits: {model_name(self.model)} has sliding-window layers, which mlx-lm "
                                   "cannot quantize (RotatingKVCache); run it without --kv-bits")
            if isinstance(c, KVCache):
                self.cache[e] = c.to_quantized(group_size=self.kv_group_size, bits=self.kv_bits)
        self._sort_units()

    def prefill(self, prompt_ids) -> None:
        ids = _ids(prompt_ids)
        # Everything but the last prompt token goes into the cache now; the last one
        # stays pending so the first verification pass produces the row for draft 1.
        rows, feats = [], []
        caches.set_prefilling(self.cache, True)
        for start in range(0, ids.shape[0] - 1, PREFILL_CHUNK):
            chunk = ids[start : min(start + PREFILL_CHUNK, ids.shape[0] - 1)]
            row, feat = self._prefill_call(chunk, self.cache)
            rows += [] if row is None else [row]
            feats += [] if feat is None else [feat]
            if self.kv_bits is not None and start + chunk.shape[0] >= self.quantized_kv_start:
                self._quantize_kv()  # as mlx-lm, after the prefill call that reaches the start
            mx.eval(caches.cache_arrays(self.cache), rows, feats)
        if self.kv_bits is not None and not self._quantized():
            self._quantize_at = max(self.quantized_kv_start, ids.shape[0])
        caches.set_prefilling(self.cache, False)
        caches.settle(self.cache)
        self.hidden = mx.concatenate(rows) if rows else None
        self.features = mx.concatenate(feats) if feats else None
        self.committed = ids.shape[0] - 1
        self.pending = ids[-1:]

    def forward(self, inputs: mx.array) -> mx.array:
        if self._fed == 0 and self.stateful:  # first pass since the last commit: the pre-round state
            self._snaps = {id(u): caches.snapshot(u) for u in self.stateful}
        n = inputs.shape[0]
        self._fed += n
        if not self.stateful:
            return self._logits(inputs, self.cache)
        self._fed_tokens.append(inputs)
        if self.rollback == "refeed":
            return self._logits(inputs, self.cache)
        recorder = replay.Recorder(self._watch, self.rollback, n)
        with replay.recording(recorder):
            logits = self._logits(inputs, self.cache)
        for u in self.stateful:
            log = self._log.setdefault(id(u), [])
            if self.rollback == "replay":
                calls = recorder.calls.get(id(u), []) if recorder.complete(u) else [replay.OPAQUE]
                log.append((recorder.checkpoints.get(id(u)), n, calls))
            else:
                log.extend(recorder.states.get(id(u), []))
        return logits

    def _quantized(self) -> bool:
        return any(isinstance(c, mlc.QuantizedKVCache) for c in self.cache)

    def block_limit(self) -> int | None:
        """Most tokens the next pass may feed (None: no limit): a block never
        straddles the position where the KV cache turns quantized."""
        return None if self._quantize_at is None else self._quantize_at - self.committed - self._fed

    def commit(self, n_valid: int, pending: mx.array) -> None:
        if n_valid < self._fed:
            self._roll_back(n_valid)
        self.committed += n_valid
        if self._quantize_at is not None and self.committed >= self._quantize_at:
            self._quantize_kv()
        self._fed, self._fed_tokens, self._snaps, self._log = 0, [], {}, {}
        caches.settle(self.cache)
        self.pending = pending

    def _roll_back(self, n_valid: int) -> None:
        excess = self._fed - n_valid
        stale = [u for u in self.stateful if caches.needs_rebuild(u, self._snaps[id(u)])]
        stale_ids = {id(u) for u in stale}
        mode = self.rollback
        if stale and mode != "refeed":
            if any(replay.logged_positions(self._log.get(id(u), [])) != self._fed for u in stale):
                if self.pipelined:
                    raise SpecDecError(f"{model_name(self.model)}: a recurrent layer of this pipeline stage changed "
                                       "outside the calls replay logs, and a re-feed cannot run on one stage alone")
                mode = "refeed"  # an owner's call was not seen: rebuild through the whole model
                self.fallbacks += 1
        if stale and mode == "refeed":
            # Every layer back to the pre-round state, then the accepted tokens again.
            for u in self.plain + self.stateful:
                if id(u) in stale_ids:
                    caches.restore(u, self._snaps[id(u)])
                else:
                    caches.trim_unit(u, self._fed)
            if n_valid:
                self.model(mx.concatenate(self._fed_tokens)[:n_valid][None], cache=self.cache)
            self.rebuilds += 1
            return
        for u in self.plain + self.stateful:
            if id(u) not in stale_ids:
                caches.trim_unit(u, excess)
        for u in stale:
            entries = self._log[id(u)]
            if mode == "replay":
                replay.replay(u, entries, n_valid)
            else:  # positions: the unit's state after every position was kept
                caches.restore(u, entries[n_valid - 1] if n_valid else self._snaps[id(u)])
        self.rebuilds += bool(stale)


KVCacheSequence = CacheSequence  # the name the KV-only engine had


class RecomputeSequence(_SequenceBase):
    """Reference strategy: no cache; each call scores the whole prefix again."""

    def __init__(self, model):
        super().__init__(model)
        self.tokens = mx.array([], dtype=mx.int32)  # everything fed, committed or not

    def prefill(self, prompt_ids) -> None:
        ids = _ids(prompt_ids)
        self.tokens, self.committed, self.pending = ids[:-1], ids.shape[0] - 1, ids[-1:]
        if (self.capture_hidden or self.capture_layers) and self.committed:
            self.hidden, self.features = self._prefill_call(self.tokens, None)

    def forward(self, inputs: mx.array) -> mx.array:
        self.tokens = mx.concatenate([self.tokens, inputs])
        logits = self._logits(self.tokens, None)[-inputs.shape[0] :]
        if self.hidden is not None:
            self.hidden = self.hidden[-inputs.shape[0] :]
        if self.features is not None:
            self.features = self.features[-inputs.shape[0] :]
        return logits

    def commit(self, n_valid: int, pending: mx.array) -> None:
        self.committed += n_valid
        self.tokens = self.tokens[: self.committed]
        self.pending = pending


class BufferKVCache:
    """A fixed-capacity KV cache whose offset is an array.

    Shapes never change between steps, so a compiled step does not retrace;
    rows past the offset are hidden by the mask (``make_mask``, which mlx-lm's
    ``create_attention_mask`` consults), and rollback is the host moving the
    offset it passes in. The buffers grow by whole blocks (one retrace) when full.
    """

    def __init__(self, keys: mx.array, values: mx.array):
        self.keys, self.values = keys, values
        self.offset = mx.array(0, dtype=mx.int32)

    def update_and_fetch(self, keys, values):
        start = self.offset.reshape(1)
        self.keys = mx.slice_update(self.keys, keys.astype(self.keys.dtype), start, axes=(2,))
        self.values = mx.slice_update(self.values, values.astype(self.values.dtype), start, axes=(2,))
        return self.keys, self.values

    def make_mask(self, n, return_array=False, window_size=None):
        query = self.offset + mx.arange(n)[:, None]
        key = mx.arange(self.keys.shape[2])[None]
        mask = key <= query
        if window_size:
            mask = mask & (key > query - window_size)
        return mask


class CompiledKVSequence(_SequenceBase):
    """KV-cache state driven by a compiled step (`mx.compile`) over fixed-size buffers.

    Per-op dispatch dominates small models on the CPU; compiling the decode
    step removes the Python graph building and fuses elementwise chains. One
    trace per distinct block length (1 and 2 for a drafter, k+1 for
    verification). Works for models whose attention takes the RoPE offset and
    mask from the cache (StoryLM, mlx-lm's llama/qwen families); `make_sequence`
    falls back to `KVCacheSequence` for the rest.
    """

    # Buffers grow in blocks of GROW rows. Attention reads every row of the buffer (masked, as shapes are fixed
    # under compile), so spare capacity costs compute on every pass: on the CPU a 5M model's 9-token pass took
    # 6.9 ms with 64-row blocks and 19 ms with 1024. A new capacity is a new trace, a few milliseconds.
    GROW = 32

    def __init__(self, model):
        super().__init__(model)
        cache = make_prompt_cache(model)
        if not all(type(c).__name__ == "KVCache" for c in cache):
            names = ", ".join(caches.cache_names(cache))
            raise SpecDecError(f"the compiled strategy needs KVCache layers only; {model_name(model)} uses {names}")
        self.cache: list[BufferKVCache] = []
        self._steps = {}

    def _allocate(self, scratch, capacity: int):
        self.cache = []
        for c in scratch:
            b, h, _, d = c.keys.shape
            keys = mx.zeros((b, h, capacity, d), c.keys.dtype)
            values = mx.zeros((b, h, capacity, c.values.shape[-1]), c.values.dtype)
            if c.offset:
                keys[..., : c.offset, :] = c.keys[..., : c.offset, :]
                values[..., : c.offset, :] = c.values[..., : c.offset, :]
            self.cache.append(BufferKVCache(keys, values))
        mx.eval([(c.keys, c.values) for c in self.cache])

    def prefill(self, prompt_ids) -> None:
        ids = _ids(prompt_ids)
        scratch = make_prompt_cache(self.model)
        head = ids[:-1] if ids.shape[0] > 1 else ids  # one token teaches the buffer shapes
        rows, feats = [], []
        for start in range(0, head.shape[0], PREFILL_CHUNK):
            row, feat = self._prefill_call(head[start : start + PREFILL_CHUNK], scratch)
            rows += [] if row is None else [row]
            feats += [] if feat is None else [feat]
            mx.eval([c.state for c in scratch], rows, feats)
        self.committed = ids.shape[0] - 1
        self.hidden = mx.concatenate(rows) if rows and self.committed else None
        self.features = mx.concatenate(feats) if feats and self.committed else None
        if ids.shape[0] == 1:
            for c in scratch:
                c.offset = 0
        # Capacity in whole GROW blocks, so prompts of similar length share traces.
        self._allocate(scratch, (self.committed // self.GROW + 2) * self.GROW)
        self.pending = ids[-1:]
        self._fed = 0

    def _compiled(self, hidden: bool, layers: tuple[int, ...]):
        """The model's compiled step, shared by every sequence of this model:
        (tokens, offset, *buffers) -> (logits or hidden, [features,] *new buffers).

        Kept on the model so a new generation reuses the traces (one per block
        length and buffer capacity) instead of tracing again. With feature
        layers, their outputs leave the traced graph as one more output.
        """
        steps = self.model.__dict__.setdefault("_specdec_compiled_steps", {})
        if (hidden, layers) not in steps:
            from .features import capture, features

            trunk_or_model = self.model.model if hidden else self.model
            shells = [BufferKVCache(None, None) for _ in self.cache]

            def step(tokens, offset, *buffers):
                for i, c in enumerate(shells):
                    c.keys, c.values, c.offset = buffers[2 * i], buffers[2 * i + 1], offset
                if not layers:
                    out = trunk_or_model(tokens[None], cache=shells)
                    return (out[0], *[a for c in shells for a in (c.keys, c.values)])
                with capture() as sink:
                    out = trunk_or_model(tokens[None], cache=shells)
                return (out[0], features(sink, layers), *[a for c in shells for a in (c.keys, c.values)])

            steps[(hidden, layers)] = mx.compile(counted(step))
        return steps[(hidden, layers)]

    def forward(self, inputs: mx.array) -> mx.array:
        start = self.committed + self._fed
        if start + inputs.shape[0] > self.cache[0].keys.shape[2]:
            self._grow(start + inputs.shape[0])
        kv = [a for c in self.cache for a in (c.keys, c.values)]
        out = self._compiled(self.capture_hidden, self.capture_layers)(inputs, mx.array(start, dtype=mx.int32), *kv)
        if self.capture_layers:
            self.features, out = out[1], (out[0], *out[2:])
        for i, c in enumerate(self.cache):
            c.keys, c.values = out[1 + 2 * i], out[2 + 2 * i]
        self._fed += inputs.shape[0]
        if not self.capture_hidden:
            return out[0]
        self.hidden = out[0]
        return output_projection(self.model)(self.hidden)

    def _grow(self, needed: int):
        capacity = self.cache[0].keys.shape[2]
        while capacity < needed:
            capacity += self.GROW
        for c in self.cache:
            pad = capacity - c.keys.shape[2]
            c.keys = mx.pad(c.keys, [(0, 0), (0, 0), (0, pad), (0, 0)])
            c.values = mx.pad(c.values, [(0, 0), (0, 0), (0, pad), (0, 0)])

    def commit(self, n_valid: int, pending: mx.array) -> None:
        # Rows past committed + n_valid stay in the buffer, masked until overwritten.
        self.committed += n_valid
        self._fed = 0
        self.pending = pending


def compiled_step_works(model) -> bool:
    """Does the compiled buffer step reproduce the plain cached step for this model?

    Models that build their own masks or use the cache offset as a Python int
    (e.g. learned positions) either fail to trace or attend to masked rows;
    a two-token probe catches both. The answer is remembered on the model and,
    for a model loaded from a folder, in the calibration file
    (`calibration.probe_verdict`), so later processes skip the probe.
    A sharded model is never compiled: its layers run collectives, which one
    rank's probe must not trace.
    """
    if ranks_of(model) is not None:
        return False
    known = getattr(model, "_specdec_compiled_ok", None)
    if known is not None:
        return known
    from . import calibration

    ok = calibration.probe_verdict(model, "compiled_step")  # asked in an earlier process (a model from a folder)
    if ok is None:
        ok = _probe_compiled_step(model)
        calibration.save_probe_verdict(model, "compiled_step", ok)
    try:
        model._specdec_compiled_ok = ok
    except AttributeError:
        pass
    return ok


def _probe_compiled_step(model) -> bool:
    try:
        seq = CompiledKVSequence(model)
        seq.prefill([1, 2])
        probe = seq.extend(mx.array([3], dtype=mx.int32))
        reference = CacheSequence(model)
        reference.prefill([1, 2])
        expected = reference.extend(mx.array([3], dtype=mx.int32))
        return bool(mx.allclose(probe, expected, atol=1e-3, rtol=1e-3).item())
    except Exception:  # noqa: BLE001 - any failure means "use the plain cache"
        return False


def _auto_sequence(model) -> Sequence:
    return CompiledKVSequence(model) if compiled_step_works(model) else CacheSequence(model)


STRATEGIES: dict[str, Callable[[object], Sequence]] = {
    "cache": CacheSequence,  # the default rollback for stateful layers (caches.DEFAULT_ROLLBACK)
    **{name: (lambda model, name=name: CacheSequence(model, name)) for name in caches.ROLLBACKS},
    "compiled": CompiledKVSequence,
    "auto": _auto_sequence,  # compiled where the probe passes, else cache
    "recompute": RecomputeSequence,
}


def make_sequence(model, strategy="cache") -> Sequence:
    """A fresh committed-state object for `model` ('cache', 'recompute' or a factory)."""
    if callable(strategy) and not isinstance(strategy, str):
        return strategy(model)
    try:
        return STRATEGIES[strategy](model)
    except KeyError:
        raise SpecDecError(f"unknown state strategy {strategy!r}; expected one of {sorted(STRATEGIES)}") from None


def cache_strategy(strategy: str = "cache", *, kv_bits: int | None = None, kv_group_size: int = 64,
                   quantized_kv_start: int = 0, max_kv_size: int | None = None):
    """A strategy factory: `strategy` ('cache' or a rollback name) with mlx-lm's cache
    options: ``kv_bits`` quantizes the KV cache as ``generate_step(kv_bits=...,
    quantized_kv_start=...)`` does, ``max_kv_size`` bounds it as
    ``make_prompt_cache(model, max_kv_size)`` does; both roll back exactly."""
    rollback = caches.DEFAULT_ROLLBACK if strategy in ("cache", "auto") else strategy
    if rollback not in caches.ROLLBACKS:
        raise SpecDecError(f"cache options need the cache strategy or one of {list(caches.ROLLBACKS)}, "
                           f"got {strategy!r}")
    return lambda model: CacheSequence(model, rollback, kv_bits=kv_bits, kv_group_size=kv_group_size,
                                       quantized_kv_start=quantized_kv_start, max_kv_size=max_kv_size)


def quantized_kv_strategy(strategy: str = "cache", kv_bits: int = 8, kv_group_size: int = 64,
                          quantized_kv_start: int = 0):
    """`cache_strategy` with a quantized KV cache."""
    return cache_strategy(strategy, kv_bits=kv_bits, kv_group_size=kv_group_size,
                          quantized_kv_start=quantized_kv_start)
