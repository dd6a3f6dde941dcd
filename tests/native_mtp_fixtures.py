"""Tiny random checkpoints in each MTP family's Hugging Face layout, built offline.

    write_checkpoint(family, folder, seed)  -> folder with config.json, 3 safetensors shards + index,
                                              tokenizer files, and the MTP tensors under their real names
    MTP_SHARD                               the shard that holds every MTP tensor (and some trunk tensors)
    FUSION_NAMES[family]                    the checkpoint names of the fusion tensors, as the references read them

The trunk is an mlx-lm model built from its own class with one extra decoder layer, whose weights become
the MTP block under the family's prefix (model.layers.{N}.*, model.mtp_layers.0.*, mtp.layers.0.*); then
every tensor is written back in the Hugging Face layout (experts unstacked, DeepSeek's kv_b_proj joined,
Qwen's norms stored as w - 1 and conv weights as (C, 1, K)), which mlx-lm's own `sanitize` undoes on load.
"""

from __future__ import annotations

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core)

import copy
import importlib
import json
import re
import shutil
from pathlib import Path

import mlx.core as mx
from mlx.utils import tree_flatten

VOCAB = 512  # the fixture tokenizer has 511 ids (eos 511)
H = 64
TOKENIZER = Path(__file__).parent / "fixtures" / "gpt_neo" / "target"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json", "merges.txt")
PEAKED = 3  # tokens whose output rows are scaled up, so base and MTP layer often agree (acceptance > 0)
SHARDS = ("model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors", "model-00003-of-00003.safetensors")
MTP_SHARD = SHARDS[2]

_QWEN_LINEAR = dict(
    hidden_size=H, num_hidden_layers=3, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2,
    head_dim=16, rms_norm_eps=1e-6, vocab_size=VOCAB, max_position_embeddings=4096, linear_num_value_heads=4,
    linear_num_key_heads=2, linear_key_head_dim=16, linear_value_head_dim=16, linear_conv_kernel_dim=4,
    full_attention_interval=2, tie_word_embeddings=False,
)

CONFIGS = {
    # num_hidden_layers 61: mlx-lm's deepseek_v3.sanitize drops "model.layers.61.*" by that literal name.
    # The trunk is dense (first_k_dense_replace 61); the MTP block at index 61 is a MoE layer, as in V3.
    "deepseek_v3": dict(
        model_type="deepseek_v3", architectures=["DeepseekV3ForCausalLM"], vocab_size=VOCAB, hidden_size=32,
        intermediate_size=48, moe_intermediate_size=16, num_hidden_layers=61, num_attention_heads=2,
        num_key_value_heads=2, n_shared_experts=1, n_routed_experts=4, routed_scaling_factor=1.0,
        kv_lora_rank=16, q_lora_rank=None, qk_rope_head_dim=8, v_head_dim=8, qk_nope_head_dim=8,
        topk_method="noaux_tc", scoring_func="sigmoid", norm_topk_prob=True, n_group=1, topk_group=1,
        num_experts_per_tok=2, moe_layer_freq=1, first_k_dense_replace=61, max_position_embeddings=512,
        rms_norm_eps=1e-6, rope_theta=10000.0, num_nextn_predict_layers=1, tie_word_embeddings=False,
    ),
    "deepseek_v32": dict(
        model_type="deepseek_v32", architectures=["DeepseekV32ForCausalLM"], vocab_size=VOCAB, hidden_size=H,
        index_head_dim=16, index_n_heads=2, index_topk=6, intermediate_size=96, moe_intermediate_size=32,
        num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2, n_shared_experts=1, n_routed_experts=4,
        routed_scaling_factor=1.0, kv_lora_rank=16, q_lora_rank=24, qk_rope_head_dim=8, v_head_dim=16,
        qk_nope_head_dim=8, topk_method="noaux_tc", scoring_func="sigmoid", norm_topk_prob=True, n_group=1,
        topk_group=1, num_experts_per_tok=2, moe_layer_freq=1, first_k_dense_replace=1,
        max_position_embeddings=512, rms_norm_eps=1e-6, rope_theta=10000.0, attention_bias=False,
        num_nextn_predict_layers=1, tie_word_embeddings=False,
    ),
    "glm4_moe": dict(
        model_type="glm4_moe", architectures=["Glm4MoeForCausalLM"], vocab_size=VOCAB, hidden_size=H,
        intermediate_size=96, max_position_embeddings=512, moe_intermediate_size=32, norm_topk_prob=True,
        num_attention_heads=4, n_group=1, head_dim=16, topk_group=1, n_shared_experts=1, n_routed_experts=4,
        routed_scaling_factor=1.0, num_experts_per_tok=2, first_k_dense_replace=1, num_hidden_layers=2,
        num_key_value_heads=2, rms_norm_eps=1e-5, rope_theta=10000.0, rope_scaling=None, use_qk_norm=True,
        tie_word_embeddings=False, attention_bias=True, partial_rotary_factor=0.5, num_nextn_predict_layers=1,
    ),
    "glm4_moe_lite": dict(
        model_type="glm4_moe_lite", architectures=["Glm4MoeLiteForCausalLM"], vocab_size=VOCAB, hidden_size=H,
        intermediate_size=96, moe_intermediate_size=32, num_hidden_layers=2, num_attention_heads=2,
        num_key_value_heads=2, n_shared_experts=1, n_routed_experts=4, routed_scaling_factor=1.0,
        kv_lora_rank=16, q_lora_rank=24, qk_rope_head_dim=8, qk_nope_head_dim=8, v_head_dim=16,
        num_experts_per_tok=2, first_k_dense_replace=1, max_position_embeddings=512, rms_norm_eps=1e-5,
        rope_theta=10000.0, tie_word_embeddings=False, num_nextn_predict_layers=1,
    ),
    "mimo": dict(
        model_type="mimo", architectures=["MiMoForCausalLM"], hidden_size=H, num_hidden_layers=2,
        intermediate_size=128, num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-5, vocab_size=VOCAB,
        max_position_embeddings=512, rope_theta=10000.0, tie_word_embeddings=False, num_nextn_predict_layers=1,
    ),
    "qwen3_5": dict(
        model_type="qwen3_5", architectures=["Qwen3_5ForConditionalGeneration"], tie_word_embeddings=False,
        text_config=dict(_QWEN_LINEAR, model_type="qwen3_5_text", mtp_num_hidden_layers=1,
                         rope_parameters={"type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25}),
    ),
    "qwen3_5_moe": dict(
        model_type="qwen3_5_moe", architectures=["Qwen3_5MoeForConditionalGeneration"], tie_word_embeddings=False,
        text_config=dict(_QWEN_LINEAR, model_type="qwen3_5_moe_text", mtp_num_hidden_layers=1, num_experts=4,
                         num_experts_per_tok=2, decoder_sparse_step=1, shared_expert_intermediate_size=32,
                         moe_intermediate_size=32,
                         rope_parameters={"type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25}),
    ),
    "qwen3_next": dict(
        _QWEN_LINEAR, model_type="qwen3_next", architectures=["Qwen3NextForCausalLM"], num_experts=4,
        num_experts_per_tok=2, decoder_sparse_step=1, shared_expert_intermediate_size=32, mlp_only_layers=[],
        moe_intermediate_size=32, rope_theta=10000.0, partial_rotary_factor=0.25, num_nextn_predict_layers=1,
    ),
}

# The fusion tensors' checkpoint names, as vLLM's deepseek_mtp.py / mimo_mtp.py / qwen3_next_mtp.py load them.
FUSION_NAMES = {
    "deepseek_v3": {"embed_norm": "model.layers.61.enorm", "hidden_norm": "model.layers.61.hnorm",
                    "proj": "model.layers.61.eh_proj", "final_norm": "model.layers.61.shared_head.norm"},
    "glm4_moe": {"embed_norm": "model.layers.2.enorm", "hidden_norm": "model.layers.2.hnorm",
                 "proj": "model.layers.2.eh_proj", "final_norm": "model.layers.2.shared_head.norm"},
    "deepseek_v32": {"embed_norm": "model.layers.2.enorm", "hidden_norm": "model.layers.2.hnorm",
                     "proj": "model.layers.2.eh_proj", "final_norm": "model.layers.2.shared_head.norm"},
    "glm4_moe_lite": {"embed_norm": "model.layers.2.enorm", "hidden_norm": "model.layers.2.hnorm",
                      "proj": "model.layers.2.eh_proj", "final_norm": "model.layers.2.shared_head.norm"},
    "mimo": {"embed_norm": "model.mtp_layers.0.token_layernorm", "hidden_norm": "model.mtp_layers.0.hidden_layernorm",
             "proj": "model.mtp_layers.0.input_proj", "final_norm": "model.mtp_layers.0.final_layernorm"},
    "qwen3_next": {"embed_norm": "mtp.pre_fc_norm_embedding", "hidden_norm": "mtp.pre_fc_norm_hidden",
                   "proj": "mtp.fc", "final_norm": "mtp.norm"},
}
FUSION_NAMES["qwen3_5"] = FUSION_NAMES["qwen3_5_moe"] = FUSION_NAMES["qwen3_next"]  # vLLM qwen3_5_mtp.py
# Where the extra decoder layer goes in the checkpoint.
BLOCK_PREFIX = {"deepseek_v3": "model.layers.61.", "deepseek_v32": "model.layers.2.", "glm4_moe": "model.layers.2.", "glm4_moe_lite": "model.layers.2.", "mimo": "model.mtp_layers.0.",
                "qwen3_next": "mtp.layers.0.", "qwen3_5": "mtp.layers.0.", "qwen3_5_moe": "mtp.layers.0."}
QWEN = ("qwen3_next", "qwen3_5", "qwen3_5_moe")
QWEN_NORMS = (".input_layernorm.weight", ".post_attention_layernorm.weight", "model.norm.weight", ".q_norm.weight",
              ".k_norm.weight")


def _module(family: str):
    return importlib.import_module(f"mlx_lm.models.{family}")


def _to_hf(family: str, name: str, value: mx.array) -> dict:
    """One mlx-lm parameter -> its Hugging Face tensor(s)."""
    m = re.match(r"(.*)switch_mlp\.(\w+)\.weight$", name)
    if m and family == "qwen3_5_moe":  # fused experts: gate_up_proj (E, 2I, D), down_proj (E, D, I)
        if m.group(2) == "down_proj":
            return {f"{m.group(1)}experts.down_proj": value}
        return {f"{m.group(1)}experts.{m.group(2)}": value}  # joined below
    if m:
        return {f"{m.group(1)}experts.{e}.{m.group(2)}.weight": value[e] for e in range(value.shape[0])}
    if family in QWEN:
        if "conv1d.weight" in name:
            return {name: mx.moveaxis(value, 2, 1)}
        if value.ndim == 1 and any(name.endswith(s) for s in QWEN_NORMS):
            return {name: value - 1.0}
    return {name: value}


def _join_kv_b(weights: dict) -> dict:
    """DeepSeek: embed_q (H, rank, nope) and unembed_out (H, v, rank) back into kv_b_proj (H*(nope+v), rank)."""
    out = {}
    for name, value in weights.items():
        if name.endswith("self_attn.embed_q.weight"):
            prefix = name[: -len("embed_q.weight")]
            wv = weights[prefix + "unembed_out.weight"]
            joined = mx.concatenate([value.swapaxes(-1, -2), wv], axis=1)
            out[prefix + "kv_b_proj.weight"] = joined.reshape(-1, joined.shape[-1])
        elif not name.endswith("self_attn.unembed_out.weight"):
            out[name] = value
    return out


def _randomize(model, seed: int) -> None:
    mx.random.seed(seed)
    params = []
    for name, p in tree_flatten(model.parameters()):
        if not mx.issubdtype(p.dtype, mx.floating):
            params.append((name, p))
            continue
        if p.ndim == 1:
            if name.endswith("norm.weight") or "layernorm" in name:
                new = 1.0 + 0.1 * mx.random.normal(p.shape)
            else:
                new = 0.1 * mx.random.normal(p.shape)
        else:
            fan_in = p.shape[-1]
            new = mx.random.normal(p.shape) * (1.5 / fan_in**0.5)
        params.append((name, new.astype(mx.float32)))
    model.load_weights(params)


def write_checkpoint(family: str, folder: Path, seed: int = 0) -> Path:
    """A tiny fp32 checkpoint of `family` in its Hugging Face layout, MTP tensors included."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    config = copy.deepcopy(CONFIGS[family])
    text = config.get("text_config", config)  # Qwen3.5 keeps the sizes in text_config
    n = text["num_hidden_layers"]
    module = _module(family)
    bigger = copy.deepcopy(config)
    bigger.get("text_config", bigger)["num_hidden_layers"] = n + 1
    model = module.Model(module.ModelArgs.from_dict(bigger))  # one extra layer: its weights become the MTP block
    _randomize(model, seed)
    params = dict(tree_flatten(model.parameters()))
    lm = "language_model." if family in ("qwen3_5", "qwen3_5_moe") else ""  # mlx-lm's Qwen3.5 wraps the text model
    embed_key, head_key = lm + "model.embed_tokens.weight", lm + "lm_head.weight"
    params[embed_key] = params[embed_key] * 4.0  # sharper logits: greedy chains with structure
    head = params[head_key]
    params[head_key] = mx.concatenate([head[:PEAKED] * 25.0, head[PEAKED:]])
    # The MTP block's writes to the residual stream are damped and its fusion passes h_t through (below),
    # so its drafts lean on the trunk's own prediction: repeats are drafted right, the rest is random.
    extra = lm + f"model.layers.{n}."
    for name in params:
        if name.startswith(extra) and name.endswith(("o_proj.weight", "down_proj.weight")):
            params[name] = params[name] * 0.05
    if family in ("deepseek_v3", "deepseek_v32", "glm4_moe_lite"):  # MLA: mlx-lm splits kv_b_proj on load
        params = _join_kv_b(params)
    hf = {}
    for name, value in params.items():
        hf.update(_to_hf(family, name, value))
    for key in [k for k in hf if k.endswith("experts.gate_proj")]:
        prefix = key[: -len("gate_proj")]
        hf[prefix + "gate_up_proj"] = mx.concatenate([hf.pop(key), hf.pop(prefix + "up_proj")], axis=-2)
    # The extra layer moves under the family's MTP prefix.
    prefix = BLOCK_PREFIX[family]
    hf = {(prefix + k[len(extra):] if k.startswith(extra) else k): v for k, v in hf.items()}
    if lm:  # Qwen3.5's Hugging Face names: model.language_model.*, lm_head.*
        hf = {k.replace("language_model.model.", "model.language_model.").replace("language_model.lm_head", "lm_head"): v
              for k, v in hf.items()}
        embed_key, norm_key = "model.language_model.embed_tokens.weight", "model.language_model.norm.weight"
    else:
        norm_key = "model.norm.weight"
    mx.random.seed(seed + 100)
    D = text["hidden_size"]
    names = FUSION_NAMES[family]
    for part in ("embed_norm", "hidden_norm", "final_norm"):
        w = 1.0 + 0.02 * mx.random.normal((D,))
        hf[names[part] + ".weight"] = (w - 1.0) if family in QWEN else w
    proj = mx.random.normal((D, 2 * D)) * (0.1 / (2 * D) ** 0.5)
    eye = mx.eye(D)
    # The hidden half of the concatenation: second for DeepSeek/GLM/Qwen (cat(emb, h)), first for MiMo (cat(h, emb)).
    pass_h = mx.concatenate([eye, mx.zeros((D, D))], 1) if family == "mimo" else mx.concatenate([mx.zeros((D, D)), eye], 1)
    hf[names["proj"] + ".weight"] = proj + pass_h
    if family in ("deepseek_v3", "deepseek_v32", "glm4_moe", "glm4_moe_lite"):  # next-n layers carry copies of the shared embedding and head
        hf[f"model.layers.{n}.embed_tokens.weight"] = hf[embed_key]
        hf[f"model.layers.{n}.shared_head.head.weight"] = hf["lm_head.weight"]
    hf = {k: v.astype(mx.float32) for k, v in hf.items()}
    # Three shards; the last holds every MTP tensor plus the final norm and the output head, as real ones mix.
    mtp = [k for k in hf if k.startswith(prefix) or k in {v + ".weight" for v in names.values()}
           or k.startswith(f"model.layers.{n}.")]
    rest = [k for k in hf if k not in mtp]
    tail = {norm_key, "lm_head.weight"}
    first = [k for k in rest if k not in tail][: len(rest) // 2]
    placement = {k: SHARDS[0] for k in first}
    placement.update({k: SHARDS[1] for k in rest if k not in placement and k not in tail})
    placement.update({k: SHARDS[2] for k in list(tail) + mtp})
    for shard in SHARDS:
        mx.save_safetensors(str(folder / shard), {k: hf[k] for k, s in placement.items() if s == shard},
                            metadata={"format": "pt"})
    index = {"metadata": {"total_size": sum(v.nbytes for v in hf.values())}, "weight_map": dict(sorted(placement.items()))}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2))
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    for name in TOKENIZER_FILES:
        if (TOKENIZER / name).exists():
            shutil.copy(TOKENIZER / name, folder / name)
    return folder


def mtp_tensor_names(folder: Path) -> list[str]:
    """The MTP tensors of a fixture, by the family's real names (read from its index)."""
    config = json.loads((folder / "config.json").read_text())
    family = config["model_type"]
    n = config.get("text_config", config)["num_hidden_layers"]
    keys = json.loads((folder / "model.safetensors.index.json").read_text())["weight_map"]
    prefixes = (f"model.layers.{n}.", "model.mtp_layers.", "mtp.")
    return sorted(k for k in keys if k.startswith(prefixes) and (family != "mimo" or not k.startswith("mtp.")))
