"""What a benchmark run leaves behind: a table, headlines, JSON, markdown, plots."""

from __future__ import annotations

import json
import sys
from pathlib import Path

COLUMNS = ["system", "k", "tokens/s (median, min-max)", "x plain (IQR)", "tokens/pass", "accept", "acc/round",
           "peak / start MB", "identical", "pred. v=1", "pred. v_k"]


def _f(x, fmt="{:.2f}"):
    return "-" if x is None else fmt.format(x)


def where(h: dict) -> str:
    """The machine a focused bench ran on: its name, and its processor where the header records one
    (machines of one name differ: the 2-core AMD EPYC and Intel Xeon runners share linux-x86_64-cpu-2core)."""
    return f"{h['machine']} ({h['cpu']})" if h.get("cpu") else h["machine"]


def spread(q: dict) -> tuple[float, float]:
    """The interquartile range when there were enough samples, else min-max."""
    return (q["q1"], q["q3"]) if "q1" in q else (q["min"], q["max"])


def speedup_cell(q: dict) -> str:
    """A paired speedup as a table cell: the median, then the spread in brackets."""
    return "{:.2f}x [{:.2f}, {:.2f}]".format(q["median"], *spread(q))


def markdown_table(columns: list[str], rows, right: int = 0) -> list[str]:
    """The lines of a Markdown table; the last `right` columns are right-aligned (numbers)."""
    align = ["---"] * (len(columns) - right) + ["---:"] * right
    return ["| " + " | ".join(columns) + " |", "|" + "|".join(align) + "|",
            *("| " + " | ".join(str(c) for c in row) + " |" for row in rows)]


def table_rows(result: dict) -> list[list[str]]:
    out = []
    for r in result["rows"]:
        t, s = r["tokens_per_s"], r["speedup_vs_plain"]
        ident = {True: "yes", False: "NO", None: "n/a"}[r["identical_to_plain_greedy"]]
        out.append([
            f"{r['impl']} {r['drafter'] or 'plain'} ({r['mode']})", _f(r["k"], "{}"),
            f"{t['median']:.1f} ({t['min']:.1f}-{t['max']:.1f})", "{:.2f} ({:.2f}-{:.2f})".format(s["median"], *spread(s)),
            f"{r['tokens_per_pass']:.2f}", _f(r["acceptance_rate"], "{:.1%}"), _f(r["mean_accepted_per_round"]),
            f"{r['peak_memory_mb']:.0f} / {r.get('resident_before_mb', 0):.0f}", ident,
            _f(r.get("predicted_speedup_course")), _f(r.get("predicted_speedup_measured_v")),
        ])
    return out


def fixed_k(r: dict) -> bool:
    """A row at a pinned draft length (not plain, not an adaptive schedule)."""
    return isinstance(r.get("k"), int) and r["k"] > 0


def _best(rows, **where):
    cands = [r for r in rows if all(r.get(k) == v for k, v in where.items()) and r["k"]]
    return max(cands, key=lambda r: r["tokens_per_s"]["median"]) if cands else None


def _row(rows, **where):
    for r in rows:
        if all(r.get(k) == v for k, v in where.items()):
            return r
    return None


def headlines(result: dict) -> list[str]:
    """Plain sentences: the ratios a reader came for, and the honest verdicts."""
    rows, cmd = result["rows"], result["header"]["command"]
    lines = []
    plain = _row(rows, name="plain ours greedy")
    mlx_plain = _row(rows, name="plain mlx-lm greedy")
    if plain and mlx_plain:
        lines.append(
            f"Plain greedy: ours {plain['tokens_per_s']['median']:.1f} tokens/s, mlx-lm's generate_step "
            f"{mlx_plain['tokens_per_s']['median']:.1f} tokens/s ({mlx_plain['speedup_vs_plain']['median']:.2f}x ours)."
        )
    best = _best(rows, impl="ours", mode="greedy")
    if best:
        s = best["speedup_vs_plain"]
        lo, hi = spread(s)
        lines.append(
            f"Best speculative (greedy): ours with {best['drafter']} at k={best['k']}: "
            f"{best['tokens_per_s']['median']:.1f} tokens/s, {s['median']:.2f}x plain greedy "
            f"(paired per generation; interquartile range {lo:.2f}-{hi:.2f}x), "
            f"{best['tokens_per_pass']:.2f} tokens per target pass."
        )
    for mode in ("greedy", "sampled"):  # the generator's default draft length
        auto = [r for r in rows if r["impl"] == "ours" and r["mode"] == mode and r["k"] == "auto"]
        if auto:
            lines.append(f"Default settings (k=auto, each round picks its k, 0 included), {mode}: " + ", ".join(
                f"{r['drafter']} {r['speedup_vs_plain']['median']:.2f}x plain ({r['tokens_per_pass']:.2f} tokens/pass)"
                for r in auto) + ".")
        heur = {r["drafter"]: r for r in rows if r["impl"] == "ours" and r["mode"] == mode and r["k"] == "heuristic"}
        versus = [(r, heur[r["drafter"]]) for r in auto if r["drafter"] in heur]
        if versus:
            lines.append(f"Hugging Face's heuristic schedule (+2 after a full round, -1 otherwise), {mode}: " + ", ".join(
                f"{h['drafter']} {h['speedup_vs_plain']['median']:.2f}x plain (auto {a['speedup_vs_plain']['median']:.2f}x)"
                for a, h in versus) + ".")
    # The honest verdict: accounting vs clock.
    gained = [r for r in rows if r["k"] and r["impl"] == "ours" and r["tokens_per_pass"] > 1.05]
    no_clock = [r for r in gained if r["speedup_vs_plain"]["median"] < 1.0]
    if gained and len(no_clock) == len(gained):
        lines.append(
            "The accounting improved and the clock did not: every speculative configuration of ours makes more than "
            "one token per target pass, and none is faster than plain decoding on this machine."
        )
    elif no_clock:
        names = ", ".join(f"{r['drafter']} k={r['k']} ({r['mode']}): {r['tokens_per_pass']:.2f} tokens/pass, "
                          f"{r['speedup_vs_plain']['median']:.2f}x" for r in no_clock)
        lines.append(f"The accounting improved and the clock did not for: {names}.")
    most = max((r for r in rows if r["impl"] == "ours" and r["mode"] == "greedy" and r["k"]),
               key=lambda r: r["tokens_per_pass"], default=None)
    if most and most is not best:
        pred = ""
        if most.get("predicted_speedup_course") is not None:
            pred = (f"; the cost model predicted {most['predicted_speedup_course']:.2f}x (v = 1) and "
                    f"{most['predicted_speedup_measured_v']:.2f}x (with measured v_k) from c = {most['c']:.2f}")
        lines.append(
            f"Tokens per pass overstate the clock: the most tokens per target pass (ours, {most['drafter']}, "
            f"k={most['k']}: {most['tokens_per_pass']:.2f}) ran at {most['speedup_vs_plain']['median']:.2f}x plain{pred}."
        )
    if best:
        lo, hi = spread(best["speedup_vs_plain"])
        if lo <= 1.0 <= hi:
            lines.append(f"The best row's speedup spread contains 1.0 ({lo:.2f}-{hi:.2f}x): within the noise of this machine.")
    # Ours vs mlx-lm's speculative generator at the same drafter and k.
    for mode in ("greedy", "sampled"):
        pairs = [r for r in rows if "vs_mlx_lm" in r and r["mode"] == mode]
        if pairs:
            text = ", ".join(f"{r['drafter']} k={r['k']} {r['vs_mlx_lm']['median']:.2f}x" for r in pairs)
            lines.append(f"Ours vs mlx-lm's speculative_generate_step, same drafter and k ({mode}; tokens/s ratio, "
                         f"paired per generation, median): {text}.")
    sampled = [r for r in rows if r["mode"] == "sampled" and r["impl"] == "ours" and r["kind"] == "model"]
    if sampled:
        parts = []
        for r in sampled:
            theirs = _row(rows, impl="mlx-lm", mode="sampled", drafter=r["drafter"], k=r["k"])
            if theirs:
                parts.append(f"k={r['k']} {r['acceptance_rate']:.1%} vs {theirs['acceptance_rate']:.1%}")
        if parts:
            lines.append(
                f"Sampled acceptance at temperature {result['header']['settings']['temperature']} "
                f"(ours: min(1, p/q) rejection sampling; mlx-lm: draft accepted only when the target's own sample "
                f"equals it): {', '.join(parts)}."
            )
    mtp = _best(rows, impl="ours", mode="greedy", kind="mtp")
    sep = _best(rows, impl="ours", mode="greedy", kind="model")
    if mtp and sep:
        lines.append(
            f"MTP head vs separate drafter (best k each, greedy): {mtp['tokens_per_pass']:.2f} vs "
            f"{sep['tokens_per_pass']:.2f} tokens/pass, {mtp['tokens_per_s']['median']:.1f} vs "
            f"{sep['tokens_per_s']['median']:.1f} tokens/s."
        )
    look = _best(rows, impl="ours", mode="greedy", kind="lookup")
    if look:
        lines.append(
            f"Prompt lookup (best k={look['k']}): {look['tokens_per_pass']:.2f} tokens/pass, "
            f"{look['speedup_vs_plain']['median']:.2f}x plain."
        )
    bad = [r["name"] for r in rows if r["identical_to_plain_greedy"] is False]
    lines.append(
        "Greedy outputs identical to plain greedy: " + ("all rows (ours and mlx-lm's)." if not bad else f"NOT for {', '.join(bad)}.")
    )
    lines.append(f"Reproduce: `{cmd}`")
    return lines


def block_markers(name: str) -> tuple[str, str]:
    """The HTML comments around a README block that a renderer owns."""
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def replace_block(text: str, name: str, body: str) -> str:
    """`text` with what stands between `name`'s markers replaced by `body` (the markers are kept)."""
    start, end = block_markers(name)
    if text.count(start) != 1 or text.count(end) != 1 or text.index(start) > text.index(end):
        raise ValueError(f"expected one {start} ... {end} pair in the text")
    i, j = text.index(start) + len(start), text.index(end)
    return text[:i] + "\n" + (body.strip("\n") + "\n" if body.strip() else "") + text[j:]


def ceiling(v_k: dict, c: float) -> tuple[int, float]:
    """The best speedup a drafter of cost ratio c could reach if every draft were accepted:
    max over the measured k of (k + 1) / (v_k + k c), and that k."""
    return max(((int(k), (int(k) + 1) / (v + int(k) * c)) for k, v in v_k.items()), key=lambda kv: kv[1])


def cost_lines(result: dict) -> list[str]:
    c = result["cost_model"]
    lines = [
        f"Cached target step: {c['target_step_ms']:.2f} ms at a {c['context_tokens']}-token context "
        f"(median of {c['repeats']}).",
        "Block verification cost v_k ((k+1)-token pass / 1-token pass): "
        + ", ".join(f"k={k}: {v:.2f}" for k, v in c["v_k"].items()) + ".",
        "Drafter/target cost ratio c: " + ", ".join(f"{n}: {v:.3f}" for n, v in c["c"].items()) + ".",
    ]
    for name, ratio in c["c"].items():
        longest = max((r["k"] for r in result.get("rows", []) if r.get("drafter") == name and fixed_k(r)), default=None)
        v_k = {k: v for k, v in c["v_k"].items() if longest is None or int(k) <= longest}
        if v_k:
            k, best = ceiling(v_k, ratio)
            lines.append(f"Ceiling for {name} (every draft accepted; measured v_k, k up to its longest row): "
                         f"{best:.2f}x at k={k}.")
    for name, be in c.get("break_even_alpha_k4", {}).items():
        course = "none (cannot win)" if be["course"] is None else f"{be['course']:.3f}"
        meas = "none (cannot win)" if be["measured_v"] is None else f"{be['measured_v']:.3f}"
        lines.append(f"Break-even per-token acceptance at k=4 for {name}: alpha = {course} (simple model, v=1), "
                     f"{meas} (with measured v_4).")
    return lines


PROFILE_COLUMNS = ["system", "k", "rounds", "draft", "verify", "verdict+sync", "commit", "host", "profiled",
                   "measured", "cost model", "unexplained", "outside the model (profile)"]


def profile_table(result: dict) -> list[list[str]]:
    """One line per profiled row: ms per round in each phase (the synchronised pass), the timed rows'
    ms per round, the cost model's, and the share of the measured round the model does not explain."""
    out = []
    for r in result["rows"]:
        p = r.get("profile")
        if not p:
            continue
        ph = p["phases_ms"]
        outside = ph["verdict"] + ph["commit"] + ph["host"]
        out.append([
            f"{r['drafter']} ({r['mode']})", _f(r["k"], "{}"), str(p["rounds_profiled"]),
            *[f"{ph[x]:.2f}" for x in ("draft", "verify", "verdict", "commit", "host")],
            f"{p['profiled_ms']:.2f}", _f(p.get("measured_ms")), _f(p.get("predicted_ms")),
            _f(p.get("unexplained_share"), "{:.0%}"),
            f"{outside:.2f} ms ({outside / p['profiled_ms']:.0%})" if p["profiled_ms"] else "-",
        ])
    return out


def profile_section(result: dict) -> list[str]:
    rows = profile_table(result)
    if not rows:
        return []
    return [
        "## Per-round profile",
        "",
        "Milliseconds per round (one target pass). The phases come from a separate, untimed pass that "
        "synchronises at every phase boundary (the timed rows have one sync per round and overlap the phases): "
        "draft = the drafter's proposal; verify = the target's block pass (with the hidden-state capture and, "
        "for an MTP head, the output projection); verdict+sync = the verification rule and the host reading it; "
        "commit = target and drafter landing on the boundary (rollback included); host = the rest of the round "
        "in Python (choosing k, counters, the emission). profiled = their sum, inflated by the extra syncs; "
        "measured = the timed rows' wall time over their rounds; cost model = (v(k) + k c) target steps at the "
        "measured step time, k the mean drafts per round; unexplained = (measured - cost model) / measured; "
        "outside the model = the profiled verdict, commit and host time, the phases the model leaves out.",
        "",
        *markdown_table(PROFILE_COLUMNS, rows, right=len(PROFILE_COLUMNS) - 1),
        "",
    ]


def print_table(result: dict, file=None) -> None:
    file = file or sys.stdout
    rows = table_rows(result)
    if file.isatty():
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"mlx-specdec bench: {result['header']['target']} on {result['header']['machine']}",
                      title_justify="left")
        for col in COLUMNS:
            table.add_column(col, justify="left" if col == "system" else "right")
        for row in rows:
            style = "red" if row[8] == "NO" else None
            table.add_row(*row, style=style)
        console = Console(file=file)
        console.print(table)
        for line in cost_lines(result) + headlines(result):
            console.print(line, highlight=False)
    else:
        widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(COLUMNS)]
        print("  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)), file=file)
        for row in rows:
            print("  ".join(v.ljust(w) for v, w in zip(row, widths)), file=file)
        print(file=file)
        for line in cost_lines(result) + headlines(result):
            print(line, file=file)


def _set_name(h: dict) -> str:
    """Which prompt set a result was measured on: 'stories', 'copy' (copy-heavy) or 'custom'."""
    name = h.get("prompt_set", "stories")  # results from before the copy set have no key: stories
    return {"copy": "copy-heavy", None: "custom"}.get(name, name)


def load_text(avg) -> str:
    """A load average (1/5/15 min) as a cell: '1.3/1.8/1.9', or '-' when not recorded."""
    return "-" if not avg else "/".join(f"{x:.1f}" for x in avg)


def markdown(result: dict, plots: list[str]) -> str:
    h = result["header"]
    s = h["settings"]
    out = [
        f"# Benchmark: {h['target']} on {h['machine']} ({h['date'][:10]})",
        "",
        f"Reproduce: `{h['command']}`" + (f" at commit {h['git_commit']}" if h.get("git_commit") else ""),
        "",
        f"MLX {h['mlx']} (mlx-lm {h.get('mlx_lm', '?')}), device {h['device']}, CPU {h['cpu']}"
        + (f", GPU {h['gpu']}" if h.get("gpu") else "")
        + f", BLAS {h['blas']} ({h['matmul_gflops_fp32_512']} GFLOP/s fp32), compute dtype {h['compute_dtype']}, "
        f"Python {h['python']}. Load average (1/5/15 min) at start {load_text(h.get('load_average'))}, at end "
        f"{load_text(h.get('load_average_end'))}: the machine is shared, so read the paired ratios more than absolute speeds.",
        "",
        f"{len(result['prompts'])} held-out prompts ({_set_name(h)} prompt set v{h['prompt_set_version']}), "
        f"{s['max_tokens']} new tokens "
        f"each, no EOS stop (every system emits exactly the same number of tokens); {s['repeats']} timed repeats after "
        f"a warm-up. tokens/s = tokens / synchronised wall-clock seconds over all "
        f"prompts (prefill of the short prompt included), median and min-max over repeats; 'x plain' = each "
        f"generation's tokens/s over our plain decoding's on the same prompt in the same pass (they ran seconds "
        f"apart: every system runs each prompt before the next prompt starts), median and interquartile range over "
        f"prompts x repeats. Sampled rows use temperature {s['temperature']}.",
        "",
        "## Headlines",
        "",
        *[f"- {line}" for line in headlines(result)],
        "",
        "## All rows",
        "",
        *markdown_table(COLUMNS, table_rows(result), right=len(COLUMNS) - 1),
        "",
        "accept = accepted drafts / drafted; acc/round = mean accepted drafts per round (E[accepted]); "
        "tokens/pass = emitted tokens / target passes (= E[accepted] + 1). mlx-lm's counters are derived from its "
        "from_draft flags. pred. v=1 = (E[acc]+1)/(1+k c); pred. v_k = (E[acc]+1)/(v_k + k c), with k the mean "
        "drafts per round. peak / start MB: peak MLX memory during the generation / MLX memory held when it started "
        "(the weights of every model in the run); source: " + (result["rows"][0]["peak_memory_source"] if result["rows"] else "-") + ".",
        "",
        "## Cost model",
        "",
        *[f"- {line}" for line in cost_lines(result)],
        "",
        "c and v_k count only the drafter's steps and the verification pass. Where a measured speedup falls short "
        "of the prediction, the difference is per-round work outside both: the host loop and its one sync point, "
        "the commit/rollback, and for the MTP head the hidden-state capture and its own output projection. "
        "The per-round profile below measures each.",
        "",
        *profile_section(result),
    ]
    if result["notes"]:
        out += ["## Notes", "", *[f"- {n}" for n in result["notes"]], ""]
    if plots:
        out += ["## Plots", "", *[f"![{Path(p).stem}]({Path(p).name})" for p in plots], ""]
    return "\n".join(out)


def _short(row: dict) -> str:
    if row["kind"] in ("mtp", "lookup"):
        return row["kind"]
    return (row["drafter"] or "").replace("storylm-", "")


def plot(result: dict, stem: Path) -> tuple[list[str], str | None]:
    """PNG plots beside the results; ([], note) when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return [], "plots skipped: matplotlib is not installed (pip install 'mlx-specdec[plot]')"
    rows = result["rows"]
    cmd = result["header"]["command"]
    paths = []

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    series = sorted({(r["impl"], r["drafter"], r["mode"]) for r in rows if fixed_k(r)}, key=str)
    drafters = sorted({d for _, d, _ in series})
    colours = {d: plt.cm.tab10(i % 10) for i, d in enumerate(drafters)}
    for impl, drafter, mode in series:
        pts = sorted((r["k"], r["tokens_per_pass"]) for r in rows
                     if fixed_k(r) and (r["impl"], r["drafter"], r["mode"]) == (impl, drafter, mode))
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=colours[drafter],
                linestyle="-" if impl == "ours" else "--", marker="o" if mode == "greedy" else "s",
                alpha=1.0 if mode == "greedy" else 0.6, label=f"{impl} {drafter} ({mode})")
    ks = sorted({r["k"] for r in rows if fixed_k(r)})
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_xlabel("k (draft tokens per round)")
    ax.set_ylabel("tokens per target pass")
    ax.set_title(f"Acceptance curve, target {result['header']['target']}")
    ax.legend(fontsize=7)
    fig.text(0.01, 0.005, cmd, fontsize=6, color="grey")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    paths.append(str(stem.with_name(stem.name + "-tokens-per-pass.png")))
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for mode, marker in (("greedy", "o"), ("sampled", "s")):
        for impl, color in (("ours", "tab:blue"), ("mlx-lm", "tab:orange")):
            sel = [r for r in rows if r["mode"] == mode and r["impl"] == impl]
            if not sel:
                continue
            ax.scatter([r["tokens_per_pass"] for r in sel], [r["tokens_per_s"]["median"] for r in sel],
                       marker=marker, color=color, label=f"{impl} ({mode})", alpha=0.8)
            for r in sel:
                if r["k"]:
                    ax.annotate(f"{_short(r)} k{r['k']}", (r["tokens_per_pass"], r["tokens_per_s"]["median"]),
                                fontsize=6, alpha=0.7, xytext=(3, 2), textcoords="offset points")
    plain = _row(rows, name="plain ours greedy")
    if plain:
        ax.axhline(plain["tokens_per_s"]["median"], color="grey", lw=0.8, ls=":", label="plain greedy (ours)")
    ax.set_xlabel("tokens per target pass (accounting)")
    ax.set_ylabel("tokens/s (clock, median)")
    ax.set_title("Does the accounting buy wall-clock time?")
    ax.legend(fontsize=7)
    fig.text(0.01, 0.005, cmd, fontsize=6, color="grey")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    paths.append(str(stem.with_name(stem.name + "-tokens-per-s.png")))
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths, None


def check_destination(out_dir: Path, stem_name: str) -> None:
    """Before a run: out_dir takes files, and `stem_name`.json/.md are new or earlier bench results."""
    from mlx_specdec.errors import SpecDecError
    from mlx_specdec.models.folders import check_writable

    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise SpecDecError(f"--out {str(out_dir)!r} is a file; expected a folder")
    check_writable(out_dir, 20_000_000)
    json_path = out_dir / f"{stem_name}.json"
    if json_path.exists():
        try:
            earlier = json.loads(json_path.read_text())
        except (OSError, ValueError):
            earlier = None
        if not (isinstance(earlier, dict) and "schema" in earlier and "rows" in earlier):
            raise SpecDecError(f"{json_path} exists and is not a bench result; choose another --name or --out")
    md_path = out_dir / f"{stem_name}.md"
    if md_path.exists() and not json_path.exists():
        raise SpecDecError(f"{md_path} exists and is not a bench report; choose another --name or --out")


def write(result: dict, out_dir: Path, stem_name: str) -> dict:
    """JSON + markdown + PNGs into out_dir; returns their paths."""
    from mlx_specdec.models.folders import write_text_atomic

    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / stem_name
    plots, note = plot(result, stem)
    if note:
        result["notes"].append(note)
    result["headlines"] = headlines(result)
    json_path = out_dir / f"{stem_name}.json"
    write_text_atomic(json_path, json.dumps(result, indent=1) + "\n")
    md_path = out_dir / f"{stem_name}.md"
    write_text_atomic(md_path, markdown(result, plots))
    return {"json": str(json_path), "markdown": str(md_path), "plots": plots}


def main(argv=None) -> int:
    """Re-render the markdown and plots of a results JSON (e.g. after changing the report)."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m bench.report", description=main.__doc__)
    p.add_argument("json", help="a bench/results/*.json file")
    args = p.parse_args(argv)
    path = Path(args.json)
    result = json.loads(path.read_text())
    result["notes"] = [n for n in result["notes"] if not n.startswith("plots skipped")]
    paths = write(result, path.parent, path.stem)
    print(f"wrote {paths['json']}, {paths['markdown']}" + "".join(f", {p}" for p in paths["plots"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
