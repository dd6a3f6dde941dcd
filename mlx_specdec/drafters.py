"""Drafters: whatever proposes the next k tokens.

The loop only knows this protocol (compare transformers' candidate generators):

* ``prefill(prompt_ids)``: start from the prompt.
* ``propose(k, policy, key) -> (draft_ids (k,), draft_probs (k, V) or None)``:
  lazily; the loop evaluates drafts and verdict together at its one sync point.
  ``draft_probs`` is the distribution each draft was sampled from (needed by
  speculative sampling; None under greedy).
* ``commit(accepted, token)``: the target kept the first ``accepted`` drafts
  and emitted ``token`` after them; land on that boundary.

A drafter may propose fewer than k tokens (the loop counts what it got), and
may define ``bind(target, target_seq)``: called once before prefill, it lets a
drafter that lives on the target's own trunk (an MTP head) read the hidden
states of every verification pass (set ``target_seq.capture_hidden = True``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import mlx.core as mx

from .sampling import SamplingPolicy
from .state import make_sequence, model_vocab_size


@runtime_checkable
class Drafter(Protocol):
    def prefill(self, prompt_ids) -> None: ...
    def propose(self, k: int, policy: SamplingPolicy, key: mx.array | None) -> tuple[mx.array, mx.array | None]: ...
    def commit(self, accepted: int, token: int) -> None: ...


EMPTY = mx.array([], dtype=mx.int32)


class ModelDrafter:
    """A separate (smaller) model sharing the target's token ids."""

    def __init__(self, model, strategy="cache"):
        self.model = model
        self.vocab_size = model_vocab_size(model)
        self.seq = make_sequence(model, strategy)
        self._drafts = EMPTY
        self._n_pending = 0

    def prefill(self, prompt_ids) -> None:
        self.seq.prefill(prompt_ids)

    def propose(self, k, policy, key):
        self._n_pending = self.seq.pending.shape[0]
        if k == 0:
            self._drafts = EMPTY
            return EMPTY, None
        keys = mx.random.split(key, k) if key is not None and not policy.greedy else [None] * k
        ids, probs = [], []
        new = EMPTY
        for i in range(k):
            # Draft i+1 is fed only if another draft follows it: the cache then holds
            # pending + d_1..d_{k-1}, and d_k waits (see commit).
            logits = self.seq.extend(new)[-1:]
            token, q = policy.pick(logits, keys[i])
            ids.append(token)
            probs.append(q)
            new = token.astype(mx.int32)
        self._drafts = mx.concatenate(ids).astype(mx.int32)
        return self._drafts, (None if policy.greedy else mx.concatenate(probs))

    def commit(self, accepted, token):
        k = self._drafts.shape[0]
        tok = mx.array([token], dtype=mx.int32)
        if k == 0:  # nothing was fed this round: the target's token joins the queue
            self.seq.commit(0, mx.concatenate([self.seq.pending, tok]))
        elif accepted < k:
            self.seq.commit(self._n_pending + accepted, tok)
        else:
            # Full acceptance: the drafter never fed its own last draft, so d_k and the
            # bonus are both pending; the next proposal feeds them as one block.
            self.seq.commit(self._n_pending + k - 1, mx.concatenate([self._drafts[-1:], tok]))


def as_drafter(drafter, strategy="cache"):
    """Wrap a bare model as a ModelDrafter; pass Drafter objects through."""
    if isinstance(drafter, Drafter):
        return drafter
    if callable(drafter):
        return ModelDrafter(drafter, strategy)
    raise TypeError(f"drafter must be a model or a Drafter object, got {type(drafter).__name__}")
