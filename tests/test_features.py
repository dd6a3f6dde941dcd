"""Hidden states of chosen target layers, captured in the verification pass itself, for every cache family.

After the prefill and after every pass of a speculative-looking schedule
(blocks of several tokens, partial commits that roll back), a sequence's
`features` must equal the chosen layers' outputs of one fresh full forward
over the same tokens, row for row: the same states a feature drafter would
get from target-only decoding, with no second pass. Every architecture of
tests/archs.py (sliding windows, chunked attention, recurrent and hybrid
layers, CacheList) under each rollback, plus the compiled and recompute strategies.
"""

from __future__ import annotations

import mlx.core as mx
import numpy as np
import pytest

from mlx_specdec.errors import SpecDecError
from mlx_specdec.features import capture, features, tap
from mlx_specdec.state import make_sequence, model_vocab_size
from tests import archs

REFUSED = {  # refused in one line, never a wrong feature
    "gemma3n": "not one residual stream",  # AltUp: a decoder layer carries several streams
    "deepseek_v41": "not one residual stream",  # hyper-connections: likewise
    "iquestloopcoder": "did not run",  # its trunk does not call its decoder layers as modules
}
PROMPT = [5, 17, 33, 2, 9, 100, 41, 7, 8, 12, 200, 3]
# (tokens fed after the pending one, positions kept of the fed) per pass, as the loop commits: at least the
# pending token's, at most all
SCHEDULE = [(3, 4), (4, 2), (1, 1), (5, 6), (0, 1), (7, 3)]


def reference(model, tokens, layers) -> np.ndarray:
    """The layers' outputs as target-only decoding computes them: mlx-lm's own cache from empty, the prompt
    but its last token in one call, then one token a call (a sliding window's rows are those of decoding)."""
    from mlx_lm.models.cache import make_prompt_cache

    cache, rows = make_prompt_cache(model), []
    head = len(PROMPT) - 1
    for chunk in [tokens[:head]] + [[t] for t in tokens[head:]]:
        with capture() as sink:
            model(mx.array(chunk)[None], cache=cache)
        rows.append(np.array(features(sink, layers).astype(mx.float32)))
    return np.concatenate(rows)


def run_schedule(model, strategy, layers):
    """Feed the schedule; yield (the tokens whose rows `features` holds, those rows)."""
    rng = np.random.default_rng(0)
    vocab = model_vocab_size(model)
    seq = make_sequence(model, strategy)
    chosen = seq.capture_features(layers)
    seq.prefill(PROMPT)
    yield PROMPT[:-1], seq.features, chosen
    committed = list(PROMPT[:-1])
    pending = [PROMPT[-1]]
    for fed, accepted in SCHEDULE:
        block = [int(t) for t in rng.integers(1, vocab, size=fed)]
        seq.extend(mx.array(block, dtype=mx.int32))
        yield committed + pending + block, seq.features, chosen
        inputs = pending + block
        keep = min(accepted, len(inputs))
        nxt = int(rng.integers(1, vocab))
        seq.commit(keep, mx.array([nxt], dtype=mx.int32))
        committed += inputs[:keep]
        pending = [nxt]


def check(model, strategy, layers=(0, 1, -1)):
    for tokens, got, chosen in run_schedule(model, strategy, layers):
        want = reference(model, tokens, chosen)
        rows = want[-got.shape[0]:]
        np.testing.assert_allclose(np.array(got.astype(mx.float32)), rows, rtol=2e-3, atol=2e-3)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(archs.ARCHS))
def test_features_from_the_pass_equal_a_fresh_forward_on_every_cache_family(name):
    model = archs.build(name)
    if name in REFUSED:
        with pytest.raises(SpecDecError, match=REFUSED[name]):
            check(model, "cache")
        return
    attention_only = archs.cache_kinds(model) <= {"KVCache", "RotatingKVCache", "QuantizedKVCache", "ChunkedKVCache"}
    # replay for every stateful family; the per-position split (a tapped layer around split calls) on two
    # (refeed runs the model itself again: nothing of its own to capture)
    rollbacks = ["cache"] if attention_only else ["replay"] + (["positions"] if name in ("lfm2", "qwen3_next") else [])
    for rollback in rollbacks:
        check(model, rollback)


@pytest.mark.parametrize("strategy", ["compiled", "recompute", "cache"])
def test_features_under_the_compiled_and_recompute_strategies(strategy):
    from mlx_lm.models import llama

    mx.random.seed(2)
    model = llama.Model(llama.ModelArgs(model_type="llama", hidden_size=32, num_hidden_layers=3, intermediate_size=64,
                                        num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-5,
                                        vocab_size=256))
    check(model, strategy, layers=(0, 2))


def test_a_tapped_model_computes_what_it_did_and_keeps_its_parameters():
    from mlx.utils import tree_flatten

    model = archs.build("gemma3_text")
    ids = mx.array(PROMPT)[None]
    before, names = np.array(model(ids)), [k for k, _ in tree_flatten(model.parameters())]
    tap(model, (0, -1))
    assert np.array_equal(np.array(model(ids)), before)  # no sink active: straight through
    assert [k for k, _ in tree_flatten(model.parameters())] == names


def test_a_layer_that_is_not_there_is_refused():
    model = archs.build("gemma3_text")
    with pytest.raises(SpecDecError, match="is not a layer"):
        tap(model, (len(model.layers),))
    with pytest.raises(SpecDecError, match="no decoder layers"):
        tap(object(), (0,))
