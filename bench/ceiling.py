"""What a drafter could give on this machine at most: the speedup its acceptance buys, from measured costs.

    python -m bench.ceiling                      # SmolLM2's newest committed pass costs and drafter step costs
    python -m bench.ceiling --target gemma-3-270m  # prompt lookup alone where no drafter was profiled
    python -m bench.ceiling --passes FILE --drafters FILE --out bench/results

A round of k drafts emits at most k + 1 tokens and costs its verification, a target pass over k + 1 rows,
plus the drafter's work; a plain step emits one and costs a one-row pass. So a round of k costs about
R(k) = pass(k + 1) / pass(1) + drafter(k) plain steps, and a drafter averaging tau tokens a pass runs at
about tau / R(k) times plain decoding, whatever it is. Left out: the loop's host work around a pass (a few
milliseconds a round or step; `bench.auto_replay`'s rounds timed in the loop agree with these within
their noise). This reads both inputs from committed results, never running a model:

* what a pass over n rows costs: `bench.passes` (n = 1 .. 17, round-robin, the loop's committed state);
* what a drafter's work costs against a target step: `bench.real --eagle3 --dflash`'s profiles (an EAGLE-3
  drafter pays a step per draft; a block drafter one pass for its whole block; prompt lookup nothing); a
  target with no such file gets prompt lookup's rows alone.

For each drafter and k it gives R(k), the most any drafter of that kind can reach (every draft accepted),
what a given tokens-per-pass goal reaches, and how many tokens a pass a given speedup needs (more than
k + 1: out of reach at that k). Writes ``<out>/<date>-<machine>-ceiling-<target>.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .report import markdown_table, where
from .run import save_results

ROOT = Path(__file__).resolve().parents[1]
TARGET = "smollm2-135m-instruct"
# The goals issues 33-35 set on this machine: {target: ((drafter, k, tokens a pass asked, speedup asked), ...)}.
GOALS = {TARGET: (("EAGLE-3", 6, 3.5, 2.5), ("block (DFlash)", 7, 4.0, 3.0), ("block (DFlash)", 15, 4.0, 3.0),
                  ("prompt lookup", 8, None, 2.5))}
# The ks shown per drafter: k=auto's ladder and 2^j - 1 (a pass of 2^j rows costs less than 2^j + 1); EAGLE-3's
# goal k; a block drafter's blocks of 2, 4, 8 and 16.
KS = {"prompt lookup": (1, 2, 4, 7, 8, 15, 16), "EAGLE-3": (1, 2, 4, 6, 7, 8, 16), "block (DFlash)": (1, 3, 7, 15)}


def newest(pattern: str, root: Path = ROOT) -> Path | None:
    found = sorted((root / "bench" / "results").glob(pattern))
    return found[-1] if found else None


def pass_costs(path: Path, target: str) -> dict[int, float]:
    """{n: milliseconds of a pass over n rows} for `target` from a bench.passes results file."""
    try:
        targets = json.loads(path.read_text())["targets"]
        found = next((t["ms"] for t in targets if t["target"] == target), None)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SystemExit(f"bench.ceiling: {path} is not a bench.passes results file ({e})") from None
    if found is None:
        raise SystemExit(f"bench.ceiling: {path} timed no pass of {target}")
    return {int(n): ms for n, ms in found.items()}


def drafter_fractions(path: Path) -> dict:
    """{kind: fraction of a target step} from a bench.real drafters file: EAGLE-3 a step, a block drafter a pass."""
    try:
        sets = json.loads(path.read_text())["sets"]
        profiles = [p for s in sets.values() for p in s.get("profiles", [])]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise SystemExit(f"bench.ceiling: {path} is not a bench.real drafters results file ({e})") from None
    out = {}
    for kind in PROFILED.values():
        found = sorted(p["drafter_step_fraction"] for p in profiles if p.get("kind") == kind)
        if found:
            out[kind] = found[len(found) // 2]  # the median over the prompt sets
    return out


# The drafters shown, by the kind bench.real's profiles name them (prompt lookup: no model, no profile).
PROFILED = {"EAGLE-3": "eagle3", "block (DFlash)": "dflash"}


def drafter_cost(kind: str, k: int, fractions: dict) -> float:
    """A round's drafter work in target steps: an EAGLE-3 step per draft, one block-drafter pass a block."""
    if kind == "EAGLE-3":
        return k * fractions[PROFILED[kind]]
    if kind == "block (DFlash)":
        return fractions[PROFILED[kind]]
    return 0.0


def rows(passes: dict[int, float], fractions: dict, goals=GOALS[TARGET]) -> list[dict]:
    out = []
    for kind in ("prompt lookup", "EAGLE-3", "block (DFlash)"):
        if kind in PROFILED and PROFILED[kind] not in fractions:
            continue
        for k in KS[kind]:
            if k + 1 not in passes:
                continue
            r = passes[k + 1] / passes[1] + drafter_cost(kind, k, fractions)
            row = {"drafter": kind, "k": k, "round_plain_steps": r, "most": (k + 1) / r}
            for name, goal_k, tau, speedup in goals:
                if name == kind and goal_k == k:
                    row["goal"] = {"tokens_per_pass": tau, "speedup": speedup,
                                   "speedup_at_goal_tokens": tau / r if tau else None,
                                   "tokens_for_goal_speedup": speedup * r}
            out.append(row)
    return out


def render(result: dict) -> str:
    h = result["header"]
    lines = [f"# What a drafter could give {h['target']} here ({h['date']}, {where(h)}, git {h['commit']})", "",
             *readme_lines(result), ""]
    return "\n".join(lines)


def readme_lines(result: dict, source: str | None = None) -> list[str]:
    h = result["header"]
    origin = (f" From [`{source}`]({source}) (`{h['command']}`)." if source else f" Command: `{h['command']}`.")
    f = h["fractions"]
    work = (f" plus the drafter's work as `bench.real` profiled it (EAGLE-3 {f['eagle3']:.3f} of a target step a "
            f"draft, the block drafter {f['dflash']:.3f} a block), from `{h['passes']}` and `{h['drafters']}`"
            if set(PROFILED.values()) <= set(f) else f" (no drafter profiled: prompt lookup's rows), from `{h['passes']}`")
    lines = [f"A round of k drafts costs about R(k) plain steps of {h['target']}: a pass over k + 1 rows as "
             f"`bench.passes` timed it, over a one-row pass ({h['pass_ms']['1']:.1f} ms){work}. "
             f"Any drafter averaging tau tokens a pass runs at about tau / R(k) x plain; *most*: every draft "
             f"accepted. The goals are those issues 33-35 set for this machine; a speedup that needs more than "
             f"k + 1 tokens a pass is out of reach at that k.{origin}", ""]
    table = []
    for r in result["rows"]:
        g = r.get("goal")
        at_goal = f"{g['speedup_at_goal_tokens']:.2f}x at {g['tokens_per_pass']:g}" if g and g["tokens_per_pass"] else ""
        need = ""
        if g:
            need = f"{g['tokens_for_goal_speedup']:.1f} for {g['speedup']:g}x" + (
                " (out of reach)" if g["tokens_for_goal_speedup"] > r["k"] + 1 else "")
        table.append([r["drafter"], r["k"], f"{r['round_plain_steps']:.2f}", f"{r['most']:.2f}x", at_goal, need])
    return lines + markdown_table(["drafter", "k", "R(k), plain steps", "most", "goal's tokens a pass gives",
                                   "tokens a pass needed"], table, right=4)


def readme_block(results: list[tuple[dict, str]]) -> str:
    """The README's `ceiling` block: each target's newest file, one after another."""
    return "\n\n".join("\n".join(readme_lines(result, source)) for result, source in results)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.ceiling", description=__doc__.split("\n\n")[0])
    p.add_argument("--target", default=TARGET, help=f"a target's name as bench.passes names it (default {TARGET})")
    p.add_argument("--passes", type=Path, help="a bench.passes results file (default: the newest)")
    p.add_argument("--drafters", type=Path, help="a bench.real drafters results file (default: the target's newest; "
                                                 "none: prompt lookup alone)")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = p.parse_args(argv)
    passes_path = args.passes or newest("*-passes.json")
    drafters_path = args.drafters or newest(f"*-drafters-{args.target}.json")
    for what, path, needed in (("--passes", passes_path, True), ("--drafters", drafters_path, args.drafters is not None)):
        if (path is None and needed) or (path is not None and not path.is_file()):
            print(f"bench.ceiling: {what}: no such results file ({path})", file=sys.stderr)
            return 2
    try:
        passes = pass_costs(passes_path, args.target)
        fractions = drafter_fractions(drafters_path) if drafters_path is not None else {}
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2

    def rel(path: Path | None) -> str | None:
        if path is None:
            return None
        path = path.resolve()
        return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)

    header = {"target": args.target, "passes": rel(passes_path), "drafters": rel(drafters_path),
              "pass_ms": {str(n): ms for n, ms in passes.items()}, "fractions": fractions}
    body = {"rows": rows(passes, fractions, GOALS.get(args.target, ()))}
    print(save_results(args.out, f"ceiling-{args.target}", header, body, "bench.ceiling", argv, render))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
