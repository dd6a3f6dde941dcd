"""The multi-token-prediction head: a small module on a frozen trunk that predicts two tokens ahead.

    h_t = trunk(x_0..x_t)                          the base's final normed hidden state
    f   = module(RMSNorm(h_t) ++ RMSNorm(emb(x_{t+1})))   fuse 2D -> D, residual SwiGLU block(s), final norm
    logits = base output projection(f)             predicts x_{t+2}

The head reuses the base's token embedding and output projection without
training them: it keeps a reference to the base outside its own parameters,
so `head.trainable_parameters()` holds the head's weights only and an
optimizer can never touch the base.

Deeper drafts feed the head its own features: f plays the role of the trunk
state at t+1, so module(f, emb(d_1)) drafts d_2 and so on (EAGLE-style, one
shared module), or a separate module per depth (DeepSeek-style,
`n_modules=depth`). Its drafter is `drafters.MTPDrafter`, its folder I/O
`models.head_store`, its trainer `training.mtp`.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, fields

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx.utils import tree_flatten

from ..errors import IncompatibleModelsError, ModelLoadError, SpecDecError
from ..model_info import output_projection


def as_ids(token_ids) -> mx.array:
    if isinstance(token_ids, mx.array):
        return token_ids.astype(mx.int32)
    return mx.array(np.asarray(token_ids, dtype=np.int32))


def hidden_states(model, token_ids) -> mx.array:
    """The trunk's final (normed) hidden state at every position, before the output projection.

    token_ids (T,) -> (T, D); (B, T) -> (B, T, D). Works for StoryLM and the
    mlx-lm decoders alike: both expose the trunk as `model.model`.
    """
    ids = as_ids(token_ids)
    if ids.ndim == 1:
        return model.model(ids[None])[0]
    return model.model(ids)


def weights_fingerprint(model) -> str:
    """sha256 (16 hex digits) of a model's weights as they are stored (float16).

    Computed from the weights in memory, so it identifies the base a head was
    trained on whatever path it was loaded from; fp16 -> fp32 -> fp16 is exact,
    so a store model gives the same value before and after loading. A model
    sharded across processes keeps the value of its whole weights, taken before
    sharding (`_whole_weights_fingerprint`), since each rank holds only a part.
    """
    whole = getattr(model, "_whole_weights_fingerprint", None)
    if whole is not None:
        return whole
    digest = hashlib.sha256()
    for name, value in sorted(tree_flatten(model.parameters())):
        if mx.issubdtype(value.dtype, mx.floating):
            value = value.astype(mx.float16)
        digest.update(f"{name}:{tuple(value.shape)}:{value.dtype};".encode())
        digest.update(np.asarray(value).tobytes())
    return digest.hexdigest()[:16]


@dataclass
class MTPConfig:
    dim: int  # the base's hidden size
    vocab_size: int  # the base's vocabulary
    hidden_dim: int  # SwiGLU width inside each block
    n_blocks: int = 1  # residual MLP blocks per module
    n_modules: int = 1  # 1: one module re-fed its own features at every depth; n: one module per depth
    depth: int = 3  # draft depth trained (rollout steps in the loss)
    norm_eps: float = 1e-5

    def __post_init__(self):
        for name in ("dim", "vocab_size", "hidden_dim", "n_blocks", "n_modules", "depth"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise SpecDecError(f"MTP head {name} must be an integer >= 1, got {value!r}")

    @classmethod
    def for_base(cls, base, **overrides) -> MTPConfig:
        vocab, dim = base.model.embed_tokens.weight.shape
        hidden = getattr(getattr(base, "args", None), "hidden_dim", None) or 16 * math.ceil(8 * dim / 3 / 16)
        return cls(**{"dim": int(dim), "vocab_size": int(vocab), "hidden_dim": int(hidden), **overrides})

    @classmethod
    def from_dict(cls, d: dict) -> MTPConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ModelLoadError(f"unknown MTP head config keys {unknown}; expected a subset of {sorted(known)}")
        try:
            return cls(**d)
        except TypeError as e:
            raise ModelLoadError(f"bad MTP head config: {e}") from None


class MTPBlock(nn.Module):
    """Pre-norm residual SwiGLU: no attention, so the head keeps no per-position state.

    The trunk state h_t already carries the context; a position-local head needs
    no cache of its own, hence nothing to roll back when drafts are rejected.
    """

    def __init__(self, cfg: MTPConfig):
        super().__init__()
        self.norm = nn.RMSNorm(cfg.dim, eps=cfg.norm_eps)
        self.gate_proj = nn.Linear(cfg.dim, cfg.hidden_dim, bias=False)
        self.up_proj = nn.Linear(cfg.dim, cfg.hidden_dim, bias=False)
        self.down_proj = nn.Linear(cfg.hidden_dim, cfg.dim, bias=False)

    def __call__(self, x: mx.array) -> mx.array:
        y = self.norm(x)
        return x + self.down_proj(nn.silu(self.gate_proj(y)) * self.up_proj(y))


class MTPModule(nn.Module):
    """(state, embedding of the next token) -> features in the trunk's output space."""

    def __init__(self, cfg: MTPConfig):
        super().__init__()
        # Separate norms: trunk states and raw embeddings live at different scales.
        self.hidden_norm = nn.RMSNorm(cfg.dim, eps=cfg.norm_eps)
        self.embed_norm = nn.RMSNorm(cfg.dim, eps=cfg.norm_eps)
        self.fuse = nn.Linear(2 * cfg.dim, cfg.dim, bias=False)
        self.blocks = [MTPBlock(cfg) for _ in range(cfg.n_blocks)]
        self.norm = nn.RMSNorm(cfg.dim, eps=cfg.norm_eps)

    def __call__(self, hidden: mx.array, emb: mx.array) -> mx.array:
        x = self.fuse(mx.concatenate([self.hidden_norm(hidden), self.embed_norm(emb)], axis=-1))
        for block in self.blocks:
            x = block(x)
        # Normed like the trunk's own output: the features feed the shared output
        # projection and, for deeper drafts, the next depth in place of h.
        return self.norm(x)


class MTPHead(nn.Module):
    """Predicts x_{t+2} from the trunk state h_t and the token x_{t+1}.

    `head(hidden, next_token_ids, depth=1)` -> (logits, features). The base's
    embedding and output projection are used, never trained: the base is held
    outside the module tree (object.__setattr__ bypasses Module's registration),
    so it is absent from parameters(), trainable_parameters() and head.state.
    """

    def __init__(self, base, config: MTPConfig | None = None, **overrides):
        super().__init__()
        cfg = config or MTPConfig.for_base(base, **overrides)
        vocab, dim = base.model.embed_tokens.weight.shape
        if (cfg.vocab_size, cfg.dim) != (vocab, dim):
            raise IncompatibleModelsError(
                f"MTP head is for vocab {cfg.vocab_size} x dim {cfg.dim}, the base has vocab {vocab} x dim {dim}"
            )
        self.config = cfg
        object.__setattr__(self, "_base", base)
        self.layers = [MTPModule(cfg) for _ in range(cfg.n_modules)]
        trunk_norm = getattr(getattr(base.model, "norm", None), "weight", None)
        if trunk_norm is not None and trunk_norm.shape == (dim,):
            # Start the features at the scale the shared output projection expects.
            for module in self.layers:
                module.norm.weight = mx.array(trunk_norm)

    @property
    def base(self):
        return self._base

    def module_for(self, depth: int) -> MTPModule:
        return self.layers[min(depth, len(self.layers)) - 1]

    def __call__(self, hidden: mx.array, next_token_ids: mx.array, depth: int = 1):
        emb = self._base.model.embed_tokens(next_token_ids)
        features = self.module_for(depth)(hidden, emb)
        return output_projection(self._base)(features), features


def mtp_rollout(head: MTPHead, hidden: mx.array, token_ids: mx.array, depth: int) -> list[mx.array]:
    """Teacher-forced logits for depths 1..depth over a batch of sequences.

    hidden (B, T, D) and token_ids (B, T). Entry d-1 has T-d rows; row t comes
    from position t and predicts x_{t+d+1}: depth 1 pairs h_t with x_{t+1},
    depth d pairs the head's own depth-(d-1) features with x_{t+d}.
    """
    T = token_ids.shape[-1]
    state, out = hidden, []
    for d in range(1, depth + 1):
        n = T - d
        if n < 1:
            break
        logits, state = head(state[..., :n, :], token_ids[..., d : d + n], depth=d)
        out.append(logits)
    return out


def mtp_loss(mtp_logits: mx.array, token_ids, depth: int = 1) -> mx.array:
    """Mean cross-entropy of MTP logits against the token depth+1 ahead.

    Row t of `mtp_logits` (..., L, V) comes from (h_t, emb(x_{t+1})) and is
    scored against x_{t+2} (depth 1), for t = 0..T-3; rows past T-3 have no
    target and are ignored. This shift is the whole point: against x_{t+1} the
    head would learn to echo its input token, which the base already gives.
    """
    ids = as_ids(token_ids)
    T = ids.shape[-1]
    n = T - depth - 1
    if n < 1:
        raise SpecDecError(f"mtp_loss needs more than {depth + 1} tokens per sequence at depth {depth}, got {T}")
    if mtp_logits.shape[-2] < n:
        raise SpecDecError(f"mtp_logits has {mtp_logits.shape[-2]} rows; {n} are needed for {T} tokens at depth {depth}")
    logits = mtp_logits[..., :n, :].astype(mx.float32)
    return nn.losses.cross_entropy(logits, ids[..., depth + 1 :], reduction="mean")


def mtp_propose(base, head: MTPHead, ctx_ids) -> list[int]:
    """The base's greedy next token and the head's one extra token (2 ids), by recompute.

    The reference proposal: a full trunk pass over the context, no cache. The
    engine's `MTPDrafter` gets the same drafts from the verification pass instead.
    """
    ids = as_ids(ctx_ids)
    if ids.ndim != 1 or ids.shape[0] < 1:
        raise SpecDecError(f"ctx_ids must be a non-empty 1-D list of token ids, got shape {tuple(ids.shape)}")
    last = hidden_states(base, ids)[-1:]
    nxt = mx.argmax(output_projection(base)(last), axis=-1).astype(mx.int32)
    logits, _ = head(last, nxt)
    extra = mx.argmax(logits, axis=-1)
    return [nxt.item(), extra.item()]
