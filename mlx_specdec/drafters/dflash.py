"""`DFlashDrafter`: a block drafter fed by the target's own verification passes; k drafts from one pass.

The drafter declares `feature_layers`, so the target's sequence captures those
layers' outputs in every pass (the prefill's too). Its caches hold one context
row per position the target has verified:

* after prefill, the prompt's rows (all but the last prompt token, which is
  pending: the target has not read it yet) wait in a queue, with the pending
  token;
* `propose(k)` feeds the queued rows and fills the block [pending, mask x k]
  in the same pass: k drafts, each from its own slot's distribution;
* `commit(j, t)` queues rows 0..j of the pass (the pending token's and the j
  accepted drafts': every position now verified) and makes t the pending
  token; the block itself was never cached, so nothing is trimmed;
* a run of pipelined plain steps hands each step's row to commit as `rows`.

Under sampling, q_i is the softmax of slot i's logits under the policy (over
the target's vocabulary: a reduced draft vocabulary's probabilities on their
target ids, zero elsewhere) and draft i is drawn from it alone. q_i does not
depend on the drafts before it, which is all min(1, p/q) with the target's
residual needs to stay exact (docs/DESIGN.md, "Block drafters").
"""

from __future__ import annotations

import mlx.core as mx

from ..errors import IncompatibleModelsError, SpecDecError
from ..model_info import output_projection, token_embedding
from ..models.dflash import DFlashModel
from ..models.mtp_head import as_ids
from ..state import PREFILL_CHUNK
from .protocol import EMPTY, Drafter, check_feature_target, pick_on_target_vocabulary


class DFlashDrafter(Drafter):
    keeps_cache = True
    pipelines_plain_steps = True  # commit reads nothing of a pass but its features, which plain steps hand over

    def __init__(self, model: DFlashModel, max_block: int | None = None):
        cfg = model.config
        if max_block is not None and (isinstance(max_block, bool) or not isinstance(max_block, int)
                                      or not 2 <= max_block):
            raise SpecDecError(f"max_block must be an integer >= 2 or None, got {max_block!r}")
        self.model = model
        self.feature_layers = cfg.target_layers
        self.vocab_size = cfg.vocab_size
        self.max_drafts = min(max_block or cfg.block_size, cfg.block_size) - 1
        self.cache = model.make_cache()
        self._draft_to_target = model.draft_to_target
        self._seq = None
        self._queue: list[mx.array] = []  # context rows (features) not yet in the caches
        self._pending = None  # the last committed token, which the target has not read yet
        self._drafts = EMPTY
        self.rounds: list[tuple[int, int]] = []

    def bind(self, target, target_seq) -> None:
        cfg = self.model.config
        check_feature_target(target, cfg, "block drafter")
        embed = token_embedding(target)
        width = embed.weight.shape[-1] if hasattr(embed, "weight") else cfg.hidden_size
        if getattr(embed, "bits", None) is None and width != cfg.hidden_size:
            raise IncompatibleModelsError(f"this block drafter is {cfg.hidden_size} wide; the target's embedding "
                                          f"rows are {width}")
        self.model.bind(embed, None if cfg.own_head else output_projection(target))
        self._seq = target_seq

    def prefill(self, prompt_ids) -> None:
        ids = as_ids(prompt_ids)
        self.cache = self.model.make_cache()
        self._drafts, self.rounds = EMPTY, []
        self._pending = ids[-1:]
        rows = getattr(self._seq, "features", None)
        self._queue = [rows] if rows is not None and rows.ndim == 2 and rows.shape[0] == ids.shape[0] - 1 > 0 else []

    def propose(self, k, policy, key):
        n = min(k, self.max_drafts)
        self._drafts = EMPTY
        if n < 1 or self._pending is None:
            return EMPTY, None
        if self._seq is None:
            raise SpecDecError("DFlashDrafter was not bound to a target sequence; drive it through "
                               "speculative_generate")
        rows = None
        if self._queue:
            rows = self._queue[0] if len(self._queue) == 1 else mx.concatenate(self._queue)
        self._queue = []
        # A long prompt's context joins the caches a chunk at a time, as the target's prefill does: bound the graph.
        while rows is not None and rows.shape[0] > PREFILL_CHUNK:
            self.model.extend_context(rows[None, :PREFILL_CHUNK], self.cache)
            mx.eval([c.state for c in self.cache])
            rows = rows[PREFILL_CHUNK:]
        logits = self.model(self._pending, n, None if rows is None else rows[None], self.cache)[0]
        self._drafts, q = pick_on_target_vocabulary(policy, logits, None if policy.greedy else key,
                                                    self._draft_to_target, self.vocab_size)
        return self._drafts, q

    def commit(self, accepted, token, rows=None) -> None:
        if self._seq is None:
            raise SpecDecError("DFlashDrafter was not bound to a target sequence; drive it through "
                               "speculative_generate")
        self.rounds.append((self._drafts.shape[0], accepted))
        features = self._seq.features if rows is None else rows
        self._queue.append(features[: accepted + 1])
        self._drafts = EMPTY
        self._pending = mx.array([token], dtype=mx.int32)
