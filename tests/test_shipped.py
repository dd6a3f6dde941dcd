"""The shipped StoryLM ladder: it loads, it is a ladder, and speculation on it is lossless."""

import importlib

import mlx.core as mx
import pytest

from mlx_specdec import greedy_generate, load, speculative_generate
from mlx_specdec.loading import load_pair
from tests.conftest import SHIPPED

PROMPTS = ["Once upon a time", "One day, a little", "Tom and his dog", "The sun was hot and"]

pytestmark = pytest.mark.slow  # the shipped ladder: seconds per test


@pytest.fixture(scope="module")
def ladder():
    for name in ("storylm-1m", "storylm-5m"):
        assert (SHIPPED / name / "model.safetensors").is_file(), f"models/{name} is missing: the ladder ships with the repo"
    return load_pair(str(SHIPPED / "storylm-5m"), str(SHIPPED / "storylm-1m"))


def test_shipped_models_share_one_tokenizer(ladder):
    _, small_tok = load(SHIPPED / "storylm-1m")
    _, big_tok = load(SHIPPED / "storylm-5m")
    assert small_tok.fingerprint == big_tok.fingerprint
    assert big_tok.vocab_size == 4096


def test_the_5m_has_clearly_lower_held_out_loss_than_the_1m():
    from mlx_specdec.train import evaluate_models

    small, big = evaluate_models([SHIPPED / "storylm-1m", SHIPPED / "storylm-5m"], n_stories=64)
    assert big["valid_loss"] < small["valid_loss"] - 0.15, (small, big)


@pytest.mark.parametrize("k", [1, 2, 4, 8])
def test_1m_drafting_for_5m_equals_5m_greedy(ladder, k):
    target, drafter, tok = ladder
    for text in PROMPTS:
        prompt = tok.encode(text)
        expected = greedy_generate(target, prompt, 60, eos_id=tok.eos_id)
        out, stats = speculative_generate(target, drafter, prompt, 60, k=k, eos_id=tok.eos_id)
        assert out == expected
        assert stats.tokens_per_pass > 1.2  # the pair really agrees, not just losslessly disagrees


def test_mlx_lm_generate_step_drives_the_shipped_model(ladder):
    target, _, tok = ladder
    generate_step = importlib.import_module("mlx_lm.generate").generate_step
    prompt = tok.encode(PROMPTS[0])
    theirs = [int(t) for t, _ in generate_step(mx.array(prompt), target, max_tokens=40)]
    assert theirs == greedy_generate(target, prompt, 40)
