"""Train the StoryLM ladder: `python -m mlx_specdec.train --preset storylm-5m --out models/storylm-5m`.

One readable loop in the nanoGPT manner:

  stories -> tokens ([BOS] story [EOS], joined) -> fixed rows of seq_len+1
  AdamW, linear warmup then cosine decay, gradient-norm clipping,
  one compiled step (model + optimizer state in and out),
  validation on the held-out split every --eval-every steps,
  an atomic checkpoint every --ckpt-every steps, and at the end a model-store
  folder with a model card and greedy samples.

Determinism: the weights come from --seed, and the batch at step s is a pure
function of (seed, s): rows are visited in a per-epoch permutation drawn from
numpy's Generator(seed, epoch). Nothing in the step is random (no dropout),
so a checkpoint holding weights, optimizer state and step is the whole state:
a resumed run continues with exactly the losses an uninterrupted run has.
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
import platform
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

from .errors import InterruptedRun, SpecDecError, TrainingDiverged
from .models.hybrid import HYBRID_PRESETS, architecture, build_hybrid, context_length
from .models.storylm import PRESETS, StoryLM, build, num_parameters, preset

SAMPLE_PROMPTS = ("Once upon a time", "One day, a little", "Tom and his dog")
CKPT = "ckpt.safetensors"

# Per-preset defaults for --ladder (and for a single preset when a flag is not
# given): chosen for a 2-core CPU; see the model cards for what they reached.
PRESET_DEFAULTS = {
    "storylm-tiny": dict(lr=3e-3, batch_size=8, seq_len=64),
    "storylm-1m": dict(lr=2e-3, batch_size=16, seq_len=256, warmup=50, time_budget_min=10.0),
    "storylm-5m": dict(lr=1.5e-3, batch_size=16, seq_len=256, warmup=100, time_budget_min=30.0),
    "storylm-30m": dict(lr=6e-4, batch_size=32, seq_len=256, warmup=200, time_budget_min=240.0),
    # A hybrid (mlx-lm's lfm2) on storylm-5m's data settings, so its valid loss is comparable.
    "storylm-5m-hybrid": dict(lr=1.5e-3, batch_size=16, seq_len=256, warmup=100, time_budget_min=25.0),
}


def preset_context(name: str) -> int | None:
    """The context length of a StoryLM or hybrid preset; None for an unknown name."""
    if name in HYBRID_PRESETS:
        return context_length(HYBRID_PRESETS[name])
    return PRESETS[name].max_seq_len if name in PRESETS else None


def build_preset(name: str, vocab_size: int, seed: int):
    """A freshly initialised model for a StoryLM or hybrid preset."""
    if name in HYBRID_PRESETS:
        return build_hybrid(name, vocab_size=vocab_size, seed=seed)
    return build(preset(name, vocab_size=vocab_size), seed=seed)


@dataclass
class TrainConfig:
    preset: str = "storylm-5m"
    corpus: str = "bundled"
    out: str | None = None  # model-store folder written at the end
    run_dir: str | None = None  # checkpoints, logs; default runs/<preset>
    tokenizer: str | None = None  # trained into the run dir when missing
    vocab_size: int = 4096
    tokenizer_stories: int = 50_000
    train_stories: int = 100_000
    valid_stories: int = 2_000
    data_seed: int = 0
    data_cache: str | None = None  # where tokenized rows are cached; default run dir
    seq_len: int = 256
    batch_size: int = 32
    lr: float = 1e-3
    min_lr_ratio: float = 0.1
    warmup: int = 100
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    max_steps: int | None = None
    time_budget_min: float | None = None
    eval_every: int = 100
    eval_rows: int = 128
    ckpt_every: int = 50
    log_every: int = 10
    seed: int = 0
    resume: bool = False
    sample_tokens: int = 80
    quiet: bool = False
    overwrite: bool = False  # replace --out when it is an existing model folder

    def validate(self) -> None:
        check_hyperparameters(self)
        if preset_context(self.preset) is None:
            raise SpecDecError(f"unknown preset {self.preset!r}; expected one of {sorted({**PRESETS, **HYBRID_PRESETS})}")
        for name in ("seq_len", "batch_size", "eval_every", "ckpt_every", "log_every", "eval_rows",
                     "train_stories", "valid_stories", "vocab_size"):
            if getattr(self, name) < 1:
                raise SpecDecError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(self, name)}")
        if self.max_steps is not None and self.max_steps < 1:
            raise SpecDecError(f"--max-steps must be >= 1, got {self.max_steps}")
        if self.time_budget_min is not None and self.time_budget_min <= 0:
            raise SpecDecError(f"--time-budget-min must be > 0, got {self.time_budget_min}")
        if self.max_steps is None and self.time_budget_min is None:
            raise SpecDecError("give --max-steps or --time-budget-min (or both)")
        if not self.lr > 0:
            raise SpecDecError(f"--lr must be > 0, got {self.lr}")
        if self.warmup < 0:
            raise SpecDecError(f"--warmup must be >= 0, got {self.warmup}")
        max_len = preset_context(self.preset)
        if self.seq_len > max_len:
            raise SpecDecError(f"--seq-len {self.seq_len} exceeds {self.preset}'s context of {max_len}")
        if self.tokenizer is not None and not Path(self.tokenizer).is_file():
            raise SpecDecError(f"--tokenizer {self.tokenizer!r} is not a file")


# What a hyperparameter may be, for both trainers: (lowest, highest, lowest excluded).
# Checked when the arguments are parsed, so nan, inf or a negative clip never
# reaches a step (a NaN weight decay once trained 150 steps of NaN and saved them).
HYPERPARAMETER_RANGES = {
    "lr": (0.0, 10.0, True),
    "min_lr_ratio": (0.0, 1.0, False),
    "weight_decay": (0.0, 10.0, False),
    "grad_clip": (0.0, math.inf, True),
    "time_budget_min": (0.0, math.inf, True),
    "depth_decay": (0.0, 1.0, True),
    "warmup": (0, math.inf, False),
    "seed": (0, 2**63 - 1, False),
    "data_seed": (0, 2**63 - 1, False),
    "sample_tokens": (0, math.inf, False),
    "tokenizer_stories": (1, math.inf, False),
}


def check_hyperparameters(cfg) -> None:
    """One line naming the flag for a non-finite or out-of-range hyperparameter of a trainer config."""
    for f in fields(cfg):
        value = getattr(cfg, f.name)
        if value is None or isinstance(value, (bool, str)):
            continue
        flag = "--" + f.name.replace("_", "-")
        if not isinstance(value, (int, float)):
            raise SpecDecError(f"{flag} must be a number, got {value!r}")
        if not math.isfinite(value):
            raise SpecDecError(f"{flag} must be a finite number, got {value!r}")
        if f.name not in HYPERPARAMETER_RANGES:
            continue
        low, high, low_open = HYPERPARAMETER_RANGES[f.name]
        if value < low or (low_open and value == low):
            raise SpecDecError(f"{flag} must be {'>' if low_open else '>='} {low:g}, got {value!r}")
        if value > high:
            raise SpecDecError(f"{flag} must be <= {high:g}, got {value!r}")


# ----------------------------------------------------------------------------
# Data: tokenize once, cache, pack into rows; batch s is a pure function of s.
# ----------------------------------------------------------------------------


def get_tokenizer(cfg: TrainConfig, run_dir: Path, log=print):
    from .data import iter_texts
    from .models.tokenizer import StoryTokenizer

    if cfg.tokenizer:
        return StoryTokenizer(cfg.tokenizer)
    path = run_dir / "tokenizer.model"
    if path.is_file():
        return StoryTokenizer(str(path))
    log(f"training a {cfg.vocab_size}-token tokenizer on {cfg.tokenizer_stories:,} stories -> {path}")
    texts = iter_texts(cfg.corpus, "train", n=cfg.tokenizer_stories, seed=cfg.data_seed)
    return StoryTokenizer.train(texts, str(path), vocab_size=cfg.vocab_size)


def pack(token_lists, seq_len: int) -> np.ndarray:
    """Join documents and cut them into rows of seq_len+1 (inputs and shifted targets)."""
    flat = np.fromiter((t for ids in token_lists for t in ids), dtype=np.int32)
    n_rows = len(flat) // (seq_len + 1)
    return flat[: n_rows * (seq_len + 1)].reshape(n_rows, seq_len + 1)


def encode_split(cfg, tok, split: str, n: int):
    from .data import iter_texts

    for text in iter_texts(cfg.corpus, split, n=n, seed=cfg.data_seed):
        # BOS starts a story as prompts start at generation; EOS ends it so the
        # model learns where stories stop.
        yield tok.encode(text, bos=True, eos=True)


def tokenized_corpus(cfg, tok, cache_dir: Path, log=print) -> tuple[np.ndarray, np.ndarray]:
    """The train and valid splits as flat token arrays, cached in `cache_dir`.

    `cfg` needs corpus, train_stories, valid_stories and data_seed (the StoryLM
    and MTP trainers both pass theirs); the cache key includes the tokenizer.
    """
    key = json.dumps([cfg.corpus, cfg.train_stories, cfg.valid_stories, cfg.data_seed, tok.fingerprint])
    path = cache_dir / f"tokens-{hashlib.sha1(key.encode()).hexdigest()[:12]}.npz"
    if path.is_file():
        with np.load(path) as z:
            return z["train"], z["valid"]
    t0 = time.time()
    train = np.concatenate([np.asarray(x, np.uint16) for x in encode_split(cfg, tok, "train", cfg.train_stories)])
    valid = np.concatenate([np.asarray(x, np.uint16) for x in encode_split(cfg, tok, "valid", cfg.valid_stories)])
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    try:
        np.savez(tmp, train=train, valid=valid)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    log(f"tokenized {len(train):,} train / {len(valid):,} valid tokens in {time.time() - t0:.0f}s -> {path}")
    return train, valid


def load_data(cfg: TrainConfig, tok, cache_dir: Path, log=print) -> tuple[np.ndarray, np.ndarray]:
    train, valid = tokenized_corpus(cfg, tok, cache_dir, log)
    train_rows, valid_rows = pack([train], cfg.seq_len), pack([valid], cfg.seq_len)
    if len(train_rows) < cfg.batch_size:
        raise SpecDecError(
            f"corpus {cfg.corpus!r} gives {len(train_rows)} training rows of {cfg.seq_len + 1} tokens; "
            f"need at least --batch-size {cfg.batch_size}"
        )
    if len(valid_rows) < 1:
        raise SpecDecError(f"corpus {cfg.corpus!r} gives no validation row of {cfg.seq_len + 1} tokens")
    return train_rows, valid_rows


def batch_rows(n_rows: int, batch_size: int, step: int, seed: int) -> np.ndarray:
    """Row indices of batch `step`: epochs are seeded permutations, read in order."""
    start = step * batch_size
    idx = []
    while len(idx) < batch_size:
        epoch, pos = divmod(start + len(idx), n_rows)
        perm = np.random.default_rng([seed, epoch]).permutation(n_rows)
        idx.extend(perm[pos : pos + batch_size - len(idx)].tolist())
    return np.asarray(idx)


# ----------------------------------------------------------------------------
# Model, optimizer, checkpoints
# ----------------------------------------------------------------------------


def loss_fn(model: StoryLM, x: mx.array, y: mx.array) -> mx.array:
    return nn.losses.cross_entropy(model(x), y, reduction="mean")


def make_optimizer(cfg: TrainConfig, max_steps: int) -> optim.AdamW:
    warmup = min(cfg.warmup, max(max_steps - 1, 0))
    decay = optim.cosine_decay(cfg.lr, max(max_steps - warmup, 1), end=cfg.lr * cfg.min_lr_ratio)
    if warmup > 0:
        schedule = optim.join_schedules([optim.linear_schedule(0.0, cfg.lr, warmup), decay], [warmup])
    else:
        schedule = decay
    return optim.AdamW(learning_rate=schedule, betas=[0.9, 0.95], weight_decay=cfg.weight_decay)


def previous_checkpoint(path: Path) -> Path:
    """Where save_checkpoint keeps the checkpoint it replaced: one step back if this one is damaged."""
    return path.with_name(path.stem + ".prev.safetensors")


def tensors_checksum(arrays: dict) -> str:
    """sha256 of a checkpoint's tensors (names, dtypes, shapes and bytes), in name order."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        value = arrays[name]
        digest.update(f"{name}:{value.dtype}:{tuple(value.shape)};".encode())
        digest.update(np.asarray(value).tobytes())
    return digest.hexdigest()


def check_finite_loss(loss: float, step: int, ckpt_path: Path) -> None:
    """Stop a run whose loss is nan or inf: nothing from this state is ever saved."""
    if math.isfinite(loss):
        return
    raise TrainingDiverged(f"loss is {loss} at step {step}: training stopped and nothing was saved; "
                           f"{_last_good(ckpt_path)}")


def _last_good(ckpt_path: Path) -> str:
    meta = _header_meta(ckpt_path)
    if meta is None:
        return "no checkpoint was written yet: start again with a lower --lr (or check the data)"
    return (f"the last good checkpoint {str(ckpt_path)!r} (step {meta.get('step')}) is kept: "
            "continue it with --resume, perhaps with a lower --lr")


def _header_meta(path: Path) -> dict | None:
    """The run meta from a safetensors header alone (8-byte length, JSON): no tensor is read."""
    try:
        with open(path, "rb") as fh:
            size = int.from_bytes(fh.read(8), "little")
            if not 0 < size < 100_000_000:
                return None
            header = json.loads(fh.read(size))
        return json.loads(header["__metadata__"]["meta"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _non_finite(arrays: dict) -> str | None:
    """The first tensor holding nan or inf, if any (one sync for all of them)."""
    names = [k for k, v in arrays.items() if mx.issubdtype(v.dtype, mx.floating)]
    flags = [mx.all(mx.isfinite(arrays[k])) for k in names]
    mx.eval(flags)
    return next((k for k, ok in zip(names, flags) if not ok.item()), None)


def save_checkpoint(path: Path, model, optimizer, meta: dict, prefix: str = "model") -> None:
    """Weights (fp32), optimizer moments and step, and the run's meta in one file.

    Written to a temp file and fsynced before os.replace: a run killed at any
    moment leaves either the previous checkpoint or the new one, never a torn one.
    The file carries a checksum of its tensors, the checkpoint it replaces is
    kept as ckpt.prev.safetensors, and weights holding nan/inf are never written.
    `prefix` names the trained module's tensors (the MTP trainer saves a "head").
    """
    arrays = {f"{prefix}.{k}": v for k, v in tree_flatten(model.parameters())}
    arrays.update({f"optim.{k}": v for k, v in tree_flatten(optimizer.state)})
    bad = _non_finite(arrays)
    if bad is not None:
        raise TrainingDiverged(f"{bad} holds nan or inf at step {meta.get('step')}: training stopped and "
                               f"this state was not saved; {_last_good(path)}")
    metadata = {"meta": json.dumps(meta), "tensors_sha256": tensors_checksum(arrays)}
    tmp = path.with_name(path.stem + ".tmp.safetensors")
    try:
        mx.save_safetensors(str(tmp), arrays, metadata=metadata)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        if path.is_file():  # keep the one we replace, by a hard link, so `path` never goes missing
            prev, link = previous_checkpoint(path), path.with_name(path.stem + ".prev.tmp")
            link.unlink(missing_ok=True)
            try:
                os.link(path, link)
                os.replace(link, prev)
            except OSError:
                link.unlink(missing_ok=True)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _recovery(path: Path) -> str:
    prev = previous_checkpoint(path)
    if prev.is_file():
        return f"recover the one before it: mv {prev} {path}, then run again with --resume"
    return f"no earlier checkpoint is kept: remove it (rm {path}) and start again without --resume"


def _read_checkpoint(path: Path, required: dict | None = None):
    try:
        arrays, metadata = mx.load(str(path), format="safetensors", return_metadata=True)
        meta = json.loads(metadata["meta"])
    except Exception as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise SpecDecError(f"checkpoint {str(path)!r} is unreadable ({msg}); {_recovery(path)}") from None
    want = metadata.get("tensors_sha256")
    if want is not None and tensors_checksum(arrays) != want:
        raise SpecDecError(f"checkpoint {str(path)!r} is corrupted (its tensors do not match the checksum saved "
                           f"with them); {_recovery(path)}")
    if not isinstance(meta, dict):
        raise SpecDecError(f"checkpoint {str(path)!r} has no run metadata; {_recovery(path)}")
    for key, kind in (required or {}).items():
        if key not in meta:
            raise SpecDecError(f"checkpoint {str(path)!r} lacks {key!r} in its metadata; {_recovery(path)}")
        if not isinstance(meta[key], kind) or isinstance(meta[key], bool):
            raise SpecDecError(f"checkpoint {str(path)!r}: {key} is {meta[key]!r}; {_recovery(path)}")
    return arrays, meta


# What a resumed run reads from a checkpoint's meta, and its type.
CHECKPOINT_META = {"step": int, "max_steps": int, "elapsed_s": (int, float), "tokenizer_fingerprint": str}


def read_checkpoint_meta(path: Path, required: dict | None = None) -> dict:
    return _read_checkpoint(path, required)[1]


def load_checkpoint(path: Path, model, optimizer, prefix: str = "model") -> dict:
    arrays, meta = _read_checkpoint(path)
    cut = len(prefix) + 1
    model.update(tree_unflatten([(k[cut:], v) for k, v in arrays.items() if k.startswith(prefix + ".")]))
    optimizer.state = tree_unflatten([(k[6:], v) for k, v in arrays.items() if k.startswith("optim.")])
    mx.eval(model.parameters(), optimizer.state)
    return meta


def evaluate(model, rows: np.ndarray, batch_size: int) -> float:
    total, count = 0.0, 0
    for i in range(0, len(rows), batch_size):
        chunk = mx.array(rows[i : i + batch_size].astype(np.int32))
        loss = nn.losses.cross_entropy(model(chunk[:, :-1]), chunk[:, 1:], reduction="sum")
        total += loss.item()
        count += chunk[:, 1:].size
    return total / count


def greedy_sample(model, tok, prompt: str, max_tokens: int) -> str:
    """Cached greedy continuation, stopping at EOS; returns prompt + continuation."""
    cache = model.make_cache()
    ids = tok.encode(prompt, bos=True, eos=False)
    logits = model(mx.array([ids]), cache)
    out = []
    for _ in range(max_tokens):
        t = mx.argmax(logits[0, -1]).item()
        if t == tok.eos_id:
            break
        out.append(t)
        logits = model(mx.array([[t]]), cache)
    # Decode prompt and continuation together so sentencepiece spacing is right.
    return tok.decode([i for i in ids if i != tok.bos_id] + out)


def evaluate_models(paths, corpus: str = "bundled", n_stories: int = 2000, seq_len: int = 256,
                    data_seed: int = 0, batch_size: int = 16) -> list[dict]:
    """Held-out loss of store models on the same valid-split rows (per tokenizer).

    This is the ladder's yardstick: every model sees exactly the same targets,
    packed as in training, with its weights as stored (fp16-rounded).
    """
    from .models.hybrid import load_any_store

    cfg = TrainConfig(corpus=corpus, data_seed=data_seed)
    rows_by_tok, results = {}, []
    for path in paths:
        model, tok = load_any_store(path)
        if tok.fingerprint not in rows_by_tok:
            rows_by_tok[tok.fingerprint] = pack(encode_split(cfg, tok, "valid", n_stories), seq_len)
        rows = rows_by_tok[tok.fingerprint]
        loss = evaluate(model, rows, batch_size)
        results.append(dict(model=str(path), parameters=num_parameters(model), valid_loss=loss,
                            perplexity=math.exp(loss), targets=int(rows.size - len(rows))))
    return results


def machine() -> str:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.platform()}; {cpu or platform.machine()}; {os.cpu_count()} cores; mlx {mx.__version__} ({mx.default_device()})"


def _fmt_time(s: float) -> str:
    s = int(max(s, 0))
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


class Progress:
    """A rich progress bar on a terminal, plain lines otherwise (logs, nohup)."""

    def __init__(self, total: int, start: int, quiet: bool):
        self.quiet, self.bar = quiet, None
        if not quiet and sys.stdout.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as RP, TextColumn, TimeRemainingColumn

            self.bar = RP(TextColumn("[bold]train"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("{task.fields[info]}"), TimeRemainingColumn())
            self.task = self.bar.add_task("train", total=total, completed=start, info="")
            self.bar.start()

    def update(self, step: int, info: str, left: float) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=step, info=info)
        elif not self.quiet:
            print(f"step {step} | {info} | left {_fmt_time(left)}", flush=True)

    def log(self, msg: str) -> None:
        if self.bar is not None:
            self.bar.console.print(msg)
        elif not self.quiet:
            print(msg, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


# ----------------------------------------------------------------------------
# The loop
# ----------------------------------------------------------------------------

LOG_FIELDS = ["step", "tokens", "train_loss", "valid_loss", "lr", "tokens_per_s", "elapsed_s"]


def calibrate_steps(model, cfg: TrainConfig, rows: np.ndarray, budget_s: float) -> int:
    """How many steps fit in the budget: time a few forward+backward passes.

    The cosine schedule needs its length up front; a run whose machine turns
    out slower still stops at the budget (with a less-decayed learning rate).
    """
    vg = nn.value_and_grad(model, loss_fn)
    x = mx.array(rows[: cfg.batch_size].astype(np.int32))
    mx.eval(vg(model, x[:, :-1], x[:, 1:]))
    t0 = time.perf_counter()
    for _ in range(3):
        mx.eval(vg(model, x[:, :-1], x[:, 1:]))
    t_step = (time.perf_counter() - t0) / 3 * 1.1  # + optimizer update
    t_eval = (cfg.eval_rows / cfg.batch_size) * t_step / 3  # forward only
    per_step = t_step + t_eval / cfg.eval_every + 0.3 * t_step / cfg.ckpt_every
    reserve = min(20.0, 0.05 * budget_s)  # final validation, samples, save
    return max(1, int((0.97 * budget_s - reserve) / per_step))


def guard_outputs(out, run_dir: Path, *, overwrite: bool, protect: dict) -> None:
    """Before any work: the run folder takes files, and --out may be written (folders.check_out)."""
    from .models.folders import check_out, check_writable

    check_writable(run_dir, flag="--run-dir")
    if out:
        check_out(out, overwrite=overwrite, protect={"--run-dir": run_dir, **protect})


def check_space(run_dir: Path, out, n_params: int) -> None:
    """Room for two fp32 checkpoints (weights + two moments each) and the fp16 model, with a margin."""
    from .models.folders import check_writable

    check_writable(run_dir, 2 * 12 * n_params + 50_000_000, flag="--run-dir")
    if out:
        check_writable(Path(out).parent, 2 * n_params + 10_000_000, shown=out)


def train(cfg: TrainConfig, tok=None, invocation: str | None = None) -> dict:
    """Run (or resume) one training; returns a summary dict. Writes cfg.out if set."""
    cfg.validate()
    run_dir = Path(cfg.run_dir or f"runs/{cfg.preset}")
    guard_outputs(cfg.out, run_dir, overwrite=cfg.overwrite,
                  protect={"--tokenizer": cfg.tokenizer, "--data-cache": cfg.data_cache})
    run_dir.mkdir(parents=True, exist_ok=True)
    ckpt_path = run_dir / CKPT
    if cfg.resume and not ckpt_path.is_file():
        raise SpecDecError(f"--resume: no checkpoint at {ckpt_path}" + (
            f"; {_recovery(ckpt_path)}" if previous_checkpoint(ckpt_path).is_file() else ""))
    if not cfg.resume and ckpt_path.is_file():
        raise SpecDecError(f"{ckpt_path} exists: pass --resume to continue it, or choose another --run-dir")
    say = (lambda *a: None) if cfg.quiet else (lambda m: print(m, flush=True))

    tok = tok or get_tokenizer(cfg, run_dir, say)
    train_rows, all_valid_rows = load_data(cfg, tok, Path(cfg.data_cache or run_dir), say)
    valid_rows = all_valid_rows[: cfg.eval_rows]  # periodic checks; the final one uses every row
    tokens_per_step = cfg.batch_size * cfg.seq_len

    mx.random.seed(cfg.seed)
    model = build_preset(cfg.preset, tok.vocab_size, cfg.seed)
    meta = None
    if cfg.resume:
        # The schedule's length comes from the checkpoint so the resumed run
        # follows the learning-rate curve the interrupted one was on.
        meta = read_checkpoint_meta(ckpt_path, CHECKPOINT_META)
        if meta["tokenizer_fingerprint"] != tok.fingerprint:
            raise SpecDecError(
                f"--resume: checkpoint was trained with tokenizer {meta['tokenizer_fingerprint']}, "
                f"this run's is {tok.fingerprint}"
            )
        max_steps = meta["max_steps"]
    elif cfg.max_steps is not None:
        max_steps = cfg.max_steps
    else:
        max_steps = calibrate_steps(model, cfg, train_rows, cfg.time_budget_min * 60)
        say(f"time budget {cfg.time_budget_min:g} min -> {max_steps} steps (calibrated)")

    check_space(run_dir, cfg.out, num_parameters(model))
    optimizer = make_optimizer(cfg, max_steps)
    optimizer.init(model.trainable_parameters())
    step, elapsed = 0, 0.0
    if meta is not None:
        load_checkpoint(ckpt_path, model, optimizer)
        step, elapsed = meta["step"], meta["elapsed_s"]
        say(f"resumed {ckpt_path} at step {step}")
    truncate_csv(run_dir / "log.csv", step, LOG_FIELDS)
    # The card names the command that started the run, not the one that resumed it.
    first_invocation = (meta or {}).get("invocation") or invocation or cfg_command(cfg)

    state = [model.state, optimizer.state]

    @partial(mx.compile, inputs=state, outputs=state)
    def train_step(x, y):
        loss, grads = nn.value_and_grad(model, loss_fn)(model, x, y)
        grads, norm = optim.clip_grad_norm(grads, cfg.grad_clip)
        optimizer.update(model, grads)
        return loss, norm

    def run_meta() -> dict:
        return dict(step=step, rows_seen=step * cfg.batch_size, max_steps=max_steps, elapsed_s=elapsed,
                    seed=cfg.seed, tokenizer_fingerprint=tok.fingerprint, preset=cfg.preset,
                    config=asdict(cfg), architecture=architecture(model), invocation=first_invocation)

    log_f = open(run_dir / "log.csv", "a", newline="")
    log = csv.DictWriter(log_f, LOG_FIELDS)
    if log_f.tell() == 0:
        log.writeheader()
    budget_s = cfg.time_budget_min * 60 if cfg.time_budget_min else math.inf
    say(f"{cfg.preset}: {num_parameters(model):,} parameters, {len(train_rows):,} train rows of "
        f"{cfg.seq_len}, {max_steps} steps of {tokens_per_step:,} tokens, lr {cfg.lr:g}")
    progress = Progress(max_steps, step, cfg.quiet)
    model.train()
    losses, t_last, step_last, valid_loss, stop_reason = [], time.perf_counter(), step, None, "max_steps"
    # elapsed_s is wall time (evaluations included) summed across resumes.
    t_start, elapsed0 = time.perf_counter(), elapsed
    try:
        while step < max_steps:
            # Checked before a step, so resuming a run that already spent its
            # budget just re-validates and re-saves it.
            if elapsed >= budget_s:
                stop_reason = "time budget"
                break
            rows = train_rows[batch_rows(len(train_rows), cfg.batch_size, step, cfg.seed)].astype(np.int32)
            x = mx.array(rows)
            loss, _ = train_step(x[:, :-1], x[:, 1:])
            mx.eval(state, loss)
            losses.append(loss.item())
            check_finite_loss(losses[-1], step + 1, ckpt_path)
            step += 1
            now = time.perf_counter()
            elapsed = elapsed0 + now - t_start
            do_eval = step % cfg.eval_every == 0 or step == max_steps
            if step % cfg.log_every == 0 or do_eval:
                tps = (step - step_last) * tokens_per_step / max(now - t_last, 1e-9)
                lr = optimizer.learning_rate.item()
                valid_loss = evaluate(model, valid_rows, cfg.batch_size) if do_eval else None
                train_loss = float(np.mean(losses))
                log.writerow(dict(step=step, tokens=step * tokens_per_step, train_loss=f"{train_loss:.5f}",
                                  valid_loss="" if valid_loss is None else f"{valid_loss:.5f}", lr=f"{lr:.3e}",
                                  tokens_per_s=f"{tps:.0f}", elapsed_s=f"{elapsed:.1f}"))
                log_f.flush()
                left = min((max_steps - step) * (now - t_last) / max(step - step_last, 1), budget_s - elapsed)
                info = f"loss {train_loss:.4f}" + (f" | valid {valid_loss:.4f}" if valid_loss is not None else "")
                progress.update(step, f"{info} | lr {lr:.2e} | {tps:,.0f} tok/s", left)
                losses, t_last, step_last = [], time.perf_counter(), step
            if step % cfg.ckpt_every == 0 and step < max_steps:
                save_checkpoint(ckpt_path, model, optimizer, run_meta())
    except KeyboardInterrupt:
        progress.close()
        save_checkpoint(ckpt_path, model, optimizer, run_meta())
        raise InterruptedRun(f"interrupted at step {step}; checkpoint saved, continue with --resume") from None
    progress.close()

    model.eval()
    valid_loss = evaluate(model, all_valid_rows, cfg.batch_size)
    elapsed = elapsed0 + time.perf_counter() - t_start
    save_checkpoint(ckpt_path, model, optimizer, run_meta())
    log_f.close()
    train_loss = _last_train_loss(run_dir / "log.csv")
    summary = dict(
        preset=cfg.preset, parameters=num_parameters(model), steps=step, max_steps=max_steps,
        stop_reason=stop_reason, tokens_seen=step * tokens_per_step, train_loss=train_loss,
        valid_loss=valid_loss, wall_time_s=round(elapsed, 1),
        tokens_per_s=round(step * tokens_per_step / max(elapsed, 1e-9)),
    )
    say(f"done: {json.dumps(summary)}")
    if cfg.out:
        samples = [(p, greedy_sample(model, tok, p, cfg.sample_tokens)) for p in SAMPLE_PROMPTS]
        card = dict(
            preset=cfg.preset, corpus=cfg.corpus,
            train_stories=cfg.train_stories, tokens_seen=summary["tokens_seen"],
            steps=step, batch=f"{cfg.batch_size} x {cfg.seq_len} tokens",
            optimizer=f"AdamW lr {cfg.lr:g} (warmup {cfg.warmup}, cosine to {cfg.lr * cfg.min_lr_ratio:g}), "
                      f"wd {cfg.weight_decay:g}, clip {cfg.grad_clip:g}",
            final_train_loss=train_loss, final_valid_loss=valid_loss,
            valid_loss_measured_on=f"{all_valid_rows.size - len(all_valid_rows):,} held-out next-token "
                                   f"targets ({cfg.valid_stories:,} valid-split stories)",
            wall_time=_fmt_time(elapsed), tokens_per_s_overall=summary["tokens_per_s"],
            machine=machine(), seed=cfg.seed, invoked_as=first_invocation,
            command=cfg_command(cfg), samples=samples,
        )
        from .models.store import save_model

        if cfg.preset in HYBRID_PRESETS:
            from .models.hybrid import save_hybrid

            save_hybrid(model, tok, cfg.out, card=card, overwrite=cfg.overwrite)
        else:
            save_model(model, tok, cfg.out, card=card, overwrite=cfg.overwrite)
        (run_dir / "summary.json").write_text(json.dumps({**summary, "samples": samples}, indent=2))
        say(f"saved {cfg.out}")
        summary["samples"] = samples
    return summary


def truncate_csv(path: Path, step: int, fields: list[str]) -> None:
    """Drop log rows past the checkpoint a resumed run restarts from."""
    if not path.is_file():
        return
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if int(r["step"]) <= step]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fields)
        w.writeheader()
        w.writerows(rows)


def _last_train_loss(path: Path) -> float | None:
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return float(rows[-1]["train_loss"]) if rows else None


def cfg_command(cfg: TrainConfig) -> str:
    """The single-model command that reproduces cfg (flags the CLI would not fill in itself)."""
    default = {**asdict(TrainConfig()), **PRESET_DEFAULTS.get(cfg.preset, {})}
    parts = ["python -m mlx_specdec.train"]
    for f in fields(cfg):
        v = getattr(cfg, f.name)
        if f.name in ("quiet", "resume", "overwrite") or v == default[f.name] and f.name != "preset":
            continue
        parts.append(f"--{f.name.replace('_', '-')} {v}")
    return " ".join(parts)


# ----------------------------------------------------------------------------
# The ladder and the command line
# ----------------------------------------------------------------------------


def train_ladder(cfg: TrainConfig, presets: list[str], out_root: str, explicit: set[str],
                 invocation: str | None = None) -> list[dict]:
    """Train several presets sharing ONE tokenizer and one tokenized corpus.

    With --resume each preset continues its checkpoint when it has one (a
    finished one just re-validates and re-saves) and starts fresh otherwise.
    """
    shared = Path(cfg.run_dir or "runs/ladder")
    configs = []
    for name in presets:  # every preset's flags and outputs are checked before the first one trains
        over = {k: v for k, v in PRESET_DEFAULTS.get(name, {}).items() if k not in explicit}
        run_dir = Path("runs") / name
        c = TrainConfig(**{**asdict(cfg), **over, "preset": name, "tokenizer": None,
                           "run_dir": str(run_dir), "data_cache": str(shared),
                           "out": str(Path(out_root) / name),
                           "resume": cfg.resume and (run_dir / CKPT).is_file()})
        c.validate()
        guard_outputs(c.out, run_dir, overwrite=c.overwrite, protect={"the ladder's shared run folder": shared})
        configs.append(c)
    shared.mkdir(parents=True, exist_ok=True)
    base = TrainConfig(**{**asdict(cfg), "run_dir": str(shared)})
    tok = get_tokenizer(base, shared)
    results = []
    for c in configs:
        c.tokenizer = str(tok.path)
        results.append(train(c, tok, invocation))
    return results


def add_config_flags(p, config_class) -> None:
    """One flag per field of a trainer config; numbers must be finite, within HYPERPARAMETER_RANGES."""
    from .cli_support import number

    for f in fields(config_class):
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            p.add_argument(flag, action="store_true")
            continue
        kind = {"int": int, "float": float}.get(str(f.type).split(" |")[0].strip())
        if kind is None:
            p.add_argument(flag, default=None)
            continue
        low, high, low_open = HYPERPARAMETER_RANGES.get(f.name, (None, None, False))
        p.add_argument(flag, type=number(kind, low=low, high=None if high == math.inf else high, low_open=low_open),
                       default=None)


def parse_args(argv=None):
    from .cli_support import Parser

    p = Parser(prog="python -m mlx_specdec.train", description=__doc__.splitlines()[0])
    add_config_flags(p, TrainConfig)
    p.add_argument("--ladder", action="store_true", help="train storylm-1m then storylm-5m, one shared tokenizer")
    p.add_argument("--ladder-presets", default="storylm-1m,storylm-5m")
    p.add_argument("--evaluate", nargs="+", metavar="MODEL",
                   help="only report the valid-split loss of these store folders (uses --corpus, --valid-stories, --seq-len)")
    args = p.parse_args(argv)
    return p, args


def main(argv=None) -> int:
    from .cli_support import run_main

    _, args = parse_args(argv)
    invocation = " ".join(["python -m mlx_specdec.train"] + list(sys.argv[1:] if argv is None else argv))
    return run_main(_main, args, invocation)


def _main(args, invocation: str) -> int:
    given = {f.name: getattr(args, f.name) for f in fields(TrainConfig)
             if getattr(args, f.name) is not None and getattr(args, f.name) is not False}
    if args.evaluate:
        res = evaluate_models(args.evaluate, given.get("corpus", "bundled"), given.get("valid_stories", 2000),
                              given.get("seq_len", 256), given.get("data_seed", 0))
        for r in res:
            print(f"{r['model']}: {r['parameters']:,} parameters, valid loss {r['valid_loss']:.4f} "
                  f"(perplexity {r['perplexity']:.3f}) on {r['targets']:,} held-out targets")
    elif args.ladder:
        cfg = TrainConfig(**given)
        train_ladder(cfg, args.ladder_presets.split(","), given.get("out", "models"), set(given), invocation)
    else:
        name = given.get("preset", TrainConfig.preset)
        over = {k: v for k, v in PRESET_DEFAULTS.get(name, {}).items() if k not in given}
        train(TrainConfig(**{**over, **given}), invocation=invocation)
    return 0


if __name__ == "__main__":
    sys.exit(main())
