"""An independent NumPy reading of a checkpoint in z-lab's DFlashDraftModel layout: its draft pass, line by line.

Nothing here imports mlx_specdec's DFlash code. The config is read as z-lab's
`_draft_value` reads it (`dflash_config` first, then the top level), the
tensors by their published names, and the target's features the HF way:
`extract_context_feature` takes `hidden_states[id + 1]` (the output of
decoder layer id) for each of `target_layer_ids`, in list order. The draft
pass is `DFlashDraftModel.forward` with `Qwen3DFlashAttention`: the context
(target_hidden, after fc and hidden_norm) and the block (noise_embedding,
after input_layernorm) share the k/v projections, k_norm and rope; context
at positions 0..a-1, the block at a..a+B-1; no mask (is_causal false).
"""

from __future__ import annotations

import json
from pathlib import Path

import mlx.core as mx
import numpy as np

from tests.eagle3_reference import _rms


def _rope(x, theta, positions):  # HF rotate_half; x (heads, T, d)
    d = x.shape[-1]
    inv = 1.0 / theta ** (np.arange(0, d, 2) / d)
    ang = np.asarray(positions)[:, None] * inv[None]
    cos, sin = np.cos(np.concatenate([ang, ang], -1)), np.sin(np.concatenate([ang, ang], -1))
    rot = np.concatenate([-x[..., d // 2 :], x[..., : d // 2]], -1)
    return x * cos + rot * sin


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def draft_logits(folder, states: list[np.ndarray], embed: np.ndarray, head: np.ndarray, ids: list[int],
                 anchor: int) -> np.ndarray:
    """(B - 1, V) logits of the block at `anchor`: ids[anchor] is the last committed token, the context is the
    target's features at positions 0..anchor-1; `head` (V, H) is the target's output projection."""
    folder = Path(folder)
    config = json.loads((folder / "config.json").read_text())
    inner = config.get("dflash_config") or {}

    def value(name, default=None):
        return inner.get(name, config.get(name, default))

    w = {k: np.array(v.astype(mx.float32)) for k, v in mx.load(str(folder / "model.safetensors")).items()}
    eps, theta = config["rms_norm_eps"], config.get("rope_theta") or config["rope_parameters"]["rope_theta"]
    n_heads, n_kv = config["num_attention_heads"], config["num_key_value_heads"]
    d = config.get("head_dim") or config["hidden_size"] // n_heads
    block = int(value("block_size", 16))
    target_hidden = np.concatenate([states[i + 1] for i in value("target_layer_ids")], -1)[:anchor]
    ctx = _rms(target_hidden @ w["fc.weight"].T, w["hidden_norm.weight"], eps)
    block_ids = [ids[anchor]] + [value("mask_token_id")] * (block - 1)
    h = embed[block_ids] * float(value("input_embedding_scale", 1.0))
    positions = np.arange(anchor + block)
    for i in range(config["num_hidden_layers"]):
        p = f"layers.{i}."
        x = _rms(h, w[p + "input_layernorm.weight"], eps)
        q = (x @ w[p + "self_attn.q_proj.weight"].T).reshape(block, n_heads, d)
        kv_in = np.concatenate([ctx, x], 0)
        k = (kv_in @ w[p + "self_attn.k_proj.weight"].T).reshape(-1, n_kv, d)
        v = (kv_in @ w[p + "self_attn.v_proj.weight"].T).reshape(-1, n_kv, d)
        q = _rope(_rms(q, w[p + "self_attn.q_norm.weight"], eps).transpose(1, 0, 2), theta, positions[anchor:])
        k = _rope(_rms(k, w[p + "self_attn.k_norm.weight"], eps).transpose(1, 0, 2), theta, positions)
        v = v.transpose(1, 0, 2)
        rep = n_heads // n_kv
        k, v = np.repeat(k, rep, 0), np.repeat(v, rep, 0)
        att = _softmax(q @ k.transpose(0, 2, 1) * d**-0.5) @ v  # (heads, block, d)
        h = h + att.transpose(1, 0, 2).reshape(block, -1) @ w[p + "self_attn.o_proj.weight"].T
        x = _rms(h, w[p + "post_attention_layernorm.weight"], eps)
        gate, up = x @ w[p + "mlp.gate_proj.weight"].T, x @ w[p + "mlp.up_proj.weight"].T
        h = h + (gate / (1 + np.exp(-gate)) * up) @ w[p + "mlp.down_proj.weight"].T
    logits = _rms(h, w["norm.weight"], eps)[1:] @ head.T
    logits = logits * float(value("output_multiplier", 1.0))
    cap = value("final_logit_softcapping")
    return np.tanh(logits / cap) * cap if cap else logits
