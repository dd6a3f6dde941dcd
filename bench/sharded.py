"""Sharded plain against sharded speculative decoding, and the cost model's communication term.

    python -m bench.sharded                 # launches itself on 2 local processes: mlx.launch -n 2 --backend ring
    mlx.launch --hostfile hosts.json -- python -m bench.sharded    # on two or more Macs (every host needs the models)

Every rank loads the target sharded (`--sharding`, default auto: tensor for
StoryLM) and runs the same generations in lockstep; rank 0 times them and
writes the results. Per prompt and repeat, sharded plain decoding runs, then
each speculative system, seconds apart: a row reports the median (and
quartiles) of its tokens/s over the plain run of the same prompt. Greedy output
is checked identical to sharded plain greedy on every run.

Then the cost model's terms, measured under the same processes: the sharded
target's one-token and (k+1)-token passes, one drafter step, and the latency
of one collective (a chain of all_sums of one hidden-state row). A pass makes
a known number of collectives (tensor: two per layer, plus the token's or the
verdict's agreement), so its communication here is that count times the
latency, and its compute the rest. `costmodel.predicted_speedup_sharded` then
predicts the speedup at any communication time per pass; the plot sweeps it
from 0.1 to 5 ms (a Thunderbolt or Ethernet link between Macs), which was not
measured here: only loopback was.

Writes ``<out>/<date>-<machine>-sharded-<target>.{json,md}`` and ``...-latency.png``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core on Linux)

import mlx.core as mx

from mlx_specdec.data.prompts import load_prompts
from mlx_specdec.distributed import ranks_of
from mlx_specdec.errors import SpecDecError
from mlx_specdec.generate import SpecStats, encode_prompt, plain_stream, speculative_stream
from mlx_specdec.loading import load

from . import costmodel
from .report import load_text, markdown_table, speedup_cell, where
from .run import machine_name, quantiles, save_results
from .systems import synchronised

ROOT = Path(__file__).resolve().parents[1]
SWEEP_MS = [0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0]
TABLE_MS = [0.1, 0.5, 1.0, 2.0, 5.0]
WHERE = {"root": "rank 0, drafts sent", "every": "every rank"}  # a row's draft_on, as a table cell


def _path(name: str, models: Path) -> str:
    return name if Path(name).exists() else str(models / name)


def _systems(spec: str, target, tok, models: Path) -> list[dict]:
    """`drafter:k:draft_on` items -> systems with a fresh-drafter factory each."""
    out = []
    for item in spec.split(","):
        name, k, draft_on = (item.split(":") + [None, None])[:3]
        path = Path(_path(name, models))
        if (path / "head.safetensors").is_file():
            from mlx_specdec.drafters import MTPDrafter
            from mlx_specdec.models.head_store import load_head

            head = load_head(path, target, tok)
            make, kind = (lambda head=head: MTPDrafter(head)), "mtp"
            draft_on = "every"
        else:
            model, _ = load(str(path))
            make, kind = (lambda model=model: model), "model"
            draft_on = draft_on or "root"
        out.append({"drafter": name, "k": int(k or 4), "draft_on": draft_on, "kind": kind, "make": make})
    return out


def collective_ms(group, dim: int, n: int = 200, repeats: int = 5) -> float:
    """Median time of one all_sum of a (1, dim) fp32 row, from chains of n (the latency a pass pays per collective)."""
    x = mx.ones((1, dim))
    out = []
    for i in range(repeats + 1):
        y = x
        mx.synchronize()
        start = time.perf_counter()
        for _ in range(n):
            y = mx.distributed.all_sum(y, group=group) * 0.5
        mx.eval(y)
        mx.synchronize()
        if i:  # the first chain warms the connections up
            out.append((time.perf_counter() - start) / n)
    return statistics.median(out) * 1e3


class no_all_sum:
    """While active, mx.distributed.all_sum returns its input: a tensor-sharded pass then does
    exactly its rank's compute and no communication (its output is wrong, its time is the compute's)."""

    def __enter__(self):
        self.saved = mx.distributed.all_sum
        mx.distributed.all_sum = lambda x, *args, **kwargs: x

    def __exit__(self, *exc):
        mx.distributed.all_sum = self.saved


def collectives_per_pass(target, ranks) -> int:
    """Collectives in one pass of the sharded target, plus the agreement of its token or verdict."""
    if ranks.sharding == "tensor":
        return 2 * len(target.layers) + 1  # attention and MLP each end in an all_sum
    return (ranks.size - 1) + 1 + 1  # the stages' sends, the final all_gather, the agreement


def measure_rows(target, systems, prompts, max_tokens: int, repeats: int) -> list[dict]:
    ratios = {i: [] for i in range(len(systems))}
    tps = {i: [] for i in range(len(systems))}
    plain_tps = []
    stats = {i: SpecStats() for i in range(len(systems))}
    for s in systems:  # warm-up, untimed
        list(speculative_stream(target, s["make"](), prompts[0], 16, k=s["k"], draft_on=s["draft_on"]))
    list(plain_stream(target, prompts[0], 16))
    for _ in range(repeats):
        for ids in prompts:
            ref, t_plain, _, _ = synchronised(lambda: list(plain_stream(target, ids, max_tokens)))
            plain_tps.append(len(ref) / t_plain)
            for i, s in enumerate(systems):
                st = SpecStats()

                def go():
                    return [t for e in speculative_stream(target, s["make"](), ids, max_tokens, k=s["k"],
                                                          draft_on=s["draft_on"], stats=st) for t in e.ids]

                out, t, _, _ = synchronised(go)
                if out != ref:
                    raise SpecDecError(f"{s['drafter']} k={s['k']}: sharded speculative output differs from "
                                       "sharded plain greedy")
                tps[i].append(len(out) / t)
                ratios[i].append((len(out) / t) / (len(ref) / t_plain))
                stats[i].add(st)
    rows = [{"system": "sharded plain", "drafter": None, "k": None, "draft_on": None,
             "tokens_per_s": quantiles(plain_tps), "speedup": None, "acceptance": None, "tokens_per_pass": 1.0,
             "expected_accepted": 0.0, "identical_to_plain": True}]
    for i, s in enumerate(systems):
        st = stats[i]
        rows.append({"system": "sharded speculative", "drafter": s["drafter"], "k": s["k"], "draft_on": s["draft_on"],
                     "kind": s["kind"], "tokens_per_s": quantiles(tps[i]), "speedup": quantiles(ratios[i]),
                     "acceptance": st.acceptance_rate, "tokens_per_pass": st.tokens_per_pass,
                     "expected_accepted": st.accepted / st.target_passes, "identical_to_plain": True})
    return rows


def measure_costs(target, whole, systems, ranks, context, ks, repeats: int) -> dict:
    # mlx-lm's caches for all three, so the sharded and whole passes differ only in the sharding.
    timers = {"sharded": costmodel.StepTimer(target, context, "cache"),
              "whole": costmodel.StepTimer(whole, context, "cache")}
    if ranks.sharding == "tensor":  # the same sharded pass with its all_sums made local: its compute alone
        timers["compute"] = costmodel.StepTimer(target, context, "cache")
    drafters = {s["drafter"]: s["make"]() for s in systems if s["kind"] == "model"}
    dtimers = {name: costmodel.StepTimer(m, context) for name, m in drafters.items()}
    sizes = sorted({1} | {k + 1 for k in ks})
    samples: dict = {}
    for i in range(3 + repeats):
        for name, timer in timers.items():
            for n in sizes:
                if name == "compute":
                    with no_all_sum():
                        t = timer.time(n)
                else:
                    t = timer.time(n)
                if i >= 3:
                    samples.setdefault((name, n), []).append(t * 1e3)
        for name, timer in dtimers.items():
            t = timer.time(1)
            if i >= 3:
                samples.setdefault((name, 1), []).append(t * 1e3)
    for s in systems:
        if s["kind"] == "mtp":  # one compiled depth-1 step of the head on a trunk row
            step_fn, dim = s["make"]()._steps[1], target.model.embed_tokens.weight.shape[1]
            state, token = mx.zeros((1, dim)), mx.array([1], dtype=mx.int32)
            for i in range(3 + repeats):
                mx.synchronize()
                start = time.perf_counter()
                mx.eval(step_fn(state, token))
                if i >= 3:
                    samples.setdefault((s["drafter"], 1), []).append((time.perf_counter() - start) * 1e3)
    med = {key: statistics.median(v) for key, v in samples.items()}
    dim = target.model.embed_tokens.weight.shape[1]
    latency = collective_ms(ranks.group, dim)
    n_coll = collectives_per_pass(target, ranks)
    step = med[("sharded", 1)]
    if "compute" in timers:  # measured: the pass with and without its collectives
        compute_ms = {n: med[("compute", n)] for n in sizes}
        comm = step - compute_ms[1] + latency  # + the agreement of the token or verdict, outside the pass
    else:  # pipeline: estimated from the collective's latency
        comm = latency * n_coll
        compute_ms = {n: max(med[("sharded", n)] - comm, 0.05 * step) for n in sizes}
    compute = compute_ms[1]
    return {
        "context_tokens": len(context), "repeats": repeats,
        "sharded_step_ms": step, "whole_step_ms": med[("whole", 1)],
        "sharded_block_ms": {str(n - 1): med[("sharded", n)] for n in sizes if n > 1},
        "whole_block_ms": {str(n - 1): med[("whole", n)] for n in sizes if n > 1},
        "drafter_step_ms": {s["drafter"]: med[(s["drafter"], 1)] for s in systems},
        "collective_ms": latency, "collectives_per_pass": n_coll, "comm_per_pass_ms": comm,
        "compute_step_ms": compute,
        "compute_block_ms": {str(n - 1): compute_ms[n] for n in sizes if n > 1},
        "comm_measured": "compute" in timers,
        "v_k": {str(n - 1): compute_ms[n] / compute for n in sizes if n > 1},
        "c": {s["drafter"]: med[(s["drafter"], 1)] / compute for s in systems},
    }


def predictions(rows: list[dict], costs: dict) -> list[dict]:
    """Per speculative row: predicted speedup at loopback (the measured comm) and over the sweep."""
    out = []
    compute = costs["compute_step_ms"]
    for r in rows:
        if r["drafter"] is None:
            continue
        v = costs["v_k"].get(str(r["k"]))
        if v is None:
            continue
        c = costs["c"][r["drafter"]]
        extra = costs["collective_ms"] / compute if r["draft_on"] == "root" else 0.0

        def at(ms):
            return costmodel.predicted_speedup_sharded(r["expected_accepted"], r["k"], c, v, ms / compute,
                                                       extra * (ms / costs["comm_per_pass_ms"]))

        out.append({"drafter": r["drafter"], "k": r["k"], "draft_on": r["draft_on"], "c": c, "v": v,
                    "expected_accepted": r["expected_accepted"],
                    "at_loopback": at(costs["comm_per_pass_ms"]), "measured": r["speedup"]["median"],
                    "sweep_ms": SWEEP_MS, "sweep": [at(ms) for ms in SWEEP_MS]})
    return out


def render(result: dict) -> str:
    h, costs = result["header"], result["costs"]
    lines = [f"# Sharded {h['target']}: plain against speculative decoding", "",
             f"{h['date']}, {where(h)}, git {h['commit']}; `{h['command']}`. The target is {h['sharding']}-sharded "
             f"over {h['processes']} processes ({h['backend']}, OPENBLAS_NUM_THREADS={h.get('openblas_threads')} per process); drafters are whole. Greedy, {h['prompts']} prompts x "
             f"{h['max_tokens']} new tokens x {h['repeats']} repeats; every output identical to sharded plain greedy. "
             "Speedup: tokens/s over sharded plain decoding of the same prompt, median [q1, q3]." + _load_line(h), "",
             *markdown_table(["system", "drafter", "k", "drafter runs on", "tokens/s", "speedup", "acceptance",
                              "tokens/pass"],
                             ([r["system"], r["drafter"] or "-", r["k"] or "-", WHERE.get(r["draft_on"], "-"),
                               f"{r['tokens_per_s']['median']:.1f}",
                               "1.00 (baseline)" if r["speedup"] is None else speedup_cell(r["speedup"]),
                               "-" if r["acceptance"] is None else f"{r['acceptance']:.1%}",
                               f"{r['tokens_per_pass']:.2f}"] for r in result["rows"]))]
    lines += ["", "## Cost model with a communication term", "",
              f"Measured under the same {h['processes']} processes at a {costs['context_tokens']}-token context "
              f"(medians of {costs['repeats']}): one collective (all_sum of a hidden-state row over loopback) "
              f"{costs['collective_ms']:.3f} ms, {costs['collectives_per_pass']} per pass with the agreement. Sharded "
              f"one-token pass {costs['sharded_step_ms']:.2f} ms, of which compute {costs['compute_step_ms']:.2f} ms "
              + ("(the same pass with its all_sums made local)" if costs["comm_measured"] else
                 "(the pass less its collectives' latency)")
              + f", so {costs['comm_per_pass_ms']:.2f} ms of communication per pass with the agreement; the whole "
              f"target in one process {costs['whole_step_ms']:.2f} ms; "
              + ", ".join(f"{int(k) + 1}-token pass {costs['sharded_block_ms'][k]:.2f} ms (compute v = {costs['v_k'][k]:.2f})"
                          for k in costs["v_k"])
              + "; " + ", ".join(f"{d} step {costs['drafter_step_ms'][d]:.2f} ms (c = {costs['c'][d]:.2f})"
                                 for d in costs["c"]) + ".", "",
              "speedup = (E[acc] + 1)(1 + comm) / (v + k c + comm + extra), in units of the sharded pass's compute "
              "(`bench/costmodel.py: predicted_speedup_sharded`; extra = one more collective when drafts are sent).",
              "", "| drafter | k | drafter runs on | E[acc] | predicted at loopback | measured | "
              + " | ".join(f"predicted at {ms} ms/pass" for ms in TABLE_MS) + " |",
              "|---|---:|---|---:|---:|---:|" + "---:|" * len(TABLE_MS)]
    for p in result["predictions"]:
        at = dict(zip(p["sweep_ms"], p["sweep"]))
        lines.append(f"| {p['drafter']} | {p['k']} | {p['draft_on']} | {p['expected_accepted']:.2f} | "
                     f"{p['at_loopback']:.2f} | {p['measured']:.2f} | "
                     + " | ".join(f"{at[ms]:.2f}" for ms in TABLE_MS) + " |")
    lines += ["", "Only the loopback column was measured; the others are predictions from the same measured compute "
              "costs and acceptance with the communication time per pass set to the value named."]
    if result.get("plot"):
        lines += ["", f"![predicted speedup against communication per pass]({result['plot']})"]
    return "\n".join(lines) + "\n"


def _load_line(h: dict) -> str:
    if not h.get("load_average"):
        return ""
    return (f" Load average (1/5/15 min) at the start {load_text(h['load_average'])}, at the end "
            f"{load_text(h.get('load_average_end'))}: the processes share this machine's cores, so read ratios "
            "more than absolute rates.")


def readme_block(result: dict, source: str) -> str:
    """The README's sharded table: measured rows, then the predicted speedups over the latency sweep."""
    h, costs = result["header"], result["costs"]
    lines = [f"{h['target']} {h['sharding']}-sharded over {h['processes']} processes ({h['backend']}), "
             f"{h['date']}, {where(h)}; {h['prompts']} prompts x {h['max_tokens']} tokens x {h['repeats']} "
             f"repeats, greedy, every output identical to sharded plain greedy. From [`{source}`]({source}).", "",
             "| system | k | drafter runs on | tokens / pass | x sharded plain, measured (IQR) | "
             + " | ".join(f"predicted at {ms} ms/pass" for ms in TABLE_MS) + " |",
             "|---|---:|---|---:|---:|" + "---:|" * len(TABLE_MS)]
    preds = {(p["drafter"], p["k"], p["draft_on"]): p for p in result["predictions"]}
    for r in result["rows"]:
        if r["drafter"] is None:
            continue
        p = preds.get((r["drafter"], r["k"], r["draft_on"]))
        at = dict(zip(p["sweep_ms"], p["sweep"])) if p else {}
        runs_on = WHERE[r["draft_on"]]
        lines.append(f"| {r['drafter']} | {r['k']} | {runs_on} | {r['tokens_per_pass']:.2f} | "
                     f"{speedup_cell(r['speedup'])} | " + " | ".join(f"{at[ms]:.2f}" if ms in at else "-"
                                                                  for ms in TABLE_MS) + " |")
    lines += ["", f"Here one collective took {costs['collective_ms']:.2f} ms over loopback and a sharded pass spent "
              f"{costs['comm_per_pass_ms']:.1f} ms communicating ({costs['sharded_step_ms']:.1f} ms in all, "
              f"{costs['compute_step_ms']:.1f} ms of compute; the whole target in one process "
              f"{costs['whole_step_ms']:.1f} ms): {h['processes']} ranks and `mlx.launch` shared the cores of "
              f"{where(h)}, so every collective waited for the scheduler; a worst case for communication, not a "
              "network. Once communication is cheap the drafter's own cost decides: one draft step costs "
              + ", ".join(f"{c:.2f} ({d})" for d, c in costs["c"].items())
              + " of the sharded pass's compute."]
    return "\n".join(lines)


def plot(result: dict, path: Path) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    loop = result["costs"]["comm_per_pass_ms"]
    for p in result["predictions"]:
        label = f"{p['drafter']} k={p['k']} ({'drafts sent' if p['draft_on'] == 'root' else 'every rank'})"
        line, = ax.plot(p["sweep_ms"], p["sweep"], label=label)
        ax.plot([loop], [p["measured"]], "o", color=line.get_color())
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_xlabel("communication per target pass (ms)")
    ax.set_ylabel("predicted speedup over sharded plain")
    h = result["header"]
    ax.set_title(f"{h['target']}, {h['sharding']}-sharded over {h['processes']} (dots: measured, loopback)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name


def _launch_self(argv, processes: int) -> int:
    script = Path(sys.executable).parent / "mlx.launch"
    launcher = [str(script)] if script.exists() else [sys.executable, "-m", "mlx._distributed_utils.launch"]
    cmd = [*launcher, "-n", str(processes), "--backend", "ring", "--", sys.executable, "-m", "bench.sharded",
           *(argv if argv is not None else sys.argv[1:])]
    # The processes share this host's cores: a BLAS thread pool per process sized for all of
    # them would oversubscribe the cores, and its spinning threads starve the collectives.
    threads = str(max(1, (os.cpu_count() or 1) // processes))
    env = {**os.environ, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", threads)}
    return subprocess.run(cmd, cwd=ROOT, env=env).returncode


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.sharded", description=__doc__.splitlines()[0])
    p.add_argument("--target", default="storylm-5m")
    p.add_argument("--systems", default="storylm-1m:4:root,storylm-1m:4:every,storylm-5m-mtp:3",
                   help="drafter:k[:root|every] items (an MTP head always drafts on every rank)")
    p.add_argument("--sharding", default="auto", choices=["tensor", "pipeline", "auto"])
    p.add_argument("--max-tokens", type=int, default=96)
    p.add_argument("--prompts", type=int, default=6)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--cost-repeats", type=int, default=20)
    p.add_argument("--processes", type=int, default=2, help="local processes when not launched by mlx.launch")
    p.add_argument("--out", default=".", help="output folder (default: the working directory)")
    args = p.parse_args(argv)
    start_load = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    group = mx.distributed.init()
    if group.size() == 1:
        return _launch_self(argv, args.processes)
    try:
        models = ROOT / "models"
        target, tok = load(_path(args.target, models), sharding=args.sharding)
        ranks = ranks_of(target)
        whole, _ = load(_path(args.target, models))
        systems = _systems(args.systems, target, tok, models)
        _, prompts = load_prompts(None, args.prompts)
        ids = [encode_prompt(tok, q["text"]) for q in prompts]
        rows = measure_rows(target, systems, ids, args.max_tokens, args.repeats)
        context = costmodel.context_ids(tok, args.max_tokens)
        costs = measure_costs(target, whole, systems, ranks, context, sorted({s["k"] for s in systems}),
                              args.cost_repeats)
    except (SpecDecError, ValueError) as e:
        print(f"error (rank {group.rank()}): {e}", file=sys.stderr)
        return 2
    if not ranks.is_root:
        return 0
    header = {"target": Path(args.target).name, "sharding": ranks.sharding, "processes": ranks.size,
              "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS"), "load_average": start_load,
              "backend": "ring over loopback" if args.processes and _local_only() else "ring",
              "prompts": len(ids), "max_tokens": args.max_tokens, "repeats": args.repeats}
    body = {"rows": rows, "costs": costs}
    body["predictions"] = predictions(rows, costs)
    stem = f"{time.strftime('%Y-%m-%d')}-{machine_name()}-sharded-{Path(args.target).name}"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    body["plot"] = plot({"header": header, **body}, out / f"{stem}-latency.png")
    print(save_results(args.out, f"sharded-{Path(args.target).name}", header, body, "bench.sharded", argv, render))
    return 0


def _local_only() -> bool:
    """Whether every rank runs on this host (mlx.launch -n N without a hostfile)."""
    import json
    import os

    hostfile = os.environ.get("MLX_HOSTFILE")
    try:
        hosts = json.loads(Path(hostfile).read_text()) if hostfile else []
    except (OSError, ValueError):
        return False
    return all(str(a).startswith(("127.", "localhost")) for h in hosts for a in (h if isinstance(h, list) else [h]))


if __name__ == "__main__":
    raise SystemExit(main())
