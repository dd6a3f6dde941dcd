"""EAGLE-3 drafters: the training-time test is the drafter's own cache, and speculation with one stays exact.

The StoryLM 5M is the target here (fast); the drafter is trained for a few
seconds on the target's own greedy text with the real trainer's loss, so its
drafts are accepted often enough to exercise every rollback length. Its draft
vocabulary is a quarter of the target's: targets outside it are never drafted,
and sampling must still keep the target's distribution (the residual carries
their mass).
"""

from __future__ import annotations

import json

import mlx.core as mx
import mlx.nn as nn
import mlx.optimizers as optim
import numpy as np
import pytest

from mlx_specdec import greedy_generate, speculative_generate
from mlx_specdec.drafters.eagle3 import Eagle3Drafter
from mlx_specdec.errors import ModelLoadError, SpecDecError
from mlx_specdec.features import tap
from mlx_specdec.loading import load
from mlx_specdec.models.eagle3 import Eagle3Config, Eagle3Model, save_eagle3
from mlx_specdec.models.eagle3_store import load_eagle3
from mlx_specdec.sampling import SamplingPolicy
from mlx_specdec.training import eagle3 as trainer
from mlx_specdec.training.loop import compiled_step
from tests.conftest import shipped
from tests.test_distribution import assert_drawn_from_target

PROMPTS = ["Once upon a time, there was a little girl named Lily.", "Tom had a red ball.",
           "The sun was hot and the dog was thirsty.", "One day, a small bird found a shiny stone."]
LAYERS = (1, 3, 4)
DRAFT_VOCAB = 1024
STEPS = 60


@pytest.fixture(scope="module")
def target():
    model, tok = load(str(shipped("storylm-5m")))
    tap(model, LAYERS)
    return model, tok


def small_config(vocab_size: int, **kw) -> Eagle3Config:
    return Eagle3Config(hidden_size=256, intermediate_size=512, num_attention_heads=4, num_key_value_heads=2,
                        head_dim=64, vocab_size=vocab_size, draft_vocab_size=DRAFT_VOCAB, target_layers=LAYERS, **kw)


@pytest.fixture(scope="module")
def trained(target):
    """A drafter trained STEPS steps on the target's greedy continuations (the trainer's own loss and rows)."""
    model, tok = target
    records = []
    for text in PROMPTS * 2:
        prompt = tok.encode(text)
        records.append({"prompt": prompt, "answer": greedy_generate(model, prompt, 100)})
    rows = trainer.conversation_rows(records, 112)
    vocab = trainer.draft_vocabulary(records, 4096, DRAFT_VOCAB, always=[tok.eos_id])
    mx.random.seed(0)
    drafter = Eagle3Model(small_config(4096))
    drafter.d2t = mx.array(vocab) - mx.arange(DRAFT_VOCAB, dtype=mx.int32)
    drafter.freeze(keys=["d2t"])
    drafter.bind_embedding(model.model.embed_tokens)
    trainer.init_from_target(drafter, model, mx.array(vocab))
    opt = optim.Adam(learning_rate=3e-3)
    step = compiled_step(drafter, opt, lambda m, x: trainer.ttt_loss(m, model, LAYERS, mx.array(vocab), x, 3, 0.8),
                         grad_clip=1.0)
    for i in range(STEPS):
        mx.eval(step(mx.array(rows[(i % 4) * 2 : (i % 4) * 2 + 2])))
    return drafter, vocab, rows


def test_training_unroll_is_what_the_drafter_cache_computes(target, trained):
    """Step j at anchor t of the training-time test equals feeding the true pairs 0..t into the drafter's cache
    and drafting j steps on its own outputs (teacher-forced tokens): the mask holds what the cache holds."""
    model, _ = target
    drafter, vocab, rows = trained
    ids = mx.array(rows[:1, 0, :40])
    feats, _, _ = trainer.target_pass(model, LAYERS, ids, mx.array(vocab))
    unrolled = trainer.unroll(drafter, feats, ids, 3)
    for t in (0, 7, 30):
        cache = drafter.make_cache()
        logits, out = drafter(ids[:, 1 : t + 2], drafter.fuse(feats[:, : t + 1]), cache=cache)
        steps = [logits[0, -1]]
        for j in range(1, 3):
            logits, out = drafter(ids[:, t + 1 + j : t + 2 + j], out[:, -1:], cache=cache)
            steps.append(logits[0, -1])
        for j in range(3):
            assert mx.allclose(unrolled[j][0, t], steps[j], atol=1e-4, rtol=1e-4).item(), (t, j)


def test_a_trained_drafter_is_accepted(target, trained):
    """Teacher-forced greedy acceptance on its own rows: what makes the exactness tests below exercise rollback."""
    drafter, vocab, rows = trained
    model, _ = target
    acc = trainer.evaluate(drafter, model, LAYERS, mx.array(vocab), rows, 3, 4)
    assert acc["acc_1"] > 0.5 and acc["acc_3"] > 0.2, acc


@pytest.mark.parametrize("strategy, k", [("auto", 2), ("cache", 5)])
def test_greedy_with_an_eagle3_drafter_is_plain_greedy(target, trained, strategy, k):
    model, tok = target
    drafter = trained[0]
    for text in PROMPTS[:2] + ["A cat sat on the mat and looked at the moon."]:
        prompt = tok.encode(text)
        expected = greedy_generate(model, prompt, 80, strategy=strategy)
        out, stats = speculative_generate(model, Eagle3Drafter(drafter), prompt, 80, k=k, strategy=strategy)
        assert out == expected
        assert 0 < stats.accepted < stats.drafted


def test_auto_k_with_an_eagle3_drafter_is_plain_greedy(target, trained):
    """k=auto mixes drafting rounds with pipelined plain steps, whose features reach commit as rows."""
    model, tok = target
    prompt = tok.encode(PROMPTS[2])
    out, _ = speculative_generate(model, Eagle3Drafter(trained[0]), prompt, 120, k="auto")
    assert out == greedy_generate(model, prompt, 120)


def test_drafts_are_target_ids_and_q_lives_on_the_draft_vocabulary(target, trained):
    model, tok = target
    drafter, vocab, _ = trained
    d = Eagle3Drafter(drafter)
    from mlx_specdec.state import make_sequence

    seq = make_sequence(model, "cache")
    seq.capture_features(LAYERS)
    d.bind(model, seq)
    prompt = tok.encode(PROMPTS[0])
    seq.prefill(prompt)
    d.prefill(prompt)
    ids, q = d.propose(4, SamplingPolicy(temperature=1.0), mx.random.key(3))
    q = np.array(q)
    assert set(np.array(ids).tolist()) <= set(vocab.tolist())
    outside = np.setdiff1d(np.arange(4096), vocab)
    assert q.shape == (4, 4096) and np.all(q[:, outside] == 0)
    np.testing.assert_allclose(q.sum(axis=1), 1.0, rtol=1e-5)
    assert all(q[i, t] > 0 for i, t in enumerate(np.array(ids)))


def test_sampling_with_an_eagle3_drafter_keeps_the_target_distribution(target, trained):
    """Every token of a long sampled generation through its randomised probability integral transform under
    the target's own conditional (as in test_real_targets): uniform if and only if each token was drawn from
    the target, whatever the drafts; six equal bins, the 0.001 tail. The target's top-k 8 reaches tokens
    outside the draft vocabulary, which only the residual can emit."""
    model, tok = target
    drafter, vocab, _ = trained
    prompt = tok.encode(PROMPTS[1])
    n = 300
    out, stats = speculative_generate(model, Eagle3Drafter(drafter), prompt, n, k=4, temperature=1.0, top_k=8,
                                      seed=0)
    assert len(out) == n and 0 < stats.accepted < stats.drafted
    assert_drawn_from_target(model, prompt, out, SamplingPolicy(temperature=1.0, top_k=8))


def test_a_drafter_folder_round_trips_and_refuses_the_wrong_target(target, trained, tmp_path):
    model, tok = target
    drafter = trained[0]
    out = save_eagle3(drafter, tmp_path / "d", target_name="storylm-5m", target={"weights": {}})
    config = json.loads((out / "config.json").read_text())
    assert config["model_type"] == "eagle3" and config["architecture"]["target_layers"] == list(LAYERS)
    loaded = load_eagle3(out, model)
    prompt = tok.encode(PROMPTS[0])
    a, _ = speculative_generate(model, Eagle3Drafter(drafter), prompt, 40, k=4)
    b, _ = speculative_generate(model, Eagle3Drafter(loaded), prompt, 40, k=4)
    assert a == b  # fp16 on disk drafts the same here, and both are the target's greedy anyway
    other, _ = load(str(shipped("storylm-1m")))
    with pytest.raises(SpecDecError, match="feature layer 4 is not a layer of this 4-layer model"):
        speculative_generate(other, Eagle3Drafter(load_eagle3(out, other)), prompt, 4, k=2)
    (out / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(ModelLoadError, match="corrupt"):
        load_eagle3(out, model)


def test_the_draft_head_starts_as_the_targets_head_on_the_draft_vocabulary(target):
    """init_from_target: norm then lm_head of the drafter read any hidden state as the target's final norm and
    head do, restricted to the draft vocabulary; a Gemma-style norm (scale 1 + w) is read by its effect."""
    from mlx_lm.models.gemma3_text import RMSNorm as GemmaNorm

    model, _ = target
    vocab = mx.array(np.arange(7, 4096, 4, dtype=np.int32))
    drafter = Eagle3Model(Eagle3Config(
        hidden_size=256, intermediate_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=64,
        vocab_size=4096, draft_vocab_size=vocab.shape[0], target_layers=LAYERS))
    trainer.init_from_target(drafter, model, vocab)
    h = mx.random.normal((3, 256), key=mx.random.key(1)) * 5
    want = model.model.embed_tokens.as_linear(model.model.norm(h))[:, vocab]
    assert mx.allclose(drafter.lm_head(drafter.norm(h)), want, atol=1e-3, rtol=1e-3).item()

    class Gemmaish(nn.Module):  # no head of its own: the tied embedding's rows
        def __init__(self):
            super().__init__()
            self.model = nn.Module()
            self.model.embed_tokens = nn.Embedding(4096, 256)
            self.model.norm = GemmaNorm(256, eps=1e-6)
            self.model.norm.weight = mx.random.normal((256,), key=mx.random.key(2))

    other = Gemmaish()
    trainer.init_from_target(drafter, other, vocab)
    want = other.model.embed_tokens.as_linear(other.model.norm(h))[:, vocab]
    assert mx.allclose(drafter.lm_head(drafter.norm(h)), want, atol=1e-3, rtol=1e-3).item()


def test_the_target_cache_gives_the_loss_the_target_itself_gives(target, trained):
    """A row's cached pass (log-probabilities kept in float16) gives the training loss of a fresh target pass;
    the target runs once per distinct row."""
    model, _ = target
    drafter, vocab, rows = trained
    cache = trainer.TargetCache(model, LAYERS, mx.array(vocab))
    batch = rows[[0, 1, 0]]
    given = cache(batch)
    assert cache.computed == 2 and len(cache.rows) == 2
    cache(rows[[1, 0]])
    assert cache.computed == 2
    x = mx.array(batch)
    fresh = trainer.ttt_loss(drafter, model, LAYERS, mx.array(vocab), x, 3, 0.8)
    cached = trainer.ttt_loss(drafter, model, LAYERS, mx.array(vocab), x, 3, 0.8, given)
    assert mx.allclose(fresh[1], cached[1], rtol=1e-3).item(), (fresh[1], cached[1])
    assert mx.array_equal(given[2], trainer.target_pass(model, LAYERS, x[:, 0], mx.array(vocab))[2]).item()


def test_conversation_rows_mark_the_answer_positions():
    rows = trainer.conversation_rows([{"prompt": [5, 6, 7], "answer": [8, 9]}], 8)
    assert rows[0, 0].tolist() == [5, 6, 7, 8, 9, 0, 0, 0]
    assert rows[0, 1].tolist() == [0, 0, 1, 1, 1, 0, 0, 0]  # positions 2, 3, 4 predict 8, 9, the turn's end
    cut = trainer.conversation_rows([{"prompt": [1, 2], "answer": [3, 4, 5, 6]}], 4)
    assert cut[0, 1].tolist() == [0, 1, 1, 1]


def test_the_draft_vocabulary_is_the_most_frequent_answer_tokens():
    records = [{"prompt": [0], "answer": [3, 3, 3, 2, 2, 7]}]
    assert trainer.draft_vocabulary(records, 10, 2).tolist() == [2, 3]
    assert trainer.draft_vocabulary(records, 10, 2, always=[9]).tolist() == [3, 9]
