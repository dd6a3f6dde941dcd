"""What one target pass over n rows costs, for n = 1 .. 17: the shape of a verification's price.

    python -m bench.passes                                    # the StoryLM 5M and 30M, SmolLM2, Gemma 3 270M
    python -m bench.passes --targets storylm-5m,models/real/smollm2-135m-instruct --repeats 8 --out bench/results

A round of k drafts verifies k + 1 rows in one pass of the target. Each target's committed state is made as
the loop makes it (`make_sequence(target, "auto")`: the compiled step where it applies) over a 90-token
context; then every n is timed in turn, `repeats` times round-robin (the machine's drift falls on every n
alike), each pass synchronised (`mx.eval`) and rolled back, the first two rounds left out (traces). Reported:
the median milliseconds of each n, and each n over a one-row pass. On this 2-core CPU the curve is not
smooth: a pass of 2^j rows costs less than one of 2^j + 1 and, at 16, less than every n from 10 to 15
(OpenBLAS's kernels run whole tiles of rows fastest), which a drafter's block length, or k=auto's ladder,
can use: k = 2^j - 1 drafts verify 2^j rows. Writes ``<out>/<date>-<machine>-passes.{json,md}``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core on Linux)

import mlx.core as mx

from mlx_specdec.errors import SpecDecError
from mlx_specdec.loading import load
from mlx_specdec.state import make_sequence

from .report import markdown_table, where
from .run import save_results

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TARGETS = "storylm-5m,storylm-30m,models/real/smollm2-135m-instruct,models/real/gemma-3-270m"
CONTEXT = 90
SETTLE = 2  # round-robin rounds left out: the first pass of each n traces


def committed_state(target):
    """The target's committed state as the loop makes it, over a CONTEXT-token context and one token pending."""
    seq = make_sequence(target, "auto")
    seq.prefill(mx.arange(100, 100 + CONTEXT, dtype=mx.int32))
    mx.eval(seq.extend(mx.array([], dtype=mx.int32)))
    seq.commit(1, mx.array([5], dtype=mx.int32))
    return seq


def pass_costs(target, max_rows: int = 17, repeats: int = 8) -> tuple[str, dict[int, float]]:
    """(the sequence's class name, {n: median seconds of a pass over n rows}) for n = 1 .. max_rows."""
    seq = committed_state(target)
    seconds = {n: [] for n in range(1, max_rows + 1)}
    for _ in range(repeats + SETTLE):
        for n in seconds:
            rows = mx.arange(200, 200 + n - 1, dtype=mx.int32)  # with the pending token: n rows
            started = time.perf_counter()
            mx.eval(seq.extend(rows))
            seconds[n].append(time.perf_counter() - started)
            seq.commit(0, mx.array([5], dtype=mx.int32))  # nothing kept: the same context every pass
    return type(seq).__name__, {n: statistics.median(v[SETTLE:]) for n, v in seconds.items()}


def render(result: dict) -> str:
    h = result["header"]
    lines = [f"# A target pass over n rows ({h['date']}, {where(h)}, git {h['commit']})", "",
             f"Median milliseconds of one pass over n rows after a {CONTEXT}-token context, each n timed "
             f"{h['repeats']} times round-robin (`bench.passes`'s docstring); in brackets, over a one-row pass. "
             f"Command: `{h['command']}`.", ""]
    ns = sorted({int(n) for t in result["targets"] for n in t["ms"]})
    rows = [[n, *(f"{t['ms'][str(n)]:.1f} ({t['ms'][str(n)] / t['ms']['1']:.2f})" if str(n) in t["ms"] else ""
                  for t in result["targets"])] for n in ns]
    names = [f"{t['target']} ({t['sequence']})" for t in result["targets"]]
    return "\n".join(lines + markdown_table(["rows", *names], rows, right=len(names) + 1) + [""])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.passes", description=__doc__.split("\n\n")[0])
    p.add_argument("--targets", default=DEFAULT_TARGETS, help="comma-separated: store names (models/NAME) or folders")
    p.add_argument("--max-rows", type=int, default=17)
    p.add_argument("--repeats", type=int, default=8)
    p.add_argument("--models", type=Path, default=ROOT / "models")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = p.parse_args(argv)
    if args.max_rows < 1 or args.repeats < 1:
        print("bench.passes: --max-rows and --repeats must be at least 1", file=sys.stderr)
        return 2
    targets = []
    try:
        for name in filter(None, args.targets.split(",")):
            path = Path(name) if Path(name).exists() else args.models / name
            if not path.exists():
                raise SpecDecError(f"no model {name} (neither a folder nor {path})")
            model, _ = load(str(path))
            kind, seconds = pass_costs(model, args.max_rows, args.repeats)
            targets.append({"target": path.name, "sequence": kind, "ms": {str(n): 1e3 * s for n, s in seconds.items()}})
            print(f"{path.name}: " + " ".join(f"{n}:{1e3 * s:.1f}" for n, s in seconds.items()), flush=True)
    except SpecDecError as e:
        print(f"bench.passes: {e}", file=sys.stderr)
        return 2
    print(save_results(args.out, "passes", {"repeats": args.repeats, "context": CONTEXT}, {"targets": targets},
                       "bench.passes", argv, render))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
