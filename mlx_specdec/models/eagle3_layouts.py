"""The published EAGLE-3 layouts, read into (and written from) `models.eagle3`.

Both are the same network (see models/eagle3.py); they differ in names, in
where the geometry lives and, the trap, in what a layer id means.

vLLM Speculators (`speculators_model_type: "eagle3"`; speculators
`models/eagle3/config.py`, vLLM `llama_eagle3.py`):
  * geometry in `transformer_layer_config`; `draft_vocab_size`,
    `norm_before_residual`, `norm_before_fc` (one RMSNorm `input_norm` over
    the concatenation), `fc_norm` (one per feature), `norm_output` (re-feed the
    normed output), `target_hidden_size` at the top level;
  * the layer as `layers.0.*` (more layers are refused);
  * `eagle_aux_hidden_state_layer_ids`: id k is the *input* of target layer k
    (vLLM collects `hidden_states + residual` before layer k runs), i.e. the
    output of layer k - 1; absent, vLLM's Llama default (2, L/2, L-3).

EAGLE / SpecForge (`LlamaForCausalLMEagle3`, or EAGLE's own template with
`draft_vocab_size` and `midlayer.*` weights; EAGLE `cnets.py`, SpecForge
`modeling/draft/llama3_eagle.py`):
  * a flat Llama config of the one layer (`head_dim` when given, else
    hidden / heads; `rope_theta` 10000 when absent), `draft_vocab_size`;
  * the layer as `midlayer.*`; the residual is always the un-normed hidden;
  * ids, when given, in the nested `eagle_config`: SpecForge writes *outputs*
    (id i is the output of layer i, default 1, L/2-1, L-4); a list whose first
    id is 2 is read as inputs, as SGLang does (sglang PR #25454: EAGLE's own
    capture is before layers 2, L/2 and L-3, and checkpoints carry that form
    too). No ids: the default, the same tensors either way.

Both: `d2t` int64 offsets (draft id i is target id i + d2t[i]; absent when the
vocabularies match), `t2d` a bool mask over the target vocabulary (checked
against d2t, not stored), `embed_tokens.weight` when present is the target's
own copy and is not used: the target's embedding is bound at load.
"""

from __future__ import annotations

import json
from pathlib import Path

import mlx.core as mx
import numpy as np

from ..errors import ModelLoadError
from .folders import load_safetensors, read_json

SPECULATORS, EAGLE = "speculators", "eagle"
LAYOUTS = (SPECULATORS, EAGLE)
_WEIGHT_FILES = ("model.safetensors",)


def layout_of(path) -> str | None:
    """'speculators', 'eagle' or None for a folder that holds neither."""
    path = Path(path)
    if not (path / "config.json").is_file():
        return None
    try:
        config = json.loads((path / "config.json").read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(config, dict):
        return None
    if config.get("speculators_model_type") == "eagle3":
        return SPECULATORS
    if config.get("architectures") == ["LlamaForCausalLMEagle3"]:
        return EAGLE
    if "draft_vocab_size" in config and config.get("num_hidden_layers") == 1 and _has_midlayer(path):
        return EAGLE  # EAGLE's own template (architectures LlamaForCausalLM)
    return None


def _has_midlayer(path: Path) -> bool:
    for name in _WEIGHT_FILES:
        f = path / name
        if f.is_file():
            try:
                with open(f, "rb") as fh:
                    size = int.from_bytes(fh.read(8), "little")
                    return b'"midlayer.' in fh.read(min(size, 1 << 24))
            except OSError:
                return False
    return False


def _weights(path: Path) -> dict:
    for name in _WEIGHT_FILES:
        if (path / name).is_file():
            return load_safetensors(path / name)
    if (path / "pytorch_model.bin").is_file():
        raise ModelLoadError(f"{path} holds pytorch_model.bin; convert it to model.safetensors (safetensors' "
                             "convert script) to load it here")
    raise ModelLoadError(f"{path} has no model.safetensors")


def _ids_from_inputs(ids, where: str) -> tuple[int, ...]:
    if any(int(k) < 1 for k in ids):
        raise ModelLoadError(f"{where}: layer id 0 (the embedding output) is not a decoder layer's output")
    return tuple(int(k) - 1 for k in ids)


def _vocab_maps(weights: dict, draft_vocab: int, vocab: int, where: str) -> mx.array:
    d2t = weights.pop("d2t", None)
    t2d = weights.pop("t2d", None)
    if d2t is None:
        if draft_vocab != vocab:
            raise ModelLoadError(f"{where}: a draft vocabulary of {draft_vocab} of {vocab} tokens needs d2t")
        return mx.zeros((draft_vocab,), mx.int32)
    offsets = np.array(d2t).astype(np.int64)
    targets = np.arange(draft_vocab) + offsets
    if offsets.shape != (draft_vocab,) or targets.min() < 0 or targets.max() >= vocab:
        raise ModelLoadError(f"{where}: d2t does not map {draft_vocab} draft ids into the {vocab}-token vocabulary")
    if t2d is not None:
        mask = np.zeros(vocab, bool)
        mask[targets] = True
        if not np.array_equal(np.array(t2d).astype(bool), mask):
            raise ModelLoadError(f"{where}: t2d and d2t disagree about the draft vocabulary")
    return mx.array(offsets.astype(np.int32))


def _renamed(weights: dict, prefix: str, where: str) -> dict:
    out = {}
    for k, v in weights.items():
        if k == "embed_tokens.weight":
            continue  # the target's own embedding is bound at load
        if k.startswith(prefix):
            out["midlayer." + k[len(prefix):]] = v
        elif k.startswith("layers."):
            raise ModelLoadError(f"{where}: {k.split('.')[0]}.{k.split('.')[1]} is a second draft layer; "
                                 "only one-layer EAGLE-3 drafters are supported")
        else:
            out[k] = v
    return out


def read_published(path, n_target_layers: int | None = None):
    """(Eagle3Config, weights under models.eagle3's names) for a folder in a published layout, else None.

    `n_target_layers` resolves a layout's default layer ids (none stored); without it they cannot be."""
    from .eagle3 import Eagle3Config, default_target_layers

    path = Path(path)
    layout = layout_of(path)
    if layout is None:
        return None
    where = str(path / "config.json")
    config = read_json(path / "config.json", "an EAGLE-3 drafter config")

    def default_layers():
        if n_target_layers is None:
            raise ModelLoadError(f"{where} names no target layers; load it onto its target to use the default")
        return default_target_layers(n_target_layers)

    if layout == SPECULATORS:
        tl = config.get("transformer_layer_config")
        if not isinstance(tl, dict):
            raise ModelLoadError(f"{where}: transformer_layer_config is missing")
        if tl.get("num_hidden_layers", 1) != 1:
            raise ModelLoadError(f"{where}: {tl['num_hidden_layers']} draft layers; only one is supported")
        ids = config.get("eagle_aux_hidden_state_layer_ids")
        layers = _ids_from_inputs(ids, where) if ids else default_layers()
        flags = dict(norm_before_residual=bool(config.get("norm_before_residual", False)),
                     norm_before_fc=bool(config.get("norm_before_fc", False)),
                     fc_norm=bool(config.get("fc_norm", False)), norm_output=bool(config.get("norm_output", False)))
        prefix, geometry, draft_vocab = "layers.0.", tl, config.get("draft_vocab_size")
        target_hidden = config.get("target_hidden_size")
    else:
        eagle_config = config.get("eagle_config") or {}
        if eagle_config.get("use_aux_hidden_state") is False:
            raise ModelLoadError(f"{where}: use_aux_hidden_state false is an EAGLE-1 style head, not EAGLE-3")
        ids = eagle_config.get("eagle_aux_hidden_state_layer_ids")
        if ids:
            # SpecForge writes outputs; a list that starts at 2 is EAGLE's inputs convention (SGLang's rule).
            layers = _ids_from_inputs(ids, where) if int(ids[0]) == 2 else tuple(int(i) for i in ids)
        else:
            layers = default_layers()
        flags = dict(fc_norm=bool(config.get("fc_norm", False)))
        prefix, geometry, draft_vocab = "midlayer.", config, config.get("draft_vocab_size")
        target_hidden = config.get("target_hidden_size")
    if sorted(layers) != list(layers):
        raise ModelLoadError(f"{where}: layer ids {list(ids)} are not in ascending order (the references "
                             "concatenate features low to high)")
    if geometry.get("attention_bias") or geometry.get("mlp_bias"):
        raise ModelLoadError(f"{where}: biased projections are not supported")
    try:
        hidden, heads = int(geometry["hidden_size"]), int(geometry["num_attention_heads"])
        cfg = Eagle3Config(
            hidden_size=hidden, intermediate_size=int(geometry["intermediate_size"]), num_attention_heads=heads,
            num_key_value_heads=int(geometry.get("num_key_value_heads") or heads),
            head_dim=int(geometry.get("head_dim") or hidden // heads), vocab_size=int(geometry["vocab_size"]),
            draft_vocab_size=int(draft_vocab or geometry["vocab_size"]), target_layers=layers,
            target_hidden_size=int(target_hidden) if target_hidden else None,
            rms_norm_eps=float(geometry.get("rms_norm_eps", 1e-6)),
            rope_theta=float(geometry.get("rope_theta") or 10000.0), rope_scaling=geometry.get("rope_scaling"),
            max_position_embeddings=int(geometry.get("max_position_embeddings") or 8192),
            extra={"layout": layout}, **flags)
    except (KeyError, TypeError, ValueError) as e:
        raise ModelLoadError(f"{where}: not a complete EAGLE-3 config ({type(e).__name__}: {e})") from None
    weights = _weights(path)
    d2t = _vocab_maps(weights, cfg.draft_vocab_size, cfg.vocab_size, where)
    weights = _renamed(weights, prefix, where)
    weights["d2t"] = d2t
    return cfg, weights


# ---------------------------------------------------------------- writing (export)


def write_published(model, out, layout: str, *, target_layers: int | None = None) -> Path:
    """Write `model` (an Eagle3Model) into `out` in a published layout, as that layout's own tools do: ids in its
    convention, its names, d2t int64 and t2d bool when the vocabulary is reduced; atomically, into a new or
    empty folder only."""
    from mlx.utils import tree_flatten

    if layout not in LAYOUTS:
        raise ModelLoadError(f"unknown layout {layout!r}; expected one of {', '.join(LAYOUTS)}")
    out = Path(out)
    cfg = model.config
    geometry = {"model_type": "llama", "hidden_size": cfg.hidden_size, "intermediate_size": cfg.intermediate_size,
                "num_attention_heads": cfg.num_attention_heads, "num_key_value_heads": cfg.num_key_value_heads,
                "head_dim": cfg.head_dim, "num_hidden_layers": 1, "rms_norm_eps": cfg.rms_norm_eps,
                "rope_theta": cfg.rope_theta, "rope_scaling": cfg.rope_scaling, "hidden_act": "silu",
                "max_position_embeddings": cfg.max_position_embeddings, "vocab_size": cfg.vocab_size,
                "attention_bias": False, "mlp_bias": False}
    prefix = "layers.0." if layout == SPECULATORS else "midlayer."
    weights = {}
    for k, v in tree_flatten(model.parameters()):
        if k == "d2t":
            continue
        weights[prefix + k[len("midlayer."):] if k.startswith("midlayer.") else k] = v
    reduced = cfg.draft_vocab_size != cfg.vocab_size
    if reduced:
        targets = np.array(model.draft_to_target)
        weights["d2t"] = mx.array((targets - np.arange(len(targets))).astype(np.int64))
        mask = np.zeros(cfg.vocab_size, bool)
        mask[targets] = True
        weights["t2d"] = mx.array(mask)
    if layout == SPECULATORS:
        config = {"architectures": ["Eagle3Speculator"], "speculators_model_type": "eagle3",
                  "transformer_layer_config": geometry, "draft_vocab_size": cfg.draft_vocab_size,
                  "norm_before_residual": cfg.norm_before_residual, "norm_before_fc": cfg.norm_before_fc,
                  "fc_norm": cfg.fc_norm, "norm_output": cfg.norm_output,
                  "target_hidden_size": cfg.target_hidden_size,
                  "eagle_aux_hidden_state_layer_ids": [i + 1 for i in cfg.target_layers]}
    else:
        if cfg.norm_before_residual or cfg.norm_before_fc or cfg.norm_output:
            raise ModelLoadError("the EAGLE layout has no norm_before_residual, norm_before_fc or norm_output")
        config = {"architectures": ["LlamaForCausalLMEagle3"], **geometry, "draft_vocab_size": cfg.draft_vocab_size,
                  "target_hidden_size": cfg.target_hidden_size, "fc_norm": cfg.fc_norm,
                  "eagle_config": {"eagle_aux_hidden_state_layer_ids": list(cfg.target_layers),
                                   "use_aux_hidden_state": True}}
    from .folders import atomic_folder

    def fill(tmp: Path) -> None:
        mx.save_safetensors(str(tmp / "model.safetensors"),
                            {k: (v if v.dtype in (mx.int64, mx.bool_, mx.int32) else v.astype(mx.float16))
                             for k, v in weights.items()})
        (tmp / "config.json").write_text(json.dumps(config, indent=2) + "\n")

    return atomic_folder(out, fill)
