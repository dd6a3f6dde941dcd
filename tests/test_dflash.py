"""Block drafters (DFlash): training computes what the drafter's cache computes, and speculation stays exact.

The StoryLM 5M is the target here (fast); the drafter is trained for a few
seconds on the target's own greedy text with the real trainer's loss and
blocks, so its drafts are accepted often enough to exercise every rollback
length. Its draft vocabulary is a quarter of the target's: targets outside it
are never drafted, and sampling must still keep the target's distribution.
The block drafter's own exactness argument is that a slot's q does not depend
on the drafts before it (docs/DESIGN.md, "Block drafters"); that is pinned
here directly, beside the distribution test.
"""

from __future__ import annotations

import json

import mlx.core as mx
import mlx.optimizers as optim
from mlx.utils import tree_flatten
import numpy as np
import pytest

from mlx_specdec import greedy_generate, speculative_generate
from mlx_specdec.drafters.dflash import DFlashDrafter
from mlx_specdec.errors import ModelLoadError, SpecDecError
from mlx_specdec.features import tap
from mlx_specdec.loading import load
from mlx_specdec.models.dflash import DFlashConfig, DFlashModel, default_target_layers, save_dflash
from mlx_specdec.models.dflash_store import is_dflash_folder, load_dflash
from mlx_specdec.sampling import GREEDY, SamplingPolicy
from mlx_specdec.state import make_sequence
from mlx_specdec.training import dflash as trainer
from mlx_specdec.training.eagle3 import TargetCache, conversation_rows, draft_vocabulary, init_from_target, target_pass
from mlx_specdec.training.loop import compiled_step
from tests.conftest import shipped
from tests.test_distribution import assert_drawn_from_target

PROMPTS = ["Once upon a time, there was a little girl named Lily.", "Tom had a red ball.",
           "The sun was hot and the dog was thirsty.", "One day, a small bird found a shiny stone."]
LAYERS = (1, 3, 4)
DRAFT_VOCAB = 1024
BLOCK = 6
STEPS = 80


@pytest.fixture(scope="module")
def target():
    model, tok = load(str(shipped("storylm-5m")))
    tap(model, LAYERS)
    return model, tok


def small_config(**kw) -> DFlashConfig:
    args = dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, head_dim=64, vocab_size=4096, block_size=BLOCK, target_layers=LAYERS,
                draft_vocab_size=DRAFT_VOCAB)
    return DFlashConfig(**{**args, **kw})


@pytest.fixture(scope="module")
def trained(target):
    """A drafter trained STEPS steps on the target's greedy continuations (the trainer's loss, anchors, rows)."""
    model, tok = target
    records = []
    for text in PROMPTS * 2:
        prompt = tok.encode(text)
        records.append({"prompt": prompt, "answer": greedy_generate(model, prompt, 100)})
    rows = conversation_rows(records, 112)
    vocab = draft_vocabulary(records, 4096, DRAFT_VOCAB, always=[tok.eos_id])
    mx.random.seed(0)
    drafter = DFlashModel(small_config())
    drafter.d2t = mx.array(vocab) - mx.arange(DRAFT_VOCAB, dtype=mx.int32)
    drafter.freeze(keys=["d2t"])
    drafter.bind(model.model.embed_tokens)
    init_from_target(drafter, model, mx.array(vocab))
    given = target_pass(model, LAYERS, mx.array(rows[:, 0]), mx.array(vocab))
    mx.eval(given)
    rng = np.random.default_rng(0)
    opt = optim.Adam(learning_rate=1e-3)  # 3e-3 learns several times slower here (the retrieval attention)
    step = compiled_step(drafter, opt, lambda m, x: trainer.block_loss(m, x[0], x[3:], x[1], x[2], 0.9),
                         grad_clip=1.0)
    for i in range(STEPS):
        pick = np.array([(2 * i) % 8, (2 * i + 1) % 8])
        anchors, weight = trainer.draw_anchors(rows[pick], 24, rng)
        mx.eval(step((mx.array(rows[pick]), mx.array(anchors), mx.array(weight),
                      *(g[mx.array(pick)] for g in given))))
    return drafter, vocab, rows


def bound(model, drafter: DFlashDrafter, prompt) -> None:
    seq = make_sequence(model, "cache")
    seq.capture_features(drafter.feature_layers)
    drafter.bind(model, seq)
    seq.prefill(prompt)
    drafter.prefill(prompt)


def test_the_training_blocks_are_what_the_drafter_cache_computes(target, trained):
    """The block at anchor a in training (every block of a row in one attention, masked) equals the drafter
    with the context rows < a in its cache and x_a pending: what the training mask hides, the cache lacks."""
    model, _ = target
    drafter, vocab, rows = trained
    ids = mx.array(rows[:1, 0, :60])
    feats, _, _ = target_pass(model, LAYERS, ids, mx.array(vocab))
    anchors = mx.array([[1, 7, 30, 52]])
    blocks = trainer.block_logits(drafter, feats, ids, anchors)
    for j, a in enumerate(anchors[0].tolist()):
        logits = drafter(ids[:, a], BLOCK - 1, feats[:, :a], drafter.make_cache())
        assert mx.allclose(blocks[0, j], logits[0], atol=1e-4, rtol=1e-4).item(), a


def test_a_trained_block_drafter_is_accepted(trained, target):
    """Teacher-forced greedy agreement on its own rows: what makes the exactness tests exercise rollback."""
    model, _ = target
    drafter, vocab, rows = trained
    cache = TargetCache(model, LAYERS, mx.array(vocab))
    acc = trainer.evaluate(drafter, rows, cache, 4)
    assert acc["acc_1"] > 0.5 and acc["acc_3"] > 0.2 and acc["tokens_per_pass"] > 2.0, acc


@pytest.mark.parametrize("strategy, k", [("auto", 2), ("cache", 5), ("cache", 9)])
def test_greedy_with_a_block_drafter_is_plain_greedy(target, trained, strategy, k):
    model, tok = target
    drafter = trained[0]
    for text in (PROMPTS[0], "A cat sat on the mat and looked at the moon."):
        prompt = tok.encode(text)
        expected = greedy_generate(model, prompt, 64, strategy=strategy)
        d = DFlashDrafter(drafter)
        out, stats = speculative_generate(model, d, prompt, 64, k=k, strategy=strategy)
        assert out == expected
        assert 0 < stats.accepted < stats.drafted
        assert stats.drafted <= stats.target_passes * min(k, BLOCK - 1)  # a block holds B - 1 drafts at most


def test_auto_k_with_a_block_drafter_is_plain_greedy(target, trained):
    """k=auto mixes drafting rounds with pipelined plain steps, whose features reach commit as rows."""
    model, tok = target
    prompt = tok.encode(PROMPTS[2])
    out, _ = speculative_generate(model, DFlashDrafter(trained[0]), prompt, 120, k="auto")
    assert out == greedy_generate(model, prompt, 120)


def test_the_drafter_cache_holds_the_verified_context_after_a_generation(target, trained):
    """After a generation the drafter's caches hold exactly the context rows of the positions the target has
    verified (once the next proposal feeds the queued ones): the keys and values a fresh drafter computes from
    the committed text's features, nothing of a rejected block, at every generation length tried."""
    model, tok = target
    prompt = tok.encode(PROMPTS[3])
    for n in (17, 40):
        d = DFlashDrafter(trained[0])
        out, stats = speculative_generate(model, d, prompt, n, k=4)
        assert 0 < stats.accepted < stats.drafted
        committed = prompt + out
        d.propose(1, GREEDY, None)  # feeds the queued rows
        feats, _, _ = target_pass(model, LAYERS, mx.array(committed)[None], mx.arange(8, dtype=mx.int32))
        fresh = trained[0].make_cache()
        trained[0].extend_context(feats[:, : len(committed) - 1], fresh)
        for mine, theirs in zip(d.cache, fresh):
            assert mine.offset == theirs.offset == len(committed) - 1
            for a, b in ((mine.keys, theirs.keys), (mine.values, theirs.values)):
                assert mx.allclose(a[..., : mine.offset, :], b[..., : mine.offset, :], atol=1e-4).item()


def test_a_slots_q_does_not_depend_on_the_drafts_before_it(target, trained):
    """The premise of exact sampling with a block drafter: two proposals from the same state with different
    keys draw different drafts from the same per-slot q (each slot saw only x_a and masks)."""
    model, tok = target
    drafter, vocab, _ = trained
    d = DFlashDrafter(drafter)
    prompt = tok.encode(PROMPTS[0])
    bound(model, d, prompt)
    policy = SamplingPolicy(temperature=1.5)
    ids_a, q_a = d.propose(5, policy, mx.random.key(1))
    ids_b, q_b = d.propose(5, policy, mx.random.key(2))  # the first fed the context; the block was not cached
    assert np.array(ids_a).tolist() != np.array(ids_b).tolist()
    np.testing.assert_array_equal(np.array(q_a), np.array(q_b))
    q = np.array(q_a)
    outside = np.setdiff1d(np.arange(4096), vocab)
    assert q.shape == (5, 4096) and np.all(q[:, outside] == 0)
    np.testing.assert_allclose(q.sum(axis=1), 1.0, rtol=1e-5)
    assert set(np.array(ids_a).tolist()) <= set(vocab.tolist())


def test_sampling_with_a_block_drafter_keeps_the_target_distribution(target, trained):
    """Every token of a long sampled generation through its randomised probability integral transform under
    the target's own conditional: uniform if and only if each token was drawn from the target, whatever the
    drafts; six equal bins, the 0.001 tail. Top-k 8 reaches tokens outside the draft vocabulary, which only
    the residual can emit."""
    model, tok = target
    prompt = tok.encode(PROMPTS[1])
    n = 300
    out, stats = speculative_generate(model, DFlashDrafter(trained[0]), prompt, n, k=5, temperature=1.0, top_k=8,
                                      seed=0)
    assert len(out) == n and 0 < stats.accepted < stats.drafted
    assert_drawn_from_target(model, prompt, out, SamplingPolicy(temperature=1.0, top_k=8))


def test_a_drafter_folder_round_trips_and_refuses_the_wrong_target(target, trained, tmp_path):
    model, tok = target
    drafter = trained[0]
    out = save_dflash(drafter, tmp_path / "d", target_name="storylm-5m", target={"weights": {}})
    config = json.loads((out / "config.json").read_text())
    assert config["model_type"] == "dflash" and config["architecture"]["target_layers"] == list(LAYERS)
    assert is_dflash_folder(out)
    loaded = load_dflash(out, model)
    prompt = tok.encode(PROMPTS[0])
    a, _ = speculative_generate(model, DFlashDrafter(drafter), prompt, 40, k=4)
    b, _ = speculative_generate(model, DFlashDrafter(loaded), prompt, 40, k=4)
    assert a == b
    other, _ = load(str(shipped("storylm-1m")))
    with pytest.raises(SpecDecError, match="feature layer 4 is not a layer of this 4-layer model"):
        speculative_generate(other, DFlashDrafter(load_dflash(out)), prompt, 4, k=2)
    with pytest.raises(ModelLoadError, match="is a block \\(DFlash\\) drafter, not a model"):
        load(str(out))
    (out / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(ModelLoadError, match="corrupt"):
        load_dflash(out, model)


def test_bad_block_drafter_settings_are_one_line_errors():
    with pytest.raises(SpecDecError, match="block_size must be >= 2"):
        small_config(block_size=1)
    with pytest.raises(SpecDecError, match="draft_vocab_size must be in"):
        small_config(draft_vocab_size=5000)
    with pytest.raises(SpecDecError, match="max_block must be an integer >= 2"):
        DFlashDrafter(DFlashModel(small_config()), max_block=1)
    with pytest.raises(SpecDecError, match="--block-size must be >= 2"):
        trainer.DFlashTrainConfig(base="a", corpus="b", block_size=1, max_steps=1).validate()


def test_default_target_layers_spread_from_layer_1_to_l_minus_3():
    assert default_target_layers(30, 5) == (1, 8, 14, 20, 27)
    assert default_target_layers(36, 5) == (1, 9, 17, 25, 33)  # z-lab's Qwen3-8B drafters: [1, 9, 17, 25, 33]


def test_anchors_are_answer_positions_and_rows_short_of_them_are_padded():
    rows = conversation_rows([{"prompt": [5, 6, 7], "answer": [8, 9, 10, 11]}, {"prompt": [1], "answer": [2]}], 12)
    anchors, weight = trainer.draw_anchors(rows, 3, np.random.default_rng(0))
    answer = set(np.flatnonzero(rows[0, 1, 1:-1]) + 1)
    assert set(anchors[0].tolist()) <= answer and weight[0].tolist() == [1, 1, 1]
    assert weight[1].sum() <= 1  # one answer position at most: the rest carry no weight


def test_training_and_generation_from_the_command_line(tmp_path, capsys, monkeypatch):
    """`eagle corpus` on the 5M, `dflash train` on it (stopped by Ctrl-C, then resumed to its end), and
    `generate --draft-model` with the folder it writes, whose output is the target's own greedy text."""
    from mlx_specdec.cli.generate import main as generate_main
    from mlx_specdec.cli.main import main

    base = str(shipped("storylm-5m"))
    corpus = tmp_path / "corpus"
    assert main(["eagle", "corpus", "--target", base, "--out", str(corpus), "--limit", "6", "--valid", "2",
                 "--max-new", "24", "--batch-size", "3", "--quiet"]) == 0
    out, run = tmp_path / "drafter", tmp_path / "run"
    args = ["dflash", "train", "--base", base, "--corpus", str(corpus), "--out", str(out), "--run-dir", str(run),
            "--batch-size", "2", "--seq-len", "48", "--draft-vocab", "512", "--block-size", "4", "--layers", "1",
            "--n-features", "3", "--anchors", "4", "--eval-rows", "2", "--ckpt-every", "1", "--max-steps", "3",
            "--quiet"]
    from tests.test_train import _die_at

    with monkeypatch.context() as m:
        _die_at(m, 2, KeyboardInterrupt())  # Ctrl-C after two steps: a checkpoint, and the way on
        assert main(args) == 130  # the shell's code for Ctrl-C
    assert "interrupted at step 2; checkpoint saved, continue with --resume" in capsys.readouterr().err
    assert not out.exists()
    assert main(args[:-1] + ["--resume", "--quiet"]) == 0
    config = json.loads((out / "config.json").read_text())
    assert config["model_type"] == "dflash" and config["architecture"]["block_size"] == 4
    card = (out / "README.md").read_text()
    assert "Trained with:" in card and "- steps: 3" in card
    trained = config["card"]["train_acceptance"]  # the final validation's seeded draw of training rows
    assert list(trained) == list(config["card"]["acceptance"]) == ["acc_1", "acc_2", "acc_3"]
    assert "| agrees, training answers | " + " | ".join(f"{v:.1%}" for v in trained.values()) + " |" in card
    prompt = PROMPTS[1]
    assert generate_main(["--model", base, "--draft-model", str(out), "--prompt", prompt, "--max-tokens", "20",
                          "-k", "3", "--json", "--compare"]) == 0
    record = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert record["draft_model"] == str(out) and record["stats"]["drafted"] > 0
    assert record["compare"]["identical"] is True and len(record["ids"]) == 20

    # A second stage: --init starts at the drafter's weights, architecture and draft vocabulary (the flags' other
    # block size and layer count give way), and the card says what it started from.
    second = tmp_path / "second"
    stage = ["dflash", "train", "--base", base, "--corpus", str(corpus), "--out", str(second), "--run-dir",
             str(tmp_path / "run2"), "--batch-size", "2", "--seq-len", "48", "--eval-rows", "2", "--max-steps", "1",
             "--lr", "1e-12", "--warmup", "0", "--quiet"]
    assert main(stage + ["--init", str(out)]) == 0
    config2 = json.loads((second / "config.json").read_text())
    assert config2["architecture"] == config["architecture"]
    assert config2["card"]["init"]["folder"] == str(out) and config2["card"]["init"]["steps"] == 3
    assert f"started from: the drafter in {out} (trained 3 steps" in (second / "README.md").read_text()
    first_weights = dict(tree_flatten(load_dflash(out).parameters()))
    for name, value in tree_flatten(load_dflash(second).parameters()):
        assert np.array_equal(np.array(value), np.array(first_weights[name])), name
    refused = stage[:7] + [str(tmp_path / "x"), "--run-dir", str(tmp_path / "run3")] + stage[10:]
    assert main(refused + ["--init", base]) == 2  # a model folder, not a block drafter
    assert "--init" in capsys.readouterr().err and not (tmp_path / "x").exists()
