"""Table-lookup language models for pinning the algebra.

A TableLM's next-token logits depend on the last two tokens only, looked up in a
fixed table. It follows the mlx-lm model protocol, including the prompt cache:
the token ids themselves are stored as the cache's "keys", so cached and
uncached calls see the same history and rollback bugs show up as wrong tokens.
"""

from types import SimpleNamespace

import mlx.core as mx
import numpy as np
from mlx_lm.models.cache import KVCache


class TableLM:
    def __init__(self, vocab_size: int, seed: int = 0, sharpness: float = 3.0, table=None):
        rng = np.random.default_rng(seed)
        if table is None:
            table = rng.normal(size=(vocab_size, vocab_size, vocab_size)) * sharpness
        self.table = mx.array(np.asarray(table, dtype=np.float32))  # [prev, cur] -> logits
        self.args = SimpleNamespace(vocab_size=vocab_size, max_seq_len=4096)
        self.layers = [None]
        self.calls = 0

    def make_cache(self):
        return [KVCache()]

    def __call__(self, ids, cache=None):
        self.calls += 1
        new = ids.astype(mx.float32)[:, None, :, None]  # (1, 1, T, 1)
        T = ids.shape[1]
        if cache is not None:
            history, _ = cache[0].update_and_fetch(new, new)
            history = history[0, 0, :, 0].astype(mx.int32)
        else:
            history = ids[0].astype(mx.int32)
        prev = mx.concatenate([mx.zeros((1,), mx.int32), history[:-1]])
        rows = self.table[prev[-T:], history[-T:]]
        return rows[None]

    def next_logits(self, prev: int, cur: int) -> np.ndarray:
        return np.array(self.table[prev, cur])


def oracle_greedy(model, prompt, n, eos_id=None):
    """Target-only greedy by full recompute, written independently of the library."""
    ids = list(prompt)
    out = []
    for _ in range(n):
        logits = model(mx.array(ids)[None])[0, -1]
        t = int(np.argmax(np.array(logits)))
        out.append(t)
        ids.append(t)
        if t == eos_id:
            break
    return out


class ScriptedDrafter:
    """Proposes the target's own greedy tokens for the first `script[r]` drafts of
    round r and a token the target never picks after that: acceptance patterns
    become exact and countable."""

    def __init__(self, target, script, wrong_token=None):
        self.target, self.script, self.round = target, list(script), 0
        self.vocab_size = target.args.vocab_size
        self.wrong = wrong_token
        self.tokens: list[int] = []
        self.proposed: list[list[int]] = []

    def prefill(self, prompt_ids):
        self.tokens = list(prompt_ids)

    def propose(self, k, policy, key):
        good = self.script[self.round] if self.round < len(self.script) else k
        self.round += 1
        ctx, out = list(self.tokens), []
        for i in range(k):
            logits = np.array(self.target(mx.array(ctx)[None])[0, -1])
            best = int(np.argmax(logits))
            tok = best if i < good else int(np.argmin(logits))  # argmin != argmax: certainly rejected
            out.append(tok)
            ctx.append(tok)
        self.proposed.append(out)
        self._last = out
        return mx.array(out, dtype=mx.int32), None

    def commit(self, accepted, token):
        self.tokens += self._last[:accepted] + [token]
