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


RUNGS = ("storylm-1m", "storylm-5m", "storylm-30m")


@pytest.fixture(scope="module")
def evaluated():
    """`train --evaluate` on the three rungs, once for the module: the yardstick in full (what the committed
    results hold), the generator's valid split on 16 stories (2,048 targets)."""
    from mlx_specdec.train import evaluate_models

    rows = evaluate_models([SHIPPED / name for name in RUNGS], n_stories=16, shapes_stories=0)
    return dict(zip(RUNGS, rows))


def test_the_5m_has_clearly_lower_held_out_loss_than_the_1m(evaluated):
    small, big = evaluated["storylm-1m"], evaluated["storylm-5m"]
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


# ---------------------------------------------------------------------------
# The three rungs on the new corpus (bench.ladder's committed results)
# ---------------------------------------------------------------------------


def _ladder_results():
    import json

    from bench.readme import ladder_file

    path = ladder_file()
    assert path is not None, "bench/results holds no ladder results: run `python -m bench.ladder --out bench/results`"
    return {r["model"]: r for r in json.loads(path.read_text())["losses"]}


@pytest.mark.parametrize("column", ["yardstick_loss", "valid_loss", "shapes_loss"])
def test_each_step_of_the_ladder_is_at_least_a_tenth_of_a_nat(column):
    """Issue 15: 1M > 5M > 30M by 0.1 nats or more per step, on the hand-written stories and on both of the
    generator's held-out splits."""
    rows = _ladder_results()
    one, five, thirty = (rows[n][column] for n in RUNGS)
    assert one - five >= 0.1 and five - thirty >= 0.1, (column, one, five, thirty)


def test_committed_yardstick_losses_are_what_the_shipped_weights_score(evaluated):
    rows = _ladder_results()
    for name in RUNGS:
        assert evaluated[name]["yardstick_targets"] == rows[name]["yardstick_targets"], name
        assert evaluated[name]["yardstick_loss"] == pytest.approx(rows[name]["yardstick_loss"], abs=2e-3), name


@pytest.mark.parametrize("drafter", ["storylm-1m", "storylm-5m"])
def test_drafting_for_the_30m_is_byte_identical_to_its_greedy(drafter):
    target, draft, tok = load_pair(str(SHIPPED / "storylm-30m"), str(SHIPPED / drafter))
    for text in PROMPTS[:3]:
        prompt = tok.encode(text)
        expected = greedy_generate(target, prompt, 48, eos_id=tok.eos_id)
        out, stats = speculative_generate(target, draft, prompt, 48, k=4, eos_id=tok.eos_id)
        assert tok.decode(out) == tok.decode(expected) and out == expected
        assert stats.tokens_per_pass > 1.2


@pytest.mark.parametrize("target_name, distilled_name", [("storylm-5m", "storylm-1m-distilled"),
                                                         ("storylm-5m-hybrid", "storylm-1m-distilled-hybrid")])
def test_a_distilled_1m_agrees_with_its_target_more_and_stays_exact(target_name, distilled_name):
    """A 1M trained on its target's own greedy text (the 5M's; the hybrid's, a recurrent target): on every
    prompt its drafts give more tokens per target pass than the plain 1M's, and the output is still the
    target's greedy output."""
    target, plain_1m, tok = load_pair(str(SHIPPED / target_name), str(SHIPPED / "storylm-1m"))
    distilled, _ = load(SHIPPED / distilled_name)
    for text in PROMPTS:
        prompt = tok.encode(text)
        expected = greedy_generate(target, prompt, 60, eos_id=tok.eos_id)
        out, ours = speculative_generate(target, distilled, prompt, 60, k=2, eos_id=tok.eos_id)
        _, theirs = speculative_generate(target, plain_1m, prompt, 60, k=2, eos_id=tok.eos_id)
        assert out == expected
        assert ours.tokens_per_pass > theirs.tokens_per_pass, text
