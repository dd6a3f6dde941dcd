"""Train an EAGLE-3 drafter for a frozen target, on the shared loop, from the target's own answers.

    mlx-specdec eagle corpus --target models/real/smollm2-135m-instruct --out runs/smollm2-chat
    mlx-specdec eagle train --base models/real/smollm2-135m-instruct --corpus runs/smollm2-chat \\
        --out models/smollm2-135m-eagle3 --time-budget-min 60

Each training row is one conversation of the corpus (the instruction through
the chat template, then the target's answer), cut or padded to --seq-len. The
frozen target runs over the row inside the compiled step and gives both what
the drafter reads (its `target_layers` outputs) and what it must predict (the
target's next-token distribution, restricted to the draft vocabulary).

The training-time test (EAGLE-3): the drafter is unrolled --ttt-steps steps
the way it drafts. Step 0 at anchor t reads (fc(f_t), x_{t+1}) and predicts
the target's distribution at t+1; step j reads (its own step j-1 output at t,
x_{t+1+j}) at position t+j and predicts the target's distribution at t+1+j.
A step-j query attends to the true rows (step 0) at anchors <= t and to the
rows of steps 1..j at its own anchor t only, which is what the drafter's cache
holds at inference when it drafts j tokens past a verified position t. Step j's
loss weighs --step-decay**j; only positions whose next token is part of the
answer count.

Validation reports, per step, how often the drafter's top-1 equals the
target's (acc_1..acc_n): since the answers are the target's own greedy
tokens, that is greedy acceptance at draft depth j given the drafts before it
were accepted.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from ..errors import IncompatibleModelsError, SpecDecError
from ..features import capture, tap
from ..model_info import model_vocab_size, output_projection, token_embedding, trunk_geometry
from ..models.eagle3 import Eagle3Config, Eagle3Model, default_target_layers
from . import loop
from .chat_corpus import corpora_target, corpus_folders, read_corpora, token_counts
from .distill import target_identity
from .rows import RowCache, RowStore
from .stages import CURVES, InitialDrafter, initial_drafter

PROG = "mlx-specdec eagle train"
HEAD_INITS = ("target", "random")


def parse_target_layers(text, n_layers: int) -> tuple[int, ...]:
    """--target-layers "1,8,15": 0-based target layers whose outputs a feature drafter reads."""
    try:
        layers = tuple(int(s) for s in str(text).split(","))
    except ValueError:
        raise SpecDecError(f"--target-layers must be comma-separated layer indices, got {text!r}") from None
    bad = [i for i in layers if not 0 <= i < n_layers]
    if bad:
        raise SpecDecError(f"--target-layers {bad[0]} is not a layer of this {n_layers}-layer target")
    return layers


@dataclass
class Eagle3TrainConfig(loop.RunConfig):
    base: str = ""  # the target's folder
    corpus: str = ""  # a chat corpus folder (training.chat_corpus), or several: "a,b" (their train splits together)
    valid_corpus: str | None = None  # whose valid split validates (None: --corpus's first)
    init: str | None = None  # an EAGLE-3 drafter folder to start from (its weights and draft vocabulary)
    draft_vocab: int = 8192
    ttt_steps: int = 4
    step_decay: float = 0.8
    target_layers: str | None = None  # "1,14,26": 0-based layers whose outputs are read; None: EAGLE-3's choice
    intermediate_size: int | None = None  # None: the target's
    head_init: str = "target"  # "target": lm_head from the target's head rows, norm from its final norm; "random"
    seq_len: int = 384
    batch_size: int = 8
    lr: float = 1e-3
    warmup: int = 50
    weight_decay: float = 0.0
    eval_every: int = 100
    eval_rows: int = 48
    ckpt_every: int = 50
    no_target_cache: bool = False  # recompute the target's pass over a row every time it is drawn
    target_cache_gb: float | None = None  # the kept passes' size at most (None: TARGET_CACHE_SHARE of the memory)
    target_cache_dir: str | None = None  # also keep every row's pass on disk here, for later runs (rows.RowStore)

    LOCAL = (*loop.RunConfig.LOCAL, "no_target_cache", "target_cache_gb", "target_cache_dir")  # this machine's

    def validate(self) -> None:
        super().validate()
        if not self.base or not self.corpus:
            raise SpecDecError("give --base (the target's folder) and --corpus (a chat corpus folder)")
        for name in ("draft_vocab", "ttt_steps"):
            if getattr(self, name) < 1:
                raise SpecDecError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(self, name)}")
        if not 0 < self.step_decay <= 1:
            raise SpecDecError(f"--step-decay must be in (0, 1], got {self.step_decay}")
        if self.head_init not in HEAD_INITS:
            raise SpecDecError(f"--head-init must be one of {', '.join(HEAD_INITS)}, got {self.head_init!r}")
        if self.seq_len < self.ttt_steps + 2:
            raise SpecDecError(f"--seq-len must be >= ttt-steps + 2 = {self.ttt_steps + 2}, got {self.seq_len}")

    def layers(self, n_layers: int) -> tuple[int, ...]:
        if self.target_layers is None:
            return default_target_layers(n_layers)
        return parse_target_layers(self.target_layers, n_layers)

    def default_run_dir(self) -> Path:
        return Path("runs") / (Path(self.out).name if self.out else Path(self.base).name + "-eagle3")


def cfg_command(cfg: Eagle3TrainConfig) -> str:
    return loop.cfg_command(cfg, PROG, asdict(Eagle3TrainConfig()), always=("base", "corpus"))


# ---------------------------------------------------------------- data


def conversation_rows(records: list[dict], seq_len: int) -> np.ndarray:
    """(N, 2, seq_len) int32: token ids, and 1 where the target's prediction at the position is what the drafter
    learns: from the last prompt token (which predicts the answer's first) to the answer's last token (which
    predicts the end of the turn, or the answer's continuation where max_new cut it)."""
    out = np.zeros((len(records), 2, seq_len), np.int32)
    for i, r in enumerate(records):
        ids = (r["prompt"] + r["answer"])[:seq_len]
        out[i, 0, : len(ids)] = ids
        out[i, 1, max(len(r["prompt"]) - 1, 0) : len(ids)] = 1
    return out


def draft_vocabulary(records: list[dict], vocab_size: int, size: int, always=()) -> np.ndarray:
    """The `size` most frequent answer tokens (ties by id), with `always` (end-of-turn ids) in: sorted target ids."""
    counts = token_counts(records, vocab_size).astype(np.float64)
    counts[list(always)] = np.inf
    order = np.lexsort((np.arange(vocab_size), -counts))
    return np.sort(order[:size]).astype(np.int32)


# ---------------------------------------------------------------- the target's side


def target_pass(target, layers: tuple[int, ...], ids: mx.array, vocab: mx.array):
    """(features (B, T, L * H), the target's log-probabilities over the draft vocabulary (B, T, Vd), its top-1
    over the whole vocabulary (B, T)); no gradient reaches the target."""
    with capture() as sink:
        logits = target(ids)
    feats = mx.concatenate([sink[i] for i in layers], axis=-1)
    logits = logits.astype(mx.float32)
    top = mx.argmax(logits, axis=-1)
    logp = nn.log_softmax(logits[..., vocab], axis=-1)
    return mx.stop_gradient(feats), mx.stop_gradient(logp), top


def target_head_rows(target, ids: mx.array, hidden: int) -> mx.array:
    """(len(ids), hidden): the target's output head (model_info.output_projection: its own head or its tied
    embedding, quantized or not) as rows for target ids `ids`, read back through the head itself."""
    return output_projection(target)(mx.eye(hidden, dtype=mx.float32))[:, ids].T.astype(mx.float32)


def init_from_target(model: Eagle3Model, target, vocab: mx.array) -> None:
    """Start the draft head where the target's ends: lm_head = the target's head rows of the draft vocabulary,
    norm = the target's final norm (its effective scale, so a Gemma-style 1 + w norm reads right). The drafter
    then only has to learn to produce a hidden state the target's own head reads as the next token."""
    dtype = model.lm_head.weight.dtype
    model.lm_head.weight = target_head_rows(target, vocab, model.config.hidden_size).astype(dtype)
    final = getattr(target.model, "norm", None)
    if final is not None:
        ones = mx.ones((model.config.hidden_size,), dtype=mx.float32)
        eps = getattr(final, "eps", 0.0)
        model.norm.weight = (final(ones) * math.sqrt(1.0 + eps)).astype(model.norm.weight.dtype)


TARGET_CACHE_SHARE = 0.6  # of the machine's memory, what the kept target passes may take by default


def target_cache_bytes(gb: float | None) -> float:
    """--target-cache-gb in bytes, or TARGET_CACHE_SHARE of the machine's physical memory."""
    if gb is not None:
        return gb * 2**30
    try:
        return TARGET_CACHE_SHARE * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # no sysconf (not POSIX): no size
        return math.inf


def target_store(root: str, identity: dict | None, layers, vocab: np.ndarray) -> RowStore:
    """The on-disk rows of this target pass: its folder under `root` is named by the target's weights, the
    feature layers, the draft vocabulary and the way rows are kept (TargetCache's float16)."""
    if identity is None:
        raise SpecDecError("--target-cache-dir needs the target's identity (its folder's weights)")
    vocab = np.asarray(vocab, np.int32)
    return RowStore(root, {"target": identity, "layers": [int(i) for i in layers], "format": "float16-v1",
                           "vocab": hashlib.sha256(vocab.tobytes()).hexdigest()[:16], "vocab_size": len(vocab)})


class TargetCache(RowCache):
    """Each row's target pass (features, draft-vocabulary log-probabilities, top-1), kept after its first: the
    target is frozen, so every later epoch reads it back instead of running the target again (a SmolLM2 pass
    costs about what the drafter's whole training step does). Both are kept in float16 (features in float32
    where a row's exceed float16's range), which halves what a row takes (a 256-token SmolLM2 row with 5
    feature layers: 5.7 MB instead of 11.4), and read back as float32; past `max_bytes` rows are not kept."""

    def __init__(self, target, layers, vocab: mx.array, max_bytes: float = math.inf, store: RowStore | None = None):
        self.target, self.layers, self.vocab = target, layers, vocab
        super().__init__(self._target_pass, max_bytes=max_bytes, store=store)

    def _target_pass(self, rows: np.ndarray) -> tuple:
        feats, logp, top = target_pass(self.target, self.layers, mx.array(rows[:, 0]), self.vocab)
        half = feats.astype(mx.float16)
        if not mx.isinf(half).any().item():
            feats = half
        return feats, logp.astype(mx.float16), top

    def __call__(self, rows: np.ndarray):
        feats, logp, top = super().__call__(rows)
        return feats.astype(mx.float32), logp.astype(mx.float32), top


# ---------------------------------------------------------------- the training-time test


def _heads(x, proj, n):
    b, t, _ = x.shape
    return proj(x).reshape(b, t, n, -1).transpose(0, 2, 1, 3)


def unroll(model: Eagle3Model, feats: mx.array, ids: mx.array, steps: int) -> list[mx.array]:
    """Draft-vocabulary logits of each TTT step, (B, T-1, Vd) at anchors t = 0..T-2 (see the module docstring)."""
    layer, attn, cfg = model.midlayer, model.midlayer.self_attn, model.config
    T = ids.shape[1]
    anchors = T - 1
    rep = cfg.num_attention_heads // cfg.num_key_value_heads
    hidden = model.fuse(feats[:, :anchors])
    causal = mx.arange(anchors)[:, None] >= mx.arange(anchors)[None]
    keys, values, out = [], [], []
    for j in range(steps):
        tokens = ids[:, 1 + j : 1 + j + anchors]
        if tokens.shape[1] < anchors:  # past the row's end: padding (masked out of the loss)
            tokens = mx.pad(tokens, [(0, 0), (0, anchors - tokens.shape[1])])
        emb = model.embed(tokens).astype(hidden.dtype)
        normed = layer.hidden_norm(hidden)
        residual = normed if layer.norm_before_residual else hidden
        x = mx.concatenate([layer.input_layernorm(emb), normed], axis=-1)
        q = attn.rope(_heads(x, attn.q_proj, attn.n_heads), offset=j)
        k = attn.rope(_heads(x, attn.k_proj, attn.n_kv_heads), offset=j)
        v = _heads(x, attn.v_proj, attn.n_kv_heads)
        keys.append(mx.repeat(k, rep, axis=1) if rep > 1 else k)
        values.append(mx.repeat(v, rep, axis=1) if rep > 1 else v)
        scores = [mx.where(causal, (q @ keys[0].transpose(0, 1, 3, 2)) * attn.scale, -mx.inf)]
        scores += [((q * kk).sum(axis=-1) * attn.scale)[..., None] for kk in keys[1:]]  # own anchor only
        weights = mx.softmax(mx.concatenate(scores, axis=-1).astype(mx.float32), axis=-1).astype(q.dtype)
        mixed = weights[..., :anchors] @ values[0]
        for i, vv in enumerate(values[1:]):
            mixed = mixed + weights[..., anchors + i : anchors + i + 1] * vv
        b = mixed.shape[0]
        h = residual + attn.o_proj(mixed.transpose(0, 2, 1, 3).reshape(b, anchors, -1))
        h = h + layer.mlp(layer.post_attention_layernorm(h))
        normed = model.norm(h)
        out.append(model.lm_head(normed))
        hidden = normed if cfg.norm_output else h
    return out


def step_targets(logp: mx.array, mask: mx.array, top: mx.array, j: int, anchors: int):
    """What step j at anchors 0..anchors-1 predicts: the target at positions t+1+j (zero-padded past the end)."""
    sl = slice(1 + j, 1 + j + anchors)
    lp, m, tp = logp[:, sl], mask[:, sl], top[:, sl]
    short = anchors - lp.shape[1]
    if short:
        lp = mx.pad(lp, [(0, 0), (0, short), (0, 0)])
        m = mx.pad(m, [(0, 0), (0, short)])
        tp = mx.pad(tp, [(0, 0), (0, short)])
    return lp, m.astype(mx.float32), tp


def ttt_loss(model: Eagle3Model, target, layers, vocab, x: mx.array, steps: int, decay: float, given=None):
    """(weighted loss, per-step losses): soft cross-entropy against the target over the draft vocabulary.
    `given`: the rows' target pass (a TargetCache's), else the target runs here."""
    ids, mask = x[:, 0], x[:, 1]
    feats, logp, top = given if given is not None else target_pass(target, layers, ids, vocab)
    anchors = ids.shape[1] - 1
    losses = []
    for j, logits in enumerate(unroll(model, feats, ids, steps)):
        lp, m, _ = step_targets(logp, mask, top, j, anchors)
        ce = -(mx.exp(lp) * nn.log_softmax(logits.astype(mx.float32), axis=-1)).sum(axis=-1)
        losses.append((ce * m).sum() / mx.maximum(m.sum(), 1.0))
    weights = [decay**j for j in range(steps)]
    return sum(w * l for w, l in zip(weights, losses)) / sum(weights), mx.stack(losses)


def evaluate(model: Eagle3Model, target, layers, vocab, rows: np.ndarray, steps: int, batch_size: int,
             targets=None) -> dict:
    """Per step: the soft loss and how often the drafter's top-1 (as a target id) is the target's top-1.
    `targets`: rows -> their target pass (a TargetCache), else the target runs here."""
    d2t = model.draft_to_target
    sums = np.zeros((steps, 3))  # loss * n, agreements, n
    for i in range(0, len(rows), batch_size):
        x = mx.array(rows[i : i + batch_size])
        ids, mask = x[:, 0], x[:, 1]
        feats, logp, top = (targets(rows[i : i + batch_size]) if targets is not None
                            else target_pass(target, layers, ids, vocab))
        anchors = ids.shape[1] - 1
        for j, logits in enumerate(unroll(model, feats, ids, steps)):
            lp, m, tp = step_targets(logp, mask, top, j, anchors)
            ce = -(mx.exp(lp) * nn.log_softmax(logits.astype(mx.float32), axis=-1)).sum(axis=-1)
            agree = (d2t[mx.argmax(logits, axis=-1)] == tp).astype(mx.float32)
            sums[j] += [(ce * m).sum().item(), (agree * m).sum().item(), m.sum().item()]
    n = np.maximum(sums[:, 2], 1)
    out = {f"valid_loss_{j + 1}": sums[j, 0] / n[j] for j in range(steps)}
    out.update({f"acc_{j + 1}": sums[j, 1] / n[j] for j in range(steps)})
    out["valid_loss"] = float(np.average(sums[:, 0] / n, weights=[0.8**j for j in range(steps)]))
    return out


class FeatureTask(loop.Task):
    """What the EAGLE-3 and block-drafter trainers share: the frozen target's rows (kept by a TargetCache unless
    --no-target-cache), a draft module on a reduced draft vocabulary, started from the target's head, and the
    curves' per-term columns. A subclass sets `label`, `model_class` and `bind`, and its loss and evaluation."""

    curves = CURVES
    prefix = "drafter"
    model_class: type

    def __init__(self, cfg, target, draft_config, vocab: np.ndarray, valid_rows: np.ndarray, n_terms: int,
                 valid_columns: tuple[str, ...] = (), start: InitialDrafter | None = None,
                 identity: dict | None = None, fit_rows: np.ndarray | None = None):
        self.cfg, self.target, self.draft_config, self.valid_rows = cfg, target, draft_config, valid_rows
        # Training rows the final validation also scores (FeatureRun.fit_rows): acceptance on answers the drafter
        # learned from, beside the validation's on answers it never saw.
        self.fit_rows = fit_rows
        self.final_validations = 1 if fit_rows is None or not len(fit_rows) else 2
        self.start = start
        self.vocab = mx.array(vocab)
        self.layers = draft_config.target_layers
        self.cache = None
        if not cfg.no_target_cache:
            store = None if not cfg.target_cache_dir else target_store(cfg.target_cache_dir, identity, self.layers,
                                                                        vocab)
            self.cache = TargetCache(target, self.layers, self.vocab, target_cache_bytes(cfg.target_cache_gb), store)
        self.tokens_per_step = cfg.batch_size * cfg.seq_len
        self.n_terms = n_terms
        self.fields = (["step", "tokens", "train_loss"] + [f"train_loss_{j + 1}" for j in range(n_terms)]
                       + ["valid_loss", *valid_columns] + [f"acc_{j + 1}" for j in range(n_terms)]
                       + ["lr", "tokens_per_s", "elapsed_s"])
        self.reset()

    def bind(self, module) -> None:
        """Hand the module the target's parts it borrows (its embedding; a block drafter's head)."""
        raise NotImplementedError

    def score(self, rows: np.ndarray) -> dict:
        """The validation's figures on `rows`: per-term losses and acceptance (acc_1..acc_n)."""
        raise NotImplementedError

    def evaluate(self, final: bool = False) -> dict:
        out = self.score(self.valid_rows)
        if final and self.final_validations > 1:
            fit = self.score(self.fit_rows)
            out.update({f"train_acc_{j + 1}": fit[f"acc_{j + 1}"] for j in range(self.n_terms)})
        return out

    def reset(self) -> None:
        mx.random.seed(self.cfg.seed)
        self.module = self.model_class(self.draft_config)
        self.module.d2t = self.vocab - mx.arange(self.vocab.shape[0], dtype=mx.int32)
        self.module.freeze(keys=["d2t"])
        self.bind(self.module)
        if self.start is not None:  # --init: a trained drafter's weights, its draft vocabulary (self.vocab) too
            self.module.load_weights(self.start.weights)
        elif self.cfg.head_init == "target":
            init_from_target(self.module, self.target, self.vocab)
        mx.eval(self.module.parameters())

    def target_rows(self, rows: np.ndarray):
        """(features, draft-vocabulary log-probabilities, top-1) of the target's pass over rows (R, 2, T)."""
        if self.cache is None:
            return target_pass(self.target, self.layers, mx.array(rows[:, 0]), self.vocab)
        return self.cache(rows)

    def one_time_s(self, rows: np.ndarray) -> float:
        return 0.0 if self.cache is None else self.cache.left_s(rows, self.valid_rows)

    def one_time_spent_s(self) -> float:
        return 0.0 if self.cache is None else self.cache.spent_s

    def recurring_s(self, rows: np.ndarray) -> float:
        return 0.0 if self.cache is None else self.cache.recurring_s(rows, self.cfg.batch_size)

    def train_columns(self, loss: float, terms: np.ndarray) -> dict:
        return {"train_loss": loss, **{f"train_loss_{j + 1}": float(t) for j, t in enumerate(terms)}}

    def acc_text(self, valid: dict) -> str:
        return "acc " + " ".join(f"{valid[f'acc_{j + 1}']:.0%}" for j in range(self.n_terms))

    def meta(self) -> dict:
        return dict(architecture=self.draft_config.to_dict())

    def checkpoint_arrays(self) -> dict:
        return {"d2t": self.module.d2t}


class Eagle3Task(FeatureTask):
    label = "eagle3"
    model_class = Eagle3Model

    def __init__(self, cfg: Eagle3TrainConfig, target, draft_config: Eagle3Config, vocab: np.ndarray,
                 valid_rows: np.ndarray, start: InitialDrafter | None = None, identity: dict | None = None,
                 fit_rows: np.ndarray | None = None):
        super().__init__(cfg, target, draft_config, vocab, valid_rows, cfg.ttt_steps, start=start, identity=identity,
                         fit_rows=fit_rows)

    def bind(self, module) -> None:
        module.bind_embedding(token_embedding(self.target))

    def loss(self, module, x):
        x, given = (x[0], x[1:]) if isinstance(x, tuple) else (x, None)
        return ttt_loss(module, self.target, self.layers, self.vocab, x, self.cfg.ttt_steps, self.cfg.step_decay,
                        given)

    def batch(self, rows: np.ndarray):
        return mx.array(rows) if self.cache is None else (mx.array(rows), *self.cache(rows))

    def score(self, rows: np.ndarray) -> dict:
        return evaluate(self.module, self.target, self.layers, self.vocab, rows, self.cfg.ttt_steps,
                        self.cfg.batch_size, self.cache)

    def info(self, train: dict, valid: dict) -> str:
        return f"loss {train['train_loss']:.3f}" + (" | " + self.acc_text(valid) if valid else "")


def draft_config_for(target, cfg: Eagle3TrainConfig, vocab_size: int) -> Eagle3Config:
    g = trunk_geometry(target)
    return Eagle3Config(
        **{**g, "intermediate_size": cfg.intermediate_size or g["intermediate_size"]},
        vocab_size=vocab_size, draft_vocab_size=min(cfg.draft_vocab, vocab_size),
        target_layers=cfg.layers(len(target.layers)), target_hidden_size=g["hidden_size"])


@dataclass
class FeatureRun:
    """What a trainer of a feature drafter (EAGLE-3, a block drafter) opens a run with: the frozen target with
    its layers tapped, the run folder and checkpoint meta, the corpus's rows, and the draft vocabulary."""

    target: object
    tokenizer: object
    identity: dict
    meta: dict | None
    run_dir: Path
    say: object
    train_rows: np.ndarray
    valid_rows: np.ndarray
    vocab: np.ndarray
    coverage: float
    start: "InitialDrafter | None" = None  # --init: the drafter this run starts from
    fit_rows: np.ndarray | None = None  # as many training rows as validate, a seeded draw (FeatureTask.fit_rows)

    def run(self, task, cfg, invocation: str) -> dict:
        summary = loop.run(task, cfg, run_dir=self.run_dir, train_rows=self.train_rows, meta=self.meta, say=self.say,
                           invocation=invocation, base_meta=dict(target=self.identity, vocab=self.vocab.tolist(),
                                                                  coverage=self.coverage))
        summary["coverage"] = self.coverage
        cache = getattr(task, "cache", None)
        if cache is not None:
            summary["target_passes"] = {"run": cache.computed, "kept": len(cache.rows),
                                        "kept_gb": round(cache.kept_bytes / 2**30, 3)}
            text = f"target passes: {cache.computed:,} rows run, {len(cache.rows):,} kept in memory"
            if cache.store is not None:
                summary["target_passes"].update(read=cache.store.read, written=cache.store.written,
                                                folder=str(cache.store.folder))
                text += f", {cache.store.read:,} read from and {cache.store.written:,} written to {cache.store.folder}"
            self.say(text)
        return summary

    def card(self, cfg, summary: dict) -> dict:
        card = dict(target=cfg.base, corpus=cfg.corpus, conversations=len(self.train_rows), steps=summary["steps"],
                    tokens_seen=summary["tokens_seen"], wall_time_s=summary["wall_time_s"], machine=loop.machine(),
                    command=summary["invocation"], coverage=self.coverage,
                    acceptance={k: round(float(summary[k]), 4) for k in summary if k.startswith("acc_")})
        trained = {k[len("train_"):]: round(float(summary[k]), 4) for k in summary if k.startswith("train_acc_")}
        if trained:
            card["train_acceptance"] = trained
        if self.start is not None:
            card["init"] = {"folder": self.start.folder, **self.start.lineage}
        return card


def open_feature_run(cfg, target, tokenizer, layers_of, kind: str = "eagle3") -> FeatureRun:
    """Check the corpus against --base, open (or resume) the run, load and tap the target (`layers_of(n_layers)`
    names the layers), read --init's drafter (of `kind`), the corpus's rows, and choose (or take back) the draft
    vocabulary."""
    from ..loading import load

    cfg.validate()
    run_dir = Path(cfg.run_dir) if cfg.run_dir else cfg.default_run_dir()
    say = (lambda m: None) if cfg.quiet else (lambda m: print(m, flush=True))
    identity = target_identity(cfg.base)
    valid_corpus = cfg.valid_corpus or corpus_folders(cfg.corpus)[0]
    for flag, spec in (("--corpus", cfg.corpus), ("--valid-corpus", valid_corpus)):
        if corpora_target(spec) != identity:
            raise IncompatibleModelsError(f"{flag} {spec!r} was written by another target than --base {cfg.base!r}")
    meta = loop.open_run(cfg, run_dir, protect={"--base": cfg.base, "--corpus": cfg.corpus},
                         required={"target": dict})
    if meta is not None and meta["target"] != identity:
        raise IncompatibleModelsError(f"--resume: the checkpoint was trained for another target than {cfg.base}")
    if target is None:
        target, tokenizer = load(cfg.base)
    tap(target, layers_of(len(target.layers)))
    train_records, valid_records = read_corpora(cfg.corpus, "train"), read_corpora(valid_corpus, "valid")
    vocab_size = model_vocab_size(target)
    eos = list(getattr(tokenizer, "eos_token_ids", None) or [])
    start = None if meta is not None else initial_drafter(getattr(cfg, "init", None), target, identity, kind)
    if start is not None:  # its layers, which need not be the flags' (--init's architecture is the drafter's)
        tap(target, start.config.target_layers)
    vocab = (np.asarray(meta["vocab"], np.int32) if meta is not None
             else start.vocab if start is not None
             else draft_vocabulary(train_records, vocab_size, min(cfg.draft_vocab, vocab_size), eos))
    train_rows = conversation_rows(train_records, cfg.seq_len)
    valid_rows = conversation_rows(valid_records, cfg.seq_len)[: cfg.eval_rows]
    if len(train_rows) < cfg.batch_size:
        raise SpecDecError(f"the corpus has {len(train_rows)} conversations; need at least --batch-size {cfg.batch_size}")
    covered = token_counts(train_records, vocab_size)
    coverage = float(covered[vocab].sum() / max(covered.sum(), 1))
    return FeatureRun(target, tokenizer, identity, meta, run_dir, say, train_rows, valid_rows, vocab, coverage, start,
                      train_rows[seeded_draw(len(train_rows), min(len(valid_rows), len(train_rows)), cfg.seed)])


def seeded_draw(total: int, n: int, seed: int) -> np.ndarray:
    """n distinct indices of 0..total-1, in order, drawn with `seed`: the training rows a final validation (or
    bench.drafter_fit) scores beside the validation's."""
    return np.sort(np.random.default_rng(seed).choice(total, n, replace=False))


def train(cfg: Eagle3TrainConfig, target=None, tokenizer=None, invocation: str | None = None) -> dict:
    """Train (or resume) an EAGLE-3 drafter; writes cfg.out (a drafter folder) when set. Returns a summary."""
    from ..models.eagle3 import save_eagle3

    run = open_feature_run(cfg, target, tokenizer, cfg.layers)
    vocab_size = model_vocab_size(run.target)
    # --init: the architecture is the drafter's; --resume: the checkpoint's
    kept = run.meta.get("architecture") if run.meta is not None else None
    draft_config = (Eagle3Config.from_dict(kept) if isinstance(kept, dict) else run.start.config
                    if run.start is not None else draft_config_for(run.target, cfg, vocab_size))
    task = Eagle3Task(cfg, run.target, draft_config, run.vocab, run.valid_rows, run.start, run.identity, run.fit_rows)
    run.say(f"EAGLE-3 drafter for {cfg.base}: target layers {list(draft_config.target_layers)}, draft vocabulary "
            f"{len(run.vocab):,} ({run.coverage:.1%} of answer tokens), {len(run.train_rows):,} conversations of "
            f"<= {cfg.seq_len} tokens, {cfg.ttt_steps} TTT steps")
    summary = run.run(task, cfg, invocation or cfg_command(cfg))
    if cfg.out:
        save_eagle3(task.module, cfg.out, target_name=Path(cfg.base).name, target=run.identity,
                    card=run.card(cfg, summary), curves=run.run_dir / CURVES, overwrite=cfg.overwrite)
        run.say(f"saved {cfg.out}")
    summary["drafter"] = task.module
    return summary

