"""Throughput of candidate mlx-lm hybrids at ~5M params, vocab 4096, batch 16x256."""
import sys, time, json, importlib
from functools import partial
import mlx_specdec  # binds OpenBLAS
import mlx.core as mx, mlx.nn as nn, mlx.optimizers as optim
from mlx.utils import tree_flatten
import numpy as np

V, D = 4096, 256
CFG = {
 "lfm2": dict(model_type="lfm2", vocab_size=V, hidden_size=D, num_hidden_layers=6, num_attention_heads=8,
   num_key_value_heads=8, max_position_embeddings=512, norm_eps=1e-5, conv_bias=False, conv_L_cache=3,
   block_dim=D, block_multiple_of=16, block_ffn_dim_multiplier=None, block_auto_adjust_ff_dim=False,
   block_ff_dim=688, rope_theta=10000.0,
   layer_types=["conv","conv","full_attention","conv","conv","full_attention"]),
 "qwen3_next": dict(model_type="qwen3_next", hidden_size=D, num_hidden_layers=6, intermediate_size=688,
   num_attention_heads=8, linear_num_value_heads=8, linear_num_key_heads=4, linear_key_head_dim=32,
   linear_value_head_dim=32, linear_conv_kernel_dim=4, num_experts=0, num_experts_per_tok=1,
   decoder_sparse_step=1, shared_expert_intermediate_size=0, mlp_only_layers=[], moe_intermediate_size=0,
   rms_norm_eps=1e-5, vocab_size=V, num_key_value_heads=8, rope_theta=10000.0, partial_rotary_factor=0.25,
   max_position_embeddings=512, head_dim=32, tie_word_embeddings=True, full_attention_interval=3),
 "nemotron_h": dict(model_type="nemotron_h", vocab_size=V, hidden_size=D, intermediate_size=1024,
   max_position_embeddings=512, num_attention_heads=8, num_key_value_heads=8, attention_bias=False,
   mamba_num_heads=8, mamba_head_dim=32, mamba_proj_bias=False, ssm_state_size=32, conv_kernel=4, n_groups=1,
   mlp_bias=False, layer_norm_epsilon=1e-5, use_bias=False, use_conv_bias=True, head_dim=32,
   hybrid_override_pattern=list("M-M*-M-M*-"), tie_word_embeddings=True),
 "granitemoehybrid": dict(model_type="granitemoehybrid", vocab_size=V, hidden_size=D, intermediate_size=688,
   num_hidden_layers=6, max_position_embeddings=512, num_attention_heads=8, num_key_value_heads=8,
   attention_bias=False, embedding_multiplier=1.0, attention_multiplier=32**-0.5, logits_scaling=1.0,
   residual_multiplier=1.0, layer_types=["mamba","mamba","attention","mamba","mamba","attention"],
   rms_norm_eps=1e-5, shared_intermediate_size=688, mamba_n_heads=8, mamba_d_head=32, mamba_proj_bias=False,
   mamba_d_state=32, mamba_d_conv=4, mamba_n_groups=1, mamba_conv_bias=True, position_embedding_type="rope"),
}

def build(name):
    if name == "storylm":
        from mlx_specdec.models.storylm import build as b; return b("storylm-5m")
    cfg = CFG[name]
    mod = importlib.import_module(f"mlx_lm.models.{cfg['model_type']}")
    args = mod.ModelArgs.from_dict(cfg)
    m = mod.Model(args); mx.eval(m.parameters()); return m

def run(name, steps=6):
    m = build(name)
    n = sum(p.size for _, p in tree_flatten(m.parameters()))
    opt = optim.AdamW(learning_rate=1e-3); opt.init(m.trainable_parameters())
    def loss_fn(model, x, y): return nn.losses.cross_entropy(model(x), y, reduction="mean")
    state = [m.state, opt.state]
    @partial(mx.compile, inputs=state, outputs=state)
    def step(x, y):
        loss, g = nn.value_and_grad(m, loss_fn)(m, x, y)
        g, _ = optim.clip_grad_norm(g, 1.0); opt.update(m, g); return loss
    x = mx.array(np.random.randint(0, V, (16, 257)).astype(np.int32))
    res = dict(arch=name, params=n)
    try:
        t0 = time.perf_counter(); l = step(x[:, :-1], x[:, 1:]); mx.eval(state, l); res["compile_s"] = round(time.perf_counter() - t0, 1)
        t0 = time.perf_counter()
        for _ in range(steps): l = step(x[:, :-1], x[:, 1:]); mx.eval(state, l)
        res["train_tok_s"] = round(steps * 16 * 256 / (time.perf_counter() - t0))
    except Exception as e:
        res["train_err"] = f"{type(e).__name__}: {str(e)[:150]}"
    # plain cached decode
    cache = m.make_cache(); ids = mx.array([[1] * 32])
    lg = m(ids, cache=cache); mx.eval(lg)
    t = mx.array([[5]])
    for _ in range(5): mx.eval(m(t, cache=cache))
    t0 = time.perf_counter()
    for _ in range(50): mx.eval(m(t, cache=cache))
    res["decode_ms"] = round((time.perf_counter() - t0) / 50 * 1000, 2)
    res["caches"] = sorted({type(c).__name__ for c in m.make_cache()})
    print(json.dumps(res), flush=True)

for name in sys.argv[1:]: run(name)
