"""Which schedule chooses each round's k, and k="auto"'s memory of a pair: from the last generation of the same
target and drafter in this process, else from the calibration file (mlx_specdec.calibration)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .adaptive import AdaptiveK
from .calibration import load_entry, origin, pair_key


def schedule_for(k, target, drafter, *, sampled: bool, quiet: bool):
    """The choice of k behind one interface (`choose()`, `update(drafted, accepted, seconds, traced)`,
    `finish()` when the generation ends, `learns`, and for a schedule that learns `charge(seconds, tokens,
    budget)`, `price_entry(prefill_seconds, tokens)`, `shadow(drafted, accepted)` for a round scored during
    plain steps, `wants_step_cost` and `step_cost_ratio(ratio)`):
    FixedK for an integer, AdaptiveK for "auto" (warm-started per pair, except in an instrumented run,
    whose rounds are slower: it neither learns from nor teaches the next one), HeuristicK for "heuristic"."""
    if k == "auto":
        if not quiet:
            return AdaptiveK()
        return for_pair(target, drafter, sampled=sampled)
    if k == "heuristic":
        return HeuristicK()
    return FixedK(k)


CALIBRATED_TIME_WEIGHT = 16.0  # rounds' worth of round times a generation takes from the calibration file


def for_pair(target, drafter, sampled: bool = False, **options):
    """An AdaptiveK for one generation, warm-started from the last one of the same target and drafter
    (and the same mode: sampling accepts less than greedy): in this process, their round times and
    acceptance, so that each generation does not pay again to learn what a round costs; in a new
    process, the calibration file's entry for the pair on this machine (mlx_specdec.calibration), its
    round times weighed as CALIBRATED_TIME_WEIGHT rounds. The memory lives on the target model, one
    entry per drafter and mode; `AdaptiveK.finish()` writes the file."""
    memory = target.__dict__.setdefault("_specdec_adaptive", {}) if hasattr(target, "__dict__") else {}
    key = (*drafter_key(drafter), sampled)
    adaptive = AdaptiveK(**options)
    if key in memory:
        adaptive.warm_start(memory[key])
        adaptive.calibration_key = memory[key].calibration_key
    else:
        adaptive.calibration_key = pair_key(target, drafter_identity(drafter), sampled)
        kept = load_entry(adaptive.calibration_key)
        earlier = AdaptiveK.restore(kept) if kept is not None else None
        if earlier is not None:
            start_calibrated(adaptive, earlier)
    memory[key] = adaptive  # the live estimate: the next generation starts from wherever this one ends
    return adaptive


def start_calibrated(adaptive: AdaptiveK, earlier: AdaptiveK) -> AdaptiveK:
    """`adaptive` starting a process from the calibration file's entry for its pair (`earlier`): round times
    weighed as CALIBRATED_TIME_WEIGHT rounds, and a first probe soon (another text: where the last one ended on
    plain steps, look at drafting again)."""
    adaptive.warm_start(earlier, time_weight=CALIBRATED_TIME_WEIGHT)
    adaptive._probe_every = adaptive.probe_interval
    adaptive._next_probe = adaptive._round + adaptive.explore_every
    return adaptive


def drafter_identity(drafter) -> str | None:
    """What names a drafter across processes: the folder its model or head was loaded from, or a
    model-free drafter's class and settings; None for a model built in memory."""
    drafter = getattr(drafter, "inner", drafter)
    name, inner = drafter_key(drafter)
    if isinstance(inner, tuple):  # a model-free drafter: its settings
        return f"{name}{inner}"
    model = getattr(drafter, "model", None)
    if model is None:
        model = getattr(drafter, "head", None)
    where = origin(model) if model is not None else None
    return None if where is None else f"{name}:{where}"


def drafter_key(drafter) -> tuple:
    """What identifies a drafter's costs: its class, and the model or head it runs (the same
    object from one generation to the next), or its settings for a model-free drafter."""
    drafter = getattr(drafter, "inner", drafter)  # a duck-typed drafter behind DeclaredDrafter
    inner = getattr(drafter, "model", None)
    if inner is None:  # (not `or`: an mlx Module is a dict, and falsy when it holds nothing)
        inner = getattr(drafter, "head", None)
    if inner is not None:
        return type(drafter).__name__, id(inner)
    return type(drafter).__name__, tuple(sorted((k, v) for k, v in vars(drafter).items()
                                                if isinstance(v, (int, float, str, bool))))


@dataclass
class HeuristicK:
    """Hugging Face transformers' "heuristic" schedule, the baseline AdaptiveK is measured against:
    start at 5 drafts; +2 after a round whose drafts were all accepted, -1 (never below 1) otherwise.
    It never takes a plain step and never reads the clock. Capped at `k_max` (transformers has no cap;
    here every new block length costs a trace of the compiled step)."""

    k: int = 5
    k_max: int = 16
    history: list = field(default_factory=list, init=False, repr=False)

    def choose(self) -> int:
        self.history.append(self.k)
        return self.k

    def update(self, drafted: int, accepted: int, seconds: float, traced: bool = False) -> None:
        if drafted == 0:  # a round without drafts (e.g. prompt lookup without a match) moves nothing
            return
        self.k = min(self.k_max, self.k + 2) if accepted == drafted else max(1, self.k - 1)

    wants_step_cost = False  # it never reads a clock

    def shadow(self, drafted: int, accepted: int) -> None:
        pass  # it never takes a plain step

    def charge(self, seconds: float, tokens: int = 0, budget: bool = True) -> None:
        pass

    def price_entry(self, prefill_seconds: float, tokens: int) -> None:
        pass

    def finish(self) -> None:
        pass


@dataclass
class FixedK:
    """A fixed k: the same every round; it learns nothing and reads no clock."""

    k: int
    learns = False

    def choose(self) -> int:
        return self.k

    def update(self, drafted: int, accepted: int, seconds: float, traced: bool = False) -> None:
        pass

    def finish(self) -> None:
        pass


HeuristicK.learns = True
