"""An independent NumPy reading of a published EAGLE-3 checkpoint: the references' context pass, line by line.

Nothing here imports mlx_specdec's EAGLE-3 code: the checkpoint's tensors are
read by their published names and the config by its layout's own conventions
(vLLM `llama_eagle3.py` + `gpu_model_runner.py` for Speculators; EAGLE
`cnets.py` / `modeling_llama_kv.py` and SpecForge `llama3_eagle.py` for the
EAGLE layout), and the target's hidden states are taken the HF way
(`hidden_states[k]` = the input of decoder layer k) by running its layers one by
one. A loader that wires a layer id, a concatenation order or a norm
differently from the reference gives other logits.
"""

from __future__ import annotations

import json
from pathlib import Path

import mlx.core as mx
import numpy as np
from mlx_lm.models.base import create_attention_mask


def hf_hidden_states(model, ids: list[int]) -> list[np.ndarray]:
    """[embedding output, input of layer 1, ..., input of layer L-1, output of layer L-1 (pre-norm)]: (T, H) each."""
    h = model.model.embed_tokens(mx.array(ids)[None])
    if getattr(model.model, "args", None) is not None and model.model.args.model_type.startswith("gemma"):
        h = h * (model.model.args.hidden_size**0.5)
    mask = create_attention_mask(h, None)
    states = [np.array(h[0], dtype=np.float32)]
    for layer in model.model.layers:
        h = layer(h, mask, None)
        states.append(np.array(h[0], dtype=np.float32))
    return states


def _rms(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def _rope(x, theta):  # HF rotate_half, positions 0..T-1; x (heads, T, d)
    d = x.shape[-1]
    inv = 1.0 / theta ** (np.arange(0, d, 2) / d)
    ang = np.arange(x.shape[1])[:, None] * inv[None]
    cos, sin = np.cos(np.concatenate([ang, ang], -1)), np.sin(np.concatenate([ang, ang], -1))
    rot = np.concatenate([-x[..., d // 2 :], x[..., : d // 2]], -1)
    return x * cos + rot * sin


def context_logits(folder, states: list[np.ndarray], embed: np.ndarray, next_ids: list[int]):
    """(draft logits (T, Vd), target id of each draft id (Vd,)) of the context pass: row t reads the target's
    features at t and the embedding of x_{t+1} (`next_ids[t]`)."""
    folder = Path(folder)
    config = json.loads((folder / "config.json").read_text())
    w = {k: np.array(v.astype(mx.float32)) if v.dtype not in (mx.int64, mx.bool_) else np.array(v)
         for k, v in mx.load(str(folder / "model.safetensors")).items()}
    n_layers = len(states) - 1
    if config.get("speculators_model_type") == "eagle3":  # vLLM: id k = hidden_states + residual before layer k
        geo, p = config["transformer_layer_config"], "layers.0."
        ids = config.get("eagle_aux_hidden_state_layer_ids") or [2, n_layers // 2, n_layers - 3]
        feats = np.concatenate([states[k] for k in sorted(ids)], -1)  # filled in forward order
        norm_before_residual = config.get("norm_before_residual", False)
        if config.get("norm_before_fc"):
            feats = _rms(feats, w["input_norm.weight"], geo["rms_norm_eps"])
    else:
        geo, p = config, "midlayer."
        ids = (config.get("eagle_config") or {}).get("eagle_aux_hidden_state_layer_ids")
        if ids is None:  # EAGLE: captured before layers 2, L//2, L-3
            feats = np.concatenate([states[k] for k in (2, n_layers // 2, n_layers - 3)], -1)
        elif ids[0] == 2:  # SGLang's reading of a list in EAGLE's capture form: inputs of those layers
            feats = np.concatenate([states[k] for k in ids], -1)
        else:  # SpecForge: a forward hook on layers[i] (its output), concatenated in list order
            feats = np.concatenate([states[i + 1] for i in ids], -1)
        norm_before_residual = False
    eps = geo["rms_norm_eps"]
    if config.get("fc_norm"):
        parts = np.split(feats, 3, -1)
        feats = np.concatenate([_rms(x, w[f"fc_norm.{i}.weight"], eps) for i, x in enumerate(parts)], -1)
    g = feats @ w["fc.weight"].T
    emb = _rms(embed[next_ids], w[p + "input_layernorm.weight"], eps)
    hn = _rms(g, w[p + "hidden_norm.weight"], eps)
    residual = hn if norm_before_residual else g
    x = np.concatenate([emb, hn], -1)  # embedding first
    nh, nkv = geo["num_attention_heads"], geo["num_key_value_heads"]
    hd = geo.get("head_dim") or geo["hidden_size"] // nh
    T = x.shape[0]
    q = (x @ w[p + "self_attn.q_proj.weight"].T).reshape(T, nh, hd).transpose(1, 0, 2)
    k = (x @ w[p + "self_attn.k_proj.weight"].T).reshape(T, nkv, hd).transpose(1, 0, 2)
    v = (x @ w[p + "self_attn.v_proj.weight"].T).reshape(T, nkv, hd).transpose(1, 0, 2)
    theta = geo.get("rope_theta") or 10000.0
    q, k = _rope(q, theta), _rope(k, theta)
    k, v = np.repeat(k, nh // nkv, 0), np.repeat(v, nh // nkv, 0)
    s = q @ k.transpose(0, 2, 1) / np.sqrt(hd)
    s = np.where(np.tril(np.ones((T, T), bool)), s, -np.inf)
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    o = (a @ v).transpose(1, 0, 2).reshape(T, nh * hd) @ w[p + "self_attn.o_proj.weight"].T
    h = residual + o
    m = _rms(h, w[p + "post_attention_layernorm.weight"], eps)
    gate, up = m @ w[p + "mlp.gate_proj.weight"].T, m @ w[p + "mlp.up_proj.weight"].T
    h = h + (gate / (1 + np.exp(-gate)) * up) @ w[p + "mlp.down_proj.weight"].T
    logits = _rms(h, w["norm.weight"], eps) @ w["lm_head.weight"].T
    d2t = w.get("d2t", np.zeros(logits.shape[-1], np.int64))
    return logits, np.arange(logits.shape[-1]) + d2t
