"""PromptLookupDrafter: drafts by copying the context (no model)."""

from __future__ import annotations

import mlx.core as mx

from ..model_info import model_vocab_size
from .protocol import Drafter


class PromptLookupDrafter(Drafter):
    """Drafts by copying: find the latest earlier occurrence of the last n tokens
    (n from `max_ngram` down to `min_ngram`) and propose what followed it.

    Where no suffix matches, it resynchronises after a one-token edit
    (`resync_ngram`, 3; 0 turns it off): the last token replaced one token of the
    passage being copied (a corrected word, a changed name or day), so the
    `resync_ngram` tokens before it locate the passage, and the drafts continue it
    past the replaced token. Copying stops at every edit otherwise: the n-grams
    that end in the new token are found nowhere, and the rounds after it are plain
    steps until the text has gone `min_ngram` tokens past it (SmolLM2 correcting a
    paragraph's spelling: 2.5 tokens a pass at k = 8 without, 3.0 with, its own
    greedy texts replayed). Asked only after every exact match failed, so where
    text repeats its context the drafts are what they were.

    Free to run (no model), strong on text that repeats its context (stories
    reusing names, code, extraction). Proposals are deterministic, so q is
    one-hot; under sampling the verifier then accepts d with probability p(d)
    and resamples from p with d removed, which is still exact.
    """

    pipelines_plain_steps = True  # host-only: rounds without drafts may be pipelined plain steps
    knows_when_idle = True  # would_propose(): a lookup that finds nothing is known before the round
    drafts_for_free = True  # preview(k): plain steps score what it would draft (k="auto" keeps learning)

    def __init__(self, max_ngram: int = 3, min_ngram: int = 1, vocab_size: int | None = None,
                 resync_ngram: int = 3):
        if not 1 <= min_ngram <= max_ngram:
            raise ValueError(f"need 1 <= min_ngram <= max_ngram, got {min_ngram}, {max_ngram}")
        if resync_ngram < 0:
            raise ValueError(f"need resync_ngram >= 0 (0: off), got {resync_ngram}")
        self.max_ngram, self.min_ngram, self.resync_ngram = max_ngram, min_ngram, resync_ngram
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
        hundred tokens in Python costs a sizeable share of a plain step. earlier[gram] (resync_ngram
        tokens) is the start before that one: the latest is the gram ending just before the last token,
        itself, and a resynchronisation looks for where it occurred before.
        """
        toks = self.tokens
        if getattr(self, "_indexed", None) is not toks or self._done > len(toks):
            self._indexed, self._done = toks, 1
            sizes = set(range(self.min_ngram, self.max_ngram + 1)) | ({self.resync_ngram} - {0})
            self._index = {n: {} for n in sorted(sizes)}
            self._earlier = {}
        resync = self._index.get(self.resync_ngram)
        for p in range(self._done, len(toks)):  # toks[p] is the continuation of the grams ending before p
            for n, grams in self._index.items():
                if p >= n:
                    gram = tuple(toks[p - n : p])
                    if grams is resync and gram in grams:
                        self._earlier[gram] = grams[gram]
                    grams[gram] = p - n
        self._done = max(self._done, len(toks))

    def lookup(self, k: int) -> list[int]:
        toks = self.tokens
        self._sync_index()
        for n in range(min(self.max_ngram, len(toks) - 1), self.min_ngram - 1, -1):
            # Latest match first: recent context predicts best.
            start = self._index[n].get(tuple(toks[-n:]))
            if start is not None:
                return toks[start + n : start + n + k]
        n = self.resync_ngram
        if n and len(toks) > n + 1:  # the n tokens before the last one, where they occurred before
            start = self._earlier.get(tuple(toks[-n - 1 : -1]))
            if start is not None:
                return toks[start + n + 1 : start + n + 1 + k]  # past the token the last one replaced
        return []

    def lookup_scan(self, k: int) -> list[int]:
        """lookup() by scanning the context (the reference the index must agree with)."""
        toks = self.tokens
        for n in range(min(self.max_ngram, len(toks) - 1), self.min_ngram - 1, -1):
            tail = toks[-n:]
            for start in range(len(toks) - n - 1, -1, -1):
                if toks[start : start + n] == tail:
                    return toks[start + n : start + n + k]
        n = self.resync_ngram
        if n and len(toks) > n + 1:
            tail = toks[-n - 1 : -1]
            for start in range(len(toks) - n - 2, -1, -1):  # with a token after the one replaced
                if toks[start : start + n] == tail:
                    return toks[start + n + 1 : start + n + 1 + k]
        return []

    def step_cost_ratio(self, target) -> float:
        """Nothing: a draft is a dict read and a slice, no model runs (k="auto" then prices a round as its
        verification alone, and needs no plain steps timed to start: `AdaptiveK.choose`)."""
        return 0.0

    def would_propose(self) -> bool:
        """Whether a proposal now would hold a draft (the loop runs plain steps while it would not)."""
        return bool(self.lookup(1))

    def preview(self, k: int) -> list[int]:
        """What propose(k) would draft now (a dict read and a slice), changing nothing."""
        return self.lookup(k)

    def propose(self, k, policy, key):
        self._drafts = self.lookup(k) if k > 0 else []
        ids = mx.array(self._drafts, dtype=mx.int32)
        if policy.greedy or not self._drafts:
            return ids, None if policy.greedy else mx.zeros((0, self.vocab_size))
        return ids, (mx.arange(self.vocab_size)[None] == ids[:, None]).astype(mx.float32)

    def commit(self, accepted, token, rows=None):
        self.tokens += self._drafts[:accepted] + [token]
