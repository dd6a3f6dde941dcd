"""The speculative decoding loop, its instrument, and the plain baseline.

One loop serves every drafter and every state strategy. Each round is a
transaction (DESIGN.md):

    propose k drafts -> one target pass over [pending, d_1..d_k] -> verdict
    -> commit the accepted boundary in target and drafter -> emit d_1..d_j, t

Run ``python -m mlx_specdec.generate --help`` for the command line.
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C while MLX loads: one line and exit 130, not a traceback
    from mlx_specdec.cli_support import quiet_interrupts

    quiet_interrupts()

import random
from dataclasses import dataclass, field
from typing import Iterator

import mlx.core as mx

from .drafters import as_drafter
from .errors import IncompatibleModelsError, SpecDecError
from .sampling import SamplingPolicy
from .state import make_sequence, model_context_window, model_vocab_size
from .verify import greedy_verdict, speculative_verdict


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

    @property
    def acceptance_rate(self) -> float:
        return self.accepted / self.drafted if self.drafted else 0.0

    @property
    def tokens_per_pass(self) -> float:
        return self.generated / self.target_passes if self.target_passes else 0.0

    def as_dict(self) -> dict:
        return {
            "target_passes": self.target_passes,
            "drafted": self.drafted,
            "accepted": self.accepted,
            "generated": self.generated,
            "acceptance_rate": self.acceptance_rate,
            "tokens_per_pass": self.tokens_per_pass,
        }


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
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise SpecDecError(f"k (draft tokens per round) must be an integer >= 1, got {k!r}")
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
    if eos_id is not None:
        if not _is_int(eos_id) or eos_id < 0 or (vocab is not None and eos_id >= vocab):
            where = f"[0, {vocab})" if vocab is not None else ">= 0"
            raise SpecDecError(f"eos_id must be None or an integer token id in {where}, got {eos_id!r}")
    return prompt


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
    k: int = 4,
    eos_id: int | None = None,
    temperature: float = 0.0,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int | None = None,
    strategy="cache",
    stats: SpecStats | None = None,
    on_commit=None,
) -> Iterator[Emission]:
    """Speculative decoding as a generator: yields one Emission per round.

    Fills `stats` (a SpecStats) as it goes. `on_commit(target_seq, drafter)`,
    when given, is called after every round's commit (tests use it to inspect
    the committed state at each boundary).
    """
    policy = SamplingPolicy(temperature, top_k, top_p)
    prompt = _check_request(target, prompt_ids, max_new_tokens, k, eos_id)
    # A drafter runs k sequential one-token steps per round, where per-op dispatch
    # dominates: with the default strategy it gets the compiled step when the
    # model supports it (the target's block pass gains little from compiling).
    drafter = as_drafter(drafter, "auto" if strategy == "cache" else strategy)
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
    drafter.prefill(prompt)
    produced = 0
    while produced < max_new_tokens:
        # Never draft past the cap: a round emits at most k_round + 1 tokens.
        k_round = min(k, max_new_tokens - produced - 1)
        draft_key = verify_key = None
        if key is not None:
            key, draft_key, verify_key = mx.random.split(key, 3)
        drafts, draft_probs = drafter.propose(k_round, policy, draft_key)
        k_round = drafts.shape[0]  # a drafter may propose fewer (e.g. an MTP head's depth)
        logits = target_seq.extend(drafts)  # the round's one target pass: k_round + 1 rows
        if policy.greedy:
            accepted, token = greedy_verdict(drafts, logits)
        else:
            accepted, token = speculative_verdict(drafts, policy.probs(logits), draft_probs, key=verify_key)
        # The round's single sync point: drafting, verification and the verdict
        # run as one lazy graph; the host needs the verdict to commit and emit.
        mx.eval(drafts, accepted, token)
        accepted, token = accepted.item(), token.item()
        draft_ids = drafts.tolist()

        target_seq.commit(1 + accepted, mx.array([token], dtype=mx.int32))
        drafter.commit(accepted, token)
        if on_commit is not None:
            on_commit(target_seq, drafter)

        last_kind = "target" if k_round == 0 else ("bonus" if accepted == k_round else "correction")
        ids = draft_ids[:accepted] + [token]
        kinds = ["draft"] * accepted + [last_kind]
        if eos_id is not None and eos_id in ids:
            cut = ids.index(eos_id) + 1  # EOS is emitted, nothing after it
            ids, kinds = ids[:cut], kinds[:cut]
        emitted_drafts = min(accepted, len(ids))
        stats.target_passes += 1
        stats.drafted += k_round
        stats.accepted += emitted_drafts
        stats.generated += len(ids)
        stats.accepted_per_round.append(accepted)
        produced += len(ids)
        yield Emission(ids, kinds)
        if eos_id is not None and ids[-1] == eos_id:
            return


def speculative_generate(
    target,
    drafter,
    prompt_ids,
    max_new_tokens: int,
    *,
    k: int = 4,
    eos_id: int | None = None,
    temperature: float = 0.0,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int | None = None,
    strategy="cache",
) -> tuple[list[int], SpecStats]:
    """Generate with a drafter; returns ``(new_ids, stats)``.

    `drafter` is a model (wrapped as a ModelDrafter) or a Drafter object.
    temperature 0 verifies greedily (output equals `greedy_generate` token for
    token); temperature > 0 uses speculative sampling (output distributed as
    the target's own sampling under the same temperature/top-k/top-p policy).
    `strategy` chooses the committed-state strategy: 'cache' (the default:
    mlx-lm's KV cache for the target, the compiled step for a model drafter
    where it works), 'compiled', 'auto' or 'recompute' (the reference oracle).
    """
    stats = SpecStats()
    new_ids: list[int] = []
    for emission in speculative_stream(
        target, drafter, prompt_ids, max_new_tokens, k=k, eos_id=eos_id, temperature=temperature,
        top_k=top_k, top_p=top_p, seed=seed, strategy=strategy, stats=stats,
    ):
        new_ids.extend(emission.ids)
    return new_ids, stats


def plain_stream(
    model,
    prompt_ids,
    max_new_tokens: int,
    *,
    eos_id: int | None = None,
    temperature: float = 0.0,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int | None = None,
    strategy="cache",
) -> Iterator[int]:
    """Plain decoding, one target pass per token, yielding ids (the baseline).

    The next step is queued with `mx.async_eval` before the current token is
    read on the host, so the baseline overlaps host and device work the way
    mlx-lm's own generator does: it is a fair baseline, not a strawman.
    """
    policy = SamplingPolicy(temperature, top_k, top_p)
    prompt = _check_request(model, prompt_ids, max_new_tokens, eos_id=eos_id)
    if max_new_tokens == 0:
        return
    key = None if policy.greedy else _seed_key(seed)
    seq = make_sequence(model, strategy)
    seq.prefill(prompt)
    nothing = mx.array([], dtype=mx.int32)

    def step():
        nonlocal key
        step_key = None
        if key is not None:
            key, step_key = mx.random.split(key)
        token = policy.pick(seq.extend(nothing)[-1:], step_key)[0].astype(mx.int32)
        seq.commit(1, token)
        mx.async_eval(token)
        return token

    token = step()
    for produced in range(max_new_tokens):
        following = step() if produced + 1 < max_new_tokens else None
        tid = token.item()
        yield tid
        if tid == eos_id:
            return
        token = following


def greedy_stream(model, prompt_ids, max_new_tokens: int, *, eos_id=None, strategy="cache") -> Iterator[int]:
    """Plain greedy decoding as a generator of ids."""
    return plain_stream(model, prompt_ids, max_new_tokens, eos_id=eos_id, strategy=strategy)


def greedy_generate(model, prompt_ids, max_new_tokens: int, *, eos_id=None, strategy="cache") -> list[int]:
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


# ---------------------------------------------------------------------------
# Command line: python -m mlx_specdec.generate
# ---------------------------------------------------------------------------


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


def _parser():
    from .cli_support import Parser, number

    finite = number(float)
    p = Parser(
        prog="python -m mlx_specdec.generate",
        description="Lossless speculative decoding with MLX. Defaults to the shipped StoryLM pair (1M drafts for 5M).",
    )
    p.add_argument("--model", help="target: a model-store folder, an mlx-lm folder or a hub id (default: storylm-5m)")
    p.add_argument(
        "--draft-model",
        help="drafter: a model sharing the target's tokenizer, an MTP head folder (e.g. storylm-5m-mtp), "
        "or 'prompt-lookup' (default: storylm-1m with the default target)",
    )
    p.add_argument("--no-draft", action="store_true", help="plain decoding of the target, no speculation")
    p.add_argument("-k", "--num-draft-tokens", type=int, default=4, help="draft tokens per round (default 4)")
    p.add_argument("--prompt", default="Once upon a time", help="prompt text")
    p.add_argument("--max-tokens", type=int, default=200, help="exact cap on generated tokens (default 200)")
    p.add_argument("--temp", type=finite, default=0.0, help="sampling temperature; 0 = greedy (default)")
    p.add_argument("--top-p", type=finite, default=None, help="nucleus sampling mass in (0, 1]")
    p.add_argument("--top-k", type=int, default=None, help="sample among the k most likely tokens")
    p.add_argument("--seed", type=int, default=None, help="random seed for sampling (any integer)")
    p.add_argument("--strategy", default="cache",
                   choices=["cache", "replay", "refeed", "positions", "compiled", "auto", "recompute"],
                   help="committed-state strategy (default cache: each layer's cache rolls back by its own rule, "
                        "recurrent layers by replay; compiled drafter steps where they apply). replay, refeed and "
                        "positions pick how recurrent layers are rebuilt")
    p.add_argument("--compare", action="store_true", help="also run plain decoding of the target and report the speedup")
    p.add_argument("--json", action="store_true", help="print one JSON record instead of streaming text")
    return p


def _timed(stream, on_item=None):
    """Drain a stream, timing it; every item has been synchronised by the loop itself."""
    import time

    items = []
    start = time.perf_counter()
    try:
        for item in stream:
            items.append(item)
            if on_item is not None:
                on_item(item)
    except KeyboardInterrupt:
        return items, time.perf_counter() - start, True
    mx.synchronize()
    return items, time.perf_counter() - start, False


def json_record(record: dict) -> str:
    """One line of strict JSON: a non-finite float (a rate over zero seconds) becomes null."""
    import json
    import math

    def finite(value):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: finite(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [finite(v) for v in value]
        return value

    return json.dumps(finite(record), allow_nan=False)


def main(argv=None) -> int:
    from .cli_support import run_main

    args = _parser().parse_args(argv)
    return run_main(_run, args, json_errors=args.json)


def _load_drafter(name: str, target, tokenizer, target_name: str):
    """A drafter by name: 'prompt-lookup', an MTP head folder (drafts from the
    target's own trunk), or a model sharing the target's tokenizer."""
    from pathlib import Path

    from .drafters import PromptLookupDrafter
    from .loading import check_pair, load, resolve_model_path

    if name == "prompt-lookup":
        return PromptLookupDrafter()
    path = resolve_model_path(name)
    if path is not None and (Path(path) / "head.safetensors").is_file():
        from .mtp import MTPDrafter, load_head

        return MTPDrafter(load_head(path, target, tokenizer))
    drafter, draft_tok = load(name)
    check_pair(tokenizer, draft_tok, target_name, name)
    return drafter


def _run(args) -> int:
    import sys

    from .console import LEGEND, TokenStream, print_summary
    from .loading import DEFAULT_DRAFTER, DEFAULT_TARGET, load

    policy = SamplingPolicy(args.temp, args.top_k, args.top_p)  # validate before loading anything
    k = args.num_draft_tokens
    if k < 1:
        raise SpecDecError(f"--num-draft-tokens must be >= 1, got {k}")
    if args.max_tokens < 0:
        raise SpecDecError(f"--max-tokens must be >= 0, got {args.max_tokens}")
    if not args.prompt:
        raise SpecDecError("--prompt is empty")
    target_name = args.model or DEFAULT_TARGET
    draft_name = None
    if not args.no_draft:
        draft_name = args.draft_model or (DEFAULT_DRAFTER if args.model is None else None)

    target, tokenizer = load(target_name)
    drafter = _load_drafter(draft_name, target, tokenizer, target_name) if draft_name is not None else None
    prompt = encode_prompt(tokenizer, args.prompt)
    eos_id = getattr(tokenizer, "eos_token_id", None)
    sampling = dict(temperature=policy.temperature, top_k=policy.top_k, top_p=policy.top_p, seed=args.seed)

    def run_plain():
        return plain_stream(target, prompt, args.max_tokens, eos_id=eos_id, strategy=args.strategy, **sampling)

    def run_spec(stats):
        return speculative_stream(
            target, drafter, prompt, args.max_tokens, k=k, eos_id=eos_id, strategy=args.strategy,
            stats=stats, **sampling,
        )

    if args.compare and drafter is not None:
        # Warm both paths up (allocations, compiled traces for each block length)
        # so neither pays first-call costs inside the timed run.
        warm = min(64, args.max_tokens)
        list(plain_stream(target, prompt, warm, strategy=args.strategy))
        list(speculative_stream(target, drafter, prompt, warm, k=k, strategy=args.strategy))

    show = not args.json
    view = TokenStream(tokenizer, prompt=prompt, legend=LEGEND if drafter is not None else None) if show else None

    stats = SpecStats()
    if drafter is not None:
        emissions, seconds, interrupted = _timed(run_spec(stats), (lambda e: view.write(e.ids, e.kinds)) if show else None)
        new_ids = [t for e in emissions for t in e.ids]
    else:
        new_ids, seconds, interrupted = _timed(run_plain(), (lambda t: view.write([t])) if show else None)
        stats.generated = stats.target_passes = len(new_ids)
    if show:
        view.finish()

    record = {
        "model": target_name,
        "draft_model": draft_name,
        "k": k if drafter is not None else None,
        "temperature": policy.temperature,
        "prompt": args.prompt,
        "prompt_tokens": len(prompt),
        "ids": new_ids,
        "text": tokenizer.decode(new_ids),
        "stats": stats.as_dict(),
        "seconds": seconds,
        "tokens_per_s": len(new_ids) / seconds if seconds > 0 else 0.0,
        "interrupted": interrupted,
    }
    if args.compare and drafter is not None and not interrupted:
        plain_ids, plain_seconds, interrupted = _timed(run_plain())
        record["interrupted"] = interrupted
    if args.compare and drafter is not None and not interrupted:
        # Only a finished baseline gives a verdict: a cut-short one would differ falsely.
        record["compare"] = {
            "plain_tokens_per_s": len(plain_ids) / plain_seconds if plain_seconds > 0 else 0.0,
            "speedup": (len(new_ids) / seconds) / (len(plain_ids) / plain_seconds) if plain_seconds > 0 and seconds > 0 else 0.0,
            "identical": plain_ids == new_ids if policy.greedy else None,
        }

    if args.json:
        print(json_record(record))
    else:
        rows = [("generated", f"{len(new_ids)} tokens in {seconds:.2f} s ({record['tokens_per_s']:.1f} tokens/s)")]
        if drafter is not None:
            rows += [
                ("target passes", str(stats.target_passes)),
                ("drafted / accepted", f"{stats.drafted} / {stats.accepted}"),
                ("acceptance rate", f"{stats.acceptance_rate:.1%}"),
                ("tokens per target pass", f"{stats.tokens_per_pass:.2f}"),
            ]
        if "compare" in record:
            c = record["compare"]
            rows.append(("plain decoding", f"{c['plain_tokens_per_s']:.1f} tokens/s"))
            rows.append(("speedup", f"{c['speedup']:.2f}x"))
            if c["identical"] is not None:
                rows.append(("identical to plain greedy", "yes" if c["identical"] else "NO"))
        title = f"{draft_name} drafting for {target_name}, k={k}" if drafter is not None else f"{target_name}, plain decoding"
        if interrupted:
            title += " (interrupted)"
        print_summary(rows, title)
        if "compare" in record and record["compare"]["identical"] is False:
            print("error: speculative output differs from plain greedy output", file=sys.stderr)
            return 1
    return 130 if interrupted else 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
