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


def add_config_flags(p, config_class) -> None:
    """One flag per field of a trainer config; numbers must be finite, within HYPERPARAMETER_RANGES."""
    from dataclasses import fields

    from ..training.loop import HYPERPARAMETER_RANGES

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


def given_flags(args, config_class) -> dict:
    """The config fields set on the command line (`is not`, not `in`: 0 == False, and 0 must reach validation)."""
    from dataclasses import fields

    return {f.name: getattr(args, f.name) for f in fields(config_class)
            if getattr(args, f.name) is not None and getattr(args, f.name) is not False}
