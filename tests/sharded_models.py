"""Tiny random mlx-lm model folders for the sharded (mx.distributed) tests.

A plain module (not a test file). ``make_pair(root, name)`` writes a target folder
and a drafter folder (the target's weights plus small noise, so drafts are often
but not always accepted) in mlx-lm's format with a small BPE tokenizer, as
``sharded_load`` needs them on disk (``model.safetensors.index.json`` included).

    FAMILIES[name]   (mlx-lm config, sharding the test uses)
"""

from __future__ import annotations

import mlx_specdec  # noqa: F401  (must come before mlx.core: binds OpenBLAS on Linux)

import copy
import shutil
from pathlib import Path

import mlx.core as mx
from mlx.utils import tree_flatten, tree_unflatten

FIXTURE_TOKENIZER = Path(__file__).parent / "fixtures" / "gpt_neo" / "target"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json", "merges.txt")
VOCAB = 512  # the fixture tokenizer has 511 pieces

_DENSE = dict(
    hidden_size=64, num_hidden_layers=4, intermediate_size=128, num_attention_heads=4,
    num_key_value_heads=2, head_dim=16, rms_norm_eps=1e-6, vocab_size=VOCAB,
    max_position_embeddings=4096, rope_theta=10000.0, tie_word_embeddings=False,
)

FAMILIES: dict[str, tuple[dict, str]] = {
    # tensor parallelism: heads, KV heads and MLP rows split over 2 ranks
    "qwen3": (dict(_DENSE, model_type="qwen3"), "tensor"),
    # pipeline parallelism (qwen3_moe has shard() too; the test asks for pipeline)
    "qwen3_moe": (dict(_DENSE, model_type="qwen3_moe", num_experts=4, num_experts_per_tok=2,
                       decoder_sparse_step=1, moe_intermediate_size=32, mlp_only_layers=[],
                       norm_topk_prob=True), "pipeline"),
    # a hybrid (gated delta-rule + attention layers) under pipeline parallelism:
    # mlx-lm's qwen3_next has model.pipeline() and no shard()
    "qwen3_next": (dict(_DENSE, model_type="qwen3_next", linear_num_value_heads=4, linear_num_key_heads=2,
                        linear_key_head_dim=16, linear_value_head_dim=16, linear_conv_kernel_dim=4,
                        full_attention_interval=2, num_experts=4, num_experts_per_tok=2, decoder_sparse_step=1,
                        shared_expert_intermediate_size=32, mlp_only_layers=[], moe_intermediate_size=32,
                        partial_rotary_factor=0.25), "pipeline"),
}


# Embedding scale that makes a family's random greedy chains vary (a flat model repeats one token).
SHARPEN = {"qwen3": 6.0}


def _build(config: dict, seed: int):
    from mlx_lm.utils import _get_classes

    from tests.archs import _reinit

    Model, Args = _get_classes(config)
    mx.random.seed(seed)
    model = Model(Args.from_dict(copy.deepcopy(config)))
    _reinit(model, config["model_type"], seed)  # lively fp32 weights, small decays for recurrent layers
    scale = SHARPEN.get(config["model_type"])
    if scale:
        model.update({"model": {"embed_tokens": {"weight": model.model.embed_tokens.weight * scale}}})
    mx.eval(model.parameters())
    return model


def _noisy(model, config: dict, noise: float, seed: int):
    draft = _build(config, seed=0)
    keys = mx.random.split(mx.random.key(seed), 10_000)
    new = []
    for i, (k, p) in enumerate(tree_flatten(model.parameters())):
        if mx.issubdtype(p.dtype, mx.floating) and p.size:
            p = p + noise * mx.sqrt(mx.mean(p * p)) * mx.random.normal(p.shape, key=keys[i])
        new.append((k, p))
    draft.update(tree_unflatten(new))
    mx.eval(draft.parameters())
    return draft


def _save(model, config: dict, folder: Path) -> Path:
    from mlx_lm.utils import save_config, save_model

    folder.mkdir(parents=True, exist_ok=True)
    save_model(folder, model)
    save_config(copy.deepcopy(config), folder / "config.json")
    for name in TOKENIZER_FILES:
        if (FIXTURE_TOKENIZER / name).exists():
            shutil.copy(FIXTURE_TOKENIZER / name, folder / name)
    return folder


def make_pair(root: Path, name: str, noise: float = 0.05) -> tuple[Path, Path]:
    config, _ = FAMILIES[name]
    target = _build(config, seed=1)
    drafter = _noisy(target, config, noise, seed=2)
    return _save(target, config, root / f"{name}-target"), _save(drafter, config, root / f"{name}-drafter")
