"""The speculative decoding loop, its instrument, and the plain baseline.

One loop serves every drafter and every state strategy. Each round is a
transaction (DESIGN.md):

    propose k drafts -> one target pass over [pending, d_1..d_k] -> verdict
    -> commit the accepted boundary in target and drafter -> emit d_1..d_j, t

Its command line, ``python -m mlx_specdec.generate``, lives in ``cli/generate.py``.
"""

from __future__ import annotations

if __name__ == "__main__":  # `python -m mlx_specdec.generate` is the command line in cli/generate.py
    from mlx_specdec.cli import run_module

    run_module("generate")

import inspect
import random
import time
from dataclasses import dataclass, field
from typing import Iterable, Iterator

import mlx.core as mx

from .adaptive import SCHEDULES, AdaptiveK, HeuristicK, for_pair as adaptive_for_pair
from .distributed import ranks_of, resolve_draft_on
from .drafters import as_drafter
from .errors import IncompatibleModelsError, SpecDecError
from .sampling import SamplingPolicy
from .state import make_sequence, model_context_window, model_vocab_size
from .verify import greedy_verdict, sampled_verdict


@dataclass
class SpecStats:
    """Counters of one generation.

    accepted counts accepted draft tokens that were emitted; generated counts
    every emitted token, corrections and bonuses included; target_passes counts
    verification passes (prompt prefill is not counted: it emits nothing).
    """

    target_passes: int = 0
    drafted: int = 0
    accepted: int = 0
    generated: int = 0
    accepted_per_round: list[int] = field(default_factory=list, repr=False)
    drafted_per_round: list[int] = field(default_factory=list, repr=False)

    @property
    def acceptance_rate(self) -> float:
        return self.accepted / self.drafted if self.drafted else 0.0

    @property
    def tokens_per_pass(self) -> float:
        return self.generated / self.target_passes if self.target_passes else 0.0

    def count_round(self, drafted: int, accepted: int, emitted: int) -> None:
        """One round: one target pass, `drafted` drafts of which `accepted` agreed, `emitted` tokens out
        (an EOS may cut the accepted drafts short: only the emitted ones count as accepted)."""
        self.target_passes += 1
        self.drafted += drafted
        self.accepted += min(accepted, emitted)
        self.generated += emitted
        self.accepted_per_round.append(accepted)
        self.drafted_per_round.append(drafted)

    def add(self, other: SpecStats) -> SpecStats:
        """Fold another generation's counters into these (totals over prompts); returns self."""
        for name in ("target_passes", "drafted", "accepted", "generated"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.accepted_per_round += other.accepted_per_round
        return self

    def as_dict(self) -> dict:
        return {
            "target_passes": self.target_passes,
            "drafted": self.drafted,
            "accepted": self.accepted,
            "generated": self.generated,
            "acceptance_rate": self.acceptance_rate,
            "tokens_per_pass": self.tokens_per_pass,
        }


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


def _state_arrays(*holders) -> list:
    """The arrays a target sequence or a drafter holds after a commit (for RoundProfile only)."""
    from .caches import cache_arrays

    out = []
    for obj in holders:
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


@dataclass
class Emission:
    """Tokens committed by one round, in order, each with what produced it:
    'draft' (an accepted draft), 'correction' (the target's token at the first
    rejection), 'bonus' (the target's token after full acceptance) or 'target'
    (a round without drafts)."""

    ids: list[int]
    kinds: list[str]


def _is_int(value) -> bool:
    import numpy as np

    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _prompt_list(prompt_ids) -> list[int]:
    """prompt_ids as a list of Python ints: a 1-D list, tuple, numpy or mx integer array.

    Anything else (a str, None, floats, bools, a 2-D batch) is refused by
    type: silently rounding a float id or treating True as 1 hides a bug.
    """
    import numpy as np

    if isinstance(prompt_ids, (mx.array, np.ndarray)):
        dtype = prompt_ids.dtype
        integer = mx.issubdtype(dtype, mx.integer) if isinstance(prompt_ids, mx.array) else \
            np.issubdtype(dtype, np.integer)
        if prompt_ids.ndim != 1 or not integer:
            raise SpecDecError(
                f"prompt_ids must be a 1-D integer array, got a {prompt_ids.ndim}-D {type(prompt_ids).__name__} "
                f"of {dtype}"
            )
        return [int(t) for t in prompt_ids.tolist()]
    if not isinstance(prompt_ids, (list, tuple)):
        raise SpecDecError(
            f"prompt_ids must be a list, tuple or 1-D integer array of token ids, got {type(prompt_ids).__name__}"
        )
    for t in prompt_ids:
        if not _is_int(t):
            raise SpecDecError(f"prompt_ids must hold integer token ids, got {t!r} ({type(t).__name__})")
    return [int(t) for t in prompt_ids]


def _check_request(model, prompt_ids, max_new_tokens, k=1, eos_id=None) -> list[int]:
    from ._platform import warn_slow_blas_once

    warn_slow_blas_once()  # a library user who imported mlx.core first gets the slow BLAS: say so once
    if k not in SCHEDULES and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise SpecDecError(f"k (draft tokens per round) must be an integer >= 1, 'auto' or 'heuristic', got {k!r}")
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 0:
        raise SpecDecError(f"max_new_tokens must be an integer >= 0, got {max_new_tokens!r}")
    prompt = _prompt_list(prompt_ids)
    if not prompt:
        raise SpecDecError("prompt is empty: at least one token id is needed to condition on")
    window = model_context_window(model)
    if window is not None and len(prompt) + max_new_tokens > window:
        if len(prompt) > window:
            raise SpecDecError(f"prompt has {len(prompt)} tokens, beyond the model's context window of {window}")
        raise SpecDecError(
            f"prompt ({len(prompt)} tokens) + max_new_tokens ({max_new_tokens}) exceeds the context window of {window}"
        )
    vocab = model_vocab_size(model)
    if vocab is not None and any(not 0 <= t < vocab for t in prompt):
        bad = next(t for t in prompt if not 0 <= t < vocab)
        raise SpecDecError(f"prompt token id {bad} is outside the vocabulary [0, {vocab})")
    _eos_set(eos_id, vocab)
    return prompt


def _eos_set(eos_id, vocab=None) -> frozenset[int]:
    """The end-of-sequence ids: None (none), one id, or an iterable of ids (a
    chat model ends a turn with e.g. <|im_end|> beside <|endoftext|>)."""
    if eos_id is None:
        return frozenset()
    many = not _is_int(eos_id) and not isinstance(eos_id, (str, bytes, bool, float)) and hasattr(eos_id, "__iter__")
    ids = list(eos_id) if many else [eos_id]
    where = f"[0, {vocab})" if vocab is not None else ">= 0"
    for t in ids:
        if not _is_int(t) or t < 0 or (vocab is not None and t >= vocab):
            raise SpecDecError(f"eos_id must be None or an integer token id in {where} (or a set of them), got {eos_id!r}")
    return frozenset(int(t) for t in ids)


def _seed_key(seed) -> mx.array:
    """A PRNG key from any Python int: reduced modulo 2**64 (negative and huge seeds included)."""
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    if not _is_int(seed):
        raise SpecDecError(f"seed must be an integer or None, got {seed!r} ({type(seed).__name__})")
    return mx.random.key(int(seed) % 2**64)


def speculative_stream(
    target,
    drafter,
    prompt_ids,
    max_new_tokens: int,
    *,
    k: int | str = 4,  # or "auto": each round picks its own; "heuristic": HF's schedule (mlx_specdec.adaptive)
    eos_id: int | Iterable[int] | None = None,  # one id or a set of them
    temperature: float = 0.0, top_k: int | None = None, top_p: float | None = None,  # the SamplingPolicy
    min_p: float | None = None,
    seed: int | None = None,
    strategy="auto",
    draft_on: str | None = None,  # a sharded target only: "root" or "every" (mlx_specdec.distributed)
    stats: SpecStats | None = None,
    on_commit=None,
    profile: RoundProfile | None = None,
) -> Iterator[Emission]:
    """Speculative decoding as a generator: yields one Emission per round.

    Fills `stats` (a SpecStats) as it goes. `on_commit(target_seq, drafter)`,
    when given, is called after every round's commit (tests use it to inspect
    the committed state at each boundary).

    A target loaded with ``load(..., sharding=...)`` over several processes runs
    on every rank (each rank calls this with the same arguments); rank 0 decides.
    `draft_on` says where the drafter runs: "root" (rank 0 only; its drafts reach
    the others inside the round's graph; the default for a model drafter, which
    other ranks may then pass as None) or "every" (each rank drafts for itself and
    the verdict carries every rank's drafts, checked equal; the default for MTP
    heads and prompt lookup, which are cheap and live on the target's output).

    `profile` (a RoundProfile), when given, times each phase of every round by synchronising at the phase
    boundaries: a profiled run is slower, so never time one.
    """
    policy = SamplingPolicy(temperature, top_k, top_p, min_p)
    prompt = _check_request(target, prompt_ids, max_new_tokens, k, eos_id)
    eos = _eos_set(eos_id)
    ranks = ranks_of(target)
    if ranks is not None:
        if k == "auto":
            raise SpecDecError("k='auto' is not available with a sharded target (each rank would time its own "
                               "rounds and pick its own k); pass a fixed k")
        draft_on = resolve_draft_on(draft_on, drafter)
        if not policy.greedy and seed is None:  # one key on every rank: rank 0 picks the seed
            seed = ranks.agree_int(random.SystemRandom().randrange(2**31))
    drafting = ranks is None or ranks.is_root or draft_on == "every"
    # A drafter runs k sequential one-token steps per round, where per-op dispatch
    # dominates: it gets the compiled step where the model supports it, under 'cache' too.
    drafter = as_drafter(drafter, "auto" if strategy in ("cache", "auto") else strategy) if drafting else None
    target_vocab, draft_vocab = model_vocab_size(target), getattr(drafter, "vocab_size", None)
    if target_vocab is not None and draft_vocab is not None and target_vocab != draft_vocab:
        raise IncompatibleModelsError(
            f"drafter vocabulary size {draft_vocab} differs from the target's {target_vocab}: token ids would not match"
        )
    stats = stats if stats is not None else SpecStats()
    target_seq = make_sequence(target, strategy)
    if hasattr(drafter, "bind"):  # drafters living on the target's trunk (MTP) read its passes
        drafter.bind(target, target_seq)
    key = None if policy.greedy else _seed_key(seed)

    target_seq.prefill(prompt)
    if drafting:
        drafter.prefill(prompt)
    produced = 0
    carried = None  # a k already chosen for the next round (by a run of plain steps that ended)
    # A round without drafts is a plain step, and a drafter that says so (its commit never reads the
    # target's passes) gets the plain loop's pipelined step for it: the next step is queued before the
    # host reads this one's token. A drafter that can tell whether it has anything to propose
    # (`would_propose`, e.g. prompt lookup) lets a run of plain steps look ahead one step whatever k is.
    # (Not under a sharded target: every rank must take the same path, and rank 0 alone may hold the drafter.)
    plain_steps_ok = ranks is None and getattr(drafter, "pipelines_plain_steps", False)
    look_ahead = plain_steps_ok and hasattr(drafter, "would_propose")
    trunk_rows = plain_steps_ok and getattr(target_seq, "capture_hidden", False)
    # The instruments inspect every boundary: with them, plain steps run one at a time.
    pipeline = on_commit is None and profile is None
    adaptive = None
    if k == "auto":  # an instrumented run's rounds are slower: it neither learns from nor teaches the next one
        adaptive = adaptive_for_pair(target, drafter, sampled=not policy.greedy) if pipeline else AdaptiveK()
    elif k == "heuristic":
        adaptive = HeuristicK()
    nothing = mx.array([], dtype=mx.int32)

    def capped(k_next: int, left: int) -> int:
        """A round's k within the tokens left (a round emits at most k + 1) and the block limit."""
        k_next = min(k_next, left - 1)
        limit = target_seq.block_limit()
        if limit is not None:  # e.g. the KV cache turns quantized at a position a block must not straddle
            k_next = max(0, min(k_next, limit - target_seq.pending.shape[0]))
        return k_next

    def queue_step() -> mx.array:
        """One plain step of the target, as plain_stream runs it: committed lazily, computing at once."""
        nonlocal key
        token, key = policy.step(target_seq.extend(nothing)[-1:], key)
        token = token.astype(mx.int32)
        target_seq.commit(1, token)
        mx.async_eval(token)
        return token

    def plain_steps(started: float):
        """Rounds without drafts as pipelined plain steps, until a round would draft; returns True at EOS."""
        nonlocal produced, carried
        if profile is not None:
            profile.mark("host")
        # A drafter on the target's trunk (an MTP head) commits from the hidden rows of the step that made
        # the token, which the step queued after it replaces in target_seq.hidden: each step keeps its own.
        token, rows = queue_step(), target_seq.hidden
        leave_with = None  # the k of the round that follows the step in flight, once the drafter has drafts
        while True:
            queued, queued_rows, k_next = None, None, None
            if pipeline and produced + 1 < max_new_tokens:
                if leave_with is not None:
                    k_next = leave_with
                else:
                    k_next = capped(adaptive.choose() if adaptive else k, max_new_tokens - produced - 1)
                    if k_next == 0 or look_ahead:
                        # the host reads this step's token while the next one computes
                        queued, queued_rows = queue_step(), target_seq.hidden
            tid = token.item()
            if profile is not None:
                profile.mark("verify")
            drafter.propose(0, policy, None)
            if trunk_rows:
                drafter.commit(0, tid, rows=rows)
            else:
                drafter.commit(0, tid)
            if profile is not None:
                profile.mark("commit", *_state_arrays(target_seq, drafter))
            if on_commit is not None:
                on_commit(target_seq, drafter)
            stats.count_round(0, 0, 1)
            produced += 1
            if adaptive is not None:
                # timed from the end of the step before: the queued step computes while the host is away
                now = time.perf_counter()
                adaptive.update(0, 0, now - started)
                started = now
            yield Emission([tid], ["target"])
            if tid in eos:
                return True
            if queued is None:
                carried = k_next
                return False
            token, rows = queued, queued_rows
            if k_next > 0 and drafter.would_propose():
                leave_with = k_next  # drafts again after the step in flight

    while produced < max_new_tokens:
        started = time.perf_counter()
        if profile is not None:
            profile.start()
        # Never draft past the cap: a round emits at most k_round + 1 tokens.
        k_round = carried if carried is not None else (adaptive.choose() if adaptive else k)
        carried = None
        k_round = capped(k_round, max_new_tokens - produced)
        if plain_steps_ok and (k_round == 0 or (look_ahead and not drafter.would_propose())):
            if (yield from plain_steps(started)):
                return
            continue
        draft_key = verify_key = None
        if key is not None:
            key, draft_key, verify_key = mx.random.split(key, 3)
        if profile is not None:
            profile.mark("host")
        if adaptive is not None and hasattr(drafter, "catch_up"):
            # After a run of plain steps: the drafter's catch-up is their debt, not this round's cost.
            drafter.catch_up()
            started = time.perf_counter()
        if drafting:
            drafts, draft_probs = drafter.propose(k_round, policy, draft_key)
        else:  # rank 0's drafts arrive in the agree below
            drafts, draft_probs = mx.zeros((k_round,), dtype=mx.int32), None
        own_drafts = drafts
        if ranks is not None and draft_on == "root":
            # Queued now, so on every rank this collective runs before the pass's own: a
            # pipeline stage's recv does not depend on the drafts and could overtake it.
            drafts = ranks.agree(drafts)
            mx.async_eval(drafts)
        k_round = drafts.shape[0]  # a drafter may propose fewer (e.g. an MTP head's depth)
        if profile is not None:
            profile.mark("draft", drafts, draft_probs)
        logits = target_seq.extend(drafts)  # the round's one target pass: k_round + 1 rows
        if profile is not None:
            profile.mark("verify", logits, target_seq.hidden)
        if policy.greedy or (ranks is not None and not ranks.is_root):
            # (Other ranks' verdicts are zeroed in decide: theirs only orders its collective after the pass.)
            accepted, token = greedy_verdict(drafts, logits)
        else:
            accepted, token = sampled_verdict(policy, drafts, logits, draft_probs, key=verify_key)
        accepted, token, draft_ids = _read_verdict(drafts, accepted, token, ranks, draft_on, own_drafts)
        if profile is not None:
            profile.mark("verdict")

        target_seq.commit(1 + accepted, mx.array([token], dtype=mx.int32))
        if drafting:
            drafter.commit(accepted, token)
        if profile is not None:
            profile.mark("commit", *_state_arrays(target_seq, drafter))
        if on_commit is not None:
            on_commit(target_seq, drafter)

        emission = _round_emission(draft_ids, accepted, token, k_round, eos)
        stats.count_round(k_round, accepted, len(emission.ids))
        produced += len(emission.ids)
        if adaptive is not None:  # the round's wall time, up to the hand-over to the caller
            adaptive.update(k_round, accepted, time.perf_counter() - started)
        yield emission
        if emission.ids[-1] in eos:
            return


def _read_verdict(drafts, accepted, token, ranks, draft_on, own_drafts) -> tuple[int, int, list[int]]:
    """The round's single sync point: drafting, verification and the verdict run as one lazy
    graph, and the host reads (accepted, token, the draft ids) to commit and emit. Under a sharded
    target every rank reads rank 0's verdict, whatever its own logits say."""
    if ranks is None:
        mx.eval(drafts, accepted, token)
        return accepted.item(), token.item(), drafts.tolist()
    verdict = ranks.decide(accepted, token, own_drafts if draft_on == "every" else None)
    mx.eval(drafts, verdict)
    accepted, token, *slots = verdict.tolist()
    if draft_on == "every":  # each rank drafted for itself: the verdict carries them all, checked equal
        k_round = drafts.shape[0]
        ranks.check_drafts(slots, k_round)
        return accepted, token, slots[:k_round]
    return accepted, token, drafts.tolist()


def _round_emission(draft_ids: list[int], accepted: int, token: int, k_round: int, eos: frozenset) -> Emission:
    """The accepted drafts, then the target's own token (a correction, or the bonus after a full
    acceptance); cut after the first EOS of the set."""
    last_kind = "target" if k_round == 0 else ("bonus" if accepted == k_round else "correction")
    ids, kinds = draft_ids[:accepted] + [token], ["draft"] * accepted + [last_kind]
    cut = next((i + 1 for i, t in enumerate(ids) if t in eos), None)
    return Emission(ids[:cut], kinds[:cut]) if cut is not None else Emission(ids, kinds)


def speculative_generate(target, drafter, prompt_ids, max_new_tokens: int, **options) -> tuple[list[int], SpecStats]:
    """Generate with a drafter; returns ``(new_ids, stats)``.

    Takes `speculative_stream`'s keywords but its instruments (`stats`,
    `on_commit`, `profile`): k=4, eos_id=None, temperature=0.0, top_k=None, top_p=None,
    min_p=None, seed=None, strategy="auto"; `inspect.signature` and `help()` show them.
    `drafter` is a model (wrapped as a ModelDrafter) or a Drafter object.
    temperature 0 verifies greedily (output equals `greedy_generate` token for
    token); temperature > 0 uses speculative sampling (output distributed as
    the target's own sampling under the same temperature/top-k/top-p policy).
    `strategy` chooses the committed-state strategy: 'auto' (the default: the
    compiled step over fixed-size buffers where a probe shows it matches the
    model's own cached step, mlx-lm's caches otherwise), 'cache' (mlx-lm's
    caches for the target; the drafter still compiles where it can), a
    recurrent rollback ('replay', 'refeed', 'positions'), 'compiled' or
    'recompute' (the reference oracle).
    """
    _GENERATE_SIGNATURE.bind(target, drafter, prompt_ids, max_new_tokens, **options)  # a wrong keyword: TypeError
    stats = SpecStats()
    new_ids: list[int] = []
    for emission in speculative_stream(target, drafter, prompt_ids, max_new_tokens, stats=stats, **options):
        new_ids.extend(emission.ids)
    return new_ids, stats


# One list of options, speculative_stream's: speculative_generate shows it without the instruments.
_GENERATE_SIGNATURE = inspect.signature(speculative_stream)
_GENERATE_SIGNATURE = _GENERATE_SIGNATURE.replace(
    parameters=[p for name, p in _GENERATE_SIGNATURE.parameters.items()
                if name not in ("stats", "on_commit", "profile")],
    return_annotation="tuple[list[int], SpecStats]",
)
speculative_generate.__signature__ = _GENERATE_SIGNATURE


def plain_stream(
    model,
    prompt_ids,
    max_new_tokens: int,
    *,
    eos_id: int | Iterable[int] | None = None,  # one id or a set of them
    temperature: float = 0.0, top_k: int | None = None, top_p: float | None = None,  # the SamplingPolicy
    min_p: float | None = None,
    seed: int | None = None,
    strategy="auto",
) -> Iterator[int]:
    """Plain decoding, one target pass per token, yielding ids (the baseline).

    The next step is queued with `mx.async_eval` before the current token is
    read on the host, so the baseline overlaps host and device work the way
    mlx-lm's own generator does: it is a fair baseline, not a strawman.
    """
    policy = SamplingPolicy(temperature, top_k, top_p, min_p)
    prompt = _check_request(model, prompt_ids, max_new_tokens, eos_id=eos_id)
    eos = _eos_set(eos_id)
    if max_new_tokens == 0:
        return
    ranks = ranks_of(model)
    if ranks is not None and not policy.greedy and seed is None:  # one key on every rank
        seed = ranks.agree_int(random.SystemRandom().randrange(2**31))
    key = None if policy.greedy else _seed_key(seed)
    seq = make_sequence(model, strategy)
    seq.prefill(prompt)
    nothing = mx.array([], dtype=mx.int32)

    def step():
        nonlocal key
        token, key = policy.step(seq.extend(nothing)[-1:], key)
        token = token.astype(mx.int32)
        if ranks is not None:  # rank 0's token on every rank, inside the step's graph
            token = ranks.agree(token)
        seq.commit(1, token)
        mx.async_eval(token)
        return token

    token = step()
    for produced in range(max_new_tokens):
        following = step() if produced + 1 < max_new_tokens else None
        tid = token.item()
        yield tid
        if tid in eos:
            return
        token = following


def greedy_stream(model, prompt_ids, max_new_tokens: int, *, eos_id=None, strategy="auto") -> Iterator[int]:
    """Plain greedy decoding as a generator of ids."""
    return plain_stream(model, prompt_ids, max_new_tokens, eos_id=eos_id, strategy=strategy)


def greedy_generate(model, prompt_ids, max_new_tokens: int, *, eos_id=None, strategy="auto") -> list[int]:
    """The target's plain greedy continuation (new ids only): baseline and oracle."""
    return list(greedy_stream(model, prompt_ids, max_new_tokens, eos_id=eos_id, strategy=strategy))


def draft_greedy(drafter, ctx_ids, k: int) -> list[int]:
    """k greedy draft tokens from a drafter model given the context (no cache)."""
    ids = _check_request(drafter, ctx_ids, k)
    out: list[int] = []
    for _ in range(k):
        nxt = mx.argmax(drafter(mx.array(ids + out)[None])[0, -1]).item()
        out.append(nxt)
    return out


def encode_prompt(tokenizer, text: str) -> list[int]:
    """Token ids of a prompt; text that cannot be encoded gets one line, not a tokenizer's traceback."""
    if not isinstance(text, str):
        raise SpecDecError(f"prompt must be text, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:  # invalid UTF-8 bytes on the command line arrive as lone surrogates
        raise SpecDecError(
            f"prompt is not valid UTF-8 text: {text[e.start:e.end]!r} at character {e.start}"
        ) from None
    try:
        if hasattr(tokenizer, "bos_id"):  # StoryTokenizer: models were trained with BOS
            ids = tokenizer.encode(text, bos=True)
        else:
            ids = list(tokenizer.encode(text))
    except SpecDecError:
        raise
    except Exception as e:  # noqa: BLE001 - sentencepiece and HF tokenizers raise their own types
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise SpecDecError(f"prompt cannot be encoded by the tokenizer ({first})") from None
    if not ids:
        raise SpecDecError(f"prompt {text!r} encodes to no tokens")
    return ids
