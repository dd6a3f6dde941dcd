"""The model store: one folder per model, written atomically, checked on load.

    models/<name>/config.json        model_type, architecture, tokenizer fingerprint, dtype, parameters, preset
    models/<name>/model.safetensors  weights, float16 on disk
    models/<name>/tokenizer.model    the sentencepiece model the ids mean
    models/<name>/README.md          model card: corpus, tokens seen, losses, time, machine, samples

Weights are stored fp16 to halve the folder; at load they are cast to float32
on the CPU (fp16 matmuls there bypass BLAS and are ~30x slower) and kept
float16 on a GPU. Every way a folder can be wrong ends in a one-line
`ModelLoadError` that names the file, parameter or value.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

import mlx.core as mx
from mlx.utils import tree_flatten, tree_unflatten

from ..errors import ModelLoadError
from .cards import render_card
from .folders import check_weights, compute_dtype, load_safetensors, read_json, write_model_folder
from .storylm import PRESETS, StoryLM, StoryLMConfig, num_parameters

CONFIG = "config.json"
WEIGHTS = "model.safetensors"
TOKENIZER = "tokenizer.model"
CARD = "README.md"
REQUIRED = (CONFIG, WEIGHTS, TOKENIZER)


def preset_name(cfg: StoryLMConfig) -> str | None:
    """The preset a config was built from (vocabulary size aside), if any."""
    for name, p in PRESETS.items():
        if {**p.to_dict(), "vocab_size": cfg.vocab_size} == cfg.to_dict():
            return name
    return None


def _as_tokenizer(tokenizer_or_path):
    if isinstance(tokenizer_or_path, (str, os.PathLike)):
        from .tokenizer import StoryTokenizer

        return StoryTokenizer(str(tokenizer_or_path))
    return tokenizer_or_path


def save_model(model: StoryLM, tokenizer_or_path, out_dir, card: dict | None = None, *,
               overwrite: bool = False) -> Path:
    """Write a store folder; readers never see a half-written one.

    Everything goes into a sibling temp folder first, which then replaces
    `out_dir` with os.replace (the previous folder, if any, is moved aside
    first and deleted after, because rename cannot replace a non-empty folder).
    An existing model folder is replaced only with `overwrite`; anything else
    at `out_dir` is refused (folders.check_out).
    """
    tok = _as_tokenizer(tokenizer_or_path)
    out = Path(out_dir)
    cfg: StoryLMConfig = model.args
    if tok.vocab_size != cfg.vocab_size:
        raise ModelLoadError(
            f"tokenizer vocab_size {tok.vocab_size} != model vocab_size {cfg.vocab_size}"
        )
    card = dict(card or {})
    n_params = num_parameters(model)
    config = {
        "model_type": "storylm",
        "architecture": cfg.to_dict(),
        "tokenizer_fingerprint": tok.fingerprint,
        "dtype": "float16",
        "parameters": n_params,
        "preset": card.get("preset") or preset_name(cfg),
    }
    card_text = render_card(out.name, config, card, _architecture_lines(config))
    return write_model_folder(out, model, tok.path, config, card_text, overwrite=overwrite)


def _architecture_lines(config: dict) -> list[str]:
    arch = config["architecture"]
    return [
        f"- dim {arch['dim']}, {arch['n_layers']} layers, {arch['n_heads']} heads, "
        f"MLP hidden {arch['hidden_dim']}, vocabulary {arch['vocab_size']}, "
        f"context {arch['max_seq_len']}",
    ]


# What a StoryLM architecture must hold: (type, lowest value). No key has a silent default.
ARCHITECTURE_FIELDS = {
    "vocab_size": (int, 1),
    "dim": (int, 1),
    "n_layers": (int, 1),
    "n_heads": (int, 1),
    "hidden_dim": (int, 1),
    "max_seq_len": (int, 1),
    "rope_theta": (float, 0.0),
    "norm_eps": (float, 0.0),
}


def storylm_config(config: dict, where) -> StoryLMConfig:
    """The StoryLM architecture of a store config.json, checked key by key.

    Every field is required (a missing n_heads must not silently become 4),
    integers must be integers >= 1, and rope_theta / norm_eps finite and > 0.
    """
    arch = config.get("architecture")
    if not isinstance(arch, dict):
        raise ModelLoadError(f"{where} has no 'architecture' object")
    unknown = sorted(set(arch) - set(ARCHITECTURE_FIELDS))
    if unknown:
        raise ModelLoadError(f"{where}: unknown architecture key {unknown[0]!r}; expected {sorted(ARCHITECTURE_FIELDS)}")
    missing = [k for k in ARCHITECTURE_FIELDS if k not in arch]
    if missing:
        raise ModelLoadError(f"{where}: architecture lacks required key(s) {', '.join(map(repr, missing))}")
    for key, (kind, low) in ARCHITECTURE_FIELDS.items():
        value = arch[key]
        if kind is int:
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ModelLoadError(f"{where}: architecture {key} must be an integer >= {low}, got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= low:
            raise ModelLoadError(f"{where}: architecture {key} must be a finite number > {low:g}, got {value!r}")
    if arch["dim"] % arch["n_heads"]:
        raise ModelLoadError(f"{where}: architecture dim {arch['dim']} is not divisible by n_heads {arch['n_heads']}")
    return StoryLMConfig.from_dict(arch)


def load_store(path) -> tuple[StoryLM, Any]:
    """Load a store folder -> (model in eval mode with weights evaluated, tokenizer)."""
    path = Path(path)
    if not path.exists():
        raise ModelLoadError(f"model path {str(path)!r} does not exist")
    if not path.is_dir():
        raise ModelLoadError(f"model path {str(path)!r} is not a directory; expected a model-store folder")
    for name in REQUIRED:
        if not (path / name).is_file():
            raise ModelLoadError(f"model folder {str(path)!r} is missing {name}")
    config = read_json(path / CONFIG)
    model_type = config.get("model_type")
    if model_type != "storylm":
        raise ModelLoadError(f"unknown model_type {model_type!r} in {path / CONFIG}; expected 'storylm'")
    cfg = storylm_config(config, path / CONFIG)

    from .tokenizer import load_folder_tokenizer

    tok = load_folder_tokenizer(path, config, TOKENIZER)

    weights = load_safetensors(path / WEIGHTS)
    model = StoryLM(cfg)
    check_weights(model, weights, WEIGHTS)
    # fp16 matmuls on the CPU do not use BLAS: compute there in float32.
    model.update(tree_unflatten([(k, v.astype(compute_dtype())) for k, v in weights.items()]))
    mx.eval(model.parameters())
    model.eval()
    return model, tok


def load_any_store(path):
    """A StoryLM or hybrid store folder -> (model, tokenizer)."""
    from .hybrid import is_hybrid_folder, load_hybrid

    config = read_json(Path(path) / CONFIG) if (Path(path) / CONFIG).is_file() else {}
    if is_hybrid_folder(config):
        return load_hybrid(path)
    return load_store(path)
