"""The MLX GPT-Neo port against transformers' GPTNeoForCausalLM, and its cache contract.

The fixture (tests/fixtures/gpt_neo, built by scripts/make_gpt_neo_fixture.py
in a venv with torch + transformers) holds two small random GPT-Neo models in
Hugging Face layout and the reference's float32 logits and greedy
continuations. Its sequences (24 tokens, greedy runs of 6 + 40) are several
times longer than the local windows (8 and 5), so every check below covers
keys falling out of the window.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import mlx_specdec  # noqa: F401  (before mlx.core)
import mlx.core as mx
from mlx.utils import tree_unflatten

from mlx_specdec.errors import SpecDecError
from mlx_specdec.models.gpt_neo import Model, ModelArgs, attention_mask, check_weights

FIXTURE = Path(__file__).parent / "fixtures" / "gpt_neo"
TOL = 1e-4  # float32: the weights are the same fp16-representable values on both sides


def hf_model(name: str, **overrides) -> Model:
    """Read an HF-layout fixture folder straight into the MLX module (float32)."""
    folder = FIXTURE / name
    args = ModelArgs.from_dict({**json.loads((folder / "config.json").read_text()), **overrides})
    model = Model(args)
    weights = model.sanitize(mx.load(str(folder / "model.safetensors")))
    check_weights(model, weights, str(folder))
    model.update(tree_unflatten([(k, v.astype(mx.float32)) for k, v in weights.items()]))
    mx.eval(model.parameters())
    return model


@pytest.fixture(scope="module")
def ref():
    return dict(np.load(FIXTURE / "reference.npz"))


@pytest.fixture(scope="module")
def target():
    return hf_model("target")


@pytest.fixture(scope="module")
def drafter():
    return hf_model("drafter")


def max_err(a, b) -> float:
    return float(np.abs(np.array(a, dtype=np.float32) - np.asarray(b, dtype=np.float32)).max())


@pytest.mark.parametrize("name", ["target", "drafter"])
def test_logits_match_transformers_reference(name, ref):
    model = hf_model(name)
    logits = model(mx.array(ref["input_ids"]))
    assert logits.shape == ref[f"{name}_logits"].shape
    assert max_err(logits, ref[f"{name}_logits"]) < TOL


@pytest.mark.parametrize("name", ["target", "drafter"])
def test_local_window_sees_exactly_window_size_keys(name, ref):
    # One key more or fewer in the local window changes the logits far beyond
    # the tolerance, so the reference match above pins the boundary convention.
    model = hf_model(name)
    w = model.args.window_size
    for other in (w - 1, w + 1):
        moved = hf_model(name, window_size=other)
        assert max_err(moved(mx.array(ref["input_ids"])), ref[f"{name}_logits"]) > 100 * TOL


def test_attention_mask_rows_for_a_block_on_a_cache():
    # 3 new queries at positions 5, 6, 7 over 8 keys, window 4: key j visible iff i-4 < j <= i.
    mask = np.array(attention_mask(3, 5, window=4))
    expected = np.array([[j <= i and i - j < 4 for j in range(8)] for i in (5, 6, 7)])
    assert (mask == expected).all()
    global_mask = np.array(attention_mask(3, 5))
    assert (global_mask == np.array([[j <= i for j in range(8)] for i in (5, 6, 7)])).all()
    # A single query sees every cached key on a global layer: no mask needed.
    assert attention_mask(1, 9) is None


def test_logits_differ_when_the_model_is_fed_a_different_prefix(target, ref):
    # Guards the cache tests below: they would pass vacuously if positions or
    # history did not influence the logits.
    ids = ref["input_ids"]
    shuffled = ids[:, ::-1].copy()
    full = np.array(target(mx.array(ids)))
    other = np.array(target(mx.array(shuffled)))
    assert np.abs(full[0, -1] - other[0, -1]).max() > 100 * TOL


def feed(model, cache, ids) -> np.ndarray:
    out = model(mx.array([list(ids)]), cache=cache)
    mx.eval(out)
    return np.array(out[0])


@pytest.mark.parametrize("name", ["target", "drafter"])
def test_cached_decoding_one_token_at_a_time_matches_full_recompute(name, ref):
    model = hf_model(name)
    ids = ref["input_ids"][0].tolist()
    full = np.array(model(mx.array([ids]))[0])
    cache = model.make_cache()
    rows = [feed(model, cache, ids[:4])]
    for t in ids[4:]:
        rows.append(feed(model, cache, [t]))
    assert cache[0].offset == len(ids) > 2 * model.args.window_size
    assert max_err(np.concatenate(rows), full) < TOL


@pytest.mark.parametrize("name", ["target", "drafter"])
def test_cached_blocks_of_five_match_full_recompute(name, ref):
    model = hf_model(name)
    ids = ref["input_ids"][0].tolist()
    full = np.array(model(mx.array([ids]))[0])
    cache = model.make_cache()
    rows = [feed(model, cache, ids[:9])]
    for start in range(9, len(ids), 5):  # blocks straddle and pass the window boundary
        rows.append(feed(model, cache, ids[start : start + 5]))
    assert max_err(np.concatenate(rows), full) < TOL


@pytest.mark.parametrize("name", ["target", "drafter"])
def test_trim_then_refeed_reproduces_full_recompute(name, ref):
    model = hf_model(name)
    ids = ref["input_ids"][0].tolist()
    full = np.array(model(mx.array([ids]))[0])
    cache = model.make_cache()
    feed(model, cache, ids[:12])
    # A rejected speculative block: 5 wrong tokens, of which the first 2 were right.
    wrong = [ids[12], ids[13], 7, 8, 9]
    feed(model, cache, wrong)
    for c in cache:
        c.trim(3)
    assert cache[0].offset == 14
    rows = feed(model, cache, ids[14:])
    assert max_err(rows, full[14:]) < TOL


def test_context_beyond_max_positions_is_a_one_line_error(target):
    cache = target.make_cache()
    feed(target, cache, [1] * target.args.max_position_embeddings)
    with pytest.raises(SpecDecError, match=r"context is 128 positions; got 128 cached \+ 1 new") as e:
        feed(target, cache, [1])
    assert "\n" not in str(e.value)


def test_sanitize_maps_hf_names_and_drops_buffers_and_tied_head(target):
    hf = {
        "transformer.wte.weight": 1,
        "transformer.h.0.attn.attention.q_proj.weight": 2,
        "transformer.h.0.attn.attention.out_proj.bias": 3,
        "transformer.h.0.attn.attention.bias": 4,
        "transformer.h.0.attn.attention.masked_bias": 5,
        "transformer.h.3.mlp.c_fc.weight": 6,
        "transformer.ln_f.bias": 7,
        "lm_head.weight": 8,
    }
    assert target.sanitize(hf) == {
        "model.wte.weight": 1,
        "model.h.0.attn.q_proj.weight": 2,
        "model.h.0.attn.out_proj.bias": 3,
        "model.h.3.mlp.c_fc.weight": 6,
        "model.ln_f.bias": 7,
    }
    sanitized = target.sanitize(hf)
    assert target.sanitize(sanitized) == sanitized


def test_untied_checkpoint_uses_its_own_lm_head(ref):
    folder = FIXTURE / "target"
    args = ModelArgs.from_dict({**json.loads((folder / "config.json").read_text()), "tie_word_embeddings": False})
    model = Model(args)
    hf = dict(mx.load(str(folder / "model.safetensors")))
    hf["lm_head.weight"] = hf["transformer.wte.weight"]
    weights = model.sanitize(hf)
    check_weights(model, weights, "untied")
    model.update(tree_unflatten([(k, v.astype(mx.float32)) for k, v in weights.items()]))
    # A head equal to the embedding reproduces the tied model; a zero head gives zero logits.
    assert max_err(model(mx.array(ref["input_ids"])), ref["target_logits"]) < TOL
    model.lm_head.weight = mx.zeros_like(model.lm_head.weight)
    assert max_err(model(mx.array(ref["input_ids"])), 0.0) == 0.0


def test_attention_pattern_comes_from_attention_types_like_transformers():
    args = ModelArgs(num_layers=4, attention_types=[[["local", "global"], 2]], attention_layers=["global"] * 4)
    assert args.attention_layers == ["local", "global", "local", "global"]
    with pytest.raises(SpecDecError, match="3 layers but num_layers=4"):
        ModelArgs(num_layers=4, attention_types=[[["global"], 3]])
    with pytest.raises(SpecDecError, match="'sparse' unknown"):
        ModelArgs(num_layers=1, attention_types=[[["sparse"], 1]])


@pytest.mark.parametrize("name", ["target", "drafter"])
def test_greedy_generation_matches_transformers_greedy(name, ref):
    from mlx_specdec.generate import greedy_generate

    model = hf_model(name)
    prompt = ref["greedy_prompt"].tolist()
    out = greedy_generate(model, prompt, len(ref[f"{name}_greedy"]))
    assert out == ref[f"{name}_greedy"].tolist()


@pytest.mark.parametrize("k", [1, 3, 4, 6])
def test_speculative_greedy_with_gpt_neo_drafter_equals_target_greedy(k, target, drafter, ref):
    from mlx_specdec.generate import greedy_generate, speculative_generate

    prompt = ref["greedy_prompt"].tolist()
    n = len(ref["target_greedy"])
    expected = greedy_generate(target, prompt, n)
    assert expected == ref["target_greedy"].tolist()
    new_ids, stats = speculative_generate(target, drafter, prompt, n, k=k)
    assert new_ids == expected
    assert stats.generated == n


def test_speculative_greedy_with_the_target_as_its_own_drafter_accepts_every_draft(target, ref):
    # Exercises the full-acceptance (bonus token) path on GPT-Neo caches, which
    # two unrelated random models rarely reach.
    from mlx_specdec.generate import speculative_generate

    prompt = ref["greedy_prompt"].tolist()
    n = len(ref["target_greedy"])
    new_ids, stats = speculative_generate(target, target, prompt, n, k=4)
    assert new_ids == ref["target_greedy"].tolist()
    assert stats.accepted == stats.drafted


def test_speculative_greedy_with_partial_acceptance_equals_target_greedy(target, ref):
    # The same weights with a narrower local window: a drafter that agrees with
    # the target only some of the time, so rounds end in accepted prefixes of
    # every length, each followed by a rollback of the GPT-Neo caches.
    from mlx_specdec.generate import speculative_generate

    prompt = ref["greedy_prompt"].tolist()
    n = len(ref["target_greedy"])
    narrow = hf_model("target", window_size=4)
    new_ids, stats = speculative_generate(target, narrow, prompt, n, k=4)
    assert new_ids == ref["target_greedy"].tolist()
    assert 0 < stats.accepted < stats.drafted


def test_mlx_lm_generators_drive_the_port(target, drafter, ref):
    # The mlx-lm model protocol: mlx-lm's own greedy and speculative loops
    # (which trim our caches on rejection) reproduce transformers' greedy output.
    from mlx_lm.generate import generate_step, speculative_generate_step
    from mlx_lm.sample_utils import make_sampler

    prompt, expected = mx.array(ref["greedy_prompt"]), ref["target_greedy"].tolist()
    n = len(expected)
    plain = [int(t) for t, _ in generate_step(prompt, target, max_tokens=n, sampler=make_sampler(0.0))]
    assert plain == expected
    spec = [
        int(t)
        for t, _, _ in speculative_generate_step(
            prompt, target, drafter, num_draft_tokens=3, max_tokens=n, sampler=make_sampler(0.0)
        )
    ]
    assert spec == expected


def test_float16_weights_as_on_a_gpu_keep_fp16_activations_and_fp32_attention(ref):
    # load_gpt_neo keeps float16 on a GPU; this runs that dtype mix on the CPU.
    # The tolerance is float16's (4 layers of fp16 LayerNorm/MLP on logits of
    # magnitude ~4), not float32's.
    model = hf_model("target")
    model.set_dtype(mx.float16)
    cache = model.make_cache()
    ids = ref["input_ids"]
    head = model(mx.array(ids[:, :10]), cache=cache)
    block = model(mx.array(ids[:, 10:15]), cache=cache)
    assert head.dtype == block.dtype == cache[0].keys.dtype == mx.float16
    got = np.concatenate([np.array(head.astype(mx.float32)), np.array(block.astype(mx.float32))], axis=1)
    assert max_err(got, ref["target_logits"][:, :15]) < 0.25
