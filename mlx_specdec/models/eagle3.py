"""An EAGLE-3 draft model (Li et al. 2025): target features from three layers, one decoder layer, a draft vocabulary.

    g_t = fc(concat(f_low(t), f_mid(t), f_high(t)))        3 x target hidden -> H (no bias)
    x   = concat(input_layernorm(emb(x_{t+1})), hidden_norm(g_t))     2H: the embedding first
    a   = g_t + o_proj(attn(q,k,v = proj(x)))               the residual is g_t (hidden_norm(g_t) when
    o_t = a + mlp(post_attention_layernorm(a))              `norm_before_residual`)
    logits over the draft vocabulary = lm_head(norm(o_t));   draft id i is target id i + d2t[i]

Position t of the layer pairs the target's feature at t with the token after
it, x_{t+1}, so its KV cache holds one row per committed position, over the
context's fused features. At the next draft step the layer's own output o_t
stands in for g (it is not passed through fc again): the drafter runs on its
own hidden states beyond the verified prefix, which the training-time test
(`training.eagle3`) unrolls the same way.

`target_layers` are 0-based indices of the target's decoder layers whose
*outputs* are read (the `features` module's convention). The published layouts
count differently (their ids name the layer whose *input* is read); the
loaders in `models.eagle3_layouts` translate, and the folder written here
records ours. `models.eagle3_store` reads either kind of folder.

The embedding is the target's (`bind_embedding`): the checkpoint does not
store a copy, as EAGLE-3's own drafters borrow it, so a drafter folder stays
small even for a 262,144-token vocabulary.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
from mlx_lm.models.base import create_attention_mask, scaled_dot_product_attention
from mlx_lm.models.cache import KVCache
from mlx_lm.models.rope_utils import initialize_rope

from ..errors import SpecDecError
from .folders import atomic_folder, float16_weights, folder_model_type

EAGLE3_TYPE = "eagle3"


@dataclass
class Eagle3Config:
    hidden_size: int
    intermediate_size: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    vocab_size: int  # the target's
    draft_vocab_size: int
    target_layers: tuple[int, ...]  # 0-based target decoder layers whose outputs are fused, low to high
    target_hidden_size: int | None = None  # None: hidden_size
    rms_norm_eps: float = 1e-5
    rope_theta: float = 10000.0
    rope_scaling: dict | None = None
    max_position_embeddings: int = 8192
    norm_before_residual: bool = False  # the residual is hidden_norm(g), not g (Speculators' option)
    norm_before_fc: bool = False  # one RMSNorm over the concatenated features before fc (`input_norm`, Speculators)
    fc_norm: bool = False  # an RMSNorm per target feature before fc (`fc_norm.{i}`, Eagle-3.1)
    norm_output: bool = False  # the next step is fed norm(o_t), not o_t (Speculators' Eagle-3.1 option)
    extra: dict = field(default_factory=dict)  # what a loaded layout said beyond these (kept for the card)

    def __post_init__(self):
        self.target_layers = tuple(int(i) for i in self.target_layers)
        if self.target_hidden_size is None:
            self.target_hidden_size = self.hidden_size
        if not self.target_layers:
            raise SpecDecError("an EAGLE-3 drafter needs at least one target layer to read")
        if not 0 < self.draft_vocab_size <= self.vocab_size:
            raise SpecDecError(f"draft_vocab_size must be in 1..{self.vocab_size}, got {self.draft_vocab_size}")

    def to_dict(self) -> dict:
        out = asdict(self)
        out["target_layers"] = list(self.target_layers)
        return out

    @classmethod
    def from_dict(cls, d: dict) -> "Eagle3Config":
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(d) - known)
        if unknown:
            raise SpecDecError(f"unknown EAGLE-3 config fields: {', '.join(unknown)}")
        return cls(**d)


class _Attention(nn.Module):
    def __init__(self, cfg: Eagle3Config):
        super().__init__()
        h, d = cfg.hidden_size, cfg.head_dim
        self.n_heads, self.n_kv_heads, self.scale = cfg.num_attention_heads, cfg.num_key_value_heads, d**-0.5
        self.q_proj = nn.Linear(2 * h, cfg.num_attention_heads * d, bias=False)
        self.k_proj = nn.Linear(2 * h, cfg.num_key_value_heads * d, bias=False)
        self.v_proj = nn.Linear(2 * h, cfg.num_key_value_heads * d, bias=False)
        self.o_proj = nn.Linear(cfg.num_attention_heads * d, h, bias=False)
        self.rope = initialize_rope(d, cfg.rope_theta, False, cfg.rope_scaling, cfg.max_position_embeddings)

    def __call__(self, x, mask, cache):
        b, n, _ = x.shape
        q = self.q_proj(x).reshape(b, n, self.n_heads, -1).transpose(0, 2, 1, 3)
        k = self.k_proj(x).reshape(b, n, self.n_kv_heads, -1).transpose(0, 2, 1, 3)
        v = self.v_proj(x).reshape(b, n, self.n_kv_heads, -1).transpose(0, 2, 1, 3)
        offset = cache.offset if cache is not None else 0
        q, k = self.rope(q, offset=offset), self.rope(k, offset=offset)
        if cache is not None:
            k, v = cache.update_and_fetch(k, v)
        out = scaled_dot_product_attention(q, k, v, cache=cache, scale=self.scale, mask=mask)
        return self.o_proj(out.transpose(0, 2, 1, 3).reshape(b, n, -1))


class MLP(nn.Module):
    """SwiGLU, Llama's names (gate_proj, up_proj, down_proj); shared by the block drafter."""

    def __init__(self, cfg):
        super().__init__()
        self.gate_proj = nn.Linear(cfg.hidden_size, cfg.intermediate_size, bias=False)
        self.up_proj = nn.Linear(cfg.hidden_size, cfg.intermediate_size, bias=False)
        self.down_proj = nn.Linear(cfg.intermediate_size, cfg.hidden_size, bias=False)

    def __call__(self, x):
        return self.down_proj(nn.silu(self.gate_proj(x)) * self.up_proj(x))


class Eagle3Layer(nn.Module):
    """The one decoder layer (EAGLE's `midlayer`, Speculators' `layers.0`)."""

    def __init__(self, cfg: Eagle3Config):
        super().__init__()
        self.norm_before_residual = cfg.norm_before_residual
        self.input_layernorm = nn.RMSNorm(cfg.hidden_size, eps=cfg.rms_norm_eps)
        self.hidden_norm = nn.RMSNorm(cfg.hidden_size, eps=cfg.rms_norm_eps)
        self.self_attn = _Attention(cfg)
        self.post_attention_layernorm = nn.RMSNorm(cfg.hidden_size, eps=cfg.rms_norm_eps)
        self.mlp = MLP(cfg)

    def __call__(self, emb, hidden, mask=None, cache=None):
        normed = self.hidden_norm(hidden)
        residual = normed if self.norm_before_residual else hidden
        x = mx.concatenate([self.input_layernorm(emb), normed], axis=-1)
        h = residual + self.self_attn(x, mask, cache)
        return h + self.mlp(self.post_attention_layernorm(h))


class Eagle3Model(nn.Module):
    """fc, the layer, the final norm and the draft head; the target's embedding is bound, not owned."""

    def __init__(self, cfg: Eagle3Config):
        super().__init__()
        self.config = cfg
        n_feats = len(cfg.target_layers)
        if cfg.norm_before_fc and cfg.fc_norm:
            raise SpecDecError("norm_before_fc and fc_norm exclude each other (one norm over the concatenation, "
                               "or one per feature)")
        if cfg.norm_before_fc:
            self.input_norm = nn.RMSNorm(n_feats * cfg.target_hidden_size, eps=cfg.rms_norm_eps)
        if cfg.fc_norm:
            self.fc_norm = [nn.RMSNorm(cfg.target_hidden_size, eps=cfg.rms_norm_eps) for _ in range(n_feats)]
        self.fc = nn.Linear(n_feats * cfg.target_hidden_size, cfg.hidden_size, bias=False)
        self.midlayer = Eagle3Layer(cfg)
        self.norm = nn.RMSNorm(cfg.hidden_size, eps=cfg.rms_norm_eps)
        self.lm_head = nn.Linear(cfg.hidden_size, cfg.draft_vocab_size, bias=False)
        # Draft id i is target id i + d2t[i] (the published layouts' offsets); identity for a full vocabulary.
        self.d2t = mx.zeros((cfg.draft_vocab_size,), dtype=mx.int32)
        self._embed = None  # the target's embedding module, bound at load (not a parameter of this model)

    # ------------------------------------------------------------ wiring

    def bind_embedding(self, embed) -> None:
        """Use the target's token embedding (a module mapping ids to rows)."""
        object.__setattr__(self, "_embed", embed)

    def embed(self, ids: mx.array) -> mx.array:
        if self._embed is None:
            raise SpecDecError("this EAGLE-3 drafter has no embedding bound; load it onto its target")
        return self._embed(ids)

    @property
    def draft_to_target(self) -> mx.array:
        """(draft_vocab_size,) int32: the target id of each draft id."""
        return mx.arange(self.config.draft_vocab_size, dtype=mx.int32) + self.d2t.astype(mx.int32)

    def make_cache(self) -> KVCache:
        return KVCache()

    # ------------------------------------------------------------ the computation

    def fuse(self, features: mx.array) -> mx.array:
        """(..., L * target_hidden) target features -> (..., H): what stands in the hidden slot at a verified position."""
        if self.config.norm_before_fc:
            features = self.input_norm(features)
        if self.config.fc_norm:
            parts = mx.split(features, len(self.fc_norm), axis=-1)
            features = mx.concatenate([n(p) for n, p in zip(self.fc_norm, parts)], axis=-1)
        return self.fc(features)

    def __call__(self, tokens: mx.array, hidden: mx.array, cache=None):
        """(B, T) next tokens and (B, T, H) hidden slots (fused features or the layer's own outputs)
        -> (draft-vocabulary logits (B, T, Vd), the next step's hidden slots (B, T, H): the layer's outputs, normed
        with `norm_output`)."""
        emb = self.embed(tokens).astype(hidden.dtype)
        mask = create_attention_mask(hidden, cache)
        out = self.midlayer(emb, hidden, mask=mask, cache=cache)
        normed = self.norm(out)
        return self.lm_head(normed), (normed if self.config.norm_output else out)

    def full_logits(self, draft_logits: mx.array) -> mx.array:
        """Draft-vocabulary logits (..., Vd) scattered onto the target's vocabulary, -inf elsewhere: a draft
        sampled from their softmax is a target id, and its q is zero outside the draft vocabulary."""
        shape = draft_logits.shape[:-1] + (self.config.vocab_size,)
        flat = draft_logits.reshape(-1, draft_logits.shape[-1])
        out = mx.full((flat.shape[0], self.config.vocab_size), -mx.inf, dtype=draft_logits.dtype)
        out[:, self.draft_to_target] = flat
        return out.reshape(shape)


def default_target_layers(n_layers: int) -> tuple[int, ...]:
    """EAGLE-3's low, middle and high layers as outputs: the references read the inputs of layers 2, L // 2 and
    L - 3 (see models.eagle3_layouts), which are the outputs of layers 1, L // 2 - 1 and L - 4."""
    if n_layers < 5:
        return tuple(sorted({0, n_layers // 2, n_layers - 1}))
    return (1, n_layers // 2 - 1, n_layers - 4)


# ---------------------------------------------------------------- the drafter folder

WEIGHTS = "model.safetensors"
CONFIG = "config.json"
CARD = "README.md"


def is_own_folder(path) -> bool:
    """A drafter folder this package wrote (model_type "eagle3")."""
    return folder_model_type(path) == EAGLE3_TYPE


def save_eagle3(model: Eagle3Model, out, *, target_name: str, target: dict, card: dict | None = None,
                curves: Path | None = None, overwrite: bool = False) -> Path:
    """Write a drafter folder atomically: config.json, model.safetensors (float16; the target's embedding is not
    stored), README.md (the card), curves.csv when given."""
    weights = float16_weights(model)
    config = {"model_type": EAGLE3_TYPE, "architecture": model.config.to_dict(), "target": target_name,
              "target_identity": target, "dtype": "float16",
              "parameters": sum(v.size for k, v in weights.items() if k != "d2t")}
    if card:  # what trained it, read back by a later run that starts from this one (--init)
        config["card"] = dict(card)

    def fill(tmp: Path) -> None:
        mx.save_safetensors(str(tmp / WEIGHTS), weights)
        (tmp / CONFIG).write_text(json.dumps(config, indent=2) + "\n")
        (tmp / CARD).write_text(render_card(config, card or {}))
        if curves is not None and Path(curves).is_file():
            shutil.copyfile(curves, tmp / Path(curves).name)

    return atomic_folder(Path(out), fill, overwrite=overwrite)


def trained_on_rows(card: dict, label: str) -> list[str]:
    """The card's acceptance row on training answers (the trainer's seeded draw, as many as validate), under the
    validation's row and beside a line on reading the two: a gap is what more answers can close; none, what more
    steps can (bench.drafter_fit measures the same for any drafter)."""
    trained = card.get("train_acceptance")
    if not trained:
        return []
    return [f"| {label}, training answers | " + " | ".join(f"{v:.1%}" for v in trained.values()) + " |", "",
            "The second row is the same on as many answers drawn from its training conversations: where it is far "
            "above the first the drafter has learned its answers more than its target, and more answers, not more "
            "steps, would raise the first."]


def lineage_text(init: dict) -> str:
    """A drafter a run started from (--init), and what had trained it."""
    done = [f"{init['steps']:,} steps" if "steps" in init else None,
            f"{init['tokens_seen']:,} tokens" if "tokens_seen" in init else None,
            f"{init['wall_time_s'] / 60:.1f} min" if "wall_time_s" in init else None,
            f"on {init['corpus']}" if "corpus" in init else None]
    done = [d for d in done if d]
    text = f"the drafter in {init.get('folder', '?')}" + (f" (trained {', '.join(done)})" if done else "")
    if isinstance(init.get("init"), dict):
        text += ", itself started from " + lineage_text(init["init"])
    return text


def render_card(config: dict, card: dict) -> str:
    arch = config["architecture"]
    lines = [f"# EAGLE-3 drafter for {config['target']}", "",
             "An EAGLE-3 draft model (one decoder layer over three target layers' features, a reduced draft "
             "vocabulary) trained by mlx-specdec on this target's own answers. The target's embedding is shared, "
             "not stored.", "",
             f"- target layers read (outputs, 0-based): {arch['target_layers']}",
             f"- draft vocabulary: {arch['draft_vocab_size']:,} of {arch['vocab_size']:,} target tokens"
             + (f" ({card['coverage']:.1%} of the corpus's answer tokens)" if "coverage" in card else ""),
             f"- parameters: {config['parameters']:,} (float16)"]
    for key, label in (("corpus", "corpus"), ("conversations", "training conversations"), ("steps", "steps"),
                       ("tokens_seen", "tokens seen"), ("machine", "machine")):
        if key in card:
            lines.append(f"- {label}: {card[key]:,}" if isinstance(card[key], int) else f"- {label}: {card[key]}")
    if "wall_time_s" in card:
        lines.append(f"- wall time: {card['wall_time_s'] / 60:.1f} min")
    if isinstance(card.get("init"), dict):
        lines.append(f"- started from: {lineage_text(card['init'])}")
    if card.get("acceptance"):
        lines += ["", "Greedy acceptance per draft position on the validation answers (teacher-forced: the target's "
                  "top-1 at depth j when the drafts before it were accepted):", "",
                  "| depth | " + " | ".join(k.split("_")[1] for k in card["acceptance"]) + " |",
                  "|---|" + "---:|" * len(card["acceptance"]),
                  "| accepted | " + " | ".join(f"{v:.1%}" for v in card["acceptance"].values()) + " |"]
        lines += trained_on_rows(card, "accepted")
    if "command" in card:
        lines += ["", "Trained with:", "", "```", card["command"], "```"]
    return "\n".join(lines) + "\n"
