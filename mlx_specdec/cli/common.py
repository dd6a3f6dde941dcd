"""What every command line shares: exit codes, argument types, and one-line failures.

    0    done
    1    the job ran and failed (a verdict, a full disk)
    2    bad input: a value, a path or a model the command cannot use
    130  interrupted (Ctrl-C), at any moment, imports included

Library modules never import this one; the `main()`s do.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


def quiet_interrupts() -> None:
    """Ctrl-C before `main()` catches it (while MLX is imported) exits 130 with one line.

    Called at the top of a module run with `python -m`, before its heavy
    imports; an excepthook, so only an interrupt nobody handled reaches it.
    """
    previous = sys.excepthook

    def hook(kind, value, tb):
        if issubclass(kind, KeyboardInterrupt):
            print("interrupted", file=sys.stderr, flush=True)
            os._exit(EXIT_INTERRUPTED)
        previous(kind, value, tb)

    sys.excepthook = hook


class Parser(argparse.ArgumentParser):
    """argparse, with its refusals on one line (no usage block) and exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse's hook
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see --help)\n")


def number(kind=float, *, low=None, high=None, low_open=False, high_open=False):
    """An argparse type: a finite `kind` within [low, high] (open ends when asked).

    nan and inf never parse; the refusal names the value and the range.
    """

    def show(bound) -> str:
        return str(bound) if kind is int else f"{bound:g}"

    def describe() -> str:
        parts = []
        if low is not None:
            parts.append(f"{'>' if low_open else '>='} {show(low)}")
        if high is not None:
            parts.append(f"{'<' if high_open else '<='} {show(high)}")
        return "a finite number" + (f" {' and '.join(parts)}" if parts else "") if kind is float else \
            "an integer" + (f" {' and '.join(parts)}" if parts else "")

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {describe()}, got {text!r}") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected {describe()}, got {text!r}")
        if low is not None and (value < low or (low_open and value == low)):
            raise argparse.ArgumentTypeError(f"expected {describe()}, got {text!r}")
        if high is not None and (value > high or (high_open and value == high)):
            raise argparse.ArgumentTypeError(f"expected {describe()}, got {text!r}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in its own messages
    return parse


def path_name(text: str) -> str:
    """A file stem: no folder separators, no '.' or '..'."""
    if not text or "/" in text or "\\" in text or os.sep in text or text in (".", "..") or "\0" in text:
        raise argparse.ArgumentTypeError(f"expected a plain name without path separators, got {text!r}")
    return text


def run_main(body, *args, json_errors: bool = False) -> int:
    """Run a command's body: SpecDecError -> one line, exit 2; Ctrl-C -> exit 130;
    an OSError while writing (full or read-only disk) -> one line, exit 1.

    With `json_errors` the refusal is also printed to stdout as a JSON object,
    so `--json` output always parses.
    """
    from ..errors import SpecDecError

    def fail(message: str, code: int) -> int:
        print(f"error: {message}", file=sys.stderr, flush=True)
        if json_errors:
            print(json.dumps({"error": message, "exit_code": code}), flush=True)
        return code

    try:
        return body(*args)
    except SpecDecError as e:
        return fail(str(e), getattr(e, "exit_code", EXIT_BAD_INPUT))
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_INTERRUPTED)
    except OSError as e:
        where = f" ({e.filename})" if getattr(e, "filename", None) else ""
        return fail(f"{e.strerror or e}{where}", EXIT_FAILED)


def json_record(record: dict) -> str:
    """One line of strict JSON: a non-finite float (a rate over zero seconds) becomes null."""

    def finite(value):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: finite(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [finite(v) for v in value]
        return value

    return json.dumps(finite(record), allow_nan=False)


# What each trainer flag means, for --help (the StoryLM and MTP trainers share most of them).
CONFIG_FLAG_HELP = {
    "out": "the model folder written at the end (refused if it holds something else; see --overwrite)",
    "run_dir": "where the checkpoint, the training curves and the token cache live",
    "corpus": "'bundled', 'bundled:written=S[,retell=R[,passage=N]]' (the written stories' share of training "
              "draws; the share told twice, story + request + story; only its first N words' whole sentences), "
              "'hub[:repo]' or a TinyStories file/folder",
    "train_stories": "training stories read from the corpus",
    "valid_stories": "validation stories read from the corpus",
    "data_seed": "which bundled stories are generated",
    "seq_len": "tokens per training row",
    "batch_size": "rows per step",
    "lr": "peak learning rate (after warmup, then cosine decay)",
    "min_lr_ratio": "the cosine's floor, as a share of --lr",
    "warmup": "steps of linear warmup",
    "weight_decay": "AdamW weight decay",
    "grad_clip": "clip the gradient's global norm to this",
    "max_steps": "length of the schedule in steps",
    "time_budget_min": "wall-clock budget in minutes; without --max-steps the schedule's length is calibrated to it",
    "eval_every": "validate every this many steps",
    "eval_rows": "validation rows scored at each periodic validation (the final one scores them all)",
    "ckpt_every": "write the checkpoint every this many steps (atomically)",
    "log_every": "print progress every this many steps",
    "seed": "initialisation and the order rows are read in",
    "resume": "continue the run in --run-dir from its last checkpoint",
    "quiet": "no progress output",
    "overwrite": "replace --out when it holds an earlier result of the same kind",
    "preset": "model size",
    "tokenizer": "a sentencepiece model to use (trained into the run folder when not given)",
    "vocab_size": "pieces of a newly trained tokenizer",
    "tokenizer_stories": "stories a new tokenizer is trained on",
    "data_cache": "folder of the token cache (default: the run folder)",
    "sample_tokens": "tokens of each greedy sample in the model card",
    "no_yardstick": "keep the final weights instead of the ones that scored best on the hand-written stories",
    "init_from": "a store folder of the same preset and tokenizer whose weights start the run",
    "base": "the frozen base model the head drafts for",
    "depth": "tokens the head proposes past the trunk's own next token",
    "n_modules": "depth modules (one per depth, DeepSeek-style, or shared)",
    "n_blocks": "transformer blocks per module",
    "depth_decay": "loss weight of depth d is depth_decay**(d-1)",
    "rollout_stride": "depths >= 2 train at every stride-th position",
    "draft_vocab": "the draft vocabulary: this many of the corpus's most frequent answer tokens",
    "ttt_steps": "draft steps unrolled in training (the training-time test)",
    "step_decay": "loss weight of unrolled step j is step_decay**j",
    "target_layers": "comma-separated 0-based target layers whose outputs the drafter reads (default: EAGLE-3's "
                     "low, middle and high: 1, L/2-1, L-4)",
    "intermediate_size": "the drafter's MLP width (default: the target's)",
    "no_target_cache": "run the target over a row every time it is drawn, instead of keeping its pass in memory "
                       "after the first (about 5 MB a 256-token row for SmolLM2)",
    "target_cache_gb": "keep at most this many GiB of target passes; rows past it are run again each time they "
                       "are drawn (default: 60%% of the machine's memory)",
    "target_cache_dir": "also keep each row's target pass in this folder (about 5 MB a row): a resumed run, a "
                        "second stage or another drafter over the same rows, target layers and vocabulary reads "
                        "them instead of running the target again",
    "head_init": "target: the draft head starts as the target's head rows and final norm; random: from scratch",
}


def add_config_flags(p, config_class, defaults: dict | None = None, helps: dict | None = None) -> None:
    """One flag per field of a trainer config, with its help and default; numbers must be finite, within
    HYPERPARAMETER_RANGES. `defaults` names the fields whose default depends on something else (a preset)."""
    from dataclasses import MISSING, fields

    from ..training.loop import HYPERPARAMETER_RANGES

    for f in fields(config_class):
        flag = "--" + f.name.replace("_", "-")
        text = {**CONFIG_FLAG_HELP, **(helps or {})}.get(f.name, "")
        if f.type in ("bool", bool):
            p.add_argument(flag, action="store_true", help=text)
            continue
        if defaults and f.name in defaults:
            text += f" (default: {defaults[f.name]})"
        elif f.default is not MISSING and f.default is not None:
            text += f" (default: {f.default:,})" if isinstance(f.default, int) else f" (default: {f.default})"
        kind = {"int": int, "float": float}.get(str(f.type).split(" |")[0].strip())
        if kind is None:
            p.add_argument(flag, default=None, help=text)
            continue
        low, high, low_open = HYPERPARAMETER_RANGES.get(f.name, (None, None, False))
        p.add_argument(flag, type=number(kind, low=low, high=None if high == math.inf else high, low_open=low_open),
                       default=None, help=text)


def given_flags(args, config_class) -> dict:
    """The config fields set on the command line (`is not`, not `in`: 0 == False, and 0 must reach validation)."""
    from dataclasses import fields

    return {f.name: getattr(args, f.name) for f in fields(config_class)
            if getattr(args, f.name) is not None and getattr(args, f.name) is not False}
