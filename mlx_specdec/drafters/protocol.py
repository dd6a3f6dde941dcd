"""The drafter protocol: what the loop may call, and what a drafter declares about itself.

The loop (compare transformers' candidate generators) calls, in order:

* ``bind(target, target_seq)`` once, before prefill: a drafter that lives on
  the target's own trunk asks the target's sequence for what it reads (its
  hidden rows) and keeps a handle on it;
* ``prefill(prompt_ids)``: start from the prompt;
* each round ``propose(k, policy, key) -> (draft_ids (k',), draft_probs (k', V) or None)``,
  lazily, with k' <= k (the loop counts what it got); ``draft_probs`` is the
  distribution each draft was sampled from (speculative sampling needs it; None
  under greedy);
* ``commit(accepted, token, rows=None)``: the target kept the first
  ``accepted`` drafts and emitted ``token`` after them; land on that boundary.
  ``rows`` are the target's hidden rows of the pass that made ``token`` when the
  loop ran it as a pipelined plain step (the sequence's own ``hidden`` is then
  a later step's);
* ``catch_up()`` before a drafting round that follows plain steps (work those
  steps owed), and ``would_propose()`` between plain steps where the drafter
  declares ``knows_when_idle``, ``preview(k)`` where it declares
  ``drafts_for_free``.

What a drafter declares, as class attributes the loop reads (never probes):

| declaration | meaning |
|---|---|
| ``pipelines_plain_steps`` | its commit reads nothing of the target's passes but ``rows``: rounds without drafts may run as the plain loop's pipelined steps |
| ``knows_when_idle`` | ``would_propose()`` says whether a proposal now would hold a draft (prompt lookup): a run of plain steps looks ahead while it would not |
| ``drafts_for_free`` | ``preview(k)`` returns the drafts a proposal now would hold, as a list of ids, at no cost and changing nothing (prompt lookup): plain steps score them against the tokens they make, so k="auto" keeps learning the drafter's acceptance while it drafts nothing (greedy drafts only: a one-hot q) |
| ``reads_hidden`` | it reads the target's final hidden rows of every verification pass (``bind`` turns the capture on); the loop hands ``rows`` to its commit |
| ``feature_layers`` | the target layers whose outputs it reads (a feature drafter, EAGLE-3 style): before ``bind`` the loop asks the target's sequence to capture them in every pass (``target_seq.features``, (T, L * D), the prefill's too); rows of a pipelined plain step reach its commit as ``rows`` |
| ``proposes_exactly_k`` | it always proposes k drafts when asked for k (a model drafter); under a sharded target it may then draft on rank 0 alone |
| ``keeps_cache`` | it holds a cache of its own, rolled back in ``commit`` |
| ``defers_prefill`` | its ``prefill`` only keeps the prompt: the first drafting round's ``catch_up`` feeds it (a separate model), so drafting first costs a start-up that k="auto" weighs before paying it (``price_entry``) |

``vocab_size`` is the vocabulary of what `propose` returns (None: the
target's); it must be the target's, since draft ids are target ids. A drafter
with a reduced draft vocabulary of its own keeps its map inside: `propose`
returns target ids, and under sampling q over the target's vocabulary (its
draft vocabulary's probabilities scattered onto their target ids, zero
elsewhere), which is all speculative sampling needs to stay exact. Nor does
the loop care how the k drafts were made: one model step each, or a whole
block in one pass of a block drafter, where q_i of each position is the
distribution its draft was drawn from.
"""

from __future__ import annotations

import mlx.core as mx

from ..errors import IncompatibleModelsError
from ..model_info import model_vocab_size
from ..models.mtp_head import as_ids
from ..sampling import SamplingPolicy

EMPTY = mx.array([], dtype=mx.int32)


def prompt_pairs(rows, prompt_ids):
    """The true pairs a drafter that reads the target's rows starts its cache from: the target's prefill kept a row
    for each of prompt[:-1], paired here with the token after it. None where the rows are not there."""
    ids = as_ids(prompt_ids)
    ok = rows is not None and rows.ndim == 2 and rows.shape[0] == ids.shape[0] - 1 > 0
    return (rows, ids[1:]) if ok else None


def check_feature_target(target, config, what: str) -> None:
    """A feature drafter (EAGLE-3, a block drafter) fits a target whose layers it reads exist and whose
    vocabulary it drafts for; one line naming both otherwise."""
    n_layers = len(getattr(target, "layers", ()))
    if max(config.target_layers) >= n_layers:
        raise IncompatibleModelsError(f"this {what} reads target layers {list(config.target_layers)}; "
                                      f"the target has {n_layers}")
    if model_vocab_size(target) != config.vocab_size:
        raise IncompatibleModelsError(f"this {what} drafts for a {config.vocab_size}-token vocabulary; "
                                      f"the target has {model_vocab_size(target)}")


def pick_on_target_vocabulary(policy: SamplingPolicy, logits, key, draft_to_target, vocab_size: int):
    """Drafts chosen from draft-vocabulary logits, as (target ids, q over the target's vocabulary or None):
    q is the draft vocabulary's probabilities on their target ids and zero elsewhere (`draft_to_target` None:
    the logits are over the target's vocabulary already)."""
    draft, q = policy.pick(logits, key)
    if draft_to_target is None:
        return draft.astype(mx.int32), q
    token = draft_to_target[draft.astype(mx.int32)]
    if q is None:
        return token, None
    full = mx.zeros((q.shape[0], vocab_size), dtype=q.dtype)
    full[:, draft_to_target] = q
    return token, full


class Drafter:
    """Base class of every drafter; subclasses override the calls and set the declarations they make true."""

    pipelines_plain_steps = False
    knows_when_idle = False
    drafts_for_free = False
    reads_hidden = False
    feature_layers: tuple[int, ...] = ()
    proposes_exactly_k = False
    keeps_cache = False
    defers_prefill = False
    vocab_size: int | None = None

    def bind(self, target, target_seq) -> None:
        """Called once, before prefill, with the target and its committed sequence."""

    def prefill(self, prompt_ids) -> None:
        raise NotImplementedError

    def propose(self, k: int, policy: SamplingPolicy, key: mx.array | None) -> tuple[mx.array, mx.array | None]:
        raise NotImplementedError

    def commit(self, accepted: int, token: int, rows: mx.array | None = None) -> None:
        raise NotImplementedError

    def catch_up(self) -> int:
        """Before a drafting round that follows plain steps: do the work those steps left (default: none);
        returns how many tokens it fed (what k="auto" prices the next such catch-up by)."""
        return 0

    def would_propose(self) -> bool:
        """Whether a proposal now would hold a draft; read only where `knows_when_idle` is declared."""
        return True

    def preview(self, k: int) -> list[int]:
        """The drafts a proposal of k now would hold, changing nothing; read only where `drafts_for_free`."""
        return []

    def step_cost_ratio(self, target) -> float | None:
        """What one drafting step costs over one step of `target`, measured now, before any round (k="auto"
        asks once, knowing nothing yet: `AdaptiveK.can_pay`); None where a drafter does not measure it."""
        return None


class DeclaredDrafter(Drafter):
    """A duck-typed drafter (prefill/propose/commit, not a Drafter subclass) behind the protocol: its
    optional methods and declarations are read once, here, so the loop never probes."""

    def __init__(self, inner):
        self.inner = inner
        for name in ("pipelines_plain_steps", "reads_hidden", "proposes_exactly_k", "keeps_cache", "defers_prefill"):
            setattr(self, name, bool(getattr(inner, name, False)))
        self.feature_layers = tuple(getattr(inner, "feature_layers", ()))
        self.knows_when_idle = callable(getattr(inner, "would_propose", None))
        self.drafts_for_free = callable(getattr(inner, "preview", None))
        self.vocab_size = getattr(inner, "vocab_size", None)
        self._bind = getattr(inner, "bind", None)
        self._catch_up = getattr(inner, "catch_up", None)
        self._step_cost_ratio = getattr(inner, "step_cost_ratio", None)

    def bind(self, target, target_seq) -> None:
        if self._bind is not None:
            self._bind(target, target_seq)
        self.vocab_size = getattr(self.inner, "vocab_size", self.vocab_size)

    def prefill(self, prompt_ids) -> None:
        self.inner.prefill(prompt_ids)

    def propose(self, k, policy, key):
        return self.inner.propose(k, policy, key)

    def commit(self, accepted, token, rows=None) -> None:
        if rows is None:
            self.inner.commit(accepted, token)
        else:
            self.inner.commit(accepted, token, rows=rows)

    def catch_up(self) -> int:
        return int(self._catch_up() or 0) if self._catch_up is not None else 0

    def would_propose(self) -> bool:
        return self.inner.would_propose()

    def preview(self, k: int) -> list[int]:
        return list(self.inner.preview(k))

    def step_cost_ratio(self, target) -> float | None:
        return None if self._step_cost_ratio is None else self._step_cost_ratio(target)


def is_drafter(obj) -> bool:
    """A Drafter, or an object that speaks the protocol's three calls."""
    return isinstance(obj, Drafter) or all(callable(getattr(obj, m, None)) for m in ("prefill", "propose", "commit"))
