"""What the benchmark runs: a table of drafters and the systems built on them.

A *drafter* is a named factory. Each factory looks for what it needs (a model
folder, an optional module) and either returns DrafterSpecs or raises Skip with
a one-line reason, so the harness runs on whatever exists today and picks up
new drafters (the MTP head, a bigger ladder) when they land.

A *system* is one row of the table: an implementation ("ours" or "mlx-lm"), a
mode (greedy or sampled), a drafter and k (or none: plain decoding). Its
`run(prompt_ids, max_tokens, seed)` generates once and returns a Run with the
wall-clock seconds of a synchronised region and the counters.
"""

from __future__ import annotations

import gc
import importlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import mlx.core as mx

from mlx_specdec.generate import RoundProfile, SpecStats, plain_stream, speculative_stream

LADDER = ("storylm-1m", "storylm-5m", "storylm-30m")  # smallest first


class Skip(Exception):
    """A drafter that cannot run here; the message says why."""


@dataclass
class Run:
    """One generation: its ids, synchronised wall-clock seconds and counters."""

    ids: list[int]
    seconds: float
    target_passes: int
    drafted: int = 0
    accepted: int = 0
    peak_memory: int = 0
    resident_memory: int = 0  # MLX active memory when the generation started


@dataclass
class DrafterSpec:
    """A drafter the harness can use.

    make() returns what speculative_generate accepts (a model, or a fresh
    Drafter object: drafters keep per-generation state). draft_model is the
    bare model for mlx-lm's speculative generator (model drafters only).
    """

    name: str
    kind: str  # "model", "mtp" or "lookup"
    make: Callable[[], object]
    draft_model: object | None = None
    sampled: bool = True  # whether to run it in the sampled mode too
    note: str = ""
    cost: Callable | None = None  # (target_step_seconds) -> c, for non-model drafters
    max_k: int | None = None  # most drafts it can propose a round (None: any k)


@dataclass
class System:
    name: str
    impl: str  # "ours" or "mlx-lm"
    mode: str  # "greedy" or "sampled"
    drafter: str | None
    kind: str  # "plain" or the drafter's kind
    k: int | None
    run: Callable[[list[int], int, int], Run] = field(repr=False)
    # (prompt_ids, max_tokens, seed) -> RoundProfile: one generation with the loop synchronising at every
    # phase boundary (ours, speculative rows only); never timed as a row.
    profile: Callable | None = field(default=None, repr=False)


@dataclass
class Context:
    """What the drafter factories may look at."""

    target_name: str
    target: object
    tokenizer: object
    models_dir: Path
    drafter_paths: list[str] | None = None  # explicit drafter models (None: the ladder)
    mtp_head: str | None = None  # explicit MTP head folder (None: <models>/<target>-mtp)


def synchronised(fn) -> tuple[object, float, int, int]:
    """Run fn() in a timed region: sync before starting and before stopping the clock.

    Leftovers of earlier generations (caches in reference cycles) are collected
    first, outside the clock, so the peak belongs to this generation.
    """
    gc.collect()
    mx.synchronize()
    mx.clear_cache()
    mx.reset_peak_memory()
    resident = mx.get_active_memory()
    start = time.perf_counter()
    out = fn()
    mx.synchronize()
    return out, time.perf_counter() - start, mx.get_peak_memory(), resident


# ---------------------------------------------------------------------------
# Drafter factories
# ---------------------------------------------------------------------------


def model_drafters(ctx: Context) -> list[DrafterSpec]:
    """Separate drafter models: every smaller shipped ladder model (and its distilled sibling), or the given paths."""
    from mlx_specdec.loading import check_pair, load

    if ctx.drafter_paths is not None:
        paths = list(ctx.drafter_paths)
    else:
        if ctx.target_name not in LADDER:
            raise Skip(f"target {ctx.target_name!r} is not a ladder model; pass --drafter")
        # each smaller rung, then its distilled sibling (trained on a target's own outputs) when one ships
        smaller = [f for n in LADDER[: LADDER.index(ctx.target_name)] for f in (n, f"{n}-distilled")]
        paths = [str(ctx.models_dir / n) for n in smaller if (ctx.models_dir / n / "model.safetensors").is_file()]
        if not paths:
            raise Skip(f"no smaller ladder model than {ctx.target_name} in {ctx.models_dir}")
    specs = []
    for path in paths:
        model, tok = load(path)
        name = Path(path).name
        check_pair(ctx.tokenizer, tok, ctx.target_name, name)
        specs.append(DrafterSpec(name=name, kind="model", make=lambda m=model: m, draft_model=model))
    return specs


def mtp_drafters(ctx: Context) -> list[DrafterSpec]:
    """The target's own multi-token-prediction head (self-speculation)."""
    try:
        mtp = importlib.import_module("mlx_specdec.mtp")
    except ImportError as e:
        raise Skip(f"mlx_specdec.mtp is not available ({e})") from None
    if not hasattr(mtp, "MTPDrafter") or not hasattr(mtp, "load_head"):
        raise Skip("mlx_specdec.mtp has no MTPDrafter/load_head yet")
    path = Path(ctx.mtp_head) if ctx.mtp_head else ctx.models_dir / f"{ctx.target_name}-mtp"
    if not path.exists():
        if ctx.mtp_head:  # asked for by name: a missing head is an error, not a skipped row
            from mlx_specdec.errors import SpecDecError

            raise SpecDecError(f"--mtp-head {ctx.mtp_head!r} does not exist")
        raise Skip(f"no MTP head at {path}")
    head = mtp.load_head(str(path), ctx.target, ctx.tokenizer)
    depth = head.config.depth
    return [
        DrafterSpec(
            name=f"mtp:{path.name}", kind="mtp", make=lambda: mtp.MTPDrafter(head), sampled=False,
            note=f"MTP head on the target's own trunk; drafts at most {depth} tokens a round (its trained depth)",
            cost=lambda step: _mtp_cost(head, step), max_k=depth,
        )
    ]


def _mtp_cost(head, target_step: float) -> float:
    """One compiled head step (the drafter's per-draft work) over one target step."""
    from .costmodel import time_call

    state = mx.random.normal((1, head.config.dim))
    step = mx.compile(lambda s, t: head(s, t, depth=1)[0])
    token = mx.array([5], dtype=mx.int32)
    mx.eval(step(state, token))
    return time_call(lambda: step(state, token), repeats=50) / target_step


def lookup_drafters(ctx: Context) -> list[DrafterSpec]:
    """Prompt lookup: copy what followed the latest match of the last n tokens."""
    drafters = importlib.import_module("mlx_specdec.drafters")
    cls = getattr(drafters, "PromptLookupDrafter", None)
    if cls is None:
        raise Skip("mlx_specdec.drafters has no PromptLookupDrafter yet")
    return [
        DrafterSpec(
            name="prompt-lookup", kind="lookup", make=lambda: cls(), sampled=False,
            note="n-gram copy from the context (n = 3..1), no model",
            cost=lambda step: _lookup_cost(cls, ctx, step),
        )
    ]


def _lookup_cost(cls, ctx: Context, target_step: float) -> float:
    from .costmodel import context_ids, time_call

    drafter = cls()
    drafter.prefill(context_ids(ctx.tokenizer, 96))
    return time_call(lambda: drafter.lookup(4)) / 4 / target_step


# The table: name -> factory. Order is the order of rows.
DRAFTER_FACTORIES: dict[str, Callable[[Context], list[DrafterSpec]]] = {
    "model": model_drafters,
    "mtp": mtp_drafters,
    "lookup": lookup_drafters,
}


def discover_drafters(ctx: Context, only: list[str] | None = None) -> tuple[list[DrafterSpec], list[str]]:
    """Every available drafter, and a note for each factory that was skipped."""
    specs, notes = [], []
    for name, factory in DRAFTER_FACTORIES.items():
        if only is not None and name not in only:
            continue
        try:
            specs += factory(ctx)
        except Skip as why:
            if only is not None:  # asked for with --drafters: it must run
                from mlx_specdec.errors import SpecDecError

                raise SpecDecError(f"--drafters {name}: cannot run it ({why})") from None
            notes.append(f"drafter '{name}' skipped: {why}")
    return specs, notes


# ---------------------------------------------------------------------------
# Systems
# ---------------------------------------------------------------------------


def _mlx_lm():
    # `mlx_lm.generate` the attribute is a function; the module needs importlib.
    gen = importlib.import_module("mlx_lm.generate")
    from mlx_lm.sample_utils import make_sampler

    return gen, make_sampler


def ours_plain(target, temperature: float) -> Callable:
    def run(prompt, max_tokens, seed):
        ids, seconds, peak, resident = synchronised(
            lambda: list(plain_stream(target, prompt, max_tokens, temperature=temperature, seed=seed))
        )
        return Run(ids, seconds, target_passes=len(ids), peak_memory=peak, resident_memory=resident)

    return run


def ours_spec(target, spec: DrafterSpec, k: int, temperature: float) -> Callable:
    def run(prompt, max_tokens, seed):
        stats = SpecStats()
        drafter = spec.make()  # outside the clock: building a Drafter object is set-up

        def go():
            out = []
            for emission in speculative_stream(
                target, drafter, prompt, max_tokens, k=k, temperature=temperature, seed=seed, stats=stats
            ):
                out.extend(emission.ids)
            return out

        ids, seconds, peak, resident = synchronised(go)
        return Run(ids, seconds, stats.target_passes, stats.drafted, stats.accepted, peak, resident)

    return run


def ours_spec_profile(target, spec: DrafterSpec, k: int, temperature: float) -> Callable:
    def profile(prompt, max_tokens, seed):
        prof = RoundProfile()
        for _ in speculative_stream(target, spec.make(), prompt, max_tokens, k=k, temperature=temperature, seed=seed,
                                    profile=prof):
            pass
        return prof

    return profile


def mlx_lm_plain(target, temperature: float) -> Callable:
    gen, make_sampler = _mlx_lm()
    sampler = make_sampler(temp=temperature)

    def run(prompt, max_tokens, seed):
        mx.random.seed(seed)  # mlx-lm samples from the global generator
        ids, seconds, peak, resident = synchronised(
            lambda: [int(t) for t, _ in gen.generate_step(mx.array(prompt), target, max_tokens=max_tokens, sampler=sampler)]
        )
        return Run(ids, seconds, target_passes=len(ids), peak_memory=peak, resident_memory=resident)

    return run


def mlx_lm_spec(target, draft_model, k: int, temperature: float) -> Callable:
    gen, make_sampler = _mlx_lm()
    sampler = make_sampler(temp=temperature)

    def run(prompt, max_tokens, seed):
        mx.random.seed(seed)

        def go():
            return [
                (int(t), bool(d))
                for t, _, d in gen.speculative_generate_step(
                    mx.array(prompt), target, draft_model, num_draft_tokens=k, max_tokens=max_tokens, sampler=sampler
                )
            ]

        out, seconds, peak, resident = synchronised(go)
        flags = [d for _, d in out]
        rounds, drafted, accepted = mlx_lm_rounds(flags, k, max_tokens)
        return Run([t for t, _ in out], seconds, rounds, drafted, accepted, peak, resident)

    return run


def mlx_lm_rounds(from_draft: list[bool], k: int, max_tokens: int) -> tuple[int, int, int]:
    """(rounds, drafted, accepted) of an mlx-lm speculative run, from its flags.

    Replays mlx-lm's loop: a round drafts min(k, tokens left) tokens, emits the
    accepted ones (flag True), then one target token (flag False) unless the cap
    was reached first. Each round is one target pass.
    """
    rounds = drafted = accepted = produced = 0
    i = 0
    while i < len(from_draft):
        n_draft = min(k, max_tokens - produced)
        rounds += 1
        drafted += n_draft
        n = 0
        while n < n_draft and i < len(from_draft) and from_draft[i]:
            n += 1
            i += 1
            produced += 1
            if produced == max_tokens:
                break
        accepted += n
        if produced < max_tokens and i < len(from_draft):
            if from_draft[i]:
                raise ValueError(f"flag {i} should close a round (a target token) but is a draft")
            i += 1
            produced += 1
    return rounds, drafted, accepted


def build_systems(target, drafters: list[DrafterSpec], ks: list[int], *, sampled_temperature: float | None = 1.0,
                  with_mlx_lm: bool = True, schedules: tuple[str, ...] = ("auto", "heuristic")) -> list[System]:
    """Every row: plain baselines first, then each drafter across k, then under each adaptive schedule in
    `schedules` ("auto", the generator's default; "heuristic", Hugging Face's +2/-1 rule, the baseline
    auto is measured against), greedy then sampled."""
    modes = [("greedy", 0.0)] + ([("sampled", sampled_temperature)] if sampled_temperature else [])
    systems: list[System] = []
    for mode, temp in modes:
        systems.append(System(f"plain ours {mode}", "ours", mode, None, "plain", None, ours_plain(target, temp)))
        if with_mlx_lm:
            systems.append(System(f"plain mlx-lm {mode}", "mlx-lm", mode, None, "plain", None, mlx_lm_plain(target, temp)))
        for spec in drafters:
            if mode == "sampled" and not spec.sampled:
                continue
            # A drafter with a depth cap (an MTP head) proposes at most max_k drafts: larger k repeat the same run.
            for k in sorted({min(k, spec.max_k or k) for k in ks}):
                systems.append(System(f"ours {spec.name} k={k} {mode}", "ours", mode, spec.name, spec.kind, k,
                                      ours_spec(target, spec, k, temp), ours_spec_profile(target, spec, k, temp)))
            for schedule in schedules:
                systems.append(System(f"ours {spec.name} k={schedule} {mode}", "ours", mode, spec.name, spec.kind,
                                      schedule, ours_spec(target, spec, schedule, temp),
                                      ours_spec_profile(target, spec, schedule, temp)))
            if with_mlx_lm and spec.draft_model is not None:
                for k in ks:
                    systems.append(System(f"mlx-lm {spec.name} k={k} {mode}", "mlx-lm", mode, spec.name, spec.kind, k,
                                          mlx_lm_spec(target, spec.draft_model, k, temp)))
    return systems
