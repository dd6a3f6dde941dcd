"""Train a block drafter (DFlash) for a frozen target, on the shared loop, from the target's own answers.

    mlx-specdec eagle corpus --target models/real/smollm2-135m-instruct --out runs/smollm2-chat
    mlx-specdec dflash train --base models/real/smollm2-135m-instruct --corpus runs/smollm2-chat \\
        --out models/smollm2-135m-dflash --time-budget-min 45

The corpus is the EAGLE-3 trainer's (`training.chat_corpus`): the target's own
answers to the instruction set, as rows of --seq-len tokens. The target's pass
over a row gives what the drafter reads (its `target_layers` outputs) and what
it must predict (the target's next-token distribution on the draft
vocabulary); it is kept after a row's first pass (`TargetCache`).

A row trains --anchors blocks at once. A block at anchor a holds x_a and
B - 1 masks at positions a .. a + B - 1; it attends to the context rows at
positions < a (what the drafter's cache holds at inference when x_a is the
pending token) and to itself, never to another block: one attention over the
row's context and every block, with that mask. Slot i predicts the target's
distribution at position a + i - 1 (the token at a + i), weighted
--slot-decay**(i - 1); anchors are drawn afresh each step among the answer's
positions.

Validation reports, per slot, how often the drafter's top-1 is the target's
top-1 at every answer position as anchor (acc_1..acc_{B-1}), and the tokens a
greedy pass would give: 1 + the mean length of the agreeing prefix of the
block (tokens_per_pass), since the answers are the target's own greedy tokens.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from ..errors import SpecDecError
from ..model_info import model_vocab_size, token_embedding, trunk_geometry
from ..models.dflash import DFlashConfig, DFlashModel, default_target_layers
from . import loop
from .eagle3 import HEAD_INITS, FeatureTask, open_feature_run, parse_target_layers

PROG = "mlx-specdec dflash train"
CURVES = "curves.csv"


@dataclass
class DFlashTrainConfig(loop.RunConfig):
    base: str = ""  # the target's folder
    corpus: str = ""  # a chat corpus folder (training.chat_corpus), or several: "a,b" (their train splits together)
    valid_corpus: str | None = None  # whose valid split validates (None: --corpus's first)
    init: str | None = None  # a block drafter folder to start from (its weights, architecture, draft vocabulary)
    block_size: int = 8
    layers: int = 2
    n_features: int = 5  # target layers read, spread from layer 1 to L - 3 (z-lab's choice)
    target_layers: str | None = None  # "1,8,15": 0-based layers whose outputs are read; overrides n_features
    draft_vocab: int = 8192
    intermediate_size: int | None = None  # None: the target's
    head_init: str = "target"
    anchors: int = 32  # blocks trained per row and step
    slot_decay: float = 0.9
    seq_len: int = 256
    batch_size: int = 8
    lr: float = 2e-3
    warmup: int = 20
    weight_decay: float = 0.0
    eval_every: int = 50
    eval_rows: int = 48
    ckpt_every: int = 25
    no_target_cache: bool = False
    target_cache_gb: float | None = None  # the kept passes' size at most (None: a share of the memory)
    target_cache_dir: str | None = None  # also keep every row's pass on disk here, for later runs

    LOCAL = (*loop.RunConfig.LOCAL, "no_target_cache", "target_cache_gb", "target_cache_dir")  # this machine's

    def validate(self) -> None:
        super().validate()
        if not self.base or not self.corpus:
            raise SpecDecError("give --base (the target's folder) and --corpus (a chat corpus folder)")
        for name in ("draft_vocab", "layers", "n_features", "anchors"):
            if getattr(self, name) < 1:
                raise SpecDecError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(self, name)}")
        if self.block_size < 2:
            raise SpecDecError(f"--block-size must be >= 2, got {self.block_size}")
        if not 0 < self.slot_decay <= 1:
            raise SpecDecError(f"--slot-decay must be in (0, 1], got {self.slot_decay}")
        if self.head_init not in HEAD_INITS:
            raise SpecDecError(f"--head-init must be one of {', '.join(HEAD_INITS)}, got {self.head_init!r}")
        if self.seq_len < self.block_size + 1:
            raise SpecDecError(f"--seq-len must be >= block-size + 1 = {self.block_size + 1}, got {self.seq_len}")

    def chosen_layers(self, n_layers: int) -> tuple[int, ...]:
        if self.target_layers is None:
            return default_target_layers(n_layers, self.n_features)
        return parse_target_layers(self.target_layers, n_layers)

    def default_run_dir(self) -> Path:
        return Path("runs") / (Path(self.out).name if self.out else Path(self.base).name + "-dflash")


def cfg_command(cfg: DFlashTrainConfig) -> str:
    return loop.cfg_command(cfg, PROG, asdict(DFlashTrainConfig()), always=("base", "corpus"))


# ---------------------------------------------------------------- anchors


def draw_anchors(rows: np.ndarray, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(anchors (N, n) int32, weight (N, n) float32): per row, n distinct answer positions a >= 1 whose slot 1
    is learned (mask[a] = 1), uniformly; a row with fewer such positions repeats none and pads with weight 0."""
    out, weight = np.ones((len(rows), n), np.int32), np.zeros((len(rows), n), np.float32)
    for r, row in enumerate(rows):
        valid = np.flatnonzero(row[1, 1:-1]) + 1
        if len(valid) == 0:
            continue
        take = rng.choice(valid, size=min(n, len(valid)), replace=False)
        out[r, : len(take)], weight[r, : len(take)] = np.sort(take), 1.0
    return out, weight


def every_anchor(rows: np.ndarray, cap: int) -> tuple[np.ndarray, np.ndarray]:
    """Every answer position as an anchor (up to `cap` per row, evenly spaced when there are more)."""
    out, weight = np.ones((len(rows), cap), np.int32), np.zeros((len(rows), cap), np.float32)
    for r, row in enumerate(rows):
        valid = np.flatnonzero(row[1, 1:-1]) + 1
        if len(valid) > cap:
            valid = valid[np.linspace(0, len(valid) - 1, cap).round().astype(int)]
        out[r, : len(valid)], weight[r, : len(valid)] = valid, 1.0
    return out, weight


# ---------------------------------------------------------------- the blocks of a row, in one pass


def _repeat(x, rep):
    return mx.repeat(x, rep, axis=1) if rep > 1 else x


def block_logits(model: DFlashModel, feats: mx.array, ids: mx.array, anchors: mx.array) -> mx.array:
    """Draft-vocabulary logits (R, A, B - 1, Vd) of the blocks at `anchors` (R, A) of each row: what the drafter
    computes with the context rows < a in its cache and x_a pending (see the module docstring)."""
    cfg = model.config
    R, T = ids.shape
    A, B = anchors.shape[1], cfg.block_size
    N = R * A
    rep = cfg.num_attention_heads // cfg.num_key_value_heads
    ctx = model.context(feats)  # (R, T, H)
    first = mx.take_along_axis(ids, anchors, axis=1).reshape(N)
    h = model.block_input(first, B - 1).astype(ctx.dtype)  # (N, B, H)
    offsets = anchors.reshape(N)
    ctx_visible = mx.arange(T)[None, None, :] < anchors[:, :, None]  # (R, A, T)
    ctx_visible = mx.repeat(ctx_visible, B, axis=1)[:, None]  # (R, 1, A * B, T): block-major, slots inside
    for layer in model.layers:
        attn = layer.self_attn
        x = layer.input_layernorm(h)
        ck, cv = attn.keys_values(ctx, 0)  # (R, nkv, T, d)
        ck, cv = _repeat(ck, rep), _repeat(cv, rep)
        q = attn.queries(x, offsets)  # (N, nh, B, d)
        kb, vb = attn.keys_values(x, offsets)
        kb, vb = _repeat(kb, rep), _repeat(vb, rep)
        nh, d = q.shape[1], q.shape[-1]
        qr = q.reshape(R, A, nh, B, d).transpose(0, 2, 1, 3, 4).reshape(R, nh, A * B, d)
        s_ctx = (qr @ ck.transpose(0, 1, 3, 2)) * attn.scale  # (R, nh, A * B, T)
        s_ctx = mx.where(ctx_visible, s_ctx, -mx.inf)
        s_blk = (q @ kb.transpose(0, 1, 3, 2)) * attn.scale  # (N, nh, B, B)
        s_blk = s_blk.reshape(R, A, nh, B, B).transpose(0, 2, 1, 3, 4).reshape(R, nh, A * B, B)
        w = mx.softmax(mx.concatenate([s_ctx, s_blk], axis=-1).astype(mx.float32), axis=-1).astype(q.dtype)
        mixed = w[..., :T] @ cv  # (R, nh, A * B, d)
        w_blk = w[..., T:].reshape(R, nh, A, B, B).transpose(0, 2, 1, 3, 4).reshape(N, nh, B, B)
        mixed = mixed.reshape(R, nh, A, B, d).transpose(0, 2, 1, 3, 4).reshape(N, nh, B, d) + w_blk @ vb
        h = h + attn.o_proj(mixed.transpose(0, 2, 1, 3).reshape(N, B, nh * d))
        h = h + layer.mlp(layer.post_attention_layernorm(h))
    logits = model.head(model.norm(h[:, 1:]))
    return logits.reshape(R, A, B - 1, -1)


def slot_targets(logp: mx.array, mask: mx.array, top: mx.array, anchors: mx.array, n_slots: int):
    """What slot i of the block at anchor a predicts: the target at position a + i - 1 (masked past the row)."""
    T = mask.shape[1]
    pos = anchors[:, :, None] + mx.arange(n_slots)[None, None, :]  # (R, A, S): a + i - 1 for i = 1..S
    inside = pos < T
    pos = mx.minimum(pos, T - 1)
    R, A, S = pos.shape
    flat = pos.reshape(R, A * S)
    lp = mx.take_along_axis(logp, flat[..., None], axis=1).reshape(R, A, S, -1)
    m = (mx.take_along_axis(mask, flat, axis=1).reshape(R, A, S) * inside).astype(mx.float32)
    tp = mx.take_along_axis(top, flat, axis=1).reshape(R, A, S)
    return lp, m, tp


def block_loss(model: DFlashModel, x: mx.array, given, anchors: mx.array, weight: mx.array, decay: float):
    """(weighted loss, per-slot losses): soft cross-entropy against the target over the draft vocabulary.
    x: rows (R, 2, T) (ids, answer mask); given: their target pass (features, log-probabilities, top-1)."""
    ids, mask = x[:, 0], x[:, 1]
    feats, logp, top = given
    S = model.config.block_size - 1
    logits = block_logits(model, feats, ids, anchors)
    lp, m, _ = slot_targets(logp, mask, top, anchors, S)
    m = m * weight[..., None]
    ce = -(mx.exp(lp) * nn.log_softmax(logits.astype(mx.float32), axis=-1)).sum(axis=-1)  # (R, A, S)
    per_slot = (ce * m).sum(axis=(0, 1)) / mx.maximum(m.sum(axis=(0, 1)), 1.0)
    w = mx.array([decay**i for i in range(S)])
    return (per_slot * w).sum() / w.sum(), per_slot


def evaluate(model: DFlashModel, rows: np.ndarray, targets, batch_size: int, cap: int = 256) -> dict:
    """Per slot: the soft loss and how often the drafter's top-1 (as a target id) is the target's top-1, every
    answer position an anchor; and tokens_per_pass = 1 + the mean agreeing prefix of a block."""
    S = model.config.block_size - 1
    d2t = model.draft_to_target
    sums = np.zeros((S, 3))  # loss * n, agreements, n
    prefix, blocks = 0.0, 0.0
    for i in range(0, len(rows), batch_size):
        part = rows[i : i + batch_size]
        anchors, weight = every_anchor(part, min(cap, part.shape[-1]))
        x = mx.array(part)
        feats, logp, top = targets(part)
        a, w = mx.array(anchors), mx.array(weight)
        logits = block_logits(model, feats, x[:, 0], a)
        lp, m, tp = slot_targets(logp, x[:, 1], top, a, S)
        m = m * w[..., None]
        ce = -(mx.exp(lp) * nn.log_softmax(logits.astype(mx.float32), axis=-1)).sum(axis=-1)
        pick = mx.argmax(logits, axis=-1)
        agree = ((pick if d2t is None else d2t[pick]) == tp).astype(mx.float32) * m  # (R, A, S)
        run = mx.cumprod(agree, axis=-1).sum(axis=-1) * w  # the agreeing prefix of each block
        mx.eval(ce, agree, run)
        sums[:, 0] += np.array((ce * m).sum(axis=(0, 1)))
        sums[:, 1] += np.array(agree.sum(axis=(0, 1)))
        sums[:, 2] += np.array(m.sum(axis=(0, 1)))
        prefix += float(run.sum().item())
        blocks += float(w.sum().item())
    n = np.maximum(sums[:, 2], 1)
    out = {f"valid_loss_{j + 1}": sums[j, 0] / n[j] for j in range(S)}
    out.update({f"acc_{j + 1}": sums[j, 1] / n[j] for j in range(S)})
    out["valid_loss"] = float(np.average(sums[:, 0] / n, weights=[0.9**j for j in range(S)]))
    out["tokens_per_pass"] = 1.0 + prefix / max(blocks, 1.0)
    return out


class DFlashTask(FeatureTask):
    label = "dflash"
    model_class = DFlashModel

    def __init__(self, cfg: DFlashTrainConfig, target, draft_config: DFlashConfig, vocab: np.ndarray,
                 valid_rows: np.ndarray, start=None, identity: dict | None = None, fit_rows: np.ndarray | None = None):
        self.rng = np.random.default_rng(cfg.seed)  # anchors, drawn afresh each step
        super().__init__(cfg, target, draft_config, vocab, valid_rows, draft_config.block_size - 1,
                         valid_columns=("tokens_per_pass",), start=start, identity=identity, fit_rows=fit_rows)

    def bind(self, module) -> None:
        module.bind(token_embedding(self.target))

    def loss(self, module, x):
        rows, anchors, weight, *given = x
        return block_loss(module, rows, given, anchors, weight, self.cfg.slot_decay)

    def batch(self, rows: np.ndarray):
        anchors, weight = draw_anchors(rows, self.cfg.anchors, self.rng)
        return (mx.array(rows), mx.array(anchors), mx.array(weight), *self.target_rows(rows))

    def score(self, rows: np.ndarray) -> dict:
        return evaluate(self.module, rows, self.target_rows, self.cfg.batch_size)

    def info(self, train: dict, valid: dict) -> str:
        text = f"loss {train['train_loss']:.3f}"
        return text + (f" | {valid['tokens_per_pass']:.2f} tok/pass | {self.acc_text(valid)}" if valid else "")


def draft_config_for(target, cfg: DFlashTrainConfig, vocab_size: int) -> DFlashConfig:
    g = trunk_geometry(target)
    return DFlashConfig(
        **{**g, "intermediate_size": cfg.intermediate_size or g["intermediate_size"]},
        num_hidden_layers=cfg.layers, vocab_size=vocab_size, block_size=cfg.block_size,
        target_layers=cfg.chosen_layers(len(target.layers)), target_hidden_size=g["hidden_size"],
        draft_vocab_size=min(cfg.draft_vocab, vocab_size), mask_token_id=None)


def train(cfg: DFlashTrainConfig, target=None, tokenizer=None, invocation: str | None = None) -> dict:
    """Train (or resume) a block drafter; writes cfg.out (a drafter folder) when set. Returns a summary."""
    from ..models.dflash import save_dflash

    run = open_feature_run(cfg, target, tokenizer, cfg.chosen_layers, kind="dflash")
    # --init: the architecture is the drafter's; --resume: the checkpoint's
    kept = run.meta.get("architecture") if run.meta is not None else None
    draft_config = (DFlashConfig.from_dict(kept) if isinstance(kept, dict) else run.start.config
                    if run.start is not None else draft_config_for(run.target, cfg, model_vocab_size(run.target)))
    task = DFlashTask(cfg, run.target, draft_config, run.vocab, run.valid_rows, run.start, run.identity, run.fit_rows)
    run.say(f"block drafter for {cfg.base}: {draft_config.num_hidden_layers} layers, blocks of "
            f"{draft_config.block_size}, target layers "
            f"{list(draft_config.target_layers)}, draft vocabulary {len(run.vocab):,} ({run.coverage:.1%} of answer "
            f"tokens), {len(run.train_rows):,} conversations of <= {cfg.seq_len} tokens, {cfg.anchors} anchors a row")
    summary = run.run(task, cfg, invocation or cfg_command(cfg))
    if cfg.out:
        card = run.card(cfg, summary)
        if "tokens_per_pass" in summary:
            card["tokens_per_pass"] = float(summary["tokens_per_pass"])
        save_dflash(task.module, cfg.out, target_name=Path(cfg.base).name, target=run.identity, card=card,
                    curves=run.run_dir / CURVES, overwrite=cfg.overwrite)
        run.say(f"saved {cfg.out}")
    summary["drafter"] = task.module
    return summary
