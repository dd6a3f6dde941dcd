"""Multi-token prediction: a small head on a frozen trunk that drafts for its own model.

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
`n_modules=depth`). Training rolls the head out `depth` steps with teacher-
forced tokens and its own features (depth 1 at every position, deeper depths
at every `rollout_stride`-th), so what it sees at depth 2 and 3 is what it
will see when drafting.

Self-speculation without an extra trunk pass (`MTPDrafter`): the engine's
verification pass over [pending, d_1..d_k] keeps its hidden rows; after the
verdict (accepted j, token t) row j is the trunk state whose next token is t,
so head(h_j, emb(t)) drafts the token after t for the next round.

Deeper drafts, chosen by measurement (storylm-1m base, batch 8 x 128, about
100 s of training each on the 2-core CPU, 6 held-out prompts x 60 tokens;
tokens per target pass at depth 1 / 2 / 3):

    one shared module, rollout loss at every position      1.41 / 1.57 / 1.67
    one module per depth, rollout loss at every position   1.49 / 1.73 / 1.81
    one module trained at depth 1 only, features re-fed    1.57-1.63 / 1.80-1.86 / 1.87-1.90
    one module per depth, depths 2-3 at every 4th position 1.53 / 1.80 / 1.97

Each depth in the loss costs a full output projection, so on a small budget
a full rollout starves depth 1 of steps (at an equal 150 steps the first
three were close: 1.48-1.50 / 1.67-1.76 / 1.76-1.82). Training depths 2-3 on a quarter of the
positions keeps most of depth 1's steps and gives the best depth 3, which is
where the shipped storylm-5m head is fastest (see its card). Reproduce a row
with `train --base models/storylm-1m --run-dir runs/ab-N --out models/ab-N
--batch-size 8 --seq-len 128 --time-budget-min 1.7 --n-modules N --depth D
--rollout-stride S`, then `bench --base models/storylm-1m --head models/ab-N`.

Command line:

    python -m mlx_specdec.mtp train    --base models/storylm-5m --out models/storylm-5m-mtp --time-budget-min 13
    python -m mlx_specdec.mtp generate --base models/storylm-5m --head models/storylm-5m-mtp -k 2 --prompt "Once upon a time"
    python -m mlx_specdec.mtp bench    --base models/storylm-5m --head models/storylm-5m-mtp
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C while MLX loads: one line and exit 130, not a traceback
    from mlx_specdec.cli_support import quiet_interrupts

    quiet_interrupts()

import csv
import hashlib
import json
import math
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass, fields
from functools import partial
from pathlib import Path

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core on Linux)
import mlx.core as mx
import mlx.nn as nn
import mlx.optimizers as optim
import numpy as np
from mlx.utils import tree_flatten, tree_unflatten

from .errors import IncompatibleModelsError, InterruptedRun, ModelLoadError, SpecDecError
from . import train as train_lib
from .train import batch_rows, make_optimizer  # noqa: F401  (shared with the StoryLM trainer)
from .models.folders import (
    atomic_folder,
    check_weights,
    check_writable,
    compute_dtype,
    load_safetensors,
    read_json,
    write_text_atomic,
)
from .state import output_projection

HEAD_WEIGHTS = "head.safetensors"
HEAD_CONFIG = "config.json"
CARD = "README.md"
CURVES = "curves.csv"
PLOT = "curves.png"
BENCH = "bench.json"
CKPT = "ckpt.safetensors"
EMPTY = mx.array([], dtype=mx.int32)
DEFAULT_DRAFT_DEPTH = 3  # MTPDrafter's cap on drafts per round unless told otherwise


# ----------------------------------------------------------------------------
# Trunk access
# ----------------------------------------------------------------------------


def _as_ids(token_ids) -> mx.array:
    if isinstance(token_ids, mx.array):
        return token_ids.astype(mx.int32)
    return mx.array(np.asarray(token_ids, dtype=np.int32))


def hidden_states(model, token_ids) -> mx.array:
    """The trunk's final (normed) hidden state at every position, before the output projection.

    token_ids (T,) -> (T, D); (B, T) -> (B, T, D). Works for StoryLM and the
    mlx-lm decoders alike: both expose the trunk as `model.model`.
    """
    ids = _as_ids(token_ids)
    if ids.ndim == 1:
        return model.model(ids[None])[0]
    return model.model(ids)


def weights_fingerprint(model) -> str:
    """sha256 (16 hex digits) of a model's weights as they are stored (float16).

    Computed from the weights in memory, so it identifies the base a head was
    trained on whatever path it was loaded from; fp16 -> fp32 -> fp16 is exact,
    so a store model gives the same value before and after loading.
    """
    digest = hashlib.sha256()
    for name, value in sorted(tree_flatten(model.parameters())):
        if mx.issubdtype(value.dtype, mx.floating):
            value = value.astype(mx.float16)
        digest.update(f"{name}:{tuple(value.shape)}:{value.dtype};".encode())
        digest.update(np.asarray(value).tobytes())
    return digest.hexdigest()[:16]


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# ----------------------------------------------------------------------------
# The head
# ----------------------------------------------------------------------------


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
    ids = _as_ids(token_ids)
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
    ids = _as_ids(ctx_ids)
    if ids.ndim != 1 or ids.shape[0] < 1:
        raise SpecDecError(f"ctx_ids must be a non-empty 1-D list of token ids, got shape {tuple(ids.shape)}")
    last = hidden_states(base, ids)[-1:]
    nxt = mx.argmax(output_projection(base)(last), axis=-1).astype(mx.int32)
    logits, _ = head(last, nxt)
    extra = mx.argmax(logits, axis=-1)
    return [nxt.item(), extra.item()]


# ----------------------------------------------------------------------------
# Self-speculation in the engine
# ----------------------------------------------------------------------------


class MTPDrafter:
    """A Drafter that lives on the target's trunk: no extra trunk pass, ever.

    bind() asks the target's sequence to keep the hidden rows of each
    verification pass. commit(j, t) remembers row j (the state whose next token
    is t) and t; propose() runs the head from there. The first round drafts from
    the hidden rows the target's prefill kept (without them it proposes nothing,
    which the loop handles as a plain step). Everything stays
    lazy: the loop's one sync per round evaluates drafts and verdict together.
    """

    def __init__(self, head: MTPHead, max_depth: int | None = None, compile: bool = True):
        if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1):
            raise SpecDecError(f"max_depth must be an integer >= 1 or None, got {max_depth!r}")
        self.head = head
        self.vocab_size = head.config.vocab_size
        # Features re-fed past the trained depth still draft usefully (measured), so
        # a head trained at depth 1 drafts up to DEFAULT_DRAFT_DEPTH when asked.
        self.max_depth = max_depth or max(head.config.depth, DEFAULT_DRAFT_DEPTH)
        self._seq = None
        self._state = None  # (1, D) trunk row whose next token is self._token
        self._token = None
        self._n_drafts = 0
        self.rounds: list[tuple[int, int]] = []  # (drafts proposed, drafts accepted) per round
        # One compiled graph per module: the head is a handful of small ops, and on
        # the CPU per-op dispatch would otherwise cost as much as the arithmetic.
        self._steps = {}
        for d in range(1, min(self.max_depth, head.config.n_modules) + 1):
            fn = partial(self._step, d)
            # The head's weights are declared inputs (read at every call, so a head
            # updated after this point is seen); the frozen base's are constants.
            self._steps[d] = mx.compile(fn, inputs=[head.state]) if compile else fn

    def _step(self, depth, state, token):
        return self.head(state, token, depth=depth)

    def bind(self, target, target_seq) -> None:
        if target is not self.head.base:
            raise IncompatibleModelsError(
                f"this MTP head is attached to another {type(self.head.base).__name__} instance than the target "
                f"{type(target).__name__}; load the head onto the target (load_head(path, target, tokenizer))"
            )
        target_seq.capture_hidden = True
        self._seq = target_seq

    def prefill(self, prompt_ids) -> None:
        self._state = self._token = None
        self.rounds = []
        # If the target's prefill kept its hidden rows (rows for prompt[:-1]), the
        # last one is the state whose next token is the last prompt token: the
        # first round can then draft too. Without it the first round drafts nothing.
        hidden = getattr(self._seq, "hidden", None)
        ids = _as_ids(prompt_ids)
        if hidden is not None and hidden.ndim == 2 and hidden.shape[0] == ids.shape[0] - 1:
            self._state, self._token = hidden[-1:], ids[-1:]

    def propose(self, k, policy, key):
        depth = min(k, self.max_depth)
        self._n_drafts = 0
        if depth < 1 or self._state is None:
            return EMPTY, None
        keys = mx.random.split(key, depth) if key is not None and not policy.greedy else [None] * depth
        state, token = self._state, self._token
        ids, probs = [], []
        for d in range(1, depth + 1):
            logits, state = self._steps[min(d, self.head.config.n_modules)](state, token)
            token, q = policy.pick(logits, keys[d - 1])
            token = token.astype(mx.int32)
            ids.append(token)
            probs.append(q)
        self._n_drafts = depth
        return mx.concatenate(ids), (None if policy.greedy else mx.concatenate(probs))

    def commit(self, accepted, token) -> None:
        if self._seq is None:
            raise SpecDecError("MTPDrafter was not bound to a target sequence; drive it through speculative_generate")
        self.rounds.append((self._n_drafts, accepted))
        # Row `accepted` of the verification pass fed [pending, d_1..d_k] is the
        # state at d_accepted (or at pending), whose next token is `token`.
        self._state = self._seq.hidden[accepted : accepted + 1]
        self._token = mx.array([token], dtype=mx.int32)


def acceptance_by_depth(rounds: list[tuple[int, int]], max_depth: int) -> list[dict]:
    """Per draft position i: how often draft i was accepted when proposed, and
    how often when draft i-1 had been accepted (the conditional rate)."""
    out = []
    for i in range(1, max_depth + 1):
        proposed = [(n, a) for n, a in rounds if n >= i]
        reached = [(n, a) for n, a in proposed if a >= i - 1]
        acc = sum(a >= i for _, a in proposed)
        out.append(dict(
            depth=i, proposed=len(proposed),
            rate=acc / len(proposed) if proposed else 0.0,
            conditional=acc / len(reached) if reached else 0.0,
        ))
    return out


# ----------------------------------------------------------------------------
# Saving and loading a head beside its base
# ----------------------------------------------------------------------------


def _fingerprint_of(tokenizer_or_fingerprint) -> str:
    if isinstance(tokenizer_or_fingerprint, str):
        return tokenizer_or_fingerprint
    fp = getattr(tokenizer_or_fingerprint, "fingerprint", None)
    if not isinstance(fp, str):
        raise SpecDecError(
            f"expected a tokenizer with a .fingerprint or a fingerprint string, got {type(tokenizer_or_fingerprint).__name__}"
        )
    return fp


def save_head(head: MTPHead, out_dir, *, base_name: str, tokenizer_fingerprint: str, base_weights_sha256=None,
              card: dict | None = None, extra_files: dict | None = None, overwrite: bool = False) -> Path:
    """Write a head folder atomically: temp folder, then os.replace (an existing head only with `overwrite`)."""
    out = Path(out_dir)
    config = {
        "model_type": "mtp_head",
        "architecture": asdict(head.config),
        "base": base_name,
        "base_tokenizer_fingerprint": tokenizer_fingerprint,
        "base_weights_fingerprint": weights_fingerprint(head.base),
        "base_weights_sha256": base_weights_sha256,
        "dtype": "float16",
        "parameters": sum(v.size for _, v in tree_flatten(head.parameters())),
    }

    def fill(tmp: Path) -> None:
        weights = {k: v.astype(mx.float16) for k, v in tree_flatten(head.parameters())}
        mx.save_safetensors(str(tmp / HEAD_WEIGHTS), weights, metadata={"format": "mlx"})
        (tmp / HEAD_CONFIG).write_text(json.dumps(config, indent=2) + "\n")
        for name, src in (extra_files or {}).items():
            if src is not None and Path(src).is_file():
                shutil.copyfile(src, tmp / name)
        (tmp / CARD).write_text(render_card(out.name, config, card or {}, tmp))

    return atomic_folder(out, fill, overwrite=overwrite)


def _read_head_config(path: Path) -> dict:
    config = read_json(path / HEAD_CONFIG)
    if config.get("model_type") != "mtp_head":
        raise ModelLoadError(f"{path / HEAD_CONFIG} does not describe an MTP head (model_type 'mtp_head')")
    if not isinstance(config.get("architecture"), dict):
        raise ModelLoadError(f"{path / HEAD_CONFIG} has no 'architecture' object")
    return config


def load_head(path, base_model, base_tokenizer_or_fingerprint) -> MTPHead:
    """Load a head folder onto `base_model`; refuse a head trained on another base.

    Both the base's tokenizer fingerprint and the fingerprint of its weights
    must match what the head was trained on: a head is only meaningful on the
    exact trunk whose hidden states it learned to read.
    """
    path = Path(path)
    if not path.is_dir():
        raise ModelLoadError(f"MTP head path {str(path)!r} is not a directory; expected a head folder")
    for name in (HEAD_CONFIG, HEAD_WEIGHTS):
        if not (path / name).is_file():
            raise ModelLoadError(f"MTP head folder {str(path)!r} is missing {name}")
    config = _read_head_config(path)
    want_tok, have_tok = config.get("base_tokenizer_fingerprint"), _fingerprint_of(base_tokenizer_or_fingerprint)
    if want_tok != have_tok:
        raise IncompatibleModelsError(
            f"MTP head {str(path)!r} was trained with tokenizer {want_tok!r}; the base's tokenizer is {have_tok!r}"
        )
    want_w, have_w = config.get("base_weights_fingerprint"), weights_fingerprint(base_model)
    if want_w != have_w:
        raise IncompatibleModelsError(
            f"MTP head {str(path)!r} was trained on base weights {want_w!r} ({config.get('base')}); "
            f"the model it is loaded onto has weights {have_w!r}"
        )
    head = MTPHead(base_model, MTPConfig.from_dict(config["architecture"]))
    weights = load_safetensors(path / HEAD_WEIGHTS)
    check_weights(head, weights, str(path / HEAD_WEIGHTS))
    head.update(tree_unflatten([(k, v.astype(compute_dtype())) for k, v in weights.items()]))
    mx.eval(head.parameters())
    return head


def load_base_and_head(base_path, head_path):
    """(base model, tokenizer, head) from a base store folder and a head folder."""
    from .models.store import load_store

    base, tok = load_store(base_path)
    return base, tok, load_head(head_path, base, tok)


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4f}" if abs(v) < 100 else f"{v:,.0f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


WHY_THE_HEAD_TRAILS = (
    "Why the head trails the base: both predict x_{t+2}, but the base reads it from h_{t+1}, which every trunk "
    "layer computed by attending over the whole context with x_{t+1} in place, while the head sees h_t (a summary "
    "shaped to predict x_{t+1}) and x_{t+1}'s embedding through one MLP block, with no attention back into the "
    "context; it is also smaller and trained briefly. Greedy acceptance (`agree d1`, accept@1 below) is higher "
    "than `acc d1` because a draft only has to match the base's choice, not the data: where the base is wrong, "
    "the head is often wrong the same way."
)


def render_card(name: str, config: dict, card: dict, folder: Path | None = None) -> str:
    arch = config["architecture"]
    style = "one module re-fed its own features (EAGLE-style)" if arch["n_modules"] == 1 else \
        f"{arch['n_modules']} modules, one per depth (DeepSeek-style)"
    lines = [
        f"# {name}",
        "",
        (f"A multi-token-prediction head for `{config['base']}`: from the frozen trunk's final hidden state h_t "
         "and the embedding of x_{t+1} it predicts x_{t+2}, reusing the base's embedding and output projection "
         "(not stored here). It drafts for its own base with no extra trunk pass (`MTPDrafter`)."),
        "",
        "## Architecture",
        "",
        (f"- RMSNorm(h) ++ RMSNorm(emb) -> linear {2 * arch['dim']}->{arch['dim']} -> {arch['n_blocks']} residual "
         f"SwiGLU block(s) (width {arch['hidden_dim']}) -> RMSNorm -> the base's output projection"),
        f"- {style}; trained depth {arch['depth']}",
        f"- {config['parameters']:,} parameters, stored as {config['dtype']}",
        f"- base tokenizer `{config['base_tokenizer_fingerprint']}`, base weights `{config['base_weights_fingerprint']}`"
        + (f" (model.safetensors sha256 `{config['base_weights_sha256'][:16]}…`)" if config.get("base_weights_sha256") else ""),
        "",
    ]
    card = dict(card)
    invoked = card.pop("invoked_as", None)
    final = card.pop("final", None)
    if card:
        lines += ["## Training", "", "| | |", "|---|---|"]
        lines += [f"| {k.replace('_', ' ')} | {_fmt(v)} |" for k, v in card.items()]
        lines.append("")
    if final:
        lines += ["## Final validation (held-out bundled valid split)", "", "| | |", "|---|---|"]
        lines += [f"| {k.replace('_', ' ')} | {_fmt(v)} |" for k, v in final.items()]
        lines += ["", ("`acc d1` is the head's two-ahead top-1 accuracy (x_{t+2} from h_t and x_{t+1}); "
                       "`acc d2`/`acc d3` re-feed its own features with x_{t+2}/x_{t+3} and score x_{t+3}/x_{t+4}; "
                       "`base acc` is the base's one-ahead top-1 accuracy on the same targets as `acc d1` (x_{t+2} "
                       "from h_{t+1}); `agree d1` is how often the head's top-1 equals the base's there."), "",
                  WHY_THE_HEAD_TRAILS, ""]
    if invoked:
        lines += ["Trained with:", "", "```", invoked, "```", ""]
    if folder is not None and (folder / PLOT).is_file():
        lines += [f"![training curves]({PLOT})", ""]
    bench = None
    if folder is not None and (folder / BENCH).is_file():
        bench = json.loads((folder / BENCH).read_text())
    if bench:
        lines += render_bench(bench)
    return "\n".join(lines)


def render_bench(bench: dict) -> list[str]:
    lines = ["## Self-speculation (measured)", "",
             (f"{bench['prompts']} held-out prompts ({bench['prompt_tokens']} tokens of bundled valid stories), "
              f"{bench['max_tokens']} new tokens each, greedy; tokens/s are medians of {bench['repeats']} "
              f"synchronised repeats, summed over prompts. Machine: {bench['machine']}."), "",
             "| mode | tokens/target pass | acceptance | accept@1 | accept@2 | accept@3 | tokens/s | speedup | equal to greedy |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in bench["rows"]:
        acc = {a["depth"]: a["rate"] for a in row.get("by_depth", [])}
        cells = [f"{acc[d]:.1%}" if d in acc else "-" for d in (1, 2, 3)]
        overall = f"{row['acceptance_rate']:.1%}" if row.get("acceptance_rate") is not None else "-"
        lines.append(
            f"| {row['mode']} | {row['tokens_per_pass']:.2f} | {overall} | {' | '.join(cells)} | "
            f"{row['tokens_per_s']:.1f} | {row['speedup']:.2f}x | {'yes' if row['identical'] else 'NO'} |"
        )
    lines += ["", "accept@i: fraction of rounds proposing a draft at position i in which it was accepted.", "",
              "Reproduce:", "", "```", bench["command"], "```", ""]
    return lines


# ----------------------------------------------------------------------------
# Training
# ----------------------------------------------------------------------------


@dataclass
class MTPTrainConfig:
    base: str = "models/storylm-5m"
    out: str | None = None  # head folder written at the end
    run_dir: str | None = None  # checkpoint, curves, token cache; default runs/<out or base name>-mtp
    steps: int | None = None
    time_budget_min: float | None = None
    resume: bool = False
    depth: int = 3
    n_modules: int = 3  # one module per depth (DeepSeek-style): measured best at depths 2-3, see the docstring
    n_blocks: int = 1
    depth_decay: float = 0.7  # loss weight of depth d is depth_decay**(d-1): depth 1 matters most
    rollout_stride: int = 4  # depths >= 2 are trained at every stride-th position (a quarter of their cost)
    corpus: str = "bundled"
    train_stories: int = 30_000
    valid_stories: int = 300
    data_seed: int = 0
    seq_len: int = 256
    batch_size: int = 16
    lr: float = 2e-3
    min_lr_ratio: float = 0.1
    warmup: int = 50
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    eval_every: int = 50
    eval_rows: int = 32
    ckpt_every: int = 50
    log_every: int = 10
    seed: int = 0
    quiet: bool = False
    overwrite: bool = False  # replace --out when it is an existing head folder

    def validate(self) -> None:
        train_lib.check_hyperparameters(self)
        for name in ("depth", "n_modules", "n_blocks", "rollout_stride", "train_stories", "valid_stories", "batch_size",
                     "eval_every", "eval_rows", "ckpt_every", "log_every"):
            if getattr(self, name) < 1:
                raise SpecDecError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(self, name)}")
        if self.seq_len < self.depth + 2:
            raise SpecDecError(f"--seq-len must be >= depth + 2 = {self.depth + 2}, got {self.seq_len}")
        if self.steps is not None and self.steps < 1:
            raise SpecDecError(f"--steps must be >= 1, got {self.steps}")
        if self.time_budget_min is not None and self.time_budget_min <= 0:
            raise SpecDecError(f"--time-budget-min must be > 0, got {self.time_budget_min}")
        if self.steps is None and self.time_budget_min is None and not self.resume:
            raise SpecDecError("give --steps or --time-budget-min (or both)")
        if not self.lr > 0:
            raise SpecDecError(f"--lr must be > 0, got {self.lr}")
        if not 0 < self.depth_decay <= 1:
            raise SpecDecError(f"--depth-decay must be in (0, 1], got {self.depth_decay}")

    def default_run_dir(self) -> Path:
        name = Path(self.out).name if self.out else Path(self.base).name + "-mtp"
        return Path("runs") / name


def load_rows(cfg: MTPTrainConfig, tok, cache_dir: Path, log=print) -> tuple[np.ndarray, np.ndarray]:
    """Tokenized stories packed into rows of seq_len ids; cached (a few MB) in the run folder."""
    train, valid = train_lib.tokenized_corpus(cfg, tok, cache_dir, log)
    train_rows = train[: len(train) // cfg.seq_len * cfg.seq_len].reshape(-1, cfg.seq_len)
    valid_rows = valid[: len(valid) // cfg.seq_len * cfg.seq_len].reshape(-1, cfg.seq_len)
    if len(train_rows) < cfg.batch_size:
        raise SpecDecError(f"{cfg.train_stories} stories give {len(train_rows)} rows of {cfg.seq_len} tokens; "
                           f"need at least --batch-size {cfg.batch_size}")
    if len(valid_rows) < 1:
        raise SpecDecError(f"{cfg.valid_stories} validation stories give no row of {cfg.seq_len} tokens")
    return train_rows, valid_rows[: cfg.eval_rows]


def depth_weights(cfg_or_depth, decay: float = 0.7) -> list[float]:
    depth = cfg_or_depth.depth if isinstance(cfg_or_depth, MTPTrainConfig) else cfg_or_depth
    if isinstance(cfg_or_depth, MTPTrainConfig):
        decay = cfg_or_depth.depth_decay
    return [decay**d for d in range(depth)]


def rollout_loss(head: MTPHead, hidden: mx.array, token_ids: mx.array, weights: list[float], stride: int = 1):
    """Weighted mean of the per-depth losses; also returns the per-depth losses.

    Depth 1 is scored at every position (mtp_loss). Deeper depths continue from
    the head's own features at every `stride`-th position only: each depth costs
    a full output projection, and on a small CPU budget spending it on depth 1
    buys more than spending it evenly (see the module docstring).
    """
    T, depth = token_ids.shape[-1], len(weights)
    logits, state = head(hidden[..., : T - 1, :], token_ids[..., 1:])
    losses = [mtp_loss(logits, token_ids)]
    if depth > 1:
        pos = mx.arange(0, T - depth - 1, stride)  # positions whose targets exist at every depth
        state = state[..., pos, :]
        for d in range(2, depth + 1):
            logits, state = head(state, token_ids[..., pos + d], depth=d)  # input x_{t+d}
            target = token_ids[..., pos + d + 1]  # predicts x_{t+d+1}
            losses.append(nn.losses.cross_entropy(logits.astype(mx.float32), target, reduction="mean"))
    total = sum(w * l for w, l in zip(weights, losses)) / sum(weights)
    return total, mx.stack(losses)


def make_train_step(head: MTPHead, optimizer, weights: list[float], grad_clip: float, stride: int = 1):
    """One compiled step: frozen trunk forward, head forward/backward, AdamW update.

    The base's weights are closed over (constants to the compiled graph) and the
    trunk output goes through stop_gradient: no gradient reaches the base.
    """
    base = head.base
    state = [head.state, optimizer.state]

    @partial(mx.compile, inputs=state, outputs=state)
    def step(x):
        hidden = mx.stop_gradient(base.model(x))
        (loss, per_depth), grads = nn.value_and_grad(head, rollout_loss)(head, hidden, x, weights, stride)
        grads, _ = optim.clip_grad_norm(grads, grad_clip)
        optimizer.update(head, grads)
        return loss, per_depth

    return step


def evaluate(head: MTPHead, rows: np.ndarray, batch_size: int) -> dict:
    """Two-ahead loss/accuracy per depth next to the base's one-ahead accuracy on the same targets.

    Depth-1 targets are x_{t+2} for t = 0..T-3: the head predicts them from
    (h_t, x_{t+1}), the base from h_{t+1}. agree_d1 counts the head matching
    the base's top-1 there (what greedy self-speculation accepts, teacher-forced).
    """
    base, depth = head.base, head.config.depth
    sums = {"loss_d1": 0.0, "base_loss": 0.0, "base_acc": 0.0, "agree_d1": 0.0}
    sums.update({f"acc_d{d}": 0.0 for d in range(1, depth + 1)})
    counts = {d: 0 for d in range(1, depth + 1)}
    for i in range(0, len(rows), batch_size):
        x = mx.array(rows[i : i + batch_size].astype(np.int32))
        hidden = base.model(x)
        T = x.shape[1]
        base_logits = output_projection(base)(hidden[:, 1 : T - 1])  # row t: from h_{t+1}, predicts x_{t+2}
        target = x[:, 2:]
        logits = mtp_rollout(head, hidden, x, depth)
        head_top = mx.argmax(logits[0][:, : T - 2], axis=-1)
        base_top = mx.argmax(base_logits, axis=-1)
        n = target.size
        sums["loss_d1"] += mtp_loss(logits[0], x).item() * n
        sums["base_loss"] += nn.losses.cross_entropy(base_logits, target, reduction="sum").item()
        sums["base_acc"] += (base_top == target).sum().item()
        sums["agree_d1"] += (head_top == base_top).sum().item()
        for d, lg in enumerate(logits, start=1):
            tgt = x[:, d + 1 :]
            sums[f"acc_d{d}"] += (mx.argmax(lg[:, : T - d - 1], axis=-1) == tgt).sum().item()
            counts[d] += tgt.size
    n1 = counts[1]
    out = {k: v / n1 for k, v in sums.items() if not k.startswith("acc_d")}
    out.update({f"acc_d{d}": sums[f"acc_d{d}"] / counts[d] for d in range(1, depth + 1)})
    return out


def save_checkpoint(path: Path, head: MTPHead, optimizer, meta: dict) -> None:
    """Head weights (fp32), optimizer state and meta (step, data position) in one
    atomic file. Nothing in a step is random and the data order is a pure
    function of (seed, step) (see batch_rows), so seed and step are the RNG state."""
    train_lib.save_checkpoint(path, head, optimizer, meta, prefix="head")


# What a resumed head run reads from its checkpoint's meta.
CHECKPOINT_META = {**train_lib.CHECKPOINT_META, "base_weights_fingerprint": str, "config": dict}


def load_checkpoint(path: Path, head: MTPHead | None = None, optimizer=None) -> dict:
    if head is None:
        return train_lib.read_checkpoint_meta(path, CHECKPOINT_META)
    return train_lib.load_checkpoint(path, head, optimizer, prefix="head")


CURVE_FIELDS = ["step", "tokens", "train_loss", "train_loss_d1", "valid_loss_d1", "acc_d1", "acc_d2", "acc_d3",
                "agree_d1", "base_acc", "base_loss", "lr", "tokens_per_s", "elapsed_s"]


def calibrate_steps(step_fn, x: mx.array, budget_s: float, cfg: MTPTrainConfig, eval_s: float) -> int:
    """Steps that fit the budget, from a few timed steps (the schedule needs its length up front).

    The timed steps update the head they are given: the caller starts the real
    run from a fresh head afterwards.
    """
    mx.eval(step_fn(x))
    t0 = time.perf_counter()
    for _ in range(3):
        mx.eval(step_fn(x))
    per_step = (time.perf_counter() - t0) / 3 + eval_s / cfg.eval_every
    return max(1, int((0.95 * budget_s - 2 * eval_s) / per_step))


def train(cfg: MTPTrainConfig, base=None, tok=None, invocation: str | None = None) -> dict:
    """Train (or resume) a head on a frozen base; returns a summary. Writes cfg.out when set."""
    from .train import Progress, machine

    cfg.validate()
    run_dir = Path(cfg.run_dir) if cfg.run_dir else cfg.default_run_dir()
    train_lib.guard_outputs(cfg.out, run_dir, overwrite=cfg.overwrite, protect={"--base": cfg.base})
    run_dir.mkdir(parents=True, exist_ok=True)
    ckpt_path = run_dir / CKPT
    if cfg.resume and not ckpt_path.is_file():
        raise SpecDecError(f"--resume: no checkpoint at {ckpt_path}")
    if not cfg.resume and ckpt_path.is_file():
        raise SpecDecError(f"{ckpt_path} exists: pass --resume to continue it, or choose another --run-dir")
    say = (lambda m: None) if cfg.quiet else (lambda m: print(m, flush=True))

    if base is None:
        from .models.store import load_store

        base, tok = load_store(cfg.base)
    base_fp = weights_fingerprint(base)

    meta = load_checkpoint(ckpt_path) if cfg.resume else None
    if meta is not None:
        if meta["base_weights_fingerprint"] != base_fp:
            raise IncompatibleModelsError(
                f"--resume: checkpoint was trained on base weights {meta['base_weights_fingerprint']}, "
                f"{cfg.base} has {base_fp}"
            )
        # Everything but where to write comes from the checkpoint (architecture,
        # data, schedule, budget), so a resumed run continues exactly the run
        # that was interrupted.
        keep = {"base", "out", "run_dir", "resume", "quiet", "overwrite"}
        for k, v in meta["config"].items():
            if k not in keep:
                setattr(cfg, k, v)

    train_rows, valid_rows = load_rows(cfg, tok, run_dir, say)
    mx.random.seed(cfg.seed)
    head_cfg = MTPConfig.for_base(base, depth=cfg.depth, n_modules=cfg.n_modules, n_blocks=cfg.n_blocks)
    weights = depth_weights(cfg)

    def fresh():
        mx.random.seed(cfg.seed)
        h = MTPHead(base, head_cfg)
        mx.eval(h.parameters())
        return h

    head = fresh()
    n_params = sum(v.size for _, v in tree_flatten(head.parameters()))
    if meta is not None:
        max_steps = meta["max_steps"]
    elif cfg.steps is not None and cfg.time_budget_min is None:
        max_steps = cfg.steps
    else:
        # Calibrate on a throwaway head so the real one starts from its seeded init.
        probe_opt = make_optimizer(cfg, 100)
        probe_opt.init(head.trainable_parameters())
        x = mx.array(train_rows[: cfg.batch_size].astype(np.int32))
        t0 = time.perf_counter()
        evaluate(head, valid_rows, cfg.batch_size)
        eval_s = time.perf_counter() - t0
        max_steps = calibrate_steps(make_train_step(head, probe_opt, weights, cfg.grad_clip, cfg.rollout_stride), x,
                                    cfg.time_budget_min * 60, cfg, eval_s)
        if cfg.steps is not None:
            max_steps = min(max_steps, cfg.steps)
        say(f"time budget {cfg.time_budget_min:g} min -> {max_steps} steps (calibrated)")
        head = fresh()

    train_lib.check_space(run_dir, cfg.out, n_params)
    optimizer = make_optimizer(cfg, max_steps)
    optimizer.init(head.trainable_parameters())
    step, elapsed = 0, 0.0
    if meta is not None:
        load_checkpoint(ckpt_path, head, optimizer)
        step, elapsed = meta["step"], meta["elapsed_s"]
        say(f"resumed {ckpt_path} at step {step}")
    curves_path = run_dir / CURVES
    train_lib.truncate_csv(curves_path, step, CURVE_FIELDS)
    train_step = make_train_step(head, optimizer, weights, cfg.grad_clip, cfg.rollout_stride)

    def run_meta() -> dict:
        return dict(step=step, rows_seen=step * cfg.batch_size, epoch=step * cfg.batch_size // len(train_rows),
                    rng=dict(init_seed=cfg.seed, data_order=f"numpy default_rng([{cfg.seed}, epoch]) permutation"),
                    max_steps=max_steps, elapsed_s=elapsed, base=cfg.base, base_weights_fingerprint=base_fp,
                    tokenizer_fingerprint=tok.fingerprint, config=asdict(cfg), architecture=asdict(head_cfg))

    curves_f = open(curves_path, "a", newline="")
    curves = csv.DictWriter(curves_f, CURVE_FIELDS)
    if curves_f.tell() == 0:
        curves.writeheader()
    tokens_per_step = cfg.batch_size * cfg.seq_len
    budget_s = cfg.time_budget_min * 60 if cfg.time_budget_min else math.inf
    say(f"MTP head on {cfg.base}: {n_params:,} head parameters (base frozen), depth {cfg.depth}, "
        f"{cfg.n_modules} module(s), {len(train_rows):,} train rows of {cfg.seq_len}, {max_steps} steps, lr {cfg.lr:g}")
    progress = Progress(max_steps, step, cfg.quiet)
    losses, losses_d1, t_last, step_last, stop_reason = [], [], time.perf_counter(), step, "steps"
    t_start, elapsed0 = time.perf_counter(), elapsed
    last_eval = None
    try:
        while step < max_steps:
            x = mx.array(train_rows[batch_rows(len(train_rows), cfg.batch_size, step, cfg.seed)].astype(np.int32))
            loss, per_depth = train_step(x)
            mx.eval(head.state, optimizer.state, loss, per_depth)
            losses.append(loss.item())
            train_lib.check_finite_loss(losses[-1], step + 1, ckpt_path)
            losses_d1.append(per_depth[0].item())
            step += 1
            now = time.perf_counter()
            elapsed = elapsed0 + now - t_start
            do_eval = step % cfg.eval_every == 0 or step == max_steps
            if step % cfg.log_every == 0 or do_eval:
                tps = (step - step_last) * tokens_per_step / max(now - t_last, 1e-9)
                lr = optimizer.learning_rate.item()
                ev = evaluate(head, valid_rows, cfg.batch_size) if do_eval else {}
                row = dict(step=step, tokens=step * tokens_per_step, train_loss=f"{np.mean(losses):.5f}",
                           train_loss_d1=f"{np.mean(losses_d1):.5f}", lr=f"{lr:.3e}", tokens_per_s=f"{tps:.0f}",
                           elapsed_s=f"{elapsed:.1f}")
                if ev:
                    last_eval = ev
                    row.update(valid_loss_d1=f"{ev['loss_d1']:.5f}", base_loss=f"{ev['base_loss']:.5f}",
                               **{k: f"{ev[k]:.5f}" for k in ("acc_d1", "acc_d2", "acc_d3", "agree_d1", "base_acc")
                                  if k in ev})
                curves.writerow(row)
                curves_f.flush()
                left = min((max_steps - step) * (now - t_last) / max(step - step_last, 1), budget_s - elapsed)
                info = f"loss {np.mean(losses):.3f} (d1 {np.mean(losses_d1):.3f})"
                if ev:
                    info += f" | valid d1 {ev['loss_d1']:.3f} acc {ev['acc_d1']:.1%} (base {ev['base_acc']:.1%})"
                progress.update(step, f"{info} | {tps:,.0f} tok/s", left)
                losses, losses_d1, t_last, step_last = [], [], time.perf_counter(), step
            if step % cfg.ckpt_every == 0 and step < max_steps:
                save_checkpoint(ckpt_path, head, optimizer, run_meta())
            if elapsed >= budget_s and step < max_steps:
                stop_reason = "time budget"
                break
    except KeyboardInterrupt:
        progress.close()
        save_checkpoint(ckpt_path, head, optimizer, run_meta())
        raise InterruptedRun(f"interrupted at step {step}; checkpoint saved, continue with --resume") from None
    finally:
        curves_f.close()
    progress.close()
    if last_eval is None or stop_reason != "steps":
        last_eval = evaluate(head, valid_rows, cfg.batch_size)
    elapsed = elapsed0 + time.perf_counter() - t_start
    save_checkpoint(ckpt_path, head, optimizer, run_meta())
    summary = dict(steps=step, max_steps=max_steps, stop_reason=stop_reason, tokens_seen=step * tokens_per_step,
                   wall_time_s=round(elapsed, 1), head_parameters=n_params, **{k: round(v, 4) for k, v in last_eval.items()})
    say(f"done: {json.dumps(summary)}")

    plot_note = write_plot(curves_path, run_dir / PLOT)
    if plot_note:
        say(plot_note)
    if cfg.out:
        base_file = Path(cfg.base) / "model.safetensors"
        card = dict(
            base=cfg.base, corpus=f"{cfg.corpus} ({cfg.train_stories:,} train stories)",
            steps=step, tokens_seen=step * tokens_per_step, batch=f"{cfg.batch_size} x {cfg.seq_len} tokens",
            loss=f"cross-entropy at depths 1..{cfg.depth}, weights {', '.join(f'{w:.2f}' for w in weights)}",
            optimizer=f"AdamW lr {cfg.lr:g} (warmup {cfg.warmup}, cosine to {cfg.lr * cfg.min_lr_ratio:g}), "
                      f"wd {cfg.weight_decay:g}, clip {cfg.grad_clip:g}",
            wall_time=f"{elapsed / 60:.1f} min", machine=machine(),
            validation=f"{len(valid_rows) * cfg.seq_len:,} held-out tokens (bundled valid split)",
            plot=plot_note or PLOT, invoked_as=invocation or cfg_command(cfg),
            final={k: round(v, 4) for k, v in last_eval.items()},
        )
        plot = run_dir / PLOT
        extra = {CURVES: curves_path, PLOT: plot if plot.is_file() and plot.stat().st_size < 200_000 else None}
        save_head(head, cfg.out, base_name=Path(cfg.base).name, tokenizer_fingerprint=tok.fingerprint,
                  base_weights_sha256=_file_sha256(base_file) if base_file.is_file() else None,
                  card=card, extra_files=extra, overwrite=cfg.overwrite)
        say(f"saved {cfg.out}")
    summary["head"] = head
    return summary


def write_plot(curves_path: Path, out: Path) -> str | None:
    """The curves as a PNG; matplotlib is an optional extra. Returns a note when skipped."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install 'mlx-specdec[plot]'): curves.csv only, no PNG"
    with open(curves_path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return "no curve rows to plot"

    def series(key):
        pts = [(int(r["step"]), float(r[key])) for r in rows if r.get(key)]
        return [p[0] for p in pts], [p[1] for p in pts]

    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.4), dpi=80)
    a.plot(*series("train_loss_d1"), label="train, depth 1", lw=1)
    a.plot(*series("valid_loss_d1"), "o-", label="valid, depth 1", ms=3)
    a.plot(*series("base_loss"), "--", label="base one-ahead (valid)", lw=1)
    a.set_xlabel("step"), a.set_ylabel("cross-entropy"), a.legend(fontsize=8), a.set_title("two-ahead loss")
    for key, label in (("acc_d1", "head x_{t+2}"), ("acc_d2", "head x_{t+3}"), ("acc_d3", "head x_{t+4}"),
                       ("base_acc", "base x_{t+2} (one-ahead)"), ("agree_d1", "head = base top-1")):
        xs, ys = series(key)
        if xs:
            b.plot(xs, ys, "--" if key in ("base_acc", "agree_d1") else "o-", label=label, ms=3, lw=1)
    b.set_xlabel("step"), b.set_ylabel("top-1 accuracy (valid)"), b.legend(fontsize=8), b.set_title("accuracy")
    fig.tight_layout()
    tmp = out.with_suffix(".tmp.png")
    try:
        fig.savefig(tmp)
        os.replace(tmp, out)
    finally:
        plt.close(fig)
        tmp.unlink(missing_ok=True)
    return None


def cfg_command(cfg: MTPTrainConfig) -> str:
    default = MTPTrainConfig()
    parts = ["python -m mlx_specdec.mtp train"]
    for f in fields(cfg):
        v = getattr(cfg, f.name)
        if f.name in ("quiet", "resume", "overwrite") or (v == getattr(default, f.name) and f.name != "base"):
            continue
        parts.append(f"--{f.name.replace('_', '-')} {v}")
    return " ".join(parts)


# ----------------------------------------------------------------------------
# Measurement
# ----------------------------------------------------------------------------


def heldout_prompts(tok, n: int, prompt_tokens: int, seed: int = 0) -> list[list[int]]:
    """The first `prompt_tokens` ids of held-out (valid split) bundled stories."""
    from .data import iter_texts

    out = []
    for text in iter_texts("bundled", "valid", n=4 * n, seed=seed):
        ids = tok.encode(text, bos=True)
        if len(ids) > prompt_tokens:
            out.append(ids[:prompt_tokens])
        if len(out) == n:
            break
    return out


def bench(base, tok, head, *, prompts: int = 10, prompt_tokens: int = 30, max_tokens: int = 100,
          depths=(1, 2, 3), repeats: int = 3, strategy: str = "cache", log=print) -> dict:
    """Plain greedy vs MTP self-speculation at each depth on held-out prompts.

    Every timed run is synchronised. Modes are interleaved (prompt, repeat,
    mode) so that load from other processes falls on all of them alike; per
    prompt and mode the median of `repeats` runs is kept, and tokens/s sums
    tokens and median seconds over prompts.
    """
    from .generate import SpecStats, plain_stream, speculative_stream
    from .train import machine

    ps = heldout_prompts(tok, prompts, prompt_tokens)
    eos = tok.eos_id
    modes = ["plain greedy"] + [f"MTP depth {d}" for d in depths]
    drafters = {f"MTP depth {d}": (d, MTPDrafter(head, max_depth=d)) for d in depths}

    def run(mode, p, stats=None):
        if mode not in drafters:
            return list(plain_stream(base, p, max_tokens, eos_id=eos, strategy=strategy))
        d, drafter = drafters[mode]
        return [t for e in speculative_stream(base, drafter, p, max_tokens, k=d, eos_id=eos, strategy=strategy,
                                              stats=stats) for t in e.ids]

    def timed(mode, p):
        mx.synchronize()
        t0 = time.perf_counter()
        run(mode, p)
        mx.synchronize()
        return time.perf_counter() - t0

    for p in ps[:2]:  # warm-up: compile the head graphs and the trunk's shapes
        for mode in modes:
            run(mode, p)
    acc = {m: dict(stats=SpecStats(), rounds=[], identical=True, tokens=0, seconds=0.0) for m in modes}
    for p in ps:
        reference = run("plain greedy", p)
        for mode in modes:
            a, s = acc[mode], SpecStats()
            ids = run(mode, p, s)
            a["identical"] &= ids == reference
            a["tokens"] += len(ids)
            if mode in drafters:
                a["rounds"] += drafters[mode][1].rounds
                for k in ("target_passes", "drafted", "accepted", "generated"):
                    setattr(a["stats"], k, getattr(a["stats"], k) + getattr(s, k))
        times = {m: [] for m in modes}
        for _ in range(repeats):
            for mode in modes:
                times[mode].append(timed(mode, p))
        for mode in modes:
            acc[mode]["seconds"] += float(np.median(times[mode]))
    plain_tps = acc["plain greedy"]["tokens"] / acc["plain greedy"]["seconds"]
    rows = []
    for mode in modes:
        a = acc[mode]
        tps = a["tokens"] / a["seconds"]
        row = dict(mode=mode, tokens_per_s=tps, speedup=tps / plain_tps, identical=a["identical"],
                   generated=a["tokens"], seconds=a["seconds"])
        if mode in drafters:
            st = a["stats"]
            row.update(tokens_per_pass=st.tokens_per_pass, acceptance_rate=st.acceptance_rate,
                       by_depth=acceptance_by_depth(a["rounds"], drafters[mode][0]),
                       **{k: getattr(st, k) for k in ("target_passes", "drafted", "accepted")})
        else:
            row.update(tokens_per_pass=1.0, acceptance_rate=None)
        rows.append(row)
        log(f"{mode}: {row['tokens_per_pass']:.2f} tokens/pass, {tps:.1f} tokens/s ({row['speedup']:.2f}x), "
            f"identical={a['identical']}")
    return dict(prompts=len(ps), prompt_tokens=prompt_tokens, max_tokens=max_tokens, repeats=repeats,
                strategy=strategy, machine=machine(), rows=rows)


# ----------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------


def _train_parser(sub):
    p = sub.add_parser("train", help="train a head on a frozen base")
    train_lib.add_config_flags(p, MTPTrainConfig)


def _parser():
    from .cli_support import Parser, number

    finite = number(float)
    p = Parser(prog="python -m mlx_specdec.mtp", description="Multi-token prediction heads.")
    sub = p.add_subparsers(dest="command", required=True)
    _train_parser(sub)
    g = sub.add_parser("generate", help="self-speculative generation with a head")
    g.add_argument("--base", default="models/storylm-5m")
    g.add_argument("--head", default="models/storylm-5m-mtp")
    g.add_argument("--prompt", default="Once upon a time")
    g.add_argument("-k", "--depth", type=int, default=1, help="draft depth (tokens the head proposes per round)")
    g.add_argument("--max-tokens", type=int, default=200)
    g.add_argument("--temp", type=finite, default=0.0)
    g.add_argument("--top-p", type=finite, default=None)
    g.add_argument("--top-k", type=int, default=None)
    g.add_argument("--seed", type=int, default=None)
    g.add_argument("--strategy", default="cache", choices=["cache", "recompute"])
    g.add_argument("--json", action="store_true")
    b = sub.add_parser("bench", help="plain greedy vs self-speculation at depths 1..3 on held-out prompts")
    b.add_argument("--base", default="models/storylm-5m")
    b.add_argument("--head", default="models/storylm-5m-mtp")
    b.add_argument("--prompts", type=int, default=10)
    b.add_argument("--prompt-tokens", type=int, default=30)
    b.add_argument("--max-tokens", type=int, default=100)
    b.add_argument("--repeats", type=int, default=3)
    b.add_argument("--depths", default="1,2,3")
    b.add_argument("--save", action="store_true", help="write bench.json into the head folder and refresh its card")
    return p


def _generate(args) -> int:
    from .console import LEGEND, TokenStream, print_summary
    from .generate import SpecStats, encode_prompt, json_record, speculative_stream
    from .sampling import SamplingPolicy

    if args.depth < 1:
        raise SpecDecError(f"-k/--depth must be >= 1, got {args.depth}")
    if args.max_tokens < 0:
        raise SpecDecError(f"--max-tokens must be >= 0, got {args.max_tokens}")
    SamplingPolicy(args.temp, args.top_k, args.top_p)  # validate before loading anything
    base, tok, head = load_base_and_head(args.base, args.head)
    prompt = encode_prompt(tok, args.prompt)
    stats = SpecStats()
    view = None if args.json else TokenStream(tok, prompt=prompt, legend=LEGEND)
    drafter = MTPDrafter(head, max_depth=args.depth)
    t0 = time.perf_counter()
    ids, interrupted = [], False
    try:
        for e in speculative_stream(base, drafter, prompt, args.max_tokens, k=args.depth, eos_id=tok.eos_id,
                                    temperature=args.temp, top_k=args.top_k, top_p=args.top_p, seed=args.seed,
                                    strategy=args.strategy, stats=stats):
            ids += e.ids
            if view is not None:
                view.write(e.ids, e.kinds)
        mx.synchronize()
    except KeyboardInterrupt:  # keep what was generated: print it and its stats, exit 130
        interrupted = True
    seconds = time.perf_counter() - t0
    code = 130 if interrupted else 0
    if args.json:
        print(json_record(dict(base=args.base, head=args.head, depth=args.depth, ids=ids, text=tok.decode(ids),
                               stats=stats.as_dict(), seconds=seconds, interrupted=interrupted)))
        return code
    view.finish()
    print_summary([
        ("generated", f"{len(ids)} tokens in {seconds:.2f} s ({len(ids) / max(seconds, 1e-9):.1f} tokens/s)"),
        ("target passes", str(stats.target_passes)),
        ("drafted / accepted", f"{stats.drafted} / {stats.accepted}"),
        ("acceptance rate", f"{stats.acceptance_rate:.1%}"),
        ("tokens per target pass", f"{stats.tokens_per_pass:.2f}"),
    ], f"MTP self-speculation on {args.base}, depth {args.depth}" + (" (interrupted)" if interrupted else ""))
    return code


def _bench(args, argv) -> int:
    from .console import print_summary

    try:
        depths = tuple(int(d) for d in args.depths.split(","))
    except ValueError:
        raise SpecDecError(f"--depths must be comma-separated integers, got {args.depths!r}") from None
    if not depths or min(depths) < 1:
        raise SpecDecError(f"--depths must be integers >= 1, got {args.depths!r}")
    for name in ("prompts", "prompt_tokens", "max_tokens", "repeats"):
        if getattr(args, name) < 1:
            raise SpecDecError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.save:  # before the run, not after it: the results would be lost
        check_writable(Path(args.head), flag="--head")
    base, tok, head = load_base_and_head(args.base, args.head)
    result = bench(base, tok, head, prompts=args.prompts, prompt_tokens=args.prompt_tokens,
                   max_tokens=args.max_tokens, depths=depths, repeats=args.repeats)
    result["command"] = "python -m mlx_specdec.mtp " + " ".join(argv)
    rows = []
    for r in result["rows"]:
        by = ", ".join(f"@{a['depth']} {a['rate']:.0%}" for a in r.get("by_depth", []))
        rows.append((r["mode"], f"{r['tokens_per_pass']:.2f} tokens/pass, {r['tokens_per_s']:.1f} tokens/s "
                                f"({r['speedup']:.2f}x), equal={r['identical']}" + (f", accept {by}" if by else "")))
    print_summary(rows, f"MTP self-speculation, {result['prompts']} held-out prompts")
    if args.save:
        folder = Path(args.head)
        write_text_atomic(folder / BENCH, json.dumps(result, indent=2) + "\n")
        card_path = folder / CARD
        text = card_path.read_text() if card_path.is_file() else ""
        cut = text.find("## Self-speculation (measured)")
        text = (text[:cut] if cut >= 0 else text.rstrip("\n") + "\n\n") + "\n".join(render_bench(result))
        write_text_atomic(card_path, text)
    return 0 if all(r["identical"] for r in result["rows"]) else 1


def main(argv=None) -> int:
    from .cli_support import run_main

    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    return run_main(_main, args, argv, json_errors=getattr(args, "json", False))


def _main(args, argv) -> int:
    if args.command == "train":
        # `is not`, not `in`: 0 == False, and --steps 0 must reach validation.
        given = {f.name: getattr(args, f.name) for f in fields(MTPTrainConfig)
                 if getattr(args, f.name) is not None and getattr(args, f.name) is not False}
        summary = train(MTPTrainConfig(**given), invocation="python -m mlx_specdec.mtp " + " ".join(argv))
        summary.pop("head", None)
        return 0
    if args.command == "generate":
        return _generate(args)
    return _bench(args, argv)


if __name__ == "__main__":
    sys.exit(main())
