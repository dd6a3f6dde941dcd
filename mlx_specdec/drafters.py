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
drafter that lives on the target's own trunk (`MTPDrafter`, `NativeMTPDrafter` below) read the hidden
states of every verification pass (set ``target_seq.capture_hidden = True``).
"""

from __future__ import annotations

from functools import partial
from typing import Protocol, runtime_checkable

import mlx.core as mx

from .errors import IncompatibleModelsError, SpecDecError
from .models.mtp_head import as_ids
from .sampling import SamplingPolicy
from .state import PREFILL_CHUNK, make_sequence, model_vocab_size, output_projection


@runtime_checkable
class Drafter(Protocol):
    def prefill(self, prompt_ids) -> None: ...
    def propose(self, k: int, policy: SamplingPolicy, key: mx.array | None) -> tuple[mx.array, mx.array | None]: ...
    def commit(self, accepted: int, token: int) -> None: ...


EMPTY = mx.array([], dtype=mx.int32)


class ModelDrafter:
    """A separate (smaller) model sharing the target's token ids."""

    # Its commit never reads the target's passes: the loop may run its rounds without drafts
    # as pipelined plain steps (see speculative_stream).
    pipelines_plain_steps = True

    def __init__(self, model, strategy="cache"):
        self.model = model
        self.vocab_size = model_vocab_size(model)
        self.seq = make_sequence(model, strategy)
        self._drafts = EMPTY
        self._n_pending = 0
        self._unfed: list[int] | None = None  # the prompt and the plain steps' tokens, before any draft

    def prefill(self, prompt_ids) -> None:
        # Deferred to the first round that drafts: a generation whose rounds never draft (k='auto'
        # finding plain steps faster) never runs the drafter at all.
        self._unfed = as_ids(prompt_ids).reshape(-1).tolist()

    def catch_up(self) -> None:
        """Feed now, in one pass, the tokens a run of plain steps queued here unfed (keeping the last
        one pending, as after any round), and wait for it: work those steps owed, so that the next
        round's time is that of a round of its k. Before the first drafting round this is the deferred
        prefill. A no-op after a drafting round (1 or 2 pending)."""
        if self._unfed is not None:
            self._feed_unfed()
            return
        pending = self.seq.pending
        if pending.shape[0] <= 2:
            return
        self.seq.commit(0, pending[:-1])
        mx.eval(self.seq.extend(EMPTY)[-1:])
        self.seq.commit(pending.shape[0] - 1, pending[-1:])

    def _feed_unfed(self) -> None:
        ids, self._unfed = self._unfed, None
        self.seq.prefill(ids)

    def propose(self, k, policy, key):
        if k == 0:
            self._n_pending = self.seq.pending.shape[0]
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

    def commit(self, accepted, token):
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


def as_drafter(drafter, strategy="cache"):
    """Wrap a bare model as a ModelDrafter; pass Drafter objects through."""
    if isinstance(drafter, Drafter):
        return drafter
    if callable(drafter):
        return ModelDrafter(drafter, strategy)
    raise TypeError(f"drafter must be a model or a Drafter object, got {type(drafter).__name__}")


class PromptLookupDrafter:
    """Drafts by copying: find the latest earlier occurrence of the last n tokens
    (n from `max_ngram` down to `min_ngram`) and propose what followed it.

    Free to run (no model), strong on text that repeats its context (stories
    reusing names, code, extraction). Proposals are deterministic, so q is
    one-hot; under sampling the verifier then accepts d with probability p(d)
    and resamples from p with d removed, which is still exact.
    """

    pipelines_plain_steps = True  # host-only: rounds without drafts may be pipelined plain steps

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

    def would_propose(self) -> bool:
        """Whether a proposal now would hold a draft (the loop runs plain steps while it would not)."""
        return bool(self.lookup(1))

    def propose(self, k, policy, key):
        self._drafts = self.lookup(k) if k > 0 else []
        ids = mx.array(self._drafts, dtype=mx.int32)
        if policy.greedy or not self._drafts:
            return ids, None if policy.greedy else mx.zeros((0, self.vocab_size))
        return ids, (mx.arange(self.vocab_size)[None] == ids[:, None]).astype(mx.float32)

    def commit(self, accepted, token):
        self.tokens += self._drafts[:accepted] + [token]


DEFAULT_DRAFT_DEPTH = 3  # MTPDrafter's cap on drafts per round unless told otherwise


class MTPDrafter:
    """A Drafter that lives on the target's trunk: no extra trunk pass, ever.

    bind() asks the target's sequence to keep the hidden rows of each
    verification pass. commit(j, t) remembers row j (the state whose next token
    is t) and t; propose() runs the head from there. The first round drafts from
    the hidden rows the target's prefill kept (without them it proposes nothing,
    which the loop handles as a plain step). Everything stays
    lazy: the loop's one sync per round evaluates drafts and verdict together.
    """

    # Rounds without drafts may run as the plain loop's pipelined steps: the loop hands commit() the
    # hidden rows of the step that made each token (`rows`), since the step queued after it replaces
    # target_seq.hidden before the host reads the token.
    pipelines_plain_steps = True

    def __init__(self, head: MTPHead, max_depth: int | None = None, compile: bool = True):
        if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1):
            raise SpecDecError(f"max_depth must be an integer >= 1 or None, got {max_depth!r}")
        self.head = head
        self.vocab_size = head.config.vocab_size
        # Features re-fed past the trained depth still draft usefully (measured), so
        # a head trained at depth 1 drafts up to DEFAULT_DRAFT_DEPTH when asked.
        self.max_depth = max_depth or max(head.config.depth, DEFAULT_DRAFT_DEPTH)
        self._seq = None
        self._state = None  # (1, D) trunk row whose next token is self._token
        self._token = None
        self._n_drafts = 0
        self.rounds: list[tuple[int, int]] = []  # (drafts proposed, drafts accepted) per round
        # One compiled graph per module: the head is a handful of small ops, and on
        # the CPU per-op dispatch would otherwise cost as much as the arithmetic.
        self._steps = {}
        for d in range(1, min(self.max_depth, head.config.n_modules) + 1):
            fn = partial(self._step, d)
            # The head's weights are declared inputs (read at every call, so a head
            # updated after this point is seen); the frozen base's are constants.
            self._steps[d] = mx.compile(fn, inputs=[head.state]) if compile else fn

    def _step(self, depth, state, token):
        return self.head(state, token, depth=depth)

    def bind(self, target, target_seq) -> None:
        if target is not self.head.base:
            raise IncompatibleModelsError(
                f"this MTP head is attached to another {type(self.head.base).__name__} instance than the target "
                f"{type(target).__name__}; load the head onto the target (load_head(path, target, tokenizer))"
            )
        target_seq.capture_hidden = True
        self._seq = target_seq

    def prefill(self, prompt_ids) -> None:
        self._state = self._token = None
        self.rounds = []
        # If the target's prefill kept its hidden rows (rows for prompt[:-1]), the
        # last one is the state whose next token is the last prompt token: the
        # first round can then draft too. Without it the first round drafts nothing.
        hidden = getattr(self._seq, "hidden", None)
        ids = as_ids(prompt_ids)
        if hidden is not None and hidden.ndim == 2 and hidden.shape[0] == ids.shape[0] - 1:
            self._state, self._token = hidden[-1:], ids[-1:]

    def propose(self, k, policy, key):
        depth = min(k, self.max_depth)
        self._n_drafts = 0
        if depth < 1 or self._state is None:
            return EMPTY, None
        keys = mx.random.split(key, depth) if key is not None and not policy.greedy else [None] * depth
        state, token = self._state, self._token
        ids, probs = [], []
        for d in range(1, depth + 1):
            logits, state = self._steps[min(d, self.head.config.n_modules)](state, token)
            token, q = policy.pick(logits, keys[d - 1])
            token = token.astype(mx.int32)
            ids.append(token)
            probs.append(q)
        self._n_drafts = depth
        return mx.concatenate(ids), (None if policy.greedy else mx.concatenate(probs))

    def commit(self, accepted, token, rows=None) -> None:
        if self._seq is None:
            raise SpecDecError("MTPDrafter was not bound to a target sequence; drive it through speculative_generate")
        self.rounds.append((self._n_drafts, accepted))
        # Row `accepted` of the verification pass fed [pending, d_1..d_k] (`rows`, or the target sequence's
        # last pass) is the state at d_accepted (or at pending), whose next token is `token`.
        rows = self._seq.hidden if rows is None else rows
        self._state = rows[accepted : accepted + 1]
        self._token = mx.array([token], dtype=mx.int32)


def acceptance_by_depth(rounds: list[tuple[int, int]], max_depth: int) -> list[dict]:
    """Per draft position i: how often draft i was accepted when proposed, and
    how often when draft i-1 had been accepted (the conditional rate)."""
    out = []
    for i in range(1, max_depth + 1):
        proposed = [(n, a) for n, a in rounds if n >= i]
        reached = [(n, a) for n, a in proposed if a >= i - 1]
        acc = sum(a >= i for _, a in proposed)
        out.append(dict(
            depth=i, proposed=len(proposed),
            rate=acc / len(proposed) if proposed else 0.0,
            conditional=acc / len(reached) if reached else 0.0,
        ))
    return out


class NativeMTPDrafter:
    """Self-speculation with the MTP layer a checkpoint ships (models/native_mtp.py), on the target's trunk.

    The MTP layer attends, so unlike MTPHead it keeps a KV cache: row t holds the pair (h_t, x_{t+1}) at
    position t. The cache only ever holds true pairs at a commit: each round, one call of the layer feeds
    the pairs the last verification pass made true (its hidden rows 0..j with d_1..d_j and the target's token)
    and its last row drafts d_1; deeper drafts re-feed the layer's own output and append speculative rows,
    which commit() trims. The prompt's pairs are fed by the first call (the prefill of the MTP cache).
    """

    def __init__(self, head, base, max_depth: int | None = None):
        if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1):
            raise SpecDecError(f"max_depth must be an integer >= 1 or None, got {max_depth!r}")
        self.head, self.base = head, base
        self.vocab_size = model_vocab_size(base)
        self.max_depth = max_depth or DEFAULT_DRAFT_DEPTH
        self.cache = head.make_cache()
        self._seq = None
        self._queue = None  # (hidden rows (n, D), next tokens (n,)): true pairs not yet in the cache
        self._speculative = 0  # rows of this round's deeper drafts, trimmed at commit
        self._drafts = EMPTY
        self.draft_logits = None
        self.rounds: list[tuple[int, int]] = []

    def bind(self, target, target_seq) -> None:
        if target is not self.base:
            raise IncompatibleModelsError(
                f"this MTP head is attached to another {type(self.base).__name__} instance than the target "
                f"{type(target).__name__}; load it onto the target (load_native_head(path, target))")
        target_seq.capture_hidden = True
        self._seq = target_seq

    @property
    def committed_rows(self) -> int:
        """Rows of the MTP cache that are committed (true pairs)."""
        return self.head.positions(self.cache).offset - self._speculative

    def pending_pairs(self):
        return self._queue

    def prefill(self, prompt_ids) -> None:
        self.cache = self.head.make_cache()
        self._speculative, self._drafts, self.rounds = 0, EMPTY, []
        hidden = getattr(self._seq, "hidden", None)
        ids = as_ids(prompt_ids)
        # The target's prefill kept rows h_0..h_{P-2}: pairs (h_t, x_{t+1}) for every prompt position.
        ok = hidden is not None and hidden.ndim == 2 and hidden.shape[0] == ids.shape[0] - 1 > 0
        self._queue = (hidden, ids[1:]) if ok else None

    def _layer(self, hidden, tokens):
        emb = self.base.model.embed_tokens(tokens)[None]
        normed, refeed = self.head(hidden[None].astype(emb.dtype), emb, cache=self.cache)
        return normed[0, -1:], refeed[0, -1:]

    def propose(self, k, policy, key):
        depth = min(k, self.max_depth)
        self._speculative, self._drafts = 0, EMPTY
        if depth < 1 or self._queue is None:
            return EMPTY, None
        keys = mx.random.split(key, depth) if key is not None and not policy.greedy else [None] * depth
        project = output_projection(self.base)
        # The round's true pairs (the whole prompt's in the first round, chunked like the target's prefill);
        # the last row drafts d_1.
        hidden, tokens = self._queue
        self._queue = None
        starts = range(0, tokens.shape[0], PREFILL_CHUNK)
        for start in starts:
            normed, state = self._layer(hidden[start : start + PREFILL_CHUNK], tokens[start : start + PREFILL_CHUNK])
            if start != starts[-1]:
                mx.eval(normed)  # a long prompt: bound the graph, as the target's prefill does
        ids, probs, logits = [], [], []
        for d in range(depth):
            if d:
                normed, state = self._layer(state, ids[-1])
                self._speculative += 1
            logits.append(project(normed))
            token, q = policy.pick(logits[-1], keys[d])
            ids.append(token.astype(mx.int32))
            probs.append(q)
        self._drafts = mx.concatenate(ids)
        self.draft_logits = mx.concatenate(logits)  # lazy: computed only if someone reads it
        return self._drafts, (None if policy.greedy else mx.concatenate(probs))

    def commit(self, accepted, token) -> None:
        if self._seq is None:
            raise SpecDecError("NativeMTPDrafter was not bound to a target sequence; drive it through speculative_generate")
        self.rounds.append((self._drafts.shape[0], accepted))
        if self._speculative:
            self.cache.trim(self._speculative)  # rows from re-fed drafts are never true pairs (every member)
            self._speculative = 0
        # Rows 0..accepted of the verification pass are h at pending, d_1..d_accepted: each pairs with the
        # token after it (d_1..d_accepted, then the target's token).
        pairs = (self._seq.hidden[: accepted + 1],
                 mx.concatenate([self._drafts[:accepted], mx.array([token], dtype=mx.int32)]))
        if self._queue is not None:  # nothing was drafted this round: the earlier pairs still wait
            pairs = tuple(mx.concatenate([a, b]) for a, b in zip(self._queue, pairs))
        self._queue = pairs
