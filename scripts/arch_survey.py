"""Survey the tiny mlx-lm fixtures of tests/archs.py: one row per architecture.

    PYTHONPATH=. python scripts/arch_survey.py [NAME ...]     # writes scripts/arch_survey.txt

For every ARCHS entry it builds the target and its drafter and reports:

  kinds      class names of make_prompt_cache(model) (CacheList recursed)
  agree      drafter/target greedy agreement over 48 tokens from archs.PROMPT
             (drafter teacher-forced on the target's continuation)
  ms/step    plain single-token decode step (model(tok, cache) + eval), median of 48
  gen48      wall time of mlx-lm's generate_step for 48 greedy tokens (warm, best of 2)
  self       generate_step run twice gives the same 48 tokens (two runs of generate_step)
  chunk      feeding the target's own greedy continuation 1 / 3 / 5 tokens per
             call after the prompt reproduces it (what an exact verifier needs);
             "n-k" lists the number of mismatching positions per chunk size
  distinct   distinct tokens among the 48 (liveliness of the random weights)

and then, per architecture, which module receives each top-level cache object
(archs.caller_map): outermost receiver per cache index, CacheList children, and
modules that receive one object in addition (KV-sharing, loops).
Timings are whatever this machine gives at the moment (a loaded 2-core box
inflates them).
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import archs  # noqa: E402  (imports mlx_specdec first: OpenBLAS binding)
import mlx.core as mx  # noqa: E402

N = 48


def decode_ms(model, n: int = N) -> float:
    """Median wall time of one plain decode step (robust to a busy machine)."""
    cache = archs.make_cache(model)
    logits = model(mx.array([archs.PROMPT], dtype=mx.int32), cache=cache)
    archs.after_call(model, cache)
    tok = mx.argmax(logits[:, -1:], axis=-1).astype(mx.int32)
    mx.eval(tok)
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        logits = model(tok, cache=cache)
        archs.after_call(model, cache)
        tok = mx.argmax(logits[:, -1:], axis=-1).astype(mx.int32)
        mx.eval(tok)
        times.append(time.perf_counter() - t0)
    return sorted(times)[n // 2] * 1000


def _rel(path: str, base: str) -> str:
    return path[len(base):] if base and path.startswith(base) else path


def summarize_callers(cm: dict[str, list[str]]) -> list[str]:
    """Compact lines: the outermost receiver of each top-level cache index."""
    top = sorted((k for k in cm if "." not in k), key=int)
    first = {k: (cm[k][0] if cm[k] else None) for k in top}
    lines = []
    # cache[i] -> P{i} for all i?
    m0 = re.match(r"(.*\.)(\d+)$", first[top[0]] or "") if top else None
    prefix = m0.group(1) if m0 else None
    if prefix and all(first[k] == f"{prefix}{k}" for k in top):
        lines.append(f"cache[i] -> {prefix}{{i}}  (i = 0..{len(top) - 1})")
    else:
        parts = [f"[{k}]->{first[k] if first[k] else '(model code only)'}" for k in top]
        lines.append("cache" + ", ".join(parts) if len(parts) < 3 else "cache " + ", ".join(parts))
    # extra receivers that are not inside the outermost one (KV sharing / loops / reuse)
    extras = []
    for k in top:
        outer = [first[k]] if first[k] else []
        for r in cm[k][1:]:
            if not any(r == o or r.startswith(o + ".") or r.startswith(o + " ") for o in outer):
                outer.append(r)
                extras.append(f"[{k}] also -> {r}")
    if extras:
        lines.append("also: " + "; ".join(extras))
    # CacheList children, relative to their parent's receiver; one line per
    # distinct pattern, with the cache indices that follow it
    patterns: dict[str, list[str]] = {}
    for parent in top:
        kids = sorted((k for k in cm if k.split(".")[0] == parent and "." in k),
                      key=lambda k: int(k.split(".")[1]))
        if not kids:
            continue
        base = (first.get(parent) or "") + "."
        pat = ", ".join(
            f"[{k.split('.')[1]}]->"
            + (",".join(_rel(r, base) for r in cm[k][:2]) if cm[k] else "(used in code, not passed on)")
            for k in kids
        )
        patterns.setdefault(pat, []).append(parent)
    for pat, parents in patterns.items():
        lines.append(f"CacheList cache[{','.join(parents)}] children: {pat}")
    return lines


def survey(names: list[str]) -> str:
    rows = []
    callers = []
    header = (
        f"{'arch':20s} {'model_type':20s} {'kinds':44s} {'agree':>5s} {'ms/step':>7s} "
        f"{'gen48':>6s} {'self':>4s} {'chunk 1-3-5':>11s} {'dist':>4s} {'params':>7s}"
    )
    for name in names:
        try:
            target = archs.build(name)
            drafter = archs.drafter_of(target)
            kinds = sorted(archs.cache_kinds(target))
            flag = "" if set(kinds) == archs.EXPECTED_KINDS[name] else " (!expected)"
            a = archs.oracle_greedy(target, archs.PROMPT, N)  # warm-up + reference
            gen = float("inf")
            for _ in range(2):  # best of two: the machine may be busy
                t0 = time.perf_counter()
                b = archs.oracle_greedy(target, archs.PROMPT, N)
                gen = min(gen, time.perf_counter() - t0)
            agree = archs.agreement(target, drafter, archs.PROMPT, N)
            ms = decode_ms(target)
            chunk = "-".join(
                str(sum(x != y for x, y in zip(a, archs.stepwise_argmax(target, archs.PROMPT, a, c))))
                for c in (1, 3, 5)
            )
            params = sum(v.size for _, v in archs.tree_flatten(target.parameters()))
            rows.append(
                f"{name:20s} {archs.ARCHS[name]['model_type']:20s} {','.join(kinds) + flag:44s} "
                f"{agree:5.2f} {ms:7.2f} {gen:6.2f} {'yes' if a == b else 'NO':>4s} {chunk:>11s} "
                f"{len(set(a)):4d} {params:7d}"
            )
            cm = archs.caller_map(target)
            callers.append(f"{name}:")
            callers += [f"    {line}" for line in summarize_callers(cm)]
            if name in archs.CACHE_NOTES:
                callers.append(f"    note: {archs.CACHE_NOTES[name]}")
        except Exception as e:  # keep surveying; the table shows the failure
            rows.append(f"{name:20s} FAILED {type(e).__name__}: {e}")
        print(rows[-1], flush=True)
    out = [
        "mlx-lm tiny-architecture survey (tests/archs.py)",
        f"WINDOW={archs.WINDOW} CHUNK={archs.CHUNK} prompt={len(archs.PROMPT)} tokens, {N} new tokens",
        "",
        header,
        "-" * len(header),
        *rows,
        "",
        "chunk: mismatches vs generate_step when the target's own continuation is fed 1 / 3 / 5",
        "tokens per call after the prompt (0-0-0 = invariant to call chunking).",
        "",
        "Known mlx-lm issues:",
        *[f"  {k}: {v}" for k, v in archs.KNOWN_ISSUES.items()],
        "",
        "Unsupported:",
        *[f"  {k}: {v}" for k, v in archs.UNSUPPORTED.items()],
        "",
        "Who receives each top-level cache object (archs.caller_map; path.method() = a",
        "non-__call__ method; '(model code only)' = never passed to a module):",
        *callers,
        "",
    ]
    return "\n".join(out)


def main() -> None:
    names = sys.argv[1:] or list(archs.ARCHS)
    text = survey(names)
    if not sys.argv[1:]:
        (ROOT / "scripts" / "arch_survey.txt").write_text(text)
    print(text if os.environ.get("SURVEY_PRINT") else "written scripts/arch_survey.txt" if not sys.argv[1:] else "")


if __name__ == "__main__":
    main()
