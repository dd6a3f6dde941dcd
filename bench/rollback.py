"""What rolling back a recurrent / hybrid target costs, per rollback strategy.

    python -m bench.rollback --target storylm-5m-hybrid --drafter storylm-1m

Two measurements, every strategy interleaved in each repeat (this machine is
shared and noisy), medians reported:

* **rollback cost per round**: one verification pass of k+1 tokens, a commit
  that keeps 1 + k//2 of them, and a sync; minus the same pass committed in
  full with no capture (the refeed path with nothing to redo). In ms and as a
  fraction of one plain one-token target step.
* **end to end**: tokens/s of speculative decoding (greedy and sampled) over
  plain decoding of the same prompt seconds apart, per strategy and k; the
  row reports the median (and quartiles) of those paired ratios.

Writes ``<out>/<date>-<machine>-rollback-<target>.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core on Linux)
import mlx.core as mx

from mlx_specdec.caches import ROLLBACKS, cache_arrays
from mlx_specdec.errors import SpecDecError
from mlx_specdec.generate import SpecStats, encode_prompt, plain_stream, speculative_stream
from mlx_specdec.loading import load_pair
from mlx_specdec.state import CacheSequence

from mlx_specdec.data.prompts import load_prompts
from .report import markdown_table, replace_block, speedup_cell, where
from .run import quantiles, save_results
from .systems import synchronised

EMPTY = mx.array([], dtype=mx.int32)


def _round(seq: CacheSequence, block: mx.array, keep: int) -> float:
    mx.synchronize()
    start = time.perf_counter()
    logits = seq.extend(block)
    seq.commit(keep, mx.argmax(logits[keep - 1 : keep], axis=-1).astype(mx.int32))
    mx.eval(logits, cache_arrays(seq.cache))
    return time.perf_counter() - start


def rollback_costs(model, context: list[int], ks: list[int], repeats: int = 20) -> dict:
    """Per strategy and k: median ms of (k+1-token pass + partial commit) minus the
    full-commit pass without capture; and the plain one-token step in ms."""
    seqs = {name: CacheSequence(model, name) for name in ROLLBACKS}
    base = CacheSequence(model, "refeed")
    step = CacheSequence(model, "refeed")
    for s in [*seqs.values(), base, step]:
        s.prefill(context)
    rng = mx.random.key(0)
    samples = {(name, k): [] for name in ROLLBACKS for k in ks}
    base_t = {k: [] for k in ks}
    step_t = []
    for rep in range(repeats + 2):  # the first two passes warm up
        for k in ks:
            rng, sub = mx.random.split(rng)
            block = mx.random.randint(0, 64, (k,), key=sub).astype(mx.int32)
            t_base = _round(base, block, k + 1)
            ts = {name: _round(s, block, 1 + k // 2) for name, s in seqs.items()}
            if rep >= 2:
                base_t[k].append(t_base)
                for name, t in ts.items():
                    samples[(name, k)].append(t - t_base)
        t_step = _round(step, EMPTY, 1)
        if rep >= 2:
            step_t.append(t_step)
    step_ms = statistics.median(step_t) * 1e3
    out = {"target_step_ms": step_ms, "rows": []}
    for (name, k), values in samples.items():
        ms = statistics.median(values) * 1e3
        out["rows"].append({"rollback": name, "k": k, "cost_ms": ms, "cost_steps": ms / step_ms,
                            "verify_pass_ms": statistics.median(base_t[k]) * 1e3})
    return out


def _timed(fn) -> tuple[list[int], float, SpecStats | None]:
    (ids, stats), seconds, _, _ = synchronised(fn)
    return ids, seconds, stats


def end_to_end(target, drafter, prompts: list[list[int]], ks: list[int], max_tokens: int, repeats: int,
               temperatures=(0.0, 1.0), seed: int = 1234) -> list[dict]:
    """Paired tokens/s ratios (speculative over plain, same prompt, seconds apart)."""

    def plain(ids, temp, s):
        return lambda: (list(plain_stream(target, ids, max_tokens, temperature=temp, seed=s)), None)

    def spec(ids, temp, s, k, rollback):
        def go():
            stats = SpecStats()
            out = [t for e in speculative_stream(target, drafter, ids, max_tokens, k=k, temperature=temp, seed=s,
                                                 strategy=rollback, stats=stats) for t in e.ids]
            return out, stats
        return go

    systems = [(temp, k, rb) for temp in temperatures for k in ks for rb in ROLLBACKS]
    ratios = {s: [] for s in systems}
    stats_of = {s: SpecStats() for s in systems}
    identical = True
    for temp in temperatures:  # warm-up, untimed
        plain(prompts[0], temp, seed)()
        for k in ks:
            for rb in ROLLBACKS:
                spec(prompts[0], temp, seed, k, rb)()
    for rep in range(repeats):
        for i, ids in enumerate(prompts):
            s = seed + i
            for temp in temperatures:
                ref, t_plain, _ = _timed(plain(ids, temp, s))
                for k in ks:
                    for rb in ROLLBACKS:
                        out, t, st = _timed(spec(ids, temp, s, k, rb))
                        ratios[(temp, k, rb)].append((len(out) / t) / (len(ref) / t_plain))
                        stats_of[(temp, k, rb)].add(st)
                        if temp == 0:
                            identical &= out == ref
    rows = []
    for (temp, k, rb), values in ratios.items():
        st = stats_of[(temp, k, rb)]
        rows.append({"mode": "greedy" if temp == 0 else f"sampled T={temp:g}", "k": k, "rollback": rb,
                     "speedup": quantiles(values), "acceptance": st.acceptance_rate,
                     "tokens_per_pass": st.tokens_per_pass})
    if not identical:
        raise SpecDecError("greedy speculative output differed from plain greedy: the engine is not exact here")
    return rows


def render(result: dict) -> str:
    h = result["header"]
    lines = [f"# Rollback strategies on {h['target']} (drafter {h['drafter']})", "",
             f"{h['date']}, {where(h)}, git {h['commit']}; `{h['command']}`.", "",
             f"Plain one-token target step: {result['costs']['target_step_ms']:.2f} ms.", "",
             "## Rollback cost per round (partial acceptance: 1 + k//2 of k+1 rows kept)", "",
             *markdown_table(["rollback", "k", "cost (ms)", "cost (target steps)"],
                             ([r["rollback"], r["k"], f"{r['cost_ms']:.2f}", f"{r['cost_steps']:.2f}"]
                              for r in result["costs"]["rows"]))]
    lines += ["", "## End to end: tokens/s over plain decoding (paired, median [q1, q3])", "",
              *markdown_table(["mode", "k", "rollback", "speedup", "acceptance", "tokens/pass"],
                              ([r["mode"], r["k"], r["rollback"], speedup_cell(r["speedup"]), f"{r['acceptance']:.1%}",
                                f"{r['tokens_per_pass']:.2f}"] for r in result["rows"]))]
    return "\n".join(lines) + "\n"


README_BLOCK = "rollback-table"  # README.md's marked block (bench.report.replace_block)


def readme_block(result: dict, source: str) -> str:
    """The README's table: per rollback, its cost per round and its best greedy and
    sampled speedups, from a committed results file (`source`, repo-relative)."""
    h, costs = result["header"], result["costs"]
    best = {}
    for r in result["rows"]:
        key = (r["rollback"], r["mode"])
        if key not in best or r["speedup"]["median"] > best[key]["speedup"]["median"]:
            best[key] = r
    modes = sorted({r["mode"] for r in result["rows"]}, key=lambda m: m != "greedy")
    ks = sorted({r["k"] for r in costs["rows"]})
    lines = [f"{h['target']} (target) with {h['drafter']} drafting, {h['date']}, {where(h)}; "
             f"plain one-token target step {costs['target_step_ms']:.2f} ms. From [`{source}`]({source}).",
             "",
             "| rollback | " + " | ".join(f"cost per round, k={k}" for k in ks) + " | "
             + " | ".join(f"best {m} (k)" for m in modes) + " |",
             "|---|" + "---:|" * (len(ks) + len(modes))]
    for name in ROLLBACKS:
        cells = []
        for k in ks:
            row = next(r for r in costs["rows"] if r["rollback"] == name and r["k"] == k)
            cells.append(f"{row['cost_ms']:.2f} ms ({row['cost_steps']:.2f} steps)")
        for m in modes:
            b = best[(name, m)]
            cells.append(f"{b['speedup']['median']:.2f}x ({b['k']})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_readme(readme: Path, results: Path) -> str:
    """README text with its rollback block re-rendered from `results` (a .json)."""
    source = results.resolve().relative_to(readme.resolve().parent).as_posix()
    return replace_block(readme.read_text(), README_BLOCK, readme_block(json.loads(results.read_text()), source))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.rollback", description=__doc__.splitlines()[0])
    p.add_argument("--target", help="model folder or store name (a recurrent or hybrid model)")
    p.add_argument("--drafter")
    p.add_argument("--ks", default="1,2,4")
    p.add_argument("--max-tokens", type=int, default=64)
    p.add_argument("--prompts", type=int, default=6)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--cost-repeats", type=int, default=20)
    p.add_argument("--out", default=".", help="output folder (default: the working directory)")
    p.add_argument("--readme", metavar="RESULTS_JSON",
                   help="only re-render README.md's rollback table from this committed results file")
    args = p.parse_args(argv)
    if args.readme:
        readme = Path(__file__).resolve().parents[1] / "README.md"
        readme.write_text(render_readme(readme, Path(args.readme)))
        print(f"re-rendered the rollback table in {readme.name} from {args.readme}")
        return 0
    if not (args.target and args.drafter):
        p.error("--target and --drafter are required (or --readme RESULTS_JSON)")
    try:
        ks = [int(x) for x in args.ks.split(",")]
        out_dir = Path(args.out)
        out_dir.mkdir(parents=True, exist_ok=True)
        models = Path(__file__).resolve().parents[1] / "models"
        path = lambda name: name if Path(name).exists() else str(models / name)  # noqa: E731
        target, drafter, tok = load_pair(path(args.target), path(args.drafter))
        _, prompts = load_prompts(None, args.prompts)
        ids = [encode_prompt(tok, p["text"]) for p in prompts]
        costs = rollback_costs(target, ids[0], ks, args.cost_repeats)
        rows = end_to_end(target, drafter, ids, ks, args.max_tokens, args.repeats)
    except SpecDecError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    header = {"target": Path(args.target).name, "drafter": Path(args.drafter).name}
    print(save_results(out_dir, f"rollback-{Path(args.target).name}", header, {"costs": costs, "rows": rows},
                       "bench.rollback", argv, render))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
