"""GPT-Neo in MLX: the architecture of the public TinyStories ladder (1M ... 33M).

A port of Hugging Face transformers' GPTNeoForCausalLM, following the mlx-lm
model protocol (`model(ids, cache)` -> logits (B, T, V), `model.layers`,
`model.make_cache()`, `model.sanitize(weights)`). `model.model(ids, cache)`
returns the final-LayerNorm hidden states and the output projection is the
tied embedding, `model.model.wte.as_linear`, as in StoryLM.

What differs from GPT-2 / llama and is easy to get wrong:

- Learned absolute positions (wpe). New tokens take their positions from the
  cache offset, so after a rollback (cache.trim) re-fed tokens get the same
  positions again.
- Layers alternate "global" (plain causal) and "local" attention. A local
  query at position i sees keys j with i - window_size < j <= i: window_size
  keys including itself. (transformers builds it as
  tril(ones) xor tril(ones, -window_size); tests pin the boundary.)
- Attention scores are NOT scaled by 1/sqrt(head_dim), and are computed in
  float32 whatever the weight dtype (the reference does both).
- q, k, v projections have no bias; out_proj and the MLP do. The MLP uses
  "gelu_new", the tanh approximation of GELU.

The local window lives in the attention mask, not in the cache: every layer
keeps its full history in a plain `KVCache`. A rotating window cache would
save memory, but it overwrites old entries, so rolling back a rejected
speculative block would need the overwritten keys back; with the full history
rollback is `cache.trim(n)`, and a multi-token block fed on top of a
non-empty cache just gets the right rows of the windowed mask.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import mlx.core as mx
import mlx.nn as nn
from mlx.utils import tree_unflatten
from mlx_lm.models.base import BaseModelArgs
from mlx_lm.models.cache import KVCache

from ..errors import ModelLoadError, SpecDecError
from .folders import check_weights, compute_dtype, load_safetensors, read_json

CONFIG = "config.json"
WEIGHTS = "model.safetensors"
# The tokenizer files a GPT-2-style hub repo may ship; the converter copies whichever exist.
TOKENIZER_FILES = (
    "tokenizer.json",
    "vocab.json",
    "merges.txt",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
)

ACTIVATIONS = {
    "gelu_new": nn.gelu_approx,  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    "gelu_pytorch_tanh": nn.gelu_approx,
    "gelu": nn.gelu,
    "relu": nn.relu,
    "silu": nn.silu,
}


@dataclass
class ModelArgs(BaseModelArgs):
    """The Hugging Face GPTNeoConfig fields the forward pass needs (same names)."""

    model_type: str = "gpt_neo"
    vocab_size: int = 50257
    hidden_size: int = 768
    num_layers: int = 4
    num_heads: int = 16
    intermediate_size: Optional[int] = None  # None means 4 * hidden_size
    max_position_embeddings: int = 2048
    window_size: int = 256
    attention_types: Optional[list] = None  # [[["global", "local"], n], ...], expanded below
    attention_layers: Optional[list] = None  # the expansion; derived when attention_types is given
    layer_norm_epsilon: float = 1e-5
    activation_function: str = "gelu_new"
    tie_word_embeddings: bool = True
    bos_token_id: Optional[int] = None
    eos_token_id: Optional[Any] = None

    def __post_init__(self):
        # transformers derives attention_layers from attention_types and ignores a stored
        # attention_layers; do the same, falling back to attention_layers when types are absent.
        if self.attention_types is not None:
            try:
                layers = [t for kinds, n in self.attention_types for _ in range(n) for t in kinds]
            except (TypeError, ValueError):
                raise ModelLoadError(
                    f"GPT-Neo attention_types={self.attention_types!r} is malformed; "
                    'expected a list like [[["global", "local"], 2]]'
                ) from None
        elif self.attention_layers is not None:
            layers = list(self.attention_layers)
        else:
            layers = ["global", "local"] * (self.num_layers // 2) + ["global"] * (self.num_layers % 2)
        self.attention_layers = layers
        if len(layers) != self.num_layers:
            raise ModelLoadError(
                f"GPT-Neo attention pattern has {len(layers)} layers but num_layers={self.num_layers}"
            )
        bad = sorted(set(layers) - {"global", "local"})
        if bad:
            raise ModelLoadError(f"GPT-Neo attention type {bad[0]!r} unknown; expected 'global' or 'local'")
        if self.hidden_size % self.num_heads:
            raise ModelLoadError(
                f"GPT-Neo hidden_size={self.hidden_size} is not divisible by num_heads={self.num_heads}"
            )
        if self.activation_function not in ACTIVATIONS:
            raise ModelLoadError(
                f"GPT-Neo activation_function {self.activation_function!r} unsupported; "
                f"expected one of {sorted(ACTIVATIONS)}"
            )
        if self.window_size < 1:
            raise ModelLoadError(f"GPT-Neo window_size={self.window_size}; expected >= 1")

    @property
    def mlp_size(self) -> int:
        return self.intermediate_size or 4 * self.hidden_size

    def to_dict(self) -> dict:
        """The fields a store config.json keeps under "architecture"."""
        keep = (
            "vocab_size hidden_size num_layers num_heads intermediate_size max_position_embeddings "
            "window_size attention_layers layer_norm_epsilon activation_function tie_word_embeddings "
            "bos_token_id eos_token_id"
        ).split()
        return {k: getattr(self, k) for k in keep}


def attention_mask(n_new: int, offset: int, window: Optional[int] = None) -> Optional[mx.array]:
    """Boolean (n_new, offset + n_new) mask for new queries at positions offset .. offset+n_new-1.

    Key j is visible to query i when j <= i and, for a local layer, i - j < window.
    Returns None when every key is visible (a single causal query with no window in play).
    """
    n_keys = offset + n_new
    if n_new == 1 and (window is None or n_keys <= window):
        return None
    q = mx.arange(offset, n_keys)[:, None]
    k = mx.arange(n_keys)[None]
    mask = k <= q
    if window is not None and n_keys > window:
        mask = mask & (q - k < window)
    return mask


class Attention(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        d = args.hidden_size
        self.num_heads = args.num_heads
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, d, bias=False)
        self.v_proj = nn.Linear(d, d, bias=False)
        self.out_proj = nn.Linear(d, d, bias=True)

    def __call__(self, x: mx.array, mask: Optional[mx.array] = None, cache: Optional[Any] = None) -> mx.array:
        B, L, _ = x.shape
        q, k, v = (
            p(x).reshape(B, L, self.num_heads, -1).transpose(0, 2, 1, 3)
            for p in (self.q_proj, self.k_proj, self.v_proj)
        )
        if cache is not None:
            k, v = cache.update_and_fetch(k, v)
        # GPT-Neo does not scale the scores, so they grow with head_dim: keep the
        # attention math in float32 even when the weights are float16.
        f32 = mx.float32
        out = mx.fast.scaled_dot_product_attention(
            q.astype(f32), k.astype(f32), v.astype(f32), scale=1.0, mask=mask
        ).astype(x.dtype)
        return self.out_proj(out.transpose(0, 2, 1, 3).reshape(B, L, -1))


class MLP(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.c_fc = nn.Linear(args.hidden_size, args.mlp_size)
        self.c_proj = nn.Linear(args.mlp_size, args.hidden_size)
        self.act = ACTIVATIONS[args.activation_function]

    def __call__(self, x: mx.array) -> mx.array:
        return self.c_proj(self.act(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, args: ModelArgs, attention_type: str):
        super().__init__()
        self.attention_type = attention_type
        self.ln_1 = nn.LayerNorm(args.hidden_size, eps=args.layer_norm_epsilon)
        self.attn = Attention(args)
        self.ln_2 = nn.LayerNorm(args.hidden_size, eps=args.layer_norm_epsilon)
        self.mlp = MLP(args)

    def __call__(self, x: mx.array, mask=None, cache=None) -> mx.array:
        h = x + self.attn(self.ln_1(x), mask, cache)
        return h + self.mlp(self.ln_2(h))


class GPTNeoModel(nn.Module):
    """Embeddings + blocks + final LayerNorm: returns the normed hidden states (B, T, D)."""

    def __init__(self, args: ModelArgs):
        super().__init__()
        self.args = args
        self.wte = nn.Embedding(args.vocab_size, args.hidden_size)
        self.wpe = nn.Embedding(args.max_position_embeddings, args.hidden_size)
        self.h = [Block(args, kind) for kind in args.attention_layers]
        self.ln_f = nn.LayerNorm(args.hidden_size, eps=args.layer_norm_epsilon)

    def __call__(self, inputs: mx.array, cache=None) -> mx.array:
        _, L = inputs.shape
        if cache is None:
            cache = [None] * len(self.h)
        offset = cache[0].offset if cache[0] is not None else 0
        if offset + L > self.args.max_position_embeddings:
            # An out-of-range embedding index is not an error in MLX, just garbage: refuse.
            raise SpecDecError(
                f"GPT-Neo context is {self.args.max_position_embeddings} positions; "
                f"got {offset} cached + {L} new = {offset + L} tokens"
            )
        h = self.wte(inputs) + self.wpe(mx.arange(offset, offset + L))
        masks = {
            "global": attention_mask(L, offset),
            "local": attention_mask(L, offset, self.args.window_size),
        }
        for block, c in zip(self.h, cache):
            h = block(h, masks[block.attention_type], cache=c)
        return self.ln_f(h)


class Model(nn.Module):
    model_type = "gpt_neo"

    def __init__(self, args: ModelArgs):
        super().__init__()
        self.args = args
        self.model = GPTNeoModel(args)
        if not args.tie_word_embeddings:
            self.lm_head = nn.Linear(args.hidden_size, args.vocab_size, bias=False)

    def __call__(self, inputs: mx.array, cache=None) -> mx.array:
        h = self.model(inputs, cache)
        if self.args.tie_word_embeddings:
            return self.model.wte.as_linear(h)
        return self.lm_head(h)

    @property
    def layers(self):
        return self.model.h

    def make_cache(self) -> list:
        # Full-history caches on every layer, local ones included: see the module docstring.
        return [KVCache() for _ in self.layers]

    def sanitize(self, weights: dict) -> dict:
        """Map Hugging Face GPTNeoForCausalLM names onto this module's; idempotent.

        transformer.h.N.attn.attention.q_proj.weight -> model.h.N.attn.q_proj.weight, and so on;
        the causal-mask buffers some checkpoints carry (attn.attention.bias, .masked_bias) and a
        tied lm_head.weight are dropped.
        """
        out = {}
        for name, w in weights.items():
            if name.endswith((".attn.attention.bias", ".attn.attention.masked_bias", ".attn.bias", ".attn.masked_bias")):
                continue
            if name == "lm_head.weight":
                if not self.args.tie_word_embeddings:
                    out[name] = w
                continue
            if name.startswith("transformer."):
                name = "model." + name[len("transformer."):]
            elif not name.startswith("model."):
                name = "model." + name
            out[name.replace(".attn.attention.", ".attn.")] = w
        return out


def tokenizer_fingerprint(tokenizer) -> str:
    """A short hash of the id -> token table: equal fingerprints mean the ids mean the same text."""
    vocab = tokenizer.get_vocab()
    table = "\n".join(f"{i}\t{t}" for t, i in sorted(vocab.items(), key=lambda kv: kv[1]))
    return "bpe-" + hashlib.sha256(table.encode("utf-8")).hexdigest()[:16]


def load_tokenizer(path: Path, eos_token_id=None):
    """mlx-lm's TokenizerWrapper over the copied Hugging Face tokenizer files (no network)."""
    from mlx_lm.tokenizer_utils import load as load_hf_tokenizer

    if not any((path / f).is_file() for f in ("tokenizer.json", "vocab.json")):
        raise ModelLoadError(f"model folder {str(path)!r} is missing tokenizer.json (or vocab.json + merges.txt)")
    eos = [eos_token_id] if isinstance(eos_token_id, int) else eos_token_id
    try:
        return load_hf_tokenizer(path, eos_token_ids=eos)
    except Exception as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ModelLoadError(f"cannot load the tokenizer in {str(path)!r} ({msg})") from None


def load_gpt_neo(path) -> tuple[Model, Any]:
    """Load a model-store folder of model_type "gpt_neo" -> (model in eval mode, tokenizer).

    Weights are float16 on disk; they are cast to float32 on the CPU (fp16
    matmuls there bypass BLAS) and kept float16 on a GPU.
    """
    path = Path(path)
    if not path.is_dir():
        what = "does not exist" if not path.exists() else "is not a directory"
        raise ModelLoadError(f"model path {str(path)!r} {what}; expected a GPT-Neo model-store folder")
    for name in (CONFIG, WEIGHTS):
        if not (path / name).is_file():
            raise ModelLoadError(f"model folder {str(path)!r} is missing {name}")
    config = read_json(path / CONFIG)
    if config.get("model_type") != "gpt_neo":
        found = config.get("model_type")
        raise ModelLoadError(f"model_type {found!r} in {path / CONFIG}; expected 'gpt_neo'")
    arch = config.get("architecture")
    if not isinstance(arch, dict):
        raise ModelLoadError(f"{path / CONFIG} has no 'architecture' object")
    args = ModelArgs.from_dict(arch)

    weights = load_safetensors(path / WEIGHTS)
    model = Model(args)
    weights = model.sanitize(weights)
    check_weights(model, weights, str(path / WEIGHTS))
    model.update(tree_unflatten([(k, v.astype(compute_dtype())) for k, v in weights.items()]))
    mx.eval(model.parameters())
    model.eval()

    tokenizer = load_tokenizer(path, args.eos_token_id)
    want = config.get("tokenizer_fingerprint")
    if want is not None and want != tokenizer_fingerprint(tokenizer):
        raise ModelLoadError(
            f"tokenizer fingerprint mismatch in {str(path)!r}: config.json says {want!r}, "
            f"the tokenizer files give {tokenizer_fingerprint(tokenizer)!r}"
        )
    return model, tokenizer
