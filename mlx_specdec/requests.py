"""A generation request checked before any work: prompt ids, caps, k, end-of-sequence ids, the seed.

Every way a request can be wrong ends in a one-line SpecDecError naming the value.
"""

from __future__ import annotations

import random

import mlx.core as mx

from .adaptive import SCHEDULES
from .errors import SpecDecError
from .model_info import model_context_window, model_vocab_size


def is_int(value) -> bool:
    import numpy as np

    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def prompt_list(prompt_ids) -> list[int]:
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
        if not is_int(t):
            raise SpecDecError(f"prompt_ids must hold integer token ids, got {t!r} ({type(t).__name__})")
    return [int(t) for t in prompt_ids]


def check_request(model, prompt_ids, max_new_tokens, k=1, eos_id=None) -> list[int]:
    from ._platform import warn_slow_blas_once

    warn_slow_blas_once()  # a library user who imported mlx.core first gets the slow BLAS: say so once
    if k not in SCHEDULES and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise SpecDecError(f"k (draft tokens per round) must be an integer >= 1, 'auto' or 'heuristic', got {k!r}")
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 0:
        raise SpecDecError(f"max_new_tokens must be an integer >= 0, got {max_new_tokens!r}")
    prompt = prompt_list(prompt_ids)
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
    eos_set(eos_id, vocab)
    return prompt


def eos_set(eos_id, vocab=None) -> frozenset[int]:
    """The end-of-sequence ids: None (none), one id, or an iterable of ids (a
    chat model ends a turn with e.g. <|im_end|> beside <|endoftext|>)."""
    if eos_id is None:
        return frozenset()
    many = not is_int(eos_id) and not isinstance(eos_id, (str, bytes, bool, float)) and hasattr(eos_id, "__iter__")
    ids = list(eos_id) if many else [eos_id]
    where = f"[0, {vocab})" if vocab is not None else ">= 0"
    for t in ids:
        if not is_int(t) or t < 0 or (vocab is not None and t >= vocab):
            raise SpecDecError(f"eos_id must be None or an integer token id in {where} (or a set of them), got {eos_id!r}")
    return frozenset(int(t) for t in ids)


def seed_key(seed) -> mx.array:
    """A PRNG key from any Python int: reduced modulo 2**64 (negative and huge seeds included)."""
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    if not is_int(seed):
        raise SpecDecError(f"seed must be an integer or None, got {seed!r} ({type(seed).__name__})")
    return mx.random.key(int(seed) % 2**64)
