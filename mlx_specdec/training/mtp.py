"""Train an MTP head on a frozen base, on the shared loop.

    python -m mlx_specdec.mtp train --base models/storylm-5m --out models/storylm-5m-mtp --time-budget-min 13

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
with `python -m mlx_specdec.mtp train --base models/storylm-1m --run-dir runs/ab-N --out models/ab-N
--batch-size 8 --seq-len 128 --time-budget-min 1.7 --n-modules N --depth D
--rollout-stride S`, then `python -m bench --target models/storylm-1m --mtp-head models/ab-N --drafters mtp`.
"""

from __future__ import annotations

import csv
import os
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
import numpy as np

from ..errors import IncompatibleModelsError, SpecDecError
from ..models.folders import file_sha256
from ..models.head_store import CURVES, PLOT, save_head, tokenizer_fingerprint
from ..models.mtp_head import MTPConfig, MTPHead, mtp_loss, mtp_rollout, weights_fingerprint
from ..state import output_projection
from . import loop
from .data import corpus_description, tokenized_corpus
from .rows import RowCache

PROG = "python -m mlx_specdec.mtp train"


@dataclass
class MTPTrainConfig(loop.RunConfig):
    base: str = "models/storylm-5m"
    depth: int = 3
    n_modules: int = 3  # one module per depth (DeepSeek-style): measured best at depths 2-3, see the docstring
    n_blocks: int = 1
    depth_decay: float = 0.7  # loss weight of depth d is depth_decay**(d-1): depth 1 matters most
    rollout_stride: int = 4  # depths >= 2 are trained at every stride-th position (a quarter of their cost)
    # The head trains on fewer, shorter batches than the ladder: different defaults, the same flags.
    train_stories: int = 30_000
    valid_stories: int = 300
    batch_size: int = 16
    lr: float = 2e-3
    warmup: int = 50
    weight_decay: float = 0.01
    eval_every: int = 50
    eval_rows: int = 32

    LOCAL = loop.RunConfig.LOCAL + ("base",)

    def validate(self) -> None:
        super().validate()
        for name in ("depth", "n_modules", "n_blocks", "rollout_stride"):
            if getattr(self, name) < 1:
                raise SpecDecError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(self, name)}")
        if self.seq_len < self.depth + 2:
            raise SpecDecError(f"--seq-len must be >= depth + 2 = {self.depth + 2}, got {self.seq_len}")

    def default_run_dir(self) -> Path:
        name = Path(self.out).name if self.out else Path(self.base).name + "-mtp"
        return Path("runs") / name


def cfg_command(cfg: MTPTrainConfig) -> str:
    return loop.cfg_command(cfg, PROG, asdict(MTPTrainConfig()), always=("base",))


def load_rows(cfg: MTPTrainConfig, tok, cache_dir: Path, log=print) -> tuple[np.ndarray, np.ndarray, int]:
    """Tokenized stories packed into rows of seq_len ids (cached, a few MB, in the run folder), and how many
    training stories the corpus gave (at most --train-stories: a file may hold fewer)."""
    train, valid = tokenized_corpus(cfg, tok, cache_dir, log)
    stories = int((train == tok.bos_id).sum())  # every story starts with BOS
    train_rows = train[: len(train) // cfg.seq_len * cfg.seq_len].reshape(-1, cfg.seq_len)
    valid_rows = valid[: len(valid) // cfg.seq_len * cfg.seq_len].reshape(-1, cfg.seq_len)
    if len(train_rows) < cfg.batch_size:
        raise SpecDecError(f"{cfg.train_stories} stories give {len(train_rows)} rows of {cfg.seq_len} tokens; "
                           f"need at least --batch-size {cfg.batch_size}")
    if len(valid_rows) < 1:
        raise SpecDecError(f"{cfg.valid_stories} validation stories give no row of {cfg.seq_len} tokens")
    return train_rows, valid_rows[: cfg.eval_rows], stories


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
    return loop.compiled_step(head, optimizer, partial(head_loss, weights=weights, stride=stride), grad_clip)


def head_loss(head: MTPHead, x: mx.array, weights: list[float], stride: int = 1):
    hidden = mx.stop_gradient(head.base.model(x))
    return rollout_loss(head, hidden, x, weights, stride)


def evaluate(head: MTPHead, rows: np.ndarray, batch_size: int) -> dict:
    """Two-ahead loss/accuracy per depth next to the base's one-ahead accuracy on the same targets.

    Depth-1 targets are x_{t+2} for t = 0..T-3: the head predicts them from
    (h_t, x_{t+1}), the base from h_{t+1}. agree_d1 counts the head matching
    the base's top-1 there (what greedy self-speculation accepts, teacher-forced).
    """
    base, depth = head.base, head.config.depth
    sums = {"valid_loss_d1": 0.0, "base_loss": 0.0, "base_acc": 0.0, "agree_d1": 0.0}
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
        sums["valid_loss_d1"] += mtp_loss(logits[0], x).item() * n
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




class HeadTask(loop.Task):
    """The rollout loss of a head on the frozen trunk; validation next to the base's own accuracy."""

    label = "mtp"
    curves = CURVES
    prefix = "head"
    fields = ["step", "tokens", "train_loss", "train_loss_d1", "valid_loss_d1", "acc_d1", "acc_d2", "acc_d3",
              "agree_d1", "base_acc", "base_loss", "lr", "tokens_per_s", "elapsed_s"]

    def __init__(self, cfg: MTPTrainConfig, base, valid_rows: np.ndarray):
        self.cfg, self.base, self.valid_rows = cfg, base, valid_rows
        self.head_config = MTPConfig.for_base(base, depth=cfg.depth, n_modules=cfg.n_modules, n_blocks=cfg.n_blocks)
        self.weights = depth_weights(cfg)
        self.tokens_per_step = cfg.batch_size * cfg.seq_len
        self.reset()

    def reset(self) -> None:
        mx.random.seed(self.cfg.seed)
        self.module = MTPHead(self.base, self.head_config)
        mx.eval(self.module.parameters())

    def loss(self, head, x):
        return head_loss(head, x, self.weights, self.cfg.rollout_stride)

    def evaluate(self, final: bool = False) -> dict:
        return evaluate(self.module, self.valid_rows, self.cfg.batch_size)

    def train_columns(self, loss: float, terms: np.ndarray) -> dict:
        return {"train_loss": loss, "train_loss_d1": float(terms[0])}

    def info(self, train: dict, valid: dict) -> str:
        text = f"loss {train['train_loss']:.3f} (d1 {train['train_loss_d1']:.3f})"
        if valid:
            text += f" | valid d1 {valid['valid_loss_d1']:.3f} acc {valid['acc_d1']:.1%} (base {valid['base_acc']:.1%})"
        return text

    def meta(self) -> dict:
        return dict(architecture=asdict(self.head_config))


class ChatHeadTask(HeadTask):
    """The head on a chat corpus of the target's own answers (`mlx-specdec eagle corpus`, the corpus the EAGLE-3
    and block-drafter trainers read), as those trainers see it: scored only where a drafter drafts (the answer's
    positions, training.eagle3.conversation_rows' mask), and the frozen trunk's pass over a row kept after its
    first (float16), so later epochs cost the head's own work only. Rows are (R, 2, T): ids and the mask."""

    def __init__(self, cfg: MTPTrainConfig, base, valid_rows: np.ndarray):
        super().__init__(cfg, base, valid_rows)
        self.trunk = RowCache(lambda rows: (self.base.model(mx.array(rows[:, 0])).astype(mx.float16),))

    def hidden(self, rows: np.ndarray) -> mx.array:
        (hidden,) = self.trunk(rows)
        return hidden.astype(mx.float32)

    def batch(self, rows: np.ndarray):
        return mx.array(rows[:, 0]), mx.array(rows[:, 1]), self.hidden(rows)

    def loss(self, head, x):
        ids, mask, hidden = x
        return masked_rollout_loss(head, hidden, ids, mask, self.weights, self.cfg.rollout_stride)

    def one_time_s(self, rows: np.ndarray) -> float:
        return self.trunk.left_s(rows, self.valid_rows)

    def one_time_spent_s(self) -> float:
        return self.trunk.spent_s

    def evaluate(self, final: bool = False) -> dict:
        return evaluate_masked(self.module, self.valid_rows, self.cfg.batch_size, self.hidden)


def _masked_ce(logits: mx.array, target: mx.array, mask: mx.array) -> mx.array:
    ce = nn.losses.cross_entropy(logits.astype(mx.float32), target, reduction="none")
    return (ce * mask).sum() / mx.maximum(mask.sum(), 1)


def masked_rollout_loss(head: MTPHead, hidden, token_ids, mask, weights: list[float], stride: int = 1):
    """rollout_loss scored where the drafter drafts: a depth-d prediction of x_{t+d+1} from x_{t+d} counts when
    the mask marks both positions t+d and t+d+1 (the answer's, the label inside the row)."""
    T, depth = token_ids.shape[-1], len(weights)
    m = mask.astype(mx.float32)
    logits, state = head(hidden[..., : T - 2, :], token_ids[..., 1 : T - 1])
    losses = [_masked_ce(logits, token_ids[..., 2:], m[..., 1 : T - 1] * m[..., 2:])]
    if depth > 1:
        pos = mx.arange(0, T - depth - 1, stride)
        state = state[..., pos, :]
        for d in range(2, depth + 1):
            logits, state = head(state, token_ids[..., pos + d], depth=d)
            losses.append(_masked_ce(logits, token_ids[..., pos + d + 1], m[..., pos + d] * m[..., pos + d + 1]))
    total = sum(w * l for w, l in zip(weights, losses)) / sum(weights)
    return total, mx.stack(losses)


def evaluate_masked(head: MTPHead, rows: np.ndarray, batch_size: int, hidden_of) -> dict:
    """evaluate() on a chat corpus's rows, over the answer's positions only: the head's loss and top-1 accuracy
    per depth (teacher-forced: the drafts before it right), the trunk's own next-token accuracy at the same
    positions (the corpus is its greedy output, so about 1) and how often the head's top-1 is the trunk's."""
    depth = head.config.depth
    sums = {"valid_loss_d1": 0.0, "base_acc": 0.0, "base_loss": 0.0, "agree_d1": 0.0}
    sums.update({f"acc_d{d}": 0.0 for d in range(1, depth + 1)})
    counts = {d: 0.0 for d in range(1, depth + 1)}
    for i in range(0, len(rows), batch_size):
        chunk = rows[i : i + batch_size]
        x, m, hidden = mx.array(chunk[:, 0]), mx.array(chunk[:, 1]).astype(mx.float32), hidden_of(chunk)
        T = x.shape[1]
        logits = mtp_rollout(head, hidden, x, depth)
        base_logits = output_projection(head.base)(hidden[:, 1 : T - 1])
        base_top = mx.argmax(base_logits, axis=-1)
        m1 = m[:, 1 : T - 1] * m[:, 2:]
        n1 = m1.sum().item()
        target = x[:, 2:]
        sums["valid_loss_d1"] += _masked_ce(logits[0][:, : T - 2], target, m1).item() * n1
        sums["base_loss"] += _masked_ce(base_logits, target, m1).item() * n1
        sums["base_acc"] += ((base_top == target) * m1).sum().item()
        sums["agree_d1"] += ((mx.argmax(logits[0][:, : T - 2], axis=-1) == base_top) * m1).sum().item()
        for d, lg in enumerate(logits, start=1):
            md = m[:, d : T - 1] * m[:, d + 1 :]
            sums[f"acc_d{d}"] += ((mx.argmax(lg[:, : T - d - 1], axis=-1) == x[:, d + 1 :]) * md).sum().item()
            counts[d] += md.sum().item()
    n1 = max(counts[1], 1)
    out = {k: v / n1 for k, v in sums.items() if not k.startswith("acc_d")}
    out.update({f"acc_d{d}": sums[f"acc_d{d}"] / max(counts[d], 1) for d in range(1, depth + 1)})
    return out


def is_chat_corpus(corpus: str) -> bool:
    from .chat_corpus import META

    return (Path(corpus) / META).is_file()


def chat_rows(cfg: MTPTrainConfig, base_path: str) -> tuple[np.ndarray, np.ndarray, int]:
    """A chat corpus's conversations as (R, 2, seq_len) rows (training.eagle3.conversation_rows), refused when
    another target wrote it."""
    from .chat_corpus import corpus_target, read_corpus
    from .distill import target_identity
    from .eagle3 import conversation_rows

    if corpus_target(cfg.corpus) != target_identity(base_path):
        raise IncompatibleModelsError(f"--corpus {cfg.corpus!r} was written by another target than --base {base_path!r}")
    train_rows = conversation_rows(read_corpus(cfg.corpus, "train"), cfg.seq_len)
    valid_rows = conversation_rows(read_corpus(cfg.corpus, "valid"), cfg.seq_len)[: cfg.eval_rows]
    if len(train_rows) < cfg.batch_size:
        raise SpecDecError(f"the corpus has {len(train_rows)} conversations; need at least --batch-size {cfg.batch_size}")
    return train_rows, valid_rows, len(train_rows)


def train(cfg: MTPTrainConfig, base=None, tok=None, invocation: str | None = None) -> dict:
    """Train (or resume) a head on a frozen base; returns a summary (with the head). Writes cfg.out when set.
    The corpus is StoryLM text (the base a StoryLM store folder) or a chat corpus of the base's own answers
    (the base any model folder `loading.load` reads)."""
    cfg.validate()
    run_dir = Path(cfg.run_dir) if cfg.run_dir else cfg.default_run_dir()
    say = (lambda m: None) if cfg.quiet else (lambda m: print(m, flush=True))
    chat = is_chat_corpus(cfg.corpus)
    meta = loop.open_run(cfg, run_dir, protect={"--base": cfg.base, **({"--corpus": cfg.corpus} if chat else {})},
                         required={"base_weights_fingerprint": str})
    if base is None:
        if chat:
            from ..loading import load as load_store
        else:
            from ..models.store import load_store

        base, tok = load_store(cfg.base)
    base_fp = weights_fingerprint(base)
    if meta is not None and meta["base_weights_fingerprint"] != base_fp:
        raise IncompatibleModelsError(f"--resume: checkpoint was trained on base weights "
                                      f"{meta['base_weights_fingerprint']}, {cfg.base} has {base_fp}")
    if chat:
        train_rows, valid_rows, stories = chat_rows(cfg, cfg.base)
        task = ChatHeadTask(cfg, base, valid_rows)
    else:
        train_rows, valid_rows, stories = load_rows(cfg, tok, run_dir, say)
        task = HeadTask(cfg, base, valid_rows)
    tok_fp = tokenizer_fingerprint(tok)
    say(f"MTP head on {cfg.base}: depth {cfg.depth}, {cfg.n_modules} module(s), base frozen, "
        f"{len(train_rows):,} train rows of {cfg.seq_len}{' (answers scored)' if chat else ''}, lr {cfg.lr:g}")
    summary = loop.run(task, cfg, run_dir=run_dir, train_rows=train_rows, meta=meta, say=say,
                       invocation=invocation or cfg_command(cfg),
                       base_meta=dict(base=cfg.base, base_weights_fingerprint=base_fp,
                                      tokenizer_fingerprint=tok_fp,
                                      rng=dict(init_seed=cfg.seed,
                                                        data_order=f"numpy default_rng([{cfg.seed}, epoch]) permutation")))
    invoked = summary.pop("invocation")
    final = {k: round(summary[k], 4) for k in task.fields if k in summary and k.startswith(("valid", "acc", "agree", "base"))}
    curves_path, plot = run_dir / CURVES, run_dir / PLOT
    plot_note = write_plot(curves_path, plot)
    if plot_note:
        say(plot_note)
    if cfg.out:
        base_file = Path(cfg.base) / "model.safetensors"
        card = dict(
            base=cfg.base,
            corpus=(f"{cfg.corpus}, a chat corpus of the base's own answers ({stories:,} train conversations)" if chat
                    else f"{corpus_description(cfg.corpus)} ({stories:,} train stories)"),
            steps=summary["steps"], tokens_seen=summary["tokens_seen"], batch=f"{cfg.batch_size} x {cfg.seq_len} tokens",
            loss=f"cross-entropy at depths 1..{cfg.depth}, weights {', '.join(f'{w:.2f}' for w in task.weights)}",
            optimizer=loop.optimizer_line(cfg), wall_time=f"{summary['wall_time_s'] / 60:.1f} min", machine=loop.machine(),
            validation=(f"{int(valid_rows[:, 1].sum()):,} held-out answer positions ({cfg.corpus} valid split)" if chat
                        else f"{len(valid_rows) * cfg.seq_len:,} held-out tokens ({cfg.corpus} valid split)"),
            plot=plot_note or PLOT, invoked_as=invoked, final=final,
        )
        extra = {CURVES: curves_path, PLOT: plot if plot.is_file() and plot.stat().st_size < 200_000 else None}
        save_head(task.module, cfg.out, base_name=Path(cfg.base).name, tokenizer_fingerprint=tok_fp,
                  base_weights_sha256=file_sha256(base_file) if base_file.is_file() else None,
                  card=card, extra_files=extra, overwrite=cfg.overwrite)
        say(f"saved {cfg.out}")
    summary["head"] = task.module
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


