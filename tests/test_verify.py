"""The two verification rules, pinned on hand-built blocks."""

import math

import mlx.core as mx
import numpy as np
import pytest

from mlx_specdec import greedy_verify, speculative_verify
from mlx_specdec.errors import SpecDecError

V = 6


def onehot_logits(tokens):
    logits = np.full((len(tokens), V), -5.0, dtype=np.float32)
    for row, t in enumerate(tokens):
        logits[row, t] = 5.0
    return mx.array(logits)


def test_greedy_accepts_matching_prefix_and_emits_correction():
    # target predicts 1 2 3 4 5 (row 4 is the bonus); drafts agree on 1 2, then differ.
    accepted, token = greedy_verify(mx.array([1, 2, 0, 4]), onehot_logits([1, 2, 3, 4, 5]))
    assert (accepted, token) == (2, 3)


def test_bonus_token_after_full_acceptance():
    assert greedy_verify(mx.array([1, 2, 3, 4]), onehot_logits([1, 2, 3, 4, 5])) == (4, 5)


def test_zero_accepted_still_yields_the_targets_token():
    assert greedy_verify(mx.array([0, 2, 3, 4]), onehot_logits([1, 2, 3, 4, 5])) == (0, 1)


def test_match_after_a_mismatch_is_not_accepted():
    # d3 equals the target's row but sits on a path already rejected at d2.
    assert greedy_verify(mx.array([1, 0, 3]), onehot_logits([1, 2, 3, 4])) == (1, 2)


def test_row_zero_predicts_the_first_draft_off_by_one():
    # Rows shifted by one (the classic bug: slicing the last k rows) would verify
    # d_i against row i+1. With correct alignment every draft here is accepted.
    logits = onehot_logits([1, 2, 3, 4])
    assert greedy_verify(mx.array([1, 2, 3]), logits) == (3, 4)
    assert greedy_verify(mx.array([1, 2, 3]), onehot_logits([2, 3, 4, 0]))[0] == 0
    with pytest.raises(SpecDecError, match=r"\(k\+1, V\)"):
        greedy_verify(mx.array([1, 2, 3]), logits[1:])  # k rows instead of k+1


def test_empty_block_is_a_plain_target_step():
    assert greedy_verify(mx.array([], dtype=mx.int32), onehot_logits([4])) == (0, 4)


def test_speculative_accepts_when_draft_equals_target():
    p = mx.array(np.eye(V, dtype=np.float32)[[1, 2, 3]])
    accepted, token = speculative_verify(mx.array([1, 2]), p, p[:2], key=mx.random.key(0))
    assert (accepted, token) == (2, 3)


def test_speculative_rejects_draft_the_target_never_picks_and_corrects_from_residual():
    p = np.zeros((2, V), np.float32)
    p[0, [2, 3]] = 0.5
    p[1, 0] = 1.0
    q = np.zeros((1, V), np.float32)
    q[0, [1, 2]] = 0.5
    for seed in range(20):
        accepted, token = speculative_verify(mx.array([1]), mx.array(p), mx.array(q), key=mx.random.key(seed))
        # p(1) = 0 so d=1 is always rejected; residual (p - q)+ puts all mass on 3.
        assert (accepted, token) == (0, 3)


def test_speculative_uses_no_global_rng_state():
    p = mx.softmax(mx.random.normal((4, V), key=mx.random.key(1)), axis=-1)
    q = mx.softmax(mx.random.normal((3, V), key=mx.random.key(2)), axis=-1)
    d = mx.array([0, 1, 2])
    first = [speculative_verify(d, p, q, key=mx.random.key(s)) for s in range(30)]
    mx.random.seed(12345)  # disturbing the global generator must change nothing
    second = [speculative_verify(d, p, q, key=mx.random.key(s)) for s in range(30)]
    assert first == second
    assert len(set(first)) > 1


@pytest.mark.slow
def test_one_step_rule_reproduces_target_distribution():
    """The first emitted token is distributed exactly as p_0 whatever q is."""
    rng = np.random.default_rng(0)
    p0 = rng.dirichlet(np.ones(V) * 0.7).astype(np.float32)
    q0 = rng.dirichlet(np.ones(V) * 0.7).astype(np.float32)
    p = mx.array(np.stack([p0, rng.dirichlet(np.ones(V)).astype(np.float32)]))
    q = mx.array(q0[None])
    n = 12000
    keys = mx.random.split(mx.random.key(7), 2 * n)
    drafts = mx.random.categorical(mx.log(q[0]), shape=(n,), key=keys[0]).tolist()
    counts = np.zeros(V)
    accepted_total = 0
    for i, d in enumerate(drafts):
        accepted, token = speculative_verify(mx.array([d]), p, q, key=keys[n + i])
        counts[d if accepted else token] += 1
        accepted_total += accepted
    freq = counts / n
    # Per-token tolerance: 4.5 binomial standard deviations at this sample size.
    tol = 4.5 * np.sqrt(p0 * (1 - p0) / n)
    assert np.all(np.abs(freq - p0) <= tol), (freq, p0)
    # Acceptance itself has the predicted rate sum_x min(p, q).
    rate, expect = accepted_total / n, float(np.minimum(p0, q0).sum())
    assert abs(rate - expect) <= 4.5 * math.sqrt(expect * (1 - expect) / n)
