"""The published EAGLE-3 layouts, loaded onto the kind of target they are published for (a Llama: SmolLM2).

Each checkpoint is written in exactly its layout (names, config keys, layer
ids in that layout's convention, d2t int64 and t2d bool) and read twice: by
`load_eagle3` and by an independent NumPy reading of the reference code
(tests/eagle3_reference.py). Their context-pass logits must agree; the same
checkpoint with its ids moved by one layer must not, so a loader that got the
off-by-one between the conventions wrong fails here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mlx.core as mx
import numpy as np
import pytest

from mlx_specdec import greedy_generate, load, speculative_generate
from mlx_specdec.drafters.eagle3 import Eagle3Drafter
from mlx_specdec.errors import ModelLoadError
from mlx_specdec.features import capture, features, tap
from mlx_specdec.models.eagle3 import Eagle3Config, Eagle3Model, default_target_layers, load_eagle3
from mlx_specdec.models.eagle3_layouts import is_eagle3_folder, layout_of, write_published
from tests import eagle3_reference as ref

ROOT = Path(__file__).resolve().parents[1]
SMOLLM2 = ROOT / "models" / "real" / "smollm2-135m-instruct"
TEXT = "Copy this list: apples, pears, plums, cherries, and then say which one is red."

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm2():
    if not (SMOLLM2 / "model.safetensors").is_file():
        pytest.skip("models/real/smollm2-135m-instruct not converted: make real-models")
    return load(str(SMOLLM2))


def random_drafter(target, **flags) -> Eagle3Model:
    a = target.args
    cfg = Eagle3Config(hidden_size=a.hidden_size, intermediate_size=a.intermediate_size,
                       num_attention_heads=a.num_attention_heads, num_key_value_heads=a.num_key_value_heads,
                       head_dim=a.head_dim, vocab_size=a.vocab_size, draft_vocab_size=4096,
                       target_layers=default_target_layers(a.num_hidden_layers), rope_theta=a.rope_theta,
                       rms_norm_eps=a.rms_norm_eps, **flags)
    mx.random.seed(7)
    model = Eagle3Model(cfg)
    vocab = np.sort(np.random.default_rng(7).choice(a.vocab_size, 4096, replace=False))
    model.d2t = mx.array(vocab.astype(np.int32)) - mx.arange(4096, dtype=mx.int32)
    if cfg.fc_norm or cfg.norm_before_fc:  # norms that are not all ones, so a missing one shows
        for name, p in model.parameters().items():
            if name in ("fc_norm", "input_norm"):
                for norm in (p if isinstance(p, list) else [p]):
                    norm["weight"] = 1 + 0.5 * mx.random.normal(norm["weight"].shape)
        model.update(model.parameters())
    return model


def ours(folder, target, ids):
    drafter = load_eagle3(folder, target)
    layers = tap(target, drafter.config.target_layers)
    with capture() as sink:
        target(mx.array(ids[:-1])[None])
    logits, _ = drafter(mx.array(ids[1:])[None], drafter.fuse(features(sink, layers))[None])
    return np.array(logits[0], dtype=np.float32), np.array(drafter.draft_to_target)


def reference(folder, target, ids):
    states = ref.hf_hidden_states(target, ids[:-1])
    return ref.context_logits(folder, states, np.array(target.model.embed_tokens.weight, dtype=np.float32), ids[1:])


def moved_by_one(folder: Path, out: Path) -> Path:
    """The ids one layer off: up for Speculators; down for the EAGLE layout (up would start the list at 2, which
    is read as the inputs form and names the same tensors)."""
    shutil.copytree(folder, out)
    config = json.loads((out / "config.json").read_text())
    holder, step = (config["eagle_config"], -1) if "eagle_config" in config else (config, 1)
    holder["eagle_aux_hidden_state_layer_ids"] = [i + step for i in holder["eagle_aux_hidden_state_layer_ids"]]
    (out / "config.json").write_text(json.dumps(config))
    return out


CASES = {
    "speculators": ("speculators", {}, None),
    "speculators, new trainer's norms": ("speculators", dict(norm_before_residual=True, norm_before_fc=True), None),
    "speculators, fc_norm": ("speculators", dict(fc_norm=True), None),
    "speculators, no ids": ("speculators", {}, "drop ids"),
    "specforge": ("eagle", {}, None),
    "eagle template, no ids": ("eagle", {}, "eagle template"),
    "eagle, ids in the capture form": ("eagle", {}, "capture ids"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_published_layout_is_read_as_its_reference_reads_it(smollm2, tmp_path, case):
    target, tok = smollm2
    layout, flags, variant = CASES[case]
    folder = write_published(random_drafter(target, **flags), tmp_path / "d", layout)
    config = json.loads((folder / "config.json").read_text())
    if variant == "drop ids":
        del config["eagle_aux_hidden_state_layer_ids"]
    if variant == "capture ids":  # [2, 15, 27]: inputs of those layers, the tensors SpecForge names [1, 14, 26]
        config["eagle_config"]["eagle_aux_hidden_state_layer_ids"] = [2, 15, 27]
    if variant == "eagle template":
        config["architectures"] = ["LlamaForCausalLM"]
        del config["eagle_config"]
    (folder / "config.json").write_text(json.dumps(config))
    assert layout_of(folder) == layout and is_eagle3_folder(folder)
    ids = list(tok.encode(TEXT))
    mine, mine_map = ours(folder, target, ids)
    theirs, their_map = reference(folder, target, ids)
    np.testing.assert_array_equal(mine_map, their_map)
    np.testing.assert_allclose(mine, theirs, atol=2e-3, rtol=2e-3)
    if variant is None:
        moved = moved_by_one(folder, tmp_path / "moved")
        wrong, _ = ours(moved, target, ids)
        assert np.abs(wrong - theirs).max() > 0.1  # one layer off is visible: the comparison has power
        np.testing.assert_allclose(wrong, reference(moved, target, ids)[0], atol=2e-3, rtol=2e-3)


def test_speculation_with_a_published_layout_is_plain_greedy(smollm2, tmp_path):
    target, tok = smollm2
    folder = write_published(random_drafter(target), tmp_path / "d", "speculators")
    ids = list(tok.apply_chat_template([{"role": "user", "content": TEXT}], add_generation_prompt=True))
    out, stats = speculative_generate(target, Eagle3Drafter(load_eagle3(folder, target)), ids, 24, k=3)
    assert out == greedy_generate(target, ids, 24) and stats.drafted > 0


def test_bad_published_checkpoints_are_refused_in_one_line(smollm2, tmp_path):
    target, _ = smollm2
    folder = write_published(random_drafter(target), tmp_path / "d", "speculators")
    config = json.loads((folder / "config.json").read_text())
    config["transformer_layer_config"]["num_hidden_layers"] = 2
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelLoadError, match="2 draft layers; only one is supported"):
        load_eagle3(folder, target)
    folder = write_published(random_drafter(target), tmp_path / "e", "eagle")
    weights = dict(mx.load(str(folder / "model.safetensors")))
    weights["t2d"] = mx.zeros(weights["t2d"].shape, dtype=mx.bool_)
    mx.save_safetensors(str(folder / "model.safetensors"), weights)
    with pytest.raises(ModelLoadError, match="t2d and d2t disagree"):
        load_eagle3(folder, target)
