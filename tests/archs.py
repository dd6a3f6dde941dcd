"""Tiny random mlx-lm models for every architecture whose cache is not plain KVCache.

A plain module (not a test file): test and survey code imports it (mlx-lm 0.32.2).

    ARCHS[name]          kwargs for the arch's ``ModelArgs.from_dict`` (with "model_type")
    EXPECTED_KINDS[name] cache class names in use during generation (CacheList recursed)
    UNSUPPORTED[name]    why an mlx-lm architecture is not covered
    KNOWN_ISSUES[name]   where mlx-lm itself depends on how tokens are split into calls
    CACHE_NOTES[name]    how the arch hands its caches around (beyond cache[i] -> layers[i])
    build(name, seed)    a deterministic fp32 model with non-degenerate greedy output
    drafter_of(model)    same architecture, target weights plus small relative noise
    cache_kinds(model)   class names of the caches (CacheList recursed)
    oracle_greedy(model, prompt_ids, n)   mlx-lm's own greedy (generate_step + argmax)
    stepwise_argmax(model, prompt_ids, tokens, chunk)   teacher-forced, chunked calls
    agreement(target, drafter)            teacher-forced greedy agreement
    make_cache(model) / after_call(model, cache)   the cache generate_step would use
    caller_map(model)    which module receives each cache object

Windows are WINDOW (8) tokens and chunks CHUNK (8) so a 40-60 token generation runs
far past every window.  Hybrid models carry at least one layer of each kind.
Everything is built from the model classes alone (no checkpoints), so no
``sanitize`` is needed.  Note that ``build`` reseeds MLX's global RNG.
"""

from __future__ import annotations

import mlx_specdec  # noqa: F401  (must come before mlx.core: binds OpenBLAS on Linux)

import copy
import math

import mlx.core as mx
import mlx.nn as nn
from mlx.utils import tree_flatten, tree_unflatten

WINDOW = 8
CHUNK = 8
VOCAB = 256
H = 64  # hidden size
GAIN = 2.0  # default scale on non-embedding matrices (see _reinit)
# Small SSM / gated-delta time steps (softplus(dt + bias)) and RG-LRU rates so decays
# stay near 1 and the state carries the prompt across the whole generation.
DEFAULT_SHIFT = {"dt_bias": -5.0, "dt_proj.bias": -4.0, "recurrent_param": -6.0}

# ---------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------

ARCHS: dict[str, dict] = {}
EXPECTED_KINDS: dict[str, set[str]] = {}
# Per-arch knobs: "gain" / "embed_gain" / "zero_std" / "shift" / "keep" (see _reinit),
# "noise" (drafter_of default), "oracle_kwargs" (generate_step kwargs of the oracle).
KNOBS: dict[str, dict] = {}


def _reg(name: str, kinds: set[str], cfg: dict, **knobs) -> None:
    ARCHS[name] = cfg
    EXPECTED_KINDS[name] = set(kinds)
    if knobs:
        KNOBS[name] = knobs


KV, ROT, ARR, CL, CHK = "KVCache", "RotatingKVCache", "ArraysCache", "CacheList", "ChunkedKVCache"
SW, FA = "sliding_attention", "full_attention"

# --- sliding-window attention families -------------------------------------

_reg("llama_sliding", {KV, ROT}, dict(
    model_type="llama", hidden_size=H, num_hidden_layers=3, intermediate_size=128,
    num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-5, vocab_size=VOCAB,
    layer_types=[SW, FA, SW], sliding_window=WINDOW, tie_word_embeddings=False,
))

_reg("ministral3", {KV, ROT}, dict(
    model_type="ministral3", hidden_size=H, num_hidden_layers=3, intermediate_size=128,
    num_attention_heads=4, num_key_value_heads=2, head_dim=16, rms_norm_eps=1e-5,
    vocab_size=VOCAB, max_position_embeddings=4096,
    rope_parameters={"rope_theta": 10000.0, "rope_type": "default",
                     "llama_4_scaling_beta": 0.1, "original_max_position_embeddings": 4096},
    layer_types=[SW, FA, SW], sliding_window=WINDOW, tie_word_embeddings=False,
))

_reg("gemma3_text", {KV, ROT}, dict(
    model_type="gemma3_text", hidden_size=H, num_hidden_layers=3, intermediate_size=128,
    num_attention_heads=4, num_key_value_heads=2, head_dim=16, vocab_size=VOCAB,
    query_pre_attn_scalar=16, sliding_window=WINDOW, sliding_window_pattern=2,
))

_reg("cohere2", {KV, ROT}, dict(
    model_type="cohere2", hidden_size=H, head_dim=16, num_hidden_layers=3,
    intermediate_size=128, num_attention_heads=4, num_key_value_heads=2, vocab_size=VOCAB,
    logit_scale=1.0, sliding_window=WINDOW, sliding_window_pattern=2,
), gain=3.0)

_reg("exaone4", {KV, ROT}, dict(
    model_type="exaone4", hidden_size=H, num_hidden_layers=3, intermediate_size=128,
    num_attention_heads=4, rms_norm_eps=1e-5, vocab_size=VOCAB, num_key_value_heads=2,
    max_position_embeddings=4096, rope_theta=10000.0, head_dim=16,
    tie_word_embeddings=False, rope_scaling=None, sliding_window=WINDOW,
    sliding_window_pattern="LLG",
))

_reg("olmo3", {KV, ROT}, dict(
    model_type="olmo3", hidden_size=H, num_hidden_layers=3, intermediate_size=128,
    num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-6, vocab_size=VOCAB,
    max_position_embeddings=4096, sliding_window=WINDOW, rope_theta=10000.0,
    layer_types=[SW, FA, SW],
), gain=1.0)

_reg("mellum", {KV, ROT}, dict(
    model_type="mellum", hidden_size=H, num_hidden_layers=3, intermediate_size=128,
    num_attention_heads=4, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=64,
    rms_norm_eps=1e-6, vocab_size=VOCAB, num_key_value_heads=2, head_dim=16,
    tie_word_embeddings=False, max_position_embeddings=4096, norm_topk_prob=True,
    sliding_window=WINDOW, layer_types=[SW, FA, SW],
    rope_parameters={SW: {"rope_theta": 10000.0, "rope_type": "default"},
                     FA: {"rope_theta": 100000.0, "rope_type": "default"}},
))

_reg("spark2_5", {KV, ROT}, dict(
    model_type="spark2_5", hidden_size=H, intermediate_size=128, num_hidden_layers=3,
    num_attention_heads=4, num_key_value_heads=2, head_dim=16, vocab_size=VOCAB,
    sliding_window=WINDOW, layer_types=[SW, FA, SW], tie_word_embeddings=False,
    rope_parameters={SW: {"rope_theta": 10000.0}, FA: {"rope_theta": 100000.0}},
))

_reg("exaone_moe", {KV, ROT}, dict(
    model_type="exaone_moe", vocab_size=VOCAB, hidden_size=H, intermediate_size=128,
    moe_intermediate_size=32, num_hidden_layers=3, num_attention_heads=4,
    num_key_value_heads=2, head_dim=16, num_experts=4, num_experts_per_tok=2,
    num_shared_experts=1, rms_norm_eps=1e-5, max_position_embeddings=4096,
    sliding_window=WINDOW, layer_types=[SW, FA, SW], is_moe_layer=[False, True, True],
))

_reg("muse_glimmer", {KV, ROT}, dict(
    model_type="muse_glimmer", hidden_size=H, num_hidden_layers=3, intermediate_size=128,
    num_attention_heads=4, num_key_value_heads=2, head_dim=16, vocab_size=VOCAB,
    sliding_window=WINDOW, layer_types=[SW, FA, SW], max_position_embeddings=4096,
))

_reg("step3p5", {KV, ROT}, dict(
    model_type="step3p5", hidden_size=H, num_hidden_layers=3, vocab_size=VOCAB,
    num_attention_heads=4, num_attention_groups=2, head_dim=16, intermediate_size=128,
    sliding_window=WINDOW, layer_types=[SW, FA, SW], moe_num_experts=4, moe_top_k=2,
    moe_intermediate_size=32, share_expert_dim=32, max_position_embeddings=4096,
    attention_other_setting={"num_attention_heads": 2, "num_attention_groups": 1},
))

_reg("afmoe", {KV, ROT}, dict(
    model_type="afmoe", layer_types=[SW, FA, SW], vocab_size=VOCAB, hidden_size=H,
    intermediate_size=128, moe_intermediate_size=32, num_hidden_layers=3,
    num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=4096,
    num_experts=4, num_experts_per_tok=2, num_shared_experts=1, num_dense_layers=1,
    sliding_window=WINDOW,
))

_reg("laguna", {KV, ROT}, dict(
    model_type="laguna", vocab_size=VOCAB, hidden_size=H, intermediate_size=128,
    num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
    max_position_embeddings=4096, sliding_window=WINDOW, layer_types=[SW, FA, SW],
    num_attention_heads_per_layer=[4, 2, 4], num_experts=4, num_experts_per_tok=2,
    moe_intermediate_size=32, shared_expert_intermediate_size=32,
))

_reg("gpt_oss", {KV, ROT}, dict(
    model_type="gpt_oss", num_hidden_layers=3, num_local_experts=4, num_experts_per_tok=2,
    vocab_size=VOCAB, hidden_size=H, intermediate_size=64, head_dim=16,
    num_attention_heads=4, num_key_value_heads=2, sliding_window=WINDOW,
    layer_types=[SW, FA, SW],
))

_reg("mimo_v2_flash", {KV, ROT}, dict(
    model_type="mimo_v2_flash", num_experts_per_tok=2, hybrid_layer_pattern=[1, 0, 1],
    moe_layer_freq=[0, 1, 1], add_swa_attention_sink_bias=True,
    add_full_attention_sink_bias=False, sliding_window_size=WINDOW, vocab_size=VOCAB,
    hidden_size=H, intermediate_size=128, moe_intermediate_size=32, num_hidden_layers=3,
    num_attention_heads=4, num_key_value_heads=2, n_shared_experts=None, n_routed_experts=4,
    routed_scaling_factor=1.0, topk_method="noaux_tc", scoring_func="sigmoid",
    norm_topk_prob=True, n_group=1, topk_group=1, max_position_embeddings=4096,
    layernorm_epsilon=1e-5, rope_theta=10000.0, swa_rope_theta=10000.0,
    swa_num_attention_heads=4, swa_num_key_value_heads=2, head_dim=16, v_head_dim=16,
    swa_head_dim=16, swa_v_head_dim=16, partial_rotary_factor=0.5,
))

_reg("plamo3", {KV, ROT}, dict(
    model_type="plamo3", hidden_size=H, num_hidden_layers=4, num_attention_heads=4,
    num_key_value_heads=2, head_dim=16, max_position_embeddings=4096, window_size=WINDOW,
    sliding_window_pattern=2, intermediate_size=128, vocab_size=VOCAB,
    tie_word_embeddings=False,
))

_reg("gear", {KV, ROT, ARR}, dict(
    model_type="gear", vocab_size=VOCAB, hidden_size=H, intermediate_size=128,
    num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
    rms_norm_eps=1e-6, layer_types=["conv_mixer", SW, FA], sliding_window=WINDOW,
    max_position_embeddings=4096, tie_word_embeddings=False,
))

_reg("gemma4_text", {KV, ROT}, dict(
    model_type="gemma4_text", hidden_size=H, num_hidden_layers=4, intermediate_size=128,
    num_attention_heads=4, head_dim=16, global_head_dim=32, vocab_size=VOCAB,
    vocab_size_per_layer_input=VOCAB, num_key_value_heads=2, num_kv_shared_layers=2,
    hidden_size_per_layer_input=16, sliding_window=WINDOW, layer_types=[SW, FA, SW, FA],
    max_position_embeddings=4096, tie_word_embeddings=False,
))

_reg("gemma3n", {KV, ROT}, dict(
    model_type="gemma3n", text_config=dict(
        model_type="gemma3n_text", hidden_size=H, num_hidden_layers=4,
        intermediate_size=128, num_attention_heads=4, head_dim=16, rms_norm_eps=1e-6,
        vocab_size=VOCAB, num_key_value_heads=2, num_kv_shared_layers=2,
        vocab_size_per_layer_input=VOCAB, sliding_window=WINDOW,
        max_position_embeddings=4096, rope_local_base_freq=10000.0, rope_theta=1000000.0,
        final_logit_softcapping=30.0, layer_types=[SW, FA, SW, FA],
        activation_sparsity_pattern=[0.95, 0.0, 0.0, 0.0], hidden_size_per_layer_input=16,
        altup_num_inputs=4, altup_coef_clip=120.0, altup_correct_scale=True,
        altup_active_idx=0, laurel_rank=8,
    ),
))

_reg("iquestloopcoder", {KV, ROT}, dict(
    model_type="iquestloopcoder", hidden_size=H, num_hidden_layers=2, intermediate_size=128,
    num_attention_heads=4, rms_norm_eps=1e-5, vocab_size=VOCAB, head_dim=16,
    num_key_value_heads=2, loop_num=2, loop_window_size=WINDOW,
))


# --- recurrent / state-space / hybrid families ------------------------------

_reg("mamba", {ARR}, dict(
    model_type="mamba", vocab_size=VOCAB, hidden_size=H, intermediate_size=128,
    state_size=16, num_hidden_layers=2, conv_kernel=4, use_bias=False, use_conv_bias=True,
    time_step_rank=4, tie_word_embeddings=False,
))

_reg("mamba2", {ARR}, dict(
    model_type="mamba2", num_heads=4, head_dim=32, vocab_size=VOCAB, hidden_size=H,
    intermediate_size=128, state_size=16, num_hidden_layers=2, layer_norm_epsilon=1e-5,
    conv_kernel=4, n_groups=1, use_bias=False, use_conv_bias=True,
    tie_word_embeddings=False, time_step_limit=(0.0, float("inf")), time_step_rank=4,
))

_reg("jamba", {KV, ARR}, dict(
    model_type="jamba", hidden_size=H, intermediate_size=128, num_hidden_layers=3,
    num_attention_heads=4, num_key_value_heads=2, attn_layer_offset=1, attn_layer_period=2,
    expert_layer_offset=1, expert_layer_period=2, mamba_d_conv=4, mamba_d_state=16,
    mamba_expand=2, num_experts=4, num_experts_per_tok=2, rms_norm_eps=1e-6,
    max_position_embeddings=4096, vocab_size=VOCAB, tie_word_embeddings=False,
))

_reg("falcon_h1", {CL, KV, ARR}, dict(
    model_type="falcon_h1", head_dim=16, hidden_size=H, intermediate_size=128,
    mamba_chunk_size=8, mamba_d_conv=4, mamba_d_head=32, mamba_d_ssm=128,
    mamba_d_state=16, mamba_expand=2, mamba_n_groups=1, mamba_n_heads=4,
    max_position_embeddings=4096, num_attention_heads=4, num_hidden_layers=2,
    num_key_value_heads=2, rope_theta=10000.0, vocab_size=VOCAB, tie_word_embeddings=False,
))

_reg("granitemoehybrid", {KV, ARR}, dict(
    model_type="granitemoehybrid", vocab_size=VOCAB, hidden_size=H, intermediate_size=32,
    num_hidden_layers=3, max_position_embeddings=4096, num_attention_heads=4,
    num_key_value_heads=2, attention_bias=False, embedding_multiplier=1.0,
    attention_multiplier=0.25, logits_scaling=1.0, residual_multiplier=1.0,
    layer_types=["mamba", "attention", "mamba"], rms_norm_eps=1e-6, num_local_experts=4,
    num_experts_per_tok=2, shared_intermediate_size=64, mamba_n_heads=4, mamba_d_head=32,
    mamba_proj_bias=False, mamba_d_state=16, mamba_d_conv=4, mamba_n_groups=1,
    mamba_conv_bias=True, tie_word_embeddings=False,
))

_reg("nemotron_h", {KV, ARR}, dict(
    model_type="nemotron_h", vocab_size=VOCAB, hidden_size=H, intermediate_size=128,
    max_position_embeddings=4096, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
    attention_bias=False, mamba_num_heads=4, mamba_head_dim=32, mamba_proj_bias=False,
    ssm_state_size=16, conv_kernel=4, n_groups=1, mlp_bias=False, layer_norm_epsilon=1e-5,
    use_bias=False, use_conv_bias=True, hybrid_override_pattern=["M", "*", "-", "M", "E"],
    num_hidden_layers=5, moe_intermediate_size=32, moe_shared_expert_intermediate_size=32,
    n_group=1, n_routed_experts=4, n_shared_experts=1, topk_group=1, num_experts_per_tok=2,
    norm_topk_prob=True, routed_scaling_factor=1.0,
))

_reg("plamo2", {KV, ARR}, dict(
    model_type="plamo2", hidden_size=H, num_hidden_layers=2, num_attention_heads=4,
    num_key_value_heads=2, hidden_size_per_head=16, max_position_embeddings=4096,
    attention_window_size=WINDOW, mamba_d_state=16, mamba_d_conv=4, mamba_num_heads=4,
    mamba_step=2, mamba_chunk_size=8, intermediate_size=128, vocab_size=VOCAB,
    tie_word_embeddings=False,
))

_reg("recurrent_gemma", {ROT, ARR}, dict(
    model_type="recurrent_gemma", attention_bias=False, conv1d_width=4, hidden_size=H,
    intermediate_size=128, logits_soft_cap=30.0, num_attention_heads=4,
    num_hidden_layers=3, num_key_value_heads=1, rms_norm_eps=1e-6, rope_theta=10000.0,
    attention_window_size=WINDOW, vocab_size=VOCAB,
    block_types=["recurrent", "attention", "recurrent"],
))

_reg("rwkv7", {ARR}, dict(
    model_type="rwkv7", vocab_size=VOCAB, hidden_size=H, intermediate_size=128,
    norm_eps=1e-5, head_dim=16, num_hidden_layers=2, a_low_rank_dim=8, v_low_rank_dim=8,
    gate_low_rank_dim=8, decay_low_rank_dim=8,
), zero_std={".x_": 0.5, "k_k": 1.0, "k_a": 0.5, "r_k": 1.0},
    shift={"w_lora.lora.2.bias": -3.0, "g_norm.weight": 1.0})

_reg("lfm2", {KV, ARR}, dict(
    model_type="lfm2", vocab_size=VOCAB, hidden_size=H, num_hidden_layers=3,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
    norm_eps=1e-5, conv_bias=False, conv_L_cache=3, block_dim=H, block_multiple_of=16,
    block_ffn_dim_multiplier=1.0, block_auto_adjust_ff_dim=False, block_ff_dim=128,
    full_attn_idxs=[1],
))

_reg("lfm2_moe", {KV, ARR}, dict(
    model_type="lfm2_moe", vocab_size=VOCAB, hidden_size=H, intermediate_size=128,
    moe_intermediate_size=32, num_hidden_layers=3, num_experts=4, num_experts_per_tok=2,
    norm_topk_prob=True, num_attention_heads=4, num_key_value_heads=2,
    max_position_embeddings=4096, use_expert_bias=True, num_dense_layers=1, norm_eps=1e-5,
    conv_bias=False, conv_L_cache=3, full_attn_idxs=[1],
))

_QWEN_LINEAR = dict(
    hidden_size=H, num_hidden_layers=3, intermediate_size=128, num_attention_heads=4,
    num_key_value_heads=2, head_dim=16, rms_norm_eps=1e-6, vocab_size=VOCAB,
    max_position_embeddings=4096, linear_num_value_heads=4, linear_num_key_heads=2,
    linear_key_head_dim=16, linear_value_head_dim=16, linear_conv_kernel_dim=4,
    full_attention_interval=2, tie_word_embeddings=False,
)

_reg("qwen3_next", {KV, ARR}, dict(
    _QWEN_LINEAR, model_type="qwen3_next", num_experts=4, num_experts_per_tok=2,
    decoder_sparse_step=1, shared_expert_intermediate_size=32, mlp_only_layers=[],
    moe_intermediate_size=32, rope_theta=10000.0, partial_rotary_factor=0.25,
))

_reg("qwen3_5", {KV, ARR}, dict(
    model_type="qwen3_5", text_config=dict(
        _QWEN_LINEAR, model_type="qwen3_5_text",
        rope_parameters={"type": "default", "rope_theta": 10000.0,
                         "partial_rotary_factor": 0.25},
    ),
))

_reg("qwen3_5_moe", {KV, ARR}, dict(
    model_type="qwen3_5_moe", text_config=dict(
        _QWEN_LINEAR, model_type="qwen3_5_moe_text", num_experts=4, num_experts_per_tok=2,
        decoder_sparse_step=1, shared_expert_intermediate_size=32, moe_intermediate_size=32,
        rope_parameters={"type": "default", "rope_theta": 10000.0,
                         "partial_rotary_factor": 0.25},
    ),
))

_reg("kimi_linear", {KV, ARR}, dict(
    model_type="kimi_linear", vocab_size=VOCAB, hidden_size=H, num_hidden_layers=3,
    num_attention_heads=4, num_key_value_heads=4, intermediate_size=128, head_dim=16,
    rope_theta=10000.0, rms_norm_eps=1e-5, model_max_length=4096,
    linear_attn_config={"kda_layers": [1, 3], "num_heads": 4, "head_dim": 16,
                        "short_conv_kernel_size": 4},
    num_experts=4, moe_intermediate_size=32, kv_lora_rank=32, qk_nope_head_dim=16,
    qk_rope_head_dim=8, v_head_dim=16, mla_use_nope=True, num_experts_per_token=2,
    num_shared_experts=1, first_k_dense_replace=1,
))

_reg("kimi_k3", {KV, ARR}, dict(
    model_type="kimi_k3", text_config=dict(
        vocab_size=VOCAB, hidden_size=H, num_hidden_layers=3, num_attention_heads=4,
        num_key_value_heads=4, intermediate_size=128, max_position_embeddings=4096,
        linear_attn_config={"kda_layers": [1, 3], "num_heads": 4, "head_dim": 16,
                            "short_conv_kernel_size": 4},
        q_lora_rank=32, kv_lora_rank=32, qk_nope_head_dim=16, qk_rope_head_dim=8,
        v_head_dim=16, num_experts=4, num_experts_per_token=2, num_shared_experts=1,
        moe_intermediate_size=32, first_k_dense_replace=1, attn_res_block_size=2,
    ),
))

_reg("olmo_hybrid", {KV, ARR}, dict(
    model_type="olmo_hybrid", hidden_size=H, intermediate_size=128, num_hidden_layers=3,
    num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-6, vocab_size=VOCAB,
    max_position_embeddings=4096, linear_num_key_heads=2, linear_num_value_heads=4,
    linear_key_head_dim=16, linear_value_head_dim=16, linear_conv_kernel_dim=4,
    linear_allow_neg_eigval=True, tie_word_embeddings=False, attention_bias=False,
    layer_types=["linear_attention", FA, "linear_attention"],
))

_BAILING_MOE = dict(
    hidden_size=H, intermediate_size=128, moe_intermediate_size=32, num_hidden_layers=3,
    num_attention_heads=4, num_key_value_heads=2, num_experts=4, num_experts_per_tok=2,
    num_shared_experts=1, n_group=1, topk_group=1, first_k_dense_replace=1,
    layer_group_size=2, vocab_size=VOCAB, rms_norm_eps=1e-6, rope_theta=10000.0,
    max_position_embeddings=4096, routed_scaling_factor=1.0, head_dim=16,
)

_reg("bailing_moe_linear", {KV, ARR}, dict(
    _BAILING_MOE, model_type="bailing_moe_linear", group_norm_size=1, norm_topk_prob=True,
))

_reg("bailing_hybrid", {KV, ARR}, dict(
    _BAILING_MOE, model_type="bailing_hybrid", group_norm_size=1, kv_lora_rank=32,
    qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=16, q_lora_rank=32,
))

_reg("bailing_moe_v3", {KV, ARR}, dict(
    _BAILING_MOE, model_type="bailing_moe_v3", moe_shared_expert_intermediate_size=32,
    q_lora_rank=32, kv_lora_rank=32, qk_nope_head_dim=16, qk_rope_head_dim=8,
    v_head_dim=16, short_conv_kernel_size=4,
))

_reg("baichuan_m1", {CL, KV, ROT, ARR}, dict(
    model_type="baichuan_m1", vocab_size=VOCAB, hidden_size=H, intermediate_size=128,
    num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=2, rope_theta=10000.0,
    sliding_window=WINDOW, sliding_window_layers=[0, 2], conv_window=2, rms_norm_eps=1e-6,
    num_swa_attention_heads=4, num_swa_key_value_heads=2,
))

# --- chunked / sparse-indexer / multi-cache-per-layer families --------------

_reg("llama4", {KV, CHK}, dict(
    model_type="llama4", text_config=dict(
        model_type="llama4_text", attention_bias=False, attention_chunk_size=CHUNK,
        head_dim=16, hidden_size=H, interleave_moe_layer_step=2, intermediate_size=64,
        intermediate_size_mlp=128, max_position_embeddings=4096, num_attention_heads=4,
        num_experts_per_tok=1, num_hidden_layers=4, num_key_value_heads=2,
        num_local_experts=4, rms_norm_eps=1e-5, rope_scaling=None, rope_theta=10000.0,
        use_qk_norm=True, vocab_size=VOCAB,
    ),
))

_DSA = dict(
    vocab_size=VOCAB, hidden_size=H, index_head_dim=16, index_n_heads=2,
    index_topk=WINDOW, intermediate_size=128, moe_intermediate_size=32,
    num_hidden_layers=3, num_attention_heads=4, num_key_value_heads=4, n_shared_experts=1,
    n_routed_experts=4, routed_scaling_factor=1.0, kv_lora_rank=32, q_lora_rank=32,
    qk_rope_head_dim=8, v_head_dim=16, qk_nope_head_dim=16, topk_method="noaux_tc",
    scoring_func="sigmoid", norm_topk_prob=True, n_group=1, topk_group=1,
    num_experts_per_tok=2, moe_layer_freq=1, first_k_dense_replace=1,
    max_position_embeddings=4096, rms_norm_eps=1e-6, attention_bias=False,
)

_reg("deepseek_v32", {CL, KV}, dict(_DSA, model_type="deepseek_v32", rope_theta=10000.0))

_reg("glm_moe_dsa", {CL, KV}, dict(
    _DSA, model_type="glm_moe_dsa", rope_parameters={"rope_theta": 10000.0, "type": "default"},
))

_LONGCAT = dict(
    hidden_size=H, ffn_hidden_size=128, moe_topk=2, expert_ffn_hidden_size=32,
    n_routed_experts=4, zero_expert_num=2, num_layers=2, vocab_size=VOCAB,
    max_position_embeddings=4096, num_attention_heads=4, kv_lora_rank=16, q_lora_rank=16,
    qk_rope_head_dim=8, qk_nope_head_dim=16, v_head_dim=16, routed_scaling_factor=1.0,
    rms_norm_eps=1e-5, rope_theta=10000.0, mla_scale_q_lora=True, mla_scale_kv_lora=True,
    attention_bias=False, zero_expert_type="identity",
)

_reg("longcat_flash", {CL, KV}, dict(_LONGCAT, model_type="longcat_flash",
                                     attention_method="MLA"), gain=3.0)

_reg("longcat_flash_ngram", {CL, KV, ARR}, dict(
    _LONGCAT, model_type="longcat_flash_ngram", ngram_vocab_size_ratio=4,
    emb_neighbor_num=3, emb_split_num=2,
))

_reg("minimax_m3_vl", {CL, KV}, dict(
    model_type="minimax_m3_vl", text_config=dict(
        hidden_size=H, intermediate_size=32, dense_intermediate_size=128,
        shared_intermediate_size=32, num_attention_heads=4, num_key_value_heads=2,
        num_hidden_layers=3, num_local_experts=4, num_experts_per_tok=2,
        max_position_embeddings=4096, rope_theta=10000.0, head_dim=16,
        vocab_size=VOCAB, mlp_layer_types=["dense", "sparse", "sparse"],
        layer_types=[FA, "sparse_attention", "sparse_attention"], index_n_heads=2,
        index_head_dim=16, index_block_size=4, index_topk_blocks=2, index_local_blocks=1,
    ),
))

_reg("deepseek_v41", {"LayerCache"}, dict(
    # Both layers keep the sliding window and compress every 4 tokens; layer 0 also
    # indexes (top-4 compressed groups) and layer 1 reuses its selection.
    model_type="deepseek_v41", vocab_size=VOCAB, hidden_size=H, num_hidden_layers=2,
    num_attention_heads=4, head_dim=32, q_lora_rank=32, qk_rope_head_dim=8, o_groups=2,
    o_lora_rank=16, moe_intermediate_size=32, n_routed_experts=4, num_experts_per_tok=2,
    rms_norm_eps=1e-6, sliding_window=WINDOW, compress_ratios=(4, 4),
    kv_source_layer_ids=(0, 1), index_source_layer_ids=(0,), index_n_heads=2,
    index_head_dim=16, index_topk=4, max_position_embeddings=4096, hc_mult=2,
    hc_sinkhorn_iters=3,
))

# --- wrappers: vision-language models driven text-only ----------------------

_reg("gemma3", {KV, ROT}, dict(
    model_type="gemma3", vocab_size=VOCAB, text_config=dict(
        ARCHS["gemma3_text"], model_type="gemma3_text",
    ),
))

_reg("gemma4", {KV, ROT}, dict(
    model_type="gemma4", vocab_size=VOCAB, text_config=dict(
        ARCHS["gemma4_text"], model_type="gemma4_text",
    ),
))

_reg("lfm2_vl", {KV, ARR}, dict(
    model_type="lfm2-vl", text_config=dict(ARCHS["lfm2"], model_type="lfm2"),
))

# mistral3 has no make_cache: its ministral3 sliding layers get plain KVCaches
# and the window is enforced by the attention mask alone.
_reg("mistral3_sliding", {KV}, dict(
    model_type="mistral3", text_config=dict(ARCHS["ministral3"]),
))

# --- QuantizedKVCache: no make_cache returns it; generate_step(kv_bits=...) swaps
# every KVCache for one (RotatingKVCache cannot be quantized: NYI in mlx-lm).
# head_dim 32 because mx.quantize needs group size 32/64/128 dividing it.
QUANTIZED_KV = {"kv_bits": 8, "kv_group_size": 32, "quantized_kv_start": 0}
QKV = "QuantizedKVCache"

_reg("llama_qkv", {QKV}, dict(
    model_type="llama", hidden_size=H, num_hidden_layers=2, intermediate_size=128,
    num_attention_heads=2, num_key_value_heads=1, head_dim=32, rms_norm_eps=1e-5,
    vocab_size=VOCAB, tie_word_embeddings=False,
), oracle_kwargs=QUANTIZED_KV)

_reg("qwen3_next_qkv", {QKV, ARR}, dict(
    ARCHS["qwen3_next"], num_attention_heads=2, num_key_value_heads=1, head_dim=32,
), oracle_kwargs=QUANTIZED_KV)

# --- plain KVCache, but not one cache per model.layers entry ----------------

_reg("afm7", {KV}, dict(
    model_type="afm7", vocab_size=VOCAB, hidden_dim=H, num_layers=3,
    num_kv_reuse_layers=1, num_heads=4, num_kv_heads=2,
))

_reg("nanbeige", {KV}, dict(
    model_type="nanbeige", hidden_size=H, num_hidden_layers=2, intermediate_size=128,
    num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-6, vocab_size=VOCAB,
    num_loops=2,
))

_NAS_ATTN = {"n_heads_in_group": 2, "no_op": False, "replace_with_linear": False}
_NAS_FFN = {"ffn_mult": 1.0, "no_op": False, "replace_with_linear": False}
_reg("nemotron_nas", {KV}, dict(
    model_type="nemotron-nas", hidden_size=H, num_hidden_layers=4, num_attention_heads=4,
    rms_norm_eps=1e-5, vocab_size=VOCAB, block_configs=[
        {"attention": _NAS_ATTN, "ffn": _NAS_FFN},
        {"attention": {"no_op": True}, "ffn": _NAS_FFN},
        {"attention": {"replace_with_linear": True}, "ffn": _NAS_FFN},
        {"attention": _NAS_ATTN, "ffn": _NAS_FFN},
    ],
))

# Not in ARCHS (see UNSUPPORTED): the config that would be used on a Metal machine.
MUSE_SPARK_CFG = dict(
    model_type="muse_spark", text_config=dict(
        hidden_size=H, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
        num_hidden_layers=3, vocab_size=VOCAB, rms_norm_eps=1e-5, post_norm_eps=1e-8,
        rope_parameters={"rope_theta": 10000.0}, layer_rope_theta=[10000.0, 0, 10000.0],
        layer_types=[SW, FA, SW], sliding_window=WINDOW, final_logit_softcapping=30.0,
        output_multiplier=1.0, num_local_experts=4, num_experts_per_tok=2,
        moe_hidden_size=32, moe_intermediate_size=32,
    ),
)

# Drafter noise per arch, calibrated so drafter_of(build(name)) agrees with the
# target on ~80% of teacher-forced greedy tokens (scripts/arch_survey.py reports it).
# Discrete routing (MoE top-k, DSA/indexer top-k, afm7's fake-quantised KV) makes
# some archs far more sensitive, hence the spread.
DRAFT_NOISE: dict[str, float] = {
    "llama_sliding": 0.03,
    "ministral3": 0.03,
    "gemma3_text": 0.015,
    "cohere2": 0.03,
    "exaone4": 0.03,
    "olmo3": 0.03,
    "mellum": 0.02,
    "spark2_5": 0.02,
    "exaone_moe": 0.015,
    "muse_glimmer": 0.015,
    "step3p5": 0.01,
    "afmoe": 0.02,
    "laguna": 0.01,
    "gpt_oss": 0.0075,
    "mimo_v2_flash": 0.02,
    "plamo3": 0.015,
    "gear": 0.03,
    "gemma4_text": 0.01,
    "gemma3n": 0.03,
    "iquestloopcoder": 0.02,
    "mamba": 0.03,
    "mamba2": 0.02,
    "jamba": 0.0075,
    "falcon_h1": 0.01,
    "granitemoehybrid": 0.015,
    "nemotron_h": 0.015,
    "plamo2": 0.05,
    "recurrent_gemma": 0.015,
    "rwkv7": 0.015,
    "lfm2": 0.02,
    "lfm2_moe": 0.02,
    "qwen3_next": 0.0075,
    "qwen3_5": 0.02,
    "qwen3_5_moe": 0.002,
    "kimi_linear": 0.01,
    "kimi_k3": 0.0075,
    "olmo_hybrid": 0.01,
    "bailing_moe_linear": 0.03,
    "bailing_hybrid": 0.015,
    "bailing_moe_v3": 0.02,
    "baichuan_m1": 0.03,
    "llama4": 0.015,
    "deepseek_v32": 0.001,
    "glm_moe_dsa": 0.0005,
    "longcat_flash": 0.003,
    "longcat_flash_ngram": 0.0075,
    "minimax_m3_vl": 0.02,
    "deepseek_v41": 0.005,
    "gemma3": 0.015,
    "gemma4": 0.01,
    "lfm2_vl": 0.02,
    "mistral3_sliding": 0.03,
    "afm7": 0.0005,
    "nanbeige": 0.015,
    "nemotron_nas": 0.015,
    "llama_qkv": 0.03,
    "qwen3_next_qkv": 0.0075,
}
for _n, _z in DRAFT_NOISE.items():
    KNOBS.setdefault(_n, {}).setdefault("noise", _z)

# Archs where mlx-lm itself is not invariant to how tokens are split into
# calls (prefill of n vs n-1 + 1, or verifying k tokens at once vs one by one).
# An exact speculative engine cannot match generate_step token for token here.
KNOWN_ISSUES: dict[str, str] = {
    "plamo3": "sliding layers mask with window_size + 1 keys on multi-token calls "
    "(Plamo3Decoder: create_attention_mask(..., window_size=self.window_size + 1)) but "
    "their RotatingKVCache(max_size=window_size) holds window_size keys for 1-token "
    "decode, so results depend on call chunking (prompt prefill included)",
}

# How the caches are used, beyond "layers[i] gets cache[i]" (read from the mlx-lm
# 0.32.2 sources; scripts/arch_survey.py prints the measured caller map).
CACHE_NOTES: dict[str, str] = {
    "mistral3_sliding": "no make_cache: sliding layers get plain KVCache; the window is "
    "only in the attention mask (create_attention_mask(..., window_size))",
    "plamo2": "attention layers get plain KVCache even where the config has a window "
    "(TODO in mlx-lm); mamba layers ArraysCache(2) = [conv state, ssm state]",
    "llama4": "ChunkedKVCache(attention_chunk_size) on layers with (i+1) % 4 != 0, KVCache "
    "on every 4th",
    "gemma3n": "KV-shared layers (last num_kv_shared_layers) receive the cache object of the "
    "last non-shared layer of the same type: one object passed to two layers",
    "gemma4_text": "only the first num_hidden_layers - num_kv_shared_layers layers have a "
    "cache; shared layers get (keys, values) arrays of an earlier layer via shared_kv",
    "gemma4": "as gemma4_text",
    "iquestloopcoder": "2n caches: the model's own code calls cache[i].update_and_fetch "
    "(KVCache, loop 1) and cache[n+i].update_and_fetch (RotatingKVCache(loop_window_size), "
    "loop 2) for layers[i]; loop 2 also attends to loop 1's keys of the same call",
    "nanbeige": "num_loops * n KVCaches: layers[i] gets cache[i] in loop 0, cache[n+i] in "
    "loop 1 (shared weights)",
    "afm7": "one KVCache per model.layers; model.kv_reuse_layers get no cache and attend to "
    "cache[-1].keys_and_values(), read by the model code after the main layers",
    "nemotron_nas": "no cache for layers whose attention is no_op; a replace_with_linear "
    "attention still receives (and ignores) its KVCache",
    "nemotron_h": "caches only for 'M' (ArraysCache) and '*' (KVCache) blocks, in layer "
    "order; '-' and 'E' blocks get None",
    "falcon_h1": "every layer is a parallel hybrid: CacheList(ArraysCache(2) for mamba, "
    "KVCache for attention)",
    "baichuan_m1": "CacheList(ArraysCache(2) = last k/v row for the key/value conv, "
    "KVCache or RotatingKVCache) used inside self_attn",
    "deepseek_v32": "CacheList(KVCache for the MLA latent + rope key, KVCache for the "
    "indexer keys); index_topk = WINDOW so attention is sparse past 8 tokens",
    "glm_moe_dsa": "as deepseek_v32",
    "minimax_m3_vl": "CacheList(KVCache) on dense layers, CacheList(KVCache, KVCache for "
    "index keys) on block-sparse layers",
    "longcat_flash": "CacheList(KVCache, KVCache) per layer, one per attention sublayer "
    "(self_attn.0 / self_attn.1)",
    "longcat_flash_ngram": "cache[0] = ArraysCache(1) holding the last n-1 token ids for "
    "model.ngram_embeddings; cache[1:] as longcat_flash",
    "deepseek_v41": "custom LayerCache per layer: sliding window rows + compressed KV groups "
    "+ index keys + the open group's pending rows; not trimmable (is_trimmable False). "
    "Layers also pass state to later layers outside the cache (a per-call 'shared' dict: "
    "here layer 1 reuses layer 0's top-k index selection)",
    "rwkv7": "ArraysCache(3) = [time-mix token shift, wkv state, channel-mix token shift]; "
    "the same object is passed to layer.attn and layer.ffn",
    "gear": "conv_mixer layers: ArraysCache(2) = key/value conv states; sliding layers "
    "RotatingKVCache; full layers KVCache",
    "recurrent_gemma": "recurrent blocks: ArraysCache(2) = [conv state, RG-LRU state]; "
    "attention blocks RotatingKVCache(attention_window_size) (no full attention)",
    "lfm2": "conv layers: ArraysCache(1) = short-conv state",
}

# ---------------------------------------------------------------------------
# END OF REGISTRY
# ---------------------------------------------------------------------------

UNSUPPORTED: dict[str, str] = {
    "muse_spark": "every attention layer calls Metal-only fused kernels "
    "(mlx_lm.kernels.qk_norm_rope / qk_norm / norm_add_norm ...): no CPU or CUDA path",
    "prism_hadamard_qwen35": "2-bit Hadamard-packed qwen3_5 checkpoint format (needs "
    "packed uint32 weights, widths divisible by 128); caches and call path are "
    "qwen3_5's, covered by 'qwen3_5'",
}


def _classes(cfg: dict):
    from mlx_lm.utils import _get_classes

    return _get_classes(cfg)


def _float(a) -> bool:
    return isinstance(a, mx.array) and mx.issubdtype(a.dtype, mx.floating)


def _matrix_owners():
    from mlx_lm.models.mla import MultiLinear
    from mlx_lm.models.switch_layers import SwitchLinear

    return (nn.Linear, nn.Embedding, nn.Conv1d, SwitchLinear, MultiLinear)


def _reinit(model: nn.Module, name: str, seed: int) -> None:
    """Make weights deterministic, fp32 and lively.

    Construction already ran under ``mx.random.seed(seed)``.  On top of that:

    * weight matrices of Linear/Embedding/Conv1d/SwitchLinear/MultiLinear
      modules that mlx-lm initialises to a constant get a seeded normal
      init (std 1/sqrt(fan_in));
    * every other constant parameter (zero biases, routers, token-shift and
      gate vectors, ones in norms) gets seeded noise of 10% of |value|, or of
      absolute std 0.1 around zero (``zero_std`` = {path substring: std}
      overrides), so no path is an exact no-op;
    * parameters whose path contains a ``keep`` substring are left as built;
    * ``shift`` ({path substring: delta}) then adds constants, e.g. to move a
      recurrent decay towards 1 so state carries information for many steps;
    * non-embedding weight matrices are scaled by a per-arch ``gain`` (default
      GAIN) and embeddings by ``embed_gain`` (default 1), so greedy
      continuations depend on context instead of collapsing to one token.
    """
    knobs = KNOBS.get(name, {})
    gain = knobs.get("gain", GAIN)
    embed_gain = knobs.get("embed_gain", 1.0)
    keep = tuple(knobs.get("keep", ()))
    zero_std = knobs.get("zero_std", {})
    shift = {**DEFAULT_SHIFT, **knobs.get("shift", {})}
    owners = _matrix_owners()
    matrices = {}
    for path, mod in model.named_modules():
        if isinstance(mod, owners):
            kind = "embed" if isinstance(mod, nn.Embedding) else (
                "conv" if isinstance(mod, nn.Conv1d) else "linear")
            matrices[(path + "." if path else "") + "weight"] = kind
    flat = tree_flatten(model.parameters())
    keys = mx.random.split(mx.random.key(seed + 7919), max(len(flat), 1))
    new = []
    for (k, p), kk in zip(flat, keys):
        if not _float(p):
            new.append((k, p))
            continue
        p = p.astype(mx.float32)
        if any(s in k for s in keep) or p.size == 0:
            new.append((k, p))
            continue
        constant = mx.min(p).item() == mx.max(p).item()
        if k in matrices:
            if constant:
                fan_in = p.shape[-1] * (p.shape[-2] if matrices[k] == "conv" else 1)
                p = mx.random.normal(p.shape, key=kk) / math.sqrt(fan_in)
            p = p * (embed_gain if matrices[k] == "embed" else gain)
        elif constant:
            c = abs(p.reshape(-1)[0].item())
            std = 0.1 * c if c > 0 else next((v for sub, v in zero_std.items() if sub in k), 0.1)
            p = p + std * mx.random.normal(p.shape, key=kk)
        for sub, delta in shift.items():
            if sub in k:
                p = p + delta
        new.append((k, p))
    model.update(tree_unflatten(new))


def build(name: str, seed: int = 0) -> nn.Module:
    """A tiny, deterministic, fp32 random model of architecture ``name``."""
    if name not in ARCHS:
        raise KeyError(f"unknown arch {name!r} (unsupported: {UNSUPPORTED.get(name)})")
    cfg = copy.deepcopy(ARCHS[name])
    Model, Args = _classes(cfg)
    mx.random.seed(seed)
    model = Model(Args.from_dict(cfg))
    _reinit(model, name, seed)
    model.eval()
    mx.eval(model.parameters())
    object.__setattr__(model, "_arch_name", name)
    object.__setattr__(model, "_arch_seed", seed)
    return model


def arch_name(model: nn.Module) -> str:
    return object.__getattribute__(model, "_arch_name")


def drafter_of(model: nn.Module, noise: float | None = None, seed: int = 1) -> nn.Module:
    """Same architecture; every float weight is the target's plus N(0, noise * rms)."""
    name = arch_name(model)
    if noise is None:
        noise = KNOBS.get(name, {}).get("noise", 0.05)
    draft = build(name, seed=object.__getattribute__(model, "_arch_seed"))
    flat = tree_flatten(model.parameters())
    keys = mx.random.split(mx.random.key(seed), max(len(flat), 1))
    new = []
    for (k, p), kk in zip(flat, keys):
        if _float(p) and p.size:
            rms = mx.sqrt(mx.mean(p * p))
            p = p + noise * rms * mx.random.normal(p.shape, key=kk)
        new.append((k, p))
    draft.update(tree_unflatten(new))
    mx.eval(draft.parameters())
    return draft


def _kinds(c, out: set) -> None:
    from mlx_lm.models.cache import CacheList

    out.add(type(c).__name__)
    if isinstance(c, CacheList):
        for sub in c.caches:
            _kinds(sub, out)


def oracle_kwargs(model: nn.Module) -> dict:
    """generate_step kwargs the arch's oracle uses (QUANTIZED_KV for the *_qkv
    fixtures, else {})."""
    return dict(KNOBS.get(arch_name(model), {}).get("oracle_kwargs", {}))


def make_cache(model: nn.Module) -> list:
    """make_prompt_cache(model), plus the KV quantisation generate_step applies after
    each call for the *_qkv fixtures (call ``after_call`` after every model call)."""
    from mlx_lm.models.cache import make_prompt_cache

    return make_prompt_cache(model)


def after_call(model: nn.Module, cache: list) -> None:
    """What generate_step does to the cache after each model call: for kv_bits
    fixtures, swap KVCaches that reached quantized_kv_start for QuantizedKVCaches."""
    kw = oracle_kwargs(model)
    if kw.get("kv_bits") is not None:
        from mlx_lm.generate import maybe_quantize_kv_cache

        maybe_quantize_kv_cache(
            cache, kw.get("quantized_kv_start", 0), kw.get("kv_group_size", 64), kw["kv_bits"]
        )


def cache_kinds(model: nn.Module) -> set[str]:
    """Cache class names in use once generation runs (CacheList recursed): those of
    make_prompt_cache(model), after the oracle's KV quantisation if any."""
    cache = make_cache(model)
    if oracle_kwargs(model).get("kv_bits") is not None:
        model(mx.array([[1, 2]], dtype=mx.int32), cache=cache)
        after_call(model, cache)
    out: set[str] = set()
    for c in cache:
        _kinds(c, out)
    return out


def oracle_greedy(model: nn.Module, prompt_ids, n: int, **gen_kwargs) -> list[int]:
    """mlx-lm's own greedy continuation: ``generate_step`` with an argmax sampler.

    Extra keyword arguments go to ``generate_step``; the arch's own
    ``oracle_kwargs`` (QUANTIZED_KV for the *_qkv fixtures) apply by default.
    """
    from mlx_lm.generate import generate_step

    kwargs = {**oracle_kwargs(model), **gen_kwargs}
    prompt = mx.array(list(prompt_ids), dtype=mx.int32)
    out = []
    gen = generate_step(
        prompt, model, max_tokens=n, sampler=lambda x: mx.argmax(x, axis=-1), **kwargs
    )
    for tok, _ in gen:
        out.append(int(tok))
    return out


PROMPT = [17, 200, 3, 99, 45, 128, 7, 250, 64, 33, 180, 5]  # fixed 12-token prompt


def stepwise_argmax(model: nn.Module, prompt_ids, tokens, chunk: int = 1) -> list[int]:
    """Teacher-forced greedy predictions with a fresh cache.

    Prefills ``prompt_ids`` in one call, then feeds ``tokens`` ``chunk`` at a
    time (the way a verifier feeds drafts).  Returns ``len(tokens)`` argmaxes:
    the prediction after the prompt, then after each fed token but the last.
    With ``tokens = oracle_greedy(...)`` an arch that is invariant to call
    chunking returns ``tokens`` itself.
    """
    tokens = list(tokens)
    cache = make_cache(model)
    logits = model(mx.array([list(prompt_ids)], dtype=mx.int32), cache=cache)
    after_call(model, cache)
    out = [mx.argmax(logits[0, -1]).item()]
    i = 0
    while len(out) < len(tokens):
        part = tokens[i : i + chunk]
        logits = model(mx.array([part], dtype=mx.int32), cache=cache)
        after_call(model, cache)
        out += mx.argmax(logits[0], axis=-1).tolist()
        i += chunk
    return out[: len(tokens)]


def agreement(target: nn.Module, drafter: nn.Module, prompt_ids=PROMPT, n: int = 48) -> float:
    """Fraction of the target's n greedy positions where the drafter, teacher-forced
    on the target's continuation, predicts the same token as the target does."""
    ref = oracle_greedy(target, prompt_ids, n)
    mine = stepwise_argmax(target, prompt_ids, ref)
    theirs = stepwise_argmax(drafter, prompt_ids, ref)
    return sum(a == b for a, b in zip(mine, theirs)) / n


def caller_map(model: nn.Module, prompt_ids=(1, 2, 3, 4, 5), steps: int = 2) -> dict[str, list[str]]:
    """Which modules receive each cache object (by identity) as a call argument.

    Keys are top-level cache indices ("0", "1", ...) and, for CacheList
    entries, their children ("3.0", "3.1").  Values list the receivers in
    first-call order (so outermost first): a module path for ``__call__``, or
    ``path.method()`` for any other method defined on a module class in the
    tree (e.g. iquestloopcoder's ``self_attn.attention``).  A cache passed
    inside a short tuple/list is marked "(in a tuple)".  An empty list means
    the object is only touched by the Model's own code (never passed to a
    module).  Runs a short prefill plus ``steps`` decode steps with the
    module classes' methods temporarily wrapped.
    """
    import inspect

    from mlx_lm.models.cache import CacheList, make_prompt_cache

    cache = make_prompt_cache(model)
    index: dict[int, str] = {}
    for i, c in enumerate(cache):
        index[id(c)] = str(i)
        if isinstance(c, CacheList):
            for j, sub in enumerate(c.caches):
                index[id(sub)] = f"{i}.{j}"
    paths = {id(m): (p or "<model>") for p, m in model.named_modules()}
    seen: dict[str, list[str]] = {label: [] for label in index.values()}
    classes = {type(m) for _, m in model.named_modules()}

    def note(label: str, where: str) -> None:
        if where not in seen[label]:
            seen[label].append(where)

    def record(self, method, args, kwargs):
        where = paths.get(id(self), type(self).__name__)
        if method != "__call__":
            where += f".{method}()"
        for v in list(args) + list(kwargs.values()):
            label = index.get(id(v))
            if label is not None:
                note(label, where)
            elif isinstance(v, (list, tuple)) and 0 < len(v) < len(cache):
                for e in v:
                    label = index.get(id(e))
                    if label is not None:
                        note(label, where + " (in a tuple)")

    patched = []
    for cls in classes:
        names = {"__call__"} | {
            n for klass in cls.__mro__ if klass.__module__.startswith("mlx_lm")
            for n, f in vars(klass).items()
            if inspect.isfunction(f) and not n.startswith("__")
        }
        for n in names:
            orig = getattr(cls, n)
            if not callable(orig):
                continue

            def wrapper(self, *args, __orig=orig, __n=n, **kwargs):
                record(self, __n, args, kwargs)
                return __orig(self, *args, **kwargs)

            own = n in cls.__dict__
            setattr(cls, n, wrapper)
            patched.append((cls, n, orig, own))
    try:
        x = mx.array([list(prompt_ids)], dtype=mx.int32)
        logits = model(x, cache=cache)
        for _ in range(steps):
            tok = mx.argmax(logits[:, -1:], axis=-1).astype(mx.int32)
            logits = model(tok, cache=cache)
        mx.eval(logits)
    finally:
        for cls, n, orig, own in reversed(patched):
            if own:
                setattr(cls, n, orig)
            else:
                delattr(cls, n)
    return seen
