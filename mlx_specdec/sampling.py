"""One sampling policy for target and drafter alike.

Speculative sampling preserves the distribution the policy defines, so the
drafter's q and the target's p must both come from the same policy applied to
their own logits. Temperature 0 means greedy: a one-hot argmax distribution.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import mlx.core as mx

from .errors import SpecDecError
from .traces import counted


# Below this, sampling is greedy decoding in all but name, and logits / temperature
# can overflow float32; such temperatures are refused rather than silently changed.
MIN_TEMPERATURE = 1e-4


@dataclass(frozen=True)
class SamplingPolicy:
    temperature: float = 0.0
    top_k: int | None = None
    top_p: float | None = None
    min_p: float | None = None

    def __post_init__(self):
        t = self.temperature
        if isinstance(t, bool) or not isinstance(t, (int, float)) or math.isnan(t) or t < 0:
            raise SpecDecError(f"temperature must be a number >= 0, got {t!r}")
        if math.isinf(t):
            raise SpecDecError(f"temperature must be finite, got {t!r} (it would sample uniform noise)")
        if 0 < t < MIN_TEMPERATURE:
            # logits / t overflows float32 and softmax turns into NaN: constant ids, not sampling.
            raise SpecDecError(
                f"temperature {t!r} is too small to sample with; use 0 for greedy decoding or at least {MIN_TEMPERATURE:g}"
            )
        if self.top_k is not None and (not isinstance(self.top_k, int) or self.top_k < 1):
            raise SpecDecError(f"top_k must be a positive integer or None, got {self.top_k!r}")
        if self.top_p is not None and not (isinstance(self.top_p, (int, float)) and 0 < self.top_p <= 1):
            raise SpecDecError(f"top_p must be in (0, 1], got {self.top_p!r}")
        if self.min_p is not None and not (
            isinstance(self.min_p, (int, float)) and not isinstance(self.min_p, bool) and 0 <= self.min_p <= 1
        ):
            raise SpecDecError(f"min_p must be in [0, 1], got {self.min_p!r}")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    def probs(self, logits: mx.array) -> mx.array:
        """Rows of logits (..., V) -> rows of probabilities under this policy (fp32)."""
        logits = logits.astype(mx.float32)
        if self.greedy:
            choice = mx.argmax(logits, axis=-1, keepdims=True)
            return (mx.arange(logits.shape[-1]) == choice).astype(mx.float32)
        if self.min_p:
            # As mlx-lm: keep tokens whose untempered probability is at least min_p
            # times the top token's. The top token survives every filter, so the
            # order of min-p, top-k and top-p does not matter.
            top = mx.max(logits, axis=-1, keepdims=True)
            logits = mx.where(logits >= top + math.log(self.min_p), logits, -mx.inf)
        logits = logits * (1.0 / self.temperature)
        if self.top_k is not None and self.top_k < logits.shape[-1]:
            kth = mx.sort(logits, axis=-1)[..., -self.top_k][..., None]
            logits = mx.where(logits >= kth, logits, -mx.inf)
        probs = mx.softmax(logits, axis=-1)
        if self.top_p is not None and self.top_p < 1:
            # Keep the smallest high-probability set whose mass reaches top_p: a token
            # stays if the mass strictly above it is still below top_p.
            ordered = mx.sort(probs, axis=-1)[..., ::-1]
            mass_before = mx.cumsum(ordered, axis=-1) - ordered
            kept = mx.where(mass_before < self.top_p, ordered, mx.inf)
            threshold = mx.min(kept, axis=-1, keepdims=True)
            probs = mx.where(probs >= threshold, probs, 0.0)
            probs = probs / probs.sum(axis=-1, keepdims=True)
        return probs

    def pick(self, logits: mx.array, key: mx.array | None) -> tuple[mx.array, mx.array | None]:
        """Choose one token per row. Returns (ids, probs); probs is None when greedy."""
        if self.greedy:
            return mx.argmax(logits, axis=-1), None
        sampler = _compiled(self)
        return (sampler.pick if key is not None else sampler.pick_raw)(logits, key)

    def step(self, logits: mx.array, key: mx.array | None) -> tuple[mx.array, mx.array | None]:
        """One plain decoding step's choice: (ids, the key for the next step). The probabilities are not
        formed when no filter needs them (the Gumbel draw reads the scaled logits, as mlx-lm's sampler)."""
        if self.greedy:
            return mx.argmax(logits, axis=-1), key
        if key is None:
            return _compiled(self).pick_raw(logits, None)[0], None
        return _compiled(self).step(logits, key)


class _Compiled:
    """A policy's sampling as compiled functions: one fused graph per call instead of a handful of
    separately dispatched element-wise ops, which on a small model is a measurable share of a step."""

    def __init__(self, policy: SamplingPolicy):
        unfiltered = policy.top_k is None and policy.top_p is None and not policy.min_p
        scale = 1.0 / policy.temperature

        def draw(logits, key):
            if unfiltered:  # log-softmax differs from the scaled logits by a per-row constant
                return mx.random.categorical(logits.astype(mx.float32) * scale, key=key)
            return mx.random.categorical(mx.log(policy.probs(logits)), key=key)

        def pick(logits, key):
            return draw(logits, key), policy.probs(logits)

        def step(logits, key):
            following, now = mx.random.split(key)
            return draw(logits, now), following

        self.pick_raw = pick  # for a draw from MLX's global generator (no key): not compiled
        self.pick, self.step = mx.compile(counted(pick)), mx.compile(counted(step))


@lru_cache(maxsize=16)
def _compiled(policy: SamplingPolicy) -> _Compiled:
    return _Compiled(policy)


GREEDY = SamplingPolicy()
