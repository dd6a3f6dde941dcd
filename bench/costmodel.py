"""The speculative-decoding cost model, and the on-machine numbers it needs.

Units are target steps: one cached one-token target pass costs 1.

* c    drafter/target cost ratio: one drafter step (as the engine runs it: the
       compiled step where the model allows) over one cached target step at the
       same context length.
* v_k  block-verification cost: one cached (k+1)-token target pass over a
       one-token pass (1 <= v_k <= k+1; close to 1 when the pass is bound by
       weight reads or dispatch, close to k+1 when it is bound by arithmetic).

A round costs k drafter steps plus one verification pass and emits
E[accepted] + 1 tokens, so

    simple model (v = 1):   speedup = (E[acc] + 1) / (1 + k c)
    with measured v_k:      speedup = (E[acc] + 1) / (v_k + k c)

Both leave out what the loop does on the host (the per-round sync, Python) and
the commit/rollback cost; the benchmark prints them beside the measured ratio
so the gap is visible rather than hidden.

A sharded target (mx.distributed) adds a communication term per pass, comm,
in the same units: see `predicted_speedup_sharded` and `python -m bench.sharded`.
"""

from __future__ import annotations

import statistics
import time

import mlx.core as mx


def predicted_speedup(expected_accepted: float, k: int, c: float, v: float = 1.0) -> float:
    """(E[acc] + 1) / (v + k c): emitted tokens per target-step of work."""
    return (expected_accepted + 1.0) / (v + k * c)


def predicted_speedup_sharded(expected_accepted: float, k: int, c: float, v: float, comm: float,
                              extra: float = 0.0) -> float:
    """A target sharded across machines pays `comm` target steps of communication on
    every pass, a plain step and a verification pass alike (the collectives inside the
    pass, and the verdict's or the token's agreement), so

        speedup = (E[acc] + 1) (1 + comm) / (v + k c + comm + extra)

    with the target step the sharded pass's compute alone, and `extra` what a round
    adds (one more collective when rank 0's drafts are sent to the other ranks). As
    comm grows the speedup tends to E[acc] + 1, the tokens per pass: speculation
    divides the number of passes, and with them the trips across the network.
    """
    return (expected_accepted + 1.0) * (1.0 + comm) / (v + k * c + comm + extra)


def iid_expected_accepted(alpha: float, k: int) -> float:
    """E[accepted drafts] = alpha + ... + alpha^k when each draft survives with
    probability alpha independently (the first rejection ends the round)."""
    return sum(alpha**i for i in range(1, k + 1))


def break_even_alpha(k: int, c: float, v: float = 1.0, tol: float = 1e-9) -> float | None:
    """The per-token acceptance alpha at which the predicted speedup is exactly 1.

    Solves 1 + alpha + ... + alpha^k = v + k c by bisection (the left side grows
    with alpha). None when even alpha = 1 (k + 1 tokens a round) cannot pay
    for the round: speculation cannot win at this k on this machine.
    """
    cost = v + k * c
    if cost <= 1.0:
        return 0.0  # a round costs no more than a plain step: any acceptance wins
    if k + 1 < cost:
        return None
    lo, hi = 0.0, 1.0
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if 1.0 + iid_expected_accepted(mid, k) < cost:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def context_ids(tokenizer, length: int) -> list[int]:
    """A realistic context of `length` token ids (story text, BOS first)."""
    from mlx_specdec.data import iter_texts
    from mlx_specdec.generate import encode_prompt

    ids: list[int] = []
    for text in iter_texts("bundled", "valid", n=50, seed=1):
        ids += encode_prompt(tokenizer, text)
        if len(ids) >= length:
            return ids[:length]
    raise ValueError(f"could not build a {length}-token context")


class StepTimer:
    """Times passes of a model at a fixed context length, the way the engine runs them: through the
    committed-state strategy every generator uses by default ('auto': the compiled step where the model
    supports it; a sharded model passes 'cache').

    The context is prefilled once; each timed pass feeds n tokens (the pending one and n - 1 more),
    evaluates the logits (the clock is read only after mx.eval returns and the stream is synchronised) and
    rolls the sequence back, so every pass sees the same context.
    """

    def __init__(self, model, context: list[int], strategy: str = "auto"):
        from mlx_specdec.state import make_sequence

        self.seq = make_sequence(model, strategy)
        self.seq.prefill(context)
        self.pending = self.seq.pending
        self.feed = mx.array(context, dtype=mx.int32)  # tokens to feed come from the context itself

    def time(self, n_tokens: int) -> float:
        x = self.feed[: n_tokens - 1]
        mx.eval(x)
        mx.synchronize()
        start = time.perf_counter()
        mx.eval(self.seq.extend(x))
        mx.synchronize()
        seconds = time.perf_counter() - start
        self.seq.commit(0, self.pending)
        return seconds


def measure_costs(target, drafter_models: dict, ks, context: list[int], repeats: int = 30, warmup: int = 5) -> dict:
    """Median step times and the ratios c (per drafter model) and v_k (per k).

    Measurements are interleaved (target, each drafter, each block size, then
    again) so that load drifting on a shared machine hits all of them alike.
    """
    sizes = sorted({1} | {k + 1 for k in ks})
    timers = {"target": StepTimer(target, context)}
    timers.update({name: StepTimer(m, context) for name, m in drafter_models.items()})
    samples: dict[tuple[str, int], list[float]] = {}
    for i in range(warmup + repeats):
        for name, timer in timers.items():
            for n in sizes if name == "target" else (1,):
                t = timer.time(n)
                if i >= warmup:
                    samples.setdefault((name, n), []).append(t)
    med = {key: statistics.median(v) for key, v in samples.items()}
    step = med[("target", 1)]
    return {
        "context_tokens": len(context),
        "repeats": repeats,
        "target_step_ms": step * 1e3,
        "block_ms": {str(n - 1): med[("target", n)] * 1e3 for n in sizes if n > 1},
        "v_k": {str(n - 1): med[("target", n)] / step for n in sizes if n > 1},
        "drafter_step_ms": {name: med[(name, 1)] * 1e3 for name in drafter_models},
        "c": {name: med[(name, 1)] / step for name in drafter_models},
    }


def time_call(fn, repeats: int = 30) -> float:
    """Median seconds of a host-side call (e.g. a prompt-lookup proposal)."""
    out = []
    for _ in range(repeats):
        mx.synchronize()
        start = time.perf_counter()
        result = fn()
        if isinstance(result, mx.array):
            mx.eval(result)
        mx.synchronize()
        out.append(time.perf_counter() - start)
    return statistics.median(out)
