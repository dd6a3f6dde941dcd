"""The speculative decoding loop, and the plain baseline.

One loop serves every drafter and every state strategy. Each round is a
transaction (docs/DESIGN.md):

    choose k -> propose k drafts -> one target pass over [pending, d_1..d_k] -> verdict
    -> commit the accepted boundary in target and drafter -> emit d_1..d_j, t

Every other concern has a unit of its own, which the loop calls at its seams:
the choice of k (`schedules`: FixedK, AdaptiveK, HeuristicK), where the verdict
comes from (`verdicts`: this process, or rank 0 of a sharded target), the
rounds without drafts run as pipelined plain steps (`plain_steps`), and the
instruments (`instruments`: the round profile and `on_commit`). Its command
line, ``python -m mlx_specdec.generate``, lives in ``cli/generate.py``.
"""

from __future__ import annotations

if __name__ == "__main__":  # `python -m mlx_specdec.generate` is the command line in cli/generate.py
    from mlx_specdec.cli import run_module

    run_module("generate")

import inspect
import random
import time
from typing import Iterable, Iterator

import mlx.core as mx

from .schedules import schedule_for
from .distributed import ranks_of
from .drafters import as_drafter, is_drafter
from .errors import IncompatibleModelsError, SpecDecError
from .instruments import PHASES, Instruments, RoundProfile  # noqa: F401  (PHASES: part of this module's face)
from .plain_steps import PlainSteps, Run
from .requests import check_request, eos_set, seed_key
from .rounds import Emission, SpecStats, round_emission
from .sampling import SamplingPolicy
from .state import make_sequence, model_vocab_size
from .traces import traces
from .verdicts import verdicts_for


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
    prompt = check_request(target, prompt_ids, max_new_tokens, k, eos_id)
    ranks = ranks_of(target)
    verdicts, seed = verdicts_for(ranks, k, policy, draft_on, drafter, seed)
    shown = drafter if is_drafter(drafter) else None  # what on_commit sees: the caller's own drafter object
    # A drafter runs k sequential one-token steps per round, where per-op dispatch
    # dominates: it gets the compiled step where the model supports it, under 'cache' too.
    drafter = as_drafter(drafter, "auto" if strategy in ("cache", "auto") else strategy) if verdicts.drafting else None
    target_vocab, draft_vocab = model_vocab_size(target), getattr(drafter, "vocab_size", None)
    if target_vocab is not None and draft_vocab is not None and target_vocab != draft_vocab:
        raise IncompatibleModelsError(
            f"drafter vocabulary size {draft_vocab} differs from the target's {target_vocab}: token ids would not match"
        )
    target_seq = make_sequence(target, strategy)
    if drafter is not None:
        if drafter.feature_layers:  # a feature drafter: its layers' outputs come from every pass, prefill too
            if drafter.reads_hidden:
                raise SpecDecError("a drafter reads either the final hidden rows or chosen layers' features, not both")
            target_seq.capture_features(drafter.feature_layers)
        drafter.bind(target, target_seq)
    instruments = Instruments(profile, on_commit, shown)
    run = Run(target_seq, drafter, policy, schedule_for(k, target, drafter, sampled=not policy.greedy,
                                                        quiet=instruments.quiet),
              instruments, stats if stats is not None else SpecStats(), eos_set(eos_id), max_new_tokens,
              None if policy.greedy else seed_key(seed))
    plain = PlainSteps(run, sharded=ranks is not None)

    began = time.perf_counter()
    target_seq.prefill(prompt)
    if drafter is not None and run.schedule.learns and drafter.defers_prefill:
        run.schedule.price_entry(time.perf_counter() - began, len(prompt))  # plain steps first, for a while
    if drafter is not None and run.schedule.learns and run.schedule.wants_step_cost:
        # k="auto" knowing nothing yet: one drafter step against one target step, before any round (after
        # the prefill, which pays the process's first-call costs that would otherwise weigh on one side)
        run.schedule.step_cost_ratio(drafter.step_cost_ratio(target))
    if drafter is not None:
        drafter.prefill(prompt)
    try:
        while run.produced < max_new_tokens:
            started, traced_before = time.perf_counter(), traces()
            instruments.start()
            # Never draft past the cap: a round emits at most k_round + 1 tokens.
            k_round = run.carried if run.carried is not None else run.schedule.choose()
            run.carried = None
            k_round = run.capped(k_round, max_new_tokens - run.produced)
            if plain.take(k_round):
                steps = plain.steps(started)
                while True:
                    try:
                        tid = next(steps)
                    except StopIteration as end:
                        if end.value:  # EOS
                            return
                        break
                    yield Emission([tid], ["target"])
                continue
            draft_key = verify_key = None
            if run.key is not None:
                run.key, draft_key, verify_key = mx.random.split(run.key, 3)
            instruments.mark("host")
            if run.schedule.learns and drafter is not None:
                # After a run of plain steps: the drafter's catch-up is their debt, not this round's cost,
                # but what looking for drafting's profit costs: the schedule's loss budget pays it. (Not the
                # first: a model drafter's deferred prefill and set-up, the price of trying it at all, which
                # on a tiny pair is several plain steps and would leave no budget to find its profit.)
                fed = drafter.catch_up()
                now = time.perf_counter()
                run.schedule.charge(now - started, fed, budget=run.entered)
                run.entered = True
                started, traced_before = now, traces()
            if drafter is not None:
                drafts, draft_probs = drafter.propose(k_round, policy, draft_key)
            else:  # rank 0's drafts arrive in the share below
                drafts, draft_probs = mx.zeros((k_round,), dtype=mx.int32), None
            drafts = verdicts.share(drafts)
            k_round = drafts.shape[0]  # a drafter may propose fewer (e.g. an MTP head's depth)
            instruments.mark("draft", drafts, draft_probs)
            logits = target_seq.extend(drafts)  # the round's one target pass: k_round + 1 rows
            instruments.mark("verify", logits, target_seq.hidden)
            accepted, token, draft_ids = verdicts.decide(policy, drafts, logits, draft_probs, verify_key)
            instruments.mark("verdict")

            target_seq.commit(1 + accepted, mx.array([token], dtype=mx.int32))
            if drafter is not None:
                drafter.commit(accepted, token)
            instruments.committed(target_seq, drafter)

            emission = round_emission(draft_ids, accepted, token, k_round, run.eos)
            run.stats.count_round(k_round, accepted, len(emission.ids))
            run.produced += len(emission.ids)
            # timed up to the hand-over to the caller; a round that traced a compiled step is no measure of its kind
            run.schedule.update(k_round, accepted, time.perf_counter() - started, traced=traces() != traced_before)
            yield emission
            if emission.ids[-1] in run.eos:
                return
    finally:  # k="auto" keeps what it learned (the calibration file)
        run.schedule.finish()


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
    prompt = check_request(model, prompt_ids, max_new_tokens, eos_id=eos_id)
    eos = eos_set(eos_id)
    if max_new_tokens == 0:
        return
    ranks = ranks_of(model)
    if ranks is not None and not policy.greedy and seed is None:  # one key on every rank
        seed = ranks.agree_int(random.SystemRandom().randrange(2**31))
    key = None if policy.greedy else seed_key(seed)
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
    ids = check_request(drafter, ctx_ids, k)
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
