"""What llama.cpp's converter did to each architecture, undone: GGUF -> an mlx-lm config and tensor names.

For each supported `general.architecture` this module gives the mlx-lm
`config.json` (mlx-lm's own `model_type`, so `mlx_lm.load` builds its own model
class) and one `Plan` per GGUF tensor: the Hugging Face name, a row
permutation and an additive shift. The facts, from llama.cpp's `conversion/`
sources and its model graphs:

* llama: the converter permutes the rows of Q and K, per head, from the
  rotate-half layout Hugging Face uses into the interleaved pairs its "norm"
  rope rotates. We undo the permutation (rather than keep llama.cpp's order
  and set `rope_traditional`), so the folder is an ordinary Hugging Face
  layout llama: every tool that reads one (mlx-lm, transformers, a drafter
  trained on the original checkpoint) sees the same weights.
* qwen2, qwen3, gemma3: llama.cpp ropes these "neox" style, so no permutation.
* gemma3: the converter adds 1 to every `*norm.weight` (Gemma's RMSNorm
  multiplies by 1 + w); we subtract it. The sliding-window pattern and the local
  rope base take llama.cpp's defaults (every sixth layer global, base 10,000)
  when the metadata does not say; the attention scale is llama.cpp's
  (1/sqrt(head_dim), except 27B models: 1/sqrt(hidden/heads)).
* every architecture: the vocabulary size is the number of tokens the file
  lists (the rows llama.cpp kept of the embedding), and a missing `output.weight`
  means tied embeddings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..errors import ModelLoadError
from .reader import GGUFFile


@dataclass(frozen=True)
class Plan:
    """How one GGUF tensor becomes one tensor of the mlx-lm model."""

    gguf_name: str
    hf_name: str
    rows: np.ndarray | None = None  # hf_rows = gguf_rows[rows]
    shift: float = 0.0              # hf = gguf + shift


LAYER_TENSORS = {  # GGUF block tensor -> Hugging Face module path under model.layers.N
    "attn_norm": "input_layernorm",
    "ffn_norm": "post_attention_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "attn_q_norm": "self_attn.q_norm",
    "attn_k_norm": "self_attn.k_norm",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}
GEMMA3_LAYER_TENSORS = {
    **LAYER_TENSORS,
    "ffn_norm": "pre_feedforward_layernorm",
    "post_attention_norm": "post_attention_layernorm",
    "post_ffw_norm": "post_feedforward_layernorm",
}
GLOBAL_TENSORS = {"token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head"}
BLOCK = re.compile(r"^blk\.(\d+)\.(\w+)\.(weight|bias)$")
GLOBAL = re.compile(r"^(\w+)\.(weight|bias)$")


def unpermute_rows(n_rows: int, n_heads: int) -> np.ndarray:
    """Row order that undoes llama.cpp's Q/K permutation: per head, interleaved pairs back to two halves."""
    head_dim = n_rows // n_heads
    return np.arange(n_rows).reshape(n_heads, head_dim // 2, 2).swapaxes(1, 2).reshape(-1)


def _vocab_size(f: GGUFFile) -> int:
    tokens = f.meta("tokenizer.ggml.tokens")
    if not tokens:
        raise ModelLoadError(f"{str(f.path)!r} has no tokenizer.ggml.tokens; cannot build its tokenizer")
    return len(tokens)


def _rope_scaling(f: GGUFFile):
    kind = f.arch_meta("rope.scaling.type")
    if kind in (None, "none"):
        return None
    if kind != "linear":
        raise ModelLoadError(f"{str(f.path)!r}: rope scaling {kind!r} is not supported (only linear)")
    return {"rope_type": "linear", "factor": float(f.require("rope.scaling.factor"))}


def _common(f: GGUFFile, model_type: str) -> dict:
    hidden = int(f.require("embedding_length"))
    heads = int(f.require("attention.head_count"))
    if not isinstance(f.arch_meta("attention.head_count_kv", heads), int):
        raise ModelLoadError(f"{str(f.path)!r}: per-layer key/value head counts are not supported")
    head_dim = int(f.arch_meta("attention.key_length", hidden // heads))
    rope_dims = int(f.arch_meta("rope.dimension_count", head_dim))
    if rope_dims != head_dim:
        raise ModelLoadError(f"{str(f.path)!r}: partial rotary embeddings ({rope_dims} of {head_dim} dims) are not "
                             "supported")
    if f.has("rope_freqs.weight"):
        raise ModelLoadError(f"{str(f.path)!r} has per-frequency rope factors (rope_freqs), which are not supported")
    return {
        "model_type": model_type,
        "hidden_size": hidden,
        "num_hidden_layers": int(f.require("block_count")),
        "intermediate_size": int(f.require("feed_forward_length")),
        "num_attention_heads": heads,
        "num_key_value_heads": int(f.arch_meta("attention.head_count_kv", heads)),
        "head_dim": head_dim,
        "rms_norm_eps": float(f.require("attention.layer_norm_rms_epsilon")),
        "vocab_size": _vocab_size(f),
        "max_position_embeddings": int(f.arch_meta("context_length", 4096)),
        "rope_theta": float(f.arch_meta("rope.freq_base", 10000.0)),
        "rope_scaling": _rope_scaling(f),
        "tie_word_embeddings": not f.has("output.weight"),
    }


def _gemma3_config(f: GGUFFile) -> dict:
    config = _common(f, "gemma3_text")
    if f.arch_meta("final_logit_softcapping"):
        raise ModelLoadError(f"{str(f.path)!r}: final logit soft-capping is not supported by mlx-lm's gemma3_text")
    window = f.arch_meta("attention.sliding_window")
    pattern = f.arch_meta("attention.sliding_window_pattern", 6)
    n_layers = config["num_hidden_layers"]
    if isinstance(pattern, list):  # one flag per layer (true = sliding): mlx-lm takes a period
        period = next((p for p in range(1, n_layers + 1)
                       if all(bool(s) == ((i + 1) % p != 0) for i, s in enumerate(pattern))), None)
        if period is None:
            raise ModelLoadError(f"{str(f.path)!r}: sliding-window layers {pattern} are not periodic; mlx-lm's "
                                 "gemma3_text needs every N-th layer global")
        pattern = period
    if not window:
        pattern = 1  # no sliding layers at all
    big = n_layers == 62  # llama.cpp's LLM_TYPE_27B: the attention scale uses hidden / heads
    config.update({
        "rope_local_base_freq": float(f.arch_meta("rope.freq_base_swa", 10000.0)),
        "sliding_window": int(window or config["max_position_embeddings"]),
        "sliding_window_pattern": int(pattern),
        "query_pre_attn_scalar": (config["hidden_size"] // config["num_attention_heads"]) if big
        else config["head_dim"],
    })
    config.pop("tie_word_embeddings")  # mlx-lm's gemma3_text ties when lm_head is absent
    return config


def _llama_config(f: GGUFFile) -> dict:
    config = _common(f, "llama")
    config.update({"attention_bias": f.has("blk.0.attn_q.bias"), "mlp_bias": f.has("blk.0.ffn_up.bias")})
    return config


def _qwen2_config(f: GGUFFile) -> dict:
    config = _common(f, "qwen2")
    config.pop("head_dim")
    return config


ARCHITECTURES = {  # general.architecture -> (config builder, layer tensor names, permute Q/K, norm shift)
    "llama": (_llama_config, LAYER_TENSORS, True, 0.0),
    "qwen2": (_qwen2_config, LAYER_TENSORS, False, 0.0),
    "qwen3": (lambda f: _common(f, "qwen3"), LAYER_TENSORS, False, 0.0),
    "gemma3": (_gemma3_config, GEMMA3_LAYER_TENSORS, False, 1.0),
}


def supported(f: GGUFFile):
    try:
        return ARCHITECTURES[f.architecture]
    except KeyError:
        raise ModelLoadError(f"{str(f.path)!r}: architecture {f.architecture!r} is not supported; expected one of "
                             f"{', '.join(ARCHITECTURES)}") from None


def mlx_lm_config(f: GGUFFile) -> dict:
    """The config.json mlx-lm builds this file's model from."""
    build = supported(f)[0]
    return {k: v for k, v in build(f).items() if v is not None}


def tensor_plans(f: GGUFFile, config: dict) -> list[Plan]:
    """One Plan per GGUF tensor; a tensor this module does not know is refused by name."""
    _, layer_names, permute, shift = supported(f)
    heads, kv_heads = config["num_attention_heads"], config["num_key_value_heads"]
    plans = []
    for name in f.tensor_names:
        block = BLOCK.match(name)
        if block is not None:
            index, part, kind = block.groups()
            if part not in layer_names:
                raise ModelLoadError(f"{str(f.path)!r}: tensor {name!r} is not part of a {f.architecture} model "
                                     "this converter knows")
            hf = f"model.layers.{index}.{layer_names[part]}.{kind}"
        else:
            top = GLOBAL.match(name)
            if top is None or top.group(1) not in GLOBAL_TENSORS:
                raise ModelLoadError(f"{str(f.path)!r}: tensor {name!r} is not part of a {f.architecture} model "
                                     "this converter knows")
            part, kind = top.groups()
            hf = f"{GLOBAL_TENSORS[part]}.{kind}"
        rows = None
        if permute and part in ("attn_q", "attn_k"):
            n_rows = int(f.tensor(name).shape[-1]) if kind == "weight" else int(f.tensor(name).shape[0])
            rows = unpermute_rows(n_rows, heads if part == "attn_q" else kv_heads)
        plans.append(Plan(name, hf, rows, shift if name.endswith("norm.weight") else 0.0))
    return plans
