"""Run every system on the same models and prompts, and reduce the runs to rows.

Timing discipline: a warm-up generation per system first (allocator, first
calls); then `repeats` passes, each running every system on a prompt before
the next prompt starts (order rotated per prompt), so load drifting on a
shared machine hits all systems alike. Each generation is one synchronised
timed region (see systems.synchronised). Speedups are paired: a generation's
tokens/s over the plain run of the same prompt in the same pass, seconds
apart; the row reports the median and quartiles of those ratios.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import resource
import statistics
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import mlx.core as mx

from . import costmodel
from mlx_specdec._platform import cpu_name
from mlx_specdec.data.prompts import load_prompts
from .systems import LADDER, Context, Run, System, build_systems, discover_drafters

SCHEMA = 1
ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Settings:
    max_tokens: int = 96
    ks: list[int] = field(default_factory=lambda: [1, 2, 4, 8])
    repeats: int = 3
    n_prompts: int | None = None  # None: every prompt in the file
    temperature: float = 1.0  # the sampled mode; 0 disables it
    seed: int = 1234
    warmup_tokens: int = 16
    cost_repeats: int = 30
    with_mlx_lm: bool = True
    quick: bool = False
    profile: bool = True  # a separate untimed pass timing each phase of our speculative rounds


QUICK = dict(max_tokens=32, ks=[1, 4], repeats=1, n_prompts=3, cost_repeats=10, warmup_tokens=8)


def machine_name() -> str:
    device = "gpu" if mx.default_device() == mx.gpu else "cpu"
    return f"{platform.system().lower()}-{platform.machine()}-{device}-{os.cpu_count()}core"


def default_target(models_dir: Path) -> str | None:
    """The largest shipped ladder model (it is the one speculation should speed up)."""
    for name in reversed(LADDER):
        if (models_dir / name / "model.safetensors").is_file():
            return name
    return None


def save_results(out_dir, kind: str, header: dict, body: dict, module: str, argv, render) -> str:
    """Write ``<out>/<date>-<machine>-<kind>.{json,md}`` for a focused bench module: a
    header (date, machine, git commit, the command) over `body`; returns the markdown."""
    import subprocess

    root = Path(__file__).resolve().parents[1]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=root).stdout.strip()
    today = datetime.date.today().isoformat()
    command = (f"python -m {module} " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip()
    end_load = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    result = {"header": {**header, "date": today, "machine": machine_name(), "cpu": cpu_name(),
                         "commit": commit or None, "command": command, "load_average_end": end_load}, **body}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"{today}-{machine_name()}-{kind}"
    text = render(result)
    stem.with_suffix(".json").write_text(json.dumps(result, indent=1))
    stem.with_suffix(".md").write_text(text)
    return text


def quantiles(values: list[float]) -> dict:
    """Median, min, max (and quartiles from 4 samples on) of a list of measurements."""
    v = sorted(values)
    out = {"median": statistics.median(v), "min": v[0], "max": v[-1], "samples": values}
    if len(v) >= 4:
        q = statistics.quantiles(v, n=4)
        out["q1"], out["q3"] = q[0], q[2]
    return out


def _interp_v(v_k: dict[int, float], k_eff: float) -> float:
    """Block cost at a (possibly fractional) block of k_eff drafts, linear between measured points."""
    points = sorted({0: 1.0, **v_k}.items())
    for (k0, v0), (k1, v1) in zip(points, points[1:]):
        if k_eff <= k1:
            return v0 + (v1 - v0) * (k_eff - k0) / (k1 - k0)
    return points[-1][1]


def profile_row(row: dict, prof, costs: dict, drafter_c: dict) -> dict:
    """A row's per-round profile beside the clock and the cost model, in ms per round.

    measured: the timed rows' seconds over their target passes (one pass per round; the short prefill
    included). predicted: the cost model's round, (v(k_eff) + k_eff c) target steps. The profile's phases
    come from the separate synchronised pass; their sum (profiled) exceeds measured by what the extra
    syncs cost and by the overlap the normal loop has, so read them as shares.
    """
    phases = prof.per_round_ms()
    step = costs["target_step_ms"]
    total = sum(phases.values())
    out = {"rounds_profiled": prof.rounds, "phases_ms": phases, "profiled_ms": total,
           "shares": {k: v / total if total else 0.0 for k, v in phases.items()}}
    measured = row.get("round_ms")
    out["measured_ms"] = measured
    c = drafter_c.get(row["drafter"])
    if c is not None and row.get("mean_drafts_per_round") is not None:
        k_eff = row["mean_drafts_per_round"]
        v = _interp_v({int(k): x for k, x in costs["v_k"].items()}, k_eff)
        out["predicted_ms"] = (v + k_eff * c) * step
        out["predicted_draft_ms"], out["predicted_verify_ms"] = k_eff * c * step, v * step
        if measured:
            out["gap_ms"] = measured - out["predicted_ms"]
            out["unexplained_share"] = out["gap_ms"] / measured
    return out


def reduce_rows(systems: list[System], runs: dict[str, list[list[Run]]], costs: dict, drafter_c: dict) -> list[dict]:
    """One row per system: speeds with spread, counters, identity and cost-model predictions.

    runs[name][repeat][prompt] is a Run.
    """
    plain = {mode: runs.get(f"plain ours {mode}") for mode in ("greedy", "sampled")}
    oracle = [r.ids for r in plain["greedy"][0]]  # plain greedy ids per prompt
    v_k = {int(k): v for k, v in costs["v_k"].items()}
    rows = []
    run_tps = {name: [len(r.ids) / r.seconds for rep in reps for r in rep] for name, reps in runs.items()}
    for s in systems:
        reps = runs[s.name]
        tps = [sum(len(r.ids) for r in rep) / sum(r.seconds for r in rep) for rep in reps]
        # Paired ratios: each generation against the plain run of the same prompt in the same
        # pass, which ran seconds apart (see run_benchmark), so the load both saw was alike.
        speedups = [a / b for a, b in zip(run_tps[s.name], run_tps[f"plain ours {s.mode}"])]
        flat = [r for rep in reps for r in rep]
        generated = sum(len(r.ids) for r in flat)
        passes = sum(r.target_passes for r in flat)
        drafted = sum(r.drafted for r in flat)
        accepted = sum(r.accepted for r in flat)
        peak = max(r.peak_memory for r in flat)
        resident = max(r.resident_memory for r in flat)
        row = {
            "name": s.name, "impl": s.impl, "mode": s.mode, "drafter": s.drafter, "kind": s.kind, "k": s.k,
            "prompts": len(reps[0]), "tokens_per_run": len(reps[0][0].ids) if reps[0] else 0,
            "tokens_per_s": quantiles(tps),
            "speedup_vs_plain": quantiles(speedups),
            "target_passes": passes, "drafted": drafted, "accepted": accepted, "generated": generated,
            "tokens_per_pass": generated / passes if passes else 0.0,
            # wall ms per round (one target pass each) of the timed runs: what a profile is compared with
            "round_ms": 1e3 * sum(r.seconds for r in flat) / passes if passes and s.k else None,
            "acceptance_rate": accepted / drafted if drafted else None,
            "mean_accepted_per_round": accepted / passes if s.k else None,
            "mean_drafts_per_round": drafted / passes if s.k else None,
            "peak_memory_mb": peak / 2**20 if peak else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "peak_memory_source": (
                "mx.get_peak_memory, reset before each generation; every model of the run stays loaded"
                if peak else "ru_maxrss (process-wide, MB)"
            ),
            "resident_before_mb": resident / 2**20,  # MLX memory held when the generation started (weights)
            "identical_to_plain_greedy": (
                all(r.ids == oracle[i] for rep in reps for i, r in enumerate(rep)) if s.mode == "greedy" else None
            ),
        }
        c = drafter_c.get(s.drafter) if s.k else None
        if s.k and c is not None:
            e_acc, k_eff = row["mean_accepted_per_round"], row["mean_drafts_per_round"]
            row["c"] = c
            row["predicted_speedup_course"] = costmodel.predicted_speedup(e_acc, k_eff, c)
            row["predicted_speedup_measured_v"] = costmodel.predicted_speedup(e_acc, k_eff, c, _interp_v(v_k, k_eff))
        rows.append(row)
    # Ours against mlx-lm's speculative generator at the same drafter, k and mode: paired per generation.
    for row in rows:
        if row["impl"] != "ours" or not row["k"]:
            continue
        theirs = next((r for r in rows if r["impl"] == "mlx-lm" and r["mode"] == row["mode"]
                       and r["drafter"] == row["drafter"] and r["k"] == row["k"]), None)
        if theirs:
            row["vs_mlx_lm"] = quantiles([a / b for a, b in zip(run_tps[row["name"]], run_tps[theirs["name"]])])
    return rows


def header(settings: Settings, target_name: str, prompt_version: int, argv: list[str],
           prompt_set: str | None = None) -> dict:
    from mlx_specdec.doctor import report

    info = report()
    info.update({
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": machine_name(),
        "python": platform.python_version(),
        "command": " ".join(["python -m bench", *argv]),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "env": {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OPENBLAS_THREAD_TIMEOUT", "OMP_NUM_THREADS", "MLX_SPECDEC_BLAS")},
        "target": target_name,
        "prompt_set_version": prompt_version,
        "prompt_set": prompt_set,  # 'stories', 'copy', or None for a --prompt-file
        "settings": asdict(settings),
    })
    info["git_commit"] = _git_commit()
    try:
        import mlx_lm

        info["mlx_lm"] = mlx_lm.__version__
    except (ImportError, AttributeError):
        pass
    return info


def _git_commit() -> str | None:
    """The checkout's commit (with '+dirty' when tracked files differ), or None outside git."""
    import subprocess

    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (head + ("+dirty" if dirty else "")) if head else None


class Progress:
    """A rich progress bar in a terminal, a line per pass otherwise."""

    def __init__(self, total: int):
        self.tty = sys.stderr.isatty()
        if self.tty:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn, TimeRemainingColumn

            from rich.console import Console

            self.bar = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                    TimeRemainingColumn(), transient=True, console=Console(file=sys.stderr))
            self.task = self.bar.add_task("bench", total=total)
            self.bar.start()

    def update(self, text: str) -> None:
        if self.tty:
            self.bar.update(self.task, advance=1, description=text)

    def say(self, text: str) -> None:
        if self.tty:
            self.bar.console.print(text)
        else:
            print(text, file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.tty:
            self.bar.stop()


def run_benchmark(settings: Settings, *, target: str | None = None, drafters: list[str] | None = None,
                  mtp_head: str | None = None, prompt_file: str | None = None, models_dir: Path | None = None,
                  argv: list[str] | None = None, only: list[str] | None = None,
                  prompt_set: str | None = None) -> dict:
    from mlx_specdec.errors import SpecDecError
    from mlx_specdec.generate import encode_prompt
    from mlx_specdec.loading import load

    models_dir = Path(models_dir) if models_dir else ROOT / "models"
    target = target or default_target(models_dir)
    if target is None:
        raise SpecDecError(f"no target model: {models_dir} has none of {', '.join(LADDER)}; pass --target")
    target_path = Path(target) if Path(target).exists() else models_dir / target
    target_name = Path(target).name
    target_model, tokenizer = load(str(target_path))

    version, prompts = load_prompts(prompt_file, settings.n_prompts)
    prompt_ids = [encode_prompt(tokenizer, p["text"]) for p in prompts]
    ctx = Context(target_name, target_model, tokenizer, models_dir, drafters, mtp_head)
    specs, notes = discover_drafters(ctx, only)
    systems = build_systems(target_model, specs, settings.ks,
                            sampled_temperature=settings.temperature or None, with_mlx_lm=settings.with_mlx_lm)
    head = header(settings, target_name, version, argv or [], prompt_set)

    profiled = [s for s in systems if s.profile is not None] if settings.profile else []
    progress = Progress(len(systems) + settings.repeats * len(prompt_ids) + 1 + len(profiled))
    for note in notes:
        progress.say(note)
    for s in systems:  # warm-up, untimed
        progress.update(f"warm-up {s.name}")
        s.run(prompt_ids[0], min(settings.warmup_tokens, settings.max_tokens), settings.seed)

    # Interleaved: for each prompt every system runs once before the next prompt, in an order
    # rotated per (pass, prompt), so a system's run and the plain run it is paired with are
    # seconds apart, and no system always runs right after the same neighbour.
    runs: dict[str, list[list[Run]]] = {s.name: [[] for _ in range(settings.repeats)] for s in systems}
    n = len(systems)
    for rep in range(settings.repeats):
        progress.say(f"pass {rep + 1}/{settings.repeats}: {n} systems x {len(prompt_ids)} prompts x {settings.max_tokens} tokens")
        for i, ids in enumerate(prompt_ids):
            shift = (rep * len(prompt_ids) + i) * 7 % n
            for s in systems[shift:] + systems[:shift]:
                runs[s.name][rep].append(s.run(ids, settings.max_tokens, settings.seed + i))
            progress.update(f"pass {rep + 1}/{settings.repeats}, prompt {i + 1}/{len(prompt_ids)}")

    # The per-round profile: its own pass after the timed ones (it synchronises at every phase
    # boundary, so it would perturb a timed row), one generation per prompt and system.
    profiles = {}
    for s in profiled:
        progress.update(f"profile {s.name}")
        total = None
        for i, ids in enumerate(prompt_ids):
            prof = s.profile(ids, settings.max_tokens, settings.seed + i)
            total = prof if total is None else total.add(prof)
        profiles[s.name] = total

    progress.update("cost model: timing cached steps")
    context = costmodel.context_ids(tokenizer, min(96, _window(target_model) // 2))
    model_drafters = {sp.name: sp.draft_model for sp in specs if sp.kind == "model"}
    costs = costmodel.measure_costs(target_model, model_drafters, sorted(set(settings.ks) | {4}), context,
                                    repeats=settings.cost_repeats)
    drafter_c = dict(costs["c"])
    for sp in specs:
        if sp.cost is not None:
            c = sp.cost(costs["target_step_ms"] / 1e3)
            if c is not None:
                drafter_c[sp.name] = c
                costs["c"][sp.name] = c
            else:
                notes.append(f"no cost ratio c for {sp.name}: the module exposes no way to time one drafter step")
    progress.close()

    costs["break_even_alpha_k4"] = {
        name: {"course": costmodel.break_even_alpha(4, c),
               "measured_v": costmodel.break_even_alpha(4, c, costs["v_k"]["4"])}
        for name, c in drafter_c.items()
    }
    rows = reduce_rows(systems, runs, costs, drafter_c)
    for row in rows:
        if row["name"] in profiles:
            row["profile"] = profile_row(row, profiles[row["name"]], costs, drafter_c)
    head["load_average_end"] = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    return {
        "schema": SCHEMA,
        "header": head,
        "prompts": [{"id": p["id"], "text": p["text"], "tokens": len(ids)} for p, ids in zip(prompts, prompt_ids)],
        "drafters": [{"name": sp.name, "kind": sp.kind, "note": sp.note} for sp in specs],
        "notes": notes,
        "cost_model": costs,
        "rows": rows,
    }


def _window(model) -> int:
    from mlx_specdec.state import model_context_window

    return model_context_window(model) or 2048
