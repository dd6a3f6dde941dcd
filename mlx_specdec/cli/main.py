"""`mlx-specdec <command>`: the installed entry point over the command lines.

    mlx-specdec generate --model <folder or hub id> --prompt "..."
    mlx-specdec train | mtp | distill | convert | doctor ...
    mlx-specdec bench ...        (a source checkout only: bench/ is not installed)

`python -m mlx_specdec.<command>` runs the same `main()`s.
"""

from __future__ import annotations

import importlib
import os
import sys

from .common import EXIT_BAD_INPUT, quiet_interrupts

COMMANDS = {
    "generate": "speculative (or plain) decoding",
    "train": "train a StoryLM of the ladder",
    "mtp": "train or inspect an MTP head on a frozen base",
    "distill": "write a drafter's training corpus from its target's own outputs",
    "eagle": "EAGLE-3 drafters: a chat target's answer corpus, and training on it",
    "dflash": "block drafters (DFlash): training one on a chat corpus",
    "convert": "a GGUF file into an mlx-lm folder; a GPT-Neo folder or StoryLM state dict into the store",
    "bench": "the benchmark harness (from a source checkout)",
    "doctor": "what this machine gives MLX",
}


def _usage() -> str:
    lines = ["usage: mlx-specdec <command> [options]   (mlx-specdec <command> --help)", "", "commands:"]
    lines += [f"  {name:<9} {what}" for name, what in COMMANDS.items()]
    return "\n".join(lines)


def _bench_main():
    """bench/ lives beside the package in a checkout; the current folder may be one."""
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module("bench.cli")
    except ModuleNotFoundError as e:
        if e.name not in ("bench", "bench.cli"):
            raise
        return None
    return module.main


def main(argv=None) -> int:
    quiet_interrupts()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0 if argv else EXIT_BAD_INPUT
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(f"mlx-specdec: error: unknown command {command!r}; expected one of {', '.join(COMMANDS)}",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    if command == "bench":
        run = _bench_main()
        if run is None:
            print("mlx-specdec: error: bench is the benchmark harness of a source checkout and is not installed; "
                  "run it from the repository root (mlx-specdec bench, or python -m bench)", file=sys.stderr)
            return EXIT_BAD_INPUT
        return run(rest)
    return importlib.import_module(f"{__package__}.{command}").main(rest)


if __name__ == "__main__":
    sys.exit(main())
