"""The speculative loop on table-lookup models: alignment, counters, EOS, caps."""

import numpy as np
import mlx.core as mx
import pytest

from mlx_specdec import SpecStats, draft_greedy, greedy_generate, speculative_generate
from mlx_specdec.generate import speculative_stream
from tests.mocks import ScriptedDrafter, TableLM, oracle_greedy

V = 16
PROMPT = [3, 7, 1]


@pytest.fixture(scope="module")
def target():
    return TableLM(V, seed=0)


@pytest.mark.parametrize("strategy", ["cache", "recompute"])
@pytest.mark.parametrize("k", [1, 2, 4, 8])
def test_speculative_generate_matches_argmax_chain_with_any_drafter(target, strategy, k):
    unrelated = TableLM(V, seed=99)
    expected = oracle_greedy(target, PROMPT, 40)
    out, stats = speculative_generate(target, unrelated, PROMPT, 40, k=k, strategy=strategy)
    assert out == expected
    assert stats.generated == 40


@pytest.mark.parametrize("strategy", ["cache", "recompute"])
def test_perfect_drafter_emits_k_plus_one_tokens_per_pass(target, strategy):
    out, stats = speculative_generate(target, target, PROMPT, 30, k=4, strategy=strategy)
    assert out == oracle_greedy(target, PROMPT, 30)
    # 6 full rounds of 4 accepted + bonus = 30 tokens.
    assert (stats.target_passes, stats.drafted, stats.accepted, stats.generated) == (6, 24, 24, 30)
    assert stats.acceptance_rate == 1.0 and stats.tokens_per_pass == 5.0


def test_greedy_generate_matches_oracle_for_both_strategies(target):
    expected = oracle_greedy(target, PROMPT, 25)
    assert greedy_generate(target, PROMPT, 25) == expected
    assert greedy_generate(target, PROMPT, 25, strategy="recompute") == expected


def test_exact_counters_for_a_scripted_acceptance_pattern(target):
    script = [0, 3, 4, 1, 2]
    drafter = ScriptedDrafter(target, script)
    out, stats = speculative_generate(target, drafter, PROMPT, 17, k=4)
    assert out == oracle_greedy(target, PROMPT, 17)
    # Rounds emit j+1 tokens: 1, 4, 5, 2, 3 = 15. With 2 tokens left the last
    # round drafts only 1 (never past the cap); the script is exhausted, so that
    # draft is good: accepted 1 + bonus = 17 exactly.
    assert stats.accepted_per_round == [0, 3, 4, 1, 2, 1]
    assert stats.target_passes == 6
    assert stats.drafted == 5 * 4 + 1
    assert stats.accepted == 0 + 3 + 4 + 1 + 2 + 1
    assert stats.generated == 17


def test_round_kinds_mark_drafts_corrections_and_bonuses(target):
    drafter = ScriptedDrafter(target, [2, 4, 0])
    emissions = list(speculative_stream(target, drafter, PROMPT, 10, k=4))
    assert [e.kinds for e in emissions] == [
        ["draft", "draft", "correction"],
        ["draft"] * 4 + ["bonus"],
        ["correction"],  # 2 tokens left: one draft, rejected
        ["target"],  # 1 token left: no drafting, a plain target step
    ]


def test_zero_accepted_drafts_still_advance_one_token(target):
    drafter = ScriptedDrafter(target, [0] * 10)
    out, stats = speculative_generate(target, drafter, PROMPT, 10, k=3)
    assert out == oracle_greedy(target, PROMPT, 10)
    assert (stats.target_passes, stats.accepted, stats.generated) == (10, 0, 10)
    assert stats.tokens_per_pass == 1.0


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 11])
def test_max_new_tokens_is_exact_mid_block(target, n):
    out, stats = speculative_generate(target, target, PROMPT, n, k=4)
    assert out == oracle_greedy(target, PROMPT, n)
    assert len(out) == stats.generated == n


def test_zero_max_new_tokens_generates_nothing(target):
    out, stats = speculative_generate(target, target, PROMPT, 0, k=4)
    assert out == [] and stats == SpecStats()


def _chain_with_eos_at(target, position):
    chain = oracle_greedy(target, PROMPT, 40)
    eos = chain[position]
    first = chain.index(eos)  # the id may already occur earlier
    return chain[: first + 1], eos


def test_eos_inside_an_accepted_prefix_stops_right_after_it(target):
    expected, eos = _chain_with_eos_at(target, 6)
    out, stats = speculative_generate(target, target, PROMPT, 40, k=8, eos_id=eos)
    assert out == expected and out[-1] == eos
    assert stats.generated == len(expected)
    # EOS was itself an accepted draft; the rest of the block is never emitted.
    assert stats.accepted == len(expected) and stats.target_passes == 1


def test_eos_as_the_correction_token(target):
    expected, eos = _chain_with_eos_at(target, 5)
    position = len(expected) - 1
    # Accept exactly the drafts before EOS so EOS arrives as the correction.
    drafter = ScriptedDrafter(target, [position])
    out, stats = speculative_generate(target, drafter, PROMPT, 40, k=position + 2, eos_id=eos)
    assert out == expected
    assert stats.accepted == position and stats.generated == position + 1


def test_greedy_generate_stops_after_eos(target):
    expected, eos = _chain_with_eos_at(target, 4)
    assert greedy_generate(target, PROMPT, 40, eos_id=eos) == expected


def _chain_with_eos_set(target, positions):
    """The chain cut after the first of several EOS ids; the other ids do not occur before it."""
    chain = oracle_greedy(target, PROMPT, 40)
    ids = {chain[p] for p in positions}
    first = min(i for i, t in enumerate(chain) if t in ids)
    return chain[: first + 1], ids


@pytest.mark.parametrize("positions", [(6, 9), (9, 6), (3, 30), (12, 13)])
@pytest.mark.parametrize("k", [1, 4, 8])
def test_eos_set_stops_after_the_first_id_of_the_set(target, positions, k):
    expected, ids = _chain_with_eos_set(target, positions)
    for eos in (ids, sorted(ids), tuple(ids), frozenset(ids), np.array(sorted(ids))):
        out, stats = speculative_generate(target, target, PROMPT, 40, k=k, eos_id=eos)
        assert out == expected and out[-1] in ids and stats.generated == len(expected)
        assert greedy_generate(target, PROMPT, 40, eos_id=eos) == expected


@pytest.mark.parametrize("n", [1, 2, 5, 7])
def test_eos_set_keeps_the_exact_cap(target, n):
    expected, ids = _chain_with_eos_set(target, (20, 25))
    out, stats = speculative_generate(target, target, PROMPT, n, k=4, eos_id=ids)
    assert out == expected[:n] and stats.generated == min(n, len(expected))


def test_eos_set_member_as_the_correction_token(target):
    expected, ids = _chain_with_eos_set(target, (5, 11))
    position = len(expected) - 1
    drafter = ScriptedDrafter(target, [position])
    out, stats = speculative_generate(target, drafter, PROMPT, 40, k=position + 2, eos_id=ids)
    assert out == expected
    assert stats.accepted == position and stats.generated == position + 1


def test_empty_eos_set_stops_nothing(target):
    assert speculative_generate(target, target, PROMPT, 20, k=4, eos_id=[])[0] == oracle_greedy(target, PROMPT, 20)


def test_draft_greedy_matches_oracle(target):
    assert draft_greedy(target, PROMPT, 5) == oracle_greedy(target, PROMPT, 5)


def test_kv_cache_commit_lands_on_the_accepted_boundary(target):
    drafter = ScriptedDrafter(target, [1, 0, 4, 2, 3, 0, 4])
    tokens = list(PROMPT)
    seen = []

    def check(target_seq, _drafter):
        # Committed history in the cache == the tokens emitted so far (minus the pending one).
        cache = target_seq.cache[0]
        history = np.array(cache.keys[0, 0, : cache.offset, 0]).astype(int).tolist()
        seen.append((history, cache.offset, target_seq.committed))

    emitted = []
    for e in speculative_stream(target, drafter, PROMPT, 24, k=4, on_commit=check):
        emitted.extend(e.ids)
        history, offset, committed = seen[-1]
        full = tokens + emitted
        assert offset == committed == len(full) - 1
        assert history == full[:-1]
    assert emitted == oracle_greedy(target, PROMPT, 24)


def test_prompt_lookup_drafter_is_lossless_and_copies_repeats(target):
    from mlx_specdec.drafters import PromptLookupDrafter

    out, stats = speculative_generate(target, PromptLookupDrafter(), PROMPT, 60, k=4)
    assert out == oracle_greedy(target, PROMPT, 60)
    drafter = PromptLookupDrafter(max_ngram=2)
    drafter.prefill([5, 6, 7, 8, 9, 5, 6])
    assert drafter.lookup(3) == [7, 8, 9]  # the bigram (5, 6) occurred before
    drafter.prefill([1, 2, 3])
    assert drafter.lookup(3) == []


def test_prompt_lookup_resynchronises_after_a_one_token_edit():
    from mlx_specdec.drafters import PromptLookupDrafter

    source = [1, 2, 3, 4, 5, 6, 7, 8]
    drafter = PromptLookupDrafter()
    drafter.prefill(source + [1, 2, 3, 9])  # copying the source, 9 written where it has 4
    assert drafter.lookup(3) == [5, 6, 7]  # the copy goes on past the replaced token
    assert drafter.lookup_scan(3) == [5, 6, 7]
    off = PromptLookupDrafter(resync_ngram=0)
    off.prefill(source + [1, 2, 3, 9])
    assert off.lookup(3) == [] and not off.would_propose()
    drafter.prefill([1, 2, 3, 4, 5, 9, 6] + [1, 2, 3, 9])  # an exact match of the last token comes first
    assert drafter.lookup(3) == [6, 1, 2]
    with pytest.raises(ValueError, match="resync_ngram"):
        PromptLookupDrafter(resync_ngram=-1)


def test_prompt_lookup_drafter_sampling_keeps_the_distribution_support(target):
    from mlx_specdec.drafters import PromptLookupDrafter

    # top-k 2 leaves each position two tokens of support; a lookup draft outside it must never be emitted.
    a = speculative_generate(target, PromptLookupDrafter(), PROMPT, 40, k=3, temperature=1.0, top_k=2, seed=1)[0]
    b = speculative_generate(target, PromptLookupDrafter(), PROMPT, 40, k=3, temperature=1.0, top_k=2, seed=1)[0]
    assert a == b and len(a) == 40
    logits = np.array(target(mx.array(PROMPT + a)[None])[0])
    for i, token in enumerate(a):
        assert token in np.argsort(logits[len(PROMPT) - 1 + i])[-2:], (i, token)
