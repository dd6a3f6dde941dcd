"""StoryLM: a small llama-style decoder for the speculative-decoding ladder.

Pre-norm (RMSNorm) blocks, rotary positions, a SwiGLU MLP, tied input/output
embeddings and no biases. SwiGLU rather than GELU because it is what the
llama family (and mlx-lm's llama.py, which this file mirrors) uses, and at an
equal parameter count (hidden = 8/3 * dim, three matrices) it trains to a
lower loss than a 4x GELU MLP.

The module follows the mlx-lm model protocol so mlx-lm's generators drive it
unmodified: `model(ids, cache)` -> logits (B, T, V), `model.layers`,
`model.make_cache()` -> one `KVCache` per layer. Attention takes its RoPE
offset from `cache.offset` and appends through `cache.update_and_fetch`, so a
trimmed cache (speculative rollback) re-uses the same positions. The final
normed hidden states are `model.model(ids, cache)` and the output projection
is `model.model.embed_tokens.as_linear`: the MTP head builds on both.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any, Optional

import mlx.core as mx
import mlx.nn as nn
from mlx.utils import tree_flatten, tree_unflatten
from mlx_lm.models.base import create_attention_mask, scaled_dot_product_attention
from mlx_lm.models.cache import KVCache

from ..errors import ModelLoadError, SpecDecError


@dataclass
class StoryLMConfig:
    vocab_size: int = 4096
    dim: int = 128
    n_layers: int = 4
    n_heads: int = 4
    hidden_dim: int = 352
    max_seq_len: int = 512
    rope_theta: float = 10000.0
    norm_eps: float = 1e-5

    def __post_init__(self):
        if self.dim % self.n_heads:
            raise ModelLoadError(f"StoryLM dim={self.dim} is not divisible by n_heads={self.n_heads}")

    @property
    def head_dim(self) -> int:
        return self.dim // self.n_heads

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "StoryLMConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ModelLoadError(f"unknown StoryLM config keys {unknown}; expected a subset of {sorted(known)}")
        return cls(**d)


# Parameter targets (tied embedding counted once): 1.25M, 5.5M, 29M at vocab 4096.
# SwiGLU hidden sizes are ~8/3 * dim rounded up to a multiple of 16.
PRESETS: dict[str, StoryLMConfig] = {
    "storylm-tiny": StoryLMConfig(dim=32, n_layers=2, n_heads=2, hidden_dim=96, max_seq_len=128),
    "storylm-1m": StoryLMConfig(dim=128, n_layers=4, n_heads=4, hidden_dim=352),
    "storylm-5m": StoryLMConfig(dim=256, n_layers=6, n_heads=8, hidden_dim=688),
    "storylm-30m": StoryLMConfig(dim=512, n_layers=9, n_heads=8, hidden_dim=1376),
}


def preset(name: str, **overrides) -> StoryLMConfig:
    if name not in PRESETS:
        raise SpecDecError(f"unknown StoryLM preset {name!r}; expected one of {sorted(PRESETS)}")
    return StoryLMConfig(**{**PRESETS[name].to_dict(), **overrides})


class Attention(nn.Module):
    def __init__(self, args: StoryLMConfig):
        super().__init__()
        self.n_heads = args.n_heads
        self.scale = args.head_dim**-0.5
        self.q_proj = nn.Linear(args.dim, args.dim, bias=False)
        self.k_proj = nn.Linear(args.dim, args.dim, bias=False)
        self.v_proj = nn.Linear(args.dim, args.dim, bias=False)
        self.o_proj = nn.Linear(args.dim, args.dim, bias=False)
        self.rope = nn.RoPE(args.head_dim, traditional=False, base=args.rope_theta)

    def __call__(self, x: mx.array, mask=None, cache: Optional[Any] = None) -> mx.array:
        B, L, _ = x.shape
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        q = q.reshape(B, L, self.n_heads, -1).transpose(0, 2, 1, 3)
        k = k.reshape(B, L, self.n_heads, -1).transpose(0, 2, 1, 3)
        v = v.reshape(B, L, self.n_heads, -1).transpose(0, 2, 1, 3)
        if cache is not None:
            # Positions continue from the committed length; after a rollback
            # (cache.trim) the re-fed tokens get the same positions again.
            q = self.rope(q, offset=cache.offset)
            k = self.rope(k, offset=cache.offset)
            k, v = cache.update_and_fetch(k, v)
        else:
            q, k = self.rope(q), self.rope(k)
        out = scaled_dot_product_attention(q, k, v, cache=cache, scale=self.scale, mask=mask)
        return self.o_proj(out.transpose(0, 2, 1, 3).reshape(B, L, -1))


class MLP(nn.Module):
    def __init__(self, args: StoryLMConfig):
        super().__init__()
        self.gate_proj = nn.Linear(args.dim, args.hidden_dim, bias=False)
        self.up_proj = nn.Linear(args.dim, args.hidden_dim, bias=False)
        self.down_proj = nn.Linear(args.hidden_dim, args.dim, bias=False)

    def __call__(self, x: mx.array) -> mx.array:
        return self.down_proj(nn.silu(self.gate_proj(x)) * self.up_proj(x))


class TransformerBlock(nn.Module):
    def __init__(self, args: StoryLMConfig):
        super().__init__()
        self.self_attn = Attention(args)
        self.mlp = MLP(args)
        self.input_layernorm = nn.RMSNorm(args.dim, eps=args.norm_eps)
        self.post_attention_layernorm = nn.RMSNorm(args.dim, eps=args.norm_eps)

    def __call__(self, x: mx.array, mask=None, cache=None) -> mx.array:
        h = x + self.self_attn(self.input_layernorm(x), mask, cache)
        return h + self.mlp(self.post_attention_layernorm(h))


class StoryLMTrunk(nn.Module):
    """Embedding + blocks + final norm: returns the normed hidden states."""

    def __init__(self, args: StoryLMConfig):
        super().__init__()
        self.embed_tokens = nn.Embedding(args.vocab_size, args.dim)
        self.layers = [TransformerBlock(args) for _ in range(args.n_layers)]
        self.norm = nn.RMSNorm(args.dim, eps=args.norm_eps)

    def __call__(self, inputs: mx.array, cache=None) -> mx.array:
        h = self.embed_tokens(inputs)
        if cache is None:
            cache = [None] * len(self.layers)
        # With a non-empty cache the KVCache builds the mask for a block of T
        # new queries against offset + T keys ("causal" aligned bottom-right),
        # which is exactly what a (k+1)-token verification pass needs.
        mask = create_attention_mask(h, cache[0])
        for layer, c in zip(self.layers, cache):
            h = layer(h, mask, cache=c)
        return self.norm(h)


class StoryLM(nn.Module):
    def __init__(self, args: StoryLMConfig):
        super().__init__()
        self.args = args
        self.model_type = "storylm"
        self.model = StoryLMTrunk(args)

    def __call__(self, inputs: mx.array, cache=None) -> mx.array:
        return self.model.embed_tokens.as_linear(self.model(inputs, cache))

    @property
    def layers(self):
        return self.model.layers

    def make_cache(self):
        return [KVCache() for _ in self.layers]

    def shard(self, group=None):
        """Tensor parallelism over `group` (mx.distributed), as mlx-lm's llama: each rank keeps
        n_heads / N heads and hidden_dim / N MLP rows; o_proj and down_proj sum across ranks.
        The embedding (tied to the output) stays whole on every rank."""
        from mlx.nn.layers.distributed import shard_linear

        group = group or mx.distributed.init()
        n = group.size()
        if self.args.n_heads % n or self.args.hidden_dim % n:
            raise ValueError(f"{self.args.n_heads} heads and an MLP of {self.args.hidden_dim} do not split "
                             f"over {n} processes")
        for layer in self.model.layers:
            attn, mlp = layer.self_attn, layer.mlp
            for name in ("q_proj", "k_proj", "v_proj"):
                setattr(attn, name, shard_linear(getattr(attn, name), "all-to-sharded", group=group))
            attn.o_proj = shard_linear(attn.o_proj, "sharded-to-all", group=group)
            attn.n_heads //= n
            for name in ("gate_proj", "up_proj"):
                setattr(mlp, name, shard_linear(getattr(mlp, name), "all-to-sharded", group=group))
            mlp.down_proj = shard_linear(mlp.down_proj, "sharded-to-all", group=group)

    def sanitize(self, weights: dict) -> dict:
        return weights


def init_weights(model: StoryLM, seed: int = 0) -> StoryLM:
    """nanoGPT initialisation: N(0, 0.02), residual outputs scaled by 1/sqrt(2L).

    The scaled residual projections keep the residual stream's variance from
    growing with depth, so every preset starts near loss ln(V).
    """
    keys = iter(mx.random.split(mx.random.key(seed), 1 + len(tree_flatten(model.parameters()))))
    std = 0.02
    resid_std = std / math.sqrt(2 * model.args.n_layers)
    new = {}
    for name, p in tree_flatten(model.parameters()):
        if name.endswith("norm.weight"):
            continue
        s = resid_std if name.endswith(("o_proj.weight", "down_proj.weight")) else std
        new[name] = mx.random.normal(p.shape, key=next(keys)) * s
    model.update(tree_unflatten(list(new.items())))
    mx.eval(model.parameters())
    return model


def num_parameters(model: nn.Module) -> int:
    return sum(p.size for _, p in tree_flatten(model.parameters()))


def build(config: StoryLMConfig | str, seed: int | None = 0) -> StoryLM:
    """A StoryLM from a config or preset name, initialised when seed is not None."""
    cfg = preset(config) if isinstance(config, str) else config
    model = StoryLM(cfg)
    if seed is not None:
        init_weights(model, seed)
    return model
