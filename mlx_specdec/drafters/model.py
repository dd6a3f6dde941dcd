"""ModelDrafter: a separate, smaller model with the target's vocabulary, on its own committed sequence."""

from __future__ import annotations

import time

import mlx.core as mx

from ..models.mtp_head import as_ids
from ..model_info import layer_weights
from ..state import make_sequence, model_vocab_size
from .protocol import EMPTY, DeclaredDrafter, Drafter, is_drafter


MEASURE_ABOVE = 0.5  # a drafter this share of its target's size or more has its step cost measured


class ModelDrafter(Drafter):
    """A separate (smaller) model sharing the target's token ids."""

    # Its commit never reads the target's passes: the loop may run its rounds without drafts
    # as pipelined plain steps (see speculative_stream).
    pipelines_plain_steps = True
    proposes_exactly_k = True
    keeps_cache = True
    defers_prefill = True  # its prefill waits for the first drafting round (see prefill)

    def __init__(self, model, strategy="cache"):
        self.model = model
        self.vocab_size = model_vocab_size(model)
        self._strategy, self._seq = strategy, None
        self._drafts = EMPTY
        self._n_pending = 0
        self._unfed: list[int] | None = None  # the prompt and the plain steps' tokens, before any draft

    @property
    def seq(self):
        """The drafter's committed sequence, made when first needed: choosing a strategy can cost a probe
        of the compiled step (0.6 s for a 4-bit SmolLM2 on a CPU), which a generation that never drafts
        (k="auto" finding plain steps faster) should not pay."""
        if self._seq is None:
            self._seq = make_sequence(self.model, self._strategy)
        return self._seq

    def prefill(self, prompt_ids) -> None:
        # Deferred to the first round that drafts: a generation whose rounds never draft (k='auto'
        # finding plain steps faster) never runs the drafter at all.
        self._unfed = as_ids(prompt_ids).reshape(-1).tolist()

    def catch_up(self) -> int:
        """Feed now, in one pass, the tokens a run of plain steps queued here unfed (keeping the last
        one pending, as after any round), and wait for it: work those steps owed, so that the next
        round's time is that of a round of its k. Before the first drafting round this is the deferred
        prefill. A no-op after a drafting round (1 or 2 pending). Returns how many tokens it fed."""
        if self._unfed is not None:
            fed = len(self._unfed)
            self._feed_unfed()
            return fed
        pending = self.seq.pending
        if pending.shape[0] <= 2:
            return 0
        self.seq.commit(0, pending[:-1])
        mx.eval(self.seq.extend(EMPTY)[-1:])
        self.seq.commit(pending.shape[0] - 1, pending[-1:])
        return pending.shape[0] - 1

    def step_cost_ratio(self, target) -> float | None:
        """One step of the drafter's model over one of the target's: each model's forward on one token,
        timed once, in the same conditions (mlx-lm's caches, not the compiled step, each cache its own and
        dropped after). Costs about one target step and one drafter step, where the deferred prefill
        a first drafting round would pay can cost seconds (a 4-bit drafter on a CPU). Not measured (None)
        for a drafter whose layers hold under MEASURE_ABOVE of the target's weights: its steps cannot
        cost as much as the target's, and on a tiny pair the measurement is a few percent of a generation;
        nor where either model does not say its sizes."""
        mine, theirs = layer_weights(self.model), layer_weights(target)
        if mine is None or theirs is None or mine < MEASURE_ABOVE * theirs:
            return None
        target_s = one_token_seconds(target)
        return one_token_seconds(self.model) / target_s if target_s > 0 else None

    def _feed_unfed(self) -> None:
        ids, self._unfed = self._unfed, None
        self.seq.prefill(ids)

    def propose(self, k, policy, key):
        if k == 0:
            self._n_pending = 0 if self._unfed is not None else self.seq.pending.shape[0]
            self._drafts = EMPTY
            return EMPTY, None
        if self._unfed is not None:
            self._feed_unfed()
        self._n_pending = self.seq.pending.shape[0]
        keys = mx.random.split(key, k) if key is not None and not policy.greedy else [None] * k
        ids, probs = [], []
        new = EMPTY
        for i in range(k):
            # Draft i+1 is fed only if another draft follows it: the cache then holds
            # pending + d_1..d_{k-1}, and d_k waits (see commit).
            logits = self.seq.extend(new)[-1:]
            token, q = policy.pick(logits, keys[i])
            # Start computing this draft while Python builds the next step's graph:
            # the host never waits here (the round's sync point is in the loop).
            mx.async_eval(token)
            ids.append(token)
            probs.append(q)
            new = token.astype(mx.int32)
        self._drafts = mx.concatenate(ids).astype(mx.int32)
        return self._drafts, (None if policy.greedy else mx.concatenate(probs))

    def commit(self, accepted, token, rows=None):
        if self._unfed is not None:  # no round has drafted yet: the token joins the deferred prefill
            self._unfed.append(int(token))
            return
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


def one_token_seconds(model) -> float:
    """Seconds one forward of `model` on one token takes, with a cache of its own (then dropped)."""
    seq = make_sequence(model, "cache")
    seq.prefill(mx.array([0], dtype=mx.int32))  # nothing cached: the one token stays pending
    started = time.perf_counter()
    mx.eval(seq.extend(EMPTY)[-1:])
    return time.perf_counter() - started


def as_drafter(drafter, strategy="cache") -> Drafter:
    """A Drafter as it is; a duck-typed one behind DeclaredDrafter; a bare model wrapped as a ModelDrafter."""
    if isinstance(drafter, Drafter):
        return drafter
    if is_drafter(drafter):
        return DeclaredDrafter(drafter)
    if callable(drafter):
        return ModelDrafter(drafter, strategy)
    raise TypeError(f"drafter must be a model or a Drafter object, got {type(drafter).__name__}")
