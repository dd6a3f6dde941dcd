"""Hybrid StoryLMs (mlx-lm's lfm2: short-conv + attention layers): trained, stored and loaded by us.

The engine must meet mlx-lm's own Model class and caches (ArraysCache for the
recurrent layers, KVCache for attention), so these tests check the type, the
caches, the shared tokenizer, the held-out loss and mlx-lm's own greedy loop.
Speculative decoding on the hybrid is not tested here (the engine's state
machinery for recurrent caches is another piece of work).
"""

import importlib
import json
import math

import mlx_specdec  # noqa: F401  (before mlx.core)
import mlx.core as mx
import pytest
from mlx_lm.models.cache import ArraysCache, KVCache

from mlx_specdec import load
from mlx_specdec.errors import ModelLoadError
from mlx_specdec.loading import load_pair
from mlx_specdec.models.hybrid import build_hybrid, load_hybrid, save_hybrid
from mlx_specdec.train import TrainConfig, evaluate_models, train
from tests.conftest import shipped

NAME = "storylm-5m-hybrid"


def recompute_greedy(model, prompt, n):
    """Greedy by full recomputation (no cache): the oracle for cached decoding."""
    ids = list(prompt)
    for _ in range(n):
        ids.append(int(mx.argmax(model(mx.array([ids]))[0, -1]).item()))
    return ids[len(prompt):]


# --- the mechanism, on a toy hybrid (seconds) --------------------------------


def test_tiny_hybrid_round_trips_through_the_store(tmp_path, tiny_tokenizer):
    model = build_hybrid("storylm-tiny-hybrid", vocab_size=tiny_tokenizer.vocab_size, seed=3)
    out = save_hybrid(model, tiny_tokenizer, tmp_path / "h", card={"preset": "storylm-tiny-hybrid"})
    config = json.loads((out / "config.json").read_text())
    assert config["model_type"] == "lfm2" and config["architecture"]["model_type"] == "lfm2"
    assert config["tokenizer_fingerprint"] == tiny_tokenizer.fingerprint
    loaded, tok = load(out)
    assert type(loaded) is importlib.import_module("mlx_lm.models.lfm2").Model
    assert tok.fingerprint == tiny_tokenizer.fingerprint
    x = mx.array([[1, 5, 9, 2, 7]])
    # fp16 on disk: the reloaded model matches the saved one to fp16 rounding.
    assert mx.allclose(loaded(x), model(x), atol=2e-2).item()


def test_tiny_hybrid_cached_decoding_equals_recomputation(tiny_tokenizer):
    model = build_hybrid("storylm-tiny-hybrid", vocab_size=tiny_tokenizer.vocab_size, seed=4)
    generate_step = importlib.import_module("mlx_lm.generate").generate_step
    prompt = [1, 17, 40, 3, 99]
    theirs = [int(t) for t, _ in generate_step(mx.array(prompt), model, max_tokens=12)]
    assert theirs == recompute_greedy(model, prompt, 12)


def test_hybrid_folder_errors_are_one_line(tmp_path, tiny_tokenizer):
    model = build_hybrid("storylm-tiny-hybrid", vocab_size=tiny_tokenizer.vocab_size, seed=0)
    out = save_hybrid(model, tiny_tokenizer, tmp_path / "h")
    config = json.loads((out / "config.json").read_text())

    def broken(edit):
        c = json.loads(json.dumps(config))
        edit(c)
        (out / "config.json").write_text(json.dumps(c))
        with pytest.raises(ModelLoadError) as e:
            load_hybrid(out)
        return str(e.value)

    assert "unknown lfm2 config keys ['bogus']" in broken(lambda c: c["architecture"].update(bogus=1))
    assert "architecture.model_type" in broken(lambda c: c.update(model_type="qwen3_next"))
    assert "no architecture 'nope'" in broken(lambda c: (c.update(model_type="nope"),
                                                         c["architecture"].update(model_type="nope")))
    assert "fingerprint mismatch" in broken(lambda c: c.update(tokenizer_fingerprint="0" * 16))
    assert "model.safetensors" in broken(lambda c: c["architecture"].update(block_ff_dim=64))


def test_trainer_trains_a_hybrid_preset(tmp_path, tiny_tokenizer):
    cfg = TrainConfig(preset="storylm-tiny-hybrid", tokenizer=str(tiny_tokenizer.path), run_dir=str(tmp_path / "run"),
                      out=str(tmp_path / "model"), train_stories=300, valid_stories=40, seq_len=64, batch_size=8,
                      lr=3e-3, warmup=5, max_steps=30, eval_every=30, eval_rows=16, ckpt_every=10, log_every=5,
                      sample_tokens=8, quiet=True)
    summary = train(cfg)
    assert summary["valid_loss"] < math.log(tiny_tokenizer.vocab_size) - 1.0
    (res,) = evaluate_models([tmp_path / "model"], n_stories=40, seq_len=64)
    assert abs(res["valid_loss"] - summary["valid_loss"]) < 0.05  # fp16-rounded weights, same yardstick
    meta = json.loads((tmp_path / "model" / "config.json").read_text())
    assert meta["preset"] == "storylm-tiny-hybrid" and meta["model_type"] == "lfm2"


# --- the shipped hybrid -------------------------------------------------------


@pytest.fixture(scope="module")
def hybrid():
    return load_pair(str(shipped(NAME)), str(shipped("storylm-1m")))


def test_shipped_hybrid_is_mlx_lm_lfm2_with_its_own_caches(hybrid):
    target, _, tok = hybrid
    assert type(target) is importlib.import_module("mlx_lm.models.lfm2").Model
    kinds = [type(c) for c in target.make_cache()]
    assert ArraysCache in kinds and KVCache in kinds
    assert tok.vocab_size == 4096


def test_shipped_hybrid_shares_the_ladder_tokenizer(hybrid):
    _, _, tok = hybrid  # load_pair already ran check_pair against storylm-1m
    _, small_tok = load("storylm-1m")
    assert tok.fingerprint == small_tok.fingerprint
    assert (shipped(NAME) / "tokenizer.model").read_bytes() == (shipped("storylm-1m") / "tokenizer.model").read_bytes()


def test_shipped_hybrid_fits_the_size_budget():
    size = sum(f.stat().st_size for f in shipped(NAME).iterdir() if f.is_file())
    assert size <= 16 * 2**20, size


def test_shipped_hybrid_held_out_loss_is_far_below_uniform():
    (res,) = evaluate_models([shipped(NAME)], n_stories=64, shapes_stories=0)
    assert res["valid_loss"] < math.log(4096) - 4.5, res  # uniform is 8.32 nats; shipped: 3.08 after 717k tokens


def test_mlx_lm_generate_step_drives_the_shipped_hybrid(hybrid):
    target, _, tok = hybrid
    generate_step = importlib.import_module("mlx_lm.generate").generate_step
    prompt = tok.encode("Once upon a time")
    theirs = [int(t) for t, _ in generate_step(mx.array(prompt), target, max_tokens=24)]
    assert theirs == recompute_greedy(target, prompt, 24)
    assert len(tok.decode(theirs).split()) > 5
