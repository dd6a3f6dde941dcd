"""Hybrid StoryLMs: mlx-lm's own hybrid architectures, trained and stored by us.

A hybrid preset is an mlx-lm ``ModelArgs`` config (a plain dict, kept here);
the model is mlx-lm's ``Model`` class for that ``model_type``, used as is, so
the engine meets mlx-lm's own layers and cache classes (``make_cache()`` gives
e.g. ``ArraysCache`` for the recurrent layers and ``KVCache`` for attention).

Store folder (same files as a StoryLM folder; see store.py):

    config.json  {"model_type": "<mlx-lm architecture>", "architecture": {<mlx-lm ModelArgs>},
                  "tokenizer_fingerprint": ..., "dtype": "float16", "parameters": ..., "preset": ...}

``model_type`` names the mlx-lm module (``mlx_lm.models.<model_type>``); the
``architecture`` object is the ModelArgs dict the model is built from. A
folder is recognised as ours (not a Hugging Face / mlx-lm folder) by the
``architecture`` object plus the ``tokenizer_fingerprint``.

Why lfm2 for ``storylm-5m-hybrid``: measured on the 2-core Linux CPU at ~5.6-6M
parameters, vocab 4096, batch 16 x 256, one compiled AdamW step, it trained
fastest (1,520 tok/s vs nemotron_h 1,101, granitemoehybrid 781, qwen3_next 295,
dense storylm-5m 1,176) and decoded fastest (4.3 ms/token cached); see the card.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import shutil
from pathlib import Path
from typing import Any

import mlx.core as mx
from mlx.utils import tree_flatten, tree_unflatten

from ..errors import ModelLoadError, SpecDecError
from .cards import render_card
from .folders import check_weights, compute_dtype, load_safetensors, read_json, write_model_folder

CONFIG, WEIGHTS, TOKENIZER = "config.json", "model.safetensors", "tokenizer.model"

# storylm-5m-hybrid: the storylm-5m shape (dim 256, 6 layers, 8 heads, SwiGLU
# 688, tied embeddings, vocab 4096, context 512) with LFM2's gated short
# convolutions (kernel 3) in 4 of the 6 layers and full attention in layers 2 and 5.
HYBRID_PRESETS: dict[str, dict] = {
    "storylm-5m-hybrid": dict(
        model_type="lfm2",
        vocab_size=4096,
        hidden_size=256,
        num_hidden_layers=6,
        num_attention_heads=8,
        num_key_value_heads=8,
        max_position_embeddings=512,
        norm_eps=1e-5,
        conv_bias=False,
        conv_L_cache=3,
        block_dim=256,
        block_multiple_of=16,
        block_ffn_dim_multiplier=None,
        block_auto_adjust_ff_dim=False,
        block_ff_dim=688,
        rope_theta=10000.0,
        layer_types=["conv", "conv", "full_attention", "conv", "conv", "full_attention"],
    ),
}
# For tests: the same family at toy size (one conv layer, one attention layer).
HYBRID_PRESETS["storylm-tiny-hybrid"] = dict(
    HYBRID_PRESETS["storylm-5m-hybrid"], hidden_size=32, block_dim=32, block_ff_dim=96, num_hidden_layers=2,
    num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=128,
    layer_types=["conv", "full_attention"],
)

DESCRIPTION = (
    "A hybrid StoryLM: mlx-lm's `{model_type}` architecture (used unmodified: mlx-lm's Model class and its "
    "own caches) trained on children's stories with the ladder's shared tokenizer, part of the mlx-specdec testbed."
)


def is_hybrid_preset(name: str) -> bool:
    return name in HYBRID_PRESETS


def _module(model_type: str):
    if not isinstance(model_type, str) or not model_type.replace("_", "").isalnum():
        raise ModelLoadError(f"model_type {model_type!r} is not an mlx-lm architecture name")
    try:
        return importlib.import_module(f"mlx_lm.models.{model_type}")
    except ImportError:
        raise ModelLoadError(f"mlx-lm has no architecture {model_type!r} (no mlx_lm.models.{model_type})") from None


def hybrid_config(name: str, **overrides) -> dict:
    if name not in HYBRID_PRESETS:
        raise SpecDecError(f"unknown hybrid preset {name!r}; expected one of {sorted(HYBRID_PRESETS)}")
    return json.loads(json.dumps({**HYBRID_PRESETS[name], **overrides}))  # a deep copy


def context_length(arch: dict) -> int:
    return int(arch.get("max_position_embeddings", 512))


def model_from_config(arch: dict, where: str = "hybrid config"):
    """mlx-lm's Model for an architecture dict; unknown keys are refused, not dropped."""
    mod = _module(arch.get("model_type"))
    known = {f.name for f in dataclasses.fields(mod.ModelArgs)}
    unknown = sorted(set(arch) - known)
    if unknown:
        raise ModelLoadError(f"{where}: unknown {arch['model_type']} config keys {unknown}")
    try:
        args = mod.ModelArgs.from_dict(arch)
        model = mod.Model(args)
    except (TypeError, ValueError, KeyError, IndexError) as e:
        raise ModelLoadError(f"{where}: bad {arch['model_type']} config ({type(e).__name__}: {e})") from None
    model._specdec_architecture = dict(arch)  # what was built, for run metadata and the store
    return model


def architecture(model) -> dict:
    """The architecture dict a model was built from (StoryLM or hybrid)."""
    arch = getattr(model, "_specdec_architecture", None)
    return dict(arch) if arch is not None else model.args.to_dict()


def init_weights(model, seed: int = 0):
    """nanoGPT initialisation for the matrices: N(0, 0.02), residual outputs / sqrt(2L).

    Only 2-D weights (linear layers, the tied embedding) are redrawn; norms,
    biases, convolution kernels and any recurrent-state parameters keep the
    initialisation mlx-lm's modules give them.
    """
    params = tree_flatten(model.parameters())
    keys = iter(mx.random.split(mx.random.key(seed), 1 + len(params)))
    n_layers = len(model.layers)
    std, resid_std = 0.02, 0.02 / math.sqrt(2 * n_layers)
    new = {}
    for name, p in params:
        key = next(keys)
        if p.ndim != 2 or not name.endswith("weight") or "norm" in name:
            continue
        s = resid_std if name.endswith(("out_proj.weight", "o_proj.weight", "w2.weight", "down_proj.weight")) else std
        new[name] = mx.random.normal(p.shape, key=key) * s
    model.update(tree_unflatten(list(new.items())))
    mx.eval(model.parameters())
    return model


def build_hybrid(name: str, vocab_size: int | None = None, seed: int | None = 0):
    arch = hybrid_config(name, **({} if vocab_size is None else {"vocab_size": vocab_size}))
    model = model_from_config(arch, f"preset {name}")
    if seed is not None:
        init_weights(model, seed)
    return model


def describe(arch: dict) -> list[str]:
    """Architecture bullet lines for the model card."""
    kinds = arch.get("layer_types") or arch.get("layers_block_type") or arch.get("hybrid_override_pattern")
    lines = [
        f"- mlx-lm architecture `{arch['model_type']}`; hidden {arch.get('hidden_size')}, "
        f"{arch.get('num_hidden_layers', len(kinds or []))} layers, {arch.get('num_attention_heads')} heads, "
        f"vocabulary {arch.get('vocab_size')}, context {context_length(arch)}",
    ]
    if kinds:
        lines.append(f"- layers: {', '.join(map(str, kinds))}")
    return lines


def save_hybrid(model, tok, out_dir, card: dict | None = None, *, overwrite: bool = False) -> Path:
    """Write a hybrid store folder atomically (fp16 weights, tokenizer, config, card)."""
    arch = architecture(model)
    if tok.vocab_size != arch["vocab_size"]:
        raise ModelLoadError(f"tokenizer vocab_size {tok.vocab_size} != model vocab_size {arch['vocab_size']}")
    out = Path(out_dir)
    card = dict(card or {})
    card.setdefault("description", DESCRIPTION.format(model_type=arch["model_type"]))
    config = {
        "model_type": arch["model_type"],
        "architecture": arch,
        "tokenizer_fingerprint": tok.fingerprint,
        "dtype": "float16",
        "parameters": sum(p.size for _, p in tree_flatten(model.parameters())),
        "preset": card.get("preset"),
    }

    card_text = render_card(out.name, config, card, describe(arch))
    return write_model_folder(out, model, tok.path, config, card_text, overwrite=overwrite)


def is_hybrid_folder(config: dict) -> bool:
    """Our store format for an mlx-lm architecture (not a StoryLM, not a GPT-Neo port)."""
    return (
        config.get("model_type") not in ("storylm", "gpt_neo")
        and isinstance(config.get("architecture"), dict)
        and "tokenizer_fingerprint" in config
    )


def load_hybrid(path) -> tuple[Any, Any]:
    """Load a hybrid store folder -> (mlx-lm Model in eval mode, StoryTokenizer)."""
    from .tokenizer import load_folder_tokenizer

    path = Path(path)
    for name in (CONFIG, WEIGHTS, TOKENIZER):
        if not (path / name).is_file():
            raise ModelLoadError(f"model folder {str(path)!r} is missing {name}")
    config = read_json(path / CONFIG)
    arch = config.get("architecture")
    if not isinstance(arch, dict):
        raise ModelLoadError(f"{path / CONFIG} has no 'architecture' object")
    if arch.get("model_type") != config.get("model_type"):
        raise ModelLoadError(
            f"{path / CONFIG}: model_type {config.get('model_type')!r} but architecture.model_type "
            f"{arch.get('model_type')!r}"
        )
    tok = load_folder_tokenizer(path, config, TOKENIZER)
    if arch.get("vocab_size") != tok.vocab_size:
        raise ModelLoadError(f"{path / CONFIG}: vocab_size {arch.get('vocab_size')} != tokenizer's {tok.vocab_size}")
    model = model_from_config(arch, str(path / CONFIG))
    weights = load_safetensors(path / WEIGHTS)
    check_weights(model, weights, WEIGHTS)
    model.update(tree_unflatten([(k, v.astype(compute_dtype())) for k, v in weights.items()]))
    mx.eval(model.parameters())
    model.eval()
    return model, tok


__all__ = ["HYBRID_PRESETS", "build_hybrid", "load_hybrid", "save_hybrid", "architecture",
           "is_hybrid_preset", "is_hybrid_folder", "context_length"]
