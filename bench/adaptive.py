"""Adaptive draft length (k="auto") against every fixed k, per drafter, paired with plain decoding.

    python -m bench.adaptive --target storylm-5m --drafters storylm-1m,storylm-5m-mtp,prompt-lookup
    python -m bench.adaptive --drafters prompt-lookup --ks 4,auto --prompt-set stories,copy --prompts 4
    python -m bench.adaptive --drafters prompt-lookup,prompt-lookup:serial,prompt-lookup:min=2 --ks 4,auto
    python -m bench.adaptive --ks 1,2,4,auto,heuristic   # heuristic: HF's schedule (+2 / -1), the baseline

For each prompt and repeat, plain greedy decoding runs, then every drafter at
every fixed k and at k="auto", seconds apart, in one interleaved pass; a row
reports the median (and quartiles) of its tokens/s over the plain run of the
same prompt. Greedy output is checked identical to plain on every run;
`--temperature T` measures sampled decoding instead (every run its own seed,
the plain run's included; the loop's exactness is the test suite's business).
Rows are reported per prompt set (`--prompt-set`: the story openings, the
copy-heavy set, or both, each measured in its own interleaved pass).
Writes ``<out>/<date>-<machine>-adaptive-<target>.{json,md}``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core on Linux)

from mlx_specdec.adaptive import SCHEDULES
from mlx_specdec.data.prompts import load_prompts, prompt_set_file
from mlx_specdec.errors import SpecDecError
from mlx_specdec.generate import SpecStats, encode_prompt, plain_stream, speculative_stream
from mlx_specdec.loading import load

from .report import markdown_table, speedup_cell, where
from .run import quantiles, save_results
from .systems import synchronised

ROOT = Path(__file__).resolve().parents[1]


def _drafter(name: str, target, tok, models: Path):
    """A fresh drafter for `name`: a store model, an MTP head folder or prompt-lookup."""
    if name.split(":")[0] == "prompt-lookup":
        return _lookup(name)
    path = Path(name) if Path(name).exists() else models / name
    if (path / "head.safetensors").is_file():
        from mlx_specdec.drafters import MTPDrafter
        from mlx_specdec.models.head_store import load_head

        head = load_head(path, target, tok)
        return lambda: MTPDrafter(head)
    model, _ = load(str(path))
    return lambda: model


def _lookup(name: str):
    """prompt-lookup[:option,...]: min=N / max=N set the n-gram range; 'serial' runs its rounds without
    drafts through the verdict one at a time, as the loop did before it ran them as pipelined plain steps."""
    from mlx_specdec.drafters import PromptLookupDrafter

    options = dict(min_ngram=1, max_ngram=3)
    serial = False
    for opt in filter(None, name.partition(":")[2].split(",")):
        key, _, value = opt.partition("=")
        if key in ("min", "max") and value.isdigit():
            options[f"{key}_ngram"] = int(value)
        elif opt == "serial":
            serial = True
        else:
            raise SpecDecError(f"{name!r}: unknown prompt-lookup option {opt!r} (min=N, max=N, serial)")

    class Serial(PromptLookupDrafter):
        pipelines_plain_steps = False

    cls = Serial if serial else PromptLookupDrafter
    cls(**options)  # a bad range fails here, before the run
    return lambda: cls(**options)


def measure(target, drafters: dict, prompts: list[list[int]], ks: list, max_tokens: int, repeats: int,
            temperature: float = 0.0) -> list[dict]:
    sampling = dict(temperature=temperature)
    seeds = iter(range(1, 1 << 30))  # sampled runs: a new seed each, the same sequence in every run of the bench
    ratios = {(d, k): [] for d in drafters for k in ks}
    stats = {(d, k): SpecStats() for d in drafters for k in ks}
    for name, make in drafters.items():  # warm-up, untimed
        for k in ks:
            list(speculative_stream(target, make(), prompts[0], 16, k=k, **sampling, seed=0))
    list(plain_stream(target, prompts[0], 16, **sampling, seed=0))
    for _ in range(repeats):
        for ids in prompts:
            (ref, t_plain, _, _) = synchronised(lambda: list(plain_stream(target, ids, max_tokens, **sampling,
                                                                          seed=next(seeds))))
            for name, make in drafters.items():
                for k in ks:
                    st = SpecStats()

                    def go(seed=next(seeds)):
                        return [t for e in speculative_stream(target, make(), ids, max_tokens, k=k, stats=st,
                                                              **sampling, seed=seed) for t in e.ids]

                    out, t, _, _ = synchronised(go)
                    if not temperature and out != ref:
                        raise SpecDecError(f"{name} k={k}: speculative output differs from plain greedy")
                    ratios[(name, k)].append((len(out) / t) / (len(ref) / t_plain))
                    agg = stats[(name, k)]
                    for field in ("target_passes", "drafted", "accepted", "generated"):
                        setattr(agg, field, getattr(agg, field) + getattr(st, field))
    return [{"drafter": name, "k": k, "speedup": quantiles(ratios[(name, k)]),
             "acceptance": stats[(name, k)].acceptance_rate, "tokens_per_pass": stats[(name, k)].tokens_per_pass}
            for (name, k) in ratios]


def render(result: dict) -> str:
    h = result["header"]
    lines = [f"# Adaptive k against fixed k on {h['target']}", "",
             f"{h['date']}, {where(h)}, git {h['commit']}; `{h['command']}`. {_mode(h).capitalize()}. "
             "Speedup: tokens/s over plain decoding of the same prompt, median [q1, q3]. "
             "Prompt sets: stories (held-out story openings), copy (a story, then a request to tell it again).", "",
             *markdown_table(["prompt set", "drafter", "k", "speedup", "acceptance", "tokens/pass"],
                             ([r.get("prompt_set", "stories"), r["drafter"], r["k"], speedup_cell(r["speedup"]),
                               f"{r['acceptance']:.1%}", f"{r['tokens_per_pass']:.2f}"] for r in result["rows"]))]
    return "\n".join(lines) + "\n"


def readme_block(result: dict, source: str) -> str:
    """The README's table: per prompt set and drafter, k="auto" beside the best fixed k of the same run,
    from a committed results file (`source`, repo-relative)."""
    h = result["header"]
    lines = [f"{h['target']} as the target, {h['date']}, {where(h)}, {_mode(h, ',')}; speedup = tokens/s over "
             "plain decoding of the same prompt, median [quartiles]. From "
             f"[`{source}`]({source}) (`{h['command']}`).", "",
             "| prompt set | drafter | k = auto | tokens/pass | HF heuristic (+2 / -1) | best fixed k | "
             "auto / best fixed |",
             "|---|---|---:|---:|---:|---:|---:|"]
    rows = result["rows"]
    for set_name in dict.fromkeys(r.get("prompt_set", "stories") for r in rows):
        for drafter in dict.fromkeys(r["drafter"] for r in rows):
            mine = [r for r in rows if r.get("prompt_set", "stories") == set_name and r["drafter"] == drafter]
            auto = next((r for r in mine if r["k"] == "auto"), None)
            heuristic = next((r for r in mine if r["k"] == "heuristic"), None)
            fixed = [r for r in mine if r["k"] not in SCHEDULES]
            if auto is None or not fixed:
                continue
            best = max(fixed, key=lambda r: r["speedup"]["median"])
            hf = f"{heuristic['speedup']['median']:.2f}x" if heuristic else "-"
            lines.append(f"| {set_name} | {drafter} | {speedup_cell(auto['speedup'])} | {auto['tokens_per_pass']:.2f} | "
                         f"{hf} | "
                         f"{best['speedup']['median']:.2f}x (k={best['k']}) | "
                         f"{auto['speedup']['median'] / best['speedup']['median']:.2f} |")
    return "\n".join(lines)


def _mode(header: dict, sep: str = ";") -> str:
    t = header.get("temperature", 0.0)
    return f"sampled at temperature {t:g}" if t else f"greedy{sep} every output identical to plain greedy"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.adaptive", description=__doc__.splitlines()[0])
    p.add_argument("--target", default="storylm-5m")
    p.add_argument("--drafters", default="storylm-1m,storylm-5m-mtp,prompt-lookup")
    p.add_argument("--ks", default="1,2,4,8,auto")
    p.add_argument("--max-tokens", type=int, default=96)
    p.add_argument("--prompts", type=int, default=6)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--prompt-set", default="stories,copy",
                   help="prompt sets, comma-separated from stories,copy (default both)")
    p.add_argument("--temperature", type=float, default=0.0,
                   help="sample at this temperature (default 0: greedy, every output checked against plain)")
    p.add_argument("--out", default=".", help="output folder (default: the working directory)")
    args = p.parse_args(argv)
    try:
        ks = [k if k in SCHEDULES else int(k) for k in args.ks.split(",")]
        models = ROOT / "models"
        target, tok = load(args.target if Path(args.target).exists() else str(models / args.target))
        drafters = {name: _drafter(name, target, tok, models) for name in args.drafters.split(",")}
        rows = []
        for set_name in args.prompt_set.split(","):
            _, prompts = load_prompts(prompt_set_file(set_name.strip()), args.prompts)
            ids = [encode_prompt(tok, q["text"]) for q in prompts]
            rows += [{"prompt_set": set_name.strip(), **r}
                     for r in measure(target, drafters, ids, ks, args.max_tokens, args.repeats, args.temperature)]
    except (SpecDecError, ValueError) as e:  # ValueError: a bad k, n-gram range or temperature
        print(f"error: {e}", file=sys.stderr)
        return 2
    # (no dot in the name: save_results adds the suffixes)
    name = f"adaptive-{Path(args.target).name}"
    if args.temperature:
        name += f"-t{args.temperature:g}".replace(".", "p")
    header = {"target": Path(args.target).name, **({"temperature": args.temperature} if args.temperature else {})}
    print(save_results(args.out, name, header,
                       {"rows": rows}, "bench.adaptive", argv, render))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
