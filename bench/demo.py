"""`make demo`'s runs, measured: the speedup each run prints, from a fresh machine on.

    python -m bench.demo --rounds 5 --out bench/results/demo

`make demo` shows the CLI's defaults (k="auto"), each run its own process, so the first `make demo` on a
machine starts with no calibration file and every later one with the file the runs before it left. This
runs the demo's generate commands, read from the Makefile's `demo` recipe (so the two cannot drift apart),
`--rounds` times as `--json` processes: round 1 with an empty calibration file (a fresh machine), each later
round with the file the rounds before it wrote, as a user running `make demo` again. A run's figure is the
speedup the demo prints (`--compare`: a plain run of the same prompt, timed after the speculative one, both
warmed up first). A real target that `make real-models` has not converted is skipped, as the demo skips it.
Writes ``<out>/<date>-<machine>-demo.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median

from mlx_specdec.loading import DEFAULT_DRAFTER, DEFAULT_TARGET

from .report import markdown_table, where
from .run import save_results

ROOT = Path(__file__).resolve().parents[1]


def _logical_lines(text: str) -> list[str]:
    """The Makefile's lines with backslash continuations joined, as make joins them (one space)."""
    return re.sub(r"[ \t]*\\\n[ \t]*", " ", text).splitlines()


def demo_commands(makefile: Path = ROOT / "Makefile") -> list[list[str]]:
    """The argument lists of `python -m mlx_specdec.generate` that the `demo` recipe runs, in order, with the
    Makefile's variables (DEMO_PROMPT, CHAT_PROMPT, ...) substituted."""
    lines = _logical_lines(makefile.read_text())
    variables = {}
    for line in lines:
        m = re.match(r"^([A-Z_]+)\s*[?:]?=\s*(.*)$", line)
        if m:
            variables[m.group(1)] = m.group(2).strip()
    start = next(i for i, line in enumerate(lines) if re.match(r"^demo\s*:", line))
    recipe = []
    for line in lines[start + 1:]:
        if not line.startswith("\t"):
            break
        recipe.append(line)
    commands = []
    for line in recipe:
        for part in line.split(";"):
            part = re.sub(r"^\s*(@|if \[.*?\]; then|then|else)?\s*", "", part.strip())
            if not part.startswith("$(PY) -m mlx_specdec.generate"):
                continue
            expanded = re.sub(r"\$\(([A-Z_]+)\)", lambda m: variables.get(m.group(1), ""),
                              part[len("$(PY) -m mlx_specdec.generate"):])
            commands.append(shlex.split(expanded))
    return commands


def _flag(args: list[str], name: str, default: str) -> str:
    return args[args.index(name) + 1] if name in args else default


def describe(args: list[str]) -> dict:
    """What a demo run is: its target, drafter and k (the CLI's defaults where the command names none)."""
    return {"model": _flag(args, "--model", DEFAULT_TARGET), "draft_model": _flag(args, "--draft-model", DEFAULT_DRAFTER),
            "k": _flag(args, "-k", _flag(args, "--num-draft-tokens", "auto"))}


def available(args: list[str]) -> bool:
    """A real target runs only where `make real-models` converted it (the demo's own test)."""
    model = describe(args)["model"]
    real = ROOT / "models" / "real" / model
    return not model.startswith(("smollm2", "gemma")) or (real / "model.safetensors").exists()


def run_once(args: list[str], cache: Path) -> dict:
    env = {**os.environ, "MLX_SPECDEC_CACHE": str(cache)}
    env.pop("MLX_SPECDEC_CALIBRATION", None)
    proc = subprocess.run([sys.executable, "-m", "mlx_specdec.generate", *args, "--json"], capture_output=True,
                          text=True, cwd=ROOT, env=env)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"a demo run failed ({' '.join(args[:6])} ...): {last}")
    out = json.loads(proc.stdout)
    return {"speedup": out["compare"]["speedup"], "identical": out["compare"]["identical"],
            "tokens_per_pass": out["stats"]["tokens_per_pass"], "generated": out["stats"]["generated"]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.demo", description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=5, help="times the whole demo runs; the first on a fresh machine")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "demo")
    args = p.parse_args(argv)
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    commands = [c for c in demo_commands() if available(c)]
    runs = [{**describe(c), "args": c, "rounds": []} for c in commands]
    with tempfile.TemporaryDirectory() as cache:
        for r in range(args.rounds):
            for run in runs:
                try:
                    run["rounds"].append(run_once(run["args"], Path(cache)))
                except RuntimeError as e:  # a run that failed: its own error, one line, nothing written
                    print(f"bench.demo: {e}", file=sys.stderr)
                    return 2
                print(f"round {r + 1}: {run['model']} / {run['draft_model']} / k={run['k']}: "
                      f"{run['rounds'][-1]['speedup']:.2f}x", flush=True)
    header = {"rounds": args.rounds}
    print(save_results(args.out, "demo", header, {"runs": runs}, "bench.demo", argv, render))
    return 0


def render(result: dict) -> str:
    h, runs = result["header"], result["runs"]
    rounds = h["rounds"]
    lines = [f"# `make demo`, measured ({h['date']}, {where(h)}, git {h['commit']})", "",
             f"Each figure is the speedup a demo run prints (`--compare`: a plain run of the same prompt, timed after "
             f"the speculative one, both warmed up), each run its own process. Round 1 starts with no calibration "
             f"file (a fresh machine), each later round with the file the rounds before it left (`make demo` run "
             f"again). Command: `{h['command']}`.", ""]
    rows = []
    for run in runs:
        s = [x["speedup"] for x in run["rounds"]]
        rows.append([run["model"], run["draft_model"], run["k"], *(f"{v:.2f}x" for v in s),
                     f"{min(s):.2f}x", f"{median(s):.2f}x",
                     "yes" if all(x["identical"] for x in run["rounds"]) else "NO"])
    lines += markdown_table(["target", "drafter", "k", "round 1 (no file)", *(f"round {i}" for i in range(2, rounds + 1)),
                             "lowest", "median", "identical"], rows, right=rounds + 3)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
