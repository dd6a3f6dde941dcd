"""A block drafter (DFlash, z-lab): a whole block of drafts from one pass, conditioned on target features.

    c_t   = hidden_norm(fc(concat(f_l1(t), ..., f_ln(t))))       the context: one row per verified position
    block = [x_a, mask, ..., mask]                              at positions a .. a + B - 1
    each layer: h = h + o_proj(attn(q = block, k, v = [context rows < a, the whole block]))
                h = h + mlp(post_attention_layernorm(h))        (q and k per head RMS-normed, as Qwen3)
    draft i (1 <= i < B) = head(norm(h at slot i)): the token at position a + i

Slot 0 holds x_a, the last committed token (the target has emitted it but not
yet read it); the masked slots are filled in together, so B - 1 drafts cost one
drafter pass. The context rows are the target's features at positions < a, the
same rows every layer reads (each through its own k/v projections); each
layer's KV cache holds them and only them: the block's own keys and values are
never cached, so rolling the drafter back is keeping fewer context rows, and a
rejected draft leaves nothing behind.

Attention is bidirectional over the block (z-lab's `is_causal: false` for
full-attention layers): each draft reads every slot, but a slot holds only the
mask (or x_a), never another draft, so draft i does not depend on the drafts
before it. That is what keeps speculative sampling exact with a block drafter
(docs/DESIGN.md, "Block drafters").

`target_layers` are 0-based target decoder layers whose *outputs* are read,
which is also what z-lab's `target_layer_ids` mean (HF's hidden_states[id + 1]).
The token embedding is the target's; the head is the target's output
projection (z-lab's published drafters) or a head of the drafter's own over a
reduced draft vocabulary (the drafters trained here, as for EAGLE-3: draft id i
is target id i + d2t[i]). The mask is the target's embedding row
`mask_token_id` (z-lab's; Qwen3's vocabulary has spare rows) or, when None, a
learned vector of the drafter's own (SmolLM2's vocabulary has no spare row).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
from mlx_lm.models.cache import KVCache
from mlx_lm.models.rope_utils import initialize_rope

from ..errors import SpecDecError
from .eagle3 import MLP, trained_on_rows, lineage_text
from .folders import atomic_folder, float16_weights, folder_model_type

DFLASH_TYPE = "dflash"


@dataclass
class DFlashConfig:
    hidden_size: int  # the target's: the block starts from the target's embedding rows
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    vocab_size: int  # the target's
    block_size: int  # slots of a block: x_a and block_size - 1 masks (drafts per pass at most)
    target_layers: tuple[int, ...]  # 0-based target decoder layers whose outputs are fused, low to high
    target_hidden_size: int | None = None  # None: hidden_size
    draft_vocab_size: int | None = None  # a head of its own over this many target tokens; None: the target's head
    mask_token_id: int | None = None  # the target's embedding row for the mask; None: a learned mask vector
    rms_norm_eps: float = 1e-6
    rope_theta: float = 10000.0
    rope_scaling: dict | None = None
    max_position_embeddings: int = 32768
    input_embedding_scale: float = 1.0  # z-lab: the block's embedding rows are scaled by this
    output_multiplier: float = 1.0  # z-lab: logits are scaled by this, then soft-capped
    final_logit_softcapping: float | None = None
    extra: dict = field(default_factory=dict)  # what a loaded layout said beyond these (kept for the card)

    def __post_init__(self):
        self.target_layers = tuple(int(i) for i in self.target_layers)
        if self.target_hidden_size is None:
            self.target_hidden_size = self.hidden_size
        if not self.target_layers:
            raise SpecDecError("a block drafter needs at least one target layer to read")
        if self.block_size < 2:
            raise SpecDecError(f"block_size must be >= 2 (x_a and at least one mask), got {self.block_size}")
        if self.num_hidden_layers < 1:
            raise SpecDecError(f"a block drafter needs at least one layer, got {self.num_hidden_layers}")
        if self.draft_vocab_size is not None and not 0 < self.draft_vocab_size <= self.vocab_size:
            raise SpecDecError(f"draft_vocab_size must be in 1..{self.vocab_size}, got {self.draft_vocab_size}")
        if self.mask_token_id is not None and not 0 <= self.mask_token_id < self.vocab_size:
            raise SpecDecError(f"mask_token_id {self.mask_token_id} is outside the {self.vocab_size}-token vocabulary")

    @property
    def own_head(self) -> bool:
        return self.draft_vocab_size is not None

    def to_dict(self) -> dict:
        out = asdict(self)
        out["target_layers"] = list(self.target_layers)
        return out

    @classmethod
    def from_dict(cls, d: dict) -> "DFlashConfig":
        unknown = sorted(set(d) - set(cls.__dataclass_fields__))
        if unknown:
            raise SpecDecError(f"unknown DFlash config fields: {', '.join(unknown)}")
        return cls(**d)


def default_target_layers(n_layers: int, n: int = 5) -> tuple[int, ...]:
    """z-lab's choice: n layers spread evenly from layer 1 to layer L - 3 (outputs, 0-based)."""
    if n_layers < 4 or n == 1:
        return (n_layers // 2,) if n == 1 else tuple(sorted({0, n_layers // 2, n_layers - 1}))
    start, end = 1, n_layers - 3
    return tuple(sorted({round(start + i * (end - start) / (n - 1)) for i in range(n)}))


class _Attention(nn.Module):
    def __init__(self, cfg: DFlashConfig):
        super().__init__()
        h, d = cfg.hidden_size, cfg.head_dim
        self.n_heads, self.n_kv_heads, self.scale = cfg.num_attention_heads, cfg.num_key_value_heads, d**-0.5
        self.q_proj = nn.Linear(h, cfg.num_attention_heads * d, bias=False)
        self.k_proj = nn.Linear(h, cfg.num_key_value_heads * d, bias=False)
        self.v_proj = nn.Linear(h, cfg.num_key_value_heads * d, bias=False)
        self.o_proj = nn.Linear(cfg.num_attention_heads * d, h, bias=False)
        self.q_norm = nn.RMSNorm(d, eps=cfg.rms_norm_eps)
        self.k_norm = nn.RMSNorm(d, eps=cfg.rms_norm_eps)
        self.rope = initialize_rope(d, cfg.rope_theta, False, cfg.rope_scaling, cfg.max_position_embeddings)

    def _split(self, x, proj, n):
        b, t, _ = x.shape
        return proj(x).reshape(b, t, n, -1)

    def keys_values(self, x, offset):
        """(B, T, H) rows at positions offset.. -> their keys (normed, rotated) and values, (B, n_kv, T, d)."""
        k = self.k_norm(self._split(x, self.k_proj, self.n_kv_heads)).transpose(0, 2, 1, 3)
        v = self._split(x, self.v_proj, self.n_kv_heads).transpose(0, 2, 1, 3)
        return self.rope(k, offset=offset), v

    def queries(self, x, offset):
        return self.rope(self.q_norm(self._split(x, self.q_proj, self.n_heads)).transpose(0, 2, 1, 3), offset=offset)

    def extend(self, context, cache) -> None:
        """Context rows (B, c, H) at the cache's next positions join it."""
        cache.update_and_fetch(*self.keys_values(context, cache.offset))

    def __call__(self, x, context, cache):
        """The block x (B, n, H) after the context rows: the new rows `context` (B, c, H) join the cache
        (c may be 0), the block attends to every cached row and to itself, and is not cached."""
        if context is not None and context.shape[1]:
            self.extend(context, cache)
        start = cache.offset
        q = self.queries(x, start)
        kb, vb = self.keys_values(x, start)
        if cache.keys is not None and start:
            keys = mx.concatenate([cache.keys[..., :start, :], kb], axis=2)
            values = mx.concatenate([cache.values[..., :start, :], vb], axis=2)
        else:
            keys, values = kb, vb
        out = mx.fast.scaled_dot_product_attention(q, keys, values, scale=self.scale, mask=None)
        b, _, n, _ = out.shape
        return self.o_proj(out.transpose(0, 2, 1, 3).reshape(b, n, -1))


class DFlashLayer(nn.Module):
    def __init__(self, cfg: DFlashConfig):
        super().__init__()
        self.self_attn = _Attention(cfg)
        self.mlp = MLP(cfg)
        self.input_layernorm = nn.RMSNorm(cfg.hidden_size, eps=cfg.rms_norm_eps)
        self.post_attention_layernorm = nn.RMSNorm(cfg.hidden_size, eps=cfg.rms_norm_eps)

    def __call__(self, h, context, cache):
        h = h + self.self_attn(self.input_layernorm(h), context, cache)
        return h + self.mlp(self.post_attention_layernorm(h))


class DFlashModel(nn.Module):
    """fc, hidden_norm, the layers, the final norm; the head and mask when the drafter owns them. The target's
    embedding (and, for a drafter without a head of its own, its output projection) is bound, not owned."""

    def __init__(self, cfg: DFlashConfig):
        super().__init__()
        self.config = cfg
        self.fc = nn.Linear(len(cfg.target_layers) * cfg.target_hidden_size, cfg.hidden_size, bias=False)
        self.hidden_norm = nn.RMSNorm(cfg.hidden_size, eps=cfg.rms_norm_eps)
        self.layers = [DFlashLayer(cfg) for _ in range(cfg.num_hidden_layers)]
        self.norm = nn.RMSNorm(cfg.hidden_size, eps=cfg.rms_norm_eps)
        if cfg.own_head:
            self.lm_head = nn.Linear(cfg.hidden_size, cfg.draft_vocab_size, bias=False)
            self.d2t = mx.zeros((cfg.draft_vocab_size,), dtype=mx.int32)
        if cfg.mask_token_id is None:
            self.mask_embedding = mx.random.normal((cfg.hidden_size,)) * 0.02
        self._embed = None  # the target's embedding module
        self._head = None  # the target's output projection (a drafter without a head of its own)

    # ------------------------------------------------------------ wiring

    def bind(self, embed, head=None) -> None:
        """Use the target's token embedding, and its output projection when the drafter has no head of its own."""
        if not self.config.own_head and head is None:
            raise SpecDecError("this block drafter drafts through its target's head; bind the target's output "
                               "projection")
        object.__setattr__(self, "_embed", embed)
        object.__setattr__(self, "_head", head)

    @property
    def bound(self) -> bool:
        return self._embed is not None

    @property
    def draft_to_target(self) -> mx.array | None:
        """(draft_vocab_size,) int32: the target id of each draft id; None when the head is the target's."""
        if not self.config.own_head:
            return None
        return mx.arange(self.config.draft_vocab_size, dtype=mx.int32) + self.d2t.astype(mx.int32)

    def make_cache(self) -> list[KVCache]:
        return [KVCache() for _ in self.layers]

    # ------------------------------------------------------------ the computation

    def context(self, features: mx.array) -> mx.array:
        """(..., L * target_hidden) target features -> (..., H) context rows."""
        return self.hidden_norm(self.fc(features))

    def block_input(self, first: mx.array, n_masks: int) -> mx.array:
        """(B,) last committed tokens -> (B, 1 + n_masks, H): x_a's embedding row, then the mask's."""
        if self._embed is None:
            raise SpecDecError("this block drafter has no embedding bound; load it onto its target")
        cfg = self.config
        if cfg.mask_token_id is None:
            emb = self._embed(first[:, None])
            mask = mx.broadcast_to(self.mask_embedding.astype(emb.dtype), (emb.shape[0], n_masks, emb.shape[-1]))
            block = mx.concatenate([emb, mask], axis=1)
        else:
            ids = mx.concatenate([first[:, None], mx.full((first.shape[0], n_masks), cfg.mask_token_id, mx.int32)],
                                 axis=1)
            block = self._embed(ids)
        return block * cfg.input_embedding_scale if cfg.input_embedding_scale != 1.0 else block

    def head(self, hidden: mx.array) -> mx.array:
        """Normed block states -> logits over the draft vocabulary (the target's, without a head of its own)."""
        cfg = self.config
        logits = self.lm_head(hidden) if cfg.own_head else self._head(hidden)
        if cfg.output_multiplier != 1.0:
            logits = logits * cfg.output_multiplier
        if cfg.final_logit_softcapping:
            logits = mx.tanh(logits / cfg.final_logit_softcapping) * cfg.final_logit_softcapping
        return logits

    def extend_context(self, features: mx.array, cache) -> None:
        """New context rows' features (B, c, L * target_hidden) into every layer's cache, no block drafted."""
        ctx = self.context(features.astype(self.fc.weight.dtype))
        for layer, c in zip(self.layers, cache):
            layer.self_attn.extend(ctx, c)

    def __call__(self, first: mx.array, n_drafts: int, features: mx.array | None, cache):
        """One drafter pass: the new context rows' features (B, c, L * target_hidden) (c may be 0, or None)
        join the cache, and the block [first, mask x n_drafts] is filled in -> logits (B, n_drafts, Vd)."""
        h = self.block_input(first, n_drafts)
        ctx = None if features is None or features.shape[1] == 0 else self.context(features.astype(h.dtype))
        for layer, c in zip(self.layers, cache):
            h = layer(h, ctx, c)
        return self.head(self.norm(h[:, 1:]))


# ---------------------------------------------------------------- the drafter folder

WEIGHTS = "model.safetensors"
CONFIG = "config.json"
CARD = "README.md"


def is_own_folder(path) -> bool:
    """A block drafter folder this package wrote (model_type "dflash")."""
    return folder_model_type(path) == DFLASH_TYPE


def save_dflash(model: DFlashModel, out, *, target_name: str, target: dict, card: dict | None = None,
                curves: Path | None = None, overwrite: bool = False) -> Path:
    """Write a drafter folder atomically: config.json, model.safetensors (float16; the target's embedding is
    not stored), README.md (the card), curves.csv when given."""
    weights = float16_weights(model)
    config = {"model_type": DFLASH_TYPE, "architecture": model.config.to_dict(), "target": target_name,
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


def render_card(config: dict, card: dict) -> str:
    arch = config["architecture"]
    vocab = (f"{arch['draft_vocab_size']:,} of {arch['vocab_size']:,} target tokens, a head of its own"
             if arch.get("draft_vocab_size") else f"the target's {arch['vocab_size']:,} tokens, through its head")
    lines = [f"# Block drafter (DFlash) for {config['target']}", "",
             f"A block drafter ({arch['num_hidden_layers']} layers over {len(arch['target_layers'])} target layers' "
             f"features) trained by mlx-specdec on this target's own answers: one pass drafts up to "
             f"{arch['block_size'] - 1} tokens. The target's embedding is shared, not stored.", "",
             f"- target layers read (outputs, 0-based): {arch['target_layers']}",
             f"- draft vocabulary: {vocab}"
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
        lines += ["", "Greedy acceptance per block slot on the validation answers (teacher-forced context: how "
                  "often slot i's draft is the target's own token there, given the verified prefix before the "
                  "block), and the tokens a pass would give (1 + the expected accepted prefix):", "",
                  "| slot | " + " | ".join(k.split("_")[1] for k in card["acceptance"]) + " |",
                  "|---|" + "---:|" * len(card["acceptance"]),
                  "| agrees | " + " | ".join(f"{v:.1%}" for v in card["acceptance"].values()) + " |"]
        lines += trained_on_rows(card, "agrees")
        if "tokens_per_pass" in card:
            lines += ["", f"Tokens per target pass, teacher-forced: {card['tokens_per_pass']:.2f}"]
    if "command" in card:
        lines += ["", "Trained with:", "", "```", card["command"], "```"]
    return "\n".join(lines) + "\n"
