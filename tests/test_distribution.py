"""The full sampled loop keeps the target's distribution (fixed seeds, derived tolerances)."""

import itertools
import math

import numpy as np
import pytest

from mlx_specdec import speculative_generate
from mlx_specdec.sampling import SamplingPolicy
from tests.mocks import TableLM

V = 4
PROMPT = [1, 2]


def chi2_critical(df: int, z: float = 3.09) -> float:
    """Wilson-Hilferty upper quantile of chi-square(df); z=3.09 is the 0.001 tail."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def assert_drawn_from_target(model, prompt: list[int], out: list[int], policy, bins: int = 6) -> None:
    """Every token of one sampled generation through its randomised probability integral transform
    u = F(t-) + V p(t) under the target's own conditional p at that position (one teacher-forced pass over
    the output), V uniform: if each token was drawn from the target's conditional, the u are independent and
    uniform on [0, 1) (Rosenblatt), whatever the drafts were. Pearson chi-square over `bins` equal bins against
    the 0.001 tail."""
    import mlx.core as mx

    n = len(out)
    logits = model(mx.array(prompt + out)[None])[0, len(prompt) - 1 : -1]
    p = np.array(policy.probs(logits), dtype=np.float64)
    assert all(p[i, t] > 0 for i, t in enumerate(out))  # nothing outside the policy's support
    below = np.array([p[i, :t].sum() for i, t in enumerate(out)])
    u = below + np.random.default_rng(0).random(n) * p[np.arange(n), out]
    counts = np.bincount(np.minimum((u * bins).astype(int), bins - 1), minlength=bins)
    stat = float(((counts - n / bins) ** 2 / (n / bins)).sum())
    assert stat < chi2_critical(bins - 1), counts.tolist()


def softmax(x, temperature=1.0):
    e = np.exp((x - x.max()) / temperature)
    return e / e.sum()


def target_joint(model, prompt, n, policy_probs):
    """Exact joint probability of the first n sampled tokens under the target."""
    joint = {}
    for seq in itertools.product(range(V), repeat=n):
        ctx, prob = list(prompt), 1.0
        for tok in seq:
            prob *= policy_probs(model.next_logits(ctx[-2], ctx[-1]))[tok]
            ctx.append(tok)
        joint[seq] = prob
    return joint


def chi_square_test(samples, joint) -> tuple[float, float]:
    """Pearson chi-square of samples against exact probabilities; cells expected
    fewer than 5 times are pooled into one bin. Returns (statistic, 0.001 critical value)."""
    n = len(samples)
    counts = {seq: 0 for seq in joint}
    for s in samples:
        counts[tuple(s)] += 1
    bins = [(counts[s], n * p) for s, p in joint.items() if n * p >= 5]
    rare = [(counts[s], n * p) for s, p in joint.items() if n * p < 5]
    if rare:
        bins.append((sum(c for c, _ in rare), sum(e for _, e in rare)))
    stat = sum((c - e) ** 2 / e for c, e in bins)
    return stat, chi2_critical(len(bins) - 1)


@pytest.mark.slow
@pytest.mark.parametrize(
    "strategy, drafter_kind, n",
    [("cache", "model", 3000), ("recompute", "model", 1500), ("cache", "lookup", 2000)],
)
def test_sampled_loop_reproduces_target_joint_distribution(strategy, drafter_kind, n):
    from mlx_specdec.drafters import PromptLookupDrafter

    target = TableLM(V, seed=3, sharpness=1.0)
    joint = target_joint(target, PROMPT, 3, softmax)
    samples, accepted, drafted = [], 0, 0
    for seed in range(n):
        # A drafter whose q differs a lot from p: a sharp unrelated model, or
        # prompt lookup's one-hot copies.
        drafter = TableLM(V, seed=11, sharpness=4.0) if drafter_kind == "model" else PromptLookupDrafter()
        prompt = PROMPT if drafter_kind == "model" else [2, 1, 2, 1, 2]
        out, stats = speculative_generate(target, drafter, prompt, 3, k=2, temperature=1.0, seed=seed, strategy=strategy)
        samples.append(out)
        accepted += stats.accepted
        drafted += stats.drafted
    if drafter_kind == "lookup":
        joint = target_joint(target, [2, 1, 2, 1, 2], 3, softmax)
    stat, critical = chi_square_test(samples, joint)
    assert stat < critical
    assert 0 < accepted < drafted  # the test exercised both acceptance and rejection


@pytest.mark.slow
def test_sampled_loop_with_top_k_and_top_p_matches_the_policy():
    target = TableLM(V, seed=5, sharpness=1.5)
    drafter = TableLM(V, seed=6, sharpness=1.5)
    policy = SamplingPolicy(temperature=0.8, top_k=3, top_p=0.9)

    def policy_probs(logits):
        import mlx.core as mx

        return np.array(policy.probs(mx.array(logits)[None])[0])

    joint = {s: p for s, p in target_joint(target, PROMPT, 2, policy_probs).items()}
    support = {s: p for s, p in joint.items() if p > 0}
    n = 2500
    samples = [
        tuple(speculative_generate(target, drafter, PROMPT, 2, k=2, temperature=0.8, top_k=3, top_p=0.9, seed=s)[0])
        for s in range(n)
    ]
    assert all(s in support for s in samples)  # nothing outside the policy's support
    stat, critical = chi_square_test(samples, support)
    assert stat < critical


@pytest.mark.slow
def test_sampled_loop_with_min_p_matches_the_policy():
    """min-p cuts tokens below min_p x the top token's (untempered) probability;
    speculative sampling under it keeps exactly the policy's distribution."""
    target = TableLM(V, seed=7, sharpness=1.5)
    drafter = TableLM(V, seed=8, sharpness=1.5)
    policy = SamplingPolicy(temperature=1.3, min_p=0.3)

    def policy_probs(logits):
        import mlx.core as mx

        return np.array(policy.probs(mx.array(logits)[None])[0])

    joint = target_joint(target, PROMPT, 2, policy_probs)
    support = {s: p for s, p in joint.items() if p > 0}
    assert len(support) < len(joint)  # min-p really cut something
    n = 2500
    samples = [
        tuple(speculative_generate(target, drafter, PROMPT, 2, k=2, temperature=1.3, min_p=0.3, seed=s)[0])
        for s in range(n)
    ]
    assert all(s in support for s in samples)
    stat, critical = chi_square_test(samples, support)
    assert stat < critical


def test_min_p_keeps_tokens_at_least_min_p_times_the_top_probability():
    import mlx.core as mx

    logits = mx.log(mx.array([[0.5, 0.3, 0.16, 0.04]]))
    probs = np.array(SamplingPolicy(temperature=1.0, min_p=0.3).probs(logits)[0])
    assert (probs > 0).tolist() == [True, True, True, False]  # 0.16 >= 0.3 * 0.5 > 0.04
    assert np.allclose(probs[:3], np.array([0.5, 0.3, 0.16]) / 0.96, atol=1e-6)
    with pytest.raises(Exception, match="min_p must be in"):
        SamplingPolicy(temperature=1.0, min_p=1.5)


def test_seeded_sampling_is_reproducible():
    target, drafter = TableLM(V, seed=3, sharpness=1.0), TableLM(V, seed=4)
    a = speculative_generate(target, drafter, PROMPT, 30, k=3, temperature=1.0, seed=42)[0]
    b = speculative_generate(target, drafter, PROMPT, 30, k=3, temperature=1.0, seed=42)[0]
    c = speculative_generate(target, drafter, PROMPT, 30, k=3, temperature=1.0, seed=43)[0]
    assert a == b and a != c
