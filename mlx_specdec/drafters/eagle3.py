"""`Eagle3Drafter`: an EAGLE-3 draft model fed by the target's own verification passes.

The drafter declares `feature_layers`, so the loop has the target's sequence
capture those layers' outputs in every pass (the prefill's too): no second
target pass, ever. Its KV cache holds one row per committed position, the pair
(fused feature at t, token t+1), exactly as `NativeMTPDrafter`'s does:

* the round's true pairs (the prompt's in the first round; after that, rows
  0..j of the last pass with d_1..d_j and the target's token) are fed in one
  call, whose last row drafts d_1;
* each deeper draft feeds (the layer's own last output, the draft before it)
  and appends a speculative row, which commit trims;
* a run of pipelined plain steps hands each step's features to commit as
  `rows`; the pairs wait in the queue until the next proposal feeds them.

Draft ids live in the reduced draft vocabulary; `propose` returns target ids
(d2t) and, when sampling, q over the target's vocabulary: the draft
vocabulary's probabilities on their target ids and zero elsewhere, so
min(1, p/q) with the target's residual stays exact (a target token outside the
draft vocabulary is never drafted, and the residual gives it its mass).
"""

from __future__ import annotations

import mlx.core as mx

from ..errors import SpecDecError
from ..model_info import token_embedding
from ..models.eagle3 import Eagle3Model
from ..state import PREFILL_CHUNK
from .protocol import EMPTY, Drafter, check_feature_target, pick_on_target_vocabulary, prompt_pairs

DEFAULT_EAGLE3_DEPTH = 6  # drafts a round at most unless told otherwise


class Eagle3Drafter(Drafter):
    keeps_cache = True
    pipelines_plain_steps = True  # commit reads nothing of a pass but its features, which plain steps hand over

    def __init__(self, model: Eagle3Model, max_depth: int | None = None):
        if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1):
            raise SpecDecError(f"max_depth must be an integer >= 1 or None, got {max_depth!r}")
        self.model = model
        self.feature_layers = model.config.target_layers
        self.vocab_size = model.config.vocab_size
        self.max_depth = max_depth or DEFAULT_EAGLE3_DEPTH
        self.cache = model.make_cache()
        self._draft_to_target = model.draft_to_target
        self._seq = None
        self._queue = None  # (features (n, L * Ht), next tokens (n,)): true pairs not yet in the cache
        self._speculative = 0
        self._drafts = EMPTY
        self.rounds: list[tuple[int, int]] = []

    def bind(self, target, target_seq) -> None:
        cfg = self.model.config
        check_feature_target(target, cfg, "EAGLE-3 drafter")
        # The target's embedding rows as they are: a scale (Gemma's sqrt(hidden)) would make no difference,
        # since input_layernorm normalises them first.
        self.model.bind_embedding(token_embedding(target))
        self._seq = target_seq

    def prefill(self, prompt_ids) -> None:
        self.cache = self.model.make_cache()
        self._speculative, self._drafts, self.rounds = 0, EMPTY, []
        self._queue = prompt_pairs(getattr(self._seq, "features", None), prompt_ids)  # (f_t, x_{t+1})

    def _feed(self, features, tokens):
        """The true pairs into the cache, chunked like the target's prefill: (last row's logits, its output)."""
        starts = range(0, tokens.shape[0], PREFILL_CHUNK)
        for start in starts:
            hidden = self.model.fuse(features[start : start + PREFILL_CHUNK])
            logits, out = self.model(tokens[None, start : start + PREFILL_CHUNK], hidden[None], cache=self.cache)
            if start != starts[-1]:
                mx.eval(out)  # a long prompt: bound the graph
        return logits[0, -1:], out[0, -1:]

    def propose(self, k, policy, key):
        depth = min(k, self.max_depth)
        self._speculative, self._drafts = 0, EMPTY
        if depth < 1 or self._queue is None:
            return EMPTY, None
        keys = mx.random.split(key, depth) if key is not None and not policy.greedy else [None] * depth
        features, tokens = self._queue
        self._queue = None
        logits, state = self._feed(features, tokens)
        ids, probs = [], []
        for d in range(depth):
            if d:
                logits, state = self.model(ids[-1][None], state[None], cache=self.cache)
                logits, state = logits[0], state[0]
                self._speculative += 1
            token, q = pick_on_target_vocabulary(policy, logits, keys[d], self._draft_to_target, self.vocab_size)
            ids.append(token)
            probs.append(q)
        self._drafts = mx.concatenate(ids)
        return self._drafts, (None if policy.greedy else mx.concatenate(probs))

    def commit(self, accepted, token, rows=None) -> None:
        if self._seq is None:
            raise SpecDecError("Eagle3Drafter was not bound to a target sequence; drive it through speculative_generate")
        self.rounds.append((self._drafts.shape[0], accepted))
        if self._speculative:
            self.cache.trim(self._speculative)
            self._speculative = 0
        features = self._seq.features if rows is None else rows
        pairs = (features[: accepted + 1],
                 mx.concatenate([self._drafts[:accepted], mx.array([token], dtype=mx.int32)]))
        self._drafts = EMPTY
        if self._queue is not None:  # nothing was drafted since: the earlier pairs still wait
            pairs = tuple(mx.concatenate([a, b]) for a, b in zip(self._queue, pairs))
        self._queue = pairs
