"""The one training loop: config base, resume, budget, Ctrl-C, checkpoints, calibration, progress.

Both trainers (the StoryLM ladder in `training.storylm`, MTP heads in
`training.mtp`) describe their job as a `Task` and hand it to `run()`:

  open the run folder (refuse a stale checkpoint, or resume one, restoring
  its config) -> schedule length (--max-steps, or calibrated from
  --time-budget-min) -> AdamW with warmup + cosine decay, one compiled step
  -> every --log-every steps a CSV row and a progress line, every
  --eval-every a validation, every --ckpt-every an atomic checkpoint
  -> Ctrl-C saves a checkpoint and stops with one line -> final validation,
  checkpoint, and the task's own output (a model folder, a head folder).

The time budget is checked before a step, so resuming a run that already
spent its budget trains nothing more: it re-validates and re-saves.
"""

from __future__ import annotations

import csv
import json
import math
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, fields
from functools import partial
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
import mlx.optimizers as optim
import numpy as np
from mlx.utils import tree_flatten

from .._platform import cpu_name
from ..errors import InterruptedRun, SpecDecError
from .checkpoints import (
    CHECKPOINT_META,
    CKPT,
    check_finite_loss,
    load_checkpoint,
    previous_checkpoint,
    read_checkpoint_meta,
    recovery,
    save_checkpoint,
    truncate_csv,
)
from .data import batch_rows


@dataclass
class RunConfig:
    """What every trainer shares; one flag per field (`--max-steps`, `--time-budget-min`, ...)."""

    out: str | None = None  # the folder written at the end
    run_dir: str | None = None  # checkpoint, curves, token cache
    corpus: str = "bundled"
    train_stories: int = 100_000
    valid_stories: int = 2_000
    data_seed: int = 0
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
    quiet: bool = False
    overwrite: bool = False  # replace --out when it holds an earlier result of the same kind

    # Where to write and how to talk: never restored from a checkpoint on --resume.
    LOCAL = ("out", "run_dir", "resume", "quiet", "overwrite")

    def validate(self) -> None:
        check_hyperparameters(self)
        for name in ("seq_len", "batch_size", "eval_every", "ckpt_every", "log_every", "eval_rows",
                     "train_stories", "valid_stories"):
            if getattr(self, name) < 1:
                raise SpecDecError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(self, name)}")
        if self.max_steps is not None and self.max_steps < 1:
            raise SpecDecError(f"--max-steps must be >= 1, got {self.max_steps}")
        if self.max_steps is None and self.time_budget_min is None and not self.resume:
            raise SpecDecError("give --max-steps or --time-budget-min (or both)")
        if not self.lr > 0:
            raise SpecDecError(f"--lr must be > 0, got {self.lr}")

    def restore(self, saved: dict) -> None:
        """Take a checkpoint's config, all but where to write: a resumed run continues the same run."""
        known = {f.name for f in fields(self)}
        for k, v in saved.items():
            if k in known and k not in self.LOCAL:
                setattr(self, k, v)


# What a hyperparameter may be, for every trainer: (lowest, highest, lowest excluded).
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
    "target_cache_gb": (0.0, math.inf, False),
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


def cfg_command(cfg, prog: str, defaults: dict, always: tuple[str, ...] = ()) -> str:
    """The command that reproduces cfg: the flags that differ from what the CLI fills in itself."""
    parts = [prog]
    for f in fields(cfg):
        v = getattr(cfg, f.name)
        if f.name in RunConfig.LOCAL[2:] or (v == defaults.get(f.name) and f.name not in always):
            continue
        if v is None:  # not set, where the CLI would fill in a default (a preset's time budget beside --max-steps)
            continue
        flag = f"--{f.name.replace('_', '-')}"
        if isinstance(v, bool):  # a switch: present or absent
            if v:
                parts.append(flag)
            continue
        parts.append(f"{flag} {v}")
    return " ".join(parts)


def optimizer_line(cfg) -> str:
    return (f"AdamW lr {cfg.lr:g} (warmup {cfg.warmup}, cosine to {cfg.lr * cfg.min_lr_ratio:g}), "
            f"wd {cfg.weight_decay:g}, clip {cfg.grad_clip:g}")


def make_optimizer(cfg, max_steps: int) -> optim.AdamW:
    warmup = min(cfg.warmup, max(max_steps - 1, 0))
    decay = optim.cosine_decay(cfg.lr, max(max_steps - warmup, 1), end=cfg.lr * cfg.min_lr_ratio)
    if warmup > 0:
        schedule = optim.join_schedules([optim.linear_schedule(0.0, cfg.lr, warmup), decay], [warmup])
    else:
        schedule = decay
    return optim.AdamW(learning_rate=schedule, betas=[0.9, 0.95], weight_decay=cfg.weight_decay)


def compiled_step(module, optimizer, loss, grad_clip: float):
    """One compiled step: forward, backward, clip, AdamW update; module and optimizer state in and out.

    `loss(module, x)` returns (scalar loss, an array of per-term losses).
    """
    state = [module.state, optimizer.state]

    @partial(mx.compile, inputs=state, outputs=state)
    def step(x):
        (value, terms), grads = nn.value_and_grad(module, loss)(module, x)
        grads, _ = optim.clip_grad_norm(grads, grad_clip)
        optimizer.update(module, grads)
        return value, terms

    return step


def machine() -> str:
    return (f"{platform.platform()}; {cpu_name()}; {os.cpu_count()} cores; "
            f"mlx {mx.__version__} ({mx.default_device()})")


def fmt_time(s: float) -> str:
    s = int(max(s, 0))
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


class Progress:
    """A rich progress bar on a terminal, plain lines otherwise (logs, nohup)."""

    def __init__(self, total: int, start: int, quiet: bool, label: str = "train"):
        self.quiet, self.bar = quiet, None
        if not quiet and sys.stdout.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as RP, TextColumn, TimeRemainingColumn

            self.bar = RP(TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("{task.fields[info]}"), TimeRemainingColumn())
            self.task = self.bar.add_task(label, total=total, completed=start, info="")
            self.bar.start()

    def update(self, step: int, info: str, left: float) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=step, info=info)
        elif not self.quiet:
            print(f"step {step} | {info} | left {fmt_time(left)}", flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def guard_outputs(out, run_dir: Path, *, overwrite: bool, protect: dict) -> None:
    """Before any work: the run folder takes files, and --out may be written (folders.check_out)."""
    from ..models.folders import check_out, check_writable

    check_writable(run_dir, flag="--run-dir")
    if out:
        check_out(out, overwrite=overwrite, protect={"--run-dir": run_dir, **protect})


def check_space(run_dir: Path, out, n_params: int) -> None:
    """Room for two fp32 checkpoints (weights, two moments and at most one more copy of the weights, such as
    the early-stopping best) and the fp16 result, with a margin."""
    from ..models.folders import check_writable

    check_writable(run_dir, 2 * 16 * n_params + 50_000_000, flag="--run-dir")
    if out:
        check_writable(Path(out).parent, 2 * n_params + 10_000_000, shown=out)


def open_run(cfg: RunConfig, run_dir: Path, *, protect: dict, required: dict | None = None) -> dict | None:
    """Check the outputs, make the run folder; on --resume return the checkpoint's meta and restore its config."""
    guard_outputs(cfg.out, run_dir, overwrite=cfg.overwrite, protect=protect)
    run_dir.mkdir(parents=True, exist_ok=True)
    ckpt = run_dir / CKPT
    if cfg.resume and not ckpt.is_file():
        raise SpecDecError(f"--resume: no checkpoint at {ckpt}" + (
            f"; {recovery(ckpt)}" if previous_checkpoint(ckpt).is_file() else ""))
    if not cfg.resume and ckpt.is_file():
        raise SpecDecError(f"{ckpt} exists: pass --resume to continue it, or choose another --run-dir")
    if not cfg.resume:
        return None
    meta = read_checkpoint_meta(ckpt, {**CHECKPOINT_META, **(required or {})})
    if isinstance(meta.get("config"), dict):
        cfg.restore(meta["config"])
    return meta


class Task:
    """What a trainer plugs into the loop. Subclasses set the attributes and override the methods."""

    label = "train"
    curves = "log.csv"  # the curves CSV in the run folder
    prefix = "model"  # names the trained module's tensors in the checkpoint
    fields: list[str] = []  # the curves CSV's columns

    module: nn.Module  # what is trained
    tokens_per_step: int

    def loss(self, module, x):  # -> (scalar, per-term array)
        raise NotImplementedError

    def batch(self, rows: np.ndarray) -> mx.array:
        return mx.array(rows.astype(np.int32))

    def evaluate(self, final: bool = False) -> dict:  # -> floats named as CSV columns
        raise NotImplementedError

    def reset(self) -> None:
        """Back to the seeded initial weights (after calibration trained a few steps)."""
        raise NotImplementedError

    def train_columns(self, loss: float, terms: np.ndarray) -> dict:
        return {"train_loss": loss}

    def info(self, train: dict, valid: dict) -> str:
        return f"loss {train['train_loss']:.4f}"

    def meta(self) -> dict:
        return {}

    def checkpoint_arrays(self) -> dict:
        """Tensors of the task's own that a checkpoint keeps beside the module's (names not under its prefix)."""
        return {}

    def restore(self, meta: dict, arrays: dict) -> None:
        """On --resume: take back what meta() and checkpoint_arrays() saved."""

    def one_time_s(self, rows: np.ndarray) -> float:
        """Seconds the run will spend once beyond its steps' cost as timed on a repeated batch (work a task
        keeps after the first time, like the EAGLE-3 trainer's target passes), for the time budget."""
        return 0.0

    def one_time_spent_s(self) -> float:
        """Seconds spent so far on that one-time work (so a timed validation is priced without it)."""
        return 0.0

    def recurring_s(self, rows: np.ndarray) -> float:
        """Seconds each step spends beyond its cost as timed on a repeated batch (rows a full cache cannot keep,
        run again whenever they are drawn), for the time budget."""
        return 0.0


def calibrate_steps(task: Task, cfg: RunConfig, rows: np.ndarray, budget_s: float) -> int:
    """How many steps fit in the budget: time a few real steps and one validation.

    The cosine schedule needs its length up front; a run whose machine turns
    out slower still stops at the budget (with a less-decayed learning rate).
    The timed steps train the module, so the task is reset afterwards.
    """
    probe = make_optimizer(cfg, 100)
    probe.init(task.module.trainable_parameters())
    step = compiled_step(task.module, probe, task.loss, cfg.grad_clip)
    x = task.batch(rows[: cfg.batch_size])
    mx.eval(step(x))
    t0 = time.perf_counter()
    for _ in range(3):
        mx.eval(step(x))
    per_step = (time.perf_counter() - t0) / 3
    t0, once_before = time.perf_counter(), task.one_time_spent_s()
    task.evaluate()
    # A first validation also runs the frozen model over the validation rows, once: that is one-time work
    # (one_time_s below), not what each later validation costs.
    eval_s = time.perf_counter() - t0 - (task.one_time_spent_s() - once_before)
    once = task.one_time_s(rows)  # the training rows' first passes (the validation rows' ran above)
    per_step += task.recurring_s(rows)
    task.reset()
    per_step += eval_s / cfg.eval_every + 0.3 * per_step / cfg.ckpt_every
    # the final validation (twice over where it also scores training rows: FeatureTask.fit_rows) and saving
    reserve = min(20.0, 0.05 * budget_s) + eval_s * getattr(task, "final_validations", 1)
    return steps_within(0.97 * budget_s - reserve, per_step, once, len(rows) / cfg.batch_size)


def steps_within(seconds: float, per_step: float, once: float, epoch_steps: float) -> int:
    """Steps that fit in `seconds` when each costs `per_step` and the first epoch's `epoch_steps` steps also
    share `once`, the rows' one-time work, paid as each row is first drawn (each epoch draws every row once, in
    a fresh order). A budget shorter than an epoch pays for the rows it draws: reserving every row's pass up
    front gave a third EAGLE-3 stage on 3,333 conversations (1.27 s a row, 70 minutes) 1 step in 72 minutes."""
    first = per_step + once / max(epoch_steps, 1e-9)
    if seconds <= first * epoch_steps:
        return max(1, int(seconds / first))
    return max(1, int(epoch_steps + (seconds - first * epoch_steps) / per_step))


def run(task: Task, cfg: RunConfig, *, run_dir: Path, train_rows: np.ndarray, meta: dict | None,
        invocation: str, say, base_meta: dict) -> dict:
    """Train `task.module` to the schedule's end, the budget or Ctrl-C; returns a summary.

    `meta` is the checkpoint's meta on --resume (open_run), `base_meta` what
    every checkpoint of this run records besides the loop's own counters.
    """
    ckpt_path, curves_path = run_dir / CKPT, run_dir / task.curves
    if meta is not None:
        max_steps = meta["max_steps"]  # the resumed run follows the interrupted run's schedule
    elif cfg.max_steps is not None:
        max_steps = cfg.max_steps
    else:
        max_steps = calibrate_steps(task, cfg, train_rows, cfg.time_budget_min * 60)
        say(f"time budget {cfg.time_budget_min:g} min -> {max_steps} steps (calibrated)")
    # Taken after calibration, which trains a few probe steps and then resets the task to a fresh module:
    # the module trained (and saved) is the one the task evaluates.
    module = task.module
    n_params = sum(v.size for _, v in tree_flatten(module.trainable_parameters()))
    check_space(run_dir, cfg.out, n_params)
    optimizer = make_optimizer(cfg, max_steps)
    optimizer.init(module.trainable_parameters())
    step, elapsed = 0, 0.0
    if meta is not None:
        task.restore(meta, load_checkpoint(ckpt_path, module, optimizer, prefix=task.prefix)[1])
        step, elapsed = meta["step"], meta["elapsed_s"]
        say(f"resumed {ckpt_path} at step {step}")
    truncate_csv(curves_path, step, task.fields)
    # The card names the command that started the run, not the one that resumed it.
    first_invocation = (meta or {}).get("invocation") or invocation
    train_step = compiled_step(module, optimizer, task.loss, cfg.grad_clip)

    def run_meta() -> dict:
        return dict(base_meta, step=step, rows_seen=step * cfg.batch_size, max_steps=max_steps, elapsed_s=elapsed,
                    seed=cfg.seed, config=asdict(cfg), invocation=first_invocation, **task.meta())

    def checkpoint() -> None:
        save_checkpoint(ckpt_path, module, optimizer, run_meta(), prefix=task.prefix, extra=task.checkpoint_arrays())

    curves_f = open(curves_path, "a", newline="")
    curves = csv.DictWriter(curves_f, task.fields)
    if curves_f.tell() == 0:
        curves.writeheader()
    budget_s = cfg.time_budget_min * 60 if cfg.time_budget_min else math.inf
    progress = Progress(max_steps, step, cfg.quiet, task.label)
    module.train()
    losses, terms, valid = [], [], {}
    t_last, step_last, stop_reason = time.perf_counter(), step, "max_steps"
    # elapsed_s is wall time (validation included) summed across resumes.
    t_start, elapsed0 = time.perf_counter(), elapsed
    try:
        while step < max_steps:
            if elapsed >= budget_s:
                stop_reason = "time budget"
                break
            x = task.batch(train_rows[batch_rows(len(train_rows), cfg.batch_size, step, cfg.seed)])
            loss, per_term = train_step(x)
            mx.eval(module.state, optimizer.state, loss, per_term)
            losses.append(loss.item())
            check_finite_loss(losses[-1], step + 1, ckpt_path)
            terms.append(np.array(per_term))
            step += 1
            now = time.perf_counter()
            elapsed = elapsed0 + now - t_start
            do_eval = step % cfg.eval_every == 0 or step == max_steps
            if step % cfg.log_every == 0 or do_eval:
                tps = (step - step_last) * task.tokens_per_step / max(now - t_last, 1e-9)
                lr = optimizer.learning_rate.item()
                ev = task.evaluate() if do_eval else {}
                valid = ev or valid
                train = task.train_columns(float(np.mean(losses)), np.mean(terms, axis=0))
                row = dict(step=step, tokens=step * task.tokens_per_step, lr=f"{lr:.3e}", tokens_per_s=f"{tps:.0f}",
                           elapsed_s=f"{elapsed:.1f}", **{k: f"{v:.5f}" for k, v in {**train, **ev}.items()})
                curves.writerow({k: v for k, v in row.items() if k in task.fields})
                curves_f.flush()
                left = min((max_steps - step) * (now - t_last) / max(step - step_last, 1), budget_s - elapsed)
                progress.update(step, f"{task.info(train, ev)} | lr {lr:.2e} | {tps:,.0f} tok/s", left)
                losses, terms, t_last, step_last = [], [], time.perf_counter(), step
            if step % cfg.ckpt_every == 0 and step < max_steps:
                checkpoint()
    except KeyboardInterrupt:
        progress.close()
        checkpoint()
        raise InterruptedRun(f"interrupted at step {step}; checkpoint saved, continue with --resume") from None
    finally:
        curves_f.close()
    progress.close()

    module.eval()
    final = task.evaluate(final=True)
    elapsed = elapsed0 + time.perf_counter() - t_start
    checkpoint()
    summary = dict(steps=step, max_steps=max_steps, stop_reason=stop_reason, tokens_seen=step * task.tokens_per_step,
                   train_loss=_last(curves_path, "train_loss"), wall_time_s=round(elapsed, 1),
                   tokens_per_s=round(step * task.tokens_per_step / max(elapsed, 1e-9)), parameters=n_params,
                   invocation=first_invocation, **final)
    say(f"done: {json.dumps({k: v for k, v in summary.items() if k != 'invocation'})}")
    return summary


def _last(path: Path, column: str) -> float | None:
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get(column)]
    return float(rows[-1][column]) if rows else None
