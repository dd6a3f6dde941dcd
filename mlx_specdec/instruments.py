"""The loop's instruments, as one observer it calls at its seams: the round profile and `on_commit`.

The loop calls `start()` at the top of a round, `mark(phase, *arrays)` at the
end of each phase and `committed(target_seq, drafter)` after each commit. An
uninstrumented run (`Instruments()` with neither) does nothing at any of them,
and `quiet` tells the loop it may pipeline plain steps: the instruments inspect
every boundary, so with them plain steps run one at a time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import mlx.core as mx

PHASES = ("draft", "verify", "verdict", "commit", "host")


@dataclass
class RoundProfile:
    """Opt-in wall time of each phase of the speculative rounds (``speculative_stream(profile=...)``).

    Phases: draft (the drafter's proposal, evaluated), verify (the target's
    block pass), verdict (the verification rule, its sync and the host reading
    the verdict), commit (target and drafter land on the boundary, their state
    evaluated) and host (everything else: choosing k, the counters, the
    emission, the caller's work between rounds). A profiled run synchronises at
    every phase boundary, which the normal loop never does (it has one sync per
    round, and the phases overlap), so it is slower than an unprofiled run: run
    it as its own pass and read shares, never its tokens/s.
    """

    rounds: int = 0
    seconds: dict = field(default_factory=lambda: dict.fromkeys(PHASES, 0.0))
    _last: float | None = field(default=None, repr=False)

    def start(self) -> None:
        """The top of a round: the time since the last mark was host work."""
        now = time.perf_counter()
        if self._last is not None:
            self.seconds["host"] += now - self._last
        self._last = now
        self.rounds += 1

    def mark(self, phase: str, *arrays) -> None:
        """End `phase`: evaluate what it built, wait for the device, charge the time since the last mark."""
        arrays = [a for a in arrays if isinstance(a, mx.array)]
        if arrays:
            mx.eval(*arrays)
        mx.synchronize()
        now = time.perf_counter()
        self.seconds[phase] += now - self._last
        self._last = now

    def add(self, other: RoundProfile) -> RoundProfile:
        self.rounds += other.rounds
        for phase in PHASES:
            self.seconds[phase] += other.seconds[phase]
        return self

    def per_round_ms(self) -> dict:
        return {phase: 1e3 * t / self.rounds if self.rounds else 0.0 for phase, t in self.seconds.items()}


def state_arrays(*holders) -> list:
    """The arrays a target sequence or a drafter holds after a commit (for RoundProfile only)."""
    from .caches import cache_arrays

    out = []
    for obj in holders:
        obj = getattr(obj, "inner", obj)  # a duck-typed drafter behind DeclaredDrafter
        seq = getattr(obj, "seq", obj)  # a ModelDrafter keeps its sequence in .seq
        for name in ("pending", "hidden", "_state", "_token"):
            value = getattr(seq, name, None)
            if isinstance(value, mx.array):
                out.append(value)
        cache = getattr(seq, "cache", None)
        if isinstance(cache, list):
            try:
                out += cache_arrays(cache)
            except Exception:  # noqa: BLE001 - a cache we cannot walk: its work lands in the next phase
                pass
    return out


class Instruments:
    """`profile` (a RoundProfile) and `on_commit(target_seq, drafter)`, either or both, or neither."""

    def __init__(self, profile: RoundProfile | None = None, on_commit=None, drafter=None):
        self.profile, self.on_commit = profile, on_commit
        self.drafter = drafter  # what on_commit is shown: the object the caller passed
        self.quiet = profile is None and on_commit is None

    def start(self) -> None:
        if self.profile is not None:
            self.profile.start()

    def mark(self, phase: str, *arrays) -> None:
        if self.profile is not None:
            self.profile.mark(phase, *arrays)

    def committed(self, target_seq, drafter) -> None:
        """After a round's commit: the profile charges it (evaluating the committed state), then on_commit."""
        if self.profile is not None:
            self.profile.mark("commit", *state_arrays(target_seq, drafter))
        if self.on_commit is not None:
            self.on_commit(target_seq, self.drafter if self.drafter is not None else drafter)
