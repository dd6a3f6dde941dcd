"""The CLI's defaults in fresh processes, as a user meets them: k=auto cold, k=auto calibrated, fixed k, plain.

    python -m bench.fresh --out bench/results                        # every shipped and real-target pair
    python -m bench.fresh --pairs storylm-30m:storylm-1m --prompts 1 --out /tmp/f   # one pair, a smoke
    python -m bench.fresh --repeats 3 --out bench/results            # each figure the median of 3 processes

`mlx-specdec generate` runs one generation per process, so k="auto" starts
from what the calibration file holds (mlx_specdec.calibration), or from
nothing. For every pair and prompt this runs, each as its own
`python -m mlx_specdec.generate --json` process and in an order that rotates
from prompt to prompt:

* plain: `--no-draft`, the baseline;
* auto, cold: the CLI's defaults with an empty calibration file, the first
  generation on a fresh machine;
* auto, calibrated: the defaults with the pair's calibration file as the runs
  before it left it (one untimed run on another prompt of the set writes it
  first);
* each fixed k of `--ks`.

Each figure is the process's own tokens/s (generation only, load excluded;
both paths pay their first-call traces, as a user's command does). A row
reports, per prompt set, the median over its prompts of each run's speedup
over the plain process of the same prompt, and of auto's over the best fixed k
of the same prompt. Greedy outputs are checked identical to plain.
Writes ``<out>/<date>-<machine>-fresh.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import median

from .report import markdown_table, where
from .run import save_results

ROOT = Path(__file__).resolve().parents[1]

# (target, drafter, prompt sets): every pair the project ships or converts.
PAIRS = [
    ("storylm-5m", "storylm-1m-distilled", ("stories", "copy")),
    ("storylm-5m", "storylm-5m-mtp", ("stories", "copy")),
    ("storylm-5m", "prompt-lookup", ("stories", "copy")),
    ("storylm-30m", "storylm-1m", ("stories", "copy")),
    ("storylm-5m-hybrid", "storylm-1m-distilled-hybrid", ("stories", "copy")),
    ("smollm2-135m-instruct", "prompt-lookup", ("copy", "free")),
    ("smollm2-135m-instruct", "smollm2-135m-instruct-q", ("copy", "free")),
    ("gemma-3-270m", "prompt-lookup", ("copy", "free")),
]
REAL = ("smollm2-135m-instruct", "smollm2-135m-instruct-q", "gemma-3-270m")


def prompts_for(target: str, set_name: str, n: int) -> list[tuple[str, str, list[str]]]:
    """[(id, text, extra CLI flags)] for a pair's prompt set: the StoryLM sets, or bench.real's chat and
    base-model sets (a base model's text goes in raw, as bench.real gives it)."""
    if target in REAL:
        from mlx_specdec.loading import load

        from .real import BASE, CHAT

        _, tok = load(target)
        chat = bool(getattr(tok, "has_chat_template", False))
        chosen = (CHAT if chat else BASE)[set_name][: n + 1]
        return [(pid, text, [] if chat else ["--ignore-chat-template"]) for pid, text in chosen]
    from mlx_specdec.data.prompts import load_prompts, prompt_set_file

    _, prompts = load_prompts(prompt_set_file(set_name), n + 1)
    return [(str(p.get("id", i)), p["text"], []) for i, p in enumerate(prompts)]


def run_cli(target: str, drafter: str | None, text: str, flags: list[str], max_tokens: int, k, calibration: str) -> dict:
    cmd = [sys.executable, "-m", "mlx_specdec.generate", "--json", "--model", target, "--prompt", text,
           "--max-tokens", str(max_tokens), *flags]
    cmd += ["--no-draft"] if drafter is None else ["--draft-model", drafter] + ([] if k == "auto" else ["-k", str(k)])
    env = dict(os.environ, MLX_SPECDEC_CALIBRATION=calibration)
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"bench.fresh: {' '.join(cmd[:8])} ... failed: {done.stderr.strip().splitlines()[-1:]}")
    r = json.loads(done.stdout)
    return {"tokens_per_s": r["tokens_per_s"], "ids": r["ids"], "tokens_per_pass": r["stats"]["tokens_per_pass"]}


def measure_pair(target: str, drafter: str, sets, n: int, max_tokens: int, ks: list[int], work: Path, say,
                 repeats: int = 1) -> list:
    out = []
    for set_name in sets:
        prompts = prompts_for(target, set_name, n)
        calibrated = str(work / f"{target}--{drafter}--{set_name}.json")
        # The models' one-time probe verdicts (calibration.probe_verdict), as any machine keeps them after its
        # first run: plain and fixed k run with them. A fixed-k run writes them and no pair entry.
        machine = str(work / f"machine-{target}-{drafter}.json")
        run_cli(target, drafter, prompts[-1][1], prompts[-1][2], max_tokens, ks[0], machine)
        # The first-ever run of the pair on this machine, on a prompt not measured: it writes the file.
        run_cli(target, drafter, prompts[-1][1], prompts[-1][2], max_tokens, "auto", calibrated)
        rows = []
        for i, (pid, text, flags) in enumerate(prompts[:n]):
            # never written before this run: a fresh machine's first auto run, and its first plain run
            cold = str(work / f"cold-{target}-{drafter}-{set_name}-{i}.json")
            cold_plain = str(work / f"cold-plain-{target}-{drafter}-{set_name}-{i}.json")
            runs = [("plain", None, None, machine), ("plain cold", None, None, cold_plain),
                    ("auto cold", drafter, "auto", cold), ("auto calibrated", drafter, "auto", calibrated)]
            runs += [(f"k={k}", drafter, k, machine) for k in ks]
            tries = {name: [] for name, *_ in runs}
            for r in range(repeats):  # in an order that rotates from prompt to prompt and repeat to repeat
                shift = (i + r) % len(runs)
                for name, d, k, cal in runs[shift:] + runs[:shift]:
                    say(f"{target} / {drafter} / {set_name} / {pid}: {name}" + (f" ({r + 1}/{repeats})" if repeats > 1 else ""))
                    if cal in (cold, cold_plain):
                        Path(cal).unlink(missing_ok=True)  # each cold run starts with no file (a run wrote it)
                    tries[name].append(run_cli(target, d, text, flags, max_tokens, k, cal))
            # each run's median process by tokens/s (outputs are checked on every process)
            got = {name: {**sorted(t, key=lambda x: x["tokens_per_s"])[len(t) // 2],
                          "ids_all": [x["ids"] for x in t]} for name, t in tries.items()}
            plain = got["plain"]
            # auto cold against the plain process on a machine as fresh (no file, so its probes run too)
            baseline = {name: got["plain cold"] if name == "auto cold" else plain for name in got}
            best = max((f"k={k}" for k in ks), key=lambda name: got[name]["tokens_per_s"])
            rows.append({
                "prompt": pid,
                "plain_tokens_per_s": plain["tokens_per_s"],
                "best_fixed": best,
                "runs": {name: {"tokens_per_s": r["tokens_per_s"], "tokens_per_pass": r["tokens_per_pass"],
                                "speedup": r["tokens_per_s"] / baseline[name]["tokens_per_s"],
                                "identical": all(ids == plain["ids"] for ids in r["ids_all"] + plain["ids_all"])}
                         for name, r in got.items() if name != "plain"},
            })
        out.append({"target": target, "drafter": drafter, "set": set_name, "prompts": rows,
                    "summary": summarise(rows, ks)})
    return out


def summarise(rows: list[dict], ks: list[int]) -> dict:
    def med(name, key="speedup"):
        return median(r["runs"][name][key] for r in rows)

    best = median(max(r["runs"][f"k={k}"]["speedup"] for k in ks) for r in rows)
    return {
        "auto_cold": med("auto cold"), "auto_calibrated": med("auto calibrated"), "best_fixed": best,
        "auto_cold_of_best": median(r["runs"]["auto cold"]["speedup"] / max(r["runs"][f"k={k}"]["speedup"] for k in ks)
                                    for r in rows),
        "auto_calibrated_of_best": median(r["runs"]["auto calibrated"]["speedup"]
                                          / max(r["runs"][f"k={k}"]["speedup"] for k in ks) for r in rows),
        "fixed": {f"k={k}": med(f"k={k}") for k in ks},
        "tokens_per_pass_cold": med("auto cold", "tokens_per_pass"),
        "identical": all(run["identical"] for r in rows for run in r["runs"].values()),
    }


def _repeats(header: dict) -> str:
    r = header.get("repeats", 1)
    return f", each figure the median of {r} processes" if r > 1 else ""


def _cold_plain(header: dict, lead: str = ", over") -> str:
    if not header.get("cold_plain"):  # a file from before the probe verdicts were kept: one plain process
        return ""
    return (f"{lead} a plain process with no file either (plain and fixed k otherwise keep the models' one-time "
            "probe verdicts, as a machine does after its first run)")


def render(result: dict) -> str:
    h = result["header"]
    ks = h["ks"]
    head = ["target", "drafter", "prompt set", "auto, cold", "auto, calibrated", "best fixed k",
            "auto cold / best k", "auto calibrated / best k", *[f"k={k}" for k in ks], "identical"]
    body = []
    for e in result["pairs"]:
        s = e["summary"]
        body.append([e["target"], e["drafter"], e["set"], f"{s['auto_cold']:.2f}x", f"{s['auto_calibrated']:.2f}x",
                     f"{s['best_fixed']:.2f}x", f"{s['auto_cold_of_best']:.2f}", f"{s['auto_calibrated_of_best']:.2f}",
                     *[f"{s['fixed'][f'k={k}']:.2f}x" for k in ks], "yes" if s["identical"] else "NO"])
    return "\n".join([
        f"# The CLI's defaults in fresh processes ({h['date']}, {where(h)}, git {h['commit']})", "",
        f"Every figure is one `python -m mlx_specdec.generate --json` process's tokens/s over the plain process of "
        f"the same prompt (`--no-draft`), median over {h['prompts']} prompts a set, {h['max_tokens']} new tokens at "
        f"most, greedy{_repeats(h)}. auto, cold: no calibration file (the first generation on a fresh machine)"
        f"{_cold_plain(h)}; auto, calibrated: the file the pair's earlier runs left. Command: `" + h["command"] + "`.",
        "",
        *markdown_table(head, body), ""])


def readme_block(result: dict, rel: str) -> str:
    """The README's table: per pair and prompt set, auto cold and calibrated against plain and the best k."""
    h = result["header"]
    head = ["target", "drafter", "prompt set", "auto, cold", "auto, calibrated", "best fixed k",
            "cold / best k", "calibrated / best k"]
    body = []
    for e in result["pairs"]:
        s = e["summary"]
        best = max(s["fixed"], key=s["fixed"].get)
        body.append([e["target"], e["drafter"], e["set"], f"{s['auto_cold']:.2f}x", f"{s['auto_calibrated']:.2f}x",
                     f"{s['best_fixed']:.2f}x ({best})", f"{s['auto_cold_of_best']:.2f}",
                     f"{s['auto_calibrated_of_best']:.2f}"])
    identical = all(e["summary"]["identical"] for e in result["pairs"])
    return "\n".join([
        f"Fresh processes, {h['date']}, {where(h)}, greedy{_repeats(h)}, {h['max_tokens']} new tokens at most, median over "
        f"{h['prompts']} prompts a set of each process's tokens/s over a `--no-draft` process on the same prompt"
        f"{_cold_plain(h, '; auto cold over')} (best fixed k: of {', '.join(f'k={k}' for k in h['ks'])}, per prompt; its column names the best median)"
        f"{'; every output identical to plain greedy' if identical else '; SOME OUTPUTS DIFFER FROM PLAIN GREEDY'}. "
        f"From [`{rel}`]({rel}) (`{h['command']}`).", "",
        *markdown_table(head, body, right=5)])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.fresh", description=__doc__.split("\n")[0])
    p.add_argument("--pairs", default=None, help="target:drafter,... (default: every shipped and real-target pair)")
    p.add_argument("--prompts", type=int, default=3, help="prompts a set (default 3)")
    p.add_argument("--max-tokens", type=int, default=96)
    p.add_argument("--ks", default="2,4,8", help="the fixed k to run beside auto (default 2,4,8)")
    p.add_argument("--repeats", type=int, default=1,
                   help="processes per run and prompt; each figure is the median one (default 1)")
    p.add_argument("--out", default="bench/results")
    args = p.parse_args(argv)
    ks = [int(k) for k in args.ks.split(",")]
    pairs = PAIRS
    if args.pairs:
        wanted = [tuple(x.split(":", 1)) for x in args.pairs.split(",")]
        pairs = [pp for pp in PAIRS if pp[:2] in wanted] or [(t, d, ("stories", "copy")) for t, d in wanted]
    from mlx_specdec.loading import resolve_model_path

    missing = [t for t, _, _ in pairs if resolve_model_path(t) is None]
    if missing:
        print(f"bench.fresh: skipping pairs whose target is not here: {', '.join(sorted(set(missing)))}", file=sys.stderr)
        pairs = [pp for pp in pairs if pp[0] not in missing]

    def say(text):
        print(text, file=sys.stderr, flush=True)

    results = []
    with tempfile.TemporaryDirectory(prefix="bench-fresh-") as work:
        for target, drafter, sets in pairs:
            results += measure_pair(target, drafter, sets, args.prompts, args.max_tokens, ks, Path(work), say,
                                    repeats=args.repeats)
    header = {"prompts": args.prompts, "max_tokens": args.max_tokens, "ks": ks, "repeats": args.repeats,
              "cold_plain": True}
    text = save_results(args.out, "fresh", header, {"pairs": results}, "bench.fresh", argv, render)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
