"""README.md's figures, rendered from committed files, never typed by hand.

    python -m bench.readme           # re-render README.md's marked blocks and the MTP head card's measured section
    python -m bench.readme --check   # run nothing, write nothing: exit 1 where they differ from the files

Each figure comes from a committed file, named next to it in the README:

* ``bench-setup``, ``bench-table``, ``bench-figures``, ``blas-speed``: the newest
  ``bench/results/*.json`` (``make bench``), rendered by :mod:`bench.report`'s rules.
* ``mtp-head``: ``models/storylm-5m-mtp/bench.json`` (``python -m bench.heads --save``),
  the same file and table as the head's card, plus the card's validation table.
* ``models-table``: each model folder's ``config.json`` (parameters, tokenizer),
  its card (the trainer's wall time), its weights file (size), and the held-out
  loss table of ``models/storylm-5m-hybrid/README.md`` (``python -m mlx_specdec.train --evaluate``).
* ``rollback-table``: the newest ``bench/results/*-rollback-*.json`` (``python -m bench.rollback``), when one is committed.
* ``sharded-table``: the newest ``bench/results/*-sharded-*.json`` (``python -m bench.sharded``), when one is committed.
* ``real-targets``: the newest ``bench/results/*-real-<target>.json`` of each real target (``python -m bench.real``).
* ``eagle3``: the newest ``bench/results/*-eagle3-<target>.json`` of each target (``python -m bench.real --eagle3``).
* ``drafters``: the newest ``bench/results/*-drafters-<target>.json`` of each target (``python -m bench.real --dflash``,
  EAGLE-3's rows beside when ``--eagle3`` is given too).
* ``fresh-defaults``: the newest ``bench/results/*-fresh.json`` (``python -m bench.fresh``), when one is committed.
* ``ceiling``: the newest ``bench/results/*-ceiling-<target>.json`` of each target (``python -m bench.ceiling``).

tests/test_readme.py checks that the committed README and card equal what this renders.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .report import fixed_k, replace_block, spread

ROOT = Path(__file__).resolve().parents[1]
HEAD = "storylm-5m-mtp"
SHIPPED = ("storylm-1m", "storylm-5m", "storylm-30m", "storylm-1m-distilled", "storylm-5m-hybrid",
           "storylm-1m-distilled-hybrid", HEAD)


def _rel(path: Path, root: Path) -> str:
    return path.resolve().relative_to(root.resolve()).as_posix()


def _link(path: Path, root: Path) -> str:
    rel = _rel(path, root)
    return f"[`{rel}`]({rel})"


# Focused bench modules name their files <date>-<machine>-<kind>[-...].json.
FOCUSED = ("rollback", "adaptive", "ladder", "sharded", "real", "fresh", "eagle3", "drafters", "auto-replay",
           "drafter-fit", "ceiling", "passes")


def _focused(name: str) -> bool:
    return any(f"-{kind}-" in name or name.endswith(f"-{kind}.json") for kind in FOCUSED)


def results_file(root: Path = ROOT) -> Path:
    """The newest committed `python -m bench` result (file names start with the date)."""
    found = sorted(p for p in (root / "bench" / "results").glob("*.json") if not _focused(p.name))
    if not found:
        raise FileNotFoundError(f"no bench results in {root / 'bench' / 'results'}")
    return found[-1]


def rollback_file(root: Path = ROOT) -> Path | None:
    found = sorted((root / "bench" / "results").glob("*-rollback-*.json"))
    return found[-1] if found else None


def ladder_file(root: Path = ROOT) -> Path | None:
    found = sorted((root / "bench" / "results").glob("*-ladder.json"))
    return found[-1] if found else None


def adaptive_file(root: Path = ROOT, target: str = "storylm-5m") -> Path | None:
    """The newest `bench.adaptive` results for `target` (the 5M: the README's adaptive table; the hybrid:
    the drafters for a recurrent target)."""
    found = sorted((root / "bench" / "results").glob(f"*-adaptive-{target}.json"))
    return found[-1] if found else None


def sharded_file(root: Path = ROOT) -> Path | None:
    found = sorted((root / "bench" / "results").glob("*-sharded-*.json"))
    return found[-1] if found else None


def fresh_file(root: Path = ROOT) -> Path | None:
    found = sorted((root / "bench" / "results").glob("*-fresh.json"))
    return found[-1] if found else None


def drafter_fit_file(root: Path = ROOT) -> Path | None:
    found = sorted((root / "bench" / "results").glob("*-drafter-fit.json"))
    return found[-1] if found else None


def newest_by_target(label: str, root: Path = ROOT) -> list[Path]:
    """The newest results file of each target whose names end in -<label>-<target>.json (label "real", "eagle3"
    or "drafters" of bench.real, "ceiling"), the real targets in bench.real's order first."""
    from .real import TARGETS

    newest = {}
    for path in sorted((root / "bench" / "results").glob(f"*-{label}-*.json")):
        newest[path.stem.split(f"-{label}-", 1)[1]] = path
    order = sorted(newest, key=lambda t: (TARGETS.index(t) if t in TARGETS else len(TARGETS), t))
    return [newest[t] for t in order]


def real_files(root: Path = ROOT) -> list[Path]:
    return newest_by_target("real", root)


def card_table(text: str, heading: str) -> list[list[str]]:
    """The cells of the first markdown table under the `## heading...` line of a card (header row dropped)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    rows, seen_table = [], False
    for line in lines[start + 1:]:
        if line.startswith("|"):
            seen_table = True
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set("-: ") for c in cells):
                rows.append(cells)
        elif seen_table or line.startswith("## "):
            break
    return rows[1:]


def card_facts(text: str, heading: str) -> dict[str, str]:
    """A card's two-column table as {key: value}."""
    return {row[0]: row[1] for row in card_table(text, heading)}


# ---------------------------------------------------------------- bench results

def _label(r: dict) -> str:
    if r["kind"] == "plain":
        return "ours, plain" if r["impl"] == "ours" else "mlx-lm `generate_step`, plain"
    what = {"lookup": "prompt lookup", "mtp": "MTP head"}.get(r["kind"], f"{r['drafter']} drafter")
    return f"ours, {what}" if r["impl"] == "ours" else f"mlx-lm `speculative_generate_step`, {what}"


def _x_plain(r: dict) -> str:
    s = r["speedup_vs_plain"]
    if r["impl"] == "ours" and r["kind"] == "plain":
        return f"{s['median']:.2f}"
    return "{:.2f} ({:.2f}-{:.2f})".format(s["median"], *spread(s))


def bench_setup(result: dict, source: Path, root: Path) -> str:
    h, s = result["header"], result["header"]["settings"]
    md = source.with_suffix(".md")
    return (f"From {_link(source, root)} (`{h['command']}` at git {h.get('git_commit') or '?'}, {h['date'][:10]}): "
            f"{h['machine']} ({h['cpu']}, MLX {h['mlx']} on {h['device']}, BLAS {h['blas']}, {h['compute_dtype']} "
            f"compute), {h['target']} as the target, {len(result['prompts'])} held-out prompts (prompt set "
            f"v{h['prompt_set_version']}, `mlx_specdec/data/prompts.json`) x {s['max_tokens']} new tokens, "
            f"{s['repeats']} timed repeats. Full table (every k, sampled rows, memory), cost model and plots: "
            f"{_link(md, root)}.")


def bench_table(result: dict) -> str:
    """The greedy rows: plain, ours and mlx-lm's speculative decoding at every k, the best prompt lookup.
    The MTP head's figures come from its own file (the `mtp-head` block)."""
    rows = [r for r in result["rows"] if r["mode"] == "greedy"]
    plain = [r for r in rows if r["kind"] == "plain"]
    models = sorted((r for r in rows if r["kind"] == "model"), key=lambda r: (r["drafter"], r["k"] if isinstance(r["k"], int) else 99, r["impl"] != "ours"))
    lookup = [r for r in rows if r["kind"] == "lookup" and r["impl"] == "ours"]
    best_lookup = [max(lookup, key=lambda r: r["tokens_per_s"]["median"])] if lookup else []
    lines = ["| system (greedy) | k | tokens / target pass | acceptance | tokens/s | x plain (IQR) | identical to plain |",
             "|---|---:|---:|---:|---:|---:|:---:|"]
    for r in plain + models + best_lookup:
        ident = {True: "yes", False: "NO", None: "n/a"}[r["identical_to_plain_greedy"]]
        acc = "-" if r["acceptance_rate"] is None else f"{r['acceptance_rate']:.1%}"
        lines.append(f"| {_label(r)} | {r['k'] or '-'} | {r['tokens_per_pass']:.2f} | {acc} | "
                     f"{r['tokens_per_s']['median']:.1f} | {_x_plain(r)} | {ident} |")
    return "\n".join(lines)


def _span(values, fmt: str) -> str:
    lo, hi = fmt.format(min(values)), fmt.format(max(values))
    return lo if lo == hi else f"{lo}-{hi}"


def bench_figures(result: dict) -> str:
    rows, cost = result["rows"], result["cost_model"]
    temp = result["header"]["settings"]["temperature"]
    out = []
    for drafter in sorted({r["drafter"] for r in rows if "vs_mlx_lm" in r}):
        greedy = [r for r in rows if r.get("drafter") == drafter and "vs_mlx_lm" in r and r["mode"] == "greedy"]
        sampled = [r for r in rows if r.get("drafter") == drafter and "vs_mlx_lm" in r and r["mode"] == "sampled"]
        text = (f"- **Ours vs mlx-lm's speculative decoding**, same {drafter} drafter and k, tokens/s paired per "
                f"generation (median): " + " / ".join(f"{r['vs_mlx_lm']['median']:.2f}x" for r in greedy)
                + " at k = " + " / ".join(str(r["k"]) for r in greedy) + " (greedy)")
        if sampled:
            text += ", " + _span([r["vs_mlx_lm"]["median"] for r in sampled], "{:.2f}") + "x sampled"
        out.append(text + ".")
        pairs = []
        for r in sampled:
            theirs = next((t for t in rows if t["impl"] == "mlx-lm" and t["mode"] == "sampled"
                           and t["drafter"] == drafter and t["k"] == r["k"]), None)
            if theirs:
                pairs.append((r["k"], r["acceptance_rate"], theirs["acceptance_rate"]))
        if pairs:
            out.append(
                f"- **Sampled acceptance at temperature {temp}** ({drafter}, same k): ours "
                + " / ".join(f"{a:.1%}" for _, a, _ in pairs) + " against mlx-lm's "
                + " / ".join(f"{b:.1%}" for _, _, b in pairs) + " at k = " + " / ".join(str(k) for k, _, _ in pairs)
                + ". mlx-lm keeps a draft only when the target's own independent sample equals it; we keep it with "
                "probability min(1, p/q) and resample from (p - q)+, which is exact and accepts more.")
    for mode in ("greedy", "sampled"):
        auto = [r for r in rows if r["impl"] == "ours" and r["mode"] == mode and r["k"] == "auto"]
        if auto:
            out.append(f"- **At the default k = auto** ({mode}): " + ", ".join(
                f"{r['drafter']} {r['speedup_vs_plain']['median']:.2f}x plain" for r in auto) + ".")
    slow = [r for r in rows if r["impl"] == "ours" and r["mode"] == "greedy" and r["k"] and r["kind"] != "mtp"
            and r["tokens_per_pass"] > 1.0 and r["speedup_vs_plain"]["median"] < 1.0]
    groups = {}
    for r in slow:
        groups.setdefault(_label(r).removeprefix("ours, "), []).append(r)
    if groups:
        parts = [f"the {name} at k = {', '.join(str(r['k']) for r in rs)} ({_span([r['tokens_per_pass'] for r in rs], '{:.2f}')} "
                 f"tokens per pass, {_span([r['speedup_vs_plain']['median'] for r in rs], '{:.2f}')}x plain)"
                 for name, rs in groups.items()]
        text = "- **The accounting improved and the clock did not** for " + " and ".join(parts) + "."
    else:
        text = "- **Every speculative configuration beat plain decoding on the clock** (median)."
    c, v = cost["c"], cost["v_k"]
    target = result["header"]["target"]
    text += (f" On this CPU a {target} step costs {cost['target_step_ms']:.1f} ms at a {cost['context_tokens']}-token "
             f"context and is bound by per-op dispatch, not arithmetic: a 5-token verification pass costs "
             f"{v['4']:.2f} target steps")
    drafters = [d for d in c if d in cost.get("drafter_step_ms", {})]
    if drafters:
        text += ", a drafter step " + ", ".join(f"c = {c[d]:.2f} of one ({d}, compiled)" for d in drafters)
    be = cost.get("break_even_alpha_k4", {})
    if be:
        text += (". Break-even per-token acceptance at k = 4 (with the measured verification cost): "
                 + ", ".join(f"{be[d]['measured_v']:.2f} for {d} (c = {c[d]:.3f})" for d in be if be[d]["measured_v"] is not None))
    out.append(text + ". The MTP head's step is one small block on the trunk's hidden state, no extra trunk pass.")
    return "\n".join(out)


def blas_speed(result: dict, source: Path, root: Path) -> str:
    h = result["header"]
    return (f"In the benchmark run above ({_link(source, root)}), a 512x512 fp32 matmul ran at "
            f"{h['matmul_gflops_fp32_512']} GFLOP/s with {h['blas']} ({h.get('blas_note', '')}).")


# ---------------------------------------------------------------- the MTP head

def mtp_head(root: Path, result: dict | None) -> str:
    from mlx_specdec.models.cards import bench_settings, bench_table as head_table

    folder = root / "models" / HEAD
    bench = json.loads((folder / "bench.json").read_text())
    card = (folder / "README.md").read_text()
    final = card_facts(card, "## Final validation")
    training = card_facts(card, "## Training")
    d1 = next(r for r in bench["rows"] if r["mode"] == "MTP depth 1")
    lines = [f"The head drafting for its own base, from {_link(folder / 'bench.json', root)}, the file its "
             f"[card]({_rel(folder / 'README.md', root)}) renders: {bench_settings(bench)}.", "",
             *head_table(bench), "",
             f"Its two-ahead top-1 accuracy is {float(final['acc d1']):.1%} against the base's one-ahead "
             f"{float(final['base acc']):.1%} on the same {training['validation'].split()[0]} held-out targets (the "
             f"card's validation table). The base reads x_{{t+2}} from h_{{t+1}}, computed by every trunk layer "
             f"attending over the context with x_{{t+1}} in place; the head sees only h_t and x_{{t+1}}'s embedding "
             f"through one MLP block. Acceptance at depth 1 ({d1['acceptance_rate']:.1%}) exceeds the head's accuracy "
             f"because a draft only has to match the base's choice."]
    if result is not None:
        theirs = [r for r in result["rows"] if r["kind"] == "mtp" and r["impl"] == "ours" and r["mode"] == "greedy"
                  and fixed_k(r)]
        deepest = max(theirs, key=lambda r: r["k"]) if theirs else None
        ours = next((r for r in bench["rows"] if deepest and r["mode"] == f"MTP depth {deepest['k']}"), None)
        if deepest and ours:
            lo, hi = spread(deepest["speedup_vs_plain"])
            lines += ["", f"The benchmark run above measured the head too (its rows are in the full results file): at "
                      f"k = {deepest['k']}, {deepest['tokens_per_pass']:.2f} tokens per pass and "
                      f"{deepest['speedup_vs_plain']['median']:.2f}x plain (IQR {lo:.2f}-{hi:.2f}), against "
                      f"{ours['tokens_per_pass']:.2f} and {ours['speedup']:.2f}x here. The two runs differ in prompts "
                      f"(prompt set v{result['header']['prompt_set_version']} there, held-out story openings here) "
                      f"and in the baseline (speedups paired per generation there, a ratio of summed medians here); "
                      f"this machine is shared, so read the pair as the range."]
    return "\n".join(lines)


# ---------------------------------------------------------------- what ships

def _params(n: int) -> str:
    return f"{n / 1e6:.2f}M"


def _what(config: dict) -> str:
    arch = config["architecture"]
    if config["model_type"] == "mtp_head":
        return f"MTP head for {config['base']} ({arch['n_modules']} depth modules, {_params(config['parameters'])} params)"
    if config["model_type"] == "storylm":
        return f"StoryLM, {_params(config['parameters'])} params"
    kinds = {}
    for t in arch.get("layer_types", []):
        kinds[t] = kinds.get(t, 0) + 1
    layers = " + ".join(f"{n} {t}" for t, n in kinds.items())
    return f"mlx-lm's {config['model_type']} ({layers} layers), {_params(config['parameters'])} params"


def models_table(root: Path) -> str:
    ladder = ladder_file(root)
    losses = {}
    if ladder is not None:
        losses = {r["model"]: r for r in json.loads(ladder.read_text())["losses"]}
    lines = ["| folder | what | weights |", "|---|---|---|"]
    fingerprints, vocab = set(), set()
    for name in SHIPPED:
        folder = root / "models" / name
        config = json.loads((folder / "config.json").read_text())
        training = card_facts((folder / "README.md").read_text(), "## Training")
        weights = folder / ("head.safetensors" if config["model_type"] == "mtp_head" else "model.safetensors")
        stage = " (its last stage)" if "initialised from" in training else ""
        what = f"{_what(config)}, {training['wall time']} of training here{stage}"
        if "corpus" in training:
            what += f" on `{training['corpus'].split(' (')[0]}`"
        if name in losses:
            what += (f", held-out loss {losses[name]['valid_loss']:.3f} (generator) / "
                     f"{losses[name]['yardstick_loss']:.3f} (hand-written)")
        lines.append(f"| `models/{name}` | {what} | {weights.stat().st_size / 1e6:.1f} MB |")
        fingerprints.add(config.get("tokenizer_fingerprint") or config.get("base_tokenizer_fingerprint"))
        vocab.add(config["architecture"].get("vocab_size"))
    (fp,), (v,) = fingerprints, vocab  # one tokenizer for the whole ladder, or this line is wrong
    source = f"[`{_rel(ladder, root)}`]({_rel(ladder, root)})" if ladder is not None else "no ladder results yet"
    lines += ["", f"All {len(SHIPPED)} share one {v}-piece sentencepiece tokenizer (fingerprint `{fp}`, each "
              f"`config.json`). Parameters: `config.json`; training time: each card's Training table; held-out "
              f"losses (nats per token): {source} (`python -m bench.ladder`: the same targets for every model)."]
    return "\n".join(lines)


# ---------------------------------------------------------------- the README

def render(readme_text: str, root: Path = ROOT) -> str:
    """`readme_text` with every marked block re-rendered from the committed files under `root`."""
    source = results_file(root)
    result = json.loads(source.read_text())
    blocks = {
        "bench-setup": bench_setup(result, source, root),
        "bench-table": bench_table(result),
        "bench-figures": bench_figures(result),
        "mtp-head": mtp_head(root, result),
        "models-table": models_table(root),
        "blas-speed": blas_speed(result, source, root),
    }
    rollback = rollback_file(root)
    if rollback is not None:
        from .rollback import readme_block

        blocks["rollback-table"] = readme_block(json.loads(rollback.read_text()), _rel(rollback, root))
    ladder = ladder_file(root)
    if ladder is not None:
        from .ladder import readme_block as ladder_block

        blocks["ladder"] = ladder_block(json.loads(ladder.read_text()), _rel(ladder, root))
    from .adaptive import readme_block as adaptive_block

    for block, target in (("adaptive", "storylm-5m"), ("adaptive-hybrid", "storylm-5m-hybrid")):
        adaptive = adaptive_file(root, target)
        if adaptive is not None:
            blocks[block] = adaptive_block(json.loads(adaptive.read_text()), _rel(adaptive, root))
    sharded = sharded_file(root)
    if sharded is not None:
        from .sharded import readme_block as sharded_block

        blocks["sharded-table"] = sharded_block(json.loads(sharded.read_text()), _rel(sharded, root))
    for block, label in (("real-targets", "real"), ("eagle3", "eagle3"), ("drafters", "drafters")):
        files = newest_by_target(label, root)
        if files:
            from .real import readme_block as real_block

            blocks[block] = real_block([(json.loads(p.read_text()), _rel(p, root)) for p in files])
    fit = drafter_fit_file(root)
    if fit is not None:
        from .drafter_fit import readme_block as fit_block

        blocks["drafter-fit"] = fit_block(json.loads(fit.read_text()), _rel(fit, root))
    ceilings = newest_by_target("ceiling", root)
    if ceilings:
        from .ceiling import readme_block as ceiling_block

        blocks["ceiling"] = ceiling_block([(json.loads(p.read_text()), _rel(p, root)) for p in ceilings])
    fresh = fresh_file(root)
    if fresh is not None:
        from .fresh import readme_block as fresh_block

        blocks["fresh-defaults"] = fresh_block(json.loads(fresh.read_text()), _rel(fresh, root))
    for name, body in blocks.items():
        readme_text = replace_block(readme_text, name, body)
    return readme_text


def render_head_card(root: Path = ROOT) -> str:
    from mlx_specdec.models.head_store import render_measured

    return render_measured(root / "models" / HEAD)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.readme", description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 where a file differs from its rendering")
    args = p.parse_args(argv)
    targets = {ROOT / "README.md": render((ROOT / "README.md").read_text()),
               ROOT / "models" / HEAD / "README.md": render_head_card()}
    stale = [path for path, text in targets.items() if path.read_text() != text]
    for path in stale:
        if args.check:
            print(f"{_rel(path, ROOT)} differs from what its committed sources render: run python -m bench.readme")
        else:
            path.write_text(targets[path])
            print(f"re-rendered {_rel(path, ROOT)}")
    if not stale:
        print("README.md and the head card match their committed sources")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
