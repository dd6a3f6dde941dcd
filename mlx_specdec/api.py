"""mlx-lm's generation API over the speculative loop: switch by changing an import.

    from mlx_specdec import load, stream_generate, generate   # was: from mlx_lm import ...

    model, tokenizer = load("mlx-community/Qwen3-0.6B-4bit")
    draft, _ = load("mlx-community/Qwen3-0.6B-4bit")
    for r in stream_generate(model, tokenizer, "Hello", max_tokens=64, draft_model=draft):
        print(r.text, end="", flush=True)

`stream_generate` yields one `GenerationResponse` per token with mlx-lm's
fields (text segment, token, from_draft, prompt/generation tokens-per-second,
peak memory, finish_reason) plus ours (`kind`: draft, correction, bonus or
target; `stats`: the live `SpecStats`). As in mlx-lm, generation stops on every
id in `tokenizer.eos_token_ids`; the end-of-sequence token is reported in the
last response (finish_reason "stop") and adds no text.

Sampling is exact speculative sampling, so the policy must be known as a
distribution: pass `temp` / `top_p` / `top_k` / `min_p` (or a `SamplingPolicy`
as `sampler`); an opaque mlx-lm sampler function is refused, except the greedy one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterator

import mlx.core as mx

from .errors import SpecDecError
from .generate import SpecStats, encode_prompt, plain_stream, speculative_stream
from .sampling import SamplingPolicy
from .state import DEFAULT_QUANTIZED_KV_START


@dataclass
class GenerationResponse:
    """One generated token, as mlx-lm's GenerationResponse, plus the round's view."""

    text: str
    token: int
    from_draft: bool
    prompt_tokens: int
    prompt_tps: float
    generation_tokens: int
    generation_tps: float
    peak_memory: float
    finish_reason: str | None = None
    logprobs: mx.array | None = None  # not computed: the loop verifies blocks, not tokens
    kind: str = "target"  # draft, correction, bonus or target
    stats: SpecStats | None = None


class _Detokenizer:
    """Incremental text for tokenizers without mlx-lm's streaming detokenizer;
    ``last_segment`` is the text not read yet, as in mlx-lm."""

    def __init__(self, tokenizer):
        self.tokenizer, self.ids, self.text, self._read = tokenizer, [], "", 0

    def add_token(self, token: int) -> None:
        self.ids.append(token)
        text = self.tokenizer.decode(self.ids)
        if not text.endswith("\ufffd"):  # an incomplete UTF-8 sequence waits for the next token
            self.text = text

    def finalize(self) -> None:
        self.text = self.tokenizer.decode(self.ids)

    @property
    def last_segment(self) -> str:
        segment, self._read = self.text[self._read:], len(self.text)
        return segment


def _detokenizer(tokenizer):
    detok = getattr(tokenizer, "detokenizer", None)
    if detok is not None:
        detok.reset()
        return detok
    return _Detokenizer(tokenizer)


def eos_ids(tokenizer) -> set[int]:
    """Every id mlx-lm stops on: ``tokenizer.eos_token_ids``, else ``eos_token_id``."""
    ids = getattr(tokenizer, "eos_token_ids", None)
    if ids is None:
        one = getattr(tokenizer, "eos_token_id", None)
        ids = [] if one is None else [one]
    return {int(i) for i in ids}


def prompt_ids(tokenizer, prompt) -> list[int]:
    """Token ids of a text prompt (encoded as mlx-lm does) or the ids given."""
    if isinstance(prompt, str):
        if hasattr(tokenizer, "bos_id"):  # StoryTokenizer: trained with BOS
            return encode_prompt(tokenizer, prompt)
        bos = getattr(tokenizer, "bos_token", None)
        # mlx-lm's rule: add special tokens unless the text already starts with BOS
        # (a chat template's output does).
        add_special = bos is None or not prompt.startswith(bos)
        try:
            ids = list(tokenizer.encode(prompt, add_special_tokens=add_special))
        except TypeError:
            ids = list(tokenizer.encode(prompt))
        if not ids:
            raise SpecDecError(f"prompt {prompt!r} encodes to no tokens")
        return ids
    if isinstance(prompt, mx.array):
        return [int(t) for t in prompt.reshape(-1).tolist()] if prompt.ndim <= 1 else prompt
    return prompt  # a list of ids: the loop validates it


def _policy(sampler, temp, top_p, top_k, min_p) -> SamplingPolicy:
    if isinstance(sampler, SamplingPolicy):
        return sampler
    if sampler is not None:
        from mlx_lm.sample_utils import greedy_sampler

        if sampler is not greedy_sampler and getattr(sampler, "__name__", "") != "greedy_sampler":
            raise SpecDecError(
                "sampler: speculative sampling needs the policy as a distribution; pass temp=, top_p=, top_k=, "
                "min_p= (or a mlx_specdec.sampling.SamplingPolicy) instead of a sampler function"
            )
        return SamplingPolicy()
    return SamplingPolicy(
        temp, top_k or None, top_p if top_p and top_p < 1 else None, min_p or None
    )


def stream_generate(
    model,
    tokenizer,
    prompt,
    max_tokens: int = 256,
    draft_model=None,
    *,
    num_draft_tokens: int = 2,
    sampler=None,
    temp: float = 0.0,
    top_p: float = 0.0,
    top_k: int = 0,
    min_p: float = 0.0,
    seed: int | None = None,
    kv_bits: int | None = None,
    kv_group_size: int = 64,
    quantized_kv_start: int = DEFAULT_QUANTIZED_KV_START,
    max_kv_size: int | None = None,
    extra_eos_token_ids=(),
    strategy: str = "auto",
    **unused,
) -> Iterator[GenerationResponse]:
    """mlx-lm's ``stream_generate``, speculative when ``draft_model`` is given.

    ``draft_model`` is a model sharing the tokenizer, or any Drafter (an
    MTPDrafter, a PromptLookupDrafter). ``prompt`` is text or token ids.
    """
    if unused:
        raise SpecDecError(f"stream_generate does not take {', '.join(sorted(unused))}")
    policy = _policy(sampler, temp, top_p, top_k, min_p)
    ids = prompt_ids(tokenizer, prompt)
    eos = eos_ids(tokenizer) | {int(i) for i in extra_eos_token_ids}
    state = strategy
    if kv_bits is not None or max_kv_size is not None:
        from .state import cache_strategy

        state = cache_strategy(strategy, kv_bits=kv_bits, kv_group_size=kv_group_size,
                               quantized_kv_start=quantized_kv_start, max_kv_size=max_kv_size)
    sampling = dict(temperature=policy.temperature, top_k=policy.top_k, top_p=policy.top_p, min_p=policy.min_p,
                    seed=seed)

    stats = SpecStats()
    if draft_model is not None:
        rounds = speculative_stream(model, draft_model, ids, max_tokens, k=num_draft_tokens, eos_id=eos,
                                    strategy=state, stats=stats, **sampling)
        tokens = ((t, kind) for e in rounds for t, kind in zip(e.ids, e.kinds))
    else:
        tokens = ((t, "target") for t in plain_stream(model, ids, max_tokens, eos_id=eos, strategy=state, **sampling))

    detokenizer = _detokenizer(tokenizer)
    n_prompt = len(ids)
    mx.reset_peak_memory()
    tic = time.perf_counter()
    prompt_tps = 0.0
    n = 0
    for n, (token, kind) in enumerate(tokens, start=1):
        if n == 1:  # the first round's time includes the prompt's prefill
            prompt_tps = n_prompt / max(time.perf_counter() - tic, 1e-9)
            tic = time.perf_counter()
        if draft_model is None:
            stats.generated = stats.target_passes = n
        stop = token in eos
        last = stop or n == max_tokens
        if not stop:
            detokenizer.add_token(token)
        if last:
            detokenizer.finalize()
        yield GenerationResponse(
            text=detokenizer.last_segment,
            token=token,
            from_draft=kind == "draft",
            prompt_tokens=n_prompt,
            prompt_tps=prompt_tps,
            generation_tokens=n,
            generation_tps=n / max(time.perf_counter() - tic, 1e-9),
            peak_memory=mx.get_peak_memory() / 1e9,
            finish_reason=("stop" if stop else "length") if last else None,
            kind=kind,
            stats=stats,
        )
        if last:
            return


def generate(model, tokenizer, prompt, verbose: bool = False, **kwargs) -> str:
    """The whole response text (mlx-lm's ``generate``); ``verbose`` prints it as it
    comes, then the prompt and generation rates and, with a drafter, acceptance."""
    if verbose:
        print("=" * 10)
    text, response = "", None
    for response in stream_generate(model, tokenizer, prompt, **kwargs):
        if verbose:
            print(response.text, end="", flush=True)
        text += response.text
    if verbose:
        print()
        print("=" * 10)
        if response is None:
            print("No text generated for this prompt")
            return text
        print(f"Prompt: {response.prompt_tokens} tokens, {response.prompt_tps:.3f} tokens-per-sec")
        print(f"Generation: {response.generation_tokens} tokens, {response.generation_tps:.3f} tokens-per-sec")
        if kwargs.get("draft_model") is not None:
            s = response.stats
            print(f"Speculation: {s.accepted}/{s.drafted} drafts accepted, {s.tokens_per_pass:.2f} tokens per target pass")
        print(f"Peak memory: {response.peak_memory:.3f} GB")
    return text
