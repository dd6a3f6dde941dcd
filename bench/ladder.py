"""The StoryLM ladder: held-out losses of every rung, and 1M/5M drafting for the 30M.

    python -m bench.ladder                      # losses + acceptance and speed, k in 1,2,4,8, every pair
    python -m bench.ladder --ks 1,2 --prompts 2 --repeats 1 --max-tokens 32   # a quick look

Two parts, one results file (``<out>/<date>-<machine>-ladder.{json,md}``):

- Losses: every rung on the same targets (``mlx_specdec.train --evaluate``):
  the generator's valid split, the plot shapes held out of training, and the
  hand-written yardstick no model trained on.
- Greedy repetition: every rung's plain greedy continuation of the story
  prompts, scored by the share of its 4-word sequences that already came
  earlier in the same text, and the number of texts that repeat an 8-word
  run (a loop). The cards' samples, in a number.
- The module's exercises 1 and 2 on the real pairing: storylm-1m and
  storylm-5m drafting for storylm-30m (and the 1M for the 5M) at each k, greedy, paired with plain
  decoding of the same prompt (`bench.adaptive.measure`): acceptance,
  tokens per target pass and tokens/s over plain. Every output is checked
  identical to plain greedy.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core on Linux)

from mlx_specdec.data.prompts import load_prompts
from mlx_specdec.errors import SpecDecError
from mlx_specdec.generate import encode_prompt
from mlx_specdec.loading import load

from .adaptive import _drafter, measure
from .report import markdown_table, speedup_cell, where
from .run import save_results

ROOT = Path(__file__).resolve().parents[1]
RUNGS = ("storylm-1m", "storylm-5m", "storylm-30m")
EVALUATED = RUNGS + ("storylm-5m-hybrid",)  # every shipped model with its own weights


def losses(models: Path, rungs=EVALUATED, valid_stories: int = 2000, shapes_stories: int = 500) -> list[dict]:
    from mlx_specdec.train import evaluate_models

    rows = evaluate_models([models / r for r in rungs], n_stories=valid_stories, shapes_stories=shapes_stories)
    for row, name in zip(rows, rungs):
        row["model"] = name
    return rows


def repeated_share(words: list[str], n: int = 4) -> tuple[int, int]:
    """(n-grams that already occurred earlier in the same text, n-grams): 0 of m for text that never
    repeats itself, nearly all of them for a loop."""
    seen, repeated, grams = set(), 0, [tuple(words[i:i + n]) for i in range(len(words) - n + 1)]
    for g in grams:
        repeated += g in seen
        seen.add(g)
    return repeated, len(grams)


def greedy_repetition(models: Path, rungs, prompts, max_tokens: int) -> dict[str, dict]:
    """Per rung: its greedy continuations of the prompts, the pooled share of repeated 4-grams and how
    many continuations repeat an 8-word run."""
    from mlx_specdec.generate import greedy_generate

    out = {}
    for name in rungs:
        model, tok = load(str(models / name))
        texts = [tok.decode(greedy_generate(model, encode_prompt(tok, q["text"]), max_tokens, eos_id=tok.eos_id))
                 for q in prompts]
        counts = [repeated_share(t.split()) for t in texts]
        out[name] = dict(repeated_4grams=sum(r for r, _ in counts) / max(1, sum(m for _, m in counts)),
                         loops=sum(repeated_share(t.split(), 8)[0] > 0 for t in texts), texts=texts)
    return out


def render(result: dict) -> str:
    h = result["header"]
    rep = result.get("repetition") or {}
    lines = [f"# The StoryLM ladder on {where(h)}", "",
             f"{h['date']}, git {h['commit']}; `{h['command']}`.", "",
             "## Held-out loss (nats per token; lower is better)", "",
             *markdown_table(["model", "parameters", "generator valid split", "held-out plot shapes",
                              "hand-written yardstick", *(["greedy: repeated 4-grams", "loops"] if rep else [])],
                             ([r["model"], f"{r['parameters']:,}", f"{r['valid_loss']:.3f}", f"{r['shapes_loss']:.3f}",
                               f"{r['yardstick_loss']:.3f}", *_repetition_cells(rep.get(r["model"]))]
                              for r in result["losses"]))]
    lines += ["", f"Valid split: {result['losses'][0]['targets']:,} targets; yardstick: "
              f"{result['losses'][0]['yardstick_targets']:,} targets in the hand-written stories."]
    if rep:
        n = len(next(iter(rep.values()))["texts"])
        lines += [f"Greedy: each model's plain greedy continuation of {n} story prompts "
                  f"({h.get('max_tokens', '?')} tokens); repeated 4-grams: the share of its 4-word sequences "
                  f"that already came earlier in the same text; loops: continuations repeating an 8-word run."]
    lines += [""]
    if result.get("rows"):
        lines += ["## Drafting along the ladder (greedy; every output identical to plain greedy)", "",
                  "Speedup: tokens/s over the target's plain decoding of the same prompt, median [q1, q3].", "",
                  *markdown_table(["drafter", "target", "k", "acceptance", "tokens/pass", "speedup"],
                                  ([r["drafter"], r["target"], r["k"], f"{r['acceptance']:.1%}",
                                    f"{r['tokens_per_pass']:.2f}", speedup_cell(r["speedup"])]
                                   for r in result["rows"]))]
    return "\n".join(lines) + "\n"


def _repetition_cells(row: dict | None) -> list[str]:
    if row is None:
        return []
    return [f"{row['repeated_4grams']:.0%}", f"{row['loops']} of {len(row['texts'])}"]


def readme_block(result: dict, source: str) -> str:
    """The README's ladder block: the loss table and the best k per drafter, from the results file."""
    body = render(result).split("\n", 4)[4]  # drop the title and the provenance line
    best = {}
    for r in result.get("rows", []):
        pair = f"{r['drafter']} for {r['target']}"
        if pair not in best or r["speedup"]["median"] > best[pair]["speedup"]["median"]:
            best[pair] = r
    h = result["header"]
    lines = [body.strip(), "", f"From [`{source}`]({source}) (`{h['command']}`; {h['date']}, {where(h)})."]
    if best:
        lines.append("Best k per pair: " + "; ".join(
            f"{d} at k={r['k']}, {r['speedup']['median']:.2f}x plain" for d, r in best.items()) + ".")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.ladder", description=__doc__.splitlines()[0])
    p.add_argument("--pairs", default="storylm-1m>storylm-30m,storylm-5m>storylm-30m,storylm-1m>storylm-5m,"
                                      "storylm-1m-distilled>storylm-5m",
                   help="drafter>target pairs, comma-separated")
    p.add_argument("--ks", default="1,2,4,8")
    p.add_argument("--max-tokens", type=int, default=96)
    p.add_argument("--prompts", type=int, default=6)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--rungs", default=",".join(EVALUATED),
                   help=f"models whose losses are scored, comma-separated (default: {','.join(EVALUATED)})")
    p.add_argument("--valid-stories", type=int, default=2000)
    p.add_argument("--shapes-stories", type=int, default=500, help="stories of the held-out plot shapes scored")
    p.add_argument("--models", default=str(ROOT / "models"), help="the folder holding the rungs")
    p.add_argument("--out", default=".", help="output folder (default: the working directory)")
    args = p.parse_args(argv)
    try:
        models = Path(args.models)
        rungs = tuple(filter(None, (r.strip() for r in args.rungs.split(","))))
        missing = [r for r in rungs if not (models / r).is_dir()]
        if not rungs or missing:
            raise SpecDecError(f"--rungs: no model folder {', '.join(missing) or '(none given)'} in {models}")
        rows_loss = losses(models, rungs, valid_stories=args.valid_stories, shapes_stories=args.shapes_stories)
        _, prompts = load_prompts(None, args.prompts)
        repetition = greedy_repetition(models, rungs, prompts, args.max_tokens)
        ks = [k if k == "auto" else int(k) for k in args.ks.split(",") if k]
        rows = []
        by_target: dict[str, list[str]] = {}
        for pair in filter(None, args.pairs.split(",")):
            drafter, _, target_name = pair.partition(">")
            if not target_name:
                raise SpecDecError(f"--pairs: expected drafter>target, got {pair!r}")
            by_target.setdefault(target_name, []).append(drafter)
        for target_name, names in by_target.items():
            target, tok = load(str(models / target_name))
            drafters = {name: _drafter(name, target, tok, models) for name in names}
            ids = [encode_prompt(tok, q["text"]) for q in prompts]
            rows += [dict(r, target=target_name) for r in measure(target, drafters, ids, ks, args.max_tokens,
                                                                 args.repeats)]
    except (SpecDecError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(save_results(args.out, "ladder", {"pairs": args.pairs, "max_tokens": args.max_tokens},
                       {"losses": rows_loss, "repetition": repetition, "rows": rows},
                       "bench.ladder", argv, render))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
