"""z-lab's published DFlashDraftModel layout on a Llama target (SmolLM2), and the shipped SmolLM2 block drafter.

A checkpoint is written here in exactly z-lab's layout (its config keys, with
`dflash_config`, bfloat16 tensors under its names, no embedding or head) and
read twice: by `load_dflash` and by an independent NumPy reading of z-lab's
`model.py` (tests/dflash_reference.py). Their block logits must agree; the
same checkpoint with its layer ids moved by one must not, so a loader that
read the ids as layer inputs (the EAGLE-3 trap) fails here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mlx.core as mx
import numpy as np
import pytest

from mlx_specdec import greedy_generate, load, speculative_generate
from mlx_specdec.drafters.dflash import DFlashDrafter
from mlx_specdec.errors import ModelLoadError
from mlx_specdec.features import capture, features, tap
from mlx_specdec.models.dflash_store import is_dflash_folder, is_zlab_folder, load_dflash
from mlx_specdec.sampling import SamplingPolicy
from tests import dflash_reference as ref
from tests.eagle3_reference import hf_hidden_states
from tests.test_distribution import assert_drawn_from_target

ROOT = Path(__file__).resolve().parents[1]
SMOLLM2 = ROOT / "models" / "real" / "smollm2-135m-instruct"
SHIPPED_DRAFTER = ROOT / "models" / "smollm2-135m-dflash"
TEXT = "Copy this list: apples, pears, plums, cherries, and then say which one is red."
LAYER_IDS = [1, 8, 14, 20, 27]  # z-lab's choice for a 30-layer target: 1 .. L - 3, spread evenly
MASK_ID = 2  # a token id whose embedding row is the mask, as z-lab's configs name one

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm2():
    if not (SMOLLM2 / "model.safetensors").is_file():
        pytest.skip("models/real/smollm2-135m-instruct not converted: make real-models")
    return load(str(SMOLLM2))


def zlab_checkpoint(folder: Path, target, *, layers: int = 2, block_size: int = 8, seed: int = 0, **extra) -> Path:
    """A drafter for `target` as z-lab publishes one: config.json (Qwen3-style, `dflash_config`) and
    model.safetensors in bfloat16 under z-lab's names; norms drawn away from 1, so a missing one shows."""
    a = target.args
    h, d, nh, nkv, inter = a.hidden_size, a.head_dim, a.num_attention_heads, a.num_key_value_heads, 384
    rng = np.random.default_rng(seed)

    def lin(out, inp):
        return rng.normal(0, inp**-0.5, (out, inp))

    def norm(n):
        return 1 + 0.3 * rng.normal(size=n)

    w = {"fc.weight": lin(h, len(LAYER_IDS) * h), "hidden_norm.weight": norm(h), "norm.weight": norm(h)}
    for i in range(layers):
        p = f"layers.{i}."
        w.update({p + "self_attn.q_proj.weight": lin(nh * d, h), p + "self_attn.k_proj.weight": lin(nkv * d, h),
                  p + "self_attn.v_proj.weight": lin(nkv * d, h), p + "self_attn.o_proj.weight": lin(h, nh * d),
                  p + "self_attn.q_norm.weight": norm(d), p + "self_attn.k_norm.weight": norm(d),
                  p + "mlp.gate_proj.weight": lin(inter, h), p + "mlp.up_proj.weight": lin(inter, h),
                  p + "mlp.down_proj.weight": lin(h, inter), p + "input_layernorm.weight": norm(h),
                  p + "post_attention_layernorm.weight": norm(h)})
    config = {"architectures": ["DFlashDraftModel"],
              "auto_map": {"AutoModel": "dflash.DFlashDraftModel"}, "model_type": "qwen3",
              "attention_bias": False, "attention_dropout": 0.0, "block_size": block_size,
              "dflash_config": {"mask_token_id": MASK_ID, "target_layer_ids": LAYER_IDS, **extra},
              "head_dim": d, "hidden_act": "silu", "hidden_size": h, "intermediate_size": inter,
              "max_position_embeddings": 8192, "num_attention_heads": nh, "num_hidden_layers": layers,
              "num_key_value_heads": nkv, "num_target_layers": a.num_hidden_layers, "rms_norm_eps": 1e-5,
              "rope_theta": float(a.rope_theta), "tie_word_embeddings": False, "torch_dtype": "bfloat16",
              "use_cache": True, "vocab_size": a.vocab_size}
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    mx.save_safetensors(str(folder / "model.safetensors"), {k: mx.array(v, dtype=mx.bfloat16) for k, v in w.items()},
                        metadata={"format": "pt"})
    return folder


def ours(folder, target, ids: list[int], anchor: int) -> np.ndarray:
    drafter = load_dflash(folder, target)
    layers = tap(target, drafter.config.target_layers)
    with capture() as sink:
        target(mx.array(ids[:anchor])[None])
    logits = drafter(mx.array(ids[anchor : anchor + 1]), drafter.config.block_size - 1,
                     features(sink, layers)[None], drafter.make_cache())
    return np.array(logits[0], dtype=np.float32)


def reference(folder, target, ids: list[int], anchor: int) -> np.ndarray:
    states = hf_hidden_states(target, ids[:anchor])
    embed = np.array(target.model.embed_tokens.weight, dtype=np.float32)
    head = np.array(target.lm_head.weight if hasattr(target, "lm_head") else target.model.embed_tokens.weight,
                    dtype=np.float32)
    return ref.draft_logits(folder, states, embed, head, ids, anchor)


@pytest.mark.parametrize("variant", ["plain", "dflash_config scales"])
def test_zlabs_layout_is_read_as_its_reference_reads_it(smollm2, tmp_path, variant):
    target, tok = smollm2
    extra = {} if variant == "plain" else dict(input_embedding_scale=0.5, output_multiplier=0.2,
                                               final_logit_softcapping=3.0)
    folder = zlab_checkpoint(tmp_path / "d", target, **extra)
    assert is_zlab_folder(folder) and is_dflash_folder(folder)
    ids = list(tok.encode(TEXT))
    anchor = len(ids) - 4
    mine, theirs = ours(folder, target, ids, anchor), reference(folder, target, ids, anchor)
    assert mine.shape == (7, target.args.vocab_size)
    np.testing.assert_allclose(mine, theirs, atol=3e-3, rtol=3e-3)
    if variant == "plain":  # one layer off is visible: the comparison has power
        moved = tmp_path / "moved"
        shutil.copytree(folder, moved)
        config = json.loads((moved / "config.json").read_text())
        config["dflash_config"]["target_layer_ids"] = [i + 1 for i in LAYER_IDS]
        (moved / "config.json").write_text(json.dumps(config))
        assert np.abs(ours(moved, target, ids, anchor) - theirs).max() > 0.1


def test_speculation_with_zlabs_layout_is_plain_greedy_and_sampling_keeps_the_distribution(smollm2, tmp_path):
    """A random z-lab drafter drafts through the target's own head (no draft vocabulary): greedy output is the
    target's, and a sampled one passes the probability-integral-transform test."""
    target, tok = smollm2
    drafter = load_dflash(zlab_checkpoint(tmp_path / "d", target, layers=1), target)
    ids = list(tok.apply_chat_template([{"role": "user", "content": TEXT}], add_generation_prompt=True))
    out, stats = speculative_generate(target, DFlashDrafter(drafter), ids, 16, k=7)
    assert out == greedy_generate(target, ids, 16) and stats.drafted > 0
    out, stats = speculative_generate(target, DFlashDrafter(drafter), ids, 48, k=3, temperature=1.0, top_k=8,
                                      seed=1)
    assert len(out) == 48 and stats.drafted > 0
    assert_drawn_from_target(target, ids, out, SamplingPolicy(temperature=1.0, top_k=8))


BAD = {
    "DFlash2": (lambda c: c.update(architectures=["DFlash2DraftModel"]), "DFlash2DraftModel .* is not supported"),
    "sliding layers": (lambda c: c.update(layer_types=["sliding_attention"] * 2),
                       "causal or sliding-window draft layers"),
    "causal": (lambda c: c.update(is_causal=True), "causal or sliding-window draft layers"),
    "no ids": (lambda c: c["dflash_config"].pop("target_layer_ids"), "target_layer_ids is missing"),
    "no mask": (lambda c: c["dflash_config"].pop("mask_token_id"), "mask_token_id is missing"),
    "descending ids": (lambda c: c["dflash_config"].update(target_layer_ids=[27, 1, 8, 14, 20]),
                       "not distinct and ascending"),
    "biased": (lambda c: c.update(attention_bias=True), "biased projections are not supported"),
    "too deep for the target": (lambda c: c["dflash_config"].update(target_layer_ids=[1, 8, 14, 20, 30]), None),
}


@pytest.mark.parametrize("case", list(BAD))
def test_what_zlabs_layout_says_that_we_do_not_read_is_refused_in_one_line(smollm2, tmp_path, case):
    from mlx_specdec.errors import IncompatibleModelsError

    target, tok = smollm2
    folder = zlab_checkpoint(tmp_path / "d", target)
    config = json.loads((folder / "config.json").read_text())
    change, message = BAD[case]
    change(config)
    (folder / "config.json").write_text(json.dumps(config))
    if message is not None:
        with pytest.raises(ModelLoadError, match=message):
            load_dflash(folder, target)
        return
    drafter = DFlashDrafter(load_dflash(folder, target))
    with pytest.raises(IncompatibleModelsError, match=r"reads target layers \[1, 8, 14, 20, 30\]; the target has 30"):
        drafter.bind(target, None)


def test_a_zlab_folder_is_a_drafter_not_a_model(smollm2, tmp_path):
    folder = zlab_checkpoint(tmp_path / "d", smollm2[0], layers=1)
    with pytest.raises(ModelLoadError, match="is a block \\(DFlash\\) drafter, not a model; pass it as --draft-model"):
        load(str(folder))


# ---------------------------------------------------------------- the shipped SmolLM2 drafter


@pytest.fixture(scope="module")
def shipped_drafter(smollm2):
    if not (SHIPPED_DRAFTER / "model.safetensors").is_file():
        pytest.skip("models/smollm2-135m-dflash is not in models/")
    return load_dflash(SHIPPED_DRAFTER, smollm2[0])


@pytest.mark.parametrize("k", [7, "auto"])
def test_the_shipped_block_drafter_on_smollm2_is_plain_greedy_and_accepted(smollm2, shipped_drafter, k):
    target, tok = smollm2
    text = TEXT if k == "auto" else "Explain in two sentences why bread rises."
    ids = list(tok.apply_chat_template([{"role": "user", "content": text}], add_generation_prompt=True))
    out, stats = speculative_generate(target, DFlashDrafter(shipped_drafter), ids, 32, k=k)
    assert out == greedy_generate(target, ids, 32)
    if k != "auto":  # auto may rightly turn to plain steps where drafting does not pay on this machine
        assert stats.accepted > 0


def test_sampling_with_the_shipped_block_drafter_keeps_smollm2s_distribution(smollm2, shipped_drafter):
    """The chi-square on a real target: every token of a sampled generation (temperature 1, top-k 8) through its
    randomised probability integral transform under SmolLM2's own conditional; a whole block drawn from one
    pass, q zero outside the draft vocabulary."""
    target, tok = smollm2
    ids = list(tok.apply_chat_template([{"role": "user", "content": TEXT}], add_generation_prompt=True))
    n = 100
    out, stats = speculative_generate(target, DFlashDrafter(shipped_drafter), ids, n, k=4, temperature=1.0,
                                      top_k=8, seed=0)
    assert len(out) == n and 0 < stats.accepted < stats.drafted
    assert_drawn_from_target(target, ids, out, SamplingPolicy(temperature=1.0, top_k=8))
