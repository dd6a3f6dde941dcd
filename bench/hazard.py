"""Where drafts fail along a block: the per-position hazard of each drafter at one fixed k.

    python -m bench.hazard --drafters storylm-1m-distilled,storylm-5m-mtp,prompt-lookup --k 16
    python -m bench.hazard --prompt-set copy --drafters prompt-lookup,storylm-1m

Greedy speculative decoding at a fixed k over a prompt set, counting for every
draft position i the rounds that drafted it with every draft before it accepted
(reached) and those of them that rejected it; the hazard h(i) is their ratio.
It is what `k="auto"` estimates (mlx_specdec.adaptive): a round of k drafts
emits E(k) = 1 + S(1) + ... + S(k) tokens, S(i) = (1 - h(1)) ... (1 - h(i)).
Counts are also split by the state the previous drafting round left (fully
accepted, or not), as auto keeps them. Beside E(k) from the hazards, the
geometric model with one rate for every position (alpha = accepted / (accepted
+ rejections)) shows what a single rate misprices. Counts, not clocks: the
result is the same on any machine. Writes
``<out>/<date>-<machine>-hazard-<target>.{json,md}``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core on Linux)

from mlx_specdec.data.prompts import load_prompts, prompt_set_file
from mlx_specdec.errors import SpecDecError
from mlx_specdec.generate import SpecStats, encode_prompt, speculative_stream
from mlx_specdec.loading import load

from .adaptive import ROOT, _drafter
from .costmodel import iid_expected_accepted
from .report import markdown_table, where
from .run import save_results

SHOWN_KS = (1, 2, 4, 8, 16)


def position_counts(rounds, k_max: int) -> dict:
    """From (drafted, accepted) per round: reached[i] and failed[i] for draft positions 1..k_max (index 0
    unused), pooled and per state the previous drafting round left ('after_full' / 'after_reject'; the
    first drafting round has no predecessor and counts in the pool only). Rounds without drafts are
    skipped and leave the state as it was."""
    keys = ("pooled", "after_full", "after_reject")
    counts = {key: {"reached": [0] * (k_max + 1), "failed": [0] * (k_max + 1)} for key in keys}
    state = None
    for drafted, accepted in rounds:
        if drafted == 0:
            continue
        rejected = accepted < drafted
        for key in ("pooled", state):
            if key is None:
                continue
            c = counts[key]
            for i in range(1, min(accepted + rejected, k_max) + 1):
                c["reached"][i] += 1
            if rejected and accepted < k_max:
                c["failed"][accepted + 1] += 1
        state = "after_reject" if rejected else "after_full"
    return counts


def hazards(c: dict) -> list[float | None]:
    return [None] + [f / r if r else None for r, f in zip(c["reached"][1:], c["failed"][1:])]


def expected_tokens(h: list[float | None], k: int) -> float | None:
    """E(k) from measured hazards; None past the last position reached."""
    total, survive = 1.0, 1.0
    for i in range(1, k + 1):
        if i >= len(h) or h[i] is None:
            return None
        survive *= 1.0 - h[i]
        total += survive
    return total


def geometric_tokens(c: dict, k: int) -> float:
    accepted = sum(c["reached"][1:]) - sum(c["failed"][1:])  # each reached position either agreed or failed
    rejections = sum(c["failed"][1:])
    return 1.0 + iid_expected_accepted(accepted / max(accepted + rejections, 1), k)


def measure(target, drafters: dict, prompts: list, k: int, max_tokens: int) -> list[dict]:
    rows = []
    for name, make in drafters.items():
        rounds = []
        for ids in prompts:
            stats = SpecStats()
            for _ in speculative_stream(target, make(), ids, max_tokens, k=k, stats=stats):
                pass
            rounds += list(zip(stats.drafted_per_round, stats.accepted_per_round))
        counts = position_counts(rounds, k)
        rows.append({"drafter": name, "k": k, "rounds": len(rounds),
                     "drafting_rounds": sum(1 for d, _ in rounds if d), **{
                         key: {**c, "hazard": hazards(c)} for key, c in counts.items()}})
    return rows


def _cell(v, fmt="{:.3f}"):
    return "-" if v is None else fmt.format(v)


def render(result: dict) -> str:
    h = result["header"]
    lines = [f"# Draft hazard per position, {h['target']} as the target, k = {h['k']}, prompt set {h['prompt_set']}",
             "", f"{h['date']}, {where(h)}, commit {h['commit']}. `{h['command']}`", "",
             "h(i): of the rounds that drafted position i with every draft before it accepted, the share that "
             "rejected it. E(k) from the hazards against the geometric model (one rate for every position).", ""]
    for r in result["rows"]:
        k = r["k"]
        lines += [f"## {r['drafter']}", "",
                  f"{r['drafting_rounds']} drafting rounds of {r['rounds']}.", ""]
        lines += markdown_table(["position", "reached", "h (pooled)", "h after a full round",
                                 "h after a rejection"],
                                ([i, r["pooled"]["reached"][i], _cell(r["pooled"]["hazard"][i]),
                                  _cell(r["after_full"]["hazard"][i]), _cell(r["after_reject"]["hazard"][i])]
                                 for i in range(1, k + 1) if r["pooled"]["reached"][i]))  # (an MTP head's depth)
        shown = [j for j in SHOWN_KS if j <= k]
        lines += ["", *markdown_table(["tokens per round", *(f"k={j}" for j in shown)], [
            ["from the hazards", *(_cell(expected_tokens(r["pooled"]["hazard"], j), "{:.2f}") for j in shown)],
            ["geometric", *(f"{geometric_tokens(r['pooled'], j):.2f}" for j in shown)]]), ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.hazard", description=__doc__.splitlines()[0])
    p.add_argument("--target", default="storylm-5m")
    p.add_argument("--drafters", default="storylm-1m,storylm-1m-distilled,storylm-5m-mtp,prompt-lookup")
    p.add_argument("--k", type=int, default=16)
    p.add_argument("--max-tokens", type=int, default=160)
    p.add_argument("--prompts", type=int, default=12)
    p.add_argument("--prompt-set", default="stories", help="stories or copy")
    p.add_argument("--out", default=".", help="output folder (default: the working directory)")
    args = p.parse_args(argv)
    try:
        if args.k < 1:
            raise SpecDecError(f"--k must be at least 1, got {args.k}")
        models = ROOT / "models"
        target, tok = load(args.target if Path(args.target).exists() else str(models / args.target))
        drafters = {name: _drafter(name, target, tok, models) for name in args.drafters.split(",")}
        _, prompts = load_prompts(prompt_set_file(args.prompt_set.strip()), args.prompts)
        ids = [encode_prompt(tok, q["text"]) for q in prompts]
        rows = measure(target, drafters, ids, args.k, args.max_tokens)
    except (SpecDecError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    header = {"target": Path(args.target).name, "k": args.k, "prompt_set": args.prompt_set}
    print(save_results(args.out, f"hazard-{args.prompt_set}-{Path(args.target).name}", header, {"rows": rows},
                       "bench.hazard", argv, render))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
