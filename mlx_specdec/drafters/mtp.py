"""Drafters on the target's own trunk: an MTP head (`MTPDrafter`) and a checkpoint's own MTP layer
(`NativeMTPDrafter`). Both read the target's hidden rows of every verification pass: no extra trunk pass."""

from __future__ import annotations

from functools import partial

import mlx.core as mx

from ..errors import IncompatibleModelsError, SpecDecError
from ..model_info import model_vocab_size, output_projection
from ..models.mtp_head import as_ids
from ..state import PREFILL_CHUNK
from .protocol import EMPTY, Drafter, prompt_pairs
from ..traces import counted


DEFAULT_DRAFT_DEPTH = 3  # MTPDrafter's cap on drafts per round unless told otherwise


class MTPDrafter(Drafter):
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
    reads_hidden = True

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
            self._steps[d] = mx.compile(counted(fn), inputs=[head.state]) if compile else fn

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


class NativeMTPDrafter(Drafter):
    """Self-speculation with the MTP layer a checkpoint ships (models/native_mtp.py), on the target's trunk.

    The MTP layer attends, so unlike MTPHead it keeps a KV cache: row t holds the pair (h_t, x_{t+1}) at
    position t. The cache only ever holds true pairs at a commit: each round, one call of the layer feeds
    the pairs the last verification pass made true (its hidden rows 0..j with d_1..d_j and the target's token)
    and its last row drafts d_1; deeper drafts re-feed the layer's own output and append speculative rows,
    which commit() trims. The prompt's pairs are fed by the first call (the prefill of the MTP cache).
    """

    reads_hidden = True
    keeps_cache = True

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
        self._queue = prompt_pairs(getattr(self._seq, "hidden", None), prompt_ids)  # (h_t, x_{t+1})

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

    def commit(self, accepted, token, rows=None) -> None:
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
