"""The two verification rules: pure functions over one drafted block.

Alignment (the off-by-one every bug hides in): the target scores the block
``[last committed token, d_1, ..., d_k]`` in one pass and returns k+1 rows.
Row i (0-based) is the target's prediction for the position of draft d_{i+1};
row 0 therefore comes from the last *committed* position, and row k predicts
the token after the whole block: the bonus.

Both rules return ``(accepted, token)``: the number of leading drafts kept and
the target's own token that follows them (the correction at the first
rejection, or the bonus after full acceptance). Every round therefore emits
``accepted + 1`` tokens, so speculation never makes less progress per target
pass than plain decoding.

The ``*_verdict`` variants return lazy ``mx.array`` scalars so the decoding
loop can fold verification into its single sync point per round; the public
functions return Python ints.
"""

from __future__ import annotations

from functools import lru_cache

import mlx.core as mx

from .errors import SpecDecError
from .sampling import SamplingPolicy
from .traces import counted


def _check_block(draft_ids: mx.array, rows: mx.array, what: str) -> int:
    if draft_ids.ndim != 1:
        raise SpecDecError(f"draft_ids must have shape (k,), got {tuple(draft_ids.shape)}")
    k = draft_ids.shape[0]
    if rows.ndim != 2 or rows.shape[0] != k + 1:
        raise SpecDecError(
            f"{what} must have shape (k+1, V) = ({k + 1}, V) for {k} drafts, got {tuple(rows.shape)}"
        )
    return k


def _leading_true(mask: mx.array) -> mx.array:
    """Length of the all-True prefix of a boolean vector (0 for an empty one)."""
    if mask.shape[0] == 0:
        return mx.array(0, dtype=mx.int32)
    return mx.cumprod(mask.astype(mx.int32)).sum()


def greedy_verdict(draft_ids: mx.array, target_logits: mx.array) -> tuple[mx.array, mx.array]:
    """Lazy greedy rule: keep drafts while they equal the target's argmax."""
    k = draft_ids.shape[0]
    choice = mx.argmax(target_logits, axis=-1)  # (k+1,): the target's own token at each position
    accepted = _leading_true(draft_ids == choice[:k])
    return accepted, choice[accepted]


def greedy_verify(draft_ids, target_logits) -> tuple[int, int]:
    """Greedy verification of one block.

    draft_ids: (k,) proposed ids; target_logits: (k+1, V), row i predicts draft i
    (row 0 from the last committed position), row k the bonus token.
    Returns ``(accepted, token)`` as Python ints.
    """
    draft_ids, target_logits = mx.array(draft_ids), mx.array(target_logits)
    _check_block(draft_ids, target_logits, "target_logits")
    accepted, token = greedy_verdict(draft_ids, target_logits)
    mx.eval(accepted, token)
    return accepted.item(), token.item()


def speculative_verdict(
    draft_ids: mx.array, target_probs: mx.array, draft_probs: mx.array | None, *, key: mx.array
) -> tuple[mx.array, mx.array]:
    """Lazy speculative-sampling rule (Leviathan et al. 2022, Chen et al. 2023).

    Draft d_i is kept with probability min(1, p_i(d_i) / q_i(d_i)). At the first
    rejection the token is drawn from the normalised positive part of p_i - q_i;
    after full acceptance the bonus is drawn from p_k. Accepted mass min(p, q)
    plus correction mass (p - q)+ is exactly p, so the output distribution is
    the target's whatever the drafter proposes.
    """
    k = draft_ids.shape[0]
    accept_key, sample_key = mx.random.split(key)
    if k == 0:
        accepted = mx.array(0, dtype=mx.int32)
        residual = target_probs[0]
    else:
        rows = mx.arange(k)
        p_draft = target_probs[rows, draft_ids]
        q_draft = draft_probs[rows, draft_ids]
        u = mx.random.uniform(shape=(k,), key=accept_key)
        # u < p/q written without the division: q = 0 (an impossible draft) accepts
        # iff p > 0, which is min(1, p/0) = 1; p = 0 always rejects.
        accepted = _leading_true(u * q_draft < p_draft)
        # Only the row at `accepted` matters: p - q for a rejection, p_k (q padded
        # with zeros) for the bonus.
        q_padded = mx.concatenate([draft_probs, mx.zeros((1, draft_probs.shape[1]), draft_probs.dtype)])
        residual = mx.maximum(target_probs[accepted] - q_padded[accepted], 0.0)
        # (p - q)+ sums to zero only when p == q, where rejection has probability 0;
        # fall back to p so that path stays well defined.
        residual = mx.where(residual.sum() > 0, residual, target_probs[accepted])
    token = mx.random.categorical(mx.log(residual), key=sample_key)
    return accepted, token


@lru_cache(maxsize=16)
def _compiled_sampled_verdict(policy: SamplingPolicy):
    def verdict(draft_ids, target_logits, draft_probs, key):
        return speculative_verdict(draft_ids, policy.probs(target_logits), draft_probs, key=key)

    return mx.compile(counted(verdict))


def sampled_verdict(policy: SamplingPolicy, draft_ids: mx.array, target_logits: mx.array,
                    draft_probs: mx.array | None, *, key: mx.array) -> tuple[mx.array, mx.array]:
    """`speculative_verdict` on the target's logits under `policy`, as one compiled graph (one trace per
    block length): the probabilities, the acceptance test and the residual draw, which as separate ops
    cost a sampled round about half a millisecond on a small model."""
    if draft_probs is None:  # an empty block: nothing to verify, the row is the target's own draw
        return speculative_verdict(draft_ids, policy.probs(target_logits), draft_probs, key=key)
    return _compiled_sampled_verdict(policy)(draft_ids, target_logits, draft_probs, key)


def speculative_verify(draft_ids, target_probs, draft_probs, *, key) -> tuple[int, int]:
    """Speculative-sampling verification of one block.

    target_probs: (k+1, V) target probabilities under the sampling policy;
    draft_probs: (k, V) the drafter's probabilities the drafts were sampled from;
    key: an ``mx.random.key`` (no global RNG state is touched).
    Returns ``(accepted, token)`` as Python ints.
    """
    draft_ids, target_probs = mx.array(draft_ids), mx.array(target_probs)
    draft_probs = mx.array(draft_probs)
    k = _check_block(draft_ids, target_probs, "target_probs")
    if draft_probs.shape != (k, target_probs.shape[1]):
        raise SpecDecError(
            f"draft_probs must have shape (k, V) = ({k}, {target_probs.shape[1]}), got {tuple(draft_probs.shape)}"
        )
    accepted, token = speculative_verdict(draft_ids, target_probs, draft_probs, key=key)
    mx.eval(accepted, token)
    return accepted.item(), token.item()
