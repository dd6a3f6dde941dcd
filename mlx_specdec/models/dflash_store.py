"""Every block drafter folder, whichever wrote it: ours (`models.dflash.save_dflash`) or z-lab's published
`DFlashDraftModel` layout, read as one `DFlashModel`.

z-lab's layout (dflash `model.py`; the drafters published for Qwen3, Llama 3.1, gpt-oss):
  * a Qwen3-style config of the drafter's own layers (`hidden_size`, heads, `head_dim`, `rms_norm_eps`,
    `rope_theta` or transformers 5's `rope_parameters`) with `dflash_config` holding `target_layer_ids`,
    `mask_token_id` and `block_size` (each also read at the top level, as z-lab's `_draft_value` does;
    block_size defaults to 16), optionally `input_embedding_scale`, `output_multiplier`,
    `final_logit_softcapping`;
  * weights `fc`, `hidden_norm`, `layers.i.{self_attn.{q,k,v,o}_proj, self_attn.{q,k}_norm, mlp.*,
    input_layernorm, post_attention_layernorm}`, `norm`: our module names; no embedding and no head (both are
    the target's, bound at load);
  * `target_layer_ids` are target decoder layer *outputs*, 0-based (z-lab reads hidden_states[id + 1]): ours too;
  * attention is bidirectional over context and block for full-attention layers (`is_causal` unset or false).
    Causal or sliding-window layers (DFlash2, `layer_types` with sliding_attention) and DFlash2's
    convolutions and candidate selector are refused by name.
"""

from __future__ import annotations

import json
from pathlib import Path

import mlx.core as mx

from ..calibration import mark_origin
from ..errors import ModelLoadError
from ..model_info import output_projection, token_embedding
from .dflash import CONFIG, DFLASH_TYPE, WEIGHTS, DFlashConfig, DFlashModel, is_own_folder
from .folders import check_weights, compute_dtype, load_safetensors, read_json

ZLAB_ARCHITECTURE = "DFlashDraftModel"
_REFUSED_ARCHITECTURES = ("DFlash2DraftModel",)


def _config(path: Path) -> dict | None:
    try:
        config = json.loads((path / CONFIG).read_text())
    except (OSError, ValueError):
        return None
    return config if isinstance(config, dict) else None


def is_zlab_folder(path) -> bool:
    """A folder in z-lab's layout (or DFlash2's, which `load_dflash` refuses by name)."""
    config = _config(Path(path))
    if config is None:
        return False
    arch = config.get("architectures") or []
    return any(a in (ZLAB_ARCHITECTURE, *_REFUSED_ARCHITECTURES) for a in arch) or isinstance(
        config.get("dflash_config"), dict)


def is_dflash_folder(path) -> bool:
    """A drafter folder `load_dflash` reads: ours, or z-lab's layout."""
    return is_own_folder(path) or is_zlab_folder(path)


def _draft_value(config: dict, name: str, default=None):
    inner = config.get("dflash_config") or {}
    return inner.get(name, config.get(name, default))


def read_zlab(path) -> tuple[DFlashConfig, dict]:
    """(DFlashConfig, weights under models.dflash's names) of a folder in z-lab's layout."""
    path = Path(path)
    where = str(path / CONFIG)
    config = read_json(path / CONFIG, "a DFlash drafter config")
    arch = config.get("architectures") or []
    refused = [a for a in arch if a in _REFUSED_ARCHITECTURES]
    if refused or _draft_value(config, "conv_kernel_size") is not None:
        raise ModelLoadError(f"{where}: {refused[0] if refused else 'a DFlash2 drafter'} (convolutions and a "
                             "candidate selector) is not supported; DFlashDraftModel is")
    layer_types = config.get("layer_types") or []
    if config.get("is_causal") or any(t != "full_attention" for t in layer_types):
        raise ModelLoadError(f"{where}: causal or sliding-window draft layers ({', '.join(sorted(set(layer_types)))}"
                             " / is_causal) are not supported; only bidirectional full-attention layers are")
    if config.get("attention_bias") or config.get("mlp_bias"):
        raise ModelLoadError(f"{where}: biased projections are not supported")
    ids = _draft_value(config, "target_layer_ids")
    if not ids:
        raise ModelLoadError(f"{where}: dflash_config.target_layer_ids is missing")
    if _draft_value(config, "mask_token_id") is None:
        raise ModelLoadError(f"{where}: dflash_config.mask_token_id is missing")
    rope = config.get("rope_parameters") or {}
    rope_scaling = config.get("rope_scaling") or (rope if rope.get("rope_type", "default") != "default" else None)
    softcap = _draft_value(config, "final_logit_softcapping")
    weights = {k.removeprefix("model."): v for k, v in _weights(path).items()}
    for name in ("embed_tokens.weight", "lm_head.weight"):
        weights.pop(name, None)  # the target's own, bound at load
    try:
        hidden, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
        fc = weights.get("fc.weight")
        target_hidden = fc.shape[1] // len(ids) if fc is not None and fc.ndim == 2 else hidden
        cfg = DFlashConfig(
            hidden_size=hidden, intermediate_size=int(config["intermediate_size"]),
            num_hidden_layers=int(config["num_hidden_layers"]), num_attention_heads=heads,
            num_key_value_heads=int(config.get("num_key_value_heads") or heads),
            head_dim=int(config.get("head_dim") or hidden // heads), vocab_size=int(config["vocab_size"]),
            block_size=int(_draft_value(config, "block_size", 16)), target_layers=tuple(int(i) for i in ids),
            target_hidden_size=target_hidden, draft_vocab_size=None,
            mask_token_id=int(_draft_value(config, "mask_token_id")),
            rms_norm_eps=float(config.get("rms_norm_eps", 1e-6)),
            rope_theta=float(config.get("rope_theta") or rope.get("rope_theta") or 10000.0),
            rope_scaling=rope_scaling, max_position_embeddings=int(config.get("max_position_embeddings") or 32768),
            input_embedding_scale=float(_draft_value(config, "input_embedding_scale", 1.0)),
            output_multiplier=float(_draft_value(config, "output_multiplier", 1.0)),
            final_logit_softcapping=float(softcap) if softcap else None,
            extra={"layout": "z-lab", "num_target_layers": config.get("num_target_layers")})
    except (KeyError, TypeError, ValueError) as e:
        raise ModelLoadError(f"{where}: not a complete DFlash config ({type(e).__name__}: {e})") from None
    if list(cfg.target_layers) != sorted(set(cfg.target_layers)):
        raise ModelLoadError(f"{where}: target_layer_ids {list(ids)} are not distinct and ascending (z-lab "
                             "concatenates features low to high)")
    return cfg, weights


def _weights(path: Path) -> dict:
    if (path / WEIGHTS).is_file():
        return load_safetensors(path / WEIGHTS)
    if (path / "pytorch_model.bin").is_file():
        raise ModelLoadError(f"{path} holds pytorch_model.bin; convert it to model.safetensors (safetensors' "
                             "convert script) to load it here")
    raise ModelLoadError(f"{path} has no {WEIGHTS}")


def load_dflash(path, target=None) -> DFlashModel:
    """A block drafter folder (ours, or z-lab's layout) as a DFlashModel, bound to `target`'s embedding (and
    head, for a drafter without one of its own) when given."""
    path = Path(path)
    if is_own_folder(path):
        config = read_json(path / CONFIG, "a DFlash drafter config")
        try:
            cfg = DFlashConfig.from_dict(config["architecture"])
        except (KeyError, TypeError) as e:
            raise ModelLoadError(f"{path / CONFIG}: bad architecture ({e})") from None
        weights = load_safetensors(path / WEIGHTS)
    elif is_zlab_folder(path):
        cfg, weights = read_zlab(path)
    else:
        config = _config(path) or {}
        raise ModelLoadError(f"{path} is not a block drafter folder (model_type {config.get('model_type')!r})")
    model = DFlashModel(cfg)
    check_weights(model, weights, str(path))
    dtype = compute_dtype()
    model.load_weights([(k, v if k == "d2t" else v.astype(dtype)) for k, v in weights.items()])
    if cfg.own_head:
        model.d2t = model.d2t.astype(mx.int32)
    model.freeze()
    mx.eval(model.parameters())
    if target is not None:
        model.bind(token_embedding(target), None if cfg.own_head else output_projection(target))
    mark_origin(model, path)
    return model


__all__ = ["DFLASH_TYPE", "ZLAB_ARCHITECTURE", "is_dflash_folder", "is_zlab_folder", "load_dflash", "read_zlab"]
