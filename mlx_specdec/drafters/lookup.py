"""PromptLookupDrafter: drafts by copying the context (no model)."""

from __future__ import annotations

import mlx.core as mx

from ..model_info import model_vocab_size
from .protocol import Drafter


class PromptLookupDrafter(Drafter):
    """Drafts by copying: find the latest earlier occurrence of the last n tokens
    (n from `max_ngram` down to `min_ngram`) and propose what followed it.

    Free to run (no model), strong on text that repeats its context (stories
    reusing names, code, extraction). Proposals are deterministic, so q is
    one-hot; under sampling the verifier then accepts d with probability p(d)
    and resamples from p with d removed, which is still exact.
    """

    pipelines_plain_steps = True  # host-only: rounds without drafts may be pipelined plain steps
    knows_when_idle = True  # would_propose(): a lookup that finds nothing is known before the round

    def __init__(self, max_ngram: int = 3, min_ngram: int = 1, vocab_size: int | None = None):
        if not 1 <= min_ngram <= max_ngram:
            raise ValueError(f"need 1 <= min_ngram <= max_ngram, got {min_ngram}, {max_ngram}")
        self.max_ngram, self.min_ngram = max_ngram, min_ngram
        self.vocab_size = vocab_size
        self.tokens: list[int] = []
        self._drafts: list[int] = []

    def bind(self, target, target_seq) -> None:
        if self.vocab_size is None:
            self.vocab_size = model_vocab_size(target)

    def prefill(self, prompt_ids) -> None:
        self.tokens = list(prompt_ids)

    def _sync_index(self) -> None:
        """Bring the n-gram index up to date with self.tokens (appended to in place by commit).

        index[n][gram] is the latest start of `gram` (n tokens) that has a token after it, so a lookup
        costs a dict read per n instead of a scan of the context: on a small target a scan of a few
        hundred tokens in Python costs a sizeable share of a plain step.
        """
        toks = self.tokens
        if getattr(self, "_indexed", None) is not toks or self._done > len(toks):
            self._indexed, self._done = toks, 1
            self._index = {n: {} for n in range(self.min_ngram, self.max_ngram + 1)}
        for p in range(self._done, len(toks)):  # toks[p] is the continuation of the grams ending before p
            for n, grams in self._index.items():
                if p >= n:
                    grams[tuple(toks[p - n : p])] = p - n
        self._done = max(self._done, len(toks))

    def lookup(self, k: int) -> list[int]:
        toks = self.tokens
        self._sync_index()
        for n in range(min(self.max_ngram, len(toks) - 1), self.min_ngram - 1, -1):
            # Latest match first: recent context predicts best.
            start = self._index[n].get(tuple(toks[-n:]))
            if start is not None:
                return toks[start + n : start + n + k]
        return []

    def lookup_scan(self, k: int) -> list[int]:
        """lookup() by scanning the context (the reference the index must agree with)."""
        toks = self.tokens
        for n in range(min(self.max_ngram, len(toks) - 1), self.min_ngram - 1, -1):
            tail = toks[-n:]
            for start in range(len(toks) - n - 1, -1, -1):
                if toks[start : start + n] == tail:
                    return toks[start + n : start + n + k]
        return []

    def step_cost_ratio(self, target) -> float:
        """Nothing: a draft is a dict read and a slice, no model runs (k="auto" then prices a round as its
        verification alone, and needs no plain steps timed to start: `AdaptiveK.choose`)."""
        return 0.0

    def would_propose(self) -> bool:
        """Whether a proposal now would hold a draft (the loop runs plain steps while it would not)."""
        return bool(self.lookup(1))

    def propose(self, k, policy, key):
        self._drafts = self.lookup(k) if k > 0 else []
        ids = mx.array(self._drafts, dtype=mx.int32)
        if policy.greedy or not self._drafts:
            return ids, None if policy.greedy else mx.zeros((0, self.vocab_size))
        return ids, (mx.arange(self.vocab_size)[None] == ids[:, None]).astype(mx.float32)

    def commit(self, accepted, token, rows=None):
        self.tokens += self._drafts[:accepted] + [token]
